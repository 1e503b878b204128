//! When a split pays for itself: the cost model of [`SplitPolicy::Auto`](crate::compile::SplitPolicy).
//!
//! A divergent `if`/`else` runs its two paths one after the other on one SIMD; split, they run
//! side by side on the SIMD and an SpSIMD ([P] §4), at the price of the `split` (e_s: context
//! allocation and SRF copy) and the `merge`. The paths overlap for as long as the shorter one
//! runs, so a split can only save the shorter path's time and always costs the split and the
//! merge (and the skip branches it restores): it pays when the shorter path takes longer. A path is charged every
//! instruction of every block on it once, at the timing contract's cycles: under EXEC masking a
//! divergent wavefront walks through both sides of every `if` nested in the path, so the sum,
//! not the longest route, is what it runs. A loop on a path counts once (the pass runs before
//! the manifest's loop bounds are known), so the estimate never overstates a path that loops.
//! This is the average-case selection Meng et al.'s DWS uses in spirit (split only where the
//! paths are long enough); the WCET-driven selection is [P]'s Select ([`crate::select`]).

use pws_isa::Program;

use crate::extract::IfBranch;
use crate::flow::Flow;
use crate::timing::{Competition, CuTiming, Mode, TimingTable};

/// The estimate for one divergent `if`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitEstimate {
    /// Cycles of the then-path and of the else-path run alone (the branch and the else-flip
    /// run either way).
    pub then_cycles: u64,
    pub else_cycles: u64,
    /// What the split costs: the `split` (with e_s for the kernel's SGPRs) and the `merge`.
    pub overhead: u64,
}

impl SplitEstimate {
    /// Cycles the split saves (negative: it costs more than it overlaps).
    pub fn gain(&self) -> i64 {
        self.then_cycles.min(self.else_cycles) as i64 - self.overhead as i64
    }

    /// The split shortens the region.
    pub fn pays(&self) -> bool {
        self.gain() > 0
    }
}

impl std::fmt::Display for SplitEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the paths take about {} and {} cycles; splitting would overlap {} of them and cost {} (split and merge)",
            self.then_cycles,
            self.else_cycles,
            self.then_cycles.min(self.else_cycles),
            self.overhead
        )
    }
}

/// The estimate for `b` in `program` on the `gcn3` compute unit's timing contract (the one
/// configuration the pass knows: it runs before a launch picks its hardware). `sgprs` is what
/// a split copies; `restored` counts the skip branches LLVM had removed that the split puts
/// back (crate::extract::skips), which it also pays for.
pub fn estimate(
    program: &Program,
    flow: &Flow,
    b: &IfBranch,
    sgprs: u32,
    restored: u64,
) -> SplitEstimate {
    let table = TimingTable::contract(&CuTiming::GCN3, Mode::Pws, &Competition::default(), sgprs);
    let insts = &program.instructions;
    let path = |blocks: &[usize]| -> u64 {
        blocks
            .iter()
            .flat_map(|&x| flow.blocks[x].clone())
            .map(|i| table.cycles(&insts[i].item))
            .sum()
    };
    let [then_path, else_path] = &b.paths;
    SplitEstimate {
        then_cycles: path(then_path),
        else_cycles: path(else_path),
        overhead: table.split + table.e_s + table.merge + table.e_m + restored * table.branch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    /// An if/else whose then-path holds `then` VALU instructions and whose else-path `els`.
    fn kernel(then: usize, els: usize) -> String {
        let body = |n: usize| "  v_add_u32_e32 v1, vcc, 1, v1\n".repeat(n);
        format!(
            "k:\n  v_cmp_gt_u32_e32 vcc, 32, v0\n  s_and_saveexec_b64 s[2:3], vcc\n  s_xor_b64 s[2:3], exec, s[2:3]\n  s_cbranch_execz .Lelse\n{}.Lelse:\n  s_or_saveexec_b64 s[2:3], s[2:3]\n  s_xor_b64 exec, exec, s[2:3]\n  s_cbranch_execz .Ljoin\n{}.Ljoin:\n  s_or_b64 exec, exec, s[2:3]\n  s_endpgm\n",
            body(then),
            body(els)
        )
    }

    fn estimate_of(src: &str) -> SplitEstimate {
        let k = extract(src, "t.s", &TimingTable::GCN3).unwrap();
        assert_eq!(k.ifs.len(), 1);
        estimate(&k.program, &k.flow, &k.ifs[0], 4, 0)
    }

    #[test]
    fn each_path_is_charged_its_instructions_at_the_contract() {
        let one = estimate_of(&kernel(1, 1));
        let two = estimate_of(&kernel(2, 1));
        let valu =
            TimingTable::contract(&CuTiming::GCN3, Mode::Pws, &Competition::default(), 4).valu;
        assert_eq!(two.then_cycles - one.then_cycles, valu);
        assert_eq!(two.else_cycles, one.else_cycles);
        // `split` and `merge` through the pipeline (pick and decode 2, execute 1) are 3 cycles
        // each, e_s for 4 SGPRs two fixed cycles and one copy cycle, e_m one.
        assert_eq!(one.overhead, 3 + 3 + 3 + 1);
    }

    #[test]
    fn a_split_pays_only_when_the_shorter_path_outlasts_it() {
        assert!(!estimate_of(&kernel(1, 1)).pays());
        assert!(!estimate_of(&kernel(40, 1)).pays());
        assert!(estimate_of(&kernel(2, 2)).pays());
        let e = estimate_of(&kernel(3, 5));
        assert_eq!(e.gain(), e.then_cycles as i64 - e.overhead as i64);
    }
}
