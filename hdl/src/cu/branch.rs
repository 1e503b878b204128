//! The branch unit of an issue unit: evaluates `s_branch` / `s_cbranch_*` and computes the next
//! PC. `execz`/`execnz` test EXEC & SpM, so a split context whose lanes are all outside EXEC
//! skips a path as a whole wavefront would (\[T\] Table 4.1, docs/golden.md); `vccz`/`vccnz`
//! and `scc0`/`scc1` test the context's own VCC and SCC. Combinational.

use rust_hdl::prelude::*;

use super::decode::BranchCond;

/// Branch condition and target (see the module documentation).
#[derive(LogicBlock)]
pub struct BranchUnit {
    pub cond_i: Signal<In, BranchCond>,
    pub scc_i: Signal<In, Bit>,
    pub vcc_lo_i: Signal<In, Bits<32>>,
    pub vcc_hi_i: Signal<In, Bits<32>>,
    /// EXEC & SpM of the context.
    pub active_lo_i: Signal<In, Bits<32>>,
    pub active_hi_i: Signal<In, Bits<32>>,
    /// Byte address of the instruction after the branch.
    pub next_pc_i: Signal<In, Bits<32>>,
    /// SOPP offset in dwords from `next_pc_i`, signed.
    pub simm16_i: Signal<In, Bits<16>>,
    pub taken_o: Signal<Out, Bit>,
    /// `next_pc_i` when not taken.
    pub target_o: Signal<Out, Bits<32>>,
    vccz: Signal<Local, Bit>,
    execz: Signal<Local, Bit>,
    offset: Signal<Local, Bits<32>>,
    sext: Constant<Bits<32>>,
}

impl Default for BranchUnit {
    fn default() -> Self {
        BranchUnit {
            cond_i: Default::default(),
            scc_i: Default::default(),
            vcc_lo_i: Default::default(),
            vcc_hi_i: Default::default(),
            active_lo_i: Default::default(),
            active_hi_i: Default::default(),
            next_pc_i: Default::default(),
            simm16_i: Default::default(),
            taken_o: Default::default(),
            target_o: Default::default(),
            vccz: Default::default(),
            execz: Default::default(),
            offset: Default::default(),
            sext: Constant::new(0xFFFF_0000u64.to_bits()),
        }
    }
}

impl Logic for BranchUnit {
    #[hdl_gen]
    fn update(&mut self) {
        self.vccz.next = (self.vcc_lo_i.val() | self.vcc_hi_i.val()) == 0;
        self.execz.next = (self.active_lo_i.val() | self.active_hi_i.val()) == 0;
        self.offset.next = bit_cast::<32, 16>(self.simm16_i.val()) << 2;
        if self.simm16_i.val().get_bit(15) {
            self.offset.next = (bit_cast::<32, 16>(self.simm16_i.val()) | self.sext.val()) << 2;
        }
        self.taken_o.next = false;
        match self.cond_i.val() {
            BranchCond::Always => self.taken_o.next = true,
            BranchCond::Scc0 => self.taken_o.next = !self.scc_i.val(),
            BranchCond::Scc1 => self.taken_o.next = self.scc_i.val(),
            BranchCond::Vccz => self.taken_o.next = self.vccz.val(),
            BranchCond::Vccnz => self.taken_o.next = !self.vccz.val(),
            BranchCond::Execz => self.taken_o.next = self.execz.val(),
            BranchCond::Execnz => self.taken_o.next = !self.execz.val(),
        }
        self.target_o.next = self.next_pc_i.val();
        if self.taken_o.val() {
            self.target_o.next = self.next_pc_i.val() + self.offset.val();
        }
    }
}
