//! The acceptance options, pure core: `--expect`, `--baseline`, `--tolerance`, `--within`,
//! `--html` and `--from`.

use std::ffi::{OsStr, OsString};
use std::fmt;

use super::criteria::Criterion;
use super::storage::{Reorder, StorageOptions};
use super::values::ValueError;
use crate::terms::{Api, Phase};

/// A percentage with up to three decimals (`--tolerance`), kept exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percent {
    /// Thousandths of a percent.
    thousandths: u32,
}

impl Percent {
    /// The default tolerance of `--baseline`: 10 %.
    pub const DEFAULT_TOLERANCE: Percent = Percent {
        thousandths: 10_000,
    };

    /// Parse `10`, `2.5`, `0.125` (optionally followed by `%`): at least 0, below 100,
    /// at most three decimals.
    ///
    /// # Errors
    /// The reason (`not a number of percent`, `must be below 100`, …).
    pub fn parse(text: &str) -> Result<Percent, ValueError> {
        let t = text.trim();
        let t = t.strip_suffix('%').unwrap_or(t).trim_end();
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !digits(int) || !digits(frac) || (t.contains('.') && frac.is_empty()) {
            return Err(ValueError::from("not a number of percent (e.g. 10 or 2.5)"));
        }
        if frac.len() > 3 {
            return Err(ValueError::from("at most three decimals"));
        }
        let whole: u32 = match int.parse() {
            Ok(n) if n < 100 => n,
            _ => return Err(ValueError::from("must be below 100 (percent)")),
        };
        let frac: u32 = format!("{frac:0<3}").parse().unwrap_or(0);
        Ok(Percent {
            thousandths: whole * 1000 + frac,
        })
    }

    /// The percentage as a fraction: 10 % is 0.1.
    pub fn fraction(self) -> f64 {
        f64::from(self.thousandths) / 100_000.0
    }
}

impl fmt::Display for Percent {
    /// `10%`, `2.5%`, `0.125%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, t) = (self.thousandths / 1000, self.thousandths % 1000);
        if t == 0 {
            write!(f, "{w}%")
        } else {
            let frac = format!("{t:03}");
            write!(f, "{w}.{}%", frac.trim_end_matches('0'))
        }
    }
}

/// What the acceptance options asked for (default: nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Acceptance {
    /// `--expect`, in the order given.
    pub expect: Vec<Criterion>,
    /// `--baseline FILE`: the CSV or JSON results of an earlier run.
    pub baseline: Option<OsString>,
    /// `--tolerance PCT` (only with `--baseline`); `None` = [`Percent::DEFAULT_TOLERANCE`].
    pub tolerance: Option<Percent>,
    /// `--within PCT` (only with `--baseline`): the two-sided comparison, every mean
    /// within PCT of the baseline's, and the run as a whole (replaces `--tolerance`'s rule).
    pub within: Option<Percent>,
    /// `--stable`: turn on the cache bypasses the run can have ([`stable_profile`]),
    /// then refuse criteria on page-cache figures ([`cache_figure`]).
    pub stable: bool,
    /// `--html FILE`: the HTML page.
    pub html: Option<OsString>,
    /// `--from FILE` (repeatable): results files to make the page or verdict from,
    /// instead of running a benchmark.
    pub from: Vec<OsString>,
}

impl Acceptance {
    /// The most `--expect` criteria one run takes (each is a row of the verdict).
    pub const MAX_CRITERIA: usize = 256;

    /// `--expect`: add a criterion.
    ///
    /// # Errors
    /// The reason of [`Criterion::parse`]; more than [`Acceptance::MAX_CRITERIA`].
    pub fn add_expect(&mut self, text: &str) -> Result<(), ValueError> {
        if self.expect.len() >= Self::MAX_CRITERIA {
            return Err(ValueError::from(format!(
                "more than {} criteria",
                Self::MAX_CRITERIA
            )));
        }
        self.expect.push(Criterion::parse(text)?);
        Ok(())
    }

