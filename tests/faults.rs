//! Fault tests: what a user sees when the job is interrupted, a rank dies, or the file
//! system refuses to grow a file. Every case must end the whole job promptly, with a
//! non-zero status, and leave no data file behind (unless `HDF5_NOCLEANUP` is set).

mod common;

use common::*;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A long POSIX run: big enough to be interrupted while a data file exists.
const LONG_RUN: &[&str] = &[
    "-A", "posix", "-e", "128M", "-x", "1M", "-X", "1M", "-B", "1M", "-i", "200", "-p", "2",
];

/// Start `mpiexec -n 2 h5perf ARGS` in its own session (setsid), without waiting. The
/// launcher's stdout goes to `stdout_file` (read by `wait_job`), its stderr to a pipe.
fn spawn_job(args: &[&str], env: &[(&str, &str)], cwd: &Path, stdout_file: &Path) -> Child {
    let out = std::fs::File::create(stdout_file).expect("cannot create the stdout file");
    let mut cmd = Command::new("setsid");
    cmd.args(launcher())
        .args(["-n", "2"])
        .arg(h5perf_bin())
        .args(args);
    cmd.current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::piped());
    for k in CLEARED_ENV {
        cmd.env_remove(k);
    }
    for (k, v) in OMPI_ENV.iter().chain(env.iter()) {
        cmd.env(k, v);
    }
    cmd.spawn().expect("cannot start mpiexec")
}

/// Pids of the live processes of the job started as session `sid` whose command name
/// is `name` (MPICH's hydra starts its ranks in sessions of their own: the job is the
/// session and its descendants, see `job_processes`).
fn session_procs(sid: u32, name: &str) -> Vec<u32> {
    job_processes(sid as i32)
        .into_iter()
        .filter(|(_, comm)| comm == name)
        .map(|(pid, _)| pid as u32)
        .collect()
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .status()
        .map(|s| s.success());
    assert!(matches!(ok, Ok(true)), "kill -s {sig} {pid} failed");
}

