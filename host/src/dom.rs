//! Dominator trees by Lengauer and Tarjan's algorithm (simple version: path compression,
//! O(m log n)), and dominance queries in O(1) from the tree's pre/post numbers.
//!
//! [`crate::cfg::BsbCfg`] needs dominators (back edges, loops, the if/else regions) and
//! post-dominators (the joins) of CFGs with 10^5 nodes and deep nestings; the iterative
//! algorithm of Cooper, Harvey and Kennedy (petgraph's `simple_fast`) walks the dominator tree
//! once per edge and grows with nodes x nesting depth on such graphs.

use crate::csr::Csr;

const NONE: usize = usize::MAX;

/// The immediate dominator of every node of the graph `succ` seen from `root` (`None` for the
/// root and for nodes the root does not reach).
pub fn immediate_dominators(succ: &Csr, root: usize) -> Vec<Option<usize>> {
    let n = succ.len();
    // Depth-first numbering; everything below works on DFS numbers.
    let mut num = vec![NONE; n];
    let mut vertex = Vec::with_capacity(n);
    let mut parent = Vec::with_capacity(n);
    let mut stack = vec![(root, NONE, 0usize)];
    while let Some(&mut (v, from, ref mut next)) = stack.last_mut() {
        if *next == 0 {
            if num[v] != NONE {
                stack.pop();
                continue;
            }
            num[v] = vertex.len();
            vertex.push(v);
            parent.push(from);
        }
        match succ[v].get(*next) {
            Some(&w) => {
                *next += 1;
                if num[w] == NONE {
                    let pv = num[v];
                    stack.push((w, pv, 0));
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    let reached = vertex.len();
    let mut pairs = Vec::with_capacity(succ.edges());
    for (i, &v) in vertex.iter().enumerate() {
        for &w in &succ[v] {
            if num[w] != NONE {
                pairs.push((num[w], i));
            }
        }
    }
    let pred = Csr::new(reached, &pairs);
    drop(pairs);
    let mut semi: Vec<usize> = (0..reached).collect();
    let mut label: Vec<usize> = (0..reached).collect();
    let mut ancestor = vec![NONE; reached];
    let mut idom = vec![NONE; reached];
    // Buckets as linked lists: bucket_head[s] is the last vertex with semidominator s.
    let mut bucket_head = vec![NONE; reached];
    let mut bucket_next = vec![NONE; reached];
    let mut path = Vec::new();
    for w in (1..reached).rev() {
        for &v in &pred[w] {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            if semi[u] < semi[w] {
                semi[w] = semi[u];
            }
        }
        bucket_next[w] = bucket_head[semi[w]];
        bucket_head[semi[w]] = w;
        let p = parent[w];
        ancestor[w] = p;
        let mut v = std::mem::replace(&mut bucket_head[p], NONE);
        while v != NONE {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            idom[v] = if semi[u] < semi[v] { u } else { p };
            v = bucket_next[v];
        }
    }
    for w in 1..reached {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w]];
        }
    }
    let mut out = vec![None; n];
    for w in 1..reached {
        out[vertex[w]] = Some(vertex[idom[w]]);
    }
    out
}

/// The vertex with the smallest semidominator on the compressed forest path above `v`.
fn eval(
    v: usize,
    ancestor: &mut [usize],
    label: &mut [usize],
    semi: &[usize],
    path: &mut Vec<usize>,
) -> usize {
    if ancestor[v] == NONE {
        return v;
    }
    // Compress the path from v to the forest root, top first (iterative, for deep trees).
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x]] != NONE {
        path.push(x);
        x = ancestor[x];
    }
    while let Some(y) = path.pop() {
        let a = ancestor[y];
        if semi[label[a]] < semi[label[y]] {
            label[y] = label[a];
        }
        ancestor[y] = ancestor[a];
    }
    label[v]
}

/// A dominator tree with pre/post numbers, so that `dominates` is O(1).
#[derive(Debug, Clone)]
pub struct DomTree {
    pub idom: Vec<Option<usize>>,
    pre: Vec<usize>,
    post: Vec<usize>,
    /// The reached nodes in preorder (a node before everything it dominates).
    preorder: Vec<usize>,
}

