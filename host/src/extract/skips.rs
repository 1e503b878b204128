//! The EXEC skip branches LLVM removed, put back for the split pass.
//!
//! LLVM lowers a divergent `if`/`else` to EXEC masking with an `s_cbranch_execz` over each
//! side, then drops the branch over a side short enough to run with an empty EXEC
//! (`SIPreEmitPeephole::removeExeczBranch`, about a dozen instructions). The side is then no
//! block of its own, and an `if`/`else` whose else lost its branch reads as an `if` without else
//! followed by straight-line code: a split there would overlap nothing, and a `PWS_SPLIT()` on
//! it would merge before the else. [`find`] recognises LLVM's masking idioms on straight-line
//! code and says where the branch was:
//!
//! - **then**: `s_and_saveexec_b64 sA, C` [`s_xor_b64 sA, exec, sA`] [`split`], skipping to the
//!   first reader of sA: the else's `s_or_saveexec_b64 sB, sA` or the join's
//!   `s_or_b64 exec, exec, sA`;
//! - **else**: `s_or_saveexec_b64 sB, sA` `s_xor_b64 exec, exec, sB`, skipping to the join's
//!   `s_or_b64 exec, exec, sB`.
//!
//! Instructions the scheduler moved inside an idiom, touching neither its masks nor EXEC, are
//! stepped over. At -O3 LLVM also copies the else's flip block into the end of the then-side
//! (tail duplication), so the then-side never reaches the flip and the `if` has no single
//! join; [`Side::FlipCopy`] puts back a branch to the flip in front of the copy.
//!
//! A branch is put back only where skipping is what the code would do anyway when EXEC is
//! empty: nothing in between is a branch target or a branch, a barrier or the end of the
//! program; no scalar register it writes is live at the target; and every EXEC write in it
//! keeps an empty EXEC empty (the nested idioms above, on masks saved in between). So the
//! program with the branch computes what the program without it does, for hand-written
//! assembly as for clang's. The split pass keeps a restored branch only where it splits.

use pws_isa::{Instruction, Opcode, Operand, Program};

use crate::flow::{EdgeKind, Flow};
use crate::liveness::Liveness;
use crate::masks::{exec_with, with_exec};
use crate::scalar::{effects, registers, ScalarSet};

/// Which side of an `if` a restored branch skips, or that it rejoins a flip LLVM copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Then,
    Else,
    /// The then-side ends in a copy of the else's flip block (`s_or_saveexec_b64`,
    /// `s_xor_b64 exec`, `s_cbranch_execz` to the join), as LLVM's tail duplication leaves it
    /// at -O3: an `s_branch` to the flip itself, before the copy, gives the `if`/`else` back
    /// its shape (the copy is then never run).
    FlipCopy,
}

/// A skip branch to put back, in the indices of the program it was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub side: Side,
    /// The branch goes right before this instruction (the first one it skips).
    pub at: usize,
    /// The instruction it skips to.
    pub target: usize,
}

/// The 64-bit SGPR pair an operand names, as its first register.
fn pair(op: Option<Operand>) -> Option<u8> {
    match op {
        Some(Operand::Sgpr(n)) if n % 2 == 0 => Some(n),
        _ => None,
    }
}

/// `op` reads or writes the SGPR pair at `n`.
fn touches(inst: &Instruction, n: u8) -> bool {
    let e = effects(inst);
    let mut regs = registers(Operand::Sgpr(n), 2);
    regs.any(|r| e.defs.contains(r) || e.uses.contains(r))
}

/// `s_xor_b64 d, exec, s` or `s_xor_b64 d, s, exec`: the pair s.
fn xor_with_exec(inst: &Instruction) -> Option<u8> {
    pair(with_exec(inst, Opcode::SXorB64))
}

/// `s_or_b64 exec, exec, s` (either order): the join's restore of the mask saved in pair s.
fn restores_from(inst: &Instruction) -> Option<u8> {
    pair(exec_with(inst, Opcode::SOrB64))
}

