//! The BSB CFG of a kernel: the flow's reachable blocks (cut at labels, for the names people
//! see), with every divergent `if` region made a branch node with its BSB, zero-cost virtual
//! nodes where LLVM's code has none: the BSB and empty else-path of an `if` without else, and a
//! private join for a region whose join is shared with an enclosing one.

use std::collections::HashMap;
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
    pub edges: Vec<(usize, usize)>,
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
            for c in cuts
                .iter()
                .copied()
                .filter(|&c| c > r.start && c < r.end)
                .chain([r.end])
            {
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
        let blocks = ranges
            .iter()
            .map(|r| {
                let pc = insts[r.start].pc;
                Block {
                    name: program
                        .label_at(pc)
                        .map_or_else(|| format!("pc_0x{pc:x}"), str::to_string),
                    wcet: r.clone().map(|i| table.cycles(&insts[i].item)).sum(),
                    kind: BlockKind::Block,
                    split: false,
                    loop_bound: None,
                    line: Some(insts[r.start].line),
                }
            })
            .collect();
        Builder {
            flow,
            ranges,
            blocks,
            edges,
            first,
            last,
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
        });
        self.blocks.len() - 1
    }

    /// Nodes reachable from `from` without entering `stops`.
    fn reachable(&self, from: usize, stops: &[usize]) -> Vec<usize> {
        let mut succ: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(a, b) in &self.edges {
            succ.entry(a).or_default().push(b);
        }
        let mut seen = vec![false; self.blocks.len()];
        let mut work = vec![from];
        let mut out = Vec::new();
        while let Some(x) = work.pop() {
            if stops.contains(&x) || std::mem::replace(&mut seen[x], true) {
                continue;
            }
            out.push(x);
            work.extend(succ.get(&x).into_iter().flatten().copied());
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
                let then2 = self
                    .edges
                    .iter()
                    .find(|e| e.0 == self.last[t] && e.1 != join)
                    .map(|e| e.1);
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
                for e in self
                    .edges
                    .iter_mut()
                    .filter(|e| e.1 == join && (e.0 == u || nodes.contains(&e.0)))
                {
                    e.1 = bsb;
                }
                self.edges
                    .extend([(bsb, empty), (bsb, join), (empty, join)]);
                nodes.extend([bsb, empty]);
                nodes
            }
        };
        region.sort_unstable();
        self.blocks[u].kind = BlockKind::Branch;
        // A join also reached from outside the region gets a private virtual join.
        if self
            .edges
            .iter()
            .any(|e| e.1 == join && e.0 != u && region.binary_search(&e.0).is_err())
        {
            let vj = self.add_virtual(u, "join", BlockKind::Block);
            for e in self
                .edges
                .iter_mut()
                .filter(|e| e.1 == join && region.binary_search(&e.0).is_ok())
            {
                e.1 = vj;
            }
            self.edges.push((vj, join));
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
        let mut edges = self.edges;
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
