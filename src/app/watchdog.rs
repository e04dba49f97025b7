//! `--timeout SECONDS` (issue 35): a run that takes longer ends on every rank, with one
//! message that names the ranks that had not arrived.
//!
//! Each rank starts a watchdog thread when the run starts; the main thread never waits
//! for it and makes no call for it but two atomic stores at stage boundaries
//! ([`crate::terms::doing`], outside every timer). MPI is not called from the watchdog
//! thread (the MPI library is initialised for one thread), so at the deadline the ranks
//! meet in the data directory, which every rank of an MPI-IO run shares: each rank still
//! running writes `#h5perf-timeout.R` (its stage and step), waits up to [`GRACE`] for
//! the others' files, and the lowest rank with a file prints one line,
//! `h5perf: --timeout of S s exceeded: rank 1 (host H) had not arrived (...); rank 0 waited
//! in STAGE (P process(es), transfer size X); ending the job`, removes the files and ends
//! its process with SIGTERM, whose handlers remove the rank's data files; the others end
//! after it (when it has removed their files, or after [`GRACE`] more, when they print
//! the line themselves). A rank with no file was not run at the deadline (stopped, a
//! frozen node): it had not arrived. If such a rank runs again before it is killed (Open
//! MPI sends SIGCONT before SIGTERM) its watchdog has seen the gap and ends it silently.
//! Before the data directory is known (the checks), or when the meeting does not end
//! within [`MEETING`] (a data directory that hangs), each rank prints its own line. The
//! launcher then ends the job with a non-zero status; the results files hold what the
//! finished steps wrote, marked `"complete": false`. Without `--timeout` no thread is
//! started.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::ffi::signals::{terminate_self, write_stderr};
use crate::output::report::sz as size_text;
use crate::terms::doing;

/// The watchdog of one rank; stopped (and joined) on drop.
pub struct Watchdog {
    done: Arc<AtomicBool>,
    /// Where the ranks meet at the deadline, once known.
    dir: Arc<Mutex<Option<PathBuf>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Who and where: this rank, the host of every rank (by rank), the time given.
struct Job {
    rank: u32,
    hosts: Vec<String>,
    seconds: u64,
}

impl Watchdog {
    /// Start the watchdog of rank `rank` for `seconds` from now; `hosts`: the host name
    /// of every rank of the run, by rank.
    ///
    /// Errors: the thread cannot be started (`std::thread::Builder::spawn`).
    pub fn start(rank: u32, hosts: Vec<String>, seconds: u64) -> std::io::Result<Watchdog> {
        let done = Arc::new(AtomicBool::new(false));
        let dir = Arc::new(Mutex::new(None::<PathBuf>));
        let (seen, place) = (Arc::clone(&done), Arc::clone(&dir));
        let job = Job {
            rank,
            hosts,
            seconds,
        };
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let thread = std::thread::Builder::new()
            .name("h5perf-timeout".into())
            .spawn(move || {
                // woken every TICK: a longer gap means the process was stopped
                let mut last = Instant::now();
                let late = loop {
                    if seen.load(Ordering::SeqCst) {
                        return;
                    }
                    let now = Instant::now();
                    let gap = now.saturating_duration_since(last);
                    last = now;
                    if now >= deadline {
                        // not run across the deadline: named by the ranks that were
                        break gap >= STALLED;
                    }
                    std::thread::park_timeout((deadline - now).min(TICK));
                };
                if late {
                    terminate_self();
                    return;
                }
                let dir: Option<PathBuf> = place.lock().map(|d| d.clone()).unwrap_or(None);
                let (rank, seconds) = (job.rank, job.seconds);
                // the meeting runs in a thread of its own: a file system that hangs (what
                // the ranks may be waiting for) must not keep this one from ending the rank
                let met = dir.is_some_and(|d| {
                    let (tx, rx) = std::sync::mpsc::channel();
                    std::thread::Builder::new()
                        .name("h5perf-timeout-meeting".into())
                        .spawn(move || {
                            meet(&job, &d, &seen);
                            let _ = tx.send(());
                        })
                        .is_ok_and(|_| rx.recv_timeout(MEETING).is_ok())
                });
                if !met {
                    write_stderr(alone_message(rank, seconds).as_bytes());
                }
                terminate_self();
            })?;
        Ok(Watchdog {
            done,
            dir,
            thread: Some(thread),
        })
    }

