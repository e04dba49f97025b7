//! Spread and reproducibility in the verdict (issue 29), proved from outside: a `cv`
//! criterion passes on a run whose every write is slowed alike (`tests/slow_shim.c`) and
//! fails on one whose first iteration alone is slowed; `--within` flags an improvement and
//! a drop; a uniform 30 % slowdown of every measurement, each one alone lost in its noise
//! (the one-sided `--baseline` rule passes them all), is caught by the judgement of the
//! run as a whole; a run too noisy to decide is INCONCLUSIVE with exit status 4 and says
//! how many iterations would decide it; spread checks without iterations are refused
//! before any I/O. The results files are those of a real run, changed where said.

mod common;

use common::*;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 busy cores; a hang is cut short.
const T: Duration = Duration::from_secs(120);

/// One rank, POSIX, 2 transfer sizes (12 measurements), 3 iterations.
const RUN: [&str; 14] = [
    "-A", "posix", "-e", "64K", "-x", "32K", "-X", "64K", "-B", "32K", "-i", "3", "-P", "1",
];

/// `h5perf ARGS` without a launcher, with this file's timeout.
fn alone(args: &[&str], cwd: &Path) -> Outcome {
    run_alone(args, cwd, T)
}

/// `line` with every run of blanks made one (the status column's width varies).
fn words(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The value of `f` in row `r` of a CSV with header `h`.
fn num(h: &[String], r: &[String], f: &str) -> f64 {
    r[col(h, f)].parse().unwrap()
}

/// Rewrite every data row of `rows`: `f(index, mean, row)` gives (new mean, new
/// standard deviation) in MiB/s; the times follow the mean.
fn rewrite(rows: &[Vec<String>], f: &dyn Fn(usize, f64) -> (f64, f64)) -> Vec<Vec<String>> {
    let h = rows[0].clone();
    let mut out = rows.to_vec();
    for (i, r) in out.iter_mut().enumerate().skip(1) {
        let avg = num(&h, r, "avg_mibps");
        let (new, std) = f(i, avg);
        let k = new / avg;
        for m in ["avg_mibps", "max_mibps", "min_mibps"] {
            let v = num(&h, r, m) * k;
            r[col(&h, m)] = format!("{v}");
        }
        for t in ["min_time_s", "avg_time_s", "max_time_s"] {
            let v = num(&h, r, t) / k;
            r[col(&h, t)] = format!("{v}");
        }
        r[col(&h, "std_mibps")] = format!("{std}");
        let tstd = num(&h, r, "avg_time_s") * std / new;
        r[col(&h, "std_time_s")] = format!("{tstd}");
    }
    out
}

#[test]
fn a_cv_criterion_passes_on_a_steady_run_and_fails_on_one_slowed_once() {
    let dir = scratch_dir();
    let d = dir.path();
    let shim = slow_shim(d);
    let crit = "posix.raw_write.cv<=30%";
    let mut args = RUN.to_vec();
    args.extend(["--expect", crit]);
    // every data write sleeps 100 ms: every iteration takes about as long, cv small
    let steady = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_SLOW_RANK", "0"),
        ("H5PERF_TEST_SLOW_MS", "100"),
    ];
    let o = mpirun_timeout(1, &args, &steady, d, T);
    assert!(o.success(), "{}", o.describe());
    let v = verdict_lines(&o);
    assert_eq!(v[0], "Verdict: PASS (0 of 1 criterion failed)", "{v:?}");
    assert!(v[2].starts_with(&format!("PASS    {crit} ")), "{v:?}");
    assert!(v[2].contains(" % ") && v[2].contains("<= 30 %"), "{v:?}");
    // the first write only sleeps 500 ms: one iteration of 3 far slower, cv large
    let once = [
        ("LD_PRELOAD", shim.as_str()),
        ("H5PERF_TEST_SLOW_RANK", "0"),
        ("H5PERF_TEST_SLOW_MS", "500"),
        ("H5PERF_TEST_SLOW_ONCE", "1"),
    ];
    let mut args = RUN.to_vec();
    args.extend(["--expect", crit, "--csv", "once.csv"]);
    let o = mpirun_timeout(1, &args, &once, d, T);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert_eq!(v[0], "Verdict: FAIL (1 of 1 criterion failed)", "{v:?}");
    assert!(v[2].starts_with(&format!("FAIL    {crit} ")), "{v:?}");
    assert!(
        v[2].ends_with("1 process, 32 KiB"),
        "the slowed step: {v:?}"
    );
    // the row shows the results file's cv: 100 × std_time_s / avg_time_s
    let rows = parse_csv(&fs::read_to_string(d.join("once.csv")).unwrap());
    let h = &rows[0];
    let r = rows
        .iter()
        .find(|r| r[col(h, "phase")] == "raw_write" && r[col(h, "xfer_size")] == "32768")
        .unwrap();
    let cv = 100.0 * num(h, r, "std_time_s") / num(h, r, "avg_time_s");
    assert!(cv > 30.0, "{cv}");
    assert!(v[2].contains(&format!(" {cv:.2} % ")), "{cv:.2}: {v:?}");
    // the same criterion from the files, and a bound above the measured cv passes
    let o = alone(&["--from", "once.csv", "--expect", crit], d);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let above = format!("posix.raw_write.cv<={}%", (cv + 1.0).ceil());
    let o = alone(&["--from", "once.csv", "--expect", &above], d);
    assert!(o.success(), "{}", o.describe());

    // a spread needs iterations: refused before any I/O with -i 1
    let mut args = RUN.to_vec();
    args.extend(["-i", "1", "--expect", crit]);
    let o = mpirun_timeout(1, &args, &[], d, T);
    assert_eq!(o.status, Some(1), "{}", o.describe());
    assert!(
        o.stderr_clean()
            .contains("bounds the spread over iterations, but this run has 1"),
        "{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("Raw Data Write"),
        "no I/O: {}",
        o.describe()
    );

    within_flags_drops_improvements_and_a_broad_drop(d, &rows);
}

