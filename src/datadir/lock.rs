//! The data directory's lock (README "The lock"), removed at the end
//! ([`DirLock::release`]), when dropped, and by [`super::cleanup`].

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::lock_record::{shown, ALIVE, UNKNOWN};
pub use super::lock_record::{Claim, Holder};
use crate::agreement::agree;
use crate::datadir::cleanup::{self, Slot};
use crate::error::{path_text, Error, Result};
use crate::ffi::mpi::{Comm, Op};
use crate::ffi::posix::FileId;
use crate::ffi::process;

/// The lock file's name in the data directory.
pub const LOCK_NAME: &str = "#h5perf.lock";
/// A lock file larger than this (bytes) is not one of ours.
const MAX_LOCK_BYTES: u64 = 64 * 1024;
/// Create/take-over rounds before giving up (each lost only to another run starting).
const ATTEMPTS: usize = 4;

/// What rank 0 found at the lock's name.
enum Found {
    /// This run's lock is there now.
    Created(FileId),
    /// Another run's lock: its holder, the file's identity and owner.
    Held(Holder, FileId, u32),
    /// Nothing any more (it went while being looked at): try again.
    Vanished,
    /// Something that is not a lock of ours: the reason.
    Blocked(String),
}

/// The outcome of rank 0's takeover of a stale lock.
enum TakeOver {
    /// This run holds the lock; rank 0's notes on what the dead run left.
    Mine(FileId, Vec<String>),
    /// Another run got in first: try again.
    Lost,
    /// The stale lock belongs to another user.
    Foreign,
}

/// The data directory's lock, held by rank 0 of a run's communicator; release it with
/// [`DirLock::release`] (dropped unreleased, it is removed if still this run's).
pub struct DirLock {
    /// The lock file (rank 0), `None` on the other ranks.
    path: Option<PathBuf>,
    ident: FileId,
    released: bool,
    /// On rank 0, after a takeover: one line each (starting `h5perf: `) on the run that
    /// ended without releasing the directory and what it left; else empty.
    pub takeover: Vec<String>,
}

/// `WHAT PATH: reason`, the path cut at 200 characters, the reason without `(os error N)`.
fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    let why = crate::error::io_text(&e);
    let shown = path_text(path.as_os_str());
    let cut = crate::error::cut(&shown, 200);
    let more = if cut.len() < shown.len() { "…" } else { "" };
    Error::DataDir(format!("{what} {cut}{more}: {why}"))
}

