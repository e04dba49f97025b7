//! Reading h5perf's own results files (also after the report on stdout) into a [`ResultSet`].

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, Read};

use crate::config::values::printable;
use crate::config::{Api, Params};
use crate::error::{path_text, Error, Result};
use crate::measure::{Phase, Record};

use super::export::{self, RunMeta, FIELDS, FIRST_META, FIRST_PARAM};
use super::json_text::{self, Json};
use super::results::{Cell, CellKey, CellLatency, RankSample, ResultSet, FACT_KEYS, RUN_FIELDS};

/// A results file that cannot be read back: the complete message.
fn bad(msg: impl Into<String>) -> Error {
    Error::Results(msg.into())
}

/// The results of a run that just ended, as a later `--from` reads them back.
pub fn of_run(meta: &RunMeta, p: &Params, records: &[Record]) -> ResultSet {
    export::result_set(meta, p, records)
}

/// What a results file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// `--csv` or `--json` results (without samples).
    Results(ResultSet),
    /// `--rank-csv` samples.
    Samples(Vec<RankSample>),
}

/// The largest results file read, bytes (256 MiB): a results file of a large sweep is a few
/// MiB, a `--rank-csv` file of 256 ranks × 5 iterations × 1,000 measurements about 80 MiB.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// What `m` is, when it is not a regular file: `a FIFO`, `a directory`, ….
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    match () {
        _ if t.is_dir() => "a directory",
        _ if t.is_fifo() => "a FIFO",
        _ if t.is_char_device() => "a character device",
        _ if t.is_block_device() => "a block device",
        _ if t.is_socket() => "a socket",
        _ => "of another kind",
    }
}

/// `name` opened for reading: a regular file of at most [`MAX_FILE_BYTES`], found so without
/// blocking (opened with `O_NONBLOCK`, so a FIFO without a writer does not wait).
fn open_regular(name: &OsStr) -> std::result::Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(name)
        .map_err(|e| crate::error::io_text(&e))?;
    let m = f.metadata().map_err(|e| crate::error::io_text(&e))?;
    if !m.is_file() {
        return Err(format!(
            "{}, not a regular file (results are read from regular files only)",
            kind_of(&m)
        ));
    }
    if m.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(f)
}

fn too_large() -> String {
    format!(
        "larger than {} MiB, the most h5perf reads of a results file",
        MAX_FILE_BYTES >> 20
    )
}

/// Read one results file: a regular file of at most [`MAX_FILE_BYTES`], read as a stream
/// (CSV rows one by one; a JSON document whole).
///
/// # Errors
/// `NAME: reason` when the file cannot be opened, is not a regular file or is too large, or
/// is not an h5perf results document (the reason names the line or record and the field).
pub fn read_file(name: &OsStr) -> Result<Document> {
    let shown = path_text(name);
    let f = open_regular(name).map_err(|e| bad(format!("{shown}: {e}")))?;
    let reader = std::io::BufReader::new(f.take(MAX_FILE_BYTES + 1));
    read_document(reader).map_err(|e| bad(format!("{shown}: {e}")))
}

/// Read the results of one run from `names`: one results file and at most one `--rank-csv`.
///
/// # Errors
/// A file cannot be read or parsed; not exactly one results file; foreign samples.
pub fn read_results(names: &[OsString]) -> Result<ResultSet> {
    let mut results: Option<(String, ResultSet)> = None;
    let mut samples: Option<(String, Vec<RankSample>)> = None;
    for name in names {
        let doc = read_file(name)?;
        let name = path_text(name);
        match doc {
            Document::Results(r) => {
                if let Some((first, _)) = &results {
                    return Err(bad(format!(
                        "{first} and {name} are both results files (give one --csv or \
                         --json file and at most one --rank-csv file)"
                    )));
                }
                results = Some((name, r));
            }
            Document::Samples(s) => {
                if let Some((first, _)) = &samples {
                    return Err(bad(format!("{first} and {name} are both --rank-csv files")));
                }
                samples = Some((name, s));
            }
        }
    }
    let Some((rname, mut set)) = results else {
        let all: Vec<String> = names.iter().map(|n| path_text(n)).collect();
        return Err(bad(format!(
            "{} holds per-rank samples only: give the run's --csv or --json file too",
            all.join(", ")
        )));
    };
    if let Some((sname, s)) = samples {
        let keys: HashSet<CellKey> = set.cells.iter().map(|c| c.key).collect();
        if let Some(r) = s.iter().find(|r| !keys.contains(&r.key)) {
            return Err(bad(format!(
                "{sname} does not belong to {rname}: {rname} has no {}",
                r.key
            )));
        }
        set.samples = s;
    }
    Ok(set)
}

/// The lines of a stream, one by one, counted, at most [`MAX_FILE_BYTES`] in all; a UTF-8
/// byte-order mark at its start is skipped (spreadsheets write one).
struct Lines<R> {
    r: R,
    /// The number of the last line read (from 1).
    line: usize,
    bytes: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    fn new(r: R) -> Self {
        Lines {
            r,
            line: 0,
            bytes: 0,
            buf: Vec::new(),
        }
    }

