//! The CFG front end for GCN3 assembly as LLVM's AMDGPU backend emits it (and as people write
//! it): the BSB CFG the analysis needs, the divergent `if` regions a split can cover, natural
//! loops with their bounds, and the annotations.
//!
//! The physical control flow ([`Flow`]) is the worst-case structure as it is: an `if`'s
//! `s_cbranch_execz` skips the then-path, its else-flip skips the else-path, so the scalar
//! unit's longest path already runs both, serialized ([P] Fig 7's BSB CFG). On top of it a
//! divergent `if` is recognised by what it does to EXEC, not by register names ([`crate::masks`]):
//!
//! - a block whose last EXEC write narrows EXEC (any SI_IF form, `s_and_b64 exec, exec, C`
//!   included) and ends in `s_cbranch_execz` over the then-path, or `s_cbranch_execnz` into a
//!   then-path laid out elsewhere;
//! - whose skip target T post-dominates it (a single-entry, single-exit region);
//! - T is its else-flip (the `s_or_saveexec_b64` there reads a mask this block created), whose
//!   own skip target is the join; otherwise T is the join of an `if` without `else`;
//! - the join restores EXEC with `s_or_b64 exec, exec, R` where R holds the region's saved mask,
//!   or restores nothing when nothing after it needs the lanes back (an `if` guarding the end of
//!   the kernel); the merge goes right after the restore, or at the start of the join.
//!
//! Such an `if` becomes a branch node with its BSB (the else-flip, or a zero-cost virtual BSB and
//! empty else-path for an `if` without `else`); regions that share a join get a zero-cost
//! virtual join each, so every region is single-entry single-exit in the BSB CFG, as Prune
//! expects. Everything else (uniform branches, loop latches and exits, divergent branches of
//! other shapes) stays an ordinary block: the IPET bounds it all the same, it just cannot split.
//! Each `if` also says whether it can split ([`IfBranch::unsplittable`]): not inside a divergent
//! loop, no `s_barrier` in the region, and no scalar value the split would lose
//! ([`crate::liveness`]).
//!
//! Annotations are comments, read from the source text because the assembler drops comments
//! (inline `asm volatile("; pws: ...")` from C lands in the assembly as such a comment):
//! - `; pws: split` marks the divergent branch that ends the block of the next instruction;
//! - `; pws: loop_bound N` bounds the innermost loop holding the next instruction: that
//!   instruction's block runs at most N times per entry into the loop. Right before the header
//!   (hand-written assembly) that is the header's bound; from `PWS_LOOP_BOUND(N)` in a C loop
//!   body it is the number of iterations, and the header, when it tests the loop condition,
//!   gets one more ([`header_bound`]). Several in one loop: the largest counts (clang leaves
//!   the annotation of an inner loop it unrolled in the enclosing loop's body).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use pws_isa::{assemble, Opcode, Operand, Program};

use crate::cfg::{Block, BlockKind, Cfg};
use crate::error::{HostError, Result};
use crate::flow::Flow;
use crate::liveness::{split_hazards, Hazard, Liveness, Region};
use crate::masks::{exec_change, find_restore, ExecChange, Provenance};
use crate::timing::TimingTable;

/// Where a merge goes relative to the join's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeAt {
    /// Right after this instruction (the EXEC restore).
    After(usize),
    /// Right before this instruction (the join's first).
    Before(usize),
}

impl MergeAt {
    /// The index of the instruction the merge comes before.
    pub fn gap(self) -> usize {
        match self {
            MergeAt::After(i) => i + 1,
            MergeAt::Before(i) => i,
        }
    }
}

/// A divergent `if` region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IfBranch {
    /// CFG node of the branch block.
    pub node: usize,
    /// Instruction index of its `s_cbranch_execz` (or `_execnz`).
    pub cbranch: usize,
    /// CFG node of the else-flip (the BSB); `None` for an `if` without `else`.
    pub flip: Option<usize>,
    /// CFG node of the join (a physical block).
    pub join: usize,
    /// The split mask M: the branch condition when it is still in its register at the branch
    /// (the creator keeps the then-lanes), else EXEC itself, which holds exactly them.
    pub mask: Operand,
    /// The join's `s_or_b64 exec, exec, R`, if it restores EXEC.
    pub restore: Option<usize>,
    pub merge_at: MergeAt,
    /// A `split` immediately before the branch.
    pub split: Option<usize>,
    /// The `merge` at `merge_at` that pairs with it.
    pub merge: Option<usize>,
    /// Marked by a `; pws: split` comment.
    pub marker: bool,
    /// Why the region cannot split, if it cannot.
    pub unsplittable: Option<Unsplittable>,
}

