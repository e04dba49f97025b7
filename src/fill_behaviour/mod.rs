//! The `--fill-behaviour` mode (issue 6), a sibling of the benchmark: it rebuilds HDF5's
//! documented fill-value tables (serial and parallel) by experiment with the linked
//! library and marks where the library differs from the document. The method (marker
//! bytes behind HDF5's allocated space, the 128 × 128 byte dataset, the flushes, what is
//! counted) is described in the README under `h5perf --fill-behaviour`. (The benchmark's
//! own fill options live in [`crate::terms::fill`].)
//!
//! The files, by job; each imports its siblings by path, never this face:
//! * `doc`: the document's tables;
//! * `cells`: the cells' settings and the dataset every cell creates;
//! * `classify`: what a cell left behind and the document's outcome it shows; pure;
//! * `findings`: the observations paired with the document, the checks, and the
//!   report; pure;
//! * `experiment`: the I/O (scratch files, marker bytes, each cell run and read back)
//!   and [`run_mode`].

mod cells;
mod classify;
mod doc;
mod experiment;
mod findings;

pub use experiment::run_mode;
