//! MPI-IO files ([`File`]): collective open and close, size, view, the explicit-offset
//! reads and writes (independent and collective) with their length and count checks,
//! and `MPI_File_delete`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::mem::MaybeUninit;

use mpi_sys as raw;

use super::check::{check, mpi_error};
use super::comm::Comm;
use super::datatype::Datatype;
use super::info::Info;
use crate::error::{Error, Result};

/// Convert a byte offset to `MPI_Offset` (MPI-3.1 §2.5.7).
#[inline]
pub fn to_offset(n: u64) -> Result<raw::MPI_Offset> {
    match raw::MPI_Offset::try_from(n) {
        Ok(o) => Ok(o),
        Err(_) => Err(offset_overflow(n)),
    }
}

/// The error of an offset above `MPI_Offset`'s range.
#[cold]
#[inline(never)]
fn offset_overflow(n: u64) -> Error {
    Error::Limit(format!("file offset {n} does not fit in MPI_Offset"))
}

/// `MPI_MODE_*` access modes (MPI-3.1 §13.2.1).
#[allow(clippy::cast_possible_wrap)] // small bit flags: every one fits in an int
pub mod mode {
    /// `MPI_MODE_CREATE | MPI_MODE_RDWR`
    pub const CREATE_RDWR: i32 = (mpi_sys::MPI_MODE_CREATE | mpi_sys::MPI_MODE_RDWR) as i32;
    /// `MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR`: a new file; the open fails if
    /// anything is under the name (MPI-3.1 §13.2.1).
    pub const CREATE_EXCL_RDWR: i32 =
        (mpi_sys::MPI_MODE_CREATE | mpi_sys::MPI_MODE_EXCL | mpi_sys::MPI_MODE_RDWR) as i32;
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
    /// Inlined into the timed loops: on success three comparisons around the two MPI
    /// calls; every error is built out of line.
    #[inline(always)]
    fn transfer(
        call: &'static str,
        buf_len: usize,
        count: c_int,
        dtype: &Datatype,
        call_mpi: impl FnOnce(*mut raw::MPI_Status) -> c_int,
    ) -> Result<()> {
        ensure_len(buf_len, need(count, dtype), call)?;
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        let rc = call_mpi(st.as_mut_ptr());
        if rc != 0 {
            return Err(mpi_error(call, rc));
        }
        // SAFETY: the successful call filled the status.
        check_count(call, unsafe { st.assume_init_ref() }, count, dtype)
    }

    /// One write call of the `MPI_File_write_at` family ([`File::transfer`]).
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
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
    #[inline]
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

    /// The transfers of a timed loop that all write `count` elements of `dtype` from
    /// `buf` ([`Writes`]), collective (`MPI_File_write_at_all`) or independent
    /// (`MPI_File_write_at`): the length check of [`File::write_at`] is made here,
    /// once, and each transfer only calls MPI and checks its result. Errors: `buf`
    /// shorter than `count × size(dtype)` bytes.
    pub fn writes<'a>(
        &'a self,
        buf: &'a [u8],
        count: c_int,
        dtype: &'a Datatype,
        collective: bool,
    ) -> Result<Writes<'a>> {
        let (call, f): (_, WriteFn) = if collective {
            ("MPI_File_write_at_all", raw::MPI_File_write_at_all)
        } else {
            ("MPI_File_write_at", raw::MPI_File_write_at)
        };
        ensure_len(buf.len(), need(count, dtype), call)?;
        Ok(Writes {
            file: self.raw,
            buf,
            count,
            dtype,
            call,
            f,
        })
    }

    /// The reads of a timed loop into `buf` ([`Reads`]), `MPI_File_read_at_all` or
    /// `MPI_File_read_at`, as [`File::writes`].
    pub fn reads<'a>(
        &'a self,
        buf: &'a mut [u8],
        count: c_int,
        dtype: &'a Datatype,
        collective: bool,
    ) -> Result<Reads<'a>> {
        let (call, f): (_, ReadFn) = if collective {
            ("MPI_File_read_at_all", raw::MPI_File_read_at_all)
        } else {
            ("MPI_File_read_at", raw::MPI_File_read_at)
        };
        ensure_len(buf.len(), need(count, dtype), call)?;
        Ok(Reads {
            file: self.raw,
            buf,
            count,
            dtype,
            call,
            f,
        })
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

/// Writes of the same buffer, count and type at explicit offsets ([`File::writes`]),
/// the buffer's length checked once.
pub struct Writes<'a> {
    file: raw::MPI_File,
    buf: &'a [u8],
    count: c_int,
    dtype: &'a Datatype,
    call: &'static str,
    f: WriteFn,
}

