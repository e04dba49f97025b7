//! Configuration, pure core: what was asked ([`Options`], shared by the command line and the
//! C API), the benchmark's fill options ([`FillSettings`]), the resolved parameters the
//! benchmark runs ([`Params`], spec §1.9), and the acceptance options ([`Acceptance`]:
//! contract criteria, baseline, HTML page).

pub mod acceptance;
pub mod criteria;
pub mod mpi_info;
pub mod options;
pub mod order;
pub mod params;
pub mod payload;
pub mod stonewall;
pub mod storage;
pub mod values;

pub use crate::terms::{Api, FillSettings};
pub use acceptance::{Acceptance, Percent};
pub use criteria::Criterion;
pub use options::Options;
pub use order::RandomOrder;
pub use params::{DriverFacts, Params};
pub use payload::{PayloadKind, PayloadOptions};
pub use stonewall::StonewallOptions;
pub use storage::{Reorder, StorageFacts, StorageOptions};
pub use values::{ApiSet, Debug, ValueError};
