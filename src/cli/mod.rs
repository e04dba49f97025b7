//! The command-line parser of h5perf (spec §1) and its help text (spec §1.10).
//!
//! The syntax is that of the C h5perf of HDF5 1.10.8 — short options, clusters, long
//! options (full names, and as an extension their unique abbreviations), sizes with
//! K/M/G suffixes — with the reference's defects fixed (spec §11): stray arguments and
//! malformed values are refused instead of being ignored or read as nonsense,
//! `--interleaved` and `--write-only` are flags, and every refusal is a single line
//! starting with `h5perf: `.
//!
//! Parsing is pure: no I/O, no MPI, no environment. Defaults and clamping are applied
//! later by [`crate::config::Params::resolve`] (spec §1.9).
//!
//! The parts, each using only those before it: `defs` (one definition per option: names,
//! value kind, help text, the function that applies it), `values` (the value parsers),
//! `tokenizer` (argv → options), `help` (the help text, generated from the definitions);
//! this file adds the checks of the whole line and the [`Command`] it asks for.

mod defs;
mod help;
mod tokenizer;
mod values;

pub use defs::STDOUT;
pub use help::help_text;
pub use values::parse_size;

use crate::config::Options;
use crate::error::Error;
use defs::Stop;
use tokenizer::{usage, Line, Scan};
use values::quote;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
// parsed once per run: boxing the options would buy nothing
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Run the benchmark with these (not yet defaulted) options.
    Run(Options),
    /// `-h` / `--help`: print [`help_text`] (spec §1.10).
    Help,
    /// `--version` (not in the C tool): print the version.
    Version,
    /// `--fill-behaviour` (not in the C tool): observe when the linked HDF5 writes fill
    /// values and compare with HDF5's documented tables ([`crate::fill_behaviour`]);
    /// `strict` (`--strict`): exit with status 1 when anything differs.
    FillBehaviour {
        /// `--strict` was given.
        strict: bool,
    },
}

/// Parse the command line (spec §1, defects of §11 fixed). `args` are the arguments
/// after `argv[0]`.
///
/// Returns [`Command::Help`] / [`Command::Version`] as soon as `-h`/`--help` or
/// `--version` is met (later arguments are not examined), otherwise
/// [`Command::FillBehaviour`] or [`Command::Run`] with the options given, not yet
/// defaulted or clamped.
///
/// # Errors
/// [`Error::Usage`] with a one-line message starting with `h5perf: ` for the first
/// problem found, left to right: an unknown or unsupported option, a missing or invalid
/// value (the message names the option as `-e/--num-bytes` and quotes the value), or a
/// stray non-option argument; then, after the whole line, `--fill-behaviour` with a
/// benchmark option, `--strict` without `--fill-behaviour`, `--json -` with `--csv -`,
/// or two of `-o`, `--json`, `--csv` naming the same file.
pub fn parse<I, S>(args: I) -> Result<Command, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let args: Vec<String> = args.into_iter().map(|s| s.as_ref().to_string()).collect();
    let line = match tokenizer::scan(&args)? {
        Scan::Stopped(Stop::Help) => return Ok(Command::Help),
        Scan::Stopped(Stop::Version) => return Ok(Command::Version),
        Scan::Line(line) => *line,
    };
    let Line {
        options,
        modes,
        first_option,
    } = line;
    if modes.fill_behaviour {
        if let Some(def) = first_option {
            return Err(usage(format!(
                "--fill-behaviour runs no benchmark and takes no option but --strict \
                 (got {})",
                def.label()
            )));
        }
        return Ok(Command::FillBehaviour {
            strict: modes.strict,
        });
    }
    if modes.strict {
        return Err(usage(
            "--strict applies only to --fill-behaviour (see h5perf --help)".to_string(),
        ));
    }
    check_destinations(&options)?;
    Ok(Command::Run(options))
}

