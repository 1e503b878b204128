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
//!   the annotation of an inner loop it unrolled in the enclosing loop's body), and a bound
//!   proved from the loop's counter beats it either way ([`trip_count`]).

mod amortize;
mod annotations;
mod bsb;
mod c_loops;
mod exec_sets;
mod exit_mask;
pub mod fold;
mod lane_count;
mod lane_ranges;
pub mod launch_values;
pub mod lds_banks;
mod line_table;
mod never_entered;
mod regions;
pub mod skips;
pub mod trip_count;

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use pws_isa::{assemble, Opcode, Operand, Program};

pub use annotations::has_split_marker;

use crate::cfg::Cfg;
use crate::error::{HostError, Result};
use crate::flow::Flow;
use crate::liveness::Hazard;
use crate::timing::TimingTable;
use launch_values::LaunchValues;

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
    /// Flow blocks ([`Kernel::flow`]) of the then-path and of the else-path (empty for an `if`
    /// without `else`), sorted; neither holds the branch, the else-flip or the join.
    pub paths: [Vec<usize>; 2],
}

/// What keeps a divergent `if` from splitting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsplittable {
    /// Inside a loop whose exit is divergent: a split wavefront would iterate on its own.
    DivergentLoop { header_line: u32 },
    /// An `s_barrier` between the split and the merge.
    Barrier { line: u32 },
    /// A `v_readlane_b32` or `v_writelane_b32` between the split and the merge: it addresses
    /// a lane whatever the split mask is, so it could read or write the other half's lanes
    /// while that half runs.
    LaneAccess { line: u32, opcode: pws_isa::Opcode },
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
            Unsplittable::LaneAccess { line, opcode } => write!(
                f,
                "its divergent region holds `{opcode}` (line {line}), which addresses a lane whatever the split mask is: run in parallel, one half could read or write the other half's lanes"
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
    /// Its bound was proved from its counter ([`trip_count`]), not annotated: how, as the
    /// note says it.
    pub inferred: Option<String>,
    /// A marker of its annotation appears more than once in it: clang unrolled the loop the
    /// annotation came from, which may be an inner loop unrolled whole into this one (the note
    /// of a proved bound above the annotation says so).
    pub copied_annotation: bool,
    /// Markers in it that came from an inner loop clang removed, which bound nothing here,
    /// with the assembly line of each (as the note says it).
    pub removed_markers: Vec<Note>,
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

/// Assembles `source` and extracts its BSB CFG; block WCETs come from `table`.
pub fn extract(source: &str, file: &str, table: &TimingTable) -> Result<Kernel> {
    let program = assemble(source, file).map_err(|e| HostError::Input(e.to_string()))?;
    extract_program(source, file, table, program)
}

/// A skip branch [`extract_restoring`] put back: in the kernel it returns, and in `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub side: skips::Side,
    /// Instruction index of the `s_cbranch_execz` in the kernel's program.
    pub branch: usize,
    /// Instruction index of the one it skips to.
    pub target: usize,
    /// The source lines the branch and its label go before: those of the first instruction it
    /// skips (whose line it carries) and of its target.
    pub at_line: u32,
    pub target_line: u32,
    pub label: String,
}

impl Restored {
    /// The branch's line of assembly.
    pub fn branch_text(&self) -> String {
        match self.side {
            skips::Side::FlipCopy => format!("s_branch {}", self.label),
            skips::Side::Then | skips::Side::Else => format!("s_cbranch_execz {}", self.label),
        }
    }
}

