//! Reliability of the outputs and of names (issue 12, items 1, 3, 4 and 9), from
//! outside, on the MPI flavour of the harness:
//!
//! * item 1: every output (`-o`, `--json`, `--csv`, `--rank-csv`, rank 0 only) on a
//!   small tmpfs that fills up during the run, or is full before it starts, ends the job
//!   promptly (no rank waits in a collective call), with one message and status 1;
//! * item 3: long names of multibyte characters go through every message without a
//!   panic; names that are not UTF-8 (`HDF5_PARAPREFIX`, `USER`, `-o`, `--json`,
//!   `--csv`, `--rank-csv`) name exactly the files used;
//! * item 4: outputs that are one file with each other or with a data file are refused
//!   before anything is written; earlier results files stay as they were until this
//!   run has something to replace them with;
//! * item 9: messages that say what to fix.
//!
//! The tmpfs file systems are mounted by the tests (root; without it they fail).
//! Each case prints one `TABLE|case|flavour|status|seconds|files left|message` line on
//! stderr (shown with `--nocapture`).

mod common;

use common::*;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::time::Duration;

/// Hard timeout of one job: a hang fails the test (the tests finish in seconds).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A failing job must end within this (a hang would hit [`TIMEOUT`]).
const PROMPT: Duration = Duration::from_secs(30);

/// A sweep of 22 (processes, transfer size) steps of small POSIX transfers on 2
/// ranks: about 2 s, and results files of 20 KiB (report) to 180 KiB (JSON).
const SWEEP: &[&str] = &[
    "-A", "posix", "-e", "64K", "-x", "64", "-X", "64K", "-B", "64", "-i", "2", "-p", "1", "-P",
    "2",
];

/// One line of the report table (see the module documentation).
fn table(case: &str, o: &Outcome, left: &[String], msg: &str) {
    table_row(case, o, left, msg);
}

/// Entries of `dir` that a run may not leave: data files and temporary files.
fn leftovers(dir: &Path) -> Vec<String> {
    dir_entries(dir)
        .into_iter()
        .filter(|n| n.starts_with("#pio_tmp") || n.contains(".h5perf-tmp."))
        .collect()
}

/// A run that must fail promptly with status 1 and one message containing every piece
/// of `needles`, leaving no data or temporary file in `dirs`. Returns the message.
fn assert_fails(case: &str, o: &Outcome, needles: &[&str], dirs: &[&Path]) -> String {
    assert_eq!(
        o.status,
        Some(1),
        "{case}: exit status 1 expected\n{}",
        o.describe()
    );
    assert!(o.elapsed < PROMPT, "{case}: too slow\n{}", o.describe());
    assert!(
        !o.stderr.contains("panicked"),
        "{case}: a panic\n{}",
        o.describe()
    );
    let msg = o.single_message(case);
    for n in needles {
        assert!(msg.contains(n), "{case}: the message lacks {n:?}: {msg}");
    }
    let left: Vec<String> = dirs.iter().flat_map(|d| leftovers(d)).collect();
    table(case, o, &left, &msg);
    assert!(
        left.is_empty(),
        "{case}: left behind: {left:?}\n{}",
        o.describe()
    );
    msg
}

// ---------------------------------------------------------------------------------------
// Item 1: each output on a full file system
// ---------------------------------------------------------------------------------------

