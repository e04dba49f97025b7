//! The resolved configuration after defaults and clamping (spec §1.9), and the checks
//! that refuse a configuration before any I/O. No I/O, no MPI.

use std::ops::{Deref, DerefMut};

use super::options::{Action, Def, Options, Shown, Switch, DEFS};
use super::order::RandomOrder;
use super::payload::PayloadOptions;
use super::storage::{StorageFacts, StorageOptions};
use super::values::ApiSet;
use crate::terms::Api;

/// What the run's libraries provide for `--subfiling` ([`Params::subfiling_problems`]),
/// found by the caller through MPI and HDF5.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriverFacts {
    /// The linked HDF5 has the subfiling file driver (`H5Pset_fapl_subfiling`).
    pub subfiling: bool,
    /// MPI runs with `MPI_THREAD_MULTIPLE` (`MPI_Query_thread`).
    pub thread_multiple: bool,
    /// The linked HDF5's version, e.g. `1.10.8`, for the message.
    pub hdf5_version: String,
    /// The subfiling driver's directory variables that are set
    /// (`H5FD_SUBFILING_SUBFILE_PREFIX`, `H5FD_SUBFILING_CONFIG_FILE_PREFIX`).
    pub prefix_vars: Vec<String>,
}

/// The resolved configuration (spec §1.9; sizes in bytes); everything else is read from
/// the given [`Options`] through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    /// The options as given (checked, not defaulted).
    pub given: Options,
    /// Selected APIs (never empty).
    pub apis: ApiSet,
    /// Bytes per process per dataset (bpp).
    pub num_bytes: u64,
    /// Smallest transfer-buffer size.
    pub buf_min: u64,
    /// Largest transfer-buffer size.
    pub buf_max: u64,
    /// Block size (blk).
    pub blk_size: u64,
    /// Iterations (>= 1).
    pub num_iters: u32,
    /// Smallest process count (>= 1).
    pub min_procs: u32,
    /// Largest process count (>= min_procs).
    pub max_procs: u32,
    /// The seed of a generated payload (`--payload`) and of `--random`'s order:
    /// `--seed`'s, else 0 until the run chooses one for itself (`app`, agreed by every
    /// rank before any I/O).
    pub seed: u64,
    /// `--stable`: what it turned on (set by the run before any I/O, agreed by every
    /// rank; `None` without `--stable`).
    pub stable: Option<Box<super::acceptance::StableProfile>>,
}

impl Deref for Params {
    type Target = Options;
    fn deref(&self) -> &Options {
        &self.given
    }
}

impl DerefMut for Params {
    fn deref_mut(&mut self) -> &mut Options {
        &mut self.given
    }
}

