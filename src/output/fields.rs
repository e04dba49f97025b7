//! The names of the fields of a results record (`--json`, `--csv`), in output order, and
//! where each group begins: the table [`super::export`] writes and
//! [`super::readback`] reads.

/// The field names of a record, in output order (the CSV header, the JSON keys). Sizes in
/// bytes, times in seconds, `*_mibps` in MiB/s, `*_gbps` in GB/s.
pub const FIELDS: [&str; 51] = [
    "nprocs",
    "xfer_size",
    "buf_bytes",
    "api",
    "phase",
    "bytes",
    "iterations",
    "min_time_s",
    "avg_time_s",
    "max_time_s",
    "max_mibps",
    "avg_mibps",
    "min_mibps",
    "num_bytes",
    "block_size",
    "num_files",
    "num_dsets",
    "geometry",
    "pattern",
    "io_method",
    "storage",
    "align",
    "threshold",
    "fill_value",
    "fill_time",
    "alloc_time",
    "h5perf_version",
    "hdf5_version",
    "mpi_version",
    "world_size",
    "hostname_count",
    "timestamp",
    "std_time_s",
    "std_mibps",
    "max_gbps",
    "avg_gbps",
    "min_gbps",
    "slowest_rank",
    "slowest_host",
    "slowest_time_s",
    "fastest_rank",
    "fastest_host",
    "fastest_time_s",
    "complete",
    "start_time",
    "end_time",
    "command_line",
    "data_dir",
    "fs_type",
    "mpi_info",
    "hosts",
];

/// The fields added to every record with `--stonewall` (issue 28), after the storage
/// options': the transfers per rank and phase without deadline, the fewest and most a
/// rank made in one phase (and which rank), the earliest and latest stop of a rank
/// (seconds after its phase's start), the longest wear-out (s), the bytes all ranks
/// moved over every iteration, and the phases that ended before the deadline. Whether
/// the run is valid is the parameter-like field `valid` ([`super::export::run_valid`]).
pub const WALL_FIELDS: [&str; 10] = [
    "stonewall_xfers_planned",
    "stonewall_xfers_min",
    "stonewall_xfers_min_rank",
    "stonewall_xfers_max",
    "stonewall_xfers_max_rank",
    "stonewall_first_stop_s",
    "stonewall_last_stop_s",
    "stonewall_wear_out_s",
    "stonewall_moved_bytes",
    "stonewall_short_phases",
];

/// The fields added to every record with `--latency` (issue 31), after the
/// stonewall's: the transfer calls of the record's direction (write or read) timed on
/// every rank over every iteration, the shortest, the quantiles (within 0.79 %,
/// [`crate::measure::latency`]) and the longest call in seconds, the rank and host that
/// saw the longest, and the clock read (`tsc` or `clock_gettime(CLOCK_MONOTONIC)`).
/// Empty (JSON `null`) for a direction without calls.
pub const LATENCY_FIELDS: [&str; 10] = [
    "latency_calls",
    "latency_min_s",
    "latency_p50_s",
    "latency_p90_s",
    "latency_p99_s",
    "latency_p999_s",
    "latency_max_s",
    "latency_max_rank",
    "latency_max_host",
    "latency_clock",
];

/// With `--latency`, after [`LATENCY_FIELDS`]: the file calls of the record's direction
/// timed one by one (`open`, `sync` with `--fsync`, `close`), each the calls, min, p50,
/// p99, max (seconds) and the rank and host of the max; `latency_sync_calls` 0 and the
/// others empty without `--fsync`.
pub const LATENCY_FILE_FIELDS: [&str; 21] = [
    "latency_open_calls",
    "latency_open_min_s",
    "latency_open_p50_s",
    "latency_open_p99_s",
    "latency_open_max_s",
    "latency_open_max_rank",
    "latency_open_max_host",
    "latency_sync_calls",
    "latency_sync_min_s",
    "latency_sync_p50_s",
    "latency_sync_p99_s",
    "latency_sync_max_s",
    "latency_sync_max_rank",
    "latency_sync_max_host",
    "latency_close_calls",
    "latency_close_min_s",
    "latency_close_p50_s",
    "latency_close_p99_s",
    "latency_close_max_s",
    "latency_close_max_rank",
    "latency_close_max_host",
];

/// Index in [`FIELDS`] of `num_bytes`.
pub(crate) const FIRST_PARAM: usize = 13;
/// Index in [`FIELDS`] of `h5perf_version`.
pub(crate) const FIRST_META: usize = 26;
/// Index in [`FIELDS`] of the first spread figure.
pub(crate) const FIRST_SPREAD: usize = 32;
/// Index in [`FIELDS`] of the first field of the run.
pub(crate) const FIRST_RUN: usize = 43;
