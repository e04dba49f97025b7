//! The findings of the experiment ([`Findings`]) and their report. Pure, no I/O.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::ffi::hdf5::{AllocTime, FillKind, FillTime};

use super::cells::{Cell, Table};
use super::classify::{classify, Observation, Snapshot, Verdict};
use super::doc::{DocCell, FillOutcome, Storage};

/// One result cell: settings, document, observation, verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CellResult {
    /// The settings.
    pub(super) cell: Cell,
    /// What the document says.
    pub(super) doc: DocCell,
    /// What was observed.
    pub(super) obs: Observation,
    /// The classification of the observation ([`classify`]).
    pub(super) classified: Verdict,
    /// What the table shows: the classification, or "Same as Late" (see [`results`]).
    pub(super) verdict: Verdict,
}

impl CellResult {
    /// True when the observation is consistent with the document.
    pub(super) fn agrees(&self) -> bool {
        self.verdict.agrees(self.doc.outcome)
    }

    /// The table cell: the document's text when consistent, else `≠ observed (document:
    /// text)`.
    pub(super) fn cell_text(&self) -> String {
        let (kind, doc) = (self.cell.kind, &self.doc);
        match (self.agrees(), self.verdict.alternative) {
            (true, None) => doc.text(kind),
            (true, Some(_)) => format!("{} ≈", doc.text(kind)),
            (false, _) => format!(
                "≠ {} (document: {})",
                self.verdict.text(kind),
                doc.text(kind)
            ),
        }
    }

    /// The evidence line: bytes written and storage contents after each step, and the
    /// classification.
    pub(super) fn evidence(&self) -> String {
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
        let mut folded = String::new();
        if self.verdict != self.classified {
            folded = format!(" ({})", self.verdict.text(self.cell.kind));
        }
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
pub(super) fn results(cells: &[Cell], obs: &[Observation]) -> Vec<CellResult> {
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
                let late = Cell {
                    alloc: Some(AllocTime::Late),
                    ..*c
                };
                let late = cells.iter().position(|x| *x == late);
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

/// The library's defaults as a fresh dataset-creation list reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Defaults {
    /// `H5Pfill_value_defined` of a fresh list.
    pub(super) kind: FillKind,
    /// `H5Pget_fill_time` of a fresh list.
    pub(super) time: FillTime,
    /// `H5Pget_alloc_time` after choosing each layout (contiguous, chunked, compact).
    pub(super) alloc: [AllocTime; 3],
}

impl Defaults {
    /// What the document says: library default fill value, fill time if set, and (by
    /// its `*` marks) allocation times late, incremental, early.
    pub(super) const DOCUMENT: Defaults = Defaults {
        kind: FillKind::LibraryDefault,
        time: FillTime::IfSet,
        alloc: [AllocTime::Late, AllocTime::Incr, AllocTime::Early],
    };
}

/// The parallel allocation check: with late allocation requested, how many bytes
/// (of `dataset_bytes`) were allocated at creation, per storage method, and what the
/// dataset's creation list reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct AllocCheck {
    /// (storage, bytes allocated right after `H5Dcreate2`, reported allocation time).
    pub(super) rows: Vec<(Storage, u64, Option<AllocTime>)>,
    /// Size of each dataset in bytes.
    pub(super) dataset_bytes: u64,
}

impl AllocCheck {
    /// True when every dataset was fully allocated at creation (HDF5 applied early).
    pub(super) fn early(&self) -> bool {
        self.rows.iter().all(|(_, a, _)| *a == self.dataset_bytes)
    }
}

/// Everything the mode found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Findings {
    /// HDF5 version of the linked library.
    pub(super) hdf5_version: String,
    /// How each step is flushed and who writes the block in parallel (one sentence
    /// per table, chosen by the HDF5 release the build found; see `experiment`).
    pub(super) method: &'static str,
    /// Number of ranks of the parallel table.
    pub(super) ranks: u32,
    /// The defaults observed.
    pub(super) defaults: Defaults,
    /// The serial table's cells.
    pub(super) serial: Vec<CellResult>,
    /// The parallel table's cells.
    pub(super) parallel: Vec<CellResult>,
    /// The parallel allocation-time check.
    pub(super) alloc_check: AllocCheck,
}

