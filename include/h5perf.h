/*
 * h5perf.h - C API of libh5perf, the Rust re-implementation of the HDF5 parallel
 * I/O benchmark h5perf (HDF5 1.10.8).
 *
 * Run any h5perf configuration from your own MPI program and get the numbers back
 * as data. The caller owns MPI: call MPI_Init before h5perf_run and MPI_Finalize
 * after; the library never calls them (h5perf_main initialises MPI only when it is
 * not initialised yet, exactly like the h5perf program).
 *
 * Link with:  cc prog.c $(pkg-config --cflags --libs h5perf)
 *
 * Conventions:
 *   - Functions returning int return H5PERF_OK (0) or one of the H5PERF_E* codes;
 *     h5perf_last_error() then returns the message (valid until the next call that
 *     fails on the same thread).
 *   - Sizes are in bytes, times in seconds, throughputs in MiB/s (2^20 bytes/s).
 *   - Nothing is printed on stdout or stderr unless asked (h5perf_config_set_report,
 *     the -o option, or h5perf_main).
 *   - The environment variables HDF5_PARAPREFIX, HDF5_NOCLEANUP and HDF5_MPI_INFO are
 *     honoured as by the h5perf program (see h5perf(1)).
 *   - No function aborts or exits the process, with one exception: an internal error
 *     (a panic of the Rust code) inside h5perf_run or h5perf_main. The other ranks
 *     then wait in collective calls that this rank can no longer make, and only
 *     MPI_Abort can free them: the library prints "h5perf: rank R: internal error
 *     (panic at FILE:LINE): ..." on stderr, removes its data and temporary files and
 *     calls MPI_Abort(MPI_COMM_WORLD, 1). A panic in any other function returns
 *     H5PERF_EIO with a message.
 *   - What the library changes in the calling process, and puts back:
 *       h5perf_run switches HDF5's automatic error printing off while it runs
 *       (H5Eset_auto2) and restores the caller's handler before it returns (so does
 *       h5perf_main, except with --fill-behaviour, which leaves it off);
 *       h5perf_main with MPI already initialised sets MPI_ERRORS_RETURN on
 *       MPI_COMM_WORLD and as the default file error handler while it runs and
 *       restores the caller's handlers before it returns.
 *     What it does not put back: if libh5perf is the first to initialise HDF5 in
 *     the process, HDF5 registers no atexit handler (H5dont_atexit); parallel HDF5
 *     then shuts down inside MPI_Finalize instead of at exit.
 */
#ifndef H5PERF_H
#define H5PERF_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define H5PERF_OK 0
#define H5PERF_EINVAL 1  /* bad argument: NULL pointer, bad option or value        */
#define H5PERF_EPARAM 2  /* parameter combination refused before any I/O          */
#define H5PERF_EIO 3     /* run-time failure (open, write, read, HDF5, MPI), agreed
                            on by all ranks; the data files were removed            */
#define H5PERF_EVERIFY 4 /* the run finished but data verification (-D v) found
                            wrong bytes; the results are valid                      */
#define H5PERF_EFATAL 5  /* a collective open failed on some ranks only: files stay
                            open on the others; call MPI_Abort                       */
#define H5PERF_EMPI 6    /* MPI is not initialised (or already finalised)         */
#define H5PERF_EVERDICT 7 /* the run finished and its verdict (--expect, --baseline)
                             is FAIL; the results are valid (the program's exit
                             status 3)                                              */
#define H5PERF_EINCONCLUSIVE 8 /* the run finished and its verdict is INCONCLUSIVE
                             (--within: nothing failed, the noise left a check
                             undecided); the results are valid (exit status 4)      */

/* API bits for h5perf_config_set_apis and h5perf_record.api. */
#define H5PERF_API_POSIX 1u
#define H5PERF_API_MPIIO 2u
#define H5PERF_API_PHDF5 4u

