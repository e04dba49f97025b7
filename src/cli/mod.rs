//! The command-line parser (spec §1, §11 defects fixed) and its help text (spec §1.10).
//! Pure: no I/O, no MPI, no environment.

mod help;
mod tokenizer;

pub use crate::config::values::STDOUT;
pub use help::help_text;
#[cfg(test)]
pub(crate) use testing::{err, refused, run, Text};
pub use tokenizer::set;

use std::ffi::OsStr;

use crate::config::options::Stop;
use crate::config::values::quote;
use crate::config::{Acceptance, Options};
use crate::error::{path_text, Error};
use tokenizer::{usage, Arg, Line, Scan};

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
    /// `--from` (not in the C tool): run no benchmark; make the page and the verdict
    /// asked for from the results files given.
    FromFiles(Acceptance),
}

/// Parse the command line `args` (the arguments after `argv[0]`): [`Command::Help`] /
/// [`Command::Version`] as soon as `-h`/`--help` or `--version` is met (later arguments
/// are not examined), otherwise the mode or the run asked for.
/// # Errors
/// [`Error::Usage`] with a one-line message starting with `h5perf: ` for the first
/// problem, left to right: an unknown or unsupported option, a missing or invalid
/// value, a stray argument; then the checks of the whole line: `--fill-behaviour` or
/// `--from` with an option they do not take, `--strict` without `--fill-behaviour`,
/// `--from` with nothing to make, and those of [`check`].
pub fn parse<I, S>(args: I) -> Result<Command, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<Arg> = args.into_iter().map(|s| Arg::new(s.as_ref())).collect();
    let line = match tokenizer::scan(&args)? {
        Scan::Stopped(Stop::Help) => return Ok(Command::Help),
        Scan::Stopped(Stop::Version) => return Ok(Command::Version),
        Scan::Line(line) => *line,
    };
    let Line {
        options,
        modes,
        given,
    } = line;
    if modes.fill_behaviour {
        if let Some(def) = given.first() {
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
            "--strict applies only to --fill-behaviour (see h5perf --help)",
        ));
    }
    check(&options)?;
    let a = &options.acceptance;
    if !a.from.is_empty() {
        if let Some(def) = given.iter().find(|d| !FROM_OPTIONS.contains(&d.long)) {
            return Err(usage(format!(
                "--from runs no benchmark and takes only --html, --expect, --baseline, \
                 --tolerance and --within (got {})",
                def.label()
            )));
        }
        if a.html.is_none() && a.expect.is_empty() && a.baseline.is_none() {
            return Err(usage(
                "--from needs --html, --expect or --baseline (nothing to make)",
            ));
        }
        return Ok(Command::FromFiles(options.acceptance));
    }
    Ok(Command::Run(options))
}

/// The checks of options that no single option makes, for the command line and for a
/// configuration of the C API (`h5perf_run`): destinations that would clobber each
/// other (`--json -` with `--csv -`, two outputs naming one file), `--tolerance` or
/// `--within` without `--baseline`, and both of them (two rules for one comparison).
/// # Errors
/// [`Error::Usage`] with a one-line message starting with `h5perf: `.
pub fn check(o: &Options) -> Result<(), Error> {
    check_destinations(o)?;
    let a = &o.acceptance;
    if a.tolerance.is_some() && a.baseline.is_none() {
        return Err(usage(
            "--tolerance applies only with --baseline (see h5perf --help)",
        ));
    }
    if a.within.is_some() && a.baseline.is_none() {
        return Err(usage(
            "--within applies only with --baseline (see h5perf --help)",
        ));
    }
    if a.within.is_some() && a.tolerance.is_some() {
        return Err(usage(
            "--within and --tolerance are two rules for one baseline comparison: give one",
        ));
    }
    Ok(())
}

/// The options `--from` takes (long names).
const FROM_OPTIONS: [&str; 6] = ["from", "html", "expect", "baseline", "tolerance", "within"];

