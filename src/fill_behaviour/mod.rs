//! The `--fill-behaviour` mode (issue 6), a sibling of the benchmark: it rebuilds HDF5's
//! documented fill-value tables (serial and parallel) by experiment with the linked
//! library and marks where the library differs from the document. (The benchmark's own
//! fill options, `--fill-value`, `--fill-time`, `--alloc-time` and `-n`/`--no-fill`, and
//! the start-up check that HDF5 accepts them live in [`crate::terms::fill`].)
//!
//! How a cell of the tables is observed ([`run_mode`]): a file is created and closed,
//! 256 KiB of marker bytes (0xEE) are appended to it behind HDF5's end of allocated
//! space, and the file is opened again, so raw-data storage that HDF5 allocates lands on
//! marker bytes and storage HDF5 never writes keeps them. A 128 × 128 byte dataset is
//! created with the cell's settings (chunks of 32 × 32 bytes; compact data lives in the
//! object header) and flushed, then a 16 × 16 block at the origin is written with 0x11
//! and flushed again (`H5Dflush`; in parallel from HDF5 1.12 on the collective
//! `H5Fflush`, as HDF5 refuses `H5Dflush` with the MPI-IO driver there: chosen at build
//! time by the release found, see `experiment`). Around both steps the bytes the process wrote are taken
//! from `/proc/self/io` (`wchar`, summed over ranks in parallel); after both steps the
//! allocated storage is read back from the file (`H5Dget_offset`, `H5Dget_chunk_info`),
//! compact data with `H5Dread`. Bytes are counted as fill value, marker, zero or other
//! (`Census`), and `classify` turns the counts into the document's outcomes. The
//! serial table runs on rank 0 alone with the `sec2` driver (sieve buffer off, so a
//! partial write moves only its own bytes); the parallel table on every rank with the
//! MPI-IO driver, rank 0 writing the block and the others selecting nothing (compact
//! data from HDF5 1.12 on: every rank writes the same block, as parallel HDF5 asks of
//! metadata; rank 0 alone hangs the collective flush).
//!
//! One limit of any such experiment: the library default fill value is 0, and HDF5
//! zeroes the buffer of a chunk or of compact data it does not fill. Where the test's
//! untouched bytes came from such a buffer (the rest of the chunk the write touched;
//! compact data), "library fill value written" and "no fill value written" leave the
//! same bytes, and the cell is reported as indistinguishable (`≈`) rather than guessed.
//!
//! The files, by job; each imports its siblings by path, never this face:
//! * `doc`: the document's tables (storage methods, outcomes, the serial and parallel
//!   cells as the document prints them);
//! * `cells`: the cells' settings and the dataset every cell creates;
//! * `classify`: what a cell left behind (bytes counted by value, before and after the
//!   first write) and the document's outcome it shows; pure;
//! * `findings`: the observations paired with the document, the checks, and the
//!   report; pure;
//! * `experiment`: the I/O (scratch files, marker bytes, each cell run and read back)
//!   and [`run_mode`].

mod cells;
mod classify;
mod doc;
mod experiment;
mod findings;

pub use experiment::run_mode;
