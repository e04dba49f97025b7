/*
 * check.h - helpers shared by the C tests of libh5perf (the .c files in c_tests/).
 *
 * Every check prints one line on stdout:
 *     PASS <name> [rank R/N]
 *     FAIL <name> [rank R/N]: <why>
 * and ct_finish() makes every rank exit non-zero when any rank failed a check, so that
 * the launcher's exit status is the verdict. The checks never change the control flow
 * of the collective calls: a failed check on one rank cannot make the ranks diverge.
 *
 * Include this file first (it sets the POSIX feature macro for -std=c99).
 */
#ifndef H5PERF_CTEST_CHECK_H
#define H5PERF_CTEST_CHECK_H

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <h5perf.h>

static int ct_rank = 0;
static int ct_size = 1;
static int ct_passed = 0;
static int ct_failed = 0;
static const char *ct_prog = "c-test";

/* After MPI_Init: remember the world rank and size for the messages. */
static inline void ct_init(const char *prog)
{
    ct_prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &ct_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ct_size);
}

/* One check: ok != 0 passes; otherwise fmt... says why. Returns ok. */
static inline int ct_check(int ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        ct_passed++;
        printf("PASS %s/%s [rank %d/%d]\n", ct_prog, name, ct_rank, ct_size);
    } else {
        char why[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        ct_failed++;
        printf("FAIL %s/%s [rank %d/%d]: %s\n", ct_prog, name, ct_rank, ct_size, why);
    }
    fflush(stdout);
    return ok;
}

/* Check a return code against the expected one, naming the code and the library's
 * message on failure. */
static inline int ct_check_rc(int rc, int want, const char *name)
{
    return ct_check(rc == want, name, "return code %d, expected %d (h5perf_last_error: \"%s\")",
                    rc, want, h5perf_last_error());
}

/* Collective over MPI_COMM_WORLD: the number of failed checks on all ranks. Rank 0
 * prints the summary; returns the exit status for main(). Call before MPI_Finalize. */
static inline int ct_finish(void)
{
    int mine = ct_failed, all = 0, passed = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&ct_passed, &passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (ct_rank == 0) {
        printf("%s (%d ranks): %d passed, %d failed\n", ct_prog, ct_size, passed, all);
        fflush(stdout);
    }
    return all == 0 ? 0 : 1;
}

/* ---- expected record lists ------------------------------------------------------ */

/* What a configuration should produce, in the order of the run: for P, P/2, ... >= p
 * processes, for x, 2x, ... <= X bytes, for each selected API (posix, mpiio, phdf5). */
typedef struct ct_expect {
    unsigned apis;      /* H5PERF_API_* mask (0 = all) */
    int min_procs;      /* p */
    int max_procs;      /* P */
    uint64_t bpp;       /* -e, resolved */
    uint64_t xmin, xmax;/* -x, -X, resolved */
    uint64_t block;     /* -B, resolved */
    uint64_t dsets, files;
    int iterations;
    int dim2d;
    int write_only;
} ct_expect;

static inline int ct_api_count(unsigned apis)
{
    if (apis == 0)
        apis = 7;
    return !!(apis & H5PERF_API_POSIX) + !!(apis & H5PERF_API_MPIIO) + !!(apis & H5PERF_API_PHDF5);
}

/* Number of records the calling process should get: the steps with more processes
 * than its rank in the communicator (rank 0 gets them all). */
static inline size_t ct_expected_count(const ct_expect *e, int comm_rank)
{
    size_t n = 0;
    for (int np = e->max_procs; np >= e->min_procs && np >= 1; np /= 2) {
        if (np <= comm_rank)
            continue;
        for (uint64_t x = e->xmin; x <= e->xmax; x *= 2)
            n += (size_t)ct_api_count(e->apis);
    }
    return n;
}

static inline int ct_close(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-9 * m + 1e-12;
}

