//! Measurement, pure core: the timers' statistics over ranks and iterations ([`timer`],
//! spec §8.1–§8.3) and the results as data, one [`Record`] per step and API ([`record`]).

pub mod latency;
pub mod record;
pub mod stonewall;
pub mod timer;
pub mod timeseries;

pub use crate::terms::{Direction, Measures, Phase};
pub use latency::{FileCall, FileLatencies, Histogram, LatencyFigures};
pub use record::{Extremes, PhaseStats, Record};
pub use stonewall::{Counts, PhaseWall, RankWall, WallFigures};
pub use timer::{gbps, mbps, sample_std, ApiResults, IterStat, TimeStats, Timer, Times, COUNT};
