//! What a failed open, transfer or close of a data file gets added to its message: the
//! MPI-IO hint it names, or a full file system (outside every timer).

use std::path::Path;

use super::driver::Access;
use crate::config::mpi_info::hint_note;
use crate::config::Api;
use crate::error::{path_text, Error, Result};

/// Where a run's errors are explained from: the MPI-IO hints given and the data directory.
pub(super) struct Why<'a> {
    /// The hints of `HDF5_MPI_INFO` and `--mpi-info`, in the order applied.
    pub hints: &'a [(String, String)],
    /// The data directory (empty: the current one).
    pub dir: &'a Path,
}

/// `res` of a phase of an API's file (`opening`: its open), its own error completed with
/// what to fix ([`hint_note`], or a full file system), outside the timers.
#[inline]
pub(super) fn explain(
    why: &Why<'_>,
    api: Api,
    phase: Access,
    opening: bool,
    res: Result<()>,
) -> Result<()> {
    match res {
        Ok(()) => Ok(()),
        Err(e) => Err(explain_error(why, api, phase, opening, e)),
    }
}

/// The error part of [`explain`], out of line.
#[cold]
#[inline(never)]
fn explain_error(why: &Why<'_>, api: Api, phase: Access, opening: bool, e: Error) -> Error {
    if matches!(e, Error::Remote(_) | Error::Fatal(_) | Error::Stopped) {
        return e;
    }
    let text = e.to_string();
    let pairs = why.hints;
    let mut note = match api {
        Api::Posix => None,
        _ => hint_note(&text, pairs, opening),
    }
    .unwrap_or_default();
    if phase == Access::Write && !opening && !(text.clone() + &note).contains("No space left") {
        let dir = crate::datadir::dir_or_current(why.dir);
        let free = crate::ffi::posix::c_path(dir)
            .ok()
            .and_then(|c| crate::ffi::storage::available_bytes(&c).ok());
        if free == Some(0) {
            note.push_str(&format!(
                " (No space left on device: the file system of the data directory {} is full)",
                path_text(dir.as_os_str())
            ));
        }
    }
    if note.is_empty() {
        return e;
    }
    Error::Explained {
        cause: Box::new(e),
        note,
    }
}
