//! The `h5perf` program ([`run_program`]) and a run on a communicator in stages ([`run_on`]).

mod acceptance;
pub mod panics;
pub mod watchdog;

pub use acceptance::{exit_status, Checks, EXIT_CHECKS_FAILED, EXIT_INCONCLUSIVE};

use std::ffi::OsString;

use crate::agreement::{agree, agree_value, refuse_if_any};
use crate::benchmark::run;
use crate::cli::{self, Command};
use crate::config::mpi_info;
use crate::config::{Api, Options, Params};
use crate::datadir::{self, lock as dir_lock, RunEnv};
use crate::error::{Error, Result};
use crate::ffi::hdf5;
use crate::ffi::mpi::{self, Comm, Info, Op, Universe};
use crate::ffi::posix::stderr_is_terminal;
use crate::ffi::signals::write_stderr;
use crate::measure::Record;
use crate::output::sink::{write_stdout, Sink};
use crate::output::{conditions, distinct, export, report};
use crate::terms::doing::{self, Doing};

/// The HDF5 version h5perf was compiled against (recorded by `build.rs`).
pub const HDF5_BUILD_VERSION: &str = env!("H5PERF_HDF5_VERSION");

/// The text world rank 0 prints on stderr for an error (one message, spec §10 fixed).
pub fn error_message(e: &Error) -> String {
    let text = match e {
        Error::Usage(m) => m.clone(),
        Error::Invalid(ms) => ms
            .iter()
            .map(|m| {
                if m.starts_with("h5perf: ") {
                    m.clone()
                } else {
                    format!("h5perf: {m}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => format!("h5perf: {other}"),
    };
    terminal_safe(&text)
}

/// `text` with every control character but the line feed (between messages) and the tab
/// written as its escape (`\u{1b}`): a name or value quoted in a message cannot move the
/// cursor, ring the bell or end a line of its own.
fn terminal_safe(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Run h5perf with `args` on `MPI_COMM_WORLD`; exit status 0, 1, [`EXIT_CHECKS_FAILED`] or
/// [`EXIT_INCONCLUSIVE`].
pub fn run_program(args: &[OsString]) -> i32 {
    run_program_with(args, true)
}

/// [`run_program`]; `as_program` false (the C API) sets no signal handlers and never aborts.
pub fn run_program_with(args: &[OsString], as_program: bool) -> i32 {
    let abort_on_fatal = as_program;
    if as_program && launched_as_rank_zero() {
        // before MPI_Init, while the process has one thread (cleanup works without it too)
        let _ = crate::datadir::cleanup::start_reaper();
    }
    // MPI_THREAD_MULTIPLE only for a run with the subfiling driver, which needs it:
    // every other command line initialises MPI as before (parsing has no side effects;
    // its errors are reported after MPI_Init, as before)
    let multiple = matches!(cli::parse(args), Ok(Command::Run(o)) if o.subfiling);
    let universe = match Universe::init_threads(multiple) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("{}", error_message(&e));
            return 1;
        }
    };
    if as_program {
        crate::datadir::cleanup::install_handlers();
    }
    let world = universe.world();
    let rank = world.rank().unwrap_or(0);
    // a panic on any rank ends the job with a message instead of leaving ranks waiting
    let armed = panics::armed(rank);
    let code = match program(&world, args) {
        Ok(code) => code,
        Err(e @ Error::Fatal(_)) if abort_on_fatal => {
            // ranks hold files only a collective close could release: print, then abort
            if rank == 0 {
                eprintln!("{}", error_message(&e));
                eprintln!(
                    "h5perf: aborting the job: files opened on some ranks only cannot be closed"
                );
            }
            let _ = world.barrier();
            universe.abort(1);
        }
        Err(e) => {
            if rank == 0 {
                eprintln!("{}", error_message(&e));
            }
            if as_program && !matches!(e, Error::Usage(_) | Error::Invalid(_)) {
                // others wait (boundedly) for rank 0 to print; hydra kills it if one exits first
                let _ = world.barrier_within(std::time::Duration::from_secs(2));
            }
            if as_program && hdf5::a_file_close_failed() {
                // no MPI_Finalize, which would crash in HDF5 1.10.8's clean-up; every other
                // error finalizes (hydra kills the other ranks, status 9, when one exits without)
                std::mem::forget(world);
                std::mem::forget(universe);
                return 1;
            }
            1
        }
    };
    drop(armed);
    drop(world);
    drop(universe);
    code
}

/// Whether the launcher started this process as world rank 0 (true without a rank variable).
fn launched_as_rank_zero() -> bool {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(std::env::var_os)
    .is_none_or(|r| r == "0")
}

fn program(world: &Comm, args: &[OsString]) -> Result<i32> {
    let rank = world.rank()?;
    // HDF5_MPI_INFO is read before the options, as in the C tool (spec §1.1)
    let info = mpi_info_from_env()?;
    if let Some(w) = info
        .as_ref()
        .and_then(|i| mpi_info::repeated_warning(&i.repeated, &i.pairs))
        .filter(|_| rank == 0)
    {
        write_stderr(w.as_bytes());
    }
    let info_pairs = info.map(|i| i.pairs);
    let opts = match cli::parse(args)? {
        Command::Help => {
            if rank == 0 {
                write_stdout(&cli::help_text())?;
            }
            return Ok(0);
        }
        Command::Version => {
            if rank == 0 {
                write_stdout(&version_text())?;
            }
            return Ok(0);
        }
        Command::FillBehaviour { strict } => {
            return crate::fill_behaviour::run_mode(world, strict).map(|()| 0)
        }
        Command::FromFiles(a) => return acceptance::from_files(world, &a),
        Command::Run(o) => o,
    };
    // the command line as the results record it: text, non-UTF-8 bytes as \xNN
    let mut words = vec!["h5perf".to_string()];
    words.extend(args.iter().map(|a| crate::error::path_text(a)));
    let caller = Caller {
        report: true,
        command_line: export::shell_line(&words),
        program: true,
    };
    let done = run_on(world, &opts, info_pairs.as_deref(), &caller)?;
    if done.wrong_bytes > 0 {
        return Err(Error::Verify(done.wrong_bytes));
    }
    let code = exit_status(done.checks.failed, done.checks.undecided);
    if code != 0 && rank == 0 {
        let word = if code == EXIT_CHECKS_FAILED {
            "FAIL"
        } else {
            "INCONCLUSIVE"
        };
        eprintln!("h5perf: verdict {word}: {}", done.checks.summary);
    }
    Ok(code)
}

/// `HDF5_MPI_INFO`'s hints (spec §2.4); `None` when unset; errors when malformed.
pub fn mpi_info_from_env() -> Result<Option<mpi_info::MpiInfo>> {
    match std::env::var("HDF5_MPI_INFO") {
        Ok(v) => Ok(Some(mpi_info::parse_mpi_info_with_limits(
            &v,
            mpi_info::MAX_KEY,
            mpi_info::MAX_VAL,
        )?)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::Usage(
            "h5perf: HDF5_MPI_INFO is not valid UTF-8".into(),
        )),
    }
}

/// What a completed run produced, on every rank of the communicator.
pub struct Done {
    /// The resolved parameters.
    pub params: Params,
    /// The records this rank took part in (rank 0: all of them).
    pub records: Vec<Record>,
    /// Bytes read back wrong with `-D v`, summed over all ranks.
    pub wrong_bytes: u64,
    /// The run's metadata (complete on rank 0) when collected (results options, the C API).
    pub meta: Option<export::RunMeta>,
    /// The verdict of `--expect` and `--baseline` (nothing failed without them).
    pub checks: Checks,
}

/// Who runs [`run_on`] and how.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Report to standard output when there is no `-o` (else nowhere).
    pub report: bool,
    /// The command line as the results files record it.
    pub command_line: String,
    /// The `h5perf` program rather than the C API (which always gathers times and metadata).
    pub program: bool,
}

/// Run a configuration on `comm` (collective), in stages; only progress lines go to stderr.
pub fn run_on(
    comm: &Comm,
    opts: &Options,
    info_pairs: Option<&[(String, String)]>,
    caller: &Caller,
) -> Result<Done> {
    doing::set(Doing::Checking);
    let (params, accept) = check(comm, opts)?;
    let merged;
    let info_pairs = if opts.mpi_info.is_empty() {
        info_pairs
    } else {
        merged = with_option_hints(info_pairs, &opts.mpi_info);
        Some(&merged[..])
    };
    let watchdog = start_watchdog(comm, &params)?;
    let place = claim_data_dir(comm, &params, opts, caller)?;
    if let Some(w) = &watchdog {
        w.meet_in(&place.dir);
    }
    doing::set(Doing::Opening);
    let mut outputs = open_outputs(comm, &params, &place, info_pairs, caller, accept.is_some())?;
    let outcome = run_steps(comm, &params, &place, &mut outputs, caller)?;
    doing::set(Doing::Publishing);
    publish(comm, params, place, outputs, outcome, accept.as_ref())
}

/// The hints of `HDF5_MPI_INFO` (`env`), then those of `--mpi-info` (`given`, checked by
/// the option table like `HDF5_MPI_INFO`'s), set in that order as `MPI_Info_set` does
/// (a key given twice keeps its place and takes the later value).
fn with_option_hints(
    env: Option<&[(String, String)]>,
    given: &[(String, String)],
) -> Vec<(String, String)> {
    let mut all = env.unwrap_or_default().to_vec();
    for (k, v) in given {
        mpi_info::set_hint(&mut all, k, v);
    }
    all
}

/// The `--timeout` watchdog of this rank ([`watchdog`]), or none without the option.
/// Errors: refused where no signal handler removes the files (the C API: it would end
/// the caller's process); the thread cannot start (agreed).
fn start_watchdog(comm: &Comm, params: &Params) -> Result<Option<watchdog::Watchdog>> {
    let Some(seconds) = params.timeout else {
        return Ok(None);
    };
    if !crate::ffi::signals::installed() {
        return Err(Error::Invalid(vec![
            "--timeout ends the processes of the job: it is an option of the h5perf program, \
             not of the C API"
                .into(),
        ]));
    }
    // every rank's host, for the message that names the ranks that had not arrived
    let me = crate::datadir::host::hostname();
    let mut hosts = Vec::new();
    for r in 0..comm.size()? {
        let name = comm.bcast_bytes(r, me.as_bytes())?;
        hosts.push(crate::config::values::printable(&String::from_utf8_lossy(
            &name,
        )));
    }
    let started = watchdog::Watchdog::start(comm.rank()?, hosts, seconds)
        .map_err(|e| Error::Other(format!("--timeout: cannot start its thread: {e}")));
    agree_value(comm, started).map(Some)
}

/// Stage 1, check (collective, no I/O); errors: [`Error::Invalid`] with every problem.
fn check(comm: &Comm, opts: &Options) -> Result<(Params, Option<acceptance::Prepared>)> {
    let size = comm.size()?;
    let mut params = Params::resolve(opts, size);
    let mut problems = params.problems(size, crate::ffi::posix::physical_memory());
    if params.subfiling {
        problems.extend(params.subfiling_problems(&driver_facts()));
    }
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    if (params.payload.on() || params.random.on()) && params.payload.seed.is_none() {
        params.seed = new_seed(comm)?;
    }
    let stable = match opts.acceptance.stable {
        true => Some(acceptance::stable(comm, &mut params)?),
        false => None,
    };
    let accept = acceptance::prepare(comm, &opts.acceptance, &params)?;
    if let (Some(s), 0) = (&stable, comm.rank()?) {
        // one line: what --stable turned on, and what it could not (the run goes ahead)
        let mut line = match s.turned_on.as_slice() {
            [] => "h5perf: --stable turned nothing on (the options given bypass the cache)"
                .to_string(),
            on => format!("h5perf: --stable turned on {}", on.join(", ")),
        };
        if let Some(why) = &s.reads_uncovered {
            line.push_str(&format!("; {why}"));
        }
        line.push('\n');
        write_stderr(line.as_bytes());
    }
    Ok((params, accept))
}

/// What MPI and the linked HDF5 provide for `--subfiling` (local; the same on every rank
/// of one job).
fn driver_facts() -> crate::config::DriverFacts {
    crate::config::DriverFacts {
        subfiling: hdf5::subfiling_available(),
        thread_multiple: crate::ffi::mpi::thread_multiple(),
        hdf5_version: hdf5::library_version(),
        prefix_vars: [
            "H5FD_SUBFILING_SUBFILE_PREFIX",
            "H5FD_SUBFILING_CONFIG_FILE_PREFIX",
        ]
        .into_iter()
        .filter(|v| std::env::var_os(v).is_some())
        .map(str::to_string)
        .collect(),
    }
}

/// A new seed for a generated payload (IO500's unique seed per run): rank 0's, from the
/// operating system's randomness (std's `RandomState`), sent to every rank of `comm`
/// (collective). Errors: MPI's.
fn new_seed(comm: &Comm) -> Result<u64> {
    use std::hash::{BuildHasher, Hasher};
    let mine = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let got = comm.bcast_bytes(0, &mine.to_le_bytes())?;
    let bytes: [u8; 8] = got
        .as_slice()
        .try_into()
        .map_err(|_| Error::Internal("the seed broadcast is not 8 bytes"))?;
    Ok(u64::from_le_bytes(bytes))
}

/// Where a run's data files go, claimed for the run.
struct Place {
    env: RunEnv,
    /// The data directory (empty: the current one).
    dir: std::path::PathBuf,
    /// The data directory's lock, held until [`publish`].
    lock: dir_lock::DirLock,
    /// The storage options' lines of the parameter block.
    storage_lines: Vec<String>,
}

/// Stage 2, claim the data directory (collective) before anything is written; errors agreed.
fn claim_data_dir(comm: &Comm, params: &Params, opts: &Options, caller: &Caller) -> Result<Place> {
    let env = RunEnv::from_process();
    let dir = datadir::data_dir_checked(comm, &env, params.storage.read_only)?;
    let same = (comm.rank()? == 0)
        .then(|| distinct::check_distinct(params, &opts.acceptance, &dir, caller.report).err())
        .flatten()
        .map(|e| e.to_string());
    refuse_if_any(comm, same)?;
    // --file-per-process: the ranks of the largest step (the longest rank number)
    let ranks = if params.file_per_process {
        params.proc_counts().into_iter().max().unwrap_or(1)
    } else {
        0
    };
    for api in params.apis.iter() {
        match ranks {
            0 => datadir::data_file_name(&dir, params.num_files, api.suffix())?,
            r => datadir::rank_file_name(&dir, params.num_files, r - 1, api.suffix())?,
        };
    }
    let claim = dir_lock::Claim {
        data: params
            .apis
            .iter()
            .map(|a| (a.suffix().to_string(), params.num_files))
            .collect(),
        scratch: Vec::new(),
        keep: env.nocleanup || params.storage.read_only,
        ranks: u64::from(ranks),
        subfiling: params.subfiling,
    };
    let lock = dir_lock::acquire(comm, &dir, &claim)?;
    if caller.program {
        for note in &lock.takeover {
            let _ =
                std::io::Write::write_all(&mut std::io::stderr(), format!("{note}\n").as_bytes());
        }
    }
    let facts = crate::benchmark::storage_checks::check_up_front(params, comm, &dir)?;
    let storage_lines = params.report_lines(&facts);
    Ok(Place {
        env,
        dir,
        lock,
        storage_lines,
    })
}

/// Where a run's results go, open for the run.
struct Outputs {
    out: Sink,
    docs: Docs,
    info: Info,
    meta: Option<export::RunMeta>,
    /// HDF5 prints nothing while h5perf runs; its errors come back from its stack.
    _quiet: hdf5::Quiet,
}

/// Stage 3, open the outputs, their header and the metadata (collective); errors agreed.
fn open_outputs(
    comm: &Comm,
    params: &Params,
    place: &Place,
    info_pairs: Option<&[(String, String)]>,
    caller: &Caller,
    accept: bool,
) -> Result<Outputs> {
    let out = Sink::report(comm, params.output.as_deref(), caller.report)?;
    let _quiet = hdf5::Quiet::new();
    let info = info_pairs.map_or_else(|| Ok(Info::null()), Info::from_pairs);
    // the results documents (rank 0) and the hints (every rank), agreed at one point
    let (docs, info) = agree_value(
        comm,
        Docs::create(comm.rank()?, params)
            .and_then(|d| Ok((d, info.map_err(|e| e.context("HDF5_MPI_INFO"))?))),
    )?;
    let hints = if shows_hints_in_effect(params) {
        let h = crate::benchmark::hints_probe::hints_in_effect(params, comm, &place.dir, &info)?;
        report::hints_in_effect(comm.size()?, &h)
    } else {
        String::new()
    };
    let wrote = write_header(comm.rank()?, params, place, info_pairs, &hints, &out);
    // a failed write of any rank ends the run here, on every rank
    agree(comm, wrote.and_then(|()| out.status()))?;
    let results = params.json.is_some() || params.csv.is_some() || params.rank_csv.is_some();
    let gather = results || params.summary || accept || !caller.program || params.conditions;
    let meta = if gather {
        Some(export::RunMeta::gather(
            comm,
            info_pairs,
            &place.dir,
            &caller.command_line,
            (&params.labels, params.conditions),
        )?)
    } else {
        None
    };
    Ok(Outputs {
        out,
        docs,
        info,
        meta,
        _quiet,
    })
}

/// Whether the parameter block shows the MPI-IO hints in effect
/// ([`report::hints_in_effect`]): with `--mpi-info` (never in the C tool's text) and an
/// API that opens its files through MPI-IO.
fn shows_hints_in_effect(params: &Params) -> bool {
    !params.mpi_info.is_empty()
        && (params.apis.contains(Api::Mpiio) || params.apis.contains(Api::Phdf5))
}

/// The report's header on `out` (version line, info dump, parameter block with the hints
/// in effect `hints`, empty or [`report::hints_in_effect`]); errors: stdout.
fn write_header(
    rank: u32,
    params: &Params,
    place: &Place,
    info_pairs: Option<&[(String, String)]>,
    hints: &str,
    out: &Sink,
) -> Result<()> {
    if (params.debug.level == 0 && rank != 0) || out.is_null() {
        return Ok(());
    }
    let paraprefix = place.env.paraprefix_text();
    let dump = report::info_dump(info_pairs, mpi_sys::MPI_MAX_INFO_VAL);
    let env = report::ParamEnv {
        rank,
        paraprefix: paraprefix.as_deref(),
        info_dump: &dump,
        storage: &place.storage_lines,
        hints_in_effect: hints,
    };
    let block = report::param_block(params, &env);
    let version = report::version_line(HDF5_BUILD_VERSION);
    if !out.is_stdout() {
        let wrote = write_stdout(&format!("{version}{dump}"));
        out.write(&block);
        wrote
    } else {
        out.write(&format!("{version}{block}"));
        Ok(())
    }
}

/// Stage 4, run (collective), rank 0 publishing after each step; errors agreed.
fn run_steps(
    comm: &Comm,
    params: &Params,
    place: &Place,
    outputs: &mut Outputs,
    caller: &Caller,
) -> Result<(run::RunOutcome, u64)> {
    let rank = comm.rank()?;
    let gather = outputs.meta.is_some();
    let Outputs {
        out,
        docs,
        meta,
        info,
        ..
    } = outputs;
    let out = &*out;
    let mut progress = Progress::new(
        params,
        rank == 0 && (params.progress || (caller.program && stderr_is_terminal())),
    );
    let mut on_step = |done: &run::StepDone, records: &[Record]| -> Result<()> {
        if rank != 0 {
            return Ok(());
        }
        // the report holds results now: it replaces an earlier report of that name
        out.publish();
        if let Some(m) = meta.as_mut() {
            m.end_time = export::rfc3339_utc(export::now_unix_seconds());
            docs.write(Sink::is_file, m, params, records)?;
        }
        progress.step(done);
        Ok(())
    };
    let mut hooks = run::Hooks {
        gather,
        on_step: &mut on_step,
    };
    let outcome = run::run(params, comm, info, &place.env, &place.dir, out, &mut hooks)?;
    let wrong_bytes = comm.allreduce_u64(outcome.wrong_bytes, Op::Sum)?;
    Ok((outcome, wrong_bytes))
}

/// Stage 5, publish (collective): summary, verdict, page, results, report; errors agreed.
fn publish(
    comm: &Comm,
    params: Params,
    place: Place,
    outputs: Outputs,
    (outcome, wrong_bytes): (run::RunOutcome, u64),
    accept: Option<&acceptance::Prepared>,
) -> Result<Done> {
    let Outputs {
        out,
        docs,
        mut meta,
        ..
    } = outputs;
    if let Some(m) = meta.as_mut() {
        m.complete = wrong_bytes == 0;
        m.gather_time_s = outcome.gather_seconds;
        m.end_time = export::rfc3339_utc(export::now_unix_seconds());
        m.facts.extend(export::hint_facts(&outcome.hints));
        m.facts.extend(outcome.settings.iter().cloned());
        if params.conditions {
            // a library that reports no hints in effect says so
            for (k, v) in &mut m.facts {
                if k.starts_with("mpi_hints_in_effect_") && v.is_empty() {
                    *v = "none".to_string();
                }
            }
            let warning =
                conditions::cache_warning(&params, &outcome.records, &m.rank_hosts, &m.nodes);
            if let (Some(w), 0) = (&warning, comm.rank()?) {
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr(),
                    format!("h5perf: warning: {w}\n").as_bytes(),
                );
            }
            let end = conditions::end_facts(&m.mpi_version, &outcome.hints, warning.as_deref());
            m.facts.extend(end);
        }
    }
    if params.summary && comm.rank()? == 0 {
        let host_of = |r: u32| meta.as_ref().map_or("?", |m| m.host_of(r)).to_string();
        out.write(&report::summary_table(&params, &outcome.records, &host_of));
    }
    panics::injected(comm.rank()?);
    // the verdict after the report, before any results on standard output; the page
    let checks = match accept {
        Some(a) => {
            let run = (meta.as_ref(), &params, &outcome.records[..]);
            acceptance::finish(comm, a, run, &out, wrong_bytes == 0)?
        }
        None => Checks::default(),
    };
    let wrote = match &meta {
        Some(m) => {
            let to = |s: &Sink| !s.is_stdout() || wrong_bytes == 0;
            docs.write(to, m, &params, &outcome.records)
        }
        None => Ok(()),
    };
    out.publish();
    agree(comm, wrote.and_then(|()| out.status()))?;
    place.lock.release(comm)?;
    Ok(Done {
        params,
        records: outcome.records,
        wrong_bytes,
        meta,
        checks,
    })
}

/// The progress lines on stderr (rank 0): one whole line per step, never inside a timer.
struct Progress {
    on: bool,
    /// Steps of the run: process counts × transfer sizes.
    total: usize,
    done: usize,
    /// The APIs, as the summary names them.
    apis: String,
    /// When the run started (`MPI_Wtime`, seconds).
    started: f64,
}

impl Progress {
    fn new(params: &Params, on: bool) -> Progress {
        let apis: Vec<&str> = params.apis.iter().map(report::summary_api_name).collect();
        Progress {
            on,
            total: params.proc_counts().len() * params.buf_sizes().len(),
            done: 0,
            apis: apis.join(" "),
            started: mpi::wtime(),
        }
    }

    /// `h5perf: step k of N: P processes, transfer size S, APIS: T s; about L s left`;
    /// the estimate is the mean time per step so far times the steps left.
    fn step(&mut self, step: &run::StepDone) {
        self.done += 1;
        if !self.on {
            return;
        }
        let elapsed = mpi::wtime() - self.started;
        let left = elapsed / self.done as f64 * (self.total - self.done) as f64;
        let line = format!(
            "h5perf: step {} of {}: {} process{}, transfer size {}, {}: {:.2} s; about {:.1} s left\n",
            self.done,
            self.total,
            step.nprocs,
            if step.nprocs == 1 { "" } else { "es" },
            report::sz(step.xfer_size),
            self.apis,
            step.seconds,
            left
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    }
}

/// A results document's text for the records so far (`export::to_json`, …).
type Render = fn(&export::RunMeta, &Params, &[Record]) -> String;

/// The results documents of a run (`--json`, `--csv`, `--rank-csv`), on rank 0.
struct Docs([(Option<Sink>, Render); 3]);

impl Docs {
    /// Check every document's destination before any I/O (rank 0; not collective).
    fn create(rank: u32, params: &Params) -> Result<Docs> {
        let open = |dest: Option<&std::ffi::OsStr>, option| match dest {
            Some(d) if rank == 0 => Sink::document(d, option).map(Some),
            _ => Ok(None),
        };
        Ok(Docs([
            (open(params.json.as_deref(), "--json")?, export::to_json),
            (open(params.csv.as_deref(), "--csv")?, export::to_csv),
            (
                open(params.rank_csv.as_deref(), "--rank-csv")?,
                export::to_rank_csv,
            ),
        ]))
    }

    /// Write every document whose sink `to` takes (stdout only for a verified run).
    fn write(
        &self,
        to: impl Fn(&Sink) -> bool,
        m: &export::RunMeta,
        p: &Params,
        records: &[Record],
    ) -> Result<()> {
        for (sink, render) in &self.0 {
            if let Some(sink) = sink.as_ref().filter(|s| to(s)) {
                sink.replace(&render(m, p, records))?;
            }
        }
        Ok(())
    }
}

/// The release whose h5perf this one re-implements: its report, options and bytes are the
/// contract (`../shared/spec`, the golden transcripts), whichever HDF5 it is built against.
pub const REFERENCE_RELEASE: &str = "1.10.8";

/// The `--version` text: h5perf's version, the release it re-implements and the HDF5 and MPI
/// libraries it runs with (a build against HDF5 1.14 is still the 1.10.8 tool, linked
/// with 1.14).
pub fn version_text() -> String {
    format!(
        "h5perf {} (Rust re-implementation of the HDF5 {} h5perf benchmark)\nHDF5 library: {} (compiled against {})\nMPI library: {}\n",
        env!("CARGO_PKG_VERSION"),
        REFERENCE_RELEASE,
        hdf5::library_version(),
        HDF5_BUILD_VERSION,
        mpi::library_version()
    )
}
