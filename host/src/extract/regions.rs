//! Divergent `if` regions on the physical flow: which blocks end in a divergent branch, where
//! each region's else, join and EXEC restore are, where its merge goes, and whether it can
//! split (docs/wcet.md, "Input: GCN3 assembly").

use pws_isa::{Opcode, Operand, Program};

use super::{MergeAt, Note, Unsplittable};
use crate::flow::{EdgeKind, Flow};
use crate::liveness::{split_hazards, Liveness, Region};
use crate::masks::{exec_change, find_restore, ExecChange, Provenance};

/// A recognised divergent `if` on the flow's blocks.
pub(super) struct IfRegion {
    /// The block ending in the divergent branch.
    pub block: usize,
    pub mask: Operand,
    /// The else-flip block (None: an `if` without else).
    pub flip: Option<usize>,
    pub join: usize,
    pub restore: Option<usize>,
    pub merge_at: MergeAt,
    /// Blocks of the then-path and of the else-path, sorted.
    pub path1: Vec<usize>,
    pub path2: Vec<usize>,
    pub unsplittable: Option<Unsplittable>,
}

impl IfRegion {
    fn contains(&self, b: usize) -> bool {
        b == self.block
            || self.flip == Some(b)
            || self.path1.binary_search(&b).is_ok()
            || self.path2.binary_search(&b).is_ok()
    }
}

fn is_exec_branch(program: &Program, flow: &Flow, b: usize) -> bool {
    matches!(
        program.instructions[flow.last(b)].item.opcode,
        Opcode::SCbranchExecz | Opcode::SCbranchExecnz
    )
}

/// For each of the flow's loops: an exit or back edge is taken on EXEC, so lanes leave it at
/// different iterations.
pub(super) fn divergent_loops(program: &Program, flow: &Flow) -> Vec<bool> {
    flow.loops
        .iter()
        .map(|l| {
            l.exits
                .iter()
                .any(|&(b, _)| is_exec_branch(program, flow, b))
                || l.latches.iter().any(|&b| is_exec_branch(program, flow, b))
        })
        .collect()
}

/// The successors of a block ending in an EXEC branch: (taken when EXEC is not zero, skip).
fn exec_successors(program: &Program, flow: &Flow, b: usize) -> Option<(usize, usize)> {
    let op = program.instructions[flow.last(b)].item.opcode;
    if !matches!(op, Opcode::SCbranchExecz | Opcode::SCbranchExecnz) {
        return None;
    }
    let edge = |k| flow.succ[b].iter().find(|e| e.kind == k).map(|e| e.to);
    let (taken, fall) = (edge(EdgeKind::Taken)?, edge(EdgeKind::FallThrough)?);
    Some(if op == Opcode::SCbranchExecz {
        (fall, taken)
    } else {
        (taken, fall)
    })
}

/// Blocks reachable from `from` without entering `stops`, sorted.
fn reach_without(flow: &Flow, from: usize, stops: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; flow.blocks.len()];
    let mut work = vec![from];
    let mut out = Vec::new();
    while let Some(x) = work.pop() {
        if stops.contains(&x) || std::mem::replace(&mut seen[x], true) {
            continue;
        }
        out.push(x);
        work.extend(flow.succ[x].iter().map(|e| e.to));
    }
    out.sort_unstable();
    out
}

