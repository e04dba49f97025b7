//! Results as data: one [`Record`] per (processes, transfer size, API) (spec §8.3–§8.5).

use super::latency::{FileLatencies, LatencyFigures};
use super::stonewall::WallFigures;
use super::timer::{gbps, mbps, sample_std, ApiResults, TimeStats, Timer, COUNT};
use super::timeseries::PhaseSeries;
use crate::config::Api;
use crate::terms::{Direction, Phase};

/// Statistics of one phase over the iterations (spec §8.3): seconds and MiB/s.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PhaseStats {
    /// Smallest time over iterations (seconds).
    pub min_time: f64,
    /// Mean time over iterations (seconds).
    pub avg_time: f64,
    /// Largest time over iterations (seconds).
    pub max_time: f64,
    /// "Maximum Throughput": bytes / `min_time`, MiB/s.
    pub max_mibps: f64,
    /// "Average Throughput": bytes / `avg_time`, MiB/s.
    pub avg_mibps: f64,
    /// "Minimum Throughput": bytes / `max_time`, MiB/s.
    pub min_mibps: f64,
    /// Sample standard deviation of the slowest rank's time (s; 0.0 with one iteration).
    pub std_time: f64,
    /// Sample standard deviation of the throughput (MiB/s; 0.0 with one iteration).
    pub std_mibps: f64,
    /// `max_mibps` in GB/s (10^9 bytes/s).
    pub max_gbps: f64,
    /// `avg_mibps` in GB/s.
    pub avg_gbps: f64,
    /// `min_mibps` in GB/s.
    pub min_gbps: f64,
}

/// The slowest and the fastest rank of one phase over all iterations.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Extremes {
    /// Whether the per-rank times were gathered (else every field is 0).
    pub known: bool,
    /// The rank (of the run communicator) with the largest time of any iteration.
    pub slowest_rank: u32,
    /// Its time, seconds: equal to [`PhaseStats::max_time`].
    pub slowest_time: f64,
    /// The iteration (0-based) of that time.
    pub slowest_iteration: u32,
    /// The rank with the smallest time of any iteration.
    pub fastest_rank: u32,
    /// Its time, seconds.
    pub fastest_time: f64,
}

impl PhaseStats {
    /// The statistics of a phase moving `bytes` per iteration (spec §8.3); `per_iter` in s.
    pub fn of(t: TimeStats, bytes: u64, per_iter: &[f64]) -> PhaseStats {
        PhaseStats {
            min_time: t.min,
            avg_time: t.avg,
            max_time: t.max,
            max_mibps: mbps(bytes, t.min),
            avg_mibps: mbps(bytes, t.avg),
            min_mibps: mbps(bytes, t.max),
            std_time: sample_std(per_iter.iter().copied()),
            std_mibps: sample_std(per_iter.iter().map(|&x| mbps(bytes, x))),
            max_gbps: gbps(bytes, t.min),
            avg_gbps: gbps(bytes, t.avg),
            min_gbps: gbps(bytes, t.max),
        }
    }
}

impl PhaseStats {
    /// The statistics of a stonewalled phase: `t` the time statistics, `per_iter` the
    /// slowest rank's time of each iteration (s), `moved` the bytes moved in each.
    /// Throughput of an iteration = its bytes moved / its time (IOR's stonewalled
    /// bandwidth, hpc/ior #90, #495); max and min over iterations, mean = all bytes over
    /// all time. With equal bytes in every iteration this is [`PhaseStats::of`].
    pub fn of_moved(t: TimeStats, per_iter: &[f64], moved: &[u64]) -> PhaseStats {
        let th: Vec<f64> = per_iter
            .iter()
            .zip(moved)
            .map(|(&s, &b)| mbps(b, s))
            .collect();
        let g: Vec<f64> = per_iter
            .iter()
            .zip(moved)
            .map(|(&s, &b)| gbps(b, s))
            .collect();
        let (bytes, secs): (u64, f64) = (moved.iter().sum(), per_iter.iter().sum());
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let min = |v: &[f64]| if v.is_empty() { 0.0 } else { min(v) };
        PhaseStats {
            min_time: t.min,
            avg_time: t.avg,
            max_time: t.max,
            max_mibps: max(&th),
            avg_mibps: mbps(bytes, secs),
            min_mibps: min(&th),
            std_time: sample_std(per_iter.iter().copied()),
            std_mibps: sample_std(th.iter().copied()),
            max_gbps: max(&g),
            avg_gbps: gbps(bytes, secs),
            min_gbps: min(&g),
        }
    }
}

