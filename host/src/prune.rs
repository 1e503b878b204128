//! Algorithm 2 of [P], `Prune(C_BSB, SB)`: removes, at every selected split point, the entry edge
//! of the cheaper path, so that IPET on the result bounds the slowest split wavefront.
//!
//! The removals are made by [`crate::structural::solve`] in one forward pass (which is what
//! keeps multi-exit loops linear); the paper's F recursion then runs backward over the same
//! CFG, line by line (digest 3.5, line 9 for every branch: digest 3.6 shows the figure was
//! computed without it at node 13; the printed pseudo-code is the correct one), and must reach
//! the same removals and F[entry] = IPET(C_out): two computations of one answer. Three
//! additions keep F exact on inputs the paper excludes: an ordinary block with several
//! successors (a uniform branch) takes the maximum over them; a loop header's F counts the
//! whole loop, F[h] = F_last(h) + (bound − 1)·c_L, where F_last is the cost from h when the
//! iteration that leaves has started and c_L the costliest iteration; and code that can only
//! go on to a back edge (after the exit test of a rotated loop) gets F relative to the end of
//! its iteration, so that a split point there is still decided by its paths' costs.

use crate::cfg::{BsbCfg, Role};
use crate::error::{HostError, Result};
use crate::structural::{solve, Structural};

/// The output of Prune.
#[derive(Debug, Clone)]
pub struct Pruned {
    /// E_r, ordered by the topological number of the edge's source.
    pub removed: Vec<(usize, usize)>,
    /// F[u] per node: worst-case cost from u to the end as the algorithm leaves it (0 for a
    /// node that reaches the end only through a back edge).
    pub f: Vec<u128>,
    /// F[entry] = IPET(C_out).
    pub wcet: u128,
    /// The structural solution of IPET(C_out), with its worst-case flow and dual values.
    pub solution: Structural,
}

fn internal(what: String) -> HostError {
    HostError::Solver(format!(
        "internal inconsistency between Prune's F recursion and the structural IPET: {what}"
    ))
}

/// Where the worst path from a node ends, for the F recursion: the end of the program (level 0)
/// or a back edge of the loop at depth `level`, and its cost. F proper is the level-0 value;
/// a node inside a loop body that leaves the loop only through its back edges (code after the
/// exit test of a rotated loop, as LLVM lays out a `break`) has only a value relative to the
/// end of its iteration, which is what a branch there needs: both of its paths run to the same
/// join, so only their difference decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reach {
    level: usize,
    cost: i128,
}

impl Reach {
    /// The way the last iteration takes: out of as many loops as possible, then the costliest.
    fn better(self, other: Reach) -> bool {
        (self.level, -self.cost) < (other.level, -other.cost)
    }
}