    /// The next line with its line end, `None` at the end.
    fn next(&mut self) -> Result<Option<String>> {
        self.buf.clear();
        let n = self
            .r
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| bad(crate::error::io_text(&e)))?;
        if n == 0 {
            return Ok(None);
        }
        self.bytes += n as u64;
        self.line += 1;
        if self.bytes > MAX_FILE_BYTES {
            return Err(bad(too_large()));
        }
        let mut text = std::str::from_utf8(&self.buf)
            .map_err(|_| bad(format!("line {}: not UTF-8 text", self.line)))?;
        if self.line == 1 {
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        Ok(Some(text.to_string()))
    }

    /// The next CSV record (RFC 4180: a quoted field may hold line ends) and the number of
    /// its first line, `None` at the end.
    fn record(&mut self) -> Result<Option<(usize, Vec<String>)>> {
        let Some(mut rec) = self.next()? else {
            return Ok(None);
        };
        let first = self.line;
        // quotes come in pairs: the record ends at the first line end after an even count
        let mut quotes = rec.matches('"').count();
        if quotes % 2 == 1 {
            // a quote misplaced on the first line is named as such
            fields_so_far(&rec, first)?;
        }
        while quotes % 2 == 1 {
            let Some(more) = self.next()? else {
                return Err(bad(format!("line {first}: a quoted field is not closed")));
            };
            quotes += more.matches('"').count();
            rec.push_str(&more);
        }
        let body = rec.strip_suffix('\n').unwrap_or(&rec);
        let body = match rec.ends_with('\n') {
            true => body.strip_suffix('\r').unwrap_or(body),
            false => body,
        };
        fields(body, first).map(|f| Some((first, f)))
    }
}

/// The fields of one CSV record `rec` (without its line end) that starts on line `line`.
///
/// # Errors
/// A quote inside an unquoted field, or (`a quoted field is not closed`) one left open.
fn fields(rec: &str, line: usize) -> Result<Vec<String>> {
    fields_so_far(rec, line)?
        .ok_or_else(|| bad(format!("line {line}: a quoted field is not closed")))
}

/// The fields of `rec` as [`fields`], `None` when it ends inside a quoted field.
fn fields_so_far(rec: &str, line: usize) -> Result<Option<Vec<String>>> {
    let mut row = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut was_quoted) = (false, false);
    let mut chars = rec.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            (false, '"') => return Err(bad(format!("line {line}: a quote inside a field"))),
            (false, ',') => {
                row.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Ok(None);
    }
    row.push(field);
    Ok(Some(row))
}

/// The document in `text`; errors as [`read_document`].
pub fn parse_document(text: &str) -> Result<Document> {
    read_document(text.as_bytes())
}

/// The document read from `r` (what comes before it, such as a report, is skipped).
///
/// # Errors
/// Not a results document, a malformed one (the reason names the line or record and the
/// field), or more than [`MAX_FILE_BYTES`].
pub fn read_document(r: impl BufRead) -> Result<Document> {
    let mut lines = Lines::new(r);
    while let Some(line) = lines.next()? {
        let l = line.trim_end_matches(['\n', '\r']);
        if l == "{" {
            // the document from this line on, read as a stream
            let before = lines.bytes.saturating_sub(line.len() as u64);
            let from = lines.line;
            let rest = line.as_bytes().chain(&mut lines.r);
            return results_of_json(rest, from, MAX_FILE_BYTES.saturating_sub(before))
                .map(Document::Results);
        }
        if l.starts_with("nprocs,xfer_size,buf_bytes,") {
            let header = fields(l, lines.line)?;
            return results_of_csv(header, &mut lines).map(Document::Results);
        }
        if l.starts_with("nprocs,xfer_size,api,iteration,") {
            let header = fields(l, lines.line)?;
            return samples_of_csv(&header, &mut lines).map(Document::Samples);
        }
    }
    Err(bad(
        "not an h5perf results file (no line '{' of --json, no header of --csv or \
         --rank-csv)",
    ))
}

/// The rows of an RFC 4180 CSV text (`\n` or `\r\n` line ends).
///
/// # Errors
/// A quote left open, or a quote inside an unquoted field.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>> {
    let mut lines = Lines::new(text.as_bytes());
    let mut rows = Vec::new();
    while let Some((_, row)) = lines.record()? {
        rows.push(row);
    }
    Ok(rows)
}

/// A field getter of one record: the field's text, `None` when absent, empty or null.
type Get<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// The text of field `name`, required.
fn need(get: &Get<'_>, name: &str, at: &str) -> Result<String> {
    get(name).ok_or_else(|| bad(format!("{at}: no value of {name}")))
}

fn num<T: std::str::FromStr>(get: &Get<'_>, name: &str, at: &str) -> Result<T> {
    let t = need(get, name, at)?;
    t.parse()
        .map_err(|_| bad(format!("{at}: {name} is not a number: '{}'", printable(&t))))
}

/// A figure (seconds, MiB/s): a finite number, not negative. `1e999`, `inf`, `NaN` or `-1`
/// would be compared or drawn as if measured, and are refused.
fn figure(get: &Get<'_>, name: &str, at: &str) -> Result<f64> {
    let v: f64 = num(get, name, at)?;
    if !v.is_finite() {
        let t = need(get, name, at)?;
        return Err(bad(format!(
            "{at}: {name} is not a finite number: '{}'",
            printable(&t)
        )));
    }
    if v < 0.0 {
        return Err(bad(format!("{at}: {name} is negative: {v}")));
    }
    Ok(v)
}

