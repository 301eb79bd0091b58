// libheif's functions this package calls, forwarded to the library opened on first use: only a
// HEIF photo loads it (and, through it, x265).
#include "CLinux.h"
#include <pthread.h>
// What follows, the forwarding functions included, is hidden from other shared objects; the
// loader's and pthread's declarations above are not (a hidden pthread_once would not link).
#pragma GCC visibility push(hidden)
#include "CHeif.h"

#define CHEIF_FUNCTIONS(F, V, H) \
    F(struct heif_context *, heif_context_alloc, (void), ()) \
    V(heif_context_free, (struct heif_context *context), (context)) \
    F(struct heif_error, heif_context_get_encoder_for_format, \
      (struct heif_context *context, enum heif_compression_format format, struct heif_encoder **encoder), \
      (context, format, encoder)) \
    V(heif_encoder_release, (struct heif_encoder *encoder), (encoder)) \
    F(struct heif_error, heif_encoder_set_lossy_quality, (struct heif_encoder *encoder, int quality), (encoder, quality)) \
    F(struct heif_error, heif_encoder_set_parameter_string, \
      (struct heif_encoder *encoder, const char *name, const char *value), (encoder, name, value)) \
    F(struct heif_error, heif_image_create, \
      (int width, int height, enum heif_colorspace colorspace, enum heif_chroma chroma, struct heif_image **image), \
      (width, height, colorspace, chroma, image)) \
    F(struct heif_error, heif_image_add_plane, \
      (struct heif_image *image, enum heif_channel channel, int width, int height, int depth), \
      (image, channel, width, height, depth)) \
    F(uint8_t *, heif_image_get_plane, (struct heif_image *image, enum heif_channel channel, int *stride), \
      (image, channel, stride)) \
    V(heif_image_release, (const struct heif_image *image), (image)) \
    V(heif_image_handle_release, (const struct heif_image_handle *handle), (handle)) \
    F(struct heif_encoding_options *, heif_encoding_options_alloc, (void), ()) \
    V(heif_encoding_options_free, (struct heif_encoding_options *options), (options)) \
    F(struct heif_error, heif_context_encode_image, \
      (struct heif_context *context, const struct heif_image *image, struct heif_encoder *encoder, \
       const struct heif_encoding_options *options, struct heif_image_handle **handle), \
      (context, image, encoder, options, handle)) \
    F(struct heif_error, heif_context_encode_thumbnail, \
      (struct heif_context *context, const struct heif_image *image, const struct heif_image_handle *master, \
       struct heif_encoder *encoder, const struct heif_encoding_options *options, int size, \
       struct heif_image_handle **thumbnail), \
      (context, image, master, encoder, options, size, thumbnail)) \
    F(struct heif_error, heif_context_add_exif_metadata, \
      (struct heif_context *context, const struct heif_image_handle *handle, const void *data, int size), \
      (context, handle, data, size)) \
    F(struct heif_error, heif_context_write, (struct heif_context *context, struct heif_writer *writer, void *userdata), \
      (context, writer, userdata))

CLINUX_LAZY_LIBRARY(CHeif_load, "libheif.so.1", CHEIF_FUNCTIONS)

#pragma GCC visibility pop
#include <stdlib.h>
#include <string.h>

// The bytes libheif writes, gathered in one malloc'd buffer.
struct CHeif_memory {
    uint8_t *data;
    size_t size;
};

static struct heif_error CHeif_append(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    struct CHeif_memory *memory = userdata;
    struct heif_error result = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    uint8_t *grown = realloc(memory->data, memory->size + size);
    if (grown == 0) {
        result.code = heif_error_Memory_allocation_error;
        result.message = "out of memory gathering the file";
        return result;
    }
    memcpy(grown + memory->size, data, size);
    memory->data = grown;
    memory->size += size;
    return result;
}

struct heif_error CHeif_writeToMemory(struct heif_context *context, uint8_t **data, size_t *size) {
    struct CHeif_memory memory = {0, 0};
    struct heif_writer writer = {1, CHeif_append};
    struct heif_error error = heif_context_write(context, &writer, &memory);
    if (error.code != heif_error_Ok) {
        free(memory.data);
        memory.data = 0;
        memory.size = 0;
    }
    *data = memory.data;
    *size = memory.size;
    return error;
}
