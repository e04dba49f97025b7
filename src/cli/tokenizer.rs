//! argv → options (spec §1.1–§1.4, §11 defects fixed); [`set`]: one option by name.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::config::options::{self as defs, Action, Def, Modes, Stop, Switch, UNSUPPORTED};
use crate::config::values::ValueKind;
use crate::config::values::{bool_word, quote};
use crate::config::Options;
use crate::error::Error;

/// One argument: its bytes, and as text (non-UTF-8 bytes read as U+FFFD).
pub(super) struct Arg {
    text: String,
    raw: OsString,
}

impl Arg {
    pub(super) fn new(raw: &OsStr) -> Arg {
        Arg {
            text: raw.to_string_lossy().into_owned(),
            raw: raw.to_os_string(),
        }
    }

    /// The bytes of the argument's text suffix `tail` (after an ASCII option prefix).
    fn tail(&self, tail: &str) -> &OsStr {
        let prefix = self.text.len() - tail.len();
        debug_assert!(self.text.is_char_boundary(prefix) && self.text[..prefix].is_ascii());
        OsStr::from_bytes(&self.raw.as_bytes()[prefix..])
    }
}

/// What a whole command line gave.
pub(super) enum Scan {
    /// `-h`/`--help` or `--version` was met.
    Stopped(Stop),
    Line(Box<Line>),
}

/// The options of a command line read to its end.
#[derive(Default)]
pub(super) struct Line {
    pub(super) options: Options,
    pub(super) modes: Modes,
    /// Every option given but the modes, in order (for refusal messages).
    pub(super) given: Vec<&'static Def>,
}

type Args<'a> = std::iter::Peekable<std::slice::Iter<'a, Arg>>;

/// Read the command line `args` (after `argv[0]`) left to right.
/// # Errors
/// [`Error::Usage`] (`h5perf: ...`) for the first bad option, value or argument.
pub(super) fn scan(args: &[Arg]) -> Result<Scan, Error> {
    let mut line = Line::default();
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        let tok = arg.text.as_str();
        if tok == "--" {
            if let Some(next) = args.peek() {
                return Err(usage(format!(
                    "unexpected argument {} after '--' (h5perf takes options only; \
                     see h5perf --help)",
                    quote(&next.text)
                )));
            }
            break;
        }
        let stop = if let Some(body) = tok.strip_prefix("--") {
            long_option(&mut line, arg, body, &mut args)?
        } else if tok.len() > 1 && tok.starts_with('-') {
            short_options(&mut line, arg, &mut args)?
        } else {
            return Err(usage(format!(
                "unexpected argument {} (h5perf takes options only; see h5perf --help)",
                quote(tok)
            )));
        };
        if let Some(stop) = stop {
            return Ok(Scan::Stopped(stop));
        }
    }
    Ok(Scan::Line(Box::new(line)))
}

impl Line {
    fn switch(&mut self, def: &'static Def, switch: &Switch, on: bool) -> Option<Stop> {
        match switch {
            Switch::Stop(stop) => return Some(*stop),
            Switch::Mode(set) => set(&mut self.modes),
            Switch::Flag { apply, .. } => {
                self.given.push(def);
                apply(&mut self.options, on);
            }
        }
        None
    }

    /// Apply `def` with the value `v` (`None`: a bare `--reorder`); file names from `raw`.
    fn value(
        &mut self,
        def: &'static Def,
        v: Option<&str>,
        raw: Option<&Arg>,
    ) -> Result<(), Error> {
        self.given.push(def);
        let applied = match (&def.action, v, raw) {
            (Action::Value { apply, .. }, Some(v), _) => apply(&mut self.options, v),
            (Action::Name { apply, .. }, Some(v), Some(raw)) => {
                apply(&mut self.options, raw.tail(v))
            }
            (Action::Optional { apply, .. }, v, _) => apply(&mut self.options, v),
            _ => unreachable!("a value for an option that takes one"),
        };
        applied.map_err(|why| invalid(def, v.unwrap_or(""), &why.reason()))
    }
}

