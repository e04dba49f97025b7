//! The C API's configuration objects: new, free, parse, the keyed and the typed setters.

use std::ffi::{c_char, c_int, c_uint, CStr, OsString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::app;
use crate::cli::{self, Command};
use crate::config::values::{
    count, debug_level, file_name, positive_size, size, ValueError, STDOUT_HINT,
};
use crate::error::path_text;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};

use super::{args_of, code_of, dest_of, fail, guard, H5perfConfig, H5PERF_EINVAL, H5PERF_OK};

/// `h5perf_config_new`.
#[no_mangle]
pub extern "C" fn h5perf_config_new() -> *mut H5perfConfig {
    catch_unwind(|| Box::into_raw(Box::new(H5perfConfig::new()))).unwrap_or(std::ptr::null_mut())
}

/// `h5perf_config_free`.
/// # Safety
/// `cfg` is NULL or a pointer returned by `h5perf_config_new`, freed once.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_free(cfg: *mut H5perfConfig) {
    if !cfg.is_null() {
        // SAFETY: guaranteed by the caller.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(cfg) })));
    }
}

/// `h5perf_config_parse`.
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
        let (Some(c), Some(args)) = (unsafe { cfg.as_mut() }, unsafe { args_of(argc, argv) })
        else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_config_parse: NULL configuration or argument, or argc < 0",
            );
        };
        match cli::parse(&args) {
            Ok(Command::Run(o)) => {
                // the parsed command line replaces every setting, the report included
                c.opts = o;
                c.report_stdout = false;
                // SAFETY: argc > 0 means argv[0] is valid (guaranteed by the caller).
                let program = (argc > 0 && !argv.is_null())
                    .then(|| unsafe { dest_of(*argv) })
                    .flatten()
                    .map_or_else(|| "(library)".to_string(), |p| path_text(&p));
                c.words = std::iter::once(program)
                    .chain(args.iter().map(|a| path_text(a)))
                    .collect();
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

/// `h5perf_config_set`: option `option` (long name or letter) = `value` as on the command line.
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`; `option`, `value` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_set(
    cfg: *mut H5perfConfig,
    option: *const c_char,
    value: *const c_char,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let (Some(c), false) = (unsafe { cfg.as_mut() }, option.is_null()) else {
            return fail(H5PERF_EINVAL, "h5perf: NULL configuration or option");
        };
        // SAFETY: non-NULL and NUL-terminated, guaranteed by the caller.
        let option = unsafe { CStr::from_ptr(option) }.to_string_lossy();
        // SAFETY: guaranteed by the caller.
        let value = unsafe { dest_of(value) };
        match cli::set(&mut c.opts, &option, value.as_deref()) {
            Ok(()) => {
                // recorded as given: "--name" ("-x" for a letter), then the value
                let name = match option.strip_prefix('-') {
                    Some(_) => option.to_string(),
                    None if option.chars().count() == 1 => format!("-{option}"),
                    None => format!("--{option}"),
                };
                c.words.push(name);
                c.words.extend(value.as_deref().map(path_text));
                H5PERF_OK
            }
            Err(e) => fail(code_of(&e), &app::error_message(&e)),
        }
    })
}

/// Apply `f` to `cfg` and record the call as `call()` gives it (for the command line
/// the results hold); a refusal becomes `H5PERF_EINVAL` with `h5perf: <refusal>`.
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`.
unsafe fn set(
    cfg: *mut H5perfConfig,
    call: impl FnOnce() -> String,
    f: impl FnOnce(&mut H5perfConfig) -> Result<(), ValueError>,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let Some(c) = (unsafe { cfg.as_mut() }) else {
            return fail(H5PERF_EINVAL, "h5perf: NULL configuration");
        };
        match f(c) {
            Ok(()) => {
                c.words.push(call());
                H5PERF_OK
            }
            Err(m) => fail(H5PERF_EINVAL, &format!("h5perf: {}", m.reason())),
        }
    })
}

/// Store the value a rule accepted in `field`, or refuse it naming it `what`.
fn put<T>(
    field: &mut T,
    checked: Result<T, ValueError>,
    what: &'static str,
) -> Result<(), ValueError> {
    *field = checked.map_err(|e| ValueError::from(e.named(what).to_string()))?;
    Ok(())
}

fn store<T>(field: &mut T, value: T) -> Result<(), ValueError> {
    *field = value;
    Ok(())
}

/// The entry of `table` at `v`, or the refusal `why`.
fn pick<T: Copy>(table: &[T], v: c_int, why: impl FnOnce() -> String) -> Result<T, ValueError> {
    usize::try_from(v)
        .ok()
        .and_then(|i| table.get(i).copied())
        .ok_or_else(|| ValueError::from(why()))
}

