//! The run conditions and the sign-off labels as facts of the results (issue 29):
//! `--conditions` ([`start_facts`], [`end_facts`]) and `--label` ([`label_facts`]).
//! Every fact is a text, per-node facts `host=value` joined by `;` in the order of the
//! hosts' first ranks.

use crate::config::Params;
use crate::datadir::conditions::{self, Node};
use crate::error::Result;
use crate::ffi::mpi::Comm;
use crate::measure::Record;
use crate::terms::Api;

/// The facts of `--label`, written before every other fact: `labels`, `key=value`
/// joined by `;` in the order given; none without labels.
pub fn label_facts(labels: &[(String, String)]) -> Vec<(String, String)> {
    if labels.is_empty() {
        return Vec::new();
    }
    let text: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    vec![("labels".to_string(), text.join(";"))]
}

/// The names of the per-node facts, in the order written: kernel release, memory in
/// bytes, processors online, processor model, load averages (1, 5, 15 min) at the start.
pub const NODE_FACTS: [&str; 5] = [
    "node_kernel",
    "node_memory_bytes",
    "node_cpus",
    "node_cpu_model",
    "node_load_start",
];

/// Each host of `rank_hosts` (by rank) with its [`Node`], in the order of first ranks
/// (collective: the first rank of each host reads its node and broadcasts it).
///
/// # Errors
/// A broadcast fails.
pub fn gather_nodes(comm: &Comm, rank_hosts: &[String]) -> Result<Vec<(String, Node)>> {
    let me = comm.rank()?;
    let mut out: Vec<(String, Node)> = Vec::new();
    for (r, host) in rank_hosts.iter().enumerate() {
        if out.iter().any(|(h, _)| h == host) {
            continue;
        }
        let r = u32::try_from(r).unwrap_or(u32::MAX);
        let mine = if r == me {
            Node::here().encode()
        } else {
            String::new()
        };
        let text = comm.bcast_bytes(r, mine.as_bytes())?;
        out.push((host.clone(), Node::decode(&String::from_utf8_lossy(&text))));
    }
    Ok(out)
}

/// The facts of `--conditions` known at the start: the data directory's mount (point,
/// source, type, per-mount and file-system options, device `major:minor`, as
/// `/proc/self/mountinfo` of rank 0 tells), the [`NODE_FACTS`] of `nodes`, and
/// `mpi_io_env`, the MPI-IO and HDF5 environment variables of rank 0
/// ([`conditions::mpi_io_env`], `NAME=VALUE` joined by `;`, `none` without).
pub fn start_facts(nodes: &[(String, Node)], data_dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mount = conditions::mount_of(data_dir);
    let m = |f: fn(&conditions::Mount) -> &str| {
        mount
            .as_ref()
            .map_or("unknown".to_string(), |m| conditions::field(f(m)))
    };
    out.push(("data_dir_mount_point".to_string(), m(|m| &m.point)));
    out.push(("data_dir_mount_source".to_string(), m(|m| &m.source)));
    out.push(("data_dir_mount_type".to_string(), m(|m| &m.fs_type)));
    out.push(("data_dir_mount_options".to_string(), m(|m| &m.options)));
    out.push((
        "data_dir_super_options".to_string(),
        m(|m| &m.super_options),
    ));
    out.push(("data_dir_device".to_string(), m(|m| &m.device)));
    let per_node = |f: &dyn Fn(&Node) -> String| {
        nodes
            .iter()
            .map(|(h, n)| format!("{h}={}", f(n)))
            .collect::<Vec<_>>()
            .join(";")
    };
    let values: [String; 5] = [
        per_node(&|n| n.kernel.clone()),
        per_node(&|n| n.memory_bytes.to_string()),
        per_node(&|n| n.cpus.to_string()),
        per_node(&|n| n.cpu_model.clone()),
        per_node(&|n| n.load.clone()),
    ];
    out.extend(NODE_FACTS.iter().map(|k| k.to_string()).zip(values));
    let env = conditions::mpi_io_env();
    let env = if env.is_empty() {
        "none".to_string()
    } else {
        env.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    };
    out.push(("mpi_io_env".to_string(), env));
    out
}

/// The node memory factor of the page-cache warning: the data a node holds must be at
/// least this many times its memory before its reads can be taken for storage reads
/// (IOR's advice to size the files beyond the nodes' memory, `memoryPerNode`).
pub const MEMORY_FACTOR: u64 = 2;

/// The facts of `--conditions` known at the end: `mpi_io_component`
/// ([`conditions::mpi_io_component`], from the hints in effect `hints` when read),
/// `load_end` (rank 0's node), and `page_cache_warning` when [`cache_warning`] says so.
pub fn end_facts(
    mpi_version: &str,
    hints: &[(Api, Vec<(String, String)>)],
    warning: Option<&str>,
) -> Vec<(String, String)> {
    let selection = std::env::var("OMPI_MCA_io").ok();
    let first = hints.first().map_or(&[][..], |(_, h)| &h[..]);
    let mut out = vec![
        (
            "mpi_io_component".to_string(),
            conditions::mpi_io_component(mpi_version, selection.as_deref(), first),
        ),
        ("load_end".to_string(), Node::here().load),
    ];
    if let Some(w) = warning {
        out.push(("page_cache_warning".to_string(), w.to_string()));
    }
    out
}

/// The warning that the read figures may be page-cache figures: the most data a node
/// held in one step (its ranks' shares of the bytes of a read measurement) is below
/// [`MEMORY_FACTOR`] times that node's memory, and no bypass is active for the API
/// (`--drop-caches`; `--direct` for POSIX). `None` when every read is safe, without
/// reads, or when no node's memory is known.
pub fn cache_warning(
    p: &Params,
    records: &[Record],
    rank_hosts: &[String],
    nodes: &[(String, Node)],
) -> Option<String> {
    if p.storage.drop_caches {
        return None;
    }
    // (bytes, host, memory) of the fullest node over the cached reads
    let mut worst: Option<(u64, &str, u64)> = None;
    for r in records.iter().filter(|r| r.has_read && r.nprocs > 0) {
        if r.api == Api::Posix && p.storage.direct {
            continue;
        }
        let per_rank = r.bytes / u64::from(r.nprocs);
        for (host, node) in nodes.iter().filter(|(_, n)| n.memory_bytes > 0) {
            let ranks = rank_hosts
                .iter()
                .take(r.nprocs as usize)
                .filter(|h| *h == host)
                .count() as u64;
            let held = per_rank * ranks;
            if ranks > 0
                && held < MEMORY_FACTOR.saturating_mul(node.memory_bytes)
                && worst.is_none_or(|(b, _, m)| {
                    u128::from(held) * u128::from(m) > u128::from(b) * u128::from(node.memory_bytes)
                })
            {
                worst = Some((held, host, node.memory_bytes));
            }
        }
    }
    let (held, host, memory) = worst?;
    Some(format!(
        "the data of a read step on host {host} ({held} bytes) is less than \
         {MEMORY_FACTOR} times its memory ({memory} bytes) and no cache bypass \
         (--drop-caches, --direct for POSIX) is active: the read figures may be page-cache \
         figures; make -e larger or bypass the cache"
    ))
}
