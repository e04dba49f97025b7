//! This process's identity and other processes' existence: the effective user ID and
//! `kill(pid, 0)`; a detached helper process ([`fork_helper`]) and the calls it needs
//! (a send that raises no `SIGPIPE`, `_exit`).

use std::ffi::CStr;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

use crate::error::{Error, Result};

/// The effective user ID of this process (`geteuid`).
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether a process `pid` exists on this host (`kill(pid, 0)`: success or `EPERM` mean it exists,
/// `ESRCH` that it does not).
pub fn process_exists(pid: u32) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok().filter(|&p| p > 0)?;
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return Some(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EPERM) => Some(true),
        Some(libc::ESRCH) => Some(false),
        _ => None,
    }
}

/// Start a helper process that outlives this one's launcher: `socketpair` and `fork`.
///
/// Errors: [`Error::Posix`] when `socketpair` or `fork` fails (nothing started).
pub fn fork_helper(name: &CStr, child: fn(UnixStream) -> !) -> Result<UnixStream> {
    let posix = |call| Error::Posix {
        call,
        errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(0),
        path: None,
    };
    let (parent_end, child_end) = UnixStream::pair().map_err(|_| posix("socketpair"))?;
    // SAFETY: the caller guarantees a single thread: the child may run any code.
    match unsafe { libc::fork() } {
        -1 => Err(posix("fork")),
        0 => {
            drop(parent_end);
            let sock = match child_end.as_raw_fd() {
                0..=2 => child_end.try_clone().unwrap_or(child_end),
                _ => child_end,
            };
            let fd = sock.as_raw_fd();
            // SAFETY: plain system calls on this process's own descriptors and settings.
            unsafe {
                libc::setsid();
                libc::prctl(libc::PR_SET_NAME, name.as_ptr());
                use libc::{SIGHUP, SIGINT, SIGPIPE, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
                for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2] {
                    libc::signal(s, libc::SIG_IGN);
                }
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                if null >= 0 {
                    libc::dup2(null, 0);
                    libc::dup2(null, 1);
                }
                #[allow(clippy::cast_sign_loss)]
                let fd = fd as u32;
                if fd > 3 {
                    libc::close_range(3, fd - 1, 0);
                }
                libc::close_range(fd + 1, u32::MAX, 0);
            }
            child(sock)
        }
        _ => Ok(parent_end),
    }
}

/// Send all of `msg` on `sock` (`send` with `MSG_NOSIGNAL`: a peer that is gone gives
/// `EPIPE`, not a `SIGPIPE`), again after `EINTR`.
///
/// Errors: the `send` error.
pub fn send_all(sock: &UnixStream, msg: &[u8]) -> std::io::Result<()> {
    let mut sent = 0;
    while sent < msg.len() {
        // SAFETY: the range is inside msg; a live socket.
        let n = unsafe {
            libc::send(
                sock.as_raw_fd(),
                msg[sent..].as_ptr().cast(),
                msg.len() - sent,
                libc::MSG_NOSIGNAL,
            )
        };
        match usize::try_from(n) {
            Ok(n) => sent += n,
            Err(_) => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// End this process at once with `status` (`_exit`: no exit handlers, no flushing).
pub fn exit_now(status: i32) -> ! {
    // SAFETY: _exit never returns and needs nothing.
    unsafe { libc::_exit(status) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes() {
        assert_eq!(process_exists(std::process::id()), Some(true));
        assert_eq!(process_exists(0), None);
        assert_eq!(process_exists(u32::MAX), None);
        // pid_max is at most 4194304 (2^22)
        assert_eq!(process_exists(4_194_305), Some(false));
        let _ = euid();
    }
}