/// Take the lock of data directory `dir` for a run making the files of `claim`
/// (collective).
///
/// Errors (the same on every rank): [`Error::Invalid`] when anything but a stale lock of
/// ours is in the way; an agreed error when a file operation failed on rank 0.
pub fn acquire(comm: &Comm, dir: &Path, claim: &Claim) -> Result<DirLock> {
    let rank = comm.rank()?;
    let me = Holder::this_process(claim.clone());
    let lock = dir.join(LOCK_NAME);
    // the lock file for messages: in the data directory as `shown` names it
    let dir_s = shown(dir);
    let lock_s = format!("{dir_s}/{LOCK_NAME}");
    for _ in 0..ATTEMPTS {
        let found = if rank == 0 {
            try_create(dir, &lock, &me)
        } else {
            Ok(Found::Vanished)
        };
        let (found, owner) = share_found(comm, rank, found)?;
        let (holder, stale_ident) = match found {
            Found::Created(ident) => return Ok(held(rank, lock, ident, Vec::new())),
            Found::Vanished => continue,
            Found::Blocked(reason) => {
                let head = format!(
                    "{lock_s} is in the way of h5perf's lock of the data directory {dir_s}: \
                     {reason}; remove it"
                );
                return Err(refusal(head, ""));
            }
            Found::Held(h, ident, _) => (h, ident),
        };
        let who = holder.describe();
        let seen = comm.allreduce_u64(holder.seen_from_here(), Op::Max)?;
        if seen == ALIVE {
            let head = format!(
                "the data directory {dir_s} is in use by another h5perf run ({who}): wait until \
                 it ends"
            );
            return Err(refusal(head, &format!("; its lock file is {lock_s}")));
        }
        if seen == UNKNOWN {
            let host = &holder.host;
            let head = format!(
                "the data directory {dir_s} is locked by an h5perf run on another host ({who}), \
                 and no process of this run is on {host} to check whether it still runs: wait \
                 until it ends"
            );
            let tail = format!("; if no h5perf runs on {host} any more, remove {lock_s}");
            return Err(refusal(head, &tail));
        }
        let taken = if rank == 0 {
            take_over(dir, &lock, &me, &holder, stale_ident, owner)
        } else {
            Ok(TakeOver::Lost)
        };
        let (taken, code) = share(comm, taken, |t| match t {
            TakeOver::Mine(..) => "M".to_string(),
            TakeOver::Lost => "L".to_string(),
            TakeOver::Foreign => "F".to_string(),
        })?;
        match (code.first(), taken) {
            (_, TakeOver::Mine(ident, notes)) => return Ok(held(rank, lock, ident, notes)),
            (Some(&b'M'), _) => return Ok(held(rank, lock, FileId::default(), Vec::new())),
            (Some(&b'F'), _) => {
                let head = format!(
                    "the data directory {dir_s} is locked by an h5perf run that has ended \
                     ({who}), but its lock file {lock_s} belongs to another user (user ID \
                     {owner}): remove it as that user or as root"
                );
                return Err(refusal(head, ""));
            }
            _ => continue,
        }
    }
    Err(Error::Invalid(vec![format!(
        "cannot lock the data directory {dir_s}: other h5perf runs keep starting there at the \
         same time"
    )]))
}

/// A refused run (the same message on every rank, before anything is written): `head`,
/// the advice to give the run another directory, `tail`.
fn refusal(head: String, tail: &str) -> Error {
    let advice = "or give this run another directory (HDF5_PARAPREFIX)";
    Error::Invalid(vec![format!("{head}, {advice}{tail}")])
}

/// The [`DirLock`] of a run whose rank 0 holds `lock`.
fn held(rank: u32, lock: PathBuf, ident: FileId, takeover: Vec<String>) -> DirLock {
    DirLock {
        path: (rank == 0).then_some(lock),
        ident,
        released: false,
        takeover,
    }
}

/// Rank 0's [`Found`] on every rank, with the owner for [`Found::Held`]. Collective.
///
/// # Errors
/// Rank 0's failure: its own error there, [`Error::Remote`] on the other ranks.
fn share_found(comm: &Comm, rank: u32, found: Result<Found>) -> Result<(Found, u32)> {
    let (found, got) = share(comm, found, |f| match f {
        Found::Created(_) => "C".to_string(),
        Found::Vanished => "V".to_string(),
        Found::Blocked(r) => format!("B{r}"),
        Found::Held(h, _, owner) => format!("H{owner}\n{}", h.render()),
    })?;
    let got = String::from_utf8_lossy(&got).into_owned();
    let owner = match &found {
        Found::Held(_, _, o) => *o,
        _ => got
            .strip_prefix('H')
            .and_then(|r| r.split_once('\n'))
            .and_then(|(o, _)| o.parse().ok())
            .unwrap_or(0),
    };
    if rank == 0 {
        return Ok((found, owner));
    }
    let shared = match got.chars().next() {
        Some('C') => Found::Created(FileId::default()),
        Some('B') => Found::Blocked(got[1..].to_string()),
        Some('H') => match got.split_once('\n').and_then(|(_, rec)| Holder::parse(rec)) {
            Some(h) => Found::Held(h, FileId::default(), owner),
            None => Found::Vanished,
        },
        _ => Found::Vanished,
    };
    Ok((shared, owner))
}

