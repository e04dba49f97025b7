//! Where the results go as files: the `--json`, `--csv` and `--rank-csv` documents
//! ([`Sink`], checked by [`create`]), and the check, before anything is written, that
//! no two outputs — these, the `-o` report and the data files — are one file
//! ([`check_distinct`]).
//!
//! A results file is never emptied or half-written: each version is written to the
//! temporary file beside it and renamed over it ([`crate::output::paths`]), so an
//! earlier run's file stays as it was until this run has something to replace it with.
//! A name that is not a regular file (a device such as `/dev/null`, a FIFO,
//! `/dev/stdout`) is never replaced: the document is written through to it once, at the
//! end of the run ([`paths::open_output`]).

use std::ffi::OsStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::config::{Acceptance, Api, Params};
use crate::datadir::dir_or_current;
use crate::error::{io_text, path_text, Error, Result};
use crate::output::paths::{self, FileKey};

/// The name meaning standard output for `--json`, `--csv` and `--rank-csv`.
const STDOUT: &str = "-";

/// Where one results document goes: standard output (written once, at the end of the
/// run), a file (replaced atomically, after each step and at the end), or a device,
/// FIFO or other file that is not a regular file (written through, once, at the end).
#[derive(Debug)]
pub enum Sink {
    /// Standard output (`-`).
    Stdout,
    /// Not a regular file: written through this descriptor at the end of the run.
    Through {
        /// The descriptor, opened write-only without truncation.
        file: std::fs::File,
        /// The name given, as message text.
        shown: String,
        /// The option, for messages.
        option: &'static str,
    },
    /// A file.
    File {
        /// The file replaced (the name given, symbolic links followed).
        path: PathBuf,
        /// The name given, as message text.
        shown: String,
        /// The option (`--json`, `--csv`, `--rank-csv`), for messages.
        option: &'static str,
        /// The temporary file beside it that each version goes through
        /// (`.NAME.h5perf-tmp.PID` in the same directory).
        tmp: PathBuf,
    },
}

/// What the file of `option` is, for messages: the HTML page of `--html`, else a
/// results file.
fn kind(option: &str) -> &'static str {
    if option == "--html" {
        "HTML page"
    } else {
        "results file"
    }
}

/// Check the destination `dest` of `option` (`--json`, `--csv`, `--rank-csv` or `--html`)
/// before the run: `-` is standard output; a name that is not a regular file is opened
/// to be written through ([`paths::open_output`]); for a new or regular file, the
/// temporary file beside it is created (never through an existing name) and removed
/// again, so an unwritable name is refused before any I/O while a file of an earlier
/// run is left alone until the first step of this run has finished.
///
/// # Errors
/// [`Error::Other`] naming the option and the file when the temporary file beside it
/// cannot be created (`results file (--json): cannot create 'x/r.json': No such file
/// or directory`), `dest` is a directory, a special file that cannot be opened, or a
/// symbolic link of another user in a shared directory.
pub fn create(dest: &OsStr, option: &'static str) -> Result<Sink> {
    if dest == STDOUT {
        return Ok(Sink::Stdout);
    }
    let shown = path_text(dest);
    let cannot = |why: String| {
        Error::Other(format!(
            "{} ({option}): cannot create '{shown}': {why}",
            kind(option)
        ))
    };
    let path = match paths::open_output(Path::new(dest)).map_err(cannot)? {
        paths::Target::Replace { path } => path,
        paths::Target::Through(file) => {
            return Ok(Sink::Through {
                file,
                shown,
                option,
            })
        }
    };
    let tmp = paths::temp_beside(&path);
    let _ = std::fs::remove_file(&tmp);
    new_file(&tmp).map_err(|e| cannot(io_text(&e)))?;
    std::fs::remove_file(&tmp).map_err(|e| cannot(io_text(&e)))?;
    Ok(Sink::File {
        path,
        shown,
        option,
        tmp,
    })
}

/// A new file at `path`, refusing an existing name (a planted symbolic link included).
fn new_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

impl Sink {
    /// Write `text` as the whole document: on standard output, once, flushed; to a
    /// file, through its temporary file (written, `fsync`ed, renamed over the file,
    /// then the directory `fsync`ed), so a reader or a killed run sees either the
    /// previous document or this one, never a part.
    ///
    /// # Errors
    /// [`Error::Other`] naming the option and the file when the text cannot be written
    /// or the file not replaced (the temporary file is removed).
    pub fn write(&self, text: &str) -> Result<()> {
        match self {
            Sink::Through {
                file,
                shown,
                option,
            } => {
                let mut f = file;
                f.write_all(text.as_bytes())
                    .and_then(|()| f.flush())
                    .map_err(|e| {
                        Error::Other(format!(
                            "{} ({option}): cannot write '{shown}': {}",
                            kind(option),
                            io_text(&e)
                        ))
                    })
            }
            Sink::Stdout => {
                let mut o = std::io::stdout().lock();
                o.write_all(text.as_bytes())
                    .and_then(|()| o.flush())
                    .map_err(|e| {
                        Error::Other(format!(
                            "cannot write the results to standard output: {}",
                            io_text(&e)
                        ))
                    })
            }
            Sink::File {
                path,
                shown,
                option,
                tmp,
            } => {
                let _ = std::fs::remove_file(tmp);
                let wrote = new_file(tmp)
                    .and_then(|mut f| {
                        f.write_all(text.as_bytes())?;
                        f.sync_all()
                    })
                    .map_err(|e| io_text(&e))
                    .and_then(|()| paths::replace(tmp, path).map_err(|e| e.to_string()));
                if let Err(why) = wrote {
                    let _ = std::fs::remove_file(tmp);
                    return Err(Error::Other(format!(
                        "{} ({option}): cannot write '{shown}': {why}",
                        kind(option)
                    )));
                }
                Ok(())
            }
        }
    }

