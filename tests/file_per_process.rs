//! `--file-per-process` (issue 32), proved from outside the program: the data files on
//! disk (kept with `HDF5_NOCLEANUP`) are one per rank and file index, of one rank's size,
//! each holding its rank's byte (`-D v`), in the `HDF5_PARAPREFIX/$USER` directory;
//! `strace -f` of the ranks shows each rank writing and syncing its own file with
//! `O_DIRECT` and reading the next rank's (`--reorder`), the page cache dropped between;
//! `--read-only` reads kept files and refuses a missing one; a dead run's per-rank files
//! are found through its stale lock and removed; the results count every rank's bytes.
//! Small sizes, one launch per case: the file costs a few seconds per MPI flavour.

mod common;

use common::*;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

/// Small runs (under strace too) take a few seconds; a hang is cut short well before this.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// A scratch directory on the disk holding the build (`CARGO_TARGET_TMPDIR`), not on
/// tmpfs as `/tmp` may be: `--direct` refuses tmpfs.
fn disk_dir() -> tempfile::TempDir {
    scratch_dir_in(
        "h5perf-fpp-",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
    )
}

const SUFFIXES: [&str; 3] = [".posix", ".mpio", ".h5"];

/// Three ranks, steps of 3 and 1 processes, 2 files of 2 datasets, two transfer sizes,
/// every API, `-D v`, in `HDF5_PARAPREFIX/$USER`: the kept files are `#pio_tmp_<f>-<r>`
/// of one rank's size holding `r + 1` only, no shared name; the results' bytes are every
/// rank's; the lock is released.
#[test]
fn one_file_per_rank_and_index_with_its_bytes_in_the_paraprefix_user_directory() {
    let dir = scratch_dir();
    let pp = dir.path().join("pp");
    fs::create_dir(&pp).unwrap();
    let csv = dir.path().join("r.csv");
    let args = [
        "--file-per-process",
        "-p",
        "1",
        "-P",
        "3",
        "-F",
        "2",
        "-d",
        "2",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "32K",
        "-B",
        "16K",
        "-D",
        "v,1",
        "--csv",
        csv.to_str().unwrap(),
    ];
    let env = [
        ("HDF5_NOCLEANUP", "1"),
        ("HDF5_PARAPREFIX", pp.to_str().unwrap()),
        ("USER", "fpp-user"),
    ];
    let o = mpirun_timeout(3, &args, &env, dir.path(), RUN_TIMEOUT);
    assert_ok(&o, "file per process");
    let data = pp.join("fpp-user");
    assert!(
        o.stdout.contains("rank 0: File per process=on"),
        "parameter line\n{}",
        o.describe()
    );
    // the parameter block's sizes are a file's, as on disk below (2 datasets of 64 KiB),
    // not the shared file's of 1 and 3 ranks
    for line in ["Size of dataset(s)=64KB:64KB", "File size=128KB:128KB"] {
        assert!(
            o.stdout.contains(&format!("rank 0: {line}\n")),
            "{line}\n{}",
            o.describe()
        );
    }
    assert!(
        o.stdout.contains(&format!(
            "rank 0: data filename={}/#pio_tmp_2-0.h5\n",
            data.display()
        )),
        "-D 1 names rank 0's own file\n{}",
        o.describe()
    );
    let mut want: Vec<String> = Vec::new();
    for f in 1..=2 {
        for r in 0..3 {
            for s in SUFFIXES {
                want.push(format!("#pio_tmp_{f}-{r}{s}"));
            }
        }
    }
    want.sort();
    assert_eq!(
        pio_tmp_files(&data),
        want,
        "one file per rank, index and API"
    );
    assert!(pio_tmp_files(dir.path()).is_empty());
    assert!(!data.join("#h5perf.lock").exists(), "the lock is released");
    for f in 1..=2 {
        for r in 0..3u8 {
            for s in [".posix", ".mpio"] {
                let name = format!("#pio_tmp_{f}-{r}{s}");
                let bytes = fs::read(data.join(&name)).unwrap();
                assert_eq!(bytes.len(), 2 * 65536, "{name}: 2 datasets of 64 KiB");
                assert!(
                    bytes.iter().all(|&b| b == r + 1),
                    "{name}: rank {r}'s byte only"
                );
            }
        }
    }
    for r in 0..3u8 {
        for d in ["Dataset_1", "Dataset_2"] {
            let bytes = h5_dataset_bytes(&data.join(format!("#pio_tmp_2-{r}.h5")), d);
            assert_eq!(bytes.len(), 65536, "{d} of rank {r}");
            assert!(
                bytes.iter().all(|&b| b == r + 1),
                "{d}: rank {r}'s byte only"
            );
        }
    }
    // throughput as for a shared file: every rank's bytes of every file
    let rows = parse_csv(&fs::read_to_string(&csv).unwrap());
    let (head, rows) = rows.split_first().unwrap();
    let (np, bytes, fpp) = (
        col(head, "nprocs"),
        col(head, "bytes"),
        col(head, "file_per_process"),
    );
    let steps: std::collections::BTreeSet<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r[np].as_str(),
                r[col(head, "xfer_size")].as_str(),
                r[col(head, "api")].as_str(),
            )
        })
        .collect();
    assert_eq!(
        steps.len(),
        2 * 2 * 3,
        "2 process counts x 2 sizes x 3 APIs: {steps:?}"
    );
    for row in rows {
        let n: u64 = row[np].parse().unwrap();
        assert_eq!(row[bytes], (n * 2 * 2 * 65536).to_string(), "{row:?}");
        assert_eq!(row[fpp], "on");
    }
}

