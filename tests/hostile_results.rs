//! Hostile results files and injected lines (issue 35, classes 2–7 and, of 12, the
//! byte-order mark and JSON names given twice), from outside, on the MPI flavour of the
//! harness. One small 2-rank run makes the files; every case edits a copy and runs
//! `h5perf --from` (a singleton) or, where a job could hang, a 2-rank job:
//!
//! * class 2: figures that once sent the page's y-axis loop spinning (`1e999`, `inf`,
//!   `Infinity` refused; `1.7e308`, `5e-324` drawn), and all figures zero against a bound
//!   that is infinite after unit scaling: each ends promptly, the page finite;
//! * class 3: a baseline with `NaN`, `inf`, `1e999` or negative figures is refused with
//!   the file, the line and the field (no silent PASS);
//! * class 4: a FIFO, `/dev/zero`, a directory, a file over the size limit are refused at
//!   once, also as the `--baseline` of a 2-rank run (no rank waits);
//! * class 5: a newline in `HDF5_MPI_INFO` is refused before anything is printed;
//! * class 12: a results file with a UTF-8 byte-order mark reads as without it; a JSON
//!   member name twice is refused.

mod common;

use common::*;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// Hard timeout of one job: a hang (the endless chart loop) fails the test.
const T: Duration = Duration::from_secs(60);

/// A refusal or a page must come within this (a singleton start is under a second).
const PROMPT: Duration = Duration::from_secs(20);

/// The run's arguments: POSIX, 1 and 2 processes, 4 and 8 KiB, 2 iterations (about 2 s).
const RUN: &[&str] = &[
    "-A", "posix", "-e", "8K", "-x", "4K", "-X", "8K", "-B", "4K", "-i", "2", "-p", "1", "-P", "2",
];

/// The directory with `r.csv`, `r.json` and `ranks.csv` of one run of [`RUN`] (made once).
fn files() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = scratch_dir();
        let mut args = RUN.to_vec();
        args.extend([
            "--csv",
            "r.csv",
            "--json",
            "r.json",
            "--rank-csv",
            "ranks.csv",
        ]);
        let o = mpirun_timeout(2, &args, &[], d.path(), T);
        assert!(o.success(), "{}", o.describe());
        d
    })
    .path()
}

/// `h5perf ARGS` without a launcher, with this file's timeout.
fn alone(args: &[&str], cwd: &Path) -> Outcome {
    run_alone(args, cwd, T)
}

/// A copy of the run's `file` in a new directory as `name`, with `edit` applied to its rows
/// (CSV; the header is row 0). Returns the directory.
fn edited(file: &str, name: &str, edit: impl Fn(&mut Vec<Vec<String>>)) -> tempfile::TempDir {
    let d = scratch_dir();
    for f in ["r.csv", "r.json", "ranks.csv"] {
        fs::copy(files().join(f), d.path().join(f)).unwrap();
    }
    let mut rows = parse_csv(&fs::read_to_string(files().join(file)).unwrap());
    edit(&mut rows);
    fs::write(d.path().join(name), to_csv(&rows)).unwrap();
    d
}

/// Set field `name` of every data row `which` selects (rows from 1) to `v`.
fn set(rows: &mut [Vec<String>], name: &str, v: &str, which: impl Fn(usize) -> bool) {
    let c = rows[0].iter().position(|h| h == name).unwrap();
    for (i, r) in rows.iter_mut().enumerate().skip(1) {
        if which(i) {
            r[c] = v.to_string();
        }
    }
}

/// A run that must end promptly, refused with status 1 and one message holding `needles`.
fn refused(case: &str, o: &Outcome, needles: &[&str]) -> String {
    assert_eq!(o.status, Some(1), "{case}\n{}", o.describe());
    assert!(o.elapsed < PROMPT, "{case}: too slow\n{}", o.describe());
    assert!(!o.stderr.contains("panicked"), "{case}\n{}", o.describe());
    let m = o.single_message(case);
    for n in needles {
        assert!(m.contains(n), "{case}: the message lacks {n:?}: {m}");
    }
    m
}

