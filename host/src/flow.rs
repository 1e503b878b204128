//! The physical control flow of an assembled kernel: basic blocks, their edges as the scalar
//! unit takes them, dominators, post-dominators and natural loops.
//!
//! GCN3 control flow is uniform: the wavefront follows one path and divergence lives in EXEC.
//! This graph is therefore the program's real control flow, the one both the WCET analysis
//! (every path the scalar unit can take) and the split pass (where EXEC is narrowed and
//! restored) reason about. It knows nothing of EXEC idioms; [`crate::extract`] reads those on
//! top of it. Blocks start at the entry, at branch targets and after branches and `s_endpgm`
//! (labels alone do not start one, so a label clang leaves on a fall-through is not a block
//! boundary). Blocks that cannot be reached from the entry (dead code after `s_endpgm`) are kept
//! but marked, so that layout indices stay valid; every analysis skips them.

use std::collections::HashMap;
use std::ops::Range;

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;

use pws_isa::{Opcode, Program};

use crate::error::{HostError, Result};

/// How control reaches a successor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// The next block in layout order.
    FallThrough,
    /// A branch's target.
    Taken,
}

/// One edge out of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub to: usize,
    pub kind: EdgeKind,
}

/// A natural loop: one header, every latch that branches back to it, its body and exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NaturalLoop {
    pub header: usize,
    /// Blocks with a back edge to the header.
    pub latches: Vec<usize>,
    /// The blocks of the loop, header included, in layout order.
    pub body: Vec<usize>,
    /// Edges that leave the loop.
    pub exits: Vec<(usize, usize)>,
    /// The innermost loop that contains this one.
    pub parent: Option<usize>,
}

impl NaturalLoop {
    /// Block `b` is in the loop (in it or in a loop inside it).
    pub fn contains(&self, b: usize) -> bool {
        self.body.binary_search(&b).is_ok()
    }
}

/// Blocks, edges and the dominance structure of a program.
#[derive(Debug, Clone)]
pub struct Flow {
    /// Instruction ranges of the blocks, in layout order.
    pub blocks: Vec<Range<usize>>,
    pub succ: Vec<Vec<Edge>>,
    pub pred: Vec<Vec<usize>>,
    pub reachable: Vec<bool>,
    block_of: Vec<usize>,
    idom: Vec<Option<usize>>,
    /// Immediate post-dominator on the forward graph (back edges removed); `None` is a virtual
    /// node (see [`Flow::post_dominators`]).
    ipdom: Vec<Option<usize>>,
    dom_pre: Vec<usize>,
    dom_post: Vec<usize>,
    back: Vec<(usize, usize)>,
    /// Reverse post-order of the reachable blocks over forward edges.
    order: Vec<usize>,
    /// Each block's index in `order` (`usize::MAX` for an unreachable one).
    position: Vec<usize>,
    pub loops: Vec<NaturalLoop>,
    /// Innermost loop of each block.
    loop_of: Vec<Option<usize>>,
}

impl Flow {
    /// Builds the flow of `program` (`file` names it in errors). Errors: a branch to an address
    /// that is not an instruction, a reachable block that falls off the end of the program, and
    /// irreducible control flow.
    pub fn new(program: &Program, file: &str) -> Result<Flow> {
        let mut flow = Flow::graph(program, file)?;
        let order = flow.forward_order(program, file)?;
        flow.set_order(order);
        flow.find_loops();
        flow.ipdom = flow.post_dominators();
        Ok(flow)
    }

    /// The blocks, edges and dominators of `program` whether or not its flow is reducible,
    /// for repairing it ([`crate::reducible`]): no loops, no post-dominators, and
    /// [`Flow::order`] is the reachable blocks in layout order.
    pub fn unstructured(program: &Program, file: &str) -> Result<Flow> {
        let mut flow = Flow::graph(program, file)?;
        let order = (0..flow.blocks.len())
            .filter(|&b| flow.reachable[b])
            .collect();
        flow.set_order(order);
        Ok(flow)
    }

    fn set_order(&mut self, order: Vec<usize>) {
        self.position = vec![usize::MAX; self.blocks.len()];
        for (i, &b) in order.iter().enumerate() {
            self.position[b] = i;
        }
        self.order = order;
    }

