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

/// The (key, value) pairs of the info object `info`, in MPI's order (`MPI_Info_get_nkeys`,
/// `MPI_Info_get_nthkey`, `MPI_Info_get_valuelen`, `MPI_Info_get`: MPI-3.1 §9), then
/// `MPI_Info_free(info)`: for the info objects MPI returns (`MPI_File_get_info`), which
/// the caller owns. Errors: MPI's.
pub(super) fn take_pairs(mut info: raw::MPI_Info) -> Result<Vec<(String, String)>> {
    let read = || -> Result<Vec<(String, String)>> {
        let mut n: std::ffi::c_int = 0;
        // SAFETY: valid info handle, out-pointer to a live int.
        checked!(unsafe { raw::MPI_Info_get_nkeys(info, &mut n) })?;
        let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        for i in 0..n {
            // MPI_MAX_INFO_KEY bytes and the terminating NUL
            let mut key = vec![0 as std::ffi::c_char; raw::MPI_MAX_INFO_KEY as usize + 1];
            // SAFETY: valid info handle, i < nkeys, key holds MPI_MAX_INFO_KEY + 1 chars.
            checked!(unsafe { raw::MPI_Info_get_nthkey(info, i, key.as_mut_ptr()) })?;
            let (mut len, mut flag): (std::ffi::c_int, std::ffi::c_int) = (0, 0);
            // SAFETY: NUL-terminated key, out-pointers to live ints.
            checked!(unsafe {
                raw::MPI_Info_get_valuelen(info, key.as_ptr(), &mut len, &mut flag)
            })?;
            let mut val = vec![0 as std::ffi::c_char; usize::try_from(len).unwrap_or(0) + 1];
            // SAFETY: val holds len + 1 chars; MPI writes at most len and a NUL.
            checked!(unsafe {
                raw::MPI_Info_get(info, key.as_ptr(), len, val.as_mut_ptr(), &mut flag)
            })?;
            // SAFETY: both buffers are NUL-terminated (zeroed beyond what MPI wrote).
            let text = |b: &[std::ffi::c_char]| {
                unsafe { std::ffi::CStr::from_ptr(b.as_ptr()) }
                    .to_string_lossy()
                    .into_owned()
            };
            out.push((text(&key), text(&val)));
        }
        Ok(out)
    };
    let pairs = read();
    // SAFETY: the caller owns the object; freed once.
    unsafe { raw::MPI_Info_free(&mut info) };
    pairs
}

impl Drop for Info {
    fn drop(&mut self) {
        if self.owned && super::check::is_running() {
            // SAFETY: we own the object.
            unsafe { raw::MPI_Info_free(&mut self.raw) };
        }
    }
}
