//! Analysis speed for `make bench`: Select + Prune + the WCET formulas on generated structured
//! CFGs of growing size (the algorithms are O(|V|), so time per node should stay flat), and the
//! IPET ILP solve time on CFGs with loops, reported separately because it is not linear.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::analysis::{analyse, Params};
use crate::cfg::BsbCfg;
use crate::error::Result;
use crate::gen::{random_cfg, GenOptions};
use crate::ipet::IpetSystem;
use crate::kernel::{e_kernel_pws, GpuConfig, Launch};
use crate::prune::prune;
use crate::select::select;

/// One size of the linear-scaling table.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleRow {
    pub nodes: usize,
    pub branches: usize,
    /// Checking the CFG and deriving its structure (dominators, numbering, loops).
    pub structure: Duration,
    /// Select + Prune + Lemma 5.1/5.5 on the structured CFG (best of the repetitions).
    pub select_prune_wcet: Duration,
    pub repetitions: usize,
}

/// One CFG of the ILP table.
#[derive(Debug, Clone, PartialEq)]
pub struct IlpRow {
    pub nodes: usize,
    pub loops: usize,
    pub variables: usize,
    pub constraints: usize,
    /// Both IPET solves of [`analyse`] (no-split and pruned), including verification.
    pub solve: Duration,
}

fn gen(nodes: usize, loops: bool) -> Result<BsbCfg> {
    let opts = GenOptions {
        nodes,
        loops,
        max_depth: 8,
        ..GenOptions::default()
    };
    BsbCfg::new(random_cfg(0x5eed ^ nodes as u64, &opts))
}

/// Times Select + Prune + WCET for each size (loop-free CFGs, S = 2).
pub fn scaling(sizes: &[usize]) -> Result<Vec<ScaleRow>> {
    let gpu = GpuConfig::default();
    let mut rows = Vec::new();
    for &n in sizes {
        let t = Instant::now();
        let g = gen(n, false)?;
        let structure = t.elapsed();
        let marked: Vec<bool> = (0..g.len()).map(|v| g.block(v).split).collect();
        let repetitions = (2_000_000 / n.max(1)).clamp(3, 200);
        let mut best = Duration::MAX;
        let mut checksum = 0u128;
        for _ in 0..repetitions {
            let t = Instant::now();
            let sel = select(&g, &marked, gpu.s);
            let pr = prune(&g, &sel.mask(g.len()));
            let e_wf = pr.wcet + sel.selected.len() as u128 * u128::from(gpu.e_s + gpu.e_m);
            checksum = checksum.wrapping_add(e_kernel_pws(
                1,
                gpu.d,
                u64::try_from(e_wf).unwrap_or(u64::MAX),
            ));
            best = best.min(t.elapsed());
        }
        std::hint::black_box(checksum);
        rows.push(ScaleRow {
            nodes: g.len(),
            branches: g.branches().count(),
            structure,
            select_prune_wcet: best,
            repetitions,
        });
    }
    Ok(rows)
}

/// Times the verified IPET ILPs of [`analyse`] on CFGs with loops.
pub fn ilp(sizes: &[usize]) -> Result<Vec<IlpRow>> {
    let params = Params {
        gpu: GpuConfig::default(),
        launch: Launch {
            groups: 1,
            wg_size: 64,
        },
        ds: None,
    };
    let mut rows = Vec::new();
    for &n in sizes {
        let g = gen(n, true)?;
        let marked: Vec<bool> = (0..g.len()).map(|v| g.block(v).split).collect();
        let sys = IpetSystem::new(&g, &[])?;
        let a = analyse(&g, &marked, &params)?;
        rows.push(IlpRow {
            nodes: g.len(),
            loops: g.loops().len(),
            variables: sys.vars.len(),
            constraints: sys.rows.len(),
            solve: a.ilp_time,
        });
    }
    Ok(rows)
}

/// The tables `make bench` prints (10^3, 10^4, 10^5 nodes for Select/Prune/WCET, 10^2 and
/// 10^3 nodes with loops for the ILP) as text.
pub fn format(scaling: &[ScaleRow], ilp: &[IlpRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "WCET analysis: Select + Prune + Lemma 5.1/5.5 on structured CFGs (S = 2)"
    );
    let _ = writeln!(
        s,
        "{:>8} {:>9} {:>14} {:>18} {:>12}",
        "nodes", "branches", "structure ms", "select+prune µs", "ns per node"
    );
    for r in scaling {
        let _ = writeln!(
            s,
            "{:>8} {:>9} {:>14.2} {:>18.1} {:>12.1}",
            r.nodes,
            r.branches,
            r.structure.as_secs_f64() * 1e3,
            r.select_prune_wcet.as_secs_f64() * 1e6,
            r.select_prune_wcet.as_secs_f64() * 1e9 / r.nodes as f64
        );
    }
    let _ = writeln!(
        s,
        "IPET ILP (microlp, verified; no-split + pruned) on CFGs with loops"
    );
    let _ = writeln!(
        s,
        "{:>8} {:>6} {:>10} {:>12} {:>10}",
        "nodes", "loops", "variables", "constraints", "solve ms"
    );
    for r in ilp {
        let _ = writeln!(
            s,
            "{:>8} {:>6} {:>10} {:>12} {:>10.1}",
            r.nodes,
            r.loops,
            r.variables,
            r.constraints,
            r.solve.as_secs_f64() * 1e3
        );
    }
    s
}
