//! The subfiling file driver (HDF5 1.14.0 and later, when built with it: autotools
//! `--enable-subfiling-vfd`, CMake `HDF5_ENABLE_SUBFILING_VFD=ON`), resolved at run time.
//!
//! `H5Pset_fapl_subfiling` is not bound by `hdf5-sys` and does not exist in HDF5 1.10 or
//! in a 1.14 built without the driver, so h5perf looks it up in the loaded libraries
//! (`dlsym(RTLD_DEFAULT, ...)`): the same binary links against 1.10.8 and runs the driver
//! where the linked HDF5 has it.

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use hdf5_sys::h5::herr_t;
use hdf5_sys::h5i::hid_t;

use super::library::{check, init};
use super::plist::Plist;
use crate::error::Result;

/// `herr_t H5Pset_fapl_subfiling(hid_t fapl_id, const H5FD_subfiling_config_t *config)`
/// (H5FDsubfiling.h); h5perf passes NULL: HDF5's default configuration.
type SetFaplSubfiling = unsafe extern "C" fn(hid_t, *const c_void) -> herr_t;

/// The name of the setter, as the library exports it.
const SETTER: &CStr = c"H5Pset_fapl_subfiling";

static SETTER_FN: OnceLock<Option<SetFaplSubfiling>> = OnceLock::new();

fn setter() -> Option<SetFaplSubfiling> {
    *SETTER_FN.get_or_init(|| {
        init();
        // SAFETY: RTLD_DEFAULT searches the process's global symbols; the name is a
        // NUL-terminated C string. A NULL result means the symbol is absent.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, SETTER.as_ptr()) };
        if sym.is_null() {
            None
        } else {
            // SAFETY: the symbol is HDF5's H5Pset_fapl_subfiling, whose C signature is
            // SetFaplSubfiling in every release that has it (1.14.0 to 2.2.0).
            Some(unsafe { std::mem::transmute::<*mut c_void, SetFaplSubfiling>(sym) })
        }
    })
}

/// Whether the linked HDF5 has the subfiling file driver (`H5Pset_fapl_subfiling` is
/// among the loaded symbols): false for HDF5 1.10 and 1.12, and for a 1.14 or 2.x
/// built without the driver.
pub fn subfiling_available() -> bool {
    setter().is_some()
}

impl Plist {
    /// `H5Pset_fapl_subfiling(fapl, NULL)`: the subfiling file driver with HDF5's
    /// default configuration (stripe size 32 MiB, one I/O concentrator per node, both
    /// changed by the environment variables `H5FD_SUBFILING_STRIPE_SIZE` and
    /// `H5FD_SUBFILING_IOC_PER_NODE`; HDF5 reference manual, H5FDsubfiling.h). The
    /// driver takes the communicator and info the list already holds (those of
    /// [`Plist::file_access_mpio`]); it needs MPI initialised with
    /// `MPI_THREAD_MULTIPLE`. Errors: [`crate::error::Error::Limit`] when the linked
    /// HDF5 has no such driver, [`crate::error::Error::Hdf5`] when it refuses the list.
    pub fn set_fapl_subfiling(&self) -> Result<()> {
        let Some(f) = setter() else {
            return Err(crate::error::Error::Limit(
                "the linked HDF5 has no subfiling file driver (H5Pset_fapl_subfiling)".into(),
            ));
        };
        // SAFETY: a valid file-access list id; NULL selects the default configuration.
        check("H5Pset_fapl_subfiling", unsafe {
            f(self.id, std::ptr::null())
        })
    }
}
