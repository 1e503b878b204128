//! WCET of a whole launch on the compute unit (`pws wcet LAUNCH.toml`): the per-wavefront
//! bounds of the lemmas with block WCETs from the timing contract, the interference the contract
//! charges for the contexts that can run at the same time, and the dispatch of the workgroups in
//! rounds. The bound is what `pws run` must never exceed; [`Tightness`] compares the two.
//!
//! How the launch is bounded (docs/wcet.md, "Launch-level bounds"):
//! - a workgroup of w wavefronts is dispatched only when w slots are free, workgroups in order;
//!   at most P = ⌊N_SIMD·N_WFC / w⌋ are resident at once, so the launch runs in R = ⌈G / P⌉
//!   rounds of P consecutive workgroups;
//! - by induction over the rounds, round r is finished by B_r = B_{r-1} + Σ_{g ∈ r} (w_g·D_wf +
//!   D_wg) + E + release: once the earlier rounds are done, at most P − 1 workgroups hold slots
//!   whenever the next one of round r waits, so it is dispatched right after its predecessors,
//!   and it finishes E after its last wavefront's launch (a wavefront launched earlier is at
//!   most as far along, and a barrier releases when the last one arrives);
//! - E is the per-wavefront bound of the mode, whose table charges every instruction with the
//!   competitors that the resident wavefronts can put in front of it.

use std::fmt::Write as _;

use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::Manifest;
use pws_isa::Program;
use serde::Serialize;

use crate::analysis::{analyse, Params};
use crate::cfg::{BsbCfg, Role};
use crate::compile::{Skipped, SplitPolicy};
use crate::error::{HostError, Result};
use crate::extract::launch_values::LaunchValues;
use crate::extract::lds_banks;
use crate::extract::{extract, has_split_marker, Kernel, LoopBounds};
use crate::ipet::{IpetMethod, Solver};
use crate::kernel::{DwsBound, GpuConfig, Launch};
use crate::select::select;
use crate::timing::{rtl_blocks, Competition, CuTiming, DispatchCost, Mode, TimingTable};

/// The compute unit a launch runs on: the host's mirror of `pws_hdl::config::HwConfig`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// N_SIMD.
    pub n_simd: u64,
    /// N_WFC: wavefront slots per SIMD. In a launch's report: the slots that can hold a
    /// wavefront of its kernel ([`Machine::for_kernel`]).
    pub n_wfc: u64,
    /// Vector registers per lane of a SIMD's VRF, which its slots' wavefronts share.
    pub vgprs_per_simd: u64,
    /// The timing parameters, S among them.
    pub cu: CuTiming,
    /// Bytes of the LDS the resident workgroups' group segments share.
    pub lds_bytes: u64,
}

impl Machine {
    /// Wavefront slots of the compute unit.
    pub fn slots(&self) -> u64 {
        self.n_simd * self.n_wfc
    }

    /// The machine as a kernel using `vgprs` VGPRs sees it: each SIMD's slots that its VRF can
    /// give a wavefront's registers (`pws_isa::abi::vgpr_allocation`), as the dispatcher
    /// fills them; an error if not even one fits.
    pub fn for_kernel(&self, vgprs: u32) -> Result<Machine> {
        let alloc = u64::from(pws_isa::abi::vgpr_allocation(vgprs));
        let n_wfc = self.n_wfc.min(self.vgprs_per_simd / alloc);
        if n_wfc == 0 {
            return Err(HostError::Config(format!(
                "the kernel uses {vgprs} VGPRs; a SIMD's VRF has {} (vgprs_per_simd)",
                self.vgprs_per_simd
            )));
        }
        Ok(Machine { n_wfc, ..*self })
    }
}

/// A launch's kernel source, as the manifest names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSource {
    pub text: String,
    /// The file, for messages.
    pub file: String,
}

impl KernelSource {
    /// Reads the kernel `manifest` names.
    pub fn load(manifest: &Manifest) -> Result<KernelSource> {
        Ok(KernelSource {
            text: manifest
                .kernel_source()
                .map_err(|e| HostError::Input(e.to_string()))?,
            file: manifest.kernel.display().to_string(),
        })
    }
}

/// The kernel of a launch as the RTL runs it in one mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchKernel {
    /// Assembly after the host pass, if the mode takes it.
    pub text: String,
    pub program: Program,
    /// SGPRs a wavefront holds (what a split copies).
    pub sgprs: u32,
    /// `split` instructions in the program: without any, DWS and PWS run it as no-split.
    pub splits: usize,
    /// Divergent branches the pass left serialized, and why.
    pub skipped: Vec<Skipped>,
    /// What the user should know about how the program was made.
    pub warnings: Vec<String>,
}

impl LaunchKernel {
    /// The program `pws run` executes in `mode`: in PWS, the split/merge pass runs when the
    /// source has `pws: split` markers or `policy` adds split points; DWS splits at every
    /// divergent branch that can split (design.md decision 5), so it always runs the pass with
    /// [`SplitPolicy::All`]; no-split runs the source without its `split`/`merge`
    /// ([`crate::compile::without_split_merge`]): the baseline is the GPU without PWS, not PWS's
    /// instructions issued as no-ops, which cost issue cycles the comparison would charge to
    /// no-split. PCs, and so the block lists, follow from it. Every mode first takes out the
    /// skip branches that enter a loop past its header ([`crate::reducible`]). Running never
    /// depends on the analysis: when the pass cannot read the kernel's control flow, DWS runs
    /// it unsplit with a warning; only markers the user wrote make that an error.
    pub fn new(source: &KernelSource, mode: Mode, policy: SplitPolicy) -> Result<LaunchKernel> {
        let policy = if mode == Mode::Dws {
            SplitPolicy::All
        } else {
            policy
        };
        let repaired = crate::reducible::repair(&source.text, &source.file)?;
        let (text, file) = (&repaired.text, &source.file);
        let marked = has_split_marker(text);
        let mut warnings = repaired.notes;
        let mut skipped = Vec::new();
        let text = if mode.splits() && (policy.adds_splits() || marked) {
            let opts = crate::compile::Options {
                policy,
                strict_markers: false,
                restore_skips: mode == Mode::Pws,
            };
            match crate::compile::compile_with(text, file, &opts) {
                Ok(c) => {
                    for s in c.skipped.iter().filter(|s| s.marked) {
                        warnings.push(format!(
                            "the marked split at {} (line {}) is left serialized: {}",
                            s.branch, s.line, s.detail
                        ));
                    }
                    skipped = c.skipped;
                    c.text
                }
                Err(e) if !marked => {
                    warnings.push(format!(
                        "{} cannot insert splits ({e}); the kernel runs unsplit",
                        mode.name()
                    ));
                    text.clone()
                }
                Err(e) => return Err(e),
            }
        } else if mode == Mode::NoSplit {
            crate::compile::without_split_merge(text, file)?
        } else {
            text.clone()
        };
        let program =
            pws_isa::assemble(&text, file).map_err(|e| HostError::Input(e.to_string()))?;
        let splits = program
            .instructions
            .iter()
            .filter(|l| l.item.opcode == pws_isa::Opcode::Split)
            .count();
        // A marked split left serialized has said why already.
        if mode.splits() && splits == 0 && !skipped.iter().any(|s| s.marked) {
            warnings.push(format!(
                "the program has no `split`, so {} runs it as no-split{}",
                mode.name(),
                if mode == Mode::Pws && policy == SplitPolicy::Marked {
                    " (mark branches with `; pws: split` or PWS_SPLIT(), let the cost model choose with --split-auto, or split every one that can with --split-all)"
                } else if policy == SplitPolicy::Auto {
                    " (no divergent branch of it can split with a gain)"
                } else {
                    " (no divergent branch of it can split)"
                }
            ));
        }
        Ok(LaunchKernel {
            sgprs: crate::input::program_sgprs(&program),
            program,
            text,
            splits,
            skipped,
            warnings,
        })
    }
}

