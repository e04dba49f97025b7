//! Normalisation of run-dependent figures and comparison of reports (ordered, or, when
//! several ranks print, as a multiset plus per-rank order).

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// True when `field` is exactly what C's `printf("%W.Pf")` can print (width `width`,
/// `prec` decimals; `width` 0 = no width).
pub fn is_printf_f(field: &str, width: usize, prec: usize) -> bool {
    let num = field.trim_start_matches(' ');
    let pad = field.len() - num.len();
    // Padding only when the number is shorter than the width, and exactly up to it.
    if pad > 0 && field.len() != width {
        return false;
    }
    if num.len() < width && pad == 0 {
        return false;
    }
    let digits = num.strip_prefix('-').unwrap_or(num);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let int_ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && (int.len() == 1 || !int.starts_with('0'));
    let frac_ok = match (prec, frac) {
        (0, None) => true,
        (p, Some(f)) if p > 0 => f.len() == p && f.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    };
    int_ok && frac_ok
}

fn figure(field: &str, width: usize, prec: usize, tag: &str) -> String {
    if is_printf_f(field, width, prec) {
        format!("<{tag}>")
    } else {
        // Keep the offending text: the comparison then fails and shows it.
        format!("<BAD-FORMAT %{width}.{prec}f: {field:?}>")
    }
}

/// Replaces the run-dependent figures of one report line by placeholders:
/// throughput (`%6.2f MB/s` and ` (%7.3f s)`), accumulated times (`%7.5f s`), per-iteration
/// detail times (`%.2fs`). Every other character, the info-dump header included, is
/// compared as it is.
/// A figure that does not have the exact printf shape is replaced by a `<BAD-FORMAT ...>`
/// marker, so that a comparison with a well-formed line fails.
pub fn normalize_line(line: &str) -> String {
    let body = line.trim_start_matches(' ');
    let indent = &line[..line.len() - body.len()];

    for kind in ["Maximum", "Average", "Minimum"] {
        let head = format!("{kind} Throughput: ");
        if let Some(rest) = body.strip_prefix(head.as_str()) {
            if let Some(idx) = rest.find(" MB/s") {
                let (num, after) = (&rest[..idx], &rest[idx + 5..]);
                let mut out = format!("{indent}{head}{} MB/s", figure(num, 6, 2, "MBPS"));
                if after.is_empty() {
                    return out;
                }
                if let Some(t) = after.strip_prefix(" (").and_then(|t| t.strip_suffix(" s)")) {
                    let _ = write!(out, " ({} s)", figure(t, 7, 3, "SECS"));
                    return out;
                }
                return line.to_string();
            }
        }
        let head = format!("{kind} Accumulated Time using ");
        if let Some(rest) = body.strip_prefix(head.as_str()) {
            if let Some(idx) = rest.find(" file(s): ") {
                let files = &rest[..idx];
                if let Some(t) = rest[idx + 10..].strip_suffix(" s") {
                    return format!(
                        "{indent}{head}{files} file(s): {} s",
                        figure(t, 7, 5, "ACCT")
                    );
                }
            }
        }
    }
    for kind in ["Minimum", "Maximum"] {
        let head = format!("{kind} Time: ");
        if let Some(t) = body
            .strip_prefix(head.as_str())
            .and_then(|r| r.strip_suffix('s'))
        {
            return format!("{indent}{head}{}s", figure(t, 0, 2, "TIME"));
        }
    }
    line.to_string()
}

/// Splits a text into lines (a final newline does not make an extra empty line) and
/// normalises each.
pub fn normalized_lines(text: &str) -> Vec<String> {
    text.lines().map(normalize_line).collect()
}

/// World rank that printed a line, when the line says so (`rank K: ...`).
pub fn rank_prefix(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("rank ")?;
    let colon = rest.find(": ").or_else(|| {
        if rest.ends_with(':') {
            Some(rest.len() - 1)
        } else {
            None
        }
    })?;
    rest[..colon].parse().ok()
}

