//! The up-front checks of the storage options (issue 13, [`check_up_front`]), ending at
//! one agreement point so all ranks refuse together ([`Error::Invalid`]).

use std::ffi::CString;
use std::path::{Path, PathBuf};

use super::payload;
use super::run::pattern;
use super::storage::Node;
use crate::agreement::refuse_first;
use crate::config::{Api, Params, StorageFacts};
use crate::datadir::dir_or_current;
use crate::datadir::{data_file_name, data_files, rank_file_name};
use crate::error::{path_text, Error, Result};
use crate::ffi::hdf5::{Dataset, H5File, Plist, Quiet};
use crate::ffi::mpi::{Comm, Op};
use crate::ffi::posix::{self, Fd, OpenMode};
use crate::ffi::storage::{self as kernel, DirectIoAlignment, DROP_CACHES};
use crate::measure::Counts;
use crate::output::export::hostname;

/// The machine-dependent checks of the storage options on `comm`, before any report or
/// data file is written, and what they found. Collective; no MPI call without them.
///
/// Errors: [`Error::Invalid`] with the reason (the same on every rank), or an MPI error.
pub fn check_up_front(p: &Params, comm: &Comm, dir: &Path) -> Result<StorageFacts> {
    let s = &p.storage;
    let mut facts = StorageFacts::default();
    if !s.any() {
        return Ok(facts);
    }
    let node = Node::of(comm)?;
    facts.one_node = node.one_node;
    facts.ranks_on_node0 = node.on_node0;
    // each check finds its problem locally; one agreement refuses the run for the first
    let kept = (s.read_only && comm.rank()? == 0)
        .then(|| check_kept_files(p, dir).err())
        .flatten()
        .map(|e| e.to_string());
    let drop = (s.drop_caches && node.leader)
        .then(|| kernel::check_drop_caches().err())
        .flatten()
        .map(|e| {
            format!(
                "--drop-caches: this process may not write {DROP_CACHES} on {} ({e}): \
                 dropping the page cache needs root on every node; without it, \
                 --direct (POSIX) also keeps the page cache out of the numbers",
                hostname()
            )
        });
    let probe = if s.direct && node.leader {
        direct_probe(p, dir)
    } else {
        Ok((0, String::new()))
    };
    let (align, source, direct) = match probe {
        Ok((a, src)) => (a, src, None),
        Err(m) => (0, String::new(), Some(m.to_string())),
    };
    // the alignment and its source are agreed before the refusal, so that the problems
    // of --direct (the same on every rank) follow from the one agreement
    let problems = if s.direct {
        let align = comm.allreduce_u64(align, Op::Max)?;
        // rank 0 is the leader of its node: its source is the one shown
        let source = String::from_utf8_lossy(&comm.bcast_bytes(0, source.as_bytes())?).into_owned();
        let problems = direct_problems(p, align, &source);
        facts.direct_align = Some((align, source));
        problems
    } else {
        Vec::new()
    };
    refuse_first(comm, [kept, drop, direct])?;
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    Ok(facts)
}

/// A refusal of the storage options (the complete message).
fn refused(m: String) -> Error {
    Error::Invalid(vec![m])
}

