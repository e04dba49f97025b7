//! The spread behind each measurement in the results files (`--conditions` with the
//! per-rank times): the JSON's `per_host` and `per_iteration` arrays and the CSV's
//! per-host columns.

use super::value::{float_text, json_object, text, Value};
use crate::output::results::{CellKey, ResultSet};
use Value::{Float, Int};

/// The names of a `per_host` object of the JSON results.
const PER_HOST_NAMES: [&str; 9] = [
    "nprocs",
    "xfer_size",
    "api",
    "phase",
    "host",
    "ranks",
    "bytes",
    "avg_time_s",
    "mibps",
];

/// The names of a `per_iteration` object of the JSON results.
const PER_ITERATION_NAMES: [&str; 7] = [
    "nprocs",
    "xfer_size",
    "api",
    "phase",
    "iteration",
    "time_s",
    "mibps",
];

/// The arrays `per_host`, one object per
/// measurement and host ([`crate::output::spread::hosts`]: its ranks, their bytes per
/// iteration, the mean of its slowest rank's times and its throughput, `null` when
/// stonewalled), and `per_iteration`, one object per measurement and iteration
/// ([`crate::output::spread::iterations`]: the slowest rank's time and the throughput, `null`
/// when stonewalled), so that a page made `--from` the JSON alone has both sections;
/// nothing otherwise.
pub(super) fn per_host_json(out: &mut String, set: &ResultSet) {
    let head = |c: &crate::output::results::Cell| {
        [
            Int(u64::from(c.key.nprocs)),
            Int(c.key.xfer_size),
            text(c.key.api().name()),
            text(c.key.phase().key()),
        ]
    };
    out.push_str(",\n  \"per_host\": [");
    let mut first = true;
    for c in &set.cells {
        for h in crate::output::spread::hosts(set, c) {
            out.push_str(if first { "\n    " } else { ",\n    " });
            first = false;
            let mut values = head(c).to_vec();
            values.extend([
                Value::Text(std::borrow::Cow::Owned(h.host)),
                Int(u64::from(h.ranks)),
                h.bytes.map_or(Value::Null, Int),
                Float(h.avg_time_s),
                h.mibps.map_or(Value::Null, Float),
            ]);
            json_object(out, &PER_HOST_NAMES, &values);
        }
    }
    out.push_str(if first { "]" } else { "\n  ]" });
    out.push_str(",\n  \"per_iteration\": [");
    let mut first = true;
    for c in &set.cells {
        for i in crate::output::spread::iterations(set, c) {
            out.push_str(if first { "\n    " } else { ",\n    " });
            first = false;
            let mut values = head(c).to_vec();
            values.extend([
                Int(u64::from(i.iteration)),
                Float(i.time_s),
                i.mibps.map_or(Value::Null, Float),
            ]);
            json_object(out, &PER_ITERATION_NAMES, &values);
        }
    }
    out.push_str(if first { "]" } else { "\n  ]" });
}

/// The CSV's per-host columns (with `--conditions` and the per-rank times), after every
/// other field: each is `host=value;…` over the measurement's hosts in the order of
/// their first rank, as the `node_*` facts: the hosts' ranks, their bytes per
/// iteration, their mean time (s) and their throughput (MiB/s; empty when stonewalled),
/// the figures of the JSON's `per_host`.
pub const HOST_FIELDS: [&str; 4] = [
    "per_host_ranks",
    "per_host_bytes",
    "per_host_avg_time_s",
    "per_host_mibps",
];

/// The values of [`HOST_FIELDS`] of each measurement of `set`.
pub(super) fn per_host_columns(set: &ResultSet) -> Vec<(CellKey, [String; 4])> {
    let f = |x: f64| float_text(x).unwrap_or_default();
    set.cells
        .iter()
        .map(|c| {
            let hs = crate::output::spread::hosts(set, c);
            let join = |v: &dyn Fn(&crate::output::spread::HostShare) -> String| {
                let parts: Vec<String> =
                    hs.iter().map(|h| format!("{}={}", h.host, v(h))).collect();
                parts.join(";")
            };
            let values = [
                join(&|h| h.ranks.to_string()),
                join(&|h| h.bytes.map(|b| b.to_string()).unwrap_or_default()),
                join(&|h| f(h.avg_time_s)),
                join(&|h| h.mibps.map(f).unwrap_or_default()),
            ];
            (c.key, values)
        })
        .collect()
}
