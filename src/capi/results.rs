//! Runs on a caller's communicator (`h5perf_run`) and their results as data.

use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::app;
use crate::cli;
use crate::error::Error;
use crate::ffi::mpi::{self, Comm};
use crate::measure::Record;

use crate::measure::{FileCall, LatencyFigures};

use super::{
    code_of, fail, guard, H5perfConfig, H5perfLatency, H5perfRecord, H5perfResults, H5perfSpread,
    H5perfTimeseries, H5PERF_EINCONCLUSIVE, H5PERF_EINVAL, H5PERF_EMPI, H5PERF_EVERDICT,
    H5PERF_EVERIFY, H5PERF_OK,
};

/// `H5PERF_PHASE_RAW_WRITE`: the phase index of a write phase's samples.
const PHASE_RAW_WRITE: i32 = 0;
/// `H5PERF_PHASE_RAW_READ`: the phase index of a read phase's samples.
const PHASE_RAW_READ: i32 = 3;

/// `h5perf_run`.
/// # Safety
/// `cfg` from `h5perf_config_new`; `comm` live; `results` a valid `h5perf_results **`.
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
        if mpi::is_comm_null(comm) {
            return fail(
                H5PERF_EINVAL,
                "h5perf_run: the communicator is MPI_COMM_NULL (pass the communicator of the ranks that run, e.g. MPI_COMM_WORLD)",
            );
        }
        let run = || -> crate::error::Result<app::Done> {
            // the command line's checks of the whole line, as a refused combination
            cli::check(&c.opts).map_err(|e| match e {
                Error::Usage(m) => Error::Invalid(vec![m]),
                e => e,
            })?;
            let comm = Comm::dup_of(comm)?;
            // a panic from here on aborts the job: the other ranks could not be freed
            let _armed = app::panics::armed(comm.rank()?);
            let pairs = app::mpi_info_from_env()?.map(|i| i.pairs);
            let caller = app::Caller {
                report: c.report_stdout,
                command_line: c.command_line(),
                program: false,
            };
            app::run_on(&comm, &c.opts, pairs.as_deref(), &caller)
        };
        match run() {
            Ok(done) => {
                let res = H5perfResults::of(&done);
                // SAFETY: results is valid (checked above).
                unsafe { *results = Box::into_raw(Box::new(res)) };
                // the summary is rank 0's
                let verdict = |word: &str| match done.checks.summary.as_str() {
                    "" => format!("h5perf: verdict {word}"),
                    s => format!("h5perf: verdict {word}: {s}"),
                };
                if done.wrong_bytes > 0 {
                    fail(
                        H5PERF_EVERIFY,
                        &app::error_message(&Error::Verify(done.wrong_bytes)),
                    )
                } else if done.checks.failed > 0 {
                    fail(H5PERF_EVERDICT, &verdict("FAIL"))
                } else if done.checks.undecided > 0 {
                    fail(H5PERF_EINCONCLUSIVE, &verdict("INCONCLUSIVE"))
                } else {
                    H5PERF_OK
                }
            }
            Err(e) => fail(code_of(&e), &app::error_message(&e)),
        }
    })
}

/// `h5perf_results_count`.
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_count(res: *const H5perfResults) -> usize {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(0, |r| r.records.len())
}

/// `h5perf_results_get`: record `i`, or NULL.
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
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_wrong_bytes(res: *const H5perfResults) -> u64 {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(0, |r| r.wrong_bytes)
}

/// Record `i` of `res` with its per-rank detail, if any.
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

/// Record `i` of `res` and phase `phase` (0..6) for the accessor `name`, or the return
/// code of its failure ([`fail`]: `H5PERF_EINVAL` with the message set).
/// # Safety
/// `res` is NULL or from `h5perf_run`.
unsafe fn record_phase<'a>(
    res: *const H5perfResults,
    i: usize,
    phase: c_int,
    name: &str,
) -> Result<(&'a H5perfResults, &'a Record, usize), c_int> {
    // SAFETY: guaranteed by the caller.
    let Some((all, r)) = (unsafe { full_record(res, i) }) else {
        return Err(fail(
            H5PERF_EINVAL,
            &format!("{name}: NULL results or record out of range"),
        ));
    };
    match usize::try_from(phase).ok().filter(|p| *p < 6) {
        Some(ph) => Ok((all, r, ph)),
        None => Err(fail(H5PERF_EINVAL, &format!("{name}: no phase {phase}"))),
    }
}

