//! What the command line (or the C API) asked for: the selected APIs, debug settings and
//! every option, checked but not yet defaulted or clamped (spec §1).
//!
//! The rules a single value must obey (sizes at most `i64::MAX` bytes, counts at least 1,
//! the debug level, non-empty file names) live here, in the validated setters of
//! [`Options`]; the command line ([`crate::cli`]) and the C API ([`crate::capi`]) both
//! call them, each wording the refusal [`ValueError`] in its own way.

use std::ffi::{OsStr, OsString};
use std::fmt;

use super::acceptance::Acceptance;
use super::storage::{Reorder, StorageOptions};
pub use crate::terms::Api;
use crate::terms::FillSettings;

/// A set of selected APIs. Empty means "none given" on the command line, which
/// resolves to all three (spec §1.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApiSet {
    /// POSIX selected.
    pub posix: bool,
    /// MPI-IO selected.
    pub mpiio: bool,
    /// PHDF5 selected.
    pub phdf5: bool,
}

impl ApiSet {
    /// Add one API to the set.
    pub fn insert(&mut self, api: Api) {
        match api {
            Api::Posix => self.posix = true,
            Api::Mpiio => self.mpiio = true,
            Api::Phdf5 => self.phdf5 = true,
        }
    }
    /// Whether `api` is in the set.
    pub fn contains(&self, api: Api) -> bool {
        match api {
            Api::Posix => self.posix,
            Api::Mpiio => self.mpiio,
            Api::Phdf5 => self.phdf5,
        }
    }
    /// True when no API is selected.
    pub fn is_empty(&self) -> bool {
        !(self.posix || self.mpiio || self.phdf5)
    }
    /// The selected APIs in execution order.
    pub fn iter(self) -> impl Iterator<Item = Api> {
        Api::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

/// The `-D` debug settings (spec §1.8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Debug {
    /// Debug level 0..=4 (levels 1 and 2 are identical; 3 adds detail blocks; 4 traces).
    pub level: u8,
    /// `r`: print raw-data throughput blocks.
    pub raw: bool,
    /// `t`: print times next to throughputs and the open/close time blocks.
    pub times: bool,
    /// `v`: fill buffers with rank+1 and verify every byte read back.
    pub verify: bool,
}

/// What the command line asked for, checked but not yet defaulted or clamped. Zero in a
/// size field means "not given" (spec §1.5 rule 4).
///
/// Sizes are in bytes. Produced by [`crate::cli::parse`] or field by field by the C API.
/// A field with a rule (see the `set_*` methods) is set through its validated setter, so
/// that both front ends refuse the same values.
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
    /// `--rank-csv FILE`: every rank's time per iteration and phase as CSV (`-` =
    /// standard output).
    pub rank_csv: Option<OsString>,
    /// `--progress`: a line on stderr after each (processes, transfer size) step, also
    /// when stderr is not a terminal.
    pub progress: bool,
    /// `--summary`: a summary table after the report.
    pub summary: bool,
    /// `--fill-value`, `--fill-time` (`-n`), `--alloc-time`: dataset-creation settings of
    /// the PHDF5 datasets (default: none set, the library's defaults).
    pub fill: FillSettings,
    /// `--fsync`, `--direct`, `--reorder`, `--read-only`, `--drop-caches` (default: none
    /// given, the C tool's run).
    pub storage: StorageOptions,
    /// `--expect`, `--baseline`, `--tolerance`, `--html`, `--from` (default: none).
    pub acceptance: Acceptance,
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
            summary: false,
            fill: FillSettings::default(),
            storage: StorageOptions::default(),
            acceptance: Acceptance::default(),
        }
    }
}

/// Why a validated setter of [`Options`] refused a value. Nothing was changed.
///
/// The two front ends word it differently: the command line appends [`ValueError::reason`]
/// to `invalid value 'V' for -a/--align: `; the C API prints the whole sentence of the
/// [`fmt::Display`] form (`HDF5 alignment must be at least 1`) after `h5perf: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// What the value is, in words (`HDF5 alignment`, `number of files`).
    what: &'static str,
    /// What is wrong with it.
    problem: Problem,
}

