//! The fused multiply-add of the f32 datapath: `a · b + c` rounded once.
//!
//! Addition (`a · 1.0 + b`), multiplication (`a · b + (-0)`, so that a zero product keeps its
//! sign), the two halves of the unfused `v_mad_f32` and `v_fract_f32`'s subtraction all run
//! through it. The 48-bit product is exact (four of rust-hdl's 16 x 16 multipliers); product
//! and addend are aligned in a 64-bit window with the larger one's top bit at bit 62 (bit 63
//! takes the carry of an addition) and the smaller one shifted right, its lost bits ORed into
//! bit 0. That is exact enough for one rounding: bits are only lost when the exponents differ
//! by more than 15 (addend above) or 39 (product above), and then the sum cannot cancel more
//! than two leading bits, so the sticky bit stays far below the guard bit.
//!
//! Operands must already be flushed (the lane flushes its inputs; [`FpRound`] flushes
//! results). NaN rules of the contract: the first NaN operand, quieted; `0 · inf` and
//! `inf - inf` give the canonical 0x7FC00000. An exact zero sum is +0, except that two zeros
//! of the same sign add to that sign.

use rust_hdl::prelude::*;

use super::round::{FpRound, EXP_OFFSET};

/// `a · b + c` on flushed f32 operands, one rounding (combinational).
#[derive(LogicBlock)]
pub struct FpFma {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    /// `v_div_fmas_f32`'s scaling of a finite result before its rounding: 0 none, 1 by
    /// 2^64, 2 by 2^-64.
    pub scale: Signal<In, Bits<2>>,
    pub result: Signal<Out, Bits<32>>,
    pub round: FpRound,
    /// Magnitudes (sign cleared) and significands with the hidden bit (0 for a zero).
    ma: Signal<Local, Bits<32>>,
    mb: Signal<Local, Bits<32>>,
    mc: Signal<Local, Bits<32>>,
    sa: Signal<Local, Bits<32>>,
    sb: Signal<Local, Bits<32>>,
    sc: Signal<Local, Bits<32>>,
    /// Sign of the product and of the addend.
    sp: Signal<Local, Bit>,
    sq: Signal<Local, Bit>,
    /// Partial products of the 24 x 24 multiply.
    ll: Signal<Local, Bits<32>>,
    lh: Signal<Local, Bits<32>>,
    hl: Signal<Local, Bits<32>>,
    hh: Signal<Local, Bits<32>>,
    /// Product and addend in the 64-bit window, the offset exponents of their top bits (0
    /// for a zero), the alignment distance, the shifted operand and the sum.
    wp: Signal<Local, Bits<64>>,
    wc: Signal<Local, Bits<64>>,
    tp: Signal<Local, Bits<12>>,
    tc: Signal<Local, Bits<12>>,
    gap: Signal<Local, Bits<12>>,
    /// Offset exponent of the window's bit 62 (the rounder's input exponent).
    rexp: Signal<Local, Bits<12>>,
    shifted: Signal<Local, Bits<64>>,
    sum: Signal<Local, Bits<64>>,
    /// 1024 - 126: the product's top-bit exponent is ea + eb - 126.
    prod_bias: Constant<Bits<12>>,
    exp_offset: Constant<Bits<12>>,
}

impl Default for FpFma {
    fn default() -> Self {
        FpFma {
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            scale: Default::default(),
            result: Default::default(),
            round: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            mc: Default::default(),
            sa: Default::default(),
            sb: Default::default(),
            sc: Default::default(),
            sp: Default::default(),
            sq: Default::default(),
            ll: Default::default(),
            lh: Default::default(),
            hl: Default::default(),
            hh: Default::default(),
            wp: Default::default(),
            wc: Default::default(),
            tp: Default::default(),
            tc: Default::default(),
            gap: Default::default(),
            rexp: Default::default(),
            shifted: Default::default(),
            sum: Default::default(),
            prod_bias: Constant::new((EXP_OFFSET - 126).to_bits()),
            exp_offset: Constant::new(EXP_OFFSET.to_bits()),
        }
    }
}

