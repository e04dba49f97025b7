//! The transfer paths seen from outside the program (issue 27, steps 2 and 7):
//! * `-D v` reads through the same loop as a timed run: the reads of a run with and
//!   without `-D v` are the same calls at the same offsets and sizes, in the same order
//!   (POSIX: `pread64` under `strace`; MPI-IO and PHDF5: `MPI_File_read_at*` under a
//!   PMPI interposer, tests/mpi_trace_shim.c);
//! * h5perf's own collectives inside the fine (Write/Read) timer of a phase, counted with
//!   the interposer: one agreement after preparing the phase and one per dataset when
//!   the datasets or transfers are collective (PHDF5, MPI-IO with `-C`), none otherwise.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// The PMPI interposer, built with the flavour's MPI compiler wrapper (`$MPICC`, else
/// `mpicc.openmpi` / `mpicc.mpich`) into `dir`.
fn mpi_shim(dir: &Path) -> String {
    let cc = std::env::var("MPICC")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| match flavour() {
            Flavour::OpenMpi => "mpicc.openmpi".into(),
            Flavour::Mpich => "mpicc.mpich".into(),
        });
    let so = dir.join("mpi_trace_shim.so");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mpi_trace_shim.c");
    let ok = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&so)
        .arg(&src)
        .arg("-ldl")
        .status()
        .unwrap_or_else(|e| panic!("the MPI compiler wrapper {cc} is needed: {e}"));
    assert!(ok.success(), "building {} with {cc} failed", src.display());
    so.to_string_lossy().into_owned()
}

/// `h5perf ARGS` on 2 ranks in a fresh directory with the interposer preloaded in the
/// ranks (not in the launcher); returns each process's log lines (sorted by process,
/// so that the set of logs compares across runs) and the outcome.
fn logged(shim: &str, args: &[&str]) -> (Outcome, Vec<Vec<String>>) {
    let work = scratch_dir();
    let logs = work.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let mut argv = launcher();
    argv.extend(["-n".into(), "2".into()]);
    argv.extend(launcher_env("LD_PRELOAD", shim));
    argv.extend(launcher_env("H5PERF_TEST_MPI_LOG", &logs.to_string_lossy()));
    argv.push(h5perf_bin().to_string_lossy().into_owned());
    argv.extend(args.iter().map(|s| s.to_string()));
    let o = run_session(&argv, &[], work.path(), DEFAULT_TIMEOUT);
    let mut per: Vec<Vec<String>> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            text.lines().map(str::to_string).collect::<Vec<_>>()
        })
        .filter(|l: &Vec<String>| !l.is_empty())
        .collect();
    per.sort();
    (o, per)
}

fn assert_clean(o: &Outcome, what: &str) {
    assert!(o.success(), "{what}: the run failed\n{}", o.describe());
    assert!(
        !o.stdout.contains("read data error") && !o.stderr.contains("verification failed"),
        "{what}: verification errors\n{}",
        o.describe()
    );
}

/// `-D v` adds the check to the read loop of a timed run, nothing else: the same
/// `pread64` calls (offset, length, in order, per process) on the POSIX data file.
#[test]
fn posix_verification_reads_what_a_timed_run_reads() {
    let strace = require_tool("strace", "strace");
    for case in [
        &["-e", "64K", "-x", "4K", "-X", "8K", "-B", "4K"][..],
        &["-e", "64K", "-x", "8K", "-X", "8K", "-B", "2K", "-I"][..],
        &["-g", "-e", "8K", "-x", "4K", "-X", "4K", "-B", "2K"][..],
        &[
            "-g", "-e", "8K", "-x", "4K", "-X", "4K", "-B", "2K", "-I", "-c",
        ][..],
    ] {
        let reads = |verify: bool| {
            let work = scratch_dir();
            let tdir = work.path().join("t");
            std::fs::create_dir(&tdir).unwrap();
            let mut argv = launcher();
            argv.extend(["-n".into(), "2".into()]);
            argv.push(strace.to_string_lossy().into_owned());
            argv.extend(
                [
                    "-f",
                    "-y",
                    "-qq",
                    "-s",
                    "8",
                    "-ff",
                    "-e",
                    "trace=pread64",
                    "-o",
                ]
                .map(String::from),
            );
            argv.push(tdir.join("t").to_string_lossy().into_owned());
            argv.push(h5perf_bin().to_string_lossy().into_owned());
            argv.extend(
                ["-A", "posix", "-p", "2", "-P", "2", "-i", "1", "-d", "2"].map(String::from),
            );
            argv.extend(case.iter().map(|s| s.to_string()));
            if verify {
                argv.extend(["-D", "v"].map(String::from));
            }
            let o = run_session(&argv, &[], work.path(), DEFAULT_TIMEOUT);
            assert_clean(&o, &format!("{case:?} verify={verify}"));
            let mut per: Vec<Vec<(u64, u64)>> = on_file(&read_traces(&tdir), "#pio_tmp_1.posix")
                .iter()
                .map(|t| {
                    t.iter()
                        .filter(|c| c.name == "pread64")
                        .map(Call::extent)
                        .collect::<Vec<_>>()
                })
                .filter(|v| !v.is_empty())
                .collect();
            per.sort();
            per
        };
        let (timed, verified) = (reads(false), reads(true));
        assert_eq!(
            timed.len(),
            2,
            "{case:?}: reads of both ranks expected: {timed:?}"
        );
        assert_eq!(
            timed, verified,
            "{case:?}: -D v read otherwise than the timed run"
        );
    }
}

