//! The verdict of a run (`--expect`, [`super::baseline`], [`super::reproducibility`]) as
//! PASS/FAIL/INCONCLUSIVE rows and a table. No I/O.

use std::fmt::Write as _;

use crate::config::acceptance::{cache_figure, Bypass};
use crate::config::criteria::Criterion;
use crate::config::{Reorder, StorageOptions};

use super::baseline::Comparison;
use super::reproducibility::{CellJudgement, Outcome, Reproducibility};
use super::results::{procs_text, size_text, CellKey, ResultSet};

/// PASS, FAIL or INCONCLUSIVE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The check holds.
    Pass,
    /// The check fails.
    Fail,
    /// The noise is too large to decide (`--within` only).
    Inconclusive,
}

impl Status {
    /// `PASS`, `FAIL` or `INCONCLUSIVE`.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Inconclusive => "INCONCLUSIVE",
        }
    }

    /// `Pass` when `ok`, else `Fail`.
    fn of(ok: bool) -> Status {
        if ok {
            Status::Pass
        } else {
            Status::Fail
        }
    }
}

/// One row of the verdict table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// PASS or FAIL.
    pub status: Status,
    /// What is checked: the criterion as given, or the baseline.
    pub check: String,
    /// The measured value with its unit (the worst selected measurement).
    pub measured: String,
    /// The bound with comparison and unit (`>= 2 GB/s`).
    pub bound: String,
    /// Where: the measurement shown, how many were selected.
    pub place: String,
}

/// The verdict of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The rows: the criteria in the order given, then the baseline's.
    pub rows: Vec<Row>,
    /// Number of criteria.
    pub criteria: usize,
    /// Number of criteria that fail.
    pub criteria_failed: usize,
    /// The comparison with the baseline, if one was given.
    pub baseline: Option<Comparison>,
    /// The two-sided comparison (`--within`), which then replaces the one-sided rule.
    pub within: Option<Reproducibility>,
    /// The measurements that fail a criterion or are a regression (for the page).
    pub flagged: Vec<CellKey>,
    /// `--stonewall`: the run is invalid (a write phase ended before its deadline), with
    /// the reason: one more failed check, its row after the criteria's
    /// ([`Verdict::mark_invalid`]).
    pub invalid: Option<String>,
    /// How the run measured, when it recorded its conditions (`--conditions`): shown
    /// first, with the criteria on page-cache figures ([`Mode::of`]).
    pub mode: Option<Mode>,
    /// `--stable`: what the profile turned on, as [`stable_text`] says it (from the run's
    /// parameters `stable` and `stable_turned_on`); shown first and in the summary.
    pub stable: Option<String>,
}

/// With `--stable` (the run's parameter `stable` = `on`): `--stable turned on --fsync,
/// --drop-caches` from `stable_turned_on` (`fsync;drop_caches`), or `--stable turned
/// nothing on ...` (`none`); `None` without `--stable`.
pub fn stable_text(run: &ResultSet) -> Option<String> {
    let value = |k: &str| run.parameters.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    if value("stable").map(String::as_str) != Some("on") {
        return None;
    }
    let on: Vec<String> = value("stable_turned_on")
        .map(|v| v.split(';').filter(|o| !o.is_empty() && *o != "none"))
        .into_iter()
        .flatten()
        .map(|o| format!("--{}", o.replace('_', "-")))
        .collect();
    Some(if on.is_empty() {
        "--stable turned nothing on (the options given bypass the cache)".to_string()
    } else {
        format!("--stable turned on {}", on.join(", "))
    })
}

/// How the verdict and the page name `--stable`'s profile.
pub const STABLE_TITLE: &str = "Stable storage profile";

/// What `--stable` guarantees of a verdict that has it.
pub const STABLE_RULE: &str =
    "a criterion on a page-cache figure is refused (before any I/O, and by --from)";

/// The measurement mode of a run: which cache bypass was in effect, and which criteria
/// bound a page-cache figure under it (the rule of
/// [`crate::config::acceptance::cache_figure`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Mode {
    /// What the run's figures measure: `page cache (…)` or the bypasses in effect.
    pub text: String,
    /// The criteria on page-cache figures: (criterion as given, the rule that makes it one).
    pub cache_criteria: Vec<(String, String)>,
}