/// `--within` on files made from a real run's `rows` (12 measurements, 3 iterations).
fn within_flags_drops_improvements_and_a_broad_drop(d: &Path, rows: &[Vec<String>]) {
    let n = rows.len() - 1;
    // a steady baseline: every standard deviation 1 % of its mean
    let base = rewrite(rows, &|_, a| (a, 0.01 * a));
    fs::write(d.join("base.csv"), to_csv(&base)).unwrap();
    // one measurement 40 % better, one 40 % worse, the others as they were
    let moved = rewrite(&base, &|i, a| match i {
        2 => (1.4 * a, 0.01 * a),
        5 => (0.6 * a, 0.01 * a),
        _ => (a, 0.01 * a),
    });
    fs::write(d.join("moved.csv"), to_csv(&moved)).unwrap();
    let o = alone(
        &[
            "--from",
            "moved.csv",
            "--baseline",
            "base.csv",
            "--within",
            "10",
        ],
        d,
    );
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert!(
        v[0].starts_with(&format!(
            "Verdict: FAIL (baseline base.csv within 10%: 1 drop, 1 improvement, 0 undecided in \
             {n} measurements; as a whole "
        )),
        "{v:?}"
    );
    let h = &rows[0];
    let what = |i: usize| format!("{} {}", rows[i][col(h, "api")], rows[i][col(h, "phase")]);
    let improvement = v
        .iter()
        .find(|l| l.contains(" improvement "))
        .unwrap_or_else(|| panic!("{v:?}"));
    assert!(
        words(improvement).starts_with(&format!("FAIL baseline: {} improvement ", what(2))),
        "{v:?}"
    );
    assert!(improvement.contains("(+40.0%; baseline "), "{v:?}");
    let drop = v.iter().find(|l| l.contains(" drop  ")).unwrap();
    assert!(
        words(drop).starts_with(&format!("FAIL baseline: {} drop ", what(5))),
        "{v:?}"
    );
    assert!(drop.contains("(-40.0%; baseline "), "{v:?}");
    // the one-sided rule sees only the drop
    let o = alone(&["--from", "moved.csv", "--baseline", "base.csv"], d);
    assert_eq!(o.status, Some(3), "{}", o.describe());
    assert!(
        verdict_lines(&o)[0].contains(": 1 regression in "),
        "{}",
        o.describe()
    );

    // every measurement 30 % slower, each with a spread of 30 % and a wobble of ±15 %
    let wobble = |i: usize| 1.0 + 0.15 * (i as f64 * 2.399).sin();
    let noisy_base = rewrite(rows, &|_, a| (a, 0.3 * a));
    let slower = rewrite(&noisy_base, &|i, a| {
        let m = 0.7 * a * wobble(i);
        (m, 0.3 * m)
    });
    fs::write(d.join("noisy.csv"), to_csv(&noisy_base)).unwrap();
    fs::write(d.join("slower.csv"), to_csv(&slower)).unwrap();
    // each alone: no regression by the one-sided rule (within twice the noise)
    let o = alone(&["--from", "slower.csv", "--baseline", "noisy.csv"], d);
    assert!(o.success(), "{}", o.describe());
    assert!(
        verdict_lines(&o)[0].contains(": 0 regressions in "),
        "{}",
        o.describe()
    );
    // as a whole: a drop
    let o = alone(
        &[
            "--from",
            "slower.csv",
            "--baseline",
            "noisy.csv",
            "--within",
            "10",
        ],
        d,
    );
    assert_eq!(o.status, Some(3), "{}", o.describe());
    let v = verdict_lines(&o);
    assert!(
        v[0].contains(&format!(
            "0 drops, 0 improvements, {n} undecided in {n} measurements"
        )),
        "{v:?}"
    );
    assert!(v[0].ends_with("(drop))"), "{v:?}");
    let whole = v
        .iter()
        .find(|l| l.contains("baseline: the run as a whole"))
        .unwrap();
    assert!(whole.starts_with("FAIL "), "{v:?}");
    assert!(
        whole.contains(&format!("drop: geometric mean of {n} ratios")),
        "{v:?}"
    );
    assert_eq!(
        o.single_message("verdict"),
        format!(
            "h5perf: verdict FAIL: {}",
            &v[0]["Verdict: FAIL (".len()..v[0].len() - 1]
        )
    );

    // 5 % slower, noisy: nothing fails, nothing decided per measurement: INCONCLUSIVE, 4
    let near = rewrite(&noisy_base, &|i, a| {
        let m = 0.95 * a * (1.0 + 0.01 * (i as f64).sin());
        (m, 0.3 * m)
    });
    fs::write(d.join("near.csv"), to_csv(&near)).unwrap();
    let o = alone(
        &[
            "--from",
            "near.csv",
            "--baseline",
            "noisy.csv",
            "--within",
            "10",
        ],
        d,
    );
    assert_eq!(o.status, Some(4), "{}", o.describe());
    let v = verdict_lines(&o);
    assert!(v[0].starts_with("Verdict: INCONCLUSIVE ("), "{v:?}");
    assert!(v[0].ends_with("(within))"), "{v:?}");
    let open = v
        .iter()
        .find(|l| words(l).starts_with("INCONCLUSIVE baseline: undecided measurements"))
        .unwrap_or_else(|| panic!("{v:?}"));
    // the baseline's own spread (30 % over 3 iterations) is too large for 10 %
    assert!(
        open.contains("rerun the baseline with more iterations"),
        "{v:?}"
    );
    assert!(o
        .single_message("verdict")
        .starts_with("h5perf: verdict INCONCLUSIVE: baseline noisy.csv within 10%: "));
    // a steady baseline: more iterations of this run would decide, and say how many
    let o = alone(
        &[
            "--from",
            "near.csv",
            "--baseline",
            "base.csv",
            "--within",
            "10",
        ],
        d,
    );
    assert_eq!(o.status, Some(4), "{}", o.describe());
    let v = verdict_lines(&o);
    let open = v
        .iter()
        .find(|l| words(l).starts_with("INCONCLUSIVE baseline: undecided measurements"))
        .unwrap();
    let at = open.find("about -i ").unwrap_or_else(|| panic!("{v:?}")) + "about -i ".len();
    let iters: u32 = open[at..].split(' ').next().unwrap().parse().unwrap();
    // t·0.3·m/sqrt(i) below 0.1·b − 0.05·b: i about (1.7·0.3·0.95/0.05)² ≈ 100
    assert!((40..=400).contains(&iters), "{iters}: {v:?}");
    assert!(v.iter().any(|l| l.starts_with("  undecided: ")), "{v:?}");

    // a baseline of one iteration has no spread to judge with
    let once = rewrite(rows, &|_, a| (a, 0.0));
    let once: Vec<Vec<String>> = once
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            if i > 0 {
                r[col(h, "iterations")] = "1".into();
            }
            r
        })
        .collect();
    fs::write(d.join("one.csv"), to_csv(&once)).unwrap();
    let o = alone(
        &[
            "--from",
            "near.csv",
            "--baseline",
            "one.csv",
            "--within",
            "10",
        ],
        d,
    );
    assert_eq!(o.status, Some(1), "{}", o.describe());
    assert!(
        o.stderr_clean()
            .contains("--within needs the baseline's spread"),
        "{}",
        o.describe()
    );
}

