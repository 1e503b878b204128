//! Skip branches that enter a loop past its header, taken out so that the flow is reducible.
//!
//! LLVM keeps an `s_cbranch_execz` over a region that holds a loop, and when a loop's body
//! begins with such a region, loop rotation puts one copy of its guard before the loop and one
//! at its bottom. The guard before the loop then skips into the middle of it:
//!
//! ```text
//!     s_and_saveexec_b64 s[4:5], vcc
//!     s_cbranch_execz .LBB0_6      ; skips the inner loop, into the outer one
//! .LBB0_3:                         ; the inner loop, run by the lanes of vcc
//!     ...
//! .LBB0_6:                         ; the outer loop's header as LLVM sees it
//!     s_or_b64 exec, exec, s[4:5]
//!     ...
//!     s_and_saveexec_b64 s[4:5], vcc
//!     s_cbranch_execnz .LBB0_3     ; next iteration, through the inner loop
//!     s_branch .LBB0_6
//! ```
//!
//! The cycle through .LBB0_3 and .LBB0_6 has two entries, so no loop analysis applies. With an
//! empty EXEC the skipped code does nothing that matters, which is why the branch may be taken
//! out: [`repair`] removes such a branch when the code it skips, run with an empty EXEC,
//! reaches the branch's target with EXEC still empty (only forward branches, an EXEC branch
//! falling through or skipping forward within it; every EXEC write keeping it empty), and
//! touches nothing live there (no scalar memory, barrier, message, mode change or
//! `v_writelane_b32`; no scalar register it writes is read before being written again). The
//! program without it computes what the program with it does, and the RTL, the golden model
//! and the analysis all take the program without it. The same guard's copy at the loop's
//! bottom (`s_cbranch_execnz .LBB0_3; s_branch .LBB0_6`) becomes `s_branch .LBB0_3`, so that
//! every iteration enters at one header and the loop is one loop, not two sharing a counter.
//!
//! Cycles that still have several entries (uniform ones, which clang-14 -O3 writes when it
//! peels a nested loop's first test) get one by copying code ([`crate::node_split`]).

use std::collections::{BTreeMap, HashMap};

use pws_isa::{Format, Instruction, Located, Opcode, Operand, Program};

use crate::compile::with_instructions_removed;
use crate::error::{HostError, Result};
use crate::flow::Flow;
use crate::liveness::Liveness;
use crate::scalar::{effects, registers, ScalarSet};

/// Instructions of skipped code followed per kernel.
const MAX_STEPS: u64 = 1 << 22;

/// `source` as the analysis and the executors take it, and what was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    pub text: String,
    /// One per branch taken out, for the user.
    pub notes: Vec<String>,
}