impl Writes<'_> {
    /// One write at `offset` (etype units of the current view), as [`File::write_at`]
    /// or [`File::write_at_all`]: the MPI error, or a short count, is an error.
    #[inline(always)]
    pub fn at(&self, offset: raw::MPI_Offset) -> Result<()> {
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        // SAFETY: buf covers count elements of dtype (checked by File::writes); the
        // file and type handles are live for 'a; st is an out-parameter.
        let rc = unsafe {
            (self.f)(
                self.file,
                offset,
                self.buf.as_ptr() as *const c_void,
                self.count,
                self.dtype.raw,
                st.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(mpi_error(self.call, rc));
        }
        // SAFETY: the successful call filled the status.
        check_count(
            self.call,
            unsafe { st.assume_init_ref() },
            self.count,
            self.dtype,
        )
    }
}

/// Reads into the same buffer with the same count and type at explicit offsets
/// ([`File::reads`]), the buffer's length checked once.
pub struct Reads<'a> {
    file: raw::MPI_File,
    buf: &'a mut [u8],
    count: c_int,
    dtype: &'a Datatype,
    call: &'static str,
    f: ReadFn,
}

impl Reads<'_> {
    /// One read at `offset`, as [`File::read_at`] or [`File::read_at_all`].
    #[inline(always)]
    pub fn at(&mut self, offset: raw::MPI_Offset) -> Result<()> {
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        // SAFETY: as Writes::at, and buf is writable.
        let rc = unsafe {
            (self.f)(
                self.file,
                offset,
                self.buf.as_mut_ptr() as *mut c_void,
                self.count,
                self.dtype.raw,
                st.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(mpi_error(self.call, rc));
        }
        // SAFETY: the successful call filled the status.
        check_count(
            self.call,
            unsafe { st.assume_init_ref() },
            self.count,
            self.dtype,
        )
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
#[inline(always)]
fn check_count(
    call: &'static str,
    st: &raw::MPI_Status,
    count: c_int,
    dtype: &Datatype,
) -> Result<()> {
    let mut n: c_int = 0;
    // SAFETY: st is a status filled by a completed transfer; dtype is live.
    let rc = unsafe { raw::MPI_Get_count(st, dtype.raw, &mut n) };
    if rc != 0 {
        return Err(mpi_error("MPI_Get_count", rc));
    }
    if n == count {
        return Ok(());
    }
    Err(short_transfer(call, n, count))
}

/// The error of a transfer that moved `n` of `count` elements.
#[cold]
#[inline(never)]
fn short_transfer(call: &'static str, n: c_int, count: c_int) -> Error {
    // first, before anything else can change errno
    let system = crate::ffi::posix::last_io_error();
    let moved = if n < 0 {
        "part of an element".to_string()
    } else {
        format!("{n} of {count} element(s)")
    };
    Error::Other(short_transfer_text(call, &moved, system.as_deref()))
}

/// The message of a short transfer that moved `moved`, with the system error
/// `system` the MPI library met (`errno` after the call), if any.
fn short_transfer_text(call: &str, moved: &str, system: Option<&str>) -> String {
    match system {
        Some(why) => format!(
            "{call} failed: short transfer, moved {moved}: {why} (the MPI library returned \
             success with a short count and printed this system error on stderr)"
        ),
        None => format!(
            "{call} failed: short transfer, moved {moved} (the MPI library returned success \
             with a short count and no error code: see what it printed on stderr)"
        ),
    }
}

/// Bytes in `count` elements of `dtype` (`u64::MAX` for a negative count or an
/// overflow, which no buffer covers).
#[inline(always)]
fn need(count: c_int, dtype: &Datatype) -> u64 {
    u64::try_from(count)
        .unwrap_or(u64::MAX)
        .saturating_mul(dtype.size)
}

/// Refuse a transfer whose buffer is shorter than the bytes it would move.
#[inline(always)]
fn ensure_len(buf_len: usize, need: u64, what: &'static str) -> Result<()> {
    if (buf_len as u64) < need {
        return Err(short_buffer(buf_len, need, what));
    }
    Ok(())
}

/// The error of a buffer of `buf_len` bytes, smaller than the `need` bytes to move.
#[cold]
#[inline(never)]
fn short_buffer(buf_len: usize, need: u64, what: &'static str) -> Error {
    Error::Other(format!(
        "{what}: buffer of {buf_len} bytes is smaller than the {need} bytes to move"
    ))
}

#[cfg(test)]
mod tests {
    use super::short_transfer_text;

    #[test]
    fn short_transfer_says_what_the_library_met() {
        let m = short_transfer_text(
            "MPI_File_write_at",
            "0 of 1 element(s)",
            Some("No space left on device"),
        );
        assert!(
            m.starts_with("MPI_File_write_at failed: short transfer, moved 0 of 1 element(s): No space left on device ("),
            "{m}"
        );
        assert!(!m.contains("no error"), "{m}");
        let m = short_transfer_text("MPI_File_read_at", "part of an element", None);
        assert!(
            m.contains("no error code: see what it printed on stderr"),
            "{m}"
        );
    }
}
