//! Records, at build time, what depends on the HDF5 library h5perf is compiled against:
//!
//! * its version (the report's `HDF5 Library: Version` line, spec §2.2): hdf5-sys
//!   announces every version it supports up to the one it found as
//!   `DEP_HDF5_VERSION_<maj>_<min>_<rel>`; the highest is the library found. Releases
//!   1.10.5 to 1.14.x and 2.0 to 2.2.x are supported (1.10.5 brought `H5Dget_chunk_info`, which
//!   `--fill-behaviour` reads); any other stops the build with a message.
//! * the cfgs that choose version-dependent code: `hdf5_1_12` for 1.12.0 and later,
//!   `hdf5_1_14` for 1.14.0 and later (see `src/fill_behaviour/experiment.rs`).
//! * a run-time search path (`-Wl,-rpath`) to the HDF5 library directory when the dynamic
//!   loader would not find it by itself (an HDF5 built into a prefix: Spack, modules, the
//!   cache of `make test-hdf5-1.14`), so that the program and `libh5perf.so` run without
//!   `LD_LIBRARY_PATH`. Debian's packages live in the loader's default directories and
//!   get none.
//! * the soname of `libh5perf.so`: `libh5perf.so.<major>` (the crate's major version).

use std::path::{Path, PathBuf};

/// The oldest and the first unsupported release.
const OLDEST: (u32, u32, u32) = (1, 10, 5);
const TOO_NEW: (u32, u32, u32) = (2, 3, 0);

fn main() {
    let mut best: Option<(u32, u32, u32)> = None;
    for (k, _) in std::env::vars() {
        if let Some(rest) = k.strip_prefix("DEP_HDF5_VERSION_") {
            let parts: Vec<u32> = rest.split('_').filter_map(|p| p.parse().ok()).collect();
            if let [a, b, c] = parts[..] {
                if best.is_none_or(|v| (a, b, c) > v) {
                    best = Some((a, b, c));
                }
            }
        }
    }
    let v = best.expect("hdf5-sys did not report the HDF5 version (DEP_HDF5_VERSION_*)");
    let (a, b, c) = v;
    if v < OLDEST || v >= TOO_NEW {
        panic!(
            "h5perf supports HDF5 1.10.5 to 1.14.x and 2.0 to 2.2.x; the HDF5 found (HDF5_DIR={}) is {a}.{b}.{c}",
            std::env::var("HDF5_DIR").unwrap_or_else(|_| "unset".into())
        );
    }
    println!("cargo:rustc-env=H5PERF_HDF5_VERSION={a}.{b}.{c}");
    println!("cargo:rustc-check-cfg=cfg(hdf5_1_12)");
    println!("cargo:rustc-check-cfg=cfg(hdf5_1_14)");
    if v >= (1, 12, 0) {
        println!("cargo:rustc-cfg=hdf5_1_12");
    }
    if v >= (1, 14, 0) {
        println!("cargo:rustc-cfg=hdf5_1_14");
    }

    if let Some(dir) = std::env::var_os("DEP_HDF5_INCLUDE")
        .and_then(|inc| Path::new(&inc).parent().map(|p| p.join("lib")))
        .filter(|d| needs_rpath(d))
    {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }

    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libh5perf.so.{major}");
    println!("cargo:rerun-if-changed=build.rs");
}

/// True when `dir` holds `libhdf5.so` and the library it names lives outside the dynamic
/// loader's default directories.
fn needs_rpath(dir: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(dir.join("libhdf5.so")) else {
        return false;
    };
    let home = real.parent().map(PathBuf::from).unwrap_or_default();
    let defaults = [
        "/lib",
        "/lib64",
        "/usr/lib",
        "/usr/lib64",
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ];
    !defaults.iter().any(|d| home == Path::new(d))
}
