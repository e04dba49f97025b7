//! The fill options of the PHDF5 datasets (spec §9 extended).

use crate::error::Error;
use crate::ffi::hdf5::{self, AllocTime, FillProperties, FillTime, FillValue};

/// The fill settings of the PHDF5 datasets; `None`: the library default (spec §9).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FillSettings {
    /// `--fill-value`.
    pub value: Option<FillValue>,
    /// `--fill-time` (`-n`/`--no-fill` is [`FillTime::Never`]).
    pub time: Option<FillTime>,
    /// `--alloc-time`.
    pub alloc: Option<AllocTime>,
}

impl From<FillSettings> for FillProperties {
    fn from(s: FillSettings) -> FillProperties {
        FillProperties {
            value: s.value,
            time: s.time,
            alloc: s.alloc,
        }
    }
}

impl FillSettings {
    /// True when no fill option was given.
    pub fn is_default(&self) -> bool {
        *self == FillSettings::default()
    }

    /// The options given as typed (`--fill-value=undefined --fill-time=alloc`), for messages.
    pub fn options_text(&self) -> String {
        let mut v: Vec<String> = Vec::new();
        match self.value {
            Some(FillValue::Byte(b)) => v.push(format!("--fill-value={b}")),
            Some(FillValue::Undefined) => v.push("--fill-value=undefined".into()),
            None => {}
        }
        if let Some(t) = self.time {
            v.push(format!("--fill-time={}", t.name()));
        }
        if let Some(a) = self.alloc {
            v.push(format!("--alloc-time={}", a.name()));
        }
        v.join(" ")
    }

    /// The parameter-report lines (empty when no option was given).
    pub fn report_lines(&self) -> Vec<String> {
        if self.is_default() {
            return Vec::new();
        }
        let value = match self.value {
            None => "library default (0)".to_string(),
            Some(FillValue::Byte(b)) => b.to_string(),
            Some(FillValue::Undefined) => "undefined".to_string(),
        };
        let time = self.time.map_or("ifset (library default)", FillTime::name);
        let alloc = self.alloc.map_or("library default", AllocTime::name);
        vec![
            format!("Fill value={value}"),
            format!("Fill time={time}"),
            format!("Allocation time={alloc} (HDF5 applies: early)"),
        ]
    }

    /// Whether the linked HDF5 accepts these settings: `None` when accepted, else the reason.
    pub fn refusal(&self, chunked: bool, dim2d: bool) -> Option<String> {
        if self.is_default() {
            return None;
        }
        let dims: &[u64] = if dim2d { &[4, 4] } else { &[4] };
        let e = hdf5::probe_dataset_create(dims, chunked.then_some(dims), &(*self).into()).err()?;
        let storage = if chunked { "chunked" } else { "contiguous" };
        Some(format!(
            "{} ({storage} datasets): HDF5 refuses this combination: {}",
            self.options_text(),
            hdf5_reason(&e)
        ))
    }
}

/// HDF5's reason for a refusal, quoted: the innermost error-stack frame and the call.
pub fn hdf5_reason(e: &Error) -> String {
    match e {
        Error::Hdf5 { call, .. } => format!("\"{}\" ({call})", e.innermost()),
        other => format!("\"{other}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_report_lines() {
        assert_eq!(FillTime::parse("IfSet"), Some(FillTime::IfSet));
        assert_eq!(FillTime::parse("sometimes"), None);
        assert_eq!(AllocTime::parse("INCREMENTAL"), Some(AllocTime::Incr));
        assert_eq!(AllocTime::parse("incr"), Some(AllocTime::Incr));
        assert_eq!(AllocTime::parse("Late"), Some(AllocTime::Late));
        assert_eq!(AllocTime::parse("never"), None);
        assert!(FillSettings::default().report_lines().is_empty());
        let s = FillSettings {
            value: Some(FillValue::Byte(7)),
            ..Default::default()
        };
        assert_eq!(
            s.report_lines(),
            vec![
                "Fill value=7",
                "Fill time=ifset (library default)",
                "Allocation time=library default (HDF5 applies: early)"
            ]
        );
        let s = FillSettings {
            value: Some(FillValue::Undefined),
            time: Some(FillTime::Never),
            alloc: Some(AllocTime::Late),
        };
        assert_eq!(
            s.report_lines(),
            vec![
                "Fill value=undefined",
                "Fill time=never",
                "Allocation time=late (HDF5 applies: early)"
            ]
        );
        assert_eq!(
            s.options_text(),
            "--fill-value=undefined --fill-time=never --alloc-time=late"
        );
        assert_eq!(
            hdf5_reason(&Error::Hdf5 {
                call: "H5Dcreate2",
                stack: [
                    ("H5Dcreate2", "unable to create dataset"),
                    (
                        "H5D__update_oh_info",
                        "fill value writing on allocation set, but no fill value defined"
                    )
                ]
                .map(|(func, desc)| crate::error::Hdf5Frame {
                    func: func.into(),
                    desc: desc.into(),
                    ..Default::default()
                })
                .into(),
                system: None
            }),
            "\"fill value writing on allocation set, but no fill value defined\" (H5Dcreate2)"
        );
    }

    #[test]
    fn hdf5_refuses_an_undefined_fill_value_written_on_allocation() {
        let bad = FillSettings {
            value: Some(FillValue::Undefined),
            time: Some(FillTime::Alloc),
            alloc: None,
        };
        for (chunked, dim2d) in [(false, false), (true, false), (false, true), (true, true)] {
            let m = bad.refusal(chunked, dim2d).expect("HDF5 accepted it");
            assert!(
                m.starts_with("--fill-value=undefined --fill-time=alloc ("),
                "{m}"
            );
            assert!(
                m.contains("HDF5 refuses this combination: \"fill value writing on allocation set, but no fill value defined\" (H5Dcreate2)"),
                "{m}"
            );
        }
        assert!(bad
            .refusal(true, false)
            .unwrap()
            .contains("(chunked datasets)"));
        // accepted combinations
        for s in [
            FillSettings::default(),
            FillSettings {
                value: Some(FillValue::Byte(7)),
                time: Some(FillTime::Alloc),
                alloc: Some(AllocTime::Late),
            },
            FillSettings {
                value: Some(FillValue::Undefined),
                time: Some(FillTime::Never),
                alloc: Some(AllocTime::Incr),
            },
            FillSettings {
                value: None,
                time: Some(FillTime::Alloc),
                alloc: Some(AllocTime::Default),
            },
        ] {
            assert_eq!(s.refusal(true, true), None, "{s:?}");
            assert_eq!(s.refusal(false, false), None, "{s:?}");
        }
    }
}
