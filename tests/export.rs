//! `--json FILE` and `--csv FILE` (issue 4, item 3): machine-readable results of real
//! MPI runs, checked against the text report of the same run (same numbers, as the
//! report prints them), against each other (same values), and for their shape: one
//! record per (processes, transfer size, API, phase), read phases absent with `-w`,
//! valid JSON, RFC 4180 CSV with a header row, `-` for standard output after the report.

mod common;

use common::*;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 oversubscribed cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// The output fields in order (the CSV header; the keys of every JSON record).
const FIELDS: [&str; 51] = [
    "nprocs",
    "xfer_size",
    "buf_bytes",
    "api",
    "phase",
    "bytes",
    "iterations",
    "min_time_s",
    "avg_time_s",
    "max_time_s",
    "max_mibps",
    "avg_mibps",
    "min_mibps",
    "num_bytes",
    "block_size",
    "num_files",
    "num_dsets",
    "geometry",
    "pattern",
    "io_method",
    "storage",
    "align",
    "threshold",
    "fill_value",
    "fill_time",
    "alloc_time",
    "h5perf_version",
    "hdf5_version",
    "mpi_version",
    "world_size",
    "hostname_count",
    "timestamp",
    "std_time_s",
    "std_mibps",
    "max_gbps",
    "avg_gbps",
    "min_gbps",
    "slowest_rank",
    "slowest_host",
    "slowest_time_s",
    "fastest_rank",
    "fastest_host",
    "fastest_time_s",
    "complete",
    "start_time",
    "end_time",
    "command_line",
    "data_dir",
    "fs_type",
    "mpi_info",
    "hosts",
];

/// The facts a run records after [`FIELDS`] with the linked HDF5, with their values: the
/// file-format bounds with HDF5 2.x (whose default low bound is `v18`: `v18`..`v200`),
/// none with 1.x (the defaults `earliest`..latest, not recorded).
fn facts() -> Vec<(&'static str, &'static str)> {
    if linked_hdf5_version().starts_with("1.") {
        Vec::new()
    } else {
        vec![("hdf5_libver_low", "v18"), ("hdf5_libver_high", "v200")]
    }
}

/// [`FIELDS`], then the names of [`facts`]: every record's fields, the CSV header.
fn all_fields() -> Vec<&'static str> {
    FIELDS
        .into_iter()
        .chain(facts().into_iter().map(|f| f.0))
        .collect()
}

/// Phase keys in report order, with the titles the text report uses.
const PHASES: [(&str, &str); 6] = [
    ("raw_write", "Raw Data Write"),
    ("write", "Write"),
    ("write_open_close", "Write Open-Close"),
    ("raw_read", "Raw Data Read"),
    ("read", "Read"),
    ("read_open_close", "Read Open-Close"),
];

const APIS: [&str; 3] = ["posix", "mpiio", "phdf5"];

fn run_ok(np: usize, args: &[&str], dir: &Path) -> Outcome {
    let o = mpirun_timeout(np, args, &[], dir, RUN_TIMEOUT);
    assert!(o.success(), "h5perf failed\n{}", o.describe());
    o
}

/// One throughput line of the text report: the `%6.2f` figure and, with `-D t`, the
/// `%7.3f` time, exactly as printed.
#[derive(Debug, Clone)]
struct Line {
    mbps: String,
    secs: Option<String>,
}

/// A throughput block: iterations from its title, and its Maximum/Average/Minimum lines.
#[derive(Debug, Clone)]
struct Block {
    iterations: u64,
    lines: BTreeMap<String, Line>,
}

/// (processes, transfer size, API name, phase key).
type Key = (u64, u64, String, String);

