//! Parallel HDF5 driver (spec §6.2–§6.5, §9): MPI-IO file driver with the `-a`/`-T`
//! alignment; per phase a file dataspace (`[D]` in 1D, `[S, S]` in 2D) with the rank's
//! hyperslab (set once, moved per transfer with `H5Soffset_simple`), a memory dataspace
//! of the buffer's shape and a transfer property list (collective with `-C`); per
//! dataset `Dataset_<d>` of `H5T_NATIVE_UCHAR`, chunked by `blk` (1D) or `blk × blk`
//! (2D) with `-c`, with the fill settings of `--fill-value`, `--fill-time` and
//! `--alloc-time` when given (issue 6).

use std::ffi::CString;
use std::path::PathBuf;

use super::interface::{each_read, each_write, Access, Ctx, Driver, Transfers};
use super::subfiles::SubfilingLayout;
use crate::error::{Error, Result};
use crate::ffi::hdf5::{Dataset, Dataspace, H5File, Plist};
use crate::pattern::{Pattern, Pattern1D};

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
    /// `--chunk-cache`: the dataset-access list every dataset is created or opened with.
    dapl: Option<Plist>,
    /// What HDF5 reported in effect for `--coll-metadata`, `--chunk-cache` and
    /// `--subfiling` ([`Driver::settings_in_effect`]).
    seen: Vec<(String, String)>,
    /// `--subfiling`: the files go through the subfiling driver, not MPI-IO.
    subfiling: bool,
}

fn not_ready() -> Error {
    Error::Internal("PHDF5 phase used before it was prepared")
}

impl Phdf5Driver {
    /// The dataset, its file and memory dataspaces and the transfer list of the current
    /// dataset, once prepared.
    fn ready(&self) -> Result<(&Dataset, &Dataspace, &Dataspace, &Plist)> {
        match (&self.dset, &self.file_space, &self.mem_space, &self.dxpl) {
            (Some(ds), Some(fs), Some(ms), Some(x)) => Ok((ds, fs, ms, x)),
            _ => Err(not_ready()),
        }
    }

    /// Note a setting HDF5 reported, once per distinct value.
    fn note(&mut self, fact: &str, value: String) {
        if !self.seen.iter().any(|(k, v)| k == fact && *v == value) {
            self.seen.push((fact.to_string(), value));
        }
    }

    fn release(&mut self) {
        self.dset = None;
        self.file_space = None;
        self.mem_space = None;
        self.dxpl = None;
    }

    /// The write loop with `--payload`: transfer k's bytes from the payload's stamps
    /// (`x.source`), checked per transfer; out of line, so that the default loop of
    /// [`Driver::write`] keeps its registers (`make bench-instr`).
    #[inline(never)]
    fn stamped_writes(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>) -> Result<()> {
        let Some(mut src) = x.source.take() else {
            return Ok(());
        };
        let (ds, fs, ms, dx) = self.ready()?;
        each_write(ctx, x, |k| {
            let w = ds.writes(ms, fs, dx, src.at(k))?;
            match &ctx.pattern {
                Pattern::D1(p) => w.at(&[conv(k * step_1d(p))?]),
                Pattern::D2(p) => {
                    let (r, c) = p.hdf5_offset(k);
                    w.at(&[conv(r)?, conv(c)?])
                }
            }
        })
    }
}

impl Driver for Phdf5Driver {
    fn collective_transfers(&self, ctx: &Ctx<'_>) -> bool {
        ctx.p.collective
    }

    fn collective_datasets(&self) -> bool {
        true
    }

