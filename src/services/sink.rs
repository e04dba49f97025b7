//! The one output sink of the report and of rank-0 messages: standard output, the `-o`
//! report file, or nowhere.

use crate::error::{Error, Result};
use crate::ffi::posix::Fd;

/// Where the report goes: standard output, or the `-o` file (opened by every rank in
/// append mode after rank 0 truncated it, so blocks of different ranks do not clobber
/// each other). Each call writes one whole block.
pub enum Sink {
    /// Standard output.
    Stdout,
    /// A report file.
    File(Fd),
    /// Nowhere (the C API without a report).
    Null,
}

impl Sink {
    /// Report to standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout
    }

    /// Report to an already opened file.
    pub fn file(fd: Fd) -> Sink {
        Sink::File(fd)
    }

    /// Whether the report goes to a file (`-o`).
    pub fn is_file(&self) -> bool {
        matches!(self, Sink::File(_))
    }

    /// Write one block of text. Errors: the report file cannot be written.
    pub fn write(&self, s: &str) -> Result<()> {
        match self {
            Sink::File(fd) => fd.write_all(s.as_bytes()),
            Sink::Stdout => write_stdout(s),
            Sink::Null => Ok(()),
        }
    }
}

/// Write a block to standard output and flush it.
pub fn write_stdout(s: &str) -> Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes())
        .and_then(|_| o.flush())
        .map_err(|e| Error::Other(format!("cannot write the report to standard output: {e}")))
}
