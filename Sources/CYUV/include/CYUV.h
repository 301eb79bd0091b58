// The seam between Swift and libyuv, Google's SIMD pixel-format library: its C API, imported as
// declared. The library is opened when first needed (CYUV.c), not when the program starts.
#ifndef CYUV_SHIM_H
#define CYUV_SHIM_H
#include <libyuv/convert.h>
#include <libyuv/convert_from.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>
#include <libyuv/rotate.h>

// Opens libyuv.so.0 if it is not open yet. Returns NULL when it is, else what failed.
const char *CYUV_load(void);
#endif
