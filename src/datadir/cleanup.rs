//! Files to remove however the process ends: a registry of paths ([`register`],
//! [`register_list`], [`unregister`]) unlinked by the signal handlers
//! ([`install_handlers`]) and by the reaper ([`start_reaper`]), a helper process that
//! outlives this one (`setsid`) and removes what is still registered when its socket
//! reaches end of file.

use std::ffi::{CStr, CString, OsStr};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::Result;
use crate::ffi::{process, signals};

/// Longest path recorded (bytes, including the terminating NUL).
pub const PATH_MAX_BYTES: usize = 4096;

/// What a registered file is; files are removed in this order (the lock last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Slot {
    /// The `-o` report's temporary file; first, as a launcher may follow SIGTERM with
    /// SIGKILL soon.
    Report,
    /// The temporary file of a results document being replaced (`--json`, `--csv`,
    /// `--rank-csv`, `--html`; rank 0), `.NAME.h5perf-tmp.PID`.
    Document,
    /// The data file in use (recorded on every rank).
    Data,
    /// `--subfiling`: the subfiles and the configuration file of the data file in use,
    /// which the subfiling driver names after the file's inode (recorded by the rank
    /// that removes the file, once the file is open; [`register_list`]).
    Subfiles,
    /// A `--fill-behaviour` scratch file (rank 0).
    Scratch,
    /// A stale lock moved aside while its lock is taken over (rank 0).
    Aside,
    /// The data directory's lock, or the file it is made from (rank 0).
    Lock,
}

impl Slot {
    /// Every slot, in removal order.
    const ALL: [Slot; SLOTS] = [
        Slot::Report,
        Slot::Document,
        Slot::Data,
        Slot::Subfiles,
        Slot::Scratch,
        Slot::Aside,
        Slot::Lock,
    ];

    fn index(self) -> usize {
        usize::from(self as u8)
    }
}

/// One registered path: NUL-terminated bytes, valid while `armed`.
struct Entry {
    armed: AtomicBool,
    len: AtomicUsize,
    path: [AtomicU8; PATH_MAX_BYTES],
}

impl Entry {
    const fn new() -> Entry {
        Entry {
            armed: AtomicBool::new(false),
            len: AtomicUsize::new(0),
            path: [const { AtomicU8::new(0) }; PATH_MAX_BYTES],
        }
    }
}

/// The number of slots.
const SLOTS: usize = 7;

/// The single paths, one per slot ([`Slot::Subfiles`]'s entry stays unused).
static ENTRIES: [Entry; SLOTS] = [const { Entry::new() }; SLOTS];

/// The paths of [`Slot::Subfiles`], made before they are registered.
static LIST: signals::PathList = signals::PathList::new();

/// The socket to the reaper (`None`: none), and whether there is one (read by the
/// signal handlers, which cannot take the lock).
static REAPER: Mutex<Option<UnixStream>> = Mutex::new(None);
static REAPING: AtomicBool = AtomicBool::new(false);

/// Record `path` in `slot` (replacing what was there): removed by the signal handlers
/// and the reaper unless [`unregister`]ed first. Returns false (nothing recorded) for
/// a path of 4096 bytes or more or one with a NUL byte.
pub fn register(slot: Slot, path: impl AsRef<OsStr>) -> bool {
    let e = &ENTRIES[slot.index()];
    e.armed.store(false, Ordering::SeqCst);
    let b = path.as_ref().as_bytes();
    if b.len() >= PATH_MAX_BYTES || b.contains(&0) {
        tell_reaper(b'C', slot, &[]);
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        e.path[i].store(c, Ordering::Relaxed);
    }
    e.path[b.len()].store(0, Ordering::Relaxed);
    e.len.store(b.len(), Ordering::SeqCst);
    e.armed.store(true, Ordering::SeqCst);
    tell_reaper(b'S', slot, b);
    true
}

