//! 2D file-layout tests (`-g`): with `HDF5_NOCLEANUP=1 -D v` (every rank writes the byte
//! value rank+1) and a single configuration (`-p N -P N -x B -X B`), the files left behind
//! must hold exactly the byte map the 2D access pattern defines (spec §6.1, §6.4, §6.7
//! Example 3).
//!
//! The expected maps are computed here from the pattern *definitions*, independently of
//! the implementation (S = bpp·N, the dataset is an S×S byte matrix):
//! * contiguous pattern: rank r owns rows [r·bpp, (r+1)·bpp);
//! * interleaved pattern: column group g (columns [g·blk, (g+1)·blk)) belongs to rank
//!   g mod N;
//! * POSIX / MPI-IO files without `-c`: the matrix row-major, dataset d at (d−1)·S²;
//! * with `-c` (chunked simulation): blk×blk chunks stored whole, chunk (I, J) of the
//!   (S/blk)×(S/blk) grid at (I·S/blk + J)·blk², each chunk row-major inside;
//! * PHDF5: `Dataset_1..Dataset_nd`, dims [S, S], unsigned bytes, the logical matrix
//!   whatever `-c` says; chunked with chunk dims blk×blk with `-c`, contiguous otherwise.
//!
//! A pure test checks that this model reproduces the worked Example 3 (a)–(d) literally,
//! and that the per-transfer offset formulas of §6.4 (simulated here) write every byte
//! exactly once and produce the same maps for a grid of geometries — i.e. the spec's
//! general description and its formulas agree wherever the run is accepted.
//!
//! Finally the refusals of 2D configurations the reference cannot run (§6.6, §11) must
//! happen before any I/O.

mod common;

use common::*;
use h5perf::pattern::{Pattern, Pattern2D, Piece};
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// Hard limit of one tiny layout run (they take well under a second).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// Refused runs must end quickly: validation happens before any I/O.
const ERROR_TIMEOUT: Duration = Duration::from_secs(10);

/// One 2D configuration: N processes, `-e bpp -x buf -X buf -B blk -d nd -F nf`.
#[derive(Clone, Copy, Debug)]
struct Geo {
    np: u64,
    bpp: u64,
    buf: u64,
    blk: u64,
    nd: u64,
    nf: u64,
}

impl Geo {
    /// Side S of the square dataset.
    fn side(&self) -> u64 {
        self.bpp * self.np
    }
}

/// Spec §6.7 Example 3: `-g -e 4 -B 2 -x 4 -X 4 -p 2 -P 2` (S = 8).
const EX3: Geo = Geo {
    np: 2,
    bpp: 4,
    buf: 4,
    blk: 2,
    nd: 1,
    nf: 1,
};

// ---------------------------------------------------------------------------------------
// The independent model
// ---------------------------------------------------------------------------------------

/// Rank owning logical element (row, col) of a dataset.
fn owner(g: Geo, interleaved: bool, row: u64, col: u64) -> u64 {
    if interleaved {
        (col / g.blk) % g.np
    } else {
        row / g.bpp
    }
}

/// The logical S×S matrix, row-major, each byte the owner's rank + 1.
fn logical_matrix(g: Geo, interleaved: bool) -> Vec<u8> {
    let s = g.side();
    (0..s * s)
        .map(|p| (owner(g, interleaved, p / s, p % s) + 1) as u8)
        .collect()
}

/// Logical (row, col) stored at byte `p` of a dataset in the simulated chunked layout:
/// chunk (I, J) at (I·S/blk + J)·blk², row-major inside the chunk.
fn chunk_position(g: Geo, p: u64) -> (u64, u64) {
    let (s, b) = (g.side(), g.blk);
    let (chunk, within) = (p / (b * b), p % (b * b));
    let (ci, cj) = (chunk / (s / b), chunk % (s / b));
    (ci * b + within / b, cj * b + within % b)
}

/// Expected bytes of one dataset in a POSIX / MPI-IO file.
fn raw_dataset(g: Geo, interleaved: bool, chunked: bool) -> Vec<u8> {
    if !chunked {
        return logical_matrix(g, interleaved);
    }
    let s = g.side();
    (0..s * s)
        .map(|p| {
            let (row, col) = chunk_position(g, p);
            (owner(g, interleaved, row, col) + 1) as u8
        })
        .collect()
}

