/* Test shim (LD_PRELOAD): another process changes a #pio_tmp data file between
 * h5perf's write and read phases, once, in the process whose rank
 * ($OMPI_COMM_WORLD_RANK, MPICH's $PMI_RANK) is $H5PERF_TEST_PHASE_RANK (default 0).
 * $H5PERF_TEST_PHASE says what:
 *   truncate  cut the file to $H5PERF_TEST_PHASE_SIZE bytes (default: half its size)
 *   replace   put a copy of it (the same bytes, another inode) under its name
 * $H5PERF_TEST_PHASE_AT says when:
 *   open      (default) at the first read-only open of the file, just before it: the
 *             change lands after h5perf's checks before the read phase, whoever opens
 *             the file (h5perf for POSIX, the MPI library for MPI-IO and PHDF5)
 *   close     (truncate only) at the first close of a descriptor that can write the
 *             file once it is not empty: with one process, the end of the write phase
 *   read      (truncate only) at the first read from a read-only descriptor of the
 *             file, after the read phase's open and every check there (pread, pread64,
 *             preadv, preadv64 and syscall(SYS_pread64, ...): h5perf's POSIX loop
 *             makes the system call directly)
 * Data files are those named #pio_tmp_N.posix, .mpio or .h5. Every other file and call
 * is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int done = 0;

/* Whether `path` is a data file itself: its last component is #pio_tmp_N.posix, .mpio
 * or .h5 (not a file an MPI library names after it, e.g. OMPIO's *.locktest.0). */
static int data_file(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, "#pio_tmp_", 9) != 0) return 0;
    const char *dot = strchr(base, '.');
    return dot && (!strcmp(dot, ".posix") || !strcmp(dot, ".mpio") || !strcmp(dot, ".h5"));
}

static void copy_over(const char *path) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.phase-shim", path);
    /* these opens come back through the interposed open, which is done by now */
    int in = open(path, O_RDONLY);
    int out = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (in < 0 || out < 0) return;
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) break;
    }
    close(in);
    close(out);
    rename(tmp, path);
}

/* Whether this process acts at `when` (open or close). */
static int acts(const char *when) {
    const char *what = getenv("H5PERF_TEST_PHASE");
    if (done || !what) return 0;
    const char *at = getenv("H5PERF_TEST_PHASE_AT");
    if (strcmp(at ? at : "open", when) != 0) return 0;
    const char *want = getenv("H5PERF_TEST_PHASE_RANK");
    const char *me = getenv("OMPI_COMM_WORLD_RANK");
    if (!me) me = getenv("PMI_RANK");
    return strcmp(want ? want : "0", me ? me : "0") == 0;
}

static void maybe_change(const char *path, int flags) {
    if (!path || !data_file(path) || (flags & O_ACCMODE) != O_RDONLY || !acts("open"))
        return;
    const char *what = getenv("H5PERF_TEST_PHASE");
    struct stat st;
    if (stat(path, &st) != 0) return;
    done = 1;
    if (strcmp(what, "truncate") == 0) {
        const char *sz = getenv("H5PERF_TEST_PHASE_SIZE");
        if (truncate(path, sz ? atoll(sz) : st.st_size / 2) != 0) perror("phase shim: truncate");
    } else if (strcmp(what, "replace") == 0) {
        copy_over(path);
    }
}

static int real_open(const char *sym, const char *path, int flags, mode_t mode) {
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
    return real(path, flags, mode);
}

int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    maybe_change(path, flags);
    return real_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    maybe_change(path, flags);
    return real_open("open64", path, flags, mode);
}

int close(int fd) {
    static int (*real)(int) = NULL;
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int flags = fcntl(fd, F_GETFL);
    if (flags != -1 && (flags & O_ACCMODE) != O_RDONLY && acts("close")) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        struct stat st;
        /* not empty: ROMIO closes the file it has just created before every process
         * opens it */
        if (n > 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            path[n] = 0;
            if (data_file(path)) {
                done = 1;
                const char *sz = getenv("H5PERF_TEST_PHASE_SIZE");
                if (ftruncate(fd, sz ? atoll(sz) : st.st_size / 2) != 0)
                    perror("phase shim: ftruncate");
            }
        }
    }
    return real(fd);
}

/* AT=read: truncate the data file behind the read-only descriptor `fd`, once. */
static void maybe_truncate_read(int fd) {
    if (!acts("read")) return;
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1 || (flags & O_ACCMODE) != O_RDONLY) return;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    struct stat st;
    if (n <= 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    path[n] = 0;
    if (!data_file(path)) return;
    done = 1;
    const char *sz = getenv("H5PERF_TEST_PHASE_SIZE");
    if (truncate(path, sz ? atoll(sz) : st.st_size / 2) != 0) perror("phase shim: truncate");
}

#include <sys/syscall.h>
#include <sys/uio.h>

#define READ_FN(name, ret, args, call)                                          \
    ret name args {                                                              \
        static ret(*real) args = NULL;                                          \
        if (!real) real = (ret(*) args)dlsym(RTLD_NEXT, #name);                 \
        maybe_truncate_read(fd);                                                 \
        return real call;                                                        \
    }

READ_FN(pread, ssize_t, (int fd, void *buf, size_t count, off_t off), (fd, buf, count, off))
READ_FN(pread64, ssize_t, (int fd, void *buf, size_t count, off_t off), (fd, buf, count, off))
READ_FN(preadv, ssize_t, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))
READ_FN(preadv64, ssize_t, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))

long syscall(long number, ...) {
    static long (*real)(long, ...) = NULL;
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_pread64) maybe_truncate_read((int)a[0]);
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
