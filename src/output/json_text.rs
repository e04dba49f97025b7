//! A small JSON reader (RFC 8259) for reading h5perf's own `--json` results back
//! ([`super::readback`]): values, objects in document order, numbers kept as the text
//! they were written as (so that a number reads back exactly as a CSV field would).
//! No I/O.

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

    /// A scalar as text: a string's text, a number as written, `true`/`false`;
    /// `None` for `null`, arrays and objects.
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
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        text,
    };
    p.blank();
    let v = p.value(0)?;
    p.blank();
    if p.i < p.s.len() {
        return Err(p.error("text after the end of the JSON document"));
    }
    Ok(v)
}

/// Nesting deeper than this is refused (h5perf writes depth 3).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> Error {
        let before = &self.text.as_bytes()[..self.i.min(self.s.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Error::Results(format!("line {line}, column {col}: {what}"))
    }

    fn blank(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<()> {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", b as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.s.get(self.i) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end of the document")),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json> {
        self.i += 1;
        let mut members = Vec::new();
        self.blank();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Json::Obj(members));
        }
        loop {
            self.blank();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.error("expected a member name"));
            }
            let k = self.string()?;
            self.blank();
            self.expect(b':')?;
            self.blank();
            let v = self.value(depth + 1)?;
            members.push((k, v));
            self.blank();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Obj(members));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json> {
        self.i += 1;
        let mut items = Vec::new();
        self.blank();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Json::Arr(items));
        }
        loop {
            self.blank();
            items.push(self.value(depth + 1)?);
            self.blank();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<Json> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let from = p.i;
            while p.s.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i > from
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        if self.s.get(self.i) == Some(&b'0') {
            self.i += 1;
        } else if !digits(self) {
            return Err(self.error("malformed number"));
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.error("malformed number"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.error("malformed number"));
            }
        }
        Ok(Json::Num(self.text[start..self.i].to_string()))
    }

    fn hex4(&mut self) -> Result<u32> {
        let h = self
            .text
            .get(self.i..self.i + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("malformed \\u escape"))?;
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| self.error("malformed \\u escape"))
    }

    fn string(&mut self) -> Result<String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while self
                .s
                .get(self.i)
                .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
            {
                self.i += 1;
            }
            out.push_str(&self.text[start..self.i]);
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let e = *self
                        .s
                        .get(self.i)
                        .ok_or_else(|| self.error("unterminated string"))?;
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                if !self.s[self.i..].starts_with(b"\\u") {
                                    return Err(self.error("unpaired surrogate"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.error("unpaired surrogate"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            out.push(
                                char::from_u32(c)
                                    .ok_or_else(|| self.error("unpaired surrogate"))?,
                            );
                        }
                        _ => return Err(self.error("unknown escape")),
                    }
                }
                Some(_) => return Err(self.error("control character in a string")),
                None => return Err(self.error("unterminated string")),
            }
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
}
