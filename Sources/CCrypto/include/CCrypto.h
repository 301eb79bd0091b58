// The seam between Swift and OpenSSL's libcrypto, for the digests uploads send with each part:
// MD5 (Content-MD5, S3's ETag) and SHA-256 (SigV4's payload hash). The library is opened when
// first needed (CCrypto.c), not when the program starts.
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
#include <stdint.h>
#include <stddef.h>

// Opens libcrypto.so.3 if it is not open yet. Returns NULL when it is, else what failed.
const char *CCrypto_load(void);

// MD5 and SHA-256 of `length` bytes of the file at `offset` (pread, 1 MiB at a time), or of
// `bytes` when `descriptor` is -1. Returns 0; -1 with errno set when the file ends early or a
// read fails; -2 when libcrypto fails.
int CCrypto_digests(int descriptor, int64_t offset, const void *bytes, int64_t length,
                    uint8_t md5[16], uint8_t sha256[32]);

#endif
