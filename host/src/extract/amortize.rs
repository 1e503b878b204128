//! Triangular nests: the trips of a loop averaged over the iterations of its enclosing loop
//! that enter it, where its trip count follows that loop's counter (`for (j = 0; j < i; j++)`
//! inside `for (i = 0; i < n; i++)`).
//!
//! Why an average bounds the loop. The IPET's row for a loop with bound k is
//! Σ header executions ≤ k · Σ entries, summed over the whole run, not per entry. Let loop l
//! sit directly in loop p, whose counter takes the values v_0, v_1, … at p's header on every
//! entry into p, and let l run at most t_r header executions when entered in p's iteration r.
//! l's parent is p, so an iteration of p enters l at most once (another way back into l's
//! header would be a loop around it inside p). If, in one run of p of m iterations, the
//! iterations that enter l form a set E, then Σ_{r ∈ E} t_r ≤ k · |E| holds whenever k is at
//! least the average of t over E, and the row holds for the whole run if it holds for every
//! run of p. m is p's bound, or any smaller count at whose last iteration p may leave. An
//! iteration before the last goes on to a latch, so it enters l if every path to a latch
//! passes l's header; the last one if every path to its end (a latch or an exit) does. E lies
//! between the iterations that must enter l and those that may, and its average is at most
//! the larger of the average of those that must (with or without the last iteration, where
//! that one may) and the largest t of the others.
//!
//! Which paths an iteration may take is decided per iteration with the counter's value: a
//! uniform branch whose compare reads SGPRs [`ScalarValues`] knows there takes one way
//! (clang's guard `if (i != 0)` around the inner loop skips it only at i = 0), on SCC or on
//! the mask clang makes of SCC (`s_cselect_b64 s[0:1], -1, 0; s_and_b64 vcc, exec, s[0:1];
//! s_cbranch_vccnz`, where EXEC is non-zero). Anything else may go either way.

use pws_isa::{Opcode, Operand, Program};

use super::lane_ranges::uniform_sgpr;
use super::launch_values::ScalarValues;
use super::trip_count::Compare;
use crate::flow::{EdgeKind, Flow};
use crate::scalar::{effects, ScalarReg, EXEC_LO, SCC, VCC_LO};

/// Whether one iteration of the enclosing loop enters the inner loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// No path of the iteration reaches the inner loop's header.
    Never,
    /// Some paths do and some do not.
    Maybe,
    /// Every path to the iteration's end passes the inner loop's header.
    Must,
}

/// What one iteration of the enclosing loop may do, for [`average`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iteration {
    /// Most header executions of the inner loop when this iteration enters it.
    pub trips: u64,
    /// Whether it enters the inner loop when it goes on to the next iteration.
    pub goes_on: Entry,
    /// Whether it enters the inner loop when it is the last of its run.
    pub last: Entry,
    /// The enclosing loop may leave (or the program end) in this iteration.
    pub may_leave: bool,
}

/// A bound k with Σ_{r ∈ E} trips_r ≤ k · |E| for every set E of iterations that enter the
/// inner loop in one run of the enclosing loop, given `iterations` in the order the enclosing
/// counter takes its values (as many as its bound). At least 1.
pub fn average(iterations: &[Iteration]) -> u64 {
    let mean = |sum: u128, n: u128| {
        let m = if n == 0 { 0 } else { sum.div_ceil(n) };
        u64::try_from(m).unwrap_or(u64::MAX)
    };
    // Over the iterations before the current one: the trips of those that must enter when
    // they go on, and the most of those that may.
    let (mut sum, mut must, mut maybe) = (0u128, 0u128, 0u64);
    let mut k = 1u64;
    for (r, it) in iterations.iter().enumerate() {
        let t = u128::from(it.trips);
        if it.may_leave || r + 1 == iterations.len() {
            let with_last = mean(sum + t, must + 1);
            let run = match it.last {
                Entry::Must => with_last,
                Entry::Maybe => with_last.max(mean(sum, must)),
                Entry::Never => mean(sum, must),
            };
            k = k.max(run).max(maybe);
        }
        match it.goes_on {
            Entry::Must => {
                sum += t;
                must += 1;
            }
            Entry::Maybe => maybe = maybe.max(it.trips),
            Entry::Never => {}
        }
    }
    k
}

