//! Shared services, above the C wrappers and below everything else: failure agreement
//! across ranks ([`agree`](mod@agree)), the report sink ([`sink`]), the run environment (data
//! directory, data-file names: [`run_env`]) and the `HDF5_MPI_INFO` parser ([`mpi_info`]).

pub mod agree;
pub mod mpi_info;
pub mod run_env;
pub mod sink;

pub use agree::{agree, agree_with};
pub use run_env::{data_dir_checked, data_file_name, RunEnv};
pub use sink::{write_stdout, Sink};
