//! The run environment: the variables read once at start-up (`HDF5_PARAPREFIX`, `USER`,
//! `HDF5_NOCLEANUP`; spec §5.1, §5.2), the data-file directory and the data-file names.

use super::agree::agree;
use crate::error::{Error, Result};
use crate::ffi::mpi::Comm;

/// Environment settings read once at start-up (spec §5.1, §5.2, §2.4).
pub struct RunEnv {
    /// `HDF5_PARAPREFIX` (None if unset).
    pub paraprefix: Option<String>,
    /// `$USER`, else `$LOGIN`.
    pub user: Option<String>,
    /// `HDF5_NOCLEANUP` is set (any value): keep the data files.
    pub nocleanup: bool,
}

impl RunEnv {
    /// Read the variables from the process environment.
    pub fn from_process() -> RunEnv {
        let var = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
        RunEnv {
            paraprefix: var("HDF5_PARAPREFIX"),
            user: var("USER").or_else(|| var("LOGIN")),
            nocleanup: std::env::var_os("HDF5_NOCLEANUP").is_some(),
        }
    }
}

/// The data-file directory (spec §5.1), checked on every rank before any I/O: each
/// rank must be able to create files in it. (A collective MPI-IO open that fails on
/// some ranks only can hang inside the MPI library, e.g. Open MPI's OMPIO, so such a
/// problem must be found before any file is opened.) Collective over `world`.
///
/// Errors: the directory is missing, not a directory or not writable on some rank.
pub fn data_dir_checked(world: &Comm, env: &RunEnv) -> Result<String> {
    let dir = data_dir(env.paraprefix.as_deref(), env.user.as_deref());
    let here = if dir.is_empty() { "." } else { dir.as_str() };
    let usable = crate::ffi::posix::check_writable_dir(here).map_err(|e| {
        Error::Other(format!(
            "cannot create data files in {here} (HDF5_PARAPREFIX): {e}"
        ))
    });
    agree(world, usable)?;
    Ok(dir)
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

/// The name of data file `f` (1-based) in directory `dir`, with the API's `suffix`
/// (`.posix`, `.mpio`, `.h5`): `dir/#pio_tmp_<f><suffix>` with runs of `/` collapsed
/// (spec §5.1).
///
/// Errors: a name of 4096 bytes or more (`FILENAME_MAX`).
pub fn data_file_name(dir: &str, f: u64, suffix: &str) -> Result<String> {
    let raw = if dir.is_empty() {
        format!("#pio_tmp_{f}{}", suffix)
    } else {
        format!("{dir}/#pio_tmp_{f}{}", suffix)
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
        assert_eq!(data_file_name("", 1, ".posix").unwrap(), "#pio_tmp_1.posix");
        assert_eq!(
            data_file_name("/scratch//pp/bob", 2, ".mpio").unwrap(),
            "/scratch/pp/bob/#pio_tmp_2.mpio"
        );
        assert_eq!(
            data_file_name("/x/", 10, ".h5").unwrap(),
            "/x/#pio_tmp_10.h5"
        );
        let long = "/a".repeat(3000);
        assert!(data_file_name(&long, 1, ".posix").is_err());
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
