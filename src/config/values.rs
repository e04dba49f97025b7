//! Option values: their parsers (spec §1.5–§1.8, made strict as spec §11 asks),
//! [`ValueKind`], [`ApiSet`], [`struct@Debug`] and the rules a value must obey, shared by
//! the option table and the C API's typed setters ([`ValueError`]).

use std::ffi::{OsStr, OsString};
use std::fmt;

use super::storage::Reorder;
use crate::ffi::hdf5::{AllocTime, FillTime, FillValue};
use crate::terms::Api;

/// The hint appended to size refusals.
const SIZE_HINT: &str = "(a size is a number with an optional K, M or G suffix)";

/// The valid `-A` names, for messages.
const API_NAMES: &str = "posix, mpiio, phdf5";

/// Boolean words accepted by `--interleaved` / `--write-only` (case-insensitive).
const TRUE_WORDS: [&str; 4] = ["1", "yes", "true", "on"];
/// See [`TRUE_WORDS`].
const FALSE_WORDS: [&str; 4] = ["0", "no", "false", "off"];

/// Whether `t` starts with `-` followed by a digit.
fn starts_negative(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// Strip spaces and tabs at both ends.
fn trim_blanks(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// Parse a size in bytes (spec §1.5, made strict; `K`/`M`/`G` ×2^10/2^20/2^30), at most
/// [`MAX_SIZE`]; zero is accepted.
///
/// # Errors
/// A reason for anything else (an unknown suffix: `Illegal size specifier 'Q'`).
pub fn parse_size(s: &str) -> Result<u64, ValueError> {
    let t = s.trim_start_matches([' ', '\t']);
    if trim_blanks(t).is_empty() {
        return Err(ValueError::from(format!("empty value {SIZE_HINT}")));
    }
    if starts_negative(t) {
        return Err(ValueError::from(format!(
            "negative sizes are not allowed {SIZE_HINT}"
        )));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    let ndig = t.bytes().take_while(u8::is_ascii_digit).count();
    let (digits, rest) = t.split_at(ndig);
    if rest.starts_with('.') && (ndig > 0 || rest[1..].starts_with(|c: char| c.is_ascii_digit())) {
        return Err(ValueError::from(format!(
            "fractional sizes are not allowed {SIZE_HINT}"
        )));
    }
    if digits.is_empty() {
        return Err(ValueError::from(format!("no digits {SIZE_HINT}")));
    }
    let too_large = || ValueError::from(format!("too large (at most {} bytes)", MAX_SIZE));
    let n = digits
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= MAX_SIZE)
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
            return Err(ValueError::from(format!(
                "Illegal size specifier '{}' {SIZE_HINT}",
                printable(&c.to_string())
            )))
        }
    };
    let after = trim_blanks(&rest[c.len_utf8()..]);
    if !after.is_empty() {
        return Err(ValueError::from(format!(
            "unexpected '{}' after the '{c}' suffix {SIZE_HINT}",
            printable(after)
        )));
    }
    n.checked_mul(mult)
        .filter(|n| *n <= MAX_SIZE)
        .ok_or_else(too_large)
}

/// Parse a whole number (spec §1.6, made strict): decimal digits with an optional `+`,
/// blanks around them, at most `max`.
///
/// # Errors
/// A reason for an empty, negative or fractional value, other text, or above `max`.
pub fn parse_int(s: &str, max: u64) -> Result<u64, ValueError> {
    let t = trim_blanks(s);
    if t.is_empty() {
        return Err(ValueError::from("empty value (expected a whole number)"));
    }
    if starts_negative(t) {
        return Err(ValueError::from("negative numbers are not allowed"));
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        let ndig = t.bytes().take_while(u8::is_ascii_digit).count();
        let rest = &t[ndig..];
        if rest.starts_with('.')
            && (ndig > 0 || rest.len() > 1)
            && rest[1..].bytes().all(|b| b.is_ascii_digit())
        {
            return Err(ValueError::from(
                "fractional numbers are not allowed (expected a whole number)",
            ));
        }
        return Err(ValueError::from("not a whole number"));
    }
    t.parse::<u64>()
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| ValueError::from(format!("too large (at most {max})")))
}