/// The typed setters: `|c| body` on the configuration; a refusal is `H5PERF_EINVAL`.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident($v:ident: $ty:ty), |$c:ident| $body:expr;)*) => {$(
        $(#[$doc])*
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`; a string is NULL or NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, $v: $ty) -> c_int {
            // SAFETY: forwarded from the caller (a string NULL or NUL-terminated).
            let call = || format!("{}({})", stringify!($name), unsafe { $v.call_text() });
            // SAFETY: forwarded from the caller.
            unsafe { set(cfg, call, |$c| $body) }
        }
    )*};
}

/// A typed setter's argument as the recorded command line shows it.
trait CallText {
    /// The value as C would write it: a number, a quoted string or `NULL`.
    /// # Safety
    /// A string pointer is NULL or NUL-terminated.
    unsafe fn call_text(&self) -> String;
}

macro_rules! numbers_as_text {
    ($($t:ty),*) => {$(
        impl CallText for $t {
            unsafe fn call_text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
numbers_as_text!(u64, u32, c_int);

impl CallText for *const c_char {
    unsafe fn call_text(&self) -> String {
        // SAFETY: guaranteed by the caller.
        match unsafe { dest_of(*self) } {
            Some(s) => format!("\"{}\"", path_text(&s)),
            None => "NULL".to_string(),
        }
    }
}

/// `H5PERF_FILL_VALUE_UNSET`: no `--fill-value` (HDF5's default fill value, 0).
pub const H5PERF_FILL_VALUE_UNSET: c_int = -1;
/// `H5PERF_FILL_VALUE_UNDEFINED`: `--fill-value=undefined`.
pub const H5PERF_FILL_VALUE_UNDEFINED: c_int = -2;

setters! {
    /// `h5perf_config_set_apis` (-A): bit mask of `H5PERF_API_*`, 0 = all.
    h5perf_config_set_apis(mask: c_uint), |c| {
        if mask & !7 != 0 {
            return Err(format!("unknown API bits in mask {mask:#x}").into());
        }
        c.opts.apis.posix = mask & 1 != 0;
        c.opts.apis.mpiio = mask & 2 != 0;
        c.opts.apis.phdf5 = mask & 4 != 0;
        Ok(())
    };
    /// `h5perf_config_set_num_bytes` (-e, bytes; 0 = default).
    h5perf_config_set_num_bytes(v: u64),
        |c| put(&mut c.opts.num_bytes, size(v), "bytes per process");
    /// `h5perf_config_set_min_xfer_size` (-x, bytes; 0 = default).
    h5perf_config_set_min_xfer_size(v: u64),
        |c| put(&mut c.opts.buf_min, size(v), "minimum transfer size");
    /// `h5perf_config_set_max_xfer_size` (-X, bytes; 0 = default).
    h5perf_config_set_max_xfer_size(v: u64),
        |c| put(&mut c.opts.buf_max, size(v), "maximum transfer size");
    /// `h5perf_config_set_block_size` (-B, bytes; 0 = default).
    h5perf_config_set_block_size(v: u64), |c| put(&mut c.opts.blk_size, size(v), "block size");
    /// `h5perf_config_set_align` (-a, bytes, at least 1).
    h5perf_config_set_align(v: u64),
        |c| put(&mut c.opts.h5_align, positive_size(v), "HDF5 alignment");
    /// `h5perf_config_set_threshold` (-T, bytes).
    h5perf_config_set_threshold(v: u64),
        |c| put(&mut c.opts.h5_thresh, size(v), "HDF5 alignment threshold");
    /// `h5perf_config_set_num_files` (-F, at least 1).
    h5perf_config_set_num_files(v: u64),
        |c| put(&mut c.opts.num_files, count(v), "number of files");
    /// `h5perf_config_set_num_dsets` (-d, at least 1).
    h5perf_config_set_num_dsets(v: u64),
        |c| put(&mut c.opts.num_dsets, count(v), "number of datasets");
    /// `h5perf_config_set_iterations` (-i; 0 counts as 1).
    h5perf_config_set_iterations(v: u32), |c| store(&mut c.opts.num_iters, v);
    /// `h5perf_config_set_min_procs` (-p; 0 counts as 1).
    h5perf_config_set_min_procs(v: u32), |c| store(&mut c.opts.min_procs, v);
    /// `h5perf_config_set_max_procs` (-P; 0 = the communicator's size).
    h5perf_config_set_max_procs(v: u32), |c| store(&mut c.opts.max_procs, (v != 0).then_some(v));
    /// `h5perf_config_set_chunk` (-c).
    h5perf_config_set_chunk(on: c_int), |c| store(&mut c.opts.chunk, on != 0);
    /// `h5perf_config_set_collective` (-C).
    h5perf_config_set_collective(on: c_int), |c| store(&mut c.opts.collective, on != 0);
    /// `h5perf_config_set_2d` (-g).
    h5perf_config_set_2d(on: c_int), |c| store(&mut c.opts.dim2d, on != 0);
    /// `h5perf_config_set_interleaved` (-I).
    h5perf_config_set_interleaved(on: c_int), |c| store(&mut c.opts.interleaved, on != 0);
    /// `h5perf_config_set_write_only` (-w).
    h5perf_config_set_write_only(on: c_int), |c| store(&mut c.opts.write_only, on != 0);
    /// `h5perf_config_set_progress` (--progress: progress lines on stderr).
    h5perf_config_set_progress(on: c_int), |c| store(&mut c.opts.progress, on != 0);
    /// `h5perf_config_set_summary` (--summary: the summary table after the report).
    h5perf_config_set_summary(on: c_int), |c| store(&mut c.opts.summary, on != 0);
    /// `h5perf_config_set_fill_value` (--fill-value): 0..=255, `_UNDEFINED` (-2), `_UNSET` (-1).
    h5perf_config_set_fill_value(v: c_int), |c| {
        c.opts.fill.value = match v {
            H5PERF_FILL_VALUE_UNSET => None,
            H5PERF_FILL_VALUE_UNDEFINED => Some(FillValue::Undefined),
            _ => Some(FillValue::Byte(u8::try_from(v).map_err(|_| format!("fill value ({v}) \
                must be a byte 0..255, H5PERF_FILL_VALUE_UNDEFINED or H5PERF_FILL_VALUE_UNSET"))?)),
        };
        Ok(())
    };
    /// `h5perf_config_set_fill_time`: `_UNSET` 0, `_NEVER` 1 (-n), `_IFSET` 2, `_ALLOC` 3.
    h5perf_config_set_fill_time(v: c_int), |c| {
        let times = [None, Some(FillTime::Never), Some(FillTime::IfSet), Some(FillTime::Alloc)];
        let why = || format!("fill time ({v}) must be one of H5PERF_FILL_TIME_* (0..3)");
        store(&mut c.opts.fill.time, pick(&times, v, why)?)
    };
    /// `h5perf_config_set_alloc_time`: `_UNSET` 0, `_DEFAULT` 1, `_EARLY` 2, `_INCR` 3, `_LATE` 4.
    h5perf_config_set_alloc_time(v: c_int), |c| {
        use AllocTime as A;
        let times = [None, Some(A::Default), Some(A::Early), Some(A::Incr), Some(A::Late)];
        let why = || format!("allocation time ({v}) must be one of H5PERF_ALLOC_TIME_* (0..4)");
        store(&mut c.opts.fill.alloc, pick(&times, v, why)?)
    };
    /// `h5perf_config_set_json` (--json): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_json(path: *const c_char),
        |c| put(&mut c.opts.json, dest(path), "JSON file name");
    /// `h5perf_config_set_csv` (--csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_csv(path: *const c_char),
        |c| put(&mut c.opts.csv, dest(path), "CSV file name");
    /// `h5perf_config_set_rank_csv` (--rank-csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_rank_csv(path: *const c_char),
        |c| put(&mut c.opts.rank_csv, dest(path), "rank CSV file name");
    /// `h5perf_config_set_report`: NULL = no report, "-" = stdout, else a file (-o).
    h5perf_config_set_report(path: *const c_char), |c| {
        let p = dest_of(path);
        let stdout = p.as_deref().is_some_and(|f| f == "-");
        let file = p.filter(|_| !stdout).map(|f| file_name(&f, "")).transpose();
        put(&mut c.opts.output, file, "report file name")?;
        c.report_stdout = stdout;
        Ok(())
    };
}

/// `h5perf_config_set_debug` (-D): level 0..4 (larger counts as 4), raw, times, verify.
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
    let call = || format!("h5perf_config_set_debug({level}, {raw}, {times}, {verify})");
    // SAFETY: forwarded from the caller.
    unsafe {
        set(cfg, call, |c| {
            c.opts.debug.level = debug_level(i64::from(level)).map_err(|e| e.to_string())?;
            c.opts.debug.raw = raw != 0;
            c.opts.debug.times = times != 0;
            c.opts.debug.verify = verify != 0;
            Ok(())
        })
    }
}

/// A results file's destination from C, checked: NULL = none, `-` = stdout, else a file.
/// # Safety
/// `path` is NULL or NUL-terminated.
unsafe fn dest(path: *const c_char) -> Result<Option<OsString>, ValueError> {
    // SAFETY: guaranteed by the caller.
    let p = unsafe { dest_of(path) };
    p.as_deref().map(|f| file_name(f, STDOUT_HINT)).transpose()
}
