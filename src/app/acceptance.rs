//! The acceptance options in the program: checks, verdict and page, and the `--from` mode.

use crate::agreement::{agree, agree_value};
use crate::config::acceptance::{stable_profile, StableFacts, StableProfile};
use crate::config::criteria::Criterion;
use crate::config::{Acceptance, Params, Percent, Reorder, StorageOptions};
use crate::error::{path_text, Error, Result};
use crate::ffi::mpi::{Comm, Op};
use crate::measure::{Phase, Record};
use crate::output::baseline::{self, Comparison};
use crate::output::conditions;
use crate::output::export::RunMeta;
use crate::output::reproducibility;
use crate::output::results::{CellKey, ResultSet};
use crate::output::sink::{write_stdout, Sink};
use crate::output::verdict::{self, Verdict};
use crate::output::{html, readback};

/// The exit status of a run whose criteria or baseline comparison failed (1 stays "error").
pub const EXIT_CHECKS_FAILED: i32 = 3;

/// The exit status of a run whose verdict is INCONCLUSIVE: nothing failed, but the noise
/// left a `--within` check undecided.
pub const EXIT_INCONCLUSIVE: i32 = 4;

/// What a run's acceptance options need at its end.
pub(super) struct Prepared {
    criteria: Vec<Criterion>,
    /// The baseline's name and results (world rank 0 only).
    baseline: Option<(String, ResultSet)>,
    tolerance: Percent,
    /// `--within`: the band of the two-sided comparison.
    within: Option<Percent>,
    /// Whether `--baseline` was given (every rank; the results are on rank 0 only).
    asked_baseline: bool,
    /// The page's destination (world rank 0 only).
    html: Option<Sink>,
}

/// The verdict of a run as the program needs it.
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// Failed criteria and regressions (the same on every rank).
    pub failed: u64,
    /// Checks left undecided by the noise (`--within`; the same on every rank).
    pub undecided: u64,
    /// The verdict's summary line (rank 0; empty without criteria and baseline).
    pub summary: String,
    /// Whether there was anything to check (`--expect` or `--baseline`; every rank).
    pub asked: bool,
    /// The verdict table as the program prints it (rank 0; empty without a verdict).
    pub table: String,
    /// The check of each failed row, in the table's order: the criterion as given, the
    /// baseline's summary, each regression (rank 0).
    pub failed_checks: Vec<String>,
}

impl Checks {
    /// The verdict's word: `None` without criteria and baseline, else PASS, FAIL or
    /// INCONCLUSIVE (the same on every rank).
    pub fn word(&self) -> Option<&'static str> {
        self.asked
            .then(|| match exit_status(self.failed, self.undecided) {
                0 => "PASS",
                EXIT_CHECKS_FAILED => "FAIL",
                _ => "INCONCLUSIVE",
            })
    }
}

/// The measurements a run of `params` makes: (APIs, process counts, sizes, phases).
fn plan(params: &Params) -> (Vec<crate::config::Api>, Vec<u32>, Vec<u64>, Vec<Phase>) {
    let phases = Phase::ALL
        .into_iter()
        .filter(|p| {
            if p.is_read() {
                !params.write_only
            } else {
                !params.storage.read_only
            }
        })
        .collect();
    (
        params.apis.iter().collect(),
        params.proc_counts(),
        params.buf_sizes(),
        phases,
    )
}

/// The criteria that select nothing among `keys`, one message each; `what` names the results.
fn unmatched(
    criteria: &[Criterion],
    what: &str,
    (apis, procs, sizes, phases): (&[crate::config::Api], &[u32], &[u64], &[Phase]),
    keys: &[CellKey],
) -> Vec<String> {
    criteria
        .iter()
        .filter_map(|c| {
            let why = c.why_unmatched(apis, procs, sizes, phases).or_else(|| {
                let any = keys
                    .iter()
                    .any(|k| c.selects(k.nprocs, k.xfer_size, k.api(), k.phase()));
                (!any).then(|| "no measurement has all of its API, phase and selectors".to_string())
            })?;
            Some(format!(
                "--expect '{}' selects nothing in {what}: {why}",
                c.text()
            ))
        })
        .collect()
}