/// The page `p.html` of `dir`: well-formed numbers only (no NaN, no inf), bounded.
fn page_is_finite(case: &str, dir: &Path) {
    let page = fs::read_to_string(dir.join("p.html")).unwrap();
    assert!(page.len() < 1 << 20, "{case}: {} bytes", page.len());
    for bad in ["NaN", "inf\"", "inf ", "\"inf", " inf"] {
        assert!(!page.contains(bad), "{case}: {bad:?} in the page");
    }
}

#[test]
fn chart_figures_end_promptly_and_non_finite_ones_are_refused() {
    // refused by the reader, with the line (header = line 1, so row 3 is line 4) and field
    for v in ["1e999", "inf", "Infinity", "NaN"] {
        let d = edited("r.csv", "bad.csv", |r| set(r, "max_mibps", v, |i| i == 3));
        let o = alone(&["--from", "bad.csv", "--html", "p.html"], d.path());
        refused(
            &format!("max_mibps {v}"),
            &o,
            &[
                "bad.csv: line 4: max_mibps is not a finite number",
                &format!("'{v}'"),
            ],
        );
        assert!(!d.path().join("p.html").exists());
    }
    // a per-rank time
    let d = edited("ranks.csv", "ranks.csv", |r| {
        set(r, "time_s", "1e999", |i| i == 2)
    });
    let o = alone(
        &["--from", "r.csv", "--from", "ranks.csv", "--html", "p.html"],
        d.path(),
    );
    refused(
        "rank time 1e999",
        &o,
        &["ranks.csv: line 3: time_s is not a finite number: '1e999'"],
    );
    // finite extremes are drawn, on a finite axis
    for v in ["1.7e308", "5e-324"] {
        let d = edited("r.csv", "big.csv", |r| {
            set(r, "max_mibps", v, |i| i == 3);
            set(r, "avg_mibps", v, |i| i == 3);
        });
        let o = alone(&["--from", "big.csv", "--html", "p.html"], d.path());
        assert!(o.success(), "{v}\n{}", o.describe());
        assert!(o.elapsed < PROMPT, "{v}: too slow\n{}", o.describe());
        page_is_finite(v, d.path());
    }
    // every figure zero and a bound that is infinite in MiB/s (1e308 TiB/s overflows)
    let d = edited("r.csv", "zero.csv", |r| {
        for f in [
            "min_time_s",
            "avg_time_s",
            "max_time_s",
            "max_mibps",
            "avg_mibps",
            "min_mibps",
            "std_mibps",
        ] {
            set(r, f, "0", |_| true);
        }
    });
    // the largest bound a criterion may carry (256 bytes, issue 35 class 1), against zeros
    let bound = format!("posix.write>={}TiB/s", "9".repeat(256 - 18));
    assert_eq!(bound.len(), 256);
    let o = alone(
        &["--from", "zero.csv", "--html", "p.html", "--expect", &bound],
        d.path(),
    );
    assert_eq!(o.status, Some(3), "{}", o.describe());
    assert!(o.elapsed < PROMPT, "too slow\n{}", o.describe());
    page_is_finite("zero figures", d.path());
}

#[test]
fn bad_baseline_figures_are_refused_with_file_line_and_field() {
    for (field, v, why) in [
        ("avg_mibps", "NaN", "is not a finite number: 'NaN'"),
        ("avg_mibps", "inf", "is not a finite number: 'inf'"),
        ("std_mibps", "1e999", "is not a finite number: '1e999'"),
        ("avg_mibps", "-5", "is negative: -5"),
        ("std_mibps", "-0.25", "is negative: -0.25"),
    ] {
        let d = edited("r.csv", "base.csv", |r| set(r, field, v, |i| i == 5));
        let o = alone(&["--from", "r.csv", "--baseline", "base.csv"], d.path());
        let case = format!("baseline {field} {v}");
        let m = refused(&case, &o, &["baseline (--baseline): base.csv: line 6: "]);
        assert!(m.ends_with(&format!("{field} {why}")), "{case}: {m}");
        assert!(!o.stdout.contains("PASS"), "{case}\n{}", o.describe());
    }
    // the JSON baseline: line, record and field
    let json = fs::read_to_string(files().join("r.json")).unwrap();
    let at = json.find("\"std_mibps\":").unwrap() + "\"std_mibps\":".len();
    let end = at + json[at..].find([',', '}']).unwrap();
    let d = scratch_dir();
    fs::copy(files().join("r.csv"), d.path().join("r.csv")).unwrap();
    fs::write(
        d.path().join("base.json"),
        format!("{}-1e999{}", &json[..at], &json[end..]),
    )
    .unwrap();
    let o = alone(&["--from", "r.csv", "--baseline", "base.json"], d.path());
    // the line where record 1 starts (the document's first line is 1)
    let line = 1 + json[..at].matches('\n').count();
    refused(
        "json baseline",
        &o,
        &[&format!(
            "base.json: line {line} (record 1): std_mibps is not a finite number: '-1e999'"
        )],
    );
}

