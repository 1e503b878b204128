//! The f32 rounder shared by every operation that rounds: normalise, round to nearest even,
//! overflow to infinity, gradual underflow, then the output flush of clang's gfx803 mode.
//!
//! The operand is `sig · 2^(exp - 1024 - 127 - 63)`: a 64-bit significand whose bit 63 is the
//! hidden bit when normalised, and the f32 biased exponent offset by 1024 so that the
//! intermediate exponents of products, cancellations and `ldexp` stay unsigned in 12 bits.
//! Lost low bits must already be ORed into `sig` bit 0 (a sticky bit far below the rounding
//! position). Rounding happens once, as IEEE does with gradual underflow; a result that is then
//! subnormal flushes to zero of its sign. The only subnormal-range value that survives is one
//! that rounds up to the smallest normal 2^-126, which is why the exponent-0 case is kept.

use rust_hdl::prelude::*;

/// Exponent offset of the rounder's input (see the module documentation).
pub const EXP_OFFSET: u64 = 1024;

/// Normalise, round (RNE) and flush one f32 (combinational).
#[derive(LogicBlock)]
pub struct FpRound {
    pub sign: Signal<In, Bit>,
    /// Biased f32 exponent of `sig` bit 63, plus [`EXP_OFFSET`].
    pub exp: Signal<In, Bits<12>>,
    pub sig: Signal<In, Bits<64>>,
    pub result: Signal<Out, Bits<32>>,
    /// The significand shifted until bit 63 is set, and its exponent.
    norm: Signal<Local, Bits<64>>,
    e: Signal<Local, Bits<12>>,
    /// The 24 bits kept (hidden bit included) and the round-up decision.
    mant: Signal<Local, Bits<32>>,
    up: Signal<Local, Bit>,
    /// The sign as bit 31.
    s32: Signal<Local, Bits<32>>,
    top32: Constant<Bits<64>>,
    top16: Constant<Bits<64>>,
    top8: Constant<Bits<64>>,
    top4: Constant<Bits<64>>,
    top2: Constant<Bits<64>>,
    top1: Constant<Bits<64>>,
    /// The bits below the guard bit (39).
    below_guard: Constant<Bits<64>>,
    /// Offset exponents of 2^0 (subnormal range at or below) and of infinity.
    exp_zero: Constant<Bits<12>>,
    exp_inf: Constant<Bits<12>>,
}

impl Default for FpRound {
    fn default() -> Self {
        FpRound {
            sign: Default::default(),
            exp: Default::default(),
            sig: Default::default(),
            result: Default::default(),
            norm: Default::default(),
            e: Default::default(),
            mant: Default::default(),
            up: Default::default(),
            s32: Default::default(),
            top32: Constant::new(0xFFFF_FFFF_0000_0000u64.to_bits()),
            top16: Constant::new(0xFFFF_0000_0000_0000u64.to_bits()),
            top8: Constant::new(0xFF00_0000_0000_0000u64.to_bits()),
            top4: Constant::new(0xF000_0000_0000_0000u64.to_bits()),
            top2: Constant::new(0xC000_0000_0000_0000u64.to_bits()),
            top1: Constant::new(0x8000_0000_0000_0000u64.to_bits()),
            below_guard: Constant::new(0x0000_007F_FFFF_FFFFu64.to_bits()),
            exp_zero: Constant::new(EXP_OFFSET.to_bits()),
            exp_inf: Constant::new((EXP_OFFSET + 255).to_bits()),
        }
    }
}

impl Logic for FpRound {
    #[hdl_gen]
    fn update(&mut self) {
        self.norm.next = self.sig.val();
        self.e.next = self.exp.val();
        self.mant.next = 0.into();
        self.up.next = false;
        self.s32.next = 0.into();
        if self.sign.val() {
            self.s32.next = 0x8000_0000_u64.into();
        }
        self.result.next = self.s32.val();
        // A zero significand is an exact zero: the caller chose its sign.
        if self.sig.val().any() {
            // Leading zeros by halving, as the lane's bit scans do.
            if !(self.norm.val() & self.top32.val()).any() {
                self.norm.next = self.norm.val() << 32;
                self.e.next = self.e.val() - 32;
            }
            if !(self.norm.val() & self.top16.val()).any() {
                self.norm.next = self.norm.val() << 16;
                self.e.next = self.e.val() - 16;
            }
            if !(self.norm.val() & self.top8.val()).any() {
                self.norm.next = self.norm.val() << 8;
                self.e.next = self.e.val() - 8;
            }
            if !(self.norm.val() & self.top4.val()).any() {
                self.norm.next = self.norm.val() << 4;
                self.e.next = self.e.val() - 4;
            }
            if !(self.norm.val() & self.top2.val()).any() {
                self.norm.next = self.norm.val() << 2;
                self.e.next = self.e.val() - 2;
            }
            if !(self.norm.val() & self.top1.val()).any() {
                self.norm.next = self.norm.val() << 1;
                self.e.next = self.e.val() - 1;
            }
            self.mant.next = bit_cast::<32, 64>(self.norm.val() >> 40);
            // Round to nearest, ties to even: guard bit 39, sticky below it, lsb bit 40.
            self.up.next = self.norm.val().get_bit(39)
                & ((self.norm.val() & self.below_guard.val()).any() | self.norm.val().get_bit(40));
            if self.e.val() >= self.exp_inf.val() {
                self.result.next = self.s32.val() | 0x7F80_0000_u64;
            } else if self.e.val() > self.exp_zero.val() {
                // The carry of the round-up moves into the exponent field, up to infinity.
                self.result.next = self.s32.val()
                    | (((bit_cast::<32, 12>(self.e.val() - self.exp_zero.val()) << 23)
                        | (self.mant.val() & 0x7F_FFFF_u64))
                        + self.up.val());
            } else if (self.e.val() == self.exp_zero.val()) & (self.mant.val() == 0xFF_FFFF_u64) {
                // In [2^-127, 2^-126): subnormal precision (lsb bit 41, guard bit 40) rounds
                // up to 2^-126 exactly when bits 63..40 are all ones.
                self.result.next = self.s32.val() | 0x0080_0000_u64;
            }
        }
    }
}
