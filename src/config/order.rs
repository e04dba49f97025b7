//! `--random[=PHASES]` (issue 32): the transfers of each dataset in a seeded random order
//! in the write phase, the read phase or both (IOR `-z`, fio `rw=randwrite`/`randread`).
//! The seed is the run's seed ([`crate::config::Params::seed`]: `--seed`, else a new one
//! per run, as for `--payload`).

use super::values::ValueError;

/// Which phases make each dataset's transfers in a seeded random order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomOrder {
    /// The write phase.
    pub write: bool,
    /// The read phase.
    pub read: bool,
}

impl RandomOrder {
    /// Whether any phase is in random order.
    pub fn on(&self) -> bool {
        self.write || self.read
    }

    /// The phases as given back: `write`, `read`, `write,read` (`off` when none).
    pub fn name(&self) -> &'static str {
        match (self.write, self.read) {
            (true, true) => "write,read",
            (true, false) => "write",
            (false, true) => "read",
            (false, false) => "off",
        }
    }

    /// The results-file field: `random` = the phases.
    pub const FIELD: &'static str = "random";

    /// The parameter-block line (without `rank 0: `) for the run's `seed`, `given` by
    /// `--seed` or new; `None` when off.
    pub fn report_line(&self, seed: u64, given: bool) -> Option<String> {
        if !self.on() {
            return None;
        }
        let how = if given {
            "given"
        } else {
            "new for this run; --seed repeats it"
        };
        Some(format!(
            "Random order={} (seed {seed}, {how}; each rank makes each dataset's transfers \
             once each, in a seeded permutation)",
            self.name()
        ))
    }

    /// Why these phases cannot run (none when they can): a phase the run does not have
    /// (`-w`: no read phase; `--read-only`: no write phase), or `--stonewall` (not yet).
    pub fn problems(&self, write_only: bool, read_only: bool, stonewall: bool) -> Vec<String> {
        let mut out = Vec::new();
        if self.read && !self.write && write_only {
            out.push(
                "--random=read orders the read phase, and -w/--write-only has none".to_string(),
            );
        }
        if self.write && !self.read && read_only {
            out.push("--random=write orders the write phase, and --read-only has none".into());
        }
        if self.on() && stonewall {
            out.push(
                "--random cannot be combined with --stonewall yet: the read phase would read \
                 the first transfers of its own order, not those the write phase made"
                    .to_string(),
            );
        }
        out
    }
}

/// The value of `--random[=PHASES]`: none (both phases), or `write`, `read`, or both
/// separated by a comma, in any order and case.
///
/// Errors: any other word, or an empty list.
pub fn parse_phases(v: Option<&str>) -> Result<RandomOrder, ValueError> {
    let Some(v) = v else {
        return Ok(RandomOrder {
            write: true,
            read: true,
        });
    };
    let mut o = RandomOrder::default();
    for w in v.split(',').map(str::trim) {
        match w.to_ascii_lowercase().as_str() {
            "write" => o.write = true,
            "read" => o.read = true,
            _ => {
                return Err(ValueError::from(format!(
                    "expected write, read or write,read, not '{w}'"
                )))
            }
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_parse_and_show() {
        let both = parse_phases(None).unwrap();
        assert_eq!(both.name(), "write,read");
        assert_eq!(parse_phases(Some("read")).unwrap().name(), "read");
        assert_eq!(parse_phases(Some("Write")).unwrap().name(), "write");
        assert_eq!(parse_phases(Some("read,write")).unwrap(), both);
        for bad in ["", "rw", "write,", "random"] {
            assert!(parse_phases(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            both.report_line(9, true).unwrap(),
            "Random order=write,read (seed 9, given; each rank makes each dataset's \
             transfers once each, in a seeded permutation)"
        );
        assert!(RandomOrder::default().report_line(1, false).is_none());
    }

    #[test]
    fn phases_the_run_lacks_are_refused() {
        let read = parse_phases(Some("read")).unwrap();
        assert!(read.problems(true, false, false)[0].contains("-w/--write-only has none"));
        assert!(read.problems(false, true, false).is_empty());
        let write = parse_phases(Some("write")).unwrap();
        assert!(write.problems(false, true, false)[0].contains("--read-only has none"));
        assert!(write.problems(false, false, true)[0].contains("--stonewall"));
    }
}
