//! The C API (`include/h5perf.h`): error codes, shared types, [`h5perf_main`], the version.
//! Every function catches panics and checks its pointers; only [`h5perf_main`] touches MPI init.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::app;
use crate::config::{Api, Options};
use crate::error::Error;
use crate::measure::{Phase, Record, TimeStats};

pub mod config;
pub mod results;

/// `H5PERF_OK`
pub const H5PERF_OK: c_int = 0;
/// `H5PERF_EINVAL`: bad argument, option or value.
pub const H5PERF_EINVAL: c_int = 1;
/// `H5PERF_EPARAM`: parameter combination refused before any I/O.
pub const H5PERF_EPARAM: c_int = 2;
/// `H5PERF_EIO`: run-time failure agreed on by all ranks.
pub const H5PERF_EIO: c_int = 3;
/// `H5PERF_EVERIFY`: verification found wrong bytes (results valid).
pub const H5PERF_EVERIFY: c_int = 4;
/// `H5PERF_EFATAL`: files left open on some ranks; the caller should abort.
pub const H5PERF_EFATAL: c_int = 5;
/// `H5PERF_EMPI`: MPI is not initialised.
pub const H5PERF_EMPI: c_int = 6;
/// `H5PERF_EVERDICT`: the run finished and its verdict (`--expect`, `--baseline`) is FAIL;
/// the results are valid (the program's exit status 3).
pub const H5PERF_EVERDICT: c_int = 7;
/// `H5PERF_EINCONCLUSIVE`: the run finished and its verdict is INCONCLUSIVE (`--within`:
/// nothing failed, the noise left a check undecided); the results are valid (exit status 4).
pub const H5PERF_EINCONCLUSIVE: c_int = 8;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keep `msg` as this thread's last error; `code`.
fn fail(code: c_int, msg: &str) -> c_int {
    LAST_ERROR.with(|e| *e.borrow_mut() = c_string(msg));
    code
}

fn code_of(e: &Error) -> c_int {
    match e {
        Error::Usage(_) => H5PERF_EINVAL,
        Error::Invalid(_) => H5PERF_EPARAM,
        Error::Fatal(_) => H5PERF_EFATAL,
        Error::Verify(_) => H5PERF_EVERIFY,
        _ => H5PERF_EIO,
    }
}

/// Run `f`, turning a panic into `H5PERF_EIO` with a message.
fn guard(f: impl FnOnce() -> c_int) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(c) => c,
        Err(_) => fail(H5PERF_EIO, "h5perf: internal error (panic) in the library"),
    }
}

/// The first word of the recorded command line of a configuration that no
/// `h5perf_config_parse` gave.
const LIBRARY: &str = "(library)";

/// The configuration behind `h5perf_config *`.
pub struct H5perfConfig {
    opts: Options,
    report_stdout: bool,
    /// The command line as the C program gave it: the words of `h5perf_config_parse`
    /// (its `argv[0]` first), or `(library)`, then each later setting as given.
    words: Vec<String>,
}

impl H5perfConfig {
    /// A configuration with the program's defaults, recorded as `(library)`.
    fn new() -> H5perfConfig {
        H5perfConfig {
            opts: Options::default(),
            report_stdout: false,
            words: vec![LIBRARY.to_string()],
        }
    }

    /// The command line the results record: the words, quoted for a shell where needed
    /// (`(library)` as it is).
    fn command_line(&self) -> String {
        match self.words.split_first() {
            Some((first, rest)) if first == LIBRARY => {
                let rest = crate::output::export::shell_line(rest);
                if rest.is_empty() {
                    LIBRARY.to_string()
                } else {
                    format!("{LIBRARY} {rest}")
                }
            }
            _ => crate::output::export::shell_line(&self.words),
        }
    }
}

/// `h5perf_phase`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct H5perfPhase {
    /// Smallest time over iterations (s).
    pub min_time: f64,
    /// Mean time (s).
    pub avg_time: f64,
    /// Largest time (s).
    pub max_time: f64,
    /// bytes / min_time (MiB/s).
    pub max_mibps: f64,
    /// bytes / avg_time (MiB/s).
    pub avg_mibps: f64,
    /// bytes / max_time (MiB/s).
    pub min_mibps: f64,
}

