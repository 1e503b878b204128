//! The scalar state an instruction reads and writes, one bit per 32-bit register: SGPRs, VCC,
//! M0, FLAT_SCRATCH, the trap temporaries, SCC and EXEC. Implicit operands count (SCC of the
//! scalar ALU, VCC of `s_cbranch_vcc*`), so liveness over these sets is exact for what a split
//! wavefront keeps of its own: everything here but the vector registers it shares with its
//! parent.

use std::fmt;

use pws_isa::{Instruction, Opcode, Operand};

/// Index of a 32-bit scalar register in a [`ScalarSet`].
pub type ScalarReg = u8;

/// The low half of VCC (the high half is the next index).
pub const VCC_LO: ScalarReg = 102;
const M0: ScalarReg = 104;
const FLAT_SCRATCH_LO: ScalarReg = 105;
const TTMP0: ScalarReg = 107;
/// The scalar condition code.
pub const SCC: ScalarReg = 119;
/// The low half of EXEC (the high half is the next index).
pub const EXEC_LO: ScalarReg = 120;

/// A set of 32-bit scalar registers.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ScalarSet(u128);

impl ScalarSet {
    pub const EMPTY: ScalarSet = ScalarSet(0);
    /// Both halves of EXEC.
    pub const EXEC: ScalarSet = ScalarSet(0b11 << EXEC_LO);

    pub fn insert(&mut self, r: ScalarReg) {
        self.0 |= 1 << r;
    }

    pub fn contains(self, r: ScalarReg) -> bool {
        self.0 >> r & 1 == 1
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, o: ScalarSet) -> ScalarSet {
        ScalarSet(self.0 | o.0)
    }

    pub fn intersection(self, o: ScalarSet) -> ScalarSet {
        ScalarSet(self.0 & o.0)
    }

    pub fn minus(self, o: ScalarSet) -> ScalarSet {
        ScalarSet(self.0 & !o.0)
    }

    pub fn iter(self) -> impl Iterator<Item = ScalarReg> {
        (0..128u8).filter(move |&r| self.contains(r))
    }
}

impl fmt::Debug for ScalarSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(name)).finish()
    }
}

/// The register's name as llvm-mc prints it.
pub fn name(r: ScalarReg) -> String {
    match r {
        0..=101 => format!("s{r}"),
        102 => "vcc_lo".into(),
        103 => "vcc_hi".into(),
        104 => "m0".into(),
        105 => "flat_scratch_lo".into(),
        106 => "flat_scratch_hi".into(),
        107..=118 => format!("ttmp{}", r - TTMP0),
        SCC => "scc".into(),
        120 => "exec_lo".into(),
        _ => "exec_hi".into(),
    }
}

/// Names a set compactly: `s[0:1]` for a pair, `vcc` for both halves.
pub fn describe(set: ScalarSet) -> String {
    let regs: Vec<ScalarReg> = set.iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < regs.len() {
        let r = regs[i];
        let mut j = i;
        while j + 1 < regs.len() && regs[j + 1] == regs[j] + 1 && regs[j + 1] <= 101 && r <= 101 {
            j += 1;
        }
        if j > i {
            out.push(format!("s[{}:{}]", r, regs[j]));
        } else if r == VCC_LO && regs.get(i + 1) == Some(&(VCC_LO + 1)) {
            out.push("vcc".into());
            j = i + 1;
        } else {
            out.push(name(r));
        }
        i = j + 1;
    }
    out.join(", ")
}

