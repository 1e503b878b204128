//! `pws export --out DIR [--report] [--json] [--unit NAME]`: writes one Verilog file per RTL
//! unit and checks each with Verilator lint, Icarus and Yosys; `--report` adds the iCE40 area
//! and the fmax nextpnr-ice40 reaches. The flows are in `pws_export::flow` (docs/verilog.md).

use std::path::PathBuf;

use pws_export::flow::{self, ExportOptions};

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
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let summary = flow::export(&ExportOptions {
        out: args.out,
        unit: args.unit,
        report: args.report,
        target_mhz: args.freq,
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{summary}");
    }
    Ok(())
}
