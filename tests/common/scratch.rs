//! Scratch directories, removed when dropped and, whatever is left of them, when the
//! test process ends however it ends ([`remove_at_exit`]), and their listings.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// A fresh, empty scratch directory in the temporary directory (`TMPDIR`, else `/tmp`),
/// named `h5perf-test-XXXXXX`: removed when dropped, or when the test process ends
/// ([`remove_at_exit`]).
pub fn scratch_dir() -> tempfile::TempDir {
    scratch_dir_in("h5perf-test-", &std::env::temp_dir())
}

/// A fresh, empty scratch directory `PREFIXXXXXXX` in `parent` (e.g. `/dev/shm`, or
/// `CARGO_TARGET_TMPDIR` for one on disk): removed when dropped, or when the test
/// process ends ([`remove_at_exit`]).
pub fn scratch_dir_in(prefix: &str, parent: &Path) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(parent)
        .unwrap_or_else(|e| {
            panic!(
                "cannot create a scratch directory in {}: {e}",
                parent.display()
            )
        });
    remove_at_exit(dir.path());
    dir
}

/// The janitor's shell: it ignores SIGINT, SIGTERM and SIGHUP, reads one path a line
/// until end of file, then removes each (`rm -rf --one-file-system`: a file system still
/// mounted inside is left to its own supervisor, tests/common/tmpfs.rs).
const JANITOR: &str = r#"trap '' INT TERM HUP
while IFS= read -r d; do set -- "$@" "$d"; done
[ $# -eq 0 ] || rm -rf --one-file-system -- "$@" 2>/dev/null
"#;

/// Remove `path` (a scratch directory or file of this test process) when the process
/// ends, however it ends: a janitor process in a session of its own (`setsid`, so a
/// signal to the test's process group does not reach it), started on first use, is
/// given the path on its stdin, whose write end only this process holds (close-on-exec),
/// so the kernel closes it when the process ends, even by SIGTERM or SIGKILL, and the
/// janitor removes what is left. A path that was removed before (a dropped `TempDir`)
/// costs nothing. Fails the test if the janitor cannot be started.
pub fn remove_at_exit(path: &Path) {
    // the janitor (never waited for: it outlives this process) and its stdin
    static JANITOR_STDIN: OnceLock<Mutex<(Child, ChildStdin)>> = OnceLock::new();
    let stdin = JANITOR_STDIN.get_or_init(|| {
        let mut child = Command::new("setsid")
            .args(["sh", "-c", JANITOR, "h5perf-test-janitor"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start the scratch janitor (setsid, sh)");
        let stdin = child.stdin.take().expect("piped");
        Mutex::new((child, stdin))
    });
    let line = format!("{}\n", path.display());
    assert!(
        !path.to_string_lossy().contains('\n'),
        "a scratch path with a newline: {}",
        path.display()
    );
    let mut janitor = stdin.lock().unwrap_or_else(|p| p.into_inner());
    let w = &mut janitor.1;
    w.write_all(line.as_bytes())
        .and_then(|()| w.flush())
        .expect("the scratch janitor is gone");
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
