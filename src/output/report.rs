//! The report text, line for line as the C h5perf prints it (spec §2, §3, §8.4–§8.6, App. A).

use std::fmt::Write;

use crate::config::{Api, Params};
use crate::measure::latency::QUANTILES;
use crate::measure::{
    ApiResults, Direction, FileCall, FileLatencies, LatencyFigures, Phase, PhaseStats, Record,
    TimeStats, Timer, WallFigures,
};

/// Size formatting of the parameter block (spec §2.3): `NGB`, `NMB`, `NKB` or plain bytes.
pub fn fmt_size(v: i64) -> String {
    for (unit, shift) in [("GB", 30), ("MB", 20), ("KB", 10)] {
        if v >= 1 << shift && v % (1 << shift) == 0 {
            return format!("{}{unit}", v >> shift);
        }
    }
    format!("{v}")
}

/// [`fmt_size`] of a size in bytes held as `u64` (sizes above `i64::MAX` as `i64::MAX`):
/// how the parameter block, the progress lines and `--timeout`'s line write a size.
pub fn sz(v: u64) -> String {
    fmt_size(i64::try_from(v).unwrap_or(i64::MAX))
}

/// The `HDF5 Library: Version` line (always to stdout, spec §2.2).
pub fn version_line(hdf5_version: &str) -> String {
    format!("HDF5 Library: Version {hdf5_version}\n")
}

/// The MPI-info dump as HDF5 1.10.8 and 1.14 print it (spec §2.2, §2.4); `pairs` is `None`
/// for `MPI_INFO_NULL`; `max_val` is `MPI_MAX_INFO_VAL` (bytes).
pub fn info_dump(pairs: Option<&[(String, String)]>, max_val: u32) -> String {
    let mut s = format!("Dumping MPI Info Object (up to {max_val} bytes per item):\n");
    match pairs {
        None => s.push_str("object is MPI_INFO_NULL\n"),
        Some(p) => {
            let _ = writeln!(s, "object has {} items", p.len());
            for (k, v) in p {
                let _ = writeln!(s, "{k}={v}");
            }
        }
    }
    s
}

/// Inputs of the parameter block that do not come from [`Params`].
pub struct ParamEnv<'a> {
    /// World rank printing the block.
    pub rank: u32,
    /// Raw `HDF5_PARAPREFIX` value, `None` if unset.
    pub paraprefix: Option<&'a str>,
    /// The MPI-info dump (see [`info_dump`]).
    pub info_dump: &'a str,
    /// The storage options' report lines, without the `rank R: ` prefix; empty without them.
    pub storage: &'a [String],
    /// The hints in effect after the info dump ([`hints_in_effect`]); empty without
    /// `--mpi-info`.
    pub hints_in_effect: &'a str,
}

/// The MPI-IO hints in effect on a probe file opened by `processes` processes with the
/// run's hints (`MPI_File_get_info`, MPI-3.1 §13.2.8), for the parameter block after the
/// info dump and in its form: a title line (without the `rank R: ` prefix, which
/// [`param_block`] adds), then one `key=value` line per hint as the MPI library reported
/// it (control characters escaped).
pub fn hints_in_effect(processes: u32, hints: &[(String, String)]) -> String {
    let mut s = format!(
        "MPI-IO hints in effect on a probe file opened by {processes} processes: {} items\n",
        hints.len()
    );
    for (k, v) in hints {
        let (k, v) = (
            crate::config::values::printable(k),
            crate::config::values::printable(v),
        );
        let _ = writeln!(s, "{k}={v}");
    }
    s
}

