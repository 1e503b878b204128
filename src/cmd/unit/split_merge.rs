//! `pws unit split-merge SCRIPT`: drives the split/merge RTL (`pws_hdl::split_merge`) with a
//! script of launch/split/merge operations and prints every context after each step.
//!
//! Script format (docs/rtl-units.md), one operation per line, `#` starts a comment:
//!
//! ```text
//! launch [EXEC] [SGPRS]  start the wavefront on context 0 (EXEC hex, default all lanes) with
//!                        SGPRS scalar registers allocated (decimal or 0x hex, 0..=127; default
//!                        0 = the whole SRF): every split of this wavefront copies that many
//! split CTX MASK [PC]    context CTX executes `split` with M = MASK (hex); new SWF starts at PC
//! merge CTX              context CTX reaches `merge`
//! end                    the wavefront ends (`s_endpgm` on context 0) and frees its slot
//! sgpr CTX REG VALUE     the scalar unit writes SGPR REG of context CTX
//! ```

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use pws_hdl::config::SGPR_ADDR_BITS;
use pws_hdl::config::{HwConfig, PRESETS};
use pws_hdl::split_merge::{sgprs_copied, split_cycles, MERGE_CYCLES};
use pws_verify::units::split_merge::rtl::SplitMergeRtl;
use pws_verify::units::split_merge::{ContextView, Outcome, Request, RunState};
use serde_json::json;

use crate::cmd::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Script of operations (see docs/rtl-units.md).
    script: PathBuf,
    /// SpSIMDs per SIMD (S, 1..=7); overrides the preset's.
    #[arg(long = "S", value_name = "N")]
    s: Option<usize>,
    /// Hardware preset: gcn3, small or figure5.
    #[arg(long, default_value = "small")]
    config: String,
    /// Write a VCD waveform of the unit to this file.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// One parsed script line.
struct Op {
    line: usize,
    text: String,
    request: Request,
}

pub fn run(args: Args) -> CmdResult {
    let mut cfg = HwConfig::preset(&args.config).ok_or_else(|| {
        format!(
            "unknown preset `{}` (known: {})",
            args.config,
            PRESETS.join(", ")
        )
    })?;
    if let Some(s) = args.s {
        cfg = cfg.with_spsimds(s);
    }
    let source = std::fs::read_to_string(&args.script)
        .map_err(|e| format!("{}: {e}", args.script.display()))?;
    let ops = parse(&source, &cfg)
        .map_err(|(line, msg)| format!("{}:{line}: {msg}", args.script.display()))?;
    let mut rtl = match &args.vcd {
        Some(path) => {
            let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            SplitMergeRtl::with_vcd(&cfg, BufWriter::new(file))?
        }
        None => SplitMergeRtl::new(&cfg)?,
    };

    let mut steps = Vec::new();
    if !args.json {
        println!(
            "split/merge datapath: S = {}, {} lanes, {} SGPRs per context copied {} per cycle; \
             e_s = ceil(n / {}) + 2 cycles for n SGPRs (e_s = {} cycles for all {}), e_m = {} cycle",
            cfg.spsimds_per_simd,
            cfg.wavefront_width,
            cfg.sgprs_per_context,
            cfg.srf_copy_width,
            cfg.srf_copy_width,
            split_cycles(&cfg, cfg.sgprs_per_context),
            cfg.sgprs_per_context,
            MERGE_CYCLES
        );
    }
    for op in &ops {
        let (outcome, cycles) = rtl.apply(op.request)?;
        let views = rtl.views()?;
        // SGPRs an allocating split copied (the others do not copy).
        let copied = match op.request {
            Request::Split { sgprs, .. } if outcome == Outcome::Ok => {
                Some(sgprs_copied(&cfg, sgprs))
            }
            _ => None,
        };
        if args.json {
            steps.push(json!({
                "line": op.line,
                "op": op.text,
                "outcome": outcome.name(),
                "error": outcome.is_error(),
                "cycles": cycles,
                "sgprs_copied": copied,
                "contexts": views.iter().enumerate().map(|(k, v)| context_json(k, v)).collect::<Vec<_>>(),
            }));
        } else {
            print_step(op, outcome, cycles, copied, &views, cfg.wavefront_width);
        }
    }
    if args.json {
        let out = json!({
            "spsimds": cfg.spsimds_per_simd,
            "wavefront_width": cfg.wavefront_width,
            "sgprs_per_context": cfg.sgprs_per_context,
            "srf_copy_width": cfg.srf_copy_width,
            "e_s": split_cycles(&cfg, cfg.sgprs_per_context),
            "e_m": MERGE_CYCLES,
            "cycles": rtl.cycles(),
            "no_free_context_splits": rtl.no_free_count(),
            "steps": steps,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{} cycles, {} split(s) found no free context",
            rtl.cycles(),
            rtl.no_free_count()
        );
    }
    Ok(())
}

fn parse(source: &str, cfg: &HwConfig) -> Result<Vec<Op>, (usize, String)> {
    let mut ops = Vec::new();
    // The running wavefront's SGPR allocation, which every split request carries.
    let mut sgprs = 0;
    for (i, raw) in source.lines().enumerate() {
        let line = i + 1;
        let text = raw.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        let err = |msg: String| (line, msg);
        let arity = |min: usize, max: usize, usage: &str| {
            if words.len() < min + 1 || words.len() > max + 1 {
                Err(err(format!("usage: {usage}")))
            } else {
                Ok(())
            }
        };
        let request = match words[0] {
            "launch" => {
                arity(0, 2, "launch [EXEC] [SGPRS]")?;
                let exec = match words.get(1) {
                    Some(w) => hex(w).map_err(err)?,
                    None => cfg.lane_mask(),
                };
                sgprs = match words.get(2) {
                    Some(w) => sgpr_count(w).map_err(err)?,
                    None => 0,
                };
                Request::Launch { exec, pc: 0 }
            }
            "split" => {
                arity(2, 3, "split CTX MASK [PC]")?;
                let pc = match words.get(3) {
                    Some(w) => u32::try_from(number(w).map_err(err)?)
                        .map_err(|_| err(format!("PC `{w}` does not fit 32 bits")))?,
                    None => 0,
                };
                Request::Split {
                    ctx: context(words[1]).map_err(err)?,
                    mask: hex(words[2]).map_err(err)?,
                    pc,
                    sgprs,
                }
            }
            "merge" => {
                arity(1, 1, "merge CTX")?;
                Request::Merge {
                    ctx: context(words[1]).map_err(err)?,
                }
            }
            "end" => {
                arity(0, 0, "end")?;
                Request::End
            }
            "sgpr" => {
                arity(3, 3, "sgpr CTX REG VALUE")?;
                let ctx = context(words[1]).map_err(err)?;
                if ctx > cfg.spsimds_per_simd {
                    return Err(err(format!(
                        "context {ctx} does not exist (S = {})",
                        cfg.spsimds_per_simd
                    )));
                }
                let reg = number(words[2]).map_err(err)? as usize;
                if reg >= cfg.sgprs_per_context {
                    return Err(err(format!(
                        "SGPR {reg} is out of range 0..{}",
                        cfg.sgprs_per_context
                    )));
                }
                let value = u32::try_from(number(words[3]).map_err(err)?)
                    .map_err(|_| err(format!("value `{}` does not fit 32 bits", words[3])))?;
                Request::WriteSgpr { ctx, reg, value }
            }
            other => {
                return Err(err(format!(
                    "unknown operation `{other}` (launch, split, merge, end, sgpr)"
                )))
            }
        };
        ops.push(Op {
            line,
            text: text.to_string(),
            request,
        });
    }
    Ok(ops)
}

/// A context number: 0 = the WF context, 1..=7 = SpSIMD k (numbers above S reach the hardware,
/// which rejects them).
fn context(word: &str) -> Result<usize, String> {
    match word.parse::<usize>() {
        Ok(k) if k <= 7 => Ok(k),
        _ => Err(format!("context `{word}` is not a number in 0..=7")),
    }
}

/// An SGPR allocation: it must fit the 7-bit count port; 0 and counts above the SRF size mean
/// the whole SRF.
fn sgpr_count(word: &str) -> Result<usize, String> {
    let limit = (1u64 << SGPR_ADDR_BITS) - 1;
    match number(word)? {
        n if n <= limit => Ok(n as usize),
        n => Err(format!(
            "SGPR count {n} does not fit the split request (0..={limit})"
        )),
    }
}

/// A mask: hexadecimal, with or without `0x`, `_` allowed.
fn hex(word: &str) -> Result<u64, String> {
    let digits = word.trim_start_matches("0x").replace('_', "");
    u64::from_str_radix(&digits, 16)
        .map_err(|_| format!("mask `{word}` is not a 64-bit hex number"))
}

/// A decimal number or a `0x` hexadecimal one.
fn number(word: &str) -> Result<u64, String> {
    let parsed = match word.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => word.parse(),
    };
    parsed.map_err(|_| format!("`{word}` is not a number"))
}

