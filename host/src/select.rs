//! Algorithm 1 of [P], `Select(C_BSB, S)`: which of the programmer's split points get a split
//! context, plus the re-provisioning of idle SpSIMDs ([P] Eq 2, with Select's peak count in
//! place of |SB|, design.md decision 7).

use std::collections::HashSet;

use crate::cfg::{BsbCfg, Role};

/// The output of Select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// SB: selected branches, in topological order.
    pub selected: Vec<usize>,
    /// Peak number of split contexts alive at once (`count` in Algorithm 1); at most S.
    pub count: u64,
}

impl Selection {
    /// Membership vector indexed by node.
    pub fn mask(&self, n: usize) -> Vec<bool> {
        let mut m = vec![false; n];
        for &u in &self.selected {
            m[u] = true;
        }
        m
    }
}

/// Algorithm 1. `marked[u]` is the set P (only branches count). A branch whose `Parent` equals the
/// `Parent` of an already selected branch runs after that sibling has merged, so it reuses the
/// freed context; any other needs a new one while `count < S`.
pub fn select(g: &BsbCfg, marked: &[bool], s: u64) -> Selection {
    let mut selected = Vec::new();
    let mut parents_in_sb: HashSet<Option<usize>> = HashSet::new();
    let mut count = 0;
    for u in g.branches().filter(|&u| marked[u]) {
        let p = g.parent(u);
        if parents_in_sb.contains(&p) {
            selected.push(u);
        } else if count < s {
            selected.push(u);
            parents_in_sb.insert(p);
            count += 1;
        }
    }
    Selection { selected, count }
}

/// Every divergent branch: the set P of `--split-all`.
pub fn all_branches(g: &BsbCfg) -> Vec<bool> {
    (0..g.len())
        .map(|v| matches!(g.role(v), Role::Branch { .. }))
        .collect()
}

/// [P] Eq 2: SIMD units per CU after the SpSIMDs that no wavefront can use (S − count per SIMD)
/// are re-provisioned as SIMDs with `count` SpSIMDs each.
pub fn simd_total(n_simd: u64, s: u64, count: u64) -> u64 {
    let unused = u128::from(s.saturating_sub(count));
    let extra = unused * u128::from(n_simd) / (u128::from(count) + 1);
    n_simd.saturating_add(u64::try_from(extra).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equation_2_matches_the_papers_example_and_the_count_fix() {
        // [P] §3.7: N_SIMD = 4, S = 3, one selected split: 8 SIMDs.
        assert_eq!(simd_total(4, 3, 1), 8);
        // Figure 8 at S = 2 has |SB| = 3 but count = 2: nothing to re-provision.
        assert_eq!(simd_total(4, 2, 2), 4);
        assert_eq!(simd_total(4, 2, 0), 12);
    }
}