/// `h5perf_results_spread`: spread and extreme ranks of phase `phase` of record `i`.
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
        let (all, r, ph) = match unsafe { record_phase(res, i, phase, "h5perf_results_spread") } {
            Ok(x) => x,
            Err(rc) => return rc,
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

/// `h5perf_results_latency`: the latencies of the calls of phase `phase`'s direction
/// (write or read) of record `i` (`--latency`). `H5PERF_EINVAL` for a NULL argument,
/// `i` out of range, an unknown phase, or a run without `--latency`.
/// # Safety
/// `res` is NULL or from `h5perf_run`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_latency(
    res: *const H5perfResults,
    i: usize,
    phase: c_int,
    out: *mut H5perfLatency,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let (all, r, ph) = match unsafe { record_phase(res, i, phase, "h5perf_results_latency") } {
            Ok(x) => x,
            Err(rc) => return rc,
        };
        if out.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_results_latency: NULL output");
        }
        let Some(lat) = &r.latency else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_results_latency: the run was made without --latency",
            );
        };
        let l = &lat[usize::from(crate::terms::Phase::ALL[ph].is_read())];
        let v = latency_of(all, l);
        // SAFETY: out is non-NULL and writable, guaranteed by the caller.
        unsafe { out.write(v) };
        H5PERF_OK
    })
}

/// The `h5perf_latency` of `l`: every figure 0 and the host "" when no call was timed.
fn latency_of(all: &H5perfResults, l: &LatencyFigures) -> H5perfLatency {
    let (min, max) = l.min_max_s().unwrap_or((0.0, 0.0));
    let q = l.quantiles_s().unwrap_or([0.0; 4]);
    let host = all
        .rank_hosts
        .get(l.max_rank as usize)
        .filter(|_| l.count() != 0)
        .map_or(c"".as_ptr(), |h| h.as_ptr());
    H5perfLatency {
        calls: l.count(),
        min,
        p50: q[0],
        p90: q[1],
        p99: q[2],
        p999: q[3],
        max,
        max_rank: l.max_rank as i32,
        max_host: host,
    }
}

/// `h5perf_results_file_latency`: the latencies of the file call `call`
/// (`H5PERF_CALL_OPEN`, `H5PERF_CALL_SYNC`, `H5PERF_CALL_CLOSE`: [`FileCall::ALL`]'s
/// order) of phase `phase`'s direction of record `i` (`--latency`; a sync only of a
/// write phase with `--fsync`, else 0 calls). `H5PERF_EINVAL` for a NULL argument, `i` out of range, an
/// unknown phase or call, or a run without `--latency`.
/// # Safety
/// `res` is NULL or from `h5perf_run`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_file_latency(
    res: *const H5perfResults,
    i: usize,
    phase: c_int,
    call: c_int,
    out: *mut H5perfLatency,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let (all, r, ph) =
            match unsafe { record_phase(res, i, phase, "h5perf_results_file_latency") } {
                Ok(x) => x,
                Err(rc) => return rc,
            };
        let Some(c) = usize::try_from(call)
            .ok()
            .filter(|c| *c < FileCall::ALL.len())
        else {
            return fail(
                H5PERF_EINVAL,
                &format!("h5perf_results_file_latency: no call {call}"),
            );
        };
        if out.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_results_file_latency: NULL output");
        }
        let Some(lat) = &r.file_latency else {
            return fail(
                H5PERF_EINVAL,
                "h5perf_results_file_latency: the run was made without --latency",
            );
        };
        let l = &lat[usize::from(crate::terms::Phase::ALL[ph].is_read())][c];
        let v = latency_of(all, l);
        // SAFETY: out is non-NULL and writable, guaranteed by the caller.
        unsafe { out.write(v) };
        H5PERF_OK
    })
}

