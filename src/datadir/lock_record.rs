//! The lock file's record ([`Holder`], with its run's files, [`Claim`]), whether its
//! process still runs, and the names a dead run may have left.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::host;
use super::run_env::dir_or_current;
use crate::error::path_text;
use crate::ffi::process;

/// The first line of a lock file.
const FORMAT: &str = "h5perf-lock 1";
/// A leftover was modified no earlier than this many seconds before its run started
/// (slack for the clocks of other nodes writing to a shared file system).
const MTIME_SLACK_S: i64 = 60;

/// The files a run makes in its data directory: what a run that takes over its stale
/// lock looks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    /// Data files: for each suffix (`.posix`, `.mpio`, `.h5`), the number `F` of files
    /// `#pio_tmp_1<suffix>` .. `#pio_tmp_F<suffix>`.
    pub data: Vec<(String, u64)>,
    /// Other file names (the `--fill-behaviour` scratch files).
    pub scratch: Vec<String>,
    /// `--file-per-process`: the ranks `R` of the largest step; the data files are then
    /// `#pio_tmp_<f>-<r><suffix>` for `r` in `0..R` instead of the shared names (0: the
    /// shared names).
    pub ranks: u64,
    /// The run keeps its files (`HDF5_NOCLEANUP`, `--read-only`): never removed as
    /// leftovers.
    pub keep: bool,
    /// `--subfiling`: beside each data file `NAME` the subfiling driver's configuration
    /// file `NAME.subfile_INODE.config` and subfiles `NAME.subfile_INODE_K_of_N`
    /// (H5subfiling_common.c) are the run's too.
    pub subfiling: bool,
}

impl Claim {
    /// Whether `name` (a file name in the data directory) is one of the claimed files.
    pub fn covers(&self, name: &[u8]) -> bool {
        if self.scratch.iter().any(|s| s.as_bytes() == name) {
            return true;
        }
        if let Some(data) = self.subfiling.then(|| subfile_of(name)).flatten() {
            return self.covers_data(data);
        }
        self.covers_data(name)
    }

    /// Whether `name` is one of the claimed data files.
    fn covers_data(&self, name: &[u8]) -> bool {
        let Some(rest) = name.strip_prefix(b"#pio_tmp_") else {
            return false;
        };
        let Some((n, rest)) = number(rest) else {
            return false;
        };
        let suffix = if self.ranks == 0 {
            rest
        } else {
            // --file-per-process: `-<rank>` follows the file's number
            let Some(after) = rest.strip_prefix(b"-") else {
                return false;
            };
            match number(after) {
                Some((r, suffix)) if r < self.ranks => suffix,
                _ => return false,
            }
        };
        self.data
            .iter()
            .any(|(s, count)| s.as_bytes() == suffix && n >= 1 && n <= *count)
    }
}

/// The data file's name when `name` is one of its subfiling driver's files,
/// `DATA.subfile_INODE.config` or `DATA.subfile_INODE_K_of_N` (decimal numbers; K may
/// have leading zeros, as the driver pads it to N's width).
fn subfile_of(name: &[u8]) -> Option<&[u8]> {
    const MARK: &[u8] = b".subfile_";
    let at = name.windows(MARK.len()).rposition(|w| w == MARK)?;
    let (data, rest) = (&name[..at], &name[at + MARK.len()..]);
    let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
    let n = digits(rest);
    if n == 0 {
        return None;
    }
    let rest = &rest[n..];
    if rest == b".config" {
        return Some(data);
    }
    let rest = rest.strip_prefix(b"_")?;
    let k = digits(rest);
    let rest = rest[k..].strip_prefix(b"_of_")?;
    let of = digits(rest);
    (k > 0 && of > 0 && of == rest.len()).then_some(data)
}

/// The decimal number at the start of `s` (no leading zero unless it is `0`, at most 19
/// digits) and the bytes after it.
fn number(s: &[u8]) -> Option<(u64, &[u8])> {
    let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || (s[0] == b'0' && digits > 1) || digits > 19 {
        return None;
    }
    let (num, rest) = s.split_at(digits);
    let n = std::str::from_utf8(num).ok()?.parse().ok()?;
    Some((n, rest))
}

