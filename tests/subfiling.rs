//! `--subfiling` (issue 33): PHDF5 through HDF5's subfiling file driver, proven from
//! outside on the files a run leaves with `HDF5_NOCLEANUP=1` (the stub, its
//! configuration file and the subfiles, named after the stub's inode) and on the empty
//! directory a run leaves without it; `-D v` reads every byte back. Against an HDF5
//! without the driver (Debian's 1.10.8: no `H5Pset_fapl_subfiling` among the library's
//! symbols) the same run is refused with the reason; each refused combination and an
//! MPI without `MPI_THREAD_MULTIPLE` (tests/thread_shim.c) are refused before any I/O.

mod common;

use common::*;
use serde_json::Value as J;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 oversubscribed cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// Whether the linked HDF5 exports `H5Pset_fapl_subfiling` (its dynamic symbol table
/// holds the name), read from the library file, not through h5perf.
fn library_has_subfiling() -> bool {
    let lib = linked_hdf5_library();
    let bytes = std::fs::read(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let name = b"H5Pset_fapl_subfiling\0";
    bytes.windows(name.len()).any(|w| w == name)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const RUN: [&str; 16] = [
    "-A",
    "phdf5",
    "--subfiling",
    "-e",
    "64K",
    "-x",
    "16K",
    "-X",
    "16K",
    "-B",
    "16K",
    "-p",
    "2",
    "-D",
    "v",
    "-C",
];

/// With the driver: a 2-rank run kept by `HDF5_NOCLEANUP=1` leaves the stub, the
/// configuration file `#pio_tmp_1.h5.subfile_INODE.config` (INODE: the stub's) and the
/// one subfile it names (one node, one I/O concentrator, HDF5's 32 MiB stripe), which
/// holds the 128 KiB of data; the results record what the configuration says. A second
/// run without it in the same directory removes the kept files first and its own at the
/// end: nothing is left. Without the driver the run is refused, with the reason, and
/// makes no file.
#[test]
fn subfiling_run_keeps_its_subfiles_with_nocleanup_and_removes_them_without() {
    let dir = scratch_dir();
    let mut args = RUN.to_vec();
    args.extend(["--json", "r.json"]);
    let o = mpirun_timeout(
        2,
        &args,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    if !library_has_subfiling() {
        o.assert_refused_without_output("--subfiling without the driver");
        let m = o.single_message("--subfiling without the driver");
        assert!(
            m.contains(&format!(
                "the linked HDF5 {} has no subfiling file driver (H5Pset_fapl_subfiling)",
                linked_hdf5_version()
            )),
            "{m}"
        );
        assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
        return;
    }
    assert_ok(&o, "--subfiling kept");
    assert!(
        o.stdout.contains("VFL used for HDF5 I/O=subfiling driver"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("IO API = PHDF5 (w/subfiling driver)"),
        "{}",
        o.stdout
    );
    let stub = dir.path().join("#pio_tmp_1.h5");
    let ino = std::fs::metadata(&stub).expect("the stub is kept").ino();
    let config_name = format!("#pio_tmp_1.h5.subfile_{ino}.config");
    let sub_name = format!("#pio_tmp_1.h5.subfile_{ino}_1_of_1");
    assert_eq!(
        names(dir.path())
            .into_iter()
            .filter(|n| n.starts_with("#pio_tmp"))
            .collect::<Vec<_>>(),
        vec![
            "#pio_tmp_1.h5".to_string(),
            config_name.clone(),
            sub_name.clone()
        ]
    );
    let config = std::fs::read_to_string(dir.path().join(&config_name)).unwrap();
    for line in [
        "stripe_size=33554432",
        "aggregator_count=1",
        "subfile_count=1",
    ] {
        assert!(config.lines().any(|l| l == line), "{line}: {config}");
    }
    assert!(config.lines().any(|l| l == sub_name), "{config}");
    let data = std::fs::metadata(dir.path().join(&sub_name)).unwrap().len();
    assert!(
        data >= 2 * 64 * 1024,
        "the subfile holds {data} bytes: {config}"
    );
    let j: J =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let text = j.to_string();
    for (k, v) in [
        ("hdf5_driver", "subfiling"),
        ("hdf5_subfiling_stripe_size", "33554432"),
        ("hdf5_subfiling_ioc_count", "1"),
        ("hdf5_subfiling_subfiles", "1"),
        ("subfiling", "on"),
    ] {
        assert!(
            text.contains(&format!("\"{k}\":\"{v}\"")),
            "{k}={v}: {text}"
        );
    }

    let o = mpirun_timeout(2, &RUN, &[], dir.path(), RUN_TIMEOUT);
    assert_ok(&o, "--subfiling removed");
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with("#pio_tmp"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Every combination `--subfiling` cannot do is refused in one run before any I/O, each
/// with its reason: other APIs, `--read-only` (the trial's kept stub could not be read),
/// `--mpi-info`, `--coll-metadata`, `-g`, `-I`, `-c` with
/// transfers of several chunks, the subfile directory variable.
#[test]
fn subfiling_refuses_what_it_cannot_do() {
    let dir = scratch_dir();
    let args = [
        "-A",
        "phdf5,mpiio",
        "--subfiling",
        "--read-only",
        "--mpi-info",
        "cb_nodes=1",
        "--coll-metadata",
        "-g",
        "-I",
        "-c",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "32K",
        "-B",
        "16K",
    ];
    let o = mpirun_timeout(
        2,
        &args,
        &[("H5FD_SUBFILING_SUBFILE_PREFIX", "/tmp")],
        dir.path(),
        RUN_TIMEOUT,
    );
    o.assert_refused_without_output("--subfiling combinations");
    let err = o.stderr_clean();
    for want in [
        "--subfiling needs -A phdf5 alone",
        "--subfiling cannot be combined with --read-only yet",
        "--subfiling cannot be combined with --mpi-info",
        "--subfiling cannot be combined with --coll-metadata",
        "--subfiling cannot be combined with -g",
        "--subfiling cannot be combined with -I",
        "--subfiling cannot be combined with -c with transfers larger than the block",
        "--subfiling cannot run with H5FD_SUBFILING_SUBFILE_PREFIX set",
    ] {
        assert!(err.contains(want), "{want}\n{}", o.describe());
    }
    assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
}

/// An MPI that gives less than `MPI_THREAD_MULTIPLE` (the shim makes `MPI_Init_thread`
/// provide `MPI_THREAD_SERIALIZED`) refuses `--subfiling` before any I/O, with the
/// reason.
#[test]
fn subfiling_needs_mpi_thread_multiple() {
    let dir = scratch_dir();
    let shim = build_shim(dir.path(), "thread_shim");
    let env = [("LD_PRELOAD", shim.as_str())];
    let o = mpirun_timeout(2, &RUN, &env, dir.path(), RUN_TIMEOUT);
    o.assert_refused_without_output("--subfiling without MPI_THREAD_MULTIPLE");
    let err = o.stderr_clean();
    assert!(
        err.contains("--subfiling: MPI does not provide MPI_THREAD_MULTIPLE (MPI_Query_thread)"),
        "{}",
        o.describe()
    );
    assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
}

/// A `--subfiling` run of 2 ranks started in the background with `iocs` I/O
/// concentrators per node (`H5FD_SUBFILING_IOC_PER_NODE`), its writes to the subfiles
/// made slow (tests/slow_shim.c: rank 0's I/O concentrator sleeps 60 s in its first
/// write to a subfile, after creating `mark`): the launcher's session and its logs.
struct SlowJob {
    child: std::process::Child,
    logs: tempfile::TempDir,
    /// Every process of the job seen so far.
    seen: Vec<i32>,
}

impl SlowJob {
    fn start(dir: &Path, shim: &str, mark: &Path, iocs: &str) -> SlowJob {
        use std::process::{Command, Stdio};
        let logs = scratch_dir();
        let mut cmd = Command::new("setsid");
        cmd.args(launcher())
            .args(["-n", "2"])
            .arg(h5perf_bin())
            .args(RUN)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(logs.path().join("stdout")).unwrap())
            .stderr(std::fs::File::create(logs.path().join("stderr")).unwrap());
        for k in CLEARED_ENV {
            cmd.env_remove(k);
        }
        for (k, v) in OMPI_ENV {
            cmd.env(k, v);
        }
        cmd.env("LD_PRELOAD", shim)
            .env("H5PERF_TEST_SLOW_RANK", "0")
            .env("H5PERF_TEST_SLOW_MS", "60000")
            .env("H5PERF_TEST_SLOW_ONCE", "1")
            .env("H5PERF_TEST_SLOW_PATH", ".subfile_")
            .env("H5PERF_TEST_SLOW_MARK", mark)
            .env("H5FD_SUBFILING_IOC_PER_NODE", iocs);
        SlowJob {
            child: cmd.spawn().expect("cannot start the launcher"),
            logs,
            seen: Vec::new(),
        }
    }

    fn output(&self) -> String {
        let read = |n: &str| std::fs::read_to_string(self.logs.path().join(n)).unwrap_or_default();
        format!("{}{}", read("stderr"), read("stdout"))
    }

    /// Every process of the job (launcher, ranks, rank 0's reaper), remembered in
    /// `seen` for [`SlowJob::wait_all`].
    fn processes(&mut self) -> Vec<(i32, String)> {
        let p = job_processes(self.child.id() as i32);
        for (pid, _) in &p {
            if !self.seen.contains(pid) {
                self.seen.push(*pid);
            }
        }
        p
    }

    /// Wait until the shim marks the first write to a subfile (the files are open and
    /// the data phase has begun); fails if the job ends first or after `RUN_TIMEOUT`.
    fn wait_for_mark(&mut self, mark: &Path) {
        let t = std::time::Instant::now();
        while !mark.exists() {
            if let Ok(Some(st)) = self.child.try_wait() {
                panic!(
                    "the job ended ({st}) before its first subfile write:\n{}",
                    self.output()
                );
            }
            if t.elapsed() > RUN_TIMEOUT {
                self.kill_all();
                panic!(
                    "no subfile write within {RUN_TIMEOUT:?}:\n{}",
                    self.output()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.processes();
    }

    /// Wait for every process of the job ever seen (rank 0's reaper, in a session of
    /// its own, too) to end, at most `RUN_TIMEOUT` (then SIGKILL and fail).
    fn wait_all(&mut self) {
        let t = std::time::Instant::now();
        loop {
            let _ = self.child.try_wait();
            self.processes();
            let alive: Vec<i32> = self
                .seen
                .iter()
                .copied()
                .filter(|p| {
                    std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                        !s.rsplit(')')
                            .next()
                            .unwrap_or("")
                            .trim_start()
                            .starts_with('Z')
                    })
                })
                .collect();
            if alive.is_empty() {
                return;
            }
            if t.elapsed() > RUN_TIMEOUT {
                self.kill_all();
                panic!(
                    "the job did not end within {RUN_TIMEOUT:?}: {alive:?}\n{}",
                    self.output()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill_all(&mut self) {
        let p = self.processes();
        signal(&p, "KILL");
        let _ = self.child.wait();
    }
}

/// `kill -s SIG` to every process of `procs` with one kill(1).
fn signal(procs: &[(i32, String)], sig: &str) {
    if procs.is_empty() {
        return;
    }
    let _ = std::process::Command::new("kill")
        .args(["-s", sig])
        .args(procs.iter().map(|(p, _)| p.to_string()))
        .stderr(std::process::Stdio::null())
        .status();
}

/// The subfiling driver's files in `dir`: the configuration file and the subfiles.
fn subfiling_files(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.contains(".subfile_"))
        .collect()
}

/// Without the driver: the run is refused with the reason and makes no file (the
/// signal cases below need the driver).
fn refused_without_the_driver(dir: &Path) {
    let o = mpirun_timeout(2, &RUN, &[], dir, RUN_TIMEOUT);
    o.assert_refused_without_output("--subfiling without the driver");
    assert!(
        o.stderr_clean().contains("has no subfiling file driver"),
        "{}",
        o.describe()
    );
    assert!(!names(dir).iter().any(|n| n.starts_with("#pio_tmp")));
}

/// A `--subfiling` run stopped with SIGTERM (as Slurm or a user stops a job; sent to
/// both ranks at once) in its data phase, while the stub, the configuration file and
/// the subfiles exist, leaves none of them: the signal handlers remove the subfiles and
/// the configuration file registered when the file was opened, as they remove the stub.
/// Two concentrators (`H5FD_SUBFILING_IOC_PER_NODE=2`, as one per node on two nodes):
/// rank 1 holds its subfile open, not the stub, which the check of the opened file
/// takes as the library's own.
#[test]
fn subfiling_run_stopped_by_sigterm_leaves_no_subfile() {
    let dir = scratch_dir();
    if !library_has_subfiling() {
        return refused_without_the_driver(dir.path());
    }
    let side = scratch_dir();
    let shim = slow_shim(side.path());
    let mark = side.path().join("mark");
    let guard = mpi_lock();
    let mut job = SlowJob::start(dir.path(), &shim, &mark, "2");
    job.wait_for_mark(&mark);
    let during = subfiling_files(dir.path());
    assert_eq!(
        during.len(),
        3,
        "a configuration file and two subfiles (rank 1 a concentrator too): {during:?}"
    );
    assert!(
        dir.path().join("#pio_tmp_1.h5").exists(),
        "{:?}",
        names(dir.path())
    );
    let ranks: Vec<(i32, String)> = job
        .processes()
        .into_iter()
        .filter(|(_, c)| c == "h5perf")
        .collect();
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    signal(&ranks, "TERM");
    job.wait_all();
    drop(guard);
    // stopped in its data phase, not after an error of its own (before the fix of the
    // opened file's check, rank 1 took its subfile for a changed data file)
    let out = job.output();
    assert!(
        !out.lines().any(|l| l.starts_with("h5perf: ")),
        "the run reported an error before the signal:\n{out}"
    );
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with('#'))
        .collect();
    assert!(
        left.is_empty(),
        "left after SIGTERM: {left:?} (during: {during:?})\n{}",
        job.output()
    );
}

/// A `--subfiling` run killed with SIGKILL (its ranks, launcher and reaper at once:
/// nothing of it can remove anything) leaves its stub, configuration file and subfile;
/// the next run in the directory takes over the dead run's lock, names them and removes
/// them, and leaves nothing itself.
#[test]
fn subfiles_of_a_run_killed_by_sigkill_are_removed_by_the_next_run() {
    let dir = scratch_dir();
    if !library_has_subfiling() {
        return refused_without_the_driver(dir.path());
    }
    let side = scratch_dir();
    let shim = slow_shim(side.path());
    let mark = side.path().join("mark");
    let guard = mpi_lock();
    let mut job = SlowJob::start(dir.path(), &shim, &mark, "1");
    job.wait_for_mark(&mark);
    job.kill_all();
    job.wait_all();
    drop(guard);
    let left = subfiling_files(dir.path());
    assert_eq!(
        left.len(),
        2,
        "the killed run left its files: {:?}",
        names(dir.path())
    );
    let o = mpirun_timeout(2, &RUN, &[], dir.path(), RUN_TIMEOUT);
    assert_ok(&o, "the run after the killed one");
    let note = o
        .stderr
        .lines()
        .find(|l| l.contains("removed what that run left"))
        .unwrap_or_else(|| panic!("no note of the removal\n{}", o.describe()));
    for n in left.iter().chain(&["#pio_tmp_1.h5".to_string()]) {
        assert!(note.contains(n.as_str()), "{n} not named: {note}");
    }
    let after: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with('#'))
        .collect();
    assert!(after.is_empty(), "left: {after:?}\n{}", o.describe());
}
