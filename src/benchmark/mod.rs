//! The benchmark (spec §3, §5–§8): the drivers ([`driver`]), the run loops ([`run`]) and
//! the run-time storage options ([`storage`], [`storage_checks`]), the generated
//! payloads ([`payload`]). It never imports the
//! fill-behaviour experiment, nor the other way round.

pub mod driver;
mod explain;
mod file_watch;
pub mod hints_probe;
pub mod latency;
mod layout;
pub mod order;
pub mod payload;
pub mod run;
mod stonewall;
pub mod storage;
pub mod storage_checks;
pub mod timeseries;
mod verify;
