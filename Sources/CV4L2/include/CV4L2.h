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

// Four-character pixel format codes, built by a macro.
static inline uint32_t CV4L2_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }

// The data pointer of a mapping; MAP_FAILED is a cast Swift does not import.
static inline int CV4L2_map_failed(void *p) { return p == MAP_FAILED; }
#endif
