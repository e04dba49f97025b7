//! `--latency` (issue 31): the transfer loops of [`super::each_write`] and
//! [`super::each_read`] with every call timed into the phase's histogram, on paths of
//! their own so that the default loop is the one it was (`make bench-instr`).

use super::{after_error, plain_reads, plain_writes, Ctx, Transfers};
use crate::error::Result;
use crate::ffi::clock::{Clock, ClockKind, Monotonic, Tsc};
use crate::measure::latency::Tally;
use crate::measure::Histogram;

/// `--latency`: one call, `one()`, timed into `h` (ticks of the clock `C`): the clock
/// read before and after it, the difference counted ([`Tally::record`]). Failed calls
/// are counted too.
#[inline(always)]
fn clocked<C: Clock>(h: &mut Tally<'_>, one: impl FnOnce() -> Result<()>) -> Result<()> {
    let t0 = C::now();
    let r = one();
    h.record(C::now().saturating_sub(t0));
    // a fresh `Ok` is one store; passing `r` on copied the whole `Result` (10
    // instructions per transfer, `make bench-instr`)
    if r.is_ok() {
        Ok(())
    } else {
        r
    }
}

/// [`each_transfer`] with every `one(k)` timed into `t` (the clock `C` read before and
/// after), for the phases without `--stonewall` and `-D v`: the loop of its own keeps
/// the tally's minimum and maximum in registers and tests the error beacon inline
/// every `ctx.poll_every` transfers. After a failed transfer the remaining ones (with
/// `keep_going`) are made untimed.
#[inline(always)]
fn clocked_run<C: Clock>(
    ctx: &Ctx<'_>,
    n: u64,
    keep_going: bool,
    t: &mut Tally<'_>,
    mut one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    let (stop, every) = match ctx.stop {
        Some(stop) if !keep_going => (Some(stop), ctx.poll_every.max(1)),
        _ => (None, n),
    };
    let mut k = 0u64;
    loop {
        // runs of transfers between two tests of the beacon, as each_transfer
        let end = n.min(k.saturating_add(every));
        while k < end {
            let t0 = C::now();
            let r = one(k);
            t.record(C::now().saturating_sub(t0));
            k += 1;
            if let Err(e) = r {
                return after_error(e, k..n, keep_going, &mut one);
            }
        }
        if k >= n {
            return Ok(());
        }
        if let Some(stop) = stop {
            if stop.raised() {
                return Err(stop.stop_error());
            }
        }
    }
}

impl Transfers<'_> {
    /// [`each_write`] with `--latency`: each `one(k)` timed into `h` ([`clocked`]) with the
    /// clock of this machine ([`ClockKind::here`]). Out of line, so that the default loop is
    /// the one it was (`make bench-instr`, the latency rows).
    #[inline(never)]
    pub(super) fn clocked_writes(
        &mut self,
        ctx: &Ctx<'_>,
        h: &mut Histogram,
        mut one: impl FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        let x = self;
        let mut t = h.tally();
        let (n, keep_going) = (x.n, x.keep_going);
        // --stonewall and --random take their own loops, with each call clocked
        let res = match (x.wall.is_some() || x.order.is_some(), ClockKind::here()) {
            (false, ClockKind::Tsc) => clocked_run::<Tsc>(ctx, n, keep_going, &mut t, one),
            (false, ClockKind::Monotonic) => {
                clocked_run::<Monotonic>(ctx, n, keep_going, &mut t, one)
            }
            (true, ClockKind::Tsc) => plain_writes(ctx, x, |k| clocked::<Tsc>(&mut t, || one(k))),
            (true, ClockKind::Monotonic) => {
                plain_writes(ctx, x, |k| clocked::<Monotonic>(&mut t, || one(k)))
            }
        };
        let ends = t.finish();
        h.settle(ends);
        res
    }

    /// [`each_read`] with `--latency`, as [`clocked_writes`]; the check of `-D v` is not
    /// in the time.
    #[inline(never)]
    pub(super) fn clocked_reads<S>(
        &mut self,
        ctx: &Ctx<'_>,
        h: &mut Histogram,
        mut s: S,
        mut one: impl FnMut(&mut S, u64) -> Result<()>,
        data: impl Fn(&S) -> &[u8],
    ) -> Result<()> {
        let x = self;
        let mut t = h.tally();
        let (n, keep_going) = (x.n, x.keep_going);
        let plain = x.wall.is_none() && x.check.is_none() && x.order.is_none();
        let res = match (plain, ClockKind::here()) {
            (true, ClockKind::Tsc) => {
                clocked_run::<Tsc>(ctx, n, keep_going, &mut t, |k| one(&mut s, k))
            }
            (true, ClockKind::Monotonic) => {
                clocked_run::<Monotonic>(ctx, n, keep_going, &mut t, |k| one(&mut s, k))
            }
            (false, ClockKind::Tsc) => {
                plain_reads(ctx, x, s, |s, k| clocked::<Tsc>(&mut t, || one(s, k)), data)
            }
            (false, ClockKind::Monotonic) => plain_reads(
                ctx,
                x,
                s,
                |s, k| clocked::<Monotonic>(&mut t, || one(s, k)),
                data,
            ),
        };
        let ends = t.finish();
        h.settle(ends);
        res
    }
}
