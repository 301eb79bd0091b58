// The seam between Swift and the Linux calls that glibc declares only under _GNU_SOURCE, which
// Swift's Glibc module is built without; and the loader the media library modules (CX264, CALSA,
// CV4L2, CTurboJPEG) open their libraries with when first needed.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/falloc.h>

// fallocate(2). With FALLOC_FL_KEEP_SIZE it reserves blocks without changing the file's size.
// Returns 0, or -1 with errno set.
static inline int CLinux_fallocate(int fd, int mode, long long offset, long long length) {
    return (int)syscall(SYS_fallocate, fd, mode, offset, length);
}

static inline int CLinux_FALLOC_FL_KEEP_SIZE(void) { return FALLOC_FL_KEEP_SIZE; }

// gettid(2): the calling thread's ID, which setpriority(2) takes to change one thread's nice value.
static inline int CLinux_gettid(void) { return (int)syscall(SYS_gettid); }

// renameat2(2) with RENAME_NOREPLACE (Linux 3.15): moves `from` to `to` only if `to` does not
// exist, in one step. Returns 0, or -1 with errno (EEXIST; EINVAL where the file system cannot).
#include <fcntl.h>
static inline int CLinux_renameNoReplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}

// setxattr(2) and getxattr(2), from <sys/xattr.h>, which Swift's Glibc module leaves out.
#include <sys/xattr.h>
static inline int CLinux_setxattr(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}
static inline long CLinux_getxattr(const char *path, const char *name, void *value, size_t size) {
    return (long)getxattr(path, name, value, size);
}

// madvise(2) advice that faults in a range's page tables (Linux 5.14). Its value is fixed by the
// kernel ABI; glibc headers before 2.35 do not name it.
#include <sys/mman.h>
static inline int CLinux_MADV_POPULATE_READ(void) {
#ifdef MADV_POPULATE_READ
    return MADV_POPULATE_READ;
#else
    return 22;
#endif
}

// Opens the shared library `soname` (with RTLD_NOW | RTLD_GLOBAL, as if the program had been
// linked with it) and looks up `count` functions, the i-th named names[i], into functions[i].
// Returns 0; or -1 with what failed ("libx264.so.164: cannot open shared object file: ...", or
// "libx264.so.164 has no function x264_encoder_encode") written into `message`.
int CLinux_openLibrary(const char *soname, const char *const *names, void **functions, int count,
                       char *message, unsigned long messageSize);

// For a function called before its library was loaded successfully, which the Swift side rules
// out by loading first: says so on standard error and aborts.
_Noreturn void CLinux_libraryMissing(const char *message);

// A library opened when first needed, for the media modules' .c files (C only; Swift ignores
// function-like macros). FUNCTIONS(F, V, H) lists the library's functions the program calls:
// F(return type, name, (parameters), (arguments)) for one returning a value, V(name,
// (parameters), (arguments)) for a void one, and H(name) for one whose forwarding function the .c
// file writes itself (a variadic one) with CLINUX_LAZY_FUNCTION(name). CLINUX_LAZY_LIBRARY then
// defines `const char *loadName(void)` (NULL once the library is open, else why it is not; it
// tries once) and, for each F and V, a function of that name that loads the library if needed
// and calls the library's own.
#define CLINUX_STRING(x) CLINUX_STRING_(x)
#define CLINUX_STRING_(x) #x
#define CLINUX_LAZY_NAME(type, name, parameters, arguments) CLINUX_STRING(name),
#define CLINUX_LAZY_VOID_NAME(name, parameters, arguments) CLINUX_STRING(name),
#define CLINUX_LAZY_HAND_NAME(name) CLINUX_STRING(name),
#define CLINUX_LAZY_INDEX(type, name, parameters, arguments) clinux_lazy_index_##name,
#define CLINUX_LAZY_VOID_INDEX(name, parameters, arguments) clinux_lazy_index_##name,
#define CLINUX_LAZY_HAND_INDEX(name) clinux_lazy_index_##name,
#define CLINUX_LAZY_STUB(type, name, parameters, arguments) \
    type name parameters { return ((type (*) parameters) clinux_lazy_function(clinux_lazy_index_##name)) arguments; }
#define CLINUX_LAZY_VOID_STUB(name, parameters, arguments) \
    void name parameters { ((void (*) parameters) clinux_lazy_function(clinux_lazy_index_##name)) arguments; }
#define CLINUX_LAZY_NO_STUB(name)
#define CLINUX_LAZY_FUNCTION(name) clinux_lazy_function(clinux_lazy_index_##name)
#define CLINUX_LAZY_LIBRARY(loadName, soname, FUNCTIONS) \
    static const char *const clinux_lazy_names[] = { FUNCTIONS(CLINUX_LAZY_NAME, CLINUX_LAZY_VOID_NAME, CLINUX_LAZY_HAND_NAME) }; \
    enum { FUNCTIONS(CLINUX_LAZY_INDEX, CLINUX_LAZY_VOID_INDEX, CLINUX_LAZY_HAND_INDEX) clinux_lazy_count }; \
    static void *clinux_lazy_functions[clinux_lazy_count]; \
    static char clinux_lazy_failure[512]; \
    static pthread_once_t clinux_lazy_once = PTHREAD_ONCE_INIT; \
    static void clinux_lazy_load(void) { \
        CLinux_openLibrary(soname, clinux_lazy_names, clinux_lazy_functions, clinux_lazy_count, \
                           clinux_lazy_failure, sizeof clinux_lazy_failure); \
    } \
    const char *loadName(void) { \
        pthread_once(&clinux_lazy_once, clinux_lazy_load); \
        return clinux_lazy_failure[0] != 0 ? clinux_lazy_failure : 0; \
    } \
    static void *clinux_lazy_function(int index) { \
        const char *failure = loadName(); \
        if (failure != 0) CLinux_libraryMissing(failure); \
        return clinux_lazy_functions[index]; \
    } \
    FUNCTIONS(CLINUX_LAZY_STUB, CLINUX_LAZY_VOID_STUB, CLINUX_LAZY_NO_STUB)

#endif
