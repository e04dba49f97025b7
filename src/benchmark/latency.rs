//! `--latency` (issue 31): this rank's histograms of transfer-call times, per phase of
//! the current iteration ([`LatencyRun::of`], filled by the transfer loops, see
//! `driver::interface::clocked_writes`), merged over ranks after each iteration
//! ([`LatencyRun::merge`], outside every timer) into the record's figures; likewise the
//! file's open, sync and close calls, one clock read around each ([`LatencyRun::time`]).

use super::driver::Access;
use crate::config::values::printable;
use crate::datadir::host::hostname;
use crate::error::Result;
use crate::ffi::clock::{anchor, monotonic_ns, ns_per_tick, ClockKind};
use crate::ffi::mpi::{Comm, Op};
use crate::measure::latency::BUCKETS;
use crate::measure::{FileCall, FileLatencies, Histogram, LatencyFigures};

/// The `--latency` state of one API's run on this rank.
pub struct LatencyRun {
    /// The current iteration's write and read calls, clock ticks.
    ticks: [Histogram; 2],
    /// The current iteration's open, sync and close calls of the write and the read
    /// phases ([`FileCall::ALL`] order), ns of `CLOCK_MONOTONIC` ([`LatencyRun::file_call`]).
    calls: [[Histogram; 3]; 2],
    /// Every rank's calls of the iterations merged so far, ns.
    figures: [LatencyFigures; 2],
    /// Every rank's open, sync and close calls of the iterations merged so far, ns.
    file_figures: [FileLatencies; 2],
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
            calls: Default::default(),
            figures: Default::default(),
            file_figures: Default::default(),
            kind: ClockKind::here(),
        }
    }

    /// The histogram of `phase`'s calls in this iteration (ticks).
    pub fn of(&mut self, phase: Access) -> &mut Histogram {
        &mut self.ticks[usize::from(phase == Access::Read)]
    }

    /// Run `f`, the file call `call` of `phase`, and with `--latency` (`lat` is `Some`)
    /// count its duration ([`monotonic_ns`] before and after, one clock read each);
    /// without it just run `f`.
    pub fn time<T>(
        lat: Option<&mut LatencyRun>,
        phase: Access,
        call: FileCall,
        f: impl FnOnce() -> T,
    ) -> T {
        let Some(l) = lat else {
            return f();
        };
        let c0 = monotonic_ns();
        let out = f();
        l.file_call(phase, call, monotonic_ns().saturating_sub(c0));
        out
    }

    /// Count a call of `call` of `phase` that took `ns` nanoseconds (one call outside the
    /// transfer loop: the clock is `CLOCK_MONOTONIC`, [`crate::ffi::clock::monotonic_ns`]).
    pub fn file_call(&mut self, phase: Access, call: FileCall, ns: u64) {
        let c = FileCall::ALL.iter().position(|k| *k == call).unwrap_or(0);
        self.calls[usize::from(phase == Access::Read)][c].record(ns);
    }

    /// Merge every rank's histograms of the iteration just ended into the figures and
    /// start the next (collective over `comm`, the same calls on every rank: three
    /// `MPI_Allreduce` of the counts, minima and maxima of the eight histograms (write
    /// and read: transfers, open, sync, close), one of the rank that saw each maximum,
    /// and per histogram with calls a broadcast of that rank's host name). Outside every
    /// timer. `rank`: this rank in `comm`.
    ///
    /// # Errors
    /// An MPI call fails.
    pub fn merge(&mut self, comm: &Comm, rank: u32) -> Result<()> {
        let f = ns_per_tick(self.kind);
        let mut ns = vec![self.ticks[0].to_ns(f), self.ticks[1].to_ns(f)];
        for t in &mut self.ticks {
            t.clear();
        }
        for c in self.calls.iter_mut().flatten() {
            ns.push(c.clone());
            c.clear();
        }
        let merged = merge_all(comm, rank, &ns)?;
        for (k, m) in merged.into_iter().enumerate() {
            let Some((h, max_rank, host)) = m else {
                continue;
            };
            match k {
                0 | 1 => self.figures[k].add(&h, max_rank, &host),
                _ => self.file_figures[(k - 2) / 3][(k - 2) % 3].add(&h, max_rank, &host),
            }
        }
        Ok(())
    }

    /// The open, sync and close calls' figures of the write and read phases so far.
    pub fn file_figures(&self) -> [FileLatencies; 2] {
        self.file_figures.clone()
    }

    /// The figures of the write and read phases so far.
    pub fn figures(&self) -> [LatencyFigures; 2] {
        self.figures.clone()
    }
}

/// Every rank's histograms `ns` (nanoseconds, the same number on every rank) merged:
/// per histogram the sum over ranks, with the lowest rank that saw the longest value
/// and its host name; `None` for a histogram without values on any rank. Collective.
fn merge_all(
    comm: &Comm,
    rank: u32,
    ns: &[Histogram],
) -> Result<Vec<Option<(Histogram, u32, String)>>> {
    let mine: Vec<f64> = ns
        .iter()
        .flat_map(|h| h.counts.iter().map(|&c| c as f64))
        .collect();
    let mut all = vec![0.0; mine.len()];
    comm.allreduce_f64(&mine, &mut all, Op::Sum)?;
    let k = ns.len();
    let (mut lo, mut hi) = (vec![0.0; k], vec![0.0; k]);
    let mins: Vec<f64> = ns.iter().map(|h| h.min as f64).collect();
    let maxs: Vec<f64> = ns.iter().map(|h| h.max as f64).collect();
    comm.allreduce_f64(&mins, &mut lo, Op::Min)?;
    comm.allreduce_f64(&maxs, &mut hi, Op::Max)?;
    // the lowest rank whose longest value is the longest of all
    let me: Vec<f64> = (0..k)
        .map(|d| match ns[d].count() != 0 && ns[d].max as f64 == hi[d] {
            true => f64::from(rank),
            false => f64::MAX,
        })
        .collect();
    let mut who = vec![0.0; k];
    comm.allreduce_f64(&me, &mut who, Op::Min)?;
    let mut out = Vec::with_capacity(k);
    for d in 0..k {
        let mut h = Histogram::new();
        for (c, a) in h
            .counts
            .iter_mut()
            .zip(&all[d * BUCKETS..(d + 1) * BUCKETS])
        {
            *c = *a as u64;
        }
        if h.count() == 0 {
            out.push(None);
            continue;
        }
        (h.min, h.max) = (lo[d] as u64, hi[d] as u64);
        let max_rank = who[d] as u32;
        let host = comm.bcast_bytes(max_rank, hostname().as_bytes())?;
        out.push(Some((
            h,
            max_rank,
            printable(&String::from_utf8_lossy(&host)),
        )));
    }
    Ok(out)
}
