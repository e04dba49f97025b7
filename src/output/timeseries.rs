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

use crate::measure::timeseries::PhaseSeries;
use crate::measure::Record;

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
