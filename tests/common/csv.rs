//! Reading h5perf's CSV output back in the tests (independently of the crate's own
//! reader, src/output/readback.rs, so the tests check it rather than reuse it).

/// A strict RFC 4180 reader: rows of fields; every row ends with `\n`.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = vec![];
    let mut row = vec![];
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => {
                quoted = false;
                assert!(
                    matches!(chars.peek(), None | Some(',') | Some('\n')),
                    "text after a closing quote"
                );
            }
            (true, c) => field.push(c),
            (false, '"') => {
                assert!(field.is_empty(), "quote inside an unquoted field");
                quoted = true;
            }
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, '\r') => panic!("CSV lines end with \\n only"),
            (false, c) => field.push(c),
        }
    }
    assert!(
        !quoted && field.is_empty() && row.is_empty(),
        "the CSV must end with a complete line"
    );
    rows
}

/// `rows` as CSV, quoting as h5perf does (RFC 4180: a field with `,`, `"`, CR or LF quoted,
/// inner quotes doubled); every row ends with `\n`.
pub fn to_csv(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .map(|f| {
                if f.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", f.replace('"', "\"\""))
                } else {
                    f.clone()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// The column of `name` in a CSV header; panics when there is none.
pub fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}
