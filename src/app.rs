//! The whole `h5perf` program as a function of its arguments: environment, command
//! line, parameter checks, report header, the run, and the exit status. `main.rs` is a
//! thin wrapper around [`run_program`]; the C API's program entry point will reuse it.
//! The acceptance options (`--expect`, `--baseline`, `--html`, `--from`) are
//! `app/acceptance.rs`'s.

mod acceptance;

pub use acceptance::{Checks, EXIT_CHECKS_FAILED};

use std::ffi::OsString;

use crate::agreement::{agree, refuse_if_any};
use crate::benchmark::run;
use crate::cli::{self, Command};
use crate::config::mpi_info;
use crate::config::{Options, Params};
use crate::datadir::{self, lock as dir_lock, RunEnv};
use crate::error::{Error, Result};
use crate::ffi::hdf5;
use crate::ffi::mpi::{self, Comm, Info, Op, Universe};
use crate::ffi::posix::{stderr_is_terminal, Fd, OpenMode};
use crate::output::report_sink::{write_stdout, Sink};
use crate::output::{export, files, report};

/// The HDF5 version h5perf was compiled against (recorded by `build.rs`).
pub const HDF5_BUILD_VERSION: &str = env!("H5PERF_HDF5_VERSION");

/// The text world rank 0 prints on stderr for an error (one message, spec §10 fixed).
pub fn error_message(e: &Error) -> String {
    match e {
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
    }
}

/// Run h5perf with `args` (without `argv[0]`) on `MPI_COMM_WORLD`, initialising MPI if
/// needed. Returns the process exit status: 0 on success (also for `--help` and
/// `--version`), 1 on any error (printed once on stderr by world rank 0),
/// [`EXIT_CHECKS_FAILED`] (3) when the run (or `--from`) succeeded but a criterion of
/// `--expect` or the comparison with `--baseline` failed. A fatal error (files left
/// open on some ranks) aborts the job.
pub fn run_program(args: &[OsString]) -> i32 {
    run_program_with(args, true)
}

/// [`run_program`]. `as_program` true (the `h5perf` binary) installs the signal
/// handlers that remove the data file in use on SIGINT/SIGTERM/SIGHUP and aborts the
/// job on a fatal error; false (the C API's `h5perf_main`, inside a caller's program)
/// leaves signals alone and returns status 1 instead of calling `MPI_Abort`.
pub fn run_program_with(args: &[OsString], as_program: bool) -> i32 {
    let abort_on_fatal = as_program;
    if as_program && launched_as_rank_zero() {
        // before MPI_Init, while the process has one thread; without it the signal
        // handlers and the next run's lock takeover still clean up
        let _ = crate::ffi::cleanup::start_reaper();
    }
    let universe = match Universe::init() {
        Ok(u) => u,
        Err(e) => {
            eprintln!("{}", error_message(&e));
            return 1;
        }
    };
    if as_program {
        crate::ffi::signals::install();
    }
    let world = universe.world();
    let rank = world.rank().unwrap_or(0);
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
                // the other ranks wait (boundedly) until rank 0 has printed: a rank that
                // exits first without MPI_Finalize makes hydra kill rank 0 at once
                let _ = world.barrier_within(std::time::Duration::from_secs(2));
                // After a failed HDF5 file close, HDF5 1.10.8's clean-up inside
                // MPI_Finalize dereferences the half-closed file and crashes
                // (SIGSEGV in H5F__close_cb). Every rank has agreed on the error and the
                // process is about to exit with status 1: leave without MPI_Finalize.
                std::mem::forget(world);
                std::mem::forget(universe);
                return 1;
            }
            1
        }
    };
    drop(world);
    drop(universe);
    code
}

/// Whether the launcher started this process as world rank 0, from the rank it puts in
/// the environment (Open MPI `OMPI_COMM_WORLD_RANK`, PMIx `PMIX_RANK`, MPICH's hydra
/// `PMI_RANK`, Slurm `SLURM_PROCID`); true without any (a singleton). Read before
/// `MPI_Init`, to start the reaper ([`crate::ffi::cleanup::start_reaper`]) on rank 0 only.
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
    let info_pairs = mpi_info_from_env()?;
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
    if done.checks.failed > 0 {
        if rank == 0 {
            eprintln!("h5perf: verdict FAIL: {}", done.checks.summary);
        }
        return Ok(EXIT_CHECKS_FAILED);
    }
    Ok(0)
}