/// Algorithm 2 on `g` with `sb[u]` = u is in SB.
pub fn prune(g: &BsbCfg, sb: &[bool]) -> Result<Pruned> {
    let solution = solve(g, sb)?;
    let n = g.len();
    // The innermost loop a node closes an iteration of (usize::MAX: none).
    let mut latch_level = vec![usize::MAX; n];
    for &(l, h) in g.back_edges() {
        let depth = g.loop_at(h).expect("back edges enter headers").depth;
        latch_level[l] = latch_level[l].min(depth);
    }
    let mut f: Vec<Option<Reach>> = vec![None; n];
    let mut removed = Vec::new();
    let e = |v: usize| i128::from(g.wcet(v));
    let over = || HostError::Overflow("the WCET exceeds 2^127 cycles".into());
    let plus = |a: i128, b: i128| a.checked_add(b).ok_or_else(over);
    let value = |f: &[Option<Reach>], v: usize| {
        f[v].ok_or_else(|| {
            internal(format!(
                "{} reaches neither the end of the program nor a back edge",
                g.describe(v)
            ))
        })
    };
    for &u in g.order().iter().rev() {
        match g.role(u) {
            Role::Branch {
                path1: s,
                bsb: b,
                reconv: r,
            } => {
                let (fs, fb, fr) = (value(&f, s)?, value(&f, b)?, value(&f, r)?);
                if fs.level != fr.level || fb.level != fr.level {
                    return Err(internal(format!(
                        "the paths of the branch at {} leave it for different loops",
                        g.describe(u)
                    )));
                }
                let fs = plus(fs.cost - fb.cost, fr.cost)?;
                f[s] = Some(Reach {
                    level: fr.level,
                    cost: fs,
                });
                let fu = if sb[u] {
                    if fs < fb.cost {
                        removed.push((u, s));
                    } else {
                        let Role::Bsb { path2, .. } = g.role(b) else {
                            unreachable!("a branch's BSB has the BSB role")
                        };
                        removed.push((b, path2));
                    }
                    fs.max(fb.cost)
                } else {
                    plus(fs, fb.cost)? - fr.cost
                };
                f[u] = Some(Reach {
                    level: fr.level,
                    cost: plus(fu, e(u) + e(b))?,
                });
            }
            Role::Bsb { path2, .. } => f[u] = f[path2],
            Role::Block => {
                let back = (latch_level[u] != usize::MAX).then_some(Reach {
                    level: latch_level[u],
                    cost: 0,
                });
                let end = g.is_end(u).then_some(Reach { level: 0, cost: 0 });
                let next = g
                    .forward_successors(u)
                    .iter()
                    .filter_map(|&v| f[v])
                    .chain(back)
                    .chain(end)
                    .reduce(|a, b| if b.better(a) { b } else { a });
                f[u] = match next {
                    Some(x) => Some(Reach {
                        level: x.level,
                        cost: plus(x.cost, e(u))?,
                    }),
                    None => None,
                };
            }
        }
        if let (Some(l), Some(x)) = (g.loop_index_at(u), f[u]) {
            let lp = &g.loops()[l];
            if x.level >= lp.depth {
                return Err(internal(format!(
                    "the loop at {} has no exit the F recursion can take",
                    g.describe(u)
                )));
            }
            let more = (i128::from(lp.bound) - 1)
                .checked_mul(solution.iteration[l] as i128)
                .ok_or_else(over)?;
            f[u] = Some(Reach {
                level: x.level,
                cost: plus(x.cost, more)?,
            });
        }
    }
    removed.sort_by_key(|&(u, _)| g.position(u));
    if removed != solution.removed {
        return Err(internal(format!(
            "F removes {removed:?}, the forward pass {:?}",
            solution.removed
        )));
    }
    let wcet = match f[g.entry()] {
        Some(Reach { level: 0, cost }) => cost,
        _ => {
            return Err(internal(format!(
                "{} cannot reach the end of the program",
                g.describe(g.entry())
            )))
        }
    };
    if wcet != solution.wcet as i128 {
        return Err(internal(format!(
            "F[entry] = {wcet}, the longest priced path = {}",
            solution.wcet
        )));
    }
    Ok(Pruned {
        removed,
        f: f.iter()
            .map(|x| match x {
                Some(Reach { level: 0, cost }) => (*cost).max(0) as u128,
                _ => 0,
            })
            .collect(),
        wcet: solution.wcet,
        solution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, BlockKind, Cfg};

    /// pathfinder's loop as clang-14 lays it out: the `break` test `t` sits mid-body, and the
    /// divergent `if (computed)` after it joins at the latch `l`, which only jumps back.
    ///
    /// e -> h (x4) -> t -> u -> s -> b -> p -> l -> h; t -> x (break); u -> b; b -> l.
    fn rotated(split: bool) -> BsbCfg {
        let block = |name: &str, wcet, kind, loop_bound| Block {
            name: name.into(),
            wcet,
            kind,
            split: split && kind == BlockKind::Branch,
            loop_bound,
            line: None,
            source: None,
        };
        BsbCfg::new(Cfg {
            blocks: vec![
                block("e", 1, BlockKind::Block, None),
                block("h", 2, BlockKind::Block, Some(4)),
                block("t", 3, BlockKind::Block, None),
                block("u", 4, BlockKind::Branch, None),
                block("s", 50, BlockKind::Block, None),
                block("b", 5, BlockKind::Bsb, None),
                block("p", 20, BlockKind::Block, None),
                block("l", 6, BlockKind::Block, None),
                block("x", 7, BlockKind::Block, None),
            ],
            edges: vec![
                (0, 1),
                (1, 2),
                (2, 3),
                (2, 8),
                (3, 4),
                (3, 5),
                (4, 5),
                (5, 6),
                (5, 7),
                (6, 7),
                (7, 1),
            ],
            entry: 0,
        })
        .unwrap()
    }

    #[test]
    fn a_split_before_the_latch_of_a_rotated_loop() {
        let iteration = 2 + 3 + 4 + 50 + 5 + 20 + 6;
        let g = rotated(false);
        let p = prune(&g, &[false; 9]).unwrap();
        assert!(p.removed.is_empty());
        // Three full iterations, then h and t of the fourth, and the break.
        assert_eq!(p.wcet, 1 + 3 * iteration + 2 + 3 + 7);
        assert_eq!(p.f[g.entry()], p.wcet);

        // Selected, the branch loses its cheaper path (path 2, 20 < 50) in every iteration.
        let g = rotated(true);
        let mut sb = vec![false; 9];
        sb[3] = true;
        let p = prune(&g, &sb).unwrap();
        assert_eq!(p.removed, [(5, 6)]);
        assert_eq!(p.wcet, 1 + 3 * (iteration - 20) + 2 + 3 + 7);
        // F of code that only goes on to the back edge is not a cost to the end.
        assert_eq!(p.f[7], 0);
    }
}