/// What is wrong with a refused value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    /// Zero where at least 1 is required.
    Zero,
    /// Above `max`; `unit` (`" bytes"` or empty) follows the limit in the reason.
    TooLarge {
        value: u64,
        max: u64,
        unit: &'static str,
    },
    /// Outside `range` (written `0..4`).
    OutOfRange { value: i64, range: &'static str },
    /// An empty file name; `hint` (possibly empty) follows the reason.
    EmptyName { hint: &'static str },
}

impl ValueError {
    /// The reason alone, without naming the value: `must be at least 1`, `too large (at
    /// most 9223372036854775807 bytes)`, `empty file name`.
    pub fn reason(&self) -> String {
        match &self.problem {
            Problem::Zero => "must be at least 1".to_string(),
            Problem::TooLarge { max, unit, .. } => format!("too large (at most {max}{unit})"),
            Problem::OutOfRange { range, .. } => format!("must be {range}"),
            Problem::EmptyName { hint } => format!("empty file name{hint}"),
        }
    }
}

impl fmt::Display for ValueError {
    /// The whole sentence, naming the value: `HDF5 alignment must be at least 1`,
    /// `block size (18446744073709551615) is too large (at most 9223372036854775807)`,
    /// `debug level (-1) must be 0..4`, `empty report file name`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what;
        match &self.problem {
            Problem::Zero => write!(f, "{what} must be at least 1"),
            Problem::TooLarge { value, max, .. } => {
                write!(f, "{what} ({value}) is too large (at most {max})")
            }
            Problem::OutOfRange { value, range } => write!(f, "{what} ({value}) must be {range}"),
            Problem::EmptyName { .. } => write!(f, "empty {what}"),
        }
    }
}

impl std::error::Error for ValueError {}

impl Options {
    /// The largest size in bytes (`-e -x -X -B -a -T`): `i64::MAX`, the C tool's `off_t`
    /// arithmetic (spec §1.5).
    pub const MAX_SIZE: u64 = i64::MAX as u64;
    /// The largest number of files (`-F`) or datasets (`-d`): `i64::MAX` (spec §1.6).
    pub const MAX_COUNT: u64 = i64::MAX as u64;
    /// The highest debug level (`-D`); larger levels count as this one (spec §1.8).
    pub const MAX_DEBUG_LEVEL: u8 = 4;

    /// `-e`: bytes per process per dataset; 0 = the default.
    ///
    /// # Errors
    /// More than [`Options::MAX_SIZE`] bytes.
    pub fn set_num_bytes(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.num_bytes = size(bytes, "bytes per process")?;
        Ok(())
    }

    /// `-x`: the smallest transfer-buffer size in bytes; 0 = the default.
    ///
    /// # Errors
    /// More than [`Options::MAX_SIZE`] bytes.
    pub fn set_min_xfer_size(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.buf_min = size(bytes, "minimum transfer size")?;
        Ok(())
    }

    /// `-X`: the largest transfer-buffer size in bytes; 0 = the default.
    ///
    /// # Errors
    /// More than [`Options::MAX_SIZE`] bytes.
    pub fn set_max_xfer_size(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.buf_max = size(bytes, "maximum transfer size")?;
        Ok(())
    }

    /// `-B`: the block size in bytes; 0 = the default.
    ///
    /// # Errors
    /// More than [`Options::MAX_SIZE`] bytes.
    pub fn set_block_size(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.blk_size = size(bytes, "block size")?;
        Ok(())
    }

    /// `-a`: the HDF5 object alignment in bytes (`H5Pset_alignment`), at least 1.
    ///
    /// # Errors
    /// Zero, or more than [`Options::MAX_SIZE`] bytes.
    pub fn set_align(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.h5_align = size(at_least_one(bytes, "HDF5 alignment")?, "HDF5 alignment")?;
        Ok(())
    }

    /// `-T`: the HDF5 alignment threshold in bytes.
    ///
    /// # Errors
    /// More than [`Options::MAX_SIZE`] bytes.
    pub fn set_threshold(&mut self, bytes: u64) -> Result<(), ValueError> {
        self.h5_thresh = size(bytes, "HDF5 alignment threshold")?;
        Ok(())
    }

    /// `-F`: the number of files, at least 1.
    ///
    /// # Errors
    /// Zero, or more than [`Options::MAX_COUNT`].
    pub fn set_num_files(&mut self, n: u64) -> Result<(), ValueError> {
        self.num_files = count(n, "number of files")?;
        Ok(())
    }

    /// `-d`: the number of datasets per file, at least 1.
    ///
    /// # Errors
    /// Zero, or more than [`Options::MAX_COUNT`].
    pub fn set_num_dsets(&mut self, n: u64) -> Result<(), ValueError> {
        self.num_dsets = count(n, "number of datasets")?;
        Ok(())
    }