/// Expected bytes of a whole POSIX / MPI-IO file: nd datasets back to back.
fn raw_file(g: Geo, interleaved: bool, chunked: bool) -> Vec<u8> {
    let ds = raw_dataset(g, interleaved, chunked);
    (0..g.nd).flat_map(|_| ds.iter().copied()).collect()
}

// ---------------------------------------------------------------------------------------
// The offsets of spec §6.4 as the library computes them (h5perf::pattern::Pattern2D)
// ---------------------------------------------------------------------------------------

/// Replays the transfers of every rank on dataset 1 of a raw file with the pieces the
/// library's `Pattern2D` gives (transfers k ≤ `last_k` only, all when `None`). Returns,
/// per byte, the (rank, transfer) that wrote it; fails on a byte written twice or outside
/// the dataset.
fn simulate_raw(
    g: Geo,
    interleaved: bool,
    chunked: bool,
    last_k: Option<u64>,
) -> Vec<Option<(u64, u64)>> {
    let s = g.side();
    let mut map = vec![None; (s * s) as usize];
    for r in 0..g.np {
        let p = Pattern::D2(Pattern2D {
            bpp: g.bpp,
            buf: g.buf,
            blk: g.blk,
            nprocs: g.np,
            rank: r,
            interleaved,
            chunked,
        });
        for k in 0..p.transfers() {
            if last_k.is_some_and(|m| k > m) {
                break;
            }
            for i in 0..p.pieces_per_transfer() {
                let Piece {
                    file_off: o, len, ..
                } = p.piece(k, i);
                for b in o..o + len {
                    assert!(
                        b < s * s,
                        "{g:?} interleaved {interleaved} chunked {chunked}: rank {r} transfer {k} \
                         writes byte {b} beyond the dataset ({} bytes)",
                        s * s
                    );
                    let cell = &mut map[b as usize];
                    assert!(
                        cell.is_none(),
                        "{g:?} interleaved {interleaved} chunked {chunked}: byte {b} written by \
                         {cell:?} and again by rank {r} transfer {k}"
                    );
                    *cell = Some((r, k));
                }
            }
        }
    }
    map
}

/// Writer digits (rank+1, `-` for unwritten) of a simulated map.
fn writers(map: &[Option<(u64, u64)>]) -> String {
    map.iter()
        .map(|c| match c {
            Some((r, _)) => char::from_digit((r + 1) as u32, 36).unwrap(),
            None => '-',
        })
        .collect()
}

