//! What a run gives back ([`RunOutcome`]) and what its caller adds to it ([`Hooks`]).

use crate::config::Api;
use crate::error::Result;
use crate::measure::Record;

/// What a whole run produced on this rank.
#[derive(Debug, Default, Clone)]
pub struct RunOutcome {
    /// Bytes that this rank read back wrong with `-D v` (0 without verification).
    pub wrong_bytes: u64,
    /// One record per (processes, transfer size, API) this rank took part in, in run
    /// order; rank 0 of the communicator takes part in all of them.
    pub records: Vec<Record>,
    /// Seconds this rank spent in the per-iteration gathering of every rank's times
    /// ([`Hooks::gather`]), outside every timer; 0 without it.
    pub gather_seconds: f64,
    /// With hints given (`HDF5_MPI_INFO`, `--mpi-info`): on rank 0, the MPI-IO hints in
    /// effect after each file open (MPI-IO, PHDF5), each distinct set once per API, in the
    /// order seen; empty otherwise.
    pub hints: Vec<(Api, Vec<(String, String)>)>,
    /// With `--coll-metadata` or `--chunk-cache`: on rank 0, the settings HDF5 reported
    /// in effect ([`Driver::settings_in_effect`](super::super::driver::Driver::settings_in_effect)) as run facts, distinct values
    /// of one fact joined by ` | ` in the order seen; empty otherwise.
    pub settings: Vec<(String, String)>,
}

/// A finished (processes, transfer size) step, as [`Hooks::on_step`] sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepDone {
    /// Processes of the step.
    pub nprocs: u32,
    /// Transfer size of the step, bytes.
    pub xfer_size: u64,
    /// Wall-clock time of the step (all its APIs and iterations), seconds, on rank 0.
    pub seconds: f64,
}

/// The callback type of [`Hooks::on_step`]: the finished step and every record this
/// rank holds so far (rank 0: all of them).
pub type OnStep<'a> = dyn FnMut(&StepDone, &[Record]) -> Result<()> + 'a;

/// What the caller of [`run`](super::run) adds to a run: per-rank gathering and a callback after
/// each (processes, transfer size) step.
pub struct Hooks<'a> {
    /// Gather every rank's times on rank 0 after each iteration (outside every timer),
    /// filling [`Record::samples`] and [`Record::extremes`] on rank 0.
    pub gather: bool,
    /// Called on every rank of the step's communicator after each step, outside every
    /// timer; its result is agreed on by those ranks (an error on one ends the run).
    pub on_step: &'a mut OnStep<'a>,
}

/// Add `value` of the run fact `fact` to `settings` ([`RunOutcome::settings`]): a new
/// fact, or a value not yet seen joined to the fact's after ` | `.
pub(super) fn add_setting(settings: &mut Vec<(String, String)>, fact: &str, value: &str) {
    match settings.iter_mut().find(|(k, _)| k == fact) {
        Some((_, v)) if v.split(" | ").any(|x| x == value) => {}
        Some((_, v)) => {
            v.push_str(" | ");
            v.push_str(value);
        }
        None => settings.push((fact.to_string(), value.to_string())),
    }
}
