//! The scalar ALU of an issue unit: every SOP1/SOP2/SOPC/SOPK operation of the subset on 32-bit
//! or 64-bit operands (two 32-bit halves), with SCC as the GCN3 manual defines it (docs/golden.md):
//! carry/borrow of the unsigned adds and subtracts, signed overflow of the signed ones, "S0
//! selected" for min/max, result != 0 for logic ops, shifts, bit counts, `s_abs`, `s_absdiff`
//! and bit-field extracts, the tested bit for `s_bitcmp*`; moves, `s_cselect`, `s_mul`, bit
//! reverse and scans, sign extensions, `s_bfm` and `s_bitset*` leave SCC alone. The saveexec
//! ops produce the old EXEC as their result and the new EXEC beside it. Combinational: the
//! issue unit latches operands and writes the outputs back in its execute stage.

use rust_hdl::prelude::*;

use super::decode::SaluOp;

/// One scalar ALU (see the module documentation). A 64-bit operand is `*_hi:*_lo`; for 64-bit
/// shifts `b_lo[5:0]` is the amount.
#[derive(LogicBlock)]
pub struct ScalarAlu {
    pub op_i: Signal<In, SaluOp>,
    /// Destination and operand a are 64-bit (`S_WIDE`); operand b too unless a shift.
    pub wide_i: Signal<In, Bit>,
    pub a_lo_i: Signal<In, Bits<32>>,
    pub a_hi_i: Signal<In, Bits<32>>,
    pub b_lo_i: Signal<In, Bits<32>>,
    pub b_hi_i: Signal<In, Bits<32>>,
    pub scc_i: Signal<In, Bit>,
    pub exec_lo_i: Signal<In, Bits<32>>,
    pub exec_hi_i: Signal<In, Bits<32>>,
    pub d_lo_o: Signal<Out, Bits<32>>,
    pub d_hi_o: Signal<Out, Bits<32>>,
    pub scc_o: Signal<Out, Bit>,
    /// The op defines SCC.
    pub scc_we_o: Signal<Out, Bit>,
    /// Saveexec: EXEC becomes `exec_*_o`.
    pub exec_we_o: Signal<Out, Bit>,
    pub exec_lo_o: Signal<Out, Bits<32>>,
    pub exec_hi_o: Signal<Out, Bits<32>>,
    sum: Signal<Local, Bits<32>>,
    sum_c: Signal<Local, Bits<32>>,
    diff: Signal<Local, Bits<32>>,
    // Operands with the sign bit flipped, so unsigned comparison orders them as signed.
    a_s: Signal<Local, Bits<32>>,
    b_s: Signal<Local, Bits<32>>,
    sh: Signal<Local, Bits<5>>,
    sh_big: Signal<Local, Bit>,
    sh_zero: Signal<Local, Bit>,
    sh_inv: Signal<Local, Bits<5>>,
    sign_fill: Signal<Local, Bits<32>>,
    p_ll: Signal<Local, Bits<32>>,
    p_lh: Signal<Local, Bits<32>>,
    p_hl: Signal<Local, Bits<32>>,
    new_exec_lo: Signal<Local, Bits<32>>,
    new_exec_hi: Signal<Local, Bits<32>>,
    /// Bit scans and counts over the (64-bit) word `scan_hi:scan_lo`: the word scanned, the
    /// word being narrowed, the count, the result (-1 when there is no such bit); the words of
    /// a bit reverse.
    scan_lo: Signal<Local, Bits<32>>,
    scan_hi: Signal<Local, Bits<32>>,
    word: Signal<Local, Bits<32>>,
    bits: Signal<Local, Bits<32>>,
    count: Signal<Local, Bits<32>>,
    pos: Signal<Local, Bits<32>>,
    rev_lo: Signal<Local, Bits<32>>,
    rev_hi: Signal<Local, Bits<32>>,
    /// Bit-field width `S1[22:16]` and its mask; the field's top bit for the sign extension.
    bf_width: Signal<Local, Bits<7>>,
    bf_inv: Signal<Local, Bits<5>>,
    mask_lo: Signal<Local, Bits<32>>,
    mask_hi: Signal<Local, Bits<32>>,
    top_bit: Signal<Local, Bit>,
    /// S0 - S1 for `s_absdiff_i32`.
    adiff: Signal<Local, Bits<32>>,
    /// Bit `S1[4:0]` alone, for `s_bitset*`.
    bit_at: Signal<Local, Bits<32>>,
    sign_bit: Constant<Bits<32>>,
    ones: Constant<Bits<32>>,
}

impl Default for ScalarAlu {
    fn default() -> Self {
        ScalarAlu {
            op_i: Default::default(),
            wide_i: Default::default(),
            a_lo_i: Default::default(),
            a_hi_i: Default::default(),
            b_lo_i: Default::default(),
            b_hi_i: Default::default(),
            scc_i: Default::default(),
            exec_lo_i: Default::default(),
            exec_hi_i: Default::default(),
            d_lo_o: Default::default(),
            d_hi_o: Default::default(),
            scc_o: Default::default(),
            scc_we_o: Default::default(),
            exec_we_o: Default::default(),
            exec_lo_o: Default::default(),
            exec_hi_o: Default::default(),
            sum: Default::default(),
            sum_c: Default::default(),
            diff: Default::default(),
            a_s: Default::default(),
            b_s: Default::default(),
            sh: Default::default(),
            sh_big: Default::default(),
            sh_zero: Default::default(),
            sh_inv: Default::default(),
            sign_fill: Default::default(),
            p_ll: Default::default(),
            p_lh: Default::default(),
            p_hl: Default::default(),
            new_exec_lo: Default::default(),
            new_exec_hi: Default::default(),
            scan_lo: Default::default(),
            scan_hi: Default::default(),
            word: Default::default(),
            bits: Default::default(),
            count: Default::default(),
            pos: Default::default(),
            rev_lo: Default::default(),
            rev_hi: Default::default(),
            bf_width: Default::default(),
            bf_inv: Default::default(),
            mask_lo: Default::default(),
            mask_hi: Default::default(),
            top_bit: Default::default(),
            adiff: Default::default(),
            bit_at: Default::default(),
            sign_bit: Constant::new(0x8000_0000u64.to_bits()),
            ones: Constant::new(0xFFFF_FFFFu64.to_bits()),
        }
    }
}