/// What keeps a divergent `if` from splitting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsplittable {
    /// Inside a loop whose exit is divergent: a split wavefront would iterate on its own.
    DivergentLoop { header_line: u32 },
    /// An `s_barrier` between the split and the merge.
    Barrier { line: u32 },
    /// The split would lose or stale a scalar value.
    Hazards(Vec<Hazard>),
}

impl std::fmt::Display for Unsplittable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsplittable::DivergentLoop { header_line } => write!(
                f,
                "it is inside the divergent loop whose header is at line {header_line} (its split wavefronts would leave the loop separately)"
            ),
            Unsplittable::Barrier { line } => write!(
                f,
                "its divergent region holds `s_barrier` (line {line}): the split contexts would wait for each other at the barrier and the merge forever"
            ),
            Unsplittable::Hazards(h) => {
                let all: Vec<String> = h.iter().map(ToString::to_string).collect();
                write!(f, "{}", all.join("; "))
            }
        }
    }
}

impl IfBranch {
    /// True for an `if` without `else`, which gains no parallelism from a split.
    pub fn one_sided(&self) -> bool {
        self.flip.is_none()
    }
}

/// A natural loop of the kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelLoop {
    /// CFG node of the header.
    pub header: usize,
    /// Source line of the header's first instruction.
    pub line: u32,
    /// Its exit or back edge is an EXEC branch: lanes leave it at different iterations.
    pub divergent: bool,
}

/// Something the user should know that does not stop the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: u32,
    pub message: String,
}

/// Loop bounds given outside the assembly (a launch manifest): by header label, and a default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoopBounds {
    pub default: Option<u64>,
    pub by_label: BTreeMap<String, u64>,
}

impl LoopBounds {
    /// The manifest's `[loop_bounds]`: `default`, and bounds by header label.
    pub fn from_manifest(manifest: &pws_isa::manifest::Manifest) -> LoopBounds {
        LoopBounds {
            default: manifest.loop_bounds.get("default").copied(),
            by_label: manifest
                .loop_bounds
                .iter()
                .filter(|(k, _)| k.as_str() != "default")
                .map(|(k, &v)| (k.clone(), v))
                .collect(),
        }
    }
}

/// An assembled kernel with its BSB CFG; `cfg.blocks[v].split` is the set P (a `split` right
/// before a splittable branch or a `pws: split` marker).
#[derive(Debug, Clone)]
pub struct Kernel {
    pub program: Program,
    pub flow: Flow,
    pub cfg: Cfg,
    /// Instruction range of each CFG node (empty for the virtual nodes).
    pub ranges: Vec<Range<usize>>,
    pub ifs: Vec<IfBranch>,
    pub loops: Vec<KernelLoop>,
    /// `split` instructions that are not immediately before a recognised divergent branch.
    pub stray_splits: Vec<usize>,
    /// Every `merge` instruction.
    pub merges: Vec<usize>,
    pub notes: Vec<Note>,
}

enum Annotation {
    Split,
    LoopBound(u64),
}

fn syntax<T>(file: &str, line: usize, col: usize, msg: impl Into<String>) -> Result<T> {
    Err(HostError::Syntax {
        file: file.to_string(),
        line,
        col,
        msg: msg.into(),
    })
}

