/*
 * panic.c - a panic inside h5perf_run on one rank ends the whole job (issue 35): run
 * under c_tests/run's run_panic with 2 and 3 ranks, it must not exit 0, must end within
 * seconds (not at the job's timeout) and must print the library's message naming the
 * rank. The test hook H5PERF_TEST_PANIC=1 (set here, before the run) makes world rank 1
 * panic before the run's verdict, while the other ranks wait in a collective call that
 * only MPI_Abort can end. No rank may return from h5perf_run.
 */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("panic");
    setenv("H5PERF_TEST_PANIC", "1", 1);
    h5perf_config *cfg = h5perf_config_new();
    char *av[] = {"h5perf", "-A", "posix", "-e", "64K", "-x", "16K", "-X", "16K",
                  "-B", "16K", "-i", "1", NULL};
    ct_check_rc(h5perf_config_parse(cfg, 13, av), H5PERF_OK, "parse");
    h5perf_results *res = NULL;
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    /* never reached while the library aborts the job */
    printf("RETURNED panic/h5perf_run [rank %d/%d]: %d %s\n", ct_rank, ct_size, rc,
           h5perf_last_error());
    fflush(stdout);
    h5perf_results_free(res);
    h5perf_config_free(cfg);
    MPI_Finalize();
    return 0;
}
