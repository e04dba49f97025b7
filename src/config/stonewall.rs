//! `--stonewall=SECONDS` and `--wear-out`, pure core: time-limited phases (issue 28).

use super::values::ValueError;

/// Largest accepted deadline, seconds (one week): a longer phase is a mistake.
pub const MAX_STONEWALL_SECONDS: u64 = 7 * 24 * 3600;

/// The time limit of each write and read phase, as asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StonewallOptions {
    /// `--stonewall=SECONDS`: the deadline after each phase's start, in milliseconds;
    /// `None`: phases move their whole volume.
    pub millis: Option<u64>,
    /// `--wear-out`: after the deadline every rank goes on until it has made as many
    /// transfers of each dataset as the rank that made the most (IOR's
    /// `stoneWallingWearOut`).
    pub wear_out: bool,
}

impl StonewallOptions {
    /// The deadline in seconds after each phase's start, if given.
    pub fn seconds(&self) -> Option<f64> {
        self.millis.map(|m| m as f64 / 1000.0)
    }

    /// `--stonewall`: parse `SECONDS` (`2`, `0.5`, `300`; at most three decimals, more
    /// than 0, at most [`MAX_STONEWALL_SECONDS`]) into milliseconds.
    ///
    /// # Errors
    /// The reason (`not a number of seconds`, `must be more than 0`, …).
    pub fn set_seconds(&mut self, text: &str) -> Result<(), ValueError> {
        let t = text.trim();
        let t = t.strip_suffix('s').unwrap_or(t);
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !digits(int) || !digits(frac) || (t.contains('.') && frac.is_empty()) {
            return Err(ValueError::from(
                "not a number of seconds (e.g. 300 or 0.5)".to_string(),
            ));
        }
        if frac.len() > 3 {
            return Err(ValueError::from("at most three decimals".to_string()));
        }
        let whole: u64 = match int.parse() {
            Ok(n) if n <= MAX_STONEWALL_SECONDS => n,
            _ => {
                return Err(ValueError::from(format!(
                    "too large (at most {MAX_STONEWALL_SECONDS} seconds)"
                )))
            }
        };
        let frac: u64 = format!("{frac:0<3}").parse().unwrap_or(0);
        let millis = whole * 1000 + frac;
        if millis == 0 || millis > MAX_STONEWALL_SECONDS * 1000 {
            return Err(ValueError::from(format!(
                "must be more than 0 and at most {MAX_STONEWALL_SECONDS} seconds"
            )));
        }
        self.millis = Some(millis);
        Ok(())
    }

    /// The deadline as the report and the results files write it: `2`, `0.5`, `1.25`.
    pub fn seconds_text(&self) -> Option<String> {
        self.millis.map(|m| {
            let (s, ms) = (m / 1000, m % 1000);
            if ms == 0 {
                s.to_string()
            } else {
                format!("{s}.{ms:03}").trim_end_matches('0').to_string()
            }
        })
    }

    /// The parameter-block lines (without `rank R: `), only when `--stonewall` is given.
    pub fn report_lines(&self) -> Vec<String> {
        let Some(s) = self.seconds_text() else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "Stonewall={s} s (each rank starts no transfer later than {s} s after its phase's start)"
        )];
        if self.wear_out {
            lines.push(
                "Wear-out=on (after the deadline every rank makes as many transfers as the rank that made the most)"
                    .to_string(),
            );
        }
        lines
    }

    /// The results-file fields (name, value), only when `--stonewall` is given:
    /// `stonewall_s` and `wear_out`.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        match self.seconds_text() {
            Some(s) => vec![
                ("stonewall_s", s),
                (
                    "wear_out",
                    if self.wear_out { "on" } else { "off" }.to_string(),
                ),
            ],
            None => Vec::new(),
        }
    }

    /// The problem of this combination, if any: `--wear-out` without `--stonewall`.
    pub fn problem(&self) -> Option<String> {
        (self.wear_out && self.millis.is_none())
            .then(|| "--wear-out needs --stonewall=SECONDS".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_parse_and_show() {
        for (t, ms, shown) in [
            ("2", 2000, "2"),
            ("0.5", 500, "0.5"),
            ("1.25", 1250, "1.25"),
            ("300s", 300_000, "300"),
            ("0.001", 1, "0.001"),
        ] {
            let mut o = StonewallOptions::default();
            o.set_seconds(t).unwrap();
            assert_eq!(o.millis, Some(ms), "{t}");
            assert_eq!(o.seconds_text().as_deref(), Some(shown), "{t}");
        }
        // the results files write the seconds as a number (the f64's shortest form):
        // the same text for every value with at most three decimals
        for ms in (1..20_000).chain([604_799_999, 604_800_000]) {
            let o = StonewallOptions {
                millis: Some(ms),
                wear_out: false,
            };
            assert_eq!(
                format!("{}", ms as f64 / 1000.0),
                o.seconds_text().unwrap(),
                "{ms} ms"
            );
        }
        for t in ["", "0", "0.000", "-1", "1.", "x", "1.0001", "604801", "1e3"] {
            let mut o = StonewallOptions::default();
            assert!(o.set_seconds(t).is_err(), "{t}");
        }
    }

    #[test]
    fn lines_fields_and_problem_only_when_given() {
        let mut o = StonewallOptions::default();
        assert!(o.report_lines().is_empty() && o.fields().is_empty());
        assert_eq!(o.problem(), None);
        o.wear_out = true;
        assert!(o.problem().unwrap().contains("--stonewall"));
        o.set_seconds("2").unwrap();
        assert_eq!(o.problem(), None);
        assert_eq!(o.report_lines().len(), 2);
        assert!(o.report_lines()[0].starts_with("Stonewall=2 s"));
        assert_eq!(
            o.fields(),
            vec![
                ("stonewall_s", "2".to_string()),
                ("wear_out", "on".to_string())
            ]
        );
    }
}
