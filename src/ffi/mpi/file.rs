//! MPI-IO files ([`File`]): collective open and close, size, view, the explicit-offset
//! reads and writes (independent and collective) with their length and count checks,
//! and `MPI_File_delete`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::mem::MaybeUninit;

use mpi_sys as raw;

use super::check::check;
use super::comm::Comm;
use super::datatype::Datatype;
use super::info::Info;
use crate::error::{Error, Result};

/// Convert a byte offset to `MPI_Offset` (MPI-3.1 §2.5.7).
pub fn to_offset(n: u64) -> Result<raw::MPI_Offset> {
    raw::MPI_Offset::try_from(n)
        .map_err(|_| Error::Other(format!("file offset {n} does not fit in MPI_Offset")))
}

/// `MPI_MODE_*` access modes (MPI-3.1 §13.2.1).
pub mod mode {
    /// `MPI_MODE_CREATE | MPI_MODE_RDWR`
    pub const CREATE_RDWR: i32 = (mpi_sys::MPI_MODE_CREATE | mpi_sys::MPI_MODE_RDWR) as i32;
    /// `MPI_MODE_RDONLY`
    pub const RDONLY: i32 = mpi_sys::MPI_MODE_RDONLY as i32;
}

/// `MPI_File_delete(path, info)` (MPI-3.1 §13.2.3); the error is returned (callers may
/// ignore it).
pub fn file_delete(p: &CStr, info: &Info) -> Result<()> {
    // SAFETY: NUL-terminated name and a valid info handle.
    check("MPI_File_delete", unsafe {
        raw::MPI_File_delete(p.as_ptr() as *mut c_char, info.raw)
    })
}

type WriteFn = unsafe extern "C" fn(
    raw::MPI_File,
    raw::MPI_Offset,
    *const c_void,
    c_int,
    raw::MPI_Datatype,
    *mut raw::MPI_Status,
) -> c_int;

type ReadFn = unsafe extern "C" fn(
    raw::MPI_File,
    raw::MPI_Offset,
    *mut c_void,
    c_int,
    raw::MPI_Datatype,
    *mut raw::MPI_Status,
) -> c_int;

/// An open MPI-IO file. Close explicitly with [`File::close`] to see the error;
/// dropping closes silently.
pub struct File {
    raw: raw::MPI_File,
}