/// The process that holds (or held) a lock, with its claim: the lock file's contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Host name ([`host::hostname`]).
    pub host: String,
    /// Kernel boot id of that host (`-` if unknown).
    pub boot_id: String,
    /// Process ID.
    pub pid: u32,
    /// The PID namespace the PID is in ([`host::pid_namespace`]; `-` if unknown): a
    /// container with the same host name cannot see the holder's processes.
    pub pid_ns: String,
    /// Process start, clock ticks since boot ([`host::process_start_ticks`]); `None` if
    /// unknown.
    pub start_ticks: Option<u64>,
    /// Process start, seconds since the Unix epoch.
    pub started: u64,
    /// Effective user ID.
    pub uid: u32,
    /// The files of the run.
    pub claim: Claim,
}

impl Holder {
    /// This process, making the files of `claim`.
    pub fn this_process(claim: Claim) -> Holder {
        let pid = std::process::id();
        Holder {
            host: host::hostname(),
            boot_id: host::boot_id().unwrap_or_else(|| "-".to_string()),
            pid,
            pid_ns: host::pid_namespace().unwrap_or_else(|| "-".to_string()),
            start_ticks: host::process_start_ticks(pid),
            started: host::now_unix_seconds(),
            uid: process::euid(),
            claim,
        }
    }

    /// The lock file's text: `h5perf-lock 1`, then one `key value` line each.
    pub fn render(&self) -> String {
        let mut s = format!(
            "{FORMAT}\nhost {}\nboot_id {}\npid {}\npid_ns {}\nstart_ticks {}\nstarted {}\nuid {}\nkeep {}\n",
            self.host,
            self.boot_id,
            self.pid,
            self.pid_ns,
            self.start_ticks
                .map_or_else(|| "-".to_string(), |t| t.to_string()),
            self.started,
            self.uid,
            u8::from(self.claim.keep)
        );
        for (suffix, count) in &self.claim.data {
            s.push_str(&format!("data {suffix} {count}\n"));
        }
        for name in &self.claim.scratch {
            s.push_str(&format!("scratch {name}\n"));
        }
        if self.claim.ranks > 0 {
            s.push_str(&format!("ranks {}\n", self.claim.ranks));
        }
        if self.claim.subfiling {
            s.push_str("subfiling 1\n");
        }
        s
    }

    /// Parse a lock file's text; `None` if it is not one (a missing `pid_ns` is unknown).
    pub fn parse(text: &str) -> Option<Holder> {
        let mut lines = text.lines();
        if lines.next()? != FORMAT {
            return None;
        }
        let (mut host, mut boot_id, mut pid, mut ticks, mut started, mut uid) =
            (None, None, None, None, None, None);
        let mut claim = Claim::default();
        let mut pid_ns = "-".to_string();
        for line in lines {
            let (key, value) = line.split_once(' ')?;
            match key {
                "host" => host = Some(value.to_string()),
                "boot_id" => boot_id = Some(value.to_string()),
                "pid" => pid = Some(value.parse().ok()?),
                "pid_ns" => pid_ns = value.to_string(),
                "start_ticks" if value == "-" => ticks = Some(None),
                "start_ticks" => ticks = Some(Some(value.parse().ok()?)),
                "started" => started = Some(value.parse().ok()?),
                "uid" => uid = Some(value.parse().ok()?),
                "keep" => claim.keep = value == "1",
                "data" => {
                    let (suffix, count) = value.split_once(' ')?;
                    claim.data.push((suffix.to_string(), count.parse().ok()?));
                }
                "scratch" => claim.scratch.push(value.to_string()),
                "ranks" => claim.ranks = value.parse().ok()?,
                "subfiling" => claim.subfiling = value == "1",
                _ => {}
            }
        }
        Some(Holder {
            host: host.filter(|h| !h.is_empty())?,
            boot_id: boot_id?,
            pid: pid?,
            pid_ns,
            start_ticks: ticks?,
            started: started?,
            uid: uid?,
            claim,
        })
    }