/// How the workgroups share the slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rounds {
    pub workgroups: u64,
    /// Wavefronts of the largest workgroup.
    pub wavefronts_per_workgroup: u64,
    pub wavefronts: u64,
    pub slots: u64,
    /// P: workgroups resident at once.
    pub workgroups_per_round: u64,
    /// Wavefronts dispatched in each round.
    pub round_wavefronts: Vec<u64>,
    /// Most wavefronts resident at once.
    pub resident_wavefronts: u64,
}

impl Rounds {
    /// Rounds of `manifest`'s launch on `machine` of a kernel whose workgroups take
    /// `group_segment` bytes of LDS each (in whole 128-byte rows, as the dispatcher allocates
    /// them); a workgroup larger than the compute unit or its LDS is an error.
    pub fn new(manifest: &Manifest, machine: &Machine, group_segment: u32) -> Result<Rounds> {
        let groups = manifest.workgroups();
        let sizes: Vec<u64> = (0..groups)
            .map(|g| u64::from(manifest.wavefronts_in(g)))
            .collect();
        let w = sizes.iter().copied().max().unwrap_or(1);
        let slots = machine.slots();
        if w > slots {
            return Err(HostError::Config(format!(
                "a workgroup of {} work-items needs {w} wavefront slots; the compute unit has {slots} (N_SIMD = {}, N_WFC = {}); bound it on a configuration with more, such as `--config gcn3` (4 SIMDs of 10)",
                manifest.format_extent(manifest.workgroup), machine.n_simd, machine.n_wfc
            )));
        }
        let region = u64::from(group_segment.div_ceil(128) * 128);
        if region > machine.lds_bytes {
            return Err(HostError::Config(format!(
                "a workgroup's group segment of {group_segment} bytes does not fit in the compute unit's LDS of {} bytes",
                machine.lds_bytes
            )));
        }
        // The LDS limits occupancy too: a workgroup starts only when its region is free.
        let p = match machine.lds_bytes.checked_div(region) {
            Some(fit) => (slots / w).min(fit),
            None => slots / w,
        };
        let round_wavefronts: Vec<u64> = sizes.chunks(p as usize).map(|c| c.iter().sum()).collect();
        Ok(Rounds {
            workgroups: u64::from(groups),
            wavefronts_per_workgroup: w,
            wavefronts: sizes.iter().sum(),
            slots,
            workgroups_per_round: p,
            resident_wavefronts: round_wavefronts.iter().copied().max().unwrap_or(0),
            round_wavefronts,
        })
    }

    /// How many other wavefronts can be resident at some time during one wavefront's run:
    /// when a workgroup fills the compute unit (slots = its wavefronts), only its own, since
    /// no other workgroup fits before it ends and it starts only when every slot is free;
    /// otherwise every other wavefront of the launch.
    pub fn overlapping_wavefronts(&self) -> u64 {
        let others = self.wavefronts.saturating_sub(1);
        if self.slots <= self.wavefronts_per_workgroup {
            others.min(self.wavefronts_per_workgroup - 1)
        } else {
            others
        }
    }

    /// Workgroups dispatched in round `r`.
    fn round_workgroups(&self, r: usize) -> u64 {
        let p = self.workgroups_per_round;
        (self.workgroups - r as u64 * p).min(p)
    }
}

/// E with the other wavefronts' interference bounded by their occupancy of the issue unit and
/// the LSU (docs/wcet.md, "Interference"): E ≤ base + Σ_unit min(waits, n · held), where
/// `base` charges no wait for another wavefront, `waits` is the most the per-instruction
/// charge puts on any path, `held` the most cycles one other wavefront's contexts hold the
/// unit over their whole run, and n how many other wavefronts can overlap this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Occupancy {
    pub overlapping_wavefronts: u64,
    pub base: u64,
    pub issue_waits: u64,
    pub issue_held: u64,
    /// How many such runs can hold this wavefront's issue unit.
    pub issue_runs: u64,
    pub lsu_waits: u64,
    pub lsu_held: u64,
    /// base + min(issue_waits, issue_runs · issue_held) + min(lsu_waits, n · lsu_held).
    pub bound: u64,
}

/// One block of the RTL's list with its bound in one mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockBound {
    pub pc: u32,
    pub last_pc: u32,
    pub wcet: u64,
    /// Contains a merge or `s_barrier`: the measured time may include a partner's path, which
    /// the block's WCET does not cover (the wavefront bound does).
    pub sync: bool,
    /// The CFG node (docs/wcet.md, "Input: GCN3 assembly") that holds its first instruction.
    pub node: String,
}

/// The launch bound in one mode and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModeBound {
    pub mode: Mode,
    /// Cycles of the whole launch, from the start of the run to its end.
    pub bound: u64,
    /// E: one wavefront from its launch to its end, with the interference below (DWS: (S + 1)
    /// · E_WF^DWS, Lemma 5.7's per-step term; PWS: Lemma 5.1; no-split: IPET(C)).
    pub per_wavefront: u64,
    /// E of each round (smaller for a round with fewer wavefronts when workgroups fill the
    /// compute unit).
    pub per_round: Vec<u64>,
    /// E_WF of the mode's lemma.
    pub e_wf: u64,
    /// IPET(C) (no-split, DWS) or IPET(C_out) (PWS).
    pub ipet: u64,
    /// Split/merge cycles in E_WF.
    pub split_merge: u64,
    /// Cycles spent dispatching, over all rounds.
    pub dispatch: u64,
    /// Contexts a wavefront may occupy (1 + S when it can split).
    pub contexts_per_wavefront: u64,
    /// Competitors of an instruction outside split regions, and its table.
    pub competition: Competition,
    pub table: TimingTable,
    /// Competitors of an instruction between a split and its merge (PWS: the wavefront's own
    /// split contexts share the LSU), and its table.
    pub competition_in_split: Competition,
    pub table_in_split: TimingTable,
    pub e_s: u64,
    pub e_m: u64,
    /// SB (PWS) in topological order; empty in the other modes.
    pub selected: Vec<String>,
    pub count: u64,
    /// The other wavefronts' interference bounded by what they can hold of the shared units
    /// (`None` under Lemma 5.7); E is the smaller of this and the per-instruction charge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupancy: Option<Occupancy>,
    /// DWS with splits: which bound E is ([`DwsBound::Serialized`] unless asked otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dws_bound: Option<DwsBound>,
    pub ipet_method: IpetMethod,
    /// What went wrong with a solver or a check, and what the bound used instead.
    pub notes: Vec<String>,
    /// What the analysis inferred from the launch: loop bounds, LDS bank conflicts
    /// ([`LaunchReport::notes`]).
    #[serde(skip)]
    pub inferred_notes: Vec<String>,
    /// SGPRs a wavefront holds (what a split copies).
    pub sgprs: u32,
    pub blocks: Vec<BlockBound>,
    /// The program the bound is for, which `pws run` executes in this mode.
    #[serde(skip)]
    pub kernel: LaunchKernel,
}

/// Everything `pws wcet LAUNCH.toml` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaunchReport {
    pub kernel: String,
    /// The machine as the kernel sees it: N_WFC is the slots its VGPRs leave each SIMD.
    pub machine: Machine,
    /// VGPRs the kernel names, which each of its wavefronts holds in its SIMD's VRF.
    pub vgprs: u32,
    pub rounds: Rounds,
    pub dispatch_cost: DispatchCost,
    /// One entry per requested mode, in [`Mode::ALL`] order.
    pub modes: Vec<ModeBound>,
    /// How the analysis bounded loops nobody annotated, or more tightly than their
    /// annotations (`file:line: loop bound ...`): from the kernel's constants, or from what
    /// this launch fixes (its arguments, its workgroup size).
    pub notes: Vec<String>,
}

impl LaunchReport {
    /// The bound of `mode`, if it was analysed.
    pub fn mode(&self, mode: Mode) -> Option<&ModeBound> {
        self.modes.iter().find(|m| m.mode == mode)
    }
}

