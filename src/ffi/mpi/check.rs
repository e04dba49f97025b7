//! MPI return codes and `int` counts.

use std::ffi::{c_char, c_int};

use mpi_sys as raw;

use crate::error::{Error, Result};

#[inline]
pub(super) fn check(call: &'static str, rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(mpi_error(call, rc))
    }
}

#[cold]
#[inline(never)]
pub(super) fn mpi_error(call: &'static str, rc: c_int) -> Error {
    Error::Mpi {
        call,
        code: rc,
        msg: error_string(rc),
    }
}

/// `MPI_Error_string` (MPI-3.1 §8.3.4).
fn error_string(code: c_int) -> String {
    let mut buf = vec![0 as c_char; raw::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: buf holds MPI_MAX_ERROR_STRING+1 chars as the standard requires.
    let rc = unsafe { raw::MPI_Error_string(code, buf.as_mut_ptr(), &mut len) };
    if rc != 0 {
        return format!("unknown MPI error {code}");
    }
    let len = usize::try_from(len).unwrap_or(0).min(buf.len());
    let bytes: Vec<u8> = buf[..len].iter().map(|c| c.to_ne_bytes()[0]).collect();
    one_line(&String::from_utf8_lossy(&bytes))
}

/// Text on one line (MPICH error strings span several lines).
fn one_line(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
}

/// `n` as an MPI `int` count (MPI-3.1 §2.5.8). Errors: [`Error::Limit`] above `INT_MAX`.
pub fn to_count(what: &'static str, n: u64) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        Error::Limit(format!(
            "{what} ({n}) exceeds the largest MPI count ({}); use smaller blocks or transfers",
            c_int::MAX
        ))
    })
}

/// Whether MPI is initialised and not finalised (MPI-3.1 §8.7).
pub fn is_running() -> bool {
    let (mut init, mut fin): (c_int, c_int) = (0, 0);
    // SAFETY: both may be called at any time.
    unsafe {
        raw::MPI_Initialized(&mut init);
        raw::MPI_Finalized(&mut fin);
    }
    init != 0 && fin == 0
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn mpich_error_stacks_become_one_line() {
        assert_eq!(
            one_line(
                "Other I/O error , error stack:\nADIO_OPEN cb_config_list(320): No aggregators match"
            ),
            "Other I/O error, error stack: ADIO_OPEN cb_config_list(320): No aggregators match"
        );
        assert_eq!(
            one_line("  MPI_ERR_ARG:\tinvalid argument "),
            "MPI_ERR_ARG: invalid argument"
        );
    }
}