/// The (processes, transfer size, API, phase) of a record.
fn key_of(get: &Get<'_>, at: &str) -> Result<CellKey> {
    let api = need(get, "api", at)?;
    let api = Api::ALL
        .into_iter()
        .find(|a| a.name() == api)
        .ok_or_else(|| bad(format!("{at}: unknown api '{}'", printable(&api))))?;
    let phase = need(get, "phase", at)?;
    let phase = Phase::ALL
        .into_iter()
        .find(|p| p.key() == phase)
        .ok_or_else(|| bad(format!("{at}: unknown phase '{}'", printable(&phase))))?;
    Ok(CellKey::new(
        num(get, "nprocs", at)?,
        num(get, "xfer_size", at)?,
        api,
        phase,
    ))
}

fn cell_of(get: &Get<'_>, at: &str) -> Result<Cell> {
    let host = get("slowest_host").unwrap_or_default();
    let slowest = match get("slowest_rank") {
        Some(_) => Some((num(get, "slowest_rank", at)?, host)),
        None => None,
    };
    Ok(Cell {
        key: key_of(get, at)?,
        bytes: num(get, "bytes", at)?,
        iterations: num(get, "iterations", at)?,
        min_time_s: figure(get, "min_time_s", at)?,
        avg_time_s: figure(get, "avg_time_s", at)?,
        max_time_s: figure(get, "max_time_s", at)?,
        std_time_s: figure(get, "std_time_s", at)?,
        max_mibps: figure(get, "max_mibps", at)?,
        avg_mibps: figure(get, "avg_mibps", at)?,
        min_mibps: figure(get, "min_mibps", at)?,
        std_mibps: figure(get, "std_mibps", at)?,
        slowest,
        latency: latency_of(get, at)?,
    })
}

/// The `latency_*` fields of a record (`--latency`): `None` when absent or when no call
/// was timed (`latency_calls` 0, the figures empty).
fn latency_of(get: &Get<'_>, at: &str) -> Result<Option<CellLatency>> {
    if get("latency_calls").is_none() || num::<u64>(get, "latency_calls", at)? == 0 {
        return Ok(None);
    }
    let q = |k: &str| figure(get, &format!("latency_{k}_s"), at);
    Ok(Some(CellLatency {
        calls: num(get, "latency_calls", at)?,
        min_s: q("min")?,
        quantiles_s: [q("p50")?, q("p90")?, q("p99")?, q("p999")?],
        max_s: q("max")?,
        max_rank: num(get, "latency_max_rank", at)?,
        max_host: get("latency_max_host").unwrap_or_default(),
    }))
}

/// The cells read so far, a second measurement of one key refused (found by hashing).
#[derive(Default)]
struct Cells {
    cells: Vec<Cell>,
    seen: HashSet<CellKey>,
}

impl Cells {
    fn push(&mut self, c: Cell, at: &str) -> Result<()> {
        if !self.seen.insert(c.key) {
            return Err(bad(format!("{at}: a second record of {}", c.key)));
        }
        self.cells.push(c);
        Ok(())
    }
}

/// The field getter of a CSV record `row` of line `line`; errors when its length is wrong.
fn csv_row<'a>(
    header: &'a [String],
    row: &'a [String],
    line: usize,
) -> Result<(String, impl Fn(&str) -> Option<String> + 'a)> {
    let at = format!("line {line}");
    if row.len() != header.len() {
        return Err(bad(format!(
            "{at}: {} fields, the header has {}",
            row.len(),
            header.len()
        )));
    }
    let get = |name: &str| {
        let c = header.iter().position(|h| h == name)?;
        Some(unmarked(&row[c]).to_string()).filter(|v| !v.is_empty())
    };
    Ok((at, get))
}

/// A CSV text field without the `'` that h5perf writes before a formula-like one
/// ([`export::FORMULA_LEADS`]); any other field as it is.
fn unmarked(field: &str) -> &str {
    match field.strip_prefix('\'') {
        Some(rest) if rest.starts_with(export::FORMULA_LEADS) => rest,
        _ => field,
    }
}

/// The results of a `--csv` document (its header first).
///
/// # Errors
/// A header, field or value missing or malformed, or two rows of one measurement.
pub fn results_from_csv(text: &str) -> Result<ResultSet> {
    let mut lines = Lines::new(text.as_bytes());
    let Some((_, header)) = lines.record()? else {
        return Err(bad("empty CSV"));
    };
    results_of_csv(header, &mut lines)
}

/// The results of a `--csv` document whose header is `header`, its rows read from `lines`.
fn results_of_csv<R: BufRead>(header: Vec<String>, lines: &mut Lines<R>) -> Result<ResultSet> {
    let has = |name: &str| header.iter().any(|h| h == name);
    for f in [
        "nprocs",
        "xfer_size",
        "api",
        "phase",
        "avg_mibps",
        "std_mibps",
    ] {
        if !has(f) {
            return Err(bad(format!("the CSV header has no column {f}")));
        }
    }
    let mut set = ResultSet::default();
    let params: Vec<&str> = FIELDS[FIRST_PARAM..FIRST_META]
        .iter()
        .copied()
        .chain(
            header
                .iter()
                .map(String::as_str)
                .filter(|h| crate::config::params::result_keys().any(|k| k == *h)),
        )
        .filter(|f| has(f))
        .collect();
    let mut cells = Cells::default();
    let mut first = true;
    while let Some((line, row)) = lines.record()? {
        let (at, get) = csv_row(&header, &row, line)?;
        if std::mem::take(&mut first) {
            set.run = RUN_FIELDS
                .iter()
                .map(|f| get(f).unwrap_or_default())
                .collect();
            set.parameters = params
                .iter()
                .map(|f| (f.to_string(), get(f).unwrap_or_default()))
                .collect();
            set.facts = FACT_KEYS
                .iter()
                .filter_map(|f| get(f).map(|v| (f.to_string(), v)))
                .collect();
        }
        cells.push(cell_of(&get, &at)?, &at)?;
    }
    set.cells = cells.cells;
    Ok(set)
}

