/* Test shim (LD_PRELOAD) for tests/lifecycle.rs: a crash inside a library call, and a
 * record of who removes the data files.
 *
 * Crash: the rank named by $H5PERF_TEST_CRASH_RANK (Open MPI's OMPI_COMM_WORLD_RANK,
 * MPICH's PMI_RANK), in its first write to a #pio_tmp data file (pwrite, pwrite64,
 * pwritev or syscall(SYS_pwrite64): inside MPI-IO, inside HDF5's MPI-IO driver, or in
 * h5perf's POSIX loop), dies of $H5PERF_TEST_CRASH_SIGNAL, made the way a real crash
 * makes it:
 *   SEGV  a store through a null pointer
 *   BUS   a read of a shared mapping past the end of the (truncated) file
 *   FPE   an integer division by zero
 *   ABRT  abort()
 *
 * Record: with $H5PERF_TEST_UNLINK_LOG set, every unlink/unlinkat/remove of a path
 * containing "#pio_tmp" or "#h5perf" is appended to that file as one line
 * "COMM RANK RESULT PATH" (COMM: /proc/self/comm, e.g. h5perf or h5perf-cleanup; RESULT:
 * 0 or the errno), written with async-signal-safe calls only (the signal handlers of
 * h5perf unlink through here).
 *
 * Refusal: with $H5PERF_TEST_UNLINK_FAIL set, removing a data file (#pio_tmp_N.posix,
 * .mpio, .h5) fails with EACCES without touching it (a file that cannot be removed).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *my_rank(void) {
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    if (!me) me = getenv("PMI_RANK");
    return me ? me : "?";
}

static void crash(const char *how) {
    if (strcmp(how, "SEGV") == 0) {
        *(volatile int *)0 = 1;
    } else if (strcmp(how, "BUS") == 0) {
        char name[] = "/tmp/h5perf-crash-shim-XXXXXX";
        int fd = mkstemp(name);
        if (fd >= 0) {
            unlink(name);
            if (ftruncate(fd, 4096) == 0) {
                volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
                if (p != MAP_FAILED && ftruncate(fd, 0) == 0) {
                    char c = p[0];
                    (void)c;
                }
            }
        }
    } else if (strcmp(how, "FPE") == 0) {
        /* both operands unknown to the compiler (1 / x is folded into a comparison) */
        volatile int num = 7, zero = 0;
        volatile int x = num / zero;
        (void)x;
    } else if (strcmp(how, "ABRT") == 0) {
        abort();
    }
    /* not reached for the four signals above */
    _exit(99);
}

static void maybe_crash(int fd) {
    const char *want = getenv("H5PERF_TEST_CRASH_RANK");
    const char *how = getenv("H5PERF_TEST_CRASH_SIGNAL");
    if (!want || !how || strcmp(want, my_rank()) != 0) return;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = 0;
    if (strstr(path, "#pio_tmp")) crash(how);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    maybe_crash(fd);
    return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
    maybe_crash(fd);
    return real(fd, buf, count, offset);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    static ssize_t (*real)(int, const struct iovec *, int, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
    maybe_crash(fd);
    return real(fd, iov, iovcnt, offset);
}

long syscall(long number, ...) {
    static long (*real)(long, ...) = NULL;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_pwrite64) maybe_crash((int)a[0]);
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- removals ---- */

static int watched(const char *path) {
    return path && (strstr(path, "#pio_tmp") || strstr(path, "#h5perf"));
}

static void put(int fd, const char *s) {
    ssize_t r = write(fd, s, strlen(s));
    (void)r;
}

/* Append "COMM RANK RESULT PATH\n" to $H5PERF_TEST_UNLINK_LOG (async-signal-safe:
 * open/read/write/close only; getenv reads the environment without allocating). */
static void log_removal(const char *path, int result) {
    const char *logname = getenv("H5PERF_TEST_UNLINK_LOG");
    if (!logname) return;
    int saved = errno;
    char comm[64] = "?";
    int c = open("/proc/self/comm", O_RDONLY);
    if (c >= 0) {
        ssize_t n = read(c, comm, sizeof comm - 1);
        close(c);
        if (n > 0) {
            comm[n] = 0;
            char *nl = strchr(comm, '\n');
            if (nl) *nl = 0;
        }
    }
    char num[16];
    int k = (int)sizeof num - 1;
    num[k] = 0;
    unsigned v = (unsigned)result;
    do {
        num[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v && k > 0);
    /* one write of a whole line (O_APPEND): lines of several processes do not mix */
    char line[4096 + 128];
    line[0] = 0;
    strncat(line, comm, 63);
    strcat(line, " ");
    strncat(line, my_rank(), 15);
    strcat(line, " ");
    strcat(line, num + k);
    strcat(line, " ");
    strncat(line, path, 4096);
    strcat(line, "\n");
    int fd = open(logname, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
        put(fd, line);
        close(fd);
    }
    errno = saved;
}

/* A data file's name: "#pio_tmp_" digits and ".posix", ".mpio" or ".h5" (not the MPI
 * library's own helper files beside it, e.g. "#pio_tmp_1.mpio.locktest.0"). */
static int data_file(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "#pio_tmp_", 9) != 0) return 0;
    const char *p = base + 9;
    if (*p < '1' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
    return strcmp(p, ".posix") == 0 || strcmp(p, ".mpio") == 0 || strcmp(p, ".h5") == 0;
}

static int refused(const char *path) {
    return getenv("H5PERF_TEST_UNLINK_FAIL") && path && data_file(path);
}

int unlink(const char *path) {
    static int (*real)(const char *) = NULL;
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    int r;
    if (refused(path)) {
        errno = EACCES;
        r = -1;
    } else {
        r = real(path);
    }
    if (watched(path)) log_removal(path, r == 0 ? 0 : errno);
    return r;
}

int unlinkat(int dirfd, const char *path, int flags) {
    static int (*real)(int, const char *, int) = NULL;
    if (!real) real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
    int r;
    if (refused(path)) {
        errno = EACCES;
        r = -1;
    } else {
        r = real(dirfd, path, flags);
    }
    if (watched(path)) log_removal(path, r == 0 ? 0 : errno);
    return r;
}

int remove(const char *path) {
    static int (*real)(const char *) = NULL;
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "remove");
    int r;
    if (refused(path)) {
        errno = EACCES;
        r = -1;
    } else {
        r = real(path);
    }
    if (watched(path)) log_removal(path, r == 0 ? 0 : errno);
    return r;
}
