//! `pws unit stack SCRIPT --kind pdom|dual`: drives a reconvergence stack's RTL
//! (`pws_hdl::reconvergence`) with a script of operations, one per clock cycle, and prints the
//! status and the whole stack after each.
//!
//! Script format (docs/rtl-units.md), one operation per line, `#` starts a comment; numbers
//! are decimal or `0x` hex, masks are hex:
//!
//! ```text
//! init PC END MASK                         a new wavefront at PC with lanes MASK, ending at END
//! advance [l|r] PC                         every active lane of the path continues at PC
//! branch [l|r] TARGET FALLTHROUGH TAKEN IPDOM   lanes in TAKEN go to TARGET, the rest fall through
//! nop
//! ```
//!
//! The path (`l` or `r`) is required by the dual-path stack and not allowed for the PDOM one.

use std::path::PathBuf;

use pws_hdl::reconvergence::{DualPathStack, PdomStack};
use pws_sim::Driver;
use pws_verify::units::reconvergence::{rtl, DpeEntry, Op, PathSlot, Side, SpeEntry, Status};
use pws_verify::units::script;
use serde_json::{json, Value};

use crate::cmd::CmdResult;

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Single-path PDOM stack (SPE).
    Pdom,
    /// Dual-path stack (DPE).
    Dual,
}

#[derive(clap::Args)]
pub struct Args {
    /// Script of operations (see docs/rtl-units.md).
    script: PathBuf,
    /// Which stack.
    #[arg(long, value_enum, default_value_t = Kind::Pdom)]
    kind: Kind,
    /// Stack entries (1..=63).
    #[arg(long, default_value_t = 16)]
    depth: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Write a VCD waveform of the stack to this file.
    #[arg(long)]
    vcd: Option<PathBuf>,
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::Overflow => "overflow",
        Status::Underflow => "underflow",
        Status::InvalidPath => "invalid-path",
    }
}

fn spe_json(e: &SpeEntry) -> Value {
    json!({ "pc": e.pc, "rpc": e.rpc, "mask": format!("{:#x}", e.mask) })
}

fn slot_json(s: &PathSlot) -> Value {
    json!({ "pc": s.pc, "mask": format!("{:#x}", s.mask), "valid": s.valid })
}

fn dpe_json(e: &DpeEntry) -> Value {
    json!({ "l": slot_json(&e.l), "r": slot_json(&e.r), "rpc": e.rpc })
}

fn spe_text(e: &SpeEntry) -> String {
    format!("{}/{}/{:#x}", e.pc, e.rpc, e.mask)
}

fn slot_text(s: &PathSlot) -> String {
    if s.valid {
        format!("{}/{:#x}", s.pc, s.mask)
    } else {
        "-".to_string()
    }
}

fn dpe_text(e: &DpeEntry) -> String {
    format!(
        "{{L:{} R:{} rpc {}}}",
        slot_text(&e.l),
        slot_text(&e.r),
        e.rpc
    )
}

/// The stack under test, stepped op by op.
enum Stack {
    Pdom(Box<Driver<PdomStack>>),
    Dual(Box<Driver<DualPathStack>>),
}

impl Stack {
    /// Applies one operation; returns its status and the stack afterwards (as JSON and text).
    fn apply(&mut self, side: Side, op: Op) -> Result<(Status, Vec<Value>, Vec<String>), String> {
        let err = |e: pws_sim::DriverError| e.to_string();
        match self {
            Stack::Pdom(d) => {
                let status = rtl::apply_pdom(d, op).map_err(err)?;
                let entries = rtl::pdom_entries(d).map_err(err)?;
                Ok((
                    status,
                    entries.iter().map(spe_json).collect(),
                    entries.iter().map(spe_text).collect(),
                ))
            }
            Stack::Dual(d) => {
                let status = rtl::apply_dpe(d, side, op).map_err(err)?;
                let entries = rtl::dpe_entries(d).map_err(err)?;
                Ok((
                    status,
                    entries.iter().map(dpe_json).collect(),
                    entries.iter().map(dpe_text).collect(),
                ))
            }
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    let source = pws_isa::input::read_text(&args.script, pws_isa::input::Kind::UnitScript)?;
    let lines = script::stack(&source, args.kind == Kind::Dual)
        .map_err(|e| format!("{}:{e}", pws_isa::diag::path(&args.script)))?;
    let mut staged = None;
    let vcd = match &args.vcd {
        Some(path) => {
            let (out, writer) = crate::cmd::vcd_output(path, &[&args.script])?;
            staged = Some(out);
            Some(writer)
        }
        None => None,
    };
    let mut stack = match (args.kind, vcd) {
        (Kind::Pdom, None) => Stack::Pdom(Box::new(Driver::new(PdomStack::new(args.depth)?)?)),
        (Kind::Pdom, Some(out)) => Stack::Pdom(Box::new(Driver::with_vcd(
            PdomStack::new(args.depth)?,
            out,
        )?)),
        (Kind::Dual, None) => Stack::Dual(Box::new(Driver::new(DualPathStack::new(args.depth)?)?)),
        (Kind::Dual, Some(out)) => Stack::Dual(Box::new(Driver::with_vcd(
            DualPathStack::new(args.depth)?,
            out,
        )?)),
    };
    let mut steps = Vec::new();
    let mut max_depth = 0;
    for line in &lines {
        let (status, entries, texts) = stack.apply(line.op.0, line.op.1)?;
        max_depth = max_depth.max(entries.len());
        if args.json {
            steps.push(json!({
                "line": line.line,
                "op": line.text,
                "status": status_name(status),
                "depth": entries.len(),
                "stack": entries,
            }));
        } else {
            println!(
                "{:>4}: {:<36} {:<12} [{}]",
                line.line,
                line.text,
                status_name(status),
                texts.join(", ")
            );
        }
    }
    if args.json {
        println!(
            "{}",
            json!({ "cycles": lines.len(), "max_depth": max_depth, "steps": steps })
        );
    } else {
        println!(
            "{} operation(s), one cycle each; maximum depth {max_depth}",
            lines.len()
        );
    }
    // Dropping the simulation flushes the trace; then it replaces the target.
    drop(stack);
    if let Some(vcd) = staged {
        vcd.commit()?;
    }
    Ok(())
}
