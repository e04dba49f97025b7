//! The one output sink of the report and of rank-0 messages: standard output, the `-o`
//! report file, or nowhere.
//!
//! A write never fails on the spot: the sink keeps the first failure and writes
//! nothing more, and [`Sink::status`] hands it to the next agreement point, which
//! every rank reaches in the same order. (Returning the error where it happened would
//! send the failing rank, usually rank 0 alone, to a different agreement point than
//! the others, on another communicator, and hang the job.)

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::paths;
use crate::agreement::agree_value;
use crate::error::{path_text, Error, Result};
use crate::ffi::mpi::Comm;
use crate::ffi::posix::{Fd, OpenMode};

/// Where the report goes: standard output, the `-o` file, or nowhere. Each call of
/// [`Sink::write`] writes one whole block.
pub struct Sink {
    /// The destination.
    to: To,
    /// The first failed write, kept for [`Sink::status`].
    failed: RefCell<Option<Error>>,
}

/// A sink's destination.
enum To {
    /// Standard output.
    Stdout,
    /// A report file, opened by every rank in append mode (so blocks of different
    /// ranks do not clobber each other).
    File {
        /// The open file.
        fd: Fd,
        /// The file's name as message text.
        shown: String,
        /// On the rank that created it: the temporary file the report is written to
        /// until [`Sink::publish`] renames it over the report's name.
        pending: Option<Pending>,
    },
    /// Nowhere (the C API without a report).
    Null,
}

/// A report written to a temporary file beside its destination, until published.
struct Pending {
    /// The temporary file.
    tmp: PathBuf,
    /// The file it replaces (symbolic links followed).
    dest: PathBuf,
    /// Renamed already.
    done: Cell<bool>,
}

impl Sink {
    /// Report to standard output.
    pub fn stdout() -> Sink {
        Sink::to(To::Stdout)
    }

    /// Report nowhere.
    pub fn null() -> Sink {
        Sink::to(To::Null)
    }

    /// Report to an already opened file, named `name` in messages (the `-o` report as
    /// given on the command line). For the rank that created it, `pending` is the
    /// temporary file `fd` writes to and the file it is to replace
    /// ([`Sink::publish`]); the temporary file is removed if the sink is dropped
    /// before it was published. `tmp` (every rank) is the temporary file's name, which
    /// the signal handlers remove if the job is interrupted (after the rename the name
    /// is gone and removing it does nothing).
    pub fn file(
        fd: Fd,
        name: &Path,
        tmp: Option<&Path>,
        pending: Option<(PathBuf, PathBuf)>,
    ) -> Sink {
        if let Some(tmp) = tmp {
            crate::ffi::signals::set_pending_report(tmp);
        }
        Sink::to(To::File {
            fd,
            shown: path_text(name.as_os_str()),
            pending: pending.map(|(tmp, dest)| Pending {
                tmp,
                dest,
                done: Cell::new(false),
            }),
        })
    }

    fn to(to: To) -> Sink {
        Sink {
            to,
            failed: RefCell::new(None),
        }
    }

    /// Whether the report goes to a file (`-o`).
    pub fn is_file(&self) -> bool {
        matches!(self.to, To::File { .. })
    }

    /// The temporary file the report is written to until [`Sink::publish`], on the
    /// rank that created it (None elsewhere and for other sinks).
    pub fn pending_file(&self) -> Option<&Path> {
        match &self.to {
            To::File {
                pending: Some(p), ..
            } => Some(&p.tmp),
            _ => None,
        }
    }

    /// Whether the report goes nowhere.
    pub fn is_null(&self) -> bool {
        matches!(self.to, To::Null)
    }

    /// Write one block of text. A failure is kept (the first one) and ends the writing:
    /// later blocks are dropped; [`Sink::status`] reports it.
    pub fn write(&self, s: &str) {
        if self.failed.borrow().is_some() {
            return;
        }
        let res = match &self.to {
            To::File { fd, shown, .. } => fd.write_all(s.as_bytes()).map_err(|e| {
                Error::Other(format!(
                    "report file (-o): cannot write '{shown}': {}",
                    e.reason()
                ))
            }),
            To::Stdout => write_stdout(s),
            To::Null => Ok(()),
        };
        if let Err(e) = res {
            *self.failed.borrow_mut() = Some(e);
        }
    }

    /// The first failed write or publication, if any (not collective: give it to an
    /// agreement point).
    ///
    /// # Errors
    /// That failure, naming the report file and `-o` (or standard output).
    pub fn status(&self) -> Result<()> {
        match &*self.failed.borrow() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The report has something to replace an earlier file with: on the rank that
    /// created the report file, rename its temporary file over the report's name (once;
    /// later calls do nothing). The file stays open, so later blocks of every rank go
    /// on into it. No-op for other sinks and ranks, and after a failure.
    pub fn publish(&self) {
        let To::File {
            pending: Some(p),
            shown,
            ..
        } = &self.to
        else {
            return;
        };
        if p.done.get() || self.failed.borrow().is_some() {
            return;
        }
        match paths::replace(&p.tmp, &p.dest) {
            Ok(()) => {
                p.done.set(true);
                crate::ffi::signals::clear_pending_report();
            }
            Err(e) => {
                *self.failed.borrow_mut() = Some(Error::Other(format!(
                    "report file (-o): cannot replace '{shown}' by its new version: {e}"
                )));
            }
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let To::File { pending, .. } = &self.to {
            crate::ffi::signals::clear_pending_report();
            // an unpublished report: nothing replaced the earlier file; leave nothing
            if let Some(p) = pending.as_ref().filter(|p| !p.done.get()) {
                let _ = std::fs::remove_file(&p.tmp);
            }
        }
    }
}

/// Write a block to standard output and flush it.
///
/// # Errors
/// Standard output cannot be written (closed, or a full file system behind it).
pub fn write_stdout(s: &str) -> Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes())
        .and_then(|_| o.flush())
        .map_err(|e| Error::Other(format!("cannot write the report to standard output: {e}")))
}

