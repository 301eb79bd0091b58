// The seam between Swift and libx264: what Swift cannot call directly.
#ifndef CX264_SHIM_H
#define CX264_SHIM_H
#include <stdint.h>  // x264.h uses the fixed-width types without including it
#include <x264.h>

// x264_encoder_open is a macro that names a versioned symbol (x264_encoder_open_164).
static inline x264_t *CX264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }

// The library build this module was compiled against.
static inline int CX264_build(void) { return X264_BUILD; }
#endif