/// The criteria on a spread (`cv`) and `--within`, which need the spread over at least
/// 2 iterations: one message each when `iterations` (this run's, as `what` names it) or
/// those of the `baseline` are fewer.
fn spread_needs(a: &Acceptance, iterations: u32, what: &str) -> Vec<String> {
    let mut out: Vec<String> = a
        .expect
        .iter()
        .filter(|c| !c.is_throughput() && iterations < 2)
        .map(|c| {
            format!(
                "--expect '{}' bounds the spread over iterations, but {what} has {iterations}: \
                 give -i 2 or more (a spread of 3 or more means something)",
                c.text()
            )
        })
        .collect();
    if a.within.is_some() && iterations < 2 {
        out.push(format!(
            "--within judges differences against the spread over iterations, but {what} has \
             {iterations}: give -i 2 or more (3 or more recommended)"
        ));
    }
    out
}

/// With `--within`, a baseline whose measurements were taken once is refused: its spread
/// is unknown.
fn check_baseline_spread(a: &Acceptance, name: &str, base: &ResultSet) -> Result<()> {
    match base.cells.iter().map(|c| c.iterations).min() {
        Some(n) if a.within.is_some() && n < 2 => Err(Error::Results(format!(
            "{name} has measurements of {n} iteration: --within needs the baseline's spread \
             over iterations (rerun it with -i 2 or more)"
        ))),
        _ => Ok(()),
    }
}

/// The baseline `name` (as text, and its results), read and checked to share a measurement.
fn baseline_of(
    name: &std::ffi::OsString,
    keys: &[CellKey],
    a: &Acceptance,
) -> Result<(String, ResultSet)> {
    let shown = path_text(name);
    let b = readback::read_results(std::slice::from_ref(name))?;
    check_overlap(&shown, &b, keys)?;
    check_baseline_spread(a, &shown, &b)?;
    Ok((shown, b))
}

/// `Ok` when the baseline `base` (file `name`) has one of the measurements `keys`.
fn check_overlap(name: &str, base: &ResultSet, keys: &[CellKey]) -> Result<()> {
    if keys.iter().any(|k| base.cell(k).is_some()) {
        return Ok(());
    }
    let list = |v: Vec<String>| v.join(", ");
    Err(Error::Results(format!(
        "{name} has no measurement in common with this run (its process counts: \
         {}; transfer sizes: {} bytes; APIs: {})",
        list(base.procs().iter().map(u32::to_string).collect()),
        list(base.sizes().iter().map(u64::to_string).collect()),
        list(base.apis().iter().map(|a| a.name().to_string()).collect())
    )))
}

/// Whether `--drop-caches` can work on every node of `comm` (collective, before any
/// I/O): the first rank of each node opens `/proc/sys/vm/drop_caches` for writing, as the check of
/// the option does. `Ok(Err(why))` names the first node where it cannot (the same on
/// every rank); used by `--stable` to choose a bypass instead of refusing.
///
/// Errors: an MPI call failed.
fn drop_caches_allowed(comm: &Comm) -> Result<std::result::Result<(), String>> {
    let node = crate::benchmark::storage::Node::of(comm)?;
    let mine = node
        .leader
        .then(|| crate::ffi::storage::check_drop_caches().err())
        .flatten()
        .map(|e| {
            format!(
                "{e} on {}: dropping the page cache needs root",
                crate::output::export::hostname()
            )
        });
    let rank = u64::from(comm.rank()?);
    let first = comm.allreduce_u64(if mine.is_some() { rank } else { u64::MAX }, Op::Min)?;
    if first == u64::MAX {
        return Ok(Ok(()));
    }
    let root = u32::try_from(first).map_err(|_| Error::Internal("a rank beyond u32"))?;
    let why = comm.bcast_bytes(root, mine.unwrap_or_default().as_bytes())?;
    Ok(Err(String::from_utf8_lossy(&why).into_owned()))
}

