//! The spread behind a measurement, from the per-rank samples of a [`ResultSet`]: each
//! iteration's time and throughput ([`iterations`]) and each host's share
//! ([`hosts`]). No I/O.

use crate::measure::timer::mbps;

use super::results::{Cell, CellKey, ResultSet};

pub use super::results::{HostShare, Iteration};

/// Whether the run was stonewalled (`--stonewall`: the parameter `stonewall_s`), so that
/// its bytes moved vary per iteration and rank.
fn stonewalled(set: &ResultSet) -> bool {
    set.parameters.iter().any(|(k, _)| k == "stonewall_s")
}

/// The figures of `cell` among `rows` (those a `--json` file holds, read back), in order.
fn stored<T: Clone>(rows: &[(CellKey, T)], cell: &Cell) -> Vec<T> {
    rows.iter()
        .filter(|(k, _)| *k == cell.key)
        .map(|(_, v)| v.clone())
        .collect()
}

/// Each iteration of `cell`, in order, from the per-rank samples of `set`; without
/// samples of that cell, those its `--json` file held (`per_iteration`); else empty.
pub fn iterations(set: &ResultSet, cell: &Cell) -> Vec<Iteration> {
    if !set.samples.iter().any(|s| s.key == cell.key) {
        return stored(&set.per_iteration, cell);
    }
    let wall = stonewalled(set);
    let mut out: Vec<Iteration> = Vec::new();
    for s in set.samples.iter().filter(|s| s.key == cell.key) {
        match out.iter_mut().find(|i| i.iteration == s.iteration) {
            Some(i) => i.time_s = i.time_s.max(s.time_s),
            None => out.push(Iteration {
                iteration: s.iteration,
                time_s: s.time_s,
                mibps: None,
            }),
        }
    }
    out.sort_by_key(|i| i.iteration);
    for i in &mut out {
        i.mibps = (!wall).then(|| mbps(cell.bytes, i.time_s));
    }
    out
}

/// A host, its ranks and, per iteration (from 1), the largest time of its ranks (s).
type HostTimes = (String, u32, Vec<(u32, f64)>);

