//! `--stonewall` in the run (issue 28): each phase's figures agreed over the ranks, and
//! the counts file beside a kept data file, which a later `--read-only` run reads exactly.

use std::ffi::CString;

use super::driver::interface::Wall;
use crate::agreement::agree_value;
use crate::config::Api;
use crate::error::{Error, Result};
use crate::ffi::mpi::{Comm, Op};
use crate::measure::{Counts, PhaseWall, RankWall, WallFigures};
use crate::pattern::Pattern;

/// The counts file's content for `api`'s data file written with `write_pattern` and
/// `datasets` datasets, holding `counts` (one per rank).
pub(super) fn counts_of(
    api: Api,
    write_pattern: &Pattern,
    datasets: u64,
    counts: Vec<u64>,
) -> Counts {
    let (xfer, processes) = match write_pattern {
        Pattern::D1(q) => (q.buf, q.nprocs),
        Pattern::D2(q) => (q.buf, q.nprocs),
    };
    Counts {
        api: api.name().to_string(),
        processes: u32::try_from(processes).unwrap_or(u32::MAX),
        xfer_size: xfer,
        datasets,
        transfers_per_dataset: write_pattern.transfers(),
        counts,
    }
}

/// `--read-only --stonewall`: read the counts file beside the data file `cpath` (rank 0,
/// sent to all) and check it against `want` (this run's configuration); with
/// `collective` transfers every rank must have the same count (else the collective reads
/// could not match). Collective; errors agreed ([`Error::Invalid`]).
pub(super) fn load_counts(
    comm: &Comm,
    rank: u32,
    cpath: &CString,
    want: &Counts,
    collective: bool,
) -> Result<Counts> {
    let text = match rank {
        0 => read_counts(cpath),
        _ => Ok(String::new()),
    };
    let text = agree_value(comm, text)?;
    let text = comm.bcast_bytes(0, text.as_bytes())?;
    let name = counts_name(cpath);
    let c = Counts::parse(&String::from_utf8_lossy(&text))
        .map_err(|e| format!("--read-only: the counts file {name}: {e}"))
        .and_then(|c| match c.mismatch(want) {
            Some(m) => Err(format!(
                "--read-only: the counts file {name} was written by another run ({m})"
            )),
            None => Ok(c),
        })
        .and_then(|c| {
            let equal = c.counts.windows(2).all(|w| w[0] == w[1]);
            if collective && !equal {
                return Err(format!(
                    "--read-only: the counts file {name} holds different counts per rank, which collective reads (-C) cannot read; write with --wear-out"
                ));
            }
            Ok(c)
        })
        .map_err(|m| Error::Invalid(vec![m]));
    agree_value(comm, c)
}

/// The figures of a stonewalled phase that ended with this rank's `w`, over all ranks
/// (collective, outside every timer), added to `fig` for `iteration`. Returns the bytes
/// all ranks moved and every rank's transfer count, in rank order.
pub(super) fn phase_figures(
    comm: &Comm,
    rank: u32,
    pat: &Pattern,
    w: &Wall,
    fig: &mut WallFigures,
    iteration: usize,
) -> Result<(u64, Vec<u64>)> {
    let me = RankWall {
        xfers: w.done,
        bytes: moved_bytes(pat, w.done),
        stopped: w.stopped,
        stop_s: w.stop_at - w.start,
        wear_out_s: w.wear_out,
    };
    let ph = agree_wall(comm, rank, &me)?;
    fig.add(iteration, &ph);
    let all = all_counts(comm, w.done)?;
    let bytes: Vec<u64> = all.iter().map(|&c| moved_bytes(pat, c)).collect();
    fig.add_ranks(iteration, &bytes);
    Ok((ph.bytes, all))
}

/// The name of the counts file of the data file `cpath`, as text.
pub(super) fn counts_name(cpath: &CString) -> String {
    format!("{}{}", cpath.to_string_lossy(), Counts::SUFFIX)
}

/// The counts file's path beside the data file `cpath` (its bytes as given).
fn counts_path(cpath: &CString) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = cpath.to_bytes().to_vec();
    bytes.extend_from_slice(Counts::SUFFIX.as_bytes());
    std::ffi::OsStr::from_bytes(&bytes).into()
}