/// `--stable` (collective, before any I/O): turn on in `params` the storage options the
/// run can have ([`crate::config::acceptance::stable_profile`]), from the ranks' hosts and
/// whether `--drop-caches` can work on every node; every rank decides alike.
///
/// Errors: MPI's.
pub(super) fn stable(comm: &Comm, params: &mut Params) -> Result<StableProfile> {
    let hosts = conditions::gather_hosts(comm)?;
    let drop_caches = drop_caches_allowed(comm)?;
    let counts = params.proc_counts();
    let crosses = |s: &StorageOptions| counts.iter().all(|&n| s.reads_cross_nodes(n, &hosts));
    let by_node = StorageOptions {
        reorder: Some(Reorder::ByNode),
        ..params.storage
    };
    let facts = StableFacts {
        drop_caches,
        reorder_given_crosses: crosses(&params.storage),
        reorder_by_node_crosses: crosses(&by_node),
    };
    let posix_only = params.apis.iter().all(|a| a == crate::config::Api::Posix);
    let write_only = params.write_only;
    let profile = stable_profile(&mut params.storage, (posix_only, write_only), &facts);
    params.stable = Some(Box::new(profile.clone()));
    Ok(profile)
}

/// The before-run checks of the acceptance options `a` (collective; `None` without any);
/// agreed errors: a criterion that selects nothing, an unusable baseline or page file.
pub(super) fn prepare(comm: &Comm, a: &Acceptance, params: &Params) -> Result<Option<Prepared>> {
    // --stable: data that fits in a node's page cache is refused before any I/O (every
    // rank gets the same hosts and nodes, so every rank decides alike)
    let (too_small, across_nodes) = if a.stable {
        let hosts = conditions::gather_hosts(comm)?;
        let nodes = conditions::gather_nodes(comm, &hosts)?;
        let across =
            (params.proc_counts().into_iter()).all(|n| params.storage.reads_cross_nodes(n, &hosts));
        let refusal = conditions::stable_refusal(params, &hosts, &nodes);
        (refusal.map(|m| with_uncovered(m, params)), across)
    } else {
        (None, false)
    };
    if !a.any() {
        return match too_small {
            Some(m) => Err(Error::Invalid(vec![m])),
            None => Ok(None),
        };
    }
    let (apis, procs, sizes, phases) = plan(params);
    let mut keys = Vec::new();
    for &n in &procs {
        for &x in &sizes {
            for &api in &apis {
                keys.extend(phases.iter().map(|&p| CellKey::new(n, x, api, p)));
            }
        }
    }
    let mut problems = unmatched(
        &a.expect,
        "this run",
        (&apis, &procs, &sizes, &phases),
        &keys,
    );
    problems.extend(spread_needs(a, params.num_iters, "this run"));
    if a.stable {
        let b = crate::config::acceptance::Bypass {
            fsync: params.storage.fsync,
            direct: params.storage.direct,
            drop_caches: params.storage.drop_caches,
            reorder_across_nodes: across_nodes,
        };
        problems.extend(a.expect.iter().filter_map(|c| {
            let why = crate::config::acceptance::cache_figure(c.api(), c.phase(), b)?;
            let m = format!("--stable refuses --expect '{}': {why}", c.text());
            Some(if c.phase().is_read() {
                with_uncovered(m, params)
            } else {
                m
            })
        }));
    }
    problems.extend(too_small);
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    let rank = comm.rank()?;
    let baseline = match (&a.baseline, rank) {
        (Some(name), 0) => baseline_of(name, &keys, a).map(Some),
        _ => Ok(None),
    };
    let baseline = agree_value(
        comm,
        baseline.map_err(|e| e.context("baseline (--baseline)")),
    )?;
    let html = match (&a.html, rank) {
        (Some(name), 0) => Sink::document(name, "--html").map(Some),
        _ => Ok(None),
    };
    let html = agree_value(comm, html)?;
    Ok(Some(Prepared {
        criteria: a.expect.clone(),
        baseline,
        tolerance: a.tolerance(),
        within: a.within,
        asked_baseline: a.baseline.is_some(),
        html,
    }))
}

