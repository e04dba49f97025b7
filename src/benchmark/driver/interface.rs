//! The interface every I/O API implements (IOR's `aiori` table, as a trait): the
//! engine drives a file through [`Driver::open`] → [`Driver::begin_phase`] → for each
//! dataset ([`Driver::begin_dataset`] → [`Driver::write`] or [`Driver::read`] of its
//! [`Transfers`] → [`Driver::end_dataset`]) → [`Driver::end_phase`] → [`Driver::close`].
//! Everything a driver needs per transfer is prepared in `begin_*`, so that the transfer
//! loops only compute offsets and call the I/O library. Each driver has one write and one
//! read path; timed runs and `-D v` verification go through the same one.

use std::ffi::CString;
use std::path::PathBuf;

use crate::agreement::Beacon;
use crate::benchmark::order::Order;
use crate::benchmark::payload::Stamps;
use crate::config::Params;
use crate::error::{Error, Result};
use crate::ffi::mpi::{wtime, Comm, Info, Op};
use crate::ffi::posix::FileStat;
use crate::measure::timeseries::Series;
use crate::measure::Histogram;
use crate::pattern::Pattern;

mod clocked;

/// Read or write phase of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Create/truncate the file and write every dataset.
    Write,
    /// Open read-only and read every dataset back.
    Read,
}

/// What a driver needs to know about the current configuration.
pub struct Ctx<'a> {
    /// The run communicator (first N world ranks): agreements and collective transfers.
    pub comm: &'a Comm,
    /// The communicator the data file is opened on: `comm`, or this process alone
    /// (`MPI_COMM_SELF`) with `--file-per-process`.
    pub files: &'a Comm,
    /// `HDF5_MPI_INFO` as an info object (or `MPI_INFO_NULL`).
    pub info: &'a Info,
    /// The resolved parameters (spec §1.9); geometry and sizes come with the [`Pattern`].
    pub p: &'a Params,
    /// This rank's access pattern for the current (N, transfer size, API).
    pub pattern: Pattern,
    /// The error beacon of the communicator (`None` for one process), see [`each_transfer`].
    pub stop: Option<&'a Beacon>,
    /// Transfers between two tests of the beacon ([`poll_interval`]).
    pub poll_every: u64,
}

/// Bytes a rank moves between two tests of the error beacon ([`each_transfer`]): after
/// another rank raised it, a rank stops within this many bytes (or one transfer, if
/// larger) of the message's arrival. One test (`MPI_Test`, which also drives the MPI
/// library's progress engine) costs about 270–720 instructions (Open MPI 4.1, it
/// varies with the progress engine's state) or 460 (MPICH 4.0); every 8192nd 4 KiB
/// transfer that is 0.03–0.09 instructions per transfer, 0.1–0.3% of the 28 the POSIX
/// loop spends in user space (`make bench`, bench/instr, goal at most 1%; at 16 MiB
/// one MPICH run measured 0.85%). In time far less: the system call dominates.
pub const POLL_BYTES: u64 = 32 << 20;

/// Transfers between two tests of the error beacon for transfers of `xfer` bytes:
/// [`POLL_BYTES`] / `xfer`, at least 1.
pub fn poll_interval(xfer: u64) -> u64 {
    (POLL_BYTES / xfer.max(1)).max(1)
}

impl Ctx<'_> {
    /// Byte offset of dataset `d` (0-based) in raw POSIX/MPI-IO files, `d × D` (spec §6.1).
    pub fn dataset_base(&self, d: u64) -> u64 {
        d * self.pattern.dataset_bytes()
    }
}