/// Bounds `manifest`'s launch of `source` on `machine` in each of `modes`, with the split points
/// `policy` gives PWS.
pub fn analyse_launch(
    manifest: &Manifest,
    source: &KernelSource,
    machine: &Machine,
    modes: &[Mode],
    policy: SplitPolicy,
) -> Result<LaunchReport> {
    analyse_launch_with(
        manifest,
        source,
        machine,
        modes,
        &LaunchOptions {
            split: policy,
            ..LaunchOptions::default()
        },
    )
}

/// How a launch is bounded beyond its manifest and machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaunchOptions {
    /// PWS's split points besides the marked ones.
    pub split: SplitPolicy,
    /// The DWS bound: by default the split wavefronts' work charged once
    /// ([`DwsBound::Serialized`]); [`DwsBound::Lemma57`] for the paper's.
    pub dws: Option<DwsBound>,
    /// How IPET is solved.
    pub ipet: Solver,
}

/// [`analyse_launch`] with every option.
pub fn analyse_launch_with(
    manifest: &Manifest,
    source: &KernelSource,
    machine: &Machine,
    modes: &[Mode],
    options: &LaunchOptions,
) -> Result<LaunchReport> {
    let policy = options.split;
    let dws = options.dws.unwrap_or(DwsBound::Serialized);
    let solver = options.ipet;
    if machine.n_simd == 0 || machine.n_wfc == 0 || machine.cu.passes == 0 {
        return Err(HostError::Config(
            "the compute unit needs at least one SIMD, one slot and one pass per op".into(),
        ));
    }
    let program = pws_isa::assemble(&source.text, &source.file)
        .map_err(|e| HostError::Input(e.to_string()))?;
    let abi = LaunchAbi::for_launch(&program, manifest);
    let vgprs = pws_isa::abi::registers_used(&program).1;
    let machine = &machine.for_kernel(vgprs)?;
    let rounds = Rounds::new(manifest, machine, abi.group_segment_size)?;
    let loop_bounds = LoopBounds::from_manifest(manifest);
    let dispatch_cost = DispatchCost::contract(&machine.cu, &abi);
    let mut out = Vec::new();
    for mode in Mode::ALL.into_iter().filter(|m| modes.contains(m)) {
        out.push(mode_bound(
            LaunchKernel::new(source, mode, policy)?,
            &source.file,
            (manifest, &loop_bounds),
            machine,
            &rounds,
            &dispatch_cost,
            mode,
            (dws, solver),
        )?);
    }
    let mut notes: Vec<String> = Vec::new();
    for n in out.iter().flat_map(|m| &m.inferred_notes) {
        if !notes.contains(n) {
            notes.push(n.clone());
        }
    }
    Ok(LaunchReport {
        kernel: source.file.clone(),
        machine: *machine,
        vgprs,
        rounds,
        dispatch_cost,
        modes: out,
        notes,
    })
}

/// Who can compete with one context of a resident wavefront in `mode`.
#[derive(Debug, Clone, Copy)]
struct Competitors {
    /// Contexts a wavefront may occupy.
    contexts: u64,
    /// What the RTL's blocks may meet outside and inside split regions (only inside can the
    /// wavefront's own split contexts be alive).
    outside: Competition,
    inside: Competition,
    /// What E charges inside split regions: the same, except in DWS, where Lemma 5.7's factor
    /// S + 1 covers the wavefront's own split contexts.
    inside_for_e: Competition,
    /// The part of both that other wavefronts cause (issue unit and LSU).
    others: Competition,
}

/// Competitors with `resident` wavefronts on the compute unit at once, each of which has at
/// most `peak` split contexts alive at once.
fn competitors(
    kernel: &Kernel,
    lds: &[Option<u64>],
    machine: &Machine,
    resident: u64,
    mode: Mode,
    peak: u64,
) -> Competitors {
    let insts = &kernel.program.instructions;
    let splits = insts
        .iter()
        .any(|l| l.item.opcode == pws_isa::Opcode::Split);
    let contexts = if mode.splits() && splits {
        1 + machine.cu.spsimds.min(peak)
    } else {
        1
    };
    let own = contexts - 1;
    let others = resident - 1;
    // The dispatcher may put every resident wavefront on one SIMD, up to its N_WFC slots.
    let others_on_simd = resident.min(machine.n_wfc) - 1;
    let memory = insts.iter().any(|l| l.item.is_memory());
    let lsu_others = if memory { others * contexts } else { 0 };
    let lsu_own = if memory { own } else { 0 };
    // Issue unit k of a SIMD serves context k of its slots in PWS (in no-split only k = 0
    // exists); in DWS issue unit 0 and the slot's SIMD serve all of them.
    let issue_others = match mode {
        Mode::NoSplit | Mode::Pws => others_on_simd,
        Mode::Dws => others_on_simd * contexts,
    };
    let lsu_hold = crate::timing::lsu_hold(&machine.cu, &kernel.program, lds);
    // (Sp)SIMD k of a SIMD runs its slots' contexts k, fed by one issue unit: a VALU op waits
    // at most for the one that issue unit handed over before, another context's.
    let port = u64::from(issue_others > 0);
    let outside = Competition {
        issue: issue_others,
        valu: port,
        lsu: lsu_others,
        lsu_hold: if lsu_others > 0 { lsu_hold } else { 0 },
        split_merge: 0,
    };
    let inside = Competition {
        issue: issue_others + if mode == Mode::Dws { own } else { 0 },
        valu: if mode == Mode::Dws {
            own.max(port)
        } else {
            port
        },
        lsu: lsu_others + lsu_own,
        lsu_hold: if lsu_others + lsu_own > 0 {
            lsu_hold
        } else {
            0
        },
        split_merge: own,
    };
    Competitors {
        contexts,
        outside,
        inside,
        inside_for_e: if mode == Mode::Dws { outside } else { inside },
        others: Competition {
            issue: issue_others,
            valu: port,
            lsu: lsu_others,
            ..Competition::default()
        },
    }
}

/// Per CFG node, its cost in DWS with the split wavefronts' work charged once (docs/wcet.md,
/// "DWS"): every instruction at its cost with the other wavefronts' waits (`cost`, the
/// datapath's e_s / e_m added), times the contexts that can run it (a straight-line split
/// doubles the contexts in its region, at most S + 1); every divergent branch with a `split`
/// also pays what its child runs besides its own path: the `s_cbranch_execz` after the split,
/// the BSB's block and the join up to the merge.
fn dws_serialized(
    kernel: &Kernel,
    g: &BsbCfg,
    cost: &[u64],
    datapath: &[u64],
    s: u64,
) -> Result<Vec<u64>> {
    let insts = &kernel.program.instructions;
    let over = || HostError::Overflow("a block's WCET exceeds 2^64 cycles".into());
    // Straight-line split regions: depth d gives min(S + 1, 2^d) contexts.
    let mut depth = vec![0i64; insts.len() + 1];
    for (split, merge) in stray_splits(kernel) {
        let end = merge.map_or(insts.len(), |m| m + 1);
        depth[split + 1] += 1;
        depth[end] -= 1;
    }
    let mut d = 0i64;
    let contexts: Vec<u64> = depth[..insts.len()]
        .iter()
        .map(|&x| {
            d += x;
            if d >= 63 {
                s + 1
            } else {
                (1u64 << d).min(s + 1)
            }
        })
        .collect();
    let one = |i: usize| -> Result<u64> {
        cost[i]
            .checked_add(datapath[i])
            .and_then(|c| c.checked_mul(contexts[i]))
            .ok_or_else(over)
    };
    let mut weights = Vec::with_capacity(kernel.ranges.len());
    for range in &kernel.ranges {
        let mut w = 0u64;
        for i in range.clone() {
            w = w.checked_add(one(i)?).ok_or_else(over)?;
        }
        weights.push(w);
    }
    for b in &kernel.ifs {
        let Some(split) = b.split else { continue };
        let Role::Branch { bsb, .. } = g.role(b.node) else {
            continue;
        };
        let merge_end = b.merge.map_or(b.merge_at.gap(), |m| m + 1).min(insts.len());
        let child = (split + 1..kernel.ranges[b.node].end)
            .chain(kernel.ranges[bsb].clone())
            .chain(kernel.ranges[b.join].start..merge_end);
        let mut extra = 0u64;
        for i in child {
            extra = extra
                .checked_add(cost[i].checked_add(datapath[i]).ok_or_else(over)?)
                .ok_or_else(over)?;
        }
        let extra = extra.checked_mul(contexts[split]).ok_or_else(over)?;
        weights[b.node] = weights[b.node].checked_add(extra).ok_or_else(over)?;
    }
    Ok(weights)
}