impl Mode {
    /// The storage options `run` records (its parameters `fsync`, `direct`,
    /// `drop_caches`: `on`; `reorder`: `node` or the shift, counted when every read
    /// step's ranks read parts written on other hosts, by the ranks' hosts its samples
    /// hold).
    pub fn bypass_of(run: &ResultSet) -> Bypass {
        let value = |k: &str| run.parameters.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let on = |k: &str| value(k).is_some_and(|v| v == "on");
        let reorder = match value("reorder").map(String::as_str) {
            Some("node") => Some(Reorder::ByNode),
            Some(v) => v.parse().ok().filter(|s| *s > 0).map(Reorder::Shift),
            None => None,
        };
        let storage = StorageOptions {
            reorder,
            ..StorageOptions::default()
        };
        let rank_hosts = run.rank_hosts();
        let read_procs: Vec<u32> = (run.cells.iter())
            .filter(|c| c.key.phase().is_read())
            .map(|c| c.key.nprocs)
            .collect();
        Bypass {
            fsync: on("fsync"),
            direct: on("direct"),
            drop_caches: on("drop_caches"),
            reorder_across_nodes: !read_procs.is_empty()
                && !rank_hosts.iter().any(String::is_empty)
                && read_procs
                    .iter()
                    .all(|&n| storage.reads_cross_nodes(n, &rank_hosts)),
        }
    }

    /// The mode of `run` and its `criteria`.
    pub fn of(run: &ResultSet, criteria: &[Criterion]) -> Mode {
        let b = Mode::bypass_of(run);
        let mut parts = Vec::new();
        if b.fsync {
            parts.push(
                "--fsync (Write and Write Open-Close include the sync; Raw Data Write does not)",
            );
        }
        if b.direct {
            parts.push("--direct (POSIX transfers bypass the page cache)");
        }
        if b.drop_caches {
            parts.push("--drop-caches (reads after a cache drop)");
        }
        if b.reorder_across_nodes {
            parts.push("--reorder across nodes (each rank reads a part another host wrote)");
        }
        let text = if parts.is_empty() {
            "PAGE CACHE: no --fsync, --direct or --drop-caches; every figure may be a page-cache figure".to_string()
        } else {
            format!("storage where bypassed: {}", parts.join(", "))
        };
        let cache_criteria = criteria
            .iter()
            .filter_map(|c| Some((c.text().to_string(), cache_figure(c.api(), c.phase(), b)?)))
            .collect();
        Mode {
            text,
            cache_criteria,
        }
    }

    /// The lines the verdict shows: `Measurement mode: …`, then one per criterion on a
    /// page-cache figure.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!("Measurement mode: {}", self.text)];
        for (c, why) in &self.cache_criteria {
            out.push(format!("Cache figure: {c}: {why}"));
        }
        out
    }
}

/// `v` with two decimals, or three significant digits below 0.01 (never in exponent form).
pub fn figure(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || v.abs() >= 0.01 {
        return format!("{v:.2}");
    }
    let decimals = (2.0 - v.abs().log10().floor()).clamp(2.0, 20.0) as usize;
    format!("{v:.decimals$}")
}

fn place(k: &CellKey) -> String {
    format!("{}, {}", procs_text(k.nprocs), size_text(k.xfer_size))
}

