//! The C API (`include/h5perf.h`): configuration objects, runs on a caller's
//! communicator with the results as data, the whole program as a function, and error
//! messages as strings.
//!
//! Every function catches panics (none may unwind into C), checks its pointers, and
//! reports failures as an `H5PERF_E*` code plus a per-thread message. Nothing here
//! initialises or finalises MPI except [`h5perf_main`], which behaves like the program.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::app;
use crate::cli::{self, Command};
use crate::config::ValueError;
use crate::config::{Api, Options};
use crate::error::Error;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
use crate::ffi::mpi::{self, Comm};
use crate::measure::{Phase, Record, TimeStats};

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

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn fail(code: c_int, msg: &str) -> c_int {
    set_error(msg);
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

/// The configuration behind `h5perf_config *`.
pub struct H5perfConfig {
    opts: Options,
    /// Text report to stdout (`set_report("-")`).
    report_stdout: bool,
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
    /// The records as the engine made them (per-rank samples, extremes, spread).
    full: Vec<Record>,
    /// The run metadata as (key, value) C strings (see `h5perf_results_meta`).
    meta: Vec<(&'static str, CString)>,
    /// The host of each rank of the communicator.
    rank_hosts: Vec<CString>,
}

/// A C string of `s` (NUL bytes replaced by blanks).
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

impl H5perfResults {
    /// The results of a finished run.
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
        H5perfResults {
            records: done.records.iter().map(H5perfRecord::from).collect(),
            wrong_bytes: done.wrong_bytes,
            full: done.records.clone(),
            meta,
            rank_hosts,
        }
    }
}

/// `h5perf_spread`: the spread of one phase over iterations and its slowest and
/// fastest rank.
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

/// Borrow the configuration behind a C pointer.
///
/// # Safety
/// `cfg` is NULL or a pointer returned by `h5perf_config_new` and not yet freed.
unsafe fn config_mut<'a>(cfg: *mut H5perfConfig) -> Option<&'a mut H5perfConfig> {
    // SAFETY: guaranteed by the caller.
    unsafe { cfg.as_mut() }
}

/// `h5perf_config_new`.
#[no_mangle]
pub extern "C" fn h5perf_config_new() -> *mut H5perfConfig {
    catch_unwind(|| {
        Box::into_raw(Box::new(H5perfConfig {
            opts: Options::default(),
            report_stdout: false,
        }))
    })
    .unwrap_or(std::ptr::null_mut())
}

/// `h5perf_config_free`.
///
/// # Safety
/// `cfg` is NULL or a pointer returned by `h5perf_config_new`, freed once.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_free(cfg: *mut H5perfConfig) {
    if !cfg.is_null() {
        // SAFETY: guaranteed by the caller.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(cfg) })));
    }
}

/// Collect `argv[1..argc]` as strings.
///
/// # Safety
/// `argv` holds `argc` valid NUL-terminated strings (or argc <= 0).
unsafe fn args_of(argc: c_int, argv: *mut *mut c_char) -> Option<Vec<std::ffi::OsString>> {
    use std::os::unix::ffi::OsStrExt;
    if argc <= 0 {
        return Some(Vec::new());
    }
    if argv.is_null() {
        return None;
    }
    let mut v = Vec::new();
    for i in 1..argc as usize {
        // SAFETY: i < argc, guaranteed by the caller.
        let p = unsafe { *argv.add(i) };
        if p.is_null() {
            return None;
        }
        // SAFETY: NUL-terminated, guaranteed by the caller.
        v.push(std::ffi::OsStr::from_bytes(unsafe { CStr::from_ptr(p) }.to_bytes()).to_owned());
    }
    Some(v)
}

/// `h5perf_config_parse`.
///
/// # Safety
/// `cfg` from `h5perf_config_new`; `argv` holds `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_parse(
    cfg: *mut H5perfConfig,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let (Some(c), Some(args)) = (unsafe { config_mut(cfg) }, unsafe { args_of(argc, argv) })
        else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_config_parse: NULL configuration or argument",
            );
        };
        match cli::parse(&args) {
            Ok(Command::Run(o)) => {
                // the parsed command line replaces every setting, the report included
                c.opts = o;
                c.report_stdout = false;
                H5PERF_OK
            }
            Ok(_) => fail(
                H5PERF_EINVAL,
                "h5perf: --help, --version and --fill-behaviour do not configure a run",
            ),
            Err(e) => fail(code_of(&e), &app::error_message(&e)),
        }
    })
}