/// Every divergent `if` region, innermost first; shapes that are not one get a note.
pub(super) fn find(
    program: &Program,
    flow: &Flow,
    divergent: &[bool],
    notes: &mut Vec<Note>,
) -> Vec<IfRegion> {
    let prov = Provenance::new(program, flow);
    let live = Liveness::new(program, flow);
    let insts = &program.instructions;
    let line_of = |i: usize| insts[i].line;
    let mut found = Vec::new();
    for b in (0..flow.blocks.len()).filter(|&b| flow.reachable[b]) {
        let Some((then_succ, t)) = exec_successors(program, flow, b) else {
            continue;
        };
        // A branch that leaves its loop or jumps back is loop control, not an if.
        let in_loop = |x: usize| {
            !flow.is_back_edge(b, x) && flow.loop_of(b).is_none_or(|l| flow.loops[l].contains(x))
        };
        if !(in_loop(then_succ) && in_loop(t)) {
            continue;
        }
        let last = flow.last(b);
        let mut note = |msg: String| {
            notes.push(Note {
                line: line_of(last),
                message: msg,
            })
        };
        let narrow = match exec_change(program, flow, &prov, b) {
            ExecChange::Write { inst } => inst,
            ExecChange::Flip(_) => continue,
            ExecChange::None => {
                note(format!(
                    "{} does not follow an EXEC write in its block (expected the if's s_and_saveexec_b64 or s_and_b64 exec, exec, ...); it stays an ordinary branch and cannot split",
                    insts[last].item.opcode.mnemonic()
                ));
                continue;
            }
        };
        if flow.ipdom(b) != Some(t) {
            note(format!(
                "the divergent branch's skip target (line {}) is not where its paths meet (not a single-entry, single-exit if region, e.g. a join LLVM duplicated into both paths); it stays an ordinary branch and cannot split",
                line_of(flow.blocks[t].start)
            ));
            continue;
        }
        let created = flow.blocks[b].clone();
        let is_else = matches!(
            exec_change(program, flow, &prov, t),
            ExecChange::Flip(f) if f.input.is_some_and(|o| created.contains(&o))
        );
        let (join, path2) = if is_else {
            match exec_successors(program, flow, t) {
                Some((then2, j)) if flow.ipdom(t) == Some(j) => {
                    (j, reach_without(flow, then2, &[t, j]))
                }
                _ => {
                    note(format!(
                        "the else at line {} does not end in a branch over its path to the join; the if stays an ordinary branch and cannot split",
                        line_of(flow.blocks[t].start)
                    ));
                    continue;
                }
            }
        } else {
            (t, Vec::new())
        };
        let flip = is_else.then_some(t);
        let path1 = reach_without(flow, then_succ, &[b, t]);
        let region_blocks: Vec<usize> = path1.iter().chain(&path2).chain(&flip).copied().collect();
        if let Some(&x) = region_blocks.iter().find(|&&x| !flow.dominates(b, x)) {
            note(format!(
                "control enters the divergent region at line {} from outside; the if stays an ordinary branch and cannot split",
                line_of(flow.blocks[x].start)
            ));
            continue;
        }
        let restore = find_restore(
            program,
            flow,
            &prov,
            join,
            if is_else {
                flow.blocks[t].clone()
            } else {
                created
            },
        );
        let merge_at = match restore {
            Some(r) => MergeAt::After(r),
            None => MergeAt::Before(flow.blocks[join].start),
        };
        let prefix = flow.blocks[join].start..merge_at.gap().min(flow.blocks[join].end);
        // The region's first instruction of a kind that keeps it from splitting.
        let first_in_region = |kind: fn(Opcode) -> bool| {
            region_blocks
                .iter()
                .flat_map(|&x| flow.blocks[x].clone())
                .chain(prefix.clone())
                .find(|&i| kind(insts[i].item.opcode))
        };
        let barrier = first_in_region(|op| op == Opcode::SBarrier);
        let lane_access =
            first_in_region(|op| matches!(op, Opcode::VReadlaneB32 | Opcode::VWritelaneB32));
        let divergent_loop = flow
            .loops_around(b)
            .find(|&l| divergent[l])
            .map(|l| line_of(flow.blocks[flow.loops[l].header].start));
        let unsplittable = if let Some(header_line) = divergent_loop {
            Some(Unsplittable::DivergentLoop { header_line })
        } else if let Some(i) = barrier {
            Some(Unsplittable::Barrier { line: line_of(i) })
        } else if let Some(i) = lane_access {
            Some(Unsplittable::LaneAccess {
                line: line_of(i),
                opcode: insts[i].item.opcode,
            })
        } else {
            let hazards = split_hazards(
                program,
                flow,
                &live,
                &Region {
                    path1: &path1,
                    flip,
                    path2: &path2,
                    join_prefix: prefix,
                    merge_after: match merge_at {
                        MergeAt::After(i) => Some(i),
                        MergeAt::Before(_) => None,
                    },
                },
            );
            (!hazards.is_empty()).then_some(Unsplittable::Hazards(hazards))
        };
        found.push(IfRegion {
            block: b,
            mask: split_mask(program, narrow, last),
            flip,
            join,
            restore,
            merge_at,
            path1,
            path2,
            unsplittable,
        });
    }
    // Merges at one place pair with splits by nesting: inner regions' merges come first, so an
    // enclosing region that ends at the same join merges after them.
    found.sort_by_key(|f| f.path1.len() + f.path2.len());
    for k in 0..found.len() {
        for inner in 0..k {
            if found[k].contains(found[inner].block)
                && found[inner].join == found[k].join
                && found[inner].merge_at.gap() > found[k].merge_at.gap()
            {
                found[k].merge_at = found[inner].merge_at;
            }
        }
    }
    found
}

/// The split mask for an `if` whose EXEC narrowing is instruction `narrow` and whose branch is
/// `branch`: the condition C of `s_and_saveexec_b64 S, C` or `s_and_b64 exec, exec, C`
/// (EXEC = EXEC & C, so C holds the then-lanes) when nothing in between overwrites it, else
/// EXEC.
fn split_mask(program: &Program, narrow: usize, branch: usize) -> Operand {
    let insts = &program.instructions;
    let x = &insts[narrow].item;
    let cond = match x.opcode {
        Opcode::SAndSaveexecB64 => x.src(0),
        Opcode::SAndB64 if x.dst == Some(Operand::ExecLo) => match (x.src(0), x.src(1)) {
            (Some(Operand::ExecLo), c) | (c, Some(Operand::ExecLo)) => c,
            _ => None,
        },
        _ => None,
    };
    let Some(c) =
        cond.filter(|c| matches!(c, Operand::Sgpr(n) if n % 2 == 0) || *c == Operand::VccLo)
    else {
        return Operand::ExecLo;
    };
    let regs: Vec<_> = crate::scalar::registers(c, 2).collect();
    let clobbered = (narrow..branch).any(|i| {
        let d = crate::scalar::effects(&insts[i].item).defs;
        regs.iter().any(|&r| d.contains(r))
    });
    if clobbered {
        Operand::ExecLo
    } else {
        c
    }
}