/// One I/O API (POSIX, MPI-IO, PHDF5). All methods report failures as
/// [`crate::error::Error`]; the engine agrees on them across ranks.
pub trait Driver {
    /// Prepare a configuration, outside every timer (MPI-IO: build and commit the
    /// derived datatypes). Everything it made is released by the next `prepare` or
    /// when the driver is dropped.
    fn prepare(&mut self, ctx: &Ctx<'_>) -> Result<()> {
        let _ = ctx;
        Ok(())
    }
    /// Open `path` for `phase` (create/truncate for writing, read-only for reading).
    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Access) -> Result<()>;
    /// Prepare the phase: derived datatypes, dataspaces, transfer property lists (by
    /// default nothing).
    fn begin_phase(&mut self, ctx: &Ctx<'_>, phase: Access) -> Result<()> {
        let _ = (ctx, phase);
        Ok(())
    }
    /// Prepare dataset `d` (0-based): HDF5 creates or opens `Dataset_<d+1>`.
    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, phase: Access) -> Result<()>;
    /// Write the transfers `x` of the current dataset from `buf` with [`each_write`]
    /// (issue 18); returns the first error.
    fn write(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &[u8]) -> Result<()>;
    /// Read the transfers `x` of the current dataset into `buf` with [`each_read`]
    /// (calling `x.check` after each successful read); otherwise as [`Driver::write`].
    fn read(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &mut [u8]) -> Result<()>;
    /// Finish the current dataset (HDF5: `H5Dclose`; by default nothing).
    fn end_dataset(&mut self) -> Result<()> {
        Ok(())
    }
    /// Release what `begin_phase` made (by default nothing).
    fn end_phase(&mut self) -> Result<()> {
        Ok(())
    }
    /// `--fsync`: force what this process wrote to stable storage (collective for MPI-IO
    /// and PHDF5).
    fn sync(&mut self) -> Result<()>;
    /// Close the file (collective for MPI-IO and PHDF5); releases anything still open first.
    fn close(&mut self) -> Result<()>;
    /// Let go of an open file without the (collective) close, after an open that failed
    /// on other ranks. Returns true if a handle was abandoned. POSIX closes normally.
    fn abandon(&mut self) -> bool {
        // a local close: its error does not matter, the run is failing already
        let _ = self.close();
        false
    }
    /// Whether every transfer call is collective (all ranks must make every call).
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        let _ = ctx;
        false
    }
    /// Whether preparing and finishing a dataset are collective calls (HDF5).
    fn collective_datasets(&self) -> bool {
        false
    }
    /// Delete the file `path` (its bytes as a C string; called on one rank only); by
    /// default `MPI_File_delete`.
    fn remove(&mut self, ctx: &Ctx<'_>, path: &CString) -> Result<()> {
        crate::ffi::mpi::file_delete(path, ctx.info)
    }
    /// The MPI-IO hints in effect for the open file, as the MPI library reports them
    /// (`MPI_File_get_info`, local); `None` for an API without MPI-IO (POSIX) or no file.
    fn hints_in_effect(&self) -> Option<Result<Vec<(String, String)>>> {
        None
    }
    /// The settings HDF5 reported in effect for the options that set PHDF5 property lists
    /// (`--coll-metadata`, `--chunk-cache`, `--subfiling`), read back from the open file's and datasets'
    /// access lists during the phases, as (run fact, value), each distinct value once in
    /// the order seen; empty without those options or for another API.
    fn settings_in_effect(&self) -> &[(String, String)] {
        &[]
    }
    /// Before the write phase, on rank 0 of the file's communicator, when an own file
    /// of an earlier run is at `path`: remove what it left beside it that removing the
    /// name would not (PHDF5 with `--subfiling`: the subfiles and configuration file of
    /// a file kept by `HDF5_NOCLEANUP`, which the new file's would collide with when the
    /// file system gives it the same inode); by default nothing. Errors: `unlink`'s.
    fn remove_leftovers(&mut self, ctx: &Ctx<'_>, path: &CString) -> Result<()> {
        let _ = (ctx, path);
        Ok(())
    }
    /// The files the library made beside the file `path` just created that removing its
    /// name does not remove, in the order to remove them (PHDF5 with `--subfiling`: the
    /// subfiles, then their configuration file, as that file names them); empty by
    /// default. Read outside every timer by the rank that removes the file, so that the
    /// signal handlers and the reaper remove them too. Errors: reading the
    /// configuration file (`stat`, `read`, or a file h5perf cannot parse).
    fn companion_files(&self, ctx: &Ctx<'_>, path: &CString) -> Result<Vec<PathBuf>> {
        let _ = (ctx, path);
        Ok(Vec::new())
    }
    /// Whether the library also holds files of its own open beside the data file, so
    /// that a file this process opened during the open is no sign that the data file
    /// changed (PHDF5 with `--subfiling`: a rank that runs an I/O concentrator holds its
    /// subfile, and not always the file at the data file's name); false by default.
    fn holds_companions(&self) -> bool {
        false
    }
    /// Note what the library chose for the file `path` just opened, outside every timer
    /// (rank 0; by default nothing): PHDF5 with `--subfiling` reads the driver's
    /// configuration file ([`Driver::settings_in_effect`]).
    fn after_open(&mut self, path: &CString) {
        let _ = path;
    }
    /// The open file as this process's own descriptor shows it (POSIX); `None` when the
    /// MPI or HDF5 library holds the file.
    fn open_file_stat(&self) -> Option<Result<FileStat>> {
        None
    }
}

