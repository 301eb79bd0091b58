// The seam between Swift and libturbojpeg: tjCompressFromYUVPlanes takes its planes as
// `const unsigned char **` and its strides as an array, which Swift would have to rebind memory
// to build; this shim takes the three planes as `void *` and fixes 4:2:0 sampling. The library is
// opened when first needed (CTurboJPEG.c), not when the program starts.
#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
#include <turbojpeg.h>

// Opens libturbojpeg.so.0 if it is not open yet. Returns NULL when it is, else what failed.
const char *CTurboJPEG_load(void);

// Compresses a planar Y, U, V picture with 4:2:0 chroma into a JPEG buffer that libturbojpeg
// allocates (free it with tjFree). Returns 0, or -1 with the reason in tjGetErrorStr2(handle).
static inline int CTurboJPEG_compressI420(tjhandle handle,
                                          const void *y, int yStride,
                                          const void *u, int uStride,
                                          const void *v, int vStride,
                                          int width, int height, int quality,
                                          unsigned char **jpeg, unsigned long *jpegSize) {
    const unsigned char *planes[3] = { (const unsigned char *)y, (const unsigned char *)u, (const unsigned char *)v };
    int strides[3] = { yStride, uStride, vStride };
    return tjCompressFromYUVPlanes(handle, planes, width, strides, height, TJSAMP_420, jpeg, jpegSize, quality, 0);
}
#endif
