//! Predictable wavefront splitting at the ISA level: `split` and `merge` over the contexts of
//! one wavefront, exactly as design.md decisions 3 and 4 fix them (PWS paper §4.1, Fig 5).
//!
//! - `split sA, sB` with M = sB:sA: the context C keeps SpM & M; a free SwfContext gets
//!   SpM & !M, a copy of C's scalar registers (EXEC included) and the next PC; its parent is C
//!   and C's child stack pushes it. An empty side, a full child stack or no free SwfContext
//!   push a no-op marker instead (the wavefront then serialises both paths, always correct).
//! - `merge`: a no-op marker on top pops and continues; a child on top makes the context wait
//!   for that child; an empty stack makes it wait for its parent (whose top must be it); a
//!   context with neither continues. When parent and child both wait, the parent takes
//!   SpM |= child SpM, EXEC |= child EXEC, pops, and the child context is freed.

use serde::Serialize;

use super::machine::{Context, Status};
use super::watch::Watch;

/// A context's SpSIMDID as in the paper's Fig 5: 1 is the wavefront's SIMD (its WfContext),
/// 2..=S+1 are the SpSIMDs holding its SwfContexts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ContextId(pub u8);

impl ContextId {
    /// The WfContext on the SIMD.
    pub const WF: ContextId = ContextId(1);

    /// Slot of the context in `Wavefront::contexts`.
    pub fn slot(self) -> usize {
        self.0 as usize - 1
    }

    fn from_slot(slot: usize) -> ContextId {
        ContextId(slot as u8 + 1)
    }
}

impl std::fmt::Display for ContextId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One child-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackEntry {
    Child(ContextId),
    /// A split that allocated nothing; its merge pops it and continues.
    Noop,
}

/// A context's child stack: `depth` (= S) entries. Splits nested deeper than that can only
/// be no-ops; they are counted in `overflow` (no-op markers above the full stack), so merges
/// still pair with splits by nesting and the hardware needs only a counter beside the stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildStack {
    entries: Vec<StackEntry>,
    depth: usize,
    overflow: u32,
}

impl ChildStack {
    pub fn new(depth: usize) -> ChildStack {
        ChildStack {
            entries: Vec::with_capacity(depth),
            depth,
            overflow: 0,
        }
    }

    pub fn top(&self) -> Option<StackEntry> {
        if self.overflow > 0 {
            Some(StackEntry::Noop)
        } else {
            self.entries.last().copied()
        }
    }

    pub fn is_full(&self) -> bool {
        self.entries.len() >= self.depth
    }

    pub fn is_empty(&self) -> bool {
        self.top().is_none()
    }

    fn push(&mut self, entry: StackEntry) {
        if self.is_full() {
            self.overflow += 1;
        } else {
            self.entries.push(entry);
        }
    }

    fn pop(&mut self) {
        if self.overflow > 0 {
            self.overflow -= 1;
        } else {
            self.entries.pop();
        }
    }

    /// Entries bottom to top, overflowed no-op markers last.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = StackEntry> + '_ {
        self.entries.iter().copied().chain(std::iter::repeat_n(
            StackEntry::Noop,
            self.overflow as usize,
        ))
    }
}

/// What a `split` or `merge` did; the trace records one event per outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A new SwfContext was allocated.
    Split,
    /// One side was empty: no-op marker.
    NoopSplit,
    /// Both sides had lanes but no SwfContext was free (or the child stack was full): no-op
    /// marker, the wavefront serialises both paths.
    FallbackSplit,
    /// The context reached `merge` and waits for its partner.
    MergeWait,
    /// Parent and child merged; the child context is freed.
    Merge,
    /// `merge` popped a no-op marker.
    NoopMerge,
    /// `merge` on a context with an empty stack and no parent: nothing to do.
    UnpairedMerge,
}

/// Result of `split` on one context: the event, the context's SpM after it and, for a real
/// split, the new context and its SpM.
pub(crate) struct SplitOutcome {
    pub kind: EventKind,
    pub spm: u64,
    pub child: Option<ContextId>,
    pub child_spm: Option<u64>,
}

