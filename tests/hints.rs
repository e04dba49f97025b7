//! `--mpi-info KEY=VALUE` and the MPI-IO hints in effect (issue 33): the hints given on
//! the command line join those of `HDF5_MPI_INFO`, and the results record, per API that
//! opens files through MPI-IO, the hints the MPI library reports for the open file
//! (`MPI_File_get_info`), read from the files the run wrote.

mod common;

use common::*;
use serde_json::Value as J;
use std::path::Path;
use std::time::Duration;

/// Small runs take a few seconds on 2 oversubscribed cores; a hang is cut short.
const RUN_TIMEOUT: Duration = Duration::from_secs(90);

/// A small MPI-IO and PHDF5 run on 2 ranks with `extra` options and `env`, its JSON.
fn run_json(extra: &[&str], env: &[(&str, &str)], dir: &Path) -> (Outcome, J) {
    let mut args = vec![
        "-A",
        "mpiio,phdf5",
        "-e",
        "64K",
        "-x",
        "32K",
        "-X",
        "32K",
        "-B",
        "16K",
        "-p",
        "2",
        "--json",
        "h.json",
        "--csv",
        "h.csv",
    ];
    args.extend_from_slice(extra);
    let o = mpirun_timeout(2, &args, env, dir, RUN_TIMEOUT);
    assert!(o.success(), "h5perf failed\n{}", o.describe());
    let text = std::fs::read_to_string(dir.join("h.json")).expect("h.json");
    let j: J = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (o, j)
}

/// The `key=value;...` text of a fact as pairs.
fn pairs(text: &str) -> Vec<(String, String)> {
    text.split(';')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .unwrap_or_else(|| panic!("{kv:?} in {text:?}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The hints in effect the parameter block shows (`--mpi-info`: a probe file opened by
/// every rank before the run), as pairs, with the number of processes of its title.
fn block_hints(stdout: &str) -> (u32, Vec<(String, String)>) {
    let mut lines = stdout.lines().skip_while(|l| {
        !l.starts_with("rank 0: MPI-IO hints in effect on a probe file opened by ")
    });
    let title = lines
        .next()
        .unwrap_or_else(|| panic!("no hints in effect in the parameter block\n{stdout}"));
    let (procs, items) = title
        .trim_start_matches("rank 0: MPI-IO hints in effect on a probe file opened by ")
        .split_once(" processes: ")
        .unwrap_or_else(|| panic!("{title}"));
    let n: usize = items.trim_end_matches(" items").parse().unwrap();
    let ps: Vec<_> = lines
        .take_while(|l| !l.starts_with("rank 0: ==== End of Parameters"))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("{l:?}"));
            (k.to_string(), v.to_string())
        })
        .collect();
    assert_eq!(ps.len(), n, "{title}\n{stdout}");
    (procs.parse().unwrap(), ps)
}

/// No probe file is left in `dir`.
fn assert_no_probe_left(dir: &Path) {
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.contains("hints_probe")),
        "probe file left: {names:?}"
    );
}

fn value_of<'a>(ps: &'a [(String, String)], key: &str) -> Option<&'a str> {
    ps.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// `--mpi-info cb_nodes=1` with `HDF5_MPI_INFO`: both reach the info object (the report's
/// dump, the results' `mpi_info`, in that order), and for both APIs the hints in effect
/// hold `cb_nodes=1` as the MPI library reports it, in the JSON (after `hosts`, and in
/// every record) and in the CSV.
#[test]
fn cb_nodes_given_on_the_command_line_is_in_effect() {
    let dir = scratch_dir();
    let (o, j) = run_json(
        &["--mpi-info", "cb_nodes=1"],
        &[("HDF5_MPI_INFO", "romio_no_indep_rw=false")],
        dir.path(),
    );
    assert!(
        o.stdout.contains("object has 2 items"),
        "the dump shows both hints\n{}",
        o.stdout
    );
    // in the order applied: HDF5_MPI_INFO's, then --mpi-info's
    assert_eq!(
        j["records"][0]["mpi_info"],
        "romio_no_indep_rw=false;cb_nodes=1"
    );
    for api in ["mpiio", "phdf5"] {
        let key = format!("mpi_hints_in_effect_{api}");
        let text = j[&key]
            .as_str()
            .unwrap_or_else(|| panic!("{key} missing\n{j}"));
        let ps = pairs(text);
        assert_eq!(value_of(&ps, "cb_nodes"), Some("1"), "{key}: {text}");
        for r in j["records"].as_array().unwrap() {
            assert_eq!(r[&key], text, "every record carries it");
        }
    }
    // the parameter block shows the hints in effect before the run, read from a probe
    // file opened by both ranks: those of the data files of this 2-process run
    let (procs, shown) = block_hints(&o.stdout);
    assert_eq!(procs, 2);
    assert_eq!(value_of(&shown, "cb_nodes"), Some("1"), "{shown:?}");
    let mpiio = pairs(j["mpi_hints_in_effect_mpiio"].as_str().unwrap());
    assert_eq!(shown, mpiio, "the probe's hints are the data file's");
    assert_no_probe_left(dir.path());
    let csv = std::fs::read_to_string(dir.path().join("h.csv")).unwrap();
    let rows = parse_csv(&csv);
    let col = rows[0]
        .iter()
        .position(|h| h == "mpi_hints_in_effect_mpiio")
        .expect("CSV column");
    assert_eq!(
        rows[1][col],
        j["mpi_hints_in_effect_mpiio"].as_str().unwrap()
    );
}

