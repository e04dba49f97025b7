//! Where an output goes ([`Sink`]): stdout, nowhere, a special file written through, or a
//! regular file replaced through a temporary file (no reader ever sees a part).

use std::cell::{Cell, RefCell};
use std::ffi::OsStr;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::paths::{self, open_output, temp_beside, Target};
use crate::agreement::agree_value;
use crate::error::{io_text, path_text, Error, Result};
use crate::ffi::mpi::Comm;
use crate::ffi::posix::{Fd, OpenMode};

pub use crate::config::values::STDOUT;

/// One output: where it goes, its name for messages, and the report's first failed write.
pub struct Sink {
    to: To,
    /// `report file (-o)`, `results file (--json)`, `HTML page (--html)`.
    what: String,
    shown: String,
    /// Kept for [`Sink::status`].
    failed: RefCell<Option<Error>>,
}

/// A sink's destination.
enum To {
    Stdout,
    /// Nowhere (the C API without a report).
    Null,
    /// Not a regular file: written through this descriptor.
    Through(Fd),
    /// A new or regular file, replaced through a temporary file beside it.
    Replace {
        /// The name given, symbolic links followed.
        dest: PathBuf,
        tmp: PathBuf,
        /// The report's temporary file, opened for appending by every rank; `None` for a document.
        open: Option<Fd>,
        /// Whether this rank made the temporary file (and renames or removes it).
        owner: bool,
        /// Renamed over `dest` already (the report).
        done: Cell<bool>,
    },
}

impl To {
    /// A [`To::Replace`] not yet renamed.
    fn replace(tmp: PathBuf, dest: PathBuf, open: Option<Fd>, owner: bool) -> To {
        let done = Cell::new(false);
        To::Replace {
            dest,
            tmp,
            open,
            owner,
            done,
        }
    }
}