/// Wait until a `#pio_tmp*` file exists in `dir` (the run is doing I/O).
fn wait_for_data_file(dir: &Path, child: &mut Child) {
    let t = Instant::now();
    while pio_tmp_files(dir).is_empty() {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("the job ended ({st}) before any data file appeared");
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no data file appeared within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// Wait for the job to end (at most `limit`); kill it and fail otherwise. Returns its
/// exit code (None: killed by a signal) and what it printed: stderr, then the contents
/// of `stdout_file`.
fn wait_job(mut child: Child, limit: Duration, stdout_file: &Path) -> (Option<i32>, String) {
    let sid = child.id();
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > limit {
            for p in session_procs(sid, "h5perf")
                .into_iter()
                .chain(session_procs(sid, "mpiexec"))
                .chain(session_procs(sid, "mpiexec.openmpi"))
                .chain(session_procs(sid, "mpiexec.mpich"))
                .chain(session_procs(sid, "hydra_pmi_proxy"))
            {
                let _ = Command::new("kill")
                    .args(["-s", "KILL", &p.to_string()])
                    .status();
            }
            let _ = child.wait();
            panic!("the job did not end within {limit:?} (a rank was left waiting)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // no rank may outlive the launcher
    let t = Instant::now();
    while !session_procs(sid, "h5perf").is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "h5perf ranks survived the launcher"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    err.push_str(&std::fs::read_to_string(stdout_file).unwrap_or_default());
    (status.code(), err)
}

fn interrupt(sig: &str, keep: bool) {
    let _guard = mpi_lock();
    let dir = scratch_dir();
    let env: &[(&str, &str)] = if keep {
        &[("HDF5_NOCLEANUP", "1")]
    } else {
        &[]
    };
    let logs = scratch_dir();
    let stdout_file = logs.path().join("stdout");
    let mut child = spawn_job(LONG_RUN, env, dir.path(), &stdout_file);
    wait_for_data_file(dir.path(), &mut child);
    signal(child.id(), sig);
    let (code, err) = wait_job(child, Duration::from_secs(30), &stdout_file);
    // MPICH's hydra, signalled itself, sometimes exits 0 after forwarding the signal to
    // the ranks (a race inside the launcher, whatever the ranks' status): only Open MPI's
    // launcher status is checked.
    if flavour() == Flavour::OpenMpi {
        assert_ne!(
            code,
            Some(0),
            "an interrupted run must not report success\n{err}"
        );
    }
    let left = pio_tmp_files(dir.path());
    if keep {
        assert_eq!(
            left,
            vec!["#pio_tmp_1.posix".to_string()],
            "HDF5_NOCLEANUP keeps the data file"
        );
    } else {
        assert!(
            left.is_empty(),
            "SIG{sig} must remove the data file, found {left:?}\n{err}"
        );
    }
}

#[test]
fn sigterm_removes_the_data_file() {
    interrupt("TERM", false);
}

#[test]
fn sigint_removes_the_data_file() {
    interrupt("INT", false);
}

#[test]
fn sigterm_keeps_the_data_file_with_nocleanup() {
    interrupt("TERM", true);
}

/// A rank killed mid-run: the launcher ends the job, no rank survives waiting.
/// What the user sees (Open MPI): `mpiexec noticed that process rank N ... exited on
/// signal 9 (Killed)` and a non-zero exit status.
#[test]
fn killed_rank_ends_the_job() {
    let _guard = mpi_lock();
    let dir = scratch_dir();
    let logs = scratch_dir();
    let stdout_file = logs.path().join("stdout");
    let mut child = spawn_job(LONG_RUN, &[], dir.path(), &stdout_file);
    wait_for_data_file(dir.path(), &mut child);
    let ranks = session_procs(child.id(), "h5perf");
    assert_eq!(ranks.len(), 2, "two ranks expected, found {ranks:?}");
    signal(*ranks.iter().max().unwrap(), "KILL");
    let (code, out) = wait_job(child, Duration::from_secs(60), &stdout_file);
    assert_ne!(code, Some(0), "{out}");
    // Open MPI names the rank on stderr ("exited on signal 9 (Killed)"); MPICH's hydra
    // prints a "BAD TERMINATION ... Killed (signal 9)" box on stdout.
    assert!(
        out.contains("signal 9") || out.contains("Killed"),
        "the launcher names the killed rank:\n{out}"
    );
}

/// A file system that refuses to grow the file (RLIMIT_FSIZE on the ranks, which makes
/// writes past 64 MiB fail with EFBIG): each API reports the failing call once, exits
/// non-zero and removes the data file. (Open MPI's OMPIO reports the failed pwrite only
/// on stderr and returns success with a short count; h5perf checks the count.)
fn file_too_large(api: &str, call: &str) {
    let dir = scratch_dir();
    let mut argv: Vec<String> = launcher();
    argv.extend(["-n", "2", "prlimit", "--fsize=67108864"].map(String::from));
    argv.push(h5perf_bin().to_string_lossy().into_owned());
    argv.extend(
        [
            "-A", api, "-e", "64M", "-x", "8M", "-X", "8M", "-B", "8M", "-p", "2",
        ]
        .map(String::from),
    );
    let o = run_session(&argv, &[], dir.path(), Duration::from_secs(60));
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "-A {api}: must fail\n{}",
        o.describe()
    );
    let msg = o.single_message(&format!("-A {api}"));
    assert!(
        msg.starts_with("h5perf: rank ") && msg.contains(call),
        "-A {api}: {msg}"
    );
    assert!(
        !o.stderr.contains("Segmentation fault"),
        "-A {api}: crash\n{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("Throughput"),
        "-A {api}: no result for a failed run\n{}",
        o.describe()
    );
    assert!(
        pio_tmp_files(dir.path()).is_empty(),
        "-A {api}: data file left behind"
    );
}

#[test]
fn file_too_large_posix() {
    file_too_large("posix", "pwrite(#pio_tmp_1.posix) failed: File too large");
}

#[test]
fn file_too_large_mpiio() {
    // Open MPI's OMPIO returns a short count; MPICH's ROMIO returns an error
    // ("Other I/O error") with its own error stack.
    let call = match flavour() {
        Flavour::OpenMpi => "MPI_File_write_at failed: short transfer",
        Flavour::Mpich => "MPI_File_write_at failed: ",
    };
    file_too_large("mpiio", call);
}

#[test]
fn file_too_large_phdf5() {
    file_too_large("phdf5", "H5Dwrite failed");
}

/// A data file changed between the write and the read phase (`-D v`): an LD_PRELOAD
/// shim (`tests/corrupt_shim.c`, built here with `cc`) overwrites one byte of each
/// data file when the write phase closes it. Verification must catch it, name the
/// file, dataset and offset, and the exit status must be non-zero.
#[test]
fn verification_catches_a_file_changed_between_write_and_read() {
    let build = scratch_dir();
    let shim = build_shim(build.path(), "corrupt_shim");
    // byte 5 of the raw files; HDF5's contiguous raw data starts at 2048 (spec §6.5)
    for (api, place) in [
        ("posix", "#pio_tmp_1.posix, dataset 1, file offset 5"),
        ("mpiio", "#pio_tmp_1.mpio, dataset 1, file offset 5"),
        ("phdf5", "#pio_tmp_1.h5, Dataset_1, element offset 5"),
    ] {
        let dir = scratch_dir();
        let env = [
            ("LD_PRELOAD", shim.as_str()),
            ("H5PERF_TEST_CORRUPT_AT", "5"),
            ("H5PERF_TEST_CORRUPT_H5_AT", "2053"),
        ];
        let o = mpirun_timeout(
            2,
            &[
                "-A", api, "-D", "v", "-e", "64", "-x", "32", "-X", "32", "-B", "32", "-p", "2",
            ],
            &env,
            dir.path(),
            Duration::from_secs(60),
        );
        assert!(
            matches!(o.status, Some(c) if c != 0),
            "-A {api}: must fail\n{}",
            o.describe()
        );
        assert!(
            o.stdout
                .contains("0: read data error, expected (1), got (238)"),
            "{}",
            o.describe()
        );
        assert!(
            o.stdout.contains(&format!(
                "rank 0: verification failed in {place}: 1 of 32 bytes wrong in transfer 0"
            )),
            "-A {api}\n{}",
            o.describe()
        );
        assert!(
            o.stderr_clean()
                .contains("h5perf: data verification failed: 1 byte(s)"),
            "{}",
            o.describe()
        );
    }
}

/// A full file system (a 16 MiB tmpfs receiving a 32 MiB file): one message naming the
/// failing call and "No space left on device" (or the MPI library's short transfer),
/// non-zero exit, the partial file removed.
fn full_file_system(api: &str, call: &str) {
    let fs = Tmpfs::mount("size=16m");
    let work = scratch_dir();
    let o = mpirun_timeout(
        2,
        &[
            "-A", api, "-e", "16M", "-x", "4M", "-X", "4M", "-B", "4M", "-p", "2",
        ],
        &[("HDF5_PARAPREFIX", &fs.path())],
        work.path(),
        Duration::from_secs(60),
    );
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "-A {api}: must fail\n{}",
        o.describe()
    );
    let msg = o.single_message(&format!("-A {api}"));
    assert!(msg.contains(call), "-A {api}: {msg:?} lacks {call:?}");
    assert!(!o.stderr.contains("Segmentation fault"), "{}", o.describe());
    assert!(
        pio_tmp_files(fs.dir.path()).is_empty(),
        "-A {api}: partial file left on the full file system"
    );
}

#[test]
fn full_file_system_posix() {
    full_file_system("posix", "pwrite(");
}

#[test]
fn full_file_system_mpiio() {
    full_file_system("mpiio", "MPI_File_write_at");
}

#[test]
fn full_file_system_phdf5() {
    full_file_system("phdf5", "H5Dwrite failed");
}

/// A read-only data directory is refused before any file is opened.
#[test]
fn read_only_directory_is_refused_up_front() {
    let fs = Tmpfs::mount("ro,size=1m");
    let work = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-A", "posix"],
        &[("HDF5_PARAPREFIX", &fs.path())],
        work.path(),
        Duration::from_secs(30),
    );
    assert!(matches!(o.status, Some(c) if c != 0), "{}", o.describe());
    let err = o.stderr_clean();
    assert!(
        err.contains("HDF5_PARAPREFIX") && err.contains("Read-only file system"),
        "{}",
        o.describe()
    );
    assert!(!o.stdout.contains("==== Parameters"), "{}", o.describe());
}
