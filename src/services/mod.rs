//! Shared services, above the C wrappers and below everything else: failure agreement
//! across ranks ([`agree`](mod@agree)), the report sink ([`sink`]), output file names as
//! files ([`paths`]), the run environment (data directory, data-file names:
//! [`run_env`]), how data files are made and checked ([`data_files`]), the
//! `HDF5_MPI_INFO` parser ([`mpi_info`]), the data directory's lock, its record and what
//! a run left there ([`dir_lock`], [`lock_record`], [`leftovers`]), and this host and
//! process as others see them ([`host`]).

pub mod agree;
pub mod data_files;
pub mod dir_lock;
pub mod host;
pub mod leftovers;
pub mod lock_record;
pub mod mpi_info;
pub mod paths;
pub mod run_env;
pub mod sink;

pub use agree::{agree, agree_with};
pub use run_env::{data_dir_checked, data_file_name, RunEnv};
pub use sink::{write_stdout, Sink};
