// The seam between Swift and libv4l2/libv4lconvert: v4l2_ioctl and v4l2_open are variadic and
// the VIDIOC_* request codes are macros built with _IOWR, which Swift cannot import. Both libraries
// are opened when first needed (V4L2.c, V4LConvert.c), not when the program starts.
#ifndef CV4L2_SHIM_H
#define CV4L2_SHIM_H
#include <fcntl.h>
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

// Four-character pixel format codes, built by a macro.
static inline uint32_t CV4L2_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }

// The data pointer of a mapping; MAP_FAILED is a cast Swift does not import.
static inline int CV4L2_map_failed(void *p) { return p == MAP_FAILED; }
#endif
