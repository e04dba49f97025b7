//! The values of the instruments' fields of a record: `--stonewall`'s ([`WALL_FIELDS`](super::super::fields::WALL_FIELDS))
//! and `--latency`'s ([`LATENCY_FIELDS`], [`LATENCY_FILE_FIELDS`]), and the latencies a
//! page cell draws.

use crate::measure::{FileLatencies, Phase, Record};

use super::super::fields::{LATENCY_FIELDS, LATENCY_FILE_FIELDS};
use super::super::results::CellLatency;
use super::value::{push_nulls, text, Value, Value::Float, Value::Int};

/// The [`WALL_FIELDS`](super::super::fields::WALL_FIELDS) values of phase `pi` of `r`.
pub(super) fn wall_values(r: &Record, pi: usize) -> Vec<Value<'static>> {
    let Some(w) = &r.wall else {
        return Vec::new();
    };
    let w = &w[usize::from(Phase::ALL[pi].is_read())];
    vec![
        Int(w.planned),
        Int(w.min.0),
        Int(u64::from(w.min.1)),
        Int(w.max.0),
        Int(u64::from(w.max.1)),
        Float(w.first_stop_s),
        Float(w.last_stop_s),
        Float(w.wear_out_s),
        Int(w.moved_total()),
        Int(w.short_phases),
    ]
}

/// The [`LATENCY_FIELDS`] values of phase `pi` of `r`.
pub(super) fn latency_values(r: &Record, pi: usize) -> Vec<Value<'static>> {
    let Some(l) = &r.latency else {
        return Vec::new();
    };
    let l = &l[usize::from(Phase::ALL[pi].is_read())];
    let (Some((min, max)), Some(q)) = (l.min_max_s(), l.quantiles_s()) else {
        let mut v = vec![Int(0)];
        push_nulls(&mut v, LATENCY_FIELDS.len() - 1);
        return v;
    };
    let mut v = vec![Int(l.count()), Float(min)];
    v.extend(q.map(Float));
    v.extend([
        Float(max),
        Int(u64::from(l.max_rank)),
        text(l.max_host.clone()),
        text(crate::ffi::clock::ClockKind::here().name()),
    ]);
    v
}

/// The [`LATENCY_FILE_FIELDS`] values of phase `pi` of `r`.
/// A record with transfer latencies but none of its file calls has them as calls 0.
pub(super) fn file_latency_values(r: &Record, pi: usize) -> Vec<Value<'static>> {
    let none: [FileLatencies; 2] = Default::default();
    let l = match (&r.latency, &r.file_latency) {
        (_, Some(l)) => l,
        (Some(_), None) => &none,
        (None, None) => return Vec::new(),
    };
    let mut v = Vec::with_capacity(LATENCY_FILE_FIELDS.len());
    for f in &l[usize::from(Phase::ALL[pi].is_read())] {
        match (f.min_max_s(), f.quantiles_s()) {
            (Some((min, max)), Some(q)) => v.extend([
                Int(f.count()),
                Float(min),
                Float(q[0]),
                Float(q[2]),
                Float(max),
                Int(u64::from(f.max_rank)),
                text(f.max_host.clone()),
            ]),
            _ => {
                v.push(Int(0));
                push_nulls(&mut v, 6);
            }
        }
    }
    v
}

/// The latencies of phase `pi` of `r` as a [`CellLatency`] (`None` without `--latency` or
/// when no call was timed): the figures [`latency_values`] writes.
pub(super) fn cell_latency(r: &Record, pi: usize) -> Option<CellLatency> {
    let l = &r.latency.as_ref()?[usize::from(Phase::ALL[pi].is_read())];
    let ((min_s, max_s), quantiles_s) = (l.min_max_s()?, l.quantiles_s()?);
    Some(CellLatency {
        calls: l.count(),
        min_s,
        quantiles_s,
        max_s,
        max_rank: l.max_rank,
        max_host: l.max_host.clone(),
    })
}
