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
//! * [`hdf5_files`]: reading HDF5 files back with `h5dump` and `h5ls`.
//! * [`scratch`]: scratch directories and `#pio_tmp_*` listings.
//! * [`shim`]: the LD_PRELOAD shim that slows one rank (tests/slow_shim.c).
//! * [`trace`]: `strace -ff` output read back as calls per process.
//! * [`nodes`]: simulated nodes for `tests/multinode.rs` (`scripts/sim-nodes`).
//!
//! Everything public is re-exported here, so a test says `use common::*;`. Every test
//! binary includes this module, so not every helper is used everywhere.
#![allow(dead_code)]

mod golden;
mod hdf5_files;
mod launcher;
mod normalize;
mod scratch;
mod shim;
mod trace;

pub mod nodes; // simulated nodes for tests/multinode.rs (scripts/sim-nodes)

// Each test binary uses only part of the harness: the re-exports it leaves unused are
// not warnings (as the unused helpers are not, by `dead_code` above).
#[allow(unused_imports)]
pub use self::{
    golden::*, hdf5_files::*, launcher::*, normalize::*, scratch::*, shim::*, trace::*,
};
