//! Safe wrappers over the HDF5 calls h5perf uses: library start-up, property lists,
//! files with the MPI-IO driver, dataspaces with hyperslab selections, datasets.
//!
//! Every id is checked (`< 0` is an error) and every error becomes [`Error::Hdf5`]
//! carrying the call name and the HDF5 error stack walked into one line (the library's
//! own printing is switched off once in [`init`]). Ids are owned and closed on drop;
//! `close(self)` methods report the close error where it matters (collective closes).

use std::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::{Mutex, Once};

use hdf5_sys::h5::{haddr_t, herr_t, hsize_t, hssize_t, HADDR_UNDEF};
use hdf5_sys::h5d;
use hdf5_sys::h5e;
use hdf5_sys::h5f;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p;
use hdf5_sys::h5s;
use hdf5_sys::h5t;

use super::mpi::{Comm, Info};
use crate::error::{Error, Result};

static INIT: Once = Once::new();

/// Start the HDF5 library (`H5open`), once per process. Must run before any global id
/// (`H5P_CLS_*`, `H5T_NATIVE_*`) is read. Errors are read from the error stack by the
/// wrappers; hold a [`Quiet`] while calling HDF5 so that the library prints nothing.
pub fn init() {
    INIT.call_once(|| {
        // SAFETY: H5dont_atexit before the first HDF5 call keeps HDF5 from registering its
        // atexit clean-up (which crashes on a file whose close failed; parallel HDF5 still
        // terminates inside MPI_Finalize through its MPI_COMM_SELF attribute). When the
        // caller of libh5perf initialised HDF5 first it has no effect. H5open has no
        // preconditions.
        unsafe {
            h5::H5dont_atexit();
            h5::H5open();
        }
    });
}

/// HDF5's automatic error printing switched off (`H5Eset_auto2(H5E_DEFAULT, NULL,
/// NULL)`) for the life of the value; the previous handler and its client data (from
/// `H5Eget_auto2`) are put back on drop, so a C program linking libh5perf keeps its
/// own setting.
pub struct Quiet {
    func: h5e::H5E_auto2_t,
    data: *mut c_void,
    saved: bool,
}

impl Quiet {
    /// Initialises HDF5 ([`init`]) and switches error printing off.
    pub fn new() -> Quiet {
        init();
        let mut func: h5e::H5E_auto2_t = None;
        let mut data: *mut c_void = std::ptr::null_mut();
        // SAFETY: two out-pointers to live locals; H5E_DEFAULT is the default stack.
        let saved = unsafe { h5e::H5Eget_auto2(h5e::H5E_DEFAULT, &mut func, &mut data) } >= 0;
        // SAFETY: a NULL handler disables printing.
        unsafe {
            h5e::H5Eset_auto2(h5e::H5E_DEFAULT, None, std::ptr::null_mut());
        }
        Quiet { func, data, saved }
    }
}

impl Default for Quiet {
    fn default() -> Self {
        Quiet::new()
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        if self.saved {
            // SAFETY: the handler and client data H5Eget_auto2 returned.
            unsafe {
                h5e::H5Eset_auto2(h5e::H5E_DEFAULT, self.func, self.data);
            }
        }
    }
}

use hdf5_sys::h5;

/// The HDF5 library version this process runs with (`H5get_libversion`), e.g. `1.10.8`.
pub fn library_version() -> String {
    init();
    let (mut a, mut b, mut c): (c_uint, c_uint, c_uint) = (0, 0, 0);
    // SAFETY: three out-pointers to live integers.
    unsafe {
        h5::H5get_libversion(&mut a, &mut b, &mut c);
    }
    format!("{a}.{b}.{c}")
}

