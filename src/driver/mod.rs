//! One driver per I/O API behind one interface, and the data-file names they share.
//!
//! The engine drives a file through: [`Driver::open`] → [`Driver::begin_phase`] →
//! for each dataset ([`Driver::begin_dataset`] → [`Driver::write`]/[`Driver::read`] per
//! transfer → [`Driver::end_dataset`]) → [`Driver::end_phase`] → [`Driver::close`].
//! Everything a driver needs per transfer is prepared in `begin_*`, so that the
//! per-transfer calls only compute offsets and call the I/O library.

pub mod mpiio;
pub mod phdf5;
pub mod posix;

use std::ffi::CString;

use crate::error::{Error, Result};
use crate::ffi::mpi::{Comm, Info};
use crate::params::{Api, Params};
use crate::pattern::Pattern;

/// Read or write phase of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Create/truncate the file and write every dataset.
    Write,
    /// Open read-only and read every dataset back.
    Read,
}

/// What a driver needs to know about the current configuration.
pub struct Ctx<'a> {
    /// The run communicator (first N world ranks).
    pub comm: &'a Comm,
    /// `HDF5_MPI_INFO` as an info object (or `MPI_INFO_NULL`).
    pub info: &'a Info,
    /// The resolved parameters.
    pub params: &'a Params,
    /// This rank's access pattern for the current (N, transfer size, API).
    pub pattern: Pattern,
}

impl Ctx<'_> {
    /// Byte offset of dataset `d` (0-based) in raw POSIX/MPI-IO files, `d × D` (spec §6.1).
    pub fn dataset_base(&self, d: u64) -> u64 {
        d * self.pattern.dataset_bytes()
    }
}

/// One I/O API (POSIX, MPI-IO, PHDF5). All methods report failures as [`Error`]; the
/// engine agrees on them across ranks.
pub trait Driver {
    /// Prepare a configuration, outside every timer (MPI-IO: build and commit the
    /// derived datatypes). Everything it made is released by the next `prepare` or
    /// when the driver is dropped.
    fn prepare(&mut self, ctx: &Ctx<'_>) -> Result<()> {
        let _ = ctx;
        Ok(())
    }
    /// Open `path` for `phase` (create/truncate for writing, read-only for reading).
    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Phase) -> Result<()>;
    /// Prepare the phase: derived datatypes, dataspaces, transfer property lists.
    fn begin_phase(&mut self, ctx: &Ctx<'_>, phase: Phase) -> Result<()>;
    /// Prepare dataset `d` (0-based): HDF5 creates or opens `Dataset_<d+1>`.
    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, phase: Phase) -> Result<()>;
    /// Write transfer `k` of the current dataset from `buf` (the transfer buffer).
    fn write(&mut self, ctx: &Ctx<'_>, k: u64, buf: &[u8]) -> Result<()>;
    /// Read transfer `k` of the current dataset into `buf`.
    fn read(&mut self, ctx: &Ctx<'_>, k: u64, buf: &mut [u8]) -> Result<()>;
    /// Finish the current dataset (HDF5: `H5Dclose`).
    fn end_dataset(&mut self) -> Result<()>;
    /// Release what `begin_phase` made.
    fn end_phase(&mut self) -> Result<()>;
    /// Close the file (collective for MPI-IO and PHDF5); releases anything still open first.
    fn close(&mut self) -> Result<()>;
    /// Let go of an open file without the (collective) close, after an open that failed
    /// on other ranks. Returns true if a handle was abandoned. POSIX closes normally.
    fn abandon(&mut self) -> bool {
        // a local close: its error does not matter, the run is failing already
        let _ = self.close();
        false
    }
    /// Whether every transfer call is collective (all ranks must make every call).
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        let _ = ctx;
        false
    }
    /// Whether preparing and finishing a dataset are collective calls (HDF5).
    fn collective_datasets(&self) -> bool {
        false
    }
    /// Delete the file (called on one rank only).
    fn remove(&mut self, ctx: &Ctx<'_>, path: &str) -> Result<()>;
}

/// A fresh driver for `api`.
pub fn new_driver(api: Api) -> Box<dyn Driver> {
    match api {
        Api::Posix => Box::new(posix::PosixDriver::default()),
        Api::Mpiio => Box::new(mpiio::MpiioDriver::default()),
        Api::Phdf5 => Box::new(phdf5::Phdf5Driver::default()),
    }
}

/// File-name suffix of an API: `.posix`, `.mpio`, `.h5` (spec §5.1).
pub fn suffix(api: Api) -> &'static str {
    match api {
        Api::Posix => ".posix",
        Api::Mpiio => ".mpio",
        Api::Phdf5 => ".h5",
    }
}

