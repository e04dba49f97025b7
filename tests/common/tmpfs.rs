//! Small file systems mounted by a test (root only): a tmpfs of a given size, full or
//! read-only, and a btrfs compressing every extent (on a loop device), unmounted (and
//! detached) when dropped. Without root, mount(8), losetup(8) or mkfs.btrfs the test
//! fails (never skips).

use std::path::Path;
use std::process::Command;

use super::scratch_dir;

/// A tmpfs mounted by the test on a fresh scratch directory; unmounted on drop.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `mount -t tmpfs -o OPTS` (e.g. `size=64k`, `ro,size=1m`); fails the test if the
    /// mount fails.
    pub fn mount(opts: &str) -> Tmpfs {
        let dir = scratch_dir();
        let st = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("mount(8) is needed for the file-system tests");
        assert!(
            st.success(),
            "mount -t tmpfs -o {opts} failed: these tests need root"
        );
        Tmpfs { dir }
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

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A btrfs in a sparse image file, on a loop device (`losetup -f`), mounted with
/// `OPTS` (e.g. `compress-force=zstd`); unmounted, detached and removed on drop.
pub struct Btrfs {
    /// The scratch directory: the image `btrfs.img` and the mount point `mnt`.
    pub dir: tempfile::TempDir,
    dev: String,
}

impl Btrfs {
    /// `mkfs.btrfs` on an image of `size` (`truncate -s`, e.g. `256M`), attached and
    /// mounted with `-o opts`; fails the test if a step fails.
    pub fn mount(size: &str, opts: &str) -> Btrfs {
        let dir = scratch_dir();
        let img = dir.path().join("btrfs.img");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).expect("the mount point");
        let ok = |c: &mut Command, what: &str| {
            let out = c
                .output()
                .unwrap_or_else(|e| panic!("{what}: {e} (btrfs-progs, util-linux)"));
            assert!(
                out.status.success(),
                "{what} failed (root and the btrfs module are needed): {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        ok(
            Command::new("truncate").args(["-s", size]).arg(&img),
            "truncate",
        );
        let mkfs = super::require_tool("mkfs.btrfs", "btrfs-progs");
        ok(Command::new(mkfs).arg("-q").arg(&img), "mkfs.btrfs");
        let dev = ok(
            Command::new("losetup").args(["-f", "--show"]).arg(&img),
            "losetup -f",
        );
        let fs = Btrfs { dir, dev };
        ok(
            Command::new("mount")
                .args(["-t", "btrfs", "-o", opts, &fs.dev])
                .arg(&mnt),
            "mount -t btrfs",
        );
        fs
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

impl Drop for Btrfs {
    fn drop(&mut self) {
        let mnt = self.root();
        let unmounted = Command::new("umount").arg(&mnt).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            let _ = Command::new("umount").arg("-l").arg(&mnt).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}
