//! The results of a run as the results files hold them ([`ResultSet`]). No I/O.

use std::fmt;

use crate::config::criteria::Statistic;
use crate::config::Api;
use crate::measure::Phase;

/// What identifies one measurement: (processes, transfer size, API, phase).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// Processes of the step.
    pub nprocs: u32,
    /// Transfer size of the step, bytes.
    pub xfer_size: u64,
    api: Api,
    phase: Phase,
}

impl CellKey {
    /// The key of (processes, transfer size in bytes, API, phase).
    pub fn new(nprocs: u32, xfer_size: u64, api: Api, phase: Phase) -> CellKey {
        CellKey {
            nprocs,
            xfer_size,
            api,
            phase,
        }
    }

    /// The API.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }
}

impl fmt::Display for CellKey {
    /// `mpiio write, 2 processes, 1 MiB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {}, {}",
            self.api().name(),
            self.phase().key(),
            procs_text(self.nprocs),
            size_text(self.xfer_size)
        )
    }
}

/// One measurement: the statistics of one phase over the iterations (seconds, MiB/s).
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// What was measured.
    pub key: CellKey,
    /// Bytes moved per iteration (`bytes`).
    pub bytes: u64,
    /// Iterations (`iterations`).
    pub iterations: u32,
    /// Smallest time, seconds (`min_time_s`).
    pub min_time_s: f64,
    /// Mean time, seconds (`avg_time_s`).
    pub avg_time_s: f64,
    /// Largest time, seconds (`max_time_s`).
    pub max_time_s: f64,
    /// Sample standard deviation of the time over iterations, seconds (`std_time_s`).
    pub std_time_s: f64,
    /// "Maximum Throughput", MiB/s (`max_mibps`).
    pub max_mibps: f64,
    /// "Average Throughput", MiB/s (`avg_mibps`).
    pub avg_mibps: f64,
    /// "Minimum Throughput", MiB/s (`min_mibps`).
    pub min_mibps: f64,
    /// Sample standard deviation over iterations of the throughput, MiB/s (`std_mibps`).
    pub std_mibps: f64,
    /// The slowest rank and its host, when the per-rank times were gathered.
    pub slowest: Option<(u32, String)>,
    /// With `--latency`: the latencies of the phase direction's transfer calls (the
    /// `latency_*` fields), `None` without the option or when no call was timed.
    pub latency: Option<CellLatency>,
}

/// The latencies of one direction's transfer calls of a measurement, every rank and
/// iteration merged (`--latency`, the `latency_*` fields; seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct CellLatency {
    /// Calls timed (`latency_calls`).
    pub calls: u64,
    /// The shortest call, s (`latency_min_s`).
    pub min_s: f64,
    /// p50, p90, p99 and p99.9, s (`latency_p50_s` … `latency_p999_s`).
    pub quantiles_s: [f64; 4],
    /// The longest call, s (`latency_max_s`).
    pub max_s: f64,
    /// The rank that saw the longest call (`latency_max_rank`).
    pub max_rank: u32,
    /// Its host (`latency_max_host`).
    pub max_host: String,
}

impl Cell {
    /// The throughput of statistic `s`, MiB/s; for [`Statistic::Cv`], not a throughput,
    /// the coefficient of variation in percent ([`Cell::cv_percent`]).
    pub fn mibps(&self, s: Statistic) -> f64 {
        match s {
            Statistic::Max => self.max_mibps,
            Statistic::Mean => self.avg_mibps,
            Statistic::Min => self.min_mibps,
            Statistic::Cv => self.cv_percent(),
        }
    }

    /// The coefficient of variation over the iterations, percent: that of the times,
    /// `100 × std_time_s / avg_time_s` (0 with one iteration, or a zero mean time). The
    /// "Average Throughput" is bytes over the mean time, so this is its relative spread;
    /// to first order it is also the throughput's (`std_mibps` over the mean throughput).
    pub fn cv_percent(&self) -> f64 {
        if self.avg_time_s > 0.0 {
            100.0 * self.std_time_s / self.avg_time_s
        } else {
            0.0
        }
    }
}

