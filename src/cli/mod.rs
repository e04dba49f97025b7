//! The command-line parser of h5perf (spec §1) and its help text (spec §1.10).
//!
//! The syntax is that of the C h5perf of HDF5 1.10.8 — short options, clusters, long
//! options with minimum prefixes, sizes with K/M/G suffixes — with the reference's
//! defects fixed (spec §11): stray arguments and malformed values are refused instead of
//! being ignored or read as nonsense, `--interleaved` and `--write-only` are flags, and
//! every refusal is a single line starting with `h5perf: `.
//!
//! Parsing is pure: no I/O, no MPI, no environment. Defaults and clamping are applied
//! later by [`crate::params::Params::resolve`] (spec §1.9).

use crate::error::Error;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
use crate::config::{Api, Options};

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run the benchmark with these (not yet defaulted) options.
    Run(Options),
    /// `-h` / `--help`: print [`help_text`] (spec §1.10).
    Help,
    /// `--version` (not in the C tool): print the version.
    Version,
    /// `--fill-behaviour` (not in the C tool): observe when the linked HDF5 writes fill
    /// values and compare with HDF5's documented tables ([`crate::fill::run_mode`]);
    /// `strict` (`--strict`): exit with status 1 when anything differs.
    FillBehaviour {
        /// `--strict` was given.
        strict: bool,
    },
}

/// What an option does with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A size (spec §1.5), parsed by [`parse_size`].
    Size,
    /// A whole number (spec §1.6).
    Int,
    /// The `-A` API list (spec §1.7).
    ApiList,
    /// The `-D` debug list (spec §1.8).
    DebugList,
    /// A file name.
    File,
    /// A flag without value.
    Flag,
    /// A flag that also accepts a boolean word as long option (`--interleaved=1`).
    BoolFlag,
    /// `--fill-value`: a byte 0..=255 or `undefined`.
    FillValue,
    /// `--fill-time`: `never`, `ifset` or `alloc`.
    FillTime,
    /// `--alloc-time`: `default`, `early`, `incr` or `late`.
    AllocTime,
}

impl Kind {
    fn takes_value(self) -> bool {
        !matches!(self, Kind::Flag | Kind::BoolFlag)
    }

    /// What the value should be, for "missing value" messages.
    fn expected(self) -> &'static str {
        match self {
            Kind::Size => "a size",
            Kind::Int => "a whole number",
            Kind::ApiList => "a list of APIs",
            Kind::DebugList => "a list of debug flags",
            Kind::File => "a file name",
            Kind::FillValue => "a byte value 0-255 or undefined",
            Kind::FillTime => "never, ifset or alloc",
            Kind::AllocTime => "default, early, incr or late",
            Kind::Flag | Kind::BoolFlag => "nothing",
        }
    }
}

/// Which setting an option changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id {
    Align,
    Api,
    BlockSize,
    Chunk,
    Collective,
    Debug,
    Geometry,
    Help,
    Csv,
    Interleaved,
    Json,
    MaxProcs,
    MinProcs,
    MaxXfer,
    MinXfer,
    NumBytes,
    NumDsets,
    NumFiles,
    NumIters,
    Output,
    Threshold,
    WriteOnly,
    Version,
    FillValue,
    FillTime,
    AllocTime,
    NoFill,
    FillBehaviour,
    Strict,
}

/// One option: short letter (if any), full long name, minimum long prefix (spec §1.3).
struct Opt {
    short: Option<char>,
    long: &'static str,
    min: usize,
    kind: Kind,
    id: Id,
}

const fn opt(short: Option<char>, long: &'static str, min: usize, kind: Kind, id: Id) -> Opt {
    Opt {
        short,
        long,
        min,
        kind,
        id,
    }
}

/// The option table. Two names share at most a prefix shorter than the larger of their
/// minimum prefixes (`--al` is `--align`, `--allo` is `--alloc-time`), so a long
/// spelling matches at most one entry (checked by unit tests).
const OPTS: [Opt; 29] = [
    opt(Some('a'), "align", 2, Kind::Size, Id::Align),
    opt(Some('A'), "api", 2, Kind::ApiList, Id::Api),
    opt(Some('B'), "block-size", 2, Kind::Size, Id::BlockSize),
    opt(Some('c'), "chunk", 2, Kind::Flag, Id::Chunk),
    opt(Some('C'), "collective", 2, Kind::Flag, Id::Collective),
    opt(Some('D'), "debug", 2, Kind::DebugList, Id::Debug),
    opt(Some('g'), "geometry", 2, Kind::Flag, Id::Geometry),
    opt(Some('h'), "help", 2, Kind::Flag, Id::Help),
    opt(Some('I'), "interleaved", 2, Kind::BoolFlag, Id::Interleaved),
    opt(Some('P'), "max-num-processes", 9, Kind::Int, Id::MaxProcs),
    opt(Some('p'), "min-num-processes", 9, Kind::Int, Id::MinProcs),
    opt(Some('X'), "max-xfer-size", 5, Kind::Size, Id::MaxXfer),
    opt(Some('x'), "min-xfer-size", 5, Kind::Size, Id::MinXfer),
    opt(Some('e'), "num-bytes", 5, Kind::Size, Id::NumBytes),
    opt(Some('d'), "num-dsets", 5, Kind::Int, Id::NumDsets),
    opt(Some('F'), "num-files", 5, Kind::Int, Id::NumFiles),
    opt(Some('i'), "num-iterations", 5, Kind::Int, Id::NumIters),
    opt(Some('o'), "output", 2, Kind::File, Id::Output),
    opt(Some('T'), "threshold", 2, Kind::Size, Id::Threshold),
    opt(Some('w'), "write-only", 2, Kind::BoolFlag, Id::WriteOnly),
    opt(None, "version", 2, Kind::Flag, Id::Version),
    opt(None, "json", 2, Kind::File, Id::Json),
    opt(None, "csv", 2, Kind::File, Id::Csv),
    opt(None, "fill-value", 6, Kind::FillValue, Id::FillValue),
    opt(None, "fill-time", 6, Kind::FillTime, Id::FillTime),
    opt(None, "alloc-time", 4, Kind::AllocTime, Id::AllocTime),
    opt(Some('n'), "no-fill", 4, Kind::Flag, Id::NoFill),
    opt(None, "fill-behaviour", 6, Kind::Flag, Id::FillBehaviour),
    opt(None, "strict", 2, Kind::Flag, Id::Strict),
];

/// The value of `--json`/`--csv` that means standard output.
pub const STDOUT: &str = "-";

/// Letters the C tool accepted without implementing them (spec §1.2); `-n` is now
/// `--no-fill`.
const UNSUPPORTED: [char; 3] = ['m', 's', 't'];

/// The hint appended to size refusals.
const SIZE_HINT: &str = "(a size is a number with an optional K, M or G suffix)";

/// The valid `-A` names, for messages.
const API_NAMES: &str = "posix, mpiio, phdf5";

/// Boolean words accepted by `--interleaved` / `--write-only` (case-insensitive).
const TRUE_WORDS: [&str; 4] = ["1", "yes", "true", "on"];
const FALSE_WORDS: [&str; 4] = ["0", "no", "false", "off"];

