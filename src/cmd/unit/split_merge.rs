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

use std::path::PathBuf;

use pws_hdl::config::{HwConfig, PRESETS};
use pws_hdl::split_merge::{sgprs_copied, split_cycles, MERGE_CYCLES};
use pws_verify::units::script::{self, Line};
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

pub fn run(args: Args) -> CmdResult {
    let mut cfg = HwConfig::preset(&args.config).ok_or_else(|| {
        format!(
            "unknown preset `{}` (known: {})",
            args.config,
            PRESETS.join(", ")
        )
    })?;
    if let Some(s) = args.s {
        cfg = cfg.with_spsimds(crate::cmd::spsimds(s, 1..=pws_hdl::config::MAX_SPSIMDS)?);
    }
    let source = pws_isa::input::read_text(&args.script, pws_isa::input::Kind::UnitScript)?;
    let ops = script::split_merge(&source, &cfg)
        .map_err(|e| format!("{}:{e}", pws_isa::diag::path(&args.script)))?;
    let mut staged = None;
    let mut rtl = match &args.vcd {
        Some(path) => {
            let (out, writer) = crate::cmd::vcd_output(path, &[&args.script])?;
            staged = Some(out);
            SplitMergeRtl::with_vcd(&cfg, writer)?
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
        let (outcome, cycles) = rtl.apply(op.op)?;
        let views = rtl.views()?;
        // SGPRs an allocating split copied (the others do not copy).
        let copied = match op.op {
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
    // Dropping the simulation flushes the trace; then it replaces the target.
    drop(rtl);
    if let Some(vcd) = staged {
        vcd.commit()?;
    }
    Ok(())
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
    op: &Line<Request>,
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
