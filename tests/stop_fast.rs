//! Stop fast (issue 12, item 7): with independent transfers, when one rank's writes
//! fail the others stop within the error beacon's interval
//! ([`h5perf::benchmark::driver::POLL_BYTES`]) instead of writing the rest of their
//! dataset. Proven from outside, for each API: rank 1 runs under `prlimit --fsize`
//! (its first write, past the limit, fails with `EFBIG`), rank 0 is slowed by the slow
//! shim (tests/slow_shim.c, 5 ms per write, so it is still writing when rank 1 fails),
//! the file is kept (`HDF5_NOCLEANUP`) on tmpfs and the bytes rank 0 wrote are the
//! file's allocated blocks. Without the beacon rank 0 wrote all of its 256 MiB.
//!
//! Every case prints one `TABLE|case|flavour|exit status|seconds|files left|message`
//! line on stderr (`cargo test -- --nocapture` shows them).

mod common;

use common::*;
use h5perf::benchmark::driver::POLL_BYTES;
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

/// Bytes per rank and transfer size of the runs.
const PER_RANK: u64 = 256 << 20;
const XFER: u64 = 1 << 20;

#[test]
fn the_other_ranks_stop_within_the_beacon_interval() {
    let build = scratch_dir();
    let shim = slow_shim(build.path());
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let prlimit = require_tool("prlimit", "util-linux")
        .to_string_lossy()
        .into_owned();
    for (api, suffix, call) in [
        (
            "posix",
            "posix",
            "pwrite(#pio_tmp_1.posix) failed: File too large",
        ),
        ("mpiio", "mpio", "MPI_File_write_at failed"),
        ("phdf5", "h5", "H5Dwrite failed"),
    ] {
        // tmpfs: allocated blocks are exactly the bytes written, and nothing is slow
        let dir = scratch_dir_in("h5perf-stop-", std::path::Path::new("/dev/shm"));
        let args: Vec<String> = [
            "-A", api, "-e", "256M", "-x", "1M", "-X", "1M", "-B", "1M", "-p", "2", "-P", "2", "-w",
        ]
        .map(String::from)
        .to_vec();
        // MPMD: rank 0 as is, rank 1 with a 16 MiB file size limit
        let mut argv = launcher();
        argv.extend(["-n".into(), "1".into(), bin.clone()]);
        argv.extend(args.iter().cloned());
        argv.extend([":".into(), "-n".into(), "1".into(), prlimit.clone()]);
        argv.extend(["--fsize=16777216".into(), bin.clone()]);
        argv.extend(args.iter().cloned());
        let env = [
            ("LD_PRELOAD", shim.as_str()),
            ("H5PERF_TEST_SLOW_RANK", "0"),
            ("H5PERF_TEST_SLOW_MS", "5"),
            ("HDF5_NOCLEANUP", "1"),
        ];
        let o = run_session(&argv, &env, dir.path(), Duration::from_secs(120));
        let name = format!("#pio_tmp_1.{suffix}");
        let file = dir.path().join(&name);
        let written = std::fs::metadata(&file)
            .map(|m| m.blocks() * 512)
            .unwrap_or_else(|e| panic!("-A {api}: the kept file {name}: {e}\n{}", o.describe()));
        let first = first_message(&o);
        table_row(
            &format!(
                "stop fast: -A {api}, rank 1 under RLIMIT_FSIZE, rank 0 wrote {} KiB of {} KiB",
                written >> 10,
                PER_RANK >> 10
            ),
            &o,
            &[format!("{name} (HDF5_NOCLEANUP)")],
            &first,
        );
        assert!(
            matches!(o.status, Some(c) if c != 0),
            "-A {api}: must fail\n{}",
            o.describe()
        );
        // the agreed message is rank 1's own error, not the stop of rank 0
        let msg = o.single_message(api);
        assert!(
            msg.starts_with("h5perf: rank 1: ") && msg.contains(call),
            "-A {api}: {msg}"
        );
        // rank 0 stopped at its first or second test of the beacon: at most two
        // intervals (plus HDF5's metadata), where it had 256 MiB to write
        let bound = 2 * POLL_BYTES + (64 << 10);
        assert!(
            written > 0 && written <= bound,
            "-A {api}: rank 0 wrote {written} bytes after rank 1 failed; the beacon \
             bounds it to {bound} ({} transfers of {XFER} bytes between tests)\n{}",
            POLL_BYTES / XFER,
            o.describe()
        );
    }
}
