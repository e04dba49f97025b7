//! File-layout tests: with `HDF5_NOCLEANUP=1 -D v` (every rank writes the byte value
//! rank+1) and a single configuration (`-p N -P N -x B -X B`), the files left behind must
//! hold exactly the byte map the access pattern defines (spec §6.1–6.3, §6.5, §9).
//!
//! The expected maps are computed here from the pattern definitions, independently of the
//! implementation:
//! * the file holds the nd datasets back to back; dataset d starts at (d-1)·D, D = bpp·N;
//! * contiguous pattern: rank r owns bytes [r·bpp, (r+1)·bpp) of each dataset;
//! * interleaved pattern: the dataset is a sequence of rounds of N blocks of blk bytes,
//!   round m holding block m of every rank in rank order.
//!
//!
//! HDF5 files are read back with `h5dump` (Dataset_1 … Dataset_nd, 1-D, unsigned bytes,
//! chunked with chunk = block size with `-c`, contiguous otherwise).

mod common;

use common::*;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

#[derive(Clone, Copy, Debug)]
struct Cfg {
    bpp: u64,
    buf: u64,
    blk: u64,
    nd: u64,
    nf: u64,
}

const CFG_SMALL: Cfg = Cfg {
    bpp: 8,
    buf: 4,
    blk: 2,
    nd: 1,
    nf: 1,
};
const CFG_MULTI: Cfg = Cfg {
    bpp: 4,
    buf: 4,
    blk: 2,
    nd: 2,
    nf: 2,
};
const CFG_WIDE: Cfg = Cfg {
    bpp: 16,
    buf: 8,
    blk: 2,
    nd: 1,
    nf: 1,
};

/// Expected content of one dataset: D = bpp·np bytes, each the writer's rank + 1.
fn expected_dataset(np: u64, cfg: Cfg, interleaved: bool) -> Vec<u8> {
    let d = cfg.bpp * np;
    (0..d)
        .map(|i| {
            let owner = if interleaved {
                // block index i/blk = round·np + rank
                (i / cfg.blk) % np
            } else {
                i / cfg.bpp
            };
            (owner + 1) as u8
        })
        .collect()
}

/// "112233…" → bytes 1,1,2,2,3,3 (the notation of the spec's worked examples).
fn digits(s: &str) -> Vec<u8> {
    s.bytes().map(|b| b - b'0').collect()
}

fn show(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| if b <= 9 { (b'0' + b) as char } else { '?' })
        .collect::<String>()
}

struct Job {
    np: u64,
    cfg: Cfg,
    interleaved: bool,
    flags: &'static [&'static str],
    apis: &'static [&'static str],
}

impl Job {
    fn args(&self) -> Vec<String> {
        let c = self.cfg;
        let mut a: Vec<String> = vec![
            "-D".into(),
            "v".into(),
            "-A".into(),
            self.apis.join(","),
            "-p".into(),
            self.np.to_string(),
            "-P".into(),
            self.np.to_string(),
            "-e".into(),
            c.bpp.to_string(),
            "-x".into(),
            c.buf.to_string(),
            "-X".into(),
            c.buf.to_string(),
            "-B".into(),
            c.blk.to_string(),
            "-d".into(),
            c.nd.to_string(),
            "-F".into(),
            c.nf.to_string(),
        ];
        if self.interleaved {
            a.push("-I".into());
        }
        a.extend(self.flags.iter().map(|s| s.to_string()));
        a
    }

    fn chunked(&self) -> bool {
        self.flags.contains(&"-c")
    }

    /// Runs the job with HDF5_NOCLEANUP=1 in `dir` and checks the run itself.
    fn run(&self, dir: &Path) -> Outcome {
        let args = self.args();
        let argv: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o = mpirun(self.np as usize, &argv, &[("HDF5_NOCLEANUP", "1")], dir);
        assert_eq!(o.status, Some(0), "run failed\n{}", o.describe());
        assert!(
            o.stderr_clean().trim().is_empty(),
            "unexpected stderr\n{}",
            o.describe()
        );
        assert!(
            !o.stdout.contains("read data error"),
            "verification (-D v) failed\n{}",
            o.describe()
        );
        assert!(
            o.stdout
                .contains(&format!("Number of processors = {}\n", self.np)),
            "the {}-process step did not run\n{}",
            self.np,
            o.describe()
        );
        let steps = o.stdout.matches("Transfer Buffer Size: ").count();
        assert_eq!(
            steps,
            1,
            "exactly one configuration must run\n{}",
            o.describe()
        );
        o
    }

