//! One IEEE `minNum`/`maxNum` step of the f32 contract (ieee_mode 1): `v_min/max_f32` are one
//! step, `v_min3/max3_f32` two in a row, and so is `v_med3_f32` with a NaN operand.

use rust_hdl::prelude::*;

/// minNum or maxNum of two flushed f32 (combinational). If exactly one operand is NaN the
/// result is the other; if both are, `a` quieted. -0 is less than +0. The order is the
/// total one of the bit patterns: a negative value is below a positive one, magnitudes order
/// two positive values and reverse-order two negative ones.
#[derive(LogicBlock, Default)]
pub struct FpMinMax {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    /// maxNum (else minNum).
    pub max: Signal<In, Bit>,
    pub result: Signal<Out, Bits<32>>,
}

impl Logic for FpMinMax {
    #[hdl_gen]
    fn update(&mut self) {
        self.result.next = self.a.val();
        // Two +0 give a (+0): the lanes that do not run min/max hold both at zero and skip the
        // compares in a simulation.
        if (self.a.val() | self.b.val()).any() {
            if (self.a.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
                self.result.next = self.a.val() | 0x0040_0000_u64;
                if (self.b.val() & 0x7FFF_FFFF_u64) <= 0x7F80_0000_u64 {
                    self.result.next = self.b.val();
                }
            } else if (self.b.val() & 0x7FFF_FFFF_u64) <= 0x7F80_0000_u64 {
                if self.max.val() {
                    if (self.a.val().get_bit(31) & !self.b.val().get_bit(31))
                        | ((self.a.val().get_bit(31) == self.b.val().get_bit(31))
                            & ((self.a.val() < self.b.val()) ^ self.a.val().get_bit(31))
                            & (self.a.val() != self.b.val()))
                    {
                        self.result.next = self.b.val();
                    }
                } else if (self.b.val().get_bit(31) & !self.a.val().get_bit(31))
                    | ((self.a.val().get_bit(31) == self.b.val().get_bit(31))
                        & ((self.b.val() < self.a.val()) ^ self.a.val().get_bit(31))
                        & (self.a.val() != self.b.val()))
                {
                    self.result.next = self.b.val();
                }
            }
        }
    }
}
