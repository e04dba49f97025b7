//! Safe wrappers over the HDF5 calls h5perf uses: library start-up, property lists,
//! files with the MPI-IO driver, dataspaces with hyperslab selections, datasets.
//!
//! Every id is checked (`< 0` is an error) and every error becomes [`Error::Hdf5`]
//! carrying the call name and the HDF5 error stack walked into one line (the library's
//! own printing is switched off once in [`init`]). Ids are owned and closed on drop;
//! `close(self)` methods report the close error where it matters (collective closes).

use std::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::Once;

use hdf5_sys::h5::{herr_t, hsize_t, hssize_t};
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

/// Start the HDF5 library (`H5open`) and switch off its automatic error printing, once
/// per process. Must run before any global id (`H5P_CLS_*`, `H5T_NATIVE_*`) is read.
pub fn init() {
    INIT.call_once(|| {
        // SAFETY: H5dont_atexit before the first HDF5 call keeps HDF5 from registering its
        // atexit clean-up (which crashes on a file whose close failed; HDF5 still
        // terminates cleanly inside MPI_Finalize); H5open has no preconditions;
        // H5Eset_auto2 with NULL disables printing.
        unsafe {
            h5::H5dont_atexit();
            h5::H5open();
            h5e::H5Eset_auto2(h5e::H5E_DEFAULT, None, std::ptr::null_mut());
        }
    });
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
