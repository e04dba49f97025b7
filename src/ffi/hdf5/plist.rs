//! Property lists ([`Plist`]: file access, dataset creation, dataset transfer) and the
//! library's fill-value and allocation vocabulary ([`FillProperties`], [`FillValue`],
//! [`FillTime`], [`AllocTime`], [`FillKind`]) with its conversions to and from the C
//! enums `H5D_fill_time_t`, `H5D_alloc_time_t` and `H5D_fill_value_t`.

use std::ffi::c_void;

use hdf5_sys::h5::hsize_t;
use hdf5_sys::h5d;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p;
use hdf5_sys::h5t;

use super::library::{check, check_id, err, init, rank};
use crate::error::Result;
use crate::ffi::mpi::{Comm, Info};

/// A property list (file access, dataset creation or dataset transfer), closed on drop.
pub struct Plist {
    pub(super) id: hid_t,
}

impl Plist {
    fn create(class: hid_t) -> Result<Plist> {
        // SAFETY: class is a valid property-list class id after init().
        let id = check_id("H5Pcreate", unsafe { h5p::H5Pcreate(class) })?;
        Ok(Plist { id })
    }

    /// A file-access list with the MPI-IO driver on `comm`/`info`
    /// (`H5Pset_fapl_mpio`) and `H5Pset_alignment(threshold, alignment)` (spec §9).
    pub fn file_access_mpio(
        comm: &Comm,
        info: &Info,
        threshold: u64,
        alignment: u64,
    ) -> Result<Plist> {
        init();
        let p = Self::create(*h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id, communicator and info handles (HDF5 duplicates them).
        check("H5Pset_fapl_mpio", unsafe {
            h5p::H5Pset_fapl_mpio(p.id, comm.as_raw(), info.as_raw())
        })?;
        // SAFETY: valid fapl id.
        check("H5Pset_alignment", unsafe {
            h5p::H5Pset_alignment(p.id, threshold, alignment)
        })?;
        Ok(p)
    }

    /// A dataset-creation list; with `chunk` = Some(dims), `H5Pset_chunk(dims)`.
    pub fn dataset_create(chunk: Option<&[u64]>) -> Result<Plist> {
        init();
        let p = Self::create(*h5p::H5P_CLS_DATASET_CREATE)?;
        if let Some(dims) = chunk {
            let d: Vec<hsize_t> = dims.to_vec();
            // SAFETY: valid dcpl id; d holds `len` dims.
            check("H5Pset_chunk", unsafe {
                h5p::H5Pset_chunk(p.id, rank(&d)?, d.as_ptr())
            })?;
        }
        Ok(p)
    }

    /// A file-access list with the POSIX `sec2` driver (`H5Pset_fapl_sec2`) and a raw-data
    /// sieve buffer of `sieve_bytes` bytes (`H5Pset_sieve_buf_size`; 0 switches sieving
    /// off, so every raw-data write reaches the file as it is made).
    pub fn file_access_sec2(sieve_bytes: usize) -> Result<Plist> {
        init();
        let p = Self::create(*h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id.
        check("H5Pset_fapl_sec2", unsafe { h5p::H5Pset_fapl_sec2(p.id) })?;
        // SAFETY: valid fapl id.
        check("H5Pset_sieve_buf_size", unsafe {
            h5p::H5Pset_sieve_buf_size(p.id, sieve_bytes)
        })?;
        Ok(p)
    }

    /// A file-access list with the in-memory `core` driver and no backing store: a file
    /// created with it never reaches the disk (`H5Pset_fapl_core(fapl, 4096, false)`).
    pub(super) fn file_access_core() -> Result<Plist> {
        init();
        let p = Self::create(*h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id; 4096-byte allocation increment, no backing store.
        check("H5Pset_fapl_core", unsafe {
            h5p::H5Pset_fapl_core(p.id, 4096, 0)
        })?;
        Ok(p)
    }

    /// `H5Pset_layout(H5D_COMPACT)` on a dataset-creation list: the raw data is kept in
    /// the object header (at most 64 KiB).
    pub fn set_compact(&self) -> Result<()> {
        // SAFETY: valid dcpl id.
        check("H5Pset_layout", unsafe {
            h5p::H5Pset_layout(self.id, h5d::H5D_layout_t::H5D_COMPACT)
        })
    }

    /// Apply the fill properties that are given (spec §9 extended): `H5Pset_fill_value`
    /// (a byte of `H5T_NATIVE_UCHAR`, or NULL for an undefined fill value),
    /// `H5Pset_fill_time`, `H5Pset_alloc_time`. Properties left at `None` are not touched,
    /// so the default settings make no call at all. Call after [`Plist::dataset_create`]
    /// (the layout must be set before the allocation time).
    ///
    /// Errors: HDF5 refuses a property ([`crate::error::Error::Hdf5`]).
    pub fn set_fill(&self, fill: &FillProperties) -> Result<()> {
        match fill.value {
            None => {}
            Some(FillValue::Byte(b)) => {
                // SAFETY: valid dcpl id; the value is one byte of the native uchar type.
                check("H5Pset_fill_value", unsafe {
                    h5p::H5Pset_fill_value(
                        self.id,
                        *h5t::H5T_NATIVE_UCHAR,
                        &b as *const u8 as *const c_void,
                    )
                })?;
            }
            Some(FillValue::Undefined) => {
                // SAFETY: valid dcpl id; NULL makes the fill value undefined.
                check("H5Pset_fill_value", unsafe {
                    h5p::H5Pset_fill_value(self.id, *h5t::H5T_NATIVE_UCHAR, std::ptr::null())
                })?;
            }
        }
        if let Some(t) = fill.time {
            let t = match t {
                FillTime::Never => h5d::H5D_fill_time_t::H5D_FILL_TIME_NEVER,
                FillTime::IfSet => h5d::H5D_fill_time_t::H5D_FILL_TIME_IFSET,
                FillTime::Alloc => h5d::H5D_fill_time_t::H5D_FILL_TIME_ALLOC,
            };
            // SAFETY: valid dcpl id.
            check("H5Pset_fill_time", unsafe {
                h5p::H5Pset_fill_time(self.id, t)
            })?;
        }
        if let Some(a) = fill.alloc {
            let a = match a {
                AllocTime::Default => h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_DEFAULT,
                AllocTime::Early => h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_EARLY,
                AllocTime::Incr => h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_INCR,
                AllocTime::Late => h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_LATE,
            };
            // SAFETY: valid dcpl id.
            check("H5Pset_alloc_time", unsafe {
                h5p::H5Pset_alloc_time(self.id, a)
            })?;
        }
        Ok(())
    }

    /// `H5Pfill_value_defined`: whether the list's fill value is the library default,
    /// user-defined or undefined.
    pub fn fill_kind(&self) -> Result<FillKind> {
        let mut st = h5d::H5D_fill_value_t::H5D_FILL_VALUE_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum HDF5 sets to a valid value.
        check("H5Pfill_value_defined", unsafe {
            h5p::H5Pfill_value_defined(self.id, &mut st)
        })?;
        match st {
            h5d::H5D_fill_value_t::H5D_FILL_VALUE_DEFAULT => Ok(FillKind::LibraryDefault),
            h5d::H5D_fill_value_t::H5D_FILL_VALUE_USER_DEFINED => Ok(FillKind::UserDefined),
            h5d::H5D_fill_value_t::H5D_FILL_VALUE_UNDEFINED => Ok(FillKind::Undefined),
            h5d::H5D_fill_value_t::H5D_FILL_VALUE_ERROR => Err(err("H5Pfill_value_defined")),
        }
    }

    /// `H5Pget_fill_time` of a dataset-creation list.
    pub fn fill_time(&self) -> Result<FillTime> {
        let mut t = h5d::H5D_fill_time_t::H5D_FILL_TIME_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum.
        check("H5Pget_fill_time", unsafe {
            h5p::H5Pget_fill_time(self.id, &mut t)
        })?;
        match t {
            h5d::H5D_fill_time_t::H5D_FILL_TIME_NEVER => Ok(FillTime::Never),
            h5d::H5D_fill_time_t::H5D_FILL_TIME_IFSET => Ok(FillTime::IfSet),
            h5d::H5D_fill_time_t::H5D_FILL_TIME_ALLOC => Ok(FillTime::Alloc),
            h5d::H5D_fill_time_t::H5D_FILL_TIME_ERROR => Err(err("H5Pget_fill_time")),
        }
    }

    /// `H5Pget_alloc_time` of a dataset-creation list (what the list says, which is not
    /// always what HDF5 applies: the `--fill-behaviour` experiment compares the two).
    pub fn alloc_time(&self) -> Result<AllocTime> {
        let mut a = h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum.
        check("H5Pget_alloc_time", unsafe {
            h5p::H5Pget_alloc_time(self.id, &mut a)
        })?;
        match a {
            h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_DEFAULT => Ok(AllocTime::Default),
            h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_EARLY => Ok(AllocTime::Early),
            h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_INCR => Ok(AllocTime::Incr),
            h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_LATE => Ok(AllocTime::Late),
            h5d::H5D_alloc_time_t::H5D_ALLOC_TIME_ERROR => Err(err("H5Pget_alloc_time")),
        }
    }

    /// A dataset-transfer list; collective (`H5FD_MPIO_COLLECTIVE`) or left independent.
    pub fn dataset_xfer(collective: bool) -> Result<Plist> {
        init();
        let p = Self::create(*h5p::H5P_CLS_DATASET_XFER)?;
        if collective {
            // SAFETY: valid dxpl id.
            check("H5Pset_dxpl_mpio", unsafe {
                h5p::H5Pset_dxpl_mpio(p.id, h5p::H5FD_mpio_xfer_t::H5FD_MPIO_COLLECTIVE)
            })?;
        }
        Ok(p)
    }
}

impl Drop for Plist {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe {
            h5p::H5Pclose(self.id);
        }
    }
}
// ---------------------------------------------------------------------------------------
// Fill-value and allocation vocabulary (HDF5 User's Guide, "Fill Values"; the C enums
// `H5D_fill_value_t`, `H5D_fill_time_t`, `H5D_alloc_time_t`)
// ---------------------------------------------------------------------------------------

/// The fill properties of a dataset-creation list that a caller wants set. `None` means
/// "leave the library default": [`Plist::set_fill`] makes no call for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FillProperties {
    /// `H5Pset_fill_value`.
    pub value: Option<FillValue>,
    /// `H5Pset_fill_time`.
    pub time: Option<FillTime>,
    /// `H5Pset_alloc_time`.
    pub alloc: Option<AllocTime>,
}

/// A dataset's fill value (`H5Pset_fill_value`; elements are bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillValue {
    /// A user-defined fill value: this byte (`H5Pset_fill_value` with the value).
    Byte(u8),
    /// No fill value at all (`H5Pset_fill_value` with NULL).
    Undefined,
}

