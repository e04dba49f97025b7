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