impl Logic for ScalarAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.sum.next = self.a_lo_i.val() + self.b_lo_i.val();
        self.sum_c.next = self.sum.val();
        if self.scc_i.val() {
            self.sum_c.next = self.sum.val() + 1;
        }
        self.diff.next = self.a_lo_i.val() - self.b_lo_i.val();
        self.a_s.next = self.a_lo_i.val() ^ self.sign_bit.val();
        self.b_s.next = self.b_lo_i.val() ^ self.sign_bit.val();
        // 64-bit shift amount split into "32 or more" and the 5-bit rest.
        self.sh.next = self.b_lo_i.val().get_bits::<5>(0);
        self.sh_big.next = self.wide_i.val() & self.b_lo_i.val().get_bit(5);
        self.sh_zero.next = self.sh.val() == 0;
        self.sh_inv.next = (!self.sh.val()) + 1;
        self.bit_at.next = (!(self.ones.val() << 1)) << self.sh.val();
        self.sign_fill.next = 0.into();
        if (self.wide_i.val() & self.a_hi_i.val().get_bit(31))
            | (!self.wide_i.val() & self.a_lo_i.val().get_bit(31))
        {
            self.sign_fill.next = self.ones.val();
        }
        self.p_ll.next = self.a_lo_i.val().get_bits::<16>(0) * self.b_lo_i.val().get_bits::<16>(0);
        self.p_lh.next = self.a_lo_i.val().get_bits::<16>(0) * self.b_lo_i.val().get_bits::<16>(16);
        self.p_hl.next = self.a_lo_i.val().get_bits::<16>(16) * self.b_lo_i.val().get_bits::<16>(0);
        self.new_exec_lo.next = 0.into();
        self.new_exec_hi.next = 0.into();
        self.scan_lo.next = self.a_lo_i.val();
        self.scan_hi.next = self.a_hi_i.val();
        self.word.next = 0.into();
        self.bits.next = 0.into();
        self.count.next = 0.into();
        self.pos.next = self.ones.val();
        self.rev_lo.next = 0.into();
        self.rev_hi.next = 0.into();
        self.bf_width.next = self.b_lo_i.val().get_bits::<7>(16);
        self.bf_inv.next = !self.b_lo_i.val().get_bits::<5>(16) + 1;
        self.mask_lo.next = 0.into();
        self.mask_hi.next = 0.into();
        self.top_bit.next = false;
        self.adiff.next = 0.into();
        // The inverted word for the scans that look for zeros or for bits unlike the sign.
        if (self.op_i.val() == SaluOp::Ff0)
            | (self.op_i.val() == SaluOp::Bcnt0)
            | ((self.op_i.val() == SaluOp::FlbitI) & self.sign_fill.val().get_bit(0))
        {
            self.scan_lo.next = !self.a_lo_i.val();
            self.scan_hi.next = !self.a_hi_i.val();
        }
        // 32-bit ops scan only the low word.
        if !self.wide_i.val() {
            self.scan_hi.next = 0.into();
        }
        // Counts and scans in log depth over one word: the population count by pairwise sums,
        // trailing (Ff*) or leading (Flbit*) zeros by halving; the 64-bit forms pick the word
        // that holds the bit and add 32 when it is the second one.
        if (self.op_i.val() == SaluOp::Bcnt0) | (self.op_i.val() == SaluOp::Bcnt1) {
            self.bits.next = self.scan_lo.val() - ((self.scan_lo.val() >> 1) & 0x5555_5555_u64);
            self.bits.next =
                (self.bits.val() & 0x3333_3333_u64) + ((self.bits.val() >> 2) & 0x3333_3333_u64);
            self.bits.next = (self.bits.val() + (self.bits.val() >> 4)) & 0x0F0F_0F0F_u64;
            self.bits.next = self.bits.val() + (self.bits.val() >> 8);
            self.count.next = (self.bits.val() + (self.bits.val() >> 16)) & 0x3F_u64;
            self.bits.next = self.scan_hi.val() - ((self.scan_hi.val() >> 1) & 0x5555_5555_u64);
            self.bits.next =
                (self.bits.val() & 0x3333_3333_u64) + ((self.bits.val() >> 2) & 0x3333_3333_u64);
            self.bits.next = (self.bits.val() + (self.bits.val() >> 4)) & 0x0F0F_0F0F_u64;
            self.bits.next = self.bits.val() + (self.bits.val() >> 8);
            self.count.next =
                self.count.val() + ((self.bits.val() + (self.bits.val() >> 16)) & 0x3F_u64);
        }
        if (self.op_i.val() == SaluOp::Ff0) | (self.op_i.val() == SaluOp::Ff1) {
            self.word.next = self.scan_lo.val();
            if !self.scan_lo.val().any() {
                self.word.next = self.scan_hi.val();
                self.count.next = 32.into();
            }
            self.bits.next = self.word.val();
            if (self.bits.val() & 0xFFFF_u64) == 0 {
                self.count.next = self.count.val() + 16;
                self.bits.next = self.bits.val() >> 16;
            }
            if (self.bits.val() & 0xFF_u64) == 0 {
                self.count.next = self.count.val() + 8;
                self.bits.next = self.bits.val() >> 8;
            }
            if (self.bits.val() & 0xF_u64) == 0 {
                self.count.next = self.count.val() + 4;
                self.bits.next = self.bits.val() >> 4;
            }
            if (self.bits.val() & 0x3_u64) == 0 {
                self.count.next = self.count.val() + 2;
                self.bits.next = self.bits.val() >> 2;
            }
            if (self.bits.val() & 0x1_u64) == 0 {
                self.count.next = self.count.val() + 1;
            }
            if self.word.val().any() {
                self.pos.next = self.count.val();
            }
        }
        if (self.op_i.val() == SaluOp::Flbit) | (self.op_i.val() == SaluOp::FlbitI) {
            self.word.next = self.scan_lo.val();
            if self.wide_i.val() {
                self.word.next = self.scan_hi.val();
                if !self.scan_hi.val().any() {
                    self.word.next = self.scan_lo.val();
                    self.count.next = 32.into();
                }
            }
            self.bits.next = self.word.val();
            if (self.bits.val() & 0xFFFF_0000_u64) == 0 {
                self.count.next = self.count.val() + 16;
                self.bits.next = self.bits.val() << 16;
            }
            if (self.bits.val() & 0xFF00_0000_u64) == 0 {
                self.count.next = self.count.val() + 8;
                self.bits.next = self.bits.val() << 8;
            }
            if (self.bits.val() & 0xF000_0000_u64) == 0 {
                self.count.next = self.count.val() + 4;
                self.bits.next = self.bits.val() << 4;
            }
            if (self.bits.val() & 0xC000_0000_u64) == 0 {
                self.count.next = self.count.val() + 2;
                self.bits.next = self.bits.val() << 2;
            }
            if (self.bits.val() & 0x8000_0000_u64) == 0 {
                self.count.next = self.count.val() + 1;
            }
            if self.word.val().any() {
                self.pos.next = self.count.val();
            }
        }
        // Bit reverse of each word by swapping halves, quarters, ...
        if self.op_i.val() == SaluOp::Brev {
            self.bits.next = ((self.a_lo_i.val() >> 1) & 0x5555_5555_u64)
                | ((self.a_lo_i.val() & 0x5555_5555_u64) << 1);
            self.bits.next = ((self.bits.val() >> 2) & 0x3333_3333_u64)
                | ((self.bits.val() & 0x3333_3333_u64) << 2);
            self.bits.next = ((self.bits.val() >> 4) & 0x0F0F_0F0F_u64)
                | ((self.bits.val() & 0x0F0F_0F0F_u64) << 4);
            self.bits.next = ((self.bits.val() >> 8) & 0x00FF_00FF_u64)
                | ((self.bits.val() & 0x00FF_00FF_u64) << 8);
            self.rev_lo.next = (self.bits.val() >> 16) | (self.bits.val() << 16);
            self.bits.next = ((self.a_hi_i.val() >> 1) & 0x5555_5555_u64)
                | ((self.a_hi_i.val() & 0x5555_5555_u64) << 1);
            self.bits.next = ((self.bits.val() >> 2) & 0x3333_3333_u64)
                | ((self.bits.val() & 0x3333_3333_u64) << 2);
            self.bits.next = ((self.bits.val() >> 4) & 0x0F0F_0F0F_u64)
                | ((self.bits.val() & 0x0F0F_0F0F_u64) << 4);
            self.bits.next = ((self.bits.val() >> 8) & 0x00FF_00FF_u64)
                | ((self.bits.val() & 0x00FF_00FF_u64) << 8);
            self.rev_hi.next = (self.bits.val() >> 16) | (self.bits.val() << 16);
        }
        // Bit-field masks: `s_bfe` keeps S1[22:16] bits (all of a word past its width), `s_bfm`
        // makes S0[4:0] ([5:0]) ones.
        if (self.op_i.val() == SaluOp::BfeU) | (self.op_i.val() == SaluOp::BfeI) {
            if self.bf_width.val() >= 32 {
                self.mask_lo.next = self.ones.val();
            } else if self.bf_width.val().any() {
                self.mask_lo.next = self.ones.val() >> self.bf_inv.val();
            }
            if self.bf_width.val() >= 64 {
                self.mask_hi.next = self.ones.val();
            } else if self.bf_width.val() > 32 {
                self.mask_hi.next = self.ones.val() >> self.bf_inv.val();
            }
        }
        if self.op_i.val() == SaluOp::Bfm {
            self.mask_lo.next = !(self.ones.val() << self.a_lo_i.val().get_bits::<5>(0));
            if self.wide_i.val() & self.a_lo_i.val().get_bit(5) {
                self.mask_lo.next = self.ones.val();
                self.mask_hi.next = !(self.ones.val() << self.a_lo_i.val().get_bits::<5>(0));
            }
        }
        self.adiff.next = self.a_lo_i.val() - self.b_lo_i.val();

        self.d_lo_o.next = self.a_lo_i.val();
        self.d_hi_o.next = self.a_hi_i.val();
        self.scc_o.next = false;
        self.scc_we_o.next = false;
        self.exec_we_o.next = false;
        match self.op_i.val() {
            SaluOp::Mov => {}
            SaluOp::Not => {
                self.d_lo_o.next = !self.a_lo_i.val();
                self.d_hi_o.next = !self.a_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::AndSaveexec => {
                self.new_exec_lo.next = self.a_lo_i.val() & self.exec_lo_i.val();
                self.new_exec_hi.next = self.a_hi_i.val() & self.exec_hi_i.val();
            }
            SaluOp::OrSaveexec => {
                self.new_exec_lo.next = self.a_lo_i.val() | self.exec_lo_i.val();
                self.new_exec_hi.next = self.a_hi_i.val() | self.exec_hi_i.val();
            }
            SaluOp::XorSaveexec => {
                self.new_exec_lo.next = self.a_lo_i.val() ^ self.exec_lo_i.val();
                self.new_exec_hi.next = self.a_hi_i.val() ^ self.exec_hi_i.val();
            }
            SaluOp::Andn2Saveexec => {
                self.new_exec_lo.next = self.a_lo_i.val() & !self.exec_lo_i.val();
                self.new_exec_hi.next = self.a_hi_i.val() & !self.exec_hi_i.val();
            }
            SaluOp::Orn2Saveexec => {
                self.new_exec_lo.next = self.a_lo_i.val() | !self.exec_lo_i.val();
                self.new_exec_hi.next = self.a_hi_i.val() | !self.exec_hi_i.val();
            }
            SaluOp::NandSaveexec => {
                self.new_exec_lo.next = !(self.a_lo_i.val() & self.exec_lo_i.val());
                self.new_exec_hi.next = !(self.a_hi_i.val() & self.exec_hi_i.val());
            }
            SaluOp::NorSaveexec => {
                self.new_exec_lo.next = !(self.a_lo_i.val() | self.exec_lo_i.val());
                self.new_exec_hi.next = !(self.a_hi_i.val() | self.exec_hi_i.val());
            }
            SaluOp::XnorSaveexec => {
                self.new_exec_lo.next = !(self.a_lo_i.val() ^ self.exec_lo_i.val());
                self.new_exec_hi.next = !(self.a_hi_i.val() ^ self.exec_hi_i.val());
            }
            SaluOp::Brev => {
                self.d_lo_o.next = self.rev_lo.val();
                self.d_hi_o.next = self.rev_lo.val();
                if self.wide_i.val() {
                    self.d_lo_o.next = self.rev_hi.val();
                }
            }
            SaluOp::Bcnt0 => {
                self.d_lo_o.next = self.count.val();
                self.d_hi_o.next = 0.into();
                self.scc_we_o.next = true;
            }
            SaluOp::Bcnt1 => {
                self.d_lo_o.next = self.count.val();
                self.d_hi_o.next = 0.into();
                self.scc_we_o.next = true;
            }
            // 32-bit results of 64-bit operands: the high word is 0.
            SaluOp::Ff0 => {
                self.d_lo_o.next = self.pos.val();
                self.d_hi_o.next = 0.into();
            }
            SaluOp::Ff1 => {
                self.d_lo_o.next = self.pos.val();
                self.d_hi_o.next = 0.into();
            }
            SaluOp::Flbit => {
                self.d_lo_o.next = self.pos.val();
                self.d_hi_o.next = 0.into();
            }
            SaluOp::FlbitI => {
                self.d_lo_o.next = self.pos.val();
                self.d_hi_o.next = 0.into();
            }
            SaluOp::Sext8 => {
                self.d_lo_o.next = bit_cast::<32, 8>(self.a_lo_i.val().get_bits::<8>(0));
                if self.a_lo_i.val().get_bit(7) {
                    self.d_lo_o.next = self.a_lo_i.val() | (self.ones.val() << 8);
                }
            }
            SaluOp::Sext16 => {
                self.d_lo_o.next = bit_cast::<32, 16>(self.a_lo_i.val().get_bits::<16>(0));
                if self.a_lo_i.val().get_bit(15) {
                    self.d_lo_o.next = self.a_lo_i.val() | (self.ones.val() << 16);
                }
            }
            SaluOp::Abs => {
                if self.a_lo_i.val().get_bit(31) {
                    self.d_lo_o.next = !self.a_lo_i.val() + 1;
                }
                self.scc_we_o.next = true;
            }
            SaluOp::Absdiff => {
                self.d_lo_o.next = self.adiff.val();
                if self.adiff.val().get_bit(31) {
                    self.d_lo_o.next = !self.adiff.val() + 1;
                }
                self.scc_we_o.next = true;
            }
            SaluOp::Orn2 => {
                self.d_lo_o.next = self.a_lo_i.val() | !self.b_lo_i.val();
                self.d_hi_o.next = self.a_hi_i.val() | !self.b_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::Nand => {
                self.d_lo_o.next = !(self.a_lo_i.val() & self.b_lo_i.val());
                self.d_hi_o.next = !(self.a_hi_i.val() & self.b_hi_i.val());
                self.scc_we_o.next = true;
            }
            SaluOp::Nor => {
                self.d_lo_o.next = !(self.a_lo_i.val() | self.b_lo_i.val());
                self.d_hi_o.next = !(self.a_hi_i.val() | self.b_hi_i.val());
                self.scc_we_o.next = true;
            }
            SaluOp::Xnor => {
                self.d_lo_o.next = !(self.a_lo_i.val() ^ self.b_lo_i.val());
                self.d_hi_o.next = !(self.a_hi_i.val() ^ self.b_hi_i.val());
                self.scc_we_o.next = true;
            }
            SaluOp::Bfm => {
                // The mask shifted left by S1[4:0] ([5:0]), as `Lshl` shifts.
                if self.sh_big.val() {
                    self.d_lo_o.next = 0.into();
                    self.d_hi_o.next = self.mask_lo.val() << self.sh.val();
                } else {
                    self.d_lo_o.next = self.mask_lo.val() << self.sh.val();
                    self.d_hi_o.next = self.mask_hi.val() << self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_hi_o.next = (self.mask_hi.val() << self.sh.val())
                            | (self.mask_lo.val() >> self.sh_inv.val());
                    }
                }
            }
            SaluOp::BfeU => {
                // S0 shifted right by the offset, as `Lshr`, then masked.
                if self.sh_big.val() {
                    self.d_lo_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_hi_o.next = 0.into();
                } else if self.wide_i.val() {
                    self.d_hi_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.a_hi_i.val() << self.sh_inv.val());
                    }
                } else {
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                }
                self.d_lo_o.next = self.d_lo_o.val() & self.mask_lo.val();
                self.d_hi_o.next = self.d_hi_o.val() & self.mask_hi.val();
                self.scc_we_o.next = true;
            }
            SaluOp::BfeI => {
                // S0 shifted right by the offset, as `Ashr`, then masked and sign-extended from
                // the field's top bit.
                if self.sh_big.val() {
                    self.d_hi_o.next = self.sign_fill.val();
                    self.d_lo_o.next = self.a_hi_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_hi_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                    }
                } else if self.wide_i.val() {
                    self.d_hi_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_hi_o.next = (self.a_hi_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.a_hi_i.val() << self.sh_inv.val());
                    }
                } else {
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                    }
                }
                if self.bf_width.val().any() & (self.bf_width.val() <= 32) {
                    self.top_bit.next = self
                        .d_lo_o
                        .val()
                        .get_bit(bit_cast::<5, 7>(self.bf_width.val() - 1).index());
                } else if self.bf_width.val().any() & (self.bf_width.val() < 64) {
                    self.top_bit.next = self
                        .d_hi_o
                        .val()
                        .get_bit(bit_cast::<5, 7>(self.bf_width.val() - 1).index());
                }
                self.d_lo_o.next = self.d_lo_o.val() & self.mask_lo.val();
                self.d_hi_o.next = self.d_hi_o.val() & self.mask_hi.val();
                if self.top_bit.val() {
                    self.d_lo_o.next = self.d_lo_o.val() | !self.mask_lo.val();
                    self.d_hi_o.next = self.d_hi_o.val() | !self.mask_hi.val();
                }
                self.scc_we_o.next = true;
            }
            SaluOp::Bitcmp0 => {
                self.scc_o.next = !self.a_lo_i.val().get_bit(self.sh.val().index());
                if self.sh_big.val() {
                    self.scc_o.next = !self.a_hi_i.val().get_bit(self.sh.val().index());
                }
                self.scc_we_o.next = true;
            }
            SaluOp::Bitcmp1 => {
                self.scc_o.next = self.a_lo_i.val().get_bit(self.sh.val().index());
                if self.sh_big.val() {
                    self.scc_o.next = self.a_hi_i.val().get_bit(self.sh.val().index());
                }
                self.scc_we_o.next = true;
            }
            SaluOp::Bitset0 => {
                self.d_lo_o.next = self.a_lo_i.val() & !self.bit_at.val();
            }
            SaluOp::Bitset1 => {
                self.d_lo_o.next = self.a_lo_i.val() | self.bit_at.val();
            }
            SaluOp::AddU => {
                self.d_lo_o.next = self.sum.val();
                self.scc_o.next = self.sum.val() < self.a_lo_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::SubU => {
                self.d_lo_o.next = self.diff.val();
                self.scc_o.next = self.b_lo_i.val() > self.a_lo_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::AddI => {
                self.d_lo_o.next = self.sum.val();
                self.scc_o.next = (self.a_lo_i.val().get_bit(31) == self.b_lo_i.val().get_bit(31))
                    & (self.sum.val().get_bit(31) != self.a_lo_i.val().get_bit(31));
                self.scc_we_o.next = true;
            }
            SaluOp::SubI => {
                self.d_lo_o.next = self.diff.val();
                self.scc_o.next = (self.a_lo_i.val().get_bit(31) != self.b_lo_i.val().get_bit(31))
                    & (self.diff.val().get_bit(31) != self.a_lo_i.val().get_bit(31));
                self.scc_we_o.next = true;
            }
            SaluOp::AddcU => {
                self.d_lo_o.next = self.sum_c.val();
                self.scc_o.next =
                    (self.sum.val() < self.a_lo_i.val()) | (self.sum_c.val() < self.sum.val());
                self.scc_we_o.next = true;
            }
            SaluOp::SubbU => {
                self.d_lo_o.next = self.diff.val();
                if self.scc_i.val() {
                    self.d_lo_o.next = self.diff.val() - 1;
                }
                self.scc_o.next = self.b_lo_i.val() > self.a_lo_i.val();
                if self.scc_i.val() {
                    self.scc_o.next = self.b_lo_i.val() >= self.a_lo_i.val();
                }
                self.scc_we_o.next = true;
            }
            SaluOp::MinI => {
                self.scc_o.next = self.a_s.val() < self.b_s.val();
                self.scc_we_o.next = true;
                if !self.scc_o.val() {
                    self.d_lo_o.next = self.b_lo_i.val();
                }
            }
            SaluOp::MinU => {
                self.scc_o.next = self.a_lo_i.val() < self.b_lo_i.val();
                self.scc_we_o.next = true;
                if !self.scc_o.val() {
                    self.d_lo_o.next = self.b_lo_i.val();
                }
            }
            SaluOp::MaxI => {
                self.scc_o.next = self.a_s.val() > self.b_s.val();
                self.scc_we_o.next = true;
                if !self.scc_o.val() {
                    self.d_lo_o.next = self.b_lo_i.val();
                }
            }
            SaluOp::MaxU => {
                self.scc_o.next = self.a_lo_i.val() > self.b_lo_i.val();
                self.scc_we_o.next = true;
                if !self.scc_o.val() {
                    self.d_lo_o.next = self.b_lo_i.val();
                }
            }
            SaluOp::Cselect => {
                if !self.scc_i.val() {
                    self.d_lo_o.next = self.b_lo_i.val();
                    self.d_hi_o.next = self.b_hi_i.val();
                }
            }
            SaluOp::And => {
                self.d_lo_o.next = self.a_lo_i.val() & self.b_lo_i.val();
                self.d_hi_o.next = self.a_hi_i.val() & self.b_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::Or => {
                self.d_lo_o.next = self.a_lo_i.val() | self.b_lo_i.val();
                self.d_hi_o.next = self.a_hi_i.val() | self.b_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::Xor => {
                self.d_lo_o.next = self.a_lo_i.val() ^ self.b_lo_i.val();
                self.d_hi_o.next = self.a_hi_i.val() ^ self.b_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::Andn2 => {
                self.d_lo_o.next = self.a_lo_i.val() & !self.b_lo_i.val();
                self.d_hi_o.next = self.a_hi_i.val() & !self.b_hi_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::Lshl => {
                self.scc_we_o.next = true;
                if self.sh_big.val() {
                    self.d_lo_o.next = 0.into();
                    self.d_hi_o.next = self.a_lo_i.val() << self.sh.val();
                } else {
                    self.d_lo_o.next = self.a_lo_i.val() << self.sh.val();
                    self.d_hi_o.next = self.a_hi_i.val() << self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_hi_o.next = (self.a_hi_i.val() << self.sh.val())
                            | (self.a_lo_i.val() >> self.sh_inv.val());
                    }
                }
            }
            SaluOp::Lshr => {
                self.scc_we_o.next = true;
                if self.sh_big.val() {
                    self.d_lo_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_hi_o.next = 0.into();
                } else if self.wide_i.val() {
                    self.d_hi_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.a_hi_i.val() << self.sh_inv.val());
                    }
                } else {
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                }
            }
            SaluOp::Ashr => {
                self.scc_we_o.next = true;
                if self.sh_big.val() {
                    self.d_hi_o.next = self.sign_fill.val();
                    self.d_lo_o.next = self.a_hi_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_hi_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                    }
                } else if self.wide_i.val() {
                    self.d_hi_o.next = self.a_hi_i.val() >> self.sh.val();
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_hi_o.next = (self.a_hi_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.a_hi_i.val() << self.sh_inv.val());
                    }
                } else {
                    self.d_lo_o.next = self.a_lo_i.val() >> self.sh.val();
                    if !self.sh_zero.val() {
                        self.d_lo_o.next = (self.a_lo_i.val() >> self.sh.val())
                            | (self.sign_fill.val() << self.sh_inv.val());
                    }
                }
            }
            SaluOp::Mul => {
                self.d_lo_o.next = self.p_ll.val() + ((self.p_lh.val() + self.p_hl.val()) << 16);
            }
            SaluOp::CmpEq => {
                self.scc_o.next = (self.a_lo_i.val() == self.b_lo_i.val())
                    & (!self.wide_i.val() | (self.a_hi_i.val() == self.b_hi_i.val()));
                self.scc_we_o.next = true;
            }
            SaluOp::CmpLg => {
                self.scc_o.next = (self.a_lo_i.val() != self.b_lo_i.val())
                    | (self.wide_i.val() & (self.a_hi_i.val() != self.b_hi_i.val()));
                self.scc_we_o.next = true;
            }
            SaluOp::CmpGtI => {
                self.scc_o.next = self.a_s.val() > self.b_s.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpGeI => {
                self.scc_o.next = self.a_s.val() >= self.b_s.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpLtI => {
                self.scc_o.next = self.a_s.val() < self.b_s.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpLeI => {
                self.scc_o.next = self.a_s.val() <= self.b_s.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpGtU => {
                self.scc_o.next = self.a_lo_i.val() > self.b_lo_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpGeU => {
                self.scc_o.next = self.a_lo_i.val() >= self.b_lo_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpLtU => {
                self.scc_o.next = self.a_lo_i.val() < self.b_lo_i.val();
                self.scc_we_o.next = true;
            }
            SaluOp::CmpLeU => {
                self.scc_o.next = self.a_lo_i.val() <= self.b_lo_i.val();
                self.scc_we_o.next = true;
            }
        }
        // Logic ops, shifts, counts, abs and bit-field extracts: SCC = result != 0.
        if (self.op_i.val() == SaluOp::Not)
            | (self.op_i.val() == SaluOp::And)
            | (self.op_i.val() == SaluOp::Or)
            | (self.op_i.val() == SaluOp::Xor)
            | (self.op_i.val() == SaluOp::Andn2)
            | (self.op_i.val() == SaluOp::Orn2)
            | (self.op_i.val() == SaluOp::Nand)
            | (self.op_i.val() == SaluOp::Nor)
            | (self.op_i.val() == SaluOp::Xnor)
            | (self.op_i.val() == SaluOp::Lshl)
            | (self.op_i.val() == SaluOp::Lshr)
            | (self.op_i.val() == SaluOp::Ashr)
            | (self.op_i.val() == SaluOp::Bcnt0)
            | (self.op_i.val() == SaluOp::Bcnt1)
            | (self.op_i.val() == SaluOp::Abs)
            | (self.op_i.val() == SaluOp::Absdiff)
            | (self.op_i.val() == SaluOp::BfeU)
            | (self.op_i.val() == SaluOp::BfeI)
        {
            self.scc_o.next =
                (self.d_lo_o.val() != 0) | (self.wide_i.val() & (self.d_hi_o.val() != 0));
        }
        // Saveexec: D = the old EXEC, SCC = new EXEC != 0.
        if (self.op_i.val() == SaluOp::AndSaveexec)
            | (self.op_i.val() == SaluOp::OrSaveexec)
            | (self.op_i.val() == SaluOp::XorSaveexec)
            | (self.op_i.val() == SaluOp::Andn2Saveexec)
            | (self.op_i.val() == SaluOp::Orn2Saveexec)
            | (self.op_i.val() == SaluOp::NandSaveexec)
            | (self.op_i.val() == SaluOp::NorSaveexec)
            | (self.op_i.val() == SaluOp::XnorSaveexec)
        {
            self.d_lo_o.next = self.exec_lo_i.val();
            self.d_hi_o.next = self.exec_hi_i.val();
            self.exec_we_o.next = true;
            self.exec_lo_o.next = self.new_exec_lo.val();
            self.exec_hi_o.next = self.new_exec_hi.val();
            self.scc_o.next = (self.new_exec_lo.val() | self.new_exec_hi.val()) != 0;
            self.scc_we_o.next = true;
        }
        self.exec_lo_o.next = self.new_exec_lo.val();
        self.exec_hi_o.next = self.new_exec_hi.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::core::simulate::simulate;

    /// (op, wide, a, b, scc in, exec) -> (d, scc out or None when SCC is left alone).
    fn run(
        op: SaluOp,
        wide: bool,
        a: u64,
        b: u64,
        scc: bool,
        exec: u64,
    ) -> (u64, Option<bool>, Option<u64>) {
        let mut alu = ScalarAlu::default();
        alu.connect_all();
        alu.op_i.next = op;
        alu.wide_i.next = wide;
        alu.a_lo_i.next = (a & 0xFFFF_FFFF).into();
        alu.a_hi_i.next = (a >> 32).into();
        alu.b_lo_i.next = (b & 0xFFFF_FFFF).into();
        alu.b_hi_i.next = (b >> 32).into();
        alu.scc_i.next = scc;
        alu.exec_lo_i.next = (exec & 0xFFFF_FFFF).into();
        alu.exec_hi_i.next = (exec >> 32).into();
        assert!(simulate(&mut alu, 100));
        let mut d = alu.d_lo_o.val().to_u64();
        if wide {
            d |= alu.d_hi_o.val().to_u64() << 32;
        }
        let scc_out = alu.scc_we_o.val().then(|| alu.scc_o.val());
        let exec_out = alu
            .exec_we_o
            .val()
            .then(|| alu.exec_lo_o.val().to_u64() | alu.exec_hi_o.val().to_u64() << 32);
        (d, scc_out, exec_out)
    }

    /// Hand-computed GCN3 results (ISA manual, SOP1/SOP2/SOPC/SOPK; SCC as docs/golden.md).
    #[test]
    fn gcn3_results_and_scc() {
        use SaluOp::*;
        const M: u64 = 0xFFFF_FFFF;
        // (op, wide, a, b, SCC in, result, SCC out or None when left alone)
        type Case = (SaluOp, bool, u64, u64, bool, u64, Option<bool>);
        let cases: &[Case] = &[
            (AddU, false, M, 1, false, 0, Some(true)),
            (AddU, false, 2, 3, true, 5, Some(false)),
            (AddcU, false, 0xFFFF_FFFE, 1, true, 0, Some(true)),
            (AddcU, false, 1, 1, true, 3, Some(false)),
            (SubU, false, 1, 2, false, M, Some(true)),
            (SubbU, false, 5, 5, true, M, Some(true)),
            (SubbU, false, 5, 4, true, 0, Some(false)),
            (AddI, false, 0x7FFF_FFFF, 1, false, 0x8000_0000, Some(true)),
            (AddI, false, M, 1, false, 0, Some(false)),
            (SubI, false, 0x8000_0000, 1, false, 0x7FFF_FFFF, Some(true)),
            (MinI, false, M, 1, false, M, Some(true)),
            (MinU, false, M, 1, false, 1, Some(false)),
            (MaxI, false, M, 1, false, 1, Some(false)),
            (MaxU, false, M, 1, false, M, Some(true)),
            (Lshl, true, 0x8000_0000, 1, false, 0x1_0000_0000, Some(true)),
            (
                Lshl,
                true,
                0x1234_5678,
                32,
                false,
                0x1234_5678_0000_0000,
                Some(true),
            ),
            (Lshl, false, 0x8000_0000, 33, false, 0, Some(false)),
            (
                Lshr,
                true,
                0xF000_0000_0000_0000,
                36,
                false,
                0x0F00_0000,
                Some(true),
            ),
            (
                Ashr,
                true,
                0x8000_0000_0000_0000,
                63,
                false,
                u64::MAX,
                Some(true),
            ),
            (
                Ashr,
                true,
                0x8000_0000_0000_0000,
                4,
                false,
                0xF800_0000_0000_0000,
                Some(true),
            ),
            (Ashr, false, 0x8000_0000, 4, false, 0xF800_0000, Some(true)),
            (Ashr, false, 0x4000_0000, 0, false, 0x4000_0000, Some(true)),
            (Mul, false, M, M, true, 1, None),
            (Mul, false, 7, 0xFFFF_FFFD, false, 0xFFFF_FFEB, None),
            (Not, false, M, 0, false, 0, Some(false)),
            (Xor, true, 1 << 40, 0, false, 1 << 40, Some(true)),
            (Andn2, false, 0xFF, 0x0F, false, 0xF0, Some(true)),
            (Cselect, true, 1, 0x2_0000_0000, false, 0x2_0000_0000, None),
            (Cselect, false, 1, 2, true, 1, None),
            (Mov, true, u64::MAX, 0, false, u64::MAX, None),
            (CmpLtI, false, M, 0, false, M, Some(true)),
            (CmpLtU, false, M, 0, false, M, Some(false)),
            (
                CmpGeI,
                false,
                0x8000_0000,
                0x7FFF_FFFF,
                false,
                0x8000_0000,
                Some(false),
            ),
            (CmpLeU, false, 3, 3, false, 3, Some(true)),
            (CmpEq, true, 1, 1 | 1 << 32, false, 1, Some(false)),
            (CmpLg, true, 1, 1 | 1 << 32, false, 1, Some(true)),
            (Brev, false, 1, 0, false, 0x8000_0000, None),
            (
                Brev,
                true,
                0x8000_0000_0000_0001,
                0,
                false,
                0x8000_0000_0000_0001,
                None,
            ),
            (Brev, true, 6, 0, false, 0x6000_0000_0000_0000, None),
            (Bcnt1, true, 0xF000_0000_0000_000F, 0, false, 8, Some(true)),
            (Bcnt0, false, M, 0, true, 0, Some(false)),
            (Ff1, true, 1 << 40, 0, false, 40, None),
            (Ff1, false, 0, 0, false, M, None),
            (Ff0, false, 0xFF, 0, false, 8, None),
            (Flbit, true, 1, 0, false, 63, None),
            (Flbit, false, 0x0001_0000, 0, false, 15, None),
            (Flbit, true, 0, 0, false, M, None),
            (FlbitI, false, M, 0, false, M, None),
            (FlbitI, false, 0x4000_0000, 0, false, 1, None),
            (FlbitI, false, 0xBFFF_FFFF, 0, false, 1, None),
            (Sext8, false, 0x80, 0, false, 0xFFFF_FF80, None),
            (Sext16, false, 0x1_7FFF, 0, false, 0x7FFF, None),
            (Abs, false, M, 0, false, 1, Some(true)),
            (Absdiff, false, 3, 10, false, 7, Some(true)),
            (Xnor, false, 0, 0, false, M, Some(true)),
            (Nand, true, M, M, false, M << 32, Some(true)),
            (
                BfeU,
                false,
                0xABCD_1234,
                8 | 8 << 16,
                false,
                0x12,
                Some(true),
            ),
            (BfeI, false, 0x0000_0F00, 8 | 4 << 16, false, M, Some(true)),
            (
                BfeI,
                false,
                0x8000_0000,
                4 | 40 << 16,
                false,
                0xF800_0000,
                Some(true),
            ),
            (
                BfeU,
                true,
                0x1234_5678_9ABC_DEF0,
                28 | 16 << 16,
                false,
                0x6789,
                Some(true),
            ),
            (
                BfeI,
                true,
                0x8000_0000_0000_0000,
                62 | 2 << 16,
                false,
                u64::MAX - 1,
                Some(true),
            ),
            (Bfm, false, 4, 8, false, 0xF00, None),
            (Bfm, true, 36, 4, false, 0xFF_FFFF_FFF0, None),
            (Bitcmp1, true, 1 << 40, 40, false, 1 << 40, Some(true)),
            (Bitcmp0, false, 2, 1, false, 2, Some(false)),
        ];
        for &(op, wide, a, b, scc, d, scc_out) in cases {
            let (got_d, got_scc, exec) = run(op, wide, a, b, scc, 0);
            assert_eq!(
                (got_d, got_scc, exec),
                (d, scc_out, None),
                "{op:?} {a:#x} {b:#x}"
            );
        }
    }

    #[test]
    fn saveexec_saves_the_old_exec_and_sets_scc_from_the_new() {
        use SaluOp::*;
        let cases = [
            (AndSaveexec, 0x0F, 0x3C, 0x0C, true),
            (OrSaveexec, 0x0F, 0x30, 0x3F, true),
            (XorSaveexec, 0x0F, 0x0F, 0x00, false),
            (Andn2Saveexec, 0x0F, 0x0F, 0x00, false),
            (Andn2Saveexec, 0xFF << 32, 0x0F, 0xFF << 32, true),
            (Orn2Saveexec, 0x0F, u64::MAX, 0x0F, true),
            (NandSaveexec, 0x0F, 0x0F, !0x0F, true),
            (NorSaveexec, 0x0F, !0xF0, 0xF0, true),
            (XnorSaveexec, 0x0F, 0x0F, u64::MAX, true),
        ];
        for (op, s, exec, new_exec, scc) in cases {
            assert_eq!(
                run(op, true, s, 0, false, exec),
                (exec, Some(scc), Some(new_exec)),
                "{op:?}"
            );
        }
    }
}