/// Executes `split` with mask `m` for the context in `slot`; `next_pc` follows the split.
pub(crate) fn split(
    contexts: &mut [Option<Context>],
    slot: usize,
    m: u64,
    next_pc: u32,
) -> SplitOutcome {
    let free = contexts
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, c)| c.is_none())
        .map(|(i, _)| i);
    let Some(c) = contexts[slot].as_mut() else {
        unreachable!("split executed by a free context slot")
    };
    c.pc = next_pc;
    let keep = c.spm & m;
    let give = c.spm & !m;
    let kind = if keep == 0 || give == 0 {
        EventKind::NoopSplit
    } else if c.stack.is_full() || free.is_none() {
        EventKind::FallbackSplit
    } else {
        EventKind::Split
    };
    let (Some(free), EventKind::Split) = (free, kind) else {
        c.stack.push(StackEntry::Noop);
        return SplitOutcome {
            kind,
            spm: c.spm,
            child: None,
            child_spm: None,
        };
    };
    let child_id = ContextId::from_slot(free);
    c.spm = keep;
    c.stack.push(StackEntry::Child(child_id));
    let child = Context {
        id: child_id,
        scalar: c.scalar.clone(),
        pc: next_pc,
        spm: give,
        parent: Some(c.id),
        stack: ChildStack::new(c.stack.depth),
        status: Status::Ready,
        wait_pc: 0,
        watch: Watch::split_child(),
    };
    contexts[free] = Some(child);
    SplitOutcome {
        kind,
        spm: keep,
        child: Some(child_id),
        child_spm: Some(give),
    }
}

/// Executes `merge` for the context `c` at `pc` (4 bytes long): either it continues at once
/// (no-op marker or nothing to pair with) or it starts waiting.
pub(crate) fn merge_arrive(c: &mut Context, pc: u32) -> EventKind {
    match (c.stack.top(), c.parent) {
        (Some(StackEntry::Noop), _) => {
            c.stack.pop();
            c.pc = pc + 4;
            EventKind::NoopMerge
        }
        (Some(StackEntry::Child(_)), _) | (None, Some(_)) => {
            c.status = Status::AtMerge;
            c.wait_pc = pc;
            EventKind::MergeWait
        }
        (None, None) => {
            c.pc = pc + 4;
            EventKind::UnpairedMerge
        }
    }
}

/// A completed merge: the parent (after) and the child's mask it took back.
pub(crate) struct MergeDone {
    pub parent: ContextId,
    pub child: ContextId,
    pub parent_spm: u64,
    pub child_spm: u64,
    pub pc: u32,
}

