//! What this rank is doing now, for `--timeout`'s message (issue 35): a stage of the
//! run and, in the benchmark, the step (processes, transfer size). Set by the main
//! thread at stage and phase boundaries, outside every timer (two atomic stores);
//! read by the watchdog thread.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// A stage of a run, as the `--timeout` message names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Doing {
    /// Checking the options and the data directory, before any I/O.
    Checking,
    /// Opening the report and the results files.
    Opening,
    /// The write phase of a step.
    Writing,
    /// The read phase of a step.
    Reading,
    /// Between the phases of a step (agreement, gathering, results).
    BetweenPhases,
    /// The summary, the verdict, the results files and the page.
    Publishing,
}

impl Doing {
    const ALL: [Doing; 6] = [
        Doing::Checking,
        Doing::Opening,
        Doing::Writing,
        Doing::Reading,
        Doing::BetweenPhases,
        Doing::Publishing,
    ];

    /// The stage in words.
    pub fn words(self) -> &'static str {
        match self {
            Doing::Checking => "the checks before any I/O",
            Doing::Opening => "opening the outputs",
            Doing::Writing => "the write phase",
            Doing::Reading => "the read phase",
            Doing::BetweenPhases => "between two phases (agreement, gathering, report)",
            Doing::Publishing => "publishing the results",
        }
    }
}

static STAGE: AtomicUsize = AtomicUsize::new(0);
static PROCS: AtomicU32 = AtomicU32::new(0);
static XFER: AtomicU64 = AtomicU64::new(0);

/// This rank is at `stage` now.
pub fn set(stage: Doing) {
    STAGE.store(stage as usize, Ordering::Relaxed);
}

/// This rank is at `stage` of the step of `procs` processes and transfer size `xfer`.
pub fn set_step(stage: Doing, procs: u32, xfer: u64) {
    PROCS.store(procs, Ordering::Relaxed);
    XFER.store(xfer, Ordering::Relaxed);
    set(stage);
}

/// The stage and the last step (processes, transfer size; 0 before the first).
pub fn now() -> (Doing, u32, u64) {
    let stage = Doing::ALL
        .get(STAGE.load(Ordering::Relaxed))
        .copied()
        .unwrap_or(Doing::Checking);
    (
        stage,
        PROCS.load(Ordering::Relaxed),
        XFER.load(Ordering::Relaxed),
    )
}
