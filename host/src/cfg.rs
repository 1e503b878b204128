//! Control-flow graphs with branch-serialization blocks (BSB CFGs, [P] Fig 7) and the
//! structural facts the analysis needs: the topological numbering with path-1 nodes < BSB <
//! path-2 nodes < join (digest 3.3), `SuccBB`, `BSB`, `Reconv`, `Parent`, (post-)dominators,
//! and the loop nesting forest of every reducible CFG.
//!
//! [`Cfg`] is what a front end (DOT file, GCN3 assembly, generator) produces; [`BsbCfg::new`]
//! checks it and derives the structure. Loops are natural loops: a header that dominates its
//! latches, any number of back edges (several latches, `continue`), any number of exits
//! (`break`, early returns), nested to any depth and laid out in any order; a header's
//! `loop_bound` N says it runs at most N times per entry into the loop. Rejected, with the
//! blocks named: irreducible flow, a divergent branch without its BSB or whose paths do not
//! reconverge in a single-entry single-exit region, a loop without a bound, and a loop that
//! crosses the boundary of a path of a divergent branch.
//!
//! Everything here is linear in the CFG's size up to the inverse-Ackermann and logarithmic
//! factors of the dominator and loop algorithms ([`crate::dom`], union-find), whatever the
//! nesting depth.

use crate::csr::Csr;
use crate::dom::{immediate_dominators, DomTree};
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
    /// Source line of the block's first instruction (assembly input), for messages.
    pub line: Option<u32>,
    /// Where the block comes from in the C source, for messages: on a loop's header, the loop
    /// statement (`k.cl:4:3`), when clang's line table says.
    pub source: Option<String>,
}

/// A CFG as produced by a front end: nodes, directed edges (deduplicated) and the entry node.
#[derive(Debug, Clone, PartialEq)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    pub edges: Vec<(usize, usize)>,
    pub entry: usize,
}

impl Cfg {
    /// The same CFG with its nodes numbered in reverse postorder from the entry (a topological
    /// order of the forward edges), and `old[new]`, the original number of each node. Every
    /// pass of the analysis walks the CFG in flow order; numbered so, it reads its arrays in
    /// sequence instead of at random (2.5x faster on 10^5 nodes given in random order).
    /// Nodes the entry does not reach come last, in their original order.
    pub fn in_flow_order(&self) -> (Cfg, Vec<usize>) {
        let n = self.blocks.len();
        let valid: Vec<(usize, usize)> = self
            .edges
            .iter()
            .copied()
            .filter(|&(u, v)| u < n && v < n)
            .collect();
        if self.entry >= n || valid.len() != self.edges.len() {
            // Malformed: leave it to BsbCfg::new to report.
            return (self.clone(), (0..n).collect());
        }
        let succ = Csr::new(n, &valid);
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack = vec![(self.entry, 0usize)];
        seen[self.entry] = true;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = succ[v].get(*next) {
                *next += 1;
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
                stack.pop();
            }
        }
        post.reverse();
        post.extend((0..n).filter(|&v| !seen[v]));
        let old = post;
        let mut new = vec![0; n];
        for (i, &v) in old.iter().enumerate() {
            new[v] = i;
        }
        let cfg = Cfg {
            blocks: old.iter().map(|&v| self.blocks[v].clone()).collect(),
            edges: self.edges.iter().map(|&(u, v)| (new[u], new[v])).collect(),
            entry: new[self.entry],
        };
        (cfg, old)
    }
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

/// A natural loop: its header, every back edge into it, and its place in the loop nesting
/// forest. Its body is every node from which a latch is reachable without passing the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    pub header: usize,
    /// Sources of the back edges into the header, in node order.
    pub latches: Vec<usize>,
    /// The header's `loop_bound`: at most this many header executions per entry.
    pub bound: u64,
    /// The innermost loop around this one (an index into [`BsbCfg::loops`]).
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: usize,
}

/// A region whose nodes are contiguous in [`BsbCfg::order`]: the whole CFG, a loop, or one
/// path of a divergent branch (between the branch and its BSB, or the BSB and the join).
/// Regions nest; the structural IPET ([`crate::structural`]) works region by region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Root,
    /// A loop, by its index in [`BsbCfg::loops`].
    Loop(usize),
    /// Path 1 of a divergent branch (the branch node).
    Path1(usize),
    /// Path 2 of a divergent branch (the branch node).
    Path2(usize),
}

/// A region with its place in the nesting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionInfo {
    pub kind: Region,
    /// The enclosing region (`None` for the root).
    pub parent: Option<usize>,
    /// The first node of the region in [`BsbCfg::order`] (the entry, header or path head).
    pub entry: usize,
    /// Position in [`BsbCfg::order`] of its last node (its first is the entry's).
    pub last: usize,
    /// 0 for the root.
    pub depth: usize,
}