/// Apply `f` to the options of `cfg`; `f` returns the refusal of a value, whose text
/// becomes the message `h5perf: <refusal>` of `H5PERF_EINVAL`.
///
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`.
unsafe fn set<E: std::fmt::Display>(
    cfg: *mut H5perfConfig,
    f: impl FnOnce(&mut H5perfConfig) -> Result<(), E>,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let Some(c) = (unsafe { config_mut(cfg) }) else {
            return fail(H5PERF_EINVAL, "h5perf: NULL configuration");
        };
        match f(c) {
            Ok(()) => H5PERF_OK,
            Err(m) => fail(H5PERF_EINVAL, &format!("h5perf: {m}")),
        }
    })
}

/// The result of a setter without a rule to check (any value of its C type is taken).
fn unchecked() -> Result<(), std::convert::Infallible> {
    Ok(())
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident, $ty:ty, |$c:ident, $v:ident| $body:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, $v: $ty) -> c_int {
            // SAFETY: forwarded from the caller.
            unsafe { set(cfg, |$c| $body) }
        }
    };
}

setter!(
    /// `h5perf_config_set_apis` (-A): bit mask of `H5PERF_API_*`, 0 = all.
    h5perf_config_set_apis, c_uint, |c, mask| {
        if mask & !7 != 0 {
            return Err(format!("unknown API bits in mask {mask:#x}"));
        }
        c.opts.apis.posix = mask & 1 != 0;
        c.opts.apis.mpiio = mask & 2 != 0;
        c.opts.apis.phdf5 = mask & 4 != 0;
        Ok(())
    }
);
setter!(
    /// `h5perf_config_set_num_bytes` (-e), bytes; 0 = default.
    h5perf_config_set_num_bytes, u64, |c, v| c.opts.set_num_bytes(v)
);
setter!(
    /// `h5perf_config_set_min_xfer_size` (-x), bytes; 0 = default.
    h5perf_config_set_min_xfer_size, u64, |c, v| c.opts.set_min_xfer_size(v)
);
setter!(
    /// `h5perf_config_set_max_xfer_size` (-X), bytes; 0 = default.
    h5perf_config_set_max_xfer_size, u64, |c, v| c.opts.set_max_xfer_size(v)
);
setter!(
    /// `h5perf_config_set_block_size` (-B), bytes; 0 = default.
    h5perf_config_set_block_size, u64, |c, v| c.opts.set_block_size(v)
);
setter!(
    /// `h5perf_config_set_align` (-a), bytes, at least 1.
    h5perf_config_set_align, u64, |c, v| c.opts.set_align(v)
);
setter!(
    /// `h5perf_config_set_threshold` (-T), bytes.
    h5perf_config_set_threshold, u64, |c, v| c.opts.set_threshold(v)
);
setter!(
    /// `h5perf_config_set_num_files` (-F), at least 1.
    h5perf_config_set_num_files, u64, |c, v| c.opts.set_num_files(v)
);
setter!(
    /// `h5perf_config_set_num_dsets` (-d), at least 1.
    h5perf_config_set_num_dsets, u64, |c, v| c.opts.set_num_dsets(v)
);
setter!(
    /// `h5perf_config_set_iterations` (-i); 0 counts as 1.
    h5perf_config_set_iterations, u32, |c, v| { c.opts.num_iters = v; unchecked() }
);
setter!(
    /// `h5perf_config_set_min_procs` (-p); 0 counts as 1.
    h5perf_config_set_min_procs, u32, |c, v| { c.opts.min_procs = v; unchecked() }
);
setter!(
    /// `h5perf_config_set_max_procs` (-P); 0 = the communicator's size.
    h5perf_config_set_max_procs, u32, |c, v| { c.opts.max_procs = if v == 0 { None } else { Some(v) }; unchecked() }
);
setter!(
    /// `h5perf_config_set_chunk` (-c).
    h5perf_config_set_chunk, c_int, |c, v| { c.opts.chunk = v != 0; unchecked() }
);
setter!(
    /// `h5perf_config_set_collective` (-C).
    h5perf_config_set_collective, c_int, |c, v| { c.opts.collective = v != 0; unchecked() }
);
setter!(
    /// `h5perf_config_set_2d` (-g).
    h5perf_config_set_2d, c_int, |c, v| { c.opts.dim2d = v != 0; unchecked() }
);
setter!(
    /// `h5perf_config_set_interleaved` (-I).
    h5perf_config_set_interleaved, c_int, |c, v| { c.opts.interleaved = v != 0; unchecked() }
);
setter!(
    /// `h5perf_config_set_write_only` (-w).
    h5perf_config_set_write_only, c_int, |c, v| { c.opts.write_only = v != 0; unchecked() }
);

/// `H5PERF_FILL_VALUE_UNSET`: no `--fill-value` (HDF5's default fill value, 0).
pub const H5PERF_FILL_VALUE_UNSET: c_int = -1;
/// `H5PERF_FILL_VALUE_UNDEFINED`: `--fill-value=undefined`.
pub const H5PERF_FILL_VALUE_UNDEFINED: c_int = -2;

setter!(
    /// `h5perf_config_set_fill_value` (--fill-value): a byte 0..=255,
    /// `H5PERF_FILL_VALUE_UNDEFINED` (-2) or `H5PERF_FILL_VALUE_UNSET` (-1).
    h5perf_config_set_fill_value, c_int, |c, v| {
        c.opts.fill.value = match v {
            H5PERF_FILL_VALUE_UNSET => None,
            H5PERF_FILL_VALUE_UNDEFINED => Some(FillValue::Undefined),
            _ => match u8::try_from(v) {
                Ok(b) => Some(FillValue::Byte(b)),
                Err(_) => return Err(format!(
                    "fill value ({v}) must be a byte 0..255, H5PERF_FILL_VALUE_UNDEFINED or H5PERF_FILL_VALUE_UNSET"
                )),
            },
        };
        Ok(())
    }
);
setter!(
    /// `h5perf_config_set_fill_time` (--fill-time, -n): `H5PERF_FILL_TIME_UNSET` (0),
    /// `_NEVER` (1, the same as -n), `_IFSET` (2), `_ALLOC` (3).
    h5perf_config_set_fill_time, c_int, |c, v| {
        c.opts.fill.time = match v {
            0 => None,
            1 => Some(FillTime::Never),
            2 => Some(FillTime::IfSet),
            3 => Some(FillTime::Alloc),
            _ => return Err(format!("fill time ({v}) must be one of H5PERF_FILL_TIME_* (0..3)")),
        };
        Ok(())
    }
);
setter!(
    /// `h5perf_config_set_alloc_time` (--alloc-time): `H5PERF_ALLOC_TIME_UNSET` (0),
    /// `_DEFAULT` (1), `_EARLY` (2), `_INCR` (3), `_LATE` (4).
    h5perf_config_set_alloc_time, c_int, |c, v| {
        c.opts.fill.alloc = match v {
            0 => None,
            1 => Some(AllocTime::Default),
            2 => Some(AllocTime::Early),
            3 => Some(AllocTime::Incr),
            4 => Some(AllocTime::Late),
            _ => return Err(format!("allocation time ({v}) must be one of H5PERF_ALLOC_TIME_* (0..4)")),
        };
        Ok(())
    }
);

/// `h5perf_config_set_debug` (-D): level 0..4 (larger counts as 4), raw, times, verify.
///
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_set_debug(
    cfg: *mut H5perfConfig,
    level: c_int,
    raw: c_int,
    times: c_int,
    verify: c_int,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe {
        set(cfg, |c| -> Result<(), ValueError> {
            c.opts.set_debug_level(i64::from(level))?;
            c.opts.debug.raw = raw != 0;
            c.opts.debug.times = times != 0;
            c.opts.debug.verify = verify != 0;
            Ok(())
        })
    }
}

/// A results destination from C: NULL = none, else the name (`-` = stdout).
///
/// # Safety
/// `path` is NULL or NUL-terminated.
unsafe fn dest_of(path: *const c_char) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: guaranteed by the caller.
    (!path.is_null())
        .then(|| std::ffi::OsStr::from_bytes(unsafe { CStr::from_ptr(path) }.to_bytes()).to_owned())
}

macro_rules! dest_setter {
    ($(#[$doc:meta])* $name:ident, $field:ident, $setter:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`; `path` is NULL or NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, path: *const c_char) -> c_int {
            // SAFETY: forwarded from the caller.
            let p = unsafe { dest_of(path) };
            // SAFETY: forwarded from the caller.
            unsafe {
                set(cfg, |c| -> Result<(), ValueError> {
                    match p.as_deref() {
                        None => c.opts.$field = None,
                        Some(f) => c.opts.$setter(f)?,
                    }
                    Ok(())
                })
            }
        }
    };
}

