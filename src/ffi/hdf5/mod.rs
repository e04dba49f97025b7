//! Safe wrappers over the HDF5 calls h5perf uses: library start-up, property lists,
//! files with the MPI-IO driver, dataspaces with hyperslab selections, datasets.
//!
//! Every id is checked (`< 0` is an error) and every error becomes
//! [`crate::error::Error::Hdf5`] carrying the call name and the HDF5 error stack's
//! frames (the library's own printing is off while a [`Quiet`] is held). Ids are
//! owned and closed on drop; `close(self)` methods report the close error where it
//! matters (collective closes).
//!
//! This file is the face: the rest of the crate names everything as
//! `crate::ffi::hdf5::X`. The wrappers live by job:
//! - [`library`]: `H5open`, [`Quiet`], the version, error-stack capture, the checks;
//! - [`plist`]: property lists and the fill-value and allocation vocabulary;
//! - [`objects`]: files, dataspaces, datasets, chunk info, the in-memory probe.

pub mod library;
pub mod objects;
pub mod plist;

pub use library::{library_version, Quiet};
pub use objects::{
    a_file_close_failed, probe_dataset_create, ChunkInfo, Dataset, DatasetReads, DatasetWrites,
    Dataspace, H5File,
};
pub use plist::{AllocTime, FillKind, FillProperties, FillTime, FillValue, Plist};
