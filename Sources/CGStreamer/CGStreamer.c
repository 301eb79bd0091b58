// GStreamer's RTSP server, driven from one GLib main loop per server, its functions forwarded
// to libgstrtspserver-1.0 opened on first use: a program that never serves RTSP does not load
// GStreamer at start. Looked up through that library, GStreamer, GLib and libgstapp (its
// dependencies) come with it.
#include "CLinux.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define G_DISABLE_CAST_CHECKS 1
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/rtsp-server/rtsp-server.h>
// What follows, the forwarding functions included, is hidden from other shared objects.
#pragma GCC visibility push(hidden)
#include "CGStreamer.h"

#define CGSTREAMER_FUNCTIONS(F, V, H) \
    H(g_object_set) H(g_object_new) H(g_object_ref) H(g_object_get_data) H(g_object_set_data) H(gst_rtsp_token_new) H(gst_rtsp_media_factory_add_role) \
    F(gboolean, gst_init_check, (int *argc, char **argv[], GError **error), (argc, argv, error)) \
    F(GstElementFactory *, gst_element_factory_find, (const gchar *name), (name)) \
    V(gst_object_unref, (gpointer object), (object)) \
    F(gpointer, gst_object_ref, (gpointer object), (object)) \
    F(GstObject *, gst_object_get_parent, (GstObject *object), (object)) \
    F(GstElement *, gst_bin_get_by_name, (GstBin *bin, const gchar *name), (bin, name)) \
    F(GstClockTime, gst_element_get_base_time, (GstElement *element), (element)) \
    F(GstElementFactory *, gst_element_get_factory, (GstElement *element), (element)) \
    F(GstBuffer *, gst_buffer_new_memdup, (gconstpointer data, gsize size), (data, size)) \
    F(GType, gst_system_clock_get_type, (void), ()) \
    F(GstFlowReturn, gst_app_src_push_buffer, (GstAppSrc *appsrc, GstBuffer *buffer), (appsrc, buffer)) \
    F(GMainContext *, g_main_context_new, (void), ()) \
    V(g_main_context_unref, (GMainContext *context), (context)) \
    V(g_main_context_push_thread_default, (GMainContext *context), (context)) \
    V(g_main_context_pop_thread_default, (GMainContext *context), (context)) \
    F(GMainLoop *, g_main_loop_new, (GMainContext *context, gboolean is_running), (context, is_running)) \
    V(g_main_loop_run, (GMainLoop *loop), (loop)) \
    V(g_main_loop_quit, (GMainLoop *loop), (loop)) \
    V(g_main_loop_unref, (GMainLoop *loop), (loop)) \
    F(GSource *, g_idle_source_new, (void), ()) \
    F(GSource *, g_timeout_source_new_seconds, (guint interval), (interval)) \
    V(g_source_set_callback, (GSource *source, GSourceFunc func, gpointer data, GDestroyNotify notify), \
      (source, func, data, notify)) \
    F(guint, g_source_attach, (GSource *source, GMainContext *context), (source, context)) \
    V(g_source_destroy, (GSource *source), (source)) \
    V(g_source_unref, (GSource *source), (source)) \
    V(g_free, (gpointer mem), (mem)) \
    F(gint64, g_get_monotonic_time, (void), ()) \
    V(g_list_free_full, (GList *list, GDestroyNotify free_func), (list, free_func)) \
    F(GList *, g_list_prepend, (GList *list, gpointer data), (list, data)) \
    F(GList *, gst_rtsp_client_session_filter, (GstRTSPClient *client, GstRTSPClientSessionFilterFunc func, \
      gpointer user_data), (client, func, user_data)) \
    F(gchar *, g_strdup, (const gchar *str), (str)) \
    F(gchar **, g_strsplit, (const gchar *string, const gchar *delimiter, gint max_tokens), (string, delimiter, max_tokens)) \
    V(g_strfreev, (gchar **str_array), (str_array)) \
    V(g_error_free, (GError *error), (error)) \
    V(g_object_unref, (gpointer object), (object)) \
    F(gulong, g_signal_connect_data, (gpointer instance, const gchar *detailed_signal, GCallback c_handler, \
      gpointer data, GClosureNotify destroy_data, GConnectFlags connect_flags), \
      (instance, detailed_signal, c_handler, data, destroy_data, connect_flags)) \
    F(GstRTSPServer *, gst_rtsp_server_new, (void), ()) \
    V(gst_rtsp_server_set_address, (GstRTSPServer *server, const gchar *address), (server, address)) \
    V(gst_rtsp_server_set_service, (GstRTSPServer *server, const gchar *service), (server, service)) \
    F(int, gst_rtsp_server_get_bound_port, (GstRTSPServer *server), (server)) \
    F(GstRTSPSessionPool *, gst_rtsp_server_get_session_pool, (GstRTSPServer *server), (server)) \
    F(GstRTSPMountPoints *, gst_rtsp_server_get_mount_points, (GstRTSPServer *server), (server)) \
    V(gst_rtsp_server_set_auth, (GstRTSPServer *server, GstRTSPAuth *auth), (server, auth)) \
    F(GSource *, gst_rtsp_server_create_source, (GstRTSPServer *server, GCancellable *cancellable, GError **error), \
      (server, cancellable, error)) \
    F(GList *, gst_rtsp_server_client_filter, (GstRTSPServer *server, GstRTSPServerClientFilterFunc func, \
      gpointer user_data), (server, func, user_data)) \
    F(GstRTSPMediaFactory *, gst_rtsp_media_factory_new, (void), ()) \
    V(gst_rtsp_media_factory_set_launch, (GstRTSPMediaFactory *factory, const gchar *launch), (factory, launch)) \
    V(gst_rtsp_media_factory_set_shared, (GstRTSPMediaFactory *factory, gboolean shared), (factory, shared)) \
    V(gst_rtsp_media_factory_set_clock, (GstRTSPMediaFactory *factory, GstClock *clock), (factory, clock)) \
    V(gst_rtsp_mount_points_add_factory, (GstRTSPMountPoints *mounts, const gchar *path, \
      GstRTSPMediaFactory *factory), (mounts, path, factory)) \
    F(GstElement *, gst_rtsp_media_get_element, (GstRTSPMedia *media), (media)) \
    F(GstRTSPAuth *, gst_rtsp_auth_new, (void), ()) \
    V(gst_rtsp_auth_add_digest, (GstRTSPAuth *auth, const gchar *user, const gchar *pass, GstRTSPToken *token), \
      (auth, user, pass, token)) \
    V(gst_rtsp_auth_set_supported_methods, (GstRTSPAuth *auth, GstRTSPAuthMethod methods), (auth, methods)) \
    V(gst_mini_object_unref, (GstMiniObject *mini_object), (mini_object)) \
    V(gst_rtsp_session_pool_set_max_sessions, (GstRTSPSessionPool *pool, guint max), (pool, max)) \
    F(guint, gst_rtsp_session_pool_cleanup, (GstRTSPSessionPool *pool), (pool)) \
    F(GList *, gst_rtsp_session_pool_filter, (GstRTSPSessionPool *pool, GstRTSPSessionPoolFilterFunc func, \
      gpointer user_data), (pool, func, user_data)) \
    V(gst_rtsp_session_set_timeout, (GstRTSPSession *session, guint timeout), (session, timeout)) \
    F(GstRTSPConnection *, gst_rtsp_client_get_connection, (GstRTSPClient *client), (client)) \
    V(gst_rtsp_client_close, (GstRTSPClient *client), (client)) \
    F(const gchar *, gst_rtsp_connection_get_ip, (const GstRTSPConnection *conn), (conn)) \
    F(GSocket *, gst_rtsp_connection_get_read_socket, (const GstRTSPConnection *conn), (conn)) \
    F(gboolean, g_socket_shutdown, (GSocket *socket, gboolean shutdown_read, gboolean shutdown_write, GError **error), \
      (socket, shutdown_read, shutdown_write, error)) \
    F(GstRTSPResult, gst_rtsp_message_get_header, (const GstRTSPMessage *msg, GstRTSPHeaderField field, \
      gchar **value, gint indx), (msg, field, value, indx)) \
    F(GstRTSPResult, gst_rtsp_transport_new, (GstRTSPTransport **transport), (transport)) \
    F(GstRTSPResult, gst_rtsp_transport_parse, (const gchar *str, GstRTSPTransport *transport), (str, transport)) \
    F(GstRTSPResult, gst_rtsp_transport_free, (GstRTSPTransport *transport), (transport))

