//! MPI-IO driver (spec §5.2, §6.2–§6.4): collective `MPI_File_open` (a new file, with
//! `MPI_MODE_EXCL`, for writing), `set_size(0)`;
//! independent `write_at`/`read_at` per piece, or collective `write_at_all`/`read_at_all`
//! with a file view of a derived datatype (all through [`File::writes`]/[`File::reads`]).
//!
//! Datatypes are built and committed once per configuration ([`Driver::prepare`],
//! outside the timers) and freed with the driver:
//! * 1D: `blkT = contiguous(blk, byte)` (a struct of GiB pieces above `INT_MAX`
//!   bytes, see [`Datatype::bytes`]), `fileT = vector(buf/blk, 1, N, blkT)`;
//! * 2D: the file type of the pattern — `contT = vector(blk, 1, S/buf, contiguous(buf))`,
//!   `interT = vector(buf, 1, S/blk, contiguous(blk))`, `fullBufT = contiguous(blk×buf)`
//!   or `chunkInterT = vector(buf/blk, 1, S/blk, contiguous(blk²))` (spec §6.4); the
//!   buffer and each piece move as one element of a byte type of their size, and the
//!   spec's `contiguous(n, MPI_BYTE)` types are [`Datatype::bytes`], so sizes above
//!   `INT_MAX` bytes work (only vector counts and strides must fit in an `int`).

use std::ffi::CString;

use super::interface::{each_read, each_transfer, each_write, Access, Ctx, Driver, Transfers};
use crate::error::{Error, Result};
use crate::ffi::mpi::{self, mode, Datatype, File};
use crate::pattern::{Pattern, Steps};

/// Committed datatypes of the current configuration.
enum Types {
    /// 1D: `blkT`, `fileT` and `buf / blk` as an MPI count.
    D1 {
        blk_t: Datatype,
        file_t: Datatype,
        nblocks: i32,
    },
    /// 2D: the file type of the pattern, the memory type of the whole buffer and
    /// the type of one piece (all pieces of a transfer have the same length); each is
    /// moved with count 1, so buffers and pieces above `INT_MAX` bytes work. The base
    /// type of the file type is kept alive with it (`_base`).
    D2 {
        file_t: Datatype,
        _base: Datatype,
        buf_t: Datatype,
        piece_t: Datatype,
    },
}

/// State of the MPI-IO driver.
#[derive(Default)]
pub struct MpiioDriver {
    file: Option<File>,
    types: Option<Types>,
    base: u64,
    /// The layout of the current dataset's transfers.
    steps: Steps,
}

fn not_ready() -> Error {
    Error::Internal("MPI-IO phase used before it was prepared")
}

impl MpiioDriver {
    /// Transfer `k` of the current dataset (any pattern; [`MpiioDriver::contiguous_1d`]
    /// gives [`Driver::write`] and [`Driver::read`] a tighter loop for the 1D contiguous
    /// pattern).
    fn transfer(&self, ctx: &Ctx<'_>, k: u64, dir: Dir<'_>) -> Result<()> {
        let f = self.file.as_ref().ok_or_else(not_ready)?;
        let coll = ctx.p.collective;
        match (self.types.as_ref().ok_or_else(not_ready)?, &ctx.pattern) {
            (
                Types::D1 {
                    blk_t,
                    file_t,
                    nblocks,
                },
                Pattern::D1(p),
            ) => {
                if !p.interleaved {
                    let off = mpi::to_offset(self.base + p.transfer_start(k))?;
                    dir.call(f, coll, off, *nblocks, blk_t)
                } else if coll {
                    // both calls are collective: make the second even if the first failed
                    let view = f.set_view(self.base + p.transfer_start(k), blk_t, file_t, ctx.info);
                    view.and(dir.call(f, true, 0, *nblocks, blk_t))
                } else {
                    self.pieces(ctx, k, dir, f, blk_t)
                }
            }
            (
                Types::D2 {
                    file_t,
                    buf_t,
                    piece_t,
                    ..
                },
                Pattern::D2(p),
            ) => {
                if coll {
                    let byte = Datatype::byte();
                    let view = f.set_view(self.base + p.transfer_start(k), &byte, file_t, ctx.info);
                    view.and(dir.call(f, true, 0, 1, buf_t))
                } else {
                    self.pieces(ctx, k, dir, f, piece_t)
                }
            }
            _ => Err(not_ready()),
        }
    }