dest_setter!(
    /// `h5perf_config_set_json` (--json): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_json, json, set_json
);
dest_setter!(
    /// `h5perf_config_set_csv` (--csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_csv, csv, set_csv
);
dest_setter!(
    /// `h5perf_config_set_rank_csv` (--rank-csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_rank_csv, rank_csv, set_rank_csv
);
setter!(
    /// `h5perf_config_set_progress` (--progress): progress lines on stderr.
    h5perf_config_set_progress, c_int, |c, on| {
        c.opts.progress = on != 0;
        unchecked()
    }
);
setter!(
    /// `h5perf_config_set_summary` (--summary): the summary table after the report.
    h5perf_config_set_summary, c_int, |c, on| {
        c.opts.summary = on != 0;
        unchecked()
    }
);

/// `h5perf_config_set_report`: NULL = no report, "-" = stdout, else a file (-o).
///
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`; `path` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_set_report(
    cfg: *mut H5perfConfig,
    path: *const c_char,
) -> c_int {
    // SAFETY: forwarded from the caller.
    let p = unsafe { dest_of(path) };
    // SAFETY: forwarded from the caller.
    unsafe {
        set(cfg, |c| -> Result<(), ValueError> {
            match p.as_deref() {
                None => {
                    c.report_stdout = false;
                    c.opts.output = None;
                }
                Some(f) if f == "-" => {
                    c.report_stdout = true;
                    c.opts.output = None;
                }
                Some(f) => {
                    c.opts.set_output(f)?;
                    c.report_stdout = false;
                }
            }
            Ok(())
        })
    }
}

/// `h5perf_run`.
///
/// # Safety
/// `cfg` from `h5perf_config_new`; `comm` a live communicator; `results` a valid
/// pointer to a `h5perf_results *`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_run(
    cfg: *const H5perfConfig,
    comm: mpi_sys::MPI_Comm,
    results: *mut *mut H5perfResults,
) -> c_int {
    guard(|| {
        if results.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_run: NULL results pointer");
        }
        // SAFETY: results is non-NULL and valid, guaranteed by the caller.
        unsafe { *results = std::ptr::null_mut() };
        // SAFETY: guaranteed by the caller.
        let Some(c) = (unsafe { cfg.as_ref() }) else {
            return fail(H5PERF_EINVAL, "h5perf_run: NULL configuration");
        };
        if !mpi::is_running() {
            return fail(
                H5PERF_EMPI,
                "h5perf_run: MPI is not initialised (call MPI_Init first)",
            );
        }
        let run = || -> crate::error::Result<app::Done> {
            let comm = Comm::dup_of(comm)?;
            let pairs = app::mpi_info_from_env()?;
            let caller = app::Caller {
                report: c.report_stdout,
                command_line: "h5perf_run".to_string(),
                program: false,
            };
            app::run_on(&comm, &c.opts, pairs.as_deref(), &caller)
        };
        match run() {
            Ok(done) => {
                let res = H5perfResults::of(&done);
                // SAFETY: results is valid (checked above).
                unsafe { *results = Box::into_raw(Box::new(res)) };
                if done.wrong_bytes > 0 {
                    fail(
                        H5PERF_EVERIFY,
                        &app::error_message(&Error::Verify(done.wrong_bytes)),
                    )
                } else {
                    H5PERF_OK
                }
            }
            Err(e) => fail(code_of(&e), &app::error_message(&e)),
        }
    })
}

/// `h5perf_results_count`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_count(res: *const H5perfResults) -> usize {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(0, |r| r.records.len())
}

/// `h5perf_results_get`: record `i`, or NULL.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_get(
    res: *const H5perfResults,
    i: usize,
) -> *const H5perfRecord {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }
        .and_then(|r| r.records.get(i))
        .map_or(std::ptr::null(), |r| r as *const _)
}

/// `h5perf_results_wrong_bytes`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_wrong_bytes(res: *const H5perfResults) -> u64 {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(0, |r| r.wrong_bytes)
}

/// Record `i` of `res` with its per-rank detail, if any.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`.
unsafe fn full_record<'a>(
    res: *const H5perfResults,
    i: usize,
) -> Option<(&'a H5perfResults, &'a Record)> {
    // SAFETY: guaranteed by the caller.
    let r = unsafe { res.as_ref() }?;
    Some((r, r.full.get(i)?))
}

