//! The run conditions that `--conditions` records (issue 29): each node's kernel,
//! memory, processors and load, the data directory's mount, and the environment
//! variables that choose or tune the MPI-IO layer. All read once, before the run and
//! outside every timer.

use std::path::Path;

/// An environment variable that stands in for a node's memory size in bytes (tests: a
/// small value makes the data outgrow the "memory" without writing gigabytes). Only the
/// recorded figure and the page-cache warning use it.
pub const NODE_MEMORY_ENV: &str = "H5PERF_NODE_MEMORY";

/// What one node is: the figures a report needs to compare runs on other machines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    /// The kernel release (`uname -r`), `unknown` when the call failed.
    pub kernel: String,
    /// Memory in bytes (`sysconf(_SC_PHYS_PAGES)` × page size, what `/proc/meminfo`'s
    /// `MemTotal` shows; [`NODE_MEMORY_ENV`] when set), 0 when unknown.
    pub memory_bytes: u64,
    /// Processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), 0 when unknown.
    pub cpus: u64,
    /// The processor model (`/proc/cpuinfo`'s first `model name`), `unknown` without.
    pub cpu_model: String,
    /// The load averages over 1, 5 and 15 minutes (`/proc/loadavg`), `unknown` without.
    pub load: String,
}

/// The field separator of [`Node::encode`] (ASCII unit separator, never in a field).
const SEP: char = '\u{1f}';

impl Node {
    /// This node, now.
    pub fn here() -> Node {
        let memory_bytes = std::env::var(NODE_MEMORY_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or_else(|| match crate::ffi::posix::physical_memory() {
                u64::MAX => 0,
                m => m,
            });
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == "model name").then(|| v.trim().to_string())
            })
            .unwrap_or_default();
        let load = read("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        Node {
            kernel: field(&crate::ffi::posix::kernel_release().unwrap_or_default()),
            memory_bytes,
            cpus: crate::ffi::posix::online_cpus().unwrap_or(0),
            cpu_model: field(&cpu_model),
            load: field(&load),
        }
    }

    /// The node as one text, for sending to another rank ([`Node::decode`]).
    pub fn encode(&self) -> String {
        format!(
            "{}{SEP}{}{SEP}{}{SEP}{}{SEP}{}",
            self.kernel, self.memory_bytes, self.cpus, self.cpu_model, self.load
        )
    }

    /// The node [`Node::encode`] made `text` of (fields missing or wrong: unknown).
    pub fn decode(text: &str) -> Node {
        let mut f = text.split(SEP);
        let mut next = || field(f.next().unwrap_or(""));
        Node {
            kernel: next(),
            memory_bytes: next().parse().unwrap_or(0),
            cpus: next().parse().unwrap_or(0),
            cpu_model: next(),
            load: next(),
        }
    }
}

/// `s` as a field of a `host=value;…` list: control characters escaped, `;` and the
/// separator of [`Node::encode`] as `,`, surrounding blanks removed, `unknown` when empty.
pub fn field(s: &str) -> String {
    let t = crate::config::values::printable(s.trim()).replace([';', SEP], ",");
    if t.is_empty() {
        "unknown".to_string()
    } else {
        t
    }
}

/// An environment variable's value as an entry of a `NAME=VALUE;…` list, reversibly:
/// control characters escaped, `%` written `%25` and `;` written `%3B` (RFC 3986's
/// percent-encoding of the two), so `HDF5_MPI_INFO=a=1;b=2` is recorded as
/// `a=1%3Bb=2` and means the same when decoded.
pub fn env_value(s: &str) -> String {
    crate::config::values::printable(s)
        .replace('%', "%25")
        .replace(';', "%3B")
}

/// The mount that holds a directory, as `/proc/self/mountinfo` tells it (proc(5)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// The mount point.
    pub point: String,
    /// The mount source (the device or the server's export, e.g. `/dev/sda1`).
    pub source: String,
    /// The file-system type (e.g. `ext4`, `nfs4`, `lustre`).
    pub fs_type: String,
    /// The device's `major:minor` as the kernel numbers it.
    pub device: String,
    /// The per-mount options (e.g. `rw,relatime`).
    pub options: String,
    /// The file system's own options (e.g. `rw,errors=remount-ro`).
    pub super_options: String,
}

