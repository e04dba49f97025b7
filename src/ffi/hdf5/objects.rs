//! HDF5 files, dataspaces, byte datasets, their chunks and the creation probe.

use std::ffi::{c_uint, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use hdf5_sys::h5::{haddr_t, hsize_t, hssize_t, HADDR_UNDEF};
use hdf5_sys::h5d;
use hdf5_sys::h5f;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p;
use hdf5_sys::h5s;
use hdf5_sys::h5t;

use super::library::{check, check_id, err, init, rank, Quiet};
use super::plist::{FillProperties, Plist};
use crate::error::{Error, Result};

/// An open HDF5 file. Close with [`H5File::close`] to see the (collective) close error.
pub struct H5File {
    id: hid_t,
}

impl H5File {
    /// `H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl)`: fails if the name exists.
    pub fn create(p: &CStr, fapl: &Plist) -> Result<H5File> {
        // SAFETY: NUL-terminated name, valid fapl.
        let id = checked!(check_id, unsafe {
            h5f::H5Fcreate(p.as_ptr(), h5f::H5F_ACC_EXCL, h5p::H5P_DEFAULT, fapl.id)
        })?;
        Ok(H5File { id })
    }

    /// `H5Fopen(path, H5F_ACC_RDWR, fapl)`.
    pub fn open_rdwr(p: &CStr, fapl: &Plist) -> Result<H5File> {
        Self::open(p, h5f::H5F_ACC_RDWR, fapl)
    }

    /// `H5Fopen(path, H5F_ACC_RDONLY, fapl)`.
    pub fn open_read(p: &CStr, fapl: &Plist) -> Result<H5File> {
        Self::open(p, h5f::H5F_ACC_RDONLY, fapl)
    }

    fn open(p: &CStr, flags: c_uint, fapl: &Plist) -> Result<H5File> {
        // SAFETY: NUL-terminated name, valid fapl.
        let id = checked!(check_id, unsafe {
            h5f::H5Fopen(p.as_ptr(), flags, fapl.id)
        })?;
        Ok(H5File { id })
    }

    /// The file's access list as HDF5 applies it (`H5Fget_access_plist`, a copy).
    /// Errors: HDF5's.
    pub fn access_list(&self) -> Result<Plist> {
        // SAFETY: valid file id.
        let id = checked!(check_id, unsafe { h5f::H5Fget_access_plist(self.id) })?;
        Ok(Plist { id })
    }

    /// `H5Fflush(file, H5F_SCOPE_LOCAL)`; collective with the MPI-IO driver.
    pub fn flush(&self) -> Result<()> {
        // SAFETY: valid file id.
        checked!(unsafe { h5f::H5Fflush(self.id, h5f::H5F_scope_t::H5F_SCOPE_LOCAL) })
    }

    /// The MPI-IO hints in effect for a file opened with the MPI-IO driver: the driver's
    /// `MPI_File` (`H5Fget_vfd_handle`, which for the MPI-IO driver hands out a pointer to
    /// its `MPI_File`), then `MPI_File_get_info` on it (local). Errors: HDF5's or MPI's.
    pub fn mpi_hints(&self) -> Result<Vec<(String, String)>> {
        let mut handle: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid file id, default fapl, out-pointer to a live pointer.
        checked!(unsafe { h5f::H5Fget_vfd_handle(self.id, h5p::H5P_DEFAULT, &mut handle) })?;
        if handle.is_null() {
            return Err(Error::Limit(
                "H5Fget_vfd_handle gave no MPI-IO file handle".into(),
            ));
        }
        // SAFETY: with the MPI-IO driver the handle points to the driver's live MPI_File.
        let fh = unsafe { *handle.cast::<mpi_sys::MPI_File>() };
        crate::ffi::mpi::file::hints_of_raw(fh)
    }

    /// `H5Fclose`, reporting its error.
    pub fn close(self) -> Result<()> {
        // SAFETY: we own the id.
        let rc = unsafe { h5f::H5Fclose(self.id) };
        std::mem::forget(self);
        note_close(rc);
        check("H5Fclose", rc)
    }
}

impl Drop for H5File {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        note_close(unsafe { h5f::H5Fclose(self.id) });
    }
}

