//! Files to remove however the process ends: a small registry of paths (the `-o`
//! report's temporary file, the data file in use, a `--fill-behaviour` scratch file, the
//! data directory's lock) that
//!
//! * the signal handlers ([`super::signals`]) unlink, async-signal-safely, when the
//!   process is interrupted or crashes;
//! * a helper process, the *reaper* ([`start_reaper`], world rank 0 of the `h5perf`
//!   program only), unlinks when this process ends without having removed them — also
//!   when no handler can run: `SIGKILL` (MPICH's hydra sends `SIGTERM` and `SIGKILL` back
//!   to back), or an `_exit` inside the MPI library (Open MPI's ranks when `mpiexec` dies,
//!   e.g. under `timeout`).
//!
//! The engine records a file with [`register`] before creating it and forgets it with
//! [`unregister`] once it is removed or to be kept; both happen outside the timers. The
//! reaper learns each change over a socket; it removes what is still registered when
//! that socket reaches end of file, i.e. when this process is gone, however it ended.
//! It leaves the launcher's process group and session (`setsid`), so a launcher that
//! kills the rank's process group does not kill it; it keeps the rank's standard error
//! open, so the launcher waits for it (it prints there what it removed) and it holds
//! nothing else. A cgroup-wide kill (a batch system) or a node crash kills it too: then
//! the next run in the directory finds the leftovers through the lock
//! (`datadir::lock`).

use std::ffi::{c_char, c_int, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// Longest path recorded (bytes, including the terminating NUL).
pub const PATH_MAX_BYTES: usize = 4096;

/// What a registered file is; files are removed in this order (the lock last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The `-o` report's temporary file until it is renamed over the report (the rank
    /// that created it); first, as the smallest: a launcher may follow SIGTERM with
    /// SIGKILL soon.
    Report,
    /// The data file in use (recorded on every rank).
    Data,
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
        Slot::Data,
        Slot::Scratch,
        Slot::Aside,
        Slot::Lock,
    ];

    fn index(self) -> usize {
        self as usize
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
const SLOTS: usize = 5;

static ENTRIES: [Entry; SLOTS] = [const { Entry::new() }; SLOTS];

/// The socket to the reaper (-1: none).
static REAPER: AtomicI32 = AtomicI32::new(-1);

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

/// Forget the file of `slot` (it was removed, or is to be kept).
pub fn unregister(slot: Slot) {
    ENTRIES[slot.index()].armed.store(false, Ordering::SeqCst);
    tell_reaper(b'C', slot, &[]);
}

/// Whether this process has a reaper (world rank 0 of the program).
pub fn reaper_running() -> bool {
    REAPER.load(Ordering::SeqCst) >= 0
}

/// Unlink every registered file, in slot order, and forget it. Async-signal-safe (only
/// atomics, `unlink` and `write`): for the signal handlers. A file that cannot be
/// removed is named on stderr with its `errno`, unless the reaper will try again (and
/// name it with the reason).
pub(super) fn remove_all_in_handler() {
    let report = !reaper_running();
    for slot in Slot::ALL {
        let e = &ENTRIES[slot.index()];
        if !e.armed.swap(false, Ordering::SeqCst) {
            continue;
        }
        // AtomicU8 has the layout of u8; the path is NUL-terminated and unchanged while
        // armed (only the main thread writes it, after disarming).
        let p = e.path.as_ptr() as *const c_char;
        // SAFETY: p points at a NUL-terminated byte string in a static.
        let failed = unsafe { libc::unlink(p) } != 0;
        if failed && report {
            // SAFETY: errno of this thread.
            let err = unsafe { *libc::__errno_location() };
            if err != libc::ENOENT {
                let n = e.len.load(Ordering::SeqCst).min(PATH_MAX_BYTES - 1);
                write_stderr(b"h5perf: cannot remove ");
                // SAFETY: n bytes of the static path.
                unsafe { libc::write(2, p.cast(), n) };
                write_stderr(b" (errno ");
                let mut digits = [0u8; 12];
                write_stderr(decimal(err.unsigned_abs(), &mut digits));
                write_stderr(b")\n");
            }
        }
    }
}

/// `write(2, b)`, async-signal-safe; errors ignored.
fn write_stderr(b: &[u8]) {
    // SAFETY: b is a valid buffer of b.len() bytes.
    unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
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
    let fd = REAPER.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    let mut msg = Vec::with_capacity(6 + path.len());
    msg.push(op);
    msg.push(slot.index() as u8);
    msg.extend_from_slice(&(path.len() as u32).to_le_bytes());
    msg.extend_from_slice(path);
    let mut sent = 0;
    while sent < msg.len() {
        // SAFETY: the range is inside msg; MSG_NOSIGNAL: no SIGPIPE if the reaper is gone.
        let n = unsafe {
            libc::send(
                fd,
                msg[sent..].as_ptr().cast(),
                msg.len() - sent,
                libc::MSG_NOSIGNAL,
            )
        };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            REAPER.store(-1, Ordering::SeqCst);
            // SAFETY: fd is the reaper socket, no longer used.
            unsafe { libc::close(fd) };
            return;
        }
        sent += n as usize;
    }
}

