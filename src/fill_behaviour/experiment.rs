//! Fill values (issue 6): the PHDF5 dataset options `--fill-value`, `--fill-time`,
//! `--alloc-time` and `-n`/`--no-fill`, the start-up check that HDF5 accepts them, and
//! the `--fill-behaviour` mode, which rebuilds HDF5's documented fill-value tables
//! (serial and parallel) by experiment with the linked library and marks where the
//! library differs from the document.
//!
//! How a cell of the tables is observed ([`run_mode`]): a file is created and closed,
//! 256 KiB of marker bytes (0xEE) are appended to it behind HDF5's end of allocated
//! space, and the file is opened again, so raw-data storage that HDF5 allocates lands on
//! marker bytes and storage HDF5 never writes keeps them. A 128 × 128 byte dataset is
//! created with the cell's settings (chunks of 32 × 32 bytes; compact data lives in the
//! object header) and flushed (`H5Dflush`), then a 16 × 16 block at the origin is written
//! with 0x11 and flushed again. Around both steps the bytes the process wrote are taken
//! from `/proc/self/io` (`wchar`, summed over ranks in parallel); after both steps the
//! allocated storage is read back from the file (`H5Dget_offset`, `H5Dget_chunk_info`),
//! compact data with `H5Dread`. Bytes are counted as fill value, marker, zero or other
//! ([`Census`]), and [`classify`] turns the counts into the document's outcomes. The
//! serial table runs on rank 0 alone with the `sec2` driver (sieve buffer off, so a
//! partial write moves only its own bytes); the parallel table on every rank with the
//! MPI-IO driver, rank 0 writing the block and the others selecting nothing.
//!
//! One limit of any such experiment: the library default fill value is 0, and HDF5
//! zeroes the buffer of a chunk or of compact data it does not fill. Where the test's
//! untouched bytes came from such a buffer (the rest of the chunk the write touched;
//! compact data), "library fill value written" and "no fill value written" leave the
//! same bytes, and the cell is reported as indistinguishable (`≈`) rather than guessed.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::fmt::Write as _;

use crate::services::{agree, data_dir_checked, write_stdout, RunEnv};
use crate::error::{Error, Result};
use crate::ffi::hdf5::{
    self, AllocTime, Dataset, Dataspace, FillKind, FillTime, H5File, Plist,
};
use crate::ffi::mpi::{Comm, Info, Op};

use super::cells::{parallel_cells, serial_cells, Cell, Table, CHUNK, SIDE};
use super::classify::{classify, Census, Observation, Snapshot, Verdict, MARKER};
use super::doc::{DocCell, FillOutcome, Storage};

/// The byte the experiment writes into its 16 × 16 block.
pub const DATA: u8 = 0x11;

/// One result cell: settings, document, observation, verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellResult {
    /// The settings.
    pub cell: Cell,
    /// What the document says.
    pub doc: DocCell,
    /// What was observed.
    pub obs: Observation,
    /// The classification of the observation ([`classify`]).
    pub classified: Verdict,
    /// What the table shows: the classification, or "Same as Late" (see [`results`]).
    pub verdict: Verdict,
}

impl CellResult {
    /// True when the observation is consistent with the document.
    pub fn agrees(&self) -> bool {
        self.verdict.agrees(self.doc.outcome)
    }

    /// The table cell: the document's text when consistent (followed by ` ≈` when the
    /// observation cannot tell it from another outcome), else `≠ observed (document:
    /// text)`.
    pub fn cell_text(&self) -> String {
        let kind = self.cell.kind;
        if self.agrees() {
            if self.verdict.alternative.is_some() {
                format!("{} ≈", self.doc.text(kind))
            } else {
                self.doc.text(kind)
            }
        } else {
            format!(
                "≠ {} (document: {})",
                self.verdict.text(kind),
                self.doc.text(kind)
            )
        }
    }