/// `--stable` as root (these tests' machines): it turns on `--drop-caches` (with
/// `--fsync` given), so a criterion on Read and a file far below the node's memory are
/// accepted, while Raw Data Write, which no bypass but POSIX `--direct` makes a storage
/// figure, stays refused; the run then passes, marked as the stable profile in the
/// verdict, the results and on stderr. As an unprivileged user on one node nothing can
/// keep the cache out of the reads: the refusal stays, with the reason.
#[test]
fn stable_refuses_criteria_on_page_cache_figures_before_any_io() {
    let dir = scratch_dir();
    let d = dir.path();
    let mut args = vec![
        "-A",
        "posix",
        "-e",
        "64K",
        "--stable",
        "--fsync",
        "--expect",
        "posix.raw_write>=1B/s",
        "--expect",
        "posix.read>=1B/s",
        "--expect",
        "posix.write>=1B/s",
    ];
    // a node of 1 MB: the 64 KiB file is less than twice its memory
    let memory = [("H5PERF_NODE_MEMORY", "1000000")];
    let o = mpirun_timeout(1, &args, &memory, d, T);
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let err = o.stderr_clean();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("h5perf: ")).collect();
    assert_eq!(lines.len(), 1, "{}", o.describe());
    assert!(
        lines[0].starts_with("h5perf: --stable refuses --expect 'posix.raw_write>=1B/s': ")
            && lines[0].contains("the sync of --fsync is outside its timer"),
        "{lines:?}"
    );
    assert!(
        !o.stdout.contains("Raw Data Write"),
        "no I/O: {}",
        o.describe()
    );
    // without it: --drop-caches is turned on, the reads and the small file are accepted
    args.drain(6..8);
    args.extend([
        "--csv",
        "stable.csv",
        "--json",
        "stable.json",
        "--html",
        "stable.html",
    ]);
    let o = mpirun_timeout(1, &args, &memory, d, T);
    assert!(o.success(), "{}", o.describe());
    assert!(
        o.stderr_clean()
            .lines()
            .any(|l| l == "h5perf: --stable turned on --drop-caches"),
        "{}",
        o.describe()
    );
    assert!(
        o.stdout
            .contains("rank 0: Stable storage profile=on (--stable turned on --drop-caches)\n")
            && o.stdout.contains("rank 0: Drop caches=on"),
        "{}",
        o.describe()
    );
    let v = verdict_lines(&o);
    assert_eq!(
        v[0], "Verdict: PASS (0 of 2 criteria failed; stable storage profile)",
        "{v:?}"
    );
    assert!(
        v[1].starts_with("Stable storage profile: --stable turned on --drop-caches; "),
        "{v:?}"
    );
    let rows = parse_csv(&fs::read_to_string(d.join("stable.csv")).unwrap());
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    for r in &rows[1..] {
        assert_eq!(
            (&*r[col("stable")], &*r[col("stable_turned_on")]),
            ("on", "drop_caches")
        );
        assert_eq!((&*r[col("fsync")], &*r[col("drop_caches")]), ("on", "on"));
    }
    let json = fs::read_to_string(d.join("stable.json")).unwrap();
    assert!(
        json.contains("\"stable\":\"on\",\"stable_turned_on\":\"drop_caches\""),
        "{json}"
    );
    // its page marks the charts of page-cache figures (Raw Data Write under --fsync),
    // criteria on them or not
    let page = fs::read_to_string(d.join("stable.html")).unwrap();
    assert!(
        page.contains("Caveat: a page-cache figure, not the storage&#39;s: Raw Data Write"),
        "the Raw Data Write chart is marked"
    );
    // --from its results keeps the profile's promise: the cache figure is refused there
    // too (the trial's `--from r.json --expect mpiio.raw_write>=…` passed as stable)
    let o = alone(
        &["--from", "stable.json", "--expect", "posix.raw_write>=1B/s"],
        d,
    );
    assert_eq!(o.status, Some(1), "{}", o.describe());
    assert!(
        o.stderr.contains(
            "h5perf: --stable refuses --expect 'posix.raw_write>=1B/s' on stable.json, the \
             results of a --stable run: Raw Data Write is a page-cache figure"
        ) && !o.stdout.contains("Verdict"),
        "{}",
        o.describe()
    );
    // as an unprivileged user on one node: no bypass for the reads, the refusals stay
    let u = unpriv_user();
    let bin = public_h5perf(d);
    let mut argv: Vec<String> = launcher();
    argv.extend(["-n".into(), "1".into(), bin.to_string_lossy().into_owned()]);
    argv.extend(
        [
            "-A",
            "posix",
            "-e",
            "64K",
            "--stable",
            "--expect",
            "posix.read>=1B/s",
        ]
        .map(String::from),
    );
    let env = [("HOME", "/"), memory[0]];
    let o = run_session(&as_user(&u, &argv), &env, d, T);
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let err = o.stderr_clean();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("h5perf: ")).collect();
    assert_eq!(lines.len(), 2, "{}", o.describe());
    // the file is refused too: node, data per node, memory, the multiple
    let host = std::process::Command::new("hostname").output().unwrap();
    let host = String::from_utf8_lossy(&host.stdout).trim().to_string();
    assert!(
        lines[1].starts_with(&format!(
            "h5perf: --stable refuses the run: the data of a read step on host {host} is \
             65536 bytes, less than 2 times the node's memory (1000000 bytes; 2 x 1000000 = \
             2000000 bytes), and no cache bypass (--drop-caches, --reorder across nodes, --direct for POSIX) is active"
        )),
        "{lines:?}"
    );
    assert!(
        lines[0].starts_with("h5perf: --stable refuses --expect 'posix.read>=1B/s': ")
            && lines[0].contains("without --drop-caches"),
        "{lines:?}"
    );
    for l in &lines {
        assert!(
            l.contains(
                "(--stable cannot keep the page cache out of the reads: --drop-caches cannot work ("
            ) && l.contains("Permission denied")
                && l.contains("some read step runs on one node"),
            "{l}"
        );
    }
    assert!(
        !o.stdout.contains("Raw Data Write"),
        "no I/O: {}",
        o.describe()
    );
    // a write with --fsync is a storage figure: accepted, and the run passes it
    let o = mpirun_timeout(
        1,
        &[
            "-A",
            "posix",
            "-e",
            "64K",
            "-w",
            "--stable",
            "--fsync",
            "--expect",
            "posix.write>=1B/s",
        ],
        &[],
        d,
        T,
    );
    assert!(o.success(), "{}", o.describe());
    assert!(
        verdict_lines(&o)[0].starts_with("Verdict: PASS"),
        "{}",
        o.describe()
    );
    // the same small file read with POSIX --direct: the cache is bypassed, the reads and
    // the file size are accepted, and the run passes
    let o = mpirun_timeout(
        1,
        &[
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
            "--direct",
            "--stable",
            "--expect",
            "posix.read>=1B/s",
        ],
        &memory,
        d,
        T,
    );
    assert!(o.success(), "{}", o.describe());
    assert!(!o.stderr_clean().contains("refuses"), "{}", o.describe());
    assert!(
        verdict_lines(&o)[0].starts_with("Verdict: PASS"),
        "{}",
        o.describe()
    );
}
