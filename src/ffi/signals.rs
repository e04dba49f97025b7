//! Signal handling: remove the data file being written when the job is interrupted
//! (SIGINT, SIGTERM, SIGHUP), and turn "file too large" into an error value instead of
//! a fatal signal (SIGXFSZ ignored, so `write` fails with `EFBIG`).
//!
//! The engine records the data file in use with [`set_current`] (outside the timers);
//! the handler, async-signal-safe, unlinks it, restores the default action and
//! re-raises the signal, so the process still dies of that signal. Nothing is
//! recorded when `HDF5_NOCLEANUP` is set.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// Longest path recorded (bytes, including the terminating NUL).
const MAX: usize = 4096;

static ARMED: AtomicBool = AtomicBool::new(false);
static LEN: AtomicUsize = AtomicUsize::new(0);
static PATH: [AtomicU8; MAX] = [const { AtomicU8::new(0) }; MAX];

/// Record `path` as the data file to remove on SIGINT/SIGTERM/SIGHUP (replacing any
/// previous one). Paths of 4096 bytes or more are not recorded.
pub fn set_current(path: &str) {
    ARMED.store(false, Ordering::SeqCst);
    let b = path.as_bytes();
    if b.len() >= MAX || b.contains(&0) {
        return;
    }
    for (i, &c) in b.iter().enumerate() {
        PATH[i].store(c, Ordering::Relaxed);
    }
    PATH[b.len()].store(0, Ordering::Relaxed);
    LEN.store(b.len(), Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
}

/// Forget the recorded data file (it was removed, or is to be kept).
pub fn clear_current() {
    ARMED.store(false, Ordering::SeqCst);
}

extern "C" fn on_signal(sig: libc::c_int) {
    if ARMED.swap(false, Ordering::SeqCst) {
        let n = LEN.load(Ordering::SeqCst).min(MAX - 1);
        let mut buf = [0u8; MAX];
        for (i, slot) in buf.iter_mut().enumerate().take(n) {
            *slot = PATH[i].load(Ordering::Relaxed);
        }
        // SAFETY: buf is NUL-terminated (buf[n] == 0); unlink is async-signal-safe.
        unsafe {
            libc::unlink(buf.as_ptr() as *const libc::c_char);
        }
    }
    // SAFETY: signal and raise are async-signal-safe; restore the default and die of it.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Install the handlers for SIGINT, SIGTERM and SIGHUP and ignore SIGXFSZ. Call once,
/// after `MPI_Init` (so that ours replace any the MPI library installed for these).
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a plain handler and an empty mask is valid.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    // SAFETY: ignoring SIGXFSZ makes oversized writes fail with EFBIG instead.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
