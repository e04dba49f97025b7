//! Communicators ([`Comm`]) and the collectives h5perf uses.

use std::ffi::{c_int, c_void};
use std::mem::MaybeUninit;

use mpi_sys as raw;

use super::check::{check, to_count};
use crate::error::Result;

/// Reduction operators (MPI-3.1 §5.9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `MPI_MAX`
    Max,
    /// `MPI_MIN`
    Min,
    /// `MPI_SUM`
    Sum,
}

impl Op {
    fn raw(self) -> raw::MPI_Op {
        // SAFETY: reading link-time constants of the MPI shim.
        unsafe {
            match self {
                Op::Max => raw::RSMPI_MAX,
                Op::Min => raw::RSMPI_MIN,
                Op::Sum => raw::RSMPI_SUM,
            }
        }
    }
}

/// `MPI_COMM_WORLD` (borrowed) or a communicator freed on drop (MPI-3.1 §6.4.3).
pub struct Comm {
    pub(super) raw: raw::MPI_Comm,
    pub(super) owned: bool,
}

/// An owned communicator `make` writes, with `MPI_ERRORS_RETURN` (MPI-3.1 §8.3.1).
fn new_comm(call: &'static str, make: impl FnOnce(*mut raw::MPI_Comm) -> c_int) -> Result<Comm> {
    let mut out = MaybeUninit::<raw::MPI_Comm>::uninit();
    check(call, make(out.as_mut_ptr()))?;
    // SAFETY: initialised by the successful call; a live communicator we own.
    let c = unsafe {
        let c = out.assume_init();
        raw::MPI_Comm_set_errhandler(c, raw::RSMPI_ERRORS_RETURN);
        c
    };
    Ok(Comm {
        raw: c,
        owned: true,
    })
}

/// Whether `raw_comm` is `MPI_COMM_NULL` (MPI-3.1 §6.4.1), which no call may be given:
/// `MPI_Comm_dup` of it invokes the error handler of `MPI_COMM_WORLD`, by default one
/// that aborts.
pub fn is_null(raw_comm: raw::MPI_Comm) -> bool {
    // SAFETY: reading a link-time constant of the MPI shim.
    raw_comm == unsafe { raw::RSMPI_COMM_NULL }
}

impl Comm {
    /// A private duplicate (`MPI_Comm_dup`, collective, MPI-3.1 §6.4.2), freed on drop.
    pub fn dup_of(raw_comm: raw::MPI_Comm) -> Result<Comm> {
        // SAFETY: the caller passes a live communicator; out receives a new handle.
        new_comm("MPI_Comm_dup", |out| unsafe {
            raw::MPI_Comm_dup(raw_comm, out)
        })
    }

    /// A private duplicate of `MPI_COMM_SELF` (this process alone; `MPI_Comm_dup`, local,
    /// MPI-3.1 §6.4.2), freed on drop: the communicator of a file per process.
    ///
    /// Errors: the MPI library's error of `MPI_Comm_dup`.
    pub fn self_dup() -> Result<Comm> {
        // SAFETY: reading a link-time constant of the MPI shim, a live communicator.
        Comm::dup_of(unsafe { raw::RSMPI_COMM_SELF })
    }

    /// The raw handle, for the HDF5 MPI-IO driver.
    pub fn as_raw(&self) -> raw::MPI_Comm {
        self.raw
    }

    /// `MPI_Comm_rank` (MPI-3.1 §6.4.1).
    pub fn rank(&self) -> Result<u32> {
        let mut r: c_int = 0;
        // SAFETY: valid communicator, out-pointer to a live int.
        checked!(unsafe { raw::MPI_Comm_rank(self.raw, &mut r) })?;
        Ok(r.unsigned_abs())
    }

    /// `MPI_Comm_size` (MPI-3.1 §6.4.1).
    pub fn size(&self) -> Result<u32> {
        let mut s: c_int = 0;
        // SAFETY: as above.
        checked!(unsafe { raw::MPI_Comm_size(self.raw, &mut s) })?;
        Ok(s.unsigned_abs())
    }

    /// Collective `MPI_Comm_split` (MPI-3.1 §6.4.2); `None` for non-members.
    pub fn split(&self, member: bool, key: u32) -> Result<Option<Comm>> {
        let color = if member { 1 } else { 0 };
        let key = to_count("split key", key.into())?;
        // SAFETY: valid communicator; out receives a new handle.
        let c = new_comm("MPI_Comm_split", |out| unsafe {
            raw::MPI_Comm_split(self.raw, color, key, out)
        })?;
        Ok(member.then_some(c))
    }

    /// Collective `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`: this node's ranks (MPI-3.1 §6.4.2).
    pub fn split_shared(&self) -> Result<Comm> {
        let key = to_count("rank", self.rank()?.into())?;
        // SAFETY: valid communicator and predefined handles; out receives a new handle.
        new_comm("MPI_Comm_split_type", |out| unsafe {
            raw::MPI_Comm_split_type(
                self.raw,
                raw::RSMPI_COMM_TYPE_SHARED,
                key,
                raw::RSMPI_INFO_NULL,
                out,
            )
        })
    }

