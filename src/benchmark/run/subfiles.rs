//! `--subfiling`'s step of [`ApiRun`]: a kept file's subfiles removed before it is written
//! again (the driver names subfiles after the stub's inode, which a new stub may reuse).

use std::ffi::CString;

use super::ApiRun;
use crate::agreement::agree;
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
}