    /// `-D` level: 0..=4; a larger level counts as [`Options::MAX_DEBUG_LEVEL`] (spec
    /// §1.8). The `r`, `t`, `v` flags are plain fields of [`Options::debug`].
    ///
    /// # Errors
    /// A negative level.
    pub fn set_debug_level(&mut self, level: i64) -> Result<(), ValueError> {
        if level < 0 {
            return Err(ValueError {
                what: "debug level",
                problem: Problem::OutOfRange {
                    value: level,
                    range: "0..4",
                },
            });
        }
        self.debug.level = level.min(i64::from(Self::MAX_DEBUG_LEVEL)) as u8;
        Ok(())
    }

    /// `-o`: write the text report to the file `name` (taken as given, blanks included).
    ///
    /// # Errors
    /// An empty name.
    pub fn set_output(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.output = Some(file_name(name, "report file name", "")?);
        Ok(())
    }

    /// `--json`: write the results as JSON to the file `name`, `-` meaning standard output.
    ///
    /// # Errors
    /// An empty name.
    pub fn set_json(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.json = Some(file_name(name, "JSON file name", STDOUT_HINT)?);
        Ok(())
    }

    /// `--csv`: write the results as CSV to the file `name`, `-` meaning standard output.
    ///
    /// # Errors
    /// An empty name.
    pub fn set_csv(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.csv = Some(file_name(name, "CSV file name", STDOUT_HINT)?);
        Ok(())
    }

    /// `--rank-csv`: write every rank's time per iteration and phase as CSV to the file
    /// `name`, `-` meaning standard output.
    ///
    /// # Errors
    /// An empty name.
    pub fn set_rank_csv(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.rank_csv = Some(file_name(name, "rank CSV file name", STDOUT_HINT)?);
        Ok(())
    }
}

impl Options {
    /// `--reorder[=SHIFT]`: `None` for the default shift (the ranks on a node, or 1 on
    /// one node), else the shift, at least 1.
    ///
    /// # Errors
    /// A shift of zero, or more than [`Options::MAX_COUNT`].
    pub fn set_reorder(&mut self, shift: Option<u64>) -> Result<(), ValueError> {
        self.storage.reorder = Some(match shift {
            None => Reorder::ByNode,
            Some(s) => Reorder::Shift(count(s, "read reorder shift")?),
        });
        Ok(())
    }
}

/// Appended to the reason for an empty `--json`/`--csv` name.
const STDOUT_HINT: &str = " (use - for standard output)";

/// `bytes` if at most [`Options::MAX_SIZE`].
fn size(bytes: u64, what: &'static str) -> Result<u64, ValueError> {
    at_most(bytes, Options::MAX_SIZE, " bytes", what)
}

/// `n` if at least 1 and at most [`Options::MAX_COUNT`].
fn count(n: u64, what: &'static str) -> Result<u64, ValueError> {
    at_most(at_least_one(n, what)?, Options::MAX_COUNT, "", what)
}

/// `n` unless it is zero.
fn at_least_one(n: u64, what: &'static str) -> Result<u64, ValueError> {
    if n == 0 {
        Err(ValueError {
            what,
            problem: Problem::Zero,
        })
    } else {
        Ok(n)
    }
}

/// `value` if at most `max`.
fn at_most(
    value: u64,
    max: u64,
    unit: &'static str,
    what: &'static str,
) -> Result<u64, ValueError> {
    if value > max {
        Err(ValueError {
            what,
            problem: Problem::TooLarge { value, max, unit },
        })
    } else {
        Ok(value)
    }
}

