//! Derived datatypes ([`Datatype`]).

use std::ffi::c_int;
use std::mem::MaybeUninit;

use mpi_sys as raw;

use super::check::{check, to_count};
use crate::error::{Error, Result};

/// A committed derived datatype (freed on drop) or the byte type (MPI-3.1 §4.1.9).
pub struct Datatype {
    pub(super) raw: raw::MPI_Datatype,
    owned: bool,
    pub(super) size: u64,
}

impl Datatype {
    /// The byte type (`MPI_UINT8_T`, same bytes as `MPI_BYTE`; MPI-3.1 §3.2.2).
    pub fn byte() -> Datatype {
        // SAFETY: link-time constant.
        Datatype {
            raw: unsafe { raw::RSMPI_UINT8_T },
            owned: false,
            size: 1,
        }
    }

    fn commit(mut raw_t: raw::MPI_Datatype, size: u64) -> Result<Datatype> {
        // SAFETY: raw_t is a freshly created datatype we own.
        let rc = unsafe { raw::MPI_Type_commit(&mut raw_t) };
        let t = Datatype {
            raw: raw_t,
            owned: true,
            size,
        };
        check("MPI_Type_commit", rc)?;
        Ok(t)
    }

    fn contiguous(count: u64, base: &Datatype) -> Result<Datatype> {
        let n = to_count("MPI_Type_contiguous count", count)?;
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: base is a valid type; out-pointer to a handle.
        check("MPI_Type_contiguous", unsafe {
            raw::MPI_Type_contiguous(n, base.raw, t.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, count * base.size)
    }

    /// `n` contiguous bytes, beyond `INT_MAX` as a struct of GiB blocks (MPI-3.1 §4.1.2).
    pub fn bytes(n: u64) -> Result<Datatype> {
        let byte = Datatype::byte();
        if n <= c_int::MAX as u64 {
            return Datatype::contiguous(n, &byte);
        }
        const GIB: u64 = 1 << 30;
        let gib = Datatype::contiguous(GIB, &byte)?;
        let (q, r) = (n / GIB, n % GIB);
        let lens = [to_count("whole GiB in a block", q)?, to_count("bytes", r)?];
        let disp = [
            0 as raw::MPI_Aint,
            raw::MPI_Aint::try_from(q * GIB).map_err(|_| {
                Error::Limit(format!("block of {n} bytes does not fit in MPI_Aint"))
            })?,
        ];
        let types = [gib.raw, byte.raw];
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: three arrays of two entries each; live base types; out-pointer.
        check("MPI_Type_create_struct", unsafe {
            raw::MPI_Type_create_struct(
                2,
                lens.as_ptr(),
                disp.as_ptr(),
                types.as_ptr(),
                t.as_mut_ptr(),
            )
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, n)
    }

    /// `MPI_Type_vector(count, blocklength, stride, base)`, committed (MPI-3.1 §4.1.2).
    pub fn vector(count: u64, blocklen: u64, stride: u64, base: &Datatype) -> Result<Datatype> {
        let c = to_count("MPI_Type_vector count", count)?;
        let b = to_count("MPI_Type_vector blocklength", blocklen)?;
        let s = to_count("MPI_Type_vector stride", stride)?;
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: as above.
        check("MPI_Type_vector", unsafe {
            raw::MPI_Type_vector(c, b, s, base.raw, t.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, count * blocklen * base.size)
    }
}

impl Drop for Datatype {
    fn drop(&mut self) {
        if self.owned && super::check::is_running() {
            // SAFETY: we own this datatype.
            unsafe {
                raw::MPI_Type_free(&mut self.raw);
            }
        }
    }
}
