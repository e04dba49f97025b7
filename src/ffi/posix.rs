//! Safe wrappers over the POSIX file calls h5perf uses.

use std::ffi::{CStr, CString, OsStr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{path_text, Error, Result};

/// The `errno` of this thread's last failed call.
pub(super) fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// [`Error::Posix`] of `call` with `errno`, naming no file (the caller adds it).
#[cold]
pub(super) fn fail(call: &'static str, errno: i32) -> Error {
    Error::Posix {
        call,
        errno,
        path: None,
    }
}

/// [`Error::Posix`] of `call` on `path` (its bytes, lossily) with `errno`.
#[cold]
pub(super) fn fail_at(call: &'static str, errno: i32, path: &CStr) -> Error {
    fail_named(call, errno, path.to_string_lossy().into_owned())
}

/// [`Error::Posix`] of `call` on the file named `path` (message text) with `errno`.
#[cold]
pub fn fail_named(call: &'static str, errno: i32, path: String) -> Error {
    Error::Posix {
        call,
        errno,
        path: Some(path),
    }
}

/// The `errno` an I/O error of the standard library carries (0 for none).
fn io_errno(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(0)
}

/// `f()` until it succeeds (≥ 0: its result) or fails with an `errno` other than `EINTR`.
fn retry<T: PartialOrd + Default>(mut f: impl FnMut() -> T) -> std::result::Result<T, i32> {
    loop {
        let r = f();
        if r >= T::default() {
            return Ok(r);
        }
        let e = errno();
        if e != libc::EINTR {
            return Err(e);
        }
    }
}

/// `path`'s bytes as a C string, for the system call.
///
/// # Errors
/// [`Error::Limit`] when the name contains a NUL byte.
pub fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::Limit(format!(
            "file name contains a NUL byte: {}",
            path_text(path.as_os_str())
        ))
    })
}

/// A C string's bytes as message text ([`path_text`]).
pub fn c_text(c: &CStr) -> String {
    path_text(OsStr::from_bytes(c.to_bytes()))
}

/// An open file descriptor with its name (for messages).
pub struct Fd {
    fd: Option<OwnedFd>,
}

/// How to open a file (every mode adds `O_CLOEXEC`; modes are before the umask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// `O_CREAT | O_TRUNC | O_RDWR | O_NOFOLLOW`, mode 0600: the data file of the POSIX
    /// write phase (spec §5.2), never through a symbolic link (`ELOOP`).
    CreateRw,
    /// `O_RDONLY | O_NOFOLLOW`.
    Read,
    /// `O_CREAT | O_TRUNC | O_WRONLY | O_APPEND`, mode 0666 (report files).
    CreateReport,
    /// `O_CREAT | O_EXCL | O_WRONLY | O_APPEND`, mode 0666: a new report file (the
    /// temporary file of `-o`); anything under the name is refused (`EEXIST`).
    CreateReportNew,
    /// `O_WRONLY | O_APPEND` (report files of ranks other than 0).
    Append,
    /// [`OpenMode::CreateRw`] with `O_DIRECT` (`--direct`): offsets, lengths and buffer
    /// addresses must be multiples of the direct-I/O alignment (`open(2)`).
    CreateRwDirect,
    /// `O_RDONLY | O_NOFOLLOW | O_DIRECT` (`--direct`).
    ReadDirect,
    /// `O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR`, mode 0600: a new file, never one that
    /// is already there, never through a symbolic link (`EEXIST`).
    CreateNew,
    /// [`OpenMode::CreateNew`] with `O_DIRECT` (the `--direct` probe file).
    CreateNewDirect,
}

impl Fd {
    /// An already opened file (a device or FIFO opened to be written through).
    pub fn from_file(f: std::fs::File) -> Fd {
        Fd {
            fd: Some(OwnedFd::from(f)),
        }
    }

    /// `open(path, flags, mode)` for a path (its bytes as they are).
    pub fn open_path(path: &Path, how: OpenMode) -> Result<Fd> {
        Self::open(&c_path(path)?, how)
    }

