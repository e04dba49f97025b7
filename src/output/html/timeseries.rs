//! The page's throughput-over-time charts (`--timeseries`, issue 31): per API and
//! direction (write, read) the total throughput of every interval of its phases, laid
//! end to end in run order, and a line per host when the ranks span more than one (up
//! to [`MAX_HOSTS`]). Drawn from the results' samples ([`ResultSet::timeseries`]), so a
//! page made `--from` the JSON has the same charts.

use std::fmt::Write as _;

use crate::config::Api;

use super::super::results::{api_title, procs_text, size_text, PhaseSamples, ResultSet};
use super::super::svg::{self, esc, Chart, Mark, Point, Series};

/// The most points of a line: a chart of more intervals merges neighbouring intervals
/// of a phase (their bytes over their time) so that a line has at most this many.
pub const MAX_POINTS: usize = 240;

/// The most hosts drawn as lines of their own; with more, the chart has the total only.
pub const MAX_HOSTS: usize = 7;

/// Bytes per MiB.
const MIB: f64 = 1_048_576.0;

/// What a chart carries: phases, intervals and bytes of its samples (the `<figure>`'s
/// `data-phases`, `data-intervals` and `data-bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Carried {
    /// Phases drawn.
    pub phases: usize,
    /// Intervals of those phases (the longest rank's count per phase, summed).
    pub intervals: usize,
    /// Bytes of every rank and interval.
    pub bytes: u64,
}

/// The phases of `api` in direction `read`, in run order.
fn phases_of(run: &ResultSet, api: Api, read: bool) -> Vec<&PhaseSamples> {
    run.timeseries
        .iter()
        .filter(|p| p.api == api && p.read == read)
        .collect()
}

/// The intervals of a phase (its longest rank's).
fn intervals(p: &PhaseSamples) -> usize {
    p.ranks.iter().map(|r| r.bytes.len()).max().unwrap_or(0)
}

/// The bytes of interval `i` of `p`'s ranks that `keep` selects.
fn bytes_at(p: &PhaseSamples, i: usize, keep: &dyn Fn(&str) -> bool) -> u64 {
    p.ranks
        .iter()
        .filter(|r| keep(&r.host))
        .filter_map(|r| r.bytes.get(i))
        .fold(0u64, |a, b| a.saturating_add(*b))
}

/// The hosts of `phases`' ranks, in the order of first appearance.
fn hosts_of(phases: &[&PhaseSamples]) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    for r in phases.iter().flat_map(|p| &p.ranks) {
        if !hosts.contains(&r.host) {
            hosts.push(r.host.clone());
        }
    }
    hosts
}

/// A number of seconds with the decimals `step` needs (`0`, `0.25`, `12`).
fn seconds_text(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let decimals: usize = (0..9)
        .find(|d| {
            let s = step * 10f64.powi(*d as i32);
            (s - s.round()).abs() < 1e-9 * s.max(1.0)
        })
        .unwrap_or(9);
    format!("{v:.decimals$}")
}

