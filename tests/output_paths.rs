//! What an output name is decides how it is written (issue 26), proven from outside on
//! private nodes made in a scratch directory with `mknod` and `mkfifo` (never the
//! machine's `/dev`):
//! * a character device named by `-o`, `--json`, `--csv`, `--rank-csv` or `--html` (one
//!   at a time, and all five at once) is written through and stays the same device;
//! * `-o FIFO` with a reader: the reader gets the whole report, the FIFO stays a FIFO;
//! * `--csv LINK` with `LINK -> /proc/self/fd/1` (what `/dev/stdout` is): the CSV
//!   arrives on standard output, the link stays;
//! * an existing report of another user (mode 640) keeps its owner, group and mode;
//! * a symbolic link planted by another user (the unprivileged test user) in a sticky
//!   world-writable directory is refused for each output option, its target untouched.
//!
//! Every case prints one `TABLE|case|flavour|exit status|seconds|files left|message`
//! line on stderr (`cargo test -- --nocapture` shows them).

mod common;

use common::*;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Small runs: 1 and 2 processes, POSIX, 64 KiB per rank in 16 KiB transfers.
const SMALL: &[&str] = &[
    "-A", "posix", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "16K",
];

const TIMEOUT: Duration = Duration::from_secs(120);

/// The output options, each with a document it writes.
const OUTPUTS: [&str; 5] = ["-o", "--json", "--csv", "--rank-csv", "--html"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = SMALL.to_vec();
    v.extend_from_slice(extra);
    v
}

/// A private character device with the numbers of `/dev/null` (1, 3) at `path`.
fn mknod_null(path: &Path) {
    let st = Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .status()
        .expect("cannot run mknod");
    assert!(st.success(), "mknod {} c 1 3 failed", path.display());
}

/// `path` is still the character device (1, 3).
fn assert_still_null(path: &Path, what: &str) {
    let m = fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        m.file_type().is_char_device(),
        "{what}: {} is no longer a character device ({:?})",
        path.display(),
        m.file_type()
    );
    assert_eq!(
        (libc::major(m.rdev()), libc::minor(m.rdev())),
        (1, 3),
        "{what}: device numbers changed"
    );
}

/// Everything written to the FIFO read through `f` (non-blocking): until end of file
/// after some data (the writer closed), or until `done` is set and nothing more comes
/// (no writer ever, or a product that wrote elsewhere).
fn read_fifo(mut f: fs::File, done: &std::sync::atomic::AtomicBool) -> String {
    use std::io::Read;
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    let mut idle_after_done = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) if !got.is_empty() => break,
            Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("reading the FIFO: {e}"),
        }
        if done.load(std::sync::atomic::Ordering::SeqCst) {
            idle_after_done += 1;
            if idle_after_done > 50 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    String::from_utf8_lossy(&got).into_owned()
}

fn table(case: &str, o: &Outcome, dir: &Path) {
    table_row(case, o, &dir_entries(dir), &first_message(o));
}

#[test]
fn every_output_option_writes_through_a_character_device() {
    for option in OUTPUTS {
        let dir = scratch_dir();
        let node = dir.path().join("null");
        mknod_null(&node);
        let o = mpirun_timeout(
            2,
            &args(&[option, "null", "-p", "2"]),
            &[],
            dir.path(),
            TIMEOUT,
        );
        table(&format!("{option} to a character device"), &o, dir.path());
        assert!(o.success(), "{option} null\n{}", o.describe());
        assert_still_null(&node, option);
        assert_eq!(
            dir_entries(dir.path()),
            vec!["null"],
            "{option}: nothing else left"
        );
    }
    // all five naming the same device: not "the same file", written through each
    let dir = scratch_dir();
    let node = dir.path().join("null");
    mknod_null(&node);
    let mut all = vec!["-p", "2"];
    for option in OUTPUTS {
        all.extend([option, "null"]);
    }
    let o = mpirun_timeout(2, &args(&all), &[], dir.path(), TIMEOUT);
    table("all five outputs to one character device", &o, dir.path());
    assert!(o.success(), "{}", o.describe());
    assert_still_null(&node, "all five");
    assert_eq!(dir_entries(dir.path()), vec!["null"]);
}

