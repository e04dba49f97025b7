//! Pure parsing of environment-variable values (spec §2.4). Every malformed entry is
//! refused with one message naming `HDF5_MPI_INFO` (spec §11 item 18).

use super::values::printable;
use crate::error::Error;

/// The hints of `HDF5_MPI_INFO` as the MPI library holds them after the C tool's
/// `MPI_Info_set` calls (spec §2.4).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MpiInfo {
    /// `(key, value)` pairs, one per key, in the order of each key's first entry; a key
    /// given twice has its last value (`MPI_Info_set` replaces the value of a key already
    /// set, MPI-4.0 §10.1).
    pub pairs: Vec<(String, String)>,
    /// The keys given more than once, in the order of their first repetition (each once).
    pub repeated: Vec<String>,
}

/// Set `key` to `value` in `pairs` as `MPI_Info_set` does (MPI-4.0 §10.1): a key already
/// present keeps its place and takes the new value, a new key is appended. Returns
/// whether the key was already present.
pub fn set_hint(pairs: &mut Vec<(String, String)>, key: &str, value: &str) -> bool {
    match pairs.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => {
            *v = value.to_string();
            true
        }
        None => {
            pairs.push((key.to_string(), value.to_string()));
            false
        }
    }
}

/// Parse the value of `HDF5_MPI_INFO` (spec §2.4) into its hints; keys at most
/// `max_key` bytes, values `max_val` bytes. A key given twice is accepted as the C tool
/// accepts it (its last value holds, see [`MpiInfo`]) and listed in
/// [`MpiInfo::repeated`] for a warning.
///
/// # Errors
/// [`Error::Usage`] for an entry without `=`, an empty key or value, one too long, or a
/// control character (a newline would forge a line of the text report).
pub fn parse_mpi_info_with_limits(
    s: &str,
    max_key: usize,
    max_val: usize,
) -> Result<MpiInfo, Error> {
    let blank: &[char] = &[' ', '\t'];
    let mut out = MpiInfo::default();
    for raw in s.split(';') {
        let piece = raw.trim_matches(blank);
        if piece.is_empty() {
            continue;
        }
        let refuse = |why: String| {
            Error::Usage(format!(
                "h5perf: invalid HDF5_MPI_INFO entry '{}': {why}",
                printable(piece)
            ))
        };
        let Some((k, v)) = piece.split_once('=') else {
            return Err(refuse(
                "expected KEY=VALUE (entries are separated by ';')".to_string(),
            ));
        };
        let key = k.trim_matches(blank);
        let value = v.trim_matches(blank);
        check_hint(piece, key, value, max_key, max_val).map_err(refuse)?;
        if set_hint(&mut out.pairs, key, value) && !out.repeated.iter().any(|k| k == key) {
            out.repeated.push(key.to_string());
        }
    }
    Ok(out)
}

/// The warning for the keys `repeated` in `HDF5_MPI_INFO` (none when empty), whose
/// values in `pairs` are the ones used: one line, `h5perf: warning: ...`.
pub fn repeated_warning(repeated: &[String], pairs: &[(String, String)]) -> Option<String> {
    if repeated.is_empty() {
        return None;
    }
    let used: Vec<String> = repeated
        .iter()
        .filter_map(|k| pairs.iter().find(|(pk, _)| pk == k))
        .map(|(k, v)| format!("{}={}", printable(k), printable(v)))
        .collect();
    Some(format!(
        "h5perf: warning: HDF5_MPI_INFO gives a key more than once; the last value holds, \
         as MPI_Info_set does: {}\n",
        used.join(", ")
    ))
}

/// The longest hint key the MPI library takes (`MPI_MAX_INFO_KEY` less the NUL), bytes.
pub const MAX_KEY: usize = mpi_sys::MPI_MAX_INFO_KEY as usize - 1;
/// The longest hint value the MPI library takes (`MPI_MAX_INFO_VAL` less the NUL), bytes.
pub const MAX_VAL: usize = mpi_sys::MPI_MAX_INFO_VAL as usize - 1;

