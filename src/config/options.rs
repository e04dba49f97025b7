//! The option table ([`DEFS`]) and what the options set ([`Options`]: checked, not yet
//! defaulted or clamped, spec §1).

use std::ffi::{OsStr, OsString};

use super::acceptance::Acceptance;
use super::mpi_info::{check_hint, MAX_KEY, MAX_VAL};
use super::order::{parse_phases, RandomOrder};
use super::payload::{parse_payload, PayloadOptions};
use super::stonewall::StonewallOptions;
use super::storage::StorageOptions;
use super::values::{
    count, file_name, parse_alloc_time, parse_api_list, parse_chunk_cache, parse_debug_list,
    parse_fill_time, parse_fill_value, parse_int, parse_int32, parse_interval, parse_size,
    positive_size, reorder, ApiSet, ChunkCache, Debug, ValueError, ValueKind, MAX_COUNT,
    STDOUT_HINT,
};
use crate::ffi::hdf5::FillTime;
use crate::terms::FillSettings;

/// What the command line or the C API asked for, checked but not yet defaulted or
/// clamped. Sizes are in bytes; zero in a size field means "not given" (spec §1.5 rule 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `-A`: selected APIs (empty = all).
    pub apis: ApiSet,
    /// `-e`: bytes per process per dataset; 0 = default (256 KiB in 1D, 8 KiB in 2D).
    pub num_bytes: u64,
    /// `-x`: minimum transfer-buffer size in bytes; 0 = default.
    pub buf_min: u64,
    /// `-X`: maximum transfer-buffer size in bytes; 0 = default.
    pub buf_max: u64,
    /// `-B`: block size in bytes; 0 = default.
    pub blk_size: u64,
    /// `-a`: HDF5 object alignment in bytes (default 1 = none); never 0.
    pub h5_align: u64,
    /// `-T`: HDF5 alignment threshold in bytes (default 1).
    pub h5_thresh: u64,
    /// `-F`: number of files (>= 1, default 1).
    pub num_files: u64,
    /// `-d`: datasets per file (>= 1, default 1).
    pub num_dsets: u64,
    /// `-i`: iterations; 0 is clamped to 1.
    pub num_iters: u32,
    /// `-p`: minimum number of processes; 0 is clamped to 1.
    pub min_procs: u32,
    /// `-P`: maximum number of processes; `None` = the size of `MPI_COMM_WORLD`; 0 is clamped to 1.
    pub max_procs: Option<u32>,
    /// `-c`: chunked HDF5 storage (chunk = block size).
    pub chunk: bool,
    /// `-C`: collective I/O for MPI-IO and PHDF5.
    pub collective: bool,
    /// `-g`: 2D geometry.
    pub dim2d: bool,
    /// `-I`: interleaved block pattern.
    pub interleaved: bool,
    /// `-w`: write phase only.
    pub write_only: bool,
    /// `-D`: debug settings.
    pub debug: Debug,
    /// `-o`: report file (its bytes as given); `None` = standard output.
    pub output: Option<OsString>,
    /// `--json FILE`: machine-readable results as JSON (`-` = standard output).
    pub json: Option<OsString>,
    /// `--csv FILE`: machine-readable results as CSV (`-` = standard output).
    pub csv: Option<OsString>,
    /// `--rank-csv FILE`: every rank's time per iteration and phase as CSV.
    pub rank_csv: Option<OsString>,
    /// `--progress`: a line on stderr after each (processes, transfer size) step.
    pub progress: bool,
    /// `--timeout`: seconds after which every rank ends the run (issue 35).
    pub timeout: Option<u64>,
    /// `--summary`: a summary table after the report.
    pub summary: bool,
    /// `--fill-value`, `--fill-time` (`-n`), `--alloc-time` (default: none set).
    pub fill: FillSettings,
    /// `--fsync`, `--direct`, `--reorder`, `--read-only`, `--drop-caches` (default: none).
    pub storage: StorageOptions,
    /// `--expect`, `--baseline`, `--tolerance`, `--html`, `--from` (default: none).
    pub acceptance: Acceptance,
    /// `--stonewall`, `--wear-out` (default: none: phases move their whole volume).
    pub stonewall: StonewallOptions,
    /// `--mpi-info KEY=VALUE`, repeatable: MPI-IO hints after those of `HDF5_MPI_INFO`,
    /// in the order given (default: none).
    pub mpi_info: Vec<(String, String)>,
    /// `--deflate=LEVEL`: PHDF5 datasets compressed with the deflate filter at this level
    /// (0-9; `H5Pset_deflate`), chunked and collective only (default: none).
    pub deflate: Option<u32>,
    /// `--coll-metadata`: PHDF5 metadata reads collective (`H5Pset_all_coll_metadata_ops`)
    /// and metadata writes collective (`H5Pset_coll_metadata_write`) on the file-access
    /// list (default: off, HDF5's independent metadata I/O).
    pub coll_metadata: bool,
    /// `--chunk-cache=BYTES[,SLOTS[,W0]]`: the chunk cache of each PHDF5 dataset
    /// (`H5Pset_chunk_cache` on its dataset-access list), chunked datasets only
    /// (default: none, the file's cache).
    pub chunk_cache: Option<ChunkCache>,
    /// `--subfiling`: PHDF5 files through HDF5's subfiling file driver
    /// (`H5Pset_fapl_subfiling` with HDF5's default configuration; HDF5 1.14.0 and
    /// later built with it; MPI initialised with `MPI_THREAD_MULTIPLE`) instead of the
    /// MPI-IO driver (default: off).
    pub subfiling: bool,
    /// `--payload`, `--seed` (default: the C tool's bytes).
    pub payload: PayloadOptions,
    /// `--conditions`: record the run conditions (kernel, mount, nodes, MPI-IO layer)
    /// in the results and on the page (default: off).
    pub conditions: bool,
    /// `--label KEY=VALUE`, repeatable: the sign-off block's entries, in the order given
    /// (default: none).
    pub labels: Vec<(String, String)>,
    /// `--random[=PHASES]`: each dataset's transfers in a seeded random order in these
    /// phases (default: none, in order).
    pub random: RandomOrder,
    /// `--file-per-process`: every rank its own data file per file index (IOR `-F`,
    /// "N-N"), opened on `MPI_COMM_SELF` (default: off, one shared file per index).
    pub file_per_process: bool,
    /// `--latency`: time every transfer call of the timed loops (issue 31; default off).
    pub latency: bool,
    /// `--timeseries[=INTERVAL]`: count each rank's bytes per interval of each phase,
    /// the interval in nanoseconds (issue 31; default off, 1 s when given bare).
    pub timeseries: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            apis: ApiSet::default(),
            num_bytes: 0,
            buf_min: 0,
            buf_max: 0,
            blk_size: 0,
            h5_align: 1,
            h5_thresh: 1,
            num_files: 1,
            num_dsets: 1,
            num_iters: 1,
            min_procs: 1,
            max_procs: None,
            chunk: false,
            collective: false,
            dim2d: false,
            interleaved: false,
            write_only: false,
            debug: Debug::default(),
            output: None,
            json: None,
            csv: None,
            rank_csv: None,
            progress: false,
            timeout: None,
            summary: false,
            fill: FillSettings::default(),
            storage: StorageOptions::default(),
            acceptance: Acceptance::default(),
            stonewall: StonewallOptions::default(),
            mpi_info: Vec::new(),
            deflate: None,
            coll_metadata: false,
            chunk_cache: None,
            subfiling: false,
            payload: PayloadOptions::default(),
            conditions: false,
            labels: Vec::new(),
            file_per_process: false,
            latency: false,
            timeseries: None,
            random: RandomOrder::default(),
        }
    }
}

