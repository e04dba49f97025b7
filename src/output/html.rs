//! The HTML page of a run (`--html FILE`): self-contained (inline CSS and SVG, no script),
//! made from the [`ResultSet`] and its verdict only, as `--from` makes it. No I/O.

use std::fmt::Write as _;

use crate::config::criteria::Criterion;
use crate::config::Api;
use crate::measure::Phase;

use super::conditions::NODE_FACTS;
use super::results::{api_title, procs_text, size_text, Cell, CellKey, RankSample, ResultSet};
use super::svg::{self, esc, Bound, Chart, Mark, Point, Series};
use super::verdict::{figure, Verdict};

mod latency;
mod spread_tables;
mod timeseries;
mod verdict;
use verdict::verdict_section;

/// The page's style sheet (the charts' classes are [`svg::CSS`]).
const PAGE_CSS: &str = "\
body{font-family:sans-serif;margin:0 auto;max-width:1000px;padding:12px;color:#222;font-size:14px}\
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;border-bottom:1px solid #bbb;margin:18px 0 6px}\
h3{font-size:14px;margin:10px 0 4px}code{font-size:12px;word-break:break-all}\
table{border-collapse:collapse;font-size:12px;margin:4px 0}\
td,th{border:1px solid #ccc;padding:2px 5px;text-align:left;vertical-align:top}\
th{background:#f3f3f3}td.n{text-align:right}td.bad{background:#fbdada}\
#summary table{font-size:11px}small{color:#555;white-space:nowrap}\
.params{font-size:12px;margin:4px 0}.params span{display:inline-block;margin-right:12px}\
.badge{display:inline-block;padding:2px 10px;border-radius:3px;color:#fff;font-weight:bold}\
.pass{background:#1a7f37;color:#fff}.fail{background:#c62828;color:#fff}.none{background:#777}\
.grid{display:grid;grid-template-columns:1fr 1fr;gap:6px 14px}\
figure{margin:0;break-inside:avoid}figcaption{font-size:11px;color:#444}\
ul{margin:2px 0;padding-left:20px;font-size:12px}.note{font-size:12px;color:#444}\
@media (max-width:640px){.grid{grid-template-columns:1fr}}\
@media print{body{max-width:none;padding:0;font-size:11px}h2,h3{break-after:avoid}}\
@page{size:A4;margin:12mm}";

/// The phases in chart order: write and read side by side.
const CHART_ORDER: [Phase; 6] = [
    Phase::RawWrite,
    Phase::RawRead,
    Phase::Write,
    Phase::Read,
    Phase::WriteOpenClose,
    Phase::ReadOpenClose,
];

/// The x ticks of `values` at `pos(value)`: a tick for each, at most about `labels` labelled.
fn ticks<T: Copy>(
    values: &[T],
    labels: usize,
    pos: impl Fn(T) -> f64,
    text: impl Fn(T) -> String,
) -> Vec<(f64, String)> {
    let every = values.len().div_ceil(labels.max(1)).max(1);
    values
        .iter()
        .enumerate()
        .map(|(i, v)| match i % every {
            0 => (pos(*v), text(*v)),
            _ => (pos(*v), String::new()),
        })
        .collect()
}

/// log2 of a size or count (1 for 0).
fn log2(v: f64) -> f64 {
    v.max(1.0).log2()
}

/// The bounds (MiB/s) of the criteria about (api, phase) on a chart of `steps` (x, processes,
/// transfer size): across the chart when a criterion selects every x, else at those it selects.
fn bounds(
    run: &ResultSet,
    criteria: &[Criterion],
    api: Api,
    phase: Phase,
    steps: &[(f64, u32, u64)],
) -> Vec<Bound> {
    let measured: Vec<&(f64, u32, u64)> = steps
        .iter()
        .filter(|(_, n, x)| run.cell(&CellKey::new(*n, *x, api, phase)).is_some())
        .collect();
    let positions = |keep: &dyn Fn(u32, u64) -> bool| {
        let mut xs: Vec<f64> = measured
            .iter()
            .filter(|(_, n, x)| keep(*n, *x))
            .map(|p| p.0)
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs
    };
    let every = positions(&|_, _| true);
    criteria
        .iter()
        .filter(|c| c.api() == api && c.phase() == phase && c.is_throughput())
        .filter_map(|c| {
            let at = positions(&|n, x| c.selects(n, x, api, phase));
            (!at.is_empty()).then(|| Bound {
                y: c.bound_bytes_per_second() / 1_048_576.0,
                label: c.text().to_string(),
                at: (at != every).then_some(at),
            })
        })
        .collect()
}

