// libcurl's functions, forwarded to the library opened on first use: a program that never
// uploads does not load it (or OpenSSL) at start.
#include "CLinux.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#pragma GCC visibility push(hidden)
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include "CCurl.h"

#define CCURL_FUNCTIONS(F, V, H) \
    F(CURLcode, curl_global_init, (long flags), (flags)) \
    F(CURL *, curl_easy_init, (void), ()) \
    V(curl_easy_cleanup, (CURL *handle), (handle)) \
    F(CURLcode, curl_easy_perform, (CURL *handle), (handle)) \
    F(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *text), (list, text)) \
    V(curl_slist_free_all, (struct curl_slist *list), (list)) \
    F(const char *, curl_easy_strerror, (CURLcode code), (code)) \
    F(curl_version_info_data *, curl_version_info, (CURLversion age), (age)) \
    H(curl_easy_setopt) \
    H(curl_easy_getinfo)

CLINUX_LAZY_LIBRARY(CCurl_openLibrary, "libcurl.so.4", CCURL_FUNCTIONS)

typedef CURLcode (*SetOption)(CURL *, CURLoption, ...);
typedef CURLcode (*GetInfo)(CURL *, CURLINFO, ...);
#define SET(handle, option, value) ((SetOption)CLINUX_LAZY_FUNCTION(curl_easy_setopt))(handle, option, value)

static pthread_once_t initialized = PTHREAD_ONCE_INIT;
static const char *initFailure;

static char versionFailure[128];

static void initialize(void) {
    initFailure = CCurl_openLibrary();
    if (initFailure != NULL) return;
    curl_version_info_data *version = curl_version_info(CURLVERSION_NOW);
    if (version == NULL || version->version_num < 0x075700) {
        snprintf(versionFailure, sizeof versionFailure, "libcurl %s is older than 7.87, which signs uploads with SigV4 as S3 needs",
                 version != NULL ? version->version : "(unknown)");
        initFailure = versionFailure;
    } else if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        initFailure = "curl_global_init failed";
    }
}

const char *CCurl_load(void) {
    pthread_once(&initialized, initialize);
    return initFailure;
}

void CCurl_setFlag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELEASE); }

int CCurl_getFlag(const int *flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }

// Collects up to `limit` bytes into a growing buffer; more is an error (a body S3 never sends).
typedef struct { char *bytes; size_t length, capacity, limit; } Buffer;

static int append(Buffer *buffer, const char *data, size_t count) {
    if (buffer->length + count + 1 > buffer->limit) return -1;
    if (buffer->length + count + 1 > buffer->capacity) {
        size_t capacity = (buffer->length + count + 1) * 2;
        if (capacity > buffer->limit) capacity = buffer->limit;
        char *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return -1;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, data, count);
    buffer->length += count;
    buffer->bytes[buffer->length] = 0;
    return 0;
}

static size_t receive(char *data, size_t size, size_t count, void *context) {
    return append(context, data, size * count) == 0 ? size * count : 0;
}

// The body, from the file or memory; what was sent so far is `sent`.
typedef struct { const CCurl_request *request; int64_t sent; } Source;

static size_t sendBody(char *data, size_t size, size_t count, void *context) {
    Source *source = context;
    const CCurl_request *request = source->request;
    int64_t left = request->bodyLength - source->sent;
    size_t wanted = size * count < (size_t)left ? size * count : (size_t)left;
    if (wanted == 0) return 0;
    if (request->bodyDescriptor < 0) {
        memcpy(data, (const char *)request->bodyBytes + source->sent, wanted);
        source->sent += (int64_t)wanted;
        return wanted;
    }
    ssize_t read;
    do {
        read = pread(request->bodyDescriptor, data, wanted, request->bodyOffset + source->sent);
    } while (read < 0 && errno == EINTR);
    if (read <= 0) return CURL_READFUNC_ABORT;  // the file shrank or cannot be read
    source->sent += read;
    return (size_t)read;
}

// Rewinds the body when libcurl must send it again (a redirect or a reused connection's retry).
static int seek(void *context, curl_off_t offset, int origin) {
    Source *source = context;
    if (origin != SEEK_SET || offset < 0 || offset > source->request->bodyLength) return CURL_SEEKFUNC_FAIL;
    source->sent = offset;
    return CURL_SEEKFUNC_OK;
}

static int progress(void *context, curl_off_t downTotal, curl_off_t down, curl_off_t upTotal, curl_off_t up) {
    (void)downTotal; (void)down; (void)upTotal; (void)up;
    const int *cancel = context;
    return cancel != NULL && __atomic_load_n(cancel, __ATOMIC_ACQUIRE) != 0;
}