impl Opt {
    /// `-e/--num-bytes`, or `--version` for an option without short form.
    fn label(&self) -> String {
        match self.short {
            Some(c) => format!("-{c}/--{}", self.long),
            None => format!("--{}", self.long),
        }
    }

    /// Whether `name` (text after `--`, without `=VALUE`) spells this option: a prefix of
    /// the full name at least as long as the minimum prefix.
    fn matches_long(&self, name: &str) -> bool {
        name.len() >= self.min && self.long.starts_with(name)
    }
}

/// Parse the command line (spec §1, defects of §11 fixed). `args` are the arguments
/// after `argv[0]`.
///
/// Returns [`Command::Help`] / [`Command::Version`] as soon as `-h`/`--help` or
/// `--version` is met (later arguments are not examined), otherwise
/// [`Command::Run`] with the options given, not yet defaulted or clamped.
///
/// # Errors
/// [`Error::Usage`] with a one-line message starting with `h5perf: ` for the first
/// problem found, left to right: an unknown or unsupported option, a missing or invalid
/// value (the message names the option as `-e/--num-bytes` and quotes the value), or a
/// stray non-option argument; then, after the whole line, `--json -` with `--csv -`, or
/// two of `-o`, `--json`, `--csv` naming the same file.
pub fn parse<I, S>(args: I) -> Result<Command, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let args: Vec<String> = args.into_iter().map(|s| s.as_ref().to_string()).collect();
    let mut o = State::default();
    let mut i = 0;
    while i < args.len() {
        let tok = args[i].as_str();
        i += 1;
        if tok == "--" {
            if let Some(next) = args.get(i) {
                return Err(usage(format!(
                    "unexpected argument {} after '--' (h5perf takes options only; \
                     see h5perf --help)",
                    quote(next)
                )));
            }
            break;
        }
        let done = if let Some(body) = tok.strip_prefix("--") {
            parse_long(&mut o, tok, body, &args, &mut i)?
        } else if tok.len() > 1 && tok.starts_with('-') {
            parse_short(&mut o, tok, &args, &mut i)?
        } else {
            return Err(usage(format!(
                "unexpected argument {} (h5perf takes options only; see h5perf --help)",
                quote(tok)
            )));
        };
        if let Some(cmd) = done {
            return Ok(cmd);
        }
    }
    if o.fill_mode {
        if let Some(other) = o.other {
            return Err(usage(format!(
                "--fill-behaviour runs no benchmark and takes no option but --strict \
                 (got {other})"
            )));
        }
        return Ok(Command::FillBehaviour { strict: o.strict });
    }
    if o.strict {
        return Err(usage(
            "--strict applies only to --fill-behaviour (see h5perf --help)".to_string(),
        ));
    }
    check_destinations(&o.o)?;
    Ok(Command::Run(o.o))
}

/// What the parser has collected so far.
#[derive(Default)]
struct State {
    /// The benchmark's options.
    o: Options,
    /// `--fill-behaviour` was given.
    fill_mode: bool,
    /// `--strict` was given.
    strict: bool,
    /// The first option other than `--fill-behaviour`/`--strict`, as `-e/--num-bytes`.
    other: Option<String>,
}

