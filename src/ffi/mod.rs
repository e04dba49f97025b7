//! The only layer that calls C: MPI (`mpi-sys`), HDF5 (`hdf5-sys`) and POSIX (`libc`).
#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

/// `check("F", unsafe { m::F(args) })`: the C call `m::F`, its return code checked by the `check`
/// in scope where it is used (or by the function given first, e.g.
macro_rules! checked {
    (unsafe { $m:ident :: $f:ident $args:tt }) => {
        check(stringify!($f), unsafe { $m::$f $args })
    };
    ($check:ident, unsafe { $m:ident :: $f:ident $args:tt }) => {
        $check(stringify!($f), unsafe { $m::$f $args })
    };
}

pub mod clock;
pub mod hdf5;
pub mod mem;
pub mod mpi;
pub mod posix;
pub mod process;
pub mod signals;
pub mod storage;
