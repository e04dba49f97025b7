//! Time-limited phases (`--stonewall`, `--wear-out`, issue 28), seen from outside: a rank
//! slowed on purpose by the LD_PRELOAD shim (tests/slow_shim.c, every data write) is
//! stopped by the deadline, independently and collectively, for every API, and no rank
//! hangs (each case under a timeout); the throughput is the bytes moved over the time;
//! `--wear-out` gives every rank the same count and `-D v` passes; a run shorter than its
//! deadline is invalid and fails `--expect`.

mod common;

use std::fs;
use std::time::Duration;

use common::*;
use serde_json::Value as J;

/// Hard limit of one launch: far above the few seconds a case takes, so a hang fails.
const T: Duration = Duration::from_secs(90);

/// The deadline of the slowed cases, seconds.
const DEADLINE: f64 = 2.0;

/// The slow rank's pause in each data write, seconds (the shim's `H5PERF_TEST_SLOW_MS`).
const PAUSE: f64 = 0.2;

/// The environment that slows world rank 1 by `ms` milliseconds in every data write.
fn slowed<'a>(shim: &'a str, ms: &'a str) -> [(&'static str, &'a str); 3] {
    [
        ("LD_PRELOAD", shim),
        ("H5PERF_TEST_SLOW_RANK", "1"),
        ("H5PERF_TEST_SLOW_MS", ms),
    ]
}

/// The `--json` document `name` in `dir`.
fn json(dir: &std::path::Path, name: &str) -> J {
    serde_json::from_str(&fs::read_to_string(dir.join(name)).expect("the JSON file"))
        .expect("valid JSON")
}

fn num(r: &J, k: &str) -> f64 {
    r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"))
}

/// Every record's throughput is the bytes moved over the slowest rank's time (one
/// iteration), within rounding.
fn assert_moved_over_time(j: &J) {
    for r in j["records"].as_array().unwrap() {
        let (moved, t) = (num(r, "stonewall_moved_bytes"), num(r, "min_time_s"));
        let want = moved / 1_048_576.0 / t;
        let got = num(r, "max_mibps");
        assert!(
            (got - want).abs() <= 1e-9 * want.max(1.0),
            "{} {}: {got} MiB/s, bytes moved over time {want}",
            r["api"],
            r["phase"]
        );
        // fewer bytes than planned: the stonewall cut the phase short
        assert!(moved < num(r, "bytes"), "{r}");
    }
}

/// The rank CSV: each rank's bytes are those it moved (they add up to the record's
/// bytes moved), and its throughput is its bytes over its time.
fn assert_rank_bytes(j: &J, csv: &str) {
    let t = parse_csv(csv);
    let col = |n: &str| t[0].iter().position(|h| h == n).unwrap();
    let (api, phase, bytes, time, mibps) = (
        col("api"),
        col("phase"),
        col("bytes"),
        col("time_s"),
        col("mibps"),
    );
    for r in j["records"].as_array().unwrap() {
        let rows: Vec<&Vec<String>> = t[1..]
            .iter()
            .filter(|row| r["api"] == row[api].as_str() && r["phase"] == row[phase].as_str())
            .collect();
        assert_eq!(rows.len(), 2, "{r}");
        let sum: f64 = rows
            .iter()
            .map(|row| row[bytes].parse::<f64>().unwrap())
            .sum();
        assert_eq!(sum, num(r, "stonewall_moved_bytes"), "{r}");
        for row in rows {
            let (b, s): (f64, f64) = (row[bytes].parse().unwrap(), row[time].parse().unwrap());
            let m: f64 = row[mibps].parse().unwrap();
            assert!(
                (m - b / 1_048_576.0 / s).abs() <= 1e-9 * m.max(1.0),
                "{row:?}"
            );
        }
    }
}

