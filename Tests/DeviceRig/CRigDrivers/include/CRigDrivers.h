// What the rig's programs call of the drivers directly, outside the library: ioctl is variadic
// and the VIDIOC_* request codes are macros, which Swift cannot import; libv4l2's open and
// ioctl are variadic too; ALSA's playback functions are plain C.
#ifndef CRIG_DRIVERS_H
#define CRIG_DRIVERS_H
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <alsa/asoundlib.h>

static inline int CRig_ioctl(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
static inline int CRig_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int CRig_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
static inline unsigned long CRig_VIDIOC_QUERYCAP(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long CRig_VIDIOC_QUERYCTRL(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long CRig_VIDIOC_S_CTRL(void) { return VIDIOC_S_CTRL; }

/// Decodes `count` FWHT frames (`coded`, one after another, `sizes` each) of `width`x`height`
/// through vicodec's stateful decoder at `path` into I420 `pictures` of `pictureSize` bytes
/// each, with the number each went in with (1…) in `numbers`. Returns how many came out, or -1
/// with the failed step in `error`.
int CRig_decodeFWHT(const char *path, unsigned width, unsigned height, const unsigned char *coded, const size_t *sizes,
                    int count, unsigned char *pictures, size_t pictureSize, unsigned long *numbers,
                    char *error, size_t errorSize);
#endif
