//! The files HDF5's subfiling driver makes for one PHDF5 data file (`--subfiling`; HDF5
//! 1.14 and later, H5FDsubfiling.h and H5subfiling_common.c): a stub at the file's own
//! name, the configuration file `NAME.subfile_INODE.config` beside it (INODE: the stub's
//! inode number) and the subfiles `NAME.subfile_INODE_K_of_N` that hold the data, both
//! in the file's directory unless `H5FD_SUBFILING_CONFIG_FILE_PREFIX` or
//! `H5FD_SUBFILING_SUBFILE_PREFIX` say otherwise (h5perf refuses those).
//!
//! The configuration file (one `key=value` a line, then the subfiles' names) is what the
//! driver chose: `stripe_size=`, `aggregator_count=` (the I/O concentrators),
//! `subfile_count=`, `hdf5_file=`, `subfile_dir=`.

use std::ffi::{CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{path_text, Error, Result};

/// The subfiling driver's files of one data file and its configuration, as its
/// configuration file records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubfilingLayout {
    /// The configuration file, `NAME.subfile_INODE.config`.
    pub config: PathBuf,
    /// Bytes of a stripe: the file's data goes to the subfiles in stripes of this size,
    /// round robin (`stripe_size=`).
    pub stripe_size: u64,
    /// The I/O concentrators, the threads that write the subfiles (`aggregator_count=`).
    pub ioc_count: u64,
    /// The subfiles, in order (their names after `subfile_dir=`, in `subfile_dir`).
    pub subfiles: Vec<PathBuf>,
}

fn posix_error(call: &'static str, path: &Path, e: &std::io::Error) -> Error {
    Error::Posix {
        call,
        errno: e.raw_os_error().unwrap_or(0),
        path: Some(path_text(path.as_os_str())),
    }
}

impl SubfilingLayout {
    /// The layout of the data file `path` (its bytes as a C string): the stub's inode
    /// (`stat`), then its configuration file read and parsed ([`SubfilingLayout::parse`]).
    /// Errors: [`Error::Posix`] of `stat` or `read`, [`Error::DataDir`] for a
    /// configuration file h5perf cannot read as the driver writes it.
    pub fn of(path: &CStr) -> Result<SubfilingLayout> {
        let path = Path::new(OsStr::from_bytes(path.to_bytes()));
        let ino = std::fs::metadata(path)
            .map_err(|e| posix_error("stat", path, &e))?
            .ino();
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".subfile_{ino}.config"));
        let config = dir.join(name);
        let text = std::fs::read(&config).map_err(|e| posix_error("read", &config, &e))?;
        Self::parse(config, &String::from_utf8_lossy(&text))
    }

    /// The layout that the configuration file `config` with contents `text` records.
    /// Errors: [`Error::DataDir`] when `stripe_size=`, `aggregator_count=`,
    /// `subfile_count=` or `subfile_dir=` is missing or not a number, or the names of
    /// the subfiles are not `subfile_count`.
    pub fn parse(config: PathBuf, text: &str) -> Result<SubfilingLayout> {
        let bad = |what: &str| {
            Error::DataDir(format!(
                "the subfiling configuration file {} {what}",
                path_text(config.as_os_str())
            ))
        };
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .ok_or_else(|| bad(&format!("has no {key}=")))
        };
        let number = |key: &str| {
            value(key)?
                .trim()
                .parse::<u64>()
                .map_err(|_| bad(&format!("has no number after {key}=")))
        };
        let stripe_size = number("stripe_size")?;
        let ioc_count = number("aggregator_count")?;
        let count = number("subfile_count")?;
        let dir = Path::new(value("subfile_dir")?);
        let subfiles: Vec<PathBuf> = text
            .lines()
            .filter(|l| !l.contains('=') && l.contains(".subfile_"))
            .map(|l| dir.join(l))
            .collect();
        if subfiles.len() as u64 != count {
            return Err(bad(&format!(
                "names {} subfiles, not subfile_count={count}",
                subfiles.len()
            )));
        }
        Ok(SubfilingLayout {
            config,
            stripe_size,
            ioc_count,
            subfiles,
        })
    }

    /// The subfiles, then the configuration file: the files to remove, in order.
    pub fn files(self) -> Vec<PathBuf> {
        let mut v = self.subfiles;
        v.push(self.config);
        v
    }

    /// Remove the subfiles, then the configuration file (one that is already gone is
    /// no error). Errors: [`Error::Posix`] of the first `unlink` that failed otherwise
    /// (the others are still tried).
    pub fn remove(&self) -> Result<()> {
        let mut first = Ok(());
        for f in self.subfiles.iter().chain([&self.config]) {
            match std::fs::remove_file(f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    if first.is_ok() {
                        first = Err(posix_error("unlink", f, &e));
                    }
                }
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "stripe_size=33554432\naggregator_count=1\nsubfile_count=2\n\
        hdf5_file=/d/f.h5\nsubfile_dir=/d\nf.h5.subfile_42_1_of_2\nf.h5.subfile_42_2_of_2\n";

    #[test]
    fn parses_the_configuration_the_driver_writes() {
        let l = SubfilingLayout::parse("/d/f.h5.subfile_42.config".into(), CONFIG).unwrap();
        assert_eq!(l.stripe_size, 32 << 20);
        assert_eq!(l.ioc_count, 1);
        assert_eq!(
            l.subfiles,
            vec![
                PathBuf::from("/d/f.h5.subfile_42_1_of_2"),
                PathBuf::from("/d/f.h5.subfile_42_2_of_2")
            ]
        );
    }

    #[test]
    fn refuses_a_configuration_it_cannot_read() {
        let short = CONFIG.replace("f.h5.subfile_42_2_of_2\n", "");
        let e = SubfilingLayout::parse("c".into(), &short).unwrap_err();
        assert!(
            e.to_string()
                .contains("names 1 subfiles, not subfile_count=2"),
            "{e}"
        );
        let e = SubfilingLayout::parse("c".into(), "subfile_count=1\n").unwrap_err();
        assert!(e.to_string().contains("has no stripe_size="), "{e}");
    }

    #[test]
    fn removes_the_subfiles_and_the_configuration() {
        let dir = std::env::temp_dir().join(format!("h5perf-subfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stub = dir.join("f.h5");
        std::fs::write(&stub, b"").unwrap();
        let ino = std::fs::metadata(&stub).unwrap().ino();
        let sub = dir.join(format!("f.h5.subfile_{ino}_1_of_1"));
        std::fs::write(&sub, b"data").unwrap();
        let config = dir.join(format!("f.h5.subfile_{ino}.config"));
        let text = format!(
            "stripe_size=4096\naggregator_count=1\nsubfile_count=1\nhdf5_file={}\n\
             subfile_dir={}\nf.h5.subfile_{ino}_1_of_1\n",
            stub.display(),
            dir.display()
        );
        std::fs::write(&config, text).unwrap();
        let c = std::ffi::CString::new(stub.as_os_str().as_bytes()).unwrap();
        let l = SubfilingLayout::of(&c).unwrap();
        assert_eq!((l.stripe_size, l.ioc_count), (4096, 1));
        l.remove().unwrap();
        assert!(!sub.exists() && !config.exists() && stub.exists());
        l.remove().unwrap(); // already gone: no error
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
