//! EXEC as exact lane sets named by the instructions that made them, through LLVM's lowering of
//! `if`, `else` and their joins, so that an analysis walking forward knows where EXEC holds the
//! dispatcher's lanes again and where it only lost lanes ([`super::lds_banks`]: a vector write
//! there writes every lane that ever runs).
//!
//! A set is named by the last execution of the instruction that made it: `After(i)` is what
//! instruction i left in EXEC, `Rest(m, i)` is m without those lanes (an `else`). A saved
//! mask is known by how it was made: the EXEC an `s_and_saveexec_b64` at i replaced (which
//! holds what i left), that less what i left (`s_xor_b64 s, exec, s` at the then-side's
//! start), or what i left within the set it narrowed (`s_or_saveexec_b64` at the else-flip). A
//! join ORs back what was taken away, so EXEC is exactly the set before the `if` again. An
//! instruction that runs again renames its set, so everything that names its earlier
//! execution is forgotten; everything this does not model leaves EXEC unknown (and lanes may
//! have joined), and [`super::exit_mask::exec_within_dispatch`] is the caller's to check, so
//! that the dispatcher's set holds every lane that ever runs.
//!
//! The sets are those of the masked execution, also in a program with `split`/`merge`, which
//! change none of them. A split context keeps the unsplit EXEC code (docs/golden.md): it
//! enables EXEC & SpM, and since its compares write only the lanes it enables, what it
//! enables is the masked execution's set ∩ SpM at every point (at a split the two are the
//! same; `s_and_saveexec_b64` ANDs in the compare's lanes; the `else`'s `s_xor_b64` and the
//! join's OR give the same lanes within SpM), and at the merge, which sits after the join's
//! restore, both contexts hold the set from before the split again. Each lane so runs the
//! instructions it runs without splitting, on the same values, which is what makes a split
//! program compute what the unsplit one does: an analysis of the masked execution holds for
//! every lane a context enables. What would break it is what the host refuses to split
//! over, or what clang does not emit there: a read of another lane (`v_readlane_b32`; clang's
//! `v_readfirstlane_b32` reads values its divergence analysis proved the same in every lane).

use pws_isa::{Instruction, Opcode, Operand};

use super::lane_ranges::narrows_exec;
use crate::scalar::{effects, registers};

/// A set of lanes an `if` narrows: the dispatcher's, or what an instruction left in EXEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outer {
    Whole,
    After(usize),
}

/// The lanes EXEC holds, exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lanes {
    /// The dispatcher's.
    Whole,
    /// What instruction i left in EXEC, at its last execution.
    After(usize),
    /// The lanes of the first without what instruction i left (an `else`'s lanes).
    Rest(Outer, usize),
}

impl From<Outer> for Lanes {
    fn from(o: Outer) -> Lanes {
        match o {
            Outer::Whole => Lanes::Whole,
            Outer::After(i) => Lanes::After(i),
        }
    }
}

impl Lanes {
    fn outer(self) -> Option<Outer> {
        match self {
            Lanes::Whole => Some(Outer::Whole),
            Lanes::After(i) => Some(Outer::After(i)),
            Lanes::Rest(..) => None,
        }
    }

    fn names(self, i: usize) -> bool {
        match self {
            Lanes::Whole => false,
            Lanes::After(j) => j == i,
            Lanes::Rest(o, j) => j == i || Lanes::from(o).names(i),
        }
    }
}

/// What a saved mask holds, exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Saved {
    /// The EXEC instruction i (an `s_and_saveexec_b64`) replaced; what i left is within it.
    Before(Lanes, usize),
    /// The first without what instruction i left.
    Rest(Outer, usize),
    /// What instruction i left, within the first.
    Then(Outer, usize),
}

impl Saved {
    fn names(self, i: usize) -> bool {
        match self {
            Saved::Before(l, j) => j == i || l.names(i),
            Saved::Rest(o, j) | Saved::Then(o, j) => j == i || Lanes::from(o).names(i),
        }
    }
}

/// How an instruction changed EXEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Not at all.
    Kept,
    /// Every lane it left was active before.
    Narrowed,
    /// Lanes may have joined.
    Other,
}

/// EXEC and the saved masks at a point of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecSets {
    exec: Option<Lanes>,
    saved: Vec<(Operand, Saved)>,
}