/// `source` with the skip branches that make its flow irreducible taken out, when that makes
/// it reducible and changes nothing it computes; `source` unchanged when its flow is
/// reducible, or cannot be read, or cannot be repaired so (the analysis then reports it).
pub fn repair(source: &str, file: &str) -> Result<Repaired> {
    let unchanged = || Repaired {
        text: source.to_string(),
        notes: Vec::new(),
    };
    let Ok(program) = pws_isa::assemble(source, file) else {
        return Ok(unchanged());
    };
    match Flow::new(&program, file) {
        Err(HostError::Structure(_)) => {}
        _ => return Ok(unchanged()),
    }
    let flow = Flow::unstructured(&program, file)?;
    let live = Liveness::new(&program, &flow);
    let on_cycle = blocks_on_cycles(&flow);
    let insts = &program.instructions;
    // Instructions followed in all: a kernel of many such branches costs milliseconds.
    let mut budget = MAX_STEPS;
    let mut remove: BTreeMap<usize, &str> = BTreeMap::new();
    let mut retarget: BTreeMap<usize, String> = BTreeMap::new();
    let mut notes = Vec::new();
    let target_of = |x: &Located<Instruction>| {
        x.item
            .branch_target(x.pc)
            .and_then(|pc| program.index_of(pc))
    };
    // The bottom copies of guards, `s_cbranch_execnz T; s_branch U`, by (T, U).
    let mut bottom_guards: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (j, pair) in insts.windows(2).enumerate() {
        if pair[0].item.opcode == Opcode::SCbranchExecnz && pair[1].item.opcode == Opcode::SBranch {
            if let (Some(t), Some(u)) = (target_of(&pair[0]), target_of(&pair[1])) {
                bottom_guards.entry((t, u)).or_default().push(j);
            }
        }
    }
    for (i, l) in insts.iter().enumerate() {
        if l.item.opcode != Opcode::SCbranchExecz || !flow.reachable[flow.block_of(i)] {
            continue;
        }
        let Some(target) = target_of(l) else {
            continue;
        };
        let (from, to) = (flow.block_of(i), flow.block_of(target));
        let enters = on_cycle[to].is_some() && on_cycle[to] != on_cycle[from];
        // (A branch to the next instruction skips nothing.)
        if !enters || target <= i + 1 {
            continue;
        }
        let Some(written) = runs_empty(&program, i + 1, target, &mut budget) else {
            continue;
        };
        if !written.intersection(live.live_before(target)).is_empty() {
            continue;
        }
        remove.insert(l.line as usize, "s_cbranch_execz");
        notes.push(format!(
            "{file}:{}: took out this s_cbranch_execz: it skips into a loop past its header (line {}), and the code it skips does nothing with an empty EXEC",
            l.line, insts[target].line
        ));
        // The rotated copy of the same guard at the loop's bottom, `s_cbranch_execnz T;
        // s_branch U` around the same code: always through it, so that the loop has one
        // header, T, and the code after it is no loop of its own (the counter it steps then
        // bounds the loop).
        let Some(label) = program.label_at(insts[i + 1].pc) else {
            continue;
        };
        for &j in bottom_guards.get(&(i + 1, target)).into_iter().flatten() {
            let (guard, jump) = (&insts[j], &insts[j + 1]);
            remove.insert(guard.line as usize, "s_cbranch_execnz");
            retarget.insert(jump.line as usize, label.to_string());
            notes.push(format!(
                "{file}:{}: took out this s_cbranch_execnz and sent the s_branch after it to {label}: the next iteration runs the code the branches skipped, which does nothing with an empty EXEC",
                guard.line
            ));
        }
    }
    // (Without a branch taken out, the flow is as irreducible as it was found.)
    let text = if remove.is_empty() {
        source.to_string()
    } else {
        let text = retargeted(&with_instructions_removed(source, &remove), &retarget);
        let repaired =
            pws_isa::assemble(&text, file).map_err(|e| HostError::Input(e.to_string()))?;
        if Flow::new(&repaired, file).is_ok() {
            return Ok(Repaired { text, notes });
        }
        text
    };
    // Uniform cycles with several entries remain: copies give each one.
    Ok(match crate::node_split::split(&text, file) {
        Some((text, copies)) => {
            notes.extend(copies);
            Repaired { text, notes }
        }
        None => unchanged(),
    })
}

/// `source` with the `s_branch` on each line of `retarget` sent to that label.
fn retargeted(source: &str, retarget: &BTreeMap<usize, String>) -> String {
    let mut text = String::with_capacity(source.len());
    for (k, line) in source.lines().enumerate() {
        match (retarget.get(&(k + 1)), line.find("s_branch")) {
            (Some(label), Some(at)) => {
                text.push_str(&line[..at]);
                text.push_str("s_branch ");
                text.push_str(label);
            }
            _ => text.push_str(line),
        }
        text.push('\n');
    }
    text
}

/// For each block, the cycle (strongly connected blocks, [`crate::node_split::cycles_in`]) it
/// lies on.
fn blocks_on_cycles(flow: &Flow) -> Vec<Option<usize>> {
    let reachable = (0..flow.blocks.len())
        .filter(|&b| flow.reachable[b])
        .collect();
    let mut on = vec![None; flow.blocks.len()];
    for (k, scc) in crate::node_split::cycles_in(flow, &reachable)
        .into_iter()
        .enumerate()
    {
        for b in scc {
            on[b] = Some(k);
        }
    }
    on
}

