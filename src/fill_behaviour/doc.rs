//! The document's tables: HDF5's fill value writing behaviour, serial and parallel, as the
//! HDF5 documentation states it (last modified March 16, 2018). Data only.

use crate::ffi::hdf5::{AllocTime, FillKind, FillTime};

/// A storage method: a column of the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Storage {
    /// `H5D_CONTIGUOUS`.
    Contiguous,
    /// `H5D_CHUNKED`.
    Chunked,
    /// `H5D_COMPACT` (raw data in the object header).
    Compact,
}

impl Storage {
    /// The columns in the document's order.
    pub(super) const ALL: [Storage; 3] = [Storage::Contiguous, Storage::Chunked, Storage::Compact];

    /// The column title: `Contiguous`, `Chunked`, `Compact`.
    pub(super) fn label(self) -> &'static str {
        match self {
            Storage::Contiguous => "Contiguous",
            Storage::Chunked => "Chunked",
            Storage::Compact => "Compact",
        }
    }
}

/// The outcomes the document's cells name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FillOutcome {
    /// No Fill Value Written.
    NoFill,
    /// … Fill Value Written During Creation (contiguous, compact).
    DuringCreation,
    /// … Fill Value Written To All Chunks During Create.
    AllChunksDuringCreate,
    /// … Fill Value Set In Each Chunk Accessed During Write.
    EachChunkAccessed,
    /// … Fill Value Written During Write (contiguous).
    DuringWrite,
    /// … Fill Value Written To All Chunks During Write.
    AllChunksDuringWrite,
    /// Error: HDF5 refuses the settings.
    Error,
    /// Same as Late: the incremental row behaves as the late row.
    SameAsLate,
}

impl FillOutcome {
    /// The document's wording, with `Library`/`User` before "Fill Value" for the fill
    /// value kind of the row.
    pub(super) fn text(self, kind: FillKind) -> String {
        let who = match kind {
            FillKind::LibraryDefault => "Library ",
            FillKind::UserDefined => "User ",
            FillKind::Undefined => "",
        };
        let what = match self {
            FillOutcome::NoFill => return "No Fill Value Written".into(),
            FillOutcome::Error => return "Error".into(),
            FillOutcome::SameAsLate => return "Same as Late".into(),
            FillOutcome::DuringCreation => "Written During Creation",
            FillOutcome::AllChunksDuringCreate => "Written To All Chunks During Create",
            FillOutcome::EachChunkAccessed => "Set In Each Chunk Accessed During Write",
            FillOutcome::DuringWrite => "Written During Write",
            FillOutcome::AllChunksDuringWrite => "Written To All Chunks During Write",
        };
        format!("{who}Fill Value {what}")
    }
}

/// One cell of the document: its outcome, and whether the document marks it as the
/// default setting (`*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DocCell {
    /// The outcome the document states.
    pub(super) outcome: FillOutcome,
    /// The cell carries the document's `*` (default setting).
    pub(super) default_mark: bool,
}

impl DocCell {
    /// The cell's text as the document prints it, `*` included.
    pub(super) fn text(&self, kind: FillKind) -> String {
        let star = if self.default_mark { "*" } else { "" };
        format!("{}{star}", self.outcome.text(kind))
    }
}

/// The serial table of the document (seed 001): per fill value (library default,
/// user-defined, undefined), its rows fill time (never, if set, allocation) × allocation
/// time (early, incremental, late), split by ` | `; each row's columns contiguous, chunked,
/// compact. Codes: N no fill, C during creation, A all chunks during create, S set in each
/// chunk accessed, W during write, B all chunks during write, E error, L same as late; `*`
/// the document's default mark.
const SERIAL_DOC: [&str; 3] = [
    "N N N | L N E | N N E | N N N* | L N* E | N* N E | C A C | L S E | W B E",
    "N N N | L N E | N N E | C A C* | L S* E | W* B E | C A C | L S E | W B E",
    "N N N | L N E | N N E | N N N* | L N* E | N* N E | E E E | L E E | E E E",
];

/// The parallel table of the document: per fill value, its rows by fill time (codes as
/// in [`SERIAL_DOC`]).
const PARALLEL_DOC: [&str; 3] = [
    "N N N | N N N | C A C",
    "N N N | C A C | C A C",
    "N N N | N N N | E E E",
];

