//! Measurement, pure core: the timers of an iteration and their statistics over ranks and
//! iterations ([`timer`], spec §8.1–§8.3); the one table of titles, keys and timers of
//! the report's phases and of each direction ([`crate::terms::phase`], spec §8.5); and the results as
//! data, one [`Record`] per (processes, transfer size, API) with one entry per report
//! [`Phase`] ([`record`]).

pub mod record;
pub mod timer;

pub use crate::terms::{Direction, Measures, Phase};
pub use record::{Extremes, PhaseStats, Record};
pub use timer::{gbps, mbps, sample_std, ApiResults, IterStat, TimeStats, Timer, Times, COUNT};
