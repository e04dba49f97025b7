/* Test shim (LD_PRELOAD) for --latency (issue 31): every pwrite/pread of a #pio_tmp data
 * file (glibc's pwrite, pread, their 64 forms and syscall(SYS_pwrite64/SYS_pread64,
 * ...), the calls h5perf's POSIX loop makes) is timed from outside h5perf with
 * clock_gettime(CLOCK_MONOTONIC) from the interposer's entry (before it looks at the
 * file's name) to the real call's return, with a pause of
 * $H5PERF_TEST_LAT_SPREAD_US x (1 + the call's number mod 16) microseconds inside the
 * timed part, so the calls last from one to sixteen pauses and differ by far more than
 * the shim's own cost. Each call's time (ns) is kept in memory (no output inside
 * h5perf's timed loop) and the process writes them at exit to
 * $H5PERF_TEST_LAT_DIR/lat.PID, one line "w NS" or "r NS" per call. A process without
 * such calls writes nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_CALLS 65536
static long long took[MAX_CALLS];
static char kind[MAX_CALLS];
static int calls = 0;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int is_data(int fd) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, "#pio_tmp") != NULL;
}

/* the pause before call number `calls` */
static void pause_once(void) {
    const char *us = getenv("H5PERF_TEST_LAT_SPREAD_US");
    if (!us) return;
    long t = atol(us) * (1 + calls % 16);
    struct timespec d = {t / 1000000, (t % 1000000) * 1000L};
    while (nanosleep(&d, &d) != 0) {
    }
}

static void keep(char k, long long t0) {
    long long t1 = now_ns();
    if (calls < MAX_CALLS) {
        took[calls] = t1 - t0;
        kind[calls] = k;
        calls++;
    }
}

__attribute__((destructor)) static void dump(void) {
    const char *dir = getenv("H5PERF_TEST_LAT_DIR");
    if (!dir || calls == 0) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/lat.%d", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (int i = 0; i < calls; i++) fprintf(f, "%c %lld\n", kind[i], took[i]);
    fclose(f);
}

#define TIMED(k, fd, call)                                                     \
    do {                                                                       \
        long long t0 = now_ns();                                               \
        if (!is_data(fd)) return call;                                         \
        pause_once();                                                          \
        __typeof__(call) r = call;                                             \
        keep(k, t0);                                                           \
        return r;                                                              \
    } while (0)

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    TIMED('w', fd, real(fd, buf, count, offset));
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
    TIMED('w', fd, real(fd, buf, count, offset));
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    TIMED('r', fd, real(fd, buf, count, offset));
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset) {
    static ssize_t (*real)(int, void *, size_t, off_t) = NULL;
    if (!real) real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    TIMED('r', fd, real(fd, buf, count, offset));
}

long syscall(long number, ...) {
    static long (*real)(long, ...) = NULL;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_pwrite64)
        TIMED('w', (int)a[0], real(number, a[0], a[1], a[2], a[3], a[4], a[5]));
    if (number == SYS_pread64)
        TIMED('r', (int)a[0], real(number, a[0], a[1], a[2], a[3], a[4], a[5]));
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