/// Completes every merge whose parent and child both wait; returns them in parent-id order.
pub(crate) fn resolve_merges(contexts: &mut [Option<Context>]) -> Vec<MergeDone> {
    let mut done = Vec::new();
    for slot in 0..contexts.len() {
        let pair = match &contexts[slot] {
            Some(p) if p.status == Status::AtMerge => match p.stack.top() {
                Some(StackEntry::Child(k)) => contexts[k.slot()]
                    .as_ref()
                    .filter(|c| {
                        c.status == Status::AtMerge && c.stack.is_empty() && c.parent == Some(p.id)
                    })
                    .map(|c| (k, c.spm, c.scalar.exec())),
                _ => None,
            },
            _ => None,
        };
        let Some((child, child_spm, child_exec)) = pair else {
            continue;
        };
        let Some(c) = contexts[child.slot()].take() else {
            continue;
        };
        let Some(p) = contexts[slot].as_mut() else {
            continue;
        };
        p.watch.merge(&p.scalar, &c.watch, &c.scalar, p.wait_pc);
        p.spm |= child_spm;
        p.scalar.set_exec(p.scalar.exec() | child_exec);
        p.stack.pop();
        p.status = Status::Ready;
        p.pc = p.wait_pc + 4;
        done.push(MergeDone {
            parent: p.id,
            child,
            parent_spm: p.spm,
            child_spm,
            pc: p.wait_pc,
        });
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::machine::ScalarFile;

    fn wf(s: usize) -> Vec<Option<Context>> {
        let mut v = vec![None; 1 + s];
        v[0] = Some(Context {
            id: ContextId::WF,
            scalar: ScalarFile::default(),
            pc: 0,
            spm: 0xF,
            parent: None,
            stack: ChildStack::new(s),
            status: Status::Ready,
            wait_pc: 0,
            watch: Watch::default(),
        });
        v
    }

    fn spm(ctx: &[Option<Context>], id: u8) -> Option<u64> {
        ctx[id as usize - 1].as_ref().map(|c| c.spm)
    }

    /// The paper's Fig 5 with its 4 lanes as lanes 0..3 (bit i = lane i): M = 1101 is 0b1101.
    #[test]
    fn figure5_sequence_on_four_lanes() {
        let mut ctx = wf(2);
        let out = split(&mut ctx, 0, 0b1101, 4);
        assert_eq!(
            (out.kind, out.child),
            (EventKind::Split, Some(ContextId(2)))
        );
        assert_eq!((spm(&ctx, 1), spm(&ctx, 2)), (Some(0b1101), Some(0b0010)));
        let out = split(&mut ctx, 0, 0b1100, 8);
        assert_eq!(out.child, Some(ContextId(3)));
        assert_eq!((spm(&ctx, 1), spm(&ctx, 3)), (Some(0b1100), Some(0b0001)));
        assert_eq!(ctx[2].as_ref().unwrap().parent, Some(ContextId::WF));
        // SWF2 runs the second split too: 0010 & 1100 is empty, a no-op marker.
        assert_eq!(split(&mut ctx, 1, 0b1100, 8).kind, EventKind::NoopSplit);
        // First merge: SWF2 pops its marker and goes on to wait for its parent.
        assert_eq!(
            merge_arrive(ctx[1].as_mut().unwrap(), 12),
            EventKind::NoopMerge
        );
        assert_eq!(
            merge_arrive(ctx[1].as_mut().unwrap(), 16),
            EventKind::MergeWait
        );
        assert_eq!(
            merge_arrive(ctx[0].as_mut().unwrap(), 12),
            EventKind::MergeWait
        );
        assert!(
            resolve_merges(&mut ctx).is_empty(),
            "SWF1 waits for SWF3, not SWF2"
        );
        assert_eq!(
            merge_arrive(ctx[2].as_mut().unwrap(), 12),
            EventKind::MergeWait
        );
        let done = resolve_merges(&mut ctx);
        assert_eq!(
            (done[0].parent, done[0].child),
            (ContextId(1), ContextId(3))
        );
        assert_eq!((spm(&ctx, 1), spm(&ctx, 3)), (Some(0b1101), None));
        assert_eq!(ctx[0].as_ref().unwrap().pc, 16);
        assert_eq!(
            merge_arrive(ctx[0].as_mut().unwrap(), 16),
            EventKind::MergeWait
        );
        let done = resolve_merges(&mut ctx);
        assert_eq!(done[0].child, ContextId(2));
        assert_eq!((spm(&ctx, 1), spm(&ctx, 2)), (Some(0b1111), None));
        assert!(ctx[0].as_ref().unwrap().stack.is_empty());
    }

    #[test]
    fn no_free_context_and_full_stack_fall_back() {
        let mut ctx = wf(1);
        assert_eq!(split(&mut ctx, 0, 0b0011, 4).kind, EventKind::Split);
        // Only one SpSIMD: the nested split in the parent finds its stack full.
        assert_eq!(split(&mut ctx, 0, 0b0001, 8).kind, EventKind::FallbackSplit);
        // The child has a free stack slot but no SwfContext is free.
        assert_eq!(split(&mut ctx, 1, 0b0100, 8).kind, EventKind::FallbackSplit);
        let parent = ctx[0].as_ref().unwrap();
        assert_eq!(parent.spm, 0b0011);
        assert_eq!(
            parent.stack.entries().collect::<Vec<_>>(),
            vec![StackEntry::Child(ContextId(2)), StackEntry::Noop]
        );
        assert_eq!(
            merge_arrive(ctx[0].as_mut().unwrap(), 12),
            EventKind::NoopMerge
        );
        assert_eq!(
            merge_arrive(ctx[0].as_mut().unwrap(), 16),
            EventKind::MergeWait
        );
    }

    #[test]
    fn merge_without_stack_or_parent_continues() {
        let mut ctx = wf(2);
        let c = ctx[0].as_mut().unwrap();
        assert_eq!(merge_arrive(c, 20), EventKind::UnpairedMerge);
        assert_eq!((c.pc, c.status), (24, Status::Ready));
    }

    #[test]
    fn merge_ors_exec() {
        let mut ctx = wf(2);
        ctx[0].as_mut().unwrap().scalar.set_exec(0b0011);
        split(&mut ctx, 0, 0b0001, 4);
        ctx[1].as_mut().unwrap().scalar.set_exec(0b1110);
        merge_arrive(ctx[0].as_mut().unwrap(), 8);
        merge_arrive(ctx[1].as_mut().unwrap(), 8);
        resolve_merges(&mut ctx);
        let c = ctx[0].as_ref().unwrap();
        assert_eq!((c.scalar.exec(), c.spm), (0b1111, 0xF));
    }
}