static CLOSE_FAILED: AtomicBool = AtomicBool::new(false);

fn note_close(rc: hdf5_sys::h5::herr_t) {
    if rc < 0 {
        CLOSE_FAILED.store(true, Ordering::SeqCst);
    }
}

/// Whether an `H5Fclose` failed (HDF5 1.10.8 then crashes inside `MPI_Finalize`).
pub fn a_file_close_failed() -> bool {
    CLOSE_FAILED.load(Ordering::SeqCst)
}

/// A simple dataspace, closed on drop.
pub struct Dataspace {
    id: hid_t,
    len: u64,
}

impl Dataspace {
    /// `H5Screate_simple(dims, NULL)` (element counts per dimension).
    pub fn simple(dims: &[u64]) -> Result<Dataspace> {
        init();
        // SAFETY: dims holds rank entries; NULL maxdims = dims.
        let id = checked!(check_id, unsafe {
            h5s::H5Screate_simple(rank(dims)?, dims.as_ptr(), std::ptr::null())
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
        checked!(unsafe {
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

    /// `H5Sselect_none`: select nothing.
    pub fn select_none(&self) -> Result<()> {
        // SAFETY: valid dataspace id.
        checked!(unsafe { h5s::H5Sselect_none(self.id) })
    }

    /// `H5Soffset_simple(offset)`: move the selection by `offset` elements per dimension.
    #[inline]
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
        unsafe { h5s::H5Sclose(self.id) };
    }
}

/// An open dataset of unsigned bytes, closed on drop.
pub struct Dataset {
    id: hid_t,
}

impl Dataset {
    /// `H5Dcreate2(file, name, H5T_NATIVE_UCHAR, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)`.
    pub fn create(file: &H5File, n: &CStr, space: &Dataspace, dcpl: &Plist) -> Result<Dataset> {
        Self::create_with(file, n, space, dcpl, None)
    }

    /// [`Dataset::create`] with the dataset-access list `dapl` (`H5P_DEFAULT` for `None`).
    pub fn create_with(
        file: &H5File,
        n: &CStr,
        space: &Dataspace,
        dcpl: &Plist,
        dapl: Option<&Plist>,
    ) -> Result<Dataset> {
        let dapl = dapl.map_or(h5p::H5P_DEFAULT, |p| p.id);
        // SAFETY: valid ids and a NUL-terminated name.
        let id = checked!(check_id, unsafe {
            h5d::H5Dcreate2(
                file.id,
                n.as_ptr(),
                *h5t::H5T_NATIVE_UCHAR,
                space.id,
                h5p::H5P_DEFAULT,
                dcpl.id,
                dapl,
            )
        })?;
        Ok(Dataset { id })
    }

    /// `H5Dopen2(file, name, H5P_DEFAULT)`.
    pub fn open(file: &H5File, n: &CStr) -> Result<Dataset> {
        Self::open_with(file, n, None)
    }

    /// `H5Dopen2(file, name, dapl)`, `H5P_DEFAULT` for `None`.
    pub fn open_with(file: &H5File, n: &CStr, dapl: Option<&Plist>) -> Result<Dataset> {
        let dapl = dapl.map_or(h5p::H5P_DEFAULT, |p| p.id);
        // SAFETY: valid file and list ids and a NUL-terminated name.
        let id = checked!(check_id, unsafe {
            h5d::H5Dopen2(file.id, n.as_ptr(), dapl)
        })?;
        Ok(Dataset { id })
    }

    /// The dataset's access list with the values in use (`H5Dget_access_plist`, a copy;
    /// HDF5 fills in the file's chunk cache where the dataset's list had the defaults).
    /// Errors: HDF5's.
    pub fn access_list(&self) -> Result<Plist> {
        // SAFETY: valid dataset id.
        let id = checked!(check_id, unsafe { h5d::H5Dget_access_plist(self.id) })?;
        Ok(Plist { id })
    }

    /// Checked writes of `buf` to moving selections. Errors: `buf` smaller than `mem`.
    pub fn writes<'a>(
        &'a self,
        mem: &'a Dataspace,
        file_space: &'a Dataspace,
        dxpl: &'a Plist,
        buf: &'a [u8],
    ) -> Result<DatasetWrites<'a>> {
        fits(
            buf.len(),
            mem.len,
            "H5Dwrite: buffer smaller than the memory dataspace",
        )?;
        Ok(DatasetWrites {
            dset: self,
            mem,
            file_space,
            dxpl,
            buf,
        })
    }

    /// Reads of the moving selection into `buf`, as [`Dataset::writes`].
    pub fn reads<'a>(
        &'a self,
        mem: &'a Dataspace,
        file_space: &'a Dataspace,
        dxpl: &'a Plist,
        buf: &'a mut [u8],
    ) -> Result<DatasetReads<'a>> {
        fits(
            buf.len(),
            mem.len,
            "H5Dread: buffer smaller than the memory dataspace",
        )?;
        Ok(DatasetReads {
            dset: self,
            mem,
            file_space,
            dxpl,
            buf,
        })
    }

