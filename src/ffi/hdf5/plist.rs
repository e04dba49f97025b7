//! Property lists and the fill-value and allocation vocabulary.

use std::ffi::c_void;

use hdf5_sys::h5d::{self, H5D_alloc_time_t, H5D_fill_time_t, H5D_fill_value_t};
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p;
use hdf5_sys::h5t;

use super::library::{check, check_id, err, init, rank};
use crate::error::Result;
use crate::ffi::mpi::{Comm, Info};

/// HDF5's name of a file-format bound (`H5F_libver_t`, H5Fpublic.h): 0 `earliest`, 1 `v18`,
/// 2 `v110`, 3 `v112`, 4 `v114`, 5 `v200` (`H5F_LIBVER_LATEST` is the newest of these in
/// each release, so it reads back as its version); `unknown` otherwise.
pub fn libver_name(v: std::ffi::c_int) -> &'static str {
    match v {
        0 => "earliest",
        1 => "v18",
        2 => "v110",
        3 => "v112",
        4 => "v114",
        5 => "v200",
        _ => "unknown",
    }
}

/// A property list (file access, dataset creation or dataset transfer), closed on drop.
pub struct Plist {
    pub(super) id: hid_t,
}

impl Plist {
    fn create(class: fn() -> hid_t) -> Result<Plist> {
        init();
        // SAFETY: class is a valid property-list class id after init().
        let id = checked!(check_id, unsafe { h5p::H5Pcreate(class()) })?;
        Ok(Plist { id })
    }