// Sets the request's options; returns what libcurl refused of those that must hold (the
// signature: without it the key would go as Basic authentication), else CURLE_OK.
static CURLcode configure(CURL *handle, const CCurl_request *request, Source *source, struct curl_slist *headers) {
    SET(handle, CURLOPT_URL, request->url);
    SET(handle, CURLOPT_NOSIGNAL, 1L);
    SET(handle, CURLOPT_HTTPHEADER, headers);
    SET(handle, CURLOPT_CONNECTTIMEOUT, request->connectTimeoutSeconds);
    SET(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    SET(handle, CURLOPT_LOW_SPEED_TIME, request->stallSeconds);
    SET(handle, CURLOPT_NOPROGRESS, 0L);
    SET(handle, CURLOPT_XFERINFOFUNCTION, progress);
    SET(handle, CURLOPT_XFERINFODATA, (void *)request->cancel);
    SET(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (request->awsSignature != NULL) {
        CURLcode signing = SET(handle, CURLOPT_AWS_SIGV4, request->awsSignature);
        if (signing != CURLE_OK) return signing;
    }
    if (request->userPassword != NULL) SET(handle, CURLOPT_USERPWD, request->userPassword);
    if (request->certificateAuthorities != NULL) SET(handle, CURLOPT_CAINFO, request->certificateAuthorities);
    if (request->maximumSendRate > 0) SET(handle, CURLOPT_MAX_SEND_SPEED_LARGE, (curl_off_t)request->maximumSendRate);
    if (strcmp(request->method, "HEAD") == 0) {
        SET(handle, CURLOPT_NOBODY, 1L);
    } else if (strcmp(request->method, "PUT") == 0 || request->bodyLength > 0) {
        SET(handle, CURLOPT_UPLOAD, 1L);
        SET(handle, CURLOPT_INFILESIZE_LARGE, (curl_off_t)request->bodyLength);
        SET(handle, CURLOPT_READFUNCTION, sendBody);
        SET(handle, CURLOPT_READDATA, source);
        SET(handle, CURLOPT_SEEKFUNCTION, seek);
        SET(handle, CURLOPT_SEEKDATA, source);
        if (strcmp(request->method, "PUT") != 0) SET(handle, CURLOPT_CUSTOMREQUEST, request->method);
    } else if (strcmp(request->method, "POST") == 0) {
        SET(handle, CURLOPT_POST, 1L);
        SET(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        SET(handle, CURLOPT_POSTFIELDS, "");
    } else if (strcmp(request->method, "GET") != 0) {
        SET(handle, CURLOPT_CUSTOMREQUEST, request->method);
    }
    return CURLE_OK;
}

int CCurl_perform(const CCurl_request *request, CCurl_response *response) {
    memset(response, 0, sizeof *response);
    const char *failure = CCurl_load();
    if (failure != NULL) {
        snprintf(response->error, sizeof response->error, "%s", failure);
        return response->code = CURLE_FAILED_INIT;
    }
    CURL *handle = curl_easy_init();
    if (handle == NULL) {
        snprintf(response->error, sizeof response->error, "curl_easy_init failed");
        return response->code = CURLE_FAILED_INIT;
    }
    struct curl_slist *headers = NULL;
    for (int index = 0; index < request->headerCount; index++) headers = curl_slist_append(headers, request->headers[index]);
    Source source = {request, 0};
    Buffer body = {NULL, 0, 0, 1 << 20}, head = {NULL, 0, 0, 64 << 10};
    CURLcode refused = configure(handle, request, &source, headers);
    if (refused != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "libcurl refused the SigV4 signature option: %s", curl_easy_strerror(refused));
        curl_easy_cleanup(handle);
        curl_slist_free_all(headers);
        return response->code = refused;
    }
    SET(handle, CURLOPT_WRITEFUNCTION, receive);
    SET(handle, CURLOPT_WRITEDATA, &body);
    SET(handle, CURLOPT_HEADERFUNCTION, receive);
    SET(handle, CURLOPT_HEADERDATA, &head);
    SET(handle, CURLOPT_ERRORBUFFER, response->error);
    CURLcode code = curl_easy_perform(handle);
    ((GetInfo)CLINUX_LAZY_FUNCTION(curl_easy_getinfo))(handle, CURLINFO_RESPONSE_CODE, &response->status);
    if (code != CURLE_OK && response->error[0] == 0) {
        snprintf(response->error, sizeof response->error, "%s", curl_easy_strerror(code));
    }
    response->code = code;
    response->body = body.bytes;
    response->bodyLength = body.length;
    response->headers = head.bytes;
    response->headersLength = head.length;
    response->bytesSent = source.sent;
    curl_easy_cleanup(handle);
    curl_slist_free_all(headers);
    return code;
}

void CCurl_freeResponse(CCurl_response *response) {
    free(response->body);
    free(response->headers);
    response->body = NULL;
    response->headers = NULL;
}
