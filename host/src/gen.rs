//! Random BSB CFGs for the property tests and the benchmarks: sequences, serialized if/else
//! with BSBs, bounded loops, and with [`GenOptions::irregular`] what compilers emit besides:
//! loops with several latches (`continue`) and exits (`break` to the end of any enclosing loop
//! of the same if/else path, early returns), rotated loops whose only exit is a test mid-body, uniform (scalar) branches, and node numbers in
//! random order. Deterministic in the seed, so a failing case can be replayed from the seed
//! proptest prints.

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
    /// Several latches and exits per loop, early returns, uniform branches, shuffled nodes.
    pub irregular: bool,
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
            irregular: false,
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

/// Where a block may jump besides its region's own flow: the loops it is in (header for a
/// `continue`, the block after the loop for a `break`), and whether it may return. A path of a
/// divergent branch starts with none of them: control leaves it only through its BSB or join.
#[derive(Clone, Default)]
struct Exits {
    loops: Vec<(usize, usize)>,
    may_return: bool,
}

struct Gen {
    rng: Rng,
    opts: GenOptions,
    blocks: Vec<Block>,
    edges: Vec<(usize, usize)>,
    ret: Option<usize>,
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
            line: None,
            source: None,
        });
        id
    }

    /// A path of a branch: sometimes empty, which the BSB form writes as a zero-cost block.
    fn path(&mut self, budget: usize, depth: usize) -> (usize, usize) {
        if budget <= 1 && self.rng.below(3) == 0 {
            let v = self.node(BlockKind::Block, Some(0));
            return (v, v);
        }
        self.seq(budget.max(1), depth, &Exits::default())
    }

    /// A sequence of regions using about `budget` nodes (at least one).
    fn seq(&mut self, budget: usize, depth: usize, exits: &Exits) -> (usize, usize) {
        let mut first = None;
        let mut last: Option<usize> = None;
        let mut left = budget.max(1);
        while left > 0 {
            let roll = self.rng.below(100);
            let deeper = depth < self.opts.max_depth;
            let (a, b, used) = if deeper && left >= 5 && roll < 40 {
                let inner = (left - 3).min(2 + self.rng.below(left as u64 / 2 + 1) as usize);
                let (a, b) = self.branch(inner, depth);
                (a, b, inner + 3)
            } else if self.opts.loops && deeper && left >= 3 && roll < 55 {
                let inner = (left - 2).min(1 + self.rng.below(left as u64 / 2 + 1) as usize);
                let (a, b) = self.looped(inner, depth, exits);
                (a, b, inner + 2)
            } else if self.opts.irregular && deeper && left >= 4 && roll < 65 {
                let inner = (left - 2).min(2 + self.rng.below(left as u64 / 2 + 1) as usize);
                let (a, b) = self.uniform(inner, depth, exits);
                (a, b, inner + 2)
            } else {
                let v = self.node(BlockKind::Block, None);
                self.jumps(v, exits);
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

    /// Irregular extra edges of an ordinary block: continue, break or return.
    fn jumps(&mut self, v: usize, exits: &Exits) {
        if !self.opts.irregular {
            return;
        }
        if !exits.loops.is_empty() && self.rng.below(100) < 20 {
            let (h, after) = exits.loops[self.rng.below(exits.loops.len() as u64) as usize];
            let to = if self.rng.below(2) == 0 { h } else { after };
            self.edges.push((v, to));
        } else if exits.may_return && self.rng.below(100) < 4 {
            let r = match self.ret {
                Some(r) => r,
                None => {
                    let r = self.node(BlockKind::Block, None);
                    self.ret = Some(r);
                    r
                }
            };
            self.edges.push((v, r));
        }
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

    /// A uniform branch: both arms are ordinary code, either may jump like its region.
    fn uniform(&mut self, inner: usize, depth: usize, exits: &Exits) -> (usize, usize) {
        let c = self.node(BlockKind::Block, None);
        let left = 1 + self.rng.below(inner as u64) as usize;
        let (a1, z1) = self.seq(left, depth + 1, exits);
        let (a2, z2) = self.seq(inner.saturating_sub(left).max(1), depth + 1, exits);
        let j = self.node(BlockKind::Block, None);
        self.edges.extend([(c, a1), (c, a2), (z1, j), (z2, j)]);
        (c, j)
    }

    fn looped(&mut self, inner: usize, depth: usize, exits: &Exits) -> (usize, usize) {
        let h = self.node(BlockKind::Block, None);
        self.blocks[h].loop_bound = Some(1 + self.rng.below(self.opts.max_bound));
        if !self.opts.irregular {
            let (a, z) = self.seq(inner, depth + 1, exits);
            let l = self.node(BlockKind::Block, None);
            self.edges.extend([(h, a), (z, l), (l, h)]);
            return (h, l);
        }
        // The block after the loop exists first, so that the body can break to it.
        let after = self.node(BlockKind::Block, None);
        let mut body = exits.clone();
        body.loops.push((h, after));
        if inner >= 3 && self.rng.below(3) == 0 {
            // Rotated, as LLVM lays out a loop with a `break`: the exit test sits mid-body and
            // the latch only jumps back, so the code after the test never reaches the exit
            // without another iteration.
            let first = 1 + self.rng.below(inner as u64 - 2) as usize;
            let (a1, z1) = self.seq(first, depth + 1, &body);
            let test = self.node(BlockKind::Block, None);
            let (a2, z2) = self.seq(inner - first - 1, depth + 1, &body);
            let l = self.node(BlockKind::Block, None);
            self.edges.extend([
                (h, a1),
                (z1, test),
                (test, after),
                (test, a2),
                (z2, l),
                (l, h),
            ]);
            return (h, after);
        }
        let (a, z) = self.seq(inner, depth + 1, &body);
        let l = self.node(BlockKind::Block, None);
        self.edges.extend([(h, a), (z, l), (l, h), (l, after)]);
        (h, after)
    }
}

/// A CFG drawn from `seed`: an entry block, regions, an exit block.
pub fn random_cfg(seed: u64, opts: &GenOptions) -> Cfg {
    let mut g = Gen {
        rng: Rng(seed),
        opts: *opts,
        blocks: Vec::with_capacity(opts.nodes + 4),
        edges: Vec::with_capacity(opts.nodes * 3 / 2),
        ret: None,
    };
    let entry = g.node(BlockKind::Block, None);
    let top = Exits {
        loops: Vec::new(),
        may_return: true,
    };
    let (a, z) = g.seq(opts.nodes.saturating_sub(2).max(1), 0, &top);
    let exit = g.node(BlockKind::Block, None);
    g.edges.extend([(entry, a), (z, exit)]);
    let mut cfg = Cfg {
        blocks: g.blocks,
        edges: g.edges,
        entry,
    };
    if opts.irregular {
        // Any layout: nodes in random order.
        let n = cfg.blocks.len();
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, g.rng.below(i as u64 + 1) as usize);
        }
        let mut blocks = vec![None; n];
        for (old, b) in cfg.blocks.into_iter().enumerate() {
            blocks[perm[old]] = Some(b);
        }
        cfg.blocks = blocks
            .into_iter()
            .map(|b| b.expect("a permutation"))
            .collect();
        for e in &mut cfg.edges {
            *e = (perm[e.0], perm[e.1]);
        }
        cfg.entry = perm[cfg.entry];
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::BsbCfg;

    /// The irregular shapes do occur, so that the properties over them are not vacuous.
    #[test]
    fn irregular_cfgs_have_the_shapes_they_promise() {
        let opts = GenOptions {
            nodes: 300,
            loops: true,
            irregular: true,
            ..GenOptions::default()
        };
        let (mut latches, mut breaks, mut returns, mut uniform, mut shuffled) = (0, 0, 0, 0, 0);
        for seed in 0..40 {
            let g = BsbCfg::new(random_cfg(seed, &opts)).unwrap();
            latches += g.loops().iter().filter(|l| l.latches.len() > 1).count();
            // A break: a forward edge from a loop's body to a node of no loop holding it.
            for v in 0..g.len() {
                if let Some(l) = g.innermost_loop(v) {
                    let inner = |t: usize| {
                        let mut q = g.innermost_loop(t);
                        while let Some(x) = q {
                            if x == l {
                                return true;
                            }
                            q = g.loops()[x].parent;
                        }
                        false
                    };
                    let latch = g.loops()[l].latches.contains(&v);
                    breaks += g
                        .forward_successors(v)
                        .iter()
                        .filter(|&&t| !latch && !inner(t))
                        .count();
                }
            }
            returns += usize::from((0..g.len()).filter(|&v| g.is_end(v)).count() > 1);
            uniform += (0..g.len())
                .filter(|&v| {
                    g.block(v).kind == BlockKind::Block && g.forward_successors(v).len() > 1
                })
                .count();
            shuffled += usize::from(g.order().windows(2).any(|w| w[0] > w[1]));
        }
        assert!(
            latches > 10 && breaks > 10 && returns > 5 && uniform > 10,
            "{latches} {breaks} {returns} {uniform}"
        );
        assert_eq!(shuffled, 40);
    }
}