/// One token of short options (`-e8`, `-cCIw`, `-e`); may take the next argument as value.
fn short_options(line: &mut Line, tok_arg: &Arg, args: &mut Args) -> Result<Option<Stop>, Error> {
    let tok = tok_arg.text.as_str();
    let body = &tok[1..];
    let in_tok = if body.chars().count() > 1 {
        format!(" in {}", quote(tok))
    } else {
        String::new()
    };
    for (pos, c) in body.char_indices() {
        let def = short_def(c, &in_tok)?;
        match &def.action {
            Action::Switch(switch) => {
                if let Some(stop) = line.switch(def, switch, true) {
                    return Ok(Some(stop));
                }
            }
            Action::Value { kind, .. } | Action::Name { kind, .. } => {
                let rest = &body[pos + c.len_utf8()..];
                let (value, from) = if !rest.is_empty() {
                    (rest, tok_arg)
                } else if let Some(next) = args.next() {
                    (next.text.as_str(), next)
                } else {
                    return Err(missing(def, *kind));
                };
                line.value(def, Some(value), Some(from))?;
                return Ok(None);
            }
            Action::Optional { .. } => line.value(def, None, None)?,
        }
    }
    Ok(None)
}

/// One long option; `body` is the text after `--`. May take the next argument as value.
fn long_option(
    line: &mut Line,
    tok_arg: &Arg,
    body: &str,
    args: &mut Args,
) -> Result<Option<Stop>, Error> {
    let tok = tok_arg.text.as_str();
    let (name, attached) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let def = defs::by_long(name).ok_or_else(|| unknown(tok, ""))?;
    let kind = match &def.action {
        Action::Switch(switch @ Switch::Flag { words: true, .. }) => {
            let on = match attached {
                Some(v) => bool_word(v).ok_or_else(|| invalid(def, v, WORDS))?,
                None => match args.peek().and_then(|a| bool_word(&a.text)) {
                    Some(b) => {
                        args.next();
                        b
                    }
                    None => true,
                },
            };
            return Ok(line.switch(def, switch, on));
        }
        Action::Switch(switch) => {
            if let Some(v) = attached {
                return Err(invalid(def, v, "this option takes no value"));
            }
            return Ok(line.switch(def, switch, true));
        }
        Action::Optional { kind, .. } | Action::Value { kind, .. } | Action::Name { kind, .. } => {
            *kind
        }
    };
    let mut from = tok_arg;
    let value = match attached {
        Some("") => {
            return Err(usage(format!(
                "missing value for {} (expected {}; nothing follows '=' in {})",
                def.label(),
                kind.expected(),
                quote(tok)
            )))
        }
        Some(v) => Some(v),
        // a separate number is not taken (the value is optional): say how to give it
        None if def.optional_value() => match args.peek() {
            Some(next) if next.text.trim().starts_with(|c: char| c.is_ascii_digit()) => {
                return Err(usage(format!(
                    "unexpected argument {} after {} (its value is optional and must be \
                     attached: write --{}={})",
                    quote(&next.text),
                    def.label(),
                    def.long,
                    next.text.trim()
                )))
            }
            _ => None,
        },
        None => match args.peek() {
            Some(&next) if !next.text.starts_with('-') || kind.takes_stdout(&next.text) => {
                args.next();
                from = next;
                Some(next.text.as_str())
            }
            Some(next) => {
                return Err(usage(format!(
                    "missing value for {} (expected {}; the next argument {} starts \
                     with '-' and is not taken as a value, write --{}=VALUE)",
                    def.label(),
                    kind.expected(),
                    quote(&next.text),
                    def.long
                )))
            }
            None => return Err(missing(def, kind)),
        },
    };
    line.value(def, value, Some(from))?;
    Ok(None)
}

pub(super) fn usage(msg: impl std::fmt::Display) -> Error {
    Error::Usage(format!("h5perf: {msg}"))
}

const WORDS: &str = "expected no value, or one of 1, yes, true, on (turn on) or 0, no, false, \
                     off (turn off)";

