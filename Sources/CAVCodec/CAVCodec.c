// libavcodec's functions this package calls, forwarded to the library opened on first use: a
// program that never encodes AAC does not load FFmpeg at start.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CAVCodec.h"

#define CAVCODEC_FUNCTIONS(F, V, H) \
    F(const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name)) \
    F(AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec)) \
    F(int, avcodec_open2, (AVCodecContext *context, const AVCodec *codec, AVDictionary **options), (context, codec, options)) \
    V(avcodec_free_context, (AVCodecContext **context), (context)) \
    F(int, avcodec_send_frame, (AVCodecContext *context, const AVFrame *frame), (context, frame)) \
    F(int, avcodec_receive_packet, (AVCodecContext *context, AVPacket *packet), (context, packet)) \
    F(AVPacket *, av_packet_alloc, (void), ()) \
    V(av_packet_free, (AVPacket **packet), (packet)) \
    V(av_packet_unref, (AVPacket *packet), (packet))

#define CAVCODEC_SONAME "libavcodec.so." CLINUX_STRING(LIBAVCODEC_VERSION_MAJOR)
CLINUX_LAZY_LIBRARY(CAVCodec_loadCodec, CAVCODEC_SONAME, CAVCODEC_FUNCTIONS)

const char *CAVUtil_load(void);

const char *CAVCodec_load(void) {
    const char *failure = CAVUtil_load();
    return failure != 0 ? failure : CAVCodec_loadCodec();
}