/// [`extract`] of `source` with the skip branches LLVM removed put back ([`skips`]), for the
/// split pass: an `if`/`else` whose sides lost their branches becomes the region it was. The
/// inserted branch carries the line of the first instruction it skips, so every line the kernel
/// reports is a line of `source`.
pub fn extract_restoring(
    source: &str,
    file: &str,
    table: &TimingTable,
) -> Result<(Kernel, Vec<Restored>)> {
    let program = assemble(source, file).map_err(|e| HostError::Input(e.to_string()))?;
    let found = {
        let flow = Flow::new(&program, file)?;
        skips::find(&program, &flow)
    };
    if found.is_empty() {
        return Ok((extract_program(source, file, table, program)?, Vec::new()));
    }
    let insts = &program.instructions;
    let mut fresh = 0usize;
    let mut restored = Vec::with_capacity(found.len());
    for s in &found {
        let label = loop {
            let l = format!(".Lpws_skip{fresh}");
            fresh += 1;
            if !program.labels.contains_key(&l) {
                break l;
            }
        };
        // Each restored branch before an instruction moves it down by one (`found` is in
        // program order).
        let shift = |i: usize, strictly: bool| {
            found.partition_point(|o| if strictly { o.at < i } else { o.at <= i })
        };
        restored.push(Restored {
            side: s.side,
            branch: s.at + shift(s.at, true),
            target: s.target + shift(s.target, false),
            at_line: insts[s.at].line,
            target_line: insts[s.target].line,
            label,
        });
    }
    // What goes before each source line: the labels of the branches' targets, then the
    // branches, each in the order of `restored`.
    let mut before: HashMap<u32, Vec<String>> = HashMap::new();
    for r in &restored {
        before
            .entry(r.target_line)
            .or_default()
            .push(format!("{}:", r.label));
    }
    for r in &restored {
        before.entry(r.at_line).or_default().push(r.branch_text());
    }
    let mut lines: Vec<(u32, std::borrow::Cow<'_, str>)> = Vec::new();
    for (k, text) in source.lines().enumerate() {
        let n = k as u32 + 1;
        for inserted in before.remove(&n).into_iter().flatten() {
            lines.push((n, inserted.into()));
        }
        lines.push((n, text.into()));
    }
    let program = pws_isa::assemble_lines(lines.iter().map(|(n, t)| (*n, t.as_ref())), file)
        .map_err(|e| HostError::Input(format!("{file}: restoring skip branches: {e}")))?;
    debug_assert!(restored.iter().all(|r| matches!(
        program.instructions[r.branch].item.opcode,
        Opcode::SCbranchExecz | Opcode::SBranch
    )));
    Ok((extract_program(source, file, table, program)?, restored))
}

/// [`extract`] of an assembled `source`.
fn extract_program(
    source: &str,
    file: &str,
    table: &TimingTable,
    program: Program,
) -> Result<Kernel> {
    // The timing contract has no rows for what the compute unit does not implement.
    if let Some(l) = program
        .instructions
        .iter()
        .find(|l| pws_isa::subset::golden_only(l.item.opcode))
    {
        return Err(HostError::Input(format!(
            "{file}:{}: `{}`: no timing contract for {} yet (the compute-unit RTL does not implement it), so no WCET bound",
            l.line, l.item, l.item.opcode
        )));
    }
    let flow = Flow::new(&program, file)?;
    let insts = &program.instructions;
    let mut notes = Vec::new();
    let divergent = regions::divergent_loops(&program, &flow);
    let found = regions::find(&program, &flow, &divergent, &mut notes);
    let mut bsb = bsb::Builder::new(&program, &flow, table);
    notes.extend(bsb.dead_code(&program));
    let mut ifs: Vec<IfBranch> = found.iter().map(|r| bsb.add_region(&program, r)).collect();

    // Existing merges: consecutive `merge`s at one place pair with the regions there that
    // have a `split`, inner first (a region without one owns no merge, even when it ends at
    // the same join as one that splits).
    let mut at_gap: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, b) in ifs.iter().enumerate().filter(|(_, b)| b.split.is_some()) {
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

    let mut loops: Vec<KernelLoop> = flow
        .loops
        .iter()
        .zip(&divergent)
        .map(|(l, &divergent)| KernelLoop {
            header: bsb.node_of(l.header),
            line: insts[flow.blocks[l.header].start].line,
            divergent,
            inferred: None,
            copied_annotation: false,
            removed_markers: Vec::new(),
        })
        .collect();
    let first: Vec<usize> = (0..flow.blocks.len()).map(|b| bsb.node_of(b)).collect();
    let lines = line_table::LineTable::new(source);
    let applied = annotations::apply(
        source,
        &lines,
        file,
        &program,
        &flow,
        |b| first[b],
        &mut bsb.blocks,
        &mut ifs,
        &mut notes,
    )?;
    for l in applied.copied {
        loops[l].copied_annotation = true;
    }
    for (l, note) in applied.removed {
        loops[l].removed_markers.push(note);
    }
    for (l, kl) in loops.iter().enumerate() {
        bsb.blocks[kl.header].source = annotations::loop_statement(&lines, &program, &flow, l);
    }
    // Every loop, annotated or not: an annotation counts the source's iterations, which a
    // header clang unrolled runs fewer times, and both bound the loop.
    notes.extend(infer_loop_bounds(
        &program,
        &flow,
        &mut loops,
        &mut bsb.blocks,
        &LaunchValues::none(),
    ));
    for b in &ifs {
        bsb.blocks[b.node].split = b.unsplittable.is_none() && (b.split.is_some() || b.marker);
    }
    let reachable = |i: &usize| flow.reachable[flow.block_of(*i)];
    let if_splits: Vec<usize> = ifs.iter().filter_map(|b| b.split).collect();
    let stray_splits = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Split && !if_splits.contains(&i))
        .filter(reachable)
        .collect();
    let merges = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Merge)
        .filter(reachable)
        .collect();
    notes.sort_by_key(|n| n.line);
    let (cfg, ranges) = bsb.finish();
    Ok(Kernel {
        cfg,
        program,
        flow,
        ranges,
        ifs,
        loops,
        stray_splits,
        merges,
        notes,
    })
}