/// `h5perf_record`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct H5perfRecord {
    /// Processes.
    pub nprocs: i32,
    /// `H5PERF_API_*` bit.
    pub api: u32,
    /// Transfer-buffer size of the step (bytes).
    pub xfer_size: u64,
    /// Bytes in the transfer buffer.
    pub buf_bytes: u64,
    /// Bytes moved per phase and iteration.
    pub bytes: u64,
    /// Iterations.
    pub iterations: i32,
    /// 0 for write-only runs.
    pub has_read: i32,
    /// "Raw Data Write".
    pub raw_write: H5perfPhase,
    /// "Write".
    pub write: H5perfPhase,
    /// "Write Open-Close".
    pub write_open_close: H5perfPhase,
    /// "Raw Data Read".
    pub raw_read: H5perfPhase,
    /// "Read".
    pub read: H5perfPhase,
    /// "Read Open-Close".
    pub read_open_close: H5perfPhase,
    /// "Write File Open" min/avg/max (s).
    pub write_open: [f64; 3],
    /// "Write File Close" min/avg/max (s).
    pub write_close: [f64; 3],
    /// "Read File Open" min/avg/max (s).
    pub read_open: [f64; 3],
    /// "Read File Close" min/avg/max (s).
    pub read_close: [f64; 3],
}

impl H5perfRecord {
    fn from(r: &Record) -> H5perfRecord {
        let ph = |p: Phase| {
            let s = r.phase(p);
            H5perfPhase {
                min_time: s.min_time,
                avg_time: s.avg_time,
                max_time: s.max_time,
                max_mibps: s.max_mibps,
                avg_mibps: s.avg_mibps,
                min_mibps: s.min_mibps,
            }
        };
        let t = |s: &TimeStats| [s.min, s.avg, s.max];
        H5perfRecord {
            nprocs: r.nprocs as i32,
            api: match r.api {
                Api::Posix => 1,
                Api::Mpiio => 2,
                Api::Phdf5 => 4,
            },
            xfer_size: r.xfer_size,
            buf_bytes: r.buf_bytes,
            bytes: r.bytes,
            iterations: r.iterations as i32,
            has_read: i32::from(r.has_read),
            raw_write: ph(Phase::RawWrite),
            write: ph(Phase::Write),
            write_open_close: ph(Phase::WriteOpenClose),
            raw_read: ph(Phase::RawRead),
            read: ph(Phase::Read),
            read_open_close: ph(Phase::ReadOpenClose),
            write_open: t(&r.open_close[0]),
            write_close: t(&r.open_close[1]),
            read_open: t(&r.open_close[2]),
            read_close: t(&r.open_close[3]),
        }
    }
}

