//! The kernel interfaces of the storage options (`--direct`, `--drop-caches`): the direct-I/O
//! alignment of a file (`statx(2)` `STATX_DIOALIGN`, Linux 6.1, else the logical block size of its
//! block device from sysfs), the type of the file system holding it (`statfs(2)`), and the page
//! cache (`sync(2)`, and writing `3` to `/proc/sys/vm/drop_caches`,
//! Documentation/admin-guide/sysctl/vm.rst "drop_caches").

use std::ffi::CStr;
use std::io::Write as _;
use std::mem::MaybeUninit;

use super::posix::{errno, fail_at};
use crate::error::{Error, Result};

/// The file through which the page cache is dropped (`3`: page cache, dentries and
/// inodes; vm.rst "drop_caches").
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// What the kernel reports about direct I/O on a file, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectIoAlignment {
    /// `statx` answered `STATX_DIOALIGN`: the alignment of buffer addresses (`mem`) and
    /// of file offsets and lengths (`offset`); both 0 when the file does not support
    /// direct I/O (statx(2), "stx_dio_mem_align").
    Statx {
        /// `stx_dio_mem_align`, bytes.
        mem: u32,
        /// `stx_dio_offset_align`, bytes.
        offset: u32,
    },
    /// No `STATX_DIOALIGN`: the logical block size of the block device holding the file
    /// (`/sys/dev/block/MAJ:MIN/queue/logical_block_size`, or its parent's for a partition), bytes.
    LogicalBlock(u64),
    /// Neither is known (no `STATX_DIOALIGN`, no block device: a network file system).
    Unknown,
}

/// `statx(path, STATX_BASIC_STATS | STATX_DIOALIGN)`: the direct-I/O alignment of the
/// file `path` ([`DirectIoAlignment`]).
///
/// Errors: `statx` fails (the file is missing, ...), with `errno` and the path.
pub fn direct_io_alignment(path: &CStr) -> Result<DirectIoAlignment> {
    let mut st = MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: NUL-terminated path; st is a writable statx buffer.
    let rc = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            path.as_ptr(),
            0,
            libc::STATX_BASIC_STATS | libc::STATX_DIOALIGN,
            st.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(fail_at("statx", errno(), path));
    }
    // SAFETY: zero-initialised, then filled by the successful call.
    let st = unsafe { st.assume_init() };
    if st.stx_mask & libc::STATX_DIOALIGN != 0 {
        return Ok(DirectIoAlignment::Statx {
            mem: st.stx_dio_mem_align,
            offset: st.stx_dio_offset_align,
        });
    }
    let dev = format!("/sys/dev/block/{}:{}", st.stx_dev_major, st.stx_dev_minor);
    let size = [
        format!("{dev}/queue/logical_block_size"),
        format!("{dev}/../queue/logical_block_size"),
    ]
    .iter()
    .find_map(|f| std::fs::read_to_string(f).ok()?.trim().parse::<u64>().ok())
    .filter(|&n| n > 0);
    Ok(size.map_or(DirectIoAlignment::Unknown, DirectIoAlignment::LogicalBlock))
}

/// `statfs(path)`; errors with `errno` and the path.
fn statfs(path: &CStr) -> Result<libc::statfs> {
    let mut st = MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: NUL-terminated path; st is a writable statfs buffer.
    if unsafe { libc::statfs(path.as_ptr(), st.as_mut_ptr()) } != 0 {
        return Err(fail_at("statfs", errno(), path));
    }
    // SAFETY: filled by the successful call.
    Ok(unsafe { st.assume_init() })
}

/// `statfs(path)`'s `f_type`: the magic number of the file system holding `path`.
fn fs_magic(path: &CStr) -> Result<i64> {
    #[allow(clippy::useless_conversion)]
    Ok(i64::from(statfs(path)?.f_type))
}

/// `statfs(path)`: `tmpfs` or `ramfs` when the file system holding `path` keeps files
/// in the page cache only, else `None`. Errors: as [`available_bytes`].
pub fn memory_file_system(path: &CStr) -> Result<Option<&'static str>> {
    let kind = fs_magic(path)?;
    Ok(FS_NAMES
        .iter()
        .find(|(m, n)| *m == kind && matches!(*n, "tmpfs" | "ramfs"))
        .map(|(_, n)| *n))
}

