//! Loops a launch never enters. clang unrolls a loop whose count is a kernel argument by four
//! and runs the rest in a remainder loop behind a guard (`s_and_b32 s4, s18, 3;
//! s_cmp_eq_u32 s4, 0; s_cbranch_scc1` around it, then a count down of s4 to 0). When the
//! launch's count is a multiple of four the guard always goes around the loop, and its counter
//! proves nothing ([`super::trip_count`] would run 0 down past 2^20): the loop needs no
//! annotation, because no run reaches it.
//!
//! The shape recognised: every edge into the header from outside the loop comes from a block
//! whose uniform branch the launch decides the other way ([`amortize::decided`]: a compare of
//! known values), directly or through a block with that one predecessor and the header as its
//! one successor (clang's preheader). The bound given is 1, the least a loop bound may be
//! (the IPET's row then allows one trip on a path that no run takes).

use pws_isa::Program;

use super::amortize;
use super::launch_values::ScalarValues;
use crate::flow::Flow;

/// The branch instruction that keeps the launch out of loop `l` (the first, when several
/// entries are kept out), if every entry is.
pub fn never_entered(
    program: &Program,
    flow: &Flow,
    l: usize,
    values: &mut ScalarValues<'_>,
    exec_nonzero: &[bool],
    budget: &mut u64,
) -> Option<usize> {
    let lp = &flow.loops[l];
    let mut guard = None;
    for &p in flow.pred[lp.header].iter().filter(|&&p| !lp.contains(p)) {
        let (branch, into) = if flow.succ[p].len() == 1 && flow.pred[p].len() == 1 {
            (flow.pred[p][0], p)
        } else {
            (p, lp.header)
        };
        if flow.succ[branch].len() != 2 {
            return None;
        }
        let way = amortize::decided(program, flow, branch, exec_nonzero[branch], values, budget)?;
        if flow.succ[branch]
            .iter()
            .any(|e| e.to == into && e.kind == way)
        {
            return None;
        }
        guard.get_or_insert(flow.last(branch));
    }
    guard
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::exit_mask;
    use crate::extract::launch_values::LaunchValues;

    fn guard_line(src: &str) -> Option<u32> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let launch = LaunchValues::none();
        let mut values = ScalarValues::new(&program, &flow, &launch);
        let nonzero = exit_mask::exec_nonzero(&program, &flow);
        never_entered(&program, &flow, 0, &mut values, &nonzero, &mut (1 << 20))
            .map(|i| program.instructions[i].line)
    }

    /// clang's remainder loop of `for (k = 0; k < n; k++)` unrolled by four, n in s2, behind
    /// an SCC guard.
    fn remainder(n: u32) -> Option<u32> {
        guard_line(&format!(
            "s_mov_b32 s2, {n}\n\
             s_and_b32 s4, s2, 3\n\
             s_cmp_eq_u32 s4, 0\n\
             s_cbranch_scc1 END\n\
             v_mov_b32_e32 v1, 0\n\
             s_branch HEAD\n\
             LATCH:\n\
             s_add_i32 s4, s4, -1\n\
             s_cmp_lg_u32 s4, 0\n\
             s_cbranch_scc0 END\n\
             HEAD:\n\
             v_add_u32_e32 v1, vcc, 1, v1\n\
             s_branch LATCH\n\
             END:\n\
             s_endpgm\n"
        ))
    }

    /// The same behind a lane mask clang made of the test in an earlier block (N-body's
    /// `s_cselect_b64 s[2:3], -1, 0` before its tile loop, `s_andn2_b64 vcc, exec, s[2:3]`
    /// in it).
    fn remainder_behind_a_mask(n: u32) -> Option<u32> {
        remainder_behind(n, "s_branch NEXT\nNEXT:\n")
    }

    /// [`remainder_behind_a_mask`] with `between` after the mask's select.
    fn remainder_behind(n: u32, between: &str) -> Option<u32> {
        guard_line(&format!(
            "s_mov_b32 s4, {n}\n\
             s_and_b32 s5, s4, 3\n\
             s_cmp_lg_u32 s5, 0\n\
             s_cselect_b64 s[2:3], -1, 0\n\
             {between}\
             v_mov_b32_e32 v1, 0\n\
             s_andn2_b64 vcc, exec, s[2:3]\n\
             s_cbranch_vccnz END\n\
             s_mov_b32 s10, s5\n\
             HEAD:\n\
             v_add_u32_e32 v1, vcc, 1, v1\n\
             s_add_i32 s10, s10, -1\n\
             s_cmp_lg_u32 s10, 0\n\
             s_cbranch_scc1 HEAD\n\
             END:\n\
             s_endpgm\n"
        ))
    }

    #[test]
    fn a_remainder_loop_of_a_multiple_of_four_is_never_entered() {
        assert_eq!(remainder(8), Some(4));
        assert_eq!(remainder(0), Some(4));
        assert_eq!(remainder_behind_a_mask(64), Some(9));
    }

    #[test]
    fn a_remainder_loop_that_runs_is_entered() {
        assert_eq!(remainder(7), None);
        assert_eq!(remainder(1), None);
        assert_eq!(remainder_behind_a_mask(63), None);
        // The select in the branch's block decides it; a high half written after it leaves
        // half the lanes' bits unknown.
        assert_eq!(remainder_behind(64, ""), Some(7));
        assert_eq!(remainder_behind(64, "s_mov_b32 s3, 0\n"), None);
    }
}
