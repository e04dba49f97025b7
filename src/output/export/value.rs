//! One field value of a results record, as JSON and CSV write it.

use std::borrow::Cow;

/// One field value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value<'a> {
    /// A count or a size.
    Int(u64),
    /// A time (s) or a throughput (MiB/s); not finite: JSON `null`, an empty CSV field.
    Float(f64),
    /// Text.
    Text(Cow<'a, str>),
    /// `true`/`false`.
    Bool(bool),
    /// Not known (JSON `null`, an empty CSV field).
    Null,
}

/// A text value: borrowed from a `&str`, owning a `String`.
pub(super) fn text<'a>(s: impl Into<Cow<'a, str>>) -> Value<'a> {
    Value::Text(s.into())
}

/// Append `n` [`Value::Null`]s to `v`, one push each: `extend(repeat_n(Value::Null, n))`
/// made valgrind report a conditional jump on uninitialised memory inside `RepeatN`
/// (Rust 1.95, release build; `make c-test`'s valgrind run of `h5perf_run`).
pub(super) fn push_nulls(v: &mut Vec<Value<'_>>, n: usize) {
    for _ in 0..n {
        v.push(Value::Null);
    }
}
