//! Nothing left behind, and one run per data directory (issue 12, items 6 and 8).
//!
//! However a run ends, its data file and its lock `#h5perf.lock` go: a crash inside MPI
//! or HDF5 (SIGSEGV, SIGBUS, SIGFPE, SIGABRT raised by tests/crash_shim.c inside the
//! library's write call: the crashing rank's handler removes the file, the process still
//! dies of the signal), `timeout`, a SIGKILL of rank 0 (its reaper removes the files), a
//! data file that cannot be removed (named, with the reason), `--fill-behaviour` on a
//! full disk. When even the reaper is killed, the next run in the directory takes over
//! the stale lock, names what was left and removes it (or leaves it, for a run that kept
//! its files). A second run in a directory in use is refused with a message naming the
//! first; a lock file that is a symbolic link, a directory, not ours, another user's or
//! another host's is not touched.
//!
//! Each case prints one line `lifecycle: CASE | FLAVOUR | exit STATUS | SECONDS s | left
//! [FILES] | MESSAGE` (the table).

mod common;

use common::*;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A long POSIX run: a data file of up to 128 MiB per rank exists for many seconds.
const LONG_RUN: &[&str] = &[
    "-A", "posix", "-e", "128M", "-x", "1M", "-X", "1M", "-B", "1M", "-i", "200", "-p", "2",
];
/// A short run of every API (about a second).
const SHORT_RUN: &[&str] = &["-e", "1M", "-x", "256K", "-X", "256K", "-B", "256K"];

/// The crash shim, built once per test binary into the target directory's scratch
/// space (`CARGO_TARGET_TMPDIR`): a static lives to the end of the process and is
/// never dropped, so a temporary directory would be left in /tmp by every run.
fn crash_shim() -> String {
    static SHIM: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SHIM.get_or_init(|| build_shim(Path::new(env!("CARGO_TARGET_TMPDIR")), "crash_shim"))
        .clone()
}

/// Every file h5perf may leave in a data directory: data files, lock files, scratch
/// files, sorted.
fn h5perf_files(dir: &Path) -> Vec<String> {
    dir_entries(dir)
        .into_iter()
        .filter(|n| n.starts_with("#pio_tmp") || n.starts_with("#h5perf"))
        .collect()
}

/// Live reapers (`h5perf-cleanup`) whose working directory is `dir`.
fn reapers_in(dir: &Path) -> Vec<i32> {
    let want = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut v = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let zombie = stat
            .rfind(')')
            .is_some_and(|c| stat[c + 1..].trim_start().starts_with('Z'));
        if !stat.contains("(h5perf-cleanup)") || zombie {
            continue;
        }
        if fs::read_link(format!("/proc/{pid}/cwd")).ok().as_deref() == Some(want.as_path()) {
            v.push(pid);
        }
    }
    v
}

/// Wait (at most 10 s) until no reaper works in `dir` any more, and return the h5perf
/// files left there then. (Hydra does not wait for the reaper of a killed rank 0, so its
/// removals may come just after the launcher's exit; the ranks are gone by then.)
fn settled(dir: &Path) -> Vec<String> {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(10) && !reapers_in(dir).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    h5perf_files(dir)
}

/// The table line for one case.
fn table(case: &str, status: Option<i32>, secs: f64, left: &[String], msg: &str) {
    let msg = msg.lines().next().unwrap_or("").trim();
    eprintln!(
        "lifecycle: {case} | {:?} | exit {} | {secs:.1} s | left {left:?} | {msg}",
        flavour(),
        status.map_or_else(|| "signal".to_string(), |c| c.to_string())
    );
}

/// The first `h5perf: ` line of `text` that contains `needle`, or "".
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with("h5perf: ") && l.contains(needle))
        .unwrap_or("")
}

/// A job started without waiting: `LAUNCHER -n 2 h5perf ARGS` in its own session, with
/// stdout and stderr in files.
struct Job {
    child: Child,
    logs: tempfile::TempDir,
    started: Instant,
}

