//! A panic on any rank ends the whole job promptly (issue 35, item 1).
//!
//! A rank that panics cannot take part in the collective calls the other ranks are
//! waiting in, and unwinding would run destructors that are collective themselves
//! (`MPI_File_close`, `H5Fclose`), so it would wait too. While a run is [`armed`], a
//! panic therefore prints one message naming the rank and the place, removes this
//! rank's registered files (the data file, a temporary results file, the lock: as the
//! signal handlers do), waits (at most 2 s) until the launcher has read the message
//! from its pipe, and calls `MPI_Abort(MPI_COMM_WORLD, 1)`, which ends every
//! process of the job; the launcher's exit status is then not 0 (Open MPI: 1,
//! MPICH's hydra: the abort code or 9 where it kills the others).
//!
//! The C API arms it too, for `h5perf_run` and `h5perf_main` only: their other ranks
//! would otherwise wait forever (see `include/h5perf.h`).
//!
//! Test hook: with `H5PERF_TEST_PANIC=R` in the environment, world rank `R` panics at
//! [`injected`] (before the verdict, where the reported panic happened); the tests
//! use it to prove that 2- and 3-rank jobs end within seconds.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::datadir::cleanup;
use crate::ffi::mpi;
use crate::ffi::signals::{wait_output_taken, write_stderr};
use std::time::Duration;

/// A panic hook as `std::panic::take_hook` returns it.
type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// The rank the message names (world rank, or the run communicator's).
static RANK: AtomicU32 = AtomicU32::new(0);

/// While alive, a panic on this process aborts the job; the previous hook is put back
/// on drop.
pub struct Armed {
    previous: Option<Hook>,
}

/// Arm the abort-on-panic hook for a run in which this process is rank `rank`.
pub fn armed(rank: u32) -> Armed {
    RANK.store(rank, Ordering::SeqCst);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(on_panic));
    Armed {
        previous: Some(previous),
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let Some(p) = self.previous.take() {
            if !std::thread::panicking() {
                std::panic::set_hook(p);
            }
        }
    }
}

/// The message of a panic: `h5perf: rank R: internal error (panic at FILE:LINE): TEXT`
/// and what happens next, on one line each (the panic's text on one line).
pub fn message(rank: u32, info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into());
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let place = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    format!(
        "h5perf: rank {rank}: internal error (panic{place}): {text}\n\
         h5perf: rank {rank}: aborting the job (MPI_Abort), as the other ranks cannot continue without this one\n"
    )
}

/// How long a panicking rank waits for the launcher to take its message before
/// `MPI_Abort` ([`wait_output_taken`]); the job ends after it in any case.
const MESSAGE_TAKEN: Duration = Duration::from_secs(2);

fn on_panic(info: &PanicHookInfo<'_>) {
    let rank = RANK.load(Ordering::SeqCst);
    // write(2) directly: eprintln! would panic again on a closed stderr
    write_stderr(message(rank, info).as_bytes());
    cleanup::remove_registered();
    // the launcher must have read the message before the abort ends the job
    wait_output_taken(MESSAGE_TAKEN);
    mpi::abort_world(1)
}

/// The test hook: panic here on world rank `rank` when `H5PERF_TEST_PANIC` names it.
#[track_caller]
pub fn injected(rank: u32) {
    if std::env::var("H5PERF_TEST_PANIC").is_ok_and(|v| v.trim() == rank.to_string()) {
        panic!("injected by H5PERF_TEST_PANIC={rank}");
    }
}