#[test]
fn only_regular_files_are_read_and_never_waited_for() {
    let d = scratch_dir();
    let fifo = d.path().join("fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let regular = "not a regular file (results are read from regular files only)";
    for (name, kind) in [
        ("fifo", "a FIFO"),
        ("/dev/zero", "a character device"),
        ("/dev/urandom", "a character device"),
        ("/", "a directory"),
    ] {
        let o = alone(&["--from", name, "--html", "p.html"], d.path());
        refused(
            &format!("--from {name}"),
            &o,
            &[&format!("results (--from): {name}: {kind}, {regular}")],
        );
    }
    // over the size limit (a sparse file: no disk used), refused before reading
    let big = fs::File::create(d.path().join("big.csv")).unwrap();
    big.set_len((256 << 20) + 1).unwrap();
    let o = alone(&["--from", "big.csv", "--html", "p.html"], d.path());
    refused(
        "257 MiB",
        &o,
        &["big.csv: larger than 256 MiB, the most h5perf reads of a results file"],
    );
    // the baseline of a 2-rank run: rank 0 refuses at once, rank 1 is told, nobody waits
    let mut args = RUN.to_vec();
    args.extend(["--baseline", "fifo"]);
    let o = mpirun_timeout(2, &args, &[], d.path(), T);
    refused(
        "2-rank --baseline FIFO",
        &o,
        &[&format!("baseline (--baseline): fifo: a FIFO, {regular}")],
    );
    assert!(o.stdout.is_empty(), "{}", o.describe());
}

#[test]
fn a_newline_in_hdf5_mpi_info_is_refused_before_any_output() {
    let d = scratch_dir();
    let forged = "a=1\n   Maximum Throughput: 88888.88 MB/s";
    let o = mpirun_timeout(2, RUN, &[("HDF5_MPI_INFO", forged)], d.path(), T);
    assert_ne!(o.status, Some(0), "{}", o.describe());
    assert!(!o.stdout.contains("88888.88"), "{}", o.describe());
    let err = o.stderr_clean();
    assert!(
        err.contains("invalid HDF5_MPI_INFO entry 'a=1\\n   Maximum Throughput")
            && err.contains("control character \\n"),
        "{}",
        o.describe()
    );
    assert!(!err.contains("\n   Maximum"), "{}", o.describe());
}

#[test]
fn a_byte_order_mark_is_read_past_and_a_json_name_twice_refused() {
    let d = scratch_dir();
    for f in ["r.csv", "r.json"] {
        let text = fs::read_to_string(files().join(f)).unwrap();
        fs::write(d.path().join(f), &text).unwrap();
        fs::write(d.path().join(format!("bom-{f}")), format!("\u{feff}{text}")).unwrap();
    }
    for f in ["r.csv", "r.json"] {
        let plain = alone(&["--from", f, "--html", "a.html"], d.path());
        assert!(plain.success(), "{}", plain.describe());
        let bom = format!("bom-{f}");
        let o = alone(&["--from", &bom, "--html", "b.html"], d.path());
        assert!(o.success(), "{}", o.describe());
        assert_eq!(
            fs::read(d.path().join("a.html")).unwrap(),
            fs::read(d.path().join("b.html")).unwrap(),
            "{f}: the page of the file with a byte-order mark differs"
        );
    }
    let json = fs::read_to_string(files().join("r.json")).unwrap();
    let twice = json.replacen("\"avg_mibps\":", "\"avg_mibps\":1e6,\"avg_mibps\":", 1);
    assert_ne!(twice, json);
    fs::write(d.path().join("twice.json"), twice).unwrap();
    let o = alone(&["--from", "r.csv", "--baseline", "twice.json"], d.path());
    refused(
        "a name twice",
        &o,
        &[
            "twice.json: line ",
            "the member name \"avg_mibps\" appears twice in one object",
        ],
    );
}

/// The bytes of `text` that XML 1.0 forbids or a terminal obeys: C0 controls but tab and
/// line feed, DEL.
fn raw_controls(text: &[u8]) -> Vec<u8> {
    text.iter()
        .copied()
        .filter(|&b| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f)
        .collect()
}

#[test]
fn control_characters_never_reach_the_page_or_a_message_raw() {
    let hostile = "x\u{0}\u{1b}[2J\u{7}\r\n<tr>y\u{1}";
    let d = edited("r.csv", "c.csv", |r| {
        set(r, "command_line", &format!("h5perf {hostile}"), |_| true);
        set(r, "hosts", &format!("{hostile}:2"), |_| true);
        set(r, "slowest_host", hostile, |_| true);
        set(r, "mpi_info", &format!("k={hostile}"), |_| true);
    });
    let o = alone(
        &[
            "--from",
            "c.csv",
            "--html",
            "p.html",
            "--expect",
            "posix.write>=1B/s",
        ],
        d.path(),
    );
    assert!(o.success(), "{}", o.describe());
    let page = fs::read(d.path().join("p.html")).unwrap();
    assert_eq!(raw_controls(&page), b"", "control characters in the page");
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("h5perf x\u{fffd}\u{fffd}[2J\u{fffd}\u{fffd}\u{fffd}&lt;tr&gt;y\u{fffd}"));
    // the verdict table has its own rows only
    assert_eq!(raw_controls(o.stdout.as_bytes()), b"", "{}", o.describe());
    let xmllint = require_tool("xmllint", "libxml2-utils");
    let st = std::process::Command::new(xmllint)
        .args(["--noout", "--nonet"])
        .arg(d.path().join("p.html"))
        .status()
        .unwrap();
    assert!(st.success(), "the page is not well-formed XML");

    // messages: a criterion, a field and a file name with escape sequences and a bell
    let d = edited("r.csv", "e.csv", |r| {
        set(r, "api", "po\u{1b}[31msix\u{7}", |i| i == 2)
    });
    for (args, needle) in [
        (
            vec![
                "--from",
                "r.csv",
                "--expect",
                "posix.wr\u{1b}[2Jite>=1B/s\u{7}",
            ],
            "a criterion holds no control character (found \\u{1b})",
        ),
        (
            vec!["--from", "e.csv", "--html", "p.html"],
            "e.csv: line 3: unknown api 'po\\u{1b}[31msix\\u{7}'",
        ),
        (
            vec!["--from", "gone\u{1b}[31m\u{7}.csv", "--html", "p.html"],
            "gone\\u{1b}[31m\\u{7}.csv: No such file or directory",
        ),
    ] {
        let o = alone(&args, d.path());
        refused(&format!("{args:?}"), &o, &[needle]);
        assert_eq!(raw_controls(o.stderr.as_bytes()), b"", "{}", o.describe());
    }
}

