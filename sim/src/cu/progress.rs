//! Progress watch of a compute-unit run: stops a context that can never leave a loop, and a
//! wavefront that runs away, long before the cycle cap (the RTL simulates a few hundred cycles
//! per second: `L: s_branch L` would otherwise run for hours). Fed, like the monitor, only by
//! the RTL's retire outputs and its memory port.
//!
//! Three checks, each reporting the PCs involved:
//!
//! 1. **Loop without effect (exact).** When a context comes back to the PC it last jumped back
//!    to, the instructions it retired in between are one iteration. If every one of them is
//!    *invariant*, reading only registers the iteration does not write or that an earlier
//!    invariant instruction of the same iteration wrote, and none touches memory or another
//!    context (loads, stores, `split`, `merge`, `s_barrier`, `s_endpgm`), then the next
//!    iteration computes exactly the same values and takes exactly the same branches: the
//!    context loops forever. This never stops a loop that could end, and it stops
//!    `L: s_branch L` after two passes.
//! 2. **No memory effect for N cycles (heuristic, `--no-progress N`).** A context that has
//!    jumped back and has made no memory request for N cycles (splits, merges and barriers do
//!    not count: `L: split s0, s1; merge; s_branch L` changes nothing either). A register-only
//!    loop that legitimately runs longer than N cycles is stopped too, so the window is an
//!    option and off unless asked for or the run could not be sized.
//! 3. **Runaway (`--max-instructions`).** A wavefront (all its contexts) retiring more than
//!    the limit, as the golden model counts it.

use std::collections::HashSet;

use pws_isa::{Instruction, Opcode, Operand, Program, Width};

use super::monitor::Ctx;

/// Longest iteration the exact check follows, in retired instructions.
const MAX_ITERATION: usize = 4096;

/// Why the watch stopped a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stall {
    /// Check 1: the loop's PCs.
    Forever { ctx: Ctx, pcs: Vec<u32> },
    /// Check 2: the PCs retired in the window and the window's length.
    Quiet {
        ctx: Ctx,
        pcs: Vec<u32>,
        window: u64,
    },
    /// Check 3: the wavefront's slot and its hottest PCs with their retire counts.
    Runaway {
        slot: usize,
        limit: u64,
        hot: Vec<(u32, u64)>,
    },
}

/// A register location, for the invariance check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Loc {
    /// A scalar register by its operand code (SGPRs, VCC, M0, EXEC, trap temporaries).
    S(u16),
    /// A vector register (all lanes the context runs; siblings own the others).
    V(u16),
    Scc,
}

const VCC: u16 = 106;
const EXEC: u16 = 126;

fn locations(op: Operand, width: Width, out: &mut Vec<Loc>) {
    let n = u16::from(width.dwords());
    let span = |base: u16, out: &mut Vec<Loc>| out.extend((base..base + n).map(Loc::S));
    match op {
        Operand::Vgpr(r) => out.extend((u16::from(r)..u16::from(r) + n).map(Loc::V)),
        Operand::Vccz => out.extend([Loc::S(VCC), Loc::S(VCC + 1)]),
        Operand::Execz => out.extend([Loc::S(EXEC), Loc::S(EXEC + 1)]),
        Operand::Scc => out.push(Loc::Scc),
        Operand::Int(_) | Operand::Float(_) | Operand::Literal(_) => {}
        register => span(register.code(), out),
    }
}

/// The registers `inst` reads (explicit sources and the implicit EXEC, SCC and VCC reads).
fn reads(inst: &Instruction) -> Vec<Loc> {
    let mut out = Vec::new();
    for (op, width) in inst.sources() {
        locations(op, width, &mut out);
    }
    if inst.reads_exec() {
        out.extend([Loc::S(EXEC), Loc::S(EXEC + 1)]);
    }
    if inst.reads_scc() {
        out.push(Loc::Scc);
    }
    if matches!(inst.opcode, Opcode::SCbranchVccz | Opcode::SCbranchVccnz) {
        out.extend([Loc::S(VCC), Loc::S(VCC + 1)]);
    }
    out
}

/// The registers `inst` writes.
fn writes(inst: &Instruction) -> Vec<Loc> {
    let mut out = Vec::new();
    let sig = inst.opcode.signature();
    if let (Some(op), Some(w)) = (inst.dst, sig.dst) {
        locations(op, w, &mut out);
    }
    if let (Some(op), Some(w)) = (inst.sdst, sig.sdst) {
        locations(op, w, &mut out);
    }
    if inst.writes_exec() {
        out.extend([Loc::S(EXEC), Loc::S(EXEC + 1)]);
    }
    if inst.writes_scc() {
        out.push(Loc::Scc);
    }
    out
}

/// True for an instruction whose effect reaches beyond the context's own registers, or whose
/// result may change without the context changing: memory, split/merge, barriers, the end,
/// and cross-lane reads.
fn has_outside_effect(inst: &Instruction) -> bool {
    let name = inst.opcode.mnemonic();
    inst.is_memory()
        || matches!(
            inst.opcode,
            Opcode::Split | Opcode::Merge | Opcode::SBarrier | Opcode::SEndpgm
        )
        || name.contains("lane")
}