    /// The data directory (shared by the ranks) where the ranks meet at the deadline.
    pub fn meet_in(&self, dir: &Path) {
        if let Ok(mut d) = self.dir.lock() {
            *d = Some(crate::datadir::dir_or_current(dir).to_path_buf());
        }
    }
}

/// How often the watchdog wakes before the deadline.
const TICK: Duration = Duration::from_millis(500);

/// A gap between two wakes of at least this means the process was stopped (SIGSTOP, a
/// frozen node) or not run at all for that long: its rank is one that had not arrived.
const STALLED: Duration = Duration::from_secs(2);

/// How long the ranks wait for each other's files at the deadline, and then for the
/// rank that prints the message.
pub const GRACE: Duration = Duration::from_secs(3);

/// The longest a meeting may take (two waits of [`GRACE`] and the file operations); past
/// it the rank prints its own line and ends, as when the data directory is not known.
pub const MEETING: Duration = Duration::from_secs(8);

/// How often a waiting rank looks at the files.
const POLL: Duration = Duration::from_millis(50);

/// The file of rank `rank` at the deadline.
fn file_of(dir: &Path, rank: u32) -> PathBuf {
    dir.join(format!("#h5perf-timeout.{rank}"))
}

/// One rank's part at the deadline in `dir`: its file, the wait for the others, and the
/// message if it is the lowest rank that arrived (or the one that printed it is gone);
/// this rank's own line when its file cannot be written.
fn meet(job: &Job, dir: &Path, done: &AtomicBool) {
    let size = u32::try_from(job.hosts.len()).unwrap_or(u32::MAX);
    let mine = file_of(dir, job.rank);
    let tmp = dir.join(format!("#h5perf-timeout.{}.tmp", job.rank));
    let (stage, procs, xfer) = doing::now();
    let text = format!("{procs} {xfer} {}\n", stage.words());
    if std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &mine))
        .is_err()
    {
        let _ = std::fs::remove_file(&tmp);
        write_stderr(alone_message(job.rank, job.seconds).as_bytes());
        return;
    }
    let arrived = || -> Vec<Option<String>> {
        (0..size)
            .map(|r| std::fs::read_to_string(file_of(dir, r)).ok())
            .collect()
    };
    let start = Instant::now();
    let mut seen = arrived();
    while seen.iter().any(Option::is_none)
        && start.elapsed() < GRACE
        && !done.load(Ordering::SeqCst)
    {
        std::thread::sleep(POLL);
        seen = arrived();
    }
    let first = seen.iter().position(Option::is_some);
    if first != usize::try_from(job.rank).ok() {
        // the lowest rank prints and removes the files; if it is gone, this rank does
        let start = Instant::now();
        while mine.exists() && start.elapsed() < GRACE {
            std::thread::sleep(POLL);
        }
        if !mine.exists() {
            return;
        }
        seen = arrived();
    }
    write_stderr(summary(job, &seen).as_bytes());
    for r in 0..size {
        let _ = std::fs::remove_file(file_of(dir, r));
    }
}

/// `rank 3 (host H)`, or `ranks 1 (host H), 3 (host I)`; at most 16 named.
fn ranks_text(ranks: &[u32], hosts: &[String]) -> String {
    const SHOWN: usize = 16;
    let one = |r: &u32| match hosts.get(*r as usize) {
        Some(h) => format!("{r} (host {h})"),
        None => r.to_string(),
    };
    let mut named: Vec<String> = ranks.iter().take(SHOWN).map(one).collect();
    if ranks.len() > SHOWN {
        named.push(format!("and {} more", ranks.len() - SHOWN));
    }
    let word = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{word} {}", named.join(", "))
}

