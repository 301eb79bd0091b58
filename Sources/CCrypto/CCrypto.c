// libcrypto's digest functions, forwarded to the library opened on first use.
#include "CLinux.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#pragma GCC visibility push(hidden)
#include <openssl/evp.h>
#include "CCrypto.h"

#define CCRYPTO_FUNCTIONS(F, V, H) \
    F(EVP_MD_CTX *, EVP_MD_CTX_new, (void), ()) \
    V(EVP_MD_CTX_free, (EVP_MD_CTX *context), (context)) \
    F(const EVP_MD *, EVP_md5, (void), ()) \
    F(const EVP_MD *, EVP_sha256, (void), ()) \
    F(int, EVP_DigestInit_ex, (EVP_MD_CTX *context, const EVP_MD *type, ENGINE *engine), (context, type, engine)) \
    F(int, EVP_DigestUpdate, (EVP_MD_CTX *context, const void *data, size_t count), (context, data, count)) \
    F(int, EVP_DigestFinal_ex, (EVP_MD_CTX *context, unsigned char *digest, unsigned int *size), (context, digest, size))

CLINUX_LAZY_LIBRARY(CCrypto_load, "libcrypto.so.3", CCRYPTO_FUNCTIONS)

static int update(EVP_MD_CTX *md5, EVP_MD_CTX *sha, const void *data, size_t count) {
    return EVP_DigestUpdate(md5, data, count) == 1 && EVP_DigestUpdate(sha, data, count) == 1 ? 0 : -2;
}

static int digestFile(int descriptor, int64_t offset, int64_t length, EVP_MD_CTX *md5, EVP_MD_CTX *sha) {
    enum { chunk = 1 << 20 };
    unsigned char *buffer = malloc(chunk);
    if (buffer == NULL) return -2;
    int result = 0;
    while (length > 0 && result == 0) {
        ssize_t count = pread(descriptor, buffer, length < chunk ? (size_t)length : chunk, offset);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            if (count == 0) errno = ENODATA;
            result = -1;
            break;
        }
        result = update(md5, sha, buffer, (size_t)count);
        offset += count;
        length -= count;
    }
    free(buffer);
    return result;
}

int CCrypto_digests(int descriptor, int64_t offset, const void *bytes, int64_t length,
                    uint8_t md5Digest[16], uint8_t sha256Digest[32]) {
    EVP_MD_CTX *md5 = EVP_MD_CTX_new(), *sha = EVP_MD_CTX_new();
    int result = -2;
    if (md5 != NULL && sha != NULL && EVP_DigestInit_ex(md5, EVP_md5(), NULL) == 1
        && EVP_DigestInit_ex(sha, EVP_sha256(), NULL) == 1) {
        result = descriptor >= 0 ? digestFile(descriptor, offset, length, md5, sha)
                                 : update(md5, sha, bytes, (size_t)length);
        unsigned int size = 0;
        if (result == 0 && (EVP_DigestFinal_ex(md5, md5Digest, &size) != 1 || EVP_DigestFinal_ex(sha, sha256Digest, &size) != 1)) {
            result = -2;
        }
    }
    if (md5 != NULL) EVP_MD_CTX_free(md5);
    if (sha != NULL) EVP_MD_CTX_free(sha);
    return result;
}
