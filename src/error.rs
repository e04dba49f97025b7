//! The single error type of h5perf.

use std::fmt;

/// What went wrong, with enough context to name the failing option, call or file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The command line or an environment variable was refused before anything ran.
    Usage(String),
    /// Parameter combinations that the engine cannot run (spec §4, §10); one message per
    /// distinct problem, in the order found. Detected before any I/O.
    Invalid(Vec<String>),
    /// An MPI call returned an error code; `msg` is `MPI_Error_string` of `code`.
    Mpi {
        /// The MPI function, e.g. `MPI_File_open`.
        call: &'static str,
        /// The MPI error code returned.
        code: i32,
        /// The MPI library's error text.
        msg: String,
    },
    /// An HDF5 call failed, with HDF5's error stack.
    Hdf5 {
        /// The HDF5 function, e.g. `H5Dwrite`.
        call: &'static str,
        /// The error stack's frames, outermost first (empty: HDF5 left no detail).
        stack: Box<[Hdf5Frame]>,
        /// The system error the MPI library met when the stack ends in the MPI-IO driver's "file
        /// write failed" (or read) after a short transfer that MPI reported as success (`errno`
        /// after the call; Open MPI prints it on stderr only), appended to the message.
        system: Option<Box<str>>,
    },
    /// A POSIX call failed (or moved fewer bytes than asked at end of file).
    Posix {
        /// The system call, e.g. `pwrite`.
        call: &'static str,
        /// `errno` after the call (0 for an unexpected end of file).
        errno: i32,
        /// The file concerned, when there is one.
        path: Option<String>,
    },
    /// Another rank of the run communicator failed; the run was abandoned by all ranks.
    Remote(String),
    /// A failure after which ranks hold handles that only a collective call could
    /// release (e.g. a collective open that failed on some ranks only): the job must be
    /// aborted after the message is printed. The string is the agreed message.
    Fatal(String),
    /// Read-back verification (`-D v`) found wrong bytes; the count is the total number of
    /// wrong bytes over all ranks.
    Verify(u64),
    /// This rank stopped its independent transfers early because another rank's failed
    /// and said so through the error beacon (issue 12): the other rank's error is the
    /// one the agreement that follows reports.
    Stopped,
    /// An output — the report, a results file, the page, standard output — cannot be created,
    /// written or replaced.
    Output(String),
    /// The data directory, a data or scratch file, or the directory's lock: refused (a symbolic
    /// link, another user's file, another run's lock), changed under the run, or not removable.
    DataDir(String),
    /// A results file of `--from` or `--baseline` cannot be read or does not fit the run.
    Results(String),
    /// A failure of `what` (a hint, a file of an option), caused by `cause`: `WHAT: cause`.
    Context {
        /// What failed, as the message's first words (`HDF5_MPI_INFO`).
        what: String,
        /// Why.
        cause: Box<Error>,
    },
    /// A broken invariant of h5perf itself (a driver used before it was prepared).
    Internal(&'static str),
    /// A value that a C interface cannot take (a count or offset beyond the range of its C type, a
    /// name with a NUL byte), or memory that cannot be had.
    Limit(String),
    /// `cause`, completed with what to fix (`note`, appended to its message: the
    /// `HDF5_MPI_INFO` hints the MPI library names, a full file system).
    Explained {
        /// The error as it happened.
        cause: Box<Error>,
        /// The text appended, starting with its separator (` (...)`, `; ...`).
        note: String,
    },
    /// A step of the `--fill-behaviour` experiment gave no usable observation (a dataset created on
    /// some ranks only, a block that did not land, `/proc/self/io` unreadable).
    Experiment(String),
    /// Anything else, with a complete message.
    Other(String),
}

