//! Machine-readable results ([`to_json`], [`to_csv`], [`to_rank_csv`], [`result_set`]), as
//! in the README ("Machine-readable results"). Non-finite floats: JSON `null`, empty CSV field.

use std::fmt::Write as _;

use crate::config::Params;
/// Re-exported from [`crate::datadir::host`], where the data-directory lock uses them too.
pub use crate::datadir::host::{hostname, now_unix_seconds, rfc3339_utc};
use crate::error::Result;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
use crate::ffi::mpi::Comm;
use crate::measure::{Phase, Record};

pub use super::fields::{FIELDS, LATENCY_FIELDS, LATENCY_FILE_FIELDS, WALL_FIELDS};
pub(crate) use super::fields::{FIRST_META, FIRST_PARAM};
use super::fields::{FIRST_RUN, FIRST_SPREAD};
use super::results::{Cell, CellKey, RankSample, ResultSet};

mod instruments;
mod spread;
mod value;
use instruments::{cell_latency, file_latency_values, latency_values, wall_values};
pub use spread::HOST_FIELDS;
use spread::{per_host_columns, per_host_json};
use value::{float_text, json_object, json_string, json_value};

/// What describes the run as a whole, the same in every record.
#[derive(Debug, Clone, PartialEq)]
pub struct RunMeta {
    /// h5perf's own version (`CARGO_PKG_VERSION`), e.g. `0.1.0`.
    pub h5perf_version: String,
    /// The HDF5 library version in use, e.g. `1.10.8`.
    pub hdf5_version: String,
    /// The MPI library's version string (first line of `MPI_Get_library_version`).
    pub mpi_version: String,
    /// Processes in `MPI_COMM_WORLD`.
    pub world_size: u32,
    /// Distinct host names among the processes of `MPI_COMM_WORLD`.
    pub hostname_count: u32,
    /// When the run started, RFC 3339 in UTC ([`rfc3339_utc`]).
    pub timestamp: String,
    /// Whether the run finished every step without failing or reading back wrong bytes.
    pub complete: bool,
    /// When the run ended or the files were last rewritten, RFC 3339 in UTC.
    pub end_time: String,
    /// The command line, words quoted for a POSIX shell where needed ([`shell_line`]).
    pub command_line: String,
    /// The resolved data directory (absolute).
    pub data_dir: String,
    /// The file system holding it (`statfs(2)` name, else the magic number in hexadecimal).
    pub fs_type: String,
    /// The `HDF5_MPI_INFO` hints as (key, value) pairs, in the order given.
    pub mpi_info: Vec<(String, String)>,
    /// The host names with their numbers of ranks, in the order of their first rank.
    pub hosts: Vec<(String, u32)>,
    /// The host name of each rank of the communicator, by rank.
    pub rank_hosts: Vec<String>,
    /// Seconds rank 0 spent gathering every rank's times over the run (JSON only).
    pub gather_time_s: f64,
    /// Facts of the run that the C tool's results lack, as (field, value), only those
    /// that say something ([`run_facts`], then the Slurm job's
    /// ([`super::scheduler::slurm_facts`]), then [`hint_facts`]): JSON keys after `hosts`,
    /// and the last fields of every record (JSON and CSV).
    pub facts: Vec<(String, String)>,
    /// With `--conditions`: each host with its node's figures, in the order of first
    /// ranks (empty without).
    pub nodes: Vec<(String, crate::datadir::conditions::Node)>,
}

/// The facts of [`RunMeta::facts`] known at the end of a run with hints given: for each
/// API that opened files through MPI-IO, `mpi_hints_in_effect_<api>` (`mpiio`, `phdf5`),
/// the hints in effect after its opens as the MPI library reported them
/// (`MPI_File_get_info`), `key=value` joined by `;`, distinct sets (if the hints changed
/// between opens) joined by ` | ` in the order seen.
pub fn hint_facts(hints: &[(crate::config::Api, Vec<(String, String)>)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (api, set) in hints {
        let key = format!("mpi_hints_in_effect_{}", api.name());
        let text = joined(set, '=');
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => {
                v.push_str(" | ");
                v.push_str(&text);
            }
            None => out.push((key, text)),
        }
    }
    out
}

/// The facts of [`RunMeta::facts`] known at the start of a run: the file-format bounds of
/// the file-access lists of PHDF5 (`hdf5_libver_low`, `hdf5_libver_high`: HDF5's names,
/// [`crate::ffi::hdf5::plist::libver_name`]) when they are not (`earliest`, the library's
/// latest), the defaults of HDF5 1.8-1.14: HDF5 2.0 made the low bound `v18`, so files
/// written there are not those a 1.x baseline wrote. Errors: HDF5's.
pub fn run_facts() -> Result<Vec<(String, String)>> {
    let (low, high) = crate::ffi::hdf5::Plist::default_libver_bounds()?;
    let version = crate::ffi::hdf5::library_version();
    let latest = match version.split('.').collect::<Vec<_>>()[..] {
        ["1", "8", ..] => "v18",
        ["1", "10", ..] => "v110",
        ["1", "12", ..] => "v112",
        ["1", "14", ..] => "v114",
        _ => "",
    };
    Ok(if (low, high) == ("earliest", latest) {
        Vec::new()
    } else {
        vec![
            ("hdf5_libver_low".to_string(), low.to_string()),
            ("hdf5_libver_high".to_string(), high.to_string()),
        ]
    })
}

