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

use std::cell::{Cell, RefCell};

use crate::error::{Error, Result};
use crate::ffi::mpi::{ByteRecv, ByteSend, Comm, Op};

/// The tag of beacon messages (any value: the communicator is private).
const TAG: i32 = 0x4835;

/// One rank's end of the error beacon of a communicator. Not thread-safe (`Cell`s):
/// one per rank, used by the thread that runs the benchmark. The requests are declared
/// before the communicator, so they are cancelled or freed before it is.
pub struct Beacon {
    /// The posted receive (completed once a message arrived).
    recv: ByteRecv,
    /// One send per other rank, allocated once (no allocation when raising).
    sends: Box<[ByteSend]>,
    /// The private duplicate of the run communicator.
    comm: Comm,
    /// This rank and the communicator's size.
    rank: u32,
    size: u32,
    /// A beacon message has arrived (or testing failed, see `broken`).
    heard: Cell<bool>,
    /// The error of a failed `MPI_Test`.
    broken: RefCell<Option<Error>>,
    /// This rank has raised the beacon since the last settling.
    sent: Cell<bool>,
}

impl Beacon {
    /// The beacon of `comm` (collective: `MPI_Comm_dup`), with its receive posted.
    ///
    /// Errors: the duplicate or the receive fails.
    pub fn new(comm: &Comm) -> Result<Beacon> {
        let dup = Comm::dup_of(comm.as_raw())?;
        let (rank, size) = (dup.rank()?, dup.size()?);
        let b = Beacon {
            recv: ByteRecv::default(),
            sends: (1..size).map(|_| ByteSend::default()).collect(),
            comm: dup,
            rank,
            size,
            heard: Cell::new(false),
            broken: RefCell::new(None),
            sent: Cell::new(false),
        };
        b.post()?;
        Ok(b)
    }

    /// Post the receive from any source.
    fn post(&self) -> Result<()> {
        self.recv.post(&self.comm, TAG)?;
        self.heard.set(false);
        Ok(())
    }

    /// Whether another rank has raised the beacon (a test of the posted receive,
    /// which also drives the MPI library's progress). Once true, true until
    /// [`Beacon::settle`]. A failing `MPI_Test` counts as raised: [`Beacon::stop_error`]
    /// then reports it.
    #[inline]
    pub fn raised(&self) -> bool {
        if self.heard.get() {
            return true;
        }
        match self.recv.test() {
            Ok(false) => false,
            done => self.heard_now(done.err()),
        }
    }

    #[cold]
    #[inline(never)]
    fn heard_now(&self, broken: Option<Error>) -> bool {
        self.heard.set(true);
        *self.broken.borrow_mut() = broken;
        true
    }

    /// The error of a loop that stopped because [`Beacon::raised`] said so:
    /// [`Error::Stopped`], or the error of the failed `MPI_Test`.
    #[cold]
    #[inline(never)]
    pub fn stop_error(&self) -> Error {
        self.broken.borrow().clone().unwrap_or(Error::Stopped)
    }

    /// Tell every other rank that this one failed (one send of one byte each), once
    /// until [`Beacon::settle`]. Never blocks and allocates nothing; a send that cannot
    /// be started is skipped (that rank then stops at the next agreement).
    pub fn raise(&self) {
        if self.sent.replace(true) {
            return;
        }
        let others = (0..self.size).filter(|&r| r != self.rank);
        for (send, r) in self.sends.iter().zip(others) {
            let _ = send.start(&self.comm, r, TAG);
        }
    }

    /// After an agreement that failed (every rank calls it, collective): count the ranks
    /// that raised the beacon (`MPI_Allreduce`), receive every message addressed to this
    /// rank, complete this rank's sends and post a fresh receive. Afterwards nothing of
    /// the beacon is in flight.
    ///
    /// Errors: an MPI call fails.
    pub fn settle(&self) -> Result<()> {
        if self.broken.borrow().is_some() {
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
        self.recv.wait()?;
        for _ in 1..expect {
            self.recv.recv(&self.comm, TAG)?;
        }
        self.sends_done()?;
        self.post()
    }

    /// Complete this rank's sends (every receiver has a receive posted or takes the
    /// message in its own `settle`).
    fn sends_done(&self) -> Result<()> {
        for send in self.sends.iter() {
            send.wait()?;
        }
        self.sent.set(false);
        Ok(())
    }
}
