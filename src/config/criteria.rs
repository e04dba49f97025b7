//! Contract criteria (`--expect CRITERION`): the grammar, and which measurements a
//! criterion selects. Pure core: no I/O, no MPI.
//!
//! ```text
//! CRITERION  = API "." PHASE [ "." STATISTIC ] COMPARISON BOUND UNIT [ "@" SELECTOR { "," SELECTOR } ]
//! API        = posix | mpiio | phdf5                        (any case, as with -A)
//! PHASE      = raw_write | write | write_open_close | raw_read | read | read_open_close
//! STATISTIC  = max | mean | min | cv                        (default mean; avg = mean)
//! COMPARISON = >= | > | <= | <
//! BOUND      = DIGITS [ "." DIGITS ]                        (decimal, greater than 0)
//! UNIT       = B/s | kB/s | GB/s | TB/s                      (10^3, 10^9, 10^12 bytes/s)
//!            | KiB/s | MiB/s | GiB/s | TiB/s                (2^10, 2^20, 2^30, 2^40 bytes/s)
//!            | %                                            (with cv only, which takes no other)
//! SELECTOR   = procs=N | xfer=SIZE                          (SIZE: bytes, K/M/G suffix as -x)
//! ```
//!
//! Units are case-sensitive; `MB/s` and `KB/s` are refused as ambiguous. A criterion
//! holds when every measurement it selects satisfies the comparison. `cv` is the
//! coefficient of variation over the iterations, in percent: the sample standard
//! deviation of the times `std_time_s` over their mean `avg_time_s`, × 100, the relative
//! spread of the "Average Throughput" (bytes / mean time); a spread bound:
//! `mpiio.write.cv<=10%`.

use super::values::ValueError;
use crate::terms::{Api, Phase};

/// Which of a phase's throughputs over the iterations a criterion bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistic {
    /// "Maximum Throughput": bytes / the smallest time (`max_mibps`).
    Max,
    /// "Average Throughput": bytes / the mean time (`avg_mibps`); the default.
    Mean,
    /// "Minimum Throughput": bytes / the largest time (`min_mibps`).
    Min,
    /// The coefficient of variation over the iterations, percent:
    /// `100 × std_time_s / avg_time_s` (a spread, not a throughput; bound in `%`).
    Cv,
}

impl Statistic {
    /// The word of the grammar: `max`, `mean`, `min`.
    pub fn name(self) -> &'static str {
        match self {
            Statistic::Max => "max",
            Statistic::Mean => "mean",
            Statistic::Min => "min",
            Statistic::Cv => "cv",
        }
    }
}

/// How the measured value must compare with the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// At least the bound (`>=`).
    AtLeast,
    /// Above the bound (`>`).
    Above,
    /// At most the bound (`<=`).
    AtMost,
    /// Below the bound (`<`).
    Below,
}

impl Comparison {
    /// The operator as written: `>=`, `>`, `<=`, `<`.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::AtLeast => ">=",
            Comparison::Above => ">",
            Comparison::AtMost => "<=",
            Comparison::Below => "<",
        }
    }

    /// Whether `measured` satisfies the comparison with `bound` (same unit).
    pub fn holds(self, measured: f64, bound: f64) -> bool {
        match self {
            Comparison::AtLeast => measured >= bound,
            Comparison::Above => measured > bound,
            Comparison::AtMost => measured <= bound,
            Comparison::Below => measured < bound,
        }
    }

    /// Whether a larger value is the better one (`>=`, `>`): the worst of several
    /// measurements is then the smallest.
    pub fn lower_bound(self) -> bool {
        matches!(self, Comparison::AtLeast | Comparison::Above)
    }
}

/// A throughput unit of a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes per second.
    Bps,
    /// 10^3 bytes per second.
    KBps,
    /// 10^9 bytes per second (the results files' `*_gbps`).
    GBps,
    /// 10^12 bytes per second.
    TBps,
    /// 2^10 bytes per second.
    KiBps,
    /// 2^20 bytes per second (the report's "MB/s", the results files' `*_mibps`).
    MiBps,
    /// 2^30 bytes per second.
    GiBps,
    /// 2^40 bytes per second.
    TiBps,
    /// Percent: the unit of a `cv` bound only (not in [`Unit::ALL`], not a throughput).
    Percent,
}

