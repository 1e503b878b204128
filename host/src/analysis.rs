//! The whole WCET analysis of one kernel CFG: no-split, DWS and PWS bounds per wavefront
//! (Lemma 5.1, [P] §7's DWS reading) and per kernel (Lemmas 5.5, 5.7), with the evidence a user
//! needs to check them: SB, E_r, per-block counts of the worst-case paths.
//!
//! Every IPET value is computed twice, by the verified ILP and by the structural recursion
//! (Prune's F / longest path); a disagreement is reported as an error rather than hidden.

use std::time::Duration;

use serde::Serialize;

use crate::cfg::{BlockKind, BsbCfg};
use crate::error::{HostError, Result};
use crate::ipet::{IpetMethod, IpetSolution, IpetSystem};
use crate::kernel::{dispatch_steps, e_kernel_dws, e_kernel_pws, g_parallel, GpuConfig, Launch};
use crate::prune::prune;
use crate::select::{select, simd_total};

/// Inputs of the kernel-level formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub gpu: GpuConfig,
    pub launch: Launch,
    /// Forces DS for all three modes (the paper's Table 2 sets DS = 1).
    pub ds: Option<u64>,
}

/// A value per execution mode (design.md decision 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PerMode {
    pub nosplit: u64,
    pub dws: u64,
    pub pws: u64,
}

/// One block's line in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockRow {
    pub name: String,
    pub kind: BlockKind,
    pub wcet: u64,
    /// Executions on the unsplit worst-case path.
    pub count_nosplit: u64,
    /// Executions on the worst-case path of the pruned CFG (the slowest split wavefront).
    pub count_pws: u64,
}

/// Everything `pws wcet` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WcetReport {
    /// Kernel-level WCETs (cycles).
    pub nosplit: u64,
    pub dws: u64,
    pub pws: u64,
    /// Wavefront-level WCETs E_WF.
    pub e_wf: PerMode,
    /// IPET(C) (no-split, DWS) and IPET(C_out) (PWS), before split/merge costs.
    pub ipet: PerMode,
    /// SB in topological order.
    pub selected: Vec<String>,
    /// E_r, as `[from, to]`.
    pub removed_edges: Vec<[String; 2]>,
    /// Peak live split contexts (Select's `count`).
    pub count: u64,
    /// Split/merge cycles added to E_WF (|SB|·(e_s + e_m) on loop-free CFGs).
    pub split_merge: PerMode,
    pub ds: PerMode,
    pub g_parallel: PerMode,
    /// SIMDs per CU after re-provisioning ([P] Eq 2); N_SIMD for the baselines.
    pub n_simd_total: PerMode,
    pub s: u64,
    pub d: u64,
    pub e_s: u64,
    pub e_m: u64,
    pub ipet_method: IpetMethod,
    pub blocks: Vec<BlockRow>,
}

/// The report plus what only the drawing and the benchmarks need.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub report: WcetReport,
    pub removed: Vec<(usize, usize)>,
    pub selected: Vec<usize>,
    pub pws_solution: IpetSolution,
    pub nosplit_solution: IpetSolution,
    pub ilp_time: Duration,
}

fn to_u64(v: u128, what: &str) -> Result<u64> {
    u64::try_from(v)
        .map_err(|_| HostError::Structure(format!("{what} exceeds 64 bits ({v} cycles)")))
}

fn solve_checked(
    g: &BsbCfg,
    removed: &[(usize, usize)],
    structural: u128,
    what: &str,
) -> Result<IpetSolution> {
    let sys = IpetSystem::new(g, removed)?;
    let mut sol = sys.solve()?;
    if sol.method == IpetMethod::Ilp && u128::from(sol.wcet) < structural {
        // The structural path is a feasible flow, so this integer answer is not optimal
        // (microlp keeps integer variables within i32): the relaxation is still a safe bound.
        sol = sys.solve_relaxation()?;
    }
    let agrees = match sol.method {
        IpetMethod::Ilp => u128::from(sol.wcet) == structural,
        IpetMethod::LpRelaxation => u128::from(sol.wcet) >= structural,
    };
    if !agrees {
        return Err(HostError::Solver(format!(
            "{what}: the ILP optimum {} disagrees with the structural longest path {structural}",
            sol.wcet
        )));
    }
    Ok(sol)
}