/// One `--mpi-info` hint: `KEY=VALUE`, both non-empty after trimming spaces and tabs,
/// without `;` (which separates the entries of `HDF5_MPI_INFO`); the MPI library's
/// length limits are checked with those of `HDF5_MPI_INFO` when the run starts.
fn hint(o: &mut Options, v: &str) -> Result<(), ValueError> {
    let blank: &[char] = &[' ', '\t'];
    let (k, val) = v
        .split_once('=')
        .map(|(k, val)| (k.trim_matches(blank), val.trim_matches(blank)))
        .ok_or_else(|| ValueError::from("expected KEY=VALUE"))?;
    if v.contains(';') {
        return Err(ValueError::from("one KEY=VALUE per --mpi-info (no ';')"));
    }
    // the rules of HDF5_MPI_INFO's entries: a newline would forge a line of the report
    check_hint(v, k, val, MAX_KEY, MAX_VAL).map_err(ValueError::from)?;
    o.mpi_info.push((k.to_string(), val.to_string()));
    Ok(())
}

/// One `--label`: `KEY=VALUE`, the key of letters, digits, `_`, `-` and `.` (at most
/// 64), the value non-empty after trimming blanks, at most 256 characters, without
/// control characters or `;` (which separates the labels in the results); a key given
/// twice is refused; at most 32 labels.
fn label(o: &mut Options, v: &str) -> Result<(), ValueError> {
    let (k, val) = v
        .split_once('=')
        .map(|(k, val)| (k.trim(), val.trim()))
        .ok_or_else(|| ValueError::from("expected KEY=VALUE"))?;
    let key_ok = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    if k.is_empty() || k.len() > 64 || !k.chars().all(key_ok) {
        return Err(ValueError::from(
            "the key must be 1 to 64 letters, digits, '_', '-' or '.'",
        ));
    }
    if val.is_empty() || val.chars().count() > 256 {
        return Err(ValueError::from("the value must be 1 to 256 characters"));
    }
    if val.contains(';') || val.chars().any(char::is_control) {
        return Err(ValueError::from(
            "the value must hold no ';' and no control character",
        ));
    }
    if o.labels.iter().any(|(x, _)| x == k) {
        return Err(ValueError::from(format!("the label {k} is given twice")));
    }
    if o.labels.len() >= 32 {
        return Err(ValueError::from("more than 32 labels"));
    }
    o.labels.push((k.to_string(), val.to_string()));
    Ok(())
}

/// One option of h5perf.
pub struct Def {
    /// The short letter (`-e`), if any.
    pub short: Option<char>,
    /// The full long name, without `--` (`num-bytes`), as the 1.10.8 release takes it.
    pub long: &'static str,
    /// The length of the shortest accepted abbreviation of [`Def::long`] (`num-b`: 5), an
    /// extension; the help text shows it as `--num-b[ytes]`.
    pub min: usize,
    /// What the option takes and does.
    pub action: Action,
    /// The help text's description: lines of at most 71 columns, joined by `\n`.
    pub help: &'static str,
}

/// What an option takes and does.
pub enum Action {
    /// It takes no value.
    Switch(Switch),
    /// It takes a value of `kind`; `apply` parses the text and stores it, or returns the
    /// reason for refusing it (printed after `invalid value 'V' for -e/--num-bytes: `).
    Value {
        /// What the value is.
        kind: ValueKind,
        /// Parse and store the value.
        apply: fn(&mut Options, &str) -> Result<(), ValueError>,
    },
    /// It takes a file name; `apply` receives the argument's bytes as given (a name that
    /// is not UTF-8 names exactly that file).
    Name {
        /// What the value is.
        kind: ValueKind,
        /// Store the name, or return the reason for refusing it.
        apply: fn(&mut Options, &OsStr) -> Result<(), ValueError>,
    },
    /// It takes a value only attached, `--name=VALUE` (getopt's `optional_argument`);
    /// `apply` receives `None` for a bare `--name`. Long form only.
    Optional {
        /// What the value is.
        kind: ValueKind,
        /// Parse and store the value, or the default when `None`.
        apply: fn(&mut Options, Option<&str>) -> Result<(), ValueError>,
    },
}

/// What an option without value does.
pub enum Switch {
    /// Ends the parse: `-h`, `--version`.
    Stop(Stop),
    /// Sets a mode of the run, not a benchmark option: `--fill-behaviour`, `--strict`.
    Mode(fn(&mut Modes)),
    /// A benchmark flag; `apply` receives `true`, or the boolean word the long form was
    /// given when `words` is set (`--interleaved=0`).
    Flag {
        /// The long form accepts a boolean word (spec §1.3 quirk, made explicit).
        words: bool,
        /// Store the flag.
        apply: fn(&mut Options, bool),
        /// How the flag shows when it is on (none: nowhere, or as its consumer writes it).
        shown: Option<Shown>,
    },
}

/// How a flag the C tool lacks shows when it is on: a parameter-block line and a results
/// field `on`.
pub struct Shown {
    /// Whether the flag is on in `o`.
    pub on: fn(&Options) -> bool,
    /// The parameter-block line without `rank R: ` (`Name=on (what it does)`).
    pub line: &'static str,
    /// The field's name in the JSON and CSV results (`name`).
    pub key: &'static str,
}

/// An option that ends the parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `-h`/`--help`.
    Help,
    /// `--version`.
    Version,
}

/// The modes set by `--fill-behaviour` and `--strict`.
#[derive(Debug, Default)]
pub struct Modes {
    /// `--fill-behaviour` was given.
    pub fill_behaviour: bool,
    /// `--strict` was given.
    pub strict: bool,
}

impl Def {
    /// `-e/--num-bytes`, or `--version` for an option without short form (messages).
    pub fn label(&self) -> String {
        match self.short {
            Some(c) => format!("-{c}/--{}", self.long),
            None => format!("--{}", self.long),
        }
    }

    /// Whether `name` (text after `--`, without `=VALUE`) spells this option: a prefix of
    /// the full name at least as long as the minimum abbreviation (spec §1.3).
    pub fn matches_long(&self, name: &str) -> bool {
        name.len() >= self.min && self.long.starts_with(name)
    }

    /// The long form as the help text shows it: `--num-b[ytes]`.
    pub fn long_shown(&self) -> String {
        let (min, rest) = self.long.split_at(self.min);
        if rest.is_empty() {
            format!("--{min}")
        } else {
            format!("--{min}[{rest}]")
        }
    }

