/* Test shim (LD_PRELOAD): the rank named by $H5PERF_TEST_SLOW_RANK (Open MPI's
 * OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK, else Slurm's SLURM_PROCID) sleeps
 * $H5PERF_TEST_SLOW_MS milliseconds in its writes to #pio_tmp data files: in the first one only when $H5PERF_TEST_SLOW_ONCE
 * is set, else in every one. The sleep is inside h5perf's raw-data timer, so that rank
 * is slowed on purpose; every other process and file is left alone. pwrite, pwrite64
 * and syscall(SYS_pwrite64, ...) are interposed. $H5PERF_TEST_SLOW_RANK=* slows every rank.
 * With $H5PERF_TEST_SLOW_FSYNC_MS set, every process sleeps that long in fsync of a
 * results document's temporary file (a name holding ".h5perf-tmp."), so a signal can
 * be sent while the file exists (issue 35, item 9).
 * With $H5PERF_TEST_SLOW_CALL=fsync the slow rank sleeps in its fsync of #pio_tmp data
 * files instead of its writes (--latency's sync calls, issue 31).
 * $H5PERF_TEST_SLOW_PATH, when set, replaces "#pio_tmp" as the part of the file's name
 * that selects it (e.g. ".subfile_": the subfiling driver's subfiles, written by its
 * I/O concentrator threads), and $H5PERF_TEST_SLOW_MARK names a file the shim creates
 * before it sleeps, so a test knows the writes have begun (issue 33). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static int slept_once = 0;

static int slow_in_fsync(void) {
    const char *c = getenv("H5PERF_TEST_SLOW_CALL");
    return c && strcmp(c, "fsync") == 0;
}

static void maybe_sleep(int fd) {
    const char *want = getenv("H5PERF_TEST_SLOW_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    if (!me) me = getenv("PMI_RANK");
    if (!me) me = getenv("SLURM_PROCID"); /* a task of srun (tests/slurm.rs) */
    const char *ms = getenv("H5PERF_TEST_SLOW_MS");
    if (!want || !me || !ms || (strcmp(want, "*") != 0 && strcmp(want, me) != 0)) return;
    if (getenv("H5PERF_TEST_SLOW_ONCE") && slept_once) return;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = 0;
    const char *part = getenv("H5PERF_TEST_SLOW_PATH");
    if (!strstr(path, part ? part : "#pio_tmp")) return;
    slept_once = 1;
    const char *mark = getenv("H5PERF_TEST_SLOW_MARK");
    if (mark) {
        int m = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (m >= 0) close(m);
    }
    long t = atol(ms);
    struct timespec d = {t / 1000, (t % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0) {
    }
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    if (!slow_in_fsync()) maybe_sleep(fd);
    return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
    if (!slow_in_fsync()) maybe_sleep(fd);
    return real(fd, buf, count, offset);
}

/* h5perf's POSIX loop makes the system call directly (syscall(SYS_pwrite64, ...), see
 * src/ffi/posix.rs) on 64-bit Linux: interpose glibc's syscall() too. Only
 * SYS_pwrite64 is looked at; every call is passed on with its six argument words. */
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...) {
    static long (*real)(long, ...) = NULL;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_pwrite64 && !slow_in_fsync()) maybe_sleep((int)a[0]);
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int fsync(int fd) {
    static int (*real)(int) = NULL;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (slow_in_fsync()) maybe_sleep(fd);
    const char *ms = getenv("H5PERF_TEST_SLOW_FSYNC_MS");
    if (ms) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = 0;
            if (strstr(path, ".h5perf-tmp.")) {
                long t = atol(ms);
                struct timespec d = {t / 1000, (t % 1000) * 1000000L};
                while (nanosleep(&d, &d) != 0) {
                }
            }
        }
    }
    return real(fd);
}