#[test]
fn csv_cells_that_spreadsheets_would_run_are_neutralised() {
    let d = scratch_dir();
    let mut args = RUN.to_vec();
    args.extend(["--csv", "r.csv", "--json", "r.json", "-P", "1"]);
    let o = mpirun_timeout(
        1,
        &args,
        &[("HDF5_MPI_INFO", "@SUM(1+1)*cmd=x;-2+3=y")],
        d.path(),
        T,
    );
    assert!(o.success(), "{}", o.describe());
    let text = fs::read_to_string(d.path().join("r.csv")).unwrap();
    let rows = parse_csv(&text);
    let c = rows[0].iter().position(|h| h == "mpi_info").unwrap();
    for r in &rows[1..] {
        assert_eq!(r[c], "'@SUM(1+1)*cmd=x;-2+3=y", "{r:?}");
    }
    // quoted in the file, so that the ' stays part of the cell
    assert!(text.contains(",\"'@SUM(1+1)*cmd=x;-2+3=y\","));
    // no text cell starts a formula
    for r in &rows[1..] {
        for (h, v) in rows[0].iter().zip(r) {
            let numeric = v.parse::<f64>().is_ok();
            assert!(
                numeric || !v.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{h}: {v:?}"
            );
        }
    }
    // read back without the mark: the page of the CSV is the page of the JSON
    for f in ["r.csv", "r.json"] {
        let o = alone(&["--from", f, "--html", &format!("{f}.html")], d.path());
        assert!(o.success(), "{}", o.describe());
    }
    let a = fs::read_to_string(d.path().join("r.csv.html")).unwrap();
    assert_eq!(a, fs::read_to_string(d.path().join("r.json.html")).unwrap());
    assert!(a.contains("@SUM(1+1)*cmd=x, -2+3=y"), "the hints as given");
}

