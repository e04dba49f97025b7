//! Safe wrappers over the MPI calls h5perf uses: environment, communicators,
//! reductions, info objects, derived datatypes and MPI-IO files.
//!
//! Every raw call is checked: a non-`MPI_SUCCESS` code becomes [`Error::Mpi`] carrying
//! the call name and `MPI_Error_string`. Communicators we create and every file we open
//! get `MPI_ERRORS_RETURN`, so errors come back as values instead of aborting the job.
//! Owned handles are freed in `Drop` (errors ignored there); predefined handles
//! (`MPI_COMM_WORLD`, `MPI_INFO_NULL`, `MPI_UINT8_T`) are borrowed and never freed.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::mem::MaybeUninit;
use std::ptr;

use mpi_sys as raw;

use crate::error::{Error, Result};

/// Turn an MPI return code into a `Result`, naming the call.
fn check(call: &'static str, rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::Mpi {
            call,
            code: rc,
            msg: error_string(rc),
        })
    }
}

/// `MPI_Error_string` of an MPI error code (MPI 4.0 §9.4).
pub fn error_string(code: c_int) -> String {
    let mut buf = vec![0 as c_char; raw::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: buf holds MPI_MAX_ERROR_STRING+1 chars as the standard requires.
    let rc = unsafe { raw::MPI_Error_string(code, buf.as_mut_ptr(), &mut len) };
    if rc != 0 {
        return format!("unknown MPI error {code}");
    }
    let bytes: Vec<u8> = buf[..len.max(0) as usize]
        .iter()
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn cstring(what: &'static str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::Other(format!("{what} contains a NUL byte: {s:?}")))
}

/// Convert a count to the `int` MPI wants, refusing values above `INT_MAX`.
pub fn to_count(what: &'static str, n: u64) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        Error::Other(format!(
            "{what} ({n}) exceeds the largest MPI count ({}); use smaller blocks or transfers",
            c_int::MAX
        ))
    })
}

/// Convert a byte offset to `MPI_Offset`.
pub fn to_offset(n: u64) -> Result<raw::MPI_Offset> {
    raw::MPI_Offset::try_from(n)
        .map_err(|_| Error::Other(format!("file offset {n} does not fit in MPI_Offset")))
}

/// The MPI environment. Created once per process by [`Universe::init`]; finalises MPI
/// on drop if (and only if) this process initialised it.
pub struct Universe {
    owns: bool,
    /// When MPI was initialised by the caller: the error handlers of `MPI_COMM_WORLD`
    /// and of `MPI_FILE_NULL` (the default for new files) found at [`Universe::init`],
    /// put back on drop.
    saved_handlers: Option<(raw::MPI_Errhandler, raw::MPI_Errhandler)>,
}