impl Logic for FpFma {
    #[hdl_gen]
    fn update(&mut self) {
        self.ma.next = self.a.val() & 0x7FFF_FFFF_u64;
        self.mb.next = self.b.val() & 0x7FFF_FFFF_u64;
        self.mc.next = self.c.val() & 0x7FFF_FFFF_u64;
        self.sp.next = self.a.val().get_bit(31) ^ self.b.val().get_bit(31);
        self.sq.next = self.c.val().get_bit(31);
        self.sa.next = 0.into();
        self.sb.next = 0.into();
        self.sc.next = 0.into();
        self.ll.next = 0.into();
        self.lh.next = 0.into();
        self.hl.next = 0.into();
        self.hh.next = 0.into();
        self.wp.next = 0.into();
        self.wc.next = 0.into();
        self.tp.next = 0.into();
        self.tc.next = 0.into();
        self.gap.next = 0.into();
        self.rexp.next = 0.into();
        self.shifted.next = 0.into();
        self.sum.next = 0.into();
        self.round.sign.next = false;
        self.round.exp.next = 0.into();
        self.round.sig.next = 0.into();
        self.result.next = self.round.result.val();
        if self.ma.val() > 0x7F80_0000_u64 {
            self.result.next = self.a.val() | 0x0040_0000_u64;
        } else if self.mb.val() > 0x7F80_0000_u64 {
            self.result.next = self.b.val() | 0x0040_0000_u64;
        } else if self.mc.val() > 0x7F80_0000_u64 {
            self.result.next = self.c.val() | 0x0040_0000_u64;
        } else if ((self.ma.val() == 0x7F80_0000_u64) & (self.mb.val() == 0))
            | ((self.ma.val() == 0) & (self.mb.val() == 0x7F80_0000_u64))
        {
            self.result.next = 0x7FC0_0000_u64.into();
        } else if (self.ma.val() == 0x7F80_0000_u64) | (self.mb.val() == 0x7F80_0000_u64) {
            self.result.next = 0x7F80_0000_u64.into();
            if self.sp.val() {
                self.result.next = 0xFF80_0000_u64.into();
            }
            if (self.mc.val() == 0x7F80_0000_u64) & (self.sq.val() != self.sp.val()) {
                self.result.next = 0x7FC0_0000_u64.into();
            }
        } else if self.mc.val() == 0x7F80_0000_u64 {
            self.result.next = self.c.val();
        } else if !(self.ma.val().any() | self.mb.val().any() | self.mc.val().any()) {
            // Zeros only, as in every lane whose op is not an f32 one (the lane holds the
            // unit's inputs at zero): the exact sum's signed zero, without the multiplier and
            // the aligner, which a simulation would otherwise evaluate in every lane each cycle.
            self.result.next = 0.into();
            if self.sp.val() & self.sq.val() {
                self.result.next = 0x8000_0000_u64.into();
            }
        } else {
            if self.ma.val().any() & self.mb.val().any() {
                self.sa.next = (self.ma.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
                self.sb.next = (self.mb.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
                self.tp.next = bit_cast::<12, 32>(self.ma.val() >> 23)
                    + bit_cast::<12, 32>(self.mb.val() >> 23)
                    + self.prod_bias.val();
            }
            if self.mc.val().any() {
                self.sc.next = (self.mc.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
                self.tc.next = bit_cast::<12, 32>(self.mc.val() >> 23) + self.exp_offset.val();
            }
            self.ll.next = bit_cast::<16, 32>(self.sa.val()) * bit_cast::<16, 32>(self.sb.val());
            self.lh.next = bit_cast::<16, 32>(self.sa.val()) * self.sb.val().get_bits::<16>(16);
            self.hl.next = self.sa.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.sb.val());
            self.hh.next = self.sa.val().get_bits::<16>(16) * self.sb.val().get_bits::<16>(16);
            // The product's bit 47 lands on bit 62, the addend's bit 23 too.
            self.wp.next = (bit_cast::<64, 32>(self.hh.val()) << 47)
                + (bit_cast::<64, 32>(self.lh.val()) << 31)
                + (bit_cast::<64, 32>(self.hl.val()) << 31)
                + (bit_cast::<64, 32>(self.ll.val()) << 15);
            self.wc.next = bit_cast::<64, 32>(self.sc.val()) << 39;
            if self.tp.val() >= self.tc.val() {
                self.gap.next = self.tp.val() - self.tc.val();
                self.rexp.next = self.tp.val() + 1;
                self.shifted.next = self.wc.val();
            } else {
                self.gap.next = self.tc.val() - self.tp.val();
                self.rexp.next = self.tc.val() + 1;
                self.shifted.next = self.wp.val();
            }
            if self.gap.val() >= 64 {
                self.sum.next = 0.into();
                if self.shifted.val().any() {
                    self.sum.next = 1.into();
                }
            } else {
                self.sum.next = self.shifted.val() >> self.gap.val();
                if (self.sum.val() << self.gap.val()) != self.shifted.val() {
                    self.sum.next = self.sum.val() | 1;
                }
            }
            if self.tp.val() >= self.tc.val() {
                self.wc.next = self.sum.val();
            } else {
                self.wp.next = self.sum.val();
            }
            self.round.sign.next = self.sp.val();
            if self.sp.val() == self.sq.val() {
                self.sum.next = self.wp.val() + self.wc.val();
            } else if self.wp.val() >= self.wc.val() {
                self.sum.next = self.wp.val() - self.wc.val();
            } else {
                self.sum.next = self.wc.val() - self.wp.val();
                self.round.sign.next = self.sq.val();
            }
            // An exact zero: +0, or -0 from two negative zeros.
            if !self.sum.val().any() {
                self.round.sign.next = self.sp.val() & self.sq.val();
            }
            self.round.sig.next = self.sum.val();
            self.round.exp.next = self.rexp.val();
            if self.scale.val() == 1 {
                self.round.exp.next = self.rexp.val() + 64;
            }
            if self.scale.val() == 2 {
                self.round.exp.next = self.rexp.val() - 64;
            }
        }
    }
}
