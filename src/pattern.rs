//! The pure access-pattern maths: which bytes of a dataset each rank moves in each
//! transfer (spec §6.1–§6.3, 1D geometry). No I/O, no MPI: ranks and process counts
//! are plain numbers, so every rule is unit-tested here.
//!
//! Offsets are relative to the start of the dataset (in raw POSIX/MPI-IO files,
//! dataset `d` (0-based) starts at byte `d × D`; in HDF5 they are element offsets).

/// One contiguous piece of a transfer: `len` bytes at dataset offset `file_off`, taken
/// from (or read into) transfer-buffer bytes `[buf_off, buf_off + len)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Byte offset in the dataset.
    pub file_off: u64,
    /// Bytes in the piece.
    pub len: u64,
    /// Byte offset in the transfer buffer.
    pub buf_off: u64,
}

/// The 1D pattern of one rank for one configuration. Sizes in bytes.
///
/// Preconditions (checked by [`crate::params::Params::problems`] before any I/O):
/// `blk > 0`, `buf > 0`, `buf % blk == 0`, `bpp % buf == 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern1D {
    /// Bytes per process per dataset (`-e`).
    pub bpp: u64,
    /// Transfer-buffer size of this step.
    pub buf: u64,
    /// Block size (`-B`).
    pub blk: u64,
    /// Processes in the run communicator (N).
    pub nprocs: u64,
    /// This process's rank (r).
    pub rank: u64,
    /// Interleaved (`-I`) instead of contiguous.
    pub interleaved: bool,
}

impl Pattern1D {
    /// Bytes in one dataset, `D = bpp × N` (spec §0).
    pub fn dataset_bytes(&self) -> u64 {
        self.bpp * self.nprocs
    }

    /// Transfers per process per dataset, `T = bpp / buf` (spec §6.1).
    pub fn transfers(&self) -> u64 {
        self.bpp / self.buf
    }

    /// Blocks per transfer, `buf / blk`.
    pub fn blocks_per_transfer(&self) -> u64 {
        self.buf / self.blk
    }

    /// First byte the process touches (`bytes_begin` of the debug-4 trace):
    /// contiguous `bpp × r`, interleaved `blk × r` (spec §6.2, §6.3).
    pub fn begin(&self) -> u64 {
        if self.interleaved {
            self.blk * self.rank
        } else {
            self.bpp * self.rank
        }
    }

    /// Dataset offset of the first byte of transfer `k`: contiguous
    /// `bpp×r + k×buf`; interleaved `blk×r + k×buf×N` (the start of its first block).
    pub fn transfer_start(&self, k: u64) -> u64 {
        if self.interleaved {
            self.begin() + k * self.buf * self.nprocs
        } else {
            self.begin() + k * self.buf
        }
    }

    /// Number of pieces of transfer `k`: 1 (contiguous) or `buf / blk` (interleaved).
    pub fn pieces_per_transfer(&self) -> u64 {
        if self.interleaved {
            self.blocks_per_transfer()
        } else {
            1
        }
    }

    /// Piece `j` of transfer `k`. Contiguous: the whole buffer at `transfer_start(k)`.
    /// Interleaved: block `j` goes from buffer bytes `[j×blk, (j+1)×blk)` to
    /// `blk×r + (k×buf + j×blk)×N` (spec §6.3).
    pub fn piece(&self, k: u64, j: u64) -> Piece {
        if self.interleaved {
            Piece {
                file_off: self.begin() + (k * self.buf + j * self.blk) * self.nprocs,
                len: self.blk,
                buf_off: j * self.blk,
            }
        } else {
            Piece {
                file_off: self.transfer_start(k),
                len: self.buf,
                buf_off: 0,
            }
        }
    }

    /// Dataset offset of transfer-buffer byte `i` of transfer `k` (for verification reports).
    pub fn dataset_offset_of(&self, k: u64, i: u64) -> u64 {
        if self.interleaved {
            let j = i / self.blk;
            self.piece(k, j).file_off + i % self.blk
        } else {
            self.transfer_start(k) + i
        }
    }

