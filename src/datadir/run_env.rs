//! The run environment (`HDF5_PARAPREFIX`, `USER`, `HDF5_NOCLEANUP`; spec §5.1, §5.2),
//! the data-file directory and names: bytes (`OsStr`, `Path`) from the environment to
//! the system call; only messages turn them into text ([`crate::error::path_text`]).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use super::data_files;
use crate::agreement::agree;
use crate::error::{cut, path_text, Error, Result};
use crate::ffi::mpi::Comm;

/// Environment settings read once at start-up (spec §5.1, §5.2, §2.4), as the bytes the
/// process was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunEnv {
    /// `HDF5_PARAPREFIX` (None if unset).
    pub paraprefix: Option<OsString>,
    /// `$USER`, else `$LOGIN` (None if neither is set).
    pub user: Option<OsString>,
    /// `HDF5_NOCLEANUP` is set (any value): keep the data files.
    pub nocleanup: bool,
}

impl RunEnv {
    /// Read the variables from the process environment (bytes as given).
    pub fn from_process() -> RunEnv {
        RunEnv {
            paraprefix: std::env::var_os("HDF5_PARAPREFIX"),
            user: std::env::var_os("USER").or_else(|| std::env::var_os("LOGIN")),
            nocleanup: std::env::var_os("HDF5_NOCLEANUP").is_some(),
        }
    }

    /// `HDF5_PARAPREFIX` as message text (non-UTF-8 bytes as `\xNN`), for the report's
    /// parameter block; None if unset.
    pub fn paraprefix_text(&self) -> Option<String> {
        self.paraprefix.as_deref().map(path_text)
    }
}

/// The data-file directory (spec §5.1; [`data_dir`]), checked writable on every rank
/// before any I/O (a `read_only` run creates no data file there, but its lock). Collective.
///
/// Errors: the directory is missing, not a directory or not writable on some rank; `USER`
/// is not a plain name, or `$HDF5_PARAPREFIX/$USER` is not a directory of this user.
pub fn data_dir_checked(world: &Comm, env: &RunEnv, read_only: bool) -> Result<PathBuf> {
    let prefix = env.paraprefix.as_deref().filter(|p| !p.is_empty());
    let user = prefix.and(env.user.as_deref());
    if let Some(u) = user {
        agree(world, data_files::check_user_name(u))?;
    }
    let dir = data_dir(env.paraprefix.as_deref(), env.user.as_deref());
    let here = dir_or_current(&dir);
    let usable = crate::ffi::posix::check_writable_dir(here).map_err(|e| {
        let here = path_text(here.as_os_str());
        Error::DataDir(if read_only {
            format!(
                "cannot create the lock #h5perf.lock in {here} (HDF5_PARAPREFIX), which a \
                 --read-only run takes too (it creates no data file): {e}"
            )
        } else {
            format!("cannot create data files in {here} (HDF5_PARAPREFIX): {e}")
        })
    });
    let usable = match user {
        Some(_) if Some(dir.as_os_str()) != prefix => {
            usable.and_then(|()| data_files::check_user_dir(&dir))
        }
        _ => usable,
    };
    agree(world, usable)?;
    Ok(dir)
}

/// `dir`, or `.` when `dir` is empty (the current directory of [`data_dir`]).
pub fn dir_or_current(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

/// The directory part of data-file names (spec §5.1): empty for the current directory,
/// else `prefix/$USER` (or `$LOGIN`), created with mode 0755 if missing, else `prefix`;
/// the bytes are joined as given.
pub fn data_dir(prefix: Option<&OsStr>, user: Option<&OsStr>) -> PathBuf {
    let Some(prefix) = prefix.filter(|p| !p.is_empty()) else {
        return PathBuf::new();
    };
    let Some(sub) = user else {
        return PathBuf::from(prefix);
    };
    let mut dir = prefix.to_os_string();
    dir.push("/");
    dir.push(sub);
    let dir = PathBuf::from(dir);
    if std::fs::metadata(&dir).is_ok() {
        return dir;
    }
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o755).create(&dir) {
        Ok(()) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => dir,
        Err(_) => PathBuf::from(prefix),
    }
}

/// Bytes left free for the MPI library, which makes names of its own from a data file's
/// (ROMIO's shared-file-pointer file `.NAME.shfp.PID.N`, OMPIO's lock and shared-memory
/// files) in buffers of `PATH_MAX` (4096) bytes: a data file name of 4,070 bytes made
/// Open MPI's MPI-IO overflow one (glibc's abort, issue 35).
pub const MPI_NAME_ROOM: usize = 128;

/// The longest data file name accepted (bytes): `PATH_MAX` less the terminating NUL and
/// [`MPI_NAME_ROOM`].
pub const MAX_DATA_FILE_NAME: usize = 4095 - MPI_NAME_ROOM;

/// The name of data file `f` (1-based) in `dir` with the API's `suffix`:
/// `dir/#pio_tmp_<f><suffix>`, runs of `/` collapsed (spec §5.1), bytes kept as they are.
///
/// Errors: a name longer than [`MAX_DATA_FILE_NAME`] bytes.
pub fn data_file_name(dir: &Path, f: u64, suffix: &str) -> Result<PathBuf> {
    named(dir, &format!("#pio_tmp_{f}{suffix}"))
}

