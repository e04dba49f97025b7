//! Transfers above 2 GiB (`INT_MAX` bytes): the C tool failed here (Linux caps one
//! `write` at 2 GiB − 4 KiB; MPI counts are `int`). One rank moves one 3 GiB transfer
//! of one 3 GiB block with verification, POSIX and MPI-IO, in `/dev/shm` (memory, 24 GiB
//! on the project's machines), and PHDF5's limit is refused up front.

mod common;

use common::*;
use std::time::Duration;

fn three_gib(api: &str) {
    let dir = scratch_dir_in("h5perf-large-", std::path::Path::new("/dev/shm"));
    let prefix = dir.path().to_string_lossy().into_owned();
    let args = [
        "-A", api, "-D", "v,t", "-e", "3G", "-x", "3G", "-X", "3G", "-B", "3G", "-P", "1",
    ];
    let o = mpirun_timeout(
        1,
        &args,
        &[("HDF5_PARAPREFIX", &prefix)],
        dir.path(),
        Duration::from_secs(300),
    );
    assert!(
        o.success(),
        "-A {api}: a 3 GiB transfer must work\n{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("read data error"),
        "-A {api}: verification failed\n{}",
        o.describe()
    );
    assert!(
        o.stdout.contains("Transfer Buffer Size: 3221225472 bytes"),
        "{}",
        o.describe()
    );
    // a throughput was measured: "Maximum Throughput: X MB/s" with X > 0 for Write
    let write = o
        .stdout
        .lines()
        .skip_while(|l| l.trim() != "Write (1 iteration(s)):")
        .nth(1)
        .unwrap_or("");
    let mbps: f64 = write
        .split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    assert!(
        mbps > 0.0,
        "-A {api}: no write throughput in {write:?}\n{}",
        o.describe()
    );
    assert!(
        pio_tmp_files(dir.path()).is_empty(),
        "-A {api}: data file left behind"
    );
}

#[test]
fn posix_transfer_of_3_gib() {
    three_gib("posix");
}

#[test]
fn mpiio_transfer_of_3_gib() {
    three_gib("mpiio");
}

#[test]
fn phdf5_transfer_above_int_max_is_refused_up_front() {
    let dir = scratch_dir();
    let o = mpirun_timeout(
        1,
        &[
            "-A", "phdf5", "-e", "3G", "-x", "3G", "-X", "3G", "-B", "3G", "-P", "1",
        ],
        &[],
        dir.path(),
        Duration::from_secs(30),
    );
    assert!(matches!(o.status, Some(c) if c != 0), "{}", o.describe());
    assert!(
        o.stderr_clean()
            .contains("HDF5's MPI-IO driver can move in one call"),
        "{}",
        o.describe()
    );
    assert!(!o.stdout.contains("==== Parameters"), "{}", o.describe());
    assert!(pio_tmp_files(dir.path()).is_empty());
}