/// The same for MPI-IO and PHDF5 at the MPI level: the `MPI_File_read_at*` calls
/// (offset, count, element size, in order, per process) with and without `-D v`.
#[test]
fn mpi_verification_reads_what_a_timed_run_reads() {
    let tmp = scratch_dir();
    let shim = mpi_shim(tmp.path());
    for api in ["mpiio", "phdf5"] {
        for case in [
            &["-e", "64K", "-x", "8K", "-X", "8K", "-B", "8K"][..],
            &["-e", "64K", "-x", "8K", "-X", "8K", "-B", "2K", "-I"][..],
            &["-e", "64K", "-x", "8K", "-X", "8K", "-B", "2K", "-I", "-C"][..],
            &["-g", "-e", "8K", "-x", "4K", "-X", "4K", "-B", "2K"][..],
        ] {
            let reads = |verify: bool| {
                let mut args = vec!["-A", api, "-p", "2", "-P", "2", "-i", "1", "-d", "2"];
                args.extend_from_slice(case);
                if verify {
                    args.extend(["-D", "v"]);
                }
                let (o, logs) = logged(&shim, &args);
                assert_clean(&o, &format!("{api} {case:?} verify={verify}"));
                logs.into_iter()
                    .map(|l| {
                        l.into_iter()
                            .filter(|x| x.starts_with("R "))
                            .collect::<Vec<_>>()
                    })
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
            };
            let (timed, verified) = (reads(false), reads(true));
            assert_eq!(
                timed.len(),
                2,
                "{api} {case:?}: reads of both ranks expected"
            );
            assert_eq!(
                timed, verified,
                "{api} {case:?}: -D v read otherwise than the timed run"
            );
        }
    }
}

/// h5perf's own `MPI_Allreduce` and `MPI_Bcast` calls inside each phase's fine timer,
/// per process: from the fine start (the second timer stamp after the file's
/// `MPI_File_open`: the open's stamp, then the one after the checks of the opened file)
/// to the fine stop (the last stamp before its `MPI_File_close`), spec §8.1.
fn fine_window_collectives(log: &[String]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(o) = log[i..].iter().position(|l| l == "O").map(|p| p + i) {
        let c = o + log[o..]
            .iter()
            .position(|l| l == "C")
            .expect("a close after the open");
        let stamps: Vec<usize> = (o..c).filter(|&j| log[j] == "W").collect();
        assert!(
            stamps.len() >= 3,
            "too few timer stamps in a phase: {:?}",
            &log[o..c]
        );
        let (start, stop) = (stamps[1], *stamps.last().unwrap());
        let count = |what: &str| log[start..stop].iter().filter(|l| *l == what).count();
        out.push((count("A own"), count("B own")));
        i = c + 1;
    }
    out
}

/// Fewer collectives inside the timers (issue 27, step 7): with `-d D`, PHDF5 and MPI-IO
/// with `-C` agree `1 + D` times inside each phase's fine timer (after preparing the
/// phase, after preparing each dataset), MPI-IO without `-C` never; no broadcast there.
#[test]
fn collectives_inside_the_fine_timer() {
    let tmp = scratch_dir();
    let shim = mpi_shim(tmp.path());
    let dsets = 4usize;
    let d = dsets.to_string();
    for (api, collective, expected) in [
        ("phdf5", false, 1 + dsets),
        ("phdf5", true, 1 + dsets),
        ("mpiio", true, 1 + dsets),
        ("mpiio", false, 0),
    ] {
        let mut args = vec![
            "-A", api, "-d", &d, "-i", "1", "-e", "64K", "-x", "4K", "-X", "4K", "-B", "4K",
        ];
        args.extend(["-p", "2", "-P", "2"]);
        if collective {
            args.push("-C");
        }
        let (o, logs) = logged(&shim, &args);
        assert_clean(&o, &format!("{args:?}"));
        let ranks: Vec<&Vec<String>> = logs.iter().filter(|l| l.iter().any(|x| x == "O")).collect();
        assert_eq!(ranks.len(), 2, "{args:?}: two ranks open files");
        for log in ranks {
            let phases = fine_window_collectives(log);
            assert_eq!(
                phases.len(),
                2,
                "{args:?}: a write and a read phase: {phases:?}"
            );
            for (i, &(allreduce, bcast)) in phases.iter().enumerate() {
                assert_eq!(
                    (allreduce, bcast),
                    (expected, 0),
                    "{args:?}, phase {i}: h5perf's (MPI_Allreduce, MPI_Bcast) in the fine timer"
                );
            }
        }
    }
}