extern "C" fn walk_cb(n: c_uint, err: *const h5e::H5E_error2_t, data: *mut c_void) -> herr_t {
    let res = std::panic::catch_unwind(|| {
        // SAFETY: HDF5 passes a valid frame and our Vec<String> as client data.
        let (err, out) = unsafe { (&*err, &mut *(data as *mut Vec<String>)) };
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: HDF5 strings are NUL-terminated.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        let func = text(err.func_name);
        // one line per message: HDF5 descriptions may embed newlines
        let desc = text(err.desc)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let _ = n;
        out.push(if func.is_empty() {
            desc
        } else {
            format!("{func}(): {desc}")
        });
    });
    if res.is_ok() {
        0
    } else {
        -1
    }
}

/// Walk the current HDF5 error stack into "outer(): desc: inner(): desc" and clear it.
fn error_stack_text() -> String {
    let mut frames: Vec<String> = Vec::new();
    // SAFETY: walk_cb matches H5E_walk2_t and receives a pointer to `frames`.
    unsafe {
        h5e::H5Ewalk2(
            h5e::H5E_DEFAULT,
            h5e::H5E_direction_t::H5E_WALK_DOWNWARD,
            Some(walk_cb),
            &mut frames as *mut Vec<String> as *mut c_void,
        );
        h5e::H5Eclear2(h5e::H5E_DEFAULT);
    }
    if frames.is_empty() {
        "no detail on the HDF5 error stack".into()
    } else {
        frames.join(": ")
    }
}

fn err(call: &'static str) -> Error {
    Error::Hdf5 {
        call,
        msg: error_stack_text(),
    }
}

fn check_id(call: &'static str, id: hid_t) -> Result<hid_t> {
    if id < 0 {
        Err(err(call))
    } else {
        Ok(id)
    }
}

fn check(call: &'static str, rc: herr_t) -> Result<()> {
    if rc < 0 {
        Err(err(call))
    } else {
        Ok(())
    }
}

/// A property list (file access, dataset creation or dataset transfer), closed on drop.
pub struct Plist {
    id: hid_t,
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
                h5p::H5Pset_chunk(p.id, d.len() as i32, d.as_ptr())
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
    pub fn file_access_core() -> Result<Plist> {
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
    /// Errors: HDF5 refuses a property ([`Error::Hdf5`]).
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
    /// always what HDF5 applies: see [`crate::fill`]).
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

/// An open HDF5 file. Close with [`H5File::close`] to see the (collective) close error.
pub struct H5File {
    id: hid_t,
}

impl H5File {
    /// `H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)`.
    pub fn create(p: &CStr, fapl: &Plist) -> Result<H5File> {
        // SAFETY: NUL-terminated name, valid fapl.
        let id = check_id("H5Fcreate", unsafe {
            h5f::H5Fcreate(p.as_ptr(), h5f::H5F_ACC_TRUNC, h5p::H5P_DEFAULT, fapl.id)
        })?;
        Ok(H5File { id })
    }

    /// `H5Fopen(path, H5F_ACC_RDWR, fapl)`.
    pub fn open_rdwr(p: &CStr, fapl: &Plist) -> Result<H5File> {
        // SAFETY: as create.
        let id = check_id("H5Fopen", unsafe {
            h5f::H5Fopen(p.as_ptr(), h5f::H5F_ACC_RDWR, fapl.id)
        })?;
        Ok(H5File { id })
    }

    /// `H5Fopen(path, H5F_ACC_RDONLY, fapl)`.
    pub fn open_read(p: &CStr, fapl: &Plist) -> Result<H5File> {
        // SAFETY: as create.
        let id = check_id("H5Fopen", unsafe {
            h5f::H5Fopen(p.as_ptr(), h5f::H5F_ACC_RDONLY, fapl.id)
        })?;
        Ok(H5File { id })
    }

    /// `H5Fclose`, reporting its error.
    pub fn close(self) -> Result<()> {
        // SAFETY: we own the id.
        let rc = unsafe { h5f::H5Fclose(self.id) };
        std::mem::forget(self);
        check("H5Fclose", rc)
    }
}

impl Drop for H5File {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe {
            h5f::H5Fclose(self.id);
        }
    }
}

/// A simple dataspace, closed on drop.
pub struct Dataspace {
    id: hid_t,
    /// Number of elements (bytes, for our byte datasets) in the extent.
    len: u64,
}

impl Dataspace {
    /// `H5Screate_simple(dims, NULL)` (element counts per dimension).
    pub fn simple(dims: &[u64]) -> Result<Dataspace> {
        init();
        // SAFETY: dims holds rank entries; NULL maxdims = dims.
        let id = check_id("H5Screate_simple", unsafe {
            h5s::H5Screate_simple(dims.len() as i32, dims.as_ptr(), std::ptr::null())
        })?;
        Ok(Dataspace {
            id,
            len: dims.iter().product(),
        })
    }