    /// `host H, PID P, started T` for messages (T in RFC 3339, UTC).
    pub fn describe(&self) -> String {
        let (host, pid, started) = (&self.host, self.pid, host::rfc3339_utc(self.started));
        format!("host {host}, PID {pid}, started {started}")
    }

    /// What this process can tell about the holder: [`UNKNOWN`] (another host or PID
    /// namespace), [`GONE`] (no such process, or the host restarted) or [`ALIVE`].
    pub fn seen_from_here(&self) -> u64 {
        if host::hostname() != self.host {
            return UNKNOWN;
        }
        if let Some(b) = host::boot_id() {
            if self.boot_id != "-" && b != self.boot_id {
                return GONE;
            }
        }
        if let Some(ns) = host::pid_namespace() {
            if self.pid_ns != "-" && ns != self.pid_ns {
                return UNKNOWN;
            }
        }
        let alive = match (self.start_ticks, host::proc_available()) {
            (Some(t), true) => host::process_start_ticks(self.pid) == Some(t),
            _ => process::process_exists(self.pid) != Some(false),
        };
        if alive {
            ALIVE
        } else {
            GONE
        }
    }
}

/// [`Holder::seen_from_here`]: not on this host.
pub const UNKNOWN: u64 = 0;
/// [`Holder::seen_from_here`]: the process is gone.
pub const GONE: u64 = 1;
/// [`Holder::seen_from_here`]: the process runs.
pub const ALIVE: u64 = 2;

/// The data directory for messages: canonical, else as given (`.` for the current one).
pub fn shown(dir: &Path) -> String {
    let here = dir_or_current(dir);
    path_text(
        fs::canonicalize(here)
            .as_deref()
            .unwrap_or(here)
            .as_os_str(),
    )
}

/// The names in `dir` that `claim` covers, sorted.
pub fn claimed_names(dir: &Path, claim: &Claim) -> std::io::Result<Vec<OsString>> {
    let mut names: Vec<OsString> = fs::read_dir(dir_or_current(dir))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| claim.covers(n.as_bytes()))
        .collect();
    names.sort();
    Ok(names)
}

