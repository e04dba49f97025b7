//! Slurm on the simulated nodes (issue 34): h5perf submitted as sites submit it, through
//! `srun` and `sbatch`, not a bare `mpiexec`.
//!
//! One test, [`slurm_on_glusterfs_and_the_local_disk`], makes one cluster of three nodes
//! (`tests/common/nodes.rs`, `scripts/sim-nodes`), brought up once for every case (CI
//! time), and starts Slurm in it (`scripts/sim-slurm up`: munge with a generated key, `slurmctld` on
//! node1, `slurmd` on every node, partition `sim`; proctrack/linuxproc, task/none). Clients
//! run on node1 with `SLURM_CONF` naming the cluster's configuration. Ranks are started by
//! the Slurm step daemons through the MPI plugin of the flavour: `srun --mpi=pmix` for
//! Open MPI (its PMIx client), `srun --mpi=pmi2` for MPICH (its built-in PMI client speaks
//! the PMI-2 wire protocol that Slurm's `mpi_pmi2` serves, so no hydra is needed inside
//! the allocation). The cluster ends with [`Cluster::finish`]: no namespace, process
//! (daemons included: they live in the nodes' network namespaces), directory (the Slurm
//! state, spool, key and socket are in the cluster's directory) or interface is left; and
//! the test checks that nothing of Slurm's landed in `/tmp` (PMIx's per-step directories
//! go to each node's private TmpFS).
//!
//! The cluster has a lasting mount namespace per node ([`Cluster::with_mount_ns`]) and a
//! volume with a brick on every node, FUSE-mounted at one path on each (`scripts/sim-gluster
//! up`), before Slurm starts; the jobs on the volume run in a directory of it each, the
//! others on the local disk.

mod common;

use common::nodes::*;
use common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);

/// srun's `--mpi` plugin for the flavour.
fn mpi_plugin() -> &'static str {
    match flavour() {
        Flavour::OpenMpi => "pmix",
        Flavour::Mpich => "pmi2",
    }
}

/// Slurm up in a cluster: its configuration and the daemons' pids.
struct Slurm {
    conf: PathBuf,
    daemons: Vec<i32>,
}

/// Names in /tmp that Slurm or PMIx could leave (`spmix_appdir_*`, `slurm*`, `pmix*`).
fn slurm_tmp_entries() -> Vec<String> {
    dir_entries(Path::new("/tmp"))
        .into_iter()
        .filter(|n| n.starts_with("spmix") || n.starts_with("slurm") || n.starts_with("pmix"))
        .collect()
}

fn slurm_up(c: &Cluster) -> Slurm {
    require_tool("slurmctld", "slurmctld");
    require_tool("slurmd", "slurmd");
    require_tool("srun", "slurm-client");
    require_tool("munged", "munge");
    let script = manifest_dir().join("scripts/sim-slurm");
    let dir = c.dir.to_string_lossy().into_owned();
    // not through run_session, which ends whatever of its session outlives the command:
    // the daemons are meant to (sim-slurm gives up by itself after 60 s)
    let o = std::process::Command::new(&script)
        .args(["up", &dir])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "sim-slurm up failed ({}): {stdout}\n{stderr}",
        o.status
    );
    let conf = stdout
        .lines()
        .find_map(|l| l.strip_prefix("SLURM_CONF="))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no SLURM_CONF= line: {stdout}\n{stderr}"));
    let procs = c.node_processes();
    let names: Vec<&str> = procs.iter().map(|p| p.comm.as_str()).collect();
    for d in ["munged", "slurmctld", "slurmd"] {
        assert!(
            names.contains(&d),
            "{d} is not running in the nodes: {procs:?}"
        );
    }
    assert_eq!(
        procs.iter().filter(|p| p.comm == "slurmd").count(),
        c.len(),
        "one slurmd per node: {procs:?}"
    );
    Slurm {
        conf,
        daemons: procs.iter().map(|p| p.pid).collect(),
    }
}

