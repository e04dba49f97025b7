//! The PHDF5 settings sites tune (issue 33): `--deflate=LEVEL`, proven from outside on
//! the file the run leaves (`HDF5_NOCLEANUP=1`, read with `h5dump -p -H`), its bytes
//! checked by `-D v`, and its refusals before any I/O; `--coll-metadata` (fewer small
//! metadata writes under `strace`, the file's access list read back) and
//! `--chunk-cache` (the datasets' access lists read back, the file's defaults filled in
//! by HDF5), and their refusals.

mod common;

use common::*;
use serde_json::Value as J;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 oversubscribed cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// `--deflate=6 -c -C` on 2 ranks: the kept file's dataset is chunked (the block) with
/// the deflate filter at level 6 and takes less room than its data (zeros and rank
/// bytes compress), `-D v` reads every byte back right, and the results record the level.
#[test]
fn deflate_reaches_the_dataset_and_the_data_reads_back() {
    let dir = scratch_dir();
    let args = [
        "-A",
        "phdf5",
        "-c",
        "-C",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "16K",
        "-B",
        "16K",
        "-p",
        "2",
        "--deflate=6",
        "-D",
        "v",
        "--json",
        "d.json",
    ];
    let o = mpirun_timeout(
        2,
        &args,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    let d = run_tool(
        &["h5dump", "-p", "-H", "#pio_tmp_1.h5"],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(d.success(), "{}", d.describe());
    let h = &d.stdout;
    assert!(h.contains("CHUNKED ( 16384 )"), "{h}");
    assert!(h.contains("COMPRESSION DEFLATE { LEVEL 6 }"), "{h}");
    let stored: u64 = h
        .lines()
        .find_map(|l| l.trim().strip_prefix("SIZE "))
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no SIZE line in {h}"));
    assert!(
        stored < 128 << 10,
        "compressed: {stored} B stored for 128 KiB\n{h}"
    );
    let j = std::fs::read_to_string(dir.path().join("d.json")).unwrap();
    assert!(j.contains("\"deflate\":\"6\""), "{j}");
}

/// Without chunking, collective I/O or PHDF5 among the APIs, `--deflate` is refused
/// before any I/O with every reason, and a level above 9 is refused by the parser.
#[test]
fn deflate_refusals() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        1,
        &["-A", "posix", "--deflate=6"],
        &[],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(!o.success(), "{}", o.describe());
    for why in [
        "--deflate=6 applies to PHDF5 datasets only: -A has no phdf5",
        "--deflate=6 needs chunked datasets (-c)",
        "--deflate=6 needs collective I/O (-C)",
    ] {
        assert!(o.stderr.contains(why), "{why}: {}", o.describe());
    }
    let o = mpirun_timeout(1, &["--deflate=10"], &[], dir.path(), RUN_TIMEOUT);
    assert!(!o.success(), "{}", o.describe());
    assert!(
        o.stderr.contains("invalid value '10' for --deflate"),
        "{}",
        o.describe()
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file made"
    );
}

/// A small chunked PHDF5 run on 2 ranks (4 datasets: metadata to write) under
/// `strace -e trace=pwrite64`, with `extra` options: its JSON and the number of small
/// writes (shorter than a transfer: metadata) on the data file, over all ranks.
fn traced_phdf5(extra: &[&str], dir: &Path) -> (J, usize) {
    let strace = require_tool("strace", "strace");
    let tdir = scratch_dir();
    let mut argv = launcher();
    argv.extend(
        [
            "-n",
            "2",
            &strace.to_string_lossy(),
            "-f",
            "-y",
            "-qq",
            "-s",
            "8",
            "-ff",
            "-o",
            &tdir.path().join("t").to_string_lossy(),
            "-e",
            "trace=pwrite64",
            &h5perf_bin().to_string_lossy(),
            "-A",
            "phdf5",
            "-c",
            "-e",
            "64K",
            "-x",
            "16K",
            "-X",
            "16K",
            "-B",
            "16K",
            "-p",
            "2",
            "-d",
            "4",
            "-w",
            "--json",
            "s.json",
        ]
        .map(String::from),
    );
    argv.extend(extra.iter().map(|s| s.to_string()));
    let o = run_session(&argv, &[], dir, RUN_TIMEOUT);
    assert!(o.success(), "{}", o.describe());
    let small = read_traces(tdir.path())
        .iter()
        .flatten()
        .filter(|c: &&Call| c.name == "pwrite64" && c.path.ends_with("/#pio_tmp_1.h5"))
        .filter(|c| c.extent().1 < 16 << 10)
        .count();
    let text = std::fs::read_to_string(dir.join("s.json")).expect("s.json");
    (
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}")),
        small,
    )
}

