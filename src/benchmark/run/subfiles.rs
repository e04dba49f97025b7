//! `--subfiling`'s steps of [`ApiRun`]: a kept file's subfiles removed before it is
//! written again (the driver names subfiles after the stub's inode, which a new stub may
//! reuse), and the new file's subfiles registered for removal however the run ends.

use std::ffi::CString;

use super::ApiRun;
use crate::agreement::agree;
use crate::datadir::cleanup;
use crate::error::Result;

impl ApiRun<'_> {
    /// Before the write of the data file `cpath` with `--subfiling`: rank 0 of the file's
    /// communicator removes the subfiles and configuration file a kept (`HDF5_NOCLEANUP`)
    /// earlier file of this name left; the ranks agree on the outcome. Called only with
    /// the option, so no other run makes a new collective call.
    ///
    /// # Errors
    /// The removal's error, agreed by every rank of the step.
    pub(super) fn remove_subfiles(&mut self, cpath: &CString) -> Result<()> {
        let own = self.ctx.files.rank()? == 0 && crate::datadir::data_files::is_own(cpath);
        let res = if own {
            self.drv.remove_leftovers(&self.ctx, cpath)
        } else {
            Ok(())
        };
        agree(self.ctx.comm, res)
    }

    /// After the open of the write phase of `cpath` with `--subfiling`, outside every
    /// timer: the rank that removes the file (rank 0 of the file's communicator) reads
    /// the names of the subfiles and configuration file the driver made (from that
    /// configuration file) and registers them ([`cleanup::register_list`]), so that the
    /// signal handlers and the reaper remove them with the file. Nothing is registered
    /// for a file that is kept (`HDF5_NOCLEANUP`) or not the run's own. A configuration
    /// file that cannot be read registers nothing (its error is already among the
    /// settings in effect, `hdf5_subfiling_stripe_size`); local, no collective call, no
    /// error (a rank that cannot tell its rank registers nothing).
    pub(super) fn register_companions(&self, cpath: &CString) {
        let remover = matches!(self.ctx.files.rank(), Ok(0));
        if self.run.env.nocleanup || !remover || !self.watch.ours(cpath) {
            return;
        }
        if let Ok(files) = self.drv.companion_files(&self.ctx, cpath) {
            cleanup::register_list(&files);
        }
    }
}