/// The parameter block, info dump included, to the empty line after it (spec §2.2).
pub fn param_block(p: &Params, e: &ParamEnv<'_>) -> String {
    let r = e.rank;
    let mut s = String::new();
    macro_rules! line {
        ($($arg:tt)*) => {
            let _ = writeln!(s, "rank {r}: {}", format_args!($($arg)*));
        };
    }
    line!("==== Parameters ====");
    let apis: String = p.apis.iter().map(|a| format!("{} ", a.name())).collect();
    line!("IO API={apis}");
    line!("Number of files={}", p.num_files);
    line!("Number of datasets={}", p.num_dsets);
    line!("Number of iterations={}", p.num_iters);
    line!("Number of processes={}:{}", p.min_procs, p.max_procs);
    let (bpp, blk) = (p.num_bytes, p.blk_size);
    // a figure at the smallest and the largest process count, `min:max`; with
    // --file-per-process a file holds one rank's data whatever the count
    let both = |f: &dyn Fn(u64) -> String| {
        let (a, b) = match p.file_per_process {
            false => (u64::from(p.min_procs), u64::from(p.max_procs)),
            true => (1, 1),
        };
        format!("{}:{}", f(a), f(b))
    };
    let pick = |on: bool, yes: &'static str, no: &'static str| if on { yes } else { no };
    if p.dim2d {
        let per_proc = both(&|n| sz(bpp.saturating_mul(bpp).saturating_mul(n)));
        line!("Number of bytes per process per dataset={per_proc}");
        let side = |n: u64| sz(bpp.saturating_mul(n));
        let sides = both(&|n| format!("{}x{}", side(n), side(n)));
        line!("Size of dataset(s)={sides}");
        let file = |n: u64| {
            let side = bpp.saturating_mul(n) as f64;
            sz((side.powi(2) as u64).saturating_mul(p.num_dsets))
        };
        line!("File size={}", both(&file));
        let buf = |b: u64| match p.interleaved {
            true => format!("{}x{}", sz(b), sz(blk)),
            false => format!("{}x{}", sz(blk), sz(b)),
        };
        line!("Transfer buffer size={}:{}", buf(p.buf_min), buf(p.buf_max));
        line!("Block size={}x{}", sz(blk), sz(blk));
    } else {
        line!("Number of bytes per process per dataset={}", sz(bpp));
        line!(
            "Size of dataset(s)={}",
            both(&|n| sz(bpp.saturating_mul(n)))
        );
        let file = |n: u64| sz(bpp.saturating_mul(n).saturating_mul(p.num_dsets));
        line!("File size={}", both(&file));
        line!("Transfer buffer size={}:{}", sz(p.buf_min), sz(p.buf_max));
        line!("Block size={}", sz(blk));
    }
    let pattern = pick(p.interleaved, "Interleaved", "Contiguous");
    line!("Block Pattern in Dataset={pattern}");
    let method = pick(p.collective, "Collective", "Independent");
    line!("I/O Method for MPI and HDF5={method}");
    line!("Geometry={}", pick(p.dim2d, "2D", "1D"));
    // --subfiling changes the driver; the C tool always uses MPI-IO's
    line!(
        "VFL used for HDF5 I/O={}",
        pick(p.subfiling, "subfiling driver", "MPI-IO driver")
    );
    line!(
        "Data storage method in HDF5={}",
        pick(p.chunk, "Chunked", "Contiguous")
    );
    // fill settings and storage options (not in the C tool): only those given
    for l in p.fill.report_lines().iter().chain(e.storage) {
        line!("{l}");
    }
    line!("Env HDF5_PARAPREFIX={}", e.paraprefix.unwrap_or("not set"));
    let _ = write!(s, "rank {r}: {}", e.info_dump);
    if !e.hints_in_effect.is_empty() {
        let _ = write!(s, "rank {r}: {}", e.hints_in_effect);
    }
    line!("==== End of Parameters ====");
    s.push('\n');
    s
}

/// `Number of processors = N` (spec §3).
pub fn procs_header(n: u32) -> String {
    format!("Number of processors = {n}\n")
}

/// The two header lines of a transfer size in 1D (spec §3). `dset_bytes` is D.
pub fn xfer_header_1d(buf: u64, dset_bytes: u64, p: &Params) -> String {
    let file_mb = (p.num_dsets as f64 * dset_bytes as f64) / 1_048_576.0;
    let dset_mb = dset_bytes as f64 / 1_048_576.0;
    format!(
        "Transfer Buffer Size: {buf} bytes, File size: {file_mb:.2} MB\n      # of files: {}, # of datasets: {}, dataset size: {dset_mb:.2} MB\n",
        p.num_files, p.num_dsets
    )
}