    /// The value's name (`SIZE`), `[=SHIFT]` for an optional value, or `None` for an
    /// option without value.
    pub fn var(&self) -> Option<&'static str> {
        match self.action {
            Action::Value { kind, .. } | Action::Name { kind, .. } => Some(kind.var()),
            Action::Optional {
                kind: ValueKind::Shift,
                ..
            } => Some("[=SHIFT]"),
            Action::Optional {
                kind: ValueKind::Phases,
                ..
            } => Some("[=PHASES]"),
            Action::Optional {
                kind: ValueKind::Interval,
                ..
            } => Some("[=INTERVAL]"),
            Action::Optional { .. } => Some("[=VALUE]"),
            Action::Switch(_) => None,
        }
    }

    /// Whether the option takes an optional value (`--reorder[=SHIFT]`).
    pub fn optional_value(&self) -> bool {
        matches!(self.action, Action::Optional { .. })
    }
}

/// Letters the C tool accepted without implementing them (spec §1.2); `-n` is now
/// `--no-fill`.
pub const UNSUPPORTED: [char; 3] = ['m', 's', 't'];

/// The option with the short letter `c`.
pub fn by_short(c: char) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.short == Some(c))
}

/// The option spelled `name` after `--` (a full name or an accepted abbreviation).
pub fn by_long(name: &str) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.matches_long(name))
}

/// Store the value `checked` in `field`, or refuse it with the reason.
fn put<T>(field: &mut T, checked: Result<T, ValueError>) -> Result<(), ValueError> {
    *field = checked?;
    Ok(())
}

/// A count of files or datasets (spec §1.6): a whole number of at least 1.
fn whole_count(v: &str) -> Result<u64, ValueError> {
    count(parse_int(v, MAX_COUNT)?)
}

/// A flag without boolean words that shows nowhere by itself.
const fn flag(apply: fn(&mut Options, bool)) -> Action {
    Action::Switch(Switch::Flag {
        words: false,
        apply,
        shown: None,
    })
}

/// A value of `kind`, parsed and stored by `apply`.
const fn value(kind: ValueKind, apply: fn(&mut Options, &str) -> Result<(), ValueError>) -> Action {
    Action::Value { kind, apply }
}

/// A file name of `kind`, stored by `apply`.
const fn name(
    kind: ValueKind,
    apply: fn(&mut Options, &OsStr) -> Result<(), ValueError>,
) -> Action {
    Action::Name { kind, apply }
}

/// A switch that ends the parse.
const fn stop(stop: Stop) -> Action {
    Action::Switch(Switch::Stop(stop))
}

/// A switch that sets a mode of the run.
const fn mode(apply: fn(&mut Modes)) -> Action {
    Action::Switch(Switch::Mode(apply))
}

/// A flag whose long form accepts a boolean word, shown nowhere by itself.
const fn worded(apply: fn(&mut Options, bool)) -> Action {
    Action::Switch(Switch::Flag {
        words: true,
        apply,
        shown: None,
    })
}

/// One [`Def`]: the short letter or `_` (none), the long name, the length of its shortest
/// abbreviation, the action, the help text.
macro_rules! def {
    (_ $long:literal $min:literal, $action:expr, $help:expr) => {
        def!(@ None, $long, $min, $action, $help)
    };
    ($short:literal $long:literal $min:literal, $action:expr, $help:expr) => {
        def!(@ Some($short), $long, $min, $action, $help)
    };
    (@ $short:expr, $long:expr, $min:expr, $action:expr, $help:expr) => {
        Def { short: $short, long: $long, min: $min, action: $action, help: $help }
    };
}