/// A check of the data of one read transfer (`-D v`), called after each successful read
/// with the transfer number (0-based) and the transfer buffer; it records what it
/// finds, without formatting (it runs inside the raw-read timer).
pub type ReadCheck<'a> = &'a mut dyn FnMut(u64, &[u8]);

/// The transfers of one dataset in one phase, as [`Driver::write`] and [`Driver::read`]
/// make them (spec §5.2, §7).
pub struct Transfers<'a> {
    /// Transfers `0..n` of the dataset, in order.
    pub n: u64,
    /// After a failed transfer, still make the remaining ones (collective transfers).
    pub keep_going: bool,
    /// `-D v`: the check after each read ([`ReadCheck`]); `None` for writes and for
    /// reads without verification.
    pub check: Option<ReadCheck<'a>>,
    /// `--stonewall`: the phase's deadline and counts ([`Wall`]); `None` without it.
    pub wall: Option<&'a mut Wall>,
    /// `--payload`: where each written transfer's bytes come from ([`Stamps::at`]);
    /// `None`: the transfer buffer, as the C tool. A driver takes it once per dataset
    /// and writes on a path of its own, so the default path is untouched.
    pub source: Option<Stamps<'a>>,
    /// `--latency`: the phase's histogram of transfer-call times in clock ticks
    /// ([`crate::ffi::clock`]); `None` without it. [`each_write`] and [`each_read`] then
    /// time each call on a path of their own (`clocked_writes`, `clocked_reads`).
    pub lat: Option<&'a mut Histogram>,
    /// `--timeseries`: the phase's bytes per interval ([`Series`]); `None` without it.
    /// [`each_write`] and [`each_read`] then count each completed transfer on a path of
    /// their own (`sampled_writes`, `sampled_reads`).
    pub series: Option<&'a mut Series>,
    /// `--random`: the `k`-th call makes transfer `order.at(k)` ([`Order`]); `None`: in
    /// order. [`each_write`] and [`each_read`] take it on a path of its own.
    pub order: Option<Order>,
}

/// The instruments of one dataset's timed loop, each `None` when its option is off: the
/// loop then takes the default path of [`each_write`]/[`each_read`] and they cost nothing
/// (`make bench-instr`).
#[derive(Default)]
pub struct Instruments<'a> {
    /// `--stonewall`: the phase's deadline and counts ([`Wall`]).
    pub wall: Option<&'a mut Wall>,
    /// `--latency`: the phase's histogram of transfer-call times in clock ticks.
    pub lat: Option<&'a mut Histogram>,
    /// `--timeseries`: the phase's bytes per interval ([`Series`]).
    pub series: Option<&'a mut Series>,
    /// `--random`: the order of the transfers ([`Order`]).
    pub order: Option<Order>,
}

/// The timed write loop of one dataset: transfers `0..n` from `buf`, or from `source`
/// with `--payload` (spec §5.2, §7), with the instruments `inst`, [`Driver::write`].
/// Returns the first error.
///
/// Never inlined: `make bench` counts the instructions spent in it (callgrind's
/// `--toggle-collect=*timed_writes*`), so it holds exactly the timed loop.
#[inline(never)]
pub fn timed_writes(
    drv: &mut dyn Driver,
    ctx: &Ctx<'_>,
    n: u64,
    buf: &[u8],
    source: Option<Stamps<'_>>,
    inst: Instruments<'_>,
) -> Result<()> {
    let keep_going = drv.collective_transfers(ctx);
    let Instruments {
        wall,
        lat,
        series,
        order,
    } = inst;
    let mut x = Transfers {
        n,
        keep_going,
        check: None,
        wall,
        source,
        lat,
        series,
        order,
    };
    drv.write(ctx, &mut x, buf)
}

/// The timed read loop of one dataset: transfers `0..n` into `buf`, each followed by
/// `check` when given (`-D v`, inside the raw-read timer, spec §8.1), with the
/// instruments `inst`, [`Driver::read`]: the same read path with or without the check.
/// Never inlined, as [`timed_writes`].
#[inline(never)]
pub fn timed_reads<'a>(
    drv: &mut dyn Driver,
    ctx: &Ctx<'_>,
    n: u64,
    buf: &mut [u8],
    check: Option<ReadCheck<'a>>,
    inst: Instruments<'a>,
) -> Result<()> {
    let keep_going = drv.collective_transfers(ctx);
    let Instruments {
        wall,
        lat,
        series,
        order,
    } = inst;
    let mut x = Transfers {
        n,
        keep_going,
        check,
        wall,
        source: None,
        lat,
        series,
        order,
    };
    drv.read(ctx, &mut x, buf)
}

/// The write loop of a driver: `one(k)` writes transfer `k`, for the transfers `x`
/// ([`each_transfer`]).
#[inline(always)]
pub fn each_write(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    if x.lat.is_some() || x.order.is_some() || x.wall.is_some() || x.series.is_some() {
        return instrumented_writes(ctx, x, one);
    }
    each_transfer(ctx, x.n, x.keep_going, one)
}

/// [`each_write`] with an instrument (`--latency`, `--timeseries`, `--random`, `--stonewall`): one
/// out-of-line path for all of them, so that the default loop keeps its registers
/// (`make bench-instr`: two instruments' branches in the default loop's function cost it
/// 2 instructions per transfer).
#[inline(never)]
fn instrumented_writes(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    if let Some(s) = x.series.take() {
        return x.sampled_writes(ctx, s, one);
    }
    if let Some(h) = x.lat.take() {
        return x.clocked_writes(ctx, h, one);
    }
    plain_writes(ctx, x, one)
}

/// [`each_write`] without `--latency`.
#[inline(always)]
fn plain_writes(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    if let Some(order) = x.order {
        return permuted_writes(ctx, x, order, one);
    }
    match x.wall.as_deref_mut() {
        None => each_transfer(ctx, x.n, x.keep_going, one),
        Some(w) => walled(ctx, x.n, x.keep_going, w, one),
    }
}

/// [`each_write`] with `--random`: the `k`-th call writes transfer `order.at(k)`; every
/// rank makes the same number of calls as in order (collective transfers stay matched).
/// Out of line, so that the ordered loop keeps its registers (`make bench-instr`).
#[inline(never)]
fn permuted_writes(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    order: Order,
    mut one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    let mapped = |k| one(order.at(k));
    match x.wall.as_deref_mut() {
        None => each_transfer(ctx, x.n, x.keep_going, mapped),
        Some(w) => walled(ctx, x.n, x.keep_going, w, mapped),
    }
}

