// The seam between Swift and the Linux calls that glibc declares only under _GNU_SOURCE, which
// Swift's Glibc module is built without.
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

#endif
