//! Comparison with an earlier run (`--baseline`, `--tolerance`) by `avg_mibps`: a regression is
//! worse by more than the tolerance and than `2·sqrt(s_run² + s_base²)` ([`bound`]). No I/O.

use super::results::{CellKey, ResultSet};

/// One measurement present in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDiff {
    /// What was measured.
    pub key: CellKey,
    /// This run's mean throughput, MiB/s.
    pub run_mibps: f64,
    /// Its standard deviation over iterations, MiB/s.
    pub run_std: f64,
    /// The baseline's mean throughput, MiB/s.
    pub base_mibps: f64,
    /// The baseline's standard deviation, MiB/s.
    pub base_std: f64,
    /// The lowest mean throughput that is not a regression, MiB/s.
    pub bound_mibps: f64,
    /// Whether this run's value is below the bound.
    pub regression: bool,
}

/// The comparison of a run with its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The baseline file as given.
    pub name: String,
    /// The tolerance, e.g. `10%`.
    pub tolerance: String,
    /// The measurements present in both, in the run's order.
    pub compared: Vec<CellDiff>,
    /// Measurements of the run that the baseline does not have.
    pub only_in_run: Vec<CellKey>,
    /// Measurements of the baseline that the run does not have.
    pub only_in_baseline: Vec<CellKey>,
    /// Parameters that differ: (name, this run's value, the baseline's value).
    pub differences: Vec<(String, String, String)>,
    /// Whether the baseline run finished every step (its `complete` field).
    pub baseline_complete: bool,
}

impl Comparison {
    /// The regressions, in the run's order.
    pub fn regressions(&self) -> impl Iterator<Item = &CellDiff> {
        self.compared.iter().filter(|d| d.regression)
    }
}

/// The lowest mean throughput (MiB/s) not a regression; `tolerance` a fraction (0.1 = 10 %).
pub fn bound(base: f64, s_run: f64, s_base: f64, tolerance: f64) -> f64 {
    let noise = 2.0 * (s_run * s_run + s_base * s_base).sqrt();
    base - (tolerance * base).max(noise)
}

/// Compare `run` with `base` (file `name`), `tolerance` a fraction shown as `tolerance_text`.
pub fn compare(
    run: &ResultSet,
    base: &ResultSet,
    name: &str,
    tolerance: f64,
    tolerance_text: &str,
) -> Comparison {
    let mut compared = Vec::new();
    let mut only_in_run = Vec::new();
    for c in &run.cells {
        match base.cell(&c.key) {
            Some(b) => {
                let bound_mibps = bound(b.avg_mibps, c.std_mibps, b.std_mibps, tolerance);
                compared.push(CellDiff {
                    key: c.key,
                    run_mibps: c.avg_mibps,
                    run_std: c.std_mibps,
                    base_mibps: b.avg_mibps,
                    base_std: b.std_mibps,
                    bound_mibps,
                    regression: c.avg_mibps < bound_mibps,
                });
            }
            None => only_in_run.push(c.key),
        }
    }
    let only_in_baseline = base
        .cells
        .iter()
        .filter(|b| run.cell(&b.key).is_none())
        .map(|b| b.key)
        .collect();
    // a field of an option the C tool lacks is written only when given: absent is `off`
    let value = |set: &ResultSet, k: &str| -> String {
        match set.parameters.iter().find(|(n, _)| n == k) {
            Some((_, v)) => v.clone(),
            None if crate::config::params::result_keys().any(|f| f == k) => "off".to_string(),
            None => "(not given)".to_string(),
        }
    };
    let mut names: Vec<&str> = run.parameters.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &base.parameters {
        if !names.contains(&k.as_str()) {
            names.push(k);
        }
    }
    let differences = names
        .into_iter()
        .map(|k| (k.to_string(), value(run, k), value(base, k)))
        .filter(|(_, here, there)| here != there)
        .collect();
    Comparison {
        name: name.to_string(),
        tolerance: tolerance_text.to_string(),
        compared,
        only_in_run,
        only_in_baseline,
        differences,
        baseline_complete: base.run_field("complete") != "false",
    }
}

#[cfg(test)]
mod tests {
    use super::super::results::run_set;
    use super::*;
    use crate::config::Api;
    use crate::measure::Phase;

    fn set(procs: &[u32], f: &dyn Fn(u32, u64, usize, usize) -> f64) -> ResultSet {
        let (m, p, r) = run_set(procs, &[4096, 8192], &[Api::Posix, Api::Mpiio], false, f);
        super::super::readback::of_run(&m, &p, &r)
    }