    /// Whether the document goes to a regular file (rewritten after each step).
    pub fn is_file(&self) -> bool {
        matches!(self, Sink::File { .. })
    }

    /// Whether the document goes to standard output (`-`), which gets the results of a
    /// verified run only.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Sink::Stdout)
    }
}

/// One output for [`check_distinct`]: the option that names it and the name.
struct Output<'a> {
    /// `-o/--output`, `--json`, ...
    option: &'static str,
    /// The name as given.
    name: &'a OsStr,
}

/// Refuse outputs that would overwrite each other, a data file or an input, compared
/// as files (device and inode of an existing file, or of the directory a file will be
/// created in and its name; symbolic links followed), not as spellings: the `-o`
/// report and the `--json`, `--csv`, `--rank-csv`, `--html` files (not `-`, not a
/// device, FIFO or socket, which are written through) must be different files, none of them a data file `#pio_tmp_N.posix|.mpio|.h5` of the run
/// in `dir` (the data directory; empty for the current one) nor the `--baseline` file
/// of `a`, which is read. Touches no file.
///
/// # Errors
/// The refusal, one line naming both options and files.
pub fn check_distinct(p: &Params, a: &Acceptance, dir: &Path) -> std::result::Result<(), String> {
    let named = [
        ("-o/--output", p.output.as_deref()),
        ("--json", p.json.as_deref().filter(|f| *f != STDOUT)),
        ("--csv", p.csv.as_deref().filter(|f| *f != STDOUT)),
        ("--rank-csv", p.rank_csv.as_deref().filter(|f| *f != STDOUT)),
        ("--html", a.html.as_deref().filter(|f| *f != STDOUT)),
    ];
    let outputs: Vec<(Output<'_>, FileKey)> = named
        .iter()
        .filter_map(|&(option, name)| name.map(|name| Output { option, name }))
        // a device or FIFO named twice (`--json /dev/null --csv /dev/null`) is written
        // through, never replaced: the outputs cannot overwrite each other
        .filter(|o| !paths::is_special(Path::new(o.name)))
        .map(|o| {
            let key = FileKey::of(Path::new(o.name));
            (o, key)
        })
        .collect();
    for (i, (a, ka)) in outputs.iter().enumerate() {
        for (b, kb) in &outputs[i + 1..] {
            if ka == kb {
                return Err(format!(
                    "{} '{}' and {} '{}' are the same file: the results would overwrite \
                     each other; give them different names",
                    a.option,
                    path_text(a.name),
                    b.option,
                    path_text(b.name)
                ));
            }
        }
    }
    if let Some(base) = a.baseline.as_deref() {
        let key = FileKey::of(Path::new(base));
        if let Some((o, _)) = outputs.iter().find(|(_, k)| *k == key) {
            return Err(format!(
                "{} '{}' and --baseline '{}' are the same file: the run would overwrite \
                 the baseline it is compared with; give them different names",
                o.option,
                path_text(o.name),
                path_text(base)
            ));
        }
    }
    let data_dir = std::fs::metadata(dir_or_current(dir)).ok();
    for (o, key) in &outputs {
        if let Some(data) = data_file_of(p, dir, data_dir.as_ref(), Path::new(o.name), key) {
            return Err(format!(
                "{} '{}' is the data file '{}' of this run, which the benchmark overwrites \
                 and removes; give it a name other than #pio_tmp_N.posix, .mpio or .h5 in \
                 the data directory",
                o.option,
                path_text(o.name),
                path_text(data.as_os_str())
            ));
        }
    }
    Ok(())
}

/// The data file of the run that the output `name` (key `key`) is, if any: the name
/// leads (links followed) to `#pio_tmp_N<suffix>` of a selected API, `N` of
/// `1..=num_files`, in the data directory `dir` (`dir_meta` its `stat`); or the output
/// is an existing file with more than one name and one of them is such a data file.
fn data_file_of(
    p: &Params,
    dir: &Path,
    dir_meta: Option<&std::fs::Metadata>,
    name: &Path,
    key: &FileKey,
) -> Option<PathBuf> {
    let dir_meta = dir_meta?;
    let target = paths::resolve_links(name);
    let in_dir = target
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .and_then(|d| std::fs::metadata(d).ok())
        .is_some_and(|m| m.dev() == dir_meta.dev() && m.ino() == dir_meta.ino());
    if in_dir {
        if let Some((f, api)) = target
            .file_name()
            .and_then(|n| data_file_number(n.as_bytes()))
        {
            if f <= p.num_files && p.apis.contains(api) {
                return crate::datadir::data_file_name(dir, f, api.suffix()).ok();
            }
        }
    }
    // another name of the same file (a hard link) among the data files in the directory
    let FileKey::Inode { dev, ino } = *key else {
        return None;
    };
    let links = std::fs::metadata(name).map_or(1, |m| m.nlink());
    if links < 2 {
        return None;
    }
    let entries = std::fs::read_dir(dir_or_current(dir)).ok()?;
    for e in entries.flatten() {
        let file = e.file_name();
        let Some((f, api)) = data_file_number(file.as_bytes()) else {
            continue;
        };
        if f > p.num_files || !p.apis.contains(api) {
            continue;
        }
        let m = e.metadata().ok()?;
        if m.dev() == dev && m.ino() == ino {
            return crate::datadir::data_file_name(dir, f, api.suffix()).ok();
        }
    }
    None
}

/// `N` and the API of a data-file name `#pio_tmp_N.posix|.mpio|.h5` (`N` as the
/// benchmark writes it: decimal, no leading zero, at least 1).
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
        super::check_distinct(p, &Acceptance::default(), dir)
    }

    fn params(args: &[(&str, &str)]) -> Params {
        let mut o = Options::default();
        for (k, v) in args {
            let v = OsStr::new(v);
            match *k {
                "-o" => o.set_output(v).unwrap(),
                "--json" => o.set_json(v).unwrap(),
                "--csv" => o.set_csv(v).unwrap(),
                "--rank-csv" => o.set_rank_csv(v).unwrap(),
                _ => unreachable!(),
            }
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
        // '-' is standard output for --json/--csv, never a clash
        check_distinct(&params(&[("--json", "-"), ("--csv", "-")]), d).unwrap();
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
        let e = super::check_distinct(&p, &a, d).unwrap_err();
        assert!(
            e.starts_with("--csv '") && e.contains("and --baseline '"),
            "the run's CSV through a link is the baseline: {e}"
        );
        let p = params(&[("-o", d.join("p.html").to_str().unwrap())]);
        let e = super::check_distinct(&p, &a, d).unwrap_err();
        assert!(e.contains("-o/--output") && e.contains("--html"), "{e}");
        let p = params(&[("--csv", d.join("new.csv").to_str().unwrap())]);
        super::check_distinct(&p, &a, d).unwrap();
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

    #[test]
    fn results_file_replaced_never_emptied() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.json");
        std::fs::write(&path, "old content that is longer").unwrap();
        let sink = create(path.as_os_str(), "--json").unwrap();
        assert!(sink.is_file());
        // checked, not touched: the earlier file stays until the first write
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "old content that is longer"
        );
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
        sink.write("{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        sink.write("[]\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[]\n");
        // no temporary file left beside it
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
        assert!(create(OsStr::new("-"), "--csv").unwrap().is_stdout());
        let bad = t.path().join("no/such/dir.csv");
        let e = create(bad.as_os_str(), "--csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "results file (--csv): cannot create '{}': No such file or directory",
                bad.display()
            )
        );
        let e = create(t.path().as_os_str(), "--json").unwrap_err();
        assert!(e.to_string().ends_with("Is a directory"), "{e}");
    }

    #[test]
    fn long_multibyte_names_in_messages() {
        let t = tempfile::tempdir().unwrap();
        for (c, option) in [("é", "--json"), ("€", "--csv"), ("𝄞", "--rank-csv")] {
            let missing = t.path().join(c.repeat(240 / c.len()));
            let name = missing.join(c.repeat(240 / c.len()));
            let e = create(name.as_os_str(), option).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("results file ({option}): cannot create '")),
                "{e}"
            );
            assert!(e.contains(&c.repeat(50)), "{e}");
        }
    }

    #[test]
    fn results_through_a_symbolic_link_replace_its_target() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("target.csv"), "old").unwrap();
        std::os::unix::fs::symlink("target.csv", t.path().join("link.csv")).unwrap();
        let sink = create(t.path().join("link.csv").as_os_str(), "--csv").unwrap();
        sink.write("new\n").unwrap();
        let link = std::fs::symlink_metadata(t.path().join("link.csv")).unwrap();
        assert!(link.file_type().is_symlink(), "the link is kept");
        assert_eq!(
            std::fs::read_to_string(t.path().join("target.csv")).unwrap(),
            "new\n"
        );
    }

    #[test]
    fn failed_write_names_option_and_file_and_keeps_the_earlier_file() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("r.csv");
        std::fs::write(&path, "earlier").unwrap();
        let sink = create(path.as_os_str(), "--csv").unwrap();
        // the directory becomes unwritable: the temporary file cannot be created
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let e = sink.write("x").unwrap_err().to_string();
        assert!(
            e.starts_with("results file (--csv): cannot write '") && e.contains("r.csv"),
            "{e}"
        );
    }
}