    /// `open(path, flags, mode)`; retried on `EINTR`. No allocation unless it fails.
    pub fn open(c: &CStr, how: OpenMode) -> Result<Fd> {
        use libc::{O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY};
        use OpenMode::*;
        let (flags, mode): (libc::c_int, libc::c_uint) = match how {
            CreateRw | CreateRwDirect => (O_CREAT | O_TRUNC | O_NOFOLLOW | O_RDWR, 0o600),
            Read | ReadDirect => (O_RDONLY | O_NOFOLLOW, 0),
            CreateReport => (O_CREAT | O_TRUNC | O_WRONLY | O_APPEND, 0o666),
            CreateReportNew => (O_CREAT | O_EXCL | O_WRONLY | O_APPEND, 0o666),
            Append => (O_WRONLY | O_APPEND, 0),
            CreateNew | CreateNewDirect => (O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR, 0o600),
        };
        let direct = matches!(how, CreateRwDirect | ReadDirect | CreateNewDirect);
        let flags = flags | libc::O_CLOEXEC | if direct { libc::O_DIRECT } else { 0 };
        // SAFETY: NUL-terminated path; flags/mode are plain integers.
        let fd = retry(|| unsafe { libc::open(c.as_ptr(), flags, mode) })
            .map_err(|e| fail_named("open", e, c_text(c)))?;
        // SAFETY: fd is a fresh descriptor we own.
        Ok(Fd {
            fd: Some(unsafe { OwnedFd::from_raw_fd(fd) }),
        })
    }

    fn raw(&self) -> i32 {
        self.fd.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1)
    }

    /// Write all of `buf` at byte `offset` (`pwrite`; errors carry no path).
    #[inline]
    pub fn pwrite_all(&self, buf: &[u8], offset: u64) -> Result<()> {
        if let (false, Ok(off)) = (buf.is_empty(), libc::off_t::try_from(offset)) {
            let n = sys_pwrite(self.raw(), buf, off);
            if n.cast_unsigned() == buf.len() {
                return Ok(());
            }
            return self.pwrite_rest(buf, offset, Some(n));
        }
        self.pwrite_rest(buf, offset, None)
    }

    /// [`transfer_rest`] of [`Fd::pwrite_all`].
    #[cold]
    #[inline(never)]
    fn pwrite_rest(&self, buf: &[u8], offset: u64, first: Option<isize>) -> Result<()> {
        let fd = self.raw();
        transfer_rest(
            "pwrite",
            buf.len(),
            offset,
            first,
            libc::ENOSPC,
            |done, off| sys_pwrite(fd, &buf[done..], off),
        )
    }

    /// Fill all of `buf` from byte `offset` (`pread` loop); end of file is an error.
    #[inline]
    pub fn pread_exact(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        if let (false, Ok(off)) = (buf.is_empty(), libc::off_t::try_from(offset)) {
            let n = sys_pread(self.raw(), buf, off);
            if n.cast_unsigned() == buf.len() {
                return Ok(());
            }
            return self.pread_rest(buf, offset, Some(n));
        }
        self.pread_rest(buf, offset, None)
    }

    /// [`transfer_rest`] of [`Fd::pread_exact`].
    #[cold]
    #[inline(never)]
    fn pread_rest(&self, buf: &mut [u8], offset: u64, first: Option<isize>) -> Result<()> {
        let fd = self.raw();
        transfer_rest("pread", buf.len(), offset, first, 0, |done, off| {
            sys_pread(fd, &mut buf[done..], off)
        })
    }

    /// Append `buf` at the current position (`write` loop), for report files.
    pub fn write_all(&self, mut buf: &[u8]) -> Result<()> {
        while !buf.is_empty() {
            // SAFETY: live slice; fd open.
            let n = retry(|| unsafe { libc::write(self.raw(), buf.as_ptr().cast(), buf.len()) })
                .map_err(|e| fail("write", e))?;
            buf = &buf[n.unsigned_abs()..];
        }
        Ok(())
    }

    /// `fsync`: force the file's data and metadata to stable storage (POSIX.1-2017
    /// `fsync()`; `--fsync`), retried on `EINTR`. Errors carry no path.
    pub fn fsync(&self) -> Result<()> {
        // SAFETY: fsync on a descriptor we own; no memory is passed.
        retry(|| unsafe { libc::fsync(self.raw()) }).map_err(|e| fail("fsync", e))?;
        Ok(())
    }

    /// `fstat` of the open file. Errors carry no path: the caller adds it.
    pub fn stat(&self) -> Result<FileStat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: st is a live out-buffer of the right type; the fd is a plain integer.
        if unsafe { libc::fstat(self.raw(), st.as_mut_ptr()) } != 0 {
            return Err(fail("fstat", errno()));
        }
        // SAFETY: filled by the successful call.
        let st = unsafe { st.assume_init() };
        Ok(FileStat {
            dev: st.st_dev,
            ino: st.st_ino,
            kind: FileKind::of_mode(st.st_mode),
            uid: st.st_uid,
            nlink: st.st_nlink,
            size: u64::try_from(st.st_size).unwrap_or(0),
        })
    }

    /// `close`, reporting its error.
    pub fn close(mut self) -> Result<()> {
        use std::os::fd::IntoRawFd;
        if let Some(fd) = self.fd.take().map(IntoRawFd::into_raw_fd) {
            // SAFETY: we own fd and close it exactly once.
            if unsafe { libc::close(fd) } != 0 {
                return Err(fail("close", errno()));
            }
        }
        Ok(())
    }
}