/// The 32-bit registers an operand of `dwords` registers covers (none for VGPRs and constants).
pub fn registers(op: Operand, dwords: u8) -> impl Iterator<Item = ScalarReg> {
    let first: Option<ScalarReg> = match op {
        Operand::Sgpr(n) => Some(n),
        Operand::VccLo => Some(VCC_LO),
        Operand::VccHi => Some(VCC_LO + 1),
        Operand::ExecLo => Some(EXEC_LO),
        Operand::ExecHi => Some(EXEC_LO + 1),
        Operand::M0 => Some(M0),
        Operand::FlatScratchLo => Some(FLAT_SCRATCH_LO),
        Operand::FlatScratchHi => Some(FLAT_SCRATCH_LO + 1),
        Operand::Ttmp(n) => Some(TTMP0 + n),
        Operand::Scc => Some(SCC),
        Operand::Vccz => Some(VCC_LO),
        Operand::Execz => Some(EXEC_LO),
        _ => None,
    };
    let count = match op {
        // src_vccz and src_execz read the whole 64-bit mask.
        Operand::Vccz | Operand::Execz => 2,
        Operand::Scc => 1,
        _ => dwords,
    };
    first
        .into_iter()
        .flat_map(move |f| (0..count).map(move |k| f + k))
}

/// What one instruction does to the scalar state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effects {
    pub defs: ScalarSet,
    pub uses: ScalarSet,
}

/// The scalar registers `inst` writes and reads, implicit operands included.
pub fn effects(inst: &Instruction) -> Effects {
    let sig = inst.opcode.signature();
    let mut defs = ScalarSet::EMPTY;
    let mut uses = ScalarSet::EMPTY;
    for (op, w) in [(inst.dst, sig.dst), (inst.sdst, sig.sdst)] {
        if let (Some(op), Some(w)) = (op, w) {
            for r in registers(op, w.dwords()) {
                defs.insert(r);
            }
        }
    }
    for (op, w) in inst.reads() {
        for r in registers(op, w.dwords()) {
            uses.insert(r);
        }
    }
    if inst.writes_scc() {
        defs.insert(SCC);
    }
    if inst.reads_scc() {
        uses.insert(SCC);
    }
    if inst.reads_m0_implicitly() {
        uses.insert(M0);
    }
    match inst.opcode {
        Opcode::SCbranchVccz | Opcode::SCbranchVccnz => {
            uses.insert(VCC_LO);
            uses.insert(VCC_LO + 1);
        }
        Opcode::SCbranchExecz | Opcode::SCbranchExecnz => {
            uses = uses.union(ScalarSet::EXEC);
        }
        _ => {}
    }
    if inst.writes_exec() {
        defs = defs.union(ScalarSet::EXEC);
    }
    if inst.reads_exec() {
        uses = uses.union(ScalarSet::EXEC);
    }
    Effects { defs, uses }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Instruction {
        pws_isa::assemble(src, "t.s").unwrap().instructions[0].item
    }

    #[test]
    fn implicit_operands_are_effects() {
        let e = effects(&one("v_add_u32_e32 v1, vcc, v2, v3"));
        assert_eq!(describe(e.defs), "vcc");
        assert_eq!(describe(e.uses), "exec_lo, exec_hi");
        let e = effects(&one("s_add_u32 s3, s1, s2"));
        assert_eq!(describe(e.defs), "s3, scc");
        assert_eq!(describe(e.uses), "s[1:2]");
        let e = effects(&one("ds_read_b32 v1, v2"));
        assert_eq!(
            describe(e.uses),
            "m0, exec_lo, exec_hi",
            "M0 is the LDS limit"
        );
        let e = effects(&one("s_cbranch_vccz 0"));
        assert_eq!(describe(e.uses), "vcc");
        let e = effects(&one("s_and_saveexec_b64 s[2:3], s[4:5]"));
        assert_eq!(describe(e.defs), "s[2:3], scc, exec_lo, exec_hi");
        assert_eq!(describe(e.uses), "s[4:5], exec_lo, exec_hi");
        let e = effects(&one("s_load_dwordx4 s[8:11], s[4:5], 0x0"));
        assert_eq!(describe(e.defs), "s[8:11]");
        // Read-modify-write of the destination.
        let e = effects(&one("s_bitset0_b32 s2, 31"));
        assert_eq!(
            (describe(e.defs), describe(e.uses)),
            ("s2".into(), "s2".into())
        );
        let e = effects(&one("s_addk_i32 s5, 0x10"));
        assert_eq!(describe(e.uses), "s5");
    }
}
