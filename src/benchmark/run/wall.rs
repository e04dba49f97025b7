//! The `--stonewall` bookkeeping of [`ApiRun`] (issue 28): the phase's figures agreed
//! after it, the transfers the read phase may make, and the counts file.

use std::ffi::CString;

use super::super::driver::Access;
use super::super::stonewall;
use super::ApiRun;
use crate::error::Result;
use crate::measure::Counts;

impl ApiRun<'_> {
    /// `--stonewall`: agree on what every rank did in the phase just ended (outside every
    /// timer) and add it to the figures; after a write phase, learn how many transfers
    /// the read phase may make (those of the rank whose part this rank reads). Returns
    /// the bytes all ranks moved in the phase (`None` without `--stonewall`).
    pub(super) fn phase_figures(&mut self, phase: Access) -> Result<Option<u64>> {
        let (Some(w), Some(figs)) = (self.wall.take(), self.figures.as_mut()) else {
            return Ok(None);
        };
        let fig = &mut figs[usize::from(phase == Access::Read)];
        let (comm, pat) = (self.ctx.comm, &self.ctx.pattern);
        let (bytes, all) = stonewall::phase_figures(comm, self.rank, pat, &w, fig, self.iteration)?;
        if phase == Access::Write {
            self.written = all;
            self.read_limit = self.limit_of(&self.written, u64::MAX);
        }
        Ok(Some(bytes))
    }

    /// The transfers of the rank whose part this rank reads among `counts` (`missing`
    /// when there is no such entry).
    fn limit_of(&self, counts: &[u64], missing: u64) -> u64 {
        counts
            .get(self.step.reader_of as usize)
            .copied()
            .unwrap_or(missing)
    }

    /// The counts file's content for this configuration with `counts`.
    pub(super) fn counts(&self, counts: Vec<u64>) -> Counts {
        stonewall::counts_of(self.api, &self.write_pattern, self.run.p.num_dsets, counts)
    }

    /// `--read-only --stonewall`: the counts file beside the data file `cpath`, checked
    /// ([`stonewall::load_counts`]); this rank then reads as many transfers as the rank
    /// whose part it reads wrote. Collective; errors agreed.
    pub(super) fn load_counts(&mut self, cpath: &CString) -> Result<()> {
        let want = self.counts(Vec::new());
        let collective = self.drv.collective_transfers(&self.ctx);
        let c = stonewall::load_counts(self.ctx.comm, self.rank, cpath, &want, collective)?;
        self.read_limit = self.limit_of(&c.counts, 0);
        Ok(())
    }
}
