//! `pws compile`: split and merge insertion on a GCN3 kernel, or on the assembly clang-14 makes of
//! an OpenCL C one (pws_host::compile; docs/wcet.md).

use std::path::PathBuf;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// The kernel: GCN3 assembly (.s), or OpenCL C (.cl), compiled by clang-14 first.
    input: PathBuf,
    #[command(flatten)]
    cl: super::ClArgs,
    /// Where to write the transformed kernel (atomically: the file is replaced whole or not at
    /// all; it may not be the input).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    split: super::SplitArgs,
    /// Print what changed as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    // Refused before any work: `-o` naming the input would replace the kernel being read.
    pws_isa::output::check_not_input(&args.output, &[&args.input])?;
    let asm = args.cl.assembly(&args.input, "compile")?;
    pws_isa::output::check_not_input(&args.output, &[&asm])?;
    let text = pws_isa::input::read_text(&asm, pws_isa::input::Kind::Assembly)?;
    let file = asm.display().to_string();
    let repaired = pws_host::reducible::repair(&text, &file)?;
    for n in &repaired.notes {
        eprintln!("warning: {n}");
    }
    let c = pws_host::compile::compile(&repaired.text, &file, args.split.policy())?;
    for n in &c.notes {
        eprintln!("{file}:{}: note: {}", n.line, n.message);
    }
    pws_isa::output::write(&args.output, c.text.as_bytes(), &[&args.input, &asm])?;
    if args.json {
        let summary = serde_json::json!({
            "split_points": c.split_points,
            "inserted_splits": c.inserted_splits,
            "inserted_merges": c.inserted_merges,
            "restored_branches": c.restored_branches,
            "removed_splits": c.removed_splits,
            "removed_merges": c.removed_merges,
            "skipped": c.skipped,
            "notes": c.notes.iter().map(|n| serde_json::json!({"line": n.line, "message": n.message})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{}: {} split point(s) [{}]; inserted {} split, {} merge; restored {} skip branch(es) LLVM had removed; removed {} redundant split, {} redundant merge",
            args.output.display(),
            c.split_points.len(),
            c.split_points.join(", "),
            c.inserted_splits,
            c.inserted_merges,
            c.restored_branches,
            c.removed_splits,
            c.removed_merges
        );
        for s in &c.skipped {
            println!(
                "left serialized: {} ({file}:{}): {}",
                s.branch, s.line, s.detail
            );
        }
    }
    Ok(())
}