    fn graph(program: &Program, file: &str) -> Result<Flow> {
        let insts = &program.instructions;
        let n_insts = insts.len();
        if n_insts == 0 {
            return Err(HostError::Input(format!(
                "{file}: the kernel has no instructions"
            )));
        }
        let index_of: HashMap<u32, usize> =
            insts.iter().enumerate().map(|(i, l)| (l.pc, i)).collect();
        let mut leader = vec![false; n_insts];
        leader[0] = true;
        let mut target = vec![None; n_insts];
        for (i, l) in insts.iter().enumerate() {
            if l.item.is_branch() {
                let t = l
                    .item
                    .branch_target(l.pc)
                    .and_then(|pc| index_of.get(&pc).copied())
                    .ok_or_else(|| {
                        HostError::Input(format!(
                            "{file}:{}: the branch does not jump to an instruction of the kernel",
                            l.line
                        ))
                    })?;
                target[i] = Some(t);
                leader[t] = true;
            }
            if (l.item.is_branch() || l.item.is_terminator()) && i + 1 < n_insts {
                leader[i + 1] = true;
            }
        }
        let starts: Vec<usize> = (0..n_insts).filter(|&i| leader[i]).collect();
        let blocks: Vec<Range<usize>> = starts
            .iter()
            .enumerate()
            .map(|(k, &s)| s..starts.get(k + 1).copied().unwrap_or(n_insts))
            .collect();
        let nb = blocks.len();
        let mut block_of = vec![0; n_insts];
        for (b, r) in blocks.iter().enumerate() {
            for i in r.clone() {
                block_of[i] = b;
            }
        }
        let mut succ: Vec<Vec<Edge>> = vec![Vec::new(); nb];
        let mut falls_off = vec![false; nb];
        for (b, r) in blocks.iter().enumerate() {
            let last = r.end - 1;
            let inst = &insts[last].item;
            let mut fall = || {
                if b + 1 < nb {
                    succ[b].push(Edge {
                        to: b + 1,
                        kind: EdgeKind::FallThrough,
                    });
                } else {
                    falls_off[b] = true;
                }
            };
            match (inst.opcode, target[last]) {
                (Opcode::SEndpgm, _) => {}
                (Opcode::SBranch, Some(t)) => succ[b].push(Edge {
                    to: block_of[t],
                    kind: EdgeKind::Taken,
                }),
                (_, Some(t)) => {
                    fall();
                    let to = block_of[t];
                    if !succ[b].iter().any(|e| e.to == to) {
                        succ[b].push(Edge {
                            to,
                            kind: EdgeKind::Taken,
                        });
                    }
                }
                _ => fall(),
            }
        }
        let mut reachable = vec![false; nb];
        let mut stack = vec![0usize];
        reachable[0] = true;
        while let Some(b) = stack.pop() {
            for e in &succ[b] {
                if !reachable[e.to] {
                    reachable[e.to] = true;
                    stack.push(e.to);
                }
            }
        }
        if let Some(b) = (0..nb).find(|&b| reachable[b] && falls_off[b]) {
            return Err(HostError::Input(format!(
                "{file}:{}: control falls off the end of the kernel (end it with s_endpgm)",
                insts[blocks[b].end - 1].line
            )));
        }
        let mut pred = vec![Vec::new(); nb];
        for (b, es) in succ.iter().enumerate() {
            if reachable[b] {
                for e in es {
                    pred[e.to].push(b);
                }
            }
        }

        let mut g = DiGraph::<(), ()>::with_capacity(nb, nb * 2);
        for _ in 0..nb {
            g.add_node(());
        }
        for (b, es) in succ.iter().enumerate() {
            if reachable[b] {
                for e in es {
                    g.add_edge(NodeIndex::new(b), NodeIndex::new(e.to), ());
                }
            }
        }
        let doms = simple_fast(&g, NodeIndex::new(0));
        let mut idom = vec![None; nb];
        let mut children = vec![Vec::new(); nb];
        for b in 1..nb {
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(b)) {
                idom[b] = Some(d.index());
                children[d.index()].push(b);
            }
        }
        let (dom_pre, dom_post) = tree_numbers(0, &children, nb);

