//! How the ranks settle the outcome of a file's phase and of an open, so that no rank
//! is left in a collective call when another failed.

use super::super::driver::{Ctx, Driver};
use crate::agreement::{agree, agree_with};
use crate::error::Result;
use crate::ffi::mpi::Comm;

/// After agreement `agreed`: if it failed, settle the error beacon (collective: every
/// rank has the same failed agreement), so no beacon message is left in flight.
pub(super) fn settle_beacon(ctx: &Ctx<'_>, agreed: Result<()>) -> Result<()> {
    if let (Err(_), Some(b)) = (&agreed, ctx.stop) {
        let settled = b.settle();
        return agreed.and(settled);
    }
    agreed
}

/// Agree on an open. If it failed somewhere, ranks whose (collective) open succeeded
/// hold a file only a collective close could release; they let go of it
/// ([`Driver::abandon`]) and the error becomes fatal (the job is aborted after the
/// message), since waiting for ranks that have no file would hang.
pub(super) fn settle_open(drv: &mut dyn Driver, comm: &Comm, opened: Result<()>) -> Result<()> {
    if let Err(e) = agree(comm, opened) {
        let stranded = drv.abandon();
        agree_with(comm, Err(e), stranded)?;
    }
    Ok(())
}
