// libv4lconvert's functions this package calls, forwarded to the library opened on first use.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CV4L2.h"

#define CV4LCONVERT_FUNCTIONS(F, V, H) \
    F(struct v4lconvert_data *, v4lconvert_create, (int fd), (fd)) \
    V(v4lconvert_destroy, (struct v4lconvert_data *data), (data)) \
    F(int, v4lconvert_convert, \
      (struct v4lconvert_data *data, const struct v4l2_format *source, const struct v4l2_format *destination, \
       unsigned char *sourceBytes, int sourceSize, unsigned char *destinationBytes, int destinationSize), \
      (data, source, destination, sourceBytes, sourceSize, destinationBytes, destinationSize))

CLINUX_LAZY_LIBRARY(CV4L2_loadConvert, "libv4lconvert.so.0", CV4LCONVERT_FUNCTIONS)
