//! The benchmark (spec §3, §5–§8): one driver per I/O API ([`driver`]) and the run loops
//! over process counts, transfer sizes, APIs, iterations, files, datasets and transfers
//! ([`run`]), the verification of read-back data (`verify`), and the run-time side of
//! the storage options ([`storage`], and their up-front checks: [`storage_checks`]), the
//! checks of each data file outside the timers (`file_watch`). It never imports the fill-behaviour experiment,
//! nor the other way round.

pub mod driver;
mod file_watch;
pub mod run;
pub mod storage;
pub mod storage_checks;
mod verify;
