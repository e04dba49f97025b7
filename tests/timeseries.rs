//! `--timeseries` (issue 31), seen from outside: the JSON's `timeseries` array holds
//! one entry per API, iteration, file and phase, every rank's bytes per interval; the
//! samples sum to the bytes each rank moved (bytes per process × datasets) and, over
//! ranks, to the phase's total, for writes and reads of POSIX, MPI-IO and PHDF5; every
//! rank has the same number of intervals; the parameter block names the interval.

mod common;

use std::fs;
use std::time::Duration;

use common::*;
use serde_json::Value as J;

/// Hard limit of one launch: far above the few seconds a case takes, so a hang fails.
const T: Duration = Duration::from_secs(120);

#[test]
fn samples_sum_to_the_bytes_moved() {
    let dir = scratch_dir();
    let d = dir.path();
    let args = [
        "-A",
        "posix,mpiio,phdf5",
        "-p",
        "2",
        "-e",
        "1M",
        "-x",
        "16K",
        "-X",
        "16K",
        "-B",
        "16K",
        "-d",
        "2",
        "-F",
        "2",
        "-i",
        "2",
        "--timeseries=1ms",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(
        o.stdout.contains("rank 0: Time series=0.001 s intervals"),
        "{}",
        o.stdout
    );
    let j: J = serde_json::from_str(&fs::read_to_string(d.join("r.json")).expect("r.json"))
        .expect("valid JSON");
    let ts = j["timeseries"].as_array().expect("a timeseries array");
    // 3 APIs × 2 iterations × 2 files × 2 phases
    assert_eq!(ts.len(), 24, "{ts:?}");
    let per_rank = 2 * (1 << 20); // -e 1M × -d 2
    let mut seen = std::collections::BTreeSet::new();
    for t in ts {
        let key = (
            t["api"].as_str().unwrap().to_string(),
            t["iteration"].as_u64().unwrap(),
            t["file"].as_u64().unwrap(),
            t["phase"].as_str().unwrap().to_string(),
        );
        assert!(seen.insert(key), "one entry per phase: {t}");
        assert_eq!(t["nprocs"], 2);
        assert_eq!(t["xfer_size"], 16384);
        let iv = t["interval_s"].as_f64().unwrap();
        // 1 ms, doubled when a phase outlasted 4096 intervals
        assert!(iv >= 0.001 && (iv / 0.001).log2().fract() == 0.0, "{t}");
        let ranks = t["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 2);
        let lens: Vec<usize> = ranks
            .iter()
            .map(|r| r["bytes"].as_array().unwrap().len())
            .collect();
        assert!(lens[0] >= 1 && lens[0] == lens[1], "{t}");
        let mut total = 0;
        for (k, r) in ranks.iter().enumerate() {
            assert_eq!(r["rank"], k as u64);
            assert!(!r["host"].as_str().unwrap().is_empty());
            let sum: u64 = r["bytes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap())
                .sum();
            // every transfer counted once: the rank's bytes of the phase
            assert_eq!(sum, per_rank, "{t}");
            total += sum;
        }
        assert_eq!(total, 2 * per_rank);
    }
    for api in ["posix", "mpiio", "phdf5"] {
        for phase in ["write", "read"] {
            assert!(
                seen.iter().any(|k| k.0 == api && k.3 == phase),
                "{api} {phase}: {seen:?}"
            );
        }
    }
}

/// With other instruments on the same path (`--latency`, `--random`, `-D v`) and
/// collective MPI-IO the samples still sum to the bytes moved; without the option
/// there is no `timeseries` key.
#[test]
fn with_other_instruments_and_without_the_option() {
    let dir = scratch_dir();
    let d = dir.path();
    let args = [
        "-A",
        "posix,mpiio",
        "-p",
        "2",
        "-e",
        "256K",
        "-x",
        "8K",
        "-X",
        "8K",
        "-B",
        "8K",
        "-C",
        "-D",
        "v",
        "--latency",
        "--random",
        "--timeseries",
        "--json",
        "r.json",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let j: J = serde_json::from_str(&fs::read_to_string(d.join("r.json")).expect("r.json"))
        .expect("valid JSON");
    let ts = j["timeseries"].as_array().expect("a timeseries array");
    assert_eq!(ts.len(), 4, "{ts:?}");
    for t in ts {
        assert_eq!(t["interval_s"], 1.0, "the default interval: {t}");
        for r in t["ranks"].as_array().unwrap() {
            let sum: u64 = r["bytes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap())
                .sum();
            assert_eq!(sum, 256 << 10, "{t}");
        }
    }
    let args: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| *a != "--timeseries")
        .collect();
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let text = fs::read_to_string(d.join("r.json")).expect("r.json");
    assert!(!text.contains("timeseries"), "{text}");
}
