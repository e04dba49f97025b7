//! The figures of time-limited phases (`--stonewall`, issue 28): what each rank did in
//! one phase ([`RankWall`]), the phase agreed over ranks ([`PhaseWall`]), and per record
//! and direction over every file and iteration ([`WallFigures`]).

/// What one rank did in one stonewalled phase of one file.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankWall {
    /// Transfers this rank made in the phase (every dataset, wear-out included).
    pub xfers: u64,
    /// The bytes those transfers moved.
    pub bytes: u64,
    /// Whether the deadline stopped it (else it made every transfer it had).
    pub stopped: bool,
    /// Seconds after the phase's start when it stopped starting transfers (the
    /// deadline), or when its last transfer before any wear-out ended.
    pub stop_s: f64,
    /// Seconds it spent in wear-out transfers (`--wear-out`).
    pub wear_out_s: f64,
}

/// One phase of one file over all ranks (agreed: every rank holds the same).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PhaseWall {
    /// Fewest transfers of a rank, and the lowest rank with that many.
    pub min: (u64, u32),
    /// Most transfers of a rank, and the lowest rank with that many.
    pub max: (u64, u32),
    /// Bytes moved by all ranks together.
    pub bytes: u64,
    /// Earliest and latest [`RankWall::stop_s`], seconds.
    pub first_stop_s: f64,
    /// See `first_stop_s`.
    pub last_stop_s: f64,
    /// Longest wear-out of a rank, seconds.
    pub wear_out_s: f64,
    /// Whether the deadline stopped at least one rank.
    pub stopped: bool,
}

/// The stonewall figures of one direction (write or read) of one record, over all its
/// files and iterations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WallFigures {
    /// The deadline after each phase's start, seconds.
    pub deadline_s: f64,
    /// Transfers per rank and phase without a deadline (datasets × transfers).
    pub planned: u64,
    /// Fewest transfers of a rank in one phase, and that rank (the first seen).
    pub min: (u64, u32),
    /// Most transfers of a rank in one phase, and that rank (the first seen).
    pub max: (u64, u32),
    /// Earliest stop of a rank, seconds after its phase's start.
    pub first_stop_s: f64,
    /// Latest stop of a rank, seconds after its phase's start.
    pub last_stop_s: f64,
    /// Longest wear-out of a rank, seconds (0 without `--wear-out`).
    pub wear_out_s: f64,
    /// Phases (files × iterations) in which the deadline stopped some rank.
    pub stopped_phases: u64,
    /// Phases (files × iterations) that ended before the deadline: no rank was stopped,
    /// and every rank had made all its transfers before it.
    pub short_phases: u64,
    /// The time of the shortest of those phases (its last rank's end, seconds after its
    /// start; infinite when none), from which [`WallFigures::volume_factor`] is taken.
    pub shortest_short_s: f64,
    /// Phases counted.
    pub phases: u64,
    /// Bytes moved by all ranks in each iteration (all files), in order.
    pub moved: Vec<u64>,
    /// Bytes moved by each rank in each iteration (all files):
    /// `rank_moved[iteration][rank]`; filled on every rank.
    pub rank_moved: Vec<Vec<u64>>,
}

impl WallFigures {
    /// Empty figures of a direction with this deadline and plan.
    pub fn new(deadline_s: f64, planned: u64) -> WallFigures {
        WallFigures {
            deadline_s,
            planned,
            min: (u64::MAX, 0),
            first_stop_s: f64::INFINITY,
            shortest_short_s: f64::INFINITY,
            ..WallFigures::default()
        }
    }

    /// Add the agreed phase `ph` of a file of iteration `iteration` (0-based).
    pub fn add(&mut self, iteration: usize, ph: &PhaseWall) {
        if ph.min.0 < self.min.0 {
            self.min = ph.min;
        }
        if ph.max.0 > self.max.0 || self.phases == 0 {
            self.max = ph.max;
        }
        self.first_stop_s = self.first_stop_s.min(ph.first_stop_s);
        self.last_stop_s = self.last_stop_s.max(ph.last_stop_s);
        self.wear_out_s = self.wear_out_s.max(ph.wear_out_s);
        self.phases += 1;
        self.stopped_phases += u64::from(ph.stopped);
        // a phase whose ranks all made their plan but whose last one ended after the
        // deadline lasted it (IO500's rule is a duration): not short
        if !ph.stopped && ph.last_stop_s < self.deadline_s {
            self.short_phases += 1;
            self.shortest_short_s = self.shortest_short_s.min(ph.last_stop_s);
        }
        if self.moved.len() <= iteration {
            self.moved.resize(iteration + 1, 0);
        }
        self.moved[iteration] += ph.bytes;
    }

