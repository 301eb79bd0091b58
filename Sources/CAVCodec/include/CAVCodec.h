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

// Sends libavcodec's and libavutil's messages of AV_LOG_INFO or more important to `callback` as
// formatted lines without the trailing newline, instead of FFmpeg's default of writing them to
// standard error. FFmpeg's log callback is one for the whole process: call this once (the Swift
// side does, from a lazily initialised static), after CAVCodec_load succeeded.
void CAVCodec_route_log(void (*callback)(int level, const char *message));

// The channel mask of the layout FFmpeg's AAC encoder describes with a standard channel
// configuration for `channels` channels (mono, stereo, 3.0, 4.0, 5.0, 5.1, 7.1), or 0 when
// there is none (7 channels, or more than 8): other layouts would need a program config element.
static inline uint64_t CAVCodec_aac_layout_mask(int channels) {
    switch (channels) {
    case 1: return AV_CH_LAYOUT_MONO;
    case 2: return AV_CH_LAYOUT_STEREO;
    case 3: return AV_CH_LAYOUT_SURROUND;
    case 4: return AV_CH_LAYOUT_4POINT0;
    case 5: return AV_CH_LAYOUT_5POINT0_BACK;
    case 6: return AV_CH_LAYOUT_5POINT1_BACK;
    case 8: return AV_CH_LAYOUT_7POINT1;
    default: return 0;
    }
}

// Macros Swift cannot import.
static inline int CAVCodec_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int CAVCodec_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int CAVCodec_FLAG_GLOBAL_HEADER(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }

// The library versions this module was compiled against.
static inline int CAVCodec_codec_major(void) { return LIBAVCODEC_VERSION_MAJOR; }
static inline int CAVCodec_util_major(void) { return LIBAVUTIL_VERSION_MAJOR; }
#endif
