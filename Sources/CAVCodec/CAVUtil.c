// libavutil's functions this package calls, forwarded to the library opened on first use.
#include "CLinux.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CAVCodec.h"

#define CAVUTIL_FUNCTIONS(F, V, H) \
    F(AVFrame *, av_frame_alloc, (void), ()) \
    V(av_frame_free, (AVFrame **frame), (frame)) \
    F(int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align)) \
    F(int, av_frame_make_writable, (AVFrame *frame), (frame)) \
    F(int, av_channel_layout_from_mask, (AVChannelLayout *layout, uint64_t mask), (layout, mask)) \
    F(int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src)) \
    F(int, av_strerror, (int code, char *buffer, size_t size), (code, buffer, size)) \
    V(av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback)) \
    V(av_log_set_level, (int level), (level))

#define CAVUTIL_SONAME "libavutil.so." CLINUX_STRING(LIBAVUTIL_VERSION_MAJOR)
CLINUX_LAZY_LIBRARY(CAVUtil_load, CAVUTIL_SONAME, CAVUTIL_FUNCTIONS)

// Set once, before FFmpeg is told about cavcodec_log, and never changed.
static void (*cavcodec_log_callback)(int, const char *);

// FFmpeg calls this from whichever thread logs, with a printf format; each call becomes one
// line (a message FFmpeg sends in parts arrives as several).
static void cavcodec_log(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    level &= 0xff;  // the bits above carry FFmpeg's colour hints
    if (level > AV_LOG_INFO) return;
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && line[length - 1] == '\n') line[--length] = 0;
    if (length > 0) cavcodec_log_callback(level, line);
}

void CAVCodec_route_log(void (*callback)(int level, const char *message)) {
    cavcodec_log_callback = callback;
    av_log_set_level(AV_LOG_INFO);
    av_log_set_callback(cavcodec_log);
}