/// Three ranks, POSIX under strace: each rank creates its own file with `O_DIRECT`,
/// writes it, syncs it (`--fsync`), the page cache is dropped (`--drop-caches`), and
/// it reads the next rank's file (`--reorder`), whose bytes `-D v` checks; nothing is
/// left behind.
#[test]
fn each_rank_writes_syncs_its_own_file_and_reads_the_next_ranks() {
    let dir = disk_dir();
    let args = [
        "--file-per-process",
        "-A",
        "posix",
        "-p",
        "3",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "16K",
        "-B",
        "16K",
        "-D",
        "v",
        "--direct",
        "--fsync",
        "--drop-caches",
        "--reorder",
    ];
    let (o, traces) = traced(
        3,
        &args,
        &[],
        dir.path(),
        "openat,pread64,pwrite64,fsync,fdatasync,write",
    );
    assert_ok(&o, "--direct --fsync --drop-caches --reorder");
    assert!(
        traces.iter().flatten().any(|c| c.name == "write"
            && c.path == "/proc/sys/vm/drop_caches"
            && c.args.contains("\"3")),
        "the page cache was dropped"
    );
    for r in 0..3 {
        let own = format!("#pio_tmp_1-{r}.posix");
        let next = format!("#pio_tmp_1-{}.posix", (r + 1) % 3);
        let writers = on_file(&traces, &own);
        let writer: Vec<&Vec<Call>> = writers
            .iter()
            .filter(|t| t.iter().any(|c| c.name == "pwrite64"))
            .collect();
        assert_eq!(writer.len(), 1, "one process writes {own}");
        let w = writer[0];
        let opened = w
            .iter()
            .find(|c| c.name == "openat" && c.open_flags().contains(&"O_CREAT"))
            .unwrap_or_else(|| panic!("{own} not created: {w:?}"));
        assert!(opened.open_flags().contains(&"O_DIRECT"), "{}", opened.line);
        let writes: Extents = w
            .iter()
            .filter(|c| c.name == "pwrite64")
            .map(Call::extent)
            .collect();
        let all: Extents = (0..4).map(|k| (k * 16384, 16384)).collect();
        assert_eq!(writes, all, "{own}: its 4 transfers from offset 0");
        assert!(w.iter().any(Call::is_sync), "{own} synced");
        assert!(
            w.iter().all(|c| c.name != "pread64"),
            "{own}: read by its writer"
        );
        // the same process (its pid in the trace file) reads the next rank's file
        let pid = traces
            .iter()
            .position(|t| t.iter().any(|c| c.line == w[0].line))
            .unwrap();
        let reads: Extents = traces[pid]
            .iter()
            .filter(|c| c.name == "pread64" && c.path.ends_with(&format!("/{next}")))
            .map(Call::extent)
            .collect();
        assert_eq!(reads, all, "the writer of {own} reads {next}");
    }
    assert!(pio_tmp_files(dir.path()).is_empty(), "files removed");
    assert!(!dir.path().join("#h5perf.lock").exists());
}

