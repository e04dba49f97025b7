//! The pure access-pattern maths: which bytes of a dataset each rank moves in each transfer (spec
//! §6.1–§6.4, 1D and 2D geometry).

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
}

/// The 2D pattern of one rank for one configuration (spec §6.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern2D {
    /// Bytes per process per dataset (`-e`); the side of the dataset is `bpp × N`.
    pub bpp: u64,
    /// Transfer-buffer size of this step (columns of the buffer in the contiguous
    /// pattern, rows in the interleaved pattern).
    pub buf: u64,
    /// Block size (`-B`): rows of the buffer (contiguous) or columns (interleaved).
    pub blk: u64,
    /// Processes in the run communicator (N).
    pub nprocs: u64,
    /// This process's rank (r).
    pub rank: u64,
    /// Interleaved (`-I`) instead of contiguous.
    pub interleaved: bool,
    /// The raw-file simulation of chunked storage (`-c` with POSIX and MPI-IO): the file holds `blk
    /// × blk` chunks whole, chunk rows one after the other.
    pub chunked: bool,
}

impl Pattern2D {
    /// Side of the square dataset, `S = bpp × N` (spec §0).
    pub fn side(&self) -> u64 {
        self.bpp * self.nprocs
    }

    /// Bytes in one dataset, `D = S × S`.
    pub fn dataset_bytes(&self) -> u64 {
        self.side() * self.side()
    }

    /// Bytes this process moves per dataset, `count = D / N = bpp × S` (spec §6.1).
    pub fn count(&self) -> u64 {
        self.bpp * self.side()
    }

    /// Bytes in the transfer buffer, `buf × blk`.
    pub fn buf_bytes(&self) -> u64 {
        self.buf * self.blk
    }

    /// Transfers per process per dataset, `ceil(count / (buf × blk))` (spec §6.1).
    pub fn transfers(&self) -> u64 {
        self.count().div_ceil(self.buf_bytes())
    }

    /// Buffer shape `(rows, columns)`: `blk × buf` (contiguous) or `buf × blk` (interleaved).
    pub fn buf_shape(&self) -> (u64, u64) {
        if self.interleaved {
            (self.buf, self.blk)
        } else {
            (self.blk, self.buf)
        }
    }

    /// First row of this process's band in the contiguous pattern, `bpp × r`.
    fn row0(&self) -> u64 {
        self.bpp * self.rank
    }

    /// `bytes_begin` of the debug-4 trace: contiguous `(bpp×r, 0)`; interleaved
    /// `(0, blk×r)`, or `(0, blk²×r)` in the chunked raw-file simulation (spec §6.4).
    pub fn begin(&self) -> (u64, u64) {
        match (self.interleaved, self.chunked) {
            (false, _) => (self.row0(), 0),
            (true, false) => (0, self.blk * self.rank),
            (true, true) => (0, self.blk * self.blk * self.rank),
        }
    }

    /// Logical position `(row, column)` of the buffer's first byte in transfer `k`:
    /// contiguous `(row0 + ⌊k·buf/S⌋·blk, k·buf mod S)`; interleaved
    /// `(⌊k·blk·N/S⌋·buf, blk·r + k·blk·N mod S)` (spec §6.4).
    pub fn position(&self, k: u64) -> (u64, u64) {
        let s = self.side();
        if self.interleaved {
            let y = k * self.blk * self.nprocs;
            ((y / s) * self.buf, self.blk * self.rank + y % s)
        } else {
            let x = k * self.buf;
            (self.row0() + (x / s) * self.blk, x % s)
        }
    }

    /// The selection offset PHDF5 applies with `H5Soffset_simple` for transfer `k`
    /// (the position relative to the hyperslab's start, spec §6.4).
    pub fn hdf5_offset(&self, k: u64) -> (u64, u64) {
        let (row, col) = self.position(k);
        if self.interleaved {
            (row, col - self.blk * self.rank)
        } else {
            (row - self.row0(), col)
        }
    }

