//! The `--help` text (spec §1.10), generated from the option definitions ([`DEFS`]).

use crate::config::options::{Def, DEFS};

/// The help text for `-h`/`--help` (spec §1.10); lines under 80 columns, ends with a newline.
pub fn help_text() -> String {
    let mut h = String::from(INTRO);
    for def in &DEFS {
        h.push_str(&entry(def));
    }
    h.push_str(AFTER_OPTIONS);
    h
}

/// One option's entry: `  -a SIZE, --al[ign]=SIZE`, then the description indented by 8.
fn entry(def: &Def) -> String {
    let mut e = String::from("  ");
    if let Some(c) = def.short {
        e.push('-');
        e.push(c);
        if let Some(var) = def.var() {
            e.push(' ');
            e.push_str(var);
        }
        e.push_str(", ");
    }
    e.push_str(&def.long_shown());
    if let Some(var) = def.var() {
        if !def.optional_value() {
            e.push('=');
        }
        e.push_str(var);
    }
    e.push('\n');
    for line in def.help.lines() {
        e.push_str("        ");
        e.push_str(line);
        e.push('\n');
    }
    e
}

const INTRO: &str = "\
usage: h5perf [OPTIONS]

Measure the parallel I/O throughput of POSIX, MPI-IO and parallel HDF5
(PHDF5). For each number of processes and each transfer-buffer size in the
ranges given below, every process writes its share of each dataset of each
file, then reads it back, and the write and read throughputs are reported.
Start it under MPI, for example: mpiexec -n 4 h5perf -e 1M -x 256K -X 1M

Options. Long names are the full names of the HDF5 releases; as an extension
they may be shortened down to the part outside the [...] (the 1.10.8 and
1.14 releases accept only the full names). Values are given as --name=VALUE
or --name VALUE.
";

const AFTER_OPTIONS: &str = "\
--interleaved and --write-only also accept the value 1, yes, true or on
(turn on) and 0, no, false or off (turn off), as in --interleaved=1.

Values:
  N     a whole number, such as 4
  FILE  a file name
  SIZE  a number of bytes, optionally followed by one of the suffixes
        K (x 1024), M (x 1048576) or G (x 1073741824), in either case;
        for example 37M = 38797312 bytes. For -e, -x, -X and -B, 0 means
        the default.
  LIST  words separated by commas

Dataset size, block size and transfer-buffer size:
  Each process writes -e bytes to every dataset, so with P processes a
  dataset holds -e x P bytes. A process moves its data in transfers of
  one transfer buffer (-x up to -X), and every transfer is made of
  blocks of -B bytes. The transfer-buffer size must be a multiple of the
  block size, and -e a multiple of the transfer-buffer size.

  In the contiguous pattern each process owns one contiguous part of the
  dataset. In the interleaved pattern (-I) the processes take turns,
  one block each. For example, with 3 processes, -e of 8 blocks and a
  transfer buffer of 4 blocks, after the first transfer of every process
  the dataset looks like this (one character per block, - = not written):
      contiguous:   1111----2222----3333----
      interleaved:  123123123123------------

  In 2D geometry (-g) a dataset is a square of side S = -e x P bytes.
  The transfer buffer is -B rows x -x..-X columns (contiguous: each
  process owns -e whole rows) or -x..-X rows x -B columns (interleaved:
  columns are dealt out in groups of -B, round robin). S must be a
  multiple of the transfer-buffer size and -e a multiple of -B. With 2
  processes, -e 4 -B 2 -x 4, after the first transfer (one row a line):
      contiguous:   1111----      interleaved:  1122----
                    1111----                    1122----
                    --------                    1122----
                    --------                    1122----
                    2222----                    --------
                    2222----                    --------
                    --------                    --------
                    --------                    --------

Debug flags (-D):
  1, 2  every process prints its parameters and file names (1 = 2)
  3     also print per-iteration details
  4     also trace the byte range of every write and read phase
  r     also report the throughput of the raw data transfers
  t     also print times, and the time spent opening and closing files
  v     verify the data read back (each process writes its rank + 1)
  A number sets the level (the last one wins; above 4 counts as 4);
  letters add up. Example: -D 3,t,v

