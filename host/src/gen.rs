//! Random structured BSB CFGs (sequences, serialized if/else with BSBs, bounded single-exit
//! loops) for the property tests and the benchmarks. Deterministic in the seed, so a failing
//! case can be replayed from the seed proptest prints.

use crate::cfg::{Block, BlockKind, Cfg};

/// Shape parameters of a generated CFG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenOptions {
    /// Approximate number of nodes (regions are drawn until the budget is spent; the result can
    /// exceed it by a few percent).
    pub nodes: usize,
    /// Whether loops (with bounds 1..=`max_bound`) may appear.
    pub loops: bool,
    pub max_bound: u64,
    /// Block WCETs are drawn from 0..=`max_wcet`.
    pub max_wcet: u64,
    /// Maximum nesting depth of regions.
    pub max_depth: usize,
    /// Percentage of branches marked as split points.
    pub split_percent: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            nodes: 50,
            loops: false,
            max_bound: 4,
            max_wcet: 20,
            max_depth: 6,
            split_percent: 60,
        }
    }
}

/// SplitMix64: tiny, fast, and good enough to draw shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

struct Gen {
    rng: Rng,
    opts: GenOptions,
    blocks: Vec<Block>,
    edges: Vec<(usize, usize)>,
}

impl Gen {
    fn node(&mut self, kind: BlockKind, wcet: Option<u64>) -> usize {
        let id = self.blocks.len();
        let wcet = wcet.unwrap_or_else(|| self.rng.below(self.opts.max_wcet + 1));
        let split = kind == BlockKind::Branch && self.rng.below(100) < self.opts.split_percent;
        self.blocks.push(Block {
            name: format!("n{id}"),
            wcet,
            kind,
            split,
            loop_bound: None,
        });
        id
    }

    /// A path of a branch: sometimes empty, which the BSB form writes as a zero-cost block.
    fn path(&mut self, budget: usize, depth: usize) -> (usize, usize) {
        if budget <= 1 && self.rng.below(3) == 0 {
            let v = self.node(BlockKind::Block, Some(0));
            return (v, v);
        }
        self.seq(budget.max(1), depth)
    }

    /// A sequence of regions using about `budget` nodes (at least one).
    fn seq(&mut self, budget: usize, depth: usize) -> (usize, usize) {
        let mut first = None;
        let mut last: Option<usize> = None;
        let mut left = budget.max(1);
        while left > 0 {
            let roll = self.rng.below(100);
            let (a, b, used) = if depth < self.opts.max_depth && left >= 5 && roll < 40 {
                let inner = (left - 3).min(2 + self.rng.below(left as u64 / 2 + 1) as usize);
                let (a, b) = self.branch(inner, depth);
                (a, b, inner + 3)
            } else if self.opts.loops && depth < self.opts.max_depth && left >= 3 && roll < 55 {
                let inner = (left - 2).min(1 + self.rng.below(left as u64 / 2 + 1) as usize);
                let (a, b) = self.looped(inner, depth);
                (a, b, inner + 2)
            } else {
                let v = self.node(BlockKind::Block, None);
                (v, v, 1)
            };
            if let Some(l) = last {
                self.edges.push((l, a));
            }
            first.get_or_insert(a);
            last = Some(b);
            left = left.saturating_sub(used);
        }
        (
            first.expect("a sequence emits at least one node"),
            last.expect("a sequence emits at least one node"),
        )
    }

    fn branch(&mut self, inner: usize, depth: usize) -> (usize, usize) {
        let u = self.node(BlockKind::Branch, None);
        let split1 = self.rng.below(inner as u64 + 1) as usize;
        let (s1, l1) = self.path(split1, depth + 1);
        let b = self.node(BlockKind::Bsb, None);
        let (s2, l2) = self.path(inner - split1, depth + 1);
        let r = self.node(BlockKind::Block, None);
        self.edges
            .extend([(u, s1), (u, b), (l1, b), (b, s2), (b, r), (l2, r)]);
        (u, r)
    }

    fn looped(&mut self, inner: usize, depth: usize) -> (usize, usize) {
        let h = self.node(BlockKind::Block, None);
        self.blocks[h].loop_bound = Some(1 + self.rng.below(self.opts.max_bound));
        let (a, z) = self.seq(inner, depth + 1);
        let l = self.node(BlockKind::Block, None);
        self.edges.extend([(h, a), (z, l), (l, h)]);
        (h, l)
    }
}

/// A structured CFG drawn from `seed`: an entry block, regions, an exit block.
pub fn random_cfg(seed: u64, opts: &GenOptions) -> Cfg {
    let mut g = Gen {
        rng: Rng(seed),
        opts: *opts,
        blocks: Vec::with_capacity(opts.nodes + 4),
        edges: Vec::with_capacity(opts.nodes * 3 / 2),
    };
    let entry = g.node(BlockKind::Block, None);
    let (a, z) = g.seq(opts.nodes.saturating_sub(2).max(1), 0);
    let exit = g.node(BlockKind::Block, None);
    g.edges.extend([(entry, a), (z, exit)]);
    Cfg {
        blocks: g.blocks,
        edges: g.edges,
        entry,
    }
}