/// The loop of [`Fd::pwrite_all`] and [`Fd::pread_exact`] after a first call that did
/// not move all `len` bytes (`first`: its result, `errno` still set; `None`: not made):
/// `io(done, off)` moves the bytes from `done` on; short transfers continue, `EINTR`
/// retries, 0 bytes fails with `eof_errno` (`ENOSPC` for a write, 0 — end of file).
fn transfer_rest(
    call: &'static str,
    len: usize,
    mut offset: u64,
    mut first: Option<isize>,
    eof_errno: i32,
    mut io: impl FnMut(usize, libc::off_t) -> isize,
) -> Result<()> {
    let mut done = 0usize;
    while done < len {
        let n = match first.take() {
            Some(n) => n,
            None => {
                let off = libc::off_t::try_from(offset).map_err(|_| fail(call, libc::EFBIG))?;
                io(done, off)
            }
        };
        if n < 0 {
            let e = errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(fail(call, e));
        }
        if n == 0 {
            return Err(fail(call, eof_errno));
        }
        let n = n.unsigned_abs();
        done += n;
        offset += n as u64;
    }
    Ok(())
}

/// `pwrite(fd, buf, off)`: the bytes written, or -1 with `errno` set.
#[inline]
fn sys_pwrite(fd: i32, buf: &[u8], off: libc::off_t) -> isize {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    // SAFETY: buf is a live slice of buf.len() bytes; the kernel reads at most that many.
    let n = long(unsafe { libc::syscall(libc::SYS_pwrite64, fd, buf.as_ptr(), buf.len(), off) });
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    // SAFETY: as above.
    let n = unsafe { libc::pwrite(fd, buf.as_ptr().cast(), buf.len(), off) };
    n
}

/// `pread(fd, buf, off)`: the bytes read (0 at end of file), or -1 with `errno` set.
#[inline]
fn sys_pread(fd: i32, buf: &mut [u8], off: libc::off_t) -> isize {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    // SAFETY: buf is a live writable slice of buf.len() bytes; the kernel writes at most that many.
    let n = long(unsafe { libc::syscall(libc::SYS_pread64, fd, buf.as_mut_ptr(), buf.len(), off) });
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    // SAFETY: as above.
    let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), off) };
    n
}

/// A `syscall` result: on the 64-bit targets it is made on, `c_long` is `isize`.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[inline(always)]
#[allow(clippy::cast_possible_truncation)]
fn long(n: libc::c_long) -> isize {
    n as isize
}

/// The system error a library met but did not return, read from `errno` right after
/// its call: its text when `errno` holds an error of file I/O (`ENOSPC`, `EDQUOT`,
/// `EFBIG`, `EIO`, `EROFS`, `ESTALE`, `EBADF`, `EPERM`, `EACCES`), None otherwise (no
/// error, or one left behind in normal operation, such as `EAGAIN` from polling).
pub fn last_io_error() -> Option<String> {
    use libc::{EACCES, EBADF, EDQUOT, EFBIG, EIO, ENOSPC, EPERM, EROFS, ESTALE};
    let e = errno();
    let io = [
        ENOSPC, EDQUOT, EFBIG, EIO, EROFS, ESTALE, EBADF, EPERM, EACCES,
    ];
    io.contains(&e).then(|| crate::error::errno_text(e))
}

