//! `--timeseries` (issue 31) in the results: the JSON's top-level `timeseries` array,
//! after `records`, one object per API run's phase (only with the option):
//!
//! ```text
//! {"nprocs":2,"xfer_size":65536,"api":"posix","iteration":1,"file":1,"phase":"write",
//!  "interval_s":0.01,"ranks":[{"rank":0,"host":"n1","bytes":[65536,131072]}, ...]}
//! ```
//!
//! `bytes[i]` is what that rank completed in `[i × interval_s, (i + 1) × interval_s)`
//! after the phase's start (its file's open); every rank has the same number of
//! intervals; `iteration` and `file` count from 1. The CSV results hold no samples:
//! the JSON is their file.

use std::fmt::Write;

use crate::config::values::printable;
use crate::config::Api;
use crate::error::{Error, Result};
use crate::measure::timeseries::PhaseSeries;
use crate::measure::Record;

use super::json_text::Json;
use super::results::{PhaseSamples, RankBytes};

/// How [`json_array`] writes a JSON string literal (the results' escaping), and the host
/// of a rank.
pub struct Writers<'a> {
    /// Appends the string as a JSON literal.
    pub string: fn(&mut String, &str),
    /// The host of a rank.
    pub host_of: &'a dyn Fn(u32) -> &'a str,
}

/// One phase's samples as a JSON object (no newline).
fn object(out: &mut String, w: &Writers<'_>, r: &Record, s: &PhaseSeries) {
    let _ = write!(
        out,
        "{{\"nprocs\":{},\"xfer_size\":{},\"api\":\"{}\",\"iteration\":{},\"file\":{},\
         \"phase\":\"{}\",\"interval_s\":{},\"ranks\":[",
        r.nprocs,
        r.xfer_size,
        r.api.name(),
        s.iteration + 1,
        s.file,
        if s.read { "read" } else { "write" },
        s.interval_s,
    );
    for (rank, bytes) in s.bytes.iter().enumerate() {
        if rank > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"rank\":{rank},\"host\":");
        (w.string)(out, (w.host_of)(rank as u32));
        out.push_str(",\"bytes\":[");
        for (i, b) in bytes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{b}");
        }
        out.push_str("]}");
    }
    out.push_str("]}");
}

/// `,\n  "timeseries": [...]` of every record's phases, in run order (to follow the
/// `records` array of the JSON results).
pub fn json_array(out: &mut String, w: &Writers<'_>, records: &[Record]) {
    out.push_str(",\n  \"timeseries\": [");
    let mut first = true;
    for r in records {
        for s in &r.timeseries {
            out.push_str(if first { "\n    " } else { ",\n    " });
            first = false;
            object(out, w, r, s);
        }
    }
    out.push_str(if first { "]" } else { "\n  ]" });
}

/// The samples of `records` as the results hold them (the JSON's `timeseries` array),
/// each rank's host from `host_of`.
pub fn samples<'a>(records: &[Record], host_of: &dyn Fn(u32) -> &'a str) -> Vec<PhaseSamples> {
    let mut out = Vec::new();
    for r in records {
        for s in &r.timeseries {
            out.push(PhaseSamples {
                nprocs: r.nprocs,
                xfer_size: r.xfer_size,
                api: r.api,
                iteration: s.iteration + 1,
                file: s.file,
                read: s.read,
                interval_s: s.interval_s,
                ranks: s
                    .bytes
                    .iter()
                    .enumerate()
                    .map(|(rank, b)| RankBytes {
                        rank: rank as u32,
                        host: host_of(rank as u32).to_string(),
                        bytes: b.clone(),
                    })
                    .collect(),
            });
        }
    }
    out
}

/// A `--json` document's `timeseries` array read back (`--from`): none when the document
/// has none.
///
/// # Errors
/// `Error::Results` naming the entry (from 1) and the member when an entry is not an
/// object with the members [`json_array`] writes, a number is not a whole number of its
/// range (bytes, counts) or the interval is not a finite positive number of seconds.
pub fn of_json(doc: &Json) -> Result<Vec<PhaseSamples>> {
    let Some(all) = doc.get("timeseries") else {
        return Ok(Vec::new());
    };
    let Json::Arr(entries) = all else {
        return Err(bad("the JSON's \"timeseries\" is not an array".to_string()));
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(e, &format!("the JSON's timeseries entry {}", i + 1)))
        .collect()
}

/// A results file's error.
fn bad(msg: String) -> Error {
    Error::Results(msg)
}

/// The member `name` of `v` as text (a scalar), required.
fn text(v: &Json, name: &str, at: &str) -> Result<String> {
    v.get(name)
        .and_then(Json::text)
        .ok_or_else(|| bad(format!("{at}: no value of {name}")))
}

/// The member `name` of `v` as a number of type `T`, required.
fn num<T: std::str::FromStr>(v: &Json, name: &str, at: &str) -> Result<T> {
    let t = text(v, name, at)?;
    t.parse()
        .map_err(|_| bad(format!("{at}: {name} is not a number: '{}'", printable(&t))))
}

/// One entry of the `timeseries` array.
fn entry(e: &Json, at: &str) -> Result<PhaseSamples> {
    let api = text(e, "api", at)?;
    let api = Api::ALL
        .into_iter()
        .find(|a| a.name() == api)
        .ok_or_else(|| bad(format!("{at}: unknown api '{}'", printable(&api))))?;
    let read = match text(e, "phase", at)?.as_str() {
        "write" => false,
        "read" => true,
        p => return Err(bad(format!("{at}: unknown phase '{}'", printable(p)))),
    };
    let interval_s: f64 = num(e, "interval_s", at)?;
    if !(interval_s.is_finite() && interval_s > 0.0) {
        return Err(bad(format!(
            "{at}: interval_s is not a positive number: {interval_s}"
        )));
    }
    let Some(Json::Arr(ranks)) = e.get("ranks") else {
        return Err(bad(format!("{at}: no array ranks")));
    };
    let ranks = ranks
        .iter()
        .map(|r| {
            let Some(Json::Arr(bytes)) = r.get("bytes") else {
                return Err(bad(format!("{at}: a rank without an array bytes")));
            };
            let bytes = bytes
                .iter()
                .map(|b| {
                    let t = b.text().unwrap_or_default();
                    t.parse::<u64>().map_err(|_| {
                        bad(format!("{at}: bytes is not a count: '{}'", printable(&t)))
                    })
                })
                .collect::<Result<Vec<u64>>>()?;
            Ok(RankBytes {
                rank: num(r, "rank", at)?,
                host: r.get("host").and_then(Json::text).unwrap_or_default(),
                bytes,
            })
        })
        .collect::<Result<Vec<RankBytes>>>()?;
    Ok(PhaseSamples {
        nprocs: num(e, "nprocs", at)?,
        xfer_size: num(e, "xfer_size", at)?,
        api,
        iteration: num(e, "iteration", at)?,
        file: num(e, "file", at)?,
        read,
        interval_s,
        ranks,
    })
}