/* Opaque objects. */
typedef struct h5perf_config h5perf_config;
typedef struct h5perf_results h5perf_results;

/* Statistics of one phase over the iterations: the slowest rank's accumulated time
 * per iteration, its minimum, mean and maximum over iterations (seconds), and the
 * throughputs bytes/time (MiB/s) as the report prints them (0 for a zero time). */
typedef struct h5perf_phase {
    double min_time;
    double avg_time;
    double max_time;
    double max_mibps; /* "Maximum Throughput" = bytes / min_time */
    double avg_mibps; /* "Average Throughput" = bytes / avg_time */
    double min_mibps; /* "Minimum Throughput" = bytes / max_time */
} h5perf_phase;

/* The results of one (processes, transfer size, API) combination. */
typedef struct h5perf_record {
    int32_t nprocs;     /* processes in the run                                    */
    uint32_t api;       /* one of H5PERF_API_*                                     */
    uint64_t xfer_size; /* transfer-buffer size of the step (the -x..-X loop)      */
    uint64_t buf_bytes; /* bytes in the transfer buffer (2D: xfer_size * block)    */
    uint64_t bytes;     /* bytes moved per phase and iteration: files * datasets *
                           dataset size (all processes)                            */
    int32_t iterations;
    int32_t has_read;   /* 0 with write-only runs: the read phases are zero       */
    h5perf_phase raw_write;        /* "Raw Data Write"   */
    h5perf_phase write;            /* "Write"            */
    h5perf_phase write_open_close; /* "Write Open-Close" */
    h5perf_phase raw_read;         /* "Raw Data Read"    */
    h5perf_phase read;             /* "Read"             */
    h5perf_phase read_open_close;  /* "Read Open-Close"  */
    double write_open[3];  /* "Write File Open" time: min, avg, max (seconds)  */
    double write_close[3]; /* "Write File Close" time: min, avg, max            */
    double read_open[3];   /* "Read File Open" time: min, avg, max              */
    double read_close[3];  /* "Read File Close" time: min, avg, max             */
} h5perf_record;

/* ---- configuration ---------------------------------------------------------- */

/* A configuration with the h5perf program's defaults (no options given). NULL when
 * out of memory. Free with h5perf_config_free. */
h5perf_config *h5perf_config_new(void);
void h5perf_config_free(h5perf_config *cfg);

/* Parse a command line exactly like the h5perf program (argv[0] is the program name
 * and is ignored) into cfg, replacing its settings. --help and --version are
 * refused (H5PERF_EINVAL). */
int h5perf_config_parse(h5perf_config *cfg, int argc, char **argv);

/* Any option by its command-line name, through the same option table as the command
 * line: the same checks, the same messages.
 *   option: the long name without "--" ("fsync", "min-xfer-size"; an abbreviation the
 *           command line accepts, such as "min-x", and a leading "--" are allowed), or
 *           the short letter ("x", also "-x").
 *   value:  the value as written on the command line ("4K", "posix,mpiio", a file name,
 *           "-" for standard output, "mpiio.write>=2GB/s"); NULL for an option without
 *           value (a flag is turned on; "reorder" gets its default shift). A flag also
 *           takes "1", "yes", "true" or "on" (turn on) and "0", "no", "false" or "off"
 *           (turn off).
 * Returns H5PERF_OK, or H5PERF_EINVAL with the command line's message and cfg unchanged:
 * an unknown option, a missing or refused value, a NULL cfg or option, and the options
 * that configure no run (help, version, fill-behaviour, strict, from). Examples:
 *   h5perf_config_set(cfg, "fsync", NULL);     h5perf_config_set(cfg, "x", "4K");
 *   h5perf_config_set(cfg, "expect", "posix.write>=1GB/s");  (see h5perf(1), OPTIONS) */
int h5perf_config_set(h5perf_config *cfg, const char *option, const char *value);