/// Parse a whole number for `-i`, `-p`, `-P`: at most `i32::MAX`, the C tool's `int`.
///
/// # Errors
/// As [`parse_int`].
pub fn parse_int32(s: &str) -> Result<u32, ValueError> {
    let n = parse_int(s, i32::MAX as u64)?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// Split a `-A`/`-D` value at commas (one trailing comma is harmless) and keep only ASCII
/// letters and digits of each token (spec §1.7). Returns `(as given, filtered)` pairs.
fn split_list(v: &str) -> Result<Vec<(&str, String)>, ValueError> {
    if v.is_empty() {
        return Err(ValueError::from("empty list"));
    }
    let v = v.strip_suffix(',').unwrap_or(v);
    v.split(',')
        .map(|raw| {
            let kept: String = raw.chars().filter(char::is_ascii_alphanumeric).collect();
            if kept.is_empty() {
                Err(ValueError::from(if raw.is_empty() {
                    "empty entry in the list".to_string()
                } else {
                    format!("entry '{}' has no letters or digits", printable(raw))
                }))
            } else {
                Ok((raw, kept))
            }
        })
        .collect()
}

/// Parse an API list (spec §1.7): names in any case, separated by commas.
///
/// # Errors
/// A reason for an empty list or entry, an unknown name, or a name given twice.
pub fn parse_api_list(v: &str) -> Result<Vec<Api>, ValueError> {
    let mut out: Vec<Api> = Vec::new();
    for (raw, name) in split_list(v).map_err(|e| format!("{e} (valid names: {API_NAMES})"))? {
        let Some(api) = Api::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(&name))
        else {
            return Err(ValueError::from(format!(
                "unknown API '{}' (valid names: {API_NAMES})",
                printable(raw)
            )));
        };
        if out.contains(&api) {
            return Err(ValueError::from(format!(
                "API '{}' is listed twice",
                api.name()
            )));
        }
        out.push(api);
    }
    Ok(out)
}

/// Parse a debug list (spec §1.8) into the settings `d`: the last level wins, letters add up.
///
/// # Errors
/// A reason for an empty list or entry, or an entry neither a number nor `r`, `t`, `v`.
pub fn parse_debug_list(v: &str, mut d: Debug) -> Result<Debug, ValueError> {
    const HINT: &str = "(expected a level 0-4 or the letters r, t, v, separated by commas)";
    for (raw, tok) in split_list(v).map_err(|e| format!("{e} {HINT}"))? {
        let bad = || format!("invalid debug flag '{}' {HINT}", printable(raw));
        if tok.len() > 1 || tok.starts_with(|c: char| c.is_ascii_digit()) {
            if !tok.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ValueError::from(bad()));
            }
            // only digits: a number that does not parse is above the highest level
            let level = tok.parse::<u64>().unwrap_or(u64::MAX);
            d.level = level.min(u64::from(MAX_DEBUG_LEVEL)) as u8;
        } else {
            match tok.as_str() {
                "r" => d.raw = true,
                "t" => d.times = true,
                "v" => d.verify = true,
                _ => return Err(ValueError::from(bad())),
            }
        }
    }
    Ok(d)
}

/// `Some(true)` / `Some(false)` for the eight boolean words (any case), else `None`.
pub fn bool_word(s: &str) -> Option<bool> {
    let l = s.to_ascii_lowercase();
    if TRUE_WORDS.contains(&l.as_str()) {
        Some(true)
    } else if FALSE_WORDS.contains(&l.as_str()) {
        Some(false)
    } else {
        None
    }
}

/// Parse a `--fill-value`: a byte 0..=255 (as [`parse_int`]) or `undefined` (any case).
///
/// # Errors
/// A reason for anything else.
pub fn parse_fill_value(v: &str) -> Result<FillValue, ValueError> {
    if v.eq_ignore_ascii_case("undefined") {
        return Ok(FillValue::Undefined);
    }
    let b = parse_int(v, u64::from(u8::MAX))
        .map_err(|why| format!("{why}; expected a byte value 0-255 or undefined"))?;
    Ok(FillValue::Byte(u8::try_from(b).unwrap_or(u8::MAX)))
}

/// Parse a `--fill-time`: `never`, `ifset` or `alloc` (any case).
///
/// # Errors
/// A reason for anything else.
pub fn parse_fill_time(v: &str) -> Result<FillTime, ValueError> {
    FillTime::parse(v).ok_or_else(|| "expected never, ifset or alloc".into())
}

