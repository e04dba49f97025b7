//! One field value of a results record, as JSON and CSV write it.

use std::borrow::Cow;
use std::fmt::Write as _;

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

/// A finite `f64` in Rust's shortest round-trip decimal form; `None` if not finite.
pub(super) fn float_text(x: f64) -> Option<String> {
    x.is_finite().then(|| format!("{x}"))
}

/// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
pub(super) fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(super) fn json_value(out: &mut String, v: &Value<'_>) {
    match v {
        Value::Text(s) => json_string(out, s),
        Value::Null => out.push_str("null"),
        Value::Float(x) if !x.is_finite() => out.push_str("null"),
        v => out.push_str(&v.text()),
    }
}

/// `{"name":value,...}` of `names` and `values` (same length).
pub(super) fn json_object(out: &mut String, names: &[&str], values: &[Value<'_>]) {
    out.push('{');
    for (i, (n, v)) in names.iter().zip(values).enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_string(out, n);
        out.push(':');
        json_value(out, v);
    }
    out.push('}');
}
