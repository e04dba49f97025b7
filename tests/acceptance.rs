//! A verdict and pictures (issue 15), proved from outside: contract criteria that pass
//! and fail (exit status 3, the table's rows, the C report above it unchanged against
//! the golden transcript), malformed and unmatched criteria refused before any I/O; a
//! baseline equal to the run passes, one with a measurement doubled fails exactly that
//! measurement, a noisy one does not, missing measurements are listed; `--from`
//! rebuilds the run's page byte for byte from its CSV or JSON and rank CSV; the page
//! holds valid SVG (the W3C SVG 1.1 DTD, `xmllint`) and, loaded from disk in headless
//! Chromium, logs nothing, has one chart per API and phase with one point per transfer
//! size and process count, shows the rank slowed on purpose (`tests/slow_shim.c`) as
//! the slowest of the slowest step, fits A4 width and does not screenshot blank.

mod common;

use common::browser::Browser;
use common::*;
use serde_json::Value as J;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 busy cores; a hang is cut short.
const T: Duration = Duration::from_secs(180);

/// The SVG 1.1 DTD of Debian's `w3c-sgml-lib` (installed by `make test-deps`).
const SVG_DTD: &str = "/usr/share/xml/w3c-sgml-lib/schema/dtd/REC-SVG11-20110816/svg11.dtd";

/// `h5perf ARGS` without a launcher, with this file's timeout.
fn alone(args: &[&str], cwd: &Path) -> Outcome {
    run_alone(args, cwd, T)
}

/// The rows of a verdict table that start with `status`.
fn rows_with<'a>(v: &'a [String], status: &str) -> Vec<&'a String> {
    v.iter()
        .filter(|l| l.starts_with(&format!("{status} ")))
        .collect()
}

/// `1 process, 8 KiB` → (1, 8192).
fn step_of(text: &str) -> (u64, u64) {
    let (p, s) = text.split_once(", ").expect("processes, size");
    let n: u64 = p.split(' ').next().unwrap().parse().unwrap();
    let (num, unit) = s.split_once(' ').expect("size and unit");
    let shift = match unit {
        "KiB" => 10,
        "MiB" => 20,
        "B" => 0,
        u => panic!("unit {u}"),
    };
    (n, num.parse::<u64>().unwrap() << shift)
}

