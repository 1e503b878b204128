//! The IPET optimum of a reducible CFG in linear time (the timing schema of bounded loops over
//! longest paths), with Prune's edge removals ([P] Algorithm 2) made on the way and the
//! evidence that lets [`crate::ipet`] re-verify the answer exactly: an integer worst-case
//! flow (primal) and an LP-dual solution of the same value (which proves it optimal).
//!
//! How it works. A loop L with header h and bound k is priced: `c_L`, the costliest single
//! iteration (the longest path from h to one of its back edges, inner loops priced already),
//! is taken off h's cost and k·c_L is put on every edge that enters L. Every cycle then costs
//! at most 0, so the worst path of the priced CFG never takes a back edge, and its cost is
//! the longest path of the forward DAG: (k − 1) full iterations plus the iteration that leaves,
//! for any number of latches and exits. One pass in [`BsbCfg::order`] (where every loop and
//! every path of a branch is a contiguous run) computes distances from the entry; values inside
//! a region are kept relative to the region's entry and the region is linked into its parent
//! with the offset once known (a weighted union-find), which keeps deep nests linear. At a
//! branch's join both path costs are known: a selected branch drops the entry edge of the
//! cheaper path (Prune's rule, ties dropping path 2's), the BSB and path 2 are placed, and the
//! join continues.
//!
//! Evidence. Let D_v be the longest priced distance from the entry to v and V the best over
//! the program's ends. The dual values π_v = V − D_v + w'_v (w' the priced cost) on the flow
//! rows and c_L on the loop rows satisfy every dual constraint (a back edge's holds because its
//! cycle costs at most 0) and their objective is V. The worst-case flow is the longest path
//! plus, for every loop it enters, k − 1 more runs of the loop's costliest iteration, nested
//! loops multiplied out; both are integral, so V is the optimum of the ILP and of its LP
//! relaxation. All arithmetic is exact (i128, checked).

use crate::cfg::{BsbCfg, Region, Role};
use crate::csr::Csr;
use crate::error::{HostError, Result};

const NONE: usize = usize::MAX;

/// The structural solution of one IPET problem: the CFG with a set of branches pruned.
#[derive(Debug, Clone)]
pub struct Structural {
    /// E_r: entry edges of the cheaper path of each selected branch, in topological order of
    /// the branch.
    pub removed: Vec<(usize, usize)>,
    /// IPET of the CFG without `removed`.
    pub wcet: u128,
    /// Nodes the entry still reaches without the removed edges.
    pub live: Vec<bool>,
    /// Executions of each node on the worst-case flow.
    pub block_counts: Vec<u128>,
    /// Traversals of the edges the worst-case flow uses.
    pub edge_counts: Vec<((usize, usize), u128)>,
    /// Per loop ([`BsbCfg::loops`]): the cost of its costliest iteration, c_L (the dual value
    /// of its bound row; for a loop in a pruned path, as computed before the path was pruned).
    pub iteration: Vec<u128>,
    /// Per node: the longest priced distance from the entry (meaningful for live nodes).
    pub dist: Vec<i128>,
}

impl Structural {
    /// The dual value of node `v`'s flow-in row: V − D_v + w'_v (w' = the cost with the loop
    /// price taken off a header).
    pub fn dual_in(&self, g: &BsbCfg, v: usize) -> i128 {
        self.wcet as i128 - self.dist[v] + self.priced(g, v)
    }

    /// The dual value of node `v`'s flow-out row: D_v − V.
    pub fn dual_out(&self, v: usize) -> i128 {
        self.dist[v] - self.wcet as i128
    }

    /// w'_v: the node's cost, less its loop's price if it is a header.
    pub fn priced(&self, g: &BsbCfg, v: usize) -> i128 {
        let w = i128::from(g.wcet(v));
        match g.loop_index_at(v) {
            Some(l) => w - self.iteration[l] as i128,
            None => w,
        }
    }
}

fn overflow() -> HostError {
    HostError::Overflow("the WCET exceeds 2^127 cycles".into())
}

fn add(a: i128, b: i128) -> Result<i128> {
    a.checked_add(b).ok_or_else(overflow)
}

fn mul(a: i128, b: i128) -> Result<i128> {
    a.checked_mul(b).ok_or_else(overflow)
}

/// Weighted union-find over regions: a finished region points to its parent with the offset of
/// its entry there.
struct Offsets {
    up: Vec<usize>,
    off: Vec<i128>,
    path: Vec<usize>,
}

impl Offsets {
    fn new(n: usize) -> Offsets {
        Offsets {
            up: (0..n).collect(),
            off: vec![0; n],
            path: Vec::new(),
        }
    }