/// The write phases of the slowed run: rank 1 was stopped by the deadline, within one
/// of its transfers (plus a generous margin for a shared machine), and every write
/// phase lasted the deadline (a valid run).
fn assert_stopped_at_deadline(j: &J, api: &str, same_count: bool) {
    let recs: Vec<&J> = j["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["api"] == api && r["phase"] == "raw_write")
        .collect();
    assert_eq!(recs.len(), 1, "{api}");
    let r = recs[0];
    let last = num(r, "stonewall_last_stop_s");
    let bound = DEADLINE + PAUSE + 0.5;
    assert!(
        last >= DEADLINE && last <= bound,
        "{api}: the last rank stopped {last} s after the phase's start, not within [{DEADLINE}, {bound}]"
    );
    assert!(
        num(r, "max_time_s") <= bound,
        "{api}: write phase {} s",
        r["max_time_s"]
    );
    // the slowed rank made the fewest transfers: about DEADLINE / PAUSE of them
    let (min, max) = (num(r, "stonewall_xfers_min"), num(r, "stonewall_xfers_max"));
    let planned = num(r, "stonewall_xfers_planned");
    assert!(
        (1.0..=DEADLINE / PAUSE + 1.0).contains(&min),
        "{api}: {min} transfers"
    );
    if same_count {
        assert_eq!(min, max, "{api}: collective transfers stop together");
    } else {
        assert_eq!(r["stonewall_xfers_min_rank"], 1, "{api}");
        assert_eq!(max, planned, "{api}: the fast rank made all its transfers");
    }
    assert_eq!(r["valid"], true, "{api}");
}

/// One launch per mode: `--stonewall=2` with rank 1 slowed by 200 ms in every write;
/// 64 transfers of 64 KiB per rank.
fn slowed_run(collective: bool) {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let apis = if collective {
        "mpiio,phdf5"
    } else {
        "posix,mpiio,phdf5"
    };
    let mut args = vec![
        "-A",
        apis,
        "-p",
        "2",
        "-e",
        "4M",
        "-x",
        "64K",
        "-X",
        "64K",
        "-B",
        "64K",
        "--stonewall=2",
        "--json",
        "r.json",
        "--rank-csv",
        "ranks.csv",
    ];
    if collective {
        args.push("-C");
    } else {
        // the per-host figures (--conditions) of a stonewalled run
        args.push("--conditions");
    }
    let o = mpirun_timeout(2, &args, &slowed(&shim, "200"), d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(o.stdout.contains("rank 0: Stonewall=2 s"), "{}", o.stdout);
    assert!(
        o.stdout.contains("Stonewall Write (deadline 2 s"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("INVALID"), "{}", o.stdout);
    let j = json(d, "r.json");
    for api in apis.split(',') {
        assert_stopped_at_deadline(&j, api, collective);
    }
    assert_moved_over_time(&j);
    assert_rank_bytes(&j, &fs::read_to_string(d.join("ranks.csv")).unwrap());
    if !collective {
        // per host: times, but neither the planned bytes nor a throughput
        let hosts = j["per_host"].as_array().expect("per_host");
        assert!(!hosts.is_empty());
        for h in hosts {
            assert!(h["bytes"].is_null() && h["mibps"].is_null(), "{h}");
            assert!(h["avg_time_s"].as_f64().unwrap() > 0.0, "{h}");
        }
    }
    // the read phase reads what was written: the same counts per record
    for r in j["records"].as_array().unwrap() {
        let w = j["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["api"] == r["api"] && x["phase"] == "raw_write")
            .unwrap();
        assert_eq!(
            r["stonewall_moved_bytes"], w["stonewall_moved_bytes"],
            "{r}"
        );
    }
    assert!(pio_tmp_files(d).is_empty(), "data files left");
}

#[test]
fn a_slowed_rank_stops_at_the_deadline_independent_io() {
    slowed_run(false);
}

#[test]
fn collective_transfers_stop_together_at_the_deadline() {
    slowed_run(true);
}

/// `--wear-out`: the slowed rank goes on after the deadline until it has made as many
/// transfers as the fast one; `-D v` reads every byte back right.
#[test]
fn wear_out_gives_every_rank_the_same_count_and_verifies() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let args = [
        "-A",
        "posix,mpiio",
        "-p",
        "2",
        "-e",
        "2M",
        "-x",
        "64K",
        "-X",
        "64K",
        "-B",
        "64K",
        "--stonewall=0.5",
        "--wear-out",
        "-D",
        "v",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &slowed(&shim, "50"), d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(o.stdout.contains("rank 0: Wear-out=on"), "{}", o.stdout);
    assert!(o.stdout.contains("Wear-out: "), "{}", o.stdout);
    let j = json(d, "r.json");
    for r in j["records"].as_array().unwrap() {
        assert_eq!(
            r["stonewall_xfers_min"], r["stonewall_xfers_max"],
            "every rank the same count: {r}"
        );
        assert_eq!(r["valid"], true, "{r}");
        if r["phase"] == "raw_write" {
            // rank 1 was stopped (0.5 s at 50 ms a transfer) and wore out to all 32
            assert!(num(r, "stonewall_wear_out_s") > 0.0, "{r}");
            assert_eq!(r["stonewall_xfers_max"], 32, "{r}");
        }
    }
}

/// A run whose write phases end long before the deadline is invalid: marked in the
/// report and the results, and `--expect` fails with exit status 3 although the
/// criterion holds.
#[test]
fn a_run_shorter_than_its_deadline_is_invalid_and_fails_expect() {
    let dir = scratch_dir();
    let d = dir.path();
    let args = [
        "-A",
        "posix",
        "-p",
        "2",
        "-e",
        "64K",
        "--stonewall=30",
        "--expect",
        "posix.write>=1B/s",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    assert!(
        o.elapsed < Duration::from_secs(25),
        "a phase does not wait for its deadline"
    );
    assert!(o
        .stdout
        .contains("INVALID: 1 of 1 phase(s) ended before the deadline"));
    assert!(
        o.stdout
            .contains("Ranks stopped: none (each rank ended its planned transfers"),
        "no rank was stopped, and the report says so:\n{}",
        o.stdout
    );
    assert_invalid_verdict(&o.stdout);
    let j = json(d, "r.json");
    for r in j["records"].as_array().unwrap() {
        assert_eq!(r["valid"], false, "{r}");
        assert_eq!(r["stonewall_short_phases"], 1, "{r}");
    }
    let csv = fs::read_to_string(d.join("r.csv")).unwrap();
    let table = parse_csv(&csv);
    let at = table[0]
        .iter()
        .position(|h| h == "valid")
        .expect("a valid column");
    assert!(table.len() > 1);
    for row in &table[1..] {
        assert_eq!(row[at], "false", "{row:?}");
    }
    assert_eq!(j["parameters"]["valid"], false, "a JSON boolean");
    assert_eq!(j["parameters"]["stonewall_s"], 30, "a JSON number");
    // the CSV keeps its text
    let at = table[0].iter().position(|h| h == "stonewall_s").unwrap();
    assert_eq!(table[1][at], "30");
    // the verdict rebuilt from the results fails too (JSON and CSV read back), with a
    // criterion or a baseline (the run against itself: no regression), and the page's
    // verdict says FAIL
    for (f, check) in [
        ("r.json", ["--expect", "posix.write>=1B/s"]),
        ("r.csv", ["--expect", "posix.write>=1B/s"]),
        ("r.json", ["--baseline", "r.csv"]),
    ] {
        let mut args = vec!["--from", f, "--html", "p.html"];
        args.extend(check);
        let o = mpirun_timeout(1, &args, &[], d, T);
        assert_eq!(o.status, Some(3), "--from {f} {check:?}: {}", o.describe());
        assert_invalid_verdict(&o.stdout);
        let page = fs::read_to_string(d.join("p.html")).unwrap();
        let at = page
            .find("<section id=\"verdict\">")
            .expect("a verdict section");
        assert!(
            page[at..].contains("<span class=\"badge fail\">FAIL</span>"),
            "{}",
            &page[at..]
        );
        assert!(page[at..].contains("run INVALID"), "{}", &page[at..]);
    }
    // in the run, with a baseline (the earlier results: no regression)
    let mut args = args.to_vec();
    args.truncate(7);
    args.extend(["--baseline", "r.csv"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    assert_invalid_verdict(&o.stdout);
}

/// The report's one verdict of an invalid run: its first line says FAIL and why, a
/// failed row names the invalidity, and no verdict line says PASS.
fn assert_invalid_verdict(out: &str) {
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("Verdict:")).collect();
    assert_eq!(lines.len(), 1, "one verdict line: {out}");
    assert!(
        lines[0].starts_with("Verdict: FAIL (") && lines[0].contains("run INVALID"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("FAIL") && l.contains("run valid (--stonewall)")),
        "{out}"
    );
}

/// The recorded counts: a stonewalled write run with `HDF5_NOCLEANUP=1` leaves the
/// counts file beside the data file, and a later `--read-only` run reads exactly those
/// transfers (strace: the `pread64` offsets of each rank).
#[test]
fn read_only_reads_exactly_the_recorded_counts() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let common = [
        "-A", "posix", "-p", "2", "-e", "2M", "-x", "64K", "-X", "64K", "-B", "64K",
    ];
    let mut args = common.to_vec();
    args.extend(["-w", "--stonewall=0.5"]);
    let mut env = slowed(&shim, "50").to_vec();
    env.push(("HDF5_NOCLEANUP", "1"));
    let o = mpirun_timeout(2, &args, &env, d, T);
    assert!(o.success(), "{}", o.describe());
    let text = fs::read_to_string(d.join("#pio_tmp_1.posix.stonewall")).expect("counts file");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("counts "))
        .expect("a counts line");
    let counts: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!(counts.len(), 2, "{text}");
    assert_eq!(counts[0], 32, "the fast rank wrote everything: {text}");
    assert!(
        counts[1] < 32 && counts[1] >= 1,
        "the slowed rank stopped: {text}"
    );

    // the read-only run, every rank under strace
    let strace = require_tool("strace", "strace");
    let tdir = scratch_dir();
    let mut argv = launcher();
    argv.extend([
        "-n".to_string(),
        "2".into(),
        strace.to_string_lossy().into_owned(),
        "-f".into(),
        "-y".into(),
        "-qq".into(),
        "-ff".into(),
        "-o".into(),
        tdir.path().join("t").to_string_lossy().into_owned(),
        "-e".into(),
        "trace=pread64".into(),
        h5perf_bin().to_string_lossy().into_owned(),
    ]);
    argv.extend(common.iter().map(|s| s.to_string()));
    argv.extend(["--read-only".into(), "--stonewall=60".into()]);
    let o = run_session(&argv, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let mut got: Vec<u64> = extents(&read_traces(tdir.path()), "#pio_tmp_1.posix")
        .iter()
        .flat_map(|(_, reads)| {
            // the one-byte reads of the up-front check of the kept files left aside
            reads
                .iter()
                .filter(|&&(_, len)| len != 1)
                .map(|&(off, len)| {
                    assert_eq!(len, 65536);
                    off
                })
        })
        .collect();
    got.sort_unstable();
    let part = 2u64 << 20;
    let mut want: Vec<u64> = (0..counts[0]).map(|k| k * 65536).collect();
    want.extend((0..counts[1]).map(|k| part + k * 65536));
    assert_eq!(got, want, "the reads are exactly the recorded transfers");
    assert!(o.stdout.contains(&format!(
        "Transfers per rank: min {} (rank 1), max 32 (rank 0)",
        counts[1]
    )));
}

/// Files written with `-D v` under a deadline (`-w`, `HDF5_NOCLEANUP=1`, independent
/// transfers, rank 1 slowed): rank 1 wrote fewer transfers than planned. Returns the
/// common arguments of the write and the read-only runs.
fn write_short_verified_files(d: &std::path::Path, apis: &'static str) -> Vec<&'static str> {
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let common = vec![
        "-A", apis, "-p", "2", "-e", "2M", "-x", "64K", "-X", "64K", "-B", "64K", "-D", "v",
    ];
    let mut args = common.clone();
    args.extend(["-w", "--stonewall=0.5"]);
    let mut env = slowed(&shim, "50").to_vec();
    env.push(("HDF5_NOCLEANUP", "1"));
    let o = mpirun_timeout(2, &args, &env, d, T);
    assert!(o.success(), "{}", o.describe());
    for api in apis.split(',') {
        let name = format!(
            "#pio_tmp_1.{}.stonewall",
            match api {
                "phdf5" => "h5",
                "mpiio" => "mpio",
                a => a,
            }
        );
        let text = fs::read_to_string(d.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains("counts 32 "), "rank 0 wrote all: {text}");
        assert!(!text.contains("counts 32 32"), "rank 1 stopped: {text}");
    }
    common
}

/// `-D v` files of a stonewalled write are read back by `--read-only --stonewall`: the
/// up-front check of the kept files reads each rank's last byte written (the counts
/// file), not the last planned one (past the end of a short MPI-IO file; a 0 in the
/// preallocated HDF5 dataset), and the read finds every byte right.
#[test]
fn read_only_verifies_files_written_short_with_verify() {
    let dir = scratch_dir();
    let d = dir.path();
    let mut args = write_short_verified_files(d, "mpiio,phdf5");
    args.extend(["--read-only", "--stonewall=60"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(!o.stdout.contains("wrong"), "{}", o.stdout);
    assert!(o.stdout.contains("Transfers per rank: min"), "{}", o.stdout);
}

/// `--read-only --stonewall --wear-out` of files whose ranks wrote different counts is
/// refused up front with the reason (wear-out would read past what was written).
#[test]
fn read_only_wear_out_of_different_counts_is_refused() {
    let dir = scratch_dir();
    let d = dir.path();
    let mut args = write_short_verified_files(d, "posix");
    args.extend(["--read-only", "--stonewall=60", "--wear-out"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(!o.success(), "{}", o.describe());
    assert!(
        o.stderr
            .contains("holds different transfer counts per rank (32 "),
        "{}",
        o.describe()
    );
    assert!(!o.stderr.contains("short transfer"), "{}", o.describe());

    // a later write without --stonewall replaces the data: the counts file goes with it,
    // and --read-only --stonewall no longer trusts counts of the earlier run
    let mut args = args[..args.len() - 3].to_vec();
    args.push("-w");
    let o = mpirun_timeout(2, &args, &[("HDF5_NOCLEANUP", "1")], d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(d.join("#pio_tmp_1.posix").exists(), "the data file is kept");
    assert!(
        !d.join("#pio_tmp_1.posix.stonewall").exists(),
        "the stale counts file is removed"
    );
    args.pop();
    args.extend(["--read-only", "--stonewall=60"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(!o.success(), "{}", o.describe());
    assert!(
        o.stderr
            .contains("--read-only --stonewall: cannot read the counts file #pio_tmp_1.posix.stonewall: No such file or directory; write"),
        "{}",
        o.describe()
    );
}

/// `-D v` files of a default process sweep (`-p 1 -P 2`: the last step, 1 process, left
/// the data and counts files): the `--read-only` run of 2 processes is refused with the
/// counts file's reason, not by a read past the end of the data file.
#[test]
fn read_only_of_another_process_count_names_the_counts_file() {
    let dir = scratch_dir();
    let d = dir.path();
    let common = [
        "-A",
        "mpiio",
        "-e",
        "2M",
        "-x",
        "64K",
        "-X",
        "64K",
        "-B",
        "64K",
        "-D",
        "v",
        "--stonewall=0.5",
    ];
    let mut args = common.to_vec();
    args.push("-w");
    let o = mpirun_timeout(2, &args, &[("HDF5_NOCLEANUP", "1")], d, T);
    assert!(o.success(), "{}", o.describe());
    let mut args = common.to_vec();
    args.push("--read-only");
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(!o.success(), "{}", o.describe());
    let all = format!("{}{}", o.stdout, o.stderr);
    assert!(
        all.contains(
            "#pio_tmp_1.mpio.stonewall was written by another run (processes 1 (this run: 2))"
        ),
        "{}",
        o.describe()
    );
    assert!(!all.contains("unexpected end of file"), "{}", o.describe());
}

/// `--payload` with `--stonewall` (issue 30): every transfer carries the bytes an
/// unlimited run with the same seed writes at its offsets, the wear-out ones too. Three
/// kept-file runs with the seed 77, rank 1 slowed by 50 ms in every write (16 transfers
/// of 64 KiB per rank, deadline 0.3 s): (1) no deadline; (2) `--wear-out`: the POSIX and
/// MPI-IO files equal those of (1) byte for byte (rank 1 wore out to 16), and a
/// `--read-only -D v` run verifies every API's file; (3) no wear-out: rank 1 wrote fewer
/// transfers, every byte it and rank 0 wrote equals (1)'s, and `--read-only -D v`
/// verifies the written part.
#[test]
fn payload_under_the_stonewall_writes_the_bytes_of_an_unlimited_run() {
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let common = [
        "-p",
        "2",
        "-e",
        "1M",
        "-x",
        "64K",
        "-X",
        "64K",
        "-B",
        "64K",
        "--payload=incompressible",
        "--seed=77",
    ];
    let keep = [("HDF5_NOCLEANUP", "1")];
    let mut slow = slowed(&shim, "50").to_vec();
    slow.extend(keep);
    let launch = |d: &std::path::Path, apis: &str, extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["-A", apis];
        args.extend(common);
        args.extend(extra);
        let o = mpirun_timeout(2, &args, env, d, T);
        assert!(o.success(), "{}", o.describe());
        assert!(!o.stdout.contains("wrong"), "{}", o.stdout);
        o
    };
    let files = ["#pio_tmp_1.posix", "#pio_tmp_1.mpio"];
    let read = |d: &std::path::Path, f: &str| fs::read(d.join(f)).unwrap();

    // (1) the bytes of a run without deadline
    let full = scratch_dir();
    launch(full.path(), "posix,mpiio", &["-w"], &keep);

    // (2) stonewalled, with wear-out: the same files
    let worn = scratch_dir();
    let w = worn.path();
    let apis = "posix,mpiio,phdf5";
    let o = launch(w, apis, &["-w", "--stonewall=0.3", "--wear-out"], &slow);
    assert!(o.stdout.contains("Wear-out: "), "{}", o.stdout);
    for f in files {
        assert!(
            read(w, f) == read(full.path(), f),
            "{f}: the wear-out run's bytes differ from the unlimited run's"
        );
    }
    let o = launch(w, apis, &["--read-only", "-D", "v", "--stonewall=60"], &[]);
    assert!(
        o.stdout.contains("Transfers per rank: min 16"),
        "{}",
        o.stdout
    );

    // (3) stonewalled, no wear-out: rank 1's part ends early, what it holds is right
    let short = scratch_dir();
    let s = short.path();
    launch(s, "posix,mpiio", &["-w", "--stonewall=0.3"], &slow);
    for f in files {
        let text = fs::read_to_string(s.join(format!("{f}.stonewall"))).unwrap();
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("counts "))
            .expect("a counts line");
        let counts: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(counts.len(), 2, "{f}.stonewall: {text}");
        assert_eq!(counts[0], 16, "rank 0 wrote all: {text}");
        assert!(counts[1] < 16, "rank 1 stopped: {text}");
        let (got, want) = (read(s, f), read(full.path(), f));
        // contiguous: rank r's part starts at r MiB; each wrote its first counts[r]
        for (r, &c) in counts.iter().enumerate() {
            let at = r << 20;
            let end = at + (c as usize) * 65536;
            assert!(
                got.get(at..end) == Some(&want[at..end]),
                "{f}: rank {r}'s {c} transfers differ from the unlimited run's"
            );
        }
    }
    let o = launch(
        s,
        "posix,mpiio",
        &["--read-only", "-D", "v", "--stonewall=60"],
        &[],
    );
    assert!(o.stdout.contains("Transfers per rank: min"), "{}", o.stdout);
}
