// The seam between Swift and libx264: what Swift cannot call directly. The library is opened
// when first needed (CX264.c), not when the program starts.
#ifndef CX264_SHIM_H
#define CX264_SHIM_H
#include <stdint.h>  // x264.h uses the fixed-width types without including it
#include <x264.h>

// x264_encoder_open is a macro that names a versioned symbol (x264_encoder_open_164).
static inline x264_t *CX264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }

// Opens libx264.so.<X264_BUILD> if it is not open yet. Returns NULL when it is, else what failed.
const char *CX264_load(void);

// Whether `name` is one of x264's names of kind 0 (presets), 1 (tunes) or 2 (profiles), compared
// as x264 compares them (ignoring case). The encoder checks names first because x264 prints its
// complaint about an unknown one straight to standard error.
#include <strings.h>
static inline int CX264_is_known_name(int kind, const char *name) {
    const char *const *names = kind == 0 ? x264_preset_names : kind == 1 ? x264_tune_names : x264_profile_names;
    for (int i = 0; names[i] != 0; i++) {
        if (strcasecmp(names[i], name) == 0) return 1;
    }
    return 0;
}

// Sends the messages of encoders opened with `param` to `callback` as formatted lines (without
// the trailing newline), instead of x264's default of writing them to standard error.
void CX264_route_log(x264_param_t *param, void (*callback)(int level, const char *message));

// The library build this module was compiled against.
static inline int CX264_build(void) { return X264_BUILD; }
#endif
