//! Results as data: one [`Record`] per (processes, transfer size, API), with the
//! statistics of every phase, as the text report prints them (spec §8.3–§8.5). The C
//! API returns these records and the `--json`/`--csv` writers serialise them; the text
//! report is rendered from the same statistics, so all three agree.

use super::phase::{Direction, Phase};
use super::timer::{mbps, ApiResults, TimeStats, Timer};
use crate::config::Api;

/// Statistics of one phase over the iterations (spec §8.3). Times are the slowest
/// rank's accumulated seconds per iteration; throughputs are MiB/s of the record's
/// bytes over those times (0.0 for a zero time, as the report prints).
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
}

impl PhaseStats {
    /// The statistics of a phase that moved `bytes` per iteration in the times `t`
    /// (spec §8.3: "Maximum Throughput" is `MBps(bytes, t.min)`, and so on).
    pub fn of(t: TimeStats, bytes: u64) -> PhaseStats {
        PhaseStats {
            min_time: t.min,
            avg_time: t.avg,
            max_time: t.max,
            max_mibps: mbps(bytes, t.min),
            avg_mibps: mbps(bytes, t.avg),
            min_mibps: mbps(bytes, t.max),
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
    /// "Write File Open", "Write File Close", "Read File Open", "Read File Close" times
    /// (the open and close timers of [`Direction::ALL`] in turn); read times are zero
    /// with `-w`.
    pub open_close: [TimeStats; 4],
}

impl Record {
    /// Build a record from the engine's per-timer statistics: the one place where the
    /// statistics over iterations and the throughputs are computed (spec §8.3); the
    /// text report, the C API and the results files all read them from the record.
    pub fn from_api_results(
        nprocs: u32,
        xfer_size: u64,
        buf_bytes: u64,
        api: Api,
        has_read: bool,
        r: &ApiResults,
    ) -> Record {
        let of = |t: Timer| TimeStats::of(&r.stats[t as usize]);
        let mut phases = [PhaseStats::default(); 6];
        for (i, ph) in Phase::ALL.iter().enumerate() {
            if ph.is_read() && !has_read {
                continue;
            }
            phases[i] = PhaseStats::of(of(ph.timer()), r.bytes);
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
        }
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
        let i = match d {
            Direction::Write => 0,
            Direction::Read => 2,
        };
        [&self.open_close[i], &self.open_close[i + 1]]
    }
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
        };
        let rec = Record::from_api_results(2, 4096, 4096, Api::Mpiio, true, &r);
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
}
