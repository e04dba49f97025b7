//! h5perf: a drop-in Rust re-implementation of the HDF5 parallel I/O benchmark
//! `h5perf` (HDF5 1.10.8), for POSIX, MPI-IO and parallel HDF5.
//!
//! Layers, bottom up; a module imports only from its own layer, without an import circle,
//! and from the layers below it (checked by
//! `scripts/check-layers`, run by `make test`):
//! 1. [`error`] and [`ffi`]: the only code that calls C (MPI, HDF5, POSIX wrappers; the
//!    compiler refuses `unsafe` elsewhere). `ffi` owns the libraries' vocabulary (fill
//!    values, allocation times) and imports nothing above it.
//! 2. [`terms`]: the shared vocabulary (APIs, timers, phases, fill settings), and
//!    [`agreement`]: failure agreement across ranks, so no rank waits alone in a
//!    collective call.
//! 3. [`datadir`]: the data directory's safety (names, lock, leftovers, how data files
//!    are made and checked); core, no file I/O: [`pattern`] (access-pattern maths), [`config`] (options, fill
//!    options — checked with HDF5 in an in-memory file —, resolved parameters), [`measure`]
//!    (timers, statistics, results as records).
//! 4. [`output`]: the text report and the JSON/CSV results, from the same statistics;
//!    the results read back, the comparison with a baseline, the verdict, the HTML page.
//! 5. [`benchmark`] (drivers and run loops) and its sibling [`fill_behaviour`] (the
//!    `--fill-behaviour` experiment); neither imports the other.
//! 6. [`cli`] (the command line).
//! 7. [`app`] (the program) and [`capi`] (the C API); 8. `main.rs`, the binary.
#![warn(missing_docs)]

pub mod error;
pub mod ffi;

pub mod agreement;
pub mod terms;

pub mod datadir;

pub mod config;
pub mod measure;
pub mod pattern;

pub mod output;

pub mod benchmark;
pub mod fill_behaviour;

pub mod cli;

pub mod app;
pub mod capi;
