//! What h5perf trusts about the files it writes: nothing (issue 12; README "Data files
//! are never trusted"): [`make_room`], [`check_new`], [`check_held`], [`check_same`].

use std::ffi::{CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::ffi::posix::{self, Fd, FileKind, FileStat, OpenMode};

/// The text of a refusal of the file `path` because of `why`.
fn refusal(path: &CStr, why: &str) -> Error {
    Error::DataDir(format!(
        "refusing the data file {}: {why}; h5perf never writes through a symbolic link \
         or into a file it did not create (remove it, or choose another directory with \
         HDF5_PARAPREFIX)",
        path.to_string_lossy()
    ))
}

/// What is wrong with `st` (at `path`) as a file of this user of kind `want`: `None` if
/// it is one, owned by the effective user.
fn foreign(path: &Path, st: &FileStat, want: FileKind) -> Option<String> {
    if st.kind != want {
        let to = std::fs::read_link(path)
            .map(|t| format!(" to {}", t.display()))
            .unwrap_or_default();
        return Some(format!("it is {}{to}", st.kind.words()));
    }
    let me = posix::effective_uid();
    if st.uid != me {
        return Some(format!(
            "it belongs to user id {}, not to the user running h5perf (user id {me})",
            st.uid
        ));
    }
    None
}

/// [`foreign`] for a regular file named by `path`.
fn own_file(path: &CStr, st: &FileStat) -> Option<String> {
    foreign(
        Path::new(OsStr::from_bytes(path.to_bytes())),
        st,
        FileKind::Regular,
    )
}

/// Whether `path` names a regular file of the user running h5perf: the only kind of file
/// h5perf removes (false when nothing is there or it cannot be looked at).
pub fn is_own(path: &CStr) -> bool {
    matches!(posix::lstat(path), Ok(Some(st)) if own_file(path, &st).is_none())
}

/// Step 1: make the name `path` free for a new file: an own regular file (an earlier
/// run's) is removed (its other hard links keep their contents); anything else is refused.
///
/// Errors: the refusal (naming what is there), or a failed `lstat`/`unlink`.
pub fn make_room(path: &CStr) -> Result<()> {
    let Some(st) = posix::lstat(path)? else {
        return Ok(());
    };
    if let Some(why) = own_file(path, &st) {
        return Err(refusal(path, &why));
    }
    posix::unlink(path)
}

/// [`make_room`] for the POSIX write phase (`O_TRUNC`): an own regular file with one
/// link is left for the opens to empty.
///
/// Errors: as [`make_room`].
pub fn make_room_keeping_own(path: &CStr) -> Result<()> {
    match posix::lstat(path)? {
        Some(st) if own_file(path, &st).is_none() && st.nlink == 1 => Ok(()),
        _ => make_room(path),
    }
}

/// [`make_room`], then create `path` new and empty (`O_CREAT | O_EXCL | O_NOFOLLOW`,
/// mode 0600; `O_DIRECT` when `direct`) and close it; what `fstat` saw of it.
///
/// Errors: the refusal, or the failed creation (`EEXIST`: something appeared meanwhile).
pub fn create_new(path: &CStr, direct: bool) -> Result<FileStat> {
    make_room(path)?;
    let how = if direct {
        OpenMode::CreateNewDirect
    } else {
        OpenMode::CreateNew
    };
    let fd = Fd::open(path, how)?;
    let named = |e: Error| e.with_path(|| Some(path.to_string_lossy().into_owned()));
    let st = fd.stat().map_err(named)?;
    fd.close().map_err(named)?;
    Ok(st)
}

/// Step 3: `seen` (what this process opened as `path`) must be a new file of this user:
/// regular, own, one link and, when `empty`, no bytes.
///
/// Errors: what is wrong, naming the file.
pub fn check_new(path: &CStr, seen: &FileStat, empty: bool) -> Result<()> {
    if let Some(why) = own_file(path, seen) {
        return Err(refusal(path, &why));
    }
    if seen.nlink != 1 {
        let n = seen.nlink;
        let why = format!("it has {n} names (hard links) where a new file has one");
        return Err(refusal(path, &why));
    }
    if empty && seen.size != 0 {
        let n = seen.size;
        let why =
            format!("it holds {n} bytes where a new file is empty: another file took its name");
        return Err(refusal(path, &why));
    }
    Ok(())
}

/// Step 3 for a file a library opened by name: `at_name` must be among `open_now`, or no
/// new file held since `open_before` (some MPI-IO hints defer the open).
///
/// Errors: the process holds another new file than the one under the name.
pub fn check_held(
    path: &CStr,
    at_name: &FileStat,
    open_before: &[FileStat],
    open_now: &[FileStat],
) -> Result<()> {
    if open_now.iter().any(|f| f.same_file(at_name)) {
        return Ok(());
    }
    let new = open_now
        .iter()
        .find(|f| !open_before.iter().any(|b| b.same_file(f)));
    let Some(f) = new else { return Ok(()) };
    let (held, named) = (f.id(), at_name.id());
    Err(Error::DataDir(format!(
        "the data file {} changed while the library opened it: this process holds file \
         {held} open, the name leads to {named} (device:inode)",
        path.to_string_lossy()
    )))
}

/// `seen` (the file a read phase opens) must be the file the write phase left, `written`,
/// of `size` bytes when given; `when` says at which moment (`before the read phase`).
///
/// Errors: another file, or another size, naming the file and both values.
pub fn check_same(
    path: &CStr,
    seen: &FileStat,
    written: &FileStat,
    size: Option<u64>,
    when: &str,
) -> Result<()> {
    let name = path.to_string_lossy();
    if seen.kind != FileKind::Regular {
        return Err(Error::DataDir(format!(
            "the data file {name} changed between the write and the read phase: {when} \
             it is {}",
            seen.kind.words()
        )));
    }
    if !seen.same_file(written) {
        let (now, left) = (seen.id(), written.id());
        return Err(Error::DataDir(format!(
            "the data file {name} was replaced between the write and the read phase: \
             {when} it is file {now}, the write phase left {left} (device:inode)"
        )));
    }
    if let Some(want) = size.filter(|&s| s != seen.size) {
        return Err(Error::DataDir(format!(
            "the data file {name} changed size between the write and the read phase: \
             {when} it holds {} bytes, the write phase left {want}",
            seen.size
        )));
    }
    Ok(())
}

/// Reopen `path`, made as `made`, for reading (or appending when `append`) without
/// following a symbolic link, and check that it is still that file.
///
/// Errors: the open fails, or another file is under the name.
pub fn reopen(path: &CStr, append: bool, made: &FileStat) -> Result<std::fs::File> {
    let f = posix::open_std_nofollow(path, append)?;
    let m = f.metadata().map_err(|e| {
        let errno = e.raw_os_error().unwrap_or(0);
        posix::fail_named("fstat", errno, path.to_string_lossy().into_owned())
    })?;
    let (seen, made) = (FileStat::of(&m).id(), made.id());
    if seen != made {
        return Err(Error::DataDir(format!(
            "the scratch file {} was replaced: it is file {seen}, h5perf made {made} \
             (device:inode)",
            path.to_string_lossy()
        )));
    }
    Ok(f)
}

/// The file under `path` must still be `made` (a regular file, same device and inode).
///
/// Errors: nothing there, or another file.
pub fn check_still(path: &CStr, made: &FileStat) -> Result<()> {
    match posix::lstat(path)? {
        Some(seen) if seen.kind == FileKind::Regular && seen.same_file(made) => Ok(()),
        Some(seen) => Err(Error::DataDir(format!(
            "the scratch file {} was replaced: it is {} {}, h5perf made {} (device:inode)",
            path.to_string_lossy(),
            seen.kind.words(),
            seen.id(),
            made.id()
        ))),
        None => Err(Error::DataDir(format!(
            "the scratch file {} is gone: another process removed it",
            path.to_string_lossy()
        ))),
    }
}

/// A `USER` (or `LOGIN`) value names one subdirectory of `HDF5_PARAPREFIX`: refused
/// when it contains `/` or is `.` or `..`.
///
/// Errors: the refusal, naming the value.
pub fn check_user_name(user: &OsStr) -> Result<()> {
    let b = user.as_bytes();
    if b.contains(&b'/') || b == b"." || b == b".." {
        return Err(Error::DataDir(format!(
            "USER (or LOGIN) is {:?}: with HDF5_PARAPREFIX set it names the subdirectory \
             of the data files, so it must be a plain name, without '/' and not '.' or '..'",
            user.to_string_lossy()
        )));
    }
    Ok(())
}

/// The `$HDF5_PARAPREFIX/$USER` directory `dir` must be a directory (not a symbolic link
/// to one) of the user running h5perf.
///
/// Errors: what `dir` is instead, naming it.
pub fn check_user_dir(dir: &Path) -> Result<()> {
    let bad = |why: String| {
        Err(Error::DataDir(format!(
            "refusing the data directory {} ($HDF5_PARAPREFIX/$USER): {why}; it must be a \
             directory of the user running h5perf (remove or rename it, or set \
             HDF5_PARAPREFIX to a directory of yours)",
            dir.display()
        )))
    };
    let m = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) => return bad(format!("lstat failed: {e}")),
    };
    foreign(dir, &FileStat::of(&m), FileKind::Directory).map_or(Ok(()), bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn c(p: &Path) -> CString {
        CString::new(p.to_str().unwrap()).unwrap()
    }

    #[test]
    fn make_room_removes_own_files_and_refuses_links_and_directories() {
        let t = std::env::temp_dir().join(format!("h5perf-datafiles-{}", std::process::id()));
        std::fs::create_dir_all(&t).unwrap();
        let victim = t.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        // a leftover of ours is removed; a hard link to it keeps the contents
        let f = t.join("#pio_tmp_1.posix");
        std::fs::hard_link(&victim, &f).unwrap();
        make_room(&c(&f)).unwrap();
        assert!(!f.exists());
        let st = create_new(&c(&f), false).unwrap();
        assert_eq!((st.kind, st.size, st.nlink), (FileKind::Regular, 0, 1));
        check_new(&c(&f), &st, true).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        // a new file cannot be made over an existing one
        assert!(Fd::open(&c(&f), OpenMode::CreateNew).is_err());
        std::fs::remove_file(&f).unwrap();
        // a symbolic link is refused and left alone, the target untouched
        std::os::unix::fs::symlink(&victim, &f).unwrap();
        let e = make_room(&c(&f)).unwrap_err().to_string();
        assert!(
            e.contains("symbolic link to") && e.contains("victim"),
            "{e}"
        );
        assert!(std::fs::symlink_metadata(&f)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        std::fs::remove_file(&f).unwrap();
        std::fs::create_dir(&f).unwrap();
        let e = make_room(&c(&f)).unwrap_err().to_string();
        assert!(e.contains("it is a directory"), "{e}");
        std::fs::remove_dir(&f).unwrap();
        // a second name is not a new file
        std::fs::hard_link(&victim, &f).unwrap();
        let seen = posix::lstat(&c(&f)).unwrap().unwrap();
        let e = check_new(&c(&f), &seen, false).unwrap_err().to_string();
        assert!(e.contains("2 names"), "{e}");
        let one = FileStat { nlink: 1, ..seen };
        let e = check_new(&c(&victim), &one, true).unwrap_err().to_string();
        assert!(e.contains("holds 4 bytes"), "{e}");
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn same_file_and_size() {
        let a = FileStat {
            dev: 1,
            ino: 2,
            kind: FileKind::Regular,
            uid: 0,
            nlink: 1,
            size: 10,
        };
        let p = CString::new("d/#pio_tmp_1.h5").unwrap();
        check_same(&p, &a, &a, Some(10), "at the open").unwrap();
        let e = check_same(&p, &FileStat { size: 4, ..a }, &a, Some(10), "at the open")
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds 4 bytes, the write phase left 10"), "{e}");
        let e = check_same(&p, &FileStat { ino: 3, ..a }, &a, None, "at the open")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("replaced") && e.contains("1:3") && e.contains("1:2"),
            "{e}"
        );
        // held: the name's file is open; or nothing new was opened; else refused
        let b = FileStat { ino: 9, ..a };
        check_held(&p, &a, &[], &[b, a]).unwrap();
        check_held(&p, &a, &[b], &[b]).unwrap();
        assert!(check_held(&p, &a, &[], &[b]).is_err());
    }

    #[test]
    fn user_names_and_dirs() {
        for ok in ["bob", "..bob", "a.b", ""] {
            check_user_name(OsStr::new(ok)).unwrap();
        }
        for bad in ["../../x", "a/b", "/", ".", ".."] {
            let e = check_user_name(OsStr::new(bad)).unwrap_err().to_string();
            assert!(e.contains("plain name"), "{bad}: {e}");
        }
        let t = std::env::temp_dir().join(format!("h5perf-userdir-{}", std::process::id()));
        std::fs::create_dir_all(&t).unwrap();
        check_user_dir(&t).unwrap();
        let l = t.with_extension("link");
        let _ = std::fs::remove_file(&l);
        std::os::unix::fs::symlink(&t, &l).unwrap();
        let e = check_user_dir(&l).unwrap_err().to_string();
        assert!(e.contains("symbolic link to"), "{e}");
        std::fs::remove_file(&l).unwrap();
        std::fs::remove_dir_all(&t).unwrap();
    }
}
