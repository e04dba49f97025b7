//! Outputs: the text report, line for line as the C h5perf prints it ([`report`]), and the
//! machine-readable results (`--json`, `--csv`: [`export`]), both rendered from the same
//! statistics ([`crate::measure`]), and the files they go to ([`files`]); the acceptance
//! outputs: the results as the files hold them ([`results`], read back by [`readback`]
//! with [`json_text`]), the comparison with a baseline ([`baseline`]), the verdict table
//! ([`verdict`]) and the HTML page ([`html`], charts by [`svg`]).

pub mod baseline;
pub mod export;
pub mod files;
pub mod html;
pub mod json_text;
pub mod paths;
pub mod readback;
pub mod report;
pub mod report_sink;
pub mod results;
pub mod svg;
pub mod verdict;