/// The one line at the deadline, from the ranks' files `seen` (by rank; `None`: no file,
/// the rank had not arrived). A file holds `PROCS XFER STAGE WORDS`.
fn summary(job: &Job, seen: &[Option<String>]) -> String {
    let missing: Vec<u32> = (0..)
        .zip(seen)
        .filter(|(_, s)| s.is_none())
        .map(|(r, _)| r)
        .collect();
    // the ranks that arrived, grouped by where they were
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for (r, s) in (0..).zip(seen) {
        let Some(s) = s else { continue };
        let mut parts = s.trim_end().splitn(3, ' ');
        let (procs, xfer, words) = (
            parts.next().unwrap_or("0"),
            parts.next().unwrap_or("0"),
            parts.next().unwrap_or("an unknown stage"),
        );
        let step = if procs == "0" {
            String::new()
        } else {
            let xfer = xfer.parse().map_or_else(|_| xfer.to_string(), size_text);
            format!(" ({procs} process(es), transfer size {xfer})")
        };
        let place = format!("{words}{step}");
        match groups.iter_mut().find(|(p, _)| *p == place) {
            Some((_, rs)) => rs.push(r),
            None => groups.push((place, vec![r])),
        }
    }
    let places: Vec<String> = groups
        .iter()
        .map(|(place, rs)| format!("{} in {place}", ranks_text(rs, &[])))
        .collect();
    let s = job.seconds;
    if missing.is_empty() {
        return format!(
            "h5perf: --timeout of {s} s exceeded: every rank was running ({}): too slow \
             for the time given, or waiting for the storage; ending the job\n",
            places.join("; ")
        );
    }
    let verb = if missing.len() == 1 { "was" } else { "were" };
    format!(
        "h5perf: --timeout of {s} s exceeded: {} had not arrived (not running at the \
         deadline: stopped, or {verb} on a frozen node); {} waited; ending the job\n",
        ranks_text(&missing, &job.hosts),
        places.join("; ")
    )
}

/// The line of a rank that cannot meet the others (before the data directory is known,
/// or its file cannot be written): where this rank is.
pub fn alone_message(rank: u32, seconds: u64) -> String {
    let (stage, procs, xfer) = doing::now();
    let step = if procs > 0 {
        format!(" ({procs} process(es), transfer size {})", size_text(xfer))
    } else {
        String::new()
    };
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

    fn job() -> Job {
        Job {
            rank: 0,
            hosts: vec!["n0".into(), "n1".into(), "n2".into()],
            seconds: 10,
        }
    }

    #[test]
    fn one_line_names_the_ranks_that_had_not_arrived() {
        let w = |s: &str| Some(s.to_string());
        let m = summary(
            &job(),
            &[
                w("2 1024 the write phase\n"),
                None,
                w("2 1024 the write phase\n"),
            ],
        );
        assert_eq!(
            m,
            "h5perf: --timeout of 10 s exceeded: rank 1 (host n1) had not arrived (not \
             running at the deadline: stopped, or was on a frozen node); ranks 0, 2 in the \
             write phase (2 process(es), transfer size 1KB) waited; ending the job\n"
        );
        let m = summary(&job(), &[w("0 0 the checks\n"), None, None]);
        assert!(
            m.contains("ranks 1 (host n1), 2 (host n2) had not arrived"),
            "{m}"
        );
        assert!(m.contains("rank 0 in the checks waited"), "{m}");
        let m = summary(&job(), &[w("1 8 a\n"), w("1 8 b\n"), w("1 8 a\n")]);
        assert!(
            m.contains(
                "every rank was running (ranks 0, 2 in a (1 process(es), transfer \
                        size 8); rank 1 in b (1 process(es), transfer size 8))"
            ),
            "{m}"
        );
        assert_eq!(m.lines().count(), 1);
        let many: Vec<u32> = (0..40).collect();
        assert!(ranks_text(&many, &[]).ends_with("15, and 24 more"));
    }

    #[test]
    fn a_rank_alone_names_itself() {
        let m = alone_message(3, 10);
        assert!(m.starts_with("h5perf: rank 3: --timeout of 10 s exceeded in "));
        assert!(m.ends_with("had not arrived there\n"), "{m}");
    }

    /// Three ranks meet in a directory: the lowest prints, every file is removed; the
    /// rank whose file never comes is named.
    #[test]
    fn ranks_meet_in_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let done = AtomicBool::new(false);
        std::fs::write(file_of(dir.path(), 2), "1 4 the read phase\n").unwrap();
        let started = Instant::now();
        meet(&job(), dir.path(), &done);
        // rank 1 never came: the wait was the grace period, bounded
        assert!(started.elapsed() >= GRACE && started.elapsed() < GRACE * 4);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