/// `option FS/file` of the sweep, on a tmpfs of `size` that the output fills during
/// the run (the data files are elsewhere): status 1 within seconds, one message naming
/// the option and the file, nothing left but the output's last complete version.
fn output_fills_its_file_system(option: &str, file: &str, size: &str, extra: &[&str], what: &str) {
    let fs = Tmpfs::mount(&format!("size={size}"));
    let work = scratch_dir();
    let dest = fs.root().join(file);
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend_from_slice(extra);
    let d = dest.to_str().unwrap();
    args.extend([option, d]);
    let o = mpirun_timeout(2, &args, &[], work.path(), TIMEOUT);
    let case = format!(
        "{option} {} fills its {size} file system mid-run",
        extra.join(" ")
    );
    assert_fails(
        &case,
        &o,
        &[what, d, "No space left on device"],
        &[fs.root(), work.path()],
    );
    // the results of the steps before the failure are there, complete versions only
    let text = std::fs::read_to_string(&dest)
        .unwrap_or_else(|e| panic!("{case}: no {file} left ({e})\n{}", o.describe()));
    match option {
        "--json" => {
            let j: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{case}: {file} is not valid JSON: {e}"));
            assert_eq!(j["complete"], false, "{case}");
            assert!(!j["records"].as_array().unwrap().is_empty(), "{case}");
        }
        "--csv" | "--rank-csv" => {
            let rows: Vec<&str> = text.lines().collect();
            assert!(
                rows.len() > 1 && rows[0].starts_with("nprocs,xfer_size,"),
                "{case}"
            );
            let width = rows[0].split(',').count();
            assert!(
                rows.iter().all(|r| r.split(',').count() >= width),
                "{case}: a cut row in {file}"
            );
        }
        _ => assert!(text.contains("==== Parameters ===="), "{case}: {text}"),
    }
}

/// The hang of issue 12: rank 0 alone writes the report (headers and results), its
/// write fails at a step's header, and before it then waited in an agreement on one
/// communicator while rank 1 waited in another (timeout; now status 1 in seconds).
#[test]
fn report_fills_its_file_system_mid_run() {
    output_fills_its_file_system("-o", "r.txt", "8k", &[], "report file (-o): cannot write");
}

/// Every rank writes to the report (`-D 3`: file names and phases), so the first
/// failed write may be any rank's, inside a file's phases.
#[test]
fn report_of_every_rank_fills_its_file_system_mid_run() {
    output_fills_its_file_system(
        "-o",
        "r.txt",
        "64k",
        &["-D", "3"],
        "report file (-o): cannot write",
    );
}

#[test]
fn json_fills_its_file_system_mid_run() {
    output_fills_its_file_system(
        "--json",
        "r.json",
        "64k",
        &[],
        "results file (--json): cannot write",
    );
}

#[test]
fn csv_fills_its_file_system_mid_run() {
    output_fills_its_file_system(
        "--csv",
        "r.csv",
        "64k",
        &[],
        "results file (--csv): cannot write",
    );
}

#[test]
fn rank_csv_fills_its_file_system_near_the_end() {
    // 38 KiB at the end: the rewrite through the temporary file needs twice that
    output_fills_its_file_system(
        "--rank-csv",
        "rank.csv",
        "64k",
        &[],
        "results file (--rank-csv): cannot write",
    );
}

