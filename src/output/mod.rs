//! Outputs: the report ([`report`]), results ([`export`]), where they go ([`sink`], [`paths`],
//! [`distinct`]); acceptance: [`results`], [`readback`], [`json_text`], [`baseline`],
//! [`reproducibility`] (`--within`), [`verdict`], the page ([`html`], [`svg`]) and the
//! spread behind its figures ([`spread`]); the batch scheduler's context of a run
//! ([`scheduler`]).

pub mod baseline;
pub mod conditions;
pub mod distinct;
pub mod export;
pub mod fields;
pub mod html;
pub mod json_text;
pub mod paths;
pub mod readback;
pub mod report;
pub mod reproducibility;
pub mod results;
pub mod scheduler;
pub mod sink;
pub mod spread;
pub mod svg;
pub mod timeseries;
pub mod verdict;
