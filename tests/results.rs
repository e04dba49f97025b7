//! Results an acceptance engineer can sign (issue 14), proved from outside on the files
//! h5perf leaves: the per-rank CSV (`--rank-csv`) has one row per (step, iteration,
//! phase, rank) and agrees with the summary records; a rank slowed on purpose (an
//! LD_PRELOAD shim, `tests/slow_shim.c`, sleeping inside its first data write) is named
//! as the slowest with its host; a launcher killed mid-sweep leaves valid JSON with
//! `complete: false` and CSV with whole rows; an earlier results file survives a run that
//! fails before its first step; `--progress` lines go to stderr, never to stdout.

mod common;

use common::*;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Small runs take a few seconds on 2 busy cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The rows of a CSV as maps from the header's names.
fn csv_maps(text: &str) -> Vec<BTreeMap<String, String>> {
    let rows = parse_csv(text);
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            assert_eq!(r.len(), header.len(), "row {} is not whole: {r:?}", i + 1);
            header.iter().cloned().zip(r.iter().cloned()).collect()
        })
        .collect()
}

fn f(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

fn read_json(path: &Path) -> J {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{text}"))
}

/// `python3 -m json.tool` accepts the file (the test of a valid document).
fn json_tool_accepts(path: &Path) {
    let py = require_tool("python3", "python3");
    let st = Command::new(py)
        .args(["-m", "json.tool"])
        .arg(path)
        .stdout(Stdio::null())
        .status()
        .expect("python3 runs");
    assert!(
        st.success(),
        "python3 -m json.tool refuses {}",
        path.display()
    );
}

/// Run `np` ranks with `--json`, `--csv` and `--rank-csv` and check the per-rank file
/// against the summary records: one row per (record, iteration, phase, rank), and per
/// (record, phase) the largest rank time is `max_time_s` and is at `slowest_rank`.
fn rank_csv_matches_summary(np: usize) {
    let dir = scratch_dir();
    let npa = np.to_string();
    let args = [
        "-A",
        "posix,mpiio",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "32K",
        "-B",
        "16K",
        "-i",
        "2",
        "-p",
        "1",
        "-P",
        &npa,
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--rank-csv",
        "ranks.csv",
    ];
    let o = mpirun_timeout(np, &args, &[], dir.path(), RUN_TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    let j = read_json(&dir.path().join("r.json"));
    assert_eq!(j["complete"], true);
    let records = j["records"].as_array().unwrap();
    let ranks = csv_maps(&fs::read_to_string(dir.path().join("ranks.csv")).unwrap());
    let header = parse_csv(&fs::read_to_string(dir.path().join("ranks.csv")).unwrap())[0].clone();
    assert_eq!(
        header,
        [
            "nprocs",
            "xfer_size",
            "api",
            "iteration",
            "phase",
            "rank",
            "host",
            "time_s",
            "bytes",
            "mibps",
            "gbps"
        ]
    );
    // process counts np and 1 (np = 2: 2, 1; np = 3: 3, 1), 2 sizes, 2 APIs, 6 phases
    let counts: Vec<u64> = if np == 2 { vec![2, 1] } else { vec![3, 1] };
    assert_eq!(records.len(), counts.len() * 2 * 2 * 6);
    let want_rows: u64 = counts.iter().map(|n| 2 * 2 * 2 * 6 * n).sum();
    assert_eq!(ranks.len() as u64, want_rows, "rows of ranks.csv");
    // exactly one row per key
    let mut seen = std::collections::BTreeSet::new();
    for r in &ranks {
        let key =
            ["nprocs", "xfer_size", "api", "iteration", "phase", "rank"].map(|k| r[k].clone());
        assert!(seen.insert(key.clone()), "twice: {key:?}");
        let rank: u64 = r["rank"].parse().unwrap();
        let n: u64 = r["nprocs"].parse().unwrap();
        assert!(rank < n && !r["host"].is_empty(), "{r:?}");
    }
    let hosts: Vec<String> = j["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_string())
        .collect();
    for rec in records {
        let key = |r: &BTreeMap<String, String>| {
            r["nprocs"].parse::<u64>().ok() == rec["nprocs"].as_u64()
                && r["xfer_size"].parse::<u64>().ok() == rec["xfer_size"].as_u64()
                && r["api"] == rec["api"].as_str().unwrap()
                && r["phase"] == rec["phase"].as_str().unwrap()
        };
        let mine: Vec<&BTreeMap<String, String>> = ranks.iter().filter(|r| key(r)).collect();
        let n = rec["nprocs"].as_u64().unwrap();
        assert_eq!(mine.len() as u64, 2 * n, "{rec}");
        // per iteration the slowest rank; over iterations their max and min
        let per_iter: Vec<f64> = ["1", "2"]
            .iter()
            .map(|it| {
                mine.iter()
                    .filter(|r| r["iteration"] == *it)
                    .map(|r| f(&r["time_s"]))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let max = per_iter.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = per_iter.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(max, rec["max_time_s"].as_f64().unwrap(), "max: {rec}");
        assert_eq!(min, rec["min_time_s"].as_f64().unwrap(), "min: {rec}");
        assert_eq!(rec["slowest_time_s"], rec["max_time_s"], "{rec}");
        let slow = mine
            .iter()
            .find(|r| f(&r["time_s"]) == max)
            .expect("the slowest row");
        assert_eq!(rec["slowest_rank"].to_string(), slow["rank"], "{rec}");
        assert_eq!(rec["slowest_host"].as_str().unwrap(), slow["host"], "{rec}");
        assert!(hosts.contains(&slow["host"]));
        let fastest = mine
            .iter()
            .map(|r| f(&r["time_s"]))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(fastest, rec["fastest_time_s"].as_f64().unwrap(), "{rec}");
        // each rank moved its share of the bytes
        for r in &mine {
            assert_eq!(
                r["bytes"].parse::<u64>().unwrap() * n,
                rec["bytes"].as_u64().unwrap()
            );
        }
        assert!(rec["std_time_s"].as_f64().unwrap() >= 0.0);
        let gbps = rec["max_gbps"].as_f64().unwrap();
        let mibps = rec["max_mibps"].as_f64().unwrap();
        assert!((gbps * 1e9 - mibps * 1_048_576.0).abs() <= 1e-6 * mibps * 1_048_576.0 + 1e-9);
    }
    // the CSV summary carries the same spread fields
    let csv = csv_maps(&fs::read_to_string(dir.path().join("r.csv")).unwrap());
    assert_eq!(csv.len(), records.len());
    for (row, rec) in csv.iter().zip(records) {
        for k in [
            "slowest_rank",
            "slowest_host",
            "complete",
            "fs_type",
            "command_line",
        ] {
            let want = match &rec[k] {
                J::String(s) => s.clone(),
                v => v.to_string(),
            };
            assert_eq!(row[k], want, "{k}");
        }
    }
}

#[test]
fn rank_csv_two_ranks() {
    rank_csv_matches_summary(2);
}

#[test]
fn rank_csv_three_ranks() {
    rank_csv_matches_summary(3);
}

/// Rank 1 of 3 sleeps 1.5 s inside its first data write: the records of that step
/// name it (and its host) as the slowest rank of the write phases, with at least 1 s,
/// and the summary table of `--summary` shows it too.
#[test]
fn a_slowed_rank_is_named_with_its_host() {
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let dir = scratch_dir();
    let env = slow_rank_env(&shim, "1");
    let args = [
        "-A",
        "posix",
        "-e",
        "64K",
        "-x",
        "64K",
        "-X",
        "64K",
        "-B",
        "64K",
        "-p",
        "3",
        "--json",
        "r.json",
        "--summary",
    ];
    let o = mpirun_timeout(3, &args, &env, dir.path(), RUN_TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    let j = read_json(&dir.path().join("r.json"));
    let host = j["hosts"][0]["name"].as_str().unwrap().to_string();
    assert_slowest_in_writes(&j, 1, &host);
    let line = o
        .stdout
        .lines()
        .find(|l| l.starts_with("POSIX") && l.contains(" Raw Data Write "))
        .unwrap_or_else(|| panic!("no summary row\n{}", o.describe()));
    assert!(line.ends_with(&format!("1 ({host})")), "{line}");
    assert!(o.stdout.contains("Summary of all tests"));
}

/// Start `h5perf ARGS` on `np` ranks as its own session in the background; returns the
/// child (the launcher, whose pid is the session id) and the MPI lock held meanwhile.
fn spawn_job(
    np: usize,
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &Path,
) -> (std::process::Child, std::sync::MutexGuard<'static, ()>) {
    let guard = mpi_lock();
    let mut argv = launcher();
    argv.extend(["-n".to_string(), np.to_string()]);
    argv.push(h5perf_bin().to_string_lossy().into_owned());
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut cmd = Command::new("setsid");
    cmd.args(&argv)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for k in CLEARED_ENV {
        cmd.env_remove(k);
    }
    for (k, v) in OMPI_ENV.iter().chain(env) {
        cmd.env(k, v);
    }
    (cmd.spawn().expect("launcher starts"), guard)
}

/// SIGKILL every process of the job of session `sid`, until none is left.
fn kill_job(sid: i32) {
    for _ in 0..50 {
        let job = job_processes(sid);
        if job.is_empty() {
            return;
        }
        for (pid, _) in job {
            let _ = Command::new("kill")
                .args(["-s", "KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("processes of job {sid} survive SIGKILL");
}

/// SIGKILL of the launcher after the first step: the JSON holds the finished steps and
/// `complete: false` (python3 -m json.tool accepts it), the CSV whole rows only.
#[test]
fn killed_sweep_leaves_valid_partial_files() {
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let dir = scratch_dir();
    // rank 1 sleeps 0.1 s in every data write: 8 steps of 0.3 s and more each
    let env = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_SLOW_RANK", "1"),
        ("H5PERF_TEST_SLOW_MS", "100"),
    ];
    let args = [
        "-A",
        "posix",
        "-e",
        "64K",
        "-x",
        "8K",
        "-X",
        "64K",
        "-B",
        "8K",
        "-p",
        "1",
        "-i",
        "2",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--rank-csv",
        "ranks.csv",
    ];
    let (mut child, guard) = spawn_job(2, &args, &env, dir.path());
    let sid = child.id() as i32;
    let json = dir.path().join("r.json");
    let files = ["r.json", "r.csv", "ranks.csv"].map(|n| dir.path().join(n));
    let start = Instant::now();
    // rank 0 writes the three files in turn after each step: wait for the first step
    while !files.iter().all(|f| f.exists()) {
        if let Ok(Some(st)) = child.try_wait() {
            kill_job(sid);
            panic!("the run ended ({st}) before its first step was written");
        }
        assert!(
            start.elapsed() < RUN_TIMEOUT,
            "no results file after {RUN_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // the launcher first, then whatever is left of the job
    let _ = Command::new("kill")
        .args(["-s", "KILL", &sid.to_string()])
        .status();
    let _ = child.wait();
    kill_job(sid);
    drop(guard);
    json_tool_accepts(&json);
    let j = read_json(&json);
    assert_eq!(j["complete"], false, "a killed run is not complete");
    let recs = j["records"].as_array().unwrap();
    // whole steps only: 6 phases per record, one record (POSIX) per step, 2 of 8 at most
    assert!(
        !recs.is_empty() && recs.len().is_multiple_of(6),
        "{} records",
        recs.len()
    );
    assert!(
        recs.len() < 8 * 6,
        "the sweep was not cut: {} records",
        recs.len()
    );
    for name in ["r.csv", "ranks.csv"] {
        let text = fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.ends_with('\n'), "{name}: a partial line");
        let rows = csv_maps(&text); // panics on a row that is not whole
        assert!(!rows.is_empty(), "{name}");
    }
    // the CSV may hold one step less or more than the JSON (the kill can fall between
    // the files), but whole steps only
    let csv = csv_maps(&fs::read_to_string(dir.path().join("r.csv")).unwrap());
    assert!(
        csv.len().is_multiple_of(6) && !csv.is_empty(),
        "{} rows",
        csv.len()
    );
    assert!(csv.iter().all(|r| r["complete"] == "false"));
}

/// A run that fails before its first step ends (a 64 KiB file-size limit, 1 MiB to
/// write) leaves the results files of an earlier run as they were; a run that finishes
/// a step replaces them.
#[test]
fn earlier_results_survive_a_run_failing_before_its_first_step() {
    let dir = scratch_dir();
    for (name, old) in [("r.json", "{\"old\": true}\n"), ("r.csv", "old,csv\n1,2\n")] {
        fs::write(dir.path().join(name), old).unwrap();
    }
    let mut argv: Vec<String> = launcher();
    argv.extend(["-n", "2", "prlimit", "--fsize=65536"].map(String::from));
    argv.push(h5perf_bin().to_string_lossy().into_owned());
    argv.extend(
        [
            "-A", "posix", "-e", "1M", "-x", "1M", "-X", "1M", "-B", "1M", "-p", "2", "--json",
            "r.json", "--csv", "r.csv",
        ]
        .map(String::from),
    );
    let o = run_session(&argv, &[], dir.path(), RUN_TIMEOUT);
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "must fail\n{}",
        o.describe()
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("r.json")).unwrap(),
        "{\"old\": true}\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("r.csv")).unwrap(),
        "old,csv\n1,2\n"
    );
    // no temporary file is left beside them
    let left: Vec<String> = dir_entries(dir.path())
        .into_iter()
        .filter(|n| n.contains("h5perf-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // a run that completes replaces them
    let o = mpirun_timeout(
        2,
        &[
            "-A", "posix", "-e", "64K", "-p", "2", "--json", "r.json", "--csv", "r.csv",
        ],
        &[],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    assert_eq!(read_json(&dir.path().join("r.json"))["complete"], true);
}

/// `--progress`: one line per step on stderr (step k of N), none on stdout, and the
/// report on stdout is the same as without the option.
#[test]
fn progress_lines_on_stderr_only() {
    let dir = scratch_dir();
    let base = [
        "-A", "posix", "-e", "64K", "-x", "16K", "-X", "64K", "-B", "16K", "-p", "1",
    ];
    let mut with = base.to_vec();
    with.push("--progress");
    let o = mpirun_timeout(2, &with, &[], dir.path(), RUN_TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    // process counts 2, 1; sizes 16K, 32K, 64K
    let lines: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.starts_with("h5perf: step "))
        .collect();
    assert_eq!(lines.len(), 6, "{}", o.describe());
    for (k, l) in lines.iter().enumerate() {
        assert!(
            l.starts_with(&format!("h5perf: step {} of 6: ", k + 1)) && l.ends_with(" s left"),
            "{l}"
        );
    }
    assert!(
        lines[0].contains("2 processes, transfer size 16KB, POSIX"),
        "{}",
        lines[0]
    );
    assert!(
        lines[5].contains("1 process, transfer size 64KB"),
        "{}",
        lines[5]
    );
    assert!(!o.stdout.contains("h5perf: step"), "progress on stdout");
    // without --progress (stderr is not a terminal here): no lines, same report
    let plain = mpirun_timeout(2, &base, &[], dir.path(), RUN_TIMEOUT);
    assert!(plain.success());
    assert!(
        !plain.stderr.contains("h5perf: step"),
        "{}",
        plain.describe()
    );
    let shape = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(shape(&o.stdout), shape(&plain.stdout), "the report changed");
}
