/*
 * caller.c - what libh5perf does to the calling process, and the fill setters (run
 * with 1 and 2 ranks):
 *   - h5perf_run switches HDF5's automatic error printing off while it runs and puts
 *     the caller's handler back: a handler installed by the caller is not called for
 *     an HDF5 error inside the run (a fill combination HDF5 refuses) and is installed
 *     again afterwards;
 *   - h5perf_main with MPI already initialised puts the caller's error handlers of
 *     MPI_COMM_WORLD and of MPI_FILE_NULL back;
 *   - h5perf_config_set_fill_value / _fill_time / _alloc_time: bad values refused
 *     (H5PERF_EINVAL), the fill value and fill time reach the datasets' creation
 *     property lists in the file (kept with HDF5_NOCLEANUP and read back with HDF5),
 *     the allocation time reaches the report (parallel HDF5 stores early whatever is
 *     asked), and the same settings given as a command line give the same file.
 */
#include "check.h"

#include <hdf5.h>

static int handler_calls = 0;

static herr_t count_errors(hid_t stack, void *data)
{
    (void)stack;
    ++*(int *)data;
    return 0;
}

/* The fill settings of Dataset_1 in `file` (rank 0 only); -1 fields when unreadable. */
typedef struct fill_seen {
    int value;      /* the fill value byte, -2 for undefined */
    int fill_time;  /* H5D_FILL_TIME_* */
    int alloc_time; /* H5D_ALLOC_TIME_* */
} fill_seen;

static fill_seen read_fill(const char *file)
{
    fill_seen s = {-1, -1, -1};
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return s;
    hid_t d = H5Dopen2(f, "Dataset_1", H5P_DEFAULT);
    if (d >= 0) {
        hid_t dcpl = H5Dget_create_plist(d);
        if (dcpl >= 0) {
            H5D_fill_value_t status;
            unsigned char v = 0;
            if (H5Pfill_value_defined(dcpl, &status) >= 0) {
                if (status == H5D_FILL_VALUE_UNDEFINED)
                    s.value = -2;
                else if (H5Pget_fill_value(dcpl, H5T_NATIVE_UCHAR, &v) >= 0)
                    s.value = v;
            }
            H5D_fill_time_t ft;
            if (H5Pget_fill_time(dcpl, &ft) >= 0)
                s.fill_time = (int)ft;
            H5D_alloc_time_t at;
            if (H5Pget_alloc_time(dcpl, &at) >= 0)
                s.alloc_time = (int)at;
            H5Pclose(dcpl);
        }
        H5Dclose(d);
    }
    H5Fclose(f);
    return s;
}

