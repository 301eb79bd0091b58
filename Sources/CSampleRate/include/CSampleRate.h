// The seam between Swift and libsamplerate (Secret Rabbit Code), the band-limited sample-rate
// converter a recording uses to follow a microphone's clock: its C API, imported as declared.
// The library is opened when first needed (CSampleRate.c), not when the program starts.
#ifndef CSAMPLERATE_SHIM_H
#define CSAMPLERATE_SHIM_H
#include <samplerate.h>

// Opens libsamplerate.so.0 if it is not open yet. Returns NULL when it is, else what failed.
const char *CSampleRate_load(void);
#endif
