//! The `--fill-behaviour` experiment, a sibling of the benchmark: HDF5's documented
//! fill-value tables rebuilt by experiment with the linked library ([`experiment`]).

pub mod cells;
pub mod classify;
pub mod doc;
pub mod experiment;
pub mod findings;
