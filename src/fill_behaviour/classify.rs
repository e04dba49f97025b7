//! What a cell left behind ([`Observation`]) and its outcome ([`classify`]). Pure, no I/O.

use crate::ffi::hdf5::{AllocTime, FillKind};

use super::doc::{FillOutcome, Storage};

/// The marker byte written behind HDF5's allocated space: storage HDF5 allocates but
/// never writes still holds it.
pub(super) const MARKER: u8 = 0xEE;

/// Bytes of a region counted by value. A byte equal to the fill value counts as fill
/// (even when the fill value is 0), else marker, else zero, else other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Census {
    /// Bytes equal to the fill value.
    pub(super) fill: u64,
    /// Bytes equal to [`MARKER`] (storage HDF5 did not write).
    pub(super) marker: u64,
    /// Zero bytes that are not the fill value.
    pub(super) zero: u64,
    /// Any other bytes.
    pub(super) other: u64,
}

impl Census {
    /// Number of bytes counted.
    pub(super) fn total(&self) -> u64 {
        self.fill + self.marker + self.zero + self.other
    }

    /// Count one byte; `fill` is the fill value (`None` when undefined).
    pub(super) fn add_byte(&mut self, b: u8, fill: Option<u8>) {
        if Some(b) == fill {
            self.fill += 1;
        } else if b == MARKER {
            self.marker += 1;
        } else if b == 0 {
            self.zero += 1;
        } else {
            self.other += 1;
        }
    }

    /// Count every byte of `bytes`.
    pub(super) fn add(&mut self, bytes: &[u8], fill: Option<u8>) {
        bytes.iter().for_each(|b| self.add_byte(*b, fill));
    }

    /// True when there are bytes and every one is the fill value.
    pub(super) fn all_fill(&self) -> bool {
        self.total() > 0 && self.fill == self.total()
    }

    /// `16384 fill 0x5a`, `15360 marker, 768 zero`, `none`.
    pub(super) fn describe(&self, fill: Option<u8>) -> String {
        let fill = format!("fill 0x{:02x}", fill.unwrap_or(0));
        let kinds = [(self.fill, fill.as_str()), (self.marker, "marker")];
        let v: Vec<String> = kinds
            .into_iter()
            .chain([(self.zero, "zero"), (self.other, "other")])
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    }
}

/// What one step (dataset creation, or the first write) left behind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Snapshot {
    /// Bytes the process wrote during the step and its flush (`wchar` of
    /// `/proc/self/io`; in parallel summed over the ranks).
    pub(super) wrote: u64,
    /// Bytes of raw-data storage allocated after the step (`H5Dget_storage_size`).
    pub(super) allocated: u64,
    /// Allocated storage in the file that HDF5 could only have written on purpose
    /// (contiguous data, chunks the test did not write into), outside the test's block.
    pub(super) storage: Census,
    /// Bytes outside the test's block that HDF5 wrote from its own buffer anyway: the
    /// rest of a chunk the write touched, compact data.
    pub(super) buffer: Census,
}

/// Everything observed for one cell. Contents are only gathered on rank 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Observation {
    /// The column.
    pub(super) storage: Storage,
    /// The fill value in force: 0 for the library default,
    /// [`USER_FILL`](super::cells::USER_FILL), `None` when undefined.
    pub(super) fill_byte: Option<u8>,
    /// HDF5's refusal (`H5Dcreate2: reason`), if it refused.
    pub(super) error: Option<String>,
    /// The allocation time the created dataset's creation list reports
    /// (`H5Pget_alloc_time` of `H5Dget_create_plist`).
    pub(super) alloc_reported: Option<AllocTime>,
    /// After creation.
    pub(super) created: Snapshot,
    /// After the first write.
    pub(super) written: Snapshot,
}

/// A classified cell: the outcome, and the other outcome the observation cannot be told
/// apart from (`None` when it is unambiguous).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Verdict {
    /// The outcome observed.
    pub(super) outcome: FillOutcome,
    /// An outcome leaving the same bytes (see [`fill_behaviour`](super)), if any.
    pub(super) alternative: Option<FillOutcome>,
}

