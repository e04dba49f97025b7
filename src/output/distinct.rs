//! The check that no two outputs, data files or the `--baseline` are one file.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::paths::{self, FileKey};
use super::sink::STDOUT;
use crate::config::{Acceptance, Api, Params};
use crate::datadir::dir_or_current;
use crate::error::{path_text, Error, Result};

/// A refusal of the outputs, before any I/O.
fn refused(msg: String) -> Error {
    Error::Invalid(vec![msg])
}

/// One output for [`check_distinct`]: the option that names it and the name.
struct Output<'a> {
    /// `-o/--output`, `--json`, ...
    option: &'static str,
    name: &'a OsStr,
}

/// Refuse outputs (not special files) that would overwrite each other, a data file of the run
/// in `dir` or the `--baseline`, compared as files ([`FileKey`]). Standard output counts as
/// one output: two results documents on it (as `-` or as `/dev/stdout`) are refused, and when
/// it is a regular file (`h5perf > f`) that holds the report (`report_on_stdout`, no `-o`) or
/// a document, it is compared like a named file. Touches no file.
///
/// # Errors
/// The refusal ([`Error::Invalid`]), one line naming both options and files.
pub fn check_distinct(
    p: &Params,
    a: &Acceptance,
    dir: &Path,
    report_on_stdout: bool,
) -> Result<()> {
    let named = [
        ("-o/--output", p.output.as_deref()),
        ("--json", p.json.as_deref()),
        ("--csv", p.csv.as_deref()),
        ("--rank-csv", p.rank_csv.as_deref()),
        ("--html", a.html.as_deref()),
    ];
    // whether an output goes to standard output (`-o -` is a file named `-`, as in the
    // C tool)
    let to_stdout = |option: &str, name: &OsStr| {
        paths::is_standard_output(Path::new(name)) && !(option == "-o/--output" && name == STDOUT)
    };
    // the results documents on standard output: at most one (the report may precede it)
    let on_stdout: Vec<(&str, &OsStr)> = named[1..]
        .iter()
        .filter_map(|&(option, name)| Some((option, name?)))
        .filter(|&(option, name)| to_stdout(option, name))
        .collect();
    if let [(a, na), (b, nb), ..] = on_stdout[..] {
        return Err(refused(format!(
            "{a} '{}' and {b} '{}' both write to standard output: the two documents would be \
             mixed in one stream; give one of them a file name",
            path_text(na),
            path_text(nb)
        )));
    }
    let stdout_used = !on_stdout.is_empty()
        || (report_on_stdout && p.output.is_none())
        || p.output
            .as_deref()
            .is_some_and(|n| to_stdout("-o/--output", n));
    let stdout_file = Path::new("/dev/stdout");
    let mut outputs: Vec<(Output<'_>, FileKey)> = named
        .iter()
        .filter_map(|&(option, name)| name.map(|name| Output { option, name }))
        .filter(|o| !to_stdout(o.option, o.name))
        // a special file named twice is written through: the outputs cannot overwrite each other
        .filter(|o| !paths::is_special(Path::new(o.name)))
        .map(|o| {
            let key = FileKey::of(Path::new(o.name));
            (o, key)
        })
        .collect();
    // standard output redirected to a regular file is that file
    if stdout_used && std::fs::metadata(stdout_file).is_ok_and(|m| m.is_file()) {
        let o = Output {
            option: "standard output",
            name: stdout_file.as_os_str(),
        };
        outputs.insert(0, (o, FileKey::of(stdout_file)));
    }
    for (i, (a, ka)) in outputs.iter().enumerate() {
        for (b, kb) in &outputs[i + 1..] {
            if ka == kb {
                return Err(refused(format!(
                    "{} '{}' and {} '{}' are the same file: the results would overwrite \
                     each other; give them different names",
                    a.option,
                    path_text(a.name),
                    b.option,
                    path_text(b.name)
                )));
            }
        }
    }
    if let Some(base) = a.baseline.as_deref() {
        let key = FileKey::of(Path::new(base));
        if let Some((o, _)) = outputs.iter().find(|(_, k)| *k == key) {
            return Err(refused(format!(
                "{} '{}' and --baseline '{}' are the same file: the run would overwrite \
                 the baseline it is compared with; give them different names",
                o.option,
                path_text(o.name),
                path_text(base)
            )));
        }
    }
    let data_dir = std::fs::metadata(dir_or_current(dir)).ok();
    for (o, key) in &outputs {
        if let Some(data) = data_file_of(p, dir, data_dir.as_ref(), Path::new(o.name), key) {
            return Err(refused(format!(
                "{} '{}' is the data file '{}' of this run, which the benchmark overwrites \
                 and removes; give it a name other than #pio_tmp_N.posix, .mpio or .h5 in \
                 the data directory",
                o.option,
                path_text(o.name),
                path_text(data.as_os_str())
            )));
        }
    }
    Ok(())
}

/// The data file of the run that the output `name` is, if any, by name in `dir` or hard link.
fn data_file_of(
    p: &Params,
    dir: &Path,
    dir_meta: Option<&std::fs::Metadata>,
    name: &Path,
    key: &FileKey,
) -> Option<PathBuf> {
    let dir_meta = dir_meta?;
    let wanted = |n: &OsStr| {
        data_file_number(n.as_bytes()).filter(|&(f, api)| f <= p.num_files && p.apis.contains(api))
    };
    let data_name =
        |(f, api): (u64, Api)| crate::datadir::data_file_name(dir, f, api.suffix()).ok();
    let target = paths::resolve_links(name);
    let in_dir = std::fs::metadata(paths::dir_of(&target))
        .is_ok_and(|m| m.dev() == dir_meta.dev() && m.ino() == dir_meta.ino());
    if let Some(d) = target.file_name().and_then(wanted).filter(|_| in_dir) {
        return data_name(d);
    }
    // another name of the same file (a hard link) among the data files in the directory
    let FileKey::Inode(id) = *key else {
        return None;
    };
    if std::fs::metadata(name).map_or(1, |m| m.nlink()) < 2 {
        return None;
    }
    for e in std::fs::read_dir(dir_or_current(dir)).ok()?.flatten() {
        let Some(d) = wanted(&e.file_name()) else {
            continue;
        };
        if crate::ffi::posix::FileId::of(&e.metadata().ok()?) == id {
            return data_name(d);
        }
    }
    None
}

/// `N` and the API of a data-file name `#pio_tmp_N.posix|.mpio|.h5` (`N` ≥ 1, no leading zero).
fn data_file_number(name: &[u8]) -> Option<(u64, Api)> {
    let rest = name.strip_prefix(b"#pio_tmp_")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (num, suffix) = rest.split_at(digits);
    if num.is_empty() || num[0] == b'0' {
        return None;
    }
    let f: u64 = std::str::from_utf8(num).ok()?.parse().ok()?;
    let api = Api::ALL
        .into_iter()
        .find(|a| a.suffix().as_bytes() == suffix)?;
    Some((f, api))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;

    fn check_distinct(p: &Params, dir: &Path) -> std::result::Result<(), String> {
        super::check_distinct(p, &Acceptance::default(), dir, false).map_err(|e| e.to_string())
    }

    fn params(args: &[(&str, &str)]) -> Params {
        let mut o = Options::default();
        for (k, v) in args {
            crate::cli::set(&mut o, k, Some(OsStr::new(v))).unwrap();
        }
        Params::resolve(&o, 1)
    }

    #[test]
    fn names() {
        assert_eq!(data_file_number(b"#pio_tmp_1.posix"), Some((1, Api::Posix)));
        assert_eq!(data_file_number(b"#pio_tmp_12.h5"), Some((12, Api::Phdf5)));
        assert_eq!(data_file_number(b"#pio_tmp_3.mpio"), Some((3, Api::Mpiio)));
        assert_eq!(data_file_number(b"#pio_tmp_01.posix"), None);
        assert_eq!(data_file_number(b"#pio_tmp_0.posix"), None);
        assert_eq!(data_file_number(b"#pio_tmp_1.posix~"), None);
        assert_eq!(data_file_number(b"#pio_tmp_.h5"), None);
    }

    #[test]
    fn same_file_spelled_differently_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let at = |s: &str| d.join(s).to_str().unwrap().to_string();
        let (a, dot_a) = (at("same.out"), format!("{}/./same.out", d.display()));
        let e = check_distinct(&params(&[("--json", &a), ("--csv", &dot_a)]), d).unwrap_err();
        assert!(
            e.starts_with("--json '") && e.contains("and --csv '") && e.contains("same file"),
            "{e}"
        );
        // an existing file and a symbolic link to it
        std::fs::write(d.join("r.txt"), "x").unwrap();
        std::os::unix::fs::symlink("r.txt", d.join("link")).unwrap();
        let e = check_distinct(
            &params(&[("-o", &at("link")), ("--rank-csv", &at("r.txt"))]),
            d,
        )
        .unwrap_err();
        assert!(e.contains("-o/--output") && e.contains("--rank-csv"), "{e}");
        check_distinct(
            &params(&[("-o", &at("r.txt")), ("--json", &at("r.json"))]),
            d,
        )
        .unwrap();
        // two documents on standard output, however it is named
        for (a, b) in [
            ("-", "-"),
            ("-", "/dev/stdout"),
            ("/dev/fd/1", "/proc/self/fd/1"),
        ] {
            let e = check_distinct(&params(&[("--json", a), ("--csv", b)]), d).unwrap_err();
            assert!(e.contains("both write to standard output"), "{a} {b}: {e}");
        }
        // one document on standard output is the documented use
        check_distinct(&params(&[("--json", "/dev/stdout"), ("--csv", &a)]), d).unwrap();
    }

    #[test]
    fn the_page_and_the_baseline_are_compared_as_files() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::write(d.join("old.csv"), "x").unwrap();
        std::os::unix::fs::symlink("old.csv", d.join("link.csv")).unwrap();
        let mut a = Acceptance::default();
        a.set_baseline(d.join("old.csv").as_os_str()).unwrap();
        a.set_html(d.join("./p.html").as_os_str()).unwrap();
        let p = params(&[("--csv", d.join("link.csv").to_str().unwrap())]);
        let e = super::check_distinct(&p, &a, d, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--csv '") && e.contains("and --baseline '"),
            "the run's CSV through a link is the baseline: {e}"
        );
        let p = params(&[("-o", d.join("p.html").to_str().unwrap())]);
        let e = super::check_distinct(&p, &a, d, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("-o/--output") && e.contains("--html"), "{e}");
        let p = params(&[("--csv", d.join("new.csv").to_str().unwrap())]);
        super::check_distinct(&p, &a, d, false).unwrap();
    }

    #[test]
    fn data_files_are_refused_as_outputs() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let at = |s: &str| d.join(s).to_str().unwrap().to_string();
        // yet to be created, in the data directory
        let e = check_distinct(&params(&[("-o", &at("#pio_tmp_1.posix"))]), d).unwrap_err();
        assert!(
            e.contains("is the data file") && e.contains("#pio_tmp_1.posix"),
            "{e}"
        );
        std::fs::create_dir(d.join("sub")).unwrap();
        let e = check_distinct(&params(&[("--json", &at("sub/../#pio_tmp_1.h5"))]), d);
        assert!(e.is_err(), "the name is compared as a file, not as text");
        // only the files the run writes: -F 1 writes #pio_tmp_1 only
        check_distinct(&params(&[("-o", &at("#pio_tmp_2.posix"))]), d).unwrap();
        // elsewhere, the same name is another file
        let other = tempfile::tempdir().unwrap();
        check_distinct(&params(&[("-o", &at("#pio_tmp_1.posix"))]), other.path()).unwrap();
        // a hard link to a kept data file
        std::fs::write(d.join("#pio_tmp_1.mpio"), "kept").unwrap();
        std::fs::hard_link(d.join("#pio_tmp_1.mpio"), other.path().join("r.csv")).unwrap();
        let csv = other.path().join("r.csv");
        let e = check_distinct(&params(&[("--csv", csv.to_str().unwrap())]), d).unwrap_err();
        assert!(e.contains("#pio_tmp_1.mpio"), "{e}");
    }
}
