/* Test shim (LD_PRELOAD): an MPI that does not provide MPI_THREAD_MULTIPLE.
 * MPI_Init_thread asks the real MPI (PMPI_Init_thread, found with dlsym) for
 * MPI_THREAD_SERIALIZED whatever the caller required, so MPI_Query_thread then gives
 * MPI_THREAD_SERIALIZED (2 in Open MPI's and MPICH's mpi.h alike). Every other call is
 * left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define THREAD_SERIALIZED 2

typedef int (*init_thread_fn)(int *, char ***, int, int *);

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)required;
    init_thread_fn real = (init_thread_fn)dlsym(RTLD_NEXT, "PMPI_Init_thread");
    if (real == NULL) {
        fprintf(stderr, "thread_shim: no PMPI_Init_thread\n");
        abort();
    }
    return real(argc, argv, THREAD_SERIALIZED, provided);
}
