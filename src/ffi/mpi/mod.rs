//! Safe wrappers over the MPI calls h5perf uses: environment, communicators,
//! reductions, info objects, derived datatypes and MPI-IO files.
//!
//! Every raw call is checked: a non-`MPI_SUCCESS` code becomes
//! [`crate::error::Error::Mpi`] carrying the call name and `MPI_Error_string`.
//! Communicators we create and every file we open get `MPI_ERRORS_RETURN`, so errors
//! come back as values instead of aborting the job. Owned handles are freed in `Drop`
//! (errors ignored there); predefined handles (`MPI_COMM_WORLD`, `MPI_INFO_NULL`,
//! `MPI_UINT8_T`) are borrowed and never freed.
//!
//! Section numbers in the wrappers' documentation are those of MPI-3.1, the version
//! the MPI libraries h5perf supports implement (Open MPI 4, MPICH 3). MPI-4.0 inserted
//! a chapter before Datatypes, so its chapter numbers from there on are one higher, and
//! moved start-up (`MPI_Init`, `MPI_Finalize`, `MPI_Abort`) into its chapter 11.
//!
//! This file is the face: the rest of the crate names everything as
//! `crate::ffi::mpi::X`. The wrappers live by job:
//! - [`check`]: return codes to errors, `int` counts;
//! - `env`: the [`Universe`] (init, finalize, error handlers), clock, version;
//! - [`comm`]: communicators and collectives;
//! - [`beacon`]: the error beacon that stops independent transfers early;
//! - [`info`]: info objects;
//! - [`datatype`]: derived datatypes;
//! - `file`: MPI-IO files.

pub mod beacon;
pub mod check;
pub mod comm;
pub mod datatype;
pub mod env;
pub mod file;
pub mod info;

pub use beacon::Beacon;
pub use check::{is_running, to_count};
pub use comm::{Comm, Op};
pub use datatype::Datatype;
pub use env::{library_version, wtime, Universe};
pub use file::{file_delete, mode, to_offset, File, Reads, Writes};
pub use info::Info;
