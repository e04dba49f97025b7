//! The LD_PRELOAD shim that slows one rank on purpose (tests/slow_shim.c).

use std::path::Path;
use std::process::Command;

/// The slow shim, built with `cc` into `dir`.
pub fn slow_shim(dir: &Path) -> String {
    let shim = dir.join("slow_shim.so");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slow_shim.c");
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&shim)
        .arg(&src)
        .arg("-ldl")
        .status()
        .expect("a C compiler (cc) is needed to build the test shim");
    assert!(cc.success(), "building {} failed", src.display());
    shim.to_string_lossy().into_owned()
}