CLINUX_LAZY_LIBRARY(CGStreamer_loadLibrary, "libgstrtspserver-1.0.so.0", CGSTREAMER_FUNCTIONS)

#define CGS_PATHS 8
// Seconds a connection without a session may go without being answered: a request that never
// ends (sent a byte at a time, or half of it) does not hold a connection for ever.
#define CGS_REQUEST_DEADLINE 10
#define CGS_STREAMS 4

// One served path: the appsrc elements of its current media, which the server's thread sets
// and the pushing threads read.
typedef struct {
    char name[64];
    int streams;
    int video[CGS_STREAMS];
    GstRTSPMediaFactory *factory;
    pthread_mutex_t lock;
    GstElement *sources[CGS_STREAMS];
    int waiting[CGS_STREAMS];
    GstRTSPMedia *media;
} Path;

struct CGStreamerServer {
    GstRTSPServer *server;
    GMainContext *context;
    GMainLoop *loop;
    GstClock *clock;
    GSource *listening;
    GSource *cleanup;
    int authenticated;
    unsigned int sessionTimeout;
    CGStreamerAdmit admit;
    CGStreamerClosed closed;
    void *context_;
    pthread_mutex_t pathsLock;
    Path paths[CGS_PATHS];
    int pathCount;
    unsigned long refusedDestinations;
};

