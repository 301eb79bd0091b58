// The seam between Swift and libheif, which writes HEIF photos (HEVC through x265): its C API,
// imported as declared. The library is opened when first needed (CHeif.c), not when the
// program starts.
#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
#include <libheif/heif.h>

// Opens libheif.so.1 if it is not open yet. Returns NULL when it is, else what failed.
const char *CHeif_load(void);

// Writes the context's file into a buffer the caller frees with free(): libheif's writer takes
// a C callback.
struct heif_error CHeif_writeToMemory(struct heif_context *context, uint8_t **data, size_t *size);
#endif