    /// The evidence line: bytes written and storage contents after each step, and the
    /// classification (`-> outcome`, followed by `(Same as Late)` when the table shows
    /// that).
    pub fn evidence(&self) -> String {
        let o = &self.obs;
        let fill = o.fill_byte;
        if let Some(e) = &o.error {
            return format!("{}: HDF5 refused: {e} -> Error", self.cell.name());
        }
        let buffer = match o.storage {
            Storage::Compact => "compact data",
            _ => "touched chunk",
        };
        let reported = o
            .alloc_reported
            .map(|a| format!(" (the dataset reports allocation time {})", a.name()))
            .unwrap_or_default();
        let step = |s: &Snapshot, note: &str| {
            let mut t = format!("wrote {} B, allocated {} B{note}", s.wrote, s.allocated);
            if s.storage.total() > 0 {
                let _ = write!(t, "; storage: {}", s.storage.describe(fill));
            }
            if s.buffer.total() > 0 {
                let _ = write!(t, "; {buffer}: {}", s.buffer.describe(fill));
            }
            t
        };
        let folded = if self.verdict != self.classified {
            format!(" ({})", self.verdict.text(self.cell.kind))
        } else {
            String::new()
        };
        format!(
            "{}: create: {} | first write: {} -> {}{folded}",
            self.cell.name(),
            step(&o.created, &reported),
            step(&o.written, ""),
            self.classified.text(self.cell.kind)
        )
    }
}

