//! The engine's watch on one data file (issue 12, items 2 and 5; README "Data files are
//! never trusted"), every check outside the timers and ending at an agreement point.

use std::ffi::CStr;

use super::driver::{Access, Driver};
use crate::agreement::agree;
use crate::datadir::data_files;
use crate::error::{Error, Result};
use crate::ffi::mpi::{Comm, Op};
use crate::ffi::posix::{self, FileKind, FileStat};

/// What a rank knows of the current data file.
#[derive(Default)]
pub(super) struct FileWatch {
    /// The API's library opens the file by name (MPI-IO, PHDF5), not h5perf itself.
    by_library: bool,
    /// The file as this rank saw it after its write-phase open (`--read-only`: before
    /// the read phase).
    written: Option<FileStat>,
    /// The file's size after the write phase, bytes (the largest any rank saw).
    size: Option<u64>,
    open_before: Vec<FileStat>,
    /// Rank 0 made the name free for this file's write phase.
    room_made: bool,
}

impl FileWatch {
    /// A watch for an API whose library opens the files by name (`by_library`) or not.
    pub(super) fn new(by_library: bool) -> FileWatch {
        FileWatch {
            by_library,
            ..FileWatch::default()
        }
    }

    /// Forget the previous file (before each file's phases).
    pub(super) fn reset(&mut self) {
        self.written = None;
        self.size = None;
        self.room_made = false;
        self.open_before.clear();
    }

    /// Before the read phase of a file other than the one written (`--file-per-process
    /// --reorder`: another rank's own file): what this rank saw of its own file does not
    /// apply, and the file read is checked as with `--read-only` (a regular file, which
    /// becomes the one expected).
    pub(super) fn forget_written(&mut self) {
        self.written = None;
        self.size = None;
    }

    /// Before the write phase of `path` (collective over `comm`, agreed): rank 0 of
    /// `files` (the communicator the file is opened on) makes the name free.
    pub(super) fn before_write(&mut self, comm: &Comm, files: &Comm, path: &CStr) -> Result<()> {
        self.reset();
        let room = if files.rank()? == 0 {
            // POSIX ranks open with O_TRUNC themselves: an own leftover stays for them
            let r = if self.by_library {
                data_files::make_room(path)
            } else {
                data_files::make_room_keeping_own(path)
            };
            self.room_made = r.is_ok();
            r
        } else {
            Ok(())
        };
        agree(comm, room.and_then(|()| self.note_open_files()))
    }

    /// Before the read phase of `path` (collective): the name leads to the file the write
    /// phase left (`--read-only`: to a regular file, which becomes the one expected).
    pub(super) fn before_read(&mut self, comm: &Comm, path: &CStr) -> Result<()> {
        let res = self.name_check(path).and_then(|()| self.note_open_files());
        agree(comm, res)
    }

    fn name_check(&mut self, path: &CStr) -> Result<()> {
        let seen = at_name(path, "before the read phase")?;
        match &self.written {
            Some(w) => data_files::check_same(path, &seen, w, None, "before the read phase"),
            None => {
                if seen.kind != FileKind::Regular {
                    return Err(Error::DataDir(format!(
                        "refusing to read the data file {}: it is {}, not a regular file",
                        path.to_string_lossy(),
                        seen.kind.words()
                    )));
                }
                self.written = Some(seen);
                self.size = Some(seen.size);
                Ok(())
            }
        }
    }

    /// The open descriptors before an open by the library (MPI-IO, PHDF5).
    fn note_open_files(&mut self) -> Result<()> {
        if self.by_library {
            self.open_before = posix::open_regular_files()?;
        }
        Ok(())
    }

