//! Data and scratch files are never trusted (issue 12, items 2 and 5), proven from
//! outside: files planted in a world-writable sticky directory (as `/tmp` scratch
//! space is), runs as root and as an unprivileged user (`h5perf-t-unpriv`, made with
//! `useradd`, the job run through `setpriv`), victims' bytes and owners compared before
//! and after, and a data file changed between the write and the read phase by an
//! LD_PRELOAD shim (tests/phase_shim.c) for each API.
//!
//! Every case prints one `TABLE|case|flavour|exit status|seconds|files left|message`
//! line on stderr (`cargo test -- --nocapture` shows them).

mod common;

use common::*;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

/// Small runs: 2 ranks, 64 KiB per rank in 16 KiB transfers.
const SMALL: &[&str] = &[
    "-e", "64K", "-x", "16K", "-X", "16K", "-B", "16K", "-p", "2",
];

const APIS: [(&str, &str); 3] = [("posix", "posix"), ("mpiio", "mpio"), ("phdf5", "h5")];

/// A fresh scratch directory made world-writable and sticky (mode 1777, like `/tmp`).
fn sticky_dir() -> tempfile::TempDir {
    let d = scratch_dir();
    fs::set_permissions(d.path(), fs::Permissions::from_mode(0o1777)).expect("chmod 1777");
    d
}

/// The `TABLE` line of one case: what it was, the flavour, the exit status, seconds,
/// what is left in `dir`, the message.
fn table(case: &str, o: &Outcome, dir: &Path) {
    table_row(case, o, &dir_entries(dir), &first_message(o));
}

/// The one `h5perf: ` message of a refused run (non-zero exit, no results).
fn refused(o: &Outcome, what: &str) -> String {
    assert!(
        matches!(o.status, Some(c) if c != 0),
        "{what}: must fail\n{}",
        o.describe()
    );
    assert!(
        !o.stdout.contains("Throughput"),
        "{what}: no results for a refused run\n{}",
        o.describe()
    );
    o.single_message(what)
}

/// A victim file outside the data directory: `secret` bytes, mode 0644.
fn victim(dir: &Path) -> std::path::PathBuf {
    let v = dir.join("victim");
    fs::write(&v, b"secret bytes of someone else\n").unwrap();
    fs::set_permissions(&v, fs::Permissions::from_mode(0o644)).unwrap();
    v
}

fn assert_untouched(v: &Path, what: &str) {
    assert_eq!(
        fs::read(v).unwrap(),
        b"secret bytes of someone else\n",
        "{what}: the victim {} was written",
        v.display()
    );
}

fn chown(p: &Path, u: &Unpriv) {
    std::os::unix::fs::lchown(p, Some(u.uid), Some(u.gid)).expect("lchown");
}

