//! The unprivileged user of the tests that run h5perf as someone other than root
//! (`h5perf-t-unpriv`, a system user without a home, made once with `useradd` and kept:
//! making it again is a no-op), a copy of h5perf every user may run, and the command
//! line prefix that runs a job as that user (`setpriv`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// The name of the unprivileged test user (unique to these tests).
pub const UNPRIV_USER: &str = "h5perf-t-unpriv";

/// An unprivileged user: its name, user id and group id.
#[derive(Debug, Clone)]
pub struct Unpriv {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

fn id_of(flag: &str) -> Option<u32> {
    let out = Command::new("id").args([flag, UNPRIV_USER]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// The unprivileged test user, made with `useradd` if it does not exist yet (the tests
/// run as root: they fail, naming the cause, if it cannot be made).
pub fn unpriv_user() -> Unpriv {
    static MADE: Mutex<()> = Mutex::new(());
    let _once = MADE.lock().unwrap_or_else(|p| p.into_inner());
    super::require_tool("useradd", "passwd");
    super::require_tool("setpriv", "util-linux");
    if id_of("-u").is_none() {
        // /etc/passwd may be locked by another useradd for a moment: retry
        let mut last = String::new();
        for _ in 0..20 {
            let out = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--home-dir",
                    "/nonexistent",
                    "--shell",
                    "/usr/sbin/nologin",
                    "--user-group",
                    UNPRIV_USER,
                ])
                .output()
                .expect("cannot run useradd");
            // 9: the user exists (made by someone else meanwhile)
            if out.status.success() || out.status.code() == Some(9) {
                break;
            }
            last = String::from_utf8_lossy(&out.stderr).into_owned();
            std::thread::sleep(Duration::from_millis(250));
        }
        assert!(
            id_of("-u").is_some(),
            "cannot make the test user {UNPRIV_USER} with useradd (these tests run as root): {last}"
        );
    }
    Unpriv {
        name: UNPRIV_USER.to_string(),
        uid: id_of("-u").expect("uid of the test user"),
        gid: id_of("-g").expect("gid of the test user"),
    }
}

/// `argv` run as `u` (`setpriv --reuid --regid --clear-groups`, the environment kept).
pub fn as_user(u: &Unpriv, argv: &[String]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "setpriv".into(),
        format!("--reuid={}", u.uid),
        format!("--regid={}", u.gid),
        "--clear-groups".into(),
        "--".into(),
    ];
    v.extend_from_slice(argv);
    v
}

/// A copy of the h5perf binary under test in `dir` (made a directory every user may
/// enter: the build directory may be inside root's home); returns its path.
pub fn public_h5perf(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let bin = dir.join("h5perf");
    std::fs::copy(super::h5perf_bin(), &bin).expect("cannot copy the h5perf binary");
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod 755");
    bin
}
