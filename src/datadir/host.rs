//! This host and process as other processes see them (host name, boot id, process start
//! time, RFC 3339 clock), for the results files and the lock ([`super::lock`]).

/// `unix_seconds` as an RFC 3339 UTC timestamp `YYYY-MM-DDTHH:MM:SSZ` (proleptic
/// Gregorian, leap seconds not counted; years after 9999 with more digits).
pub fn rfc3339_utc(unix_seconds: u64) -> String {
    let (days, secs) = (unix_seconds / 86_400, unix_seconds % 86_400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// (year, month 1-12, day 1-31) of the day `days` after 1970-01-01, by H. Hinnant's
/// `civil_from_days`, with eras of 400 years (146097 days) starting on March 1st.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let doe = z % 146_097; // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // month from March, 0..=11
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = era * 400 + yoe + u64::from(m <= 2);
    (y, m, d)
}

/// The current time in whole seconds since the Unix epoch (0 if the clock is set
/// before 1970), for [`rfc3339_utc`].
pub fn now_unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// This machine's host name, from `/proc/sys/kernel/hostname` (Linux), else
/// `/etc/hostname`, else `$HOSTNAME`, else `unknown`; surrounding blanks removed.
pub fn hostname() -> String {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The kernel's boot id (`/proc/sys/kernel/random/boot_id`, a UUID that changes at every
/// boot), or `None` where there is none.
pub fn boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// When process `pid` started, in clock ticks since boot (`starttime` of
/// `/proc/PID/stat`): with the pid and the boot id it names one process. `None` for no
/// such process, a zombie, or no `/proc`.
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid ...": comm may hold blanks and parentheses; the fields
    // after the last ')' start with field 3 (state), so starttime is the 20th of them
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    if matches!(fields.next(), Some("Z") | Some("X") | Some("x")) {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// This process's PID namespace (`/proc/self/ns/pid`, e.g. `pid:[4026531836]`): PIDs
/// name processes only within one. `None` where it cannot be read.
pub fn pid_namespace() -> Option<String> {
    std::fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// Whether `/proc` shows processes (`/proc/self/stat` is readable): if not,
/// [`process_start_ticks`] cannot tell a missing process from a missing `/proc`.
pub fn proc_available() -> bool {
    std::fs::metadata("/proc/self/stat").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        // every day of 1970..2101 follows the previous one
        let mut prev = civil_from_days(0);
        for d in 1..(131 * 366) {
            let cur = civil_from_days(d);
            let next_day = (prev.0, prev.1, prev.2 + 1);
            let next_month = (prev.0, prev.1 + 1, 1);
            let next_year = (prev.0 + 1, 1, 1);
            assert!(
                cur == next_day || cur == next_month || cur == next_year,
                "{prev:?} -> {cur:?}"
            );
            prev = cur;
        }
        assert!(now_unix_seconds() > 1_700_000_000);
    }

    #[test]
    fn this_process() {
        assert!(!hostname().is_empty());
        assert!(proc_available());
        let me = process_start_ticks(std::process::id()).expect("own start time");
        // the parent started no later than this process
        let parent = process_start_ticks(std::os::unix::process::parent_id()).unwrap();
        assert!(parent <= me, "{parent} > {me}");
        assert_eq!(process_start_ticks(u32::MAX), None);
        assert!(pid_namespace().is_some_and(|n| n.starts_with("pid:[")));
        let b = boot_id().expect("a boot id");
        assert_eq!(b.len(), 36, "{b}");
    }
}
