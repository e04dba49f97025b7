//! Reading HDF5 files back with the HDF5 command-line tools (`h5dump`, `h5ls`).

use std::fs;
use std::path::Path;
use std::time::Duration;

use super::launcher::{require_tool, run_tool};
use super::scratch::scratch_dir;

/// Raw bytes of a 1-byte-element dataset, read with `h5dump -b LE`.
pub fn h5_dataset_bytes(file: &Path, dataset: &str) -> Vec<u8> {
    let h5dump = require_tool("h5dump", "hdf5-tools");
    let tmp = scratch_dir();
    let out = tmp.path().join("data.bin");
    let o = run_tool(
        &[
            h5dump.to_str().unwrap(),
            "-b",
            "LE",
            "-d",
            dataset,
            "-o",
            out.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        tmp.path(),
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5dump failed\n{}", o.describe());
    fs::read(&out)
        .unwrap_or_else(|e| panic!("h5dump wrote no {}: {e}\n{}", out.display(), o.describe()))
}

/// `h5dump -p -H -d DATASET FILE` text (properties and header only).
pub fn h5_dataset_properties(file: &Path, dataset: &str) -> String {
    let h5dump = require_tool("h5dump", "hdf5-tools");
    let dir = file.parent().unwrap_or(Path::new("."));
    let o = run_tool(
        &[
            h5dump.to_str().unwrap(),
            "-p",
            "-H",
            "-d",
            dataset,
            file.to_str().unwrap(),
        ],
        dir,
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5dump -p -H failed\n{}", o.describe());
    o.stdout
}

/// Object names and descriptions listed by `h5ls FILE` (e.g. `("Dataset_1", "Dataset {24}")`).
pub fn h5_list(file: &Path) -> Vec<(String, String)> {
    let h5ls = require_tool("h5ls", "hdf5-tools");
    let dir = file.parent().unwrap_or(Path::new("."));
    let o = run_tool(
        &[h5ls.to_str().unwrap(), file.to_str().unwrap()],
        dir,
        Duration::from_secs(60),
    );
    assert!(o.success(), "h5ls failed\n{}", o.describe());
    o.stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.splitn(2, char::is_whitespace);
            let name = it.next().unwrap_or("").to_string();
            let desc = it.next().unwrap_or("").trim().to_string();
            (name, desc)
        })
        .collect()
}