    /// Offset in the dataset of the first byte of transfer `k`, `o_k` of spec §6.4.
    pub fn transfer_start(&self, k: u64) -> u64 {
        let s = self.side();
        let blk2 = self.blk * self.blk;
        match (self.chunked, self.interleaved) {
            (false, _) => {
                let (row, col) = self.position(k);
                row * s + col
            }
            (true, false) => self.row0() * s + k * self.buf_bytes(),
            (true, true) => {
                let y = k * blk2 * self.nprocs;
                blk2 * self.rank + (y / (s * self.blk)) * self.buf * s + y % (s * self.blk)
            }
        }
    }
}

/// The layout of every transfer of a pattern, computed once when a dataset begins so that the timed
/// loops only add and multiply (issue 18): piece `j` of transfer `k` lies at `start(k) + j ×
/// piece_stride`, `piece_len` bytes from transfer-buffer byte `j × piece_len` (see
/// [`Pattern::steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Steps {
    /// `(first, step)` when transfer starts are evenly spaced, `start(k) = first + k ×
    /// step` (every 1D pattern, and the 2D chunked contiguous one); `None` when they
    /// follow the rows of a 2D dataset ([`Pattern::transfer_start`]).
    pub linear: Option<(u64, u64)>,
    /// Pieces per transfer (at least 1).
    pub pieces: u64,
    /// Bytes in each piece.
    pub piece_len: u64,
    /// Dataset offset from one piece of a transfer to the next.
    pub piece_stride: u64,
}

impl Steps {
    /// Dataset offset of the first byte of transfer `k` of `p` (the pattern these steps
    /// were made from).
    #[inline]
    pub fn start(&self, p: &Pattern, k: u64) -> u64 {
        match self.linear {
            Some((first, step)) => first + k * step,
            None => p.transfer_start(k),
        }
    }

    /// Piece `j` of the transfer starting at dataset offset `start`.
    #[inline]
    pub fn piece(&self, start: u64, j: u64) -> Piece {
        Piece {
            file_off: start + j * self.piece_stride,
            len: self.piece_len,
            buf_off: j * self.piece_len,
        }
    }
}

/// The access pattern of one rank for one configuration, 1D or 2D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// 1D geometry (spec §6.2–§6.3).
    D1(Pattern1D),
    /// 2D geometry (spec §6.4).
    D2(Pattern2D),
}

impl Pattern {
    /// Bytes in one dataset (D).
    pub fn dataset_bytes(&self) -> u64 {
        match self {
            Pattern::D1(p) => p.dataset_bytes(),
            Pattern::D2(p) => p.dataset_bytes(),
        }
    }

    /// Transfers per process per dataset.
    pub fn transfers(&self) -> u64 {
        match self {
            Pattern::D1(p) => p.transfers(),
            Pattern::D2(p) => p.transfers(),
        }
    }

    /// Bytes one process moves per dataset (1D `bpp`, 2D `count`, spec §6.1).
    pub fn rank_bytes(&self) -> u64 {
        match self {
            Pattern::D1(p) => p.bpp,
            Pattern::D2(p) => p.count(),
        }
    }

    /// Bytes in the transfer buffer (1D `buf`, 2D `buf × blk`).
    pub fn buf_bytes(&self) -> u64 {
        match self {
            Pattern::D1(p) => p.buf,
            Pattern::D2(p) => p.buf_bytes(),
        }
    }

    /// Pieces per transfer (all of equal length), [`Steps::pieces`].
    pub fn pieces_per_transfer(&self) -> u64 {
        self.steps().pieces
    }

    /// Piece `j` of transfer `k`: [`Steps::piece`] at [`Steps::start`] (the one piece formula).
    pub fn piece(&self, k: u64, j: u64) -> Piece {
        let st = self.steps();
        st.piece(st.start(self, k), j)
    }

    /// Dataset offset of the first byte of transfer `k` (of its first piece).
    pub fn transfer_start(&self, k: u64) -> u64 {
        match self {
            Pattern::D1(p) => p.transfer_start(k),
            Pattern::D2(p) => p.transfer_start(k),
        }
    }

