//! A small JSON reader (RFC 8259) for `--json` results: members in order, numbers as written;
//! a stream, so that the records of a large document are read one at a time.

use std::io::BufRead;

use crate::config::values::printable;
use crate::error::{Error, Result};

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written (`4096`, `0.25`, `1e-3`).
    Num(String),
    /// A string, unescaped.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object: its members in document order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// The member `key` of an object (the first one of that name).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A scalar as text (a number as written); `None` for `null`, arrays and objects.
    pub fn text(&self) -> Option<String> {
        match self {
            Json::Str(s) | Json::Num(s) => Some(s.clone()),
            Json::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// Parse one JSON document (surrounding blanks allowed).
///
/// # Errors
/// What is wrong and where (`line 3, column 7: expected ':'`).
pub fn parse(text: &str) -> Result<Json> {
    let mut p = Parser::new(text.as_bytes(), 1, u64::MAX);
    let v = p.value(0)?;
    p.end()?;
    Ok(v)
}

/// Parse, from `r`, one JSON document that is an object, as a stream: each element of its
/// array member `streamed` goes to `each` with the number of the line where it starts, and
/// is not kept (the member is returned as an empty array). Memory: the other members and
/// one element at a time. `first_line`: the number of `r`'s first line; at most `limit`
/// bytes are read (more is the error `too_large`).
///
/// # Errors
/// What is wrong and where (`line 3, column 7: expected ':'`), `each`'s error, a read
/// error, or `too_large` past the limit.
pub fn parse_object_streaming<R: BufRead>(
    r: R,
    first_line: usize,
    limit: u64,
    too_large: &str,
    streamed: &str,
    mut each: impl FnMut(usize, Json) -> Result<()>,
) -> Result<Json> {
    let mut p = Parser::new(r, first_line, limit);
    p.too_large = too_large.to_string();
    p.blank();
    if p.peek() != Some(b'{') {
        return Err(p.error("expected '{'"));
    }
    let mut element = |p: &mut Parser<R>, name: &str| -> Result<Option<Json>> {
        p.blank();
        if name != streamed || p.peek() != Some(b'[') {
            return p.value(1).map(Some);
        }
        p.bump();
        if !p.eat(b']') {
            loop {
                p.blank();
                let line = p.line;
                let v = p.value(2)?;
                each(line, v)?;
                if p.eat(b']') {
                    break;
                }
                if !p.eat(b',') {
                    return Err(p.error("expected ',' or ']'"));
                }
            }
        }
        Ok(Some(Json::Arr(Vec::new())))
    };
    let v = p.members(0, b'}', &mut element)?;
    p.end()?;
    Ok(v)
}

/// Nesting deeper than this is refused (h5perf writes depth 3).
const MAX_DEPTH: usize = 64;

/// How an object's member value is read: `None` for the value itself ([`Parser::value`]).
type Member<'a, R> = dyn FnMut(&mut Parser<R>, &str) -> Result<Option<Json>> + 'a;

/// A JSON reader over a byte stream, counting lines and columns (bytes) for its messages.
struct Parser<R> {
    r: R,
    /// The line (from 1) and column (from 1, in bytes) of the next byte.
    line: usize,
    col: usize,
    /// Bytes taken so far, and the most that may be.
    taken: u64,
    limit: u64,
    /// Why the stream ended early (a read error, the limit), said instead of a syntax error.
    cut: Option<String>,
    /// The message past the limit.
    too_large: String,
}

impl<R: BufRead> Parser<R> {
    fn new(r: R, line: usize, limit: u64) -> Self {
        Parser {
            r,
            line,
            col: 1,
            taken: 0,
            limit,
            cut: None,
            too_large: "too large".to_string(),
        }
    }

    fn error(&self, what: &str) -> Error {
        self.error_at(self.line, self.col, what)
    }

    /// `what` is wrong at `line`, `column` (or the stream was cut: why).
    fn error_at(&self, line: usize, column: usize, what: &str) -> Error {
        match &self.cut {
            Some(why) => Error::Results(why.clone()),
            None => Error::Results(format!("line {line}, column {column}: {what}")),
        }
    }

    /// The bytes buffered ahead (empty at the end, after a read error or at the limit).
    fn ahead(&mut self) -> &[u8] {
        if self.cut.is_some() {
            return &[];
        }
        let state = loop {
            match self.r.fill_buf() {
                Ok(b) => break Ok(b.len()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(crate::error::io_text(&e)),
            }
        };
        match state {
            Err(why) => {
                self.cut = Some(why);
                return &[];
            }
            Ok(0) => return &[],
            Ok(_) if self.taken >= self.limit => {
                self.cut = Some(self.too_large.clone());
                return &[];
            }
            Ok(_) => {}
        }
        let room = usize::try_from(self.limit - self.taken).unwrap_or(usize::MAX);
        match self.r.fill_buf() {
            Ok(b) => &b[..b.len().min(room)],
            Err(_) => &[],
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ahead().first().copied()
    }

    /// Take `n` bytes known to be ahead, none of them a line end.
    fn skip(&mut self, n: usize) {
        self.r.consume(n);
        self.taken += n as u64;
        self.col += n;
    }

    /// Take the next byte.
    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.r.consume(1);
        self.taken += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(b)
    }

    /// Skip blanks, then take `b` if it is next.
    fn eat(&mut self, b: u8) -> bool {
        self.blank();
        let next = self.peek() == Some(b);
        if next {
            self.bump();
        }
        next
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// Only blanks up to the end of the stream.
    fn end(&mut self) -> Result<()> {
        self.blank();
        match self.peek() {
            Some(_) => Err(self.error("text after the end of the JSON document")),
            None if self.cut.is_some() => Err(self.error("")),
            None => Ok(()),
        }
    }

    /// At least one digit, taken into `out`.
    fn digits(&mut self, out: &mut String) -> Result<()> {
        let from = out.len();
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            self.bump();
            out.push(char::from(b));
        }
        if out.len() > from {
            Ok(())
        } else {
            Err(self.error("malformed number"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        self.blank();
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let word = |w: &'static [u8], v: Json| (w, v);
        for (w, v) in [
            word(b"true", Json::Bool(true)),
            word(b"false", Json::Bool(false)),
            word(b"null", Json::Null),
        ] {
            if self.peek() == Some(w[0]) {
                let (line, col) = (self.line, self.col);
                for &b in w {
                    if self.peek() != Some(b) {
                        return Err(self.error_at(line, col, "expected a value"));
                    }
                    self.bump();
                }
                return Ok(v);
            }
        }
        match self.peek() {
            Some(b'{') => self.members(depth, b'}', &mut |_, _| Ok(None)),
            Some(b'[') => self.members(depth, b']', &mut |_, _| Ok(None)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end of the document")),
        }
    }

    /// An object (`close` is `}`) or an array (`]`), from its opening bracket; an
    /// object's member values are read by `member` (or as values when it says `None`).
    fn members(&mut self, depth: usize, close: u8, member: &mut Member<'_, R>) -> Result<Json> {
        self.bump();
        let (mut members, mut items) = (Vec::new(), Vec::new());
        let mut names = std::collections::HashSet::new();
        if !self.eat(close) {
            loop {
                if close == b']' {
                    items.push(self.value(depth + 1)?);
                } else {
                    self.blank();
                    if self.peek() != Some(b'"') {
                        return Err(self.error("expected a member name"));
                    }
                    let k = self.string()?;
                    if !names.insert(k.clone()) {
                        // RFC 8259 §4: names SHOULD be unique, readers then differ (Python
                        // takes the last): a document with a name twice is refused
                        return Err(self.error(&format!(
                            "the member name \"{}\" appears twice in one object",
                            printable(&k)
                        )));
                    }
                    if !self.eat(b':') {
                        return Err(self.error("expected ':'"));
                    }
                    let v = match member(self, &k)? {
                        Some(v) => v,
                        None => self.value(depth + 1)?,
                    };
                    members.push((k, v));
                }
                if self.eat(close) {
                    break;
                }
                if !self.eat(b',') {
                    let close = char::from(close);
                    return Err(self.error(&format!("expected ',' or '{close}'")));
                }
            }
        }
        Ok(if close == b']' {
            Json::Arr(items)
        } else {
            Json::Obj(members)
        })
    }

    fn number(&mut self) -> Result<Json> {
        let mut out = String::new();
        if self.peek() == Some(b'-') {
            self.bump();
            out.push('-');
        }
        if self.peek() == Some(b'0') {
            self.bump();
            out.push('0');
        } else {
            self.digits(&mut out)?;
        }
        if self.peek() == Some(b'.') {
            self.bump();
            out.push('.');
            self.digits(&mut out)?;
        }
        if let Some(e @ (b'e' | b'E')) = self.peek() {
            self.bump();
            out.push(char::from(e));
            if let Some(s @ (b'+' | b'-')) = self.peek() {
                self.bump();
                out.push(char::from(s));
            }
            self.digits(&mut out)?;
        }
        Ok(Json::Num(out))
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut v = 0;
        for _ in 0..4 {
            let d = self
                .peek()
                .and_then(|b| char::from(b).to_digit(16))
                .ok_or_else(|| self.error("malformed \\u escape"))?;
            self.bump();
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// A `\u` escape after its `\u`: one code point, or a surrogate pair.
    fn unicode(&mut self) -> Result<char> {
        let hi = self.hex4()?;
        let c = if (0xD800..0xDC00).contains(&hi) {
            for b in [b'\\', b'u'] {
                if self.peek() != Some(b) {
                    return Err(self.error("unpaired surrogate"));
                }
                self.bump();
            }
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(self.error("unpaired surrogate"));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        char::from_u32(c).ok_or_else(|| self.error("unpaired surrogate"))
    }

    fn string(&mut self) -> Result<String> {
        let (line, col) = (self.line, self.col);
        self.bump();
        let mut out: Vec<u8> = Vec::new();
        loop {
            // the plain bytes buffered ahead at once
            let ahead = self.ahead();
            let n = ahead
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(ahead.len());
            out.extend_from_slice(&ahead[..n]);
            self.skip(n);
            if n > 0 {
                continue;
            }
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            if b == b'"' {
                self.bump();
                return String::from_utf8(out)
                    .map_err(|_| self.error_at(line, col, "a string that is not UTF-8"));
            }
            if b != b'\\' {
                return Err(self.error("control character in a string"));
            }
            self.bump();
            let e = self
                .bump()
                .ok_or_else(|| self.error("unterminated string"))?;
            let c = match e {
                b'"' | b'\\' | b'/' => char::from(e),
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode()?,
                _ => return Err(self.error("unknown escape")),
            };
            let mut utf8 = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_order() {
        let j = parse(" {\"b\": [1, -0.5, 2e3, true, null], \"a\": {\"x\": \"y\"}} \n").unwrap();
        let Json::Obj(m) = &j else { panic!() };
        assert_eq!(m[0].0, "b");
        assert_eq!(m[1].0, "a");
        assert_eq!(
            j.get("b"),
            Some(&Json::Arr(vec![
                Json::Num("1".into()),
                Json::Num("-0.5".into()),
                Json::Num("2e3".into()),
                Json::Bool(true),
                Json::Null
            ]))
        );
        assert_eq!(j.get("a").unwrap().get("x").unwrap().text().unwrap(), "y");
        assert_eq!(Json::Null.text(), None);
        assert_eq!(parse("[]").unwrap(), Json::Arr(vec![]));
        assert_eq!(parse("{}").unwrap(), Json::Obj(vec![]));
    }

    #[test]
    fn strings_with_escapes() {
        let s = "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{1}i\u{1f}j\u{7f}é/😀";
        let j = serde_json::to_string(s).unwrap();
        assert_eq!(parse(&j).unwrap(), Json::Str(s.into()));
        assert_eq!(
            parse(r#""\ud83d\ude00 \u00e9 \/""#).unwrap(),
            Json::Str("😀 é /".into())
        );
    }

    #[test]
    fn malformed_documents() {
        for (t, why) in [
            ("", "line 1, column 1: unexpected end"),
            ("{\"a\" 1}", "expected ':'"),
            ("{\"a\":1,}", "expected a member name"),
            ("[1 2]", "expected ',' or ']'"),
            ("{\n  \"a\": tru}", "line 2, column 8: expected a value"),
            ("01", "text after the end"),
            ("1.", "malformed number"),
            ("-", "malformed number"),
            ("\"abc", "unterminated string"),
            ("\"a\tb\"", "control character"),
            ("\"\\x\"", "unknown escape"),
            ("\"\\ud83d\"", "unpaired surrogate"),
            ("\"\\u12\"", "malformed \\u escape"),
            ("{} {}", "text after the end"),
        ] {
            let e = parse(t).unwrap_err().to_string();
            assert!(e.contains(why), "{t:?}: {e}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&deep)
            .unwrap_err()
            .to_string()
            .contains("nested too deeply"));
    }

    #[test]
    fn a_member_array_streams_one_element_at_a_time_with_its_line() {
        let text = "{\"a\": 1,\n \"records\": [\n  {\"x\":1},\n  {\"x\":2}\n ],\n \"b\": [3]}\n";
        let stream = |r: &[u8], first: usize, limit: u64| {
            let mut seen = Vec::new();
            parse_object_streaming(r, first, limit, "too large", "records", |l, v| {
                seen.push((l, v.get("x").and_then(Json::text).unwrap()));
                Ok(())
            })
            .map(|j| (j, seen))
        };
        let (j, seen) = stream(text.as_bytes(), 1, u64::MAX).unwrap();
        assert_eq!(seen, [(3, "1".to_string()), (4, "2".to_string())]);
        assert_eq!(j.get("records"), Some(&Json::Arr(Vec::new())));
        assert_eq!(j.get("b"), Some(&Json::Arr(vec![Json::Num("3".into())])));
        // lines count from the stream's first line
        let (_, seen) = stream(text.as_bytes(), 10, u64::MAX).unwrap();
        assert_eq!(seen[0].0, 12);
        // the limit cuts the stream, whatever was being read
        for limit in [0, 10, 40, text.len() as u64 - 1] {
            let e = stream(text.as_bytes(), 1, limit).unwrap_err().to_string();
            assert_eq!(e, "too large", "limit {limit}");
        }
        assert!(stream(text.as_bytes(), 1, text.len() as u64).is_ok());
        // an element's error stops the reading and is the answer
        let e = parse_object_streaming(text.as_bytes(), 1, u64::MAX, "", "records", |l, _| {
            Err(Error::Results(format!("line {l}: no")))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "line 3: no");
        // not an object; a string that is not UTF-8, named where it starts
        let e = stream(b"[1]", 1, u64::MAX).unwrap_err().to_string();
        assert_eq!(e, "line 1, column 1: expected '{'");
        let e = stream(b"{\n \"a\": \"\xff\"}", 1, u64::MAX)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "line 2, column 7: a string that is not UTF-8");
    }
}
