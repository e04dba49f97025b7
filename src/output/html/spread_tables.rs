//! The page's per-iteration table and per-host view (`--conditions`, issue 29): the
//! spread the cv criterion judges and each host's share, from the per-rank samples
//! ([`crate::output::spread`]). No I/O.

use std::fmt::Write as _;

use super::super::results::{api_title, size_text, Cell, ResultSet};
use super::super::spread::{hosts, iterations};
use super::super::svg::esc;
use super::super::verdict::figure;

/// The cells with samples, or with the figures a `--json` file held for them
/// (`per_iteration`, `per_host`), in run order (API, processes, transfer size, phase).
fn sampled(run: &ResultSet) -> Vec<&Cell> {
    run.cells
        .iter()
        .filter(|c| {
            run.samples.iter().any(|s| s.key == c.key)
                || run.per_iteration.iter().any(|(k, _)| *k == c.key)
                || run.per_host.iter().any(|(k, _)| *k == c.key)
        })
        .collect()
}

/// The first columns of a row of `c`: API, processes, transfer size, phase.
fn row_head(out: &mut String, c: &Cell) {
    let _ = write!(
        out,
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>",
        api_title(c.key.api()),
        c.key.nprocs,
        size_text(c.key.xfer_size),
        c.key.phase().title()
    );
}

/// A throughput in MiB/s, or `–` when it cannot be told (stonewalled).
fn mibps_text(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), figure)
}

/// The per-iteration table and the per-host view, when `with_conditions` (the run's
/// results hold `--conditions`' facts); nothing otherwise.
pub(super) fn sections(out: &mut String, run: &ResultSet, with_conditions: bool) {
    if !with_conditions {
        return;
    }
    if sampled(run).is_empty() {
        // a page made --from a CSV file alone: say why the sections are missing
        out.push_str("<section id=\"iterations\"><h2>Per iteration and per host</h2>\n<p class=\"note\">Not shown: the results this page was made from hold no per-rank times and no per_iteration or per_host figures. Give --from the run's --rank-csv file too, or its --json file.</p></section>\n");
        return;
    }
    iterations_section(out, run);
    hosts_view_section(out, run);
}

/// The per-iteration table: per measurement its cv and each iteration's throughput
/// (MiB/s) and time (s); nothing without samples.
fn iterations_section(out: &mut String, run: &ResultSet) {
    let cells = sampled(run);
    let most = cells.iter().map(|c| c.iterations).max().unwrap_or(0);
    if cells.is_empty() || most == 0 {
        return;
    }
    out.push_str("<section id=\"iterations\"><h2>Per iteration (MiB/s, time in s)</h2>\n<p class=\"note\">Each iteration's time is its slowest rank's, its throughput the measurement's bytes over that time (what the mean, the standard deviation and the cv criterion are made of); cv: the coefficient of variation of the times, percent; – : a stonewalled phase, whose bytes vary.</p>\n<div style=\"overflow-x:auto\"><table><tr><th>API</th><th>Processes</th><th>Transfer size</th><th>Phase</th><th>cv</th>");
    for i in 1..=most {
        let _ = write!(out, "<th>{i}</th>");
    }
    out.push_str("</tr>\n");
    for c in cells {
        row_head(out, c);
        let _ = write!(out, "<td class=\"n\">{}%</td>", figure(c.cv_percent()));
        let its = iterations(run, c);
        for i in 1..=most {
            match its.iter().find(|x| x.iteration == i) {
                Some(x) => {
                    let _ = write!(
                        out,
                        "<td class=\"n\">{} <small>{:.6}</small></td>",
                        mibps_text(x.mibps),
                        x.time_s
                    );
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div></section>\n");
}

/// The per-host view: per measurement and host its ranks, bytes per iteration, mean
/// time and throughput ([`crate::output::spread::HostShare`]); nothing without samples.
fn hosts_view_section(out: &mut String, run: &ResultSet) {
    let cells = sampled(run);
    if cells.is_empty() {
        return;
    }
    out.push_str("<section id=\"per-host\"><h2>Per host (MiB/s)</h2>\n<p class=\"note\">A host's throughput: the bytes of its ranks (each rank an equal share) over the mean, over the iterations, of its slowest rank's time; the run's own figure is the same rule over all ranks.</p>\n<div style=\"overflow-x:auto\"><table><tr><th>API</th><th>Processes</th><th>Transfer size</th><th>Phase</th><th>Host</th><th>Ranks</th><th>Bytes</th><th>Mean time (s)</th><th>Throughput</th></tr>\n");
    for c in cells {
        for h in hosts(run, c) {
            row_head(out, c);
            let _ = writeln!(
                out,
                "<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.6}</td><td class=\"n\">{}</td></tr>",
                esc(&h.host),
                h.ranks,
                h.bytes.map_or_else(|| "–".to_string(), |b| b.to_string()),
                h.avg_time_s,
                mibps_text(h.mibps)
            );
        }
    }
    out.push_str("</table></div></section>\n");
}