impl Job {
    fn start(args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Job {
        Job::start_wrapped(&[], args, env, cwd)
    }

    /// Started as `WRAPPER... LAUNCHER -n 2 h5perf ARGS` (e.g. `timeout 4`).
    fn start_wrapped(wrapper: &[&str], args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Job {
        let logs = scratch_dir();
        let out = fs::File::create(logs.path().join("stdout")).unwrap();
        let err = fs::File::create(logs.path().join("stderr")).unwrap();
        let mut cmd = Command::new("setsid");
        cmd.args(wrapper)
            .args(launcher())
            .args(["-n", "2"])
            .arg(h5perf_bin())
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        for k in CLEARED_ENV {
            cmd.env_remove(k);
        }
        for (k, v) in OMPI_ENV.iter().chain(env.iter()) {
            cmd.env(k, v);
        }
        Job {
            child: cmd.spawn().expect("cannot start the launcher"),
            logs,
            started: Instant::now(),
        }
    }

    /// The job's h5perf ranks: (pid, world rank).
    fn ranks(&self) -> Vec<(u32, u32)> {
        job_processes(self.child.id() as i32)
            .into_iter()
            .filter(|(_, c)| c == "h5perf")
            .filter_map(|(pid, _)| {
                let env = fs::read(format!("/proc/{pid}/environ")).ok()?;
                let rank = env.split(|&b| b == 0).find_map(|kv| {
                    let kv = String::from_utf8_lossy(kv);
                    ["OMPI_COMM_WORLD_RANK=", "PMI_RANK="]
                        .iter()
                        .find_map(|k| kv.strip_prefix(k).and_then(|r| r.parse().ok()))
                })?;
                Some((pid as u32, rank))
            })
            .collect()
    }

    /// Wait until both ranks run and a data file exists in `dir`, then a little more.
    fn wait_for_data_file(&mut self, dir: &Path) {
        let t = Instant::now();
        while pio_tmp_files(dir).is_empty() || self.ranks().len() < 2 {
            if let Ok(Some(st)) = self.child.try_wait() {
                panic!(
                    "the job ended ({st}) before any data file appeared:\n{}",
                    self.output()
                );
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "no data file within 60 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
    }

    fn output(&self) -> String {
        let read = |n: &str| fs::read_to_string(self.logs.path().join(n)).unwrap_or_default();
        format!("{}{}", read("stderr"), read("stdout"))
    }

    /// Wait for the launcher (at most `limit`, else kill the session and fail), then for
    /// its ranks (at most 10 s); the launcher's exit code (None: a signal) and the seconds
    /// since the start. The output stays readable with [`Job::output`].
    fn wait(&mut self, limit: Duration) -> (Option<i32>, f64) {
        let sid = self.child.id() as i32;
        let t = Instant::now();
        let status = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if t.elapsed() > limit {
                for (pid, _) in job_processes(sid) {
                    kill(pid as u32, "KILL");
                }
                let _ = self.child.wait();
                panic!("the job did not end within {limit:?}:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let secs = self.started.elapsed().as_secs_f64();
        let t = Instant::now();
        while job_processes(sid).iter().any(|(_, c)| c == "h5perf") {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "h5perf ranks survived the launcher"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        (status.code(), secs)
    }

    fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// Send `sig` to every process of `pids` with one kill(1).
fn signal_all(pids: &[u32], sig: &str) {
    let st = Command::new("kill")
        .args(["-s", sig])
        .args(pids.iter().map(|p| p.to_string()))
        .status()
        .unwrap();
    assert!(st.success(), "kill -s {sig} {pids:?}");
}

/// Stop `pids` (SIGSTOP) at a moment when the data file `#pio_tmp_1.posix` exists in
/// `dir` (a run removes it between iterations).
fn stop_while_the_data_file_exists(pids: &[u32], dir: &Path) {
    for _ in 0..100 {
        signal_all(pids, "STOP");
        if dir.join("#pio_tmp_1.posix").exists() {
            return;
        }
        signal_all(pids, "CONT");
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the data file never existed while {pids:?} were stopped");
}

fn kill(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// The reaper of the rank with pid `rank_pid` (its child named `h5perf-cleanup`).
fn reaper_of(rank_pid: u32) -> Option<u32> {
    fs::read_to_string(format!("/proc/{rank_pid}/task/{rank_pid}/children"))
        .ok()?
        .split_whitespace()
        .filter_map(|p| p.parse::<u32>().ok())
        .find(|p| {
            fs::read_to_string(format!("/proc/{p}/comm"))
                .is_ok_and(|c| c.trim() == "h5perf-cleanup")
        })
}

// ---------------------------------------------------------------------------------------
// Crashes inside the MPI and HDF5 libraries
// ---------------------------------------------------------------------------------------

/// A crash inside the library's write call on one rank: the job fails, the launcher
/// names the signal, the crashing process itself removed the data file (its handler,
/// seen by the shim's unlink record) and died of the signal, and nothing is left.
/// Open MPI's own handler (chained after ours) still prints its report for SIGFPE and
/// SIGABRT; for SIGSEGV and SIGBUS the handler before ours is Rust's stack-overflow
/// check, and UCX's under MPICH.
#[test]
fn a_crash_inside_mpi_or_hdf5_leaves_nothing() {
    let shim = crash_shim();
    let cases = [
        ("SEGV", "mpiio", "1", "Segmentation fault"),
        ("BUS", "phdf5", "1", "Bus error"),
        ("FPE", "mpiio", "0", "Floating point exception"),
        ("ABRT", "phdf5", "0", "Abort"),
    ];
    for (sig, api, rank, name) in cases {
        let dir = scratch_dir();
        let logs = scratch_dir();
        let log = logs.path().join("unlinks");
        let log_s = log.to_string_lossy().into_owned();
        let env = [
            ("LD_PRELOAD", shim.as_str()),
            ("H5PERF_TEST_CRASH_RANK", rank),
            ("H5PERF_TEST_CRASH_SIGNAL", sig),
            ("H5PERF_TEST_UNLINK_LOG", log_s.as_str()),
        ];
        let mut args = vec!["-A", api];
        args.extend_from_slice(&["-e", "4M", "-x", "1M", "-X", "1M", "-B", "1M"]);
        let o = mpirun_timeout(2, &args, &env, dir.path(), Duration::from_secs(60));
        let left = settled(dir.path());
        let all = format!("{}{}", o.stdout, o.stderr);
        let what = format!("SIG{sig} in rank {rank}'s first write (-A {api})");
        table(
            &format!("crash SIG{sig} -A {api} rank {rank}"),
            o.status,
            o.elapsed.as_secs_f64(),
            &left,
            all.lines().find(|l| l.contains(name)).unwrap_or("").trim(),
        );
        assert!(
            o.status != Some(0),
            "{what}: the job must fail\n{}",
            o.describe()
        );
        assert!(
            all.contains(name),
            "{what}: the launcher names the signal ({name})\n{}",
            o.describe()
        );
        assert!(left.is_empty(), "{what}: left {left:?}\n{}", o.describe());
        let data = format!(
            "#pio_tmp_1{}",
            match api {
                "mpiio" => ".mpio",
                _ => ".h5",
            }
        );
        let record = fs::read_to_string(&log).unwrap_or_default();
        let by_crasher = format!("h5perf {rank} 0 {data}");
        assert!(
            record.lines().any(|l| l == by_crasher),
            "{what}: the crashing process did not remove {data} itself; removals:\n{record}\n{}",
            o.describe()
        );
        if flavour() == Flavour::OpenMpi && matches!(sig, "FPE" | "ABRT") {
            assert!(
                o.stderr.contains("*** Process received signal ***"),
                "{what}: Open MPI's own crash report (the handler chained after ours) is missing\n{}",
                o.describe()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Endings no handler sees: timeout (Open MPI's ranks _exit when mpiexec goes), SIGKILL
// ---------------------------------------------------------------------------------------

/// `timeout 4 mpiexec ...` stops a long run: status 124, nothing left, no rank
/// survives. (Open MPI's ranks often die in an `_exit` inside the MPI library when
/// mpiexec goes, which no handler sees: rank 0's reaper removes the files then.)
#[test]
fn timeout_leaves_nothing() {
    let _guard = mpi_lock();
    let dir = scratch_dir();
    let mut job = Job::start_wrapped(&["timeout", "4"], LONG_RUN, &[], dir.path());
    let (code, secs) = job.wait(Duration::from_secs(60));
    let left = settled(dir.path());
    let out = job.output();
    table(
        "timeout 4 mpiexec",
        code,
        secs,
        &left,
        line_with(&out, "removed"),
    );
    assert_eq!(code, Some(124), "{out}");
    assert!(left.is_empty(), "timeout left {left:?}\n{out}");
}

/// Rank 0 killed with SIGKILL mid-run (as hydra kills the survivors): the job ends, and
/// rank 0's reaper removes the data file and the lock, and says so.
#[test]
fn sigkill_of_rank_zero_leaves_nothing() {
    let _guard = mpi_lock();
    let dir = scratch_dir();
    let mut job = Job::start(LONG_RUN, &[], dir.path());
    job.wait_for_data_file(dir.path());
    let (pid0, _) = *job.ranks().iter().find(|(_, r)| *r == 0).expect("rank 0");
    assert!(
        reaper_of(pid0).is_some(),
        "rank 0 (pid {pid0}) has no reaper"
    );
    stop_while_the_data_file_exists(&[pid0], dir.path());
    kill(pid0, "KILL");
    let (code, secs) = job.wait(Duration::from_secs(60));
    let left = settled(dir.path());
    let out = job.output();
    let msg = line_with(&out, "#pio_tmp_1.posix");
    table("SIGKILL of rank 0", code, secs, &left, msg);
    assert_ne!(code, Some(0), "{out}");
    assert!(left.is_empty(), "left {left:?}\n{out}");
    assert!(
        msg.contains(&format!("rank 0 (process {pid0}) ended without removing")),
        "the reaper names what it removed:\n{out}"
    );
}

/// Everything of a run killed with SIGKILL, its reaper first (a lost node, a batch
/// system's kill): the data file and the lock stay. The next run in the directory takes
/// the stale lock over, names the dead run (host, PID, start) and what it left, removes
/// that, and runs normally: its report is the usual one and nothing is left after it.
/// A killed run that kept its files (`HDF5_NOCLEANUP=1`) gets them named as kept and left.
#[test]
fn the_next_run_names_and_removes_what_a_killed_run_left() {
    for keep in [false, true] {
        let dir = scratch_dir();
        let env: &[(&str, &str)] = if keep {
            &[("HDF5_NOCLEANUP", "1")]
        } else {
            &[]
        };
        let (pid0, left, code, secs) = {
            let _guard = mpi_lock();
            let mut job = Job::start(LONG_RUN, env, dir.path());
            job.wait_for_data_file(dir.path());
            let ranks = job.ranks();
            let (pid0, _) = *ranks.iter().find(|(_, r)| *r == 0).expect("rank 0");
            let reaper = reaper_of(pid0).expect("rank 0's reaper");
            // stopped together while the data file exists, then killed: no process runs
            // a handler or outlives the others
            let mut pids = vec![reaper];
            pids.extend(ranks.iter().map(|(p, _)| *p));
            stop_while_the_data_file_exists(&pids, dir.path());
            let all = |sig: &str| signal_all(&pids, sig);
            all("KILL");
            let (code, secs) = job.wait(Duration::from_secs(60));
            (pid0, h5perf_files(dir.path()), code, secs)
        };
        let case = if keep {
            "SIGKILL of all (HDF5_NOCLEANUP)"
        } else {
            "SIGKILL of all"
        };
        table(case, code, secs, &left, "");
        assert_eq!(
            left,
            ["#h5perf.lock", "#pio_tmp_1.posix"],
            "what the killed run left"
        );
        let lock = fs::read_to_string(dir.path().join("#h5perf.lock")).unwrap();
        assert!(lock.contains(&format!("\npid {pid0}\n")), "{lock}");

        // the next run: -A mpiio, so a kept .posix file is not overwritten by it
        let o = mpirun_timeout(
            2,
            &[&["-A", "mpiio"], SHORT_RUN].concat(),
            &[],
            dir.path(),
            Duration::from_secs(60),
        );
        let after = settled(dir.path());
        let err = o.stderr_clean();
        let took = line_with(&err, "ended without releasing");
        table(
            &format!("next run after {case}"),
            o.status,
            o.elapsed.as_secs_f64(),
            &after,
            took,
        );
        assert!(o.success(), "{}", o.describe());
        assert!(
            took.contains(&format!("(host {}, PID {pid0}, started 20", hostname())),
            "the takeover names the dead run:\n{}",
            o.describe()
        );
        assert!(
            !o.stdout.contains("h5perf:"),
            "the report is unchanged:\n{}",
            o.stdout
        );
        assert!(o.stdout.contains("IO API = MPIO"), "{}", o.stdout);
        if keep {
            let kept = line_with(&err, "kept its data files");
            assert!(kept.contains("#pio_tmp_1.posix"), "{}", o.describe());
            assert_eq!(
                after,
                ["#pio_tmp_1.posix"],
                "the kept file stays, nothing else"
            );
        } else {
            let removed = line_with(&err, "removed what that run left");
            assert!(removed.contains("#pio_tmp_1.posix ("), "{}", o.describe());
            assert!(after.is_empty(), "left {after:?}");
        }
    }
}

/// This host's name as h5perf records it.
fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

// ---------------------------------------------------------------------------------------
// One run per data directory
// ---------------------------------------------------------------------------------------

/// A second run in a data directory in use is refused at once, before any output, with
/// one message naming the first run (host, PID of its rank 0, start time); the first
/// run goes on undisturbed and, stopped with SIGTERM, leaves nothing.
#[test]
fn a_second_run_in_the_same_directory_is_refused() {
    let _guard = mpi_lock();
    let dir = scratch_dir();
    let mut first = Job::start(LONG_RUN, &[], dir.path());
    first.wait_for_data_file(dir.path());
    let (pid0, _) = *first.ranks().iter().find(|(_, r)| *r == 0).expect("rank 0");
    let mut second = Job::start(SHORT_RUN, &[], dir.path());
    let (code, secs) = second.wait(Duration::from_secs(60));
    let out = second.output();
    let msg = line_with(&out, "in use by another h5perf run");
    table(
        "second run in a directory in use",
        code,
        secs,
        &h5perf_files(dir.path()),
        msg,
    );
    assert!(matches!(code, Some(c) if c != 0), "{out}");
    assert!(
        msg.contains(&format!("(host {}, PID {pid0}, started 20", hostname())),
        "the refusal names the first run:\n{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("h5perf: ")).count(),
        1,
        "{out}"
    );
    assert!(
        !out.contains("==== Parameters"),
        "refused before the report:\n{out}"
    );
    assert!(first.running(), "the first run must go on");
    let lock = fs::read_to_string(dir.path().join("#h5perf.lock")).unwrap();
    assert!(
        lock.contains(&format!("\npid {pid0}\n")),
        "the lock is still the first run's:\n{lock}"
    );
    kill(first.child.id(), "TERM");
    let (code, secs) = first.wait(Duration::from_secs(60));
    let left = settled(dir.path());
    table(
        "first run, then SIGTERM to its launcher",
        code,
        secs,
        &left,
        "",
    );
    assert!(left.is_empty(), "left {left:?}\n{}", first.output());
}

/// A lock record as h5perf writes it.
fn lock_record(host: &str, pid: u32, ticks: &str, started: u64, uid: u32, data: &str) -> String {
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    format!(
        "h5perf-lock 1\nhost {host}\nboot_id {}\npid {pid}\nstart_ticks {ticks}\nstarted {started}\nuid {uid}\nkeep 0\n{data}",
        boot.trim()
    )
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A stale lock on this host (a PID that cannot exist) is taken over: the claimed files
/// it left are removed and named, a file it did not claim stays.
#[test]
fn a_stale_lock_is_taken_over() {
    let dir = scratch_dir();
    let d = dir.path();
    fs::write(d.join("#pio_tmp_1.posix"), vec![7u8; 1000]).unwrap();
    fs::write(d.join("#pio_tmp_2.h5"), vec![7u8; 10]).unwrap();
    fs::write(d.join("#pio_tmp_1.mpio"), b"not claimed").unwrap();
    let uid = fs::metadata(d.join("#pio_tmp_1.posix")).unwrap().uid();
    // pid_max is at most 2^22: this PID never exists
    let rec = lock_record(
        &hostname(),
        4_194_305,
        "12345",
        now() - 30,
        uid,
        "data .posix 1\ndata .h5 2\n",
    );
    fs::write(d.join("#h5perf.lock"), rec).unwrap();
    let o = mpirun_timeout(
        2,
        &[&["-A", "posix"], SHORT_RUN].concat(),
        &[],
        d,
        Duration::from_secs(60),
    );
    let err = o.stderr_clean();
    let left = h5perf_files(d);
    table(
        "stale lock (dead PID) on this host",
        o.status,
        o.elapsed.as_secs_f64(),
        &left,
        line_with(&err, "removed"),
    );
    assert!(o.success(), "{}", o.describe());
    assert!(
        line_with(&err, "ended without releasing").contains("PID 4194305"),
        "{err}"
    );
    let removed = line_with(&err, "removed what that run left");
    assert!(
        removed.contains("#pio_tmp_1.posix (1000 bytes)")
            && removed.contains("#pio_tmp_2.h5 (10 bytes)"),
        "{err}"
    );
    assert_eq!(left, ["#pio_tmp_1.mpio"], "only the unclaimed file stays");
}

/// Locks h5perf must not take or touch: one message, nothing run, the thing in the way
/// left as it was.
#[test]
fn locks_that_are_not_ours_to_take_are_left_alone() {
    let host = hostname();
    let me = std::process::id();
    let my_ticks = {
        let stat = fs::read_to_string("/proc/self/stat").unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 1..];
        rest.split_whitespace().nth(19).unwrap().to_string()
    };
    let uid = fs::metadata("/proc/self").unwrap().uid();
    let started = now() - 100;
    type Setup = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Setup, Vec<String>)> = vec![
        (
            "a live run's lock",
            Box::new(move |d: &Path| {
                fs::write(
                    d.join("#h5perf.lock"),
                    lock_record(&hostname(), me, &my_ticks, started, uid, ""),
                )
                .unwrap()
            }),
            vec![
                "is in use by another h5perf run".into(),
                format!("(host {host}, PID {me}, started "),
            ],
        ),
        (
            "another host's lock",
            Box::new(move |d: &Path| {
                fs::write(
                    d.join("#h5perf.lock"),
                    lock_record("h5perf-test-elsewhere", 4_194_305, "1", started, uid, ""),
                )
                .unwrap()
            }),
            vec![
                "on another host (host h5perf-test-elsewhere, PID 4194305".into(),
                "if no h5perf runs on h5perf-test-elsewhere any more, remove".into(),
            ],
        ),
        (
            "another user's stale lock",
            Box::new(move |d: &Path| {
                let p = d.join("#h5perf.lock");
                fs::write(
                    &p,
                    lock_record(
                        &hostname(),
                        4_194_305,
                        "1",
                        started,
                        65534,
                        "data .posix 1\n",
                    ),
                )
                .unwrap();
                std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
                fs::write(d.join("#pio_tmp_1.posix"), b"theirs").unwrap();
            }),
            vec!["belongs to another user (user ID 65534)".into()],
        ),
        (
            "a symbolic link",
            Box::new(|d: &Path| {
                fs::write(d.join("precious"), b"precious").unwrap();
                std::os::unix::fs::symlink(d.join("precious"), d.join("#h5perf.lock")).unwrap();
            }),
            vec![
                "is in the way of h5perf's lock".into(),
                "it is a symbolic link".into(),
            ],
        ),
        (
            "a directory",
            Box::new(|d: &Path| fs::create_dir(d.join("#h5perf.lock")).unwrap()),
            vec!["it is not a regular file".into()],
        ),
        (
            "a file that is not a lock",
            Box::new(|d: &Path| fs::write(d.join("#h5perf.lock"), b"precious").unwrap()),
            vec!["it is not an h5perf lock file".into()],
        ),
    ];
    for (case, setup, wants) in cases {
        let dir = scratch_dir();
        let d = dir.path();
        setup(d);
        let before = snapshot(d);
        let o = mpirun_timeout(
            2,
            &[&["-A", "posix"], SHORT_RUN].concat(),
            &[],
            d,
            Duration::from_secs(60),
        );
        let msg = o.single_message(case);
        table(
            &format!("lock: {case}"),
            o.status,
            o.elapsed.as_secs_f64(),
            &h5perf_files(d),
            &msg,
        );
        o.assert_refused_without_output(case);
        for w in &wants {
            assert!(msg.contains(w.as_str()), "{case}: {msg:?} lacks {w:?}");
        }
        assert_eq!(snapshot(d), before, "{case}: the directory changed");
    }
}

/// Every entry of `dir` with its type, owner and contents (files), without following
/// links.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    dir_entries(dir)
        .into_iter()
        .map(|n| {
            let p = dir.join(&n);
            let m = fs::symlink_metadata(&p).unwrap();
            let what = if m.file_type().is_symlink() {
                format!("link to {}", fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                "dir".to_string()
            } else {
                format!("file {:?}", fs::read(&p).unwrap())
            };
            (n, format!("{what} uid {}", m.uid()))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Files that cannot be removed, full disks
// ---------------------------------------------------------------------------------------

/// A data file that cannot be removed (the shim refuses its unlink with EACCES) is
/// named with the reason, and the run fails; the lock is removed all the same.
#[test]
fn a_data_file_that_cannot_be_removed_is_named() {
    let shim = crash_shim();
    for (api, file, reason) in [
        ("posix", "#pio_tmp_1.posix", "Permission denied"),
        ("phdf5", "#pio_tmp_1.h5", "MPI_File_delete failed"),
    ] {
        let dir = scratch_dir();
        let env = [
            ("LD_PRELOAD", shim.as_str()),
            ("H5PERF_TEST_UNLINK_FAIL", "1"),
        ];
        let o = mpirun_timeout(
            2,
            &[&["-A", api], SHORT_RUN].concat(),
            &env,
            dir.path(),
            Duration::from_secs(60),
        );
        let left = h5perf_files(dir.path());
        let msg = o.single_message(api);
        table(
            &format!("unremovable data file -A {api}"),
            o.status,
            o.elapsed.as_secs_f64(),
            &left,
            &msg,
        );
        assert!(matches!(o.status, Some(c) if c != 0), "{}", o.describe());
        assert!(
            msg.contains(&format!(
                "cannot remove the data file {file}, which is left behind"
            )) && msg.contains(reason),
            "-A {api}: {msg:?}"
        );
        assert_eq!(
            left,
            [file],
            "-A {api}: only the file that could not be removed"
        );
    }
}

/// `--fill-behaviour` on a full file system (a 128 KiB tmpfs, which the serial scratch
/// file outgrows): one message naming the scratch file, and neither it nor the lock is
/// left.
#[test]
fn fill_behaviour_on_a_full_disk_leaves_nothing() {
    let fs_dir = Tmpfs::mount("size=128k");
    let work = scratch_dir();
    let prefix = fs_dir.path();
    let o = mpirun_timeout(
        2,
        &["--fill-behaviour"],
        &[("HDF5_PARAPREFIX", &prefix)],
        work.path(),
        Duration::from_secs(120),
    );
    let left = h5perf_files(fs_dir.root());
    let msg = o.single_message("--fill-behaviour on a full disk");
    table(
        "--fill-behaviour, full disk",
        o.status,
        o.elapsed.as_secs_f64(),
        &left,
        &msg,
    );
    assert!(matches!(o.status, Some(c) if c != 0), "{}", o.describe());
    assert!(
        msg.contains("#h5perf_fill_serial.h5") && msg.contains("No space left on device"),
        "{msg:?}"
    );
    assert!(left.is_empty(), "left on the full disk: {left:?}");
}
