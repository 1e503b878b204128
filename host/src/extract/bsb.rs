//! The BSB CFG of a kernel: the flow's reachable blocks (cut at labels, for the names people
//! see), with every divergent `if` region made a branch node with its BSB, zero-cost virtual
//! nodes where LLVM's code has none: the BSB and empty else-path of an `if` without else, and a
//! private join for a region whose join is shared with an enclosing one.

use std::collections::HashSet;
use std::ops::Range;

use pws_isa::{Opcode, Program};

use super::regions::IfRegion;
use super::{IfBranch, Note};
use crate::cfg::{Block, BlockKind, Cfg};
use crate::flow::Flow;
use crate::timing::TimingTable;

pub(super) struct Builder<'a> {
    flow: &'a Flow,
    /// Instruction ranges of the physical nodes.
    pub ranges: Vec<Range<usize>>,
    pub blocks: Vec<Block>,
    /// The edges by source and by target (a kernel of 10^5 `if`s asks for a node's edges
    /// 10^5 times).
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    /// First and last CFG node of each reachable flow block.
    first: Vec<usize>,
    last: Vec<usize>,
}

impl<'a> Builder<'a> {
    pub fn new(program: &Program, flow: &'a Flow, table: &TimingTable) -> Builder<'a> {
        let insts = &program.instructions;
        let mut cuts: Vec<usize> = program
            .labels
            .values()
            .filter_map(|&pc| program.index_of(pc))
            .collect();
        cuts.sort_unstable();
        let nb = flow.blocks.len();
        let (mut first, mut last) = (vec![usize::MAX; nb], vec![usize::MAX; nb]);
        let mut ranges = Vec::new();
        let mut edges = Vec::new();
        for b in (0..nb).filter(|&b| flow.reachable[b]) {
            let r = flow.blocks[b].clone();
            first[b] = ranges.len();
            let mut s = r.start;
            let inside =
                cuts.partition_point(|&c| c <= r.start)..cuts.partition_point(|&c| c < r.end);
            for c in cuts[inside].iter().copied().chain([r.end]) {
                if s > r.start {
                    edges.push((ranges.len() - 1, ranges.len()));
                }
                ranges.push(s..c);
                s = c;
            }
            last[b] = ranges.len() - 1;
        }
        for b in (0..nb).filter(|&b| flow.reachable[b]) {
            for e in &flow.succ[b] {
                edges.push((last[b], first[e.to]));
            }
        }
        let label_at = program.labels_by_pc();
        let blocks: Vec<Block> = ranges
            .iter()
            .map(|r| {
                let pc = insts[r.start].pc;
                Block {
                    name: label_at
                        .get(&pc)
                        .map_or_else(|| format!("pc_0x{pc:x}"), |l| l.to_string()),
                    wcet: r.clone().map(|i| table.cycles(&insts[i].item)).sum(),
                    kind: BlockKind::Block,
                    split: false,
                    loop_bound: None,
                    line: Some(insts[r.start].line),
                    source: None,
                }
            })
            .collect();
        let n = blocks.len();
        let mut builder = Builder {
            flow,
            ranges,
            blocks,
            succ: vec![Vec::new(); n],
            pred: vec![Vec::new(); n],
            first,
            last,
        };
        for (a, b) in edges {
            builder.add_edge(a, b);
        }
        builder
    }

    fn add_edge(&mut self, a: usize, b: usize) {
        self.succ[a].push(b);
        self.pred[b].push(a);
    }

    /// Moves the edges into `join` from the nodes `from` accepts to `to`.
    fn retarget(&mut self, join: usize, to: usize, from: impl Fn(usize) -> bool) {
        let (moved, kept): (Vec<usize>, Vec<usize>) = std::mem::take(&mut self.pred[join])
            .into_iter()
            .partition(|&a| from(a));
        self.pred[join] = kept;
        for a in moved {
            if let Some(e) = self.succ[a].iter_mut().find(|b| **b == join) {
                *e = to;
            }
            self.pred[to].push(a);
        }
    }

    /// The first CFG node of flow block `b`.
    pub fn node_of(&self, b: usize) -> usize {
        self.first[b]
    }

    /// A zero-cost node named after branch `u`.
    fn add_virtual(&mut self, u: usize, suffix: &str, kind: BlockKind) -> usize {
        self.blocks.push(Block {
            name: format!("{}.{suffix}", self.blocks[u].name),
            wcet: 0,
            kind,
            split: false,
            loop_bound: None,
            line: self.blocks[u].line,
            source: None,
        });
        self.succ.push(Vec::new());
        self.pred.push(Vec::new());
        self.blocks.len() - 1
    }

    /// Nodes reachable from `from` without entering `stops`.
    fn reachable(&self, from: usize, stops: &[usize]) -> Vec<usize> {
        let mut seen = HashSet::new();
        let mut work = vec![from];
        let mut out = Vec::new();
        while let Some(x) = work.pop() {
            if stops.contains(&x) || !seen.insert(x) {
                continue;
            }
            out.push(x);
            work.extend(self.succ.get(x).into_iter().flatten().copied());
        }
        out
    }

    /// Makes `r` (inner regions first) a branch with its BSB and returns it as an `IfBranch`.
    pub fn add_region(&mut self, program: &Program, r: &IfRegion) -> IfBranch {
        let flow = self.flow;
        let u = self.last[r.block];
        let join = self.first[r.join];
        let then1 = flow.succ[r.block]
            .iter()
            .map(|e| self.first[e.to])
            .find(|&x| x != join && Some(x) != r.flip.map(|t| self.first[t]))
            .expect("a region's branch has a then-path");
        let mut region = match r.flip {
            Some(t) => {
                let bsb = self.first[t];
                self.blocks[bsb].kind = BlockKind::Bsb;
                let then2 = self.succ[self.last[t]].iter().copied().find(|&b| b != join);
                let mut nodes = self.reachable(then1, &[u, bsb]);
                nodes.extend(self.first[t]..=self.last[t]);
                if let Some(p) = then2 {
                    nodes.extend(self.reachable(p, &[join]));
                }
                nodes
            }
            None => {
                let mut nodes = self.reachable(then1, &[u, join]);
                let bsb = self.add_virtual(u, "bsb", BlockKind::Bsb);
                let empty = self.add_virtual(u, "else", BlockKind::Block);
                let inside: HashSet<usize> = nodes.iter().copied().collect();
                self.retarget(join, bsb, |a| a == u || inside.contains(&a));
                for (a, b) in [(bsb, empty), (bsb, join), (empty, join)] {
                    self.add_edge(a, b);
                }
                nodes.extend([bsb, empty]);
                nodes
            }
        };
        region.sort_unstable();
        self.blocks[u].kind = BlockKind::Branch;
        // A join also reached from outside the region gets a private virtual join.
        if self.pred[join]
            .iter()
            .any(|&a| a != u && region.binary_search(&a).is_err())
        {
            let vj = self.add_virtual(u, "join", BlockKind::Block);
            self.retarget(join, vj, |a| region.binary_search(&a).is_ok());
            self.add_edge(vj, join);
        }
        let insts = &program.instructions;
        let cbranch = flow.last(r.block);
        let split = (cbranch > flow.blocks[r.block].start
            && insts[cbranch - 1].item.opcode == Opcode::Split)
            .then_some(cbranch - 1);
        IfBranch {
            node: u,
            cbranch,
            flip: r.flip.map(|t| self.first[t]),
            join,
            mask: r.mask,
            restore: r.restore,
            merge_at: r.merge_at,
            split,
            merge: None,
            marker: false,
            unsplittable: r.unsplittable.clone(),
            paths: [r.path1.clone(), r.path2.clone()],
        }
    }

    /// A note for the code that cannot be reached.
    pub fn dead_code(&self, program: &Program) -> Option<Note> {
        let flow = self.flow;
        let dead: Vec<usize> = (0..flow.blocks.len())
            .filter(|&b| !flow.reachable[b])
            .collect();
        let &b = dead.first()?;
        Some(Note {
            line: program.instructions[flow.blocks[b].start].line,
            message: format!(
                "{} instruction(s) cannot be reached from the kernel's entry; they are not analysed",
                dead.iter().map(|&b| flow.blocks[b].len()).sum::<usize>()
            ),
        })
    }

    /// The CFG, and the instruction range of every node (empty for the virtual ones).
    pub fn finish(self) -> (Cfg, Vec<Range<usize>>) {
        let mut ranges = self.ranges;
        ranges.resize(self.blocks.len(), 0..0);
        let mut edges: Vec<(usize, usize)> = self
            .succ
            .iter()
            .enumerate()
            .flat_map(|(a, to)| to.iter().map(move |&b| (a, b)))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        (
            Cfg {
                blocks: self.blocks,
                edges,
                entry: 0,
            },
            ranges,
        )
    }
}
