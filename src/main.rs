//! `h5perf`: the drop-in binary. Everything happens in [`h5perf::app::run_program`];
//! this wrapper only collects the arguments and turns the result into the exit status.

fn main() {
    // the arguments' bytes as given: file names need not be UTF-8
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = h5perf::app::run_program(&args);
    std::process::exit(code);
}