    /// `H5Sselect_hyperslab(H5S_SELECT_SET, start, stride, count, block)`.
    pub fn select_hyperslab(
        &self,
        start: &[u64],
        stride: &[u64],
        count: &[u64],
        block: &[u64],
    ) -> Result<()> {
        let n = start.len();
        assert!(stride.len() == n && count.len() == n && block.len() == n);
        // SAFETY: four arrays of the dataspace's rank.
        check("H5Sselect_hyperslab", unsafe {
            h5s::H5Sselect_hyperslab(
                self.id,
                h5s::H5S_seloper_t::H5S_SELECT_SET,
                start.as_ptr(),
                stride.as_ptr(),
                count.as_ptr(),
                block.as_ptr(),
            )
        })
    }

    /// `H5Sselect_none`: select nothing (a rank that takes part in a collective call
    /// without moving data).
    pub fn select_none(&self) -> Result<()> {
        // SAFETY: valid dataspace id.
        check("H5Sselect_none", unsafe { h5s::H5Sselect_none(self.id) })
    }

    /// `H5Soffset_simple(offset)`: move the selection by `offset` elements per dimension.
    pub fn offset_simple(&self, offset: &[hssize_t]) -> Result<()> {
        // SAFETY: offset holds one entry per dimension (HDF5 reads rank entries).
        check("H5Soffset_simple", unsafe {
            h5s::H5Soffset_simple(self.id, offset.as_ptr())
        })
    }
}

impl Drop for Dataspace {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe {
            h5s::H5Sclose(self.id);
        }
    }
}

/// An open dataset of unsigned bytes, closed on drop.
pub struct Dataset {
    id: hid_t,
}

impl Dataset {
    /// `H5Dcreate2(file, name, H5T_NATIVE_UCHAR, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)`.
    pub fn create(file: &H5File, n: &CStr, space: &Dataspace, dcpl: &Plist) -> Result<Dataset> {
        // SAFETY: valid ids and a NUL-terminated name.
        let id = check_id("H5Dcreate2", unsafe {
            h5d::H5Dcreate2(
                file.id,
                n.as_ptr(),
                *h5t::H5T_NATIVE_UCHAR,
                space.id,
                h5p::H5P_DEFAULT,
                dcpl.id,
                h5p::H5P_DEFAULT,
            )
        })?;
        Ok(Dataset { id })
    }

    /// `H5Dopen2(file, name, H5P_DEFAULT)`.
    pub fn open(file: &H5File, n: &CStr) -> Result<Dataset> {
        // SAFETY: valid file id and a NUL-terminated name.
        let id = check_id("H5Dopen2", unsafe {
            h5d::H5Dopen2(file.id, n.as_ptr(), h5p::H5P_DEFAULT)
        })?;
        Ok(Dataset { id })
    }

