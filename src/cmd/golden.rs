//! `pws golden LAUNCH.toml`: runs a launch on the ISA-level golden model and prints the final
//! buffers, the split/merge trace and statistics (or the whole report as JSON). In pws mode the
//! kernel goes through the same split/merge pass as `pws run --mode pws`, so both run the same
//! program; nosplit runs it as assembled. Buffers with `expect` values (computed outside pws)
//! are checked: the first difference is an error. A launch sequence runs launch by launch on
//! one memory (pws_isa::sequence), each launch's header printed, then the last one's report.

use std::path::PathBuf;

use pws_host::timing::Mode as HostMode;
use pws_isa::manifest::Buffer;
use pws_isa::sequence::LaunchSequence;
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
    #[command(flatten)]
    split: super::SplitArgs,
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
    let sequence = LaunchSequence::load(&args.manifest)?;
    let host_mode = match args.mode {
        ModeArg::Nosplit => HostMode::NoSplit,
        ModeArg::Pws => HostMode::Pws,
    };
    let kernels = super::prepare_kernels(&sequence, host_mode, args.split.policy())?;
    let ran = sequence.run(|step, manifest| {
        let report = golden::run(&kernels[step.launch].program, manifest, &config)
            .map_err(|e| format!("{}{e}", sequence.at(step)))?;
        let contents = sequence.contents(|name| report.buffers.get(name).map(|v| v.words()));
        Ok::<_, Box<dyn std::error::Error>>((report, contents))
    })?;
    let last = ran.last();
    if let Some(manifest) = sequence.single() {
        if args.json {
            println!("{}", serde_json::to_string_pretty(last)?);
        } else {
            print!("{}", last.to_text(&manifest.kernel_label()));
        }
    } else if args.json {
        let steps = super::steps_json(&ran.steps);
        println!("{}", serde_json::to_string_pretty(&steps)?);
    } else {
        for (step, report) in &ran.steps {
            println!(
                "pass {} launch {}: {}: {} instructions, {} split(s), {} merge(s)",
                step.pass,
                step.launch,
                sequence.launches[step.launch].kernel_label(),
                report.stats.instructions,
                report.stats.splits,
                report.stats.merges
            );
        }
        println!(
            "
the last launch's report:"
        );
        let (step, _) = ran
            .steps
            .last()
            .expect("a sequence runs at least one launch");
        print!(
            "{}",
            last.to_text(&sequence.launches[step.launch].kernel_label())
        );
    }
    check_expected(sequence.buffers(), &last.buffers)
}

/// The manifest's `expect` values against the final buffers (within `tolerance_ulp` where the
/// manifest gives one); prints the verdict in text mode's style and fails on a difference.
fn check_expected(expected: &[Buffer], buffers: &golden::Buffers) -> CmdResult {
    let mut checked = 0;
    for b in expected.iter().filter(|b| b.expect.is_some()) {
        let words = buffers.get(&b.name).map(|v| v.words()).unwrap_or_default();
        if let Some(what) = b.mismatch(&words) {
            return Err(format!("buffer {what}").into());
        }
        checked += 1;
    }
    if checked > 0 {
        eprintln!("expected values: {checked} buffer(s) equal");
    }
    Ok(())
}
