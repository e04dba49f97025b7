//! Drops after `MPI_Finalize` make no MPI call (issue 27, step 6): an MPI-IO file and an
//! owned communicator that outlive the MPI environment are left alone when dropped, where
//! a collective `MPI_File_close` or `MPI_Comm_free` after `MPI_Finalize` is erroneous
//! (MPI-3.1 §8.7; Open MPI aborts the process, "called after MPI_FINALIZE was invoked").
//!
//! The test runs itself once more under `mpiexec -n 1` (a process can initialise MPI only
//! once): the child opens a file on a duplicate of `MPI_COMM_WORLD`, finalises MPI, then
//! drops the file and the communicator, and exits 0; the parent checks that it did and
//! said nothing.

mod common;

use std::process::Command;

use h5perf::ffi::mpi::{mode, Comm, File, Info, Universe};

/// Set in the child's environment: run the scenario instead of launching it.
const CHILD: &str = "H5PERF_TEST_FINALIZE_CHILD";

/// The scenario, in the child: everything MPI is dropped after `MPI_Finalize`.
fn scenario(dir: &str) {
    let u = Universe::init().expect("MPI_Init");
    let world = u.world();
    let comm = Comm::dup_of(world.as_raw()).expect("MPI_Comm_dup");
    let path = std::ffi::CString::new(format!("{dir}/finalize.mpio")).unwrap();
    let f = File::open(&comm, &path, mode::CREATE_RDWR, &Info::null()).expect("MPI_File_open");
    drop(world);
    drop(u); // MPI_Finalize
    assert!(!h5perf::ffi::mpi::is_running());
    drop(f);
    drop(comm);
    println!("dropped after MPI_Finalize");
}

#[test]
fn drops_after_finalize_make_no_mpi_call() {
    if let Ok(dir) = std::env::var(CHILD) {
        scenario(&dir);
        return;
    }
    let tmp = common::scratch_dir();
    let dir = tmp.path();
    let exe = std::env::current_exe().unwrap();
    let mut argv = common::launcher();
    argv.extend(["-n".into(), "1".into()]);
    argv.extend(common::launcher_env(CHILD, &dir.to_string_lossy()));
    argv.push(exe.to_string_lossy().into_owned());
    argv.extend(
        [
            "--exact",
            "drops_after_finalize_make_no_mpi_call",
            "--nocapture",
            "--test-threads=1",
        ]
        .map(String::from),
    );
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .expect("run the launcher");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("dropped after MPI_Finalize"),
        "the child failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let said = common::filter_launcher_noise(&stderr);
    assert!(
        !said.to_lowercase().contains("finalize"),
        "the child complained about a call after MPI_Finalize:\n{stderr}"
    );
}
