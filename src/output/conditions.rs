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

/// Every rank's host name, by rank (collective: each rank broadcasts its own; a control
/// character is escaped, as the report prints it).
///
/// # Errors
/// A broadcast fails.
pub fn gather_hosts(comm: &Comm) -> Result<Vec<String>> {
    let me = crate::datadir::host::hostname();
    let mut names = Vec::new();
    for r in 0..comm.size()? {
        let name = String::from_utf8_lossy(&comm.bcast_bytes(r, me.as_bytes())?).into_owned();
        names.push(crate::config::values::printable(&name));
    }
    Ok(names)
}

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

/// The most data a node holds in a cached read step, against its memory: `(bytes,
/// host, memory bytes)` of the (step, node) whose data is the largest fraction of the
/// node's memory among those below [`MEMORY_FACTOR`] times it (the nearest to safe: if
/// even that one fits, the reads may be cached). `steps` are the read steps as (API,
/// processes, bytes of the step over all ranks); a node holds its ranks' equal shares.
/// No bypass is asked here: the caller leaves out the steps a bypass covers.
fn fullest_cached_node<'a>(
    steps: impl Iterator<Item = (Api, u32, u64)>,
    rank_hosts: &[String],
    nodes: &'a [(String, Node)],
) -> Option<(u64, &'a str, u64)> {
    let mut worst: Option<(u64, &str, u64)> = None;
    for (_, nprocs, bytes) in steps.filter(|s| s.1 > 0) {
        let per_rank = bytes / u64::from(nprocs);
        for (host, node) in nodes.iter().filter(|(_, n)| n.memory_bytes > 0) {
            let ranks = rank_hosts
                .iter()
                .take(nprocs as usize)
                .filter(|h| *h == host)
                .count() as u64;
            let held = per_rank.saturating_mul(ranks);
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
    worst
}

/// Whether a cache bypass covers the reads of `api`: `--drop-caches`, or `--direct`
/// for POSIX.
fn bypassed(p: &Params, api: Api) -> bool {
    p.storage.drop_caches || (api == Api::Posix && p.storage.direct)
}

/// The warning that the read figures may be page-cache figures: the most data a node
/// held in one step (its ranks' shares of the bytes of a read measurement) is below
/// [`MEMORY_FACTOR`] times that node's memory, and no bypass is active for the API
/// (`--drop-caches`; `--reorder` whose reads all cross nodes; `--direct` for POSIX). `None` when every read is safe, without
/// reads, or when no node's memory is known.
pub fn cache_warning(
    p: &Params,
    records: &[Record],
    rank_hosts: &[String],
    nodes: &[(String, Node)],
) -> Option<String> {
    let steps = records
        .iter()
        .filter(|r| r.has_read && !bypassed(p, r.api))
        .filter(|r| !p.storage.reads_cross_nodes(r.nprocs, rank_hosts))
        .map(|r| (r.api, r.nprocs, r.bytes));
    let (held, host, memory) = fullest_cached_node(steps, rank_hosts, nodes)?;
    Some(format!(
        "the data of a read step on host {host} ({held} bytes) is less than \
         {MEMORY_FACTOR} times its memory ({memory} bytes) and no cache bypass \
         (--drop-caches, --reorder across nodes, --direct for POSIX) is active: the read figures may be page-cache \
         figures; make -e larger or bypass the cache"
    ))
}

/// The bytes a step of `n` processes moves per phase over all ranks, as the run will
/// count them (`Record::bytes`, spec §8.3): files × datasets × dataset bytes, the
/// dataset `-e × n` bytes (1D) or a square of side `-e × n` (2D); with
/// `--file-per-process` (1D) one file of `-e` bytes per rank and index, the same sum.
/// Saturates instead of overflowing (the parameter checks refuse such sizes first).
pub fn planned_step_bytes(p: &Params, n: u32) -> u64 {
    let side = p.num_bytes.saturating_mul(u64::from(n));
    let dataset = if p.dim2d {
        side.saturating_mul(side)
    } else {
        side
    };
    p.num_files
        .saturating_mul(p.num_dsets)
        .saturating_mul(dataset)
}

/// `--stable`'s refusal before any I/O: the page-cache warning's rule ([`cache_warning`])
/// on the planned read steps (every API and process count of `p`; the bytes of
/// [`planned_step_bytes`]), with each node's memory `nodes` and the ranks' hosts
/// `rank_hosts`. The message names the node, the data per node, its memory and the
/// multiple. `None` when the reads are safe, bypassed, absent (`-w`) or no memory is known.
pub fn stable_refusal(
    p: &Params,
    rank_hosts: &[String],
    nodes: &[(String, Node)],
) -> Option<String> {
    if p.write_only {
        return None;
    }
    let steps: Vec<(Api, u32, u64)> = p
        .apis
        .iter()
        .filter(|a| !bypassed(p, *a))
        .flat_map(|a| {
            p.proc_counts()
                .into_iter()
                .filter(|&n| !p.storage.reads_cross_nodes(n, rank_hosts))
                .map(move |n| (a, n, planned_step_bytes(p, n)))
        })
        .collect();
    let (held, host, memory) = fullest_cached_node(steps.into_iter(), rank_hosts, nodes)?;
    Some(format!(
        "--stable refuses the run: the data of a read step on host {host} is {held} bytes, \
         less than {MEMORY_FACTOR} times the node's memory ({memory} bytes; \
         {MEMORY_FACTOR} x {memory} = {} bytes), and no cache bypass (--drop-caches, \
         --reorder across nodes, --direct for POSIX) is active: its reads would be page-cache figures; make -e \
         larger, bypass the cache or measure the writes alone (-w)",
        MEMORY_FACTOR.saturating_mul(memory)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Params};
    use crate::measure::Record;

    /// The parameters of `-e 64K` on `world` processes after `f`.
    fn params(world: u32, f: impl FnOnce(&mut Options)) -> Params {
        let mut o = Options {
            num_bytes: 64 << 10,
            ..Options::default()
        };
        o.apis.insert(Api::Posix);
        o.apis.insert(Api::Mpiio);
        f(&mut o);
        Params::resolve(&o, world)
    }

    fn node(memory_bytes: u64) -> Node {
        Node {
            memory_bytes,
            ..Node::default()
        }
    }

    #[test]
    fn the_planned_bytes_are_those_the_run_counts() {
        // 1D: files × datasets × (-e × n); --file-per-process: the same sum
        let p = params(4, |o| {
            o.num_files = 2;
            o.num_dsets = 3;
        });
        assert_eq!(planned_step_bytes(&p, 4), 2 * 3 * (64 << 10) * 4);
        let fpp = params(4, |o| o.file_per_process = true);
        assert_eq!(planned_step_bytes(&fpp, 4), (64 << 10) * 4);
        // 2D: a square of side -e × n
        let p = params(2, |o| {
            o.dim2d = true;
            o.num_bytes = 8192;
        });
        assert_eq!(planned_step_bytes(&p, 2), 16384 * 16384);
        // the warning after the run takes the records' bytes: the same answer
        let hosts = ["a".to_string(), "b".into(), "a".into(), "b".into()];
        let nodes = [
            ("a".to_string(), node(1 << 20)),
            ("b".to_string(), node(1 << 30)),
        ];
        let p = params(4, |_| {});
        let records: Vec<Record> = [4u32, 2, 1]
            .iter()
            .map(|&n| Record {
                nprocs: n,
                xfer_size: 1,
                buf_bytes: 1,
                api: Api::Posix,
                bytes: planned_step_bytes(&p, n),
                iterations: 1,
                has_read: true,
                phases: Default::default(),
                open_close: Default::default(),
                extremes: Default::default(),
                samples: Vec::new(),
                wall: None,
                latency: None,
                file_latency: None,
                timeseries: Vec::new(),
            })
            .collect();
        let w = cache_warning(&p, &records, &hosts, &nodes).unwrap();
        let r = stable_refusal(&p, &hosts, &nodes).unwrap();
        // the fullest node against its memory: a's 2 ranks at n = 4, 128 KiB of 1 MiB
        // (b holds at most 128 KiB of 1 GiB; a at n = 2 and 1, 64 KiB)
        assert!(w.contains("host a (131072 bytes)"), "{w}");
        assert!(
            r.contains("host a is 131072 bytes") && r.contains("(1048576 bytes;"),
            "{r}"
        );
    }

    #[test]
    fn stable_refuses_only_data_that_fits_with_no_bypass() {
        let hosts = ["a".to_string(), "a".into()];
        let small = [("a".to_string(), node(1 << 20))];
        // 2 ranks × 64 KiB on a 1 MiB node: under 2 MiB
        let p = params(2, |o| o.min_procs = 2);
        let r = stable_refusal(&p, &hosts, &small).unwrap();
        assert!(
            r.contains("host a is 131072 bytes, less than 2 times the node's memory (1048576 bytes; 2 x 1048576 = 2097152 bytes)"),
            "{r}"
        );
        // 1 MiB per rank: 2 MiB, not under twice the memory
        let big = params(2, |o| {
            o.min_procs = 2;
            o.num_bytes = 1 << 20;
        });
        assert_eq!(stable_refusal(&big, &hosts, &small), None);
        // ... but its step of 1 process holds 1 MiB alone: refused
        let one = params(2, |o| o.num_bytes = 1 << 20);
        let r = stable_refusal(&one, &hosts, &small).unwrap();
        assert!(r.contains("is 1048576 bytes"), "{r}");
        // no reads, a cache drop, an unknown memory: nothing to refuse
        assert_eq!(
            stable_refusal(&params(2, |o| o.write_only = true), &hosts, &small),
            None
        );
        let drop = params(2, |o| o.storage.drop_caches = true);
        assert_eq!(stable_refusal(&drop, &hosts, &small), None);
        assert_eq!(
            stable_refusal(&p, &hosts, &[("a".to_string(), node(0))]),
            None
        );
        // --direct bypasses POSIX only: MPI-IO's reads still fit
        let direct = params(2, |o| o.storage.direct = true);
        assert!(stable_refusal(&direct, &hosts, &small).is_some());
        let posix_only = params(2, |o| {
            o.storage.direct = true;
            o.apis = Default::default();
            o.apis.insert(Api::Posix);
        });
        assert_eq!(stable_refusal(&posix_only, &hosts, &small), None);
    }
}