/// `h5perf: missing value for -e/--num-bytes (expected a size)`.
fn missing(def: &Def, kind: ValueKind) -> Error {
    usage(format!(
        "missing value for {} (expected {})",
        def.label(),
        kind.expected()
    ))
}

/// Set one option of `o` by name as `h5perf_config_set` gives it (`o` unchanged if refused).
/// # Errors
/// [`Error::Usage`] with the command line's message; `--from`-style options are refused.
pub fn set(o: &mut Options, option: &str, value: Option<&OsStr>) -> Result<(), Error> {
    let mut chars = option.strip_prefix('-').unwrap_or(option).chars();
    let def = match (chars.next(), chars.next()) {
        (Some(c), None) if !option.starts_with("--") => short_def(c, "")?,
        _ => {
            let shown = match option.starts_with('-') {
                true => option.to_string(),
                false => format!("--{option}"),
            };
            let name = option.strip_prefix("--").unwrap_or(option);
            defs::by_long(name).ok_or_else(|| unknown(&shown, ""))?
        }
    };
    let not_a_run = def.long == "from"
        || matches!(
            def.action,
            Action::Switch(Switch::Stop(_) | Switch::Mode(_))
        );
    if not_a_run {
        return Err(usage(format!("{} does not configure a run", def.label())));
    }
    let arg = value.map(Arg::new);
    let mut line = Line {
        options: o.clone(),
        ..Line::default()
    };
    match (&def.action, &arg) {
        (Action::Switch(switch), None) => {
            line.switch(def, switch, true);
        }
        (Action::Switch(switch), Some(a)) => {
            let on = bool_word(&a.text).ok_or_else(|| invalid(def, &a.text, WORDS))?;
            line.switch(def, switch, on);
        }
        (Action::Value { kind, .. } | Action::Name { kind, .. }, None) => {
            return Err(missing(def, *kind))
        }
        (Action::Value { .. } | Action::Name { .. }, Some(a)) => {
            line.value(def, Some(&a.text), Some(a))?
        }
        (Action::Optional { .. }, a) => {
            line.value(def, a.as_ref().map(|a| a.text.as_str()), None)?
        }
    }
    *o = line.options;
    Ok(())
}

/// The option with the short letter `c`; `in_tok` names its cluster.
fn short_def(c: char, in_tok: &str) -> Result<&'static Def, Error> {
    if UNSUPPORTED.contains(&c) {
        return Err(usage(format!(
            "option '-{c}'{in_tok} is not supported by this version of h5perf \
             (see h5perf --help)"
        )));
    }
    defs::by_short(c).ok_or_else(|| unknown(&format!("-{c}"), in_tok))
}

/// `h5perf: unknown option '<tok>'<in_tok> (see h5perf --help)`.
fn unknown(tok: &str, in_tok: &str) -> Error {
    usage(format!(
        "unknown option {}{in_tok} (see h5perf --help)",
        quote(tok)
    ))
}

/// `h5perf: invalid value '<v>' for -e/--num-bytes: <why>`; a value longer than
/// [`SHOWN_BYTES`] is shown by its first 64 characters and its length.
fn invalid(def: &Def, v: &str, why: &str) -> Error {
    let shown = if v.len() > SHOWN_BYTES {
        let head: String = v.chars().take(64).collect();
        format!("{}... ({} bytes)", quote(&head), v.len())
    } else {
        quote(v)
    };
    usage(format!("invalid value {shown} for {}: {why}", def.label()))
}

/// The longest value a refusal repeats whole (bytes).
const SHOWN_BYTES: usize = 1024;

#[cfg(test)]
mod tests {
    use crate::cli::{err, refused, run, Text};
    use crate::cli::{parse, Command};
    use crate::config::Options;

