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
    /// Phases (files × iterations) that ended before the deadline: no rank was stopped.
    pub short_phases: u64,
    /// Phases counted.
    pub phases: u64,
    /// Bytes moved by all ranks in each iteration (all files), in order.
    pub moved: Vec<u64>,
}

impl WallFigures {
    /// Empty figures of a direction with this deadline and plan.
    pub fn new(deadline_s: f64, planned: u64) -> WallFigures {
        WallFigures {
            deadline_s,
            planned,
            min: (u64::MAX, 0),
            first_stop_s: f64::INFINITY,
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
        if !ph.stopped {
            self.short_phases += 1;
        }
        if self.moved.len() <= iteration {
            self.moved.resize(iteration + 1, 0);
        }
        self.moved[iteration] += ph.bytes;
    }

    /// Whether every phase lasted the deadline (some rank was stopped by it).
    pub fn full(&self) -> bool {
        self.short_phases == 0
    }

    /// Bytes moved by all ranks over every iteration.
    pub fn moved_total(&self) -> u64 {
        self.moved.iter().sum()
    }

    /// The factor by which the volume must grow for a phase to last the deadline: the
    /// deadline over the longest time a rank took to make all its transfers
    /// ([`WallFigures::last_stop_s`]); 1.0 when nothing is missing.
    pub fn volume_factor(&self) -> f64 {
        if self.full() || self.last_stop_s <= 0.0 {
            1.0
        } else {
            self.deadline_s / self.last_stop_s
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
        f.add(1, &ph((5, 2), (30, 0), 35, false));
        assert!(!f.full());
        assert_eq!(f.short_phases, 1);
        assert!((f.volume_factor() - 2.0 / 2.1).abs() < 1e-12);
    }
}
