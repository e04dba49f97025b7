//! Shared harness for the MPI integration tests of `h5perf`.
//!
//! * `mpirun` launches `MPIEXEC FLAGS -n NP h5perf ARGS` with a controlled environment and a
//!   hard timeout (the whole launcher session is killed and the test fails with the command
//!   line — a hang must never block CI). The launcher and its flags come from
//!   `H5PERF_MPIEXEC` / `H5PERF_MPIEXEC_FLAGS` (set by the Makefile for the MPI flavour);
//!   the default is Open MPI's `mpiexec.openmpi --oversubscribe`. Flavour differences the
//!   tests must know (launcher flags, per-rank environment, `MPI_MAX_INFO_VAL`) are here.
//! * golden-transcript helpers: parsing `cases.txt`, filtering Open MPI launcher banners,
//!   normalising run-dependent figures, and comparing reports (ordered, or — when several
//!   ranks print — as a multiset plus per-rank order).
//! * small file helpers (scratch directories, `#pio_tmp_*` listings, `h5dump`).
//!
//! Every test binary includes this module, so not every helper is used everywhere.
#![allow(dead_code)]

pub mod nodes; // simulated nodes for tests/multinode.rs (scripts/sim-nodes)

use std::collections::BTreeMap;
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

/// Root of the package (where Cargo.toml is).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------------------
// Scratch directories and files
// ---------------------------------------------------------------------------------------

/// A fresh, empty scratch directory, removed when dropped.
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("h5perf-test-")
        .tempdir()
        .expect("cannot create a scratch directory")
}

/// Names (not paths) of the `#pio_tmp*` files in `dir`, sorted.
pub fn pio_tmp_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("#pio_tmp"))
        .collect();
    v.sort();
    v
}

/// All entry names in `dir`, sorted.
pub fn dir_entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
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

/// Runs `argv` (launcher included) as its own session with captured output.
pub fn run_session(
    argv: &[String],
    env: &[(&str, &str)],
    cwd: &Path,
    timeout: Duration,
) -> Outcome {
    let cmdline = {
        let mut s = format!("cd {} && ", shell_quote(&cwd.to_string_lossy()));
        for (k, v) in OMPI_ENV.iter().chain(env.iter()) {
            let _ = write!(s, "{}={} ", k, shell_quote(v));
        }
        s.push_str(
            &argv
                .iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
        );
        s
    };

    // Output goes to files, not pipes: nothing can block on a full pipe, and a rank that
    // outlives the launcher cannot keep a reader thread waiting.
    let capture = tempfile::Builder::new()
        .prefix("h5perf-capture-")
        .tempdir()
        .expect("cannot create capture directory");
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
/// `Abort(N) on node ...` lines, and loose lines that mention the launcher.
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
        out.push_str(line);
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------
// Golden transcripts
// ---------------------------------------------------------------------------------------

/// Directory of the golden transcripts: `$H5PERF_GOLDEN_DIR`, else `tests/golden` in the
/// package, else `../shared/golden` beside the package (the CI layout), else
/// `/work/shared/golden`. Fails when none exists.
pub fn golden_dir() -> PathBuf {
    let mut candidates = Vec::new();
    if let Ok(d) = std::env::var("H5PERF_GOLDEN_DIR") {
        candidates.push(PathBuf::from(d));
    }
    candidates.push(manifest_dir().join("tests/golden"));
    candidates.push(manifest_dir().join("../shared/golden"));
    candidates.push(PathBuf::from("/work/shared/golden"));
    for c in &candidates {
        if c.join("cases.txt").is_file() {
            return c.clone();
        }
    }
    panic!(
        "golden transcripts not found (looked for cases.txt in {:?}); set H5PERF_GOLDEN_DIR",
        candidates
    );
}

/// One line of `cases.txt`: `NAME NPROCS [ENV=VALUE ...] ARGS`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    pub np: usize,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
}

/// Shell-like word splitting: blanks separate words; single quotes, double quotes and
/// backslashes quote as in sh.
pub fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if have {
                    words.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            '\'' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err(format!("unterminated ' in: {line}")),
                    }
                }
            }
            '"' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x)
                            }
                            None => return Err(format!("unterminated \" in: {line}")),
                        },
                        Some(x) => cur.push(x),
                        None => return Err(format!("unterminated \" in: {line}")),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            _ => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        words.push(cur);
    }
    Ok(words)
}

