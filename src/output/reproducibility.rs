//! Two-sided comparison with a baseline (`--baseline FILE --within PCT`): is every mean
//! throughput within PCT of the baseline's, and is the run as a whole? No I/O.
//!
//! **Each measurement** (equivalence by two one-sided tests, Schuirmann 1987, "A comparison
//! of the two one-sided tests procedure and the power approach for assessing the
//! equivalence of average bioavailability", J. Pharmacokinet. Biopharm. 15(6)): with the
//! means `r`, `b` (`avg_mibps`), the sample standard deviations `s_r`, `s_b` (`std_mibps`)
//! over `n_r`, `n_b` iterations, the difference `d = r − b` has the standard error
//! `se = sqrt(s_r²/n_r + s_b²/n_b)` and Welch–Satterthwaite degrees of freedom
//! `ν = se⁴ / ((s_r²/n_r)²/(n_r−1) + (s_b²/n_b)²/(n_b−1))` (Welch 1947, Biometrika 34).
//! With `h = t(0.95, ⌊ν⌋) · se` (the one-sided 95 % quantile of Student's t, [`t95`]) and
//! the band `w = PCT × b`:
//!
//! * `−w ≤ d − h` and `d + h ≤ w`: **within** (the 90 % interval of `d` inside the band:
//!   both one-sided tests reject "outside the band" at the 5 % level);
//! * `d + h < −w`: a **drop** beyond the band (one-sided test, 5 % level);
//! * `d − h > w`: an **improvement** beyond the band;
//! * otherwise **undecided**: the noise is too large to decide at this PCT. The number
//!   of this run's iterations that would decide it, the spreads and means being the same
//!   and the baseline unchanged, is the smallest `n` with `t(0.95, ν(n)) · sqrt(s_r²/n +
//!   s_b²/n_b) < |w − |d||` ([`iterations_needed`]); none when the baseline's own
//!   term `s_b²/n_b` alone is too large.
//!
//! `avg_mibps` is bytes over the mean time, not the mean of the iterations' throughputs;
//! with their spread `std_mibps` it is the usual first-order (delta-method) approximation.
//!
//! **The run as a whole** (a paired test over the measurements): the log ratios
//! `l_i = ln(r_i / b_i)` of the `m` measurements in both runs, their mean `l̄` and sample
//! standard deviation `s_l`; the geometric mean ratio `exp(l̄)` (Fleming & Wallace 1986,
//! "How not to lie with statistics: the correct way to summarize benchmark results",
//! CACM 29(3)) with the 90 % interval `exp(l̄ ± t(0.95, m−1) · s_l / sqrt(m))` (Student's
//! paired t test on the log ratios), judged against the band `[1 − PCT, 1 + PCT]` as
//! above. A broad drop of every measurement is caught even when each one alone is too
//! noisy to decide. The phases of one step are not independent measurements (Write
//! includes Raw Data Write): the interval is then narrower than it should be, so a run
//! is judged as a whole only with at least 2 measurements, and the per-measurement
//! judgements stay the finer record.

use super::baseline::Comparison;
use super::results::{CellKey, ResultSet};

/// Student's t, one-sided 95 % quantiles for 1 to 30 degrees of freedom (NIST/SEMATECH
/// e-Handbook of Statistical Methods, §1.3.6.7.2, "Critical values of the Student's t
/// distribution", column 0.95).
const T95: [f64; 30] = [
    6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782, 1.771,
    1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706,
    1.703, 1.701, 1.699, 1.697,
];

/// The one-sided 95 % quantile of Student's t with `df` degrees of freedom (rounded
/// down, which widens the interval): the table `T95` up to 30, above it the
/// Cornish–Fisher expansion around the normal quantile z = 1.6449 (Abramowitz & Stegun,
/// Handbook of Mathematical Functions, 26.7.5): `z + (z³+z)/(4ν) + (5z⁵+16z³+3z)/(96ν²)`.
/// `df` below 1 counts as 1.
pub fn t95(df: f64) -> f64 {
    let nu = if df.is_finite() {
        df.floor().max(1.0)
    } else {
        1e9
    };
    if nu <= 30.0 {
        return T95[nu as usize - 1];
    }
    let z: f64 = 1.644_853_6;
    z + (z.powi(3) + z) / (4.0 * nu)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * nu * nu)
}

/// Where a difference lies with respect to the band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Shown to be within the band.
    Within,
    /// Shown to be below the band: worse than the baseline by more than PCT.
    Drop,
    /// Shown to be above the band: better than the baseline by more than PCT.
    Improvement,
    /// The noise is too large to decide.
    Undecided,
}

