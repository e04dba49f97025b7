//! Error behaviour (our deliberate differences from the C tool) and other exit-status /
//! stream contracts: validation before any output, one message per distinct problem,
//! non-zero exit, no file created, no hang.

mod common;

use common::*;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Error runs must be quick: validation happens before any I/O.
const ERROR_TIMEOUT: Duration = Duration::from_secs(10);

/// Tiny successful runs take a second or two; a hang is cut short well before the default.
const SMALL_RUN_TIMEOUT: Duration = Duration::from_secs(60);

fn run_case_by_name(name: &str, dir: &Path) -> Outcome {
    let c = golden_case(name);
    let env: Vec<(&str, &str)> = c
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let args: Vec<&str> = c.args.iter().map(|s| s.as_str()).collect();
    mpirun_timeout(c.np, &args, &env, dir, ERROR_TIMEOUT)
}

/// Common checks of a refused run: non-zero exit, nothing on stdout a parser could take
/// for a report, `message` exactly once on stderr, no `#pio_tmp*` file, within 10 s.
fn assert_refused(o: &Outcome, dir: &Path, message: &str) {
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "must exit non-zero\n{}",
        o.describe()
    );
    for bad in ["Throughput", "==== Parameters"] {
        assert!(
            !o.stdout.contains(bad),
            "stdout must not contain {bad:?}\n{}",
            o.describe()
        );
    }
    let n = o
        .stderr_clean()
        .lines()
        .filter(|l| l.contains(message))
        .count();
    assert_eq!(
        n,
        1,
        "{message:?} must appear on exactly one line of stderr (found {n})\n{}",
        o.describe()
    );
    let files = pio_tmp_files(dir);
    assert!(
        files.is_empty(),
        "no file may be created, found {files:?}\n{}",
        o.describe()
    );
    assert!(
        o.elapsed < ERROR_TIMEOUT,
        "took {:?}\n{}",
        o.elapsed,
        o.describe()
    );
}

fn refused_case(name: &str, message: &str) {
    let dir = scratch_dir();
    let o = run_case_by_name(name, dir.path());
    assert_refused(&o, dir.path(), message);
}

#[test]
fn buffer_smaller_than_block_is_refused() {
    // -A posix -D t -x 64K -X 128K -i 3: 64K transfer < 128K default block.
    refused_case(
        "api_posix_times",
        "Transfer buffer size (65536) must be a multiple of the interleaved I/O block size (131072)",
    );
}

#[test]
fn size_per_process_not_multiple_of_buffer_is_refused() {
    refused_case(
        "err_not_multiple",
        "Dataset size/process (102400) must be a multiple of the trasfer buffer size (65536)",
    );
}

#[test]
fn buffer_not_multiple_of_block_is_refused() {
    refused_case(
        "err_block",
        "Transfer buffer size (49152) must be a multiple of the interleaved I/O block size (32768)",
    );
}

#[test]
fn too_many_processes_is_refused() {
    refused_case(
        "err_too_many_procs",
        "number of process(4) must be <= number of processes in MPI_COMM_WORLD(2)",
    );
}

#[test]
fn bad_api_is_refused() {
    let dir = scratch_dir();
    let o = run_case_by_name("err_bad_api", dir.path());
    assert_refused(&o, dir.path(), "hdf4");
    assert!(
        o.stdout.is_empty(),
        "stdout must be empty\n{}",
        o.describe()
    );
    let err = o.stderr_clean();
    let line = err.lines().find(|l| l.contains("hdf4")).unwrap();
    assert!(line.starts_with("h5perf: "), "{line:?}");
    assert!(
        line.contains("-A") || line.contains("api"),
        "must name the option: {line:?}"
    );
}

#[test]
fn bad_size_suffix_is_refused() {
    let dir = scratch_dir();
    let o = run_case_by_name("err_bad_size", dir.path());
    assert_refused(&o, dir.path(), "Illegal size specifier 'Q'");
    assert!(
        o.stdout.is_empty(),
        "stdout must be empty\n{}",
        o.describe()
    );
    let err = o.stderr_clean();
    let line = err
        .lines()
        .find(|l| l.contains("Illegal size specifier 'Q'"))
        .unwrap();
    assert!(line.starts_with("h5perf: "), "{line:?}");
    assert!(line.contains("10Q"), "must name the value: {line:?}");
    assert!(
        line.contains("-e") || line.contains("num-bytes"),
        "must name the option: {line:?}"
    );
}

#[test]
fn bad_debug_flag_is_refused() {
    let dir = scratch_dir();
    let o = run_case_by_name("err_bad_debug", dir.path());
    assert!(
        o.stdout.is_empty(),
        "stdout must be empty\n{}",
        o.describe()
    );
    let line = o.single_message("-D with a bad value");
    assert!(
        line.contains("-D") || line.contains("debug"),
        "must name the option: {line:?}"
    );
    assert!(line.contains('z'), "must name the value: {line:?}");
    assert_refused(&o, dir.path(), &line);
}