#[test]
fn report_to_a_fifo_reaches_its_reader() {
    let dir = scratch_dir();
    let fifo = dir.path().join("fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    // the reader holds the FIFO open before the run starts (non-blocking, so that a
    // product that replaced the FIFO cannot leave the reader waiting for ever)
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (fifo, done) = (fifo.clone(), done.clone());
        let f = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .expect("open the FIFO for reading");
        std::thread::spawn(move || read_fifo(f, &done))
    };
    let o = mpirun_timeout(2, &args(&["-o", "fifo"]), &[], dir.path(), TIMEOUT);
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    table("-o FIFO with a reader", &o, dir.path());
    let got = reader.join().expect("reader thread");
    assert!(o.success(), "{}", o.describe());
    assert!(
        got.contains("rank 0: ==== Parameters ====")
            && got.contains("Number of processors = 1")
            && got.contains("Number of processors = 2"),
        "the reader gets the whole report:\n{got}\n{}",
        o.describe()
    );
    assert_eq!(got.matches("Maximum Throughput").count(), 4 * 2, "{got}");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(dir_entries(dir.path()), vec!["fifo"]);
}

#[test]
fn csv_through_a_link_to_proc_self_fd_1_arrives_on_standard_output() {
    let dir = scratch_dir();
    let link = dir.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let o = mpirun_timeout(
        2,
        &args(&["-p", "2", "-o", "report.txt", "--csv", "stdout"]),
        &[],
        dir.path(),
        TIMEOUT,
    );
    table("--csv to a link to /proc/self/fd/1", &o, dir.path());
    assert!(o.success(), "{}", o.describe());
    let header = o
        .stdout
        .lines()
        .find(|l| l.starts_with("nprocs,"))
        .unwrap_or_else(|| panic!("no CSV header on standard output\n{}", o.describe()));
    assert!(header.contains(",api,"), "{header}");
    let rows = o.stdout.lines().filter(|l| l.starts_with("2,")).count();
    assert!(rows >= 6, "the 2-process rows of the CSV\n{}", o.describe());
    assert_eq!(
        fs::read_link(&link).unwrap(),
        Path::new("/proc/self/fd/1"),
        "the link stays"
    );
    let mut left = dir_entries(dir.path());
    left.sort();
    assert_eq!(left, vec!["report.txt", "stdout"]);
}

#[test]
fn a_replaced_report_of_another_user_keeps_owner_group_and_mode() {
    let u = unpriv_user();
    let dir = scratch_dir();
    let report = dir.path().join("report.txt");
    fs::write(&report, "an earlier report\n").unwrap();
    std::os::unix::fs::lchown(&report, Some(u.uid), Some(u.gid)).unwrap();
    fs::set_permissions(&report, fs::Permissions::from_mode(0o640)).unwrap();
    for option in ["-o", "--json"] {
        let o = mpirun_timeout(1, &args(&[option, "report.txt"]), &[], dir.path(), TIMEOUT);
        table(
            &format!("{option}: existing file of another user"),
            &o,
            dir.path(),
        );
        assert!(o.success(), "{}", o.describe());
        let m = fs::metadata(&report).unwrap();
        assert_eq!(
            (m.uid(), m.gid()),
            (u.uid, u.gid),
            "{option}: owner and group"
        );
        assert_eq!(m.mode() & 0o7777, 0o640, "{option}: mode");
        let text = fs::read_to_string(&report).unwrap();
        assert!(!text.contains("an earlier report"), "{option}: replaced");
    }
    assert_eq!(dir_entries(dir.path()), vec!["report.txt"]);
}