fn criterion_row(run: &ResultSet, c: &Criterion) -> (Row, Vec<CellKey>) {
    let unit = c.unit();
    // bytes per second in one MiB/s; a cv is a percentage, taken as it is
    let per_mibps = if c.is_throughput() { 1_048_576.0 } else { 1.0 };
    let selected: Vec<(CellKey, f64)> = run
        .cells
        .iter()
        .filter(|x| c.selects(x.key.nprocs, x.key.xfer_size, x.key.api(), x.key.phase()))
        .map(|x| (x.key, x.mibps(c.statistic()) * per_mibps))
        .collect();
    let bound = c.bound_bytes_per_second();
    let failing: Vec<CellKey> = selected
        .iter()
        .filter(|(_, v)| !c.comparison().holds(*v, bound))
        .map(|(k, _)| *k)
        .collect();
    let lower = c.comparison().lower_bound();
    let worse = |b: f64, a: f64| if lower { b < a } else { b > a };
    let worst = selected
        .iter()
        .copied()
        .reduce(|a, b| if worse(b.1, a.1) { b } else { a });
    let (measured, where_) = match worst {
        None => ("-".to_string(), "selects no measurement".to_string()),
        Some((k, v)) => {
            let shown = format!("{} {}", figure(v / unit.bytes_per_second()), unit.name());
            let w = match (selected.len(), failing.len()) {
                (1, _) => place(&k),
                (n, 0 | 1) => format!("worst of {n}: {}", place(&k)),
                (n, f) => format!("worst of {n} ({f} fail): {}", place(&k)),
            };
            (shown, w)
        }
    };
    let row = Row {
        status: Status::of(failing.is_empty() && worst.is_some()),
        check: c.text().to_string(),
        measured,
        bound: c.bound_text(),
        place: where_,
    };
    (row, failing)
}

impl Verdict {
    /// Evaluate `criteria` on `run`, then add the rows of the baseline comparison if any:
    /// the one-sided rule's regressions, or with `within` (`--within`) its judgements.
    pub fn evaluate(
        run: &ResultSet,
        criteria: &[Criterion],
        baseline: Option<Comparison>,
        within: Option<Reproducibility>,
    ) -> Verdict {
        let mut rows = Vec::new();
        let mut flagged = Vec::new();
        for c in criteria {
            let (row, failing) = criterion_row(run, c);
            rows.push(row);
            for k in failing {
                if !flagged.contains(&k) {
                    flagged.push(k);
                }
            }
        }
        let criteria_failed = rows.iter().filter(|r| r.status == Status::Fail).count();
        if let (Some(b), Some(w)) = (&baseline, &within) {
            within_rows(b, w, &mut rows, &mut flagged);
        } else if let Some(b) = &baseline {
            let n = b.regressions().count();
            rows.push(Row {
                status: Status::of(n == 0),
                check: format!("baseline {} (tolerance {})", b.name, b.tolerance),
                measured: format!("{} compared", b.compared.len()),
                bound: "no regression".to_string(),
                place: match n {
                    0 => "mean throughput of each measurement".to_string(),
                    1 => "1 regression".to_string(),
                    n => format!("{n} regressions"),
                },
            });
            // the worst first: the smallest fraction of the baseline's value
            let mut worst: Vec<_> = b.regressions().collect();
            worst.sort_by(|x, y| {
                (x.run_mibps / x.base_mibps).total_cmp(&(y.run_mibps / y.base_mibps))
            });
            for d in worst {
                rows.push(Row {
                    status: Status::Fail,
                    check: format!("baseline: {} {}", d.key.api().name(), d.key.phase().key()),
                    measured: format!("{} MiB/s", figure(d.run_mibps)),
                    bound: format!(">= {} MiB/s", figure(d.bound_mibps)),
                    place: format!(
                        "{} (baseline {} ± {} MiB/s)",
                        place(&d.key),
                        figure(d.base_mibps),
                        figure(d.base_std)
                    ),
                });
                if !flagged.contains(&d.key) {
                    flagged.push(d.key);
                }
            }
        }
        Verdict {
            rows,
            criteria: criteria.len(),
            criteria_failed,
            baseline,
            within,
            flagged,
            invalid: None,
            mode: run
                .facts
                .iter()
                .any(|(k, _)| k == "mpi_io_env")
                .then(|| Mode::of(run, criteria)),
            stable: stable_text(run),
        }
    }

