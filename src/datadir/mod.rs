//! The data directory's safety: file names ([`run_env`]), data files ([`data_files`]),
//! the lock ([`lock`], [`lock_record`]), [`leftovers`] and [`host`]; the run conditions
//! of `--conditions` ([`conditions`]).

pub mod cleanup;
pub mod conditions;
pub mod data_files;
pub mod host;
pub mod leftovers;
pub mod lock;
pub mod lock_record;
pub mod run_env;

pub use run_env::{data_dir_checked, data_file_name, dir_or_current, rank_file_name, RunEnv};
