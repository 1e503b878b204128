//! The WCET part of `pws bench`: generated CFGs of growing size, with and without loops, as
//! the DOT files a user would hand to `pws wcet`, and the table of the command's run time
//! (the command itself is timed by the CLI, which runs its own binary on these files).

use std::fmt::Write as _;

use crate::cfg::BsbCfg;
use crate::dot::write_cfg;
use crate::error::Result;
use crate::gen::{random_cfg, GenOptions};

/// One generated input.
#[derive(Debug, Clone)]
pub struct BenchCfg {
    pub nodes: usize,
    pub edges: usize,
    pub branches: usize,
    pub loops: usize,
    /// Deepest loop nesting.
    pub loop_depth: usize,
    /// The CFG as a DOT file.
    pub dot: String,
}

/// A structured CFG of about `nodes` nodes (divergent if/else regions with BSBs, 60 % of the
/// branches marked); with `loops`, also nested bounded loops with several latches and exits,
/// early returns and uniform branches, about one loop per 100 nodes.
pub fn bench_cfg(nodes: usize, loops: bool) -> Result<BenchCfg> {
    let opts = GenOptions {
        nodes,
        loops,
        irregular: loops,
        max_depth: if loops { 12 } else { 8 },
        max_bound: 16,
        ..GenOptions::default()
    };
    let cfg = random_cfg(0x5eed ^ nodes as u64 ^ u64::from(loops), &opts);
    let g = BsbCfg::new(cfg.clone())?;
    Ok(BenchCfg {
        nodes: g.len(),
        edges: cfg.edges.len(),
        branches: g.branches().count(),
        loops: g.loops().len(),
        loop_depth: g.loops().iter().map(|l| l.depth).max().unwrap_or(0),
        dot: write_cfg(&cfg),
    })
}

/// One row of the table: `pws wcet` on one input, end to end.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CommandRow {
    pub nodes: usize,
    pub edges: usize,
    pub branches: usize,
    pub loops: usize,
    pub loop_depth: usize,
    /// Wall-clock seconds of the whole command (best of the runs).
    pub seconds: f64,
    /// Its user + system CPU seconds (best of the runs): what the wall clock shows on an
    /// unloaded machine.
    pub cpu_seconds: f64,
    pub runs: usize,
}

/// The table `pws bench --only wcet` prints.
pub fn format(command: &str, rows: &[CommandRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "`{command}` end to end (parse, structure, Select, Prune, IPET verified, lemmas, JSON); best of the runs");
    let _ = writeln!(
        s,
        "{:>8} {:>8} {:>9} {:>6} {:>6} {:>9} {:>9} {:>12}",
        "nodes", "edges", "branches", "loops", "depth", "seconds", "CPU s", "CPU µs/node"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:>8} {:>8} {:>9} {:>6} {:>6} {:>9.3} {:>9.3} {:>12.2}",
            r.nodes,
            r.edges,
            r.branches,
            r.loops,
            r.loop_depth,
            r.seconds,
            r.cpu_seconds,
            r.cpu_seconds * 1e6 / r.nodes as f64
        );
    }
    s
}