/* Typed setters, field by field; each returns H5PERF_EINVAL for a value the command line
 * refuses. Sizes of 0 mean "the default" as on the command line. */
int h5perf_config_set_apis(h5perf_config *cfg, unsigned mask);       /* -A; 0 = all */
int h5perf_config_set_num_bytes(h5perf_config *cfg, uint64_t bytes);  /* -e */
int h5perf_config_set_min_xfer_size(h5perf_config *cfg, uint64_t b); /* -x */
int h5perf_config_set_max_xfer_size(h5perf_config *cfg, uint64_t b); /* -X */
int h5perf_config_set_block_size(h5perf_config *cfg, uint64_t b);    /* -B */
int h5perf_config_set_align(h5perf_config *cfg, uint64_t b);         /* -a, >= 1 */
int h5perf_config_set_threshold(h5perf_config *cfg, uint64_t b);     /* -T */
int h5perf_config_set_num_files(h5perf_config *cfg, uint64_t n);     /* -F, >= 1 */
int h5perf_config_set_num_dsets(h5perf_config *cfg, uint64_t n);     /* -d, >= 1 */
int h5perf_config_set_iterations(h5perf_config *cfg, uint32_t n);    /* -i, 0 = 1 */
int h5perf_config_set_min_procs(h5perf_config *cfg, uint32_t n);     /* -p, 0 = 1 */
int h5perf_config_set_max_procs(h5perf_config *cfg, uint32_t n);     /* -P, 0 = communicator size */
int h5perf_config_set_chunk(h5perf_config *cfg, int on);             /* -c */
int h5perf_config_set_collective(h5perf_config *cfg, int on);        /* -C */
int h5perf_config_set_2d(h5perf_config *cfg, int on);                /* -g */
int h5perf_config_set_interleaved(h5perf_config *cfg, int on);       /* -I */
int h5perf_config_set_write_only(h5perf_config *cfg, int on);        /* -w */
/* Fill settings of the PHDF5 datasets (see h5perf(1), FILL VALUES). Values the command
 * line refuses return H5PERF_EINVAL; a combination HDF5 refuses (an undefined fill
 * value with H5PERF_FILL_TIME_ALLOC) makes h5perf_run return H5PERF_EPARAM. */
#define H5PERF_FILL_VALUE_UNSET (-1)     /* no --fill-value: HDF5's default (0)      */
#define H5PERF_FILL_VALUE_UNDEFINED (-2) /* --fill-value=undefined                  */
int h5perf_config_set_fill_value(h5perf_config *cfg, int value); /* 0..255 or a constant above */
#define H5PERF_FILL_TIME_UNSET 0 /* no --fill-time: HDF5's default (ifset)        */
#define H5PERF_FILL_TIME_NEVER 1 /* --fill-time=never, -n                         */
#define H5PERF_FILL_TIME_IFSET 2 /* --fill-time=ifset                             */
#define H5PERF_FILL_TIME_ALLOC 3 /* --fill-time=alloc                             */
int h5perf_config_set_fill_time(h5perf_config *cfg, int when);
#define H5PERF_ALLOC_TIME_UNSET 0   /* no --alloc-time                            */
#define H5PERF_ALLOC_TIME_DEFAULT 1 /* --alloc-time=default                       */
#define H5PERF_ALLOC_TIME_EARLY 2   /* --alloc-time=early                         */
#define H5PERF_ALLOC_TIME_INCR 3    /* --alloc-time=incr                          */
#define H5PERF_ALLOC_TIME_LATE 4    /* --alloc-time=late                          */
int h5perf_config_set_alloc_time(h5perf_config *cfg, int when);
/* -D: level 0..4, then the r (raw), t (times) and v (verify) flags. */
int h5perf_config_set_debug(h5perf_config *cfg, int level, int raw, int times, int verify);
/* Where the text report goes: NULL (default) = nowhere, "-" = stdout, else a file
 * (the program's -o: written beside it and renamed over it after the first step, so an
 * earlier file stays until there are results). Names are bytes, UTF-8 or not. */