/// The chart of `api` (titled `api_title`) and direction `read`, its caption and what it
/// carries; `None` when no phase of it has samples.
pub fn chart(
    run: &ResultSet,
    api: Api,
    title: &str,
    read: bool,
) -> Option<(Chart, String, Carried)> {
    let phases = phases_of(run, api, read);
    let total: usize = phases.iter().map(|p| intervals(p)).sum();
    if total == 0 {
        return None;
    }
    let hosts = hosts_of(&phases);
    let per_host = (2..=MAX_HOSTS).contains(&hosts.len());
    // the lines: the total, then one per host
    // the lines: the total, then one per host (its name)
    let mut lines: Vec<(String, Option<&str>)> = vec![("total".to_string(), None)];
    if per_host {
        lines.extend(
            hosts
                .iter()
                .map(|h| (format!("host {h}"), Some(h.as_str()))),
        );
    }
    let merge = total.div_ceil(MAX_POINTS).max(1);
    let mut series: Vec<Series> = lines
        .iter()
        .map(|(name, _)| Series {
            name: name.clone(),
            points: Vec::new(),
        })
        .collect();
    let mut t0 = 0.0f64;
    let mut bytes = 0u64;
    for p in &phases {
        let n = intervals(p);
        let iv = p.interval_s;
        let place = format!(
            "{}, {}, iteration {}, file {}",
            procs_text(p.nprocs),
            size_text(p.xfer_size),
            p.iteration,
            p.file
        );
        for start in (0..n).step_by(merge) {
            let end = (start + merge).min(n);
            let span = (end - start) as f64 * iv;
            let x = t0 + (start as f64 + (end - start) as f64 / 2.0) * iv;
            for ((name, host), s) in lines.iter().zip(series.iter_mut()) {
                let keep = |h: &str| host.is_none_or(|x| x == h);
                let b = (start..end)
                    .map(|i| bytes_at(p, i, &keep))
                    .fold(0u64, u64::saturating_add);
                let mibps = b as f64 / MIB / span;
                s.points.push(Point {
                    x,
                    y: mibps,
                    lo: mibps,
                    hi: mibps,
                    title: format!(
                        "{place}: {} to {} s, {name} {mibps:.1} MiB/s",
                        seconds_text(start as f64 * iv, iv),
                        seconds_text(end as f64 * iv, iv),
                    ),
                    mark: Mark::Plain,
                });
            }
        }
        bytes = (0..n).fold(bytes, |a, i| a.saturating_add(bytes_at(p, i, &|_| true)));
        t0 += n as f64 * iv;
    }
    let step = svg::nice_step(t0);
    let ticks = (t0 / step).ceil().max(1.0) as u32;
    let x_ticks = (0..=ticks)
        .map(|k| {
            let v = step * f64::from(k);
            (v, seconds_text(v, step))
        })
        .collect();
    let direction = if read { "read" } else { "write" };
    let chart = Chart {
        id: format!("timeseries-{}-{direction}", api.name()),
        kind: "timeseries",
        title: format!("{title} — {direction} phases"),
        x_label: format!("Seconds of the {direction} phases, end to end"),
        y_label: "Throughput (MiB/s)".to_string(),
        x_ticks,
        series,
        bounds: Vec::new(),
        bars: false,
        y_ticks: None,
    };
    let intervals_s: Vec<f64> = {
        let mut v: Vec<f64> = phases.iter().map(|p| p.interval_s).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let iv_text = intervals_s
        .iter()
        .map(|v| format!("{v} s"))
        .collect::<Vec<_>>()
        .join(", ");
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut caption = format!(
        "{} {direction} phase{} of {} interval{} ({iv_text})",
        phases.len(),
        plural(phases.len()),
        total,
        plural(total)
    );
    if merge > 1 {
        let _ = write!(caption, ", each point {merge} intervals merged");
    }
    // a phase within one or two intervals is drawn as its bytes over whole intervals
    if total < 3 * phases.len() {
        caption.push_str(
            "; the phases last about an interval or less, so a point is bytes over a whole \
             interval, not the phase's throughput: give --timeseries a shorter interval",
        );
    }
    if hosts.len() > MAX_HOSTS {
        let _ = write!(
            caption,
            "; {} hosts: the total only (the JSON holds every rank's samples)",
            hosts.len()
        );
    }
    caption.push('.');
    let carried = Carried {
        phases: phases.len(),
        intervals: total,
        bytes,
    };
    Some((chart, caption, carried))
}

/// The run parameter that says a run had `--timeseries` (its interval, seconds).
pub const INTERVAL_KEY: &str = "timeseries_interval_s";

/// The note under the section's heading.
pub const NOTE: &str = "Bytes completed per interval of every write and read phase \
(--timeseries), over the interval: the total of every rank and, when the ranks span more \
than one host, a line per host. The phases of an API and direction are laid end to end in \
run order (process count, transfer size, iteration, file), each from its file's open; a \
phase's last interval is cut short by its end, so its point is low. Every point's tooltip \
names its phase and seconds.";

/// The page's section "Throughput over time" (`--timeseries`; nothing without samples):
/// per API, the write and the read chart.
pub fn section(out: &mut String, run: &ResultSet) {
    if run.timeseries.is_empty() {
        // a --timeseries run's page made --from its CSV: say where the samples are
        if run.parameters.iter().any(|(k, _)| k == INTERVAL_KEY) {
            out.push_str("<section id=\"timeseries\"><h2>Throughput over time</h2>\n<p class=\"note\">Not shown: the --timeseries samples are in the run's --json file only (its timeseries array), not in its CSV. Give --from the run's --json file.</p></section>\n");
        }
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"timeseries\"><h2>Throughput over time</h2>\n<p class=\"note\">{}</p>",
        esc(NOTE)
    );
    for api in Api::ALL {
        let charts: Vec<(Chart, String, Carried)> = [false, true]
            .into_iter()
            .filter_map(|read| chart(run, api, api_title(api), read))
            .collect();
        if charts.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<h3>{}</h3><div class=\"grid\">", api_title(api));
        for (chart, caption, c) in &charts {
            let data = [
                ("phases", c.phases.to_string()),
                ("intervals", c.intervals.to_string()),
                ("bytes", c.bytes.to_string()),
            ];
            svg::figure_with(out, chart, caption, &data);
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::super::readback::of_run;
    use super::super::super::results::{run_set, RankBytes};
    use super::super::page;
    use super::*;

    /// A run of POSIX and MPI-IO at 1 and 2 processes whose phases have samples of
    /// `n` intervals of 0.5 s, rank r on host `hosts[r]`, 1 MiB per interval and rank.
    fn run(n: usize, hosts: &[&str], timeseries: bool) -> ResultSet {
        let (m, p, recs) = run_set(
            &[1, 2],
            &[4096],
            &[Api::Posix, Api::Mpiio],
            false,
            &|n, x, a, ph| f64::from(n) + x as f64 + a as f64 + ph as f64,
        );
        let mut set = of_run(&m, &p, &recs);
        if timeseries {
            for r in &recs {
                for read in [false, true] {
                    set.timeseries.push(PhaseSamples {
                        nprocs: r.nprocs,
                        xfer_size: r.xfer_size,
                        api: r.api,
                        iteration: 1,
                        file: 1,
                        read,
                        interval_s: 0.5,
                        ranks: (0..r.nprocs)
                            .map(|k| RankBytes {
                                rank: k,
                                host: hosts[k as usize].to_string(),
                                bytes: vec![1 << 20; n],
                            })
                            .collect(),
                    });
                }
            }
        }
        set
    }

    #[test]
    fn phases_of_an_interval_or_two_say_so() {
        let set = run(2, &["a", "b"], true);
        let (_, caption, _) = chart(&set, Api::Posix, "POSIX", true).expect("a chart");
        assert!(caption.starts_with("2 read phases of 4 intervals (0.5 s); the phases last"));
        assert!(caption.ends_with("give --timeseries a shorter interval."));
        let one = run(1, &["a", "b"], true);
        let mut one_phase = one.clone();
        one_phase.timeseries.retain(|t| t.nprocs == 1);
        let (_, caption, _) = chart(&one_phase, Api::Posix, "POSIX", false).expect("a chart");
        assert!(
            caption.starts_with("1 write phase of 1 interval (0.5 s); "),
            "{caption}"
        );
    }

    #[test]
    fn a_chart_per_api_and_direction_with_a_line_per_host() {
        let set = run(3, &["a", "b"], true);
        let (c, caption, carried) = chart(&set, Api::Posix, "POSIX", false).expect("a chart");
        assert_eq!(c.id, "timeseries-posix-write");
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["total", "host a", "host b"]);
        // 2 phases (1 and 2 processes) of 3 intervals, end to end
        assert_eq!(c.series[0].points.len(), 6);
        let xs: Vec<f64> = c.series[0].points.iter().map(|p| p.x).collect();
        assert_eq!(xs, [0.25, 0.75, 1.25, 1.75, 2.25, 2.75]);
        // 1 MiB per rank and 0.5 s: 2 MiB/s with one rank, 4 with two
        let ys: Vec<f64> = c.series[0].points.iter().map(|p| p.y).collect();
        assert_eq!(ys, [2.0, 2.0, 2.0, 4.0, 4.0, 4.0]);
        let b: Vec<f64> = c.series[2].points.iter().map(|p| p.y).collect();
        assert_eq!(b, [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]);
        assert_eq!(
            carried,
            Carried {
                phases: 2,
                intervals: 6,
                bytes: 9 << 20
            }
        );
        assert_eq!(caption, "2 write phases of 6 intervals (0.5 s).");
        assert!(c.series[0].points[3]
            .title
            .starts_with("2 processes, 4 KiB, iteration 1, file 1: 0 to 0.5 s, total 4.0 MiB/s"));
        let html = page(&set, None, &[]);
        for id in ["timeseries-posix-write", "timeseries-mpiio-read"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(html.contains(
            "<figure data-phases=\"2\" data-intervals=\"6\" data-bytes=\"9437184\"><svg"
        ));
    }

    #[test]
    fn one_host_the_total_only_and_long_phases_merged() {
        let set = run(1000, &["a", "a"], true);
        let (c, caption, carried) = chart(&set, Api::Mpiio, "MPI-IO", true).expect("a chart");
        assert_eq!(c.series.len(), 1);
        // 2000 intervals: 9 per point, every phase's own groups
        assert_eq!(carried.intervals, 2000);
        assert_eq!(c.series[0].points.len(), 2 * 1000usize.div_ceil(9));
        assert!(c.series[0].points.len() <= MAX_POINTS);
        assert!(
            caption.ends_with(", each point 9 intervals merged."),
            "{caption}"
        );
        // a merged point is the mean throughput of its intervals; the last one of a phase
        // of fewer intervals too
        assert!(c.series[0].points.iter().all(|p| p.y == 2.0 || p.y == 4.0));
    }

    #[test]
    fn without_samples_no_section() {
        let set = run(3, &["a", "b"], false);
        assert!(chart(&set, Api::Posix, "POSIX", false).is_none());
        let html = page(&set, None, &[]);
        assert!(!html.contains("timeseries") && !html.contains("data-"));
        assert_eq!(seconds_text(2.5, 0.5), "2.5");
        assert_eq!(seconds_text(2.0, 1.0), "2");
        assert_eq!(seconds_text(0.004, 0.002), "0.004");
    }
}