/// Parse an `--alloc-time`: `default`, `early`, `incr` (or `incremental`) or `late`
/// (any case).
///
/// # Errors
/// A reason for anything else.
pub fn parse_alloc_time(v: &str) -> Result<AllocTime, ValueError> {
    AllocTime::parse(v).ok_or_else(|| "expected default, early, incr (incremental) or late".into())
}

/// `'s'` with control characters escaped.
pub fn quote(s: &str) -> String {
    format!("'{}'", printable(s))
}

/// `s` with control characters escaped (`\n`, `\t`, `\u{1b}`), so messages stay on one
/// line.
pub(crate) fn printable(s: &str) -> String {
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

/// The value of `--json`/`--csv` that means standard output.
pub const STDOUT: &str = "-";

/// What the value of an option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A size in bytes (spec §1.5).
    Size,
    /// A whole number (spec §1.6).
    Int,
    /// The `-A` API list (spec §1.7).
    ApiList,
    /// The `-D` debug list (spec §1.8).
    DebugList,
    /// A file name.
    File,
    /// A file name or `-` for standard output (`--json`, `--csv`); the long form takes a
    /// separate `-` although it starts with `-`.
    Destination,
    /// `--fill-value`: a byte 0..=255 or `undefined`.
    FillValue,
    /// `--fill-time`: `never`, `ifset` or `alloc`.
    FillTime,
    /// `--alloc-time`: `default`, `early`, `incr` or `late`.
    AllocTime,
    /// `--reorder=SHIFT`: a whole number of ranks, at least 1.
    Shift,
    /// `--expect`: a contract criterion.
    Criterion,
    /// `--tolerance`: a percentage.
    Percent,
    /// `--stonewall`: a number of seconds.
    Seconds,
    /// `--mpi-info`: one MPI-IO hint, `KEY=VALUE`.
    Hint,
    /// `--payload`: `constant`, `incompressible` or `compress=PCT`.
    Payload,
    /// `--chunk-cache`: `BYTES[,SLOTS[,W0]]`.
    ChunkCache,
    /// `--label`: one entry of the sign-off block, `KEY=VALUE`.
    Label,
    /// `--random=PHASES`: `write`, `read` or `write,read`.
    Phases,
    /// `--timeseries=INTERVAL`: a duration, `1s`, `10ms`, `500us` or seconds.
    Interval,
}

impl ValueKind {
    /// The value's name in the help text and the documents: `SIZE`, `N`, `LIST`, `FILE`,
    /// `BYTE`, `WHEN`, `SHIFT`, `CRITERION`, `PCT`, `SECONDS`, `KEY=VALUE`, `KIND`.
    pub fn var(self) -> &'static str {
        match self {
            ValueKind::Size => "SIZE",
            ValueKind::Int => "N",
            ValueKind::ApiList | ValueKind::DebugList => "LIST",
            ValueKind::File | ValueKind::Destination => "FILE",
            ValueKind::FillValue => "BYTE",
            ValueKind::FillTime | ValueKind::AllocTime => "WHEN",
            ValueKind::Shift => "SHIFT",
            ValueKind::Criterion => "CRITERION",
            ValueKind::Percent => "PCT",
            ValueKind::Seconds => "SECONDS",
            ValueKind::Hint | ValueKind::Label => "KEY=VALUE",
            ValueKind::Payload => "KIND",
            ValueKind::ChunkCache => "BYTES[,SLOTS[,W0]]",
            ValueKind::Phases => "PHASES",
            ValueKind::Interval => "INTERVAL",
        }
    }

    /// Whether a long option of this kind takes the separate argument `next` as its
    /// value although it starts with `-`: only `-` (standard output) for `--json`/`--csv`.
    pub fn takes_stdout(self, next: &str) -> bool {
        self == ValueKind::Destination && next == STDOUT
    }

    /// What the value should be, for "missing value" messages.
    pub fn expected(self) -> &'static str {
        match self {
            ValueKind::Size => "a size",
            ValueKind::Int => "a whole number",
            ValueKind::ApiList => "a list of APIs",
            ValueKind::DebugList => "a list of debug flags",
            ValueKind::File | ValueKind::Destination => "a file name",
            ValueKind::FillValue => "a byte value 0-255 or undefined",
            ValueKind::FillTime => "never, ifset or alloc",
            ValueKind::AllocTime => "default, early, incr or late",
            ValueKind::Shift => "a whole number of ranks, at least 1",
            ValueKind::Criterion => "a criterion such as mpiio.write>=2GB/s",
            ValueKind::Percent => "a percentage such as 10",
            ValueKind::Seconds => "a number of seconds such as 300",
            ValueKind::Hint => "an MPI-IO hint KEY=VALUE",
            ValueKind::Label => "a label KEY=VALUE such as sut=array-3",
            ValueKind::Payload => "constant, incompressible or compress=PCT",
            ValueKind::ChunkCache => "a size, then optionally slots and w0: 1M,521,0.75",
            ValueKind::Phases => "write, read or write,read",
            ValueKind::Interval => "an interval such as 1s, 10ms or 500us",
        }
    }
}