/// How the iteration of loop `p` that `values` assumes (its counter's value at the header)
/// treats loop `l`, a loop directly inside it: whether it must, may or cannot enter it when
/// it goes on and when it is the last, and whether p may leave in it (the [`Iteration`]
/// without its trips). `exec_nonzero`: per block, EXEC is non-zero on entry. `None` when the
/// budget runs out.
pub fn iteration(
    program: &Program,
    flow: &Flow,
    p: usize,
    l: usize,
    exec_nonzero: &[bool],
    values: &mut ScalarValues<'_>,
    budget: &mut u64,
) -> Option<(Entry, Entry, bool)> {
    let lp = &flow.loops[p];
    let inner = flow.loops[l].header;
    // The successors each block of p can take in this iteration.
    let mut taken: Vec<Vec<usize>> = Vec::with_capacity(lp.body.len());
    for &b in &lp.body {
        *budget = budget.checked_sub(1)?;
        let only = if flow.loop_of(b) == Some(p) {
            decided(program, flow, b, exec_nonzero[b], values, budget)
        } else {
            None
        };
        taken.push(
            flow.succ[b]
                .iter()
                .filter(|e| only.is_none_or(|kind| e.kind == kind))
                .map(|e| e.to)
                .collect(),
        );
    }
    let index = |b: usize| lp.body.binary_search(&b).ok();
    // From p's header without passing `avoid`: (reaches l's header, reaches a latch, leaves
    // p or ends the program).
    let walk = |avoid: Option<usize>, budget: &mut u64| -> Option<(bool, bool, bool)> {
        let (mut enters, mut latch, mut leaves) = (false, false, false);
        let mut seen = vec![false; lp.body.len()];
        let mut stack = vec![lp.header];
        seen[index(lp.header)?] = true;
        while let Some(b) = stack.pop() {
            *budget = budget.checked_sub(1)?;
            let i = index(b)?;
            if flow.succ[b].is_empty() {
                leaves = true;
            }
            for &to in &taken[i] {
                if to == lp.header {
                    latch = true;
                    continue;
                }
                let Some(j) = index(to) else {
                    leaves = true;
                    continue;
                };
                if to == inner {
                    enters = true;
                }
                if Some(to) != avoid && !seen[j] {
                    seen[j] = true;
                    stack.push(to);
                }
            }
        }
        Some((enters, latch, leaves))
    };
    let (enters, _, leaves) = walk(None, budget)?;
    if !enters {
        return Some((Entry::Never, Entry::Never, leaves));
    }
    let (_, latch_around, leaves_around) = walk(Some(inner), budget)?;
    let must_unless = |around: bool| if around { Entry::Maybe } else { Entry::Must };
    Some((
        must_unless(latch_around),
        must_unless(latch_around || leaves_around),
        leaves,
    ))
}

/// The one edge kind block `b` can take when it ends in a uniform branch this iteration
/// decides: `s_cbranch_scc0/1` on a compare of known values, or `s_cbranch_vccz/vccnz` on
/// VCC = EXEC & mask or EXEC & ~mask, the mask (SCC ? -1 : 0) (or `0 : -1`) built in the block
/// from such a compare, or all ones or all zeros on entry to the block, with EXEC non-zero on
/// entry (`exec_nonzero`) and not written in the block before.
pub(super) fn decided(
    program: &Program,
    flow: &Flow,
    b: usize,
    exec_nonzero: bool,
    values: &mut ScalarValues<'_>,
    budget: &mut u64,
) -> Option<EdgeKind> {
    let insts = &program.instructions;
    let start = flow.blocks[b].start;
    let last = flow.blocks[b].end.checked_sub(1).filter(|&i| i >= start)?;
    // The last instruction in start..end that writes `r`.
    let last_write = |r: ScalarReg, end: usize| {
        (start..end)
            .rev()
            .find(|&i| effects(&insts[i].item).defs.contains(r))
    };
    let taken = match insts[last].item.opcode {
        op @ (Opcode::SCbranchScc0 | Opcode::SCbranchScc1) => {
            let scc = scc_at(program, last_write(SCC, last)?, values, budget)?;
            scc == (op == Opcode::SCbranchScc1)
        }
        op @ (Opcode::SCbranchVccz | Opcode::SCbranchVccnz) => {
            let and_at = last_write(VCC_LO, last)?;
            let and = &insts[and_at].item;
            // VCC = EXEC & mask, or EXEC & ~mask.
            let (mask, inverted) = match (and.opcode, and.src(0), and.src(1)) {
                (Opcode::SAndB64, Some(Operand::ExecLo), Some(Operand::Sgpr(s)))
                | (Opcode::SAndB64, Some(Operand::Sgpr(s)), Some(Operand::ExecLo)) => (s, false),
                (Opcode::SAndn2B64, Some(Operand::ExecLo), Some(Operand::Sgpr(s))) => (s, true),
                _ => return None,
            };
            if !exec_nonzero || last_write(EXEC_LO, and_at).is_some() {
                return None;
            }
            // Both halves from one write in the block (the select), or neither.
            let set = match [mask, mask + 1].map(|r| last_write(r, and_at)) {
                [Some(select_at), Some(high_at)] if select_at == high_at => {
                    let select = &insts[select_at].item;
                    let ones = Some(Operand::Int(-1));
                    let zero = Some(Operand::Int(0));
                    let set_when = match (select.opcode, select.src(0), select.src(1)) {
                        (Opcode::SCselectB64, a, c) if a == ones && c == zero => true,
                        (Opcode::SCselectB64, a, c) if a == zero && c == ones => false,
                        _ => return None,
                    };
                    scc_at(program, last_write(SCC, select_at)?, values, budget)? == set_when
                }
                // A mask made before the block (clang's `s_cselect_b64 s[2:3], -1, 0` ahead
                // of a loop, tested in it): all ones or all zeros in every wavefront.
                [None, None] => match (
                    uniform_sgpr(values, and_at, mask, budget)?,
                    uniform_sgpr(values, and_at, mask + 1, budget)?,
                ) {
                    (0, 0) => false,
                    (u32::MAX, u32::MAX) => true,
                    _ => return None,
                },
                _ => return None,
            };
            (set != inverted) == (op == Opcode::SCbranchVccnz)
        }
        _ => return None,
    };
    Some(if taken {
        EdgeKind::Taken
    } else {
        EdgeKind::FallThrough
    })
}