impl Unit {
    /// Every unit, as written.
    pub const ALL: [Unit; 8] = [
        Unit::Bps,
        Unit::KBps,
        Unit::GBps,
        Unit::TBps,
        Unit::KiBps,
        Unit::MiBps,
        Unit::GiBps,
        Unit::TiBps,
    ];

    /// The unit as written: `B/s`, `kB/s`, `GB/s`, … `MiB/s`.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bps => "B/s",
            Unit::KBps => "kB/s",
            Unit::GBps => "GB/s",
            Unit::TBps => "TB/s",
            Unit::KiBps => "KiB/s",
            Unit::MiBps => "MiB/s",
            Unit::GiBps => "GiB/s",
            Unit::TiBps => "TiB/s",
            Unit::Percent => "%",
        }
    }

    /// Bytes per second in one unit (1 for [`Unit::Percent`], which is not a throughput).
    pub fn bytes_per_second(self) -> f64 {
        match self {
            Unit::Bps => 1.0,
            Unit::KBps => 1e3,
            Unit::GBps => 1e9,
            Unit::TBps => 1e12,
            Unit::KiBps => 1024.0,
            Unit::MiBps => 1_048_576.0,
            Unit::GiBps => 1_073_741_824.0,
            Unit::TiBps => 1_099_511_627_776.0,
            Unit::Percent => 1.0,
        }
    }

    /// The unit written `text`, exactly.
    fn parse(text: &str) -> Result<Unit, ValueError> {
        if let Some(u) = Unit::ALL.iter().find(|u| u.name() == text) {
            return Ok(*u);
        }
        let list = "B/s, kB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s";
        Err(ValueError::from(match text {
            "" => format!("missing unit after the bound (units: {list})"),
            "MB/s" | "KB/s" => format!(
                "'{text}' is ambiguous (the report's MB/s are MiB/s, 2^20 bytes per second): \
                 write {} for 2^{} or {} for 10^{} bytes per second",
                if text == "MB/s" { "MiB/s" } else { "KiB/s" },
                if text == "MB/s" { 20 } else { 10 },
                if text == "MB/s" {
                    "GB/s with a fraction"
                } else {
                    "kB/s"
                },
                if text == "MB/s" { 9 } else { 3 },
            ),
            t if Unit::ALL.iter().any(|u| u.name().eq_ignore_ascii_case(t)) => format!(
                "unknown unit '{t}' (units are case-sensitive: b would be bits; units: {list})"
            ),
            t => format!("unknown unit '{t}' (units: {list})"),
        }))
    }
}

/// One `--expect` criterion, parsed and checked ([`Criterion::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Criterion {
    /// The text as given, blanks at both ends removed (shown in the verdict table).
    text: String,
    /// The API it bounds.
    api: Api,
    /// The phase it bounds.
    phase: Phase,
    /// Which throughput over the iterations.
    statistic: Statistic,
    /// How the measurement must compare with the bound.
    comparison: Comparison,
    /// The bound's number as written (a positive decimal).
    bound: String,
    /// The bound's unit.
    unit: Unit,
    /// `procs=N`: only measurements with N processes.
    procs: Option<u32>,
    /// `xfer=SIZE`: only measurements with this transfer size (bytes).
    xfer: Option<u64>,
}

/// The grammar in one line, for messages.
const SHAPE: &str = "API.PHASE[.max|.mean|.min]>=BOUND UNIT[@procs=N,xfer=SIZE], \
                     e.g. mpiio.write>=2GB/s, or API.PHASE.cv<=PCT%";

/// The longest criterion accepted (bytes, blanks at both ends included): the verdict's
/// table, the page and every message show the text whole, so it is bounded before any
/// I/O (issue 35: a criterion of 70,000 blanks broke the verdict after the whole run).
pub const MAX_CRITERION_BYTES: usize = 256;