    /// Transfer `k` piece by piece with independent calls, each piece one element of
    /// `piece_t`, at the offsets of the dataset's [`Steps`](crate::pattern::Steps).
    fn pieces(
        &self,
        ctx: &Ctx<'_>,
        k: u64,
        mut dir: Dir<'_>,
        f: &File,
        piece_t: &Datatype,
    ) -> Result<()> {
        let st = &self.steps;
        let o = self.base + st.start(&ctx.pattern, k);
        for j in 0..st.pieces {
            let pc = st.piece(o, j);
            let off = mpi::to_offset(pc.file_off)?;
            dir.sub(pc.buf_off, pc.len)
                .call(f, false, off, 1, piece_t)?;
        }
        Ok(())
    }

    /// The 1D contiguous pattern's transfers: `(file, blkT, buf / blk, offset of
    /// transfer 0, step)`, or `None` for the other patterns.
    /// The write loop with `--payload` (transfer k's bytes from the payload's stamps,
    /// on the general path), `--stonewall` or `--latency` ([`each_write`]); out of line, so that the
    /// default loop of [`Driver::write`] keeps its registers (`make bench-instr`).
    #[inline(never)]
    fn instrumented_writes(
        &mut self,
        ctx: &Ctx<'_>,
        x: &mut Transfers<'_>,
        buf: &[u8],
    ) -> Result<()> {
        if let Some(mut src) = x.source.take() {
            return each_write(ctx, x, |k| self.transfer(ctx, k, Dir::Write(src.at(k))));
        }
        match self.contiguous_1d(ctx) {
            Some((f, t, nb, first, step)) if x.n > 0 => {
                let w = f.writes(buf, nb, t, ctx.p.collective)?;
                each_write(ctx, x, |k| w.at(mpi::to_offset(first + k * step)?))
            }
            _ => each_write(ctx, x, |k| self.transfer(ctx, k, Dir::Write(buf))),
        }
    }

    fn contiguous_1d(&self, ctx: &Ctx<'_>) -> Option<(&File, &Datatype, i32, u64, u64)> {
        match (&self.file, &self.types, &ctx.pattern) {
            (Some(f), Some(Types::D1 { blk_t, nblocks, .. }), Pattern::D1(p)) if !p.interleaved => {
                Some((f, blk_t, *nblocks, self.base + p.begin(), p.buf))
            }
            _ => None,
        }
    }
}

/// The transfer buffer and the direction of a transfer.
enum Dir<'a> {
    Write(&'a [u8]),
    Read(&'a mut [u8]),
}

impl Dir<'_> {
    /// Bytes `[off, off + len)` of the buffer.
    fn sub(&mut self, off: u64, len: u64) -> Dir<'_> {
        let r = off as usize..(off + len) as usize;
        match self {
            Dir::Write(b) => Dir::Write(&b[r]),
            Dir::Read(b) => Dir::Read(&mut b[r]),
        }
    }

    /// One transfer of `count` elements of `t` at `off`, collective or not.
    fn call(self, f: &File, coll: bool, off: i64, count: i32, t: &Datatype) -> Result<()> {
        match self {
            Dir::Write(b) => f.writes(b, count, t, coll)?.at(off),
            Dir::Read(b) => f.reads(b, count, t, coll)?.at(off),
        }
    }
}