int h5perf_config_set_report(h5perf_config *cfg, const char *path);
/* Results files, as the program's options (see h5perf(1)): NULL (default) = none, "-" =
 * stdout after the report, else a file rewritten atomically after each (processes,
 * transfer size) step, with "complete": false until the run ends. An empty name is
 * H5PERF_EINVAL. */
int h5perf_config_set_json(h5perf_config *cfg, const char *path);     /* --json */
int h5perf_config_set_csv(h5perf_config *cfg, const char *path);      /* --csv */
int h5perf_config_set_rank_csv(h5perf_config *cfg, const char *path); /* --rank-csv */
/* --progress: one line per step on stderr from rank 0 (off by default; h5perf_run
 * never prints progress unless asked, even on a terminal). */
int h5perf_config_set_progress(h5perf_config *cfg, int on);
/* --summary: the summary table after the report (nothing without a report). */
int h5perf_config_set_summary(h5perf_config *cfg, int on);

/* ---- running ----------------------------------------------------------------- */

/* Run cfg on the processes of comm (collective over comm; the library works on a
 * duplicate, comm is not modified). Codes, first that applies: H5PERF_EVERIFY (wrong
 * bytes), H5PERF_EVERDICT (verdict FAIL), H5PERF_EINCONCLUSIVE, H5PERF_OK; the same on
 * every rank; h5perf_last_error then says "h5perf: verdict FAIL: <summary>" (on rank 0 of
 * comm; elsewhere "h5perf: verdict FAIL").
 * On H5PERF_OK, H5PERF_EVERIFY, H5PERF_EVERDICT or H5PERF_EINCONCLUSIVE, *results holds
 * one record per (processes, transfer size, API) on rank 0 of comm (other ranks get
 * the records of the steps they took part in); free it with h5perf_results_free.
 * On any other code *results is NULL. */
int h5perf_run(const h5perf_config *cfg, MPI_Comm comm, h5perf_results **results);

size_t h5perf_results_count(const h5perf_results *res);
/* Record i (0-based), or NULL when out of range. Valid until h5perf_results_free. */
const h5perf_record *h5perf_results_get(const h5perf_results *res, size_t i);
/* Bytes read back wrong with verification on, summed over all ranks (0 = all good). */
uint64_t h5perf_results_wrong_bytes(const h5perf_results *res);

/* Phases, in the order of h5perf_record (for the functions below). */
#define H5PERF_PHASE_RAW_WRITE 0
#define H5PERF_PHASE_WRITE 1
#define H5PERF_PHASE_WRITE_OPEN_CLOSE 2
#define H5PERF_PHASE_RAW_READ 3
#define H5PERF_PHASE_READ 4
#define H5PERF_PHASE_READ_OPEN_CLOSE 5

/* The spread of one phase over the iterations and its slowest and fastest rank.
 * h5perf_run gathers every rank's own times on rank 0 of comm after each iteration,
 * outside every timer (one MPI_Gather of 13 doubles per iteration); the ranks and
 * hosts are known (known = 1) on rank 0 only. */
typedef struct h5perf_spread {
    double std_time;   /* sample standard deviation over iterations of the slowest
                          rank's time (seconds; 0 with one iteration)             */
    double std_mibps;  /* the same of the throughput bytes/time (MiB/s)           */
    double max_gbps;   /* bytes / min_time in GB/s (10^9 bytes per second)        */
    double avg_gbps;   /* bytes / avg_time, GB/s                                  */
    double min_gbps;   /* bytes / max_time, GB/s                                  */
    int32_t known;     /* 1 when the fields below are set (rank 0), else 0        */
    int32_t slowest_rank;      /* rank of comm with the largest time of any iteration */
    int32_t slowest_iteration; /* that iteration, 0-based                          */
    int32_t fastest_rank;      /* rank with the smallest time of any iteration     */
    double slowest_time;       /* seconds; equals the phase's max_time             */
    double fastest_time;       /* seconds                                          */
    const char *slowest_host;  /* host names ("" when not known); valid until     */
    const char *fastest_host;  /* h5perf_results_free                              */
} h5perf_spread;
/* The spread of phase (H5PERF_PHASE_*) of record i into *out. H5PERF_EINVAL for a NULL
 * argument, i out of range or an unknown phase. */
