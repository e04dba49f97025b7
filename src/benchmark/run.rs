//! The run loops (spec §3) and the per-iteration engine (spec §5.2, §7, §8): process
//! counts over sub-communicators, transfer sizes, APIs, iterations, files, datasets and
//! transfers; timers; reduction; verification; failure agreement.
//!
//! Failure agreement: every step that can fail on one rank ends at an agreement point
//! ([`agree`]) where all ranks of the communicator learn whether any rank failed and
//! leave together with the first failing rank's message. Ranks outside a
//! sub-communicator meet the others at the world-level agreement after each
//! process-count step, so no rank is left waiting in a collective call.

use std::ffi::CString;

use super::driver::{self, Access, Ctx, Driver};
use super::verify::{find_mismatch, report_mismatches, Mismatch};
use crate::error::{Error, Result};
use crate::ffi::mem::AlignedBuf;
use crate::ffi::mpi::{wtime, Comm, Info, Op};
use crate::config::{Api, Params};
use crate::pattern::{Pattern, Pattern1D, Pattern2D};
use crate::output::report;
use crate::services::{agree, agree_with, data_file_name, RunEnv, Sink};
use crate::measure::Record;
use crate::measure::{ApiResults, IterStat, Timer, Times, COUNT};

/// What a whole run produced on this rank.
#[derive(Debug, Default, Clone)]
pub struct RunOutcome {
    /// Bytes that this rank read back wrong with `-D v` (0 without verification).
    pub wrong_bytes: u64,
    /// One record per (processes, transfer size, API) this rank took part in, in run
    /// order; rank 0 of the communicator takes part in all of them.
    pub records: Vec<Record>,
}

/// Run the whole benchmark on `world` (spec §3) with data files in `dir` (from
/// [`data_dir_checked`]). Collective over `world` (`MPI_COMM_WORLD` for the
/// program, any communicator for the C API); its rank 0 prints the headers and
/// results to `out`.
///
/// Errors: any failure on any rank, agreed on by all ranks.
pub fn run(
    p: &Params,
    world: &Comm,
    info: &Info,
    env: &RunEnv,
    dir: &str,
    out: &Sink,
) -> Result<RunOutcome> {
    let wrank = world.rank()?;
    let mut outcome = RunOutcome::default();
    for n in p.proc_counts() {
        let sub = world.split(wrank < n, wrank)?;
        let step = match &sub {
            Some(comm) => {
                let r = run_step(p, comm, n, info, env, dir, out, &mut outcome);
                agree(comm, r)
            }
            None => Ok(()),
        };
        drop(sub);
        agree(world, step)?;
    }
    Ok(outcome)
}

#[allow(clippy::too_many_arguments)]
fn run_step(
    p: &Params,
    comm: &Comm,
    n: u32,
    info: &Info,
    env: &RunEnv,
    dir: &str,
    out: &Sink,
    outcome: &mut RunOutcome,
) -> Result<()> {
    let rank = comm.rank()?;
    if rank == 0 {
        out.write(&report::procs_header(n))?;
    }
    for buf in p.buf_sizes() {
        let pattern_for = |api: Api| pattern(p, n, rank, buf, api);
        let any = pattern_for(Api::Posix);
        if rank == 0 {
            let header = match any {
                Pattern::D1(q) => report::xfer_header_1d(buf, q.dataset_bytes(), p),
                Pattern::D2(q) => report::xfer_header_2d(&q, p),
            };
            out.write(&header)?;
        }
        // one page-aligned transfer buffer per configuration, outside every timer
        let alloc = AlignedBuf::new(any.buf_bytes());
        let alloc_res = alloc.as_ref().map(|_| ()).map_err(Clone::clone);
        agree(comm, alloc_res)?;
        let mut tbuf = alloc?;
        for api in p.apis.iter() {
            if rank == 0 {
                out.write(&report::api_header(api))?;
            }
            let ctx = Ctx {
                comm,
                info,
                params: p,
                pattern: pattern_for(api),
            };
            let results = run_api(api, &ctx, tbuf.as_mut_slice(), env, dir, out, outcome)?;
            if rank == 0 {
                out.write(&report::api_results(p, &results))?;
            }
            outcome.records.push(Record::from_api_results(
                n,
                buf,
                any.buf_bytes(),
                api,
                !p.write_only,
                &results,
            ));
        }
    }
    Ok(())
}