/// Each `split` that is not right before a divergent branch (Figure 5's straight-line splits),
/// with the `merge` that pairs with it by nesting in program order (`None`: no merge follows).
fn stray_splits(kernel: &Kernel) -> Vec<(usize, Option<usize>)> {
    let insts = &kernel.program.instructions;
    kernel
        .stray_splits
        .iter()
        .map(|&split| {
            let mut depth = 0usize;
            let merge = (split + 1..insts.len()).find(|&i| match insts[i].item.opcode {
                pws_isa::Opcode::Split => {
                    depth += 1;
                    false
                }
                pws_isa::Opcode::Merge if depth == 0 => true,
                pws_isa::Opcode::Merge => {
                    depth -= 1;
                    false
                }
                _ => false,
            });
            (split, merge)
        })
        .collect()
}

/// Instructions inside a split region, where the wavefront's split contexts may be alive: after
/// a `split`, up to the merge after its branch's join, or for a straight-line `split`, up to its
/// merge (to the end without one). At the outermost `split` itself none is alive.
fn split_regions(kernel: &Kernel, g: &BsbCfg) -> Vec<bool> {
    let mut inside = vec![false; kernel.program.instructions.len()];
    for (split, merge) in stray_splits(kernel) {
        let end = merge.map_or(inside.len(), |m| m + 1);
        for flag in &mut inside[split + 1..end] {
            *flag = true;
        }
    }
    for b in &kernel.ifs {
        let Some(split) = b.split else { continue };
        let Role::Branch {
            path1, bsb, reconv, ..
        } = g.role(b.node)
        else {
            continue;
        };
        let mut seen = vec![false; g.len()];
        let mut work = vec![path1, bsb];
        while let Some(v) = work.pop() {
            if v == reconv || std::mem::replace(&mut seen[v], true) {
                continue;
            }
            for i in kernel.ranges[v].clone() {
                inside[i] = true;
            }
            work.extend(g.forward_successors(v).iter().copied());
            work.extend(g.back_edges().iter().filter(|e| e.0 == v).map(|e| e.1));
        }
        let merge_end = b
            .merge
            .map_or(b.merge_at.gap(), |m| m + 1)
            .min(inside.len());
        let join_start = kernel.ranges[b.join].start;
        for i in (split + 1..kernel.ranges[b.node].end).chain(join_start..merge_end) {
            inside[i] = true;
        }
    }
    inside
}

/// What the analysis of one program in one mode shares between the wavefront bounds of
/// different numbers of resident wavefronts.
struct ModeInputs<'a> {
    lk: &'a LaunchKernel,
    kernel: Kernel,
    /// The CFG's structure (block WCETs of the GCN3 table: only the structure is used).
    structure: BsbCfg,
    marked: Vec<bool>,
    sel: crate::select::Selection,
    /// Instructions in a split region.
    inside: Vec<bool>,
    /// Per instruction, a DS instruction's LDS cycles per pass where its addresses bound its
    /// bank conflicts ([`crate::extract::lds_banks`]).
    lds: Vec<Option<u64>>,
    machine: &'a Machine,
    mode: Mode,
    dws: DwsBound,
    solver: Solver,
    /// Most split contexts a wavefront can have alive at once, whatever S: Select's peak
    /// `count` with every branch that has a `split` selected (two splits under the same Parent
    /// never live at once), plus every straight-line split.
    peak: u64,
}

/// One wavefront's bound with `resident` wavefronts at once, of which `overlapping` others
/// can be resident at some time during its run; `fixed`: the same ones for its whole run (a
/// workgroup that fills the compute unit).
struct WavefrontBound {
    comp: Competitors,
    outside_table: TimingTable,
    inside_table: TimingTable,
    /// RTL block costs per instruction (the split regions' full competition, e_s / e_m).
    rtl_cost: Vec<u64>,
    e_wf: u64,
    ipet: u64,
    split_merge: u64,
    per_wavefront: u64,
    occupancy: Option<Occupancy>,
    selected: Vec<String>,
    count: u64,
    dws_splits: bool,
    ipet_method: IpetMethod,
    notes: Vec<String>,
}

fn overflow() -> HostError {
    HostError::Overflow("the launch bound exceeds 2^64 cycles".into())
}

fn narrow(v: u128) -> Result<u64> {
    u64::try_from(v).map_err(|_| overflow())
}