/// The two header lines of a transfer size in 2D (spec §3); file size MB, dataset side KB.
pub fn xfer_header_2d(q: &crate::pattern::Pattern2D, p: &Params) -> String {
    let (rows, cols) = q.buf_shape();
    let side = q.side() as f64;
    // the C tool computes D with pow() and truncates it to an integer
    let dset = side.powi(2).trunc();
    let file_mb = p.num_dsets as f64 * dset / 1_048_576.0;
    let side_kb = side / 1024.0;
    format!(
        "Transfer Buffer Size: {rows}x{cols} bytes, File size: {file_mb:.2} MB\n      # of files: {}, # of datasets: {}, dataset size: {side_kb:.2}x{side_kb:.2} KB\n",
        p.num_files, p.num_dsets
    )
}

/// The `IO API = ...` line at indent 2 (spec §3); PHDF5's names its file driver, the
/// C tool's MPI-IO one or, with `--subfiling` (`subfiling`), HDF5's subfiling driver.
pub fn api_header(api: Api, subfiling: bool) -> String {
    let driver = match (api, subfiling) {
        (Api::Phdf5, false) => " (w/MPI-IO driver)",
        (Api::Phdf5, true) => " (w/subfiling driver)",
        _ => "",
    };
    format!("        IO API = {}{driver}\n", summary_api_name(api))
}

/// The short name of an API in the summary table and the progress lines: `POSIX`, `MPIO`, `PHDF5`.
pub fn summary_api_name(api: Api) -> &'static str {
    match api {
        Api::Posix => "POSIX",
        Api::Mpiio => "MPIO",
        Api::Phdf5 => "PHDF5",
    }
}

/// The `--summary` table: per (API, processes, size, phase) MiB/s, sd and slowest rank.
pub fn summary_table(p: &Params, records: &[Record], host_of: &dyn Fn(u32) -> String) -> String {
    let mut out = String::from("\nSummary of all tests (MB/s = MiB/s, 2^20 bytes per second):\n");
    out.push_str(
        "API     Procs       Xfer Phase              Max(MB/s) Mean(MB/s)  Min(MB/s)     StdDev  Slowest rank (host)
",
    );
    for (r, i) in super::export::rows(p, records) {
        let (s, e) = (&r.phases[i], &r.extremes[i]);
        let slow = if e.known {
            format!("{} ({})", e.slowest_rank, host_of(e.slowest_rank))
        } else {
            "-".to_string()
        };
        let _ = writeln!(
            out,
            "{:<6} {:>6} {:>10} {:<17} {:>10.2} {:>10.2} {:>10.2} {:>10.2}  {}",
            summary_api_name(r.api),
            r.nprocs,
            sz(r.xfer_size),
            Phase::ALL[i].title(),
            s.max_mibps,
            s.avg_mibps,
            s.min_mibps,
            s.std_mibps,
            slow
        );
    }
    out
}

fn throughput_block(out: &mut String, iters: u32, ph: Phase, s: &PhaseStats, times: bool) {
    let _ = writeln!(out, "            {} ({iters} iteration(s)):", ph.title());
    for (label, mibps, tt) in [
        ("Maximum", s.max_mibps, s.min_time),
        ("Average", s.avg_mibps, s.avg_time),
        ("Minimum", s.min_mibps, s.max_time),
    ] {
        let _ = write!(out, "                {label} Throughput: {mibps:6.2} MB/s");
        if times {
            let _ = write!(out, " ({tt:7.3} s)");
        }
        out.push('\n');
    }
}

fn time_block(out: &mut String, iters: u32, files: u64, t: Timer, s: &TimeStats) {
    let _ = writeln!(out, "            {} ({iters} iteration(s)):", t.title());
    for (label, tt) in [("Minimum", s.min), ("Average", s.avg), ("Maximum", s.max)] {
        let _ = writeln!(
            out,
            "                {label} Accumulated Time using {files} file(s): {tt:7.5} s"
        );
    }
}

fn detail_block(out: &mut String, r: &ApiResults, t: Timer) {
    let _ = writeln!(out, "            {} details:", t.detail_title());
    for (i, st) in r.stats[t as usize].iter().enumerate() {
        let _ = writeln!(out, "                Iteration {}:", i + 1);
        let _ = writeln!(out, "                    Minimum Time: {:.2}s", st.min);
        let _ = writeln!(out, "                    Maximum Time: {:.2}s", st.max);
    }
}

