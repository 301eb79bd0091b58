// The seam between Swift and libx265, which encodes HEVC: its C API, imported as declared and
// reached through the function table x265_api_get returns. The library is opened when first
// needed (CX265.c), not when the program starts.
#ifndef CX265_SHIM_H
#define CX265_SHIM_H
#include <stdint.h>
#include <x265.h>

// Opens libx265.so.<X265_BUILD> if it is not open yet. Returns NULL when it is, else what failed.
const char *CX265_load(void);

// The 8-bit encoder's function table (x265_api_get is a macro naming a versioned symbol).
static inline const x265_api *CX265_api(void) { return x265_api_get(8); }

// Whether `name` is one of x265's presets (kind 0) or tunes (kind 1), ignoring case: x265
// prints its complaint about an unknown name to standard error itself.
#include <strings.h>
static inline int CX265_is_known_name(int kind, const char *name) {
    const char *const *names = kind == 0 ? x265_preset_names : x265_tune_names;
    for (int i = 0; names[i] != 0; i++) {
        if (strcasecmp(names[i], name) == 0) return 1;
    }
    return 0;
}

// The library build this module was compiled against.
static inline int CX265_build(void) { return X265_BUILD; }
#endif