#[test]
fn criteria_pass_and_fail_with_exit_status_3_below_the_unchanged_report() {
    let case = golden_case("interleaved");
    let g = golden("interleaved");
    let dir = scratch_dir();
    let mut args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    args.extend([
        "--expect",
        "posix.write>=1B/s",
        "--expect",
        "mpiio.read.max>=1000TB/s",
        "--expect",
        "phdf5.write_open_close.min > 1 KiB/s @ procs=2, xfer=16K",
    ]);
    let o = mpirun_timeout(case.np, &args, &[], dir.path(), T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    // the C tool's report, line for line, then the table
    let at = o.stdout.find("\nVerdict: ").expect("a verdict");
    compare_reports(&g.stdout, &o.stdout[..at])
        .unwrap_or_else(|e| panic!("the report above the verdict differs:\n{e}"));
    let v = verdict_lines(&o);
    assert_eq!(v[0], "Verdict: FAIL (1 of 3 criteria failed)");
    assert!(v[1].starts_with("Result  Check"), "{v:?}");
    assert_eq!(v.len(), 5, "{v:?}");
    assert!(v[2].starts_with("PASS    posix.write>=1B/s "), "{v:?}");
    assert!(v[2].contains("  worst of 4: "), "{v:?}");
    assert!(
        v[3].starts_with("FAIL    mpiio.read.max>=1000TB/s "),
        "{v:?}"
    );
    assert!(
        v[3].contains(" TB/s ") && v[3].contains(">= 1000 TB/s"),
        "{v:?}"
    );
    assert!(v[3].contains("worst of 4 (4 fail): "), "{v:?}");
    assert!(
        v[4].starts_with("PASS    phdf5.write_open_close.min > 1 KiB/s @ procs=2, xfer=16K "),
        "{v:?}"
    );
    assert!(v[4].ends_with("  2 processes, 16 KiB"), "{v:?}");
    assert_eq!(
        o.single_message("failed criterion"),
        "h5perf: verdict FAIL: 1 of 3 criteria failed"
    );
    assert!(pio_tmp_files(dir.path()).is_empty());

    // every criterion met: exit status 0, the table says PASS
    let o = mpirun_timeout(
        2,
        &[
            "-A",
            "posix",
            "-e",
            "32K",
            "-x",
            "16K",
            "-X",
            "16K",
            "-B",
            "8K",
            "--expect",
            "posix.read>=1kB/s",
        ],
        &[],
        dir.path(),
        T,
    );
    assert!(o.success(), "{}", o.describe());
    let v = verdict_lines(&o);
    assert_eq!(v[0], "Verdict: PASS (0 of 1 criterion failed)");
    assert_eq!(rows_with(&v, "PASS").len(), 1);
    assert!(!o.stderr_clean().contains("h5perf:"), "{}", o.describe());
}

#[test]
fn malformed_and_unmatched_criteria_are_refused_before_any_io() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &[
            "-A",
            "posix",
            "--csv",
            "r.csv",
            "--expect",
            "posix.write>=2MB/s",
        ],
        &[],
        dir.path(),
        T,
    );
    o.assert_refused_without_output("malformed criterion");
    let m = o.single_message("malformed criterion");
    assert!(
        m.starts_with(
            "h5perf: invalid value 'posix.write>=2MB/s' for --expect: 'MB/s' is ambiguous"
        ),
        "{m}"
    );
    let o = mpirun_timeout(
        2,
        &[
            "-A",
            "posix",
            "-w",
            "-e",
            "32K",
            "--csv",
            "r.csv",
            "--html",
            "p.html",
            "--expect",
            "posix.read>=1B/s",
            "--expect",
            "posix.write>=1B/s@procs=4",
        ],
        &[],
        dir.path(),
        T,
    );
    o.assert_refused_without_output("unmatched criteria");
    let err = o.stderr_clean();
    let msgs: Vec<&str> = err.lines().filter(|l| l.starts_with("h5perf: ")).collect();
    assert_eq!(
        msgs,
        [
            "h5perf: --expect 'posix.read>=1B/s' selects nothing in this run: the phase read is not measured (phases: raw_write, write, write_open_close)",
            "h5perf: --expect 'posix.write>=1B/s@procs=4' selects nothing in this run: procs=4 is not among the process counts (2, 1)",
        ],
        "{}",
        o.describe()
    );
    // nothing written: no results, no page, no data file
    assert_eq!(dir_entries(dir.path()), Vec::<String>::new());
}

