//! What a run left in its data directory: the files of a run that ended without
//! removing them (found through its stale lock, [`super::lock`]), and the outcome of
//! removing a data file at the end of a step.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use super::lock_record::{claimed_names, left_by, shown, Holder};
use crate::error::{path_text, Error, Result};

/// Rank 0, holding the lock taken over from the dead run `stale`: remove the files it
/// left in `dir` ([`left_by`]) unless it kept them; returns the lines for stderr.
pub fn clean(dir: &Path, stale: &Holder) -> Vec<String> {
    let mut notes = vec![format!(
        "h5perf: an earlier h5perf run ended without releasing the data directory {} ({}); \
         its lock is taken over",
        shown(dir),
        stale.describe()
    )];
    let names = match claimed_names(dir, &stale.claim) {
        Ok(n) => n,
        Err(e) => {
            notes.push(format!(
                "h5perf: cannot list {} to look for what that run left: {e}",
                shown(dir)
            ));
            return notes;
        }
    };
    let (mut removed, mut kept) = (Vec::new(), Vec::new());
    let mut failed = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let m = match fs::symlink_metadata(&path) {
            Ok(m) if left_by(&m, stale) => m,
            _ => continue,
        };
        let shown = path_text(path.as_os_str());
        if stale.claim.keep {
            kept.push(shown);
            continue;
        }
        match fs::remove_file(&path) {
            Ok(()) => removed.push(format!("{shown} ({} bytes)", m.len())),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => failed.push(format!(
                "h5perf: cannot remove {shown}, which that run left: {e}"
            )),
        }
    }
    if removed.is_empty() && kept.is_empty() && failed.is_empty() {
        notes[0].push_str("; it left no other file");
    }
    if !removed.is_empty() {
        notes.push(format!(
            "h5perf: removed what that run left: {}",
            removed.join(", ")
        ));
    }
    if !kept.is_empty() {
        notes.push(format!(
            "h5perf: that run kept its data files (HDF5_NOCLEANUP or --read-only), left as they are: {}",
            kept.join(", ")
        ));
    }
    notes.extend(failed);
    notes
}

/// The outcome of removing the data file `path` at the end of a step: success, or a
/// file that is gone anyway, is `Ok`; otherwise an error naming the file, saying it is
/// left behind, with the removal's error.
pub fn removal_outcome(removed: Result<()>, path: &Path) -> Result<()> {
    match removed {
        Ok(()) => Ok(()),
        Err(_) if matches!(fs::symlink_metadata(path), Err(e) if e.kind() == ErrorKind::NotFound) => {
            Ok(())
        }
        Err(e) => Err(Error::DataDir(format!(
            "cannot remove the data file {}, which is left behind: {e}",
            path_text(path.as_os_str())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lock_record::Claim;
    use super::*;

    #[test]
    fn leftovers_of_a_dead_run() {
        let t = std::env::temp_dir().join(format!("h5perf-leftovers-{}", std::process::id()));
        fs::create_dir_all(&t).unwrap();
        let d = t.as_path();
        for n in [
            "#pio_tmp_1.posix",
            "#pio_tmp_2.posix",
            "#pio_tmp_1.mpio",
            "other",
        ] {
            fs::write(t.join(n), b"12345").unwrap();
        }
        let mut stale = Holder::this_process(Claim {
            data: vec![(".posix".into(), 1)],
            scratch: vec![],
            keep: true,
            ranks: 0,
            subfiling: false,
        });
        stale.started -= 5;
        // kept: named, not removed
        let notes = clean(d, &stale);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[1].contains("#pio_tmp_1.posix") && notes[1].contains("kept"),
            "{notes:?}"
        );
        assert!(t.join("#pio_tmp_1.posix").exists());
        // removed: only the claimed name
        stale.claim.keep = false;
        let notes = clean(d, &stale);
        assert!(notes[1].contains("#pio_tmp_1.posix (5 bytes)"), "{notes:?}");
        assert!(!t.join("#pio_tmp_1.posix").exists());
        assert!(t.join("#pio_tmp_2.posix").exists() && t.join("other").exists());
        // files older than the run (and the slack) are not its own
        stale.claim.data = vec![(".posix".into(), 2), (".mpio".into(), 1)];
        stale.started += 3600;
        let notes = clean(d, &stale);
        assert!(notes[0].ends_with("it left no other file"), "{notes:?}");
        assert!(t.join("#pio_tmp_2.posix").exists());
        fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn subfiles_of_a_dead_subfiling_run() {
        let t = std::env::temp_dir().join(format!("h5perf-subfiles-left-{}", std::process::id()));
        fs::create_dir_all(&t).unwrap();
        let left = [
            "#pio_tmp_1.h5",
            "#pio_tmp_1.h5.subfile_77.config",
            "#pio_tmp_1.h5.subfile_77_1_of_2",
            "#pio_tmp_1.h5.subfile_77_2_of_2",
        ];
        for n in left
            .iter()
            .chain(&["#pio_tmp_1.h5.subfile_77.config.other"])
        {
            fs::write(t.join(n), b"12").unwrap();
        }
        let mut stale = Holder::this_process(Claim {
            data: vec![(".h5".into(), 1)],
            scratch: vec![],
            keep: false,
            ranks: 0,
            subfiling: true,
        });
        stale.started -= 5;
        let notes = clean(&t, &stale);
        for n in left {
            assert!(!t.join(n).exists(), "{n}: {notes:?}");
            assert!(notes[1].contains(&format!("{n} (2 bytes)")), "{notes:?}");
        }
        assert!(t.join("#pio_tmp_1.h5.subfile_77.config.other").exists());
        fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn removal_outcomes() {
        let p = Path::new;
        assert!(removal_outcome(Ok(()), p("/nonexistent/x")).is_ok());
        let err = Error::Internal("MPI_File_delete failed");
        assert!(removal_outcome(Err(err.clone()), p("/nonexistent/x")).is_ok());
        let e = removal_outcome(Err(err), p("/")).unwrap_err().to_string();
        assert!(
            e.contains("cannot remove the data file /") && e.contains("left behind"),
            "{e}"
        );
    }
}
