//! The experiment's I/O, and the mode itself ([`run_mode`]).

use std::ffi::CStr;
use std::path::Path;

use crate::agreement::agree_value;
use crate::datadir::cleanup::{self, Slot};
use crate::datadir::{data_dir_checked, data_files, lock as dir_lock, RunEnv};
use crate::error::{path_text, Error, Result};
use crate::ffi::hdf5::{self, AllocTime, Dataset, Dataspace, FillKind, H5File, Plist};
use crate::ffi::mpi::{Comm, Info, Op};
use crate::ffi::posix::{self, FileStat};
use crate::output::sink::write_stdout;

use super::cells::{cells, Cell, Table, CHUNK, SIDE};
use super::classify::{Census, Observation, Snapshot, MARKER};
use super::doc::Storage;
use super::findings::{results, AllocCheck, Defaults, Findings};

/// The byte the experiment writes into its 16 × 16 block.
const DATA: u8 = 0x11;
/// Side of the block the first write covers, at the origin, in bytes.
const PATCH: u64 = 16;
/// Marker bytes appended behind the file's allocated space.
const MARKER_BYTES: usize = 256 << 10;

/// Bytes this process has passed to write calls so far (`wchar` of `/proc/self/io`).
fn wchar() -> Result<u64> {
    let text = std::fs::read_to_string("/proc/self/io")
        .map_err(|e| Error::Experiment(format!("cannot read /proc/self/io: {e}")))?;
    text.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| Error::Experiment("/proc/self/io has no wchar line".into()))
}

/// Where a cell runs: serial (this process alone) or parallel (all ranks of a
/// communicator).
#[derive(Clone, Copy)]
enum Scope<'a> {
    Serial,
    Parallel(&'a Comm),
}

impl Scope<'_> {
    fn root(&self) -> Result<bool> {
        match self {
            Scope::Serial => Ok(true),
            Scope::Parallel(c) => Ok(c.rank()? == 0),
        }
    }

    /// In parallel, agree on `r` across the ranks (every rank fails if one does).
    fn agree<T>(&self, r: Result<T>) -> Result<T> {
        match self {
            Scope::Serial => r,
            Scope::Parallel(c) => agree_value(c, r),
        }
    }

    /// `f` on the root (`root`), `T::default()` elsewhere; agreed as [`Scope::agree`].
    fn on_root<T: Default>(&self, root: bool, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.agree(if root { f() } else { Ok(T::default()) })
    }

    /// In parallel, the sum over the ranks.
    fn sum(&self, v: u64) -> Result<u64> {
        match self {
            Scope::Serial => Ok(v),
            Scope::Parallel(c) => c.allreduce_u64(v, Op::Sum),
        }
    }

    fn barrier(&self) -> Result<()> {
        match self {
            Scope::Serial => Ok(()),
            Scope::Parallel(c) => c.barrier(),
        }
    }
}

/// Read `len` bytes at `addr` of the scratch file `path`, which must be the file made
/// as `made` (never through a symbolic link, issue 12).
fn read_file(path: &CStr, made: Option<&FileStat>, addr: u64, len: u64) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let made = made.ok_or(Error::Internal("scratch file read before it was made"))?;
    let f = data_files::reopen(path, false, made)?;
    let mut buf = vec![0u8; len as usize];
    f.read_exact_at(&mut buf, addr).map_err(|e| {
        Error::DataDir(format!(
            "cannot read {len} bytes at {addr} of {}: {e}",
            c_text(path)
        ))
    })?;
    Ok(buf)
}

/// Append [`MARKER_BYTES`] marker bytes to the scratch file `path`, made as `made`.
fn append_marker(path: &CStr, made: Option<&FileStat>) -> Result<()> {
    use std::io::Write;
    let made = made.ok_or(Error::Internal("scratch file used before it was made"))?;
    let mut f = data_files::reopen(path, true, made)?;
    f.write_all(&vec![MARKER; MARKER_BYTES])
        .map_err(|e| Error::DataDir(format!("cannot append to {}: {e}", c_text(path))))
}

