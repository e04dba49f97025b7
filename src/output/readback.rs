//! Reading h5perf's own results files (also after the report on stdout) into a [`ResultSet`].

use std::ffi::{OsStr, OsString};

use crate::config::{Api, Params};
use crate::error::{path_text, Error, Result};
use crate::measure::{Phase, Record};

use super::export::{self, RunMeta, FIELDS, FIRST_META, FIRST_PARAM};
use super::json_text::{self, Json};
use super::results::{Cell, CellKey, RankSample, ResultSet, FACT_KEYS, RUN_FIELDS};

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

/// Read one results file.
///
/// # Errors
/// `NAME: reason` when the file cannot be read or is not an h5perf results document.
pub fn read_file(name: &OsStr) -> Result<Document> {
    let shown = path_text(name);
    let text = std::fs::read_to_string(name)
        .map_err(|e| bad(format!("{shown}: {}", crate::error::io_text(&e))))?;
    parse_document(&text).map_err(|e| bad(format!("{shown}: {e}")))
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
        if let Some(r) = s.iter().find(|r| set.cell(&r.key).is_none()) {
            return Err(bad(format!(
                "{sname} does not belong to {rname}: {rname} has no {}",
                r.key
            )));
        }
        set.samples = s;
    }
    Ok(set)
}

/// The document in `text`.
///
/// # Errors
/// Not a results document, or a malformed one (the reason names the row or position).
pub fn parse_document(text: &str) -> Result<Document> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end_matches(['\n', '\r']);
        if l == "{" {
            return results_from_json(&text[at..]).map(Document::Results);
        }
        if l.starts_with("nprocs,xfer_size,buf_bytes,") {
            return results_from_csv(&text[at..]).map(Document::Results);
        }
        if l.starts_with("nprocs,xfer_size,api,iteration,") {
            return samples_from_csv(&text[at..]).map(Document::Samples);
        }
        at += line.len();
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
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut was_quoted) = (false, false);
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                line += usize::from(c == '\n');
                field.push(c);
            }
            (false, '"') if field.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            (false, '"') => return Err(bad(format!("line {line}: a quote inside a field"))),
            (false, ',') => {
                row.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                was_quoted = false;
                line += 1;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(bad(format!("line {line}: a quoted field is not closed")));
    }
    if !field.is_empty() || !row.is_empty() || was_quoted {
        row.push(field);
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
        .map_err(|_| bad(format!("{at}: {name} is not a number: '{t}'")))
}

/// The (processes, transfer size, API, phase) of a record.
fn key_of(get: &Get<'_>, at: &str) -> Result<CellKey> {
    let api = need(get, "api", at)?;
    let api = Api::ALL
        .into_iter()
        .find(|a| a.name() == api)
        .ok_or_else(|| bad(format!("{at}: unknown api '{api}'")))?;
    let phase = need(get, "phase", at)?;
    let phase = Phase::ALL
        .into_iter()
        .find(|p| p.key() == phase)
        .ok_or_else(|| bad(format!("{at}: unknown phase '{phase}'")))?;
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
        min_time_s: num(get, "min_time_s", at)?,
        avg_time_s: num(get, "avg_time_s", at)?,
        max_time_s: num(get, "max_time_s", at)?,
        std_time_s: num(get, "std_time_s", at)?,
        max_mibps: num(get, "max_mibps", at)?,
        avg_mibps: num(get, "avg_mibps", at)?,
        min_mibps: num(get, "min_mibps", at)?,
        std_mibps: num(get, "std_mibps", at)?,
        slowest,
    })
}

/// Refuse a second measurement of the same key.
fn push_unique(cells: &mut Vec<Cell>, c: Cell, at: &str) -> Result<()> {
    if cells.iter().any(|x| x.key == c.key) {
        return Err(bad(format!("{at}: a second record of {}", c.key)));
    }
    cells.push(c);
    Ok(())
}

fn csv_table(text: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let mut rows = parse_csv(text)?;
    if rows.is_empty() {
        return Err(bad("empty CSV"));
    }
    let header = rows.remove(0);
    Ok((header, rows))
}

/// Where CSV row `i` (from 0) is, and its field getter; errors when its length is wrong.
fn csv_row<'a>(
    header: &'a [String],
    row: &'a [String],
    i: usize,
) -> Result<(String, impl Fn(&str) -> Option<String> + 'a)> {
    let at = format!("row {}", i + 2);
    if row.len() != header.len() {
        return Err(bad(format!(
            "{at}: {} fields, the header has {}",
            row.len(),
            header.len()
        )));
    }
    let get = |name: &str| {
        let c = header.iter().position(|h| h == name)?;
        Some(row[c].clone()).filter(|v| !v.is_empty())
    };
    Ok((at, get))
}

/// The results of a `--csv` document (its header first).
///
/// # Errors
/// A header, field or value missing or malformed, or two rows of one measurement.
pub fn results_from_csv(text: &str) -> Result<ResultSet> {
    let (header, rows) = csv_table(text)?;
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
    for (i, row) in rows.iter().enumerate() {
        let (at, get) = csv_row(&header, row, i)?;
        if i == 0 {
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
        push_unique(&mut set.cells, cell_of(&get, &at)?, &at)?;
    }
    Ok(set)
}

/// The samples of a `--rank-csv` document (its header first); errors as [`results_from_csv`].
pub fn samples_from_csv(text: &str) -> Result<Vec<RankSample>> {
    let (header, rows) = csv_table(text)?;
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let (at, get) = csv_row(&header, row, i)?;
        out.push(RankSample {
            key: key_of(&get, &at)?,
            iteration: num(&get, "iteration", &at)?,
            rank: num(&get, "rank", &at)?,
            host: get("host").unwrap_or_default(),
            time_s: num(&get, "time_s", &at)?,
        });
    }
    Ok(out)
}

/// The results of a `--json` document; errors: a bad document or record.
pub fn results_from_json(text: &str) -> Result<ResultSet> {
    let j = json_text::parse(text)?;
    let Some(Json::Arr(records)) = j.get("records") else {
        return Err(bad("the JSON has no \"records\" array"));
    };
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
    if let Some(Json::Obj(ps)) = j.get("parameters") {
        set.parameters = ps
            .iter()
            .map(|(k, v)| (k.clone(), v.text().unwrap_or_default()))
            .collect();
    }
    for (i, r) in records.iter().enumerate() {
        let at = format!("record {}", i + 1);
        let get = |name: &str| r.get(name).and_then(Json::text).filter(|v| !v.is_empty());
        push_unique(&mut set.cells, cell_of(&get, &at)?, &at)?;
    }
    Ok(set)
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
        // a figure that is not a number (row 3)
        lines[2] = lines[2].replacen(",posix,write,", ",posix,write,x", 1);
        let e = results_from_csv(&(lines.join("\n") + "\n"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("row 3: bytes is not a number"), "{e}");
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
        assert!(e.starts_with("record 2: unknown phase 'wr'"), "{e}");
        assert!(results_from_json("{\"a\":1}")
            .unwrap_err()
            .to_string()
            .contains("no \"records\""));
        assert!(results_from_json("{\n\"a\":}")
            .unwrap_err()
            .to_string()
            .starts_with("line 2"));
    }
}
