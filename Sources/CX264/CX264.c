// libx264's functions, forwarded to the library opened on first use: a program that never
// encodes (`movrec mux`, `inspect`, `repair`) does not load it at start.
#include "CLinux.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CX264.h"

#define CX264_FUNCTIONS(F, V, H) \
    V(x264_picture_init, (x264_picture_t *picture), (picture)) \
    F(int, x264_param_default_preset, (x264_param_t *param, const char *preset, const char *tune), (param, preset, tune)) \
    F(int, x264_param_apply_profile, (x264_param_t *param, const char *profile), (param, profile)) \
    F(int, x264_param_parse, (x264_param_t *param, const char *name, const char *value), (param, name, value)) \
    F(x264_t *, x264_encoder_open, (x264_param_t *param), (param)) \
    F(int, x264_encoder_headers, (x264_t *encoder, x264_nal_t **nals, int *count), (encoder, nals, count)) \
    F(int, x264_encoder_encode, (x264_t *encoder, x264_nal_t **nals, int *count, x264_picture_t *in, x264_picture_t *out), \
      (encoder, nals, count, in, out)) \
    F(int, x264_encoder_delayed_frames, (x264_t *encoder), (encoder)) \
    V(x264_encoder_close, (x264_t *encoder), (encoder))

CLINUX_LAZY_LIBRARY(CX264_load, "libx264.so." CLINUX_STRING(X264_BUILD), CX264_FUNCTIONS)

// x264 calls this from its own threads with a printf format; the callback gets one formatted line.
static void cx264_log(void *callback, int level, const char *format, va_list arguments) {
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && line[length - 1] == '\n') line[--length] = 0;
    ((void (*)(int, const char *))callback)(level, line);
}

void CX264_route_log(x264_param_t *param, void (*callback)(int level, const char *message)) {
    param->pf_log = cx264_log;
    param->p_log_private = (void *)callback;
}
