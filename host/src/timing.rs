//! The timing contract the WCET analysis uses for assembly input (design.md decision 6): the
//! worst-case cycles one instruction of each class may take on the compute unit, including
//! waits for a shared port. This is the only place block WCETs of `.s` kernels come from.
//!
//! PLACEHOLDER: the compute-unit RTL has not published its contract yet. The vector ALU cost
//! is the SIMD unit's measured latency (passes + 2 = 6 cycles for wave64 on 16 lanes,
//! docs/rtl-units.md); the rest are deliberately generous round numbers (memory is charged its
//! full latency at issue so that `s_waitcnt` costs only its own issue). When `docs/rtl-units.md` defines the contract, replace [`TimingTable::PLACEHOLDER`]
//! by those numbers and keep the test that checks RTL cycles never exceed it.

use pws_isa::{Format, Instruction, Opcode};
use serde::Serialize;

/// Instruction classes with one worst-case cost each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstClass {
    /// SOP1/SOP2/SOPK/SOPC scalar ALU operations.
    Salu,
    /// Full-rate vector ALU operations (one wavefront over the 16-lane SIMD).
    Valu,
    /// Quarter-rate vector operations (32-bit multiplies).
    ValuQuarter,
    /// Scalar memory loads (SMEM), to completion.
    Smem,
    /// Flat (global) loads and stores, to completion, including port arbitration.
    Flat,
    /// `s_branch` and `s_cbranch_*` (taken or not).
    Branch,
    /// `s_waitcnt`: memory is already charged at issue.
    Waitcnt,
    /// `s_barrier`: the wait for other wavefronts is part of d in the kernel-level formula.
    Barrier,
    /// `split` and `merge` issue; their datapath cost is e_s / e_m in Lemma 5.1.
    SplitMerge,
    /// `s_nop`, `s_endpgm`.
    Control,
}

/// Worst-case cycles per instruction class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimingTable {
    pub salu: u64,
    pub valu: u64,
    pub valu_quarter: u64,
    pub smem: u64,
    pub flat: u64,
    pub branch: u64,
    pub waitcnt: u64,
    pub barrier: u64,
    pub split_merge: u64,
    pub control: u64,
    /// The split/merge datapath (docs/rtl-units.md, "Cycle costs"): a split that allocates a
    /// context costs `split_fixed` cycles plus one per `srf_copy_width` SGPRs it copies (e_s);
    /// a merge costs `merge` cycles (e_m).
    pub split_fixed: u64,
    pub srf_copy_width: u64,
    pub merge: u64,
}

impl TimingTable {
    /// See the module documentation: placeholder until the RTL's timing contract exists.
    pub const PLACEHOLDER: TimingTable = TimingTable {
        salu: 1,
        valu: 6,
        valu_quarter: 16,
        smem: 64,
        flat: 256,
        branch: 2,
        waitcnt: 1,
        barrier: 1,
        split_merge: 1,
        control: 1,
        split_fixed: 2,
        srf_copy_width: 8,
        merge: 1,
    };

    /// e_s for a kernel whose wavefronts hold `sgprs` scalar registers: the split/merge
    /// datapath copies exactly those into the new split context.
    pub fn split_cycles(&self, sgprs: u32) -> u64 {
        self.split_fixed + u64::from(sgprs).div_ceil(self.srf_copy_width)
    }

    /// The class of `inst`.
    pub fn class(inst: &Instruction) -> InstClass {
        use Opcode::*;
        match inst.opcode {
            Split | Merge => InstClass::SplitMerge,
            SWaitcnt => InstClass::Waitcnt,
            SBarrier => InstClass::Barrier,
            SNop | SEndpgm => InstClass::Control,
            VMulLoU32 | VMulHiU32 | VMulHiI32 => InstClass::ValuQuarter,
            _ if inst.is_branch() => InstClass::Branch,
            _ => match inst.opcode.format() {
                Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc | Format::Sopp => {
                    InstClass::Salu
                }
                Format::Smem => InstClass::Smem,
                Format::Flat => InstClass::Flat,
                Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => InstClass::Valu,
            },
        }
    }

    /// Worst-case cycles of one execution of `inst`.
    pub fn cycles(&self, inst: &Instruction) -> u64 {
        match Self::class(inst) {
            InstClass::Salu => self.salu,
            InstClass::Valu => self.valu,
            InstClass::ValuQuarter => self.valu_quarter,
            InstClass::Smem => self.smem,
            InstClass::Flat => self.flat,
            InstClass::Branch => self.branch,
            InstClass::Waitcnt => self.waitcnt,
            InstClass::Barrier => self.barrier,
            InstClass::SplitMerge => self.split_merge,
            InstClass::Control => self.control,
        }
    }
}