/// The cell of `table` (one of the above) for `kind`, its row `row`, column `s`.
fn cell(table: &[&str; 3], kind: FillKind, row: usize, s: Storage) -> DocCell {
    let code = table[index(&FillKind::ALL, kind)]
        .split(" | ")
        .nth(row)
        .and_then(|r| r.split(' ').nth(index(&Storage::ALL, s)))
        .expect("the document tables have every cell");
    let (c, star) = code.strip_suffix('*').map_or((code, false), |c| (c, true));
    let outcome = match c {
        "N" => FillOutcome::NoFill,
        "C" => FillOutcome::DuringCreation,
        "A" => FillOutcome::AllChunksDuringCreate,
        "S" => FillOutcome::EachChunkAccessed,
        "W" => FillOutcome::DuringWrite,
        "B" => FillOutcome::AllChunksDuringWrite,
        "E" => FillOutcome::Error,
        "L" => FillOutcome::SameAsLate,
        _ => unreachable!("bad code {code:?} in the document table"),
    };
    DocCell {
        outcome,
        default_mark: star,
    }
}

/// The position of `x` in `all` (a row or column of the tables).
fn index<T: PartialEq>(all: &[T], x: T) -> usize {
    all.iter().position(|a| *a == x).unwrap_or(0)
}

/// The document's serial cell. `alloc` is early, incremental or late
/// ([`AllocTime::Default`] reads as late, the row the document's default marks use for
/// contiguous storage).
pub(super) fn document_serial(
    kind: FillKind,
    time: FillTime,
    alloc: AllocTime,
    s: Storage,
) -> DocCell {
    let a = match alloc {
        AllocTime::Early => 0,
        AllocTime::Incr => 1,
        AllocTime::Late | AllocTime::Default => 2,
    };
    cell(&SERIAL_DOC, kind, index(&FillTime::ALL, time) * 3 + a, s)
}

/// The document's parallel cell.
pub(super) fn document_parallel(kind: FillKind, time: FillTime, s: Storage) -> DocCell {
    cell(&PARALLEL_DOC, kind, index(&FillTime::ALL, time), s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_tables_as_the_seed_prints_them() {
        use FillKind::*;
        use FillTime::*;
        use Storage::*;
        let t = |k, f, a, s| document_serial(k, f, a, s).text(k);
        assert_eq!(
            t(LibraryDefault, Never, AllocTime::Incr, Contiguous),
            "Same as Late"
        );
        assert_eq!(
            t(LibraryDefault, IfSet, AllocTime::Early, Compact),
            "No Fill Value Written*"
        );
        assert_eq!(
            t(LibraryDefault, Alloc, AllocTime::Early, Chunked),
            "Library Fill Value Written To All Chunks During Create"
        );
        assert_eq!(
            t(LibraryDefault, Alloc, AllocTime::Incr, Chunked),
            "Library Fill Value Set In Each Chunk Accessed During Write"
        );
        assert_eq!(
            t(UserDefined, IfSet, AllocTime::Late, Contiguous),
            "User Fill Value Written During Write*"
        );
        assert_eq!(
            t(UserDefined, IfSet, AllocTime::Early, Compact),
            "User Fill Value Written During Creation*"
        );
        assert_eq!(
            t(UserDefined, Alloc, AllocTime::Late, Chunked),
            "User Fill Value Written To All Chunks During Write"
        );
        assert_eq!(
            t(Undefined, Alloc, AllocTime::Incr, Contiguous),
            "Same as Late"
        );
        assert_eq!(t(Undefined, Alloc, AllocTime::Late, Chunked), "Error");
        assert_eq!(
            t(Undefined, IfSet, AllocTime::Incr, Chunked),
            "No Fill Value Written*"
        );
        assert_eq!(t(UserDefined, Never, AllocTime::Late, Compact), "Error");
        let p = |k, f, s| document_parallel(k, f, s).text(k);
        assert_eq!(p(LibraryDefault, IfSet, Chunked), "No Fill Value Written");
        assert_eq!(
            p(UserDefined, IfSet, Chunked),
            "User Fill Value Written To All Chunks During Create"
        );
        assert_eq!(
            p(LibraryDefault, Alloc, Compact),
            "Library Fill Value Written During Creation"
        );
        assert_eq!(p(Undefined, Alloc, Contiguous), "Error");
    }
}
