//! Starting HDF5, [`Quiet`], the library version and error-stack checks.

use std::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::Once;

use hdf5_sys::h5;
use hdf5_sys::h5::herr_t;
use hdf5_sys::h5e;
use hdf5_sys::h5i::hid_t;

use crate::error::{Error, Hdf5Frame, Result};

static INIT: Once = Once::new();

/// Start HDF5 (`H5open`) once per process, before any global id is read.
pub(super) fn init() {
    INIT.call_once(|| {
        // SAFETY: H5dont_atexit (before any HDF5 call) and H5open have no preconditions.
        unsafe {
            h5::H5dont_atexit();
            h5::H5open();
        }
    });
}

/// HDF5's automatic error printing off while held; the previous handler is restored on drop.
pub struct Quiet {
    func: h5e::H5E_auto2_t,
    data: *mut c_void,
    saved: bool,
}

impl Quiet {
    /// Initialises HDF5 and switches error printing off.
    pub fn new() -> Quiet {
        init();
        let mut func: h5e::H5E_auto2_t = None;
        let mut data: *mut c_void = std::ptr::null_mut();
        // SAFETY: two out-pointers to live locals; H5E_DEFAULT is the default stack.
        let saved = unsafe { h5e::H5Eget_auto2(h5e::H5E_DEFAULT, &mut func, &mut data) } >= 0;
        // SAFETY: a NULL handler disables printing.
        unsafe { h5e::H5Eset_auto2(h5e::H5E_DEFAULT, None, std::ptr::null_mut()) };
        Quiet { func, data, saved }
    }
}

impl Default for Quiet {
    fn default() -> Self {
        Quiet::new()
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        if self.saved {
            // SAFETY: the handler and client data H5Eget_auto2 returned.
            unsafe { h5e::H5Eset_auto2(h5e::H5E_DEFAULT, self.func, self.data) };
        }
    }
}

/// Whether the linked HDF5 has the deflate (zlib) filter, for encoding and decoding
/// (`H5Zfilter_avail(H5Z_FILTER_DEFLATE)`: built with zlib).
pub fn deflate_available() -> bool {
    init();
    // SAFETY: no preconditions after H5open.
    unsafe { hdf5_sys::h5z::H5Zfilter_avail(hdf5_sys::h5z::H5Z_FILTER_DEFLATE) > 0 }
}

/// The HDF5 library version this process runs with (`H5get_libversion`), e.g. `1.10.8`.
pub fn library_version() -> String {
    init();
    let (mut a, mut b, mut c): (c_uint, c_uint, c_uint) = (0, 0, 0);
    // SAFETY: three out-pointers to live integers.
    unsafe { h5::H5get_libversion(&mut a, &mut b, &mut c) };
    format!("{a}.{b}.{c}")
}

fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: HDF5 strings are NUL-terminated.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn message_text(id: hid_t) -> String {
    let mut buf = [0 as c_char; 256];
    // SAFETY: buf holds buf.len() chars; H5Eget_msg NUL-terminates what it writes.
    let n = unsafe { h5e::H5Eget_msg(id, std::ptr::null_mut(), buf.as_mut_ptr(), buf.len()) };
    if n <= 0 {
        return String::new();
    }
    c_text(buf.as_ptr())
}

extern "C" fn walk_cb(_n: c_uint, err: *const h5e::H5E_error2_t, data: *mut c_void) -> herr_t {
    let res = std::panic::catch_unwind(|| {
        // SAFETY: HDF5 passes a valid frame and our Vec<Hdf5Frame> as client data.
        let (err, out) = unsafe { (&*err, &mut *(data as *mut Vec<Hdf5Frame>)) };
        out.push(Hdf5Frame {
            func: c_text(err.func_name),
            file: c_text(err.file_name),
            line: err.line,
            major: message_text(err.maj_num),
            minor: message_text(err.min_num),
            // one line per message: HDF5 descriptions may embed newlines
            desc: c_text(err.desc)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        });
    });
    res.map_or(-1, |()| 0)
}

fn error_stack() -> Vec<Hdf5Frame> {
    let mut frames: Vec<Hdf5Frame> = Vec::new();
    // SAFETY: walk_cb matches H5E_walk2_t and receives a pointer to `frames`.
    unsafe {
        h5e::H5Ewalk2(
            h5e::H5E_DEFAULT,
            h5e::H5E_direction_t::H5E_WALK_DOWNWARD,
            Some(walk_cb),
            &mut frames as *mut Vec<Hdf5Frame> as *mut c_void,
        );
        h5e::H5Eclear2(h5e::H5E_DEFAULT);
    }
    frames
}

#[cold]
#[inline(never)]
pub(super) fn err(call: &'static str) -> Error {
    // first, before anything else can change errno
    let system = crate::ffi::posix::last_io_error();
    let stack = error_stack();
    let system = system.filter(|_| short_transfer(&stack));
    Error::Hdf5 {
        call,
        stack: stack.into_boxed_slice(),
        system: system.map(String::into_boxed_str),
    }
}

/// Whether the stack ends in the MPI-IO driver's short-count "file write/read failed".
fn short_transfer(stack: &[Hdf5Frame]) -> bool {
    stack.last().is_some_and(|f| {
        (f.func.ends_with("mpio_write") && f.desc == "file write failed")
            || (f.func.ends_with("mpio_read") && f.desc == "file read failed")
    })
}

pub(super) fn check_id(call: &'static str, id: hid_t) -> Result<hid_t> {
    (id >= 0).then_some(id).ok_or_else(|| err(call))
}

/// The rank of `dims`. Errors: [`Error::Limit`] beyond `int`.
pub(super) fn rank(dims: &[u64]) -> Result<std::ffi::c_int> {
    std::ffi::c_int::try_from(dims.len())
        .map_err(|_| Error::Limit(format!("{} dimensions are too many for HDF5", dims.len())))
}

#[inline]
pub(super) fn check(call: &'static str, rc: herr_t) -> Result<()> {
    if rc < 0 {
        Err(err(call))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(func: &str, desc: &str) -> Hdf5Frame {
        Hdf5Frame {
            func: func.into(),
            desc: desc.into(),
            ..Default::default()
        }
    }

    #[test]
    fn short_mpio_write_gets_the_system_error() {
        let stack = vec![
            frame("H5Dwrite", "can't write data"),
            frame("H5FD__mpio_write", "file write failed"),
        ];
        assert!(short_transfer(&stack));
        let e = Error::Hdf5 {
            call: "H5Dwrite",
            stack: stack.into(),
            system: Some("No space left on device".into()),
        };
        assert_eq!(
            e.to_string(),
            "H5Dwrite failed: H5Dwrite(): can't write data: H5FD__mpio_write(): file write \
             failed: No space left on device (the MPI library returned success with a short \
             count and printed this system error on stderr)"
        );
        assert_eq!(
            e.innermost(),
            "file write failed: No space left on device (the MPI library returned success \
             with a short count and printed this system error on stderr)"
        );
        // the MPI library's own text is there already: no system error
        let mpich = [frame(
            "H5FD__mpio_write",
            "MPI_File_write_at failed: MPI error string is 'x'",
        )];
        assert!(!short_transfer(&mpich));
        let none = Error::Hdf5 {
            call: "H5Fopen",
            stack: Box::default(),
            system: None,
        };
        assert_eq!(
            none.to_string(),
            "H5Fopen failed: no detail on the HDF5 error stack"
        );
    }
}