/* Checks one phase: times ordered, throughputs ordered and equal to bytes/time. */
static inline int ct_phase_ok(const h5perf_phase *p, uint64_t bytes, const char *what, char *why,
                              size_t n)
{
    const double mib = 1048576.0;
    if (!(p->min_time >= 0 && p->min_time <= p->avg_time * (1 + 1e-12) &&
          p->avg_time <= p->max_time * (1 + 1e-12))) {
        snprintf(why, n, "%s: times not ordered: min %g avg %g max %g", what, p->min_time,
                 p->avg_time, p->max_time);
        return 0;
    }
    if (!(p->max_mibps >= p->avg_mibps * (1 - 1e-12) &&
          p->avg_mibps >= p->min_mibps * (1 - 1e-12) && p->min_mibps >= 0)) {
        snprintf(why, n, "%s: throughputs not ordered: max %g avg %g min %g", what, p->max_mibps,
                 p->avg_mibps, p->min_mibps);
        return 0;
    }
    if ((p->min_time > 0 && !ct_close(p->max_mibps, (double)bytes / p->min_time / mib)) ||
        (p->avg_time > 0 && !ct_close(p->avg_mibps, (double)bytes / p->avg_time / mib)) ||
        (p->max_time > 0 && !ct_close(p->min_mibps, (double)bytes / p->max_time / mib))) {
        snprintf(why, n,
                 "%s: throughputs are not bytes/time: %llu bytes, times %g/%g/%g, MiB/s %g/%g/%g",
                 what, (unsigned long long)bytes, p->min_time, p->avg_time, p->max_time,
                 p->max_mibps, p->avg_mibps, p->min_mibps);
        return 0;
    }
    return 1;
}

static inline int ct_phase_zero(const h5perf_phase *p)
{
    return p->min_time == 0 && p->avg_time == 0 && p->max_time == 0 && p->max_mibps == 0 &&
           p->avg_mibps == 0 && p->min_mibps == 0;
}

static inline int ct_triple_ok(const double t[3])
{
    return t[0] >= 0 && t[0] <= t[1] * (1 + 1e-12) && t[1] <= t[2] * (1 + 1e-12);
}

/* Checks one record against the expectation; fills why on failure. */
static inline int ct_record_ok(const h5perf_record *r, const ct_expect *e, int np, uint64_t x,
                               unsigned api, char *why, size_t n)
{
    uint64_t side = e->bpp * (uint64_t)np; /* 2D: the dataset is side x side bytes */
    uint64_t want_bytes = e->dim2d ? e->files * e->dsets * side * side
                                   : (uint64_t)np * e->bpp * e->dsets * e->files;
    uint64_t want_buf = e->dim2d ? x * e->block : x;
    if (r->nprocs != np || r->api != api || r->xfer_size != x) {
        snprintf(why, n, "record is (np %d, api %u, xfer %llu), expected (np %d, api %u, xfer %llu)",
                 r->nprocs, r->api, (unsigned long long)r->xfer_size, np, api,
                 (unsigned long long)x);
        return 0;
    }
    if (r->bytes != want_bytes) {
        snprintf(why, n, "np %d api %u xfer %llu: bytes %llu, expected %llu", np, api,
                 (unsigned long long)x, (unsigned long long)r->bytes,
                 (unsigned long long)want_bytes);
        return 0;
    }
    if (r->buf_bytes != want_buf) {
        snprintf(why, n, "np %d api %u xfer %llu: buf_bytes %llu, expected %llu", np, api,
                 (unsigned long long)x, (unsigned long long)r->buf_bytes,
                 (unsigned long long)want_buf);
        return 0;
    }
    if (r->iterations != (e->iterations < 1 ? 1 : e->iterations)) {
        snprintf(why, n, "np %d api %u xfer %llu: iterations %d, expected %d", np, api,
                 (unsigned long long)x, r->iterations, e->iterations);
        return 0;
    }
    if (!!r->has_read == !!e->write_only) {
        snprintf(why, n, "np %d api %u: has_read %d with write_only %d", np, api, r->has_read,
                 e->write_only);
        return 0;
    }
    char what[64];
    const h5perf_phase *wp[3] = {&r->raw_write, &r->write, &r->write_open_close};
    const char *wn[3] = {"raw_write", "write", "write_open_close"};
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "np %d api %u xfer %llu %s", np, api, (unsigned long long)x,
                 wn[i]);
        if (!ct_phase_ok(wp[i], r->bytes, what, why, n))
            return 0;
        if (!(wp[i]->min_time > 0 && wp[i]->max_mibps > 0 && wp[i]->min_mibps > 0)) {
            snprintf(why, n, "%s: zero time or throughput (time %g, MiB/s %g)", what,
                     wp[i]->min_time, wp[i]->min_mibps);
            return 0;
        }
    }
    /* the phases nest: raw data inside write inside open..close */
    if (!(r->raw_write.min_time <= r->write.min_time * (1 + 1e-9) &&
          r->write.max_time <= r->write_open_close.max_time * (1 + 1e-9))) {
        snprintf(why, n, "np %d api %u: write phases do not nest: raw %g write %g/%g open-close %g",
                 np, api, r->raw_write.min_time, r->write.min_time, r->write.max_time,
                 r->write_open_close.max_time);
        return 0;
    }
    const h5perf_phase *rp[3] = {&r->raw_read, &r->read, &r->read_open_close};
    const char *rn[3] = {"raw_read", "read", "read_open_close"};
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "np %d api %u xfer %llu %s", np, api, (unsigned long long)x,
                 rn[i]);
        if (e->write_only) {
            if (!ct_phase_zero(rp[i])) {
                snprintf(why, n, "%s: not zero in a write-only run", what);
                return 0;
            }
            continue;
        }
        if (!ct_phase_ok(rp[i], r->bytes, what, why, n))
            return 0;
        if (!(rp[i]->min_time > 0 && rp[i]->max_mibps > 0)) {
            snprintf(why, n, "%s: zero time or throughput", what);
            return 0;
        }
    }
    if (!ct_triple_ok(r->write_open) || !ct_triple_ok(r->write_close) ||
        (!e->write_only && (!ct_triple_ok(r->read_open) || !ct_triple_ok(r->read_close)))) {
        snprintf(why, n, "np %d api %u: open/close times not ordered min <= avg <= max", np, api);
        return 0;
    }
    if (e->write_only && (r->read_open[2] != 0 || r->read_close[2] != 0)) {
        snprintf(why, n, "np %d api %u: read open/close times in a write-only run", np, api);
        return 0;
    }
    return 1;
}

