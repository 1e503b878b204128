//! Scalar liveness over the physical control flow, and the check that makes a split
//! semantics-preserving.
//!
//! A split wavefront shares the vector registers with its parent but has its own scalar state
//! (design.md decisions 3 and 4): at the merge the child's SGPRs, VCC, M0 and SCC are dropped
//! and the two EXECs are ORed. Compared with the unsplit program, which runs the then-path and
//! then the else-path, the split program differs in two ways:
//!
//! - after the merge the parent holds the scalar values of the then-path only: anything the
//!   else-path (or the join code both run before the merge) wrote is lost if it is read later;
//! - the child runs the else-path with the scalar state of the split point: a value the
//!   then-path wrote and the else-path reads is stale in the child.
//!
//! [`split_hazards`] finds both with liveness (EXEC excluded: the merge's OR restores it).

use pws_isa::Program;

use crate::flow::Flow;
use crate::scalar::{describe, effects, ScalarSet};

/// Live scalar registers before and after every instruction: kept whole, so that a query is
/// a lookup (a straight-line kernel is one block, and walking it per query is quadratic).
#[derive(Debug, Clone)]
pub struct Liveness {
    before: Vec<ScalarSet>,
    after: Vec<ScalarSet>,
}

impl Liveness {
    pub fn new(program: &Program, flow: &Flow) -> Liveness {
        let insts = &program.instructions;
        let nb = flow.blocks.len();
        let mut live_in = vec![ScalarSet::EMPTY; nb];
        let live_out = |live_in: &[ScalarSet], b: usize| {
            flow.succ[b]
                .iter()
                .fold(ScalarSet::EMPTY, |a, e| a.union(live_in[e.to]))
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in flow.order().iter().rev() {
                let mut live = live_out(&live_in, b);
                for i in flow.blocks[b].clone().rev() {
                    let e = effects(&insts[i].item);
                    live = live.minus(e.defs).union(e.uses);
                }
                if live != live_in[b] {
                    live_in[b] = live;
                    changed = true;
                }
            }
        }
        let mut before = vec![ScalarSet::EMPTY; insts.len()];
        let mut after = vec![ScalarSet::EMPTY; insts.len()];
        for b in 0..nb {
            let mut live = live_out(&live_in, b);
            for i in flow.blocks[b].clone().rev() {
                after[i] = live;
                let e = effects(&insts[i].item);
                live = live.minus(e.defs).union(e.uses);
                before[i] = live;
            }
        }
        Liveness { before, after }
    }

    /// Registers live right after instruction `i`.
    pub fn live_after(&self, i: usize) -> ScalarSet {
        self.after[i]
    }

    /// Registers live right before instruction `i`.
    pub fn live_before(&self, i: usize) -> ScalarSet {
        self.before[i]
    }
}

/// A split region as the hazard check sees it.
#[derive(Debug, Clone)]
pub struct Region<'a> {
    /// Blocks of the then-path (run by the parent only).
    pub path1: &'a [usize],
    /// The else-flip block, run by both (none for an `if` without `else`).
    pub flip: Option<usize>,
    /// Blocks of the else-path (run by the child only).
    pub path2: &'a [usize],
    /// Instructions of the join that both run before the merge.
    pub join_prefix: std::ops::Range<usize>,
    /// The merge comes right after this instruction (`None`: before `join_prefix.start`).
    pub merge_after: Option<usize>,
}

/// Why a split would change what the program computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The registers concerned, as llvm-mc names them.
    pub registers: String,
    /// Source line of an instruction that writes them.
    pub def_line: u32,
    /// Source line of an instruction that reads the value it should not see.
    pub use_line: u32,
    pub kind: HazardKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HazardKind {
    /// Written on the else-path (or in the join before the merge) and read after the merge,
    /// where the child's value is gone.
    LiveAfterMerge,
    /// Written on the then-path and read by the child on the else-path, which runs with the
    /// value of the split point.
    StaleInSplit,
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            HazardKind::LiveAfterMerge => write!(
                f,
                "{} is written inside the split region (line {}) and read after the merge (line {}); the split wavefront's copy is dropped at the merge",
                self.registers, self.def_line, self.use_line
            ),
            HazardKind::StaleInSplit => write!(
                f,
                "{} is written on the then-path (line {}) and read on the else-path (line {}); the split wavefront runs the else-path with the value from before the split",
                self.registers, self.def_line, self.use_line
            ),
        }
    }
}

fn defs_of(program: &Program, flow: &Flow, blocks: &[usize]) -> ScalarSet {
    blocks
        .iter()
        .flat_map(|&b| flow.blocks[b].clone())
        .fold(ScalarSet::EMPTY, |a, i| {
            a.union(effects(&program.instructions[i].item).defs)
        })
}

