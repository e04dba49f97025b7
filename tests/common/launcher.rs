//! Running MPI jobs: the MPI flavour and its launcher (`H5PERF_MPI`, `H5PERF_MPIEXEC`,
//! `H5PERF_MPIEXEC_FLAGS`), the child environment, one job run as its own session with a
//! hard timeout (the whole session is killed and the test fails with the command line:
//! a hang must never block CI), the [`Outcome`] of a run with its assertion helpers, and
//! the filter that removes launcher banners from stderr.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Default hard timeout of one MPI job.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Environment the launcher needs on these machines (root, 2 cores, oversubscribed).
pub const OMPI_ENV: &[(&str, &str)] = &[
    ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
    ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
    ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
    ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
];

/// Variables h5perf reads; removed from the child environment unless a test gives them.
pub const CLEARED_ENV: &[&str] = &[
    "USER",
    "LOGIN",
    "HDF5_PARAPREFIX",
    "HDF5_NOCLEANUP",
    "HDF5_MPI_INFO",
];

/// The h5perf binary built by cargo for these tests.
pub fn h5perf_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_h5perf"))
}

/// Finds a program on PATH.
pub fn which(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

/// Path of a required external tool; FAILS the test (never skips) when it is missing.
pub fn require_tool(prog: &str, package: &str) -> PathBuf {
    which(prog).unwrap_or_else(|| {
        panic!(
            "required program `{prog}` not found on PATH — install the Debian package `{package}` \
             (`make deps` does it); these tests do not skip when MPI/HDF5 tools are missing"
        )
    })
}

// ---------------------------------------------------------------------------------------
// Running MPI jobs
// ---------------------------------------------------------------------------------------

/// Result of one launcher run.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    /// Exit code of the launcher (`None` if it was killed by a signal).
    pub status: Option<i32>,
    pub elapsed: Duration,
    /// Shell-like rendering of the command (cwd, environment, argv) for messages.
    pub cmdline: String,
}

impl Outcome {
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }

    /// stderr without Open MPI launcher banners.
    pub fn stderr_clean(&self) -> String {
        filter_launcher_noise(&self.stderr)
    }

    /// A run refused before any output: non-zero exit status and nothing on stdout
    /// (fails the test, naming `what` and dumping the run, otherwise).
    pub fn assert_refused_without_output(&self, what: &str) {
        assert!(
            matches!(self.status, Some(c) if c != 0),
            "{what}: must exit non-zero\n{}",
            self.describe()
        );
        assert!(
            self.stdout.is_empty(),
            "{what}: stdout must be empty\n{}",
            self.describe()
        );
    }

    /// The one `h5perf: ` line of stderr (launcher banners removed): fails the test,
    /// naming `what` and dumping the run, unless there is exactly one such line.
    pub fn single_message(&self, what: &str) -> String {
        let err = self.stderr_clean();
        let msgs: Vec<&str> = err.lines().filter(|l| l.starts_with("h5perf: ")).collect();
        assert_eq!(
            msgs.len(),
            1,
            "{what}: exactly one `h5perf: ` message expected on stderr\n{}",
            self.describe()
        );
        msgs[0].to_string()
    }

    /// A readable dump for assertion messages.
    pub fn describe(&self) -> String {
        format!(
            "command: {}\nexit status: {:?}, elapsed {:.2?}\n--- stdout ({} bytes) ---\n{}\n--- stderr ({} bytes) ---\n{}\n--- end ---",
            self.cmdline,
            self.status,
            self.elapsed,
            self.stdout.len(),
            clip(&self.stdout, 12000),
            self.stderr.len(),
            clip(&self.stderr, 6000)
        )
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n[... {} more bytes ...]", &s[..cut], s.len() - cut)
}

static MPI_LOCK: Mutex<()> = Mutex::new(());