/// The first instruction from `from` that touches the pair `n`, if it is one `accept` takes
/// and the code up to it is one straight-line block.
fn first_reader(
    program: &Program,
    flow: &Flow,
    from: usize,
    n: u8,
    accept: impl Fn(&Instruction) -> bool,
) -> Option<usize> {
    let insts = &program.instructions;
    let block = flow.block_of(from);
    (from..flow.blocks[block].end)
        .find(|&j| touches(&insts[j].item, n))
        .filter(|&j| accept(&insts[j].item))
}

/// The first instruction from `from` in its block that could bear on the mask in the pair `n`:
/// one that touches the pair or EXEC, branches, or splits or merges. What comes before it is
/// code the scheduler placed inside the idiom (clang moves a kernel argument's `s_load_dword`
/// between an else's `s_or_saveexec_b64` and its `s_xor_b64 exec`), which runs either way.
fn past_unrelated(program: &Program, flow: &Flow, from: usize, n: u8) -> usize {
    let insts = &program.instructions;
    let Some(end) = insts
        .get(from)
        .map(|_| flow.blocks[flow.block_of(from)].end)
    else {
        return from;
    };
    (from..end)
        .find(|&j| {
            let x = &insts[j].item;
            touches(x, n)
                || x.writes_exec()
                || x.reads_exec()
                || x.is_branch()
                || matches!(
                    x.opcode,
                    Opcode::Split | Opcode::Merge | Opcode::SBarrier | Opcode::SEndpgm
                )
        })
        .unwrap_or(end)
}

/// With an empty EXEC on entry to `range`, EXEC is still empty at its end and nothing it
/// writes is read after it: skipping it changes nothing.
fn skippable(program: &Program, flow: &Flow, live: &Liveness, at: usize, target: usize) -> bool {
    let insts = &program.instructions;
    // One straight-line block from the instruction before the branch to the target.
    if at == 0 || at >= target || flow.block_of(at - 1) != flow.block_of(target) {
        return false;
    }
    let mut written = ScalarSet::EMPTY;
    // Pairs that hold zero when EXEC was empty on entry: masks saved in the range.
    let mut zero: Vec<u8> = Vec::new();
    for inst in insts[at..target].iter().map(|l| &l.item) {
        if matches!(inst.opcode, Opcode::SBarrier | Opcode::SEndpgm) || inst.is_branch() {
            return false;
        }
        let e = effects(inst);
        if inst.writes_exec() {
            let keeps_zero = match inst.opcode {
                // exec &= C, saving the old (empty) exec.
                Opcode::SAndSaveexecB64 => true,
                Opcode::SAndB64 | Opcode::SAndn2B64 => exec_with(inst, inst.opcode).is_some(),
                // exec |= s or exec ^= s with s a mask saved in the range.
                Opcode::SOrSaveexecB64 => pair(inst.src(0)).is_some_and(|s| zero.contains(&s)),
                Opcode::SOrB64 => restores_from(inst).is_some_and(|s| zero.contains(&s)),
                Opcode::SXorB64 => {
                    pair(exec_with(inst, Opcode::SXorB64)).is_some_and(|s| zero.contains(&s))
                }
                _ => false,
            };
            if !keeps_zero {
                return false;
            }
        }
        let saved = match inst.opcode {
            Opcode::SAndSaveexecB64 | Opcode::SOrSaveexecB64 => pair(inst.dst),
            Opcode::SXorB64 => xor_with_exec(inst)
                .filter(|s| zero.contains(s))
                .and(pair(inst.dst)),
            _ => None,
        };
        zero.retain(|&s| !registers(Operand::Sgpr(s), 2).any(|r| e.defs.contains(r)));
        if let Some(s) = saved {
            zero.push(s);
        }
        written = written.union(e.defs.minus(ScalarSet::EXEC));
    }
    written.intersection(live.live_before(target)).is_empty()
}

/// A block's successor, past blocks that are a lone `s_branch` (the trampolines block
/// placement leaves).
fn through_trampolines(program: &Program, flow: &Flow, mut b: usize) -> usize {
    for _ in 0..flow.blocks.len() {
        let block = &flow.blocks[b];
        if block.len() != 1 || program.instructions[block.start].item.opcode != Opcode::SBranch {
            break;
        }
        match flow.succ[b].as_slice() {
            [e] => b = e.to,
            _ => break,
        }
    }
    b
}

