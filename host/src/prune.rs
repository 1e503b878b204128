//! Algorithm 2 of [P], `Prune(C_BSB, SB)`: removes, at every selected split point, the entry edge
//! of the cheaper path, so that IPET on the result bounds the slowest split wavefront.
//!
//! The removals are made by [`crate::structural::solve`] in one forward pass (which is what
//! keeps multi-exit loops linear); the paper's F recursion then runs backward over the same
//! CFG, line by line (digest 3.5, line 9 for every branch: digest 3.6 shows the figure was
//! computed without it at node 13; the printed pseudo-code is the correct one), and must reach
//! the same removals and F[entry] = IPET(C_out): two computations of one answer. Two additions
//! keep F exact on inputs the paper excludes: an ordinary block with several successors (a
//! uniform branch) takes the maximum over them, and a loop header's F counts the whole loop,
//! F[h] = F_last(h) + (bound − 1)·c_L, where F_last is the cost from h when the iteration
//! that leaves has started and c_L the costliest iteration.

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

/// Algorithm 2 on `g` with `sb[u]` = u is in SB.
pub fn prune(g: &BsbCfg, sb: &[bool]) -> Result<Pruned> {
    let solution = solve(g, sb)?;
    let n = g.len();
    // None: no way to the end of the program from here without a back edge (a latch whose
    // only successor is its header), so not a way the last iteration can take.
    let mut f: Vec<Option<i128>> = vec![None; n];
    let mut removed = Vec::new();
    let e = |v: usize| i128::from(g.wcet(v));
    let over = || HostError::Overflow("the WCET exceeds 2^127 cycles".into());
    let plus = |a: i128, b: i128| a.checked_add(b).ok_or_else(over);
    let value = |f: &[Option<i128>], v: usize| {
        f[v].ok_or_else(|| {
            internal(format!(
                "{} cannot reach the end of the program",
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
                let fs = plus(fs - fb, fr)?;
                f[s] = Some(fs);
                let fu = if sb[u] {
                    if fs < fb {
                        removed.push((u, s));
                    } else {
                        let Role::Bsb { path2, .. } = g.role(b) else {
                            unreachable!("a branch's BSB has the BSB role")
                        };
                        removed.push((b, path2));
                    }
                    fs.max(fb)
                } else {
                    plus(fs, fb)? - fr
                };
                f[u] = Some(plus(fu, e(u) + e(b))?);
            }
            Role::Bsb { path2, .. } => f[u] = f[path2],
            Role::Block => {
                let next = g.forward_successors(u).iter().filter_map(|&v| f[v]).max();
                f[u] = match next {
                    Some(x) => Some(plus(x, e(u))?),
                    None if g.is_end(u) => Some(e(u)),
                    None => None,
                };
            }
        }
        if let (Some(l), Some(x)) = (g.loop_index_at(u), f[u]) {
            let more = (i128::from(g.loops()[l].bound) - 1)
                .checked_mul(solution.iteration[l] as i128)
                .ok_or_else(over)?;
            f[u] = Some(plus(x, more)?);
        }
    }
    removed.sort_by_key(|&(u, _)| g.position(u));
    if removed != solution.removed {
        return Err(internal(format!(
            "F removes {removed:?}, the forward pass {:?}",
            solution.removed
        )));
    }
    let wcet = value(&f, g.entry())?;
    if wcet != solution.wcet as i128 {
        return Err(internal(format!(
            "F[entry] = {wcet}, the longest priced path = {}",
            solution.wcet
        )));
    }
    Ok(Pruned {
        removed,
        f: f.iter().map(|&x| x.unwrap_or(0).max(0) as u128).collect(),
        wcet: solution.wcet,
        solution,
    })
}