    /// A file-access list: MPI-IO driver on `comm`/`info`, `H5Pset_alignment` (spec §9).
    pub fn file_access_mpio(
        comm: &Comm,
        info: &Info,
        threshold: u64,
        alignment: u64,
    ) -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id, communicator and info handles (HDF5 duplicates them).
        checked!(unsafe { h5p::H5Pset_fapl_mpio(p.id, comm.as_raw(), info.as_raw()) })?;
        // SAFETY: valid fapl id.
        checked!(unsafe { h5p::H5Pset_alignment(p.id, threshold, alignment) })?;
        Ok(p)
    }

    /// `H5Pset_all_coll_metadata_ops(true)` and `H5Pset_coll_metadata_write(true)` on a
    /// file-access list: every rank reads the file's metadata collectively (one reads,
    /// the others receive it) and writes it collectively (HDF5 1.10.0 and later,
    /// "Collective Metadata I/O" in the HDF5 reference manual). Errors: HDF5's.
    pub fn set_coll_metadata(&self) -> Result<()> {
        let on = hdf5_sys::h5::hbool_t::from(true);
        // SAFETY: valid fapl id.
        checked!(unsafe { h5p::H5Pset_all_coll_metadata_ops(self.id, on) })?;
        // SAFETY: valid fapl id.
        checked!(unsafe { h5p::H5Pset_coll_metadata_write(self.id, on) })
    }

    /// (`H5Pget_all_coll_metadata_ops`, `H5Pget_coll_metadata_write`) of a file-access
    /// list, e.g. the one an open file reports ([`super::H5File::access_list`]).
    /// Errors: HDF5's.
    pub fn coll_metadata(&self) -> Result<(bool, bool)> {
        let (mut ops, mut write) = (
            hdf5_sys::h5::hbool_t::from(false),
            hdf5_sys::h5::hbool_t::from(false),
        );
        // SAFETY: valid fapl id and an out-pointer to a live hbool_t.
        checked!(unsafe { h5p::H5Pget_all_coll_metadata_ops(self.id, &mut ops) })?;
        // SAFETY: as above.
        checked!(unsafe { h5p::H5Pget_coll_metadata_write(self.id, &mut write) })?;
        Ok((ops != 0, write != 0))
    }

    /// A dataset-access list with `H5Pset_chunk_cache(slots, bytes, w0)`; `None` for
    /// `slots` or `w0` keeps the file's (`H5D_CHUNK_CACHE_NSLOTS_DEFAULT`,
    /// `H5D_CHUNK_CACHE_W0_DEFAULT`). Errors: HDF5's (e.g. `w0` outside 0-1).
    pub fn dataset_access_chunk_cache(
        bytes: usize,
        slots: Option<usize>,
        w0: Option<f64>,
    ) -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_DATASET_ACCESS)?;
        let slots = slots.unwrap_or(h5d::H5D_CHUNK_CACHE_NSLOTS_DEFAULT);
        let w0 = w0.unwrap_or(f64::from(h5d::H5D_CHUNK_CACHE_W0_DEFAULT));
        // SAFETY: valid dapl id.
        checked!(unsafe { h5p::H5Pset_chunk_cache(p.id, slots, bytes, w0) })?;
        Ok(p)
    }

    /// `H5Pget_chunk_cache` of a dataset-access list: (bytes, slots, w0), e.g. of the
    /// list an open dataset reports ([`super::Dataset::access_list`], which holds the
    /// values in use). Errors: HDF5's.
    pub fn chunk_cache(&self) -> Result<(usize, usize, f64)> {
        let (mut slots, mut bytes, mut w0) = (0usize, 0usize, 0f64);
        // SAFETY: valid dapl id and three out-pointers to live values.
        checked!(unsafe { h5p::H5Pget_chunk_cache(self.id, &mut slots, &mut bytes, &mut w0) })?;
        Ok((bytes, slots, w0))
    }

    /// The file-format bounds (`H5Pget_libver_bounds`) of a new file-access list, i.e. the
    /// library's defaults, which h5perf does not change: (low, high) as HDF5's names of
    /// [`libver_name`]. HDF5 1.8-1.14 default to (`earliest`, `latest`); 2.0 raised the
    /// low bound to `v18` (HDF5 2.0.0 release notes). Errors: HDF5's.
    pub fn default_libver_bounds() -> Result<(&'static str, &'static str)> {
        let p = Self::create(|| *h5p::H5P_CLS_FILE_ACCESS)?;
        let (mut low, mut high): (std::ffi::c_int, std::ffi::c_int) = (-1, -1);
        // SAFETY: valid fapl id; H5F_libver_t is a C enum, an int: two out-pointers to live
        // ints (read as ints, so a value the bindings do not name is no undefined behaviour).
        checked!(unsafe {
            h5p::H5Pget_libver_bounds(
                p.id,
                (&raw mut low).cast::<hdf5_sys::h5f::H5F_libver_t>(),
                (&raw mut high).cast::<hdf5_sys::h5f::H5F_libver_t>(),
            )
        })?;
        Ok((libver_name(low), libver_name(high)))
    }

    /// A dataset-creation list; with `chunk` = Some(dims), `H5Pset_chunk(dims)`.
    pub fn dataset_create(chunk: Option<&[u64]>) -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_DATASET_CREATE)?;
        if let Some(dims) = chunk {
            // SAFETY: valid dcpl id; dims holds `rank` dims.
            checked!(unsafe { h5p::H5Pset_chunk(p.id, rank(dims)?, dims.as_ptr()) })?;
        }
        Ok(p)
    }

    /// A file-access list: `sec2` driver, sieve buffer of `sieve_bytes` bytes (0: off).
    pub fn file_access_sec2(sieve_bytes: usize) -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id.
        checked!(unsafe { h5p::H5Pset_fapl_sec2(p.id) })?;
        // SAFETY: valid fapl id.
        checked!(unsafe { h5p::H5Pset_sieve_buf_size(p.id, sieve_bytes) })?;
        Ok(p)
    }

    /// A file-access list: in-memory `core` driver, no backing store.
    pub(super) fn file_access_core() -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_FILE_ACCESS)?;
        // SAFETY: valid fapl id; 4096-byte allocation increment, no backing store.
        checked!(unsafe { h5p::H5Pset_fapl_core(p.id, 4096, 0) })?;
        Ok(p)
    }

    /// `H5Pset_deflate(level)` on a dataset-creation list: the deflate (zlib) filter at
    /// `level` 0-9. Errors: HDF5's.
    pub fn set_deflate(&self, level: u32) -> Result<()> {
        // SAFETY: valid dcpl id.
        checked!(unsafe { h5p::H5Pset_deflate(self.id, level) })
    }

    /// `H5Pset_layout(H5D_COMPACT)`: raw data in the object header (at most 64 KiB).
    pub fn set_compact(&self) -> Result<()> {
        // SAFETY: valid dcpl id.
        checked!(unsafe { h5p::H5Pset_layout(self.id, h5d::H5D_layout_t::H5D_COMPACT) })
    }

    /// Set given fill properties (spec §9 ext.) after [`Plist::dataset_create`]. Errors: HDF5's.
    pub fn set_fill(&self, fill: &FillProperties) -> Result<()> {
        if let Some(v) = fill.value {
            let byte = match v {
                FillValue::Byte(b) => Some(b),
                FillValue::Undefined => None,
            };
            let value = byte
                .as_ref()
                .map_or(std::ptr::null(), |b| std::ptr::from_ref(b).cast::<c_void>());
            // SAFETY: valid dcpl id; one native uchar byte, or NULL (undefined fill value).
            checked!(unsafe { h5p::H5Pset_fill_value(self.id, *h5t::H5T_NATIVE_UCHAR, value) })?;
        }
        if let Some(t) = fill.time {
            // SAFETY: valid dcpl id.
            checked!(unsafe { h5p::H5Pset_fill_time(self.id, t.to_raw()) })?;
        }
        if let Some(a) = fill.alloc {
            // SAFETY: valid dcpl id.
            checked!(unsafe { h5p::H5Pset_alloc_time(self.id, a.to_raw()) })?;
        }
        Ok(())
    }

    /// `H5Pfill_value_defined`: default, user-defined or undefined.
    pub fn fill_kind(&self) -> Result<FillKind> {
        let mut st = H5D_fill_value_t::H5D_FILL_VALUE_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum HDF5 sets to a valid value.
        checked!(unsafe { h5p::H5Pfill_value_defined(self.id, &mut st) })?;
        FillKind::from_raw(st).ok_or_else(|| err("H5Pfill_value_defined"))
    }

    /// `H5Pget_fill_time` of a dataset-creation list.
    pub fn fill_time(&self) -> Result<FillTime> {
        let mut t = H5D_fill_time_t::H5D_FILL_TIME_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum.
        checked!(unsafe { h5p::H5Pget_fill_time(self.id, &mut t) })?;
        FillTime::from_raw(t).ok_or_else(|| err("H5Pget_fill_time"))
    }

    /// `H5Pget_alloc_time` of a dataset-creation list (not always what HDF5 applies).
    pub fn alloc_time(&self) -> Result<AllocTime> {
        let mut a = H5D_alloc_time_t::H5D_ALLOC_TIME_ERROR;
        // SAFETY: valid dcpl id and an out-pointer to a live enum.
        checked!(unsafe { h5p::H5Pget_alloc_time(self.id, &mut a) })?;
        AllocTime::from_raw(a).ok_or_else(|| err("H5Pget_alloc_time"))
    }

    /// A dataset-transfer list; collective (`H5FD_MPIO_COLLECTIVE`) or left independent.
    pub fn dataset_xfer(collective: bool) -> Result<Plist> {
        let p = Self::create(|| *h5p::H5P_CLS_DATASET_XFER)?;
        if collective {
            // SAFETY: valid dxpl id.
            checked!(unsafe {
                h5p::H5Pset_dxpl_mpio(p.id, h5p::H5FD_mpio_xfer_t::H5FD_MPIO_COLLECTIVE)
            })?;
        }
        Ok(p)
    }
}

