//! The storage options (issue 13), proved from outside the program: `strace -f` on the
//! ranks (the launcher starts `strace ... h5perf` as each rank) shows the sync calls on
//! each data file before its close (`--fsync`), `O_DIRECT` in the open flags
//! (`--direct`), the offsets each rank reads (`--reorder`), the absence of any write on
//! the data files (`--read-only`) and the write of `3` to `/proc/sys/vm/drop_caches`
//! (`--drop-caches`); kept files (`HDF5_NOCLEANUP`) are maps of who wrote what; and
//! every refusal is checked: non-zero exit, nothing on stdout, one message, no file.
//!
//! Runs as root (the project's machines): the `--drop-caches` refusal runs the job as the
//! user `h5perf-test`, created here when missing (`useradd`).

mod common;

use common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Small runs under strace take a few seconds; a hang is cut short well before this.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Refused runs stop before any I/O.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(30);

/// A scratch directory on the disk holding the build (`CARGO_TARGET_TMPDIR`), not on
/// tmpfs as `/tmp` may be: `--direct` refuses tmpfs.
fn disk_dir() -> tempfile::TempDir {
    scratch_dir_in("h5perf-storage-", Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// A refused run: non-zero exit, nothing on stdout, exactly one `h5perf: ` line on
/// stderr containing every needle, no `#pio_tmp*` file and no direct-I/O probe left in
/// `dir`.
fn assert_refused(o: &Outcome, dir: &Path, needles: &[&str]) {
    o.assert_refused_without_output("refused run");
    let m = o.single_message("refused run");
    for n in needles {
        assert!(m.contains(n), "message {m:?} lacks {n:?}\n{}", o.describe());
    }
    let left: Vec<String> = dir_entries(dir)
        .into_iter()
        .filter(|f| f.starts_with("#pio_tmp") || f.starts_with("#h5perf"))
        .collect();
    assert!(left.is_empty(), "files left: {left:?}\n{}", o.describe());
    assert!(o.elapsed < REFUSAL_TIMEOUT, "took {:?}", o.elapsed);
}

fn refused(np: usize, args: &[&str], env: &[(&str, &str)], needles: &[&str]) {
    let dir = disk_dir();
    let o = mpirun_timeout(np, args, env, dir.path(), REFUSAL_TIMEOUT);
    assert_refused(&o, dir.path(), needles);
}

const SUFFIXES: [&str; 3] = [".posix", ".mpio", ".h5"];

// ---------------------------------------------------------------------------------------
// --fsync
// ---------------------------------------------------------------------------------------

/// The sync calls of one process on one data file: how many, and whether a data write
/// (a transfer, `len` bytes or more) was left unsynced at a close. Writes of HDF5
/// metadata smaller than a transfer after the sync are listed apart.
fn sync_findings(calls: &[Call], transfer: u64) -> (usize, Vec<String>, Vec<String>) {
    let (mut syncs, mut unsynced, mut late_meta) = (0, Vec::new(), Vec::new());
    let mut dirty: Option<String> = None;
    let mut meta_after: Vec<String> = Vec::new();
    for c in calls {
        if c.is_sync() {
            syncs += 1;
            dirty = None;
            meta_after.clear();
        } else if c.name.starts_with("pwrite") {
            let (_, len) = c.extent();
            if len >= transfer {
                dirty = Some(c.line.clone());
            } else if syncs > 0 {
                meta_after.push(c.line.clone());
            }
        } else if c.name == "close" {
            if let Some(w) = dirty.take() {
                unsynced.push(w);
            }
            late_meta.append(&mut meta_after);
        }
    }
    (syncs, unsynced, late_meta)
}

#[test]
fn fsync_syncs_every_data_file_before_its_close_in_every_api() {
    let dir = disk_dir();
    let json = dir.path().join("r.json");
    let json_s = json.to_str().unwrap();
    let args = [
        "-e", "64K", "-x", "32K", "-X", "32K", "-B", "16K", "-p", "2", "-D", "t",
    ];
    let calls = "openat,close,fsync,fdatasync,pwrite64,pwritev,write";
    let mut with: Vec<&str> = args.to_vec();
    with.extend(["--fsync", "--json", json_s]);
    let (o, traces) = traced(2, &with, &[], dir.path(), calls);
    assert_ok(&o, "--fsync");
    for s in SUFFIXES {
        let name = format!("#pio_tmp_1{s}");
        let procs = on_file(&traces, &name);
        let writers: Vec<&Vec<Call>> = procs
            .iter()
            .filter(|t| t.iter().any(|c| c.name.starts_with("pwrite")))
            .collect();
        assert!(
            !writers.is_empty(),
            "{name}: no process wrote it\n{traces:#?}"
        );
        for t in writers {
            let (syncs, unsynced, late_meta) = sync_findings(t, 32768);
            assert!(
                syncs >= 1,
                "{name}: written without fsync/fdatasync:\n{t:#?}"
            );
            assert!(
                unsynced.is_empty(),
                "{name}: data written after the last sync, before the close: {unsynced:#?}"
            );
            // HDF5 rewrites its superblock (96 bytes, offset 0) in H5Fclose, after the
            // sync; POSIX and MPI-IO write nothing after it
            if s == ".h5" {
                assert!(
                    late_meta.iter().all(|l| l.ends_with(", 96, 0) = 96")),
                    "{name}: unexpected writes after the sync: {late_meta:#?}"
                );
            } else {
                assert!(
                    late_meta.is_empty(),
                    "{name}: writes after the sync: {late_meta:#?}"
                );
            }
        }
    }
    // the report: one line in the parameter block, one Write File Sync block per API
    assert_eq!(
        o.stdout.matches("rank 0: Sync before close=on").count(),
        1,
        "{}",
        o.stdout
    );
    assert_eq!(
        o.stdout
            .matches("Write File Sync (1 iteration(s)):")
            .count(),
        3,
        "{}",
        o.stdout
    );
    let j: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["parameters"]["fsync"], "on");
    assert_eq!(j["parameters"]["direct"], "off");
    assert_eq!(j["records"][0]["fsync"], "on");

    // without --fsync: no sync call on any data file, nothing in the report or the JSON
    let mut without: Vec<&str> = args.to_vec();
    without.extend(["--json", json_s]);
    let (o, traces) = traced(2, &without, &[], dir.path(), calls);
    assert_ok(&o, "without --fsync");
    for s in SUFFIXES {
        let name = format!("#pio_tmp_1{s}");
        let procs = on_file(&traces, &name);
        assert!(!procs.is_empty(), "{name} not traced");
        for t in &procs {
            assert!(
                !t.iter().any(Call::is_sync),
                "{name}: synced without --fsync: {t:#?}"
            );
        }
    }
    assert!(!o.stdout.contains("Sync"), "{}", o.stdout);
    let j: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert!(j["parameters"].get("fsync").is_none(), "{j}");
}

// ---------------------------------------------------------------------------------------
// --direct
// ---------------------------------------------------------------------------------------

#[test]
fn direct_opens_the_posix_data_files_with_o_direct() {
    let dir = disk_dir();
    let args = [
        "-A", "posix", "-e", "1M", "-x", "256K", "-X", "512K", "-B", "64K", "-p", "2", "-D", "v",
    ];
    let mut with = args.to_vec();
    with.push("--direct");
    let (o, traces) = traced(2, &with, &[], dir.path(), "openat,close");
    assert_ok(&o, "--direct");
    let procs = on_file(&traces, "#pio_tmp_1.posix");
    let opens: Vec<&Call> = procs
        .iter()
        .flatten()
        .filter(|c| c.name == "openat")
        .collect();
    // 2 transfer sizes x (write + read) x 2 ranks
    assert_eq!(opens.len(), 8, "{opens:#?}");
    for c in &opens {
        assert!(
            c.open_flags().contains(&"O_DIRECT"),
            "opened without O_DIRECT: {}",
            c.line
        );
    }
    assert_eq!(
        opens
            .iter()
            .filter(|c| c.open_flags().contains(&"O_RDONLY"))
            .count(),
        4
    );
    assert_eq!(
        opens
            .iter()
            .filter(|c| c.open_flags().contains(&"O_CREAT"))
            .count(),
        4
    );
    assert!(
        o.stdout
            .contains("rank 0: Direct I/O=on (POSIX O_DIRECT; alignment "),
        "{}",
        o.stdout
    );
    // the probe file that asked the kernel for the alignment is gone
    assert!(
        dir_entries(dir.path())
            .iter()
            .all(|f| !f.starts_with("#h5perf_direct_probe")),
        "{:?}",
        dir_entries(dir.path())
    );

    let (o, traces) = traced(2, &args, &[], dir.path(), "openat,close");
    assert_ok(&o, "without --direct");
    let procs = on_file(&traces, "#pio_tmp_1.posix");
    let opens: Vec<&Call> = procs
        .iter()
        .flatten()
        .filter(|c| c.name == "openat")
        .collect();
    assert_eq!(opens.len(), 8);
    assert!(
        opens.iter().all(|c| !c.open_flags().contains(&"O_DIRECT")),
        "{opens:#?}"
    );
    assert!(!o.stdout.contains("Direct I/O"));
}

#[test]
fn direct_is_refused_with_mpiio_and_phdf5_on_tmpfs_and_for_unaligned_calls() {
    refused(
        2,
        &["--direct"],
        &[],
        &[
            "--direct applies to POSIX only (-A posix), and mpiio and phdf5 are selected",
            "MPI-IO has no portable direct I/O",
            "HDF5_MPI_INFO=\"direct_read=true;direct_write=true\"",
        ],
    );
    refused(
        2,
        &["--direct", "-A", "posix,phdf5"],
        &[],
        &["phdf5 is selected"],
    );
    // 1D contiguous: a transfer of 768 bytes
    refused(
        2,
        &[
            "--direct", "-A", "posix", "-e", "768K", "-x", "768", "-X", "768", "-B", "256",
        ],
        &[],
        &[
            "--direct: each POSIX read and write moves one transfer buffer (-x..-X) = 768 bytes, \
           not a multiple of the direct-I/O alignment of the data directory (",
        ],
    );
    // 1D interleaved: a block of 256 bytes
    refused(
        2,
        &[
            "--direct", "-A", "posix", "-I", "-e", "1M", "-x", "64K", "-X", "64K", "-B", "256",
        ],
        &[],
        &["moves one block (-B) = 256 bytes"],
    );
    // tmpfs: /dev/shm must be one (Debian mounts it so)
    let mounts = fs::read_to_string("/proc/mounts").unwrap();
    assert!(
        mounts.lines().any(
            |l| l.split(' ').nth(1) == Some("/dev/shm") && l.split(' ').nth(2) == Some("tmpfs")
        ),
        "this test needs /dev/shm on tmpfs:\n{mounts}"
    );
    let shm = scratch_dir_in("h5perf-storage-", Path::new("/dev/shm"));
    let cwd = disk_dir();
    let o = mpirun_timeout(
        2,
        &["--direct", "-A", "posix"],
        &[("HDF5_PARAPREFIX", shm.path().to_str().unwrap())],
        cwd.path(),
        REFUSAL_TIMEOUT,
    );
    assert_refused(
        &o,
        shm.path(),
        &["is on tmpfs, which keeps files in memory"],
    );
    assert!(dir_entries(cwd.path()).is_empty());
}

// ---------------------------------------------------------------------------------------
// --reorder
// ---------------------------------------------------------------------------------------

/// A set of `(offset, length)` of reads or writes.
/// POSIX, 2 processes: with `--reorder` each rank reads exactly what the other wrote.
fn posix_reads_the_other_part(pattern: &[&str]) {
    let dir = disk_dir();
    let mut args = vec!["-A", "posix", "-p", "2", "-P", "2", "-D", "v", "--reorder"];
    args.extend(pattern);
    let (o, traces) = traced(2, &args, &[], dir.path(), "pread64,pwrite64");
    assert_ok(&o, &format!("--reorder {pattern:?}"));
    assert!(o
        .stdout
        .contains("rank 0: Read reorder=shift 1 (all processes on one node"));
    let e = extents(&traces, "#pio_tmp_1.posix");
    assert_eq!(
        e.len(),
        2,
        "{pattern:?}: two processes must write and read\n{e:?}"
    );
    let ((w0, r0), (w1, r1)) = (&e[0], &e[1]);
    assert!(!w0.is_empty() && !w1.is_empty(), "{pattern:?}");
    assert!(
        w0.is_disjoint(w1),
        "{pattern:?}: the two ranks wrote the same bytes"
    );
    assert_eq!(r0, w1, "{pattern:?}: a rank must read what the other wrote");
    assert_eq!(r1, w0, "{pattern:?}: a rank must read what the other wrote");
}

#[test]
fn reorder_posix_reads_the_other_ranks_part_1d_contiguous_and_interleaved() {
    posix_reads_the_other_part(&["-e", "64K", "-x", "16K", "-X", "16K", "-B", "4K"]);
    posix_reads_the_other_part(&["-I", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "4K"]);
    // the control: without --reorder each rank reads its own part, which the comparison
    // above tells apart
    let dir = disk_dir();
    let args = [
        "-A", "posix", "-p", "2", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "4K",
    ];
    let (o, traces) = traced(2, &args, &[], dir.path(), "pread64,pwrite64");
    assert_ok(&o, "without --reorder");
    let e = extents(&traces, "#pio_tmp_1.posix");
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].0, e[0].1);
    assert_eq!(e[1].0, e[1].1);
    assert_ne!(e[0].1, e[1].0);
}