/// The outcome of a step only rank 0 makes, on every rank (and the bytes). Collective.
///
/// # Errors
/// Rank 0's failure: its own error there, [`Error::Remote`] on the other ranks.
fn share<T>(
    comm: &Comm,
    mine: Result<T>,
    encode: impl FnOnce(&T) -> String,
) -> Result<(T, Vec<u8>)> {
    let text = match &mine {
        Ok(v) => encode(v),
        Err(e) => format!("Erank 0: {e}"),
    };
    let got = comm.bcast_bytes(0, text.as_bytes())?;
    match (mine, got.strip_prefix(b"E")) {
        (Err(e), _) => Err(e),
        (Ok(_), Some(msg)) => Err(Error::Remote(String::from_utf8_lossy(msg).into_owned())),
        (Ok(v), None) => Ok((v, got)),
    }
}

/// Remove a file of this process's own making left under `path` by an earlier process of
/// the same host and PID: only a regular file of this user.
fn clear_own(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("cannot look at", path, e)),
        Ok(m) if m.file_type().is_file() && m.uid() == process::euid() => {
            fs::remove_file(path).map_err(|e| io_error("cannot remove", path, e))
        }
        Ok(_) => Err(Error::DataDir(format!(
            "{} is in the way of h5perf's lock: it is not a regular file of this user",
            path.display()
        ))),
    }
}

/// `s` (a host name) as one component of a file name: `/` and NUL, which a host name
/// may hold (the kernel takes any bytes), become `_` (issue 35: a host name with `/`
/// made the lock's file name a path into a missing directory).
pub fn file_name_part(s: &str) -> String {
    s.replace(['/', '\0'], "_")
}

/// Rank 0: create this run's lock at `lock`, or find what is there.
fn try_create(dir: &Path, lock: &Path, me: &Holder) -> Result<Found> {
    let tmp = dir.join(format!(
        "{LOCK_NAME}.new.{}.{}",
        file_name_part(&me.host),
        me.pid
    ));
    clear_own(&tmp)?;
    cleanup::register(Slot::Lock, &tmp);
    let written = write_new(&tmp, me);
    let ident = match written {
        Ok(i) => i,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            cleanup::unregister(Slot::Lock);
            return Err(e);
        }
    };
    let linked = fs::hard_link(&tmp, lock);
    let _ = fs::remove_file(&tmp);
    cleanup::unregister(Slot::Lock);
    match linked {
        Ok(()) => Ok(check_ours(lock, ident)),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => read_existing(lock),
        Err(e) if no_hard_links(&e) => match write_new(lock, me) {
            Ok(ident) => Ok(check_ours(lock, ident)),
            Err(_) if fs::symlink_metadata(lock).is_ok() => read_existing(lock),
            Err(e) => Err(e),
        },
        Err(e) => Err(io_error("cannot create the lock", lock, e)),
    }
}

/// Whether `link(2)` failed because the file system has no hard links.
fn no_hard_links(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM) | Some(libc::EOPNOTSUPP) | Some(libc::EMLINK)
    )
}

/// After creating the lock: registered for removal if `lock` is the file `ident`.
fn check_ours(lock: &Path, ident: FileId) -> Found {
    match fs::symlink_metadata(lock) {
        Ok(m) if FileId::of(&m) == ident => {
            cleanup::register(Slot::Lock, lock);
            Found::Created(ident)
        }
        _ => Found::Vanished,
    }
}

/// Create `path` (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0644) holding `me`'s record,
/// synced; its identity.
fn write_new(path: &Path, me: &Holder) -> Result<FileId> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| io_error("cannot create the lock file", path, e))?;
    f.write_all(me.render().as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| io_error("cannot write the lock file", path, e))?;
    let m = f
        .metadata()
        .map_err(|e| io_error("cannot look at", path, e))?;
    Ok(FileId::of(&m))
}

