//! The host parts of `pws bench`: generated CFGs of growing size, with and without loops, as
//! the DOT files a user would hand to `pws wcet`, generated kernels of clang's `if`/`else`
//! shapes for the split pass (`pws compile`), and the tables of the commands' run time (the
//! commands themselves are timed by the CLI, which runs its own binary on these files).

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

/// How clang-14 leaves a short `if`/`else` for the split pass ([`crate::extract::skips`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IfShape {
    /// -O2: both skip branches dropped, a kernel argument's load scheduled inside the else's
    /// EXEC flip.
    O2,
    /// -O3: the else's flip block copied into the end of the then-side.
    O3,
}

/// A kernel of `regions` divergent `if`/`else`, one after another, each marked to split, in
/// `shape`: the input of the split-pass table.
pub fn bench_kernel(regions: usize, shape: IfShape) -> String {
    let mut s = String::from("k:\n");
    for i in 0..regions {
        let _ = writeln!(s, "  v_cmp_eq_u32_e32 vcc, {}, v1\n  ; pws: split", i % 60);
        match shape {
            IfShape::O2 => {
                let _ = write!(
                    s,
                    "  s_and_saveexec_b64 s[0:1], vcc
  s_xor_b64 s[0:1], exec, s[0:1]
  v_mul_lo_u32 v0, v0, 15
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_load_dword s6, s[4:5], 0x10
  s_xor_b64 exec, exec, s[0:1]
  v_mul_lo_u32 v0, v0, 9
  s_or_b64 exec, exec, s[0:1]
"
                );
            }
            IfShape::O3 => {
                let _ = write!(
                    s,
                    "  s_and_saveexec_b64 s[0:1], vcc
  s_xor_b64 s[0:1], exec, s[0:1]
  s_cbranch_execnz .LT{i}
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_xor_b64 exec, exec, s[0:1]
  s_cbranch_execz .LJ{i}
  s_branch .LE{i}
.LT{i}:
  v_mul_lo_u32 v0, v0, 15
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_xor_b64 exec, exec, s[0:1]
  s_cbranch_execz .LJ{i}
.LE{i}:
  v_mul_lo_u32 v0, v0, 9
.LJ{i}:
  s_or_b64 exec, exec, s[0:1]
"
                );
            }
        }
    }
    s.push_str("  s_endpgm\n");
    s
}

/// One row of the split-pass table: `pws compile` on one generated kernel, end to end.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CompileRow {
    pub shape: IfShape,
    pub regions: usize,
    pub lines: usize,
    /// Wall-clock and CPU seconds of the whole command (best of the runs).
    pub seconds: f64,
    pub cpu_seconds: f64,
    pub runs: usize,
}

/// The table `pws bench --only compile` prints.
pub fn format_compile(command: &str, rows: &[CompileRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "`{command}` end to end (assemble, skip branches put back, regions, split/merge written); best of the runs"
    );
    let _ = writeln!(
        s,
        "{:>6} {:>8} {:>8} {:>9} {:>9} {:>14}",
        "shape", "regions", "lines", "seconds", "CPU s", "CPU µs/region"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:>6} {:>8} {:>8} {:>9.3} {:>9.3} {:>14.2}",
            format!("{:?}", r.shape).to_lowercase(),
            r.regions,
            r.lines,
            r.seconds,
            r.cpu_seconds,
            r.cpu_seconds * 1e6 / r.regions as f64
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_of_a_bench_kernel_splits() {
        for shape in [IfShape::O2, IfShape::O3] {
            let c = crate::compile::compile(
                &bench_kernel(3, shape),
                "k.s",
                crate::compile::SplitPolicy::Marked,
            )
            .unwrap();
            assert_eq!(c.split_points.len(), 3, "{shape:?}: {:?}", c.skipped);
            let restored = if shape == IfShape::O2 { 6 } else { 3 };
            assert_eq!(c.restored_branches, restored, "{shape:?}");
        }
    }
}