    #[test]
    fn help_and_version() {
        assert_eq!(parse(["-h"]).unwrap(), Command::Help);
        assert_eq!(parse(["--help"]).unwrap(), Command::Help);
        assert_eq!(parse(["--he"]).unwrap(), Command::Help);
        assert_eq!(parse(["-cCh"]).unwrap(), Command::Help);
        assert_eq!(parse(["-e", "8", "-h", "junk"]).unwrap(), Command::Help);
        assert_eq!(parse(["--version"]).unwrap(), Command::Version);
        assert_eq!(parse(["--ve"]).unwrap(), Command::Version);
        assert_eq!(parse(["--vers"]).unwrap(), Command::Version);
        refused(&["--v"], &["unknown option '--v'"]);
        refused(&["--h"], &["unknown option '--h'"]);
        refused(&["--versions"], &["unknown option '--versions'"]);
        refused(
            &["--help=1"],
            &["invalid value '1' for -h/--help", "takes no value"],
        );
        refused(&["--version=x"], &["invalid value 'x' for --version"]);
        // an error before -h wins (left to right)
        refused(&["-e", "1Q", "-h"], &["-e/--num-bytes"]);
        // -V is not a short form of --version
        refused(&["-V"], &["unknown option '-V'"]);
    }

    #[test]
    fn num_bytes_spellings() {
        for args in [
            &["-e256K"][..],
            &["-e", "256K"],
            &["--num-bytes=256K"],
            &["--num-bytes", "256K"],
            &["--num-b=256k"],
            &["--num-byt", "256k"],
        ] {
            assert_eq!(run(args).num_bytes, 262_144, "{args:?}");
        }
    }

    #[test]
    fn abbreviation_boundaries() {
        // (full name, minimum prefix, extended spelling, value or None for flags)
        let table: [(&str, &str, Option<&str>); 22] = [
            ("align", "al", Some("8")),
            ("api", "ap", Some("posix")),
            ("block-size", "bl", Some("8")),
            ("chunk", "ch", None),
            ("collective", "co", None),
            ("debug", "de", Some("1")),
            ("geometry", "ge", None),
            ("help", "he", None),
            ("interleaved", "in", None),
            ("max-num-processes", "max-num-p", Some("4")),
            ("min-num-processes", "min-num-p", Some("4")),
            ("max-xfer-size", "max-x", Some("8")),
            ("min-xfer-size", "min-x", Some("8")),
            ("num-bytes", "num-b", Some("8")),
            ("num-dsets", "num-d", Some("8")),
            ("num-files", "num-f", Some("8")),
            ("num-iterations", "num-i", Some("8")),
            ("output", "ou", Some("f")),
            ("threshold", "th", Some("8")),
            ("write-only", "wr", None),
            ("json", "js", Some("f")),
            ("csv", "cs", Some("f")),
        ];
        for (full, min, value) in table {
            assert!(full.starts_with(min));
            // every spelling from the minimum prefix to the full name is accepted
            for len in min.len()..=full.len() {
                let spelled = format!("--{}", &full[..len]);
                let r = match value {
                    Some(v) => parse([spelled.clone(), v.to_string()]),
                    None => parse([spelled.clone()]),
                };
                assert!(r.is_ok(), "{spelled}: {r:?}");
            }
            // one character shorter than the minimum is unknown
            let short = format!("--{}", &min[..min.len() - 1]);
            refused(&[&short, "8"], &["unknown option", &format!("'{short}'")]);
            // an extended spelling is unknown
            let long = format!("--{full}X");
            refused(&[&long, "8"], &["unknown option", &format!("'{long}'")]);
            let longer = format!("--{min}zzz=1");
            refused(&[&longer], &["unknown option", &format!("'{longer}'")]);
        }
        refused(
            &["--chunky"],
            &["unknown option '--chunky' (see h5perf --help)"],
        );
        refused(&["--alignXYZ", "5"], &["unknown option '--alignXYZ'"]);
        refused(&["--c"], &["unknown option '--c'"]);
        refused(&["--a=3"], &["unknown option '--a=3'"]);
        refused(
            &["--num-bytesXYZ=4K"],
            &["unknown option '--num-bytesXYZ=4K'"],
        );
        refused(&["--num-", "4"], &["unknown option '--num-'"]);
        refused(&["--max-num-", "4"], &["unknown option '--max-num-'"]);
        refused(&["--=4"], &["unknown option '--=4'"]);
        refused(&["---e", "4"], &["unknown option '---e'"]);
        refused(&["--NUM-BYTES=4"], &["unknown option '--NUM-BYTES=4'"]);
        assert_eq!(run(&["--num-b=4K"]).num_bytes, 4096);
    }