/// Serialises MPI jobs inside one test binary (cargo runs test binaries one after the
/// other, so this serialises all jobs): oversubscribed jobs on 2 cores are slow and their
/// timing-sensitive checks get flaky when they run side by side.
pub fn mpi_lock() -> MutexGuard<'static, ()> {
    MPI_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The MPI launcher: `$H5PERF_MPIEXEC` (a name on PATH or a path), else Open MPI's
/// `mpiexec.openmpi`. Never the plain `mpiexec`: with several MPI flavours installed it
/// follows Debian's alternatives and may belong to another flavour than the binary.
pub fn mpiexec() -> PathBuf {
    let name = std::env::var("H5PERF_MPIEXEC")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "mpiexec.openmpi".to_string());
    if name.contains('/') {
        let p = PathBuf::from(&name);
        assert!(
            p.is_file(),
            "MPI launcher {name} (from H5PERF_MPIEXEC) does not exist"
        );
        return p;
    }
    let package = match flavour() {
        Flavour::OpenMpi => "openmpi-bin",
        Flavour::Mpich => "mpich",
    };
    require_tool(&name, package)
}

/// The MPI flavour the tests run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// Open MPI (`mpiexec.openmpi`, ORTE launcher).
    OpenMpi,
    /// MPICH (`mpiexec.mpich`, the hydra launcher).
    Mpich,
}

/// `$H5PERF_MPI` (`openmpi` or `mpich`, set by the Makefile), else guessed from the
/// launcher's name (`mpich`/`hydra` in it: MPICH), else Open MPI.
pub fn flavour() -> Flavour {
    match std::env::var("H5PERF_MPI").ok().as_deref() {
        Some("mpich") => return Flavour::Mpich,
        Some("openmpi") => return Flavour::OpenMpi,
        Some(other) if !other.is_empty() => {
            panic!("H5PERF_MPI={other:?}: expected openmpi or mpich")
        }
        _ => {}
    }
    let launcher = std::env::var("H5PERF_MPIEXEC").unwrap_or_default();
    if launcher.contains("mpich") || launcher.contains("hydra") {
        Flavour::Mpich
    } else {
        Flavour::OpenMpi
    }
}

/// The launcher's flags, placed before `-n`: `$H5PERF_MPIEXEC_FLAGS` split on blanks when
/// set (even empty), else the flavour's default: `--oversubscribe` for Open MPI (more ranks
/// than cores), none for MPICH (hydra oversubscribes by default and refuses the flag).
pub fn mpiexec_flags() -> Vec<String> {
    match std::env::var("H5PERF_MPIEXEC_FLAGS") {
        Ok(s) => s.split_whitespace().map(str::to_string).collect(),
        Err(_) => match flavour() {
            Flavour::OpenMpi => vec!["--oversubscribe".to_string()],
            Flavour::Mpich => Vec::new(),
        },
    }
}

/// The launcher and its flags, without `-n`: the start of every MPI command line.
pub fn launcher() -> Vec<String> {
    let mut v = vec![mpiexec().to_string_lossy().into_owned()];
    v.extend(mpiexec_flags());
    v
}

/// Launcher arguments giving one environment variable to the ranks of one MPMD
/// part (before the program): `-x K=V` (Open MPI), `-env K V` (MPICH).
pub fn launcher_env(key: &str, value: &str) -> Vec<String> {
    match flavour() {
        Flavour::OpenMpi => vec!["-x".into(), format!("{key}={value}")],
        Flavour::Mpich => vec!["-env".into(), key.into(), value.into()],
    }
}

/// `MPI_MAX_INFO_VAL` of the flavour: what the report prints in `Dumping MPI Info
/// Object (up to N bytes per item):` (256 in Open MPI and in the golden transcripts,
/// 1024 in MPICH).
pub fn mpi_max_info_val() -> usize {
    match flavour() {
        Flavour::OpenMpi => 256,
        Flavour::Mpich => 1024,
    }
}

