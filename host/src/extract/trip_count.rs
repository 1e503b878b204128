//! Loop bounds the assembly proves: a uniform counted loop, as clang emits `for (int j = 0;
//! j < 64; j++)` when it does not unroll it, needs no `PWS_LOOP_BOUND`.
//!
//! The shape recognised (and nothing else; any doubt leaves the loop unbounded, and the
//! analysis asks for an annotation as before):
//! - the loop's exit test is a block T of the loop itself (not of a loop inside it) that
//!   dominates every latch, so every iteration runs it once, and ends in `s_cbranch_scc0/1`
//!   with one successor inside the loop and one outside;
//! - the last SCC write before that branch is `s_cmp_*_{i,u}32` / `s_cmpk_*` of one SGPR s and
//!   a constant;
//! - s has exactly one definition in the loop (nested loops included): `s_add_{u,i}32 s, s, C`,
//!   `s_sub_{u,i}32 s, s, C` or `s_addk_i32 s, C`, in a block U of the loop itself that
//!   dominates every latch (so it runs once per iteration, before or after the test as U and
//!   T lie in the dominator tree);
//! - on every entry into the loop s holds the same constant: walking back from the header's
//!   predecessors outside the loop, every path meets an `s_mov_b32 s, K`, `s_movk_i32 s, K` or
//!   `s_mov_b64 s[s:s+1], K` before anything else writes s, and none reaches the loop again or
//!   the kernel's entry first.
//!
//! The count is then found by running the counter (32-bit wrap-around arithmetic, the compare
//! as the scalar ALU does it) until the test leaves the loop, up to [`MAX_TRIPS`] iterations
//! and within a kernel's [`Budget`] (so that a hostile kernel of many loops that never leave
//! costs milliseconds, not minutes): the header's bound is the number of iterations that
//! start, the same thing `loop_bound` means. Other exits (a `break`) only end the loop sooner.

use pws_isa::{Instruction, Opcode, Operand, Program};

use crate::flow::{EdgeKind, Flow};
use crate::scalar::effects;

/// The longest loop simulated; a loop that runs longer keeps asking for an annotation.
pub const MAX_TRIPS: u64 = 1 << 20;

/// Counter steps left for one kernel's loops (16 of the longest loops).
#[derive(Debug, Clone, Copy)]
pub struct Budget(pub u64);

impl Default for Budget {
    fn default() -> Self {
        Budget(16 * MAX_TRIPS)
    }
}

/// How the counter is found and stepped, for the note that reports an inferred bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// The SGPR number.
    pub sgpr: u8,
    pub init: u32,
    pub step: u32,
    /// Header executions per entry into the loop.
    pub trips: u64,
}

/// The counted loop `l` of `flow`, if it has the shape of the module documentation.
pub fn counted_loop(
    program: &Program,
    flow: &Flow,
    l: usize,
    budget: &mut Budget,
) -> Option<Counter> {
    let lp = &flow.loops[l];
    let insts = &program.instructions;
    let once_per_iteration =
        |b: usize| flow.loop_of(b) == Some(l) && lp.latches.iter().all(|&t| flow.dominates(b, t));

    // The exit test: a conditional SCC branch with one way out.
    let (test_block, branch) = lp.body.iter().find_map(|&b| {
        let i = flow.last(b);
        let inst = &insts[i].item;
        if !matches!(inst.opcode, Opcode::SCbranchScc0 | Opcode::SCbranchScc1)
            || !once_per_iteration(b)
            || flow.succ[b].len() != 2
        {
            return None;
        }
        let inside = flow.succ[b].iter().filter(|e| lp.contains(e.to)).count();
        (inside == 1).then_some((b, i))
    })?;
    let taken_stays = flow.succ[test_block]
        .iter()
        .any(|e| e.kind == EdgeKind::Taken && lp.contains(e.to));
    let continue_on_scc = (insts[branch].item.opcode == Opcode::SCbranchScc1) == taken_stays;

    // The compare that sets SCC for it.
    let cmp_at = (flow.blocks[test_block].start..branch)
        .rev()
        .find(|&i| insts[i].item.writes_scc())?;
    let (sgpr, compare) = Compare::of(&insts[cmp_at].item)?;

    // The counter's one step in the loop.
    let defs: Vec<usize> = lp
        .body
        .iter()
        .flat_map(|&b| flow.blocks[b].clone())
        .filter(|&i| effects(&insts[i].item).defs.contains(sgpr))
        .collect();
    let [step_at] = defs[..] else {
        return None;
    };
    let step = step_of(&insts[step_at].item, sgpr)?;
    let step_block = flow.block_of(step_at);
    if !once_per_iteration(step_block) {
        return None;
    }
    let step_first = if step_block == test_block {
        step_at < cmp_at
    } else {
        flow.dominates(step_block, test_block)
    };

    let init = initial_value(program, flow, l, sgpr)?;
    let mut v = init;
    for trips in 1..=MAX_TRIPS {
        budget.0 = budget.0.checked_sub(1)?;
        if step_first {
            v = v.wrapping_add(step);
        }
        if compare.holds(v) != continue_on_scc {
            return Some(Counter {
                sgpr,
                init,
                step,
                trips,
            });
        }
        if !step_first {
            v = v.wrapping_add(step);
        }
    }
    None
}