    #[test]
    fn clustering() {
        let o = run(&["-cCIw"]);
        assert!(o.chunk && o.collective && o.interleaved && o.write_only && !o.dim2d);
        let o = run(&["-cCIwe8"]);
        assert!(o.chunk && o.collective && o.interleaved && o.write_only);
        assert_eq!(o.num_bytes, 8);
        let o = run(&["-cCIwe", "8K", "-g"]);
        assert_eq!(o.num_bytes, 8192);
        assert!(o.dim2d);
        // a value letter inside a cluster takes the rest of the token
        refused(
            &["-ecC"],
            &["invalid value 'cC' for -e/--num-bytes: no digits"],
        );
        refused(
            &["-cb"],
            &["unknown option '-b' in '-cb' (see h5perf --help)"],
        );
        refused(
            &["-b"],
            &["h5perf: unknown option '-b' (see h5perf --help)"],
        );
        refused(&["-:"], &["unknown option '-:'"]);
        refused(&["-cé"], &["unknown option '-é' in '-cé'"]);
    }

    #[test]
    fn unsupported_letters() {
        for c in ["m", "s", "t"] {
            let m = err(&[&format!("-{c}")]);
            assert_eq!(
                m,
                format!(
                    "h5perf: option '-{c}' is not supported by this version of h5perf \
                     (see h5perf --help)"
                )
            );
        }
        refused(&["-cm"], &["option '-m' in '-cm' is not supported"]);
    }

    #[test]
    fn missing_values() {
        refused(
            &["-e"],
            &["h5perf: missing value for -e/--num-bytes (expected a size)"],
        );
        refused(&["-cCe"], &["missing value for -e/--num-bytes"]);
        refused(
            &["-A"],
            &["missing value for -A/--api (expected a list of APIs)"],
        );
        refused(
            &["-i"],
            &["missing value for -i/--num-iterations (expected a whole number)"],
        );
        refused(
            &["--num-bytes"],
            &["missing value for -e/--num-bytes (expected a size)"],
        );
        refused(
            &["--num-bytes="],
            &["missing value for -e/--num-bytes", "'--num-bytes='"],
        );
        refused(
            &["--num-bytes", "-5"],
            &[
                "missing value for -e/--num-bytes",
                "'-5' starts with '-'",
                "--num-bytes=VALUE",
            ],
        );
        refused(
            &["--num-b", "-c"],
            &["missing value for -e/--num-bytes", "'-c'"],
        );
        refused(
            &["--threshold", "--chunk"],
            &["missing value for -T/--threshold"],
        );
        refused(&["--api", "-"], &["missing value for -A/--api"]);
    }

    #[test]
    fn flags_refuse_values() {
        refused(
            &["--chunk=1"],
            &["h5perf: invalid value '1' for -c/--chunk: this option takes no"],
        );
        refused(
            &["--ch="],
            &["invalid value '' for -c/--chunk: this option takes no value"],
        );
        refused(
            &["--collective=yes"],
            &["'yes' for -C/--collective: this option takes no"],
        );
        refused(
            &["--geometry=2"],
            &["'2' for -g/--geometry: this option takes no value"],
        );
        // a following word is not a value of a plain flag: it is a stray argument
        refused(&["--chunk", "1"], &["unexpected argument '1'"]);
    }