/// Whether one iteration (the instructions retired from a loop head back to it) leaves the
/// context in a state from which the next iteration repeats it exactly (module docs, check 1).
pub fn repeats_forever(iteration: &[&Instruction]) -> bool {
    let written: HashSet<Loc> = iteration.iter().flat_map(|i| writes(i)).collect();
    let mut settled: HashSet<Loc> = HashSet::new();
    for inst in iteration {
        if has_outside_effect(inst) {
            return false;
        }
        if reads(inst)
            .iter()
            .any(|r| written.contains(r) && !settled.contains(r))
        {
            return false;
        }
        settled.extend(writes(inst));
    }
    true
}

/// One context's watch state.
#[derive(Clone, Debug, Default)]
struct CtxWatch {
    /// PC of the last retired instruction.
    last_pc: Option<u32>,
    /// Where the context last jumped back to, and the instructions retired since (indices).
    head: Option<u32>,
    iteration: Vec<usize>,
    /// Cycle of the last memory request or of the launch.
    last_effect: u64,
    /// Jumped back since `last_effect`.
    looping: bool,
    /// Lowest and highest PC retired since `last_effect`.
    span: Option<(u32, u32)>,
}

/// The watch over every context of the compute unit.
#[derive(Debug)]
pub struct Progress<'p> {
    program: &'p Program,
    per_slot: usize,
    ctx: Vec<CtxWatch>,
    /// Per slot: instructions its wavefront retired, and per instruction index how often.
    retired: Vec<u64>,
    counts: Vec<Vec<u64>>,
    no_progress: Option<u64>,
    max_instructions: u64,
}