/// The report's sink (collective over `comm`): standard output (or nowhere when
/// `report` is false) without `-o`. With `-o NAME` naming a new or regular file, rank 0
/// creates a new file beside the report (`.NAME.h5perf-tmp.PID`, symbolic links of
/// `NAME` followed) and every rank appends its blocks to it; the first finished step
/// renames it over `NAME` ([`Sink::publish`]), keeping an existing file's owner, group
/// and mode, so an earlier report stays as it was until this run has results to replace
/// it with, and a run that fails before leaves neither a file nor a change. With `NAME`
/// a device, FIFO or anything else that is not a regular file (`/dev/null`,
/// `/dev/stdout`), every rank opens it and writes its blocks through, as the C tool's
/// `fopen(NAME, "w")` does, without truncating or replacing it
/// ([`open_output`](super::paths::open_output)).
///
/// # Errors
/// The file cannot be created or opened, or is a symbolic link of another user in a
/// shared directory (the message names `-o` and the report as given), agreed by all
/// ranks.
pub fn open(comm: &Comm, name: Option<&std::ffi::OsStr>, report: bool) -> Result<Sink> {
    use super::paths::{open_output, temp_beside, Target};
    use std::os::unix::ffi::OsStrExt;
    let Some(name) = name else {
        return Ok(if report { Sink::stdout() } else { Sink::null() });
    };
    let name = std::path::Path::new(name);
    let cannot = |why: String| {
        Error::Other(format!(
            "report file (-o): cannot create '{}': {why}",
            crate::error::path_text(name.as_os_str())
        ))
    };
    // three agreement points, reached by every rank in the same order
    let created = if comm.rank()? == 0 {
        match open_output(name).map_err(cannot) {
            Ok(Target::Through(f)) => Ok(Some(Sink::file(Fd::from_file(f), name, None, None))),
            Ok(Target::Replace { path: dest }) => {
                let tmp = temp_beside(&dest);
                let _ = std::fs::remove_file(&tmp);
                Fd::open_path(&tmp, OpenMode::CreateReportNew)
                    .map(|fd| Some(Sink::file(fd, name, Some(&tmp), Some((tmp.clone(), dest)))))
                    .map_err(|e| cannot(e.reason()))
            }
            Err(e) => Err(e),
        }
    } else {
        Ok(None)
    };
    let created = agree_value(comm, created)?;
    // rank 0's temporary file, or nothing when the report is written through
    let tmp = match &created {
        Some(s) => s.pending_file().map(|p| p.as_os_str().as_bytes().to_vec()),
        None => None,
    };
    let tmp = comm.bcast_bytes(0, tmp.as_deref().unwrap_or_default())?;
    let tmp = std::path::Path::new(std::ffi::OsStr::from_bytes(&tmp));
    let mine = match created {
        Some(sink) => Ok(sink),
        None if tmp.as_os_str().is_empty() => match open_output(name).map_err(cannot) {
            Ok(Target::Through(f)) => Ok(Sink::file(Fd::from_file(f), name, None, None)),
            Ok(Target::Replace { .. }) => Err(cannot(
                "it became a regular file while the run started".to_string(),
            )),
            Err(e) => Err(e),
        },
        None => Fd::open_path(tmp, OpenMode::Append)
            .map(|fd| Sink::file(fd, name, Some(tmp), None))
            .map_err(|e| cannot(e.reason())),
    };
    agree_value(comm, mine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::posix::OpenMode;

    #[test]
    fn first_failure_is_kept_and_writing_stops() {
        // /dev/full: every write fails with ENOSPC
        let fd = Fd::open_path(Path::new("/dev/full"), OpenMode::Append).unwrap();
        let s = Sink::file(fd, Path::new("rep ört.txt"), None, None);
        assert!(s.status().is_ok());
        s.write("a\n");
        s.write("b\n");
        let e = s.status().unwrap_err().to_string();
        assert_eq!(
            e,
            "report file (-o): cannot write 'rep ört.txt': No space left on device"
        );
        assert_eq!(s.status().unwrap_err().to_string(), e, "kept");
    }

    #[test]
    fn publish_replaces_the_earlier_report_once_and_writing_goes_on() {
        let t = tempfile::tempdir().unwrap();
        let dest = t.path().join("r.txt");
        std::fs::write(&dest, "earlier report\n").unwrap();
        let tmp = paths::temp_beside(&dest);
        let fd = Fd::open_path(&tmp, OpenMode::CreateReport).unwrap();
        let s = Sink::file(fd, &dest, None, Some((tmp.clone(), dest.clone())));
        s.write("one\n");
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "earlier report\n");
        s.publish();
        s.write("two\n");
        s.publish();
        assert!(s.status().is_ok());
        drop(s);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "one\ntwo\n");
        assert!(!tmp.exists());
    }

    #[test]
    fn unpublished_report_leaves_nothing_and_the_earlier_file_alone() {
        let t = tempfile::tempdir().unwrap();
        let dest = t.path().join("r.txt");
        std::fs::write(&dest, "earlier report\n").unwrap();
        let tmp = paths::temp_beside(&dest);
        let fd = Fd::open_path(&tmp, OpenMode::CreateReport).unwrap();
        let s = Sink::file(fd, &dest, None, Some((tmp.clone(), dest.clone())));
        s.write("partial\n");
        drop(s);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "earlier report\n");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
    }
}
