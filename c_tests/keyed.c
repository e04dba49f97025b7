/*
 * keyed.c - h5perf_config_set, the keyed setter (run with 1 and 2 ranks):
 *   - options named as on the command line: the long name, an abbreviation, the short
 *     letter, with or without dashes; values as on the command line; the run gives the
 *     records of that configuration;
 *   - a storage option takes effect: --fsync set through it shows in the report's
 *     parameter block and in the JSON results, and "0" turns it off again;
 *   - acceptance options take effect: --expect (a criterion that holds is in the
 *     report's verdict; one that selects nothing makes h5perf_run refuse the run before
 *     any I/O, H5PERF_EPARAM) and --html (the page is written); --tolerance without
 *     --baseline is refused by h5perf_run with the command line's message;
 *   - refusals: an unknown option, a bad value and a missing value return
 *     H5PERF_EINVAL with exactly the message h5perf_config_parse gives for the same
 *     command line, and leave the configuration as it was; --help and --from (which
 *     configure no run) and NULL arguments are refused.
 */
#include "check.h"

/* 1 when the file (read by the caller, rank 0) contains needle, 0 when not, -1 when it
 * cannot be read. */
static int file_has(const char *file, const char *needle)
{
    static char buf[1 << 20];
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

/* Rank 0: file has (want = 1) or lacks (want = 0) needle. */
static void check_file(const char *file, const char *needle, int want, const char *name)
{
    if (ct_rank != 0)
        return;
    int got = file_has(file, needle);
    ct_check(got == want, name, "%s %s \"%s\" (file_has = %d)", file,
             want ? "lacks" : "contains", needle, got);
}

/* h5perf_config_set(cfg, option, value) must return H5PERF_EINVAL with the message that
 * h5perf_config_parse gives for the command line `h5perf <line>` (blank-separated). */
static void same_refusal(h5perf_config *cfg, const char *option, const char *value,
                         const char *line, const char *name)
{
    char n[96], keyed[512], parsed[512], words[256];
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)"h5perf";
    snprintf(words, sizeof words, "%s", line);
    for (char *t = strtok(words, " "); t != NULL && argc < 7; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;

    snprintf(n, sizeof n, "%s.rc", name);
    ct_check_rc(h5perf_config_set(cfg, option, value), H5PERF_EINVAL, n);
    snprintf(keyed, sizeof keyed, "%s", h5perf_last_error());
    h5perf_config *p = h5perf_config_new();
    int rc = h5perf_config_parse(p, argc, argv);
    snprintf(parsed, sizeof parsed, "%s", h5perf_last_error());
    h5perf_config_free(p);
    snprintf(n, sizeof n, "%s.message", name);
    ct_check(rc == H5PERF_EINVAL && strcmp(keyed, parsed) == 0 &&
                 strncmp(keyed, "h5perf: ", 8) == 0,
             n, "h5perf_config_set: \"%s\"; h5perf_config_parse(h5perf %s) = %d: \"%s\"", keyed,
             line, rc, parsed);
}

/* Run cfg; expect H5PERF_OK and the records of e. */
static void run_ok(const h5perf_config *cfg, const ct_expect *e, const char *name)
{
    char n[96];
    h5perf_results *res = NULL;
    snprintf(n, sizeof n, "%s.rc", name);
    ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, &res), H5PERF_OK, n);
    snprintf(n, sizeof n, "%s.records", name);
    ct_check_results(res, e, ct_rank, n);
    h5perf_results_free(res);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("keyed");

    /* ---- names and values as on the command line ------------------------------------ */
    h5perf_config *cfg = h5perf_config_new();
    ct_check_rc(h5perf_config_set(cfg, "api", "posix"), H5PERF_OK, "name.long");
    ct_check_rc(h5perf_config_set(cfg, "num-b", "16K"), H5PERF_OK, "name.abbreviation");
    ct_check_rc(h5perf_config_set(cfg, "x", "4K"), H5PERF_OK, "name.short_letter");
    ct_check_rc(h5perf_config_set(cfg, "-X", "8K"), H5PERF_OK, "name.short_with_dash");
    ct_check_rc(h5perf_config_set(cfg, "--block-size", "4K"), H5PERF_OK, "name.long_with_dashes");
    ct_check_rc(h5perf_config_set(cfg, "num-iterations", "2"), H5PERF_OK, "value.iterations");
    ct_expect e = {H5PERF_API_POSIX, 1, ct_size, 16384, 4096, 8192, 4096, 1, 1, 2, 0, 0};

    /* ---- a storage option and an acceptance option take effect ------------------------ */
    ct_check_rc(h5perf_config_set(cfg, "fsync", NULL), H5PERF_OK, "storage.fsync");
    ct_check_rc(h5perf_config_set(cfg, "output", "keyed_report.txt"), H5PERF_OK, "output.report");
    ct_check_rc(h5perf_config_set(cfg, "json", "keyed.json"), H5PERF_OK, "output.json");
    ct_check_rc(h5perf_config_set(cfg, "expect", "posix.write>=1B/s"), H5PERF_OK,
                "acceptance.expect");
    ct_check_rc(h5perf_config_set(cfg, "html", "keyed.html"), H5PERF_OK, "acceptance.html");
    run_ok(cfg, &e, "fsync_run");
    check_file("keyed_report.txt", "rank 0: Sync before close=on", 1, "storage.fsync.report");
    check_file("keyed.json", "\"fsync\":\"on\"", 1, "storage.fsync.json");
    check_file("keyed_report.txt", "Verdict: PASS (0 of 1 criterion failed)", 1,
               "acceptance.expect.verdict");
    check_file("keyed.html", "<!DOCTYPE html>", 1, "acceptance.html.page");

    /* a flag turned off with a boolean word */
    ct_check_rc(h5perf_config_set(cfg, "fsync", "0"), H5PERF_OK, "storage.fsync_off");
    run_ok(cfg, &e, "fsync_off_run");
    check_file("keyed_report.txt", "Sync before close", 0, "storage.fsync_off.report");
    check_file("keyed.json", "\"fsync\"", 0, "storage.fsync_off.json");

    /* a criterion that selects nothing: refused by h5perf_run before any I/O */
    ct_check_rc(h5perf_config_set(cfg, "expect", "posix.write>=1B/s@procs=99"), H5PERF_OK,
                "acceptance.expect_nothing");
    {
        h5perf_results *res = NULL;
        int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
        ct_check_rc(rc, H5PERF_EPARAM, "acceptance.expect_nothing.run");
        ct_check(strstr(h5perf_last_error(), "selects nothing in this run") != NULL && res == NULL,
                 "acceptance.expect_nothing.message", "\"%s\", results %s", h5perf_last_error(),
                 res == NULL ? "NULL" : "not NULL");
        h5perf_results_free(res);
    }
    /* a combination the command line refuses: refused by h5perf_run, the same message */
    h5perf_config_free(cfg);
    cfg = h5perf_config_new();
    ct_check_rc(h5perf_config_set(cfg, "tolerance", "5"), H5PERF_OK, "acceptance.tolerance");
    {
        h5perf_results *res = NULL;
        ct_check_rc(h5perf_run(cfg, MPI_COMM_WORLD, &res), H5PERF_EPARAM,
                    "acceptance.tolerance_without_baseline.run");
        ct_check(strcmp(h5perf_last_error(),
                        "h5perf: --tolerance applies only with --baseline (see h5perf --help)") == 0,
                 "acceptance.tolerance_without_baseline.message", "\"%s\"", h5perf_last_error());
        h5perf_results_free(res);
    }
    h5perf_config_free(cfg);

    /* ---- refusals: the command line's messages, the configuration unchanged ----------- */
    cfg = h5perf_config_new();
    ct_check_rc(h5perf_config_set(cfg, "A", "posix"), H5PERF_OK, "refusals.api");
    ct_check_rc(h5perf_config_set(cfg, "e", "16K"), H5PERF_OK, "refusals.num_bytes");
    same_refusal(cfg, "no-such-option", NULL, "--no-such-option", "unknown_option");
    same_refusal(cfg, "num-bytes", "12Q", "--num-bytes=12Q", "bad_value");
    same_refusal(cfg, "align", "0", "-a 0", "bad_value_align");
    same_refusal(cfg, "e", NULL, "-e", "missing_value");
    same_refusal(cfg, "reorder", "0", "--reorder=0", "bad_value_reorder");
    ct_check_rc(h5perf_config_set(cfg, "fsync", "maybe"), H5PERF_EINVAL, "bad_word.rc");
    ct_check(strcmp(h5perf_last_error(),
                    "h5perf: invalid value 'maybe' for --fsync: expected no value, or one of 1, "
                    "yes, true, on (turn on) or 0, no, false, off (turn off)") == 0,
             "bad_word.message", "\"%s\"", h5perf_last_error());
    ct_check_rc(h5perf_config_set(cfg, "help", NULL), H5PERF_EINVAL, "not_a_run.help");
    ct_check(strcmp(h5perf_last_error(), "h5perf: -h/--help does not configure a run") == 0,
             "not_a_run.help.message", "\"%s\"", h5perf_last_error());
    ct_check_rc(h5perf_config_set(cfg, "from", "old.csv"), H5PERF_EINVAL, "not_a_run.from");
    ct_check_rc(h5perf_config_set(NULL, "fsync", NULL), H5PERF_EINVAL, "null.config");
    ct_check_rc(h5perf_config_set(cfg, NULL, "1"), H5PERF_EINVAL, "null.option");
    /* nothing refused changed the configuration: the defaults of -e 16K, POSIX */
    ct_expect d = {H5PERF_API_POSIX, 1, ct_size, 16384, 8192, 16384, 8192, 1, 1, 1, 0, 0};
    run_ok(cfg, &d, "after_refusals");
    h5perf_config_free(cfg);

    int status = ct_finish();
    MPI_Finalize();
    return status;
}