impl DomTree {
    pub fn new(idom: Vec<Option<usize>>, root: usize) -> DomTree {
        let n = idom.len();
        let pairs: Vec<(usize, usize)> = idom
            .iter()
            .enumerate()
            .filter_map(|(v, d)| d.map(|d| (d, v)))
            .collect();
        let children = Csr::new(n, &pairs);
        let mut pre = vec![NONE; n];
        let mut post = vec![NONE; n];
        let mut preorder = Vec::with_capacity(n);
        let mut t_post = 0;
        let mut stack = vec![(root, 0usize)];
        pre[root] = 0;
        preorder.push(root);
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&c) = children[v].get(*next) {
                *next += 1;
                pre[c] = preorder.len();
                preorder.push(c);
                stack.push((c, 0));
            } else {
                post[v] = t_post;
                t_post += 1;
                stack.pop();
            }
        }
        DomTree {
            idom,
            pre,
            post,
            preorder,
        }
    }

    /// `a` dominates `b` (every node dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.pre[a] != NONE
            && self.pre[b] != NONE
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    /// Preorder number (`usize::MAX` if unreached): a dominator comes first.
    pub fn preorder_number(&self, v: usize) -> usize {
        self.pre[v]
    }

    /// The reached nodes in preorder.
    pub fn preorder(&self) -> &[usize] {
        &self.preorder
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dominators by the definition: d dominates v iff v is unreachable from the root once d
    /// is removed.
    fn naive(succ: &[Vec<usize>], root: usize) -> Vec<Option<usize>> {
        let n = succ.len();
        let reach = |skip: usize| {
            let mut seen = vec![false; n];
            if root == skip {
                return seen;
            }
            let mut st = vec![root];
            seen[root] = true;
            while let Some(u) = st.pop() {
                for &w in &succ[u] {
                    if w != skip && !seen[w] {
                        seen[w] = true;
                        st.push(w);
                    }
                }
            }
            seen
        };
        let all = reach(NONE);
        let doms: Vec<Vec<bool>> = (0..n)
            .map(|d| {
                let r = reach(d);
                (0..n).map(|v| all[v] && !r[v]).collect()
            })
            .collect();
        (0..n)
            .map(|v| {
                if v == root || !all[v] {
                    return None;
                }
                // The immediate dominator is the strict dominator dominated by all the others.
                let strict: Vec<usize> = (0..n).filter(|&d| d != v && doms[d][v]).collect();
                strict
                    .iter()
                    .copied()
                    .find(|&d| strict.iter().all(|&e| doms[e][d]))
            })
            .collect()
    }

    #[test]
    fn matches_the_definition_on_random_graphs() {
        let csr = |succ: &[Vec<usize>]| {
            let pairs: Vec<(usize, usize)> = succ
                .iter()
                .enumerate()
                .flat_map(|(u, vs)| vs.iter().map(move |&v| (u, v)))
                .collect();
            Csr::new(succ.len(), &pairs)
        };
        let mut seed = 0x1234_5678_u64;
        let mut rnd = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..300 {
            let n = 1 + rnd(12) as usize;
            let mut succ = vec![Vec::new(); n];
            for _ in 0..rnd(3 * n as u64 + 1) {
                let (a, b) = (rnd(n as u64) as usize, rnd(n as u64) as usize);
                succ[a].push(b);
            }
            let root = rnd(n as u64) as usize;
            assert_eq!(
                immediate_dominators(&csr(&succ), root),
                naive(&succ, root),
                "{succ:?} from {root}"
            );
        }
    }

    #[test]
    fn deep_chains_need_no_recursion() {
        let n = 200_000;
        let pairs: Vec<(usize, usize)> = (1..n).map(|v| (v - 1, v)).collect();
        let idom = immediate_dominators(&Csr::new(n, &pairs), 0);
        assert_eq!(idom[n - 1], Some(n - 2));
        let t = DomTree::new(idom, 0);
        assert!(t.dominates(3, n - 1) && !t.dominates(n - 1, 3));
        assert_eq!(t.preorder()[..3], [0, 1, 2]);
    }
}
