// bench-tjdecode FILE.mjpeg: decodes every JPEG of a Motion-JPEG stream to its own YUV planes
// with TurboJPEG (the fast integer IDCT, as the library decodes), and nothing else: half of case
// a2's limit for MJPEG, the other half being the x264 CLI on the same pictures as I420.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: bench-tjdecode FILE.mjpeg\n"); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(size);
    if (!bytes || fread(bytes, 1, size, file) != (size_t)size) { fprintf(stderr, "reading %s failed\n", argv[1]); return 1; }
    fclose(file);
    tjhandle handle = tjInitDecompress();
    unsigned char *planes = NULL;
    int pictures = 0;
    // The pictures one after another: each from its start marker to the next one (or the end).
    for (long start = 0; start + 4 <= size; ) {
        long end = start + 2;
        for (;;) {
            unsigned char *ff = memchr(bytes + end, 0xFF, size - end);
            if (!ff || ff + 2 >= bytes + size) { end = size; break; }
            end = ff - bytes;
            if (ff[1] == 0xD8 && ff[2] == 0xFF) break;
            end++;
        }
        int width, height, sampling, colorspace;
        if (tjDecompressHeader3(handle, bytes + start, end - start, &width, &height, &sampling, &colorspace) != 0) {
            fprintf(stderr, "picture %d: %s\n", pictures, tjGetErrorStr2(handle));
            return 1;
        }
        if (!planes) planes = malloc(tjBufSizeYUV2(width, 4, height, sampling));
        if (tjDecompressToYUV2(handle, bytes + start, end - start, planes, width, 4, height, TJFLAG_FASTDCT) != 0 &&
            tjGetErrorCode(handle) == TJERR_FATAL) {
            fprintf(stderr, "picture %d: %s\n", pictures, tjGetErrorStr2(handle));
            return 1;
        }
        pictures++;
        start = end;
    }
    printf("result pictures %d\n", pictures);
    tjDestroy(handle);
    free(planes);
    free(bytes);
    return 0;
}
