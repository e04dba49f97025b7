//! The error beacon (issue 12, item 7): a rank whose independent transfers fail tells
//! the others at once, so they stop within a bounded number of transfers instead of
//! writing the rest of their dataset before the next agreement point.
//!
//! Point-to-point messages on a private duplicate of the run communicator (so they can
//! never match another receive): every rank keeps one `MPI_Irecv` from any source
//! posted; a failing rank sends one byte to every other rank ([`Beacon::raise`],
//! `MPI_Isend`); the transfer loops test the receive every few transfers
//! ([`Beacon::raised`], `MPI_Test`, MPI-3.1 §3.7.3). After the agreement that follows
//! a failure, every rank calls [`Beacon::settle`] (collective): the ranks count the
//! senders, receive every byte addressed to them, complete their sends and post a
//! fresh receive, so nothing is left in flight. A successful agreement means no rank
//! raised, so there is nothing to settle.

use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void};

use mpi_sys as raw;

use super::check::{check, mpi_error};
use super::comm::{Comm, Op};
use crate::error::{Error, Result};

/// The tag of beacon messages (any value: the communicator is private).
const TAG: c_int = 0x4835;

/// The byte every beacon message carries (read by MPI only).
static SIGNAL: u8 = 1;

/// One rank's end of the error beacon of a communicator. Not thread-safe (`Cell`s):
/// one per rank, used by the thread that runs the benchmark.
pub struct Beacon {
    /// The private duplicate of the run communicator.
    comm: Comm,
    /// This rank and the communicator's size.
    rank: c_int,
    size: c_int,
    /// The posted receive (`MPI_REQUEST_NULL` once completed).
    recv: Cell<raw::MPI_Request>,
    /// The receive's buffer, written by MPI behind Rust's back (hence `UnsafeCell`,
    /// boxed so its address stays put).
    inbox: Box<UnsafeCell<u8>>,
    /// A beacon message has arrived (or testing failed, see `broken`).
    heard: Cell<bool>,
    /// The return code of a failed `MPI_Test` (0: none).
    broken: Cell<c_int>,
    /// This rank has raised the beacon since the last settling.
    sent: Cell<bool>,
    /// One send request per other rank, allocated once (no allocation when raising).
    sends: Box<[Cell<raw::MPI_Request>]>,
}

impl Beacon {
    /// The beacon of `comm` (collective: `MPI_Comm_dup`), with its receive posted.
    ///
    /// Errors: the duplicate or the receive fails.
    pub fn new(comm: &Comm) -> Result<Beacon> {
        let dup = Comm::dup_of(comm.as_raw())?;
        let (rank, size) = (dup.rank()? as c_int, dup.size()? as c_int);
        // SAFETY: reading a link-time constant of the MPI shim.
        let null = unsafe { raw::RSMPI_REQUEST_NULL };
        let b = Beacon {
            comm: dup,
            rank,
            size,
            recv: Cell::new(null),
            inbox: Box::new(UnsafeCell::new(0)),
            heard: Cell::new(false),
            broken: Cell::new(0),
            sent: Cell::new(false),
            sends: (1..size).map(|_| Cell::new(null)).collect(),
        };
        b.post()?;
        Ok(b)
    }

    /// Post the receive from any source (`MPI_Irecv`, MPI-3.1 §3.7.2).
    fn post(&self) -> Result<()> {
        // SAFETY: the inbox is one byte that lives (boxed) as long as the beacon, which
        // completes or cancels the receive before it is dropped; live communicator;
        // the request is an out-parameter.
        check("MPI_Irecv", unsafe {
            raw::MPI_Irecv(
                self.inbox.get() as *mut c_void,
                1,
                raw::RSMPI_UINT8_T,
                raw::RSMPI_ANY_SOURCE,
                TAG,
                self.comm.as_raw(),
                self.recv.as_ptr(),
            )
        })?;
        self.heard.set(false);
        Ok(())
    }

    /// Whether another rank has raised the beacon (`MPI_Test` of the posted receive,
    /// which also drives the MPI library's progress). Once true, true until
    /// [`Beacon::settle`]. A failing `MPI_Test` counts as raised: [`Beacon::stop_error`]
    /// then reports it.
    #[inline]
    pub fn raised(&self) -> bool {
        if self.heard.get() {
            return true;
        }
        let mut flag: c_int = 0;
        // SAFETY: the request is the beacon's own (a completed one is MPI_REQUEST_NULL,
        // for which MPI_Test returns flag = true); flag is a live int; the status is
        // ignored.
        let rc = unsafe { raw::MPI_Test(self.recv.as_ptr(), &mut flag, raw::RSMPI_STATUS_IGNORE) };
        if rc != 0 || flag != 0 {
            self.heard_now(rc);
            return true;
        }
        false
    }