/* Checks a whole result list (count, order, every record) as seen by the process with
 * rank comm_rank in the communicator of the run. One check line. */
static inline int ct_check_results(const h5perf_results *res, const ct_expect *e, int comm_rank,
                                   const char *name)
{
    char why[512] = "";
    size_t want = ct_expected_count(e, comm_rank);
    size_t got = h5perf_results_count(res);
    if (res == NULL)
        return ct_check(0, name, "results are NULL");
    if (got != want)
        return ct_check(0, name, "%zu records, expected %zu", got, want);
    if (h5perf_results_get(res, got) != NULL)
        return ct_check(0, name, "h5perf_results_get(res, count) is not NULL");
    size_t i = 0;
    for (int np = e->max_procs; np >= e->min_procs && np >= 1; np /= 2) {
        if (np <= comm_rank)
            continue;
        for (uint64_t x = e->xmin; x <= e->xmax; x *= 2) {
            for (unsigned api = 1; api <= 4; api <<= 1) {
                if (e->apis != 0 && !(e->apis & api))
                    continue;
                const h5perf_record *r = h5perf_results_get(res, i);
                if (r == NULL)
                    return ct_check(0, name, "record %zu is NULL", i);
                if (!ct_record_ok(r, e, np, x, api, why, sizeof why))
                    return ct_check(0, name, "record %zu: %s", i, why);
                i++;
            }
        }
    }
    return ct_check(1, name, "");
}

/* ---- stdout capture ------------------------------------------------------------- */

/* Redirects file descriptor 1 to a fresh temporary file; returns the saved descriptor
 * (or -1). */
static inline int ct_capture_begin(char *path, size_t n)
{
    fflush(stdout);
    snprintf(path, n, "./capture-%d-XXXXXX", ct_rank);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    int saved = dup(1);
    dup2(fd, 1);
    close(fd);
    return saved;
}

/* Restores stdout; returns the number of bytes written to it meanwhile (-1 on error)
 * and removes the capture file. The first bytes go to head (NUL-terminated). */
static inline long ct_capture_end(int saved, const char *path, char *head, size_t n)
{
    fflush(stdout);
    if (saved < 0)
        return -1;
    dup2(saved, 1);
    close(saved);
    struct stat st;
    long size = stat(path, &st) == 0 ? (long)st.st_size : -1;
    if (head != NULL && n > 0) {
        head[0] = '\0';
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            size_t k = fread(head, 1, n - 1, f);
            head[k] = '\0';
            fclose(f);
        }
    }
    unlink(path);
    return size;
}

#endif /* H5PERF_CTEST_CHECK_H */