/// All result blocks of one API in the order of spec §8.5 (titles from [`Direction::measures`],
/// figures from `rec`, `-D 3` details from `r`); with `--fsync` a "Write File Sync" block too.
pub fn api_results(p: &Params, rec: &Record, r: &ApiResults) -> String {
    let d = p.debug;
    let det = d.level >= 3;
    let it = rec.iterations;
    let mut o = String::new();
    for dir in Direction::ALL {
        if dir == Direction::Read && !rec.has_read {
            continue;
        }
        if dir == Direction::Write && p.storage.read_only {
            continue;
        }
        let sync = m_sync(dir, p);
        let m = dir.measures();
        if d.raw {
            if det {
                detail_block(&mut o, r, m.raw.timer());
            }
            throughput_block(&mut o, it, m.raw, rec.phase(m.raw), d.times);
        }
        if det {
            detail_block(&mut o, r, m.mpi);
            detail_block(&mut o, r, m.fine.timer());
        }
        throughput_block(&mut o, it, m.fine, rec.phase(m.fine), d.times);
        if det {
            detail_block(&mut o, r, m.gross.timer());
        }
        throughput_block(&mut o, it, m.gross, rec.phase(m.gross), d.times);
        let [open, close] = rec.open_close_of(dir);
        if d.times {
            time_block(&mut o, it, r.files, m.open, open);
            if let Some(t) = sync {
                let stats = TimeStats::of(&r.stats[t as usize]);
                time_block(&mut o, it, r.files, t, &stats);
            }
            time_block(&mut o, it, r.files, m.close, close);
        }
        if det {
            detail_block(&mut o, r, m.open);
            if let Some(t) = sync {
                detail_block(&mut o, r, t);
            }
            detail_block(&mut o, r, m.close);
        }
        if let Some(w) = &rec.wall {
            wall_block(&mut o, dir, &w[usize::from(dir == Direction::Read)], p);
        }
        if let Some(l) = &rec.latency {
            latency_block(&mut o, dir, &l[usize::from(dir == Direction::Read)]);
        }
        if let Some(l) = &rec.file_latency {
            file_latency_lines(&mut o, dir, &l[usize::from(dir == Direction::Read)]);
        }
    }
    o
}

/// The lines after a stonewalled direction (`--stonewall`, issue 28): the deadline, the
/// transfers per rank, when the ranks stopped, the wear-out, the bytes moved; for the
/// write phases, whether each lasted the deadline (else the run is invalid).
fn wall_block(out: &mut String, dir: Direction, w: &WallFigures, p: &Params) {
    let name = match dir {
        Direction::Write => "Write",
        Direction::Read => "Read",
    };
    let deadline = p.stonewall.seconds_text().unwrap_or_default();
    let _ = writeln!(
        out,
        "            Stonewall {name} (deadline {deadline} s, {} phase(s)):",
        w.phases
    );
    let _ = writeln!(
        out,
        "                Transfers per rank: min {} (rank {}), max {} (rank {}), of {} planned",
        w.min.0, w.min.1, w.max.0, w.max.1, w.planned
    );
    if w.stopped_phases == 0 {
        // the deadline stopped no rank: the times are when the ranks ended their plan
        let _ = writeln!(
            out,
            "                Ranks stopped: none (each rank ended its planned transfers: first {:.3} s, last {:.3} s after the phase's start)",
            w.first_stop_s, w.last_stop_s
        );
    } else {
        let _ = writeln!(
            out,
            "                Ranks stopped: first {:.3} s, last {:.3} s after the phase's start",
            w.first_stop_s, w.last_stop_s
        );
    }
    if p.stonewall.wear_out {
        let _ = writeln!(out, "                Wear-out: {:.3} s", w.wear_out_s);
    }
    let _ = writeln!(out, "                Bytes moved: {}", w.moved_total());
    if dir == Direction::Write && !w.full() {
        let _ = writeln!(
            out,
            "                INVALID: {} of {} phase(s) ended before the deadline; about {:.1} times the volume (-e) is needed",
            w.short_phases,
            w.phases,
            w.volume_factor()
        );
    }
}