impl<'p> Progress<'p> {
    pub fn new(
        program: &'p Program,
        slots: usize,
        per_slot: usize,
        no_progress: Option<u64>,
        max_instructions: u64,
    ) -> Progress<'p> {
        Progress {
            program,
            per_slot,
            ctx: vec![CtxWatch::default(); slots * per_slot],
            retired: vec![0; slots],
            counts: vec![Vec::new(); slots],
            no_progress: no_progress.filter(|&n| n > 0),
            max_instructions,
        }
    }

    fn index(&self, c: Ctx) -> usize {
        c.slot * self.per_slot + c.k
    }

    /// A wavefront was launched into `slot` in `cycle`.
    pub fn launch(&mut self, slot: usize, cycle: u64) {
        for k in 0..self.per_slot {
            let i = self.index(Ctx { slot, k });
            self.ctx[i] = CtxWatch {
                last_effect: cycle,
                ..CtxWatch::default()
            };
        }
        self.retired[slot] = 0;
        self.counts[slot] = vec![0; self.program.instructions.len()];
    }

    /// `c` made a memory request in `cycle`.
    pub fn memory(&mut self, c: Ctx, cycle: u64) {
        let i = self.index(c);
        if let Some(w) = self.ctx.get_mut(i) {
            w.last_effect = cycle;
            w.looping = false;
            w.span = None;
        }
    }

    /// `c` retired the instruction at `pc` in `cycle`.
    pub fn retire(&mut self, c: Ctx, pc: u32, cycle: u64) -> Result<(), Stall> {
        let Some(index) = self.program.index_of(pc) else {
            return Ok(());
        };
        let inst = &self.program.instructions[index].item;
        let i = self.index(c);
        self.retired[c.slot] += 1;
        if let Some(n) = self.counts[c.slot].get_mut(index) {
            *n += 1;
        }
        if self.retired[c.slot] > self.max_instructions {
            return Err(self.runaway(c.slot));
        }
        let w = &mut self.ctx[i];
        if inst.is_memory() {
            w.last_effect = cycle;
            w.looping = false;
            w.span = None;
        }
        let back = w.last_pc.is_some_and(|last| pc <= last);
        w.last_pc = Some(pc);
        if back {
            w.looping = true;
            if w.head == Some(pc) && !w.iteration.is_empty() {
                let body: Vec<&Instruction> = w
                    .iteration
                    .iter()
                    .map(|&k| &self.program.instructions[k].item)
                    .collect();
                if repeats_forever(&body) {
                    let mut pcs: Vec<u32> = w
                        .iteration
                        .iter()
                        .map(|&k| self.program.instructions[k].pc)
                        .collect();
                    pcs.sort_unstable();
                    pcs.dedup();
                    return Err(Stall::Forever { ctx: c, pcs });
                }
            }
            w.head = Some(pc);
            w.iteration.clear();
        }
        if w.head.is_some() {
            if w.iteration.len() < MAX_ITERATION {
                w.iteration.push(index);
            } else {
                w.head = None;
                w.iteration.clear();
            }
        }
        w.span = Some(w.span.map_or((pc, pc), |(lo, hi)| (lo.min(pc), hi.max(pc))));
        if let Some(window) = self.no_progress {
            if w.looping && cycle.saturating_sub(w.last_effect) >= window {
                let (lo, hi) = w.span.unwrap_or((pc, pc));
                let pcs = self
                    .program
                    .instructions
                    .iter()
                    .map(|l| l.pc)
                    .filter(|&p| p >= lo && p <= hi)
                    .collect();
                return Err(Stall::Quiet {
                    ctx: c,
                    pcs,
                    window,
                });
            }
        }
        Ok(())
    }

    fn runaway(&self, slot: usize) -> Stall {
        let mut hot: Vec<(u32, u64)> = self.counts[slot]
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(k, &n)| (self.program.instructions[k].pc, n))
            .collect();
        hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hot.truncate(5);
        Stall::Runaway {
            slot,
            limit: self.max_instructions,
            hot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Instruction> {
        pws_isa::assemble(src, "t.s")
            .unwrap()
            .instructions
            .into_iter()
            .map(|l| l.item)
            .collect()
    }

    fn forever(src: &str) -> bool {
        let insts = body(src);
        repeats_forever(&insts.iter().collect::<Vec<_>>())
    }

    #[test]
    fn loops_that_change_nothing_they_read_repeat_forever() {
        assert!(forever("s_branch 0"));
        assert!(forever("s_nop 0\ns_waitcnt 0\ns_branch 0"));
        // SCC is recomputed from s0, which the loop never writes.
        assert!(forever("s_cmp_eq_u32 s0, 0\ns_cbranch_scc1 0"));
        assert!(forever("s_mov_b32 s1, s0\ns_add_u32 s2, s1, 1\ns_branch 0"));
        assert!(forever(
            "v_mov_b32 v1, v0\nv_add_u32 v2, vcc, v1, 1\ns_branch 0"
        ));
    }

    #[test]
    fn loops_that_could_end_are_never_stopped() {
        assert!(!forever(
            "s_add_u32 s0, s0, 1\ns_cmp_lt_u32 s0, 8\ns_cbranch_scc1 0"
        ));
        assert!(
            !forever("s_cbranch_scc1 0\ns_cmp_eq_u32 s0, 0"),
            "SCC read before the write"
        );
        assert!(!forever("v_add_u32 v1, vcc, v1, 1\ns_branch 0"));
        assert!(
            !forever("s_and_saveexec_b64 s[2:3], s[4:5]\ns_branch 0"),
            "reads EXEC it writes"
        );
        assert!(
            !forever("s_load_dword s0, s[4:5], 0x0\ns_branch 0"),
            "memory may change"
        );
        assert!(!forever("flat_store_dword v[0:1], v2\ns_branch 0"));
        assert!(!forever("s_barrier\ns_branch 0"));
        assert!(!forever("merge\ns_branch 0"));
    }

    #[test]
    fn the_watch_stops_a_jump_to_itself_after_two_passes() {
        let p = pws_isa::assemble("s_nop 0\nL:\n s_branch L\n", "t.s").unwrap();
        let mut w = Progress::new(&p, 1, 1, None, 1_000);
        let c = Ctx { slot: 0, k: 0 };
        w.launch(0, 0);
        w.retire(c, 0, 1).unwrap();
        w.retire(c, 4, 2).unwrap();
        w.retire(c, 4, 5).unwrap();
        assert_eq!(
            w.retire(c, 4, 8),
            Err(Stall::Forever {
                ctx: c,
                pcs: vec![4]
            })
        );
    }

    #[test]
    fn a_counting_loop_is_left_to_the_window_and_the_instruction_limit() {
        let p = pws_isa::assemble("L:\n s_add_u32 s0, s0, 1\n s_branch L\n", "t.s").unwrap();
        let c = Ctx { slot: 0, k: 0 };
        let mut w = Progress::new(&p, 1, 1, Some(100), 1_000_000);
        w.launch(0, 0);
        let mut cycle = 0;
        let stall = loop {
            cycle += 3;
            if let Err(s) = w.retire(c, ((cycle / 3) as u32 % 2) * 4, cycle) {
                break s;
            }
        };
        assert_eq!(
            stall,
            Stall::Quiet {
                ctx: c,
                pcs: vec![0, 4],
                window: 100
            }
        );
        assert!(cycle >= 100 && cycle < 110, "{cycle}");
        // Splits and merges do not count as progress for the window.
        let p2 = pws_isa::assemble("L:\n split s0, s1\n merge\n s_branch L\n", "t.s").unwrap();
        let mut w = Progress::new(&p2, 1, 2, Some(50), 1_000_000);
        w.launch(0, 0);
        let stall = (1..1000u64)
            .find_map(|n| w.retire(c, ((n - 1) as u32 % 3) * 4, 2 * n).err())
            .unwrap();
        assert!(
            matches!(stall, Stall::Quiet { window: 50, .. }),
            "{stall:?}"
        );
        let mut w = Progress::new(&p, 1, 1, None, 10);
        w.launch(0, 0);
        let stall = (0..100u64)
            .find_map(|n| w.retire(c, (n as u32 % 2) * 4, n).err())
            .unwrap();
        assert_eq!(
            stall,
            Stall::Runaway {
                slot: 0,
                limit: 10,
                hot: vec![(0, 6), (4, 5)]
            }
        );
    }
}
