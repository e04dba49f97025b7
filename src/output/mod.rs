//! Outputs: the text report, line for line as the C h5perf prints it ([`report`]), and the
//! machine-readable results (`--json`, `--csv`: [`export`]), both rendered from the same
//! statistics ([`crate::measure`]), and where they go ([`sink`]: standard output, a
//! file replaced atomically, or a device written through; [`paths`]: what an output
//! name is; [`distinct`]: no two outputs are one file); the acceptance
//! outputs: the results as the files hold them ([`results`], read back by [`readback`]
//! with [`json_text`]), the comparison with a baseline ([`baseline`]), the verdict table
//! ([`verdict`]) and the HTML page ([`html`], charts by [`svg`]).

pub mod baseline;
pub mod distinct;
pub mod export;
pub mod html;
pub mod json_text;
pub mod paths;
pub mod readback;
pub mod report;
pub mod results;
pub mod sink;
pub mod svg;
pub mod verdict;
