//! Simulated nodes for the multi-node tests (`tests/multinode.rs`): the Rust side of
//! `scripts/sim-nodes`.
//!
//! [`Cluster::new`] starts `scripts/sim-nodes up N` and keeps its standard input open: the
//! script creates N nodes (`node1`..`nodeN`: a network namespace each, a UTS namespace
//! per process tree entered, a private /etc/hosts and boot id (see [`mpi_over_network`]);
//! a bridge in a switch namespace; a private /24) and tears everything down when its
//! standard input closes —
//! when the cluster is finished or dropped (a failed assertion unwinds through [`Drop`]),
//! or when the test process dies, even by SIGKILL (the kernel closes the pipe). A
//! supervisor that was itself SIGKILLed leaves an orphan that the next `up` removes.
//!
//! Jobs ([`Cluster::spawn`], [`Cluster::run`], [`Cluster::mpirun`]) start the flavour's
//! launcher inside node1 (like `mpirun` on the first node of an allocation); it reaches
//! the other nodes through the cluster's launcher agent (an ssh stand-in that enters the
//! node's namespaces and, like ssh, gives a login environment: variables reach remote
//! ranks only through the launcher's own forwarding, `-x` / `-env`). Every process of a
//! job therefore lives in a node's network namespace, which is how the harness tells
//! whether anything of a job outlived it ([`NodeOutcome::survivors`]).
//!
//! Clusters of one test binary are serialised (a lock held for the cluster's lifetime):
//! on 2 cores, jobs side by side only slow each other down. Clusters of different
//! processes may coexist (unique names and subnets, chosen under a file lock by the
//! script).

use super::{
    flavour, h5perf_bin, launcher_env, manifest_dir, mpiexec, mpiexec_flags, require_tool, Flavour,
    Outcome, CLEARED_ENV, OMPI_ENV,
};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write as _};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where the script keeps its clusters (`scripts/sim-nodes`, `RUN_DIR`).
pub const RUN_DIR: &str = "/run/h5perf-sim-nodes";
/// Prefix of the script's namespace names (`h5sim-ID-nodeK`, `h5sim-ID-switch`).
pub const NS_PREFIX: &str = "h5sim-";
/// How long a job's processes may linger in the nodes after the launcher exited.
pub const SURVIVOR_GRACE: Duration = Duration::from_secs(5);

static CLUSTER_LOCK: Mutex<()> = Mutex::new(());

/// The lock that serialises the clusters of one test binary (held by every [`Cluster`]).
pub fn cluster_lock() -> MutexGuard<'static, ()> {
    CLUSTER_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether MPI messages between nodes go over the simulated network. Open MPI: always
/// (TCP BTL between nodes). MPICH: only with `H5PERF_SIM_MPICH_TCP=1`, because Debian 12's
/// UCX 1.13 (MPICH's ch4:ucx transport) hangs now and then in `MPI_Finalize` over TCP
/// (endpoints flushed towards a peer that already stopped progressing, openucx/ucx#8738,
/// seen here also on one host with `UCX_TLS=self,tcp`); by default the nodes then keep the
/// machine's boot id, UCX sees one machine, and moves messages through shared memory
/// (launch, PMI and host names stay per node).
pub fn mpi_over_network() -> bool {
    match flavour() {
        Flavour::OpenMpi => true,
        Flavour::Mpich => std::env::var("H5PERF_SIM_MPICH_TCP").as_deref() == Ok("1"),
    }
}