/// Bounds every loop whose counter [`trip_count`] can run with what `launch` fixes, where they
/// are below the bound a loop has (its header's in `blocks`); the notes say which.
fn infer_loop_bounds(
    program: &Program,
    flow: &Flow,
    loops: &mut [KernelLoop],
    blocks: &mut [crate::cfg::Block],
    launch: &LaunchValues,
) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut budget = trip_count::Budget::default();
    let for_launch = &launch.phrase;
    let mut counters = trip_count::Counters::new(program, flow, launch);
    for (l, kl) in loops.iter_mut().enumerate() {
        let Some(count) = counters.count(l, &mut budget) else {
            continue;
        };
        let trips = count.bound();
        let bound = &mut blocks[kl.header].loop_bound;
        // A proof beats an annotation either way: a marker in this loop may be an inner
        // loop's that clang unrolled whole or removed (a loop of one trip leaves its body, and
        // the marker, in the enclosing loop), so it bounds this loop only where it is below
        // what the counter proves, and then the proof is below it too. An earlier proof (from
        // the kernel's constants) gives way only to a smaller one.
        let below = match *bound {
            Some(b) if b == trips => continue,
            Some(b) if kl.inferred.is_some() && b < trips => continue,
            Some(b) if kl.inferred.is_some() => format!(", below the {b} from constants"),
            Some(b) if b < trips && kl.copied_annotation => {
                format!(", above the {b} of an annotation clang copied (it may be an inner loop's)")
            }
            Some(b) if b < trips => format!(
                ", above the annotation's {b} (its marker may be an inner loop's that clang unrolled or removed; a smaller bound by label in the manifest is taken)"
            ),
            Some(b) => format!(", below the annotation's {b}"),
            None => String::new(),
        };
        *bound = Some(trips);
        let message = match count {
            trip_count::LoopCount::Scalar(c) => match c.over {
                None => format!(
                    "loop bound {trips} inferred{for_launch}{below}: s{} counts from {} {} to the exit test",
                    c.sgpr, c.init as i32, c.step
                ),
                Some(o) if c.average < c.trips => format!(
                    "loop bound {trips} inferred{for_launch}{below}: s{} counts {} to the exit test, at most {} trips and {trips} on average per entry over the values s{o} takes in the enclosing loop",
                    c.sgpr, c.step, c.trips
                ),
                Some(o) => format!(
                    "loop bound {trips} inferred{for_launch}{below}: s{} counts {} to the exit test, the most trips over the values s{o} takes in the enclosing loop",
                    c.sgpr, c.step
                ),
            },
            trip_count::LoopCount::NeverEntered { guard } => format!(
                "loop bound {trips} inferred{for_launch}{below}: the loop is never entered (the branch at line {} goes around it)",
                program.instructions[guard].line
            ),
            trip_count::LoopCount::Lane(c) => match (c.scalar, c.from) {
                (None, Some((x, k))) => format!(
                    "loop bound {trips} inferred{for_launch}{below}: each lane's v{} counts from its start, v{x} {} {} with v{x} in {}..={}, {} to its exit test (the most trips of any lane)",
                    c.vgpr,
                    if k < 0 { '-' } else { '+' },
                    k.unsigned_abs(),
                    c.start.0,
                    c.start.1,
                    c.step
                ),
                (None, None) => format!(
                    "loop bound {trips} inferred{for_launch}{below}: each lane's v{} counts from its start in {}..={} {} to its exit test (the most trips of any lane)",
                    c.vgpr, c.start.0, c.start.1, c.step
                ),
                (Some((s, init)), _) => format!(
                    "loop bound {trips} inferred{for_launch}{below}: s{s} counts from {} {} to each lane's exit test against its v{} in {}..={} (the most trips of any lane)",
                    init as i32, c.step, c.vgpr, c.start.0, c.start.1
                ),
            },
        };
        kl.inferred = Some(message.clone());
        notes.push(Note {
            line: kl.line,
            message,
        });
    }
    notes
}