/// The results behind `h5perf_results *`.
pub struct H5perfResults {
    records: Vec<H5perfRecord>,
    wrong_bytes: u64,
    full: Vec<Record>,
    meta: Vec<(&'static str, CString)>,
    rank_hosts: Vec<CString>,
    /// `H5PERF_VERDICT_*` of the run (the same on every rank).
    verdict: c_int,
    /// The verdict table as the program prints it (rank 0; empty elsewhere or without).
    verdict_table: CString,
    /// The checks of the failed rows (rank 0).
    failed_checks: Vec<CString>,
    /// `--timeseries`: each record's phases' samples (rank 0; empty elsewhere).
    series: Vec<Vec<FlatSeries>>,
}

/// `H5PERF_VERDICT_NONE`: no `--expect` and no `--baseline`.
pub const H5PERF_VERDICT_NONE: c_int = 0;
/// `H5PERF_VERDICT_PASS`.
pub const H5PERF_VERDICT_PASS: c_int = 1;
/// `H5PERF_VERDICT_FAIL`.
pub const H5PERF_VERDICT_FAIL: c_int = 2;
/// `H5PERF_VERDICT_INCONCLUSIVE`.
pub const H5PERF_VERDICT_INCONCLUSIVE: c_int = 3;

/// A C string of `s` (NUL bytes replaced by blanks).
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

impl H5perfResults {
    fn of(done: &app::Done) -> H5perfResults {
        let mut meta = Vec::new();
        let mut rank_hosts = Vec::new();
        if let Some(m) = &done.meta {
            let pairs: [(&'static str, String); 13] = [
                ("complete", m.complete.to_string()),
                ("start_time", m.timestamp.clone()),
                ("end_time", m.end_time.clone()),
                ("command_line", m.command_line.clone()),
                ("data_dir", m.data_dir.clone()),
                ("fs_type", m.fs_type.clone()),
                ("mpi_info", m.mpi_info_text()),
                ("hosts", m.hosts_text()),
                ("h5perf_version", m.h5perf_version.clone()),
                ("hdf5_version", m.hdf5_version.clone()),
                ("mpi_version", m.mpi_version.clone()),
                ("world_size", m.world_size.to_string()),
                ("hostname_count", m.hostname_count.to_string()),
            ];
            meta = pairs.iter().map(|(k, v)| (*k, c_string(v))).collect();
            rank_hosts = m.rank_hosts.iter().map(|h| c_string(h)).collect();
        }
        let verdict = match done.checks.word() {
            None => H5PERF_VERDICT_NONE,
            Some("PASS") => H5PERF_VERDICT_PASS,
            Some("FAIL") => H5PERF_VERDICT_FAIL,
            Some(_) => H5PERF_VERDICT_INCONCLUSIVE,
        };
        H5perfResults {
            records: done.records.iter().map(H5perfRecord::from).collect(),
            wrong_bytes: done.wrong_bytes,
            full: done.records.clone(),
            meta,
            rank_hosts,
            verdict,
            verdict_table: c_string(&done.checks.table),
            failed_checks: done
                .checks
                .failed_checks
                .iter()
                .map(|c| c_string(c))
                .collect(),
            series: done
                .records
                .iter()
                .map(|r| r.timeseries.iter().map(FlatSeries::of).collect())
                .collect(),
        }
    }
}

/// `h5perf_spread`: the spread of one phase and its slowest and fastest rank.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct H5perfSpread {
    /// Sample standard deviation over iterations of the slowest rank's time (s).
    pub std_time: f64,
    /// Sample standard deviation over iterations of the throughput (MiB/s).
    pub std_mibps: f64,
    /// bytes / min_time in GB/s (10^9 bytes/s).
    pub max_gbps: f64,
    /// bytes / avg_time in GB/s.
    pub avg_gbps: f64,
    /// bytes / max_time in GB/s.
    pub min_gbps: f64,
    /// 1 when the slowest and fastest rank are known (rank 0 of the communicator).
    pub known: i32,
    /// The rank with the largest time of any iteration.
    pub slowest_rank: i32,
    /// That iteration (0-based).
    pub slowest_iteration: i32,
    /// The rank with the smallest time of any iteration.
    pub fastest_rank: i32,
    /// The slowest rank's time (s): the phase's `max_time`.
    pub slowest_time: f64,
    /// The fastest rank's time (s).
    pub fastest_time: f64,
    /// The slowest rank's host ("" when not known); valid until `h5perf_results_free`.
    pub slowest_host: *const c_char,
    /// The fastest rank's host.
    pub fastest_host: *const c_char,
}

/// `h5perf_latency`: the transfer calls' latencies of one direction of a record
/// (`--latency`, issue 31), every rank and iteration, in seconds.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct H5perfLatency {
    /// Calls timed (0: none, the other fields 0 and "").
    pub calls: u64,
    /// The shortest call (s).
    pub min: f64,
    /// The median (s), within 0.79 % ([`crate::measure::latency`]).
    pub p50: f64,
    /// The 90th percentile (s).
    pub p90: f64,
    /// The 99th percentile (s).
    pub p99: f64,
    /// The 99.9th percentile (s).
    pub p999: f64,
    /// The longest call (s).
    pub max: f64,
    /// The rank (of the communicator) that made the longest call.
    pub max_rank: i32,
    /// Its host; valid until `h5perf_results_free`.
    pub max_host: *const c_char,
}

