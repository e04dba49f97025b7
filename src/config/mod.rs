//! Configuration, pure core: what was asked ([`Options`], shared by the command line and the
//! C API), the benchmark's fill options ([`FillSettings`]), and the resolved parameters the
//! benchmark runs ([`Params`], spec §1.9).

pub mod fill;
pub mod options;
pub mod params;
pub mod storage;

pub use fill::FillSettings;
pub use options::{Api, ApiSet, Debug, Options, ValueError};
pub use params::Params;
pub use storage::{Reorder, StorageFacts, StorageOptions};