/// The kind of a file, as `lstat`/`fstat` report it (`st_mode & S_IFMT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (only `lstat` reports it).
    Symlink,
    /// Anything else: FIFO, socket, character or block device.
    Other,
}

impl FileKind {
    fn of_mode(mode: libc::mode_t) -> FileKind {
        match mode & libc::S_IFMT {
            libc::S_IFREG => FileKind::Regular,
            libc::S_IFDIR => FileKind::Directory,
            libc::S_IFLNK => FileKind::Symlink,
            _ => FileKind::Other,
        }
    }

    /// The kind in words, for messages ("a symbolic link").
    pub fn words(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Other => "a special file (FIFO, socket or device)",
        }
    }
}

/// A file's identity: its device and inode numbers (`st_dev`, `st_ino`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct FileId {
    /// `st_dev`: the device (file system) holding the file, as this process sees it.
    pub dev: u64,
    /// `st_ino`: the inode number.
    pub ino: u64,
}

/// `DEV:INO`, as messages show a file (device:inode).
impl std::fmt::Display for FileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.dev, self.ino)
    }
}

impl FileId {
    /// The identity of the file `m` describes.
    pub fn of(m: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }
}

/// What `lstat`/`fstat` report about a file, as h5perf checks its data files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// `st_dev`: the device (file system) holding the file, as this process sees it.
    pub dev: u64,
    /// `st_ino`: the inode number.
    pub ino: u64,
    /// The kind of file.
    pub kind: FileKind,
    /// `st_uid`: the owner.
    pub uid: u32,
    /// `st_nlink`: the number of names (hard links) of the file.
    pub nlink: u64,
    /// `st_size`, bytes.
    pub size: u64,
}

impl FileStat {
    /// The fields of `m` (from `std::fs::symlink_metadata` or `metadata`).
    pub fn of(m: &std::fs::Metadata) -> FileStat {
        use std::os::unix::fs::MetadataExt;
        FileStat {
            dev: m.dev(),
            ino: m.ino(),
            kind: FileKind::of_mode(m.mode() as libc::mode_t),
            uid: m.uid(),
            nlink: m.nlink(),
            size: m.size(),
        }
    }

    /// The file's identity.
    pub fn id(&self) -> FileId {
        FileId {
            dev: self.dev,
            ino: self.ino,
        }
    }

    /// Whether `other` is the same file (device and inode).
    pub fn same_file(&self, other: &FileStat) -> bool {
        self.id() == other.id()
    }
}

/// `lstat(path)` (a symbolic link not followed); `None` when nothing is there
/// (`ENOENT`). Errors: any other failure, with the path.
pub fn lstat(path: &CStr) -> Result<Option<FileStat>> {
    match std::fs::symlink_metadata(OsStr::from_bytes(path.to_bytes())) {
        Ok(m) => Ok(Some(FileStat::of(&m))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(fail_at("lstat", io_errno(&e), path)),
    }
}

/// `path` opened for reading, or appending when `append`, with `O_NOFOLLOW` (`ELOOP`
/// for a symbolic link), never created. Errors: the open's, with the path.
pub fn open_std_nofollow(path: &CStr, append: bool) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut o = std::fs::OpenOptions::new();
    if append {
        o.append(true);
    } else {
        o.read(true);
    }
    o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(OsStr::from_bytes(path.to_bytes()))
        .map_err(|e| fail_at("open", io_errno(&e), path))
}

/// `unlink(path)`: removes the name (a symbolic link itself, never its target).
/// Errors: the call's, with the path.
pub fn unlink(path: &CStr) -> Result<()> {
    // SAFETY: NUL-terminated path.
    if unsafe { libc::unlink(path.as_ptr()) } != 0 {
        return Err(fail_at("unlink", errno(), path));
    }
    Ok(())
}

/// A new close-on-exec descriptor for the open file of descriptor `fd`
/// (`fcntl(F_DUPFD_CLOEXEC)`, as a shell's `>&N`). Errors: `EBADF` when `fd` is not open.
pub fn dup_descriptor(fd: i32) -> std::io::Result<std::fs::File> {
    // SAFETY: F_DUPFD_CLOEXEC only reads `fd`; the new descriptor is the File's alone.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if new < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `new` is a descriptor this process just opened and nothing else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(new) })
}