impl Criterion {
    /// Parse one criterion (grammar in the module documentation).
    ///
    /// # Errors
    /// The reason, as one phrase (`unknown phase 'wirte' (expected raw_write, write, …)`),
    /// when `text` does not follow the grammar or is longer than [`MAX_CRITERION_BYTES`].
    pub fn parse(text: &str) -> Result<Criterion, ValueError> {
        if text.len() > MAX_CRITERION_BYTES {
            return Err(ValueError::from(format!(
                "criterion of {} bytes is too long (at most {MAX_CRITERION_BYTES}; expected {SHAPE})",
                text.len()
            )));
        }
        let text = text.trim();
        // a line end would split the verdict table, an escape sequence would drive the
        // terminal: a criterion is printed as given
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            return Err(ValueError::from(format!(
                "a criterion holds no control character (found {})",
                c.escape_default()
            )));
        }
        if text.is_empty() {
            return Err(ValueError::from(format!(
                "empty criterion (expected {SHAPE})"
            )));
        }
        let (head, selectors) = match text.split_once('@') {
            Some((h, s)) => (h.trim(), Some(s)),
            None => (text, None),
        };
        let Some(op_at) = head.find(['<', '>', '=']) else {
            if selectors.is_some_and(|s| s.contains(['<', '>'])) {
                return Err(ValueError::from(format!(
                    "the selectors (@...) come last, after the bound (expected {SHAPE})"
                )));
            }
            return Err(ValueError::from(format!(
                "no comparison (>=, >, <= or <) (expected {SHAPE})"
            )));
        };
        let (path, rest) = (head[..op_at].trim(), &head[op_at..]);
        let (comparison, rest) = if let Some(r) = rest.strip_prefix(">=") {
            (Comparison::AtLeast, r)
        } else if let Some(r) = rest.strip_prefix("<=") {
            (Comparison::AtMost, r)
        } else if let Some(r) = rest.strip_prefix('>') {
            (Comparison::Above, r)
        } else if let Some(r) = rest.strip_prefix('<') {
            (Comparison::Below, r)
        } else {
            return Err(ValueError::from(
                "'=' is not a comparison: write >= or <= (or > or <)",
            ));
        };
        let (api, phase, statistic) = parse_path(path)?;
        let (bound, unit) = parse_bound(rest.trim(), statistic == Statistic::Cv)?;
        let mut c = Criterion {
            text: text.to_string(),
            api,
            phase,
            statistic,
            comparison,
            bound,
            unit,
            procs: None,
            xfer: None,
        };
        if let Some(s) = selectors {
            c.parse_selectors(s)?;
        }
        Ok(c)
    }

    /// The `@` part: `procs=N`, `xfer=SIZE`, separated by commas.
    fn parse_selectors(&mut self, s: &str) -> Result<(), ValueError> {
        for sel in s.split(',') {
            let sel = sel.trim();
            let Some((key, value)) = sel.split_once('=') else {
                return Err(ValueError::from(format!(
                    "selector '{sel}' is not KEY=VALUE (selectors: procs=N, xfer=SIZE)"
                )));
            };
            let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
            match key.as_str() {
                "procs" | "nprocs" => {
                    if self.procs.is_some() {
                        return Err(ValueError::from("procs= is given twice"));
                    }
                    let n = positive_int(value, "procs=")?;
                    let n = u32::try_from(n).map_err(|_| format!("procs={value} is too large"))?;
                    self.procs = Some(n);
                }
                "xfer" | "xfer_size" => {
                    if self.xfer.is_some() {
                        return Err(ValueError::from("xfer= is given twice"));
                    }
                    self.xfer = Some(size(value)?);
                }
                _ => {
                    return Err(ValueError::from(format!(
                        "unknown selector '{key}' (selectors: procs=N, xfer=SIZE)"
                    )))
                }
            }
        }
        Ok(())
    }

    /// The text as given (blanks at both ends removed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The API the criterion bounds.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The phase the criterion bounds.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The statistic over the iterations.
    pub fn statistic(&self) -> Statistic {
        self.statistic
    }

    /// The comparison.
    pub fn comparison(&self) -> Comparison {
        self.comparison
    }

    /// The bound's unit.
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// The bound as written with its unit and comparison: `>= 2 GB/s`.
    pub fn bound_text(&self) -> String {
        format!(
            "{} {} {}",
            self.comparison.symbol(),
            self.bound,
            self.unit.name()
        )
    }

    /// Whether the criterion bounds a throughput (not a spread, `cv`): only those are
    /// drawn on the charts.
    pub fn is_throughput(&self) -> bool {
        self.statistic != Statistic::Cv
    }

    /// The bound in bytes per second (for `cv`: the bound in percent).
    pub fn bound_bytes_per_second(&self) -> f64 {
        // checked by parse_bound: a plain positive decimal
        self.bound.parse::<f64>().unwrap_or(f64::NAN) * self.unit.bytes_per_second()
    }

    /// The `procs=` selector, if given.
    pub fn procs(&self) -> Option<u32> {
        self.procs
    }

    /// The `xfer=` selector (bytes), if given.
    pub fn xfer(&self) -> Option<u64> {
        self.xfer
    }

    /// Whether the criterion applies to the measurement of `api` and `phase` with
    /// `nprocs` processes and transfer size `xfer_size` (bytes).
    pub fn selects(&self, nprocs: u32, xfer_size: u64, api: Api, phase: Phase) -> bool {
        api == self.api
            && phase == self.phase
            && self.procs.is_none_or(|n| n == nprocs)
            && self.xfer.is_none_or(|x| x == xfer_size)
    }

    /// Why the criterion selects nothing in a run of `apis` with the process counts
    /// `procs`, the transfer sizes `sizes` (bytes) and the phases `phases`, every
    /// combination of which is measured; `None` when it selects something.
    pub fn why_unmatched(
        &self,
        apis: &[Api],
        procs: &[u32],
        sizes: &[u64],
        phases: &[Phase],
    ) -> Option<String> {
        let list = |v: Vec<String>| v.join(", ");
        if !apis.contains(&self.api) {
            return Some(format!(
                "the API {} does not run (APIs: {})",
                self.api.name(),
                list(apis.iter().map(|a| a.name().to_string()).collect())
            ));
        }
        if !phases.contains(&self.phase) {
            return Some(format!(
                "the phase {} is not measured (phases: {})",
                self.phase.key(),
                list(phases.iter().map(|p| p.key().to_string()).collect())
            ));
        }
        if let Some(n) = self.procs.filter(|n| !procs.contains(n)) {
            return Some(format!(
                "procs={n} is not among the process counts ({})",
                list(procs.iter().map(u32::to_string).collect())
            ));
        }
        if let Some(x) = self.xfer.filter(|x| !sizes.contains(x)) {
            return Some(format!(
                "xfer={x} bytes is not among the transfer sizes ({} bytes)",
                list(sizes.iter().map(u64::to_string).collect())
            ));
        }
        None
    }
}