impl ExecSets {
    /// At the kernel's first instruction.
    pub fn dispatch() -> ExecSets {
        ExecSets {
            exec: Some(Lanes::Whole),
            saved: Vec::new(),
        }
    }

    /// The lanes EXEC holds, where known.
    pub fn lanes(&self) -> Option<Lanes> {
        self.exec
    }

    /// What holds on both of two paths; whether `self` changed.
    pub fn join(&mut self, other: &ExecSets) -> bool {
        let before = self.clone();
        if self.exec != other.exec {
            self.exec = None;
        }
        self.saved.retain(|e| other.saved.contains(e));
        *self != before
    }

    fn saved(&self, op: Option<Operand>) -> Option<Saved> {
        let op = op?;
        self.saved.iter().find(|(o, _)| *o == op).map(|&(_, s)| s)
    }

    /// The mask operand of `inst` beside EXEC, when its sources are EXEC and one other.
    fn beside_exec(inst: &Instruction) -> Option<Operand> {
        match (inst.src(0), inst.src(1)) {
            (Some(Operand::ExecLo), other) | (other, Some(Operand::ExecLo)) => other,
            _ => None,
        }
    }

    /// After instruction `i`, `inst`.
    pub fn step(&mut self, i: usize, inst: &Instruction) -> Change {
        use Opcode::*;
        let old = self.exec;
        let to_exec = inst.dst == Some(Operand::ExecLo);
        // What the instruction makes of the masks it reads, before its writes replace them.
        let (exec, written, change) = match inst.opcode {
            SAndSaveexecB64 => (
                Some(Lanes::After(i)),
                old.filter(|l| !l.names(i)).map(|l| Saved::Before(l, i)),
                Change::Narrowed,
            ),
            SXorB64 if !to_exec && Self::beside_exec(inst) == inst.dst => {
                let rest = match (self.saved(inst.dst), old) {
                    (Some(Saved::Before(m, j)), Some(Lanes::After(k))) if j == k => {
                        m.outer().map(|m| Saved::Rest(m, j))
                    }
                    _ => None,
                };
                (old, rest, Change::Kept)
            }
            SOrSaveexecB64 => match (self.saved(inst.src(0)), old) {
                (Some(Saved::Rest(m, j)), Some(Lanes::After(k))) if j == k => {
                    (Some(m.into()), Some(Saved::Then(m, j)), Change::Other)
                }
                _ => (None, None, Change::Other),
            },
            SXorB64 if to_exec => match (self.saved(Self::beside_exec(inst)), old) {
                (Some(Saved::Then(m, j)), Some(l)) if l == m.into() => {
                    (Some(Lanes::Rest(m, j)), None, Change::Narrowed)
                }
                _ => (None, None, Change::Other),
            },
            SOrB64 if to_exec => {
                let exec = match (self.saved(Self::beside_exec(inst)), old) {
                    (Some(Saved::Before(Lanes::Whole, _)), _) => Some(Lanes::Whole),
                    (Some(Saved::Before(l, j)), Some(Lanes::After(k))) if j == k => Some(l),
                    (Some(Saved::Then(m, j)), Some(Lanes::Rest(n, k))) if (m, j) == (n, k) => {
                        Some(m.into())
                    }
                    _ => None,
                };
                (exec, None, Change::Other)
            }
            SMovB64 if to_exec => {
                let exec = match self.saved(inst.src(0)) {
                    Some(Saved::Before(l, _)) => Some(l),
                    Some(Saved::Then(_, j)) => Some(Lanes::After(j)),
                    Some(Saved::Rest(m, j)) => Some(Lanes::Rest(m, j)),
                    None => None,
                };
                (exec, None, Change::Other)
            }
            // The sets are the masked execution's: a context enables EXEC & SpM of them, and
            // its EXEC code runs as the unsplit wavefront's (module doc).
            Split | Merge => (old, None, Change::Kept),
            _ if narrows_exec(inst) => (Some(Lanes::After(i)), None, Change::Narrowed),
            _ if inst.writes_exec() => (None, None, Change::Other),
            _ => (old, None, Change::Kept),
        };
        // A pair written no longer holds what was saved in it, and a set this instruction
        // makes again is another set.
        let defs = effects(inst).defs;
        let fresh = exec == Some(Lanes::After(i));
        self.saved.retain(|&(op, s)| {
            let overwritten = registers(op, 2).any(|r| defs.contains(r));
            !(overwritten || fresh && s.names(i))
        });
        if let (Some(s), Some(dst)) = (written, inst.dst.filter(|_| !to_exec)) {
            self.saved.push((dst, s));
        }
        self.exec = exec;
        change
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// EXEC's whole-ness and each instruction's change over the instructions of `src`.
    fn walk(src: &str) -> Vec<(bool, Change)> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let mut sets = ExecSets::dispatch();
        program
            .instructions
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let change = sets.step(i, &l.item);
                (sets.lanes() == Some(Lanes::Whole), change)
            })
            .collect()
    }

    #[test]
    fn an_if_else_and_its_join_give_back_the_dispatchers_lanes() {
        use Change::*;
        // LLVM's SI_IF, SI_ELSE and SI_END_CF.
        let src = "k:\ns_and_saveexec_b64 s[0:1], vcc\ns_xor_b64 s[0:1], exec, s[0:1]\n\
            s_or_saveexec_b64 s[0:1], s[0:1]\nv_mov_b32_e32 v1, 0\n\
            s_xor_b64 exec, exec, s[0:1]\ns_or_b64 exec, exec, s[0:1]\ns_endpgm\n";
        assert_eq!(
            walk(src),
            [
                (false, Narrowed),
                (false, Kept),
                // Between the flip's two halves EXEC is the whole set again.
                (true, Other),
                (true, Kept),
                (false, Narrowed),
                (true, Other),
                (true, Kept),
            ]
        );
    }

    #[test]
    fn nested_ifs_restore_their_own_sets() {
        let src = "k:\ns_and_saveexec_b64 s[0:1], vcc\ns_and_saveexec_b64 s[2:3], s[4:5]\n\
            s_or_b64 exec, exec, s[2:3]\ns_or_b64 exec, exec, s[0:1]\ns_endpgm\n";
        let whole: Vec<bool> = walk(src).iter().map(|w| w.0).collect();
        assert_eq!(whole, [false, false, false, true, true]);
    }

    #[test]
    fn a_mask_rewritten_or_a_set_made_again_is_forgotten() {
        // The saved mask is overwritten before the join: EXEC is not known there.
        let src = "k:\ns_and_saveexec_b64 s[0:1], vcc\ns_mov_b32 s1, 0\n\
            s_or_b64 exec, exec, s[0:1]\ns_endpgm\n";
        assert!(!walk(src)[2].0);
        // An inner narrowing restored with the outer `if`'s flip half-done.
        let src = "k:\ns_and_saveexec_b64 s[0:1], vcc\ns_xor_b64 s[0:1], exec, s[0:1]\n\
            s_and_b64 exec, exec, s[6:7]\ns_or_saveexec_b64 s[0:1], s[0:1]\ns_endpgm\n";
        assert!(!walk(src)[3].0);
        // A loop's narrowing at the same instruction renames its set: a mask saved at its
        // earlier run no longer restores it.
        let mut sets = ExecSets::dispatch();
        let program = pws_isa::assemble(
            "k:\ns_and_saveexec_b64 s[0:1], vcc\ns_and_saveexec_b64 s[2:3], vcc\n\
             s_or_b64 exec, exec, s[2:3]\ns_endpgm\n",
            "t.s",
        )
        .unwrap();
        let inst = |i: usize| program.instructions[i].item;
        sets.step(0, &inst(0));
        sets.step(1, &inst(1));
        sets.step(0, &inst(0));
        sets.step(2, &inst(2));
        assert_eq!(sets.exec, None);
    }

    #[test]
    fn split_and_merge_leave_the_masked_execution_sets() {
        let src = "k:\ns_and_saveexec_b64 s[0:1], vcc\nsplit s2, s3\n\
            s_or_b64 exec, exec, s[0:1]\nmerge\ns_endpgm\n";
        let w = walk(src);
        assert_eq!(w[0], (false, Change::Narrowed));
        assert_eq!(w[1], (false, Change::Kept));
        assert_eq!(w[2], (true, Change::Other));
        assert_eq!(w[3], (true, Change::Kept));
    }
}
