//! `pws export --out DIR [--report] [--cosim CYCLES] [--json] [--unit NAME] [--config SPEC]`:
//! writes one Verilog file per RTL unit and checks each with Verilator lint, Icarus and Yosys;
//! `--report` adds the Yosys and iCE40 area and the fmax nextpnr-ice40 reaches; `--cosim`
//! co-simulates each unit against its Verilog; `--config` builds the configured units for one
//! hardware configuration. The flows are in `pws_export::flow` (docs/verilog.md).

use std::path::PathBuf;

use pws_export::flow::{self, ExportOptions, Progress};

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Directory for the `.v` files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Also synthesise for iCE40 (LUTs, flip-flops) and place and route for fmax.
    #[arg(long)]
    report: bool,
    /// Only this unit (module name, with or without the `pws_` prefix).
    #[arg(long)]
    unit: Option<String>,
    /// Clock target handed to nextpnr-ice40, in MHz (the achieved fmax is reported either way).
    #[arg(long, default_value_t = 12.0)]
    freq: f64,
    /// Also co-simulate every unit against its Verilog in Icarus for this many cycles.
    #[arg(long, value_name = "CYCLES")]
    cosim: Option<usize>,
    /// Seed of the co-simulation stimulus.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Build the split/merge, swizzle, vector and compute units for this configuration: a preset
    /// (cu, small, figure5, gcn3) or a TOML file of hardware parameters, as `pws run` takes it
    /// (default: GCN3 geometry for the units, the cu preset for the compute unit).
    #[arg(long)]
    config: Option<String>,
}

pub fn run(args: Args) -> CmdResult {
    let options = ExportOptions {
        out: args.out,
        unit: args.unit,
        report: args.report,
        target_mhz: args.freq,
        cosim_cycles: args.cosim,
        seed: args.seed,
        config: match &args.config {
            Some(spec) => Some(super::wcet::hw_config(Some(spec))?),
            None => None,
        },
    };
    // Progress goes to stderr, one line per finished step, so `--json` stays parseable.
    let summary = flow::export_with_progress(&options, &|p: Progress<'_>| {
        eprintln!(
            "{:<22} {:<15} {:>7.1} s  {}",
            p.unit,
            p.step,
            p.elapsed.as_secs_f64(),
            p.detail
        )
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{summary}");
    }
    Ok(())
}
