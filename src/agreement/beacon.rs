//! The error beacon (issue 12, item 7): a failing rank tells the others at once, so they stop.
//!
//! One byte to every rank on a private `MPI_Comm_dup`, tested with `MPI_Test` (MPI-3.1 §3.7.3).

use std::cell::{Cell, RefCell};

use crate::error::{Error, Result};
use crate::ffi::mpi::{ByteRecv, ByteSend, Comm, Op};

/// The tag of beacon messages (any value: the communicator is private).
const TAG: i32 = 0x4835;

/// One rank's end of the error beacon of a communicator.
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

    /// Whether another rank has raised the beacon (a test of the posted receive, which also drives
    /// the MPI library's progress).
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

    /// Tell every other rank that this one failed (one send of one byte each), once until
    /// [`Beacon::settle`].
    pub fn raise(&self) {
        if self.sent.replace(true) {
            return;
        }
        let others = (0..self.size).filter(|&r| r != self.rank);
        for (send, r) in self.sends.iter().zip(others) {
            let _ = send.start(&self.comm, r, TAG);
        }
    }

    /// After a failed agreement (collective): take every beacon message, post a fresh receive.
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
            return self.sends_done();
        }
        self.recv.wait()?;
        for _ in 1..expect {
            self.recv.recv(&self.comm, TAG)?;
        }
        self.sends_done()?;
        self.post()
    }

    /// Complete this rank's sends (every receiver has a receive posted or takes it in `settle`).
    fn sends_done(&self) -> Result<()> {
        for send in self.sends.iter() {
            send.wait()?;
        }
        self.sent.set(false);
        Ok(())
    }
}