/// Read the lock at `lock` without following a symbolic link.
fn read_existing(lock: &Path) -> Result<Found> {
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(lock);
    let mut f = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::Vanished),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(Found::Blocked("it is a symbolic link".into()))
        }
        Err(e) => return Err(io_error("cannot open the lock file", lock, e)),
    };
    let m = f
        .metadata()
        .map_err(|e| io_error("cannot look at", lock, e))?;
    if !m.file_type().is_file() {
        return Ok(Found::Blocked("it is not a regular file".into()));
    }
    if m.len() > MAX_LOCK_BYTES {
        return Ok(Found::Blocked(
            "it is too large to be an h5perf lock".into(),
        ));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| io_error("cannot read the lock file", lock, e))?;
    match Holder::parse(&String::from_utf8_lossy(&bytes)) {
        Some(h) => Ok(Found::Held(h, FileId::of(&m), m.uid())),
        None => Ok(Found::Blocked("it is not an h5perf lock file".into())),
    }
}

/// Rank 0: take over the stale lock `stale` (file `stale_ident`, owned by `owner`).
fn take_over(
    dir: &Path,
    lock: &Path,
    me: &Holder,
    stale: &Holder,
    stale_ident: FileId,
    owner: u32,
) -> Result<TakeOver> {
    if owner != process::euid() {
        return Ok(TakeOver::Foreign);
    }
    let aside = dir.join(format!(
        "{LOCK_NAME}.stale.{}.{}",
        file_name_part(&me.host),
        me.pid
    ));
    clear_own(&aside)?;
    cleanup::register(Slot::Aside, &aside);
    let done = |r| {
        let _ = fs::remove_file(&aside);
        cleanup::unregister(Slot::Aside);
        r
    };
    match fs::rename(lock, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return done(Ok(TakeOver::Lost)),
        Err(e) => return done(Err(io_error("cannot move aside the stale lock", lock, e))),
    }
    if fs::symlink_metadata(&aside).ok().map(|m| FileId::of(&m)) != Some(stale_ident) {
        // another run's new lock, made after the stale one went: put it back
        let _ = fs::hard_link(&aside, lock);
        return done(Ok(TakeOver::Lost));
    }
    match try_create(dir, lock, me) {
        Ok(Found::Created(ident)) => {
            let notes = super::leftovers::clean(dir, stale);
            done(Ok(TakeOver::Mine(ident, notes)))
        }
        Ok(_) => done(Ok(TakeOver::Lost)),
        Err(e) => done(Err(e)),
    }
}

impl DirLock {
    /// Remove the lock at the end of the run (collective).
    ///
    /// Errors (agreed): the lock was removed or replaced during the run, or cannot be removed.
    pub fn release(mut self, comm: &Comm) -> Result<()> {
        self.released = true;
        let r = self.remove_if_ours();
        agree(comm, r)
    }

    /// Rank 0: remove the lock file if it is still this run's.
    fn remove_if_ours(&self) -> Result<()> {
        let Some(p) = &self.path else {
            return Ok(());
        };
        let r = match fs::symlink_metadata(p) {
            Ok(m) if FileId::of(&m) == self.ident => fs::remove_file(p)
                .map_err(|e| io_error("cannot remove the data directory's lock file", p, e)),
            Ok(_) => Err(used_meanwhile(p, "replaced")),
            Err(e) if e.kind() == ErrorKind::NotFound => Err(used_meanwhile(p, "removed")),
            Err(e) => Err(io_error("cannot look at the lock file", p, e)),
        };
        cleanup::unregister(Slot::Lock);
        r
    }
}

/// The lock file `p` was `how` (removed, replaced) during the run.
fn used_meanwhile(p: &Path, how: &str) -> Error {
    Error::DataDir(format!(
        "the lock file {} was {how} during the run: another program used the data directory at \
         the same time, so its files may not have been this run's alone",
        p.display()
    ))
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        // an error path: the run's own error is reported; a lock that cannot be
        // removed is named too
        if let Err(Error::DataDir(m)) = self.remove_if_ours() {
            if m.starts_with("cannot remove") {
                let line = format!("h5perf: {m}\n");
                let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::file_name_part;

    #[test]
    fn host_names_become_one_file_name_component() {
        assert_eq!(file_name_part("node1"), "node1");
        assert_eq!(file_name_part("a/b/../c"), "a_b_.._c");
        assert_eq!(file_name_part("x\0y"), "x_y");
    }
}
