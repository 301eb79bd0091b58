#include "CLinux.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int CLinux_openLibrary(const char *soname, const char *const *names, void **functions, int count,
                       char *message, unsigned long messageSize) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(message, messageSize, "%s", reason != NULL ? reason : soname);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        functions[i] = dlsym(handle, names[i]);
        if (functions[i] == NULL) {
            snprintf(message, messageSize, "%s has no function %s", soname, names[i]);
            return -1;
        }
    }
    return 0;
}

void CLinux_libraryMissing(const char *message) {
    fprintf(stderr, "MovieRecorder: a media library function was called but its library is not loaded: %s\n", message);
    abort();
}
