//! The shared vocabulary below the configuration and the measurements: [`Api`], [`Timer`],
//! [`Phase`], [`Direction`] (spec §8) and the PHDF5 fill settings ([`FillSettings`], §9).

pub mod api;
pub mod fill;
pub mod phase;
pub mod timer;

pub use api::Api;
pub use fill::FillSettings;
pub use phase::{Direction, Measures, Phase};
pub use timer::{Timer, COUNT};