        let mut flow = Flow {
            blocks,
            succ,
            pred,
            reachable,
            block_of,
            idom,
            ipdom: vec![None; nb],
            dom_pre,
            dom_post,
            back: Vec::new(),
            order: Vec::new(),
            position: Vec::new(),
            loops: Vec::new(),
            loop_of: vec![None; nb],
        };
        for b in 0..nb {
            if flow.reachable[b] {
                for e in &flow.succ[b] {
                    if flow.dominates(e.to, b) {
                        flow.back.push((b, e.to));
                    }
                }
            }
        }
        Ok(flow)
    }

    /// The block holding instruction `i`.
    pub fn block_of(&self, i: usize) -> usize {
        self.block_of[i]
    }

    /// The last instruction of block `b`.
    pub fn last(&self, b: usize) -> usize {
        self.blocks[b].end - 1
    }

    pub fn is_back_edge(&self, from: usize, to: usize) -> bool {
        self.back.contains(&(from, to))
    }

    pub fn back_edges(&self) -> &[(usize, usize)] {
        &self.back
    }

    /// Successors along forward edges.
    pub fn forward_succ(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        self.succ[b]
            .iter()
            .map(|e| e.to)
            .filter(move |&t| !self.is_back_edge(b, t))
    }

    /// Reachable blocks in reverse post-order over forward edges (a topological order).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// `blocks` (reachable ones) in [`Flow::order`], without walking the whole order: a
    /// loop's blocks, for a kernel of many loops.
    pub fn in_order(&self, blocks: &[usize]) -> Vec<usize> {
        let mut sorted = blocks.to_vec();
        sorted.sort_unstable_by_key(|&b| self.position[b]);
        sorted
    }

    /// True when `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.reachable[a]
            && self.reachable[b]
            && self.dom_pre[a] <= self.dom_pre[b]
            && self.dom_post[b] <= self.dom_post[a]
    }

    pub fn idom(&self, b: usize) -> Option<usize> {
        self.idom[b]
    }

    /// The immediate post-dominator on the forward graph; `None` when it is a virtual node:
    /// the exit, or the after-node of a loop whose latch `b` is.
    pub fn ipdom(&self, b: usize) -> Option<usize> {
        self.ipdom[b]
    }

    /// The innermost loop holding `b`.
    pub fn loop_of(&self, b: usize) -> Option<usize> {
        self.loop_of[b]
    }

    /// The loops holding `b`, innermost first.
    pub fn loops_around(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.loop_of[b], |&l| self.loops[l].parent)
    }

    /// Topological order of the forward graph; a cycle left after removing the back edges is
    /// irreducible flow, reported with the blocks on it.
    fn forward_order(&self, program: &Program, file: &str) -> Result<Vec<usize>> {
        let nb = self.blocks.len();
        let mut indeg = vec![0usize; nb];
        for b in (0..nb).filter(|&b| self.reachable[b]) {
            for t in self.forward_succ(b) {
                indeg[t] += 1;
            }
        }
        // Depth-first reverse post-order over forward edges, which is topological when acyclic.
        let mut visited = vec![false; nb];
        let mut post = Vec::with_capacity(nb);
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let fwd: Vec<usize> = self.forward_succ(b).collect();
            if let Some(&t) = fwd.get(*next) {
                *next += 1;
                if !visited[t] {
                    visited[t] = true;
                    stack.push((t, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        let mut done = 0;
        let mut ready: Vec<usize> = (0..nb)
            .filter(|&b| self.reachable[b] && indeg[b] == 0)
            .collect();
        while let Some(b) = ready.pop() {
            done += 1;
            for t in self.forward_succ(b) {
                indeg[t] -= 1;
                if indeg[t] == 0 {
                    ready.push(t);
                }
            }
        }
        let reachable = self.reachable.iter().filter(|&&r| r).count();
        if done < reachable {
            // Report the blocks of one cycle, not everything downstream of it.
            let mut g = DiGraph::<usize, ()>::new();
            let ids: Vec<NodeIndex> = (0..nb).map(|b| g.add_node(b)).collect();
            for b in (0..nb).filter(|&b| self.reachable[b] && indeg[b] > 0) {
                for t in self.forward_succ(b).filter(|&t| indeg[t] > 0) {
                    g.add_edge(ids[b], ids[t], ());
                }
            }
            let cycle = petgraph::algo::tarjan_scc(&g)
                .into_iter()
                .find(|c| c.len() > 1)
                .unwrap_or_default();
            let mut on_cycle: Vec<usize> = cycle.iter().map(|&n| g[n]).collect();
            on_cycle.sort_unstable();
            let names: Vec<String> = on_cycle
                .iter()
                .take(4)
                .map(|&b| {
                    let l = &program.instructions[self.blocks[b].start];
                    match program.label_at(l.pc) {
                        Some(name) => format!("{name} (line {})", l.line),
                        None => format!("line {}", l.line),
                    }
                })
                .collect();
            return Err(HostError::Structure(format!(
                "{file}: irreducible control flow: a cycle through {} has no single entry block that dominates it",
                names.join(", ")
            )));
        }
        Ok(post)
    }

    /// Post-dominators of the forward graph. A latch whose only edge is its back edge (the
    /// end of a rotated loop: LLVM puts a uniform `break` test mid-body) goes on to a virtual
    /// node per loop, "after the loop", which leads where the loop is left (its exits; an exit
    /// that is the back edge of an outer loop leads to that loop's after-node), so that a
    /// divergent if holding such a loop still has its join as post-dominator. Every other sink,
    /// and an after-node with nowhere to go, leads to a virtual exit.
    fn post_dominators(&self) -> Vec<Option<usize>> {
        let nb = self.blocks.len();
        let exit = nb;
        let after = |l: usize| NodeIndex::new(nb + 1 + l);
        let mut g = DiGraph::<(), ()>::with_capacity(nb + 1 + self.loops.len(), nb * 2);
        for _ in 0..=nb + self.loops.len() {
            g.add_node(());
        }
        let mut header_loop = vec![None; nb];
        for (l, lp) in self.loops.iter().enumerate() {
            header_loop[lp.header] = Some(l);
        }
        let mut continues: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for &(b, h) in &self.back {
            continues[b].extend(header_loop[h]);
        }
        for b in (0..nb).filter(|&b| self.reachable[b]) {
            let mut any = false;
            for t in self.forward_succ(b) {
                g.add_edge(NodeIndex::new(b), NodeIndex::new(t), ());
                any = true;
            }
            if !any {
                for &l in &continues[b] {
                    g.add_edge(NodeIndex::new(b), after(l), ());
                }
                if continues[b].is_empty() {
                    g.add_edge(NodeIndex::new(b), NodeIndex::new(exit), ());
                }
            }
        }
        for (l, lp) in self.loops.iter().enumerate() {
            for &(b, t) in &lp.exits {
                let to = match header_loop[t].filter(|_| self.dominates(t, b)) {
                    Some(outer) => after(outer),
                    None => NodeIndex::new(t),
                };
                g.add_edge(after(l), to, ());
            }
            if lp.exits.is_empty() {
                g.add_edge(after(l), NodeIndex::new(exit), ());
            }
        }
        let pdoms = simple_fast(Reversed(&g), NodeIndex::new(exit));
        (0..nb)
            .map(|b| {
                pdoms
                    .immediate_dominator(NodeIndex::new(b))
                    .map(|d| d.index())
                    .filter(|&d| d < nb)
            })
            .collect()
    }

    /// Natural loops, one per header (its latches merged), nested by containment.
    fn find_loops(&mut self) {
        let nb = self.blocks.len();
        // Latches by header, in the order of the back edges; each loop's walk marks its blocks
        // with the loop's number, so that a kernel of many loops costs its loops' sizes.
        let mut latches_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(l, h) in &self.back {
            latches_of.entry(h).or_default().push(l);
        }
        let mut headers: Vec<usize> = latches_of.keys().copied().collect();
        headers.sort_unstable();
        let mut mark = vec![usize::MAX; nb];
        let mut loops = Vec::with_capacity(headers.len());
        for (id, h) in headers.into_iter().enumerate() {
            let latches = latches_of.remove(&h).unwrap_or_default();
            mark[h] = id;
            let mut body = vec![h];
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if std::mem::replace(&mut mark[b], id) == id {
                    continue;
                }
                body.push(b);
                work.extend(self.pred[b].iter().copied());
            }
            body.sort_unstable();
            let exits = body
                .iter()
                .flat_map(|&b| self.succ[b].iter().map(move |e| (b, e.to)))
                .filter(|&(_, t)| mark[t] != id)
                .collect();
            loops.push(NaturalLoop {
                header: h,
                latches,
                body,
                exits,
                parent: None,
            });
        }
        // The innermost loop of a block is the smallest body holding it; a loop's parent is
        // the innermost loop holding its header among the larger ones (of equal ones, the
        // first).
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&l| loops[l].body.len());
        for &l in by_size.iter().rev() {
            for &b in &loops[l].body {
                self.loop_of[b] = Some(l);
            }
        }
        let loop_at: HashMap<usize, usize> = loops
            .iter()
            .enumerate()
            .map(|(l, lp)| (lp.header, l))
            .collect();
        let mut parent: Vec<Option<usize>> = vec![None; loops.len()];
        for o in 0..loops.len() {
            let size = loops[o].body.len();
            for b in &loops[o].body {
                let Some(&l) = loop_at.get(b) else { continue };
                if l == o || size <= loops[l].body.len() {
                    continue;
                }
                if parent[l].is_none_or(|p| loops[p].body.len() > size) {
                    parent[l] = Some(o);
                }
            }
        }
        for (lp, p) in loops.iter_mut().zip(parent) {
            lp.parent = p;
        }
        self.loops = loops;
    }
}

/// Pre- and post-order numbers of a tree given by its children lists.
fn tree_numbers(root: usize, children: &[Vec<usize>], n: usize) -> (Vec<usize>, Vec<usize>) {
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
    (pre, post)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(src: &str) -> (Program, Flow) {
        let p = pws_isa::assemble(src, "t.s").unwrap();
        let f = Flow::new(&p, "t.s").unwrap();
        (p, f)
    }

    #[test]
    fn a_rotated_loop_with_its_latch_laid_out_first() {
        // collatz at -O2: the latch comes before the header and falls through to it.
        let (_, f) = flow(
            "  s_mov_b32 s0, 0\n  s_branch H\nL:\n  s_add_u32 s0, s0, 1\n  s_cmp_lt_u32 s0, 8\n  s_cbranch_scc0 X\nH:\n  s_nop 0\n  s_branch L\nX:\n  s_endpgm\n",
        );
        assert_eq!(f.loops.len(), 1);
        let l = &f.loops[0];
        // Blocks: 0 entry, 1 L (the latch), 2 H (the header), 3 X.
        assert_eq!(l.header, 2);
        assert_eq!(l.latches, vec![1]);
        assert_eq!(l.body, vec![1, 2]);
        assert_eq!(l.exits, vec![(1, 3)]);
        assert!(f.is_back_edge(1, 2));
    }

    #[test]
    fn a_loop_with_two_exits_and_a_nested_loop() {
        let (_, f) = flow(
            "O:\n  s_add_u32 s0, s0, 1\nI:\n  s_add_u32 s1, s1, 1\n  s_cbranch_scc0 I\n  s_cmp_eq_u32 s1, 3\n  s_cbranch_scc1 X\n  s_cmp_lt_u32 s0, 9\n  s_cbranch_scc1 O\nX:\n  s_endpgm\n",
        );
        assert_eq!(f.loops.len(), 2);
        let outer = f.loops.iter().position(|l| l.header == 0).unwrap();
        let inner = f.loops.iter().position(|l| l.header == 1).unwrap();
        assert_eq!(f.loops[inner].parent, Some(outer));
        assert_eq!(f.loops[outer].exits.len(), 2);
        assert_eq!(f.loop_of(1), Some(inner));
        assert_eq!(f.loop_of(2), Some(outer));
    }

    #[test]
    fn dead_code_after_s_endpgm_is_unreachable_not_an_error() {
        let (_, f) = flow("  s_endpgm\n  s_nop 0\n");
        assert_eq!(f.reachable, vec![true, false]);
    }

    #[test]
    fn irreducible_flow_names_the_blocks() {
        let p = pws_isa::assemble(
            "  s_cbranch_scc0 B\nA:\n  s_nop 0\nB:\n  s_nop 1\n  s_cbranch_scc1 A\n  s_endpgm\n",
            "t.s",
        )
        .unwrap();
        let e = Flow::new(&p, "t.s").unwrap_err().to_string();
        assert!(e.contains("irreducible control flow"), "{e}");
        assert!(e.contains("line 3") || e.contains("A (line 3)"), "{e}");
    }

    #[test]
    fn post_dominators_of_an_if_else() {
        let (_, f) =
            flow("  s_cbranch_scc0 E\n  s_nop 0\n  s_branch J\nE:\n  s_nop 1\nJ:\n  s_endpgm\n");
        assert_eq!(f.ipdom(0), Some(3));
        assert_eq!(f.ipdom(3), None);
        assert!(f.dominates(0, 3));
    }

    #[test]
    fn an_if_holding_a_rotated_loop_has_its_join_as_post_dominator() {
        // Block 0 skips to J; the loop H's exit test sits mid-body and its latch (block 3)
        // only jumps back, as clang-14 lays out a loop with a uniform `break`.
        let (_, f) = flow(concat!(
            "  s_cbranch_execz J\n",
            "  s_mov_b32 s2, 0\n",
            "H:\n",
            "  s_add_u32 s2, s2, 1\n",
            "  s_cmp_eq_u32 s2, 4\n",
            "  s_cbranch_scc1 J\n",
            "  s_nop 0\n",
            "  s_branch H\n",
            "J:\n",
            "  s_endpgm\n",
        ));
        assert_eq!(f.blocks.len(), 5);
        assert_eq!(f.loops.len(), 1);
        assert_eq!(f.loops[0].latches, [3]);
        assert_eq!(f.ipdom(0), Some(4));
        assert_eq!(f.ipdom(2), Some(4));
        // The latch is followed by the loop's virtual after-node, which no block stands for.
        assert_eq!(f.ipdom(3), None);
    }
}
