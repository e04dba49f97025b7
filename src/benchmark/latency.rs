//! `--latency` (issue 31): this rank's histograms of transfer-call times, per phase of
//! the current iteration ([`LatencyRun::of`], filled by the transfer loops, see
//! `driver::interface::clocked_writes`), merged over ranks after each iteration
//! ([`LatencyRun::merge`], outside every timer) into the record's figures.

use super::driver::Access;
use crate::config::values::printable;
use crate::datadir::host::hostname;
use crate::error::Result;
use crate::ffi::clock::{anchor, ns_per_tick, ClockKind};
use crate::ffi::mpi::{Comm, Op};
use crate::measure::latency::BUCKETS;
use crate::measure::{Histogram, LatencyFigures};

/// The `--latency` state of one API's run on this rank.
pub struct LatencyRun {
    /// The current iteration's write and read calls, clock ticks.
    ticks: [Histogram; 2],
    /// Every rank's calls of the iterations merged so far, ns.
    figures: [LatencyFigures; 2],
    /// The clock the loops read.
    kind: ClockKind,
}

impl Default for LatencyRun {
    fn default() -> Self {
        LatencyRun::new()
    }
}

impl LatencyRun {
    /// Empty histograms; starts the clock's calibration ([`anchor`]).
    pub fn new() -> LatencyRun {
        anchor();
        LatencyRun {
            ticks: [Histogram::new(), Histogram::new()],
            figures: Default::default(),
            kind: ClockKind::here(),
        }
    }

    /// The histogram of `phase`'s calls in this iteration (ticks).
    pub fn of(&mut self, phase: Access) -> &mut Histogram {
        &mut self.ticks[usize::from(phase == Access::Read)]
    }

    /// Merge every rank's histograms of the iteration just ended into the figures and
    /// start the next (collective over `comm`, the same calls on every rank: three
    /// `MPI_Allreduce` of the counts, minima and maxima, one of the rank that saw each
    /// maximum, and per direction with calls a broadcast of that rank's host name).
    /// Outside every timer. `rank`: this rank in `comm`.
    ///
    /// # Errors
    /// An MPI call fails.
    pub fn merge(&mut self, comm: &Comm, rank: u32) -> Result<()> {
        let f = ns_per_tick(self.kind);
        let ns = [self.ticks[0].to_ns(f), self.ticks[1].to_ns(f)];
        for t in &mut self.ticks {
            t.clear();
        }
        let mine: Vec<f64> = ns
            .iter()
            .flat_map(|h| h.counts.iter().map(|&c| c as f64))
            .collect();
        let mut all = vec![0.0; mine.len()];
        comm.allreduce_f64(&mine, &mut all, Op::Sum)?;
        let (mut lo, mut hi) = ([0.0; 2], [0.0; 2]);
        comm.allreduce_f64(&ns.each_ref().map(|h| h.min as f64), &mut lo, Op::Min)?;
        comm.allreduce_f64(&ns.each_ref().map(|h| h.max as f64), &mut hi, Op::Max)?;
        // the lowest rank whose longest call is the longest of all
        let me = [0, 1].map(|d| match ns[d].count() != 0 && ns[d].max as f64 == hi[d] {
            true => f64::from(rank),
            false => f64::MAX,
        });
        let mut who = [0.0; 2];
        comm.allreduce_f64(&me, &mut who, Op::Min)?;
        for d in 0..2 {
            let mut h = Histogram::new();
            for (c, a) in h
                .counts
                .iter_mut()
                .zip(&all[d * BUCKETS..(d + 1) * BUCKETS])
            {
                *c = *a as u64;
            }
            if h.count() == 0 {
                continue;
            }
            (h.min, h.max) = (lo[d] as u64, hi[d] as u64);
            let max_rank = who[d] as u32;
            let host = comm.bcast_bytes(max_rank, hostname().as_bytes())?;
            let host = printable(&String::from_utf8_lossy(&host));
            self.figures[d].add(&h, max_rank, &host);
        }
        Ok(())
    }

    /// The figures of the write and read phases so far.
    pub fn figures(&self) -> [LatencyFigures; 2] {
        self.figures.clone()
    }
}