/// The successor of block `b` along edges of `kind`, past trampolines.
fn successor(program: &Program, flow: &Flow, b: usize, kind: EdgeKind) -> Option<usize> {
    let e = flow.succ[b].iter().find(|e| e.kind == kind)?;
    Some(through_trampolines(program, flow, e.to))
}

/// The copies of else-flip blocks at the end of other blocks: a flip block is exactly
/// `s_or_saveexec_b64 sB, sA` `s_xor_b64 exec, exec, sB` `s_cbranch_execz J`; a copy is the
/// same instructions ending another block, whose branch goes to J too and whose fall-through
/// leads where the flip's does. Branching to the flip instead runs what the copy runs. Linear
/// in the program: flips are looked up by their first two instructions and successors.
fn flip_copies(program: &Program, flow: &Flow) -> Vec<Skip> {
    let insts = &program.instructions;
    // What a flip and a copy of it share: its first two instructions and where it goes.
    type Key = (Instruction, Instruction, Option<usize>, Option<usize>);
    let key = |b: usize, at: usize| -> Key {
        (
            insts[at].item,
            insts[at + 1].item,
            successor(program, flow, b, EdgeKind::Taken),
            successor(program, flow, b, EdgeKind::FallThrough),
        )
    };
    let ends_in_flip = |b: usize, at: usize| {
        let [or, xor, br] = [at, at + 1, at + 2].map(|i| &insts[i].item);
        or.opcode == Opcode::SOrSaveexecB64
            && br.opcode == Opcode::SCbranchExecz
            && pair(exec_with(xor, Opcode::SXorB64)).is_some_and(|x| Some(x) == pair(or.dst))
            && flow.blocks[b].end == at + 3
    };
    let reachable: Vec<usize> = (0..flow.blocks.len())
        .filter(|&b| flow.reachable[b] && flow.blocks[b].len() >= 3)
        .collect();
    let mut flips: std::collections::HashMap<Key, Vec<usize>> = std::collections::HashMap::new();
    for &f in &reachable {
        let start = flow.blocks[f].start;
        if flow.blocks[f].len() == 3 && ends_in_flip(f, start) {
            flips.entry(key(f, start)).or_default().push(f);
        }
    }
    // A copy ends a longer block (the then-side's code before it): two equal flip blocks
    // are not copies of each other, or each would branch to the other.
    let mut out = Vec::new();
    for &x in reachable.iter().filter(|&&x| flow.blocks[x].len() > 3) {
        let at = flow.blocks[x].end - 3;
        if !ends_in_flip(x, at) {
            continue;
        }
        if let Some(&f) = flips.get(&key(x, at)).and_then(|m| m.first()) {
            out.push(Skip {
                side: Side::FlipCopy,
                at,
                target: flow.blocks[f].start,
            });
        }
    }
    out
}