/// When HDF5 writes fill values (`H5D_fill_time_t`, `H5Pset_fill_time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillTime {
    /// `H5D_FILL_TIME_NEVER`: never.
    Never,
    /// `H5D_FILL_TIME_IFSET`: when storage is allocated, if a fill value is set (the
    /// library default).
    IfSet,
    /// `H5D_FILL_TIME_ALLOC`: always when storage is allocated.
    Alloc,
}

/// When HDF5 allocates the raw-data storage (`H5D_alloc_time_t`, `H5Pset_alloc_time`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocTime {
    /// `H5D_ALLOC_TIME_DEFAULT`: the layout's default (contiguous late, chunked
    /// incremental, compact early).
    Default,
    /// `H5D_ALLOC_TIME_EARLY`: at dataset creation.
    Early,
    /// `H5D_ALLOC_TIME_INCR`: chunk by chunk, as chunks are first written.
    Incr,
    /// `H5D_ALLOC_TIME_LATE`: all of it at the first write.
    Late,
}

/// Which kind of fill value a dataset has (`H5D_fill_value_t`, `H5Pfill_value_defined`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FillKind {
    /// The library default: all zero bytes, not user-defined.
    LibraryDefault,
    /// Set with `H5Pset_fill_value`.
    UserDefined,
    /// Made undefined with `H5Pset_fill_value(…, NULL)`.
    Undefined,
}

