//! The run conditions and the sign-off labels (issue 29), proved from outside: with
//! `--conditions` the JSON, the CSV and the page record the kernel (`uname -r`), the
//! processors (`getconf`), the memory (`/proc/meminfo`), the data directory's mount as
//! `findmnt` reads `/proc/self/mountinfo`, the MPI-IO environment variables given and
//! the MPI-IO component; `--label` reaches the JSON, the CSV and the page's sign-off
//! block; the page, loaded in headless Chromium, logs nothing and shows one row per
//! host; `--from` (results and rank CSV) rebuilds it byte for byte; the page-cache warning appears for a file
//! smaller than the node's memory and not when the node's memory
//! (`H5PERF_NODE_MEMORY`) is smaller than the data; the verdict names the measurement
//! mode first and flags the criteria on page-cache figures with the rule (a read without
//! a cache drop; Raw Data Write under `--fsync`), and the page captions their charts.

mod common;

use common::browser::Browser;
use common::*;
use serde_json::Value as J;
use std::fs;
use std::time::Duration;

const T: Duration = Duration::from_secs(180);

/// A small run of MPI-IO and POSIX on 2 processes, one iteration.
const RUN: [&str; 12] = [
    "-A",
    "mpiio,posix",
    "-e",
    "64K",
    "-B",
    "16K",
    "-x",
    "16K",
    "-X",
    "16K",
    "-i",
    "1",
];

/// The output of a command (trimmed), which must succeed.
fn tool(argv: &[&str]) -> String {
    let o = std::process::Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert!(o.status.success(), "{argv:?}: {o:?}");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// The JSON's top-level text field `k`.
fn field<'a>(j: &'a J, k: &str) -> &'a str {
    j[k].as_str()
        .unwrap_or_else(|| panic!("no text field {k} in the JSON"))
}