/// Runs Select, Prune, IPET and the lemmas. `marked` is the set P (indexed by node).
pub fn analyse(g: &BsbCfg, marked: &[bool], p: &Params) -> Result<Analysis> {
    let gpu = &p.gpu;
    gpu.check()?;
    let n = g.len();
    let e_sm = u128::from(gpu.e_s) + u128::from(gpu.e_m);

    let unsplit = prune(g, &vec![false; n]);
    let nosplit_solution = solve_checked(g, &[], unsplit.wcet, "no-split IPET")?;
    let ipet_c = u128::from(nosplit_solution.wcet);

    let sel = select(g, marked, gpu.s);
    let pruned = prune(g, &sel.mask(n));
    let pws_solution = solve_checked(g, &pruned.removed, pruned.wcet, "PWS IPET")?;
    let ipet_out = u128::from(pws_solution.wcet);

    // A split inside a loop runs once per iteration: charge it as often as it can execute.
    let pws_charge: u128 = sel
        .selected
        .iter()
        .map(|&u| u128::from(g.multiplicity(u)) * e_sm)
        .sum();
    let branch_mult = g.branches().map(|u| g.multiplicity(u)).max().unwrap_or(1);
    let dws_charge = u128::from(gpu.s) * e_sm * u128::from(branch_mult);

    let e_wf = PerMode {
        nosplit: to_u64(ipet_c, "E_WF")?,
        dws: to_u64(ipet_c + dws_charge, "E_WF")?,
        pws: to_u64(ipet_out + pws_charge, "E_WF")?,
    };
    let n_simd_total = PerMode {
        nosplit: gpu.n_simd,
        dws: gpu.n_simd,
        pws: simd_total(gpu.n_simd, gpu.s, sel.count),
    };
    let g_par = PerMode {
        nosplit: g_parallel(gpu, n_simd_total.nosplit, &p.launch)?,
        dws: g_parallel(gpu, n_simd_total.dws, &p.launch)?,
        pws: g_parallel(gpu, n_simd_total.pws, &p.launch)?,
    };
    let ds = match p.ds {
        Some(ds) => PerMode {
            nosplit: ds,
            dws: ds,
            pws: ds,
        },
        None => PerMode {
            nosplit: dispatch_steps(p.launch.groups, g_par.nosplit),
            dws: dispatch_steps(p.launch.groups, g_par.dws),
            pws: dispatch_steps(p.launch.groups, g_par.pws),
        },
    };

    let blocks = (0..n)
        .map(|v| BlockRow {
            name: g.name(v).to_string(),
            kind: g.block(v).kind,
            wcet: g.wcet(v),
            count_nosplit: nosplit_solution.block_counts.get(v).copied().unwrap_or(0),
            count_pws: pws_solution.block_counts.get(v).copied().unwrap_or(0),
        })
        .collect();
    let method =
        if nosplit_solution.method == IpetMethod::Ilp && pws_solution.method == IpetMethod::Ilp {
            IpetMethod::Ilp
        } else {
            IpetMethod::LpRelaxation
        };
    let report = WcetReport {
        nosplit: to_u64(e_kernel_pws(ds.nosplit, gpu.d, e_wf.nosplit), "E_kernel")?,
        dws: to_u64(e_kernel_dws(ds.dws, gpu.d, gpu.s, e_wf.dws), "E_kernel")?,
        pws: to_u64(e_kernel_pws(ds.pws, gpu.d, e_wf.pws), "E_kernel")?,
        e_wf,
        ipet: PerMode {
            nosplit: e_wf.nosplit,
            dws: e_wf.nosplit,
            pws: to_u64(ipet_out, "IPET")?,
        },
        selected: sel
            .selected
            .iter()
            .map(|&u| g.name(u).to_string())
            .collect(),
        removed_edges: pruned
            .removed
            .iter()
            .map(|&(u, v)| [g.name(u).to_string(), g.name(v).to_string()])
            .collect(),
        count: sel.count,
        split_merge: PerMode {
            nosplit: 0,
            dws: to_u64(dws_charge, "split/merge cost")?,
            pws: to_u64(pws_charge, "split/merge cost")?,
        },
        ds,
        g_parallel: g_par,
        n_simd_total,
        s: gpu.s,
        d: gpu.d,
        e_s: gpu.e_s,
        e_m: gpu.e_m,
        ipet_method: method,
        blocks,
    };
    let ilp_time = nosplit_solution.solve_time + pws_solution.solve_time;
    Ok(Analysis {
        report,
        removed: pruned.removed,
        selected: sel.selected,
        pws_solution,
        nosplit_solution,
        ilp_time,
    })
}