/// The `pws:` comments of the source, by 1-based line.
fn annotations(source: &str, file: &str) -> Result<Vec<(usize, Annotation)>> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let start = match (line.find(';'), line.find("//")) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => continue,
        };
        let marker_len = if line[start..].starts_with("//") {
            2
        } else {
            1
        };
        let body = line[start + marker_len..].trim_start();
        let Some(rest) = body.strip_prefix("pws:") else {
            continue;
        };
        let col = line.len() - body.len() + 1;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let ann = match words.as_slice() {
            ["split"] => Annotation::Split,
            ["loop_bound", n] => match n.parse::<u64>() {
                Ok(b) if b >= 1 => Annotation::LoopBound(b),
                _ => {
                    return syntax(
                        file,
                        i + 1,
                        col,
                        format!("loop_bound needs an integer of at least 1, found '{n}'"),
                    )
                }
            },
            _ => {
                return syntax(
                    file,
                    i + 1,
                    col,
                    format!(
                        "unknown pws annotation '{}' (expected 'pws: split' or 'pws: loop_bound N')",
                        rest.trim()
                    ),
                )
            }
        };
        out.push((i + 1, ann));
    }
    Ok(out)
}

/// Where an annotation comment applies: the instruction it belongs with.
///
/// A comment written by hand applies to the next instruction (`; pws: loop_bound N` right before
/// a loop header's label). One that clang emitted for an inline `asm volatile` (between
/// `;;#ASMSTART` and `;;#ASMEND`) sits where the C statement was, inside a basic block: it
/// belongs with the instruction before it, unless a label comes first, which means it opens
/// its block. (A C loop body that starts with an inner loop puts the outer annotation right
/// before the inner loop's header label; the next instruction would be the wrong loop's.)
struct Anchors {
    /// Per source line (0-based): the instruction on it, or a label.
    line_kind: Vec<LineKind>,
    /// Per source line: inside an inline-asm block.
    inline_asm: Vec<bool>,
    /// First instruction index at or after each line.
    next: Vec<Option<usize>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Other,
    Label,
    Instruction(usize),
}

impl Anchors {
    fn new(source: &str, program: &Program) -> Anchors {
        let lines: Vec<&str> = source.lines().collect();
        let mut line_kind = vec![LineKind::Other; lines.len() + 1];
        for (i, l) in program.instructions.iter().enumerate() {
            if let Some(k) = line_kind.get_mut(l.line as usize) {
                *k = LineKind::Instruction(i);
            }
        }
        let mut inline_asm = vec![false; lines.len() + 1];
        let mut open = false;
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim();
            if t.starts_with(";;#ASMSTART") {
                open = true;
            } else if t.starts_with(";;#ASMEND") {
                open = false;
            }
            inline_asm[k + 1] = open;
            let code = t.split(';').next().unwrap_or("").trim();
            if line_kind[k + 1] == LineKind::Other
                && code.ends_with(':')
                && !code[..code.len() - 1].contains(char::is_whitespace)
            {
                line_kind[k + 1] = LineKind::Label;
            }
        }
        let mut next = vec![None; lines.len() + 2];
        for k in (1..=lines.len()).rev() {
            next[k] = match line_kind[k] {
                LineKind::Instruction(i) => Some(i),
                _ => next[k + 1],
            };
        }
        Anchors {
            line_kind,
            inline_asm,
            next,
        }
    }

    /// The instruction the annotation on (1-based) `line` belongs with.
    fn of(&self, line: usize) -> Option<usize> {
        let after = self.next.get(line + 1).copied().flatten();
        if !self.inline_asm.get(line).copied().unwrap_or(false) {
            return after;
        }
        for k in (1..line).rev() {
            match self.line_kind[k] {
                LineKind::Instruction(i) => return Some(i),
                LineKind::Label => return after,
                LineKind::Other => {}
            }
        }
        after
    }
}

/// True when the source carries a `; pws: split` marker (a cheap test that needs no CFG).
pub fn has_split_marker(source: &str) -> bool {
    source.lines().any(|l| {
        [l.find(';').map(|c| c + 1), l.find("//").map(|c| c + 2)]
            .into_iter()
            .flatten()
            .filter_map(|c| l[c..].trim_start().strip_prefix("pws:"))
            .any(|r| r.trim() == "split")
    })
}

/// A divergent branch as the flow shows it, before it is checked as a region.
struct Candidate {
    block: usize,
    then_succ: usize,
    skip_succ: usize,
}

