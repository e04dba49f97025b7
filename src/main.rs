//! `h5perf`: the drop-in binary. Everything happens in [`h5perf::app::run_program`];
//! this wrapper only collects the arguments and turns the result into the exit status.

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = h5perf::app::run_program(&args);
    std::process::exit(code);
}