/// The directory part of data-file names (spec §5.1): empty for the current
/// directory, else `prefix/$USER` (or `$LOGIN`), created with mode 0755 if missing;
/// if that cannot be created, `prefix` itself. Runs of `/` are collapsed later.
pub fn data_dir(prefix: Option<&str>, user: Option<&str>) -> String {
    let Some(prefix) = prefix.filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let Some(sub) = user else {
        return prefix.to_string();
    };
    let dir = format!("{prefix}/{sub}");
    if std::fs::metadata(&dir).is_ok() {
        return dir;
    }
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o755).create(&dir) {
        Ok(()) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => dir,
        Err(_) => prefix.to_string(),
    }
}

/// The name of data file `f` (1-based) of `api` in directory `dir`:
/// `dir/#pio_tmp_<f><suffix>` with runs of `/` collapsed (spec §5.1).
///
/// Errors: a name of 4096 bytes or more (`FILENAME_MAX`).
pub fn data_file_name(dir: &str, f: u64, api: Api) -> Result<String> {
    let raw = if dir.is_empty() {
        format!("#pio_tmp_{f}{}", suffix(api))
    } else {
        format!("{dir}/#pio_tmp_{f}{}", suffix(api))
    };
    let mut name = String::with_capacity(raw.len());
    let mut prev_slash = false;
    for c in raw.chars() {
        if c == '/' && prev_slash {
            continue;
        }
        prev_slash = c == '/';
        name.push(c);
    }
    if name.len() >= 4096 {
        return Err(Error::Other(format!(
            "data file name is too long ({} bytes, the limit is 4095): {}…",
            name.len(),
            &name[..64]
        )));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            data_file_name("", 1, Api::Posix).unwrap(),
            "#pio_tmp_1.posix"
        );
        assert_eq!(
            data_file_name("/scratch//pp/bob", 2, Api::Mpiio).unwrap(),
            "/scratch/pp/bob/#pio_tmp_2.mpio"
        );
        assert_eq!(
            data_file_name("/x/", 10, Api::Phdf5).unwrap(),
            "/x/#pio_tmp_10.h5"
        );
        let long = "/a".repeat(3000);
        assert!(data_file_name(&long, 1, Api::Posix).is_err());
    }

    #[test]
    fn dirs() {
        assert_eq!(data_dir(None, Some("bob")), "");
        assert_eq!(data_dir(Some(""), Some("bob")), "");
        let t = std::env::temp_dir().join(format!("h5perf-dirtest-{}", std::process::id()));
        std::fs::create_dir_all(&t).unwrap();
        let p = t.to_str().unwrap();
        assert_eq!(data_dir(Some(p), None), p);
        let d = data_dir(Some(p), Some("bob"));
        assert_eq!(d, format!("{p}/bob"));
        assert!(std::path::Path::new(&d).is_dir());
        // one level only: a missing prefix falls back to the prefix itself
        let missing = format!("{p}/missing");
        assert_eq!(data_dir(Some(&missing), Some("bob")), missing);
        std::fs::remove_dir_all(&t).unwrap();
    }
}