    /// `--baseline`: the results file of an earlier run.
    ///
    /// # Errors
    /// An empty name.
    pub fn set_baseline(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.baseline = Some(non_empty(name)?);
        Ok(())
    }

    /// `--tolerance`: the percentage by which a throughput may be worse than the
    /// baseline's before it is a regression.
    ///
    /// # Errors
    /// The reason of [`Percent::parse`].
    pub fn set_tolerance(&mut self, text: &str) -> Result<(), ValueError> {
        self.tolerance = Some(Percent::parse(text)?);
        Ok(())
    }

    /// `--within`: the band, in percent of the baseline's mean, of the two-sided comparison.
    ///
    /// # Errors
    /// The reason of [`Percent::parse`], or 0 % (no measurement can be shown within it).
    pub fn set_within(&mut self, text: &str) -> Result<(), ValueError> {
        let p = Percent::parse(text)?;
        if p.thousandths == 0 {
            return Err(ValueError::from(
                "must be greater than 0 (no noisy measurement is ever shown within 0%)",
            ));
        }
        self.within = Some(p);
        Ok(())
    }

    /// `--html`: the page's file.
    ///
    /// # Errors
    /// An empty name.
    pub fn set_html(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.html = Some(non_empty(name)?);
        Ok(())
    }

    /// `--from`: add a results file.
    ///
    /// # Errors
    /// An empty name.
    pub fn add_from(&mut self, name: &OsStr) -> Result<(), ValueError> {
        self.from.push(non_empty(name)?);
        Ok(())
    }

    /// The tolerance in effect.
    pub fn tolerance(&self) -> Percent {
        self.tolerance.unwrap_or(Percent::DEFAULT_TOLERANCE)
    }

    /// Whether a run has anything to check or draw (`--expect`, `--baseline` or
    /// `--html`): it then keeps every rank's times and the run's metadata.
    pub fn any(&self) -> bool {
        !self.expect.is_empty() || self.baseline.is_some() || self.html.is_some()
    }
}

/// The storage options that decide whether a phase measures the storage or the page
/// cache (as given, or as a results file records them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bypass {
    /// `--fsync`: each file written is synced before its close.
    pub fsync: bool,
    /// `--direct`: POSIX data files opened with `O_DIRECT`.
    pub direct: bool,
    /// `--drop-caches`: the page cache dropped before each read phase.
    pub drop_caches: bool,
    /// `--reorder` with every read step's ranks reading parts written on other hosts
    /// ([`super::StorageOptions::reads_cross_nodes`]).
    pub reorder_across_nodes: bool,
}

/// Why the measurement of `api` and `phase` is a page-cache figure under `b`, or `None`
/// when it is a storage figure:
///
/// * Raw Data Write: only POSIX with `--direct` (`O_DIRECT` writes reach the device); the
///   sync of `--fsync` is outside its timer, so it stays a page-cache figure;
/// * Write, Write Open-Close: with `--fsync` (the sync is inside both) or POSIX with
///   `--direct`;
/// * reads: with `--drop-caches`, with `--reorder` when every rank reads a part written
///   on another host (its node's page cache holds none of it), or POSIX with `--direct`.
pub fn cache_figure(api: Api, phase: Phase, b: Bypass) -> Option<String> {
    let direct = b.direct && api == Api::Posix;
    let (storage, why) = match phase {
        Phase::RawWrite => (
            direct,
            "Raw Data Write is a page-cache figure (the sync of --fsync is outside its \
             timer); only POSIX with --direct writes to the storage inside it",
        ),
        Phase::Write | Phase::WriteOpenClose => (
            b.fsync || direct,
            "writes are page-cache figures without --fsync (or --direct, POSIX only)",
        ),
        _ => (
            b.drop_caches || b.reorder_across_nodes || direct,
            "reads are page-cache figures without --drop-caches, --reorder across nodes \
             (or --direct, POSIX only)",
        ),
    };
    (!storage).then(|| why.to_string())
}