    /// Every piece of every transfer of this rank, in order (allocates; for tests and
    /// reports, not for the timed loop).
    pub fn all_pieces(&self) -> Vec<(u64, Piece)> {
        let mut v = Vec::new();
        for k in 0..self.transfers() {
            for j in 0..self.pieces_per_transfer() {
                v.push((k, self.piece(k, j)));
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(bpp: u64, buf: u64, blk: u64, n: u64, r: u64, inter: bool) -> Pattern1D {
        Pattern1D {
            bpp,
            buf,
            blk,
            nprocs: n,
            rank: r,
            interleaved: inter,
        }
    }

    /// Render the dataset after transfers `0..=upto` as the spec's byte maps.
    fn map(bpp: u64, buf: u64, blk: u64, n: u64, inter: bool, upto: u64) -> String {
        let d = bpp * n;
        let mut m = vec![b'-'; d as usize];
        for r in 0..n {
            let p = pat(bpp, buf, blk, n, r, inter);
            for (k, pc) in p.all_pieces() {
                if k <= upto {
                    for b in pc.file_off..pc.file_off + pc.len {
                        m[b as usize] = b'1' + r as u8;
                    }
                }
            }
        }
        String::from_utf8(m).unwrap()
    }

    #[test]
    fn spec_example_1_contiguous() {
        // spec §6.7 example 1: -e 8 -x 4 -X 4 -B 2 on 3 processes
        assert_eq!(map(8, 4, 2, 3, false, 0), "1111----2222----3333----");
        assert_eq!(map(8, 4, 2, 3, false, 1), "111111112222222233333333");
        let p = pat(8, 4, 2, 3, 1, false);
        assert_eq!(
            p.all_pieces()
                .iter()
                .map(|(_, pc)| pc.file_off)
                .collect::<Vec<_>>(),
            vec![8, 12]
        );
    }

    #[test]
    fn spec_example_2_interleaved() {
        assert_eq!(map(8, 4, 2, 3, true, 0), "112233112233------------");
        assert_eq!(map(8, 4, 2, 3, true, 1), "112233112233112233112233");
        let offs = |r| {
            pat(8, 4, 2, 3, r, true)
                .all_pieces()
                .iter()
                .map(|(_, pc)| pc.file_off)
                .collect::<Vec<_>>()
        };
        assert_eq!(offs(0), vec![0, 6, 12, 18]);
        assert_eq!(offs(1), vec![2, 8, 14, 20]);
        assert_eq!(offs(2), vec![4, 10, 16, 22]);
        // -B 1 variant from the help text
        assert_eq!(map(8, 4, 1, 3, true, 0), "123123123123------------");
    }

    #[test]
    fn every_byte_written_exactly_once() {
        for &(bpp, buf, blk) in &[
            (8u64, 4u64, 2u64),
            (16, 8, 2),
            (64, 16, 4),
            (48, 16, 8),
            (12, 6, 3),
            (2, 1, 1),
        ] {
            for n in 1..=5u64 {
                for inter in [false, true] {
                    let mut seen = vec![0u32; (bpp * n) as usize];
                    for r in 0..n {
                        let p = pat(bpp, buf, blk, n, r, inter);
                        let mut moved = 0;
                        for (_, pc) in p.all_pieces() {
                            for b in pc.file_off..pc.file_off + pc.len {
                                seen[b as usize] += 1;
                            }
                            moved += pc.len;
                        }
                        assert_eq!(moved, bpp, "rank {r} moves bpp bytes");
                    }
                    assert!(
                        seen.iter().all(|&c| c == 1),
                        "bpp={bpp} buf={buf} blk={blk} n={n} inter={inter}"
                    );
                }
            }
        }
    }

    #[test]
    fn buffer_offsets_cover_the_buffer() {
        let p = pat(64, 16, 4, 3, 2, true);
        for k in 0..p.transfers() {
            let mut covered = 0;
            for j in 0..p.pieces_per_transfer() {
                let pc = p.piece(k, j);
                assert_eq!(pc.buf_off, covered);
                covered += pc.len;
            }
            assert_eq!(covered, p.buf);
        }
    }

    #[test]
    fn dataset_offset_of_matches_pieces() {
        for inter in [false, true] {
            let p = pat(64, 16, 4, 3, 1, inter);
            for (k, pc) in p.all_pieces() {
                for i in 0..pc.len {
                    assert_eq!(p.dataset_offset_of(k, pc.buf_off + i), pc.file_off + i);
                }
            }
        }
    }
}
