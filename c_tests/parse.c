/*
 * parse.c - the same configurations set field by field and parsed from a command line
 * give the same record list (run with 2 ranks; works with any number):
 *   1D contiguous with datasets, files, iterations and write-only; interleaved and
 *   collective; chunked; 2D; -p/-P; verification (-D v) reports no wrong bytes.
 * Every record is also checked for consistency (bytes, ordering of times and
 * throughputs, has_read).
 */
#include "check.h"

typedef struct shape {
    int32_t nprocs;
    uint32_t api;
    uint64_t xfer_size, buf_bytes, bytes;
    int32_t iterations, has_read;
} shape;

static int same_shape(const h5perf_results *a, const h5perf_results *b, char *why, size_t n)
{
    size_t na = h5perf_results_count(a), nb = h5perf_results_count(b);
    if (na != nb) {
        snprintf(why, n, "%zu records from the setters, %zu from the command line", na, nb);
        return 0;
    }
    for (size_t i = 0; i < na; i++) {
        const h5perf_record *x = h5perf_results_get(a, i), *y = h5perf_results_get(b, i);
        shape sx = {x->nprocs, x->api, x->xfer_size, x->buf_bytes, x->bytes, x->iterations,
                    x->has_read};
        shape sy = {y->nprocs, y->api, y->xfer_size, y->buf_bytes, y->bytes, y->iterations,
                    y->has_read};
        if (sx.nprocs != sy.nprocs || sx.api != sy.api || sx.xfer_size != sy.xfer_size ||
            sx.buf_bytes != sy.buf_bytes || sx.bytes != sy.bytes ||
            sx.iterations != sy.iterations || sx.has_read != sy.has_read) {
            snprintf(why, n,
                     "record %zu: setters (np %d api %u xfer %llu buf %llu bytes %llu it %d rd %d)"
                     " vs command line (np %d api %u xfer %llu buf %llu bytes %llu it %d rd %d)",
                     i, sx.nprocs, sx.api, (unsigned long long)sx.xfer_size,
                     (unsigned long long)sx.buf_bytes, (unsigned long long)sx.bytes,
                     sx.iterations, sx.has_read, sy.nprocs, sy.api,
                     (unsigned long long)sy.xfer_size, (unsigned long long)sy.buf_bytes,
                     (unsigned long long)sy.bytes, sy.iterations, sy.has_read);
            return 0;
        }
    }
    return 1;
}

