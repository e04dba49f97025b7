//! The configuration objects of the C API: `h5perf_config_new`, `_free`, `_parse`, the
//! keyed setter `h5perf_config_set` (any option by its command-line name, through the
//! command line's option table, with its checks and messages) and the typed setters
//! (thin wrappers: each checks its value with the rule of the matching option and words
//! a refusal as a sentence naming the value).

use std::convert::Infallible;
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::app;
use crate::cli::{self, Command};
use crate::config::values::{
    count, debug_level, file_name, positive_size, size, ValueError, STDOUT_HINT,
};
use crate::config::Options;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};

use super::{args_of, code_of, config_mut, fail, guard, H5perfConfig, H5PERF_EINVAL, H5PERF_OK};

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

/// `h5perf_config_set`: the option `option` (its command-line name without dashes, or
/// its short letter) with `value` as the command line takes it (NULL: no value), through
/// the command line's option table ([`cli::set`]): the same checks and messages.
///
/// # Safety
/// `cfg` is NULL or from `h5perf_config_new`; `option` and `value` are NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn h5perf_config_set(
    cfg: *mut H5perfConfig,
    option: *const c_char,
    value: *const c_char,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let (Some(c), false) = (unsafe { config_mut(cfg) }, option.is_null()) else {
            return fail(H5PERF_EINVAL, "h5perf: NULL configuration or option");
        };
        // SAFETY: non-NULL and NUL-terminated, guaranteed by the caller.
        let option = unsafe { CStr::from_ptr(option) }.to_string_lossy();
        // SAFETY: guaranteed by the caller.
        let value = unsafe { dest_of(value) };
        match cli::set(&mut c.opts, &option, value.as_deref()) {
            Ok(()) => H5PERF_OK,
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

/// Store the value a rule accepted in `field`, or refuse it with a sentence naming it
/// `what` (`bytes per process (N) is too large (at most M)`).
fn put<T>(
    field: &mut T,
    checked: Result<T, ValueError>,
    what: &'static str,
) -> Result<(), ValueError> {
    *field = checked.map_err(|e| e.named(what))?;
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
/// Typed setters of a value with a rule: each stores what the rule accepts, or refuses
/// the value with a sentence naming it (`block size (N) is too large (at most M)`).
macro_rules! checked_setters {
    ($($name:ident($ty:ty) $opt:literal => $field:ident = $rule:ident, $what:literal;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (", $opt, "), checked by `", stringify!($rule), "`.")]
        ///
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, v: $ty) -> c_int {
            // SAFETY: forwarded from the caller.
            unsafe { set(cfg, |c| put(&mut c.opts.$field, $rule(v), $what)) }
        }
    )*};
}

checked_setters! {
    h5perf_config_set_num_bytes(u64) "-e, bytes; 0 = default" => num_bytes = size, "bytes per process";
    h5perf_config_set_min_xfer_size(u64) "-x, bytes; 0 = default" => buf_min = size, "minimum transfer size";
    h5perf_config_set_max_xfer_size(u64) "-X, bytes; 0 = default" => buf_max = size, "maximum transfer size";
    h5perf_config_set_block_size(u64) "-B, bytes; 0 = default" => blk_size = size, "block size";
    h5perf_config_set_align(u64) "-a, bytes, at least 1" => h5_align = positive_size, "HDF5 alignment";
    h5perf_config_set_threshold(u64) "-T, bytes" => h5_thresh = size, "HDF5 alignment threshold";
    h5perf_config_set_num_files(u64) "-F, at least 1" => num_files = count, "number of files";
    h5perf_config_set_num_dsets(u64) "-d, at least 1" => num_dsets = count, "number of datasets";
}

/// Typed setters without a rule: any value of the C type is taken (flags: non-zero = on).
macro_rules! plain_setters {
    ($($name:ident($ty:ty) $opt:literal => |$v:ident| $field:ident = $value:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (", $opt, ").")]
        ///
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, $v: $ty) -> c_int {
            // SAFETY: forwarded from the caller.
            unsafe {
                set(cfg, |c| {
                    c.opts.$field = $value;
                    Ok::<(), Infallible>(())
                })
            }
        }
    )*};
}

plain_setters! {
    h5perf_config_set_iterations(u32) "-i; 0 counts as 1" => |v| num_iters = v;
    h5perf_config_set_min_procs(u32) "-p; 0 counts as 1" => |v| min_procs = v;
    h5perf_config_set_max_procs(u32) "-P; 0 = the communicator's size" => |v| max_procs = (v != 0).then_some(v);
    h5perf_config_set_chunk(c_int) "-c" => |on| chunk = on != 0;
    h5perf_config_set_collective(c_int) "-C" => |on| collective = on != 0;
    h5perf_config_set_2d(c_int) "-g" => |on| dim2d = on != 0;
    h5perf_config_set_interleaved(c_int) "-I" => |on| interleaved = on != 0;
    h5perf_config_set_write_only(c_int) "-w" => |on| write_only = on != 0;
    h5perf_config_set_progress(c_int) "--progress: progress lines on stderr" => |on| progress = on != 0;
    h5perf_config_set_summary(c_int) "--summary: the summary table after the report" => |on| summary = on != 0;
}

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
            c.opts.debug.level = debug_level(i64::from(level))?;
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
    ($(#[$doc:meta])* $name:ident, $field:ident, $what:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `cfg` is NULL or from `h5perf_config_new`; `path` is NULL or NUL-terminated.
        #[no_mangle]
        pub unsafe extern "C" fn $name(cfg: *mut H5perfConfig, path: *const c_char) -> c_int {
            // SAFETY: forwarded from the caller.
            let p = unsafe { dest_of(path) };
            let checked = p.as_deref().map(|f| file_name(f, STDOUT_HINT)).transpose();
            // SAFETY: forwarded from the caller.
            unsafe { set(cfg, |c| put(&mut c.opts.$field, checked, $what)) }
        }
    };
}

dest_setter!(
    /// `h5perf_config_set_json` (--json): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_json, json, "JSON file name"
);
dest_setter!(
    /// `h5perf_config_set_csv` (--csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_csv, csv, "CSV file name"
);
dest_setter!(
    /// `h5perf_config_set_rank_csv` (--rank-csv): NULL = none, `-` = stdout, else a file.
    h5perf_config_set_rank_csv, rank_csv, "rank CSV file name"
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
                    put(
                        &mut c.opts.output,
                        file_name(f, "").map(Some),
                        "report file name",
                    )?;
                    c.report_stdout = false;
                }
            }
            Ok(())
        })
    }
}