/// The access pattern of `rank` for `n` processes, transfer size `buf` and `api`
/// (the chunked raw-file layout of 2D applies to POSIX and MPI-IO only, spec §6.4).
pub fn pattern(p: &Params, n: u32, rank: u32, buf: u64, api: Api) -> Pattern {
    if p.dim2d {
        Pattern::D2(Pattern2D {
            bpp: p.num_bytes,
            buf,
            blk: p.blk_size,
            nprocs: u64::from(n),
            rank: u64::from(rank),
            interleaved: p.interleaved,
            chunked: p.chunk && api != Api::Phdf5,
        })
    } else {
        Pattern::D1(Pattern1D {
            bpp: p.num_bytes,
            buf,
            blk: p.blk_size,
            nprocs: u64::from(n),
            rank: u64::from(rank),
            interleaved: p.interleaved,
        })
    }
}

/// All iterations of one API for the current (N, transfer size).
fn run_api(
    api: Api,
    ctx: &Ctx<'_>,
    buf: &mut [u8],
    env: &RunEnv,
    dir: &str,
    out: &Sink,
    outcome: &mut RunOutcome,
) -> Result<ApiResults> {
    let p = ctx.params;
    let comm = ctx.comm;
    let rank = comm.rank()?;
    let mut drv = driver::new_driver(api);
    // per-configuration set-up (MPI datatypes), outside every timer
    agree(comm, drv.prepare(ctx))?;
    let mut stats: Vec<Vec<IterStat>> = (0..COUNT)
        .map(|_| Vec::with_capacity(p.num_iters as usize))
        .collect();
    let mut mismatches: Vec<Mismatch> = Vec::with_capacity(64);
    let rank_byte = (rank as u8).wrapping_add(1);
    for it in 0..p.num_iters {
        let _ = it;
        comm.barrier()?;
        if p.debug.level >= 4 && rank == 0 {
            out.write("Timer details:\n")?;
        }
        let mut t: Times = [0.0; COUNT];
        for f in 1..=p.num_files {
            let path = data_file_name(dir, f, api.suffix())?;
            let cpath = CString::new(path.clone()).map_err(|_| {
                Error::Other(format!("data file name contains a NUL byte: {path:?}"))
            })?;
            if !env.nocleanup {
                // removed by the signal handlers if the job is interrupted
                crate::ffi::signals::set_current(&path);
            }
            let res = one_file(
                &mut *drv,
                ctx,
                &path,
                &cpath,
                buf,
                rank_byte,
                &mut t,
                out,
                &mut mismatches,
            );
            // Success or agreed failure, no rank holds the file open any more (the
            // phase closes it after a data error; a failed open was abandoned), so the
            // same barrier and removal serve both: a failed run leaves no file either.
            let agreed = agree(comm, res);
            if agreed.is_ok() {
                outcome.wrong_bytes +=
                    report_mismatches(rank, &ctx.pattern, &path, api, &mut mismatches, out)?;
            }
            comm.barrier()?;
            if rank == 0 && !env.nocleanup {
                // a failed removal only leaves a file behind; the next run truncates it
                let _ = drv.remove(ctx, &path);
            }
            crate::ffi::signals::clear_current();
            agreed?;
        }
        let mut mx = [0.0; COUNT];
        let mut mn = [0.0; COUNT];
        let mut sm = [0.0; COUNT];
        comm.allreduce_f64(&t, &mut mx, Op::Max)?;
        comm.allreduce_f64(&t, &mut mn, Op::Min)?;
        comm.allreduce_f64(&t, &mut sm, Op::Sum)?;
        for i in 0..COUNT {
            stats[i].push(IterStat {
                min: mn[i],
                max: mx[i],
                sum: sm[i],
            });
        }
    }
    let dset = ctx.pattern.dataset_bytes();
    Ok(ApiResults {
        stats,
        bytes: p.num_files * p.num_dsets * dset,
        iters: p.num_iters,
        files: p.num_files,
    })
}

/// Write (and unless `-w` read back) one file, accumulating into `t` exactly as spec
/// §8.1 says: barrier → gross start → open → fine start → datasets (raw timers around
/// the transfer loops) → fine stop → close → gross stop.
#[allow(clippy::too_many_arguments)]
fn one_file(
    drv: &mut dyn Driver,
    ctx: &Ctx<'_>,
    path: &str,
    cpath: &CString,
    buf: &mut [u8],
    rank_byte: u8,
    t: &mut Times,
    out: &Sink,
    mismatches: &mut Vec<Mismatch>,
) -> Result<()> {
    let p = ctx.params;
    let comm = ctx.comm;
    let rank = comm.rank()?;
    let pat = ctx.pattern;
    let trace = pat.trace(rank);
    if p.debug.level >= 1 {
        out.write(&format!("rank {rank}: data filename={path}\n"))?;
    }
    if p.debug.verify {
        buf.fill(rank_byte);
    }
    if p.debug.level >= 4 {
        out.write(&trace)?;
    }
    comm.barrier()?;

    timed_phase(drv, ctx, cpath, Access::Write, buf, rank_byte, t, mismatches)?;
    if p.write_only {
        return Ok(());
    }
    if p.debug.level >= 4 {
        out.write(&trace)?;
    }
    comm.barrier()?;
    timed_phase(drv, ctx, cpath, Access::Read, buf, rank_byte, t, mismatches)
}