    /// Mark the run invalid (`--stonewall`, issue 28, IO500's `[INVALID]`) for `reason`:
    /// a failed row after the criteria's, counted by [`Verdict::failed`] and named by
    /// [`Verdict::summary`], so the verdict's own status is FAIL.
    pub fn mark_invalid(&mut self, reason: &str) {
        let bound = "every write phase lasts its deadline";
        self.mark_unusable("run valid (--stonewall)", "INVALID", bound, reason);
    }

    /// Mark the results of a run that did not finish (`complete: false` in a results
    /// file read by `--from`: stopped by a signal or a time limit, or its data failed
    /// `-D v`) for `reason`: they cannot pass, as [`Verdict::mark_invalid`].
    pub fn mark_incomplete(&mut self, reason: &str) {
        let bound = "every step of the run finished";
        self.mark_unusable("run complete", "INCOMPLETE", bound, reason);
    }

    /// The failed row of [`Verdict::mark_invalid`] and [`Verdict::mark_incomplete`]
    /// (the first one given only).
    fn mark_unusable(&mut self, check: &str, measured: &str, bound: &str, reason: &str) {
        if self.invalid.is_some() {
            return;
        }
        self.rows.insert(
            self.criteria,
            Row {
                status: Status::Fail,
                check: check.to_string(),
                measured: measured.to_string(),
                bound: bound.to_string(),
                place: reason.to_string(),
            },
        );
        self.invalid = Some(reason.to_string());
    }

    /// Regressions against the baseline (one-sided rule; 0 with `--within`).
    pub fn regressions(&self) -> usize {
        match (&self.baseline, &self.within) {
            (Some(b), None) => b.regressions().count(),
            _ => 0,
        }
    }

    /// Failed checks: failed criteria plus regressions, or with `--within` the
    /// measurements beyond the band and a failed overall judgement.
    pub fn failed(&self) -> usize {
        self.criteria_failed
            + self.regressions()
            + self.within.as_ref().map_or(0, |w| w.failed())
            + usize::from(self.invalid.is_some())
    }

    /// Checks the noise leaves undecided (`--within` only).
    pub fn undecided(&self) -> usize {
        self.within.as_ref().map_or(0, |w| w.undecided())
    }

    /// FAIL when a check failed, else INCONCLUSIVE when one is undecided, else PASS.
    pub fn status(&self) -> Status {
        if self.failed() > 0 {
            Status::Fail
        } else if self.undecided() > 0 {
            Status::Inconclusive
        } else {
            Status::Pass
        }
    }