    /// Checks the files left in `dir` against the expected byte map.
    fn check_files(&self, dir: &Path, o: &Outcome) {
        let c = self.cfg;
        let d = c.bpp * self.np;
        let ds = expected_dataset(self.np, c, self.interleaved);
        let whole: Vec<u8> = (0..c.nd).flat_map(|_| ds.iter().copied()).collect();
        let ctx = format!(
            "{}\n(np {}, cfg {:?}, interleaved {})",
            o.cmdline, self.np, c, self.interleaved
        );

        let mut expected_names = BTreeSet::new();
        for api in self.apis {
            let suffix = match *api {
                "posix" => "posix",
                "mpiio" => "mpio",
                "phdf5" => "h5",
                other => panic!("unknown api {other}"),
            };
            for f in 1..=c.nf {
                expected_names.insert(format!("#pio_tmp_{f}.{suffix}"));
            }
        }
        let found: BTreeSet<String> = pio_tmp_files(dir).into_iter().collect();
        assert_eq!(
            found, expected_names,
            "files kept with HDF5_NOCLEANUP\n{ctx}"
        );

        for name in &expected_names {
            let path = dir.join(name);
            if name.ends_with(".posix") || name.ends_with(".mpio") {
                let bytes = fs::read(&path).unwrap();
                assert_eq!(
                    bytes.len() as u64,
                    c.nd * d,
                    "size of {name} must be nd×D\n{ctx}"
                );
                assert_eq!(
                    show(&bytes),
                    show(&whole),
                    "content of {name} (one digit per byte: writer rank+1; left got, right expected)\n{ctx}"
                );
                if name.ends_with(".posix") {
                    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
                    assert_eq!(
                        mode, 0o600,
                        "mode of {name} must be 0600, is {mode:o}\n{ctx}"
                    );
                }
            } else {
                self.check_h5(&path, d, &ds, &ctx);
            }
        }
    }

    fn check_h5(&self, path: &Path, d: u64, ds: &[u8], ctx: &str) {
        let c = self.cfg;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let listed = h5_list(path);
        let expected: Vec<(String, String)> = (1..=c.nd)
            .map(|k| (format!("Dataset_{k}"), format!("Dataset {{{d}}}")))
            .collect();
        let mut listed_sorted = listed.clone();
        listed_sorted.sort();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort();
        assert_eq!(
            listed_sorted, expected_sorted,
            "objects in {name} (h5ls)\n{ctx}"
        );
        for k in 1..=c.nd {
            let dset = format!("/Dataset_{k}");
            let got = h5_dataset_bytes(path, &dset);
            assert_eq!(show(&got), show(ds), "content of {name}:{dset}\n{ctx}");

            let props = h5_dataset_properties(path, &dset);
            let norm: String = props.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                norm.contains("DATATYPE H5T_STD_U8LE"),
                "{name}:{dset} type\n{props}\n{ctx}"
            );
            assert!(
                norm.contains(&format!("DATASPACE SIMPLE {{ ( {d} ) / ( {d} ) }}")),
                "{name}:{dset} dataspace must be [{d}]\n{props}\n{ctx}"
            );
            let layout = if self.chunked() {
                format!("STORAGE_LAYOUT {{ CHUNKED ( {} )", c.blk)
            } else {
                "STORAGE_LAYOUT { CONTIGUOUS".to_string()
            };
            assert!(
                norm.contains(&layout),
                "{name}:{dset} must have `{layout}`\n{props}\n{ctx}"
            );
            for p in [
                "H5D_FILL_TIME_IFSET",
                "H5D_FILL_VALUE_DEFAULT",
                "H5D_ALLOC_TIME_EARLY",
                "FILTERS { NONE }",
            ] {
                assert!(
                    norm.contains(p),
                    "{name}:{dset} must show {p}\n{props}\n{ctx}"
                );
            }
        }
    }
}

const ALL_APIS: &[&str] = &["posix", "mpiio", "phdf5"];
const HDF5_ONLY: &[&str] = &["phdf5"];

/// The flag sets run for each configuration and pattern: independent and collective
/// I/O for all APIs (POSIX ignores -C), and PHDF5 chunked storage with both I/O modes.
const FLAG_SETS: &[(&[&str], &[&str])] = &[
    (&[], ALL_APIS),
    (&["-C"], ALL_APIS),
    (&["-c"], HDF5_ONLY),
    (&["-C", "-c"], HDF5_ONLY),
];

fn layout_matrix(np: u64, cfg: Cfg) {
    for interleaved in [false, true] {
        for (flags, apis) in FLAG_SETS {
            let job = Job {
                np,
                cfg,
                interleaved,
                flags,
                apis,
            };
            let dir = scratch_dir();
            let o = job.run(dir.path());
            job.check_files(dir.path(), &o);
        }
    }
}