#[test]
fn two_dimensional_region_that_does_not_tile_is_refused() {
    // spec §6.6: the C tool overwrote other ranks' rows (POSIX/MPI-IO) or hung (PHDF5)
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-g", "-e", "3", "-B", "2", "-x", "6", "-X", "6"],
        &[],
        dir.path(),
        ERROR_TIMEOUT,
    );
    assert_refused(
        &o,
        dir.path(),
        "Bytes per process per dataset (3) must be a multiple of the block size (2) in 2D geometry",
    );
}

/// `HDF5_PARAPREFIX` naming a missing directory: the open fails; we must exit non-zero
/// with a message naming the file, and never hang.
fn missing_paraprefix(api: &str, suffix: &str) {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-A", api, "-e", "8", "-x", "4", "-X", "4", "-B", "2"],
        &[("HDF5_PARAPREFIX", "/nonexistent/x")],
        dir.path(),
        Duration::from_secs(30),
    );
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "-A {api}: must exit non-zero\n{}",
        o.describe()
    );
    // The data directory is checked on every rank before any file is opened, so the
    // message names the directory and the variable, and no report is printed.
    let _ = suffix;
    let err = o.stderr_clean();
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("/nonexistent/x"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "-A {api}: one message naming /nonexistent/x\n{}",
        o.describe()
    );
    assert!(
        lines[0].contains("HDF5_PARAPREFIX"),
        "-A {api}: message names the variable\n{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("==== Parameters"),
        "-A {api}: no report before the failure\n{}",
        o.describe()
    );
    assert!(
        pio_tmp_files(dir.path()).is_empty(),
        "-A {api}: file created in cwd"
    );
    assert!(
        !Path::new("/nonexistent").exists(),
        "/nonexistent was created"
    );
}

#[test]
fn missing_paraprefix_directory_posix() {
    missing_paraprefix("posix", "posix");
}

#[test]
fn missing_paraprefix_directory_mpiio() {
    missing_paraprefix("mpiio", "mpio");
}

#[test]
fn missing_paraprefix_directory_phdf5() {
    missing_paraprefix("phdf5", "h5");
}

#[test]
fn verify_run_succeeds() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &[
            "-D", "v", "-e", "8", "-x", "4", "-X", "8", "-B", "2", "-I", "-d", "2",
        ],
        &[],
        dir.path(),
        SMALL_RUN_TIMEOUT,
    );
    assert_eq!(o.status, Some(0), "{}", o.describe());
    assert!(!o.stdout.contains("read data error"), "{}", o.describe());
    // 2 process counts × 2 transfer sizes × 3 APIs, each with Write/Write Open-Close/Read/Read Open-Close.
    let n = o.stdout.matches("Maximum Throughput: ").count();
    assert_eq!(
        n,
        2 * 2 * 3 * 4,
        "number of result blocks\n{}",
        o.describe()
    );
    assert!(o.stderr_clean().trim().is_empty(), "{}", o.describe());
}

#[test]
fn help_exits_zero_with_usage() {
    let dir = scratch_dir();
    let o = mpirun_timeout(2, &["-h"], &[], dir.path(), ERROR_TIMEOUT);
    assert_eq!(o.status, Some(0), "-h must exit 0\n{}", o.describe());
    let n = o
        .stdout
        .lines()
        .filter(|l| l.starts_with("usage: h5perf"))
        .count();
    assert_eq!(n, 1, "usage printed once (world rank 0)\n{}", o.describe());
    assert!(!o.stdout.contains("Throughput"), "{}", o.describe());
    assert!(pio_tmp_files(dir.path()).is_empty());
}

#[test]
fn version_exits_zero() {
    let dir = scratch_dir();
    let o = mpirun_timeout(1, &["--version"], &[], dir.path(), ERROR_TIMEOUT);
    assert_eq!(o.status, Some(0), "--version must exit 0\n{}", o.describe());
    // the HDF5 release of the library the binary loads, not a constant
    assert!(
        o.stdout.contains(linked_hdf5_version()),
        "{}\nlinked HDF5: {} ({})",
        o.describe(),
        linked_hdf5_version(),
        linked_hdf5_library().display()
    );
    // the tool re-implemented is 1.10.8's whatever HDF5 it links (a 1.14 build said
    // "re-implementation of the HDF5 1.14.5 h5perf"); this test also runs against 1.14 and 2.x
    let first = o.stdout.lines().next().unwrap_or_default();
    assert!(
        first.ends_with("(Rust re-implementation of the HDF5 1.10.8 h5perf benchmark)"),
        "{}",
        o.describe()
    );
    assert!(!o.stdout.contains("Throughput"), "{}", o.describe());
    assert!(pio_tmp_files(dir.path()).is_empty());
}

