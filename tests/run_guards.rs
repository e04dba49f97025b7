//! Guards of a run (issue 35, the run side), from outside, on the MPI flavour of the
//! harness:
//!
//! * item 1: a panic on any rank ends the whole job within seconds, with a message
//!   naming the rank (the test hook `H5PERF_TEST_PANIC=R` makes world rank R panic
//!   before the verdict, where the reported panic happened), on 2 and 3 ranks; the
//!   reported reproducer (a criterion of 70,000 blanks) is refused before any I/O;
//! * item 9: SIGINT while rank 0 replaces a results document leaves no temporary file
//!   `.NAME.h5perf-tmp.PID` (tests/slow_shim.c holds `fsync` of that file for a while);
//! * item 10: a rank stopped with SIGSTOP ends the job at `--timeout`;
//! * item 11: a data file name of 4,070 bytes is refused (room for MPI's own names);
//! * item 12: a host name with `/` does not break the lock.

mod common;

use common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Hard timeout of one job: a hang fails the test (each job ends in seconds).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A small POSIX run with a verdict: about a second.
const SMALL: &[&str] = &[
    "-A",
    "posix",
    "-e",
    "64K",
    "-x",
    "16K",
    "-X",
    "16K",
    "-B",
    "16K",
    "-i",
    "1",
    "--expect",
    "posix.write>=1B/s",
];

/// Files a run may not leave in its data directory: data files, its lock, temporary
/// results files.
fn leftovers(dir: &Path) -> Vec<String> {
    dir_entries(dir)
        .into_iter()
        .filter(|n| {
            n.starts_with("#pio_tmp") || n.starts_with("#h5perf") || n.contains(".h5perf-tmp.")
        })
        .collect()
}

#[test]
fn a_panic_on_one_rank_ends_the_job_promptly() {
    for (np, rank) in [(2, "1"), (3, "2"), (3, "0")] {
        let dir = scratch_dir();
        let mut args = SMALL.to_vec();
        let p = np.to_string();
        args.extend(["-p", &p, "-P", &p, "--json", "r.json"]);
        let o = mpirun_timeout(
            np,
            &args,
            &[("H5PERF_TEST_PANIC", rank)],
            dir.path(),
            TIMEOUT,
        );
        let case = format!("{np} ranks, panic on rank {rank}");
        assert!(
            matches!(o.status, Some(c) if c != 0),
            "{case}: non-zero status expected\n{}",
            o.describe()
        );
        let all = format!("{}{}", o.stderr, o.stdout);
        let needle = format!("h5perf: rank {rank}: internal error (panic at src/app.rs:");
        assert!(
            all.contains(&needle),
            "{case}: no message {needle:?}\n{}",
            o.describe()
        );
        assert!(
            all.contains(&format!(
                "h5perf: rank {rank}: aborting the job (MPI_Abort)"
            )),
            "{case}\n{}",
            o.describe()
        );
        // the job takes about a second; a rank left waiting would reach TIMEOUT
        assert!(
            o.elapsed < Duration::from_secs(30),
            "{case}: slow\n{}",
            o.describe()
        );
        table_row(&case, &o, &leftovers(dir.path()), &needle);
        let left: Vec<String> = leftovers(dir.path())
            .into_iter()
            .filter(|n| !n.starts_with("#h5perf"))
            .collect();
        assert!(left.is_empty(), "{case}: left {left:?}\n{}", o.describe());
    }
}

#[test]
fn an_overlong_criterion_is_refused_before_any_io() {
    let dir = scratch_dir();
    let crit = format!("posix.write>={}1B/s", " ".repeat(70_000));
    let o = mpirun_timeout(
        2,
        &[
            "-A", "posix", "-e", "64K", "--expect", &crit, "--json", "r.json",
        ],
        &[],
        dir.path(),
        TIMEOUT,
    );
    o.assert_refused_without_output("70,000 blanks");
    let msg = o.single_message("70,000 blanks");
    assert!(
        msg.contains("criterion of 70017 bytes is too long (at most 256"),
        "{msg}"
    );
    assert!(msg.len() < 600, "the value is not repeated whole: {msg}");
    assert!(
        dir_entries(dir.path()).is_empty(),
        "{:?}",
        dir_entries(dir.path())
    );
}