    /// The open region holding `r` and the offset from `r`'s frame to it.
    fn find(&mut self, r: usize) -> Result<(usize, i128)> {
        self.path.clear();
        let mut x = r;
        while self.up[x] != x {
            self.path.push(x);
            x = self.up[x];
        }
        let root = x;
        // Compress from the top: each node then points at the root with its total offset.
        let mut acc = 0i128;
        for &y in self.path.iter().rev() {
            acc = add(acc, self.off[y])?;
            self.off[y] = acc;
            self.up[y] = root;
        }
        Ok((root, if r == root { 0 } else { self.off[r] }))
    }

    fn link(&mut self, r: usize, parent: usize, off: i128) {
        self.up[r] = parent;
        self.off[r] = off;
    }
}

/// Solves the IPET of `g` with Prune applied to the branches in `sb` (indexed by node).
pub fn solve(g: &BsbCfg, sb: &[bool]) -> Result<Structural> {
    let n = g.len();
    let regions = g.regions();
    let nr = regions.len();
    let loops = g.loops();
    let w = |v: usize| i128::from(g.wcet(v));

    // Regions closing after each position, innermost first; the two path regions of a branch.
    let mut closing: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut paths: Vec<[usize; 2]> = vec![[NONE; 2]; n];
    for (id, r) in regions.iter().enumerate().skip(1) {
        closing[r.last].push(id);
        match r.kind {
            Region::Path1(u) => paths[u][0] = id,
            Region::Path2(u) => paths[u][1] = id,
            Region::Root | Region::Loop(_) => {}
        }
    }
    for c in &mut closing {
        c.sort_unstable_by_key(|&r| std::cmp::Reverse(regions[r].depth));
    }
    // The region a node's incoming value is measured in: the parent of the outermost region
    // it enters (a path head that is also a header enters both), else its own.
    let arrival_region = |v: usize| -> usize {
        let mut r = g.region_of(v);
        while regions[r].entry == v && r != 0 {
            r = regions[r].parent.expect("only the root has no parent");
        }
        r
    };

    let mut uf = Offsets::new(nr);
    let mut rel = vec![0i128; n];
    let mut argpred = vec![NONE; n];
    let mut iteration = vec![0i128; loops.len()];
    let mut best_latch = vec![NONE; loops.len()];
    let mut entry_value = vec![0i128; loops.len()];
    let mut dead_region = vec![false; nr];
    let mut removed = Vec::new();
    // Longest distance of `p` from the entry of the open region `r` that holds it.
    let dist_in = |uf: &mut Offsets, rel: &[i128], p: usize, r: usize| -> Result<i128> {
        let (root, off) = uf.find(g.region_of(p))?;
        debug_assert_eq!(
            root, r,
            "a predecessor lies in the open region or a finished one inside it"
        );
        add(rel[p], off)
    };

    for (i, &v) in g.order().iter().enumerate() {
        // The value with which control arrives at v, in v's arrival region.
        let arrival = if v == g.entry() {
            Some(0)
        } else if let Some(u) = g.join_of(v) {
            // Both paths of u are finished: apply Prune's rule and place the BSB.
            let Role::Branch { path1, bsb, .. } = g.role(u) else {
                unreachable!("joins belong to branches")
            };
            let Role::Bsb { path2, .. } = g.role(bsb) else {
                unreachable!("roles are set in pairs")
            };
            let [p1, p2] = paths[u];
            let best = |uf: &mut Offsets, node: usize, skip: usize, region: usize| {
                let mut best = (0i128, NONE);
                for &q in g.forward_predecessors(node).iter().filter(|&&q| q != skip) {
                    let d = dist_in(uf, &rel, q, region)?;
                    if best.1 == NONE || d > best.0 {
                        best = (d, q);
                    }
                }
                Ok::<_, HostError>(best)
            };
            let (c1, q1) = best(&mut uf, bsb, u, p1)?;
            let (c2, q2) = best(&mut uf, v, bsb, p2)?;
            let (keep1, keep2) = if sb[u] {
                if c1 < c2 {
                    removed.push((u, path1));
                    dead_region[p1] = true;
                    (false, true)
                } else {
                    removed.push((bsb, path2));
                    dead_region[p2] = true;
                    (true, false)
                }
            } else {
                (true, true)
            };
            let at_u = rel[u];
            rel[bsb] = add(add(at_u, if keep1 { c1 } else { 0 })?, w(bsb))?;
            argpred[bsb] = if keep1 { q1 } else { u };
            uf.link(p1, regions[p1].parent.expect("paths have parents"), at_u);
            uf.link(
                p2,
                regions[p2].parent.expect("paths have parents"),
                rel[bsb],
            );
            argpred[v] = if keep2 { q2 } else { bsb };
            Some(add(rel[bsb], if keep2 { c2 } else { 0 })?)
        } else {
            match g.role(v) {
                // Placed at its join, once path 1's fate is known.
                Role::Bsb { .. } => None,
                _ => {
                    let preds = g.forward_predecessors(v);
                    match preds {
                        // A path head: its region counts from the branch (path 1) or BSB (path 2).
                        [p] if matches!(g.role(*p), Role::Branch { .. } | Role::Bsb { .. }) => {
                            argpred[v] = *p;
                            Some(0)
                        }
                        _ => {
                            let r = arrival_region(v);
                            let mut best = (0i128, NONE);
                            for &p in preds {
                                let d = dist_in(&mut uf, &rel, p, r)?;
                                if best.1 == NONE || d > best.0 {
                                    best = (d, p);
                                }
                            }
                            argpred[v] = best.1;
                            Some(best.0)
                        }
                    }
                }
            }
        };
        if let Some(a) = arrival {
            match g.loop_index_at(v) {
                Some(l) => {
                    entry_value[l] = a;
                    rel[v] = w(v);
                }
                None => rel[v] = add(a, w(v))?,
            }
        }
        for &r in &closing[i] {
            if let Region::Loop(l) = regions[r].kind {
                let mut best = (0i128, NONE);
                for &latch in &loops[l].latches {
                    let d = dist_in(&mut uf, &rel, latch, r)?;
                    if best.1 == NONE || d > best.0 {
                        best = (d, latch);
                    }
                }
                iteration[l] = best.0;
                best_latch[l] = best.1;
                let more = mul(i128::from(loops[l].bound) - 1, best.0)?;
                uf.link(
                    r,
                    regions[r].parent.expect("loops have parents"),
                    add(entry_value[l], more)?,
                );
            }
        }
    }

    // Dead regions (and everything inside them) are cut off by the removed edges.
    let mut outer_first: Vec<usize> = (1..nr).collect();
    outer_first.sort_unstable_by_key(|&r| regions[r].depth);
    for r in outer_first {
        let p = regions[r].parent.expect("only the root has no parent");
        dead_region[r] |= dead_region[p];
    }
    let live: Vec<bool> = (0..n).map(|v| !dead_region[g.region_of(v)]).collect();
    let mut dist = vec![0i128; n];
    for v in (0..n).filter(|&v| live[v]) {
        let (root, off) = uf.find(g.region_of(v))?;
        debug_assert_eq!(root, 0);
        dist[v] = add(rel[v], off)?;
    }

    // The program ends at a node without successors; the worst one is the answer.
    let sink = (0..n)
        .filter(|&v| live[v] && g.is_end(v))
        .max_by_key(|&v| (dist[v], std::cmp::Reverse(v)))
        .ok_or_else(|| {
            HostError::Structure("no path from the entry reaches the end of the program".into())
        })?;
    let wcet = dist[sink];
    let (block_counts, edge_counts) = worst_flow(g, &live, &argpred, &best_latch, sink, g.entry())?;
    Ok(Structural {
        removed: {
            let mut r = removed;
            r.sort_by_key(|&(u, _)| g.position(u));
            r
        },
        wcet: u128::try_from(wcet).map_err(|_| overflow())?,
        live,
        block_counts,
        edge_counts,
        iteration: iteration.iter().map(|&c| c as u128).collect(),
        dist,
    })
}