/// A C path as message text (non-UTF-8 bytes as `\xNN`).
fn c_text(path: &CStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    path_text(std::ffi::OsStr::from_bytes(path.to_bytes()))
}

/// The scratch file `path` as HDF5 made it: a new regular file of this user, one link.
fn made_file(path: &CStr) -> Result<FileStat> {
    let seen = posix::lstat(path)?.ok_or_else(|| {
        Error::DataDir(format!(
            "the scratch file {} is gone after its creation",
            c_text(path)
        ))
    })?;
    data_files::check_new(path, &seen, false)?;
    Ok(seen)
}

/// Count the bytes of a `width`-byte-wide row-major region whose origin is the
/// dataset's origin, leaving out the test's block when `block` is true (its bytes must
/// then hold [`DATA`]).
fn census_outside_block(buf: &[u8], width: u64, block: bool, fill: Option<u8>) -> Result<Census> {
    let mut c = Census::default();
    let mut landed = 0u64;
    for (i, b) in buf.iter().enumerate() {
        let (r, col) = (i as u64 / width, i as u64 % width);
        if block && r < PATCH && col < PATCH {
            landed += u64::from(*b == DATA);
        } else {
            c.add_byte(*b, fill);
        }
    }
    if block && landed != PATCH * PATCH {
        return Err(Error::Experiment(format!(
            "the test's block did not land: {landed} of {} bytes read back as 0x{DATA:02x}",
            PATCH * PATCH
        )));
    }
    Ok(c)
}

/// Storage state of the dataset after a step; contents on the root only.
fn snapshot(
    scope: Scope<'_>,
    ds: &Dataset,
    cell: &Cell,
    (path, made): (&CStr, Option<&FileStat>),
    written: bool,
    wrote: u64,
) -> Result<Snapshot> {
    let root = scope.root()?;
    let fill = cell.fill_byte();
    let d = SIDE * SIDE;
    let mut snap = Snapshot {
        wrote,
        allocated: ds.storage_size(),
        ..Snapshot::default()
    };
    match cell.storage {
        Storage::Compact => {
            let mut buf = vec![0u8; d as usize];
            ds.read_all(d, &mut buf)?;
            if root {
                snap.buffer = census_outside_block(&buf, SIDE, written, fill)?;
            }
        }
        Storage::Contiguous => {
            if let (true, Some(addr)) = (root && snap.allocated > 0, ds.offset()) {
                let buf = read_file(path, made, addr, d)?;
                snap.storage = census_outside_block(&buf, SIDE, written, fill)?;
            }
        }
        Storage::Chunked => {
            let chunks = ds.chunks()?;
            if root {
                for ch in chunks {
                    let buf = read_file(path, made, ch.addr, ch.size)?;
                    // one chunk holds the origin, and so the test's block
                    if written && ch.offset.iter().all(|o| *o == 0) {
                        snap.buffer = census_outside_block(&buf, CHUNK, true, fill)?;
                    } else {
                        snap.storage.add(&buf, fill);
                    }
                }
            }
        }
    }
    Ok(snap)
}