    /// `MPI_Barrier` (MPI-3.1 §5.3).
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: valid communicator.
        checked!(unsafe { raw::MPI_Barrier(self.raw) })
    }

    /// `MPI_Ibarrier` tested every ms up to `limit`; true if all arrived (MPI-3.1 §5.12.1).
    pub fn barrier_within(&self, limit: std::time::Duration) -> bool {
        let mut req = MaybeUninit::<raw::MPI_Request>::uninit();
        // SAFETY: valid communicator; req receives the request.
        if unsafe { raw::MPI_Ibarrier(self.raw, req.as_mut_ptr()) } != 0 {
            return false;
        }
        // SAFETY: initialised by the successful MPI_Ibarrier.
        let mut req = unsafe { req.assume_init() };
        let start = std::time::Instant::now();
        loop {
            let mut done: c_int = 0;
            // SAFETY: req is an active request; the status is ignored.
            if unsafe { raw::MPI_Test(&mut req, &mut done, raw::RSMPI_STATUS_IGNORE) } != 0 {
                return false;
            }
            if done != 0 {
                return true;
            }
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// `MPI_Allreduce` of doubles with `op` into `out` (MPI-3.1 §5.9.6).
    pub fn allreduce_f64(&self, input: &[f64], out: &mut [f64], op: Op) -> Result<()> {
        assert_eq!(input.len(), out.len());
        let n = to_count("reduction length", input.len() as u64)?;
        // SAFETY: both buffers hold n doubles; MPI_DOUBLE matches f64.
        checked!(unsafe {
            raw::MPI_Allreduce(
                input.as_ptr() as *const c_void,
                out.as_mut_ptr() as *mut c_void,
                n,
                raw::RSMPI_DOUBLE,
                op.raw(),
                self.raw,
            )
        })
    }

    /// `MPI_Allreduce` of an integer, carried as a double (exact below 2^53; MPI-3.1 §5.9.6).
    pub fn allreduce_u64(&self, v: u64, op: Op) -> Result<u64> {
        let mut out = [0.0];
        self.allreduce_f64(&[v as f64], &mut out, op)?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(out[0] as u64)
    }

    /// `MPI_Bcast` from `root` (MPI-3.1 §5.4).
    /// # Safety: `buf` holds `count` elements of `datatype` on every rank.
    unsafe fn bcast(
        &self,
        buf: *mut c_void,
        count: c_int,
        datatype: raw::MPI_Datatype,
        root: u32,
    ) -> Result<()> {
        let root = to_count("root rank", root.into())?;
        // SAFETY: the caller's promise; valid communicator.
        checked!(unsafe { raw::MPI_Bcast(buf, count, datatype, root, self.raw) })
    }

    /// `MPI_Bcast` of root's byte string (MPI-3.1 §5.4).
    pub fn bcast_bytes(&self, root: u32, data: &[u8]) -> Result<Vec<u8>> {
        let mut len = [data.len() as f64];
        let is_root = self.rank()? == root;
        // SAFETY: one double on every rank.
        unsafe { self.bcast(len.as_mut_ptr().cast(), 1, raw::RSMPI_DOUBLE, root) }?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = len[0] as usize;
        if n == 0 {
            // Open MPI refuses an empty buffer's dangling pointer (MPI_ERR_ARG)
            return Ok(Vec::new());
        }
        let mut buf = if is_root { data.to_vec() } else { vec![0u8; n] };
        let count = to_count("broadcast length", n as u64)?;
        // SAFETY: buf holds n bytes on every rank.
        unsafe { self.bcast(buf.as_mut_ptr().cast(), count, raw::RSMPI_UINT8_T, root) }?;
        Ok(buf)
    }

    /// `MPI_Gather` of doubles to `root`, rank order (MPI-3.1 §5.5). Errors: MPI's, over `INT_MAX`.
    pub fn gather_f64(&self, root: u32, input: &[f64]) -> Result<Vec<f64>> {
        let n = to_count("gather length", input.len() as u64)?;
        let size = self.size()? as usize;
        let is_root = self.rank()? == root;
        let mut out = vec![0.0; if is_root { size * input.len() } else { 0 }];
        let recv = if is_root {
            out.as_mut_ptr() as *mut c_void
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: input holds n doubles; on root out holds size × n; MPI_DOUBLE is f64.
        checked!(unsafe {
            raw::MPI_Gather(
                input.as_ptr() as *const c_void,
                n,
                raw::RSMPI_DOUBLE,
                recv,
                n,
                raw::RSMPI_DOUBLE,
                to_count("root rank", root.into())?,
                self.raw,
            )
        })?;
        Ok(out)
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.owned && super::check::is_running() {
            // SAFETY: we own this communicator.
            unsafe { raw::MPI_Comm_free(&mut self.raw) };
        }
    }
}