/// One rank's own time of a phase in one iteration (a `--rank-csv` row).
#[derive(Debug, Clone, PartialEq)]
pub struct RankSample {
    /// The measurement it belongs to.
    pub key: CellKey,
    /// Iteration, from 1.
    pub iteration: u32,
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// Its time, seconds.
    pub time_s: f64,
}

/// The names of the run fields a [`ResultSet`] keeps, in this order.
pub const RUN_FIELDS: [&str; 13] = [
    "h5perf_version",
    "hdf5_version",
    "mpi_version",
    "world_size",
    "hostname_count",
    "complete",
    "start_time",
    "end_time",
    "command_line",
    "data_dir",
    "fs_type",
    "mpi_info",
    "hosts",
];

/// A run's results: run fields, parameters, cells in run order and per-rank samples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResultSet {
    /// The values of [`RUN_FIELDS`] as text (`mpi_info` `key=value;…`, `hosts` `name:ranks;…`).
    pub run: Vec<String>,
    /// The parameters (`num_bytes`, … and the storage fields when given), as text.
    pub parameters: Vec<(String, String)>,
    /// The measurements, in run order.
    pub cells: Vec<Cell>,
    /// The per-rank samples, in `--rank-csv` order (empty when not gathered).
    pub samples: Vec<RankSample>,
    /// The run's facts of [`FACT_KEYS`] that it recorded, in that order.
    pub facts: Vec<(String, String)>,
    /// With `--timeseries`: every phase's bytes per rank and interval, in run order (the
    /// JSON's `timeseries` array); empty without the option and when read from a CSV.
    pub timeseries: Vec<PhaseSamples>,
    /// Each measurement's iterations as a `--json` file holds them (`per_iteration`),
    /// for a page made without the per-rank samples (empty otherwise).
    pub per_iteration: Vec<(CellKey, Iteration)>,
    /// Each measurement's hosts as a `--json` file holds them (`per_host`), likewise.
    pub per_host: Vec<(CellKey, HostShare)>,
}

/// One phase's `--timeseries` samples: an entry of the JSON's `timeseries` array
/// (`crate::output::timeseries`).
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSamples {
    /// Processes of the step.
    pub nprocs: u32,
    /// Transfer size of the step, bytes.
    pub xfer_size: u64,
    /// The API.
    pub api: Api,
    /// The iteration, from 1.
    pub iteration: u32,
    /// The file, from 1.
    pub file: u64,
    /// A read phase (else a write phase).
    pub read: bool,
    /// The interval, seconds (> 0).
    pub interval_s: f64,
    /// Every rank's bytes per interval, in rank order.
    pub ranks: Vec<RankBytes>,
}

/// One rank's bytes per interval of a phase (`--timeseries`).
#[derive(Debug, Clone, PartialEq)]
pub struct RankBytes {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// `bytes[i]`: what it completed in `[i × interval_s, (i + 1) × interval_s)` after the
    /// phase's start.
    pub bytes: Vec<u64>,
}

/// One iteration of a measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iteration {
    /// Iteration, from 1.
    pub iteration: u32,
    /// The iteration's time, seconds: the largest of its ranks' times, the time the
    /// measurement's statistics are made of (spec §8.3: each iteration's time is the
    /// slowest rank's, `MPI_Allreduce` with `MPI_MAX`).
    pub time_s: f64,
    /// The iteration's throughput, MiB/s: the cell's bytes over `time_s` (spec §8.3);
    /// `None` for a stonewalled run, whose bytes moved differ per iteration and rank.
    pub mibps: Option<f64>,
}

/// One host's share of a measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct HostShare {
    /// The host.
    pub host: String,
    /// Its ranks in the measurement.
    pub ranks: u32,
    /// The bytes its ranks move per iteration: ranks × (the cell's bytes / processes)
    /// (each rank moves an equal share, spec §8.3); `None` for a stonewalled run, whose
    /// ranks move what the deadline lets them (the planned share would be wrong).
    pub bytes: Option<u64>,
    /// Its mean time, seconds: over the iterations, the largest time of its ranks.
    pub avg_time_s: f64,
    /// Its throughput, MiB/s: `bytes / avg_time_s`, the aggregate rule of spec §8.3
    /// ("Average Throughput", bytes over the mean of the slowest rank's times) applied
    /// to the ranks of one host; `None` for a stonewalled run (the bytes moved vary).
    pub mibps: Option<f64>,
}

