//! The whole `h5perf` program as a function of its arguments: environment, command
//! line, parameter checks, report header, the run, and the exit status. `main.rs` is a
//! thin wrapper around [`run_program`]; the C API's program entry point will reuse it.

use crate::benchmark::run;
use crate::cli::{self, Command};
use crate::config::{Options, Params};
use crate::error::{Error, Result};
use crate::ffi::hdf5;
use crate::ffi::mpi::{self, Comm, Info, Op, Universe};
use crate::ffi::posix::{Fd, OpenMode};
use crate::output::{export, report};
use crate::services::mpi_info;
use crate::services::{self, RunEnv, Sink};

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
/// `--version`), 1 on any error (printed once on stderr by world rank 0). A fatal
/// error (files left open on some ranks) aborts the job.
pub fn run_program(args: &[String]) -> i32 {
    run_program_with(args, true)
}

/// [`run_program`]. `as_program` true (the `h5perf` binary) installs the signal
/// handlers that remove the data file in use on SIGINT/SIGTERM/SIGHUP and aborts the
/// job on a fatal error; false (the C API's `h5perf_main`, inside a caller's program)
/// leaves signals alone and returns status 1 instead of calling `MPI_Abort`.
pub fn run_program_with(args: &[String], as_program: bool) -> i32 {
    let abort_on_fatal = as_program;
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
        Ok(()) => 0,
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

fn program(world: &Comm, args: &[String]) -> Result<()> {
    let rank = world.rank()?;
    // HDF5_MPI_INFO is read before the options, as in the C tool (spec §1.1)
    let info_pairs = mpi_info_from_env()?;
    let opts = match cli::parse(args)? {
        Command::Help => {
            if rank == 0 {
                services::write_stdout(&cli::help_text())?;
            }
            return Ok(());
        }
        Command::Version => {
            if rank == 0 {
                services::write_stdout(&version_text())?;
            }
            return Ok(());
        }
        Command::FillBehaviour { strict } => return crate::fill_behaviour::run_mode(world, strict),
        Command::Run(o) => o,
    };
    let done = run_on(world, &opts, info_pairs.as_deref(), true)?;
    if done.wrong_bytes > 0 {
        return Err(Error::Verify(done.wrong_bytes));
    }
    Ok(())
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
}

/// Run a configuration on `comm` (collective): defaults and checks, data directory,
/// report (to the `-o` file if set, else to stdout when `report` is true, else
/// nowhere), the benchmark, and the verification total. Environment variables are
/// read as by the program (spec §5). Nothing is printed on stderr: errors are returned.
///
/// Errors: invalid parameters (before any I/O), any agreed run-time failure.
pub fn run_on(
    comm: &Comm,
    opts: &Options,
    info_pairs: Option<&[(String, String)]>,
    report: bool,
) -> Result<Done> {
    let rank = comm.rank()?;
    let size = comm.size()?;
    let params = Params::resolve(opts, size);
    let problems = params.problems(size, crate::ffi::posix::physical_memory());
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }

    // the data directory is checked first, so a refused run leaves no report file
    let env = RunEnv::from_process();
    let dir = services::data_dir_checked(comm, &env)?;
    // the storage options' checks that need the machine (kept files, the right to drop
    // the page cache, direct I/O), also before anything is written
    let facts = crate::benchmark::storage_checks::check_up_front(&params, comm, &dir)?;
    let storage_lines = params.storage.report_lines(&facts);

    // report file: rank 0 truncates, then every rank appends its own blocks
    let out = match &params.output {
        None if report => Sink::stdout(),
        None => Sink::Null,
        Some(path) => {
            // two agreement points, reached by every rank in the same order
            let created = if rank == 0 {
                Fd::open_str(path, OpenMode::CreateReport).map(Some)
            } else {
                Ok(None)
            };
            let created = agree_value(comm, created, "report file (-o)")?;
            let appended = match created {
                Some(fd) => Ok(fd),
                None => Fd::open_str(path, OpenMode::Append),
            };
            let fd = agree_value(comm, appended, "report file (-o)")?;
            Sink::file(fd)
        }
    };

    // results files are created (and their names checked) before any I/O
    let open = |dest: Option<&str>| match dest {
        Some(d) if rank == 0 => export::create(d).map(Some),
        _ => Ok(None),
    };
    let json_sink = agree_value(comm, open(params.json.as_deref()), "results file (--json)")?;
    let csv_sink = agree_value(comm, open(params.csv.as_deref()), "results file (--csv)")?;

    // HDF5 prints nothing while h5perf runs; errors come back from its error stack
    let _quiet = hdf5::Quiet::new();
    let info = match info_pairs {
        Some(p) => Info::from_pairs(p),
        None => Ok(Info::null()),
    };
    let info = agree_value(comm, info, "HDF5_MPI_INFO")?;

    if (params.debug.level >= 1 || rank == 0) && !matches!(out, Sink::Null) {
        let dump = report::info_dump(info_pairs, mpi_sys::MPI_MAX_INFO_VAL);
        let block = report::param_block(
            &params,
            &report::ParamEnv {
                rank,
                paraprefix: env.paraprefix.as_deref(),
                info_dump: &dump,
                storage: &storage_lines,
            },
        );
        let version = report::version_line(HDF5_BUILD_VERSION);
        if out.is_file() {
            // stdout keeps what the C tool prints there; the file gets the whole block
            services::write_stdout(&format!("{version}{dump}"))?;
            out.write(&block)?;
        } else {
            out.write(&format!("{version}{block}"))?;
        }
    }

    // machine-readable results: host names of every rank, the run's start time
    let meta = if params.json.is_some() || params.csv.is_some() {
        let me = export::hostname();
        let mut names = Vec::with_capacity(size as usize);
        for r in 0..size {
            names.push(String::from_utf8_lossy(&comm.bcast_bytes(r, me.as_bytes())?).into_owned());
        }
        Some(export::RunMeta {
            h5perf_version: env!("CARGO_PKG_VERSION").to_string(),
            hdf5_version: hdf5::library_version(),
            mpi_version: mpi::library_version(),
            world_size: size,
            hostname_count: export::distinct_count(&names),
            timestamp: export::rfc3339_utc(export::now_unix_seconds()),
        })
    } else {
        None
    };

    let outcome = run::run(&params, comm, &info, &env, &dir, &out)?;
    let wrong_bytes = comm.allreduce_u64(outcome.wrong_bytes, Op::Sum)?;
    // rank 0 writes the results files only for a verified run; all ranks agree on it
    if let (Some(meta), 0) = (&meta, wrong_bytes) {
        let mut wrote = Ok(());
        if let Some(sink) = json_sink {
            wrote = sink.write(&export::to_json(meta, &params, &outcome.records));
        }
        if let (Ok(()), Some(sink)) = (&wrote, csv_sink) {
            wrote = sink.write(&export::to_csv(meta, &params, &outcome.records));
        }
        services::agree(comm, wrote)?;
    }
    Ok(Done {
        params,
        records: outcome.records,
        wrong_bytes,
    })
}

/// Agree on a per-rank result that carries a value; the error names `what`.
fn agree_value<T>(world: &Comm, r: Result<T>, what: &str) -> Result<T> {
    let (unit, val) = match r {
        Ok(v) => (Ok(()), Some(v)),
        Err(e) => (Err(Error::Other(format!("{what}: {e}"))), None),
    };
    services::agree(world, unit)?;
    Ok(val.expect("agreement succeeded, so this rank succeeded"))
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