    /// `H5Dwrite` of bytes from `buf` through memory space `mem` to the selection of
    /// `file_space`. Errors: `buf` shorter than the extent of `mem`, or HDF5's error.
    pub fn write(
        &self,
        mem: &Dataspace,
        file_space: &Dataspace,
        dxpl: &Plist,
        buf: &[u8],
    ) -> Result<()> {
        if (buf.len() as u64) < mem.len {
            return Err(Error::Other(
                "H5Dwrite: buffer smaller than the memory dataspace".into(),
            ));
        }
        // SAFETY: buf covers the memory dataspace (checked above); ids are valid.
        check("H5Dwrite", unsafe {
            h5d::H5Dwrite(
                self.id,
                *h5t::H5T_NATIVE_UCHAR,
                mem.id,
                file_space.id,
                dxpl.id,
                buf.as_ptr() as *const c_void,
            )
        })
    }

    /// `H5Dread` into `buf`; same contract as [`Dataset::write`].
    pub fn read(
        &self,
        mem: &Dataspace,
        file_space: &Dataspace,
        dxpl: &Plist,
        buf: &mut [u8],
    ) -> Result<()> {
        if (buf.len() as u64) < mem.len {
            return Err(Error::Other(
                "H5Dread: buffer smaller than the memory dataspace".into(),
            ));
        }
        // SAFETY: as write, buffer writable.
        check("H5Dread", unsafe {
            h5d::H5Dread(
                self.id,
                *h5t::H5T_NATIVE_UCHAR,
                mem.id,
                file_space.id,
                dxpl.id,
                buf.as_mut_ptr() as *mut c_void,
            )
        })
    }

    /// `H5Dread` of the whole dataset (`H5S_ALL`, default transfer list) into `buf`.
    /// Errors: `buf` shorter than `len` bytes (the dataset's element count), or HDF5's
    /// error.
    pub fn read_all(&self, len: u64, buf: &mut [u8]) -> Result<()> {
        if (buf.len() as u64) < len {
            return Err(Error::Other(
                "H5Dread: buffer smaller than the dataset".into(),
            ));
        }
        // SAFETY: buf holds the whole dataset of bytes (checked against the caller's
        // element count `len`); ids are valid.
        check("H5Dread", unsafe {
            h5d::H5Dread(
                self.id,
                *h5t::H5T_NATIVE_UCHAR,
                h5s::H5S_ALL,
                h5s::H5S_ALL,
                h5p::H5P_DEFAULT,
                buf.as_mut_ptr() as *mut c_void,
            )
        })
    }

    /// `H5Dflush`: write the dataset's cached raw data and metadata to the file
    /// (collective with the MPI-IO driver).
    pub fn flush(&self) -> Result<()> {
        // SAFETY: valid dataset id.
        check("H5Dflush", unsafe { h5d::H5Dflush(self.id) })
    }

    /// `H5Dget_storage_size`: bytes of file space allocated for the raw data (0 when
    /// nothing is allocated yet).
    pub fn storage_size(&self) -> u64 {
        // SAFETY: valid dataset id.
        unsafe { h5d::H5Dget_storage_size(self.id) }
    }

    /// `H5Dget_offset`: file address (bytes) of a contiguous dataset's raw data, `None`
    /// when not allocated (or for other layouts).
    pub fn offset(&self) -> Option<u64> {
        // SAFETY: valid dataset id.
        let a: haddr_t = unsafe { h5d::H5Dget_offset(self.id) };
        (a != HADDR_UNDEF).then_some(a)
    }

