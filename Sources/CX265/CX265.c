// libx265's entry point, forwarded to the library opened on first use: a program that never
// encodes HEVC does not load it at start. Everything else is reached through its function table.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding function included, is hidden from other shared objects.
#pragma GCC visibility push(hidden)
#include "CX265.h"

#define CX265_FUNCTIONS(F, V, H) \
    F(const x265_api *, x265_api_get, (int bitDepth), (bitDepth))

CLINUX_LAZY_LIBRARY(CX265_load, "libx265.so." CLINUX_STRING(X265_BUILD), CX265_FUNCTIONS)
