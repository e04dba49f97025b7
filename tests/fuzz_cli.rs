//! Property-based fuzzing of the command-line parser (issue: no panic, no hang, every
//! input either accepted or refused with one message). Pure: no MPI. The number of
//! cases is `PROPTEST_CASES` (default here 3000; `make fuzz` runs far more).

use h5perf::cli::{self, Command};
use h5perf::config::Params;
use h5perf::error::Error;
use proptest::prelude::*;

/// Tokens that look like h5perf's: every option spelling, values, junk.
fn token() -> impl Strategy<Value = String> {
    let spellings = prop::sample::select(vec![
        "-a",
        "-A",
        "-B",
        "-c",
        "-C",
        "-d",
        "-D",
        "-e",
        "-F",
        "-g",
        "-h",
        "-i",
        "-I",
        "-o",
        "-p",
        "-P",
        "-T",
        "-w",
        "-x",
        "-X",
        "-m",
        "-n",
        "-s",
        "-t",
        "-b",
        "-",
        "--",
        "--api",
        "--ap",
        "--num-bytes",
        "--num-b",
        "--block-size",
        "--bl",
        "--chunk",
        "--collective",
        "--debug",
        "--geometry",
        "--help",
        "--interleaved",
        "--in=0",
        "--write-only=yes",
        "--max-num-processes",
        "--min-num-p",
        "--max-xfer-size",
        "--min-x",
        "--num-dsets",
        "--num-files",
        "--num-iterations",
        "--output",
        "--threshold",
        "--align",
        "--version",
        "--json",
        "--csv",
        "--expect",
        "--baseline",
        "--tolerance",
        "--html",
        "--from",
        "-cCIw",
        "-cCIwe8",
        "-D2,t",
        "-Aposix",
        "--chunky",
        "--num-bytes=",
    ])
    .prop_map(String::from);
    let values = prop::sample::select(vec![
        "0",
        "1",
        "8",
        "256K",
        "1m",
        "3G",
        "8 K",
        " 8K",
        "+8K",
        "010",
        "-8",
        "1.5K",
        "10Q",
        "8Kxyz",
        "K",
        "",
        "99999999999999999999",
        "9223372036854775807K",
        "posix",
        "mpiio,phdf5",
        "posix,",
        ",posix",
        "hdf4",
        "1,r,t,v",
        "99",
        "z",
        "tv",
        "report.txt",
        "yes",
        "off",
        "4294967297",
        "mpiio.write>=2GB/s",
        "phdf5.read.min>=1500MiB/s@procs=4",
        "posix.wr>=1",
        "12.5",
    ])
    .prop_map(String::from);
    prop_oneof![4 => spellings, 4 => values, 1 => any::<String>(), 1 => "[-=, a-zA-Z0-9]{0,12}"]
}

fn check(args: &[String]) -> Result<(), TestCaseError> {
    match cli::parse(args) {
        Ok(Command::Run(o)) => {
            // whatever was accepted resolves and validates without panicking
            for world in [1u32, 2, 3, 64] {
                let p = Params::resolve(&o, world);
                let _ = p.problems(world, 24 << 30);
            }
        }
        Ok(Command::Help)
        | Ok(Command::Version)
        | Ok(Command::FillBehaviour { .. })
        | Ok(Command::FromFiles(_)) => {}
        Err(Error::Usage(m)) => {
            prop_assert!(
                m.starts_with("h5perf: "),
                "message must start with 'h5perf: ': {m:?}"
            );
            prop_assert!(!m.contains('\n'), "message must be one line: {m:?}");
        }
        Err(e) => prop_assert!(false, "parse returned a non-usage error: {e:?}"),
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn parser_accepts_or_refuses_every_argv(args in prop::collection::vec(token(), 0..10)) {
        check(&args)?;
    }

    #[test]
    fn parser_survives_arbitrary_strings(args in prop::collection::vec(any::<String>(), 0..6)) {
        check(&args)?;
    }
}
