// An LD_PRELOAD interposer for the power-cut tests: it records every write, pwritev, sync and
// truncate a program makes to one file, with the bytes written, so the test can
// rebuild every state a power cut could leave that file in.
//
//   JOURNAL_TARGET=/path/of/the/movie JOURNAL_PATH=/path/of/the/journal LD_PRELOAD=libjournal.so movrec …
//
// A record is: one byte (w write, s sync, t truncate), then the offset and the
// length as little-endian 64-bit integers, then, for w, the bytes. Records are appended with
// the real write(2) under a mutex, so concurrent threads cannot interleave them.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int journal = -1;       // the journal's descriptor
static int target = -1;        // the movie's descriptor, once opened

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_fdatasync)(int);
static int (*real_fsync)(int);
static int (*real_ftruncate)(int, off_t);

static void resolve(void) {
    if (real_pwrite) return;
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
}

static void put(const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        ssize_t n = write(journal, p, count);
        if (n <= 0) return;
        p += n;
        count -= (size_t)n;
    }
}

static void record(char op, uint64_t offset, uint64_t length, const struct iovec *data, int count) {
    if (journal < 0) return;
    pthread_mutex_lock(&lock);
    put(&op, 1);
    put(&offset, 8);
    put(&length, 8);
    for (int i = 0; i < count; i++) put(data[i].iov_base, data[i].iov_len);
    pthread_mutex_unlock(&lock);
}

static void note_open(const char *path, int fd) {
    const char *wanted = getenv("JOURNAL_TARGET");
    if (fd < 0 || !wanted || strcmp(path, wanted) != 0) return;
    if (journal < 0) {
        const char *where = getenv("JOURNAL_PATH");
        if (where) journal = real_open(where, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    target = fd;
}

int open(const char *path, int flags, ...) {
    resolve();
    mode_t mode = 0;
    if (flags & O_CREAT) { va_list a; va_start(a, flags); mode = va_arg(a, int); va_end(a); }
    int fd = real_open(path, flags, mode);
    note_open(path, fd);
    return fd;
}

int open64(const char *path, int flags, ...) {
    resolve();
    mode_t mode = 0;
    if (flags & O_CREAT) { va_list a; va_start(a, flags); mode = va_arg(a, int); va_end(a); }
    int fd = real_open64(path, flags, mode);
    note_open(path, fd);
    return fd;
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    resolve();
    ssize_t n = real_pwrite(fd, buf, count, offset);
    if (fd == target && n > 0) {
        struct iovec v = { (void *)buf, (size_t)n };
        record('w', (uint64_t)offset, (uint64_t)n, &v, 1);
    }
    return n;
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) { return pwrite(fd, buf, count, offset); }

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    resolve();
    ssize_t n = real_pwritev(fd, iov, iovcnt, offset);
    if (fd == target && n > 0) {
        // Record what was written: the buffers' bytes up to n.
        struct iovec parts[1024];
        int count = 0;
        size_t left = (size_t)n;
        for (int i = 0; i < iovcnt && left > 0 && count < 1024; i++) {
            size_t take = iov[i].iov_len < left ? iov[i].iov_len : left;
            parts[count].iov_base = iov[i].iov_base;
            parts[count].iov_len = take;
            count++;
            left -= take;
        }
        record('w', (uint64_t)offset, (uint64_t)n, parts, count);
    }
    return n;
}
ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off_t offset) { return pwritev(fd, iov, iovcnt, offset); }

int fdatasync(int fd) {
    resolve();
    int r = real_fdatasync(fd);
    if (fd == target && r == 0) record('s', 0, 0, 0, 0);
    return r;
}

int fsync(int fd) {
    resolve();
    int r = real_fsync(fd);
    if (fd == target && r == 0) record('s', 0, 0, 0, 0);
    return r;
}

int ftruncate(int fd, off_t length) {
    resolve();
    int r = real_ftruncate(fd, length);
    if (fd == target && r == 0) record('t', (uint64_t)length, 0, 0, 0);
    return r;
}
int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }
