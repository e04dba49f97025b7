//! The run loops (spec §3) and the per-iteration engine (spec §5.2, §7, §8). Every step
//! that can fail on one rank ends at an agreement point ([`agree()`]).

use std::ffi::CString;
use std::path::Path;

use super::driver::interface::Instruments;
use super::driver::interface::Wall;
use super::driver::{self, poll_interval, timed_writes, Access, Ctx, Driver};
use super::explain::{explain, Why};
use super::file_watch::FileWatch;
use super::latency::LatencyRun;
use super::layout::measures;
pub(super) use super::layout::pattern;
use super::order::Order;
use super::payload::{first_position, Pool, Stamps};
use super::stonewall::{self, write_counts};
use super::storage::{drop_caches, Node};
use super::timeseries::SeriesRun;
use super::verify::{report_mismatches, verified_reads, Expect, Mismatch};
use crate::agreement::{agree, Beacon};
use crate::config::{Api, Params, Reorder};
use crate::datadir::cleanup::{self, Slot};
use crate::datadir::{data_file_name, leftovers, rank_file_name, RunEnv};
use crate::error::{path_text, Error, Result};
use crate::ffi::mem::AlignedBuf;
use crate::ffi::mpi::{wtime, Comm, Info, Op};
use crate::measure::{ApiResults, FileCall, IterStat, Record, Times, WallFigures, COUNT};
use crate::output::report;
use crate::output::sink::Sink;
use crate::pattern::Pattern;
use crate::terms::doing::{self, Doing};

mod series;
mod settle;
mod subfiles;
use settle::{settle_beacon, settle_open};
mod outcome;
mod wall;
use outcome::add_setting;
pub use outcome::{Hooks, OnStep, RunOutcome, StepDone};

/// Run the whole benchmark on `world` (spec §3) with data files in `dir` (from
/// [`crate::datadir::data_dir_checked`]). Collective over `world` (`MPI_COMM_WORLD`
/// for the program, any communicator for the C API); its rank 0 prints the headers and
/// results to `out`. `hooks` adds the per-rank gathering and the step callback.
///
/// Errors: any failure on any rank (the callback's included), agreed on by all ranks.
pub fn run(
    p: &Params,
    world: &Comm,
    info: &Info,
    env: &RunEnv,
    dir: &Path,
    out: &Sink,
    hooks: &mut Hooks<'_>,
) -> Result<RunOutcome> {
    let run = Run {
        p,
        info,
        env,
        dir,
        out,
        gather: hooks.gather,
        hints: !info.pairs().is_empty() || p.conditions,
    };
    let wrank = world.rank()?;
    let mut outcome = RunOutcome::default();
    for n in p.proc_counts() {
        let sub = world.split(wrank < n, wrank)?;
        let step = match &sub {
            Some(comm) => {
                let r = run.step(comm, n, &mut outcome, &mut *hooks.on_step);
                agree(comm, r)
            }
            None => Ok(()),
        };
        drop(sub);
        agree(world, step)?;
    }
    Ok(outcome)
}

/// What every step of a run shares, read-only.
struct Run<'a> {
    p: &'a Params,
    /// `HDF5_MPI_INFO` as an info object (or `MPI_INFO_NULL`).
    info: &'a Info,
    /// The run environment (`HDF5_NOCLEANUP`).
    env: &'a RunEnv,
    /// The data directory (empty: the current directory).
    dir: &'a Path,
    /// The report: headers and results from rank 0, traces from every rank.
    out: &'a Sink,
    gather: bool,
    /// Read the hints in effect after each open (hints were given, or `--conditions`).
    hints: bool,
}

impl Run<'_> {
    /// What a failed file operation's message is completed from ([`explain`]).
    fn why(&self) -> Why<'_> {
        Why {
            hints: self.info.pairs(),
            dir: self.dir,
        }
    }

    /// One process-count step on `comm` (`n` processes): every transfer size, and for
    /// each every API, with one transfer buffer per transfer size.
    fn step(
        &self,
        comm: &Comm,
        n: u32,
        outcome: &mut RunOutcome,
        on_step: &mut OnStep<'_>,
    ) -> Result<()> {
        let (p, out) = (self.p, self.out);
        let rank = comm.rank()?;
        if rank == 0 {
            out.write(&report::procs_header(n));
        }
        // --drop-caches and the default shift of --reorder need the nodes (outside timers)
        let st = &p.storage;
        let node = if st.drop_caches || st.reorder == Some(Reorder::ByNode) {
            Some(Node::of(comm)?)
        } else {
            None
        };
        let shift = st.read_shift(n, node.map_or(n, |x| x.on_node0));
        let step = Step {
            node,
            // --reorder: this rank reads the part of rank (r + shift) mod n
            reader_of: ((u64::from(rank) + shift) % u64::from(n)) as u32,
        };
        // the error beacon of independent transfers (issue 12): one per step, made and
        // released outside every timer; not needed by one process
        let beacon = if n > 1 { Some(Beacon::new(comm)) } else { None };
        agree(
            comm,
            beacon
                .as_ref()
                .map_or(Ok(()), |b| b.as_ref().map(|_| ()).map_err(Clone::clone)),
        )?;
        let beacon = beacon.transpose()?;
        // --file-per-process: each rank opens its own files alone (MPI_COMM_SELF), a
        // communicator made once per step, outside every timer
        let own = p.file_per_process.then(Comm::self_dup);
        agree(
            comm,
            own.as_ref()
                .map_or(Ok(()), |c| c.as_ref().map(|_| ()).map_err(Clone::clone)),
        )?;
        let own = own.transpose()?;
        let files = own.as_ref().unwrap_or(comm);
        for buf in p.buf_sizes() {
            doing::set_step(Doing::BetweenPhases, n, buf);
            let t0 = wtime();
            let pattern_for = |api: Api| pattern(p, n, rank, buf, api);
            let any = pattern_for(Api::Posix);
            if rank == 0 {
                let header = match any {
                    Pattern::D1(q) => report::xfer_header_1d(buf, q.dataset_bytes(), p),
                    Pattern::D2(q) => report::xfer_header_2d(&q, p),
                };
                out.write(&header);
            }
            // one page-aligned transfer buffer per configuration, outside every timer
            let alloc = AlignedBuf::new(any.buf_bytes());
            let alloc_res = alloc.as_ref().map(|_| ()).map_err(Clone::clone);
            agree(comm, alloc_res)?;
            let mut tbuf = alloc?;
            // --payload: the seeded pool of this configuration, outside every timer
            let pool = if p.payload.on() {
                let share = any.transfers() * any.buf_bytes();
                let span = p.num_files * p.num_dsets * u64::from(n) * share;
                let made = Pool::new(p.payload.kind, p.seed, span, any.buf_bytes());
                agree(comm, made.as_ref().map(|_| ()).map_err(Clone::clone))?;
                Some(made?)
            } else {
                None
            };
            let mut pool = pool;
            for api in p.apis.iter() {
                if rank == 0 {
                    out.write(&report::api_header(api, p.subfiling));
                }
                let ctx = Ctx {
                    comm,
                    files,
                    info: self.info,
                    p,
                    pattern: pattern_for(api),
                    stop: beacon.as_ref(),
                    poll_every: poll_interval(any.buf_bytes()),
                };
                let read_pattern = pattern(p, n, step.reader_of, buf, api);
                // the driver and its datatypes are released when the iterations end
                let bufs = (tbuf.as_mut_slice(), pool.as_mut());
                let mut a = ApiRun::new(self, &step, api, ctx, read_pattern, bufs)?;
                let results =
                    a.iterations(&mut outcome.wrong_bytes, &mut outcome.gather_seconds)?;
                for h in a.hints.drain(..) {
                    if !outcome.hints.iter().any(|(x, s)| *x == api && *s == h) {
                        outcome.hints.push((api, h));
                    }
                }
                // outside every timer: what HDF5 reported during the phases
                for (fact, value) in a.drv.settings_in_effect() {
                    add_setting(&mut outcome.settings, fact, value);
                }
                drop(a);
                let record =
                    Record::from_api_results(n, buf, any.buf_bytes(), api, !p.write_only, &results);
                if rank == 0 {
                    out.write(&report::api_results(p, &record, &results));
                }
                outcome.records.push(record);
            }
            let done = StepDone {
                nprocs: n,
                xfer_size: buf,
                seconds: wtime() - t0,
            };
            let stepped = on_step(&done, &outcome.records).and_then(|()| out.status());
            agree(comm, stepped)?;
        }
        Ok(())
    }
}

/// What the storage options need in one process-count step.
struct Step {
    /// This process's node, with `--drop-caches` or the default `--reorder`.
    node: Option<Node>,
    /// The rank whose part this rank reads: itself, or `(r + SHIFT) mod N` with
    /// `--reorder`.
    reader_of: u32,
}

/// The state of one API's iterations for the current (N, transfer size).
struct ApiRun<'a> {
    run: &'a Run<'a>,
    api: Api,
    /// The driver's context, with this rank's pattern of the current phase.
    ctx: Ctx<'a>,
    step: &'a Step,
    write_pattern: Pattern,
    /// With `--reorder`, the part of the rank this rank reads.
    read_pattern: Pattern,
    drv: Box<dyn Driver>,
    /// The transfer buffer, page-aligned, made once per (N, transfer size).
    buf: &'a mut [u8],
    /// `--payload`: the seeded bytes written (and expected back), made once per (N,
    /// transfer size).
    pool: Option<&'a mut Pool>,
    /// The current data file, 1-based (the payload's positions).
    file: u64,
    /// Processes of the step.
    nprocs: u32,
    rank: u32,
    /// The byte this rank writes with `-D v`: rank + 1, wrapping.
    rank_byte: u8,
    /// The byte this rank expects back with `-D v`: that of the rank whose part it
    /// reads (itself unless `--reorder`).
    read_byte: u8,
    /// The current iteration's accumulated times (spec §8.1).
    t: Times,
    /// Verification findings of the current file, reported after its phases.
    mismatches: Vec<Mismatch>,
    /// What this rank knows of the current data file (checked outside the timers).
    watch: FileWatch,
    /// `--stonewall`: the current phase's deadline and counts.
    wall: Option<Wall>,
    /// `--stonewall`: the figures of the write and read phases so far.
    figures: Option<[WallFigures; 2]>,
    /// The current iteration (0-based).
    iteration: usize,
    /// `--stonewall`: transfers the read phase may make (those the rank whose part this
    /// rank reads wrote; `u64::MAX` until known).
    read_limit: u64,
    /// `--stonewall`: the transfers every rank made in the last write phase.
    written: Vec<u64>,
    /// Rank 0 with hints given: the distinct hint sets in effect after the opens.
    hints: Vec<Vec<(String, String)>>,
    /// `--latency`: the transfer calls' times, merged after each iteration.
    lat: Option<LatencyRun>,
    /// `--timeseries`: the bytes per interval of the current phase, gathered after it.
    series: Option<SeriesRun>,
}

impl<'a> ApiRun<'a> {
    fn new(
        run: &'a Run<'a>,
        step: &'a Step,
        api: Api,
        ctx: Ctx<'a>,
        read_pattern: Pattern,
        (buf, pool): (&'a mut [u8], Option<&'a mut Pool>),
    ) -> Result<Self> {
        let rank = ctx.comm.rank()?;
        let nprocs = ctx.comm.size()?;
        Ok(ApiRun {
            run,
            api,
            write_pattern: ctx.pattern,
            ctx,
            step,
            read_pattern,
            drv: driver::new_driver(api),
            buf,
            pool,
            file: 1,
            nprocs,
            rank,
            rank_byte: (rank as u8).wrapping_add(1),
            read_byte: (step.reader_of as u8).wrapping_add(1),
            t: [0.0; COUNT],
            mismatches: Vec::with_capacity(64),
            watch: FileWatch::new(api != Api::Posix),
            wall: None,
            figures: None,
            iteration: 0,
            read_limit: u64::MAX,
            written: Vec::new(),
            hints: Vec::new(),
            lat: run.p.latency.then(LatencyRun::new),
            series: run.p.timeseries.map(SeriesRun::new),
        })
    }

    /// All iterations of the API (spec §5.2, §8.2); adds to `wrong_bytes` and
    /// `gather_seconds`.
    fn iterations(
        &mut self,
        wrong_bytes: &mut u64,
        gather_seconds: &mut f64,
    ) -> Result<ApiResults> {
        let Run {
            p, env, dir, out, ..
        } = *self.run;
        let comm = self.ctx.comm;
        let rank = self.rank;
        // per-configuration set-up (MPI datatypes), outside every timer
        agree(comm, self.drv.prepare(&self.ctx))?;
        let mut stats: Vec<Vec<IterStat>> = (0..COUNT)
            .map(|_| Vec::with_capacity(p.num_iters as usize))
            .collect();
        let mut per_rank = Vec::new();
        self.figures = p.stonewall.seconds().map(|s| {
            let planned = p.num_dsets * self.ctx.pattern.transfers();
            [(); 2].map(|()| WallFigures::new(s, planned))
        });
        for iteration in 0..p.num_iters {
            self.iteration = iteration as usize;
            comm.barrier()?;
            if p.debug.level >= 4 && rank == 0 {
                out.write("Timer details:\n");
            }
            self.t = [0.0; COUNT];
            for f in 1..=p.num_files {
                let suffix = self.api.suffix();
                // --file-per-process: this rank's own file, and the one it reads (that
                // of the rank whose part it reads); the lengths were checked up front
                let (name, read_name) = if p.file_per_process {
                    let of = |r: u32| rank_file_name(dir, f, r, suffix);
                    (of(rank)?, of(self.step.reader_of)?)
                } else {
                    let name = data_file_name(dir, f, suffix)?;
                    (name.clone(), name)
                };
                let cpath = crate::ffi::posix::c_path(&name)?;
                let read_cpath = crate::ffi::posix::c_path(&read_name)?;
                // the name as message text (non-UTF-8 bytes escaped), for the report
                let path = path_text(name.as_os_str());
                let read_path = path_text(read_name.as_os_str());
                // never removed: the files of a --read-only run are not its own
                let keep = env.nocleanup || p.storage.read_only;
                if !keep {
                    // removed by the signal handlers if the job is interrupted
                    cleanup::register(Slot::Data, &name);
                }
                self.file = f;
                let res = self.one_file((&path, &cpath), (&read_path, &read_cpath));
                // Success or agreed failure, no rank holds the file open any more (the
                // phase closes it after a data error; a failed open was abandoned), so the
                // same barrier and removal serve both: a failed run leaves no file either.
                // a failed report write of any rank ends the run here too
                let agreed = agree(comm, res.and_then(|()| out.status()));
                if agreed.is_ok() {
                    let pat = &self.read_pattern;
                    *wrong_bytes += report_mismatches(
                        rank,
                        pat,
                        &read_path,
                        self.api,
                        &mut self.mismatches,
                        out,
                    );
                }
                comm.barrier()?;
                // rank 0 of the file's communicator (every rank with --file-per-process)
                let remover = self.ctx.files.rank()? == 0;
                let removed = if remover && !keep && self.watch.ours(&cpath) {
                    leftovers::removal_outcome(self.drv.remove(&self.ctx, &cpath), &name)
                } else {
                    Ok(())
                };
                cleanup::unregister(Slot::Data);
                if p.subfiling {
                    cleanup::unregister(Slot::Subfiles);
                }
                // a file that cannot be removed is named (after the run's own error)
                let removed = agree(comm, removed);
                if let (Err(a), Err(b)) = (&agreed, &removed) {
                    if !matches!(a, Error::Fatal(_)) {
                        return Err(Error::Remote(format!("{a}; {b}")));
                    }
                }
                agreed?;
                removed?;
            }
            let mut mx = [0.0; COUNT];
            let mut mn = [0.0; COUNT];
            let mut sm = [0.0; COUNT];
            comm.allreduce_f64(&self.t, &mut mx, Op::Max)?;
            comm.allreduce_f64(&self.t, &mut mn, Op::Min)?;
            comm.allreduce_f64(&self.t, &mut sm, Op::Sum)?;
            for i in 0..COUNT {
                stats[i].push(IterStat {
                    min: mn[i],
                    max: mx[i],
                    sum: sm[i],
                });
            }
            if let Some(l) = self.lat.as_mut() {
                l.merge(comm, rank)?;
            }
            if self.run.gather {
                // every rank's own times to rank 0, after the iteration's timers
                let g0 = wtime();
                let all = comm.gather_f64(0, &self.t)?;
                *gather_seconds += wtime() - g0;
                if rank == 0 {
                    per_rank.push(all);
                }
            }
        }
        let dset = self.ctx.pattern.dataset_bytes();
        // --file-per-process: one file per rank and file index, each of one rank's part
        let per_index = if p.file_per_process {
            u64::from(self.nprocs)
        } else {
            1
        };
        Ok(ApiResults {
            stats,
            bytes: p.num_files * p.num_dsets * dset * per_index,
            iters: p.num_iters,
            files: p.num_files,
            per_rank,
            wall: self.figures.take(),
            latency: self.lat.as_ref().map(LatencyRun::figures),
            file_latency: self.lat.as_ref().map(LatencyRun::file_figures),
            timeseries: self.series_phases(),
        })
    }

    /// Write (and unless `-w` read back) one file, timed as spec §8.1 says: the file
    /// `(path, cpath)` (its name as text and as bytes) is written, `read` is read (the
    /// same file, or with `--file-per-process --reorder` another rank's own file).
    fn one_file(&mut self, (path, cpath): (&str, &CString), read: (&str, &CString)) -> Result<()> {
        let Run { p, out, .. } = *self.run;
        let (comm, files) = (self.ctx.comm, self.ctx.files);
        let rank = self.rank;
        if p.debug.level >= 1 {
            out.write(&format!("rank {rank}: data filename={path}\n"));
            if read.1 != cpath {
                out.write(&format!("rank {rank}: read filename={}\n", read.0));
            }
        }
        self.watch.reset();
        if !p.storage.read_only {
            if p.debug.verify {
                self.buf.fill(self.rank_byte);
            }
            if p.debug.level >= 4 {
                out.write(&self.write_pattern.trace(rank));
            }
            if p.subfiling {
                self.remove_subfiles(cpath)?;
            }
            self.watch.before_write(comm, files, cpath)?;
            doing::set(Doing::Writing);
            comm.barrier()?;
            self.ctx.pattern = self.write_pattern;
            self.timed_phase(cpath, Access::Write)?;
            self.gather_series(Access::Write)?;
            doing::set(Doing::BetweenPhases);
            // with --stonewall, the bytes all ranks moved (distinct bytes of the file);
            // compressed datasets (--deflate) may take less room than their data
            let moved = self.phase_figures(Access::Write)?;
            // and with --subfiling the data is in the subfiles, the file a stub
            let data = match (self.api, p.deflate, moved) {
                (Api::Phdf5, Some(_), _) => 0,
                (Api::Phdf5, _, _) if p.subfiling => 0,
                (_, _, Some(moved)) => moved,
                _ => p.num_dsets * self.write_pattern.dataset_bytes(),
            };
            self.watch.after_write(comm, files, cpath, data)?;
            if self.run.env.nocleanup {
                let res = match (rank, p.stonewall.millis) {
                    (0, Some(_)) => write_counts(cpath, &self.counts(self.written.clone())),
                    (0, None) => stonewall::remove_counts(cpath),
                    _ => Ok(()),
                };
                agree(comm, res)?;
            }
        } else if p.stonewall.millis.is_some() {
            self.load_counts(cpath)?;
        }
        if p.write_only {
            return Ok(());
        }
        if let (true, Some(node)) = (p.storage.drop_caches, &self.step.node) {
            // the file this rank wrote and the one it reads (--reorder, --file-per-process)
            let files = [cpath.as_c_str(), read.1.as_c_str()];
            let n = if read.1 == cpath { 1 } else { 2 };
            drop_caches(comm, node, &files[..n])?;
        }
        if p.debug.level >= 4 {
            out.write(&self.read_pattern.trace(rank));
        }
        let rpath = read.1;
        if rpath != cpath {
            self.watch.forget_written();
        }
        self.watch.before_read(comm, rpath)?;
        doing::set(Doing::Reading);
        comm.barrier()?;
        self.ctx.pattern = self.read_pattern;
        self.timed_phase(rpath, Access::Read)?;
        self.gather_series(Access::Read)?;
        self.phase_figures(Access::Read)?;
        doing::set(Doing::BetweenPhases);
        self.watch.after_read(comm, rpath)
    }

    /// One phase of one file between the timer stamps of spec §8.1; the check of the
    /// opened file ([`FileWatch::after_open`]) is left out of every timer.
    fn timed_phase(&mut self, cpath: &CString, phase: Access) -> Result<()> {
        let m = measures(phase);
        let [open, fine, gross, close] =
            [m.open, m.fine.timer(), m.gross.timer(), m.close].map(|x| x as usize);
        let comm = self.ctx.comm;
        let g0 = wtime();
        self.wall = self.run.p.stonewall.seconds().map(|s| {
            let limit = match phase {
                Access::Write => u64::MAX,
                Access::Read => self.read_limit,
            };
            Wall::new(g0, s, limit)
        });
        let opened = LatencyRun::time(self.lat.as_mut(), phase, FileCall::Open, || {
            self.drv.open(&self.ctx, cpath, phase)
        });
        let opened = explain(&self.run.why(), self.api, phase, true, opened);
        settle_open(&mut *self.drv, comm, opened)?;
        let g1 = wtime();
        self.t[open] += g1 - g0;
        let checked = self
            .watch
            .after_open(comm, self.ctx.files, cpath, phase, &*self.drv);
        if self.run.hints && self.rank == 0 {
            // local and outside the timers; a library that cannot tell records nothing
            if let Some(Ok(h)) = self.drv.hints_in_effect() {
                if !self.hints.contains(&h) {
                    self.hints.push(h);
                }
            }
        }
        if self.rank == 0 {
            self.drv.after_open(cpath);
        }
        if self.run.p.subfiling && phase == Access::Write {
            self.register_companions(cpath);
        }
        let (g1, untimed) = {
            let c = wtime();
            (c, c - g1)
        };
        if let Err(e) = checked {
            // every rank knows (agreed): close the file collectively, nothing transferred
            let _ = self.drv.close();
            return Err(e);
        }
        self.begin_series();
        let res = self.data_phase(phase);
        let res = match m.sync {
            Some(sync) if self.run.p.storage.fsync => {
                // every rank syncs, even after a failed transfer: the call is collective
                let s0 = wtime();
                let synced =
                    LatencyRun::time(self.lat.as_mut(), phase, FileCall::Sync, || self.drv.sync());
                self.t[sync as usize] += wtime() - s0;
                res.and(synced)
            }
            _ => res,
        };
        let g2 = wtime();
        self.t[fine] += g2 - g1;
        let cres = LatencyRun::time(self.lat.as_mut(), phase, FileCall::Close, || {
            self.drv.close()
        });
        let g3 = wtime();
        self.t[gross] += g3 - g0 - untimed;
        self.t[close] += g3 - g2;
        let res = explain(&self.run.why(), self.api, phase, false, res.and(cres));
        settle_beacon(&self.ctx, agree(comm, res))
    }

    /// The data phase of one file (spec §5.2, §7), returning the first error. A failure
    /// never leaves other ranks in a collective call (issue 27, step 7): collective
    /// transfers keep going; with collective transfers or datasets the ranks agree after
    /// the phase's and each dataset's preparation (carrying the previous dataset's
    /// result; the last is agreed after the close); otherwise the beacon is raised.
    fn data_phase(&mut self, phase: Access) -> Result<()> {
        let ApiRun {
            run,
            api,
            ctx,
            drv,
            buf,
            pool,
            read_byte,
            t,
            mismatches,
            wall,
            lat,
            series,
            ..
        } = self;
        let mut lat = lat.as_mut().map(|l| l.of(phase));
        let mut series = series.as_mut().map(SeriesRun::series);
        let (ctx, drv, buf, read_byte, api) = (&*ctx, &mut **drv, &mut **buf, *read_byte, *api);
        let n = ctx.pattern.transfers();
        // --payload: the rank whose bytes this phase moves, and its share of a dataset
        let writer = match phase {
            Access::Write => self.rank,
            Access::Read => self.step.reader_of,
        };
        let (file, nprocs) = (self.file, u64::from(self.nprocs));
        // --random: this phase's transfers in a seeded order, keyed per dataset below
        let random = match phase {
            Access::Write => run.p.random.write,
            Access::Read => run.p.random.read,
        };
        let (seed, me) = (run.p.seed, self.rank);
        let share = n * ctx.pattern.buf_bytes();
        let verify = phase == Access::Read && run.p.debug.verify;
        let coll_xfer = drv.collective_transfers(ctx);
        // --wear-out agrees on each dataset's transfers: every rank makes the same calls
        let wear = run.p.stonewall.wear_out && !coll_xfer && wall.is_some();
        let sync = coll_xfer || drv.collective_datasets() || wear;
        let raw = measures(phase).raw.timer() as usize;
        // a failure tells the ranks still transferring independently to stop (issue 12)
        let raise = |r: &Result<()>| {
            if let (Err(e), Some(b), false) = (r, ctx.stop, coll_xfer) {
                if *e != Error::Stopped {
                    b.raise();
                }
            }
        };
        let settle = |r: Result<()>, together: bool| {
            raise(&r);
            if together {
                settle_beacon(ctx, agree(ctx.comm, r))
            } else {
                r
            }
        };
        settle(drv.begin_phase(ctx, phase), sync)?;
        // the previous dataset's result, agreed with the next dataset's preparation
        let mut carried = Ok(());
        let why = run.why();
        for d in 0..ctx.p.num_dsets {
            let began = drv.begin_dataset(ctx, d, phase);
            let before = explain(
                &why,
                api,
                phase,
                false,
                std::mem::replace(&mut carried, Ok(())),
            );
            settle(before.and(began), sync)?;
            let at = first_position(file, ctx.p.num_dsets, d, nprocs, u64::from(writer), share);
            let order = random.then(|| Order::new(n, seed, me, file, d, phase == Access::Read));
            // this dataset's instruments, with the stonewall `$wall`
            macro_rules! instruments {
                ($wall:expr) => {
                    Instruments {
                        wall: $wall,
                        lat: lat.as_deref_mut(),
                        series: series.as_deref_mut(),
                        order,
                    }
                };
            }
            let (r0, mut first) = match phase {
                Access::Write => {
                    let src = pool.as_deref_mut().map(|pl| Stamps::new(pl, at));
                    let inst = instruments!(wall.as_mut());
                    let r0 = wtime();
                    (r0, timed_writes(drv, ctx, n, buf, src, inst))
                }
                Access::Read => {
                    let expect = Expect::of(verify, pool.as_deref_mut(), at, writer, read_byte);
                    let inst = instruments!(wall.as_mut());
                    verified_reads(drv, ctx, n, buf, inst, expect, d, mismatches)
                }
            };
            if let (true, Some(w)) = (wear, wall.as_mut()) {
                // every rank, failed or not: the most transfers a rank made of this dataset
                let most = ctx.comm.allreduce_u64(w.in_dataset, Op::Max)?;
                if first.is_ok() && w.in_dataset < most {
                    w.target = Some(most);
                    // the same bytes as a first pass would have written at these transfers
                    first = match phase {
                        Access::Write => {
                            let src = pool.as_deref_mut().map(|pl| Stamps::new(pl, at));
                            timed_writes(drv, ctx, n, buf, src, instruments!(Some(&mut *w)))
                        }
                        Access::Read => {
                            let pl = pool.as_deref_mut();
                            let expect = Expect::of(verify, pl, at, writer, read_byte);
                            let inst = instruments!(Some(&mut *w));
                            verified_reads(drv, ctx, n, buf, inst, expect, d, mismatches).1
                        }
                    };
                    w.target = None;
                }
            }
            t[raw] += wtime() - r0;
            let done = first.and(drv.end_dataset());
            if sync {
                // explained when agreed: with the next dataset, or after the close
                raise(&done);
                carried = done;
            } else {
                settle(explain(&why, api, phase, false, done), false)?;
            }
        }
        carried.and(drv.end_phase())
    }
}