/// Each host's share of `cell`, hosts in the order of their first rank, from the
/// per-rank samples of `set`; without samples of that cell, those its `--json` file
/// held (`per_host`); else empty.
pub fn hosts(set: &ResultSet, cell: &Cell) -> Vec<HostShare> {
    if !set.samples.iter().any(|s| s.key == cell.key) {
        return stored(&set.per_host, cell);
    }
    let wall = stonewalled(set);
    // (host, ranks seen in iteration 1, per iteration its largest time)
    let mut by_host: Vec<HostTimes> = Vec::new();
    for s in set.samples.iter().filter(|s| s.key == cell.key) {
        let i = match by_host.iter().position(|(h, _, _)| *h == s.host) {
            Some(i) => i,
            None => {
                by_host.push((s.host.clone(), 0, Vec::new()));
                by_host.len() - 1
            }
        };
        let (_, ranks, times) = &mut by_host[i];
        if s.iteration == 1 {
            *ranks += 1;
        }
        match times.iter_mut().find(|(it, _)| *it == s.iteration) {
            Some((_, t)) => *t = t.max(s.time_s),
            None => times.push((s.iteration, s.time_s)),
        }
    }
    let per_rank = cell.bytes / u64::from(cell.key.nprocs.max(1));
    by_host
        .into_iter()
        .map(|(host, ranks, times)| {
            let avg = times.iter().map(|(_, t)| t).sum::<f64>() / times.len().max(1) as f64;
            let bytes = (!wall).then_some(per_rank * u64::from(ranks));
            HostShare {
                host,
                ranks,
                bytes,
                avg_time_s: avg,
                mibps: bytes.map(|b| mbps(b, avg)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::readback::of_run;
    use super::super::results::{run_set, CellKey, RankSample};
    use super::*;
    use crate::config::Api;
    use crate::measure::Phase;

    /// A cell of 2 processes moving 4 MiB, with hand-made samples.
    fn set(samples: &[(u32, u32, &str, f64)]) -> (ResultSet, Cell) {
        let (m, p, recs) = run_set(&[2], &[1 << 20], &[Api::Posix], false, &|_, _, _, _| 1.0);
        let mut s = of_run(&m, &p, &recs);
        let key = CellKey::new(2, 1 << 20, Api::Posix, Phase::Write);
        let mut cell = s.cell(&key).unwrap().clone();
        cell.bytes = 4 << 20;
        s.samples = samples
            .iter()
            .map(|&(iteration, rank, host, time_s)| RankSample {
                key,
                iteration,
                rank,
                host: host.to_string(),
                time_s,
            })
            .collect();
        (s, cell)
    }

    #[test]
    fn an_iteration_takes_its_slowest_rank_and_moves_the_cells_bytes() {
        let (s, cell) = set(&[
            (1, 0, "a", 1.0),
            (1, 1, "b", 2.0),
            (2, 0, "a", 4.0),
            (2, 1, "b", 0.5),
        ]);
        let it = iterations(&s, &cell);
        assert_eq!(
            it,
            [
                Iteration {
                    iteration: 1,
                    time_s: 2.0,
                    mibps: Some(2.0)
                },
                Iteration {
                    iteration: 2,
                    time_s: 4.0,
                    mibps: Some(1.0)
                },
            ]
        );
        let other = Cell {
            key: CellKey::new(2, 1 << 20, Api::Posix, Phase::Read),
            ..cell
        };
        assert!(iterations(&s, &other).is_empty());
    }

    #[test]
    fn a_host_moves_its_ranks_share_in_the_mean_of_its_slowest_ranks_times() {
        // host a: rank 0 alone, times 1 and 3 s: 2 MiB in a mean of 2 s
        // host b: rank 1, times 2 and 0.5 s: 2 MiB in a mean of 1.25 s
        let (s, cell) = set(&[
            (1, 0, "a", 1.0),
            (1, 1, "b", 2.0),
            (2, 0, "a", 3.0),
            (2, 1, "b", 0.5),
        ]);
        let h = hosts(&s, &cell);
        assert_eq!(h.len(), 2);
        assert_eq!(
            (h[0].host.as_str(), h[0].ranks, h[0].bytes),
            ("a", 1, Some(2 << 20))
        );
        assert_eq!((h[0].avg_time_s, h[0].mibps), (2.0, Some(1.0)));
        assert_eq!((h[1].avg_time_s, h[1].mibps), (1.25, Some(1.6)));
        // both ranks on one host: the host is the whole cell
        let (s, cell) = set(&[
            (1, 0, "a", 1.0),
            (1, 1, "a", 2.0),
            (2, 0, "a", 3.0),
            (2, 1, "a", 0.5),
        ]);
        let h = hosts(&s, &cell);
        assert_eq!(h.len(), 1);
        assert_eq!(
            (h[0].ranks, h[0].bytes, h[0].avg_time_s),
            (2, Some(4 << 20), 2.5)
        );
        assert_eq!(h[0].mibps, Some(1.6));
    }

    #[test]
    fn a_stonewalled_run_has_times_but_no_throughput() {
        let (mut s, cell) = set(&[(1, 0, "a", 1.0), (1, 1, "b", 2.0)]);
        s.parameters.push(("stonewall_s".into(), "2".into()));
        assert_eq!(iterations(&s, &cell)[0].mibps, None);
        assert_eq!(iterations(&s, &cell)[0].time_s, 2.0);
        assert_eq!(hosts(&s, &cell)[1].mibps, None);
        // nor the planned bytes: the ranks moved what the deadline let them
        assert_eq!(hosts(&s, &cell)[1].bytes, None);
    }
}
