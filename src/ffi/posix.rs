//! Safe wrappers over the POSIX file calls h5perf uses.
//!
//! `pwrite`/`pread` loops handle short transfers and `EINTR` (the C tool issued one
//! `write` per block, which Linux caps at 2 GiB − 4 KiB); every failure becomes
//! [`Error::Posix`] with the call, `errno` and the file name.

use std::ffi::{CStr, CString, OsStr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{path_text, Error, Result};

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
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

/// An open file descriptor with its name (for messages). Closed on drop; close
/// explicitly with [`Fd::close`] to see the error.
pub struct Fd {
    fd: Option<OwnedFd>,
}

/// How to open a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// `O_CREAT | O_TRUNC | O_RDWR | O_NOFOLLOW`, mode 0600: the data file every rank
    /// of the POSIX write phase opens (spec §5.2), never through a symbolic link
    /// (`ELOOP`); h5perf has made sure beforehand that only a file of its own user with
    /// one link can be under the name.
    CreateRw,
    /// `O_RDONLY | O_NOFOLLOW`.
    Read,
    /// `O_CREAT | O_TRUNC | O_WRONLY`, mode 0644 (report files).
    CreateReport,
    /// `O_CREAT | O_EXCL | O_WRONLY | O_APPEND`, mode 0644: a new report file (the
    /// temporary file of `-o`); an existing name, a symbolic link included, is refused
    /// (`EEXIST`).
    CreateReportNew,
    /// `O_WRONLY | O_APPEND` (report files of ranks other than 0).
    Append,
    /// [`OpenMode::CreateRw`] with `O_DIRECT` (`--direct`): transfers bypass the page
    /// cache; offsets, lengths and buffer addresses must be multiples of the file
    /// system's direct-I/O alignment (`open(2)`, "O_DIRECT").
    CreateRwDirect,
    /// `O_RDONLY | O_NOFOLLOW | O_DIRECT` (`--direct`).
    ReadDirect,
    /// `O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR`, mode 0600: a new file, never one that
    /// is already there, never through a symbolic link (`EEXIST` for anything under the
    /// name, a dangling link included).
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
        let (flags, mode): (libc::c_int, libc::c_uint) = match how {
            OpenMode::CreateRw => (
                libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW | libc::O_RDWR,
                0o600,
            ),
            OpenMode::Read => (libc::O_RDONLY | libc::O_NOFOLLOW, 0),
            OpenMode::CreateReport => (
                libc::O_CREAT | libc::O_TRUNC | libc::O_WRONLY | libc::O_APPEND,
                0o666,
            ),
            OpenMode::CreateReportNew => (
                libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_APPEND,
                0o666,
            ),
            OpenMode::Append => (libc::O_WRONLY | libc::O_APPEND, 0),
            OpenMode::CreateRwDirect => (
                libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW | libc::O_RDWR | libc::O_DIRECT,
                0o600,
            ),
            OpenMode::ReadDirect => (libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_DIRECT, 0),
            OpenMode::CreateNew => (
                libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_RDWR,
                0o600,
            ),
            OpenMode::CreateNewDirect => (
                libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_RDWR | libc::O_DIRECT,
                0o600,
            ),
        };
        loop {
            // SAFETY: NUL-terminated path; flags/mode are plain integers.
            let fd = unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC, mode) };
            if fd >= 0 {
                // SAFETY: fd is a fresh descriptor we own.
                return Ok(Fd {
                    fd: Some(unsafe { OwnedFd::from_raw_fd(fd) }),
                });
            }
            let e = errno();
            if e != libc::EINTR {
                return Err(Error::Posix {
                    call: "open",
                    errno: e,
                    path: Some(c_text(c)),
                });
            }
        }
    }

    fn raw(&self) -> i32 {
        self.fd.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1)
    }

    /// Write all of `buf` at byte `offset` (`pwrite` loop; short writes continue,
    /// `EINTR` retries). Errors carry no path: the caller adds it. The common case, one
    /// call that writes everything, is a few instructions around the system call; the
    /// rest is out of line (`Fd::pwrite_rest`).
    #[inline]
    pub fn pwrite_all(&self, buf: &[u8], offset: u64) -> Result<()> {
        if let (false, Ok(off)) = (buf.is_empty(), libc::off_t::try_from(offset)) {
            let n = sys_pwrite(self.raw(), buf, off);
            // a failure (-1) reinterpreted is above isize::MAX, which no length reaches
            if n.cast_unsigned() == buf.len() {
                return Ok(());
            }
            return self.pwrite_rest(buf, offset, Some(n));
        }
        self.pwrite_rest(buf, offset, None)
    }

    /// The rest of [`Fd::pwrite_all`] when its first call did not write everything
    /// (`first`: that call's result, `errno` still set) or was not made (`None`): the
    /// loop over short writes, `EINTR` and the errors, the same system calls as one
    /// loop from the start.
    #[cold]
    #[inline(never)]
    fn pwrite_rest(&self, mut buf: &[u8], mut offset: u64, mut first: Option<isize>) -> Result<()> {
        while !buf.is_empty() {
            let n = match first.take() {
                Some(n) => n,
                None => {
                    let off = libc::off_t::try_from(offset).map_err(|_| Error::Posix {
                        call: "pwrite",
                        errno: libc::EFBIG,
                        path: None,
                    })?;
                    sys_pwrite(self.raw(), buf, off)
                }
            };
            if n < 0 {
                let e = errno();
                if e == libc::EINTR {
                    continue;
                }
                return Err(Error::Posix {
                    call: "pwrite",
                    errno: e,
                    path: None,
                });
            }
            if n == 0 {
                return Err(Error::Posix {
                    call: "pwrite",
                    errno: libc::ENOSPC,
                    path: None,
                });
            }
            // n > 0 (checked above)
            let n = n.unsigned_abs();
            buf = &buf[n..];
            offset += n as u64;
        }
        Ok(())
    }

    /// Fill all of `buf` from byte `offset` (`pread` loop); end of file is an error.
    /// The common case is one call, as in [`Fd::pwrite_all`].
    #[inline]
    pub fn pread_exact(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        if let (false, Ok(off)) = (buf.is_empty(), libc::off_t::try_from(offset)) {
            let n = sys_pread(self.raw(), buf, off);
            // as in pwrite_all
            if n.cast_unsigned() == buf.len() {
                return Ok(());
            }
            return self.pread_rest(buf, offset, Some(n));
        }
        self.pread_rest(buf, offset, None)
    }

    /// The rest of [`Fd::pread_exact`] when its first call did not fill the buffer
    /// (`first`: that call's result, `errno` still set) or was not made (`None`): the
    /// loop over short reads, `EINTR`, end of file and the errors.
    #[cold]
    #[inline(never)]
    fn pread_rest(&self, buf: &mut [u8], mut offset: u64, mut first: Option<isize>) -> Result<()> {
        let mut done = 0usize;
        while done < buf.len() {
            let n = match first.take() {
                Some(n) => n,
                None => {
                    let off = libc::off_t::try_from(offset).map_err(|_| Error::Posix {
                        call: "pread",
                        errno: libc::EFBIG,
                        path: None,
                    })?;
                    sys_pread(self.raw(), &mut buf[done..], off)
                }
            };
            if n < 0 {
                let e = errno();
                if e == libc::EINTR {
                    continue;
                }
                return Err(Error::Posix {
                    call: "pread",
                    errno: e,
                    path: None,
                });
            }
            if n == 0 {
                return Err(Error::Posix {
                    call: "pread",
                    errno: 0,
                    path: None,
                });
            }
            // n > 0 (checked above)
            let n = n.unsigned_abs();
            done += n;
            offset += n as u64;
        }
        Ok(())
    }

    /// Append `buf` at the current position (`write` loop), for report files.
    pub fn write_all(&self, mut buf: &[u8]) -> Result<()> {
        while !buf.is_empty() {
            // SAFETY: live slice; fd open.
            let n =
                unsafe { libc::write(self.raw(), buf.as_ptr() as *const libc::c_void, buf.len()) };
            if n < 0 {
                let e = errno();
                if e == libc::EINTR {
                    continue;
                }
                return Err(Error::Posix {
                    call: "write",
                    errno: e,
                    path: None,
                });
            }
            // n >= 0 (checked above)
            buf = &buf[n.unsigned_abs()..];
        }
        Ok(())
    }

    /// `fsync`: force the file's data and metadata to stable storage (POSIX.1-2017
    /// `fsync()`; `--fsync`), retried on `EINTR`. Errors carry no path: the caller adds
    /// it.
    pub fn fsync(&self) -> Result<()> {
        loop {
            // SAFETY: fsync on a descriptor we own; no memory is passed.
            if unsafe { libc::fsync(self.raw()) } == 0 {
                return Ok(());
            }
            let e = errno();
            if e != libc::EINTR {
                return Err(Error::Posix {
                    call: "fsync",
                    errno: e,
                    path: None,
                });
            }
        }
    }

    /// `fstat`: what the kernel knows of the open file (device, inode, type, owner,
    /// links, size). Errors carry no path: the caller adds it.
    pub fn stat(&self) -> Result<FileStat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: st is a live out-buffer of the right type; the fd is a plain integer
        // (a closed one fails with EBADF).
        if unsafe { libc::fstat(self.raw(), st.as_mut_ptr()) } != 0 {
            return Err(Error::Posix {
                call: "fstat",
                errno: errno(),
                path: None,
            });
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
        let fd = self.fd.take().map(|f| {
            use std::os::fd::IntoRawFd;
            f.into_raw_fd()
        });
        if let Some(fd) = fd {
            // SAFETY: we own fd and close it exactly once.
            if unsafe { libc::close(fd) } != 0 {
                return Err(Error::Posix {
                    call: "close",
                    errno: errno(),
                    path: None,
                });
            }
        }
        Ok(())
    }
}