/// One phase of one file between the timer stamps of spec §8.1: gross start → open →
/// fine start → datasets → fine stop → close → gross stop, accumulating the phase's
/// open, fine, gross and close times into `t` (raw times are added by [`data_phase`]).
#[allow(clippy::too_many_arguments)]
fn timed_phase(
    drv: &mut dyn Driver,
    ctx: &Ctx<'_>,
    cpath: &CString,
    phase: Access,
    buf: &mut [u8],
    rank_byte: u8,
    t: &mut Times,
    mismatches: &mut Vec<Mismatch>,
) -> Result<()> {
    let [open, fine, gross, close] = match phase {
        Access::Write => [
            Timer::WriteOpen,
            Timer::WriteFine,
            Timer::WriteGross,
            Timer::WriteClose,
        ],
        Access::Read => [
            Timer::ReadOpen,
            Timer::ReadFine,
            Timer::ReadGross,
            Timer::ReadClose,
        ],
    }
    .map(|x| x as usize);
    let g0 = wtime();
    let opened = drv.open(ctx, cpath, phase);
    settle_open(drv, ctx.comm, opened)?;
    let g1 = wtime();
    t[open] += g1 - g0;
    let res = data_phase(drv, ctx, phase, buf, rank_byte, t, mismatches);
    let g2 = wtime();
    t[fine] += g2 - g1;
    let cres = drv.close();
    let g3 = wtime();
    t[gross] += g3 - g0;
    t[close] += g3 - g2;
    agree(ctx.comm, res.and(cres))
}

/// Agree on an open. If it failed somewhere, ranks whose (collective) open succeeded
/// hold a file only a collective close could release; they let go of it
/// ([`Driver::abandon`]) and the error becomes fatal (the job is aborted after the
/// message), since waiting for ranks that have no file would hang.
fn settle_open(drv: &mut dyn Driver, comm: &Comm, opened: Result<()>) -> Result<()> {
    if let Err(e) = agree(comm, opened) {
        let stranded = drv.abandon();
        agree_with(comm, Err(e), stranded)?;
    }
    Ok(())
}

/// The data phase of one file (spec §5.2, §7): for each dataset, prepare it, run the
/// transfer loop between the raw-timer stamps (verifying after each read with `-D v`),
/// finish it. Returns the first error.
///
/// So that a failure on one rank never leaves the others in a collective call: when
/// the transfers are collective, a failing rank keeps making the remaining transfer
/// calls of the dataset (ignoring their results); when transfers or dataset
/// creation/closing are collective ([`Driver::collective_transfers`],
/// [`Driver::collective_datasets`]), all ranks agree after preparing the phase, after
/// preparing each dataset and after each dataset's transfers.
#[allow(clippy::too_many_arguments)]
fn data_phase(
    drv: &mut dyn Driver,
    ctx: &Ctx<'_>,
    phase: Access,
    buf: &mut [u8],
    rank_byte: u8,
    t: &mut Times,
    mismatches: &mut Vec<Mismatch>,
) -> Result<()> {
    let n = ctx.pattern.transfers();
    let verify = phase == Access::Read && ctx.params.debug.verify;
    let coll_xfer = drv.collective_transfers(ctx);
    let sync = coll_xfer || drv.collective_datasets();
    let raw = match phase {
        Access::Write => Timer::WriteRaw,
        Access::Read => Timer::ReadRaw,
    } as usize;
    let settle = |r: Result<()>| if sync { agree(ctx.comm, r) } else { r };
    settle(drv.begin_phase(ctx, phase))?;
    for d in 0..ctx.params.num_dsets {
        settle(drv.begin_dataset(ctx, d, phase))?;
        let mut first: Result<()> = Ok(());
        let r0 = wtime();
        for k in 0..n {
            let r = match phase {
                Access::Write => drv.write(ctx, k, buf),
                Access::Read => drv.read(ctx, k, buf),
            };
            if let Err(e) = r {
                if first.is_ok() {
                    first = Err(e);
                }
                if !coll_xfer {
                    break;
                }
            } else if verify && !buf.iter().all(|&b| b == rank_byte) {
                mismatches.push(find_mismatch(buf, rank_byte, d, k));
            }
        }
        t[raw] += wtime() - r0;
        settle(first.and(drv.end_dataset()))?;
    }
    drv.end_phase()
}