/// What `--stable` made of a run ([`stable_profile`]): the storage options it turned on
/// and, when nothing could keep the page cache out of the reads, why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StableProfile {
    /// The options `--stable` turned on, in this order when several: `--fsync`,
    /// `--drop-caches`, `--reorder` (empty when the options given covered everything).
    pub turned_on: Vec<&'static str>,
    /// Why the reads stay page-cache figures (`None` when covered or without reads).
    pub reads_uncovered: Option<String>,
}

impl StableProfile {
    /// The list of [`StableProfile::turned_on`] as the results record it:
    /// `fsync;drop_caches`, or `none`.
    pub fn turned_on_field(&self) -> String {
        if self.turned_on.is_empty() {
            return "none".to_string();
        }
        let names: Vec<String> = self
            .turned_on
            .iter()
            .map(|o| o.trim_start_matches("--").replace('-', "_"))
            .collect();
        names.join(";")
    }

    /// The parameter-block line: `Stable storage profile=on (--stable turned on --fsync,
    /// --drop-caches)`, or `(... turned nothing on: ...)`.
    pub fn report_line(&self) -> String {
        let what = if self.turned_on.is_empty() {
            "--stable turned nothing on: the options given bypass the cache".to_string()
        } else {
            format!("--stable turned on {}", self.turned_on.join(", "))
        };
        match &self.reads_uncovered {
            None => format!("Stable storage profile=on ({what})"),
            Some(_) => {
                format!("Stable storage profile=on ({what}; the reads stay page-cache figures)")
            }
        }
    }
}

/// What the machine allows `--stable` for the reads, found before any I/O on every node
/// (the same on every rank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StableFacts {
    /// `--drop-caches` can work (every node's first rank may open
    /// `/proc/sys/vm/drop_caches` for writing), or why not.
    pub drop_caches: Result<(), String>,
    /// Every read step's ranks read parts written on other hosts with the `--reorder`
    /// given ([`StorageOptions::reads_cross_nodes`]; false without `--reorder`).
    pub reorder_given_crosses: bool,
    /// The same with `--reorder` (by node) when it was not given.
    pub reorder_by_node_crosses: bool,
}

/// `--stable`'s profile: turn on, in `s`, what the run needs to measure the storage
/// where it can, and say what it turned on and what it could not cover:
///
/// * writes (a run that is not `--read-only`): `--fsync`, unless `--direct` (POSIX:
///   every write reaches the device) or `--fsync` was given. Raw Data Write stays a
///   page-cache figure (the sync is outside its timer): criteria on it are refused;
/// * reads (a run that is not `-w`), unless `--drop-caches`, POSIX `--direct` or a
///   `--reorder` that crosses nodes was given: `--drop-caches` where it can work (root
///   on every node), else `--reorder` (by node) when it makes every read step's ranks
///   read another host's part, else nothing ([`StableProfile::reads_uncovered`] says
///   why): criteria on reads, and a file that fits in the page cache, are then refused.
///
/// `posix_only`: POSIX is the only API (`--direct` covers nothing else).
pub fn stable_profile(
    s: &mut StorageOptions,
    (posix_only, write_only): (bool, bool),
    facts: &StableFacts,
) -> StableProfile {
    let mut out = StableProfile::default();
    let direct = s.direct && posix_only;
    if !s.read_only && !s.fsync && !direct {
        s.fsync = true;
        out.turned_on.push("--fsync");
    }
    let covered = s.drop_caches || direct || facts.reorder_given_crosses;
    if write_only || covered {
        return out;
    }
    match &facts.drop_caches {
        Ok(()) => {
            s.drop_caches = true;
            out.turned_on.push("--drop-caches");
        }
        Err(_) if s.reorder.is_none() && facts.reorder_by_node_crosses => {
            s.reorder = Some(Reorder::ByNode);
            out.turned_on.push("--reorder");
        }
        Err(why) => {
            let reorder = if s.reorder.is_some() {
                "the --reorder given leaves some rank reading a part written on its own host"
            } else {
                "--reorder cannot help: some read step runs on one node, whose ranks share \
                 its page cache"
            };
            out.reads_uncovered = Some(format!(
                "--stable cannot keep the page cache out of the reads: --drop-caches cannot \
                 work ({why}) and {reorder}"
            ));
        }
    }
    out
}

