//! One-byte point-to-point messages (MPI-3.1 §3.7) for the error beacon.

use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void};

use mpi_sys as raw;

use super::check::{check, to_count};
use super::comm::Comm;
use crate::error::Result;

static SIGNAL: u8 = 1;

fn request_null() -> raw::MPI_Request {
    // SAFETY: reading a link-time constant of the MPI shim.
    unsafe { raw::RSMPI_REQUEST_NULL }
}

fn wait(request: &Cell<raw::MPI_Request>) -> Result<()> {
    // SAFETY: a request of ours, live or MPI_REQUEST_NULL; status ignored.
    checked!(unsafe { raw::MPI_Wait(request.as_ptr(), raw::RSMPI_STATUS_IGNORE) })
}

/// A one-byte receive and its request; cancelled on drop (MPI-3.1 §3.8.4). Not thread-safe.
pub struct ByteRecv {
    request: Cell<raw::MPI_Request>,
    inbox: Box<UnsafeCell<u8>>,
}

impl Default for ByteRecv {
    fn default() -> ByteRecv {
        ByteRecv {
            request: Cell::new(request_null()),
            inbox: Box::new(UnsafeCell::new(0)),
        }
    }
}

impl ByteRecv {
    /// Post `MPI_Irecv` of one byte from any source (MPI-3.1 §3.7.2). Errors: MPI's.
    pub fn post(&self, comm: &Comm, tag: i32) -> Result<()> {
        // SAFETY: the boxed inbox outlives the receive (completed or cancelled on drop).
        checked!(unsafe {
            raw::MPI_Irecv(
                self.inbox.get() as *mut c_void,
                1,
                raw::RSMPI_UINT8_T,
                raw::RSMPI_ANY_SOURCE,
                tag,
                comm.as_raw(),
                self.request.as_ptr(),
            )
        })
    }

    /// `MPI_Test` of the posted receive (MPI-3.1 §3.7.3); true if none. Errors: MPI's.
    #[inline]
    pub fn test(&self) -> Result<bool> {
        let mut flag: c_int = 0;
        // SAFETY: our own request (or MPI_REQUEST_NULL); live flag; status ignored.
        checked!(unsafe {
            raw::MPI_Test(self.request.as_ptr(), &mut flag, raw::RSMPI_STATUS_IGNORE)
        })?;
        Ok(flag != 0)
    }

    /// `MPI_Wait` for the posted receive. Errors: MPI's.
    pub fn wait(&self) -> Result<()> {
        wait(&self.request)
    }

    /// Blocking `MPI_Recv` of one byte from any source (MPI-3.1 §3.2.4). Errors: MPI's.
    pub fn recv(&self, comm: &Comm, tag: i32) -> Result<()> {
        // SAFETY: the inbox byte; live communicator; status ignored.
        checked!(unsafe {
            raw::MPI_Recv(
                self.inbox.get() as *mut c_void,
                1,
                raw::RSMPI_UINT8_T,
                raw::RSMPI_ANY_SOURCE,
                tag,
                comm.as_raw(),
                raw::RSMPI_STATUS_IGNORE,
            )
        })
    }
}

impl Drop for ByteRecv {
    fn drop(&mut self) {
        if self.request.get() != request_null() && super::check::is_running() {
            // SAFETY: our own active request.
            unsafe {
                raw::MPI_Cancel(self.request.as_ptr());
                raw::MPI_Wait(self.request.as_ptr(), raw::RSMPI_STATUS_IGNORE);
            }
        }
    }
}

/// The request of a one-byte send, freed on drop. Not thread-safe.
pub struct ByteSend {
    request: Cell<raw::MPI_Request>,
}

impl Default for ByteSend {
    fn default() -> ByteSend {
        ByteSend {
            request: Cell::new(request_null()),
        }
    }
}

impl ByteSend {
    /// Start `MPI_Isend` of one byte to `dest` (MPI-3.1 §3.7.2). Errors: MPI's.
    pub fn start(&self, comm: &Comm, dest: u32, tag: i32) -> Result<()> {
        let dest = to_count("rank", dest.into())?;
        // SAFETY: SIGNAL is a static byte MPI only reads; the request outlives the send.
        let rc = unsafe {
            raw::MPI_Isend(
                &SIGNAL as *const u8 as *mut c_void,
                1,
                raw::RSMPI_UINT8_T,
                dest,
                tag,
                comm.as_raw(),
                self.request.as_ptr(),
            )
        };
        if rc != 0 {
            self.request.set(request_null());
        }
        check("MPI_Isend", rc)
    }

    /// `MPI_Wait` for the send. Errors: MPI's.
    pub fn wait(&self) -> Result<()> {
        wait(&self.request)
    }
}

impl Drop for ByteSend {
    fn drop(&mut self) {
        if self.request.get() != request_null() && super::check::is_running() {
            // SAFETY: our own unfinished request.
            unsafe { raw::MPI_Request_free(self.request.as_ptr()) };
        }
    }
}