    #[test]
    fn interleaved_and_write_only_boolean_values() {
        assert!(!run(&["--interleaved=0"]).interleaved);
        assert!(!run(&["-I", "--interleaved=0"]).interleaved);
        assert!(run(&["--in=yes"]).interleaved);
        assert!(run(&["--in=TRUE"]).interleaved);
        assert!(run(&["--interleaved=On"]).interleaved);
        assert!(run(&["--interleaved=1"]).interleaved);
        assert!(!run(&["--in=no"]).interleaved);
        assert!(!run(&["--in=False"]).interleaved);
        assert!(!run(&["--in=OFF"]).interleaved);
        assert!(run(&["--wr=yes"]).write_only);
        assert!(!run(&["--wr=no"]).write_only);
        assert!(!run(&["-w", "--write-only=off"]).write_only);
        // the next token is consumed when it is a boolean word
        let o = run(&["--write-only", "1", "-e", "8"]);
        assert!(o.write_only);
        assert_eq!(o.num_bytes, 8);
        assert!(!run(&["--write-only", "no"]).write_only);
        assert!(!run(&["-I", "--interleaved", "0"]).interleaved);
        assert!(run(&["--interleaved", "YES"]).interleaved);
        // otherwise the next token is left alone
        let o = run(&["--interleaved", "-e", "8"]);
        assert!(o.interleaved);
        assert_eq!(o.num_bytes, 8);
        refused(&["--interleaved", "junk"], &["unexpected argument 'junk'"]);
        refused(
            &["--in=maybe"],
            &["invalid value 'maybe' for -I/--interleaved: expected no value, or one of 1, yes"],
        );
        refused(&["--in="], &["invalid value '' for -I/--interleaved"]);
        refused(
            &["--write-only=2"],
            &["invalid value '2' for -w/--write-only"],
        );
        // the short forms never take a value
        refused(&["-I", "1"], &["unexpected argument '1'"]);
    }

    #[test]
    fn stray_arguments_refused() {
        refused(
            &["foo", "-I"],
            &["h5perf: unexpected argument 'foo' (h5perf takes options only; see h5perf --help)"],
        );
        refused(&["-e", "8", "foo"], &["unexpected argument 'foo'"]);
        refused(&["-", "-I"], &["unexpected argument '-'"]);
        refused(&["-I", "-"], &["unexpected argument '-'"]);
        refused(&["-I", ""], &["unexpected argument ''"]);
        refused(
            &["-e", "8", "bar\nbaz"],
            &["unexpected argument 'bar\\nbaz'"],
        );
    }

    #[test]
    fn double_dash() {
        let o = run(&["-I", "--"]);
        assert!(o.interleaved);
        assert_eq!(run(&["--"]), Options::default());
        refused(&["--", "-I"], &["unexpected argument '-I' after '--'"]);
        refused(
            &["-e", "8", "--", "foo"],
            &["unexpected argument 'foo' after '--'"],
        );
        // "--" is a value when a short option needs one (taken unconditionally)
        refused(&["-e", "--"], &["invalid value '--' for -e/--num-bytes"]);
        assert_eq!(run(&["-o", "--"]).output.text(), Some("--"));
    }

    /// The keyed setter's result for `option` and `value`: the options, or the message.
    fn keyed(o: &Options, option: &str, value: Option<&str>) -> Result<Options, String> {
        let mut o = o.clone();
        match crate::cli::set(&mut o, option, value.map(std::ffi::OsStr::new)) {
            Ok(()) => Ok(o),
            Err(crate::error::Error::Usage(m)) => Err(m),
            Err(e) => panic!("{option}: not a usage error: {e:?}"),
        }
    }

