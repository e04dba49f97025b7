//! `--latency` (issue 31), seen from outside: every transfer call is counted (the
//! histograms' counts are the transfers the pattern makes, every API, every phase); a
//! transfer of one rank delayed 0.5 s by the LD_PRELOAD slow shim (tests/slow_shim.c)
//! is the p99.9 and the max, within the histogram's error, and its rank and host are
//! named; the file's open, sync and close calls are counted and timed on their own (a
//! sync delayed by the slow shim is named); the percentiles agree with the calls' times measured by another LD_PRELOAD
//! shim around each `pwrite`/`pread` (tests/latency_shim.c) within the stated error.

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use common::browser::Browser;
use common::*;
use serde_json::Value as J;

/// Hard limit of one launch: far above the few seconds a case takes, so a hang fails.
const T: Duration = Duration::from_secs(120);

/// The histogram's stated error ([`h5perf::measure::latency`]): 0.79 %, and the clock's
/// calibration (10 ppm).
const REL: f64 = 0.0079 + 1e-5;

fn json(dir: &Path, name: &str) -> J {
    serde_json::from_str(&fs::read_to_string(dir.join(name)).expect("the JSON file"))
        .expect("valid JSON")
}

fn num(r: &J, k: &str) -> f64 {
    r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"))
}

/// The host name the ranks see (one machine).
fn host() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .expect("/proc/sys/kernel/hostname")
        .trim()
        .to_string()
}

/// The count of every record is the transfers the pattern makes: iterations × ranks ×
/// datasets × (bytes per process / transfer size), for every API, transfer size and
/// phase; the report holds the latency lines, the parameter block the option's line.
#[test]
fn every_transfer_call_is_counted() {
    let dir = scratch_dir();
    let d = dir.path();
    let args = [
        "-A",
        "posix,mpiio,phdf5",
        "-p",
        "2",
        "-e",
        "32K",
        "-x",
        "4K",
        "-X",
        "8K",
        "-B",
        "4K",
        "-d",
        "2",
        "-i",
        "2",
        "--fsync",
        "--latency",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(
        o.stdout
            .contains("rank 0: Latency=on (every transfer call timed"),
        "{}",
        o.stdout
    );
    // one write and one read block per API and transfer size
    assert_eq!(
        o.stdout.matches("Latency Write calls (").count(),
        6,
        "{}",
        o.stdout
    );
    assert_eq!(
        o.stdout.matches("Latency Read calls (").count(),
        6,
        "{}",
        o.stdout
    );
    // the file calls: one open, sync and close per rank, file and iteration and direction
    for call in ["open", "sync", "close"] {
        for dir in ["Write", "Read"] {
            let line = format!(
                "Latency {dir} {call} (4 calls, every rank and iteration; clock CLOCK_MONOTONIC)"
            );
            let want = if call == "sync" && dir == "Read" {
                0
            } else {
                6
            };
            assert_eq!(
                o.stdout.matches(&line).count(),
                want,
                "{line}\n{}",
                o.stdout
            );
        }
    }
    let j = json(d, "r.json");
    let recs = j["records"].as_array().expect("records");
    assert_eq!(recs.len(), 3 * 2 * 6);
    for r in recs {
        let read = r["phase"].as_str().unwrap().contains("read");
        for call in ["open", "sync", "close"] {
            let want = if call == "sync" && read { 0.0 } else { 4.0 };
            assert_eq!(num(r, &format!("latency_{call}_calls")), want, "{call} {r}");
            if want > 0.0 {
                let (lo, mid, hi) = (
                    num(r, &format!("latency_{call}_min_s")),
                    num(r, &format!("latency_{call}_p50_s")),
                    num(r, &format!("latency_{call}_max_s")),
                );
                assert!(0.0 < lo && lo <= mid && mid <= hi, "{call} {r}");
                assert_eq!(
                    r[format!("latency_{call}_max_host")],
                    host().as_str(),
                    "{r}"
                );
            } else {
                assert!(r[format!("latency_{call}_max_s")].is_null(), "{r}");
            }
        }
        let xfer = num(r, "xfer_size");
        let want = 2.0 * 2.0 * 2.0 * (32768.0 / xfer);
        assert_eq!(num(r, "latency_calls"), want, "{r}");
        let q: Vec<f64> = ["min", "p50", "p90", "p99", "p999", "max"]
            .iter()
            .map(|k| num(r, &format!("latency_{k}_s")))
            .collect();
        assert!(q[0] > 0.0, "{r}");
        assert!(
            q.windows(2).all(|w| w[0] <= w[1]),
            "not in order: {q:?} {r}"
        );
        // no call is longer than the slowest rank's whole raw phase
        assert!(q[5] <= num(r, "max_time_s") * (1.0 + REL), "{r}");
        assert!(r["latency_max_rank"].as_u64().unwrap() < 2, "{r}");
        assert_eq!(r["latency_max_host"], host().as_str(), "{r}");
        assert!(
            ["tsc", "clock_gettime(CLOCK_MONOTONIC)"]
                .contains(&r["latency_clock"].as_str().unwrap()),
            "{r}"
        );
    }
}

/// Rank 1's first data write sleeps 0.5 s (the slow shim): with 128 write calls that is
/// the p99.9 and the max, within the histogram's error, on rank 1 and this host; p99 is
/// an ordinary call.
#[test]
fn a_delayed_transfer_is_the_tail_and_names_its_rank() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let env = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_SLOW_RANK", "1"),
        ("H5PERF_TEST_SLOW_MS", "500"),
        ("H5PERF_TEST_SLOW_ONCE", "1"),
    ];
    let args = [
        "-A",
        "posix",
        "-p",
        "2",
        "-e",
        "256K",
        "-x",
        "4K",
        "-X",
        "4K",
        "-B",
        "4K",
        "-w",
        "--latency",
        "--json",
        "r.json",
        "--html",
        "page.html",
    ];
    let o = mpirun_timeout(2, &args, &env, d, T);
    assert!(o.success(), "{}", o.describe());
    page_names_the_slowest_rank(&d.join("page.html"));
    let line = format!("(rank 1, host {})", host());
    assert!(o.stdout.contains(&line), "{line} in\n{}", o.stdout);
    let j = json(d, "r.json");
    let r = j["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["phase"] == "raw_write")
        .expect("a raw_write record");
    assert_eq!(num(r, "latency_calls"), 128.0, "{r}");
    assert_eq!(r["latency_max_rank"], 1, "{r}");
    assert_eq!(r["latency_max_host"], host().as_str(), "{r}");
    let (max, p999, p99) = (
        num(r, "latency_max_s"),
        num(r, "latency_p999_s"),
        num(r, "latency_p99_s"),
    );
    // the shim slept at least 0.5 s inside the call; the call lasted at most the phase
    assert!(max >= 0.5 && max <= num(r, "max_time_s"), "{r}");
    assert!(p999 >= max * (1.0 - REL) && p999 <= max, "{r}");
    assert!(
        p99 < 0.25,
        "the second longest call is an ordinary one: {r}"
    );
}

