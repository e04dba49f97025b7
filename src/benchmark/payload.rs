//! Generated payloads (`--payload`, issue 30): a pool of seeded bytes made once per
//! (processes, transfer size), outside every timer, and per transfer only an 8-byte
//! stamp written into each 4 KiB block it holds ([`Stamps::at`]).
//!
//! Every byte a run writes has a *logical position*: `L = ((file − 1) × datasets +
//! dataset) × dataset stride + writer × share + transfer × buffer`, where the share is
//! what one rank moves per dataset (transfers × buffer bytes) and the dataset stride is
//! processes × share. The bytes of transfer `k` are the pool's bytes from `L mod P` on
//! (`P` = [`Pool::period`], a power of two of at most [`POOL_BYTES`]), with the stamp of
//! every 4 KiB-aligned `L` written over its block's first 8 bytes: SplitMix64's output
//! function of `L ⊕ seed` (a bijection, so no two blocks of a run carry the same stamp,
//! and the stamp is as random as the rest). The same seed gives the
//! same bytes, whatever the order of the transfers; a reader (`-D v`, `--reorder`)
//! recomputes the writer's bytes from the writer's `L`.

use crate::config::PayloadKind;
use crate::error::Result;
use crate::ffi::mem::AlignedBuf;

/// Largest period of the pool, bytes: 16 MiB, beyond the windows of gzip (32 KiB), zstd
/// up to level 19 (8 MiB) and the block-wise compression of file systems (btrfs 128 KiB,
/// ZFS one record); only a long-range compressor (`zstd --long`, 128 MiB) could find a
/// repetition, and then only of bytes between two stamps.
pub const POOL_BYTES: u64 = 16 << 20;

/// Bytes per stamped block.
pub const BLOCK: u64 = 4096;

/// Bytes of a block's stamp.
const STAMP: usize = 8;

/// SplitMix64's increment (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; the constants of `java.util.SplittableRandom`).
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function (a bijection of `u64`), same source as [`GAMMA`].
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stamp of the block at logical position `a` (a multiple of [`BLOCK`]) for `seed`.
#[inline(always)]
fn stamp(a: u64, seed: u64) -> [u8; STAMP] {
    mix(a ^ seed).to_le_bytes()
}

/// The stamp that begins the bytes at logical position `a` for `seed`, when `a` is the
/// start of a 4 KiB block (`None` otherwise): what a reader can check of a file without
/// the pool (`--read-only`'s check of the seed).
pub fn block_stamp(a: u64, seed: u64) -> Option<[u8; STAMP]> {
    a.is_multiple_of(BLOCK).then(|| stamp(a, seed))
}

/// The seeded bytes of one (processes, transfer size), and the buffer size they are
/// handed out in.
pub struct Pool {
    buf: AlignedBuf,
    /// `P − 1` ([`Pool::period`]).
    mask: u64,
    seed: u64,
    /// Bytes per transfer.
    xfer: u64,
}

impl Pool {
    /// The pool for `kind` and `seed`, for transfers of `xfer` bytes over `span` logical
    /// bytes (every file of the run): period `P` = the power of two at or above `span`,
    /// between [`BLOCK`] and [`POOL_BYTES`]; `P + xfer` bytes (the bytes past `P` repeat
    /// the first ones, so that a transfer never wraps), page-aligned (`--direct`).
    /// Generated here, outside every timer: SplitMix64 from `seed`, 8 bytes per step;
    /// with `compress=PCT` the last PCT % of every block are zeros.
    ///
    /// Errors: the allocation ([`AlignedBuf::new`]).
    pub fn new(kind: PayloadKind, seed: u64, span: u64, xfer: u64) -> Result<Pool> {
        let period = span.clamp(BLOCK, POOL_BYTES).next_power_of_two();
        let mut buf = AlignedBuf::new(period + xfer)?;
        let bytes = buf.as_mut_slice();
        let random = kind.random_bytes_per_block();
        let p = period as usize;
        let mut state = seed;
        for block in bytes[..p].chunks_mut(BLOCK as usize) {
            let (rand, _zeros) = block.split_at_mut(random.min(block.len()));
            for word in rand.chunks_mut(8) {
                state = state.wrapping_add(GAMMA);
                let w = mix(state).to_le_bytes();
                word.copy_from_slice(&w[..word.len()]);
            }
        }
        let mut done = p;
        while done < bytes.len() {
            let n = (bytes.len() - done).min(p);
            bytes.copy_within(..n, done);
            done += n;
        }
        Ok(Pool {
            buf,
            mask: period - 1,
            seed,
            xfer,
        })
    }

    /// The pool's period `P`, bytes.
    pub fn period(&self) -> u64 {
        self.mask + 1
    }