/// Outputs on a file system that is full before the run starts, each holding an
/// earlier run's file: the first write fails — the report's parameter block (first job,
/// all four outputs), or the results after the first step (second job, without `-o`)
/// — the job ends promptly, and every earlier file is left exactly as it was.
#[test]
fn full_file_system_at_start_leaves_earlier_files_as_they_were() {
    let outputs = [
        ("-o", "r.txt"),
        ("--json", "r.json"),
        ("--csv", "r.csv"),
        ("--rank-csv", "rank.csv"),
    ];
    for (first, what) in [
        (0, "report file (-o): cannot write"),
        (1, "results file (--json): cannot write"),
    ] {
        let fs = Tmpfs::mount("size=64k");
        let work = scratch_dir();
        let mut args: Vec<String> = [
            "-A", "posix", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "16K",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (option, file) in &outputs[first..] {
            std::fs::write(fs.root().join(file), format!("earlier {file}\n")).unwrap();
            args.push(option.to_string());
            args.push(fs.root().join(file).to_str().unwrap().to_string());
        }
        fs.fill("filler");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = mpirun_timeout(2, &args, &[], work.path(), TIMEOUT);
        let case = format!(
            "{} first on a full file system, earlier files",
            outputs[first].0
        );
        assert_fails(
            &case,
            &o,
            &[what, outputs[first].1],
            &[fs.root(), work.path()],
        );
        for (_, file) in &outputs[first..] {
            assert_eq!(
                std::fs::read_to_string(fs.root().join(file)).unwrap(),
                format!("earlier {file}\n"),
                "{case}: the earlier {file} was changed"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Item 3: no panic on long multibyte names; names as bytes
// ---------------------------------------------------------------------------------------

/// A data directory whose name ends with multibyte characters `c` and is long enough
/// that its data-file names exceed 4095 bytes, arranged so that byte 64 of the name
/// (where the message cuts it) falls inside a character. Returns its path.
fn long_multibyte_dir(base: &Path, c: &str) -> std::path::PathBuf {
    let base_len = base.as_os_str().len() as i64 + 1;
    assert!(
        base_len < 60,
        "the scratch directory's name is too long: {base:?}"
    );
    // a pad directory shifts the characters so that byte 64 is not on a boundary
    let pad = (0..c.len())
        .map(|k| "p".repeat(k + 1))
        .find(|p| (64 - (base_len + p.len() as i64 + 1)).rem_euclid(c.len() as i64) != 0)
        .unwrap();
    let mut dir = base.join(&pad);
    let part = c.repeat(250 / c.len()); // at most 255 bytes per name
    while dir.as_os_str().len() + 1 + part.len() < 4085 {
        dir.push(&part);
    }
    let rest = (4085 - dir.as_os_str().len() - 1) / c.len();
    dir.push(c.repeat(rest.max(1)));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir -p ({e})"));
    assert!(dir.as_os_str().len() < 4096);
    dir
}

/// Long names of multibyte characters through the messages made at run time (those of
/// the parser, of `HDF5_MPI_INFO` and of the results files' checks are unit tests):
/// the data-file name that is too long (a panic, exit 101, before: the message cut the
/// name inside a character), a missing data directory, `-o` and `--json` in a missing
/// directory, `-o` and `--csv` naming one file. Each ends with status 1 and one message
/// showing the characters.
#[test]
fn long_multibyte_names_go_through_every_message() {
    let work = scratch_dir();
    let w = work.path();
    let small = ["-A", "posix", "-e", "8", "-x", "4", "-X", "4", "-B", "4"];
    let dir = long_multibyte_dir(w, "€");
    let o = mpirun_timeout(
        1,
        &small,
        &[("HDF5_PARAPREFIX", dir.to_str().unwrap())],
        w,
        TIMEOUT,
    );
    assert_fails(
        "data directory of 4085 bytes, mostly €",
        &o,
        &["data file name is too long", "€€€", "…"],
        &[w],
    );
    std::fs::remove_dir_all(w.join(dir.strip_prefix(w).unwrap().iter().next().unwrap())).unwrap();
    let long = |c: &str, bytes: usize| c.repeat(bytes / c.len());
    let missing = format!("{}/{}", w.display(), long("€", 600));
    let in_missing = |name: &str| format!("{missing}/{}", long(name, 240));
    let same = w.join(long("ü", 240)).to_str().unwrap().to_string();
    let dot_same = format!("{}/./{}", w.display(), long("ü", 240));
    let cases: Vec<Case> = vec![
        (
            "HDF5_PARAPREFIX missing".into(),
            vec![],
            vec![("HDF5_PARAPREFIX", missing.clone())],
            "cannot create data files in",
        ),
        (
            "-o in a missing directory".into(),
            vec!["-o".into(), in_missing("é")],
            vec![],
            "report file (-o): cannot create",
        ),
        (
            "--json in a missing directory".into(),
            vec!["--json".into(), in_missing("𝄞")],
            vec![],
            "results file (--json): cannot create",
        ),
        (
            "-o and --csv one file".into(),
            vec!["-o".into(), same, "--csv".into(), dot_same],
            vec![],
            "are the same file",
        ),
    ];
    for (case, args, env, needle) in &cases {
        let mut all: Vec<&str> = small.to_vec();
        all.extend(args.iter().map(String::as_str));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let o = mpirun_timeout(1, &all, &env, w, TIMEOUT);
        let msg = assert_fails(case, &o, &[needle], &[w]);
        assert!(msg.contains("€€€") || msg.contains("üüü"), "{case}: {msg}");
    }
}

/// A refused case of [`long_multibyte_names_go_through_every_message`]: its name, the
/// arguments, the environment and a piece of the expected message.
type Case = (String, Vec<String>, Env, &'static str);

/// Environment variables of a case.
type Env = Vec<(&'static str, String)>;

#[test]
fn long_multibyte_user_is_not_a_panic() {
    let work = scratch_dir();
    let w = work.path();
    let small = ["-A", "posix", "-e", "8", "-x", "4", "-X", "4", "-B", "4"];
    // a long multibyte USER: no directory of that name can be made; the prefix is used
    let long = |c: &str, bytes: usize| c.repeat(bytes / c.len());
    let prefix = scratch_dir();
    let p = prefix.path().to_str().unwrap();
    let o = mpirun_timeout(
        1,
        &small,
        &[("HDF5_PARAPREFIX", p), ("USER", &long("€", 600))],
        w,
        TIMEOUT,
    );
    table("USER of 600 bytes of €", &o, &leftovers(prefix.path()), "");
    assert!(o.success(), "{}", o.describe());
    assert!(!o.stderr.contains("panicked"), "{}", o.describe());
}

/// `HDF5_PARAPREFIX` and `USER` with bytes that are not UTF-8, next to directories whose
/// names are what a lossy conversion would make of them, and every output with such a
/// name: each file is created under exactly the name given, for all three APIs.
#[test]
fn non_utf8_names_are_the_files_used() {
    let top = scratch_dir();
    let t = top.path();
    let os = |b: &[u8]| OsString::from_vec(b.to_vec());
    let mut prefix = t.as_os_str().to_os_string();
    prefix.push("/");
    prefix.push(os(b"pre\xff"));
    std::fs::create_dir(&prefix).unwrap();
    // the look-alikes: what a replacement of the bytes by U+FFFD would name
    let lookalike = t.join("pre\u{fffd}");
    std::fs::create_dir_all(lookalike.join("b\u{fffd}b")).unwrap();
    let user = os(b"b\xf6b");
    let work = scratch_dir();
    let w = work.path();
    let names = [
        os(b"rep\xe9.txt"),
        os(b"res\xe9.json"),
        os(b"res\xe9.csv"),
        os(b"rank\xe9.csv"),
    ];
    let mut args: Vec<&OsStr> = [
        "-A",
        "posix,mpiio,phdf5",
        "-e",
        "8K",
        "-x",
        "4K",
        "-X",
        "4K",
        "-B",
        "4K",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    for (opt, name) in ["-o", "--json", "--csv", "--rank-csv"].iter().zip(&names) {
        args.push(OsStr::new(opt));
        args.push(name);
    }
    let o = mpirun_os(
        2,
        &args,
        &[
            ("HDF5_PARAPREFIX", &prefix),
            ("USER", &user),
            ("HDF5_NOCLEANUP", OsStr::new("1")),
        ],
        w,
        TIMEOUT,
    );
    table(
        "non-UTF-8 HDF5_PARAPREFIX, USER, -o, --json, --csv, --rank-csv",
        &o,
        &[],
        "",
    );
    assert!(o.success(), "{}", o.describe());
    let data_dir = Path::new(&prefix).join(&user);
    let mut kept: Vec<Vec<u8>> = std::fs::read_dir(&data_dir)
        .unwrap_or_else(|e| panic!("no data directory {data_dir:?}: {e}\n{}", o.describe()))
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        vec![
            b"#pio_tmp_1.h5".to_vec(),
            b"#pio_tmp_1.mpio".to_vec(),
            b"#pio_tmp_1.posix".to_vec()
        ],
        "the data files of all three APIs, in the directory named by the bytes"
    );
    assert!(
        dir_entries(&lookalike.join("b\u{fffd}b")).is_empty() && dir_entries(&lookalike).len() == 1,
        "the look-alike directory was used"
    );
    let mut outputs: Vec<Vec<u8>> = std::fs::read_dir(w)
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    outputs.sort();
    let mut want: Vec<Vec<u8>> = names.iter().map(|n| n.as_bytes().to_vec()).collect();
    want.sort();
    assert_eq!(outputs, want, "the outputs, under exactly their names");
    let report = std::fs::read_to_string(w.join(&names[0])).unwrap();
    assert!(
        report.contains("HDF5_PARAPREFIX=") && report.contains("pre\\xff"),
        "the report shows the bytes escaped:\n{report}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join(&names[1])).unwrap()).unwrap();
    assert!(
        json["data_dir"]
            .as_str()
            .unwrap()
            .ends_with("pre\\xff/b\\xf6b"),
        "{}",
        json["data_dir"]
    );
}

// ---------------------------------------------------------------------------------------
// Item 4: outputs that are one file; earlier results kept
// ---------------------------------------------------------------------------------------

#[test]
fn outputs_that_are_one_file_are_refused_up_front() {
    let prefix = scratch_dir();
    let p = prefix.path().to_str().unwrap().to_string();
    let h5 = format!("{p}/#pio_tmp_1.h5");
    let refused = |case, args, env, needles| Refusal {
        case,
        args,
        env,
        needles,
    };
    let cases = vec![
        refused(
            "-o names the data file",
            vec!["-A", "posix", "-o", "#pio_tmp_1.posix"],
            vec![],
            vec![
                "-o/--output '#pio_tmp_1.posix' is the data file",
                "give it a name",
            ],
        ),
        refused(
            "--json same.out --csv ./same.out",
            vec!["--json", "same.out", "--csv", "./same.out"],
            vec![],
            vec!["--json 'same.out' and --csv './same.out' are the same file"],
        ),
        refused(
            "--rank-csv names a data file in HDF5_PARAPREFIX",
            vec!["--rank-csv", &h5],
            vec![("HDF5_PARAPREFIX", &p)],
            vec!["--rank-csv", "is the data file", "#pio_tmp_1.h5"],
        ),
    ];
    for Refusal {
        case,
        args,
        env,
        needles,
    } in cases
    {
        let work = scratch_dir();
        let o = mpirun_timeout(2, &args, &env, work.path(), TIMEOUT);
        assert_fails(case, &o, &needles, &[work.path(), prefix.path()]);
        assert!(
            dir_entries(work.path()).is_empty() && dir_entries(prefix.path()).is_empty(),
            "{case}: nothing may be written\n{}",
            o.describe()
        );
        assert!(
            !o.stdout.contains("==== Parameters"),
            "{case}\n{}",
            o.describe()
        );
    }
}

/// A case of [`outputs_that_are_one_file_are_refused_up_front`].
struct Refusal<'a> {
    case: &'a str,
    args: Vec<&'a str>,
    env: Vec<(&'a str, &'a str)>,
    needles: Vec<&'a str>,
}

/// Earlier results files of the four outputs, a run that fails in its first step (the
/// data directory is a full 1 MiB tmpfs): every earlier file is left byte for byte, and
/// no temporary file stays; a run that succeeds then replaces them all.
#[test]
fn failing_run_leaves_earlier_results_untouched() {
    let fs = Tmpfs::mount("size=1m");
    let work = scratch_dir();
    let w = work.path();
    let files = ["r.txt", "r.json", "r.csv", "rank.csv"];
    for f in files {
        std::fs::write(w.join(f), format!("earlier {f}\n")).unwrap();
    }
    let outputs = [
        "-o",
        "r.txt",
        "--json",
        "r.json",
        "--csv",
        "r.csv",
        "--rank-csv",
        "rank.csv",
    ];
    let mut args = vec![
        "-A", "posix", "-e", "4M", "-x", "1M", "-X", "1M", "-B", "1M",
    ];
    args.extend(outputs);
    let root = fs.path();
    let o = mpirun_timeout(2, &args, &[("HDF5_PARAPREFIX", &root)], w, TIMEOUT);
    assert_fails(
        "run failing in its first step, earlier results",
        &o,
        &["No space left on device"],
        &[w, fs.root()],
    );
    for f in files {
        assert_eq!(
            std::fs::read_to_string(w.join(f)).unwrap(),
            format!("earlier {f}\n"),
            "{f} was changed by a run that produced no results"
        );
    }
    assert_eq!(
        dir_entries(w),
        files
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .tap_sort()
    );
    // a run with results replaces them
    let mut ok = vec![
        "-A", "posix", "-e", "8K", "-x", "4K", "-X", "4K", "-B", "4K",
    ];
    ok.extend(outputs);
    let o = mpirun_timeout(2, &ok, &[], w, TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    for f in files {
        let text = std::fs::read_to_string(w.join(f)).unwrap();
        assert!(!text.starts_with("earlier"), "{f} not replaced");
    }
    assert!(leftovers(w).is_empty(), "{:?}", leftovers(w));
}

/// `Vec::sort` as an expression.
trait TapSort {
    fn tap_sort(self) -> Self;
}

impl TapSort for Vec<String> {
    fn tap_sort(mut self) -> Self {
        self.sort();
        self
    }
}

// ---------------------------------------------------------------------------------------
// Item 9: messages that say what to fix
// ---------------------------------------------------------------------------------------

#[test]
fn zero_transfer_size_says_where_it_came_from() {
    let work = scratch_dir();
    let o = mpirun_timeout(
        1,
        &["-A", "posix", "-e", "1", "-B", "1"],
        &[],
        work.path(),
        TIMEOUT,
    );
    assert_fails(
        "-e 1 -B 1",
        &o,
        &[
            "Transfer buffer size (0) must be > 0",
            "-x was not given, and its default, half of -e (1 byte), is 0",
            "give -x SIZE or a larger -e",
        ],
        &[work.path()],
    );
}

/// A full data file system under MPI-IO and PHDF5: the message says "No space left on
/// device" on both flavours — also where the MPI library returns success with a short
/// count (Open MPI prints the system error on stderr; before, the message said the
/// library "reported no error").
#[test]
fn full_data_file_system_names_the_reason() {
    for api in ["mpiio", "phdf5"] {
        let fs = Tmpfs::mount("size=16m");
        let work = scratch_dir();
        let o = mpirun_timeout(
            2,
            &[
                "-A", api, "-e", "16M", "-x", "4M", "-X", "4M", "-B", "4M", "-p", "2",
            ],
            &[("HDF5_PARAPREFIX", &fs.path())],
            work.path(),
            TIMEOUT,
        );
        let msg = assert_fails(
            &format!("-A {api} on a full data file system"),
            &o,
            &["No space left on device"],
            &[fs.root(), work.path()],
        );
        assert!(!msg.contains("reported no error"), "{msg}");
    }
}

/// An MPI error caused by a hint names the hint. MPICH's ROMIO refuses
/// `cb_config_list=zz` at `MPI_File_open` ("No aggregators match"); Open MPI's OMPIO
/// ignores hints it does not use, so there the run must succeed with the hint in the
/// info dump (h5perf refuses no hint the MPI library takes).
#[test]
fn mpi_error_from_a_hint_names_the_hint() {
    let work = scratch_dir();
    let o = mpirun_timeout(
        2,
        &[
            "-A", "mpiio", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "16K", "-i", "1",
        ],
        &[("HDF5_MPI_INFO", "cb_config_list=zz;striping_unit=65536")],
        work.path(),
        TIMEOUT,
    );
    match flavour() {
        Flavour::Mpich => {
            assert_fails(
                "HDF5_MPI_INFO cb_config_list=zz",
                &o,
                &[
                    "MPI_File_open failed",
                    "the MPI library names the HDF5_MPI_INFO hint 'cb_config_list=zz'",
                ],
                &[work.path()],
            );
        }
        Flavour::OpenMpi => {
            table(
                "HDF5_MPI_INFO cb_config_list=zz (OMPIO ignores it)",
                &o,
                &leftovers(work.path()),
                "",
            );
            assert!(o.success(), "{}", o.describe());
            assert!(o.stdout.contains("cb_config_list"), "{}", o.describe());
        }
    }
}
