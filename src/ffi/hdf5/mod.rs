//! Safe wrappers over the HDF5 calls h5perf uses: [`library`] (`H5open`, [`Quiet`],
//! the version, error stacks), [`plist`] (property lists, the fill vocabulary),
//! [`objects`] (files, dataspaces, datasets, chunk info, the in-memory probe). The rest
//! of the crate names them `crate::ffi::hdf5::X`.
//!
//! A negative id or return code becomes [`crate::error::Error::Hdf5`] with the call
//! name and the error stack's frames (HDF5 prints nothing while a [`Quiet`] is held).
//! Ids are owned and closed on drop; `close(self)` reports the error where it matters.

pub mod library;
pub mod objects;
pub mod plist;

pub use library::{library_version, Quiet};
pub use objects::{
    a_file_close_failed, probe_dataset_create, ChunkInfo, Dataset, DatasetReads, DatasetWrites,
    Dataspace, H5File,
};
pub use plist::{AllocTime, FillKind, FillProperties, FillTime, FillValue, Plist};