/// `h5perf_results_spread`: the spread and the slowest and fastest rank of phase
/// `phase` (`H5PERF_PHASE_*`, the order of `Phase::ALL`) of record `i`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_spread(
    res: *const H5perfResults,
    i: usize,
    phase: c_int,
    out: *mut H5perfSpread,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let Some((all, r)) = (unsafe { full_record(res, i) }) else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_results_spread: NULL results or record out of range",
            );
        };
        let Some(ph) = usize::try_from(phase).ok().filter(|p| *p < 6) else {
            return fail(
                H5PERF_EINVAL,
                &format!("h5perf_results_spread: no phase {phase}"),
            );
        };
        if out.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_results_spread: NULL output");
        }
        let s = &r.phases[ph];
        let e = &r.extremes[ph];
        let host = |rank: u32| {
            all.rank_hosts
                .get(rank as usize)
                .filter(|_| e.known)
                .map_or(c"".as_ptr(), |h| h.as_ptr())
        };
        let v = H5perfSpread {
            std_time: s.std_time,
            std_mibps: s.std_mibps,
            max_gbps: s.max_gbps,
            avg_gbps: s.avg_gbps,
            min_gbps: s.min_gbps,
            known: i32::from(e.known),
            slowest_rank: e.slowest_rank as i32,
            slowest_iteration: e.slowest_iteration as i32,
            fastest_rank: e.fastest_rank as i32,
            slowest_time: e.slowest_time,
            fastest_time: e.fastest_time,
            slowest_host: host(e.slowest_rank),
            fastest_host: host(e.fastest_rank),
        };
        // SAFETY: out is non-NULL and writable, guaranteed by the caller.
        unsafe { out.write(v) };
        H5PERF_OK
    })
}

