/* Test shim: when a #pio_tmp data file opened for writing is closed, overwrite one
 * byte of it (at $H5PERF_TEST_CORRUPT_AT) — a file changed between h5perf's write and
 * read phases. Only files whose name contains "#pio_tmp", and that are not empty, are
 * touched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int close(int fd) {
    static int (*real_close)(int) = NULL;
    if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    const char *at = getenv("H5PERF_TEST_CORRUPT_AT");
    int flags = fcntl(fd, F_GETFL);
    struct stat st;
    /* not an empty file: MPICH's ROMIO closes the file it has just created (MPI_MODE_EXCL
     * for MPI-IO, H5F_ACC_EXCL for HDF5) before every process opens it */
    if (at && flags != -1 && (flags & O_ACCMODE) != O_RDONLY && fstat(fd, &st) == 0 &&
        st.st_size > 0) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = 0;
            if (strstr(path, "#pio_tmp") && !strstr(path, ".h5")) {
                unsigned char bad = 0xEE;
                pwrite(fd, &bad, 1, atoll(at));
            } else if (strstr(path, "#pio_tmp") && strstr(path, ".h5")) {
                const char *h5 = getenv("H5PERF_TEST_CORRUPT_H5_AT");
                unsigned char bad = 0xEE;
                if (h5) pwrite(fd, &bad, 1, atoll(h5));
            }
        }
    }
    return real_close(fd);
}
