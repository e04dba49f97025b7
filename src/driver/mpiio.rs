//! MPI-IO driver (spec §5.2, §6.2–§6.3): collective `MPI_File_open`, `set_size(0)`;
//! per phase the derived datatypes `blkT = contiguous(blk, byte)` and
//! `fileT = vector(buf/blk, 1, N, blkT)`; independent `write_at`/`read_at` or
//! collective `write_at_all`/`read_at_all`, with a file view of `fileT` for the
//! interleaved collective pattern.

use std::ffi::CString;

use super::{Ctx, Driver, Phase};
use crate::error::{Error, Result};
use crate::ffi::mpi::{self, mode, Datatype, File};

/// State of the MPI-IO driver.
#[derive(Default)]
pub struct MpiioDriver {
    file: Option<File>,
    /// `blkT`, `fileT` of the current phase.
    types: Option<(Datatype, Datatype)>,
    byte: Option<Datatype>,
    base: u64,
    /// `buf / blk` as an MPI count.
    nblocks: i32,
}

fn not_ready() -> Error {
    Error::Other("MPI-IO phase used before it was prepared".into())
}

impl Driver for MpiioDriver {
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        ctx.params.collective
    }

    fn abandon(&mut self) -> bool {
        self.types = None;
        match self.file.take() {
            Some(f) => {
                std::mem::forget(f);
                true
            }
            None => false,
        }
    }

    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Phase) -> Result<()> {
        match phase {
            Phase::Write => {
                // Delete from one rank, then let everyone see the deletion before the
                // collective create: a fresh file picks up striping hints from
                // HDF5_MPI_INFO. (The C tool deletes from every rank, racing the open.)
                if ctx.comm.rank()? == 0 {
                    let _ = mpi::file_delete(path, ctx.info);
                }
                ctx.comm.barrier()?;
                let f = File::open(ctx.comm, path, mode::CREATE_RDWR, ctx.info)?;
                f.set_size(0)?;
                self.file = Some(f);
            }
            Phase::Read => {
                self.file = Some(File::open(ctx.comm, path, mode::RDONLY, ctx.info)?);
            }
        }
        Ok(())
    }

    fn begin_phase(&mut self, ctx: &Ctx<'_>, _phase: Phase) -> Result<()> {
        let p = &ctx.pattern;
        let byte = Datatype::byte();
        let blk_t = Datatype::contiguous(p.blk, &byte)?;
        let file_t = Datatype::vector(p.blocks_per_transfer(), 1, p.nprocs, &blk_t)?;
        self.nblocks = mpi::to_count("blocks per transfer", p.blocks_per_transfer())?;
        self.types = Some((blk_t, file_t));
        self.byte = Some(byte);
        Ok(())
    }

    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, _phase: Phase) -> Result<()> {
        self.base = ctx.dataset_base(d);
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx<'_>, k: u64, buf: &[u8]) -> Result<()> {
        let p = &ctx.pattern;
        let f = self.file.as_ref().ok_or_else(not_ready)?;
        let (blk_t, file_t) = self.types.as_ref().ok_or_else(not_ready)?;
        let coll = ctx.params.collective;
        if !p.interleaved {
            let off = mpi::to_offset(self.base + p.transfer_start(k))?;
            if coll {
                f.write_at_all(off, buf, self.nblocks, blk_t)
            } else {
                f.write_at(off, buf, self.nblocks, blk_t)
            }
        } else if coll {
            // both calls are collective: make the second even if the first failed
            let view = f.set_view(self.base + p.transfer_start(k), blk_t, file_t, ctx.info);
            let write = f.write_at_all(0, buf, self.nblocks, blk_t);
            view.and(write)
        } else {
            for j in 0..p.pieces_per_transfer() {
                let pc = p.piece(k, j);
                let src = &buf[pc.buf_off as usize..(pc.buf_off + pc.len) as usize];
                f.write_at(mpi::to_offset(self.base + pc.file_off)?, src, 1, blk_t)?;
            }
            Ok(())
        }
    }

    fn read(&mut self, ctx: &Ctx<'_>, k: u64, buf: &mut [u8]) -> Result<()> {
        let p = &ctx.pattern;
        let f = self.file.as_ref().ok_or_else(not_ready)?;
        let (blk_t, file_t) = self.types.as_ref().ok_or_else(not_ready)?;
        let coll = ctx.params.collective;
        if !p.interleaved {
            let off = mpi::to_offset(self.base + p.transfer_start(k))?;
            if coll {
                f.read_at_all(off, buf, self.nblocks, blk_t)
            } else {
                f.read_at(off, buf, self.nblocks, blk_t)
            }
        } else if coll {
            let view = f.set_view(self.base + p.transfer_start(k), blk_t, file_t, ctx.info);
            let read = f.read_at_all(0, buf, self.nblocks, blk_t);
            view.and(read)
        } else {
            for j in 0..p.pieces_per_transfer() {
                let pc = p.piece(k, j);
                let dst = &mut buf[pc.buf_off as usize..(pc.buf_off + pc.len) as usize];
                f.read_at(mpi::to_offset(self.base + pc.file_off)?, dst, 1, blk_t)?;
            }
            Ok(())
        }
    }

    fn end_dataset(&mut self) -> Result<()> {
        Ok(())
    }

    fn end_phase(&mut self) -> Result<()> {
        // fileT is freed before blkT (spec §6.2)
        if let Some((blk_t, file_t)) = self.types.take() {
            drop(file_t);
            drop(blk_t);
        }
        self.byte = None;
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        self.end_phase()?;
        match self.file.take() {
            Some(f) => f.close(),
            None => Ok(()),
        }
    }

    fn remove(&mut self, ctx: &Ctx<'_>, path: &str) -> Result<()> {
        let c = CString::new(path).map_err(|_| Error::Other(format!("bad file name {path:?}")))?;
        mpi::file_delete(&c, ctx.info)
    }
}