/// `pwrite(fd, buf, off)`: the bytes written, or -1 with `errno` set. On 64-bit Linux
/// the system call is made directly (`syscall(SYS_pwrite64, ...)`): glibc's `pwrite`
/// is a cancellation point, and once a process has threads (MPI libraries start some)
/// it enables and disables asynchronous cancellation around every call, which costs
/// about 30 instructions per transfer in the timed loop (issue 18). h5perf never
/// cancels a thread, so the system call is the same call without that.
#[inline]
fn sys_pwrite(fd: i32, buf: &[u8], off: libc::off_t) -> isize {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    // SAFETY: buf is a live slice of buf.len() bytes; the kernel reads at most that
    // many; fd is a plain integer (a closed one fails with EBADF).
    let n = unsafe {
        libc::syscall(
            libc::SYS_pwrite64,
            fd,
            buf.as_ptr() as *const libc::c_void,
            buf.len(),
            off,
        )
    };
    // 64-bit targets only (cfg above): c_long is isize
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[allow(clippy::cast_possible_truncation)]
    let n = n as isize;
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    // SAFETY: as above.
    let n = unsafe { libc::pwrite(fd, buf.as_ptr() as *const libc::c_void, buf.len(), off) };
    n
}

/// `pread(fd, buf, off)`: the bytes read (0 at end of file), or -1 with `errno` set;
/// made directly on 64-bit Linux, as [`sys_pwrite`].
#[inline]
fn sys_pread(fd: i32, buf: &mut [u8], off: libc::off_t) -> isize {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    // SAFETY: buf is a live writable slice of buf.len() bytes; the kernel writes at
    // most that many.
    let n = unsafe {
        libc::syscall(
            libc::SYS_pread64,
            fd,
            buf.as_mut_ptr() as *mut libc::c_void,
            buf.len(),
            off,
        )
    };
    // 64-bit targets only (cfg above): c_long is isize
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[allow(clippy::cast_possible_truncation)]
    let n = n as isize;
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    // SAFETY: as above.
    let n = unsafe { libc::pread(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len(), off) };
    n
}

