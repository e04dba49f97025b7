//! Per-transfer latencies (`--latency`, issue 31): a fixed-size log-linear histogram
//! ([`Histogram`]) and the figures of one direction of one record, merged over ranks and
//! iterations ([`LatencyFigures`]).
//!
//! The histogram is HdrHistogram's layout (G. Tene, "HdrHistogram: A High Dynamic Range
//! Histogram", hdrhistogram.org): values below 2^[`SUB_BITS`] have a bucket each; above,
//! every power of two `[2^e, 2^(e+1))` is cut into 2^[`SUB_BITS`] equal buckets, so a
//! bucket is at most 1/128 of its lowest value wide. A value is reported as its bucket's
//! middle: within 1/256 (0.39 %) of the true value. The values of the transfer loop are
//! clock ticks ([`crate::ffi::clock`]); after each phase they are moved to a histogram
//! in nanoseconds ([`Histogram::to_ns`]), a second rounding of at most 1/256: every
//! reported percentile is within (1 + 1/256)² − 1 < 0.79 % of a latency that was
//! measured (plus the clock's resolution, < 1 ns). The buckets cover every `u64` (1 ns
//! to 584 years in nanoseconds, so 100 ns to 1000 s with room to spare, in any clock's
//! ticks). Memory: [`BUCKETS`] counts (64 KiB), whatever the number of transfers.

/// Buckets per power of two: 2^7 = 128 (relative bucket width ≤ 1/128).
pub const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// The highest power of two with buckets of its own: 2^63, every `u64` has a bucket.
pub const MAX_EXP: u32 = 63;
/// Buckets of a histogram: `(MAX_EXP − SUB_BITS + 2) × 2^SUB_BITS` = 7424 used, in an
/// array of 8192 (a power of two: the bucket's index is masked, not compared, in the
/// transfer loop).
pub const BUCKETS: usize = 8192;
/// The buckets a value can fall in.
pub const USED: usize = ((MAX_EXP - SUB_BITS + 2) as usize) << SUB_BITS;

/// The bucket of value `v`: `v` below 2^(SUB_BITS+1), else `(e − SUB_BITS + 1) ×
/// 2^SUB_BITS` plus the SUB_BITS bits after the leading one (`e` = the leading one's
/// position). Without a branch: `m` = the leading one's position of `v | 2^SUB_BITS`,
/// the bucket `(m − SUB_BITS) × 2^SUB_BITS + (v >> (m − SUB_BITS))`, below [`USED`];
/// masked to the array's size, which changes nothing but spares a bounds check.
#[inline(always)]
pub fn bucket(v: u64) -> usize {
    let m = 63 - (v | SUB).leading_zeros();
    let i = (((m - SUB_BITS) as usize) << SUB_BITS) + (v >> (m - SUB_BITS)) as usize;
    i & (BUCKETS - 1)
}

/// The lowest value of bucket `i` and its width.
pub fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let e = (i >> SUB_BITS) + u64::from(SUB_BITS) - 1;
    let width = 1u64 << (e - u64::from(SUB_BITS));
    ((1 << e) + (i & (SUB - 1)) * width, width)
}

/// The value bucket `i` stands for: its middle (exact below 2^SUB_BITS).
pub fn bucket_value(i: usize) -> f64 {
    let (low, w) = bucket_range(i);
    if w == 1 {
        low as f64
    } else {
        low as f64 + (w as f64 - 1.0) / 2.0
    }
}

/// A log-linear histogram of `u64` values (ticks or nanoseconds), with the exact
/// minimum and maximum. Fixed size: [`BUCKETS`] counts.
#[derive(Clone, PartialEq)]
pub struct Histogram {
    /// Values per bucket ([`bucket`]).
    pub counts: Box<[u64; BUCKETS]>,
    /// The smallest value recorded (`u64::MAX` when empty).
    pub min: u64,
    /// The largest value recorded (0 when empty).
    pub max: u64,
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Histogram {{ count: {}, min: {}, max: {} }}",
            self.count(),
            self.min,
            self.max
        )
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram {
            counts: Box::new([0; BUCKETS]),
            min: u64::MAX,
            max: 0,
        }
    }

    /// Count value `v`.
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        self.counts[bucket(v)] += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// What the transfer loop updates ([`Tally`]); [`Tally::finish`] gives back the
    /// minimum and maximum for [`Histogram::settle`].
    pub fn tally(&mut self) -> Tally<'_> {
        Tally {
            counts: &mut self.counts,
            min: self.min,
            max: self.max,
        }
    }

    /// Take the minimum and maximum of a finished [`Tally`] of this histogram.
    pub fn settle(&mut self, (min, max): (u64, u64)) {
        self.min = min;
        self.max = max;
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Forget every value.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.min = u64::MAX;
        self.max = 0;
    }

    /// Add the values of `o`.
    pub fn add(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(o.counts.iter()) {
            *a += b;
        }
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    /// This histogram of ticks as one of nanoseconds, `ns_per_tick` nanoseconds a tick:
    /// each bucket's count moves to the bucket of its value ([`bucket_value`]) in
    /// nanoseconds, the minimum and maximum are converted (rounded).
    pub fn to_ns(&self, ns_per_tick: f64) -> Histogram {
        let mut h = Histogram::new();
        let ns = |v: f64| (v * ns_per_tick).round() as u64;
        for (i, &c) in self.counts.iter().enumerate() {
            if c != 0 {
                h.counts[bucket(ns(bucket_value(i)))] += c;
            }
        }
        if self.count() != 0 {
            h.min = ns(self.min as f64);
            h.max = ns(self.max as f64);
        }
        h
    }

    /// The `q`-quantile (0 < q ≤ 1): the value of the bucket that holds the
    /// ⌈q × count⌉-th smallest value, kept within [min, max]; `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let want = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= want {
                let v = bucket_value(i);
                return Some(v.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }
}