/// Where LLVM's skip branches were, and the flip copies to rejoin, in program order.
pub fn find(program: &Program, flow: &Flow) -> Vec<Skip> {
    let insts = &program.instructions;
    let live = Liveness::new(program, flow);
    let mut out = Vec::new();
    let next_is_skip = |k: usize| {
        insts.get(k).is_some_and(|l| {
            matches!(
                l.item.opcode,
                Opcode::SCbranchExecz | Opcode::SCbranchExecnz
            )
        })
    };
    for i in (0..insts.len()).filter(|&i| flow.reachable[flow.block_of(i)]) {
        let inst = &insts[i].item;
        let found = match inst.opcode {
            Opcode::SAndSaveexecB64 => pair(inst.dst).and_then(|a| {
                let mut at = i + 1;
                let xor = past_unrelated(program, flow, at, a);
                if insts.get(xor).is_some_and(|l| {
                    xor_with_exec(&l.item) == Some(a) && pair(l.item.dst) == Some(a)
                }) {
                    at = xor + 1;
                }
                if insts
                    .get(at)
                    .is_some_and(|l| l.item.opcode == Opcode::Split)
                {
                    at += 1;
                }
                if at >= insts.len() || next_is_skip(at) {
                    return None;
                }
                let target = first_reader(program, flow, at, a, |x| {
                    (x.opcode == Opcode::SOrSaveexecB64 && pair(x.src(0)) == Some(a))
                        || restores_from(x) == Some(a)
                })?;
                Some(Skip {
                    side: Side::Then,
                    at,
                    target,
                })
            }),
            Opcode::SOrSaveexecB64 => pair(inst.dst).and_then(|b| {
                let flip = past_unrelated(program, flow, i + 1, b);
                if pair(exec_with(&insts.get(flip)?.item, Opcode::SXorB64)) != Some(b) {
                    return None;
                }
                let at = flip + 1;
                if at >= insts.len() || next_is_skip(at) {
                    return None;
                }
                let target = first_reader(program, flow, at, b, |x| restores_from(x) == Some(b))?;
                Some(Skip {
                    side: Side::Else,
                    at,
                    target,
                })
            }),
            _ => None,
        };
        if let Some(s) = found.filter(|s| skippable(program, flow, &live, s.at, s.target)) {
            out.push(s);
        }
    }
    out.extend(flip_copies(program, flow));
    out.sort_by_key(|s| s.at);
    out
}

/// clang-14 -O3's if/else: the else's flip block copied into the end of the then-side.
#[cfg(test)]
pub(crate) const FLIP_COPIED: &str = "k:
  v_cmp_eq_u32_e32 vcc, 1, v1
  s_and_saveexec_b64 s[0:1], vcc
  s_xor_b64 s[0:1], exec, s[0:1]
  s_cbranch_execnz .LThen
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_xor_b64 exec, exec, s[0:1]
  s_cbranch_execz .LJoin
  s_branch .LElse
.LThen:
  v_mul_lo_u32 v0, v0, 15
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_xor_b64 exec, exec, s[0:1]
  s_cbranch_execz .LJoin
.LElse:
  v_mul_lo_u32 v0, v0, 9
.LJoin:
  s_or_b64 exec, exec, s[0:1]
  s_endpgm
";

#[cfg(test)]
mod tests {
    use super::*;

    fn skips(src: &str) -> Vec<(Side, u32, u32)> {
        let p = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&p, "t.s").unwrap();
        find(&p, &flow)
            .into_iter()
            .map(|s| {
                (
                    s.side,
                    p.instructions[s.at].line,
                    p.instructions[s.target].line,
                )
            })
            .collect()
    }

    /// clang-14's if/else with both branches dropped.
    const BOTH: &str = "k:
  v_cmp_eq_u32_e32 vcc, 1, v3
  s_and_saveexec_b64 s[0:1], vcc
  s_xor_b64 s[0:1], exec, s[0:1]
  v_mul_lo_u32 v3, v2, 3
  s_or_saveexec_b64 s[0:1], s[0:1]
  s_xor_b64 exec, exec, s[0:1]
  v_mul_lo_u32 v3, v2, 9
  s_or_b64 exec, exec, s[0:1]
  s_endpgm
