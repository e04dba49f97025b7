//! The page's latency charts (`--latency`, issue 31): per API and direction, the
//! percentiles of the transfer calls' times (p50, p90, p99, p99.9 and the longest call)
//! of every step on a log scale, and the rank and host that saw the longest call.

use crate::config::Api;

use std::fmt::Write as _;

use super::super::results::{api_title, procs_text, size_text, Cell, CellLatency, ResultSet};
use super::super::svg::{self, esc, Chart, Mark, Point, Series};

/// A figure of a [`CellLatency`], seconds.
type Figure = fn(&CellLatency) -> f64;

/// The lines of a latency chart: name and figure.
const LINES: [(&str, Figure); 5] = [
    ("p50", |l| l.quantiles_s[0]),
    ("p90", |l| l.quantiles_s[1]),
    ("p99", |l| l.quantiles_s[2]),
    ("p99.9", |l| l.quantiles_s[3]),
    ("max", |l| l.max_s),
];

/// A duration in words with three significant digits: `512 ns`, `4.10 µs`, `1.23 ms`,
/// `0.502 s` (seconds from 0.1 s on).
pub fn duration_text(s: f64) -> String {
    let (v, unit) = match s {
        s if s >= 0.1 => (s, "s"),
        s if s >= 1e-4 => (s * 1e3, "ms"),
        s if s >= 1e-7 => (s * 1e6, "µs"),
        s => (s * 1e9, "ns"),
    };
    let decimals = match v {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        _ => 3,
    };
    format!("{v:.decimals$} {unit}")
}

/// The text of the decade 10^`k` seconds: `1 ns`, `10 µs`, `1 s`, `100 s`.
fn decade_text(k: i32) -> String {
    let (unit, base) = match k {
        k if k >= 0 => ("s", 0),
        k if k >= -3 => ("ms", -3),
        k if k >= -6 => ("µs", -6),
        _ => ("ns", -9),
    };
    format!("{} {unit}", 10u64.pow((k - base).clamp(0, 18) as u32))
}

/// The latency of a step of `api` in the direction `read`: that of the first phase of
/// the direction with latencies (every phase of a direction has the same calls).
fn of_step(run: &ResultSet, api: Api, read: bool, n: u32, x: u64) -> Option<&Cell> {
    run.cells.iter().find(|c| {
        c.key.api() == api
            && c.key.phase().is_read() == read
            && (c.key.nprocs, c.key.xfer_size) == (n, x)
            && c.latency.is_some()
    })
}

/// Of `labels` at the x positions 0, 1, … of a chart of that many steps, those that
/// fit: each kept when it starts [`GAP`] or more after the end of the last kept one (its
/// width [`svg::text_width`]), the others emptied.
fn fitting(labels: Vec<String>) -> Vec<String> {
    let xs: Vec<f64> = (0..labels.len()).map(|i| i as f64).collect();
    let scale = svg::x_scale(&xs);
    let mut end = f64::NEG_INFINITY;
    labels
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let (mid, half) = (i as f64 * scale, svg::text_width(&l) / 2.0);
            if l.is_empty() || mid - half < end + GAP {
                return String::new();
            }
            end = mid + half;
            l
        })
        .collect()
}

/// The least room between two x tick labels, user units.
const GAP: f64 = 6.0;

/// The x ticks of `steps` (a position each): the transfer size, and with several process
/// counts below it the count where it changes, each line thinned so that no two labels
/// overlap ([`fitting`]).
fn x_ticks(steps: &[&Cell], one_procs: bool) -> Vec<(f64, String)> {
    let sizes = fitting(steps.iter().map(|c| size_text(c.key.xfer_size)).collect());
    let procs = fitting(
        steps
            .iter()
            .enumerate()
            .map(
                |(i, c)| match i > 0 && steps[i - 1].key.nprocs == c.key.nprocs {
                    true => String::new(),
                    false => procs_text(c.key.nprocs),
                },
            )
            .collect(),
    );
    sizes
        .into_iter()
        .zip(procs)
        .enumerate()
        .map(|(i, (s, p))| match (one_procs, p.is_empty()) {
            (false, false) => (i as f64, format!("{s}\n{p}")),
            _ => (i as f64, s),
        })
        .collect()
}