/// `message` (a refusal of `--stable` about the reads) followed by why `--stable` could
/// not turn on a bypass for them, when it could not.
fn with_uncovered(message: String, params: &Params) -> String {
    match params
        .stable
        .as_ref()
        .and_then(|s| s.reads_uncovered.as_ref())
    {
        Some(why) => format!("{message} ({why})"),
        None => message,
    }
}

/// The verdict of `set`, `None` when there is nothing to check; an invalid run
/// (`--stonewall`, the `valid` parameter `false`) fails it ([`Verdict::mark_invalid`]).
fn verdict_of(
    set: &ResultSet,
    criteria: &[Criterion],
    baseline: Option<&(String, ResultSet)>,
    tolerance: Percent,
    within: Option<Percent>,
) -> Option<Verdict> {
    let cmp: Option<Comparison> = baseline.map(|(name, b)| {
        baseline::compare(set, b, name, tolerance.fraction(), &tolerance.to_string())
    });
    let judged = match (baseline, &cmp, within) {
        (Some((_, b)), Some(c), Some(w)) => Some(reproducibility::judge(
            set,
            b,
            c,
            w.fraction(),
            &w.to_string(),
        )),
        _ => None,
    };
    let mut v = (!criteria.is_empty() || cmp.is_some())
        .then(|| Verdict::evaluate(set, criteria, cmp, judged))?;
    // --stonewall: a run whose write phase ended before the deadline is invalid
    if html::run_validity(set) == Some(false) {
        v.mark_invalid(INVALID_REASON);
    }
    Some(v)
}

/// The exit status of a verdict: 0 (PASS), [`EXIT_CHECKS_FAILED`] (FAIL) or
/// [`EXIT_INCONCLUSIVE`].
pub fn exit_status(failed: u64, undecided: u64) -> i32 {
    if failed > 0 {
        EXIT_CHECKS_FAILED
    } else if undecided > 0 {
        EXIT_INCONCLUSIVE
    } else {
        0
    }
}

/// Why an invalid run (`--stonewall`, issue 28, IO500's `[INVALID]`) fails its verdict
/// ([`Verdict::mark_invalid`]).
const INVALID_REASON: &str =
    "a stonewalled write phase ended before its deadline: the volume is too small";

/// Why the results of a run that did not finish fail a `--from` verdict
/// ([`Verdict::mark_incomplete`]).
const INCOMPLETE_REASON: &str = "the results file says complete: false: the run was stopped \
     before its end (a signal, a time limit) or its data failed -D v";

/// After the run (collective): rank 0 writes the verdict table and the page; errors agreed.
/// An invalid run (`--stonewall`) fails the verdict ([`verdict_of`]).
pub(super) fn finish(
    comm: &Comm,
    prepared: &Prepared,
    (meta, params, records): (Option<&RunMeta>, &Params, &[Record]),
    out: &Sink,
    verified: bool,
) -> Result<Checks> {
    let mut checks = Checks::default();
    let mut done = Ok(());
    if let (0, Some(meta)) = (comm.rank()?, meta) {
        let set = readback::of_run(meta, params, records);
        let verdict = verdict_of(
            &set,
            &prepared.criteria,
            prepared.baseline.as_ref(),
            prepared.tolerance,
            prepared.within,
        );
        if let Some(v) = &verdict {
            checks.failed = v.failed() as u64;
            checks.undecided = v.undecided() as u64;
            checks.summary = v.summary();
            checks.table = v.text();
            checks.failed_checks = v
                .rows
                .iter()
                .filter(|r| r.status == crate::output::verdict::Status::Fail)
                .map(|r| r.check.clone())
                .collect();
            if verified {
                out.write(&v.text());
                done = out.status();
            }
        }
        if let (Ok(()), Some(sink)) = (&done, &prepared.html) {
            done = sink.replace(&html::page(&set, verdict.as_ref(), &prepared.criteria));
        }
    }
    agree(comm, done)?;
    checks.failed = comm.allreduce_u64(checks.failed, Op::Max)?;
    checks.undecided = comm.allreduce_u64(checks.undecided, Op::Max)?;
    checks.asked = !prepared.criteria.is_empty() || prepared.asked_baseline;
    Ok(checks)
}