    #[test]
    fn keyed_setter_sets_every_option_as_the_command_line() {
        use crate::config::options::{Action, Switch, DEFS};
        use crate::config::values::ValueKind;
        let none = Options::default();
        for d in &DEFS {
            let sample = match d.action {
                Action::Switch(Switch::Flag { .. }) => None,
                Action::Switch(_) => {
                    let m = keyed(&none, d.long, None).unwrap_err();
                    assert_eq!(m, format!("h5perf: {} does not configure a run", d.label()));
                    continue;
                }
                Action::Value { kind, .. }
                | Action::Name { kind, .. }
                | Action::Optional { kind, .. } => Some(match kind {
                    ValueKind::Size => "4K",
                    ValueKind::Int | ValueKind::Shift => "3",
                    ValueKind::ApiList => "posix,mpiio",
                    ValueKind::DebugList => "2,t",
                    ValueKind::File | ValueKind::Destination => "r.out",
                    ValueKind::FillValue => "7",
                    ValueKind::FillTime => "never",
                    ValueKind::AllocTime => "late",
                    ValueKind::Criterion => "posix.write>=1B/s",
                    ValueKind::Percent => "5",
                    ValueKind::Seconds => "2",
                    ValueKind::Hint => "cb_nodes=1",
                    ValueKind::Label => "sut=array-3",
                    ValueKind::Payload => "incompressible",
                    ValueKind::ChunkCache => "1M,521,0.5",
                    ValueKind::Phases => "read",
                    ValueKind::Interval => "10ms",
                }),
            };
            if d.long == "from" {
                let m = keyed(&none, "from", sample).unwrap_err();
                assert_eq!(m, "h5perf: --from does not configure a run");
                continue;
            }
            let arg = match sample {
                Some(v) => format!("--{}={v}", d.long),
                None => format!("--{}", d.long),
            };
            let mut args = vec![arg.as_str()];
            if d.long == "tolerance" || d.long == "within" {
                args.extend(["--baseline", "b.csv"]);
            }
            let want = run(&args);
            let mut got = keyed(&none, d.long, sample).unwrap();
            if d.long == "tolerance" || d.long == "within" {
                got = keyed(&got, "baseline", Some("b.csv")).unwrap();
            }
            assert_eq!(got, want, "{arg}");
            assert_ne!(got, none, "{arg} changes nothing");
            // the short letter and the minimum abbreviation name the same option
            if let Some(c) = d.short {
                assert_eq!(
                    keyed(&none, &c.to_string(), sample).unwrap(),
                    keyed(&none, d.long, sample).unwrap()
                );
                assert_eq!(
                    keyed(&none, &format!("-{c}"), sample).unwrap(),
                    keyed(&none, d.long, sample).unwrap()
                );
            }
            let abbrev = &d.long[..d.min];
            assert_eq!(
                keyed(&none, abbrev, sample).unwrap(),
                keyed(&none, &format!("--{}", d.long), sample).unwrap()
            );
        }
    }

    #[test]
    fn keyed_setter_turns_flags_off_and_keeps_options_on_refusal() {
        let o = keyed(&Options::default(), "fsync", None).unwrap();
        let o = keyed(&o, "direct", Some("yes")).unwrap();
        assert!(o.storage.fsync && o.storage.direct);
        let off = keyed(&o, "--fsync", Some("0")).unwrap();
        assert!(!off.storage.fsync && off.storage.direct);
        assert!(keyed(&o, "c", Some("on")).unwrap().chunk);
        let n = keyed(&o, "n", Some("1")).unwrap();
        assert_eq!(n.fill, run(&["-n"]).fill);
        assert_eq!(keyed(&n, "no-fill", Some("off")).unwrap().fill, o.fill);
        let alloc = keyed(&o, "fill-time", Some("alloc")).unwrap();
        assert_eq!(keyed(&alloc, "no-fill", Some("0")).unwrap(), alloc);
        // refusals: the command line's message, nothing changed (keyed takes a copy)
        for (option, value, args) in [
            ("nosuch", None, &["--nosuch"][..]),
            ("--re", None, &["--re"]),
            ("num-bytes", Some("12Q"), &["--num-bytes=12Q"]),
            ("e", None, &["-e"]),
            ("align", Some("0"), &["-a", "0"]),
            ("json", Some(""), &["--json", ""]),
            ("m", None, &["-m"]),
            ("-q", None, &["-q"]),
            ("interleaved", Some("maybe"), &["--interleaved=maybe"]),
            ("reorder", Some("0"), &["--reorder=0"]),
            ("A", Some("hdf4"), &["-A", "hdf4"]),
        ] {
            assert_eq!(keyed(&o, option, value).unwrap_err(), err(args), "{option}");
        }
        // a flag given a word it does not know
        assert_eq!(
            keyed(&o, "fsync", Some("2")).unwrap_err(),
            "h5perf: invalid value '2' for --fsync: expected no value, or one of 1, yes, \
             true, on (turn on) or 0, no, false, off (turn off)"
        );
    }
}