/// The latency chart of `api` (titled `api_title`) and direction `read` and its caption
/// naming the longest call's rank and host; `None` when no step has latencies.
pub fn chart(run: &ResultSet, api: Api, api_title: &str, read: bool) -> Option<(Chart, String)> {
    let one_procs = run.procs().len() == 1;
    let steps: Vec<&Cell> = run
        .procs()
        .into_iter()
        .flat_map(|n| run.sizes().into_iter().map(move |x| (n, x)))
        .filter_map(|(n, x)| of_step(run, api, read, n, x))
        .collect();
    let lat = |c: &Cell| c.latency.clone().expect("a step with latencies");
    let worst = steps
        .iter()
        .copied()
        .reduce(|a, b| if lat(b).max_s > lat(a).max_s { b } else { a })?;
    let place = |c: &Cell| match one_procs {
        true => size_text(c.key.xfer_size),
        false => format!(
            "{}, {}",
            procs_text(c.key.nprocs),
            size_text(c.key.xfer_size)
        ),
    };
    let series = LINES
        .iter()
        .map(|(name, get)| Series {
            name: name.to_string(),
            points: steps
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let l = lat(c);
                    let v = get(&l).max(1e-9);
                    let top = *name == "max" && std::ptr::eq(*c, worst);
                    Point {
                        x: i as f64,
                        y: v.log10(),
                        lo: v.log10(),
                        hi: v.log10(),
                        title: match top {
                            true => format!(
                                "{}: {name} {} ({} calls), rank {} ({})",
                                place(c),
                                duration_text(v),
                                l.calls,
                                l.max_rank,
                                l.max_host
                            ),
                            false => {
                                format!(
                                    "{}: {name} {} ({} calls)",
                                    place(c),
                                    duration_text(v),
                                    l.calls
                                )
                            }
                        },
                        mark: if top { Mark::Top } else { Mark::Plain },
                    }
                })
                .collect(),
        })
        .collect::<Vec<Series>>();
    let ys = series.iter().flat_map(|s| &s.points).map(|p| p.y);
    let lo = ys.clone().fold(f64::INFINITY, f64::min).floor() as i32;
    let hi = (ys.fold(f64::NEG_INFINITY, f64::max).ceil() as i32).max(lo + 1);
    let y_ticks = (lo..=hi).map(|k| (f64::from(k), decade_text(k))).collect();
    let x_ticks = x_ticks(&steps, one_procs);
    let direction = if read { "read" } else { "write" };
    let w = lat(worst);
    let chart = Chart {
        id: format!("latency-{}-{direction}", api.name()),
        kind: "latency",
        title: format!("{api_title} — {direction} calls"),
        x_label: match one_procs {
            true => "Transfer size".to_string(),
            false => "Transfer size; processes below".to_string(),
        },
        y_label: "Call time (log scale)".to_string(),
        x_ticks,
        series,
        bounds: Vec::new(),
        bars: false,
        y_ticks: Some(y_ticks),
    };
    let caption = format!(
        "Longest {direction} call: {} on rank {} ({}), {}, {}.",
        duration_text(w.max_s),
        w.max_rank,
        w.max_host,
        procs_text(worst.key.nprocs),
        size_text(worst.key.xfer_size)
    );
    Some((chart, caption))
}

/// Whether any measurement of `run` has latencies.
pub fn any(run: &ResultSet) -> bool {
    run.cells.iter().any(|c| c.latency.is_some())
}

/// The note under the section's heading.
pub const NOTE: &str = "Times of the transfer calls (every rank and iteration merged, one \
histogram per step, within 0.79 %): per step a line per percentile (p50, p90, p99, p99.9) and \
the longest call (max), on a log scale; the largest marker is the longest call of the chart, \
whose rank and host the caption names.";