/// `h5perf_results_timeseries_count`: the phases of record `i` with `--timeseries`
/// samples (rank 0 of the communicator; 0 elsewhere, without the option, for a NULL
/// `res` and `i` out of range).
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_timeseries_count(
    res: *const H5perfResults,
    i: usize,
) -> usize {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }
        .and_then(|r| r.series.get(i))
        .map_or(0, Vec::len)
}

/// `h5perf_results_timeseries`: the samples of phase `k` (in run order) of record `i` into `*out`. `H5PERF_EINVAL` for a NULL argument
/// or `i` or `k` out of range ([`h5perf_results_timeseries_count`]).
/// # Safety
/// `res` is NULL or from `h5perf_run`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_timeseries(
    res: *const H5perfResults,
    i: usize,
    k: usize,
    out: *mut H5perfTimeseries,
) -> c_int {
    guard(|| {
        // SAFETY: guaranteed by the caller.
        let Some(s) = (unsafe { res.as_ref() }).and_then(|r| r.series.get(i)?.get(k)) else {
            return fail(
                H5PERF_EINVAL,
                &format!(
                    "h5perf_results_timeseries: no samples of record {i} phase {k} (NULL \
                     results, out of range, not rank 0, or a run without --timeseries)"
                ),
            );
        };
        if out.is_null() {
            return fail(H5PERF_EINVAL, "h5perf_results_timeseries: NULL output");
        }
        let v = H5perfTimeseries {
            iteration: s.iteration as i32,
            phase: if s.read {
                PHASE_RAW_READ
            } else {
                PHASE_RAW_WRITE
            },
            file: s.file,
            interval: s.interval_s,
            nranks: s.nranks as i32,
            intervals: s.intervals,
            bytes: s.bytes.as_ptr(),
        };
        // SAFETY: out is non-NULL and writable, guaranteed by the caller.
        unsafe { out.write(v) };
        H5PERF_OK
    })
}

/// `h5perf_results_rank_time`: time (s) of `rank` in `iteration`, `phase`, record `i`.
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

/// `h5perf_results_meta`: the run metadata value of `key` as text (the keys of
/// `H5perfResults::of`), NULL for another key; valid until `h5perf_results_free`.
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

/// `h5perf_results_rank_host`: host of `rank`, or NULL; valid until `h5perf_results_free`.
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

/// `h5perf_results_verdict`: `H5PERF_VERDICT_*` of the run (NONE without `--expect` and
/// `--baseline`; the same on every rank), -1 for a NULL `res`.
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_verdict(res: *const H5perfResults) -> c_int {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(-1, |r| r.verdict)
}

/// `h5perf_results_verdict_text`: the verdict table as the program prints it (rank 0 of
/// the communicator; "" elsewhere and without a verdict), NULL for a NULL `res`; valid
/// until `h5perf_results_free`.
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_verdict_text(res: *const H5perfResults) -> *const c_char {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(std::ptr::null(), |r| r.verdict_table.as_ptr())
}

/// `h5perf_results_failed_count`: the failed checks of the verdict (rank 0; 0 elsewhere).
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_failed_count(res: *const H5perfResults) -> usize {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }.map_or(0, |r| r.failed_checks.len())
}

/// `h5perf_results_failed`: failed check `i` as the table's Check column shows it (the
/// criterion as given, the baseline, a regression), NULL out of range; valid until
/// `h5perf_results_free`.
/// # Safety
/// `res` is NULL or from `h5perf_run`.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_failed(
    res: *const H5perfResults,
    i: usize,
) -> *const c_char {
    // SAFETY: guaranteed by the caller.
    unsafe { res.as_ref() }
        .and_then(|r| r.failed_checks.get(i))
        .map_or(std::ptr::null(), |c| c.as_ptr())
}

/// `h5perf_results_free`.
/// # Safety
/// `res` is NULL or from `h5perf_run`, freed once.
#[no_mangle]
pub unsafe extern "C" fn h5perf_results_free(res: *mut H5perfResults) {
    if !res.is_null() {
        // SAFETY: guaranteed by the caller.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(res) })));
    }
}