/// `name` (its bytes as given) unless it is empty.
fn file_name(name: &OsStr, what: &'static str, hint: &'static str) -> Result<OsString, ValueError> {
    if name.is_empty() {
        Err(ValueError {
            what,
            problem: Problem::EmptyName { hint },
        })
    } else {
        Ok(name.to_os_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_accept_zero_and_refuse_above_i64_max() {
        type Setter = fn(&mut Options, u64) -> Result<(), ValueError>;
        type Getter = fn(&Options) -> u64;
        let cases: [(Setter, Getter, &str); 5] = [
            (Options::set_num_bytes, |o| o.num_bytes, "bytes per process"),
            (
                Options::set_min_xfer_size,
                |o| o.buf_min,
                "minimum transfer size",
            ),
            (
                Options::set_max_xfer_size,
                |o| o.buf_max,
                "maximum transfer size",
            ),
            (Options::set_block_size, |o| o.blk_size, "block size"),
            (
                Options::set_threshold,
                |o| o.h5_thresh,
                "HDF5 alignment threshold",
            ),
        ];
        for (set, get, what) in cases {
            let mut o = Options::default();
            set(&mut o, 0).unwrap();
            assert_eq!(get(&o), 0, "{what}");
            set(&mut o, i64::MAX as u64).unwrap();
            assert_eq!(get(&o), i64::MAX as u64, "{what}");
            let e = set(&mut o, i64::MAX as u64 + 1).unwrap_err();
            assert_eq!(
                get(&o),
                i64::MAX as u64,
                "{what}: unchanged after a refusal"
            );
            assert_eq!(
                e.to_string(),
                format!("{what} (9223372036854775808) is too large (at most 9223372036854775807)")
            );
            assert_eq!(e.reason(), "too large (at most 9223372036854775807 bytes)");
        }
    }

    #[test]
    fn align_and_counts_must_be_at_least_one() {
        type Setter = fn(&mut Options, u64) -> Result<(), ValueError>;
        type Getter = fn(&Options) -> u64;
        let cases: [(Setter, Getter, &str, &str); 3] = [
            (
                Options::set_align,
                |o| o.h5_align,
                "HDF5 alignment",
                " bytes",
            ),
            (
                Options::set_num_files,
                |o| o.num_files,
                "number of files",
                "",
            ),
            (
                Options::set_num_dsets,
                |o| o.num_dsets,
                "number of datasets",
                "",
            ),
        ];
        for (set, get, what, unit) in cases {
            let mut o = Options::default();
            set(&mut o, 7).unwrap();
            assert_eq!(get(&o), 7);
            let e = set(&mut o, 0).unwrap_err();
            assert_eq!(get(&o), 7, "{what}: unchanged after a refusal");
            assert_eq!(e.to_string(), format!("{what} must be at least 1"));
            assert_eq!(e.reason(), "must be at least 1");
            let e = set(&mut o, u64::MAX).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("{what} (18446744073709551615) is too large (at most 9223372036854775807)")
            );
            assert_eq!(
                e.reason(),
                format!("too large (at most 9223372036854775807{unit})")
            );
            set(&mut o, i64::MAX as u64).unwrap();
        }
    }

    #[test]
    fn debug_level_clamps_above_four_and_refuses_negative() {
        let mut o = Options::default();
        for (level, want) in [(0, 0), (3, 3), (4, 4), (5, 4), (i64::MAX, 4)] {
            o.set_debug_level(level).unwrap();
            assert_eq!(o.debug.level, want, "{level}");
        }
        let e = o.set_debug_level(-1).unwrap_err();
        assert_eq!(o.debug.level, 4, "unchanged after a refusal");
        assert_eq!(e.to_string(), "debug level (-1) must be 0..4");
        assert_eq!(e.reason(), "must be 0..4");
    }

    #[test]
    fn reorder_shift_at_least_one() {
        let mut o = Options::default();
        o.set_reorder(None).unwrap();
        assert_eq!(o.storage.reorder, Some(Reorder::ByNode));
        o.set_reorder(Some(3)).unwrap();
        assert_eq!(o.storage.reorder, Some(Reorder::Shift(3)));
        let e = o.set_reorder(Some(0)).unwrap_err();
        assert_eq!(o.storage.reorder, Some(Reorder::Shift(3)), "unchanged");
        assert_eq!(e.to_string(), "read reorder shift must be at least 1");
        assert!(o.set_reorder(Some(u64::MAX)).is_err());
    }

    #[test]
    fn file_names_must_not_be_empty() {
        let mut o = Options::default();
        let os = OsStr::new;
        o.set_output(os(" a b ")).unwrap();
        o.set_json(os("-")).unwrap();
        o.set_csv(os("r.csv")).unwrap();
        assert_eq!(
            (o.output.as_deref(), o.json.as_deref(), o.csv.as_deref()),
            (Some(os(" a b ")), Some(os("-")), Some(os("r.csv")))
        );
        let e = o.set_output(os("")).unwrap_err();
        assert_eq!(
            (e.to_string().as_str(), e.reason().as_str()),
            ("empty report file name", "empty file name")
        );
        let e = o.set_json(os("")).unwrap_err();
        assert_eq!(e.to_string(), "empty JSON file name");
        assert_eq!(e.reason(), "empty file name (use - for standard output)");
        let e = o.set_csv(os("")).unwrap_err();
        assert_eq!(e.to_string(), "empty CSV file name");
        assert_eq!(e.reason(), "empty file name (use - for standard output)");
        assert_eq!(
            (o.output.as_deref(), o.json.as_deref(), o.csv.as_deref()),
            (Some(os(" a b ")), Some(os("-")), Some(os("r.csv"))),
            "unchanged after refusals"
        );
    }
}