/// Refuse output destinations that would clobber each other: `--json -` together with
/// `--csv -` (two documents mixed on standard output), and two of `-o`, `--json`,
/// `--csv` spelling the same file name.
fn check_destinations(o: &Options) -> Result<(), Error> {
    if o.json.as_deref() == Some(STDOUT) && o.csv.as_deref() == Some(STDOUT) {
        return Err(usage(
            "--json and --csv cannot both write to standard output ('-'); \
             give one of them a file name"
                .to_string(),
        ));
    }
    if o.rank_csv.as_deref() == Some(STDOUT)
        && (o.json.as_deref() == Some(STDOUT) || o.csv.as_deref() == Some(STDOUT))
    {
        return Err(usage(
            "--rank-csv and --json/--csv cannot both write to standard output ('-'); \
             give one of them a file name"
                .to_string(),
        ));
    }
    let files = [
        ("-o/--output", o.output.as_deref()),
        ("--json", o.json.as_deref().filter(|f| *f != STDOUT)),
        ("--csv", o.csv.as_deref().filter(|f| *f != STDOUT)),
        ("--rank-csv", o.rank_csv.as_deref().filter(|f| *f != STDOUT)),
    ];
    for (i, (a, fa)) in files.iter().enumerate() {
        for (b, fb) in &files[i + 1..] {
            if let (Some(fa), Some(fb)) = (fa, fb) {
                if fa == fb {
                    return Err(usage(format!(
                        "{a} and {b} name the same file {}; give them different names",
                        quote(fa)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Helpers of the unit tests of this module and its parts.
#[cfg(test)]
mod testing {
    use super::{parse, Command};
    use crate::config::Options;
    use crate::error::Error;

    /// Parse a whitespace-free argument list given as a slice; it must be a run.
    pub(super) fn run(args: &[&str]) -> Options {
        match parse(args) {
            Ok(Command::Run(o)) => o,
            other => panic!("{args:?}: expected Run, got {other:?}"),
        }
    }

    /// The message of a refused argument list: one line starting with `h5perf: `.
    pub(super) fn err(args: &[&str]) -> String {
        match parse(args) {
            Err(Error::Usage(m)) => {
                assert!(m.starts_with("h5perf: "), "{m}");
                assert!(!m.contains('\n'), "{m}");
                m
            }
            other => panic!("{args:?}: expected a usage error, got {other:?}"),
        }
    }

    /// Assert a refusal whose message contains every piece of `needles`.
    pub(super) fn refused(args: &[&str], needles: &[&str]) {
        let m = err(args);
        for n in needles {
            assert!(m.contains(n), "{args:?}: message {m:?} lacks {n:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{refused, run};
    use super::*;

    #[test]
    fn no_arguments_gives_defaults() {
        assert_eq!(run(&[]), Options::default());
    }

    #[test]
    fn fill_behaviour_mode() {
        assert_eq!(
            parse(["--fill-behaviour"]).unwrap(),
            Command::FillBehaviour { strict: false }
        );
        assert_eq!(
            parse(["--fill-b", "--strict"]).unwrap(),
            Command::FillBehaviour { strict: true }
        );
        assert_eq!(
            parse(["--st", "--fill-behav"]).unwrap(),
            Command::FillBehaviour { strict: true }
        );
        // -h still wins
        assert_eq!(parse(["--fill-behaviour", "-h"]).unwrap(), Command::Help);
        refused(
            &["--fill-behaviour", "-A", "posix"],
            &["--fill-behaviour runs no benchmark and takes no option but --strict (got -A/--api)"],
        );
        refused(
            &["-n", "--fill-behaviour"],
            &["takes no option but --strict (got -n/--no-fill)"],
        );
        refused(
            &["--strict"],
            &["h5perf: --strict applies only to --fill-behaviour"],
        );
        refused(&["-e", "8", "--strict"], &["--strict applies only"]);
        refused(
            &["--fill-behaviour=1"],
            &["invalid value '1' for --fill-behaviour: this option takes no value"],
        );
    }

    #[test]
    fn json_and_csv_files() {
        assert_eq!((run(&[]).json, run(&[]).csv), (None, None));
        let o = run(&["--json", "r.json", "--csv=r.csv"]);
        assert_eq!(o.json.as_deref(), Some("r.json"));
        assert_eq!(o.csv.as_deref(), Some("r.csv"));
        let o = run(&["--js=a", "--cs", "b", "-e", "8"]);
        assert_eq!(
            (o.json.as_deref(), o.csv.as_deref()),
            (Some("a"), Some("b"))
        );
        assert_eq!(o.num_bytes, 8);
        // '-' (standard output) is taken as a separate value, and with '='
        assert_eq!(run(&["--json", "-"]).json.as_deref(), Some(STDOUT));
        assert_eq!(run(&["--csv=-", "-w"]).csv.as_deref(), Some(STDOUT));
        let o = run(&["--json", "-", "-w"]);
        assert!(o.write_only);
        assert_eq!(o.json.as_deref(), Some("-"));
        // either one on standard output, the other in a file
        let o = run(&["--json", "-", "--csv", "r.csv"]);
        assert_eq!(
            (o.json.as_deref(), o.csv.as_deref()),
            (Some("-"), Some("r.csv"))
        );
        // the last one wins; '=' keeps a value starting with '-'
        assert_eq!(run(&["--json=a", "--json=b"]).json.as_deref(), Some("b"));
        assert_eq!(run(&["--json=-x"]).json.as_deref(), Some("-x"));
        assert_eq!(run(&["--csv= a b "]).csv.as_deref(), Some(" a b "));
        // no short forms
        refused(&["-j", "x"], &["unknown option '-j'"]);
        // empty and missing values
        refused(
            &["--json", ""],
            &["invalid value '' for --json: empty file name (use - for standard output)"],
        );
        refused(
            &["--csv", ""],
            &["invalid value '' for --csv: empty file name"],
        );
        refused(
            &["--json="],
            &["missing value for --json (expected a file name; nothing follows '='"],
        );
        refused(
            &["--csv"],
            &["missing value for --csv (expected a file name)"],
        );
        refused(
            &["--json", "-w"],
            &[
                "missing value for --json",
                "'-w' starts with '-'",
                "--json=VALUE",
            ],
        );
        refused(&["--csv", "--json=x"], &["missing value for --csv"]);
        // abbreviations shorter than --js/--cs or longer than the names are unknown
        refused(&["--j", "x"], &["unknown option '--j'"]);
        refused(&["--jsonl", "x"], &["unknown option '--jsonl'"]);
        refused(&["--csvx=1"], &["unknown option '--csvx=1'"]);
        // destinations that would clobber each other
        refused(
            &["--json", "-", "--csv=-"],
            &["h5perf: --json and --csv cannot both write to standard output"],
        );
        refused(
            &["--json", "r", "--csv", "r"],
            &["h5perf: --json and --csv name the same file 'r'"],
        );
        refused(
            &["-o", "r", "--json", "r"],
            &["-o/--output and --json name the same file 'r'"],
        );
        refused(
            &["--csv=r", "--output=r"],
            &["-o/--output and --csv name the same file 'r'"],
        );
        // '-' is a file name for -o but standard output for --json: no clash
        let o = run(&["-o", "-", "--json", "-"]);
        assert_eq!(
            (o.output.as_deref(), o.json.as_deref()),
            (Some("-"), Some("-"))
        );
        // -h still wins when it comes after --json
        assert_eq!(parse(["--json", "x", "-h"]).unwrap(), Command::Help);
    }

    #[test]
    fn accepts_owned_strings() {
        let v: Vec<String> = vec!["-e".into(), "1M".into()];
        assert_eq!(run_owned(v).num_bytes, 1 << 20);
    }

    fn run_owned(v: Vec<String>) -> Options {
        match parse(v).unwrap() {
            Command::Run(o) => o,
            c => panic!("{c:?}"),
        }
    }
}