int h5perf_results_spread(const h5perf_results *res, size_t i, int phase, h5perf_spread *out);
/* --latency (issue 31): the transfer calls of one direction (write or read) of a
 * record, every rank and iteration merged after each iteration (the same on every
 * rank). The percentiles are within 0.79 % of a measured call's time (log-linear
 * histogram, 128 buckets per power of two); min and max exact. */
typedef struct h5perf_latency {
    uint64_t calls;       /* calls timed (0: none; then every field 0 and "")       */
    double min;           /* the shortest call, seconds                             */
    double p50;           /* the median, seconds                                    */
    double p90;           /* the 90th percentile                                    */
    double p99;           /* the 99th percentile                                    */
    double p999;          /* the 99.9th percentile                                  */
    double max;           /* the longest call, seconds                              */
    int32_t max_rank;     /* the rank of comm that made the longest call            */
    const char *max_host; /* its host; valid until h5perf_results_free              */
} h5perf_latency;
/* The latencies of the direction of phase (H5PERF_PHASE_*: the write phases give the
 * write calls, the read phases the read calls) of record i into *out. H5PERF_EINVAL
 * for a NULL argument, i out of range, an unknown phase or a run without --latency
 * (h5perf_config_set(cfg, "latency", NULL)). */
int h5perf_results_latency(const h5perf_results *res, size_t i, int phase, h5perf_latency *out);
/* --latency: the calls of a phase outside its transfer loop, timed one by one (clock
 * CLOCK_MONOTONIC; the figures within 0.79 %, min and max exact), every rank and
 * iteration merged: */
#define H5PERF_CALL_OPEN 0  /* the file's open: open, MPI_File_open, H5Fcreate/H5Fopen   */
#define H5PERF_CALL_SYNC 1  /* --fsync's sync of a written file: fsync, MPI_File_sync,
                               H5Fflush (without --fsync and for the read phases: 0 calls,
                               every figure 0, max_host "")                               */
#define H5PERF_CALL_CLOSE 2 /* the file's close: close, MPI_File_close, H5Fclose (collective
                               for MPI-IO and PHDF5: the wait for the others included)     */
/* The latencies of call (H5PERF_CALL_*) of the direction of phase (H5PERF_PHASE_*) of
 * record i into *out: one call per rank, file and iteration. H5PERF_EINVAL as
 * h5perf_results_latency, and for an unknown call. */
int h5perf_results_file_latency(const h5perf_results *res, size_t i, int phase, int call,
                                h5perf_latency *out);
/* --timeseries[=INTERVAL] (issue 31; h5perf_config_set(cfg, "timeseries", "10ms")): the
 * bytes each rank completed per interval of one write or read phase of a record, as
 * rank 0 of comm gathered them after the phase (outside every timer). */
typedef struct h5perf_timeseries {
    int32_t iteration;     /* the iteration, 0-based                                   */
    int32_t phase;         /* H5PERF_PHASE_RAW_WRITE (a write phase) or _RAW_READ      */
    uint64_t file;         /* the file, 1-based                                        */
    double interval;       /* seconds: the option's, doubled as often as a phase that
                              outlasted 4096 intervals needed                          */
    int32_t nranks;        /* ranks (the record's nprocs)                              */
    size_t intervals;      /* intervals per rank                                       */
    const uint64_t *bytes; /* bytes[rank * intervals + k]: what rank completed in
                              [k * interval, (k + 1) * interval) after the phase's
                              start (its file's open); valid until h5perf_results_free */
} h5perf_timeseries;
/* The phases of record i with samples, in run order: rank 0 of comm only (0 elsewhere,
 * without --timeseries, for a NULL res and i out of range). */