/// A checked BSB CFG with its derived structure.
#[derive(Debug, Clone)]
pub struct BsbCfg {
    cfg: Cfg,
    /// The CFG's edges, sorted and without duplicates.
    edges: Vec<(usize, usize)>,
    fwd_succ: Csr,
    fwd_pred: Csr,
    back_edges: Vec<(usize, usize)>,
    order: Vec<usize>,
    pos: Vec<usize>,
    role: Vec<Role>,
    parent: Vec<Option<usize>>,
    loops: Vec<Loop>,
    header_loop: Vec<Option<usize>>,
    loop_of: Vec<Option<usize>>,
    loop_multiplicity: Vec<Option<u128>>,
    regions: Vec<RegionInfo>,
    region_of: Vec<usize>,
    /// The divergent branch whose join a node is.
    join_of: Vec<Option<usize>>,
    /// Nodes without successors: where the program ends.
    ends: Vec<bool>,
}

/// `'name'`, with the source line when the front end knows it.
fn describe(b: &Block) -> String {
    match (b.line, &b.source) {
        (Some(line), Some(at)) => format!("'{}' (line {line}, the loop at {at})", b.name),
        (Some(line), None) => format!("'{}' (line {line})", b.name),
        (None, _) => format!("'{}'", b.name),
    }
}