/// `name` unless empty.
fn non_empty(name: &OsStr) -> Result<OsString, ValueError> {
    if name.is_empty() {
        Err(ValueError::from("empty file name"))
    } else {
        Ok(name.to_os_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        for (t, th, shown) in [
            ("10", 10_000, "10%"),
            ("2.5", 2_500, "2.5%"),
            ("0.125", 125, "0.125%"),
            ("0", 0, "0%"),
            (" 99.999 ", 99_999, "99.999%"),
            ("15%", 15_000, "15%"),
            ("7.50", 7_500, "7.5%"),
        ] {
            let p = Percent::parse(t).unwrap();
            assert_eq!(p.thousandths, th, "{t}");
            assert_eq!(p.to_string(), shown);
        }
        assert_eq!(Percent::parse("10").unwrap().fraction(), 0.1);
        assert_eq!(Percent::DEFAULT_TOLERANCE.to_string(), "10%");
        for (t, why) in [
            ("100", "below 100"),
            ("250", "below 100"),
            ("-1", "not a number"),
            ("", "not a number"),
            ("1.", "not a number"),
            (".5", "not a number"),
            ("1e2", "not a number"),
            ("1.2345", "three decimals"),
            ("ten", "not a number"),
        ] {
            let e = Percent::parse(t).unwrap_err().reason();
            assert!(e.contains(why), "{t}: {e}");
        }
    }

    #[test]
    fn cache_and_storage_figures() {
        let none = Bypass::default();
        let fsync = Bypass {
            fsync: true,
            ..none
        };
        let direct = Bypass {
            direct: true,
            ..none
        };
        let drop = Bypass {
            drop_caches: true,
            ..none
        };
        let across = Bypass {
            reorder_across_nodes: true,
            ..none
        };
        for p in [Phase::RawRead, Phase::Read, Phase::ReadOpenClose] {
            assert!(cache_figure(Api::Mpiio, p, across).is_none(), "{p:?}");
        }
        assert!(cache_figure(Api::Mpiio, Phase::Write, across).is_some());
        for p in Phase::ALL {
            assert!(cache_figure(Api::Mpiio, p, none).is_some(), "{p:?}");
            assert!(cache_figure(Api::Posix, p, direct).is_none(), "{p:?}");
        }
        assert!(cache_figure(Api::Phdf5, Phase::RawWrite, fsync)
            .unwrap()
            .contains("outside its timer"));
        assert!(cache_figure(Api::Phdf5, Phase::Write, fsync).is_none());
        assert!(cache_figure(Api::Mpiio, Phase::WriteOpenClose, fsync).is_none());
        assert!(cache_figure(Api::Mpiio, Phase::Read, fsync).is_some());
        assert!(cache_figure(Api::Mpiio, Phase::Read, drop).is_none());
        assert!(cache_figure(Api::Mpiio, Phase::Write, direct).is_some());
    }

    #[test]
    fn stable_turns_on_what_the_run_can_have() {
        let facts = |drop: bool, given: bool, by_node: bool| StableFacts {
            drop_caches: if drop {
                Ok(())
            } else {
                Err("Permission denied".into())
            },
            reorder_given_crosses: given,
            reorder_by_node_crosses: by_node,
        };
        let run = |mut s: StorageOptions, flags, f: &StableFacts| {
            let p = stable_profile(&mut s, flags, f);
            (s, p)
        };
        let none = StorageOptions::default();
        // root: writes synced, caches dropped
        let (s, p) = run(none, (false, false), &facts(true, false, true));
        assert!(s.fsync && s.drop_caches && s.reorder.is_none());
        assert_eq!(p.turned_on, ["--fsync", "--drop-caches"]);
        assert_eq!(p.turned_on_field(), "fsync;drop_caches");
        assert_eq!(p.reads_uncovered, None);
        assert_eq!(
            p.report_line(),
            "Stable storage profile=on (--stable turned on --fsync, --drop-caches)"
        );
        // not root, over nodes: the reads of another node's part
        let (s, p) = run(none, (false, false), &facts(false, false, true));
        assert_eq!((s.reorder, s.drop_caches), (Some(Reorder::ByNode), false));
        assert_eq!(p.turned_on, ["--fsync", "--reorder"]);
        // not root, one node: nothing helps the reads, and the reason says why
        let (s, p) = run(none, (false, false), &facts(false, false, false));
        assert_eq!(
            s,
            StorageOptions {
                fsync: true,
                ..none
            }
        );
        let why = p.reads_uncovered.clone().unwrap();
        assert!(
            why.contains("(Permission denied)") && why.contains("one node"),
            "{why}"
        );
        assert!(p
            .report_line()
            .ends_with("; the reads stay page-cache figures)"));
        // --direct (POSIX) covers both; -w needs no read bypass; --read-only no fsync
        let direct = StorageOptions {
            direct: true,
            ..none
        };
        let (s, p) = run(direct, (true, false), &facts(true, false, false));
        assert_eq!((s, p.turned_on_field()), (direct, "none".to_string()));
        assert!(p.report_line().contains("turned nothing on"));
        let (s, p) = run(none, (false, true), &facts(true, false, true));
        assert_eq!(
            (s.fsync, s.drop_caches, p.turned_on.len()),
            (true, false, 1)
        );
        let ro = StorageOptions {
            read_only: true,
            ..none
        };
        let (s, p) = run(ro, (false, false), &facts(true, false, false));
        assert_eq!((s.fsync, s.drop_caches), (false, true));
        assert_eq!(p.turned_on, ["--drop-caches"]);
        // the options given are kept: --fsync and a --reorder across nodes
        let given = StorageOptions {
            fsync: true,
            reorder: Some(Reorder::Shift(2)),
            ..none
        };
        let (s, p) = run(given, (false, false), &facts(true, true, true));
        assert_eq!((s, p.turned_on.len()), (given, 0));
        // a --reorder given that stays on one node is not replaced
        let (s, p) = run(given, (false, false), &facts(false, false, true));
        assert_eq!(s.reorder, Some(Reorder::Shift(2)));
        assert!(p.reads_uncovered.unwrap().contains("the --reorder given"));
    }

    #[test]
    fn setters() {
        let mut a = Acceptance::default();
        assert!(!a.any());
        assert_eq!(a.tolerance(), Percent::DEFAULT_TOLERANCE);
        a.add_expect("posix.write>=1MiB/s").unwrap();
        assert!(a.add_expect("posix.wr>=1MiB/s").is_err());
        assert_eq!(a.expect.len(), 1);
        assert!(a.any());
        let os = OsStr::new;
        assert_eq!(a.set_html(os("")).unwrap_err().reason(), "empty file name");
        assert!(a.set_baseline(os("")).is_err() && a.add_from(os("")).is_err());
        a.set_tolerance("5").unwrap();
        assert!(a
            .set_within("0")
            .unwrap_err()
            .reason()
            .contains("greater than 0"));
        a.set_within("7.5").unwrap();
        assert_eq!(a.within.unwrap().to_string(), "7.5%");
        assert_eq!(a.tolerance().to_string(), "5%");
        a.add_from(os("a.csv")).unwrap();
        a.add_from(os("r.csv")).unwrap();
        assert_eq!(a.from, ["a.csv", "r.csv"]);
    }
}
