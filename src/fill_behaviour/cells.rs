//! The cells of the experiment and their settings. Pure, no I/O.

use std::fmt::Write as _;

use crate::ffi::hdf5::{AllocTime, FillKind, FillProperties, FillTime, FillValue};

use super::doc::{document_parallel, document_serial, DocCell, Storage};

/// The user-defined fill value of the experiment.
pub(super) const USER_FILL: u8 = 0x5A;
/// Side of the square test dataset every cell creates, in bytes (one-byte elements).
pub(super) const SIDE: u64 = 128;
/// Side of a chunk of the chunked cells, in bytes.
pub(super) const CHUNK: u64 = 32;

/// Which table a cell belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    /// Rank 0 alone, `sec2` driver.
    Serial,
    /// All ranks, MPI-IO driver.
    Parallel,
}

/// The settings of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cell {
    /// The table.
    pub(super) table: Table,
    /// Fill value kind.
    pub(super) kind: FillKind,
    /// Fill time (`None`: left to the library).
    pub(super) time: Option<FillTime>,
    /// Allocation time (`None`: left to the library; the parallel table).
    pub(super) alloc: Option<AllocTime>,
    /// Storage method.
    pub(super) storage: Storage,
}

impl Cell {
    /// The fill value in force: 0 (library default), [`USER_FILL`] or `None`.
    pub(super) fn fill_byte(&self) -> Option<u8> {
        match self.kind {
            FillKind::LibraryDefault => Some(0),
            FillKind::UserDefined => Some(USER_FILL),
            FillKind::Undefined => None,
        }
    }

    /// The dataset-creation settings of the cell.
    pub(super) fn settings(&self) -> FillProperties {
        FillProperties {
            value: match self.kind {
                FillKind::LibraryDefault => None,
                FillKind::UserDefined => Some(FillValue::Byte(USER_FILL)),
                FillKind::Undefined => Some(FillValue::Undefined),
            },
            time: self.time,
            alloc: self.alloc,
        }
    }

    /// `Serial, Library Default, If Set, Early, Chunked`.
    pub(super) fn name(&self) -> String {
        let table = match self.table {
            Table::Serial => "Serial",
            Table::Parallel => "Parallel",
        };
        let mut s = format!("{table}, {}", self.kind.label());
        if let Some(t) = self.time {
            let _ = write!(s, ", {}", t.label());
        }
        if let Some(a) = self.alloc {
            let _ = write!(s, ", {}", a.label());
        }
        let _ = write!(s, ", {}", self.storage.label());
        s
    }

    /// The document's cell (the allocation time left to the library reads as late in
    /// the serial table; the parallel table has none).
    pub(super) fn document(&self) -> DocCell {
        let time = self.time.unwrap_or(FillTime::IfSet);
        match self.table {
            Table::Serial => document_serial(
                self.kind,
                time,
                self.alloc.unwrap_or(AllocTime::Late),
                self.storage,
            ),
            Table::Parallel => document_parallel(self.kind, time, self.storage),
        }
    }
}

/// The cells of `table` in the document's order: the serial table's 81, the parallel
/// table's 27 (the allocation time left to HDF5, as in the benchmark).
pub(super) fn cells(table: Table) -> Vec<Cell> {
    let allocs = match table {
        Table::Serial => AllocTime::TABLE.map(Some).to_vec(),
        Table::Parallel => vec![None],
    };
    let mut v = Vec::new();
    for kind in FillKind::ALL {
        for time in FillTime::ALL {
            for &alloc in &allocs {
                for storage in Storage::ALL {
                    v.push(Cell {
                        table,
                        kind,
                        time: Some(time),
                        alloc,
                        storage,
                    });
                }
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill_behaviour::doc::FillOutcome;

    #[test]
    fn cells_read_the_documents_tables() {
        use Storage::*;
        // nine default marks: the If Set rows' default allocation per storage
        let stars = cells(Table::Serial)
            .iter()
            .filter(|c| c.document().default_mark)
            .count();
        assert_eq!(stars, 9);
        // every incremental contiguous cell is "Same as Late"; every compact cell but
        // early is an error
        for c in cells(Table::Serial) {
            let d = c.document().outcome;
            if c.storage == Contiguous && c.alloc == Some(AllocTime::Incr) {
                assert_eq!(d, FillOutcome::SameAsLate, "{}", c.name());
            }
            if c.storage == Compact && c.alloc != Some(AllocTime::Early) {
                assert_eq!(d, FillOutcome::Error, "{}", c.name());
            }
        }
        assert_eq!(
            (cells(Table::Serial).len(), cells(Table::Parallel).len()),
            (81, 27)
        );
    }
}
