/*
 * leak_control.c - the positive control of the valgrind check (c_tests/run valgrind):
 * it runs a small configuration and deliberately never frees the configuration or the
 * results, so valgrind must report definitely lost blocks allocated through libh5perf
 * (h5perf_config_new, h5perf_run). If the filter does not see them, it is blind and
 * the valgrind check fails.
 */
#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("leak_control");
    h5perf_config *cfg = h5perf_config_new();
    h5perf_config_set_apis(cfg, H5PERF_API_POSIX);
    h5perf_config_set_num_bytes(cfg, 4096);
    h5perf_results *res = NULL;
    ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, &res), H5PERF_OK, "run");
    cfg = NULL; /* leaked on purpose */
    res = NULL; /* leaked on purpose */
    int status = ct_finish();
    MPI_Finalize();
    return status;
}