    /// Add the bytes each rank moved (rank order) in a phase of iteration `iteration`.
    pub fn add_ranks(&mut self, iteration: usize, bytes: &[u64]) {
        if self.rank_moved.len() <= iteration {
            self.rank_moved.resize(iteration + 1, Vec::new());
        }
        let row = &mut self.rank_moved[iteration];
        if row.len() < bytes.len() {
            row.resize(bytes.len(), 0);
        }
        for (r, b) in row.iter_mut().zip(bytes) {
            *r += b;
        }
    }

    /// The bytes `rank` moved in `iteration`, if recorded.
    pub fn rank_bytes(&self, iteration: usize, rank: usize) -> Option<u64> {
        self.rank_moved.get(iteration)?.get(rank).copied()
    }

    /// Whether every phase lasted the deadline (some rank was stopped by it).
    pub fn full(&self) -> bool {
        self.short_phases == 0
    }

    /// Bytes moved by all ranks over every iteration.
    pub fn moved_total(&self) -> u64 {
        self.moved.iter().sum()
    }

    /// The factor by which the volume must grow for every phase to last the deadline:
    /// the deadline over the time of the shortest phase that ended before it
    /// ([`WallFigures::shortest_short_s`]; above 1); 1.0 when no phase was short.
    /// (It was taken from the longest phase of all, and gave factors below 1 — the
    /// fresh-user trial.)
    pub fn volume_factor(&self) -> f64 {
        if self.full() || !(self.shortest_short_s > 0.0 && self.shortest_short_s.is_finite()) {
            1.0
        } else {
            self.deadline_s / self.shortest_short_s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_add_up_over_phases() {
        let mut f = WallFigures::new(2.0, 100);
        let ph = |min, max, xfers: u64, stopped| PhaseWall {
            min,
            max,
            bytes: xfers * 4096,
            first_stop_s: 1.5,
            last_stop_s: 2.1,
            wear_out_s: 0.0,
            stopped,
        };
        f.add(0, &ph((10, 1), (40, 0), 50, true));
        f.add(1, &ph((5, 2), (30, 0), 35, true));
        assert_eq!((f.min, f.max), ((5, 2), (40, 0)));
        assert_eq!(f.moved, vec![50 * 4096, 35 * 4096]);
        assert!(f.full());
        // made its plan but ended after the deadline: it lasted the deadline
        f.add(1, &ph((5, 2), (30, 0), 35, false));
        assert!(f.full());
        // two phases that ended before it: the shorter one decides the factor
        let short = |last_stop_s| PhaseWall {
            last_stop_s,
            ..ph((5, 2), (30, 0), 35, false)
        };
        f.add(1, &short(1.0));
        f.add(1, &short(0.5));
        assert!(!f.full());
        assert_eq!(f.short_phases, 2);
        assert!((f.volume_factor() - 2.0 / 0.5).abs() < 1e-12);
    }
}

/// The transfer counts of a stonewalled write phase, recorded beside its data file
/// (`NAME` + [`Counts::SUFFIX`], like IOR's stonewalling status file) when the files are
/// kept (`HDF5_NOCLEANUP`), so that a later `--read-only --stonewall` run reads exactly
/// what was written. Text, one `key value` pair per line:
///
/// ```text
/// h5perf stonewall counts 1
/// api posix
/// processes 2
/// transfer_size 65536
/// datasets 1
/// transfers_per_dataset 64
/// counts 64 10
/// ```
///
/// `counts`: the transfers each rank made in the phase (rank order), its datasets
/// filled in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// The API's name (`posix`, `mpiio`, `phdf5`).
    pub api: String,
    /// Processes of the run.
    pub processes: u32,
    /// Transfer size, bytes (`-x`..`-X`).
    pub xfer_size: u64,
    /// Datasets per file.
    pub datasets: u64,
    /// Transfers per rank and dataset without a deadline.
    pub transfers_per_dataset: u64,
    /// Transfers each rank made, in rank order.
    pub counts: Vec<u64>,
}

impl Counts {
    /// What the counts file's name adds to the data file's.
    pub const SUFFIX: &'static str = ".stonewall";
    /// The first line.
    const HEAD: &'static str = "h5perf stonewall counts 1";