impl Verdict {
    /// An unambiguous verdict.
    pub(super) fn sure(outcome: FillOutcome) -> Verdict {
        Verdict {
            outcome,
            alternative: None,
        }
    }

    /// Whether the document's outcome is consistent with the observation.
    pub(super) fn agrees(&self, doc: FillOutcome) -> bool {
        self.outcome == doc || self.alternative == Some(doc)
    }

    /// The verdict in the document's words: `X`, or `X or Y` when ambiguous.
    pub(super) fn text(&self, kind: FillKind) -> String {
        match self.alternative {
            None => self.outcome.text(kind),
            Some(a) => format!("{} or {}", self.outcome.text(kind), a.text(kind)),
        }
    }
}

/// Classify an observation into the document's outcomes (README `h5perf
/// --fill-behaviour`); with fill value 0 from HDF5's buffer, "no fill" is the alternative.
pub(super) fn classify(o: &Observation) -> Verdict {
    if o.error.is_some() {
        return Verdict::sure(FillOutcome::Error);
    }
    let verdict = |c: &Census, filled: FillOutcome, buffer: bool| {
        if !c.all_fill() {
            Verdict::sure(FillOutcome::NoFill)
        } else if buffer && o.fill_byte == Some(0) {
            Verdict {
                outcome: filled,
                alternative: Some(FillOutcome::NoFill),
            }
        } else {
            Verdict::sure(filled)
        }
    };
    match o.storage {
        Storage::Compact => verdict(&o.created.buffer, FillOutcome::DuringCreation, true),
        Storage::Contiguous | Storage::Chunked => {
            let chunked = o.storage == Storage::Chunked;
            let (at_create, at_write) = if chunked {
                (
                    FillOutcome::AllChunksDuringCreate,
                    FillOutcome::AllChunksDuringWrite,
                )
            } else {
                (FillOutcome::DuringCreation, FillOutcome::DuringWrite)
            };
            if o.created.storage.total() > 0 {
                verdict(&o.created.storage, at_create, false)
            } else if o.written.storage.total() > 0 {
                verdict(&o.written.storage, at_write, false)
            } else if chunked {
                verdict(&o.written.buffer, FillOutcome::EachChunkAccessed, true)
            } else {
                Verdict::sure(FillOutcome::NoFill)
            }
        }
    }
}