/// The throughput blocks of a text report, by (processes, transfer size, API, phase).
/// Time-only blocks (`Write File Open` …) are skipped.
fn report_blocks(report: &str) -> BTreeMap<Key, Block> {
    let mut out = BTreeMap::new();
    let (mut n, mut xfer, mut api) = (None::<u64>, None::<u64>, None::<&str>);
    let mut cur: Option<(Key, Block)> = None;
    let mut flush = |cur: &mut Option<(Key, Block)>| {
        if let Some((k, b)) = cur.take() {
            if !b.lines.is_empty() {
                assert!(out.insert(k.clone(), b).is_none(), "block {k:?} twice");
            }
        }
    };
    for line in report.lines() {
        if let Some(v) = line.strip_prefix("Number of processors = ") {
            flush(&mut cur);
            n = Some(v.parse().unwrap());
        } else if let Some(v) = line.strip_prefix("Transfer Buffer Size: ") {
            flush(&mut cur);
            xfer = Some(v.split(' ').next().unwrap().parse().unwrap());
        } else if let Some(v) = line.strip_prefix("        IO API = ") {
            flush(&mut cur);
            api = Some(match v {
                "POSIX" => "posix",
                "MPIO" => "mpiio",
                "PHDF5 (w/MPI-IO driver)" => "phdf5",
                other => panic!("unknown API line {other:?}"),
            });
        } else if let Some(title) = line
            .strip_prefix("            ")
            .filter(|t| !t.starts_with(' '))
        {
            flush(&mut cur);
            let Some((name, rest)) = title.split_once(" (") else {
                continue; // "... details:" blocks of -D 3
            };
            let its: u64 = rest
                .strip_suffix(" iteration(s)):")
                .unwrap_or_else(|| panic!("odd block title {line:?}"))
                .parse()
                .unwrap();
            if let Some((key, _)) = PHASES.iter().find(|(_, t)| *t == name) {
                let k = (
                    n.expect("processes"),
                    xfer.expect("transfer size"),
                    api.expect("API").to_string(),
                    key.to_string(),
                );
                cur = Some((
                    k,
                    Block {
                        iterations: its,
                        lines: BTreeMap::new(),
                    },
                ));
            }
        } else if let Some(body) = line.strip_prefix("                ") {
            for kind in ["Maximum", "Average", "Minimum"] {
                let head = format!("{kind} Throughput: ");
                if let Some(rest) = body.strip_prefix(head.as_str()) {
                    let (mbps, after) = rest.split_once(" MB/s").expect("MB/s");
                    let secs = after
                        .strip_prefix(" (")
                        .and_then(|t| t.strip_suffix(" s)"))
                        .map(str::to_string);
                    let (_, b) = cur.as_mut().expect("throughput line outside a block");
                    b.lines.insert(
                        kind.to_string(),
                        Line {
                            mbps: mbps.to_string(),
                            secs,
                        },
                    );
                }
            }
        }
    }
    flush(&mut cur);
    out
}

fn num(v: &J, what: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {v}"))
}

fn int(v: &J, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what}: not a whole number: {v}"))
}

/// Check every record against the text report: each record whose phase the report
/// shows has the report's figures (`{:6.2}` throughputs, `{:7.3}` times with `-D t`)
/// and iteration count; every throughput block of the report has a record. Returns the
/// number of records found in the report.
fn check_against_report(records: &[J], report: &str) -> usize {
    let blocks = report_blocks(report);
    assert!(!blocks.is_empty(), "no throughput blocks in the report");
    let mut matched = 0;
    for r in records {
        let key: Key = (
            int(&r["nprocs"], "nprocs"),
            int(&r["xfer_size"], "xfer_size"),
            r["api"].as_str().unwrap().to_string(),
            r["phase"].as_str().unwrap().to_string(),
        );
        let Some(b) = blocks.get(&key) else {
            continue;
        };
        matched += 1;
        assert_eq!(b.iterations, int(&r["iterations"], "iterations"), "{key:?}");
        for (kind, mibps, time) in [
            ("Maximum", "max_mibps", "min_time_s"),
            ("Average", "avg_mibps", "avg_time_s"),
            ("Minimum", "min_mibps", "max_time_s"),
        ] {
            let line = &b.lines[kind];
            assert_eq!(
                line.mbps,
                format!("{:6.2}", num(&r[mibps], mibps)),
                "{key:?} {kind} Throughput vs {mibps}"
            );
            if let Some(s) = &line.secs {
                assert_eq!(
                    *s,
                    format!("{:7.3}", num(&r[time], time)),
                    "{key:?} {kind} time vs {time}"
                );
            }
        }
    }
    assert_eq!(
        matched,
        blocks.len(),
        "every throughput block of the report must have a record"
    );
    matched
}

