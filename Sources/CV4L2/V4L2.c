// libv4l2's functions this package calls, forwarded to the library opened on first use: a
// program that never opens a camera does not load it at start.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CV4L2.h"
#include <stdarg.h>

#define CV4L2_FUNCTIONS(F, V, H) \
    H(v4l2_open) \
    H(v4l2_ioctl) \
    F(int, v4l2_fd_open, (int fd, int flags), (fd, flags)) \
    F(int, v4l2_close, (int fd), (fd)) \
    F(void *, v4l2_mmap, (void *start, size_t length, int protection, int flags, int fd, int64_t offset), \
      (start, length, protection, flags, fd, offset)) \
    F(int, v4l2_munmap, (void *start, size_t length), (start, length))

CLINUX_LAZY_LIBRARY(CV4L2_load, "libv4l2.so.0", CV4L2_FUNCTIONS)

int v4l2_open(const char *file, int flags, ...) {
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list arguments;
        va_start(arguments, flags);
        mode = (mode_t)va_arg(arguments, int);
        va_end(arguments);
    }
    return ((int (*)(const char *, int, ...))CLINUX_LAZY_FUNCTION(v4l2_open))(file, flags, mode);
}

int v4l2_ioctl(int fd, unsigned long int request, ...) {
    va_list arguments;
    va_start(arguments, request);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    return ((int (*)(int, unsigned long int, ...))CLINUX_LAZY_FUNCTION(v4l2_ioctl))(fd, request, argument);
}
