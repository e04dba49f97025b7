//! Failure agreement across ranks: every step that can fail on one rank ends at an
//! agreement point where all ranks of the communicator learn whether any rank failed and
//! leave together with the first failing rank's message, so no rank is left waiting in a
//! collective call. The error beacon ([`beacon`]) tells the other ranks of a failure
//! at once, between two agreement points.

pub mod beacon;

pub use beacon::Beacon;

use crate::error::{Error, Result};
use crate::ffi::mpi::{Comm, Op};

/// Agreement point: every rank of `comm` learns whether any rank failed. If one did,
/// all return `Error::Remote` with the message of the lowest failing rank
/// (`rank R: <error>`), or `Error::Fatal` if any rank's error was fatal. A rank that
/// only stopped because another failed (`Error::Stopped`) counts as failing, but its
/// message is chosen only when no rank has another error. Collective over `comm`.
pub fn agree(comm: &Comm, res: Result<()>) -> Result<()> {
    agree_with(comm, res, false)
}

/// [`agree`] on a per-rank result that carries a value: every rank learns whether any
/// rank failed; each rank that succeeded gets its value back. Collective over `comm`.
///
/// # Errors
/// The agreed error of [`agree`] (this rank's own error, or another rank's as
/// [`Error::Remote`]).
pub fn agree_value<T>(comm: &Comm, r: Result<T>) -> Result<T> {
    match r {
        Ok(v) => agree(comm, Ok(())).map(|()| v),
        Err(e) => Err(agree(comm, Err(e)).expect_err("a failed rank's agreement fails")),
    }
}

/// Agreement on a refusal found before any I/O: when any rank of `comm` has one
/// (`mine`), every rank returns [`Error::Invalid`] with the message of the lowest such
/// rank, as is (printed as `h5perf: <message>`). Collective.
///
/// # Errors
/// That refusal, or an MPI error.
pub fn refuse_if_any(comm: &Comm, mine: Option<String>) -> Result<()> {
    refuse_first(comm, [mine])
}

/// [`refuse_if_any`] for several checks made one after the other, agreed in one round:
/// the refusal every rank returns is that of the first check (in `checks`' order) that
/// any rank failed, with the message of the lowest rank that failed it — the message
/// the checks would give if each were agreed on its own. Collective.
///
/// # Errors
/// That refusal, or an MPI error.
pub fn refuse_first<const N: usize>(comm: &Comm, checks: [Option<String>; N]) -> Result<()> {
    const NONE: u64 = u64::MAX;
    let me = u64::from(comm.rank()?);
    let (key, mine) = match checks
        .into_iter()
        .enumerate()
        .find_map(|(i, c)| Some((i, c?)))
    {
        // the check's place first, then the rank: the smallest key is the refusal
        Some((i, m)) => ((i as u64) << 32 | me, m),
        None => (NONE, String::new()),
    };
    let first = comm.allreduce_u64(key, Op::Min)?;
    if first == NONE {
        return Ok(());
    }
    let msg = comm.bcast_bytes((first & u64::from(u32::MAX)) as u32, mine.as_bytes())?;
    Err(Error::Invalid(vec![
        String::from_utf8_lossy(&msg).into_owned()
    ]))
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
    // ranks that only stopped come after every rank with an error of its own
    const STOPPED: u64 = 1 << 32;
    let me = comm.rank()?;
    let mine = match &res {
        Err(Error::Stopped) => STOPPED + u64::from(me),
        Err(_) => u64::from(me),
        Ok(()) => NONE,
    };
    let first = comm.allreduce_u64(mine, Op::Min)?;
    let first = if (STOPPED..NONE).contains(&first) {
        first - STOPPED
    } else {
        first
    };
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