impl Slurm {
    /// The environment of a client on a node: the configuration, and for Open MPI's ranks
    /// the cluster's network (TCP between the nodes, on its subnet; yielding when idle, as
    /// `Cluster::launcher_argv` does).
    fn env<'a>(&'a self, c: &'a Cluster) -> Vec<(&'a str, String)> {
        let mut v = vec![("SLURM_CONF", self.conf.to_string_lossy().into_owned())];
        if flavour() == Flavour::OpenMpi {
            v.extend([
                ("OMPI_MCA_btl", "tcp,self,vader".to_string()),
                ("OMPI_MCA_btl_tcp_if_include", c.subnet.clone()),
                ("OMPI_MCA_mpi_yield_when_idle", "1".to_string()),
            ]);
        }
        v
    }

    /// Runs `argv` on node1 in `cwd` (hard timeout).
    fn run(&self, c: &Cluster, argv: &[&str], extra: &[(&str, &str)], cwd: &Path) -> Outcome {
        let env = self.env(c);
        let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        all.extend_from_slice(extra);
        run_session(&c.on_node("node1", argv), &all, cwd, TIMEOUT)
    }

    /// Waits up to [`SURVIVOR_GRACE`] for every process of the jobs (anything in the
    /// nodes but the daemons and, when `busy` names one, the processes of that job, which
    /// still runs: see [`of_job`]) to end; fails the test naming any that outlived them.
    fn assert_no_job_processes(&self, c: &Cluster, what: &str, busy: Option<u64>) {
        let job = || -> Vec<NodeProcess> {
            c.node_processes()
                .into_iter()
                .filter(|p| !self.daemons.contains(&p.pid) && p.comm != "slurmscriptd")
                .filter(|p| busy.is_none_or(|id| !of_job(p.pid, id)))
                .collect()
        };
        let t = std::time::Instant::now();
        let mut left = job();
        while !left.is_empty() && t.elapsed() < SURVIVOR_GRACE {
            std::thread::sleep(Duration::from_millis(50));
            left = job();
        }
        assert!(
            left.is_empty(),
            "{what}: processes of the job left in the nodes: {left:?}"
        );
    }

    /// `scontrol show job` of the job named `name`: its id and its state.
    fn job(&self, c: &Cluster, name: &str, cwd: &Path) -> (u64, String) {
        let o = self.run(c, &["scontrol", "-o", "show", "job"], &[], cwd);
        assert!(o.success(), "scontrol\n{}", o.describe());
        let line = o
            .stdout
            .lines()
            .find(|l| l.contains(&format!(" JobName={name} ")))
            .unwrap_or_else(|| panic!("no job named {name}\n{}", o.describe()));
        let field = |k: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{k}=")))
                .unwrap_or_else(|| panic!("no {k} in {line}"))
                .to_string()
        };
        (field("JobId").parse().unwrap(), field("JobState"))
    }
}

/// Whether process `pid` belongs to Slurm job `id`: a step daemon of it (command line
/// `slurmstepd: [ID.STEP]`) or a process of its tasks or batch script (`SLURM_JOB_ID=ID`
/// in its environment). A process gone meanwhile belongs to none.
fn of_job(pid: i32, id: u64) -> bool {
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    if String::from_utf8_lossy(&cmdline).starts_with(&format!("slurmstepd: [{id}.")) {
        return true;
    }
    let env = fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let want = format!("SLURM_JOB_ID={id}");
    env.split(|&b| b == 0).any(|v| v == want.as_bytes())
}

