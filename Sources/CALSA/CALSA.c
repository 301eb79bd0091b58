// libasound's functions this package calls, forwarded to the library opened on first use: a
// program that never touches a microphone does not load it at start.
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CALSA.h"

#define CALSA_FUNCTIONS(F, V, H) \
    F(int, snd_card_next, (int *card), (card)) \
    F(int, snd_card_get_name, (int card, char **name), (card, name)) \
    F(int, snd_ctl_open, (snd_ctl_t **ctl, const char *name, int mode), (ctl, name, mode)) \
    F(int, snd_ctl_close, (snd_ctl_t *ctl), (ctl)) \
    F(int, snd_ctl_pcm_next_device, (snd_ctl_t *ctl, int *device), (ctl, device)) \
    F(int, snd_ctl_pcm_info, (snd_ctl_t *ctl, snd_pcm_info_t *info), (ctl, info)) \
    F(int, snd_pcm_info_malloc, (snd_pcm_info_t **info), (info)) \
    V(snd_pcm_info_free, (snd_pcm_info_t *info), (info)) \
    V(snd_pcm_info_set_device, (snd_pcm_info_t *info, unsigned int value), (info, value)) \
    V(snd_pcm_info_set_subdevice, (snd_pcm_info_t *info, unsigned int value), (info, value)) \
    V(snd_pcm_info_set_stream, (snd_pcm_info_t *info, snd_pcm_stream_t value), (info, value)) \
    F(const char *, snd_pcm_info_get_name, (const snd_pcm_info_t *info), (info)) \
    F(int, snd_pcm_open, (snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode), (pcm, name, stream, mode)) \
    F(int, snd_pcm_close, (snd_pcm_t *pcm), (pcm)) \
    F(const char *, snd_pcm_name, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_hw_params_malloc, (snd_pcm_hw_params_t **params), (params)) \
    V(snd_pcm_hw_params_free, (snd_pcm_hw_params_t *params), (params)) \
    F(int, snd_pcm_hw_params_any, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params)) \
    F(int, snd_pcm_hw_params_set_access, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_access_t access), \
      (pcm, params, access)) \
    F(int, snd_pcm_hw_params_set_format, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_format_t format), \
      (pcm, params, format)) \
    F(int, snd_pcm_hw_params_set_channels, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int value), \
      (pcm, params, value)) \
    F(int, snd_pcm_hw_params_set_channels_near, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *value), \
      (pcm, params, value)) \
    F(int, snd_pcm_hw_params_set_rate_near, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, unsigned int *value, int *dir), \
      (pcm, params, value, dir)) \
    F(int, snd_pcm_hw_params_set_period_size_near, \
      (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_uframes_t *value, int *dir), (pcm, params, value, dir)) \
    F(int, snd_pcm_hw_params_set_buffer_size_near, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params, snd_pcm_uframes_t *value), \
      (pcm, params, value)) \
    F(int, snd_pcm_hw_params, (snd_pcm_t *pcm, snd_pcm_hw_params_t *params), (pcm, params)) \
    F(int, snd_pcm_prepare, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_start, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_drop, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_resume, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_recover, (snd_pcm_t *pcm, int error, int silent), (pcm, error, silent)) \
    F(snd_pcm_state_t, snd_pcm_state, (snd_pcm_t *pcm), (pcm)) \
    F(int, snd_pcm_wait, (snd_pcm_t *pcm, int timeout), (pcm, timeout)) \
    F(int, snd_pcm_delay, (snd_pcm_t *pcm, snd_pcm_sframes_t *delay), (pcm, delay)) \
    F(snd_pcm_sframes_t, snd_pcm_readi, (snd_pcm_t *pcm, void *buffer, snd_pcm_uframes_t size), (pcm, buffer, size)) \
    F(snd_pcm_sframes_t, snd_pcm_writei, (snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size), (pcm, buffer, size)) \
    F(const char *, snd_strerror, (int error), (error))

CLINUX_LAZY_LIBRARY(CALSA_load, "libasound.so.2", CALSA_FUNCTIONS)
