// The seam between Swift and libv4l2/libv4lconvert: v4l2_ioctl and v4l2_open are variadic and
// the VIDIOC_* request codes are macros built with _IOWR, which Swift cannot import. Both libraries
// are opened when first needed (V4L2.c, V4LConvert.c), not when the program starts.
#ifndef CV4L2_SHIM_H
#define CV4L2_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <libv4lconvert.h>

// Open libv4l2.so.0 and libv4lconvert.so.0 if they are not open yet. Return NULL when they are,
// else what failed.
const char *CV4L2_load(void);
const char *CV4L2_loadConvert(void);

// A libv4lconvert converter for recorded buffers, with no device behind it (v4lconvert_create
// needs one to answer VIDIOC_QUERYCAP). NULL when it cannot be made.
struct v4lconvert_data *CV4L2_createOfflineConverter(void);

static inline int CV4L2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int CV4L2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

static inline unsigned long CV4L2_VIDIOC_QUERYCAP(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long CV4L2_VIDIOC_ENUM_FMT(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
static inline unsigned long CV4L2_VIDIOC_G_FMT(void) { return VIDIOC_G_FMT; }
static inline unsigned long CV4L2_VIDIOC_S_FMT(void) { return VIDIOC_S_FMT; }
static inline unsigned long CV4L2_VIDIOC_G_PARM(void) { return VIDIOC_G_PARM; }
static inline unsigned long CV4L2_VIDIOC_S_PARM(void) { return VIDIOC_S_PARM; }
static inline unsigned long CV4L2_VIDIOC_REQBUFS(void) { return VIDIOC_REQBUFS; }
static inline unsigned long CV4L2_VIDIOC_QUERYBUF(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long CV4L2_VIDIOC_QBUF(void) { return VIDIOC_QBUF; }
static inline unsigned long CV4L2_VIDIOC_DQBUF(void) { return VIDIOC_DQBUF; }
static inline unsigned long CV4L2_VIDIOC_STREAMON(void) { return VIDIOC_STREAMON; }
static inline unsigned long CV4L2_VIDIOC_STREAMOFF(void) { return VIDIOC_STREAMOFF; }
static inline unsigned long CV4L2_VIDIOC_G_CTRL(void) { return VIDIOC_G_CTRL; }
static inline unsigned long CV4L2_VIDIOC_S_CTRL(void) { return VIDIOC_S_CTRL; }
static inline unsigned long CV4L2_VIDIOC_QUERYCTRL(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long CV4L2_VIDIOC_G_EXT_CTRLS(void) { return VIDIOC_G_EXT_CTRLS; }
static inline unsigned long CV4L2_VIDIOC_S_EXT_CTRLS(void) { return VIDIOC_S_EXT_CTRLS; }
static inline unsigned long CV4L2_VIDIOC_QUERY_EXT_CTRL(void) { return VIDIOC_QUERY_EXT_CTRL; }

static inline unsigned long CV4L2_VIDIOC_QUERYMENU(void) { return VIDIOC_QUERYMENU; }
static inline unsigned long CV4L2_VIDIOC_TRY_EXT_CTRLS(void) { return VIDIOC_TRY_EXT_CTRLS; }
static inline unsigned long CV4L2_VIDIOC_SUBSCRIBE_EVENT(void) { return VIDIOC_SUBSCRIBE_EVENT; }
static inline unsigned long CV4L2_VIDIOC_DQEVENT(void) { return VIDIOC_DQEVENT; }

// Reads (request VIDIOC_G_EXT_CTRLS) or tries or sets (VIDIOC_TRY_EXT_CTRLS, VIDIOC_S_EXT_CTRLS)
// `count` controls' current values in one call, so a driver applies a set atomically where it
// can. `is64` says which controls are 64-bit (V4L2 keeps the others in a 32-bit field of its
// packed struct, which Swift cannot lay out). Returns 0, or the errno with the failing control's
// index in *errorIndex (count when the driver names none).
static inline int CV4L2_extControls(int fd, unsigned long request, uint32_t count, const uint32_t *ids,
                                    const uint8_t *is64, int64_t *values, uint32_t *errorIndex) {
    struct v4l2_ext_control controls[64];
    if (count == 0 || count > 64) return EINVAL;
    memset(controls, 0, sizeof controls);
    for (uint32_t i = 0; i < count; i++) {
        controls[i].id = ids[i];
        if (is64[i]) controls[i].value64 = values[i]; else controls[i].value = (int32_t)values[i];
    }
    struct v4l2_ext_controls all;
    memset(&all, 0, sizeof all);
    all.which = V4L2_CTRL_WHICH_CUR_VAL;
    all.count = count;
    all.controls = controls;
    int result;
    do { result = v4l2_ioctl(fd, request, &all); } while (result < 0 && errno == EINTR);
    if (result < 0) {
        *errorIndex = all.error_idx;
        return errno;
    }
    for (uint32_t i = 0; i < count; i++) values[i] = is64[i] ? controls[i].value64 : controls[i].value;
    return 0;
}

// Subscribes to a control's change events (V4L2_EVENT_CTRL), changes made through this file
// descriptor included. Returns 0 or the errno.
static inline int CV4L2_subscribeControl(int fd, uint32_t id) {
    struct v4l2_event_subscription subscription;
    memset(&subscription, 0, sizeof subscription);
    subscription.type = V4L2_EVENT_CTRL;
    subscription.id = id;
    subscription.flags = V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK;
    return v4l2_ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &subscription) == 0 ? 0 : errno;
}

// Takes one pending control event: its control, new value (64-bit controls in full) and
// V4L2_EVENT_CTRL_CH_* bits. Returns 0, or the errno (ENOENT: none pending).
static inline int CV4L2_dequeueControlEvent(int fd, uint32_t *id, int64_t *value, uint32_t *changes) {
    struct v4l2_event event;
    memset(&event, 0, sizeof event);
    if (v4l2_ioctl(fd, VIDIOC_DQEVENT, &event) != 0) return errno;
    if (event.type != V4L2_EVENT_CTRL) { *id = 0; return 0; }
    *id = event.id;
    *value = event.u.ctrl.type == V4L2_CTRL_TYPE_INTEGER64 ? event.u.ctrl.value64 : event.u.ctrl.value;
    *changes = event.u.ctrl.changes;
    return 0;
}

// ---- Memory-to-memory codecs (stateful encoders and decoders) ----
// A codec's OUTPUT queue takes what is to be coded, its CAPTURE queue gives what was coded, in
// the single-planar or the multi-planar API (one plane here: every format these helpers are used
// with keeps its planes in one buffer). Each returns 0 or the errno.

static inline unsigned long CV4L2_VIDIOC_ENCODER_CMD(void) { return VIDIOC_ENCODER_CMD; }
static inline unsigned long CV4L2_VIDIOC_DECODER_CMD(void) { return VIDIOC_DECODER_CMD; }

// The layout a queue's format gives its buffers, as the driver set or reports it.
struct CV4L2_QueueFormat {
    uint32_t pixelFormat, width, height, bytesPerLine, sizeImage;
};

static inline void CV4L2_fillFormat(struct v4l2_format *format, uint32_t type, int multiplanar,
                                    const struct CV4L2_QueueFormat *wanted) {
    memset(format, 0, sizeof *format);
    format->type = type;
    if (multiplanar) {
        format->fmt.pix_mp.pixelformat = wanted->pixelFormat;
        format->fmt.pix_mp.width = wanted->width;
        format->fmt.pix_mp.height = wanted->height;
        format->fmt.pix_mp.field = V4L2_FIELD_NONE;
        format->fmt.pix_mp.num_planes = 1;
        format->fmt.pix_mp.plane_fmt[0].sizeimage = wanted->sizeImage;
    } else {
        format->fmt.pix.pixelformat = wanted->pixelFormat;
        format->fmt.pix.width = wanted->width;
        format->fmt.pix.height = wanted->height;
        format->fmt.pix.field = V4L2_FIELD_NONE;
        format->fmt.pix.sizeimage = wanted->sizeImage;
    }
}

static inline void CV4L2_readFormat(const struct v4l2_format *format, int multiplanar, struct CV4L2_QueueFormat *out) {
    if (multiplanar) {
        out->pixelFormat = format->fmt.pix_mp.pixelformat;
        out->width = format->fmt.pix_mp.width;
        out->height = format->fmt.pix_mp.height;
        out->bytesPerLine = format->fmt.pix_mp.plane_fmt[0].bytesperline;
        out->sizeImage = format->fmt.pix_mp.plane_fmt[0].sizeimage;
    } else {
        out->pixelFormat = format->fmt.pix.pixelformat;
        out->width = format->fmt.pix.width;
        out->height = format->fmt.pix.height;
        out->bytesPerLine = format->fmt.pix.bytesperline;
        out->sizeImage = format->fmt.pix.sizeimage;
    }
}

// VIDIOC_S_FMT on a queue; *format is what was asked and becomes what the driver set.
static inline int CV4L2_setQueueFormat(int fd, uint32_t type, int multiplanar, struct CV4L2_QueueFormat *format) {
    struct v4l2_format f;
    CV4L2_fillFormat(&f, type, multiplanar, format);
    if (v4l2_ioctl(fd, VIDIOC_S_FMT, &f) != 0) return errno;
    CV4L2_readFormat(&f, multiplanar, format);
    return 0;
}

// VIDIOC_G_FMT on a queue.
static inline int CV4L2_getQueueFormat(int fd, uint32_t type, int multiplanar, struct CV4L2_QueueFormat *format) {
    struct v4l2_format f;
    memset(&f, 0, sizeof f);
    f.type = type;
    if (v4l2_ioctl(fd, VIDIOC_G_FMT, &f) != 0) return errno;
    CV4L2_readFormat(&f, multiplanar, format);
    return 0;
}

// The pixel format at `index` of a queue's list (VIDIOC_ENUM_FMT), with its flags.
static inline int CV4L2_enumerateFormat(int fd, uint32_t type, uint32_t index, uint32_t *pixelFormat, uint32_t *flags) {
    struct v4l2_fmtdesc description;
    memset(&description, 0, sizeof description);
    description.type = type;
    description.index = index;
    if (v4l2_ioctl(fd, VIDIOC_ENUM_FMT, &description) != 0) return errno;
    *pixelFormat = description.pixelformat;
    *flags = description.flags;
    return 0;
}

// VIDIOC_REQBUFS of `memory` buffers; *count is what was asked and becomes what was granted.
static inline int CV4L2_requestBuffersOf(int fd, uint32_t type, uint32_t memory, uint32_t *count) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.type = type;
    request.memory = memory;
    request.count = *count;
    if (v4l2_ioctl(fd, VIDIOC_REQBUFS, &request) != 0) return errno;
    *count = request.count;
    return 0;
}

// VIDIOC_REQBUFS with memory-mapped buffers.
static inline int CV4L2_requestBuffers(int fd, uint32_t type, uint32_t *count) {
    return CV4L2_requestBuffersOf(fd, type, V4L2_MEMORY_MMAP, count);
}

static inline void CV4L2_fillBuffer(struct v4l2_buffer *buffer, struct v4l2_plane *plane, uint32_t type,
                                    int multiplanar, uint32_t index) {
    memset(buffer, 0, sizeof *buffer);
    memset(plane, 0, sizeof *plane);
    buffer->type = type;
    buffer->memory = V4L2_MEMORY_MMAP;
    buffer->index = index;
    if (multiplanar) {
        buffer->m.planes = plane;
        buffer->length = 1;
    }
}

// A buffer's length and the offset to give mmap (VIDIOC_QUERYBUF).
static inline int CV4L2_queryBuffer(int fd, uint32_t type, int multiplanar, uint32_t index, uint32_t *length, uint32_t *offset) {
    struct v4l2_buffer buffer;
    struct v4l2_plane plane;
    CV4L2_fillBuffer(&buffer, &plane, type, multiplanar, index);
    if (v4l2_ioctl(fd, VIDIOC_QUERYBUF, &buffer) != 0) return errno;
    *length = multiplanar ? plane.length : buffer.length;
    *offset = multiplanar ? plane.m.mem_offset : buffer.m.offset;
    return 0;
}

// Queues buffer `index` holding `bytesUsed` bytes (0 for a CAPTURE buffer) stamped `seconds`
// and `microseconds` (copied by a codec to what it makes from it).
static inline int CV4L2_queueBuffer(int fd, uint32_t type, int multiplanar, uint32_t index, uint32_t bytesUsed,
                                    int64_t seconds, int64_t microseconds) {
    struct v4l2_buffer buffer;
    struct v4l2_plane plane;
    CV4L2_fillBuffer(&buffer, &plane, type, multiplanar, index);
    if (multiplanar) plane.bytesused = bytesUsed; else buffer.bytesused = bytesUsed;
    buffer.field = V4L2_FIELD_NONE;
    buffer.timestamp.tv_sec = seconds;
    buffer.timestamp.tv_usec = microseconds;
    int result;
    do { result = v4l2_ioctl(fd, VIDIOC_QBUF, &buffer); } while (result < 0 && errno == EINTR);
    return result == 0 ? 0 : errno;
}

// A buffer the driver gave back.
struct CV4L2_DequeuedBuffer {
    int imported;  // in: the queue's buffers are DMABUF imports
    uint32_t index, bytesUsed, flags, sequence;
    int64_t seconds, microseconds;
};

// VIDIOC_DQBUF; EAGAIN when none is ready, EPIPE after a codec's last buffer.
static inline int CV4L2_dequeueBuffer(int fd, uint32_t type, int multiplanar, struct CV4L2_DequeuedBuffer *out) {
    struct v4l2_buffer buffer;
    struct v4l2_plane plane;
    CV4L2_fillBuffer(&buffer, &plane, type, multiplanar, 0);
    if (out->imported) buffer.memory = V4L2_MEMORY_DMABUF;
    int result;
    do { result = v4l2_ioctl(fd, VIDIOC_DQBUF, &buffer); } while (result < 0 && errno == EINTR);
    if (result != 0) return errno;
    out->index = buffer.index;
    out->bytesUsed = multiplanar ? plane.bytesused : buffer.bytesused;
    out->flags = buffer.flags;
    out->sequence = buffer.sequence;
    out->seconds = buffer.timestamp.tv_sec;
    out->microseconds = buffer.timestamp.tv_usec;
    return 0;
}

// VIDIOC_REQBUFS of `count` buffers whose memory the application brings: V4L2_MEMORY_DMABUF,
// for pictures another device's buffers hold (*count becomes what was granted).
static inline int CV4L2_requestImportBuffers(int fd, uint32_t type, uint32_t *count) {
    return CV4L2_requestBuffersOf(fd, type, V4L2_MEMORY_DMABUF, count);
}

// Queues DMABUF buffer `index` as the DMA-BUF `dmabuf` of `length` bytes holding `bytesUsed`,
// stamped like CV4L2_queueBuffer (a multi-planar queue checks the length given here).
static inline int CV4L2_queueImport(int fd, uint32_t type, int multiplanar, uint32_t index, int dmabuf,
                                    uint32_t length, uint32_t bytesUsed, int64_t seconds) {
    struct v4l2_buffer buffer;
    struct v4l2_plane plane;
    CV4L2_fillBuffer(&buffer, &plane, type, multiplanar, index);
    buffer.memory = V4L2_MEMORY_DMABUF;
    if (multiplanar) {
        plane.m.fd = dmabuf;
        plane.length = length;
        plane.bytesused = bytesUsed;
    } else {
        buffer.m.fd = dmabuf;
        buffer.length = length;
        buffer.bytesused = bytesUsed;
    }
    buffer.field = V4L2_FIELD_NONE;
    buffer.timestamp.tv_sec = seconds;
    int result;
    do { result = v4l2_ioctl(fd, VIDIOC_QBUF, &buffer); } while (result < 0 && errno == EINTR);
    return result == 0 ? 0 : errno;
}

// VIDIOC_EXPBUF: buffer `index` of a memory-mapped queue as a DMA-BUF descriptor another
// device can import (closed by the caller).
static inline int CV4L2_exportBuffer(int fd, uint32_t type, uint32_t index, int *dmabuf) {
    struct v4l2_exportbuffer request;
    memset(&request, 0, sizeof request);
    request.type = type;
    request.index = index;
    request.flags = O_RDWR | O_CLOEXEC;
    if (v4l2_ioctl(fd, VIDIOC_EXPBUF, &request) != 0) return errno;
    *dmabuf = request.fd;
    return 0;
}

// VIDIOC_STREAMON (on != 0) or VIDIOC_STREAMOFF.
static inline int CV4L2_stream(int fd, uint32_t type, int on) {
    int value = (int)type;
    return v4l2_ioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &value) == 0 ? 0 : errno;
}

// VIDIOC_ENCODER_CMD (V4L2_ENC_CMD_STOP drains, V4L2_ENC_CMD_START resumes).
static inline int CV4L2_encoderCommand(int fd, uint32_t command) {
    struct v4l2_encoder_cmd request;
    memset(&request, 0, sizeof request);
    request.cmd = command;
    return v4l2_ioctl(fd, VIDIOC_ENCODER_CMD, &request) == 0 ? 0 : errno;
}

// VIDIOC_DECODER_CMD (V4L2_DEC_CMD_STOP drains, V4L2_DEC_CMD_START resumes).
static inline int CV4L2_decoderCommand(int fd, uint32_t command) {
    struct v4l2_decoder_cmd request;
    memset(&request, 0, sizeof request);
    request.cmd = command;
    return v4l2_ioctl(fd, VIDIOC_DECODER_CMD, &request) == 0 ? 0 : errno;
}

// Subscribes to events of `type` (V4L2_EVENT_EOS, V4L2_EVENT_SOURCE_CHANGE).
static inline int CV4L2_subscribeEvent(int fd, uint32_t type) {
    struct v4l2_event_subscription subscription;
    memset(&subscription, 0, sizeof subscription);
    subscription.type = type;
    return v4l2_ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &subscription) == 0 ? 0 : errno;
}

// Takes one pending event: its type and, for a source change, its V4L2_EVENT_SRC_CH_* bits.
// ENOENT when none is pending.
static inline int CV4L2_dequeueEvent(int fd, uint32_t *type, uint32_t *changes) {
    struct v4l2_event event;
    memset(&event, 0, sizeof event);
    if (v4l2_ioctl(fd, VIDIOC_DQEVENT, &event) != 0) return errno;
    *type = event.type;
    *changes = event.type == V4L2_EVENT_SOURCE_CHANGE ? event.u.src_change.changes : 0;
    return 0;
}

// Four-character pixel format codes, built by a macro.
static inline uint32_t CV4L2_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }

// The data pointer of a mapping; MAP_FAILED is a cast Swift does not import.
static inline int CV4L2_map_failed(void *p) { return p == MAP_FAILED; }
#endif
