//! h5perf: a drop-in Rust re-implementation of the HDF5 parallel I/O benchmark
//! `h5perf` (HDF5 1.10.8), for POSIX, MPI-IO and parallel HDF5.
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
