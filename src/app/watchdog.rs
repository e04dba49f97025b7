//! `--timeout SECONDS` (issue 35): a run that takes longer ends on every rank.
//!
//! Each rank starts a watchdog thread when the run starts; the main thread never waits
//! for it and makes no call for it but two atomic stores at stage boundaries
//! ([`crate::terms::doing`], outside every timer). At the deadline the watchdog prints
//! `h5perf: rank R: --timeout of S s exceeded in STAGE (P processes, transfer size X)`
//! and ends its process with SIGTERM, whose handlers remove the rank's files: the
//! launcher then ends the job with a non-zero status. A rank that is stalled (stopped,
//! or waiting for a device) prints nothing at the deadline: the ranks without such a
//! line are the ones that had not arrived, and the stage named by the others is where
//! they waited. If such a rank runs again before it is killed (Open MPI sends SIGCONT
//! before SIGTERM), its watchdog (which wakes every half second) has seen the gap and says
//! so: `stalled past the --timeout ... this rank had not arrived`. The
//! results files hold what the finished steps wrote, marked `"complete": false`.
//! MPI is not called from the watchdog thread (the MPI library is initialised for
//! one thread). Without `--timeout` no thread is started.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::ffi::signals::{terminate_self, write_stderr};
use crate::terms::doing;

/// The watchdog of one rank; stopped (and joined) on drop.
pub struct Watchdog {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    /// Start the watchdog of rank `rank` for `seconds` from now.
    ///
    /// Errors: the thread cannot be started (`std::thread::Builder::spawn`).
    pub fn start(rank: u32, seconds: u64) -> std::io::Result<Watchdog> {
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let thread = std::thread::Builder::new()
            .name("h5perf-timeout".into())
            .spawn(move || {
                // woken every TICK: a longer gap means the process was stopped
                let mut stalled = Duration::ZERO;
                let mut last = Instant::now();
                loop {
                    if seen.load(Ordering::SeqCst) {
                        return;
                    }
                    let now = Instant::now();
                    let gap = now.saturating_duration_since(last);
                    if gap >= STALLED {
                        stalled = stalled.max(gap);
                    }
                    last = now;
                    if now >= deadline {
                        break;
                    }
                    std::thread::park_timeout((deadline - now).min(TICK));
                }
                write_stderr(message(rank, seconds, stalled).as_bytes());
                terminate_self();
            })?;
        Ok(Watchdog {
            done,
            thread: Some(thread),
        })
    }
}

/// How often the watchdog wakes before the deadline.
const TICK: Duration = Duration::from_millis(500);

/// A gap between two wakes of at least this means the process was stopped (SIGSTOP, a
/// frozen node) or not run at all for that long: its rank is one that had not arrived.
const STALLED: Duration = Duration::from_secs(2);

/// The line a rank prints at the deadline; `stalled`: the longest time the process
/// was not run (zero: it always ran).
pub fn message(rank: u32, seconds: u64, stalled: Duration) -> String {
    let (stage, procs, xfer) = doing::now();
    let step = if procs > 0 {
        format!(" ({procs} process(es), transfer size {xfer})")
    } else {
        String::new()
    };
    if stalled >= STALLED {
        return format!(
            "h5perf: rank {rank}: stalled past the --timeout of {seconds} s (not run for {} \
             s) in {}{step}: this rank had not arrived; ending it\n",
            stalled.as_secs(),
            stage.words()
        );
    }
    format!(
        "h5perf: rank {rank}: --timeout of {seconds} s exceeded in {}{step}: ending this \
         rank; a rank without this line had not arrived there\n",
        stage.words()
    )
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_time_and_late_lines() {
        let on_time = message(3, 10, Duration::from_millis(5));
        assert!(on_time.starts_with("h5perf: rank 3: --timeout of 10 s exceeded in "));
        assert!(on_time.ends_with("had not arrived there\n"), "{on_time}");
        let late = message(1, 10, Duration::from_secs(7));
        assert!(
            late.starts_with(
                "h5perf: rank 1: stalled past the --timeout of 10 s (not run for 7 s) in "
            ),
            "{late}"
        );
        assert_eq!(late.lines().count(), 1);
    }
}
