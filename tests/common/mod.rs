//! Shared harness for the MPI integration tests of `h5perf`, one file per job:
//!
//! * [`launcher`]: `mpirun` launches `MPIEXEC FLAGS -n NP h5perf ARGS` with a controlled
//!   environment and a hard timeout; the launcher and its flags come from
//!   `H5PERF_MPIEXEC` / `H5PERF_MPIEXEC_FLAGS` (set by the Makefile for the MPI flavour),
//!   the default is Open MPI's `mpiexec.openmpi --oversubscribe`. Flavour differences the
//!   tests must know (launcher flags, per-rank environment, `MPI_MAX_INFO_VAL`) are there,
//!   with the `Outcome` of a run, its assertion helpers and the launcher-banner filter.
//! * [`golden`]: the golden transcripts: their directory, `cases.txt`, one case's
//!   transcript for the flavour.
//! * [`normalize`]: normalising run-dependent figures and comparing reports (ordered,
//!   or — when several ranks print — as a multiset plus per-rank order).
//! * [`csv`]: h5perf's CSV output read back (a strict RFC 4180 reader).
//! * [`hdf5_files`]: reading HDF5 files back with `h5dump` and `h5ls`.
//! * [`library`]: the HDF5 library the binary is linked with and its version (from
//!   `ldd` and the library file), for the `HDF5 Library: Version` line and the
//!   release-dependent tables.
//! * [`scratch`]: scratch directories and `#pio_tmp_*` listings.
//! * [`shim`]: the LD_PRELOAD shims (tests/slow_shim.c and the others, built with `cc`).
//! * [`tmpfs`]: small tmpfs file systems mounted by a test (full, read-only).
//! * [`users`]: the unprivileged test user (`h5perf-t-unpriv`) and running as it.
//! * [`trace`]: `strace -ff` output read back as calls per process.
//! * [`nodes`]: simulated nodes for `tests/multinode.rs` (`scripts/sim-nodes`).
//! * [`browser`]: headless Chromium driven over the DevTools protocol (`tests/acceptance.rs`).
//!
//! Everything public is re-exported here, so a test says `use common::*;`. Every test
//! binary includes this module, so not every helper is used everywhere.
#![allow(dead_code)]

mod csv;
mod golden;
mod hdf5_files;
mod launcher;
mod library;
mod normalize;
mod scratch;
mod shim;
mod tmpfs;
mod trace;
mod users;

pub mod browser; // headless Chromium for tests/acceptance.rs
pub mod nodes; // simulated nodes for tests/multinode.rs (scripts/sim-nodes)

// Each test binary uses only part of the harness: the re-exports it leaves unused are
// not warnings (as the unused helpers are not, by `dead_code` above).
#[allow(unused_imports)]
pub use self::{
    csv::*, golden::*, hdf5_files::*, launcher::*, library::*, normalize::*, scratch::*, shim::*,
    tmpfs::*, trace::*, users::*,
};