/// The CSV rows must carry the JSON records' values, field by field.
fn check_csv_matches_json(csv: &str, records: &[J]) {
    let rows = parse_csv(csv);
    let fields = all_fields();
    assert_eq!(rows[0], fields, "CSV header");
    assert_eq!(rows.len() - 1, records.len(), "CSV rows vs JSON records");
    for (i, (row, rec)) in rows[1..].iter().zip(records).enumerate() {
        assert_eq!(row.len(), fields.len(), "row {}", i + 1);
        for (f, cell) in fields.iter().zip(row) {
            match &rec[*f] {
                J::String(s) => assert_eq!(cell, s, "row {} {f}", i + 1),
                J::Bool(b) => assert_eq!(cell, &b.to_string(), "row {} {f}", i + 1),
                J::Number(n) if n.is_u64() => {
                    assert_eq!(cell.parse::<u64>().ok(), n.as_u64(), "row {} {f}", i + 1)
                }
                J::Number(n) => assert_eq!(
                    cell.parse::<f64>().ok(),
                    n.as_f64(),
                    "row {} {f}: full precision in both",
                    i + 1
                ),
                other => panic!("row {} {f}: unexpected JSON value {other}", i + 1),
            }
        }
    }
}

/// The JSON document: object with the run fields, `parameters` and `records`; every
/// record has exactly [`FIELDS`] in order, repeating the run fields and parameters.
fn check_json_shape(text: &str) -> (J, Vec<J>) {
    let j: J = serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{text}"));
    assert!(text.starts_with("{\n") && text.ends_with("\n}\n"));
    let recs = j["records"].as_array().expect("records array").clone();
    let params = j["parameters"].as_object().expect("parameters object");
    for f in &FIELDS[13..26] {
        assert!(params.contains_key(*f), "parameters.{f} missing");
    }
    assert_eq!(params.len(), 13);
    for (f, v) in facts() {
        assert_eq!(j[f], v, "{f}");
    }
    assert_eq!(j.get("hdf5_libver_low").is_some(), !facts().is_empty());
    for r in &recs {
        let o = r.as_object().expect("record object");
        assert_eq!(o.len(), all_fields().len(), "{r}");
        for (f, v) in facts() {
            assert_eq!(o[f], v, "{f}");
        }
        for f in &FIELDS[13..26] {
            assert_eq!(o[*f], params[*f], "{f}");
        }
        // the run fields (the hints and hosts are objects at the top, text in records)
        for f in FIELDS[26..32].iter().chain(&FIELDS[43..49]) {
            assert_eq!(o[*f], j[*f], "{f}");
        }
        assert_eq!(j["complete"], true, "a finished run");
        // the summary's max is the slowest rank's time
        assert_eq!(o["slowest_time_s"], o["max_time_s"], "{r}");
    }
    // the keys of the first record are in FIELDS order
    if let Some(line) = text
        .lines()
        .find(|l| l.trim_start().starts_with("{\"nprocs\":"))
    {
        let mut pos = 0;
        for f in all_fields() {
            pos += line[pos..]
                .find(&format!("\"{f}\":"))
                .unwrap_or_else(|| panic!("{f} out of order in {line}"))
                + 1;
        }
    }
    (j, recs)
}

