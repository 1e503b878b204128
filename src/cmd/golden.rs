//! `pws golden LAUNCH.toml`: runs a launch on the ISA-level golden model and prints the final
//! buffers, the split/merge trace and statistics (or the whole report as JSON).

use std::path::PathBuf;

use pws_verify::golden::{self, Config, Mode};

use super::CmdResult;

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    /// split and merge are no-ops: one context serialises both paths.
    Nosplit,
    /// split and merge allocate and free SpSIMD contexts (S per wavefront).
    Pws,
}

#[derive(clap::Args)]
pub struct Args {
    /// Launch manifest (TOML; see docs/manifest.md).
    manifest: PathBuf,
    #[arg(long, value_enum, default_value = "pws")]
    mode: ModeArg,
    /// SpSIMDs per SIMD (split contexts per wavefront) in pws mode.
    #[arg(long = "S", default_value_t = 2)]
    s: usize,
    /// Print the full report (buffers, registers, trace, statistics) as JSON.
    #[arg(long)]
    json: bool,
    /// Stop with an error when one wavefront has executed this many instructions (a runaway
    /// loop).
    #[arg(long, default_value_t = 10_000_000)]
    max_instructions: u64,
}

pub fn run(args: Args) -> CmdResult {
    super::spsimds(args.s, 0..=golden::MAX_S)?;
    let config = Config {
        mode: match args.mode {
            ModeArg::Nosplit => Mode::NoSplit,
            ModeArg::Pws => Mode::Pws,
        },
        s: args.s,
        max_instructions: args.max_instructions,
        // Only the JSON report lists the final registers.
        final_registers: args.json,
    };
    let report = golden::run_launch(&args.manifest, &config)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