    #[cold]
    #[inline(never)]
    fn heard_now(&self, rc: c_int) {
        self.heard.set(true);
        self.broken.set(rc);
    }

    /// The error of a loop that stopped because [`Beacon::raised`] said so:
    /// [`Error::Stopped`], or the error of the failed `MPI_Test`.
    #[cold]
    #[inline(never)]
    pub fn stop_error(&self) -> Error {
        match self.broken.get() {
            0 => Error::Stopped,
            rc => mpi_error("MPI_Test", rc),
        }
    }

    /// Tell every other rank that this one failed (one `MPI_Isend` of one byte each),
    /// once until [`Beacon::settle`]. Never blocks and allocates nothing; a send that
    /// cannot be started is skipped (that rank then stops at the next agreement).
    pub fn raise(&self) {
        if self.sent.replace(true) {
            return;
        }
        let others = (0..self.size).filter(|&r| r != self.rank);
        for (req, r) in self.sends.iter().zip(others) {
            // SAFETY: SIGNAL is a static byte MPI only reads; live communicator; the
            // request cell outlives the send (completed in settle, freed in drop).
            let rc = unsafe {
                raw::MPI_Isend(
                    &SIGNAL as *const u8 as *mut c_void,
                    1,
                    raw::RSMPI_UINT8_T,
                    r,
                    TAG,
                    self.comm.as_raw(),
                    req.as_ptr(),
                )
            };
            if rc != 0 {
                // SAFETY: reading a link-time constant of the MPI shim.
                req.set(unsafe { raw::RSMPI_REQUEST_NULL });
            }
        }
    }

    /// After an agreement that failed (every rank calls it, collective): count the ranks
    /// that raised the beacon (`MPI_Allreduce`), receive every message addressed to this
    /// rank, complete this rank's sends and post a fresh receive. Afterwards nothing of
    /// the beacon is in flight.
    ///
    /// Errors: an MPI call fails.
    pub fn settle(&self) -> Result<()> {
        if self.broken.get() != 0 {
            return Err(self.stop_error());
        }
        let mine = u64::from(self.sent.get());
        let senders = self.comm.allreduce_u64(mine, Op::Sum)?;
        let expect = senders - mine;
        if expect == 0 {
            // nobody sent to this rank: the receive cannot match anything
            return self.sends_done();
        }
        // the posted receive takes one message, blocking receives the rest
        // SAFETY: the beacon's own request; status ignored.
        check("MPI_Wait", unsafe {
            raw::MPI_Wait(self.recv.as_ptr(), raw::RSMPI_STATUS_IGNORE)
        })?;
        for _ in 1..expect {
            // SAFETY: the inbox byte; live communicator; status ignored.
            check("MPI_Recv", unsafe {
                raw::MPI_Recv(
                    self.inbox.get() as *mut c_void,
                    1,
                    raw::RSMPI_UINT8_T,
                    raw::RSMPI_ANY_SOURCE,
                    TAG,
                    self.comm.as_raw(),
                    raw::RSMPI_STATUS_IGNORE,
                )
            })?;
        }
        self.sends_done()?;
        self.post()
    }

    /// Complete this rank's sends (every receiver has a receive posted or takes the
    /// message in its own `settle`).
    fn sends_done(&self) -> Result<()> {
        for req in self.sends.iter() {
            // SAFETY: a request of ours (MPI_REQUEST_NULL returns at once).
            check("MPI_Wait", unsafe {
                raw::MPI_Wait(req.as_ptr(), raw::RSMPI_STATUS_IGNORE)
            })?;
        }
        self.sent.set(false);
        Ok(())
    }
}

impl Drop for Beacon {
    /// Cancel the posted receive (`MPI_Cancel`, then `MPI_Wait`, MPI-3.1 §3.8.4: either
    /// the cancel succeeds or the receive completes) and free unfinished sends
    /// (`MPI_Request_free`; only after a failure no agreement settled). Errors are
    /// ignored; nothing is called once MPI is finalised. The duplicate communicator is
    /// freed after this.
    fn drop(&mut self) {
        // no MPI call after MPI_Finalize (MPI-3.1 §8.7): the requests are gone with it
        if !super::check::is_running() {
            return;
        }
        // SAFETY: reading a link-time constant; our own requests.
        unsafe {
            let null = raw::RSMPI_REQUEST_NULL;
            if self.recv.get() != null {
                raw::MPI_Cancel(self.recv.as_ptr());
                raw::MPI_Wait(self.recv.as_ptr(), raw::RSMPI_STATUS_IGNORE);
            }
            for req in self.sends.iter() {
                if req.get() != null {
                    raw::MPI_Request_free(req.as_ptr());
                }
            }
        }
    }
}
