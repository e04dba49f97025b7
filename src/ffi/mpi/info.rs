//! Info objects ([`Info`]): `MPI_INFO_NULL` or key/value hints for MPI-IO.

use std::ffi::CString;
use std::mem::MaybeUninit;

use mpi_sys as raw;

use super::check::check;
use crate::error::{Error, Result};

fn cstring(what: &'static str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::Limit(format!("{what} contains a NUL byte: {s:?}")))
}

/// An MPI info object, `MPI_INFO_NULL` or freed on drop (MPI-3.1 chapter 9).
pub struct Info {
    pub(super) raw: raw::MPI_Info,
    owned: bool,
    pairs: Vec<(String, String)>,
}

impl Info {
    /// `MPI_INFO_NULL`.
    pub fn null() -> Info {
        // SAFETY: link-time constant.
        Info {
            raw: unsafe { raw::RSMPI_INFO_NULL },
            owned: false,
            pairs: Vec::new(),
        }
    }

    /// `MPI_Info_create` + `MPI_Info_set` per pair. Errors: a NUL byte, or MPI's.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Info> {
        let mut h = MaybeUninit::<raw::MPI_Info>::uninit();
        // SAFETY: out-pointer to a handle.
        checked!(unsafe { raw::MPI_Info_create(h.as_mut_ptr()) })?;
        // SAFETY: initialised by MPI_Info_create.
        let info = Info {
            raw: unsafe { h.assume_init() },
            owned: true,
            pairs: pairs.to_vec(),
        };
        for (k, v) in pairs {
            let k = cstring("HDF5_MPI_INFO key", k)?;
            let v = cstring("HDF5_MPI_INFO value", v)?;
            // SAFETY: valid info handle and NUL-terminated strings.
            checked!(unsafe { raw::MPI_Info_set(info.raw, k.as_ptr(), v.as_ptr()) })?;
        }
        Ok(info)
    }

    /// The (key, value) pairs set, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The raw handle, for the HDF5 MPI-IO driver.
    pub fn as_raw(&self) -> raw::MPI_Info {
        self.raw
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        if self.owned && super::check::is_running() {
            // SAFETY: we own the object.
            unsafe { raw::MPI_Info_free(&mut self.raw) };
        }
    }
}
