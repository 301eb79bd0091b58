// The seam between Swift and ALSA's libasound. Everything this library calls is a plain
// function; the *_alloca helpers are macros, so Swift uses the *_malloc/*_free pairs instead.
// The library is opened when first needed (CALSA.c), not when the program starts.
#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H
#include <alsa/asoundlib.h>

// Opens libasound.so.2 if it is not open yet. Returns NULL when it is, else what failed.
const char *CALSA_load(void);
#endif