#[test]
fn model_matches_the_spec_worked_examples() {
    // The independent model above reproduces the spec's pictures (§6.7).
    assert_eq!(
        expected_dataset(3, CFG_SMALL, false),
        digits("111111112222222233333333")
    );
    assert_eq!(
        expected_dataset(3, CFG_SMALL, true),
        digits("112233112233112233112233")
    );
    assert_eq!(expected_dataset(2, CFG_MULTI, true), digits("11221122"));
    let one = Cfg {
        blk: 1,
        ..CFG_SMALL
    };
    assert_eq!(
        &expected_dataset(3, one, true)[..12],
        &digits("123123123123")[..]
    );
}

#[test]
fn layout_small_np2() {
    layout_matrix(2, CFG_SMALL);
}

#[test]
fn layout_small_np3() {
    layout_matrix(3, CFG_SMALL);
}

#[test]
fn layout_multi_files_and_datasets_np2() {
    layout_matrix(2, CFG_MULTI);
}

#[test]
fn layout_multi_files_and_datasets_np3() {
    layout_matrix(3, CFG_MULTI);
}

#[test]
fn layout_wide_np2() {
    layout_matrix(2, CFG_WIDE);
}

#[test]
fn layout_wide_np3() {
    layout_matrix(3, CFG_WIDE);
}

/// Runs one worked example with all APIs and checks the literal maps of the spec.
fn worked_example(np: u64, cfg: Cfg, interleaved: bool, raw_file: &str, dataset: &str) {
    let job = Job {
        np,
        cfg,
        interleaved,
        flags: &[],
        apis: ALL_APIS,
    };
    let dir = scratch_dir();
    let o = job.run(dir.path());
    for f in 1..=cfg.nf {
        for sfx in ["posix", "mpio"] {
            let name = format!("#pio_tmp_{f}.{sfx}");
            let bytes = fs::read(dir.path().join(&name))
                .unwrap_or_else(|e| panic!("{name}: {e}\n{}", o.describe()));
            assert_eq!(show(&bytes), raw_file, "{name}\n{}", o.cmdline);
        }
        let h5 = dir.path().join(format!("#pio_tmp_{f}.h5"));
        for k in 1..=cfg.nd {
            let got = h5_dataset_bytes(&h5, &format!("/Dataset_{k}"));
            assert_eq!(
                show(&got),
                dataset,
                "{}:/Dataset_{k}\n{}",
                h5.display(),
                o.cmdline
            );
        }
    }
    // And the generic checks (sizes, modes, layout properties).
    job.check_files(dir.path(), &o);
}

#[test]
fn worked_example_1_contiguous_3_procs() {
    // -e 8 -x 4 -X 4 -B 2 -p 3 -P 3
    worked_example(
        3,
        CFG_SMALL,
        false,
        "111111112222222233333333",
        "111111112222222233333333",
    );
}

#[test]
fn worked_example_2_interleaved_3_procs() {
    // -e 8 -x 4 -X 4 -B 2 -p 3 -P 3 -I
    worked_example(
        3,
        CFG_SMALL,
        true,
        "112233112233112233112233",
        "112233112233112233112233",
    );
}

#[test]
fn worked_example_4_datasets_and_files() {
    // -e 4 -x 4 -X 4 -B 2 -I -d 2 -F 2 -p 2 -P 2
    worked_example(2, CFG_MULTI, true, "1122112211221122", "11221122");
}

#[test]
fn files_are_removed_without_nocleanup_and_kept_with_empty_nocleanup() {
    let args = [
        "-A",
        "posix,mpiio,phdf5",
        "-e",
        "8",
        "-x",
        "4",
        "-X",
        "8",
        "-B",
        "2",
        "-d",
        "2",
        "-F",
        "2",
        "-I",
        "-i",
        "2",
    ];
    let dir = scratch_dir();
    let o = mpirun(2, &args, &[], dir.path());
    assert_eq!(o.status, Some(0), "{}", o.describe());
    assert!(
        o.stdout.contains("Throughput"),
        "no results\n{}",
        o.describe()
    );
    let left = dir_entries(dir.path());
    assert!(
        left.is_empty(),
        "files left after a normal run: {left:?}\n{}",
        o.cmdline
    );

    // HDF5_NOCLEANUP counts when it exists, whatever its value (even empty).
    let dir = scratch_dir();
    let o = mpirun(2, &args, &[("HDF5_NOCLEANUP", "")], dir.path());
    assert_eq!(o.status, Some(0), "{}", o.describe());
    let kept = pio_tmp_files(dir.path());
    let expected: Vec<String> = {
        let mut v: Vec<String> = ["h5", "mpio", "posix"]
            .iter()
            .flat_map(|s| (1..=2).map(move |f| format!("#pio_tmp_{f}.{s}")))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        kept, expected,
        "HDF5_NOCLEANUP= (empty) must keep the files\n{}",
        o.cmdline
    );
}