#[test]
fn baseline_equal_passes_doubled_fails_exactly_that_noisy_does_not() {
    let dir = scratch_dir();
    let d = dir.path();
    let run = [
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
        "3",
    ];
    let mut args = run.to_vec();
    args.extend(["--csv", "r.csv", "--json", "r.json"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    // 2 process counts × 2 sizes × 2 APIs × 6 phases
    let n = 2 * 2 * 2 * 6;

    for base in ["r.csv", "r.json"] {
        let o = alone(&["--from", "r.csv", "--baseline", base], d);
        assert!(o.success(), "{}", o.describe());
        let v = verdict_lines(&o);
        assert_eq!(
            v[0],
            format!("Verdict: PASS (baseline {base}: 0 regressions in {n} measurements)")
        );
        assert_eq!(rows_with(&v, "FAIL").len(), 0, "{v:?}");
    }

    // double the steadiest measurement (smallest standard deviation for its mean)
    let rows = parse_csv(&fs::read_to_string(d.join("r.csv")).unwrap());
    let h = rows[0].clone();
    let (avg, std) = (col(&h, "avg_mibps"), col(&h, "std_mibps"));
    let ratio = |r: &Vec<String>| r[std].parse::<f64>().unwrap() / r[avg].parse::<f64>().unwrap();
    let k = (1..rows.len())
        .min_by(|a, b| ratio(&rows[*a]).total_cmp(&ratio(&rows[*b])))
        .unwrap();
    assert!(
        ratio(&rows[k]) < 0.3,
        "every measurement varies by 30 % or more between iterations: the machine is too \
         busy for this test ({})",
        ratio(&rows[k])
    );
    let key =
        |r: &Vec<String>| ["nprocs", "xfer_size", "api", "phase"].map(|f| r[col(&h, f)].clone());
    let [np, xfer, api, phase] = key(&rows[k]);
    let mut doubled = rows.clone();
    doubled[k][avg] = format!("{}", doubled[k][avg].parse::<f64>().unwrap() * 2.0);
    fs::write(d.join("doubled.csv"), to_csv(&doubled)).unwrap();
    let o = alone(&["--from", "r.csv", "--baseline", "doubled.csv"], d);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert_eq!(
        v[0],
        format!("Verdict: FAIL (baseline doubled.csv: 1 regression in {n} measurements)")
    );
    let fails = rows_with(&v, "FAIL");
    assert_eq!(fails.len(), 2, "the summary row and one regression: {v:?}");
    let size = xfer.parse::<u64>().unwrap() >> 10;
    let procs = if np == "1" {
        "1 process".to_string()
    } else {
        format!("{np} processes")
    };
    assert!(
        fails[1].starts_with(&format!("FAIL    baseline: {api} {phase} ")),
        "{v:?}"
    );
    assert!(
        fails[1].contains(&format!("  {procs}, {size} KiB (baseline ")),
        "{v:?}"
    );
    assert_eq!(
        o.single_message("regression"),
        format!("h5perf: verdict FAIL: baseline doubled.csv: 1 regression in {n} measurements")
    );

    // the same doubled value with a standard deviation as large: noise, no regression
    let mut noisy = doubled.clone();
    noisy[k][std] = format!("{}", noisy[k][avg].parse::<f64>().unwrap());
    fs::write(d.join("noisy.csv"), to_csv(&noisy)).unwrap();
    let o = alone(&["--from", "r.csv", "--baseline", "noisy.csv"], d);
    assert!(o.success(), "{}", o.describe());
    assert!(verdict_lines(&o)[0].starts_with("Verdict: PASS"));

    // measurements missing in the baseline are listed and do not fail
    let ones: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| *i == 0 || r[col(&h, "nprocs")] != "1")
        .map(|(_, r)| r.clone())
        .collect();
    fs::write(d.join("part.csv"), to_csv(&ones)).unwrap();
    // a run that did not finish (complete: false) cannot pass, whatever its figures
    let o = alone(&["--from", "r.json", "--expect", "posix.write>=1B/s"], d);
    assert!(o.success(), "{}", o.describe());
    let text = fs::read_to_string(d.join("r.json")).unwrap();
    let cut = text.replacen("\"complete\": true", "\"complete\": false", 1);
    assert_ne!(cut, text, "the JSON names its completeness");
    fs::write(d.join("cut.json"), cut).unwrap();
    let o = alone(&["--from", "cut.json", "--expect", "posix.write>=1B/s"], d);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert!(v[0].starts_with("Verdict: FAIL ("), "{v:?}");
    assert!(
        v[0].contains("run INVALID (the results file says complete: false"),
        "{v:?}"
    );
    let fails = rows_with(&v, "FAIL");
    assert_eq!(fails.len(), 1, "{v:?}");
    assert!(
        fails[0].contains("run complete") && fails[0].contains("INCOMPLETE"),
        "{v:?}"
    );

    let o = alone(&["--from", "r.json", "--baseline", "part.csv"], d);
    assert!(o.success(), "{}", o.describe());
    let v = verdict_lines(&o);
    let missing: Vec<&String> = v
        .iter()
        .filter(|l| l.starts_with("  missing in part.csv: "))
        .collect();
    assert_eq!(missing.len(), n / 2, "{v:?}");
    assert!(missing.iter().all(|l| l.contains(", 1 process, ")), "{v:?}");

    // a run compared with its baseline as it runs: one measurement made 1000 times
    // better in the baseline fails, all others (1000 times worse there) pass
    let mut live = rows.clone();
    for (i, r) in live.iter_mut().enumerate().skip(1) {
        let a = r[avg].parse::<f64>().unwrap();
        r[avg] = format!("{}", if i == k { a * 1000.0 } else { a / 1000.0 });
    }
    fs::write(d.join("live.csv"), to_csv(&live)).unwrap();
    let mut args = run.to_vec();
    args.extend(["--baseline", "live.csv", "--tolerance", "5"]);
    let o = mpirun_timeout(2, &args, &[], d, T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert_eq!(
        v[0],
        format!("Verdict: FAIL (baseline live.csv: 1 regression in {n} measurements)")
    );
    let fails = rows_with(&v, "FAIL");
    assert_eq!(fails.len(), 2, "{v:?}");
    assert!(
        fails[0].contains("baseline live.csv (tolerance 5%)"),
        "{v:?}"
    );
    assert!(
        fails[1].starts_with(&format!("FAIL    baseline: {api} {phase} ")),
        "{v:?}"
    );
    assert!(
        fails[1].contains(&format!("  {procs}, {size} KiB (baseline ")),
        "{v:?}"
    );
}

/// A wrong file is named with its option: a page in a missing directory (once, not
/// twice), a missing baseline or results file of the `--from` mode.
#[test]
fn a_missing_file_is_named_with_its_option() {
    let dir = scratch_dir();
    let d = dir.path();
    let small = [
        "-A", "posix", "-e", "32K", "-x", "16K", "-X", "16K", "-B", "16K",
    ];
    let mut args = small.to_vec();
    args.extend(["--html", "no-such-dir/p.html"]);
    let o = mpirun_timeout(1, &args, &[], d, T);
    o.assert_refused_without_output("page in a missing directory");
    let m = o.single_message("page in a missing directory");
    assert!(
        m.ends_with(
            "HTML page (--html): cannot create 'no-such-dir/p.html': No such file or directory"
        ) && m.matches("(--html)").count() == 1,
        "{m}"
    );
    let mut args = small.to_vec();
    args.extend(["--csv", "r.csv"]);
    let o = mpirun_timeout(1, &args, &[], d, T);
    assert!(o.success(), "{}", o.describe());
    let o = alone(
        &[
            "--html",
            "p.html",
            "--from",
            "r.csv",
            "--baseline",
            "gone.csv",
        ],
        d,
    );
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let m = o.single_message("missing baseline of --from");
    assert!(
        m.starts_with("h5perf: baseline (--baseline): ") && m.contains("gone.csv"),
        "{m}"
    );
    let o = alone(&["--html", "p.html", "--from", "gone.csv"], d);
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let m = o.single_message("missing results of --from");
    assert!(
        m.starts_with("h5perf: results (--from): ") && m.contains("gone.csv"),
        "{m}"
    );
    assert_eq!(dir_entries(d), ["r.csv"]);
}

/// The `<svg>` elements of a page, each as its own document.
fn svgs(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(s) = page[at..].find("<svg ") {
        let start = at + s;
        let end = start + page[start..].find("</svg>").expect("</svg>") + "</svg>".len();
        out.push(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
            &page[start..end]
        ));
        at = end;
    }
    out
}

/// `xmllint` accepts every file of `files` (with `args`); returns its output on failure.
fn xmllint(args: &[&str], files: &[String], cwd: &Path) -> Result<(), String> {
    let tool = require_tool("xmllint", "libxml2-utils");
    let mut argv = vec![tool.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|s| s.to_string()));
    argv.extend(files.iter().cloned());
    let o = run_session(&argv, &[], cwd, T);
    if o.success() {
        Ok(())
    } else {
        Err(o.describe())
    }
}

