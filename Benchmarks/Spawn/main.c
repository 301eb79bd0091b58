// bench-spawn: runs one command for movrec-bench and reports what it cost.
//
//   bench-spawn REPORT_FD COMMAND [ARGUMENT...]
//
// Runs COMMAND (searched on PATH) with this process's standard streams and environment, waits
// for it and writes one line to REPORT_FD:
//
//   status WAIT_STATUS wall SECONDS user SECONDS system SECONDS maxrss KIB
//
// or `failed ERRNO` when the command cannot be started. Exits 0 when it wrote a report.
//
// Why a process of its own: Linux keeps, in a process's peak resident size (`ru_maxrss` from
// wait4), the peak of the memory it ran in before exec. A child started by posix_spawn (or
// vfork) runs in its parent's memory until it execs, so every child of the harness reported at
// least the harness's own peak, 7-15 MiB: `cp` showed 15 MiB and the stop-and-memory case's
// figures were all clamped to it. The floor this program passes on is printed by the harness
// (a run of `true`).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timespec t) { return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-spawn REPORT_FD COMMAND [ARGUMENT...]\n");
        return 2;
    }
    char *end = NULL;
    long report = strtol(argv[1], &end, 10);
    if (*argv[1] == 0 || *end != 0 || report < 0 || fcntl((int)report, F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "bench-spawn: %s is not an open file descriptor to report to\n", argv[1]);
        return 2;
    }
    struct timespec start, finish;
    clock_gettime(CLOCK_MONOTONIC, &start);
    // fork, not posix_spawn: a forked child starts with a copy of this process's anonymous
    // memory only (file pages are not copied), so the peak it carries into exec is smaller
    // than this process's whole resident size, which includes the Swift runtime SwiftPM links.
    int started[2];
    if (pipe2(started, O_CLOEXEC) != 0) {
        dprintf((int)report, "failed %d\n", errno);
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        dprintf((int)report, "failed %d\n", errno);
        return 0;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        int error = errno;
        (void)!write(started[1], &error, sizeof error);
        _exit(127);
    }
    close(started[1]);
    int error = 0;
    ssize_t got;
    while ((got = read(started[0], &error, sizeof error)) < 0 && errno == EINTR) {}
    close(started[0]);
    if (got == (ssize_t)sizeof error) {
        waitpid(pid, NULL, 0);
        dprintf((int)report, "failed %d\n", error);
        return 0;
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            dprintf((int)report, "failed %d\n", errno);
            return 0;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &finish);
    dprintf((int)report, "status %d wall %.9f user %ld.%06ld system %ld.%06ld maxrss %ld\n", status,
            seconds(finish) - seconds(start), (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec, usage.ru_maxrss);
    return 0;
}
