/*
 * results.c - per-rank samples and run metadata through h5perf_results (issue 14),
 * run with 2 and 3 ranks:
 *   - the new setters: --json, --rank-csv, --summary, --progress (NULL and "" cases);
 *   - h5perf_results_spread: on rank 0 the slowest rank's time equals the phase's
 *     max_time and is the largest per-rank sample; its host is h5perf_results_rank_host
 *     of that rank; GB/s agrees with MiB/s; other ranks get known = 0;
 *   - h5perf_results_rank_time: one sample per (record, iteration, phase, rank) on
 *     rank 0, H5PERF_EINVAL out of range and on the other ranks;
 *   - h5perf_results_meta: complete, fs_type, command_line, world_size, hosts; NULL for
 *     an unknown key;
 *   - the results files written by rank 0 (complete JSON, rank CSV row count), nothing
 *     on stdout without a report;
 *   - h5perf_results_latency (--latency, issue 31): on every rank, per record and phase,
 *     as many calls as transfers, min <= p50 <= p90 <= p99 <= p99.9 <= max, within
 *     the phase's time, the max's host that of its rank; H5PERF_EINVAL out of range;
 *   - h5perf_results_file_latency (--latency with --fsync): per record, direction and
 *     call (open, sync, close) one call per rank and iteration (no sync of a read),
 *     ordered figures, the max's host that of its rank; H5PERF_EINVAL for an unknown
 *     call or phase;
 *   - h5perf_results_timeseries (--timeseries=1ms): on rank 0 one entry per iteration
 *     and direction, every rank's samples summing to its share of the bytes and all of
 *     them to the record's bytes; nothing on the other ranks; H5PERF_EINVAL out of range.
 */
#include "check.h"

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        if (c == '\n')
            n++;
    fclose(f);
    return n;
}

static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

/* --latency's file calls and --timeseries' samples of record i (r) of res on rank
 * `rank`; the first failure's reason in why. 1 when all is well. */
