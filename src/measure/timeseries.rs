//! `--timeseries` (issue 31), pure core: the bytes one rank completed per interval of a
//! phase ([`Series`]), in a buffer of fixed size allocated before the phase, and the
//! phases' samples of all ranks as the results hold them ([`PhaseSeries`]).
//!
//! A phase that outlasts the buffer ([`SLOTS`] intervals) has its neighbouring
//! intervals merged pairwise and its interval doubled ([`Series::fold`]), as often as
//! needed: the buffer never grows, the timed loop never allocates.

/// Intervals per phase and rank before [`Series::fold`] doubles the interval.
pub const SLOTS: usize = 4096;

/// The bytes one rank completed per interval of one phase. Times are ticks of the
/// clock of `--latency` ([`crate::ffi::clock`]); interval `i` holds the transfers that
/// completed in `[start + i × step, start + (i + 1) × step)`.
#[derive(Debug, Clone)]
pub struct Series {
    /// Bytes per interval, [`SLOTS`] of them; those past [`Series::used`] are 0.
    counts: Vec<u64>,
    /// The phase's start (ticks).
    start: u64,
    /// The current interval's length (ticks): the first interval × 2^`level`.
    step: u64,
    /// The current interval's index.
    at: usize,
    /// The end of the current interval (ticks), `start + (at + 1) × step`.
    edge: u64,
    /// How often the interval was doubled ([`Series::fold`]).
    level: u32,
}

impl Default for Series {
    fn default() -> Self {
        Series::new()
    }
}

impl Series {
    /// An empty series with its buffer of [`SLOTS`] intervals (the only allocation).
    pub fn new() -> Series {
        Series {
            counts: vec![0; SLOTS],
            start: 0,
            step: 1,
            at: 0,
            edge: 1,
            level: 0,
        }
    }

    /// Start a phase at `now` with intervals of `step` ticks (at least 1): every
    /// count 0, the interval not doubled.
    pub fn begin(&mut self, now: u64, step: u64) {
        self.counts.fill(0);
        self.start = now;
        self.step = step.max(1);
        self.at = 0;
        self.edge = now.saturating_add(self.step);
        self.level = 0;
    }

    /// Count `bytes` completed at `now` (ticks, not before the phase's start): the
    /// interval index advances to `now`'s, folding when it runs past the buffer.
    #[inline(always)]
    pub fn record(&mut self, now: u64, bytes: u64) {
        while now >= self.edge {
            self.advance();
        }
        // `at` < SLOTS always ([`Series::advance`])
        if let Some(c) = self.counts.get_mut(self.at) {
            *c += bytes;
        }
    }

    /// The next interval; past the buffer, [`Series::fold`]. Out of line: once per
    /// interval, not per transfer.
    #[inline(never)]
    fn advance(&mut self) {
        self.at += 1;
        if self.at == SLOTS {
            self.fold();
        }
        self.edge = self
            .start
            .saturating_add(self.step.saturating_mul(self.at as u64 + 1));
    }

    /// Merge neighbouring intervals pairwise (`2i` and `2i + 1` into `i`) and double
    /// the interval; the current interval's index halves.
    pub fn fold(&mut self) {
        for i in 0..SLOTS / 2 {
            self.counts[i] = self.counts[2 * i] + self.counts[2 * i + 1];
        }
        self.counts[SLOTS / 2..].fill(0);
        self.at /= 2;
        self.step = self.step.saturating_mul(2);
        self.edge = self
            .start
            .saturating_add(self.step.saturating_mul(self.at as u64 + 1));
        self.level += 1;
    }

    /// How often the interval was doubled.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Intervals up to and including the current one.
    pub fn used(&self) -> usize {
        self.at + 1
    }

    /// The bytes per interval, [`SLOTS`] of them (0 past [`Series::used`]).
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The transfer loop's view ([`Cursor`]); [`Cursor::finish`] hands it back.
    pub fn cursor(&mut self) -> Cursor<'_> {
        let at = Spot {
            start: self.start,
            step: self.step,
            at: self.at,
            edge: self.edge,
            level: self.level,
        };
        Cursor {
            series: self,
            at,
            acc: 0,
        }
    }
}

/// Where a [`Cursor`] is: the phase's start, the interval's length, the current
/// interval's index and end (ticks), the doublings ([`Series`]'s fields).
#[derive(Debug, Clone, Copy)]
struct Spot {
    start: u64,
    step: u64,
    at: usize,
    edge: u64,
    level: u32,
}

