//! The LD_PRELOAD shims of the tests: the one that slows one rank on purpose
//! (tests/slow_shim.c) and any other `tests/*.c` shim ([`build_shim`]).

use std::path::Path;
use std::process::Command;

/// The slow shim, built with `cc` into `dir`.
pub fn slow_shim(dir: &Path) -> String {
    build_shim(dir, "slow_shim")
}

/// The LD_PRELOAD shim `tests/NAME.c` (e.g. `phase_shim`, tests/phase_shim.c), built with
/// `cc` into `dir/NAME.so`; returns its path.
pub fn build_shim(dir: &Path, name: &str) -> String {
    let shim = dir.join(format!("{name}.so"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/{name}.c"));
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

/// The environment that makes world rank `rank` sleep 1.5 s in its first data write
/// through the shim at `shim` (forwarded to every rank by the launcher).
pub fn slow_rank_env<'a>(shim: &'a str, rank: &'a str) -> [(&'static str, &'a str); 4] {
    [
        ("LD_PRELOAD", shim),
        ("H5PERF_TEST_SLOW_RANK", rank),
        ("H5PERF_TEST_SLOW_MS", "1500"),
        ("H5PERF_TEST_SLOW_ONCE", "1"),
    ]
}

/// Asserts that every write-phase record (`raw_write`, `write`, `write_open_close`) of
/// a `--json` document names `rank` on `host` as the slowest rank, with at least 1 s of
/// the shim's 1.5 s pause, and not as the fastest. Returns how many records it checked.
pub fn assert_slowest_in_writes(j: &serde_json::Value, rank: u64, host: &str) -> usize {
    let mut checked = 0;
    for rec in j["records"].as_array().expect("records") {
        let phase = rec["phase"].as_str().expect("phase");
        if ["raw_write", "write", "write_open_close"].contains(&phase) {
            assert_eq!(rec["slowest_rank"], rank, "{rec}");
            assert_eq!(rec["slowest_host"], host, "{rec}");
            let t = rec["slowest_time_s"].as_f64().expect("slowest_time_s");
            assert!(t >= 1.0, "the pause is 1.5 s, measured {t}: {rec}");
            assert_ne!(rec["fastest_rank"], rank, "{rec}");
            checked += 1;
        }
    }
    checked
}