    /// The file's text.
    pub fn text(&self) -> String {
        let counts: Vec<String> = self.counts.iter().map(u64::to_string).collect();
        format!(
            "{}\napi {}\nprocesses {}\ntransfer_size {}\ndatasets {}\ntransfers_per_dataset {}\ncounts {}\n",
            Self::HEAD,
            self.api,
            self.processes,
            self.xfer_size,
            self.datasets,
            self.transfers_per_dataset,
            counts.join(" ")
        )
    }

    /// Parse a counts file's text.
    ///
    /// # Errors
    /// What is wrong, for a message (`not an h5perf counts file`, `no processes`, …).
    pub fn parse(text: &str) -> Result<Counts, String> {
        let mut lines = text.lines();
        if lines.next() != Some(Self::HEAD) {
            return Err(format!(
                "not an h5perf counts file (first line not '{}')",
                Self::HEAD
            ));
        }
        let mut c = Counts {
            api: String::new(),
            processes: 0,
            xfer_size: 0,
            datasets: 0,
            transfers_per_dataset: 0,
            counts: Vec::new(),
        };
        let num = |k: &str, v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("{k}: not a number: {v}"))
        };
        let mut seen = 0;
        for line in lines {
            let (k, v) = line.split_once(' ').unwrap_or((line, ""));
            seen += 1;
            match k {
                "api" => c.api = v.to_string(),
                "processes" => {
                    c.processes = u32::try_from(num(k, v)?).map_err(|_| "processes: too large")?
                }
                "transfer_size" => c.xfer_size = num(k, v)?,
                "datasets" => c.datasets = num(k, v)?,
                "transfers_per_dataset" => c.transfers_per_dataset = num(k, v)?,
                "counts" => {
                    c.counts = v
                        .split_whitespace()
                        .map(|x| num(k, x))
                        .collect::<Result<_, _>>()?
                }
                _ => return Err(format!("unknown line: {line}")),
            }
        }
        if seen != 6 || c.counts.len() != c.processes as usize {
            return Err("incomplete: six lines after the first, one count per process".into());
        }
        let most = c.datasets.saturating_mul(c.transfers_per_dataset);
        if let Some(x) = c.counts.iter().find(|&&x| x > most) {
            return Err(format!("a count ({x}) above the planned {most} transfers"));
        }
        Ok(c)
    }

    /// Why these counts do not fit a run expecting `want`'s set-up (every field but the
    /// counts), if they do not.
    pub fn mismatch(&self, want: &Counts) -> Option<String> {
        let pairs = [
            (
                "processes",
                u64::from(self.processes),
                u64::from(want.processes),
            ),
            ("transfer_size", self.xfer_size, want.xfer_size),
            ("datasets", self.datasets, want.datasets),
            (
                "transfers_per_dataset",
                self.transfers_per_dataset,
                want.transfers_per_dataset,
            ),
        ];
        if self.api != want.api {
            return Some(format!("api {} (this run: {})", self.api, want.api));
        }
        pairs
            .iter()
            .find(|(_, a, b)| a != b)
            .map(|(k, a, b)| format!("{k} {a} (this run: {b})"))
    }
}

#[cfg(test)]
mod counts_tests {
    use super::*;

    #[test]
    fn counts_round_trip_and_refusals() {
        let c = Counts {
            api: "posix".into(),
            processes: 2,
            xfer_size: 65536,
            datasets: 1,
            transfers_per_dataset: 64,
            counts: vec![64, 10],
        };
        let t = c.text();
        assert!(t.ends_with("counts 64 10\n"));
        assert_eq!(Counts::parse(&t), Ok(c.clone()));
        assert_eq!(c.mismatch(&c), None);
        let mut other = c.clone();
        other.xfer_size = 4096;
        assert_eq!(
            c.mismatch(&other).as_deref(),
            Some("transfer_size 65536 (this run: 4096)")
        );
        assert!(Counts::parse("junk").is_err());
        assert!(Counts::parse(&t.replace("counts 64 10", "counts 64")).is_err());
        assert!(Counts::parse(&t.replace("counts 64 10", "counts 65 10")).is_err());
    }
}