fn first_def(program: &Program, flow: &Flow, blocks: &[usize], regs: ScalarSet) -> u32 {
    blocks
        .iter()
        .flat_map(|&b| flow.blocks[b].clone())
        .find(|&i| {
            !effects(&program.instructions[i].item)
                .defs
                .intersection(regs)
                .is_empty()
        })
        .map_or(0, |i| program.instructions[i].line)
}

/// The first instruction reached from `start` (in `start`'s block, then its successors) that
/// reads one of `regs` before writing it.
fn first_use(program: &Program, flow: &Flow, start: usize, regs: ScalarSet) -> Option<usize> {
    let insts = &program.instructions;
    let mut seen = vec![false; flow.blocks.len()];
    let mut work = vec![(start, regs)];
    while let Some((i0, regs)) = work.pop() {
        let b = flow.block_of(i0);
        let mut regs = regs;
        for i in i0..flow.blocks[b].end {
            let e = effects(&insts[i].item);
            if !e.uses.intersection(regs).is_empty() {
                return Some(i);
            }
            regs = regs.minus(e.defs);
        }
        for e in &flow.succ[b] {
            if !std::mem::replace(&mut seen[e.to], true) {
                work.push((flow.blocks[e.to].start, regs));
            }
        }
    }
    None
}

/// Everything that makes splitting `region` change the program's results.
pub fn split_hazards(
    program: &Program,
    flow: &Flow,
    live: &Liveness,
    region: &Region,
) -> Vec<Hazard> {
    let insts = &program.instructions;
    let mut out = Vec::new();
    // The parent reaches the join with the unsplit program's state except what the else-path
    // wrote; join code before the merge recomputes a register the same way unless it reads
    // one of those (transitively).
    let mut differs = defs_of(program, flow, region.path2);
    for i in region.join_prefix.clone() {
        let e = effects(&insts[i].item);
        if e.uses
            .intersection(differs)
            .minus(ScalarSet::EXEC)
            .is_empty()
        {
            differs = differs.minus(e.defs);
        } else {
            differs = differs.union(e.defs);
        }
    }
    let after_merge = match region.merge_after {
        Some(i) => live.live_after(i),
        None => live.live_before(region.join_prefix.start),
    };
    let lost = differs.intersection(after_merge).minus(ScalarSet::EXEC);
    if !lost.is_empty() {
        let resume = region
            .merge_after
            .map_or(region.join_prefix.start, |i| i + 1);
        let use_line = first_use(program, flow, resume.min(insts.len() - 1), lost)
            .map_or(0, |i| insts[i].line);
        let mut def_blocks: Vec<usize> = region.path2.to_vec();
        def_blocks.push(flow.block_of(region.join_prefix.start));
        out.push(Hazard {
            registers: describe(lost),
            def_line: first_def(program, flow, &def_blocks, lost),
            use_line,
            kind: HazardKind::LiveAfterMerge,
        });
    }

    // What the child reads before writing it, on its way from the flip to the merge.
    let then_defs = defs_of(program, flow, region.path1).minus(ScalarSet::EXEC);
    if !then_defs.is_empty() {
        let child_blocks: Vec<usize> = region.flip.iter().chain(region.path2).copied().collect();
        let mut stale = None;
        // Must-written sets along the child's blocks in topological order.
        let order: Vec<usize> = flow
            .order()
            .iter()
            .copied()
            .filter(|b| child_blocks.contains(b))
            .collect();
        let mut written: Vec<Option<ScalarSet>> = vec![None; flow.blocks.len()];
        if let Some(&first) = order.first() {
            written[first] = Some(ScalarSet::EMPTY);
        }
        let mut scan = |insts_range: std::ops::Range<usize>, mut w: ScalarSet| -> ScalarSet {
            for i in insts_range {
                let e = effects(&insts[i].item);
                let exposed = e.uses.intersection(then_defs).minus(w);
                if stale.is_none() && !exposed.is_empty() {
                    stale = Some((i, exposed));
                }
                w = w.union(e.defs);
            }
            w
        };
        let mut at_join = None::<ScalarSet>;
        for &b in &order {
            let w = written[b].unwrap_or(ScalarSet::EMPTY);
            let out_w = scan(flow.blocks[b].clone(), w);
            for t in flow.forward_succ(b) {
                if child_blocks.contains(&t) {
                    written[t] = Some(written[t].map_or(out_w, |x| x.intersection(out_w)));
                } else {
                    at_join = Some(at_join.map_or(out_w, |x| x.intersection(out_w)));
                }
            }
        }
        scan(
            region.join_prefix.clone(),
            at_join.unwrap_or(ScalarSet::EMPTY),
        );
        if let Some((i, regs)) = stale {
            out.push(Hazard {
                registers: describe(regs),
                def_line: first_def(program, flow, region.path1, regs),
                use_line: insts[i].line,
                kind: HazardKind::StaleInSplit,
            });
        }
    }
    out
}