/// An MPI count or stride to check against `INT_MAX`: what it is, and its value
/// (`None` when it overflowed 64 bits).
type Count = (&'static str, Option<u64>);

impl Params {
    /// Apply h5perf's defaults and clamping in the C tool's order (spec §1.9) to the
    /// options `o`. `world_size` is the size of `MPI_COMM_WORLD`, the default for `-P`.
    pub fn resolve(o: &Options, world_size: u32) -> Params {
        let mut bpp = o.num_bytes;
        if bpp == 0 {
            bpp = if o.dim2d { 8192 } else { 262_144 };
        }
        let mut buf_max = if o.buf_max == 0 { bpp } else { o.buf_max };
        let mut buf_min = if o.buf_min == 0 { bpp / 2 } else { o.buf_min };
        let mut blk = if o.blk_size == 0 { bpp / 2 } else { o.blk_size };
        let apis = if o.apis.is_empty() {
            ApiSet {
                posix: true,
                mpiio: true,
                phdf5: true,
            }
        } else {
            o.apis
        };
        if !o.dim2d {
            buf_min = buf_min.min(bpp);
            buf_max = buf_max.min(bpp);
        }
        if buf_min > buf_max {
            buf_min = buf_max;
        }
        if blk > bpp {
            blk = bpp;
        }
        let mut min_procs = o.min_procs.max(1);
        let max_procs = o.max_procs.unwrap_or(world_size).max(1);
        if min_procs > max_procs {
            min_procs = max_procs;
        }
        Params {
            given: o.clone(),
            apis,
            num_bytes: bpp,
            buf_min,
            buf_max,
            blk_size: blk,
            num_iters: o.num_iters.max(1),
            min_procs,
            max_procs,
            seed: o.payload.seed.unwrap_or(0),
            stable: None,
        }
    }

    /// Process counts of the run, largest first: `max, max/2, …` while `>= min` (spec §3).
    pub fn proc_counts(&self) -> Vec<u32> {
        let mut v = Vec::new();
        let mut n = self.max_procs;
        while n >= self.min_procs && n > 0 {
            v.push(n);
            n >>= 1;
        }
        v
    }

    /// Transfer-buffer sizes of the run, smallest first: `min, 2·min, …` while `<= max`;
    /// a zero size runs once (spec §3).
    pub fn buf_sizes(&self) -> Vec<u64> {
        let mut v = Vec::new();
        let mut b = self.buf_min;
        loop {
            if b > self.buf_max {
                break;
            }
            v.push(b);
            if b == 0 {
                break;
            }
            match b.checked_mul(2) {
                Some(n) => b = n,
                None => break,
            }
        }
        v
    }

    /// The parameter-block lines (without `rank R: `) of the options the C tool lacks:
    /// the storage options' (with what the run found out, `facts`), then each shown
    /// flag's that is on ([`Shown`]). Empty without them.
    pub fn report_lines(&self, facts: &StorageFacts) -> Vec<String> {
        let mut lines = self.storage.report_lines(facts);
        lines.extend(self.stable.as_ref().map(|s| s.report_line()));
        lines.extend(self.payload.report_line(self.seed));
        lines.extend(
            self.random
                .report_line(self.seed, self.payload.seed.is_some()),
        );
        lines.extend(shown_on(&DEFS, self).map(|s| s.line.to_string()));
        lines.extend(self.stonewall.report_lines());
        if let Some(c) = self.chunk_cache {
            lines.push(format!(
                "Chunk cache={} (bytes,slots,w0; H5Pset_chunk_cache)",
                c.text()
            ));
        }
        if let Some(ns) = self.timeseries {
            lines.push(format!(
                "Time series={} s intervals (bytes per rank and interval of each phase)",
                ns as f64 / 1e9
            ));
        }
        lines
    }

    /// The results-file fields (name, value) of the options the C tool lacks: the
    /// storage fields when a storage option was given, then `key` = `on` for each shown
    /// flag that is on ([`Shown`]).
    pub fn result_fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = Vec::new();
        if self.storage.any() {
            fields.extend(
                StorageOptions::FIELDS
                    .into_iter()
                    .zip(self.storage.field_values()),
            );
        }
        if let Some(s) = &self.stable {
            fields.push(("stable", "on".to_string()));
            fields.push(("stable_turned_on", s.turned_on_field()));
        }
        if self.payload.on() {
            fields.extend(
                PayloadOptions::FIELDS
                    .into_iter()
                    .zip(self.payload.field_values(self.seed)),
            );
        }
        if self.random.on() {
            fields.push((RandomOrder::FIELD, self.random.name().to_string()));
            if !self.payload.on() {
                // the payload's fields carry the seed when it is on
                fields.push((PayloadOptions::FIELDS[1], self.seed.to_string()));
            }
        }
        fields.extend(shown_on(&DEFS, self).map(|s| (s.key, "on".to_string())));
        fields.extend(self.stonewall.fields());
        if let Some(level) = self.deflate {
            fields.push(("deflate", level.to_string()));
        }
        if let Some(c) = self.chunk_cache {
            fields.push(("chunk_cache", c.text()));
        }
        if let Some(ns) = self.timeseries {
            fields.push(("timeseries_interval_s", (ns as f64 / 1e9).to_string()));
        }
        fields
    }

    /// Check, before any I/O, the options that cannot run together (fill settings, storage,
    /// payload, --random, --file-per-process...), and when they can, every (process count,
    /// transfer size) combination (spec §4, §6.6, §10, §11.9); one message per distinct
    /// problem, in the order found (one line for a transfer-size problem that several
    /// transfer sizes share).
    pub fn problems(&self, world_size: u32, mem_bytes: u64) -> Vec<String> {
        let combinations = self.combination_problems();
        if !combinations.is_empty() {
            // an impossible combination first and alone: the sizes' problems may follow from it
            return combinations;
        }
        self.engine_problems(world_size, mem_bytes)
    }

    /// The options that cannot run together (checked before the sizes).
    fn combination_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(m) = self.fill.refusal(self.chunk, self.dim2d) {
            out.push(m);
        }
        out.extend(self.stonewall.problem());
        if let Some(level) = self.deflate {
            out.extend(self.deflate_problems(level));
        }
        out.extend(self.phdf5_setting_problems());
        let non_posix: Vec<&str> = self
            .apis
            .iter()
            .filter(|a| *a != Api::Posix)
            .map(Api::name)
            .collect();
        out.extend(
            self.storage
                .problems(&non_posix, self.write_only, &self.proc_counts()),
        );
        out.extend(
            self.payload
                .problems(self.storage.read_only, self.random.on()),
        );
        out.extend(self.random.problems(
            self.write_only,
            self.storage.read_only,
            self.stonewall.millis.is_some(),
        ));
        if self.file_per_process {
            out.extend(self.file_per_process_problems());
        }
        out
    }

    /// Why `--file-per-process` cannot run with these parameters (none when it can):
    /// each rank's file holds its own part alone, so the patterns that exist only among
    /// the ranks of one file are refused with the reason.
    fn file_per_process_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.dim2d {
            out.push(
                "--file-per-process cannot be combined with -g: a 2D dataset is one square \
                 of side -e x N that the ranks share, and one rank's part of it (a band) is \
                 no square of its own; run the file per process in 1D"
                    .to_string(),
            );
        }
        if self.interleaved {
            out.push(
                "--file-per-process cannot be combined with -I: interleaving alternates the \
                 ranks' blocks in one file, and each rank's own file holds its blocks alone \
                 (they would be contiguous); run without -I"
                    .to_string(),
            );
        }
        if self.stonewall.millis.is_some() {
            out.push(
                "--file-per-process cannot be combined with --stonewall yet: the stonewall's \
                 figures and counts file describe one shared file"
                    .to_string(),
            );
        }
        out
    }

    /// Why `--deflate=level` cannot run with these parameters and the linked HDF5 (none
    /// when it can): PHDF5 must be among the APIs, its datasets chunked (filters apply
    /// to chunks only) and written collectively (HDF5 1.10.2 and later write filtered
    /// datasets in parallel only with collective I/O: "Parallel Compression",
    /// HDF5 1.10.2 release notes), and the library must have the deflate filter.
    fn deflate_problems(&self, level: u32) -> Vec<String> {
        let mut out = Vec::new();
        let opt = format!("--deflate={level}");
        if !self.apis.phdf5 {
            out.push(format!(
                "{opt} applies to PHDF5 datasets only: -A has no phdf5"
            ));
        }
        if !self.chunk {
            out.push(format!(
                "{opt} needs chunked datasets (-c): HDF5 filters apply to chunks"
            ));
        }
        if !self.collective {
            out.push(format!(
                "{opt} needs collective I/O (-C): HDF5 writes filtered datasets in parallel \
                 only collectively"
            ));
        }
        if !crate::ffi::hdf5::deflate_available() {
            out.push(format!(
                "{opt}: the linked HDF5 has no deflate filter (it was built without zlib)"
            ));
        }
        out
    }

    /// Why `--coll-metadata` and `--chunk-cache` cannot run (none when they can): both
    /// set PHDF5 property lists, so PHDF5 must be among the APIs (as for `--deflate`),
    /// and a chunk cache holds chunks only (`-c`).
    fn phdf5_setting_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.coll_metadata && !self.apis.phdf5 {
            out.push("--coll-metadata applies to PHDF5 files only: -A has no phdf5".to_string());
        }
        if let Some(c) = self.chunk_cache {
            let opt = format!("--chunk-cache={}", c.text());
            if !self.apis.phdf5 {
                out.push(format!(
                    "{opt} applies to PHDF5 datasets only: -A has no phdf5"
                ));
            }
            if !self.chunk {
                out.push(format!(
                    "{opt} needs chunked datasets (-c): a contiguous dataset has no chunk cache"
                ));
            }
        }
        out
    }

    /// Why `--subfiling` cannot run (none when it can), from what the libraries of the
    /// run provide (`facts`, found by the caller: the checks here do no I/O and no MPI).
    /// The option sets the PHDF5 file driver, so PHDF5 must be the only API (POSIX and
    /// MPI-IO have no file driver: a mixed run would set the subfiling figures beside
    /// MPI-IO-driver ones); the linked HDF5 must have the driver (1.14.0 and later, built
    /// with it); MPI must provide `MPI_THREAD_MULTIPLE` (the driver's I/O concentrators
    /// are threads that call MPI: HDF5 Subfiling VFD user guide, "Requirements");
    /// `--mpi-info` has nothing to act on (the concentrators write the subfiles with
    /// POSIX calls, no MPI-IO file is opened); and the subfiles must be in the data
    /// file's directory, where h5perf removes them (`H5FD_SUBFILING_SUBFILE_PREFIX` and
    /// `H5FD_SUBFILING_CONFIG_FILE_PREFIX` unset).
    pub fn subfiling_problems(&self, facts: &DriverFacts) -> Vec<String> {
        let mut out = Vec::new();
        if !self.subfiling {
            return out;
        }
        if self.apis.iter().any(|a| a != Api::Phdf5) {
            out.push(
                "--subfiling needs -A phdf5 alone: it sets the PHDF5 file driver, and POSIX \
                 and MPI-IO have none (their figures would stand beside the subfiling ones \
                 as if measured alike)"
                    .to_string(),
            );
        }
        if !facts.subfiling {
            out.push(format!(
                "--subfiling: the linked HDF5 {} has no subfiling file driver \
                 (H5Pset_fapl_subfiling): it needs HDF5 1.14.0 or later built with \
                 --enable-subfiling-vfd (CMake: HDF5_ENABLE_SUBFILING_VFD=ON)",
                facts.hdf5_version
            ));
        }
        if !facts.thread_multiple {
            out.push(
                "--subfiling: MPI does not provide MPI_THREAD_MULTIPLE (MPI_Query_thread), \
                 which the subfiling driver's I/O concentrator threads need"
                    .to_string(),
            );
        }
        if self.storage.read_only {
            out.push(
                "--subfiling cannot be combined with --read-only yet: a kept file is a stub \
                 whose data is in its subfiles, and the checks of a kept file before the \
                 reads (its size against the run's) read the stub; write and read in one run"
                    .to_string(),
            );
        }
        if !self.mpi_info.is_empty() {
            out.push(
                "--subfiling cannot be combined with --mpi-info: the subfiling driver's I/O \
                 concentrators write the subfiles with POSIX calls, no MPI-IO file takes \
                 the hints"
                    .to_string(),
            );
        }
        if self.coll_metadata {
            out.push(
                "--subfiling cannot be combined with --coll-metadata: under the subfiling \
                 driver HDF5 (1.14.5, 2.2.0) cannot give back the file's access list \
                 (H5Fget_access_plist: \"driver get_info request failed -- bad info \
                 object\"), through which h5perf records the setting in effect"
                    .to_string(),
            );
        }
        // HDF5's I/O concentrators (1.14.5 and 2.2.0, Open MPI 4.1) hung when one write
        // call carried several hundred pieces (768 and 1024 1 KiB pieces: the writer in
        // MPI_Wait of H5FD__ioc_write_independent_async, the concentrator's worker in
        // MPI_Recv of H5FD__ioc_file_queue_write_indep; 512 passed): only transfers that
        // are one range of the file, or of one chunk, are let through
        let pieces = [
            (
                self.dim2d,
                "-g (a 2D transfer is one piece per row of its blocks)",
            ),
            (
                self.interleaved,
                "-I (an interleaved transfer is one piece per block)",
            ),
            (
                self.chunk && self.buf_max > self.blk_size,
                "-c with transfers larger than the block (one piece per chunk; give -X \
                 no larger than -B)",
            ),
        ];
        for (_, what) in pieces.iter().filter(|(on, _)| *on) {
            out.push(format!(
                "--subfiling cannot be combined with {what}: HDF5's subfiling I/O \
                 concentrators hang on write calls of many pieces (seen with 768 pieces \
                 in HDF5 1.14.5 and 2.2.0), so each transfer must be one contiguous range"
            ));
        }
        for var in &facts.prefix_vars {
            out.push(format!(
                "--subfiling cannot run with {var} set: h5perf removes the subfiles and their \
                 configuration file from the data file's directory, where HDF5 puts them \
                 without it"
            ));
        }
        out
    }

    /// The checks of [`Params::problems`] before the fill settings: the C tool's rules on
    /// the process counts and sizes (spec §3) and, only when every step passes them, the
    /// limits of the APIs, of memory and of file offsets. A size that breaks a rule is
    /// then told once, not again as the limits it also breaks (`-g -B 64K -e 64K`: the
    /// 32 KiB transfer is not a multiple of the block, and the 64 KiB one would be a 4 GiB
    /// PHDF5 transfer; the first is what to fix).
    fn engine_problems(&self, world_size: u32, mem_bytes: u64) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut limits: Vec<String> = Vec::new();
        let mut push = |m: String| {
            if !out.contains(&m) {
                out.push(m);
            }
        };
        let mut limit = |m: String| {
            if !limits.contains(&m) {
                limits.push(m);
            }
        };
        let blk = self.blk_size;
        let bpp = self.num_bytes;
        let mut not_multiple: Vec<u64> = Vec::new();
        for n in self.proc_counts() {
            if n > world_size {
                push(format!(
                    "number of process({n}) must be <= number of processes in MPI_COMM_WORLD({world_size})"
                ));
                continue;
            }
            for buf in self.buf_sizes() {
                // both can be 0 only by default (an explicit 0 asks for the default)
                let half = |opt: &str, given: &str| {
                    format!(
                        ": {opt} was not given, and its default, half of -e ({bpp} byte{}), \
                         is 0; give {given} or a larger -e",
                        if bpp == 1 { "" } else { "s" }
                    )
                };
                if blk == 0 {
                    push(format!(
                        "Transfer block size ({blk}) must be > 0{}",
                        half("-B", "-B SIZE")
                    ));
                    continue;
                }
                if buf == 0 {
                    push(format!(
                        "Transfer buffer size ({buf}) must be > 0{}",
                        half("-x", "-x SIZE")
                    ));
                    continue;
                }
                if buf % blk != 0 {
                    // one line for all the sizes: the first one's message, the others named
                    // after the loops
                    if not_multiple.is_empty() {
                        push(format!(
                            "Transfer buffer size ({buf}) must be a multiple of the interleaved I/O block size ({blk})"
                        ));
                    }
                    if !not_multiple.contains(&buf) {
                        not_multiple.push(buf);
                    }
                    continue;
                }
                let Some(side) = bpp.checked_mul(u64::from(n)) else {
                    limit(format!("Dataset size ({bpp} bytes per process x {n} processes) does not fit in 64 bits"));
                    continue;
                };
                // bytes in one dataset, bytes in the transfer buffer, the MPI counts
                let (d, buf_bytes, counts): (Option<u64>, Option<u64>, Vec<Count>) = if self.dim2d {
                    if side % buf != 0 {
                        push(format!(
                            "Dataset side size ({side}) must be a multiple of the trasfer buffer size ({buf})"
                        ));
                        continue;
                    }
                    if !bpp.is_multiple_of(blk) {
                        push(format!(
                            "Bytes per process per dataset ({bpp}) must be a multiple of the block size ({blk}) in 2D geometry"
                        ));
                        continue;
                    }
                    // vector counts and strides of the 2D file types (spec §6.4); sizes
                    // in bytes above INT_MAX use struct datatypes
                    let mut counts = vec![
                        ("rows per transfer (block size)", Some(blk)),
                        ("dataset side / transfer buffer size", Some(side / buf)),
                        ("dataset side / block size", Some(side / blk)),
                    ];
                    if self.interleaved {
                        counts.push(("rows per transfer (transfer buffer size)", Some(buf)));
                    }
                    (side.checked_mul(side), buf.checked_mul(blk), counts)
                } else {
                    if !bpp.is_multiple_of(buf) {
                        push(format!(
                            "Dataset size/process ({bpp}) must be a multiple of the trasfer buffer size ({buf})"
                        ));
                        continue;
                    }
                    (
                        Some(side),
                        Some(buf),
                        // blocks above INT_MAX bytes use a struct of GiB pieces
                        vec![("blocks per transfer", Some(buf / blk))],
                    )
                };
                let (Some(d), Some(buf_bytes)) = (d, buf_bytes) else {
                    limit(format!(
                        "Dataset of side {side} bytes does not fit in 64 bits"
                    ));
                    continue;
                };
                if self.apis.mpiio {
                    mpiio_limits(&counts).into_iter().for_each(&mut limit);
                }
                if self.apis.phdf5 {
                    let chunk2d = self.dim2d && self.chunk;
                    phdf5_limits(buf_bytes, chunk2d, blk)
                        .into_iter()
                        .for_each(&mut limit);
                }
                if buf_bytes > mem_bytes {
                    limit(format!(
                        "malloc for transfer buffer size ({buf_bytes}) failed: larger than this machine's memory ({mem_bytes} bytes)"
                    ));
                }
                if d.checked_mul(self.num_dsets)
                    .is_none_or(|f| i64::try_from(f).is_err())
                {
                    limit(format!(
                        "File size ({} datasets of {d} bytes) does not fit in a signed 64-bit file offset",
                        self.num_dsets
                    ));
                }
            }
        }
        if let [first, ref others @ ..] = not_multiple[..] {
            let head = format!(
                "Transfer buffer size ({first}) must be a multiple of the interleaved I/O block size ({blk})"
            );
            let mut more = String::new();
            if !others.is_empty() {
                let list: Vec<String> = others.iter().map(u64::to_string).collect();
                more += &format!("; so must the transfer buffer sizes {}", list.join(", "));
            }
            if self.given.blk_size == 0 && !more.is_empty() {
                more += &format!(
                    " (-B was not given: the block size defaults to half of -e, {blk} bytes; \
                     give -B SIZE dividing every transfer buffer size)"
                );
            }
            if let Some(line) = out.iter_mut().find(|m| **m == head) {
                line.push_str(&more);
            }
        }
        if out.is_empty() {
            limits
        } else {
            out
        }
    }
}