/// Record `paths` as the files of [`Slot::Subfiles`] (replacing what was there),
/// removed in this order by the signal handlers and the reaper unless [`unregister`]ed
/// first: the C strings are made here, so a handler only reads them and calls `unlink`.
/// Returns false (nothing recorded) when a path holds a NUL byte.
pub fn register_list(paths: &[impl AsRef<OsStr>]) -> bool {
    LIST.clear();
    let Ok(list) = paths
        .iter()
        .map(|p| CString::new(p.as_ref().as_bytes()))
        .collect::<std::result::Result<Vec<CString>, _>>()
    else {
        tell_reaper(b'C', Slot::Subfiles, &[]);
        return false;
    };
    // to the reaper as one message: the paths separated by NUL bytes
    let joined = list
        .iter()
        .map(|c| c.to_bytes())
        .collect::<Vec<_>>()
        .join(&0u8);
    LIST.set(list);
    tell_reaper(b'S', Slot::Subfiles, &joined);
    true
}

/// Forget the file of `slot` (it was removed, or is to be kept).
pub fn unregister(slot: Slot) {
    if slot == Slot::Subfiles {
        LIST.clear();
    } else {
        ENTRIES[slot.index()].armed.store(false, Ordering::SeqCst);
    }
    tell_reaper(b'C', slot, &[]);
}

/// Whether this process has a reaper (world rank 0 of the program).
pub fn reaper_running() -> bool {
    REAPING.load(Ordering::SeqCst)
}

/// Record `path`, the `-o` report's temporary file, to remove if the process is
/// interrupted or crashes. Paths of 4096 bytes or more are not recorded.
pub fn set_pending_report(path: impl AsRef<OsStr>) {
    register(Slot::Report, path);
}

/// Forget the report's temporary file (renamed over the report, or removed).
pub fn clear_pending_report() {
    unregister(Slot::Report);
}

/// Install the signal handlers that remove every registered file
/// ([`signals::install`]). Nothing is registered for the data files when
/// `HDF5_NOCLEANUP` is set.
pub fn install_handlers() {
    signals::install(remove_all_in_handler);
}

/// Remove every registered file now (a rank about to abort the job: a panic), as the
/// signal handlers do; a file that cannot be removed is named on stderr.
pub fn remove_registered() {
    remove_all_in_handler();
}

/// Unlink every registered file, in slot order, and forget it. Async-signal-safe (only
/// atomics, `unlink` and `write`): for the signal handlers. A file that cannot be
/// removed is named on stderr with its `errno`, unless the reaper will try again (and
/// name it with the reason).
fn remove_all_in_handler() {
    let report = !reaper_running();
    for slot in Slot::ALL {
        if slot == Slot::Subfiles {
            for path in LIST.take_in_handler() {
                unlink_in_handler(path, report);
            }
            continue;
        }
        let e = &ENTRIES[slot.index()];
        if !e.armed.swap(false, Ordering::SeqCst) {
            continue;
        }
        // the path is NUL-terminated and unchanged while armed (only the main thread
        // writes it, after disarming)
        let mut buf = [0u8; PATH_MAX_BYTES];
        for (b, a) in buf.iter_mut().zip(&e.path) {
            *b = a.load(Ordering::Relaxed);
        }
        let Ok(path) = CStr::from_bytes_until_nul(&buf) else {
            continue;
        };
        unlink_in_handler(path, report);
    }
}

/// `unlink(path)`, and with `report` a failure other than `ENOENT` named on stderr
/// with its `errno`. Async-signal-safe.
fn unlink_in_handler(path: &CStr, report: bool) {
    match signals::unlink(path) {
        Err(err) if report && err != libc::ENOENT => {
            signals::write_stderr(b"h5perf: cannot remove ");
            signals::write_stderr(path.to_bytes());
            signals::write_stderr(b" (errno ");
            let mut digits = [0u8; 12];
            signals::write_stderr(decimal(err.unsigned_abs(), &mut digits));
            signals::write_stderr(b")\n");
        }
        _ => {}
    }
}

/// `v` in decimal, in `buf`, without allocating.
fn decimal(mut v: u32, buf: &mut [u8; 12]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[i..];
        }
    }
}