/// [`each_read`] with `--random`: the `k`-th call reads transfer `j = order.at(k)`, and
/// `-D v` checks it as transfer `j`. Out of line, as [`permuted_writes`].
#[inline(never)]
fn permuted_reads<S>(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    order: Order,
    mut s: S,
    mut one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
) -> Result<()> {
    let (n, keep_going) = (x.n, x.keep_going);
    let mut check = x.check.as_mut();
    let mut mapped = |k: u64| {
        let j = order.at(k);
        one(&mut s, j)?;
        if let Some(c) = check.as_mut() {
            c(j, data(&s));
        }
        Ok(())
    };
    match x.wall.as_deref_mut() {
        None => each_transfer(ctx, n, keep_going, &mut mapped),
        Some(w) => walled(ctx, n, keep_going, w, &mut mapped),
    }
}

/// The read loop of a driver: `one(s, k)` reads transfer `k` into the driver's read
/// state `s` (the buffer, or what holds it), for the transfers `x` ([`each_transfer`]);
/// with `x.check` (`-D v`) each successful read is followed by the check of `data(s)`,
/// the transfer buffer. The same `one` serves both: the check is added around it, not
/// a second way of reading.
#[inline(always)]
pub fn each_read<S>(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    s: S,
    one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
) -> Result<()> {
    if x.lat.is_some()
        || x.order.is_some()
        || x.wall.is_some()
        || x.check.is_some()
        || x.series.is_some()
    {
        return instrumented_reads(ctx, x, s, one, data);
    }
    let mut s = s;
    let mut one = one;
    each_transfer(
        ctx,
        x.n,
        x.keep_going,
        #[inline(always)]
        move |k| one(&mut s, k),
    )
}

/// [`each_read`] with an instrument or the check of `-D v`, out of line as
/// [`instrumented_writes`].
#[inline(never)]
fn instrumented_reads<S>(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    s: S,
    one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
) -> Result<()> {
    if let Some(series) = x.series.take() {
        return x.sampled_reads(ctx, series, s, one, data);
    }
    if let Some(h) = x.lat.take() {
        return x.clocked_reads(ctx, h, s, one, data);
    }
    plain_reads(ctx, x, s, one, data)
}

/// [`each_read`] without `--latency`.
#[inline(always)]
fn plain_reads<S>(
    ctx: &Ctx<'_>,
    x: &mut Transfers<'_>,
    mut s: S,
    mut one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
) -> Result<()> {
    if let Some(order) = x.order {
        return permuted_reads(ctx, x, order, s, one, data);
    }
    if let Some(w) = x.wall.as_deref_mut() {
        return walled_reads(
            ctx,
            x.n,
            x.keep_going,
            w,
            &mut s,
            one,
            data,
            x.check.as_mut(),
        );
    }
    match x.check.as_mut() {
        None => each_transfer(
            ctx,
            x.n,
            x.keep_going,
            #[inline(always)]
            move |k| one(&mut s, k),
        ),
        Some(check) => checked_reads(ctx, x.n, x.keep_going, &mut s, one, data, &mut **check),
    }
}

/// [`each_read`] with the check: `one(s, k)`, then `check(k, data(s))`, for each `k`.
/// Out of line, so that the unchecked loop keeps the registers it had alone.
#[inline(never)]
fn checked_reads<S: ?Sized>(
    ctx: &Ctx<'_>,
    n: u64,
    keep_going: bool,
    s: &mut S,
    mut one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
    check: &mut dyn FnMut(u64, &[u8]),
) -> Result<()> {
    each_transfer(ctx, n, keep_going, |k| {
        one(s, k)?;
        check(k, data(s));
        Ok(())
    })
}

/// Run `one(k)` for `k` in `0..n`, in order; the first error is returned, after the
/// remaining calls when `keep_going`, else at once (error handling out of line, issue 18).
/// With `ctx.stop`, the error beacon is tested every `ctx.poll_every` transfers (issue
/// 12); a raised beacon stops the loop with [`Error::Stopped`].
#[inline(always)]
pub fn each_transfer(
    ctx: &Ctx<'_>,
    n: u64,
    keep_going: bool,
    mut one: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    match ctx.stop {
        Some(stop) if !keep_going => {
            let every = ctx.poll_every.max(1);
            let mut k = 0u64;
            loop {
                let end = n.min(k.saturating_add(every));
                transfer_run(&mut one, k, end, n, false)?;
                k = end;
                if k >= n {
                    return Ok(());
                }
                if stop.raised() {
                    return Err(stop.stop_error());
                }
            }
        }
        _ => {
            // one process or collective transfers: the plain loop, inline
            for k in 0..n {
                if let Err(e) = one(k) {
                    return after_error(e, k + 1..n, keep_going, &mut one);
                }
            }
            Ok(())
        }
    }
}