/// The names of every field [`Params::result_fields`] may write and a comparison reads
/// back: the storage fields, `payload`, then each shown flag's, then `--stonewall`'s,
/// the run's validity, `--deflate`, `--chunk-cache`, `--stable`'s and `--timeseries`'s
/// interval (not `seed`, which differs from run to run by
/// design). A results file read back carries these besides the
/// parameters every file has; absent, a field is `off`.
pub fn result_keys() -> impl Iterator<Item = &'static str> {
    StorageOptions::FIELDS
        .into_iter()
        .chain([PayloadOptions::FIELDS[0], RandomOrder::FIELD])
        .chain(DEFS.iter().filter_map(shown).map(|s| s.key))
        .chain(["stonewall_s", "wear_out", "valid"])
        .chain(["deflate", "chunk_cache"])
        .chain(["stable", "stable_turned_on"])
        .chain(["timeseries_interval_s"])
}

/// How the option `d` shows when on, if it is a shown flag.
fn shown(d: &Def) -> Option<&Shown> {
    match &d.action {
        Action::Switch(Switch::Flag { shown, .. }) => shown.as_ref(),
        _ => None,
    }
}

/// The shown flags of `defs` that are on in `o`, in table order.
fn shown_on<'a>(defs: &'a [Def], o: &'a Options) -> impl Iterator<Item = &'a Shown> {
    defs.iter().filter_map(shown).filter(|s| (s.on)(o))
}