impl Driver for MpiioDriver {
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        ctx.p.collective
    }

    fn abandon(&mut self) -> bool {
        self.file.take().map(std::mem::forget).is_some()
    }

    fn prepare(&mut self, ctx: &Ctx<'_>) -> Result<()> {
        self.types = None;
        self.types = Some(match &ctx.pattern {
            Pattern::D1(p) => {
                let blk_t = Datatype::bytes(p.blk)?;
                let file_t = Datatype::vector(p.blocks_per_transfer(), 1, p.nprocs, &blk_t)?;
                let nblocks = mpi::to_count("blocks per transfer", p.blocks_per_transfer())?;
                Types::D1 {
                    blk_t,
                    file_t,
                    nblocks,
                }
            }
            Pattern::D2(p) => {
                let s = p.side();
                let (base, file_t) = match (p.chunked, p.interleaved) {
                    (false, false) => {
                        let pbc = Datatype::bytes(p.buf)?;
                        let t = Datatype::vector(p.blk, 1, s / p.buf, &pbc)?;
                        (pbc, t)
                    }
                    (false, true) => {
                        let pbi = Datatype::bytes(p.blk)?;
                        let t = Datatype::vector(p.buf, 1, s / p.blk, &pbi)?;
                        (pbi, t)
                    }
                    (true, false) => {
                        let t = Datatype::bytes(p.buf_bytes())?;
                        (Datatype::byte(), t)
                    }
                    (true, true) => {
                        let chunk_t = Datatype::bytes(p.blk * p.blk)?;
                        let t = Datatype::vector(p.buf / p.blk, 1, s / p.blk, &chunk_t)?;
                        (chunk_t, t)
                    }
                };
                let buf_t = Datatype::bytes(p.buf_bytes())?;
                let piece_t = Datatype::bytes(ctx.pattern.steps().piece_len)?;
                Types::D2 {
                    file_t,
                    _base: base,
                    buf_t,
                    piece_t,
                }
            }
        });
        Ok(())
    }

    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Access) -> Result<()> {
        match phase {
            Access::Write => {
                // created new (MPI_MODE_EXCL; the engine made the name free): it picks
                // up striping hints, and a link or a file that appeared is never opened
                let f = File::open(ctx.files, path, mode::CREATE_EXCL_RDWR, ctx.info)?;
                f.set_size(0)?;
                self.file = Some(f);
            }
            Access::Read => {
                self.file = Some(File::open(ctx.files, path, mode::RDONLY, ctx.info)?);
            }
        }
        Ok(())
    }

    fn begin_phase(&mut self, _ctx: &Ctx<'_>, _phase: Access) -> Result<()> {
        self.types.as_ref().map(|_| ()).ok_or_else(not_ready)
    }

    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, _phase: Access) -> Result<()> {
        self.base = ctx.dataset_base(d);
        self.steps = ctx.pattern.steps();
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &[u8]) -> Result<()> {
        if x.source.is_some()
            || x.wall.is_some()
            || x.lat.is_some()
            || x.order.is_some()
            || x.series.is_some()
        {
            return self.instrumented_writes(ctx, x, buf);
        }
        match self.contiguous_1d(ctx) {
            // one call per transfer at evenly spaced offsets, nothing else
            Some((f, t, nb, first, step)) if x.n > 0 => {
                let w = f.writes(buf, nb, t, ctx.p.collective)?;
                each_transfer(
                    ctx,
                    x.n,
                    x.keep_going,
                    #[inline(always)]
                    |k| w.at(mpi::to_offset(first + k * step)?),
                )
            }
            _ => each_transfer(ctx, x.n, x.keep_going, |k| {
                self.transfer(ctx, k, Dir::Write(buf))
            }),
        }
    }

    fn read(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &mut [u8]) -> Result<()> {
        match self.contiguous_1d(ctx) {
            Some((f, t, nb, first, step)) if x.n > 0 => {
                let r = f.reads(buf, nb, t, ctx.p.collective)?;
                each_read(
                    ctx,
                    x,
                    r,
                    #[inline(always)]
                    |r, k| r.at(mpi::to_offset(first + k * step)?),
                    |r| r.buf(),
                )
            }
            _ => each_read(
                ctx,
                x,
                buf,
                |b, k| self.transfer(ctx, k, Dir::Read(b)),
                |b| &b[..],
            ),
        }
    }

    fn hints_in_effect(&self) -> Option<Result<Vec<(String, String)>>> {
        self.file.as_ref().map(File::hints)
    }

    fn sync(&mut self) -> Result<()> {
        self.file.as_ref().ok_or_else(not_ready)?.sync()
    }

    fn close(&mut self) -> Result<()> {
        self.file.take().map_or(Ok(()), File::close)
    }
}
