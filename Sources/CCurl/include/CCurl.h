// The seam between Swift and libcurl, the HTTP client uploads go through: one blocking request
// described by a plain struct, its body read from a file (or memory) and its answer collected.
// The library is opened when first needed (CCurl.c), not when the program starts.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <stdint.h>
#include <stddef.h>

// Opens libcurl.so.4 and initializes it if it is not yet. Returns NULL when it is, else what
// failed, which includes a libcurl older than 7.87: before it, CURLOPT_AWS_SIGV4 is unknown (and
// a key would go as Basic authentication) or ignores the payload hash given.
const char *CCurl_load(void);

// One request. Strings are NUL-terminated; NULL leaves an option unset.
typedef struct {
    const char *method;               // "PUT", "POST", "GET", "HEAD", "DELETE"
    const char *url;
    const char *const *headers;       // "Name: value" lines
    int headerCount;
    int bodyDescriptor;               // read the body from this file at bodyOffset (pread), or -1
    int64_t bodyOffset;
    const void *bodyBytes;            // else from memory (when bodyDescriptor is -1)
    int64_t bodyLength;               // bytes of body; 0 for none
    const char *awsSignature;         // CURLOPT_AWS_SIGV4, e.g. "aws:amz:us-east-1:s3"
    const char *userPassword;         // "KEY:SECRET" for the signature
    const char *certificateAuthorities; // CURLOPT_CAINFO, a PEM file; NULL for the system's
    long connectTimeoutSeconds;
    long stallSeconds;                // abort when under 1 byte/s for this long
    int64_t maximumSendRate;          // bytes per second; 0 for no cap
    const int *cancel;                // nonzero (stored with CCurl_setFlag) aborts the request
} CCurl_request;

// What came back. `body` and `headers` are owned by the response (CCurl_freeResponse).
typedef struct {
    long status;                      // the HTTP status; 0 when none arrived
    int code;                         // CURLcode: 0 when the exchange completed
    char error[256];                  // libcurl's words when `code` is not 0
    char *body;                       // the answer's body, up to 1 MiB, NUL-terminated
    size_t bodyLength;
    char *headers;                    // the answer's header lines, up to 64 KiB, NUL-terminated
    size_t headersLength;
    int64_t bytesSent;                // body bytes uploaded
} CCurl_response;

// Performs the request, blocking until it completes, fails or is cancelled. Returns `code`.
int CCurl_perform(const CCurl_request *request, CCurl_response *response);

// Releases what a response holds.
void CCurl_freeResponse(CCurl_response *response);

// Stores and reads a cancel flag atomically (the request reads it on another thread).
void CCurl_setFlag(int *flag, int value);
int CCurl_getFlag(const int *flag);

#endif