impl RunMeta {
    /// The run's metadata (collective: gathers every rank's host name, and with
    /// `conditions` every node's figures); `labels` (`--label`) and the conditions
    /// ([`super::conditions`]) are facts before the others.
    ///
    /// # Errors
    /// A broadcast fails.
    pub fn gather(
        comm: &Comm,
        info_pairs: Option<&[(String, String)]>,
        dir: &std::path::Path,
        command_line: &str,
        (labels, conditions): (&[(String, String)], bool),
    ) -> Result<RunMeta> {
        let size = comm.size()?;
        let me = hostname();
        let mut names = Vec::with_capacity(size as usize);
        for r in 0..size {
            // a host name is printed in the report: a control character in it is escaped
            let name = String::from_utf8_lossy(&comm.bcast_bytes(r, me.as_bytes())?).into_owned();
            names.push(crate::config::values::printable(&name));
        }
        let here = crate::datadir::dir_or_current(dir);
        let resolved = std::fs::canonicalize(here).unwrap_or_else(|_| here.to_path_buf());
        // the path as it is (JSON and CSV hold any character; the page replaces control
        // characters); bytes that are not UTF-8 as `\xNN`
        let data_dir = resolved.to_str().map_or_else(
            || crate::error::path_text(resolved.as_os_str()),
            str::to_string,
        );
        let fs_type = crate::ffi::posix::c_path(&resolved)
            .ok()
            .and_then(|c| crate::ffi::storage::file_system_name(&c).ok())
            .unwrap_or_else(|| "unknown".to_string());
        let now = rfc3339_utc(now_unix_seconds());
        let nodes = if conditions {
            super::conditions::gather_nodes(comm, &names)?
        } else {
            Vec::new()
        };
        let mut facts = super::conditions::label_facts(labels);
        if conditions {
            facts.extend(super::conditions::start_facts(&nodes, &resolved));
        }
        facts.extend(run_facts()?);
        facts.extend(super::scheduler::slurm_facts(&|k| std::env::var(k).ok()));
        Ok(RunMeta {
            h5perf_version: env!("CARGO_PKG_VERSION").to_string(),
            hdf5_version: crate::ffi::hdf5::library_version(),
            mpi_version: crate::ffi::mpi::library_version(),
            world_size: size,
            hostname_count: distinct_count(&names),
            timestamp: now.clone(),
            complete: false,
            end_time: now,
            command_line: command_line.to_string(),
            data_dir,
            fs_type,
            mpi_info: info_pairs.map(<[_]>::to_vec).unwrap_or_default(),
            hosts: host_counts(&names),
            rank_hosts: names,
            gather_time_s: 0.0,
            facts,
            nodes,
        })
    }

    /// The host of `rank`, or `?` when unknown.
    pub fn host_of(&self, rank: u32) -> &str {
        self.rank_hosts
            .get(rank as usize)
            .map_or("?", String::as_str)
    }

    /// `mpi_info` as one text field: `key=value` pairs joined by `;`.
    pub fn mpi_info_text(&self) -> String {
        joined(&self.mpi_info, '=')
    }

    /// `hosts` as one text field: `name:ranks` joined by `;`.
    pub fn hosts_text(&self) -> String {
        joined(&self.hosts, ':')
    }
}

/// `pairs` as one text field: `a=b;c=d` (`sep` `=`) or `n1:3;n2:1` (`sep` `:`).
fn joined<V: std::fmt::Display>(pairs: &[(String, V)], sep: char) -> String {
    let items: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}{sep}{v}")).collect();
    items.join(";")
}

/// (name, ranks) of each distinct host in `rank_hosts`, in the order of first rank.
pub fn host_counts(rank_hosts: &[String]) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = Vec::new();
    for h in rank_hosts {
        match v.iter_mut().find(|(n, _)| n == h) {
            Some(e) => e.1 += 1,
            None => v.push((h.clone(), 1)),
        }
    }
    v
}

/// `args` as one line a POSIX shell reads back as the same words: a word with
/// characters other than letters, digits and `-_./=:,+@%` is single-quoted.
pub fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a run is valid (issue 28, IO500's `[INVALID]`): every stonewalled write phase
/// of `records` lasted its deadline. A run without `--stonewall` is valid.
pub fn run_valid(records: &[Record]) -> bool {
    records
        .iter()
        .all(|r| r.wall.as_ref().is_none_or(|w| w[0].full()))
}

use value::{push_nulls, text, Value, Value::Float, Value::Int};

impl Value<'_> {
    /// The value as a CSV field holds it (empty when not known or not finite).
    fn text(&self) -> String {
        match self {
            Int(n) => n.to_string(),
            Float(x) => float_text(*x).unwrap_or_default(),
            Value::Text(s) => s.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => String::new(),
        }
    }
}

/// The parameter fields' names and values, then the storage options' when given; with
/// `--stonewall` last `valid`, whether the run of `records` is valid ([`run_valid`]).
fn param_fields(p: &Params, records: &[Record]) -> (Vec<&'static str>, Vec<Value<'static>>) {
    let pick = |on: bool, yes: &'static str, no: &'static str| text(if on { yes } else { no });
    let fill_value = match p.fill.value {
        None => text("default"),
        Some(FillValue::Undefined) => text("undefined"),
        Some(FillValue::Byte(b)) => text(b.to_string()),
    };
    let mut values = vec![
        Int(p.num_bytes),
        Int(p.blk_size),
        Int(p.num_files),
        Int(p.num_dsets),
        pick(p.dim2d, "2D", "1D"),
        pick(p.interleaved, "interleaved", "contiguous"),
        pick(p.collective, "collective", "independent"),
        pick(p.chunk, "chunked", "contiguous"),
        Int(p.h5_align),
        Int(p.h5_thresh),
        fill_value,
        text(p.fill.time.map_or("default", FillTime::name)),
        text(p.fill.alloc.map_or("default", AllocTime::name)),
    ];
    let mut names = FIELDS[FIRST_PARAM..FIRST_META].to_vec();
    for (k, v) in p.result_fields() {
        names.push(k);
        // --stonewall's seconds are a JSON number: the same text in CSV (at most three
        // decimals, so the shortest form of the f64 is the text given)
        match (k, p.stonewall.millis) {
            ("stonewall_s", Some(ms)) => values.push(Float(ms as f64 / 1000.0)),
            _ => values.push(text(v)),
        }
    }
    if p.stonewall.millis.is_some() {
        names.push("valid");
        values.push(Value::Bool(run_valid(records)));
    }
    (names, values)
}

