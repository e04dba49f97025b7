//! The MPI environment (MPI-3.1 chapter 8): [`Universe`], the clock, the version.

use std::ffi::{c_char, c_int};
use std::ptr;

use mpi_sys as raw;

use super::check::{check, is_running};
use super::comm::Comm;
use crate::error::{Error, Result};

/// The MPI environment; `MPI_Finalize` on drop if this process initialised MPI (MPI-3.1 §8.7).
pub struct Universe {
    owns: bool,
    /// Caller's handlers of `MPI_COMM_WORLD` and `MPI_FILE_NULL`, restored on drop.
    saved_handlers: Option<(raw::MPI_Errhandler, raw::MPI_Errhandler)>,
}

impl Universe {
    /// `MPI_Init` unless done, `MPI_ERRORS_RETURN` (MPI-3.1 §8.7, §8.3). Errors: `MPI_Init`'s.
    pub fn init() -> Result<Universe> {
        Self::init_threads(false)
    }

    /// [`Universe::init`], with `MPI_Init_thread(MPI_THREAD_MULTIPLE)` instead of
    /// `MPI_Init` when `multiple` (MPI-3.1 §12.4.3; the level MPI provides is
    /// [`thread_multiple`]'s to tell). Errors: `MPI_Init`'s or `MPI_Init_thread`'s.
    pub fn init_threads(multiple: bool) -> Result<Universe> {
        let mut flag: c_int = 0;
        // SAFETY: MPI_Initialized may be called at any time.
        checked!(unsafe { raw::MPI_Initialized(&mut flag) })?;
        let mut finalized: c_int = 0;
        // SAFETY: MPI_Finalized may be called at any time.
        checked!(unsafe { raw::MPI_Finalized(&mut finalized) })?;
        if finalized != 0 {
            return Err(Error::Other(
                "MPI was already finalised in this process; it cannot be initialised again".into(),
            ));
        }
        let owns = flag == 0;
        if owns && multiple {
            let mut provided: c_int = 0;
            // SAFETY: NULL argc/argv is allowed by MPI-2 and later; a live out-pointer;
            // RSMPI_THREAD_MULTIPLE is a link-time constant of the MPI shim.
            checked!(unsafe {
                raw::MPI_Init_thread(
                    ptr::null_mut(),
                    ptr::null_mut(),
                    raw::RSMPI_THREAD_MULTIPLE,
                    &mut provided,
                )
            })?;
        } else if owns {
            // SAFETY: NULL argc/argv is allowed by MPI-2 and later.
            checked!(unsafe { raw::MPI_Init(ptr::null_mut(), ptr::null_mut()) })?;
        }
        let saved_handlers = if owns { None } else { current_handlers() };
        // SAFETY: predefined handles, valid after MPI_Init.
        unsafe {
            raw::MPI_Comm_set_errhandler(raw::RSMPI_COMM_WORLD, raw::RSMPI_ERRORS_RETURN);
            raw::MPI_File_set_errhandler(raw::RSMPI_FILE_NULL, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(Universe {
            owns,
            saved_handlers,
        })
    }

    /// `MPI_COMM_WORLD` (borrowed; MPI-3.1 §6.2.4).
    pub fn world(&self) -> Comm {
        // SAFETY: reading a link-time constant of the MPI shim.
        Comm {
            raw: unsafe { raw::RSMPI_COMM_WORLD },
            owned: false,
        }
    }

    /// `MPI_Abort` of `MPI_COMM_WORLD` with `code` (MPI-3.1 §8.7; last resort).
    pub fn abort(&self, code: i32) -> ! {
        // SAFETY: MPI is initialised while a Universe exists.
        unsafe { raw::MPI_Abort(raw::RSMPI_COMM_WORLD, code) };
        std::process::exit(code)
    }
}

/// Whether MPI runs with `MPI_THREAD_MULTIPLE` (`MPI_Query_thread`, MPI-3.1 §12.4.3):
/// any thread may call MPI at any time, as HDF5's subfiling driver needs. False when
/// MPI is not running or provides a lower level (e.g. initialised with `MPI_Init`, or
/// an MPI built without thread support).
pub fn thread_multiple() -> bool {
    if !is_running() {
        return false;
    }
    let mut provided: c_int = 0;
    // SAFETY: MPI is initialised and not finalised; a live out-pointer.
    let ok = checked!(unsafe { raw::MPI_Query_thread(&mut provided) }).is_ok();
    // SAFETY: a link-time constant of the MPI shim.
    ok && provided == unsafe { raw::RSMPI_THREAD_MULTIPLE }
}

/// `MPI_Abort(MPI_COMM_WORLD, code)` (MPI-3.1 §8.7): ends every process of the job,
/// for a rank that cannot leave its collective calls in step with the others (a panic).
/// Without a running MPI (before `MPI_Init`, after `MPI_Finalize`) the process exits
/// with `code`.
pub fn abort_world(code: i32) -> ! {
    if is_running() {
        // SAFETY: MPI is initialised and not finalised.
        unsafe { raw::MPI_Abort(raw::RSMPI_COMM_WORLD, code) };
    }
    std::process::exit(code)
}

/// Handlers of `MPI_COMM_WORLD` and `MPI_FILE_NULL` (MPI-3.1 §8.3.1, §8.3.3), or `None`.
fn current_handlers() -> Option<(raw::MPI_Errhandler, raw::MPI_Errhandler)> {
    let mut comm_eh = std::mem::MaybeUninit::<raw::MPI_Errhandler>::uninit();
    let mut file_eh = std::mem::MaybeUninit::<raw::MPI_Errhandler>::uninit();
    // SAFETY: predefined handles of an initialised MPI; out-pointers to locals.
    let comm_ok =
        unsafe { raw::MPI_Comm_get_errhandler(raw::RSMPI_COMM_WORLD, comm_eh.as_mut_ptr()) } == 0;
    if !comm_ok {
        return None;
    }
    // SAFETY: as above.
    let file_ok =
        unsafe { raw::MPI_File_get_errhandler(raw::RSMPI_FILE_NULL, file_eh.as_mut_ptr()) } == 0;
    // SAFETY: MPI_Comm_get_errhandler succeeded and wrote the handle.
    let mut comm_eh = unsafe { comm_eh.assume_init() };
    if !file_ok {
        // SAFETY: a handle MPI_Comm_get_errhandler returned, freed once.
        unsafe { raw::MPI_Errhandler_free(&mut comm_eh) };
        return None;
    }
    // SAFETY: MPI_File_get_errhandler succeeded and wrote the handle.
    Some((comm_eh, unsafe { file_eh.assume_init() }))
}

impl Drop for Universe {
    fn drop(&mut self) {
        if let Some((mut comm_eh, mut file_eh)) = self.saved_handlers.take() {
            if is_running() {
                // SAFETY: handles MPI_*_get_errhandler returned, set back and freed once.
                unsafe {
                    raw::MPI_Comm_set_errhandler(raw::RSMPI_COMM_WORLD, comm_eh);
                    raw::MPI_File_set_errhandler(raw::RSMPI_FILE_NULL, file_eh);
                    raw::MPI_Errhandler_free(&mut comm_eh);
                    raw::MPI_Errhandler_free(&mut file_eh);
                }
            }
        }
        if self.owns {
            // SAFETY: we initialised MPI; finalise exactly once.
            unsafe { raw::MPI_Finalize() };
        }
    }
}

/// `MPI_Wtime()` in seconds (MPI-3.1 §8.6).
pub fn wtime() -> f64 {
    // SAFETY: no preconditions beyond an initialised MPI.
    unsafe { raw::MPI_Wtime() }
}

/// `MPI_Get_library_version` (MPI-3.1 §8.1.1), first line only.
pub fn library_version() -> String {
    let mut buf = vec![0 as c_char; 8192];
    let mut len: c_int = 0;
    // SAFETY: buf is larger than MPI_MAX_LIBRARY_VERSION_STRING for Open MPI and MPICH.
    let rc = unsafe { raw::MPI_Get_library_version(buf.as_mut_ptr(), &mut len) };
    if rc != 0 {
        return "unknown MPI library".into();
    }
    // Open MPI counts the terminating NUL in len
    let bytes: Vec<u8> = buf[..usize::try_from(len).unwrap_or(0).min(buf.len())]
        .iter()
        .map(|c| c.to_ne_bytes()[0])
        .take_while(|&b| b != 0)
        .collect();
    let s = String::from_utf8_lossy(&bytes);
    let first = s.lines().next().unwrap_or("");
    first
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(',')
        .to_string()
}
