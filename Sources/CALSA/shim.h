// The seam between Swift and ALSA's libasound. Everything this library calls is a plain
// function; the *_alloca helpers are macros, so Swift uses the *_malloc/*_free pairs instead.
#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H
#include <alsa/asoundlib.h>
#endif