/// The lines of a throughput chart: per line its name and the keys of its measured points.
fn lines(
    run: &ResultSet,
    lines: Vec<(String, Vec<CellKey>)>,
    x: impl Fn(&Cell) -> f64,
    title: impl Fn(&Cell) -> String,
    flagged: &[CellKey],
) -> Vec<Series> {
    let point = |c: &Cell| Point {
        x: x(c),
        y: c.avg_mibps,
        lo: c.min_mibps,
        hi: c.max_mibps,
        title: title(c),
        mark: if flagged.contains(&c.key) {
            Mark::Failed
        } else {
            Mark::Plain
        },
    };
    lines
        .into_iter()
        .map(|(name, keys)| Series {
            name,
            points: keys.iter().filter_map(|k| run.cell(k)).map(point).collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// The chart of throughput against transfer size of (api, phase).
fn size_chart(
    run: &ResultSet,
    api: Api,
    phase: Phase,
    criteria: &[Criterion],
    flagged: &[CellKey],
) -> Chart {
    let (sizes, procs) = (run.sizes(), run.procs());
    let keys = |n| {
        sizes
            .iter()
            .map(|&x| CellKey::new(n, x, api, phase))
            .collect()
    };
    let title = |c: &Cell| {
        format!(
            "{}, {}: mean {} MiB/s (min {}, max {}, sd {})",
            procs_text(c.key.nprocs),
            size_text(c.key.xfer_size),
            figure(c.avg_mibps),
            figure(c.min_mibps),
            figure(c.max_mibps),
            figure(c.std_mibps)
        )
    };
    let named = procs.iter().map(|&n| (procs_text(n), keys(n))).collect();
    let steps: Vec<(f64, u32, u64)> = procs
        .iter()
        .flat_map(|&n| sizes.iter().map(move |&x| (log2(x as f64), n, x)))
        .collect();
    Chart {
        id: format!("size-{}-{}", api.name(), phase.key().replace('_', "-")),
        kind: "size",
        title: format!("{} — {}", api_title(api), phase.title()),
        x_label: "Transfer size, bytes (log scale)".to_string(),
        y_label: "Throughput (MiB/s)".to_string(),
        x_ticks: ticks(&sizes, 6, |x| log2(x as f64), size_text),
        series: lines(run, named, |c| log2(c.key.xfer_size as f64), title, flagged),
        bounds: bounds(run, criteria, api, phase, &steps),
        bars: true,
        y_ticks: None,
    }
}

/// The chart of throughput against processes of `phase` at transfer size `xfer`.
fn procs_chart(
    run: &ResultSet,
    phase: Phase,
    xfer: u64,
    criteria: &[Criterion],
    flagged: &[CellKey],
) -> Chart {
    let (procs, apis) = (run.procs(), run.apis());
    let keys = |api| {
        procs
            .iter()
            .map(|&n| CellKey::new(n, xfer, api, phase))
            .collect()
    };
    let title = |c: &Cell| {
        format!(
            "{} {}: mean {} MiB/s (min {}, max {})",
            api_title(c.key.api()),
            procs_text(c.key.nprocs),
            figure(c.avg_mibps),
            figure(c.min_mibps),
            figure(c.max_mibps)
        )
    };
    let named = apis
        .iter()
        .map(|&a| (api_title(a).to_string(), keys(a)))
        .collect();
    let drawn: Vec<Bound> = if apis.len() == 1 {
        let steps: Vec<(f64, u32, u64)> = procs
            .iter()
            .map(|&n| (log2(f64::from(n)), n, xfer))
            .collect();
        bounds(run, criteria, apis[0], phase, &steps)
    } else {
        Vec::new()
    };
    Chart {
        id: format!("procs-{}", phase.key().replace('_', "-")),
        kind: "procs",
        title: format!("{} — transfer size {}", phase.title(), size_text(xfer)),
        x_label: "Processes (log scale)".to_string(),
        y_label: "Throughput (MiB/s)".to_string(),
        x_ticks: ticks(&procs, 8, |n| log2(f64::from(n)), |n| n.to_string()),
        series: lines(
            run,
            named,
            |c| log2(f64::from(c.key.nprocs)),
            title,
            flagged,
        ),
        bounds: drawn,
        bars: true,
        y_ticks: None,
    }
}

/// The per-rank chart of `api` in the step (nprocs, xfer) and its caption, if it has samples.
fn rank_chart(run: &ResultSet, api: Api, nprocs: u32, xfer: u64) -> Option<(Chart, String)> {
    let mine: Vec<&RankSample> = run
        .samples
        .iter()
        .filter(|s| s.key.nprocs == nprocs && s.key.xfer_size == xfer && s.key.api() == api)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let ranks: Vec<u32> = (0..nprocs).collect();
    let mut series = Vec::new();
    let mut caption = Vec::new();
    for phase in Phase::ALL {
        let key = CellKey::new(nprocs, xfer, api, phase);
        let of_phase: Vec<&&RankSample> = mine.iter().filter(|s| s.key == key).collect();
        if of_phase.is_empty() {
            continue;
        }
        // each rank's largest time (the first of equals) and its number of iterations
        let worst: Vec<(u32, &RankSample, u32)> = ranks
            .iter()
            .filter_map(|&r| {
                let times = of_phase.iter().filter(|s| s.rank == r);
                let n = u32::try_from(times.clone().count()).unwrap_or(u32::MAX);
                let max = times.reduce(|a, b| if b.time_s > a.time_s { b } else { a })?;
                Some((r, **max, n))
            })
            .collect();
        let top = worst
            .iter()
            .reduce(|a, b| if b.1.time_s > a.1.time_s { b } else { a })
            .map(|w| w.0);
        let points = worst
            .iter()
            .map(|&(r, s, n)| Point {
                x: f64::from(r),
                y: s.time_s,
                lo: s.time_s,
                hi: s.time_s,
                title: format!(
                    "rank {r} ({}): {} s in {} (largest of {n} iteration{})",
                    s.host,
                    figure(s.time_s),
                    phase.title(),
                    if n == 1 { "" } else { "s" }
                ),
                mark: if Some(r) == top {
                    Mark::Top
                } else {
                    Mark::Plain
                },
            })
            .collect();
        series.push(Series {
            name: phase.title().to_string(),
            points,
        });
        if let Some((rank, host)) = run.cell(&key).and_then(|c| c.slowest.clone()) {
            caption.push(format!("{}: rank {rank} ({host})", phase.title()));
        }
    }
    let chart = Chart {
        id: format!("ranks-{}", api.name()),
        kind: "ranks",
        title: format!(
            "{} — per-rank times, {}, {}",
            api_title(api),
            procs_text(nprocs),
            size_text(xfer)
        ),
        x_label: "Rank".to_string(),
        y_label: "Time (s), largest of the iterations".to_string(),
        x_ticks: ticks(&ranks, 16, f64::from, |r| r.to_string()),
        series,
        bounds: Vec::new(),
        bars: false,
        y_ticks: None,
    };
    let text = match caption.is_empty() {
        true => String::new(),
        false => format!("Slowest rank — {}.", caption.join("; ")),
    };
    Some((chart, text))
}

/// The caption of the chart of `api` and `phase` when its figures are page-cache figures
/// ([`crate::config::acceptance::cache_figure`]) and either the run had `--stable`
/// (`stable`: its page must not pass a cache figure off as the storage's) or the verdict
/// knows the measurement mode and a criterion bounds that chart; empty otherwise.
fn caveat(
    (run, stable): (&ResultSet, bool),
    verdict: Option<&Verdict>,
    criteria: &[Criterion],
    api: Api,
    phase: Phase,
) -> String {
    let bounded = verdict.and_then(|v| v.mode.as_ref()).is_some()
        && criteria
            .iter()
            .any(|c| c.api() == api && c.phase() == phase);
    if !bounded && !stable {
        return String::new();
    }
    let b = super::verdict::Mode::bypass_of(run);
    crate::config::acceptance::cache_figure(api, phase, b)
        .map(|why| format!("Caveat: a page-cache figure, not the storage's: {why}."))
        .unwrap_or_default()
}

/// What the page says of an invalid run (`--stonewall`, issue 28).
const INVALID_TEXT: &str = "INVALID: a stonewalled write phase ended before its deadline \
                            (the volume, -e, is too small to measure for that long)";

/// The run's validity (`--stonewall`: the parameter `valid`), `None` without it.
pub fn run_validity(run: &ResultSet) -> Option<bool> {
    run.parameters
        .iter()
        .find(|(k, _)| k == "valid")
        .map(|(_, v)| v != "false")
}

/// The run's metadata and parameters.
fn run_section(out: &mut String, run: &ResultSet) {
    let f = |n: &str| run.run_field(n);
    let complete = match f("complete") {
        "true" => "yes",
        "false" => "no: the run did not finish every step, or -D v found wrong bytes",
        other => other,
    };
    let hints = match f("mpi_info") {
        "" => "none".to_string(),
        h => h.replace(';', ", "),
    };
    let rows = [
        ("Command line", f("command_line").to_string()),
        ("Started", f("start_time").to_string()),
        ("Ended", f("end_time").to_string()),
        ("Complete", complete.to_string()),
        (
            "Versions",
            format!(
                "h5perf {}, HDF5 {}, {}",
                f("h5perf_version"),
                f("hdf5_version"),
                f("mpi_version").lines().next().unwrap_or("")
            ),
        ),
        (
            "Processes",
            format!(
                "{} on {} host(s): {}",
                f("world_size"),
                f("hostname_count"),
                f("hosts").replace(';', ", ")
            ),
        ),
        (
            "Data directory",
            format!("{} ({})", f("data_dir"), f("fs_type")),
        ),
        ("MPI-IO hints", hints),
    ];
    let mut rows = rows.to_vec();
    if let Some(valid) = run_validity(run) {
        let v = if valid {
            "yes".to_string()
        } else {
            format!("no: {INVALID_TEXT}")
        };
        rows.insert(4, ("Valid (--stonewall)", v));
    }
    out.push_str("<section id=\"run\"><h2>Run</h2>\n<table>");
    // the labels are the sign-off block's, the nodes' the hosts table's
    // with the conditions recorded, lists (`a=1;b=2`) may wrap after each `;` (ROMIO's
    // hints in effect are one long word)
    let wrap = fact(run, "mpi_io_env").is_some();
    let facts = run
        .facts
        .iter()
        .filter(|(k, _)| k != "labels" && !NODE_FACTS.contains(&k.as_str()))
        .map(|(k, v)| {
            (
                fact_title(k),
                if wrap {
                    v.replace(';', "; ")
                } else {
                    v.clone()
                },
            )
        });
    for (k, v) in rows.into_iter().chain(facts) {
        let v = match k {
            "Command line" => format!("<code>{}</code>", esc(&v)),
            _ => esc(&v),
        };
        let _ = write!(out, "<tr><th>{k}</th><td>{v}</td></tr>");
    }
    out.push_str("</table>\n<p class=\"params\">");
    for (k, v) in &run.parameters {
        let _ = write!(out, "<span><b>{}</b> {}</span> ", esc(k), esc(v));
    }
    out.push_str("</p></section>\n");
}

/// The row title of a fact of [`crate::output::results::FACT_KEYS`].
fn fact_title(key: &str) -> &'static str {
    match key {
        "hdf5_libver_low" => "HDF5 file-format low bound",
        "hdf5_libver_high" => "HDF5 file-format high bound",
        "slurm_job_id" => "Slurm job",
        "slurm_job_name" => "Slurm job name",
        "slurm_job_nodelist" => "Slurm node list",
        "slurm_tasks_per_node" => "Slurm tasks per node",
        "slurm_time_limit" => "Slurm time limit",
        "mpi_hints_in_effect_mpiio" => "MPI-IO hints in effect (MPI-IO)",
        "mpi_hints_in_effect_phdf5" => "MPI-IO hints in effect (PHDF5)",
        "hdf5_all_coll_metadata_ops" => "HDF5 collective metadata reads in effect",
        "hdf5_coll_metadata_write" => "HDF5 collective metadata writes in effect",
        "hdf5_chunk_cache" => "HDF5 chunk cache in effect (bytes,slots,w0)",
        "hdf5_driver" => "HDF5 file driver",
        "hdf5_subfiling_stripe_size" => "HDF5 subfiling stripe size (bytes)",
        "hdf5_subfiling_ioc_count" => "HDF5 subfiling I/O concentrators",
        "hdf5_subfiling_subfiles" => "HDF5 subfiles",
        "data_dir_mount_point" => "Data directory's mount point",
        "data_dir_mount_source" => "Mount source",
        "data_dir_mount_type" => "Mount type",
        "data_dir_mount_options" => "Mount options",
        "data_dir_super_options" => "File-system options",
        "data_dir_device" => "Device (major:minor)",
        "mpi_io_env" => "MPI-IO and HDF5 environment",
        "mpi_io_component" => "MPI-IO component",
        "load_end" => "Load average at the end (rank 0's host)",
        "page_cache_warning" => "Page-cache warning",
        _ => "Other",
    }
}

/// The fact `key` of `run` (`None` when not recorded).
fn fact<'a>(run: &'a ResultSet, key: &str) -> Option<&'a str> {
    run.facts
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// `a=1;b=2` as (`a`, `1`), (`b`, `2`).
fn pairs(text: &str) -> Vec<(&str, &str)> {
    text.split(';').filter_map(|p| p.split_once('=')).collect()
}

/// The sign-off block (`--label`): each label, then when the run started and ended and
/// the h5perf version; nothing without labels.
fn signoff_section(out: &mut String, run: &ResultSet) {
    let Some(labels) = fact(run, "labels") else {
        return;
    };
    out.push_str("<section id=\"signoff\"><h2>Sign-off</h2>\n<table>");
    let f = |n: &str| run.run_field(n).to_string();
    let rows = pairs(labels)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain([
            ("Started".to_string(), f("start_time")),
            ("Ended".to_string(), f("end_time")),
            ("h5perf".to_string(), f("h5perf_version")),
        ])
        .chain(
            super::verdict::stable_text(run).map(|s| (super::verdict::STABLE_TITLE.to_string(), s)),
        );
    for (k, v) in rows {
        let _ = write!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(&k), esc(&v));
    }
    out.push_str("</table></section>\n");
}