fn wavefront_bound(
    m: &ModeInputs,
    resident: u64,
    overlapping: u64,
    fixed: bool,
) -> Result<WavefrontBound> {
    let (kernel, machine, mode, solver) = (&m.kernel, m.machine, m.mode, m.solver);
    let comp = competitors(kernel, &m.lds, machine, resident, mode, m.peak);
    let insts = &kernel.program.instructions;
    // No more of a slot's split contexts than can be alive at once hold its SIMD in DWS.
    let cu = CuTiming {
        spsimds: machine.cu.spsimds.min(m.peak),
        ..machine.cu
    };
    // Every context of the launch runs this program, so a competitor holds the front end and
    // the LSU at most as long as the program's longest instruction does; the contract's
    // per-competitor waits are for the longest instruction of any program.
    let longest_front = insts
        .iter()
        .map(|l| TimingTable::frontend_cycles(&cu, mode, &l.item))
        .max()
        .unwrap_or(0);
    let longest_lsu = crate::timing::lsu_hold(&cu, &kernel.program, &m.lds);
    let table = |c: &Competition| {
        let mut t = TimingTable::contract(&cu, mode, c, m.lk.sgprs);
        t.schedule_wait = t.schedule_wait.min(c.issue * longest_front);
        t.lsu_wait = t.lsu_wait.min(c.lsu * longest_lsu);
        t
    };
    let (outside_table, inside_table) = (table(&comp.outside), table(&comp.inside));
    // Per instruction, with `outside` competing outside split regions and `within` in them.
    let cost = |outside: &Competition, within: &Competition| -> Vec<u64> {
        let (o, w) = (table(outside), table(within));
        insts
            .iter()
            .zip(&m.inside)
            .zip(&m.lds)
            .map(|((l, &x), &k)| if x { &w } else { &o }.cycles_with_lds(&l.item, k))
            .collect()
    };
    let datapath: Vec<u64> = insts
        .iter()
        .map(|l| outside_table.datapath_cycles(&l.item))
        .collect();
    // Lemma 5.1 charges e_s + e_m for the splits in SB only; the RTL splits at any `split` that
    // finds a free context (also a straight-line one), so the others are charged in their blocks.
    let mut extra = vec![0u64; insts.len()];
    if mode == Mode::Pws {
        let unselected = kernel
            .ifs
            .iter()
            .filter(|b| !m.sel.selected.contains(&b.node))
            .filter_map(|b| b.split.map(|split| (split, b.merge)));
        for (split, merge) in unselected.chain(stray_splits(kernel)) {
            extra[split] += datapath[split];
            if let Some(x) = merge.filter(|&x| x < insts.len()) {
                extra[x] += datapath[x];
            }
        }
    }
    let plus = |a: &[u64], b: &[u64]| -> Vec<u64> { a.iter().zip(b).map(|(x, y)| x + y).collect() };
    let minus =
        |a: &[u64], b: &[u64]| -> Vec<u64> { a.iter().zip(b).map(|(x, y)| x - y).collect() };
    let node_weights = |per_inst: &[u64]| -> Vec<u64> {
        kernel
            .ranges
            .iter()
            .map(|r| r.clone().map(|i| per_inst[i]).sum())
            .collect()
    };
    let full = cost(&comp.outside, &comp.inside_for_e);
    let ipet_cost = plus(&full, &extra);
    let gpu = GpuConfig {
        n_cu: 1,
        n_simd: machine.n_simd,
        n_wfc: machine.n_wfc,
        n_wiwf: u64::from(pws_isa::manifest::WAVEFRONT_SIZE),
        s: machine.cu.spsimds,
        e_s: outside_table.e_s,
        e_m: outside_table.e_m,
        d: 0,
    };
    let params = Params {
        ipet: solver,
        ..Params::new(
            gpu,
            Launch {
                groups: 1,
                wg_size: gpu.n_wiwf,
            },
            Some(1),
        )
    };
    let a = analyse(
        &m.structure.reweighted(&node_weights(&ipet_cost)),
        &m.marked,
        &params,
    )?;
    let r = &a.report;
    // A kernel without `split` never has split contexts: DWS then runs it like no-split (on
    // DWS's issue unit), and neither the split costs nor Lemma 5.7's factor S + 1 apply.
    let dws_splits = comp.contexts > 1;
    let (e_wf, ipet, split_merge) = match mode {
        Mode::NoSplit => (r.e_wf.nosplit, r.ipet.nosplit, 0),
        Mode::Dws if dws_splits => (r.e_wf.dws, r.ipet.dws, r.split_merge.dws),
        Mode::Dws => (r.ipet.dws, r.ipet.dws, 0),
        Mode::Pws => (r.e_wf.pws, r.ipet.pws, r.split_merge.pws),
    };
    let (mut e_wf, ipet, mut split_merge) = (narrow(e_wf)?, narrow(ipet)?, narrow(split_merge)?);
    let mut notes = r.notes.clone();
    let serialized = mode == Mode::Dws && dws_splits && m.dws == DwsBound::Serialized;
    // IPET of the CFG with other node weights, or with SB pruned.
    let ipet_of = |weights: Vec<u64>, notes: &mut Vec<String>| -> Result<u64> {
        let sol = crate::analysis::ipet_bound(&m.structure.reweighted(&weights), solver)?;
        notes.extend(sol.notes.iter().cloned());
        narrow(sol.wcet)
    };
    // The whole wavefront's work, its split wavefronts' instructions each charged once.
    let all_contexts = |per_inst: &[u64], datapath: &[u64]| {
        dws_serialized(kernel, &m.structure, per_inst, datapath, machine.cu.spsimds)
    };
    let mut per_wavefront = if serialized {
        e_wf = ipet_of(all_contexts(&ipet_cost, &datapath)?, &mut notes)?;
        split_merge = e_wf.saturating_sub(ipet);
        e_wf
    } else if mode == Mode::Dws && dws_splits {
        (machine.cu.spsimds + 1)
            .checked_mul(e_wf)
            .ok_or_else(overflow)?
    } else {
        e_wf
    };

    // The other wavefronts' interference charged by what they can hold of the issue unit and
    // the LSU instead of per instruction (docs/wcet.md, "Interference"), unless Lemma 5.7 is
    // asked for.
    let occupancy = if mode == Mode::Dws && dws_splits && !serialized {
        None
    } else {
        let others = comp.others;
        let without = |c: &Competition, drop: &Competition| Competition {
            issue: c.issue - drop.issue,
            lsu: c.lsu - drop.lsu,
            ..*c
        };
        let waits = |issue: bool| {
            let d = Competition {
                issue: if issue { others.issue } else { 0 },
                lsu: if issue { 0 } else { others.lsu },
                ..Competition::default()
            };
            minus(
                &full,
                &cost(
                    &without(&comp.outside, &d),
                    &without(&comp.inside_for_e, &d),
                ),
            )
        };
        let (issue_waits, lsu_waits) = (waits(true), waits(false));
        let base = minus(&minus(&ipet_cost, &issue_waits), &lsu_waits);
        let zero = vec![0u64; insts.len()];
        let (e_base, w_issue, w_lsu) = if serialized {
            (
                ipet_of(all_contexts(&base, &datapath)?, &mut notes)?,
                ipet_of(all_contexts(&issue_waits, &zero)?, &mut notes)?,
                ipet_of(all_contexts(&lsu_waits, &zero)?, &mut notes)?,
            )
        } else {
            let b = analyse(
                &m.structure.reweighted(&node_weights(&base)),
                &m.marked,
                &params,
            )?
            .report;
            notes.extend(b.notes.iter().cloned());
            let e = match mode {
                Mode::NoSplit | Mode::Dws => b.e_wf.nosplit,
                Mode::Pws => b.e_wf.pws,
            };
            (
                narrow(e)?,
                ipet_of(node_weights(&issue_waits), &mut notes)?,
                ipet_of(node_weights(&lsu_waits), &mut notes)?,
            )
        };
        let per_inst = |f: &dyn Fn(&pws_isa::Instruction) -> u64| -> Vec<u64> {
            insts.iter().map(|l| f(&l.item)).collect()
        };
        // What one other wavefront, all its contexts, holds of a unit over its whole run.
        let wavefront_holds = |occ: Vec<u64>, notes: &mut Vec<String>| -> Result<u64> {
            let w = if dws_splits {
                all_contexts(&occ, &zero)?
            } else {
                node_weights(&occ)
            };
            ipet_of(w, notes)
        };
        let front = per_inst(&|i| TimingTable::frontend_cycles(&cu, mode, i));
        let lsu_held = wavefront_holds(
            per_inst(&|i| crate::timing::lsu_occupancy(&cu, i)),
            &mut notes,
        )?;
        // The issue unit: in DWS it serves every context of its slots; in no-split and PWS
        // issue unit k serves context k of its slots, and one context runs at most one path of
        // every split branch (SB = every branch with a split, pruned to the costlier path).
        let issue_held = if mode == Mode::Dws {
            wavefront_holds(front, &mut notes)?
        } else {
            let splits: Vec<bool> = (0..m.structure.len())
                .map(|v| kernel.ifs.iter().any(|b| b.node == v && b.split.is_some()))
                .collect();
            let p = crate::prune::prune(&m.structure.reweighted(&node_weights(&front)), &splits)?;
            let sol = crate::ipet::certify(&m.structure, &p.solution, solver);
            let sol = match sol {
                Ok(s) if s.method != IpetMethod::Multiplicity => s.wcet,
                _ => ipet_of(node_weights(&front), &mut notes)?.into(),
            };
            narrow(sol)?
        };
        // The other wavefronts on this wavefront's SIMD: with the same ones for its whole run,
        // the most its SIMD holds besides it; otherwise any overlapping one may come and go.
        let issue_runs = if fixed {
            overlapping.min(resident.min(machine.n_wfc) - 1)
        } else {
            overlapping
        };
        let bound = e_base
            .checked_add(w_issue.min(issue_runs.saturating_mul(issue_held)))
            .and_then(|b| b.checked_add(w_lsu.min(overlapping.saturating_mul(lsu_held))))
            .ok_or_else(overflow)?;
        Some(Occupancy {
            overlapping_wavefronts: overlapping,
            base: e_base,
            issue_waits: w_issue,
            issue_held,
            issue_runs,
            lsu_waits: w_lsu,
            lsu_held,
            bound,
        })
    };
    if let Some(o) = &occupancy {
        per_wavefront = per_wavefront.min(o.bound);
    }
    let rtl_cost = plus(&cost(&comp.outside, &comp.inside), &datapath);
    Ok(WavefrontBound {
        comp,
        outside_table,
        inside_table,
        rtl_cost,
        e_wf,
        ipet,
        split_merge,
        per_wavefront,
        occupancy,
        selected: if mode == Mode::Pws {
            r.selected.clone()
        } else {
            Vec::new()
        },
        count: if mode == Mode::Pws { r.count } else { 0 },
        dws_splits,
        ipet_method: r.ipet_method,
        notes,
    })
}

