//! Where each scalar value came from, and the EXEC idioms LLVM's AMDGPU backend lowers
//! divergent control flow to, read semantically rather than by register names.
//!
//! SILowerControlFlow (llvm/lib/Target/AMDGPU/SILowerControlFlow.cpp) turns the structurizer's
//! SI_IF / SI_ELSE / SI_END_CF / SI_IF_BREAK / SI_LOOP into scalar code on EXEC:
//!
//! ```text
//! SI_IF      s_and_saveexec_b64 S, C [; s_xor_b64 S', exec, S]      (-O1..: one instruction)
//!            s_mov_b64 S, exec ; s_and_b64 T, S, C [; s_xor_b64 S', T, S] ; s_mov_b64 exec, T (-O0)
//!            s_and_b64 exec, exec, C            (no saved mask: nothing after it needs EXEC back)
//! SI_ELSE    s_or_saveexec_b64 D, S' [; s_and_b64 D, exec, D] ; s_xor_b64 exec, exec, D
//! SI_END_CF  s_or_b64 exec, exec, D
//! SI_LOOP    s_andn2_b64 exec, exec, B ; s_cbranch_execnz HEADER (or execz EXIT, rotated)
//! ```
//!
//! followed by `s_cbranch_execz`/`_execnz` over the path when it is long enough to be worth
//! skipping. The register allocator picks any pair for S, S' and D, copies them with `s_mov_b64`
//! and, at -O0, spills them. So instead of matching register names this module tracks
//! [`Origin`]s: the instruction that created each 32-bit scalar value, followed through copies.
//! An else pairs with the if whose mask it reads; a restore ends the region whose mask it ORs
//! back into EXEC.

use pws_isa::{Instruction, Opcode, Operand, Program};

use crate::flow::Flow;
use crate::scalar::{registers, ScalarReg};

/// The instruction that created a 32-bit scalar value, and which of its result dwords it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Unknown,
    Def { inst: usize, dword: u8 },
}

const REGS: usize = 128;

/// The origin of every scalar register at one program point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State([Origin; REGS]);

impl State {
    fn unknown() -> State {
        State([Origin::Unknown; REGS])
    }

    pub fn origin(&self, r: ScalarReg) -> Origin {
        self.0[usize::from(r)]
    }

    /// The instruction that created the 64-bit value in the pair starting at `op`, if both
    /// halves come from it.
    pub fn mask_origin(&self, op: Operand) -> Option<usize> {
        let regs: Vec<ScalarReg> = registers(op, 2).collect();
        match (
            regs.first().map(|&r| self.origin(r)),
            regs.get(1).map(|&r| self.origin(r)),
        ) {
            (Some(Origin::Def { inst: a, dword: 0 }), Some(Origin::Def { inst: b, dword: 1 }))
                if a == b =>
            {
                Some(a)
            }
            _ => None,
        }
    }

    fn meet(&mut self, other: &State) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            if *a != *b && *a != Origin::Unknown {
                *a = Origin::Unknown;
                changed = true;
            }
        }
        changed
    }

    /// Applies instruction `i`.
    pub fn step(&mut self, i: usize, inst: &Instruction) {
        let sig = inst.opcode.signature();
        // A copy keeps its source's origin; a copy of EXEC is a new value (EXEC's own origin is
        // not tracked: saveexec and v_cmpx write it implicitly).
        let copy = matches!(inst.opcode, Opcode::SMovB32 | Opcode::SMovB64)
            .then(|| inst.src(0))
            .flatten()
            .filter(|s| !matches!(s, Operand::ExecLo | Operand::ExecHi));
        if let (Some(dst), Some(w)) = (inst.dst, sig.dst) {
            let dsts: Vec<ScalarReg> = registers(dst, w.dwords()).collect();
            let srcs: Vec<ScalarReg> = copy
                .map(|s| registers(s, w.dwords()).collect())
                .unwrap_or_default();
            for (k, &d) in dsts.iter().enumerate() {
                self.0[usize::from(d)] = match srcs.get(k) {
                    Some(&s) => self.0[usize::from(s)],
                    None => Origin::Def {
                        inst: i,
                        dword: k as u8,
                    },
                };
            }
        }
        if let (Some(sdst), Some(w)) = (inst.sdst, sig.sdst) {
            for (k, d) in registers(sdst, w.dwords()).enumerate() {
                self.0[usize::from(d)] = Origin::Def {
                    inst: i,
                    dword: k as u8,
                };
            }
        }
    }
}

/// Origins at the entry of every reachable block (a forward must-analysis: a register keeps an
/// origin only when every path in agrees on it).
#[derive(Debug, Clone)]
pub struct Provenance {
    entry: Vec<Option<State>>,
}

impl Provenance {
    pub fn new(program: &Program, flow: &Flow) -> Provenance {
        let insts = &program.instructions;
        let nb = flow.blocks.len();
        let mut entry: Vec<Option<State>> = vec![None; nb];
        entry[0] = Some(State::unknown());
        let mut work: Vec<usize> = flow.order().iter().rev().copied().collect();
        let mut queued = vec![false; nb];
        for &b in &work {
            queued[b] = true;
        }
        while let Some(b) = work.pop() {
            queued[b] = false;
            let Some(mut s) = entry[b].clone() else {
                continue;
            };
            for i in flow.blocks[b].clone() {
                s.step(i, &insts[i].item);
            }
            for e in &flow.succ[b] {
                let changed = match &mut entry[e.to] {
                    Some(t) => t.meet(&s),
                    slot @ None => {
                        *slot = Some(s.clone());
                        true
                    }
                };
                if changed && !queued[e.to] {
                    queued[e.to] = true;
                    work.push(e.to);
                }
            }
        }
        Provenance { entry }
    }