Environment:
  HDF5_PARAPREFIX  directory for the test files (in a subdirectory named
                   after $USER or $LOGIN when set); default: the current
                   directory
  HDF5_NOCLEANUP   if set, even to nothing, the test files are not deleted
  HDF5_MPI_INFO    MPI-IO hints, as KEY=VALUE;KEY=VALUE;...
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::options::{by_long, UNSUPPORTED};
    use crate::config::values::parse_size;

    /// The man page, whose section OPTIONS has one entry per option.
    const MAN: &str = include_str!("../../man/h5perf.1");
    /// The README, whose section "## Options" has a table with one row per option.
    const README: &str = include_str!("../../README.md");

    /// An option as a document shows it: short letter, full long name, length of the
    /// minimum abbreviation (the part before `[`), and its value (the man page's value
    /// name; the README's value column is only checked to be filled in or empty).
    type Shown = (Option<char>, String, usize, Option<String>);

    /// The options as the definitions describe them; `var` gives what a value is shown as.
    fn defined(var: fn(&str) -> String) -> Vec<Shown> {
        DEFS.iter()
            .map(|d| (d.short, d.long.to_string(), d.min, d.var().map(var)))
            .collect()
    }

    /// `shown` (the options of `doc`) and `defined` hold the same options.
    fn assert_same(doc: &str, shown: Vec<Shown>, defined: Vec<Shown>) {
        let missing: Vec<&Shown> = defined.iter().filter(|d| !shown.contains(d)).collect();
        let extra: Vec<&Shown> = shown.iter().filter(|s| !defined.contains(s)).collect();
        assert!(
            missing.is_empty() && extra.is_empty() && shown.len() == defined.len(),
            "{doc} and the definitions differ (short, long, abbreviation, value):\n  \
             defined, not in {doc}: {missing:?}\n  in {doc}, not defined (or twice): {extra:?}"
        );
    }

    /// The part of `doc` after the line `title`, up to the next line starting with `next`.
    fn section<'a>(doc: &'a str, title: &str, next: &str) -> &'a str {
        let start = doc
            .find(&format!("\n{title}\n"))
            .unwrap_or_else(|| panic!("no line {title:?}"))
            + title.len()
            + 2;
        let rest = &doc[start..];
        &rest[..rest
            .find(&format!("\n{next}"))
            .map_or(rest.len(), |i| i + 1)]
    }

    /// man source as plain text: `\-` is `-`, font changes are dropped.
    fn plain(man: &str) -> String {
        let mut t = man.replace("\\-", "-");
        for font in ["\\fB", "\\fI", "\\fR", "\\fP"] {
            t = t.replace(font, "");
        }
        t
    }

    /// `--num-b[ytes]` as (`num-bytes`, 5).
    fn long_form(s: &str) -> Option<(String, usize)> {
        let (min, rest) = s.strip_prefix("--")?.split_once('[')?;
        Some((format!("{min}{}", rest.strip_suffix(']')?), min.len()))
    }

    /// A man page entry head (plain text): `.BR -a ", " --al [ ign ] " SIZE"`, or with an
    /// optional value `.BR --reo [ rder ] "[=SHIFT]"`.
    fn man_entry(line: &str) -> Shown {
        let l = line.strip_prefix(".BR ").unwrap_or(line);
        let (short, l) = match l.strip_prefix('-') {
            Some(r) if !r.starts_with('-') => {
                let mut chars = r.chars();
                let c = chars.next();
                let rest = chars.as_str().strip_prefix(" \", \" ");
                (
                    c,
                    rest.unwrap_or_else(|| panic!("malformed entry {line:?}")),
                )
            }
            _ => (None, l),
        };
        let (long, var) = match l.split_once(" \"") {
            Some((long, var)) => (
                long,
                Some(var.trim_start().trim_end_matches('"').to_string()),
            ),
            None => (l, None),
        };
        let (long, min) =
            long_form(&long.replace(' ', "")).unwrap_or_else(|| panic!("malformed entry {line:?}"));
        (short, long, min, var)
    }

    /// A README table row: `` | `-a` | `--al[ign]` | size ≥ 1 | ... ``.
    fn readme_row(row: &str) -> Shown {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (short, long, value) = (
            cells[1].trim_matches('`'),
            cells[2].trim_matches('`'),
            cells[3],
        );
        let short = short.strip_prefix('-').map(|s| {
            let mut c = s.chars();
            let letter = c.next();
            assert!(
                letter.is_some() && c.next().is_none(),
                "malformed short form in {row:?}"
            );
            letter.unwrap_or_default()
        });
        let (long, min) = long_form(long).unwrap_or_else(|| panic!("malformed row {row:?}"));
        (
            short,
            long,
            min,
            (!value.is_empty()).then(|| "VALUE".to_string()),
        )
    }

    /// The options `text` writes outside words: the letters of `-x` (also `-e8`,
    /// `-cCIw`: the first letter) and the names of `--name`.
    fn mentions(text: &str) -> (Vec<char>, Vec<String>) {
        let b = text.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
        let (mut shorts, mut longs) = (Vec::new(), Vec::new());
        for i in 0..b.len() {
            if b[i] != b'-' || (i > 0 && word(b[i - 1])) {
                continue;
            }
            if b.get(i + 1) == Some(&b'-') && b.get(i + 2).is_some_and(u8::is_ascii_alphabetic) {
                let name: String = text[i + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                longs.push(name);
            } else if let Some(c) = b.get(i + 1).filter(|c| c.is_ascii_alphabetic()) {
                shorts.push(char::from(*c));
            }
        }
        (shorts, longs)
    }

    /// Every `-x` and `--name` of `text` is an option (a short letter, or a full name or
    /// accepted abbreviation), a letter the C tool had and h5perf refuses (`-m -s -t`),
    /// `--chunky` (the documents' example of a text that only begins with a name) or
    /// `--name` (in `--name=VALUE`).
    fn check_mentions(doc: &str, text: &str) {
        let (shorts, longs) = mentions(text);
        for c in shorts {
            assert!(
                DEFS.iter().any(|d| d.short == Some(c)) || UNSUPPORTED.contains(&c),
                "{doc} names the option -{c}, which has no definition"
            );
        }
        assert!(by_long("chunky").is_none());
        for name in longs {
            assert!(
                by_long(&name).is_some() || name == "chunky" || name == "name",
                "{doc} names the option --{name}, which has no definition"
            );
        }
    }

    #[test]
    fn man_page_options_are_the_definitions() {
        let sec = plain(section(MAN, ".SH OPTIONS", ".SH "));
        let shown: Vec<Shown> = sec
            .lines()
            .filter(|l| l.starts_with(".BR -"))
            .map(man_entry)
            .collect();
        assert_same("man/h5perf.1 (OPTIONS)", shown, defined(str::to_string));
        check_mentions("man/h5perf.1 (OPTIONS)", &sec);
    }

    #[test]
    fn readme_options_table_is_the_definitions() {
        let sec = section(README, "## Options", "## ");
        let shown: Vec<Shown> = sec
            .lines()
            .filter(|l| {
                l.starts_with('|')
                    && l.split('|')
                        .nth(2)
                        .is_some_and(|c| c.trim().starts_with("`--"))
            })
            .map(readme_row)
            .collect();
        assert_same(
            "README.md (## Options)",
            shown,
            defined(|_| "VALUE".to_string()),
        );
        check_mentions("README.md (## Options)", sec);
    }

    /// The default the table gives an option: the `[default: ...]` of its help text,
    /// blanks collapsed; `None` when it states none.
    fn default_of(d: &Def) -> Option<String> {
        let h = words(d.help);
        let start = h.find("[default: ")? + "[default: ".len();
        Some(h[start..start + h[start..].find(']')?].to_string())
    }

    /// `s` with its blanks collapsed to single spaces and markdown's code marks removed.
    fn words(s: &str) -> String {
        s.replace('`', "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// What a value of `kind` is called in the README's value column (followed there by
    /// its limits, as in `size ≥ 1`), or the option's value without value (`None`).
    fn readme_value(d: &Def) -> Option<&'static str> {
        use crate::config::options::Action;
        use crate::config::values::ValueKind as K;
        match d.action {
            Action::Value { kind, .. }
            | Action::Name { kind, .. }
            | Action::Optional { kind, .. } => Some(match kind {
                K::Size => "size",
                K::Int => "n",
                K::ApiList | K::DebugList => "list",
                K::File | K::Destination => "file",
                K::FillValue => "0–255 or `undefined`",
                K::FillTime => "`never`, `ifset`, `alloc`",
                K::AllocTime => "`default`, `early`, `incr`, `late`",
                K::Shift => "`=SHIFT` (attached, optional)",
                K::Criterion => "criterion",
                K::Percent => "percent",
                K::Seconds => "seconds",
                K::Hint | K::Label => "`KEY=VALUE`",
                K::Payload => "`constant`, `incompressible`, `compress=PCT`",
                K::ChunkCache => "`BYTES[,SLOTS[,W0]]`",
                K::Phases => "`=PHASES` (attached, optional)",
                K::Interval => "`=INTERVAL` (attached, optional)",
            }),
            Action::Switch(_) => None,
        }
    }

    #[test]
    fn readme_options_table_shows_each_value_and_default() {
        let sec = section(README, "## Options", "## ");
        for d in &DEFS {
            let long = format!("`{}`", d.long_shown());
            let row = sec
                .lines()
                .find(|l| l.starts_with('|') && l.split('|').nth(2).map(str::trim) == Some(&long))
                .unwrap_or_else(|| panic!("README.md (## Options) has no row {long}"));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            match readme_value(d) {
                None => assert!(cells[3].is_empty(), "{long} takes no value: {row}"),
                Some(v) => assert!(
                    cells[3] == v || cells[3].starts_with(&format!("{v} ")),
                    "{long}: the value column should be {v:?}: {row}"
                ),
            }
            assert_eq!(
                words(cells[5]),
                default_of(d).unwrap_or_default(),
                "{long}: the default column is not the help text's [default: ...]"
            );
        }
    }

    #[test]
    fn man_page_options_state_each_default() {
        let sec = plain(section(MAN, ".SH OPTIONS", ".SH "));
        // the entries: from a head `.BR -x ...` to the next head
        let mut entries: Vec<(Shown, String)> = Vec::new();
        for line in sec.lines() {
            if line.starts_with(".BR -") {
                entries.push((man_entry(line), String::new()));
            } else if let Some((_, text)) = entries.last_mut() {
                text.push_str(line);
                text.push('\n');
            }
        }
        for d in &DEFS {
            let (_, text) = entries
                .iter()
                .find(|(shown, _)| shown.1 == d.long)
                .unwrap_or_else(|| panic!("man/h5perf.1 has no entry --{}", d.long));
            let text = words(text);
            let stated = text
                .find("Default: ")
                .map(|i| &text[i + "Default: ".len()..]);
            match (default_of(d), stated) {
                (None, None) => {}
                (Some(want), Some(s)) => assert!(
                    s.starts_with(&format!("{want}.")) || s.starts_with(&format!("{want} (")),
                    "man/h5perf.1 --{}: \"Default: {s}\" should start with \"{want}.\" or \"{want} (\"",
                    d.long
                ),
                (want, s) => panic!("man/h5perf.1 --{}: default {s:?}, the table's {want:?}", d.long),
            }
        }
    }

    #[test]
    fn help_names_the_options_that_take_boolean_words() {
        use crate::config::options::{Action, Switch};
        let words: Vec<String> = DEFS
            .iter()
            .filter(|d| matches!(d.action, Action::Switch(Switch::Flag { words: true, .. })))
            .map(|d| format!("--{}", d.long))
            .collect();
        assert!(
            AFTER_OPTIONS.starts_with(&format!(
                "{} also accept the value 1, yes, true or on\n",
                words.join(" and ")
            )),
            "{words:?}"
        );
    }

    #[test]
    fn help_text_content() {
        let h = help_text();
        assert!(h.starts_with("usage: h5perf [OPTIONS]\n"));
        assert!(h.ends_with('\n'));
        for (n, line) in h.lines().enumerate() {
            assert!(
                line.chars().count() < 80,
                "line {} too long: {line:?}",
                n + 1
            );
            assert!(!line.ends_with(' '), "line {} has trailing blanks", n + 1);
        }
        // every option, in its short and full long form
        for o in &DEFS {
            if let Some(c) = o.short {
                assert!(h.contains(&format!("-{c}")), "-{c} missing");
            }
            let long_shown = format!("--{}[{}]", &o.long[..o.min], &o.long[o.min..]);
            assert!(h.contains(&long_shown), "{long_shown} missing");
        }
        for needle in [
            "1024",
            "1048576",
            "1073741824",
            "37M = 38797312 bytes",
            "posix, mpiio, phdf5",
            "1111----2222----3333----",
            "123123123123------------",
            "HDF5_PARAPREFIX",
            "HDF5_NOCLEANUP",
            "HDF5_MPI_INFO",
            "S = -e x P",
            "1122----",
            "  r  ",
            "  t  ",
            "  v  ",
        ] {
            assert!(h.contains(needle), "{needle} missing from help");
        }
        // the example sizes in the help text are true
        assert_eq!(parse_size("37M"), Ok(38_797_312));
    }
}
