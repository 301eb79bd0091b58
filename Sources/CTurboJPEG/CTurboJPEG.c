// libturbojpeg's functions this package calls, forwarded to the library opened on first use: a
// program that never takes a photo does not load it at start.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CTurboJPEG.h"

#define CTURBOJPEG_FUNCTIONS(F, V, H) \
    F(tjhandle, tjInitCompress, (void), ()) \
    F(int, tjDestroy, (tjhandle handle), (handle)) \
    V(tjFree, (unsigned char *buffer), (buffer)) \
    F(char *, tjGetErrorStr2, (tjhandle handle), (handle)) \
    F(int, tjCompressFromYUVPlanes, \
      (tjhandle handle, const unsigned char **planes, int width, const int *strides, int height, int subsampling, \
       unsigned char **jpeg, unsigned long *jpegSize, int quality, int flags), \
      (handle, planes, width, strides, height, subsampling, jpeg, jpegSize, quality, flags)) \
    F(tjhandle, tjInitDecompress, (void), ()) \
    F(int, tjGetErrorCode, (tjhandle handle), (handle)) \
    F(int, tjDecompressHeader3, \
      (tjhandle handle, const unsigned char *jpeg, unsigned long jpegSize, int *width, int *height, int *subsampling, \
       int *colorspace), \
      (handle, jpeg, jpegSize, width, height, subsampling, colorspace)) \
    F(int, tjDecompressToYUVPlanes, \
      (tjhandle handle, const unsigned char *jpeg, unsigned long jpegSize, unsigned char **planes, int width, \
       int *strides, int height, int flags), \
      (handle, jpeg, jpegSize, planes, width, strides, height, flags)) \
    F(int, tjDecompress2, \
      (tjhandle handle, const unsigned char *jpeg, unsigned long jpegSize, unsigned char *destination, int width, \
       int pitch, int height, int pixelFormat, int flags), \
      (handle, jpeg, jpegSize, destination, width, pitch, height, pixelFormat, flags)) \
    F(int, tjPlaneWidth, (int component, int width, int subsampling), (component, width, subsampling)) \
    F(int, tjPlaneHeight, (int component, int height, int subsampling), (component, height, subsampling))

CLINUX_LAZY_LIBRARY(CTurboJPEG_load, "libturbojpeg.so.0", CTURBOJPEG_FUNCTIONS)