/// `f_type` magic numbers of `statfs(2)` (`<linux/magic.h>`, the file systems'
/// sources) and their names, for the results' `fs_type`.
const FS_NAMES: [(i64, &str); 24] = [
    (0x0BD0_0BD0, "lustre"),
    (0x4750_4653, "gpfs"),
    (0x1916_1114, "beegfs"),
    (0x0000_6969, "nfs"),
    (0x5846_5342, "xfs"),
    (0x0000_EF53, "ext4"),
    (0x0102_1994, "tmpfs"),
    (0x8584_58f6, "ramfs"),
    (0x9123_683E, "btrfs"),
    (0x2FC1_2FC1, "zfs"),
    (0x6573_5546, "fuse"),
    (0x794C_7630, "overlayfs"),
    (0xFF53_4D42, "cifs"),
    (0xFE53_4D42, "smb2"),
    (0x0027_E0EB, "cgroup"),
    (0x6462_6720, "debugfs"),
    (0x0000_9FA0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x0000_4d44, "vfat"),
    (0x5346_544E, "ntfs"),
    (0x0000_3434, "nilfs2"),
    (0x00C3_6400, "ceph"),
    (0x0116_1970, "gfs2"),
    (0x7461_636f, "ocfs2"),
];

/// `statfs(path)`: bytes available to this user on the file system holding `path`
/// (`f_bavail × f_bsize`). Errors: `statfs` fails, with `errno` and the path.
pub fn available_bytes(path: &CStr) -> Result<u64> {
    let st = statfs(path)?;
    #[allow(clippy::useless_conversion)]
    let bsize = u64::try_from(i64::from(st.f_bsize)).unwrap_or(0);
    #[allow(clippy::useless_conversion)]
    let avail = u64::from(st.f_bavail);
    Ok(avail.saturating_mul(bsize))
}

/// `statfs(path)`: the name of the file system holding `path` (`lustre`, `xfs`, `ext4` for ext2-4,
/// …), or its magic number (`0x…`) when not in the table. Errors: as [`available_bytes`].
pub fn file_system_name(path: &CStr) -> Result<String> {
    let kind = fs_magic(path)?;
    Ok(FS_NAMES
        .iter()
        .find(|(m, _)| *m == kind)
        .map_or_else(|| format!("{kind:#x}"), |(_, n)| (*n).to_string()))
}

/// Whether this process may drop the page cache: [`DROP_CACHES`] opened for writing
/// (mode 0200: root only) and closed unwritten. Errors: the open's (`EACCES`, `EROFS`).
pub fn check_drop_caches() -> Result<()> {
    open_drop_caches().map(drop)
}

/// Drop the clean page cache, dentries and inodes (`3` to [`DROP_CACHES`]; write back
/// the files whose pages should go first: only clean pages are dropped). Errors: the open's or the write's, with the path.
pub fn drop_page_cache() -> Result<()> {
    let mut f = open_drop_caches()?;
    f.write_all(b"3").map_err(|e| io_error("write", &e))
}

fn open_drop_caches() -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)
        .map_err(|e| io_error("open", &e))
}

fn io_error(call: &'static str, e: &std::io::Error) -> Error {
    let errno = e.raw_os_error().unwrap_or(0);
    super::posix::fail_named(call, errno, DROP_CACHES.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    #[test]
    fn alignment_and_file_system_of_a_real_file() {
        let dir = std::env::temp_dir().join(format!("h5perf-dio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        std::fs::write(&f, b"x").unwrap();
        let c = CString::new(f.to_str().unwrap()).unwrap();
        match direct_io_alignment(&c).unwrap() {
            DirectIoAlignment::Statx { mem, offset } => {
                // powers of two (0 = no direct I/O)
                assert!(
                    mem.count_ones() <= 1 && offset.count_ones() <= 1,
                    "{mem} {offset}"
                );
            }
            DirectIoAlignment::LogicalBlock(n) => assert!(n.is_power_of_two(), "{n}"),
            DirectIoAlignment::Unknown => {}
        }
        let e = direct_io_alignment(&CString::new(format!("{}.missing", f.display())).unwrap())
            .unwrap_err();
        assert!(e.to_string().starts_with("statx("), "{e}");
        assert!(e.to_string().contains("No such file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        // /dev/shm is tmpfs where /proc/mounts says so; /proc is not a memory file system
        let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
        let shm_is_tmpfs = mounts.lines().any(|l| {
            l.split(' ').nth(1) == Some("/dev/shm") && l.split(' ').nth(2) == Some("tmpfs")
        });
        let shm = CString::new("/dev/shm").unwrap();
        if shm_is_tmpfs {
            assert_eq!(memory_file_system(&shm).unwrap(), Some("tmpfs"));
        }
        assert_eq!(
            memory_file_system(&CString::new("/proc").unwrap()).unwrap(),
            None
        );
        assert!(memory_file_system(&CString::new("/nonexistent-h5perf").unwrap()).is_err());
    }
}
