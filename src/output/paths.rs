//! What an output name is as a file and how it is written ([`open_output`], [`replace`]).

use std::ffi::OsString;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{io_text, path_text, Error, Result};
use crate::ffi::posix::FileId;

/// The most symbolic links followed for one name (Linux's `MAXSYMLINKS`, 40).
const MAX_LINKS: usize = 40;

/// `path` with every symbolic link at its last component followed (at most `MAX_LINKS`).
pub fn resolve_links(path: &Path) -> PathBuf {
    walk_links(path, |_, _| None::<()>).unwrap_or_else(|()| path.to_path_buf())
}

/// The directory of `path`: its parent, `.` for a bare name.
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Follow the symbolic links at `path`'s last component (at most `MAX_LINKS`), asking `stop` of
/// each link (name, `lstat`) whether the walk ends there with a value; else the name reached.
fn walk_links<T>(
    path: &Path,
    mut stop: impl FnMut(&Path, &std::fs::Metadata) -> Option<T>,
) -> std::result::Result<PathBuf, T> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Ok(link) = std::fs::symlink_metadata(&p) else {
            break;
        };
        if !link.file_type().is_symlink() {
            break;
        }
        if let Some(v) = stop(&p, &link) {
            return Err(v);
        }
        let Ok(target) = std::fs::read_link(&p) else {
            break;
        };
        // `join` of an absolute target is the target
        p = p.parent().unwrap_or(Path::new("")).join(target);
    }
    Ok(p)
}

/// What an output name is ([`open_output`]).
#[derive(Debug)]
pub enum Target {
    /// A new or regular file: written to a temporary file beside `path` and renamed over it.
    Replace {
        /// The file replaced.
        path: PathBuf,
    },
    /// Anything else that can be opened for writing: written through, never replaced.
    Through(std::fs::File),
}

/// Why an output name cannot be written ([`open_output`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The name is a directory.
    Directory,
    /// A symbolic link on the way belongs to another user, in a sticky or world-writable directory.
    ForeignLink {
        /// The link's owner.
        owner: u32,
        /// The directory holding it, as message text.
        dir: String,
        /// Whether the directory is sticky (else world-writable).
        sticky: bool,
        /// The user running h5perf.
        euid: u32,
    },
    /// The name cannot be examined or opened: the system's reason.
    Io(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Directory => f.write_str("Is a directory"),
            Refusal::ForeignLink {
                owner,
                dir,
                sticky,
                euid,
            } => write!(
                f,
                "it is a symbolic link of user id {owner} in the {} directory '{dir}', \
                 which h5perf (user id {euid}) does not follow there (the rule of the \
                 kernel's protected_symlinks); remove the link or give another name",
                if *sticky { "sticky" } else { "world-writable" }
            ),
            Refusal::Io(why) => f.write_str(why),
        }
    }
}

/// What the output name `name` is: links followed and checked; nothing or a regular file is
/// [`Target::Replace`], else opened write-only (no `O_CREAT`/`O_TRUNC`) and `fstat`ed again.
///
/// # Errors
/// The [`Refusal`], for the caller to name its option and file.
pub fn open_output(name: &Path) -> std::result::Result<Target, Refusal> {
    let io = |e: std::io::Error| Refusal::Io(io_text(&e));
    let euid = crate::ffi::posix::effective_uid();
    // a foreign link is refused as the kernel's `fs.protected_symlinks` would
    let path = walk_links(name, |link, meta| {
        let dir = dir_of(link);
        let d = std::fs::metadata(dir).ok()?;
        let sticky = d.mode() & 0o1000 != 0;
        let shared = sticky || d.mode() & 0o002 != 0;
        (meta.uid() != euid && shared && d.uid() != meta.uid()).then(|| Refusal::ForeignLink {
            owner: meta.uid(),
            dir: path_text(dir.as_os_str()),
            sticky,
            euid,
        })
    })?;
    if let Some(fd) = own_descriptor(name) {
        // `/dev/stdout`, `/dev/fd/N`: this process's descriptor at its offset, as shell `>&N`
        let file = crate::ffi::posix::dup_descriptor(fd).map_err(io)?;
        if file.metadata().map_err(io)?.is_dir() {
            return Err(Refusal::Directory);
        }
        return Ok(Target::Through(file));
    }
    let meta = match std::fs::metadata(name) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Target::Replace { path }),
        Err(e) => return Err(io(e)),
    };
    if meta.is_dir() {
        return Err(Refusal::Directory);
    }
    if meta.is_file() {
        return Ok(Target::Replace { path });
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(name)
        .map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if opened.is_dir() {
        return Err(Refusal::Directory);
    }
    if opened.is_file() {
        // the name changed between the stat and the open: nothing was written
        drop(file);
        return Ok(Target::Replace { path });
    }
    Ok(Target::Through(file))
}

