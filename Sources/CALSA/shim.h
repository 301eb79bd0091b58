// The seam between Swift and ALSA's libasound.
#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H
#include <alsa/asoundlib.h>

// snd_pcm_hw_params_alloca and friends are macros around alloca; Swift uses the malloc forms.
static inline int CALSA_hw_params_malloc(snd_pcm_hw_params_t **p) { return snd_pcm_hw_params_malloc(p); }
#endif