    /// `1 of 2 criteria failed; baseline old.csv: 1 regression in 72 measurements`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.criteria > 0 {
            parts.push(format!(
                "{} of {} criteri{} failed",
                self.criteria_failed,
                self.criteria,
                if self.criteria == 1 { "on" } else { "a" }
            ));
        }
        if let (Some(b), Some(w)) = (&self.baseline, &self.within) {
            parts.push(within_summary(&b.name, w));
        } else if let Some(b) = &self.baseline {
            let n = self.regressions();
            parts.push(format!(
                "baseline {}: {n} regression{} in {} measurement{}",
                b.name,
                if n == 1 { "" } else { "s" },
                b.compared.len(),
                if b.compared.len() == 1 { "" } else { "s" }
            ));
        }
        if let Some(why) = &self.invalid {
            parts.push(format!("run INVALID ({why})"));
        }
        if self.stable.is_some() {
            parts.push("stable storage profile".to_string());
        }
        parts.join("; ")
    }

    /// The notes after the rows (one line each, without line end).
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(b) = &self.baseline {
            for k in &b.only_in_run {
                out.push(format!("missing in {}: {k}", b.name));
            }
            for k in &b.only_in_baseline {
                out.push(format!("missing in this run (only in {}): {k}", b.name));
            }
            for (name, here, there) in &b.differences {
                out.push(format!(
                    "{} differs in {name}: {here} in this run, {there} in the baseline",
                    b.name
                ));
            }
            for c in self.within.iter().flat_map(|w| w.with(Outcome::Undecided)) {
                let (lo, hi) = c.interval;
                out.push(format!(
                    "undecided: {}: {:+.1}% (90% interval {:+.1}% to {:+.1}%; {} and {} iterations), {}",
                    c.key,
                    100.0 * (c.ratio() - 1.0),
                    100.0 * lo,
                    100.0 * hi,
                    c.run.2,
                    c.base.2,
                    match c.iterations_needed {
                        Some(n) => format!("about -i {n} in this run would decide it"),
                        None => "the baseline's spread alone is too large".to_string(),
                    }
                ));
            }
            if !b.baseline_complete {
                out.push(format!(
                    "{} is not complete: its run did not finish every step",
                    b.name
                ));
            }
        }
        out
    }

    /// The verdict table: `Verdict: PASS (summary)`, a header, aligned rows, indented notes.
    pub fn text(&self) -> String {
        let head = ["Result", "Check", "Measured", "Bound", "Where"];
        let cols = |r: &Row| {
            [r.status.word(), &r.check, &r.measured, &r.bound, &r.place].map(str::to_string)
        };
        let mut width = head.map(|h| h.chars().count());
        for r in &self.rows {
            for (w, c) in width.iter_mut().zip(cols(r)) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |out: &mut String, cells: [String; 5]| {
            let mut l = String::new();
            for (i, (c, w)) in cells.iter().zip(width).enumerate() {
                if i + 1 == cells.len() {
                    l.push_str(c);
                } else {
                    let _ = write!(l, "{c:<w$}  ");
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        };
        let mut out = format!("\nVerdict: {} ({})\n", self.status().word(), self.summary());
        if let Some(s) = &self.stable {
            let _ = writeln!(out, "{STABLE_TITLE}: {s}; {STABLE_RULE}");
        }
        for l in self.mode.iter().flat_map(Mode::lines) {
            let _ = writeln!(out, "{l}");
        }
        line(&mut out, head.map(str::to_string));
        for r in &self.rows {
            line(&mut out, cols(r));
        }
        for n in self.notes() {
            let _ = writeln!(out, "  {n}");
        }
        out
    }
}

/// `2 measurements` (or `1 measurement`).
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `90 % interval [0.91, 1.05]` of a ratio.
fn ratio_interval((lo, hi): (f64, f64)) -> String {
    format!("90% interval {:.3}-{:.3}", lo, hi)
}

/// What more iterations would decide, for the summary and the row of undecided ones.
fn needed_text(w: &Reproducibility) -> String {
    match w.iterations_needed() {
        (Some(n), 0) => format!("about -i {n} in this run would decide them"),
        (Some(n), k) => format!(
            "about -i {n} in this run would decide all but {k}, which need a steadier baseline \
             (rerun it with more iterations)"
        ),
        (None, _) => {
            "more iterations of this run alone cannot decide them: rerun the baseline with \
             more iterations too"
                .to_string()
        }
    }
}

/// `baseline old.csv within 10%: 1 drop, 0 improvements, 3 undecided in 36 measurements;
/// as a whole 0.71× (drop)`.
fn within_summary(name: &str, w: &Reproducibility) -> String {
    let n = |o| w.with(o).count();
    let mut s = format!(
        "baseline {name} within {}: {}, {}, {} undecided in {}",
        w.within,
        count(n(Outcome::Drop), "drop"),
        count(n(Outcome::Improvement), "improvement"),
        n(Outcome::Undecided),
        count(w.cells.len(), "measurement")
    );
    if let Some(o) = &w.overall {
        let _ = write!(s, "; as a whole {:.3}x ({})", o.ratio, o.outcome.word());
    }
    s
}

/// The rows of the two-sided comparison: the summary row, the overall judgement, the
/// measurements beyond the band (largest departure first), one row for the undecided.
fn within_rows(
    b: &Comparison,
    w: &Reproducibility,
    rows: &mut Vec<Row>,
    flagged: &mut Vec<CellKey>,
) {
    let beyond = w.with(Outcome::Drop).count() + w.with(Outcome::Improvement).count();
    let undecided = w.with(Outcome::Undecided).count();
    let status = |fail: bool, open: bool| {
        if fail {
            Status::Fail
        } else if open {
            Status::Inconclusive
        } else {
            Status::Pass
        }
    };
    let band = format!("within ±{}", w.within);
    rows.push(Row {
        status: status(beyond > 0, undecided > 0),
        check: format!("baseline {} (within {})", b.name, w.within),
        measured: format!("{} compared", w.cells.len()),
        bound: band.clone(),
        place: format!(
            "{}, {}, {} undecided",
            count(w.with(Outcome::Drop).count(), "drop"),
            count(w.with(Outcome::Improvement).count(), "improvement"),
            undecided
        ),
    });
    if let Some(o) = &w.overall {
        rows.push(Row {
            status: match o.outcome {
                Outcome::Within => Status::Pass,
                Outcome::Undecided => Status::Inconclusive,
                _ => Status::Fail,
            },
            check: "baseline: the run as a whole".to_string(),
            measured: format!("{:.3}x", o.ratio),
            bound: band.clone(),
            place: format!(
                "{}: geometric mean of {} ratios, {} (paired t on log ratios)",
                o.outcome.word(),
                o.cells,
                ratio_interval(o.interval)
            ),
        });
    }
    let mut out: Vec<&CellJudgement> = w
        .cells
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Drop | Outcome::Improvement))
        .collect();
    out.sort_by(|x, y| {
        (x.ratio().ln().abs())
            .total_cmp(&y.ratio().ln().abs())
            .reverse()
    });
    for c in out {
        rows.push(Row {
            status: Status::Fail,
            check: format!(
                "baseline: {} {} {}",
                c.key.api().name(),
                c.key.phase().key(),
                c.outcome.word()
            ),
            measured: format!("{} MiB/s", figure(c.run.0)),
            bound: band.clone(),
            place: format!(
                "{} ({:+.1}%; baseline {} ± {} MiB/s)",
                place(&c.key),
                100.0 * (c.ratio() - 1.0),
                figure(c.base.0),
                figure(c.base.1)
            ),
        });
        if !flagged.contains(&c.key) {
            flagged.push(c.key);
        }
    }
    if undecided > 0 {
        rows.push(Row {
            status: Status::Inconclusive,
            check: "baseline: undecided measurements".to_string(),
            measured: format!("{undecided} of {}", w.cells.len()),
            bound: band,
            place: format!("the noise is too large to decide: {}", needed_text(w)),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::baseline::compare;
    use super::super::results::run_set;
    use super::*;
    use crate::config::Api;
    use crate::measure::Phase;

    /// Mean throughputs 1000·n + x/1024 MiB/s (posix) and half of that (mpiio).
    fn run() -> ResultSet {
        let (m, p, r) = run_set(
            &[2, 1],
            &[4096, 8192],
            &[Api::Posix, Api::Mpiio],
            false,
            &|n, x, a, _| (1000.0 * f64::from(n) + (x / 1024) as f64) / (1 + a) as f64,
        );
        super::super::readback::of_run(&m, &p, &r)
    }

    fn crit(t: &str) -> Criterion {
        Criterion::parse(t).unwrap()
    }

    #[test]
    fn criteria_that_pass_and_fail() {
        let run = run();
        let v = Verdict::evaluate(
            &run,
            &[
                crit("posix.write>=1000MiB/s"),
                crit("mpiio.read.max>=1GB/s@procs=2"),
                crit("posix.write<=1.5GiB/s"),
                crit("mpiio.write.min>600MiB/s@procs=1,xfer=8K"),
            ],
            None,
            None,
        );
        assert_eq!((v.criteria, v.criteria_failed, v.failed()), (4, 2, 2));
        assert_eq!(v.status(), Status::Fail);
        let r = &v.rows[0];
        assert_eq!(r.status, Status::Pass);
        // the worst of the 4 posix write measurements: 1 process, 4 KiB, 1004 MiB/s
        assert_eq!(r.measured, "1004.00 MiB/s");
        assert_eq!(r.bound, ">= 1000 MiB/s");
        assert_eq!(r.place, "worst of 4: 1 process, 4 KiB");
        // mpiio max at 2 processes: 1.1 × (2004 or 2008)/2 MiB/s, worst 1102.2 MiB/s = 1.16 GB/s
        let r = &v.rows[1];
        assert_eq!(r.status, Status::Pass);
        assert_eq!(
            r.measured,
            format!("{} GB/s", figure(1102.2 * 1_048_576.0 / 1e9))
        );
        // at most 1.5 GiB/s = 1536 MiB/s: the 2-process ones fail, the worst is the largest
        let r = &v.rows[2];
        assert_eq!(r.status, Status::Fail);
        assert_eq!(r.measured, format!("{} GiB/s", figure(2008.0 / 1024.0)));
        assert_eq!(r.place, "worst of 4 (2 fail): 2 processes, 8 KiB");
        // one measurement: min = 0.9 × 1008 / 2 = 453.6 MiB/s
        let r = &v.rows[3];
        assert_eq!(
            (r.status, r.measured.as_str()),
            (Status::Fail, "453.60 MiB/s")
        );
        assert_eq!(r.place, "1 process, 8 KiB");
        assert_eq!(
            v.flagged,
            [
                CellKey::new(2, 4096, Api::Posix, Phase::Write),
                CellKey::new(2, 8192, Api::Posix, Phase::Write),
                CellKey::new(1, 8192, Api::Mpiio, Phase::Write),
            ]
        );
        let text = v.text();
        assert!(
            text.starts_with("\nVerdict: FAIL (2 of 4 criteria failed)\n"),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].starts_with("Result  Check"));
        assert!(lines[3].starts_with("PASS    posix.write>=1000MiB/s "));
        assert!(lines[5].starts_with("FAIL    posix.write<=1.5GiB/s "));
        // the columns line up
        let at = lines[2].find("Measured").unwrap();
        assert!(lines[3..]
            .iter()
            .all(|l| l[at..].starts_with(|c: char| c.is_ascii_digit())));
        let one = Verdict::evaluate(&run, &[crit("posix.write>=1B/s")], None, None);
        assert_eq!(one.summary(), "0 of 1 criterion failed");
        assert_eq!(one.status(), Status::Pass);
        // an invalid run (--stonewall): the verdict itself fails, with a row after the
        // criteria's and the reason in its first line
        let mut bad = one.clone();
        bad.mark_invalid("too short");
        bad.mark_invalid("too short");
        assert_eq!((bad.failed(), bad.status()), (1, Status::Fail));
        assert_eq!(bad.rows.len(), 2);
        assert_eq!(
            (bad.rows[1].status, bad.rows[1].measured.as_str()),
            (Status::Fail, "INVALID")
        );
        let text = bad.text();
        assert!(
            text.starts_with(
                "\nVerdict: FAIL (0 of 1 criterion failed; run INVALID (too short))\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn baseline_rows_and_notes() {
        let run = run();
        let mut base = run.clone();
        let key = CellKey::new(2, 8192, Api::Mpiio, Phase::Read);
        let i = base.cells.iter().position(|c| c.key == key).unwrap();
        base.cells[i].avg_mibps *= 2.0;
        base.cells
            .retain(|c| c.key.nprocs != 1 || c.key.xfer_size != 4096);
        base.parameters[1].1 = "1".into();
        let cmp = compare(&run, &base, "old.csv", 0.1, "10%");
        let v = Verdict::evaluate(&run, &[crit("posix.write>=1B/s")], Some(cmp), None);
        assert_eq!((v.criteria_failed, v.regressions(), v.failed()), (0, 1, 1));
        assert_eq!(v.rows.len(), 3);
        assert_eq!(v.rows[1].check, "baseline old.csv (tolerance 10%)");
        assert_eq!(v.rows[1].status, Status::Fail);
        assert_eq!(v.rows[1].measured, "36 compared");
        let r = &v.rows[2];
        assert_eq!(
            (r.status, r.check.as_str()),
            (Status::Fail, "baseline: mpiio read")
        );
        assert_eq!(r.measured, "1004.00 MiB/s");
        assert_eq!(r.bound, format!(">= {} MiB/s", figure(2008.0 - 200.8)));
        assert!(r
            .place
            .starts_with("2 processes, 8 KiB (baseline 2008.00 ± 10.04 MiB/s)"));
        assert_eq!(v.flagged, [key]);
        assert_eq!(
            v.summary(),
            "0 of 1 criterion failed; baseline old.csv: 1 regression in 36 measurements"
        );
        let notes = v.notes();
        assert_eq!(notes.len(), 2 * 6 + 1);
        assert_eq!(
            notes[0],
            "missing in old.csv: posix raw_write, 1 process, 4 KiB"
        );
        assert!(notes[12].starts_with("old.csv differs in block_size: "));
        assert!(v
            .text()
            .contains("\n  missing in old.csv: mpiio read_open_close, 1 process, 4 KiB\n"));
        let same = compare(&run, &run, "old.csv", 0.1, "10%");
        let v = Verdict::evaluate(&run, &[], Some(same), None);
        assert_eq!((v.status(), v.rows.len()), (Status::Pass, 1));
        assert_eq!(v.rows[0].place, "mean throughput of each measurement");
    }

    #[test]
    fn the_stable_profile_is_named_in_the_summary_the_table_and_the_page() {
        let mut r = run();
        let cs = [crit("posix.write>=1B/s")];
        let v = Verdict::evaluate(&r, &cs, None, None);
        assert_eq!(
            (v.stable.as_deref(), v.summary()),
            (None, "0 of 1 criterion failed".into())
        );
        r.parameters.push(("stable".into(), "on".into()));
        r.parameters
            .push(("stable_turned_on".into(), "fsync;drop_caches".into()));
        let v = Verdict::evaluate(&r, &cs, None, None);
        assert_eq!(
            v.summary(),
            "0 of 1 criterion failed; stable storage profile"
        );
        let text = v.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[2],
            "Stable storage profile: --stable turned on --fsync, --drop-caches; a criterion on \
             a page-cache figure is refused (before any I/O, and by --from)"
        );
        let page = super::super::html::page(&r, Some(&v), &cs);
        assert!(page
            .contains("<b>Stable storage profile:</b> --stable turned on --fsync, --drop-caches;"));
        r.parameters.pop();
        r.parameters
            .push(("stable_turned_on".into(), "none".into()));
        assert_eq!(
            stable_text(&r).unwrap(),
            "--stable turned nothing on (the options given bypass the cache)"
        );
    }

    #[test]
    fn figures() {
        assert_eq!(figure(1234.567), "1234.57");
        assert_eq!(figure(0.5), "0.50");
        assert_eq!(figure(0.001234), "0.00123");
        assert_eq!(figure(0.0), "0.00");
    }

    #[test]
    fn the_mode_is_known_only_with_the_conditions_and_flags_cache_figures() {
        let mut r = run();
        let cs = [
            crit("posix.read>=1B/s"),
            crit("mpiio.raw_write>=1B/s"),
            crit("mpiio.write>=1B/s"),
        ];
        assert_eq!(Verdict::evaluate(&r, &cs, None, None).mode, None);
        r.facts.push(("mpi_io_env".into(), "none".into()));
        let m = Verdict::evaluate(&r, &cs, None, None).mode.unwrap();
        assert!(m.text.starts_with("PAGE CACHE"));
        assert_eq!(m.cache_criteria.len(), 3);
        r.parameters.push(("fsync".into(), "on".into()));
        r.parameters.push(("drop_caches".into(), "on".into()));
        let v = Verdict::evaluate(&r, &cs, None, None);
        let m = v.mode.as_ref().unwrap();
        assert!(
            m.text.contains("--fsync") && m.text.contains("--drop-caches"),
            "{}",
            m.text
        );
        let flagged: Vec<&str> = m.cache_criteria.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(flagged, ["mpiio.raw_write>=1B/s"]);
        let text = v.text();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].starts_with("Measurement mode: storage where bypassed: --fsync"));
        assert!(lines[3].starts_with("Cache figure: mpiio.raw_write>=1B/s: Raw Data Write"));
        assert!(lines[4].starts_with("Result"));
    }
}
