//! `--timeseries` (issue 31), seen from outside: the JSON's `timeseries` array holds
//! one entry per API, iteration, file and phase, every rank's bytes per interval; the
//! samples sum to the bytes each rank moved (bytes per process × datasets) and, over
//! ranks, to the phase's total, for writes and reads of POSIX, MPI-IO and PHDF5; every
//! rank has the same number of intervals; the parameter block names the interval.
//! The `--html` page draws them (a throughput-over-time chart per API and direction,
//! rendered in headless Chromium without a console message), and a page made `--from`
//! the JSON draws the same charts, with a line per host when the ranks span two.

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use common::browser::Browser;

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

/// What the page in `page` shows of the chart `id`: its figure's `data-*` attributes,
/// the points of each line, the legend, after checking that Chromium logs nothing.
fn chart_in_browser(b: &mut Browser, page: &Path, id: &str) -> J {
    let tab = b.open(page, 1000, 1400);
    let logged = b.messages(&tab);
    assert!(
        logged.is_empty(),
        "{}: the page logs: {logged:?}",
        page.display()
    );
    let seen = b.eval(
        &tab,
        &format!(
            "(() => {{ const s = document.getElementById('{id}'); const f = s.closest('figure'); \
             return JSON.stringify({{phases: +f.dataset.phases, intervals: +f.dataset.intervals, \
             bytes: +f.dataset.bytes, height: s.getBoundingClientRect().height, \
             points: [...s.querySelectorAll('g.series')].map(g => g.querySelectorAll('.pt').length), \
             legend: [...s.querySelectorAll('g:not(.series) > text')].map(t => t.textContent)}}); }})()"
        ),
    );
    serde_json::from_str(seen.as_str().expect("a string")).expect("JSON")
}

/// The page of a `--timeseries` run holds a chart per API and direction that carries
/// the JSON's samples (phases, intervals, bytes; one point per interval) and renders in
/// Chromium without a console message; the page made `--from` the JSON has the same
/// section byte for byte; with rank 1 put on another host in the JSON, the chart has a
/// line per host, and the same bytes.
#[test]
fn the_page_draws_the_samples_also_from_the_json() {
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
        "16K",
        "-X",
        "16K",
        "-B",
        "16K",
        "-i",
        "2",
        "--timeseries=1ms",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--html",
        "run.html",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let text = fs::read_to_string(d.join("r.json")).expect("r.json");
    let j: J = serde_json::from_str(&text).expect("valid JSON");
    // what the JSON holds of POSIX's write phases
    let (mut phases, mut intervals, mut bytes) = (0, 0, 0u64);
    for t in j["timeseries"].as_array().unwrap() {
        if t["api"] == "posix" && t["phase"] == "write" {
            phases += 1;
            let ranks = t["ranks"].as_array().unwrap();
            intervals += ranks[0]["bytes"].as_array().unwrap().len();
            for r in ranks {
                bytes += r["bytes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b.as_u64().unwrap())
                    .sum::<u64>();
            }
        }
    }
    assert_eq!(
        (phases, bytes),
        (2, 2 * 2 * (256 << 10)),
        "2 iterations, 2 ranks"
    );
    let mut b = Browser::start();
    let seen = chart_in_browser(&mut b, &d.join("run.html"), "timeseries-posix-write");
    assert_eq!(seen["phases"], phases, "{seen}");
    assert_eq!(seen["intervals"], intervals, "{seen}");
    assert_eq!(seen["bytes"], bytes, "{seen}");
    assert!(seen["height"].as_f64().unwrap() > 100.0, "{seen}");
    // one host: the total only, a point per interval (far fewer than merge would need)
    assert_eq!(seen["points"], serde_json::json!([intervals]), "{seen}");
    let page = fs::read_to_string(d.join("run.html")).unwrap();
    for id in [
        "timeseries-posix-read",
        "timeseries-mpiio-write",
        "timeseries-mpiio-read",
    ] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
    }
    // the same section from the JSON
    let o = run_alone(&["--from", "r.json", "--html", "from.html"], d, T);
    assert!(o.success(), "{}", o.describe());
    let section = |p: &str| {
        let t = fs::read_to_string(d.join(p)).unwrap();
        let a = t.find("<section id=\"timeseries\">").expect("the section");
        t[a..a + t[a..].find("</section>").unwrap()].to_string()
    };
    assert_eq!(section("run.html"), section("from.html"));
    // from the CSV, which holds no samples: the section says where they are, and the
    // parameters keep the interval (the trial: both were silently lost)
    let o = run_alone(&["--from", "r.csv", "--html", "csv.html"], d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(
        section("csv.html")
            .contains("Not shown: the --timeseries samples are in the run's --json file only"),
        "{}",
        section("csv.html")
    );
    let csv_page = fs::read_to_string(d.join("csv.html")).unwrap();
    assert!(csv_page.contains("timeseries_interval_s"), "the interval");
    // rank 1 on another host: a line per host
    let host1 = j["timeseries"][0]["ranks"][1]["host"].as_str().unwrap();
    let two = text.replace(
        &format!("{{\"rank\":1,\"host\":\"{host1}\""),
        "{\"rank\":1,\"host\":\"other-node\"",
    );
    assert_ne!(two, text);
    fs::write(d.join("two.json"), two).unwrap();
    let o = run_alone(&["--from", "two.json", "--html", "two.html"], d, T);
    assert!(o.success(), "{}", o.describe());
    let seen = chart_in_browser(&mut b, &d.join("two.html"), "timeseries-posix-write");
    assert_eq!(
        seen["points"],
        serde_json::json!([intervals, intervals, intervals]),
        "{seen}"
    );
    let legend: Vec<&str> = seen["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        legend,
        ["total", &format!("host {host1}"), "host other-node"],
        "{seen}"
    );
    assert_eq!(seen["bytes"], bytes, "{seen}");
}