    fn abandon(&mut self) -> bool {
        self.release();
        self.file.take().map(std::mem::forget).is_some()
    }

    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Access) -> Result<()> {
        if self.names.len() as u64 != ctx.p.num_dsets {
            // first use only: outside the timers the engine calls open after a barrier,
            // so build the names lazily here but only once per driver.
            self.names = (1..=ctx.p.num_dsets)
                .map(|d| CString::new(format!("Dataset_{d}")).expect("no NUL in dataset name"))
                .collect();
        }
        let c = ctx.p;
        let fapl = Plist::file_access_mpio(ctx.files, ctx.info, c.h5_thresh, c.h5_align)?;
        if c.coll_metadata {
            fapl.set_coll_metadata()?;
        }
        self.subfiling = c.subfiling;
        if c.subfiling {
            // the communicator and info of file_access_mpio stay on the list
            fapl.set_fapl_subfiling()?;
        }
        if let (Some(cc), None) = (c.chunk_cache, &self.dapl) {
            let bytes = usize::try_from(cc.bytes).unwrap_or(usize::MAX);
            let slots = cc.slots.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            let w0 = cc.w0_milli.map(|m| f64::from(m) / 1000.0);
            self.dapl = Some(Plist::dataset_access_chunk_cache(bytes, slots, w0)?);
        }
        let f = match phase {
            Access::Write => H5File::create(path, &fapl)?,
            Access::Read => H5File::open_read(path, &fapl)?,
        };
        if c.coll_metadata {
            // the file's own access list: what HDF5 applies (a list copy, no I/O)
            let (ops, write) = f.access_list()?.coll_metadata()?;
            self.note("hdf5_all_coll_metadata_ops", ops.to_string());
            self.note("hdf5_coll_metadata_write", write.to_string());
        }
        self.file = Some(f);
        Ok(())
    }

    fn begin_phase(&mut self, ctx: &Ctx<'_>, _phase: Access) -> Result<()> {
        let (fs, ms) = match &ctx.pattern {
            Pattern::D1(p) => {
                let fs = Dataspace::simple(&[p.dataset_bytes()])?;
                let nb = p.blocks_per_transfer();
                if p.interleaved {
                    fs.select_hyperslab(&[p.blk * p.rank], &[p.blk * p.nprocs], &[nb], &[p.blk])?;
                } else {
                    fs.select_hyperslab(&[p.bpp * p.rank], &[p.blk], &[nb], &[p.blk])?;
                }
                (fs, Dataspace::simple(&[p.buf])?)
            }
            Pattern::D2(p) => {
                let s = p.side();
                let fs = Dataspace::simple(&[s, s])?;
                let nb = p.buf / p.blk;
                let b = [p.blk, p.blk];
                if p.interleaved {
                    fs.select_hyperslab(
                        &[0, p.blk * p.rank],
                        &[p.blk, p.blk * p.nprocs],
                        &[nb, 1],
                        &b,
                    )?;
                } else {
                    fs.select_hyperslab(&[p.bpp * p.rank, 0], &[1, p.blk], &[1, nb], &b)?;
                }
                let (rows, cols) = p.buf_shape();
                (fs, Dataspace::simple(&[rows, cols])?)
            }
        };
        self.file_space = Some(fs);
        self.mem_space = Some(ms);
        self.dxpl = Some(Plist::dataset_xfer(ctx.p.collective)?);
        Ok(())
    }

    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, phase: Access) -> Result<()> {
        let file = self.file.as_ref().ok_or_else(not_ready)?;
        let name = self.names.get(d as usize).ok_or_else(not_ready)?;
        let ds = match phase {
            Access::Write => {
                let dims: &[u64] = match &ctx.pattern {
                    Pattern::D1(p) => &[p.blk],
                    Pattern::D2(p) => &[p.blk, p.blk],
                };
                let dcpl = Plist::dataset_create(if ctx.p.chunk { Some(dims) } else { None })?;
                // --fill-value/--fill-time/--alloc-time; nothing is set by default
                dcpl.set_fill(&ctx.p.fill.into())?;
                if let Some(level) = ctx.p.deflate {
                    dcpl.set_deflate(level)?;
                }
                let fs = self.file_space.as_ref().ok_or_else(not_ready)?;
                Dataset::create_with(file, name, fs, &dcpl, self.dapl.as_ref())?
            }
            Access::Read => Dataset::open_with(file, name, self.dapl.as_ref())?,
        };
        if self.dapl.is_some() {
            // the dataset's access list: the cache HDF5 uses (a list copy, no I/O)
            let (bytes, slots, w0) = ds.access_list()?.chunk_cache()?;
            self.note("hdf5_chunk_cache", format!("{bytes},{slots},{w0}"));
        }
        self.dset = Some(ds);
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &[u8]) -> Result<()> {
        if x.n == 0 {
            return Ok(());
        }
        if x.source.is_some() {
            return self.stamped_writes(ctx, x);
        }
        let (ds, fs, ms, dx) = self.ready()?;
        let w = ds.writes(ms, fs, dx, buf)?;
        match &ctx.pattern {
            Pattern::D1(p) => {
                let step = step_1d(p);
                each_write(
                    ctx,
                    x,
                    #[inline(always)]
                    |k| w.at(&[conv(k * step)?]),
                )
            }
            Pattern::D2(p) => each_write(ctx, x, |k| {
                let (r, c) = p.hdf5_offset(k);
                w.at(&[conv(r)?, conv(c)?])
            }),
        }
    }

    fn read(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &mut [u8]) -> Result<()> {
        if x.n == 0 {
            return Ok(());
        }
        let (ds, fs, ms, dx) = self.ready()?;
        let r = ds.reads(ms, fs, dx, buf)?;
        match &ctx.pattern {
            Pattern::D1(p) => {
                let step = step_1d(p);
                each_read(
                    ctx,
                    x,
                    r,
                    #[inline(always)]
                    |r, k| r.at(&[conv(k * step)?]),
                    |r| r.buf(),
                )
            }
            Pattern::D2(p) => each_read(
                ctx,
                x,
                r,
                |r, k| {
                    let (row, col) = p.hdf5_offset(k);
                    r.at(&[conv(row)?, conv(col)?])
                },
                |r| r.buf(),
            ),
        }
    }

    fn end_dataset(&mut self) -> Result<()> {
        self.dset.take().map_or(Ok(()), Dataset::close)
    }

    fn end_phase(&mut self) -> Result<()> {
        self.release();
        Ok(())
    }

    fn hints_in_effect(&self) -> Option<Result<Vec<(String, String)>>> {
        if self.subfiling {
            // no MPI-IO file: the driver's I/O concentrators write with POSIX calls
            return None;
        }
        self.file.as_ref().map(H5File::mpi_hints)
    }

    fn after_open(&mut self, path: &CString) {
        if !self.subfiling {
            return;
        }
        self.note("hdf5_driver", "subfiling".to_string());
        match SubfilingLayout::of(path) {
            Ok(l) => {
                self.note("hdf5_subfiling_stripe_size", l.stripe_size.to_string());
                self.note("hdf5_subfiling_ioc_count", l.ioc_count.to_string());
                self.note("hdf5_subfiling_subfiles", l.subfiles.len().to_string());
            }
            Err(e) => self.note("hdf5_subfiling_stripe_size", format!("unknown ({e})")),
        }
    }

    fn holds_companions(&self) -> bool {
        self.subfiling
    }

    fn companion_files(&self, ctx: &Ctx<'_>, path: &CString) -> Result<Vec<PathBuf>> {
        if !ctx.p.subfiling {
            return Ok(Vec::new());
        }
        SubfilingLayout::of(path).map(SubfilingLayout::files)
    }

    fn remove_leftovers(&mut self, ctx: &Ctx<'_>, path: &CString) -> Result<()> {
        if !ctx.p.subfiling {
            return Ok(());
        }
        // a stub without a readable configuration names no subfiles of its own
        SubfilingLayout::of(path).map_or(Ok(()), |l| l.remove())
    }

    fn remove(&mut self, ctx: &Ctx<'_>, path: &CString) -> Result<()> {
        if !ctx.p.subfiling {
            return crate::ffi::mpi::file_delete(path, ctx.info);
        }
        // the configuration names the subfiles after the stub's inode: read it first
        let layout = SubfilingLayout::of(path);
        crate::ffi::mpi::file_delete(path, ctx.info)?;
        layout?.remove()
    }

    fn settings_in_effect(&self) -> &[(String, String)] {
        &self.seen
    }

    fn sync(&mut self) -> Result<()> {
        self.file.as_ref().ok_or_else(not_ready)?.flush()
    }

    fn close(&mut self) -> Result<()> {
        self.release();
        self.file.take().map_or(Ok(()), H5File::close)
    }
}

/// Elements from one 1D transfer's selection offset to the next (`H5Soffset_simple`):
/// `buf` (contiguous) or `buf × N` (interleaved); 2D uses the (row, column) offset of
/// [`crate::pattern::Pattern2D::hdf5_offset`] (spec §6.2–§6.4).
fn step_1d(p: &Pattern1D) -> u64 {
    if p.interleaved {
        p.buf * p.nprocs
    } else {
        p.buf
    }
}

/// A selection offset as HDF5's `hssize_t`.
#[inline]
fn conv(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| offset_overflow(v))
}

/// The error of a selection offset above `hssize_t`'s range.
#[cold]
#[inline(never)]
fn offset_overflow(v: u64) -> Error {
    Error::Limit(format!("HDF5 selection offset {v} overflows"))
}