fn is_env_assignment(w: &str) -> Option<(String, String)> {
    let eq = w.find('=')?;
    let key = &w[..eq];
    let mut cs = key.chars();
    let first = cs.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((key.to_string(), w[eq + 1..].to_string()))
}

/// Parses the text of `cases.txt`.
pub fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = shell_words(line).unwrap_or_else(|e| panic!("cases.txt line {}: {e}", no + 1));
        assert!(
            words.len() >= 2,
            "cases.txt line {}: need NAME NPROCS: {raw}",
            no + 1
        );
        let np: usize = words[1]
            .parse()
            .unwrap_or_else(|_| panic!("cases.txt line {}: bad NPROCS {:?}", no + 1, words[1]));
        let mut i = 2;
        let mut env = Vec::new();
        while i < words.len() {
            match is_env_assignment(&words[i]) {
                Some(kv) => {
                    env.push(kv);
                    i += 1;
                }
                None => break,
            }
        }
        cases.push(Case {
            name: words[0].clone(),
            np,
            env,
            args: words[i..].to_vec(),
        });
    }
    cases
}

/// All cases of the golden `cases.txt`.
pub fn golden_cases() -> Vec<Case> {
    let path = golden_dir().join("cases.txt");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_cases(&text)
}

/// One case by name (fails if absent).
pub fn golden_case(name: &str) -> Case {
    golden_cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| {
            panic!(
                "case {name} not found in {}/cases.txt",
                golden_dir().display()
            )
        })
}

/// The stored transcript of a case.
pub struct Golden {
    pub stdout: String,
    pub stderr: String,
    pub rc: i32,
}

/// The golden transcripts were recorded with Open MPI, whose `MPI_MAX_INFO_VAL` is 256; the
/// release prints the flavour's own value there (spec §2.2), so under MPICH the exact header
/// line reads `(up to 1024 bytes per item)`. Nothing else is changed.
pub fn for_flavour(golden_stdout: &str) -> String {
    const RECORDED: &str = "Dumping MPI Info Object (up to 256 bytes per item):";
    golden_stdout.replace(RECORDED, &info_dump_header())
}

/// One golden case's transcript: stdout (adjusted by [`for_flavour`]), stderr and the
/// launcher's exit status.
pub fn golden(name: &str) -> Golden {
    let d = golden_dir();
    let read = |ext: &str| {
        let p = d.join(format!("{name}.{ext}"));
        fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read golden {}: {e}", p.display()))
    };
    let rc = read("rc")
        .trim()
        .parse()
        .expect("golden .rc is not an integer");
    Golden {
        stdout: for_flavour(&read("out")),
        stderr: read("err"),
        rc,
    }
}

// ---------------------------------------------------------------------------------------
// Normalisation of run-dependent figures
// ---------------------------------------------------------------------------------------

/// True when `field` is exactly what C's `printf("%W.Pf")` can print (width `width`,
/// `prec` decimals; `width` 0 = no width).
pub fn is_printf_f(field: &str, width: usize, prec: usize) -> bool {
    let num = field.trim_start_matches(' ');
    let pad = field.len() - num.len();
    // Padding only when the number is shorter than the width, and exactly up to it.
    if pad > 0 && field.len() != width {
        return false;
    }
    if num.len() < width && pad == 0 {
        return false;
    }
    let digits = num.strip_prefix('-').unwrap_or(num);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let int_ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && (int.len() == 1 || !int.starts_with('0'));
    let frac_ok = match (prec, frac) {
        (0, None) => true,
        (p, Some(f)) if p > 0 => f.len() == p && f.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    };
    int_ok && frac_ok
}

fn figure(field: &str, width: usize, prec: usize, tag: &str) -> String {
    if is_printf_f(field, width, prec) {
        format!("<{tag}>")
    } else {
        // Keep the offending text: the comparison then fails and shows it.
        format!("<BAD-FORMAT %{width}.{prec}f: {field:?}>")
    }
}