/// Lines that certainly come from world rank 0 when several ranks print: its `rank 0:`
/// lines, and the headers/results only rank 0 prints (indented lines, `Number of
/// processors`, `Transfer Buffer Size`, `Timer details:`). Lines every rank prints without a
/// rank prefix (version line, MPI-info dump body, blank line) are left out.
pub fn is_rank0_line(line: &str) -> bool {
    match rank_prefix(line) {
        Some(r) => r == 0,
        None => {
            line.starts_with(' ')
                || line.starts_with("Number of processors = ")
                || line.starts_with("Transfer Buffer Size: ")
                || line.starts_with("Timer details:")
        }
    }
}

/// A small line diff (LCS based) for messages.
pub fn line_diff(expected: &[String], actual: &[String]) -> String {
    let n = expected.len();
    let m = actual.len();
    if n * m > 4_000_000 {
        return format!("(too long to diff: {n} vs {m} lines)");
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j, mut shown) = (0, 0, 0);
    while (i < n || j < m) && shown < 60 {
        if i < n && j < m && expected[i] == actual[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "+ [actual line {}] {:?}", j + 1, actual[j]);
            j += 1;
            shown += 1;
        } else {
            let _ = writeln!(out, "- [expected line {}] {:?}", i + 1, expected[i]);
            i += 1;
            shown += 1;
        }
    }
    if shown == 60 {
        out.push_str("... (more differences)\n");
    }
    out
}

fn multiset(lines: &[String]) -> BTreeMap<&str, i64> {
    let mut m = BTreeMap::new();
    for l in lines {
        *m.entry(l.as_str()).or_insert(0) += 1;
    }
    m
}

/// Compares two reports after normalisation.
///
/// * If the expected report has lines of other ranks (`rank K:` with K != 0, i.e. debug
///   level >= 1 where every rank prints and the launcher interleaves their streams), the
///   comparison is: same multiset of lines; same sequence of world rank 0's own lines
///   ([`is_rank0_line`]); and, for each other rank K, same sequence of its `rank K:` lines.
/// * Otherwise the lines must be equal one by one, in order.
///
/// The expected text is a golden transcript as [`super::golden::golden`] returns it (its
/// info-dump header already carries the flavour's `MPI_MAX_INFO_VAL`).
pub fn compare_reports(expected: &str, actual: &str) -> Result<(), String> {
    let exp = normalized_lines(expected);
    let act = normalized_lines(actual);
    let bad: Vec<&String> = act.iter().filter(|l| l.contains("<BAD-")).collect();
    if !bad.is_empty() {
        return Err(format!("badly formatted figures in the output: {bad:#?}"));
    }
    let multi_rank = exp
        .iter()
        .any(|l| matches!(rank_prefix(l), Some(r) if r != 0));
    if !multi_rank {
        if exp != act {
            return Err(format!(
                "report differs (ordered comparison):\n{}",
                line_diff(&exp, &act)
            ));
        }
        return Ok(());
    }
    let (me, ma) = (multiset(&exp), multiset(&act));
    if me != ma {
        let mut msg = String::from("report differs (multiset of lines; several ranks print):\n");
        let keys: std::collections::BTreeSet<&str> = me.keys().chain(ma.keys()).copied().collect();
        for k in keys {
            let (e, a) = (
                me.get(k).copied().unwrap_or(0),
                ma.get(k).copied().unwrap_or(0),
            );
            if e != a {
                let _ = writeln!(msg, "  expected {e}x, got {a}x: {k:?}");
            }
        }
        return Err(msg);
    }
    let e0: Vec<String> = exp.iter().filter(|l| is_rank0_line(l)).cloned().collect();
    let a0: Vec<String> = act.iter().filter(|l| is_rank0_line(l)).cloned().collect();
    if e0 != a0 {
        return Err(format!(
            "order of world rank 0's lines differs:\n{}",
            line_diff(&e0, &a0)
        ));
    }
    let ranks: std::collections::BTreeSet<u32> = exp
        .iter()
        .filter_map(|l| rank_prefix(l))
        .filter(|r| *r != 0)
        .collect();
    for r in ranks {
        let ek: Vec<String> = exp
            .iter()
            .filter(|l| rank_prefix(l) == Some(r))
            .cloned()
            .collect();
        let ak: Vec<String> = act
            .iter()
            .filter(|l| rank_prefix(l) == Some(r))
            .cloned()
            .collect();
        if ek != ak {
            return Err(format!(
                "order of rank {r}'s lines differs:\n{}",
                line_diff(&ek, &ak)
            ));
        }
    }
    Ok(())
}