/// The system error a library met but did not return, read from `errno` right after
/// its call: `Some("No space left on device")` when `errno` holds an error of file
/// I/O (`ENOSPC`, `EDQUOT`, `EFBIG`, `EIO`, `EROFS`, `ESTALE`, `EBADF`, `EPERM`,
/// `EACCES`), None otherwise (no error, or one a library leaves behind in normal
/// operation, such as `EAGAIN` from polling). For messages of calls that report success
/// with a short count (Open MPI's MPI-IO prints the system error on stderr instead).
pub fn last_io_error() -> Option<String> {
    let e = errno();
    let io = [
        libc::ENOSPC,
        libc::EDQUOT,
        libc::EFBIG,
        libc::EIO,
        libc::EROFS,
        libc::ESTALE,
        libc::EBADF,
        libc::EPERM,
        libc::EACCES,
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

/// A file's identity: its device and inode numbers (`st_dev`, `st_ino`); two names or
/// descriptors with the same identity are one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct FileId {
    /// `st_dev`: the device (file system) holding the file, as this process sees it.
    pub dev: u64,
    /// `st_ino`: the inode number.
    pub ino: u64,
}

impl FileId {
    /// The identity of the file `m` describes (`std::fs::metadata` or
    /// `symlink_metadata`).
    pub fn of(m: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }
}

/// What `lstat`/`fstat` report about a file, the fields h5perf identifies and checks
/// its data files by.
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

/// `lstat(path)`: the file under the name itself, a symbolic link not followed;
/// `None` when nothing is there (`ENOENT`).
///
/// Errors: any other failure (`EACCES`, `ENOTDIR`, ...), with the path.
pub fn lstat(path: &CStr) -> Result<Option<FileStat>> {
    use std::os::unix::ffi::OsStrExt;
    let p = std::ffi::OsStr::from_bytes(path.to_bytes());
    match std::fs::symlink_metadata(p) {
        Ok(m) => Ok(Some(FileStat::of(&m))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Posix {
            call: "lstat",
            errno: e.raw_os_error().unwrap_or(0),
            path: Some(path.to_string_lossy().into_owned()),
        }),
    }
}

/// `path` opened as a `std::fs::File` for reading, or for appending when `append`,
/// with `O_NOFOLLOW` (a symbolic link fails with `ELOOP`) and no `O_CREAT`.
///
/// Errors: the open fails, with the path.
pub fn open_std_nofollow(path: &CStr, append: bool) -> Result<std::fs::File> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let mut o = std::fs::OpenOptions::new();
    if append {
        o.append(true);
    } else {
        o.read(true);
    }
    o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(std::ffi::OsStr::from_bytes(path.to_bytes()))
        .map_err(|e| Error::Posix {
            call: "open",
            errno: e.raw_os_error().unwrap_or(0),
            path: Some(path.to_string_lossy().into_owned()),
        })
}

