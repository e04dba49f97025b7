//! The batch scheduler's context of a run (issue 34): when h5perf runs inside a Slurm job,
//! the job's id, name, node list, tasks per node and time limit, recorded among the run's
//! facts ([`crate::output::export::RunMeta::facts`]) so that a results file names the job
//! that produced it, and a run killed at its time limit can be told from one that failed.
//!
//! The values come from the environment Slurm gives every task (sbatch(1) and srun(1),
//! "OUTPUT ENVIRONMENT VARIABLES", Slurm 22.05), as given: a compressed node list such as
//! `node[1-3]` stays compressed, a repetition such as `2(x3),1` stays as it is (expanding
//! them would need Slurm's own host-list grammar, and the page shows what `squeue` shows).
//! Control characters are escaped (`\n`), as host names are, because the values reach the
//! page and the CSV. Nothing is recorded outside a job: a run without `SLURM_JOB_ID`
//! writes the same files as before.

/// The facts' names, in the order they are written (a subset of
/// [`crate::output::results::FACT_KEYS`]).
pub const SLURM_KEYS: [&str; 5] = [
    "slurm_job_id",
    "slurm_job_name",
    "slurm_job_nodelist",
    "slurm_tasks_per_node",
    "slurm_time_limit",
];

/// Where each fact of [`SLURM_KEYS`] comes from: the environment variables, first found
/// first. `SLURM_JOBID` and `SLURM_NODELIST` are the older names Slurm still sets;
/// `SLURM_STEP_TASKS_PER_NODE` (the tasks of this `srun` step, which are the ranks of the
/// run) comes before the job's `SLURM_TASKS_PER_NODE` (the allocation's, which a step of
/// fewer tasks does not fill). The time limit: `SLURM_TIMELIMIT` (srun's input variable,
/// the same as `--time`; Slurm 22.05 does not tell a job its own limit, so the README's
/// sbatch script exports it), else derived from `SLURM_JOB_START_TIME` and
/// `SLURM_JOB_END_TIME` where a later Slurm sets them ([`time_limit`]).
const SOURCES: [&[&str]; 4] = [
    &["SLURM_JOB_ID", "SLURM_JOBID"],
    &["SLURM_JOB_NAME"],
    &["SLURM_JOB_NODELIST", "SLURM_NODELIST"],
    &["SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"],
];

/// The Slurm facts of the environment `var` (a lookup of one variable by name: in the
/// program `std::env::var`), as (name of [`SLURM_KEYS`], value), only those set and not
/// empty; none at all without a job id (a run outside Slurm, or a variable left over from
/// some other tool).
pub fn slurm_facts(var: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let first = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| var(n).filter(|v| !v.is_empty()))
            .map(|v| crate::config::values::printable(&v))
    };
    let mut out = Vec::new();
    for (key, names) in SLURM_KEYS.iter().zip(SOURCES) {
        if let Some(v) = first(names) {
            out.push((key.to_string(), v));
        }
    }
    if !out.iter().any(|(k, _)| k == "slurm_job_id") {
        return Vec::new();
    }
    let limit = first(&["SLURM_TIMELIMIT"]).or_else(|| {
        let num = |n: &str| var(n).and_then(|v| v.trim().parse::<u64>().ok());
        time_limit(num("SLURM_JOB_START_TIME")?, num("SLURM_JOB_END_TIME")?)
    });
    if let Some(v) = limit {
        out.push((SLURM_KEYS[4].to_string(), v));
    }
    out
}

/// A job's time limit from its start and end (seconds since the epoch), in Slurm's
/// notation (`squeue -o %l`, sbatch(1) `--time`): `[D-]HH:MM:SS`; `None` when the end is
/// not after the start.
pub fn time_limit(start: u64, end: u64) -> Option<String> {
    let s = end.checked_sub(start).filter(|&s| s > 0)?;
    let (d, h, m, s) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    Some(if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    fn facts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        slurm_facts(&env(pairs))
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn outside_a_job_nothing() {
        assert!(facts(&[]).is_empty());
        // a node list or a name without a job id is not a job
        assert!(facts(&[("SLURM_JOB_NODELIST", "n[1-2]"), ("SLURM_JOB_NAME", "x")]).is_empty());
        assert!(facts(&[("SLURM_JOB_ID", "")]).is_empty());
    }

    #[test]
    fn a_step_of_srun_kept_as_given() {
        let f = facts(&[
            ("SLURM_JOB_ID", "42"),
            ("SLURM_JOB_NAME", "h5perf-contract"),
            ("SLURM_JOB_NODELIST", "node[1-3],login7"),
            ("SLURM_TASKS_PER_NODE", "2(x3),1"),
            ("SLURM_STEP_TASKS_PER_NODE", "2(x2)"),
            ("SLURM_TIMELIMIT", "00:10:00"),
        ]);
        assert_eq!(
            f,
            pairs(&[
                ("slurm_job_id", "42"),
                ("slurm_job_name", "h5perf-contract"),
                ("slurm_job_nodelist", "node[1-3],login7"),
                ("slurm_tasks_per_node", "2(x2)"),
                ("slurm_time_limit", "00:10:00"),
            ])
        );
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, SLURM_KEYS);
    }

    #[test]
    fn older_names_the_job_s_tasks_and_missing_ones() {
        let f = facts(&[
            ("SLURM_JOBID", "7"),
            ("SLURM_NODELIST", "c[001-128]"),
            ("SLURM_TASKS_PER_NODE", "4(x128)"),
        ]);
        assert_eq!(
            f,
            pairs(&[
                ("slurm_job_id", "7"),
                ("slurm_job_nodelist", "c[001-128]"),
                ("slurm_tasks_per_node", "4(x128)"),
            ])
        );
        // the newer name wins over the older
        let f = facts(&[("SLURM_JOBID", "7"), ("SLURM_JOB_ID", "8")]);
        assert_eq!(f, pairs(&[("slurm_job_id", "8")]));
    }

    #[test]
    fn control_characters_are_escaped() {
        let f = facts(&[("SLURM_JOB_ID", "9"), ("SLURM_JOB_NAME", "a\nb\tc")]);
        assert_eq!(f[1], ("slurm_job_name".into(), "a\\nb\\tc".into()));
    }

    #[test]
    fn time_limit_from_start_and_end() {
        assert_eq!(time_limit(100, 100 + 90).as_deref(), Some("00:01:30"));
        assert_eq!(time_limit(0, 86_400 + 3661).as_deref(), Some("1-01:01:01"));
        assert_eq!(time_limit(5, 5), None);
        assert_eq!(time_limit(6, 5), None);
        let f = facts(&[
            ("SLURM_JOB_ID", "3"),
            ("SLURM_JOB_START_TIME", "1700000000"),
            ("SLURM_JOB_END_TIME", "1700000600"),
        ]);
        assert_eq!(f[1], ("slurm_time_limit".into(), "00:10:00".into()));
        // SLURM_TIMELIMIT, when given, is taken as given
        let f = facts(&[
            ("SLURM_JOB_ID", "3"),
            ("SLURM_TIMELIMIT", "5"),
            ("SLURM_JOB_START_TIME", "1700000000"),
            ("SLURM_JOB_END_TIME", "1700000600"),
        ]);
        assert_eq!(f[1], ("slurm_time_limit".into(), "5".into()));
        // garbage: no limit
        let f = facts(&[
            ("SLURM_JOB_ID", "3"),
            ("SLURM_JOB_START_TIME", "x"),
            ("SLURM_JOB_END_TIME", "1700000600"),
        ]);
        assert_eq!(f.len(), 1);
    }
}