static pthread_once_t initOnce = PTHREAD_ONCE_INIT;
static char initFailure[512];

static void initialise(void) {
    const char *failure = CGStreamer_loadLibrary();
    if (failure != NULL) {
        snprintf(initFailure, sizeof initFailure, "%s", failure);
        return;
    }
    GError *error = NULL;
    if (!gst_init_check(NULL, NULL, &error)) {
        snprintf(initFailure, sizeof initFailure, "GStreamer did not initialise: %s", error ? error->message : "unknown");
        if (error) g_error_free(error);
    }
}

const char *CGStreamer_load(void) {
    pthread_once(&initOnce, initialise);
    return initFailure[0] != 0 ? initFailure : NULL;
}

int CGStreamer_hasElement(const char *name) {
    GstElementFactory *factory = gst_element_factory_find(name);
    if (factory == NULL) return 0;
    gst_object_unref(factory);
    return 1;
}

#define object_set ((void (*)(gpointer, const gchar *, ...))CLINUX_LAZY_FUNCTION(g_object_set))
#define object_new ((gpointer (*)(GType, const gchar *, ...))CLINUX_LAZY_FUNCTION(g_object_new))
#define object_ref ((gpointer (*)(gpointer))CLINUX_LAZY_FUNCTION(g_object_ref))
#define object_get_data ((gpointer (*)(gpointer, const gchar *))CLINUX_LAZY_FUNCTION(g_object_get_data))
#define object_set_data ((void (*)(gpointer, const gchar *, gpointer))CLINUX_LAZY_FUNCTION(g_object_set_data))
#define token_new ((GstRTSPToken * (*)(const gchar *, ...))CLINUX_LAZY_FUNCTION(gst_rtsp_token_new))
#define factory_add_role ((void (*)(GstRTSPMediaFactory *, const gchar *, const gchar *, ...)) \
                          CLINUX_LAZY_FUNCTION(gst_rtsp_media_factory_add_role))
#define connect(instance, signal, handler, data) \
    g_signal_connect_data((instance), (signal), G_CALLBACK(handler), (data), NULL, (GConnectFlags)0)

// Sender reports pair an RTP timestamp with the wall-clock time its buffer was captured at (its
// running time on the media's wall clock), not with the time the report is sent; and they come
// every half second from the start, so a client (FFmpeg) puts audio and video on one timeline
// from its first packets instead of timing each stream from its own first packet.
static void elementAdded(GstBin *bin, GstBin *child, GstElement *element, gpointer data) {
    (void)bin;
    (void)child;
    (void)data;
    GstElementFactory *factory = gst_element_get_factory(element);
    if (factory == NULL) return;
    if (strcmp(GST_OBJECT_NAME(factory), "rtpbin") == 0) {
        object_set(element, "rtcp-sync-send-time", FALSE, NULL);
    } else if (strcmp(GST_OBJECT_NAME(factory), "rtpsession") == 0) {
        object_set(element, "rtcp-min-interval", (guint64)(500 * GST_MSECOND), NULL);
    }
}