/// The lines after a direction with `--latency` (issue 31): the calls timed and the
/// clock, the minimum, the [`QUANTILES`] and the maximum, and the rank and host that saw
/// the maximum. Nothing when no call was timed.
fn latency_block(out: &mut String, dir: Direction, l: &LatencyFigures) {
    let (Some((min, max)), Some(q)) = (l.min_max_s(), l.quantiles_s()) else {
        return;
    };
    let name = match dir {
        Direction::Write => "Write",
        Direction::Read => "Read",
    };
    let _ = writeln!(
        out,
        "            Latency {name} calls ({} calls, every rank and iteration; clock {}):",
        l.count(),
        crate::ffi::clock::ClockKind::here().name()
    );
    let _ = write!(out, "                min {}", duration_text(min));
    for (v, (_, label)) in q.iter().zip(QUANTILES) {
        let _ = write!(out, ", {label} {}", duration_text(*v));
    }
    let _ = writeln!(
        out,
        ", max {} (rank {}, host {})",
        duration_text(max),
        l.max_rank,
        l.max_host
    );
}

/// The lines after a direction's transfer latencies with `--latency`: per file call
/// with calls (open, `--fsync`'s sync, close) the calls timed, min, p50, p99, max and
/// the rank and host that saw the max.
fn file_latency_lines(out: &mut String, dir: Direction, l: &FileLatencies) {
    let name = match dir {
        Direction::Write => "Write",
        Direction::Read => "Read",
    };
    for (call, f) in FileCall::ALL.iter().zip(l) {
        let (Some((min, max)), Some(q)) = (f.min_max_s(), f.quantiles_s()) else {
            continue;
        };
        let _ = writeln!(
            out,
            "            Latency {name} {} ({} calls, every rank and iteration; clock CLOCK_MONOTONIC): min {}, p50 {}, p99 {}, max {} (rank {}, host {})",
            call.name(),
            f.count(),
            duration_text(min),
            duration_text(q[0]),
            duration_text(q[2]),
            duration_text(max),
            f.max_rank,
            f.max_host
        );
    }
}

/// A duration of `s` seconds with 4 significant digits in ns, us, ms or s: `1.234 us`.
pub fn duration_text(s: f64) -> String {
    let (v, unit) = match s {
        s if s < 1e-6 => (s * 1e9, "ns"),
        s if s < 1e-3 => (s * 1e6, "us"),
        s if s < 1.0 => (s * 1e3, "ms"),
        s => (s, "s"),
    };
    let decimals = match v {
        v if v < 10.0 => 3,
        v if v < 100.0 => 2,
        v if v < 1000.0 => 1,
        _ => 0,
    };
    format!("{v:.decimals$} {unit}")
}