    #[test]
    fn the_rule() {
        // worse by 20 % of 1000 with little noise: a regression at 10 %, not at 25 %
        assert_eq!(bound(1000.0, 3.0, 4.0, 0.1), 900.0);
        assert_eq!(bound(1000.0, 3.0, 4.0, 0.25), 750.0);
        // noise larger than the tolerance widens the bound: 2·sqrt(60² + 80²) = 200
        assert_eq!(bound(1000.0, 60.0, 80.0, 0.1), 800.0);
        assert_eq!(bound(1000.0, 0.0, 0.0, 0.0), 1000.0);
    }

    #[test]
    fn an_equal_baseline_has_no_regression() {
        let f = |n: u32, x: u64, a: usize, p: usize| {
            f64::from(n) * 100.0 + x as f64 / 64.0 + (a * 6 + p) as f64
        };
        let run = set(&[2, 1], &f);
        let c = compare(&run, &run.clone(), "old.csv", 0.1, "10%");
        assert_eq!(c.compared.len(), 2 * 2 * 2 * 6);
        assert_eq!(c.regressions().count(), 0);
        assert!(c.only_in_run.is_empty() && c.only_in_baseline.is_empty());
        assert!(c.differences.is_empty() && c.baseline_complete);
        // even with no tolerance: equal is not worse
        assert_eq!(compare(&run, &run, "b", 0.0, "0%").regressions().count(), 0);
    }

    #[test]
    fn one_doubled_cell_is_exactly_one_regression_unless_noisy() {
        let f = |n: u32, x: u64, a: usize, p: usize| {
            f64::from(n) * 100.0 + x as f64 / 64.0 + (a * 6 + p) as f64
        };
        let run = set(&[2, 1], &f);
        let mut base = run.clone();
        let key = CellKey::new(2, 8192, Api::Mpiio, Phase::Read);
        let i = base.cells.iter().position(|c| c.key == key).unwrap();
        base.cells[i].avg_mibps *= 2.0;
        let c = compare(&run, &base, "old.csv", 0.1, "10%");
        let r: Vec<&CellDiff> = c.regressions().collect();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].key, key);
        assert_eq!(r[0].base_mibps, 2.0 * r[0].run_mibps);
        // a noisy baseline: its standard deviation as large as the value itself
        base.cells[i].std_mibps = base.cells[i].avg_mibps;
        assert_eq!(
            compare(&run, &base, "old.csv", 0.1, "10%")
                .regressions()
                .count(),
            0
        );
        // better than the baseline is never a regression
        let mut slow = run.clone();
        slow.cells.iter_mut().for_each(|c| c.avg_mibps /= 2.0);
        assert_eq!(
            compare(&run, &slow, "b", 0.1, "10%").regressions().count(),
            0
        );
        assert_eq!(
            compare(&slow, &run, "b", 0.1, "10%").regressions().count(),
            run.cells.len()
        );
    }

    #[test]
    fn missing_cells_and_different_parameters_are_listed() {
        let f = |n: u32, _x: u64, _a: usize, _p: usize| f64::from(n);
        let run = set(&[2, 1], &f);
        let mut base = set(&[4, 2], &f);
        base.parameters[0].1 = "65536".into();
        base.run[5] = "false".into();
        let c = compare(&run, &base, "old.csv", 0.1, "10%");
        assert_eq!(c.compared.len(), 2 * 2 * 6);
        assert_eq!(c.only_in_run.len(), 2 * 2 * 6);
        assert!(c.only_in_run.iter().all(|k| k.nprocs == 1));
        assert_eq!(c.only_in_baseline.len(), 2 * 2 * 6);
        assert!(c.only_in_baseline.iter().all(|k| k.nprocs == 4));
        assert_eq!(
            c.differences,
            [(
                "num_bytes".to_string(),
                "1048576".to_string(),
                "65536".to_string()
            )]
        );
        assert!(!c.baseline_complete);
        // storage fields absent on one side are off there
        let mut synced = run.clone();
        for f in crate::config::StorageOptions::FIELDS {
            let v = if f == "fsync" { "on" } else { "off" };
            synced.parameters.push((f.to_string(), v.to_string()));
        }
        let c = compare(&synced, &run, "old.csv", 0.1, "10%");
        assert_eq!(
            c.differences,
            [("fsync".to_string(), "on".to_string(), "off".to_string())]
        );
    }
}