/// The hosts table (`--conditions`): per host its ranks, kernel, memory, processors
/// and load at the start; nothing without the node facts.
fn hosts_section(out: &mut String, run: &ResultSet) {
    let columns: Vec<Vec<(&str, &str)>> = NODE_FACTS
        .iter()
        .map(|k| fact(run, k).map(pairs).unwrap_or_default())
        .collect();
    if columns[0].is_empty() {
        return;
    }
    let ranks = pairs(&run.run_field("hosts").replace(':', "="))
        .into_iter()
        .map(|(h, n)| (h.to_string(), n.to_string()))
        .collect::<Vec<_>>();
    out.push_str("<section id=\"hosts\"><h2>Hosts</h2>\n<table><tr><th>Host</th><th>Ranks</th><th>Kernel</th><th>Memory</th><th>Processors</th><th>Model</th><th>Load at start (1, 5, 15 min)</th></tr>\n");
    for (host, _) in &columns[0] {
        let of = |i: usize| {
            columns[i]
                .iter()
                .find(|(h, _)| h == host)
                .map_or("?", |(_, v)| *v)
                .to_string()
        };
        let memory = match of(1).parse::<u64>() {
            Ok(b) => format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30)),
            Err(_) => of(1),
        };
        let n = ranks
            .iter()
            .find(|(h, _)| h == host)
            .map_or("?", |(_, n)| n.as_str());
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(host),
            esc(n),
            esc(&of(0)),
            esc(&memory),
            esc(&of(2)),
            esc(&of(3)),
            esc(&of(4))
        );
    }
    out.push_str("</table></section>\n");
}