/// `--coll-metadata`: the file's access list, read back after each open, has collective
/// metadata reads and writes, the parameter block and the results say so; and it takes
/// effect: HDF5 writes its metadata with collective MPI-IO calls, which the MPI library
/// aggregates, so the ranks make fewer small writes on the data file than without it
/// (Open MPI 4.1 and MPICH 4 with HDF5 1.10.8: 14 against 1; HDF5 2.2.0: 12 against 1).
/// `--chunk-cache=2M` in the same run: every dataset's access list holds 2 MiB, with the
/// slots and the weight HDF5 filled in from the file's cache (1.10: 521 and 0.75, 2.2:
/// 8191 and 0.75), not copies of the input.
#[test]
fn coll_metadata_and_chunk_cache_take_effect() {
    let dir = scratch_dir();
    let (plain, small_plain) = traced_phdf5(&[], dir.path());
    for k in [
        "hdf5_all_coll_metadata_ops",
        "hdf5_coll_metadata_write",
        "hdf5_chunk_cache",
    ] {
        assert!(plain.get(k).is_none(), "{k} without the options\n{plain}");
    }
    let dir = scratch_dir();
    let (j, small) = traced_phdf5(&["--coll-metadata", "--chunk-cache=2M"], dir.path());
    assert_eq!(j["hdf5_all_coll_metadata_ops"], "true", "{j}");
    assert_eq!(j["hdf5_coll_metadata_write"], "true", "{j}");
    let cache = j["hdf5_chunk_cache"]
        .as_str()
        .unwrap_or_else(|| panic!("{j}"));
    let parts: Vec<&str> = cache.split(',').collect();
    assert_eq!(parts[0], "2097152", "{cache}");
    assert!(
        parts[1].parse::<u64>().unwrap() > 0,
        "slots filled in: {cache}"
    );
    let w0: f64 = parts[2].parse().unwrap();
    assert!((0.0..=1.0).contains(&w0), "w0 filled in: {cache}");
    let r = &j["records"][0];
    assert_eq!(r["coll_metadata"], "on", "{r}");
    assert_eq!(r["chunk_cache"], "2097152,default,default", "{r}");
    assert!(
        small < small_plain,
        "collective metadata writes: {small} small writes, {small_plain} without"
    );
}

/// `--chunk-cache=BYTES,SLOTS,W0` given whole is what every dataset's access list holds,
/// in the write and the read phase, and the parameter block shows it.
#[test]
fn chunk_cache_given_whole_reaches_every_dataset() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        2,
        &[
            "-A",
            "phdf5",
            "-c",
            "-e",
            "32K",
            "-x",
            "16K",
            "-X",
            "16K",
            "-B",
            "16K",
            "-p",
            "2",
            "-d",
            "2",
            "--chunk-cache=1M,101,0.5",
            "--json",
            "c.json",
        ],
        &[],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(o.success(), "{}", o.describe());
    assert!(
        o.stdout
            .contains("rank 0: Chunk cache=1048576,101,0.5 (bytes,slots,w0; H5Pset_chunk_cache)\n"),
        "{}",
        o.stdout
    );
    let j: J =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(j["hdf5_chunk_cache"], "1048576,101,0.5", "{j}");
}

/// `--coll-metadata` and `--chunk-cache` without PHDF5, and `--chunk-cache` without
/// chunked datasets, are refused before any I/O with the reason; a weight above 1 by
/// the parser.
#[test]
fn coll_metadata_and_chunk_cache_refusals() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        1,
        &["-A", "mpiio", "--coll-metadata", "--chunk-cache=1M"],
        &[],
        dir.path(),
        RUN_TIMEOUT,
    );
    assert!(!o.success(), "{}", o.describe());
    for why in [
        "--coll-metadata applies to PHDF5 files only: -A has no phdf5",
        "--chunk-cache=1048576,default,default applies to PHDF5 datasets only: -A has no phdf5",
        "--chunk-cache=1048576,default,default needs chunked datasets (-c)",
    ] {
        assert!(o.stderr.contains(why), "{why}: {}", o.describe());
    }
    let o = mpirun_timeout(1, &["--chunk-cache=1M,8,1.5"], &[], dir.path(), RUN_TIMEOUT);
    assert!(!o.success(), "{}", o.describe());
    assert!(
        o.stderr
            .contains("invalid value '1M,8,1.5' for --chunk-cache"),
        "{}",
        o.describe()
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file made"
    );
}
