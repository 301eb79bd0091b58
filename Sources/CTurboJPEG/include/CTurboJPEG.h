// The seam between Swift and libturbojpeg: tjCompressFromYUVPlanes and tjDecompressToYUVPlanes
// take their planes as arrays of pointers and strides, which Swift would have to rebind memory to
// build; these shims take the three planes as `void *`. The library is opened when first needed
// (CTurboJPEG.c), not when the program starts.
#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
#include <turbojpeg.h>

// Opens libturbojpeg.so.0 if it is not open yet. Returns NULL when it is, else what failed.
const char *CTurboJPEG_load(void);

// Compresses a planar Y, U, V picture with 4:2:0 chroma into a JPEG buffer that libturbojpeg
// allocates (free it with tjFree), with TJFLAG_* `flags`. Returns 0, or -1 with the reason in
// tjGetErrorStr2(handle).
static inline int CTurboJPEG_compressI420(tjhandle handle,
                                          const void *y, int yStride,
                                          const void *u, int uStride,
                                          const void *v, int vStride,
                                          int width, int height, int quality, int flags,
                                          unsigned char **jpeg, unsigned long *jpegSize) {
    const unsigned char *planes[3] = { (const unsigned char *)y, (const unsigned char *)u, (const unsigned char *)v };
    int strides[3] = { yStride, uStride, vStride };
    return tjCompressFromYUVPlanes(handle, planes, width, strides, height, TJSAMP_420, jpeg, jpegSize, quality, flags);
}

// Decompresses a JPEG into three planes at the given addresses and strides, in the JPEG's own
// chroma sampling (tjPlaneWidth/tjPlaneHeight give each plane's size), with the fast integer
// IDCT (libyuv's MJPEG decoder uses it too; 55-63 dB from the accurate one). Returns 0, or -1
// with the reason in tjGetErrorStr2(handle) and its severity in tjGetErrorCode(handle).
static inline int CTurboJPEG_decompressToPlanes(tjhandle handle, const void *jpeg, unsigned long jpegSize,
                                                void *y, int yStride, void *u, int uStride, void *v, int vStride,
                                                int width, int height) {
    unsigned char *planes[3] = { (unsigned char *)y, (unsigned char *)u, (unsigned char *)v };
    int strides[3] = { yStride, uStride, vStride };
    return tjDecompressToYUVPlanes(handle, (const unsigned char *)jpeg, jpegSize, planes, width, strides, height,
                                   TJFLAG_FASTDCT);
}
#endif