fn meta_values(m: &RunMeta) -> [Value<'_>; FIRST_SPREAD - FIRST_META] {
    [
        text(&m.h5perf_version),
        text(&m.hdf5_version),
        text(&m.mpi_version),
        Int(u64::from(m.world_size)),
        Int(u64::from(m.hostname_count)),
        text(&m.timestamp),
    ]
}

fn run_values(m: &RunMeta) -> [Value<'_>; FIELDS.len() - FIRST_RUN] {
    [
        Value::Bool(m.complete),
        text(&m.timestamp),
        text(&m.end_time),
        text(&m.command_line),
        text(&m.data_dir),
        text(&m.fs_type),
        text(m.mpi_info_text()),
        text(m.hosts_text()),
    ]
}

/// The values of all fields of phase `pi` (of [`Phase::ALL`]) of `r`, in [`FIELDS`] order.
fn record_values<'a>(
    m: &'a RunMeta,
    params: &[Value<'a>],
    r: &Record,
    pi: usize,
) -> Vec<Value<'a>> {
    let (s, e) = (&r.phases[pi], &r.extremes[pi]);
    let mut v = vec![
        Int(u64::from(r.nprocs)),
        Int(r.xfer_size),
        Int(r.buf_bytes),
        text(r.api.name()),
        text(Phase::ALL[pi].key()),
        Int(r.bytes),
        Int(u64::from(r.iterations)),
    ];
    v.extend([s.min_time, s.avg_time, s.max_time].map(Float));
    v.extend([s.max_mibps, s.avg_mibps, s.min_mibps].map(Float));
    v.extend(params[..FIRST_META - FIRST_PARAM].iter().cloned());
    v.extend(meta_values(m));
    v.extend([s.std_time, s.std_mibps].map(Float));
    v.extend([s.max_gbps, s.avg_gbps, s.min_gbps].map(Float));
    if e.known {
        v.extend([
            Int(u64::from(e.slowest_rank)),
            text(m.host_of(e.slowest_rank)),
            Float(e.slowest_time),
            Int(u64::from(e.fastest_rank)),
            text(m.host_of(e.fastest_rank)),
            Float(e.fastest_time),
        ]);
    } else {
        push_nulls(&mut v, 6);
    }
    v.extend(run_values(m));
    v.extend(params[FIRST_META - FIRST_PARAM..].iter().cloned());
    v.extend(wall_values(r, pi));
    v.extend(latency_values(r, pi));
    v.extend(file_latency_values(r, pi));
    v.extend(m.facts.iter().map(|(_, f)| text(f.as_str())));
    v
}

/// The (record, phase index) pairs to write, in order, without phases that did not run.
pub(crate) fn rows<'r>(
    p: &Params,
    records: &'r [Record],
) -> impl Iterator<Item = (&'r Record, usize)> {
    let has_write = !p.storage.read_only;
    records.iter().flat_map(move |r| {
        (0..Phase::ALL.len())
            .filter(move |&i| match Phase::ALL[i].is_read() {
                true => r.has_read,
                false => has_write,
            })
            .map(move |i| (r, i))
    })
}

/// The per-rank samples of `records`, by record, iteration, phase, rank.
fn samples(meta: &RunMeta, p: &Params, records: &[Record]) -> Vec<RankSample> {
    let mut out = Vec::new();
    for r in records.iter().filter(|r| r.has_samples()) {
        for it in 0..r.iterations {
            for (_, pi) in rows(p, std::slice::from_ref(r)) {
                out.extend((0..r.nprocs).map(|rank| RankSample {
                    key: CellKey::new(r.nprocs, r.xfer_size, r.api, Phase::ALL[pi]),
                    iteration: it + 1,
                    rank,
                    host: meta.host_of(rank).to_string(),
                    time_s: r.sample(it, rank, pi).unwrap_or(0.0),
                }));
            }
        }
    }
    out
}

/// The run's results as a [`ResultSet`], as a later `--from` reads them back.
pub fn result_set(meta: &RunMeta, p: &Params, records: &[Record]) -> ResultSet {
    // RUN_FIELDS: the versions, sizes and start of meta_values, then run_values
    let run = meta_values(meta)[..5]
        .iter()
        .chain(&run_values(meta))
        .map(Value::text)
        .collect();
    let (names, values) = param_fields(p, records);
    let cells = rows(p, records)
        .map(|(r, pi)| {
            let (s, e) = (&r.phases[pi], &r.extremes[pi]);
            Cell {
                key: CellKey::new(r.nprocs, r.xfer_size, r.api, Phase::ALL[pi]),
                bytes: r.bytes,
                iterations: r.iterations,
                min_time_s: s.min_time,
                avg_time_s: s.avg_time,
                max_time_s: s.max_time,
                std_time_s: s.std_time,
                max_mibps: s.max_mibps,
                avg_mibps: s.avg_mibps,
                min_mibps: s.min_mibps,
                std_mibps: s.std_mibps,
                slowest: e
                    .known
                    .then(|| (e.slowest_rank, meta.host_of(e.slowest_rank).to_string())),
                latency: cell_latency(r, pi),
            }
        })
        .collect();
    ResultSet {
        run,
        parameters: names
            .into_iter()
            .zip(values)
            .map(|(n, v)| (n.to_string(), v.text()))
            .collect(),
        cells,
        samples: samples(meta, p, records),
        facts: meta.facts.clone(),
        timeseries: super::timeseries::samples(records, &|r| meta.host_of(r)),
        per_iteration: Vec::new(),
        per_host: Vec::new(),
    }
}