impl Sink {
    fn new(to: To, what: String, shown: String) -> Sink {
        Sink {
            to,
            what,
            shown,
            failed: RefCell::new(None),
        }
    }

    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::new(To::Stdout, String::new(), String::new())
    }

    /// Nowhere.
    pub fn null() -> Sink {
        Sink::new(To::Null, String::new(), String::new())
    }

    /// The destination `dest` of the document of `option`, checked before the run.
    ///
    /// # Errors
    /// Naming the option and the file: refused by [`open_output`] or temporary file not creatable.
    pub fn document(dest: &OsStr, option: &'static str) -> Result<Sink> {
        if dest == STDOUT {
            return Ok(Sink::stdout());
        }
        let what = match option {
            "--html" => format!("HTML page ({option})"),
            _ => format!("results file ({option})"),
        };
        let shown = path_text(dest);
        let cannot = |why: String| Error::Output(format!("{what}: cannot create '{shown}': {why}"));
        let to = destination(dest, &cannot)?;
        if let To::Replace { tmp, .. } = &to {
            let _ = std::fs::remove_file(tmp);
            let _pending = Pending::document(tmp);
            new_file(tmp).map_err(|e| cannot(io_text(&e)))?;
            std::fs::remove_file(tmp).map_err(|e| cannot(io_text(&e)))?;
        }
        Ok(Sink::new(to, what, shown))
    }

    /// The report's sink (collective): stdout (or nowhere unless `report`) without `-o`, else a
    /// temporary file all ranks append to ([`Sink::publish`]), or a special file written through.
    ///
    /// # Errors
    /// The file cannot be created or opened, or is refused by [`open_output`]; agreed by all ranks.
    pub fn report(comm: &Comm, name: Option<&OsStr>, report: bool) -> Result<Sink> {
        use std::os::unix::ffi::OsStrExt;
        let Some(name) = name else {
            return Ok(if report { Sink::stdout() } else { Sink::null() });
        };
        let (what, shown) = ("report file (-o)".to_string(), path_text(name));
        let cannot = |why: String| Error::Output(format!("{what}: cannot create '{shown}': {why}"));
        let sink = |to| Sink::new(to, what.clone(), shown.clone());
        let through = || destination(name, &cannot);
        // three agreement points, reached by every rank in the same order
        let created = if comm.rank()? == 0 {
            through().and_then(|to| match to {
                To::Replace { dest, tmp, .. } => {
                    let _ = std::fs::remove_file(&tmp);
                    let fd = Fd::open_path(&tmp, OpenMode::CreateReportNew)
                        .map_err(|e| cannot(e.reason()))?;
                    crate::datadir::cleanup::set_pending_report(&tmp);
                    Ok(Some(sink(To::replace(tmp, dest, Some(fd), true))))
                }
                to => Ok(Some(sink(to))),
            })
        } else {
            Ok(None)
        };
        let created = agree_value(comm, created)?;
        // rank 0's temporary file, or nothing when the report is written through
        let tmp = match created.as_ref().map(|s| &s.to) {
            Some(To::Replace { tmp, .. }) => tmp.as_os_str().as_bytes().to_vec(),
            _ => Vec::new(),
        };
        let tmp = PathBuf::from(OsStr::from_bytes(&comm.bcast_bytes(0, &tmp)?));
        let mine = match created {
            Some(s) => Ok(s),
            None if tmp.as_os_str().is_empty() => match through() {
                Ok(To::Replace { .. }) => Err(cannot(
                    "it became a regular file while the run started".to_string(),
                )),
                to => to.map(sink),
            },
            None => Fd::open_path(&tmp, OpenMode::Append)
                .map_err(|e| cannot(e.reason()))
                .map(|fd| {
                    crate::datadir::cleanup::set_pending_report(&tmp);
                    sink(To::replace(tmp, PathBuf::new(), Some(fd), false))
                }),
        };
        agree_value(comm, mine)
    }

    /// Whether the output goes to standard output (`-`, or the report without `-o`).
    pub fn is_stdout(&self) -> bool {
        matches!(self.to, To::Stdout)
    }

    /// Whether the output goes nowhere.
    pub fn is_null(&self) -> bool {
        matches!(self.to, To::Null)
    }

    /// Whether the output goes to a regular file, replaced through a temporary file.
    pub fn is_file(&self) -> bool {
        matches!(self.to, To::Replace { .. })
    }

    /// Append one block of the report; the first failure is kept for [`Sink::status`].
    pub fn write(&self, s: &str) {
        if self.failed.borrow().is_some() {
            return;
        }
        let wrote = match &self.to {
            To::Stdout => write_stdout(s),
            To::Null | To::Replace { open: None, .. } => Ok(()),
            To::Through(fd) | To::Replace { open: Some(fd), .. } => {
                fd.write_all(s.as_bytes()).map_err(|e| {
                    let why = e.reason();
                    Error::Output(format!(
                        "{}: cannot write '{}': {why}",
                        self.what, self.shown
                    ))
                })
            }
        };
        if let Err(e) = wrote {
            *self.failed.borrow_mut() = Some(e);
        }
    }

    /// Write `text` as the whole document; a regular file through a new temporary file.
    ///
    /// # Errors
    /// Naming the option and the file; the temporary file is removed.
    pub fn replace(&self, text: &str) -> Result<()> {
        let cannot = |why: String| {
            Error::Output(format!(
                "{}: cannot write '{}': {why}",
                self.what, self.shown
            ))
        };
        match &self.to {
            To::Stdout => stdout_all(text).map_err(|e| {
                Error::Output(format!(
                    "cannot write the results to standard output: {}",
                    io_text(&e)
                ))
            }),
            To::Null => Ok(()),
            To::Through(fd) => fd
                .write_all(text.as_bytes())
                .map_err(|e| cannot(e.reason())),
            To::Replace { dest, tmp, .. } => {
                let _ = std::fs::remove_file(tmp);
                // removed by the signal handlers (and the reaper) until renamed
                let _pending = Pending::document(tmp);
                let wrote = new_file(tmp)
                    .and_then(|mut f| {
                        f.write_all(text.as_bytes())?;
                        f.sync_all()
                    })
                    .map_err(|e| io_text(&e))
                    .and_then(|()| paths::replace(tmp, dest).map_err(|e| e.to_string()));
                wrote.map_err(|why| {
                    let _ = std::fs::remove_file(tmp);
                    cannot(why)
                })
            }
        }
    }

    /// The first failed write or publication of the report (not collective).
    ///
    /// # Errors
    /// That failure, naming the report file and `-o` (or standard output).
    pub fn status(&self) -> Result<()> {
        self.failed.borrow().clone().map_or(Ok(()), Err)
    }

    /// Rename the report's temporary file over its name, once, on the rank that created it.
    pub fn publish(&self) {
        let To::Replace {
            dest,
            tmp,
            open: Some(_),
            owner: true,
            done,
        } = &self.to
        else {
            return;
        };
        if done.get() || self.failed.borrow().is_some() {
            return;
        }
        match paths::replace(tmp, dest) {
            Ok(()) => {
                done.set(true);
                crate::datadir::cleanup::clear_pending_report();
            }
            Err(e) => {
                *self.failed.borrow_mut() = Some(Error::Output(format!(
                    "{}: cannot replace '{}' by its new version: {e}",
                    self.what, self.shown
                )));
            }
        }
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let to = match &self.to {
            To::Stdout => "standard output",
            To::Null => "nowhere",
            To::Through(_) => "written through",
            To::Replace { .. } => "replaced",
        };
        write!(f, "Sink({to} {} '{}')", self.what, self.shown)
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let To::Replace {
            tmp,
            open: Some(_),
            owner,
            done,
            ..
        } = &self.to
        {
            crate::datadir::cleanup::clear_pending_report();
            // an unpublished report: nothing replaced the earlier file; leave nothing
            if *owner && !done.get() {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}

/// A results document's temporary file, registered for removal by the signal handlers
/// and the reaper while it exists (`cleanup::Slot::Document`); forgotten on drop (after
/// the rename or the removal).
struct Pending;

impl Pending {
    fn document(tmp: &Path) -> Pending {
        crate::datadir::cleanup::register(crate::datadir::cleanup::Slot::Document, tmp);
        Pending
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        crate::datadir::cleanup::unregister(crate::datadir::cleanup::Slot::Document);
    }
}

/// The destination of the output `name`; a regular file's temporary file is not made yet.
fn destination(name: &OsStr, cannot: &dyn Fn(String) -> Error) -> Result<To> {
    let to = open_output(Path::new(name)).map_err(|r| cannot(r.to_string()))?;
    Ok(match to {
        Target::Through(f) => To::Through(Fd::from_file(f)),
        Target::Replace { path } => To::replace(temp_beside(&path), path, None, true),
    })
}

/// A new file at `path`, refusing an existing name (a planted symbolic link included).
fn new_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Write a block to standard output and flush it.
///
/// # Errors
/// Standard output cannot be written (closed, or a full file system behind it).
pub fn write_stdout(s: &str) -> Result<()> {
    stdout_all(s)
        .map_err(|e| Error::Output(format!("cannot write the report to standard output: {e}")))
}

/// Write `s` to standard output and flush it.
fn stdout_all(s: &str) -> std::io::Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(s.as_bytes()).and_then(|()| o.flush())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report's sink of the rank that made its temporary file (no MPI here).
    fn report_file(fd: Fd, dest: &Path, tmp: Option<PathBuf>) -> Sink {
        let to = match tmp {
            Some(tmp) => To::Replace {
                dest: dest.to_path_buf(),
                tmp,
                open: Some(fd),
                owner: true,
                done: Cell::new(false),
            },
            None => To::Through(fd),
        };
        Sink::new(to, "report file (-o)".into(), path_text(dest.as_os_str()))
    }

    #[test]
    fn first_failure_is_kept_and_writing_stops() {
        // /dev/full: every write fails with ENOSPC
        let fd = Fd::open_path(Path::new("/dev/full"), OpenMode::Append).unwrap();
        let s = report_file(fd, Path::new("rep ört.txt"), None);
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
        let s = report_file(fd, &dest, Some(tmp.clone()));
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
        let s = report_file(fd, &dest, Some(tmp.clone()));
        s.write("partial\n");
        drop(s);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "earlier report\n");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
    }

    #[test]
    fn results_file_replaced_never_emptied() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.json");
        std::fs::write(&path, "old content that is longer").unwrap();
        let sink = Sink::document(path.as_os_str(), "--json").unwrap();
        assert!(sink.is_file());
        // checked, not touched: the earlier file stays until the first write
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "old content that is longer"
        );
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
        sink.replace("{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        sink.replace("[]\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[]\n");
        // no temporary file left beside it
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
        assert!(Sink::document(OsStr::new("-"), "--csv")
            .unwrap()
            .is_stdout());
        let bad = t.path().join("no/such/dir.csv");
        let e = Sink::document(bad.as_os_str(), "--csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "results file (--csv): cannot create '{}': No such file or directory",
                bad.display()
            )
        );
        let e = Sink::document(t.path().as_os_str(), "--json").unwrap_err();
        assert!(e.to_string().ends_with("Is a directory"), "{e}");
    }

    #[test]
    fn long_multibyte_names_in_messages() {
        let t = tempfile::tempdir().unwrap();
        for (c, option) in [("é", "--json"), ("€", "--csv"), ("𝄞", "--rank-csv")] {
            let missing = t.path().join(c.repeat(240 / c.len()));
            let name = missing.join(c.repeat(240 / c.len()));
            let e = Sink::document(name.as_os_str(), option)
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("results file ({option}): cannot create '")),
                "{e}"
            );
            assert!(e.contains(&c.repeat(50)), "{e}");
        }
    }

    #[test]
    fn results_through_a_symbolic_link_replace_its_target() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("target.csv"), "old").unwrap();
        std::os::unix::fs::symlink("target.csv", t.path().join("link.csv")).unwrap();
        let sink = Sink::document(t.path().join("link.csv").as_os_str(), "--csv").unwrap();
        sink.replace("new\n").unwrap();
        let link = std::fs::symlink_metadata(t.path().join("link.csv")).unwrap();
        assert!(link.file_type().is_symlink(), "the link is kept");
        assert_eq!(
            std::fs::read_to_string(t.path().join("target.csv")).unwrap(),
            "new\n"
        );
    }

    #[test]
    fn failed_write_names_option_and_file_and_keeps_the_earlier_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.csv");
        std::fs::write(&path, "earlier").unwrap();
        let sink = Sink::document(path.as_os_str(), "--csv").unwrap();
        // the directory becomes unwritable: the temporary file cannot be created
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let e = sink.replace("x").unwrap_err().to_string();
        assert!(
            e.starts_with("results file (--csv): cannot write '") && e.contains("r.csv"),
            "{e}"
        );
    }
}