#[test]
fn another_users_link_in_a_sticky_directory_is_refused() {
    let u = unpriv_user();
    let shared = scratch_dir();
    fs::set_permissions(shared.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    let secret_dir = scratch_dir();
    let victim = secret_dir.path().join("secret");
    fs::write(&victim, b"root's secret\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o600)).unwrap();
    let link = shared.path().join("r.out");
    // planted by the other user
    let ln = as_user(
        &u,
        &[
            "ln".into(),
            "-s".into(),
            victim.to_string_lossy().into_owned(),
            link.to_string_lossy().into_owned(),
        ],
    );
    let st = Command::new(&ln[0])
        .args(&ln[1..])
        .status()
        .expect("ln as the test user");
    assert!(st.success(), "{ln:?}");
    assert_eq!(fs::symlink_metadata(&link).unwrap().uid(), u.uid);
    let data = scratch_dir();
    for option in OUTPUTS {
        let name = link.to_str().unwrap();
        let o = mpirun_timeout(
            2,
            &args(&["-p", "2", option, name]),
            &[],
            data.path(),
            TIMEOUT,
        );
        table(
            &format!("{option}: another user's link in a sticky directory"),
            &o,
            shared.path(),
        );
        o.assert_refused_without_output(option);
        let msg = o.single_message(option);
        assert!(
            msg.contains(&format!(
                "({option}): cannot create '{name}': it is a symbolic link of user id {}",
                u.uid
            )) && msg.contains("sticky directory")
                && msg.contains("protected_symlinks"),
            "{option}: {msg}"
        );
        assert_eq!(
            fs::read(&victim).unwrap(),
            b"root's secret\n",
            "{option}: victim written"
        );
        let vm = fs::metadata(&victim).unwrap();
        assert_eq!(
            (vm.uid(), vm.mode() & 0o7777),
            (0, 0o600),
            "{option}: victim changed"
        );
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(dir_entries(shared.path()), vec!["r.out"], "{option}");
        assert!(pio_tmp_files(data.path()).is_empty(), "{option}");
    }
}

/// A rank whose standard output is a regular file opened for appending (`>> cap.txt`),
/// run with `-o` and `--csv` naming a link to `/proc/self/fd/1` (what `/dev/stdout`
/// is): both are the rank's descriptor 1, so the text
/// already in the file stays, the report and the CSV are appended at the descriptor's
/// offset, and the file is never replaced (same inode). Issue 26's trial found the file
/// replaced by the CSV alone, the earlier text and the report lost.
#[test]
fn a_link_to_standard_output_that_is_a_regular_file_is_appended_to() {
    let dir = scratch_dir();
    std::os::unix::fs::symlink("/proc/self/fd/1", dir.path().join("stdout")).unwrap();
    let cap = dir.path().join("cap.txt");
    fs::write(&cap, "OLD\n").unwrap();
    let before = fs::metadata(&cap).unwrap().ino();
    let mut argv = launcher();
    argv.extend(["-n", "1", "sh", "-c", "exec \"$0\" \"$@\" >> cap.txt"].map(String::from));
    argv.push(h5perf_bin().to_string_lossy().into_owned());
    argv.extend(
        args(&["-o", "stdout", "--csv", "stdout"])
            .iter()
            .map(|s| s.to_string()),
    );
    let o = run_session(&argv, &[], dir.path(), TIMEOUT);
    table(
        "-o and --csv to a link to fd 1, a file opened with >>",
        &o,
        dir.path(),
    );
    assert!(o.success(), "{}", o.describe());
    let got = fs::read_to_string(&cap).unwrap();
    assert_eq!(
        fs::metadata(&cap).unwrap().ino(),
        before,
        "cap.txt was replaced:\n{got}"
    );
    assert!(got.starts_with("OLD\n"), "the earlier text is kept:\n{got}");
    let report = got.find("Number of processors = 1").expect("the report");
    let csv = got.find("\nnprocs,").expect("the CSV header");
    assert!(report < csv, "the report first, then the CSV:\n{got}");
    assert_eq!(got.matches("Maximum Throughput").count(), 4, "{got}");
    let mut left = dir_entries(dir.path());
    left.sort();
    assert_eq!(left, vec!["cap.txt", "stdout"]);
}

/// Standard output is one output however it is named (the fresh-user trial of issue 35
/// found `--csv - --json /dev/stdout > f` mixing two documents in one file, exit 0): two
/// results documents on it are refused, and when it is a regular file (`>> cap.txt`) a
/// results file of the same name is refused as the same file as the report. Nothing is
/// written: the file keeps its text, no data file is left.
#[test]
fn standard_output_is_one_output_however_it_is_named() {
    let dir = scratch_dir();
    let cap = dir.path().join("cap.txt");
    for (extra, message) in [
        (
            &["--csv", "-", "--json", "/dev/stdout"][..],
            "both write to standard output",
        ),
        (
            &["--csv", "cap.txt"][..],
            "standard output '/dev/stdout' and --csv 'cap.txt' are the same file",
        ),
    ] {
        fs::write(&cap, "OLD\n").unwrap();
        let mut argv = launcher();
        argv.extend(["-n", "2", "sh", "-c", "exec \"$0\" \"$@\" >> cap.txt"].map(String::from));
        argv.push(h5perf_bin().to_string_lossy().into_owned());
        argv.extend(args(extra).iter().map(|s| s.to_string()));
        let o = run_session(&argv, &[], dir.path(), TIMEOUT);
        table(&extra.join(" "), &o, dir.path());
        assert!(!o.success(), "refused: {}", o.describe());
        assert!(o.stderr.contains(message), "{message}: {}", o.describe());
        assert_eq!(
            fs::read_to_string(&cap).unwrap(),
            "OLD\n",
            "nothing written"
        );
        assert_eq!(dir_entries(dir.path()), vec!["cap.txt"], "nothing left");
    }
}