impl Outcome {
    /// `within`, `drop`, `improvement`, `undecided`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Within => "within",
            Outcome::Drop => "drop",
            Outcome::Improvement => "improvement",
            Outcome::Undecided => "undecided",
        }
    }

    /// The outcome of an interval `[low, high]` against the band `[lo_band, hi_band]`.
    fn of(low: f64, high: f64, lo_band: f64, hi_band: f64) -> Outcome {
        if high < lo_band {
            Outcome::Drop
        } else if low > hi_band {
            Outcome::Improvement
        } else if low >= lo_band && high <= hi_band {
            Outcome::Within
        } else {
            Outcome::Undecided
        }
    }
}

/// One measurement judged against the band.
#[derive(Debug, Clone, PartialEq)]
pub struct CellJudgement {
    /// What was measured.
    pub key: CellKey,
    /// This run's mean throughput (MiB/s), its standard deviation, its iterations.
    pub run: (f64, f64, u32),
    /// The baseline's mean throughput (MiB/s), its standard deviation, its iterations.
    pub base: (f64, f64, u32),
    /// The 90 % interval of `run / base − 1` (fractions; 0.1 = 10 % better).
    pub interval: (f64, f64),
    /// The judgement.
    pub outcome: Outcome,
    /// For an undecided one: this run's iterations that would decide it (module doc).
    pub iterations_needed: Option<u32>,
}

impl CellJudgement {
    /// `run / base`.
    pub fn ratio(&self) -> f64 {
        self.run.0 / self.base.0
    }
}

/// The run as a whole: the paired test on the log ratios.
#[derive(Debug, Clone, PartialEq)]
pub struct Overall {
    /// Measurements in the test.
    pub cells: usize,
    /// The geometric mean of `run / base`.
    pub ratio: f64,
    /// Its 90 % interval.
    pub interval: (f64, f64),
    /// The judgement against `[1 − PCT, 1 + PCT]`.
    pub outcome: Outcome,
}

/// The two-sided comparison of a run with its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Reproducibility {
    /// The band as given, e.g. `10%`.
    pub within: String,
    /// Every measurement in both runs, in the run's order.
    pub cells: Vec<CellJudgement>,
    /// The run as a whole (`None` with fewer than 2 measurements).
    pub overall: Option<Overall>,
}

impl Reproducibility {
    /// The measurements with outcome `o`, in the run's order.
    pub fn with(&self, o: Outcome) -> impl Iterator<Item = &CellJudgement> {
        self.cells.iter().filter(move |c| c.outcome == o)
    }

    /// Failed checks: drops and improvements beyond the band, and the overall judgement's.
    pub fn failed(&self) -> usize {
        let overall = self
            .overall
            .as_ref()
            .is_some_and(|o| matches!(o.outcome, Outcome::Drop | Outcome::Improvement));
        self.with(Outcome::Drop).count()
            + self.with(Outcome::Improvement).count()
            + usize::from(overall)
    }

    /// Checks the noise leaves undecided: measurements, and the overall judgement.
    pub fn undecided(&self) -> usize {
        let overall = self
            .overall
            .as_ref()
            .is_some_and(|o| o.outcome == Outcome::Undecided);
        self.with(Outcome::Undecided).count() + usize::from(overall)
    }

    /// The iterations of this run that would decide every undecided measurement that
    /// more iterations can decide (`None` when none can or none is undecided), and how
    /// many cannot be decided by this run's iterations alone.
    pub fn iterations_needed(&self) -> (Option<u32>, usize) {
        let undecided: Vec<_> = self.with(Outcome::Undecided).collect();
        let most = undecided.iter().filter_map(|c| c.iterations_needed).max();
        let never = undecided
            .iter()
            .filter(|c| c.iterations_needed.is_none())
            .count();
        (most, never)
    }
}

/// The most iterations [`iterations_needed`] looks at.
const MOST_ITERATIONS: u32 = 100_000;

/// The 90 % half-width of a difference of means: `t(0.95, ν) · se` (module doc), with
/// (standard deviation, iterations) of each side; a side with one iteration adds nothing.
fn half_width((s_r, n_r): (f64, u32), (s_b, n_b): (f64, u32)) -> f64 {
    let term = |s: f64, n: u32| if n >= 2 { s * s / f64::from(n) } else { 0.0 };
    let (a, b) = (term(s_r, n_r), term(s_b, n_b));
    if a + b == 0.0 {
        return 0.0;
    }
    let dof = |t: f64, n: u32| {
        if n >= 2 {
            t * t / f64::from(n - 1)
        } else {
            0.0
        }
    };
    let nu = (a + b).powi(2) / (dof(a, n_r) + dof(b, n_b));
    t95(nu) * (a + b).sqrt()
}