/// The scalar registers the instructions from `from` to `to` write when run with an empty
/// EXEC, if they reach `to` with EXEC still empty and nothing else happens on the way.
fn runs_empty(program: &Program, from: usize, to: usize, budget: &mut u64) -> Option<ScalarSet> {
    let insts = &program.instructions;
    // Scalar registers known to hold 0; EXEC is one all along.
    let mut zero = ScalarSet::EXEC;
    let mut written = ScalarSet::EMPTY;
    let mut at = from;
    while at != to {
        if at > to {
            return None;
        }
        *budget = budget.checked_sub(1)?;
        let l = &insts[at];
        let inst = &l.item;
        if inst.is_branch() {
            let target = inst.branch_target(l.pc).and_then(|pc| program.index_of(pc));
            at = match inst.opcode {
                // Never taken with an empty EXEC.
                Opcode::SCbranchExecnz => at + 1,
                Opcode::SCbranchExecz | Opcode::SBranch => target.filter(|&t| t > at)?,
                _ => return None,
            };
            continue;
        }
        let allowed = inst.is_vector() && inst.opcode.format() != Format::Mubuf
            || matches!(
                inst.opcode.format(),
                Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc
            )
            || matches!(inst.opcode, Opcode::SWaitcnt | Opcode::SNop);
        // The mode register (a division's denormal switch) changes whatever EXEC holds, and
        // `v_writelane_b32` writes its lane of a VGPR whatever EXEC holds.
        let stateful = matches!(
            inst.opcode,
            Opcode::Split
                | Opcode::Merge
                | Opcode::SSetregB32
                | Opcode::SSetregImm32B32
                | Opcode::VWritelaneB32
        );
        if !allowed || stateful {
            return None;
        }
        let defs = effects(inst).defs;
        let result_zero = zero_result(inst, zero);
        if inst.writes_exec() && !result_zero {
            return None;
        }
        zero = if result_zero {
            zero.union(defs)
        } else {
            zero.minus(defs).union(ScalarSet::EXEC)
        };
        written = written.union(defs.minus(ScalarSet::EXEC));
        at += 1;
    }
    Some(written)
}

