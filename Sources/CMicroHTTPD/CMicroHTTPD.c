// libmicrohttpd's functions, forwarded to the library opened on first use: a program that
// never serves the live view does not load it at start.
#include "CLinux.h"
#include <pthread.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netinet/in.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's, pthread's and inet_ntop's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CMicroHTTPD.h"

#define CMICROHTTPD_FUNCTIONS(F, V, H) \
    H(MHD_start_daemon) \
    H(MHD_get_daemon_info) \
    H(MHD_get_connection_info) \
    H(MHD_set_connection_option) \
    V(MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon)) \
    F(struct MHD_Response *, MHD_create_response_from_buffer, \
      (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode)) \
    F(struct MHD_Response *, MHD_create_response_from_callback, \
      (uint64_t size, size_t blockSize, MHD_ContentReaderCallback reader, void *context, \
       MHD_ContentReaderFreeCallback free), (size, blockSize, reader, context, free)) \
    F(enum MHD_Result, MHD_add_response_header, (struct MHD_Response *response, const char *name, const char *value), \
      (response, name, value)) \
    F(enum MHD_Result, MHD_queue_response, \
      (struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response), \
      (connection, status, response)) \
    V(MHD_destroy_response, (struct MHD_Response *response), (response)) \
    F(const char *, MHD_lookup_connection_value, \
      (struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key), (connection, kind, key))

CLINUX_LAZY_LIBRARY(CMicroHTTPD_load, "libmicrohttpd.so.12", CMICROHTTPD_FUNCTIONS)

static int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// libmicrohttpd's own decoder (MHD_http_unescape in 0.9.75) turns %00 into a NUL that ends the
// C string the handler gets, so "/status.json%00x" read as "/status.json". This one decodes
// %HH as it does, in place, but leaves an escape of a control character (0x00-0x1F, 0x7F) as
// it is, so a path or query value never holds one and never matches what it is not.
static size_t unescapeKeepingControls(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    char *read = text, *write = text;
    while (*read != '\0') {
        int high = read[0] == '%' ? hexValue(read[1]) : -1;
        int low = high < 0 ? -1 : hexValue(read[2]);
        int byte = high * 16 + low;
        if (low >= 0 && byte >= 0x20 && byte != 0x7F) {
            *write++ = (char)byte;
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = '\0';
    return (size_t)(write - text);
}

struct MHD_Daemon *CMicroHTTPD_start(const struct sockaddr *address, int ipv6, unsigned int connectionLimit,
                                     unsigned int perAddressLimit, unsigned int idleSeconds, size_t memoryLimit,
                                     MHD_AccessHandlerCallback handler, MHD_NotifyConnectionCallback notify,
                                     MHD_RequestCompletedCallback completed, void *context) {
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, context},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, context},
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_CONNECTION_LIMIT, connectionLimit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, idleSeconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memoryLimit, NULL},
        {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescapeKeepingControls, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    typedef struct MHD_Daemon *(*Start)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                        MHD_AccessHandlerCallback, void *, ...);
    Start start = (Start)CLINUX_LAZY_FUNCTION(MHD_start_daemon);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL
        | (ipv6 ? MHD_USE_IPv6 : 0);
    // The port argument is ignored when MHD_OPTION_SOCK_ADDR gives the address.
    return start(flags, 0, NULL, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

uint16_t CMicroHTTPD_port(struct MHD_Daemon *daemon) {
    typedef const union MHD_DaemonInfo *(*Info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    Info info = (Info)CLINUX_LAZY_FUNCTION(MHD_get_daemon_info);
    const union MHD_DaemonInfo *found = info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return found == NULL ? 0 : found->port;
}

int CMicroHTTPD_clientAddress(struct MHD_Connection *connection, char *text, size_t size) {
    typedef const union MHD_ConnectionInfo *(*Info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    Info info = (Info)CLINUX_LAZY_FUNCTION(MHD_get_connection_info);
    const union MHD_ConnectionInfo *found = info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (found == NULL || found->client_addr == NULL) return -1;
    const struct sockaddr *address = found->client_addr;
    const void *bytes = address->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)address)->sin6_addr
                                                       : (const void *)&((const struct sockaddr_in *)address)->sin_addr;
    return inet_ntop(address->sa_family, bytes, text, (socklen_t)size) == NULL ? -1 : 0;
}

int CMicroHTTPD_socket(struct MHD_Connection *connection) {
    typedef const union MHD_ConnectionInfo *(*Info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    Info info = (Info)CLINUX_LAZY_FUNCTION(MHD_get_connection_info);
    const union MHD_ConnectionInfo *found = info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return found == NULL ? -1 : found->connect_fd;
}

int CMicroHTTPD_limitConnection(struct MHD_Connection *connection, int sendBuffer, unsigned int idleSeconds) {
    typedef const union MHD_ConnectionInfo *(*Info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    typedef enum MHD_Result (*Option)(struct MHD_Connection *, enum MHD_CONNECTION_OPTION, ...);
    Info info = (Info)CLINUX_LAZY_FUNCTION(MHD_get_connection_info);
    Option option = (Option)CLINUX_LAZY_FUNCTION(MHD_set_connection_option);
    const union MHD_ConnectionInfo *found = info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (found == NULL) return -1;
    if (setsockopt(found->connect_fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, sizeof sendBuffer) != 0) return -1;
    return option(connection, MHD_CONNECTION_OPTION_TIMEOUT, idleSeconds) == MHD_YES ? 0 : -1;
}