/// The transfer loop's view of a [`Histogram`]: its counts, and its minimum and maximum
/// as values of the loop (registers, not memory: the counts' stores cannot alias them),
/// so that counting a value costs about 15 instructions.
pub struct Tally<'a> {
    counts: &'a mut [u64; BUCKETS],
    min: u64,
    max: u64,
}

impl Tally<'_> {
    /// Count value `v`.
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        self.counts[bucket(v)] += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// The minimum and maximum, for [`Histogram::settle`].
    pub fn finish(self) -> (u64, u64) {
        (self.min, self.max)
    }
}

/// The quantiles every latency report gives, with their names: p50, p90, p99, p99.9.
pub const QUANTILES: [(f64, &str); 4] =
    [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9")];

/// The calls of a phase outside its transfer loop that `--latency` times one by one
/// (where the API has them: the file's open and close, and with `--fsync` the sync).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileCall {
    /// Opening the file (`open`, `MPI_File_open`, `H5Fcreate`/`H5Fopen`).
    Open,
    /// `--fsync`: forcing the data to storage (`fsync`, `MPI_File_sync`, `H5Fflush` and
    /// `MPI_File_sync`).
    Sync,
    /// Closing the file (`close`, `MPI_File_close`, `H5Fclose`).
    Close,
}

impl FileCall {
    /// Every kind, in the order of [`FileLatencies`].
    pub const ALL: [FileCall; 3] = [FileCall::Open, FileCall::Sync, FileCall::Close];

    /// The name in the report and the fields: `open`, `sync`, `close`.
    pub fn name(self) -> &'static str {
        match self {
            FileCall::Open => "open",
            FileCall::Sync => "sync",
            FileCall::Close => "close",
        }
    }
}

/// The latencies of a direction's [`FileCall`]s, in [`FileCall::ALL`] order.
pub type FileLatencies = [LatencyFigures; 3];

/// The latencies of the transfer calls of one direction (write or read) of one record,
/// every rank and iteration merged, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LatencyFigures {
    /// Every transfer call's time, ns.
    pub hist: Histogram,
    /// The rank that saw the longest call (the lowest such rank on a tie).
    pub max_rank: u32,
    /// That rank's host name.
    pub max_host: String,
}

impl LatencyFigures {
    /// Add one iteration's histogram `h` of every rank (ns), whose longest call `max_rank`
    /// on `max_host` saw; it becomes the record's when longer than all before.
    pub fn add(&mut self, h: &Histogram, max_rank: u32, max_host: &str) {
        if h.count() != 0 && (self.hist.count() == 0 || h.max > self.hist.max) {
            self.max_rank = max_rank;
            self.max_host = max_host.to_string();
        }
        self.hist.add(h);
    }

    /// Calls timed.
    pub fn count(&self) -> u64 {
        self.hist.count()
    }

    /// The [`QUANTILES`] in seconds, `None` when no call was timed.
    pub fn quantiles_s(&self) -> Option<[f64; 4]> {
        let mut out = [0.0; 4];
        for (o, (q, _)) in out.iter_mut().zip(QUANTILES) {
            *o = self.hist.quantile(q)? / 1e9;
        }
        Some(out)
    }

    /// The shortest and longest call, seconds (`None` when none was timed).
    pub fn min_max_s(&self) -> Option<(f64, f64)> {
        (self.count() != 0).then(|| (self.hist.min as f64 / 1e9, self.hist.max as f64 / 1e9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_narrow() {
        let mut next = 0u64;
        for i in 0..USED {
            let (low, w) = bucket_range(i);
            assert_eq!(low, next, "bucket {i}");
            assert!(w == 1 || (w as f64) / (low as f64) <= 1.0 / 128.0 + 1e-12);
            assert_eq!(bucket(low), i);
            assert_eq!(bucket(low + w - 1), i);
            next = low.wrapping_add(w);
        }
        assert_eq!(next, 0, "the last bucket ends at 2^64");
        assert_eq!(bucket(u64::MAX), USED - 1);
    }

    #[test]
    fn quantiles_within_error() {
        // values 1..=100000 ns spread over 100 ns..1000 s, each reported within 0.79 %
        let vals: Vec<u64> = (0..20_000u64)
            .map(|i| (100.0 * 1e10f64.powf(i as f64 / 19_999.0)) as u64)
            .collect();
        let mut h = Histogram::new();
        for &v in &vals {
            h.record(v * 3); // "ticks" of a 3 GHz counter
        }
        let ns = h.to_ns(1.0 / 3.0);
        assert_eq!(ns.count(), vals.len() as u64);
        assert_eq!((ns.min, ns.max), (vals[0], vals[vals.len() - 1]));
        for q in [0.001, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let want = vals[((q * vals.len() as f64).ceil() as usize).max(1) - 1] as f64;
            let got = ns.quantile(q).unwrap();
            assert!(
                (got - want).abs() / want <= 0.0079,
                "q {q}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn figures_name_the_slowest_iteration() {
        let mut f = LatencyFigures::default();
        let mut a = Histogram::new();
        a.record(1000);
        a.record(5000);
        f.add(&a, 1, "n1");
        let mut b = Histogram::new();
        b.record(4000);
        f.add(&b, 2, "n2");
        assert_eq!((f.count(), f.max_rank, f.max_host.as_str()), (3, 1, "n1"));
        assert_eq!(f.min_max_s(), Some((1e-6, 5e-6)));
        let q = f.quantiles_s().unwrap();
        assert!((q[0] - 4e-6).abs() / 4e-6 < 0.008, "{q:?}");
        assert!(LatencyFigures::default().quantiles_s().is_none());
    }
}