/// Test helpers, shared with the tests of the findings.
#[cfg(test)]
pub(super) use tests::{census, obs};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill_behaviour::cells::{SIDE, USER_FILL};

    const D: u64 = SIDE * SIDE;

    /// A census of the given counts.
    pub(in crate::fill_behaviour) fn census(
        fill: u64,
        marker: u64,
        zero: u64,
        other: u64,
    ) -> Census {
        Census {
            fill,
            marker,
            zero,
            other,
        }
    }

    /// An observation of nothing (no error, nothing allocated or written) for a cell
    /// of `storage` and fill value `kind`.
    pub(in crate::fill_behaviour) fn obs(storage: Storage, kind: FillKind) -> Observation {
        Observation {
            storage,
            fill_byte: match kind {
                FillKind::LibraryDefault => Some(0),
                FillKind::UserDefined => Some(USER_FILL),
                FillKind::Undefined => None,
            },
            error: None,
            alloc_reported: None,
            created: Snapshot::default(),
            written: Snapshot::default(),
        }
    }

    #[test]
    fn census_counts_fill_before_marker_and_zero() {
        let mut c = Census::default();
        c.add(&[0, 0, MARKER, 7, USER_FILL], Some(0));
        assert_eq!(c, census(2, 1, 0, 2));
        let mut c = Census::default();
        c.add(&[0, MARKER, USER_FILL, USER_FILL], Some(USER_FILL));
        assert_eq!(c, census(2, 1, 1, 0));
        let mut c = Census::default();
        c.add(&[0, 0], None);
        assert_eq!(c, census(0, 0, 2, 0));
        assert!(!c.all_fill());
        assert!(!Census::default().all_fill());
        assert!(census(5, 0, 0, 0).all_fill());
        assert_eq!(
            census(3, 2, 0, 1).describe(Some(0x5a)),
            "3 fill 0x5a, 2 marker, 1 other"
        );
        assert_eq!(Census::default().describe(None), "none");
    }

    #[test]
    fn classify_contiguous() {
        // allocated and filled at creation
        let mut o = obs(Storage::Contiguous, FillKind::UserDefined);
        o.created = Snapshot {
            wrote: 16656,
            allocated: D,
            storage: census(D, 0, 0, 0),
            ..Default::default()
        };
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::DuringCreation));
        // allocated at creation, marker left: no fill (and nothing later changes that)
        o.created.storage = census(0, D, 0, 0);
        o.written.storage = census(D - 256, 0, 0, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // allocated at the write and filled then; the library value 0 is unambiguous in
        // storage because unwritten storage keeps the marker
        let mut o = obs(Storage::Contiguous, FillKind::LibraryDefault);
        o.written = Snapshot {
            wrote: 16912,
            allocated: D,
            storage: census(D - 256, 0, 0, 0),
            ..Default::default()
        };
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::DuringWrite));
        o.written.storage = census(0, D - 256, 0, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // partly filled storage is not "written"
        o.written.storage = census(10, D - 266, 0, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // nothing allocated at all
        o.written.storage = Census::default();
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // an error wins
        o.error = Some("H5Dcreate2: no".into());
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::Error));
    }

    #[test]
    fn classify_chunked() {
        let mut o = obs(Storage::Chunked, FillKind::LibraryDefault);
        // all chunks at creation, zeros over the marker: the library fill value
        o.created = Snapshot {
            wrote: 19272,
            allocated: D,
            storage: census(D, 0, 0, 0),
            ..Default::default()
        };
        assert_eq!(
            classify(&o),
            Verdict::sure(FillOutcome::AllChunksDuringCreate)
        );
        // all chunks at creation, marker left
        o.created.storage = census(0, D, 0, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // late: all chunks allocated at the write; the other 15 chunks decide
        let mut o = obs(Storage::Chunked, FillKind::UserDefined);
        o.written = Snapshot {
            wrote: 20296,
            allocated: D,
            storage: census(15 * 1024, 0, 0, 0),
            buffer: census(768, 0, 0, 0),
        };
        assert_eq!(
            classify(&o),
            Verdict::sure(FillOutcome::AllChunksDuringWrite)
        );
        o.written.storage = census(0, 15 * 1024, 0, 0);
        o.written.buffer = census(0, 0, 768, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // incremental: only the touched chunk exists; its rest decides
        o.written = Snapshot {
            wrote: 3912,
            allocated: 1024,
            storage: Census::default(),
            buffer: census(768, 0, 0, 0),
        };
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::EachChunkAccessed));
        o.written.buffer = census(0, 0, 768, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        // ... with the library default the zeros could be either
        let mut o = obs(Storage::Chunked, FillKind::LibraryDefault);
        o.written.allocated = 1024;
        o.written.buffer = census(768, 0, 0, 0);
        let v = classify(&o);
        assert_eq!(
            v,
            Verdict {
                outcome: FillOutcome::EachChunkAccessed,
                alternative: Some(FillOutcome::NoFill)
            }
        );
        assert!(v.agrees(FillOutcome::NoFill) && v.agrees(FillOutcome::EachChunkAccessed));
        assert!(!v.agrees(FillOutcome::AllChunksDuringWrite));
        // undefined fill value: zeros are never fill
        let mut o = obs(Storage::Chunked, FillKind::Undefined);
        o.written.buffer = census(0, 0, 768, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
    }

    #[test]
    fn classify_compact() {
        let mut o = obs(Storage::Compact, FillKind::UserDefined);
        o.created.buffer = census(D, 0, 0, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::DuringCreation));
        o.created.buffer = census(0, 0, D, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
        let mut o = obs(Storage::Compact, FillKind::LibraryDefault);
        o.created.buffer = census(D, 0, 0, 0);
        assert_eq!(classify(&o).alternative, Some(FillOutcome::NoFill));
        let mut o = obs(Storage::Compact, FillKind::Undefined);
        o.created.buffer = census(0, 0, D, 0);
        assert_eq!(classify(&o), Verdict::sure(FillOutcome::NoFill));
    }
}
