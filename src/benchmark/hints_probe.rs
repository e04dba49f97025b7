//! The MPI-IO hints in effect before the run, for the parameter block (`--mpi-info`,
//! issue 33): the MPI library reports the hints of an open file only
//! (`MPI_File_get_info`, MPI-3.1 §13.2.8), and the parameter block is printed before the
//! first data file is opened, so every rank opens a probe file with the run's hints and
//! reads them back. The hints of the data files themselves (which may differ with the
//! number of processes, e.g. ROMIO's default `cb_nodes`) are recorded in JSON/CSV after
//! each open.

use std::path::Path;

use crate::agreement::{agree, agree_with};
use crate::config::{Api, Params};
use crate::datadir::data_file_name;
use crate::datadir::host::hostname;
use crate::error::{Error, Result};
use crate::ffi::mpi::{mode, Comm, File, Info};
use crate::ffi::posix;

/// The hints in effect on a file opened by every rank of `comm` through MPI-IO with
/// `info`: a new probe file `#h5perf_hints_probe.<host>.<pid>` in `dir` (rank 0's host
/// and process ID; created exclusively, never a file already there, and deleted on
/// close), or with `--read-only` the first kept data file of the first MPI-IO API, opened
/// read-only. Collective; outside every timer.
///
/// # Errors
/// The open, `MPI_File_get_info` or the close fails on any rank (agreed); when some ranks
/// opened the file and others did not, [`Error::Fatal`] (the open ranks cannot close it).
pub fn hints_in_effect(
    p: &Params,
    comm: &Comm,
    dir: &Path,
    info: &Info,
) -> Result<Vec<(String, String)>> {
    let (path, mode, made) = if p.storage.read_only {
        let api = [Api::Mpiio, Api::Phdf5]
            .into_iter()
            .find(|a| p.apis.contains(*a))
            .ok_or(Error::Internal("hints probe without an MPI-IO API"))?;
        (data_file_name(dir, 1, api.suffix())?, mode::RDONLY, false)
    } else {
        let name = format!(
            "#h5perf_hints_probe.{}.{}",
            crate::datadir::lock::file_name_part(&hostname()),
            std::process::id()
        );
        // rank 0's name on every rank: the file is one
        let name = comm.bcast_bytes(0, name.as_bytes())?;
        let name = String::from_utf8_lossy(&name).into_owned();
        (dir.join(name), mode::CREATE_EXCL_DELETE, true)
    };
    let c = posix::c_path(&path)?;
    let opened = File::open(comm, &c, mode, info);
    let (file, res) = match opened {
        Ok(f) => (Some(f), Ok(())),
        Err(e) => (None, Err(e)),
    };
    if let Err(e) = agree(comm, res) {
        // ranks that opened it hold a file only a collective close releases
        let stranded = file.is_some();
        if stranded && made && comm.rank()? == 0 {
            let _ = posix::remove(&path);
        }
        std::mem::forget(file);
        return Err(agree_with(comm, Err(e), stranded).expect_err("a failed agreement fails"));
    }
    let file = file.ok_or(Error::Internal("the probe opened on no rank"))?;
    let hints = file.hints();
    let closed = file.close();
    let hints = hints.and_then(|h| closed.map(|()| h));
    crate::agreement::agree_value(comm, hints)
}