static void replaceSources(Path *path, GstRTSPMedia *media, GstElement **found) {
    GstElement *old[CGS_STREAMS];
    pthread_mutex_lock(&path->lock);
    for (int i = 0; i < CGS_STREAMS; i++) {
        old[i] = path->sources[i];
        path->sources[i] = found[i];
        path->waiting[i] = path->video[i];
    }
    path->media = media;
    pthread_mutex_unlock(&path->lock);
    for (int i = 0; i < CGS_STREAMS; i++) if (old[i] != NULL) gst_object_unref(old[i]);
}

static void unprepared(GstRTSPMedia *media, gpointer data) {
    Path *path = data;
    GstElement *none[CGS_STREAMS] = {0};
    pthread_mutex_lock(&path->lock);
    int current = path->media == media;
    pthread_mutex_unlock(&path->lock);
    if (current) replaceSources(path, NULL, none);
}

// A new media for the path: its appsrc elements become where pushes go.
static void configured(GstRTSPMediaFactory *factory, GstRTSPMedia *media, gpointer data) {
    Path *path = data;
    if (factory != path->factory) return;
    GstElement *element = gst_rtsp_media_get_element(media);
    GstElement *found[CGS_STREAMS] = {0};
    for (int i = 0; i < path->streams && i < CGS_STREAMS; i++) {
        char name[16];
        snprintf(name, sizeof name, "src%d", i);
        found[i] = gst_bin_get_by_name(GST_BIN(element), name);
    }
    GstObject *pipeline = gst_object_get_parent(GST_OBJECT(element));
    if (pipeline != NULL) {
        connect(pipeline, "deep-element-added", elementAdded, NULL);
        gst_object_unref(pipeline);
    }
    gst_object_unref(element);
    connect(media, "unprepared", unprepared, path);
    replaceSources(path, media, found);
}

// A SETUP that asks for RTP to go anywhere but the address it came from, or to a multicast
// group, is refused: the server never sends a stream to a third party.
static GstRTSPStatusCode beforeSetup(GstRTSPClient *client, GstRTSPContext *context, gpointer data) {
    CGStreamerServer *server = data;
    const gchar *address = gst_rtsp_connection_get_ip(gst_rtsp_client_get_connection(client));
    gchar *value = NULL;
    if (context->request == NULL || address == NULL
        || gst_rtsp_message_get_header(context->request, GST_RTSP_HDR_TRANSPORT, &value, 0) != GST_RTSP_OK) {
        return GST_RTSP_STS_OK;
    }
    int refused = 0;
    gchar **pieces = g_strsplit(value, ",", 16);
    for (int i = 0; pieces[i] != NULL && !refused; i++) {
        GstRTSPTransport *transport = NULL;
        if (gst_rtsp_transport_new(&transport) != GST_RTSP_OK) continue;
        if (gst_rtsp_transport_parse(pieces[i], transport) == GST_RTSP_OK) {
            refused = (transport->destination != NULL && strcmp(transport->destination, address) != 0)
                || (transport->lower_transport & GST_RTSP_LOWER_TRANS_UDP_MCAST) != 0;
        }
        gst_rtsp_transport_free(transport);
    }
    g_strfreev(pieces);
    if (refused) __atomic_add_fetch(&server->refusedDestinations, 1, __ATOMIC_RELAXED);
    return refused ? GST_RTSP_STS_FORBIDDEN : GST_RTSP_STS_OK;
}

static void newSession(GstRTSPClient *client, GstRTSPSession *session, gpointer data) {
    (void)client;
    CGStreamerServer *server = data;
    gst_rtsp_session_set_timeout(session, server->sessionTimeout);
}

typedef struct {
    CGStreamerServer *server;
    gchar *address;
} Departure;