/// A symbolic link planted under each API's data file name (as root, in a sticky
/// world-writable directory): refused with a message naming the link and its target,
/// the target untouched, the link left alone, nothing else left.
#[test]
fn planted_symlinks_are_refused_as_root() {
    for (api, suffix) in APIS {
        let dir = sticky_dir();
        let outside = scratch_dir();
        let v = victim(outside.path());
        let name = format!("#pio_tmp_1.{suffix}");
        std::os::unix::fs::symlink(&v, dir.path().join(&name)).unwrap();
        let mut args = vec!["-A", api];
        args.extend_from_slice(SMALL);
        let o = mpirun_timeout(2, &args, &[], dir.path(), Duration::from_secs(60));
        table(&format!("root: symlink {name} -> victim"), &o, dir.path());
        let msg = refused(&o, api);
        assert!(
            msg.contains(&format!(
                "refusing the data file {name}: it is a symbolic link to "
            )) && msg.contains("victim"),
            "-A {api}: {msg}"
        );
        assert_untouched(&v, api);
        assert!(fs::symlink_metadata(dir.path().join(&name))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(dir_entries(dir.path()), vec![name], "-A {api}");
    }
}

/// Another user's file under the data file's name: refused (root does not write into
/// it), left with its bytes and owner.
#[test]
fn another_users_file_is_refused_as_root() {
    let u = unpriv_user();
    let dir = sticky_dir();
    let f = dir.path().join("#pio_tmp_1.posix");
    fs::write(&f, b"secret bytes of someone else\n").unwrap();
    chown(&f, &u);
    let mut args = vec!["-A", "posix"];
    args.extend_from_slice(SMALL);
    let o = mpirun_timeout(2, &args, &[], dir.path(), Duration::from_secs(60));
    table("root: file of another user", &o, dir.path());
    let msg = refused(&o, "foreign file");
    assert!(
        msg.contains(&format!(
            "refusing the data file #pio_tmp_1.posix: it belongs to user id {}, not to the user running h5perf (user id 0)",
            u.uid
        )),
        "{msg}"
    );
    assert_untouched(&f, "foreign file");
    assert_eq!(fs::metadata(&f).unwrap().uid(), u.uid);
}

/// An own leftover that is a hard link to another file (POSIX, MPI-IO): the name is
/// removed and the file made new, so the other name keeps its bytes; the run succeeds
/// and leaves nothing.
#[test]
fn own_leftover_is_replaced_and_its_hard_link_kept() {
    for (api, suffix) in &APIS[..2] {
        let dir = sticky_dir();
        let outside = scratch_dir();
        let v = victim(outside.path());
        let name = format!("#pio_tmp_1.{suffix}");
        fs::hard_link(&v, dir.path().join(&name)).unwrap();
        let mut args = vec!["-A", api];
        args.extend_from_slice(SMALL);
        let o = mpirun_timeout(2, &args, &[], dir.path(), Duration::from_secs(60));
        table(
            &format!("root: own leftover {name}, hard link to victim"),
            &o,
            dir.path(),
        );
        assert!(o.success(), "-A {api}\n{}", o.describe());
        assert_untouched(&v, api);
        assert_eq!(fs::metadata(&v).unwrap().nlink(), 1, "-A {api}");
        assert!(
            dir_entries(dir.path()).is_empty(),
            "{:?}",
            dir_entries(dir.path())
        );
    }
}

/// `--fill-behaviour`: a symbolic link under either scratch file's name is refused,
/// its target untouched.
#[test]
fn fill_behaviour_scratch_links_are_refused() {
    for which in ["serial", "parallel"] {
        let dir = sticky_dir();
        let outside = scratch_dir();
        let v = victim(outside.path());
        let name = format!("#h5perf_fill_{which}.h5");
        std::os::unix::fs::symlink(&v, dir.path().join(&name)).unwrap();
        let o = mpirun_timeout(
            2,
            &["--fill-behaviour"],
            &[],
            dir.path(),
            Duration::from_secs(90),
        );
        table(&format!("root: symlink {name}"), &o, dir.path());
        assert!(
            matches!(o.status, Some(c) if c != 0),
            "{which}: must fail\n{}",
            o.describe()
        );
        let msg = o.single_message(which);
        assert!(
            msg.contains(&format!(
                "refusing the data file {name}: it is a symbolic link"
            )),
            "{msg}"
        );
        assert_untouched(&v, which);
        assert_eq!(dir_entries(dir.path()), vec![name]);
    }
}

/// `USER` must name one plain subdirectory of `HDF5_PARAPREFIX`, and that
/// subdirectory must be the running user's own directory (not another user's, not a
/// symbolic link): refused before any file is made, nothing made outside the prefix.
#[test]
fn user_subdirectory_is_checked() {
    let u = unpriv_user();
    let top = scratch_dir();
    let prefix = top.path().join("scratch");
    fs::create_dir(&prefix).unwrap();
    fs::set_permissions(&prefix, fs::Permissions::from_mode(0o1777)).unwrap();
    let p = prefix.to_string_lossy().into_owned();
    fs::create_dir(prefix.join("bob")).unwrap();
    chown(&prefix.join("bob"), &u);
    std::os::unix::fs::symlink(top.path(), prefix.join("eve")).unwrap();
    for (user, want) in [
        ("../../x", "USER (or LOGIN) is \"../../x\""),
        ("a/b", "USER (or LOGIN) is \"a/b\""),
        ("..", "USER (or LOGIN) is \"..\""),
        ("bob", "($HDF5_PARAPREFIX/$USER): it belongs to user id"),
        ("eve", "($HDF5_PARAPREFIX/$USER): it is a symbolic link to "),
    ] {
        let o = mpirun_timeout(
            2,
            SMALL,
            &[("HDF5_PARAPREFIX", &p), ("USER", user)],
            top.path(),
            Duration::from_secs(60),
        );
        table(&format!("root: USER={user}"), &o, &prefix);
        let msg = refused(&o, user);
        assert!(msg.contains(want), "USER={user}: {msg}");
        assert!(
            o.stdout.is_empty(),
            "USER={user}: refused before the report"
        );
        // nothing was made beside or above the prefix, nothing in the subdirectories
        assert_eq!(dir_entries(top.path()), vec!["scratch".to_string()]);
        assert_eq!(
            dir_entries(&prefix),
            vec!["bob".to_string(), "eve".to_string()]
        );
        assert!(dir_entries(&prefix.join("bob")).is_empty());
    }
}

/// The same job as the unprivileged user: `h5perf` run by `setpriv` under the
/// launcher, from `cwd`, with `env`.
fn run_as(u: &Unpriv, bin: &Path, args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Outcome {
    let mut argv: Vec<String> = launcher();
    argv.extend(["-n".into(), "2".into(), bin.to_string_lossy().into_owned()]);
    argv.extend(args.iter().map(|s| s.to_string()));
    run_session(&as_user(u, &argv), env, cwd, Duration::from_secs(60))
}

/// As an unprivileged user in a sticky world-writable directory owned by root: a
/// normal run works and leaves nothing (and its `$HDF5_PARAPREFIX/$USER` directory is
/// its own); a symbolic link that root planted there under each API's data file name,
/// pointing at a file of the user's, is refused and the file untouched; a file of
/// root's that the user may write (mode 0666) is refused too; a `$USER` directory made
/// by root is refused.
#[test]
fn unprivileged_user_in_a_sticky_directory() {
    let u = unpriv_user();
    let bindir = scratch_dir();
    let bin = public_h5perf(bindir.path());
    let dir = sticky_dir();
    let d = dir.path().to_string_lossy().into_owned();

    // a normal run: the user's own subdirectory, nothing left
    let o = run_as(
        &u,
        &bin,
        SMALL,
        &[("HDF5_PARAPREFIX", &d), ("USER", &u.name)],
        dir.path(),
    );
    table("user: normal run, HDF5_PARAPREFIX/$USER", &o, dir.path());
    assert!(o.success(), "{}", o.describe());
    let sub = dir.path().join(&u.name);
    assert_eq!(fs::symlink_metadata(&sub).unwrap().uid(), u.uid);
    assert!(dir_entries(&sub).is_empty(), "{:?}", dir_entries(&sub));
    fs::remove_dir(&sub).unwrap();

    // the user's own file, a link to it planted by root (the directory's owner)
    let home = scratch_dir();
    fs::set_permissions(home.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let v = victim(home.path());
    chown(&v, &u);
    for (api, suffix) in APIS {
        let name = format!("#pio_tmp_1.{suffix}");
        let link = dir.path().join(&name);
        std::os::unix::fs::symlink(&v, &link).unwrap();
        let mut args = vec!["-A", api];
        args.extend_from_slice(SMALL);
        let o = run_as(&u, &bin, &args, &[], dir.path());
        table(&format!("user: symlink {name} -> own file"), &o, dir.path());
        let msg = refused(&o, api);
        assert!(
            msg.contains(&format!(
                "refusing the data file {name}: it is a symbolic link"
            )),
            "{msg}"
        );
        assert_untouched(&v, api);
        fs::remove_file(&link).unwrap();
    }

    // root's file, writable by everyone
    let f = dir.path().join("#pio_tmp_1.posix");
    fs::write(&f, b"secret bytes of someone else\n").unwrap();
    fs::set_permissions(&f, fs::Permissions::from_mode(0o666)).unwrap();
    let mut args = vec!["-A", "posix"];
    args.extend_from_slice(SMALL);
    let o = run_as(&u, &bin, &args, &[], dir.path());
    table("user: root's file, mode 0666", &o, dir.path());
    let msg = refused(&o, "root's file");
    assert!(msg.contains("it belongs to user id 0"), "{msg}");
    assert_untouched(&f, "root's file");
    fs::remove_file(&f).unwrap();

    // a $USER directory root made
    fs::create_dir(&sub).unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o777)).unwrap();
    let o = run_as(
        &u,
        &bin,
        SMALL,
        &[("HDF5_PARAPREFIX", &d), ("USER", &u.name)],
        dir.path(),
    );
    table("user: $USER directory of root's", &o, dir.path());
    let msg = refused(&o, "root's $USER directory");
    assert!(
        msg.contains("($HDF5_PARAPREFIX/$USER): it belongs to user id 0"),
        "{msg}"
    );
    assert!(dir_entries(&sub).is_empty());
}

/// A data file changed by another process between the write and the read phase
/// (tests/phase_shim.c), for each API: replaced by a copy of itself just before the
/// read open, cut to half while the read phase reads it (HDF5 hands back zeros for
/// the missing bytes: before issue 12 that run reported success), and cut to half when
/// the write phase closes it (one process). Each is an error naming the file; the
/// changed file is this user's and is removed.
#[test]
fn a_file_changed_between_the_phases_is_an_error() {
    let build = scratch_dir();
    let shim = build_shim(build.path(), "phase_shim");
    for (api, suffix) in APIS {
        let name = format!("#pio_tmp_1.{suffix}");
        for (what, at, np, want) in [
            (
                "replace",
                "open",
                2,
                "was replaced between the write and the read phase",
            ),
            ("truncate", "read", 2, ""),
            ("truncate", "close", 1, "after the write phase, which wrote"),
        ] {
            let dir = scratch_dir();
            let env = [
                ("LD_PRELOAD", shim.as_str()),
                ("H5PERF_TEST_PHASE", what),
                ("H5PERF_TEST_PHASE_AT", at),
            ];
            let args = [
                "-A", api, "-e", "1M", "-x", "64K", "-X", "64K", "-B", "64K", "-p", "2",
            ];
            // one process: "-p 2" left out
            let args = if np == 1 { &args[..10] } else { &args[..] };
            let o = mpirun_timeout(np, args, &env, dir.path(), Duration::from_secs(60));
            table(
                &format!(
                    "root: {what} {name} at the {}",
                    if at == "close" {
                        "write phase's close (1 process)"
                    } else if at == "open" {
                        "read open"
                    } else {
                        "read phase's first read"
                    }
                ),
                &o,
                dir.path(),
            );
            let msg = refused(&o, &format!("{api} {what} at {at}"));
            // cut while being read: a POSIX or MPI-IO rank that reads past the new end
            // fails; if every rank had read its part before the cut, the check after
            // the read phase finds it (both happen, depending on the ranks' timing)
            let wants: &[&str] = match (what, at, api) {
                ("truncate", "read", "posix") => &[
                    "pread(#pio_tmp_1.posix) failed: unexpected end of file",
                    "changed size between the write and the read phase: after the read phase",
                ],
                ("truncate", "read", "mpiio") => &[
                    "MPI_File_read_at failed",
                    "changed size between the write and the read phase: after the read phase",
                ],
                ("truncate", "read", _) => &["changed size between the write and the read phase"],
                _ => &[want],
            };
            assert!(
                msg.contains(&name) || msg.contains("MPI_File_read_at"),
                "{api} {what} at {at}: {msg}"
            );
            assert!(
                wants.iter().any(|w| msg.contains(w)),
                "{api} {what} at {at}: {msg:?} has none of {wants:?}"
            );
            assert!(
                pio_tmp_files(dir.path()).is_empty(),
                "{api} {what} at {at}: {:?} left",
                dir_entries(dir.path())
            );
        }
    }
}
