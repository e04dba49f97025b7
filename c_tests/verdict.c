/*
 * verdict.c - the verdict through the C API (run with 1 and 2 ranks):
 *   - storage and acceptance options set through the keyed setter h5perf_config_set
 *     (--fsync, --expect) reach the run;
 *   - a failed criterion: h5perf_run returns H5PERF_EVERDICT (not H5PERF_EIO) with the
 *     results, h5perf_results_verdict says H5PERF_VERDICT_FAIL on every rank, rank 0
 *     has the failed criterion as given and the table the program prints; the program
 *     (h5perf_main) with the same options exits with status 3;
 *   - criteria that hold: H5PERF_OK and H5PERF_VERDICT_PASS; the program exits 0; no
 *     criterion: H5PERF_VERDICT_NONE;
 *   - the command line the results record is the C program's: "(library)" and each
 *     setting as given, or the argv given to h5perf_config_parse.
 */
#include "check.h"

/* The options of the runs below, as a command line (argv[0] first). */
static char *common_argv[] = {(char *)"verdict", (char *)"-A", (char *)"posix", (char *)"-e",
                              (char *)"16K", (char *)"-x", (char *)"8K", (char *)"-i",
                              (char *)"2", (char *)"--fsync", NULL};
#define COMMON_ARGC 10

/* cfg from the keyed setter: the options of common_argv, then criterion `expect`. */
static h5perf_config *keyed_config(const char *expect)
{
    h5perf_config *cfg = h5perf_config_new();
    ct_check_rc(h5perf_config_set(cfg, "A", "posix"), H5PERF_OK, "keyed.api");
    ct_check_rc(h5perf_config_set(cfg, "e", "16K"), H5PERF_OK, "keyed.num_bytes");
    ct_check_rc(h5perf_config_set(cfg, "x", "8K"), H5PERF_OK, "keyed.min_xfer");
    ct_check_rc(h5perf_config_set(cfg, "i", "2"), H5PERF_OK, "keyed.iterations");
    ct_check_rc(h5perf_config_set(cfg, "fsync", NULL), H5PERF_OK, "keyed.storage.fsync");
    ct_check_rc(h5perf_config_set(cfg, "expect", "posix.write>=1B/s"), H5PERF_OK,
                "keyed.expect_pass");
    if (expect != NULL)
        ct_check_rc(h5perf_config_set(cfg, "expect", expect), H5PERF_OK, "keyed.expect");
    return cfg;
}