// When the server last answered the client, in seconds on the monotonic clock (plus one, so
// that a client never answered still reads as set).
static void markAnswered(GstRTSPClient *client) {
    object_set_data(client, "movrec-answered", GSIZE_TO_POINTER((gsize)(g_get_monotonic_time() / G_USEC_PER_SEC + 1)));
}

static void sentMessage(GstRTSPClient *client, GstRTSPContext *context, GstRTSPMessage *message, gpointer data) {
    (void)context;
    (void)message;
    (void)data;
    markAnswered(client);
}

static void clientClosed(GstRTSPClient *client, gpointer data) {
    (void)client;
    Departure *departure = data;
    departure->server->closed(departure->server->context_, departure->address);
}

static void freeDeparture(gpointer data, GClosure *closure) {
    (void)closure;
    Departure *departure = data;
    g_free(departure->address);
    free(departure);
}

// A client turned away has its socket shut down in both directions: it reads the end of the
// stream and closes itself as if the peer had gone (closing it here, before it is attached,
// leaks it; closing it once attached can leave its watch reading a freed stream). It never
// counts as let in.
static void clientConnected(GstRTSPServer *rtsp, GstRTSPClient *client, gpointer data) {
    (void)rtsp;
    CGStreamerServer *server = data;
    const gchar *address = gst_rtsp_connection_get_ip(gst_rtsp_client_get_connection(client));
    if (address == NULL || !server->admit(server->context_, address)) {
        g_socket_shutdown(gst_rtsp_connection_get_read_socket(gst_rtsp_client_get_connection(client)), TRUE, TRUE, NULL);
        return;
    }
    Departure *departure = malloc(sizeof *departure);
    departure->server = server;
    departure->address = g_strdup(address);
    g_signal_connect_data(client, "closed", G_CALLBACK(clientClosed), departure, freeDeparture, (GConnectFlags)0);
    markAnswered(client);
    connect(client, "send-message", sentMessage, NULL);
    connect(client, "pre-setup-request", beforeSetup, server);
    connect(client, "new-session", newSession, server);
}

// Gathers (with a reference each) the clients that hold no session and have not been answered
// for CGS_REQUEST_DEADLINE seconds.
static GstRTSPFilterResult findStalled(GstRTSPServer *rtsp, GstRTSPClient *client, gpointer data) {
    (void)rtsp;
    GList **stalled = data;
    gsize answered = GPOINTER_TO_SIZE(object_get_data(client, "movrec-answered"));
    gsize now = (gsize)(g_get_monotonic_time() / G_USEC_PER_SEC + 1);
    if (answered == 0 || now - answered < CGS_REQUEST_DEADLINE) return GST_RTSP_FILTER_KEEP;
    GList *sessions = gst_rtsp_client_session_filter(client, NULL, NULL);
    if (sessions != NULL) {
        g_list_free_full(sessions, g_object_unref);
        return GST_RTSP_FILTER_KEEP;
    }
    *stalled = g_list_prepend(*stalled, object_ref(client));
    return GST_RTSP_FILTER_KEEP;
}

// Every 2 seconds: sessions past their timeout end, and connections stalled mid-request close.
static gboolean cleanUpSessions(gpointer data) {
    CGStreamerServer *server = data;
    GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(server->server);
    gst_rtsp_session_pool_cleanup(pool);
    g_object_unref(pool);
    GList *stalled = NULL;
    gst_rtsp_server_client_filter(server->server, findStalled, &stalled);
    for (GList *item = stalled; item != NULL; item = item->next) gst_rtsp_client_close(item->data);
    g_list_free_full(stalled, g_object_unref);
    return G_SOURCE_CONTINUE;
}

static void setUpAuthentication(CGStreamerServer *server, const CGStreamerSettings *settings) {
    GstRTSPAuth *auth = gst_rtsp_auth_new();
    GstRTSPToken *token = token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, "user", NULL);
    gst_rtsp_auth_add_digest(auth, settings->user, settings->password, token);
    gst_mini_object_unref(GST_MINI_OBJECT_CAST(token));
    gst_rtsp_auth_set_supported_methods(auth, GST_RTSP_AUTH_DIGEST);
    gst_rtsp_server_set_auth(server->server, auth);
    g_object_unref(auth);
    server->authenticated = 1;
}