impl Findings {
    /// The cells of both tables, serial first.
    fn cells(&self) -> impl Iterator<Item = &CellResult> {
        self.serial.iter().chain(&self.parallel)
    }

    /// Cells (of both tables) that differ from the document.
    pub(super) fn differing(&self) -> Vec<&CellResult> {
        self.cells().filter(|c| !c.agrees()).collect()
    }

    /// Number of differences: differing cells, plus 1 if the defaults differ, plus 1 if
    /// HDF5 did not allocate early in parallel.
    pub(super) fn difference_count(&self) -> usize {
        self.differing().len()
            + usize::from(self.defaults != Defaults::DOCUMENT)
            + usize::from(!self.alloc_check.early())
    }

    /// The whole report of the mode.
    pub(super) fn render(&self) -> String {
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
             wrote (wchar) during each step and its flush; \"storage\" is the allocated\n\
             space read back from the file, outside the block and the chunk it touched;\n\
             \"touched chunk\" the rest of that chunk, \"compact data\" the rest of the data.\n\
             Marks: ≠ the library differs (observed, then the document's text);\n\
             ≈ consistent, but the bytes cannot tell the document's outcome from another:\n\
             the library fill value is 0 and HDF5 zeroes a buffer it does not fill.\n",
        );
        s.push_str(self.method);
        s.push_str("\n\n");

        let d = &self.defaults;
        let doc = Defaults::DOCUMENT;
        let mark = if *d == doc { "" } else { "≠ " };
        let allocs = Storage::ALL.iter().zip(d.alloc);
        let allocs: Vec<String> = allocs
            .map(|(s, a)| format!("{} {}", s.label(), a.label()))
            .collect();
        let _ = writeln!(
            s,
            "{mark}Library defaults: fill value {}, fill time {}, allocation time {}{}",
            d.kind.label(),
            d.time.label(),
            allocs.join(", "),
            if *d == doc {
                " (as the document's * marks)".to_string()
            } else {
                let allocs = doc.alloc.map(AllocTime::label).join(" ");
                format!(
                    " (document: {}, {}, {allocs})",
                    doc.kind.label(),
                    doc.time.label()
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
            let time = time_label(c.time.unwrap_or(FillTime::IfSet));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                if first_kind { kind_label(c.kind) } else { "" },
                if first_time { time } else { "" },
                alloc.label(),
                row_text(row)
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
            let first = time == FillTime::Never;
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                if first { kind_label(c.kind) } else { "" },
                time_label(time),
                row_text(row)
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
            .cells()
            .filter(|c| c.agrees() && c.verdict.alternative.is_some())
            .count();
        let _ = writeln!(
            s,
            "Consistent but indistinguishable (≈): {ambiguous} cells\n"
        );

        let mut reasons: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for c in self.cells() {
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
        for c in self.cells() {
            let _ = writeln!(s, "  {}", c.evidence());
        }
        s
    }
}

/// A table row's cells, joined by ` | `.
fn row_text(row: &[CellResult]) -> String {
    let cells: Vec<String> = row.iter().map(CellResult::cell_text).collect();
    cells.join(" | ")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill_behaviour::cells::{cells, SIDE};
    use crate::fill_behaviour::classify::{census, obs};

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
        let scells = cells(Table::Serial);
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
                    FillOutcome::DuringWrite | FillOutcome::AllChunksDuringWrite => {
                        o.written.storage = s
                    }
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
        let pcells = cells(Table::Parallel);
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
            method: "Flush: H5Dflush.",
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
        assert!(text.contains(
            "≠ Library defaults: fill value Library Default, fill time If Set, allocation time \
             Contiguous Early, Chunked Incremental, Compact Early (document: Library Default, \
             If Set, Late Incremental Early)\n"
        ));
        assert!(text.contains("≠ Allocation time in parallel"));
    }
}