/// The `--from` mode on rank 0: verdict, page, exit status 0 or [`EXIT_CHECKS_FAILED`].
fn from_files_here(a: &Acceptance) -> Result<i32> {
    let invalid = |e: String| Error::Invalid(vec![e]);
    let set =
        readback::read_results(&a.from).map_err(|e| invalid(format!("results (--from): {e}")))?;
    let what = a
        .from
        .iter()
        .map(|f| path_text(f))
        .collect::<Vec<_>>()
        .join(", ");
    let keys: Vec<CellKey> = set.cells.iter().map(|c| c.key).collect();
    let (apis, procs, sizes, phases) = (set.apis(), set.procs(), set.sizes(), set.phases());
    let mut problems = unmatched(&a.expect, &what, (&apis, &procs, &sizes, &phases), &keys);
    let iterations = set.cells.iter().map(|c| c.iterations).min().unwrap_or(0);
    problems.extend(spread_needs(a, iterations, &what));
    // a --stable run's verdict keeps its profile's promise: no criterion on a cache figure
    if verdict::stable_text(&set).is_some() {
        let b = verdict::Mode::bypass_of(&set);
        problems.extend(a.expect.iter().filter_map(|c| {
            let why = crate::config::acceptance::cache_figure(c.api(), c.phase(), b)?;
            Some(format!(
                "--stable refuses --expect '{}' on {what}, the results of a --stable run: {why}",
                c.text()
            ))
        }));
    }
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    let baseline = match &a.baseline {
        Some(name) => Some(
            baseline_of(name, &keys, a)
                .map_err(|e| invalid(format!("baseline (--baseline): {e}")))?,
        ),
        None => None,
    };
    // the page's file is checked before anything is printed
    let sink = a
        .html
        .as_deref()
        .map(|h| Sink::document(h, "--html"))
        .transpose()?;
    let mut verdict = verdict_of(&set, &a.expect, baseline.as_ref(), a.tolerance(), a.within);
    // a run that did not finish cannot pass (its figures are those of the steps it made)
    if let (Some(v), "false") = (verdict.as_mut(), set.run_field("complete")) {
        v.mark_incomplete(INCOMPLETE_REASON);
    }
    if let Some(v) = &verdict {
        write_stdout(&v.text())?;
    }
    if let Some(sink) = sink {
        sink.replace(&html::page(&set, verdict.as_ref(), &a.expect))?;
    }
    match verdict {
        Some(v) if v.failed() > 0 || v.undecided() > 0 => {
            eprintln!("h5perf: verdict {}: {}", v.status().word(), v.summary());
            Ok(exit_status(v.failed() as u64, v.undecided() as u64))
        }
        _ => Ok(0),
    }
}

/// The `--from` mode (collective): rank 0 does the work; every rank returns its status.
pub(super) fn from_files(world: &Comm, a: &Acceptance) -> Result<i32> {
    let rank = world.rank()?;
    let here = if rank == 0 { from_files_here(a) } else { Ok(0) };
    let code = match &here {
        Ok(c) => u64::try_from(*c).unwrap_or(1),
        Err(_) => 1,
    };
    let code = world.allreduce_u64(code, Op::Max)?;
    match here {
        Err(e) => Err(e),
        Ok(_) if code == 1 => Err(Error::Usage(String::new())),
        Ok(_) => Ok(i32::try_from(code).unwrap_or(1)),
    }
}
