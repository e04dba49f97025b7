/*
 * subcomm.c - libh5perf on communicators that are not MPI_COMM_WORLD (run with 3
 * ranks; works with 2 or more):
 *   - MPI_Comm_split into even and odd world ranks; both halves run at the same time,
 *     each with its own configuration and its own data directory (HDF5_PARAPREFIX);
 *   - -P defaults to the size of the sub-communicator, not the world;
 *   - -P larger than the sub-communicator is refused (H5PERF_EPARAM) on that half;
 *   - the caller's sub-communicator is not modified and still works afterwards;
 *   - MPI_COMM_SELF on every rank at once.
 */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("subcomm");
    int color = ct_rank % 2;

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, ct_rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);

    /* each half writes into a directory of its own */
    char dir[64];
    snprintf(dir, sizeof dir, "half%d", color);
    if (hrank == 0)
        mkdir(dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("HDF5_PARAPREFIX", dir, 1);
    unsetenv("USER");
    unsetenv("LOGIN");

    /* even half: posix+phdf5, 32K per process; odd half: mpiio, 16K per process */
    h5perf_config *cfg = h5perf_config_new();
    unsigned apis = color == 0 ? (H5PERF_API_POSIX | H5PERF_API_PHDF5) : H5PERF_API_MPIIO;
    uint64_t bpp = color == 0 ? 32768 : 16384;
    int ok = h5perf_config_set_apis(cfg, apis) == H5PERF_OK &&
             h5perf_config_set_num_bytes(cfg, bpp) == H5PERF_OK &&
             h5perf_config_set_num_dsets(cfg, 2) == H5PERF_OK;
    ct_check(ok, "setters", "a setter failed: %s", h5perf_last_error());

    h5perf_results *res = NULL;
    int rc = h5perf_run(cfg, half, &res);
    ct_check_rc(rc, H5PERF_OK, "half.rc");
    /* -P = hsize, -x = bpp/2, -X = bpp */
    ct_expect e = {apis, 1, hsize, bpp, bpp / 2, bpp, bpp / 2, 2, 1, 1, 0, 0};
    ct_check_results(res, &e, hrank, "half.records");
    if (hrank == 0 && res != NULL && h5perf_results_count(res) > 0) {
        const h5perf_record *r = h5perf_results_get(res, 0);
        ct_check(r->nprocs == hsize, "half.max_procs_is_comm_size",
                 "first record has %d processes, the sub-communicator %d", r->nprocs, hsize);
    }
    h5perf_results_free(res);

    /* -P above the sub-communicator's size: refused on that half only */
    h5perf_config_set_max_procs(cfg, (uint32_t)hsize + 1);
    res = (h5perf_results *)&res; /* any non-NULL value: must come back NULL */
    rc = h5perf_run(cfg, half, &res);
    ct_check_rc(rc, H5PERF_EPARAM, "half.max_procs_too_large.rc");
    ct_check(res == NULL, "half.max_procs_too_large.results_null", "results not NULL");
    ct_check(strlen(h5perf_last_error()) > 0, "half.max_procs_too_large.message",
             "empty message");

    /* the caller's communicator is unchanged and usable */
    int cmp = -1, errh_ok = 0, one = 1, sum = 0;
    MPI_Comm_size(half, &cmp);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(half, &eh);
    errh_ok = eh == MPI_ERRORS_ARE_FATAL;
    MPI_Errhandler_free(&eh);
    int mrc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
    ct_check(cmp == hsize && mrc == MPI_SUCCESS && sum == hsize, "half.comm_usable",
             "size %d (was %d), MPI_Allreduce rc %d sum %d", cmp, hsize, mrc, sum);
    ct_check(errh_ok, "half.errhandler_unchanged",
             "the error handler of the caller's communicator was changed");

    /* no data file left in either directory */
    MPI_Barrier(MPI_COMM_WORLD);
    {
        char name[128];
        int left = 0;
        const char *ext[3] = {"posix", "mpio", "h5"};
        for (int i = 0; i < 3; i++) {
            snprintf(name, sizeof name, "%s/#pio_tmp_1.%s", dir, ext[i]);
            left += access(name, F_OK) == 0;
        }
        ct_check(left == 0, "half.cleanup", "%d data files left in %s", left, dir);
    }

    /* MPI_COMM_SELF: every rank runs alone, at the same time, in its own directory */
    snprintf(dir, sizeof dir, "self%d", ct_rank);
    mkdir(dir, 0755);
    setenv("HDF5_PARAPREFIX", dir, 1);
    h5perf_config_free(cfg);
    cfg = h5perf_config_new();
    h5perf_config_set_num_bytes(cfg, 8192);
    res = NULL;
    rc = h5perf_run(cfg, MPI_COMM_SELF, &res);
    ct_check_rc(rc, H5PERF_OK, "self.rc");
    ct_expect s = {0, 1, 1, 8192, 4096, 8192, 4096, 1, 1, 1, 0, 0};
    ct_check_results(res, &s, 0, "self.records");
    h5perf_results_free(res);
    h5perf_config_free(cfg);

    MPI_Comm_free(&half);
    int status = ct_finish();
    MPI_Finalize();
    return status;
}