/// Run fields: world size, host count, versions as the program reports them, and a
/// timestamp taken during the run.
fn check_meta(j: &J, report: &str, world: u64, before: u64, after: u64) {
    assert_eq!(j["world_size"], world);
    let hosts = int(&j["hostname_count"], "hostname_count");
    assert!((1..=world).contains(&hosts), "hostname_count {hosts}");
    assert_eq!(j["h5perf_version"], env!("CARGO_PKG_VERSION"));
    let hdf5 = report
        .lines()
        .find_map(|l| l.strip_prefix("HDF5 Library: Version "))
        .expect("version line");
    assert_eq!(j["hdf5_version"], hdf5);
    let mpi = j["mpi_version"].as_str().unwrap();
    assert!(!mpi.is_empty());
    assert!(
        !mpi.chars().any(char::is_control),
        "mpi_version has control characters: {mpi:?}"
    );
    let ts = j["timestamp"].as_str().unwrap();
    let t = unix_from_rfc3339(ts);
    assert!(
        before <= t && t <= after,
        "timestamp {ts} ({t}) not within the run [{before}, {after}]"
    );
}

/// Seconds since the Unix epoch of `YYYY-MM-DDTHH:MM:SSZ` (checked strictly), by
/// H. Hinnant's `days_from_civil` — the inverse of what h5perf computes.
fn unix_from_rfc3339(ts: &str) -> u64 {
    let b = ts.as_bytes();
    assert!(
        b.len() == 20
            && b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b'T'
            && b[13] == b':'
            && b[16] == b':'
            && b[19] == b'Z',
        "not an RFC 3339 UTC timestamp: {ts:?}"
    );
    let n = |r: std::ops::Range<usize>| -> i64 {
        assert!(b[r.clone()].iter().all(u8::is_ascii_digit), "{ts:?}");
        ts[r].parse().unwrap()
    };
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let (hh, mm, ss) = (n(11..13), n(14..16), n(17..19));
    assert!((1..=12).contains(&m) && (1..=31).contains(&d), "{ts:?}");
    assert!(hh < 24 && mm < 60 && ss < 60, "{ts:?}");
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hh * 3600 + mm * 60 + ss).expect("after 1970")
}

#[test]
fn timestamp_reader_is_right() {
    // values from `date -u -d @N +%Y-%m-%dT%H:%M:%SZ`
    assert_eq!(unix_from_rfc3339("1970-01-01T00:00:00Z"), 0);
    assert_eq!(unix_from_rfc3339("2000-02-29T00:00:00Z"), 951_782_400);
    assert_eq!(unix_from_rfc3339("2009-02-13T23:31:30Z"), 1_234_567_890);
    assert_eq!(unix_from_rfc3339("2027-01-01T00:00:00Z"), 1_798_761_600);
    assert_eq!(unix_from_rfc3339("2100-03-01T00:00:00Z"), 4_107_542_400);
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs()
}