    /// The bytes of the transfer at logical position `l`: the pool from `l mod P`, with
    /// the stamp of every block that begins in or overlaps `[l, l + xfer)` written over
    /// the bytes of it that lie there (so each byte depends on `l` only).
    #[inline]
    pub fn at(&mut self, l: u64) -> &[u8] {
        let (seed, xfer) = (self.seed, self.xfer);
        let start = (l & self.mask) as usize;
        let bytes = &mut self.buf.as_mut_slice()[start..start + xfer as usize];
        if (l | xfer).is_multiple_of(BLOCK) {
            // whole blocks (every transfer size that is a multiple of 4 KiB): one full
            // stamp at the start of each
            for (a, block) in (l..)
                .step_by(BLOCK as usize)
                .zip(bytes.chunks_exact_mut(BLOCK as usize))
            {
                block[..STAMP].copy_from_slice(&stamp(a, seed));
            }
            return bytes;
        }
        let end = l + xfer;
        let mut a = l & !(BLOCK - 1);
        while a < end {
            let s = stamp(a, seed);
            if a >= l {
                let at = (a - l) as usize;
                let n = STAMP.min((end - a) as usize);
                bytes[at..at + n].copy_from_slice(&s[..n]);
            } else if a + STAMP as u64 > l {
                let skip = (l - a) as usize;
                let n = (STAMP - skip).min(xfer as usize);
                bytes[..n].copy_from_slice(&s[skip..skip + n]);
            }
            a += BLOCK;
        }
        bytes
    }
}

/// The transfers of one dataset as a driver writes them from a [`Pool`]: transfer `k`
/// at logical position `first + k × xfer`.
pub struct Stamps<'a> {
    pool: &'a mut Pool,
    first: u64,
}

impl<'a> Stamps<'a> {
    /// The transfers whose transfer 0 is at logical position `first`.
    pub fn new(pool: &'a mut Pool, first: u64) -> Stamps<'a> {
        Stamps { pool, first }
    }

    /// The bytes of transfer `k` ([`Pool::at`]).
    #[inline]
    pub fn at(&mut self, k: u64) -> &[u8] {
        let l = self.first + k * self.pool.xfer;
        self.pool.at(l)
    }
}

/// The logical position of transfer 0 of `writer`'s part of dataset `dataset` (0-based)
/// of file `file` (1-based), for `nprocs` processes, `datasets` datasets per file and
/// `share` bytes per rank per dataset (see the module's documentation).
pub fn first_position(
    file: u64,
    datasets: u64,
    dataset: u64,
    nprocs: u64,
    writer: u64,
    share: u64,
) -> u64 {
    (((file - 1) * datasets + dataset) * nprocs + writer) * share
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let mut a = Pool::new(PayloadKind::Incompressible, 1, 1 << 20, 8192).unwrap();
        let mut b = Pool::new(PayloadKind::Incompressible, 1, 1 << 20, 8192).unwrap();
        let mut c = Pool::new(PayloadKind::Incompressible, 2, 1 << 20, 8192).unwrap();
        // order does not matter: b stamps other transfers first
        let _ = b.at(4096);
        let _ = b.at(12288);
        assert_eq!(a.at(8192).to_vec(), b.at(8192).to_vec());
        assert_ne!(a.at(8192).to_vec(), c.at(8192).to_vec());
    }

    #[test]
    fn no_two_blocks_equal_even_past_the_period() {
        // a span of 4 periods of 64 KiB, transfers of 12 KiB
        let mut p = Pool::new(PayloadKind::Incompressible, 9, 1 << 16, 3 * 4096).unwrap();
        assert_eq!(p.period(), 1 << 16);
        let mut seen = HashSet::new();
        for k in 0..(4 * (1 << 16) / (3 * 4096)) {
            let b = p.at(k * 3 * 4096).to_vec();
            for blk in b.chunks(4096) {
                assert!(seen.insert(blk.to_vec()), "block repeated at transfer {k}");
            }
        }
    }

    #[test]
    fn unaligned_transfers_are_order_independent() {
        // 1000-byte transfers: stamps cut by transfer boundaries
        let mut p = Pool::new(PayloadKind::Incompressible, 5, 1 << 16, 1000).unwrap();
        let whole: Vec<u8> = (0..60).flat_map(|k| p.at(k * 1000).to_vec()).collect();
        let mut q = Pool::new(PayloadKind::Incompressible, 5, 1 << 16, 1000).unwrap();
        let back: Vec<u8> = (0..60)
            .rev()
            .map(|k| q.at(k * 1000).to_vec())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .flatten()
            .collect();
        assert_eq!(whole, back);
        // the stamp of the block at 4096 starts at byte 4096
        assert_eq!(&whole[4096..4104], &stamp(4096, 5));
    }

    #[test]
    fn compress_leaves_zeros_at_the_end_of_each_block() {
        let mut p = Pool::new(PayloadKind::Compress(50), 3, 1 << 16, 8192).unwrap();
        let b = p.at(0).to_vec();
        assert!(b[2048..4096].iter().all(|&x| x == 0));
        assert!(b[6144..8192].iter().all(|&x| x == 0));
        let nonzero = b[16..2048].iter().filter(|&&x| x != 0).count();
        assert!(nonzero > 2000, "{nonzero}");
    }

    #[test]
    fn positions() {
        // file 2 of 2 datasets, dataset 1, 4 ranks, writer 3, 100 bytes each
        assert_eq!(first_position(2, 2, 1, 4, 3, 100), ((2 + 1) * 4 + 3) * 100);
    }
}