/// Transfer-index digits of a simulated map.
fn transfer_indices(map: &[Option<(u64, u64)>]) -> String {
    map.iter()
        .map(|c| match c {
            Some((_, k)) => char::from_digit(*k as u32, 36).unwrap(),
            None => '-',
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Notation helpers
// ---------------------------------------------------------------------------------------

/// "1122" → bytes 1,1,2,2 (the notation of the spec's worked examples).
fn digits(s: &str) -> Vec<u8> {
    s.bytes().map(|b| b - b'0').collect()
}

/// Bytes as digits (`?` for anything above 9).
fn show(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| if b <= 9 { (b'0' + b) as char } else { '?' })
        .collect()
}

/// A row-major S×S text shown as S lines (for readable assertion messages).
fn as_rows(text: &str, side: u64) -> String {
    let side = side as usize;
    text.as_bytes()
        .chunks(side)
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows of a literal 8×8 map concatenated.
fn joined(rows: &[&str]) -> String {
    rows.concat()
}

// Spec §6.7 Example 3, literally.
const EX3_A_TRANSFER0: [&str; 8] = [
    "1111----", "1111----", "--------", "--------", "2222----", "2222----", "--------", "--------",
];
const EX3_A_INDEX: [&str; 8] = [
    "00001111", "00001111", "22223333", "22223333", "00001111", "00001111", "22223333", "22223333",
];
const EX3_A_FINAL: [&str; 8] = [
    "11111111", "11111111", "11111111", "11111111", "22222222", "22222222", "22222222", "22222222",
];
const EX3_B_TRANSFER0: [&str; 8] = [
    "1122----", "1122----", "1122----", "1122----", "--------", "--------", "--------", "--------",
];
const EX3_B_INDEX: [&str; 8] = [
    "00001111", "00001111", "00001111", "00001111", "22223333", "22223333", "22223333", "22223333",
];
const EX3_B_FINAL: [&str; 8] = [
    "11221122", "11221122", "11221122", "11221122", "11221122", "11221122", "11221122", "11221122",
];
const EX3_C_TRANSFER0: &str = "11111111------------------------22222222------------------------";
const EX3_C_FINAL: &str = "1111111111111111111111111111111122222222222222222222222222222222";
const EX3_D_TRANSFER0: &str = "11112222--------11112222----------------------------------------";
const EX3_D_FINAL: &str = "1111222211112222111122221111222211112222111122221111222211112222";

// ---------------------------------------------------------------------------------------
// Running h5perf and checking the files
// ---------------------------------------------------------------------------------------

const ALL_APIS: &str = "posix,mpiio,phdf5";

struct Job {
    geo: Geo,
    interleaved: bool,
    chunked: bool,
    collective: bool,
}

impl Job {
    fn args(&self) -> Vec<String> {
        let g = self.geo;
        let mut a: Vec<String> = [
            "-g",
            "-D",
            "v",
            "-A",
            ALL_APIS,
            "-p",
            &g.np.to_string(),
            "-P",
            &g.np.to_string(),
            "-e",
            &g.bpp.to_string(),
            "-x",
            &g.buf.to_string(),
            "-X",
            &g.buf.to_string(),
            "-B",
            &g.blk.to_string(),
            "-d",
            &g.nd.to_string(),
            "-F",
            &g.nf.to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if self.interleaved {
            a.push("-I".into());
        }
        if self.chunked {
            a.push("-c".into());
        }
        if self.collective {
            a.push("-C".into());
        }
        a
    }

    /// Runs the job with HDF5_NOCLEANUP=1 in `dir` and checks the run itself.
    fn run(&self, dir: &Path) -> Outcome {
        let args = self.args();
        let argv: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o = mpirun_timeout(
            self.geo.np as usize,
            &argv,
            &[("HDF5_NOCLEANUP", "1")],
            dir,
            RUN_TIMEOUT,
        );
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
                .contains(&format!("Number of processors = {}\n", self.geo.np)),
            "the {}-process step did not run\n{}",
            self.geo.np,
            o.describe()
        );
        // One configuration; the 2D buffer is rows x columns: blk x buf (contiguous
        // pattern), buf x blk (interleaved pattern).
        let (rows, cols) = if self.interleaved {
            (self.geo.buf, self.geo.blk)
        } else {
            (self.geo.blk, self.geo.buf)
        };
        let steps: Vec<&str> = o
            .stdout
            .lines()
            .filter(|l| l.starts_with("Transfer Buffer Size: "))
            .collect();
        assert_eq!(
            steps.len(),
            1,
            "exactly one configuration must run\n{}",
            o.describe()
        );
        assert!(
            steps[0].starts_with(&format!("Transfer Buffer Size: {rows}x{cols} bytes,")),
            "2D buffer header must be {rows}x{cols}\n{}",
            o.describe()
        );
        for api in ["POSIX", "MPIO", "PHDF5 (w/MPI-IO driver)"] {
            assert!(
                o.stdout.contains(&format!("        IO API = {api}\n")),
                "API {api} did not run\n{}",
                o.describe()
            );
        }
        o
    }

    fn context(&self, o: &Outcome) -> String {
        format!(
            "{}\n({:?}, interleaved {}, chunked {}, collective {})",
            o.cmdline, self.geo, self.interleaved, self.chunked, self.collective
        )
    }

    /// Checks the files left in `dir` against the model.
    fn check_files(&self, dir: &Path, o: &Outcome) {
        let g = self.geo;
        let s = g.side();
        let ctx = self.context(o);

        let mut expected_names = BTreeSet::new();
        for sfx in ["posix", "mpio", "h5"] {
            for f in 1..=g.nf {
                expected_names.insert(format!("#pio_tmp_{f}.{sfx}"));
            }
        }
        let found: BTreeSet<String> = pio_tmp_files(dir).into_iter().collect();
        assert_eq!(
            found, expected_names,
            "files kept with HDF5_NOCLEANUP\n{ctx}"
        );

        let whole = raw_file(g, self.interleaved, self.chunked);
        let logical = logical_matrix(g, self.interleaved);
        for name in &expected_names {
            let path = dir.join(name);
            if name.ends_with(".h5") {
                self.check_h5(&path, &logical, &ctx);
                continue;
            }
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}\n{ctx}"));
            assert_eq!(
                bytes.len() as u64,
                g.nd * s * s,
                "size of {name} must be nd×S² = {}×{}²\n{ctx}",
                g.nd,
                s
            );
            if bytes != whole {
                let first = bytes.iter().zip(&whole).position(|(a, b)| a != b);
                panic!(
                    "content of {name} differs (one digit per byte: writer rank+1), first \
                     difference at byte {first:?}\n--- got ---\n{}\n--- expected ---\n{}\n{ctx}",
                    as_rows(&show(&bytes), s),
                    as_rows(&show(&whole), s)
                );
            }
            if name.ends_with(".posix") {
                let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
                assert_eq!(
                    mode, 0o600,
                    "mode of {name} must be 0600, is {mode:o}\n{ctx}"
                );
            }
        }
    }

    fn check_h5(&self, path: &Path, logical: &[u8], ctx: &str) {
        let g = self.geo;
        let s = g.side();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut listed = h5_list(path);
        listed.sort();
        let mut expected: Vec<(String, String)> = (1..=g.nd)
            .map(|k| (format!("Dataset_{k}"), format!("Dataset {{{s}, {s}}}")))
            .collect();
        expected.sort();
        assert_eq!(listed, expected, "objects in {name} (h5ls)\n{ctx}");
        for k in 1..=g.nd {
            let dset = format!("/Dataset_{k}");
            let got = h5_dataset_bytes(path, &dset);
            assert_eq!(
                as_rows(&show(&got), s),
                as_rows(&show(logical), s),
                "logical content of {name}:{dset} (left got, right expected)\n{ctx}"
            );

            let props = h5_dataset_properties(path, &dset);
            let norm: String = props.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                norm.contains("DATATYPE H5T_STD_U8LE"),
                "{name}:{dset} type\n{props}\n{ctx}"
            );
            assert!(
                norm.contains(&format!(
                    "DATASPACE SIMPLE {{ ( {s}, {s} ) / ( {s}, {s} ) }}"
                )),
                "{name}:{dset} dataspace must be [{s}, {s}]\n{props}\n{ctx}"
            );
            let layout = if self.chunked {
                format!("STORAGE_LAYOUT {{ CHUNKED ( {b}, {b} )", b = g.blk)
            } else {
                "STORAGE_LAYOUT { CONTIGUOUS".to_string()
            };
            assert!(
                norm.contains(&layout),
                "{name}:{dset} must have `{layout}`\n{props}\n{ctx}"
            );
        }
    }
}

/// Runs every combination of pattern, chunking and I/O mode for one geometry (all three
/// APIs per run) and checks the files.
fn layout_matrix(geo: Geo) {
    for interleaved in [false, true] {
        for chunked in [false, true] {
            for collective in [false, true] {
                let job = Job {
                    geo,
                    interleaved,
                    chunked,
                    collective,
                };
                let dir = scratch_dir();
                let o = job.run(dir.path());
                job.check_files(dir.path(), &o);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn model_reproduces_example_3_maps() {
    // Final maps: logical matrices (a), (b) and chunked files (c), (d).
    assert_eq!(show(&logical_matrix(EX3, false)), joined(&EX3_A_FINAL));
    assert_eq!(show(&logical_matrix(EX3, true)), joined(&EX3_B_FINAL));
    assert_eq!(show(&raw_dataset(EX3, false, false)), joined(&EX3_A_FINAL));
    assert_eq!(show(&raw_dataset(EX3, true, false)), joined(&EX3_B_FINAL));
    assert_eq!(show(&raw_dataset(EX3, false, true)), EX3_C_FINAL);
    assert_eq!(raw_dataset(EX3, true, true), digits(EX3_D_FINAL));
    // (d): read as chunks, the chunked file is the logical matrix (b).
    let d = raw_dataset(EX3, true, true);
    let mut back = vec![0u8; 64];
    for (p, &v) in d.iter().enumerate() {
        let (row, col) = chunk_position(EX3, p as u64);
        back[(row * 8 + col) as usize] = v;
    }
    assert_eq!(show(&back), joined(&EX3_B_FINAL));

    // The §6.4 offset formulas give the spec's per-transfer pictures and final maps.
    let a0 = simulate_raw(EX3, false, false, Some(0));
    assert_eq!(writers(&a0), joined(&EX3_A_TRANSFER0));
    let a = simulate_raw(EX3, false, false, None);
    assert_eq!(transfer_indices(&a), joined(&EX3_A_INDEX));
    assert_eq!(writers(&a), joined(&EX3_A_FINAL));

    let b0 = simulate_raw(EX3, true, false, Some(0));
    assert_eq!(writers(&b0), joined(&EX3_B_TRANSFER0));
    let b = simulate_raw(EX3, true, false, None);
    assert_eq!(transfer_indices(&b), joined(&EX3_B_INDEX));
    assert_eq!(writers(&b), joined(&EX3_B_FINAL));

    assert_eq!(
        writers(&simulate_raw(EX3, false, true, Some(0))),
        EX3_C_TRANSFER0
    );
    assert_eq!(writers(&simulate_raw(EX3, false, true, None)), EX3_C_FINAL);
    assert_eq!(
        writers(&simulate_raw(EX3, true, true, Some(0))),
        EX3_D_TRANSFER0
    );
    assert_eq!(writers(&simulate_raw(EX3, true, true, None)), EX3_D_FINAL);
}

#[test]
fn spec_offset_formulas_agree_with_the_model() {
    // For every accepted geometry (blk | bpp, blk | buf, buf | S) the §6.4 formulas write
    // each byte of the dataset exactly once (simulate_raw fails otherwise) and the result
    // is the model's map, with and without the chunked simulation.
    let mut checked = 0;
    for np in 1..=4u64 {
        for blk in 1..=4u64 {
            for bpp in (blk..=12).step_by(blk as usize) {
                let s = bpp * np;
                for buf in (blk..=s).step_by(blk as usize) {
                    if s % buf != 0 {
                        continue;
                    }
                    let g = Geo {
                        np,
                        bpp,
                        buf,
                        blk,
                        nd: 1,
                        nf: 1,
                    };
                    for interleaved in [false, true] {
                        for chunked in [false, true] {
                            let sim = simulate_raw(g, interleaved, chunked, None);
                            assert_eq!(
                                writers(&sim),
                                show(&raw_dataset(g, interleaved, chunked)),
                                "{g:?} interleaved {interleaved} chunked {chunked}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} geometries checked");
}

#[test]
fn worked_example_3_files() {
    // -g -e 4 -B 2 -x 4 -X 4 -p 2 -P 2, variants (a)–(d), independent and collective.
    for (interleaved, chunked, raw, logical) in [
        (false, false, joined(&EX3_A_FINAL), joined(&EX3_A_FINAL)),
        (true, false, joined(&EX3_B_FINAL), joined(&EX3_B_FINAL)),
        (false, true, EX3_C_FINAL.to_string(), joined(&EX3_A_FINAL)),
        (true, true, EX3_D_FINAL.to_string(), joined(&EX3_B_FINAL)),
    ] {
        for collective in [false, true] {
            let job = Job {
                geo: EX3,
                interleaved,
                chunked,
                collective,
            };
            let dir = scratch_dir();
            let o = job.run(dir.path());
            let ctx = job.context(&o);
            for sfx in ["posix", "mpio"] {
                let name = format!("#pio_tmp_1.{sfx}");
                let bytes = fs::read(dir.path().join(&name))
                    .unwrap_or_else(|e| panic!("{name}: {e}\n{ctx}"));
                assert_eq!(show(&bytes), raw, "{name} (left got, right spec)\n{ctx}");
            }
            let h5 = dir.path().join("#pio_tmp_1.h5");
            let got = h5_dataset_bytes(&h5, "/Dataset_1");
            assert_eq!(
                as_rows(&show(&got), 8),
                as_rows(&logical, 8),
                "#pio_tmp_1.h5:/Dataset_1 (left got, right spec)\n{ctx}"
            );
            job.check_files(dir.path(), &o);
        }
    }
}

#[test]
fn layout_np2_e8_b2_x4() {
    layout_matrix(Geo {
        np: 2,
        bpp: 8,
        buf: 4,
        blk: 2,
        nd: 1,
        nf: 1,
    });
}

#[test]
fn layout_np2_buffer_wider_than_bpp() {
    // -e 4 -B 2 -x 8 -X 8: 2D does not cap the transfer size by bpp (buf = S = 8).
    layout_matrix(Geo {
        np: 2,
        bpp: 4,
        buf: 8,
        blk: 2,
        nd: 1,
        nf: 1,
    });
}

#[test]
fn layout_np3_e6_b3_x6() {
    layout_matrix(Geo {
        np: 3,
        bpp: 6,
        buf: 6,
        blk: 3,
        nd: 1,
        nf: 1,
    });
}

#[test]
fn layout_np3_datasets_and_files() {
    layout_matrix(Geo {
        np: 3,
        bpp: 4,
        buf: 4,
        blk: 2,
        nd: 2,
        nf: 2,
    });
}

#[test]
fn layout_np4_datasets_and_files() {
    layout_matrix(Geo {
        np: 4,
        bpp: 4,
        buf: 4,
        blk: 2,
        nd: 2,
        nf: 2,
    });
}

#[test]
fn layout_np2_large_blocks() {
    // S = 16, blk = 4 (16-byte chunks), buf = S.
    layout_matrix(Geo {
        np: 2,
        bpp: 8,
        buf: 16,
        blk: 4,
        nd: 1,
        nf: 1,
    });
}

/// A refused 2D run: non-zero exit, empty stdout, `message` on exactly one stderr line,
/// every stderr line a distinct `h5perf:` message, no `#pio_tmp*` file, within 10 s.
/// Returns the cleaned stderr lines.
fn assert_refused_2d(args: &[&str], message: &str) -> Vec<String> {
    let dir = scratch_dir();
    let o = mpirun_timeout(2, args, &[], dir.path(), ERROR_TIMEOUT);
    o.assert_refused_without_output(&args.join(" "));
    let lines: Vec<String> = o
        .stderr_clean()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let n = lines.iter().filter(|l| l.contains(message)).count();
    assert_eq!(
        n,
        1,
        "{message:?} must appear on exactly one stderr line (found {n})\n{}",
        o.describe()
    );
    let distinct: BTreeSet<&String> = lines.iter().collect();
    assert_eq!(
        distinct.len(),
        lines.len(),
        "each problem must be reported once, not per rank\n{}",
        o.describe()
    );
    for l in &lines {
        assert!(
            l.starts_with("h5perf: "),
            "unexpected stderr line {l:?}\n{}",
            o.describe()
        );
    }
    let files = pio_tmp_files(dir.path());
    assert!(
        files.is_empty(),
        "no file may be created, found {files:?}\n{}",
        o.describe()
    );
    assert!(
        dir_entries(dir.path()).is_empty(),
        "nothing may be created in the working directory\n{}",
        o.describe()
    );
    lines
}

#[test]
fn untileable_2d_configurations_are_refused_before_io() {
    // bpp = 3 is not a multiple of blk = 2 (§6.6: the reference overlaps / hangs).
    let lines = assert_refused_2d(
        &[
            "-g", "-e", "3", "-B", "2", "-x", "6", "-X", "6", "-p", "2", "-P", "2",
        ],
        "multiple of the block size",
    );
    assert_eq!(lines.len(), 1, "one message expected: {lines:#?}");
    assert!(
        lines[0].contains("(3)") && lines[0].contains("(2)"),
        "{lines:#?}"
    );

    // S = 8192 is not a multiple of buf = 3072 (§4 check 8b).
    let lines = assert_refused_2d(
        &[
            "-g", "-e", "4K", "-B", "512", "-x", "3K", "-X", "3K", "-p", "2", "-P", "2",
        ],
        "Dataset side size",
    );
    assert_eq!(lines.len(), 1, "one message expected: {lines:#?}");
    assert!(
        lines[0].contains("(8192)") && lines[0].contains("(3072)"),
        "{lines:#?}"
    );

    // Chunks of 64K x 64K = 4 GiB, beyond HDF5's chunk limit. Such chunks imply a
    // transfer buffer of at least 4 GiB, which is a problem of its own for PHDF5, so the
    // chunk message need not be the only one.
    assert_refused_2d(
        &[
            "-g", "-c", "-A", "phdf5", "-e", "64K", "-B", "64K", "-x", "64K", "-X", "64K", "-p",
            "2", "-P", "2",
        ],
        "4 GiB",
    );
}