#[test]
fn json_and_csv_files_match_the_text_report() {
    let dir = scratch_dir();
    let before = now();
    let o = run_ok(
        2,
        &[
            "-A",
            "posix,mpiio,phdf5",
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
            "-D",
            "r,t",
            "--json",
            "out.json",
            "--csv",
            "out.csv",
        ],
        dir.path(),
    );
    let after = now();
    let json = fs::read_to_string(dir.path().join("out.json")).expect("out.json");
    let csv = fs::read_to_string(dir.path().join("out.csv")).expect("out.csv");
    assert!(
        !o.stdout.contains("\"records\"") && !o.stdout.contains("nprocs,"),
        "nothing of the results on stdout\n{}",
        o.describe()
    );
    let (j, recs) = check_json_shape(&json);
    check_meta(&j, &o.stdout, 2, before, after);
    let p = &j["parameters"];
    for (f, v) in [
        ("num_bytes", J::from(65536)),
        ("block_size", J::from(16384)),
        ("num_files", J::from(1)),
        ("num_dsets", J::from(1)),
        ("geometry", J::from("1D")),
        ("pattern", J::from("contiguous")),
        ("io_method", J::from("independent")),
        ("storage", J::from("contiguous")),
        ("align", J::from(1)),
        ("threshold", J::from(1)),
        ("fill_value", J::from("default")),
        ("fill_time", J::from("default")),
        ("alloc_time", J::from("default")),
    ] {
        assert_eq!(p[f], v, "parameters.{f}");
    }
    // one record per (N, xfer, API, phase), in run order
    let mut want = vec![];
    for n in [2u64, 1] {
        for xfer in [16384u64, 32768] {
            for api in APIS {
                for (ph, _) in PHASES {
                    want.push((n, xfer, api.to_string(), ph.to_string()));
                }
            }
        }
    }
    let got: Vec<Key> = recs
        .iter()
        .map(|r| {
            (
                int(&r["nprocs"], "nprocs"),
                int(&r["xfer_size"], "xfer_size"),
                r["api"].as_str().unwrap().to_string(),
                r["phase"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
    for r in &recs {
        let n = int(&r["nprocs"], "nprocs");
        assert_eq!(r["bytes"], 65536 * n, "bytes = nf x nd x bpp x N");
        assert_eq!(r["buf_bytes"], r["xfer_size"], "1D buffer");
        assert_eq!(r["iterations"], 2);
        let (tmin, tavg, tmax) = (
            num(&r["min_time_s"], "t"),
            num(&r["avg_time_s"], "t"),
            num(&r["max_time_s"], "t"),
        );
        assert!(0.0 < tmin && tmin <= tavg && tavg <= tmax, "{r}");
        assert!(
            num(&r["max_mibps"], "m") >= num(&r["min_mibps"], "m"),
            "{r}"
        );
    }
    // every record's figures are the report's, every report block has its record
    assert_eq!(check_against_report(&recs, &o.stdout), 72);
    check_csv_matches_json(&csv, &recs);
}

#[test]
fn json_on_stdout_follows_the_report() {
    let dir = scratch_dir();
    let before = now();
    let o = run_ok(
        2,
        &[
            "-A",
            "posix,phdf5",
            "-e",
            "64K",
            "-x",
            "32K",
            "-X",
            "32K",
            "-B",
            "16K",
            "-D",
            "t",
            "--json",
            "-",
            "--csv",
            "out.csv",
        ],
        dir.path(),
    );
    let after = now();
    // the JSON starts at the first line that is exactly "{" and runs to the end
    let lines: Vec<&str> = o.stdout.split_inclusive('\n').collect();
    let at = lines
        .iter()
        .position(|l| *l == "{\n")
        .unwrap_or_else(|| panic!("no JSON on stdout\n{}", o.describe()));
    let report: String = lines[..at].concat();
    let json: String = lines[at..].concat();
    assert!(report.contains("Throughput"), "{}", o.describe());
    assert!(
        report
            .lines()
            .last()
            .unwrap()
            .starts_with("                "),
        "the JSON comes right after the last report line\n{}",
        o.describe()
    );
    assert!(
        o.stdout.ends_with("\n}\n"),
        "the JSON is the last thing on stdout"
    );
    let (j, recs) = check_json_shape(&json);
    check_meta(&j, &report, 2, before, after);
    assert_eq!(recs.len(), 2 * 2 * 6);
    // -D t without r: raw phases are in the records, not in the report
    assert_eq!(check_against_report(&recs, &report), 2 * 2 * 4);
    let csv = fs::read_to_string(dir.path().join("out.csv")).expect("out.csv");
    check_csv_matches_json(&csv, &recs);
}

#[test]
fn csv_on_stdout_follows_the_report() {
    let dir = scratch_dir();
    let o = run_ok(
        1,
        &[
            "-A", "mpiio", "-e", "64K", "-x", "64K", "-X", "64K", "-B", "16K", "--csv", "-",
            "--json", "out.json",
        ],
        dir.path(),
    );
    let at = o
        .stdout
        .find("\nnprocs,xfer_size,")
        .unwrap_or_else(|| panic!("no CSV on stdout\n{}", o.describe()))
        + 1;
    let (report, csv) = o.stdout.split_at(at);
    assert!(report.contains("Throughput"));
    let json = fs::read_to_string(dir.path().join("out.json")).expect("out.json");
    let (_, recs) = check_json_shape(&json);
    assert_eq!(recs.len(), 6);
    assert_eq!(check_against_report(&recs, report), 4);
    check_csv_matches_json(csv, &recs);
}

#[test]
fn write_only_has_no_read_records() {
    let dir = scratch_dir();
    let o = run_ok(
        2,
        &[
            "-w", "-e", "64K", "-x", "32K", "-X", "64K", "-B", "16K", "-D", "r", "--json",
            "w.json", "--csv", "w.csv",
        ],
        dir.path(),
    );
    let json = fs::read_to_string(dir.path().join("w.json")).expect("w.json");
    let (_, recs) = check_json_shape(&json);
    // N in {2, 1} x xfer in {32K, 64K} x 3 APIs x 3 write phases
    assert_eq!(recs.len(), 2 * 2 * 3 * 3);
    for r in &recs {
        let ph = r["phase"].as_str().unwrap();
        assert!(
            ["raw_write", "write", "write_open_close"].contains(&ph),
            "read phase {ph} with -w"
        );
    }
    assert_eq!(check_against_report(&recs, &o.stdout), 36);
    let csv = fs::read_to_string(dir.path().join("w.csv")).expect("w.csv");
    check_csv_matches_json(&csv, &recs);
}

/// The fill options reach the parameters of the JSON and CSV records, next to the
/// report's "Fill value=" lines.
#[test]
fn fill_settings_are_recorded() {
    let dir = scratch_dir();
    let o = run_ok(
        1,
        &[
            "-A",
            "phdf5",
            "-c",
            "-e",
            "64K",
            "-x",
            "32K",
            "-X",
            "32K",
            "-B",
            "16K",
            "--fill-value=7",
            "--fill-time=alloc",
            "--alloc-time=early",
            "--json",
            "f.json",
            "--csv",
            "f.csv",
        ],
        dir.path(),
    );
    assert!(o.stdout.contains("Fill value=7"), "{}", o.describe());
    let json = fs::read_to_string(dir.path().join("f.json")).expect("f.json");
    let (j, recs) = check_json_shape(&json);
    let p = &j["parameters"];
    assert_eq!(p["storage"], "chunked");
    assert_eq!(p["fill_value"], "7");
    assert_eq!(p["fill_time"], "alloc");
    assert_eq!(p["alloc_time"], "early");
    assert_eq!(check_against_report(&recs, &o.stdout), 4);
    let csv = fs::read_to_string(dir.path().join("f.csv")).expect("f.csv");
    check_csv_matches_json(&csv, &recs);

    // -n is --fill-time=never; an undefined fill value is spelled out
    let o = run_ok(
        1,
        &[
            "-A",
            "phdf5",
            "-e",
            "64K",
            "-x",
            "64K",
            "-X",
            "64K",
            "-B",
            "16K",
            "-n",
            "--fill-value=undefined",
            "--json",
            "n.json",
        ],
        dir.path(),
    );
    let json = fs::read_to_string(dir.path().join("n.json")).expect("n.json");
    let (j, _) = check_json_shape(&json);
    assert_eq!(
        j["parameters"]["fill_value"],
        "undefined",
        "{}",
        o.describe()
    );
    assert_eq!(j["parameters"]["fill_time"], "never");
    assert_eq!(j["parameters"]["alloc_time"], "default");
}

#[test]
fn unwritable_results_file_is_refused_before_any_io() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-e", "64K", "--json", "no/such/dir/r.json"],
        &[],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "must fail\n{}",
        o.describe()
    );
    assert!(
        o.stderr_clean()
            .contains("cannot create 'no/such/dir/r.json'"),
        "{}",
        o.describe()
    );
    assert!(!o.stdout.contains("Throughput"), "{}", o.describe());
    assert!(pio_tmp_files(dir.path()).is_empty());
}

#[test]
fn json_and_csv_cannot_both_use_stdout() {
    let dir = scratch_dir();
    let o = mpirun_timeout(1, &["--json", "-", "--csv=-"], &[], dir.path(), RUN_TIMEOUT);
    assert!(matches!(o.status, Some(c) if c != 0), "{}", o.describe());
    assert!(
        o.stderr_clean()
            .contains("h5perf: --json and --csv cannot both write to standard output"),
        "{}",
        o.describe()
    );
    assert!(dir_entries(dir.path()).is_empty());
}