/// Replaces the run-dependent figures of one report line by placeholders:
/// throughput (`%6.2f MB/s` and ` (%7.3f s)`), accumulated times (`%7.5f s`), per-iteration
/// detail times (`%.2fs`). Every other character, the info-dump header included, is
/// compared as it is.
/// A figure that does not have the exact printf shape is replaced by a `<BAD-FORMAT ...>`
/// marker, so that a comparison with a well-formed line fails.
pub fn normalize_line(line: &str) -> String {
    let body = line.trim_start_matches(' ');
    let indent = &line[..line.len() - body.len()];

    for kind in ["Maximum", "Average", "Minimum"] {
        let head = format!("{kind} Throughput: ");
        if let Some(rest) = body.strip_prefix(head.as_str()) {
            if let Some(idx) = rest.find(" MB/s") {
                let (num, after) = (&rest[..idx], &rest[idx + 5..]);
                let mut out = format!("{indent}{head}{} MB/s", figure(num, 6, 2, "MBPS"));
                if after.is_empty() {
                    return out;
                }
                if let Some(t) = after.strip_prefix(" (").and_then(|t| t.strip_suffix(" s)")) {
                    let _ = write!(out, " ({} s)", figure(t, 7, 3, "SECS"));
                    return out;
                }
                return line.to_string();
            }
        }
        let head = format!("{kind} Accumulated Time using ");
        if let Some(rest) = body.strip_prefix(head.as_str()) {
            if let Some(idx) = rest.find(" file(s): ") {
                let files = &rest[..idx];
                if let Some(t) = rest[idx + 10..].strip_suffix(" s") {
                    return format!(
                        "{indent}{head}{files} file(s): {} s",
                        figure(t, 7, 5, "ACCT")
                    );
                }
            }
        }
    }
    for kind in ["Minimum", "Maximum"] {
        let head = format!("{kind} Time: ");
        if let Some(t) = body
            .strip_prefix(head.as_str())
            .and_then(|r| r.strip_suffix('s'))
        {
            return format!("{indent}{head}{}s", figure(t, 0, 2, "TIME"));
        }
    }
    line.to_string()
}

/// Splits a text into lines (a final newline does not make an extra empty line) and
/// normalises each.
pub fn normalized_lines(text: &str) -> Vec<String> {
    text.lines().map(normalize_line).collect()
}

/// World rank that printed a line, when the line says so (`rank K: ...`).
pub fn rank_prefix(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("rank ")?;
    let colon = rest.find(": ").or_else(|| {
        if rest.ends_with(':') {
            Some(rest.len() - 1)
        } else {
            None
        }
    })?;
    rest[..colon].parse().ok()
}

/// Lines that certainly come from world rank 0 when several ranks print: its `rank 0:`
/// lines, and the headers/results only rank 0 prints (indented lines, `Number of
/// processors`, `Transfer Buffer Size`, `Timer details:`). Lines every rank prints without a
/// rank prefix (version line, MPI-info dump body, blank line) are left out.
pub fn is_rank0_line(line: &str) -> bool {
    match rank_prefix(line) {
        Some(r) => r == 0,
        None => {
            line.starts_with(' ')
                || line.starts_with("Number of processors = ")
                || line.starts_with("Transfer Buffer Size: ")
                || line.starts_with("Timer details:")
        }
    }
}

/// A small line diff (LCS based) for messages.
pub fn line_diff(expected: &[String], actual: &[String]) -> String {
    let n = expected.len();
    let m = actual.len();
    if n * m > 4_000_000 {
        return format!("(too long to diff: {n} vs {m} lines)");
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j, mut shown) = (0, 0, 0);
    while (i < n || j < m) && shown < 60 {
        if i < n && j < m && expected[i] == actual[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "+ [actual line {}] {:?}", j + 1, actual[j]);
            j += 1;
            shown += 1;
        } else {
            let _ = writeln!(out, "- [expected line {}] {:?}", i + 1, expected[i]);
            i += 1;
            shown += 1;
        }
    }
    if shown == 60 {
        out.push_str("... (more differences)\n");
    }
    out
}

fn multiset(lines: &[String]) -> BTreeMap<&str, i64> {
    let mut m = BTreeMap::new();
    for l in lines {
        *m.entry(l.as_str()).or_insert(0) += 1;
    }
    m
}

