// The seam between Swift and GNU libmicrohttpd, the HTTP server the live view is served by:
// its C API imported as declared, and non-variadic wrappers for the calls that take options.
// The library is opened when first needed (CMicroHTTPD.c), not when the program starts.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// Opens libmicrohttpd.so.12 if it is not open yet. Returns NULL when it is, else what failed.
const char *CMicroHTTPD_load(void);

// Starts a daemon listening on `address` (a sockaddr_in, or a sockaddr_in6 when `ipv6`), each
// connection served on a thread of its own, with the limits given: connections in all and per
// client address, seconds a connection may stay idle, and bytes of memory a connection may use
// for its request (its headers must fit). `notify` hears of each connection as it opens and
// closes (before its socket is closed), `completed` of each request's end. Escapes in the path
// and query are decoded except those of control characters (%00 stays "%00"). Returns NULL
// when it cannot start (errno says why).
struct MHD_Daemon *CMicroHTTPD_start(const struct sockaddr *address, int ipv6, unsigned int connectionLimit,
                                     unsigned int perAddressLimit, unsigned int idleSeconds, size_t memoryLimit,
                                     MHD_AccessHandlerCallback handler, MHD_NotifyConnectionCallback notify,
                                     MHD_RequestCompletedCallback completed, void *context);

// The connection's socket, or -1.
int CMicroHTTPD_socket(struct MHD_Connection *connection);

// The port a started daemon listens on (useful after asking for port 0).
uint16_t CMicroHTTPD_port(struct MHD_Daemon *daemon);

// Writes the connection's client address as text ("127.0.0.1", "::1") into `text`; returns 0,
// or -1 when it is not known.
int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *text, size_t size);

// For a long response: caps the kernel's send buffer of the connection's socket at `sendBuffer`
// bytes and closes the connection once it has made no progress for `idleSeconds`, so a client
// that stops reading is noticed within seconds instead of after megabytes. Returns 0, or -1.
int CMicroHTTPD_limitConnection(struct MHD_Connection *connection, int sendBuffer, unsigned int idleSeconds);

// The values the content-reader callback returns at the end of a stream and on an error.
static inline ssize_t CMicroHTTPD_endOfStream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t CMicroHTTPD_endWithError(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
// The size of a response whose length is not known in advance (sent chunked).
static inline uint64_t CMicroHTTPD_sizeUnknown(void) { return MHD_SIZE_UNKNOWN; }
#endif