#[test]
fn sigint_while_a_results_file_is_replaced_leaves_no_temporary_file() {
    let dir = scratch_dir();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let d = dir.path().to_path_buf();
    let job = std::thread::spawn(move || {
        mpirun_timeout(
            2,
            &[
                "-A", "posix", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "16K", "-i", "1",
                "--json", "r.json",
            ],
            &[
                ("LD_PRELOAD", &shim),
                ("H5PERF_TEST_SLOW_FSYNC_MS", "20000"),
            ],
            &d,
            TIMEOUT,
        )
    });
    // the temporary file's name ends with the pid of rank 0, which writes it
    let t = Instant::now();
    let pid = loop {
        let tmp = dir_entries(dir.path())
            .into_iter()
            .find(|n| n.starts_with(".r.json.h5perf-tmp."));
        if let Some(pid) = tmp.and_then(|n| n.rsplit('.').next()?.parse::<u32>().ok()) {
            break pid;
        }
        assert!(!job.is_finished(), "the job ended before writing r.json");
        assert!(
            t.elapsed() < TIMEOUT,
            "no temporary file within {TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let st = std::process::Command::new("kill")
        .args(["-s", "INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = job.join().unwrap();
    assert!(
        o.status != Some(0),
        "interrupted: non-zero\n{}",
        o.describe()
    );
    assert!(
        o.elapsed < Duration::from_secs(19),
        "the interrupt did not end the job\n{}",
        o.describe()
    );
    let left = leftovers(dir.path());
    table_row("SIGINT in the results' rewrite", &o, &left, "");
    assert!(left.is_empty(), "left {left:?}\n{}", o.describe());
}

/// Item 12: a host name holding `/` (the kernel takes any bytes; hydra and a singleton
/// run accept it, Open MPI's launcher does not) is one component of the lock's file
/// names: the run works and names the host as it is. The job runs as a singleton (no
/// launcher) in a UTS namespace of its own (root; `unshare`).
#[test]
fn a_host_name_with_a_slash_does_not_break_the_lock() {
    let dir = scratch_dir();
    let script = "import socket, os, sys\n\
                  socket.sethostname('rack1/node7')\n\
                  os.execvp(sys.argv[1], sys.argv[1:])";
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let argv: Vec<String> = [
        "unshare", "--uts", "python3", "-c", script, &bin, "-A", "posix", "-e", "64K", "-x", "32K",
        "-X", "32K", "--json", "r.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = run_session(&argv, &[], dir.path(), TIMEOUT);
    assert_eq!(o.status, Some(0), "{}", o.describe());
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(j["hosts"][0]["name"], "rack1/node7", "{j}");
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
}

/// Item 11: a data file name of 4,070 bytes (MPI-IO) is refused before any I/O, leaving
/// room for the names the MPI library makes from it (Open MPI's OMPIO overflowed a
/// buffer of `PATH_MAX` with it: glibc's abort, exit 134).
#[test]
fn a_long_data_directory_leaves_room_for_the_mpi_library() {
    let top = scratch_dir();
    let mut dir = top.path().to_path_buf();
    let name_len = |d: &Path| d.as_os_str().len() + "/#pio_tmp_1.mpio".len();
    while name_len(&dir) + 201 < 4070 {
        dir.push("d".repeat(200));
    }
    let last = 4070 - name_len(&dir) - 1;
    dir.push("e".repeat(last));
    assert_eq!(name_len(&dir), 4070);
    std::fs::create_dir_all(&dir).unwrap();
    let o = mpirun_timeout(
        2,
        &["-A", "mpiio", "-e", "64K", "-x", "32K", "-X", "32K"],
        &[("HDF5_PARAPREFIX", dir.to_str().unwrap())],
        top.path(),
        TIMEOUT,
    );
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let msg = o.single_message("4,070-byte data file name");
    assert!(
        msg.contains("data file name is too long (4070 bytes, the limit is 3967"),
        "{msg}"
    );
    assert!(o.stdout.is_empty(), "{}", o.describe());
}

/// The h5perf processes whose environment holds `H5PERF_TEST_MARK=mark`: (pid, world
/// rank).
fn marked_ranks(mark: &str) -> Vec<(u32, u32)> {
    let want = format!("H5PERF_TEST_MARK={mark}");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map_or(true, |c| c.trim() != "h5perf")
        {
            continue;
        }
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let vars: Vec<String> = env
            .split(|&b| b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        if !vars.contains(&want) {
            continue;
        }
        let rank = vars.iter().find_map(|v| {
            ["OMPI_COMM_WORLD_RANK=", "PMI_RANK="]
                .iter()
                .find_map(|k| v.strip_prefix(k).and_then(|r| r.parse().ok()))
        });
        if let Some(r) = rank {
            out.push((pid, r));
        }
    }
    out
}

/// Item 10 and `--timeout`: rank 1 stopped (SIGSTOP) in a long run; with `--timeout 10`
/// (long enough for rank 1 to be stopped first even on a loaded machine) one line, from
/// rank 0, names rank 1 and its host as the rank that had not arrived and says where rank
/// 0 waited; the launcher ends the stopped rank, the exit status is not 0, and no data
/// file, lock, temporary file or `#h5perf-timeout.R` file is left. Without the option
/// the job would wait for ever.
#[test]
fn a_stalled_rank_ends_at_the_timeout() {
    let dir = scratch_dir();
    let d = dir.path().to_path_buf();
    let mark = format!("to{}", std::process::id());
    let m = mark.clone();
    let job = std::thread::spawn(move || {
        mpirun_timeout(
            2,
            &[
                "-A",
                "posix",
                "-e",
                "128M",
                "-x",
                "1M",
                "-X",
                "1M",
                "-B",
                "1M",
                "-i",
                "200",
                "-p",
                "2",
                "--timeout",
                "10",
                "--json",
                "r.json",
            ],
            &[("H5PERF_TEST_MARK", &m)],
            &d,
            TIMEOUT,
        )
    });
    let t = Instant::now();
    let stopped = loop {
        let ranks = marked_ranks(&mark);
        if ranks.len() == 2 && !pio_tmp_files(dir.path()).is_empty() {
            let (pid, _) = ranks.iter().find(|(_, r)| *r == 1).copied().unwrap();
            let st = std::process::Command::new("kill")
                .args(["-s", "STOP", &pid.to_string()])
                .status()
                .unwrap();
            assert!(st.success());
            break pid;
        }
        assert!(
            !job.is_finished(),
            "the job ended before rank 1 was stopped"
        );
        assert!(t.elapsed() < TIMEOUT, "no data file within {TIMEOUT:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let o = job.join().unwrap();
    // the stopped rank is gone (the launcher killed it), whatever happened
    let _ = std::process::Command::new("kill")
        .args(["-s", "KILL", &stopped.to_string()])
        .stderr(std::process::Stdio::null())
        .status();
    assert!(o.status != Some(0), "{}", o.describe());
    // 10 s of timeout, and the time to start: a hang would reach TIMEOUT
    assert!(o.elapsed < Duration::from_secs(40), "{}", o.describe());
    // one line names the rank that had not arrived, its host, and where rank 0 waited
    let lines: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("--timeout"))
        .collect();
    // the host name as h5perf reads it (datadir::host::hostname)
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let host = host.trim();
    assert_eq!(lines.len(), 1, "{}", o.describe());
    let want = format!(
        "h5perf: --timeout of 10 s exceeded: rank 1 (host {host}) had not arrived (not \
         running at the deadline: stopped, or was on a frozen node); rank 0 in "
    );
    assert!(lines[0].starts_with(&want), "{}", o.describe());
    assert!(
        lines[0].ends_with(" waited; ending the job"),
        "{}",
        o.describe()
    );
    let left = leftovers(dir.path());
    table_row("SIGSTOP of rank 1, --timeout 10", &o, &left, "");
    assert!(left.is_empty(), "left {left:?}\n{}", o.describe());
}

/// `--timeout` when the data directory hangs: the ranks meet there at the deadline, and a
/// file operation that never returns (here a FIFO without a reader under the name each
/// rank writes first, so its `open` blocks) must not keep a rank from ending: after the
/// meeting's bound (8 s) each rank prints its own line and ends; the job ends well
/// before the harness's timeout.
#[test]
fn a_hanging_data_directory_does_not_hold_the_timeout() {
    let dir = scratch_dir();
    for r in 0..2 {
        let fifo = dir.path().join(format!("#h5perf-timeout.{r}.tmp"));
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let o = mpirun_timeout(
        2,
        &[
            "-A",
            "posix",
            "-e",
            "128M",
            "-x",
            "1M",
            "-X",
            "1M",
            "-B",
            "1M",
            "-i",
            "200",
            "-p",
            "2",
            "--timeout",
            "1",
        ],
        &[],
        dir.path(),
        TIMEOUT,
    );
    assert!(o.status != Some(0), "{}", o.describe());
    // 1 s, the meeting's 8 s, the start: a rank held by the FIFO would reach TIMEOUT
    assert!(o.elapsed < Duration::from_secs(40), "{}", o.describe());
    assert!(
        o.stderr.lines().any(
            |l| l.starts_with("h5perf: rank ") && l.contains(": --timeout of 1 s exceeded in ")
        ),
        "{}",
        o.describe()
    );
    // the FIFOs are the test's own; nothing else is left
    let mut left = leftovers(dir.path());
    left.retain(|n| !n.starts_with("#h5perf-timeout.") || !n.ends_with(".tmp"));
    assert!(left.is_empty(), "left {left:?}\n{}", o.describe());
}