/// Whether `name` exists and is neither a regular file nor a directory (links followed).
pub fn is_special(name: &Path) -> bool {
    own_descriptor(name).is_some()
        || std::fs::metadata(name).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Whether `name` is this process's standard output: `-`, or a name of descriptor 1 such as
/// `/dev/stdout`, `/dev/fd/1` or `/proc/self/fd/1` (links followed).
pub fn is_standard_output(name: &Path) -> bool {
    name.as_os_str() == crate::config::values::STDOUT || own_descriptor(name) == Some(1)
}

/// The descriptor of this process that `name` names via `/proc/PID/fd` (`proc_pid_fd(5)`).
fn own_descriptor(name: &Path) -> Option<i32> {
    let pid = std::process::id().to_string();
    // a link stops the walk: `Some(fd)` if it is one of ours, `None` if it cannot be examined
    let ours = |p: &Path, _: &std::fs::Metadata| {
        let Ok(dir) = std::fs::canonicalize(dir_of(p)) else {
            return Some(None);
        };
        let parts: Option<Vec<_>> = dir.components().map(|c| c.as_os_str().to_str()).collect();
        match parts.as_deref() {
            None => Some(None),
            Some(["/", "proc", id, "fd"] | ["/", "proc", id, "task", _, "fd"]) if *id == pid => {
                Some(p.file_name().and_then(|n| n.to_str()?.parse().ok()))
            }
            Some(_) => None,
        }
    };
    walk_links(name, ours).err().flatten()
}

/// What file a name is, or will be once created: the same key for two names means one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKey {
    /// An existing file (`stat`, links followed).
    Inode(FileId),
    /// A file yet to be created: its directory (links followed) and its name there.
    New {
        /// The directory.
        dir: FileId,
        /// The file's name in the directory.
        name: OsString,
    },
    /// A name whose directory cannot be examined: its lexically normalised absolute name.
    Name(PathBuf),
}

impl FileKey {
    /// The key of `path` (relative names from the current directory).
    pub fn of(path: &Path) -> FileKey {
        if let Ok(m) = std::fs::metadata(path) {
            return FileKey::Inode(FileId::of(&m));
        }
        let target = resolve_links(path);
        if let Some(name) = target.file_name() {
            if let Ok(m) = std::fs::metadata(dir_of(&target)) {
                return FileKey::New {
                    dir: FileId::of(&m),
                    name: name.to_os_string(),
                };
            }
        }
        FileKey::Name(normalise(&target))
    }
}

/// `path` made absolute (from the current directory) with `.` and `..` removed lexically.
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