/// Whether everything `inst` writes is 0 when EXEC is 0 and the registers of `zero` are.
fn zero_result(inst: &Instruction, zero: ScalarSet) -> bool {
    use Opcode::*;
    let is_zero = |op: Option<Operand>, dwords: u8| -> bool {
        match op {
            Some(op) if op.constant_value64(false) == Some(0) => true,
            Some(op) => {
                let mut regs = registers(op, dwords).peekable();
                regs.peek().is_some() && regs.all(|r| zero.contains(r))
            }
            None => false,
        }
    };
    let a = is_zero(inst.src(0), 2);
    let b = is_zero(inst.src(1), 2);
    match inst.opcode {
        // Vector compares write 0 for the lanes that do not run: all of them.
        _ if inst.opcode.format() == Format::Vopc => true,
        SMovB64 => a,
        SMovB32 => is_zero(inst.src(0), 1),
        SAndB64 => a || b,
        SOrB64 | SXorB64 => a && b,
        SAndn2B64 => a,
        // D = EXEC (empty), EXEC = f(S0, EXEC).
        SAndSaveexecB64 => true,
        SOrSaveexecB64 | SXorSaveexecB64 | SAndn2SaveexecB64 => a,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clang-14 -O2's loop whose body starts with a divergent inner loop (reduced from a
    /// kernel that `if (f == f) break;` unswitched): the guard before the loop skips into it.
    const ROTATED: &str = "k:
  v_cmp_ne_u32_e32 vcc, 0, v9
  v_cmp_ne_u32_e64 s[0:1], 0, v10
  s_mov_b32 s14, 0
  s_and_saveexec_b64 s[4:5], vcc
  s_cbranch_execz .LBB0_6
.LBB0_3:
  s_mov_b64 s[12:13], 0
  v_mov_b32_e32 v11, v9
.LBB0_4:
  v_add_u32_e64 v11, s[2:3], -1, v11
  v_cmp_eq_u32_e64 s[2:3], 0, v11
  s_or_b64 s[12:13], s[2:3], s[12:13]
  s_andn2_b64 exec, exec, s[12:13]
  s_cbranch_execnz .LBB0_4
  s_or_b64 exec, exec, s[12:13]
.LBB0_6:
  s_or_b64 exec, exec, s[4:5]
  v_add_u32_e32 v7, vcc, 1, v7
  s_add_i32 s2, s14, 1
  s_cmp_gt_u32 s14, 11
  s_cbranch_scc1 .LBB0_12
  s_mov_b32 s14, s2
  s_and_saveexec_b64 s[4:5], vcc
  s_cbranch_execnz .LBB0_3
  s_branch .LBB0_6
.LBB0_12:
  s_endpgm
";

    #[test]
    fn a_guard_that_skips_into_a_loop_is_taken_out() {
        let program = pws_isa::assemble(ROTATED, "t.s").unwrap();
        assert!(
            Flow::new(&program, "t.s").is_err(),
            "irreducible as clang writes it"
        );
        let r = repair(ROTATED, "t.s").unwrap();
        assert!(
            r.notes[0].starts_with("t.s:6: took out this s_cbranch_execz"),
            "{:?}",
            r.notes
        );
        let repaired = pws_isa::assemble(&r.text, "t.s").unwrap();
        let flow = Flow::new(&repaired, "t.s").expect("reducible once repaired");
        assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
        assert!(
            r.notes[1].starts_with(
                "t.s:25: took out this s_cbranch_execnz and sent the s_branch after it to .LBB0_3"
            ),
            "{:?}",
            r.notes
        );
        // The outer loop, entered at .LBB0_3, and the inner one.
        assert_eq!(flow.loops.len(), 2);
        assert!(r.text.contains("  s_branch .LBB0_3\n"), "{}", r.text);
        assert_eq!(
            r.text.lines().count(),
            ROTATED.lines().count(),
            "lines kept"
        );
    }

    #[test]
    fn a_skip_over_what_an_empty_exec_still_does_stays() {
        for (what, with) in [
            // A scalar load from an address the skipped code computes.
            (
                "  v_mov_b32_e32 v11, v9\n",
                "  s_load_dword s20, s[0:1], 0x0\n",
            ),
            // A barrier.
            ("  v_mov_b32_e32 v11, v9\n", "  s_barrier\n"),
            // A scalar value the loop reads after the join (s14).
            ("  v_mov_b32_e32 v11, v9\n", "  s_mov_b32 s14, 5\n"),
            // EXEC set to a mask the skipped code did not clear.
            ("  s_mov_b64 s[12:13], 0\n", "  s_mov_b64 exec, s[0:1]\n"),
        ] {
            let src = ROTATED.replace(what, with);
            let r = repair(&src, "t.s").unwrap();
            // The branch stays; a copy of the code it skips into gives the loop one entry.
            assert!(
                r.text.contains("  s_cbranch_execz .LBB0_6\n"),
                "{with}: {}",
                r.text
            );
            assert!(
                r.notes.iter().all(|n| n.contains("pws runs a copy")),
                "{with}: {:?}",
                r.notes
            );
            let program = pws_isa::assemble(&r.text, "t.s").unwrap();
            assert!(Flow::new(&program, "t.s").is_ok(), "{with}: {}", r.text);
        }
    }

    #[test]
    fn reducible_flow_is_left_alone() {
        let src = "k:\n  s_and_saveexec_b64 s[4:5], vcc\n  s_cbranch_execz .L1\n  v_mov_b32_e32 v1, 0\n.L1:\n  s_or_b64 exec, exec, s[4:5]\n  s_endpgm\n";
        assert_eq!(repair(src, "t.s").unwrap().text, src);
    }
}