/// Union-find over nodes with path halving.
fn find(uf: &mut [usize], mut v: usize) -> usize {
    while uf[v] != v {
        uf[v] = uf[uf[v]];
        v = uf[v];
    }
    v
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
        let name = |v: usize| describe(&cfg.blocks[v]);
        if let Some(&(u, v)) = cfg.edges.iter().find(|&&(u, v)| u >= n || v >= n) {
            return structure(format!("edge {u} -> {v} names a node that does not exist"));
        }
        let mut edges = cfg.edges.clone();
        edges.sort_unstable();
        edges.dedup();
        let succ = Csr::new(n, &edges);
        let pred = succ.transpose();

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
                "node {} is unreachable from the entry {}",
                name(v),
                name(cfg.entry)
            ));
        }

        let dom = DomTree::new(immediate_dominators(&succ, cfg.entry), cfg.entry);

        // Back edges go to a dominator; what remains must be acyclic, or the flow is irreducible.
        let mut back_edges = Vec::new();
        let mut forward = Vec::with_capacity(edges.len());
        for &(u, v) in &edges {
            if dom.dominates(v, u) {
                back_edges.push((u, v));
            } else {
                forward.push((u, v));
            }
        }
        let fwd_succ = Csr::new(n, &forward);
        let fwd_pred = fwd_succ.transpose();
        check_acyclic(&cfg, &fwd_succ, &fwd_pred)?;

        let forest = LoopForest::new(&cfg, &pred, &back_edges, &dom, require_bounds)?;

        // Post-dominators on the forward graph. A latch whose only edge is its back edge (the
        // end of a rotated loop, whose exit test sits mid-body) goes on to a virtual node per
        // loop, "after the loop", which leads where the loop is left: its forward exits and the
        // after-nodes of the outer loops it continues. So a divergent path that holds such a
        // loop still reconverges. Every other sink, and an after-node with nowhere to go, leads
        // to a virtual exit.
        let exit = n;
        let after = |l: usize| n + 1 + l;
        let mut reverse: Vec<(usize, usize)> = forward.iter().map(|&(u, v)| (v, u)).collect();
        let mut leads = vec![false; forest.loops.len()];
        let mut sink_latch = vec![false; n];
        for &(u, t) in &edges {
            let continued = forest.header_loop[t].filter(|_| dom.dominates(t, u));
            let mut l = forest.loop_of[u];
            while let Some(x) = l.filter(|&x| !forest.holds(x, t)) {
                reverse.push(match continued {
                    Some(outer) => (after(outer), after(x)),
                    None => (t, after(x)),
                });
                leads[x] = true;
                l = forest.loops[x].parent;
            }
        }
        for &(u, h) in &back_edges {
            if fwd_succ[u].is_empty() {
                sink_latch[u] = true;
                let l = forest.header_loop[h].expect("back edges enter headers");
                reverse.push((after(l), u));
            }
        }
        reverse.extend(
            (0..n)
                .filter(|&u| fwd_succ[u].is_empty() && !sink_latch[u])
                .map(|u| (exit, u)),
        );
        reverse.extend(
            (0..forest.loops.len())
                .filter(|&l| !leads[l])
                .map(|l| (exit, after(l))),
        );
        let pdom = immediate_dominators(&Csr::new(n + 1 + forest.loops.len(), &reverse), exit);
        drop(reverse);
        let ipdom = |v: usize| pdom[v].filter(|&d| d != exit && d < n);

        let role = roles(&cfg, &fwd_succ, &dom, &ipdom)?;
        let mut join_of = vec![None; n];
        for (u, r) in role.iter().enumerate() {
            if let Role::Branch { reconv, .. } = *r {
                join_of[reconv] = Some(u);
            }
        }

        // Paths of the divergent branches: path 1 is everything its head dominates, so is path 2.
        let mut path_head: Vec<Option<Region>> = vec![None; n];
        for (u, r) in role.iter().enumerate() {
            if let Role::Branch { path1, bsb, .. } = *r {
                let Role::Bsb { path2, .. } = role[bsb] else {
                    unreachable!("roles are set in pairs")
                };
                path_head[path1] = Some(Region::Path1(u));
                path_head[path2] = Some(Region::Path2(u));
            }
        }
        let mut path_of: Vec<Option<Region>> = vec![None; n];
        for &v in dom.preorder() {
            path_of[v] = path_head[v].or_else(|| dom.idom[v].and_then(|d| path_of[d]));
        }
        let head_of = |r: Region| match r {
            Region::Path1(u) => match role[u] {
                Role::Branch { path1, .. } => path1,
                _ => unreachable!("a path region belongs to a branch"),
            },
            Region::Path2(u) => match role[u] {
                Role::Branch { bsb, .. } => match role[bsb] {
                    Role::Bsb { path2, .. } => path2,
                    _ => unreachable!("roles are set in pairs"),
                },
                _ => unreachable!("a path region belongs to a branch"),
            },
            Region::Root | Region::Loop(_) => unreachable!("only paths have heads here"),
        };
        // A loop lies inside one path of a branch or holds the whole if/else.
        for &(l, h) in &back_edges {
            if path_of[l] != path_of[h] {
                let (inner, node) = match path_of[l] {
                    Some(p) if path_of[h] != Some(p) && !dom.dominates(head_of(p), h) => (p, l),
                    _ => (path_of[h].expect("one of the two is in a path"), h),
                };
                let (u, which) = match inner {
                    Region::Path1(u) => (u, 1),
                    Region::Path2(u) => (u, 2),
                    _ => unreachable!("paths only"),
                };
                return structure(format!(
                    "the loop with header {} and back edge from {} crosses the boundary of path {which} of the divergent branch {} at {}: a loop must lie inside one path of an if/else or hold the whole if/else",
                    name(h),
                    name(l),
                    name(u),
                    name(node)
                ));
            }
        }

        let layout = Layout::new(
            &cfg, &fwd_succ, &fwd_pred, &role, &forest, &path_of, &head_of, &dom,
        );
        let order = layout.order;
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
                        "branch {} is not serialized: path 1 from {} must lead into the BSB {}, and path 2 from {} into the join {}",
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

        let regions = layout.regions;
        let ends = (0..n).map(|v| succ[v].is_empty()).collect();
        Ok(BsbCfg {
            cfg,
            edges,
            fwd_succ,
            fwd_pred,
            back_edges,
            order,
            pos,
            role,
            parent,
            loop_multiplicity: forest.multiplicity(),
            loops: forest.loops,
            header_loop: forest.header_loop,
            loop_of: forest.loop_of,
            regions,
            region_of: layout.region_of,
            join_of,
            ends,
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

    /// The same structure with other node WCETs (`wcet[v]` for node v): the analysis of one CFG
    /// under several cost models without checking its structure again.
    pub fn reweighted(&self, wcet: &[u64]) -> BsbCfg {
        let mut g = self.clone();
        for (b, &w) in g.cfg.blocks.iter_mut().zip(wcet) {
            b.wcet = w;
        }
        g
    }

    /// `'name'` with the source line when known, for messages.
    pub fn describe(&self, v: usize) -> String {
        describe(&self.cfg.blocks[v])
    }

    pub fn wcet(&self, v: usize) -> u64 {
        self.cfg.blocks[v].wcet
    }

    /// Nodes in the topological numbering of digest 3.3 (position i is node number i + 1);
    /// every loop and every path of a branch is a contiguous run.
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

    /// Every edge, sorted and without duplicates.
    pub fn edges(&self) -> &[(usize, usize)] {
        &self.edges
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

    /// The loops, inner loops before the loops around them.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The loop whose header is `v`.
    pub fn loop_at(&self, v: usize) -> Option<&Loop> {
        self.header_loop[v].map(|i| &self.loops[i])
    }

    /// Index of the loop whose header is `v`.
    pub fn loop_index_at(&self, v: usize) -> Option<usize> {
        self.header_loop[v]
    }

    /// The innermost loop holding `v`.
    pub fn innermost_loop(&self, v: usize) -> Option<usize> {
        self.loop_of[v]
    }

    /// Upper bound on how often `v` runs in one wavefront: the product of the bounds of the
    /// loops around it (`None` if that exceeds 128 bits).
    pub fn multiplicity(&self, v: usize) -> Option<u128> {
        self.loop_of[v].map_or(Some(1), |l| self.loop_multiplicity[l])
    }

    /// The regions (root, loops, paths), each before the regions inside it.
    pub fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    /// The innermost region holding `v` (an index into [`BsbCfg::regions`]).
    pub fn region_of(&self, v: usize) -> usize {
        self.region_of[v]
    }

    /// `v` has no successor: the program ends there (`s_endpgm`).
    pub fn is_end(&self, v: usize) -> bool {
        self.ends[v]
    }

    /// The divergent branch whose join (`Reconv`) `v` is.
    pub fn join_of(&self, v: usize) -> Option<usize> {
        self.join_of[v]
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

/// Kahn's algorithm on the forward edges: a cycle left has no dominating header, so the flow
/// is irreducible. The error names one such cycle and where it can be entered.
fn check_acyclic(cfg: &Cfg, fwd_succ: &Csr, fwd_pred: &Csr) -> Result<()> {
    let n = fwd_succ.len();
    let mut indeg: Vec<usize> = (0..n).map(|v| fwd_pred[v].len()).collect();
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
    if done == n {
        return Ok(());
    }
    // Every node left has a predecessor left: walking predecessors must close a cycle.
    let start = (0..n).find(|&v| indeg[v] > 0).expect("a node is left");
    let mut step = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut v = start;
    while step[v] == usize::MAX {
        step[v] = walk.len();
        walk.push(v);
        v = *fwd_pred[v]
            .iter()
            .find(|&&p| indeg[p] > 0)
            .expect("a node left has a predecessor left");
    }
    let mut cycle: Vec<usize> = walk[step[v]..].to_vec();
    cycle.reverse();
    let mut on_cycle = vec![false; n];
    for &c in &cycle {
        on_cycle[c] = true;
    }
    let entries: Vec<String> = cycle
        .iter()
        .filter(|&&c| fwd_pred[c].iter().any(|&p| !on_cycle[p]))
        .take(4)
        .map(|&c| describe(&cfg.blocks[c]))
        .collect();
    let shown: Vec<String> = cycle
        .iter()
        .take(6)
        .map(|&c| describe(&cfg.blocks[c]))
        .collect();
    structure(format!(
        "irreducible control flow: a cycle through {}{} has no single entry block that dominates it{}",
        shown.join(" -> "),
        if cycle.len() > 6 { " -> ..." } else { "" },
        if entries.len() > 1 {
            format!(" (it is entered at {})", entries.join(" and "))
        } else {
            String::new()
        }
    ))
}

/// Roles from the declared kinds, checked against the (post-)dominator trees.
fn roles(
    cfg: &Cfg,
    fwd_succ: &Csr,
    dom: &DomTree,
    ipdom: &dyn Fn(usize) -> Option<usize>,
) -> Result<Vec<Role>> {
    let n = cfg.blocks.len();
    let name = |v: usize| describe(&cfg.blocks[v]);
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
                "branch {} must have two successors, exactly one of them its BSB (kind=bsb); it has {} successor(s), {} of them BSBs",
                name(u),
                ss.len(),
                bsbs.len()
            ));
        }
        let b = bsbs[0];
        let s = if ss[0] == b { ss[1] } else { ss[0] };
        if let Some(other) = bsb_owner[b] {
            return structure(format!(
                "BSB {} is the BSB of two branches, {} and {}",
                name(b),
                name(other),
                name(u)
            ));
        }
        bsb_owner[b] = Some(u);
        // In a serialized CFG both paths of u pass its BSB, and both paths of the BSB meet at the join.
        let Some(r) = ipdom(b) else {
            return structure(format!(
                "the paths after BSB {} of branch {} do not reconverge",
                name(b),
                name(u)
            ));
        };
        let bs = &fwd_succ[b];
        if bs.len() != 2 || !bs.contains(&r) {
            return structure(format!(
                "BSB {} of branch {} must have two successors: the head of path 2 and the join {} (the BSB's immediate post-dominator)",
                name(b),
                name(u),
                name(r)
            ));
        }
        let p2 = if bs[0] == r { bs[1] } else { bs[0] };
        if dom.idom[b] != Some(u) || dom.idom[r] != Some(b) || ipdom(u) != Some(b) {
            return structure(format!(
                "branch {} with BSB {} and join {} is not a structured if/else region (control enters or leaves it elsewhere)",
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
            "BSB {} is not the BSB successor of any branch",
            name(b)
        ));
    }
    Ok(role)
}

/// The loop nesting forest (Tarjan's union-find construction: headers innermost first, each
/// body collected once and collapsed into its header).
struct LoopForest {
    loops: Vec<Loop>,
    header_loop: Vec<Option<usize>>,
    loop_of: Vec<Option<usize>>,
    /// Preorder interval of each loop in the loop tree, for "loop l holds node v" in O(1).
    pre: Vec<usize>,
    post: Vec<usize>,
}

impl LoopForest {
    fn new(
        cfg: &Cfg,
        pred: &Csr,
        back_edges: &[(usize, usize)],
        dom: &DomTree,
        require_bounds: bool,
    ) -> Result<LoopForest> {
        let n = cfg.blocks.len();
        let name = |v: usize| describe(&cfg.blocks[v]);
        let by_header: Vec<(usize, usize)> = back_edges.iter().map(|&(l, h)| (h, l)).collect();
        let latches_of = Csr::new(n, &by_header);
        let mut headers: Vec<usize> = (0..n).filter(|&h| !latches_of[h].is_empty()).collect();
        // A loop's header is dominated by the headers of the loops around it: inner ones first.
        headers.sort_unstable_by_key(|&h| std::cmp::Reverse(dom.preorder_number(h)));
        if require_bounds {
            // Every loop without a bound at once, in program order: one round of annotations.
            let mut unbounded: Vec<usize> = headers
                .iter()
                .copied()
                .filter(|&h| cfg.blocks[h].loop_bound.is_none())
                .collect();
            unbounded.sort_unstable_by_key(|&h| (cfg.blocks[h].line, h));
            // A long list names the first few: the message stays readable for 10^5 loops.
            const NAMED: usize = 8;
            let more = unbounded.len().saturating_sub(NAMED);
            let mut each: Vec<String> = unbounded
                .iter()
                .take(NAMED)
                .map(|&h| {
                    let mut latches = latches_of[h].to_vec();
                    latches.sort_unstable();
                    let from: Vec<String> = latches.iter().map(|&l| name(l)).collect();
                    format!(
                        "{} (back edge{} from {})",
                        name(h),
                        if from.len() > 1 { "s" } else { "" },
                        from.join(", ")
                    )
                })
                .collect();
            if more > 0 {
                each.push(format!("{more} more"));
            }
            if let Some((last, rest)) = each.split_last() {
                let (what, header) = if rest.is_empty() {
                    (format!("loop with header {last} has"), "the header")
                } else {
                    (
                        format!("loops with headers {} and {last} have", rest.join(", ")),
                        "each header",
                    )
                };
                return Err(HostError::Unbounded {
                    msg: format!(
                        "{what} no bound; annotate {header} (DOT: loop_bound=N; assembly: '; pws: loop_bound N' before it; OpenCL C: PWS_LOOP_BOUND(N) in the loop's body; a launch manifest: [loop_bounds])"
                    ),
                    loops: unbounded.len(),
                });
            }
        }
        let mut uf: Vec<usize> = (0..n).collect();
        let mut stamp = vec![usize::MAX; n];
        let mut loops: Vec<Loop> = Vec::with_capacity(headers.len());
        let mut header_loop = vec![None; n];
        let mut loop_of = vec![None; n];
        let mut work = Vec::new();
        let mut body = Vec::new();
        for h in headers {
            let mut latches = latches_of[h].to_vec();
            latches.sort_unstable();
            let bound = cfg.blocks[h].loop_bound.unwrap_or(1);
            let id = loops.len();
            header_loop[h] = Some(id);
            loop_of[h] = Some(id);
            body.clear();
            work.extend(latches.iter().map(|&l| find(&mut uf, l)));
            while let Some(w) = work.pop() {
                if w == h || stamp[w] == id {
                    continue;
                }
                stamp[w] = id;
                body.push(w);
                for &p in &pred[w] {
                    let q = find(&mut uf, p);
                    if q != h && stamp[q] != id {
                        work.push(q);
                    }
                }
            }
            for &w in &body {
                uf[w] = h;
                match header_loop[w] {
                    Some(inner) => loops[inner].parent = Some(id),
                    None => loop_of[w] = Some(id),
                }
            }
            loops.push(Loop {
                header: h,
                latches,
                bound,
                parent: None,
                depth: 0,
            });
        }
        // Inner loops come first, so depths are set from the outside in by a reverse sweep.
        for i in (0..loops.len()).rev() {
            loops[i].depth = loops[i].parent.map_or(1, |p| loops[p].depth + 1);
        }
        if let Some(v) =
            (0..n).find(|&v| cfg.blocks[v].loop_bound.is_some() && header_loop[v].is_none())
        {
            return structure(format!(
                "node {} has a loop bound but is not a loop header",
                name(v)
            ));
        }
        let nl = loops.len();
        let mut children = vec![Vec::new(); nl];
        for (i, lp) in loops.iter().enumerate() {
            if let Some(p) = lp.parent {
                children[p].push(i);
            }
        }
        let (mut pre, mut post) = (vec![0; nl], vec![0; nl]);
        let mut t = 0;
        for root in (0..nl).filter(|&i| loops[i].parent.is_none()) {
            let mut stack = vec![(root, 0usize)];
            pre[root] = t;
            t += 1;
            while let Some(&mut (l, ref mut next)) = stack.last_mut() {
                if let Some(&c) = children[l].get(*next) {
                    *next += 1;
                    pre[c] = t;
                    t += 1;
                    stack.push((c, 0));
                } else {
                    post[l] = t;
                    stack.pop();
                }
            }
        }
        let forest = LoopForest {
            loops,
            header_loop,
            loop_of,
            pre,
            post,
        };
        forest.check_exits(cfg, pred)?;
        Ok(forest)
    }

    /// Loop `l` holds node `v`.
    fn holds(&self, l: usize, v: usize) -> bool {
        self.loop_of[v].is_some_and(|a| self.pre[l] <= self.pre[a] && self.post[a] <= self.post[l])
    }

    /// Every loop can be left: an edge from its body to a node outside it (a forward exit or a
    /// back edge of an outer loop) or a block in it that ends the program. A loop that cannot
    /// contradicts its bound.
    fn check_exits(&self, cfg: &Cfg, pred: &Csr) -> Result<()> {
        let nl = self.loops.len();
        if nl == 0 {
            return Ok(());
        }
        let mut exits = vec![false; nl];
        let n = cfg.blocks.len();
        let mut has_succ = vec![false; n];
        for t in 0..n {
            for &v in &pred[t] {
                has_succ[v] = true;
                let mut l = self.loop_of[v];
                while let Some(x) = l.filter(|&x| !self.holds(x, t)) {
                    exits[x] = true;
                    l = self.loops[x].parent;
                }
            }
        }
        for v in (0..n).filter(|&v| !has_succ[v]) {
            let mut l = self.loop_of[v];
            while let Some(x) = l {
                exits[x] = true;
                l = self.loops[x].parent;
            }
        }
        match (0..nl).find(|&l| !exits[l]) {
            Some(l) => structure(format!(
                "loop with header {} never exits (no edge leaves it and no block in it ends the program), which contradicts its bound",
                describe(&cfg.blocks[self.loops[l].header])
            )),
            None => Ok(()),
        }
    }

    /// Per loop: the product of its bound and the bounds of the loops around it.
    fn multiplicity(&self) -> Vec<Option<u128>> {
        let mut m = vec![None; self.loops.len()];
        for i in (0..self.loops.len()).rev() {
            let outer = self.loops[i].parent.map_or(Some(1), |p| m[p]);
            m[i] = outer.and_then(|o: u128| o.checked_mul(u128::from(self.loops[i].bound)));
        }
        m
    }
}

/// The topological numbering with every region contiguous: Kahn's algorithm that always takes
/// a ready node of the innermost open region (regions are single-entry, so an open region can
/// always be finished before its parent continues), last-in first-out so that a branch is
/// followed by its path 1 and a BSB by its path 2.
struct Layout {
    order: Vec<usize>,
    regions: Vec<RegionInfo>,
    region_of: Vec<usize>,
}

impl Layout {
    #[allow(clippy::too_many_arguments)]
    fn new(
        cfg: &Cfg,
        fwd_succ: &Csr,
        fwd_pred: &Csr,
        role: &[Role],
        forest: &LoopForest,
        path_of: &[Option<Region>],
        head_of: &dyn Fn(Region) -> usize,
        dom: &DomTree,
    ) -> Layout {
        let n = cfg.blocks.len();
        // Region ids: 0 the root, then loops, then the two paths of each branch.
        let mut regions = vec![RegionInfo {
            kind: Region::Root,
            parent: None,
            entry: cfg.entry,
            last: cfg.entry,
            depth: 0,
        }];
        let loop_region = |l: usize| 1 + l;
        for (l, lp) in forest.loops.iter().enumerate() {
            regions.push(RegionInfo {
                kind: Region::Loop(l),
                parent: None,
                entry: lp.header,
                last: lp.header,
                depth: 0,
            });
        }
        let mut path_region = vec![usize::MAX; n];
        for (u, r) in role.iter().enumerate() {
            if let Role::Branch { .. } = r {
                for kind in [Region::Path1(u), Region::Path2(u)] {
                    let head = head_of(kind);
                    path_region[head] = regions.len();
                    regions.push(RegionInfo {
                        kind,
                        parent: None,
                        entry: head,
                        last: head,
                        depth: 0,
                    });
                }
            }
        }
        let path_id = |p: Option<Region>| p.map(|r| path_region[head_of(r)]);
        // The deeper of a loop and a path that both hold some node: the loop is inside the path
        // iff the path's head dominates the loop's header.
        let deeper = |l: Option<usize>, p: Option<Region>| match (l, p) {
            (None, None) => 0,
            (Some(l), None) => loop_region(l),
            (None, Some(_)) => path_id(p).expect("a path region"),
            (Some(l), Some(r)) => {
                if dom.dominates(head_of(r), forest.loops[l].header) {
                    loop_region(l)
                } else {
                    path_id(p).expect("a path region")
                }
            }
        };
        let region_of: Vec<usize> = (0..n)
            .map(|v| deeper(forest.loop_of[v], path_of[v]))
            .collect();
        for (l, lp) in forest.loops.iter().enumerate() {
            regions[loop_region(l)].parent = Some(deeper(lp.parent, path_of[lp.header]));
        }
        for (u, r) in role.iter().enumerate() {
            if let Role::Branch { .. } = r {
                for kind in [Region::Path1(u), Region::Path2(u)] {
                    regions[path_region[head_of(kind)]].parent = Some(region_of[u]);
                }
            }
        }
        // Depths, parents first (memoised walk up).
        let mut depth = vec![usize::MAX; regions.len()];
        depth[0] = 0;
        let mut chain = Vec::new();
        for i in 0..regions.len() {
            let mut r = i;
            while depth[r] == usize::MAX {
                chain.push(r);
                r = regions[r]
                    .parent
                    .expect("every region but the root has a parent");
            }
            let mut d = depth[r];
            while let Some(c) = chain.pop() {
                d += 1;
                depth[c] = d;
            }
        }
        for (r, d) in regions.iter_mut().zip(&depth) {
            r.depth = *d;
        }

        // The regions entered at a node, outermost first (a path may start with a loop), and
        // the region whose ready list the node joins: the parent of the outermost one.
        let mut entered: Vec<[usize; 2]> = vec![[usize::MAX; 2]; n];
        for (id, r) in regions.iter().enumerate().skip(1) {
            let slot = &mut entered[r.entry];
            let i = usize::from(slot[0] != usize::MAX);
            slot[i] = id;
        }
        for e in &mut entered {
            if e[1] != usize::MAX && depth[e[0]] > depth[e[1]] {
                e.swap(0, 1);
            }
        }
        let joins = |v: usize| match entered[v][0] {
            usize::MAX => region_of[v],
            outer => regions[outer]
                .parent
                .expect("entered regions are not the root"),
        };

        let mut indeg: Vec<usize> = (0..n).map(|v| fwd_pred[v].len()).collect();
        // Each region's ready nodes as a stack threaded through `below`.
        let mut top_of = vec![usize::MAX; regions.len()];
        let mut below = vec![usize::MAX; n];
        let push = |top_of: &mut Vec<usize>, below: &mut Vec<usize>, v: usize| {
            let r = joins(v);
            below[v] = top_of[r];
            top_of[r] = v;
        };
        let mut open = vec![0usize];
        let mut order = Vec::with_capacity(n);
        push(&mut top_of, &mut below, cfg.entry);
        while let Some(&top) = open.last() {
            let v = top_of[top];
            if v == usize::MAX {
                open.pop();
                continue;
            }
            top_of[top] = below[v];
            for &r in entered[v].iter().filter(|&&r| r != usize::MAX) {
                open.push(r);
            }
            order.push(v);
            for &s in fwd_succ[v].iter().rev() {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    push(&mut top_of, &mut below, s);
                }
            }
        }
        debug_assert_eq!(order.len(), n, "the forward graph is acyclic");
        // A region is a contiguous run: its last position is its entry's plus its size.
        let mut size = vec![0usize; regions.len()];
        for &r in &region_of {
            size[r] += 1;
        }
        let mut inner_first: Vec<usize> = (1..regions.len()).collect();
        inner_first.sort_unstable_by_key(|&r| std::cmp::Reverse(regions[r].depth));
        for r in inner_first {
            let p = regions[r]
                .parent
                .expect("every region but the root has a parent");
            size[p] += size[r];
        }
        let mut pos = vec![0; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        for (r, s) in regions.iter_mut().zip(&size) {
            r.last = pos[r.entry] + s - 1;
        }
        Layout {
            order,
            regions,
            region_of,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str, loop_bound: Option<u64>) -> Block {
        Block {
            name: name.into(),
            wcet: 1,
            kind: BlockKind::Block,
            split: false,
            loop_bound,
            line: None,
            source: None,
        }
    }

    #[test]
    fn loops_with_several_latches_and_exits_nest() {
        // e -> h1 -> a -> h2 -> b -> h2 (inner latch b), b -> c -> h1 (outer latch c),
        // a -> h1 (a second outer latch: continue), b -> x (break out of both), c -> x.
        let names = ["e", "h1", "a", "h2", "b", "c", "x"];
        let bounds = [None, Some(3), None, Some(4), None, None, None];
        let cfg = Cfg {
            blocks: names.iter().zip(bounds).map(|(n, b)| block(n, b)).collect(),
            edges: vec![
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 3),
                (4, 5),
                (5, 1),
                (2, 1),
                (4, 6),
                (5, 6),
            ],
            entry: 0,
        };
        let g = BsbCfg::new(cfg).unwrap();
        assert_eq!(g.loops().len(), 2);
        let inner = g.loop_at(3).unwrap();
        let outer = g.loop_at(1).unwrap();
        assert_eq!((inner.latches.clone(), inner.depth), (vec![4], 2));
        assert_eq!((outer.latches.clone(), outer.depth), (vec![2, 5], 1));
        assert_eq!(inner.parent, g.loop_index_at(1));
        assert_eq!(g.multiplicity(4), Some(12));
        assert_eq!(g.multiplicity(5), Some(3));
        assert_eq!(g.multiplicity(6), Some(1));
        // Every loop is a contiguous run of the order, header first.
        for r in g.regions() {
            let first = g.position(r.entry);
            let inside: Vec<usize> = (first..=r.last).map(|i| g.order()[i]).collect();
            assert!(inside.iter().all(|&v| {
                let mut q = Some(g.region_of(v));
                while let Some(x) = q {
                    if g.regions()[x] == *r {
                        return true;
                    }
                    q = g.regions()[x].parent;
                }
                false
            }));
        }
    }

    #[test]
    fn a_divergent_path_holding_a_rotated_loop_reconverges() {
        // u -> s -> b (path 1), b -> h -> t -> a -> l -> h (path 2: a rotated loop whose
        // exit test t leaves to r and whose latch l only jumps back), b -> r.
        let names = ["e", "u", "s", "b", "h", "t", "a", "l", "r"];
        let mut blocks: Vec<Block> = names
            .iter()
            .map(|n| block(n, (*n == "h").then_some(3)))
            .collect();
        blocks[1].kind = BlockKind::Branch;
        blocks[3].kind = BlockKind::Bsb;
        let cfg = Cfg {
            blocks,
            edges: vec![
                (0, 1),
                (1, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (3, 8),
                (4, 5),
                (5, 6),
                (5, 8),
                (6, 7),
                (7, 4),
            ],
            entry: 0,
        };
        let g = BsbCfg::new(cfg).unwrap();
        assert_eq!(
            g.role(1),
            Role::Branch {
                path1: 2,
                bsb: 3,
                reconv: 8
            }
        );
        assert_eq!(g.loop_at(4).unwrap().latches, [7]);
    }

    #[test]
    fn flow_order_renumbers_and_maps_back() {
        let cfg = Cfg {
            blocks: ["x", "e", "b", "a"]
                .iter()
                .map(|n| block(n, None))
                .collect(),
            edges: vec![(1, 3), (3, 2), (2, 0), (1, 2)],
            entry: 1,
        };
        let (flow, old) = cfg.in_flow_order();
        let names: Vec<&str> = flow.blocks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["e", "a", "b", "x"]);
        assert_eq!(old, [1, 3, 2, 0]);
        assert_eq!(flow.entry, 0);
        for (&(u, v), &(nu, nv)) in cfg.edges.iter().zip(&flow.edges) {
            assert_eq!((old[nu], old[nv]), (u, v));
        }
    }

    #[test]
    fn missing_bounds_name_the_header_and_every_latch() {
        let cfg = Cfg {
            blocks: vec![
                block("e", None),
                Block {
                    line: Some(7),
                    source: None,
                    ..block("h", None)
                },
                block("a", None),
                block("b", None),
                block("x", None),
            ],
            edges: vec![(0, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 4)],
            entry: 0,
        };
        let e = BsbCfg::new(cfg).unwrap_err().to_string();
        assert!(
            e.starts_with("loop with header 'h' (line 7) (back edges from 'a', 'b') has no bound"),
            "{e}"
        );
    }

    #[test]
    fn every_unbounded_loop_is_named_at_once_the_first_eight_by_name() {
        // e -> h0 -> h1 -> ... -> h9 -> x, each h a self-loop without a bound.
        let names: Vec<String> = std::iter::once("e".to_string())
            .chain((0..10).map(|i| format!("h{i}")))
            .chain(std::iter::once("x".to_string()))
            .collect();
        let mut edges: Vec<(usize, usize)> = (0..11).map(|i| (i, i + 1)).collect();
        edges.extend((1..=10).map(|i| (i, i)));
        let cfg = Cfg {
            blocks: names.iter().map(|n| block(n, None)).collect(),
            edges,
            entry: 0,
        };
        let e = BsbCfg::new(cfg).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "loops with headers 'h0' (back edge from 'h0'), 'h1' (back edge from 'h1'),"
            ),
            "{e}"
        );
        assert!(
            e.contains("'h7' (back edge from 'h7') and 2 more have no bound; annotate each header"),
            "{e}"
        );
        assert!(!e.contains("'h8'"), "{e}");
    }

    #[test]
    fn irreducible_cycles_name_their_entries() {
        let cfg = Cfg {
            blocks: ["e", "a", "b", "x"]
                .iter()
                .map(|n| block(n, None))
                .collect(),
            edges: vec![(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)],
            entry: 0,
        };
        let e = BsbCfg::new(cfg).unwrap_err().to_string();
        assert!(
            e.starts_with("irreducible control flow: a cycle through"),
            "{e}"
        );
        assert!(
            e.contains("entered at 'a' and 'b'") || e.contains("entered at 'b' and 'a'"),
            "{e}"
        );
    }
}