static int file_calls_and_series_ok(const h5perf_results *res, size_t i, const h5perf_record *r,
                                    int rank, char *why, size_t n)
{
    const h5perf_phase *oc[6] = {&r->write_open_close, &r->write_open_close,
                                 &r->write_open_close, &r->read_open_close,
                                 &r->read_open_close,  &r->read_open_close};
    for (int p = 0; p < 6; p++)
        for (int c = H5PERF_CALL_OPEN; c <= H5PERF_CALL_CLOSE; c++) {
            h5perf_latency l;
            if (h5perf_results_file_latency(res, i, p, c, &l) != H5PERF_OK) {
                snprintf(why, n, "record %zu phase %d call %d: %s", i, p, c, h5perf_last_error());
                return 0;
            }
            uint64_t want = (uint64_t)r->iterations * (uint64_t)r->nprocs;
            if (p >= H5PERF_PHASE_RAW_READ && c == H5PERF_CALL_SYNC) {
                /* --fsync syncs the written files only */
                if (l.calls != 0 || l.min != 0 || l.max != 0 || !l.max_host || *l.max_host) {
                    snprintf(why, n, "record %zu phase %d: %llu read syncs", i, p,
                             (unsigned long long)l.calls);
                    return 0;
                }
                continue;
            }
            const char *h = h5perf_results_rank_host(res, l.max_rank);
            if (l.calls != want ||
                !(0 < l.min && l.min <= l.p50 && l.p50 <= l.p90 && l.p90 <= l.p99 &&
                  l.p99 <= l.p999 && l.p999 <= l.max) ||
                l.max > oc[p]->max_time * 1.01 || !h || !l.max_host || strcmp(h, l.max_host) != 0) {
                snprintf(why, n,
                         "record %zu phase %d call %d: %llu calls (want %llu), min %g p50 %g "
                         "max %g (open-close %g s), rank %d host \"%s\"",
                         i, p, c, (unsigned long long)l.calls, (unsigned long long)want, l.min,
                         l.p50, l.max, oc[p]->max_time, l.max_rank,
                         l.max_host ? l.max_host : "(null)");
                return 0;
            }
        }
    size_t k = h5perf_results_timeseries_count(res, i);
    h5perf_timeseries t;
    if (rank != 0) {
        if (k != 0 || h5perf_results_timeseries(res, i, 0, &t) != H5PERF_EINVAL) {
            snprintf(why, n, "rank %d has %zu phases of samples", rank, k);
            return 0;
        }
        return 1;
    }
    if (k != 2 * (size_t)r->iterations) {
        snprintf(why, n, "record %zu: %zu phases of samples, want %d", i, k, 2 * r->iterations);
        return 0;
    }
    int seen[2] = {0, 0};
    for (size_t j = 0; j < k; j++) {
        if (h5perf_results_timeseries(res, i, j, &t) != H5PERF_OK) {
            snprintf(why, n, "record %zu phase %zu: %s", i, j, h5perf_last_error());
            return 0;
        }
        if (t.nranks != r->nprocs || t.intervals < 1 || !t.bytes || t.file != 1 ||
            t.iteration < 0 || t.iteration >= r->iterations || t.interval < 0.001 ||
            (t.phase != H5PERF_PHASE_RAW_WRITE && t.phase != H5PERF_PHASE_RAW_READ)) {
            snprintf(why, n, "record %zu phase %zu: %d ranks, %zu intervals, file %llu, "
                     "iteration %d, interval %g, phase %d", i, j, t.nranks, t.intervals,
                     (unsigned long long)t.file, t.iteration, t.interval, t.phase);
            return 0;
        }
        seen[t.phase == H5PERF_PHASE_RAW_READ]++;
        uint64_t all = 0;
        for (int q = 0; q < t.nranks; q++) {
            uint64_t mine = 0;
            for (size_t v = 0; v < t.intervals; v++)
                mine += t.bytes[(size_t)q * t.intervals + v];
            if (mine != r->bytes / (uint64_t)r->nprocs) {
                snprintf(why, n, "record %zu phase %zu rank %d: %llu bytes, want %llu", i, j, q,
                         (unsigned long long)mine,
                         (unsigned long long)(r->bytes / (uint64_t)r->nprocs));
                return 0;
            }
            all += mine;
        }
        if (all != r->bytes) {
            snprintf(why, n, "record %zu phase %zu: %llu bytes, want %llu", i, j,
                     (unsigned long long)all, (unsigned long long)r->bytes);
            return 0;
        }
    }
    if (seen[0] != r->iterations || seen[1] != r->iterations ||
        h5perf_results_timeseries(res, i, k, &t) != H5PERF_EINVAL ||
        h5perf_results_timeseries(res, i, 0, NULL) != H5PERF_EINVAL) {
        snprintf(why, n, "record %zu: %d write and %d read phases, or out of range accepted", i,
                 seen[0], seen[1]);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("results");
    int size = ct_size, rank = ct_rank;

    h5perf_config *cfg = h5perf_config_new();
    ct_check(cfg != NULL, "config_new", "NULL");
    ct_check_rc(h5perf_config_set_json(cfg, ""), H5PERF_EINVAL, "set_json.empty");
    ct_check_rc(h5perf_config_set_rank_csv(cfg, ""), H5PERF_EINVAL, "set_rank_csv.empty");
    ct_check_rc(h5perf_config_set_csv(cfg, NULL), H5PERF_OK, "set_csv.null");
    ct_check_rc(h5perf_config_set_json(cfg, "r.json"), H5PERF_OK, "set_json");
    ct_check_rc(h5perf_config_set_rank_csv(cfg, "ranks.csv"), H5PERF_OK, "set_rank_csv");
    ct_check_rc(h5perf_config_set_summary(cfg, 1), H5PERF_OK, "set_summary");
    ct_check_rc(h5perf_config_set_progress(cfg, 0), H5PERF_OK, "set_progress");
    ct_check_rc(h5perf_config_set_apis(cfg, H5PERF_API_POSIX | H5PERF_API_MPIIO), H5PERF_OK,
                "set_apis");
    ct_check_rc(h5perf_config_set_num_bytes(cfg, 65536), H5PERF_OK, "set_num_bytes");
    ct_check_rc(h5perf_config_set_min_xfer_size(cfg, 32768), H5PERF_OK, "set_min_xfer");
    ct_check_rc(h5perf_config_set_block_size(cfg, 32768), H5PERF_OK, "set_block");
    ct_check_rc(h5perf_config_set_iterations(cfg, 3), H5PERF_OK, "set_iterations");
    ct_check_rc(h5perf_config_set(cfg, "latency", NULL), H5PERF_OK, "set.latency");
    ct_check_rc(h5perf_config_set(cfg, "fsync", NULL), H5PERF_OK, "set.fsync");
    ct_check_rc(h5perf_config_set(cfg, "timeseries", "1ms"), H5PERF_OK, "set.timeseries");

    h5perf_results *res = NULL;
    char path[64], head[256];
    int saved = ct_capture_begin(path, sizeof path);
    int rc = h5perf_run(cfg, MPI_COMM_WORLD, &res);
    long out = ct_capture_end(saved, path, head, sizeof head);
    ct_check_rc(rc, H5PERF_OK, "run.rc");
    ct_check(out == 0, "run.no_stdout", "%ld bytes on stdout without a report: \"%.80s\"", out,
             head);

    size_t n = h5perf_results_count(res);
    long want_rows = 1;
    int spread_ok = 1, samples_ok = 1, hosts_ok = 1, latency_ok = 1, calls_ok = 1;
    char why[512] = "", lwhy[512] = "", cwhy[512] = "";
    for (size_t i = 0; i < n; i++) {
        const h5perf_record *r = h5perf_results_get(res, i);
        if (calls_ok)
            calls_ok = file_calls_and_series_ok(res, i, r, rank, cwhy, sizeof cwhy);
        const h5perf_phase *ph[6] = {&r->raw_write, &r->write, &r->write_open_close,
                                     &r->raw_read, &r->read, &r->read_open_close};
        want_rows += (long)r->iterations * 6 * r->nprocs;
        for (int p = 0; p < 6; p++) {
            h5perf_latency l;
            if (h5perf_results_latency(res, i, p, &l) != H5PERF_OK) {
                latency_ok = 0;
                snprintf(lwhy, sizeof lwhy, "record %zu phase %d: %s", i, p, h5perf_last_error());
            } else {
                uint64_t want = (uint64_t)r->iterations * (uint64_t)r->nprocs * (65536 / r->xfer_size);
                const char *h = h5perf_results_rank_host(res, l.max_rank);
                if (l.calls != want || !(0 < l.min && l.min <= l.p50 && l.p50 <= l.p90 &&
                                         l.p90 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max) ||
                    l.max > ph[p]->max_time * 1.01 || !h || !l.max_host ||
                    strcmp(h, l.max_host) != 0) {
                    latency_ok = 0;
                    snprintf(lwhy, sizeof lwhy,
                             "record %zu phase %d: %llu calls (want %llu), min %g p50 %g p90 %g "
                             "p99 %g p99.9 %g max %g (phase %g s), rank %d host \"%s\"",
                             i, p, (unsigned long long)l.calls, (unsigned long long)want, l.min,
                             l.p50, l.p90, l.p99, l.p999, l.max, ph[p]->max_time, l.max_rank,
                             l.max_host ? l.max_host : "(null)");
                }
            }
            h5perf_spread s;
            if (h5perf_results_spread(res, i, p, &s) != H5PERF_OK) {
                spread_ok = 0;
                snprintf(why, sizeof why, "record %zu phase %d: %s", i, p, h5perf_last_error());
                continue;
            }
            double gb = ph[p]->max_mibps * 1048576.0 / 1e9;
            if (fabs(s.max_gbps - gb) > 1e-9 * (gb + 1)) {
                spread_ok = 0;
                snprintf(why, sizeof why, "record %zu phase %d: %g GB/s vs %g MiB/s", i, p,
                         s.max_gbps, ph[p]->max_mibps);
            }
            if (s.std_time < 0 || s.std_mibps < 0) {
                spread_ok = 0;
                snprintf(why, sizeof why, "negative standard deviation");
            }
            if (rank != 0) {
                double t;
                if (s.known != 0 ||
                    h5perf_results_rank_time(res, i, 0, p, 0, &t) != H5PERF_EINVAL) {
                    samples_ok = 0;
                    snprintf(why, sizeof why, "rank %d has per-rank detail", rank);
                }
                continue;
            }
            if (!s.known || s.slowest_time != ph[p]->max_time) {
                spread_ok = 0;
                snprintf(why, sizeof why, "record %zu phase %d: known %d, slowest %.9g, max %.9g",
                         i, p, s.known, s.slowest_time, ph[p]->max_time);
            }
            double mx = -1;
            int at = -1;
            for (int it = 0; it < r->iterations; it++)
                for (int k = 0; k < r->nprocs; k++) {
                    double t = -1;
                    if (h5perf_results_rank_time(res, i, it, p, k, &t) != H5PERF_OK || t < 0) {
                        samples_ok = 0;
                        snprintf(why, sizeof why, "no sample %zu/%d/%d/%d", i, it, p, k);
                    }
                    if (t > mx) {
                        mx = t;
                        at = k;
                    }
                }
            double t;
            if (h5perf_results_rank_time(res, i, r->iterations, p, 0, &t) != H5PERF_EINVAL ||
                h5perf_results_rank_time(res, i, 0, p, r->nprocs, &t) != H5PERF_EINVAL ||
                h5perf_results_rank_time(res, i, 0, 6, 0, &t) != H5PERF_EINVAL) {
                samples_ok = 0;
                snprintf(why, sizeof why, "a sample out of range was returned");
            }
            if (mx != ph[p]->max_time || at != s.slowest_rank) {
                samples_ok = 0;
                snprintf(why, sizeof why,
                         "record %zu phase %d: largest sample %.9g at rank %d, max_time %.9g, "
                         "slowest rank %d",
                         i, p, mx, at, ph[p]->max_time, s.slowest_rank);
            }
            const char *h = h5perf_results_rank_host(res, s.slowest_rank);
            if (!h || !s.slowest_host || strcmp(h, s.slowest_host) != 0 || !*h) {
                hosts_ok = 0;
                snprintf(why, sizeof why, "slowest host \"%s\" vs rank host \"%s\"",
                         s.slowest_host ? s.slowest_host : "(null)", h ? h : "(null)");
            }
        }
    }
    ct_check(n > 0, "records", "no records");
    ct_check(spread_ok, "spread", "%s", why);
    ct_check(samples_ok, "rank_time", "%s", why);
    ct_check(hosts_ok, "hosts", "%s", why);
    ct_check(latency_ok, "latency", "%s", lwhy);
    h5perf_latency l;
    ct_check_rc(h5perf_results_latency(res, n, 0, &l), H5PERF_EINVAL, "latency.out_of_range");
    ct_check_rc(h5perf_results_latency(res, 0, 6, &l), H5PERF_EINVAL, "latency.bad_phase");
    ct_check_rc(h5perf_results_latency(res, 0, 0, NULL), H5PERF_EINVAL, "latency.null");
    ct_check(calls_ok, "file_latency_and_timeseries", "%s", cwhy);
    ct_check_rc(h5perf_results_file_latency(res, 0, 0, 3, &l), H5PERF_EINVAL,
                "file_latency.bad_call");
    ct_check_rc(h5perf_results_file_latency(res, 0, 6, 0, &l), H5PERF_EINVAL,
                "file_latency.bad_phase");
    ct_check_rc(h5perf_results_file_latency(res, n, 0, 0, &l), H5PERF_EINVAL,
                "file_latency.out_of_range");
    ct_check_rc(h5perf_results_file_latency(res, 0, 0, 0, NULL), H5PERF_EINVAL,
                "file_latency.null");
    ct_check(h5perf_results_timeseries_count(res, n) == 0 &&
                 h5perf_results_timeseries_count(NULL, 0) == 0,
             "timeseries_count.out_of_range", "not 0");
    h5perf_spread s;
    ct_check_rc(h5perf_results_spread(res, n, 0, &s), H5PERF_EINVAL, "spread.out_of_range");
    ct_check_rc(h5perf_results_spread(res, 0, 6, &s), H5PERF_EINVAL, "spread.bad_phase");
    ct_check_rc(h5perf_results_spread(res, 0, 0, NULL), H5PERF_EINVAL, "spread.null");

    const char *complete = h5perf_results_meta(res, "complete");
    ct_check(complete && strcmp(complete, "true") == 0, "meta.complete", "\"%s\"",
             complete ? complete : "(null)");
    const char *fs = h5perf_results_meta(res, "fs_type");
    ct_check(fs && *fs, "meta.fs_type", "empty");
    const char *cl = h5perf_results_meta(res, "command_line");
    /* "(library)" and each accepted setting as the C program gave it, refusals left out */
    ct_check(cl && strncmp(cl, "(library) 'h5perf_config_set_csv(NULL)' ", 40) == 0 &&
                 strstr(cl, " 'h5perf_config_set_json(\"r.json\")' ") != NULL &&
                 strstr(cl, "set_json(\"\")") == NULL &&
                 strstr(cl, " 'h5perf_config_set_iterations(3)'") != NULL,
             "meta.command_line", "\"%s\"", cl ? cl : "(null)");
    const char *ws = h5perf_results_meta(res, "world_size");
    ct_check(ws && atoi(ws) == size, "meta.world_size", "\"%s\"", ws ? ws : "(null)");
    const char *hosts = h5perf_results_meta(res, "hosts");
    ct_check(hosts && strstr(hosts, ":") != NULL, "meta.hosts", "\"%s\"", hosts ? hosts : "(null)");
    const char *dd = h5perf_results_meta(res, "data_dir");
    ct_check(dd && dd[0] == '/', "meta.data_dir", "\"%s\"", dd ? dd : "(null)");
    ct_check(h5perf_results_meta(res, "no_such_key") == NULL, "meta.unknown", "not NULL");
    ct_check(h5perf_results_meta(res, NULL) == NULL, "meta.null_key", "not NULL");
    ct_check(h5perf_results_rank_host(res, size) == NULL, "rank_host.out_of_range", "not NULL");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        ct_check(file_contains("r.json", "\"complete\": true"), "json.complete",
                 "r.json lacks \"complete\": true");
        long rows = count_lines("ranks.csv");
        ct_check(rows == want_rows, "rank_csv.rows", "%ld lines, expected %ld", rows, want_rows);
        unlink("r.json");
        unlink("ranks.csv");
    }
    h5perf_results_free(res);
    h5perf_config_free(cfg);

    int status = ct_finish();
    MPI_Finalize();
    return status;
}