#[test]
fn reorder_posix_reads_the_other_ranks_part_2d_contiguous_interleaved_chunked() {
    let geo = ["-g", "-e", "1K", "-x", "1K", "-X", "1K", "-B", "256"];
    posix_reads_the_other_part(&geo);
    posix_reads_the_other_part(&[&geo[..], &["-I"]].concat());
    posix_reads_the_other_part(&[&geo[..], &["-I", "-c"]].concat());
}

/// Byte counts of a kept file (a map of who wrote what with `-D v`): every byte is 1 or
/// 2, half each.
fn assert_half_each(bytes: &[u8], what: &str) {
    let ones = bytes.iter().filter(|&&b| b == 1).count();
    let twos = bytes.iter().filter(|&&b| b == 2).count();
    assert!(!bytes.is_empty(), "{what}: empty");
    assert_eq!(
        (ones, twos),
        (bytes.len() / 2, bytes.len() / 2),
        "{what}: not a 2-rank map"
    );
}

#[test]
fn reorder_mpiio_and_phdf5_verify_the_writers_bytes_1d_and_2d() {
    for pattern in [
        &["-e", "64K", "-x", "16K", "-X", "16K", "-B", "4K"][..],
        &[
            "-I", "-C", "-e", "64K", "-x", "16K", "-X", "16K", "-B", "4K",
        ],
        &["-g", "-C", "-e", "1K", "-x", "1K", "-X", "1K", "-B", "256"],
        &[
            "-g", "-I", "-c", "-e", "1K", "-x", "1K", "-X", "1K", "-B", "256",
        ],
    ] {
        let dir = disk_dir();
        let mut args = vec![
            "-A",
            "mpiio,phdf5",
            "-p",
            "2",
            "-P",
            "2",
            "-D",
            "v",
            "--reorder",
        ];
        args.extend(pattern);
        let o = mpirun_timeout(
            2,
            &args,
            &[("HDF5_NOCLEANUP", "1")],
            dir.path(),
            RUN_TIMEOUT,
        );
        assert_ok(&o, &format!("{args:?}"));
        // each rank wrote its own part (rank + 1), so passing -D v means it read the other's
        let mpio = fs::read(dir.path().join("#pio_tmp_1.mpio")).unwrap();
        assert_half_each(&mpio, &format!("{pattern:?} .mpio"));
        let h5 = h5_dataset_bytes(&dir.path().join("#pio_tmp_1.h5"), "Dataset_1");
        assert_half_each(&h5, &format!("{pattern:?} .h5"));
        if pattern[0] == "-e" {
            assert!(
                mpio[..mpio.len() / 2].iter().all(|&b| b == 1),
                "rank 0 wrote the first half"
            );
        }
    }
}

