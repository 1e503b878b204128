//! Monitors of a compute-unit run, fed only by the per-context issue and retire outputs: the
//! per-block and per-instruction maximum cycles, and which instruction each context has in
//! flight (for the deadlock watchdog's report).
//!
//! Blocks are the RTL's straight-line runs: maximal sequences between leaders, which are the
//! entry, branch targets and the instruction after a branch, `s_endpgm`, `split` or `merge`
//! (the same boundaries as `pws_host::timing::rtl_blocks`). A block's time runs from the
//! retire of the context's previous instruction (or, for its first block, the wavefront's
//! launch or the retire of the `split` that created the context) to the retire of the block's
//! last instruction, so scheduling waits are inside it. The time a context spends waiting at
//! `merge` for its partner is in no block (the timing contract leaves it to the partner's
//! path): the block after such a wait starts in the cycle before the context may be picked
//! again. An instruction's time runs from its issue to its retire.

use std::collections::BTreeMap;

use pws_isa::{Opcode, Program};

/// A context of the compute unit: slot j, (Sp)SIMD number k (0: the WF context).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Ctx {
    pub slot: usize,
    pub k: usize,
}

impl std::fmt::Display for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "slot {} context {}", self.slot, self.k)
    }
}

/// The program's RTL blocks ([`Program::block_leaders`]): for each instruction index, the first
/// instruction of its block and whether it ends the block.
#[derive(Debug)]
pub struct Blocks {
    start: Vec<usize>,
    last: Vec<bool>,
}

impl Blocks {
    pub fn of(program: &Program) -> Blocks {
        let leader = program.block_leaders();
        let n = leader.len();
        let start = (0..n)
            .scan(0, |s, i| {
                if leader[i] {
                    *s = i;
                }
                Some(*s)
            })
            .collect();
        let last = (0..n).map(|i| i + 1 >= n || leader[i + 1]).collect();
        Blocks { start, last }
    }

    /// Whether instruction `i` ends its block.
    pub fn ends_block(&self, i: usize) -> bool {
        self.last[i]
    }

    /// First instruction of the block holding instruction `i`.
    pub fn start_of(&self, i: usize) -> usize {
        self.start[i]
    }
}

/// Per-block measurement.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BlockStat {
    /// Byte address of the block's first instruction.
    pub pc: u32,
    pub max_cycles: u64,
    pub executions: u64,
}

/// Per-instruction measurement.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct InstStat {
    pub pc: u32,
    pub max_cycles: u64,
}

/// What one context is doing, as far as its issue/retire outputs tell.
#[derive(Clone, Debug, Default)]
struct CtxState {
    /// Live: launched or created, and not ended.
    live: bool,
    /// Where the current block's time started.
    block_start: Option<u64>,
    /// The instruction in flight: (issue cycle, pc).
    in_flight: Option<(u64, u32)>,
    /// Waiting at `merge` for its partner, in the split/merge datapath's view.
    waiting: bool,
    /// The last retired instruction's cycle.
    last_retire: Option<u64>,
}

/// A context that made no progress, for the watchdog's report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StuckContext {
    pub ctx: Ctx,
    pub pc: u32,
    pub instruction: String,
    pub waits_for: String,
}

impl std::fmt::Display for StuckContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at pc {:#06x} (`{}`): {}",
            self.ctx, self.pc, self.instruction, self.waits_for
        )
    }
}

/// An instruction retired at a PC that is not an instruction start, or by a context that
/// never issued it: the RTL's outputs contradict the program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{ctx} retired pc {pc:#06x} at cycle {cycle}, {why}")]
pub struct MonitorError {
    pub ctx: Ctx,
    pub pc: u32,
    pub cycle: u64,
    pub why: &'static str,
}

/// Block and instruction timing and context tracking of one run.
#[derive(Debug)]
pub struct Monitor<'p> {
    program: &'p Program,
    blocks: Blocks,
    contexts_per_slot: usize,
    ctx: Vec<CtxState>,
    /// Per slot: retire cycle of the last `split` by pc, where a new child starts.
    split_retire: Vec<BTreeMap<u32, u64>>,
    block_stats: BTreeMap<usize, BlockStat>,
    inst_max: Vec<u64>,
    pub retired: u64,
    pub last_retire: u64,
}