/// One frame of HDF5's error stack (`H5E_error2_t`, HDF5 reference manual, H5E).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hdf5Frame {
    /// The function that pushed the frame (`H5D__write`).
    pub func: String,
    /// HDF5's source file and line of the frame.
    pub file: String,
    /// See `file`.
    pub line: u32,
    /// The major and minor error messages (`Dataset`, `Write failed`).
    pub major: String,
    /// See `major`.
    pub minor: String,
    /// The description, on one line (runs of white space as one space).
    pub desc: String,
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// `self` with the file `path()` (message text) as its file when it is an [`Error::Posix`] that
    /// names none; any other error as it is.
    #[cold]
    pub fn with_path(self, path: impl FnOnce() -> Option<String>) -> Error {
        match self {
            Error::Posix {
                call,
                errno,
                path: None,
            } => Error::Posix {
                call,
                errno,
                path: path(),
            },
            e => e,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m)
            | Error::Remote(m)
            | Error::Fatal(m)
            | Error::Output(m)
            | Error::DataDir(m)
            | Error::Results(m)
            | Error::Limit(m)
            | Error::Experiment(m)
            | Error::Other(m) => f.write_str(m),
            Error::Explained { cause, note } => write!(f, "{cause}{note}"),
            Error::Context { what, cause } => write!(f, "{what}: {cause}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
            Error::Invalid(ms) => f.write_str(&ms.join("\n")),
            Error::Mpi { call, code, msg } => write!(f, "{call} failed: {msg} (MPI error {code})"),
            Error::Hdf5 {
                call,
                stack,
                system,
            } => {
                write!(f, "{call} failed: {}", stack_text(stack, system.as_deref()))
            }
            Error::Posix { call, errno, path } => {
                let text = errno_text(*errno);
                match path {
                    Some(p) => write!(f, "{call}({p}) failed: {text}"),
                    None => write!(f, "{call} failed: {text}"),
                }
            }
            Error::Stopped => f.write_str("stopped early: another rank's transfers failed"),
            Error::Verify(n) => write!(
                f,
                "data verification failed: {n} byte(s) read back differ from what was written"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The system's text of `errno` (`strerror`) without Rust's ` (os error N)`: `No
/// space left on device`; `unexpected end of file` for 0 (a short read at end of file).
pub fn errno_text(errno: i32) -> String {
    if errno == 0 {
        return "unexpected end of file".to_string();
    }
    io_text(&std::io::Error::from_raw_os_error(errno))
}

/// The text of an I/O error without Rust's ` (os error N)`: `No such file or directory`.
pub fn io_text(e: &std::io::Error) -> String {
    let t = e.to_string();
    t.split(" (os error").next().unwrap_or_default().to_string()
}

impl Error {
    /// `self` as the cause of a failure of `what`: `WHAT: message`.
    pub fn context(self, what: &str) -> Error {
        Error::Context {
            what: what.to_string(),
            cause: Box::new(self),
        }
    }

    /// The innermost reason of an [`Error::Hdf5`]: the innermost frame's description
    /// ([`innermost`] of its stack's text); of any other error, its message.
    pub fn innermost(&self) -> String {
        match self {
            Error::Hdf5 { stack, system, .. } => {
                innermost(&stack_text(stack, system.as_deref())).to_string()
            }
            other => other.to_string(),
        }
    }

    /// The reason alone, for a message that names the file itself: the system's text
    /// of a POSIX error (`No space left on device`), any other error as it displays.
    pub fn reason(&self) -> String {
        match self {
            Error::Posix { errno, .. } if *errno != 0 => errno_text(*errno),
            other => other.to_string(),
        }
    }
}

/// HDF5's error stack as one line: the frames, outermost first, each `func(): desc`
/// (or `desc` alone), joined by `: `, and the system error the MPI library met.
fn stack_text(stack: &[Hdf5Frame], system: Option<&str>) -> String {
    let mut text = stack
        .iter()
        .map(|f| match f.func.as_str() {
            "" => f.desc.clone(),
            func => format!("{func}(): {}", f.desc),
        })
        .collect::<Vec<_>>()
        .join(": ");
    if stack.is_empty() {
        text.push_str("no detail on the HDF5 error stack");
    }
    if let Some(why) = system {
        text.push_str(&format!(
            ": {why} (the MPI library returned success with a short count and printed this \
             system error on stderr)"
        ));
    }
    text
}

/// The innermost frame's description in an HDF5 error stack's text (`outer(): desc:
/// inner(): desc` → `desc` of `inner`): the text after the last `(): `, trimmed.
pub fn innermost(msg: &str) -> &str {
    msg.rsplit("(): ").next().unwrap_or(msg).trim()
}

/// A file or directory name as message text: its bytes as they are where they are valid UTF-8,
/// every other byte as `\xNN` (so two different names never print alike, and a name with non-UTF-8
/// bytes can be typed back in a shell as `$'...'`).
pub fn path_text(p: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::with_capacity(p.len());
    for chunk in p.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary
/// (cutting a message never splits a multibyte character, which would panic).
pub fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    /// Every transfer of the timed loop returns a `Result<()>`: a larger error makes
    /// each return write more (`make bench-instr`: at 64 bytes, 4 more instructions
    /// per MPI-IO write than at 48 or 56). Box what a new variant carries instead.
    #[test]
    fn an_error_is_at_most_56_bytes() {
        let size = std::mem::size_of::<Result<()>>();
        assert!(size <= 56, "Result<()> is {size} bytes");
    }

    #[test]
    fn path_text_escapes_only_what_is_not_text() {
        let p = std::ffi::OsStr::from_bytes(b"/scratch/d\xe9j\xc3\xa0/\xff\n");
        assert_eq!(path_text(p), "/scratch/d\\xe9jà/\\xff\\n");
        assert_eq!(path_text(std::ffi::OsStr::new("ümlaut dir")), "ümlaut dir");
    }

    #[test]
    fn cut_respects_character_boundaries() {
        let s = "ä".repeat(40); // 2 bytes each
        for max in 0..=81 {
            let c = cut(&s, max);
            assert!(c.len() <= max && max - c.len() <= 1, "{max}: {}", c.len());
        }
        assert_eq!(cut("€uro", 2), "");
        assert_eq!(cut("€uro", 3), "€");
        assert_eq!(cut("abc", 10), "abc");
    }
}
