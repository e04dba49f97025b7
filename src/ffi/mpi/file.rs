//! MPI-IO files ([`File`]) and `MPI_File_delete`.

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
    raw::MPI_Offset::try_from(n).map_err(|_| offset_overflow(n))
}

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
    /// `MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR`: fails if the name exists.
    pub const CREATE_EXCL_RDWR: i32 =
        (mpi_sys::MPI_MODE_CREATE | mpi_sys::MPI_MODE_EXCL | mpi_sys::MPI_MODE_RDWR) as i32;
    /// `MPI_MODE_RDONLY`
    pub const RDONLY: i32 = mpi_sys::MPI_MODE_RDONLY as i32;
    /// `MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE`: a
    /// new file (fails if the name exists) that the close removes.
    pub const CREATE_EXCL_DELETE: i32 = (mpi_sys::MPI_MODE_CREATE
        | mpi_sys::MPI_MODE_EXCL
        | mpi_sys::MPI_MODE_WRONLY
        | mpi_sys::MPI_MODE_DELETE_ON_CLOSE) as i32;
}

/// `MPI_File_delete(path, info)` (MPI-3.1 §13.2.3).
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

/// An open MPI-IO file; [`File::close`] reports the error, drop closes silently.
pub struct File {
    raw: raw::MPI_File,
}

impl File {
    /// Collective `MPI_File_open` (MPI-3.1 §13.2.1) with `MPI_ERRORS_RETURN` (§8.3.3).
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

    /// The hints in effect for the open file, as the MPI library reports them
    /// (`MPI_File_get_info`, MPI-3.1 §13.2.8; local). Errors: MPI's.
    pub fn hints(&self) -> Result<Vec<(String, String)>> {
        hints_of_raw(self.raw)
    }

    /// Collective `MPI_File_set_size` (MPI-3.1 §13.2.4).
    pub fn set_size(&self, size: u64) -> Result<()> {
        // SAFETY: live file handle.
        check("MPI_File_set_size", unsafe {
            raw::MPI_File_set_size(self.raw, to_offset(size)?)
        })
    }

    /// Collective `MPI_File_set_view(.., "native", ..)` (MPI-3.1 §13.3).
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

    /// Writes of `buf` at explicit offsets (MPI-3.1 §13.4.2). Errors: `buf` under `count × dtype`.
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

    /// Reads into `buf` at explicit offsets, as [`File::writes`].
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

    /// Collective `MPI_File_sync` (MPI-3.1 §13.6.1).
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

/// Transfers of one buffer (`B`: `&[u8]` to write, `&mut [u8]` to read into) at explicit
/// offsets with the call `F` ([`File::writes`], [`File::reads`]).
pub struct Transfers<'a, B, F> {
    file: raw::MPI_File,
    buf: B,
    count: c_int,
    dtype: &'a Datatype,
    call: &'static str,
    f: F,
}

/// Writes of one buffer at explicit offsets ([`File::writes`]).
pub type Writes<'a> = Transfers<'a, &'a [u8], WriteFn>;
/// Reads into one buffer at explicit offsets ([`File::reads`]).
pub type Reads<'a> = Transfers<'a, &'a mut [u8], ReadFn>;

impl Writes<'_> {
    /// One write at `offset` (etype units). Errors: MPI's, or a short count.
    #[inline(always)]
    pub fn at(&self, offset: raw::MPI_Offset) -> Result<()> {
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        // SAFETY: buf covers count × dtype (checked by File::writes); handles live for 'a.
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
        done(self.call, rc, &st, self.count, self.dtype)
    }
}

impl Reads<'_> {
    /// The buffer the reads fill.
    #[inline(always)]
    pub fn buf(&self) -> &[u8] {
        self.buf
    }

    /// One read at `offset`, as [`Writes::at`].
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
        done(self.call, rc, &st, self.count, self.dtype)
    }
}

impl Drop for File {
    fn drop(&mut self) {
        if !super::check::is_running() {
            return;
        }
        // SAFETY: live handle (close() forgets self); MPI is running.
        unsafe {
            raw::MPI_File_close(&mut self.raw);
        }
    }
}

#[inline(always)]
fn done(
    call: &'static str,
    rc: c_int,
    st: &MaybeUninit<raw::MPI_Status>,
    count: c_int,
    dtype: &Datatype,
) -> Result<()> {
    if rc != 0 {
        return Err(mpi_error(call, rc));
    }
    // SAFETY: the successful call filled the status.
    check_count(call, unsafe { st.assume_init_ref() }, count, dtype)
}

/// Error on a short count (`MPI_Get_count`, MPI-3.1 §3.2.5), which some MPI-IO libraries return.
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

#[cold]
#[inline(never)]
fn short_transfer(call: &'static str, n: c_int, count: c_int) -> Error {
    let system = crate::ffi::posix::last_io_error();
    let moved = if n < 0 {
        "part of an element".to_string()
    } else {
        format!("{n} of {count} element(s)")
    };
    Error::Other(short_transfer_text(call, &moved, system.as_deref()))
}

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

/// Bytes in `count` elements of `dtype` (`u64::MAX` if negative or overflowing).
#[inline(always)]
fn need(count: c_int, dtype: &Datatype) -> u64 {
    u64::try_from(count)
        .unwrap_or(u64::MAX)
        .saturating_mul(dtype.size)
}

#[inline(always)]
fn ensure_len(buf_len: usize, need: u64, what: &'static str) -> Result<()> {
    if (buf_len as u64) < need {
        return Err(short_buffer(buf_len, need, what));
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn short_buffer(buf_len: usize, need: u64, what: &'static str) -> Error {
    Error::Other(format!(
        "{what}: buffer of {buf_len} bytes is smaller than the {need} bytes to move"
    ))
}

/// The hints in effect for the MPI-IO file handle `fh` that another library opened (the
/// HDF5 MPI-IO driver's, [`crate::ffi::hdf5::H5File::mpi_hints`]), as
/// [`File::hints`]. Errors: MPI's.
pub(crate) fn hints_of_raw(fh: raw::MPI_File) -> Result<Vec<(String, String)>> {
    let mut info = MaybeUninit::<raw::MPI_Info>::uninit();
    // SAFETY: a live file handle, out-pointer to a handle.
    check("MPI_File_get_info", unsafe {
        raw::MPI_File_get_info(fh, info.as_mut_ptr())
    })?;
    // SAFETY: initialised by the successful call; the caller owns it.
    super::info::take_pairs(unsafe { info.assume_init() })
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