/// The worst-case flow: the longest path (the tree of best predecessors from the entry to
/// `sink`) plus (k − 1)·entries runs of each loop's costliest iteration (the tree path from its
/// header to its best latch), outer loops first so that an inner loop's entries include the
/// outer iterations that run through it. Entries into a loop are the flow that reaches its
/// header from outside: in the tree, the paths that end below the header and start above it,
/// a subtree sum kept in a Fenwick tree over the tree's preorder.
fn worst_flow(
    g: &BsbCfg,
    live: &[bool],
    argpred: &[usize],
    best_latch: &[usize],
    sink: usize,
    entry: usize,
) -> Result<(Vec<u128>, Vec<((usize, usize), u128)>)> {
    let n = g.len();
    let tree: Vec<(usize, usize)> = (0..n)
        .filter(|&v| live[v] && v != entry)
        .map(|v| (argpred[v], v))
        .collect();
    let children = Csr::new(n, &tree);
    let (mut tin, mut tout) = (vec![0usize; n], vec![0usize; n]);
    let mut by_tin = Vec::with_capacity(n);
    let mut stack = vec![(entry, 0usize)];
    tin[entry] = 0;
    by_tin.push(entry);
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        if let Some(&c) = children[v].get(*next) {
            *next += 1;
            tin[c] = by_tin.len();
            by_tin.push(c);
            stack.push((c, 0));
        } else {
            tout[v] = by_tin.len();
            stack.pop();
        }
    }
    let size = by_tin.len();
    let mut fenwick = vec![0i128; size + 1];
    let mut point = vec![0i128; n];
    let put = |fenwick: &mut Vec<i128>, point: &mut Vec<i128>, v: usize, d: i128| -> Result<()> {
        point[v] = add(point[v], d)?;
        let mut i = tin[v] + 1;
        while i <= size {
            fenwick[i] = add(fenwick[i], d)?;
            i += i & i.wrapping_neg();
        }
        Ok(())
    };
    let prefix = |fenwick: &[i128], mut i: usize| -> Result<i128> {
        let mut s = 0i128;
        while i > 0 {
            s = add(s, fenwick[i])?;
            i -= i & i.wrapping_neg();
        }
        Ok(s)
    };
    put(&mut fenwick, &mut point, sink, 1)?;
    let loops = g.loops();
    let mut iters = vec![0i128; loops.len()];
    // Loops are stored inner first: the reverse visits every loop after the loops around it.
    for l in (0..loops.len()).rev() {
        let h = loops[l].header;
        if !live[h] {
            continue;
        }
        let entries = prefix(&fenwick, tout[h])?
            .checked_sub(prefix(&fenwick, tin[h])?)
            .ok_or_else(overflow)?;
        let mu = mul(i128::from(loops[l].bound) - 1, entries)?;
        iters[l] = mu;
        if mu != 0 {
            put(&mut fenwick, &mut point, best_latch[l], mu)?;
            if h != entry {
                put(&mut fenwick, &mut point, argpred[h], -mu)?;
            }
        }
    }
    // Executions are subtree sums of the points.
    let mut count = point;
    for &v in by_tin.iter().rev() {
        if v != entry {
            count[argpred[v]] = add(count[argpred[v]], count[v])?;
        }
    }
    let mut edges = Vec::new();
    for &v in by_tin.iter().filter(|&&v| v != entry) {
        let starts = g.loop_index_at(v).map_or(0, |l| iters[l]);
        let y = count[v].checked_sub(starts).ok_or_else(overflow)?;
        if y != 0 {
            edges.push(((argpred[v], v), y as u128));
        }
    }
    for (l, lp) in loops.iter().enumerate() {
        if iters[l] != 0 {
            edges.push(((best_latch[l], lp.header), iters[l] as u128));
        }
    }
    let counts = (0..n)
        .map(|v| if live[v] { count[v].max(0) as u128 } else { 0 })
        .collect();
    Ok((counts, edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, BlockKind, Cfg};

    fn graph(nodes: &[(&str, u64, Option<u64>)], edges: &[(usize, usize)]) -> BsbCfg {
        BsbCfg::new(Cfg {
            blocks: nodes
                .iter()
                .map(|&(name, wcet, loop_bound)| Block {
                    name: name.into(),
                    wcet,
                    kind: BlockKind::Block,
                    split: false,
                    loop_bound,
                    line: None,
                    source: None,
                })
                .collect(),
            edges: edges.to_vec(),
            entry: 0,
        })
        .unwrap()
    }

    #[test]
    fn a_loop_with_a_break_and_a_continue() {
        // e -> h (x10) -> a -> b -> l -> h; a -> h (continue, cheap); b -> x (break).
        let g = graph(
            &[
                ("e", 1, None),
                ("h", 2, Some(10)),
                ("a", 3, None),
                ("b", 4, None),
                ("l", 5, None),
                ("x", 6, None),
            ],
            &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 1), (2, 1), (3, 5)],
        );
        let s = solve(&g, &[false; 6]).unwrap();
        // 9 full iterations h a b l (14), then h a b and the break (9), then x.
        assert_eq!(s.wcet, 1 + 9 * 14 + 9 + 6);
        assert_eq!(s.iteration, [14]);
        assert_eq!(s.block_counts, [1, 10, 10, 10, 9, 1]);
        let back = s.edge_counts.iter().find(|(e, _)| *e == (4, 1)).unwrap();
        assert_eq!(back.1, 9);
    }

    #[test]
    fn nested_loops_multiply() {
        // e -> h1 (x3) -> h2 (x4) -> l2 -> h2; l2 -> l1 -> h1; l1 -> x.
        let g = graph(
            &[
                ("e", 0, None),
                ("h1", 1, Some(3)),
                ("h2", 1, Some(4)),
                ("l2", 1, None),
                ("l1", 1, None),
                ("x", 0, None),
            ],
            &[(0, 1), (1, 2), (2, 3), (3, 2), (3, 4), (4, 1), (4, 5)],
        );
        let s = solve(&g, &[false; 6]).unwrap();
        assert_eq!(s.wcet, 3 * (1 + 4 * 2 + 1));
        assert_eq!(s.block_counts, [1, 3, 12, 12, 3, 1]);
    }
}