/// Transfers `from..to` of [`each_transfer`] (of `n`) between two tests of the beacon,
/// out of line so that its registers are its own (inline cost POSIX one spilled register).
#[inline(never)]
fn transfer_run<F: FnMut(u64) -> Result<()>>(
    one: &mut F,
    from: u64,
    to: u64,
    n: u64,
    keep_going: bool,
) -> Result<()> {
    for k in from..to {
        if let Err(e) = one(k) {
            return after_error(e, k + 1..n, keep_going, one);
        }
    }
    Ok(())
}

/// The rest of [`each_transfer`] after the error `e`: transfers `rest` when
/// `keep_going`, then `e`.
#[cold]
#[inline(never)]
fn after_error(
    e: Error,
    rest: std::ops::Range<u64>,
    keep_going: bool,
    one: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<()> {
    if keep_going {
        for k in rest {
            let _ = one(k);
        }
    }
    Err(e)
}

/// How long a rank transfers between two looks at the clock under `--stonewall`, at
/// most, seconds ([`walled`]). The number of transfers between two looks is this time
/// over the last measured time per transfer, and never more than is left before the
/// deadline, so a rank with steady transfers stops within one transfer of the deadline
/// and a slow one (one transfer per look) exactly after the transfer that crossed it.
/// One look (`MPI_Wtime`, a few divisions) costs about 100 instructions; at 4 KiB
/// transfers from the page cache (about 1 µs) that is 0.01 instruction per transfer
/// (`make bench-instr`, the stonewall rows).
pub const WALL_LOOK_SECONDS: f64 = 0.01;

/// The stonewall of one phase on this rank (issue 28), carried across its datasets.
/// Times are `MPI_Wtime` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wall {
    /// The phase's start.
    pub start: f64,
    /// No transfer starts at or after this time: `start` + `--stonewall`.
    pub deadline: f64,
    /// Transfers of the phase this rank may make at most (the read phase: those that
    /// were written; else `u64::MAX`).
    pub limit: u64,
    /// Transfers made so far in the phase (every dataset).
    pub done: u64,
    /// Transfers made in the current dataset (set by each loop).
    pub in_dataset: u64,
    /// Wear-out: make the transfers `in_dataset..target` of the current dataset, without
    /// deadline ([`walled`]); set by the engine after agreeing on the target.
    pub target: Option<u64>,
    /// Whether the deadline stopped this rank (with collective transfers: agreed).
    pub stopped: bool,
    /// When it stopped, or when its last transfer before any wear-out ended.
    pub stop_at: f64,
    /// Seconds spent in wear-out transfers.
    pub wear_out: f64,
}

impl Wall {
    /// The stonewall of a phase starting at `start` with `seconds` to go, at most
    /// `limit` transfers.
    pub fn new(start: f64, seconds: f64, limit: u64) -> Wall {
        Wall {
            start,
            deadline: start + seconds,
            limit,
            done: 0,
            in_dataset: 0,
            target: None,
            stopped: false,
            stop_at: start,
            wear_out: 0.0,
        }
    }
}

/// [`each_read`] under `--stonewall`: [`walled`] with the read and its check.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn walled_reads<S>(
    ctx: &Ctx<'_>,
    n: u64,
    keep_going: bool,
    w: &mut Wall,
    s: &mut S,
    mut one: impl FnMut(&mut S, u64) -> Result<()>,
    data: impl Fn(&S) -> &[u8],
    check: Option<&mut ReadCheck<'_>>,
) -> Result<()> {
    match check {
        None => walled(ctx, n, keep_going, w, |k| one(s, k)),
        Some(check) => walled(ctx, n, keep_going, w, |k| {
            one(s, k)?;
            check(k, data(s));
            Ok(())
        }),
    }
}