/* h5perf_main with common_argv, "--expect", "posix.write>=1B/s" and `expect`. */
static int program(const char *expect)
{
    char *argv[COMMON_ARGC + 6];
    int argc = 0;
    for (; argc < COMMON_ARGC; argc++)
        argv[argc] = common_argv[argc];
    argv[argc++] = (char *)"--expect";
    argv[argc++] = (char *)"posix.write>=1B/s";
    if (expect != NULL) {
        argv[argc++] = (char *)"--expect";
        argv[argc++] = (char *)expect;
    }
    argv[argc] = NULL;
    /* its report and verdict table go to a file: a "FAIL" row must not read as a check */
    char path[64], head[256];
    int saved = ct_capture_begin(path, sizeof path);
    int rc = h5perf_main(argc, argv);
    ct_capture_end(saved, path, head, sizeof head);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("verdict");
    const char *bad = "posix.read>=1000TB/s";

    /* ---- a failed criterion ------------------------------------------------------------ */
    h5perf_config *cfg = keyed_config(bad);
    h5perf_results *res = NULL;
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    ct_check_rc(rc, H5PERF_EVERDICT, "fail.rc");
    ct_check(H5PERF_EVERDICT != H5PERF_EIO, "fail.rc_not_eio", "shared with H5PERF_EIO");
    /* rank 0 has the summary; the others know the verdict */
    ct_check(strcmp(h5perf_last_error(), ct_rank == 0
                                             ? "h5perf: verdict FAIL: 1 of 2 criteria failed"
                                             : "h5perf: verdict FAIL") == 0,
             "fail.message", "\"%s\"", h5perf_last_error());
    ct_check(res != NULL && h5perf_results_count(res) > 0, "fail.results", "no results");
    ct_check(h5perf_results_verdict(res) == H5PERF_VERDICT_FAIL, "fail.verdict", "%d",
             h5perf_results_verdict(res));
    const char *cl = h5perf_results_meta(res, "command_line");
    const char *want_cl = "(library) -A posix -e 16K -x 8K -i 2 --fsync --expect "
                          "'posix.write>=1B/s' --expect 'posix.read>=1000TB/s'";
    ct_check(cl != NULL && strcmp(cl, want_cl) == 0, "fail.command_line", "\"%s\"",
             cl ? cl : "(null)");
    if (ct_rank == 0) {
        ct_check(h5perf_results_failed_count(res) == 1, "fail.failed_count", "%zu",
                 h5perf_results_failed_count(res));
        const char *f = h5perf_results_failed(res, 0);
        ct_check(f != NULL && strcmp(f, bad) == 0, "fail.failed_check", "\"%s\"",
                 f ? f : "(null)");
        ct_check(h5perf_results_failed(res, 1) == NULL, "fail.failed_out_of_range", "not NULL");
        const char *t = h5perf_results_verdict_text(res);
        ct_check(t != NULL && strstr(t, "Verdict: FAIL (1 of 2 criteria failed)\n") != NULL &&
                     strstr(t, "\nFAIL    posix.read>=1000TB/s ") != NULL,
                 "fail.table", "\"%s\"", t ? t : "(null)");
    }
    h5perf_results_free(res);
    h5perf_config_free(cfg);
    rc = program(bad);
    ct_check(rc == 3, "fail.program_exit_status", "h5perf_main returned %d", rc);

    /* ---- criteria that hold --------------------------------------------------------------- */
    cfg = keyed_config(NULL);
    res = NULL;
    ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, &res), H5PERF_OK, "pass.rc");
    ct_check(h5perf_results_verdict(res) == H5PERF_VERDICT_PASS, "pass.verdict", "%d",
             h5perf_results_verdict(res));
    ct_check(h5perf_results_failed_count(res) == 0, "pass.failed_count", "%zu",
             h5perf_results_failed_count(res));
    h5perf_results_free(res);
    h5perf_config_free(cfg);
    rc = program(NULL);
    ct_check(rc == 0, "pass.program_exit_status", "h5perf_main returned %d", rc);

    /* ---- no criterion; the command line of h5perf_config_parse ----------------------------- */
    cfg = h5perf_config_new();
    ct_check_rc(h5perf_config_parse(cfg, COMMON_ARGC, common_argv), H5PERF_OK, "none.parse");
    ct_check_rc(h5perf_config_set_num_files(cfg, 1), H5PERF_OK, "none.typed_setter");
    res = NULL;
    ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, &res), H5PERF_OK, "none.rc");
    ct_check(h5perf_results_verdict(res) == H5PERF_VERDICT_NONE, "none.verdict", "%d",
             h5perf_results_verdict(res));
    const char *t = h5perf_results_verdict_text(res);
    ct_check(t != NULL && *t == '\0', "none.table", "\"%s\"", t ? t : "(null)");
    cl = h5perf_results_meta(res, "command_line");
    ct_check(cl != NULL &&
                 strcmp(cl, "verdict -A posix -e 16K -x 8K -i 2 --fsync "
                            "'h5perf_config_set_num_files(1)'") == 0,
             "none.command_line", "\"%s\"", cl ? cl : "(null)");
    ct_check(h5perf_results_verdict(NULL) == -1, "null.verdict", "not -1");
    ct_check(h5perf_results_verdict_text(NULL) == NULL, "null.table", "not NULL");
    h5perf_results_free(res);
    h5perf_config_free(cfg);

    int status = ct_finish();
    MPI_Finalize();
    return status;
}