/// The names of the facts a run records only when they say something
/// (`crate::output::export::RunMeta::facts`), in the order they are written.
pub const FACT_KEYS: [&str; 32] = [
    "labels",
    "data_dir_mount_point",
    "data_dir_mount_source",
    "data_dir_mount_type",
    "data_dir_mount_options",
    "data_dir_super_options",
    "data_dir_device",
    "node_kernel",
    "node_memory_bytes",
    "node_cpus",
    "node_cpu_model",
    "node_load_start",
    "mpi_io_env",
    "hdf5_libver_low",
    "hdf5_libver_high",
    "slurm_job_id",
    "slurm_job_name",
    "slurm_job_nodelist",
    "slurm_tasks_per_node",
    "slurm_time_limit",
    "mpi_hints_in_effect_mpiio",
    "mpi_hints_in_effect_phdf5",
    "hdf5_all_coll_metadata_ops",
    "hdf5_coll_metadata_write",
    "hdf5_chunk_cache",
    "hdf5_driver",
    "hdf5_subfiling_stripe_size",
    "hdf5_subfiling_ioc_count",
    "hdf5_subfiling_subfiles",
    "mpi_io_component",
    "load_end",
    "page_cache_warning",
];

impl ResultSet {
    /// The run field `name` of [`RUN_FIELDS`] (empty when unknown).
    pub fn run_field(&self, name: &str) -> &str {
        RUN_FIELDS
            .iter()
            .position(|f| *f == name)
            .and_then(|i| self.run.get(i))
            .map_or("", String::as_str)
    }

    /// Each rank's host, by rank, as the per-rank samples name them (empty without
    /// samples; a rank no sample names has an empty host).
    pub fn rank_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = Vec::new();
        for s in &self.samples {
            let r = s.rank as usize;
            if hosts.len() <= r {
                hosts.resize(r + 1, String::new());
            }
            hosts[r].clone_from(&s.host);
        }
        hosts
    }

    /// The measurement of `key`.
    pub fn cell(&self, key: &CellKey) -> Option<&Cell> {
        self.cells.iter().find(|c| c.key == *key)
    }

    /// The APIs measured, in execution order.
    pub fn apis(&self) -> Vec<Api> {
        Api::ALL
            .into_iter()
            .filter(|a| self.cells.iter().any(|c| c.key.api() == *a))
            .collect()
    }

    /// The phases measured, in report order.
    pub fn phases(&self) -> Vec<Phase> {
        Phase::ALL
            .into_iter()
            .filter(|p| self.cells.iter().any(|c| c.key.phase() == *p))
            .collect()
    }

    /// The process counts measured, smallest first.
    pub fn procs(&self) -> Vec<u32> {
        sorted(self.cells.iter().map(|c| c.key.nprocs))
    }

    /// The transfer sizes measured (bytes), smallest first.
    pub fn sizes(&self) -> Vec<u64> {
        sorted(self.cells.iter().map(|c| c.key.xfer_size))
    }

    /// The step with samples that took longest among those of the largest process count (sum of
    /// open-close mean time × iterations; first of equals). `None` without samples.
    pub fn slowest_step(&self) -> Option<(u32, u64)> {
        let step = |k: &CellKey| (k.nprocs, k.xfer_size);
        let mut steps: Vec<(u32, u64)> = Vec::new();
        for c in &self.cells {
            let s = step(&c.key);
            if !steps.contains(&s) && self.samples.iter().any(|r| step(&r.key) == s) {
                steps.push(s);
            }
        }
        let most = steps.iter().map(|s| s.0).max();
        let open_close =
            |c: &&Cell| matches!(c.key.phase, Phase::WriteOpenClose | Phase::ReadOpenClose);
        let time = |s| -> f64 {
            let cells = self.cells.iter().filter(|c| step(&c.key) == s);
            cells
                .filter(open_close)
                .map(|c| c.avg_time_s * f64::from(c.iterations))
                .sum()
        };
        steps
            .into_iter()
            .filter(|s| Some(s.0) == most)
            .map(|s| (s, time(s)))
            .reduce(|a, b| if b.1 > a.1 { b } else { a })
            .map(|(s, _)| s)
    }
}

