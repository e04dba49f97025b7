//! Failure agreement across ranks: every step that can fail on one rank ends at an
//! agreement point where all ranks of the communicator learn whether any rank failed and
//! leave together with the first failing rank's message, so no rank is left waiting in a
//! collective call.

use crate::error::{Error, Result};
use crate::ffi::mpi::{Comm, Op};

/// Agreement point: every rank of `comm` learns whether any rank failed. If one did,
/// all return `Error::Remote` with the message of the lowest failing rank
/// (`rank R: <error>`), or `Error::Fatal` if any rank's error was fatal. Collective
/// over `comm`.
pub fn agree(comm: &Comm, res: Result<()>) -> Result<()> {
    agree_with(comm, res, false)
}

/// [`agree`], where `stranded` says that this rank holds a handle that only a
/// collective call could release; if any rank is stranded the agreed error is
/// `Error::Fatal`.
pub fn agree_with(comm: &Comm, res: Result<()>, stranded: bool) -> Result<()> {
    let level: u64 = match &res {
        _ if stranded => 2,
        Err(Error::Fatal(_)) => 2,
        Err(_) => 1,
        Ok(()) => 0,
    };
    let worst = comm.allreduce_u64(level, Op::Max)?;
    if worst == 0 {
        return Ok(());
    }
    const NONE: u64 = 1 << 40;
    let me = comm.rank()?;
    let mine = if res.is_err() { u64::from(me) } else { NONE };
    let first = comm.allreduce_u64(mine, Op::Min)?;
    let msg = match &res {
        Err(Error::Remote(m)) | Err(Error::Fatal(m)) => m.clone(),
        Err(e) => format!("rank {me}: {e}"),
        Ok(()) => String::new(),
    };
    let text = if first == NONE {
        "a rank holds a file that cannot be closed".to_string()
    } else {
        let b = comm.bcast_bytes(first as u32, msg.as_bytes())?;
        String::from_utf8_lossy(&b).into_owned()
    };
    if worst == 2 {
        Err(Error::Fatal(text))
    } else {
        Err(Error::Remote(text))
    }
}
