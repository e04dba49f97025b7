//! The benchmark's shared vocabulary, below the configuration and the measurements
//! that both speak it: the I/O APIs ([`Api`]), the timers ([`Timer`], spec §8.1–§8.2),
//! the report's phases and directions ([`Phase`], [`Direction`], spec §8.5), and the
//! fill settings of the PHDF5 datasets ([`FillSettings`], spec §9).

pub mod api;
pub mod fill;
pub mod phase;
pub mod timer;

pub use api::Api;
pub use fill::FillSettings;
pub use phase::{Direction, Measures, Phase};
pub use timer::{Timer, COUNT};