/// `--read-only`: the data files an earlier run left are there and fit the parameters
/// (`d × D` bytes; HDF5: `Dataset_1..d` of shape `[D]` or `[S, S]`).
fn check_kept_files(p: &Params, dir: &Path) -> Result<()> {
    let again = "write the files first with the same options and HDF5_NOCLEANUP=1, \
                 without --read-only";
    let counts = p.proc_counts();
    // --file-per-process: each file holds one rank's part
    let side = |n: u32| {
        let n = if p.file_per_process { 1 } else { n };
        p.num_bytes.saturating_mul(u64::from(n))
    };
    let dataset = |n: u32| side(n).saturating_mul(if p.dim2d { side(n) } else { 1 });
    let _quiet = Quiet::new();
    for api in p.apis.iter() {
        for f in 1..=p.num_files {
            for (name, owner) in kept_names(p, dir, f, api)? {
                let path = path_text(name.as_os_str());
                let meta = std::fs::metadata(&name).map_err(|e| {
                    let e = posix::fail_named("stat", e.raw_os_error().unwrap_or(0), path.clone());
                    refused(format!("--read-only: no data file to read: {e}; {again}"))
                })?;
                if !meta.is_file() {
                    return Err(refused(format!(
                        "--read-only: {path} is not a regular file"
                    )));
                }
                // --stonewall: the transfers each rank wrote (the counts file beside the data
                // file); unreadable or unfit counts are refused when the file is read
                let written = if p.stonewall.millis.is_some() {
                    recorded_counts(&name)
                } else {
                    None
                };
                if let (true, Some(c)) = (p.stonewall.wear_out, &written) {
                    if c.windows(2).any(|w| w[0] != w[1]) {
                        let list: Vec<String> = c.iter().map(u64::to_string).collect();
                        return Err(refused(format!(
                            "--read-only --wear-out: {path} holds different transfer counts per \
                         rank ({}, in rank order, from its counts file): wear-out would read \
                         past what the ranks with fewer wrote; read without --wear-out, or \
                         write the files with --wear-out",
                            list.join(" ")
                        )));
                    }
                }
                // without fitting counts the read phase refuses the file: nothing to check here
                let unchecked = p.stonewall.millis.is_some() && written.is_none();
                let written = written.as_deref();
                if api != Api::Phdf5 {
                    for &n in &counts {
                        let want = dataset(n).saturating_mul(p.num_dsets);
                        // --stonewall: the write phase may have stopped early (counts file)
                        let short_ok = p.stonewall.millis.is_some() && meta.len() < want;
                        if meta.len() != want && !short_ok {
                            return Err(refused(format!(
                                "--read-only: {path} holds {} bytes, but a run of {n} process(es) \
                             with these options reads {want} ({} dataset(s) of {} bytes): it \
                             was not written with the same -e, -d, -g and number of processes \
                             (a read-only run needs one process count: -p N -P N); {again}",
                                meta.len(),
                                p.num_dsets,
                                dataset(n)
                            )));
                        }
                    }
                    let file = std::fs::File::open(&name).map_err(|e| {
                        let e =
                            posix::fail_named("open", e.raw_os_error().unwrap_or(0), path.clone());
                        refused(format!("--read-only: {e}"))
                    })?;
                    if !unchecked {
                        check_writers(p, api, &file, 0, &path, f, written, owner)?;
                    }
                    continue;
                }
                let c = posix::c_path(&name)?;
                let file_name = name;
                let fapl = Plist::file_access_sec2(0)?;
                let file = H5File::open_read(&c, &fapl).map_err(|e| {
                    refused(format!(
                        "--read-only: {path} is not an HDF5 file h5perf can open ({}); {again}",
                        crate::error::innermost(&e.to_string())
                    ))
                })?;
                for d in 1..=p.num_dsets {
                    let name = format!("Dataset_{d}");
                    let cname = CString::new(name.clone()).expect("no NUL in a dataset name");
                    let ds = Dataset::open(&file, &cname).map_err(|e| {
                        refused(format!(
                            "--read-only: {path} has no dataset {name} ({}); {again}",
                            crate::error::innermost(&e.to_string())
                        ))
                    })?;
                    // the layout the files have, which the report and the results then name
                    let contiguous = ds.offset();
                    match (p.chunk, contiguous) {
                        (true, Some(_)) => {
                            return Err(refused(format!(
                                "--read-only: {path}: {name} is stored contiguous, but -c reads \
                             chunked storage: the files were written without -c (run without \
                             -c, or {again})"
                            )))
                        }
                        (false, None) => {
                            return Err(refused(format!(
                            "--read-only: {path}: {name} is stored chunked (or not allocated), \
                             but a run without -c reads contiguous storage: the files were \
                             written with -c (run with -c, or {again})"
                        )))
                        }
                        _ => {}
                    }
                    let dims = ds.dims()?;
                    for &n in &counts {
                        let want = vec![side(n); if p.dim2d { 2 } else { 1 }];
                        if dims != want {
                            return Err(refused(format!(
                                "--read-only: {path}: {name} has the shape {dims:?}, but a run of \
                             {n} process(es) with these options reads {want:?}: it was not written \
                             with the same -e, -g and number of processes (a read-only run \
                             needs one process count: -p N -P N); {again}"
                            )));
                        }
                    }
                    if let (Some(base), 1, false) = (contiguous, d, unchecked) {
                        let file = std::fs::File::open(&file_name).map_err(|e| {
                            let e = posix::fail_named(
                                "open",
                                e.raw_os_error().unwrap_or(0),
                                path.clone(),
                            );
                            refused(format!("--read-only: {e}"))
                        })?;
                        check_writers(p, api, &file, base, &path, f, written, owner)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The data files of index `f` (1-based) and `api` that a `--read-only` run reads, each
/// with the rank whose own file it is (`--file-per-process`: one per rank of the run's
/// one process count) or `None` (the shared file).
///
/// Errors: a name too long ([`data_file_name`]).
fn kept_names(p: &Params, dir: &Path, f: u64, api: Api) -> Result<Vec<(PathBuf, Option<u32>)>> {
    if !p.file_per_process {
        return Ok(vec![(data_file_name(dir, f, api.suffix())?, None)]);
    }
    let n = p.proc_counts().into_iter().max().unwrap_or(1);
    (0..n)
        .map(|r| Ok((rank_file_name(dir, f, r, api.suffix())?, Some(r))))
        .collect()
}

/// `--read-only`: the first dataset of `file` (its raw bytes from `base`) holds what the
/// run's one process count and pattern read: every rank's first and last piece of its
/// first transfer size hold that rank's byte (`rank + 1`, spec §7). A few bytes are
/// read (`pread`), before any timer. Only files written with `-D v` hold the ranks'
/// bytes (without it the transfer buffer is not filled: zeros): a 0 where rank 0's
/// part begins means there is nothing to check. With `written` (`--stonewall`: the
/// transfers each rank made, from the counts file) a rank's last piece is that of its
/// last transfer written in the first dataset, and a rank that wrote none is skipped.
/// With `owner` (`--file-per-process`) the file is that rank's own: its part alone, in
/// the pattern of one process, holding its byte.
/// Errors: a refusal naming the offset, what the byte says, and the configuration the
/// file holds ([`found_writers`]). A generated payload holds no rank bytes:
/// [`check_stamp`] instead (shared files). `index`: the file's number (1-based, `-F`).
#[allow(clippy::too_many_arguments)]
fn check_writers(
    p: &Params,
    api: Api,
    file: &std::fs::File,
    base: u64,
    path: &str,
    index: u64,
    written: Option<&[u64]>,
    owner: Option<u32>,
) -> Result<()> {
    let (Some(&n), Some(&buf)) = (p.proc_counts().first(), p.buf_sizes().first()) else {
        return Ok(());
    };
    let bytes_at = |off: u64, b: &mut [u8]| -> Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(file, b, base + off).map_err(|e| {
            refused(format!(
                "--read-only: {}",
                posix::fail_named("pread", e.raw_os_error().unwrap_or(0), path.to_string())
            ))
        })
    };
    let byte_at = |off: u64| -> Result<u8> {
        let mut b = [0u8; 1];
        bytes_at(off, &mut b)?;
        Ok(b[0])
    };
    if p.payload.on() {
        // a rank's own file (--file-per-process): -D v checks it byte for byte
        if owner.is_some() || written.is_some_and(|c| c.first() == Some(&0)) {
            return Ok(());
        }
        return check_stamp(p, &pattern(p, n, 0, buf, api), n, index, path, &bytes_at);
    }
    // the writers of the file: every rank, or its owner alone (in the place of rank 0)
    let (n, first_byte) = match owner {
        Some(o) => (1, o),
        None => (n, 0),
    };
    // counts of another process count: the read phase refuses them (not this run's)
    if written.is_some_and(|c| c.len() != n as usize) {
        return Ok(());
    }
    // the transfers rank r wrote in the first dataset
    let made = |r: u32, t: u64| match written {
        Some(c) => c.get(r as usize).map_or(t, |&x| x.min(t)),
        None => t,
    };
    let pat0 = pattern(p, n, 0, buf, api);
    if made(0, pat0.transfers()) == 0 || byte_at(pat0.piece(0, 0).file_off)? == 0 {
        return Ok(());
    }
    for r in 0..n {
        let pat = pattern(p, n, r, buf, api);
        let (t, k) = (made(r, pat.transfers()), pat.pieces_per_transfer());
        if t == 0 || k == 0 {
            continue;
        }
        let (first, last) = (pat.piece(0, 0), pat.piece(t - 1, k - 1));
        for off in [first.file_off, last.file_off + last.len - 1] {
            let want = (r + first_byte + 1) as u8;
            let got = byte_at(off)?;
            if got != want {
                let layout = if p.interleaved {
                    "interleaved"
                } else {
                    "contiguous"
                };
                return Err(refused(format!(
                    "--read-only: {path} was not written by a run of {n} process(es) with the \
                     {layout} pattern and these sizes: the byte at dataset offset {off}, which \
                     rank {r} reads, is {got}, not {want}; the file holds {}; write the files \
                     first with the same options and HDF5_NOCLEANUP=1, without --read-only",
                    found_writers(&pat, &byte_at)?
                )));
            }
        }
    }
    Ok(())
}

/// `--read-only --payload`: rank 0's first transfer of the first dataset of file `index`
/// (pattern `pat0`, `n` processes) begins with the stamp of its logical position for
/// `--seed` ([`payload::block_stamp`]; checked when that position is 4 KiB-aligned and
/// the first piece holds the 8 bytes of a stamp). Without this, `-D v` on files of another
/// seed printed up to 19 lines per transfer (spec §7.3's format) for the whole file.
/// Errors: a refusal naming the offset and the seed the stamp was expected for.
fn check_stamp(
    p: &Params,
    pat0: &crate::pattern::Pattern,
    n: u32,
    index: u64,
    path: &str,
    bytes_at: &dyn Fn(u64, &mut [u8]) -> Result<()>,
) -> Result<()> {
    let share = pat0.transfers() * pat0.buf_bytes();
    let at = payload::first_position(index, p.num_dsets, 0, u64::from(n), 0, share);
    let first = pat0.piece(0, 0);
    let Some(want) = payload::block_stamp(at, p.seed) else {
        return Ok(());
    };
    if pat0.transfers() == 0 || first.len < want.len() as u64 {
        return Ok(());
    }
    let mut got = [0u8; 8];
    bytes_at(first.file_off, &mut got)?;
    if got == want {
        return Ok(());
    }
    Err(refused(format!(
        "--read-only: {path} was not written with --payload={} --seed={} by a run of {n} \
         process(es) with these sizes: the 8 bytes at dataset offset {}, where rank 0's part \
         begins, are not that seed's stamp; give the writing run's --payload and --seed (its \
         parameter block and results files show them), or write the files first with the \
         same options and HDF5_NOCLEANUP=1, without --read-only",
        p.payload.kind.name(),
        p.seed,
        first.file_off
    )))
}

/// `--read-only --stonewall`: the transfer counts recorded beside the data file `name`
/// (`NAME.stonewall`, [`Counts`]); `None` when the file is missing or not a counts
/// file (the read phase then refuses with the reason).
fn recorded_counts(name: &Path) -> Option<Vec<u64>> {
    let mut cname = name.as_os_str().to_owned();
    cname.push(Counts::SUFFIX);
    let text = std::fs::read_to_string(PathBuf::from(cname)).ok()?;
    Counts::parse(&text).ok().map(|c| c.counts)
}

/// What the first dataset holds, from a few of its bytes: the number of processes that
/// wrote it (the last byte: the last rank's, `N`) and whether their parts are contiguous
/// (rank 0's part ends at `D / N`). Errors: a byte cannot be read.
fn found_writers(
    pat: &crate::pattern::Pattern,
    byte_at: &dyn Fn(u64) -> Result<u8>,
) -> Result<String> {
    let total = pat.dataset_bytes();
    if total == 0 {
        return Ok("an empty dataset".into());
    }
    let n = u64::from(byte_at(total - 1)?);
    if n == 0 {
        return Ok("no h5perf data (its last byte is 0)".into());
    }
    let contiguous = n == 1
        || (total.is_multiple_of(n) && byte_at(total / n - 1)? == 1 && byte_at(total / n)? == 2);
    Ok(format!(
        "the data of {n} process(es) (its last byte is {n}), {}",
        if contiguous {
            "in the contiguous pattern"
        } else {
            "not in the contiguous pattern (interleaved, or other sizes)"
        }
    ))
}

/// `--direct` on this node: the directory not in memory, a file opens with `O_DIRECT`;
/// returns the alignment in bytes (`STATX_DIOALIGN`, else the device's logical block
/// size, else the page size) and where it comes from.
fn direct_probe(p: &Params, dir: &Path) -> Result<(u64, String)> {
    let c_here = posix::c_path(dir_or_current(dir))?;
    let here = path_text(dir_or_current(dir).as_os_str());
    match kernel::memory_file_system(&c_here) {
        Err(e) => return Err(refused(format!("--direct: {e}"))),
        Ok(Some(kind)) => {
            return Err(refused(format!(
                "--direct: the data directory {here} is on {kind}, which keeps files in \
                 memory: direct I/O there measures memory, not storage (choose a directory \
                 on the storage with HDF5_PARAPREFIX)"
            )))
        }
        Ok(None) => {}
    }
    let (path, how) = if p.storage.read_only {
        let f = match kept_names(p, dir, 1, Api::Posix)?.into_iter().next() {
            Some((f, _)) => f,
            None => data_file_name(dir, 1, Api::Posix.suffix())?,
        };
        (f, OpenMode::ReadDirect)
    } else {
        let name = format!(
            "#h5perf_direct_probe.{}.{}",
            crate::datadir::lock::file_name_part(&hostname()),
            std::process::id()
        );
        let f: PathBuf = dir.join(name);
        (f, OpenMode::CreateNewDirect)
    };
    let created = how == OpenMode::CreateNewDirect;
    let c = posix::c_path(&path)?;
    // the probe is a new file (never a link or a file already there, issue 12)
    let opened = if created {
        data_files::create_new(&c, true).map(|_| ())
    } else {
        Fd::open(&c, how).and_then(Fd::close)
    };
    let made = created && opened.is_ok();
    let align = opened.and_then(|()| kernel::direct_io_alignment(&c));
    if made {
        // the probe is this run's file: remove it whatever happened
        let _ = posix::remove(&path);
    }
    let align = align.map_err(|e| {
        refused(format!(
            "--direct: the file system of {here} does not accept O_DIRECT ({e})"
        ))
    })?;
    use DirectIoAlignment as A;
    let (align, source) = match align {
        A::Statx { offset: 0, .. } => {
            return Err(refused(format!(
                "--direct: the file system of {here} does not support direct I/O (statx \
                 reports no direct-I/O alignment)"
            )))
        }
        A::Statx { mem, offset } => (u64::from(mem.max(offset)), "statx STATX_DIOALIGN"),
        A::LogicalBlock(n) => (n, "the device's logical block size (no STATX_DIOALIGN)"),
        A::Unknown => (4096, "the page size (the file system reports no alignment)"),
    };
    Ok((align, source.to_string()))
}

/// What one POSIX call moves in the run's pattern, in words (for [`direct_problems`]).
fn piece_words(p: &Params) -> &'static str {
    match (p.dim2d, p.chunk, p.interleaved) {
        (false, _, false) => "one transfer buffer (-x..-X)",
        (false, _, true) => "one block (-B)",
        (true, false, false) => "one row of the transfer buffer (-x..-X bytes)",
        (true, false, true) => "one row of the transfer buffer (-B bytes)",
        (true, true, false) => "one whole transfer buffer (-B x -x..-X bytes)",
        (true, true, true) => "one chunk (-B x -B bytes)",
    }
}

/// The `--direct` refusals for an alignment of `align` bytes: one per distinct POSIX call
/// length that is not a multiple of it. Offsets are multiples of the length (unit-tested),
/// so aligned lengths are all O_DIRECT needs (open(2), "O_DIRECT").
pub fn direct_problems(p: &Params, align: u64, source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if align <= 1 {
        return out;
    }
    for n in p.proc_counts() {
        for buf in p.buf_sizes() {
            let len = pattern(p, n, 0, buf, Api::Posix).piece(0, 0).len;
            if !len.is_multiple_of(align) {
                let m = format!(
                    "--direct: each POSIX read and write moves {} = {len} bytes, not a multiple \
                     of the direct-I/O alignment of the data directory ({align} bytes, \
                     {source}); O_DIRECT needs every length and offset to be one",
                    piece_words(p)
                );
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;

    /// The claim [`direct_problems`] rests on: in every pattern, every piece's offset in
    /// the file (dataset start included), its length and its place in the transfer
    /// buffer are multiples of the length of a piece.
    #[test]
    fn every_offset_is_a_multiple_of_the_piece_length() {
        for dim2d in [false, true] {
            for chunk in [false, true] {
                for interleaved in [false, true] {
                    for (bpp, buf, blk) in [(64, 16, 4), (96, 24, 8), (48, 48, 12), (32, 8, 8)] {
                        for n in 1..=3u32 {
                            let o = Options {
                                num_bytes: bpp,
                                buf_min: buf,
                                buf_max: buf,
                                blk_size: blk,
                                dim2d,
                                chunk,
                                interleaved,
                                num_dsets: 2,
                                ..Options::default()
                            };
                            let p = Params::resolve(&o, n);
                            if !p.problems(n, u64::MAX).is_empty() {
                                continue;
                            }
                            let len = pattern(&p, n, 0, buf, Api::Posix).piece(0, 0).len;
                            for r in 0..n {
                                let q = pattern(&p, n, r, buf, Api::Posix);
                                for d in 0..2 {
                                    let base = d * q.dataset_bytes();
                                    for k in 0..q.transfers() {
                                        for j in 0..q.pieces_per_transfer() {
                                            let pc = q.piece(k, j);
                                            let what = format!(
                                                "2D {dim2d} chunk {chunk} inter {interleaved} \
                                                 {bpp}/{buf}/{blk} n {n} r {r} k {k} j {j}"
                                            );
                                            assert_eq!(pc.len, len, "{what}");
                                            assert_eq!((base + pc.file_off) % len, 0, "{what}");
                                            assert_eq!(pc.buf_off % len, 0, "{what}");
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn direct_refusals_name_the_piece_and_the_alignment() {
        let p = |f: fn(&mut Options)| {
            let mut o = Options {
                num_bytes: 8192,
                buf_min: 1024,
                buf_max: 2048,
                blk_size: 256,
                ..Options::default()
            };
            f(&mut o);
            Params::resolve(&o, 2)
        };
        // 1D contiguous: the transfer buffer is what matters, not the block
        assert!(direct_problems(&p(|_| {}), 512, "statx").is_empty());
        let m = direct_problems(&p(|_| {}), 4096, "statx STATX_DIOALIGN");
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(
            m[0],
            "--direct: each POSIX read and write moves one transfer buffer (-x..-X) = 1024 \
             bytes, not a multiple of the direct-I/O alignment of the data directory (4096 \
             bytes, statx STATX_DIOALIGN); O_DIRECT needs every length and offset to be one"
        );
        // 1D interleaved: the block
        let m = direct_problems(&p(|o| o.interleaved = true), 512, "x");
        assert_eq!(m.len(), 1);
        assert!(m[0].contains("one block (-B) = 256 bytes"), "{m:?}");
        // 2D interleaved: a row of -B bytes; chunked: a chunk of -B x -B
        let m = direct_problems(
            &p(|o| {
                o.dim2d = true;
                o.interleaved = true;
                o.num_bytes = 1024;
            }),
            512,
            "x",
        );
        assert!(
            m[0].contains("one row of the transfer buffer (-B bytes) = 256"),
            "{m:?}"
        );
        let m = direct_problems(
            &p(|o| {
                o.dim2d = true;
                o.interleaved = true;
                o.chunk = true;
                o.num_bytes = 1024;
            }),
            512,
            "x",
        );
        assert!(m.is_empty(), "a 256 x 256 chunk is aligned: {m:?}");
        assert!(direct_problems(&p(|_| {}), 1, "x").is_empty());
    }
}
