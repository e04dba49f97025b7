//! `--subfiling` (issue 33): PHDF5 through HDF5's subfiling file driver, proven from
//! outside on the files a run leaves with `HDF5_NOCLEANUP=1` (the stub, its
//! configuration file and the subfiles, named after the stub's inode) and on the empty
//! directory a run leaves without it; `-D v` reads every byte back. Against an HDF5
//! without the driver (Debian's 1.10.8: no `H5Pset_fapl_subfiling` among the library's
//! symbols) the same run is refused with the reason; each refused combination and an
//! MPI without `MPI_THREAD_MULTIPLE` (tests/thread_shim.c) are refused before any I/O.

mod common;

use common::*;
use serde_json::Value as J;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 oversubscribed cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// Whether the linked HDF5 exports `H5Pset_fapl_subfiling` (its dynamic symbol table
/// holds the name), read from the library file, not through h5perf.
fn library_has_subfiling() -> bool {
    let lib = linked_hdf5_library();
    let bytes = std::fs::read(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let name = b"H5Pset_fapl_subfiling\0";
    bytes.windows(name.len()).any(|w| w == name)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const RUN: [&str; 16] = [
    "-A",
    "phdf5",
    "--subfiling",
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
    "-D",
    "v",
    "-C",
];

/// With the driver: a 2-rank run kept by `HDF5_NOCLEANUP=1` leaves the stub, the
/// configuration file `#pio_tmp_1.h5.subfile_INODE.config` (INODE: the stub's) and the
/// one subfile it names (one node, one I/O concentrator, HDF5's 32 MiB stripe), which
/// holds the 128 KiB of data; the results record what the configuration says. A second
/// run without it in the same directory removes the kept files first and its own at the
/// end: nothing is left. Without the driver the run is refused, with the reason, and
/// makes no file.
#[test]
fn subfiling_run_keeps_its_subfiles_with_nocleanup_and_removes_them_without() {
    let dir = scratch_dir();
    let mut args = RUN.to_vec();
    args.extend(["--json", "r.json"]);
    let o = mpirun_timeout(
        2,
        &args,
        &[("HDF5_NOCLEANUP", "1")],
        dir.path(),
        RUN_TIMEOUT,
    );
    if !library_has_subfiling() {
        o.assert_refused_without_output("--subfiling without the driver");
        let m = o.single_message("--subfiling without the driver");
        assert!(
            m.contains(&format!(
                "the linked HDF5 {} has no subfiling file driver (H5Pset_fapl_subfiling)",
                linked_hdf5_version()
            )),
            "{m}"
        );
        assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
        return;
    }
    assert_ok(&o, "--subfiling kept");
    assert!(
        o.stdout.contains("VFL used for HDF5 I/O=subfiling driver"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("IO API = PHDF5 (w/subfiling driver)"),
        "{}",
        o.stdout
    );
    let stub = dir.path().join("#pio_tmp_1.h5");
    let ino = std::fs::metadata(&stub).expect("the stub is kept").ino();
    let config_name = format!("#pio_tmp_1.h5.subfile_{ino}.config");
    let sub_name = format!("#pio_tmp_1.h5.subfile_{ino}_1_of_1");
    assert_eq!(
        names(dir.path())
            .into_iter()
            .filter(|n| n.starts_with("#pio_tmp"))
            .collect::<Vec<_>>(),
        vec![
            "#pio_tmp_1.h5".to_string(),
            config_name.clone(),
            sub_name.clone()
        ]
    );
    let config = std::fs::read_to_string(dir.path().join(&config_name)).unwrap();
    for line in [
        "stripe_size=33554432",
        "aggregator_count=1",
        "subfile_count=1",
    ] {
        assert!(config.lines().any(|l| l == line), "{line}: {config}");
    }
    assert!(config.lines().any(|l| l == sub_name), "{config}");
    let data = std::fs::metadata(dir.path().join(&sub_name)).unwrap().len();
    assert!(
        data >= 2 * 64 * 1024,
        "the subfile holds {data} bytes: {config}"
    );
    let j: J =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let text = j.to_string();
    for (k, v) in [
        ("hdf5_driver", "subfiling"),
        ("hdf5_subfiling_stripe_size", "33554432"),
        ("hdf5_subfiling_ioc_count", "1"),
        ("hdf5_subfiling_subfiles", "1"),
        ("subfiling", "on"),
    ] {
        assert!(
            text.contains(&format!("\"{k}\":\"{v}\"")),
            "{k}={v}: {text}"
        );
    }

    let o = mpirun_timeout(2, &RUN, &[], dir.path(), RUN_TIMEOUT);
    assert_ok(&o, "--subfiling removed");
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.starts_with("#pio_tmp"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Every combination `--subfiling` cannot do is refused in one run before any I/O, each
/// with its reason: other APIs, `--read-only` (the trial's kept stub could not be read),
/// `--mpi-info`, `--coll-metadata`, `-g`, `-I`, `-c` with
/// transfers of several chunks, the subfile directory variable.
#[test]
fn subfiling_refuses_what_it_cannot_do() {
    let dir = scratch_dir();
    let args = [
        "-A",
        "phdf5,mpiio",
        "--subfiling",
        "--read-only",
        "--mpi-info",
        "cb_nodes=1",
        "--coll-metadata",
        "-g",
        "-I",
        "-c",
        "-e",
        "64K",
        "-x",
        "16K",
        "-X",
        "32K",
        "-B",
        "16K",
    ];
    let o = mpirun_timeout(
        2,
        &args,
        &[("H5FD_SUBFILING_SUBFILE_PREFIX", "/tmp")],
        dir.path(),
        RUN_TIMEOUT,
    );
    o.assert_refused_without_output("--subfiling combinations");
    let err = o.stderr_clean();
    for want in [
        "--subfiling needs -A phdf5 alone",
        "--subfiling cannot be combined with --read-only yet",
        "--subfiling cannot be combined with --mpi-info",
        "--subfiling cannot be combined with --coll-metadata",
        "--subfiling cannot be combined with -g",
        "--subfiling cannot be combined with -I",
        "--subfiling cannot be combined with -c with transfers larger than the block",
        "--subfiling cannot run with H5FD_SUBFILING_SUBFILE_PREFIX set",
    ] {
        assert!(err.contains(want), "{want}\n{}", o.describe());
    }
    assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
}

/// An MPI that gives less than `MPI_THREAD_MULTIPLE` (the shim makes `MPI_Init_thread`
/// provide `MPI_THREAD_SERIALIZED`) refuses `--subfiling` before any I/O, with the
/// reason.
#[test]
fn subfiling_needs_mpi_thread_multiple() {
    let dir = scratch_dir();
    let shim = build_shim(dir.path(), "thread_shim");
    let env = [("LD_PRELOAD", shim.as_str())];
    let o = mpirun_timeout(2, &RUN, &env, dir.path(), RUN_TIMEOUT);
    o.assert_refused_without_output("--subfiling without MPI_THREAD_MULTIPLE");
    let err = o.stderr_clean();
    assert!(
        err.contains("--subfiling: MPI does not provide MPI_THREAD_MULTIPLE (MPI_Query_thread)"),
        "{}",
        o.describe()
    );
    assert!(!names(dir.path()).iter().any(|n| n.starts_with("#pio_tmp")));
}
