//! `h5perf`: the drop-in binary.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = h5perf::app::run_program(&args);
    std::process::exit(code);
}
