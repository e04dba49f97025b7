//! Signal handling: a hook (the data directory's clean-up registry, `crate::datadir::cleanup`) runs
//! when the job is interrupted (SIGINT, SIGTERM, SIGHUP) or crashes (SIGSEGV, SIGBUS, SIGFPE,
//! SIGABRT); SIGXFSZ is ignored, so an oversized `write` fails with `EFBIG`; [`unlink`] and
//! [`write_stderr`] are the async-signal-safe calls such a hook may make.

use std::ffi::{c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// `unlink(path)`, async-signal-safe: the `errno` of a failure.
pub fn unlink(path: &CStr) -> std::result::Result<(), i32> {
    // SAFETY: a NUL-terminated string.
    if unsafe { libc::unlink(path.as_ptr()) } == 0 {
        return Ok(());
    }
    // SAFETY: errno of this thread.
    Err(unsafe { *libc::__errno_location() })
}

/// `write(2, b)`, async-signal-safe; errors ignored.
pub fn write_stderr(b: &[u8]) {
    // SAFETY: b is a valid buffer of b.len() bytes.
    unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
}

/// The bytes written to `fd` that its reader has not taken yet: a pipe's unread bytes
/// (`FIONREAD`), a terminal's or socket's unsent output (`TIOCOUTQ`, the same request as
/// `SIOCOUTQ`); 0 for anything else (a regular file has nothing in flight) and on an error.
fn untaken(fd: c_int) -> usize {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: an out-pointer to a local stat.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: fstat succeeded and filled it in.
    let mode = unsafe { st.assume_init() }.st_mode & libc::S_IFMT;
    let request = match mode {
        libc::S_IFIFO => libc::FIONREAD,
        libc::S_IFCHR | libc::S_IFSOCK => libc::TIOCOUTQ,
        _ => return 0,
    };
    let mut n: c_int = 0;
    // SAFETY: both requests write one int to the pointer given.
    if unsafe { libc::ioctl(fd, request, &mut n as *mut c_int) } != 0 {
        return 0;
    }
    usize::try_from(n).unwrap_or(0)
}

/// Wait, at most `limit`, until the readers of standard output and standard error (a
/// launcher forwarding a rank's output) have taken every byte written to them. A message
/// written just before `MPI_Abort` is otherwise lost when the launcher ends the job
/// before it has read it: MPICH's hydra dropped a panicking rank's message in 6 of 30
/// runs on 2 busy cores. Polls every millisecond; `nanosleep` and `ioctl` only.
pub fn wait_output_taken(limit: std::time::Duration) {
    let tick = libc::timespec {
        tv_sec: 0,
        tv_nsec: 1_000_000,
    };
    let ticks = limit.as_millis();
    let mut waited = 0;
    while waited < ticks && (untaken(1) > 0 || untaken(2) > 0) {
        // SAFETY: a valid timespec; the remainder is not wanted.
        unsafe { libc::nanosleep(&tick, std::ptr::null_mut()) };
        waited += 1;
    }
}

/// A list of paths a signal handler may read without allocating or locking: made (and
/// replaced, and freed) by the program, taken whole by a handler with one atomic swap.
/// Whoever takes the list owns it: the program frees it, a handler only reads it (the
/// process is ending; freeing is not async-signal-safe), so no list is freed while a
/// handler reads it.
pub struct PathList {
    list: AtomicPtr<Vec<CString>>,
}

impl PathList {
    /// An empty list.
    pub const fn new() -> PathList {
        PathList {
            list: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Hold `paths` (the list held before is freed).
    pub fn set(&self, paths: Vec<CString>) {
        let old = self
            .list
            .swap(Box::into_raw(Box::new(paths)), Ordering::SeqCst);
        Self::free(old);
    }

    /// Hold nothing (the list held before is freed).
    pub fn clear(&self) {
        Self::free(self.list.swap(std::ptr::null_mut(), Ordering::SeqCst));
    }

    fn free(old: *mut Vec<CString>) {
        if !old.is_null() {
            // SAFETY: made by Box::into_raw in set; the swap that returned it made it
            // ours alone.
            drop(unsafe { Box::from_raw(old) });
        }
    }

    /// Take the list out (empty when none is held), for a signal handler or a process
    /// about to end: async-signal-safe (one atomic swap); the list is never freed.
    pub fn take_in_handler(&self) -> &'static [CString] {
        let p = self.list.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: a list made by Box::into_raw in set, or null; the swap made it ours
        // alone and it is never freed, so the reference stays valid.
        unsafe { p.as_ref() }.map_or(&[], Vec::as_slice)
    }
}

impl Default for PathList {
    fn default() -> PathList {
        PathList::new()
    }
}

/// The hook the handlers run, set once by [`install`] (reading it takes one atomic
/// load: async-signal-safe).
static HOOK: OnceLock<fn()> = OnceLock::new();

fn run_hook() {
    if let Some(hook) = HOOK.get() {
        hook();
    }
}

/// Signals that end the job on request: removed, default action, re-raised.
const STOPS: [c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
/// Signals of a crash: removed, the previous handler called, default, re-raised.
const CRASHES: [c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGABRT];

/// The actions installed before ours for [`CRASHES`], in that order.
static mut PREVIOUS: [Option<libc::sigaction>; 4] = [None; 4];

extern "C" fn on_stop(sig: c_int) {
    run_hook();
    // SAFETY: signal and raise are async-signal-safe; restore the default and die of it.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

extern "C" fn on_crash(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    run_hook();
    let i = CRASHES.iter().position(|&s| s == sig);
    // SAFETY: PREVIOUS is written before this handler is installed and never after.
    let prev = i.and_then(|i| unsafe { (*std::ptr::addr_of!(PREVIOUS))[i] });
    if let Some(prev) = prev {
        let h = prev.sa_sigaction;
        if h != libc::SIG_DFL && h != libc::SIG_IGN {
            // SAFETY: h is the previous handler, called with the arguments its flags ask for.
            unsafe {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                        std::mem::transmute(h);
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(c_int) = std::mem::transmute(h);
                    f(sig);
                }
            }
        }
    }
    // SAFETY: async-signal-safe calls.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// A signal mask holding every signal handled here (blocked while a handler runs).
fn handled_mask() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill the set.
    unsafe {
        let mut m: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut m);
        for s in STOPS.iter().chain(CRASHES.iter()) {
            libc::sigaddset(&mut m, *s);
        }
        m
    }
}

/// Whether [`install`] has installed the handlers (the program; not the C API).
pub fn installed() -> bool {
    HOOK.get().is_some()
}

/// Install the handlers, which run `hook` (async-signal-safe), and ignore SIGXFSZ.
pub fn install(hook: fn()) {
    if HOOK.set(hook).is_err() {
        return;
    }
    let mask = handled_mask();
    for sig in STOPS {
        // SAFETY: a zeroed sigaction with a plain handler and a valid mask.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_stop as extern "C" fn(c_int) as usize;
            sa.sa_mask = mask;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    for (i, sig) in CRASHES.into_iter().enumerate() {
        // SAFETY: PREVIOUS is written before our handler for `sig` exists; structs are valid.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0 {
                (*std::ptr::addr_of_mut!(PREVIOUS))[i] = Some(old);
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction =
                on_crash as extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            sa.sa_mask = mask;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    // SAFETY: ignoring SIGXFSZ makes oversized writes fail with EFBIG instead.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

/// End this process with SIGTERM, as the launcher or `timeout` would: the handlers
/// installed by [`install`] remove the registered files, then the process dies of it.
pub fn terminate_self() {
    // SAFETY: raise has no preconditions.
    unsafe { libc::raise(libc::SIGTERM) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_list_is_taken_whole_once() {
        let l = PathList::new();
        assert!(l.take_in_handler().is_empty());
        l.set(vec![c"/a".into(), c"/b".into()]);
        l.set(vec![c"/c".into(), c"/d".into()]); // the first list is freed
        let taken = l.take_in_handler();
        assert_eq!(taken, [CString::from(c"/c"), CString::from(c"/d")]);
        assert!(l.take_in_handler().is_empty());
        l.set(vec![c"/e".into()]);
        l.clear();
        assert!(l.take_in_handler().is_empty());
    }
}