/// The shortest `--timeseries` interval, ns (1 ms).
pub const MIN_INTERVAL_NS: u64 = 1_000_000;

/// The longest `--timeseries` interval, ns (one day).
pub const MAX_INTERVAL_NS: u64 = 86_400 * 1_000_000_000;

/// `--timeseries`'s value in nanoseconds: `None` (the option bare) is 1 s; else a
/// decimal number followed by `s`, `ms` or `us` (none: seconds), from
/// [`MIN_INTERVAL_NS`] to [`MAX_INTERVAL_NS`].
///
/// # Errors
/// The reason, for the command line's message.
pub fn parse_interval(v: Option<&str>) -> Result<u64, ValueError> {
    let Some(v) = v else {
        return Ok(1_000_000_000);
    };
    let t = v.trim();
    let (num, unit) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else {
        (t, 1e9)
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let x: f64 = match num.parse() {
        Ok(x) if digits(num) => x,
        _ => {
            return Err(ValueError::from(format!(
                "not an interval (e.g. 1s, 10ms or 500us): '{v}'"
            )))
        }
    };
    let ns = (x * unit).round();
    if !(MIN_INTERVAL_NS as f64..=MAX_INTERVAL_NS as f64).contains(&ns) {
        return Err(ValueError::from(
            "must be at least 1ms and at most one day (86400s)".to_string(),
        ));
    }
    Ok(ns as u64)
}

/// `--chunk-cache=BYTES[,SLOTS[,W0]]`: the raw-data chunk cache of each PHDF5 dataset
/// (`H5Pset_chunk_cache` on its dataset-access list; HDF5 User's Guide, "Chunking in
/// HDF5": the cache holds up to `bytes` of chunks in a hash table of `slots` entries and
/// evicts fully read or written chunks first with weight `w0`, 0-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkCache {
    /// Bytes of chunks the cache holds (`rdcc_nbytes`).
    pub bytes: u64,
    /// Hash-table slots (`rdcc_nslots`); `None`: the file's (HDF5's
    /// `H5D_CHUNK_CACHE_NSLOTS_DEFAULT`).
    pub slots: Option<u64>,
    /// The preemption weight `rdcc_w0` in thousandths (0-1000); `None`: the file's
    /// (`H5D_CHUNK_CACHE_W0_DEFAULT`).
    pub w0_milli: Option<u32>,
}

impl ChunkCache {
    /// The value as the parameter block and the results show it: `BYTES,SLOTS,W0` with
    /// `default` for a part not given (`1048576,default,default`).
    pub fn text(&self) -> String {
        let slots = self.slots.map_or("default".to_string(), |n| n.to_string());
        let w0 = self.w0_milli.map_or("default".to_string(), w0_text);
        format!("{},{slots},{w0}", self.bytes)
    }
}

