/* Test shim (LD_PRELOAD, PMPI interposer, built with the MPI compiler wrapper): logs
 * some MPI calls of a process, one line each, to $H5PERF_TEST_MPI_LOG/<pid>.log (no
 * log without the variable). Used by tests/transfers.rs.
 *   O                    MPI_File_open (any caller: h5perf or HDF5)
 *   C                    MPI_File_close
 *   R CALL OFFSET COUNT SIZE   a read: MPI_File_read_at(_all) (OFFSET in etypes of the
 *                        view) or MPI_File_read(_all) (OFFSET -1); SIZE = bytes per
 *                        element of its datatype
 *   A WHO / B WHO        MPI_Allreduce / MPI_Bcast; WHO is "own" when called from the
 *                        program itself (the h5perf executable), else "lib" (HDF5, MPI)
 *   W                    MPI_Wtime, called from the program itself (timer stamps)
 * Every call is passed on to its PMPI_ name unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

static FILE *out = NULL;
static int tried = 0;
static void *main_base = NULL;

static FILE *log_file(void) {
    if (!tried) {
        tried = 1;
        const char *dir = getenv("H5PERF_TEST_MPI_LOG");
        if (dir && *dir) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%ld.log", dir, (long)getpid());
            out = fopen(path, "a");
            if (out) setvbuf(out, NULL, _IOLBF, 0);
        }
        Dl_info me;
        if (dladdr((void *)getauxval(AT_PHDR), &me)) main_base = me.dli_fbase;
    }
    return out;
}

/* Whether the return address `ret` lies in the program's own executable. */
static int own(void *ret) {
    Dl_info i;
    log_file();
    return main_base && dladdr(ret, &i) && i.dli_fbase == main_base;
}

static int size_of(MPI_Datatype t) {
    int s = 0;
    PMPI_Type_size(t, &s);
    return s;
}

int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh) {
    int rc = PMPI_File_open(comm, name, amode, info, fh);
    if (log_file()) fprintf(out, "O\n");
    return rc;
}

int MPI_File_close(MPI_File *fh) {
    if (log_file()) fprintf(out, "C\n");
    return PMPI_File_close(fh);
}

#define READ_AT(NAME)                                                                  \
    int NAME(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,         \
             MPI_Status *st) {                                                          \
        if (log_file())                                                                 \
            fprintf(out, "R %s %lld %d %d\n", #NAME, (long long)off, count, size_of(t)); \
        return P##NAME(fh, off, buf, count, t, st);                                     \
    }
READ_AT(MPI_File_read_at)
READ_AT(MPI_File_read_at_all)

#define READ(NAME)                                                                      \
    int NAME(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Status *st) {        \
        if (log_file()) fprintf(out, "R %s -1 %d %d\n", #NAME, count, size_of(t));        \
        return P##NAME(fh, buf, count, t, st);                                           \
    }
READ(MPI_File_read)
READ(MPI_File_read_all)

int MPI_Allreduce(const void *in, void *res, int count, MPI_Datatype t, MPI_Op op,
                  MPI_Comm comm) {
    if (log_file()) fprintf(out, "A %s\n", own(__builtin_return_address(0)) ? "own" : "lib");
    return PMPI_Allreduce(in, res, count, t, op, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
    if (log_file()) fprintf(out, "B %s\n", own(__builtin_return_address(0)) ? "own" : "lib");
    return PMPI_Bcast(buf, count, t, root, comm);
}

double MPI_Wtime(void) {
    if (log_file() && own(__builtin_return_address(0))) fprintf(out, "W\n");
    return PMPI_Wtime();
}
