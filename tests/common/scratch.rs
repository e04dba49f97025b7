//! Scratch directories and their listings, and small tmpfs file systems mounted by a test.

use std::fs;
use std::path::Path;

/// A fresh, empty scratch directory, removed when dropped.
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("h5perf-test-")
        .tempdir()
        .expect("cannot create a scratch directory")
}

/// Names (not paths) of the `#pio_tmp*` files in `dir`, sorted.
pub fn pio_tmp_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("#pio_tmp"))
        .collect();
    v.sort();
    v
}

/// All entry names in `dir`, sorted.
pub fn dir_entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