#[test]
fn output_option_writes_report_to_file() {
    let dir = scratch_dir();
    let report = dir.path().join("report.txt");
    let o = mpirun_timeout(
        2,
        &[
            "-o",
            report.to_str().unwrap(),
            "-A",
            "posix",
            "-e",
            "8",
            "-x",
            "4",
            "-X",
            "4",
            "-B",
            "2",
        ],
        &[],
        dir.path(),
        SMALL_RUN_TIMEOUT,
    );
    assert_eq!(o.status, Some(0), "{}", o.describe());
    let out: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(
        out,
        vec![
            hdf5_version_line().as_str(),
            info_dump_header().as_str(),
            "object is MPI_INFO_NULL",
        ],
        "with -o, stdout keeps only the version line and the info dump\n{}",
        o.describe()
    );
    let text = fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("report file: {e}\n{}", o.describe()));
    let lines: Vec<&str> = text.lines().collect();
    let find = |pred: &dyn Fn(&str) -> bool, what: &str| {
        lines
            .iter()
            .position(|l| pred(l))
            .unwrap_or_else(|| panic!("report file lacks {what}:\n{text}"))
    };
    let p0 = find(
        &|l| l == "rank 0: ==== Parameters ====",
        "the parameter block",
    );
    let p1 = find(
        &|l| l.starts_with("rank 0: ") && l.ends_with("==== End of Parameters ===="),
        "the end of the parameter block",
    );
    let p2 = find(&|l| l == "Number of processors = 2", "the 2-process header");
    let p3 = find(
        &|l| l.trim_start().starts_with("Maximum Throughput: "),
        "results",
    );
    assert!(
        p0 < p1 && p1 < p2 && p2 < p3,
        "order of the report file:\n{text}"
    );
    assert!(
        lines.contains(&"rank 0: IO API=posix "),
        "report file:\n{text}"
    );
    assert!(
        !text.contains("HDF5 Library: Version"),
        "the version line goes to stdout only:\n{text}"
    );
    assert_eq!(
        text.matches("        IO API = POSIX").count(),
        2,
        "one POSIX run per process count:\n{text}"
    );
    assert!(pio_tmp_files(dir.path()).is_empty());
}

#[test]
fn mpi_info_with_empty_piece_finishes() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-A", "mpiio", "-e", "8", "-x", "4", "-X", "4", "-B", "2"],
        &[("HDF5_MPI_INFO", "a=b; ;c=d")],
        dir.path(),
        Duration::from_secs(60),
    );
    assert_eq!(o.status, Some(0), "{}", o.describe());
    let lines: Vec<&str> = o.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "object has 2 items")
        .unwrap_or_else(|| panic!("`object has 2 items` missing\n{}", o.describe()));
    assert_eq!(&lines[at + 1..at + 3], &["a=b", "c=d"], "{}", o.describe());
    assert!(
        lines[at - 1].ends_with(&info_dump_header()),
        "{}",
        o.describe()
    );
    assert!(o.stdout.contains("Throughput"), "{}", o.describe());
}

#[test]
fn mpi_info_with_empty_key_is_refused() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &["-A", "mpiio", "-e", "8", "-x", "4", "-X", "4", "-B", "2"],
        &[("HDF5_MPI_INFO", "=v")],
        dir.path(),
        ERROR_TIMEOUT,
    );
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "must exit non-zero\n{}",
        o.describe()
    );
    assert!(
        o.stderr_clean().contains("HDF5_MPI_INFO"),
        "message must name HDF5_MPI_INFO\n{}",
        o.describe()
    );
    assert!(!o.stdout.contains("Throughput"), "{}", o.describe());
    assert!(pio_tmp_files(dir.path()).is_empty());
}

/// One rank cannot create files (its HDF5_PARAPREFIX differs): every rank must leave
/// together with one message naming that rank, for every API — never a hang inside a
/// collective open.
#[test]
fn one_rank_cannot_create_files() {
    for api in ["posix", "mpiio", "phdf5"] {
        let dir = scratch_dir();
        let good = dir.path().to_string_lossy().into_owned();
        let bin = h5perf_bin().to_string_lossy().into_owned();
        let mut argv: Vec<String> = launcher();
        for (n, prefix) in [("1", good.as_str()), ("1", "/nonexistent/y")] {
            argv.extend(["-n".to_string(), n.to_string()]);
            argv.extend(launcher_env("HDF5_PARAPREFIX", prefix));
            argv.extend([&bin, "-A", api, "-e", "16K"].iter().map(|s| s.to_string()));
            argv.push(":".into());
        }
        argv.pop();
        let o = run_session(&argv, &[], dir.path(), Duration::from_secs(30));
        assert!(
            matches!(o.status, Some(c) if c != 0),
            "-A {api}: must fail\n{}",
            o.describe()
        );
        let msg = o.single_message(&format!("-A {api}"));
        assert!(
            msg.starts_with("h5perf: rank 1: ") && msg.contains("/nonexistent/y"),
            "{msg}"
        );
        assert!(
            pio_tmp_files(dir.path()).is_empty(),
            "-A {api}: no data file left"
        );
    }
}
