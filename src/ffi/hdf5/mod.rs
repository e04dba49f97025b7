//! Safe wrappers over the HDF5 calls h5perf uses; errors become [`crate::error::Error::Hdf5`].

pub mod library;
pub mod objects;
pub mod plist;
pub mod subfiling;

pub use library::{deflate_available, library_version, Quiet};
pub use objects::{
    a_file_close_failed, probe_dataset_create, ChunkInfo, Dataset, DatasetReads, DatasetWrites,
    Dataspace, H5File,
};
pub use plist::{AllocTime, FillKind, FillProperties, FillTime, FillValue, Plist};
pub use subfiling::subfiling_available;