/// Whether the results hold the spread behind each measurement (`per_host`,
/// `per_iteration`, the CSV's [`HOST_FIELDS`]): with `--conditions` (the nodes known)
/// and the per-rank times gathered.
fn spread_known(meta: &RunMeta, records: &[Record]) -> bool {
    !meta.nodes.is_empty() && records.iter().any(Record::has_samples)
}

/// The results as one JSON document ending with a newline; `records` in run order.
pub fn to_json(meta: &RunMeta, p: &Params, records: &[Record]) -> String {
    let mut out = String::from("{\n");
    let top = FIELDS[FIRST_META..FIRST_SPREAD]
        .iter()
        .zip(meta_values(meta))
        .chain(
            FIELDS[FIRST_RUN..FIELDS.len() - 2]
                .iter()
                .zip(run_values(meta)),
        );
    for (name, v) in top {
        out.push_str("  ");
        json_string(&mut out, name);
        out.push_str(": ");
        json_value(&mut out, &v);
        out.push_str(",\n");
    }
    // the hints as an object, the hosts as an array of objects
    out.push_str("  \"mpi_info\": ");
    let (keys, hints): (Vec<&str>, Vec<Value<'_>>) = meta
        .mpi_info
        .iter()
        .map(|(k, v)| (k.as_str(), text(v)))
        .unzip();
    json_object(&mut out, &keys, &hints);
    out.push_str(",\n  \"hosts\": [");
    for (i, (h, n)) in meta.hosts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_object(&mut out, &["name", "ranks"], &[text(h), Int(u64::from(*n))]);
    }
    out.push(']');
    for (k, v) in &meta.facts {
        out.push_str(",\n  ");
        json_string(&mut out, k);
        out.push_str(": ");
        json_string(&mut out, v);
    }
    out.push_str(",\n  \"gather_time_s\": ");
    json_value(&mut out, &Float(meta.gather_time_s));
    out.push_str(",\n  \"parameters\": ");
    let (param_names, params) = param_fields(p, records);
    json_object(&mut out, &param_names, &params);
    out.push_str(",\n  \"records\": [");
    let names = field_names(p, &param_names, meta);
    for (i, (r, pi)) in rows(p, records).enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        json_object(&mut out, &names, &record_values(meta, &params, r, pi));
    }
    out.push_str(if records.is_empty() { "]" } else { "\n  ]" });
    if spread_known(meta, records) {
        per_host_json(&mut out, &result_set(meta, p, records));
    }
    if p.timeseries.is_some() {
        let host_of = |r: u32| meta.host_of(r);
        let w = super::timeseries::Writers {
            string: json_string,
            host_of: &host_of,
        };
        super::timeseries::json_array(&mut out, &w, records);
    }
    out.push_str("\n}\n");
    out
}

/// The field names of a record: [`FIELDS`], then the storage options' among
/// `param_names`, then with `--stonewall` the [`WALL_FIELDS`], with `--latency` the
/// [`LATENCY_FIELDS`] and the [`LATENCY_FILE_FIELDS`], then the names of `meta`'s facts.
fn field_names<'a>(p: &Params, param_names: &[&'a str], meta: &'a RunMeta) -> Vec<&'a str> {
    let storage = &param_names[FIRST_META - FIRST_PARAM..];
    let wall: &[&str] = if p.stonewall.millis.is_some() {
        &WALL_FIELDS
    } else {
        &[]
    };
    let latency: &[&str] = if p.latency { &LATENCY_FIELDS } else { &[] };
    let files: &[&str] = if p.latency { &LATENCY_FILE_FIELDS } else { &[] };
    FIELDS
        .iter()
        .chain(storage)
        .chain(wall)
        .chain(latency)
        .chain(files)
        .copied()
        .chain(meta.facts.iter().map(|(k, _)| k.as_str()))
        .collect()
}

/// The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
/// Injection": `=`, `+`, `-`, `@`, tab, carriage return), and the quote that marks them.
pub const FORMULA_LEADS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// One CSV text field (a host name, a hint, a path): as [`csv_field`], but one starting with
/// one of [`FORMULA_LEADS`] is written quoted, after a `'` (OWASP's advice), so that no
/// spreadsheet runs it; a reader takes the `'` off again (`readback`).
fn csv_text(out: &mut String, s: &str) {
    if s.starts_with(FORMULA_LEADS) {
        let _ = write!(out, "\"'{}\"", s.replace('"', "\"\""));
    } else {
        csv_field(out, s);
    }
}

/// One CSV field (RFC 4180): quoted when needed, inner double quotes doubled.
fn csv_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        let _ = write!(out, "\"{}\"", s.replace('"', "\"\""));
    } else {
        out.push_str(s);
    }
}

/// The results as CSV: the header row, then one row per (record, phase), each ending in `\n`.
pub fn to_csv(meta: &RunMeta, p: &Params, records: &[Record]) -> String {
    let (param_names, params) = param_fields(p, records);
    let hosts =
        spread_known(meta, records).then(|| per_host_columns(&result_set(meta, p, records)));
    let mut names = field_names(p, &param_names, meta);
    if hosts.is_some() {
        names.extend(HOST_FIELDS);
    }
    let mut out = names.join(",");
    out.push('\n');
    for (r, pi) in rows(p, records) {
        for (i, v) in record_values(meta, &params, r, pi).iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match v {
                Value::Text(t) => csv_text(&mut out, t),
                v => csv_field(&mut out, &v.text()),
            }
        }
        if let Some(hosts) = &hosts {
            let key = CellKey::new(r.nprocs, r.xfer_size, r.api, Phase::ALL[pi]);
            let values = hosts.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
            for i in 0..HOST_FIELDS.len() {
                out.push(',');
                csv_text(&mut out, values.map_or("", |v| v[i].as_str()));
            }
        }
        out.push('\n');
    }
    out
}

/// Number of distinct names in `names` (for [`RunMeta::hostname_count`]).
pub fn distinct_count<S: AsRef<str>>(names: &[S]) -> u32 {
    let set: std::collections::BTreeSet<&str> = names.iter().map(AsRef::as_ref).collect();
    u32::try_from(set.len()).unwrap_or(u32::MAX)
}

