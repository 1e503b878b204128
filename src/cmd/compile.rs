//! `pws compile`: split and merge insertion on a GCN3 kernel (pws_host::compile; docs/wcet.md).

use std::path::PathBuf;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// The kernel (.s).
    input: PathBuf,
    /// Where to write the transformed kernel.
    #[arg(short, long)]
    output: PathBuf,
    /// Split at every divergent branch, not only the marked ones.
    #[arg(long)]
    split_all: bool,
    /// Print what changed as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let text = std::fs::read_to_string(&args.input)
        .map_err(|e| format!("{}: {e}", args.input.display()))?;
    let file = args.input.display().to_string();
    let c = pws_host::compile::compile(&text, &file, args.split_all)?;
    for n in &c.notes {
        eprintln!("{file}:{}: note: {}", n.line, n.message);
    }
    std::fs::write(&args.output, &c.text).map_err(|e| format!("{}: {e}", args.output.display()))?;
    if args.json {
        let summary = serde_json::json!({
            "split_points": c.split_points,
            "inserted_splits": c.inserted_splits,
            "inserted_merges": c.inserted_merges,
            "removed_splits": c.removed_splits,
            "removed_merges": c.removed_merges,
            "skipped": c.skipped,
            "notes": c.notes.iter().map(|n| serde_json::json!({"line": n.line, "message": n.message})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{}: {} split point(s) [{}]; inserted {} split, {} merge; removed {} redundant split, {} redundant merge",
            args.output.display(),
            c.split_points.len(),
            c.split_points.join(", "),
            c.inserted_splits,
            c.inserted_merges,
            c.removed_splits,
            c.removed_merges
        );
        for s in &c.skipped {
            println!(
                "left serialized: {} (line {}): {}",
                s.branch, s.line, s.detail
            );
        }
    }
    Ok(())
}