/// SCC after instruction `at`, a compare (`s_cmp*`, `s_cmpk*`, `s_bitcmp0/1_b32`) of values
/// `values` knows.
fn scc_at(
    program: &Program,
    at: usize,
    values: &mut ScalarValues<'_>,
    budget: &mut u64,
) -> Option<bool> {
    let inst = &program.instructions[at].item;
    let mut known = |op: Operand, budget: &mut u64| match op {
        Operand::Sgpr(r) => uniform_sgpr(values, at, r, budget),
        _ => op.constant_value32(),
    };
    if let op @ (Opcode::SBitcmp0B32 | Opcode::SBitcmp1B32) = inst.opcode {
        let v = known(inst.src(0)?, budget)?;
        let bit = known(inst.src(1)?, budget)? & 31;
        return Some((v >> bit & 1 == 1) == (op == Opcode::SBitcmp1B32));
    }
    let compares = Compare::of(inst, &mut |op| known(op, budget));
    compares
        .into_iter()
        .find_map(|(s, compare)| known(Operand::Sgpr(s), budget).map(|v| compare.holds(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An iteration that treats the inner loop the same way whether it goes on or not.
    fn it(trips: u64, entry: Entry, may_leave: bool) -> Iteration {
        Iteration {
            trips,
            goes_on: entry,
            last: entry,
            may_leave,
        }
    }

    #[test]
    fn a_triangle_averages_over_the_iterations_that_enter() {
        // for (i = 0; i < 12; i++) if (i != 0) for (j = 0; j < i; j++): the guard skips i = 0.
        let lower: Vec<_> = (0..12)
            .map(|i| {
                it(
                    i.max(1),
                    if i == 0 { Entry::Never } else { Entry::Must },
                    i == 11,
                )
            })
            .collect();
        assert_eq!(average(&lower), 6); // 66 trips over 11 entries
                                        // for (j = i + 1; j < 12; j++): 11, 10, ..., 1, skipped at i = 11.
        let upper: Vec<_> = (0..12)
            .map(|i| {
                it(
                    (11 - i).max(1),
                    if i == 11 { Entry::Never } else { Entry::Must },
                    i == 11,
                )
            })
            .collect();
        assert_eq!(average(&upper), 6);
    }

    #[test]
    fn an_early_leave_keeps_the_front_loaded_trips() {
        // The same upper triangle in a loop that may break in any iteration: one iteration
        // that runs 11 trips and leaves is a run of its own.
        let upper: Vec<_> = (0..12)
            .map(|i| {
                it(
                    (11 - i).max(1),
                    if i == 11 { Entry::Never } else { Entry::Must },
                    true,
                )
            })
            .collect();
        assert_eq!(average(&upper), 11);
        // Increasing trips gain even so: every prefix averages at most the whole.
        let lower: Vec<_> = (0..12).map(|i| it(i + 1, Entry::Must, true)).collect();
        assert_eq!(average(&lower), 7); // 78 / 12 = 6.5
    }

    #[test]
    fn a_break_before_the_inner_loop_only_spares_the_last_iteration() {
        // Every iteration that goes on enters; the one that breaks may not.
        let lower: Vec<_> = (0..4)
            .map(|i| Iteration {
                trips: i + 1,
                goes_on: Entry::Must,
                last: Entry::Maybe,
                may_leave: true,
            })
            .collect();
        assert_eq!(average(&lower), 3); // 10 / 4, or 6 / 3 without the last
        let mut upper = lower.clone();
        upper.reverse();
        assert_eq!(average(&upper), 4); // a run of one iteration
    }

    #[test]
    fn an_iteration_that_may_enter_counts_at_its_most() {
        let mut lower: Vec<_> = (0..12).map(|i| it(i + 1, Entry::Must, i == 11)).collect();
        lower[3].goes_on = Entry::Maybe;
        lower[10].goes_on = Entry::Maybe;
        // The must-iterations average 63 / 10, but iteration 10 may add its 11.
        assert_eq!(average(&lower), 11);
        lower[10].goes_on = Entry::Must;
        assert_eq!(average(&lower), 7); // 74 / 11, and the Maybe's 4 is below
    }

    #[test]
    fn no_entry_at_all_is_still_a_bound_of_one() {
        assert_eq!(average(&[it(5, Entry::Never, true)]), 1);
        assert_eq!(average(&[]), 1);
    }
}
