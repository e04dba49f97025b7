//! Point-to-point messages of one byte (MPI-3.1 §3.7): a receive from any source kept
//! posted ([`ByteRecv`], `MPI_Irecv`, `MPI_Test`, `MPI_Wait`, `MPI_Recv`) and sends of
//! a constant byte ([`ByteSend`], `MPI_Isend`). The error beacon
//! (`crate::agreement::beacon`) is built on them.

use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void};

use mpi_sys as raw;

use super::check::{check, to_count};
use super::comm::Comm;
use crate::error::Result;

/// The byte every send carries (read by MPI only).
static SIGNAL: u8 = 1;

fn request_null() -> raw::MPI_Request {
    // SAFETY: reading a link-time constant of the MPI shim.
    unsafe { raw::RSMPI_REQUEST_NULL }
}

/// `MPI_Wait` for our own `request` (at once for none); the status is ignored.
fn wait(request: &Cell<raw::MPI_Request>) -> Result<()> {
    // SAFETY: a request of ours, live or MPI_REQUEST_NULL; status ignored.
    checked!(unsafe { raw::MPI_Wait(request.as_ptr(), raw::RSMPI_STATUS_IGNORE) })
}

/// A one-byte receive buffer (written by MPI: `UnsafeCell`, boxed so its address stays
/// put) and its request. A posted receive is cancelled on drop (`MPI_Cancel`, then
/// `MPI_Wait`, MPI-3.1 §3.8.4; errors ignored). Not thread-safe (`Cell`s).
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
    /// Post a receive of one byte from any source with `tag` on `comm` (`MPI_Irecv`,
    /// MPI-3.1 §3.7.2). `comm` must outlive the receive (drop it after this).
    ///
    /// Errors: the call fails.
    pub fn post(&self, comm: &Comm, tag: i32) -> Result<()> {
        // SAFETY: the inbox is one byte that lives (boxed) as long as self, which
        // completes or cancels the receive before it is dropped; live communicator;
        // the request is an out-parameter.
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

    /// Whether the posted receive has completed (`MPI_Test`, MPI-3.1 §3.7.3, which
    /// also drives the MPI library's progress; true for no posted receive).
    ///
    /// Errors: `MPI_Test` fails.
    #[inline]
    pub fn test(&self) -> Result<bool> {
        let mut flag: c_int = 0;
        // SAFETY: our own request (a completed one is MPI_REQUEST_NULL, for which
        // MPI_Test returns flag = true); flag is a live int; the status is ignored.
        checked!(unsafe {
            raw::MPI_Test(self.request.as_ptr(), &mut flag, raw::RSMPI_STATUS_IGNORE)
        })?;
        Ok(flag != 0)
    }

    /// Wait for the posted receive (`MPI_Wait`; at once for none).
    ///
    /// Errors: the call fails.
    pub fn wait(&self) -> Result<()> {
        wait(&self.request)
    }

    /// Receive one byte from any source with `tag` on `comm`, blocking (`MPI_Recv`,
    /// MPI-3.1 §3.2.4), into the buffer (no receive may be posted).
    ///
    /// Errors: the call fails.
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
        // no MPI call after MPI_Finalize (MPI-3.1 §8.7): the request is gone with it
        if self.request.get() != request_null() && super::check::is_running() {
            // SAFETY: our own active request.
            unsafe {
                raw::MPI_Cancel(self.request.as_ptr());
                raw::MPI_Wait(self.request.as_ptr(), raw::RSMPI_STATUS_IGNORE);
            }
        }
    }
}

/// The request of a send of one constant byte. An unfinished send is freed on drop
/// (`MPI_Request_free`, errors ignored). Not thread-safe (`Cell`).
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
    /// Start sending one byte to rank `dest` of `comm` with `tag` (`MPI_Isend`, MPI-3.1
    /// §3.7.2). Never blocks, allocates nothing (`dest`: a rank of `comm`). A send
    /// that cannot be started leaves no request.
    ///
    /// Errors: the call fails.
    pub fn start(&self, comm: &Comm, dest: u32, tag: i32) -> Result<()> {
        let dest = to_count("rank", dest.into())?;
        // SAFETY: SIGNAL is a static byte MPI only reads; live communicator; the
        // request cell outlives the send (completed by wait, freed on drop).
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

    /// Wait for the send (`MPI_Wait`; at once for none).
    ///
    /// Errors: the call fails.
    pub fn wait(&self) -> Result<()> {
        wait(&self.request)
    }
}

impl Drop for ByteSend {
    fn drop(&mut self) {
        // no MPI call after MPI_Finalize (MPI-3.1 §8.7)
        if self.request.get() != request_null() && super::check::is_running() {
            // SAFETY: our own unfinished request.
            unsafe { raw::MPI_Request_free(self.request.as_ptr()) };
        }
    }
}