/// `h5perf_timeseries`: the bytes every rank completed per interval of one phase of a
/// record (`--timeseries`, issue 31), as rank 0 gathered them after the phase.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct H5perfTimeseries {
    /// The iteration, 0-based.
    pub iteration: i32,
    /// `H5PERF_PHASE_RAW_WRITE` (a write phase) or `H5PERF_PHASE_RAW_READ`.
    pub phase: i32,
    /// The file, 1-based (as the data files are numbered).
    pub file: u64,
    /// The interval (s): `--timeseries`'s, doubled as often as the phase's longest rank
    /// needed ([`crate::measure::timeseries::Series::fold`]).
    pub interval: f64,
    /// Ranks (the record's processes).
    pub nranks: i32,
    /// Intervals per rank.
    pub intervals: usize,
    /// `bytes[rank × intervals + k]`: what `rank` completed in
    /// `[k × interval, (k + 1) × interval)` after the phase's start (its file's open);
    /// valid until `h5perf_results_free`.
    pub bytes: *const u64,
}

/// One phase's samples as `h5perf_timeseries` hands them out: every rank's intervals
/// one after another.
struct FlatSeries {
    iteration: u32,
    file: u64,
    read: bool,
    interval_s: f64,
    nranks: usize,
    intervals: usize,
    bytes: Vec<u64>,
}

impl FlatSeries {
    /// The samples of `s`, rank after rank (a rank with fewer intervals padded with 0).
    fn of(s: &crate::measure::timeseries::PhaseSeries) -> FlatSeries {
        let intervals = s.bytes.iter().map(Vec::len).max().unwrap_or(0);
        let mut bytes = vec![0u64; intervals * s.bytes.len()];
        for (rank, b) in s.bytes.iter().enumerate() {
            bytes[rank * intervals..rank * intervals + b.len()].copy_from_slice(b);
        }
        FlatSeries {
            iteration: s.iteration,
            file: s.file,
            read: s.read,
            interval_s: s.interval_s,
            nranks: s.bytes.len(),
            intervals,
            bytes,
        }
    }
}

/// A string from C as the bytes it holds: NULL = `None`.
/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn dest_of(p: *const c_char) -> Option<OsString> {
    // SAFETY: guaranteed by the caller.
    (!p.is_null()).then(|| OsStr::from_bytes(unsafe { CStr::from_ptr(p) }.to_bytes()).to_owned())
}

/// Collect `argv[1..argc]` as strings.
/// # Safety
/// `argv` holds `argc` valid NUL-terminated strings (or argc is 0); `None` for a NULL
/// `argv` or a negative `argc`.
unsafe fn args_of(argc: c_int, argv: *mut *mut c_char) -> Option<Vec<OsString>> {
    if argc < 0 {
        return None;
    }
    if argc == 0 {
        return Some(Vec::new());
    }
    if argv.is_null() {
        return None;
    }
    // SAFETY: i < argc, each NULL or NUL-terminated, guaranteed by the caller.
    (1..argc as usize)
        .map(|i| unsafe { dest_of(*argv.add(i)) })
        .collect()
}

/// `h5perf_main`: the program on `MPI_COMM_WORLD`; returns the exit status.
/// # Safety
/// `argv` holds `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn h5perf_main(argc: c_int, argv: *mut *mut c_char) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        match unsafe { args_of(argc, argv) } {
            Some(args) => app::run_program_with(&args, false),
            None => fail(1, "h5perf_main: NULL argument or argc < 0"),
        }
    })
}

/// `h5perf_last_error`: the message of the last failure on this thread.
#[no_mangle]
pub extern "C" fn h5perf_last_error() -> *const c_char {
    // The CString lives in the thread-local until the next failure on this thread.
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// `h5perf_version`: `"h5perf X.Y.Z"`.
#[no_mangle]
pub extern "C" fn h5perf_version() -> *const c_char {
    static VERSION: &str = concat!("h5perf ", env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr() as *const c_char
}
