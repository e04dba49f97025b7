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
    ];
    if collective {
        args.push("-C");
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
        assert_eq!(r["valid"], true);
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
        o.stdout.contains("Verdict: FAIL: run INVALID"),
        "{}",
        o.stdout
    );
    let j = json(d, "r.json");
    for r in j["records"].as_array().unwrap() {
        assert_eq!(r["valid"], false, "{r}");
        assert_eq!(r["stonewall_short_phases"], 1, "{r}");
    }
    let csv = fs::read_to_string(d.join("r.csv")).unwrap();
    // the last column (the ones before it hold quoted commas)
    assert!(csv.lines().next().unwrap().ends_with(",valid"));
    for row in csv.lines().skip(1) {
        assert_eq!(row.rsplit(',').next(), Some("false"), "{row}");
    }
}