/// Assembles `source` and extracts its BSB CFG; block WCETs come from `table`.
pub fn extract(source: &str, file: &str, table: &TimingTable) -> Result<Kernel> {
    let program = assemble(source, file).map_err(|e| HostError::Input(e.to_string()))?;
    let flow = Flow::new(&program, file)?;
    let prov = Provenance::new(&program, &flow);
    let live = Liveness::new(&program, &flow);
    let insts = &program.instructions;
    let line_of = |i: usize| insts[i].line;
    let nb = flow.blocks.len();
    let mut notes = Vec::new();

    // Label leaders split blocks further than the flow does, so reports keep the names people
    // see in the source; the flow's blocks are what the EXEC analysis reads.
    let mut bounds_at: Vec<usize> = (0..nb).map(|b| flow.blocks[b].start).collect();
    for &pc in program.labels.values() {
        if let Some(i) = program.index_of(pc) {
            bounds_at.push(i);
        }
    }
    bounds_at.sort_unstable();
    bounds_at.dedup();

    // Loops, divergent when an exit or back edge is taken on EXEC.
    let is_exec_branch = |b: usize| {
        matches!(
            insts[flow.last(b)].item.opcode,
            Opcode::SCbranchExecz | Opcode::SCbranchExecnz
        )
    };
    let loop_divergent: Vec<bool> = flow
        .loops
        .iter()
        .map(|l| {
            l.exits.iter().any(|&(b, _)| is_exec_branch(b))
                || l.latches.iter().any(|&b| is_exec_branch(b))
        })
        .collect();

    // Divergent branches: a forward EXEC branch whose successors stay in its loop.
    let mut candidates = Vec::new();
    for b in (0..nb).filter(|&b| flow.reachable[b]) {
        let last = flow.last(b);
        let op = insts[last].item.opcode;
        if !matches!(op, Opcode::SCbranchExecz | Opcode::SCbranchExecnz) {
            continue;
        }
        let (mut taken, mut fall) = (None, None);
        for e in &flow.succ[b] {
            match e.kind {
                crate::flow::EdgeKind::Taken => taken = Some(e.to),
                crate::flow::EdgeKind::FallThrough => fall = Some(e.to),
            }
        }
        let (Some(taken), Some(fall)) = (taken, fall) else {
            continue;
        };
        let (then_succ, skip_succ) = if op == Opcode::SCbranchExecz {
            (fall, taken)
        } else {
            (taken, fall)
        };
        let in_loop = |t: usize| {
            !flow.is_back_edge(b, t)
                && flow
                    .loop_of(b)
                    .is_none_or(|l| flow.loops[l].body.binary_search(&t).is_ok())
        };
        if !(in_loop(then_succ) && in_loop(skip_succ)) {
            continue;
        }
        candidates.push(Candidate {
            block: b,
            then_succ,
            skip_succ,
        });
    }

    // Regions.
    struct Found {
        block: usize,
        mask: Operand,
        flip: Option<usize>,
        join: usize,
        restore: Option<usize>,
        merge_at: MergeAt,
        path1: Vec<usize>,
        path2: Vec<usize>,
        unsplittable: Option<Unsplittable>,
    }
    let reach_without = |from: usize, stops: &[usize]| -> Vec<usize> {
        let mut seen = vec![false; nb];
        let mut work = vec![from];
        let mut out = Vec::new();
        while let Some(x) = work.pop() {
            if stops.contains(&x) || std::mem::replace(&mut seen[x], true) {
                continue;
            }
            out.push(x);
            work.extend(flow.succ[x].iter().map(|e| e.to));
        }
        out.sort_unstable();
        out
    };
    let mut found: Vec<Found> = Vec::new();
    for c in &candidates {
        let b = c.block;
        let last = flow.last(b);
        let shape_note = |msg: String| Note {
            line: line_of(last),
            message: msg,
        };
        let narrow = match exec_change(&program, &flow, &prov, b) {
            ExecChange::Write { inst } => inst,
            ExecChange::Flip(_) => continue,
            ExecChange::None => {
                notes.push(shape_note(format!(
                    "{} does not follow an EXEC write in its block (expected the if's s_and_saveexec_b64 or s_and_b64 exec, exec, ...); it stays an ordinary branch and cannot split",
                    insts[last].item.opcode.mnemonic()
                )));
                continue;
            }
        };
        let t = c.skip_succ;
        if flow.ipdom(b) != Some(t) {
            notes.push(shape_note(format!(
                "the divergent branch's skip target (line {}) is not where its paths meet (not a single-entry, single-exit if region, e.g. a join LLVM duplicated into both paths); it stays an ordinary branch and cannot split",
                line_of(flow.blocks[t].start)
            )));
            continue;
        }
        let created = flow.blocks[b].clone();
        let flip = match exec_change(&program, &flow, &prov, t) {
            ExecChange::Flip(f) if f.input.is_some_and(|o| created.contains(&o)) => Some(f),
            _ => None,
        };
        let (join, path2) = match flip {
            Some(_) => {
                let tl = flow.last(t);
                let op = insts[tl].item.opcode;
                let skip = flow.succ[t].iter().find(|e| {
                    (op == Opcode::SCbranchExecz) == (e.kind == crate::flow::EdgeKind::Taken)
                });
                let then2 = flow.succ[t].iter().find(|e| {
                    (op == Opcode::SCbranchExecz) == (e.kind == crate::flow::EdgeKind::FallThrough)
                });
                match (
                    matches!(op, Opcode::SCbranchExecz | Opcode::SCbranchExecnz),
                    skip,
                    then2,
                ) {
                    (true, Some(j), Some(p2)) if flow.ipdom(t) == Some(j.to) => {
                        (j.to, reach_without(p2.to, &[t, j.to]))
                    }
                    _ => {
                        notes.push(shape_note(format!(
                            "the else at line {} does not end in a branch over its path to the join; the if stays an ordinary branch and cannot split",
                            line_of(flow.blocks[t].start)
                        )));
                        continue;
                    }
                }
            }
            None => (t, Vec::new()),
        };
        let path1 = reach_without(c.then_succ, &[b, t]);
        let region_blocks = path1.iter().chain(&path2).chain(flip.map(|_| &t));
        if let Some(&x) = region_blocks.clone().find(|&&x| !flow.dominates(b, x)) {
            notes.push(shape_note(format!(
                "control enters the divergent region at line {} from outside; the if stays an ordinary branch and cannot split",
                line_of(flow.blocks[x].start)
            )));
            continue;
        }
        let restore_from = match flip {
            Some(_) => flow.blocks[t].clone(),
            None => created.clone(),
        };
        let restore = find_restore(&program, &flow, &prov, join, restore_from);
        let merge_at = match restore {
            Some(r) => MergeAt::After(r),
            None => MergeAt::Before(flow.blocks[join].start),
        };
        let prefix = flow.blocks[join].start..merge_at.gap().min(flow.blocks[join].end);
        let in_region = region_blocks
            .clone()
            .flat_map(|&x| flow.blocks[x].clone())
            .chain(prefix.clone());
        let barrier = in_region
            .clone()
            .find(|&i| insts[i].item.opcode == Opcode::SBarrier);
        let divergent_loop = flow
            .loops_around(b)
            .find(|&l| loop_divergent[l])
            .map(|l| line_of(flow.blocks[flow.loops[l].header].start));
        let unsplittable = if let Some(header_line) = divergent_loop {
            Some(Unsplittable::DivergentLoop { header_line })
        } else if let Some(i) = barrier {
            Some(Unsplittable::Barrier { line: line_of(i) })
        } else {
            let hazards = split_hazards(
                &program,
                &flow,
                &live,
                &Region {
                    path1: &path1,
                    flip: flip.map(|_| t),
                    path2: &path2,
                    join_prefix: prefix,
                    merge_after: match merge_at {
                        MergeAt::After(i) => Some(i),
                        MergeAt::Before(_) => None,
                    },
                },
            );
            (!hazards.is_empty()).then_some(Unsplittable::Hazards(hazards))
        };
        found.push(Found {
            block: b,
            mask: split_mask(&program, narrow, last),
            flip: flip.map(|_| t),
            join,
            restore,
            merge_at,
            path1,
            path2,
            unsplittable,
        });
    }

    // Merges at one place pair with splits by nesting: inner regions' merges come first.
    found.sort_by_key(|f| f.path1.len() + f.path2.len());
    let mut gap_of: Vec<MergeAt> = found.iter().map(|f| f.merge_at).collect();
    for k in 0..found.len() {
        for inner in 0..k {
            let contains = |f: &Found, x: usize| {
                f.path1.binary_search(&x).is_ok()
                    || f.path2.binary_search(&x).is_ok()
                    || f.flip == Some(x)
                    || f.block == x
            };
            if contains(&found[k], found[inner].block)
                && found[inner].join == found[k].join
                && gap_of[inner].gap() > gap_of[k].gap()
            {
                gap_of[k] = gap_of[inner];
            }
        }
    }

    // CFG nodes: the reachable parts of the flow's blocks, split at labels.
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut node_of_block = vec![usize::MAX; nb];
    let mut node_at: HashMap<usize, usize> = HashMap::new();
    for b in (0..nb).filter(|&b| flow.reachable[b]) {
        node_of_block[b] = ranges.len();
        let r = flow.blocks[b].clone();
        let cuts: Vec<usize> = bounds_at
            .iter()
            .copied()
            .filter(|&s| s > r.start && s < r.end)
            .collect();
        let mut s = r.start;
        for c in cuts.into_iter().chain([r.end]) {
            node_at.insert(s, ranges.len());
            ranges.push(s..c);
            s = c;
        }
    }
    let first_node = |b: usize| node_of_block[b];
    let last_node = |b: usize| node_at[&flow.blocks[b].start] + {
        let r = &flow.blocks[b];
        bounds_at
            .iter()
            .filter(|&&s| s > r.start && s < r.end)
            .count()
    };
    let dead: Vec<usize> = (0..nb).filter(|&b| !flow.reachable[b]).collect();
    if let Some(&b) = dead.first() {
        notes.push(Note {
            line: line_of(flow.blocks[b].start),
            message: format!(
                "{} instruction(s) cannot be reached from the kernel's entry; they are not analysed",
                dead.iter().map(|&b| flow.blocks[b].len()).sum::<usize>()
            ),
        });
    }
    let mut blocks: Vec<Block> = ranges
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
                line: None,
            }
        })
        .collect();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for b in (0..nb).filter(|&b| flow.reachable[b]) {
        for n in first_node(b)..last_node(b) {
            edges.push((n, n + 1));
        }
        for e in &flow.succ[b] {
            edges.push((last_node(b), first_node(e.to)));
        }
    }

    // Branch and BSB roles, with virtual nodes, inner regions first.
    let mut ifs = Vec::new();
    for (k, f) in found.iter().enumerate() {
        let u = last_node(f.block);
        let join = first_node(f.join);
        let then1 = flow.succ[f.block]
            .iter()
            .map(|e| first_node(e.to))
            .find(|&x| x != join && Some(x) != f.flip.map(first_node))
            .expect("a region's branch has a then-path");
        let mut region: Vec<usize> = match f.flip {
            Some(t) => {
                let bsb = first_node(t);
                blocks[bsb].kind = BlockKind::Bsb;
                let then2 = edges
                    .iter()
                    .find(|e| e.0 == last_node(t) && e.1 != join)
                    .map(|e| e.1);
                let mut r = reachable_nodes(&edges, then1, &[u, bsb]);
                r.extend(first_node(t)..=last_node(t));
                if let Some(p) = then2 {
                    r.extend(reachable_nodes(&edges, p, &[join]));
                }
                r
            }
            None => {
                let mut r = reachable_nodes(&edges, then1, &[u, join]);
                let bsb = add_virtual(&mut blocks, u, "bsb", BlockKind::Bsb);
                let empty = add_virtual(&mut blocks, u, "else", BlockKind::Block);
                for e in edges
                    .iter_mut()
                    .filter(|e| e.1 == join && (e.0 == u || r.contains(&e.0)))
                {
                    e.1 = bsb;
                }
                edges.extend([(bsb, empty), (bsb, join), (empty, join)]);
                r.extend([bsb, empty]);
                r
            }
        };
        region.sort_unstable();
        blocks[u].kind = BlockKind::Branch;
        // A join also reached from outside the region gets a private virtual join.
        if edges
            .iter()
            .any(|e| e.1 == join && e.0 != u && region.binary_search(&e.0).is_err())
        {
            let vj = add_virtual(&mut blocks, u, "join", BlockKind::Block);
            for e in edges
                .iter_mut()
                .filter(|e| e.1 == join && region.binary_search(&e.0).is_ok())
            {
                e.1 = vj;
            }
            edges.push((vj, join));
        }
        let cbranch = flow.last(f.block);
        let split = (cbranch > flow.blocks[f.block].start
            && insts[cbranch - 1].item.opcode == Opcode::Split)
            .then_some(cbranch - 1);
        ifs.push(IfBranch {
            node: u,
            cbranch,
            flip: f.flip.map(first_node),
            join,
            mask: f.mask,
            restore: f.restore,
            merge_at: gap_of[k],
            split,
            merge: None,
            marker: false,
            unsplittable: f.unsplittable.clone(),
        });
    }
    let virtual_ranges = vec![0..0; blocks.len() - ranges.len()];

    // Existing merges: consecutive `merge`s at a gap pair with the regions there, inner first.
    let mut at_gap: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, b) in ifs.iter().enumerate() {
        at_gap.entry(b.merge_at.gap()).or_default().push(k);
    }
    for (gap, ks) in at_gap {
        for (j, k) in ks.into_iter().enumerate() {
            let i = gap + j;
            if i < insts.len() && insts[i].item.opcode == Opcode::Merge {
                ifs[k].merge = Some(i);
            }
        }
    }

    // Loops.
    let loops: Vec<KernelLoop> = flow
        .loops
        .iter()
        .zip(&loop_divergent)
        .map(|(l, &divergent)| KernelLoop {
            header: first_node(l.header),
            line: line_of(flow.blocks[l.header].start),
            divergent,
        })
        .collect();

    let anchors = Anchors::new(source, &program);
    for (line, ann) in annotations(source, file)? {
        let next = anchors.of(line);
        let warn = |msg: &str| Note {
            line: line as u32,
            message: msg.to_string(),
        };
        match ann {
            Annotation::Split => {
                let hit = next.and_then(|i| {
                    let b = flow.block_of(i);
                    ifs.iter_mut()
                        .find(|x| flow.block_of(x.cbranch) == b && x.cbranch >= i)
                });
                match hit {
                    Some(x) => x.marker = true,
                    None => notes.push(warn(
                        "'pws: split' is not followed by a divergent if in its block (the compiler may have made it straight-line code); it marks nothing",
                    )),
                }
            }
            Annotation::LoopBound(bound) => {
                let at = next.map(|i| flow.block_of(i));
                match at.and_then(|b| flow.loop_of(b).map(|l| (b, l))) {
                    Some((b, l)) => match header_bound(&flow, l, b, bound) {
                        // The largest bound in a loop wins: an annotation of an inner loop
                        // clang unrolled lands in the enclosing loop's body, where it bounds
                        // nothing, and the loop's own annotation is always inside it.
                        Some(n) => {
                            let h = &mut blocks[first_node(flow.loops[l].header)].loop_bound;
                            *h = Some(h.map_or(n, |b| b.max(n)));
                        }
                        None => notes.push(warn(
                            "'pws: loop_bound' is not on the path of every iteration of its loop (put it at the start of the loop body); it bounds nothing",
                        )),
                    },
                    None => notes.push(warn(
                        "'pws: loop_bound' is not inside a loop (the compiler may have unrolled it); it bounds nothing",
                    )),
                }
            }
        }
    }
    let if_splits: Vec<usize> = ifs.iter().filter_map(|b| b.split).collect();
    let stray_splits = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Split && !if_splits.contains(&i))
        .filter(|&i| flow.reachable[flow.block_of(i)])
        .collect();
    let merges = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Merge)
        .filter(|&i| flow.reachable[flow.block_of(i)])
        .collect();
    for b in &ifs {
        blocks[b.node].split = b.unsplittable.is_none() && (b.split.is_some() || b.marker);
    }
    let mut all_ranges = ranges;
    all_ranges.extend(virtual_ranges);
    edges.sort_unstable();
    edges.dedup();
    notes.sort_by_key(|n| n.line);
    Ok(Kernel {
        cfg: Cfg {
            blocks,
            edges,
            entry: 0,
        },
        program,
        flow,
        ranges: all_ranges,
        ifs,
        loops,
        stray_splits,
        merges,
        notes,
    })
}

