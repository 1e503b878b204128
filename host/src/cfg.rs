//! Control-flow graphs with branch-serialization blocks (BSB CFGs, [P] Fig 7) and the
//! structural facts the paper's algorithms need: the topological numbering with path-1 nodes
//! < BSB < path-2 nodes < join (digest 3.3), `SuccBB`, `BSB`, `Reconv`, `Parent`, immediate
//! (post-)dominators (petgraph), natural loops with their bounds.
//!
//! [`Cfg`] is what a front end (DOT file, GCN3 assembly, generator) produces; [`BsbCfg::new`]
//! checks it and derives the structure, rejecting what the analysis cannot handle (irreducible
//! flow, a divergent branch without its BSB, loops without a bound or with several exits).

use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;

use crate::error::{structure, HostError, Result};

/// The role a node declares in its input (design.md decision 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    /// Ordinary straight-line code; more than one successor means a uniform (scalar) branch.
    Block,
    /// A divergent branch: two successors, the head of path 1 and its BSB.
    Branch,
    /// A branch-serialization block: flips EXEC between the two paths of its branch.
    Bsb,
}

/// One node of a CFG as given by a front end.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The id used in messages and outputs (DOT id or assembly label).
    pub name: String,
    /// Worst-case cycles of one execution of the node.
    pub wcet: u64,
    pub kind: BlockKind,
    /// The programmer marked this branch as a split point (set P of Algorithm 1).
    pub split: bool,
    /// On a loop header: the maximum number of times the header runs per entry into the loop.
    pub loop_bound: Option<u64>,
}

/// A CFG as produced by a front end: nodes, directed edges (deduplicated) and the entry node.
#[derive(Debug, Clone, PartialEq)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    pub edges: Vec<(usize, usize)>,
    pub entry: usize,
}

/// The structural role of a node after analysis (digest 3.3's helper functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Block,
    /// `SuccBB(u) = path1`, `BSB(u) = bsb`, `Reconv(u) = reconv`.
    Branch {
        path1: usize,
        bsb: usize,
        reconv: usize,
    },
    /// `SuccBB(u) = path2`, `Reconv(u) = reconv`.
    Bsb {
        branch: usize,
        path2: usize,
        reconv: usize,
    },
}

/// A natural loop with a single back edge `latch -> header` whose only exit is `latch -> exit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    pub header: usize,
    pub latch: usize,
    pub exit: usize,
    pub bound: u64,
}

/// A checked BSB CFG with its derived structure.
#[derive(Debug, Clone)]
pub struct BsbCfg {
    cfg: Cfg,
    fwd_succ: Vec<Vec<usize>>,
    fwd_pred: Vec<Vec<usize>>,
    back_edges: Vec<(usize, usize)>,
    order: Vec<usize>,
    pos: Vec<usize>,
    role: Vec<Role>,
    parent: Vec<Option<usize>>,
    loops: Vec<Loop>,
    header_loop: Vec<Option<usize>>,
    multiplicity: Vec<u64>,
}

/// Dominance queries in O(1) from pre/post numbers of a dominator tree.
struct DomTree {
    idom: Vec<Option<usize>>,
    pre: Vec<usize>,
    post: Vec<usize>,
}

impl DomTree {
    fn new(n: usize, doms: &Dominators<NodeIndex>, root: usize) -> DomTree {
        let mut idom = vec![None; n];
        let mut children = vec![Vec::new(); n];
        for (v, slot) in idom.iter_mut().enumerate() {
            if v == root {
                continue;
            }
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(v)) {
                *slot = Some(d.index());
                children[d.index()].push(v);
            }
        }
        let mut pre = vec![usize::MAX; n];
        let mut post = vec![usize::MAX; n];
        let (mut t_pre, mut t_post) = (0, 0);
        let mut stack = vec![(root, 0usize)];
        pre[root] = t_pre;
        t_pre += 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&c) = children[v].get(*next) {
                *next += 1;
                pre[c] = t_pre;
                t_pre += 1;
                stack.push((c, 0));
            } else {
                post[v] = t_post;
                t_post += 1;
                stack.pop();
            }
        }
        DomTree { idom, pre, post }
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        self.pre[a] != usize::MAX
            && self.pre[b] != usize::MAX
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }
}

impl BsbCfg {
    /// Checks `cfg` and derives its structure; every loop needs a bound.
    pub fn new(cfg: Cfg) -> Result<BsbCfg> {
        Self::build(cfg, true)
    }

    /// Like [`BsbCfg::new`] for passes that only need the structure (the compiler): a loop
    /// without a bound is accepted and counted as running once.
    pub fn structure(cfg: Cfg) -> Result<BsbCfg> {
        Self::build(cfg, false)
    }