impl Universe {
    /// Initialise MPI unless the caller already did (`MPI_Initialized`), and set
    /// `MPI_ERRORS_RETURN` on `MPI_COMM_WORLD` and on files opened with the default handler.
    /// When the caller initialised MPI, its two error handlers are restored on drop.
    ///
    /// Errors: `MPI_Init` failure.
    pub fn init() -> Result<Universe> {
        let mut flag: c_int = 0;
        // SAFETY: MPI_Initialized may be called at any time.
        check("MPI_Initialized", unsafe {
            raw::MPI_Initialized(&mut flag)
        })?;
        let mut finalized: c_int = 0;
        // SAFETY: MPI_Finalized may be called at any time.
        check("MPI_Finalized", unsafe {
            raw::MPI_Finalized(&mut finalized)
        })?;
        if finalized != 0 {
            return Err(Error::Other(
                "MPI was already finalised in this process; it cannot be initialised again".into(),
            ));
        }
        let owns = flag == 0;
        if owns {
            // SAFETY: NULL argc/argv is allowed by MPI-2 and later.
            check("MPI_Init", unsafe {
                raw::MPI_Init(ptr::null_mut(), ptr::null_mut())
            })?;
        }
        let saved_handlers = if owns { None } else { current_handlers() };
        // SAFETY: predefined handles, valid after MPI_Init.
        unsafe {
            raw::MPI_Comm_set_errhandler(raw::RSMPI_COMM_WORLD, raw::RSMPI_ERRORS_RETURN);
            raw::MPI_File_set_errhandler(raw::RSMPI_FILE_NULL, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(Universe {
            owns,
            saved_handlers,
        })
    }

    /// `MPI_COMM_WORLD` (borrowed, never freed).
    pub fn world(&self) -> Comm {
        // SAFETY: reading a link-time constant of the MPI shim.
        Comm {
            raw: unsafe { raw::RSMPI_COMM_WORLD },
            owned: false,
        }
    }

    /// Abort every process of `MPI_COMM_WORLD` with `code` (last resort only).
    pub fn abort(&self, code: i32) -> ! {
        // SAFETY: MPI is initialised while a Universe exists.
        unsafe {
            raw::MPI_Abort(raw::RSMPI_COMM_WORLD, code);
        }
        std::process::exit(code)
    }
}

/// The error handlers of `MPI_COMM_WORLD` and `MPI_FILE_NULL` (`MPI_Comm_get_errhandler`,
/// `MPI_File_get_errhandler`), or `None` if either call fails.
fn current_handlers() -> Option<(raw::MPI_Errhandler, raw::MPI_Errhandler)> {
    let mut comm_eh = std::mem::MaybeUninit::<raw::MPI_Errhandler>::uninit();
    let mut file_eh = std::mem::MaybeUninit::<raw::MPI_Errhandler>::uninit();
    // SAFETY: predefined handles of an initialised MPI; out-pointers to locals. A zero
    // return is MPI_SUCCESS (as in `check`).
    let comm_ok =
        unsafe { raw::MPI_Comm_get_errhandler(raw::RSMPI_COMM_WORLD, comm_eh.as_mut_ptr()) } == 0;
    if !comm_ok {
        return None;
    }
    // SAFETY: as above.
    let file_ok =
        unsafe { raw::MPI_File_get_errhandler(raw::RSMPI_FILE_NULL, file_eh.as_mut_ptr()) } == 0;
    // SAFETY: MPI_Comm_get_errhandler succeeded and wrote the handle.
    let mut comm_eh = unsafe { comm_eh.assume_init() };
    if !file_ok {
        // SAFETY: a handle MPI_Comm_get_errhandler returned, freed once.
        unsafe {
            raw::MPI_Errhandler_free(&mut comm_eh);
        }
        return None;
    }
    // SAFETY: MPI_File_get_errhandler succeeded and wrote the handle.
    Some((comm_eh, unsafe { file_eh.assume_init() }))
}

impl Drop for Universe {
    fn drop(&mut self) {
        if let Some((mut comm_eh, mut file_eh)) = self.saved_handlers.take() {
            if is_running() {
                // SAFETY: the handles MPI_*_get_errhandler returned, set back and then
                // freed once (the objects they refer to stay alive while in use).
                unsafe {
                    raw::MPI_Comm_set_errhandler(raw::RSMPI_COMM_WORLD, comm_eh);
                    raw::MPI_File_set_errhandler(raw::RSMPI_FILE_NULL, file_eh);
                    raw::MPI_Errhandler_free(&mut comm_eh);
                    raw::MPI_Errhandler_free(&mut file_eh);
                }
            }
        }
        if self.owns {
            // SAFETY: we initialised MPI; finalise exactly once.
            unsafe {
                raw::MPI_Finalize();
            }
        }
    }
}

/// Whether MPI is initialised and not yet finalised (`MPI_Initialized`, `MPI_Finalized`).
pub fn is_running() -> bool {
    let (mut init, mut fin): (c_int, c_int) = (0, 0);
    // SAFETY: both may be called at any time.
    unsafe {
        raw::MPI_Initialized(&mut init);
        raw::MPI_Finalized(&mut fin);
    }
    init != 0 && fin == 0
}

/// `MPI_Wtime()` in seconds.
pub fn wtime() -> f64 {
    // SAFETY: no preconditions beyond an initialised MPI.
    unsafe { raw::MPI_Wtime() }
}

/// The MPI library's version string (`MPI_Get_library_version`), first line only.
pub fn library_version() -> String {
    let mut buf = vec![0 as c_char; 8192];
    let mut len: c_int = 0;
    // SAFETY: buf is larger than MPI_MAX_LIBRARY_VERSION_STRING for Open MPI and MPICH.
    let rc = unsafe { raw::MPI_Get_library_version(buf.as_mut_ptr(), &mut len) };
    if rc != 0 {
        return "unknown MPI library".into();
    }
    // Open MPI counts the terminating NUL in len
    let bytes: Vec<u8> = buf[..len.max(0) as usize]
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    let s = String::from_utf8_lossy(&bytes);
    // the first line, with single spaces (MPICH separates its fields with tabs)
    let first = s.lines().next().unwrap_or("");
    first
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(',')
        .to_string()
}

/// Reduction operators used by h5perf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `MPI_MAX`
    Max,
    /// `MPI_MIN`
    Min,
    /// `MPI_SUM`
    Sum,
}

impl Op {
    fn raw(self) -> raw::MPI_Op {
        // SAFETY: reading link-time constants of the MPI shim.
        unsafe {
            match self {
                Op::Max => raw::RSMPI_MAX,
                Op::Min => raw::RSMPI_MIN,
                Op::Sum => raw::RSMPI_SUM,
            }
        }
    }
}

/// A communicator: `MPI_COMM_WORLD` (borrowed) or one made by [`Comm::split`] (owned,
/// freed on drop).
pub struct Comm {
    raw: raw::MPI_Comm,
    owned: bool,
}

impl Comm {
    /// A private duplicate (`MPI_Comm_dup`, collective) of a caller's communicator,
    /// with `MPI_ERRORS_RETURN`, freed on drop. The caller's handle is not modified.
    pub fn dup_of(raw_comm: raw::MPI_Comm) -> Result<Comm> {
        let mut out = MaybeUninit::<raw::MPI_Comm>::uninit();
        // SAFETY: the caller passes a live communicator; out receives a new handle.
        check("MPI_Comm_dup", unsafe {
            raw::MPI_Comm_dup(raw_comm, out.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call.
        let c = unsafe { out.assume_init() };
        // SAFETY: c is a live communicator we own.
        unsafe {
            raw::MPI_Comm_set_errhandler(c, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(Comm {
            raw: c,
            owned: true,
        })
    }

    /// The raw handle, for the HDF5 MPI-IO driver.
    pub fn as_raw(&self) -> raw::MPI_Comm {
        self.raw
    }

    /// Rank of this process in the communicator.
    pub fn rank(&self) -> Result<u32> {
        let mut r: c_int = 0;
        // SAFETY: valid communicator, out-pointer to a live int.
        check("MPI_Comm_rank", unsafe {
            raw::MPI_Comm_rank(self.raw, &mut r)
        })?;
        Ok(r as u32)
    }

    /// Number of processes in the communicator.
    pub fn size(&self) -> Result<u32> {
        let mut s: c_int = 0;
        // SAFETY: as above.
        check("MPI_Comm_size", unsafe {
            raw::MPI_Comm_size(self.raw, &mut s)
        })?;
        Ok(s as u32)
    }

    /// Collective `MPI_Comm_split(color, key)`. Returns `None` for processes whose
    /// color is "not in" (their new communicator is freed at once).
    pub fn split(&self, member: bool, key: u32) -> Result<Option<Comm>> {
        let mut out = MaybeUninit::<raw::MPI_Comm>::uninit();
        let color = if member { 1 } else { 0 };
        // SAFETY: valid communicator; out receives a new handle.
        check("MPI_Comm_split", unsafe {
            raw::MPI_Comm_split(self.raw, color, key as c_int, out.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call above.
        let mut c = unsafe { out.assume_init() };
        if !member {
            // SAFETY: c is a communicator we own.
            unsafe {
                raw::MPI_Comm_free(&mut c);
            }
            return Ok(None);
        }
        // SAFETY: c is a live communicator we own.
        unsafe {
            raw::MPI_Comm_set_errhandler(c, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(Some(Comm {
            raw: c,
            owned: true,
        }))
    }

    /// `MPI_Barrier`.
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: valid communicator.
        check("MPI_Barrier", unsafe { raw::MPI_Barrier(self.raw) })
    }

    /// In-place `MPI_Allreduce` of doubles with `op`; `out` receives the result.
    pub fn allreduce_f64(&self, input: &[f64], out: &mut [f64], op: Op) -> Result<()> {
        assert_eq!(input.len(), out.len());
        let n = to_count("reduction length", input.len() as u64)?;
        // SAFETY: both buffers hold n doubles; MPI_DOUBLE matches f64.
        check("MPI_Allreduce", unsafe {
            raw::MPI_Allreduce(
                input.as_ptr() as *const c_void,
                out.as_mut_ptr() as *mut c_void,
                n,
                raw::RSMPI_DOUBLE,
                op.raw(),
                self.raw,
            )
        })
    }

    /// `MPI_Allreduce` of one non-negative integer (carried as a double, exact below 2^53).
    pub fn allreduce_u64(&self, v: u64, op: Op) -> Result<u64> {
        let mut out = [0.0];
        self.allreduce_f64(&[v as f64], &mut out, op)?;
        Ok(out[0] as u64)
    }

    /// `MPI_Bcast` of a byte string from `root`; every rank returns root's bytes.
    pub fn bcast_bytes(&self, root: u32, data: &[u8]) -> Result<Vec<u8>> {
        let mut len = [data.len() as f64];
        let is_root = self.rank()? == root;
        // SAFETY: one double on every rank.
        check("MPI_Bcast", unsafe {
            raw::MPI_Bcast(
                len.as_mut_ptr() as *mut c_void,
                1,
                raw::RSMPI_DOUBLE,
                root as c_int,
                self.raw,
            )
        })?;
        let n = len[0] as usize;
        let mut buf = if is_root { data.to_vec() } else { vec![0u8; n] };
        let count = to_count("broadcast length", n as u64)?;
        // SAFETY: buf holds n bytes on every rank.
        check("MPI_Bcast", unsafe {
            raw::MPI_Bcast(
                buf.as_mut_ptr() as *mut c_void,
                count,
                raw::RSMPI_UINT8_T,
                root as c_int,
                self.raw,
            )
        })?;
        Ok(buf)
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: we own this communicator.
            unsafe {
                raw::MPI_Comm_free(&mut self.raw);
            }
        }
    }
}

/// An MPI info object: `MPI_INFO_NULL` or one built from key/value pairs (freed on drop).
pub struct Info {
    raw: raw::MPI_Info,
    owned: bool,
}

impl Info {
    /// `MPI_INFO_NULL`.
    pub fn null() -> Info {
        // SAFETY: link-time constant.
        Info {
            raw: unsafe { raw::RSMPI_INFO_NULL },
            owned: false,
        }
    }

    /// `MPI_Info_create` + `MPI_Info_set` for each pair, in order.
    ///
    /// Errors: a key or value with a NUL byte, or an MPI error.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Info> {
        let mut h = MaybeUninit::<raw::MPI_Info>::uninit();
        // SAFETY: out-pointer to a handle.
        check("MPI_Info_create", unsafe {
            raw::MPI_Info_create(h.as_mut_ptr())
        })?;
        // SAFETY: initialised by MPI_Info_create.
        let info = Info {
            raw: unsafe { h.assume_init() },
            owned: true,
        };
        for (k, v) in pairs {
            let k = cstring("HDF5_MPI_INFO key", k)?;
            let v = cstring("HDF5_MPI_INFO value", v)?;
            // SAFETY: valid info handle and NUL-terminated strings.
            check("MPI_Info_set", unsafe {
                raw::MPI_Info_set(info.raw, k.as_ptr(), v.as_ptr())
            })?;
        }
        Ok(info)
    }

    /// The raw handle, for the HDF5 MPI-IO driver.
    pub fn as_raw(&self) -> raw::MPI_Info {
        self.raw
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: we own the object.
            unsafe {
                raw::MPI_Info_free(&mut self.raw);
            }
        }
    }
}

/// A committed derived datatype (freed on drop), or the predefined byte type.
pub struct Datatype {
    raw: raw::MPI_Datatype,
    owned: bool,
    /// `MPI_Type_size` in bytes, recorded at creation so transfers can check buffer lengths.
    size: u64,
}

impl Datatype {
    /// The byte type (`MPI_UINT8_T`, same bytes as `MPI_BYTE`).
    pub fn byte() -> Datatype {
        // SAFETY: link-time constant.
        Datatype {
            raw: unsafe { raw::RSMPI_UINT8_T },
            owned: false,
            size: 1,
        }
    }

    fn commit(mut raw_t: raw::MPI_Datatype, size: u64) -> Result<Datatype> {
        // SAFETY: raw_t is a freshly created datatype we own.
        let rc = unsafe { raw::MPI_Type_commit(&mut raw_t) };
        let t = Datatype {
            raw: raw_t,
            owned: true,
            size,
        };
        check("MPI_Type_commit", rc)?;
        Ok(t)
    }

    /// Size of one element of this type in bytes (`MPI_Type_size`).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// `MPI_Type_contiguous(count, base)`, committed (MPI 4.0 §5.1.2).
    pub fn contiguous(count: u64, base: &Datatype) -> Result<Datatype> {
        let n = to_count("MPI_Type_contiguous count", count)?;
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: base is a valid type; out-pointer to a handle.
        check("MPI_Type_contiguous", unsafe {
            raw::MPI_Type_contiguous(n, base.raw, t.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, count * base.size)
    }

    /// A committed type of `n` contiguous bytes, also for `n > INT_MAX`: then
    /// `struct { q × contiguous(2^30 bytes); r bytes }` with `n = q·2^30 + r`, since
    /// MPI counts are `int` (MPI 4.0 §5.1.2, §5.1.6; large-count calls are not in
    /// MPI 3.1 libraries such as Open MPI 4).
    pub fn bytes(n: u64) -> Result<Datatype> {
        let byte = Datatype::byte();
        if n <= c_int::MAX as u64 {
            return Datatype::contiguous(n, &byte);
        }
        const GIB: u64 = 1 << 30;
        let gib = Datatype::contiguous(GIB, &byte)?;
        let (q, r) = (n / GIB, n % GIB);
        let lens = [to_count("whole GiB in a block", q)?, to_count("bytes", r)?];
        let disp = [
            0 as raw::MPI_Aint,
            raw::MPI_Aint::try_from(q * GIB).map_err(|_| {
                Error::Other(format!("block of {n} bytes does not fit in MPI_Aint"))
            })?,
        ];
        let types = [gib.raw, byte.raw];
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: three arrays of two entries each; live base types; out-pointer.
        check("MPI_Type_create_struct", unsafe {
            raw::MPI_Type_create_struct(
                2,
                lens.as_ptr(),
                disp.as_ptr(),
                types.as_ptr(),
                t.as_mut_ptr(),
            )
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, n)
    }

    /// `MPI_Type_vector(count, blocklength, stride, base)`, committed.
    pub fn vector(count: u64, blocklen: u64, stride: u64, base: &Datatype) -> Result<Datatype> {
        let c = to_count("MPI_Type_vector count", count)?;
        let b = to_count("MPI_Type_vector blocklength", blocklen)?;
        let s = to_count("MPI_Type_vector stride", stride)?;
        let mut t = MaybeUninit::<raw::MPI_Datatype>::uninit();
        // SAFETY: as above.
        check("MPI_Type_vector", unsafe {
            raw::MPI_Type_vector(c, b, s, base.raw, t.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful call.
        Self::commit(unsafe { t.assume_init() }, count * blocklen * base.size)
    }
}

impl Drop for Datatype {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: we own this datatype.
            unsafe {
                raw::MPI_Type_free(&mut self.raw);
            }
        }
    }
}

/// `MPI_MODE_*` access modes.
pub mod mode {
    /// `MPI_MODE_CREATE | MPI_MODE_RDWR`
    pub const CREATE_RDWR: i32 = (mpi_sys::MPI_MODE_CREATE | mpi_sys::MPI_MODE_RDWR) as i32;
    /// `MPI_MODE_RDONLY`
    pub const RDONLY: i32 = mpi_sys::MPI_MODE_RDONLY as i32;
}

/// `MPI_File_delete(path, info)`; the error is returned (callers may ignore it).
pub fn file_delete(p: &CStr, info: &Info) -> Result<()> {
    // SAFETY: NUL-terminated name and a valid info handle.
    check("MPI_File_delete", unsafe {
        raw::MPI_File_delete(p.as_ptr() as *mut c_char, info.raw)
    })
}

type WriteFn = unsafe extern "C" fn(
    raw::MPI_File,
    raw::MPI_Offset,
    *const c_void,
    c_int,
    raw::MPI_Datatype,
    *mut raw::MPI_Status,
) -> c_int;

type ReadFn = unsafe extern "C" fn(
    raw::MPI_File,
    raw::MPI_Offset,
    *mut c_void,
    c_int,
    raw::MPI_Datatype,
    *mut raw::MPI_Status,
) -> c_int;

/// An open MPI-IO file. Close explicitly with [`File::close`] to see the error;
/// dropping closes silently.
pub struct File {
    raw: raw::MPI_File,
}

impl File {
    /// Collective `MPI_File_open(comm, path, amode, info)`; sets `MPI_ERRORS_RETURN`.
    pub fn open(comm: &Comm, p: &CStr, amode: i32, info: &Info) -> Result<File> {
        let mut fh = MaybeUninit::<raw::MPI_File>::uninit();
        // SAFETY: valid communicator/info, NUL-terminated name, out-pointer.
        check("MPI_File_open", unsafe {
            raw::MPI_File_open(comm.raw, p.as_ptr(), amode, info.raw, fh.as_mut_ptr())
        })?;
        // SAFETY: initialised by the successful open.
        let f = File {
            raw: unsafe { fh.assume_init() },
        };
        // SAFETY: live file handle.
        unsafe {
            raw::MPI_File_set_errhandler(f.raw, raw::RSMPI_ERRORS_RETURN);
        }
        Ok(f)
    }

    /// Collective `MPI_File_set_size`.
    pub fn set_size(&self, size: u64) -> Result<()> {
        // SAFETY: live file handle.
        check("MPI_File_set_size", unsafe {
            raw::MPI_File_set_size(self.raw, to_offset(size)?)
        })
    }

    /// Collective `MPI_File_set_view(disp, etype, filetype, "native", info)`.
    pub fn set_view(
        &self,
        disp: u64,
        etype: &Datatype,
        filetype: &Datatype,
        info: &Info,
    ) -> Result<()> {
        let native = b"native\0";
        // SAFETY: live handles; datarep is a NUL-terminated string.
        check("MPI_File_set_view", unsafe {
            raw::MPI_File_set_view(
                self.raw,
                to_offset(disp)?,
                etype.raw,
                filetype.raw,
                native.as_ptr() as *const c_char,
                info.raw,
            )
        })
    }

    /// One transfer call of the `MPI_File_write_at`/`read_at` families: checks that the
    /// buffer (`buf_len` bytes) covers `count` elements of `dtype`, then runs `call_mpi`
    /// with a status out-pointer, checks its return code and the count the status
    /// reports ([`check_count`]). `call_mpi` runs only when the buffer is large enough.
    fn transfer(
        call: &'static str,
        buf_len: usize,
        count: c_int,
        dtype: &Datatype,
        call_mpi: impl FnOnce(*mut raw::MPI_Status) -> c_int,
    ) -> Result<()> {
        ensure_len(
            buf_len,
            u64::try_from(count)
                .unwrap_or(u64::MAX)
                .saturating_mul(dtype.size),
            call,
        )?;
        let mut st = MaybeUninit::<raw::MPI_Status>::uninit();
        check(call, call_mpi(st.as_mut_ptr()))?;
        // SAFETY: the successful call filled the status.
        check_count(call, unsafe { st.assume_init() }, count, dtype)
    }

    /// One write call of the `MPI_File_write_at` family ([`File::transfer`]).
    fn write_with(
        &self,
        call: &'static str,
        f: WriteFn,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        File::transfer(call, buf.len(), count, dtype, |st| {
            // SAFETY: buf covers count elements of dtype (checked by `transfer` before
            // this runs); live file and type handles; st is an out-parameter.
            unsafe {
                f(
                    self.raw,
                    offset,
                    buf.as_ptr() as *const c_void,
                    count,
                    dtype.raw,
                    st,
                )
            }
        })
    }

    /// One read call of the `MPI_File_read_at` family ([`File::transfer`]).
    fn read_with(
        &self,
        call: &'static str,
        f: ReadFn,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        File::transfer(call, buf.len(), count, dtype, |st| {
            // SAFETY: as write_with, and buf is writable.
            unsafe {
                f(
                    self.raw,
                    offset,
                    buf.as_mut_ptr() as *mut c_void,
                    count,
                    dtype.raw,
                    st,
                )
            }
        })
    }

    /// Independent `MPI_File_write_at(offset, buf, count, dtype)` (MPI 4.0 §14.4.2).
    /// `offset` is in etype units of the current view. Errors: `buf` shorter than
    /// `count × size(dtype)` bytes, or the MPI error.
    pub fn write_at(
        &self,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.write_with(
            "MPI_File_write_at",
            raw::MPI_File_write_at,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_write_at_all`; same contract as [`File::write_at`].
    pub fn write_at_all(
        &self,
        offset: raw::MPI_Offset,
        buf: &[u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.write_with(
            "MPI_File_write_at_all",
            raw::MPI_File_write_at_all,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Independent `MPI_File_read_at` into `buf`; same contract as [`File::write_at`].
    pub fn read_at(
        &self,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.read_with(
            "MPI_File_read_at",
            raw::MPI_File_read_at,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_read_at_all`; same contract as [`File::write_at`].
    pub fn read_at_all(
        &self,
        offset: raw::MPI_Offset,
        buf: &mut [u8],
        count: c_int,
        dtype: &Datatype,
    ) -> Result<()> {
        self.read_with(
            "MPI_File_read_at_all",
            raw::MPI_File_read_at_all,
            offset,
            buf,
            count,
            dtype,
        )
    }

    /// Collective `MPI_File_close`, reporting its error.
    pub fn close(mut self) -> Result<()> {
        // SAFETY: live handle; MPI sets it to MPI_FILE_NULL.
        let rc = unsafe { raw::MPI_File_close(&mut self.raw) };
        std::mem::forget(self);
        check("MPI_File_close", rc)
    }
}

impl Drop for File {
    fn drop(&mut self) {
        // SAFETY: live handle (close() forgets self).
        unsafe {
            raw::MPI_File_close(&mut self.raw);
        }
    }
}

/// Check that a transfer moved all `count` elements (`MPI_Get_count` of its status).
/// Some MPI-IO implementations report a failed `pwrite` inside a transfer (e.g.
/// `EFBIG`) only on stderr and return success with a short count; this turns that
/// into an error.
fn check_count(
    call: &'static str,
    st: raw::MPI_Status,
    count: c_int,
    dtype: &Datatype,
) -> Result<()> {
    let mut n: c_int = 0;
    // SAFETY: st is a status filled by a completed transfer; dtype is live.
    check("MPI_Get_count", unsafe {
        raw::MPI_Get_count(&st, dtype.raw, &mut n)
    })?;
    if n == count {
        return Ok(());
    }
    let moved = if n < 0 {
        "part of an element".to_string()
    } else {
        format!("{n} of {count} element(s)")
    };
    Err(Error::Other(format!(
        "{call} failed: short transfer, moved {moved} (the MPI library reported no error)"
    )))
}

/// Refuse a transfer whose buffer is shorter than the bytes it would move.
fn ensure_len(buf_len: usize, need: u64, what: &'static str) -> Result<()> {
    if (buf_len as u64) < need {
        return Err(Error::Other(format!(
            "{what}: buffer of {buf_len} bytes is smaller than the {need} bytes to move"
        )));
    }
    Ok(())
}
