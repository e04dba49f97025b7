//! Safe wrappers over the MPI calls h5perf uses: [`check`] (return codes, `int`
//! counts), `env` ([`Universe`], clock, version), [`comm`] (communicators,
//! collectives), [`p2p`] (the error beacon's one-byte messages), [`info`],
//! [`datatype`] and `file` (MPI-IO). The rest of the crate names them `crate::ffi::mpi::X`.
//!
//! A code other than `MPI_SUCCESS` becomes [`crate::error::Error::Mpi`] with the call
//! name and `MPI_Error_string`. Communicators we create and every file we open get
//! `MPI_ERRORS_RETURN`. Owned handles are freed in `Drop` (errors ignored there);
//! predefined ones (`MPI_COMM_WORLD`, `MPI_INFO_NULL`, `MPI_UINT8_T`) are borrowed.
//! Section numbers are MPI-3.1's, the version Open MPI 4 and MPICH 3 implement.

pub mod check;
pub mod comm;
pub mod datatype;
pub mod env;
pub mod file;
pub mod info;
pub mod p2p;

pub use check::{is_running, to_count};
pub use comm::{Comm, Op};
pub use datatype::Datatype;
pub use env::{library_version, wtime, Universe};
pub use file::{file_delete, mode, to_offset, File, Reads, Writes};
pub use info::Info;
pub use p2p::{ByteRecv, ByteSend};
