//! Outputs: the text report, line for line as the C h5perf prints it ([`report`]), and the
//! machine-readable results (`--json`, `--csv`: [`export`]), both rendered from the same
//! statistics ([`crate::measure`]).

pub mod export;
pub mod report;