/// `s_cmp_*` of the counter against a constant, as SCC = `holds(counter)`.
#[derive(Debug, Clone, Copy)]
struct Compare {
    op: Cmp,
    signed: bool,
    k: u32,
    /// The constant is the first operand (`s_cmp_lt_i32 64, s3`).
    swapped: bool,
}

#[derive(Debug, Clone, Copy)]
enum Cmp {
    Eq,
    Lg,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Compare {
    fn of(inst: &Instruction) -> Option<(u8, Compare)> {
        use Opcode::*;
        let (op, signed, k_form) = match inst.opcode {
            SCmpEqI32 => (Cmp::Eq, true, false),
            SCmpLgI32 => (Cmp::Lg, true, false),
            SCmpGtI32 => (Cmp::Gt, true, false),
            SCmpGeI32 => (Cmp::Ge, true, false),
            SCmpLtI32 => (Cmp::Lt, true, false),
            SCmpLeI32 => (Cmp::Le, true, false),
            SCmpEqU32 => (Cmp::Eq, false, false),
            SCmpLgU32 => (Cmp::Lg, false, false),
            SCmpGtU32 => (Cmp::Gt, false, false),
            SCmpGeU32 => (Cmp::Ge, false, false),
            SCmpLtU32 => (Cmp::Lt, false, false),
            SCmpLeU32 => (Cmp::Le, false, false),
            SCmpkEqI32 => (Cmp::Eq, true, true),
            SCmpkLgI32 => (Cmp::Lg, true, true),
            SCmpkGtI32 => (Cmp::Gt, true, true),
            SCmpkGeI32 => (Cmp::Ge, true, true),
            SCmpkLtI32 => (Cmp::Lt, true, true),
            SCmpkLeI32 => (Cmp::Le, true, true),
            SCmpkEqU32 => (Cmp::Eq, false, true),
            SCmpkLgU32 => (Cmp::Lg, false, true),
            SCmpkGtU32 => (Cmp::Gt, false, true),
            SCmpkGeU32 => (Cmp::Ge, false, true),
            SCmpkLtU32 => (Cmp::Lt, false, true),
            SCmpkLeU32 => (Cmp::Le, false, true),
            _ => return None,
        };
        let compare = |k, swapped| Compare {
            op,
            signed,
            k,
            swapped,
        };
        if k_form {
            // SOPK: the 16-bit constant, sign-extended for the signed compares.
            let Some(Operand::Sgpr(s)) = inst.src(0) else {
                return None;
            };
            let k = if signed {
                inst.simm16() as i32 as u32
            } else {
                inst.imm & 0xffff
            };
            return Some((s, compare(k, false)));
        }
        match (inst.src(0)?, inst.src(1)?) {
            (Operand::Sgpr(s), k) => Some((s, compare(k.constant_value32()?, false))),
            (k, Operand::Sgpr(s)) => Some((s, compare(k.constant_value32()?, true))),
            _ => None,
        }
    }

    /// SCC for the counter's value `v`.
    fn holds(self, v: u32) -> bool {
        let (a, b) = if self.swapped {
            (self.k, v)
        } else {
            (v, self.k)
        };
        let ord = if self.signed {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        };
        match self.op {
            Cmp::Eq => ord.is_eq(),
            Cmp::Lg => ord.is_ne(),
            Cmp::Gt => ord.is_gt(),
            Cmp::Ge => ord.is_ge(),
            Cmp::Lt => ord.is_lt(),
            Cmp::Le => ord.is_le(),
        }
    }
}

/// What `inst`, the counter's one definition in the loop, adds to it each iteration.
fn step_of(inst: &Instruction, s: u8) -> Option<u32> {
    use Opcode::*;
    let dst_is_s = inst.dst == Some(Operand::Sgpr(s));
    let me = Some(Operand::Sgpr(s));
    match inst.opcode {
        SAddkI32 if dst_is_s => Some(inst.simm16() as i32 as u32),
        SAddU32 | SAddI32 if dst_is_s => match (inst.src(0), inst.src(1)) {
            (a, Some(k)) if a == me => k.constant_value32(),
            (Some(k), b) if b == me => k.constant_value32(),
            _ => None,
        },
        SSubU32 | SSubI32 if dst_is_s && inst.src(0) == me => {
            Some(inst.src(1)?.constant_value32()?.wrapping_neg())
        }
        _ => None,
    }
}

/// The constant SGPR `s` holds whenever loop `l` is entered, if there is one.
fn initial_value(program: &Program, flow: &Flow, l: usize, s: u8) -> Option<u32> {
    let lp = &flow.loops[l];
    let insts = &program.instructions;
    let mut found: Option<u32> = None;
    let mut seen = vec![false; flow.blocks.len()];
    let mut work: Vec<usize> = flow.pred[lp.header]
        .iter()
        .copied()
        .filter(|&p| !lp.contains(p))
        .collect();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        if lp.contains(b) {
            return None;
        }
        let def = flow.blocks[b]
            .clone()
            .rev()
            .find(|&i| effects(&insts[i].item).defs.contains(s));
        match def {
            Some(i) => {
                let v = constant_written(&insts[i].item, s)?;
                if found.is_some_and(|f| f != v) {
                    return None;
                }
                found = Some(v);
            }
            None if flow.pred[b].is_empty() => return None,
            None => work.extend(flow.pred[b].iter().copied()),
        }
    }
    found
}