/// MPI-IO and PHDF5 with collective I/O (on `MPI_COMM_SELF`), `--fsync` and `--reorder`
/// at two ranks; then `--read-only` of the kept files (each rank's checked, `-D v` of the
/// next rank's bytes), files kept; a missing rank's file is refused, naming it.
#[test]
fn collective_and_read_only_with_a_file_per_process() {
    let dir = scratch_dir();
    let d = dir.path();
    let common = [
        "--file-per-process",
        "-A",
        "mpiio,phdf5",
        "-p",
        "2",
        "-e",
        "64K",
        "-x",
        "32K",
        "-X",
        "32K",
        "-B",
        "16K",
        "-D",
        "v",
        "-C",
        "--reorder",
    ];
    let keep = [("HDF5_NOCLEANUP", "1")];
    let o = mpirun_timeout(
        2,
        &[&common[..], &["--fsync"]].concat(),
        &keep,
        d,
        RUN_TIMEOUT,
    );
    assert_ok(&o, "collective --fsync --reorder");
    let want = [
        "#pio_tmp_1-0.h5",
        "#pio_tmp_1-0.mpio",
        "#pio_tmp_1-1.h5",
        "#pio_tmp_1-1.mpio",
    ];
    assert_eq!(pio_tmp_files(d), want);
    let before: Vec<i64> = want
        .iter()
        .map(|n| fs::metadata(d.join(n)).unwrap().mtime_nsec())
        .collect();
    let o = mpirun_timeout(
        2,
        &[&common[..], &["--read-only"]].concat(),
        &[],
        d,
        RUN_TIMEOUT,
    );
    assert_ok(&o, "--read-only");
    assert_eq!(pio_tmp_files(d), want, "kept");
    let after: Vec<i64> = want
        .iter()
        .map(|n| fs::metadata(d.join(n)).unwrap().mtime_nsec())
        .collect();
    assert_eq!(before, after, "not written");
    fs::remove_file(d.join("#pio_tmp_1-1.mpio")).unwrap();
    let o = mpirun_timeout(
        2,
        &[&common[..], &["--read-only"]].concat(),
        &[],
        d,
        RUN_TIMEOUT,
    );
    o.assert_refused_without_output("a missing rank's file");
    let m = o.single_message("a missing rank's file");
    assert!(
        m.contains("--read-only: no data file to read") && m.contains("#pio_tmp_1-1.mpio"),
        "{m}"
    );
}

/// A dead run's lock claims files per process for its ranks: the next run removes those
/// it left and names them; a rank's file beyond the claim stays.
#[test]
fn a_dead_runs_files_per_process_are_removed_through_its_lock() {
    let dir = scratch_dir();
    let d = dir.path();
    for n in [
        "#pio_tmp_1-0.posix",
        "#pio_tmp_1-1.posix",
        "#pio_tmp_1-2.posix",
    ] {
        fs::write(d.join(n), vec![7u8; 100]).unwrap();
    }
    let uid = fs::metadata(d.join("#pio_tmp_1-0.posix")).unwrap().uid();
    let host = fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // pid_max is at most 2^22: this PID never exists
    let rec = format!(
        "h5perf-lock 1\nhost {}\nboot_id {}\npid 4194305\nstart_ticks 1\nstarted {}\nuid {uid}\n\
         keep 0\ndata .posix 1\nranks 2\n",
        host.trim(),
        boot.trim(),
        now - 30
    );
    fs::write(d.join("#h5perf.lock"), rec).unwrap();
    let args = [
        "-A", "posix", "-e", "16K", "-x", "16K", "-X", "16K", "-B", "16K",
    ];
    let o = mpirun_timeout(1, &args, &[], d, RUN_TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    let err = o.stderr_clean();
    assert!(
        err.contains("removed what that run left")
            && err.contains("#pio_tmp_1-0.posix (100 bytes)")
            && err.contains("#pio_tmp_1-1.posix (100 bytes)"),
        "{err}"
    );
    assert_eq!(pio_tmp_files(d), ["#pio_tmp_1-2.posix"], "beyond the claim");
}
