//! Records, at build time, what the report needs: the version of the HDF5 library
//! h5perf is compiled against (the report's `HDF5 Library: Version` line, spec §2.2).
//! hdf5-sys announces every version it supports as `DEP_HDF5_VERSION_<maj>_<min>_<rel>`;
//! the highest is the library found.

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
    let (a, b, c) = best.expect("hdf5-sys did not report the HDF5 version (DEP_HDF5_VERSION_*)");
    println!("cargo:rustc-env=H5PERF_HDF5_VERSION={a}.{b}.{c}");
    println!("cargo:rerun-if-changed=build.rs");
}