/// Whether the file `m` is one the run of `stale` left: a regular file of its user,
/// modified since it started (less `MTIME_SLACK_S`).
pub fn left_by(m: &fs::Metadata, stale: &Holder) -> bool {
    let since = i64::try_from(stale.started).unwrap_or(i64::MAX) - MTIME_SLACK_S;
    m.file_type().is_file() && m.uid() == stale.uid && m.mtime() >= since
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim() -> Claim {
        Claim {
            data: vec![(".posix".into(), 3), (".h5".into(), 1)],
            scratch: vec!["#h5perf_fill_serial.h5".into()],
            keep: false,
            ranks: 0,
            subfiling: false,
        }
    }

    #[test]
    fn claims_of_subfiling() {
        let c = Claim {
            subfiling: true,
            ..claim()
        };
        for yes in [
            "#pio_tmp_1.h5",
            "#pio_tmp_1.h5.subfile_1234.config",
            "#pio_tmp_1.h5.subfile_1234_1_of_1",
            "#pio_tmp_1.h5.subfile_1234_03_of_12",
            "#pio_tmp_3.posix.subfile_7_1_of_2",
        ] {
            assert!(c.covers(yes.as_bytes()), "{yes}");
        }
        for no in [
            "#pio_tmp_2.h5.subfile_1234.config",
            "#pio_tmp_1.h5.subfile_.config",
            "#pio_tmp_1.h5.subfile_1234.config.x",
            "#pio_tmp_1.h5.subfile_1234_1_of_",
            "#pio_tmp_1.h5.subfile_1234_of_2",
            "#pio_tmp_1.h5.subfile_x_1_of_1",
            "#h5perf_fill_serial.h5.subfile_1.config",
        ] {
            assert!(!c.covers(no.as_bytes()), "{no}");
        }
        // without the option the driver's names are not the run's
        assert!(!claim().covers(b"#pio_tmp_1.h5.subfile_1234.config"));
        let h = Holder::this_process(c);
        assert!(h.render().ends_with("\nsubfiling 1\n"), "{}", h.render());
        assert_eq!(Holder::parse(&h.render()), Some(h.clone()));
        assert!(!Holder::this_process(claim()).render().contains("subfiling"));
    }

    #[test]
    fn claims_of_files_per_process() {
        let c = Claim {
            ranks: 3,
            ..claim()
        };
        for yes in [
            "#pio_tmp_1-0.posix",
            "#pio_tmp_3-2.posix",
            "#pio_tmp_1-1.h5",
        ] {
            assert!(c.covers(yes.as_bytes()), "{yes}");
        }
        for no in [
            "#pio_tmp_1.posix",
            "#pio_tmp_1-3.posix",
            "#pio_tmp_1-01.posix",
            "#pio_tmp_4-0.posix",
            "#pio_tmp_1-.posix",
            "#pio_tmp_1-0.mpio",
        ] {
            assert!(!c.covers(no.as_bytes()), "{no}");
        }
        let h = Holder::this_process(c);
        assert_eq!(Holder::parse(&h.render()), Some(h.clone()));
    }

    #[test]
    fn claims() {
        let c = claim();
        for yes in [
            "#pio_tmp_1.posix",
            "#pio_tmp_3.posix",
            "#pio_tmp_1.h5",
            "#h5perf_fill_serial.h5",
        ] {
            assert!(c.covers(yes.as_bytes()), "{yes}");
        }
        for no in [
            "#pio_tmp_4.posix",
            "#pio_tmp_0.posix",
            "#pio_tmp_01.posix",
            "#pio_tmp_2.h5",
            "#pio_tmp_1.mpio",
            "#pio_tmp_1.posix.x",
            "#pio_tmp_.posix",
            "#pio_tmp_99999999999999999999.posix",
            "pio_tmp_1.posix",
            "#h5perf.lock",
        ] {
            assert!(!c.covers(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn records_round_trip() {
        let mut h = Holder::this_process(claim());
        assert_eq!(Holder::parse(&h.render()), Some(h.clone()));
        h.start_ticks = None;
        h.claim.keep = true;
        h.claim.data.clear();
        assert_eq!(Holder::parse(&h.render()), Some(h.clone()));
        assert!(h
            .describe()
            .starts_with(&format!("host {}, PID {}, started 20", h.host, h.pid)));
        for bad in [
            "",
            "h5perf-lock 2\nhost a\n",
            "h5perf-lock 1\nhost a\nboot_id -\npid x\nstart_ticks 1\nstarted 1\nuid 0\n",
            "h5perf-lock 1\nboot_id -\npid 1\nstart_ticks 1\nstarted 1\nuid 0\n",
            "something else entirely",
        ] {
            assert_eq!(Holder::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn liveness() {
        let me = Holder::this_process(Claim::default());
        assert_eq!(me.seen_from_here(), ALIVE);
        let mut other = me.clone();
        other.host = format!("{}-elsewhere", me.host);
        assert_eq!(other.seen_from_here(), UNKNOWN);
        let mut reused = me.clone();
        reused.start_ticks = me.start_ticks.map(|t| t + 1);
        assert_eq!(reused.seen_from_here(), GONE);
        let mut rebooted = me.clone();
        rebooted.boot_id = "00000000-0000-0000-0000-000000000000".into();
        assert_eq!(rebooted.seen_from_here(), GONE);
        let mut contained = me.clone();
        contained.pid_ns = "pid:[1]".into();
        assert_eq!(contained.seen_from_here(), UNKNOWN);
        let mut gone = me;
        gone.pid = 4_194_305;
        assert_eq!(gone.seen_from_here(), GONE);
    }
}
