//! This process's identity and other processes' existence: the effective user ID and
//! `kill(pid, 0)`.

/// The effective user ID of this process (`geteuid`).
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether a process `pid` exists on this host (`kill(pid, 0)`: success or `EPERM` mean
/// it exists, `ESRCH` that it does not). `None` for a pid that is not a positive
/// process ID, or another error.
pub fn process_exists(pid: u32) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok().filter(|&p| p > 0)?;
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return Some(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EPERM) => Some(true),
        Some(libc::ESRCH) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes() {
        assert_eq!(process_exists(std::process::id()), Some(true));
        assert_eq!(process_exists(0), None);
        assert_eq!(process_exists(u32::MAX), None);
        // pid_max is at most 4194304 (2^22)
        assert_eq!(process_exists(4_194_305), Some(false));
        let _ = euid();
    }
}
