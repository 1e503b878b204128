//! `pws unit swizzle --mask HEX --width W --lanes L --mode none|bcc|scc`: the pass schedule of
//! one vector instruction under BCC/SCC compaction, computed by simulating the RTL swizzle
//! unit (`pws_hdl::swizzle`) cycle by cycle. `cycles` is the number of passes the unit issued.

use std::path::PathBuf;

use pws_verify::units::swizzle::{rtl, Mode, Pass};
use serde_json::json;

use crate::cmd::CmdResult;

#[derive(Copy, Clone, Debug, clap::ValueEnum)]
pub enum ModeArg {
    /// No compaction: every lane group is issued.
    None,
    /// Basic cycle compression: empty lane groups are skipped.
    Bcc,
    /// Swizzled cycle compression: active lanes are packed into ceil(active / L) passes.
    Scc,
}

#[derive(clap::Args)]
pub struct Args {
    /// Execution mask in hex (bit i = lane i), e.g. 0xAAAA or ffff_0000.
    #[arg(long)]
    mask: String,
    /// Wavefront width W (lanes).
    #[arg(long, default_value_t = 64)]
    width: usize,
    /// ALU lanes per pass L (W / L must be 1 to 4).
    #[arg(long, default_value_t = 16)]
    lanes: usize,
    /// Compaction mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Scc)]
    mode: ModeArg,
    /// Print JSON: {"cycles": n, "schedule": [[lane or null, ...] per pass]}.
    #[arg(long)]
    json: bool,
    /// Write a VCD waveform of the unit to this file.
    #[arg(long)]
    vcd: Option<PathBuf>,
}

fn parse_mask(text: &str, width: usize) -> Result<u64, String> {
    let digits: String = text
        .trim()
        .trim_start_matches("0x")
        .trim_start_matches("0X")
        .replace('_', "");
    let mask = u64::from_str_radix(&digits, 16)
        .map_err(|e| format!("--mask `{text}` is not a 64-bit hex number: {e}"))?;
    if width < 64 && mask >> width != 0 {
        return Err(format!(
            "--mask {mask:#x} has lanes beyond the {width}-lane wavefront"
        ));
    }
    Ok(mask)
}

pub fn run(args: Args) -> CmdResult {
    let mask = parse_mask(&args.mask, args.width)?;
    let mode = match args.mode {
        ModeArg::None => Mode::None,
        ModeArg::Bcc => Mode::Bcc,
        ModeArg::Scc => Mode::Scc,
    };
    let mut staged = None;
    let vcd = match &args.vcd {
        Some(path) => {
            let (out, writer) = crate::cmd::vcd_output(path, &[])?;
            staged = Some(out);
            Some(Box::new(writer) as Box<dyn std::io::Write>)
        }
        None => None,
    };
    // `rtl::run` drops its simulation, and with it the trace writer, before it returns.
    let run = rtl::run(args.width, args.lanes, mask, mode, vcd)?;
    if let Some(vcd) = staged {
        vcd.commit()?;
    }
    if args.json {
        let schedule: Vec<&Pass> = run.passes.iter().collect();
        println!(
            "{}",
            json!({ "cycles": run.passes.len(), "schedule": schedule })
        );
        return Ok(());
    }
    println!(
        "swizzle unit: {}-lane wavefront on {} lanes, mode {}, mask {mask:#x} ({} active lanes)",
        args.width,
        args.lanes,
        clap::ValueEnum::to_possible_value(&args.mode)
            .map_or_else(String::new, |v| v.get_name().to_string()),
        mask.count_ones()
    );
    println!(
        "{} pass(es) of {} without compaction; the unit was busy {} cycle(s)",
        run.passes.len(),
        args.width / args.lanes,
        run.busy_cycles
    );
    if run.passes.is_empty() {
        return Ok(());
    }
    let header: Vec<String> = (0..args.lanes)
        .map(|p| format!("{:>4}", format!("p{p}")))
        .collect();
    println!("pass |{}", header.join(""));
    for (c, pass) in run.passes.iter().enumerate() {
        let cells: Vec<String> = pass
            .iter()
            .enumerate()
            .map(|(p, src)| match src {
                // `*` marks a lane executed away from its home position (swizzled).
                Some(lane) if lane % args.lanes != p => format!("{:>4}", format!("{lane}*")),
                Some(lane) => format!("{lane:>4}"),
                None => format!("{:>4}", "-"),
            })
            .collect();
        println!("{c:>4} |{}", cells.join(""));
    }
    Ok(())
}