    /// After the open of `path` for `phase` by `drv` (collective over `comm`, agreed,
    /// outside the timers): the file opened is a new one of this user (write; the same
    /// inode as on rank 0 of `files`, the communicator that opened it) or the one the
    /// write phase left, of its size (read).
    pub(super) fn after_open(
        &mut self,
        comm: &Comm,
        files: &Comm,
        path: &CStr,
        phase: Access,
        drv: &dyn Driver,
    ) -> Result<()> {
        let seen = self.opened(path, drv);
        let res = match phase {
            Access::Write => {
                let local = seen.and_then(|s| {
                    data_files::check_new(path, &s, true)?;
                    self.written = Some(s);
                    Ok(s.ino)
                });
                // every rank must have the file rank 0 has (inode numbers are the same
                // on every node; device numbers need not be)
                let ino0 = files.bcast_bytes(0, &local.as_ref().map_or(0, |i| *i).to_le_bytes())?;
                let ino0 = u64::from_le_bytes(ino0.try_into().unwrap_or([0; 8]));
                local.and_then(|ino| {
                    if ino == ino0 {
                        Ok(())
                    } else {
                        Err(Error::DataDir(format!(
                            "the data file {} is inode {ino} on this rank and {ino0} on \
                             rank 0: another file took its name while the ranks opened it",
                            path.to_string_lossy()
                        )))
                    }
                })
            }
            Access::Read => seen.and_then(|s| match &self.written {
                Some(w) => data_files::check_same(path, &s, w, self.size, "at the read open"),
                None => Err(Error::Internal("read phase without a checked file")),
            }),
        };
        agree(comm, res)
    }

    /// What this rank opened: its own descriptor (POSIX), or the file under the name,
    /// which must be among the process's open files (MPI-IO, PHDF5; with `--subfiling`
    /// only a regular file, [`Driver::holds_companions`]).
    fn opened(&self, path: &CStr, drv: &dyn Driver) -> Result<FileStat> {
        if let Some(st) = drv.open_file_stat() {
            return st;
        }
        let seen = at_name(path, "after the open")?;
        if seen.kind != FileKind::Regular {
            return Err(Error::DataDir(format!(
                "the data file {} is {} after the open",
                path.to_string_lossy(),
                seen.kind.words()
            )));
        }
        if drv.holds_companions() {
            // a concentrator's subfile is new among this process's files; the file at
            // the name is still compared with rank 0's (after_open)
            return Ok(seen);
        }
        let now = posix::open_regular_files()?;
        data_files::check_held(path, &seen, &self.open_before, &now)?;
        Ok(seen)
    }

    /// After a successful write phase of `path` (collective over `comm`, agreed): the
    /// name still leads to the file written, the ranks of `files` (that wrote it) agree
    /// on its size, and it holds at least `data` bytes (the datasets' bytes the phase
    /// wrote; HDF5 adds its metadata).
    pub(super) fn after_write(
        &mut self,
        comm: &Comm,
        files: &Comm,
        path: &CStr,
        data: u64,
    ) -> Result<()> {
        let seen = at_name(path, "after the write phase");
        let res = match (&seen, &self.written) {
            (Ok(s), Some(w)) => data_files::check_same(path, s, w, None, "after the write phase"),
            (Ok(_), None) => Err(Error::Internal("write phase without a checked file")),
            (Err(e), _) => Err(e.clone()),
        };
        let size = seen.as_ref().map_or(0, |s| s.size);
        let size = files.allreduce_u64(size, Op::Max)?;
        let res = res.and_then(|()| {
            if size >= data {
                return Ok(());
            }
            Err(Error::DataDir(format!(
                "the data file {} holds {size} bytes after the write phase, which wrote \
                 {data} bytes of data into it: another process truncated it",
                path.to_string_lossy()
            )))
        });
        agree(comm, res)?;
        self.size = Some(size);
        Ok(())
    }

    /// After a successful read phase of `path` (collective): the name still leads to
    /// the file, of the size the write phase left. (A file cut short while it was read
    /// makes the POSIX and MPI-IO reads fail; HDF5's MPI-IO driver hands back zeros for
    /// the missing bytes.)
    pub(super) fn after_read(&mut self, comm: &Comm, path: &CStr) -> Result<()> {
        let res = at_name(path, "after the read phase").and_then(|seen| match &self.written {
            Some(w) => data_files::check_same(path, &seen, w, self.size, "after the read phase"),
            None => Err(Error::Internal("read phase without a checked file")),
        });
        agree(comm, res)
    }

    /// On rank 0 of the file's communicator, after the file's phases: whether the file under `path` is this run's
    /// to remove: the name was made free for it and a regular file of this user is
    /// there (the next run would remove it as well). A refused file, or a link or
    /// another user's file that took the name later, is left alone.
    pub(super) fn ours(&self, path: &CStr) -> bool {
        self.room_made && data_files::is_own(path)
    }
}

/// `lstat` of `path`, which must exist (`when`: the moment, for the message).
fn at_name(path: &CStr, when: &str) -> Result<FileStat> {
    posix::lstat(path)?.ok_or_else(|| {
        Error::DataDir(format!(
            "the data file {} is gone {when}: another process removed it",
            path.to_string_lossy()
        ))
    })
}