impl Kernel {
    /// The bounds of one launch: first those [`trip_count`] proves with the values `launch`
    /// fixes (a loop bounded by a kernel argument or the workgroup size), with a note each;
    /// then those given outside the source: a bound by label to a loop that has no annotation
    /// (the smaller of it and an inferred one: both bound the loop), the default to a loop that
    /// has no bound at all.
    pub fn bound_loops(&mut self, launch: &LaunchValues, bounds: &LoopBounds) {
        let notes = infer_loop_bounds(
            &self.program,
            &self.flow,
            &mut self.loops,
            &mut self.cfg.blocks,
            launch,
        );
        for l in &self.loops {
            let block = &mut self.cfg.blocks[l.header];
            let by_label = bounds.by_label.get(&block.name).copied();
            block.loop_bound = match (block.loop_bound, by_label) {
                (None, _) => by_label.or(bounds.default),
                (Some(inferred), Some(b)) if l.inferred.is_some() => Some(b.min(inferred)),
                (bound, _) => bound,
            };
        }
        self.notes.extend(notes);
        self.notes.sort_by_key(|n| n.line);
    }

    /// A note for every loop bounded from its counter, `file:line (the loop at k.cl:4:3): how`,
    /// and for every marker of a removed inner loop that a loop holds (`file:line: why it
    /// bounds nothing`).
    pub fn loop_notes(&self, file: &str) -> Vec<String> {
        self.loops
            .iter()
            .flat_map(|l| {
                let inferred =
                    l.inferred
                        .as_ref()
                        .map(|n| match &self.cfg.blocks[l.header].source {
                            Some(at) => format!("{file}:{} (the loop at {at}): {n}", l.line),
                            None => format!("{file}:{}: {n}", l.line),
                        });
                let removed = (l.removed_markers.iter())
                    .map(move |n| format!("{file}:{}: {}", n.line, n.message));
                removed.chain(inferred)
            })
            .collect()
    }

    /// The source line of CFG node `v`'s first instruction (virtual nodes have none).
    pub fn line(&self, v: usize) -> Option<u32> {
        let r = &self.ranges[v];
        (!r.is_empty()).then(|| self.program.instructions[r.start].line)
    }
}