/// Every option, in the order of the help text. A long spelling matches at most one
/// entry (`--al` is `--align`, `--allo` is `--alloc-time`; checked by unit tests).
pub static DEFS: [Def; 60] = [
    def!('h' "help" 2, stop(Stop::Help), "Print this help and exit."),
    def!(_ "version" 2, stop(Stop::Version), "Print the version of h5perf and exit."),
    def!('a' "align" 2, value(ValueKind::Size, |o, v| {
            put(&mut o.h5_align, positive_size(parse_size(v)?))
        }),
        "HDF5 object alignment, at least 1. [default: 1, no alignment]"),
    def!('A' "api" 2, value(ValueKind::ApiList, |o, v| {
            for api in parse_api_list(v)? {
                o.apis.insert(api);
            }
            Ok(())
        }),
        "APIs to test, separated by commas: posix, mpiio, phdf5 (any\n\
         case). They always run in that order. Repeated -A options add up.\n\
         [default: all three]"),
    def!(_ "alloc-time" 4, value(ValueKind::AllocTime, |o, v| {
            put(&mut o.fill.alloc, parse_alloc_time(v).map(Some))
        }),
        "PHDF5 datasets: when HDF5 allocates their space: default, early,\n\
         incr or late. With the MPI-IO driver HDF5 always allocates early,\n\
         whatever is asked. [default: the library's]"),
    def!(_ "baseline" 2, name(ValueKind::File, |o, v| o.acceptance.set_baseline(v)),
        "Compare each mean throughput with the same processes, transfer size,\n\
         API and phase in FILE, the --csv or --json results of an earlier\n\
         run: worse by more than --tolerance and by more than twice the\n\
         combined standard deviation is a regression (exit status 3).\n\
         Measurements missing on either side are listed. [default: none]"),
    def!('B' "block-size" 2, value(ValueKind::Size, |o, v| put(&mut o.blk_size, parse_size(v))),
        "Block size (see below). [default: half of -e]"),
    def!('c' "chunk" 2, flag(|o, on| o.chunk = on),
        "Store HDF5 datasets in chunks of one block (2D: block x block);\n\
         in 2D the POSIX and MPI-IO files imitate that chunk layout.\n\
         [default: contiguous]"),
    def!(_ "chunk-cache" 6, value(ValueKind::ChunkCache, |o, v| {
            put(&mut o.chunk_cache, parse_chunk_cache(v).map(Some))
        }),
        "PHDF5: give each dataset a chunk cache of BYTES (H5Pset_chunk_cache\n\
         on its dataset-access list), with SLOTS hash-table slots and the\n\
         preemption weight W0 (0-1), the file's where not given. Needs\n\
         chunked datasets (-c) and PHDF5 among the APIs. [default: none]"),
    def!('C' "collective" 2, flag(|o, on| o.collective = on),
        "Use collective I/O for MPI-IO and PHDF5. [default: independent]"),
    def!(_ "coll-metadata" 5, Action::Switch(Switch::Flag {
            words: false,
            apply: |o, on| o.coll_metadata = on,
            shown: Some(Shown {
                on: |o| o.coll_metadata,
                line: "Collective metadata=on (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write)",
                key: "coll_metadata",
            }),
        }),
        "PHDF5: read and write the file's metadata collectively\n\
         (H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write on\n\
         the file-access list). Needs PHDF5 among the APIs. [default: off]"),
    def!(_ "conditions" 3, flag(|o, on| o.conditions = on),
        "Record the run conditions in the results (--json, --csv) and on the\n\
         --html page: kernel, the data directory's mount (source, type,\n\
         options, device), each node's memory, processors and load, the\n\
         MPI-IO component and the MPI-IO and HDF5 environment variables.\n\
         Gathered once before the run, outside the timers. Warns when the\n\
         data of a node fits in its memory (reads may be cache figures).\n\
         The verdict then names the measurement mode and each criterion on a\n\
         page-cache figure, with the rule. [default: off]"),
    def!(_ "csv" 2, name(ValueKind::Destination, |o, v| {
            put(&mut o.csv, file_name(v, STDOUT_HINT).map(Some))
        }),
        "Also write the results to FILE as CSV: a header row, then one row\n\
         per number of processes, transfer size, API and phase. - means\n\
         standard output, after the report. [default: none]"),
    def!('d' "num-dsets" 5, value(ValueKind::Int, |o, v| put(&mut o.num_dsets, whole_count(v))),
        "Number of datasets per file, at least 1. [default: 1]"),
    def!('D' "debug" 2, value(ValueKind::DebugList, |o, v| {
            o.debug = parse_debug_list(v, o.debug)?;
            Ok(())
        }),
        "Debug flags separated by commas (see below). [default: none]"),
    def!(_ "deflate" 3, value(ValueKind::Int, |o, v| {
            put(&mut o.deflate, parse_int(v, 9).map(|l| Some(l as u32)))
        }),
        "Compress the PHDF5 datasets with the deflate (zlib) filter at LEVEL\n\
         0-9 (H5Pset_deflate). Needs chunked datasets (-c) and collective\n\
         I/O (-C), as HDF5 writes filtered datasets in parallel only\n\
         collectively, and an HDF5 with the deflate filter. [default: none]"),
    def!(_ "direct" 2, flag(|o, on| o.storage.direct = on),
        "POSIX only (-A posix): open the data files with O_DIRECT, so that\n\
         transfers bypass the page cache. Every POSIX call's length must be\n\
         a multiple of the file system's direct-I/O alignment (statx\n\
         STATX_DIOALIGN, else the logical block size); tmpfs is refused.\n\
         [default: off]"),
    def!(_ "drop-caches" 2, flag(|o, on| o.storage.drop_caches = on),
        "Before each read phase, outside every timer, every process fsyncs\n\
         its data files, then one per node writes 3 to\n\
         /proc/sys/vm/drop_caches (root only), so that reads come from the\n\
         storage. [default: off]"),
    def!('e' "num-bytes" 5, value(ValueKind::Size, |o, v| put(&mut o.num_bytes, parse_size(v))),
        "Bytes per process per dataset (2D: see below). [default: 256K,\n\
         8K with -g]"),
    def!(_ "expect" 2, value(ValueKind::Criterion, |o, v| o.acceptance.add_expect(v)),
        "A contract criterion, repeatable: API.PHASE[.max|.mean|.min] >=, >,\n\
         <= or < a bound in B/s, kB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s or\n\
         TiB/s, optionally @procs=N,xfer=SIZE (mpiio.write>=2GB/s). Every\n\
         measurement it selects must meet it; a verdict table follows the\n\
         report and the exit status is 3 when one fails. API.PHASE.cv<=PCT%\n\
         bounds the spread over the iterations instead. [default: none]"),
    def!('F' "num-files" 5, value(ValueKind::Int, |o, v| put(&mut o.num_files, whole_count(v))),
        "Number of files, at least 1. [default: 1]"),
    def!(_ "file-per-process" 4, Action::Switch(Switch::Flag {
            words: false,
            apply: |o, on| o.file_per_process = on,
            shown: Some(Shown {
                on: |o| o.file_per_process,
                line: "File per process=on (each rank its own file per file index, \
                       #pio_tmp_<f>-<rank><suffix>, opened on MPI_COMM_SELF; the dataset and \
                       file sizes above and in the transfer headers are one rank's)",
                key: "file_per_process",
            }),
        }),
        "Every rank writes and reads its own file per file index (IOR -F,\n\
         N-N): #pio_tmp_<f>-<rank><suffix> beside the shared names, opened\n\
         alone (MPI-IO and PHDF5 on MPI_COMM_SELF). 1D contiguous only.\n\
         The rate: all ranks' bytes over the slowest rank's time.\n\
         [default: off]"),
    def!(_ "fill-behaviour" 6, mode(|m| m.fill_behaviour = true),
        "Run no benchmark: find out by experiment when the linked HDF5\n\
         writes fill values (serial on rank 0, then on all processes) and\n\
         print HDF5's documented tables with every difference marked.\n\
         Exits 0 unless --st[rict] is given and something differs."),
    def!(_ "fill-time" 6, value(ValueKind::FillTime, |o, v| {
            put(&mut o.fill.time, parse_fill_time(v).map(Some))
        }),
        "PHDF5 datasets: when HDF5 writes the fill value into new space:\n\
         never, ifset (if a fill value is set; HDF5 1.10.8 also writes 0\n\
         into new chunks without one) or alloc (always). Fills written at\n\
         dataset creation count in the Write time. [default: ifset]"),
    def!(_ "fill-value" 6, value(ValueKind::FillValue, |o, v| {
            put(&mut o.fill.value, parse_fill_value(v).map(Some))
        }),
        "PHDF5 datasets: fill value, a byte 0-255, or undefined (no fill\n\
         value; HDF5 then refuses --fill-time=alloc). [default: the\n\
         library's, 0]"),
    def!(_ "from" 2, name(ValueKind::File, |o, v| o.acceptance.add_from(v)),
        "Run no benchmark: make the --html page and the verdict of --expect\n\
         and --baseline from the results files of an earlier run: its\n\
         --csv or --json file and, for the per-rank chart, its --rank-csv\n\
         file (give --from once per file)."),
    def!(_ "fsync" 2, flag(|o, on| o.storage.fsync = on),
        "Before closing each file written, force its data to stable storage\n\
         (POSIX fsync, MPI_File_sync, PHDF5 H5Fflush). The sync counts in\n\
         Write and Write Open-Close, not in Raw Data Write; -D t shows its\n\
         time as Write File Sync. [default: off]"),
    def!('g' "geometry" 2, flag(|o, on| o.dim2d = on),
        "2D geometry: square datasets (see below). [default: 1D]"),
    def!(_ "html" 2, name(ValueKind::Destination, |o, v| o.acceptance.set_html(v)),
        "Also write one self-contained HTML page to FILE at the end: the run,\n\
         the verdict, charts of throughput against transfer size and\n\
         processes, per-rank times of the slowest step, a summary table.\n\
         No script, no network; prints on A4. - means standard output, after\n\
         the report. [default: none]"),
    def!('i' "num-iterations" 5,
        value(ValueKind::Int, |o, v| put(&mut o.num_iters, parse_int32(v))),
        "Number of iterations of each test (0 counts as 1). [default: 1]"),
    def!('I' "interleaved" 2, worded(|o, on| o.interleaved = on),
        "Interleaved access pattern (see below). [default: contiguous]"),
    def!(_ "json" 2, name(ValueKind::Destination, |o, v| {
            put(&mut o.json, file_name(v, STDOUT_HINT).map(Some))
        }),
        "Also write the results to FILE as JSON, with the same records as\n\
         --csv. - means standard output, after the report; the JSON starts\n\
         at the line holding only '{'. [default: none]"),
    def!(_ "label" 2, value(ValueKind::Label, label),
        "Add KEY=VALUE (repeatable) to the sign-off block of the results and\n\
         of the --html page: the system under test, the customer, the\n\
         operator (--label sut=array-3 --label operator=kim). [default: none]"),
    def!(_ "latency" 3, Action::Switch(Switch::Flag {
            words: false,
            apply: |o, on| o.latency = on,
            shown: Some(Shown {
                on: |o| o.latency,
                line: "Latency=on (every transfer call timed: percentiles per phase)",
                key: "latency",
            }),
        }),
        "Time every write and read call of the timed loops on every rank:\n\
         per API, transfer size and phase the calls' count, min, p50, p90,\n\
         p99, p99.9 and max (within 1 %), and the rank and host that saw\n\
         the max. Merged over ranks after each iteration, outside the\n\
         timers. [default: off]"),
    // off (the C API's keyed setter): no longer never, if it was
    def!(_ "mpi-info" 2, value(ValueKind::Hint, hint),
        "Add the MPI-IO hint KEY=VALUE (repeatable) after those of\n\
         HDF5_MPI_INFO, for MPI-IO and PHDF5. With hints given, the\n\
         results (--json, --csv, --html) record the hints in effect after\n\
         the file opens, as the MPI library reports them; with --mpi-info\n\
         the parameter block shows those of a probe file every rank opens\n\
         before the run. [default: none]"),
    def!('n' "no-fill" 4, flag(|o, on| {
            if on {
                o.fill.time = Some(FillTime::Never);
            } else if o.fill.time == Some(FillTime::Never) {
                o.fill.time = None;
            }
        }),
        "PHDF5 datasets: never write fill values (--fill-time=never)."),
    def!('o' "output" 2, name(ValueKind::File, |o, v| {
            put(&mut o.output, file_name(v, "").map(Some))
        }),
        "Write the report to FILE. [default: standard output]"),
    def!(_ "payload" 2, value(ValueKind::Payload, |o, v| put(&mut o.payload.kind, parse_payload(v))),
        "What the data files hold: constant (the C tool's bytes),\n\
         incompressible (seeded random bytes; every 4 KiB block carries its\n\
         offset and the seed, so no two blocks are equal and neither\n\
         compression nor deduplication gains anything) or compress=PCT (the\n\
         last PCT % of each 4 KiB block zeros). -D v checks every byte.\n\
         [default: constant]"),
    def!('p' "min-num-processes" 9,
        value(ValueKind::Int, |o, v| put(&mut o.min_procs, parse_int32(v))),
        "Smallest number of processes (0 counts as 1). [default: 1]"),
    def!('P' "max-num-processes" 9, value(ValueKind::Int, |o, v| {
            put(&mut o.max_procs, parse_int32(v).map(Some))
        }),
        "Largest number of processes (0 counts as 1). The tests run with\n\
         P, P/2, P/4, ... processes down to -p. [default: all processes]"),
    def!(_ "progress" 3, flag(|o, on| o.progress = on),
        "After each number of processes and transfer size, print one line on\n\
         stderr: step k of N, what ran, its time, an estimate of the time\n\
         left. Without it the lines appear only when stderr is a terminal.\n\
         Never on stdout, never inside a timed phase. [default: off]"),
    def!(_ "random" 4, Action::Optional {
            kind: ValueKind::Phases,
            apply: |o, v| put(&mut o.random, parse_phases(v)),
        },
        "Make each rank's transfers of each dataset in a seeded random order\n\
         (each exactly once, so the files are those of an ordered run) in\n\
         the phases given: write, read or write,read; --random alone is\n\
         both. The seed is --seed's, else a new one per run, shown in the\n\
         parameter block and the results. [default: off]"),
    def!(_ "rank-csv" 3, name(ValueKind::Destination, |o, v| {
            put(&mut o.rank_csv, file_name(v, STDOUT_HINT).map(Some))
        }),
        "Also write every rank's own time as CSV to FILE: one row per number\n\
         of processes, transfer size, API, iteration, phase and rank, with\n\
         its host, seconds and bytes. Gathered after each iteration, outside\n\
         the timers. Rewritten after each step, like --json and --csv.\n\
         - means standard output, after the report. [default: none]"),
    def!(_ "read-only" 3, flag(|o, on| o.storage.read_only = on),
        "No write phase: read the files that an earlier run with the same\n\
         options left (HDF5_NOCLEANUP), after checking that each exists\n\
         with the expected size (HDF5: dataset names and shapes). The\n\
         files are kept. [default: off]"),
    def!(_ "reorder" 3, Action::Optional {
            kind: ValueKind::Shift,
            apply: |o, v| {
                let shift = v.map(|v| parse_int(v, MAX_COUNT)).transpose()?;
                put(&mut o.storage.reorder, reorder(shift).map(Some))
            },
        },
        "In the read phase rank r reads the part that rank (r + SHIFT) mod N\n\
         wrote, so that its data comes from another node. Default SHIFT:\n\
         the processes on a node when the run spans nodes, else 1 (one\n\
         node, one shared page cache). [default: off]"),
    def!(_ "seed" 2, value(ValueKind::Int, |o, v| {
            put(&mut o.payload.seed, parse_int(v, u64::MAX).map(Some))
        }),
        "The seed of --payload's generator, 0 to 18446744073709551615: the\n\
         same seed writes the same bytes. --read-only needs the writing\n\
         run's. [default: a new seed per run, shown in the parameter block]"),
    def!(_ "stable" 3, flag(|o, on| o.acceptance.stable = on),
        "Measure the storage, not the page cache: turn on what the run\n\
         needs (writes: --fsync, unless --direct; reads: --drop-caches as\n\
         root, else --reorder when the ranks span nodes) and say so; then\n\
         refuse, before any I/O, each --expect criterion on a page-cache\n\
         figure, with the reason (Raw Data Write needs POSIX --direct), and\n\
         the run when a node's data in a read step is under twice its\n\
         memory and no bypass covers the reads. [default: off]"),
    def!(_ "stonewall" 3, value(ValueKind::Seconds, |o, v| o.stonewall.set_seconds(v)),
        "Time-limited phases: in each write and read phase a rank starts no\n\
         transfer later than SECONDS after the phase's start; throughput is\n\
         the bytes actually moved over the time. Collective transfers stop\n\
         together. A write phase that ends before the deadline makes the\n\
         run invalid (exit status 3 with --expect). [default: none]"),
    def!(_ "strict" 2, mode(|m| m.strict = true),
        "With --fill-behaviour: exit with status 1 when the library\n\
         differs from the document anywhere."),
    def!(_ "subfiling" 4, Action::Switch(Switch::Flag {
            words: false,
            apply: |o, on| o.subfiling = on,
            shown: Some(Shown {
                on: |o| o.subfiling,
                line: "Subfiling=on (H5Pset_fapl_subfiling, HDF5's default configuration)",
                key: "subfiling",
            }),
        }),
        "PHDF5: write and read the files through HDF5's subfiling file\n\
         driver (H5Pset_fapl_subfiling, default configuration: the data\n\
         striped over subfiles NAME.subfile_*, written by I/O concentrator\n\
         threads) instead of the MPI-IO driver. Needs -A phdf5 alone, an\n\
         HDF5 1.14 or later built with the driver and MPI_THREAD_MULTIPLE.\n\
         [default: off]"),
    def!(_ "summary" 2, flag(|o, on| o.summary = on),
        "End the report with a summary table: per API, processes, transfer\n\
         size and phase the max / mean / min MB/s (MiB/s), their standard\n\
         deviation over iterations, and the slowest rank with its host.\n\
         [default: off]"),
    def!('T' "threshold" 2, value(ValueKind::Size, |o, v| put(&mut o.h5_thresh, parse_size(v))),
        "HDF5 alignment threshold: only objects of at least this size\n\
         are aligned to -a. [default: 1]"),
    def!(_ "timeseries" 5, Action::Optional {
            kind: ValueKind::Interval,
            apply: |o, v| put(&mut o.timeseries, parse_interval(v).map(Some)),
        },
        "Count the bytes every rank completes in each INTERVAL of each write\n\
         and read phase (1s, 10ms, 500us or a number of seconds; at least\n\
         1ms; --timeseries alone is 1s), one clock read per transfer.\n\
         Gathered after each phase, outside the timers; a phase of more than\n\
         4096 intervals merges neighbouring intervals pairwise, doubling the\n\
         interval. In the --json results (array timeseries). [default: off]"),
    def!(_ "timeout" 2, value(ValueKind::Int, |o, v| put(&mut o.timeout, whole_count(v).map(Some))),
        "End the run on every rank after N seconds: one line names the ranks\n\
         that had not arrived (stopped, a frozen node) and where the others\n\
         waited; every rank ends (SIGTERM, its files removed). Exit status\n\
         not 0; the results files\n\
         keep the finished steps, marked incomplete. Without it a batch\n\
         system's time limit is the guard. [default: none]"),
    def!(_ "tolerance" 2, value(ValueKind::Percent, |o, v| o.acceptance.set_tolerance(v)),
        "With --baseline: how much worse than the baseline a mean throughput\n\
         may be, in percent (0 to below 100). [default: 10]"),
    def!(_ "wear-out" 2, flag(|o, on| o.stonewall.wear_out = on),
        "With --stonewall: after the deadline every rank goes on until it\n\
         has made as many transfers of each dataset as the rank that made\n\
         the most, so that every rank's part has the same length and the\n\
         read phase reads all that was written. [default: off]"),
    def!(_ "within" 3, value(ValueKind::Percent, |o, v| o.acceptance.set_within(v)),
        "With --baseline: compare both ways instead. Each mean throughput is\n\
         within PCT of the baseline's, a drop or an improvement beyond it\n\
         (both fail), or undecided when the noise is too large; the run as\n\
         a whole is judged by a paired test. Undecided alone: verdict\n\
         INCONCLUSIVE, exit status 4. [default: off]"),
    def!('w' "write-only" 2, worded(|o, on| o.write_only = on),
        "Run the write tests only, without reading back. [default: off]"),
    def!('x' "min-xfer-size" 5, value(ValueKind::Size, |o, v| put(&mut o.buf_min, parse_size(v))),
        "Smallest transfer-buffer size. [default: half of -e]"),
    def!('X' "max-xfer-size" 5, value(ValueKind::Size, |o, v| put(&mut o.buf_max, parse_size(v))),
        "Largest transfer-buffer size. The tests run with -x, 2 x -x,\n\
         4 x -x, ... bytes up to -X. [default: -e]"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{refused, run, Text};
    use crate::config::{ApiSet, Debug};

    #[test]
    fn table_has_no_ambiguous_prefixes() {
        for a in &DEFS {
            for b in &DEFS {
                if !std::ptr::eq(a, b) {
                    assert!(
                        !b.matches_long(&a.long[..a.min]),
                        "{} vs {}",
                        a.long,
                        b.long
                    );
                }
            }
            if let Some(c) = a.short {
                assert_eq!(DEFS.iter().filter(|p| p.short == Some(c)).count(), 1);
            }
        }
    }

    #[test]
    fn no_spelling_matches_two_options() {
        // every prefix of every name that matches it also matches no other entry
        for a in &DEFS {
            for n in 1..=a.long.len() {
                let spelling = &a.long[..n];
                let hits = DEFS.iter().filter(|p| p.matches_long(spelling)).count();
                assert!(hits <= 1, "--{spelling} matches {hits} options");
                assert_eq!(a.matches_long(spelling), n >= a.min, "--{spelling}");
            }
        }
    }

    #[test]
    fn every_size_option_short_and_long() {
        type Getter = fn(&Options) -> u64;
        let cases: [(&str, &str, Getter); 6] = [
            ("-a", "--align", |o| o.h5_align),
            ("-B", "--block-size", |o| o.blk_size),
            ("-e", "--num-bytes", |o| o.num_bytes),
            ("-T", "--threshold", |o| o.h5_thresh),
            ("-x", "--min-xfer-size", |o| o.buf_min),
            ("-X", "--max-xfer-size", |o| o.buf_max),
        ];
        for (s, l, get) in cases {
            assert_eq!(get(&run(&[s, "4K"])), 4096, "{s}");
            assert_eq!(get(&run(&[&format!("{s}3M")])), 3 << 20, "{s}");
            assert_eq!(get(&run(&[&format!("{l}=2G")])), 2 << 30, "{l}");
            assert_eq!(get(&run(&[l, "5k"])), 5120, "{l}");
            assert_eq!(get(&run(&[l, "7"])), 7, "{l}");
        }
    }

    #[test]
    fn every_integer_option_short_and_long() {
        let o = run(&["-d", "3", "-F", "4", "-i", "5", "-p", "2", "-P", "8"]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (3, 4, 5));
        assert_eq!((o.min_procs, o.max_procs), (2, Some(8)));
        let o = run(&[
            "--num-dsets=6",
            "--num-files",
            "7",
            "--num-iterations=9",
            "--min-num-processes",
            "3",
            "--max-num-processes=16",
        ]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (6, 7, 9));
        assert_eq!((o.min_procs, o.max_procs), (3, Some(16)));
        let o = run(&["-d2", "-F3", "-i4", "-p5", "-P6"]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (2, 3, 4));
        assert_eq!((o.min_procs, o.max_procs), (5, Some(6)));
        // surrounding blanks and '+'
        let o = run(&["-F", " 2\t", "-i", "+3", "-d", "010"]);
        assert_eq!((o.num_files, o.num_iters, o.num_dsets), (2, 3, 10));
        // 0 accepted for -i -p -P (clamped later)
        let o = run(&["-i", "0", "-p", "0", "-P", "0"]);
        assert_eq!((o.num_iters, o.min_procs, o.max_procs), (0, 0, Some(0)));
        // limits
        let o = run(&["-i", "2147483647", "-d", "9223372036854775807"]);
        assert_eq!(
            (o.num_iters, o.num_dsets),
            (i32::MAX as u32, i64::MAX as u64)
        );
    }

    #[test]
    fn every_flag_short_and_long() {
        let o = run(&["-c", "-C", "-g", "-I", "-w"]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&[
            "--chunk",
            "--collective",
            "--geometry",
            "--interleaved",
            "--write-only",
        ]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&["--ch", "--co", "--ge", "--in", "--wr"]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&["-c"]);
        assert!(o.chunk && !o.collective && !o.dim2d && !o.interleaved && !o.write_only);
    }

    #[test]
    fn api_debug_output_short_and_long() {
        let o = run(&["-A", "posix", "--api=phdf5", "-D", "3,t", "-o", "out.txt"]);
        assert_eq!(
            o.apis,
            ApiSet {
                posix: true,
                mpiio: false,
                phdf5: true
            }
        );
        assert_eq!(
            o.debug,
            Debug {
                level: 3,
                raw: false,
                times: true,
                verify: false
            }
        );
        assert_eq!(o.output.text(), Some("out.txt"));
        let o = run(&["-Ampiio", "--debug", "v", "--output", "r.txt"]);
        assert_eq!(
            o.apis,
            ApiSet {
                posix: false,
                mpiio: true,
                phdf5: false
            }
        );
        assert_eq!(
            o.debug,
            Debug {
                level: 0,
                raw: false,
                times: false,
                verify: true
            }
        );
        assert_eq!(o.output.text(), Some("r.txt"));
        let o = run(&["-D2,r", "--ou=x", "--ap", "posix"]);
        assert_eq!(
            o.debug,
            Debug {
                level: 2,
                raw: true,
                times: false,
                verify: false
            }
        );
        assert_eq!(o.output.text(), Some("x"));
        assert!(o.apis.posix);
        // -o takes any raw string, even one starting with '-' (short form)
        assert_eq!(run(&["-o", "-weird"]).output.text(), Some("-weird"));
        assert_eq!(run(&["--output=-w"]).output.text(), Some("-w"));
        assert_eq!(run(&["-o", " a b "]).output.text(), Some(" a b "));
    }

    #[test]
    fn size_refusals_name_option_and_value() {
        refused(
            &["-e", "10Q"],
            &[
                "h5perf: invalid value '10Q' for -e/--num-bytes: Illegal size specifier 'Q' \
               (a size is a number with an optional K, M or G suffix)",
            ],
        );
        refused(
            &["--num-bytes=1.5K"],
            &["invalid value '1.5K' for -e/--num-bytes: fractional"],
        );
        refused(
            &["-x", "-8"],
            &["invalid value '-8' for -x/--min-xfer-size: negative"],
        );
        refused(
            &["-X", ""],
            &["invalid value '' for -X/--max-xfer-size: empty"],
        );
        refused(
            &["-BK"],
            &["invalid value 'K' for -B/--block-size: no digits"],
        );
        refused(
            &["-T", "8Kxyz"],
            &["invalid value '8Kxyz' for -T/--threshold: unexpected"],
        );
        refused(&["--al", "8KK"], &["invalid value '8KK' for -a/--align"]);
        refused(
            &["-e", "99999999999999999999"],
            &["'99999999999999999999'", "too large"],
        );
        refused(
            &["-e", "9000000000G"],
            &["'9000000000G' for -e/--num-bytes: too large"],
        );
        // the next token is taken unconditionally by a short option
        refused(
            &["-e", "-x"],
            &["invalid value '-x' for -e/--num-bytes: no digits"],
        );
        // zero: default for -e -x -X -B, fine for -T, refused for -a
        let o = run(&["-e", "0", "-x", "0", "-X", "0", "-B", "0", "-T", "0"]);
        assert_eq!(
            (o.num_bytes, o.buf_min, o.buf_max, o.blk_size, o.h5_thresh),
            (0, 0, 0, 0, 0)
        );
        refused(
            &["-a", "0"],
            &["invalid value '0' for -a/--align: must be at least 1"],
        );
        refused(
            &["--align=0K"],
            &["invalid value '0K' for -a/--align: must be at least 1"],
        );
    }

    #[test]
    fn integer_refusals_name_option_and_value() {
        refused(
            &["-i", "-1"],
            &["invalid value '-1' for -i/--num-iterations: negative"],
        );
        refused(
            &["-i", "3x"],
            &["invalid value '3x' for -i/--num-iterations: not a whole"],
        );
        refused(
            &["-d", "x"],
            &["invalid value 'x' for -d/--num-dsets: not a whole number"],
        );
        refused(
            &["-F", "1.5"],
            &["invalid value '1.5' for -F/--num-files: fractional"],
        );
        refused(
            &["-p", ""],
            &["invalid value '' for -p/--min-num-processes: empty"],
        );
        refused(
            &["-P", "+"],
            &["invalid value '+' for -P/--max-num-processes: not a whole"],
        );
        refused(
            &["-P", "4K"],
            &["invalid value '4K' for -P/--max-num-processes"],
        );
        refused(
            &["-i", "2147483648"],
            &["'2147483648' for -i/--num-iterations: too large"],
        );
        refused(
            &["-p", "4294967297"],
            &["for -p/--min-num-processes: too large"],
        );
        refused(
            &["-P", "2147483648"],
            &["for -P/--max-num-processes: too large"],
        );
        refused(
            &["-d", "9223372036854775808"],
            &["for -d/--num-dsets: too large"],
        );
        refused(
            &["-F", "99999999999999999999"],
            &["for -F/--num-files: too large"],
        );
        refused(
            &["-d", "0"],
            &["invalid value '0' for -d/--num-dsets: must be at least 1"],
        );
        refused(
            &["-F", "0"],
            &["invalid value '0' for -F/--num-files: must be at least 1"],
        );
        refused(
            &["--num-files=00"],
            &["'00' for -F/--num-files: must be at least 1"],
        );
        refused(
            &["-i", "1 2"],
            &["'1 2' for -i/--num-iterations: not a whole"],
        );
    }

    #[test]
    fn output_file() {
        refused(
            &["-o", ""],
            &["invalid value '' for -o/--output: empty file name"],
        );
        refused(
            &["--output="],
            &["missing value for -o/--output (expected a file name"],
        );
        refused(&["-o"], &["missing value for -o/--output"]);
        let o = run(&["-o", "a", "--output", "b"]);
        assert_eq!(o.output.text(), Some("b"));
    }

    #[test]
    fn fill_options() {
        use crate::config::FillSettings;
        use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
        assert_eq!(run(&[]).fill, FillSettings::default());
        // -n / --no-fill is --fill-time=never, also in clusters
        for args in [
            &["-n"][..],
            &["--no-fill"],
            &["--no-f"],
            &["-cn"],
            &["--fill-time=never"],
            &["--fill-t", "NEVER"],
        ] {
            assert_eq!(run(args).fill.time, Some(FillTime::Never), "{args:?}");
        }
        assert!(run(&["-cnC"]).chunk && run(&["-cnC"]).collective);
        let o = run(&[
            "--fill-value=7",
            "--fill-time",
            "alloc",
            "--alloc-time=late",
            "-c",
        ]);
        assert_eq!(
            o.fill,
            FillSettings {
                value: Some(FillValue::Byte(7)),
                time: Some(FillTime::Alloc),
                alloc: Some(AllocTime::Late)
            }
        );
        assert!(o.chunk);
        assert_eq!(run(&["--fill-v", "0"]).fill.value, Some(FillValue::Byte(0)));
        assert_eq!(
            run(&["--fill-value= 255"]).fill.value,
            Some(FillValue::Byte(255))
        );
        assert_eq!(
            run(&["--fill-value=Undefined"]).fill.value,
            Some(FillValue::Undefined)
        );
        assert_eq!(run(&["--fill-time=ifset"]).fill.time, Some(FillTime::IfSet));
        for (w, a) in [
            ("default", AllocTime::Default),
            ("early", AllocTime::Early),
            ("incr", AllocTime::Incr),
            ("incremental", AllocTime::Incr),
            ("LATE", AllocTime::Late),
        ] {
            assert_eq!(run(&["--allo", w]).fill.alloc, Some(a), "{w}");
        }
        // the last one wins
        assert_eq!(
            run(&["-n", "--fill-time=alloc"]).fill.time,
            Some(FillTime::Alloc)
        );
        assert_eq!(
            run(&["--fill-time=alloc", "-n"]).fill.time,
            Some(FillTime::Never)
        );
        // --al is still --align; --all is nothing
        assert_eq!(run(&["--al", "4K"]).h5_align, 4096);
        refused(&["--all", "late"], &["unknown option '--all'"]);
        refused(&["--fill", "7"], &["unknown option '--fill'"]);
        refused(&["--fill-", "7"], &["unknown option '--fill-'"]);
        refused(&["--no", "x"], &["unknown option '--no'"]);
        // bad values
        refused(
            &["--fill-value=256"],
            &[
                "invalid value '256' for --fill-value",
                "too large (at most 255)",
                "byte value 0-255 or undefined",
            ],
        );
        refused(
            &["--fill-value=-1"],
            &["invalid value '-1' for --fill-value"],
        );
        refused(
            &["--fill-value=0x10"],
            &["invalid value '0x10' for --fill-value"],
        );
        refused(
            &["--fill-value=undef"],
            &["invalid value 'undef' for --fill-value"],
        );
        refused(
            &["--fill-time=sometimes"],
            &["invalid value 'sometimes' for --fill-time: expected never, ifset or alloc"],
        );
        refused(
            &["--alloc-time", "soon"],
            &["invalid value 'soon' for --alloc-time: expected default, early, incr"],
        );
        refused(
            &["--fill-value"],
            &["missing value for --fill-value (expected a byte value 0-255 or undefined)"],
        );
        refused(&["--fill-time="], &["missing value for --fill-time"]);
        refused(
            &["--alloc-time", "-n"],
            &["missing value for --alloc-time (expected default, early, incr or late"],
        );
        refused(&["--no-fill=1"], &["invalid value '1' for -n/--no-fill"]);
        refused(&["-n", "1"], &["unexpected argument '1'"]);
    }

    #[test]
    fn storage_options() {
        use crate::config::{Reorder, StorageOptions};
        assert_eq!(run(&[]).storage, StorageOptions::default());
        let o = run(&[
            "--fsync",
            "--direct",
            "--read-only",
            "--drop-caches",
            "--reorder",
        ]);
        assert_eq!(
            o.storage,
            StorageOptions {
                fsync: true,
                direct: true,
                reorder: Some(Reorder::ByNode),
                read_only: true,
                drop_caches: true,
            }
        );
        // abbreviations: --fs --di --dr --rea --reo
        let o = run(&["--fs", "--di", "--dr", "--rea", "--reo=2"]);
        assert!(
            o.storage.fsync && o.storage.direct && o.storage.drop_caches && o.storage.read_only
        );
        assert_eq!(o.storage.reorder, Some(Reorder::Shift(2)));
        assert_eq!(
            run(&["--reorder=4", "-e", "8"]).storage.reorder,
            Some(Reorder::Shift(4))
        );
        // --re is ambiguous (read-only, reorder): unknown
        refused(&["--re"], &["unknown option '--re'"]);
        refused(
            &["--reorder=0"],
            &["invalid value '0' for --reorder: must be at least 1"],
        );
        refused(&["--reorder=x"], &["invalid value 'x' for --reorder"]);
        refused(
            &["--reorder="],
            &["missing value for --reorder (expected a whole number of ranks, at least 1"],
        );
        // the value must be attached: a separate number is refused with the spelling
        refused(
            &["--reorder", "3"],
            &[
                "unexpected argument '3' after --reorder",
                "write --reorder=3",
            ],
        );
        // a following option is not a value
        let o = run(&["--reorder", "-e", "8"]);
        assert_eq!((o.storage.reorder, o.num_bytes), (Some(Reorder::ByNode), 8));
        refused(
            &["--fsync=1"],
            &["invalid value '1' for --fsync: this option takes no value"],
        );
        refused(
            &["--direct=yes"],
            &["for --direct: this option takes no value"],
        );
    }

    #[test]
    fn repetition_last_scalar_wins() {
        let o = run(&[
            "--num-bytes=8",
            "--num-bytes=16",
            "-e",
            "32",
            "-i",
            "2",
            "-i3",
        ]);
        assert_eq!((o.num_bytes, o.num_iters), (32, 3));
        let o = run(&[
            "-P",
            "4",
            "-P",
            "2",
            "-a",
            "4K",
            "--align=8K",
            "-T",
            "1M",
            "-T2M",
        ]);
        assert_eq!(
            (o.max_procs, o.h5_align, o.h5_thresh),
            (Some(2), 8192, 2 << 20)
        );
        let o = run(&[
            "-x", "1K", "-X", "2K", "-x", "4K", "-X8K", "-B1K", "-B", "2K",
        ]);
        assert_eq!((o.buf_min, o.buf_max, o.blk_size), (4096, 8192, 2048));
        let o = run(&[
            "-d",
            "2",
            "-d",
            "5",
            "-F",
            "2",
            "--num-f=6",
            "-p1",
            "-p",
            "3",
        ]);
        assert_eq!((o.num_dsets, o.num_files, o.min_procs), (5, 6, 3));
        let o = run(&["-e", "8", "-e", "0"]);
        assert_eq!(o.num_bytes, 0);
    }
}
