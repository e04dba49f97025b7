//! Small file systems mounted by a test (root only): a tmpfs of a given size, full or
//! read-only, unmounted when dropped. Without root or mount(8) the test fails (never
//! skips).

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