impl Drop for Plist {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe { h5p::H5Pclose(self.id) };
    }
}

// Fill-value and allocation vocabulary (HDF5 User's Guide, "Fill Values").

/// The fill properties to set; `None` leaves the library default.
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

/// An enum with one variant per value of `$raw` but `$error`, with row labels.
macro_rules! vocabulary {
    ($(#[$m:meta])* $name:ident: $raw:ident, $error:ident {
        $($(#[$vm:meta])* $v:ident = $c:ident, $label:literal;)*
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vm])* $v,)*
        }

        impl $name {
            /// Every value, in the document's row order.
            pub const ALL: [$name; [$(stringify!($v)),*].len()] = [$($name::$v),*];

            /// The document's row label.
            pub fn label(self) -> &'static str {
                match self {
                    $($name::$v => $label,)*
                }
            }

            #[allow(dead_code)] // FillKind is only read
            fn to_raw(self) -> $raw {
                match self {
                    $($name::$v => $raw::$c,)*
                }
            }

            fn from_raw(r: $raw) -> Option<$name> {
                match r {
                    $($raw::$c => Some($name::$v),)*
                    $raw::$error => None,
                }
            }
        }
    };
}

vocabulary! {
    /// When HDF5 writes fill values (`H5D_fill_time_t`, `H5Pset_fill_time`).
    FillTime: H5D_fill_time_t, H5D_FILL_TIME_ERROR {
        /// `H5D_FILL_TIME_NEVER`: never.
        Never = H5D_FILL_TIME_NEVER, "Never";
        /// `H5D_FILL_TIME_IFSET`: on allocation, if a fill value is set (the default).
        IfSet = H5D_FILL_TIME_IFSET, "If Set";
        /// `H5D_FILL_TIME_ALLOC`: always when storage is allocated.
        Alloc = H5D_FILL_TIME_ALLOC, "Allocation";
    }
}

vocabulary! {
    /// When HDF5 allocates the raw-data storage (`H5D_alloc_time_t`, `H5Pset_alloc_time`).
    AllocTime: H5D_alloc_time_t, H5D_ALLOC_TIME_ERROR {
        /// `H5D_ALLOC_TIME_DEFAULT`: the layout's default.
        Default = H5D_ALLOC_TIME_DEFAULT, "Default";
        /// `H5D_ALLOC_TIME_EARLY`: at dataset creation.
        Early = H5D_ALLOC_TIME_EARLY, "Early";
        /// `H5D_ALLOC_TIME_INCR`: chunk by chunk, as chunks are first written.
        Incr = H5D_ALLOC_TIME_INCR, "Incremental";
        /// `H5D_ALLOC_TIME_LATE`: all of it at the first write.
        Late = H5D_ALLOC_TIME_LATE, "Late";
    }
}

vocabulary! {
    /// Which kind of fill value a dataset has (`H5D_fill_value_t`, `H5Pfill_value_defined`).
    #[derive(PartialOrd, Ord)]
    FillKind: H5D_fill_value_t, H5D_FILL_VALUE_ERROR {
        /// The library default: all zero bytes, not user-defined.
        LibraryDefault = H5D_FILL_VALUE_DEFAULT, "Library Default";
        /// Set with `H5Pset_fill_value`.
        UserDefined = H5D_FILL_VALUE_USER_DEFINED, "User-defined";
        /// Made undefined with `H5Pset_fill_value(…, NULL)`.
        Undefined = H5D_FILL_VALUE_UNDEFINED, "Undefined";
    }
}

impl FillTime {
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
        AllocTime::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(word))
    }
}
