//! POSIX driver: `open(O_CREAT|O_TRUNC|O_NOFOLLOW|O_RDWR, 0600)` (the engine has
//! refused anything under the name but a file of this user) then an agreement, one `pwrite`
//! (`pread`) per piece of a transfer at the offsets of spec §6.2–§6.3, `close`.
//! `-C` does not apply to POSIX. With `--direct` both opens add `O_DIRECT`; with
//! `--fsync` the write phase ends with `fsync`.

use std::ffi::CString;

use super::interface::{each_read, each_write, Access, Ctx, Driver, Transfers};
use crate::benchmark::payload::Stamps;
use crate::error::{Error, Result};
use crate::ffi::posix::{self, Fd, FileStat, OpenMode};
use crate::pattern::Steps;

/// State of the POSIX driver: the open file, the current dataset's base offset and the
/// layout of its transfers.
#[derive(Default)]
pub struct PosixDriver {
    fd: Option<Fd>,
    base: u64,
    steps: Steps,
    path: Option<CString>,
}

impl PosixDriver {
    fn fd(&self) -> Result<&Fd> {
        self.fd
            .as_ref()
            .ok_or(Error::Internal("POSIX file is not open"))
    }

    #[cold]
    fn with_path(&self, e: Error) -> Error {
        e.with_path(|| self.path.as_deref().map(posix::c_text))
    }
}

impl PosixDriver {
    /// [`Driver::write`] with `--payload`: transfer `k`'s bytes from `src.at(k)`, piece
    /// by piece as the general path of the default payload.
    #[inline(never)]
    fn write_generated(
        &mut self,
        ctx: &Ctx<'_>,
        x: &mut Transfers<'_>,
        mut src: Stamps<'_>,
    ) -> Result<()> {
        let (fd, st, base) = (self.fd()?, self.steps, self.base);
        let res = match (st.linear, st.pieces) {
            // one piece per transfer at evenly spaced offsets, as the default path
            (Some((first, step)), 1) => {
                let first = base + first;
                each_write(ctx, x, |k| fd.pwrite_all(src.at(k), first + k * step))
            }
            _ => self.write_generated_pieces(ctx, x, src),
        };
        res.map_err(|e| self.with_path(e))
    }

    /// [`PosixDriver::write_generated`] for transfers of several pieces.
    fn write_generated_pieces(
        &self,
        ctx: &Ctx<'_>,
        x: &mut Transfers<'_>,
        mut src: Stamps<'_>,
    ) -> Result<()> {
        let (fd, st, p, base) = (self.fd()?, self.steps, &ctx.pattern, self.base);
        each_write(ctx, x, |k| {
            let b = src.at(k);
            let o = base + st.start(p, k);
            for j in 0..st.pieces {
                let pc = st.piece(o, j);
                fd.pwrite_all(
                    &b[pc.buf_off as usize..(pc.buf_off + pc.len) as usize],
                    pc.file_off,
                )?;
            }
            Ok(())
        })
    }
}

impl Driver for PosixDriver {
    fn open(&mut self, ctx: &Ctx<'_>, path: &CString, phase: Access) -> Result<()> {
        let how = match (phase, ctx.p.storage.direct) {
            (Access::Write, false) => OpenMode::CreateRw,
            (Access::Read, false) => OpenMode::Read,
            (Access::Write, true) => OpenMode::CreateRwDirect,
            (Access::Read, true) => OpenMode::ReadDirect,
        };
        self.path = Some(path.clone());
        self.fd = Some(Fd::open(path, how)?);
        Ok(())
    }

    fn begin_dataset(&mut self, ctx: &Ctx<'_>, d: u64, _phase: Access) -> Result<()> {
        self.base = ctx.dataset_base(d);
        self.steps = ctx.pattern.steps();
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &[u8]) -> Result<()> {
        if x.n == 0 {
            return Ok(());
        }
        if let Some(src) = x.source.take() {
            return self.write_generated(ctx, x, src);
        }
        let (fd, st, p, base) = (self.fd()?, self.steps, &ctx.pattern, self.base);
        let res = match (st.linear, st.pieces) {
            // one piece per transfer at evenly spaced offsets (1D contiguous, 2D chunked
            // contiguous): one pwrite per transfer, nothing else
            (Some((first, step)), 1) => {
                let (first, src) = (base + first, &buf[..st.piece_len as usize]);
                each_write(ctx, x, |k| fd.pwrite_all(src, first + k * step))
            }
            _ => each_write(ctx, x, |k| {
                let o = base + st.start(p, k);
                for j in 0..st.pieces {
                    let pc = st.piece(o, j);
                    let src = &buf[pc.buf_off as usize..(pc.buf_off + pc.len) as usize];
                    fd.pwrite_all(src, pc.file_off)?;
                }
                Ok(())
            }),
        };
        res.map_err(|e| self.with_path(e))
    }

    fn read(&mut self, ctx: &Ctx<'_>, x: &mut Transfers<'_>, buf: &mut [u8]) -> Result<()> {
        if x.n == 0 {
            return Ok(());
        }
        let (fd, st, p, base) = (self.fd()?, self.steps, &ctx.pattern, self.base);
        let res = match (st.linear, st.pieces) {
            // one piece, the whole buffer: the buffer is exactly `piece_len` bytes
            (Some((first, step)), 1) => {
                let (first, dst) = (base + first, &mut buf[..st.piece_len as usize]);
                each_read(
                    ctx,
                    x,
                    (dst, first),
                    move |(d, first), k| fd.pread_exact(d, *first + k * step),
                    |(d, _)| &d[..],
                )
            }
            _ => each_read(
                ctx,
                x,
                buf,
                |b, k| {
                    let o = base + st.start(p, k);
                    for j in 0..st.pieces {
                        let pc = st.piece(o, j);
                        let dst = &mut b[pc.buf_off as usize..(pc.buf_off + pc.len) as usize];
                        fd.pread_exact(dst, pc.file_off)?;
                    }
                    Ok(())
                },
                |b| &b[..],
            ),
        };
        res.map_err(|e| self.with_path(e))
    }

    fn sync(&mut self) -> Result<()> {
        self.fd()?.fsync().map_err(|e| self.with_path(e))
    }

    fn close(&mut self) -> Result<()> {
        self.fd
            .take()
            .map_or(Ok(()), |fd| fd.close().map_err(|e| self.with_path(e)))
    }

    fn remove(&mut self, _ctx: &Ctx<'_>, path: &CString) -> Result<()> {
        use std::os::unix::ffi::OsStrExt;
        posix::remove(std::path::Path::new(std::ffi::OsStr::from_bytes(
            path.to_bytes(),
        )))
    }

    fn open_file_stat(&self) -> Option<Result<FileStat>> {
        Some(
            self.fd()
                .and_then(|fd| fd.stat())
                .map_err(|e| self.with_path(e)),
        )
    }
}