/// Classify observations (same order as `cells`) and pair them with the document. In
/// the serial table an incremental contiguous cell whose verdict equals the late cell's
/// becomes "Same as Late", as the document shows it.
pub fn results(cells: &[Cell], obs: &[Observation]) -> Vec<CellResult> {
    let verdicts: Vec<Verdict> = obs.iter().map(classify).collect();
    cells
        .iter()
        .zip(obs)
        .enumerate()
        .map(|(i, (c, o))| {
            let mut verdict = verdicts[i];
            if c.table == Table::Serial
                && c.storage == Storage::Contiguous
                && c.alloc == Some(AllocTime::Incr)
            {
                let late = cells.iter().position(|x| {
                    Cell {
                        alloc: Some(AllocTime::Late),
                        ..*c
                    } == *x
                });
                if late.is_some_and(|l| verdicts[l] == verdict) {
                    verdict = Verdict::sure(FillOutcome::SameAsLate);
                }
            }
            CellResult {
                cell: *c,
                doc: c.document(),
                obs: o.clone(),
                classified: verdicts[i],
                verdict,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Rendering (pure)
// ---------------------------------------------------------------------------------------

/// The library's defaults as a fresh dataset-creation list reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// `H5Pfill_value_defined` of a fresh list.
    pub kind: FillKind,
    /// `H5Pget_fill_time` of a fresh list.
    pub time: FillTime,
    /// `H5Pget_alloc_time` after choosing each layout (contiguous, chunked, compact).
    pub alloc: [AllocTime; 3],
}

impl Defaults {
    /// What the document says: library default fill value, fill time if set, and (by
    /// its `*` marks) allocation times late, incremental, early.
    pub const DOCUMENT: Defaults = Defaults {
        kind: FillKind::LibraryDefault,
        time: FillTime::IfSet,
        alloc: [AllocTime::Late, AllocTime::Incr, AllocTime::Early],
    };
}

/// The parallel allocation check: with late allocation requested, how many bytes
/// (of `dataset_bytes`) were allocated at creation, per storage method, and what the
/// dataset's creation list reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocCheck {
    /// (storage, bytes allocated right after `H5Dcreate2`, reported allocation time).
    pub rows: Vec<(Storage, u64, Option<AllocTime>)>,
    /// Size of each dataset in bytes.
    pub dataset_bytes: u64,
}

impl AllocCheck {
    /// True when every dataset was fully allocated at creation (HDF5 applied early).
    pub fn early(&self) -> bool {
        self.rows.iter().all(|(_, a, _)| *a == self.dataset_bytes)
    }
}

/// Everything the mode found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    /// HDF5 version of the linked library.
    pub hdf5_version: String,
    /// Number of ranks of the parallel table.
    pub ranks: u32,
    /// The defaults observed.
    pub defaults: Defaults,
    /// The serial table's cells.
    pub serial: Vec<CellResult>,
    /// The parallel table's cells.
    pub parallel: Vec<CellResult>,
    /// The parallel allocation-time check.
    pub alloc_check: AllocCheck,
}

impl Findings {
    /// Cells (of both tables) that differ from the document.
    pub fn differing(&self) -> Vec<&CellResult> {
        self.serial
            .iter()
            .chain(&self.parallel)
            .filter(|c| !c.agrees())
            .collect()
    }

    /// Number of differences: differing cells, plus 1 if the defaults differ, plus 1 if
    /// HDF5 did not allocate early in parallel.
    pub fn difference_count(&self) -> usize {
        self.differing().len()
            + usize::from(self.defaults != Defaults::DOCUMENT)
            + usize::from(!self.alloc_check.early())
    }

    /// The whole report of the mode (both tables in the document's layout, the checks,
    /// the differences with their evidence, HDF5's reasons for the errors, and the
    /// evidence of every cell).
    pub fn render(&self) -> String {
        let mut s = String::new();
        let total = self.serial.len() + self.parallel.len();
        let _ = writeln!(
            s,
            "HDF5 fill value behaviour of the linked library (HDF5 {}), observed by experiment",
            self.hdf5_version
        );
        s.push_str(
            "Document: \"These tables summarize the library's fill value writing behavior for\n\
             various property list settings and compare serial I/O vs. parallel I/O.\"\n\
             (HDF5 documentation, last modified March 16, 2018)\n\
             Each cell: a 128 x 128 byte dataset (chunks 32 x 32; compact data in the object\n\
             header) is created in a file whose free space holds marker bytes 0xEE, then a\n\
             16 x 16 block at the origin is written. \"wrote\" counts the bytes the process(es)\n\
             wrote (wchar) during each step and its H5Dflush; \"storage\" is the allocated\n\
             space read back from the file, outside the block and the chunk it touched;\n\
             \"touched chunk\" the rest of that chunk, \"compact data\" the rest of the data.\n\
             Marks: ≠ the library differs (observed, then the document's text);\n\
             ≈ consistent, but the bytes cannot tell the document's outcome from another:\n\
             the library fill value is 0 and HDF5 zeroes a buffer it does not fill.\n\n",
        );

        let d = &self.defaults;
        let doc = Defaults::DOCUMENT;
        let mark = if *d == doc { "" } else { "≠ " };
        let _ = writeln!(
            s,
            "{mark}Library defaults: fill value {}, fill time {}, allocation time {} {}, {} {}, {} {}{}",
            d.kind.label(),
            d.time.label(),
            Storage::Contiguous.label(),
            d.alloc[0].label(),
            Storage::Chunked.label(),
            d.alloc[1].label(),
            Storage::Compact.label(),
            d.alloc[2].label(),
            if *d == doc {
                " (as the document's * marks)".to_string()
            } else {
                format!(
                    " (document: {}, {}, {} {} {})",
                    doc.kind.label(),
                    doc.time.label(),
                    doc.alloc[0].label(),
                    doc.alloc[1].label(),
                    doc.alloc[2].label()
                )
            }
        );
        s.push('\n');

        s.push_str("Serial I/O (rank 0 alone, sec2 driver, sieve buffer off)\n");
        s.push_str("| Serial I/O results | | | | | |\n|---|---|---|---|---|---|\n");
        s.push_str("| Dataset Storage Method | | | | | |\n");
        s.push_str(
            "| Fill Value | Fill Time | Allocation Time | Contiguous | Chunked | Compact |\n",
        );
        for row in self.serial.chunks(3) {
            let c = row[0].cell;
            let alloc = c.alloc.unwrap_or(AllocTime::Late);
            let first_time = alloc == AllocTime::Early;
            let first_kind = first_time && c.time == Some(FillTime::Never);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                if first_kind { kind_label(c.kind) } else { "" },
                if first_time {
                    time_label(c.time.unwrap_or(FillTime::IfSet))
                } else {
                    ""
                },
                alloc.label(),
                row.iter()
                    .map(CellResult::cell_text)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        s.push_str("* - Default setting.\n\n");

        let _ = writeln!(
            s,
            "Parallel I/O ({} rank{}, MPI-IO driver, allocation time left to HDF5)",
            self.ranks,
            if self.ranks == 1 { "" } else { "s" }
        );
        s.push_str("| Parallel I/O results | | | | |\n|---|---|---|---|---|\n");
        s.push_str("| Dataset Storage Method | | | | |\n");
        s.push_str("| Fill Value | Fill Time | Contiguous | Chunked | Compact |\n");
        for row in self.parallel.chunks(3) {
            let c = row[0].cell;
            let time = c.time.unwrap_or(FillTime::IfSet);
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                if time == FillTime::Never {
                    kind_label(c.kind)
                } else {
                    ""
                },
                time_label(time),
                row.iter()
                    .map(CellResult::cell_text)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        s.push_str("* - Default setting.\n\n");

        let ac = &self.alloc_check;
        let sizes: Vec<String> = ac
            .rows
            .iter()
            .map(|(st, a, r)| {
                format!(
                    "{} {a} of {} B{}",
                    st.label().to_lowercase(),
                    ac.dataset_bytes,
                    r.map(|r| format!(" (dataset reports {})", r.name()))
                        .unwrap_or_default()
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "{}Allocation time in parallel: with late allocation requested, allocated at creation: {}: {}\n",
            if ac.early() { "" } else { "≠ " },
            sizes.join(", "),
            if ac.early() {
                "HDF5 applies H5D_ALLOC_TIME_EARLY, as the document says"
            } else {
                "not early, unlike the document"
            }
        );

        let diffs = self.differing();
        let _ = writeln!(
            s,
            "Differences from the document: {} of {total} cells{}",
            diffs.len(),
            if diffs.is_empty() { "" } else { ":" }
        );
        for c in &diffs {
            let _ = writeln!(
                s,
                "  {}: observed \"{}\", document \"{}\"\n    evidence: {}",
                c.cell.name(),
                c.verdict.text(c.cell.kind),
                c.doc.text(c.cell.kind),
                c.evidence()
            );
        }
        let ambiguous = self
            .serial
            .iter()
            .chain(&self.parallel)
            .filter(|c| c.agrees() && c.verdict.alternative.is_some())
            .count();
        let _ = writeln!(
            s,
            "Consistent but indistinguishable (≈): {ambiguous} cells\n"
        );

        let mut reasons: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for c in self.serial.iter().chain(&self.parallel) {
            if let Some(e) = &c.obs.error {
                let n = reasons.entry(e.as_str()).or_default();
                match c.cell.table {
                    Table::Serial => n.0 += 1,
                    Table::Parallel => n.1 += 1,
                }
            }
        }
        s.push_str("HDF5's reasons for the Error cells:\n");
        for (r, (ns, np)) in &reasons {
            let _ = writeln!(s, "  {r} ({ns} serial, {np} parallel cells)");
        }
        s.push('\n');

        s.push_str("Evidence per cell (bytes):\n");
        for c in self.serial.iter().chain(&self.parallel) {
            let _ = writeln!(s, "  {}", c.evidence());
        }
        s
    }
}

fn kind_label(k: FillKind) -> &'static str {
    match k {
        FillKind::LibraryDefault => "Library Default*",
        FillKind::UserDefined => "User-defined",
        FillKind::Undefined => "Undefined",
    }
}

fn time_label(t: FillTime) -> &'static str {
    match t {
        FillTime::IfSet => "If Set*",
        other => other.label(),
    }
}

// ---------------------------------------------------------------------------------------
// The experiment (HDF5, MPI, files)
// ---------------------------------------------------------------------------------------

/// Side of the block the first write covers, at the origin, in bytes.
const PATCH: u64 = 16;
/// Marker bytes appended behind the file's allocated space.
const MARKER_BYTES: usize = 256 << 10;

/// Bytes this process has passed to write calls so far (`wchar` of `/proc/self/io`).
fn wchar() -> Result<u64> {
    let text = std::fs::read_to_string("/proc/self/io")
        .map_err(|e| Error::Other(format!("cannot read /proc/self/io: {e}")))?;
    text.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| Error::Other("/proc/self/io has no wchar line".into()))
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
            Scope::Parallel(c) => {
                let (unit, v) = match r {
                    Ok(v) => (Ok(()), Some(v)),
                    Err(e) => (Err(e), None),
                };
                agree(c, unit)?;
                Ok(v.expect("agreement succeeded, so this rank succeeded"))
            }
        }
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

/// Read `len` bytes at `addr` of the file `path`.
fn read_file(path: &str, addr: u64, len: u64) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(path)
        .map_err(|e| Error::Other(format!("cannot open {path} to inspect it: {e}")))?;
    let mut buf = vec![0u8; len as usize];
    f.read_exact_at(&mut buf, addr)
        .map_err(|e| Error::Other(format!("cannot read {len} bytes at {addr} of {path}: {e}")))?;
    Ok(buf)
}

/// Append [`MARKER_BYTES`] marker bytes to the file `path`.
fn append_marker(path: &str) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| Error::Other(format!("cannot append to {path}: {e}")))?;
    f.write_all(&vec![MARKER; MARKER_BYTES])
        .map_err(|e| Error::Other(format!("cannot append to {path}: {e}")))
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
        return Err(Error::Other(format!(
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
    path: &str,
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
                let buf = read_file(path, addr, d)?;
                snap.storage = census_outside_block(&buf, SIDE, written, fill)?;
            }
        }
        Storage::Chunked => {
            let chunks = ds.chunks()?;
            if root {
                for ch in chunks {
                    let buf = read_file(path, ch.addr, ch.size)?;
                    if written && ch.offset.iter().all(|o| *o == 0) {
                        let c = census_outside_block(&buf, CHUNK, true, fill)?;
                        snap.buffer.fill += c.fill;
                        snap.buffer.marker += c.marker;
                        snap.buffer.zero += c.zero;
                        snap.buffer.other += c.other;
                    } else {
                        snap.storage.add(&buf, fill);
                    }
                }
            }
        }
    }
    Ok(snap)
}