/// The transfers of one dataset under `--stonewall` (issue 28): `one(k)` from `k = 0`
/// while the deadline has not passed and the phase's [`Wall::limit`] allows; or, with
/// [`Wall::target`] set (wear-out), the transfers `in_dataset..target` without deadline.
///
/// With collective transfers (`together`) every transfer is preceded by an
/// `MPI_Allreduce` of "my deadline has passed" (maximum): the ranks stop before the same
/// transfer, so none is left inside a collective call (hpc/ior #210), and no transfer
/// starts after any rank's deadline; a failed transfer is kept and the rest made, as
/// [`each_transfer`]. Independent transfers look at the clock after runs of transfers
/// ([`WALL_LOOK_SECONDS`]) and test the error beacon there.
#[inline(never)]
pub fn walled<F: FnMut(u64) -> Result<()>>(
    ctx: &Ctx<'_>,
    n: u64,
    together: bool,
    w: &mut Wall,
    mut one: F,
) -> Result<()> {
    if let Some(target) = w.target {
        let (from, to) = (w.in_dataset, target.min(n));
        let t0 = wtime();
        let res = transfer_run(&mut one, from, to, to, together);
        w.wear_out += wtime() - t0;
        w.in_dataset = to;
        w.done += to.saturating_sub(from);
        return res;
    }
    let todo = n.min(w.limit.saturating_sub(w.done));
    let mut k = 0u64;
    let res = if together {
        walled_together(ctx, todo, w, &mut one, &mut k)
    } else {
        walled_alone(ctx, todo, w, &mut one, &mut k)
    };
    w.in_dataset = k;
    w.done += k;
    res
}

/// The collective part of [`walled`]: one agreement before each transfer.
fn walled_together(
    ctx: &Ctx<'_>,
    todo: u64,
    w: &mut Wall,
    one: &mut dyn FnMut(u64) -> Result<()>,
    k: &mut u64,
) -> Result<()> {
    let mut first = Ok(());
    while *k < todo && !w.stopped {
        let now = wtime();
        if ctx
            .comm
            .allreduce_u64(u64::from(now >= w.deadline), Op::Max)?
            != 0
        {
            w.stopped = true;
            w.stop_at = now;
            break;
        }
        if let Err(e) = one(*k) {
            if first.is_ok() {
                first = Err(e);
            }
        }
        *k += 1;
        w.stop_at = wtime();
    }
    first
}

/// The independent part of [`walled`]: runs of transfers between looks at the clock.
fn walled_alone<F: FnMut(u64) -> Result<()>>(
    ctx: &Ctx<'_>,
    todo: u64,
    w: &mut Wall,
    one: &mut F,
    k: &mut u64,
) -> Result<()> {
    let every = ctx.poll_every.max(1);
    let mut run = 1u64;
    let mut since_poll = 0u64;
    let mut t = wtime();
    while *k < todo && !w.stopped {
        if t >= w.deadline {
            w.stopped = true;
            w.stop_at = t;
            break;
        }
        let end = todo.min(*k + run);
        transfer_run(one, *k, end, todo, false)?;
        let now = wtime();
        let per = (now - t) / (end - *k) as f64;
        since_poll += end - *k;
        *k = end;
        t = now;
        w.stop_at = now;
        if let (Some(stop), true) = (ctx.stop, since_poll >= every) {
            since_poll = 0;
            if stop.raised() {
                return Err(stop.stop_error());
            }
        }
        // as many transfers as fit in the look interval and before the deadline
        let left = (w.deadline - now).min(WALL_LOOK_SECONDS);
        run = if per > 0.0 {
            (left / per) as u64
        } else {
            every
        }
        .clamp(1, every);
    }
    Ok(())
}