/// One message to the reaper: `op` (`S` set, `C` clear), the slot, the path's length
/// (4 bytes, little-endian) and the path. A reaper that is gone is forgotten.
fn tell_reaper(op: u8, slot: Slot, path: &[u8]) {
    let mut reaper = REAPER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(sock) = reaper.as_ref() else {
        return;
    };
    let mut msg = Vec::with_capacity(6 + path.len());
    msg.push(op);
    msg.push(slot as u8);
    // a path shorter than PATH_MAX_BYTES (register)
    #[allow(clippy::cast_possible_truncation)]
    msg.extend_from_slice(&(path.len() as u32).to_le_bytes());
    msg.extend_from_slice(path);
    if process::send_all(sock, &msg).is_err() {
        REAPING.store(false, Ordering::SeqCst);
        *reaper = None;
    }
}

/// Start the reaper ([`process::fork_helper`]). Call once, before `MPI_Init`, while
/// the process has a single thread.
///
/// Errors: `socketpair` or `fork` failed (nothing started).
pub fn start_reaper() -> Result<()> {
    let sock = process::fork_helper(c"h5perf-cleanup", reaper)?;
    *REAPER.lock().unwrap_or_else(|p| p.into_inner()) = Some(sock);
    REAPING.store(true, Ordering::SeqCst);
    Ok(())
}

/// The reaper's life: wait for the end of the parent, remove what it left, exit.
fn reaper(sock: UnixStream) -> ! {
    let parent = std::os::unix::process::parent_id();
    let left = wait_for_parent(sock);
    // a slot holds one path, or several separated by NUL bytes (register_list)
    let paths = left.iter().flatten().flat_map(|p| p.split(|&b| b == 0));
    for path in paths.filter(|p| !p.is_empty()) {
        let p = std::path::Path::new(OsStr::from_bytes(path));
        let line = match std::fs::remove_file(p) {
            Ok(()) => format!(
                "h5perf: rank 0 (process {parent}) ended without removing {}; removed it\n",
                p.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => format!(
                "h5perf: rank 0 (process {parent}) ended without removing {}, which cannot be removed: {e}\n",
                p.display()
            ),
        };
        // not eprintln!, which panics when the launcher reading stderr is gone (EPIPE)
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
    // leave without running the parent's exit handlers
    process::exit_now(0)
}

/// Read the parent's messages until end of file; return what is registered then.
fn wait_for_parent(mut sock: UnixStream) -> [Option<Vec<u8>>; SLOTS] {
    let mut slots: [Option<Vec<u8>>; SLOTS] = Default::default();
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = match sock.read(&mut chunk) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => return slots,
            Ok(n) => n,
        };
        pending.extend_from_slice(&chunk[..n]);
        while pending.len() >= 6 {
            let len = u32::from_le_bytes([pending[2], pending[3], pending[4], pending[5]]) as usize;
            if pending.len() < 6 + len {
                break;
            }
            let (op, slot) = (pending[0], usize::from(pending[1]));
            if let Some(s) = slots.get_mut(slot) {
                *s = (op == b'S').then(|| pending[6..6 + len].to_vec());
            }
            pending.drain(..6 + len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        let mut b = [0u8; 12];
        assert_eq!(decimal(0, &mut b), b"0");
        assert_eq!(decimal(13, &mut b), b"13");
        assert_eq!(decimal(u32::MAX, &mut b), b"4294967295");
    }

    #[test]
    fn registry_refuses_what_cannot_be_recorded() {
        assert!(!register(Slot::Scratch, "a\0b"));
        assert!(!register(Slot::Scratch, "x".repeat(PATH_MAX_BYTES)));
        assert!(!ENTRIES[Slot::Scratch.index()].armed.load(Ordering::SeqCst));
        assert!(register(Slot::Scratch, "/nonexistent/h5perf-test"));
        assert!(ENTRIES[Slot::Scratch.index()].armed.load(Ordering::SeqCst));
        unregister(Slot::Scratch);
        assert!(!ENTRIES[Slot::Scratch.index()].armed.load(Ordering::SeqCst));
    }
}