/// The results of one (processes, transfer size, API) combination.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Processes in the run communicator.
    pub nprocs: u32,
    /// Transfer-buffer size of the step in bytes (the loop variable `-x`..`-X`).
    pub xfer_size: u64,
    /// Bytes of the transfer buffer (1D: `xfer_size`; 2D: `xfer_size × block`).
    pub buf_bytes: u64,
    /// The API.
    pub api: Api,
    /// Bytes moved per phase and iteration, `nf × nd × D` (spec §8.3).
    pub bytes: u64,
    /// Iterations.
    pub iterations: u32,
    /// Whether read phases ran (not `-w`).
    pub has_read: bool,
    /// Statistics per phase, indexed like [`Phase::ALL`]; read phases are zero with `-w`.
    pub phases: [PhaseStats; 6],
    /// File Open/Close times, write then read ([`Direction::ALL`]); read zero with `-w`.
    pub open_close: [TimeStats; 4],
    /// The slowest and fastest rank per phase, indexed like [`Phase::ALL`].
    pub extremes: [Extremes; 6],
    /// Every rank's time (s): `samples[(iteration × nprocs + rank) × 6 + phase]`; may be empty.
    pub samples: Vec<f64>,
    /// With `--stonewall`: the figures of the write and the read phases
    /// ([`Direction::ALL`] order); the throughput of their phases is then the bytes
    /// actually moved over the time ([`PhaseStats::of_moved`]).
    pub wall: Option<[WallFigures; 2]>,
    /// With `--latency`: the transfer calls' latencies of the write and the read phases
    /// ([`Direction::ALL`] order), every rank and iteration.
    pub latency: Option<[LatencyFigures; 2]>,
    /// With `--latency`: the open, sync (`--fsync`) and close calls' latencies of the
    /// write and the read phases ([`Direction::ALL`] order), every rank and iteration.
    pub file_latency: Option<[FileLatencies; 2]>,
    /// With `--timeseries`: every phase's bytes per rank and interval, in run order
    /// (the JSON's `timeseries` array); empty without it.
    pub timeseries: Vec<PhaseSeries>,
}

impl Record {
    /// Build a record from the engine's per-timer statistics (spec §8.3).
    pub fn from_api_results(
        nprocs: u32,
        xfer_size: u64,
        buf_bytes: u64,
        api: Api,
        has_read: bool,
        r: &ApiResults,
    ) -> Record {
        let of = |t: Timer| TimeStats::of(&r.stats[t as usize]);
        let ranks = r.per_rank.first().map_or(0, |v| v.len() / COUNT);
        let gathered = ranks > 0 && r.per_rank.len() == r.stats[0].len();
        let mut phases = [PhaseStats::default(); 6];
        let mut extremes = [Extremes::default(); 6];
        let mut samples = Vec::new();
        if gathered {
            samples.reserve(r.per_rank.len() * ranks * 6);
            for it in &r.per_rank {
                for rank in 0..ranks {
                    for ph in Phase::ALL {
                        let t = it[rank * COUNT + ph.timer() as usize];
                        samples.push(if ph.is_read() && !has_read { 0.0 } else { t });
                    }
                }
            }
        }
        for (i, ph) in Phase::ALL.iter().enumerate() {
            if ph.is_read() && !has_read {
                continue;
            }
            let per_iter: Vec<f64> = r.stats[ph.timer() as usize].iter().map(|s| s.max).collect();
            let moved = r.wall.as_ref().map(|w| &w[usize::from(ph.is_read())].moved);
            phases[i] = match moved {
                Some(m) if m.len() == per_iter.len() => {
                    PhaseStats::of_moved(of(ph.timer()), &per_iter, m)
                }
                _ => PhaseStats::of(of(ph.timer()), r.bytes, &per_iter),
            };
            if gathered {
                extremes[i] = extremes_of(&samples, ranks, i);
            }
        }
        let mut open_close = [TimeStats::default(); 4];
        for (i, d) in Direction::ALL.iter().enumerate() {
            if *d == Direction::Read && !has_read {
                continue;
            }
            let m = d.measures();
            open_close[2 * i] = of(m.open);
            open_close[2 * i + 1] = of(m.close);
        }
        Record {
            nprocs,
            xfer_size,
            buf_bytes,
            api,
            bytes: r.bytes,
            iterations: r.iters,
            has_read,
            phases,
            open_close,
            extremes,
            samples,
            wall: r.wall.clone(),
            latency: r.latency.clone(),
            file_latency: r.file_latency.clone(),
            timeseries: r.timeseries.clone(),
        }
    }