    /// The state right before instruction `i` of block `b`.
    pub fn before(&self, program: &Program, flow: &Flow, i: usize) -> State {
        let b = flow.block_of(i);
        let mut s = self.entry[b].clone().unwrap_or_else(State::unknown);
        for k in flow.blocks[b].start..i {
            s.step(k, &program.instructions[k].item);
        }
        s
    }
}

fn is_exec(op: Option<Operand>) -> bool {
    op == Some(Operand::ExecLo)
}

/// `op D, exec, X` or `op D, X, exec`, whatever D is: the X.
pub(crate) fn with_exec(inst: &Instruction, opcode: Opcode) -> Option<Operand> {
    if inst.opcode != opcode {
        return None;
    }
    match (inst.src(0), inst.src(1)) {
        (a, Some(x)) if is_exec(a) => Some(x),
        (Some(x), b) if is_exec(b) => Some(x),
        _ => None,
    }
}

/// `op exec, exec, X` or `op exec, X, exec`: the X.
pub(crate) fn exec_with(inst: &Instruction, opcode: Opcode) -> Option<Operand> {
    with_exec(inst, opcode).filter(|_| is_exec(inst.dst))
}

/// An SI_ELSE: EXEC flipped to the lanes that skipped the then-path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flip {
    /// The `s_or_saveexec_b64`.
    pub saveexec: usize,
    /// The `s_xor_b64 exec, exec, D`.
    pub xor: usize,
    /// Origin of the mask the flip reads (the if's else-lanes).
    pub input: Option<usize>,
}

/// How the last EXEC write of a block before its branch changes EXEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecChange {
    /// The block does not write EXEC.
    None,
    /// An SI_ELSE.
    Flip(Flip),
    /// Any other write: an SI_IF's narrowing, a loop's `s_andn2_b64 exec`, ...
    Write { inst: usize },
}

/// The last EXEC write of block `b` before its final instruction.
pub fn exec_change(program: &Program, flow: &Flow, prov: &Provenance, b: usize) -> ExecChange {
    let insts = &program.instructions;
    let r = flow.blocks[b].clone();
    let Some(w) = (r.start..r.end - 1)
        .rev()
        .find(|&i| insts[i].item.writes_exec())
    else {
        return ExecChange::None;
    };
    if let Some(d) = exec_with(&insts[w].item, Opcode::SXorB64) {
        let s = prov.before(program, flow, w);
        let saveexec = (r.start..w)
            .rev()
            .find(|&i| insts[i].item.opcode == Opcode::SOrSaveexecB64);
        if let (Some(k), Some(o)) = (saveexec, s.mask_origin(d)) {
            if (k..w).contains(&o) {
                let input = insts[k]
                    .item
                    .src(0)
                    .and_then(|x| prov.before(program, flow, k).mask_origin(x));
                return ExecChange::Flip(Flip {
                    saveexec: k,
                    xor: w,
                    input,
                });
            }
        }
    }
    ExecChange::Write { inst: w }
}

/// The first `s_or_b64 exec, exec, R` in block `b` whose R was created by an instruction in
/// `created`: the SI_END_CF of the region that created R.
pub fn find_restore(
    program: &Program,
    flow: &Flow,
    prov: &Provenance,
    b: usize,
    created: std::ops::Range<usize>,
) -> Option<usize> {
    let insts = &program.instructions;
    let mut s = prov.before(program, flow, flow.blocks[b].start);
    for i in flow.blocks[b].clone() {
        if let Some(r) = exec_with(&insts[i].item, Opcode::SOrB64) {
            if s.mask_origin(r).is_some_and(|o| created.contains(&o)) {
                return Some(i);
            }
        }
        s.step(i, &insts[i].item);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(src: &str) -> (Program, Flow, Provenance) {
        let p = pws_isa::assemble(src, "t.s").unwrap();
        let f = Flow::new(&p, "t.s").unwrap();
        let v = Provenance::new(&p, &f);
        (p, f, v)
    }

    #[test]
    fn an_else_reads_its_ifs_mask_through_a_copy_into_another_pair() {
        let (p, f, v) = setup(
            "  s_and_saveexec_b64 s[0:1], vcc\n  s_xor_b64 s[2:3], exec, s[0:1]\n  s_cbranch_execz E\n  s_nop 0\nE:\n  s_mov_b64 s[6:7], s[2:3]\n  s_or_saveexec_b64 s[4:5], s[6:7]\n  s_xor_b64 exec, exec, s[4:5]\n  s_cbranch_execz J\n  s_nop 1\nJ:\n  s_or_b64 exec, exec, s[4:5]\n  s_endpgm\n",
        );
        assert_eq!(exec_change(&p, &f, &v, 0), ExecChange::Write { inst: 0 });
        let ExecChange::Flip(flip) = exec_change(&p, &f, &v, 2) else {
            panic!("no flip")
        };
        assert_eq!(flip.input, Some(1));
        assert_eq!(find_restore(&p, &f, &v, 4, 5..8), Some(9));
        assert_eq!(find_restore(&p, &f, &v, 4, 0..2), None);
    }

    #[test]
    fn paths_that_disagree_lose_the_origin() {
        let (p, f, v) = setup(
            "  s_cbranch_scc0 A\n  s_mov_b64 s[0:1], exec\n  s_branch J\nA:\n  s_mov_b64 s[0:1], vcc\nJ:\n  s_endpgm\n",
        );
        let s = v.before(&p, &f, 4);
        assert_eq!(s.origin(0), Origin::Unknown);
    }
}