CGStreamerServer *CGStreamer_create(const CGStreamerSettings *settings, char *error, size_t errorSize) {
    CGStreamerServer *server = calloc(1, sizeof *server);
    pthread_mutex_init(&server->pathsLock, NULL);
    for (int i = 0; i < CGS_PATHS; i++) pthread_mutex_init(&server->paths[i].lock, NULL);
    server->admit = settings->admit;
    server->closed = settings->closed;
    server->context_ = settings->context;
    server->sessionTimeout = settings->sessionTimeout;
    server->context = g_main_context_new();
    server->loop = g_main_loop_new(server->context, FALSE);
    server->server = gst_rtsp_server_new();
    server->clock = object_new(gst_system_clock_get_type(), "clock-type", GST_CLOCK_TYPE_REALTIME, NULL);
    char service[16];
    snprintf(service, sizeof service, "%d", settings->port);
    gst_rtsp_server_set_address(server->server, settings->address);
    gst_rtsp_server_set_service(server->server, service);
    GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(server->server);
    gst_rtsp_session_pool_set_max_sessions(pool, settings->maxSessions);
    g_object_unref(pool);
    if (settings->user != NULL && settings->password != NULL) setUpAuthentication(server, settings);
    connect(server->server, "client-connected", clientConnected, server);
    GError *failure = NULL;
    server->listening = gst_rtsp_server_create_source(server->server, NULL, &failure);
    if (server->listening == NULL) {
        snprintf(error, errorSize, "%s", failure != NULL ? failure->message : "the socket could not be bound");
        if (failure) g_error_free(failure);
        CGStreamer_free(server);
        return NULL;
    }
    g_source_attach(server->listening, server->context);
    server->cleanup = g_timeout_source_new_seconds(2);
    g_source_set_callback(server->cleanup, cleanUpSessions, server, NULL);
    g_source_attach(server->cleanup, server->context);
    return server;
}

int CGStreamer_port(CGStreamerServer *server) { return gst_rtsp_server_get_bound_port(server->server); }

static GstRTSPFilterResult removeClient(GstRTSPServer *rtsp, GstRTSPClient *client, gpointer data) {
    (void)rtsp;
    (void)client;
    (void)data;
    return GST_RTSP_FILTER_REMOVE;
}

static GstRTSPFilterResult removeSession(GstRTSPSessionPool *pool, GstRTSPSession *session, gpointer data) {
    (void)pool;
    (void)session;
    (void)data;
    return GST_RTSP_FILTER_REMOVE;
}

// On the server's thread: every client closed and every session ended.
static gboolean closeEverything(gpointer data) {
    CGStreamerServer *server = data;
    gst_rtsp_server_client_filter(server->server, removeClient, NULL);
    GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(server->server);
    gst_rtsp_session_pool_filter(pool, removeSession, NULL);
    g_object_unref(pool);
    return G_SOURCE_REMOVE;
}

static void onServerThread(CGStreamerServer *server, GSourceFunc function) {
    GSource *idle = g_idle_source_new();
    g_source_set_callback(idle, function, server, NULL);
    g_source_attach(idle, server->context);
    g_source_unref(idle);
}