/// `api.phase[.statistic]`.
fn parse_path(path: &str) -> Result<(Api, Phase, Statistic), ValueError> {
    let parts: Vec<String> = path
        .split('.')
        .map(|p| p.trim().to_ascii_lowercase())
        .collect();
    if parts.len() < 2 || parts.len() > 3 || parts.iter().any(String::is_empty) {
        return Err(ValueError::from(format!(
            "'{path}' is not API.PHASE or API.PHASE.STATISTIC (expected {SHAPE})"
        )));
    }
    let api = Api::ALL
        .into_iter()
        .find(|a| a.name() == parts[0])
        .ok_or_else(|| {
            format!(
                "unknown API '{}' (expected posix, mpiio or phdf5)",
                parts[0]
            )
        })?;
    let phase = Phase::ALL
        .into_iter()
        .find(|p| p.key() == parts[1])
        .ok_or_else(|| {
            format!(
                "unknown phase '{}' (expected {})",
                parts[1],
                Phase::ALL.map(Phase::key).join(", ")
            )
        })?;
    let statistic = match parts.get(2).map(String::as_str) {
        None | Some("mean") | Some("avg") => Statistic::Mean,
        Some("max") => Statistic::Max,
        Some("min") => Statistic::Min,
        Some("cv") => Statistic::Cv,
        Some(s) => {
            return Err(ValueError::from(format!(
                "unknown statistic '{s}' (expected max, mean, min or cv)"
            )))
        }
    };
    Ok((api, phase, statistic))
}

