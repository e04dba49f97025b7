//! `--timeseries`'s step of [`ApiRun`]: the samples of a phase gathered after it.

use super::super::driver::Access;
use super::ApiRun;
use crate::error::Result;
use crate::measure::timeseries::PhaseSeries;

impl ApiRun<'_> {
    /// `--timeseries`: start counting the phase about to begin (its first interval starts
    /// now). Nothing without it.
    pub(super) fn begin_series(&mut self) {
        if let Some(s) = self.series.as_mut() {
            s.begin();
        }
    }

    /// `--timeseries`: the samples of every phase gathered so far (empty without it).
    pub(super) fn series_phases(&self) -> Vec<PhaseSeries> {
        self.series.as_ref().map(|s| s.phases()).unwrap_or_default()
    }

    /// `--timeseries`: after `phase` (agreed, outside every timer), rank 0 gathers every
    /// rank's bytes per interval ([`super::SeriesRun::gather`], collective). Nothing
    /// without it.
    ///
    /// # Errors
    /// An MPI error of the gather.
    pub(super) fn gather_series(&mut self, phase: Access) -> Result<()> {
        let (comm, rank, it, file) = (self.ctx.comm, self.rank, self.iteration, self.file);
        match self.series.as_mut() {
            Some(s) => s.gather(comm, rank, it as u32, file, phase),
            None => Ok(()),
        }
    }
}