#[allow(clippy::too_many_arguments)]
fn mode_bound(
    lk: LaunchKernel,
    file: &str,
    (manifest, loop_bounds): (&Manifest, &LoopBounds),
    machine: &Machine,
    rounds: &Rounds,
    dispatch_cost: &DispatchCost,
    mode: Mode,
    (dws, solver): (DwsBound, Solver),
) -> Result<ModeBound> {
    let mut kernel = extract(&lk.text, file, &TimingTable::GCN3)?;
    let launch = LaunchValues::of(&kernel.program, manifest);
    kernel.bound_loops(&launch, loop_bounds);
    let structure = BsbCfg::new(kernel.cfg.clone()).map_err(|e| {
        e.in_file(file).hint(|many| {
            let it = if many { "them" } else { "it" };
            let removed: String = kernel
                .loops
                .iter()
                .flat_map(|l| &l.removed_markers)
                .map(|n| format!("; {file}:{}: {}", n.line, n.message))
                .collect();
            format!("; this launch's arguments and workgroup size do not bound {it}{removed}")
        })
    })?;
    // The split points are the `split`s of the program that runs: `LaunchKernel` placed them
    // (every divergent branch that can split in DWS, the marked ones and those the policy adds
    // in PWS).
    let marked: Vec<bool> = (0..structure.len())
        .map(|v| structure.block(v).split)
        .collect();
    let sel = select(&structure, &marked, machine.cu.spsimds);
    let inside = split_regions(&kernel, &structure);
    let lanes =
        pws_isa::manifest::WAVEFRONT_SIZE / u32::try_from(machine.cu.passes.max(1)).unwrap_or(1);
    let banks = lds_banks::bank_costs(&kernel.program, &kernel.flow, &launch, lanes);
    let lds = lds_banks::pass_cycles(&banks, kernel.program.instructions.len());
    let mut inferred_notes = kernel.loop_notes(file);
    if let Some((line, message)) = lds_banks::note(&kernel.program, &banks, &launch.phrase) {
        inferred_notes.push(format!("{file}:{line}: {message}"));
    }
    let split_branches: Vec<bool> = (0..structure.len())
        .map(|v| kernel.ifs.iter().any(|b| b.node == v && b.split.is_some()))
        .collect();
    let peak =
        select(&structure, &split_branches, u64::MAX).count + stray_splits(&kernel).len() as u64;
    let inputs = ModeInputs {
        lk: &lk,
        kernel,
        structure,
        marked,
        sel,
        inside,
        lds,
        machine,
        mode,
        dws,
        solver,
        peak,
    };
    // When a workgroup fills the compute unit, each round is one workgroup that runs alone:
    // its wavefronts meet only each other, and a smaller one (the last, partial one) fewer.
    let fills = rounds.slots <= rounds.wavefronts_per_workgroup;
    let w = wavefront_bound(
        &inputs,
        rounds.resident_wavefronts,
        rounds.overlapping_wavefronts(),
        fills,
    )?;
    let mut per_round = Vec::with_capacity(rounds.round_wavefronts.len());
    let mut smaller: Vec<(u64, u64)> = Vec::new();
    for &wfs in &rounds.round_wavefronts {
        let e = if fills && wfs < rounds.resident_wavefronts {
            match smaller.iter().find(|(n, _)| *n == wfs) {
                Some(&(_, e)) => e,
                None => {
                    let e = wavefront_bound(&inputs, wfs, wfs - 1, true)?.per_wavefront;
                    smaller.push((wfs, e));
                    e
                }
            }
        } else {
            w.per_wavefront
        };
        per_round.push(e);
    }
    let mut dispatch = 0u64;
    let mut bound = dispatch_cost.start + dispatch_cost.drain;
    for (i, (&wfs, &e)) in rounds.round_wavefronts.iter().zip(&per_round).enumerate() {
        let d = wfs * dispatch_cost.per_wavefront
            + rounds.round_workgroups(i) * dispatch_cost.per_workgroup;
        dispatch += d;
        bound = bound
            .checked_add(d + dispatch_cost.release)
            .and_then(|b| b.checked_add(e))
            .ok_or_else(overflow)?;
    }
    let kernel = &inputs.kernel;
    let node_of = |i: usize| {
        kernel
            .ranges
            .iter()
            .position(|r| r.contains(&i))
            .map_or_else(String::new, |v| kernel.cfg.blocks[v].name.clone())
    };
    let blocks = rtl_blocks(&kernel.program, &w.rtl_cost)
        .into_iter()
        .map(|b| BlockBound {
            node: node_of(b.insts.start),
            pc: b.pc,
            last_pc: b.last_pc,
            wcet: b.wcet,
            sync: b.sync,
        })
        .collect();
    Ok(ModeBound {
        mode,
        bound,
        per_wavefront: w.per_wavefront,
        per_round,
        e_wf: w.e_wf,
        ipet: w.ipet,
        split_merge: w.split_merge,
        dispatch,
        contexts_per_wavefront: w.comp.contexts,
        competition: w.comp.outside,
        competition_in_split: w.comp.inside,
        table: w.outside_table,
        table_in_split: w.inside_table,
        e_s: w.outside_table.e_s,
        e_m: w.outside_table.e_m,
        selected: w.selected,
        count: w.count,
        occupancy: w.occupancy,
        dws_bound: (mode == Mode::Dws && w.dws_splits).then_some(dws),
        ipet_method: w.ipet_method,
        notes: w.notes,
        inferred_notes,
        sgprs: lk.sgprs,
        blocks,
        kernel: lk,
    })
}

/// A block whose measured time exceeds its bound, or that the host's list does not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockExcess {
    pub pc: u32,
    pub measured: u64,
    /// `None`: no host block starts at this PC (the two lists' boundaries differ).
    pub wcet: Option<u64>,
}

/// Checks measured block times (`pws run --json` "blocks": PC and max cycles) against the
/// bound's blocks. Sync blocks are skipped: their measured time includes a partner's path.
pub fn check_blocks(bound: &ModeBound, measured: &[(u32, u64)]) -> Vec<BlockExcess> {
    measured
        .iter()
        .filter_map(
            |&(pc, cycles)| match bound.blocks.iter().find(|b| b.pc == pc) {
                Some(b) if b.sync || cycles <= b.wcet => None,
                Some(b) => Some(BlockExcess {
                    pc,
                    measured: cycles,
                    wcet: Some(b.wcet),
                }),
                None => Some(BlockExcess {
                    pc,
                    measured: cycles,
                    wcet: None,
                }),
            },
        )
        .collect()
}

/// A bound beside the cycles the RTL took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tightness {
    pub kernel: String,
    pub mode: Mode,
    pub bound: u64,
    pub observed: u64,
}

impl Tightness {
    /// bound / observed (the paper's analytical bounds were 1.2x to 12x); infinite when the run
    /// took no cycle.
    pub fn ratio(&self) -> f64 {
        if self.observed == 0 {
            f64::INFINITY
        } else {
            self.bound as f64 / self.observed as f64
        }
    }

    /// The bound holds.
    pub fn safe(&self) -> bool {
        self.bound >= self.observed
    }
}

/// The tightness rows as a table, one line per kernel and mode.
pub fn tightness_table(rows: &[Tightness]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<28} {:<8} {:>10} {:>10} {:>7}",
        "kernel", "mode", "bound", "observed", "ratio"
    );
    for t in rows {
        let _ = writeln!(
            s,
            "{:<28} {:<8} {:>10} {:>10} {:>6.2}x{}",
            t.kernel,
            t.mode.name(),
            t.bound,
            t.observed,
            t.ratio(),
            if t.safe() { "" } else { "  VIOLATED" }
        );
    }
    s
}