/// MPI-IO: each vector count or stride of `counts` must fit in an `int` (spec §6.4, §11.9).
fn mpiio_limits(counts: &[Count]) -> Vec<String> {
    let int_max = i32::MAX as u64;
    counts
        .iter()
        .filter(|(_, v)| v.is_none_or(|v| v > int_max))
        .map(|(what, v)| {
            format!(
                "MPI-IO: {what} ({}) exceeds the largest MPI count or stride ({int_max})",
                v.map_or("overflow".to_string(), |v| v.to_string())
            )
        })
        .collect()
}

/// PHDF5 (HDF5 1.10): a transfer at most `INT_MAX` bytes (spec §11.9); with `chunk2d` a
/// `blk × blk` chunk below 4 GiB.
fn phdf5_limits(buf_bytes: u64, chunk2d: bool, blk: u64) -> Vec<String> {
    let int_max = i32::MAX as u64;
    let transfer = (buf_bytes > int_max).then(|| {
        format!("a transfer of {buf_bytes} bytes exceeds the {int_max} bytes HDF5's MPI-IO driver can move in one call")
    });
    let chunk = (chunk2d && blk.checked_mul(blk).is_none_or(|c| c >= 1 << 32))
        .then(|| format!("a chunk of {blk}x{blk} bytes must be smaller than 4 GiB, HDF5's limit"));
    // one line for both: in 2D they come from the same -B
    match (transfer, chunk) {
        (Some(t), Some(c)) => vec![format!("PHDF5: {t}, and {c} (use a smaller -B)")],
        (Some(t), None) => vec![format!("PHDF5: {t}")],
        (None, Some(c)) => vec![format!("PHDF5: {c} (use a smaller -B)")],
        (None, None) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEM: u64 = 24 << 30;

    #[test]
    fn subfiling_is_refused_with_each_reason() {
        let phdf5 = ApiSet {
            posix: false,
            mpiio: false,
            phdf5: true,
        };
        let able = DriverFacts {
            subfiling: true,
            thread_multiple: true,
            hdf5_version: "1.14.5".into(),
            prefix_vars: Vec::new(),
        };
        let ok = resolve(
            |o| {
                o.apis = phdf5;
                o.subfiling = true;
            },
            2,
        );
        assert!(ok.subfiling_problems(&able).is_empty());
        // chunked transfers of one chunk each pass
        let one_chunk = resolve(
            |o| {
                o.apis = phdf5;
                o.subfiling = true;
                o.chunk = true;
                (o.buf_min, o.buf_max, o.blk_size) = (16384, 16384, 16384);
            },
            2,
        );
        assert!(one_chunk.subfiling_problems(&able).is_empty());
        let unable = DriverFacts {
            subfiling: false,
            thread_multiple: false,
            hdf5_version: "1.10.8".into(),
            prefix_vars: vec!["H5FD_SUBFILING_SUBFILE_PREFIX".into()],
        };
        let bad = resolve(
            |o| {
                o.subfiling = true;
                o.coll_metadata = true;
                o.dim2d = true;
                o.interleaved = true;
                o.chunk = true;
                (o.buf_min, o.buf_max, o.blk_size) = (16384, 32768, 16384);
                o.mpi_info = vec![("cb_nodes".into(), "1".into())];
            },
            2,
        );
        let m = bad.subfiling_problems(&unable).join("\n");
        for want in [
            "needs -A phdf5 alone",
            "the linked HDF5 1.10.8 has no subfiling file driver",
            "MPI does not provide MPI_THREAD_MULTIPLE",
            "cannot be combined with --mpi-info",
            "cannot be combined with --coll-metadata",
            "cannot be combined with -g",
            "cannot be combined with -I",
            "cannot be combined with -c with transfers larger than the block",
            "cannot run with H5FD_SUBFILING_SUBFILE_PREFIX set",
        ] {
            assert!(m.contains(want), "{want}: {m}");
        }
        // nothing without the option
        let off = resolve(|o| o.dim2d = true, 2);
        assert!(off.subfiling_problems(&unable).is_empty());
    }

    fn resolve(f: impl FnOnce(&mut Options), w: u32) -> Params {
        let mut o = Options::default();
        f(&mut o);
        Params::resolve(&o, w)
    }

    #[test]
    fn defaults_1d() {
        let p = resolve(|_| {}, 2);
        assert_eq!(
            (p.num_bytes, p.buf_min, p.buf_max, p.blk_size),
            (262144, 131072, 262144, 131072)
        );
        assert_eq!((p.min_procs, p.max_procs, p.num_iters), (1, 2, 1));
        assert!(p.apis.posix && p.apis.mpiio && p.apis.phdf5);
    }

    #[test]
    fn defaults_2d() {
        let p = resolve(|o| o.dim2d = true, 2);
        assert_eq!(
            (p.num_bytes, p.buf_min, p.buf_max, p.blk_size),
            (8192, 4096, 8192, 4096)
        );
    }

    #[test]
    fn clamping_order() {
        // 1D caps transfer sizes by bpp; 2D does not.
        let p = resolve(
            |o| {
                o.num_bytes = 64;
                o.buf_min = 128;
                o.buf_max = 256;
                o.blk_size = 512
            },
            1,
        );
        assert_eq!((p.buf_min, p.buf_max, p.blk_size), (64, 64, 64));
        let p = resolve(
            |o| {
                o.dim2d = true;
                o.num_bytes = 64;
                o.buf_min = 128;
                o.buf_max = 256
            },
            1,
        );
        assert_eq!((p.buf_min, p.buf_max), (128, 256));
        // min > max after defaults
        let p = resolve(
            |o| {
                o.buf_min = 200_000;
                o.buf_max = 100_000
            },
            1,
        );
        assert_eq!((p.buf_min, p.buf_max), (100_000, 100_000));
        // process counts
        let p = resolve(
            |o| {
                o.min_procs = 5;
                o.max_procs = Some(3)
            },
            8,
        );
        assert_eq!((p.min_procs, p.max_procs), (3, 3));
        let p = resolve(
            |o| {
                o.min_procs = 0;
                o.max_procs = Some(0);
                o.num_iters = 0
            },
            8,
        );
        assert_eq!((p.min_procs, p.max_procs, p.num_iters), (1, 1, 1));
    }

    #[test]
    fn loops() {
        let p = resolve(
            |o| {
                o.min_procs = 1;
                o.max_procs = Some(6)
            },
            8,
        );
        assert_eq!(p.proc_counts(), vec![6, 3, 1]);
        let p = resolve(
            |o| {
                o.num_bytes = 10240;
                o.buf_min = 4096;
                o.buf_max = 10240
            },
            1,
        );
        assert_eq!(p.buf_sizes(), vec![4096, 8192]);
        let p = resolve(|o| o.num_bytes = 1, 1);
        assert_eq!(p.buf_sizes(), vec![0]);
    }

    #[test]
    fn a_transfer_size_problem_of_several_sizes_is_one_line() {
        // the fresh user's `-e 16M -x 64K -X 4M`: 7 lines before
        let p = resolve(
            |o| {
                o.num_bytes = 16 << 20;
                o.buf_min = 64 << 10;
                o.buf_max = 4 << 20;
            },
            1,
        );
        let m = p.problems(1, MEM);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].starts_with("Transfer buffer size (65536) must be a multiple of the interleaved I/O block size (8388608); so must the transfer buffer sizes 131072, "),
            "{m:?}"
        );
        assert!(m[0].ends_with(", 4194304 (-B was not given: the block size defaults to half of -e, 8388608 bytes; give -B SIZE dividing every transfer buffer size)"), "{m:?}");
        // --file-per-process with -g: the reason alone, not the sizes' problems it causes
        let p = resolve(
            |o| {
                o.file_per_process = true;
                o.dim2d = true;
                o.num_bytes = 1 << 20;
            },
            2,
        );
        let m = p.problems(2, MEM);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].starts_with("--file-per-process cannot be combined with -g"),
            "{m:?}"
        );
        // the trial's `-g -c -B 64K -e 64K`: the 32 KiB transfer breaks the C tool's rule,
        // the 64 KiB one would be a 4 GiB PHDF5 transfer and chunk; the rule alone is told
        let blk64k = |o: &mut Options| {
            o.dim2d = true;
            o.chunk = true;
            o.num_bytes = 64 << 10;
            o.blk_size = 64 << 10;
        };
        let m = resolve(blk64k, 1).problems(1, MEM);
        assert_eq!(
            m,
            vec!["Transfer buffer size (32768) must be a multiple of the interleaved I/O block size (65536)"]
        );
        // with the rule kept (-x 64K), the limits are told, in one line
        let m = resolve(
            |o| {
                blk64k(o);
                o.buf_min = 64 << 10;
            },
            1,
        )
        .problems(1, MEM);
        assert_eq!(
            m,
            vec![
                "PHDF5: a transfer of 4294967296 bytes exceeds the 2147483647 bytes HDF5's \
                  MPI-IO driver can move in one call, and a chunk of 65536x65536 bytes must be \
                  smaller than 4 GiB, HDF5's limit (use a smaller -B)"
            ]
        );
    }

    #[test]
    fn problems_found_before_io() {
        // err_block golden: -x 48K -X 48K -B 32K on 1 process
        let p = resolve(
            |o| {
                o.buf_min = 48 << 10;
                o.buf_max = 48 << 10;
                o.blk_size = 32 << 10
            },
            1,
        );
        assert_eq!(
            p.problems(1, MEM),
            vec!["Transfer buffer size (49152) must be a multiple of the interleaved I/O block size (32768)"]
        );
        // err_not_multiple golden: reported once although it fails for N = 2 and 1
        let p = resolve(
            |o| {
                o.num_bytes = 100 << 10;
                o.buf_min = 64 << 10;
                o.buf_max = 64 << 10;
                o.blk_size = 16 << 10
            },
            2,
        );
        assert_eq!(p.problems(2, MEM), vec!["Dataset size/process (102400) must be a multiple of the trasfer buffer size (65536)"]);
        // err_too_many_procs
        let p = resolve(
            |o| {
                o.min_procs = 4;
                o.max_procs = Some(4)
            },
            2,
        );
        assert_eq!(
            p.problems(2, MEM),
            vec!["number of process(4) must be <= number of processes in MPI_COMM_WORLD(2)"]
        );
        // -e 1: block and buffer are 0, by default: the message says where 0 came from
        let p = resolve(|o| o.num_bytes = 1, 1);
        assert_eq!(
            p.problems(1, MEM),
            vec![
                "Transfer block size (0) must be > 0: -B was not given, and its default, \
                 half of -e (1 byte), is 0; give -B SIZE or a larger -e"
            ]
        );
        let p = resolve(
            |o| {
                o.num_bytes = 1;
                o.blk_size = 1
            },
            1,
        );
        assert_eq!(
            p.problems(1, MEM),
            vec![
                "Transfer buffer size (0) must be > 0: -x was not given, and its default, \
                 half of -e (1 byte), is 0; give -x SIZE or a larger -e"
            ]
        );
        // defaults are fine
        assert!(resolve(|_| {}, 2).problems(2, MEM).is_empty());
        // 2D defaults are fine
        assert!(resolve(|o| o.dim2d = true, 2).problems(2, MEM).is_empty());
        // counts MPI-IO and HDF5 1.10 cannot express are refused up front, POSIX is fine
        let big = |apis: ApiSet| {
            resolve(
                |o| {
                    o.apis = apis;
                    o.num_bytes = 3 << 30;
                    o.buf_min = 3 << 30;
                    o.blk_size = 3 << 30;
                    o.max_procs = Some(1);
                },
                1,
            )
            .problems(1, MEM)
        };
        assert!(big(ApiSet {
            posix: true,
            ..Default::default()
        })
        .is_empty());
        // MPI-IO moves 1D blocks above INT_MAX bytes with a struct datatype
        assert!(big(ApiSet {
            mpiio: true,
            ..Default::default()
        })
        .is_empty());
        assert!(big(ApiSet {
            phdf5: true,
            ..Default::default()
        })[0]
            .contains("HDF5's MPI-IO driver"));
    }

    #[test]
    fn file_per_process_refuses_2d_interleaved_and_stonewall_with_the_reason() {
        let fpp = |f: fn(&mut Options)| {
            resolve(
                |o| {
                    o.file_per_process = true;
                    f(o)
                },
                2,
            )
            .problems(2, MEM)
        };
        assert!(fpp(|_| {}).is_empty());
        let g = fpp(|o| o.dim2d = true);
        assert!(
            g.iter()
                .any(|m| m.starts_with("--file-per-process cannot be combined with -g: ")),
            "{g:?}"
        );
        let i = fpp(|o| o.interleaved = true);
        assert!(
            i.iter()
                .any(|m| m.starts_with("--file-per-process cannot be combined with -I: ")),
            "{i:?}"
        );
        let sw = fpp(|o| {
            o.stonewall.set_seconds("1").unwrap();
        });
        assert!(
            sw.iter()
                .any(|m| m.starts_with("--file-per-process cannot be combined with --stonewall")),
            "{sw:?}"
        );
        // the flag shows in the parameter block and the results only when on
        let on = resolve(|o| o.file_per_process = true, 2);
        assert!(on
            .result_fields()
            .contains(&("file_per_process", "on".to_string())));
        let off = resolve(|_| {}, 2);
        assert!(off
            .result_fields()
            .iter()
            .all(|(k, _)| *k != "file_per_process"));
    }

    #[test]
    fn api_limits_one_message_each_in_order() {
        assert_eq!(
            mpiio_limits(&[("a", Some(7)), ("b", Some(1 << 31)), ("c", None)]),
            vec![
                "MPI-IO: b (2147483648) exceeds the largest MPI count or stride (2147483647)",
                "MPI-IO: c (overflow) exceeds the largest MPI count or stride (2147483647)"
            ]
        );
        assert!(phdf5_limits(i32::MAX as u64, true, 65535).is_empty());
        let m = phdf5_limits(1 << 31, true, 1 << 16);
        assert_eq!(m.len(), 1, "both limits of one -B in one line");
        assert!(m[0].starts_with("PHDF5: a transfer of 2147483648 bytes"));
        assert!(m[0].contains(", and a chunk of 65536x65536 bytes"));
        assert_eq!(
            phdf5_limits(8, true, 1 << 16),
            vec!["PHDF5: a chunk of 65536x65536 bytes must be smaller than 4 GiB, HDF5's limit (use a smaller -B)"]
        );
        assert!(phdf5_limits(8, false, 1 << 16).is_empty());
    }

    #[test]
    fn shown_flags_show_only_when_on() {
        use super::super::options::{Action, Shown, Switch};
        let table = [Def {
            short: None,
            long: "summary",
            min: 2,
            action: Action::Switch(Switch::Flag {
                words: false,
                apply: |o, on| o.summary = on,
                shown: Some(Shown {
                    on: |o| o.summary,
                    line: "Summary=on (a table after the report)",
                    key: "summary",
                }),
            }),
            help: "",
        }];
        let off = resolve(|_| {}, 2);
        assert_eq!(shown_on(&table, &off).count(), 0);
        let on = resolve(|o| o.summary = true, 2);
        let lines: Vec<&str> = shown_on(&table, &on).map(|s| s.line).collect();
        assert_eq!(lines, ["Summary=on (a table after the report)"]);
        assert_eq!(shown(&table[0]).map(|s| s.key), Some("summary"));
        // the table's own: nothing without options, the storage fields with one
        assert!(off.report_lines(&StorageFacts::default()).is_empty());
        assert!(off.result_fields().is_empty());
        let fsync = resolve(|o| o.storage.fsync = true, 2);
        let fields = fsync.result_fields();
        assert_eq!(fields.len(), 5);
        assert_eq!(fields[0], ("fsync", "on".to_string()));
        assert_eq!(fsync.report_lines(&StorageFacts::default()).len(), 1);
        let keys: Vec<&str> = result_keys().collect();
        assert_eq!(&keys[..5], StorageOptions::FIELDS);
    }

    #[test]
    fn fill_settings_refused_by_hdf5_are_problems() {
        use crate::ffi::hdf5::{FillTime, FillValue};
        let p = resolve(
            |o| {
                o.fill.value = Some(FillValue::Undefined);
                o.fill.time = Some(FillTime::Alloc);
                o.chunk = true;
            },
            2,
        );
        assert_eq!(
            p.problems(2, MEM),
            vec!["--fill-value=undefined --fill-time=alloc (chunked datasets): HDF5 refuses this combination: \"fill value writing on allocation set, but no fill value defined\" (H5Dcreate2)"]
        );
        // before the engine's checks, and alone
        let p = resolve(
            |o| {
                o.fill.value = Some(FillValue::Undefined);
                o.fill.time = Some(FillTime::Alloc);
                o.min_procs = 4;
                o.max_procs = Some(4);
            },
            2,
        );
        let m = p.problems(2, MEM);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].contains("(contiguous datasets)"), "{m:?}");
        // accepted settings add nothing
        let p = resolve(
            |o| {
                o.fill.value = Some(FillValue::Byte(7));
                o.fill.time = Some(FillTime::Never);
            },
            2,
        );
        assert!(p.problems(2, MEM).is_empty());
    }
}
