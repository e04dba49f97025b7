//! What the command line (or the C API) asked for: the selected APIs, debug settings and
//! every option, checked syntactically but not yet defaulted or clamped (spec §1).

use super::fill::FillSettings;

/// The I/O APIs h5perf can benchmark, in execution order (spec §3: POSIX, MPI-IO, PHDF5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// POSIX `open`/`pwrite`/`pread` on `#pio_tmp_N.posix`.
    Posix,
    /// MPI-IO on `#pio_tmp_N.mpio`.
    Mpiio,
    /// Parallel HDF5 with the MPI-IO file driver on `#pio_tmp_N.h5`.
    Phdf5,
}

impl Api {
    /// All APIs in execution order.
    pub const ALL: [Api; 3] = [Api::Posix, Api::Mpiio, Api::Phdf5];

    /// File-name suffix of the API's data files: `.posix`, `.mpio`, `.h5` (spec §5.1).
    pub fn suffix(self) -> &'static str {
        match self {
            Api::Posix => ".posix",
            Api::Mpiio => ".mpio",
            Api::Phdf5 => ".h5",
        }
    }

    /// The name used on the command line and in `IO API=` (`posix`, `mpiio`, `phdf5`).
    pub fn name(self) -> &'static str {
        match self {
            Api::Posix => "posix",
            Api::Mpiio => "mpiio",
            Api::Phdf5 => "phdf5",
        }
    }
}

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

/// What the command line asked for, checked syntactically but not yet defaulted or
/// clamped. Zero in a size field means "not given" (spec §1.5 rule 4).
///
/// Sizes are in bytes. Produced by [`crate::cli::parse`] or field by field by the C API.
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
    /// `-o`: report file; `None` = standard output.
    pub output: Option<String>,
    /// `--json FILE`: machine-readable results as JSON (`-` = standard output).
    pub json: Option<String>,
    /// `--csv FILE`: machine-readable results as CSV (`-` = standard output).
    pub csv: Option<String>,
    /// `--fill-value`, `--fill-time` (`-n`), `--alloc-time`: dataset-creation settings of
    /// the PHDF5 datasets (default: none set, the library's defaults).
    pub fill: FillSettings,
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
            fill: FillSettings::default(),
        }
    }
}