/// The sync timer of direction `dir` when `--fsync` was given.
fn m_sync(dir: Direction, p: &Params) -> Option<Timer> {
    dir.measures().sync.filter(|_| p.storage.fsync)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;

    #[test]
    fn size_rule() {
        for (v, s) in [
            (8, "8"),
            (1536, "1536"),
            (3072, "3KB"),
            (98304, "96KB"),
            (1048576, "1MB"),
            (1049600, "1025KB"),
            (3221225472, "3GB"),
            (-8, "-8"),
            (0, "0"),
        ] {
            assert_eq!(fmt_size(v), s);
        }
    }

    /// Lines of a golden transcript, looked up as the integration tests do
    /// (`tests/common` `golden_dir`): `$H5PERF_GOLDEN_DIR`, `../shared/golden` beside the
    /// package (the CI layout), `/work/shared/golden`.
    fn golden_lines(name: &str, from: &str, n: usize) -> Vec<String> {
        let manifest = env!("CARGO_MANIFEST_DIR");
        let dirs: Vec<String> = std::env::var("H5PERF_GOLDEN_DIR")
            .into_iter()
            .chain([
                format!("{manifest}/../shared/golden"),
                "/work/shared/golden".to_string(),
            ])
            .collect();
        let path = dirs
            .iter()
            .map(|d| format!("{d}/{name}.out"))
            .find(|p| std::path::Path::new(p).is_file())
            .unwrap_or_else(|| {
                panic!("golden transcript {name}.out not found in {dirs:?}; set H5PERF_GOLDEN_DIR")
            });
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.lines()
            .skip_while(|l| !l.starts_with(from))
            .take(n)
            .map(String::from)
            .collect()
    }

    #[test]
    fn default_block_matches_golden() {
        let p = Params::resolve(&Options::default(), 2);
        let dump = info_dump(None, 256);
        let b = param_block(
            &p,
            &ParamEnv {
                rank: 0,
                paraprefix: None,
                info_dump: &dump,
                storage: &[],
                hints_in_effect: "",
            },
        );
        let want = golden_lines("default_np2", "rank 0: ==== Parameters", 21);
        assert_eq!(b.lines().map(String::from).collect::<Vec<_>>(), want);
        assert_eq!(
            xfer_header_1d(131072, 524288, &p),
            "Transfer Buffer Size: 131072 bytes, File size: 0.50 MB\n      # of files: 1, # of datasets: 1, dataset size: 0.50 MB\n"
        );
    }

    #[test]
    fn fill_lines_only_when_given() {
        use crate::ffi::hdf5::{AllocTime, FillValue};
        let block = |o: &Options| {
            param_block(
                &Params::resolve(o, 2),
                &ParamEnv {
                    rank: 1,
                    paraprefix: Some("/x"),
                    info_dump: "Dumping MPI Info Object (up to 256 bytes per item):\nobject is MPI_INFO_NULL\n",
                    storage: &[],
                    hints_in_effect: "",
                },
            )
        };
        let plain = block(&Options::default());
        assert!(!plain.contains("Fill"), "{plain}");
        assert!(!plain.contains("Allocation time"), "{plain}");
        let mut o = Options::default();
        o.fill.value = Some(FillValue::Byte(7));
        o.fill.alloc = Some(AllocTime::Late);
        let b = block(&o);
        assert!(
            b.contains(
                "rank 1: Data storage method in HDF5=Contiguous\n\
                 rank 1: Fill value=7\n\
                 rank 1: Fill time=ifset (library default)\n\
                 rank 1: Allocation time=late (HDF5 applies: early)\n\
                 rank 1: Env HDF5_PARAPREFIX=/x\n"
            ),
            "{b}"
        );
        // nothing else changes
        let stripped: String = b
            .lines()
            .filter(|l| !l.contains("Fill ") && !l.contains("Allocation time"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(stripped, plain);
    }

    #[test]
    fn storage_lines_only_when_given_before_the_paraprefix() {
        let dump = "Dumping MPI Info Object (up to 256 bytes per item):\nobject is MPI_INFO_NULL\n";
        let p = Params::resolve(&Options::default(), 2);
        let env = |storage| ParamEnv {
            rank: 0,
            paraprefix: None,
            info_dump: dump,
            storage,
            hints_in_effect: "",
        };
        let plain = param_block(&p, &env(&[]));
        let lines = [
            "Sync before close=on (x)".to_string(),
            "Read-only=on".to_string(),
        ];
        let b = param_block(&p, &env(&lines));
        assert!(
            b.contains(
                "rank 0: Data storage method in HDF5=Contiguous\n\
                 rank 0: Sync before close=on (x)\n\
                 rank 0: Read-only=on\n\
                 rank 0: Env HDF5_PARAPREFIX=not set\n"
            ),
            "{b}"
        );
        let stripped: String = b
            .lines()
            .filter(|l| !lines.iter().any(|x| l.ends_with(x.as_str())))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(stripped, plain);
    }

    fn results_text(f: impl FnOnce(&mut Options)) -> String {
        let mut o = Options::default();
        o.debug.times = true;
        o.debug.level = 3;
        f(&mut o);
        let p = Params::resolve(&o, 2);
        let mut stats = vec![vec![crate::measure::IterStat::default()]; crate::measure::COUNT];
        stats[Timer::WriteSync as usize][0] = crate::measure::IterStat {
            min: 0.25,
            max: 0.5,
            sum: 0.75,
        };
        let r = ApiResults {
            stats,
            bytes: 524288,
            iters: 1,
            files: 1,
            per_rank: vec![],
            wall: None,
            latency: None,
            file_latency: None,
            timeseries: Vec::new(),
        };
        let rec = Record::from_api_results(2, 524288, 524288, Api::Posix, !p.write_only, &r);
        api_results(&p, &rec, &r)
    }

    fn titles(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| l.ends_with("iteration(s)):") || l.ends_with("details:"))
            .map(|l| l.trim().to_string())
            .collect()
    }

    #[test]
    fn sync_time_shown_between_open_and_close_with_fsync_only() {
        let plain = results_text(|_| {});
        assert!(!plain.contains("Sync"), "{plain}");
        let t = results_text(|o| o.storage.fsync = true);
        let want_tail = [
            "Write File Open (1 iteration(s)):",
            "Write File Sync (1 iteration(s)):",
            "Write File Close (1 iteration(s)):",
            "Write file open details:",
            "Write file sync details:",
            "Write file close details:",
        ];
        let got = titles(&t);
        let at = got
            .iter()
            .position(|x| x == want_tail[0])
            .expect("open block");
        assert_eq!(&got[at..at + 6], want_tail);
        assert!(t.contains(
            "            Write File Sync (1 iteration(s)):\n                \
             Minimum Accumulated Time using 1 file(s): 0.50000 s\n"
        ));
        // only the sync blocks are added
        let without: Vec<String> = got.into_iter().filter(|x| !x.contains("ync")).collect();
        assert_eq!(without, titles(&plain));
    }

    #[test]
    fn read_only_shows_no_write_blocks() {
        let t = results_text(|o| o.storage.read_only = true);
        let got = titles(&t);
        assert!(got.iter().all(|x| !x.starts_with("Write")), "{got:?}");
        assert!(
            got.iter().any(|x| x.starts_with("Read Open-Close (")),
            "{got:?}"
        );
    }

    #[test]
    fn headers_2d_match_golden() {
        let o = Options {
            dim2d: true,
            ..Default::default()
        };
        let p = Params::resolve(&o, 2);
        let q = |buf, n, inter| crate::pattern::Pattern2D {
            bpp: p.num_bytes,
            buf,
            blk: p.blk_size,
            nprocs: n,
            rank: 0,
            interleaved: inter,
            chunked: false,
        };
        assert_eq!(
            xfer_header_2d(&q(4096, 2, false), &p),
            "Transfer Buffer Size: 4096x4096 bytes, File size: 256.00 MB\n      # of files: 1, # of datasets: 1, dataset size: 16.00x16.00 KB\n"
        );
        let o = Options {
            dim2d: true,
            interleaved: true,
            num_bytes: 4096,
            blk_size: 512,
            ..Default::default()
        };
        let p = Params::resolve(&o, 2);
        let mut h = q(2048, 1, true);
        h.bpp = 4096;
        h.blk = 512;
        assert_eq!(
            xfer_header_2d(&h, &p),
            "Transfer Buffer Size: 2048x512 bytes, File size: 16.00 MB\n      # of files: 1, # of datasets: 1, dataset size: 4.00x4.00 KB\n"
        );
    }

    #[test]
    fn info_dump_lists_pairs() {
        let pairs = vec![
            ("a".to_string(), "b".to_string()),
            ("c".to_string(), "d=e".to_string()),
        ];
        assert_eq!(
            info_dump(Some(&pairs), 256),
            "Dumping MPI Info Object (up to 256 bytes per item):\nobject has 2 items\na=b\nc=d=e\n"
        );
    }

    #[test]
    fn result_blocks_order_and_format() {
        let mut o = Options::default();
        o.debug.raw = true;
        o.debug.times = true;
        o.write_only = true;
        let p = Params::resolve(&o, 2);
        let mut stats = vec![vec![crate::measure::IterStat::default()]; crate::measure::COUNT];
        stats[Timer::WriteFine as usize][0] = crate::measure::IterStat {
            min: 0.1,
            max: 0.5,
            sum: 0.6,
        };
        let r = ApiResults {
            stats,
            bytes: 524288,
            iters: 1,
            files: 1,
            per_rank: vec![],
            wall: None,
            latency: None,
            file_latency: None,
            timeseries: Vec::new(),
        };
        let rec = Record::from_api_results(2, 524288, 524288, Api::Posix, !p.write_only, &r);
        let text = api_results(&p, &rec, &r);
        let titles: Vec<&str> = text
            .lines()
            .filter(|l| l.ends_with("iteration(s)):"))
            .map(str::trim)
            .collect();
        assert_eq!(
            titles,
            vec![
                "Raw Data Write (1 iteration(s)):",
                "Write (1 iteration(s)):",
                "Write Open-Close (1 iteration(s)):",
                "Write File Open (1 iteration(s)):",
                "Write File Close (1 iteration(s)):"
            ]
        );
        assert!(text.contains("                Maximum Throughput:   1.00 MB/s (  0.500 s)\n"));
        assert!(
            text.contains("                Minimum Accumulated Time using 1 file(s): 0.00000 s\n")
        );
        assert!(text.contains("                Maximum Throughput:   0.00 MB/s (  0.000 s)\n"));
    }
}