/// The split mask for an `if` whose EXEC narrowing is instruction `narrow` and whose branch is
/// `branch`: the condition C of `s_and_saveexec_b64 S, C` or `s_and_b64 exec, exec, C`
/// (EXEC = EXEC & C, so C holds the then-lanes) when nothing in between overwrites it, else
/// EXEC.
fn split_mask(program: &Program, narrow: usize, branch: usize) -> Operand {
    let insts = &program.instructions;
    let x = &insts[narrow].item;
    let cond = match x.opcode {
        Opcode::SAndSaveexecB64 => x.src(0),
        Opcode::SAndB64 if x.dst == Some(Operand::ExecLo) => match (x.src(0), x.src(1)) {
            (Some(Operand::ExecLo), c) | (c, Some(Operand::ExecLo)) => c,
            _ => None,
        },
        _ => None,
    };
    let Some(c) = cond.filter(|c| matches!(c, Operand::Sgpr(n) if n % 2 == 0) || *c == Operand::VccLo)
    else {
        return Operand::ExecLo;
    };
    let regs: Vec<_> = crate::scalar::registers(c, 2).collect();
    let clobbered = (narrow..branch).any(|i| {
        let d = crate::scalar::effects(&insts[i].item).defs;
        regs.iter().any(|&r| d.contains(r))
    });
    if clobbered {
        Operand::ExecLo
    } else {
        c
    }
}

