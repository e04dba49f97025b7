//! Golden transcripts: where they are, the cases of `cases.txt`, one case's stored
//! transcript adjusted for the MPI flavour.

use std::fs;
use std::path::PathBuf;

use super::launcher::info_dump_header;
use super::library::hdf5_version_line;

/// Root of the package (where Cargo.toml is).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Directory of the golden transcripts: `$H5PERF_GOLDEN_DIR`, else `tests/golden` in the
/// package, else `../shared/golden` beside the package (the CI layout), else
/// `/work/shared/golden`. Fails when none exists.
pub fn golden_dir() -> PathBuf {
    let mut candidates = Vec::new();
    if let Ok(d) = std::env::var("H5PERF_GOLDEN_DIR") {
        candidates.push(PathBuf::from(d));
    }
    candidates.push(manifest_dir().join("tests/golden"));
    candidates.push(manifest_dir().join("../shared/golden"));
    candidates.push(PathBuf::from("/work/shared/golden"));
    for c in &candidates {
        if c.join("cases.txt").is_file() {
            return c.clone();
        }
    }
    panic!(
        "golden transcripts not found (looked for cases.txt in {:?}); set H5PERF_GOLDEN_DIR",
        candidates
    );
}

/// One line of `cases.txt`: `NAME NPROCS [ENV=VALUE ...] ARGS`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    pub np: usize,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
}

/// Shell-like word splitting: blanks separate words; single quotes, double quotes and
/// backslashes quote as in sh.
pub fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if have {
                    words.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            '\'' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err(format!("unterminated ' in: {line}")),
                    }
                }
            }
            '"' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x)
                            }
                            None => return Err(format!("unterminated \" in: {line}")),
                        },
                        Some(x) => cur.push(x),
                        None => return Err(format!("unterminated \" in: {line}")),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            _ => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        words.push(cur);
    }
    Ok(words)
}

fn is_env_assignment(w: &str) -> Option<(String, String)> {
    let eq = w.find('=')?;
    let key = &w[..eq];
    let mut cs = key.chars();
    let first = cs.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((key.to_string(), w[eq + 1..].to_string()))
}

/// Parses the text of `cases.txt`.
pub fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = shell_words(line).unwrap_or_else(|e| panic!("cases.txt line {}: {e}", no + 1));
        assert!(
            words.len() >= 2,
            "cases.txt line {}: need NAME NPROCS: {raw}",
            no + 1
        );
        let np: usize = words[1]
            .parse()
            .unwrap_or_else(|_| panic!("cases.txt line {}: bad NPROCS {:?}", no + 1, words[1]));
        let mut i = 2;
        let mut env = Vec::new();
        while i < words.len() {
            match is_env_assignment(&words[i]) {
                Some(kv) => {
                    env.push(kv);
                    i += 1;
                }
                None => break,
            }
        }
        cases.push(Case {
            name: words[0].clone(),
            np,
            env,
            args: words[i..].to_vec(),
        });
    }
    cases
}

/// All cases of the golden `cases.txt`.
pub fn golden_cases() -> Vec<Case> {
    let path = golden_dir().join("cases.txt");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_cases(&text)
}

/// One case by name (fails if absent).
pub fn golden_case(name: &str) -> Case {
    golden_cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| {
            panic!(
                "case {name} not found in {}/cases.txt",
                golden_dir().display()
            )
        })
}

/// The stored transcript of a case.
pub struct Golden {
    pub stdout: String,
    pub stderr: String,
    pub rc: i32,
}

/// The golden transcripts were recorded with Open MPI, whose `MPI_MAX_INFO_VAL` is 256; the
/// release prints the flavour's own value there (spec §2.2), so under MPICH the exact header
/// line reads `(up to 1024 bytes per item)`. They were recorded with HDF5 1.10.8, and the
/// report names the linked library's version: the `HDF5 Library: Version` line becomes that
/// of the library the binary loads ([`super::library::linked_hdf5_version`]). Nothing else is changed.
pub fn for_flavour(golden_stdout: &str) -> String {
    const RECORDED: &str = "Dumping MPI Info Object (up to 256 bytes per item):";
    const RECORDED_VERSION: &str = "HDF5 Library: Version 1.10.8\n";
    golden_stdout
        .replace(RECORDED, &info_dump_header())
        .replace(RECORDED_VERSION, &format!("{}\n", hdf5_version_line()))
}

/// One golden case's transcript: stdout (adjusted by [`for_flavour`]), stderr and the
/// launcher's exit status.
pub fn golden(name: &str) -> Golden {
    let d = golden_dir();
    let read = |ext: &str| {
        let p = d.join(format!("{name}.{ext}"));
        fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read golden {}: {e}", p.display()))
    };
    let rc = read("rc")
        .trim()
        .parse()
        .expect("golden .rc is not an integer");
    Golden {
        stdout: for_flavour(&read("out")),
        stderr: read("err"),
        rc,
    }
}
