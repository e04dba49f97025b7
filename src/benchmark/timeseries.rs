//! `--timeseries` (issue 31): this rank's bytes per interval of the current phase
//! ([`SeriesRun::series`], filled by the transfer loops on their instrumented path, see
//! `driver::interface::sampled_writes`), gathered to rank 0 after the phase
//! ([`SeriesRun::gather`], outside every timer).
//!
//! The clock is that of `--latency` ([`crate::ffi::clock`]): one read per completed
//! transfer. The interval in ticks is the option's in nanoseconds over
//! [`ns_per_tick`], rounded, computed before the phase (the counter's rate errs by less
//! than 0.1 %, [`ns_per_tick`]).

use super::driver::Access;
use crate::error::Result;
use crate::ffi::clock::{anchor, ns_per_tick, Clock, ClockKind, Monotonic, Tsc};
use crate::ffi::mpi::{Comm, Op};
use crate::measure::timeseries::{PhaseSeries, Series};

/// The `--timeseries` state of one API's run on this rank.
pub struct SeriesRun {
    /// The current phase's bytes per interval.
    series: Series,
    /// The option's interval, ns.
    interval_ns: u64,
    /// The clock the loops read.
    kind: ClockKind,
    /// Rank 0: every phase's samples of all ranks so far, in run order.
    phases: Vec<PhaseSeries>,
}

impl SeriesRun {
    /// An empty series of intervals of `interval_ns` nanoseconds (its buffer allocated
    /// here, once); starts the clock's calibration ([`anchor`]).
    pub fn new(interval_ns: u64) -> SeriesRun {
        anchor();
        SeriesRun {
            series: Series::new(),
            interval_ns: interval_ns.max(1),
            kind: ClockKind::here(),
            phases: Vec::new(),
        }
    }

    /// Start a phase now: every count 0. Outside the raw-data timer (one clock read).
    pub fn begin(&mut self) {
        let step = (self.interval_ns as f64 / ns_per_tick(self.kind)).round() as u64;
        let now = match self.kind {
            ClockKind::Tsc => Tsc::now(),
            ClockKind::Monotonic => Monotonic::now(),
        };
        self.series.begin(now, step);
    }

    /// The current phase's series, for the transfer loops.
    pub fn series(&mut self) -> &mut Series {
        &mut self.series
    }

    /// After a phase, outside every timer (collective over `comm`, the same calls on
    /// every rank): the ranks agree on the coarsest interval (`MPI_Allreduce` of the
    /// most doublings; each rank folds to it) and on the number of intervals (the
    /// most), and rank 0 gathers every rank's counts (`MPI_Gather`, as doubles: exact
    /// below 2^53 bytes per interval) into the phase's [`PhaseSeries`].
    ///
    /// # Errors
    /// An MPI call fails.
    pub fn gather(
        &mut self,
        comm: &Comm,
        rank: u32,
        iteration: u32,
        file: u64,
        phase: Access,
    ) -> Result<()> {
        let level = comm.allreduce_u64(u64::from(self.series.level()), Op::Max)?;
        while u64::from(self.series.level()) < level {
            self.series.fold();
        }
        let used = comm.allreduce_u64(self.series.used() as u64, Op::Max)? as usize;
        let mine: Vec<f64> = self.series.counts()[..used]
            .iter()
            .map(|&b| b as f64)
            .collect();
        let all = comm.gather_f64(0, &mine)?;
        if rank == 0 && used > 0 {
            self.phases.push(PhaseSeries {
                iteration,
                file,
                read: phase == Access::Read,
                interval_s: self.interval_ns as f64 * 2f64.powi(level as i32) / 1e9,
                bytes: all
                    .chunks(used)
                    .map(|c| c.iter().map(|&b| b as u64).collect())
                    .collect(),
            });
        }
        Ok(())
    }

    /// Rank 0: every phase's samples so far (empty elsewhere).
    pub fn phases(&self) -> Vec<PhaseSeries> {
        self.phases.clone()
    }
}