/// The constant `inst` writes into SGPR `s`, if it is a move of one.
fn constant_written(inst: &Instruction, s: u8) -> Option<u32> {
    match (inst.opcode, inst.dst?) {
        (Opcode::SMovB32, Operand::Sgpr(d)) if d == s => inst.src(0)?.constant_value32(),
        (Opcode::SMovkI32, Operand::Sgpr(d)) if d == s => Some(inst.simm16() as i32 as u32),
        (Opcode::SMovB64, Operand::Sgpr(d)) if d == s => {
            let v = inst
                .src(0)?
                .constant_value64(Opcode::SMovB64.sign_extends_literal64())?;
            Some(v as u32)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(src: &str) -> Option<Counter> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        assert_eq!(flow.loops.len(), 1, "one loop in\n{src}");
        counted_loop(&program, &flow, 0, &mut Budget::default())
    }

    #[test]
    fn the_budget_ends_the_search() {
        let src = "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_u32 s4, 100\ns_cbranch_scc1 .L1\ns_endpgm\n";
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        assert_eq!(counted_loop(&program, &flow, 0, &mut Budget(99)), None);
        let mut budget = Budget(100);
        assert_eq!(
            counted_loop(&program, &flow, 0, &mut budget).unwrap().trips,
            100
        );
        assert_eq!(budget.0, 0);
    }

    /// clang's `for (int j = 0; j < 64; j++)` over a 16-byte stride: a 64-bit pointer
    /// increment whose low word is the counter, tested at the bottom.
    #[test]
    fn a_bottom_tested_pointer_walk_runs_its_trip_count() {
        let c = counter(
            "s_mov_b64 s[20:21], 0\n\
             .LBB0_1:\n\
             s_add_u32 s20, s20, 16\n\
             s_addc_u32 s21, s21, 0\n\
             s_cmpk_eq_i32 s20, 0x400\n\
             v_add_u32_e32 v1, vcc, v1, v2\n\
             s_cbranch_scc0 .LBB0_1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.sgpr, c.init, c.step, c.trips), (20, 0, 16, 64));
    }

    #[test]
    fn a_top_tested_loop_counts_its_header_once_more() {
        let c = counter(
            "s_mov_b32 s4, 0\n\
             .LBB0_1:\n\
             s_cmp_ge_i32 s4, 10\n\
             s_cbranch_scc1 .LBB0_3\n\
             v_add_u32_e32 v1, vcc, 1, v1\n\
             s_add_i32 s4, s4, 1\n\
             s_branch .LBB0_1\n\
             .LBB0_3:\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(c.trips, 11, "ten iterations and the test that leaves");
    }

    #[test]
    fn counting_down_with_a_constant_first_compares_as_written() {
        let c = counter(
            "s_movk_i32 s7, 0x20\n\
             .LBB0_1:\n\
             s_sub_u32 s7, s7, 4\n\
             s_cmp_lt_u32 0, s7\n\
             s_cbranch_scc1 .LBB0_1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(c.trips, 8);
    }

    #[test]
    fn anything_else_is_not_inferred() {
        let cases = [
            // The counter starts from a kernel argument.
            "s_load_dword s4, s[0:1], 0x0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // Two steps in the loop.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_add_i32 s4, s4, 2\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // The step is conditional (skipped when SCC is set).
            "s_mov_b32 s4, 0\n.L1:\ns_cmp_eq_u32 s5, 0\ns_cbranch_scc1 .L2\ns_add_i32 s4, s4, 1\n.L2:\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // Compared with another register.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_i32 s4, s5\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // A divergent loop: its exit is an EXEC branch.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\nv_cmp_gt_i32_e32 vcc, 5, v0\ns_and_b64 exec, exec, vcc\ns_cbranch_execnz .L1\ns_endpgm\n",
            // Never leaves within MAX_TRIPS (the step skips the exit value).
            "s_mov_b32 s4, 1\n.L1:\ns_add_i32 s4, s4, 2\ns_cmp_lg_u32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
        ];
        for src in cases {
            assert_eq!(counter(src), None, "{src}");
        }
    }
}
