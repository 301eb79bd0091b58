// libv4lconvert's functions this package calls, forwarded to the library opened on first use.
#include "CLinux.h"
#include <pthread.h>
#include <errno.h>
#include <string.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's, pthread's and libc's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CV4L2.h"
#include <libv4l-plugin.h>

#define CV4LCONVERT_FUNCTIONS(F, V, H) \
    F(struct v4lconvert_data *, v4lconvert_create, (int fd), (fd)) \
    F(struct v4lconvert_data *, v4lconvert_create_with_dev_ops, \
      (int fd, void *priv, const struct libv4l_dev_ops *ops), (fd, priv, ops)) \
    V(v4lconvert_destroy, (struct v4lconvert_data *data), (data)) \
    F(int, v4lconvert_convert, \
      (struct v4lconvert_data *data, const struct v4l2_format *source, const struct v4l2_format *destination, \
       unsigned char *sourceBytes, int sourceSize, unsigned char *destinationBytes, int destinationSize), \
      (data, source, destination, sourceBytes, sourceSize, destinationBytes, destinationSize))

CLINUX_LAZY_LIBRARY(CV4L2_loadConvert, "libv4lconvert.so.0", CV4LCONVERT_FUNCTIONS)

// A device for libv4lconvert that has no driver behind it: it answers the capability query as
// a capture device and refuses everything else, which is all libv4lconvert asks before it
// converts buffers it is given.
static int cv4l2_offline_ioctl(void *priv, int fd, unsigned long request, void *arg) {
    (void)priv; (void)fd;
    if (request == VIDIOC_QUERYCAP) {
        struct v4l2_capability *caps = arg;
        memset(caps, 0, sizeof *caps);
        caps->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        caps->device_caps = caps->capabilities;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

static const struct libv4l_dev_ops cv4l2_offline_ops = { .ioctl = cv4l2_offline_ioctl };

struct v4lconvert_data *CV4L2_createOfflineConverter(void) {
    return v4lconvert_create_with_dev_ops(-1, 0, &cv4l2_offline_ops);
}
