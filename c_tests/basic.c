/*
 * basic.c - libh5perf on MPI_COMM_WORLD (run with 1, 2 and 3 ranks):
 *   - the defaults: h5perf_config_new + h5perf_run, one record per (processes,
 *     transfer size, API), consistent numbers, nothing on stdout;
 *   - every API alone (h5perf_config_set_apis);
 *   - a write-only run (has_read 0, read phases zero) and several iterations;
 *   - the report: "-" prints on stdout, a file name writes the file;
 *   - h5perf_version, h5perf_main --version and h5perf_main with a bad option;
 *   - the caller's communicator still works afterwards, no data file is left behind.
 */
#include "check.h"

static int count_pio_tmp(void)
{
    /* the data files are #pio_tmp_N.{posix,mpio,h5} in the current directory */
    int n = 0;
    const char *ext[3] = {"posix", "mpio", "h5"};
    char name[64];
    for (int f = 1; f <= 4; f++)
        for (int i = 0; i < 3; i++) {
            snprintf(name, sizeof name, "#pio_tmp_%d.%s", f, ext[i]);
            if (access(name, F_OK) == 0)
                n++;
        }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("basic");
    int size = ct_size, rank = ct_rank;

    ct_check(strncmp(h5perf_version(), "h5perf ", 7) == 0, "version",
             "h5perf_version() = \"%s\"", h5perf_version());
    ct_check(strcmp(h5perf_last_error(), "") == 0, "last_error.initially_empty",
             "h5perf_last_error() = \"%s\" before any failure", h5perf_last_error());

    /* ---- defaults, with stdout captured --------------------------------------- */
    {
        h5perf_config *cfg = h5perf_config_new();
        ct_check(cfg != NULL, "defaults.config_new", "h5perf_config_new returned NULL");
        h5perf_results *res = NULL;
        char path[64], head[256];
        int saved = ct_capture_begin(path, sizeof path);
        int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        long out = ct_capture_end(saved, path, head, sizeof head);
        ct_check_rc(rc, H5PERF_OK, "defaults.rc");
        ct_check(out == 0, "defaults.no_stdout",
                 "h5perf_run without a report wrote %ld bytes on stdout: \"%.80s\"", out, head);
        /* defaults: -e 256K, -x 128K, -X 256K, -B 128K, -P = size, -p 1, all APIs */
        ct_expect e = {0, 1, size, 262144, 131072, 262144, 131072, 1, 1, 1, 0, 0};
        size_t steps = 0;
        for (int np = size; np >= 1; np /= 2)
            steps++;
        if (rank == 0)
            ct_check(h5perf_results_count(res) == steps * 2 * 3, "defaults.count",
                     "%zu records, expected %zu process steps x 2 transfer sizes x 3 APIs",
                     h5perf_results_count(res), steps * 2 * 3);
        ct_check_results(res, &e, rank, "defaults.records");
        ct_check(h5perf_results_wrong_bytes(res) == 0, "defaults.wrong_bytes",
                 "wrong bytes %llu without verification",
                 (unsigned long long)h5perf_results_wrong_bytes(res));
        h5perf_results_free(res);
        h5perf_config_free(cfg);
    }

    /* ---- every API alone, write-only once, several iterations once ------------- */
    {
        const unsigned apis[3] = {H5PERF_API_POSIX, H5PERF_API_MPIIO, H5PERF_API_PHDF5};
        const char *names[3] = {"api.posix", "api.mpiio", "api.phdf5"};
        for (int i = 0; i < 3; i++) {
            h5perf_config *cfg = h5perf_config_new();
            int ok = h5perf_config_set_apis(cfg, apis[i]) == H5PERF_OK &&
                     h5perf_config_set_num_bytes(cfg, 64 * 1024) == H5PERF_OK &&
                     h5perf_config_set_min_xfer_size(cfg, 16 * 1024) == H5PERF_OK &&
                     h5perf_config_set_max_xfer_size(cfg, 64 * 1024) == H5PERF_OK &&
                     h5perf_config_set_block_size(cfg, 8 * 1024) == H5PERF_OK &&
                     h5perf_config_set_iterations(cfg, i == 1 ? 3 : 1) == H5PERF_OK &&
                     h5perf_config_set_write_only(cfg, i == 2) == H5PERF_OK;
            ct_check(ok, names[i], "a setter failed: %s", h5perf_last_error());
            h5perf_results *res = NULL;
            char path[64], head[256], name[64];
            int saved = ct_capture_begin(path, sizeof path);
            int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
            long out = ct_capture_end(saved, path, head, sizeof head);
            snprintf(name, sizeof name, "%s.rc", names[i]);
            ct_check_rc(rc, H5PERF_OK, name);
            snprintf(name, sizeof name, "%s.no_stdout", names[i]);
            ct_check(out == 0, name, "%ld bytes on stdout: \"%.80s\"", out, head);
            ct_expect e = {apis[i], 1, size, 65536, 16384, 65536, 8192, 1, 1,
                           i == 1 ? 3 : 1, 0, i == 2};
            snprintf(name, sizeof name, "%s.records", names[i]);
            ct_check_results(res, &e, rank, name);
            h5perf_results_free(res);
            h5perf_config_free(cfg);
        }
    }

    /* ---- the report on stdout ("-") and in a file -------------------------------- */
    {
        h5perf_config *cfg = h5perf_config_new();
        h5perf_config_set_apis(cfg, H5PERF_API_POSIX);
        h5perf_config_set_num_bytes(cfg, 8192);
        ct_check_rc(h5perf_config_set_report(cfg, "-"), H5PERF_OK, "report.stdout.set");
        h5perf_results *res = NULL;
        char path[64], head[4096];
        int saved = ct_capture_begin(path, sizeof path);
        int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        long out = ct_capture_end(saved, path, head, sizeof head);
        ct_check_rc(rc, H5PERF_OK, "report.stdout.rc");
        if (rank == 0)
            ct_check(out > 0 && strstr(head, "Transfer Buffer Size") != NULL &&
                         strstr(head, "POSIX") != NULL,
                     "report.stdout.text", "%ld bytes on stdout: \"%.200s\"", out, head);
        h5perf_results_free(res);

        ct_check_rc(h5perf_config_set_report(cfg, "report.txt"), H5PERF_OK, "report.file.set");
        res = NULL;
        saved = ct_capture_begin(path, sizeof path);
        rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        out = ct_capture_end(saved, path, head, sizeof head);
        ct_check_rc(rc, H5PERF_OK, "report.file.rc");
        struct stat st;
        ct_check(stat("report.txt", &st) == 0 && st.st_size > 0, "report.file.written",
                 "report.txt missing or empty");
        h5perf_results_free(res);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink("report.txt");

        /* back to no report: nothing on stdout again */
        ct_check_rc(h5perf_config_set_report(cfg, NULL), H5PERF_OK, "report.none.set");
        res = NULL;
        saved = ct_capture_begin(path, sizeof path);
        rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        out = ct_capture_end(saved, path, head, sizeof head);
        ct_check_rc(rc, H5PERF_OK, "report.none.rc");
        ct_check(out == 0, "report.none.no_stdout", "%ld bytes on stdout: \"%.80s\"", out, head);
        h5perf_results_free(res);
        h5perf_config_free(cfg);
    }

    /* ---- h5perf_main ------------------------------------------------------------- */
    {
        char a0[] = "h5perf", a1[] = "--version", a2[] = "--no-such-option";
        char *av[] = {a0, a1, NULL};
        char path[64], head[512];
        int saved = ct_capture_begin(path, sizeof path);
        int rc = h5perf_main(2, av);
        long out = ct_capture_end(saved, path, head, sizeof head);
        ct_check(rc == 0, "main.version.rc", "h5perf_main --version returned %d", rc);
        if (rank == 0)
            ct_check(out > 0 && strncmp(head, "h5perf ", 7) == 0, "main.version.text",
                     "stdout \"%.100s\"", head);
        char *bv[] = {a0, a2, NULL};
        int fd_err = dup(2), devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2); /* the program prints its usage error on stderr */
        rc = h5perf_main(2, bv);
        dup2(fd_err, 2);
        close(fd_err);
        close(devnull);
        ct_check(rc == 1, "main.bad_option.rc", "h5perf_main --no-such-option returned %d", rc);
    }

    /* ---- the caller's communicator and directory afterwards ---------------------- */
    {
        int one = 1, sum = 0;
        int mrc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        ct_check(mrc == MPI_SUCCESS && sum == size, "comm_world.usable",
                 "MPI_Allreduce on MPI_COMM_WORLD after the runs: rc %d, sum %d", mrc, sum);
        MPI_Barrier(MPI_COMM_WORLD);
        ct_check(count_pio_tmp() == 0, "cleanup", "#pio_tmp_* data files left behind");
    }

    int status = ct_finish();
    MPI_Finalize();
    return status;
}