/// The report's info-dump header line as this flavour prints it.
pub fn info_dump_header() -> String {
    format!(
        "Dumping MPI Info Object (up to {} bytes per item):",
        mpi_max_info_val()
    )
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./,:+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `MPIEXEC FLAGS -n NP h5perf ARGS` in `cwd`, with the default timeout.
pub fn mpirun(np: usize, args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Outcome {
    mpirun_timeout(np, args, env, cwd, DEFAULT_TIMEOUT)
}

/// Like [`mpirun`] with an explicit hard timeout. On timeout the launcher's whole session
/// (launcher and ranks) is killed and the test panics with the command line.
pub fn mpirun_timeout(
    np: usize,
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &Path,
    timeout: Duration,
) -> Outcome {
    let bin = h5perf_bin();
    assert!(bin.is_file(), "h5perf binary missing: {}", bin.display());
    let mut argv: Vec<String> = launcher();
    argv.extend([
        "-n".into(),
        np.to_string(),
        bin.to_string_lossy().into_owned(),
    ]);
    argv.extend(args.iter().map(|s| s.to_string()));
    run_session(&argv, env, cwd, timeout)
}

/// `h5perf ARGS` without a launcher (a singleton MPI process, e.g. the `--from` mode) in
/// `cwd`, ended after `timeout`.
pub fn run_alone(args: &[&str], cwd: &Path, timeout: Duration) -> Outcome {
    let mut argv = vec![h5perf_bin().to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|s| s.to_string()));
    run_session(&argv, &[], cwd, timeout)
}

/// `o` succeeded and printed no verification error (`read data error`, spec §7.3).
pub fn assert_ok(o: &Outcome, what: &str) {
    assert!(o.success(), "{what}: the run failed\n{}", o.describe());
    assert!(
        !o.stdout.contains("read data error") && !o.stderr.contains("read data error"),
        "{what}: verification errors\n{}",
        o.describe()
    );
}

/// The verdict table's lines of `o`: from `Verdict:` to the end of stdout, without the
/// box MPICH's launcher prints on stdout when a rank exits with a non-zero status.
pub fn verdict_lines(o: &Outcome) -> Vec<String> {
    let at = o
        .stdout
        .find("\nVerdict: ")
        .unwrap_or_else(|| panic!("no verdict table\n{}", o.describe()));
    filter_launcher_noise(&o.stdout[at + 1..])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs `argv` (launcher included) as its own session with captured output.
pub fn run_session(
    argv: &[String],
    env: &[(&str, &str)],
    cwd: &Path,
    timeout: Duration,
) -> Outcome {
    let argv: Vec<&OsStr> = argv.iter().map(OsStr::new).collect();
    let env: Vec<(&str, &OsStr)> = env.iter().map(|(k, v)| (*k, OsStr::new(v))).collect();
    run_session_os(&argv, &env, cwd, timeout)
}

/// Like [`mpirun_timeout`], with arguments and environment values given as bytes (file
/// names that are not UTF-8).
pub fn mpirun_os(
    np: usize,
    args: &[&OsStr],
    env: &[(&str, &OsStr)],
    cwd: &Path,
    timeout: Duration,
) -> Outcome {
    let bin = h5perf_bin();
    assert!(bin.is_file(), "h5perf binary missing: {}", bin.display());
    let mut argv: Vec<OsString> = launcher().into_iter().map(OsString::from).collect();
    argv.extend(["-n".into(), np.to_string().into(), bin.into_os_string()]);
    argv.extend(args.iter().map(|a| a.to_os_string()));
    let argv: Vec<&OsStr> = argv.iter().map(OsString::as_os_str).collect();
    run_session_os(&argv, env, cwd, timeout)
}

/// [`run_session`] with arguments and environment values given as bytes.
pub fn run_session_os(
    argv: &[&OsStr],
    env: &[(&str, &OsStr)],
    cwd: &Path,
    timeout: Duration,
) -> Outcome {
    let cmdline = {
        let mut s = format!("cd {} && ", shell_quote(&cwd.to_string_lossy()));
        for (k, v) in OMPI_ENV {
            let _ = write!(s, "{}={} ", k, shell_quote(v));
        }
        for (k, v) in env {
            let _ = write!(s, "{}={} ", k, shell_quote(&v.to_string_lossy()));
        }
        s.push_str(
            &argv
                .iter()
                .map(|a| shell_quote(&a.to_string_lossy()))
                .collect::<Vec<_>>()
                .join(" "),
        );
        s
    };

    // Output goes to files, not pipes: nothing can block on a full pipe, and a rank that
    // outlives the launcher cannot keep a reader thread waiting.
    let capture = super::scratch_dir_in("h5perf-capture-", &std::env::temp_dir());
    let out_path = capture.path().join("stdout");
    let err_path = capture.path().join("stderr");
    let out_f = fs::File::create(&out_path).expect("create stdout capture");
    let err_f = fs::File::create(&err_path).expect("create stderr capture");

    // New session (setsid(1) execs in place, so the child's pid is the session id): the
    // ranks started by the launcher get process groups of their own but stay in this
    // session, so the whole job can be found and killed on a timeout.
    let mut cmd = Command::new("setsid");
    cmd.args(argv)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out_f))
        .stderr(Stdio::from(err_f));
    for k in CLEARED_ENV {
        cmd.env_remove(k);
    }
    for (k, v) in OMPI_ENV {
        cmd.env(k, v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let _guard = mpi_lock();
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{cmdline}`: {e}"));
    let sid = child.id() as i32;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => panic!("waiting for `{cmdline}` failed: {e}"),
        }
        if start.elapsed() > timeout {
            timed_out = true;
            // Polite first: the launcher tears its ranks down on SIGTERM.
            signal(sid, "TERM");
            let grace = Instant::now();
            let mut st = None;
            while grace.elapsed() < Duration::from_secs(3) {
                if let Ok(Some(s)) = child.try_wait() {
                    st = Some(s);
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            kill_session(sid);
            break match st {
                Some(s) => s,
                None => child.wait().expect("wait after kill"),
            };
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    // Nothing of the job may survive it (a stray rank would disturb later jobs).
    kill_session(sid);
    drop(_guard);

    let stdout = String::from_utf8_lossy(&fs::read(&out_path).unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&fs::read(&err_path).unwrap_or_default()).into_owned();
    let outcome = Outcome {
        stdout,
        stderr,
        status: status.code(),
        elapsed,
        cmdline,
    };
    if timed_out {
        panic!(
            "TIMEOUT: the job did not finish within {:?} and was killed\n{}",
            timeout,
            outcome.describe()
        );
    }
    outcome
}

/// Sends signal `sig` (a name such as `KILL`) to `pid` with kill(1).
fn signal(pid: i32, sig: &str) {
    let _ = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// The live processes of an MPI job started as session `sid` (setsid): the members of
/// the session and, transitively, their children, as `(pid, command name)`. The
/// children matter for MPICH: hydra starts its proxies and the ranks in sessions of
/// their own, so only the parent links tie them to the job (Open MPI's ranks stay in
/// the launcher's session).
pub fn job_processes(sid: i32) -> Vec<(i32, String)> {
    // (pid, ppid, session, comm) of every live process
    let mut procs: Vec<(i32, i32, i32, String)> = Vec::new();
    if let Ok(rd) = fs::read_dir("/proc") {
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // pid (comm) state ppid pgrp session ...
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
                continue;
            };
            let comm = stat[open + 1..close].to_string();
            let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
            if f.len() > 3 && f[0] != "Z" {
                let ppid = f[1].parse().unwrap_or(0);
                let session = f[3].parse().unwrap_or(0);
                procs.push((pid, ppid, session, comm));
            }
        }
    }
    let mut job: Vec<i32> = procs.iter().filter(|p| p.2 == sid).map(|p| p.0).collect();
    loop {
        let more: Vec<i32> = procs
            .iter()
            .filter(|p| !job.contains(&p.0) && job.contains(&p.1))
            .map(|p| p.0)
            .collect();
        if more.is_empty() {
            break;
        }
        job.extend(more);
    }
    procs
        .into_iter()
        .filter(|p| job.contains(&p.0))
        .map(|p| (p.0, p.3))
        .collect()
}

/// SIGKILLs every process of the job started as session `sid` ([`job_processes`]).
fn kill_session(sid: i32) {
    for _round in 0..3 {
        let job = job_processes(sid);
        if job.is_empty() {
            return;
        }
        // all at once: a launcher that sees a child die must not start anything new
        for (pid, _) in &job {
            signal(*pid, "KILL");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs a plain (non-MPI) tool, e.g. `h5dump`, with a timeout; returns the outcome.
pub fn run_tool(argv: &[&str], cwd: &Path, timeout: Duration) -> Outcome {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    // The MPI lock is harmless here and keeps tool runs off the cores of a running job.
    run_session(&argv, &[], cwd, timeout)
}

// ---------------------------------------------------------------------------------------
// Launcher noise
// ---------------------------------------------------------------------------------------

/// Removes launcher output from a stderr text: Open MPI's boxes delimited by lines of
/// dashes, MPICH hydra's boxes delimited by lines of `=` (`BAD TERMINATION OF ONE OF YOUR
/// APPLICATION PROCESSES`), hydra's `[mpiexec@host]`/`[proxy:...]` lines and MPICH's
/// `Abort(N) on node ...` lines, loose lines that mention the launcher, and Open MPI's
/// rsh launcher warning `[host:pid] plm:rsh: Warning: setpgid(P,P) failed in parent
/// with errno=Permission denied(13)` (the multi-node cases start remote daemons through
/// rsh; the warning is a race inside the launcher: the forked child has already called
/// exec when the parent sets its process group, which POSIX then refuses with EACCES).
pub fn filter_launcher_noise(stderr: &str) -> String {
    let mut out = String::new();
    let mut in_box = false;
    let mut in_eq_box = false;
    for line in stderr.lines() {
        if line.starts_with("---") {
            in_box = !in_box;
            continue;
        }
        if line.starts_with("=====") {
            in_eq_box = !in_eq_box;
            continue;
        }
        if in_box || in_eq_box {
            continue;
        }
        let l = line.to_ascii_lowercase();
        if l.contains("mpirun") || l.contains("mpiexec") || l.contains("primary job") {
            continue;
        }
        if line.starts_with("[proxy:") || (line.starts_with("Abort(") && l.contains(" on node ")) {
            continue;
        }
        if line.starts_with('[') && line.contains("] plm:rsh: Warning: setpgid(") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The name of the MPI flavour under test (`openmpi`, `mpich`), for tables.
pub fn flavour_name() -> &'static str {
    match flavour() {
        Flavour::OpenMpi => "openmpi",
        Flavour::Mpich => "mpich",
    }
}

/// The first `h5perf: ` line of the run's stderr (empty when there is none).
pub fn first_message(o: &Outcome) -> String {
    o.stderr_clean()
        .lines()
        .find(|l| l.starts_with("h5perf: "))
        .unwrap_or("")
        .to_string()
}

/// Print one row `TABLE|case|flavour|exit status|seconds|files left|message` on stderr
/// for a test's report table (`--nocapture` shows them; `grep ^TABLE` collects them):
/// `left` the files the run left (`none` when empty), `msg` cut at 300 characters.
pub fn table_row(case: &str, o: &Outcome, left: &[String], msg: &str) {
    eprintln!(
        "TABLE|{case}|{}|{:?}|{:.1}|{}|{}",
        flavour_name(),
        o.status,
        o.elapsed.as_secs_f64(),
        if left.is_empty() {
            "none".to_string()
        } else {
            left.join(" ")
        },
        msg.chars().take(300).collect::<String>()
    );
}