/// `h5perf ARGS` alone in `cwd`: its exit status, its stderr, and its peak resident
/// memory (KiB): the largest `VmHWM` (the kernel's high-water mark of the resident set)
/// of `/proc/PID/status` read while it runs, every 10 ms (the reading of a results file
/// lasts seconds; what it holds stays held until the verdict).
fn alone_with_peak(args: &[&str], cwd: &Path) -> (Option<i32>, String, u64) {
    let mut cmd = std::process::Command::new(h5perf_bin());
    cmd.args(args)
        .current_dir(cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for (k, v) in OMPI_ENV {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let status = format!("/proc/{}/status", child.id());
    let start = std::time::Instant::now();
    let mut peak = 0;
    let code = loop {
        let hwm = fs::read_to_string(&status).ok().and_then(|t| {
            let l = t.lines().find(|l| l.starts_with("VmHWM:"))?;
            l.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak = peak.max(hwm.unwrap_or(0));
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if start.elapsed() > T {
            let _ = child.kill();
            panic!("h5perf {args:?} still running after {T:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (code, reader.join().unwrap(), peak)
}

/// Class 4, streaming: a `--json` results file of 60,000 records (about 80 MB) is read
/// record by record: the peak memory of `--from` stays far below the file's size (the
/// whole-document reader held the text and its tree, about 6 times the file); a record
/// with a figure of `1e999` deep in such a file is refused with the line where the record
/// starts, its number and the field.
#[test]
fn a_large_json_is_read_as_a_stream_and_a_bad_record_named_by_its_line() {
    use std::fmt::Write as _;
    let json = fs::read_to_string(files().join("r.json")).unwrap();
    let open = "\"records\": [\n";
    let at = json.find(open).unwrap() + open.len();
    let head = &json[..at];
    let record = json[at..].lines().next().unwrap().trim_end_matches(',');
    let (indent, rest) = record.split_once("{\"nprocs\":").unwrap();
    let rest = rest.split_once(',').unwrap().1;
    let n = 60_000;
    let mut text = String::with_capacity(n * (record.len() + 8) + head.len());
    text.push_str(head);
    for i in 1..=n {
        let end = if i < n { ",\n" } else { "\n" };
        let _ = write!(text, "{indent}{{\"nprocs\":{i},{rest}{end}");
    }
    text.push_str("  ]\n}\n");
    let d = scratch_dir();
    fs::write(d.path().join("big.json"), &text).unwrap();
    let (code, err, peak_kib) = alone_with_peak(
        &["--from", "big.json", "--expect", "posix.raw_write>=1B/s"],
        d.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    let file_kib = text.len() as u64 / 1024;
    // the reader keeps one small cell per record (about 250 bytes): less than the file
    // itself, with the MPI library, the verdict and the allocator (reading the document
    // whole held its text and its tree, 6 times the file: 1.3 GB for 207 MB)
    assert!(
        peak_kib < file_kib,
        "peak {peak_kib} KiB for a file of {file_kib} KiB"
    );
    // a bad figure in record 45,000: named by its line (the document's first line is 1)
    let k = 45_000;
    let line = head.matches('\n').count() + k;
    let bad: String = text
        .lines()
        .take(line + 10)
        .enumerate()
        .map(|(i, l)| match i + 1 == line {
            true => l.replacen("\"avg_mibps\":", "\"avg_mibps\":1e999,\"x\":", 1) + "\n",
            false => format!("{l}\n"),
        })
        .collect();
    fs::write(d.path().join("bad.json"), bad).unwrap();
    let o = alone(
        &["--from", "bad.json", "--expect", "posix.raw_write>=1B/s"],
        d.path(),
    );
    refused(
        "a bad record deep in a large file",
        &o,
        &[&format!(
            "bad.json: line {line} (record {k}): avg_mibps is not a finite number: '1e999'"
        )],
    );
}
