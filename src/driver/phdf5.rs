//! Parallel HDF5 driver (spec §6.2–§6.3, §6.5, §9): MPI-IO file driver with the
//! `-a`/`-T` alignment; per phase a file dataspace `[D]` with the rank's hyperslab
//! (set once, moved per transfer with `H5Soffset_simple`), a memory dataspace `[buf]`
//! and a transfer property list (collective with `-C`); per dataset `Dataset_<d>` of
//! `H5T_NATIVE_UCHAR`, chunked by the block size with `-c`.

use std::ffi::CString;

use super::{Ctx, Driver, Phase};
use crate::error::{Error, Result};
use crate::ffi::hdf5::{Dataset, Dataspace, H5File, Plist};
use crate::ffi::mpi;

/// State of the PHDF5 driver. Field order is drop order: dataset, spaces and lists
/// before the file.
#[derive(Default)]
pub struct Phdf5Driver {
    dset: Option<Dataset>,
    file_space: Option<Dataspace>,
    mem_space: Option<Dataspace>,
    dxpl: Option<Plist>,
    file: Option<H5File>,
    /// `Dataset_1 … Dataset_nd`, made once so no formatting happens inside timers.
    names: Vec<CString>,
}

fn not_ready() -> Error {
    Error::Other("PHDF5 phase used before it was prepared".into())
}

impl Phdf5Driver {
    fn release(&mut self) {
        self.dset = None;
        self.file_space = None;
        self.mem_space = None;
        self.dxpl = None;
    }
}

impl Driver for Phdf5Driver {
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        ctx.params.collective
    }

    fn collective_datasets(&self) -> bool {
        true
    }

    fn abandon(&mut self) -> bool {
        self.release();
        match self.file.take() {
            Some(f) => {
                std::mem::forget(f);
                true
            }
            None => false,
        }
    }

    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Phase) -> Result<()> {
        if self.names.len() as u64 != ctx.params.num_dsets {
            // first use only: outside the timers the engine calls open after a barrier,
            // so build the names lazily here but only once per driver.
            self.names = (1..=ctx.params.num_dsets)
                .map(|d| CString::new(format!("Dataset_{d}")).expect("no NUL in dataset name"))
                .collect();
        }
        let p = ctx.params;
        let fapl = Plist::file_access_mpio(ctx.comm, ctx.info, p.h5_thresh, p.h5_align)?;
        let f = match phase {
            Phase::Write => H5File::create(path, &fapl)?,
            Phase::Read => H5File::open_read(path, &fapl)?,
        };
        self.file = Some(f);
        Ok(())
    }

    fn begin_phase(&mut self, ctx: &Ctx<'_>, _phase: Phase) -> Result<()> {
        let p = &ctx.pattern;
        let fs = Dataspace::simple(&[p.dataset_bytes()])?;
        let nb = p.blocks_per_transfer();
        if p.interleaved {
            fs.select_hyperslab(&[p.blk * p.rank], &[p.blk * p.nprocs], &[nb], &[p.blk])?;
        } else {
            fs.select_hyperslab(&[p.bpp * p.rank], &[p.blk], &[nb], &[p.blk])?;
        }
        self.file_space = Some(fs);
        self.mem_space = Some(Dataspace::simple(&[p.buf])?);
        self.dxpl = Some(Plist::dataset_xfer(ctx.params.collective)?);
        Ok(())
    }

    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, phase: Phase) -> Result<()> {
        let file = self.file.as_ref().ok_or_else(not_ready)?;
        let name = self.names.get(d as usize).ok_or_else(not_ready)?;
        let ds = match phase {
            Phase::Write => {
                let chunk = [ctx.pattern.blk];
                let dcpl = Plist::dataset_create(if ctx.params.chunk {
                    Some(&chunk[..])
                } else {
                    None
                })?;
                let fs = self.file_space.as_ref().ok_or_else(not_ready)?;
                Dataset::create(file, name, fs, &dcpl)?
            }
            Phase::Read => Dataset::open(file, name)?,
        };
        self.dset = Some(ds);
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx<'_>, k: u64, buf: &[u8]) -> Result<()> {
        let (Some(ds), Some(fs), Some(ms), Some(x)) =
            (&self.dset, &self.file_space, &self.mem_space, &self.dxpl)
        else {
            return Err(not_ready());
        };
        fs.offset_simple(&[offset(ctx, k)?])?;
        ds.write(ms, fs, x, buf)
    }

    fn read(&mut self, ctx: &Ctx<'_>, k: u64, buf: &mut [u8]) -> Result<()> {
        let (Some(ds), Some(fs), Some(ms), Some(x)) =
            (&self.dset, &self.file_space, &self.mem_space, &self.dxpl)
        else {
            return Err(not_ready());
        };
        fs.offset_simple(&[offset(ctx, k)?])?;
        ds.read(ms, fs, x, buf)
    }

    fn end_dataset(&mut self) -> Result<()> {
        match self.dset.take() {
            Some(d) => d.close(),
            None => Ok(()),
        }
    }

    fn end_phase(&mut self) -> Result<()> {
        self.release();
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        self.release();
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

/// Selection offset of transfer `k`: `k × buf` (contiguous) or `k × buf × N`
/// (interleaved), in elements (spec §6.2, §6.3).
fn offset(ctx: &Ctx<'_>, k: u64) -> Result<i64> {
    let p = &ctx.pattern;
    let off = if p.interleaved {
        k * p.buf * p.nprocs
    } else {
        k * p.buf
    };
    i64::try_from(off).map_err(|_| Error::Other(format!("HDF5 selection offset {off} overflows")))
}
