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

// The library build this module was compiled against.
static inline int CX264_build(void) { return X264_BUILD; }
#endif
