//! The statistics of the timers over processes and iterations (spec §8.1–§8.3).

pub use crate::terms::timer::{Timer, COUNT};

/// Accumulated seconds per timer for one iteration of one process.
pub type Times = [f64; COUNT];

/// Per-iteration statistics of one timer over the processes of the run communicator.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IterStat {
    /// Smallest value over processes (seconds).
    pub min: f64,
    /// Largest value over processes: the slowest rank (seconds).
    pub max: f64,
    /// Sum over processes (seconds).
    pub sum: f64,
}

/// Statistics over iterations of one timer's slowest-rank times `m_i` (spec §8.3), seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TimeStats {
    /// `min_i m_i` (seconds).
    pub min: f64,
    /// `(Σ_i m_i) / it` (seconds).
    pub avg: f64,
    /// `max_i m_i` (seconds).
    pub max: f64,
}

impl TimeStats {
    /// The statistics of one timer from its per-iteration statistics; empty input gives zeros.
    pub fn of(iters: &[IterStat]) -> TimeStats {
        if iters.is_empty() {
            return TimeStats::default();
        }
        let mut s = TimeStats {
            min: f64::INFINITY,
            avg: 0.0,
            max: f64::NEG_INFINITY,
        };
        for it in iters {
            s.min = s.min.min(it.max);
            s.max = s.max.max(it.max);
            s.avg += it.max;
        }
        s.avg /= iters.len() as f64;
        s
    }
}

/// Sample standard deviation (divisor `n - 1`) of `xs`; 0.0 for fewer than two values.
pub fn sample_std(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = xs.clone().count();
    if n < 2 {
        return 0.0;
    }
    let mean = xs.clone().sum::<f64>() / n as f64;
    let ss: f64 = xs.map(|x| (x - mean) * (x - mean)).sum();
    (ss / (n - 1) as f64).sqrt()
}

/// Throughput in GB/s: `bytes / t / 1e9`; 0.0 when `t == 0.0`.
pub fn gbps(bytes: u64, t: f64) -> f64 {
    if t == 0.0 {
        0.0
    } else {
        bytes as f64 / t / 1e9
    }
}

/// Throughput in MiB/s: `(bytes / 2^20) / t` (spec §8.3 `MBps`); 0.0 when `t == 0.0`.
pub fn mbps(bytes: u64, t: f64) -> f64 {
    if t == 0.0 {
        0.0
    } else {
        (bytes as f64 / 1_048_576.0) / t
    }
}

/// Results of one API over all iterations: per timer, the per-iteration statistics.
pub struct ApiResults {
    /// `stats[timer][iteration]`.
    pub stats: Vec<Vec<IterStat>>,
    /// Bytes moved per iteration and phase, `V = nf × nd × D` (spec §8.3).
    pub bytes: u64,
    /// Iterations run.
    pub iters: u32,
    /// Files per iteration (for the `using N file(s)` lines).
    pub files: u64,
    /// Every rank's times (s), `per_rank[iteration][rank × COUNT + timer]`; rank 0 only.
    pub per_rank: Vec<Vec<f64>>,
    /// With `--stonewall`: the figures of the write and the read phases
    /// ([`crate::terms::Direction::ALL`] order).
    pub wall: Option<[super::stonewall::WallFigures; 2]>,
    /// With `--latency`: the transfer calls' latencies of the write and the read phases
    /// ([`crate::terms::Direction::ALL`] order).
    pub latency: Option<[super::latency::LatencyFigures; 2]>,
    /// With `--latency`: the open, sync and close calls' latencies of the write and the
    /// read phases.
    pub file_latency: Option<[super::latency::FileLatencies; 2]>,
    /// With `--timeseries`, rank 0: every phase's bytes per rank and interval, in run
    /// order (empty without the option and on the other ranks).
    pub timeseries: Vec<super::timeseries::PhaseSeries>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_slowest_rank() {
        let its = [
            IterStat {
                min: 0.1,
                max: 0.5,
                sum: 0.6,
            },
            IterStat {
                min: 0.05,
                max: 0.25,
                sum: 0.3,
            },
        ];
        let s = TimeStats::of(&its);
        assert_eq!(s.min, 0.25);
        assert_eq!(s.max, 0.5);
        assert!((s.avg - 0.375).abs() < 1e-12);
    }

    #[test]
    fn throughput_matches_debug3_transcript() {
        // spec §8.3: V = 0.5 MB over 2 iterations, 2734.42 / 2488.17 MB/s max/min
        let v = 524_288;
        let t1 = 0.5 / 2734.42;
        let t2 = 0.5 / 2488.17;
        let s = TimeStats::of(&[
            IterStat {
                min: 0.0,
                max: t1,
                sum: 0.0,
            },
            IterStat {
                min: 0.0,
                max: t2,
                sum: 0.0,
            },
        ]);
        assert_eq!(format!("{:.2}", mbps(v, s.min)), "2734.42");
        assert_eq!(format!("{:.2}", mbps(v, s.avg)), "2605.49");
        assert_eq!(format!("{:.2}", mbps(v, s.max)), "2488.17");
        assert_eq!(mbps(v, 0.0), 0.0);
    }
}