/// The smallest number of this run's iterations (at least `n_r + 1`) with which the
/// 90 % half-width falls below `margin` (MiB/s), spreads unchanged; `None` when even
/// 100 000 do not (the baseline's spread alone is too large) or `margin` ≤ 0.
pub fn iterations_needed(s_r: f64, n_r: u32, base: (f64, u32), margin: f64) -> Option<u32> {
    if margin <= 0.0 || !margin.is_finite() {
        return None;
    }
    // half_width decreases with n: bisect on [n_r + 1, MOST_ITERATIONS]
    let fits = |n: u32| half_width((s_r, n), base) < margin;
    let (mut lo, mut hi) = (n_r.max(1) + 1, MOST_ITERATIONS);
    if !fits(hi) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// Judge `run` against `base` within the fraction `within` (0.1 = 10 %), shown as
/// `within_text`, over the measurements `cmp` found in both.
pub fn judge(
    run: &ResultSet,
    base: &ResultSet,
    cmp: &Comparison,
    within: f64,
    within_text: &str,
) -> Reproducibility {
    let mut cells = Vec::new();
    for d in &cmp.compared {
        let (Some(r), Some(b)) = (run.cell(&d.key), base.cell(&d.key)) else {
            continue;
        };
        let (rs, bs) = ((r.std_mibps, r.iterations), (b.std_mibps, b.iterations));
        let h = half_width(rs, bs);
        let diff = r.avg_mibps - b.avg_mibps;
        let w = within * b.avg_mibps;
        let outcome = Outcome::of(diff - h, diff + h, -w, w);
        let iterations_needed = (outcome == Outcome::Undecided)
            .then(|| iterations_needed(rs.0, rs.1, bs, (w - diff.abs()).abs()))
            .flatten();
        let rel = |x: f64| {
            if b.avg_mibps > 0.0 {
                x / b.avg_mibps
            } else {
                0.0
            }
        };
        cells.push(CellJudgement {
            key: d.key,
            run: (r.avg_mibps, r.std_mibps, r.iterations),
            base: (b.avg_mibps, b.std_mibps, b.iterations),
            interval: (rel(diff - h), rel(diff + h)),
            outcome,
            iterations_needed,
        });
    }
    let logs: Vec<f64> = cells
        .iter()
        .filter(|c| c.run.0 > 0.0 && c.base.0 > 0.0)
        .map(|c| c.ratio().ln())
        .collect();
    let overall = (logs.len() >= 2).then(|| {
        let m = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / m;
        let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (m - 1.0);
        let h = t95(m - 1.0) * (var / m).sqrt();
        let interval = ((mean - h).exp(), (mean + h).exp());
        Overall {
            cells: logs.len(),
            ratio: mean.exp(),
            interval,
            outcome: Outcome::of(interval.0, interval.1, 1.0 - within, 1.0 + within),
        }
    });
    Reproducibility {
        within: within_text.to_string(),
        cells,
        overall,
    }
}

#[cfg(test)]
mod tests {
    use super::super::baseline::compare;
    use super::super::results::run_set;
    use super::*;
    use crate::config::Api;

    fn set(f: &dyn Fn(u32, u64, usize, usize) -> f64) -> ResultSet {
        let (m, p, r) = run_set(&[2, 1], &[4096, 8192], &[Api::Posix, Api::Mpiio], false, f);
        super::super::readback::of_run(&m, &p, &r)
    }

    fn judged(run: &ResultSet, base: &ResultSet, within: f64) -> Reproducibility {
        let cmp = compare(run, base, "b", 0.1, "10%");
        judge(run, base, &cmp, within, "x")
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t95(1.0), 6.314);
        assert_eq!(t95(2.9), 2.920);
        assert_eq!(t95(0.2), 6.314);
        assert_eq!(t95(30.0), 1.697);
        // the expansion continues the table closely (1.684 at 40, 1.660 at 100)
        assert!((t95(40.0) - 1.684).abs() < 0.001, "{}", t95(40.0));
        assert!((t95(100.0) - 1.660).abs() < 0.001, "{}", t95(100.0));
        assert!((t95(f64::INFINITY) - 1.6449).abs() < 0.001);
    }

    #[test]
    fn outcomes_of_intervals() {
        assert_eq!(Outcome::of(-0.05, 0.05, -0.1, 0.1), Outcome::Within);
        assert_eq!(Outcome::of(-0.3, -0.2, -0.1, 0.1), Outcome::Drop);
        assert_eq!(Outcome::of(0.2, 0.3, -0.1, 0.1), Outcome::Improvement);
        assert_eq!(Outcome::of(-0.2, 0.0, -0.1, 0.1), Outcome::Undecided);
    }

    #[test]
    fn an_equal_run_is_within_and_a_moved_cell_is_a_drop_or_an_improvement() {
        let f = |n: u32, x: u64, a: usize, p: usize| {
            100.0 * f64::from(n) + x as f64 / 64.0 + (a * 6 + p) as f64
        };
        let run = set(&f);
        let r = judged(&run, &run, 0.1);
        assert_eq!(r.cells.len(), 48);
        assert_eq!(r.with(Outcome::Within).count(), 48);
        let o = r.overall.as_ref().unwrap();
        assert_eq!((o.cells, o.outcome), (48, Outcome::Within));
        assert!((o.ratio - 1.0).abs() < 1e-12);
        assert_eq!((r.failed(), r.undecided()), (0, 0));
        // one measurement 30 % better, one 30 % worse: flagged each, the run as a whole within
        let mut moved = run.clone();
        moved.cells[3].avg_mibps *= 1.3;
        moved.cells[7].avg_mibps *= 0.7;
        let r = judged(&moved, &run, 0.1);
        let imp: Vec<_> = r.with(Outcome::Improvement).map(|c| c.key).collect();
        let drop: Vec<_> = r.with(Outcome::Drop).map(|c| c.key).collect();
        assert_eq!(
            (imp, drop),
            (vec![run.cells[3].key], vec![run.cells[7].key])
        );
        assert_eq!(r.failed(), 2);
    }

    #[test]
    fn a_broad_drop_in_noise_is_caught_only_as_a_whole() {
        // every measurement 30 % slower, each with a spread of 30 % over 3 iterations and a
        // pseudo-random wobble of ±15 %: each alone undecided, the run as a whole a drop
        let wobble = |i: usize| 1.0 + 0.15 * ((i as f64 * 2.399).sin());
        let base = set(&|n, x, a, p| 100.0 * f64::from(n) + x as f64 / 64.0 + (a * 6 + p) as f64);
        let mut run = base.clone();
        let mut base = base;
        for (i, (r, b)) in run.cells.iter_mut().zip(base.cells.iter_mut()).enumerate() {
            b.iterations = 3;
            b.std_mibps = 0.3 * b.avg_mibps;
            r.iterations = 3;
            r.avg_mibps = b.avg_mibps * 0.7 * wobble(i);
            r.std_mibps = 0.3 * r.avg_mibps;
        }
        let r = judged(&run, &base, 0.1);
        assert_eq!(r.with(Outcome::Undecided).count(), r.cells.len());
        let o = r.overall.as_ref().unwrap();
        assert_eq!(o.outcome, Outcome::Drop, "{o:?}");
        assert!(
            o.interval.1 < 0.9 && o.ratio > 0.6 && o.ratio < 0.8,
            "{o:?}"
        );
        assert_eq!((r.failed(), r.undecided()), (1, r.cells.len()));
        // more iterations would decide them, the baseline's spread permitting
        let (most, never) = r.iterations_needed();
        assert!(most.is_some() || never > 0);
        // the one-sided rule of --baseline sees no regression in any of them
        let cmp = compare(&run, &base, "b", 0.1, "10%");
        assert_eq!(cmp.regressions().count(), 0);
    }

    #[test]
    fn iterations_that_decide() {
        // s = 10 on both sides, 3 iterations each, margin 5: the baseline's term alone is
        // 100/3 > (5/1.645)², so no count of this run's iterations decides it
        assert_eq!(iterations_needed(10.0, 3, (10.0, 3), 5.0), None);
        // a quiet baseline: n with t·sqrt(100/n) < 5, about (1.66·10/5)² ≈ 11
        let n = iterations_needed(10.0, 3, (0.0, 3), 5.0).unwrap();
        assert!((10..=13).contains(&n), "{n}");
        assert!(half_width((10.0, n), (0.0, 3)) < 5.0);
        assert!(half_width((10.0, n - 1), (0.0, 3)) >= 5.0);
        assert_eq!(iterations_needed(10.0, 3, (0.0, 3), 0.0), None);
    }
}
