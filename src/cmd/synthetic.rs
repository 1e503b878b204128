//! `pws synthetic --out DIR`: writes the PWS paper's synthetic benchmark with the given knobs
//! (`pws_verify::synthetic`) as an OpenCL C kernel, its launch manifest, its input and its
//! expected outputs, ready for `pws compare`, `pws wcet` and `pws eval`.

use std::path::PathBuf;

use pws_verify::synthetic::Synthetic;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Directory to write synthetic.cl, synthetic.toml and the data files into.
    #[arg(long)]
    out: PathBuf,
    /// Levels of nested if/else on the work-item id (0..=6; 6 gives every lane its own path).
    #[arg(long, default_value_t = 6)]
    depth: u32,
    /// Share of the instructions in the divergent leaves, in percent.
    #[arg(long, default_value_t = 100)]
    divergent: u32,
    /// Share of memory instructions among the divergent ones, in percent.
    #[arg(long, default_value_t = 0)]
    memory: u32,
    /// Share of memory instructions among the non-divergent ones, in percent.
    #[arg(long, default_value_t = 25)]
    uniform_memory: u32,
    /// Instructions per work-item and loop trip, conditionals excluded.
    #[arg(long, default_value_t = 32)]
    instructions: u32,
    /// Trips of the (uniform, bounded) loop around the body.
    #[arg(long, default_value_t = 1)]
    loops: u32,
    /// Nesting levels whose conditionals carry PWS_SPLIT() (log2(S + 1) matches S SpSIMDs).
    #[arg(long, default_value_t = 1)]
    split_levels: u32,
    /// Work-items (whole wavefronts of 64).
    #[arg(long, default_value_t = 64)]
    grid: u32,
}

pub fn run(args: Args) -> CmdResult {
    let k = Synthetic {
        depth: args.depth,
        divergent_pct: args.divergent,
        memory_pct: args.memory,
        uniform_memory_pct: args.uniform_memory,
        instructions: args.instructions,
        loops: args.loops,
        split_levels: args.split_levels,
        grid: args.grid,
    };
    let manifest = pws_verify::synthetic::write(&k, &args.out)?;
    println!("wrote {}", manifest.display());
    Ok(())
}