/// The distinct values of `v`, smallest first.
fn sorted<T: Ord>(v: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = v.collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A size in bytes in words: `8 KiB`, `1 MiB`, `2 GiB` for exact multiples, else `1000 B`.
pub fn size_text(bytes: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} B")
}

/// The API as the report's headings name it: `POSIX`, `MPI-IO`, `PHDF5`.
pub fn api_title(a: Api) -> &'static str {
    match a {
        Api::Posix => "POSIX",
        Api::Mpiio => "MPI-IO",
        Api::Phdf5 => "PHDF5",
    }
}

/// `1 process`, `4 processes`.
pub fn procs_text(n: u32) -> String {
    if n == 1 {
        "1 process".to_string()
    } else {
        format!("{n} processes")
    }
}

/// A run's results made through the real exporter, for the tests of this layer.
#[cfg(test)]
pub(crate) use tests::run_set;

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::export::{self, RunMeta};
    use crate::config::{Options, Params};
    use crate::measure::{Extremes, PhaseStats, Record, TimeStats};

    /// A run of `apis` with the process counts `procs` and the transfer sizes `sizes`,
    /// 3 iterations and 2 ranks' samples per record when `samples`, whose mean
    /// throughput is `f(nprocs, xfer, api index, phase index)` MiB/s with a standard
    /// deviation of 1 % of it.
    pub(crate) fn run_set(
        procs: &[u32],
        sizes: &[u64],
        apis: &[Api],
        samples: bool,
        f: &dyn Fn(u32, u64, usize, usize) -> f64,
    ) -> (RunMeta, Params, Vec<Record>) {
        let o = Options {
            num_bytes: 1 << 20,
            num_iters: 3,
            ..Options::default()
        };
        let p = Params::resolve(&o, procs.iter().copied().max().unwrap_or(1));
        let mut records = Vec::new();
        for &n in procs {
            for &x in sizes {
                for (ai, &api) in apis.iter().enumerate() {
                    let bytes = u64::from(n) << 20;
                    let mib = bytes as f64 / 1_048_576.0;
                    let mut phases = [PhaseStats::default(); 6];
                    let mut extremes = [Extremes::default(); 6];
                    for (pi, s) in phases.iter_mut().enumerate() {
                        let avg = f(n, x, ai, pi);
                        *s = PhaseStats {
                            min_time: mib / (avg * 1.1),
                            avg_time: mib / avg,
                            max_time: mib / (avg * 0.9),
                            max_mibps: avg * 1.1,
                            avg_mibps: avg,
                            min_mibps: avg * 0.9,
                            std_time: 0.0,
                            std_mibps: avg / 100.0,
                            max_gbps: avg * 1.1 * 1_048_576.0 / 1e9,
                            avg_gbps: avg * 1_048_576.0 / 1e9,
                            min_gbps: avg * 0.9 * 1_048_576.0 / 1e9,
                        };
                        if samples {
                            extremes[pi] = Extremes {
                                known: true,
                                slowest_rank: n - 1,
                                slowest_time: s.max_time,
                                slowest_iteration: 0,
                                fastest_rank: 0,
                                fastest_time: s.min_time,
                            };
                        }
                    }
                    let mut smp = Vec::new();
                    if samples {
                        for it in 0..3u32 {
                            for rank in 0..n {
                                for s in &phases {
                                    smp.push(s.avg_time * (1.0 + f64::from(rank + it) / 100.0));
                                }
                            }
                        }
                    }
                    records.push(Record {
                        nprocs: n,
                        xfer_size: x,
                        buf_bytes: x,
                        api,
                        bytes,
                        iterations: 3,
                        has_read: true,
                        phases,
                        open_close: [TimeStats::default(); 4],
                        extremes,
                        samples: smp,
                        wall: None,
                        latency: None,
                        file_latency: None,
                        timeseries: Vec::new(),
                    });
                }
            }
        }
        let names: Vec<String> = (0..procs.iter().copied().max().unwrap_or(1))
            .map(|r| format!("node{}", r % 2 + 1))
            .collect();
        let meta = RunMeta {
            h5perf_version: "0.1.0".into(),
            hdf5_version: "1.10.8".into(),
            mpi_version: "Open MPI v4.1.4, package: Debian".into(),
            world_size: u32::try_from(names.len()).unwrap_or(1),
            hostname_count: 2,
            timestamp: "2027-01-01T00:00:00Z".into(),
            complete: true,
            end_time: "2027-01-01T00:01:00Z".into(),
            command_line: "h5perf -i 3 --html 'r p.html'".into(),
            data_dir: "/scratch/<u>".into(),
            fs_type: "lustre".into(),
            mpi_info: vec![("striping_factor".into(), "4".into())],
            hosts: export::host_counts(&names),
            rank_hosts: names,
            gather_time_s: 0.0,
            facts: Vec::new(),
            nodes: Vec::new(),
        };
        (meta, p, records)
    }

    #[test]
    fn a_runs_set_holds_every_record_phase_and_sample() {
        let (m, p, recs) = run_set(&[2, 1], &[4096, 8192], &Api::ALL, true, &|n, x, a, ph| {
            f64::from(n) * 100.0 + (x / 1024) as f64 + a as f64 * 10.0 + ph as f64
        });
        let s = super::super::readback::of_run(&m, &p, &recs);
        assert_eq!(s.cells.len(), 2 * 2 * 3 * 6);
        assert_eq!(s.apis(), Api::ALL);
        assert_eq!(s.procs(), [1, 2]);
        assert_eq!(s.sizes(), [4096, 8192]);
        assert_eq!(s.phases(), Phase::ALL);
        let c = s
            .cell(&CellKey::new(2, 8192, Api::Mpiio, Phase::Read))
            .unwrap();
        assert_eq!(c.avg_mibps, 200.0 + 8.0 + 10.0 + 4.0);
        assert_eq!(c.std_mibps, c.avg_mibps / 100.0);
        assert_eq!(c.iterations, 3);
        assert_eq!(c.slowest, Some((1, "node2".to_string())));
        assert_eq!(c.mibps(Statistic::Max), recs[4].phases[4].max_mibps);
        assert_eq!(s.run_field("command_line"), "h5perf -i 3 --html 'r p.html'");
        assert_eq!(s.run_field("hosts"), "node1:1;node2:1");
        assert_eq!(s.run_field("mpi_info"), "striping_factor=4");
        assert_eq!(s.run_field("complete"), "true");
        assert_eq!(s.run_field("start_time"), "2027-01-01T00:00:00Z");
        assert_eq!(s.run_field("nothing"), "");
        assert_eq!(
            s.parameters[0],
            ("num_bytes".to_string(), "1048576".to_string())
        );
        // 3 iterations × 6 phases × (2 + 1 ranks) × 2 sizes × 3 APIs
        assert_eq!(s.samples.len(), 3 * 6 * 3 * 2 * 3);
        let r = &s.samples[1];
        assert_eq!(
            (r.key.nprocs, r.iteration, r.rank, r.host.as_str()),
            (2, 1, 1, "node2")
        );
        assert_eq!(r.time_s, recs[0].sample(0, 1, 0).unwrap());
        // the slowest step: the one with the lowest throughput for its bytes
        assert_eq!(s.slowest_step(), Some((2, 4096)));
        let plain = super::super::readback::of_run(&m, &p, &{
            let mut v = recs.clone();
            v.iter_mut().for_each(|r| r.samples.clear());
            v
        });
        assert!(plain.samples.is_empty() && plain.slowest_step().is_none());
    }

    #[test]
    fn words() {
        assert_eq!(size_text(8192), "8 KiB");
        assert_eq!(size_text(3 << 20), "3 MiB");
        assert_eq!(size_text(2 << 30), "2 GiB");
        assert_eq!(size_text(1536), "1536 B");
        assert_eq!(size_text(0), "0 B");
        assert_eq!(procs_text(1), "1 process");
        assert_eq!(procs_text(4), "4 processes");
        let k = CellKey::new(2, 1 << 20, Api::Mpiio, Phase::Write);
        assert_eq!(k.to_string(), "mpiio write, 2 processes, 1 MiB");
    }
}