/// Rank 1's first fsync of a data file sleeps 0.4 s (the slow shim): with `--fsync` and
/// two files that sync is the longest of the four (2 ranks × 2 files), on rank 1 and
/// this host; no transfer call saw the sleep; one open and close per rank and file.
#[test]
fn a_delayed_sync_is_timed_as_a_call_of_its_own() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let env = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_SLOW_RANK", "1"),
        ("H5PERF_TEST_SLOW_MS", "400"),
        ("H5PERF_TEST_SLOW_ONCE", "1"),
        ("H5PERF_TEST_SLOW_CALL", "fsync"),
    ];
    let args = [
        "-A",
        "posix",
        "-p",
        "2",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "16K",
        "-B",
        "4K",
        "-F",
        "2",
        "-w",
        "--fsync",
        "--latency",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &env, d, T);
    assert!(o.success(), "{}", o.describe());
    let line = "Latency Write sync (4 calls, every rank and iteration; clock CLOCK_MONOTONIC)";
    assert!(o.stdout.contains(line), "{line} in\n{}", o.stdout);
    let j = json(d, "r.json");
    let r = &j["records"][0];
    for call in ["open", "sync", "close"] {
        assert_eq!(num(r, &format!("latency_{call}_calls")), 4.0, "{call} {r}");
    }
    let (max, p50) = (num(r, "latency_sync_max_s"), num(r, "latency_sync_p50_s"));
    assert!(max >= 0.4, "{r}");
    assert!(p50 < 0.2, "the other syncs are ordinary ones: {r}");
    assert_eq!(r["latency_sync_max_rank"], 1, "{r}");
    assert_eq!(r["latency_sync_max_host"], host().as_str(), "{r}");
    assert!(num(r, "latency_max_s") < 0.2, "no transfer call slept: {r}");
}