/* Run cfg (PHDF5, data file kept), return what rank 0 finds in the file; removes it. */
static fill_seen run_and_read(const h5perf_config *cfg, const char *name)
{
    char n[96];
    fill_seen s = {-1, -1, -1};
    h5perf_results *res = NULL;
    setenv("HDF5_NOCLEANUP", "1", 1);
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    unsetenv("HDF5_NOCLEANUP");
    snprintf(n, sizeof n, "%s.rc", name);
    ct_check_rc(rc, H5PERF_OK, n);
    h5perf_results_free(res);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ct_rank == 0) {
        s = read_fill("#pio_tmp_1.h5");
        unlink("#pio_tmp_1.h5");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("caller");

    /* ---- HDF5's automatic error printing: off inside h5perf_run, restored after --- */
    {
        H5Eset_auto2(H5E_DEFAULT, count_errors, &handler_calls);
        /* the control: the handler sees an HDF5 error of the caller's own */
        hid_t bad = H5Fopen("no-such-file.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
        ct_check(bad < 0 && handler_calls > 0, "hdf5.handler.control",
                 "H5Fopen of a missing file: id %lld, handler called %d times", (long long)bad,
                 handler_calls);
        handler_calls = 0;

        h5perf_config *cfg = h5perf_config_new();
        ct_check_rc(h5perf_config_set_apis(cfg, H5PERF_API_PHDF5), H5PERF_OK, "hdf5.apis");
        ct_check_rc(h5perf_config_set_fill_value(cfg, H5PERF_FILL_VALUE_UNDEFINED), H5PERF_OK,
                    "hdf5.fill_value.undefined");
        ct_check_rc(h5perf_config_set_fill_time(cfg, H5PERF_FILL_TIME_ALLOC), H5PERF_OK,
                    "hdf5.fill_time.alloc");
        h5perf_results *res = NULL;
        int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        ct_check_rc(rc, H5PERF_EPARAM, "hdf5.refused_combination.rc");
        ct_check(strstr(h5perf_last_error(), "no fill value defined") != NULL,
                 "hdf5.refused_combination.message", "message \"%s\"", h5perf_last_error());
        ct_check(handler_calls == 0, "hdf5.handler.silent_inside_run",
                 "the caller's HDF5 error handler was called %d times inside h5perf_run",
                 handler_calls);
        H5E_auto2_t func = NULL;
        void *data = NULL;
        H5Eget_auto2(H5E_DEFAULT, &func, &data);
        ct_check(func == count_errors && data == &handler_calls, "hdf5.handler.restored",
                 "after h5perf_run the automatic error handler is %p (data %p), expected %p (%p)",
                 (void *)(size_t)func, data, (void *)(size_t)count_errors,
                 (void *)&handler_calls);
        h5perf_results_free(res);
        h5perf_config_free(cfg);
        H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, stderr);
    }

    /* ---- MPI error handlers: put back by h5perf_main ------------------------------ */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
        char a0[] = "h5perf", a1[] = "-A", a2[] = "mpiio", a3[] = "-e", a4[] = "64K";
        char *av[] = {a0, a1, a2, a3, a4, NULL};
        char path[64], head[128];
        int saved = ct_capture_begin(path, sizeof path);
        int rc = h5perf_main(5, av);
        ct_capture_end(saved, path, head, sizeof head);
        ct_check(rc == 0, "mpi.main.rc", "h5perf_main returned %d", rc);
        MPI_Errhandler comm_eh, file_eh;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &comm_eh);
        MPI_File_get_errhandler(MPI_FILE_NULL, &file_eh);
        ct_check(comm_eh == MPI_ERRORS_ARE_FATAL, "mpi.comm_world_handler.restored",
                 "MPI_COMM_WORLD's error handler is not MPI_ERRORS_ARE_FATAL after h5perf_main");
        ct_check(file_eh == MPI_ERRORS_ARE_FATAL, "mpi.file_handler.restored",
                 "MPI_FILE_NULL's error handler is not MPI_ERRORS_ARE_FATAL after h5perf_main");
        MPI_Errhandler_free(&comm_eh);
        MPI_Errhandler_free(&file_eh);
        MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    }

    /* ---- fill setters ---------------------------------------------------------- */
    {
        h5perf_config *cfg = h5perf_config_new();
        ct_check_rc(h5perf_config_set_fill_value(cfg, 256), H5PERF_EINVAL, "fill.value.256");
        ct_check(strstr(h5perf_last_error(), "fill value (256)") != NULL, "fill.value.256.message",
                 "message \"%s\"", h5perf_last_error());
        ct_check_rc(h5perf_config_set_fill_value(cfg, -3), H5PERF_EINVAL, "fill.value.-3");
        ct_check_rc(h5perf_config_set_fill_time(cfg, 4), H5PERF_EINVAL, "fill.time.4");
        ct_check_rc(h5perf_config_set_fill_time(cfg, -1), H5PERF_EINVAL, "fill.time.-1");
        ct_check_rc(h5perf_config_set_alloc_time(cfg, 5), H5PERF_EINVAL, "fill.alloc.5");
        ct_check_rc(h5perf_config_set_fill_value(cfg, 0), H5PERF_OK, "fill.value.0");

        /* small chunked PHDF5 run: -A phdf5 -c -e 64K -x 16K -X 16K -B 16K -P 1 */
        h5perf_config_set_apis(cfg, H5PERF_API_PHDF5);
        h5perf_config_set_chunk(cfg, 1);
        h5perf_config_set_num_bytes(cfg, 65536);
        h5perf_config_set_min_xfer_size(cfg, 16384);
        h5perf_config_set_max_xfer_size(cfg, 16384);
        h5perf_config_set_block_size(cfg, 16384);
        h5perf_config_set_min_procs(cfg, (uint32_t)ct_size);

        /* nothing set: HDF5's defaults (fill value 0, if set); parallel HDF5 always
         * allocates early and stores that (h5perf(1), FILL VALUES) */
        fill_seen s = run_and_read(cfg, "fill.unset");
        if (ct_rank == 0)
            ct_check(s.value == 0 && s.fill_time == H5D_FILL_TIME_IFSET &&
                         s.alloc_time == H5D_ALLOC_TIME_EARLY,
                     "fill.unset.file", "value %d, fill time %d, alloc time %d", s.value,
                     s.fill_time, s.alloc_time);

        ct_check_rc(h5perf_config_set_fill_value(cfg, 7), H5PERF_OK, "fill.value.7");
        ct_check_rc(h5perf_config_set_fill_time(cfg, H5PERF_FILL_TIME_ALLOC), H5PERF_OK,
                    "fill.time.alloc");
        ct_check_rc(h5perf_config_set_alloc_time(cfg, H5PERF_ALLOC_TIME_LATE), H5PERF_OK,
                    "fill.alloc.late");
        ct_check_rc(h5perf_config_set_report(cfg, "fill-report.txt"), H5PERF_OK,
                    "fill.report");
        s = run_and_read(cfg, "fill.set");
        /* the file stores early whatever was asked: the allocation time asked for is
         * checked in the report */
        if (ct_rank == 0) {
            ct_check(s.value == 7 && s.fill_time == H5D_FILL_TIME_ALLOC &&
                         s.alloc_time == H5D_ALLOC_TIME_EARLY,
                     "fill.set.file", "value %d, fill time %d, alloc time %d", s.value,
                     s.fill_time, s.alloc_time);
            char text[8192] = "";
            FILE *f = fopen("fill-report.txt", "r");
            size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
            text[n] = 0;
            if (f)
                fclose(f);
            ct_check(strstr(text, "Fill value=7\n") && strstr(text, "Fill time=alloc\n") &&
                         strstr(text, "Allocation time=late (HDF5 applies: early)\n"),
                     "fill.set.report", "the report's fill lines are missing:\n%.2000s", text);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        unlink("fill-report.txt");

        /* the same as a command line */
        char a[][32] = {"h5perf", "-A", "phdf5", "-c", "-e", "64K", "-x", "16K", "-X", "16K",
                        "-B", "16K", "-p", "64", "--fill-value=7", "--fill-time=alloc",
                        "--alloc-time=late"};
        snprintf(a[13], sizeof a[13], "%d", ct_size);
        char *av[17];
        for (int i = 0; i < 17; i++)
            av[i] = a[i];
        ct_check_rc(h5perf_config_parse(cfg, 17, av), H5PERF_OK, "fill.parse");
        fill_seen p = run_and_read(cfg, "fill.parsed");
        if (ct_rank == 0)
            ct_check(p.value == s.value && p.fill_time == s.fill_time &&
                         p.alloc_time == s.alloc_time,
                     "fill.parsed.same_as_setters", "parsed: %d %d %d, setters: %d %d %d",
                     p.value, p.fill_time, p.alloc_time, s.value, s.fill_time, s.alloc_time);

        /* -n is H5PERF_FILL_TIME_NEVER; back to unset */
        ct_check_rc(h5perf_config_set_fill_time(cfg, H5PERF_FILL_TIME_NEVER), H5PERF_OK,
                    "fill.time.never");
        ct_check_rc(h5perf_config_set_fill_value(cfg, H5PERF_FILL_VALUE_UNSET), H5PERF_OK,
                    "fill.value.unset");
        ct_check_rc(h5perf_config_set_alloc_time(cfg, H5PERF_ALLOC_TIME_UNSET), H5PERF_OK,
                    "fill.alloc.unset");
        s = run_and_read(cfg, "fill.never");
        if (ct_rank == 0)
            ct_check(s.value == 0 && s.fill_time == H5D_FILL_TIME_NEVER &&
                         s.alloc_time == H5D_ALLOC_TIME_EARLY,
                     "fill.never.file", "value %d, fill time %d, alloc time %d", s.value,
                     s.fill_time, s.alloc_time);
        h5perf_config_free(cfg);
    }

    int rc = ct_finish();
    MPI_Finalize();
    return rc;
}