/// Run one cell (collective in parallel) and return what was observed; HDF5 refusing
/// the dataset is an observation, anything else that fails an error.
fn run_cell(scope: Scope<'_>, path: &Path, cell: &Cell) -> Result<Observation> {
    let cpath = crate::ffi::posix::c_path(path)?;
    let root = scope.root()?;
    let fapl = scope.agree(match scope {
        Scope::Serial => Plist::file_access_sec2(0),
        Scope::Parallel(c) => Plist::file_access_mpio(c, &Info::null(), 1, 1),
    })?;
    // a new scratch file, never one already there nor through a link (issue 12): the
    // root makes the name free, HDF5 creates the file with H5F_ACC_EXCL, and every
    // later use checks that the name still leads to it
    scope.on_root(root, || data_files::make_room(&cpath))?;
    scope.agree(H5File::create(&cpath, &fapl).and_then(H5File::close))?;
    // the new file is this run's: removed however the process ends (every rank of the
    // scope records it: any rank's handler may remove it)
    cleanup::register(Slot::Scratch, path);
    let made = scope.on_root(root, || made_file(&cpath).map(Some))?;
    let made = made.as_ref();
    scope.on_root(root, || append_marker(&cpath, made))?;
    let file = scope.agree(H5File::open_rdwr(&cpath, &fapl))?;
    scope.agree(made.map_or(Ok(()), |m| data_files::check_still(&cpath, m)))?;

    let mut obs = Observation {
        storage: cell.storage,
        fill_byte: cell.fill_byte(),
        error: None,
        alloc_reported: None,
        created: Snapshot::default(),
        written: Snapshot::default(),
    };
    let chunk = [CHUNK, CHUNK];
    let dcpl = Plist::dataset_create((cell.storage == Storage::Chunked).then_some(&chunk[..]))
        .and_then(|p| {
            if cell.storage == Storage::Compact {
                p.set_compact()?;
            }
            p.set_fill(&cell.settings())?;
            Ok(p)
        });
    let dcpl = scope.agree(dcpl)?;
    let space = scope.agree(Dataspace::simple(&[SIDE, SIDE]))?;

    let w0 = scope.agree(wchar())?;
    let created = Dataset::create(&file, c"fill", &space, &dcpl);
    // HDF5 refuses (or accepts) the same settings on every rank
    let refused = scope.sum(u64::from(created.is_err()))?;
    let ds = match created {
        Ok(ds) if refused == 0 => ds,
        Err(e) if refused > 0 && (matches!(scope, Scope::Serial) || refused == size(scope)?) => {
            obs.error = Some(match &e {
                Error::Hdf5 { call, .. } => format!("{call}: {}", e.innermost()),
                other => other.to_string(),
            });
            drop(dcpl);
            scope.agree(file.close())?;
            return Ok(obs);
        }
        _ => {
            return Err(Error::Experiment(format!(
                "{}: H5Dcreate2 failed on {refused} rank(s) only",
                cell.name()
            )))
        }
    };
    scope.agree(flush(scope, &file, &ds))?;
    let w1 = scope.agree(wchar())?;
    obs.alloc_reported = Some(scope.agree(ds.create_plist().and_then(|p| p.alloc_time()))?);
    let wrote = scope.sum(w1.saturating_sub(w0))?;
    scope.barrier()?;
    obs.created = scope.agree(snapshot(scope, &ds, cell, (&cpath, made), false, wrote))?;

    // the first write: rank 0 writes the block at the origin, other ranks nothing
    // (compact data from 1.12 on: every rank, see `writes_block`)
    let mem = scope.agree(Dataspace::simple(&[PATCH, PATCH]))?;
    let sel = if writes_block(scope, cell.storage)? {
        space.select_hyperslab(&[0, 0], &[1, 1], &[1, 1], &[PATCH, PATCH])
    } else {
        space.select_none().and_then(|_| mem.select_none())
    };
    scope.agree(sel)?;
    let xfer = scope.agree(Plist::dataset_xfer(false))?;
    let data = vec![DATA; (PATCH * PATCH) as usize];
    let w2 = scope.agree(wchar())?;
    // the selection where it was made: offset (0, 0)
    scope.agree(
        ds.writes(&mem, &space, &xfer, &data)
            .and_then(|w| w.at(&[0, 0])),
    )?;
    scope.agree(flush(scope, &file, &ds))?;
    let w3 = scope.agree(wchar())?;
    let wrote = scope.sum(w3.saturating_sub(w2))?;
    scope.barrier()?;
    obs.written = scope.agree(snapshot(scope, &ds, cell, (&cpath, made), true, wrote))?;

    scope.agree(ds.close())?;
    drop(dcpl);
    scope.agree(file.close())?;
    Ok(obs)
}

/// Make HDF5 write out what it holds for the dataset, so that the bytes written and the
/// file's contents show it: `H5Dflush`, or in parallel from HDF5 1.12 on the collective
/// `H5Fflush` (see [`METHOD`] and the README).
fn flush(scope: Scope<'_>, file: &H5File, ds: &Dataset) -> Result<()> {
    match scope {
        Scope::Parallel(_) if cfg!(hdf5_1_12) => file.flush(),
        _ => ds.flush(),
    }
}

