//! `--latency` (issue 31): the transfer loops of [`super::each_write`] and
//! [`super::each_read`] with every call timed into the phase's histogram, on paths of
//! their own so that the default loop is the one it was (`make bench-instr`); and
//! `--timeseries`: every completed transfer counted into the phase's [`Series`] at one
//! clock read.

use super::{after_error, plain_reads, plain_writes, Ctx, Transfers};
use crate::error::Result;
use crate::ffi::clock::{Clock, ClockKind, Monotonic, Tsc};
use crate::measure::latency::Tally;
use crate::measure::timeseries::{Cursor, Series};
use crate::measure::Histogram;

/// `--timeseries`: the bytes of transfer `k` of `n` of a dataset: the transfer buffer's,
/// the last one what is left of the rank's bytes of the dataset.
#[inline(always)]
fn transfer_bytes(ctx: &Ctx<'_>, n: u64) -> impl Fn(u64) -> u64 {
    let b = ctx.pattern.buf_bytes();
    let last = ctx
        .pattern
        .rank_bytes()
        .saturating_sub(n.saturating_sub(1).saturating_mul(b))
        .min(b);
    move |k| if k + 1 >= n { last } else { b }
}

/// `--timeseries`: `one(k)`, then on success its bytes counted into `s` at the clock
/// `C`'s reading (one read per transfer).
#[inline(always)]
fn sampled<C: Clock>(
    s: &mut Cursor<'_>,
    bytes: u64,
    one: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let r = one();
    if r.is_ok() {
        s.record(C::now(), bytes);
        // a fresh `Ok`, as [`clocked`]
        Ok(())
    } else {
        r
    }
}

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

    /// [`each_write`] with `--timeseries`: each completed `one(k)` counted into `s`
    /// ([`sampled`]) with the clock of this machine, then the loop it would have been
    /// without the option (`--latency`'s, or the other instruments'). Out of line.
    #[inline(never)]
    pub(super) fn sampled_writes(
        &mut self,
        ctx: &Ctx<'_>,
        s: &mut Series,
        mut one: impl FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        let bytes = transfer_bytes(ctx, self.n);
        let mut c = s.cursor();
        let res = match ClockKind::here() {
            ClockKind::Tsc => self.writes_after_sampling(
                ctx,
                #[inline(always)]
                |k| sampled::<Tsc>(&mut c, bytes(k), || one(k)),
            ),
            ClockKind::Monotonic => self.writes_after_sampling(
                ctx,
                #[inline(always)]
                |k| sampled::<Monotonic>(&mut c, bytes(k), || one(k)),
            ),
        };
        c.finish();
        res
    }

    /// The loop of [`each_write`] without `--timeseries`.
    #[inline(always)]
    fn writes_after_sampling(
        &mut self,
        ctx: &Ctx<'_>,
        one: impl FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        match self.lat.take() {
            Some(h) => self.clocked_writes(ctx, h, one),
            None => plain_writes(ctx, self, one),
        }
    }

    /// [`each_read`] with `--timeseries`, as [`Transfers::sampled_writes`].
    #[inline(never)]
    pub(super) fn sampled_reads<S>(
        &mut self,
        ctx: &Ctx<'_>,
        series: &mut Series,
        st: S,
        mut one: impl FnMut(&mut S, u64) -> Result<()>,
        data: impl Fn(&S) -> &[u8],
    ) -> Result<()> {
        let bytes = transfer_bytes(ctx, self.n);
        let mut c = series.cursor();
        let res = match ClockKind::here() {
            ClockKind::Tsc => self.reads_after_sampling(
                ctx,
                st,
                #[inline(always)]
                |s: &mut S, k| sampled::<Tsc>(&mut c, bytes(k), || one(s, k)),
                data,
            ),
            ClockKind::Monotonic => self.reads_after_sampling(
                ctx,
                st,
                #[inline(always)]
                |s: &mut S, k| sampled::<Monotonic>(&mut c, bytes(k), || one(s, k)),
                data,
            ),
        };
        c.finish();
        res
    }

    /// The loop of [`each_read`] without `--timeseries`.
    #[inline(always)]
    fn reads_after_sampling<S>(
        &mut self,
        ctx: &Ctx<'_>,
        st: S,
        one: impl FnMut(&mut S, u64) -> Result<()>,
        data: impl Fn(&S) -> &[u8],
    ) -> Result<()> {
        match self.lat.take() {
            Some(h) => self.clocked_reads(ctx, h, st, one, data),
            None => plain_reads(ctx, self, st, one, data),
        }
    }
}
