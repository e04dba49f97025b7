//! Names of output files as files: where a name leads through symbolic links
//! ([`resolve_links`]), what file it is or will be ([`FileKey`]), the temporary file
//! beside it that a new version is written to ([`temp_beside`]), and the replacement of
//! the file by that temporary file ([`replace`]).
//!
//! Everything works on bytes (`Path`): a name that is not UTF-8 is the file it spells.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{path_text, Error, Result};

/// The most symbolic links followed for one name (Linux's `MAXSYMLINKS`, 40).
const MAX_LINKS: usize = 40;

/// `path` with every symbolic link at its last component followed (relative targets
/// are taken from the link's directory), as far as the links lead: the file that
/// writing "to `path`" reaches, existing or not. A name that is not a symbolic link
/// is returned as is; after `MAX_LINKS` links the last name reached is returned (the
/// later open fails with `ELOOP`).
pub fn resolve_links(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let is_link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            break;
        }
        let Ok(target) = std::fs::read_link(&p) else {
            break;
        };
        p = if target.is_absolute() {
            target
        } else {
            p.parent().unwrap_or(Path::new("")).join(target)
        };
    }
    p
}

/// What file a name is, or will be once created: the same key for two names means
/// one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKey {
    /// An existing file: its device and inode numbers (`stat`, links followed).
    Inode {
        /// `st_dev`.
        dev: u64,
        /// `st_ino`.
        ino: u64,
    },
    /// A file yet to be created: the device and inode of the directory it will be
    /// created in (links followed) and its name there, so `./x`, `x` and `d/../x`
    /// give the same key.
    New {
        /// `st_dev` of the directory.
        dev: u64,
        /// `st_ino` of the directory.
        ino: u64,
        /// The file's name in the directory (bytes).
        name: OsString,
    },
    /// A name whose directory cannot be examined (missing, no permission): its
    /// lexically normalised absolute name, the best that can be compared.
    Name(PathBuf),
}

impl FileKey {
    /// The key of `path` (relative names from the current directory).
    pub fn of(path: &Path) -> FileKey {
        if let Ok(m) = std::fs::metadata(path) {
            return FileKey::Inode {
                dev: m.dev(),
                ino: m.ino(),
            };
        }
        let target = resolve_links(path);
        if let (Some(name), Some(dir)) = (target.file_name(), target.parent()) {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(m) = std::fs::metadata(dir) {
                return FileKey::New {
                    dev: m.dev(),
                    ino: m.ino(),
                    name: name.to_os_string(),
                };
            }
        }
        FileKey::Name(normalise(&target))
    }
}

/// `path` made absolute (from the current directory) with `.` and `..` removed
/// lexically.
fn normalise(path: &Path) -> PathBuf {
    let abs = std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path));
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The temporary file beside `path` that a new version of it is written to before it
/// replaces `path` ([`replace`]): `.NAME.h5perf-tmp.PID` in the same directory (so the
/// rename stays on one file system).
pub fn temp_beside(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or("results".as_ref()));
    name.push(format!(".h5perf-tmp.{}", std::process::id()));
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// Replace `path` by `tmp` (`rename`, atomic on one file system), then `fsync` their
/// directory so the rename reaches the disk (best effort). If `path` exists, `tmp`
/// first takes its permission bits, so replacing a file keeps who may read it.
///
/// # Errors
/// The `rename` fails (the message names `path`); `tmp` is left for the caller.
pub fn replace(tmp: &Path, path: &Path) -> Result<()> {
    if let Ok(old) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp, old.permissions());
    }
    std::fs::rename(tmp, path).map_err(|e| Error::Posix {
        call: "rename",
        errno: e.raw_os_error().unwrap_or(0),
        path: Some(path_text(path.as_os_str())),
    })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{symlink, PermissionsExt};

    #[test]
    fn keys_of_existing_and_new_files() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("a"), "x").unwrap();
        std::fs::hard_link(d.join("a"), d.join("hard")).unwrap();
        symlink("a", d.join("soft")).unwrap();
        symlink("sub/new", d.join("dangling")).unwrap();
        let k = |s: &str| FileKey::of(&d.join(s));
        assert_eq!(k("a"), k("hard"));
        assert_eq!(k("a"), k("soft"));
        assert_eq!(k("a"), k("sub/../a"));
        assert!(matches!(k("a"), FileKey::Inode { .. }));
        assert_ne!(k("a"), k("b"));
        // yet to be created: the directory and the name
        assert_eq!(k("sub/new"), k("sub/./new"));
        assert_eq!(k("sub/new"), k("dangling"));
        assert!(matches!(k("sub/new"), FileKey::New { .. }));
        assert_ne!(k("sub/new"), k("new"));
        // non-UTF-8 names are their bytes
        let odd = std::ffi::OsStr::from_bytes(b"r\xff");
        assert_ne!(FileKey::of(&d.join(odd)), k("r\u{fffd}"));
        // a directory that does not exist: compared by name
        assert_eq!(k("no/x"), k("no/./x"));
        assert!(matches!(k("no/x"), FileKey::Name(_)));
    }

    #[test]
    fn links_are_followed_to_the_file_they_reach() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        symlink("b", d.join("a")).unwrap();
        symlink(d.join("c"), d.join("b")).unwrap();
        assert_eq!(resolve_links(&d.join("a")), d.join("c"));
        assert_eq!(resolve_links(&d.join("c")), d.join("c"));
        symlink("loop", d.join("loop")).unwrap();
        assert_eq!(resolve_links(&d.join("loop")), d.join("loop"));
    }

    #[test]
    fn replace_through_the_temporary_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.txt");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let tmp = temp_beside(&path);
        assert_eq!(tmp.parent(), path.parent());
        let name = tmp.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with(".r.txt.h5perf-tmp."), "{name}");
        std::fs::write(&tmp, "new").unwrap();
        replace(&tmp, &path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "the replaced file's permissions are kept"
        );
        assert!(!tmp.exists());
        assert_eq!(temp_beside(Path::new("x")).parent(), Some(Path::new("")));
        let e = replace(&tmp, &path).unwrap_err();
        assert!(e.to_string().starts_with("rename("), "{e}");
    }
}
