//! One driver per I/O API ([`posix`], [`mpiio`], [`phdf5`]) behind one interface
//! ([`interface::Driver`]).

pub mod interface;
pub mod mpiio;
pub mod phdf5;
pub mod posix;
pub mod subfiles;

pub use interface::{
    each_read, each_transfer, each_write, poll_interval, timed_reads, timed_writes, Access, Ctx,
    Driver, ReadCheck, Transfers, POLL_BYTES,
};

use crate::config::Api;

/// A fresh driver for `api`.
pub fn new_driver(api: Api) -> Box<dyn Driver> {
    match api {
        Api::Posix => Box::new(posix::PosixDriver::default()),
        Api::Mpiio => Box::new(mpiio::MpiioDriver::default()),
        Api::Phdf5 => Box::new(phdf5::Phdf5Driver::default()),
    }
}