fn stack_text(v: &ContextView) -> String {
    let entries: Vec<String> = v.stack.iter().map(ToString::to_string).collect();
    format!("[{}]", entries.join(" "))
}

fn where_text(k: usize) -> String {
    if k == 0 {
        "SIMD".to_string()
    } else {
        format!("SpSIMD {k}")
    }
}

fn print_step(
    op: &Op,
    outcome: Outcome,
    cycles: u64,
    copied: Option<usize>,
    views: &[ContextView],
    width: usize,
) {
    let digits = width.div_ceil(4);
    let marker = if outcome.is_error() { " (error)" } else { "" };
    let copy = copied.map_or(String::new(), |n| format!(", {n} SGPR(s) copied"));
    println!(
        "line {}: {} -> {outcome}{marker}, {cycles} cycle(s){copy}",
        op.line, op.text
    );
    println!(
        "  {:<4} {:<9} {:<8} {:<6} {:<w$}  {:<w$}  stack",
        "ctx",
        "on",
        "state",
        "parent",
        "SpM",
        "EXEC",
        w = digits + 2
    );
    for (k, v) in views.iter().enumerate() {
        if v.state == RunState::Free {
            println!("  {k:<4} {:<9} free", where_text(k));
            continue;
        }
        let parent = v.parent.map_or("-".to_string(), |p| p.to_string());
        println!(
            "  {k:<4} {:<9} {:<8} {parent:<6} 0x{:0digits$x}  0x{:0digits$x}  {}",
            where_text(k),
            v.state.name(),
            v.spm,
            v.exec,
            stack_text(v),
        );
    }
}

fn context_json(k: usize, v: &ContextView) -> serde_json::Value {
    json!({
        "ctx": k,
        "state": v.state.name(),
        "parent": v.parent,
        "spm": format!("0x{:x}", v.spm),
        "exec": format!("0x{:x}", v.exec),
        "pc": v.pc,
        "stack": v.stack.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}
