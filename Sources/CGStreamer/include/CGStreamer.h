// The seam between Swift and GStreamer's RTSP server (gst-rtsp-server 1.22): a server on a
// GLib main loop of its own, paths that serve media pushed through appsrc, Digest
// authentication, and hooks for who may connect. No GStreamer type reaches Swift. The library
// is opened when first needed (CGStreamer.c), not when the program starts.
#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H
#include <stdint.h>
#include <stddef.h>

// Opens libgstrtspserver-1.0.so.0 (GStreamer, GLib and libgstapp come with it) and initialises
// GStreamer. Returns NULL when it is open, else what failed.
const char *CGStreamer_load(void);

// Nonzero when GStreamer can make the element `name` (its plugin is installed). Call after
// CGStreamer_load succeeded.
int CGStreamer_hasElement(const char *name);

typedef struct CGStreamerServer CGStreamerServer;

// Asked on the server's thread when a client connects from `address`: nonzero lets it in.
typedef int (*CGStreamerAdmit)(void *context, const char *address);
// Told on the server's thread when a client that was let in has gone.
typedef void (*CGStreamerClosed)(void *context, const char *address);

typedef struct {
    const char *address;          // "127.0.0.1", "::1", "0.0.0.0"
    int port;                     // 0 for any free one
    const char *user;             // with `password`: Digest authentication for every client; NULL for none
    const char *password;
    unsigned int maxSessions;     // RTSP sessions in all
    unsigned int sessionTimeout;  // seconds a session lives without a keep-alive or RTCP
    CGStreamerAdmit admit;
    CGStreamerClosed closed;
    void *context;
} CGStreamerSettings;

// Creates a server and binds its socket; nothing is served until CGStreamer_run. Returns NULL
// with the reason in `error` when it cannot bind.
CGStreamerServer *CGStreamer_create(const CGStreamerSettings *settings, char *error, size_t errorSize);

// The port the server listens on.
int CGStreamer_port(CGStreamerServer *server);

// Serves `path` ("/main") with the gst-launch description `launch`, whose appsrc elements are
// named src0 … src{streams-1}; `video` marks which of them carry video (a client that joins
// gets video from its next keyframe on). Replaces what the path served: its clients are
// closed. Returns the path's number (for CGStreamer_push), or -1 when all 8 are taken.
int CGStreamer_mount(CGStreamerServer *server, const char *path, const char *launch, int streams, const int *video);

// Pushes one access unit to stream `stream` of path `pathNumber`, stamped with capture times in
// nanoseconds since 1970 (the media's clock is the wall clock, so RTCP sender reports carry
// them). Never blocks. Returns 1 when it was taken, 0 when no client watches the path (or the
// stream waits for a keyframe), -1 when it was dropped.
int CGStreamer_push(CGStreamerServer *server, int pathNumber, int stream, const uint8_t *bytes, size_t size,
                    uint64_t presentationNanoseconds, uint64_t decodeNanoseconds, uint64_t durationNanoseconds,
                    int keyframe);

// Nonzero when a client watches stream `stream` of path `pathNumber` (its media exists).
int CGStreamer_isWatched(CGStreamerServer *server, int pathNumber, int stream);

// Runs the server's main loop on the calling thread until CGStreamer_quit.
void CGStreamer_run(CGStreamerServer *server);

// Closes every client and makes CGStreamer_run return; safe from any thread.
void CGStreamer_quit(CGStreamerServer *server);

// Frees the server; call after CGStreamer_run has returned (or when it never ran).
void CGStreamer_free(CGStreamerServer *server);

// Counters: SETUP requests refused for naming another destination.
unsigned long CGStreamer_refusedDestinations(CGStreamerServer *server);
#endif