/// Run one cell (collective in parallel) and return what was observed (contents on the
/// root only). HDF5 refusing the dataset is an observation; anything else that fails is
/// an error, agreed on by all ranks in parallel.
fn run_cell(scope: Scope<'_>, path: &str, cell: &Cell) -> Result<Observation> {
    let cpath = CString::new(path).map_err(|_| Error::Other(format!("bad file name {path:?}")))?;
    let root = scope.root()?;
    let fapl = scope.agree(match scope {
        Scope::Serial => Plist::file_access_sec2(0),
        Scope::Parallel(c) => Plist::file_access_mpio(c, &Info::null(), 1, 1),
    })?;
    let made = H5File::create(&cpath, &fapl).and_then(H5File::close);
    scope.agree(made)?;
    scope.agree(if root { append_marker(path) } else { Ok(()) })?;
    let file = scope.agree(H5File::open_rdwr(&cpath, &fapl))?;

    let mut obs = Observation {
        storage: cell.storage,
        kind: cell.kind,
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
                Error::Hdf5 { call, msg } => format!("{call}: {}", hdf5::innermost(msg)),
                other => other.to_string(),
            });
            drop(dcpl);
            scope.agree(file.close())?;
            return Ok(obs);
        }
        _ => {
            return Err(Error::Other(format!(
                "{}: H5Dcreate2 failed on {refused} rank(s) only",
                cell.name()
            )))
        }
    };
    scope.agree(ds.flush())?;
    let w1 = scope.agree(wchar())?;
    obs.alloc_reported = Some(scope.agree(ds.create_plist().and_then(|p| p.alloc_time()))?);
    let wrote = scope.sum(w1.saturating_sub(w0))?;
    scope.barrier()?;
    obs.created = scope.agree(snapshot(scope, &ds, cell, path, false, wrote))?;

    // the first write: rank 0 writes the block at the origin, other ranks nothing
    let mem = scope.agree(Dataspace::simple(&[PATCH, PATCH]))?;
    let sel = if root {
        space.select_hyperslab(&[0, 0], &[1, 1], &[1, 1], &[PATCH, PATCH])
    } else {
        space.select_none().and_then(|_| mem.select_none())
    };
    scope.agree(sel)?;
    let xfer = scope.agree(Plist::dataset_xfer(false))?;
    let data = vec![DATA; (PATCH * PATCH) as usize];
    let w2 = scope.agree(wchar())?;
    scope.agree(ds.write(&mem, &space, &xfer, &data))?;
    scope.agree(ds.flush())?;
    let w3 = scope.agree(wchar())?;
    let wrote = scope.sum(w3.saturating_sub(w2))?;
    scope.barrier()?;
    obs.written = scope.agree(snapshot(scope, &ds, cell, path, true, wrote))?;

    scope.agree(ds.close())?;
    drop(dcpl);
    scope.agree(file.close())?;
    Ok(obs)
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

