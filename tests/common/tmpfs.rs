//! Small file systems mounted by a test (root only): a tmpfs of a given size, full or
//! read-only, and a btrfs compressing every extent (on a loop device). Each is made and
//! taken down by a supervisor ([`Supervisor`]): a shell in a session of its own that
//! ignores SIGINT, SIGTERM and SIGHUP, mounts, then waits for end of file on its stdin,
//! whose write end only the test process holds; when the file system is dropped, or the
//! test process ends however it ends (SIGTERM, SIGKILL, a panic), the kernel closes that
//! end and the supervisor unmounts (lazily if the file system is busy), detaches the loop
//! device and removes the scratch directory. Without root, mount(8), losetup(8) or
//! mkfs.btrfs the test fails (never skips).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use super::scratch_dir;

/// The shell of a supervisor: `$SETUP` runs (stopping at the first failure), `ready`
/// and the setup's output go to stdout, then stdin is read to its end (the test reads
/// nothing more: output goes to /dev/null), then `$TEARDOWN` runs; the positional
/// parameters are the caller's.
const SUPERVISOR: &str = r#"trap '' INT TERM HUP
set -e
eval "$SETUP"
echo ready
exec >/dev/null 2>&1
set +e
cat >/dev/null
eval "$TEARDOWN"
"#;

/// A process that made a mount and takes it down when its stdin reaches end of file:
/// when dropped, or when the test process ends.
pub struct Supervisor {
    child: Child,
    stdin: Option<ChildStdin>,
    /// What the setup printed before `ready`.
    pub said: Vec<String>,
}

impl Supervisor {
    /// Run `setup` (shell commands, `$1`... the `args`), then, at end of file,
    /// `teardown`; fails the test (naming `what` and the supervisor's stderr) if the
    /// setup fails.
    pub fn start(what: &str, setup: &str, teardown: &str, args: &[&str]) -> Supervisor {
        let mut child = Command::new("setsid")
            .args(["sh", "-c", SUPERVISOR, "h5perf-test-mount"])
            .args(args)
            .env("SETUP", setup)
            .env("TEARDOWN", teardown)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start its supervisor (setsid, sh): {e}"));
        let stdin = child.stdin.take();
        let mut said = Vec::new();
        let mut ready = false;
        for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
            let Ok(line) = line else { break };
            if line == "ready" {
                ready = true;
                break;
            }
            said.push(line);
        }
        if !ready {
            let out = child.wait_with_output().expect("the supervisor's output");
            panic!(
                "{what} failed (root, mount(8), and for btrfs losetup(8) and the btrfs module \
                 are needed): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Supervisor { child, stdin, said }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        drop(self.stdin.take());
        // the teardown is a few umount/losetup calls; a stuck one is left to its own
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A tmpfs mounted on a fresh scratch directory; unmounted and the directory removed
/// when dropped or when the test process ends ([`Supervisor`]).
pub struct Tmpfs {
    /// Unmounts first, then the directory goes.
    _mount: Supervisor,
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `mount -t tmpfs -o OPTS` (e.g. `size=64k`, `ro,size=1m`); fails the test if the
    /// mount fails.
    pub fn mount(opts: &str) -> Tmpfs {
        let dir = scratch_dir();
        let path = dir.path().to_string_lossy().into_owned();
        let mount = Supervisor::start(
            &format!("mount -t tmpfs -o {opts}"),
            r#"mount -t tmpfs -o "$1" tmpfs "$2""#,
            r#"umount "$2" 2>/dev/null || umount -l "$2"; rmdir "$2""#,
            &[opts, &path],
        );
        Tmpfs { _mount: mount, dir }
    }

    /// The mount point.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The mount point as text.
    pub fn path(&self) -> String {
        self.dir.path().to_string_lossy().into_owned()
    }

    /// Fill the file system: a file `name` written until the file system has no space
    /// left (ENOSPC). Returns its size in bytes.
    pub fn fill(&self, name: &str) -> u64 {
        use std::io::Write;
        let mut f = std::fs::File::create(self.root().join(name)).expect("create the filler");
        let block = vec![0x5a_u8; 4096];
        let mut n = 0u64;
        loop {
            match f.write(&block) {
                Ok(0) => break,
                Ok(k) => n += k as u64,
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling the tmpfs failed: {e}"),
            }
        }
        n
    }
}

/// A btrfs in a sparse image file, on a loop device (`losetup -f`), mounted with
/// `OPTS` (e.g. `compress-force=zstd`); unmounted, detached and the scratch directory
/// removed when dropped or when the test process ends ([`Supervisor`]).
pub struct Btrfs {
    /// Unmounts and detaches first, then the directory goes.
    _mount: Supervisor,
    /// The scratch directory: the image `btrfs.img` and the mount point `mnt`.
    pub dir: tempfile::TempDir,
}

impl Btrfs {
    /// `mkfs.btrfs` on an image of `size` (`truncate -s`, e.g. `256M`), attached and
    /// mounted with `-o opts`; fails the test if a step fails.
    pub fn mount(size: &str, opts: &str) -> Btrfs {
        let dir = scratch_dir();
        let mkfs = super::require_tool("mkfs.btrfs", "btrfs-progs");
        let path = dir.path().to_string_lossy().into_owned();
        let mount = Supervisor::start(
            &format!("mount -t btrfs -o {opts}"),
            r#"mkdir "$1/mnt"; truncate -s "$2" "$1/btrfs.img"; "$4" -q "$1/btrfs.img"
               dev=$(losetup -f --show "$1/btrfs.img")
               mount -t btrfs -o "$3" "$dev" "$1/mnt" || { losetup -d "$dev"; exit 1; }"#,
            r#"umount "$1/mnt" 2>/dev/null || umount -l "$1/mnt"; losetup -d "$dev"; rm -rf "$1""#,
            &[&path, size, opts, &mkfs.to_string_lossy()],
        );
        Btrfs { _mount: mount, dir }
    }

    /// The mount point.
    pub fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("mnt")
    }

    /// Bytes `file` takes on disk, after its data reached the disk (`btrfs filesystem
    /// sync`): compsize's total (btrfs-compsize), compressed extents at their size.
    pub fn disk_bytes(&self, file: &Path) -> u64 {
        let btrfs = super::require_tool("btrfs", "btrfs-progs");
        let st = Command::new(btrfs)
            .args(["filesystem", "sync"])
            .arg(self.root())
            .status()
            .expect("btrfs filesystem sync");
        assert!(st.success(), "btrfs filesystem sync failed");
        let compsize = super::require_tool("compsize", "btrfs-compsize");
        let out = Command::new(compsize)
            .arg("-b")
            .arg(file)
            .output()
            .expect("compsize");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "compsize {}: {text}", file.display());
        // "TOTAL  PERC  DISK  UNCOMPRESSED  REFERENCED", in bytes with -b
        text.lines()
            .find_map(|l| l.strip_prefix("TOTAL"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("no TOTAL line from compsize: {text}"))
    }
}