impl<'p> Monitor<'p> {
    pub fn new(program: &'p Program, slots: usize, contexts_per_slot: usize) -> Monitor<'p> {
        Monitor {
            program,
            blocks: Blocks::of(program),
            contexts_per_slot,
            ctx: vec![CtxState::default(); slots * contexts_per_slot],
            split_retire: vec![BTreeMap::new(); slots],
            block_stats: BTreeMap::new(),
            inst_max: vec![0; program.instructions.len()],
            retired: 0,
            last_retire: 0,
        }
    }

    fn index(&self, c: Ctx) -> usize {
        c.slot * self.contexts_per_slot + c.k
    }

    /// The wavefront in `slot` was launched at the edge ending cycle `cycle`.
    pub fn launch(&mut self, slot: usize, cycle: u64) {
        for k in 0..self.contexts_per_slot {
            let i = self.index(Ctx { slot, k });
            self.ctx[i] = CtxState::default();
        }
        let i = self.index(Ctx { slot, k: 0 });
        self.ctx[i].live = true;
        self.ctx[i].block_start = Some(cycle);
        self.split_retire[slot].clear();
        self.last_retire = self.last_retire.max(cycle);
    }

    /// Whether `c` waits at `merge` for its partner in `cycle` (the datapath's context state).
    pub fn waiting(&mut self, c: Ctx, waiting: bool, cycle: u64) {
        let i = self.index(c);
        let state = &mut self.ctx[i];
        if state.waiting && !waiting {
            state.block_start = Some(cycle - 1);
        }
        state.waiting = waiting;
    }

    /// `c` issued the instruction at `pc` in `cycle`.
    pub fn issue(&mut self, c: Ctx, pc: u32, cycle: u64) {
        let i = self.index(c);
        // A child's first instruction follows the split that created it; a context that reads
        // as live may have been freed by a merge and created again since.
        let split = pc
            .checked_sub(4)
            .and_then(|p| self.split_retire[c.slot].get(&p).copied());
        let state = &mut self.ctx[i];
        let reborn = c.k > 0 && split.is_some_and(|t| state.last_retire.is_none_or(|r| t > r));
        if !state.live || reborn {
            state.live = true;
            state.block_start = if c.k > 0 {
                split.or(Some(cycle))
            } else {
                state.block_start
            };
        }
        state.in_flight = Some((cycle, pc));
    }

    /// `c` retired the instruction at `pc` in `cycle`.
    pub fn retire(&mut self, c: Ctx, pc: u32, cycle: u64) -> Result<(), MonitorError> {
        let fail = |why| MonitorError {
            ctx: c,
            pc,
            cycle,
            why,
        };
        let index = self
            .program
            .index_of(pc)
            .ok_or(fail("which is not an instruction"))?;
        let i = self.index(c);
        let state = &mut self.ctx[i];
        let (issued, issued_pc) = state
            .in_flight
            .take()
            .ok_or(fail("but had nothing in flight"))?;
        if issued_pc != pc {
            return Err(fail("but had issued a different pc"));
        }
        self.retired += 1;
        self.last_retire = cycle;
        let m = &mut self.inst_max[index];
        *m = (*m).max(cycle - issued + 1);
        state.last_retire = Some(cycle);
        let opcode = self.program.instructions[index].item.opcode;
        if self.blocks.ends_block(index) {
            let start = self.blocks.start_of(index);
            let began = state.block_start.unwrap_or(issued);
            let stat = self.block_stats.entry(start).or_insert_with(|| BlockStat {
                pc: self.program.instructions[start].pc,
                ..BlockStat::default()
            });
            stat.max_cycles = stat.max_cycles.max(cycle - began);
            stat.executions += 1;
            state.block_start = Some(cycle);
        }
        match opcode {
            Opcode::SEndpgm => state.live = false,
            Opcode::Split => {
                self.split_retire[c.slot].insert(pc, cycle);
            }
            _ => {}
        }
        Ok(())
    }

    /// The per-block maxima, in address order.
    pub fn block_stats(&self) -> Vec<BlockStat> {
        self.block_stats.values().cloned().collect()
    }

    /// The per-instruction maxima of the instructions that ran, in address order.
    pub fn inst_stats(&self) -> Vec<InstStat> {
        self.program
            .instructions
            .iter()
            .zip(&self.inst_max)
            .filter(|(_, &m)| m > 0)
            .map(|(l, &m)| InstStat {
                pc: l.pc,
                max_cycles: m,
            })
            .collect()
    }

    /// The cycle context `c`'s instruction in flight was issued in, if it has one.
    pub fn in_flight_since(&self, c: Ctx) -> Option<u64> {
        self.ctx[self.index(c)].in_flight.map(|(at, _)| at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "k:\n s_mov_b32 s0, 1\n s_cmp_eq_u32 s0, 1\n s_cbranch_scc1 L\n \
                       v_mov_b32_e32 v1, 2\nL:\n split s0, s1\n v_mov_b32_e32 v1, 3\n merge\n s_endpgm\n";

    fn program() -> Program {
        pws_isa::assemble(SRC, "k.s").unwrap()
    }

    #[test]
    fn blocks_end_at_branches_splits_merges_and_targets() {
        let p = program();
        let b = Blocks::of(&p);
        let ends: Vec<bool> = (0..p.instructions.len()).map(|i| b.ends_block(i)).collect();
        assert_eq!(ends, [false, false, true, true, true, false, true, true]);
        assert_eq!(b.start_of(6), 5);
    }

    #[test]
    fn block_time_runs_from_the_previous_retire_and_children_from_their_split() {
        let p = program();
        let pcs: Vec<u32> = p.instructions.iter().map(|l| l.pc).collect();
        let mut m = Monitor::new(&p, 1, 2);
        let wf = Ctx { slot: 0, k: 0 };
        let child = Ctx { slot: 0, k: 1 };
        m.launch(0, 10);
        for (n, &pc) in pcs[..3].iter().enumerate() {
            m.issue(wf, pc, 12 + 3 * n as u64);
            m.retire(wf, pc, 13 + 3 * n as u64).unwrap();
        }
        // The first block runs from the launch (10) to its branch's retire (19).
        assert_eq!(m.block_stats()[0].max_cycles, 9);
        m.issue(wf, pcs[3], 20);
        m.retire(wf, pcs[3], 24).unwrap();
        assert_eq!(m.block_stats()[1].max_cycles, 5);
        m.issue(wf, pcs[4], 25);
        m.retire(wf, pcs[4], 26).unwrap();
        assert_eq!(m.in_flight_since(child), None);
        m.issue(child, pcs[5], 28);
        assert_eq!(m.in_flight_since(child), Some(28));
        m.retire(child, pcs[5], 30).unwrap();
        m.issue(child, pcs[6], 31);
        m.retire(child, pcs[6], 33).unwrap();
        let child_block = &m.block_stats()[3];
        assert_eq!(
            (child_block.pc, child_block.max_cycles),
            (pcs[5], 7),
            "from the split's retire"
        );
        assert_eq!(m.inst_stats()[0].max_cycles, 2);
        // The child context is created again by a later split: its block starts there.
        m.issue(wf, pcs[4], 50);
        m.retire(wf, pcs[4], 52).unwrap();
        m.issue(child, pcs[5], 60);
        m.retire(child, pcs[5], 61).unwrap();
        m.issue(child, pcs[6], 62);
        m.retire(child, pcs[6], 63).unwrap();
        assert_eq!(m.block_stats()[3].max_cycles, 11);
        assert_eq!(m.block_stats()[3].executions, 2);
    }

    #[test]
    fn the_wait_at_merge_is_in_no_block() {
        let p = program();
        let pcs: Vec<u32> = p.instructions.iter().map(|l| l.pc).collect();
        let mut m = Monitor::new(&p, 1, 2);
        let wf = Ctx { slot: 0, k: 0 };
        m.launch(0, 0);
        m.issue(wf, pcs[6], 40);
        m.retire(wf, pcs[6], 43).unwrap();
        for cycle in 44..60 {
            m.waiting(wf, true, cycle);
        }
        // Running again in cycle 60: `s_endpgm` may be picked there and retires in 62.
        m.waiting(wf, false, 60);
        m.issue(wf, pcs[7], 60);
        m.retire(wf, pcs[7], 62).unwrap();
        let end = m
            .block_stats()
            .into_iter()
            .find(|b| b.pc == pcs[7])
            .unwrap();
        assert_eq!(
            end.max_cycles, 3,
            "not 19: the 16 cycles of waiting are the partner's"
        );
    }

    #[test]
    fn contradicting_outputs_are_errors() {
        let p = program();
        let mut m = Monitor::new(&p, 1, 1);
        let wf = Ctx { slot: 0, k: 0 };
        m.launch(0, 0);
        assert!(m
            .retire(wf, 0, 1)
            .unwrap_err()
            .to_string()
            .contains("nothing in flight"));
        assert!(m.retire(wf, 2, 1).is_err());
        m.issue(wf, 0, 1);
        assert!(m.retire(wf, 4, 2).is_err());
    }
}