/// `BOUND UNIT` after the comparison: the number as written and the unit (`%` when
/// `percent`, the bound of a `cv`; else a throughput unit).
fn parse_bound(s: &str, percent: bool) -> Result<(String, Unit), ValueError> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..end], s[end..].trim());
    if num.is_empty() && s.starts_with(['-', '+']) {
        return Err(ValueError::from(format!(
            "bound '{s}' must be a number greater than 0 without a sign (e.g. 2GB/s)"
        )));
    }
    if num.is_empty() {
        return Err(ValueError::from(format!(
            "missing bound after the comparison (expected a number and a unit, e.g. 2GB/s; \
             got '{s}')"
        )));
    }
    let plain = num.split('.').count() <= 2 && !num.starts_with('.') && !num.ends_with('.');
    let value = num.parse::<f64>().ok().filter(|_| plain);
    match value {
        None => {
            return Err(ValueError::from(format!(
                "bound '{num}' is not a decimal number"
            )))
        }
        Some(v) if v <= 0.0 => {
            return Err(ValueError::from(format!(
                "bound '{num}' must be greater than 0"
            )))
        }
        Some(v) if !v.is_finite() => {
            return Err(ValueError::from(format!("bound '{num}' is too large")))
        }
        Some(_) => {}
    }
    match (percent, unit) {
        (true, "%") => Ok((num.to_string(), Unit::Percent)),
        (true, u) => Err(ValueError::from(format!(
            "a cv (coefficient of variation) is bounded in percent: write {num}% (got '{u}')"
        ))),
        (false, "%") => Err(ValueError::from(
            "a bound in % applies only to .cv (the coefficient of variation), \
             e.g. mpiio.write.cv<=10%",
        )),
        (false, u) => Ok((num.to_string(), Unit::parse(u)?)),
    }
}

/// A positive whole number (a selector's value).
fn positive_int(v: &str, what: &str) -> Result<u64, ValueError> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ValueError::from(format!("{what}{v} is not a whole number")));
    }
    match v.parse::<u64>() {
        Ok(0) => Err(ValueError::from(format!("{what}{v} must be at least 1"))),
        Ok(n) => Ok(n),
        Err(_) => Err(ValueError::from(format!("{what}{v} is too large"))),
    }
}