/// Compares two reports after normalisation.
///
/// * If the expected report has lines of other ranks (`rank K:` with K != 0, i.e. debug
///   level >= 1 where every rank prints and the launcher interleaves their streams), the
///   comparison is: same multiset of lines; same sequence of world rank 0's own lines
///   ([`is_rank0_line`]); and, for each other rank K, same sequence of its `rank K:` lines.
/// * Otherwise the lines must be equal one by one, in order.
///
/// The expected text is a golden transcript as [`golden`] returns it (its info-dump header
/// already carries the flavour's `MPI_MAX_INFO_VAL`).
pub fn compare_reports(expected: &str, actual: &str) -> Result<(), String> {
    let exp = normalized_lines(expected);
    let act = normalized_lines(actual);
    let bad: Vec<&String> = act.iter().filter(|l| l.contains("<BAD-")).collect();
    if !bad.is_empty() {
        return Err(format!("badly formatted figures in the output: {bad:#?}"));
    }
    let multi_rank = exp
        .iter()
        .any(|l| matches!(rank_prefix(l), Some(r) if r != 0));
    if !multi_rank {
        if exp != act {
            return Err(format!(
                "report differs (ordered comparison):\n{}",
                line_diff(&exp, &act)
            ));
        }
        return Ok(());
    }
    let (me, ma) = (multiset(&exp), multiset(&act));
    if me != ma {
        let mut msg = String::from("report differs (multiset of lines; several ranks print):\n");
        let keys: std::collections::BTreeSet<&str> = me.keys().chain(ma.keys()).copied().collect();
        for k in keys {
            let (e, a) = (
                me.get(k).copied().unwrap_or(0),
                ma.get(k).copied().unwrap_or(0),
            );
            if e != a {
                let _ = writeln!(msg, "  expected {e}x, got {a}x: {k:?}");
            }
        }
        return Err(msg);
    }
    let e0: Vec<String> = exp.iter().filter(|l| is_rank0_line(l)).cloned().collect();
    let a0: Vec<String> = act.iter().filter(|l| is_rank0_line(l)).cloned().collect();
    if e0 != a0 {
        return Err(format!(
            "order of world rank 0's lines differs:\n{}",
            line_diff(&e0, &a0)
        ));
    }
    let ranks: std::collections::BTreeSet<u32> = exp
        .iter()
        .filter_map(|l| rank_prefix(l))
        .filter(|r| *r != 0)
        .collect();
    for r in ranks {
        let ek: Vec<String> = exp
            .iter()
            .filter(|l| rank_prefix(l) == Some(r))
            .cloned()
            .collect();
        let ak: Vec<String> = act
            .iter()
            .filter(|l| rank_prefix(l) == Some(r))
            .cloned()
            .collect();
        if ek != ak {
            return Err(format!(
                "order of rank {r}'s lines differs:\n{}",
                line_diff(&ek, &ak)
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// HDF5 helpers
// ---------------------------------------------------------------------------------------

/// Raw bytes of a 1-byte-element dataset, read with `h5dump -b LE`.
pub fn h5_dataset_bytes(file: &Path, dataset: &str) -> Vec<u8> {
    let h5dump = require_tool("h5dump", "hdf5-tools");
    let tmp = scratch_dir();
    let out = tmp.path().join("data.bin");
    let o = run_tool(
        &[
            h5dump.to_str().unwrap(),
            "-b",
            "LE",
            "-d",
            dataset,
            "-o",
            out.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        tmp.path(),
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5dump failed\n{}", o.describe());
    fs::read(&out)
        .unwrap_or_else(|e| panic!("h5dump wrote no {}: {e}\n{}", out.display(), o.describe()))
}

/// `h5dump -p -H -d DATASET FILE` text (properties and header only).
pub fn h5_dataset_properties(file: &Path, dataset: &str) -> String {
    let h5dump = require_tool("h5dump", "hdf5-tools");
    let dir = file.parent().unwrap_or(Path::new("."));
    let o = run_tool(
        &[
            h5dump.to_str().unwrap(),
            "-p",
            "-H",
            "-d",
            dataset,
            file.to_str().unwrap(),
        ],
        dir,
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5dump -p -H failed\n{}", o.describe());
    o.stdout
}

/// Object names and descriptions listed by `h5ls FILE` (e.g. `("Dataset_1", "Dataset {24}")`).
pub fn h5_list(file: &Path) -> Vec<(String, String)> {
    let h5ls = require_tool("h5ls", "hdf5-tools");
    let dir = file.parent().unwrap_or(Path::new("."));
    let o = run_tool(
        &[h5ls.to_str().unwrap(), file.to_str().unwrap()],
        dir,
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5ls failed\n{}", o.describe());
    o.stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.splitn(2, char::is_whitespace);
            let name = it.next().unwrap_or("").to_string();
            let desc = it.next().unwrap_or("").trim().to_string();
            (name, desc)
        })
        .collect()
}