    /// The layout of every transfer ([`Steps`]), from which every piece is derived.
    ///
    /// 1D (spec §6.2–§6.3): contiguous, one piece, the whole buffer at
    /// `transfer_start(k)`; interleaved, `buf / blk` pieces, block `j` from buffer bytes
    /// `[j×blk, (j+1)×blk)` to `blk×r + (k×buf + j×blk)×N`.
    ///
    /// 2D (spec §6.4), from `o_k` ([`Pattern2D::transfer_start`]): contiguous storage, buffer row
    /// `i` at `o_k + i×S` (`blk` rows of `buf` bytes, or `buf` rows of `blk` bytes interleaved);
    /// chunked raw-file layout, the whole buffer at `o_k` (contiguous pattern) or chunk `i` of the
    /// buffer (`blk²` bytes) at `o_k + i×S×blk` (interleaved, `buf / blk` chunks).
    pub fn steps(&self) -> Steps {
        let (linear, pieces, piece_len, piece_stride) = match self {
            Pattern::D1(p) if p.interleaved => {
                let n = p.nprocs;
                let linear = Some((p.begin(), p.buf * n));
                (linear, p.blocks_per_transfer(), p.blk, p.blk * n)
            }
            Pattern::D1(p) => (Some((p.begin(), p.buf)), 1, p.buf, 0),
            Pattern::D2(p) => {
                let s = p.side();
                match (p.chunked, p.interleaved) {
                    (false, false) => (None, p.blk, p.buf, s),
                    (false, true) => (None, p.buf, p.blk, s),
                    (true, false) => (Some((p.row0() * s, p.buf_bytes())), 1, p.buf_bytes(), 0),
                    (true, true) => (None, p.buf / p.blk, p.blk * p.blk, s * p.blk),
                }
            }
        };
        Steps {
            linear,
            pieces,
            piece_len,
            piece_stride,
        }
    }

    /// Dataset offset of transfer-buffer byte `i` of transfer `k` (for verification reports).
    pub fn dataset_offset_of(&self, k: u64, i: u64) -> u64 {
        let st = self.steps();
        st.piece(st.start(self, k), i / st.piece_len).file_off + i % st.piece_len
    }

    /// The engine's debug-4 trace line of a phase (spec §8.6), `rank` being the world rank.
    pub fn trace(&self, rank: u32) -> String {
        match self {
            Pattern::D1(p) => format!(
                "{rank}: Debug(do_write): buf_size={}, bytes_begin={}, bytes_count={}\n",
                p.buf,
                p.begin(),
                p.bpp
            ),
            Pattern::D2(p) => {
                let (r0, c0) = p.begin();
                format!(
                    "{rank}: Debug(do_write): linear buf_size={}, bytes_begin=({r0},{c0}), bytes_count={}\n",
                    p.buf_bytes(),
                    p.count()
                )
            }
        }
    }

