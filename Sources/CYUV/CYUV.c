// libyuv's functions this package calls, forwarded to the library opened on first use: a
// program that never converts a camera's pictures does not load it at start.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CYUV.h"

// Packed or interleaved source, I420 destination: the signature most converters share.
#define CYUV_PACKED_TO_I420(F, name) \
    F(int, name, \
      (const uint8_t *src, int srcStride, uint8_t *y, int yStride, uint8_t *u, int uStride, uint8_t *v, int vStride, \
       int width, int height), \
      (src, srcStride, y, yStride, u, uStride, v, vStride, width, height))

#define CYUV_FUNCTIONS(F, V, H) \
    CYUV_PACKED_TO_I420(F, YUY2ToI420) \
    CYUV_PACKED_TO_I420(F, UYVYToI420) \
    CYUV_PACKED_TO_I420(F, RGB24ToI420) \
    CYUV_PACKED_TO_I420(F, RAWToI420) \
    CYUV_PACKED_TO_I420(F, RAWToJ420) \
    F(int, NV21ToI420, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcVU, int srcVUStride, uint8_t *y, int yStride, \
       uint8_t *u, int uStride, uint8_t *v, int vStride, int width, int height), \
      (srcY, srcYStride, srcVU, srcVUStride, y, yStride, u, uStride, v, vStride, width, height)) \
    F(int, NV12ToI420, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcUV, int srcUVStride, uint8_t *y, int yStride, \
       uint8_t *u, int uStride, uint8_t *v, int vStride, int width, int height), \
      (srcY, srcYStride, srcUV, srcUVStride, y, yStride, u, uStride, v, vStride, width, height)) \
    F(int, I420ToYUY2, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcU, int srcUStride, const uint8_t *srcV, int srcVStride, \
       uint8_t *dst, int dstStride, int width, int height), \
      (srcY, srcYStride, srcU, srcUStride, srcV, srcVStride, dst, dstStride, width, height)) \
    F(int, I420ToUYVY, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcU, int srcUStride, const uint8_t *srcV, int srcVStride, \
       uint8_t *dst, int dstStride, int width, int height), \
      (srcY, srcYStride, srcU, srcUStride, srcV, srcVStride, dst, dstStride, width, height)) \
    F(int, I420Scale, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcU, int srcUStride, const uint8_t *srcV, int srcVStride, \
       int srcWidth, int srcHeight, uint8_t *y, int yStride, uint8_t *u, int uStride, uint8_t *v, int vStride, \
       int width, int height, enum FilterMode filtering), \
      (srcY, srcYStride, srcU, srcUStride, srcV, srcVStride, srcWidth, srcHeight, y, yStride, u, uStride, v, vStride, \
       width, height, filtering)) \
    F(int, I420Rotate, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcU, int srcUStride, const uint8_t *srcV, int srcVStride, \
       uint8_t *y, int yStride, uint8_t *u, int uStride, uint8_t *v, int vStride, int width, int height, \
       enum RotationMode mode), \
      (srcY, srcYStride, srcU, srcUStride, srcV, srcVStride, y, yStride, u, uStride, v, vStride, width, height, mode)) \
    F(int, I420Mirror, \
      (const uint8_t *srcY, int srcYStride, const uint8_t *srcU, int srcUStride, const uint8_t *srcV, int srcVStride, \
       uint8_t *y, int yStride, uint8_t *u, int uStride, uint8_t *v, int vStride, int width, int height), \
      (srcY, srcYStride, srcU, srcUStride, srcV, srcVStride, y, yStride, u, uStride, v, vStride, width, height)) \
    V(ScalePlane, \
      (const uint8_t *src, int srcStride, int srcWidth, int srcHeight, uint8_t *dst, int dstStride, int dstWidth, \
       int dstHeight, enum FilterMode filtering), \
      (src, srcStride, srcWidth, srcHeight, dst, dstStride, dstWidth, dstHeight, filtering)) \
    V(SetPlane, (uint8_t *dst, int stride, int width, int height, uint32_t value), (dst, stride, width, height, value)) \
    V(CopyPlane, (const uint8_t *src, int srcStride, uint8_t *dst, int dstStride, int width, int height), \
      (src, srcStride, dst, dstStride, width, height))

CLINUX_LAZY_LIBRARY(CYUV_load, "libyuv.so.0", CYUV_FUNCTIONS)