    /// The allocated chunks of a chunked dataset: for each, its logical offset (elements
    /// per dimension), file address and size in bytes (`H5Dget_num_chunks`,
    /// `H5Dget_chunk_info`).
    pub fn chunks(&self) -> Result<Vec<ChunkInfo>> {
        // SAFETY: valid dataset id.
        let space = check_id("H5Dget_space", unsafe { h5d::H5Dget_space(self.id) })?;
        let space = Dataspace { id: space, len: 0 };
        // SAFETY: valid dataspace id.
        let rank = unsafe { h5s::H5Sget_simple_extent_ndims(space.id) };
        let rank = usize::try_from(rank).map_err(|_| err("H5Sget_simple_extent_ndims"))?;
        let mut n: hsize_t = 0;
        // SAFETY: valid ids and an out-pointer to a live integer.
        check("H5Dget_num_chunks", unsafe {
            h5d::H5Dget_num_chunks(self.id, space.id, &mut n)
        })?;
        let mut out = Vec::new();
        for i in 0..n {
            let mut offset: Vec<hsize_t> = vec![0; rank];
            let (mut mask, mut addr, mut size): (c_uint, haddr_t, hsize_t) = (0, 0, 0);
            // SAFETY: `offset` holds one entry per dimension of the dataspace; the other
            // out-pointers point to live integers.
            check("H5Dget_chunk_info", unsafe {
                h5d::H5Dget_chunk_info(
                    self.id,
                    space.id,
                    i,
                    offset.as_mut_ptr(),
                    &mut mask,
                    &mut addr,
                    &mut size,
                )
            })?;
            out.push(ChunkInfo { offset, addr, size });
        }
        Ok(out)
    }

    /// `H5Dget_create_plist`: the dataset's creation property list as HDF5 stored it.
    pub fn create_plist(&self) -> Result<Plist> {
        // SAFETY: valid dataset id.
        let id = check_id("H5Dget_create_plist", unsafe {
            h5d::H5Dget_create_plist(self.id)
        })?;
        Ok(Plist { id })
    }

    /// `H5Dclose`, reporting its error.
    pub fn close(self) -> Result<()> {
        // SAFETY: we own the id.
        let rc = unsafe { h5d::H5Dclose(self.id) };
        std::mem::forget(self);
        check("H5Dclose", rc)
    }
}

impl Drop for Dataset {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe {
            h5d::H5Dclose(self.id);
        }
    }
}

/// One allocated chunk of a chunked dataset ([`Dataset::chunks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Logical position of the chunk's first element, in elements per dimension.
    pub offset: Vec<u64>,
    /// File address of the chunk, in bytes from the start of the file.
    pub addr: u64,
    /// Stored size of the chunk in bytes.
    pub size: u64,
}

/// Serialises [`probe_dataset_create`]: HDF5 1.10 is not thread-safe, and the probe can
/// be reached from several threads at once (unit tests of the option checks).
static PROBE_LOCK: Mutex<()> = Mutex::new(());

/// Ask HDF5 whether it creates a byte dataset of extent `dims` (chunked by `chunk` if
/// given) with the fill settings `fill`, without touching the disk: the creation list is
/// built, an in-memory file is created ([`Plist::file_access_core`], no backing store) on
/// this process alone, `H5Dcreate2` is tried, then everything is closed again. Used
/// before any I/O to refuse settings HDF5 would refuse in the run. No MPI call; the
/// HDF5 calls hold a process-wide lock.
///
/// Errors: HDF5's refusal as [`Error::Hdf5`] (call and error stack), or a failure to
/// set up the creation list or the in-memory file.
pub fn probe_dataset_create(
    dims: &[u64],
    chunk: Option<&[u64]>,
    fill: &FillProperties,
) -> Result<()> {
    let _guard = PROBE_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let _quiet = Quiet::new();
    let dcpl = Plist::dataset_create(chunk)?;
    dcpl.set_fill(fill)?;
    let fapl = Plist::file_access_core()?;
    let file = H5File::create(c"h5perf-probe-in-memory", &fapl)?;
    let space = Dataspace::simple(dims)?;
    let ds = Dataset::create(&file, c"probe", &space, &dcpl)?;
    ds.close()?;
    file.close()
}

/// The innermost frame's description of an HDF5 error stack as [`Error::Hdf5`] carries
/// it (`outer(): desc: inner(): desc` → `desc` of `inner`).
pub fn innermost(msg: &str) -> &str {
    msg.rsplit("(): ").next().unwrap_or(msg).trim()
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

