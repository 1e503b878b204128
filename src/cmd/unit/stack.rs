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

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use pws_hdl::reconvergence::{DualPathStack, PdomStack};
use pws_sim::Driver;
use pws_verify::units::reconvergence::{rtl, DpeEntry, Op, PathSlot, Side, SpeEntry, Status};
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

struct Line {
    number: usize,
    text: String,
    side: Side,
    op: Op,
}

fn number(token: &str) -> Result<u64, String> {
    let parsed = match token.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => token.parse(),
    };
    parsed.map_err(|_| format!("`{token}` is not a number"))
}

fn pc(token: &str) -> Result<u32, String> {
    u32::try_from(number(token)?).map_err(|_| format!("PC `{token}` does not fit in 32 bits"))
}

fn mask(token: &str) -> Result<u64, String> {
    let hex = token.trim_start_matches("0x").replace('_', "");
    u64::from_str_radix(&hex, 16).map_err(|_| format!("mask `{token}` is not a 64-bit hex number"))
}

fn parse_line(tokens: &[&str], kind: Kind) -> Result<(Side, Op), String> {
    let (word, rest) = tokens.split_first().expect("blank lines are skipped");
    let (side, args) = match (*word, kind, rest.first()) {
        ("advance" | "branch", Kind::Dual, Some(&"l")) => (Side::L, &rest[1..]),
        ("advance" | "branch", Kind::Dual, Some(&"r")) => (Side::R, &rest[1..]),
        ("advance" | "branch", Kind::Dual, _) => {
            return Err(format!(
                "`{word}` on the dual-path stack needs a path, l or r"
            ))
        }
        _ => (Side::L, rest),
    };
    let op = match (*word, args) {
        ("nop", []) => Op::Nop,
        ("init", [p, end, m]) => Op::Init {
            pc: pc(p)?,
            end: pc(end)?,
            mask: mask(m)?,
        },
        ("advance", [p]) => Op::Advance { pc: pc(p)? },
        ("branch", [target, fall_through, taken, ipdom]) => Op::Branch {
            target: pc(target)?,
            fall_through: pc(fall_through)?,
            taken: mask(taken)?,
            ipdom: pc(ipdom)?,
        },
        ("nop" | "init" | "advance" | "branch", _) => {
            return Err(format!("wrong number of operands for `{word}`"))
        }
        _ => return Err(format!("unknown operation `{word}`")),
    };
    Ok((side, op))
}

fn parse(source: &str, kind: Kind) -> Result<Vec<Line>, (usize, String)> {
    let mut lines = Vec::new();
    for (i, raw) in source.lines().enumerate() {
        let text = raw.split('#').next().unwrap_or("").trim();
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let (side, op) = parse_line(&tokens, kind).map_err(|e| (i + 1, e))?;
        lines.push(Line {
            number: i + 1,
            text: text.to_string(),
            side,
            op,
        });
    }
    Ok(lines)
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
    let source = std::fs::read_to_string(&args.script)
        .map_err(|e| format!("{}: {e}", args.script.display()))?;
    let lines = parse(&source, args.kind)
        .map_err(|(line, msg)| format!("{}:{line}: {msg}", args.script.display()))?;
    let vcd = match &args.vcd {
        Some(path) => {
            let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Some(BufWriter::new(file))
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
        let (status, entries, texts) = stack.apply(line.side, line.op)?;
        max_depth = max_depth.max(entries.len());
        if args.json {
            steps.push(json!({
                "line": line.number,
                "op": line.text,
                "status": status_name(status),
                "depth": entries.len(),
                "stack": entries,
            }));
        } else {
            println!(
                "{:>4}: {:<36} {:<12} [{}]",
                line.number,
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
    Ok(())
}