    /// Whether the per-rank times were gathered ([`Record::samples`] is filled).
    pub fn has_samples(&self) -> bool {
        !self.samples.is_empty()
    }

    /// The time (s) of `rank` in `iteration` and phase index `phase`; `None` if not gathered.
    pub fn sample(&self, iteration: u32, rank: u32, phase: usize) -> Option<f64> {
        if phase >= 6 || rank >= self.nprocs || iteration >= self.iterations {
            return None;
        }
        let i = (iteration as usize * self.nprocs as usize + rank as usize) * 6 + phase;
        self.samples.get(i).copied()
    }

    /// The statistics of `phase`.
    pub fn phase(&self, phase: Phase) -> &PhaseStats {
        &self.phases[Phase::ALL
            .iter()
            .position(|p| *p == phase)
            .expect("phase in ALL")]
    }

    /// The "File Open" and "File Close" times of direction `d`.
    pub fn open_close_of(&self, d: Direction) -> [&TimeStats; 2] {
        let i = if d == Direction::Write { 0 } else { 2 };
        [&self.open_close[i], &self.open_close[i + 1]]
    }
}

// The slowest and fastest (rank, iteration) of phase `ph`; ties go to the first.
fn extremes_of(samples: &[f64], ranks: usize, ph: usize) -> Extremes {
    let mut e = Extremes {
        known: true,
        slowest_time: f64::NEG_INFINITY,
        fastest_time: f64::INFINITY,
        ..Extremes::default()
    };
    for (k, row) in samples.chunks_exact(6).enumerate() {
        let t = row[ph];
        let (it, rank) = ((k / ranks) as u32, (k % ranks) as u32);
        if t > e.slowest_time {
            (e.slowest_time, e.slowest_rank, e.slowest_iteration) = (t, rank, it);
        }
        if t < e.fastest_time {
            (e.fastest_time, e.fastest_rank) = (t, rank);
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::timer::{IterStat, COUNT};

    #[test]
    fn record_matches_report_arithmetic() {
        let mut stats = vec![vec![IterStat::default(); 2]; COUNT];
        stats[Timer::WriteFine as usize] = vec![
            IterStat {
                min: 0.1,
                max: 0.5,
                sum: 0.6,
            },
            IterStat {
                min: 0.1,
                max: 0.25,
                sum: 0.3,
            },
        ];
        stats[Timer::ReadGross as usize] = vec![
            IterStat {
                min: 0.0,
                max: 1.0,
                sum: 0.0,
            },
            IterStat {
                min: 0.0,
                max: 1.0,
                sum: 0.0,
            },
        ];
        let r = ApiResults {
            stats,
            bytes: 1 << 20,
            iters: 2,
            files: 1,
            per_rank: vec![],
            wall: None,
            latency: None,
            file_latency: None,
            timeseries: Vec::new(),
        };
        let rec = Record::from_api_results(2, 4096, 4096, Api::Mpiio, true, &r);
        assert!(!rec.has_samples() && !rec.extremes[1].known);
        let w = rec.phase(Phase::Write);
        assert_eq!((w.min_time, w.max_time), (0.25, 0.5));
        assert!((w.avg_time - 0.375).abs() < 1e-12);
        assert_eq!((w.max_mibps, w.min_mibps), (4.0, 2.0));
        assert_eq!(rec.phase(Phase::ReadOpenClose).avg_mibps, 1.0);
        assert_eq!(
            rec.phase(Phase::RawWrite).max_mibps,
            0.0,
            "zero time gives 0.0 as in the report"
        );
        let wo = Record::from_api_results(2, 4096, 4096, Api::Mpiio, false, &r);
        assert_eq!(*wo.phase(Phase::ReadOpenClose), PhaseStats::default());
    }

    #[test]
    fn spread_and_extremes_from_gathered_times() {
        // 3 iterations, 2 ranks; Write (fine) times per iteration: rank 0, rank 1
        let t: [[f64; 2]; 3] = [[0.1, 0.5], [0.3, 0.2], [0.4, 0.05]];
        let mut stats = vec![vec![IterStat::default(); 3]; COUNT];
        let mut per_rank = vec![vec![0.0; 2 * COUNT]; 3];
        for (i, row) in t.iter().enumerate() {
            let w = Timer::WriteFine as usize;
            stats[w][i] = IterStat {
                min: row[0].min(row[1]),
                max: row[0].max(row[1]),
                sum: row[0] + row[1],
            };
            per_rank[i][w] = row[0];
            per_rank[i][COUNT + w] = row[1];
        }
        let r = ApiResults {
            stats,
            bytes: 1 << 20,
            iters: 3,
            files: 1,
            per_rank,
            wall: None,
            latency: None,
            file_latency: None,
            timeseries: Vec::new(),
        };
        let rec = Record::from_api_results(2, 4096, 4096, Api::Posix, true, &r);
        let w = rec.phase(Phase::Write);
        // slowest-rank times 0.5, 0.3, 0.4: mean 0.4, sample std 0.1
        assert!((w.std_time - 0.1).abs() < 1e-12, "{}", w.std_time);
        // throughputs 2, 10/3, 2.5 MiB/s
        let m = (2.0 + 10.0 / 3.0 + 2.5) / 3.0;
        let want =
            (((2.0f64 - m).powi(2) + (10.0 / 3.0 - m).powi(2) + (2.5 - m).powi(2)) / 2.0).sqrt();
        assert!((w.std_mibps - want).abs() < 1e-12);
        assert_eq!(w.max_gbps, (1u64 << 20) as f64 / 0.3 / 1e9);
        let e = rec.extremes[1];
        assert!(e.known);
        assert_eq!((e.slowest_rank, e.slowest_iteration), (1, 0));
        assert_eq!(e.slowest_time, w.max_time);
        assert_eq!((e.fastest_rank, e.fastest_time), (1, 0.05));
        assert_eq!(rec.sample(1, 0, 1), Some(0.3));
        assert_eq!(rec.sample(2, 1, 1), Some(0.05));
        assert_eq!(rec.sample(3, 0, 1), None);
        assert_eq!(rec.samples.len(), 3 * 2 * 6);
    }

    #[test]
    fn moved_throughput_equals_plain_with_equal_bytes() {
        let per_iter = [0.5, 0.25, 0.4];
        let t = TimeStats {
            min: 0.25,
            avg: (0.5 + 0.25 + 0.4) / 3.0,
            max: 0.5,
        };
        let a = PhaseStats::of_moved(t, &per_iter, &[1 << 20; 3]);
        let b = PhaseStats::of(t, 1 << 20, &per_iter);
        assert_eq!((a.max_mibps, a.min_mibps), (b.max_mibps, b.min_mibps));
        assert!((a.avg_mibps - b.avg_mibps).abs() < 1e-9);
        // bytes moved over time: 3 MiB and 1 MiB in 1 s each
        let t = TimeStats {
            min: 1.0,
            avg: 1.0,
            max: 1.0,
        };
        let c = PhaseStats::of_moved(t, &[1.0, 1.0], &[3 << 20, 1 << 20]);
        assert_eq!((c.max_mibps, c.avg_mibps, c.min_mibps), (3.0, 2.0, 1.0));
    }
}
