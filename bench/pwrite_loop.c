/*
 * pwrite_loop.c - the reference for `make bench`: the raw POSIX transfer loop of an
 * h5perf run (-A posix, 1 process, 1D contiguous, one dataset) written as plainly as
 * C allows, so that h5perf's own overhead in its timed loop shows as the difference.
 *
 *   pwrite_loop FILE BYTES XFER ITERATIONS
 *
 * For each iteration: create FILE, time the loop of pwrite(XFER bytes at offset k*XFER)
 * for k = 0 .. BYTES/XFER-1, close; open it again, time the loop of pread over the same
 * offsets, close, remove the file (what h5perf does per iteration, spec 7 and 8). The
 * buffer is 4096-byte aligned and filled once. Prints one line per phase with the best
 * (largest) throughput over the iterations, in MiB/s (2^20 bytes per second):
 *   write_mibps 1234.56
 *   read_mibps 2345.67
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *file)
{
    perror(what);
    fprintf(stderr, "pwrite_loop: %s failed on %s\n", what, file);
    exit(1);
}

/* The timed loops, never inlined: bench/instr counts their instructions with
 * callgrind's --toggle-collect=write_loop / read_loop. */
__attribute__((noinline)) static void write_loop(int fd, const void *buf, long long xfer,
                                                 long long n, const char *file)
{
    for (long long k = 0; k < n; k++)
        if (pwrite(fd, buf, (size_t)xfer, (off_t)(k * xfer)) != xfer)
            die("pwrite", file);
}

__attribute__((noinline)) static void read_loop(int fd, void *buf, long long xfer,
                                                long long n, const char *file)
{
    for (long long k = 0; k < n; k++)
        if (pread(fd, buf, (size_t)xfer, (off_t)(k * xfer)) != xfer)
            die("pread", file);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: pwrite_loop FILE BYTES XFER ITERATIONS\n");
        return 2;
    }
    const char *file = argv[1];
    long long bytes = atoll(argv[2]), xfer = atoll(argv[3]);
    int iters = atoi(argv[4]);
    if (bytes <= 0 || xfer <= 0 || bytes % xfer != 0 || iters <= 0) {
        fprintf(stderr, "pwrite_loop: BYTES must be a positive multiple of XFER\n");
        return 2;
    }
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, (size_t)xfer) != 0)
        die("posix_memalign", file);
    memset(buf, 1, (size_t)xfer);
    long long n = bytes / xfer;
    double best_w = 0, best_r = 0;
    for (int it = 0; it < iters; it++) {
        int fd = open(file, O_CREAT | O_TRUNC | O_RDWR, 0600);
        if (fd < 0)
            die("open", file);
        double t0 = now();
        write_loop(fd, buf, xfer, n, file);
        double t1 = now();
        close(fd);
        fd = open(file, O_RDONLY);
        if (fd < 0)
            die("open", file);
        double t2 = now();
        read_loop(fd, buf, xfer, n, file);
        double t3 = now();
        close(fd);
        unlink(file);
        double w = (double)bytes / (t1 - t0) / 1048576.0, r = (double)bytes / (t3 - t2) / 1048576.0;
        if (w > best_w)
            best_w = w;
        if (r > best_r)
            best_r = r;
    }
    printf("write_mibps %.2f\nread_mibps %.2f\n", best_w, best_r);
    free(buf);
    return 0;
}