/// The mount of `dir` (absolute, links resolved), from `/proc/self/mountinfo`; `None`
/// when that file cannot be read or holds no mount above `dir`.
pub fn mount_of(dir: &Path) -> Option<Mount> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mount_in(&text, dir.to_str()?)
}

/// The mount of `path` among the lines of a `mountinfo` text: the one whose mount point
/// is the longest ancestor of `path`, the last listed when one point has several (the
/// one on top), as `findmnt --target` chooses. Fields (proc(5)): ID, parent ID,
/// `major:minor`, root, mount point, options, optional fields up to `-`, type, source,
/// super options; `\040`-style octal escapes in names decoded.
pub fn mount_in(mountinfo: &str, path: &str) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let Some(dash) = f.iter().position(|w| *w == "-") else {
            continue;
        };
        if f.len() < dash + 4 || dash < 6 {
            continue;
        }
        let point = unescape(f[4]);
        let inside = point == "/"
            || path == point
            || path
                .strip_prefix(point.as_str())
                .is_some_and(|rest| rest.starts_with('/'));
        if !inside || best.as_ref().is_some_and(|b| b.point.len() > point.len()) {
            continue;
        }
        best = Some(Mount {
            point,
            source: unescape(f[dash + 2]),
            fs_type: f[dash + 1].to_string(),
            device: f[2].to_string(),
            options: f[5].to_string(),
            super_options: f[dash + 3].to_string(),
        });
    }
    best
}

/// A mountinfo name with its octal escapes (`\040` space, `\011` tab, `\012` newline,
/// `\134` backslash) decoded.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], octal) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(v).unwrap_or(b'?'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The prefixes of the environment variables that choose or tune the MPI-IO layer or
/// HDF5's use of it: Open MPI's `io` framework and OMPIO's sub-frameworks (`fs`, `fbtl`,
/// `fcoll`, `sharedfp`), ROMIO's and Cray MPICH's MPI-IO variables, HDF5's.
pub const MPI_IO_ENV_PREFIXES: [&str; 8] = [
    "OMPI_MCA_io",
    "OMPI_MCA_fs",
    "OMPI_MCA_fbtl",
    "OMPI_MCA_fcoll",
    "OMPI_MCA_sharedfp",
    "ROMIO_",
    "MPICH_MPIIO_",
    "HDF5_",
];

/// The variables of this process's environment that start with one of
/// [`MPI_IO_ENV_PREFIXES`], (name, value) sorted by name, values as [`env_value`]s.
pub fn mpi_io_env() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, val)| {
            let k = k.to_str()?.to_string();
            MPI_IO_ENV_PREFIXES
                .iter()
                .any(|p| k.starts_with(p))
                .then(|| (k, env_value(&val.to_string_lossy())))
        })
        .collect();
    v.sort();
    v
}

