//! `--random` (issue 32), proved from outside the program: `strace` of each rank shows
//! every transfer's offset exactly once per dataset, not in increasing order, and the
//! same sequence for the same seed (another for another seed); the kept files
//! (`HDF5_NOCLEANUP`) of every API are byte-identical to those of an ordered run with the
//! same seeded payload; collective MPI-IO and PHDF5 with `--random` finish at 2 and 3
//! ranks (under a timeout) with `-D v` passing. Small sizes, one launch per case.

mod common;

use common::*;
use std::fs;
use std::time::Duration;

/// Small runs (under strace too) take a few seconds; a hang is cut short well before this.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// 64 KiB per rank and dataset in 4 KiB transfers: 16 transfers, 2 datasets.
const SIZES: [&str; 10] = ["-e", "64K", "-x", "4K", "-X", "4K", "-B", "4K", "-d", "2"];
const XFER: u64 = 4096;
const PART: u64 = 65536;
const DATASET: u64 = 2 * PART;

/// Each rank's POSIX write and read offsets, in call order, by rank (its part's start).
fn posix_sequences(traces: &Traces) -> Vec<(Vec<u64>, Vec<u64>)> {
    let mut by_rank: Vec<(u64, Vec<u64>, Vec<u64>)> = on_file(traces, "#pio_tmp_1.posix")
        .iter()
        .map(|t| {
            let of = |n: &str| -> Vec<u64> {
                t.iter()
                    .filter(|c| c.name == n)
                    .map(|c| {
                        let (off, len) = c.extent();
                        assert_eq!(len, XFER, "{}", c.line);
                        off
                    })
                    .collect()
            };
            let w = of("pwrite64");
            let first = w.iter().copied().min().unwrap_or(u64::MAX);
            (first, w, of("pread64"))
        })
        .filter(|(_, w, _)| !w.is_empty())
        .collect();
    by_rank.sort();
    by_rank.into_iter().map(|(_, w, r)| (w, r)).collect()
}

/// Rank `r`'s sequence of one phase: per dataset, every transfer's offset exactly once,
/// in an order that is not increasing.
fn assert_permuted(seq: &[u64], r: u64, what: &str) {
    assert_eq!(seq.len(), 32, "{what}: 2 datasets x 16 transfers: {seq:?}");
    for (d, part) in seq.chunks(16).enumerate() {
        let base = d as u64 * DATASET + r * PART;
        let mut sorted = part.to_vec();
        sorted.sort();
        let want: Vec<u64> = (0..16).map(|k| base + k * XFER).collect();
        assert_eq!(
            sorted, want,
            "{what}: dataset {d}, each transfer once: {part:?}"
        );
        assert_ne!(part, &want[..], "{what}: dataset {d} in increasing order");
    }
}

/// Two ranks, every API, `--random` with a given seed and an incompressible payload
/// (each transfer's bytes depend on its position): each rank's POSIX offsets are a
/// permutation per dataset and phase, the same for the same seed (another seed: the
/// unit tests of `benchmark::order`); the kept files of every API are byte-identical to
/// an ordered run's.
#[test]
fn transfers_in_a_seeded_permutation_leave_the_files_of_an_ordered_run() {
    let keep = [("HDF5_NOCLEANUP", "1")];
    // every API when the files are compared, else POSIX alone (the traced offsets)
    let run = |extra: &[&str], all: bool, trace: bool| {
        let dir = scratch_dir();
        let mut args = vec!["-p", "2", "--payload=incompressible", "-D", "v"];
        args.extend(SIZES);
        args.extend(extra);
        if !all {
            args.extend(["-A", "posix"]);
        }
        let (o, traces) = if trace {
            traced(2, &args, &keep, dir.path(), "pwrite64,pread64")
        } else {
            (
                mpirun_timeout(2, &args, &keep, dir.path(), RUN_TIMEOUT),
                Vec::new(),
            )
        };
        assert_ok(&o, &format!("{extra:?}"));
        (dir, o, traces)
    };
    let (d1, o1, t1) = run(&["--random", "--seed", "11"], true, true);
    assert!(
        o1.stdout
            .contains("rank 0: Random order=write,read (seed 11, given; "),
        "{}",
        o1.describe()
    );
    let s1 = posix_sequences(&t1);
    assert_eq!(s1.len(), 2, "two writing ranks");
    for (r, (w, rd)) in s1.iter().enumerate() {
        assert_permuted(w, r as u64, &format!("rank {r} writes"));
        assert_permuted(rd, r as u64, &format!("rank {r} reads"));
        assert_ne!(w, rd, "rank {r}: the read order is the write order");
    }
    assert_ne!(s1[0].0.iter().map(|o| o % PART).collect::<Vec<_>>(), {
        s1[1].0.iter().map(|o| o % PART).collect::<Vec<_>>()
    });
    // the same seed, the read phase alone in random order: ordered writes, the same reads
    let (_d2, _o2, t2) = run(&["--random=read", "--seed", "11"], false, true);
    let s2 = posix_sequences(&t2);
    assert_eq!(s2.len(), 2, "two writing ranks");
    for (r, (w, rd)) in s2.iter().enumerate() {
        assert!(
            w.windows(2).all(|p| p[0] < p[1]),
            "rank {r}: ordered writes"
        );
        assert_eq!(rd, &s1[r].1, "rank {r}: the same seed, the same read order");
    }
    let (d4, _o4, _t4) = run(&["--seed", "11"], true, false);
    for s in [".posix", ".mpio"] {
        let name = format!("#pio_tmp_1{s}");
        let random = fs::read(d1.path().join(&name)).unwrap();
        let ordered = fs::read(d4.path().join(&name)).unwrap();
        assert_eq!(random.len(), ordered.len(), "{name}");
        assert!(random == ordered, "{name}: random and ordered runs differ");
    }
    // HDF5 files record their objects' times: the datasets' bytes are compared
    for d in ["Dataset_1", "Dataset_2"] {
        let random = h5_dataset_bytes(&d1.path().join("#pio_tmp_1.h5"), d);
        let ordered = h5_dataset_bytes(&d4.path().join("#pio_tmp_1.h5"), d);
        assert_eq!(random.len() as u64, DATASET, "{d}");
        assert!(random == ordered, "{d}: random and ordered runs differ");
    }
}

/// Collective MPI-IO and PHDF5 (`-C`) with `--random` at 2 (contiguous) and 3 ranks
/// (interleaved: a file view per transfer; 2D): every rank makes one collective call per transfer, so the runs finish,
/// and `-D v` passes.
#[test]
fn collective_random_runs_finish_at_two_and_three_ranks() {
    let twod = ["-g", "-e", "8K", "-x", "4K", "-X", "4K", "-B", "2K"];
    let cases: [(usize, &[&str]); 3] = [(2, &[]), (3, &["-I"]), (3, &twod)];
    for (np, extra) in cases {
        let dir = scratch_dir();
        let np_s = np.to_string();
        let mut args = vec![
            "-A",
            "mpiio,phdf5",
            "-C",
            "--random",
            "-D",
            "v",
            "-p",
            &np_s,
            "-e",
            "64K",
            "-x",
            "8K",
            "-X",
            "16K",
            "-B",
            "4K",
        ];
        args.extend(extra);
        let o = mpirun_timeout(np, &args, &[], dir.path(), RUN_TIMEOUT);
        assert_ok(&o, &format!("{np} ranks {args:?}"));
        assert!(
            o.stdout.contains("Random order=write,read"),
            "{}",
            o.describe()
        );
    }
}