#[test]
fn reorder_verification_expects_the_writers_byte() {
    // files written without -D v hold zeros: the reads of rank 0 (of rank 1's part) are
    // checked against 2, those of rank 1 against 1
    let dir = disk_dir();
    let common = [
        "-A", "posix", "-p", "2", "-P", "2", "-e", "4K", "-B", "1K", "-x", "4K", "-X", "4K",
    ];
    let o = mpirun_timeout(
        2,
        &common,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    let mut args = common.to_vec();
    args.extend(["--read-only", "--reorder", "-D", "v"]);
    let o = mpirun_timeout(2, &args, &[], dir.path(), RUN_TIMEOUT);
    assert_eq!(o.status, Some(1), "{}", o.describe());
    let all = format!("{}{}", o.stdout, o.stderr);
    assert!(
        all.contains("0: read data error, expected (2), got (0)"),
        "{}",
        o.describe()
    );
    assert!(
        all.contains("1: read data error, expected (1), got (0)"),
        "{}",
        o.describe()
    );
}

#[test]
fn reorder_refusals() {
    refused(
        2,
        &["--reorder", "-w"],
        &[],
        &["--reorder changes what each rank reads, and -w/--write-only reads nothing"],
    );
    refused(
        1,
        &["--reorder"],
        &[],
        &["--reorder needs at least 2 processes"],
    );
    refused(
        2,
        &["--reorder=2"],
        &[],
        &["--reorder=2: with 2 processes every rank would read its own part"],
    );
    refused(
        2,
        &["--reorder=0"],
        &[],
        &["invalid value '0' for --reorder: must be at least 1"],
    );
}

// ---------------------------------------------------------------------------------------
// --read-only
// ---------------------------------------------------------------------------------------

const KEPT: [&str; 8] = ["-p", "2", "-P", "2", "-e", "64K", "-B", "16K"];

#[test]
fn read_only_reads_the_kept_files_without_writing_and_keeps_them() {
    let dir = disk_dir();
    let mut write = KEPT.to_vec();
    write.extend(["-D", "v"]);
    let o = mpirun_timeout(
        2,
        &write,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    let before: Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> = SUFFIXES
        .iter()
        .map(|s| {
            let p = dir.path().join(format!("#pio_tmp_1{s}"));
            let m = fs::metadata(&p).unwrap();
            (p.clone(), fs::read(&p).unwrap(), m.modified().unwrap())
        })
        .collect();

    let mut ro = KEPT.to_vec();
    ro.extend(["--read-only", "-D", "v,t", "-i", "2"]);
    let (o, traces) = traced(
        2,
        &ro,
        &[],
        dir.path(),
        "openat,close,pread64,pwrite64,pwritev,write,ftruncate,fallocate,unlink,unlinkat,rename",
    );
    assert_ok(&o, "--read-only");
    for s in SUFFIXES {
        let name = format!("#pio_tmp_1{s}");
        let procs = on_file(&traces, &name);
        // every rank opened it (2 iterations x 2 transfer sizes) and read it
        assert!(procs.len() >= 2, "{name}: {procs:#?}");
        for t in &procs {
            for c in t {
                assert!(
                    !c.is_write(),
                    "{name}: written by a --read-only run: {}",
                    c.line
                );
                assert!(
                    !c.name.starts_with("unlink") && c.name != "rename",
                    "{name}: {}",
                    c.line
                );
                let f = c.open_flags();
                for bad in ["O_CREAT", "O_TRUNC", "O_WRONLY", "O_RDWR"] {
                    assert!(!f.contains(&bad), "{name}: opened with {bad}: {}", c.line);
                }
            }
        }
        assert!(
            procs.iter().flatten().any(|c| c.name == "pread64"),
            "{name}: never read"
        );
    }
    // the report: no write phase; the parameter block says so
    assert!(o.stdout.contains("rank 0: Read-only=on"), "{}", o.stdout);
    assert!(!o.stdout.contains("Write"), "{}", o.stdout);
    assert_eq!(
        o.stdout
            .matches("Read Open-Close (2 iteration(s)):")
            .count(),
        3 * 2
    );
    // the files are kept, unchanged
    for (p, bytes, mtime) in before {
        assert_eq!(fs::read(&p).unwrap(), bytes, "{} changed", p.display());
        assert_eq!(
            fs::metadata(&p).unwrap().modified().unwrap(),
            mtime,
            "{}",
            p.display()
        );
    }
}

#[test]
fn read_only_refuses_missing_and_mismatching_files_before_any_timing() {
    let dir = disk_dir();
    let mut ro = KEPT.to_vec();
    ro.push("--read-only");
    // nothing there
    let o = mpirun_timeout(2, &ro, &[], dir.path(), REFUSAL_TIMEOUT);
    assert_refused(
        &o,
        dir.path(),
        &["--read-only: no data file to read: stat(#pio_tmp_1.posix) failed: No such file or directory"],
    );
    // files of another size
    let o = mpirun_timeout(
        2,
        &KEPT,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    let kept = pio_tmp_files(dir.path());
    assert_eq!(kept.len(), 3);
    let check = |args: &[&str], needles: &[&str]| {
        let o = mpirun_timeout(2, args, &[], dir.path(), REFUSAL_TIMEOUT);
        o.assert_refused_without_output("read-only refusal");
        let m = o.single_message("read-only refusal");
        for n in needles {
            assert!(m.contains(n), "{m:?} lacks {n:?}\n{}", o.describe());
        }
        assert_eq!(pio_tmp_files(dir.path()), kept, "the kept files must stay");
    };
    let mut bigger = ro.clone();
    bigger.extend(["-e", "128K"]);
    check(
        &bigger,
        &["--read-only: #pio_tmp_1.posix holds 131072 bytes, but a run of 2 process(es) with these options reads 262144"],
    );
    let mut sweep = vec!["--read-only", "-e", "64K", "-B", "16K"];
    sweep.extend(["-A", "mpiio"]);
    check(
        &sweep,
        &[
            "#pio_tmp_1.mpio holds 131072 bytes, but a run of 1 process(es)",
            "-p N -P N",
        ],
    );
    let mut dsets = ro.clone();
    dsets.extend(["-A", "phdf5", "-d", "2"]);
    check(
        &dsets,
        &["--read-only: #pio_tmp_1.h5 has no dataset Dataset_2"],
    );
    let mut shape = ro.clone();
    shape.extend(["-A", "phdf5", "-e", "32K"]);
    check(&shape, &["--read-only: #pio_tmp_1.h5: Dataset_1 has the shape [131072], but a run of 2 process(es) with these options reads [65536]"]);
    // files of the right size written by another process count, pattern or layout
    // (issue 35): refused with what the files hold (the ranks' bytes are in files
    // written with -D v)
    let mut verified = KEPT.to_vec();
    verified.extend(["-D", "v"]);
    let o = mpirun_timeout(
        2,
        &verified,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    let mut fewer = vec![
        "--read-only",
        "-p",
        "1",
        "-P",
        "1",
        "-e",
        "128K",
        "-B",
        "16K",
    ];
    fewer.extend(["-A", "posix"]);
    check(
        &fewer,
        &[
            "--read-only: #pio_tmp_1.posix was not written by a run of 1 process(es) with the contiguous pattern",
            "the byte at dataset offset 131071, which rank 0 reads, is 2, not 1",
            "the file holds the data of 2 process(es) (its last byte is 2), in the contiguous pattern",
        ],
    );
    let mut inter = ro.clone();
    inter.extend(["-A", "mpiio", "-I"]);
    check(
        &inter,
        &[
            "--read-only: #pio_tmp_1.mpio was not written by a run of 2 process(es) with the interleaved pattern",
            "in the contiguous pattern",
        ],
    );
    let mut h5_fewer = vec![
        "--read-only",
        "-p",
        "1",
        "-P",
        "1",
        "-e",
        "128K",
        "-B",
        "16K",
    ];
    h5_fewer.extend(["-A", "phdf5"]);
    check(
        &h5_fewer,
        &["--read-only: #pio_tmp_1.h5 was not written by a run of 1 process(es)"],
    );
    let mut chunked = ro.clone();
    chunked.extend(["-A", "phdf5", "-c"]);
    check(
        &chunked,
        &["--read-only: #pio_tmp_1.h5: Dataset_1 is stored contiguous, but -c reads chunked storage"],
    );
    // nothing to do, or nothing to sync
    check(
        &[&ro[..], &["-w"]].concat(),
        &["--read-only runs the read phase only and -w/--write-only the write phase only"],
    );
    check(
        &[&ro[..], &["--fsync"]].concat(),
        &["--fsync syncs what the write phase wrote, and --read-only has no write phase"],
    );
}

// ---------------------------------------------------------------------------------------
// --drop-caches
// ---------------------------------------------------------------------------------------

#[test]
fn drop_caches_writes_3_once_per_node_between_write_and_read() {
    assert_eq!(
        effective_uid(),
        0,
        "dropping the page cache needs root: run the tests as root"
    );
    let dir = disk_dir();
    let args = [
        "-A",
        "posix",
        "-F",
        "2",
        "-p",
        "2",
        "-e",
        "64K",
        "-B",
        "16K",
        "-x",
        "64K",
        "--drop-caches",
    ];
    let (o, traces) = traced(2, &args, &[], dir.path(), "openat,close,write,fsync,sync");
    assert_ok(&o, "--drop-caches");
    assert!(
        !traces.iter().flatten().any(|c| c.name == "sync"),
        "sync(2) waits for every job's dirty data: the ranks fsync their files instead"
    );
    assert!(o.stdout.contains("rank 0: Drop caches=on"), "{}", o.stdout);
    let droppers: Vec<&Vec<Call>> = traces
        .iter()
        .filter(|t| {
            t.iter()
                .any(|c| c.name == "write" && c.path == "/proc/sys/vm/drop_caches")
        })
        .collect();
    assert_eq!(droppers.len(), 1, "one rank per node (one node here)");
    // that rank's story: the up-front check opens it without writing; then per file:
    // write phase, write-back (open, fsync), drop (open, "3"), read phase
    let story: Vec<String> = droppers[0]
        .iter()
        .filter_map(|c| {
            let file = c.path.rsplit('/').next().unwrap_or("");
            match (c.name.as_str(), file) {
                ("write", "drop_caches") => {
                    assert!(c.args.ends_with(", \"3\", 1"), "wrote {}", c.line);
                    Some("drop".to_string())
                }
                ("openat", f) if f == "drop_caches" || f.starts_with("#pio_tmp") => {
                    let how = if c.open_flags().contains(&"O_RDONLY") {
                        "read"
                    } else {
                        "write"
                    };
                    Some(format!("open {f} {how}"))
                }
                ("fsync", f) if f.starts_with("#pio_tmp") => Some(format!("fsync {f}")),
                _ => None,
            }
        })
        .collect();
    assert_eq!(
        story,
        [
            "open drop_caches write",
            "open #pio_tmp_1.posix write",
            "open #pio_tmp_1.posix read",
            "fsync #pio_tmp_1.posix",
            "open drop_caches write",
            "drop",
            "open #pio_tmp_1.posix read",
            "open #pio_tmp_2.posix write",
            "open #pio_tmp_2.posix read",
            "fsync #pio_tmp_2.posix",
            "open drop_caches write",
            "drop",
            "open #pio_tmp_2.posix read",
        ],
        "{:#?}",
        droppers[0]
    );
    // the other rank never touches it
    let others: usize = traces
        .iter()
        .filter(|t| !std::ptr::eq(*t, droppers[0]))
        .flat_map(|t| t.iter())
        .filter(|c| c.path == "/proc/sys/vm/drop_caches")
        .count();
    assert_eq!(others, 0);
}

/// The effective user id of this process (from `/proc/self/status`, no unsafe code).
fn effective_uid() -> u32 {
    let s = fs::read_to_string("/proc/self/status").unwrap();
    let uid = s.lines().find(|l| l.starts_with("Uid:")).expect("Uid line");
    uid.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// The unprivileged user of these tests, created when missing (as root).
const USER: &str = "h5perf-test";

fn ensure_user() {
    if Command::new("id")
        .arg(USER)
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return;
    }
    let st = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            USER,
        ])
        .status()
        .expect("useradd (package passwd)");
    // another test binary may have created it meanwhile
    assert!(
        st.success()
            || Command::new("id")
                .arg(USER)
                .output()
                .is_ok_and(|o| o.status.success()),
        "cannot create the user {USER}"
    );
}

#[test]
fn drop_caches_is_refused_for_an_unprivileged_user_and_with_w() {
    refused(2, &["--drop-caches", "-w"], &[], &["--drop-caches drops the page cache before each read phase, and -w/--write-only has none"]);
    ensure_user();
    let setpriv = require_tool("setpriv", "util-linux");
    let dir = disk_dir();
    let mut perms = fs::metadata(dir.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o777);
    fs::set_permissions(dir.path(), perms).unwrap();
    let mut argv = vec![
        setpriv.to_string_lossy().into_owned(),
        format!("--reuid={USER}"),
        format!("--regid={USER}"),
        "--clear-groups".to_string(),
    ];
    argv.extend(launcher());
    argv.extend([
        "-n".into(),
        "2".into(),
        h5perf_bin().to_string_lossy().into_owned(),
    ]);
    argv.extend(["-A", "posix", "--drop-caches"].map(String::from));
    let o = run_session(&argv, &[("HOME", "/")], dir.path(), REFUSAL_TIMEOUT);
    assert_refused(
        &o,
        dir.path(),
        &[
            "--drop-caches: this process may not write /proc/sys/vm/drop_caches on ",
            "Permission denied",
            "needs root on every node",
        ],
    );
}