/// A hint the MPI library changes: `cb_nodes=1000` on a 2-rank job of one host. ROMIO
/// (MPICH) reports the value it uses, at most the number of processes, and every other
/// hint it applies with its default (`cb_buffer_size`); Open MPI 4.1 hands back the info
/// object as given (its `MPI_File_get_info` returns the hints the file was opened with,
/// for OMPIO and ROMIO alike), so it is recorded as given. Either way the record is what
/// the library says, never a copy of the input made by h5perf.
#[test]
fn a_hint_the_library_changes_is_recorded_as_the_library_reports_it() {
    let dir = scratch_dir();
    let (o, j) = run_json(&["--mpi-info", "cb_nodes=1000"], &[], dir.path());
    // the parameter block shows what the library made of it, as the results record it
    let (_, shown) = block_hints(&o.stdout);
    assert_eq!(
        shown,
        pairs(j["mpi_hints_in_effect_mpiio"].as_str().unwrap()),
        "{}",
        o.stdout
    );
    for api in ["mpiio", "phdf5"] {
        let key = format!("mpi_hints_in_effect_{api}");
        let ps = pairs(
            j[&key]
                .as_str()
                .unwrap_or_else(|| panic!("{key} missing\n{j}")),
        );
        match flavour() {
            Flavour::Mpich => {
                let nodes: u32 = value_of(&ps, "cb_nodes")
                    .unwrap_or_else(|| panic!("{key}: no cb_nodes in {ps:?}"))
                    .parse()
                    .unwrap();
                assert!(
                    (1..=2).contains(&nodes),
                    "{key}: ROMIO clamps cb_nodes: {ps:?}"
                );
                assert!(value_of(&ps, "cb_buffer_size").is_some(), "{key}: {ps:?}");
            }
            Flavour::OpenMpi => {
                assert_eq!(ps, [("cb_nodes".to_string(), "1000".to_string())], "{key}");
            }
        }
    }
}

/// Without hints nothing is read back or recorded; a malformed `--mpi-info` is refused
/// before any I/O, with the reason.
#[test]
fn no_hints_no_record_and_malformed_hints_refused() {
    let dir = scratch_dir();
    let (o, j) = run_json(&[], &[], dir.path());
    assert!(!o.stdout.contains("hints in effect"), "{}", o.stdout);
    assert!(j.get("mpi_hints_in_effect_mpiio").is_none(), "{j}");
    assert!(j.get("mpi_hints_in_effect_phdf5").is_none(), "{j}");
    for bad in ["cb_nodes", "=1", "a=1;b=2"] {
        let o = mpirun_timeout(1, &["--mpi-info", bad], &[], dir.path(), RUN_TIMEOUT);
        assert!(!o.success(), "{bad}: {}", o.describe());
        assert!(
            o.stderr
                .contains(&format!("invalid value '{bad}' for --mpi-info")),
            "{bad}: {}",
            o.describe()
        );
    }
    // a hint with a newline would forge a line of the report's info dump (issue 35, class 5)
    let forged = "a=1\n   Maximum Throughput: 88888.88 MB/s";
    let o = mpirun_timeout(1, &["--mpi-info", forged], &[], dir.path(), RUN_TIMEOUT);
    assert!(!o.success(), "{}", o.describe());
    assert!(o.stderr.contains("control character"), "{}", o.describe());
    assert!(!o.stdout.contains("88888.88"), "{}", o.describe());
}

/// A key given twice in `HDF5_MPI_INFO` works as with the C tool, whose `MPI_Info_set`
/// calls let the last value replace the first (spec §2.4; it was refused before): the
/// key keeps its first place with its last value in the report's dump and the results,
/// the MPI library gets that value, and rank 0 alone warns once on stderr. A key of
/// `--mpi-info` already in `HDF5_MPI_INFO` replaces its value the same way.
#[test]
fn a_key_given_twice_takes_its_last_value_with_a_warning() {
    let dir = scratch_dir();
    let (o, j) = run_json(
        &["--mpi-info", "romio_no_indep_rw=true"],
        &[(
            "HDF5_MPI_INFO",
            "cb_nodes=1000;romio_no_indep_rw=false; cb_nodes = 1",
        )],
        dir.path(),
    );
    assert!(
        o.stdout
            .contains("object has 2 items\ncb_nodes=1\nromio_no_indep_rw=true\n"),
        "{}",
        o.describe()
    );
    assert_eq!(
        j["records"][0]["mpi_info"],
        "cb_nodes=1;romio_no_indep_rw=true"
    );
    for api in ["mpiio", "phdf5"] {
        let key = format!("mpi_hints_in_effect_{api}");
        let ps = pairs(j[&key].as_str().unwrap_or_else(|| panic!("{key}\n{j}")));
        assert_eq!(value_of(&ps, "cb_nodes"), Some("1"), "{key}: {ps:?}");
    }
    let warnings: Vec<&str> = o.stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(
        warnings,
        [
            "h5perf: warning: HDF5_MPI_INFO gives a key more than once; the last value \
          holds, as MPI_Info_set does: cb_nodes=1"
        ],
        "{}",
        o.describe()
    );
}