int CGStreamer_mount(CGStreamerServer *server, const char *name, const char *launch, int streams, const int *video) {
    if (streams < 1 || streams > CGS_STREAMS || strlen(name) >= sizeof server->paths[0].name) return -1;
    pthread_mutex_lock(&server->pathsLock);
    int number = 0;
    while (number < server->pathCount && strcmp(server->paths[number].name, name) != 0) number++;
    int replacing = number < server->pathCount;
    if (!replacing && server->pathCount == CGS_PATHS) {
        pthread_mutex_unlock(&server->pathsLock);
        return -1;
    }
    Path *path = &server->paths[number];
    GstElement *none[CGS_STREAMS] = {0};
    replaceSources(path, NULL, none);
    snprintf(path->name, sizeof path->name, "%s", name);
    path->streams = streams;
    for (int i = 0; i < CGS_STREAMS; i++) path->video[i] = i < streams ? video[i] : 0;
    GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
    gst_rtsp_media_factory_set_launch(factory, launch);
    gst_rtsp_media_factory_set_shared(factory, TRUE);
    gst_rtsp_media_factory_set_clock(factory, server->clock);
    if (server->authenticated) {
        factory_add_role(factory, "user", GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                         GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
    }
    path->factory = factory;
    connect(factory, "media-configure", configured, path);
    GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(server->server);
    gst_rtsp_mount_points_add_factory(mounts, name, factory);
    g_object_unref(mounts);
    if (!replacing) server->pathCount++;
    pthread_mutex_unlock(&server->pathsLock);
    // Clients of the old stream would wait for pictures that never come: they reconnect.
    if (replacing) onServerThread(server, closeEverything);
    return number;
}

int CGStreamer_push(CGStreamerServer *server, int pathNumber, int stream, const uint8_t *bytes, size_t size,
                    uint64_t presentationNanoseconds, uint64_t decodeNanoseconds, uint64_t durationNanoseconds,
                    int keyframe) {
    if (pathNumber < 0 || pathNumber >= CGS_PATHS || stream < 0 || stream >= CGS_STREAMS) return -1;
    Path *path = &server->paths[pathNumber];
    pthread_mutex_lock(&path->lock);
    GstElement *source = path->sources[stream];
    int wanted = source != NULL && (!path->waiting[stream] || keyframe);
    if (wanted) {
        path->waiting[stream] = 0;
        gst_object_ref(source);
    }
    pthread_mutex_unlock(&path->lock);
    if (!wanted) return 0;
    // Until the pipeline first plays, its base time is 0, and a buffer stamped against it would
    // lie decades ahead of the clock: its sink would wait for it for ever.
    GstClockTime base = gst_element_get_base_time(source);
    if (base == 0 || presentationNanoseconds < base) {
        gst_object_unref(source);
        return 0;
    }
    GstBuffer *buffer = gst_buffer_new_memdup(bytes, size);
    GST_BUFFER_PTS(buffer) = presentationNanoseconds - base;
    GST_BUFFER_DTS(buffer) = decodeNanoseconds >= base ? decodeNanoseconds - base : GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(buffer) = durationNanoseconds;
    if (!keyframe) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    GstFlowReturn result = gst_app_src_push_buffer(GST_APP_SRC(source), buffer);
    gst_object_unref(source);
    return result == GST_FLOW_OK ? 1 : -1;
}

int CGStreamer_isWatched(CGStreamerServer *server, int pathNumber, int stream) {
    if (pathNumber < 0 || pathNumber >= CGS_PATHS || stream < 0 || stream >= CGS_STREAMS) return 0;
    Path *path = &server->paths[pathNumber];
    pthread_mutex_lock(&path->lock);
    int watched = path->sources[stream] != NULL;
    pthread_mutex_unlock(&path->lock);
    return watched;
}

void CGStreamer_run(CGStreamerServer *server) {
    g_main_context_push_thread_default(server->context);
    g_main_loop_run(server->loop);
    g_main_context_pop_thread_default(server->context);
}

static gboolean quitLoop(gpointer data) {
    CGStreamerServer *server = data;
    closeEverything(server);
    g_main_loop_quit(server->loop);
    return G_SOURCE_REMOVE;
}

void CGStreamer_quit(CGStreamerServer *server) { onServerThread(server, quitLoop); }

void CGStreamer_free(CGStreamerServer *server) {
    if (server->listening != NULL) {
        g_source_destroy(server->listening);
        g_source_unref(server->listening);
    }
    if (server->cleanup != NULL) {
        g_source_destroy(server->cleanup);
        g_source_unref(server->cleanup);
    }
    GstElement *none[CGS_STREAMS] = {0};
    for (int i = 0; i < CGS_PATHS; i++) {
        replaceSources(&server->paths[i], NULL, none);
        pthread_mutex_destroy(&server->paths[i].lock);
    }
    pthread_mutex_destroy(&server->pathsLock);
    g_object_unref(server->server);
    gst_object_unref(server->clock);
    g_main_loop_unref(server->loop);
    g_main_context_unref(server->context);
    free(server);
}

unsigned long CGStreamer_refusedDestinations(CGStreamerServer *server) {
    return __atomic_load_n(&server->refusedDestinations, __ATOMIC_RELAXED);
}