#[test]
fn the_page_in_a_real_browser_and_rebuilt_from_the_files() {
    let dir = scratch_dir();
    let d = dir.path();
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let crit = [
        "--expect",
        "posix.write>=1B/s",
        "--expect",
        "mpiio.read>=1000TB/s@procs=2",
        "--expect",
        "mpiio.write>=1B/s@xfer=16K",
    ];
    let mut args = vec![
        "-A",
        "posix,mpiio,phdf5",
        "-p",
        "1",
        "-e",
        "32K",
        "-x",
        "8K",
        "-X",
        "16K",
        "-B",
        "8K",
        "-i",
        "2",
        "--csv",
        "r.csv",
        "--json",
        "r.json",
        "--rank-csv",
        "ranks.csv",
        "--html",
        "page.html",
    ];
    args.extend(crit);
    let o = mpirun_timeout(4, &args, &slow_rank_env(&shim, "1"), d, T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let page = fs::read_to_string(d.join("page.html")).expect("the page");

    // --from rebuilds the very page, from the CSV or the JSON with the rank CSV
    for (i, files) in [["r.csv", "ranks.csv"], ["ranks.csv", "r.json"]]
        .iter()
        .enumerate()
    {
        let name = format!("again{i}.html");
        let mut a = vec!["--html", &name, "--from", files[0], "--from", files[1]];
        a.extend(crit);
        let o = alone(&a, d);
        assert_eq!(o.status, Some(3), "{}", o.describe());
        assert!(verdict_lines(&o)[0].starts_with("Verdict: FAIL (1 of 3 criteria failed)"));
        let again = fs::read_to_string(d.join(&name)).unwrap();
        assert!(
            again == page,
            "--from {files:?} made another page than the run"
        );
    }

    // `--html -` (a separate `-`, as `--csv -`) writes the same page to standard output,
    // after the verdict
    let mut a = vec!["--html", "-", "--from", "r.csv", "--from", "ranks.csv"];
    a.extend(crit);
    let o = alone(&a, d);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let at = o
        .stdout
        .find("<!DOCTYPE html>")
        .expect("the page on stdout");
    assert!(o.stdout[..at].contains("Verdict: FAIL"), "{}", o.describe());
    assert!(
        o.stdout[at..] == page,
        "--html - wrote another page than the run"
    );

    // well-formed XML as a whole, and every chart valid against the SVG 1.1 DTD
    xmllint(&["--noout"], &["page.html".to_string()], d).expect("the page is well-formed XML");
    let charts = svgs(&page);
    assert_eq!(charts.len(), 18 + 6 + 3);
    let mut files = Vec::new();
    for (i, s) in charts.iter().enumerate() {
        let f = format!("chart{i:02}.svg");
        fs::write(d.join(&f), s).unwrap();
        files.push(f);
    }
    xmllint(&["--noout", "--dtdvalid", SVG_DTD], &files, d).expect("valid SVG 1.1");
    // the validator does see a mistake
    let bad = charts[0].replacen("<g class=", "<g data-x=\"1\" class=", 1);
    fs::write(d.join("bad.svg"), bad).unwrap();
    let e = xmllint(
        &["--noout", "--dtdvalid", SVG_DTD],
        &["bad.svg".to_string()],
        d,
    )
    .expect_err("an attribute SVG 1.1 does not have");
    assert!(e.contains("data-x"), "{e}");

    // a control page: the browser's console errors are seen
    let mut b = Browser::start();
    fs::write(
        d.join("control.html"),
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><title>c</title></head><body>\
         <p>control</p><script>console.error('deliberate console error')</script></body></html>",
    )
    .unwrap();
    let tab = b.open(&d.join("control.html"), 800, 600);
    let m = b.messages(&tab);
    assert!(
        m.iter()
            .any(|l| l.starts_with("console.error: ") && l.contains("deliberate console error")),
        "the console error of the control page was not seen: {m:?}"
    );

    // the page at A4 width (210 mm at 96 px per inch): nothing logged at all
    let tab = b.open(&d.join("page.html"), 794, 1123);
    let m = b.messages(&tab);
    assert!(m.is_empty(), "the page logs: {m:?}");
    let facts = b.eval(
        &tab,
        "JSON.stringify({\
           size: [...document.querySelectorAll('svg.chart.size')].map(s => ({id: s.id, \
             pts: [...s.querySelectorAll('.pt')].map(c => c.querySelector('title').textContent), \
             rings: s.querySelectorAll('circle.ring').length})),\
           procs: [...document.querySelectorAll('svg.chart.procs')].map(s => ({id: s.id, \
             pts: s.querySelectorAll('.pt').length, rings: s.querySelectorAll('circle.ring').length})),\
           ranks: [...document.querySelectorAll('svg.chart.ranks')].map(s => ({id: s.id, \
             pts: s.querySelectorAll('.pt').length, \
             top: [...s.querySelectorAll('.pt.top')].map(c => c.querySelector('title').textContent)})),\
           heading: document.querySelector('#ranks h2').textContent,\
           lineDash: [...new Set([...document.querySelectorAll('svg.chart .series .ln')].map(l => getComputedStyle(l).strokeDasharray))],\
           boundDash: [...new Set([...document.querySelectorAll('svg.chart .bd')].map(l => getComputedStyle(l).strokeDasharray))],\
           xferBound: (s => ({boxes: [...s.querySelectorAll('.bd')].map(b => {const r = b.getBBox(); return [r.x, r.x + r.width];}), \
             ticks: Object.fromEntries([...s.querySelectorAll('text.m')].filter(t => t.textContent.endsWith('KiB')).map(t => [t.textContent, +t.getAttribute('x')]))}))(document.getElementById('size-mpiio-write')),\
           procsBound: [...document.getElementById('size-mpiio-read').querySelectorAll('.bd')].map(b => {const r = b.getBBox(); return [r.x, r.x + r.width];}),\
           badge: document.querySelector('#verdict .badge').textContent,\
           scripts: document.scripts.length,\
           width: document.documentElement.scrollWidth,\
           smallest: Math.min(...[...document.querySelectorAll('svg.chart text')].map(t => t.getBoundingClientRect().height))\
         })",
    );
    let f: J = serde_json::from_str(facts.as_str().expect("a JSON text")).unwrap();
    assert_eq!(f["badge"], "FAIL");
    assert_eq!(f["scripts"], 0);
    assert!(f["width"].as_f64().unwrap() <= 794.0, "wider than A4: {f}");
    assert!(
        f["smallest"].as_f64().unwrap() >= 8.0,
        "chart text under 8 px: {f}"
    );
    // one chart per API and phase, one point per (transfer size, process count)
    let want: BTreeSet<(u64, u64)> = [1, 2, 4]
        .iter()
        .flat_map(|&n| [8192, 16384].map(|x| (n, x)))
        .collect();
    let size = f["size"].as_array().unwrap();
    let ids: BTreeSet<String> = size
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let mut want_ids = BTreeSet::new();
    for api in ["posix", "mpiio", "phdf5"] {
        for ph in [
            "raw-write",
            "write",
            "write-open-close",
            "raw-read",
            "read",
            "read-open-close",
        ] {
            want_ids.insert(format!("size-{api}-{ph}"));
        }
    }
    assert_eq!(ids, want_ids);
    for c in size {
        let pts: Vec<(u64, u64)> = c["pts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| step_of(t.as_str().unwrap().split(':').next().unwrap()))
            .collect();
        assert_eq!(pts.len(), want.len(), "{c}");
        assert_eq!(pts.iter().copied().collect::<BTreeSet<_>>(), want, "{c}");
        let rings = if c["id"] == "size-mpiio-read" { 2 } else { 0 };
        assert_eq!(c["rings"], rings, "{c}");
    }
    let procs = f["procs"].as_array().unwrap();
    assert_eq!(procs.len(), 6);
    for c in procs {
        assert_eq!(c["pts"], 3 * 3, "{c}");
        assert_eq!(
            c["rings"],
            if c["id"] == "procs-read" { 1 } else { 0 },
            "{c}"
        );
    }
    // series lines are solid, the criteria's bounds the only dashed lines
    assert_eq!(f["lineDash"], serde_json::json!(["none"]), "{f}");
    let dash = f["boundDash"].as_array().unwrap();
    assert!(dash.len() == 1 && dash[0] != "none", "{f}");
    // @xfer=16K: a segment at 16 KiB only, clear of 8 KiB; @procs=2 (points of 2
    // processes at every size): across the chart
    let xb = &f["xferBound"];
    let (k8, k16) = (
        xb["ticks"]["8 KiB"].as_f64().unwrap(),
        xb["ticks"]["16 KiB"].as_f64().unwrap(),
    );
    let boxes = xb["boxes"].as_array().unwrap();
    assert_eq!(boxes.len(), 1, "{xb}");
    let (from, to) = (boxes[0][0].as_f64().unwrap(), boxes[0][1].as_f64().unwrap());
    assert!(from < k16 && k16 < to && from > (k8 + k16) / 2.0, "{xb}");
    let pb = f["procsBound"].as_array().unwrap();
    assert_eq!(pb.len(), 1, "{f}");
    assert!(
        pb[0][0].as_f64().unwrap() < k8 && pb[0][1].as_f64().unwrap() > k16,
        "{f}"
    );
    // the slowed rank is the slowest of the slowest step in POSIX's write phases
    assert_eq!(
        f["heading"],
        "Per-rank times of the slowest step: 4 processes, 8 KiB"
    );
    let ranks = f["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 3);
    let posix = ranks
        .iter()
        .find(|c| c["id"] == "ranks-posix")
        .expect("ranks-posix");
    assert_eq!(posix["pts"], 4 * 6);
    let tops: Vec<&str> = posix["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tops.len(), 6);
    for ph in ["Raw Data Write", "in Write (", "Write Open-Close"] {
        let t = tops
            .iter()
            .find(|t| t.contains(ph))
            .unwrap_or_else(|| panic!("{ph}: {tops:?}"));
        assert!(t.starts_with("rank 1 ("), "{t}");
        let secs: f64 = t
            .split(": ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(secs >= 1.0, "the pause is 1.5 s: {t}");
    }

    // a screenshot that is not blank: decoded by the browser in a blank tab
    let png = b.screenshot(&tab);
    fs::write(d.join("blank.html"), "<!DOCTYPE html><title>b</title>").unwrap();
    let blank = b.open(&d.join("blank.html"), 100, 100);
    let px = b.eval(
        &blank,
        &format!(
            "(async () => {{ const i = new Image(); i.src = 'data:image/png;base64,{png}'; \
             await i.decode(); const c = document.createElement('canvas'); \
             c.width = i.width; c.height = i.height; const x = c.getContext('2d'); \
             x.drawImage(i, 0, 0); const d = x.getImageData(0, 0, c.width, c.height).data; \
             let ink = 0; const colours = new Set(); \
             for (let k = 0; k < d.length; k += 4) {{ \
               if (d[k] < 200 || d[k + 1] < 200 || d[k + 2] < 200) ink++; \
               colours.add((d[k] >> 4) << 8 | (d[k + 1] >> 4) << 4 | (d[k + 2] >> 4)); }} \
             return JSON.stringify({{w: c.width, h: c.height, ink, colours: colours.size}}); }})()"
        ),
    );
    let px: J = serde_json::from_str(px.as_str().unwrap()).unwrap();
    assert_eq!(
        (px["w"].as_u64(), px["h"].as_u64()),
        (Some(794), Some(1123)),
        "{px}"
    );
    let ink = px["ink"].as_f64().unwrap() / (794.0 * 1123.0);
    assert!(ink > 0.02, "the screenshot is (nearly) blank: {px}");
    assert!(
        px["colours"].as_u64().unwrap() >= 8,
        "too few colours: {px}"
    );

    // printed on A4 (the printable width with 12 mm margins, print styles): no overflow
    b.call(
        Some(&tab.session),
        "Emulation.setEmulatedMedia",
        serde_json::json!({"media": "print"}),
    );
    b.call(
        Some(&tab.session),
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 703, "height": 1040, "deviceScaleFactor": 1, "mobile": false}),
    );
    let w = b.eval(&tab, "document.documentElement.scrollWidth");
    assert!(
        w.as_f64().unwrap() <= 703.0,
        "wider than A4 when printed: {w}"
    );
    let small = b.eval(
        &tab,
        "Math.min(...[...document.querySelectorAll('svg.chart text')].map(t => t.getBoundingClientRect().height))",
    );
    assert!(
        small.as_f64().unwrap() >= 7.0,
        "printed chart text under 7 px: {small}"
    );
    let pdf = b.print_a4(&tab);
    assert!(pdf.starts_with("JVBERi0"), "not a PDF"); // base64 of "%PDF-"
    assert!(b.messages(&tab).is_empty(), "the page logs when printed");
}
