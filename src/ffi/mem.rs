//! Page-aligned transfer buffers.
//!
//! One buffer is allocated per configuration, outside the timers, aligned to 4096
//! bytes (a page, and the alignment `O_DIRECT` and most parallel file systems like).
//! Allocation failure is an error value, never an abort.

use std::alloc::{alloc_zeroed, dealloc, Layout};

use crate::error::{Error, Result};

/// Alignment of transfer buffers in bytes.
const ALIGN: usize = 4096;

/// A zero-initialised, 4096-byte-aligned byte buffer.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
}

impl AlignedBuf {
    /// Allocate `len` bytes (at least 1 is allocated internally).
    ///
    /// Errors: `len` does not fit in memory (`malloc for transfer buffer size (N) failed`).
    pub fn new(len: u64) -> Result<AlignedBuf> {
        let fail = || Error::Limit(format!("malloc for transfer buffer size ({len}) failed"));
        let n = usize::try_from(len).map_err(|_| fail())?;
        let layout = Layout::from_size_align(n.max(1), ALIGN).map_err(|_| fail())?;
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(fail());
        }
        Ok(AlignedBuf { ptr, len: n })
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for len initialised bytes for our lifetime, and we hold the
        // only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe {
            dealloc(
                self.ptr,
                Layout::from_size_align_unchecked(self.len.max(1), ALIGN),
            )
        }
    }
}