/// A weight in thousandths as a decimal (`750` → `0.75`, `1000` → `1`).
pub fn w0_text(milli: u32) -> String {
    let t = format!("{}.{:03}", milli / 1000, milli % 1000);
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `--chunk-cache`'s value: a size ([`parse_size`]), then optionally a whole number of
/// slots (at least 1) and a weight 0-1 with at most three decimals.
///
/// # Errors
/// The reason, for the command line's message.
pub fn parse_chunk_cache(s: &str) -> Result<ChunkCache, ValueError> {
    let mut parts = s.split(',');
    let bytes = parse_size(parts.next().unwrap_or(""))?;
    let slots = match parts.next() {
        None => None,
        Some(t) => match parse_int(t, u64::from(u32::MAX))? {
            0 => return Err(ValueError::from("SLOTS must be at least 1")),
            n => Some(n),
        },
    };
    let w0_milli = parts.next().map(parse_w0).transpose()?;
    if parts.next().is_some() {
        return Err(ValueError::from("expected BYTES[,SLOTS[,W0]]"));
    }
    Ok(ChunkCache {
        bytes,
        slots,
        w0_milli,
    })
}

/// A weight 0-1 with at most three decimals, in thousandths.
fn parse_w0(t: &str) -> Result<u32, ValueError> {
    let bad = || ValueError::from("W0 must be a number from 0 to 1 with at most 3 decimals");
    let t = trim_blanks(t);
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 3 {
        return Err(bad());
    }
    let w: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let f: u32 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
    let milli = w
        .checked_mul(1000)
        .and_then(|x| x.checked_add(f))
        .ok_or_else(bad)?;
    if milli > 1000 {
        return Err(bad());
    }
    Ok(milli)
}

/// A set of selected APIs. Empty means "none given" on the command line, which
/// resolves to all three (spec §1.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApiSet {
    /// POSIX selected.
    pub posix: bool,
    /// MPI-IO selected.
    pub mpiio: bool,
    /// PHDF5 selected.
    pub phdf5: bool,
}

impl ApiSet {
    /// Add one API to the set.
    pub fn insert(&mut self, api: Api) {
        match api {
            Api::Posix => self.posix = true,
            Api::Mpiio => self.mpiio = true,
            Api::Phdf5 => self.phdf5 = true,
        }
    }
    /// Whether `api` is in the set.
    pub fn contains(&self, api: Api) -> bool {
        match api {
            Api::Posix => self.posix,
            Api::Mpiio => self.mpiio,
            Api::Phdf5 => self.phdf5,
        }
    }
    /// True when no API is selected.
    pub fn is_empty(&self) -> bool {
        !(self.posix || self.mpiio || self.phdf5)
    }
    /// The selected APIs in execution order.
    pub fn iter(self) -> impl Iterator<Item = Api> {
        Api::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

/// The `-D` debug settings (spec §1.8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Debug {
    /// Debug level 0..=4 (levels 1 and 2 are identical; 3 adds detail blocks; 4 traces).
    pub level: u8,
    /// `r`: print raw-data throughput blocks.
    pub raw: bool,
    /// `t`: print times next to throughputs and the open/close time blocks.
    pub times: bool,
    /// `v`: fill buffers with rank+1 and verify every byte read back.
    pub verify: bool,
}

/// Why a rule refused a value (a size, a count, a debug level, a file name): the command
/// line prints [`ValueError::reason`], the C API the sentence of [`fmt::Display`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// What the value is, in words (`HDF5 alignment`, `number of files`); empty until
    /// [`ValueError::named`].
    what: &'static str,
    problem: Problem,
}