    /// `H5Dread` of the whole dataset into `buf`. Errors: `buf` under `len` bytes, HDF5's.
    pub fn read_all(&self, len: u64, buf: &mut [u8]) -> Result<()> {
        fits(buf.len(), len, "H5Dread: buffer smaller than the dataset")?;
        // SAFETY: buf holds `len` bytes (checked); ids are valid.
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

    /// `H5Dflush` (collective with the MPI-IO driver).
    pub fn flush(&self) -> Result<()> {
        // SAFETY: valid dataset id.
        checked!(unsafe { h5d::H5Dflush(self.id) })
    }

    /// `H5Dget_storage_size`: bytes allocated for the raw data.
    pub fn storage_size(&self) -> u64 {
        // SAFETY: valid dataset id.
        unsafe { h5d::H5Dget_storage_size(self.id) }
    }

    /// `H5Dget_offset`: file address (bytes) of contiguous raw data, `None` if unallocated.
    pub fn offset(&self) -> Option<u64> {
        // SAFETY: valid dataset id.
        let a: haddr_t = unsafe { h5d::H5Dget_offset(self.id) };
        (a != HADDR_UNDEF).then_some(a)
    }

    /// The allocated chunks: offset (elements), file address and size (bytes).
    pub fn chunks(&self) -> Result<Vec<ChunkInfo>> {
        let (space, rank) = self.space()?;
        let mut n: hsize_t = 0;
        // SAFETY: valid ids and an out-pointer to a live integer.
        checked!(unsafe { h5d::H5Dget_num_chunks(self.id, space.id, &mut n) })?;
        let mut out = Vec::new();
        for i in 0..n {
            let mut offset: Vec<hsize_t> = vec![0; rank];
            let (mut mask, mut addr, mut size): (c_uint, haddr_t, hsize_t) = (0, 0, 0);
            // SAFETY: `offset` holds rank entries; out-pointers point to live integers.
            checked!(unsafe {
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

    /// The dataspace extent in elements per dimension.
    pub fn dims(&self) -> Result<Vec<u64>> {
        let (space, rank) = self.space()?;
        let mut dims: Vec<hsize_t> = vec![0; rank];
        // SAFETY: `dims` holds one entry per dimension; maxdims is not asked for.
        let n = unsafe {
            h5s::H5Sget_simple_extent_dims(space.id, dims.as_mut_ptr(), std::ptr::null_mut())
        };
        if n < 0 {
            return Err(err("H5Sget_simple_extent_dims"));
        }
        Ok(dims)
    }

    fn space(&self) -> Result<(Dataspace, usize)> {
        // SAFETY: valid dataset id.
        let space = checked!(check_id, unsafe { h5d::H5Dget_space(self.id) })?;
        let space = Dataspace { id: space, len: 0 };
        // SAFETY: valid dataspace id.
        let rank = unsafe { h5s::H5Sget_simple_extent_ndims(space.id) };
        let rank = usize::try_from(rank).map_err(|_| err("H5Sget_simple_extent_ndims"))?;
        Ok((space, rank))
    }

    /// `H5Dget_create_plist`: the dataset's creation property list as HDF5 stored it.
    pub fn create_plist(&self) -> Result<Plist> {
        // SAFETY: valid dataset id.
        let id = checked!(check_id, unsafe { h5d::H5Dget_create_plist(self.id) })?;
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

/// [`Error::Other`] `msg` when a buffer of `len` bytes is under the `need` bytes to move.
fn fits(len: usize, need: u64, msg: &'static str) -> Result<()> {
    if (len as u64) < need {
        return Err(Error::Other(msg.into()));
    }
    Ok(())
}

/// Transfers of one buffer (`B`: `&[u8]` to write, `&mut [u8]` to read into) to or from
/// a moving selection of a dataset ([`Dataset::writes`], [`Dataset::reads`]).
pub struct DatasetIo<'a, B> {
    dset: &'a Dataset,
    mem: &'a Dataspace,
    file_space: &'a Dataspace,
    dxpl: &'a Plist,
    buf: B,
}

/// Writes of one buffer to a moving selection ([`Dataset::writes`]).
pub type DatasetWrites<'a> = DatasetIo<'a, &'a [u8]>;
/// Reads of a moving selection into one buffer ([`Dataset::reads`]).
pub type DatasetReads<'a> = DatasetIo<'a, &'a mut [u8]>;

impl DatasetWrites<'_> {
    /// `H5Dwrite` of the buffer at `offset` (elements per dimension). Errors: HDF5's.
    #[inline(always)]
    pub fn at(&self, offset: &[hssize_t]) -> Result<()> {
        self.file_space.offset_simple(offset)?;
        // SAFETY: buf covers `mem` (checked by Dataset::writes); ids live for 'a.
        check("H5Dwrite", unsafe {
            h5d::H5Dwrite(
                self.dset.id,
                *h5t::H5T_NATIVE_UCHAR,
                self.mem.id,
                self.file_space.id,
                self.dxpl.id,
                self.buf.as_ptr() as *const c_void,
            )
        })
    }
}

impl DatasetReads<'_> {
    /// The buffer the reads fill.
    #[inline(always)]
    pub fn buf(&self) -> &[u8] {
        self.buf
    }

    /// `H5Dread` at `offset` into the buffer, as [`DatasetWrites::at`].
    #[inline(always)]
    pub fn at(&mut self, offset: &[hssize_t]) -> Result<()> {
        self.file_space.offset_simple(offset)?;
        // SAFETY: as DatasetWrites::at, and the buffer is writable.
        check("H5Dread", unsafe {
            h5d::H5Dread(
                self.dset.id,
                *h5t::H5T_NATIVE_UCHAR,
                self.mem.id,
                self.file_space.id,
                self.dxpl.id,
                self.buf.as_mut_ptr() as *mut c_void,
            )
        })
    }
}

impl Drop for Dataset {
    fn drop(&mut self) {
        // SAFETY: we own the id.
        unsafe { h5d::H5Dclose(self.id) };
    }
}

/// One allocated chunk of a chunked dataset ([`Dataset::chunks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Logical offset in elements per dimension.
    pub offset: Vec<u64>,
    /// File address in bytes.
    pub addr: u64,
    /// Stored size in bytes.
    pub size: u64,
}

/// HDF5 1.10 is not thread-safe; serialises [`probe_dataset_create`].
static PROBE_LOCK: Mutex<()> = Mutex::new(());

/// Whether HDF5 creates byte dataset `dims` with `fill` in memory. Errors: [`Error::Hdf5`].
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
