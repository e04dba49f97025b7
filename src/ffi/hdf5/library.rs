//! Starting the HDF5 library and reading its errors: `H5open` once per process,
//! [`Quiet`] (automatic error printing off), the library version, and the checks that
//! turn a negative id or return code into [`Error::Hdf5`] with the error stack walked
//! into one line.

use std::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::Once;

use hdf5_sys::h5;
use hdf5_sys::h5::herr_t;
use hdf5_sys::h5e;
use hdf5_sys::h5i::hid_t;

use crate::error::{Error, Result};

static INIT: Once = Once::new();

/// Start the HDF5 library (`H5open`), once per process. Must run before any global id
/// (`H5P_CLS_*`, `H5T_NATIVE_*`) is read. Errors are read from the error stack by the
/// wrappers; hold a [`Quiet`] while calling HDF5 so that the library prints nothing.
pub(super) fn init() {
    INIT.call_once(|| {
        // SAFETY: H5dont_atexit before the first HDF5 call keeps HDF5 from registering its
        // atexit clean-up (which crashes on a file whose close failed; parallel HDF5 still
        // terminates inside MPI_Finalize through its MPI_COMM_SELF attribute). When the
        // caller of libh5perf initialised HDF5 first it has no effect. H5open has no
        // preconditions.
        unsafe {
            h5::H5dont_atexit();
            h5::H5open();
        }
    });
}

/// HDF5's automatic error printing switched off (`H5Eset_auto2(H5E_DEFAULT, NULL,
/// NULL)`) for the life of the value; the previous handler and its client data (from
/// `H5Eget_auto2`) are put back on drop, so a C program linking libh5perf keeps its
/// own setting.
pub struct Quiet {
    func: h5e::H5E_auto2_t,
    data: *mut c_void,
    saved: bool,
}

impl Quiet {
    /// Initialises HDF5 (`H5open`, once per process) and switches error printing off.
    pub fn new() -> Quiet {
        init();
        let mut func: h5e::H5E_auto2_t = None;
        let mut data: *mut c_void = std::ptr::null_mut();
        // SAFETY: two out-pointers to live locals; H5E_DEFAULT is the default stack.
        let saved = unsafe { h5e::H5Eget_auto2(h5e::H5E_DEFAULT, &mut func, &mut data) } >= 0;
        // SAFETY: a NULL handler disables printing.
        unsafe {
            h5e::H5Eset_auto2(h5e::H5E_DEFAULT, None, std::ptr::null_mut());
        }
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
            unsafe {
                h5e::H5Eset_auto2(h5e::H5E_DEFAULT, self.func, self.data);
            }
        }
    }
}

/// The HDF5 library version this process runs with (`H5get_libversion`), e.g. `1.10.8`.
pub fn library_version() -> String {
    init();
    let (mut a, mut b, mut c): (c_uint, c_uint, c_uint) = (0, 0, 0);
    // SAFETY: three out-pointers to live integers.
    unsafe {
        h5::H5get_libversion(&mut a, &mut b, &mut c);
    }
    format!("{a}.{b}.{c}")
}

extern "C" fn walk_cb(n: c_uint, err: *const h5e::H5E_error2_t, data: *mut c_void) -> herr_t {
    let res = std::panic::catch_unwind(|| {
        // SAFETY: HDF5 passes a valid frame and our Vec<String> as client data.
        let (err, out) = unsafe { (&*err, &mut *(data as *mut Vec<String>)) };
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: HDF5 strings are NUL-terminated.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        let func = text(err.func_name);
        // one line per message: HDF5 descriptions may embed newlines
        let desc = text(err.desc)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let _ = n;
        out.push(if func.is_empty() {
            desc
        } else {
            format!("{func}(): {desc}")
        });
    });
    if res.is_ok() {
        0
    } else {
        -1
    }
}

/// Walk the current HDF5 error stack into "outer(): desc: inner(): desc" and clear it.
fn error_stack_text() -> String {
    let mut frames: Vec<String> = Vec::new();
    // SAFETY: walk_cb matches H5E_walk2_t and receives a pointer to `frames`.
    unsafe {
        h5e::H5Ewalk2(
            h5e::H5E_DEFAULT,
            h5e::H5E_direction_t::H5E_WALK_DOWNWARD,
            Some(walk_cb),
            &mut frames as *mut Vec<String> as *mut c_void,
        );
        h5e::H5Eclear2(h5e::H5E_DEFAULT);
    }
    if frames.is_empty() {
        "no detail on the HDF5 error stack".into()
    } else {
        frames.join(": ")
    }
}

#[cold]
#[inline(never)]
pub(super) fn err(call: &'static str) -> Error {
    // first, before anything else can change errno
    let system = crate::ffi::posix::last_io_error();
    Error::Hdf5 {
        call,
        msg: with_system_error(error_stack_text(), system.as_deref()),
    }
}

/// An HDF5 error stack `msg` that ends in the MPI-IO driver's "file write failed" (or
/// read) without the MPI library's error text — HDF5's check of a short count after
/// an MPI call that returned success — completed with the system error the MPI library
/// met (`system`, `errno` after the call; Open MPI prints it on stderr only).
fn with_system_error(msg: String, system: Option<&str>) -> String {
    let short = [
        "mpio_write(): file write failed",
        "mpio_read(): file read failed",
    ];
    match system {
        Some(why) if short.iter().any(|s| msg.ends_with(s)) => format!(
            "{msg}: {why} (the MPI library returned success with a short count and printed \
             this system error on stderr)"
        ),
        _ => msg,
    }
}

pub(super) fn check_id(call: &'static str, id: hid_t) -> Result<hid_t> {
    if id < 0 {
        Err(err(call))
    } else {
        Ok(id)
    }
}

#[inline]
pub(super) fn check(call: &'static str, rc: herr_t) -> Result<()> {
    if rc < 0 {
        Err(err(call))
    } else {
        Ok(())
    }
}

/// The innermost frame's description of an HDF5 error stack as [`Error::Hdf5`] carries
/// it (`outer(): desc: inner(): desc` → `desc` of `inner`).
pub fn innermost(msg: &str) -> &str {
    msg.rsplit("(): ").next().unwrap_or(msg).trim()
}

#[cfg(test)]
mod tests {
    use super::with_system_error;

    #[test]
    fn short_mpio_write_gets_the_system_error() {
        let stack =
            "H5Dwrite(): can't write data: H5FD__mpio_write(): file write failed".to_string();
        assert_eq!(
            with_system_error(stack.clone(), Some("No space left on device")),
            format!(
                "{stack}: No space left on device (the MPI library returned success with a \
                 short count and printed this system error on stderr)"
            )
        );
        assert_eq!(with_system_error(stack.clone(), None), stack);
        // the MPI library's own text is there already: unchanged
        let mpich = "H5FD__mpio_write(): MPI_File_write_at failed: MPI error string is 'x'";
        assert_eq!(with_system_error(mpich.to_string(), Some("y")), mpich);
    }
}