/// The samples of a `--rank-csv` document (its header first); errors as [`results_from_csv`].
pub fn samples_from_csv(text: &str) -> Result<Vec<RankSample>> {
    let mut lines = Lines::new(text.as_bytes());
    let Some((_, header)) = lines.record()? else {
        return Err(bad("empty CSV"));
    };
    samples_of_csv(&header, &mut lines)
}

/// The samples of a `--rank-csv` document whose header is `header`, read from `lines`.
fn samples_of_csv<R: BufRead>(header: &[String], lines: &mut Lines<R>) -> Result<Vec<RankSample>> {
    let mut out = Vec::new();
    while let Some((line, row)) = lines.record()? {
        let (at, get) = csv_row(header, &row, line)?;
        out.push(RankSample {
            key: key_of(&get, &at)?,
            iteration: num(&get, "iteration", &at)?,
            rank: num(&get, "rank", &at)?,
            host: get("host").unwrap_or_default(),
            time_s: figure(&get, "time_s", &at)?,
        });
    }
    Ok(out)
}

/// The results of a `--json` document; errors: a bad document or record.
pub fn results_from_json(text: &str) -> Result<ResultSet> {
    results_of_json(text.as_bytes(), 1, MAX_FILE_BYTES)
}

/// The results of a `--json` document read from `r` as a stream (its records one at a
/// time, so memory holds the cells, not the text), whose first line is line `first_line`
/// of its file; at most `limit` bytes.
///
/// # Errors
/// A bad document (`line L, column C: ...`), a bad record (`line L (record N): ...`, the
/// line where the record starts), or more than `limit` bytes.
fn results_of_json<R: BufRead>(r: R, first_line: usize, limit: u64) -> Result<ResultSet> {
    let mut cells = Cells::default();
    let mut n = 0usize;
    let j = json_text::parse_object_streaming(
        r,
        first_line,
        limit,
        &too_large(),
        "records",
        |line, rec| {
            n += 1;
            let at = format!("line {line} (record {n})");
            let get = |name: &str| rec.get(name).and_then(Json::text).filter(|v| !v.is_empty());
            cells.push(cell_of(&get, &at)?, &at)
        },
    )?;
    if !matches!(j.get("records"), Some(Json::Arr(_))) {
        return Err(bad("the JSON has no \"records\" array"));
    }
    let mut set = ResultSet::default();
    for f in RUN_FIELDS {
        let v = match (f, j.get(f)) {
            ("mpi_info", Some(Json::Obj(m))) => m
                .iter()
                .map(|(k, v)| format!("{k}={}", v.text().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(";"),
            ("hosts", Some(Json::Arr(hs))) => hs
                .iter()
                .map(|h| {
                    let t = |k: &str| h.get(k).and_then(Json::text).unwrap_or_default();
                    format!("{}:{}", t("name"), t("ranks"))
                })
                .collect::<Vec<_>>()
                .join(";"),
            (_, v) => v.and_then(Json::text).unwrap_or_default(),
        };
        set.run.push(v);
    }
    set.facts = FACT_KEYS
        .iter()
        .filter_map(|f| j.get(f).and_then(Json::text).map(|v| (f.to_string(), v)))
        .collect();
    (set.per_host, set.per_iteration) = spread_of_json(&j)?;
    if let Some(Json::Obj(ps)) = j.get("parameters") {
        set.parameters = ps
            .iter()
            .map(|(k, v)| (k.clone(), v.text().unwrap_or_default()))
            .collect();
    }
    set.cells = cells.cells;
    set.timeseries = super::timeseries::of_json(&j)?;
    Ok(set)
}

/// What a set's [`ResultSet::per_host`] and [`ResultSet::per_iteration`] hold.
type Spread = (
    Vec<(CellKey, super::results::HostShare)>,
    Vec<(CellKey, super::results::Iteration)>,
);

/// The `per_host` and `per_iteration` arrays of a `--json` document (written with
/// `--conditions`; empty without them); `mibps` `null` for a stonewalled run.
///
/// # Errors
/// An object without a field or with a bad figure (`per_host[N]: ...`).
fn spread_of_json(j: &Json) -> Result<Spread> {
    let objects = |name: &str| match j.get(name) {
        Some(Json::Arr(v)) => v.as_slice(),
        _ => &[],
    };
    let mut hosts = Vec::new();
    for (n, o) in objects("per_host").iter().enumerate() {
        let at = format!("per_host[{n}]");
        let get = |name: &str| o.get(name).and_then(Json::text).filter(|v| !v.is_empty());
        let mibps = match o.get("mibps") {
            Some(Json::Null) => None,
            _ => Some(figure(&get, "mibps", &at)?),
        };
        hosts.push((
            key_of(&get, &at)?,
            super::results::HostShare {
                host: need(&get, "host", &at)?,
                ranks: num(&get, "ranks", &at)?,
                bytes: match o.get("bytes") {
                    Some(Json::Null) => None,
                    _ => Some(num(&get, "bytes", &at)?),
                },
                avg_time_s: figure(&get, "avg_time_s", &at)?,
                mibps,
            },
        ));
    }
    let mut iterations = Vec::new();
    for (n, o) in objects("per_iteration").iter().enumerate() {
        let at = format!("per_iteration[{n}]");
        let get = |name: &str| o.get(name).and_then(Json::text).filter(|v| !v.is_empty());
        let mibps = match o.get("mibps") {
            Some(Json::Null) => None,
            _ => Some(figure(&get, "mibps", &at)?),
        };
        iterations.push((
            key_of(&get, &at)?,
            super::results::Iteration {
                iteration: num(&get, "iteration", &at)?,
                time_s: figure(&get, "time_s", &at)?,
                mibps,
            },
        ));
    }
    Ok((hosts, iterations))
}

#[cfg(test)]
mod tests {
    use super::super::results::run_set;
    use super::*;

    #[test]
    fn a_run_reads_as_its_files_read_back() {
        for storage in [false, true] {
            let (m, mut p, recs) = run_set(&[2, 1], &[4096], &Api::ALL, true, &|n, x, a, ph| {
                f64::from(n) * 100.0 + (x / 1024) as f64 + a as f64 * 10.0 + ph as f64 + 0.1
            });
            p.storage.fsync = storage;
            let direct = of_run(&m, &p, &recs);
            let mut files = results_from_csv(&export::to_csv(&m, &p, &recs)).unwrap();
            files.samples = samples_from_csv(&export::to_rank_csv(&m, &p, &recs)).unwrap();
            assert_eq!(direct, files, "storage fields: {storage}");
            assert!(!direct.samples.is_empty() && !direct.parameters.is_empty());
        }
    }

    /// With `--latency`, the `latency_*` fields of the CSV and the JSON files read back to
    /// the run's own latencies (the page's latency charts are drawn from them); a record
    /// without timed calls (`latency_calls` 0) reads back as none.
    #[test]
    fn latencies_read_back() {
        use crate::measure::{Histogram, LatencyFigures};
        let (m, mut p, mut recs) =
            run_set(&[2], &[4096, 8192], &[Api::Posix], false, &|n, x, a, ph| {
                f64::from(n) + x as f64 + a as f64 + ph as f64
            });
        p.given.latency = true;
        for (i, r) in recs.iter_mut().enumerate() {
            let mut h = Histogram::new();
            for v in [1_000, 2_000, 500_000_000 + i as u64] {
                h.record(v);
            }
            let mut f = LatencyFigures::default();
            f.add(&h, 1, "node-b");
            r.latency = Some([f, LatencyFigures::default()]);
        }
        let direct = of_run(&m, &p, &recs);
        let l = direct.cells[0]
            .latency
            .as_ref()
            .expect("the write latencies");
        assert_eq!((l.calls, l.max_rank, l.max_host.as_str()), (3, 1, "node-b"));
        assert_eq!(l.max_s, 0.5);
        let read = direct
            .cells
            .iter()
            .find(|c| c.key.phase().is_read())
            .unwrap();
        assert_eq!(read.latency, None);
        assert_eq!(
            results_from_csv(&export::to_csv(&m, &p, &recs)).unwrap(),
            direct
        );
        assert_eq!(
            results_from_json(&export::to_json(&m, &p, &recs)).unwrap(),
            direct
        );
    }

    /// With `--timeseries`, the JSON's `timeseries` array reads back to the run's own
    /// samples (the page's throughput-over-time charts are drawn from them); the CSV
    /// holds none; a malformed entry is refused with its place.
    #[test]
    fn time_series_read_back_from_the_json() {
        use crate::measure::timeseries::PhaseSeries;
        let (m, mut p, mut recs) = run_set(&[2], &[4096], &[Api::Posix], false, &|n, x, a, ph| {
            f64::from(n) + x as f64 + a as f64 + ph as f64
        });
        p.timeseries = Some(1_000_000);
        for read in [false, true] {
            recs[0].timeseries.push(PhaseSeries {
                iteration: 0,
                file: 1,
                read,
                interval_s: 0.001,
                bytes: vec![vec![4096, 0, 8192], vec![12288, 4096, 0]],
            });
        }
        let direct = of_run(&m, &p, &recs);
        assert_eq!(direct.timeseries.len(), 2);
        assert_eq!(direct.timeseries[1].ranks[1].host, "node2");
        assert_eq!(direct.timeseries[1].ranks[0].bytes, [4096, 0, 8192]);
        let json = export::to_json(&m, &p, &recs);
        assert_eq!(results_from_json(&json).unwrap(), direct);
        let csv = results_from_csv(&export::to_csv(&m, &p, &recs)).unwrap();
        assert!(csv.timeseries.is_empty());
        for (from, to, msg) in [
            (
                "\"interval_s\":0.001",
                "\"interval_s\":0",
                "timeseries entry 1: interval_s is not a positive number",
            ),
            (
                "[4096,0,8192]",
                "[4096,-1,8192]",
                "timeseries entry 1: bytes is not a count: '-1'",
            ),
            (
                "\"phase\":\"read\",\"interval_s\"",
                "\"phase\":\"raw\",\"interval_s\"",
                "timeseries entry 2: unknown phase 'raw'",
            ),
        ] {
            let e = results_from_json(&json.replacen(from, to, 1)).unwrap_err();
            assert!(e.to_string().contains(msg), "{e}");
        }
    }

    fn rates(n: u32, x: u64, a: usize, p: usize) -> f64 {
        1.0 / 3.0 * f64::from(n) + x as f64 / 7.0 + a as f64 + p as f64 * 0.1
    }

    #[test]
    fn csv_and_json_read_back_to_the_same_set() {
        let (m, p, recs) = run_set(&[4, 2, 1], &[4096, 65536], &Api::ALL, true, &rates);
        let from_csv = results_from_csv(&export::to_csv(&m, &p, &recs)).unwrap();
        let from_json = results_from_json(&export::to_json(&m, &p, &recs)).unwrap();
        assert_eq!(from_csv, from_json);
        assert_eq!(from_csv.cells.len(), 3 * 2 * 3 * 6);
        // every figure exactly as in the records
        for (c, (r, ph)) in from_csv.cells.iter().zip(
            recs.iter()
                .flat_map(|r| Phase::ALL.iter().enumerate().map(move |(i, _)| (r, i))),
        ) {
            let s = &r.phases[ph];
            assert_eq!(
                (c.avg_mibps, c.max_mibps, c.min_mibps, c.std_mibps),
                (s.avg_mibps, s.max_mibps, s.min_mibps, s.std_mibps)
            );
            assert_eq!((c.min_time_s, c.avg_time_s), (s.min_time, s.avg_time));
        }
        // with storage options the parameters end with the storage fields, both ways
        let mut ps = p.clone();
        ps.storage.fsync = true;
        let a = results_from_csv(&export::to_csv(&m, &ps, &recs)).unwrap();
        let b = results_from_json(&export::to_json(&m, &ps, &recs)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.parameters.last().unwrap().0, "drop_caches");
        assert_eq!(a.parameters.len(), from_csv.parameters.len() + 5);
        // the facts, both ways
        let mut mf = m.clone();
        mf.facts = vec![("hdf5_libver_low".into(), "v18".into())];
        let a = results_from_csv(&export::to_csv(&mf, &p, &recs)).unwrap();
        let b = results_from_json(&export::to_json(&mf, &p, &recs)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.facts, mf.facts);
        assert!(from_csv.facts.is_empty());
        // a Slurm job's facts (issue 34) between the format bounds and the hints, both ways,
        // a compressed node list as given
        mf.facts = vec![
            ("hdf5_libver_low".into(), "v18".into()),
            ("slurm_job_id".into(), "1234".into()),
            ("slurm_job_nodelist".into(), "node[1-3]".into()),
            ("slurm_tasks_per_node".into(), "2(x3)".into()),
            ("mpi_hints_in_effect_mpiio".into(), "cb_nodes=2".into()),
        ];
        let a = results_from_csv(&export::to_csv(&mf, &p, &recs)).unwrap();
        let b = results_from_json(&export::to_json(&mf, &p, &recs)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.facts, mf.facts);
    }

    #[test]
    fn documents_are_recognised_also_after_a_report() {
        let (m, p, recs) = run_set(&[2], &[4096], &[Api::Posix], true, &rates);
        let csv = export::to_csv(&m, &p, &recs);
        let json = export::to_json(&m, &p, &recs);
        let ranks = export::to_rank_csv(&m, &p, &recs);
        let report = "HDF5 Library: Version 1.10.8\nrank 0: ==== Parameters ====\n";
        for (text, results) in [
            (csv.clone(), true),
            (json.clone(), true),
            (ranks.clone(), false),
        ] {
            for t in [text.clone(), format!("{report}{text}")] {
                match parse_document(&t).unwrap() {
                    Document::Results(r) => {
                        assert!(results);
                        assert_eq!(r.cells.len(), 6);
                    }
                    Document::Samples(s) => {
                        assert!(!results);
                        assert_eq!(s.len(), 3 * 6 * 2);
                    }
                }
            }
        }
        assert!(parse_document("a,b\n1,2\n")
            .unwrap_err()
            .to_string()
            .starts_with("not an h5perf results file"));
        assert!(parse_document("").is_err());
    }

    #[test]
    fn files_of_one_run_together() {
        let dir = tempfile::tempdir().unwrap();
        let (m, p, recs) = run_set(&[2, 1], &[4096], &Api::ALL, true, &rates);
        let w = |n: &str, t: String| {
            let path = dir.path().join(n);
            std::fs::write(&path, t).unwrap();
            path.into_os_string()
        };
        let csv = w("r.csv", export::to_csv(&m, &p, &recs));
        let json = w("r.json", export::to_json(&m, &p, &recs));
        let ranks = w("ranks.csv", export::to_rank_csv(&m, &p, &recs));
        let want = of_run(&m, &p, &recs);
        assert_eq!(read_results(&[csv.clone(), ranks.clone()]).unwrap(), want);
        assert_eq!(read_results(&[ranks.clone(), json.clone()]).unwrap(), want);
        assert!(read_results(std::slice::from_ref(&csv))
            .unwrap()
            .samples
            .is_empty());
        let e = read_results(&[csv.clone(), json.clone()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("are both results files"), "{e}");
        let e = read_results(&[ranks.clone(), ranks.clone(), csv.clone()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("are both --rank-csv files"), "{e}");
        let e = read_results(std::slice::from_ref(&ranks))
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds per-rank samples only"), "{e}");
        // samples of another run
        let (m2, p2, recs2) = run_set(&[4], &[4096], &Api::ALL, true, &rates);
        let other = w("other.csv", export::to_rank_csv(&m2, &p2, &recs2));
        let e = read_results(&[csv.clone(), other]).unwrap_err().to_string();
        assert!(
            e.contains("does not belong to") && e.contains("4 processes"),
            "{e}"
        );
        let missing = dir.path().join("none.csv").into_os_string();
        let e = read_results(std::slice::from_ref(&missing))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!("{}: No such file or directory", missing.to_string_lossy())
        );
    }

    #[test]
    fn malformed_results_are_refused_with_the_place() {
        let (m, p, recs) = run_set(&[2], &[4096], &[Api::Posix], false, &rates);
        let csv = export::to_csv(&m, &p, &recs);
        let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
        // a figure that is not a number (line 3)
        lines[2] = lines[2].replacen(",posix,write,", ",posix,write,x", 1);
        let e = results_from_csv(&(lines.join("\n") + "\n"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 3: bytes is not a number"), "{e}");
        let dup = format!("{csv}{}\n", csv.lines().nth(1).unwrap());
        let e = results_from_csv(&dup).unwrap_err().to_string();
        assert!(
            e.contains("a second record of posix raw_write, 2 processes, 4 KiB"),
            "{e}"
        );
        let short = format!("{csv}2,4096\n");
        assert!(results_from_csv(&short)
            .unwrap_err()
            .to_string()
            .contains("fields, the header has"));
        let e = results_from_csv("nprocs,xfer_size,buf_bytes,api\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no column phase"), "{e}");
        assert!(parse_csv("a,\"b\n")
            .unwrap_err()
            .to_string()
            .contains("not closed"));
        assert!(parse_csv("a,b\"c\n")
            .unwrap_err()
            .to_string()
            .contains("quote inside"));
        assert_eq!(
            parse_csv("a,\"b,\"\"c\"\"\"\r\n\"x\ny\",\n").unwrap(),
            [vec!["a", "b,\"c\""], vec!["x\ny", ""]]
        );
        let json =
            export::to_json(&m, &p, &recs).replace("\"phase\":\"write\"", "\"phase\":\"wr\"");
        let e = results_from_json(&json).unwrap_err().to_string();
        // the line where the record starts (line 1 is the '{')
        let line = 1 + json[..json.find("\"phase\":\"wr\"").unwrap()]
            .matches('\n')
            .count();
        assert!(
            e.starts_with(&format!("line {line} (record 2): unknown phase 'wr'")),
            "{e}"
        );
        assert!(results_from_json("{\"a\":1}")
            .unwrap_err()
            .to_string()
            .contains("no \"records\""));
        assert!(results_from_json("{\n\"a\":}")
            .unwrap_err()
            .to_string()
            .starts_with("line 2"));
    }

    /// `csv` with field `name` of data row `row` (from 0) set to `v`.
    fn with_field(csv: &str, row: usize, name: &str, v: &str) -> String {
        let mut rows = parse_csv(csv).unwrap();
        let c = rows[0].iter().position(|h| h == name).unwrap();
        rows[row + 1][c] = v.to_string();
        rows.iter()
            .map(|r| {
                r.iter()
                    .map(|f| match f.contains([',', '"', '\n', '\r']) {
                        true => format!("\"{}\"", f.replace('"', "\"\"")),
                        false => f.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
                    + "\n"
            })
            .collect()
    }

    #[test]
    fn figures_that_are_not_finite_or_are_negative_are_refused_with_line_and_field() {
        let (m, p, recs) = run_set(&[2], &[4096], &[Api::Posix], true, &rates);
        let csv = export::to_csv(&m, &p, &recs);
        for field in ["avg_mibps", "std_mibps", "max_mibps", "min_time_s"] {
            for v in ["NaN", "nan", "inf", "-inf", "Infinity", "1e999", "-1e999"] {
                let e = results_from_csv(&with_field(&csv, 2, field, v))
                    .unwrap_err()
                    .to_string();
                assert_eq!(e, format!("line 4: {field} is not a finite number: '{v}'"));
            }
            let e = results_from_csv(&with_field(&csv, 0, field, "-0.5"))
                .unwrap_err()
                .to_string();
            assert_eq!(e, format!("line 2: {field} is negative: -0.5"));
        }
        // the largest and the smallest finite figures are figures
        for v in ["1.7e308", "5e-324", "0"] {
            let set = results_from_csv(&with_field(&csv, 1, "avg_mibps", v)).unwrap();
            assert_eq!(set.cells[1].avg_mibps, v.parse::<f64>().unwrap());
        }
        // a report before the document counts in the line numbers
        let e = parse_document(&format!(
            "a report\n\n{}",
            with_field(&csv, 0, "avg_mibps", "inf")
        ))
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("line 4: avg_mibps"), "{e}");
        let json = export::to_json(&m, &p, &recs);
        let at = json.find("\"avg_mibps\":").unwrap() + "\"avg_mibps\":".len();
        let end = at + json[at..].find([',', '}']).unwrap();
        let bad = format!("{}1e999{}", &json[..at], &json[end..]);
        let e = results_from_json(&bad).unwrap_err().to_string();
        let line = 1 + json[..at].matches('\n').count();
        assert_eq!(
            e,
            format!("line {line} (record 1): avg_mibps is not a finite number: '1e999'")
        );
        let ranks = export::to_rank_csv(&m, &p, &recs);
        let e = samples_from_csv(&with_field(&ranks, 3, "time_s", "1e999"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "line 5: time_s is not a finite number: '1e999'");
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_a_name_twice_refused() {
        let (m, p, recs) = run_set(&[2], &[4096], &[Api::Posix], true, &rates);
        for text in [
            export::to_csv(&m, &p, &recs),
            export::to_json(&m, &p, &recs),
        ] {
            let plain = parse_document(&text).unwrap();
            assert_eq!(parse_document(&format!("\u{feff}{text}")).unwrap(), plain);
        }
        let json = export::to_json(&m, &p, &recs).replacen(
            "\"avg_mibps\":",
            "\"avg_mibps\":1,\"avg_mibps\":",
            1,
        );
        let e = results_from_json(&json).unwrap_err().to_string();
        assert!(
            e.contains("the member name \"avg_mibps\" appears twice in one object"),
            "{e}"
        );
    }

    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        let e = read_file(fifo.as_os_str()).unwrap_err().to_string();
        assert!(
            e.ends_with(": a FIFO, not a regular file (results are read from regular files only)"),
            "{e}"
        );
        for (dev, kind) in [("/dev/zero", "a character device"), ("/", "a directory")] {
            let e = read_file(OsStr::new(dev)).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "{dev}: {kind}, not a regular file (results are read from regular files only)"
                )
            );
        }
        // a sparse file past the limit is refused before any read
        let big = dir.path().join("big.csv");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_file(big.as_os_str()).unwrap_err().to_string();
        assert!(
            e.ends_with(": larger than 256 MiB, the most h5perf reads of a results file"),
            "{e}"
        );
        // a stream that says nothing of its size is cut at the limit
        let endless = std::io::BufReader::new(std::io::repeat(b'x').take(MAX_FILE_BYTES + 10));
        let e = read_document(endless).unwrap_err().to_string();
        assert!(e.contains("larger than 256 MiB"), "{e}");
    }

    #[test]
    fn second_records_are_found_by_hashing() {
        // n distinct rows, then one repeated: linear time (a pairwise search was 27 s at 160k)
        let rows = |n: u32| {
            let (m, p, recs) = run_set(&[1], &[4096], &[Api::Posix], false, &rates);
            let csv = export::to_csv(&m, &p, &recs);
            let mut lines = csv.lines();
            let header = lines.next().unwrap();
            let row = lines.next().unwrap();
            let rest = row.split_once(',').unwrap().1;
            let mut t = format!("{header}\n");
            for i in 1..=n {
                t.push_str(&format!("{i},{rest}\n"));
            }
            t.push_str(&format!("{n},{rest}\n"));
            t
        };
        let time = |n: u32| {
            let t = rows(n);
            let start = std::time::Instant::now();
            let e = results_from_csv(&t).unwrap_err().to_string();
            assert!(e.contains("a second record of"), "{e}");
            assert!(e.starts_with(&format!("line {}:", n + 2)), "{e}");
            start.elapsed().as_secs_f64()
        };
        let (small, large) = (time(5_000), time(80_000));
        // linear: 16 times the rows in about 16 times the time; pairwise would be 256 times
        assert!(
            large < 64.0 * small.max(1e-3),
            "{small} s for 5k, {large} s for 80k"
        );
    }

    mod properties {
        use super::super::super::html;
        use super::*;
        use proptest::prelude::*;

        /// A results CSV of 2 × 2 measurements, its header first.
        fn csv() -> String {
            let (m, p, recs) = run_set(&[2], &[4096, 8192], &[Api::Posix], true, &rates);
            export::to_csv(&m, &p, &recs)
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

            /// Any bytes: an answer, no panic; a document read has no more cells than lines.
            #[test]
            fn any_bytes_are_read_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
                if let Ok(Document::Results(r)) = read_document(&bytes[..]) {
                    prop_assert!(r.cells.len() <= bytes.iter().filter(|&&b| b == b'\n').count() + 1);
                }
            }

            /// Any bytes after a real header and row (the CSV reader's states), and a JSON
            /// document cut anywhere.
            #[test]
            fn any_bytes_after_a_header(tail in proptest::collection::vec(any::<u8>(), 0..2048), cut in 0usize..4000) {
                let mut text = csv().into_bytes();
                text.truncate(text.len() / 2);
                text.extend(&tail);
                let _ = read_document(&text[..]);
                let (m, p, recs) = run_set(&[2], &[4096], &[Api::Posix], true, &rates);
                let json = export::to_json(&m, &p, &recs);
                let _ = read_document(&json.as_bytes()[..cut.min(json.len())]);
            }

            /// Any f64 as a figure: read exactly when finite and not negative; the page of
            /// what is read is finished and bounded.
            #[test]
            fn any_number_as_a_figure(bits in any::<u64>(), field in 0usize..5, row in 0usize..4) {
                let v = f64::from_bits(bits);
                let name = ["avg_mibps", "max_mibps", "min_mibps", "std_mibps", "max_time_s"][field];
                let text = with_field(&csv(), row, name, &format!("{v:e}"));
                match results_from_csv(&text) {
                    Ok(set) => {
                        prop_assert!(v.is_finite() && v >= 0.0, "{v} accepted");
                        let page = html::page(&set, None, &[]);
                        prop_assert!(page.len() < 200_000, "{} bytes", page.len());
                        prop_assert!(!page.contains("NaN") && !page.contains("inf"));
                    }
                    Err(e) => prop_assert!(!(v.is_finite() && v >= 0.0), "{v} refused: {e}"),
                }
            }
        }
    }
}