/// The page's section "Latency of the transfer calls" (`--latency`; nothing without it):
/// per API, the write and the read chart with their captions.
pub fn section(out: &mut String, run: &ResultSet) {
    if !any(run) {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"latency\"><h2>Latency of the transfer calls</h2>\n<p class=\"note\">{}</p>",
        esc(NOTE)
    );
    for api in run.apis() {
        let charts: Vec<(Chart, String)> = [false, true]
            .into_iter()
            .filter_map(|read| chart(run, api, api_title(api), read))
            .collect();
        if charts.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<h3>{}</h3><div class=\"grid\">", api_title(api));
        for (chart, caption) in &charts {
            super::super::svg::figure_of(out, chart, caption);
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::super::super::readback::of_run;
    use super::super::super::results::run_set;
    use super::super::page;
    use super::*;
    use crate::measure::{Histogram, LatencyFigures};

    /// A run of 2 process counts and 2 sizes whose write calls took 1, 2 and 3 µs, and,
    /// at 2 processes and 8 KiB, one call of 0.5 s on rank 1 of host `node-b`.
    fn run(latency: bool) -> ResultSet {
        let (m, mut p, mut recs) = run_set(
            &[1, 2],
            &[4096, 8192],
            &[Api::Posix, Api::Mpiio],
            false,
            &|n, x, a, ph| f64::from(n) + x as f64 + a as f64 + ph as f64,
        );
        p.given.latency = latency;
        for r in recs.iter_mut().filter(|_| latency) {
            let mut h = Histogram::new();
            for v in [1_000, 2_000, 3_000] {
                h.record(v);
            }
            let slow = (r.nprocs, r.xfer_size, r.api) == (2, 8192, Api::Posix);
            if slow {
                h.record(500_000_000);
            }
            let mut f = LatencyFigures::default();
            f.add(&h, u32::from(slow), if slow { "node-b" } else { "node-a" });
            r.latency = Some([f.clone(), f]);
        }
        of_run(&m, &p, &recs)
    }

    #[test]
    fn a_chart_per_api_and_direction_names_the_longest_call() {
        let set = run(true);
        let (c, caption) = chart(&set, Api::Posix, "POSIX", false).expect("a chart");
        assert_eq!(c.id, "latency-posix-write");
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["p50", "p90", "p99", "p99.9", "max"]);
        // 4 steps; log10 of 1 µs … 0.5 s on decades from 1 µs to 1 s
        assert!(c.series.iter().all(|s| s.points.len() == 4));
        let ticks = c.y_ticks.clone().unwrap();
        assert_eq!(ticks.first().unwrap().1, "1 µs");
        assert_eq!(ticks.last().unwrap().1, "1 s");
        let top: Vec<&Point> = c.series[4]
            .points
            .iter()
            .filter(|p| p.mark == Mark::Top)
            .collect();
        assert_eq!(top.len(), 1);
        assert!((top[0].y - 0.5f64.log10()).abs() < 0.01, "{top:?}");
        assert_eq!(
            caption,
            "Longest write call: 0.500 s on rank 1 (node-b), 2 processes, 8 KiB."
        );
        let html = page(&set, None, &[]);
        for id in [
            "latency-posix-write",
            "latency-posix-read",
            "latency-mpiio-write",
        ] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(html.contains("<section id=\"latency\">"));
    }

    /// 3 process counts × 3 sizes = 9 steps: every size named on the first line, every
    /// count on the second where it starts, and no two labels of a line overlap.
    #[test]
    fn the_x_labels_of_many_steps_do_not_overlap() {
        let (m, mut p, mut recs) = run_set(
            &[1, 2, 3],
            &[1024, 2048, 4096],
            &[Api::Posix],
            false,
            &|n, x, a, ph| f64::from(n) + x as f64 + a as f64 + ph as f64,
        );
        p.given.latency = true;
        for r in recs.iter_mut() {
            let mut h = Histogram::new();
            h.record(1_000);
            let mut f = LatencyFigures::default();
            f.add(&h, 0, "node-a");
            r.latency = Some([f.clone(), f]);
        }
        let set = of_run(&m, &p, &recs);
        let (c, _) = chart(&set, Api::Posix, "POSIX", false).expect("a chart");
        let labels: Vec<&str> = c.x_ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(
            labels,
            [
                "1 KiB\n1 process",
                "2 KiB",
                "4 KiB",
                "1 KiB\n2 processes",
                "2 KiB",
                "4 KiB",
                "1 KiB\n3 processes",
                "2 KiB",
                "4 KiB"
            ]
        );
        // the rendered labels: (x, y, text) of the tick rows, checked pairwise per row
        let svg = svg::render(&c);
        let mut rows: std::collections::BTreeMap<String, Vec<(f64, String)>> = Default::default();
        for part in svg.split("<text class=\"m\" x=\"").skip(1) {
            let (x, rest) = part.split_once("\" y=\"").unwrap();
            let (y, rest) = rest.split_once("\">").unwrap();
            let text = rest.split_once("</text>").unwrap().0;
            rows.entry(y.to_string())
                .or_default()
                .push((x.parse().unwrap(), text.to_string()));
        }
        let row_of = |want: &str| {
            rows.values()
                .find(|r| r.iter().any(|(_, t)| t == want))
                .unwrap_or_else(|| panic!("{want} in {rows:?}"))
                .clone()
        };
        for row in [row_of("2 KiB"), row_of("3 processes")] {
            let row: Vec<&(f64, String)> = row.iter().filter(|(_, t)| !t.is_empty()).collect();
            for w in row.windows(2) {
                let (a, b) = (w[0], w[1]);
                let room = (b.0 - a.0) - (svg::text_width(&a.1) + svg::text_width(&b.1)) / 2.0;
                assert!(room > 0.0, "{a:?} and {b:?} overlap: {row:?}");
            }
        }
        assert_eq!(
            row_of("2 KiB")
                .iter()
                .filter(|(_, t)| !t.is_empty())
                .count(),
            9
        );
        // 30 steps: thinned, still no overlap, the first kept
        let many: Vec<String> = (0..30).map(|i| format!("{i} processes")).collect();
        let kept = fitting(many);
        assert_eq!(kept[0], "0 processes");
        assert!(
            kept.iter().filter(|l| !l.is_empty()).count() < 10,
            "{kept:?}"
        );
    }

    #[test]
    fn without_latencies_no_section() {
        let set = run(false);
        assert!(!any(&set));
        assert!(chart(&set, Api::Posix, "POSIX", false).is_none());
        assert!(!page(&set, None, &[]).contains("latency"));
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(duration_text(0.5), "0.500 s");
        assert_eq!(duration_text(2.0), "2.00 s");
        assert_eq!(duration_text(0.0123), "12.3 ms");
        assert_eq!(duration_text(4.1e-6), "4.10 µs");
        assert_eq!(duration_text(5.12e-7), "0.512 µs");
        assert_eq!(duration_text(5e-8), "50.0 ns");
        assert_eq!(decade_text(-9), "1 ns");
        assert_eq!(decade_text(-5), "10 µs");
        assert_eq!(decade_text(2), "100 s");
    }
}