/// What is wrong with a refused value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    /// Zero where at least 1 is required.
    Zero,
    /// Above `max`; `unit` (`" bytes"` or empty) follows the limit in the reason.
    TooLarge {
        value: u64,
        max: u64,
        unit: &'static str,
    },
    /// Outside `range` (written `0..4`).
    OutOfRange { value: i64, range: &'static str },
    /// An empty file name; `hint` (possibly empty) follows the reason.
    EmptyName { hint: &'static str },
    /// A parser's refusal of the text: the reason as the command line prints it.
    Refused(String),
}

impl ValueError {
    /// The refusal with the value named `what` (`block size`), for [`fmt::Display`].
    pub fn named(self, what: &'static str) -> ValueError {
        ValueError { what, ..self }
    }

    /// The reason alone, without naming the value (`must be at least 1`).
    pub fn reason(&self) -> String {
        match &self.problem {
            Problem::Zero => "must be at least 1".to_string(),
            Problem::TooLarge { max, unit, .. } => format!("too large (at most {max}{unit})"),
            Problem::OutOfRange { range, .. } => format!("must be {range}"),
            Problem::EmptyName { hint } => format!("empty file name{hint}"),
            Problem::Refused(reason) => reason.clone(),
        }
    }
}

impl fmt::Display for ValueError {
    /// The whole sentence, naming the value (`HDF5 alignment must be at least 1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what;
        match &self.problem {
            Problem::Zero => write!(f, "{what} must be at least 1"),
            Problem::TooLarge { value, max, .. } => {
                write!(f, "{what} ({value}) is too large (at most {max})")
            }
            Problem::OutOfRange { value, range } => write!(f, "{what} ({value}) must be {range}"),
            Problem::EmptyName { .. } => write!(f, "empty {what}"),
            Problem::Refused(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for ValueError {}

/// A parser's refusal (`empty list`): the reason alone, as the command line prints it.
impl From<String> for ValueError {
    fn from(reason: String) -> ValueError {
        ValueError {
            what: "",
            problem: Problem::Refused(reason),
        }
    }
}

/// See the `From<String>` form.
impl From<&str> for ValueError {
    fn from(reason: &str) -> ValueError {
        ValueError::from(reason.to_string())
    }
}

/// The largest size in bytes (`-e -x -X -B -a -T`): `i64::MAX`, the C tool's `off_t`
/// arithmetic (spec §1.5).
pub const MAX_SIZE: u64 = i64::MAX as u64;
/// The largest number of files (`-F`) or datasets (`-d`): `i64::MAX` (spec §1.6).
pub const MAX_COUNT: u64 = i64::MAX as u64;
/// The highest debug level (`-D`); larger levels count as this one (spec §1.8).
pub const MAX_DEBUG_LEVEL: u8 = 4;

/// A size in bytes (`-e -x -X -B -T`), at most [`MAX_SIZE`].
///
/// # Errors
/// More than [`MAX_SIZE`] bytes.
pub fn size(bytes: u64) -> Result<u64, ValueError> {
    at_most(bytes, MAX_SIZE, " bytes")
}

/// A size in bytes of at least 1 (`-a`).
///
/// # Errors
/// Zero, or more than [`MAX_SIZE`] bytes.
pub fn positive_size(bytes: u64) -> Result<u64, ValueError> {
    size(at_least_one(bytes)?)
}

/// A count (`-F`, `-d`, the shift of `--reorder`): at least 1, at most [`MAX_COUNT`].
///
/// # Errors
/// Zero, or more than [`MAX_COUNT`].
pub fn count(n: u64) -> Result<u64, ValueError> {
    at_most(at_least_one(n)?, MAX_COUNT, "")
}

/// The `-D` level: 0..=4; a larger level counts as [`MAX_DEBUG_LEVEL`] (spec §1.8).
///
/// # Errors
/// A negative level.
pub fn debug_level(level: i64) -> Result<u8, ValueError> {
    if level < 0 {
        return Err(ValueError {
            what: "debug level",
            problem: Problem::OutOfRange {
                value: level,
                range: "0..4",
            },
        });
    }
    Ok(level.min(i64::from(MAX_DEBUG_LEVEL)) as u8)
}

/// A file name (`-o`, `--json`, ...) as given; the reason for an empty one ends with `hint`.
///
/// # Errors
/// An empty name.
pub fn file_name(name: &OsStr, hint: &'static str) -> Result<OsString, ValueError> {
    if name.is_empty() {
        Err(ValueError {
            what: "",
            problem: Problem::EmptyName { hint },
        })
    } else {
        Ok(name.to_os_string())
    }
}

/// Appended to the reason for an empty `--json`/`--csv`/`--rank-csv` name.
pub const STDOUT_HINT: &str = " (use - for standard output)";

/// `--reorder[=SHIFT]`: `None` for the default shift (the ranks on a node).
///
/// # Errors
/// A shift of zero, or more than [`MAX_COUNT`].
pub fn reorder(shift: Option<u64>) -> Result<Reorder, ValueError> {
    Ok(match shift {
        None => Reorder::ByNode,
        Some(s) => Reorder::Shift(count(s).map_err(|e| e.named("read reorder shift"))?),
    })
}

/// `n` unless it is zero.
fn at_least_one(n: u64) -> Result<u64, ValueError> {
    if n == 0 {
        Err(ValueError {
            what: "",
            problem: Problem::Zero,
        })
    } else {
        Ok(n)
    }
}

/// `value` if at most `max`.
fn at_most(value: u64, max: u64, unit: &'static str) -> Result<u64, ValueError> {
    if value > max {
        Err(ValueError {
            what: "",
            problem: Problem::TooLarge { value, max, unit },
        })
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_cache_values() {
        let c = parse_chunk_cache("2M").unwrap();
        assert_eq!((c.bytes, c.slots, c.w0_milli), (2 << 20, None, None));
        assert_eq!(c.text(), "2097152,default,default");
        let c = parse_chunk_cache("1K,521,0.75").unwrap();
        assert_eq!((c.bytes, c.slots, c.w0_milli), (1024, Some(521), Some(750)));
        assert_eq!(c.text(), "1024,521,0.75");
        for (w, milli) in [
            ("0", 0),
            ("1", 1000),
            (".5", 500),
            ("1.000", 1000),
            ("0.001", 1),
        ] {
            assert_eq!(
                parse_chunk_cache(&format!("0,1,{w}")).unwrap().w0_milli,
                Some(milli)
            );
        }
        assert_eq!(w0_text(1000), "1");
        assert_eq!(w0_text(0), "0");
        assert_eq!(w0_text(50), "0.05");
        for bad in [
            "",
            "1M,0",
            "1M,1,1.5",
            "1M,1,0.0001",
            "1M,1,-0",
            "1M,1,x",
            "1M,1,.",
            "1M,1,1,1",
        ] {
            assert!(parse_chunk_cache(bad).is_err(), "{bad}");
        }
    }
    use crate::cli::{refused, run};
    use crate::config::{ApiSet, Debug};

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
        let reason = |v: &str| parse_size(v).unwrap_err().reason();
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
    fn sizes_accept_zero_and_refuse_above_i64_max() {
        assert_eq!(size(0), Ok(0));
        assert_eq!(size(MAX_SIZE), Ok(MAX_SIZE));
        let e = size(MAX_SIZE + 1).unwrap_err().named("block size");
        assert_eq!(
            e.to_string(),
            "block size (9223372036854775808) is too large (at most 9223372036854775807)"
        );
        assert_eq!(e.reason(), "too large (at most 9223372036854775807 bytes)");
    }

    #[test]
    fn align_and_counts_must_be_at_least_one() {
        type Rule = fn(u64) -> Result<u64, ValueError>;
        for (rule, unit) in [(positive_size as Rule, " bytes"), (count, "")] {
            assert_eq!(rule(7), Ok(7));
            assert_eq!(rule(i64::MAX as u64), Ok(i64::MAX as u64));
            let e = rule(0).unwrap_err().named("number of files");
            assert_eq!(e.to_string(), "number of files must be at least 1");
            assert_eq!(e.reason(), "must be at least 1");
            let e = rule(u64::MAX).unwrap_err().named("number of files");
            assert_eq!(
                e.to_string(),
                "number of files (18446744073709551615) is too large (at most 9223372036854775807)"
            );
            assert_eq!(
                e.reason(),
                format!("too large (at most 9223372036854775807{unit})")
            );
        }
    }

    #[test]
    fn debug_level_clamps_above_four_and_refuses_negative() {
        for (level, want) in [(0, 0), (3, 3), (4, 4), (5, 4), (i64::MAX, 4)] {
            assert_eq!(debug_level(level), Ok(want), "{level}");
        }
        let e = debug_level(-1).unwrap_err();
        assert_eq!(e.to_string(), "debug level (-1) must be 0..4");
        assert_eq!(e.reason(), "must be 0..4");
    }

    #[test]
    fn reorder_shift_at_least_one() {
        assert_eq!(reorder(None), Ok(Reorder::ByNode));
        assert_eq!(reorder(Some(3)), Ok(Reorder::Shift(3)));
        let e = reorder(Some(0)).unwrap_err();
        assert_eq!(e.to_string(), "read reorder shift must be at least 1");
        assert!(reorder(Some(u64::MAX)).is_err());
    }

    #[test]
    fn file_names_must_not_be_empty() {
        let os = OsStr::new;
        assert_eq!(file_name(os(" a b "), ""), Ok(" a b ".into()));
        assert_eq!(file_name(os("-"), STDOUT_HINT), Ok("-".into()));
        let e = file_name(os(""), "").unwrap_err().named("report file name");
        assert_eq!(
            (e.to_string().as_str(), e.reason().as_str()),
            ("empty report file name", "empty file name")
        );
        let e = file_name(os(""), STDOUT_HINT)
            .unwrap_err()
            .named("JSON file name");
        assert_eq!(e.to_string(), "empty JSON file name");
        assert_eq!(e.reason(), "empty file name (use - for standard output)");
    }
}