/// The human-readable report of the kernel the manifest names `label` (its `.cl` source when
/// it has one; the analysed assembly is named below the header then).
pub fn text(r: &LaunchReport, label: &str) -> String {
    let mut s = String::new();
    let m = &r.machine;
    let k = &r.rounds;
    let _ = writeln!(
        s,
        "launch of {label}: {} workgroups of up to {} wavefronts ({} wavefronts); N_SIMD = {}, N_WFC = {} (for {} VGPRs per wavefront of a {}-register VRF), S = {}, {} passes, memory latency {}",
        k.workgroups, k.wavefronts_per_workgroup, k.wavefronts, m.n_simd, m.n_wfc, r.vgprs, m.vgprs_per_simd, m.cu.spsimds, m.cu.passes, m.cu.mem_latency
    );
    if !r.kernel.ends_with(label) {
        let _ = writeln!(s, "assembly {}", r.kernel);
    }
    let _ = writeln!(
        s,
        "{} workgroups per round, {} rounds, at most {} wavefronts resident; dispatch {} cycles per wavefront",
        k.workgroups_per_round,
        k.round_wavefronts.len(),
        k.resident_wavefronts,
        r.dispatch_cost.per_wavefront
    );
    let _ = writeln!(
        s,
        "{:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>20} {:>20}",
        "mode",
        "bound",
        "E",
        "E_WF",
        "IPET",
        "dispatch",
        "competing i/v/lsu/sm",
        "in a split region"
    );
    for b in &r.modes {
        let c = |c: &Competition| format!("{}/{}/{}/{}", c.issue, c.valu, c.lsu, c.split_merge);
        let _ = writeln!(
            s,
            "{:<9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>20} {:>20}",
            b.mode.name(),
            b.bound,
            b.per_wavefront,
            b.e_wf,
            b.ipet,
            b.dispatch,
            c(&b.competition),
            c(&b.competition_in_split)
        );
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if let Some(p) = r.mode(Mode::Pws) {
        let _ = writeln!(
            s,
            "PWS: e_s = {}, e_m = {}, selected split points (SB, peak {} live): {}",
            p.e_s,
            p.e_m,
            p.count,
            if p.selected.is_empty() {
                "none".to_string()
            } else {
                p.selected.join(", ")
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> KernelSource {
        KernelSource {
            text: text.to_string(),
            file: "k.s".to_string(),
        }
    }

    fn manifest(grid: u32, workgroup: u32) -> Manifest {
        Manifest::parse(
            &format!("kernel = \"k.s\"\ngrid = {grid}\nworkgroup = {workgroup}\n"),
            "l.toml",
        )
        .unwrap()
    }

    const CU: Machine = Machine {
        n_simd: 1,
        n_wfc: 2,
        vgprs_per_simd: 256,
        cu: CuTiming {
            passes: 4,
            mem_latency: 8,
            srf_copy_width: 8,
            spsimds: 2,
        },
        lds_bytes: 64 * 1024,
    };

    #[test]
    fn workgroups_run_in_rounds_of_whole_workgroups() {
        // 5 workgroups of 2 wavefronts on 2 slots: one at a time; the last has one wavefront.
        let r = Rounds::new(&manifest(64 * 9, 128), &CU, 0).unwrap();
        assert_eq!(r.workgroups_per_round, 1);
        assert_eq!(r.round_wavefronts, [2, 2, 2, 2, 1]);
        assert_eq!(r.resident_wavefronts, 2);
        // 3 single-wavefront workgroups on 2 slots: two rounds.
        let r = Rounds::new(&manifest(100, 40), &CU, 0).unwrap();
        assert_eq!(r.round_wavefronts, [2, 1]);
        // Two single-wavefront workgroups fit the slots, but one 40000-byte segment fills the
        // LDS.
        assert_eq!(
            Rounds::new(&manifest(100, 40), &CU, 40_000)
                .unwrap()
                .round_wavefronts,
            [1, 1, 1]
        );
        let e = Rounds::new(&manifest(256, 256), &CU, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("needs 4 wavefront slots; the compute unit has 2"),
            "{e}"
        );
    }

    #[test]
    fn vgpr_use_limits_the_slots_a_kernel_gets() {
        // GCN3: 4 SIMDs x 10 slots over 256-register VRFs, in granules of 4.
        let gcn3 = Machine {
            n_simd: 4,
            n_wfc: 10,
            ..CU
        };
        assert_eq!(gcn3.for_kernel(24).unwrap().slots(), 40);
        assert_eq!(gcn3.for_kernel(25).unwrap().slots(), 36);
        assert_eq!(gcn3.for_kernel(129).unwrap().slots(), 4);
        let tiny = Machine {
            vgprs_per_simd: 16,
            ..CU
        };
        let e = tiny.for_kernel(17).unwrap_err().to_string();
        assert!(e.contains("17 VGPRs") && e.contains("has 16"), "{e}");
        // Four single-wavefront workgroups of a 129-VGPR kernel on `CU` (one SIMD, two slots):
        // one slot holds such a wavefront, so one workgroup per round.
        let fat = CU.for_kernel(129).unwrap();
        let r = Rounds::new(&manifest(64 * 4, 64), &fat, 0).unwrap();
        assert_eq!(r.round_wavefronts, [1, 1, 1, 1]);
    }

    const KERNEL: &str = "k:\n    v_cmp_gt_i32_e32 vcc, 26, v0\n    s_and_saveexec_b64 s[0:1], vcc\n    s_xor_b64 s[0:1], exec, s[0:1]\n    split vcc_lo, vcc_hi\n    s_cbranch_execz ELSE\n    v_mul_lo_u32 v2, v0, 3\n    flat_load_dword v4, v[2:3]\nELSE:\n    s_or_saveexec_b64 s[0:1], s[0:1]\n    s_xor_b64 exec, exec, s[0:1]\n    s_cbranch_execz END\n    v_add_u32_e32 v2, vcc, 1, v0\n    v_add_u32_e32 v2, vcc, 1, v2\nEND:\n    s_or_b64 exec, exec, s[0:1]\n    merge\n    flat_store_dword v[2:3], v4\n    s_endpgm\n";

    #[test]
    fn launch_bound_adds_rounds_dispatch_and_interference() {
        let k = source(KERNEL);
        let one =
            analyse_launch(&manifest(64, 64), &k, &CU, &Mode::ALL, SplitPolicy::Marked).unwrap();
        let d = one.dispatch_cost;
        for b in &one.modes {
            assert_eq!(
                b.bound,
                d.start + d.drain + d.per_wavefront + d.release + b.per_wavefront,
                "{}",
                b.mode
            );
        }
        let nosplit = one.mode(Mode::NoSplit).unwrap();
        let pws = one.mode(Mode::Pws).unwrap();
        let dws = one.mode(Mode::Dws).unwrap();
        assert_eq!(pws.selected, ["k"]);
        // One split: at most one split context alive at once, whatever S.
        assert_eq!(pws.contexts_per_wavefront, 2);
        assert_eq!(nosplit.competition, Competition::default());
        // DWS charges its own split contexts once, in the work of the whole wavefront (not per
        // instruction); PWS charges them on the LSU between the split and the merge.
        assert_eq!(dws.competition, Competition::default());
        assert_eq!(dws.dws_bound, Some(DwsBound::Serialized));
        assert_eq!(dws.per_wavefront, dws.e_wf);
        // The child also runs the branch's s_cbranch_execz, the BSB's block and the join's
        // restore and merge, each instruction once, and the split and merge datapaths.
        assert!(dws.e_wf > nosplit.e_wf + dws.e_s + dws.e_m);
        let lemma = analyse_launch_with(
            &manifest(64, 64),
            &k,
            &CU,
            &[Mode::Dws],
            &LaunchOptions {
                dws: Some(DwsBound::Lemma57),
                ..LaunchOptions::default()
            },
        )
        .unwrap();
        let lemma = &lemma.modes[0];
        assert_eq!(lemma.per_wavefront, 3 * lemma.e_wf);
        assert!(lemma.per_wavefront > dws.per_wavefront);
        assert_eq!(pws.competition, Competition::default());
        assert_eq!(pws.competition_in_split.lsu, 1);
        // No-split runs the program without its split and merge; the rest is the same.
        let unsplit = |m: &ModeBound| -> Vec<pws_isa::Instruction> {
            m.kernel
                .program
                .instructions
                .iter()
                .map(|l| l.item.clone())
                .filter(|i| !matches!(i.opcode, pws_isa::Opcode::Split | pws_isa::Opcode::Merge))
                .collect()
        };
        assert_eq!(unsplit(pws), unsplit(nosplit));
        let wcet_at = |m: &ModeBound, op: pws_isa::Opcode| {
            let insts = &m.kernel.program.instructions;
            let pc = insts.iter().find(|l| l.item.opcode == op).unwrap().pc;
            m.blocks
                .iter()
                .find(|b| b.pc <= pc && pc <= b.last_pc)
                .unwrap()
                .wcet
        };
        // The load's block (the same instructions in both) pays the LSU competition of the
        // split wavefront in PWS only.
        let load = pws_isa::Opcode::FlatLoadDword;
        assert_eq!(
            wcet_at(pws, load) - wcet_at(nosplit, load),
            pws.table_in_split.lsu_wait - pws.table.lsu_wait
        );
        // Blocks: the RTL's boundaries (after the split and the merge), the merge block is sync.
        let pcs: Vec<u32> = pws.blocks.iter().map(|b| b.pc).collect();
        assert_eq!(pcs, [0, 16, 20, 36, 48, 56, 64]);
        assert!(pws.blocks.iter().filter(|b| b.sync).count() == 1);
        assert_eq!(pws.blocks[0].node, "k");
        // Four single-wavefront workgroups on two slots: two rounds, two wavefronts compete.
        let four = analyse_launch(
            &manifest(256, 64),
            &k,
            &CU,
            &[Mode::NoSplit],
            SplitPolicy::Marked,
        )
        .unwrap();
        let b = &four.modes[0];
        assert_eq!(four.rounds.round_wavefronts, [2, 2]);
        assert_eq!(b.competition.issue, 1);
        assert_eq!(
            b.bound,
            d.start + d.drain + 2 * (2 * d.per_wavefront + d.release + b.per_wavefront)
        );
        assert!(b.per_wavefront > nosplit.per_wavefront);
    }

    #[test]
    fn split_markers_run_the_split_merge_pass_in_the_split_modes() {
        let bare = KERNEL
            .replace("    split vcc_lo, vcc_hi\n", "")
            .replace("    merge\n", "");
        let count = |k: &LaunchKernel, op: pws_isa::Opcode| {
            k.program
                .instructions
                .iter()
                .filter(|l| l.item.opcode == op)
                .count()
        };
        let kernel = |text: &str, mode, all| LaunchKernel::new(&source(text), mode, all).unwrap();
        assert_eq!(
            count(
                &kernel(&bare, Mode::Pws, SplitPolicy::Marked),
                pws_isa::Opcode::Split
            ),
            0
        );
        let marked = bare.replace(
            "    s_cbranch_execz ELSE",
            "    ; pws: split\n    s_cbranch_execz ELSE",
        );
        // DWS splits at every divergent branch, marked or not.
        for k in [
            kernel(&marked, Mode::Pws, SplitPolicy::Marked),
            kernel(&bare, Mode::Dws, SplitPolicy::Marked),
            kernel(&bare, Mode::Pws, SplitPolicy::All),
        ] {
            assert_eq!(count(&k, pws_isa::Opcode::Split), 1);
            assert_eq!(count(&k, pws_isa::Opcode::Merge), 1);
        }
        // No-split runs the source as it is.
        assert_eq!(
            kernel(&marked, Mode::NoSplit, SplitPolicy::Marked).text,
            marked
        );
        // No-split runs the kernel without PWS's instructions, its lines kept in place.
        let nosplit = kernel(KERNEL, Mode::NoSplit, SplitPolicy::Marked);
        assert_eq!(count(&nosplit, pws_isa::Opcode::Split), 0);
        assert_eq!(count(&nosplit, pws_isa::Opcode::Merge), 0);
        assert_eq!(nosplit.text.lines().count(), KERNEL.lines().count());
        assert_eq!(
            nosplit.program.instructions.len() + 2,
            kernel(KERNEL, Mode::Pws, SplitPolicy::Marked)
                .program
                .instructions
                .len()
        );
        // The cost model splits the if whose shorter path (two adds) outlasts a split and a
        // merge, and not one whose else-path is one add.
        assert_eq!(
            count(
                &kernel(&bare, Mode::Pws, SplitPolicy::Auto),
                pws_isa::Opcode::Split
            ),
            1
        );
        let short = bare.replace("    v_add_u32_e32 v2, vcc, 1, v2\n", "");
        let k = kernel(&short, Mode::Pws, SplitPolicy::Auto);
        assert_eq!(count(&k, pws_isa::Opcode::Split), 0);
        assert_eq!(k.skipped.len(), 1);
        assert_eq!(
            k.skipped[0].reason,
            crate::compile::SkipReason::NotProfitable
        );
        assert!(
            k.skipped[0].detail.contains("cost"),
            "{}",
            k.skipped[0].detail
        );
        // A marker asks for the split whatever the cost model says.
        let marked_short = short.replace(
            "    s_cbranch_execz ELSE",
            "    ; pws: split\n    s_cbranch_execz ELSE",
        );
        assert_eq!(
            count(
                &kernel(&marked_short, Mode::Pws, SplitPolicy::Auto),
                pws_isa::Opcode::Split
            ),
            1
        );
    }

    #[test]
    fn straight_line_splits_are_charged_where_they_happen() {
        // Figure 5's shape: no branch, so Select has nothing to choose, but the RTL splits.
        let src = "k:\n    s_mov_b32 s0, -1\n    split s0, s1\n    flat_load_dword v1, v[2:3]\n    split s0, s2\n    v_mov_b32_e32 v1, v0\n    merge\n    merge\n    flat_store_dword v[2:3], v1\n    s_endpgm\n";
        let k = source(src);
        let r = analyse_launch(
            &manifest(64, 64),
            &k,
            &CU,
            &[Mode::NoSplit, Mode::Pws],
            SplitPolicy::Marked,
        )
        .unwrap();
        let pws = r.mode(Mode::Pws).unwrap();
        assert!(pws.selected.is_empty());
        // Straight-line code: the wavefront bound is the sum of the RTL's blocks, e_s and e_m
        // and the split contexts' waits included.
        let sum: u64 = pws.blocks.iter().map(|b| b.wcet).sum();
        assert_eq!(pws.e_wf, sum);
        let t = &pws.table_in_split;
        // The load after the first split waits for the two split contexts in the LSU, each
        // holding it at most for the kernel's longest memory instruction (a one-dword store:
        // passes · 3); the store after the last merge does not.
        assert_eq!(t.lsu_wait - pws.table.lsu_wait, 2 * 3 * CU.cu.passes);
        let nosplit = r.mode(Mode::NoSplit).unwrap();
        assert!(pws.e_wf >= nosplit.e_wf + 2 * pws.e_s + 2 * pws.e_m + t.lsu_wait);
    }

    #[test]
    fn block_check_and_tightness() {
        let k = source(KERNEL);
        let r = analyse_launch(
            &manifest(64, 64),
            &k,
            &CU,
            &[Mode::Pws],
            SplitPolicy::Marked,
        )
        .unwrap();
        let b = &r.modes[0];
        let first = &b.blocks[0];
        assert!(check_blocks(b, &[(first.pc, first.wcet)]).is_empty());
        assert_eq!(
            check_blocks(b, &[(first.pc, first.wcet + 1), (2, 1)]),
            [
                BlockExcess {
                    pc: first.pc,
                    measured: first.wcet + 1,
                    wcet: Some(first.wcet)
                },
                BlockExcess {
                    pc: 2,
                    measured: 1,
                    wcet: None
                }
            ]
        );
        let t = Tightness {
            kernel: "k".into(),
            mode: Mode::Pws,
            bound: 150,
            observed: 100,
        };
        assert!(t.safe() && (t.ratio() - 1.5).abs() < 1e-9);
        assert!(tightness_table(&[t]).contains("1.50x"));
    }
}
