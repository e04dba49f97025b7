//! h5perf: a drop-in Rust re-implementation of the HDF5 parallel I/O benchmark
//! `h5perf` (HDF5 1.10.8), for POSIX, MPI-IO and parallel HDF5.
//!
//! Layers, bottom up: [`ffi`] (the only code that calls C: MPI, HDF5, POSIX wrappers; the compiler refuses such code elsewhere),
//! [`pattern`] (pure access-pattern maths), [`driver`] (one driver per I/O API),
//! [`timer`] (timer statistics), [`report`] (report text), [`params`] and [`cli`]
//! (configuration and command line), [`engine`] (run loops) and [`app`] (the program).
#![warn(missing_docs)]

pub mod app;
pub mod capi;
pub mod cli;
pub mod driver;
pub mod engine;
pub mod env;
pub mod error;
pub mod export;
pub mod ffi;
pub mod fill;
pub mod params;
pub mod pattern;
pub mod report;
pub mod results;
pub mod timer;