fn json(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

/// A job of [`slurm_on_glusterfs_and_the_local_disk`], in `dir` on the local disk while
/// job `busy` (the batch job) runs:
///
/// `srun -w node[1-2] -N 2 -n 4` (2 tasks per node) runs h5perf, all three APIs, `-D v`,
/// `--reorder`: it succeeds, its ranks are on node1 and node2 (two each), and the results
/// name the Slurm job (`scontrol`'s id and name, the node list compressed as Slurm gives
/// it, the step's tasks per node) in the JSON, every CSV row and the page.
///
fn srun_on_two_nodes_names_the_job(c: &Cluster, s: &Slurm, dir: &Path, busy: Option<u64>) {
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let mpi = format!("--mpi={}", mpi_plugin());
    let o = s.run(
        c,
        &[
            "srun",
            &mpi,
            "-w",
            "node[1-2]",
            "-N",
            "2",
            "-n",
            "4",
            "--ntasks-per-node=2",
            "-J",
            "h5perf-srun",
            &bin,
            "-A",
            "posix,mpiio,phdf5",
            "-e",
            "256K",
            "-x",
            "64K",
            "-X",
            "64K",
            "-B",
            "64K",
            "-p",
            "4",
            "-P",
            "4",
            "-D",
            "v",
            "--reorder",
            "--json",
            "r.json",
            "--csv",
            "r.csv",
            "--html",
            "r.html",
        ],
        &[],
        dir,
    );
    assert!(o.success(), "srun h5perf\n{}", o.describe());
    s.assert_no_job_processes(c, "srun h5perf", busy);
    assert!(
        o.stdout.contains("Read reorder="),
        "the parameter block names --reorder\n{}",
        o.describe()
    );
    let (id, state) = s.job(c, "h5perf-srun", dir);
    assert_eq!(state, "COMPLETED");
    let j = json(&dir.join("r.json"));
    assert_eq!(j["complete"], true);
    assert_eq!(j["hostname_count"], 2);
    assert_eq!(
        j["hosts"],
        serde_json::json!([{"name": "node1", "ranks": 2}, {"name": "node2", "ranks": 2}])
    );
    assert_eq!(j["slurm_job_id"], id.to_string());
    assert_eq!(j["slurm_job_name"], "h5perf-srun");
    assert_eq!(j["slurm_job_nodelist"], "node[1-2]");
    assert_eq!(j["slurm_tasks_per_node"], "2(x2)");
    assert_eq!(j["records"].as_array().unwrap().len(), 3 * 6);
    for r in j["records"].as_array().unwrap() {
        assert_eq!(r["slurm_job_id"], id.to_string());
        assert_eq!(r["reorder"], "node");
    }
    let rows = parse_csv(&fs::read_to_string(dir.join("r.csv")).unwrap());
    let (idc, nlc) = (
        col(&rows[0], "slurm_job_id"),
        col(&rows[0], "slurm_job_nodelist"),
    );
    assert_eq!(rows.len(), 1 + 3 * 6);
    for row in &rows[1..] {
        assert_eq!(row[idc], id.to_string());
        assert_eq!(row[nlc], "node[1-2]");
    }
    let page = fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(page.contains(&format!("<tr><th>Slurm job</th><td>{id}</td></tr>")));
    assert!(page.contains("<tr><th>Slurm node list</th><td>node[1-2]</td></tr>"));
    assert!(pio_tmp_files(dir).is_empty(), "data files left");
}

/// A job of [`slurm_on_glusterfs_and_the_local_disk`], in `dir` on the local disk while
/// job `busy` (the batch job) runs: `srun -N 3 -n 6` (three nodes, 2 tasks each) runs
/// h5perf, all three APIs, `-D v`, `--reorder`, `--drop-caches`, every task under
/// `strace --seccomp-bpf` (only the traced calls stop the process): the results name the
/// three hosts and the job, and `--drop-caches` runs once per node: on each node exactly
/// one process opens `/proc/sys/vm/drop_caches` and writes `3` once per read phase (one
/// per API), no process calls `sync(2)` (it hung under srun on a loaded machine) and
/// every rank `fsync`s the data files instead.
fn srun_on_three_nodes_drops_caches_once_per_node(
    c: &Cluster,
    s: &Slurm,
    dir: &Path,
    busy: Option<u64>,
) {
    let strace = require_tool("strace", "strace");
    let traces = scratch_dir();
    let tdir = traces.path().to_string_lossy().into_owned();
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let mpi = format!("--mpi={}", mpi_plugin());
    let script = format!(
        "exec {} --seccomp-bpf -f -y -qq -s 8 -ff -o \"$0/$(hostname).t\" \
         -e trace=openat,write,fsync,sync \"$@\"",
        strace.display()
    );
    let o = s.run(
        c,
        &[
            "srun",
            &mpi,
            "-N",
            "3",
            "-n",
            "6",
            "--ntasks-per-node=2",
            "-J",
            "h5perf-three",
            "/bin/sh",
            "-c",
            &script,
            &tdir,
            &bin,
            "-A",
            "posix,mpiio,phdf5",
            "-e",
            "96K",
            "-x",
            "16K",
            "-X",
            "16K",
            "-B",
            "16K",
            "-p",
            "6",
            "-P",
            "6",
            "-D",
            "v",
            "--reorder",
            "--drop-caches",
            "--json",
            "r3.json",
        ],
        &[],
        dir,
    );
    assert!(
        o.success(),
        "srun -N 3 h5perf --drop-caches\n{}",
        o.describe()
    );
    s.assert_no_job_processes(c, "srun -N 3 h5perf --drop-caches", busy);
    assert!(
        o.stdout.contains("rank 0: Drop caches=on"),
        "{}",
        o.describe()
    );
    let (id, state) = s.job(c, "h5perf-three", dir);
    assert_eq!(state, "COMPLETED");
    let j = json(&dir.join("r3.json"));
    assert_eq!(j["complete"], true);
    assert_eq!(
        j["hosts"],
        serde_json::json!([
            {"name": "node1", "ranks": 2},
            {"name": "node2", "ranks": 2},
            {"name": "node3", "ranks": 2}
        ])
    );
    assert_eq!(j["slurm_job_id"], id.to_string());
    assert_eq!(j["slurm_job_nodelist"], "node[1-3]");
    assert_eq!(j["slurm_tasks_per_node"], "2(x3)");
    assert_eq!(j["records"].as_array().unwrap().len(), 3 * 6);
    assert!(pio_tmp_files(dir).is_empty(), "data files left");
    // the traces, by node (file names HOST.t.PID: one per process or thread)
    let by_file = read_traces_by_file(traces.path());
    let syncs: Vec<&str> = by_file
        .values()
        .flat_map(|calls| calls.iter().filter(|c| c.name == "sync"))
        .map(|c| c.line.as_str())
        .collect();
    assert!(syncs.is_empty(), "sync(2) called: {syncs:?}");
    let fsyncers = by_file
        .values()
        .filter(|calls| {
            calls
                .iter()
                .any(|c| c.name == "fsync" && c.path.contains("#pio_tmp_1."))
        })
        .count();
    assert!(
        fsyncers >= 6,
        "{fsyncers} processes wrote the data files back (6 ranks)"
    );
    let mut droppers: Vec<(String, usize)> = Vec::new();
    for (file, calls) in &by_file {
        if calls.iter().any(|c| c.path == "/proc/sys/vm/drop_caches") {
            let host = file.split(".t.").next().unwrap_or("").to_string();
            let n = calls
                .iter()
                .filter(|c| c.name == "write" && c.path == "/proc/sys/vm/drop_caches")
                .inspect(|c| assert!(c.args.ends_with(", \"3\", 1"), "wrote {}", c.line))
                .count();
            droppers.push((host, n));
        }
    }
    droppers.sort();
    assert_eq!(
        droppers,
        [
            ("node1".to_string(), 3),
            ("node2".to_string(), 3),
            ("node3".to_string(), 3)
        ],
        "per node: the one process touching drop_caches and its writes of \"3\" (one per API)"
    );
}

/// Whether the batch job runs into its time limit: with Open MPI; with MPICH it ends by
/// itself. Slurm ends a job at its limit only 60-90 s after its start (one minute is its
/// smallest limit, and slurmctld checks limits every 30 s), 95 s into the test whatever
/// else it does: CI time allows that once, and the path (Slurm's SIGTERM and SIGKILL,
/// h5perf's handler and reaper) is the same with either flavour.
fn batch_job_is_limited() -> bool {
    flavour() == Flavour::OpenMpi
}

/// The batch job of [`slurm_on_glusterfs_and_the_local_disk`]: the README's batch script
/// (scripts/h5perf.sbatch) submitted from `work` on node1, two tasks, `DATA_DIR` `data`,
/// every rank sleeping 1 s in each data write (tests/slow_shim.c: the ranks asleep rather
/// than spinning, so the jobs run beside it are not slowed), 4 steps of 2 (32 KiB) or 1
/// (64 KiB) writes per iteration: when [`batch_job_is_limited`], `sbatch --time=1`
/// (Slurm's smallest limit, one minute) for a run of about 2 minutes (`-i 20`: steps of
/// 40 or 20 s); else `--time=5` for a run of about 24 s (`-i 4`), long enough for
/// [`second_job_is_refused_by_the_lock`]. Returns the job id.
///
/// One node: over two, the rank on node2 failed now and then (2 of 3 MPICH runs) in
/// `open` of the data file with `ESTALE`, the name having been removed and re-created by
/// node1's client in the iteration before (README "GlusterFS on the simulated nodes").
fn submit_batch_job(c: &Cluster, s: &Slurm, data: &Path, work: &Path) -> u64 {
    let shim = slow_shim(work);
    let script = manifest_dir().join("scripts/h5perf.sbatch");
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let data_dir = data.to_string_lossy().into_owned();
    let (time, iterations) = if batch_job_is_limited() {
        ("--time=1", "20")
    } else {
        ("--time=5", "4")
    };
    let args = format!("-A posix -e 64K -x 32K -X 64K -B 32K -p 1 -P 2 -i {iterations}");
    let o = s.run(
        c,
        &[
            "sbatch",
            time,
            "--nodes=1",
            "--nodelist=node1",
            "--ntasks-per-node=2",
            &script.to_string_lossy(),
        ],
        &[
            ("DATA_DIR", &data_dir),
            ("H5PERF", &bin),
            ("H5PERF_ARGS", &args),
            ("SRUN_MPI", mpi_plugin()),
            ("LD_PRELOAD", &shim),
            ("H5PERF_TEST_SLOW_RANK", "*"),
            ("H5PERF_TEST_SLOW_MS", "1000"),
        ],
        work,
    );
    assert!(o.success(), "sbatch\n{}", o.describe());
    o.stdout
        .lines()
        .find_map(|l| l.strip_prefix("Submitted batch job "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no job id\n{}", o.describe()))
}

/// While the batch job runs: a second job in its data directory `data` (on the volume,
/// `sub` below each brick), from node3 (`srun -w node3`, whose GlusterFS client never
/// looked the lock up before), is refused by the lock of the first job (whose
/// rank 0 is on node1), before any I/O, and leaves that lock alone.
fn second_job_is_refused_by_the_lock(c: &Cluster, s: &Slurm, data: &Path, sub: &str, work: &Path) {
    let locks = || -> Vec<(String, String, u64)> {
        brick_files(c, sub)
            .into_iter()
            .filter(|f| f.1 == "#h5perf.lock" && f.2 > 0)
            .collect()
    };
    let start = std::time::Instant::now();
    while locks().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no lock in DATA_DIR after 60 s: {:?}",
            brick_files(c, sub)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let mpi = format!("--mpi={}", mpi_plugin());
    let data_dir = data.to_string_lossy().into_owned();
    let second = s.run(
        c,
        &[
            "srun",
            &mpi,
            "-w",
            "node3",
            "-N",
            "1",
            "-n",
            "1",
            "-J",
            "h5perf-second",
            &bin,
            "-A",
            "posix",
            "-e",
            "32K",
            "-x",
            "32K",
            "-X",
            "32K",
            "-B",
            "32K",
            "-p",
            "1",
            "-P",
            "1",
        ],
        &[("HDF5_PARAPREFIX", &data_dir)],
        work,
    );
    let err = second.stderr_clean();
    assert!(
        second.status != Some(0)
            && err.contains("#h5perf.lock")
            && err.contains("host node1")
            && !second.stdout.contains("IO API"),
        "the second job must be refused by the lock\n{}",
        second.describe()
    );
    assert!(!locks().is_empty(), "the first job's lock is gone");
    eprintln!("second job from node3: {}", err.trim());
}

/// The end of the batch job `id`. When [`batch_job_is_limited`], Slurm ends it at its
/// limit (state TIMEOUT; slurmctld checks limits every 30 s, so 60-90 s in), with SIGTERM
/// and, KillWait (3 s) later, SIGKILL: the results files in `work` are whole (the JSON
/// and CSV parse) with `complete: false`, at least the first step (40 s) and not every
/// step. Else it ends by itself (COMPLETED), every step in the results, `complete: true`.
/// Either way the results name the job and its time limit; no data file or lock is left
/// in its data directory (`sub` in every brick), nor any process of the job in the nodes.
fn batch_job_ends_with_whole_results(c: &Cluster, s: &Slurm, id: u64, sub: &str, work: &Path) {
    // the job's state once a second (sbatch --wait polls at growing intervals, up to
    // 20 s later): hard limit 200 s, about twice the expected 65-95 s (or 25 s)
    let start = std::time::Instant::now();
    let state = loop {
        let (_, st) = s.job(c, "h5perf-contract", work);
        if !["PENDING", "CONFIGURING", "RUNNING", "COMPLETING"].contains(&st.as_str()) {
            break st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(200),
            "job {id} still {st} after 200 s"
        );
        std::thread::sleep(Duration::from_secs(1));
    };
    let limited = batch_job_is_limited();
    s.assert_no_job_processes(c, "the batch job at its end", None);
    let (jid, _) = s.job(c, "h5perf-contract", work);
    let out = fs::read_to_string(work.join(format!("h5perf-{id}.out"))).unwrap();
    let want = if limited { "TIMEOUT" } else { "COMPLETED" };
    assert_eq!(
        (jid, state.as_str()),
        (id, want),
        "after {:?}; the job's output:\n{out}",
        start.elapsed()
    );
    assert_eq!(
        out.contains("DUE TO TIME LIMIT"),
        limited,
        "the job's output: {out}"
    );
    eprintln!("sbatch job {id}: its output:\n{out}");
    let j = json(&work.join(format!("h5perf-{id}.json")));
    assert_eq!(j["complete"], !limited);
    assert_eq!(j["slurm_job_id"], id.to_string());
    assert_eq!(j["slurm_job_name"], "h5perf-contract");
    assert_eq!(j["slurm_time_limit"], if limited { "1:00" } else { "5:00" });
    let records = j["records"].as_array().unwrap();
    // 6 phases per step; at the limit the first step (2 processes, 32 KiB) finished,
    // not all 4 steps
    if limited {
        assert!(
            records.len() >= 6 && records.len() < 4 * 6,
            "{} records",
            records.len()
        );
    } else {
        assert_eq!(records.len(), 4 * 6);
    }
    assert_eq!(records[0]["nprocs"], 2);
    let rows = parse_csv(&fs::read_to_string(work.join(format!("h5perf-{id}.csv"))).unwrap());
    assert_eq!(rows.len(), 1 + records.len());
    let left: Vec<_> = brick_files(c, sub)
        .into_iter()
        .filter(|f| f.1.starts_with("#pio_tmp") || f.1.starts_with("#h5perf.lock"))
        .collect();
    assert!(left.is_empty(), "left in DATA_DIR on the volume: {left:?}");
}

/// Open MPI's shared-file-pointer components without `lockedfile` (see
/// [`srun_on_three_nodes_reads_cross_the_network`]; MPICH ignores the variable).
const SHAREDFP: (&str, &str) = ("OMPI_MCA_sharedfp", "^lockedfile");

/// GlusterFS up in a cluster made with [`Cluster::with_mount_ns`] (`scripts/sim-gluster
/// up`): the mount point, the same path on every node, where each node has its own FUSE
/// client.
fn gluster_up(c: &Cluster) -> PathBuf {
    require_tool("glusterd", "glusterfs-server");
    require_tool("mount.glusterfs", "glusterfs-client");
    let script = manifest_dir().join("scripts/sim-gluster");
    let dir = c.dir.to_string_lossy().into_owned();
    let t = std::time::Instant::now();
    let o = std::process::Command::new(&script)
        .args(["up", &dir])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "sim-gluster up failed ({}): {stdout}\n{stderr}",
        o.status
    );
    eprintln!("GlusterFS up in {:?}", t.elapsed());
    let mnt = stdout
        .lines()
        .find_map(|l| l.strip_prefix("GLUSTER_MOUNT="))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no GLUSTER_MOUNT= line: {stdout}\n{stderr}"));
    let procs = c.node_processes();
    for h in &c.hosts {
        for d in ["glusterd", "glusterfsd", "glusterfs"] {
            assert!(
                procs.iter().any(|p| &p.host == h && p.comm == d),
                "no {d} on {h}: {procs:?}"
            );
        }
    }
    // the volume is mounted in the nodes, not in the machine
    let m = mnt.to_string_lossy().into_owned();
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mountinfo.lines().any(|l| l.contains(&m)),
        "the volume is mounted in the machine's namespace"
    );
    for h in &c.hosts {
        let o = run_session(
            &c.on_node(h, &["findmnt", "-n", "-o", "FSTYPE,SOURCE", &m]),
            &[],
            Path::new("/"),
            TIMEOUT,
        );
        assert_eq!(
            o.stdout.trim(),
            "fuse.glusterfs node1:/h5v",
            "{h}\n{}",
            o.describe()
        );
    }
    mnt
}

/// The entries of the machine's own GlusterFS directories (state, run, logs): the nodes'
/// glusterd use directories of their own bound over these, so the machine's must not
/// change.
fn machine_gluster_entries() -> Vec<(String, Vec<String>)> {
    ["/var/lib/glusterd", "/run/gluster", "/var/log/glusterfs"]
        .iter()
        .map(|d| (d.to_string(), dir_entries(Path::new(d))))
        .collect()
}

/// The `#pio_tmp*` and `#h5perf.lock*` files in directory `sub` of each brick
/// (`DIR/gluster/bricks/HOST/SUB`): (host, name, size). A name can show on two bricks: its
/// data on one, an empty DHT link file on the one its name hashes to.
fn brick_files(c: &Cluster, sub: &str) -> Vec<(String, String, u64)> {
    let mut v = Vec::new();
    for h in &c.hosts {
        let b = c.dir.join("gluster/bricks").join(h).join(sub);
        for n in dir_entries(&b) {
            if n.starts_with("#pio_tmp") || n.starts_with("#h5perf.lock") {
                let len = fs::metadata(b.join(&n)).map(|m| m.len()).unwrap_or(0);
                v.push((h.clone(), n, len));
            }
        }
    }
    v
}

/// The first job of [`slurm_on_glusterfs_and_the_local_disk`], alone on the cluster:
/// `srun -N 3 -n 6` (2 tasks per node) runs h5perf in directory `sub` of the volume
/// `mnt`, all three APIs, `-D v`, `--reorder` (each node's ranks read the next node's
/// data), the data files kept (`HDF5_NOCLEANUP=1`) so that the brick holding each one is
/// known: each node's interface received at least what its ranks read of the files on
/// the other nodes' bricks (2 ranks × 256 KiB each) plus what the other two nodes wrote
/// into the files on its own brick: the reads of other nodes' data crossed the simulated
/// network, not the node's own cache. The results name the three hosts and the job;
/// removed through node1's client, no data file or lock is left in any brick.
///
/// Open MPI runs with `OMPI_MCA_sharedfp=^lockedfile`: its OMPIO opens, in every
/// `MPI_File_open`, a lock file for the shared file pointer (`FILE-JOBID-PID.lock`) that
/// rank 0 creates and the others then open; on GlusterFS the ranks of the other node got
/// `ESTALE` opening it (strace), failed their `MPI_File_open` and waited in
/// `MPI_File_close`'s barrier while node1's ranks waited in lockedfile's: a hang inside
/// Open MPI 4.1 (h5perf uses no shared file pointer; sites on GlusterFS set the same).
fn srun_on_three_nodes_reads_cross_the_network(c: &Cluster, s: &Slurm, mnt: &Path, sub: &str) {
    let out = scratch_dir();
    let bin = h5perf_bin().to_string_lossy().into_owned();
    let mpi = format!("--mpi={}", mpi_plugin());
    let rjson = out.path().join("g.json").to_string_lossy().into_owned();
    // the data directory on the volume (it exists in the nodes only: not the cwd, which
    // sim-nodes exec enters before the node's mount namespace)
    let data_dir = mnt.join(sub).to_string_lossy().into_owned();
    let before = c.traffic();
    let o = s.run(
        c,
        &[
            "srun",
            &mpi,
            "-N",
            "3",
            "-n",
            "6",
            "--ntasks-per-node=2",
            "-J",
            "h5perf-gluster",
            &bin,
            "-A",
            "posix,mpiio,phdf5",
            "-e",
            "256K",
            "-x",
            "64K",
            "-X",
            "64K",
            "-B",
            "64K",
            "-p",
            "6",
            "-P",
            "6",
            "-D",
            "v",
            "--reorder",
            "--json",
            &rjson,
        ],
        &[
            ("HDF5_NOCLEANUP", "1"),
            ("HDF5_PARAPREFIX", &data_dir),
            SHAREDFP,
        ],
        out.path(),
    );
    let after = c.traffic();
    assert!(o.success(), "srun h5perf on GlusterFS\n{}", o.describe());
    s.assert_no_job_processes(c, "srun h5perf on GlusterFS", None);
    let (id, state) = s.job(c, "h5perf-gluster", out.path());
    assert_eq!(state, "COMPLETED");
    let j = json(&out.path().join("g.json"));
    assert_eq!(j["complete"], true);
    assert_eq!(
        j["hosts"],
        serde_json::json!([
            {"name": "node1", "ranks": 2},
            {"name": "node2", "ranks": 2},
            {"name": "node3", "ranks": 2}
        ])
    );
    assert_eq!(j["slurm_job_id"], id.to_string());
    assert_eq!(j["slurm_job_nodelist"], "node[1-3]");
    assert_eq!(j["records"].as_array().unwrap().len(), 3 * 6);
    for r in j["records"].as_array().unwrap() {
        assert_eq!(r["reorder"], "node");
    }
    let files: Vec<_> = brick_files(c, sub)
        .into_iter()
        .filter(|f| f.1.starts_with("#pio_tmp"))
        .collect();
    eprintln!("data files by brick: {files:?}");
    let names: std::collections::BTreeSet<&str> = files.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(names.len(), 3, "one data file per API: {files:?}");
    // each file whole on exactly one brick (plain distribution, no striping)
    for n in &names {
        let on: Vec<_> = files.iter().filter(|f| f.1 == *n && f.2 > 0).collect();
        assert_eq!(on.len(), 1, "{n} on one brick: {files:?}");
    }
    // what each node's interface must have received at least: its ranks' reads (2 × 256
    // KiB) of every file on another node's brick, plus the other two nodes' writes (2 × 2
    // × 256 KiB) into every file on its own brick; reads served from the node's own cache
    // would leave it short by the first part
    let per_node = 2 * 256 * 1024u64;
    let others = c.len() as u64 - 1;
    for (k, host) in c.hosts.iter().enumerate() {
        let remote = files.iter().filter(|f| f.2 > 0 && f.0 != *host).count() as u64;
        let local = files.iter().filter(|f| f.2 > 0 && f.0 == *host).count() as u64;
        let (reads, writes_in) = (remote * per_node, local * others * per_node);
        let rx = after[k].0 - before[k].0;
        eprintln!(
            "{host}: received {rx} bytes; its ranks read {reads} bytes of files on other \
             nodes' bricks, the other nodes wrote {writes_in} bytes into its brick"
        );
        assert!(
            rx >= reads + writes_in,
            "{host} received {rx} bytes, less than the {reads} its ranks read from files on \
             other nodes' bricks plus the {writes_in} written into its brick: the reads did \
             not cross the network"
        );
    }
    // the kept files removed through node1's client
    let d = mnt.join(sub).to_string_lossy().into_owned();
    let rm = run_session(
        &c.on_node("node1", &["/bin/sh", "-c", r#"rm -f "$0"/'#pio_tmp'*"#, &d]),
        &[],
        Path::new("/"),
        TIMEOUT,
    );
    assert!(rm.success(), "{}", rm.describe());
    let left = brick_files(c, sub);
    assert!(left.is_empty(), "left in the bricks: {left:?}");
}

/// One cluster of three nodes with a GlusterFS volume distributed over them (a brick
/// each, FUSE-mounted at one path on every node: a client and page cache per node) and
/// Slurm on the same nodes, started once for six jobs, each data directory its own (one
/// directory of the volume per job: GlusterFS 10.3 hung now and then when a job
/// re-created names another client had removed, README "GlusterFS on the simulated
/// nodes"):
///
/// 1. alone: [`srun_on_three_nodes_reads_cross_the_network`], in `reads/` of the volume;
/// 2. the README's batch script ([`submit_batch_job`]: with Open MPI `sbatch --time=1`),
///    in `limit/` of the volume; while it runs (it sleeps, mostly; with Open MPI for 60-90
///    s, until Slurm ends it):
/// 3. [`second_job_is_refused_by_the_lock`] from node3, in `limit/`;
/// 4. [`srun_on_two_nodes_names_the_job`] and 5. [`srun_on_three_nodes_drops_caches_once_per_node`]
///    on the local disk;
/// 6. then [`batch_job_ends_with_whole_results`].
///
/// Teardown: no process (daemons, gluster, jobs), mount (in the machine's namespace),
/// namespace, brick or file of the cluster left ([`Cluster::finish`]); the machine's own
/// GlusterFS directories unchanged; nothing of Slurm's or PMIx's in /tmp.
#[test]
fn slurm_on_glusterfs_and_the_local_disk() {
    let t = std::time::Instant::now();
    let tmp_before = slurm_tmp_entries();
    let gluster_before = machine_gluster_entries();
    let c = Cluster::with_mount_ns(3);
    let mnt = gluster_up(&c);
    let s = slurm_up(&c);
    eprintln!("cluster, GlusterFS and Slurm up after {:?}", t.elapsed());
    let m = mnt.to_string_lossy().into_owned();
    let mk = run_session(
        &c.on_node(
            "node1",
            &["mkdir", &format!("{m}/reads"), &format!("{m}/limit")],
        ),
        &[],
        Path::new("/"),
        TIMEOUT,
    );
    assert!(mk.success(), "{}", mk.describe());
    srun_on_three_nodes_reads_cross_the_network(&c, &s, &mnt, "reads");
    eprintln!("srun -N 3 on GlusterFS done after {:?}", t.elapsed());
    let work = scratch_dir();
    let id = submit_batch_job(&c, &s, &mnt.join("limit"), work.path());
    second_job_is_refused_by_the_lock(&c, &s, &mnt.join("limit"), "limit", work.path());
    eprintln!("second job refused after {:?}", t.elapsed());
    let local = scratch_dir();
    srun_on_two_nodes_names_the_job(&c, &s, local.path(), Some(id));
    eprintln!("srun -N 2 on the local disk done after {:?}", t.elapsed());
    srun_on_three_nodes_drops_caches_once_per_node(&c, &s, local.path(), Some(id));
    eprintln!("srun -N 3 --drop-caches done after {:?}", t.elapsed());
    batch_job_ends_with_whole_results(&c, &s, id, "limit", work.path());
    eprintln!("batch job ended after {:?}", t.elapsed());

    let dir = c.dir.clone();
    c.finish();
    assert!(!dir.exists(), "{} (bricks) left", dir.display());
    assert_eq!(machine_gluster_entries(), gluster_before);
    assert_eq!(
        slurm_tmp_entries(),
        tmp_before,
        "Slurm or PMIx wrote into /tmp"
    );
    eprintln!("torn down after {:?}", t.elapsed());
}