/// Whether one hint `piece` (`key=value` as given, blanks included), split into its
/// trimmed `key` and `value`, can go to the MPI library and into the report, for
/// `HDF5_MPI_INFO` and `--mpi-info` alike. Errors: why not — an empty key or value, a
/// control character anywhere in `piece` (a newline would forge a line of the text
/// report's info dump), a key longer than `max_key` or a value longer than `max_val` bytes.
pub fn check_hint(
    piece: &str,
    key: &str,
    value: &str,
    max_key: usize,
    max_val: usize,
) -> Result<(), String> {
    if key.is_empty() {
        return Err("empty key".to_string());
    }
    if value.is_empty() {
        return Err("empty value".to_string());
    }
    if let Some(c) = piece.chars().find(|c| c.is_control()) {
        return Err(format!(
            "it holds the control character {} (the report and the results files \
             would carry it)",
            c.escape_default()
        ));
    }
    if key.len() > max_key {
        return Err(format!(
            "the key is {} bytes long, the MPI library accepts at most {max_key}",
            key.len()
        ));
    }
    if value.len() > max_val {
        return Err(format!(
            "the value is {} bytes long, the MPI library accepts at most {max_val}",
            value.len()
        ));
    }
    Ok(())
}

/// What to add to the message `msg` of an MPI-IO or PHDF5 call made with the hints
/// `pairs`: the hints whose key `msg` names, or for a failed open (`opening`) all of them.
pub fn hint_note(msg: &str, pairs: &[(String, String)], opening: bool) -> Option<String> {
    if pairs.is_empty() {
        return None;
    }
    let lower = msg.to_ascii_lowercase();
    let list = |ps: &[&(String, String)]| {
        ps.iter()
            .map(|(k, v)| format!("'{}={}'", printable(k), printable(v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let named: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(k, _)| lower.contains(&k.to_ascii_lowercase()))
        .collect();
    if !named.is_empty() {
        let s = if named.len() == 1 { "" } else { "s" };
        return Some(format!(
            " (the MPI library names the HDF5_MPI_INFO hint{s} {}: check or remove it)",
            list(&named)
        ));
    }
    opening.then(|| {
        let all: Vec<&(String, String)> = pairs.iter().collect();
        format!(
            " (the file was opened with the HDF5_MPI_INFO hints {}: if the data directory \
             is fine, check them)",
            list(&all)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits of Open MPI: `MPI_MAX_INFO_KEY` 36 and `MPI_MAX_INFO_VAL` 256, each
    /// with its terminating NUL.
    fn parse_mpi_info(s: &str) -> Result<Vec<(String, String)>, Error> {
        parse_mpi_info_with_limits(s, 35, 255).map(|i| i.pairs)
    }

    fn pairs(s: &str) -> Vec<(String, String)> {
        parse_mpi_info(s).unwrap()
    }

    fn p(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    fn refused(s: &str) -> String {
        match parse_mpi_info(s) {
            Err(Error::Usage(m)) => m,
            other => panic!("{s:?} was not refused: {other:?}"),
        }
    }

    #[test]
    fn spec_examples() {
        assert_eq!(
            pairs("  key1 =  value 1  ;\tk2=v2\t"),
            vec![p("key1", "value 1"), p("k2", "v2")]
        );
        assert_eq!(pairs(";;a=b"), vec![p("a", "b")]);
        assert!(pairs("").is_empty());
    }

    #[test]
    fn later_equals_belong_to_value() {
        assert_eq!(pairs("a=b=c"), vec![p("a", "b=c")]);
        assert_eq!(pairs("a = = c"), vec![p("a", "= c")]);
    }

    #[test]
    fn blank_pieces_skipped_and_order_kept() {
        assert_eq!(pairs("a=b; ;c=d"), vec![p("a", "b"), p("c", "d")]);
        assert_eq!(pairs(" \t ; ;\t"), vec![]);
        assert_eq!(pairs("z=1;a=2;"), vec![p("z", "1"), p("a", "2")]);
    }

    #[test]
    fn a_key_twice_keeps_its_place_and_takes_the_last_value() {
        // the C tool calls MPI_Info_set for each entry: the last value replaces the first
        let i = parse_mpi_info_with_limits("a=1;b=2;a=3; b = 4 ;a=5;c=6", 35, 255).unwrap();
        assert_eq!(i.pairs, vec![p("a", "5"), p("b", "4"), p("c", "6")]);
        assert_eq!(i.repeated, vec!["a".to_string(), "b".to_string()]);
        let w = repeated_warning(&i.repeated, &i.pairs).unwrap();
        assert!(w.starts_with("h5perf: warning: HDF5_MPI_INFO gives a key more than once"));
        assert!(w.ends_with(": a=5, b=4\n"), "{w}");
        assert_eq!(w.lines().count(), 1);
        let once = parse_mpi_info_with_limits("a=1;b=2", 35, 255).unwrap();
        assert!(once.repeated.is_empty());
        assert_eq!(repeated_warning(&once.repeated, &once.pairs), None);
        let mut ps = vec![p("x", "1")];
        assert!(!set_hint(&mut ps, "y", "2"));
        assert!(set_hint(&mut ps, "x", "3"));
        assert_eq!(ps, vec![p("x", "3"), p("y", "2")]);
    }

    #[test]
    fn a_control_character_is_refused() {
        let m = refused("a=1\n   Maximum Throughput: 88888.88 MB/s");
        assert!(
            m.contains("control character \\n") && !m.contains('\n'),
            "{m}"
        );
        for c in ['\u{1b}', '\u{7}', '\r', '\u{0}', '\u{85}'] {
            refused(&format!("k=v{c}w"));
        }
    }

    #[test]
    fn refuses_piece_without_equals() {
        let m = refused("novalue;x=1");
        assert!(
            m.starts_with("h5perf: invalid HDF5_MPI_INFO entry 'novalue': "),
            "{m}"
        );
        assert!(m.contains("KEY=VALUE"), "{m}");
    }

    #[test]
    fn refuses_empty_key_or_value() {
        let m = refused("=v");
        assert!(m.contains("'=v'") && m.ends_with("empty key"), "{m}");
        let m = refused("k=");
        assert!(m.contains("'k='") && m.ends_with("empty value"), "{m}");
        let m = refused("a=b; \t= \t;c=d");
        assert!(m.contains("empty key"), "{m}");
        let m = refused("k=  \t");
        assert!(m.contains("empty value"), "{m}");
    }

    #[test]
    fn length_limits() {
        let k35 = "k".repeat(35);
        let v255 = "v".repeat(255);
        assert_eq!(pairs(&format!("{k35}={v255}")), vec![p(&k35, &v255)]);
        let m = refused(&format!("{}=1", "k".repeat(36)));
        assert!(
            m.contains("key is 36 bytes") && m.contains("at most 35"),
            "{m}"
        );
        let m = refused(&format!("k={}", "v".repeat(256)));
        assert!(
            m.contains("value is 256 bytes") && m.contains("at most 255"),
            "{m}"
        );
        // MPICH-like limits through the explicit variant.
        let long = format!("{}=1", "k".repeat(200));
        assert_eq!(
            parse_mpi_info_with_limits(&long, 254, 1023)
                .unwrap()
                .pairs
                .len(),
            1
        );
        assert!(parse_mpi_info_with_limits("ab=1", 1, 10).is_err());
        assert!(parse_mpi_info_with_limits("a=12", 10, 1).is_err());
    }

    #[test]
    fn long_multibyte_entries_are_refused_whole() {
        for c in ["é", "€", "𝄞"] {
            let long = c.repeat(2000 / c.len());
            for s in [
                format!("{long}=1"),
                format!("k={long}"),
                long.clone(),
                format!("={long}"),
            ] {
                let m = refused(&s);
                assert!(m.contains(c) && !m.contains('\n'), "{m}");
            }
            let ps = vec![p(&long, &long)];
            let n = hint_note(&format!("x {long} y"), &ps, false).unwrap();
            assert!(n.contains(&long), "{n}");
        }
    }

    #[test]
    fn hint_notes_name_the_hint() {
        let ps = vec![p("cb_config_list", "zz"), p("striping_unit", "1048576")];
        let m = "MPI_File_open failed: Other I/O error, error stack: ADIO_OPEN \
                 cb_config_list(320): No aggregators match (MPI error 581664)";
        assert_eq!(
            hint_note(m, &ps, true).unwrap(),
            " (the MPI library names the HDF5_MPI_INFO hint 'cb_config_list=zz': check or \
             remove it)"
        );
        let n = hint_note("MPI_File_open failed: Invalid argument", &ps, true).unwrap();
        assert!(
            n.contains("HDF5_MPI_INFO hints 'cb_config_list=zz', 'striping_unit=1048576'"),
            "{n}"
        );
        assert_eq!(
            hint_note("pwrite failed: No space left on device", &ps, false),
            None
        );
        assert_eq!(hint_note(m, &[], true), None);
    }

    #[test]
    fn message_is_one_line() {
        let m = refused("bad\nentry");
        assert!(!m.contains('\n'), "{m}");
        assert!(m.contains("bad\\nentry"), "{m}");
    }
}