/// Refuse output destinations that would clobber each other: two documents on standard
/// output, or two of `-o`, `--json`, `--csv`, `--rank-csv`, `--html`, `--baseline`,
/// `--from` naming the same file (unless both are only read).
fn check_destinations(o: &Options) -> Result<(), Error> {
    let stdout = Some(OsStr::new(STDOUT));
    if o.json.as_deref() == stdout && o.csv.as_deref() == stdout {
        return Err(usage(
            "--json and --csv cannot both write to standard output ('-'); \
             give one of them a file name",
        ));
    }
    if o.rank_csv.as_deref() == stdout
        && (o.json.as_deref() == stdout || o.csv.as_deref() == stdout)
    {
        return Err(usage(
            "--rank-csv and --json/--csv cannot both write to standard output ('-'); \
             give one of them a file name",
        ));
    }
    let a = &o.acceptance;
    if a.html.as_deref() == stdout
        && [&o.json, &o.csv, &o.rank_csv]
            .iter()
            .any(|d| d.as_deref() == stdout)
    {
        return Err(usage(
            "--html and --json/--csv/--rank-csv cannot both write to standard output \
             ('-'); give one of them a file name",
        ));
    }
    let mut files = vec![
        ("-o/--output", o.output.as_deref()),
        ("--json", o.json.as_deref().filter(|f| *f != STDOUT)),
        ("--csv", o.csv.as_deref().filter(|f| *f != STDOUT)),
        ("--rank-csv", o.rank_csv.as_deref().filter(|f| *f != STDOUT)),
        ("--html", a.html.as_deref()),
        ("--baseline", a.baseline.as_deref()),
    ];
    files.extend(a.from.iter().map(|f| ("--from", Some(f.as_os_str()))));
    for (i, (a, fa)) in files.iter().enumerate() {
        for (b, fb) in &files[i + 1..] {
            if let (Some(fa), Some(fb)) = (fa, fb) {
                let read = |n: &str| ["--baseline", "--from"].contains(&n);
                let both_read = read(a) && read(b);
                // two outputs naming one device or FIFO (`/dev/null`) write through it
                let both_written_through = !read(a)
                    && !read(b)
                    && crate::output::paths::is_special(std::path::Path::new(fa));
                if fa == fb && !both_read && !both_written_through {
                    return Err(usage(format!(
                        "{a} and {b} name the same file {}; give them different names",
                        quote(&path_text(fa))
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Helpers of the unit tests of the command line and of the option table.
#[cfg(test)]
mod testing {
    use super::{parse, Command};
    use std::ffi::{OsStr, OsString};

    /// A file-name option's value as text (None: unset or not UTF-8).
    pub(crate) trait Text {
        fn text(&self) -> Option<&str>;
    }

    impl Text for Option<OsString> {
        fn text(&self) -> Option<&str> {
            self.as_deref().and_then(OsStr::to_str)
        }
    }
    use crate::config::Options;
    use crate::error::Error;

    /// Parse a whitespace-free argument list given as a slice; it must be a run.
    pub(crate) fn run(args: &[&str]) -> Options {
        match parse(args) {
            Ok(Command::Run(o)) => o,
            other => panic!("{args:?}: expected Run, got {other:?}"),
        }
    }

    /// The message of a refused argument list: one line starting with `h5perf: `.
    pub(crate) fn err(args: &[&str]) -> String {
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
    pub(crate) fn refused(args: &[&str], needles: &[&str]) {
        let m = err(args);
        for n in needles {
            assert!(m.contains(n), "{args:?}: message {m:?} lacks {n:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{refused, run, Text};

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
        assert_eq!(o.json.text(), Some("r.json"));
        assert_eq!(o.csv.text(), Some("r.csv"));
        let o = run(&["--js=a", "--cs", "b", "-e", "8"]);
        assert_eq!((o.json.text(), o.csv.text()), (Some("a"), Some("b")));
        assert_eq!(o.num_bytes, 8);
        // '-' (standard output) is taken as a separate value, and with '='
        assert_eq!(run(&["--json", "-"]).json.text(), Some(STDOUT));
        assert_eq!(run(&["--csv=-", "-w"]).csv.text(), Some(STDOUT));
        let o = run(&["--json", "-", "-w"]);
        assert!(o.write_only);
        assert_eq!(o.json.text(), Some("-"));
        // either one on standard output, the other in a file
        let o = run(&["--json", "-", "--csv", "r.csv"]);
        assert_eq!((o.json.text(), o.csv.text()), (Some("-"), Some("r.csv")));
        // the last one wins; '=' keeps a value starting with '-'
        assert_eq!(run(&["--json=a", "--json=b"]).json.text(), Some("b"));
        assert_eq!(run(&["--json=-x"]).json.text(), Some("-x"));
        assert_eq!(run(&["--csv= a b "]).csv.text(), Some(" a b "));
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
        assert_eq!((o.output.text(), o.json.text()), (Some("-"), Some("-")));
        // -h still wins when it comes after --json
        assert_eq!(parse(["--json", "x", "-h"]).unwrap(), Command::Help);
    }

    /// Long multibyte text through every message of the parser: each option with such a
    /// value (attached and separate, short and long forms), as an option name, in a
    /// cluster, as a stray argument, as a boolean word and after `--`. Nothing panics
    /// (a cut inside a character would); every refusal is one line naming the text's
    /// start.
    #[test]
    fn long_multibyte_text_through_every_message() {
        use crate::config::options::DEFS;
        for c in ["é", "€", "𝄞"] {
            for pad in ["", "x", "xy"] {
                let long = format!("{pad}{}", c.repeat(3000 / c.len()));
                let mut lines: Vec<Vec<String>> = vec![
                    vec![long.clone()],
                    vec![format!("--{long}")],
                    vec![format!("--{long}={long}")],
                    vec![format!("-{long}")],
                    vec![format!("-cC{long}")],
                    vec!["--".into(), long.clone()],
                    vec!["--fill-behaviour".into(), format!("-e{long}")],
                    vec![format!("--strict={long}")],
                ];
                for d in DEFS.iter() {
                    lines.push(vec![format!("--{}={long}", d.long)]);
                    lines.push(vec![format!("--{}", d.long), long.clone()]);
                    if let Some(s) = d.short {
                        lines.push(vec![format!("-{s}{long}")]);
                        lines.push(vec![format!("-{s}"), long.clone()]);
                    }
                }
                for args in &lines {
                    match parse(args) {
                        Err(Error::Usage(m)) => {
                            assert!(m.starts_with("h5perf: ") && !m.contains('\n'), "{m}");
                            // `--from NAME` alone is refused for what it lacks, not
                            // for its value
                            let about_value = !m.contains("--from needs");
                            assert!(
                                !about_value || m.contains(c),
                                "the message shows the text: {m}"
                            );
                        }
                        Err(e) => panic!("{args:?}: not a usage error: {e:?}"),
                        // file names and flags followed by a word they ignore are taken
                        Ok(_) => {}
                    }
                }
            }
        }
    }

    /// File-name options keep the argument's bytes, attached or separate; other values
    /// that are not UTF-8 are refused as text.
    #[test]
    fn file_names_are_bytes() {
        use std::ffi::OsString;
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let os = |b: &[u8]| OsString::from_vec(b.to_vec());
        let args = [
            os(b"-or\xff.txt"),
            os(b"--json=j\xe9.json"),
            os(b"--csv"),
            os(b"c\xfe.csv"),
            os(b"--rank-c"),
            os(b"\xff"),
            os(b"-wIo"),
            os(b"\x80r"),
        ];
        let Ok(Command::Run(o)) = parse(&args) else {
            panic!("refused")
        };
        assert_eq!(
            o.output.unwrap().as_bytes(),
            b"\x80r",
            "the last -o, in a cluster"
        );
        assert_eq!(o.json.unwrap().as_bytes(), b"j\xe9.json");
        assert_eq!(o.csv.unwrap().as_bytes(), b"c\xfe.csv");
        assert_eq!(o.rank_csv.unwrap().as_bytes(), b"\xff");
        assert!(o.write_only && o.interleaved);
        match parse([os(b"-e"), os(b"8\xff")]) {
            Err(Error::Usage(m)) => assert!(m.contains("-e/--num-bytes"), "{m}"),
            other => panic!("{other:?}"),
        }
        // the same bytes spelled alike are one file for the parser's check
        let m = match parse([os(b"--json=\xff"), os(b"--csv=\xff")]) {
            Err(Error::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(m.contains("'\\xff'"), "{m}");
        assert!(parse([os(b"--json=\xff"), os(b"--csv=\xfe")]).is_ok());
    }

    #[test]
    fn acceptance_options() {
        use crate::config::{Criterion, Percent};
        let o = run(&[
            "--expect",
            "mpiio.write>=2GB/s",
            "--ex=phdf5.read.min >= 1500 MiB/s @procs=4",
            "--baseline",
            "old.csv",
            "--tol",
            "2.5",
            "--html=r.html",
        ]);
        let a = &o.acceptance;
        assert_eq!(
            a.expect,
            [
                Criterion::parse("mpiio.write>=2GB/s").unwrap(),
                Criterion::parse("phdf5.read.min >= 1500 MiB/s @procs=4").unwrap()
            ]
        );
        assert_eq!(a.baseline.text(), Some("old.csv"));
        assert_eq!(a.tolerance, Some(Percent::parse("2.5").unwrap()));
        assert_eq!(a.html.text(), Some("r.html"));
        assert!(a.from.is_empty());
        // malformed criteria are refused with the reason
        refused(
            &["--expect", "mpiio.wirte>=2GB/s"],
            &["h5perf: invalid value 'mpiio.wirte>=2GB/s' for --expect: unknown phase 'wirte'"],
        );
        refused(
            &["--expect=posix.write>=2MB/s"],
            &["for --expect: 'MB/s' is ambiguous"],
        );
        refused(
            &["--expect"],
            &["missing value for --expect (expected a criterion such as mpiio.write>=2GB/s)"],
        );
        refused(
            &["--baseline", "b.csv", "--tolerance", "100"],
            &["invalid value '100' for --tolerance: must be below 100"],
        );
        refused(
            &["--tolerance", "5"],
            &["h5perf: --tolerance applies only with --baseline"],
        );
        refused(
            &["--within", "5"],
            &["h5perf: --within applies only with --baseline"],
        );
        refused(
            &["--baseline", "b.csv", "--within", "5", "--tolerance", "5"],
            &["h5perf: --within and --tolerance are two rules"],
        );
        refused(
            &["--html", ""],
            &["invalid value '' for --html: empty file name"],
        );
        refused(
            &["--html", "-", "--rank-csv=-"],
            &["--html and --json/--csv/--rank-csv cannot both write to standard output"],
        );
        refused(
            &["--html=-", "--rank-csv=-"],
            &["--html and --json/--csv/--rank-csv cannot both write to standard output"],
        );
        refused(
            &["--html", "r", "--csv", "r"],
            &["--csv and --html name the same file 'r'"],
        );
        refused(
            &["--html", "old.csv", "--baseline", "old.csv"],
            &["--html and --baseline name the same file 'old.csv'"],
        );
    }

    #[test]
    fn from_mode() {
        let Command::FromFiles(a) = parse([
            "--from",
            "r.csv",
            "--html",
            "p.html",
            "--fr=ranks.csv",
            "--expect",
            "posix.write>=1B/s",
        ])
        .unwrap() else {
            panic!("not --from")
        };
        assert_eq!(a.from, ["r.csv", "ranks.csv"]);
        assert_eq!(a.html.text(), Some("p.html"));
        assert_eq!(a.expect.len(), 1);
        // a baseline may be the --from file itself (both are only read)
        assert!(matches!(
            parse(["--from", "r.csv", "--baseline", "r.csv"]).unwrap(),
            Command::FromFiles(_)
        ));
        refused(
            &["--from", "r.csv", "--html", "p.html", "-e", "1M"],
            &["h5perf: --from runs no benchmark and takes only --html, --expect, --baseline, --tolerance and --within (got -e/--num-bytes)"],
        );
        refused(
            &["--csv", "x.csv", "--from", "r.csv", "--html", "p"],
            &["(got --csv)"],
        );
        refused(
            &["--from", "r.csv"],
            &["--from needs --html, --expect or --baseline"],
        );
        refused(
            &["--from", "r.csv", "--html", "r.csv"],
            &["--html and --from name the same file 'r.csv'"],
        );
        refused(
            &["--fill-behaviour", "--from", "r.csv"],
            &["takes no option but --strict (got --from)"],
        );
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