/// The name of rank `rank`'s own data file `f` (1-based) with `--file-per-process`:
/// `dir/#pio_tmp_<f>-<rank><suffix>` (rank in decimal, not padded), otherwise as
/// [`data_file_name`], whose names stay those of the shared files.
///
/// Errors: a name longer than [`MAX_DATA_FILE_NAME`] bytes.
pub fn rank_file_name(dir: &Path, f: u64, rank: u32, suffix: &str) -> Result<PathBuf> {
    named(dir, &format!("#pio_tmp_{f}-{rank}{suffix}"))
}

/// `dir/file`, runs of `/` collapsed, at most [`MAX_DATA_FILE_NAME`] bytes.
fn named(dir: &Path, file: &str) -> Result<PathBuf> {
    let mut name = dir.as_os_str().as_bytes().to_vec();
    if !name.is_empty() {
        name.push(b'/');
    }
    name.extend_from_slice(file.as_bytes());
    name.dedup_by(|b, prev| *b == b'/' && *prev == b'/');
    if name.len() > MAX_DATA_FILE_NAME {
        let text = path_text(OsStr::from_bytes(&name));
        return Err(Error::DataDir(format!(
            "data file name is too long ({} bytes, the limit is {MAX_DATA_FILE_NAME}: 4095 \
             less {MPI_NAME_ROOM} bytes for the names the MPI library makes from it): {}… \
             (choose a shorter HDF5_PARAPREFIX)",
            name.len(),
            cut(&text, 64)
        )));
    }
    Ok(PathBuf::from(OsString::from_vec(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn names() {
        assert_eq!(
            data_file_name(&p(""), 1, ".posix").unwrap(),
            p("#pio_tmp_1.posix")
        );
        assert_eq!(
            data_file_name(&p("/scratch//pp/bob"), 2, ".mpio").unwrap(),
            p("/scratch/pp/bob/#pio_tmp_2.mpio")
        );
        assert_eq!(
            data_file_name(&p("/x/"), 10, ".h5").unwrap(),
            p("/x/#pio_tmp_10.h5")
        );
        assert_eq!(
            rank_file_name(&p("/x//y"), 2, 13, ".mpio").unwrap(),
            p("/x/y/#pio_tmp_2-13.mpio")
        );
        assert!(rank_file_name(&p(&"/a".repeat(3000)), 1, 0, ".h5").is_err());
        let long = "/a".repeat(3000);
        assert!(data_file_name(&p(&long), 1, ".posix").is_err());
        // room for the MPI library's own names: 4,070 bytes are refused, the limit is not
        let at = |len: usize| format!("/{}", "d".repeat(len - 1 - "/#pio_tmp_1.mpio".len()));
        let e = data_file_name(&p(&at(4070)), 1, ".mpio").unwrap_err();
        assert!(
            e.to_string().contains("(4070 bytes, the limit is 3967"),
            "{e}"
        );
        let ok = data_file_name(&p(&at(MAX_DATA_FILE_NAME)), 1, ".mpio").unwrap();
        assert_eq!(ok.as_os_str().len(), MAX_DATA_FILE_NAME);
    }

    #[test]
    fn names_keep_non_utf8_bytes() {
        let dir = PathBuf::from(OsString::from_vec(b"/s\xff//d\xe9".to_vec()));
        let name = data_file_name(&dir, 3, ".h5").unwrap();
        assert_eq!(name.as_os_str().as_bytes(), b"/s\xff/d\xe9/#pio_tmp_3.h5");
    }

    #[test]
    fn too_long_multibyte_name_is_an_error_not_a_panic() {
        // 2-, 3- and 4-byte characters, so that byte 64 falls inside one of them
        for c in ["é", "€", "𝄞"] {
            for pad in 0..4 {
                let dir = format!("/{}{}", "x".repeat(pad), c.repeat(5000 / c.len()));
                let e = data_file_name(&p(&dir), 1, ".posix").unwrap_err();
                assert!(e.to_string().contains("too long"), "{e}");
            }
        }
        let raw = [b"/".to_vec(), vec![0xffu8; 5000]].concat();
        let e = data_file_name(&PathBuf::from(OsString::from_vec(raw)), 1, "").unwrap_err();
        assert!(e.to_string().contains("\\xff"), "{e}");
    }

    #[test]
    fn dirs() {
        assert_eq!(data_dir(None, Some(OsStr::new("bob"))), p(""));
        assert_eq!(
            data_dir(Some(OsStr::new("")), Some(OsStr::new("bob"))),
            p("")
        );
        let t = std::env::temp_dir().join(format!("h5perf-dirtest-{}", std::process::id()));
        std::fs::create_dir_all(&t).unwrap();
        assert_eq!(data_dir(Some(t.as_os_str()), None), t);
        let d = data_dir(Some(t.as_os_str()), Some(OsStr::new("bob")));
        assert_eq!(d, t.join("bob"));
        assert!(d.is_dir());
        // non-UTF-8 bytes name exactly that directory
        let odd = OsStr::from_bytes(b"b\xf6b");
        let d = data_dir(Some(t.as_os_str()), Some(odd));
        assert_eq!(d, t.join(odd));
        assert!(d.is_dir());
        // one level only: a missing prefix falls back to the prefix itself
        let missing = t.join("missing");
        assert_eq!(
            data_dir(Some(missing.as_os_str()), Some(OsStr::new("bob"))),
            missing
        );
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn paraprefix_text_escapes_bytes() {
        let env = RunEnv {
            paraprefix: Some(OsString::from_vec(b"/p\xff".to_vec())),
            user: None,
            nocleanup: false,
        };
        assert_eq!(env.paraprefix_text().as_deref(), Some("/p\\xff"));
    }
}