/// Write the counts file of the data file `cpath` (rank 0, outside every timer).
pub(super) fn write_counts(cpath: &CString, c: &Counts) -> Result<()> {
    std::fs::write(counts_path(cpath), c.text()).map_err(|e| {
        Error::DataDir(format!(
            "cannot write the counts file {}: {e}",
            counts_name(cpath)
        ))
    })
}

/// Remove the counts file of the data file `cpath` if there is one (rank 0, after a
/// write phase without `--stonewall` kept the file): the counts of an earlier
/// `--stonewall` run no longer describe the data, and `--read-only --stonewall` would
/// trust them. Errors: the file exists and cannot be removed.
pub(super) fn remove_counts(cpath: &CString) -> Result<()> {
    match std::fs::remove_file(counts_path(cpath)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::DataDir(format!(
            "cannot remove the stale counts file {}: {e}",
            counts_name(cpath)
        ))),
        _ => Ok(()),
    }
}

/// Read the counts file of the data file `cpath` (rank 0).
pub(super) fn read_counts(cpath: &CString) -> Result<String> {
    std::fs::read_to_string(counts_path(cpath)).map_err(|e| {
        Error::Invalid(vec![format!(
            "--read-only --stonewall: cannot read the counts file {}: {}; write the files \
             with --stonewall and HDF5_NOCLEANUP=1 first",
            counts_name(cpath),
            crate::error::io_text(&e)
        )])
    })
}

/// The figures of one stonewalled phase over all ranks (collective, outside the timers):
/// two `MPI_Allreduce` of maxima and one sum.
fn agree_wall(comm: &Comm, rank: u32, me: &RankWall) -> Result<PhaseWall> {
    let x = me.xfers as f64;
    let v = [
        x,
        -x,
        me.stop_s,
        -me.stop_s,
        me.wear_out_s,
        f64::from(u8::from(me.stopped)),
    ];
    let mut mx = [0.0; 6];
    comm.allreduce_f64(&v, &mut mx, Op::Max)?;
    let (most, fewest) = (mx[0], -mx[1]);
    let r = f64::from(rank);
    let who = [
        if x == most { -r } else { f64::NEG_INFINITY },
        if x == fewest { -r } else { f64::NEG_INFINITY },
    ];
    let mut first = [0.0; 2];
    comm.allreduce_f64(&who, &mut first, Op::Max)?;
    let bytes = comm.allreduce_u64(me.bytes, Op::Sum)?;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(PhaseWall {
        min: (fewest as u64, (-first[1]) as u32),
        max: (most as u64, (-first[0]) as u32),
        bytes,
        first_stop_s: -mx[3],
        last_stop_s: mx[2],
        wear_out_s: mx[4],
        stopped: mx[5] > 0.0,
    })
}

/// The bytes that the first `xfers` transfers of a rank's phase move: its datasets are
/// filled in order, each transfer `buf_bytes` except a shorter last one of a dataset
/// (2D, spec §6.1).
fn moved_bytes(pat: &Pattern, xfers: u64) -> u64 {
    let nprocs = match pat {
        Pattern::D1(q) => q.nprocs,
        Pattern::D2(q) => q.nprocs,
    };
    let per_rank = pat.dataset_bytes() / nprocs.max(1);
    let t = pat.transfers().max(1);
    (xfers / t) * per_rank + ((xfers % t) * pat.buf_bytes()).min(per_rank)
}

/// Every rank's `mine` on every rank, in rank order (`MPI_Gather` to rank 0, then
/// `MPI_Bcast`; exact below 2^53).
fn all_counts(comm: &Comm, mine: u64) -> Result<Vec<u64>> {
    let gathered = comm.gather_f64(0, &[mine as f64])?;
    let bytes: Vec<u8> = gathered
        .iter()
        .flat_map(|&c| (c as u64).to_le_bytes())
        .collect();
    let got = comm.bcast_bytes(0, &bytes)?;
    Ok(got
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}
