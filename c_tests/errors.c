/*
 * errors.c - error codes and messages of libh5perf (run with 1 and 2 ranks):
 *   - h5perf_run before MPI_Init and after MPI_Finalize: H5PERF_EMPI;
 *   - invalid configurations (block not dividing the transfer size, -P above the
 *     communicator size, bpp not a multiple of the transfer size): H5PERF_EPARAM, a
 *     message, results NULL, no hang, no output, no file; a valid run afterwards;
 *   - setters refusing bad values (H5PERF_EINVAL) and keeping the configuration usable;
 *   - h5perf_config_parse refusing bad command lines, --help and --version;
 *   - NULL arguments everywhere, a negative argc, MPI_COMM_NULL;
 *   - the message stays until the next failure.
 */
#include "check.h"

static int dir_has_pio_tmp(void)
{
    const char *ext[3] = {"posix", "mpio", "h5"};
    char name[64];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "#pio_tmp_1.%s", ext[i]);
        if (access(name, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* h5perf_run must fail with want: results NULL, a message, nothing on stdout. */
static void expect_run_failure(const h5perf_config *cfg, int want, const char *name,
                               const char *needle)
{
    char n[96], path[64], head[256];
    h5perf_results *res = (h5perf_results *)&n; /* any non-NULL value */
    int saved = ct_capture_begin(path, sizeof path);
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    long out = ct_capture_end(saved, path, head, sizeof head);
    snprintf(n, sizeof n, "%s.rc", name);
    ct_check_rc(rc, want, n);
    snprintf(n, sizeof n, "%s.results_null", name);
    ct_check(res == NULL, n, "*results is not NULL after a failure");
    snprintf(n, sizeof n, "%s.message", name);
    const char *msg = h5perf_last_error();
    ct_check(msg != NULL && strlen(msg) > 0 && (needle == NULL || strstr(msg, needle) != NULL),
             n, "h5perf_last_error() = \"%s\", expected a message containing \"%s\"",
             msg ? msg : "(null)", needle ? needle : "");
    snprintf(n, sizeof n, "%s.no_stdout", name);
    ct_check(out == 0, n, "%ld bytes on stdout: \"%.80s\"", out, head);
    snprintf(n, sizeof n, "%s.no_file", name);
    ct_check(!dir_has_pio_tmp(), n, "a data file was created");
}

static int run_ok(const h5perf_config *cfg, const char *name, uint64_t bpp)
{
    h5perf_results *res = NULL;
    char n[96];
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    snprintf(n, sizeof n, "%s.rc", name);
    ct_check_rc(rc, H5PERF_OK, n);
    ct_expect e = {H5PERF_API_POSIX, 1, ct_size, bpp, bpp / 2, bpp, bpp / 2, 1, 1, 1, 0, 0};
    snprintf(n, sizeof n, "%s.records", name);
    int ok = ct_check_results(res, &e, ct_rank, n);
    h5perf_results_free(res);
    return ok;
}

int main(int argc, char **argv)
{
    /* ---- before MPI_Init ------------------------------------------------------- */
    h5perf_config *cfg = h5perf_config_new();
    h5perf_results *res = (h5perf_results *)&cfg;
    int rc_before = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    int res_before_null = res == NULL;

    MPI_Init(&argc, &argv);
    ct_init("errors");
    ct_check_rc(rc_before, H5PERF_EMPI, "before_init.rc");
    ct_check(res_before_null, "before_init.results_null", "results not NULL");
    ct_check(strstr(h5perf_last_error(), "MPI") != NULL, "before_init.message",
             "h5perf_last_error() = \"%s\"", h5perf_last_error());

    /* ---- invalid parameter combinations ---------------------------------------- */
    h5perf_config_set_apis(cfg, H5PERF_API_POSIX);
    /* transfer size 48K is not a multiple of the 32K block */
    h5perf_config_set_num_bytes(cfg, 96 * 1024);
    h5perf_config_set_min_xfer_size(cfg, 48 * 1024);
    h5perf_config_set_max_xfer_size(cfg, 48 * 1024);
    h5perf_config_set_block_size(cfg, 32 * 1024);
    expect_run_failure(cfg, H5PERF_EPARAM, "block_not_dividing_xfer", "multiple");

    /* a valid configuration right after */
    h5perf_config_free(cfg);
    cfg = h5perf_config_new();
    h5perf_config_set_apis(cfg, H5PERF_API_POSIX);
    h5perf_config_set_num_bytes(cfg, 16384);
    run_ok(cfg, "valid_after_eparam", 16384);
    /* the message of the last failure stays until the next failure */
    ct_check(strstr(h5perf_last_error(), "multiple") != NULL, "last_error.kept",
             "h5perf_last_error() = \"%s\" after a successful run", h5perf_last_error());

    /* -P above the communicator size */
    h5perf_config_set_max_procs(cfg, (uint32_t)ct_size + 1);
    expect_run_failure(cfg, H5PERF_EPARAM, "max_procs_above_size", NULL);
    h5perf_config_set_max_procs(cfg, 0);

    /* bytes per process not a multiple of the transfer size (1D) */
    h5perf_config_set_num_bytes(cfg, 100 * 1024);
    h5perf_config_set_min_xfer_size(cfg, 64 * 1024);
    h5perf_config_set_max_xfer_size(cfg, 64 * 1024);
    h5perf_config_set_block_size(cfg, 64 * 1024);
    expect_run_failure(cfg, H5PERF_EPARAM, "bpp_not_multiple_of_xfer", "multiple");

    /* the same through the command line */
    {
        char a0[] = "h5perf", a1[] = "-A", a2[] = "posix", a3[] = "-e", a4[] = "96K",
             a5[] = "-x", a6[] = "48K", a7[] = "-X", a8[] = "48K", a9[] = "-B", a10[] = "32K";
        char *av[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 11, av), H5PERF_OK, "parse.invalid_combination");
        expect_run_failure(cfg, H5PERF_EPARAM, "parsed_block_not_dividing_xfer", "multiple");
    }

    /* ---- setters refusing bad values ------------------------------------------- */
    h5perf_config_free(cfg);
    cfg = h5perf_config_new();
    h5perf_config_set_apis(cfg, H5PERF_API_POSIX);
    h5perf_config_set_num_bytes(cfg, 16384);
    ct_check_rc(h5perf_config_set_apis(cfg, 8), H5PERF_EINVAL, "set_apis.unknown_bit");
    ct_check(strlen(h5perf_last_error()) > 0, "set_apis.unknown_bit.message", "empty message");
    ct_check_rc(h5perf_config_set_align(cfg, 0), H5PERF_EINVAL, "set_align.zero");
    ct_check_rc(h5perf_config_set_num_files(cfg, 0), H5PERF_EINVAL, "set_num_files.zero");
    ct_check_rc(h5perf_config_set_num_dsets(cfg, 0), H5PERF_EINVAL, "set_num_dsets.zero");
    ct_check_rc(h5perf_config_set_num_bytes(cfg, UINT64_MAX), H5PERF_EINVAL,
                "set_num_bytes.too_large");
    ct_check_rc(h5perf_config_set_min_xfer_size(cfg, UINT64_MAX), H5PERF_EINVAL,
                "set_min_xfer_size.too_large");
    ct_check_rc(h5perf_config_set_max_xfer_size(cfg, UINT64_MAX), H5PERF_EINVAL,
                "set_max_xfer_size.too_large");
    ct_check_rc(h5perf_config_set_block_size(cfg, UINT64_MAX), H5PERF_EINVAL,
                "set_block_size.too_large");
    ct_check_rc(h5perf_config_set_threshold(cfg, UINT64_MAX), H5PERF_EINVAL,
                "set_threshold.too_large");
    ct_check_rc(h5perf_config_set_debug(cfg, -1, 0, 0, 0), H5PERF_EINVAL, "set_debug.negative");
    ct_check_rc(h5perf_config_set_report(cfg, ""), H5PERF_EINVAL, "set_report.empty");
    /* valid edge values */
    ct_check_rc(h5perf_config_set_apis(cfg, 0), H5PERF_OK, "set_apis.zero_means_all");
    ct_check_rc(h5perf_config_set_apis(cfg, H5PERF_API_POSIX), H5PERF_OK, "set_apis.posix");
    ct_check_rc(h5perf_config_set_align(cfg, 1), H5PERF_OK, "set_align.one");
    ct_check_rc(h5perf_config_set_iterations(cfg, 0), H5PERF_OK, "set_iterations.zero");
    ct_check_rc(h5perf_config_set_min_procs(cfg, 0), H5PERF_OK, "set_min_procs.zero");
    ct_check_rc(h5perf_config_set_debug(cfg, 0, 0, 0, 0), H5PERF_OK, "set_debug.zero");
    /* the refused values changed nothing: the configuration still runs as set */
    run_ok(cfg, "valid_after_einval", 16384);

    /* ---- h5perf_config_parse refusals --------------------------------------------- */
    {
        char a0[] = "h5perf", bad1[] = "-e", bad2[] = "12Q", help[] = "--help",
             ver[] = "--version", unk[] = "--no-such-option", api[] = "-A", apiv[] = "posix,foo";
        char *v1[] = {a0, bad1, bad2, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 3, v1), H5PERF_EINVAL, "parse.bad_size");
        ct_check(strstr(h5perf_last_error(), "12Q") != NULL || strstr(h5perf_last_error(), "Q"),
                 "parse.bad_size.message", "\"%s\"", h5perf_last_error());
        char *v2[] = {a0, help, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 2, v2), H5PERF_EINVAL, "parse.help");
        char *v3[] = {a0, ver, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 2, v3), H5PERF_EINVAL, "parse.version");
        char *v4[] = {a0, unk, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 2, v4), H5PERF_EINVAL, "parse.unknown_option");
        char *v5[] = {a0, api, apiv, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 3, v5), H5PERF_EINVAL, "parse.unknown_api");
        ct_check_rc(h5perf_config_parse(cfg, 2, NULL), H5PERF_EINVAL, "parse.null_argv");
        /* a negative argc is refused, not taken as an empty command line (issue 35) */
        ct_check_rc(h5perf_config_parse(cfg, -1, v5), H5PERF_EINVAL, "parse.negative_argc");
        ct_check(strstr(h5perf_last_error(), "argc < 0") != NULL, "parse.negative_argc.message",
                 "h5perf_last_error() = \"%s\"", h5perf_last_error());
        /* argc 1: no options, the defaults (the configuration is replaced) */
        char *v6[] = {a0, NULL};
        ct_check_rc(h5perf_config_parse(cfg, 1, v6), H5PERF_OK, "parse.no_options");
    }

    /* ---- NULL arguments ------------------------------------------------------------- */
    ct_check_rc(h5perf_config_set_num_bytes(NULL, 1024), H5PERF_EINVAL, "null.setter");
    ct_check_rc(h5perf_config_set_report(NULL, "-"), H5PERF_EINVAL, "null.set_report");
    char a0[] = "h5perf";
    char *v0[] = {a0, NULL};
    ct_check_rc(h5perf_config_parse(NULL, 1, v0), H5PERF_EINVAL, "null.parse");
    res = NULL;
    ct_check_rc(h5perf_run(NULL, MPI_COMM_WORLD, &res), H5PERF_EINVAL, "null.run_config");
    ct_check(res == NULL, "null.run_config.results_null", "results not NULL");
    ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, NULL), H5PERF_EINVAL, "null.run_results");
    /* MPI_COMM_NULL: an error, not MPI_Comm_dup's abort (issue 35) */
    res = (h5perf_results *)&cfg;
    ct_check_rc(h5perf_run(cfg, MPI_COMM_NULL, &res), H5PERF_EINVAL, "null.run_comm");
    ct_check(res == NULL, "null.run_comm.results_null", "results not NULL");
    ct_check(strstr(h5perf_last_error(), "MPI_COMM_NULL") != NULL, "null.run_comm.message",
             "h5perf_last_error() = \"%s\"", h5perf_last_error());
    ct_check(h5perf_results_count(NULL) == 0 && h5perf_results_get(NULL, 0) == NULL &&
                 h5perf_results_wrong_bytes(NULL) == 0,
             "null.results_accessors", "accessors on NULL results");
    h5perf_results_free(NULL);
    h5perf_config_free(NULL);
    ct_check(1, "null.free", "");

    h5perf_config_free(cfg);
    int status = ct_finish();
    MPI_Finalize();

    /* ---- after MPI_Finalize --------------------------------------------------------- */
    cfg = h5perf_config_new();
    res = (h5perf_results *)&cfg;
    int rc_after = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    h5perf_config_free(cfg);
    if (rc_after != H5PERF_EMPI || res != NULL) {
        printf("FAIL errors/after_finalize [rank %d/%d]: rc %d (expected %d), results %s\n",
               ct_rank, ct_size, rc_after, H5PERF_EMPI, res == NULL ? "NULL" : "not NULL");
        status = 1;
    } else {
        printf("PASS errors/after_finalize [rank %d/%d]\n", ct_rank, ct_size);
    }
    return status;
}
