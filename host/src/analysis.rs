//! The whole WCET analysis of one kernel CFG: no-split, DWS and PWS bounds per wavefront
//! (Lemma 5.1, [P] §7's DWS reading) and per kernel (Lemmas 5.5, 5.7), with the evidence a user
//! needs to check them: SB, E_r, per-block counts of the worst-case paths.
//!
//! Every IPET value is the structural optimum ([`crate::structural`]) re-verified exactly
//! against the IPET system ([`crate::ipet::certify`]); Prune's F recursion must agree with it.
//! Whatever goes wrong in a solver or a check leaves a safe bound and a note in the report.
//! All numbers are exact integers (u128).

use std::time::Duration;

use serde::Serialize;

use crate::cfg::{BlockKind, BsbCfg, Role};
use crate::error::{HostError, Result};
use crate::ipet::{certify, multiplicity_bound, IpetMethod, IpetSolution, Solver};
use crate::kernel::{
    dispatch_steps, e_kernel_dws, e_kernel_pws, g_parallel, DwsBound, GpuConfig, Launch,
};
use crate::prune::prune;
use crate::select::{select, simd_total};

/// Inputs of the kernel-level formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub gpu: GpuConfig,
    pub launch: Launch,
    /// Forces DS for all three modes (the paper's Table 2 sets DS = 1).
    pub ds: Option<u64>,
    /// How IPET is solved.
    pub ipet: Solver,
    /// Which DWS bound E_kernel^DWS reports.
    pub dws: DwsBound,
}

impl Params {
    /// The paper's set-up: structural IPET, DWS by Lemma 5.7.
    pub fn new(gpu: GpuConfig, launch: Launch, ds: Option<u64>) -> Params {
        Params {
            gpu,
            launch,
            ds,
            ipet: Solver::default(),
            dws: DwsBound::Lemma57,
        }
    }
}

/// A value per execution mode (design.md decision 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PerMode<T = u128> {
    pub nosplit: T,
    pub dws: T,
    pub pws: T,
}

/// One block's line in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockRow {
    pub name: String,
    pub kind: BlockKind,
    pub wcet: u64,
    /// Executions on the unsplit worst-case path.
    pub count_nosplit: u128,
    /// Executions on the worst-case path of the pruned CFG (the slowest split wavefront).
    pub count_pws: u128,
}

/// Everything `pws wcet` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WcetReport {
    /// Kernel-level WCETs (cycles).
    pub nosplit: u128,
    pub dws: u128,
    pub pws: u128,
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
    pub ds: PerMode<u64>,
    pub g_parallel: PerMode<u64>,
    /// SIMDs per CU after re-provisioning ([P] Eq 2); N_SIMD for the baselines.
    pub n_simd_total: PerMode<u64>,
    pub s: u64,
    pub d: u64,
    pub e_s: u64,
    pub e_m: u64,
    /// The DWS bound reported in `dws`.
    pub dws_bound: DwsBound,
    /// How the IPET values were obtained (the weakest of the two problems).
    pub ipet_method: IpetMethod,
    /// What went wrong with a solver or a check, and what the bound used instead.
    pub notes: Vec<String>,
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
    /// Time spent re-verifying (and with `--ipet ilp`, solving) the two IPET problems.
    pub solve_time: Duration,
}

fn overflow(what: &str) -> HostError {
    HostError::Overflow(format!("{what} exceeds 2^128 cycles"))
}

fn checked(v: Option<u128>, what: &str) -> Result<u128> {
    v.ok_or_else(|| overflow(what))
}

/// IPET of `g` with the branches of `sb` pruned, verified; on an internal inconsistency (which
/// the property tests exclude) `fallback` or Σ wcet·multiplicity stands in, with a note.
fn ipet(
    g: &BsbCfg,
    sb: &[bool],
    solver: Solver,
    fallback: Option<&IpetSolution>,
) -> Result<(Vec<(usize, usize)>, IpetSolution)> {
    match prune(g, sb) {
        Ok(p) => Ok((p.removed, certify(g, &p.solution, solver)?)),
        Err(HostError::Solver(why)) => {
            let note = format!("{why}; ");
            let mut sol = match fallback {
                Some(f) => {
                    let mut s = f.clone();
                    s.notes
                        .push(note + "the bound of the CFG without pruning is used");
                    s
                }
                None => IpetSolution {
                    wcet: multiplicity_bound(g, &vec![true; g.len()])?,
                    block_counts: vec![0; g.len()],
                    edge_counts: Vec::new(),
                    method: IpetMethod::Multiplicity,
                    notes: vec![note + "the bound counts every block as often as its loops allow"],
                    variables: 0,
                    constraints: 0,
                    solve_time: Duration::ZERO,
                },
            };
            sol.block_counts = vec![0; g.len()];
            Ok((Vec::new(), sol))
        }
        Err(e) => Err(e),
    }
}

/// IPET of `g` as it is (no branch pruned), verified.
pub fn ipet_bound(g: &BsbCfg, solver: Solver) -> Result<IpetSolution> {
    Ok(ipet(g, &vec![false; g.len()], solver, None)?.1)
}

