//! A small JSON reader (RFC 8259) for `--json` results: members in order, numbers as written.

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
    let mut p = Parser { text, i: 0 };
    let v = p.value(0)?;
    p.blank();
    if p.i < text.len() {
        return Err(p.error("text after the end of the JSON document"));
    }
    Ok(v)
}

/// Nesting deeper than this is refused (h5perf writes depth 3).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> Error {
        let before = &self.text.as_bytes()[..self.i.min(self.text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Error::Results(format!("line {line}, column {col}: {what}"))
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    /// Skip blanks, then take `b` if it is next.
    fn eat(&mut self, b: u8) -> bool {
        self.blank();
        let next = self.peek() == Some(b);
        self.i += usize::from(next);
        next
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// At least one digit, skipped.
    fn digits(&mut self) -> Result<()> {
        let from = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        if self.i > from {
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
        let rest = &self.text[self.i..];
        for (word, v) in [
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
            ("null", Json::Null),
        ] {
            if rest.starts_with(word) {
                self.i += word.len();
                return Ok(v);
            }
        }
        match self.peek() {
            Some(b'{') => self.members(depth, b'}'),
            Some(b'[') => self.members(depth, b']'),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end of the document")),
        }
    }

    /// An object (`close` is `}`) or an array (`]`), from its opening bracket.
    fn members(&mut self, depth: usize, close: u8) -> Result<Json> {
        self.i += 1;
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
                    members.push((k, self.value(depth + 1)?));
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
        let start = self.i;
        self.i += usize::from(self.peek() == Some(b'-'));
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else {
            self.digits()?;
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            self.i += usize::from(matches!(self.peek(), Some(b'+' | b'-')));
            self.digits()?;
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

    /// A `\u` escape after its `\u`: one code point, or a surrogate pair.
    fn unicode(&mut self) -> Result<char> {
        let hi = self.hex4()?;
        let c = if (0xD800..0xDC00).contains(&hi) {
            if !self.text[self.i..].starts_with("\\u") {
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
        char::from_u32(c).ok_or_else(|| self.error("unpaired surrogate"))
    }

    fn string(&mut self) -> Result<String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while self
                .peek()
                .is_some_and(|b| b != b'"' && b != b'\\' && b >= 0x20)
            {
                self.i += 1;
            }
            out.push_str(&self.text[start..self.i]);
            let Some(b) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            self.i += 1;
            if b == b'"' {
                return Ok(out);
            }
            if b != b'\\' {
                self.i -= 1;
                return Err(self.error("control character in a string"));
            }
            let e = self
                .peek()
                .ok_or_else(|| self.error("unterminated string"))?;
            self.i += 1;
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
            out.push(c);
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