/// The flush and the writers of the block, for the report (`Findings::method`).
#[cfg(not(hdf5_1_12))]
const METHOD: &str = concat!(
    "Flush after each step: H5Dflush. In parallel rank 0 writes the block, the other\n",
    "ranks select nothing (HDF5 before 1.12)."
);
#[cfg(hdf5_1_12)]
const METHOD: &str = concat!(
    "Flush after each step: serial H5Dflush; parallel the collective H5Fflush of the\n",
    "file (HDF5 1.12 and later refuse H5Dflush with the MPI-IO driver). In parallel\n",
    "rank 0 writes the block, the other ranks select nothing; compact data is\n",
    "metadata there and every rank writes the same block."
);

/// True when this rank writes the test's block: the root always; in parallel every
/// rank too for compact data from HDF5 1.12 on (metadata, which every rank must change
/// alike: the collective flush hangs otherwise, measured with 2 ranks on 1.14.5).
fn writes_block(scope: Scope<'_>, storage: Storage) -> Result<bool> {
    let every_rank = cfg!(hdf5_1_12) && storage == Storage::Compact;
    Ok(every_rank || scope.root()?)
}

fn size(scope: Scope<'_>) -> Result<u64> {
    match scope {
        Scope::Serial => Ok(1),
        Scope::Parallel(c) => Ok(u64::from(c.size()?)),
    }
}

/// The defaults a fresh dataset-creation list reports (local, no file).
fn library_defaults() -> Result<Defaults> {
    let fresh = Plist::dataset_create(None)?;
    let chunked = Plist::dataset_create(Some(&[CHUNK, CHUNK]))?;
    let compact = Plist::dataset_create(None)?;
    compact.set_compact()?;
    Ok(Defaults {
        kind: fresh.fill_kind()?,
        time: fresh.fill_time()?,
        alloc: [
            fresh.alloc_time()?,
            chunked.alloc_time()?,
            compact.alloc_time()?,
        ],
    })
}

