//! The `--fill-behaviour` mode (issue 6; README `h5perf --fill-behaviour`), a sibling of
//! the benchmark. Each file imports its siblings by path, never this face.

mod cells;
mod classify;
mod doc;
mod experiment;
mod findings;

pub use experiment::run_mode;