/// The script.
pub fn sim_nodes_script() -> PathBuf {
    manifest_dir().join("scripts/sim-nodes")
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// Inode of a namespace file (`/run/netns/NAME`, `/proc/PID/ns/net`).
fn ns_inode(path: &Path) -> Option<u64> {
    fs::metadata(path).ok().map(|m| m.ino())
}

/// Every live process as (pid, command name, network namespace inode).
fn processes_with_netns() -> Vec<(i32, String, u64)> {
    let mut v = Vec::new();
    let Ok(rd) = fs::read_dir("/proc") else {
        return v;
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(link) = fs::read_link(format!("/proc/{pid}/ns/net")) else {
            continue;
        };
        // "net:[4026532178]"
        let l = link.to_string_lossy();
        let Some(ino) = l
            .strip_prefix("net:[")
            .and_then(|s| s.strip_suffix(']'))
            .and_then(|s| s.parse::<u64>().ok())
        else {
            continue;
        };
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // zombies are gone as far as their namespace is concerned
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        if state == Some("Z") {
            continue;
        }
        let comm = fs::read_to_string(format!("/proc/{pid}/comm"))
            .unwrap_or_default()
            .trim()
            .to_string();
        v.push((pid, comm, ino));
    }
    v
}

fn kill_pid(pid: i32, sig: &str) {
    let _ = Command::new("kill")
        .args(["-s", sig, &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./,:+@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A process found in a node: its host, pid and command name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeProcess {
    pub host: String,
    pub pid: i32,
    pub comm: String,
}

/// What a cluster job gives back: the launcher's outcome and the processes that were
/// still in the nodes [`SURVIVOR_GRACE`] after the launcher exited (killed since).
#[derive(Debug)]
pub struct NodeOutcome {
    pub outcome: Outcome,
    pub survivors: Vec<NodeProcess>,
}

impl std::ops::Deref for NodeOutcome {
    type Target = Outcome;
    fn deref(&self) -> &Outcome {
        &self.outcome
    }
}

impl NodeOutcome {
    /// Fails (with the run) when anything of the job outlived the launcher.
    pub fn assert_no_survivors(&self, what: &str) {
        assert!(
            self.survivors.is_empty(),
            "{what}: processes left on the nodes after the launcher exited: {:?}\n{}",
            self.survivors,
            self.describe()
        );
    }
}

/// A set of simulated nodes (see the module documentation).
pub struct Cluster {
    pub id: String,
    pub dir: PathBuf,
    /// `node1`..`nodeN`.
    pub hosts: Vec<String>,
    /// Each node's network namespace, in host order.
    pub netns: Vec<String>,
    pub switch: String,
    /// `a.b.c.0/24`.
    pub subnet: String,
    /// The nodes' interface (the same name on every node).
    pub iface: String,
    /// The launcher agent (`DIR/agent HOST WORDS...`).
    pub agent: PathBuf,
    /// Network namespace inodes: nodes in host order, then the switch.
    ns_inodes: Vec<u64>,
    supervisor: Option<Child>,
    stdin: Option<ChildStdin>,
    stderr_file: tempfile::NamedTempFile,
    finished: bool,
    _lock: MutexGuard<'static, ()>,
}

/// Leftovers of a torn-down cluster, one description each (empty: all gone).
pub fn leftovers(id: &str, subnet: &str, ns_inodes: &[u64]) -> Vec<String> {
    let mut left = Vec::new();
    let prefix = format!("{NS_PREFIX}{id}-");
    if let Ok(rd) = fs::read_dir("/run/netns") {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(&prefix) {
                left.push(format!("network namespace {n} (ip netns list)"));
            }
        }
    }
    let dir = Path::new(RUN_DIR).join(id);
    if dir.exists() {
        left.push(format!(
            "cluster directory {} (hosts file, agent)",
            dir.display()
        ));
    }
    for (pid, comm, ino) in processes_with_netns() {
        if ns_inodes.contains(&ino) {
            left.push(format!(
                "process {pid} ({comm}) in one of the cluster's namespaces"
            ));
        }
    }
    // The bridge and veths were made inside the cluster's namespaces; none may show up
    // in the machine's own.
    if let Ok(rd) = fs::read_dir("/sys/class/net") {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n == format!("br-{id}")
                || n == format!("sim-{id}")
                || n.starts_with(&format!("p-{id}-"))
            {
                left.push(format!("interface {n} in the machine's network namespace"));
            }
        }
    }
    // Mounts (a network file system's clients) are made in the nodes' mount namespaces
    // only; none may show up in the machine's, and no process anywhere may still name the
    // cluster's directory (a daemon that left the nodes' namespaces).
    let dir_s = dir.to_string_lossy().into_owned();
    for l in fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
    {
        if l.split_whitespace()
            .nth(4)
            .is_some_and(|m| m.starts_with(&dir_s))
        {
            left.push(format!("mount in the machine's namespace: {l}"));
        }
    }
    if let Ok(rd) = fs::read_dir("/proc") {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.parse::<i32>().is_err() || name == std::process::id().to_string() {
                continue;
            }
            let cmd = fs::read(e.path().join("cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(&format!("{dir_s}/")) {
                left.push(format!(
                    "process {name} naming the cluster directory: {cmd}"
                ));
            }
        }
    }
    let net = subnet.trim_end_matches("0/24");
    if !net.is_empty() {
        let hosts = fs::read_to_string("/etc/hosts").unwrap_or_default();
        for l in hosts.lines() {
            if l.trim_start().starts_with(net) {
                left.push(format!("/etc/hosts entry {l:?}"));
            }
        }
    }
    left
}

impl Cluster {
    /// Creates `n` nodes (1-8). Fails the test (never skips) when the tools or root
    /// rights are missing.
    pub fn new(n: usize) -> Cluster {
        Cluster::create(n, false)
    }

    /// Creates `n` nodes (1-8), each with a mount namespace that lasts as long as the
    /// node (`sim-nodes up N --mount-ns`: one holder process per node, `sleep`, in the
    /// node's network namespace): what is mounted on a node stays there for every later
    /// process of that node, and only there.
    pub fn with_mount_ns(n: usize) -> Cluster {
        Cluster::create(n, true)
    }

    fn create(n: usize, mount_ns: bool) -> Cluster {
        assert!(
            is_root(),
            "the multi-node tests need root (network namespaces); run them as root (CI does)"
        );
        require_tool("ip", "iproute2");
        for t in ["unshare", "flock", "mount"] {
            require_tool(t, "util-linux");
        }
        let script = sim_nodes_script();
        assert!(script.is_file(), "{} missing", script.display());
        let lock = cluster_lock();
        let stderr_file = tempfile::Builder::new()
            .prefix("h5perf-sim-nodes-")
            .tempfile()
            .expect("temporary file for sim-nodes' stderr");
        let mut up = vec!["up".to_string(), n.to_string()];
        if !mpi_over_network() {
            up.push("--shared-boot-id".into());
        }
        if mount_ns {
            up.push("--mount-ns".into());
        }
        let mut child = Command::new(&script)
            .args(&up)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                stderr_file.reopen().expect("reopen sim-nodes stderr file"),
            ))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {} up {n}: {e}", script.display()));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("sim-nodes stdout");
        // The first line names the cluster; read it with a deadline.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(|l| l.ok());
            let _ = tx.send(first);
            for _ in lines {} // keep the pipe drained until the script ends
        });
        let line = rx.recv_timeout(Duration::from_secs(60)).ok().flatten();
        let stderr_text = || fs::read_to_string(stderr_file.path()).unwrap_or_default();
        let Some(dir) = line
            .as_deref()
            .and_then(|l| l.strip_prefix("SIM_NODES_DIR="))
            .map(PathBuf::from)
        else {
            drop(stdin);
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "sim-nodes {} failed: first line {line:?}\n--- its stderr ---\n{}",
                up.join(" "),
                stderr_text()
            );
        };
        let env_text = fs::read_to_string(dir.join("env"))
            .unwrap_or_else(|e| panic!("{}/env: {e}\n{}", dir.display(), stderr_text()));
        let get = |k: &str| -> String {
            env_text
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .map(|v| v.trim_matches('"').to_string())
                .unwrap_or_else(|| panic!("{k} missing from {}/env:\n{env_text}", dir.display()))
        };
        let hosts: Vec<String> = get("SIM_NODES_HOSTS")
            .split_whitespace()
            .map(String::from)
            .collect();
        let netns: Vec<String> = get("SIM_NODES_NETNS")
            .split_whitespace()
            .map(String::from)
            .collect();
        let switch = get("SIM_NODES_SWITCH");
        let mut ns_inodes = Vec::new();
        for ns in netns.iter().chain(std::iter::once(&switch)) {
            ns_inodes.push(
                ns_inode(&Path::new("/run/netns").join(ns))
                    .unwrap_or_else(|| panic!("namespace {ns} of the new cluster is missing")),
            );
        }
        assert_eq!(hosts.len(), n, "hosts of the new cluster: {hosts:?}");
        Cluster {
            id: get("SIM_NODES_ID"),
            hosts,
            netns,
            switch,
            subnet: get("SIM_NODES_SUBNET"),
            iface: get("SIM_NODES_IFACE"),
            agent: PathBuf::from(get("SIM_NODES_AGENT")),
            dir,
            ns_inodes,
            supervisor: Some(child),
            stdin,
            stderr_file,
            finished: false,
            _lock: lock,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.hosts.len()
    }

    /// The processes now in the nodes (host, pid, command name).
    pub fn node_processes(&self) -> Vec<NodeProcess> {
        processes_with_netns()
            .into_iter()
            .filter_map(|(pid, comm, ino)| {
                let k = self.ns_inodes[..self.hosts.len()]
                    .iter()
                    .position(|&i| i == ino)?;
                Some(NodeProcess {
                    host: self.hosts[k].clone(),
                    pid,
                    comm,
                })
            })
            .collect()
    }

    /// Received and sent bytes of each node's interface, in host order.
    pub fn traffic(&self) -> Vec<(u64, u64)> {
        let o = Command::new(sim_nodes_script())
            .arg("traffic")
            .arg(&self.dir)
            .output()
            .expect("sim-nodes traffic");
        assert!(
            o.status.success(),
            "sim-nodes traffic: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        self.hosts
            .iter()
            .map(|h| {
                let l = text
                    .lines()
                    .find(|l| l.split_whitespace().next() == Some(h.as_str()))
                    .unwrap_or_else(|| panic!("no traffic line for {h}: {text}"));
                let f: Vec<u64> = l
                    .split_whitespace()
                    .skip(1)
                    .filter_map(|x| x.parse().ok())
                    .collect();
                assert_eq!(f.len(), 2, "traffic line {l:?}");
                (f[0], f[1])
            })
            .collect()
    }

    /// `sim-nodes exec DIR HOST` followed by `cmd`: runs `cmd` on `host` (argv form).
    pub fn on_node(&self, host: &str, cmd: &[&str]) -> Vec<String> {
        let mut v = vec![
            sim_nodes_script().to_string_lossy().into_owned(),
            "exec".into(),
            self.dir.to_string_lossy().into_owned(),
            host.into(),
        ];
        v.extend(cmd.iter().map(|s| s.to_string()));
        v
    }

    /// The launcher's command line up to the program, run on node1: the flavour's
    /// launcher and flags, the host list (`ranks_per_node[k]` ranks on node k+1, nodes with
    /// none left out), the agent, the network restrictions (Open MPI: yielding when idle
    /// too), `-n`, and each `env` variable forwarded to every rank (`-x K=V` / `-env K V`).
    pub fn launcher_argv(&self, ranks_per_node: &[usize], env: &[(&str, &str)]) -> Vec<String> {
        assert!(
            ranks_per_node.len() <= self.hosts.len(),
            "{} nodes asked for, the cluster has {}",
            ranks_per_node.len(),
            self.hosts.len()
        );
        let np: usize = ranks_per_node.iter().sum();
        assert!(np > 0, "a job needs ranks");
        let hostlist = ranks_per_node
            .iter()
            .zip(&self.hosts)
            .filter(|(r, _)| **r > 0)
            .map(|(r, h)| format!("{h}:{r}"))
            .collect::<Vec<_>>()
            .join(",");
        let agent = self.agent.to_string_lossy().into_owned();
        let mpiexec = mpiexec().to_string_lossy().into_owned();
        let mut v = self.on_node(&self.hosts[0], &[&mpiexec]);
        v.extend(mpiexec_flags());
        match flavour() {
            Flavour::OpenMpi => {
                for (k, val) in [
                    ("plm_rsh_agent", agent.as_str()),
                    ("btl", "tcp,self,vader"),
                    ("oob_tcp_if_include", self.subnet.as_str()),
                    ("btl_tcp_if_include", self.subnet.as_str()),
                    // Each node's slots look free to Open MPI, so its ranks would poll
                    // without yielding, while all nodes share the machine's cores (2 in
                    // CI): 5x slower jobs (23 s instead of 4.6 s for layout_verify_2x2).
                    ("mpi_yield_when_idle", "1"),
                ] {
                    v.extend(["--mca".to_string(), k.to_string(), val.to_string()]);
                }
                v.extend(["--host".to_string(), hostlist]);
            }
            Flavour::Mpich => {
                v.extend([
                    "-launcher".to_string(),
                    "ssh".to_string(),
                    "-launcher-exec".to_string(),
                    agent,
                    "-hosts".to_string(),
                    hostlist,
                ]);
            }
        }
        v.extend(["-n".to_string(), np.to_string()]);
        for (k, val) in env {
            v.extend(launcher_env(k, val));
        }
        v
    }

    /// Starts `program args` over the nodes (see [`Cluster::launcher_argv`]) in `cwd`, in a
    /// session of its own, output captured in files.
    pub fn spawn(
        &self,
        ranks_per_node: &[usize],
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
    ) -> Job {
        let mut argv = self.launcher_argv(ranks_per_node, env);
        argv.push(program.to_string());
        argv.extend(args.iter().map(|s| s.to_string()));
        let mut cmdline = format!("cd {} && ", quote(&cwd.to_string_lossy()));
        for (k, v) in OMPI_ENV.iter().chain(env.iter()) {
            let _ = write!(cmdline, "{}={} ", k, quote(v));
        }
        cmdline.push_str(&argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "));
        let capture = tempfile::Builder::new()
            .prefix("h5perf-capture-")
            .tempdir()
            .expect("capture directory");
        let out = fs::File::create(capture.path().join("stdout")).expect("stdout capture");
        let err = fs::File::create(capture.path().join("stderr")).expect("stderr capture");
        let mut cmd = Command::new("setsid");
        cmd.args(&argv)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        for k in CLEARED_ENV {
            cmd.env_remove(k);
        }
        for (k, v) in OMPI_ENV.iter().chain(env.iter()) {
            cmd.env(k, v);
        }
        let start = Instant::now();
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{cmdline}`: {e}"));
        Job {
            child,
            capture,
            start,
            cmdline,
        }
    }

    /// Runs `program args` over the nodes and waits for it (hard timeout: the job is
    /// killed and the test fails with the command line).
    pub fn run(
        &self,
        ranks_per_node: &[usize],
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
        timeout: Duration,
    ) -> NodeOutcome {
        self.spawn(ranks_per_node, program, args, env, cwd)
            .wait(self, timeout)
    }

    /// Runs h5perf over the nodes (timeout 120 s).
    pub fn mpirun(
        &self,
        ranks_per_node: &[usize],
        args: &[&str],
        env: &[(&str, &str)],
        cwd: &Path,
    ) -> NodeOutcome {
        let bin = h5perf_bin();
        assert!(bin.is_file(), "h5perf binary missing: {}", bin.display());
        self.run(
            ranks_per_node,
            &bin.to_string_lossy(),
            args,
            env,
            cwd,
            Duration::from_secs(120),
        )
    }

    /// SIGKILLs every process in the nodes; returns them.
    pub fn kill_node_processes(&self) -> Vec<NodeProcess> {
        let mut all = Vec::new();
        for _round in 0..20 {
            let p = self.node_processes();
            if p.is_empty() {
                break;
            }
            for x in &p {
                kill_pid(x.pid, "KILL");
            }
            all.extend(p);
            std::thread::sleep(Duration::from_millis(50));
        }
        all
    }

    /// Tears the cluster down (the supervisor's stdin closes, it tears down and exits) and
    /// returns what is left of it (nothing, normally) plus notes on the way.
    fn teardown(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.flush();
        }
        if let Some(mut child) = self.supervisor.take() {
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut status = None;
            while Instant::now() < deadline {
                if let Ok(Some(s)) = child.try_wait() {
                    status = Some(s);
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            match status {
                Some(s) if s.success() => {}
                Some(s) => notes.push(format!("sim-nodes up exited with {s}")),
                None => {
                    notes.push(
                        "sim-nodes up did not exit within 60 s of its stdin closing; SIGTERM"
                            .into(),
                    );
                    kill_pid(child.id() as i32, "TERM");
                    let d = Instant::now() + Duration::from_secs(30);
                    while Instant::now() < d {
                        if let Ok(Some(_)) = child.try_wait() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
        let mut left = leftovers(&self.id, &self.subnet, &self.ns_inodes);
        if !left.is_empty() {
            // Last resort: the script's own teardown, run directly.
            let o = Command::new(sim_nodes_script())
                .arg("down")
                .arg(&self.dir)
                .output();
            notes.push(format!(
                "leftovers after the supervisor: {left:?}; ran sim-nodes down: {o:?}"
            ));
            left = leftovers(&self.id, &self.subnet, &self.ns_inodes);
        }
        let err = fs::read_to_string(self.stderr_file.path()).unwrap_or_default();
        if !err.trim().is_empty() {
            notes.push(format!("sim-nodes stderr:\n{err}"));
        }
        self.finished = true;
        left.extend(notes.into_iter().map(|n| format!("note: {n}")));
        left
    }

    /// Tears the cluster down and fails the test unless nothing of it remains: no
    /// namespace, directory (hosts file, agent), process, interface or /etc/hosts entry.
    pub fn finish(mut self) {
        let left = self.teardown();
        let real: Vec<&String> = left.iter().filter(|l| !l.starts_with("note: ")).collect();
        assert!(
            real.is_empty(),
            "cluster {} left things behind: {left:#?}",
            self.id
        );
        // Notes alone (e.g. the supervisor's exit status) are shown but do not fail.
        if !left.is_empty() {
            eprintln!("cluster {}: {left:#?}", self.id);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let left = self.teardown();
        let real = left.iter().any(|l| !l.starts_with("note: "));
        if std::thread::panicking() {
            if !left.is_empty() {
                eprintln!("cluster {} (torn down after a failure): {left:#?}", self.id);
            }
        } else if real {
            panic!("cluster {} left things behind: {left:#?}", self.id);
        }
    }
}

/// A job started by [`Cluster::spawn`].
pub struct Job {
    child: Child,
    capture: tempfile::TempDir,
    pub start: Instant,
    pub cmdline: String,
}

impl Job {
    /// The launcher's pid (= its session id).
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// stdout so far.
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&fs::read(self.capture.path().join("stdout")).unwrap_or_default())
            .into_owned()
    }

    /// Whether the launcher has exited (without reaping it).
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the launcher (hard `timeout`: SIGTERM, 3 s, then every process in the
    /// nodes is SIGKILLed and the test fails), then for the job's processes to leave the
    /// nodes (up to [`SURVIVOR_GRACE`]); those still there are killed and reported.
    pub fn wait(mut self, cluster: &Cluster, timeout: Duration) -> NodeOutcome {
        let mut timed_out = false;
        let mut hung = String::new();
        let status = loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                break st;
            }
            if self.start.elapsed() > timeout {
                timed_out = true;
                hung = where_they_wait(cluster);
                kill_pid(self.pid(), "TERM");
                let grace = Instant::now();
                let mut st = None;
                while grace.elapsed() < Duration::from_secs(3) {
                    if let Ok(Some(s)) = self.child.try_wait() {
                        st = Some(s);
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                cluster.kill_node_processes();
                break match st {
                    Some(s) => s,
                    None => self.child.wait().expect("wait after kill"),
                };
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let elapsed = self.start.elapsed();
        let exited = Instant::now();
        let mut survivors = cluster.node_processes();
        while !survivors.is_empty() && exited.elapsed() < SURVIVOR_GRACE {
            std::thread::sleep(Duration::from_millis(50));
            survivors = cluster.node_processes();
        }
        if !survivors.is_empty() {
            cluster.kill_node_processes();
        }
        let read = |n: &str| {
            String::from_utf8_lossy(&fs::read(self.capture.path().join(n)).unwrap_or_default())
                .into_owned()
        };
        let outcome = Outcome {
            stdout: read("stdout"),
            stderr: read("stderr"),
            status: status.code(),
            elapsed,
            cmdline: self.cmdline.clone(),
        };
        if timed_out {
            panic!(
                "TIMEOUT: the job did not finish within {timeout:?} and was killed\n{}\n\
                 where the job's processes waited when the time was up:\n{hung}",
                outcome.describe()
            );
        }
        NodeOutcome { outcome, survivors }
    }
}

/// Where each process of the nodes waits, for a timed-out job's failure message: host,
/// PID, name, state, kernel wait channel and the system call it is in
/// (`/proc/PID/stat`, `wchan`, `syscall`; `proc_pid_syscall(5)`), one line each.
fn where_they_wait(cluster: &Cluster) -> String {
    let read = |pid: i32, f: &str| {
        fs::read_to_string(format!("/proc/{pid}/{f}"))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    cluster
        .node_processes()
        .iter()
        .map(|p| {
            let stat = read(p.pid, "stat");
            let state = stat
                .rsplit(") ")
                .next()
                .unwrap_or("")
                .split(' ')
                .next()
                .unwrap_or("");
            let syscall = read(p.pid, "syscall");
            format!(
                "  {} {} {} state {state} wchan {} syscall {}\n",
                p.host,
                p.pid,
                p.comm,
                read(p.pid, "wchan"),
                syscall.split(' ').next().unwrap_or("")
            )
        })
        .collect()
}