impl FillTime {
    /// All fill times in the document's row order.
    pub const ALL: [FillTime; 3] = [FillTime::Never, FillTime::IfSet, FillTime::Alloc];

    /// The command-line word: `never`, `ifset`, `alloc`.
    pub fn name(self) -> &'static str {
        match self {
            FillTime::Never => "never",
            FillTime::IfSet => "ifset",
            FillTime::Alloc => "alloc",
        }
    }

    /// Parse a command-line word (any case); `None` if unknown.
    pub fn parse(word: &str) -> Option<FillTime> {
        FillTime::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(word))
    }

    /// The document's row label: `Never`, `If Set`, `Allocation`.
    pub fn label(self) -> &'static str {
        match self {
            FillTime::Never => "Never",
            FillTime::IfSet => "If Set",
            FillTime::Alloc => "Allocation",
        }
    }
}

impl AllocTime {
    /// The allocation times of the document's serial table, in row order.
    pub const TABLE: [AllocTime; 3] = [AllocTime::Early, AllocTime::Incr, AllocTime::Late];

    /// The command-line word: `default`, `early`, `incr`, `late`.
    pub fn name(self) -> &'static str {
        match self {
            AllocTime::Default => "default",
            AllocTime::Early => "early",
            AllocTime::Incr => "incr",
            AllocTime::Late => "late",
        }
    }

    /// Parse a command-line word (any case; `incremental` is `incr`); `None` if unknown.
    pub fn parse(word: &str) -> Option<AllocTime> {
        if word.eq_ignore_ascii_case("incremental") {
            return Some(AllocTime::Incr);
        }
        [
            AllocTime::Default,
            AllocTime::Early,
            AllocTime::Incr,
            AllocTime::Late,
        ]
        .into_iter()
        .find(|a| a.name().eq_ignore_ascii_case(word))
    }

    /// The document's row label: `Default`, `Early`, `Incremental`, `Late`.
    pub fn label(self) -> &'static str {
        match self {
            AllocTime::Default => "Default",
            AllocTime::Early => "Early",
            AllocTime::Incr => "Incremental",
            AllocTime::Late => "Late",
        }
    }
}

impl FillKind {
    /// All kinds in the document's row order.
    pub const ALL: [FillKind; 3] = [
        FillKind::LibraryDefault,
        FillKind::UserDefined,
        FillKind::Undefined,
    ];

    /// The document's row label: `Library Default`, `User-defined`, `Undefined`.
    pub fn label(self) -> &'static str {
        match self {
            FillKind::LibraryDefault => "Library Default",
            FillKind::UserDefined => "User-defined",
            FillKind::Undefined => "Undefined",
        }
    }
}
