//! Measurement, pure core: the timers of an iteration and their statistics over ranks and
//! iterations ([`timer`], spec §8.1–§8.3), and the results as data, one [`Record`] per
//! (processes, transfer size, API) with one entry per report [`Phase`] ([`record`]).

pub mod record;
pub mod timer;

pub use record::{Phase, PhaseStats, Record, TimeStats};
pub use timer::{mbps, ApiResults, IterStat, Summary, Timer, Times, COUNT};
