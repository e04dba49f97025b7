//! The PHDF5 settings sites tune (issue 33): `--deflate=LEVEL`, proven from outside on
//! the file the run leaves (`HDF5_NOCLEANUP=1`, read with `h5dump -p -H`), its bytes
//! checked by `-D v`, and its refusals before any I/O.

mod common;

use common::*;
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