/// The header bound that `; pws: loop_bound n` in block `at` of loop `l` gives: the annotation
/// counts the executions of its own block, at most n per entry into the loop. When `at` is on
/// every iteration's path (it dominates every latch), the header runs as often, plus one when
/// the loop can leave between the header and `at` (a test at the top of the loop, which runs
/// once more than the body). Elsewhere it bounds nothing.
fn header_bound(flow: &Flow, l: usize, at: usize, n: u64) -> Option<u64> {
    let lp = &flow.loops[l];
    if !lp.latches.iter().all(|&x| flow.dominates(at, x)) {
        return None;
    }
    let mut seen = vec![false; flow.blocks.len()];
    let mut work = vec![lp.header];
    let mut exits_first = false;
    while let Some(x) = work.pop() {
        if x == at || std::mem::replace(&mut seen[x], true) {
            continue;
        }
        exits_first |= lp.exits.iter().any(|&(from, _)| from == x);
        work.extend(
            flow.forward_succ(x)
                .filter(|t| lp.body.binary_search(t).is_ok()),
        );
    }
    Some(n + u64::from(exits_first))
}

/// Nodes reachable from `from` over `edges` without entering `stops`.
fn reachable_nodes(edges: &[(usize, usize)], from: usize, stops: &[usize]) -> Vec<usize> {
    let mut succ: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b) in edges {
        succ.entry(a).or_default().push(b);
    }
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![from];
    while let Some(x) = work.pop() {
        if stops.contains(&x) || !seen.insert(x) {
            continue;
        }
        work.extend(succ.get(&x).into_iter().flatten().copied());
    }
    seen.into_iter().collect()
}

/// A zero-cost node named after branch `u`.
fn add_virtual(blocks: &mut Vec<Block>, u: usize, suffix: &str, kind: BlockKind) -> usize {
    blocks.push(Block {
        name: format!("{}.{suffix}", blocks[u].name),
        wcet: 0,
        kind,
        split: false,
        loop_bound: None,
        line: None,
    });
    blocks.len() - 1
}

impl Kernel {
    /// Applies bounds given outside the source to the loops that have none.
    pub fn bound_loops(&mut self, bounds: &LoopBounds) {
        for l in &self.loops {
            let block = &mut self.cfg.blocks[l.header];
            if block.loop_bound.is_none() {
                block.loop_bound = bounds.by_label.get(&block.name).copied().or(bounds.default);
            }
        }
    }

    /// The source line of CFG node `v`'s first instruction (virtual nodes have none).
    pub fn line(&self, v: usize) -> Option<u32> {
        let r = &self.ranges[v];
        (!r.is_empty()).then(|| self.program.instructions[r.start].line)
    }
}
