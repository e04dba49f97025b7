//! The I/O APIs h5perf benchmarks.

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
