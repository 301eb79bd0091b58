// vicodec's stateful decoder, driven the way dev-decoder.rst says: the rig decodes what the
// library's encoder stream made, to compare it with the pictures that went in.
#include "CRigDrivers.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { OUTPUT_BUFFERS = 2, CAPTURE_BUFFERS = 4 };

struct decoder {
    int fd;
    void *output[OUTPUT_BUFFERS];
    size_t outputLength[OUTPUT_BUFFERS];
    int outputFree[OUTPUT_BUFFERS];
    void *capture[CAPTURE_BUFFERS];
    size_t captureLength[CAPTURE_BUFFERS];
    unsigned captureCount;
    char *error;
    size_t errorSize;
};

static int fail(struct decoder *d, const char *step) {
    snprintf(d->error, d->errorSize, "%s failed: %s", step, strerror(errno));
    return -1;
}

static int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

/// Waits for `events` (POLLPRI: an event) at most five seconds.
static int waitFor(struct decoder *d, short events, const char *step) {
    struct pollfd p = { .fd = d->fd, .events = events };
    int r;
    do { r = poll(&p, 1, 5000); } while (r == -1 && errno == EINTR);
    if (r == 0) { errno = ETIMEDOUT; return fail(d, step); }
    return r < 0 ? fail(d, step) : 0;
}

static int requestAndMap(struct decoder *d, enum v4l2_buf_type type, unsigned count, void **maps, size_t *lengths, unsigned *got) {
    struct v4l2_requestbuffers request = { .count = count, .type = type, .memory = V4L2_MEMORY_MMAP };
    if (xioctl(d->fd, VIDIOC_REQBUFS, &request)) return fail(d, "VIDIOC_REQBUFS");
    if (request.count == 0 || request.count > count) { errno = ENOMEM; return fail(d, "VIDIOC_REQBUFS count"); }
    for (unsigned i = 0; i < request.count; i++) {
        struct v4l2_buffer buffer = { .index = i, .type = type, .memory = V4L2_MEMORY_MMAP };
        if (xioctl(d->fd, VIDIOC_QUERYBUF, &buffer)) return fail(d, "VIDIOC_QUERYBUF");
        maps[i] = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, buffer.m.offset);
        if (maps[i] == MAP_FAILED) { maps[i] = NULL; return fail(d, "mmap"); }
        lengths[i] = buffer.length;
    }
    *got = request.count;
    return 0;
}