/* Split a command line on blanks into argv (argv[0] = "h5perf"). */
static int split(char *line, char **argv, int max)
{
    int argc = 0;
    argv[argc++] = (char *)"h5perf";
    for (char *t = strtok(line, " "); t != NULL && argc < max - 1; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return argc;
}

static void compare(const char *name, h5perf_config *by_setters, const char *cmdline,
                    const ct_expect *e, int want_rc)
{
    char n[96], why[512], line[256];
    char *argv[32];
    snprintf(line, sizeof line, "%s", cmdline);
    int argc = split(line, argv, 32);
    h5perf_config *parsed = h5perf_config_new();
    snprintf(n, sizeof n, "%s.parse", name);
    ct_check_rc(h5perf_config_parse(parsed, argc, argv), H5PERF_OK, n);

    h5perf_results *ra = NULL, *rb = NULL;
    int rca = h5perf_run(by_setters, MPI_COMM_WORLD, &ra);
    int rcb = h5perf_run(parsed, MPI_COMM_WORLD, &rb);
    snprintf(n, sizeof n, "%s.setters.rc", name);
    ct_check_rc(rca, want_rc, n);
    snprintf(n, sizeof n, "%s.parsed.rc", name);
    ct_check_rc(rcb, want_rc, n);
    snprintf(n, sizeof n, "%s.same_records", name);
    int same = ra != NULL && rb != NULL && same_shape(ra, rb, why, sizeof why);
    ct_check(same, n, "%s", ra == NULL || rb == NULL ? "results are NULL" : why);
    snprintf(n, sizeof n, "%s.setters.records", name);
    ct_check_results(ra, e, ct_rank, n);
    snprintf(n, sizeof n, "%s.parsed.records", name);
    ct_check_results(rb, e, ct_rank, n);
    snprintf(n, sizeof n, "%s.wrong_bytes", name);
    ct_check(h5perf_results_wrong_bytes(ra) == 0 && h5perf_results_wrong_bytes(rb) == 0, n,
             "wrong bytes %llu / %llu", (unsigned long long)h5perf_results_wrong_bytes(ra),
             (unsigned long long)h5perf_results_wrong_bytes(rb));
    h5perf_results_free(ra);
    h5perf_results_free(rb);
    h5perf_config_free(parsed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ct_init("parse");
    int P = ct_size;

    /* 1: 1D contiguous, datasets, files, iterations, write-only */
    {
        h5perf_config *c = h5perf_config_new();
        h5perf_config_set_apis(c, H5PERF_API_POSIX | H5PERF_API_MPIIO);
        h5perf_config_set_num_bytes(c, 64 * 1024);
        h5perf_config_set_min_xfer_size(c, 16 * 1024);
        h5perf_config_set_max_xfer_size(c, 64 * 1024);
        h5perf_config_set_block_size(c, 8 * 1024);
        h5perf_config_set_iterations(c, 2);
        h5perf_config_set_num_dsets(c, 2);
        h5perf_config_set_num_files(c, 2);
        h5perf_config_set_write_only(c, 1);
        ct_expect e = {3, 1, P, 65536, 16384, 65536, 8192, 2, 2, 2, 0, 1};
        compare("contiguous_write_only", c,
                "-A posix,mpiio -e 64K -x 16K -X 64K -B 8K -i 2 -d 2 -F 2 -w", &e, H5PERF_OK);
        h5perf_config_free(c);
    }
    /* 2: interleaved, collective, MPI-IO and PHDF5, with verification */
    {
        h5perf_config *c = h5perf_config_new();
        h5perf_config_set_apis(c, H5PERF_API_MPIIO | H5PERF_API_PHDF5);
        h5perf_config_set_num_bytes(c, 32 * 1024);
        h5perf_config_set_min_xfer_size(c, 8 * 1024);
        h5perf_config_set_max_xfer_size(c, 16 * 1024);
        h5perf_config_set_block_size(c, 2 * 1024);
        h5perf_config_set_interleaved(c, 1);
        h5perf_config_set_collective(c, 1);
        h5perf_config_set_debug(c, 0, 0, 0, 1);
        ct_expect e = {6, 1, P, 32768, 8192, 16384, 2048, 1, 1, 1, 0, 0};
        compare("interleaved_collective_verify", c,
                "-A mpiio,phdf5 -e 32K -x 8K -X 16K -B 2K -I -C -D v", &e, H5PERF_OK);
        h5perf_config_free(c);
    }
    /* 3: chunked PHDF5 with alignment */
    {
        h5perf_config *c = h5perf_config_new();
        h5perf_config_set_apis(c, H5PERF_API_PHDF5);
        h5perf_config_set_num_bytes(c, 32 * 1024);
        h5perf_config_set_block_size(c, 8 * 1024);
        h5perf_config_set_chunk(c, 1);
        h5perf_config_set_align(c, 4096);
        h5perf_config_set_threshold(c, 1024);
        ct_expect e = {4, 1, P, 32768, 16384, 32768, 8192, 1, 1, 1, 0, 0};
        compare("chunked_aligned", c, "--api=phdf5 --num-bytes=32K --block-size=8K --chunk "
                "-a 4K -T 1K", &e, H5PERF_OK);
        h5perf_config_free(c);
    }
    /* 4: 2D geometry, all APIs */
    {
        h5perf_config *c = h5perf_config_new();
        h5perf_config_set_2d(c, 1);
        h5perf_config_set_num_bytes(c, 4096);
        h5perf_config_set_block_size(c, 512);
        h5perf_config_set_min_xfer_size(c, 1024);
        h5perf_config_set_max_xfer_size(c, 2048);
        ct_expect e = {0, 1, P, 4096, 1024, 2048, 512, 1, 1, 1, 1, 0};
        compare("geometry_2d", c, "-g -e 4K -B 512 -x 1K -X 2K", &e, H5PERF_OK);
        h5perf_config_free(c);
    }
    /* 5: process range -p/-P (P, P/2, ... >= p) */
    {
        h5perf_config *c = h5perf_config_new();
        h5perf_config_set_apis(c, H5PERF_API_POSIX);
        h5perf_config_set_num_bytes(c, 8192);
        h5perf_config_set_min_procs(c, 1);
        h5perf_config_set_max_procs(c, (uint32_t)P);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "-A posix -e 8K -p 1 -P %d", P);
        ct_expect e = {1, 1, P, 8192, 4096, 8192, 4096, 1, 1, 1, 0, 0};
        compare("process_range", c, cmd, &e, H5PERF_OK);
        h5perf_config_free(c);
    }

    int status = ct_finish();
    MPI_Finalize();
    return status;
}