/// `HDF5_MPI_INFO` parsed into key/value pairs (spec §2.4); `None` when unset.
///
/// Errors: a malformed value (named in the message).
pub fn mpi_info_from_env() -> Result<Option<Vec<(String, String)>>> {
    match std::env::var("HDF5_MPI_INFO") {
        Ok(v) => Ok(Some(mpi_info::parse_mpi_info_with_limits(
            &v,
            mpi_sys::MPI_MAX_INFO_KEY as usize - 1,
            mpi_sys::MPI_MAX_INFO_VAL as usize - 1,
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
    pub records: Vec<crate::measure::Record>,
    /// Bytes read back wrong with `-D v`, summed over all ranks.
    pub wrong_bytes: u64,
    /// The run's metadata (complete, on rank 0) when it was collected: with `--json`,
    /// `--csv`, `--rank-csv`, `--summary` or an acceptance option, and always for the
    /// C API.
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
    /// The `h5perf` program (progress lines also when stderr is a terminal) rather
    /// than the C API (progress lines only when asked; per-rank times always gathered
    /// and the metadata always collected, for `h5perf_results`).
    pub program: bool,
}

/// Run a configuration on `comm` (collective): defaults and checks, data directory,
/// report (to the `-o` file if set, else to stdout when `caller.report` is true, else
/// nowhere), the benchmark, the results files (rewritten after each step), and the
/// verification total. Environment variables are read as by the program (spec §5).
/// Nothing is printed on stderr but the progress lines: errors are returned.
///
/// Errors: invalid parameters (before any I/O), any agreed run-time failure.
pub fn run_on(
    comm: &Comm,
    opts: &Options,
    info_pairs: Option<&[(String, String)]>,
    caller: &Caller,
) -> Result<Done> {
    let report = caller.report;
    let rank = comm.rank()?;
    let size = comm.size()?;
    let params = Params::resolve(opts, size);
    let problems = params.problems(size, crate::ffi::posix::physical_memory());
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    // criteria that select nothing, the baseline and the page's file, before any I/O
    let accept = acceptance::prepare(comm, &opts.acceptance, &params)?;

    // the data directory is checked first, so a refused run leaves no report file
    let env = RunEnv::from_process();
    let dir = datadir::data_dir_checked(comm, &env)?;
    // outputs that are one file (with each other or with a data file) would lose
    // results: refused before anything is written (rank 0 looks, every rank agrees)
    let same = (rank == 0)
        .then(|| files::check_distinct(&params, &opts.acceptance, &dir).err())
        .flatten();
    refuse_if_any(comm, same)?;
    // a data directory too long for the data files' names is refused before the lock
    // is made there (the same on every rank)
    for api in params.apis.iter() {
        datadir::data_file_name(&dir, params.num_files, api.suffix())?;
    }
    // one run per data directory, before anything is written there or to -o
    let claim = dir_lock::Claim {
        data: params
            .apis
            .iter()
            .map(|a| (a.suffix().to_string(), params.num_files))
            .collect(),
        scratch: Vec::new(),
        keep: env.nocleanup || params.storage.read_only,
    };
    let lock = dir_lock::acquire(comm, &dir, &claim)?;
    if caller.program {
        for note in &lock.takeover {
            let _ =
                std::io::Write::write_all(&mut std::io::stderr(), format!("{note}\n").as_bytes());
        }
    }
    // the storage options' checks that need the machine (kept files, the right to drop
    // the page cache, direct I/O), also before anything is written
    let facts = crate::benchmark::storage_checks::check_up_front(&params, comm, &dir)?;
    let storage_lines = params.storage.report_lines(&facts);

    let out = report_sink(comm, params.output.as_deref(), report)?;

    // results files are checked before any I/O (an earlier file is left alone)
    let open = |dest: Option<&std::ffi::OsStr>, option| match dest {
        Some(d) if rank == 0 => files::create(d, option).map(Some),
        _ => Ok(None),
    };
    let json_sink = agree_own(comm, open(params.json.as_deref(), "--json"))?;
    let csv_sink = agree_own(comm, open(params.csv.as_deref(), "--csv"))?;
    let rank_sink = agree_own(comm, open(params.rank_csv.as_deref(), "--rank-csv"))?;

    // HDF5 prints nothing while h5perf runs; errors come back from its error stack
    let _quiet = hdf5::Quiet::new();
    let info = match info_pairs {
        Some(p) => Info::from_pairs(p),
        None => Ok(Info::null()),
    };
    let info = agree_value(comm, info, "HDF5_MPI_INFO")?;

    let mut wrote = Ok(());
    if (params.debug.level >= 1 || rank == 0) && !out.is_null() {
        let paraprefix = env.paraprefix_text();
        let dump = report::info_dump(info_pairs, mpi_sys::MPI_MAX_INFO_VAL);
        let block = report::param_block(
            &params,
            &report::ParamEnv {
                rank,
                paraprefix: paraprefix.as_deref(),
                info_dump: &dump,
                storage: &storage_lines,
            },
        );
        let version = report::version_line(HDF5_BUILD_VERSION);
        if out.is_file() {
            // stdout keeps what the C tool prints there; the file gets the whole block
            wrote = write_stdout(&format!("{version}{dump}"));
            out.write(&block);
        } else {
            out.write(&format!("{version}{block}"));
        }
    }
    // a failed write of any rank ends the run here, on every rank
    agree(comm, wrote.and_then(|()| out.status()))?;

    // machine-readable results: host names of every rank, the run's start time and
    // where it runs (all outside every timer)
    let results = params.json.is_some() || params.csv.is_some() || params.rank_csv.is_some();
    let gather = results || params.summary || accept.is_some() || !caller.program;
    let mut meta = if gather {
        Some(run_meta(comm, size, info_pairs, &dir, caller)?)
    } else {
        None
    };

    let progress = rank == 0 && (params.progress || (caller.program && stderr_is_terminal()));
    let total_steps = params.proc_counts().len() * params.buf_sizes().len();
    let apis: Vec<&str> = params.apis.iter().map(report::summary_api_name).collect();
    let started = mpi::wtime();
    let mut steps_done = 0usize;
    let sinks = [
        (&json_sink, Doc::Json),
        (&csv_sink, Doc::Csv),
        (&rank_sink, Doc::RankCsv),
    ];
    let mut on_step = |done: &run::StepDone, records: &[crate::measure::Record]| -> Result<()> {
        steps_done += 1;
        if rank != 0 {
            return Ok(());
        }
        // the report holds results now: it replaces an earlier report of that name
        out.publish();
        if let Some(m) = meta.as_mut() {
            m.end_time = export::rfc3339_utc(export::now_unix_seconds());
            for (sink, doc) in &sinks {
                if let Some(sink) = sink.as_ref().filter(|s| s.is_file()) {
                    sink.write(&doc.render(m, &params, records))?;
                }
            }
        }
        if progress {
            let elapsed = mpi::wtime() - started;
            let left = elapsed / steps_done as f64 * (total_steps - steps_done) as f64;
            // one whole line per write, on stderr only
            let line = format!(
                "h5perf: step {steps_done} of {total_steps}: {} process{}, transfer size {}, {}: {:.2} s; about {:.1} s left\n",
                done.nprocs,
                if done.nprocs == 1 { "" } else { "es" },
                report::fmt_size(i64::try_from(done.xfer_size).unwrap_or(i64::MAX)),
                apis.join(" "),
                done.seconds,
                left
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
        }
        Ok(())
    };
    let mut hooks = run::Hooks {
        gather,
        on_step: &mut on_step,
    };
    let outcome = run::run(&params, comm, &info, &env, &dir, &out, &mut hooks)?;
    let wrong_bytes = comm.allreduce_u64(outcome.wrong_bytes, Op::Sum)?;
    if let Some(m) = meta.as_mut() {
        m.complete = wrong_bytes == 0;
        m.gather_time_s = outcome.gather_seconds;
        m.end_time = export::rfc3339_utc(export::now_unix_seconds());
    }
    if params.summary && rank == 0 {
        let host_of = |r: u32| {
            meta.as_ref()
                .map_or_else(|| "?".to_string(), |m| m.host_of(r).to_string())
        };
        out.write(&report::summary_table(&params, &outcome.records, &host_of));
    }
    // the verdict after the report, before any results on standard output; the page
    let checks = match &accept {
        Some(a) => acceptance::finish(
            comm,
            a,
            meta.as_ref(),
            &params,
            &outcome.records,
            &out,
            wrong_bytes == 0,
        )?,
        None => Checks::default(),
    };
    // rank 0 writes the final results: the files say whether the run completed;
    // standard output gets the results of a verified run only; all ranks agree on it,
    // and on every rank's last report writes
    let mut wrote = Ok(());
    if let Some(m) = &meta {
        for (sink, doc) in &sinks {
            if let (Ok(()), Some(sink)) = (&wrote, sink.as_ref()) {
                if !sink.is_stdout() || wrong_bytes == 0 {
                    wrote = sink.write(&doc.render(m, &params, &outcome.records));
                }
            }
        }
    }
    out.publish();
    agree(comm, wrote.and_then(|()| out.status()))?;
    lock.release(comm)?;
    Ok(Done {
        params,
        records: outcome.records,
        wrong_bytes,
        meta,
        checks,
    })
}

/// One results document.
#[derive(Debug, Clone, Copy)]
enum Doc {
    /// `--json`.
    Json,
    /// `--csv`.
    Csv,
    /// `--rank-csv`.
    RankCsv,
}

impl Doc {
    /// The document's text for the records so far.
    fn render(self, m: &export::RunMeta, p: &Params, records: &[crate::measure::Record]) -> String {
        match self {
            Doc::Json => export::to_json(m, p, records),
            Doc::Csv => export::to_csv(m, p, records),
            Doc::RankCsv => export::to_rank_csv(m, p, records),
        }
    }
}

/// The run's metadata (collective: the host names of every rank are gathered; the
/// other fields are the same on every rank). Not complete until the run ends.
///
/// Errors: a broadcast fails.
fn run_meta(
    comm: &Comm,
    size: u32,
    info_pairs: Option<&[(String, String)]>,
    dir: &std::path::Path,
    caller: &Caller,
) -> Result<export::RunMeta> {
    let me = export::hostname();
    let mut names = Vec::with_capacity(size as usize);
    for r in 0..size {
        names.push(String::from_utf8_lossy(&comm.bcast_bytes(r, me.as_bytes())?).into_owned());
    }
    let here = datadir::dir_or_current(dir);
    let resolved = std::fs::canonicalize(here).unwrap_or_else(|_| here.to_path_buf());
    let data_dir = crate::error::path_text(resolved.as_os_str());
    let fs_type = crate::ffi::posix::c_path(&resolved)
        .ok()
        .and_then(|c| crate::ffi::storage::file_system_name(&c).ok())
        .unwrap_or_else(|| "unknown".to_string());
    let now = export::rfc3339_utc(export::now_unix_seconds());
    Ok(export::RunMeta {
        h5perf_version: env!("CARGO_PKG_VERSION").to_string(),
        hdf5_version: hdf5::library_version(),
        mpi_version: mpi::library_version(),
        world_size: size,
        hostname_count: export::distinct_count(&names),
        timestamp: now.clone(),
        complete: false,
        end_time: now,
        command_line: caller.command_line.clone(),
        data_dir,
        fs_type,
        mpi_info: info_pairs.map(<[_]>::to_vec).unwrap_or_default(),
        hosts: export::host_counts(&names),
        rank_hosts: names,
        gather_time_s: 0.0,
    })
}

/// Agree on a per-rank result that carries a value; the error names `what`.
fn agree_value<T>(world: &Comm, r: Result<T>, what: &str) -> Result<T> {
    agree_own(world, r.map_err(|e| Error::Other(format!("{what}: {e}"))))
}

/// Agree on a per-rank result that carries a value, its error as it is.
fn agree_own<T>(world: &Comm, r: Result<T>) -> Result<T> {
    let (unit, val) = match r {
        Ok(v) => (Ok(()), Some(v)),
        Err(e) => (Err(e), None),
    };
    agree(world, unit)?;
    Ok(val.expect("agreement succeeded, so this rank succeeded"))
}

/// The report's sink (collective over `comm`): standard output (or nowhere when
/// `report` is false) without `-o`. With `-o NAME` naming a new or regular file, rank 0
/// creates a new file beside the report (`.NAME.h5perf-tmp.PID`, symbolic links of
/// `NAME` followed) and every rank appends its blocks to it; the first finished step
/// renames it over `NAME` ([`Sink::publish`]), keeping an existing file's owner, group
/// and mode, so an earlier report stays as it was until this run has results to replace
/// it with, and a run that fails before leaves neither a file nor a change. With `NAME`
/// a device, FIFO or anything else that is not a regular file (`/dev/null`,
/// `/dev/stdout`), every rank opens it and writes its blocks through, as the C tool's
/// `fopen(NAME, "w")` does, without truncating or replacing it
/// ([`crate::output::paths::open_output`]).
///
/// Errors: the file cannot be created or opened, or is a symbolic link of another user
/// in a shared directory (the message names `-o` and the report as given).
fn report_sink(comm: &Comm, name: Option<&std::ffi::OsStr>, report: bool) -> Result<Sink> {
    use crate::output::paths::{open_output, Target};
    use std::os::unix::ffi::OsStrExt;
    let Some(name) = name else {
        return Ok(if report { Sink::stdout() } else { Sink::null() });
    };
    let name = std::path::Path::new(name);
    let cannot = |why: String| {
        Error::Other(format!(
            "report file (-o): cannot create '{}': {why}",
            crate::error::path_text(name.as_os_str())
        ))
    };
    let errno_text = |e: Error| match e {
        Error::Posix { errno, .. } if errno != 0 => {
            let t = std::io::Error::from_raw_os_error(errno).to_string();
            t.split(" (os error").next().unwrap_or(&t).to_string()
        }
        other => other.to_string(),
    };
    // three agreement points, reached by every rank in the same order
    let created = if comm.rank()? == 0 {
        match open_output(name).map_err(cannot) {
            Ok(Target::Through(f)) => Ok(Some(Sink::file(Fd::from_file(f), name, None, None))),
            Ok(Target::Replace { path: dest }) => {
                let tmp = crate::output::paths::temp_beside(&dest);
                let _ = std::fs::remove_file(&tmp);
                Fd::open_path(&tmp, OpenMode::CreateReportNew)
                    .map(|fd| Some(Sink::file(fd, name, Some(&tmp), Some((tmp.clone(), dest)))))
                    .map_err(|e| cannot(errno_text(e)))
            }
            Err(e) => Err(e),
        }
    } else {
        Ok(None)
    };
    let created = agree_own(comm, created)?;
    // rank 0's temporary file, or nothing when the report is written through
    let tmp = match &created {
        Some(s) => s.pending_file().map(|p| p.as_os_str().as_bytes().to_vec()),
        None => None,
    };
    let tmp = comm.bcast_bytes(0, tmp.as_deref().unwrap_or_default())?;
    let tmp = std::path::Path::new(std::ffi::OsStr::from_bytes(&tmp));
    let mine = match created {
        Some(sink) => Ok(sink),
        None if tmp.as_os_str().is_empty() => match open_output(name).map_err(cannot) {
            Ok(Target::Through(f)) => Ok(Sink::file(Fd::from_file(f), name, None, None)),
            Ok(Target::Replace { .. }) => Err(cannot(
                "it became a regular file while the run started".to_string(),
            )),
            Err(e) => Err(e),
        },
        None => Fd::open_path(tmp, OpenMode::Append)
            .map(|fd| Sink::file(fd, name, Some(tmp), None))
            .map_err(|e| cannot(errno_text(e))),
    };
    agree_own(comm, mine)
}

/// The `--version` text: h5perf's version and the HDF5 and MPI libraries it runs with.
pub fn version_text() -> String {
    format!(
        "h5perf {} (Rust re-implementation of the HDF5 {} h5perf benchmark)\nHDF5 library: {} (compiled against {})\nMPI library: {}\n",
        env!("CARGO_PKG_VERSION"),
        HDF5_BUILD_VERSION,
        hdf5::library_version(),
        HDF5_BUILD_VERSION,
        mpi::library_version()
    )
}