/// `dir/name`, or `name` for the current directory.
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Remove a scratch file if it exists (root only).
fn remove_scratch(path: &str) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::Other(format!("cannot remove {path}: {e}"))),
    }
}

/// Run every experiment on `world` (collective) and return the findings on every rank
/// (observed contents only on rank 0). Scratch files `#h5perf_fill_serial.h5` and
/// `#h5perf_fill_parallel.h5` are made in the data directory (`HDF5_PARAPREFIX`, spec
/// §5.1) and removed.
///
/// Errors: a failure other than HDF5 refusing a cell's settings (file creation, I/O,
/// `/proc/self/io`), agreed on by all ranks.
pub fn observe(world: &Comm) -> Result<Findings> {
    // HDF5 prints nothing while h5perf runs; errors come back from its error stack
    let _quiet = hdf5::Quiet::new();
    let rank = world.rank()?;
    let env = RunEnv::from_process();
    let dir = data_dir_checked(world, &env)?;
    let serial_path = join(&dir, "#h5perf_fill_serial.h5");
    let parallel_path = join(&dir, "#h5perf_fill_parallel.h5");

    let defaults = Scope::Parallel(world).agree(library_defaults())?;

    let scells = serial_cells();
    let sobs: Result<Vec<Observation>> = if rank == 0 {
        let r: Result<Vec<Observation>> = scells
            .iter()
            .map(|c| run_cell(Scope::Serial, &serial_path, c))
            .collect();
        r.and_then(|v| remove_scratch(&serial_path).map(|_| v))
    } else {
        Ok(Vec::new())
    };
    let sobs = Scope::Parallel(world).agree(sobs)?;

    let pcells = parallel_cells();
    let mut pobs = Vec::with_capacity(pcells.len());
    for c in &pcells {
        pobs.push(run_cell(Scope::Parallel(world), &parallel_path, c)?);
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
        let o = run_cell(Scope::Parallel(world), &parallel_path, &c)?;
        rows.push((storage, o.created.allocated, o.alloc_reported));
    }
    Scope::Parallel(world).agree(if rank == 0 {
        remove_scratch(&parallel_path)
    } else {
        Ok(())
    })?;

    let (serial, parallel) = if rank == 0 {
        (results(&scells, &sobs), results(&pcells, &pobs))
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(Findings {
        hdf5_version: hdf5::library_version(),
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

/// The `--fill-behaviour` mode on `world` (collective): [`observe`], then rank 0 prints
/// [`Findings::render`] on standard output. Differences from the document are findings:
/// the result is `Ok` unless `strict` is set and something differs, which gives an
/// [`Error::Invalid`] naming the number of differences (exit status 1 after a normal MPI
/// shut-down).
///
/// Errors: those of [`observe`]; writing the report.
pub fn run_mode(world: &Comm, strict: bool) -> Result<()> {
    // HDF5's error printing stays off until the process ends: HDF5 1.10.8 leaves its
    // free lists unbalanced after the experiment's parallel datasets created with an
    // explicit late allocation time and flushed, and prints "HDF5: infinite loop
    // closing library" when it shuts down in MPI_Finalize unless printing is off
    // (measured with Open MPI and MPICH; every id of ours is closed).
    std::mem::forget(hdf5::Quiet::new());
    let f = observe(world)?;
    let rank = world.rank()?;
    let (text, diffs) = if rank == 0 {
        (f.render(), f.difference_count() as u64)
    } else {
        (String::new(), 0)
    };
    let printed = if rank == 0 {
        write_stdout(&text)
    } else {
        Ok(())
    };
    agree(world, printed)?;
    let diffs = world.allreduce_u64(diffs, Op::Sum)?;
    if strict && diffs > 0 {
        return Err(Error::Invalid(vec![format!(
            "--strict: the linked HDF5 differs from the fill value document in {diffs} place(s) (see the report above)"
        )]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill_behaviour::classify::tests::{census, obs};

    const D: u64 = SIDE * SIDE;

    /// Serial contiguous cells of one (kind, time) with given late and incremental
    /// verdicts, folded by `results`.
    fn fold(incr: Observation, late: Observation) -> Vec<CellResult> {
        let base = Cell {
            table: Table::Serial,
            kind: FillKind::UserDefined,
            time: Some(FillTime::Alloc),
            alloc: Some(AllocTime::Incr),
            storage: Storage::Contiguous,
        };
        let cells = [
            base,
            Cell {
                alloc: Some(AllocTime::Late),
                ..base
            },
        ];
        results(&cells, &[incr, late])
    }

    #[test]
    fn same_as_late_and_marks() {
        let mut filled = obs(Storage::Contiguous, FillKind::UserDefined);
        filled.written.storage = census(D - 256, 0, 0, 0);
        let r = fold(filled.clone(), filled.clone());
        assert_eq!(r[0].verdict, Verdict::sure(FillOutcome::SameAsLate));
        assert!(r[0].agrees());
        assert_eq!(r[0].cell_text(), "Same as Late");
        assert_eq!(r[1].cell_text(), "User Fill Value Written During Write");
        // incremental behaving differently from late is shown as a difference
        let mut nofill = filled.clone();
        nofill.written.storage = census(0, D - 256, 0, 0);
        let r = fold(nofill, filled.clone());
        assert!(!r[0].agrees());
        assert_eq!(
            r[0].cell_text(),
            "≠ No Fill Value Written (document: Same as Late)"
        );
        // late differing from the document
        let mut late = filled.clone();
        late.written.storage = census(0, D - 256, 0, 0);
        let r = fold(late.clone(), late);
        assert_eq!(r[0].cell_text(), "Same as Late");
        assert_eq!(
            r[1].cell_text(),
            "≠ No Fill Value Written (document: User Fill Value Written During Write)"
        );
        assert!(r[1].evidence().contains("marker"));
        // an ambiguous cell consistent with the document gets ≈
        let cells = [Cell {
            table: Table::Serial,
            kind: FillKind::LibraryDefault,
            time: Some(FillTime::Never),
            alloc: Some(AllocTime::Incr),
            storage: Storage::Chunked,
        }];
        let mut o = obs(Storage::Chunked, FillKind::LibraryDefault);
        o.written.buffer = census(768, 0, 0, 0);
        o.written.allocated = 1024;
        let r = results(&cells, &[o]);
        assert_eq!(r[0].cell_text(), "No Fill Value Written ≈");
        // errors: the evidence names HDF5's reason
        let mut e = obs(Storage::Compact, FillKind::LibraryDefault);
        e.error = Some("H5Dcreate2: compact dataset must have early space allocation".into());
        let cells = [Cell {
            storage: Storage::Compact,
            alloc: Some(AllocTime::Late),
            ..cells[0]
        }];
        let r = results(&cells, &[e]);
        assert_eq!(r[0].cell_text(), "Error");
        assert!(r[0]
            .evidence()
            .ends_with("compact dataset must have early space allocation -> Error"));
    }

    fn findings_with(serial_fill_create: bool) -> Findings {
        let scells = serial_cells();
        let sobs: Vec<Observation> = scells
            .iter()
            .map(|c| {
                let mut o = obs(c.storage, c.kind);
                // synthetic: everything behaves as the document says, except that the
                // library default fills chunks at creation with If Set/Early if asked
                let doc = c.document().outcome;
                let s = census(D, 0, 0, 0);
                match doc {
                    FillOutcome::Error => o.error = Some("H5Dcreate2: refused".into()),
                    FillOutcome::DuringCreation | FillOutcome::AllChunksDuringCreate => {
                        if c.storage == Storage::Compact {
                            o.created.buffer = s
                        } else {
                            o.created.storage = s
                        }
                    }
                    FillOutcome::DuringWrite | FillOutcome::AllChunksDuringWrite => o.written.storage = s,
                    FillOutcome::EachChunkAccessed => o.written.buffer = census(768, 0, 0, 0),
                    FillOutcome::NoFill | FillOutcome::SameAsLate => {
                        o.written.storage = census(0, D, 0, 0);
                        if c.alloc == Some(AllocTime::Early) {
                            o.created.storage = census(0, D, 0, 0);
                        }
                        if c.storage == Storage::Compact {
                            // HDF5 zeroes compact data: zeros are the library fill value
                            o.created.buffer = if c.kind == FillKind::LibraryDefault {
                                census(D, 0, 0, 0)
                            } else {
                                census(0, 0, D, 0)
                            };
                        }
                    }
                }
                // Same as Late cells: the late row's observation
                if doc == FillOutcome::SameAsLate {
                    let late = Cell {
                        alloc: Some(AllocTime::Late),
                        ..*c
                    };
                    let ldoc = late.document().outcome;
                    o.written.storage = match ldoc {
                        FillOutcome::DuringWrite => s,
                        _ => census(0, D, 0, 0),
                    };
                    if ldoc == FillOutcome::Error {
                        o.error = Some("H5Dcreate2: refused".into());
                    }
                }
                if serial_fill_create
                    && c.kind == FillKind::LibraryDefault
                    && c.time == Some(FillTime::IfSet)
                    && c.alloc == Some(AllocTime::Early)
                    && c.storage == Storage::Chunked
                {
                    o.created.storage = s;
                }
                o
            })
            .collect();
        let pcells = parallel_cells();
        let pobs: Vec<Observation> = pcells
            .iter()
            .map(|c| {
                let mut o = obs(c.storage, c.kind);
                match c.document().outcome {
                    FillOutcome::Error => o.error = Some("H5Dcreate2: refused".into()),
                    FillOutcome::NoFill => {
                        if c.storage == Storage::Compact {
                            o.created.buffer = if c.kind == FillKind::LibraryDefault {
                                census(D, 0, 0, 0)
                            } else {
                                census(0, 0, D, 0)
                            };
                        } else {
                            o.created.storage = census(0, D, 0, 0)
                        }
                    }
                    _ => {
                        if c.storage == Storage::Compact {
                            o.created.buffer = census(D, 0, 0, 0)
                        } else {
                            o.created.storage = census(D, 0, 0, 0)
                        }
                    }
                }
                o
            })
            .collect();
        Findings {
            hdf5_version: "1.10.8".into(),
            ranks: 2,
            defaults: Defaults::DOCUMENT,
            serial: results(&scells, &sobs),
            parallel: results(&pcells, &pobs),
            alloc_check: AllocCheck {
                rows: vec![
                    (Storage::Contiguous, D, Some(AllocTime::Late)),
                    (Storage::Chunked, D, Some(AllocTime::Late)),
                ],
                dataset_bytes: D,
            },
        }
    }

    #[test]
    fn render_tables_in_the_documents_layout() {
        let f = findings_with(false);
        assert_eq!(f.difference_count(), 0, "{}", f.render());
        let text = f.render();
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
        // 3 header lines + 27 rows, 3 + 9 rows (the |---| lines aside)
        assert_eq!(rows.len(), 3 + 27 + 3 + 9, "{text}");
        assert!(text.contains(
            "| Library Default* | Never | Early | No Fill Value Written | No Fill Value Written | No Fill Value Written ≈ |"
        ));
        assert!(text.contains("|  |  | Incremental | Same as Late | "));
        assert!(text.contains("| Undefined | Never | No Fill Value Written | "));
        assert!(text.contains("|  | If Set* | User Fill Value Written During Creation | User Fill Value Written To All Chunks During Create | User Fill Value Written During Creation |"));
        assert!(text.contains("Differences from the document: 0 of 108 cells\n"));
        assert!(text.contains("HDF5 applies H5D_ALLOC_TIME_EARLY, as the document says"));
        assert!(text.contains("  H5Dcreate2: refused ("));
        // every line of the tables has the columns of its header
        for r in &rows[2..30] {
            assert_eq!(r.matches(" | ").count(), 5, "{r}");
        }
        for r in &rows[32..] {
            assert_eq!(r.matches(" | ").count(), 4, "{r}");
        }
        // one difference: marked in the table, listed with evidence, counted
        let f = findings_with(true);
        assert_eq!(f.difference_count(), 1);
        let text = f.render();
        assert!(text.contains(
            "| ≠ Library Fill Value Written To All Chunks During Create (document: No Fill Value Written) |"
        ));
        assert!(text.contains("Differences from the document: 1 of 108 cells:\n  Serial, Library Default, If Set, Early, Chunked: observed \"Library Fill Value Written To All Chunks During Create\", document \"No Fill Value Written\"\n    evidence: Serial, Library Default, If Set, Early, Chunked: create: wrote 0 B"));
        // defaults and the allocation check count as differences too
        let mut f = findings_with(false);
        f.defaults.alloc[0] = AllocTime::Early;
        f.alloc_check.rows[1].1 = 0;
        assert_eq!(f.difference_count(), 2);
        let text = f.render();
        assert!(text.contains("≠ Library defaults:"));
        assert!(text.contains("≠ Allocation time in parallel"));
    }
}