size_t h5perf_results_timeseries_count(const h5perf_results *res, size_t i);
/* Phase k (0-based, below h5perf_results_timeseries_count) of record i into *out.
 * H5PERF_EINVAL for a NULL argument or i or k out of range. */
int h5perf_results_timeseries(const h5perf_results *res, size_t i, size_t k,
                              h5perf_timeseries *out);
/* The own time (seconds) of rank in iteration (0-based) and phase of record i: the
 * per-rank samples, rank 0 of comm only (elsewhere, and out of range: H5PERF_EINVAL). */
int h5perf_results_rank_time(const h5perf_results *res, size_t i, int iteration, int phase,
                             int rank, double *seconds);
/* Run metadata as text, NULL for an unknown key: "complete" ("true"/"false"),
 * "start_time", "end_time" (UTC, RFC 3339), "command_line" (the argv given to
 * h5perf_config_parse, or "(library)" without one, then each later accepted setting as
 * given: "--name value" of h5perf_config_set, "h5perf_config_set_X(value)" of a typed
 * setter; quoted for a shell where needed), "data_dir"
 * (resolved), "fs_type" (statfs: lustre, gpfs, nfs, xfs, ext4, tmpfs, ...), "mpi_info"
 * (HDF5_MPI_INFO as key=value;...), "hosts" (name:ranks;...), "h5perf_version",
 * "hdf5_version", "mpi_version", "world_size" (size of comm), "hostname_count".
 * Valid until h5perf_results_free; the same on every rank. */
const char *h5perf_results_meta(const h5perf_results *res, const char *key);
/* The verdict of --expect and --baseline (set with h5perf_config_set): */
#define H5PERF_VERDICT_NONE 0         /* no criterion and no baseline                   */
#define H5PERF_VERDICT_PASS 1
#define H5PERF_VERDICT_FAIL 2         /* also the code H5PERF_EVERDICT of h5perf_run     */
#define H5PERF_VERDICT_INCONCLUSIVE 3 /* also the code H5PERF_EINCONCLUSIVE              */
/* H5PERF_VERDICT_* of the run, the same on every rank; -1 for a NULL res. */
int h5perf_results_verdict(const h5perf_results *res);
/* The verdict table as the program prints it after the report ("Verdict: FAIL (...)"
 * and its rows); rank 0 of comm only ("" elsewhere and without a verdict), NULL for a
 * NULL res. Valid until h5perf_results_free. */
const char *h5perf_results_verdict_text(const h5perf_results *res);
/* The failed checks (rank 0 of comm; 0 elsewhere): check i (0-based) as the table's
 * Check column shows it (a criterion as given, "baseline FILE (tolerance 10%)", a
 * regression), NULL out of range. Valid until h5perf_results_free. */
size_t h5perf_results_failed_count(const h5perf_results *res);
const char *h5perf_results_failed(const h5perf_results *res, size_t i);
/* The host name of rank (of comm), NULL out of range. Valid until h5perf_results_free. */
const char *h5perf_results_rank_host(const h5perf_results *res, int rank);
void h5perf_results_free(h5perf_results *res);

/* The whole h5perf program on MPI_COMM_WORLD: argv as given to main(). Returns the
 * exit status (0 success, 1 failure, messages on stderr as the program prints them). */
int h5perf_main(int argc, char **argv);

/* ---- information ------------------------------------------------------------- */

/* The message of the last failure on this thread ("" if none). */
const char *h5perf_last_error(void);
/* "h5perf X.Y.Z" */
const char *h5perf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* H5PERF_H */