pub use super::process::euid as effective_uid;

/// The regular files this process holds open, from `/proc/self/fd` (a descriptor
/// closed meanwhile is skipped). Allocates. Errors: no procfs.
pub fn open_regular_files() -> Result<Vec<FileStat>> {
    let dir = std::fs::read_dir("/proc/self/fd")
        .map_err(|e| fail_at("opendir", io_errno(&e), c"/proc/self/fd"))?;
    Ok(dir
        .flatten()
        .filter_map(|entry| std::fs::metadata(entry.path()).ok())
        .map(|m| FileStat::of(&m))
        .filter(|st| st.kind == FileKind::Regular)
        .collect())
}

/// `remove(path)`.
pub fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path)
        .map_err(|e| fail_named("remove", io_errno(&e), path_text(path.as_os_str())))
}

/// Check that `dir` is a directory this process can create files in (`access(dir, W_OK | X_OK)`).
pub fn check_writable_dir(dir: &Path) -> Result<()> {
    let fail = |call, errno| Err(fail_named(call, errno, path_text(dir.as_os_str())));
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return fail("stat", libc::ENOTDIR),
        Err(e) => return fail("stat", io_errno(&e)),
    }
    let c = c_path(dir)?;
    // SAFETY: NUL-terminated path.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        return fail("access", errno());
    }
    Ok(())
}

/// Whether standard error is a terminal (`isatty(2)`); false on any error.
pub fn stderr_is_terminal() -> bool {
    // SAFETY: isatty takes any descriptor number and only reports on it.
    unsafe { libc::isatty(2) == 1 }
}

/// Physical memory of this machine in bytes (`sysconf(_SC_PHYS_PAGES) × page size`);
/// `u64::MAX` when unknown.
pub fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || size <= 0 {
        return u64::MAX;
    }
    pages.unsigned_abs().saturating_mul(size.unsigned_abs())
}

/// The kernel release of this machine (`uname(2)`'s `release`, what `uname -r` prints);
/// `None` when the call fails.
pub fn kernel_release() -> Option<String> {
    // SAFETY: utsname is plain bytes, zero is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: uname fills the structure it is given.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    // SAFETY: uname writes NUL-terminated strings within the fields.
    let release = unsafe { CStr::from_ptr(u.release.as_ptr()) };
    Some(c_text(release))
}

/// The processors online on this machine (`sysconf(_SC_NPROCESSORS_ONLN)`); `None` when
/// unknown.
pub fn online_cpus() -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    (n > 0).then_some(n.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pwrite_pread_roundtrip_mode_and_eof() {
        let dir = std::env::temp_dir().join(format!("h5perf-posix-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.posix");
        let fd = Fd::open_path(&path, OpenMode::CreateRw).unwrap();
        fd.pwrite_all(&[1, 2, 3, 4], 4).unwrap();
        fd.pwrite_all(&[9; 4], 0).unwrap();
        fd.close().unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode & 0o077,
            0,
            "data files are private (0600 before umask)"
        );
        assert_eq!(std::fs::read(&path).unwrap(), vec![9, 9, 9, 9, 1, 2, 3, 4]);
        let fd = Fd::open_path(&path, OpenMode::Read).unwrap();
        let mut b = [0u8; 4];
        fd.pread_exact(&mut b, 4).unwrap();
        assert_eq!(b, [1, 2, 3, 4]);
        // reading past the end of the file is an error, not a short success
        let e = fd.pread_exact(&mut b, 6).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Posix {
                    call: "pread",
                    errno: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("unexpected end of file"));
        drop(fd);
        let e = Fd::open_path(&dir.join("f.posix.missing/x"), OpenMode::Read)
            .err()
            .unwrap();
        assert!(
            e.to_string().starts_with("open(") && e.to_string().contains("No such file"),
            "{e}"
        );
        remove(&path).unwrap();
        assert!(remove(&path).is_err());
        check_writable_dir(&dir).unwrap();
        assert!(
            check_writable_dir(&path).is_err(),
            "a missing path is refused"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