/// The temporary file `.NAME.h5perf-tmp.PID` beside `path` (the rename stays on one file system).
pub fn temp_beside(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or("results".as_ref()));
    name.push(format!(".h5perf-tmp.{}", std::process::id()));
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// Replace the regular file `path` (or nothing) by `tmp`, which first takes its mode, owner
/// and group; then `fsync` of the directory, best effort.
///
/// # Errors
/// `path` is no longer a regular file, or the `rename` fails; `tmp` is left for the caller.
pub fn replace(tmp: &Path, path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(old) if old.is_file() => keep_owner_and_mode(tmp, &old),
        Ok(old) => {
            return Err(Error::Output(format!(
                "'{}' is no longer a regular file ({}): it is left as it is",
                path_text(path.as_os_str()),
                crate::ffi::posix::FileStat::of(&old).kind.words()
            )))
        }
        Err(_) => {}
    }
    std::fs::rename(tmp, path).map_err(|e| Error::Posix {
        call: "rename",
        errno: e.raw_os_error().unwrap_or(0),
        path: Some(path_text(path.as_os_str())),
    })?;
    if let Ok(d) = std::fs::File::open(dir_of(path)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Give `tmp` the mode, owner and group of `old` (best effort; the group alone if need be).
fn keep_owner_and_mode(tmp: &Path, old: &std::fs::Metadata) {
    use std::os::unix::fs::PermissionsExt;
    if std::os::unix::fs::chown(tmp, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = std::os::unix::fs::chown(tmp, None, Some(old.gid()));
    }
    // after chown, which may clear set-user-ID bits
    let _ = std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(old.mode() & 0o7777));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};

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
        assert!(matches!(k("a"), FileKey::Inode(_)));
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

    #[test]
    fn links_of_another_user_in_shared_directories_are_refused() {
        // run as root by make test: the link is given to another user with lchown
        if crate::ffi::posix::effective_uid() != 0 {
            panic!("this test runs as root (make test does): it gives a link away");
        }
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::write(d.join("target"), "x").unwrap();
        let other = 54_321;
        for (mode, refused) in [
            (0o1777, true),
            (0o0777, true),
            (0o1755, true),
            (0o755, false),
        ] {
            let dir = d.join(format!("dir{mode:o}"));
            std::fs::create_dir(&dir).unwrap();
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
            let link = dir.join("r.json");
            symlink(d.join("target"), &link).unwrap();
            std::os::unix::fs::lchown(&link, Some(other), None).unwrap();
            let got = open_output(&link);
            assert_eq!(got.is_err(), refused, "mode {mode:o}: {got:?}");
            if let Err(e) = got {
                assert!(
                    e.to_string()
                        .contains(&format!("symbolic link of user id {other}")),
                    "{e}"
                );
            }
            // the directory's owner may own the link (the kernel's exception)
            std::os::unix::fs::chown(&dir, Some(other), None).unwrap();
            assert!(
                open_output(&link).is_ok(),
                "mode {mode:o}, link of the directory's owner"
            );
        }
        // a link further along the chain is checked too
        let shared = d.join("dir1777");
        symlink(shared.join("r.json"), d.join("first")).unwrap();
        std::os::unix::fs::chown(&shared, Some(0), None).unwrap();
        assert!(open_output(&d.join("first")).is_err());
    }

    #[test]
    fn special_files_are_written_through_and_never_replaced() {
        let t = tempfile::tempdir().unwrap();
        let node = t.path().join("null");
        let made = std::process::Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .expect("mknod");
        assert!(made.success(), "mknod (make test runs as root)");
        assert!(is_special(&node));
        assert!(!is_special(t.path()));
        assert!(!is_special(&t.path().join("missing")));
        match open_output(&node).unwrap() {
            Target::Through(f) => assert!(f.metadata().unwrap().file_type().is_char_device()),
            Target::Replace { path } => panic!("a device is replaced at {}", path.display()),
        }
        // a rename over it is refused, the node kept
        let tmp = temp_beside(&node);
        std::fs::write(&tmp, "new").unwrap();
        let e = replace(&tmp, &node).unwrap_err().to_string();
        assert!(e.contains("is no longer a regular file"), "{e}");
        assert!(std::fs::symlink_metadata(&node)
            .unwrap()
            .file_type()
            .is_char_device());
        assert_eq!(open_output(t.path()).unwrap_err(), Refusal::Directory);
        assert!(matches!(
            open_output(&t.path().join("new.json")).unwrap(),
            Target::Replace { .. }
        ));
    }

    #[test]
    fn replacing_keeps_owner_group_and_mode() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.txt");
        std::fs::write(&path, "old").unwrap();
        std::os::unix::fs::chown(&path, Some(54_321), Some(54_322)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::hard_link(&path, t.path().join("other")).unwrap();
        let tmp = temp_beside(&path);
        std::fs::write(&tmp, "new").unwrap();
        replace(&tmp, &path).unwrap();
        let m = std::fs::metadata(&path).unwrap();
        assert_eq!(
            (m.uid(), m.gid(), m.mode() & 0o7777),
            (54_321, 54_322, 0o640)
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        // documented: another name of the old file keeps the old bytes
        assert_eq!(
            std::fs::read_to_string(t.path().join("other")).unwrap(),
            "old"
        );
    }
}