/// The summary table: per (API, processes, transfer size) each phase's mean ± sd.
fn summary_section(out: &mut String, run: &ResultSet, flagged: &[CellKey]) {
    let phases = run.phases();
    out.push_str("<section id=\"summary\"><h2>Summary (mean ± standard deviation over the iterations, MiB/s)</h2>\n<table><tr><th>API</th><th>Processes</th><th>Transfer size</th>");
    for p in &phases {
        let _ = write!(out, "<th>{}</th>", p.title());
    }
    out.push_str("</tr>\n");
    let mut steps: Vec<(Api, u32, u64)> = Vec::new();
    for c in &run.cells {
        let s = (c.key.api(), c.key.nprocs, c.key.xfer_size);
        if !steps.contains(&s) {
            steps.push(s);
        }
    }
    for (api, n, x) in steps {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{n}</td><td class=\"n\">{}</td>",
            api_title(api),
            size_text(x)
        );
        for p in &phases {
            let key = CellKey::new(n, x, api, *p);
            match run.cell(&key) {
                Some(c) => {
                    let _ = write!(
                        out,
                        "<td class=\"n{}\">{} <small>± {}</small></td>",
                        if flagged.contains(&key) { " bad" } else { "" },
                        figure(c.avg_mibps),
                        figure(c.std_mibps)
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></section>\n");
}

/// The whole page of `run`, with its `verdict` and the `criteria` the charts draw bounds of.
pub fn page(run: &ResultSet, verdict: Option<&Verdict>, criteria: &[Criterion]) -> String {
    let flagged: &[CellKey] = verdict.map_or(&[], |v| &v.flagged);
    let status = verdict.map_or("no verdict", |v| v.status().word());
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n\
         <meta charset=\"utf-8\"/>\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>h5perf results: {} ({})</title>\n<style>{PAGE_CSS}{}</style>\n</head>\n<body>\n",
        esc(status),
        esc(run.run_field("start_time")),
        svg::CSS
    );
    let _ = writeln!(
        out,
        "<header><h1>h5perf results</h1><p class=\"note\">Throughputs in MiB/s (2^20 bytes per second, the report's MB/s); GB/s are 10^9 bytes per second.</p></header>"
    );
    if run_validity(run) == Some(false) {
        let _ = writeln!(
            out,
            "<p class=\"invalid\"><b>Run {}</b></p>",
            esc(INVALID_TEXT)
        );
    }
    if let Some(w) = fact(run, "page_cache_warning") {
        let _ = writeln!(
            out,
            "<p class=\"warn\" style=\"background:#fff3cd;padding:4px 8px\"><b>Warning:</b> {}</p>",
            esc(w)
        );
    }
    signoff_section(&mut out, run);
    let stable = super::verdict::stable_text(run);
    verdict_section(&mut out, verdict, stable.as_deref());
    run_section(&mut out, run);
    hosts_section(&mut out, run);

    out.push_str("<section id=\"size\"><h2>Throughput against transfer size</h2>\n<p class=\"note\">Mean throughput of the iterations, a solid line per process count (told apart by colour and marker shape); bars from the minimum to the maximum; red dashed lines: criteria, across the chart or, for a criterion of one transfer size (@xfer=), a short segment at that size; red rings: failed checks.</p>\n");
    let phases = run.phases();
    for api in run.apis() {
        let _ = writeln!(out, "<h3>{}</h3><div class=\"grid\">", api_title(api));
        for phase in CHART_ORDER.iter().filter(|p| phases.contains(p)) {
            let chart = size_chart(run, api, *phase, criteria, flagged);
            svg::figure_of(
                &mut out,
                &chart,
                &caveat((run, stable.is_some()), verdict, criteria, api, *phase),
            );
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");

    let sizes = run.sizes();
    if let (true, Some(&xmax)) = (run.procs().len() > 1, sizes.last()) {
        out.push_str(
            "<section id=\"procs\"><h2>Throughput against processes</h2>\n<div class=\"grid\">",
        );
        for phase in CHART_ORDER.iter().filter(|p| phases.contains(p)) {
            let chart = procs_chart(run, *phase, xmax, criteria, flagged);
            svg::figure_of(&mut out, &chart, "");
        }
        out.push_str("</div></section>\n");
    }

    if let Some((n, x)) = run.slowest_step() {
        let _ = writeln!(
            out,
            "<section id=\"ranks\"><h2>Per-rank times of the slowest step: {}, {}</h2>\n<p class=\"note\">The slowest step of the largest process count (the largest total open-close time); each rank's own time of each phase, the largest of the iterations; the largest marker of a line is its slowest rank.</p><div class=\"grid\">",
            procs_text(n),
            size_text(x)
        );
        for api in run.apis() {
            if let Some((chart, caption)) = rank_chart(run, api, n, x) {
                svg::figure_of(&mut out, &chart, &caption);
            }
        }
        out.push_str("</div></section>\n");
    }

    latency::section(&mut out, run);
    timeseries::section(&mut out, run);
    summary_section(&mut out, run, flagged);
    // the spread behind the summary, with the run conditions (--conditions) only
    spread_tables::sections(&mut out, run, fact(run, NODE_FACTS[0]).is_some());
    let _ = writeln!(
        out,
        "<footer class=\"note\"><p>Made by h5perf {} from the run's results.</p></footer>\n</body>\n</html>",
        esc(run.run_field("h5perf_version"))
    );
    out
}

#[cfg(test)]
mod tests {
    use super::super::baseline::compare;
    use super::super::results::run_set;
    use super::*;

    fn run(procs: &[u32], sizes: &[u64], samples: bool) -> ResultSet {
        let (m, p, r) = run_set(procs, sizes, &Api::ALL, samples, &|n, x, a, ph| {
            f64::from(n) * 50.0 + (x >> 10) as f64 + (a * 6 + ph) as f64
        });
        super::super::readback::of_run(&m, &p, &r)
    }

    #[test]
    fn one_chart_per_api_and_phase_with_one_point_per_size_and_count() {
        let set = run(&[4, 2, 1], &[8192, 16384, 32768, 65536], true);
        let crit = [Criterion::parse("mpiio.write>=100MiB/s").unwrap()];
        let v = Verdict::evaluate(&set, &crit, None, None);
        let page = page(&set, Some(&v), &crit);
        assert!(page.starts_with("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\""));
        assert_eq!(page.matches("<svg ").count(), 18 + 6 + 3);
        assert_eq!(page.matches("class=\"chart size\"").count(), 18);
        for api in Api::ALL {
            for ph in Phase::ALL {
                let id = format!("id=\"size-{}-{}\"", api.name(), ph.key().replace('_', "-"));
                let at = page.find(&id).unwrap_or_else(|| panic!("{id}"));
                let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
                assert_eq!(svg.matches(" class=\"pt\"").count(), 12, "{id}");
            }
        }
        // the bound of the criterion on its chart
        let at = page.find("id=\"size-mpiio-write\"").unwrap();
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        assert!(svg.contains(">mpiio.write&gt;=100MiB/s</text>"));
        // the per-rank charts: one marker per rank of the slowest step
        assert_eq!(set.slowest_step(), Some((4, 8192)));
        let at = page.find("id=\"ranks-posix\"").unwrap();
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        assert_eq!(svg.matches(" class=\"pt").count(), 6 * 4);
        assert_eq!(svg.matches(" class=\"pt top\"").count(), 6);
        assert!(page.contains("Slowest rank — Raw Data Write: rank 3 (node2)"));
        // no script, no external reference
        assert!(!page.contains("<script") && !page.contains("http://e") && !page.contains("src="));
        assert!(page.contains("default-src 'none'"));
        let size = page.len();
        assert!(size < 150_000, "{size} bytes");
    }

    #[test]
    fn a_slurm_job_is_named_in_the_run_table() {
        let mut set = run(&[2], &[4096], false);
        let without = page(&set, None, &[]);
        assert!(!without.contains("Slurm"));
        set.facts = vec![
            ("slurm_job_id".into(), "77".into()),
            ("slurm_job_name".into(), "h5perf <contract>".into()),
            ("slurm_job_nodelist".into(), "node[1-2]".into()),
            ("slurm_tasks_per_node".into(), "2(x2)".into()),
            ("slurm_time_limit".into(), "00:10:00".into()),
        ];
        let with = page(&set, None, &[]);
        for row in [
            "<tr><th>Slurm job</th><td>77</td></tr>",
            "<tr><th>Slurm job name</th><td>h5perf &lt;contract&gt;</td></tr>",
            "<tr><th>Slurm node list</th><td>node[1-2]</td></tr>",
            "<tr><th>Slurm tasks per node</th><td>2(x2)</td></tr>",
            "<tr><th>Slurm time limit</th><td>00:10:00</td></tr>",
        ] {
            assert!(with.contains(row), "{row}");
        }
    }

    #[test]
    fn failed_checks_are_marked_and_sections_follow_the_data() {
        let set = run(&[2], &[4096], false);
        let mut base = set.clone();
        let key = CellKey::new(2, 4096, Api::Phdf5, Phase::Read);
        let i = base.cells.iter().position(|c| c.key == key).unwrap();
        base.cells[i].avg_mibps *= 3.0;
        let v = Verdict::evaluate(
            &set,
            &[],
            Some(compare(&set, &base, "old.csv", 0.1, "10%")),
            None,
        );
        let page = page(&set, Some(&v), &[]);
        assert_eq!(page.matches("<circle class=\"ring\"").count(), 1);
        assert_eq!(page.matches("<td class=\"n bad\">").count(), 1);
        assert!(page.contains("<span><b>num_bytes</b> 1048576</span>"));
        assert!(page.contains("<span class=\"badge fail\">FAIL</span>"));
        assert!(page.contains("<code>baseline: phdf5 read</code>"));
        // one process count, no samples: neither scaling nor per-rank charts
        assert!(!page.contains("id=\"procs\"") && !page.contains("id=\"ranks\""));
        // many regressions: the worst ten in the table, the others folded
        base.cells.iter_mut().for_each(|c| c.avg_mibps *= 3.0);
        base.cells[0].avg_mibps *= 4.0;
        let v = Verdict::evaluate(
            &set,
            &[],
            Some(compare(&set, &base, "old.csv", 0.1, "10%")),
            None,
        );
        let many = super::page(&set, Some(&v), &[]);
        assert!(many.contains("<details><summary class=\"note\">8 more regressions</summary>"));
        let at = many.find("<details>").unwrap();
        assert_eq!(many[..at].matches("<code>baseline: ").count(), 10);
        // the largest drop (the first cell, 12 times better in the baseline; phdf5 read 9 times) comes first
        assert!(many[..at].contains("<code>baseline: posix raw_write</code>"));
        let first = many.find("<code>baseline: ").unwrap();
        assert!(many[first..].starts_with("<code>baseline: posix raw_write</code>"));
        let none = super::page(&set, None, &[]);
        assert!(none.contains("badge none"));
        assert!(none.contains("<title>h5perf results: no verdict (2027-01-01T00:00:00Z)</title>"));
    }

    /// The x extents of the subpaths of the bound paths of the chart `id` of `page`.
    fn bound_extents(page: &str, id: &str) -> Vec<(f64, f64)> {
        let at = page.find(&format!("id=\"{id}\"")).unwrap();
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        let mut out = Vec::new();
        for part in svg.split("<path class=\"bd\" d=\"").skip(1) {
            let d = &part[..part.find('"').unwrap()];
            for seg in d.split('M').filter(|s| !s.is_empty()) {
                let (start, end) = seg.split_once('H').unwrap();
                let a: f64 = start.split(' ').next().unwrap().parse().unwrap();
                out.push((a, end.parse().unwrap()));
            }
        }
        out
    }

    /// The x of the tick labelled `label` in the chart `id` of `page`.
    fn tick_x(page: &str, id: &str, label: &str) -> f64 {
        let at = page.find(&format!("id=\"{id}\"")).unwrap();
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        let end = svg.find(&format!("\">{label}</text>")).unwrap();
        let start = svg[..end].rfind("x=\"").unwrap() + 3;
        svg[start..end].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn criteria_are_drawn_only_where_they_apply() {
        let set = run(&[2, 1], &[65536, 131072], false);
        let crit = [
            Criterion::parse("mpiio.write>=5TB/s@xfer=128K").unwrap(),
            Criterion::parse("mpiio.read>=1MiB/s").unwrap(),
            Criterion::parse("posix.write>=1MiB/s@procs=2").unwrap(),
            Criterion::parse("posix.read>=1MiB/s@procs=2,xfer=64K").unwrap(),
        ];
        let page = page(&set, None, &crit);
        // @xfer=128K: a segment around the 128 KiB tick, clear of the 64 KiB one
        let (k64, k128) = (
            tick_x(&page, "size-mpiio-write", "64 KiB"),
            tick_x(&page, "size-mpiio-write", "128 KiB"),
        );
        let segs = bound_extents(&page, "size-mpiio-write");
        assert_eq!(segs.len(), 1, "{segs:?}");
        let (a, b) = segs[0];
        assert!(a < k128 && k128 < b, "{segs:?} {k128}");
        assert!(
            a > (k64 + k128) / 2.0,
            "reaches toward 64 KiB: {segs:?} {k64}"
        );
        // no selector: across the chart, over both sizes
        let segs = bound_extents(&page, "size-mpiio-read");
        assert_eq!(segs.len(), 1);
        assert!(segs[0].0 < k64 && segs[0].1 > k128, "{segs:?}");
        // @procs=2 on a chart against size: every size has a 2-process point, across
        let segs = bound_extents(&page, "size-posix-write");
        assert!(segs[0].0 < k64 && segs[0].1 > k128, "{segs:?}");
        let segs = bound_extents(&page, "size-posix-read");
        assert_eq!(segs.len(), 1);
        let (a, b) = segs[0];
        assert!(a < k64 && k64 < b && b < (k64 + k128) / 2.0, "{segs:?}");
        // charts against processes (one API): only the criteria of their size (128 KiB)
        let mut one = run(&[2, 1], &[65536, 131072], false);
        one.cells.retain(|c| c.key.api() == Api::Mpiio);
        let crit = [
            Criterion::parse("mpiio.write>=1MiB/s@xfer=64K").unwrap(),
            Criterion::parse("mpiio.read>=1MiB/s@procs=2").unwrap(),
        ];
        let page = super::page(&one, None, &crit);
        assert!(bound_extents(&page, "procs-write").is_empty());
        let (p1, p2) = (
            tick_x(&page, "procs-read", "1"),
            tick_x(&page, "procs-read", "2"),
        );
        let segs = bound_extents(&page, "procs-read");
        assert_eq!(segs.len(), 1);
        assert!(
            segs[0].0 > (p1 + p2) / 2.0 && segs[0].0 < p2 && segs[0].1 > p2,
            "{segs:?}"
        );
    }

    #[test]
    fn the_per_rank_chart_is_of_the_largest_process_count() {
        // one process is by far the slowest step: it shows no straggler, so not it
        let (m, p, r) = run_set(
            &[1, 4, 2],
            &[8192, 16384],
            &Api::ALL,
            true,
            &|n, x, a, ph| {
                let base = f64::from(n) * 50.0 + (x >> 10) as f64 + (a * 6 + ph) as f64;
                if n == 1 {
                    base / 100.0
                } else {
                    base
                }
            },
        );
        let set = super::super::readback::of_run(&m, &p, &r);
        let (n, _) = set.slowest_step().unwrap();
        assert_eq!(n, 4);
        let page = page(&set, None, &[]);
        assert!(page.contains("<h2>Per-rank times of the slowest step: 4 processes, "));
        let at = page.find("id=\"ranks-posix\"").unwrap();
        let svg = &page[at..at + page[at..].find("</svg>").unwrap()];
        // a marker per rank (4) of each phase (6)
        assert_eq!(svg.matches(" class=\"pt").count(), 6 * 4);
    }
}
