// The seam between Swift and FFmpeg's libavcodec (for its native AAC encoder) and libavutil.
// Both libraries are opened when first needed (CAVCodec.c, CAVUtil.c), not when the program
// starts.
#ifndef CAVCODEC_SHIM_H
#define CAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>

// Opens libavutil.so.<major> and libavcodec.so.<major> if they are not open yet. Returns NULL
// when they are, else what failed.
const char *CAVCodec_load(void);

// Sends libavcodec's and libavutil's messages at `level` or more important to `callback` as
// formatted lines without the trailing newline, instead of FFmpeg's default of writing them to
// standard error. Call after CAVCodec_load succeeded.
void CAVCodec_route_log(int level, void (*callback)(int level, const char *message));

// Macros Swift cannot import.
static inline int CAVCodec_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int CAVCodec_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int CAVCodec_FLAG_GLOBAL_HEADER(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }

// The library versions this module was compiled against.
static inline int CAVCodec_codec_major(void) { return LIBAVCODEC_VERSION_MAJOR; }
static inline int CAVCodec_util_major(void) { return LIBAVUTIL_VERSION_MAJOR; }
#endif
