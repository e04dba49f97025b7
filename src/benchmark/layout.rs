//! What a step of a run reads and writes, from its parameters: each rank's access
//! pattern (spec §5, §6) and the timers a phase accumulates into (spec §8.1).

use super::driver::Access;
use crate::config::{Api, Params};
use crate::measure::{Direction, Measures};
use crate::pattern::{Pattern, Pattern1D, Pattern2D};

/// The access pattern of `rank` for `n` processes, transfer size `buf` and `api`
/// (the chunked raw-file layout of 2D applies to POSIX and MPI-IO only, spec §6.4).
/// With `--file-per-process` (1D only) every rank's file holds its part alone: the
/// pattern of rank 0 of one process.
pub(super) fn pattern(p: &Params, n: u32, rank: u32, buf: u64, api: Api) -> Pattern {
    let (n, rank) = if p.file_per_process {
        (1, 0)
    } else {
        (n, rank)
    };
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

/// The phases and timers that a phase of a file accumulates into (spec §8.1).
pub(super) fn measures(phase: Access) -> Measures {
    match phase {
        Access::Write => Direction::Write.measures(),
        Access::Read => Direction::Read.measures(),
    }
}
