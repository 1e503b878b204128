//! The run-time half of split safety: a split program must compute what the unsplit program
//! computes, and the golden model reports it when it does not instead of producing a different
//! memory image.
//!
//! A split wavefront has its own scalar registers and drops them at the merge (design.md
//! decision 4). At the merge, every scalar register the child wrote since its split and whose
//! value differs from the parent's is marked dropped in the parent; the parent reading one
//! before writing it is an error naming the register, the read and the merge. EXEC is not
//! watched: the merge ORs the two halves back.
//!
//! The compiler pass refuses unsafe splits statically (pws_host::liveness), which also covers
//! the other way a split can change the program: the child running the else-path with a value
//! the then-path would have changed first. That one has no run-time test without knowing where
//! the then-path ends (the child and the parent both run the else-flip, and may both change
//! what they read there), so the golden model checks only what it can check exactly; this
//! catches what the static check cannot see, such as hand-written `split`/`merge`.

use pws_isa::{Instruction, Operand};

use super::machine::{ScalarFile, EXEC_CODE};

/// Bit of SCC in a register set (operand code 125 is unused in GCN3).
const SCC_BIT: u32 = 125;

/// Scalar registers as bits by operand code (SCC at bit 125), EXEC excluded.
pub type RegSet = u128;

fn bits(op: Operand, dwords: u8) -> RegSet {
    match op {
        Operand::Scc => 1 << SCC_BIT,
        Operand::Vccz => 0b11 << super::machine::VCC_CODE,
        _ => {
            let code = u32::from(op.code());
            if code >= 128 || code == u32::from(EXEC_CODE) || code == u32::from(EXEC_CODE) + 1 {
                return 0;
            }
            let mut set = 0;
            for k in 0..u32::from(dwords) {
                if code + k < 126 {
                    set |= 1 << (code + k);
                }
            }
            set
        }
    }
}

/// The scalar registers `inst` reads and writes.
pub(crate) fn effects(inst: &Instruction) -> (RegSet, RegSet) {
    let sig = inst.opcode.signature();
    let mut uses = 0;
    let mut defs = 0;
    for (op, w) in inst.reads() {
        uses |= bits(op, w.dwords());
    }
    for (op, w) in [(inst.dst, sig.dst), (inst.sdst, sig.sdst)] {
        if let (Some(op), Some(w)) = (op, w) {
            defs |= bits(op, w.dwords());
        }
    }
    if inst.reads_scc() {
        uses |= 1 << SCC_BIT;
    }
    if inst.reads_m0_implicitly() {
        uses |= bits(pws_isa::Operand::M0, 1);
    }
    if inst.writes_scc() {
        defs |= 1 << SCC_BIT;
    }
    if matches!(
        inst.opcode,
        pws_isa::Opcode::SCbranchVccz | pws_isa::Opcode::SCbranchVccnz
    ) {
        uses |= 0b11 << super::machine::VCC_CODE;
    }
    (uses, defs)
}

/// The register's name.
pub fn name(bit: u32) -> String {
    match bit {
        0..=101 => format!("s{bit}"),
        102 => "flat_scratch_lo".into(),
        103 => "flat_scratch_hi".into(),
        106 => "vcc_lo".into(),
        107 => "vcc_hi".into(),
        112..=123 => format!("ttmp{}", bit - 112),
        124 => "m0".into(),
        SCC_BIT => "scc".into(),
        b => format!("register {b}"),
    }
}

fn value(s: &ScalarFile, bit: u32) -> u32 {
    if bit == SCC_BIT {
        s.scc as u32
    } else {
        s.get(bit as u16).unwrap_or(0)
    }
}

/// The per-context watch.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// Registers a merge dropped, with the PC of that merge.
    dropped: RegSet,
    dropped_at: u32,
    /// For a split context: the registers it wrote since its split.
    writes: Option<RegSet>,
}

/// A watched rule the program broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The register read, whose value the merge at `merge_pc` dropped.
    pub register: String,
    pub merge_pc: u32,
}

impl Watch {
    /// The watch of a context created by a split.
    pub fn split_child() -> Watch {
        Watch {
            writes: Some(0),
            ..Watch::default()
        }
    }

    /// Checks the reads of an instruction before it runs.
    pub fn before(&self, uses: RegSet) -> Result<(), Violation> {
        let bad = self.dropped & uses;
        if bad == 0 {
            return Ok(());
        }
        Err(Violation {
            register: name(bad.trailing_zeros()),
            merge_pc: self.dropped_at,
        })
    }

    /// Records an instruction that ran.
    pub fn after(&mut self, defs: RegSet) {
        self.dropped &= !defs;
        if let Some(w) = self.writes.as_mut() {
            *w |= defs;
        }
    }

    /// The merge of `child` (registers `child_regs`, watch `child`) into a parent with
    /// registers `parent_regs` at `pc`: marks what it drops.
    pub fn merge(
        &mut self,
        parent_regs: &ScalarFile,
        child: &Watch,
        child_regs: &ScalarFile,
        pc: u32,
    ) {
        let Some(mut w) = child.writes else {
            return;
        };
        let mut lost = 0;
        while w != 0 {
            let b = w.trailing_zeros();
            if value(child_regs, b) != value(parent_regs, b) {
                lost |= 1 << b;
            }
            w &= w - 1;
        }
        if lost != 0 {
            self.dropped |= lost;
            self.dropped_at = pc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(src: &str) -> Instruction {
        pws_isa::assemble(src, "t.s").unwrap().instructions[0].item
    }

    #[test]
    fn effects_name_implicit_scc_and_skip_exec() {
        let (u, d) = effects(&inst("s_and_saveexec_b64 s[2:3], s[4:5]"));
        assert_eq!(u, 0b11 << 4);
        assert_eq!(d, (0b11 << 2) | (1 << SCC_BIT));
        // A read-modify-write reads the value a merge may have dropped.
        let (u, d) = effects(&inst("s_bitset0_b32 s7, 31"));
        assert_eq!((u, d), (1 << 7, 1 << 7));
    }

    #[test]
    fn a_value_the_merge_dropped_is_reported_until_rewritten() {
        let mut parent = ScalarFile::default();
        let mut child_regs = parent.clone();
        let mut child = Watch::split_child();
        child_regs.set(0, 5);
        child.after(1);
        let mut w = Watch::default();
        w.merge(&parent, &child, &child_regs, 0x20);
        assert_eq!(
            w.before(1),
            Err(Violation {
                register: "s0".into(),
                merge_pc: 0x20
            })
        );
        w.after(1);
        assert_eq!(w.before(1), Ok(()));
        // Equal values are not lost.
        parent.set(0, 5);
        let mut w = Watch::default();
        w.merge(&parent, &child, &child_regs, 0x20);
        assert_eq!(w.before(1), Ok(()));
    }
}
