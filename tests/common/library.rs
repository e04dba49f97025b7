//! The HDF5 library the h5perf binary under test is linked with, found from outside the
//! program: `ldd` names the `libhdf5*.so` the dynamic loader resolves for the binary, and
//! the version is the one the library file itself carries (HDF5 embeds
//! `HDF5 library version: X.Y.Z` in its binary). Tests compare the report's
//! `HDF5 Library: Version` line and release-dependent tables with it.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::launcher::h5perf_bin;

/// The `libhdf5*.so*` file the h5perf binary loads (from `ldd`). Fails the test when
/// `ldd` does not name one.
pub fn linked_hdf5_library() -> PathBuf {
    let bin = h5perf_bin();
    let out = Command::new("ldd")
        .arg(&bin)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ldd {}: {e}", bin.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.trim_start().starts_with("libhdf5"))
        .find_map(|l| {
            let path = l.split("=>").nth(1)?.split(" (").next()?.trim();
            (!path.is_empty() && path != "not found").then(|| PathBuf::from(path))
        })
        .unwrap_or_else(|| {
            panic!(
                "ldd {} names no resolved libhdf5 library:\n{text}",
                bin.display()
            )
        })
}

/// The version of the HDF5 library the binary loads (`1.10.8`, `1.14.5`), read from the
/// library file (cached per test binary).
pub fn linked_hdf5_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let lib = linked_hdf5_library();
        let bytes = fs::read(&lib).unwrap_or_else(|e| panic!("cannot read {}: {e}", lib.display()));
        let key = b"HDF5 library version: ";
        let mut at = 0;
        while let Some(i) = bytes[at..].windows(key.len()).position(|w| w == key) {
            let start = at + i + key.len();
            let v: String = bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b'.')
                .map(|b| *b as char)
                .collect();
            if v.split('.').count() == 3 && v.split('.').all(|p| !p.is_empty()) {
                return v;
            }
            at = start;
        }
        panic!(
            "{} carries no \"HDF5 library version: X.Y.Z\" string",
            lib.display()
        )
    })
}

/// The `HDF5 Library: Version` line the report must print for the linked library.
pub fn hdf5_version_line() -> String {
    format!("HDF5 Library: Version {}", linked_hdf5_version())
}