    /// Every piece of every transfer of this rank, in order (for the tests).
    #[cfg(test)]
    fn all_pieces(&self) -> Vec<(u64, Piece)> {
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

    fn p2(bpp: u64, buf: u64, blk: u64, n: u64, r: u64, inter: bool, chunked: bool) -> Pattern {
        Pattern::D2(Pattern2D {
            bpp,
            buf,
            blk,
            nprocs: n,
            rank: r,
            interleaved: inter,
            chunked,
        })
    }

    /// Raw-file bytes of one dataset after transfers `0..=upto` of every rank.
    fn map2(bpp: u64, buf: u64, blk: u64, n: u64, inter: bool, chunked: bool, upto: u64) -> String {
        let d = (bpp * n) * (bpp * n);
        let mut m = vec![b'-'; d as usize];
        for r in 0..n {
            for (k, pc) in p2(bpp, buf, blk, n, r, inter, chunked).all_pieces() {
                if k <= upto {
                    for b in pc.file_off..pc.file_off + pc.len {
                        m[b as usize] = b'1' + r as u8;
                    }
                }
            }
        }
        String::from_utf8(m).unwrap()
    }

    fn rows(s: &str, side: usize) -> Vec<String> {
        s.as_bytes()
            .chunks(side)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn spec_example_3a_contiguous() {
        // -g -e 4 -B 2 -x 4 -X 4 on 2 processes: S = 8
        assert_eq!(
            rows(&map2(4, 4, 2, 2, false, false, 0), 8),
            [
                "1111----", "1111----", "--------", "--------", "2222----", "2222----", "--------",
                "--------"
            ]
        );
        assert_eq!(
            map2(4, 4, 2, 2, false, false, 3),
            "1".repeat(32) + &"2".repeat(32)
        );
        let offs: Vec<u64> = p2(4, 4, 2, 2, 0, false, false)
            .all_pieces()
            .iter()
            .map(|(_, p)| p.file_off)
            .collect();
        assert_eq!(offs, vec![0, 8, 4, 12, 16, 24, 20, 28]);
    }

    #[test]
    fn spec_example_3b_interleaved() {
        assert_eq!(
            rows(&map2(4, 4, 2, 2, true, false, 0), 8),
            [
                "1122----", "1122----", "1122----", "1122----", "--------", "--------", "--------",
                "--------"
            ]
        );
        assert!(rows(&map2(4, 4, 2, 2, true, false, 3), 8)
            .iter()
            .all(|r| r == "11221122"));
        let t: Vec<u64> = (0..4)
            .map(|k| p2(4, 4, 2, 2, 0, true, false).piece(k, 0).file_off)
            .collect();
        assert_eq!(t, vec![0, 4, 32, 36]);
        let Pattern::D2(q) = p2(4, 4, 2, 2, 1, true, false) else {
            unreachable!()
        };
        assert_eq!(
            (0..4).map(|k| q.transfer_start(k)).collect::<Vec<_>>(),
            vec![2, 6, 34, 38]
        );
    }

    #[test]
    fn spec_example_3c_chunked_contiguous() {
        assert_eq!(
            map2(4, 4, 2, 2, false, true, 0),
            format!(
                "{}{}{}{}",
                "1".repeat(8),
                "-".repeat(24),
                "2".repeat(8),
                "-".repeat(24)
            )
        );
        assert_eq!(
            map2(4, 4, 2, 2, false, true, 3),
            "1".repeat(32) + &"2".repeat(32)
        );
    }

    #[test]
    fn spec_example_3d_chunked_interleaved() {
        assert_eq!(
            map2(4, 4, 2, 2, true, true, 0),
            format!("11112222--------11112222{}", "-".repeat(40))
        );
        assert_eq!(map2(4, 4, 2, 2, true, true, 3), "11112222".repeat(8));
        let offs: Vec<u64> = p2(4, 4, 2, 2, 0, true, true)
            .all_pieces()
            .iter()
            .map(|(_, p)| p.file_off)
            .collect();
        assert_eq!(offs, vec![0, 16, 8, 24, 32, 48, 40, 56]);
        assert_eq!(
            p2(4, 4, 2, 2, 1, true, true).trace(1),
            "1: Debug(do_write): linear buf_size=8, bytes_begin=(0,4), bytes_count=32\n"
        );
    }

    #[test]
    fn every_byte_written_once_2d() {
        for &(bpp, buf, blk) in &[
            (4u64, 4u64, 2u64),
            (8, 4, 2),
            (8, 8, 4),
            (6, 6, 3),
            (12, 6, 2),
            (4, 2, 1),
            (8, 16, 4),
        ] {
            for n in 1..=4u64 {
                let s = bpp * n;
                if s % buf != 0 || buf % blk != 0 || bpp % blk != 0 {
                    continue;
                }
                for inter in [false, true] {
                    for chunked in [false, true] {
                        let mut seen = vec![0u32; (s * s) as usize];
                        for r in 0..n {
                            let p = p2(bpp, buf, blk, n, r, inter, chunked);
                            let mut moved = 0;
                            for (_, pc) in p.all_pieces() {
                                for b in pc.file_off..pc.file_off + pc.len {
                                    seen[b as usize] += 1;
                                }
                                moved += pc.len;
                            }
                            assert_eq!(moved, bpp * s);
                        }
                        assert!(
                            seen.iter().all(|&c| c == 1),
                            "bpp={bpp} buf={buf} blk={blk} n={n} inter={inter} chunked={chunked}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn chunked_simulation_holds_whole_chunks_of_the_logical_matrix() {
        // Read as blk×blk chunks stored in chunk-row order, the chunked file equals the
        // logical matrix of the unchunked pattern (spec §6.7 examples 3c, 3d).
        for &(bpp, buf, blk, n) in &[
            (4u64, 4u64, 2u64, 2u64),
            (8, 8, 2, 2),
            (6, 6, 3, 3),
            (8, 4, 4, 1),
        ] {
            for inter in [false, true] {
                let s = (bpp * n) as usize;
                let b = blk as usize;
                let logical = map2(bpp, buf, blk, n, inter, false, u64::MAX).into_bytes();
                let raw = map2(bpp, buf, blk, n, inter, true, u64::MAX).into_bytes();
                for row in 0..s {
                    for col in 0..s {
                        let (ci, cj) = (row / b, col / b);
                        let at = (ci * (s / b) + cj) * b * b + (row % b) * b + col % b;
                        assert_eq!(
                            raw[at],
                            logical[row * s + col],
                            "bpp={bpp} buf={buf} blk={blk} n={n} inter={inter} ({row},{col})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn hdf5_offsets_are_relative_to_the_hyperslab_start() {
        let Pattern::D2(c) = p2(4, 4, 2, 2, 1, false, false) else {
            unreachable!()
        };
        assert_eq!(
            (0..4).map(|k| c.hdf5_offset(k)).collect::<Vec<_>>(),
            vec![(0, 0), (0, 4), (2, 0), (2, 4)]
        );
        let Pattern::D2(i) = p2(4, 4, 2, 2, 1, true, false) else {
            unreachable!()
        };
        assert_eq!(
            (0..4).map(|k| i.hdf5_offset(k)).collect::<Vec<_>>(),
            vec![(0, 0), (0, 4), (4, 0), (4, 4)]
        );
    }

    #[test]
    fn dataset_offset_of_2d() {
        let p = p2(4, 4, 2, 2, 1, true, true);
        for (k, pc) in p.all_pieces() {
            for i in 0..pc.len {
                assert_eq!(p.dataset_offset_of(k, pc.buf_off + i), pc.file_off + i);
            }
        }
    }

    fn pat(bpp: u64, buf: u64, blk: u64, n: u64, r: u64, inter: bool) -> Pattern {
        Pattern::D1(Pattern1D {
            bpp,
            buf,
            blk,
            nprocs: n,
            rank: r,
            interleaved: inter,
        })
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
            assert_eq!(covered, p.buf_bytes());
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

    #[test]
    fn steps_give_every_piece_of_every_pattern() {
        let mut seen = 0;
        for n in 1..=4 {
            for r in 0..n {
                for inter in [false, true] {
                    // 1D: bpp 48, blocks 4, transfers of 4, 8, 12 bytes
                    for buf in [4, 8, 12] {
                        let p = pat(48, buf, 4, n, r, inter);
                        check_steps(&p);
                        seen += 1;
                    }
                    // 2D: side S = 12 × n, blk 2 or 3, buf a divisor of S
                    for chunked in [false, true] {
                        for (blk, buf) in [(2, 6), (3, 6), (2, 4), (3, 3)] {
                            if (12 * n) % buf != 0 || buf % blk != 0 {
                                continue;
                            }
                            check_steps(&p2(12, buf, blk, n, r, inter, chunked));
                            seen += 1;
                        }
                    }
                }
            }
        }
        assert!(seen > 100, "{seen} patterns checked");
    }

    fn check_steps(p: &Pattern) {
        let st = p.steps();
        for k in 0..p.transfers() {
            // the linear start of the steps is the pattern's own start formula
            let o = st.start(p, k);
            assert_eq!(o, p.transfer_start(k), "{p:?} k={k}");
            // the pieces cover the buffer once, in order
            let mut covered = 0;
            for j in 0..st.pieces {
                let pc = p.piece(k, j);
                assert_eq!(
                    (pc.buf_off, pc.file_off >= o),
                    (covered, true),
                    "{p:?} k={k} j={j}"
                );
                covered += pc.len;
            }
            assert_eq!(covered, p.buf_bytes(), "{p:?} k={k}");
        }
    }
}
