//! `strace` output read back: the system calls of each traced process, as
//! `strace -f -y -qq -s 8 -ff -o DIR/PREFIX ...` writes them (one file per process or
//! thread, `PREFIX.PID`), and [`traced`], a run of h5perf under it. Used by tests on one
//! host (storage, file_per_process, random_order) and tests/multinode.rs (the file prefix
//! names the simulated node).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::Duration;

use super::launcher::{h5perf_bin, launcher, require_tool, run_session, Outcome};
use super::scratch::scratch_dir;

/// One system call of a trace, as `strace -y -s 8` prints it.
#[derive(Debug, Clone)]
pub struct Call {
    /// `openat`, `pwrite64`, ...
    pub name: String,
    /// The file: for `openat` the path its result names, else the path of the first
    /// descriptor argument (`-y`).
    pub path: String,
    /// The arguments as printed.
    pub args: String,
    /// The whole line.
    pub line: String,
}

impl Call {
    /// `openat`'s flags (`O_RDWR|O_CREAT|...`), empty for other calls.
    pub fn open_flags(&self) -> Vec<&str> {
        if self.name != "openat" {
            return Vec::new();
        }
        // AT_FDCWD</dir>, "name", FLAGS[, MODE]
        let after_name = self.args.rsplit_once("\", ").map_or("", |(_, r)| r);
        after_name
            .split(", ")
            .next()
            .unwrap_or("")
            .split('|')
            .collect()
    }

    /// `(offset, length)` of a `pread64`/`pwrite64` (`fd, "..."..., LEN, OFFSET`).
    pub fn extent(&self) -> (u64, u64) {
        let mut it = self.args.rsplit(", ");
        let off = it.next().and_then(|s| s.trim().parse().ok());
        let len = it.next().and_then(|s| s.trim().parse().ok());
        match (off, len) {
            (Some(o), Some(l)) => (o, l),
            _ => panic!("cannot read the extent of {:?}", self.line),
        }
    }

    pub fn is_write(&self) -> bool {
        matches!(
            self.name.as_str(),
            "pwrite64" | "pwritev" | "pwritev2" | "write" | "writev" | "ftruncate" | "fallocate"
        )
    }

    pub fn is_sync(&self) -> bool {
        matches!(self.name.as_str(), "fsync" | "fdatasync")
    }
}

/// One line of `strace -y` output as a [`Call`], or `None` for signals, exits and
/// unfinished calls.
pub fn parse_call(line: &str) -> Option<Call> {
    let open = line.find('(')?;
    let name = &line[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let eq = line.rfind(") = ")?;
    let args = &line[open + 1..eq];
    let ret = line[eq + 4..].trim();
    let bracketed = |s: &str| {
        s.split_once('<')
            .and_then(|(_, r)| r.split_once('>'))
            .map(|(p, _)| p.to_string())
    };
    let path = if name == "openat" {
        bracketed(ret)?
    } else {
        bracketed(args).unwrap_or_default()
    };
    Some(Call {
        name: name.to_string(),
        path,
        args: args.to_string(),
        line: line.to_string(),
    })
}

/// The calls of each traced process (thread) of a job, in order; threads without any
/// call are left out.
pub type Traces = Vec<Vec<Call>>;

/// The calls on the file whose path ends with `/name`, of each process that made any.
pub fn on_file(traces: &Traces, name: &str) -> Vec<Vec<Call>> {
    let tail = format!("/{name}");
    traces
        .iter()
        .map(|t| {
            t.iter()
                .filter(|c| c.path.ends_with(&tail))
                .cloned()
                .collect::<Vec<_>>()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

pub type Extents = BTreeSet<(u64, u64)>;

/// The `(offset, length)` of the data-file writes and reads of each process that made
/// any.
pub fn extents(traces: &Traces, name: &str) -> Vec<(Extents, Extents)> {
    on_file(traces, name)
        .iter()
        .map(|t| {
            let of = |n: &str| t.iter().filter(|c| c.name == n).map(Call::extent).collect();
            (of("pwrite64"), of("pread64"))
        })
        .filter(|(w, r): &(Extents, Extents)| !w.is_empty() || !r.is_empty())
        .collect()
}

/// The traces in `dir`, by file name (`PREFIX.PID`); files without any call are left
/// out.
pub fn read_traces_by_file(dir: &Path) -> BTreeMap<String, Vec<Call>> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).expect("trace directory") {
        let e = e.expect("trace file");
        let text = fs::read_to_string(e.path()).unwrap_or_default();
        let calls: Vec<Call> = text.lines().filter_map(parse_call).collect();
        if !calls.is_empty() {
            out.insert(e.file_name().to_string_lossy().into_owned(), calls);
        }
    }
    out
}

/// The traces in `dir` (see [`read_traces_by_file`]).
pub fn read_traces(dir: &Path) -> Traces {
    read_traces_by_file(dir).into_values().collect()
}

/// A strace'd run is cut short after this: small runs take a few seconds under strace.
const TRACED_TIMEOUT: Duration = Duration::from_secs(120);

/// `MPIEXEC FLAGS -n NP strace -f -y -qq -s 8 -ff -o DIR/t -e trace=CALLS h5perf ARGS`
/// in `cwd`, with the launcher's environment plus `env`, cut short after 120 s. Returns
/// the outcome and the traces of every process and thread ([`read_traces`]).
pub fn traced(
    np: usize,
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &Path,
    calls: &str,
) -> (Outcome, Traces) {
    let strace = require_tool("strace", "strace");
    let tdir = scratch_dir();
    let mut argv = launcher();
    argv.extend([
        "-n".to_string(),
        np.to_string(),
        strace.to_string_lossy().into_owned(),
        "-f".into(),
        "-y".into(),
        "-qq".into(),
        "-s".into(),
        "8".into(),
        "-ff".into(),
        "-o".into(),
        tdir.path().join("t").to_string_lossy().into_owned(),
        "-e".into(),
        format!("trace={calls}"),
        h5perf_bin().to_string_lossy().into_owned(),
    ]);
    argv.extend(args.iter().map(|s| s.to_string()));
    let o = run_session(&argv, env, cwd, TRACED_TIMEOUT);
    (o, read_traces(tdir.path()))
}