/// `h5perf_results_rank_time`: the own time (seconds) of `rank` in `iteration`
/// (0-based) and phase `phase` of record `i`, gathered after each iteration (rank 0 of
/// the communicator only).
///
/// # Safety
/// `res` is NULL or from `h5perf_run`; `seconds` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_rank_time(
    res: *const H5perfResults,
    i: usize,
    iteration: c_int,
    phase: c_int,
    rank: c_int,
    seconds: *mut f64,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let Some((_, r)) = (unsafe { full_record(res, i) }) else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_results_rank_time: NULL results or record out of range",
            );
        };
        let (Ok(it), Ok(ph), Ok(rk)) = (
            u32::try_from(iteration),
            usize::try_from(phase),
            u32::try_from(rank),
        ) else {
            return fail(H5PERF_EINVAL, "h5perf_results_rank_time: negative index");
        };
        if seconds.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_results_rank_time: NULL output");
        }
        match r.sample(it, rk, ph) {
            Some(t) => {
                // SAFETY: non-NULL and writable, guaranteed by the caller.
                unsafe { seconds.write(t) };
                H5PERF_OK
            }
            None => fail(
                H5PERF_EINVAL,
                &format!(
                    "h5perf_results_rank_time: no sample for iteration {iteration}, phase {phase}, rank {rank} (out of range, or not rank 0)"
                ),
            ),
        }
    })
}

/// `h5perf_results_meta`: the run metadata value of `key` (`complete`, `start_time`,
/// `end_time`, `command_line`, `data_dir`, `fs_type`, `mpi_info`, `hosts`,
/// `h5perf_version`, `hdf5_version`, `mpi_version`, `world_size`, `hostname_count`) as
/// text, or NULL for another key. Valid until `h5perf_results_free`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`; `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_meta(
    res: *const H5perfResults,
    key: *const c_char,
) -> *const c_char {
    if key.is_null() {
        return std::ptr::null();
    }
    // SAFETY: guaranteed by the caller.
    let (Some(r), k) = (unsafe { res.as_ref() }, unsafe { CStr::from_ptr(key) }) else {
        return std::ptr::null();
    };
    let k = k.to_string_lossy();
    r.meta
        .iter()
        .find(|(name, _)| *name == k)
        .map_or(std::ptr::null(), |(_, v)| v.as_ptr())
}

/// `h5perf_results_rank_host`: the host name of `rank` of the communicator, or NULL.
/// Valid until `h5perf_results_free`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_rank_host(
    res: *const H5perfResults,
    rank: c_int,
) -> *const c_char {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }
        .and_then(|r| r.rank_hosts.get(usize::try_from(rank).ok()?))
        .map_or(std::ptr::null(), |h| h.as_ptr())
}

/// `h5perf_results_free`.
///
/// # Safety
/// `res` is NULL or from `h5perf_run`, freed once.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_free(res: *mut H5perfResults) {
    if !res.is_null() {
        // SAFETY: guaranteed by the caller.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(res) })));
    }
}

/// `h5perf_main`: the program on `MPI_COMM_WORLD`; returns the exit status.
///
/// # Safety
/// `argv` holds `argc` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn h5perf_main(argc: c_int, argv: *mut *mut c_char) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        match unsafe { args_of(argc, argv) } {
            Some(args) => app::run_program_with(&args, false),
            None => fail(1, "h5perf_main: NULL argument"),
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