/// Remove a scratch file if it is one of this user's own regular files, and forget it
/// ([`cleanup::unregister`]).
fn remove_scratch(path: &Path) -> Result<()> {
    let own = posix::c_path(path).is_ok_and(|c| data_files::is_own(&c));
    let r = match own.then(|| std::fs::remove_file(path)) {
        None | Some(Ok(())) => Ok(()),
        Some(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Some(Err(e)) => Err(Error::DataDir(format!(
            "cannot remove {}: {e}",
            path_text(path.as_os_str())
        ))),
    };
    cleanup::unregister(Slot::Scratch);
    r
}

/// The scratch file names, in the data directory.
const SERIAL_SCRATCH: &str = "#h5perf_fill_serial.h5";
const PARALLEL_SCRATCH: &str = "#h5perf_fill_parallel.h5";

/// Run every experiment on `world` (collective) in scratch files under the data
/// directory's lock ([`dir_lock`]) and return the findings on every rank.
///
/// Errors: the directory in use; a failure other than HDF5 refusing a cell's settings;
/// a scratch file that cannot be removed.
fn observe(world: &Comm) -> Result<Findings> {
    // HDF5 prints nothing while h5perf runs; errors come back from its error stack
    let _quiet = hdf5::Quiet::new();
    let rank = world.rank()?;
    let env = RunEnv::from_process();
    let dir = data_dir_checked(world, &env, false)?;
    let claim = dir_lock::Claim {
        data: Vec::new(),
        scratch: vec![SERIAL_SCRATCH.into(), PARALLEL_SCRATCH.into()],
        keep: false,
        ranks: 0,
        subfiling: false,
    };
    let lock = dir_lock::acquire(world, &dir, &claim)?;
    if rank == 0 {
        for note in &lock.takeover {
            let _ =
                std::io::Write::write_all(&mut std::io::stderr(), format!("{note}\n").as_bytes());
        }
    }
    let serial_path = dir.join(SERIAL_SCRATCH);
    let parallel_path = dir.join(PARALLEL_SCRATCH);
    let defaults = Scope::Parallel(world).agree(library_defaults())?;

    let scells = cells(Table::Serial);
    let sobs = Scope::Parallel(world).on_root(rank == 0, || {
        let r: Result<Vec<Observation>> = scells
            .iter()
            .map(|c| run_cell(Scope::Serial, &serial_path, c))
            .collect();
        let removed = remove_scratch(&serial_path);
        r.and_then(|v| removed.map(|_| v))
    })?;

    let parallel = parallel_observations(world, &parallel_path);
    let removed = if rank == 0 {
        remove_scratch(&parallel_path)
    } else {
        cleanup::unregister(Slot::Scratch);
        Ok(())
    };
    // the cells' errors are agreed, so every rank is here with the same outcome
    let (pcells, pobs, rows) = match (parallel, Scope::Parallel(world).agree(removed)) {
        (Err(e), Err(r)) => return Err(Error::Remote(format!("{e}; {r}"))),
        (p, r) => {
            r?;
            p?
        }
    };

    let (serial, parallel) = if rank == 0 {
        (results(&scells, &sobs), results(&pcells, &pobs))
    } else {
        (Vec::new(), Vec::new())
    };
    lock.release(world)?;
    Ok(Findings {
        hdf5_version: hdf5::library_version(),
        method: METHOD,
        ranks: world.size()?,
        defaults,
        serial,
        parallel,
        alloc_check: AllocCheck {
            rows,
            dataset_bytes: SIDE * SIDE,
        },
    })
}

/// The parallel cells, their observations and the allocation check's rows.
type ParallelObservations = (
    Vec<Cell>,
    Vec<Observation>,
    Vec<(Storage, u64, Option<AllocTime>)>,
);

/// Run the parallel cells and the allocation check of the parallel table in the scratch
/// file `parallel_path` (collective; errors agreed).
fn parallel_observations(world: &Comm, parallel_path: &Path) -> Result<ParallelObservations> {
    let pcells = cells(Table::Parallel);
    let mut pobs = Vec::with_capacity(pcells.len());
    for c in &pcells {
        pobs.push(run_cell(Scope::Parallel(world), parallel_path, c)?);
    }
    let mut rows = Vec::new();
    for storage in [Storage::Contiguous, Storage::Chunked] {
        let c = Cell {
            table: Table::Parallel,
            kind: FillKind::LibraryDefault,
            time: None,
            alloc: Some(AllocTime::Late),
            storage,
        };
        let o = run_cell(Scope::Parallel(world), parallel_path, &c)?;
        rows.push((storage, o.created.allocated, o.alloc_reported));
    }
    Ok((pcells, pobs, rows))
}

/// The `--fill-behaviour` mode on `world` (collective); rank 0 prints the report.
///
/// Errors: [`Error::Invalid`] with `strict` when something differs; a failure other
/// than HDF5 refusing a cell's settings, agreed on by all ranks; writing the report.
pub fn run_mode(world: &Comm, strict: bool) -> Result<()> {
    // HDF5's error printing stays off until the process ends: HDF5 1.10.8 leaves its
    // free lists unbalanced after the experiment's parallel datasets created with an
    // explicit late allocation time and flushed, and prints "HDF5: infinite loop
    // closing library" when it shuts down in MPI_Finalize unless printing is off
    // (measured with Open MPI and MPICH; every id of ours is closed).
    std::mem::forget(hdf5::Quiet::new());
    let f = observe(world)?;
    let rank = world.rank()?;
    let diffs = Scope::Parallel(world).on_root(rank == 0, || {
        write_stdout(&f.render()).map(|()| f.difference_count() as u64)
    })?;
    let diffs = world.allreduce_u64(diffs, Op::Sum)?;
    if strict && diffs > 0 {
        return Err(Error::Invalid(vec![format!(
            "--strict: the linked HDF5 differs from the fill value document in {diffs} place(s) (see the report above)"
        )]));
    }
    Ok(())
}
