//! The benchmark (spec §3, §5–§8): one driver per I/O API ([`driver`]) and the run loops
//! over process counts, transfer sizes, APIs, iterations, files, datasets and transfers
//! ([`run`]), and the verification of read-back data (`verify`). It never imports the
//! fill-behaviour experiment, nor the other way round.

pub mod driver;
pub mod run;
mod verify;
