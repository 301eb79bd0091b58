// libsamplerate's functions this package calls, forwarded to the library opened on first use:
// only a recording from a microphone with a clock of its own resamples.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CSampleRate.h"

#define CSAMPLERATE_FUNCTIONS(F, V, H) \
    F(SRC_STATE *, src_new, (int converter, int channels, int *error), (converter, channels, error)) \
    F(SRC_STATE *, src_delete, (SRC_STATE *state), (state)) \
    F(int, src_process, (SRC_STATE *state, SRC_DATA *data), (state, data)) \
    F(const char *, src_strerror, (int error), (error)) \
    V(src_short_to_float_array, (const short *in, float *out, int length), (in, out, length)) \
    V(src_float_to_short_array, (const float *in, short *out, int length), (in, out, length))

CLINUX_LAZY_LIBRARY(CSampleRate_load, "libsamplerate.so.0", CSAMPLERATE_FUNCTIONS)