static int queueCapture(struct decoder *d, unsigned index) {
    struct v4l2_buffer buffer = { .index = index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
    return xioctl(d->fd, VIDIOC_QBUF, &buffer) ? fail(d, "VIDIOC_QBUF CAPTURE") : 0;
}

/// After the first coded frame: the source-change event, then the CAPTURE queue at the size it names.
static int startCapture(struct decoder *d, unsigned width, unsigned height) {
    if (waitFor(d, POLLPRI, "waiting for the source change event")) return -1;
    struct v4l2_event event;
    if (xioctl(d->fd, VIDIOC_DQEVENT, &event)) return fail(d, "VIDIOC_DQEVENT");
    if (event.type != V4L2_EVENT_SOURCE_CHANGE) { errno = EPROTO; return fail(d, "the first event (not a source change)"); }
    struct v4l2_format format = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
    if (xioctl(d->fd, VIDIOC_G_FMT, &format)) return fail(d, "VIDIOC_G_FMT CAPTURE");
    if (format.fmt.pix.width != width || format.fmt.pix.height != height || format.fmt.pix.pixelformat != V4L2_PIX_FMT_YUV420) {
        snprintf(d->error, d->errorSize, "the decoder's CAPTURE format is %ux%u %.4s, expected %ux%u YU12",
                 format.fmt.pix.width, format.fmt.pix.height, (char *)&format.fmt.pix.pixelformat, width, height);
        return -1;
    }
    if (requestAndMap(d, V4L2_BUF_TYPE_VIDEO_CAPTURE, CAPTURE_BUFFERS, d->capture, d->captureLength, &d->captureCount)) return -1;
    for (unsigned i = 0; i < d->captureCount; i++) if (queueCapture(d, i)) return -1;
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return xioctl(d->fd, VIDIOC_STREAMON, &type) ? fail(d, "VIDIOC_STREAMON CAPTURE") : 0;
}

/// Queues one coded frame stamped `number`, waiting for a free OUTPUT buffer.
static int queueCoded(struct decoder *d, const unsigned char *bytes, size_t size, unsigned long number) {
    int index = -1;
    while (index < 0) {
        for (int i = 0; i < OUTPUT_BUFFERS && index < 0; i++) if (d->outputFree[i]) index = i;
        if (index >= 0) break;
        struct v4l2_buffer done = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
        if (xioctl(d->fd, VIDIOC_DQBUF, &done) == 0) { d->outputFree[done.index] = 1; continue; }
        if (errno != EAGAIN) return fail(d, "VIDIOC_DQBUF OUTPUT");
        if (waitFor(d, POLLOUT, "waiting for a free OUTPUT buffer")) return -1;
    }
    if (size > d->outputLength[index]) { errno = EMSGSIZE; return fail(d, "copying a coded frame"); }
    memcpy(d->output[index], bytes, size);
    struct v4l2_buffer buffer = { .index = index, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP,
                                  .bytesused = size, .timestamp = { .tv_sec = number } };
    if (xioctl(d->fd, VIDIOC_QBUF, &buffer)) return fail(d, "VIDIOC_QBUF OUTPUT");
    d->outputFree[index] = 0;
    return 0;
}

/// Takes the decoded pictures ready now (waiting for one when `wait`): 1 after the LAST one.
static int takeDecoded(struct decoder *d, int wait, unsigned char *pictures, size_t pictureSize, unsigned long *numbers,
                       int capacity, int *decoded) {
    for (;;) {
        struct v4l2_buffer buffer = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
        if (xioctl(d->fd, VIDIOC_DQBUF, &buffer)) {
            if (errno == EPIPE) return 1;
            if (errno != EAGAIN) return fail(d, "VIDIOC_DQBUF CAPTURE");
            if (!wait) return 0;
            if (waitFor(d, POLLIN, "waiting for a decoded picture")) return -1;
            continue;
        }
        int last = (buffer.flags & V4L2_BUF_FLAG_LAST) != 0;
        if (buffer.bytesused > 0 && !(buffer.flags & V4L2_BUF_FLAG_ERROR) && *decoded < capacity) {
            size_t count = buffer.bytesused < pictureSize ? buffer.bytesused : pictureSize;
            memcpy(pictures + (size_t)*decoded * pictureSize, d->capture[buffer.index], count);
            numbers[*decoded] = buffer.timestamp.tv_sec;
            *decoded += 1;
        }
        if (last) return 1;
        if (queueCapture(d, buffer.index)) return -1;
        if (!wait) continue;
        return 0;
    }
}

static int decodeAll(struct decoder *d, unsigned width, unsigned height, const unsigned char *coded, const size_t *sizes,
                     int count, unsigned char *pictures, size_t pictureSize, unsigned long *numbers) {
    struct v4l2_format format = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
    format.fmt.pix.width = width;
    format.fmt.pix.height = height;
    format.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
    if (xioctl(d->fd, VIDIOC_S_FMT, &format)) return fail(d, "VIDIOC_S_FMT OUTPUT (FWHT)");
    struct v4l2_event_subscription subscription = { .type = V4L2_EVENT_SOURCE_CHANGE };
    if (xioctl(d->fd, VIDIOC_SUBSCRIBE_EVENT, &subscription)) return fail(d, "VIDIOC_SUBSCRIBE_EVENT SOURCE_CHANGE");
    unsigned outputs = 0;
    if (requestAndMap(d, V4L2_BUF_TYPE_VIDEO_OUTPUT, OUTPUT_BUFFERS, d->output, d->outputLength, &outputs)) return -1;
    for (unsigned i = 0; i < outputs; i++) d->outputFree[i] = 1;
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    if (xioctl(d->fd, VIDIOC_STREAMON, &type)) return fail(d, "VIDIOC_STREAMON OUTPUT");
    int decoded = 0, ended = 0;
    size_t offset = 0;
    for (int i = 0; i < count; i++) {
        if (queueCoded(d, coded + offset, sizes[i], (unsigned long)i + 1)) return -1;
        offset += sizes[i];
        if (i == 0 && startCapture(d, width, height)) return -1;
        // One picture out for each in keeps the two queues from filling.
        ended = takeDecoded(d, 1, pictures, pictureSize, numbers, count, &decoded);
        if (ended < 0) return -1;
        if (ended) break;
    }
    struct v4l2_decoder_cmd stop = { .cmd = V4L2_DEC_CMD_STOP };
    if (!ended && xioctl(d->fd, VIDIOC_DECODER_CMD, &stop)) return fail(d, "VIDIOC_DECODER_CMD STOP");
    while (!ended) {
        ended = takeDecoded(d, 1, pictures, pictureSize, numbers, count, &decoded);
        if (ended < 0) return -1;
    }
    return decoded;
}

int CRig_decodeFWHT(const char *path, unsigned width, unsigned height, const unsigned char *coded, const size_t *sizes,
                    int count, unsigned char *pictures, size_t pictureSize, unsigned long *numbers,
                    char *error, size_t errorSize) {
    struct decoder d = { .error = error, .errorSize = errorSize };
    d.fd = open(path, O_RDWR | O_NONBLOCK);
    if (d.fd < 0) return fail(&d, "opening the decoder");
    int decoded = decodeAll(&d, width, height, coded, sizes, count, pictures, pictureSize, numbers);
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(d.fd, VIDIOC_STREAMOFF, &type);
    type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    xioctl(d.fd, VIDIOC_STREAMOFF, &type);
    for (int i = 0; i < OUTPUT_BUFFERS; i++) if (d.output[i]) munmap(d.output[i], d.outputLength[i]);
    for (int i = 0; i < CAPTURE_BUFFERS; i++) if (d.capture[i]) munmap(d.capture[i], d.captureLength[i]);
    close(d.fd);
    return decoded;
}