impl State {
    /// Note that `opt` was given (for the `--fill-behaviour` check).
    fn saw(&mut self, opt: &Opt) {
        if !matches!(opt.id, Id::FillBehaviour | Id::Strict) && self.other.is_none() {
            self.other = Some(opt.label());
        }
    }
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
    let files = [
        ("-o/--output", o.output.as_deref()),
        ("--json", o.json.as_deref().filter(|f| *f != STDOUT)),
        ("--csv", o.csv.as_deref().filter(|f| *f != STDOUT)),
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

/// One token of short options (`-e8`, `-cCIw`, `-e`), starting with `-`. Takes the
/// next argument as value when the value letter ends the token.
fn parse_short(
    o: &mut State,
    tok: &str,
    args: &[String],
    i: &mut usize,
) -> Result<Option<Command>, Error> {
    let body = &tok[1..];
    let in_tok = if body.chars().count() > 1 {
        format!(" in {}", quote(tok))
    } else {
        String::new()
    };
    for (pos, c) in body.char_indices() {
        if UNSUPPORTED.contains(&c) {
            return Err(usage(format!(
                "option '-{c}'{in_tok} is not supported by this version of h5perf \
                 (see h5perf --help)"
            )));
        }
        let Some(opt) = OPTS.iter().find(|p| p.short == Some(c)) else {
            return Err(usage(format!(
                "unknown option {}{in_tok} (see h5perf --help)",
                quote(&format!("-{c}"))
            )));
        };
        o.saw(opt);
        if !opt.kind.takes_value() {
            if let Some(cmd) = set_flag(o, opt.id, true) {
                return Ok(Some(cmd));
            }
            continue;
        }
        let rest = &body[pos + c.len_utf8()..];
        let value = if !rest.is_empty() {
            rest
        } else if let Some(next) = args.get(*i) {
            *i += 1;
            next.as_str()
        } else {
            return Err(usage(format!(
                "missing value for {} (expected {})",
                opt.label(),
                opt.kind.expected()
            )));
        };
        set_value(&mut o.o, opt, value)?;
        return Ok(None);
    }
    Ok(None)
}

/// One long option; `tok` is the whole token, `body` the text after `--`. May take the
/// next argument as value.
fn parse_long(
    o: &mut State,
    tok: &str,
    body: &str,
    args: &[String],
    i: &mut usize,
) -> Result<Option<Command>, Error> {
    let (name, attached) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let Some(opt) = OPTS.iter().find(|p| p.matches_long(name)) else {
        return Err(usage(format!(
            "unknown option {} (see h5perf --help)",
            quote(tok)
        )));
    };
    o.saw(opt);
    match opt.kind {
        Kind::Flag => {
            if let Some(v) = attached {
                return Err(invalid(opt, v, "this option takes no value"));
            }
            Ok(set_flag(o, opt.id, true))
        }
        Kind::BoolFlag => {
            let on = match attached {
                Some(v) => bool_word(v).ok_or_else(|| {
                    invalid(
                        opt,
                        v,
                        "expected no value, or one of 1, yes, true, on \
                         (turn on) or 0, no, false, off (turn off)",
                    )
                })?,
                None => match args.get(*i).and_then(|n| bool_word(n)) {
                    Some(b) => {
                        *i += 1;
                        b
                    }
                    None => true,
                },
            };
            Ok(set_flag(o, opt.id, on))
        }
        _ => {
            let value = match attached {
                Some("") => {
                    return Err(usage(format!(
                        "missing value for {} (expected {}; nothing follows '=' in {})",
                        opt.label(),
                        opt.kind.expected(),
                        quote(tok)
                    )))
                }
                Some(v) => v,
                None => match args.get(*i) {
                    Some(next) if !next.starts_with('-') || takes_stdout(opt.id, next) => {
                        *i += 1;
                        next.as_str()
                    }
                    Some(next) => {
                        return Err(usage(format!(
                            "missing value for {} (expected {}; the next argument {} starts \
                             with '-' and is not taken as a value, write --{}=VALUE)",
                            opt.label(),
                            opt.kind.expected(),
                            quote(next),
                            opt.long
                        )))
                    }
                    None => {
                        return Err(usage(format!(
                            "missing value for {} (expected {})",
                            opt.label(),
                            opt.kind.expected()
                        )))
                    }
                },
            };
            set_value(&mut o.o, opt, value)?;
            Ok(None)
        }
    }
}

/// Whether `next` is `-` (standard output) given to `--json`/`--csv`, which accept it
/// as a separate value although it starts with `-`.
fn takes_stdout(id: Id, next: &str) -> bool {
    matches!(id, Id::Json | Id::Csv) && next == STDOUT
}

/// `Some(true)` / `Some(false)` for the eight boolean words (any case), else `None`.
fn bool_word(s: &str) -> Option<bool> {
    let l = s.to_ascii_lowercase();
    if TRUE_WORDS.contains(&l.as_str()) {
        Some(true)
    } else if FALSE_WORDS.contains(&l.as_str()) {
        Some(false)
    } else {
        None
    }
}

/// Apply a flag; returns the command for `-h` and `--version`.
fn set_flag(st: &mut State, id: Id, on: bool) -> Option<Command> {
    let o = &mut st.o;
    match id {
        Id::Help => return Some(Command::Help),
        Id::Version => return Some(Command::Version),
        Id::Chunk => o.chunk = on,
        Id::Collective => o.collective = on,
        Id::Geometry => o.dim2d = on,
        Id::Interleaved => o.interleaved = on,
        Id::WriteOnly => o.write_only = on,
        Id::NoFill => o.fill.time = Some(FillTime::Never),
        Id::FillBehaviour => st.fill_mode = on,
        Id::Strict => st.strict = on,
        _ => unreachable!("{id:?} takes a value"),
    }
    None
}

/// Parse `v` as the value of `opt` and store it in `o`.
fn set_value(o: &mut Options, opt: &Opt, v: &str) -> Result<(), Error> {
    const I32: u64 = i32::MAX as u64;
    const I64: u64 = i64::MAX as u64;
    let int = |max: u64| parse_int(v, max).map_err(|why| invalid(opt, v, &why));
    let size = || parse_size(v).map_err(|why| invalid(opt, v, &why));
    let at_least_one = |n: u64| {
        if n == 0 {
            Err(invalid(opt, v, "must be at least 1"))
        } else {
            Ok(n)
        }
    };
    match opt.id {
        Id::Align => o.h5_align = at_least_one(size()?)?,
        Id::Threshold => o.h5_thresh = size()?,
        Id::BlockSize => o.blk_size = size()?,
        Id::NumBytes => o.num_bytes = size()?,
        Id::MinXfer => o.buf_min = size()?,
        Id::MaxXfer => o.buf_max = size()?,
        Id::NumDsets => o.num_dsets = at_least_one(int(I64)?)?,
        Id::NumFiles => o.num_files = at_least_one(int(I64)?)?,
        Id::NumIters => o.num_iters = to_u32(int(I32)?),
        Id::MinProcs => o.min_procs = to_u32(int(I32)?),
        Id::MaxProcs => o.max_procs = Some(to_u32(int(I32)?)),
        Id::Api => {
            for api in parse_api_list(v).map_err(|why| invalid(opt, v, &why))? {
                o.apis.insert(api);
            }
        }
        Id::Debug => {
            let d = parse_debug_list(v).map_err(|why| invalid(opt, v, &why))?;
            if let Some(level) = d.level {
                o.debug.level = level;
            }
            o.debug.raw |= d.raw;
            o.debug.times |= d.times;
            o.debug.verify |= d.verify;
        }
        Id::Output => {
            if v.is_empty() {
                return Err(invalid(opt, v, "empty file name"));
            }
            o.output = Some(v.to_string());
        }
        Id::Json | Id::Csv => {
            if v.is_empty() {
                return Err(invalid(
                    opt,
                    v,
                    "empty file name (use - for standard output)",
                ));
            }
            let slot = if opt.id == Id::Json {
                &mut o.json
            } else {
                &mut o.csv
            };
            *slot = Some(v.to_string());
        }
        Id::FillValue => {
            o.fill.value = Some(if v.eq_ignore_ascii_case("undefined") {
                FillValue::Undefined
            } else {
                let b = parse_int(v, 255).map_err(|why| {
                    invalid(
                        opt,
                        v,
                        &format!("{why}; expected a byte value 0-255 or undefined"),
                    )
                })?;
                FillValue::Byte(b as u8)
            });
        }
        Id::FillTime => {
            o.fill.time = Some(
                FillTime::parse(v)
                    .ok_or_else(|| invalid(opt, v, "expected never, ifset or alloc"))?,
            );
        }
        Id::AllocTime => {
            o.fill.alloc = Some(AllocTime::parse(v).ok_or_else(|| {
                invalid(
                    opt,
                    v,
                    "expected default, early, incr (incremental) or late",
                )
            })?);
        }
        _ => unreachable!("{:?} takes no value", opt.id),
    }
    Ok(())
}

/// `n` (already checked to be at most `i32::MAX`) as `u32`.
fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether `t` starts with `-` followed by a digit.
fn starts_negative(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// Strip spaces and tabs at both ends.
fn trim_blanks(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// Parse a size (spec §1.5, made strict): optional leading spaces/tabs, optional `+`,
/// decimal digits (leading zeros are still decimal), optional spaces/tabs, optional one
/// suffix letter `K`/`k` (×1024), `M`/`m` (×1048576) or `G`/`g` (×1073741824), optional
/// trailing spaces/tabs. The result is in bytes and at most `i64::MAX`; zero is
/// accepted (callers decide what it means).
///
/// # Errors
/// A reason (without option name) for: an empty or blank value, a negative or fractional
/// number, no digits, an unknown suffix (the reason contains the C tool's phrase
/// `Illegal size specifier 'Q'`), anything after the suffix, or a value above
/// `i64::MAX` bytes (checked after the multiplication too).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim_start_matches([' ', '\t']);
    if trim_blanks(t).is_empty() {
        return Err(format!("empty value {SIZE_HINT}"));
    }
    if starts_negative(t) {
        return Err(format!("negative sizes are not allowed {SIZE_HINT}"));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let ndig = t.bytes().take_while(u8::is_ascii_digit).count();
    let (digits, rest) = t.split_at(ndig);
    if rest.starts_with('.') && (ndig > 0 || rest[1..].starts_with(|c: char| c.is_ascii_digit())) {
        return Err(format!("fractional sizes are not allowed {SIZE_HINT}"));
    }
    if digits.is_empty() {
        return Err(format!("no digits {SIZE_HINT}"));
    }
    let too_large = || format!("too large (at most {} bytes)", i64::MAX);
    let n = digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= i64::MAX as u64)
        .ok_or_else(too_large)?;
    let rest = rest.trim_start_matches([' ', '\t']);
    let Some(c) = rest.chars().next() else {
        return Ok(n);
    };
    let mult: u64 = match c {
        'K' | 'k' => 1 << 10,
        'M' | 'm' => 1 << 20,
        'G' | 'g' => 1 << 30,
        _ => {
            return Err(format!(
                "Illegal size specifier '{}' {SIZE_HINT}",
                printable(&c.to_string())
            ))
        }
    };
    let after = trim_blanks(&rest[c.len_utf8()..]);
    if !after.is_empty() {
        return Err(format!(
            "unexpected '{}' after the '{c}' suffix {SIZE_HINT}",
            printable(after)
        ));
    }
    n.checked_mul(mult)
        .filter(|n| *n <= i64::MAX as u64)
        .ok_or_else(too_large)
}

/// Parse a whole number (spec §1.6, made strict): optional surrounding spaces/tabs,
/// optional `+`, decimal digits only, at most `max`.
fn parse_int(s: &str, max: u64) -> Result<u64, String> {
    let t = trim_blanks(s);
    if t.is_empty() {
        return Err("empty value (expected a whole number)".to_string());
    }
    if starts_negative(t) {
        return Err("negative numbers are not allowed".to_string());
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        let ndig = t.bytes().take_while(u8::is_ascii_digit).count();
        let rest = &t[ndig..];
        if rest.starts_with('.')
            && (ndig > 0 || rest.len() > 1)
            && rest[1..].bytes().all(|b| b.is_ascii_digit())
        {
            return Err("fractional numbers are not allowed (expected a whole number)".into());
        }
        return Err("not a whole number".to_string());
    }
    t.parse::<u64>()
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| format!("too large (at most {max})"))
}

/// Split a `-A`/`-D` value at commas (one trailing comma is harmless) and keep only ASCII
/// letters and digits of each token (spec §1.7). Returns `(as given, filtered)` pairs.
fn split_list(v: &str) -> Result<Vec<(&str, String)>, String> {
    if v.is_empty() {
        return Err("empty list".to_string());
    }
    let v = v.strip_suffix(',').unwrap_or(v);
    v.split(',')
        .map(|raw| {
            let kept: String = raw.chars().filter(char::is_ascii_alphanumeric).collect();
            if kept.is_empty() {
                Err(if raw.is_empty() {
                    "empty entry in the list".to_string()
                } else {
                    format!("entry '{}' has no letters or digits", printable(raw))
                })
            } else {
                Ok((raw, kept))
            }
        })
        .collect()
}

/// Parse an API list (spec §1.7).
fn parse_api_list(v: &str) -> Result<Vec<Api>, String> {
    let mut out: Vec<Api> = Vec::new();
    for (raw, name) in split_list(v).map_err(|e| format!("{e} (valid names: {API_NAMES})"))? {
        let Some(api) = Api::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(&name))
        else {
            return Err(format!(
                "unknown API '{}' (valid names: {API_NAMES})",
                printable(raw)
            ));
        };
        if out.contains(&api) {
            return Err(format!("API '{}' is listed twice", api.name()));
        }
        out.push(api);
    }
    Ok(out)
}

/// The result of one `-D` value.
#[derive(Debug, Default, PartialEq, Eq)]
struct DebugList {
    level: Option<u8>,
    raw: bool,
    times: bool,
    verify: bool,
}

/// Parse a debug list (spec §1.8).
fn parse_debug_list(v: &str) -> Result<DebugList, String> {
    const HINT: &str = "(expected a level 0-4 or the letters r, t, v, separated by commas)";
    let mut d = DebugList::default();
    for (raw, tok) in split_list(v).map_err(|e| format!("{e} {HINT}"))? {
        let bad = || format!("invalid debug flag '{}' {HINT}", printable(raw));
        if tok.len() > 1 || tok.starts_with(|c: char| c.is_ascii_digit()) {
            if !tok.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let level = tok.parse::<u64>().unwrap_or(u64::MAX).min(4);
            d.level = Some(level as u8);
        } else {
            match tok.as_str() {
                "r" => d.raw = true,
                "t" => d.times = true,
                "v" => d.verify = true,
                _ => return Err(bad()),
            }
        }
    }
    Ok(d)
}

/// The usage error `h5perf: <msg>`.
fn usage(msg: String) -> Error {
    Error::Usage(format!("h5perf: {msg}"))
}

/// `h5perf: invalid value '<v>' for -e/--num-bytes: <why>`.
fn invalid(opt: &Opt, v: &str, why: &str) -> Error {
    usage(format!(
        "invalid value {} for {}: {why}",
        quote(v),
        opt.label()
    ))
}

/// `'s'` with control characters escaped.
fn quote(s: &str) -> String {
    format!("'{}'", printable(s))
}

/// `s` with control characters escaped (`\n`, `\t`, `\u{1b}`), so messages stay on one
/// line.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The help text printed for `-h`/`--help` (spec §1.10): options with their long
/// spellings, value kinds and defaults, the size syntax, the API names, block vs.
/// transfer-buffer size and the 1D patterns, debug flags and environment variables.
/// Written for this implementation (not a copy of the C tool's text); every line is
/// shorter than 80 columns; ends with a newline.
pub fn help_text() -> String {
    HELP.to_string()
}

const HELP: &str = "\
usage: h5perf [OPTIONS]

Measure the parallel I/O throughput of POSIX, MPI-IO and parallel HDF5
(PHDF5). For each number of processes and each transfer-buffer size in the
ranges given below, every process writes its share of each dataset of each
file, then reads it back, and the write and read throughputs are reported.
Start it under MPI, for example: mpiexec -n 4 h5perf -e 1M -x 256K -X 1M

Options. Long names are the full names of the HDF5 releases; as an extension
they may be shortened down to the part outside the [...] (the 1.10.8 and
1.14 releases accept only the full names). Values are given as --name=VALUE
or --name VALUE.
  -h, --he[lp]
        Print this help and exit.
  --ve[rsion]
        Print the version of h5perf and exit.
  -a SIZE, --al[ign]=SIZE
        HDF5 object alignment, at least 1. [default: 1, no alignment]
  -A LIST, --ap[i]=LIST
        APIs to test, separated by commas: posix, mpiio, phdf5 (any
        case). They always run in that order. Repeated -A options add up.
        [default: all three]
  --allo[c-time]=WHEN
        PHDF5 datasets: when HDF5 allocates their space: default, early,
        incr or late. With the MPI-IO driver HDF5 always allocates early,
        whatever is asked. [default: the library's]
  -B SIZE, --bl[ock-size]=SIZE
        Block size (see below). [default: half of -e]
  -c, --ch[unk]
        Store HDF5 datasets in chunks of one block (2D: block x block);
        in 2D the POSIX and MPI-IO files imitate that chunk layout.
        [default: contiguous]
  -C, --co[llective]
        Use collective I/O for MPI-IO and PHDF5. [default: independent]
  --cs[v]=FILE
        Also write the results to FILE as CSV: a header row, then one row
        per number of processes, transfer size, API and phase. - means
        standard output, after the report. [default: none]
  -d N, --num-d[sets]=N
        Number of datasets per file, at least 1. [default: 1]
  -D LIST, --de[bug]=LIST
        Debug flags separated by commas (see below). [default: none]
  -e SIZE, --num-b[ytes]=SIZE
        Bytes per process per dataset (2D: see below). [default: 256K,
        8K with -g]
  -F N, --num-f[iles]=N
        Number of files, at least 1. [default: 1]
  --fill-b[ehaviour]
        Run no benchmark: find out by experiment when the linked HDF5
        writes fill values (serial on rank 0, then on all processes) and
        print HDF5's documented tables with every difference marked.
        Exits 0 unless --st[rict] is given and something differs.
  --fill-t[ime]=WHEN
        PHDF5 datasets: when HDF5 writes the fill value into new space:
        never, ifset (if a fill value is set; HDF5 1.10.8 also writes 0
        into new chunks without one) or alloc (always). Fills written at
        dataset creation count in the Write time. [default: ifset]
  --fill-v[alue]=BYTE
        PHDF5 datasets: fill value, a byte 0-255, or undefined (no fill
        value; HDF5 then refuses --fill-time=alloc). [default: the
        library's, 0]
  -g, --ge[ometry]
        2D geometry: square datasets (see below). [default: 1D]
  -i N, --num-i[terations]=N
        Number of iterations of each test (0 counts as 1). [default: 1]
  -I, --in[terleaved]
        Interleaved access pattern (see below). [default: contiguous]
  --js[on]=FILE
        Also write the results to FILE as JSON, with the same records as
        --csv. - means standard output, after the report; the JSON starts
        at the line holding only '{'. [default: none]
  -n, --no-f[ill]
        PHDF5 datasets: never write fill values (--fill-time=never).
  -o FILE, --ou[tput]=FILE
        Write the report to FILE. [default: standard output]
  -p N, --min-num-p[rocesses]=N
        Smallest number of processes (0 counts as 1). [default: 1]
  -P N, --max-num-p[rocesses]=N
        Largest number of processes (0 counts as 1). The tests run with
        P, P/2, P/4, ... processes down to -p. [default: all processes]
  --st[rict]
        With --fill-behaviour: exit with status 1 when the library
        differs from the document anywhere.
  -T SIZE, --th[reshold]=SIZE
        HDF5 alignment threshold: only objects of at least this size
        are aligned to -a. [default: 1]
  -w, --wr[ite-only]
        Run the write tests only, without reading back. [default: off]
  -x SIZE, --min-x[fer-size]=SIZE
        Smallest transfer-buffer size. [default: half of -e]
  -X SIZE, --max-x[fer-size]=SIZE
        Largest transfer-buffer size. The tests run with -x, 2 x -x,
        4 x -x, ... bytes up to -X. [default: -e]
--interleaved and --write-only also accept the value 1, yes, true or on
(turn on) and 0, no, false or off (turn off), as in --interleaved=1.

Values:
  N     a whole number, such as 4
  FILE  a file name
  SIZE  a number of bytes, optionally followed by one of the suffixes
        K (x 1024), M (x 1048576) or G (x 1073741824), in either case;
        for example 37M = 38797312 bytes. For -e, -x, -X and -B, 0 means
        the default.
  LIST  words separated by commas

Dataset size, block size and transfer-buffer size:
  Each process writes -e bytes to every dataset, so with P processes a
  dataset holds -e x P bytes. A process moves its data in transfers of
  one transfer buffer (-x up to -X), and every transfer is made of
  blocks of -B bytes. The transfer-buffer size must be a multiple of the
  block size, and -e a multiple of the transfer-buffer size.

  In the contiguous pattern each process owns one contiguous part of the
  dataset. In the interleaved pattern (-I) the processes take turns,
  one block each. For example, with 3 processes, -e of 8 blocks and a
  transfer buffer of 4 blocks, after the first transfer of every process
  the dataset looks like this (one character per block, - = not written):
      contiguous:   1111----2222----3333----
      interleaved:  123123123123------------

  In 2D geometry (-g) a dataset is a square of side S = -e x P bytes.
  The transfer buffer is -B rows x -x..-X columns (contiguous: each
  process owns -e whole rows) or -x..-X rows x -B columns (interleaved:
  columns are dealt out in groups of -B, round robin). S must be a
  multiple of the transfer-buffer size and -e a multiple of -B. With 2
  processes, -e 4 -B 2 -x 4, after the first transfer (one row a line):
      contiguous:   1111----      interleaved:  1122----
                    1111----                    1122----
                    --------                    1122----
                    --------                    1122----
                    2222----                    --------
                    2222----                    --------
                    --------                    --------
                    --------                    --------

Debug flags (-D):
  1, 2  every process prints its parameters and file names (1 = 2)
  3     also print per-iteration details
  4     also trace the byte range of every write and read phase
  r     also report the throughput of the raw data transfers
  t     also print times, and the time spent opening and closing files
  v     verify the data read back (each process writes its rank + 1)
  A number sets the level (the last one wins; above 4 counts as 4);
  letters add up. Example: -D 3,t,v

Environment:
  HDF5_PARAPREFIX  directory for the test files (in a subdirectory named
                   after $USER or $LOGIN when set); default: the current
                   directory
  HDF5_NOCLEANUP   if set, even to nothing, the test files are not deleted
  HDF5_MPI_INFO    MPI-IO hints, as KEY=VALUE;KEY=VALUE;...
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ApiSet, Debug};

    /// Parse a whitespace-free argument list given as a slice.
    fn run(args: &[&str]) -> Options {
        match parse(args) {
            Ok(Command::Run(o)) => o,
            other => panic!("{args:?}: expected Run, got {other:?}"),
        }
    }

    fn err(args: &[&str]) -> String {
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
    fn refused(args: &[&str], needles: &[&str]) {
        let m = err(args);
        for n in needles {
            assert!(m.contains(n), "{args:?}: message {m:?} lacks {n:?}");
        }
    }

    #[test]
    fn no_arguments_gives_defaults() {
        assert_eq!(run(&[]), Options::default());
    }

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
    fn every_size_option_short_and_long() {
        type Getter = fn(&Options) -> u64;
        let cases: [(&str, &str, Getter); 6] = [
            ("-a", "--align", |o| o.h5_align),
            ("-B", "--block-size", |o| o.blk_size),
            ("-e", "--num-bytes", |o| o.num_bytes),
            ("-T", "--threshold", |o| o.h5_thresh),
            ("-x", "--min-xfer-size", |o| o.buf_min),
            ("-X", "--max-xfer-size", |o| o.buf_max),
        ];
        for (s, l, get) in cases {
            assert_eq!(get(&run(&[s, "4K"])), 4096, "{s}");
            assert_eq!(get(&run(&[&format!("{s}3M")])), 3 << 20, "{s}");
            assert_eq!(get(&run(&[&format!("{l}=2G")])), 2 << 30, "{l}");
            assert_eq!(get(&run(&[l, "5k"])), 5120, "{l}");
            assert_eq!(get(&run(&[l, "7"])), 7, "{l}");
        }
    }

    #[test]
    fn every_integer_option_short_and_long() {
        let o = run(&["-d", "3", "-F", "4", "-i", "5", "-p", "2", "-P", "8"]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (3, 4, 5));
        assert_eq!((o.min_procs, o.max_procs), (2, Some(8)));
        let o = run(&[
            "--num-dsets=6",
            "--num-files",
            "7",
            "--num-iterations=9",
            "--min-num-processes",
            "3",
            "--max-num-processes=16",
        ]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (6, 7, 9));
        assert_eq!((o.min_procs, o.max_procs), (3, Some(16)));
        let o = run(&["-d2", "-F3", "-i4", "-p5", "-P6"]);
        assert_eq!((o.num_dsets, o.num_files, o.num_iters), (2, 3, 4));
        assert_eq!((o.min_procs, o.max_procs), (5, Some(6)));
        // surrounding blanks and '+'
        let o = run(&["-F", " 2\t", "-i", "+3", "-d", "010"]);
        assert_eq!((o.num_files, o.num_iters, o.num_dsets), (2, 3, 10));
        // 0 accepted for -i -p -P (clamped later)
        let o = run(&["-i", "0", "-p", "0", "-P", "0"]);
        assert_eq!((o.num_iters, o.min_procs, o.max_procs), (0, 0, Some(0)));
        // limits
        let o = run(&["-i", "2147483647", "-d", "9223372036854775807"]);
        assert_eq!(
            (o.num_iters, o.num_dsets),
            (i32::MAX as u32, i64::MAX as u64)
        );
    }

    #[test]
    fn every_flag_short_and_long() {
        let o = run(&["-c", "-C", "-g", "-I", "-w"]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&[
            "--chunk",
            "--collective",
            "--geometry",
            "--interleaved",
            "--write-only",
        ]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&["--ch", "--co", "--ge", "--in", "--wr"]);
        assert!(o.chunk && o.collective && o.dim2d && o.interleaved && o.write_only);
        let o = run(&["-c"]);
        assert!(o.chunk && !o.collective && !o.dim2d && !o.interleaved && !o.write_only);
    }

    #[test]
    fn api_debug_output_short_and_long() {
        let o = run(&["-A", "posix", "--api=phdf5", "-D", "3,t", "-o", "out.txt"]);
        assert_eq!(
            o.apis,
            ApiSet {
                posix: true,
                mpiio: false,
                phdf5: true
            }
        );
        assert_eq!(
            o.debug,
            Debug {
                level: 3,
                raw: false,
                times: true,
                verify: false
            }
        );
        assert_eq!(o.output.as_deref(), Some("out.txt"));
        let o = run(&["-Ampiio", "--debug", "v", "--output", "r.txt"]);
        assert_eq!(
            o.apis,
            ApiSet {
                posix: false,
                mpiio: true,
                phdf5: false
            }
        );
        assert_eq!(
            o.debug,
            Debug {
                level: 0,
                raw: false,
                times: false,
                verify: true
            }
        );
        assert_eq!(o.output.as_deref(), Some("r.txt"));
        let o = run(&["-D2,r", "--ou=x", "--ap", "posix"]);
        assert_eq!(
            o.debug,
            Debug {
                level: 2,
                raw: true,
                times: false,
                verify: false
            }
        );
        assert_eq!(o.output.as_deref(), Some("x"));
        assert!(o.apis.posix);
        // -o takes any raw string, even one starting with '-' (short form)
        assert_eq!(run(&["-o", "-weird"]).output.as_deref(), Some("-weird"));
        assert_eq!(run(&["--output=-w"]).output.as_deref(), Some("-w"));
        assert_eq!(run(&["-o", " a b "]).output.as_deref(), Some(" a b "));
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
    fn no_spelling_matches_two_options() {
        // every prefix of every name that matches it also matches no other entry
        for a in &OPTS {
            for n in 1..=a.long.len() {
                let spelling = &a.long[..n];
                let hits = OPTS.iter().filter(|p| p.matches_long(spelling)).count();
                assert!(hits <= 1, "--{spelling} matches {hits} options");
                assert_eq!(a.matches_long(spelling), n >= a.min, "--{spelling}");
            }
        }
    }

    #[test]
    fn table_has_no_ambiguous_prefixes() {
        for a in &OPTS {
            for b in &OPTS {
                if a.id != b.id {
                    assert!(
                        !b.matches_long(&a.long[..a.min]),
                        "{} vs {}",
                        a.long,
                        b.long
                    );
                }
            }
            if let Some(c) = a.short {
                assert_eq!(OPTS.iter().filter(|p| p.short == Some(c)).count(), 1);
            }
        }
    }

    #[test]
    fn size_suffixes_both_cases() {
        for (v, n) in [
            ("8k", 8192u64),
            ("8K", 8192),
            ("3m", 3 << 20),
            ("3M", 3 << 20),
            ("2g", 2 << 30),
            ("2G", 2 << 30),
            ("37M", 38_797_312),
            ("010", 10),
            ("8 K", 8192),
            ("8\tm", 8 << 20),
            (" 8K", 8192),
            ("+8K", 8192),
            ("8 ", 8),
            (" 8 k \t", 8192),
            ("0", 0),
            ("0K", 0),
            ("9223372036854775807", i64::MAX as u64),
            ("8589934591G", 8_589_934_591 << 30),
        ] {
            assert_eq!(parse_size(v), Ok(n), "{v:?}");
        }
    }

    #[test]
    fn size_refusals() {
        let reason = |v: &str| parse_size(v).unwrap_err();
        assert!(reason("").starts_with("empty value"));
        assert!(reason(" \t").starts_with("empty value"));
        assert!(reason("-8").starts_with("negative"));
        assert!(reason(" -8K").starts_with("negative"));
        assert!(reason("1.5K").starts_with("fractional"));
        assert!(reason("8.").starts_with("fractional"));
        assert!(reason(".5").starts_with("fractional"));
        assert!(reason("K").starts_with("no digits"));
        assert!(reason("+").starts_with("no digits"));
        assert!(reason("x").starts_with("no digits"));
        assert!(reason("10Q").starts_with("Illegal size specifier 'Q' (a size is"));
        assert!(reason("0x10").starts_with("Illegal size specifier 'x'"));
        assert!(reason("8B").starts_with("Illegal size specifier 'B'"));
        assert!(reason("8 8").starts_with("Illegal size specifier '8'"));
        assert!(reason("8Kxyz").starts_with("unexpected 'xyz' after the 'K' suffix"));
        assert!(reason("8KK").starts_with("unexpected 'K' after the 'K' suffix"));
        assert!(reason("8K 1").starts_with("unexpected '1'"));
        assert!(reason("9223372036854775808").starts_with("too large"));
        assert!(reason("99999999999999999999").starts_with("too large"));
        assert!(reason("8589934592G").starts_with("too large"));
        assert!(reason("9007199254740992K").starts_with("too large"));
        assert!(reason("8\n").contains("\\n"));
    }

    #[test]
    fn size_refusals_name_option_and_value() {
        refused(
            &["-e", "10Q"],
            &[
                "h5perf: invalid value '10Q' for -e/--num-bytes: Illegal size specifier 'Q' \
               (a size is a number with an optional K, M or G suffix)",
            ],
        );
        refused(
            &["--num-bytes=1.5K"],
            &["invalid value '1.5K' for -e/--num-bytes: fractional"],
        );
        refused(
            &["-x", "-8"],
            &["invalid value '-8' for -x/--min-xfer-size: negative"],
        );
        refused(
            &["-X", ""],
            &["invalid value '' for -X/--max-xfer-size: empty"],
        );
        refused(
            &["-BK"],
            &["invalid value 'K' for -B/--block-size: no digits"],
        );
        refused(
            &["-T", "8Kxyz"],
            &["invalid value '8Kxyz' for -T/--threshold: unexpected"],
        );
        refused(&["--al", "8KK"], &["invalid value '8KK' for -a/--align"]);
        refused(
            &["-e", "99999999999999999999"],
            &["'99999999999999999999'", "too large"],
        );
        refused(
            &["-e", "9000000000G"],
            &["'9000000000G' for -e/--num-bytes: too large"],
        );
        // the next token is taken unconditionally by a short option
        refused(
            &["-e", "-x"],
            &["invalid value '-x' for -e/--num-bytes: no digits"],
        );
        // zero: default for -e -x -X -B, fine for -T, refused for -a
        let o = run(&["-e", "0", "-x", "0", "-X", "0", "-B", "0", "-T", "0"]);
        assert_eq!(
            (o.num_bytes, o.buf_min, o.buf_max, o.blk_size, o.h5_thresh),
            (0, 0, 0, 0, 0)
        );
        refused(
            &["-a", "0"],
            &["invalid value '0' for -a/--align: must be at least 1"],
        );
        refused(
            &["--align=0K"],
            &["invalid value '0K' for -a/--align: must be at least 1"],
        );
    }

    #[test]
    fn integer_refusals_name_option_and_value() {
        refused(
            &["-i", "-1"],
            &["invalid value '-1' for -i/--num-iterations: negative"],
        );
        refused(
            &["-i", "3x"],
            &["invalid value '3x' for -i/--num-iterations: not a whole"],
        );
        refused(
            &["-d", "x"],
            &["invalid value 'x' for -d/--num-dsets: not a whole number"],
        );
        refused(
            &["-F", "1.5"],
            &["invalid value '1.5' for -F/--num-files: fractional"],
        );
        refused(
            &["-p", ""],
            &["invalid value '' for -p/--min-num-processes: empty"],
        );
        refused(
            &["-P", "+"],
            &["invalid value '+' for -P/--max-num-processes: not a whole"],
        );
        refused(
            &["-P", "4K"],
            &["invalid value '4K' for -P/--max-num-processes"],
        );
        refused(
            &["-i", "2147483648"],
            &["'2147483648' for -i/--num-iterations: too large"],
        );
        refused(
            &["-p", "4294967297"],
            &["for -p/--min-num-processes: too large"],
        );
        refused(
            &["-P", "2147483648"],
            &["for -P/--max-num-processes: too large"],
        );
        refused(
            &["-d", "9223372036854775808"],
            &["for -d/--num-dsets: too large"],
        );
        refused(
            &["-F", "99999999999999999999"],
            &["for -F/--num-files: too large"],
        );
        refused(
            &["-d", "0"],
            &["invalid value '0' for -d/--num-dsets: must be at least 1"],
        );
        refused(
            &["-F", "0"],
            &["invalid value '0' for -F/--num-files: must be at least 1"],
        );
        refused(
            &["--num-files=00"],
            &["'00' for -F/--num-files: must be at least 1"],
        );
        refused(
            &["-i", "1 2"],
            &["'1 2' for -i/--num-iterations: not a whole"],
        );
    }

    #[test]
    fn api_list() {
        let all = ApiSet {
            posix: true,
            mpiio: true,
            phdf5: true,
        };
        assert_eq!(run(&["-A", "posix,mpiio,phdf5"]).apis, all);
        assert_eq!(run(&["-A", "PHDF5,Posix,MPIIO"]).apis, all);
        assert_eq!(
            run(&["-A", "mpi-io"]).apis,
            ApiSet {
                mpiio: true,
                ..ApiSet::default()
            }
        );
        assert_eq!(
            run(&["-A", "posix!"]).apis,
            ApiSet {
                posix: true,
                ..ApiSet::default()
            }
        );
        assert_eq!(
            run(&["-A", "posix,"]).apis,
            ApiSet {
                posix: true,
                ..ApiSet::default()
            }
        );
        // repeated options accumulate, the same API in two options is fine
        assert_eq!(
            run(&["-A", "posix", "-A", "phdf5,posix", "-Ampiio"]).apis,
            all
        );
        refused(
            &["-A", "posix,,mpiio"],
            &["'posix,,mpiio' for -A/--api: empty entry"],
        );
        refused(&["-A", ",posix"], &["',posix' for -A/--api: empty entry"]);
        refused(&["-A", "posix,,"], &["for -A/--api: empty entry"]);
        refused(
            &["-A", ","],
            &["invalid value ',' for -A/--api: empty entry"],
        );
        refused(
            &["-A", ""],
            &["invalid value '' for -A/--api: empty list", "posix, mpiio"],
        );
        refused(
            &["-A", "-"],
            &["invalid value '-' for -A/--api", "no letters or digits"],
        );
        refused(
            &["--api=hdf5"],
            &[
                "invalid value 'hdf5' for -A/--api: unknown API 'hdf5' (valid names: posix, \
               mpiio, phdf5)",
            ],
        );
        refused(&["-A", "posix mpiio"], &["unknown API 'posix mpiio'"]);
        refused(
            &["-A", "posix,POSIX"],
            &["'posix,POSIX' for -A/--api", "'posix' is listed twice"],
        );
        refused(&["-A", "mpiio,mpi_io"], &["'mpiio' is listed twice"]);
        refused(&["-A", "posixposix1"], &["unknown API"]);
    }

    #[test]
    fn debug_list() {
        let d = |v: &str| run(&["-D", v]).debug;
        assert_eq!(
            d("1"),
            Debug {
                level: 1,
                ..Debug::default()
            }
        );
        assert_eq!(
            d("4"),
            Debug {
                level: 4,
                ..Debug::default()
            }
        );
        assert_eq!(
            d("99"),
            Debug {
                level: 4,
                ..Debug::default()
            }
        );
        assert_eq!(
            d("99999999999999999999999"),
            Debug {
                level: 4,
                ..Debug::default()
            }
        );
        assert_eq!(d("0"), Debug::default());
        assert_eq!(
            d("3,"),
            Debug {
                level: 3,
                ..Debug::default()
            }
        );
        assert_eq!(
            d("r,t,v"),
            Debug {
                level: 0,
                raw: true,
                times: true,
                verify: true
            }
        );
        assert_eq!(
            d("2,t,1"),
            Debug {
                level: 1,
                times: true,
                ..Debug::default()
            }
        );
        assert_eq!(
            d("-1"),
            Debug {
                level: 1,
                ..Debug::default()
            }
        );
        assert_eq!(
            d(" 1"),
            Debug {
                level: 1,
                ..Debug::default()
            }
        );
        // repetition: flags accumulate, level = last numeric token
        let o = run(&["-D", "3,r", "-D", "t", "--debug=1", "-Dv"]);
        assert_eq!(
            o.debug,
            Debug {
                level: 1,
                raw: true,
                times: true,
                verify: true
            }
        );
        for bad in ["1x", "tv", "2r", "R", "x", "T"] {
            refused(
                &["-D", bad],
                &[&format!("'{bad}' for -D/--debug: invalid debug flag")],
            );
        }
        refused(&["-D", ",3"], &["',3' for -D/--debug: empty entry"]);
        refused(&["-D", "3,,r"], &["'3,,r' for -D/--debug: empty entry"]);
        refused(&["--debug="], &["missing value for -D/--debug"]);
        refused(
            &["-D", ""],
            &["invalid value '' for -D/--debug: empty list"],
        );
    }

    #[test]
    fn output_file() {
        refused(
            &["-o", ""],
            &["invalid value '' for -o/--output: empty file name"],
        );
        refused(
            &["--output="],
            &["missing value for -o/--output (expected a file name"],
        );
        refused(&["-o"], &["missing value for -o/--output"]);
        let o = run(&["-o", "a", "--output", "b"]);
        assert_eq!(o.output.as_deref(), Some("b"));
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
    fn fill_options() {
        use crate::config::FillSettings;
        use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
        assert_eq!(run(&[]).fill, FillSettings::default());
        // -n / --no-fill is --fill-time=never, also in clusters
        for args in [
            &["-n"][..],
            &["--no-fill"],
            &["--no-f"],
            &["-cn"],
            &["--fill-time=never"],
            &["--fill-t", "NEVER"],
        ] {
            assert_eq!(run(args).fill.time, Some(FillTime::Never), "{args:?}");
        }
        assert!(run(&["-cnC"]).chunk && run(&["-cnC"]).collective);
        let o = run(&[
            "--fill-value=7",
            "--fill-time",
            "alloc",
            "--alloc-time=late",
            "-c",
        ]);
        assert_eq!(
            o.fill,
            FillSettings {
                value: Some(FillValue::Byte(7)),
                time: Some(FillTime::Alloc),
                alloc: Some(AllocTime::Late)
            }
        );
        assert!(o.chunk);
        assert_eq!(run(&["--fill-v", "0"]).fill.value, Some(FillValue::Byte(0)));
        assert_eq!(
            run(&["--fill-value= 255"]).fill.value,
            Some(FillValue::Byte(255))
        );
        assert_eq!(
            run(&["--fill-value=Undefined"]).fill.value,
            Some(FillValue::Undefined)
        );
        assert_eq!(run(&["--fill-time=ifset"]).fill.time, Some(FillTime::IfSet));
        for (w, a) in [
            ("default", AllocTime::Default),
            ("early", AllocTime::Early),
            ("incr", AllocTime::Incr),
            ("incremental", AllocTime::Incr),
            ("LATE", AllocTime::Late),
        ] {
            assert_eq!(run(&["--allo", w]).fill.alloc, Some(a), "{w}");
        }
        // the last one wins
        assert_eq!(
            run(&["-n", "--fill-time=alloc"]).fill.time,
            Some(FillTime::Alloc)
        );
        assert_eq!(
            run(&["--fill-time=alloc", "-n"]).fill.time,
            Some(FillTime::Never)
        );
        // --al is still --align; --all is nothing
        assert_eq!(run(&["--al", "4K"]).h5_align, 4096);
        refused(&["--all", "late"], &["unknown option '--all'"]);
        refused(&["--fill", "7"], &["unknown option '--fill'"]);
        refused(&["--fill-", "7"], &["unknown option '--fill-'"]);
        refused(&["--no", "x"], &["unknown option '--no'"]);
        // bad values
        refused(
            &["--fill-value=256"],
            &[
                "invalid value '256' for --fill-value",
                "too large (at most 255)",
                "byte value 0-255 or undefined",
            ],
        );
        refused(
            &["--fill-value=-1"],
            &["invalid value '-1' for --fill-value"],
        );
        refused(
            &["--fill-value=0x10"],
            &["invalid value '0x10' for --fill-value"],
        );
        refused(
            &["--fill-value=undef"],
            &["invalid value 'undef' for --fill-value"],
        );
        refused(
            &["--fill-time=sometimes"],
            &["invalid value 'sometimes' for --fill-time: expected never, ifset or alloc"],
        );
        refused(
            &["--alloc-time", "soon"],
            &["invalid value 'soon' for --alloc-time: expected default, early, incr"],
        );
        refused(
            &["--fill-value"],
            &["missing value for --fill-value (expected a byte value 0-255 or undefined)"],
        );
        refused(&["--fill-time="], &["missing value for --fill-time"]);
        refused(
            &["--alloc-time", "-n"],
            &["missing value for --alloc-time (expected default, early, incr or late"],
        );
        refused(&["--no-fill=1"], &["invalid value '1' for -n/--no-fill"]);
        refused(&["-n", "1"], &["unexpected argument '1'"]);
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
    fn repetition_last_scalar_wins() {
        let o = run(&[
            "--num-bytes=8",
            "--num-bytes=16",
            "-e",
            "32",
            "-i",
            "2",
            "-i3",
        ]);
        assert_eq!((o.num_bytes, o.num_iters), (32, 3));
        let o = run(&[
            "-P",
            "4",
            "-P",
            "2",
            "-a",
            "4K",
            "--align=8K",
            "-T",
            "1M",
            "-T2M",
        ]);
        assert_eq!(
            (o.max_procs, o.h5_align, o.h5_thresh),
            (Some(2), 8192, 2 << 20)
        );
        let o = run(&[
            "-x", "1K", "-X", "2K", "-x", "4K", "-X8K", "-B1K", "-B", "2K",
        ]);
        assert_eq!((o.buf_min, o.buf_max, o.blk_size), (4096, 8192, 2048));
        let o = run(&[
            "-d",
            "2",
            "-d",
            "5",
            "-F",
            "2",
            "--num-f=6",
            "-p1",
            "-p",
            "3",
        ]);
        assert_eq!((o.num_dsets, o.num_files, o.min_procs), (5, 6, 3));
        let o = run(&["-e", "8", "-e", "0"]);
        assert_eq!(o.num_bytes, 0);
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
        assert_eq!(run(&["-o", "--"]).output.as_deref(), Some("--"));
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

    #[test]
    fn help_text_content() {
        let h = help_text();
        assert!(h.starts_with("usage: h5perf [OPTIONS]\n"));
        assert!(h.ends_with('\n'));
        for (n, line) in h.lines().enumerate() {
            assert!(
                line.chars().count() < 80,
                "line {} too long: {line:?}",
                n + 1
            );
            assert!(!line.ends_with(' '), "line {} has trailing blanks", n + 1);
        }
        // every option, in its short and full long form
        for o in &OPTS {
            if let Some(c) = o.short {
                assert!(h.contains(&format!("-{c}")), "-{c} missing");
            }
            let long_shown = format!("--{}[{}]", &o.long[..o.min], &o.long[o.min..]);
            assert!(h.contains(&long_shown), "{long_shown} missing");
        }
        for needle in [
            "1024",
            "1048576",
            "1073741824",
            "37M = 38797312 bytes",
            "posix, mpiio, phdf5",
            "1111----2222----3333----",
            "123123123123------------",
            "HDF5_PARAPREFIX",
            "HDF5_NOCLEANUP",
            "HDF5_MPI_INFO",
            "S = -e x P",
            "1122----",
            "  r  ",
            "  t  ",
            "  v  ",
        ] {
            assert!(h.contains(needle), "{needle} missing from help");
        }
        // the example sizes in the help text are true
        assert_eq!(parse_size("37M"), Ok(38_797_312));
    }
}