    fn build(cfg: Cfg, require_bounds: bool) -> Result<BsbCfg> {
        let n = cfg.blocks.len();
        if n == 0 {
            return structure("the CFG has no nodes");
        }
        if cfg.entry >= n {
            return structure("the CFG's entry is not one of its nodes");
        }
        let name = |v: usize| cfg.blocks[v].name.clone();
        let mut succ = vec![Vec::new(); n];
        for &(u, v) in &cfg.edges {
            if u >= n || v >= n {
                return structure(format!("edge {u} -> {v} names a node that does not exist"));
            }
            if !succ[u].contains(&v) {
                succ[u].push(v);
            }
        }

        // Reachability first: dominators are undefined for unreachable code.
        let mut seen = vec![false; n];
        let mut stack = vec![cfg.entry];
        seen[cfg.entry] = true;
        while let Some(u) = stack.pop() {
            for &v in &succ[u] {
                if !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        if let Some(v) = (0..n).find(|&v| !seen[v]) {
            return structure(format!(
                "node '{}' is unreachable from the entry '{}'",
                name(v),
                name(cfg.entry)
            ));
        }

        let mut g = DiGraph::<(), ()>::with_capacity(n, cfg.edges.len());
        for _ in 0..n {
            g.add_node(());
        }
        for (u, vs) in succ.iter().enumerate() {
            for &v in vs {
                g.add_edge(NodeIndex::new(u), NodeIndex::new(v), ());
            }
        }
        let dom = DomTree::new(n, &simple_fast(&g, NodeIndex::new(cfg.entry)), cfg.entry);

        // Back edges go to a dominator; what remains must be acyclic, or the flow is irreducible.
        let mut back_edges = Vec::new();
        let mut fwd_succ = vec![Vec::new(); n];
        let mut fwd_pred = vec![Vec::new(); n];
        for (u, vs) in succ.iter().enumerate() {
            for &v in vs {
                if dom.dominates(v, u) {
                    back_edges.push((u, v));
                } else {
                    fwd_succ[u].push(v);
                    fwd_pred[v].push(u);
                }
            }
        }

        // Kahn's algorithm: a cycle left among forward edges has no dominating header.
        let mut indeg: Vec<usize> = fwd_pred.iter().map(Vec::len).collect();
        let mut ready: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
        let mut done = 0;
        while let Some(u) = ready.pop() {
            done += 1;
            for &v in &fwd_succ[u] {
                indeg[v] -= 1;
                if indeg[v] == 0 {
                    ready.push(v);
                }
            }
        }
        if done < n {
            let inside: Vec<String> = (0..n)
                .filter(|&v| indeg[v] > 0)
                .take(4)
                .map(|v| format!("'{}'", name(v)))
                .collect();
            return structure(format!(
                "irreducible control flow: a cycle through {} has no single entry block that dominates it",
                inside.join(", ")
            ));
        }

        // Post-dominators on the forward graph, with a virtual exit after every sink.
        let exit = n;
        let mut fg = DiGraph::<(), ()>::with_capacity(n + 1, cfg.edges.len() + 1);
        for _ in 0..=n {
            fg.add_node(());
        }
        for (u, vs) in fwd_succ.iter().enumerate() {
            for &v in vs {
                fg.add_edge(NodeIndex::new(u), NodeIndex::new(v), ());
            }
            if vs.is_empty() {
                fg.add_edge(NodeIndex::new(u), NodeIndex::new(exit), ());
            }
        }
        let pdoms = simple_fast(Reversed(&fg), NodeIndex::new(exit));
        let ipdom = |v: usize| -> Option<usize> {
            pdoms
                .immediate_dominator(NodeIndex::new(v))
                .map(|d| d.index())
                .filter(|&d| d != exit)
        };

        // Roles from the declared kinds, checked against the (post-)dominator trees.
        let mut role = vec![Role::Block; n];
        let mut bsb_owner: Vec<Option<usize>> = vec![None; n];
        for u in 0..n {
            if cfg.blocks[u].kind != BlockKind::Branch {
                continue;
            }
            let ss = &fwd_succ[u];
            let bsbs: Vec<usize> = ss
                .iter()
                .copied()
                .filter(|&v| cfg.blocks[v].kind == BlockKind::Bsb)
                .collect();
            if ss.len() != 2 || bsbs.len() != 1 {
                return structure(format!(
                    "branch '{}' must have two successors, exactly one of them its BSB (kind=bsb); it has {} successor(s), {} of them BSBs",
                    name(u),
                    ss.len(),
                    bsbs.len()
                ));
            }
            let b = bsbs[0];
            let s = if ss[0] == b { ss[1] } else { ss[0] };
            if let Some(other) = bsb_owner[b] {
                return structure(format!(
                    "BSB '{}' is the BSB of two branches, '{}' and '{}'",
                    name(b),
                    name(other),
                    name(u)
                ));
            }
            bsb_owner[b] = Some(u);
            // In a serialized CFG both paths of u pass its BSB, and both paths of the BSB meet at the join.
            let Some(r) = ipdom(b) else {
                return structure(format!(
                    "the paths after BSB '{}' of branch '{}' do not reconverge",
                    name(b),
                    name(u)
                ));
            };
            let bs = &fwd_succ[b];
            if bs.len() != 2 || !bs.contains(&r) {
                return structure(format!(
                    "BSB '{}' of branch '{}' must have two successors: the head of path 2 and the join '{}' (the BSB's immediate post-dominator)",
                    name(b),
                    name(u),
                    name(r)
                ));
            }
            let p2 = if bs[0] == r { bs[1] } else { bs[0] };
            if dom.idom[b] != Some(u) || dom.idom[r] != Some(b) || ipdom(u) != Some(b) {
                return structure(format!(
                    "branch '{}' with BSB '{}' and join '{}' is not a structured if/else region (control enters or leaves it elsewhere)",
                    name(u),
                    name(b),
                    name(r)
                ));
            }
            role[u] = Role::Branch {
                path1: s,
                bsb: b,
                reconv: r,
            };
            role[b] = Role::Bsb {
                branch: u,
                path2: p2,
                reconv: r,
            };
        }
        if let Some(b) =
            (0..n).find(|&b| cfg.blocks[b].kind == BlockKind::Bsb && bsb_owner[b].is_none())
        {
            return structure(format!(
                "BSB '{}' is not the BSB successor of any branch",
                name(b)
            ));
        }

        // Topological numbering by reverse post-order, visiting a branch's BSB before its path 1
        // and a BSB's join before its path 2: that puts path 1 < BSB < path 2 < join.
        let mut visit_order: Vec<Vec<usize>> = fwd_succ.clone();
        for u in 0..n {
            let first = match role[u] {
                Role::Branch { bsb, .. } => Some(bsb),
                Role::Bsb { reconv, .. } => Some(reconv),
                Role::Block => None,
            };
            if let Some(f) = first {
                visit_order[u].retain(|&v| v != f);
                visit_order[u].insert(0, f);
            }
        }
        let mut visited = vec![false; n];
        let mut postorder = Vec::with_capacity(n);
        let mut stack = vec![(cfg.entry, 0usize)];
        visited[cfg.entry] = true;
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if let Some(&v) = visit_order[u].get(*next) {
                *next += 1;
                if !visited[v] {
                    visited[v] = true;
                    stack.push((v, 0));
                }
            } else {
                postorder.push(u);
                stack.pop();
            }
        }
        postorder.reverse();
        let order = postorder;
        let mut pos = vec![0; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        for u in 0..n {
            if let Role::Branch { path1, bsb, reconv } = role[u] {
                let Role::Bsb { path2, .. } = role[bsb] else {
                    unreachable!("roles are set in pairs")
                };
                if pos[path1] != pos[u] + 1
                    || pos[path2] != pos[bsb] + 1
                    || !(pos[path1] < pos[bsb] && pos[bsb] < pos[reconv])
                {
                    return structure(format!(
                        "branch '{}' is not serialized: path 1 from '{}' must lead into the BSB '{}', and path 2 from '{}' into the join '{}'",
                        name(u),
                        name(path1),
                        name(bsb),
                        name(path2),
                        name(reconv)
                    ));
                }
            }
        }

        // Parent(u): the innermost branch or BSB whose open interval (v, Reconv(v)) holds u.
        let mut parent = vec![None; n];
        let mut open: Vec<(usize, usize)> = Vec::new();
        for &u in &order {
            while open.last().is_some_and(|&(_, end)| end <= pos[u]) {
                open.pop();
            }
            parent[u] = open.last().map(|&(v, _)| v);
            match role[u] {
                Role::Branch { reconv, .. } | Role::Bsb { reconv, .. } => {
                    open.push((u, pos[reconv]))
                }
                Role::Block => {}
            }
        }

        // Loops: one back edge per header, a bound, and a single exit from the latch.
        let mut loops = Vec::new();
        let mut header_loop = vec![None; n];
        let mut multiplicity = vec![1u64; n];
        let mut back_sorted = back_edges.clone();
        back_sorted.sort_by_key(|&(_, h)| pos[h]);
        for (i, &(l, h)) in back_sorted.iter().enumerate() {
            if i > 0 && back_sorted[i - 1].1 == h {
                return structure(format!(
                    "loop with header '{}' has several back edges ('{}' and '{}'); only single-latch loops are supported",
                    name(h),
                    name(back_sorted[i - 1].0),
                    name(l)
                ));
            }
            let Some(bound) = cfg.blocks[h].loop_bound.or((!require_bounds).then_some(1)) else {
                return structure(format!(
                    "loop with header '{}' (back edge from '{}') has no bound; annotate the header (DOT: loop_bound=N; assembly: '; pws: loop_bound N' before it)",
                    name(h),
                    name(l)
                ));
            };
            let mut body = vec![h];
            let mut in_body = vec![false; n];
            in_body[h] = true;
            let mut work = vec![l];
            while let Some(v) = work.pop() {
                if in_body[v] {
                    continue;
                }
                in_body[v] = true;
                body.push(v);
                work.extend(fwd_pred[v].iter().copied());
            }
            let exits: Vec<(usize, usize)> = body
                .iter()
                .flat_map(|&v| fwd_succ[v].iter().map(move |&w| (v, w)))
                .filter(|&(_, w)| !in_body[w])
                .collect();
            let exit_edge = match exits.as_slice() {
                [(from, to)] if *from == l && cfg.blocks[l].kind == BlockKind::Block => *to,
                [] => return structure(format!("loop with header '{}' never exits", name(h))),
                _ => {
                    return structure(format!(
                        "loop with header '{}' must leave only from its latch '{}' (no break out of loops, no divergent latch)",
                        name(h),
                        name(l)
                    ))
                }
            };
            if body.len() != pos[l] - pos[h] + 1 {
                return structure(format!(
                    "loop with header '{}' is not laid out contiguously",
                    name(h)
                ));
            }
            for &v in &body {
                multiplicity[v] = multiplicity[v].checked_mul(bound).ok_or_else(|| {
                    HostError::Structure(format!(
                        "the loop bounds around '{}' multiply beyond 64 bits",
                        name(v)
                    ))
                })?;
            }
            header_loop[h] = Some(loops.len());
            loops.push(Loop {
                header: h,
                latch: l,
                exit: exit_edge,
                bound,
            });
        }
        if let Some(v) =
            (0..n).find(|&v| cfg.blocks[v].loop_bound.is_some() && header_loop[v].is_none())
        {
            return structure(format!(
                "node '{}' has a loop bound but is not a loop header",
                name(v)
            ));
        }

        Ok(BsbCfg {
            cfg,
            fwd_succ,
            fwd_pred,
            back_edges,
            order,
            pos,
            role,
            parent,
            loops,
            header_loop,
            multiplicity,
        })
    }

    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    pub fn len(&self) -> usize {
        self.cfg.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cfg.blocks.is_empty()
    }

    pub fn entry(&self) -> usize {
        self.cfg.entry
    }

    pub fn block(&self, v: usize) -> &Block {
        &self.cfg.blocks[v]
    }

    pub fn name(&self, v: usize) -> &str {
        &self.cfg.blocks[v].name
    }

    pub fn wcet(&self, v: usize) -> u64 {
        self.cfg.blocks[v].wcet
    }

    /// Nodes in the topological numbering of digest 3.3 (position i is node number i + 1).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Position of `v` in [`BsbCfg::order`].
    pub fn position(&self, v: usize) -> usize {
        self.pos[v]
    }

    pub fn role(&self, v: usize) -> Role {
        self.role[v]
    }

    /// `Parent(v)`: the innermost enclosing branch or BSB, `None` at top level (the paper's 0).
    pub fn parent(&self, v: usize) -> Option<usize> {
        self.parent[v]
    }

    /// Successors along forward edges (back edges of loops excluded).
    pub fn forward_successors(&self, v: usize) -> &[usize] {
        &self.fwd_succ[v]
    }

    pub fn forward_predecessors(&self, v: usize) -> &[usize] {
        &self.fwd_pred[v]
    }

    pub fn back_edges(&self) -> &[(usize, usize)] {
        &self.back_edges
    }

    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The loop whose header is `v`.
    pub fn loop_at(&self, v: usize) -> Option<&Loop> {
        self.header_loop[v].map(|i| &self.loops[i])
    }

    /// Upper bound on how often `v` runs in one wavefront: the product of the enclosing loops' bounds.
    pub fn multiplicity(&self, v: usize) -> u64 {
        self.multiplicity[v]
    }

    /// The divergent branches in topological order.
    pub fn branches(&self) -> impl Iterator<Item = usize> + '_ {
        self.order
            .iter()
            .copied()
            .filter(|&v| matches!(self.role[v], Role::Branch { .. }))
    }

    /// Looks a node up by name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.cfg.blocks.iter().position(|b| b.name == name)
    }
}