/// A transfer size in bytes with an optional K, M or G suffix (binary, either case),
/// as the `-x` option takes it.
fn size(v: &str) -> Result<u64, ValueError> {
    let (digits, shift) = match v.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&v[..v.len() - 1], 10),
        Some(b'M') => (&v[..v.len() - 1], 20),
        Some(b'G') => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    let n = positive_int(digits, "xfer=").map_err(|e| {
        if e.reason().ends_with("not a whole number") {
            format!("xfer={v} is not a size (bytes, with an optional K, M or G suffix)").into()
        } else {
            e
        }
    })?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("xfer={v} is too large").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(t: &str) -> Criterion {
        Criterion::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"))
    }

    fn refused(t: &str, needle: &str) {
        match Criterion::parse(t) {
            Ok(c) => panic!("{t}: accepted as {c:?}"),
            Err(e) => assert!(e.reason().contains(needle), "{t}: {e:?} lacks {needle:?}"),
        }
    }

    #[test]
    fn the_issue_examples() {
        let c = ok("mpiio.write>=2GB/s");
        assert_eq!(
            (c.api(), c.phase(), c.statistic(), c.comparison()),
            (
                Api::Mpiio,
                Phase::Write,
                Statistic::Mean,
                Comparison::AtLeast
            )
        );
        assert_eq!(c.bound_bytes_per_second(), 2e9);
        assert_eq!(c.bound_text(), ">= 2 GB/s");
        assert_eq!((c.procs(), c.xfer()), (None, None));
        let c = ok("phdf5.read.min>=1500MiB/s@procs=4");
        assert_eq!(
            (c.api(), c.phase(), c.statistic()),
            (Api::Phdf5, Phase::Read, Statistic::Min)
        );
        assert_eq!(c.bound_bytes_per_second(), 1500.0 * 1_048_576.0);
        assert_eq!(c.procs(), Some(4));
        assert_eq!(c.text(), "phdf5.read.min>=1500MiB/s@procs=4");
    }

    #[test]
    fn every_part_of_the_grammar() {
        let c = ok("  POSIX.Raw_Read.MAX > 1.5 GiB/s @ procs = 2 , xfer=1M ");
        assert_eq!(
            c.text(),
            "POSIX.Raw_Read.MAX > 1.5 GiB/s @ procs = 2 , xfer=1M"
        );
        assert_eq!(
            (c.api(), c.phase(), c.statistic(), c.comparison()),
            (
                Api::Posix,
                Phase::RawRead,
                Statistic::Max,
                Comparison::Above
            )
        );
        assert_eq!(c.bound_bytes_per_second(), 1.5 * 1_073_741_824.0);
        assert_eq!((c.procs(), c.xfer()), (Some(2), Some(1 << 20)));
        assert_eq!(
            ok("mpiio.read_open_close.avg<=10kB/s").statistic(),
            Statistic::Mean
        );
        assert_eq!(
            ok("mpiio.write_open_close<3TB/s").comparison(),
            Comparison::Below
        );
        assert_eq!(ok("posix.write<=7B/s").bound_bytes_per_second(), 7.0);
        for (u, f) in [
            ("KiB/s", 1024.0),
            ("MiB/s", 1_048_576.0),
            ("TiB/s", 1_099_511_627_776.0),
            ("kB/s", 1e3),
            ("TB/s", 1e12),
        ] {
            assert_eq!(
                ok(&format!("posix.write>=1{u}")).bound_bytes_per_second(),
                f
            );
        }
        assert_eq!(ok("posix.write>=1MiB/s@xfer=64k").xfer(), Some(65536));
        assert_eq!(ok("posix.write>=1MiB/s@xfer=2G").xfer(), Some(2 << 30));
        assert_eq!(ok("posix.write>=1MiB/s@xfer_size=100").xfer(), Some(100));
        assert_eq!(ok("posix.write>=1MiB/s@nprocs=8").procs(), Some(8));
        let cv = ok("mpiio.write.cv <= 10 % @procs=2");
        assert_eq!((cv.statistic(), cv.unit()), (Statistic::Cv, Unit::Percent));
        assert_eq!(
            (cv.bound_text(), cv.procs()),
            ("<= 10 %".to_string(), Some(2))
        );
        assert_eq!(cv.bound_bytes_per_second(), 10.0);
        assert!(!cv.is_throughput() && ok("posix.write>=1B/s").is_throughput());
    }

    #[test]
    fn malformed_criteria_are_refused_with_the_reason() {
        refused("", "empty criterion");
        refused("mpiio.write", "no comparison");
        refused(
            "mpiio.write@procs=4>=2GB/s",
            "the selectors (@...) come last",
        );
        refused("mpiio.write@procs=4", "no comparison");
        refused("mpiio.write=2GB/s", "'=' is not a comparison");
        refused("mpiio.write==2GB/s", "'=' is not a comparison");
        refused("mpiio>=2GB/s", "'mpiio' is not API.PHASE");
        refused("mpiio.write.max.x>=2GB/s", "is not API.PHASE");
        refused("mpiio..write>=2GB/s", "is not API.PHASE");
        refused(
            "hdf5.write>=2GB/s",
            "unknown API 'hdf5' (expected posix, mpiio or phdf5)",
        );
        refused(
            "mpiio.wirte>=2GB/s",
            "unknown phase 'wirte' (expected raw_write, write, write_open_close, raw_read, \
             read, read_open_close)",
        );
        refused("mpiio.write.median>=2GB/s", "unknown statistic 'median'");
        refused("mpiio.write.cv<=10MiB/s", "bounded in percent: write 10%");
        refused("mpiio.write.cv<=10", "bounded in percent");
        refused("mpiio.write<=10%", "applies only to .cv");
        refused("mpiio.write>=GB/s", "missing bound");
        refused("mpiio.write>=", "missing bound");
        refused("mpiio.write>=2", "missing unit");
        refused("mpiio.write>=0GB/s", "must be greater than 0");
        refused("mpiio.write>=0.0GB/s", "must be greater than 0");
        refused(
            "mpiio.write>=-1GB/s",
            "bound '-1GB/s' must be a number greater than 0",
        );
        refused(
            "mpiio.write>=+1GB/s",
            "must be a number greater than 0 without a sign",
        );
        refused("mpiio.write>=1.2.3GB/s", "not a decimal number");
        refused("mpiio.write>=.5GB/s", "not a decimal number");
        refused("mpiio.write>=5.GB/s", "not a decimal number");
        refused("mpiio.write>=2MB/s", "'MB/s' is ambiguous");
        refused("mpiio.write>=2KB/s", "'KB/s' is ambiguous");
        refused("mpiio.write>=2gb/s", "case-sensitive");
        refused("mpiio.write>=2Gb/s", "case-sensitive");
        refused("mpiio.write>=2GB", "unknown unit 'GB'");
        refused("mpiio.write>=2GB/s@", "selector '' is not KEY=VALUE");
        refused("mpiio.write>=2GB/s@procs", "is not KEY=VALUE");
        refused("mpiio.write>=2GB/s@nodes=2", "unknown selector 'nodes'");
        refused("mpiio.write>=2GB/s@procs=0", "procs=0 must be at least 1");
        refused(
            "mpiio.write>=2GB/s@procs=x",
            "procs=x is not a whole number",
        );
        refused("mpiio.write>=2GB/s@procs=4294967296", "too large");
        refused(
            "posix.write>=1B/s\n| PASS",
            "no control character (found \\n)",
        );
        refused("posix.wr\u{1b}[2Jite>=1B/s", "(found \\u{1b})");
        refused(
            "mpiio.write>=2GB/s@procs=2,procs=4",
            "procs= is given twice",
        );
        refused("mpiio.write>=2GB/s@xfer=1Q", "xfer=1Q is not a size");
        refused("mpiio.write>=2GB/s@xfer=1M,xfer=2M", "xfer= is given twice");
        refused("mpiio.write>=2GB/s@xfer=99999999999G", "too large");
    }

    #[test]
    fn selection_and_unmatched_reasons() {
        let c = ok("mpiio.write>=1GB/s@procs=4,xfer=1M");
        assert!(c.selects(4, 1 << 20, Api::Mpiio, Phase::Write));
        assert!(!c.selects(2, 1 << 20, Api::Mpiio, Phase::Write));
        assert!(!c.selects(4, 1 << 19, Api::Mpiio, Phase::Write));
        assert!(!c.selects(4, 1 << 20, Api::Posix, Phase::Write));
        assert!(!c.selects(4, 1 << 20, Api::Mpiio, Phase::Read));
        let all = ok("mpiio.write>=1GB/s");
        assert!(all.selects(1, 8, Api::Mpiio, Phase::Write));
        let apis = [Api::Posix, Api::Mpiio];
        let writes = [Phase::RawWrite, Phase::Write, Phase::WriteOpenClose];
        let (procs, sizes) = ([4, 2, 1], [1 << 20, 2 << 20]);
        assert_eq!(c.why_unmatched(&apis, &procs, &sizes, &writes), None);
        assert_eq!(
            c.why_unmatched(&apis, &[2, 1], &sizes, &writes).unwrap(),
            "procs=4 is not among the process counts (2, 1)"
        );
        assert_eq!(
            c.why_unmatched(&apis, &procs, &[4096], &writes).unwrap(),
            "xfer=1048576 bytes is not among the transfer sizes (4096 bytes)"
        );
        assert_eq!(
            c.why_unmatched(&[Api::Posix], &procs, &sizes, &writes)
                .unwrap(),
            "the API mpiio does not run (APIs: posix)"
        );
        let r = ok("mpiio.read>=1GB/s");
        assert_eq!(
            r.why_unmatched(&apis, &procs, &sizes, &writes).unwrap(),
            "the phase read is not measured (phases: raw_write, write, write_open_close)"
        );
    }

    #[test]
    fn criteria_are_bounded() {
        let long = format!("posix.write>={}1B/s", " ".repeat(70_000));
        refused(&long, "criterion of 70017 bytes is too long (at most 256");
        let at_limit = format!("posix.write>={}1B/s", " ".repeat(MAX_CRITERION_BYTES - 17));
        assert_eq!(at_limit.len(), MAX_CRITERION_BYTES);
        assert!(Criterion::parse(&at_limit).is_ok());
        refused(&format!("{at_limit} "), "is too long");
    }

    #[test]
    fn comparisons() {
        assert!(Comparison::AtLeast.holds(2.0, 2.0) && !Comparison::Above.holds(2.0, 2.0));
        assert!(Comparison::AtMost.holds(2.0, 2.0) && !Comparison::Below.holds(2.0, 2.0));
        assert!(Comparison::Below.holds(1.0, 2.0) && !Comparison::AtLeast.holds(1.0, 2.0));
        assert!(Comparison::AtLeast.lower_bound() && !Comparison::AtMost.lower_bound());
    }
}
