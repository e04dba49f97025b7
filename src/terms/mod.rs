//! The shared vocabulary: [`Api`], [`Timer`], [`Phase`], [`Direction`] (spec §8), fill (§9).

pub mod api;
pub mod doing;
pub mod fill;
pub mod phase;
pub mod timer;

pub use api::Api;
pub use fill::FillSettings;
pub use phase::{Direction, Measures, Phase};
pub use timer::{Timer, COUNT};