/// `unlink(path)`: removes the name (a symbolic link itself, never its target).
///
/// Errors: the call fails, with the path.
pub fn unlink(path: &CStr) -> Result<()> {
    // SAFETY: NUL-terminated path.
    if unsafe { libc::unlink(path.as_ptr()) } != 0 {
        return Err(Error::Posix {
            call: "unlink",
            errno: errno(),
            path: Some(path.to_string_lossy().into_owned()),
        });
    }
    Ok(())
}

/// A new descriptor, close-on-exec, for the open file of this process's descriptor
/// `fd` (`fcntl(F_DUPFD_CLOEXEC)`): it shares the file's offset and flags, as a shell's
/// `>&N` does.
///
/// # Errors
/// The system's error (`EBADF` when `fd` is not open).
pub fn dup_descriptor(fd: i32) -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl with F_DUPFD_CLOEXEC only reads `fd` and returns a new descriptor
    // (or -1), which the File then owns alone.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if new < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `new` is a descriptor this process just opened and nothing else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(new) })
}

/// The effective user id of this process (`geteuid`), the owner its new files get.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail and takes no arguments.
    unsafe { libc::geteuid() }
}

/// The regular files this process holds open: one [`FileStat`] per descriptor in
/// `/proc/self/fd` that refers to a regular file (a descriptor closed while the
/// directory is read is skipped). Allocates; not for timed code.
///
/// Errors: `/proc/self/fd` cannot be read (no procfs).
pub fn open_regular_files() -> Result<Vec<FileStat>> {
    let dir = std::fs::read_dir("/proc/self/fd").map_err(|e| Error::Posix {
        call: "opendir",
        errno: e.raw_os_error().unwrap_or(0),
        path: Some("/proc/self/fd".into()),
    })?;
    let mut out = Vec::new();
    for entry in dir.flatten() {
        // the magic link leads to the open file itself, whatever its name now is
        if let Ok(m) = std::fs::metadata(entry.path()) {
            let st = FileStat::of(&m);
            if st.kind == FileKind::Regular {
                out.push(st);
            }
        }
    }
    Ok(out)
}

/// `remove(path)`.
pub fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path).map_err(|e| Error::Posix {
        call: "remove",
        errno: e.raw_os_error().unwrap_or(0),
        path: Some(path_text(path.as_os_str())),
    })
}

/// Check that `dir` is a directory this process can create files in
/// (`access(dir, W_OK | X_OK)`).
pub fn check_writable_dir(dir: &Path) -> Result<()> {
    let fail = |call, errno| {
        Err(Error::Posix {
            call,
            errno,
            path: Some(path_text(dir.as_os_str())),
        })
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return fail("stat", libc::ENOTDIR),
        Err(e) => return fail("stat", e.raw_os_error().unwrap_or(0)),
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