/// Which MPI-IO implementation ran, and how that is known:
///
/// * MPICH (and its derivatives): ROMIO, MPICH's only MPI-IO; the ADIO driver ROMIO
///   chose when the hints in effect name it (`romio_filesystem_type`);
/// * Open MPI: its `io` framework selects `ompio` (the default since Open MPI 2.0, which
///   lowers its priority on Lustre) or `romio…`; `MPI_File_get_info` does not tell
///   which (Open MPI 4.1 reports only the hints given), so the selection asked for in
///   `OMPI_MCA_io` (`mpiexec --mca io …` sets it too) decides, or the default;
/// * any other library: `unknown`.
///
/// `hints`: the hints in effect after an open, as (key, value), when read.
pub fn mpi_io_component(
    mpi_version: &str,
    io_selection: Option<&str>,
    hints: &[(String, String)],
) -> String {
    let driver = hints
        .iter()
        .find(|(k, _)| k == "romio_filesystem_type")
        .map(|(_, v)| format!(", file-system driver {}", field(v)))
        .unwrap_or_default();
    if mpi_version.contains("MPICH") {
        return format!("ROMIO (MPICH's MPI-IO{driver})");
    }
    if !mpi_version.starts_with("Open MPI") {
        return "unknown".to_string();
    }
    match io_selection.map(str::trim) {
        None | Some("") => "OMPIO (Open MPI's default io component; OMPI_MCA_io not set; \
                            Open MPI may prefer ROMIO on Lustre)"
            .to_string(),
        Some(sel) => {
            let excluded = sel.starts_with('^');
            let names: Vec<&str> = sel.trim_start_matches('^').split(',').collect();
            let romio = names.iter().any(|n| n.starts_with("romio"));
            let ompio = names.contains(&"ompio");
            let which = match (excluded, romio, ompio) {
                (false, true, false) | (true, false, true) => "ROMIO",
                (false, false, true) | (true, true, false) => "OMPIO",
                _ => "as Open MPI selects",
            };
            format!("{which} (OMPI_MCA_io={}{driver})", field(sel))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_values_keep_their_separators() {
        assert_eq!(
            env_value("cb_nodes=1;romio_cb_write=enable"),
            "cb_nodes=1%3Bromio_cb_write=enable"
        );
        assert_eq!(env_value("50%;x"), "50%25%3Bx");
        assert_eq!(env_value("a,b"), "a,b");
    }

    const INFO: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
30 22 0:25 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k
31 30 0:26 / /tmp/with\\040space rw,noatime - tmpfs none rw
32 22 0:27 / /tmpx rw master:1 propagate_from:2 - xfs /dev/sdb rw,attr2
33 30 0:28 / /tmp rw,noexec - tmpfs over rw
";

    #[test]
    fn the_mount_is_the_longest_ancestor_and_the_last_on_a_point() {
        let m = mount_in(INFO, "/home/u").unwrap();
        assert_eq!(
            (m.point.as_str(), m.source.as_str(), m.device.as_str()),
            ("/", "/dev/sda1", "8:1")
        );
        assert_eq!(m.options, "rw,relatime");
        assert_eq!(m.super_options, "rw,errors=remount-ro");
        // /tmpx is not under /tmp; the last mount on /tmp is on top
        assert_eq!(mount_in(INFO, "/tmpx/d").unwrap().fs_type, "xfs");
        let t = mount_in(INFO, "/tmp/d").unwrap();
        assert_eq!(
            (t.source.as_str(), t.options.as_str()),
            ("over", "rw,noexec")
        );
        assert_eq!(mount_in(INFO, "/tmp").unwrap().source, "over");
        let s = mount_in(INFO, "/tmp/with space/x").unwrap();
        assert_eq!(
            (s.point.as_str(), s.device.as_str()),
            ("/tmp/with space", "0:26")
        );
        assert_eq!(mount_in("garbage line\n", "/x"), None);
    }

    #[test]
    fn a_node_survives_encoding_and_fields_are_clean() {
        let n = Node {
            kernel: "6.1.0".into(),
            memory_bytes: 1 << 33,
            cpus: 4,
            cpu_model: "Xeon".into(),
            load: "0.1 0.2 0.3".into(),
        };
        assert_eq!(Node::decode(&n.encode()), n);
        assert_eq!(Node::decode("").kernel, "unknown");
        assert_eq!(field(" a;b\n "), "a,b");
        let here = Node::here();
        assert!(here.cpus >= 1 && here.memory_bytes > 0, "{here:?}");
    }

    #[test]
    fn the_component_follows_the_library_and_the_selection() {
        let h = vec![("romio_filesystem_type".to_string(), "UFS".to_string())];
        assert_eq!(
            mpi_io_component("MPICH Version: 4.0.2", None, &h),
            "ROMIO (MPICH's MPI-IO, file-system driver UFS)"
        );
        let o = "Open MPI v4.1.4";
        assert!(mpi_io_component(o, None, &[]).starts_with("OMPIO (Open MPI's default"));
        assert!(
            mpi_io_component(o, Some("romio321"), &[]).starts_with("ROMIO (OMPI_MCA_io=romio321")
        );
        assert!(mpi_io_component(o, Some("^ompio"), &[]).starts_with("ROMIO"));
        assert!(mpi_io_component(o, Some("ompio"), &[]).starts_with("OMPIO"));
        assert!(mpi_io_component(o, Some("^romio321"), &[]).starts_with("OMPIO"));
        assert_eq!(mpi_io_component("Other MPI", None, &[]), "unknown");
    }
}
