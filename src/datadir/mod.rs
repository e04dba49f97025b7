//! The data directory's safety, in one place: where the data files go and their names
//! ([`run_env`]: `HDF5_PARAPREFIX`, `USER`, `HDF5_NOCLEANUP`, spec §5.1), how a data
//! file is made and checked ([`data_files`]), the directory's lock and its record
//! ([`lock`], [`lock_record`]), what a run left there and its removal ([`leftovers`]),
//! and this host and process as another run sees them ([`host`]).

pub mod cleanup;
pub mod data_files;
pub mod host;
pub mod leftovers;
pub mod lock;
pub mod lock_record;
pub mod run_env;

pub use run_env::{data_dir_checked, data_file_name, dir_or_current, RunEnv};