";

    #[test]
    fn both_sides_of_a_straight_line_if_else_are_found() {
        assert_eq!(skips(BOTH), [(Side::Then, 5, 6), (Side::Else, 8, 9)]);
    }

    #[test]
    fn code_the_scheduler_put_inside_an_idiom_is_stepped_over() {
        // clang -O2 moves a kernel argument's load between the else's two instructions.
        let src = BOTH.replace(
            "  s_or_saveexec_b64 s[0:1], s[0:1]\n",
            "  s_or_saveexec_b64 s[0:1], s[0:1]\n  s_load_dword s6, s[6:7], 0x10\n",
        );
        assert_eq!(skips(&src), [(Side::Then, 5, 6), (Side::Else, 9, 10)]);
        let src = BOTH.replace(
            "  s_and_saveexec_b64 s[0:1], vcc\n",
            "  s_and_saveexec_b64 s[0:1], vcc\n  s_mov_b32 s7, 1\n",
        );
        assert_eq!(skips(&src), [(Side::Then, 6, 7), (Side::Else, 9, 10)]);
        // What touches the saved mask or EXEC in between ends the idiom.
        for between in [
            "s_mov_b32 s1, 0",
            "s_mov_b64 exec, s[0:1]",
            "v_mov_b32_e32 v1, 0",
        ] {
            let src = BOTH.replace(
                "  s_or_saveexec_b64 s[0:1], s[0:1]\n",
                &format!("  s_or_saveexec_b64 s[0:1], s[0:1]\n  {between}\n"),
            );
            assert!(
                !skips(&src).iter().any(|s| s.0 == Side::Else),
                "{between}: {:?}",
                skips(&src)
            );
        }
    }

    #[test]
    fn a_flip_copied_into_the_then_side_is_rejoined() {
        assert_eq!(skips(FLIP_COPIED), [(Side::FlipCopy, 12, 6)]);
        // A copy that differs, or leads elsewhere, is not the flip's.
        for (from, to) in [
            (
                "  s_xor_b64 exec, exec, s[0:1]\n  s_cbranch_execz .LJoin\n.LElse:",
                "  s_xor_b64 exec, exec, s[2:3]\n  s_cbranch_execz .LJoin\n.LElse:",
            ),
            (
                "  s_cbranch_execz .LJoin\n.LElse:",
                "  s_cbranch_execz .LElse\n.LElse:",
            ),
            ("  s_branch .LElse\n", "  s_branch .LJoin\n"),
        ] {
            assert!(FLIP_COPIED.contains(from));
            let src = FLIP_COPIED.replace(from, to);
            assert!(
                !skips(&src).iter().any(|s| s.0 == Side::FlipCopy),
                "{to}: {:?}",
                skips(&src)
            );
        }
    }

    #[test]
    fn a_side_that_kept_its_branch_is_left() {
        let src = BOTH.replace(
            "  v_mul_lo_u32 v3, v2, 3\n",
            "  s_cbranch_execz .LBB0_2\n  v_mul_lo_u32 v3, v2, 3\n.LBB0_2:\n",
        );
        assert_eq!(skips(&src), [(Side::Else, 10, 11)]);
    }

    #[test]
    fn nested_masking_keeps_an_empty_exec_empty() {
        let src = BOTH.replace(
            "  v_mul_lo_u32 v3, v2, 9\n",
            "  v_cmp_lt_u32_e64 s[4:5], 2, v2\n  s_and_saveexec_b64 s[2:3], s[4:5]\n  v_add_u32_e32 v3, vcc, 1, v3\n  s_or_b64 exec, exec, s[2:3]\n",
        );
        let found = skips(&src);
        assert!(found.contains(&(Side::Else, 8, 12)), "{found:?}");
        assert!(found.contains(&(Side::Then, 10, 11)), "{found:?}");
    }

    #[test]
    fn skipping_must_not_change_what_runs_after() {
        // A scalar result of the side read after the join.
        let src = BOTH
            .replace("  v_mul_lo_u32 v3, v2, 9\n", "  s_add_u32 s6, s6, 1\n")
            .replace("  s_endpgm\n", "  s_add_u32 s7, s6, 0\n  s_endpgm\n");
        assert_eq!(skips(&src), [(Side::Then, 5, 6)]);
        // An EXEC write that does not keep an empty EXEC empty.
        let src = BOTH.replace("  v_mul_lo_u32 v3, v2, 9\n", "  s_mov_b64 exec, -1\n");
        assert_eq!(skips(&src), [(Side::Then, 5, 6)]);
        // A barrier runs whatever EXEC holds.
        let src = BOTH.replace("  v_mul_lo_u32 v3, v2, 3\n", "  s_barrier\n");
        assert_eq!(skips(&src), [(Side::Else, 8, 9)]);
        // A label someone branches to inside the side.
        let src = BOTH.replace(
            "  v_mul_lo_u32 v3, v2, 9\n",
            "L:\n  v_mul_lo_u32 v3, v2, 9\n  s_cbranch_scc1 L\n",
        );
        assert_eq!(skips(&src), [(Side::Then, 5, 6)]);
    }
}