/// Start the reaper: a child process that removes the files still registered when this
/// process ends (see the module documentation). Call once, before `MPI_Init`, while the
/// process has a single thread (the child then runs ordinary code).
///
/// Errors: `socketpair` or `fork` failed (nothing started).
pub fn start_reaper() -> Result<()> {
    let posix = |call| Error::Posix {
        call,
        errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
        path: None,
    };
    let mut fds: [c_int; 2] = [-1; 2];
    // SAFETY: fds has room for the two descriptors.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(posix("socketpair"));
    }
    // SAFETY: the process has one thread (before MPI_Init): the child may run any code.
    match unsafe { libc::fork() } {
        -1 => {
            let e = posix("fork");
            // SAFETY: our two descriptors.
            unsafe {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            Err(e)
        }
        0 => reaper_child(fds[1], fds[0]),
        _ => {
            // SAFETY: the child's end, not used here.
            unsafe { libc::close(fds[1]) };
            REAPER.store(fds[0], Ordering::SeqCst);
            Ok(())
        }
    }
}

/// The reaper's set-up and life: leave the session, take a name of its own, ignore the
/// signals a launcher or a terminal sends, keep only standard error and its socket,
/// wait for the end of the parent, remove what it left, exit.
fn reaper_child(sock: c_int, parent_end: c_int) -> ! {
    let mut sock = sock;
    // SAFETY: plain system calls on this process's own descriptors and settings.
    unsafe {
        libc::close(parent_end);
        if sock < 3 {
            // a process started with standard streams closed: keep the socket clear of 0-2
            sock = libc::fcntl(sock, libc::F_DUPFD, 3);
        }
        libc::setsid();
        libc::prctl(libc::PR_SET_NAME, c"h5perf-cleanup".as_ptr());
        for s in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
            libc::SIGUSR1,
            libc::SIGUSR2,
        ] {
            libc::signal(s, libc::SIG_IGN);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
        }
        // everything else inherited (launcher sockets, PMI descriptors) is closed
        if sock > 3 {
            libc::close_range(3, (sock - 1) as u32, 0);
        }
        libc::close_range(sock as u32 + 1, u32::MAX, 0);
    }
    let parent = std::os::unix::process::parent_id();
    let left = wait_for_parent(sock);
    for path in left.iter().flatten() {
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
    // SAFETY: leave without running the parent's exit handlers.
    unsafe { libc::_exit(0) }
}

/// Read the parent's messages until end of file; return what is registered then.
fn wait_for_parent(sock: c_int) -> [Option<Vec<u8>>; SLOTS] {
    let mut slots: [Option<Vec<u8>>; SLOTS] = Default::default();
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        // SAFETY: chunk is a valid buffer of its length.
        let n = unsafe { libc::read(sock, chunk.as_mut_ptr().cast(), chunk.len()) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return slots;
        }
        pending.extend_from_slice(&chunk[..n as usize]);
        while pending.len() >= 6 {
            let len = u32::from_le_bytes([pending[2], pending[3], pending[4], pending[5]]) as usize;
            if pending.len() < 6 + len {
                break;
            }
            let (op, slot) = (pending[0], pending[1] as usize);
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