/// The header of the `--rank-csv` file.
pub const RANK_FIELDS: [&str; 11] = [
    "nprocs",
    "xfer_size",
    "api",
    "iteration",
    "phase",
    "rank",
    "host",
    "time_s",
    "bytes",
    "mibps",
    "gbps",
];

/// The per-rank samples as CSV (`--rank-csv`): [`RANK_FIELDS`], then one row per (record,
/// iteration from 1, phase, rank); `mibps`/`gbps` 0 for a zero time.
pub fn to_rank_csv(meta: &RunMeta, p: &Params, records: &[Record]) -> String {
    let mut out = RANK_FIELDS.join(",");
    out.push('\n');
    let f = |x: f64| float_text(x).unwrap_or_default();
    for r in records {
        let bytes = r.bytes / u64::from(r.nprocs.max(1));
        for s in samples(meta, p, std::slice::from_ref(r)) {
            let k = s.key;
            // --stonewall: the bytes this rank actually moved in the iteration
            let dir = usize::from(k.phase().is_read());
            let bytes = r
                .wall
                .as_ref()
                .and_then(|w| w[dir].rank_bytes(s.iteration as usize - 1, s.rank as usize))
                .unwrap_or(bytes);
            let _ = write!(
                out,
                "{},{},{},{},{},{},",
                k.nprocs,
                k.xfer_size,
                r.api.name(),
                s.iteration,
                k.phase().key(),
                s.rank
            );
            csv_text(&mut out, &s.host);
            let _ = writeln!(
                out,
                ",{},{bytes},{},{}",
                f(s.time_s),
                f(crate::measure::timer::mbps(bytes, s.time_s)),
                f(crate::measure::timer::gbps(bytes, s.time_s))
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Api, Options};
    use crate::measure::{PhaseStats, TimeStats};
    use serde_json::Value as J;

    fn meta() -> RunMeta {
        RunMeta {
            h5perf_version: "0.1.0".into(),
            hdf5_version: "1.10.8".into(),
            mpi_version: "Open MPI v4.1.4, package: \"Debian\" \\ ok\n\ttab\u{1}".into(),
            world_size: 4,
            hostname_count: 2,
            timestamp: rfc3339_utc(1_798_761_600),
            complete: true,
            end_time: rfc3339_utc(1_798_761_660),
            command_line: shell_line(&["h5perf".into(), "-e".into(), "a b".into()]),
            data_dir: "/scratch/u".into(),
            fs_type: "lustre".into(),
            mpi_info: vec![("striping_factor".into(), "4".into())],
            hosts: vec![("n1".into(), 3), ("n2".into(), 1)],
            rank_hosts: vec!["n1".into(), "n1".into(), "n2".into(), "n1".into()],
            gather_time_s: 0.25,
            facts: Vec::new(),
            nodes: Vec::new(),
        }
    }

    fn params() -> Params {
        let o = Options {
            num_bytes: 64 << 10,
            blk_size: 16 << 10,
            interleaved: true,
            collective: true,
            h5_align: 4096,
            h5_thresh: 2048,
            num_files: 2,
            num_dsets: 3,
            ..Options::default()
        };
        Params::resolve(&o, 4)
    }

    /// A record whose figures are distinct per phase and field: phase i has times
    /// 0.1·(i+1), 0.2·(i+1), 0.3·(i+1) and throughputs bytes/time.
    fn record(n: u32, xfer: u64, api: Api, has_read: bool) -> Record {
        let bytes = u64::from(n) * 3 * 2 * (64 << 10);
        let mut phases = [PhaseStats::default(); 6];
        for (i, s) in phases.iter_mut().enumerate() {
            if Phase::ALL[i].is_read() && !has_read {
                continue;
            }
            let k = (i + 1) as f64;
            let mib = bytes as f64 / 1_048_576.0;
            *s = PhaseStats {
                min_time: 0.1 * k,
                avg_time: 0.2 * k,
                max_time: 0.3 * k,
                max_mibps: mib / (0.1 * k),
                avg_mibps: mib / (0.2 * k),
                min_mibps: mib / (0.3 * k),
                ..PhaseStats::default()
            };
        }
        Record {
            nprocs: n,
            xfer_size: xfer,
            buf_bytes: xfer,
            api,
            bytes,
            iterations: 2,
            has_read,
            phases,
            open_close: [TimeStats::default(); 4],
            extremes: [crate::measure::Extremes::default(); 6],
            samples: Vec::new(),
            wall: None,
            latency: None,
            file_latency: None,
            timeseries: Vec::new(),
        }
    }

    fn records() -> Vec<Record> {
        let mut v = Vec::new();
        for n in [4, 2] {
            for xfer in [16384, 32768] {
                for api in Api::ALL {
                    v.push(record(n, xfer, api, true));
                }
            }
        }
        v
    }

    fn num(j: &J) -> f64 {
        j.as_f64().unwrap_or_else(|| panic!("not a number: {j}"))
    }

    #[test]
    fn json_parses_and_has_every_record_and_field() {
        let (m, p, recs) = (meta(), params(), records());
        let text = to_json(&m, &p, &recs);
        assert!(text.starts_with("{\n") && text.ends_with("\n}\n"));
        assert_eq!(text.lines().filter(|l| *l == "{").count(), 1);
        let j: J = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(j["mpi_version"], m.mpi_version.as_str());
        assert_eq!(j["world_size"], 4);
        assert_eq!(j["hostname_count"], 2);
        assert_eq!(j["timestamp"], "2027-01-01T00:00:00Z");
        assert_eq!(j["h5perf_version"], "0.1.0");
        assert_eq!(j["hdf5_version"], "1.10.8");
        let par = j["parameters"].as_object().unwrap();
        let names: Vec<&str> = par.keys().map(String::as_str).collect();
        let mut want: Vec<&str> = FIELDS[FIRST_PARAM..FIRST_META].to_vec();
        want.sort_unstable();
        let mut got = names.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(par["num_bytes"], 65536);
        assert_eq!(par["block_size"], 16384);
        assert_eq!(par["num_files"], 2);
        assert_eq!(par["num_dsets"], 3);
        assert_eq!(par["geometry"], "1D");
        assert_eq!(par["pattern"], "interleaved");
        assert_eq!(par["io_method"], "collective");
        assert_eq!(par["storage"], "contiguous");
        assert_eq!(par["align"], 4096);
        assert_eq!(par["threshold"], 2048);
        assert_eq!(par["fill_value"], "default");
        assert_eq!(par["fill_time"], "default");
        assert_eq!(par["alloc_time"], "default");

        let rs = j["records"].as_array().unwrap();
        assert_eq!(rs.len(), 2 * 2 * 3 * 6);
        assert_eq!(rows(&p, &recs).count(), rs.len());
        let mut k = 0;
        for r in &recs {
            for (i, ph) in Phase::ALL.iter().enumerate() {
                let o = rs[k].as_object().unwrap();
                k += 1;
                assert_eq!(o.len(), FIELDS.len());
                for f in FIELDS {
                    assert!(o.contains_key(f), "{f} missing");
                }
                assert_eq!(o["nprocs"], r.nprocs);
                assert_eq!(o["xfer_size"], r.xfer_size);
                assert_eq!(o["buf_bytes"], r.buf_bytes);
                assert_eq!(o["api"], r.api.name());
                assert_eq!(o["phase"], ph.key());
                assert_eq!(o["bytes"], r.bytes);
                assert_eq!(o["iterations"], 2);
                let s = &r.phases[i];
                // full precision: the parsed value is the very same f64
                assert_eq!(num(&o["min_time_s"]), s.min_time);
                assert_eq!(num(&o["avg_time_s"]), s.avg_time);
                assert_eq!(num(&o["max_time_s"]), s.max_time);
                assert_eq!(num(&o["max_mibps"]), s.max_mibps);
                assert_eq!(num(&o["avg_mibps"]), s.avg_mibps);
                assert_eq!(num(&o["min_mibps"]), s.min_mibps);
                // parameters and run fields are repeated in every record
                for (name, v) in par {
                    assert_eq!(&o[name], v, "{name}");
                }
                for f in &FIELDS[FIRST_META..FIRST_SPREAD] {
                    assert_eq!(o[*f], j[*f], "{f}");
                }
                for f in &FIELDS[FIRST_RUN..FIELDS.len() - 2] {
                    assert_eq!(o[*f], j[*f], "{f}");
                }
            }
        }
        // keys in FIELDS order
        let first = text
            .lines()
            .find(|l| l.trim_start().starts_with("{\"nprocs\""))
            .unwrap();
        let mut pos = 0;
        for f in FIELDS {
            let at = first[pos..].find(&format!("\"{f}\":")).expect(f) + pos;
            pos = at + 1;
        }
    }

    #[test]
    fn write_only_records_have_no_read_phases() {
        let recs = vec![
            record(2, 16384, Api::Posix, false),
            record(2, 16384, Api::Phdf5, false),
        ];
        let (m, p) = (meta(), params());
        let j: J = serde_json::from_str(&to_json(&m, &p, &recs)).unwrap();
        let phases: Vec<&str> = j["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["phase"].as_str().unwrap())
            .collect();
        assert_eq!(
            phases,
            [
                "raw_write",
                "write",
                "write_open_close",
                "raw_write",
                "write",
                "write_open_close"
            ]
        );
        assert_eq!(rows(&p, &recs).count(), 6);
        assert_eq!(parse_csv(&to_csv(&m, &p, &recs)).len(), 1 + 6);
    }

    #[test]
    fn storage_fields_only_when_given_and_read_only_has_no_write_phases() {
        let recs = vec![record(2, 16384, Api::Posix, true)];
        let (m, plain) = (meta(), params());
        let mut p = plain.clone();
        p.storage.read_only = true;
        p.storage.drop_caches = true;
        p.storage.reorder = Some(crate::config::Reorder::Shift(3));
        let j: J = serde_json::from_str(&to_json(&m, &p, &recs)).unwrap();
        let par = j["parameters"].as_object().unwrap();
        for (f, v) in [
            ("fsync", "off"),
            ("direct", "off"),
            ("reorder", "3"),
            ("read_only", "on"),
            ("drop_caches", "on"),
        ] {
            assert_eq!(par[f], v, "{f}");
        }
        let rs = j["records"].as_array().unwrap();
        let phases: Vec<&str> = rs.iter().map(|r| r["phase"].as_str().unwrap()).collect();
        assert_eq!(phases, ["raw_read", "read", "read_open_close"]);
        assert_eq!(rows(&p, &recs).count(), 3);
        assert_eq!(rs[0]["drop_caches"], "on");
        assert_eq!(rs[0].as_object().unwrap().len(), FIELDS.len() + 5);
        // CSV: the existing columns keep their places, the storage ones follow
        let csv = parse_csv(&to_csv(&m, &p, &recs));
        let header: Vec<String> = FIELDS
            .iter()
            .chain(["fsync", "direct", "reorder", "read_only", "drop_caches"].iter())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(csv[0], header);
        assert_eq!(csv.len(), 1 + 3);
        assert_eq!(&csv[1][FIELDS.len()..], ["off", "off", "3", "on", "on"]);
        // without storage options nothing of this appears
        let plain_json = to_json(&m, &plain, &recs);
        for f in ["fsync", "direct", "reorder", "read_only", "drop_caches"] {
            assert!(!plain_json.contains(&format!("\"{f}\"")), "{f}");
        }
        assert_eq!(parse_csv(&to_csv(&m, &plain, &recs))[0].len(), FIELDS.len());
    }

    #[test]
    fn empty_run_is_valid() {
        let (m, p) = (meta(), params());
        let j: J = serde_json::from_str(&to_json(&m, &p, &[])).unwrap();
        assert_eq!(j["records"].as_array().unwrap().len(), 0);
        assert_eq!(to_csv(&m, &p, &[]), format!("{}\n", FIELDS.join(",")));
    }

    #[test]
    fn zero_and_non_finite_figures() {
        let mut r = record(1, 8, Api::Mpiio, true);
        r.phases[0] = PhaseStats::default();
        r.phases[1].max_mibps = f64::INFINITY;
        r.phases[1].avg_mibps = f64::NAN;
        let (m, p) = (meta(), params());
        let text = to_json(&m, &p, std::slice::from_ref(&r));
        assert!(
            text.contains("\"min_time_s\":0,\"avg_time_s\":0,\"max_time_s\":0,\"max_mibps\":0,")
        );
        assert!(!text.contains(":inf") && !text.contains("NaN"));
        let j: J = serde_json::from_str(&text).unwrap();
        assert_eq!(j["records"][0]["max_mibps"], 0);
        assert!(j["records"][1]["max_mibps"].is_null());
        assert!(j["records"][1]["avg_mibps"].is_null());
        let rows = parse_csv(&to_csv(&m, &p, std::slice::from_ref(&r)));
        assert_eq!(
            rows[1][..13].join(","),
            "1,8,8,mpiio,raw_write,393216,2,0,0,0,0,0,0"
        );
        assert_eq!(
            rows[2][7..13].join(","),
            format!("0.2,0.4,0.6,,,{}", rows[2][12])
        );
        assert!(!rows[2][12].is_empty());
    }

    #[test]
    fn float_text_is_shortest_round_trip() {
        for x in [
            0.1,
            1.0 / 3.0,
            2500.0,
            1e-9,
            123456789.123,
            0.0,
            5e-324,
            1.7976931348623157e308,
        ] {
            let t = float_text(x).unwrap();
            assert!(!t.contains('e') && !t.contains("inf"), "{t}");
            assert_eq!(t.parse::<f64>().unwrap(), x, "{t}");
        }
        assert_eq!(float_text(0.0).unwrap(), "0");
        assert_eq!(float_text(0.1).unwrap(), "0.1");
        assert_eq!(float_text(2500.0).unwrap(), "2500");
        assert_eq!(float_text(f64::NEG_INFINITY), None);
    }

    #[test]
    fn json_string_escaping() {
        let mut s = String::new();
        json_string(&mut s, "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{1}i\u{1f}j\u{7f}é/");
        assert_eq!(
            s,
            "\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001fj\u{7f}é/\""
        );
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{1}i\u{1f}j\u{7f}é/");
    }

    #[test]
    fn csv_header_rows_and_quoting() {
        let (m, p, recs) = (meta(), params(), records());
        let csv = to_csv(&m, &p, &recs);
        assert!(csv.ends_with('\n') && !csv.contains("\r\n"));
        let header = csv.lines().next().unwrap();
        assert_eq!(header, FIELDS.join(","));
        assert!(header.starts_with("nprocs,xfer_size,"));
        // the MPI version holds a newline, so count rows by their first field
        let rows = parse_csv(&csv);
        assert_eq!(rows.len(), 1 + 72);
        for row in &rows {
            assert_eq!(row.len(), FIELDS.len());
        }
        let col = |name: &str| FIELDS.iter().position(|f| *f == name).unwrap();
        let r = &rows[1];
        assert_eq!(r[col("mpi_version")], m.mpi_version);
        assert_eq!(r[col("timestamp")], "2027-01-01T00:00:00Z");
        assert_eq!(r[col("phase")], "raw_write");
        assert_eq!(r[col("api")], "posix");
        assert_eq!(r[col("pattern")], "interleaved");
        assert_eq!(r[col("min_time_s")].parse::<f64>().unwrap(), 0.1);
        // CSV and JSON agree value for value
        let j: J = serde_json::from_str(&to_json(&m, &p, &recs)).unwrap();
        for (row, rec) in rows[1..].iter().zip(j["records"].as_array().unwrap()) {
            for (f, cell) in FIELDS.iter().zip(row) {
                match &rec[*f] {
                    J::String(s) => assert_eq!(cell, s, "{f}"),
                    J::Null => assert_eq!(cell, "", "{f}"),
                    J::Bool(b) => assert_eq!(cell, &b.to_string(), "{f}"),
                    v => assert_eq!(cell.parse::<f64>().unwrap(), num(v), "{f}"),
                }
            }
        }
        let mut s = String::new();
        for f in ["plain", "a,b", "say \"hi\"", "two\nlines", "cr\r", ""] {
            csv_field(&mut s, f);
            s.push('|');
        }
        // formulas are not cells that run: quoted after a '
        let mut f = String::new();
        for t in [
            "=1+2", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "'=x", "'a", "a=1", "", "h",
        ] {
            csv_text(&mut f, t);
            f.push('|');
        }
        assert_eq!(
            f,
            "\"'=1+2\"|\"'+1\"|\"'-2\"|\"'@SUM(A1)\"|\"'\tx\"|\"'\rx\"|\"''=x\"|\"''a\"|a=1||h|"
        );
        assert_eq!(
            s,
            "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"cr\r\"||"
        );
    }

    /// A minimal RFC 4180 reader for the tests.
    fn parse_csv(text: &str) -> Vec<Vec<String>> {
        let mut rows = vec![];
        let mut row = vec![];
        let mut field = String::new();
        let mut quoted = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (true, c) => field.push(c),
                (false, '"') => quoted = true,
                (false, ',') => row.push(std::mem::take(&mut field)),
                (false, '\n') => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                (false, c) => field.push(c),
            }
        }
        assert!(field.is_empty() && row.is_empty(), "unterminated last line");
        rows
    }

    #[test]
    fn timestamps() {
        // expected values from `date -u -d @N +%Y-%m-%dT%H:%M:%SZ`
        for (n, want) in [
            (0, "1970-01-01T00:00:00Z"),
            (86_399, "1970-01-01T23:59:59Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_234_567_890, "2009-02-13T23:31:30Z"),
            (1_709_251_199, "2024-02-29T23:59:59Z"),
            (1_798_761_600, "2027-01-01T00:00:00Z"),
            (4_102_444_800, "2100-01-01T00:00:00Z"),
            (4_107_542_399, "2100-02-28T23:59:59Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (11_017_036_800, "2319-02-13T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ] {
            assert_eq!(rfc3339_utc(n), want, "{n}");
        }
        assert_eq!(rfc3339_utc(253_402_300_800), "10000-01-01T00:00:00Z");
        assert!(now_unix_seconds() > 1_700_000_000);
    }

    #[test]
    fn hostnames() {
        assert!(!hostname().is_empty());
        assert_eq!(distinct_count(&["a", "b", "a"]), 2);
        assert_eq!(distinct_count::<&str>(&[]), 0);
        assert_eq!(distinct_count(&[String::from("n1")]), 1);
    }

    #[test]
    fn run_metadata_and_spread_fields() {
        let (mut m, p) = (meta(), params());
        let mut r = record(4, 16384, Api::Posix, true);
        r.extremes[1] = crate::measure::Extremes {
            known: true,
            slowest_rank: 2,
            slowest_time: 0.4,
            slowest_iteration: 1,
            fastest_rank: 3,
            fastest_time: 0.1,
        };
        m.complete = false;
        let j: J = serde_json::from_str(&to_json(&m, &p, std::slice::from_ref(&r))).unwrap();
        assert_eq!(j["complete"], false);
        assert_eq!(j["command_line"], "h5perf -e 'a b'");
        assert_eq!(j["fs_type"], "lustre");
        assert_eq!(j["data_dir"], "/scratch/u");
        assert_eq!(j["mpi_info"]["striping_factor"], "4");
        assert_eq!(j["hosts"][1]["name"], "n2");
        assert_eq!(j["hosts"][0]["ranks"], 3);
        assert_eq!(j["gather_time_s"], 0.25);
        let w = &j["records"][1];
        assert_eq!(w["phase"], "write");
        assert_eq!(w["slowest_rank"], 2);
        assert_eq!(w["slowest_host"], "n2");
        assert_eq!(w["fastest_host"], "n1");
        assert_eq!(w["complete"], false);
        assert_eq!(w["mpi_info"], "striping_factor=4");
        assert_eq!(w["hosts"], "n1:3;n2:1");
        assert!(j["records"][0]["slowest_rank"].is_null());
        let rows = parse_csv(&to_csv(&m, &p, std::slice::from_ref(&r)));
        let col = |name: &str| FIELDS.iter().position(|f| *f == name).unwrap();
        assert_eq!(rows[2][col("slowest_host")], "n2");
        assert_eq!(rows[1][col("slowest_host")], "");
        assert_eq!(rows[1][col("complete")], "false");
        assert_eq!(host_counts(&m.rank_hosts), m.hosts);
        assert_eq!(
            shell_line(&["a".into(), "it's".into(), "".into(), "x=1,2".into()]),
            "a 'it'\\''s' '' x=1,2"
        );
    }

    #[test]
    fn facts_follow_the_hosts_and_end_every_record() {
        let (mut m, p) = (meta(), params());
        let rs = records();
        let (json, csv) = (to_json(&m, &p, &rs), to_csv(&m, &p, &rs));
        m.facts = vec![
            ("hdf5_libver_low".into(), "v18".into()),
            ("hdf5_libver_high".into(), "v200".into()),
        ];
        let with = to_json(&m, &p, &rs);
        assert!(with.contains(
            "],\n  \"hdf5_libver_low\": \"v18\",\n  \"hdf5_libver_high\": \"v200\",\n  \"gather_time_s\""
        ));
        // without them nothing changes: the same document less those two lines
        let j: J = serde_json::from_str(&with).unwrap();
        assert_eq!(j["records"][0]["hdf5_libver_high"], "v200");
        let last = j["records"][0].as_object().unwrap().keys().count();
        assert_eq!(last, FIELDS.len() + 2);
        assert!(!json.contains("libver") && !csv.contains("libver"));
        let rows = parse_csv(&to_csv(&m, &p, &rs));
        assert_eq!(
            rows[0][FIELDS.len()..],
            ["hdf5_libver_low", "hdf5_libver_high"]
        );
        assert_eq!(rows[1][FIELDS.len()..], ["v18", "v200"]);
        assert_eq!(result_set(&m, &p, &rs).facts, m.facts);
    }

    #[test]
    fn rank_csv_rows() {
        let (m, p) = (meta(), params());
        let mut r = record(4, 16384, Api::Mpiio, false);
        r.samples = (0..2 * 4 * 6).map(|i| f64::from(i) / 100.0).collect();
        let rows = parse_csv(&to_rank_csv(&m, &p, std::slice::from_ref(&r)));
        assert_eq!(rows[0], RANK_FIELDS);
        // 2 iterations × 3 write phases × 4 ranks
        assert_eq!(rows.len(), 1 + 2 * 3 * 4);
        assert_eq!(rows[1][..7].join(","), "4,16384,mpiio,1,raw_write,0,n1");
        assert_eq!(rows[7][..7].join(","), "4,16384,mpiio,1,write,2,n2");
        assert_eq!(
            rows[7][7].parse::<f64>().unwrap(),
            r.sample(0, 2, 1).unwrap()
        );
        assert_eq!(rows[7][8], (r.bytes / 4).to_string());
        let none = record(4, 16384, Api::Mpiio, false);
        assert_eq!(to_rank_csv(&m, &p, &[none]).lines().count(), 1);
    }
}