/// E_WF^DWS when the split wavefronts are charged once (docs/wcet.md, "DWS"): IPET of the CFG
/// in which every divergent branch also pays its split and merge and the blocks its child runs
/// besides its path (the BSB and the join).
fn dws_serialized(g: &BsbCfg, gpu: &GpuConfig, solver: Solver) -> Result<IpetSolution> {
    let mut cfg = g.cfg().clone();
    for u in 0..g.len() {
        if let Role::Branch { bsb, reconv, .. } = g.role(u) {
            let extra = [gpu.e_s, gpu.e_m, g.wcet(bsb), g.wcet(reconv)]
                .iter()
                .try_fold(cfg.blocks[u].wcet, |a, &b| a.checked_add(b))
                .ok_or_else(|| overflow("a block's WCET"))?;
            cfg.blocks[u].wcet = extra;
        }
    }
    let charged = BsbCfg::new(cfg)?;
    Ok(ipet(&charged, &vec![false; charged.len()], solver, None)?.1)
}

/// Runs Select, Prune, IPET and the lemmas. `marked` is the set P (indexed by node).
pub fn analyse(g: &BsbCfg, marked: &[bool], p: &Params) -> Result<Analysis> {
    let gpu = &p.gpu;
    gpu.check()?;
    let n = g.len();
    let e_sm = u128::from(gpu.e_s) + u128::from(gpu.e_m);

    let (_, nosplit_solution) = ipet(g, &vec![false; n], p.ipet, None)?;
    let ipet_c = nosplit_solution.wcet;

    let sel = select(g, marked, gpu.s);
    let (removed, pws_solution) = ipet(g, &sel.mask(n), p.ipet, Some(&nosplit_solution))?;
    let ipet_out = pws_solution.wcet;

    // A split inside a loop runs once per iteration: charge it as often as it can execute.
    let pws_charge = sel.selected.iter().try_fold(0u128, |acc, &u| {
        let m = checked(g.multiplicity(u), "the split count")?;
        checked(
            m.checked_mul(e_sm).and_then(|c| acc.checked_add(c)),
            "the split/merge cost",
        )
    })?;
    let mut branch_mult = 1u128;
    for u in g.branches() {
        branch_mult = branch_mult.max(checked(g.multiplicity(u), "the split count")?);
    }
    let mut notes = Vec::new();
    let (dws_wf, dws_charge) = match p.dws {
        DwsBound::Lemma57 => {
            let charge = checked(
                u128::from(gpu.s)
                    .checked_mul(e_sm)
                    .and_then(|c| c.checked_mul(branch_mult)),
                "the split/merge cost",
            )?;
            (checked(ipet_c.checked_add(charge), "E_WF")?, charge)
        }
        DwsBound::Serialized => {
            let s = dws_serialized(g, gpu, p.ipet)?;
            notes.extend(s.notes.iter().cloned());
            (s.wcet, s.wcet.saturating_sub(ipet_c))
        }
    };

    let e_wf = PerMode {
        nosplit: ipet_c,
        dws: dws_wf,
        pws: checked(ipet_out.checked_add(pws_charge), "E_WF")?,
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
    // The weakest method of the two problems is the one to report.
    let rank = |m: IpetMethod| match m {
        IpetMethod::Ilp => 0,
        IpetMethod::Structural => 1,
        IpetMethod::Multiplicity => 2,
    };
    let method = [nosplit_solution.method, pws_solution.method]
        .into_iter()
        .max_by_key(|&m| rank(m))
        .expect("two methods");
    for note in nosplit_solution.notes.iter().chain(&pws_solution.notes) {
        if !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    let dws_kernel = match p.dws {
        DwsBound::Lemma57 => e_kernel_dws(ds.dws, gpu.d, gpu.s, e_wf.dws),
        DwsBound::Serialized => e_kernel_pws(ds.dws, gpu.d, e_wf.dws),
    };
    let report = WcetReport {
        nosplit: checked(e_kernel_pws(ds.nosplit, gpu.d, e_wf.nosplit), "E_kernel")?,
        dws: checked(dws_kernel, "E_kernel")?,
        pws: checked(e_kernel_pws(ds.pws, gpu.d, e_wf.pws), "E_kernel")?,
        e_wf,
        ipet: PerMode {
            nosplit: ipet_c,
            dws: ipet_c,
            pws: ipet_out,
        },
        selected: sel
            .selected
            .iter()
            .map(|&u| g.name(u).to_string())
            .collect(),
        removed_edges: removed
            .iter()
            .map(|&(u, v)| [g.name(u).to_string(), g.name(v).to_string()])
            .collect(),
        count: sel.count,
        split_merge: PerMode {
            nosplit: 0,
            dws: dws_charge,
            pws: pws_charge,
        },
        ds,
        g_parallel: g_par,
        n_simd_total,
        s: gpu.s,
        d: gpu.d,
        e_s: gpu.e_s,
        e_m: gpu.e_m,
        dws_bound: p.dws,
        ipet_method: method,
        notes,
        blocks,
    };
    let solve_time = nosplit_solution.solve_time + pws_solution.solve_time;
    Ok(Analysis {
        report,
        removed,
        selected: sel.selected,
        pws_solution,
        nosplit_solution,
        solve_time,
    })
}
