//! Safe wrappers over the MPI calls h5perf uses (MPI-3.1 section numbers).
//! Errors become [`crate::error::Error::Mpi`]; owned handles are freed on drop.

pub mod check;
pub mod comm;
pub mod datatype;
pub mod env;
pub mod file;
pub mod info;
pub mod p2p;

pub use check::{is_running, to_count};
pub use comm::{is_null as is_comm_null, Comm, Op};
pub use datatype::Datatype;
pub use env::{abort_world, library_version, thread_multiple, wtime, Universe};
pub use file::{file_delete, mode, to_offset, File, Reads, Writes};
pub use info::Info;
pub use p2p::{ByteRecv, ByteSend};