/// The page of the delayed-transfer run renders in Chromium without a console message,
/// holds the POSIX write calls' latency chart with its five lines, and its caption names
/// rank 1 and this host as the longest call's (0.5 s or more).
fn page_names_the_slowest_rank(page: &Path) {
    let mut b = Browser::start();
    let tab = b.open(page, 1000, 1400);
    let logged = b.messages(&tab);
    assert!(logged.is_empty(), "the page logs: {logged:?}");
    let seen = b.eval(
        &tab,
        "JSON.stringify({lines: document.querySelectorAll('#latency-posix-write g.series').length, \
          box: document.querySelector('#latency-posix-write').getBoundingClientRect().height, \
          caption: document.querySelector('#latency-posix-write').closest('figure').querySelector('figcaption').textContent})",
    );
    let seen: J = serde_json::from_str(seen.as_str().expect("a string")).expect("JSON");
    assert_eq!(seen["lines"], 5, "{seen}");
    assert!(seen["box"].as_f64().unwrap() > 100.0, "{seen}");
    let caption = seen["caption"].as_str().unwrap();
    let want = format!(" on rank 1 ({}), 2 processes, 4 KiB.", host());
    assert!(
        caption.starts_with("Longest write call: 0.5") && caption.ends_with(&want),
        "{caption}"
    );
}

/// The k-th smallest (1-based) of `v` (sorted).
fn kth(v: &[f64], k: usize) -> f64 {
    v[k.clamp(1, v.len()) - 1]
}

/// The calls' times as the latency shim measured them around each pwrite/pread (a
/// pause of 1 to 16 × 50 µs inside each): h5perf's min, percentiles and max of the
/// POSIX write and read calls (2 ranks, 2 iterations, 64 calls each) agree with the
/// same order statistics of the shim's times within the stated error. h5perf's own
/// interval holds the shim's, so each of its figures is at least the shim's (less the
/// error); at most the next order statistic's (one call may have been interrupted
/// after the shim's clock stopped) plus the error and 5 µs of the shim's own cost
/// outside its interval.
#[test]
fn percentiles_agree_with_the_raw_call_times() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = build_shim(build.path(), "latency_shim");
    let dump = scratch_dir();
    let env = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_LAT_SPREAD_US", "50"),
        ("H5PERF_TEST_LAT_DIR", dump.path().to_str().unwrap()),
    ];
    let args = [
        "-A",
        "posix",
        "-p",
        "2",
        "-e",
        "256K",
        "-x",
        "4K",
        "-X",
        "4K",
        "-B",
        "4K",
        "-i",
        "2",
        "--latency",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &env, d, T);
    assert!(o.success(), "{}", o.describe());
    let mut raw: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut files = 0;
    for e in fs::read_dir(dump.path()).unwrap() {
        files += 1;
        for line in fs::read_to_string(e.unwrap().path()).unwrap().lines() {
            let (k, ns) = line.split_once(' ').expect("KIND NS");
            let s = ns.parse::<f64>().expect("ns") / 1e9;
            raw[usize::from(k == "r")].push(s);
        }
    }
    assert_eq!(files, 2, "one dump per rank");
    let j = json(d, "r.json");
    for (i, phase) in ["raw_write", "raw_read"].iter().enumerate() {
        let r = j["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["phase"] == *phase)
            .unwrap_or_else(|| panic!("a {phase} record"));
        let v = &mut raw[i];
        v.sort_by(f64::total_cmp);
        assert_eq!(v.len(), 256, "{phase}: calls the shim saw");
        assert_eq!(num(r, "latency_calls"), 256.0, "{r}");
        let n = v.len() as f64;
        for (key, q) in [
            ("min", 0.0),
            ("p50", 0.5),
            ("p90", 0.9),
            ("p99", 0.99),
            ("p999", 0.999),
            ("max", 1.0),
        ] {
            let k = (q * n).ceil() as usize;
            let got = num(r, &format!("latency_{key}_s"));
            let (lo, hi) = (kth(v, k), kth(v, k + 1));
            assert!(
                got >= lo * (1.0 - REL) && got <= hi * (1.0 + REL) + 5e-6,
                "{phase} {key}: h5perf {got} s, the shim's {lo} s (next {hi} s)"
            );
        }
    }
}