impl File {
    /// Collective `MPI_File_open(comm, path, amode, info)` (MPI-3.1 §13.2.1); sets
    /// `MPI_ERRORS_RETURN` (§8.3.3).
    pub fn open(comm: &Comm, p: &CStr, amode: i32, info: &Info) -> Result<File> {
        let mut fh = MaybeUninit::<raw::MPI_File>::uninit();
        // SAFETY: valid communicator/info, NUL-terminated name, out-pointer.
        check("MPI_File_open", unsafe {
            raw::MPI_File_open(comm.raw, p.as_ptr(), amode, info.raw, fh.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful open.
        let f = File {
            raw: unsafe { fh.assume_init() },
        };
        // SAFETY: live file handle.
        unsafe {
            raw::MPI_File_set_errhandler(f.raw, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(f)
    }

    /// Collective `MPI_File_set_size` (MPI-3.1 §13.2.4).
    pub fn set_size(&self, size: u64) -> Result<()> {
        // SAFETY: live file handle.
        check("MPI_File_set_size", unsafe {
            raw::MPI_File_set_size(self.raw, to_offset(size)?)
        })
    }

    /// Collective `MPI_File_set_view(disp, etype, filetype, "native", info)` (MPI-3.1
    /// §13.3).
    pub fn set_view(
        &self,
        disp: u64,
        etype: &Datatype,
        filetype: &Datatype,
        info: &Info,
    ) -> Result<()> {
        let native = b"native\0";
        // SAFETY: live handles; datarep is a NUL-terminated string.
        check("MPI_File_set_view", unsafe {
            raw::MPI_File_set_view(
                self.raw,
                to_offset(disp)?,
                etype.raw,
                filetype.raw,
                native.as_ptr() as *const c_char,
                info.raw,
            )
        })
    }

    /// One transfer call of the `MPI_File_write_at`/`read_at` families: checks that the
    /// buffer (`buf_len` bytes) covers `count` elements of `dtype`, then runs `call_mpi`
    /// with a status out-pointer, checks its return code and the count the status
    /// reports ([`check_count`]). `call_mpi` runs only when the buffer is large enough.
    fn transfer(
        call: &'static str,
        buf_len: usize,
        count: c_int,
        dtype: &Datatype,
        call_mpi: impl FnOnce(*mut raw::MPI_Status) -> c_int,
    ) -> Result<()> {
        ensure_len(
            buf_len,
            u64::try_from(count)
                .unwrap_or(u64::MAX)
                .saturating_mul(dtype.size),
            call,
        )?;
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        check(call, call_mpi(st.as_mut_ptr()))?;
        // SAFETY: the successful call filled the status.
        check_count(call, unsafe { st.assume_init() }, count, dtype)
    }

    /// One write call of the `MPI_File_write_at` family ([`File::transfer`]).
    fn write_with(
        &self,
        call: &'static str,
        f: WriteFn,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        File::transfer(call, buf.len(), count, dtype, |st| {
            // SAFETY: buf covers count elements of dtype (checked by `transfer` before
            // this runs); live file and type handles; st is an out-parameter.
            unsafe {
                f(
                    self.raw,
                    offset,
                    buf.as_ptr() as *const c_void,
                    count,
                    dtype.raw,
                    st,
                )
            }
        })
    }

    /// One read call of the `MPI_File_read_at` family ([`File::transfer`]).
    fn read_with(
        &self,
        call: &'static str,
        f: ReadFn,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        File::transfer(call, buf.len(), count, dtype, |st| {
            // SAFETY: as write_with, and buf is writable.
            unsafe {
                f(
                    self.raw,
                    offset,
                    buf.as_mut_ptr() as *mut c_void,
                    count,
                    dtype.raw,
                    st,
                )
            }
        })
    }

    /// Independent `MPI_File_write_at(offset, buf, count, dtype)` (MPI-3.1 §13.4.2).
    /// `offset` is in etype units of the current view. Errors: `buf` shorter than
    /// `count × size(dtype)` bytes, or the MPI error.
    pub fn write_at(
        &self,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.write_with(
            "MPI_File_write_at",
            raw::MPI_File_write_at,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_write_at_all` (MPI-3.1 §13.4.2); same contract as
    /// [`File::write_at`].
    pub fn write_at_all(
        &self,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.write_with(
            "MPI_File_write_at_all",
            raw::MPI_File_write_at_all,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Independent `MPI_File_read_at` into `buf` (MPI-3.1 §13.4.2); same contract as
    /// [`File::write_at`].
    pub fn read_at(
        &self,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.read_with(
            "MPI_File_read_at",
            raw::MPI_File_read_at,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_read_at_all` (MPI-3.1 §13.4.2); same contract as
    /// [`File::write_at`].
    pub fn read_at_all(
        &self,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.read_with(
            "MPI_File_read_at_all",
            raw::MPI_File_read_at_all,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_sync` (MPI-3.1 §13.6.1): transfer every write of this
    /// process to the storage device (`--fsync`; ROMIO and OMPIO call `fsync` on the
    /// file).
    pub fn sync(&self) -> Result<()> {
        // SAFETY: live file handle.
        check("MPI_File_sync", unsafe { raw::MPI_File_sync(self.raw) })
    }

    /// Collective `MPI_File_close` (MPI-3.1 §13.2.2), reporting its error.
    pub fn close(mut self) -> Result<()> {
        // SAFETY: live handle; MPI sets it to MPI_FILE_NULL.
        let rc = unsafe { raw::MPI_File_close(&mut self.raw) };
        std::mem::forget(self);
        check("MPI_File_close", rc)
    }
}

impl Drop for File {
    fn drop(&mut self) {
        // SAFETY: live handle (close() forgets self).
        unsafe {
            raw::MPI_File_close(&mut self.raw);
        }
    }
}

/// Check that a transfer moved all `count` elements (`MPI_Get_count` of its status,
/// MPI-3.1 §3.2.5).
/// Some MPI-IO implementations report a failed `pwrite` inside a transfer (e.g.
/// `EFBIG`) only on stderr and return success with a short count; this turns that
/// into an error.
fn check_count(
    call: &'static str,
    st: raw::MPI_Status,
    count: c_int,
    dtype: &Datatype,
) -> Result<()> {
    let mut n: c_int = 0;
    // SAFETY: st is a status filled by a completed transfer; dtype is live.
    check("MPI_Get_count", unsafe {
        raw::MPI_Get_count(&st, dtype.raw, &mut n)
    })?;
    if n == count {
        return Ok(());
    }
    let moved = if n < 0 {
        "part of an element".to_string()
    } else {
        format!("{n} of {count} element(s)")
    };
    Err(Error::Other(format!(
        "{call} failed: short transfer, moved {moved} (the MPI library reported no error)"
    )))
}

/// Refuse a transfer whose buffer is shorter than the bytes it would move.
fn ensure_len(buf_len: usize, need: u64, what: &'static str) -> Result<()> {
    if (buf_len as u64) < need {
        return Err(Error::Other(format!(
            "{what}: buffer of {buf_len} bytes is smaller than the {need} bytes to move"
        )));
    }
    Ok(())
}