#[test]
fn conditions_and_labels_are_recorded_true_in_json_csv_and_page() {
    let dir = scratch_dir();
    let d = dir.path();
    let mut args = RUN.to_vec();
    args.extend([
        "--conditions",
        "--label",
        "sut=array-3",
        "--label",
        "operator=Kim Lee",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--rank-csv",
        "rk.csv",
        "--html",
        "page.html",
        "--expect",
        "posix.read>=1B/s",
    ]);
    let o = mpirun_timeout(2, &args, &[("MPICH_MPIIO_H5PERF_TEST", "on")], d, T);
    assert!(o.success(), "{}", o.describe());
    let j: J = serde_json::from_str(&fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let host = j["hosts"][0]["name"].as_str().unwrap().to_string();

    // the labels, in the order given
    assert_eq!(field(&j, "labels"), "sut=array-3;operator=Kim Lee");
    // each node's figures, as the system tells them
    assert_eq!(
        field(&j, "node_kernel"),
        format!("{host}={}", tool(&["uname", "-r"]))
    );
    assert_eq!(
        field(&j, "node_cpus"),
        format!("{host}={}", tool(&["getconf", "_NPROCESSORS_ONLN"]))
    );
    let kb: u64 = fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("MemTotal");
    let mem: u64 = field(&j, "node_memory_bytes")
        .strip_prefix(&format!("{host}="))
        .unwrap()
        .parse()
        .unwrap();
    // sysconf's pages × page size is MemTotal (within one page)
    assert!(mem.abs_diff(kb * 1024) < 1 << 16, "{mem} vs {kb} kB");
    let load = field(&j, "node_load_start");
    assert_eq!(load.split(' ').count(), 3, "{load}");
    // the data directory's mount, as findmnt reads /proc/self/mountinfo
    let real = fs::canonicalize(d).unwrap();
    let m = tool(&[
        "findmnt",
        "-n",
        "-o",
        "TARGET,SOURCE,FSTYPE,VFS-OPTIONS,FS-OPTIONS,MAJ:MIN",
        "--target",
        real.to_str().unwrap(),
    ]);
    let m: Vec<&str> = m.split_whitespace().collect();
    let mine = [
        "data_dir_mount_point",
        "data_dir_mount_source",
        "data_dir_mount_type",
        "data_dir_mount_options",
        "data_dir_super_options",
        "data_dir_device",
    ]
    .map(|k| field(&j, k).to_string());
    assert_eq!(mine.to_vec(), m, "mount against findmnt");
    // the MPI-IO environment given, and the component
    assert!(
        field(&j, "mpi_io_env")
            .split(';')
            .any(|e| e == "MPICH_MPIIO_H5PERF_TEST=on"),
        "{}",
        field(&j, "mpi_io_env")
    );
    let component = field(&j, "mpi_io_component");
    match flavour() {
        Flavour::OpenMpi => assert!(component.starts_with("OMPIO ("), "{component}"),
        Flavour::Mpich => assert!(
            component.starts_with("ROMIO (MPICH's MPI-IO, file-system driver "),
            "{component}"
        ),
    }
    // the hints in effect were read (none given)
    assert!(j["mpi_hints_in_effect_mpiio"].is_string());
    // a 64 KiB file fits in any node's memory: warned on stderr and in the results
    let w = field(&j, "page_cache_warning");
    assert!(w.contains(&format!("host {host} (131072 bytes)")), "{w}");
    assert!(
        o.stderr_clean()
            .lines()
            .any(|l| l.starts_with("h5perf: warning: ") && l.contains("page-cache figures")),
        "{}",
        o.describe()
    );

    // the CSV: the same facts in every row
    let csv = parse_csv(&fs::read_to_string(d.join("r.csv")).unwrap());
    for k in [
        "labels",
        "node_kernel",
        "data_dir_mount_options",
        "mpi_io_component",
    ] {
        let c = col(&csv[0], k);
        assert!(csv[1..].iter().all(|r| r[c] == field(&j, k)), "CSV {k}");
    }
    assert_eq!(csv.len() - 1, j["records"].as_array().unwrap().len());

    // the page: the sign-off block, the hosts, the warning; nothing logged in a browser
    let page = fs::read_to_string(d.join("page.html")).unwrap();
    for s in [
        "<section id=\"signoff\">",
        "<th>operator</th><td>Kim Lee</td>",
        "<section id=\"hosts\">",
        "<b>Warning:</b>",
        "<th>Mount options</th>",
        "<b>Measurement mode:</b> PAGE CACHE",
        "<li><b>Cache figure:</b> <code>posix.read&gt;=1B/s</code>: reads are page-cache figures",
    ] {
        assert!(page.contains(s), "page lacks {s}");
    }
    let mut b = Browser::start();
    let tab = b.open(&d.join("page.html"), 794, 1123);
    let logged = b.messages(&tab);
    assert!(logged.is_empty(), "the page logs: {logged:?}");
    let seen = b.eval(
        &tab,
        "JSON.stringify({hosts: [...document.querySelectorAll('#hosts tr')].slice(1).map(r => r.cells[0].textContent + '|' + r.cells[2].textContent), \
          signoff: [...document.querySelectorAll('#signoff th')].map(t => t.textContent), \
          caveats: [...document.querySelectorAll('#size figcaption')].map(c => c.closest('figure').querySelector('svg').id), \
          width: document.documentElement.scrollWidth})",
    );
    let seen: J = serde_json::from_str(seen.as_str().unwrap()).unwrap();
    assert_eq!(
        seen["hosts"],
        serde_json::json!([format!("{host}|{}", tool(&["uname", "-r"]))])
    );
    assert_eq!(
        seen["signoff"],
        serde_json::json!(["sut", "operator", "Started", "Ended", "h5perf"])
    );
    assert!(seen["width"].as_u64().unwrap() <= 794, "{seen}");
    // the chart a criterion bounds although it is a cache figure, and only that one
    assert_eq!(seen["caveats"], serde_json::json!(["size-posix-read"]));
    // the verdict on standard output: the mode first, the cache figure named with its rule
    let v = verdict_lines(&o);
    assert!(v[0].starts_with("Verdict: PASS"), "{v:?}");
    assert!(v[1].starts_with("Measurement mode: PAGE CACHE: "), "{v:?}");
    assert!(
        v[2].starts_with(
            "Cache figure: posix.read>=1B/s: reads are page-cache figures without --drop-caches"
        ),
        "{v:?}"
    );

    // --from rebuilds the page byte for byte from the JSON and from the CSV
    for from in ["r.json", "r.csv"] {
        let args = [
            "--from",
            from,
            "--from",
            "rk.csv",
            "--html",
            "again.html",
            "--expect",
            "posix.read>=1B/s",
        ];
        let o = run_alone(&args, d, T);
        assert!(o.success(), "{}", o.describe());
        // not assert_eq: the page is too long to print
        let again = fs::read_to_string(d.join("again.html")).unwrap();
        assert!(again == page, "--from {from}: the pages differ");
    }
}

#[test]
fn no_page_cache_warning_when_the_data_outgrows_the_node_memory_and_fsync_leaves_raw_write_cached()
{
    let dir = scratch_dir();
    let d = dir.path();
    let mut args = RUN.to_vec();
    args.extend(["--conditions", "--json", "r.json", "--fsync"]);
    args.extend([
        "--expect",
        "mpiio.raw_write>=1B/s",
        "--expect",
        "mpiio.write>=1B/s",
    ]);
    // a node of 4 KiB: 64 KiB per rank is more than twice that
    let o = mpirun_timeout(2, &args, &[("H5PERF_NODE_MEMORY", "4096")], d, T);
    assert!(o.success(), "{}", o.describe());
    // --fsync: Write is a storage figure, Raw Data Write is not (the sync is outside it)
    let v = verdict_lines(&o);
    assert!(
        v[1].starts_with("Measurement mode: storage where bypassed: --fsync"),
        "{v:?}"
    );
    assert_eq!(
        v[2],
        "Cache figure: mpiio.raw_write>=1B/s: Raw Data Write is a page-cache figure (the sync \
         of --fsync is outside its timer); only POSIX with --direct writes to the storage \
         inside it",
        "{v:?}"
    );
    assert!(v[3].starts_with("Result "), "{v:?}");
    let j: J = serde_json::from_str(&fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    assert!(field(&j, "node_memory_bytes").ends_with("=4096"));
    assert!(j.get("page_cache_warning").is_none(), "{j}");
    assert!(!o.stderr_clean().contains("warning"), "{}", o.describe());
}

#[test]
fn malformed_labels_are_refused_before_any_run() {
    let dir = scratch_dir();
    let d = dir.path();
    for (args, why) in [
        (&["--label", "sut"][..], "expected KEY=VALUE"),
        (&["--label", "s t=x"][..], "the key must be"),
        (&["--label", "a=1;b=2"][..], "no ';'"),
        (&["--label", "a=1", "--label", "a=2"][..], "given twice"),
    ] {
        let o = run_alone(args, d, T);
        o.assert_refused_without_output(&format!("{args:?}"));
        let m = o.single_message(&format!("{args:?}"));
        assert!(m.contains(why) && m.contains("--label"), "{args:?}: {m}");
    }
    assert!(dir_entries(d).is_empty(), "{:?}", dir_entries(d));
}

/// The `f64` of a page cell's text (`123.45 0.000123`: the throughput, then the time).
fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .map(|w| w.trim_end_matches('%').parse().unwrap_or(f64::NAN))
        .collect()
}

#[test]
fn the_page_shows_each_iteration_and_each_hosts_share_as_the_rank_samples_give_them() {
    let dir = scratch_dir();
    let d = dir.path();
    let args = [
        "-A",
        "posix",
        "-e",
        "64K",
        "-B",
        "16K",
        "-x",
        "16K",
        "-X",
        "16K",
        "-i",
        "3",
        "-p",
        "2",
        "--conditions",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--rank-csv",
        "rk.csv",
        "--html",
        "page.html",
    ];
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let j: J = serde_json::from_str(&fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let host = j["hosts"][0]["name"].as_str().unwrap().to_string();
    let rk = parse_csv(&fs::read_to_string(d.join("rk.csv")).unwrap());
    let c = |k: &str| col(&rk[0], k);
    let mut b = Browser::start();
    let tab = b.open(&d.join("page.html"), 794, 1123);
    let logged = b.messages(&tab);
    assert!(logged.is_empty(), "the page logs: {logged:?}");
    let mut rows = |id: &str| -> Vec<Vec<String>> {
        let v = b.eval(
            &tab,
            &format!("JSON.stringify([...document.querySelectorAll('#{id} tr')].slice(1).map(r => [...r.cells].map(c => c.textContent)))"),
        );
        serde_json::from_str(v.as_str().unwrap()).unwrap()
    };
    let (its, per_host) = (rows("iterations"), rows("per-host"));
    let width = b.eval(&tab, "document.documentElement.scrollWidth");
    assert!(width.as_u64().unwrap() <= 794, "{width}");
    let records = j["records"].as_array().unwrap();
    // one row per measurement, in the results' order, and per host one row each; the
    // JSON's per_host the same
    assert_eq!(its.len(), records.len(), "{its:?}");
    assert_eq!(per_host.len(), records.len(), "{per_host:?}");
    let in_json = j["per_host"].as_array().expect("per_host in the JSON");
    assert_eq!(in_json.len(), records.len(), "{j}");
    for (((row, hrow), r), jh) in its.iter().zip(&per_host).zip(records).zip(in_json) {
        for k in ["nprocs", "xfer_size", "api", "phase", "bytes"] {
            assert_eq!(jh[k], r[k], "{k}: {jh} vs {r}");
        }
        assert_eq!(
            (jh["host"].as_str(), jh["ranks"].as_u64()),
            (Some(host.as_str()), Some(2))
        );
        let t = r["avg_time_s"].as_f64().unwrap();
        assert!(
            (jh["avg_time_s"].as_f64().unwrap() - t).abs() <= 1e-9 * t,
            "{jh} vs {r}"
        );
        let m = r["avg_mibps"].as_f64().unwrap();
        assert!(
            (jh["mibps"].as_f64().unwrap() - m).abs() <= 1e-9 * m,
            "{jh} vs {r}"
        );
        let phase = r["phase"].as_str().unwrap();
        assert_eq!(row[0], "POSIX");
        assert_eq!(row[1], "2");
        let bytes = r["bytes"].as_u64().unwrap() as f64;
        // each iteration: its slowest rank's time in the rank CSV, bytes over it
        let mut times = Vec::new();
        for it in 1..=3 {
            let slowest = rk[1..]
                .iter()
                .filter(|x| x[c("phase")] == phase && x[c("iteration")] == it.to_string())
                .map(|x| x[c("time_s")].parse::<f64>().unwrap())
                .fold(0.0, f64::max);
            let shown = numbers(&row[4 + it]);
            assert!(
                (shown[1] - slowest).abs() <= 1e-6,
                "{phase} {it}: {row:?} vs {slowest}"
            );
            let mibps = bytes / 1_048_576.0 / slowest;
            assert!(
                (shown[0] - mibps).abs() <= 0.006 + mibps * 1e-6 / slowest,
                "{phase} {it}: {row:?} vs {mibps}"
            );
            times.push(slowest);
        }
        // the mean of the shown times is the results' mean time, their spread its cv
        let mean = times.iter().sum::<f64>() / 3.0;
        let avg = r["avg_time_s"].as_f64().unwrap();
        assert!((mean - avg).abs() <= 1e-6, "{phase}: {mean} vs {avg}");
        let sd = (times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let cv = numbers(&row[4])[0];
        assert!(
            (cv - 100.0 * sd / mean).abs() <= 0.01 + 100.0 * 3e-6 / mean,
            "{phase}: {cv}"
        );
        // one host with both ranks: its share is the whole measurement
        assert_eq!(
            hrow[3..7],
            [
                row[3].clone(),
                host.clone(),
                "2".into(),
                r["bytes"].to_string()
            ]
        );
        let hmean = numbers(&hrow[7])[0];
        assert!((hmean - avg).abs() <= 1e-6, "{phase}: {hrow:?} vs {avg}");
        let h = numbers(&hrow[8])[0];
        let avg_mibps = r["avg_mibps"].as_f64().unwrap();
        assert!(
            (h - avg_mibps).abs() <= 0.006 + avg_mibps * 1e-6 / avg,
            "{phase}: {hrow:?} vs {avg_mibps}"
        );
    }
    // the CSV's per-host columns: the JSON's per_host, as host=value
    let csv = parse_csv(&fs::read_to_string(d.join("r.csv")).unwrap());
    assert_eq!(csv.len() - 1, records.len());
    let h = |k: &str| col(&csv[0], k);
    for (row, jh) in csv[1..].iter().zip(in_json) {
        assert_eq!(row[h("per_host_ranks")], format!("{host}=2"));
        assert_eq!(row[h("per_host_bytes")], format!("{host}={}", jh["bytes"]));
        for (k, jk) in [
            ("per_host_avg_time_s", "avg_time_s"),
            ("per_host_mibps", "mibps"),
        ] {
            let v = row[h(k)].strip_prefix(&format!("{host}=")).unwrap();
            assert_eq!(v.parse::<f64>().unwrap(), jh[jk].as_f64().unwrap(), "{k}");
        }
    }
    // the JSON's per_iteration: each iteration's slowest rank of the rank CSV
    let in_json = j["per_iteration"]
        .as_array()
        .expect("per_iteration in the JSON");
    assert_eq!(in_json.len(), 3 * records.len(), "{j}");
    for ji in in_json {
        let slowest = rk[1..]
            .iter()
            .filter(|x| {
                x[c("phase")] == ji["phase"].as_str().unwrap()
                    && x[c("iteration")].parse::<u64>().ok() == ji["iteration"].as_u64()
            })
            .map(|x| x[c("time_s")].parse::<f64>().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(ji["time_s"].as_f64().unwrap(), slowest, "{ji}");
    }
    // a page made --from the JSON alone has both sections as the run's page has them;
    // from the CSV alone it says why they are missing
    let section = |page: &str, id: &str| -> String {
        let at = page
            .find(&format!("<section id=\"{id}\">"))
            .unwrap_or(page.len());
        let end = page[at..].find("</section>").map_or(at, |e| at + e);
        page[at..end].to_string()
    };
    let page = fs::read_to_string(d.join("page.html")).unwrap();
    let o = run_alone(&["--from", "r.json", "--html", "j.html"], d, T);
    assert!(o.success(), "{}", o.describe());
    let alone = fs::read_to_string(d.join("j.html")).unwrap();
    for id in ["iterations", "per-host"] {
        let (run, made) = (section(&page, id), section(&alone, id));
        assert!(
            run.contains("<td>POSIX</td>") && run == made,
            "{id}:\n{run}\n{made}"
        );
    }
    let o = run_alone(&["--from", "r.csv", "--html", "c.html"], d, T);
    assert!(o.success(), "{}", o.describe());
    let alone = fs::read_to_string(d.join("c.html")).unwrap();
    assert!(
        alone.contains("Not shown: the results this page was made from hold no per-rank times")
            && !alone.contains("<section id=\"per-host\">"),
        "{}",
        section(&alone, "iterations")
    );
}