/// The transfer loop's view of a [`Series`]: the current interval's end and its bytes
/// so far as values of the loop (registers, not memory), so that counting a transfer
/// is a compare and an add; the counts are stored when the interval ends.
pub struct Cursor<'a> {
    series: &'a mut Series,
    at: Spot,
    /// Bytes of the current interval not yet in `counts`.
    acc: u64,
}

impl Cursor<'_> {
    /// Count `bytes` completed at `now` (ticks, not before the phase's start).
    #[inline(always)]
    pub fn record(&mut self, now: u64, bytes: u64) {
        if now >= self.at.edge {
            self.at = step_to(&mut self.series.counts, self.at, self.acc, now);
            self.acc = 0;
        }
        self.acc += bytes;
    }

    /// Store the current interval's bytes and hand the position back to the series.
    pub fn finish(self) {
        let Cursor { series: s, at, acc } = self;
        if let Some(c) = s.counts.get_mut(at.at) {
            *c += acc;
        }
        s.start = at.start;
        s.step = at.step;
        s.at = at.at;
        s.edge = at.edge;
        s.level = at.level;
    }
}

/// The interval of `now` from `at`, whose bytes `acc` are stored first; past the
/// buffer the intervals fold ([`Series::fold`]'s rule). Out of line and by value: once
/// per interval, and the loop's copy of `at` stays in registers.
#[cold]
#[inline(never)]
fn step_to(counts: &mut [u64], mut at: Spot, acc: u64, now: u64) -> Spot {
    if let Some(c) = counts.get_mut(at.at) {
        *c += acc;
    }
    while now >= at.edge {
        at.at += 1;
        if at.at == SLOTS {
            for i in 0..SLOTS / 2 {
                counts[i] = counts[2 * i] + counts[2 * i + 1];
            }
            counts[SLOTS / 2..].fill(0);
            at.at /= 2;
            at.step = at.step.saturating_mul(2);
            at.level += 1;
        }
        at.edge = at
            .start
            .saturating_add(at.step.saturating_mul(at.at as u64 + 1));
    }
    at
}

/// One phase's samples of all ranks, as rank 0 gathered them after the phase.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSeries {
    /// The iteration (0-based).
    pub iteration: u32,
    /// The file index (1-based, as the data file names).
    pub file: u64,
    /// Read phase (else write).
    pub read: bool,
    /// The interval, seconds: `--timeseries`'s × 2^(the ranks' most doublings).
    pub interval_s: f64,
    /// `bytes[rank][i]`: the bytes that rank completed in interval `i` (the same number
    /// of intervals for every rank).
    pub bytes: Vec<Vec<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_interval() {
        let mut s = Series::new();
        s.begin(100, 10);
        s.record(100, 1);
        s.record(109, 2);
        s.record(110, 4);
        s.record(135, 8);
        assert_eq!(&s.counts()[..4], &[3, 4, 0, 8]);
        assert_eq!(s.used(), 4);
        assert_eq!(s.level(), 0);
    }

    #[test]
    fn a_long_phase_folds_and_keeps_every_byte() {
        let mut s = Series::new();
        s.begin(0, 1);
        let n = 3 * SLOTS as u64 + 5;
        for t in 0..n {
            s.record(t, 2);
        }
        assert_eq!(s.level(), 2);
        assert_eq!(s.counts().iter().sum::<u64>(), 2 * n);
        assert_eq!(s.counts()[0], 2 * 4);
        assert_eq!(s.used(), (n as usize - 1) / 4 + 1);
        // folding again halves the intervals, the sum stays
        s.fold();
        assert_eq!(s.counts().iter().sum::<u64>(), 2 * n);
        assert_eq!(s.counts()[0], 2 * 8);
    }

    #[test]
    fn the_cursor_counts_as_record() {
        let mut a = Series::new();
        let mut b = Series::new();
        a.begin(7, 3);
        b.begin(7, 3);
        let mut c = b.cursor();
        let mut t = 7;
        for k in 0..(3 * SLOTS as u64) {
            t += k % 5;
            a.record(t, k);
            c.record(t, k);
        }
        c.finish();
        assert_eq!(a.counts(), b.counts());
        assert_eq!((a.used(), a.level()), (b.used(), b.level()));
        assert!(a.level() > 0);
    }

    #[test]
    fn begin_clears() {
        let mut s = Series::new();
        s.begin(0, 1);
        s.record(5000, 7);
        s.begin(10, 3);
        assert_eq!(s.counts().iter().sum::<u64>(), 0);
        assert_eq!((s.used(), s.level()), (1, 0));
    }
}
