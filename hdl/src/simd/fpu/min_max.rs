//! One IEEE `minNum`/`maxNum` step of the f32 contract (ieee_mode 1): `v_min/max_f32` are one
//! step, `v_min3/max3_f32` two in a row, and so is `v_med3_f32` with a NaN operand.

use rust_hdl::prelude::*;

/// minNum or maxNum of two flushed f32 (combinational). If exactly one operand is NaN the
/// result is the other; if both are, `a` quieted. -0 is less than +0.
#[derive(LogicBlock, Default)]
pub struct FpMinMax {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    /// maxNum (else minNum).
    pub max: Signal<In, Bit>,
    pub result: Signal<Out, Bits<32>>,
    /// Total-order keys: negative values inverted, positive ones with bit 31 set, so that
    /// an unsigned compare orders them (-0 below +0).
    ka: Signal<Local, Bits<32>>,
    kb: Signal<Local, Bits<32>>,
}

impl Logic for FpMinMax {
    #[hdl_gen]
    fn update(&mut self) {
        self.ka.next = self.a.val() | 0x8000_0000_u64;
        if self.a.val().get_bit(31) {
            self.ka.next = !self.a.val();
        }
        self.kb.next = self.b.val() | 0x8000_0000_u64;
        if self.b.val().get_bit(31) {
            self.kb.next = !self.b.val();
        }
        self.result.next = self.a.val();
        if (self.a.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
            self.result.next = self.a.val() | 0x0040_0000_u64;
            if (self.b.val() & 0x7FFF_FFFF_u64) <= 0x7F80_0000_u64 {
                self.result.next = self.b.val();
            }
        } else if (self.b.val() & 0x7FFF_FFFF_u64) <= 0x7F80_0000_u64 {
            if self.max.val() {
                if self.kb.val() > self.ka.val() {
                    self.result.next = self.b.val();
                }
            } else if self.kb.val() < self.ka.val() {
                self.result.next = self.b.val();
            }
        }
    }
}
