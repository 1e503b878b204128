//! The f32 unit of one lane: every f32 VALU operation of issue 11, in the order of the f32
//! contract (docs/float.md).
//!
//! 1. VOP3 input modifiers on each source: `abs` clears bit 31, then `neg` flips it.
//! 2. Input flush: a denormal source becomes zero of its sign (clang's gfx803 mode), except
//!    for `v_cmp_class_f32`, which classifies the unflushed value.
//! 3. The operation: additions, multiplications and both halves of the unfused multiply-add
//!    in [`FpFma`] (also `v_div_fmas_f32`, whose scaling comes before the rounding);
//!    conversions from integers, `ldexp` (and `v_div_scale_f32`'s), the reciprocal and the
//!    transcendentals in [`FpRound`], after the contract's fixed-point algorithms of
//!    `v_exp/log_f32` in [`FpExpLog`] and `v_sin/cos_f32` in [`FpSinCos`]; the `minNum`/`maxNum`
//!    steps of min/max/min3/max3 in [`FpMinMax`] (two in a row);
//!    compares, classes, the median, the conversions to integers, the integral roundings,
//!    `frexp` and the square root's own rounding here.
//! 4. `omod` (x2, x4, /2) and `clamp` on f32 results (NaN and negatives to +0, above 1.0 to
//!    1.0, dx10 mode).
//!
//! The unit is combinational; the lane's pass cycle holds it (docs/timing.md). Its children
//! do the expensive work only for the operations that use them: an idle child sees zero
//! inputs (`FpFma`, `FpMinMax`) or an op that is not its own (`FpExpLog`, `FpSinCos`) and
//! returns at once, which keeps the vector unit's simulation speed for integer kernels. The reciprocal is a 27-step restoring division and the square root a 25-step
//! restoring root on 32-bit words, so neither needs a wide adder.

mod exp_log;
mod fma;
mod min_max;
mod round;
mod sin_cos;

pub use exp_log::FpExpLog;
pub use fma::FpFma;
pub use min_max::FpMinMax;
pub use round::{FpRound, EXP_OFFSET};
pub use sin_cos::FpSinCos;

use rust_hdl::prelude::*;

use super::ValuOp;

/// Bits of the lane's modifier word (`fmod`): `abs` of sources 0..2, `neg` of sources 0..2,
/// `omod` (0 none, 1 x2, 2 x4, 3 /2, the VOP3 field) and `clamp`.
pub const FMOD_ABS: usize = 0;
pub const FMOD_NEG: usize = 3;
pub const FMOD_OMOD: usize = 6;
pub const FMOD_CLAMP: usize = 8;
/// Width of the modifier word.
pub const FMOD_BITS: usize = 9;

/// The modifier word of an instruction: `abs` and `neg` are 3-bit masks (bit n = source n).
pub fn fmod_word(abs: u8, neg: u8, omod: u8, clamp: bool) -> u64 {
    (abs as u64 & 7) << FMOD_ABS
        | (neg as u64 & 7) << FMOD_NEG
        | (omod as u64 & 3) << FMOD_OMOD
        | (clamp as u64) << FMOD_CLAMP
}

/// One lane's f32 datapath (combinational).
#[derive(LogicBlock)]
pub struct LaneFpu {
    pub op: Signal<In, ValuOp>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    /// Input and output modifiers (see [`fmod_word`]).
    pub fmod: Signal<In, Bits<FMOD_BITS>>,
    /// The lane's mask bit: VCC of `v_div_fmas_f32`.
    pub m: Signal<In, Bit>,
    pub result: Signal<Out, Bits<32>>,
    /// Compare and class outcome.
    pub flag: Signal<Out, Bit>,
    /// Additions, products, `v_mad_f32`'s product (`fma0`) and its sum (`fma1`).
    pub fma0: FpFma,
    pub fma1: FpFma,
    /// Rounding of integer conversions, `ldexp`, the reciprocal and the transcendentals.
    pub rnd: FpRound,
    /// The minNum/maxNum steps: (a, b), then (that, c).
    pub mm0: FpMinMax,
    pub mm1: FpMinMax,
    /// `v_exp_f32` and `v_log_f32`, `v_sin_f32` and `v_cos_f32` up to their rounding.
    pub xl: FpExpLog,
    pub sc: FpSinCos,
    /// Sources a and b after the input modifiers (before the flush): also what
    /// `v_cndmask_b32` selects between, so its `abs`/`neg` are these bit operations too.
    pub x: Signal<Out, Bits<32>>,
    pub y: Signal<Out, Bits<32>>,
    /// Source c after the input modifiers, then the flushed sources and magnitudes.
    z: Signal<Local, Bits<32>>,
    fx: Signal<Local, Bits<32>>,
    fy: Signal<Local, Bits<32>>,
    fz: Signal<Local, Bits<32>>,
    ax: Signal<Local, Bits<32>>,
    ay: Signal<Local, Bits<32>>,
    az: Signal<Local, Bits<32>>,
    /// The f32 result before omod and clamp, and whether the op has one.
    r: Signal<Local, Bits<32>>,
    fres: Signal<Local, Bit>,
    /// Compares: unordered, a < b, a == b, a > b (-0 == +0).
    unord: Signal<Local, Bit>,
    lt: Signal<Local, Bit>,
    eq: Signal<Local, Bit>,
    gt: Signal<Local, Bit>,
    /// The median's total-order keys (negative values inverted, positive ones with bit 31
    /// set) and its ordered pair; also exponent fields and scratch words of other ops.
    k0: Signal<Local, Bits<32>>,
    k1: Signal<Local, Bits<32>>,
    l0: Signal<Local, Bits<32>>,
    l1: Signal<Local, Bits<32>>,
    kz: Signal<Local, Bits<32>>,
    /// `v_cmp_class_f32`: the class number of the unflushed source.
    cls: Signal<Local, Bits<4>>,
    /// Integral rounding of fx (exponent 127..149): fraction mask, fraction, truncation,
    /// the truncation one unit up, and the results floor, ceil, rndne, round-half-up.
    fmask: Signal<Local, Bits<32>>,
    frac: Signal<Local, Bits<32>>,
    trunc: Signal<Local, Bits<32>>,
    bump: Signal<Local, Bits<32>>,
    flr: Signal<Local, Bits<32>>,
    cel: Signal<Local, Bits<32>>,
    rne: Signal<Local, Bits<32>>,
    rhu: Signal<Local, Bits<32>>,
    /// Conversion to an integer of `t` (an f32): exponent, significand, magnitude.
    t: Signal<Local, Bits<32>>,
    te: Signal<Local, Bits<32>>,
    tsig: Signal<Local, Bits<32>>,
    tmag: Signal<Local, Bits<32>>,
    /// Square root: radicand bits, remainder, root; reciprocal: divisor, exponent,
    /// remainder, quotient.
    rad: Signal<Local, Bits<32>>,
    srem: Signal<Local, Bits<32>>,
    root: Signal<Local, Bits<32>>,
    /// The square root as an f32, a local of its own so that `v_rsq_f32`'s divisor `dv` does
    /// not read `r`, which other operations take from the rounder: through `r`, Verilator's
    /// scheduler would see a loop from the rounder's output back to its input.
    sq: Signal<Local, Bits<32>>,
    dv: Signal<Local, Bits<32>>,
    drem: Signal<Local, Bits<32>>,
    quo: Signal<Local, Bits<32>>,
    /// `ldexp` of fx by `lde` (clamped) is the result: `v_ldexp_f32` and `v_div_scale_f32`.
    lde: Signal<Local, Bits<32>>,
    scl: Signal<Local, Bit>,
    /// `v_div_scale_f32`: the quotient n / d is below 2^-126.
    tiny: Signal<Local, Bit>,
    /// `v_div_scale_f32`: the denominator is finite and above 2^126.
    huge: Signal<Local, Bit>,
    /// The reciprocal's significand for the rounder (quotient and sticky bit).
    wide: Signal<Local, Bits<64>>,
    /// `MaxF`/`Max3F`: the min/max steps keep the larger operand.
    take_max: Signal<Local, Bit>,
    /// Output modifier: the result's exponent field.
    oe: Signal<Local, Bits<32>>,
    one: Constant<Bits<32>>,
    neg_zero: Constant<Bits<32>>,
    ones: Constant<Bits<32>>,
    exp_offset: Constant<Bits<12>>,
    /// Offset exponent of 2^127 · 2^127 / x's top quotient bit: 254 + 1024.
    exp_rcp: Constant<Bits<12>>,
}

impl Default for LaneFpu {
    fn default() -> Self {
        LaneFpu {
            op: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            fmod: Default::default(),
            m: Default::default(),
            result: Default::default(),
            flag: Default::default(),
            fma0: Default::default(),
            fma1: Default::default(),
            rnd: Default::default(),
            mm0: Default::default(),
            mm1: Default::default(),
            xl: Default::default(),
            sc: Default::default(),
            x: Default::default(),
            y: Default::default(),
            z: Default::default(),
            fx: Default::default(),
            fy: Default::default(),
            fz: Default::default(),
            ax: Default::default(),
            ay: Default::default(),
            az: Default::default(),
            r: Default::default(),
            fres: Default::default(),
            unord: Default::default(),
            lt: Default::default(),
            eq: Default::default(),
            gt: Default::default(),
            k0: Default::default(),
            k1: Default::default(),
            l0: Default::default(),
            l1: Default::default(),
            kz: Default::default(),
            cls: Default::default(),
            fmask: Default::default(),
            frac: Default::default(),
            trunc: Default::default(),
            bump: Default::default(),
            flr: Default::default(),
            cel: Default::default(),
            rne: Default::default(),
            rhu: Default::default(),
            t: Default::default(),
            te: Default::default(),
            tsig: Default::default(),
            tmag: Default::default(),
            rad: Default::default(),
            srem: Default::default(),
            root: Default::default(),
            sq: Default::default(),
            dv: Default::default(),
            drem: Default::default(),
            quo: Default::default(),
            lde: Default::default(),
            scl: Default::default(),
            tiny: Default::default(),
            huge: Default::default(),
            wide: Default::default(),
            take_max: Default::default(),
            oe: Default::default(),
            one: Constant::new(0x3F80_0000u64.to_bits()),
            neg_zero: Constant::new(0x8000_0000u64.to_bits()),
            ones: Constant::new(0xFFFF_FFFFu64.to_bits()),
            exp_offset: Constant::new(EXP_OFFSET.to_bits()),
            exp_rcp: Constant::new((EXP_OFFSET + 254).to_bits()),
        }
    }
}

impl Logic for LaneFpu {
    #[hdl_gen]
    fn update(&mut self) {
        // Input modifiers (bit operations, NaNs included), then the input flush.
        self.x.next = self.a.val();
        self.y.next = self.b.val();
        self.z.next = self.c.val();
        if self.fmod.val().get_bit(0) {
            self.x.next = self.x.val() & 0x7FFF_FFFF_u64;
        }
        if self.fmod.val().get_bit(1) {
            self.y.next = self.y.val() & 0x7FFF_FFFF_u64;
        }
        if self.fmod.val().get_bit(2) {
            self.z.next = self.z.val() & 0x7FFF_FFFF_u64;
        }
        if self.fmod.val().get_bit(3) {
            self.x.next = self.x.val() ^ self.neg_zero.val();
        }
        if self.fmod.val().get_bit(4) {
            self.y.next = self.y.val() ^ self.neg_zero.val();
        }
        if self.fmod.val().get_bit(5) {
            self.z.next = self.z.val() ^ self.neg_zero.val();
        }
        self.fx.next = self.x.val();
        self.fy.next = self.y.val();
        self.fz.next = self.z.val();
        if (self.x.val() & 0x7F80_0000_u64) == 0 {
            self.fx.next = self.x.val() & self.neg_zero.val();
        }
        if (self.y.val() & 0x7F80_0000_u64) == 0 {
            self.fy.next = self.y.val() & self.neg_zero.val();
        }
        if (self.z.val() & 0x7F80_0000_u64) == 0 {
            self.fz.next = self.z.val() & self.neg_zero.val();
        }
        self.ax.next = self.fx.val() & 0x7FFF_FFFF_u64;
        self.ay.next = self.fy.val() & 0x7FFF_FFFF_u64;
        self.az.next = self.fz.val() & 0x7FFF_FFFF_u64;

        self.result.next = 0.into();
        self.flag.next = false;
        self.r.next = 0.into();
        self.fres.next = false;
        self.unord.next = false;
        self.lt.next = false;
        self.eq.next = false;
        self.gt.next = false;
        self.k0.next = 0.into();
        self.k1.next = 0.into();
        self.l0.next = 0.into();
        self.l1.next = 0.into();
        self.kz.next = 0.into();
        self.cls.next = 0.into();
        self.fmask.next = 0.into();
        self.frac.next = 0.into();
        self.trunc.next = 0.into();
        self.bump.next = 0.into();
        self.flr.next = 0.into();
        self.cel.next = 0.into();
        self.rne.next = 0.into();
        self.rhu.next = 0.into();
        self.t.next = 0.into();
        self.te.next = self.ax.val() >> 23;
        self.tsig.next = 0.into();
        self.tmag.next = 0.into();
        self.rad.next = 0.into();
        self.srem.next = 0.into();
        self.root.next = 0.into();
        self.sq.next = 0.into();
        self.dv.next = 0.into();
        self.drem.next = 0.into();
        self.quo.next = 0.into();
        self.lde.next = 0.into();
        self.scl.next = false;
        self.tiny.next = false;
        self.huge.next = false;
        self.wide.next = 0.into();
        self.take_max.next = (self.op.val() == ValuOp::MaxF) | (self.op.val() == ValuOp::Max3F);
        self.oe.next = 0.into();
        self.fma0.a.next = 0.into();
        self.fma0.b.next = 0.into();
        self.fma0.c.next = 0.into();
        self.fma1.a.next = 0.into();
        self.fma1.b.next = 0.into();
        self.fma1.c.next = 0.into();
        self.fma0.scale.next = 0.into();
        self.fma1.scale.next = 0.into();
        self.rnd.sign.next = false;
        self.rnd.exp.next = 0.into();
        self.rnd.sig.next = 0.into();
        self.mm0.a.next = 0.into();
        self.mm0.b.next = 0.into();
        self.mm0.max.next = false;
        self.mm1.a.next = 0.into();
        self.mm1.b.next = 0.into();
        self.mm1.max.next = false;
        self.xl.a.next = 0.into();
        self.xl.op.next = self.op.val();
        self.sc.a.next = 0.into();
        self.sc.op.next = self.op.val();

        // Sums and products.
        if self.op.val() == ValuOp::AddF {
            self.fma0.a.next = self.fx.val();
            self.fma0.b.next = self.one.val();
            self.fma0.c.next = self.fy.val();
        }
        if self.op.val() == ValuOp::SubF {
            self.fma0.a.next = self.fx.val();
            self.fma0.b.next = self.one.val();
            // A NaN subtrahend is returned as it is, not negated.
            self.fma0.c.next = self.fy.val();
            if self.ay.val() <= 0x7F80_0000_u64 {
                self.fma0.c.next = self.fy.val() ^ self.neg_zero.val();
            }
        }
        if (self.op.val() == ValuOp::MulF) | (self.op.val() == ValuOp::MadF) {
            self.fma0.a.next = self.fx.val();
            self.fma0.b.next = self.fy.val();
            self.fma0.c.next = self.neg_zero.val();
        }
        if self.op.val() == ValuOp::FmaF {
            self.fma0.a.next = self.fx.val();
            self.fma0.b.next = self.fy.val();
            self.fma0.c.next = self.fz.val();
        }
        if (self.op.val() == ValuOp::AddF)
            | (self.op.val() == ValuOp::SubF)
            | (self.op.val() == ValuOp::MulF)
            | (self.op.val() == ValuOp::FmaF)
        {
            self.r.next = self.fma0.result.val();
            self.fres.next = true;
        }
        if self.op.val() == ValuOp::MadF {
            self.fma1.a.next = self.fma0.result.val();
            self.fma1.b.next = self.one.val();
            self.fma1.c.next = self.fz.val();
            self.r.next = self.fma1.result.val();
            // The first NaN source, even when the product alone is invalid (0 · inf).
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            } else if self.ay.val() > 0x7F80_0000_u64 {
                self.r.next = self.fy.val() | 0x0040_0000_u64;
            } else if self.az.val() > 0x7F80_0000_u64 {
                self.r.next = self.fz.val() | 0x0040_0000_u64;
            }
            self.fres.next = true;
        }

        // minNum/maxNum steps, then the median of three ordered values.
        if (self.op.val() == ValuOp::MinF)
            | (self.op.val() == ValuOp::MaxF)
            | (self.op.val() == ValuOp::Min3F)
            | (self.op.val() == ValuOp::Max3F)
            | (self.op.val() == ValuOp::Med3F)
        {
            self.mm0.a.next = self.fx.val();
            self.mm0.b.next = self.fy.val();
            self.mm0.max.next = self.take_max.val();
            self.r.next = self.mm0.result.val();
            if (self.op.val() == ValuOp::Min3F)
                | (self.op.val() == ValuOp::Max3F)
                | (self.op.val() == ValuOp::Med3F)
            {
                self.mm1.a.next = self.mm0.result.val();
                self.mm1.b.next = self.fz.val();
                self.mm1.max.next = self.take_max.val();
                self.r.next = self.mm1.result.val();
            }
            self.fres.next = true;
            if (self.op.val() == ValuOp::Med3F)
                & (self.ax.val() <= 0x7F80_0000_u64)
                & (self.ay.val() <= 0x7F80_0000_u64)
                & (self.az.val() <= 0x7F80_0000_u64)
            {
                // max(min(a, b), min(max(a, b), c)) on the keys, then back to a value.
                self.k0.next = self.fx.val() | self.neg_zero.val();
                if self.fx.val().get_bit(31) {
                    self.k0.next = !self.fx.val();
                }
                self.k1.next = self.fy.val() | self.neg_zero.val();
                if self.fy.val().get_bit(31) {
                    self.k1.next = !self.fy.val();
                }
                self.kz.next = self.fz.val() | self.neg_zero.val();
                if self.fz.val().get_bit(31) {
                    self.kz.next = !self.fz.val();
                }
                self.l0.next = self.k0.val();
                self.l1.next = self.k1.val();
                if self.k1.val() < self.k0.val() {
                    self.l0.next = self.k1.val();
                    self.l1.next = self.k0.val();
                }
                if self.kz.val() < self.l1.val() {
                    self.l1.next = self.kz.val();
                }
                if self.l0.val() > self.l1.val() {
                    self.l1.next = self.l0.val();
                }
                self.r.next = !self.l1.val();
                if self.l1.val().get_bit(31) {
                    self.r.next = self.l1.val() & 0x7FFF_FFFF_u64;
                }
            }
        }

        // Compares: ordered relations on the flushed values, -0 == +0.
        self.unord.next = (self.ax.val() > 0x7F80_0000_u64) | (self.ay.val() > 0x7F80_0000_u64);
        if !self.unord.val() {
            self.eq.next =
                (self.fx.val() == self.fy.val()) | ((self.ax.val() == 0) & (self.ay.val() == 0));
            if !self.eq.val() {
                // Both non-negative: magnitude order; both negative: reversed; else sign.
                if self.fx.val().get_bit(31) == self.fy.val().get_bit(31) {
                    self.lt.next = (self.ax.val() < self.ay.val()) ^ self.fx.val().get_bit(31);
                } else {
                    self.lt.next = self.fx.val().get_bit(31);
                }
                self.gt.next = !self.lt.val();
            }
        }
        match self.op.val() {
            ValuOp::CmpFalseF => self.flag.next = false,
            ValuOp::CmpLtF => self.flag.next = self.lt.val(),
            ValuOp::CmpEqF => self.flag.next = self.eq.val(),
            ValuOp::CmpLeF => self.flag.next = self.lt.val() | self.eq.val(),
            ValuOp::CmpGtF => self.flag.next = self.gt.val(),
            ValuOp::CmpLgF => self.flag.next = self.lt.val() | self.gt.val(),
            ValuOp::CmpGeF => self.flag.next = self.gt.val() | self.eq.val(),
            ValuOp::CmpOF => self.flag.next = !self.unord.val(),
            ValuOp::CmpUF => self.flag.next = self.unord.val(),
            ValuOp::CmpNgeF => self.flag.next = !(self.gt.val() | self.eq.val()),
            ValuOp::CmpNlgF => self.flag.next = !(self.lt.val() | self.gt.val()),
            ValuOp::CmpNgtF => self.flag.next = !self.gt.val(),
            ValuOp::CmpNleF => self.flag.next = !(self.lt.val() | self.eq.val()),
            ValuOp::CmpNeqF => self.flag.next = !self.eq.val(),
            ValuOp::CmpNltF => self.flag.next = !self.lt.val(),
            ValuOp::CmpTrueF => self.flag.next = true,
            ValuOp::CmpClassF => {
                // The unflushed source: denormals are their own classes.
                self.l0.next = self.x.val() & 0x7FFF_FFFF_u64;
                if self.l0.val() > 0x7F80_0000_u64 {
                    self.cls.next = 0.into();
                    if self.l0.val().get_bit(22) {
                        self.cls.next = 1.into();
                    }
                } else if self.l0.val() == 0x7F80_0000_u64 {
                    self.cls.next = 9.into();
                    if self.x.val().get_bit(31) {
                        self.cls.next = 2.into();
                    }
                } else if self.l0.val() >= 0x0080_0000_u64 {
                    self.cls.next = 8.into();
                    if self.x.val().get_bit(31) {
                        self.cls.next = 3.into();
                    }
                } else if self.l0.val().any() {
                    self.cls.next = 7.into();
                    if self.x.val().get_bit(31) {
                        self.cls.next = 4.into();
                    }
                } else {
                    self.cls.next = 6.into();
                    if self.x.val().get_bit(31) {
                        self.cls.next = 5.into();
                    }
                }
                self.flag.next = self.y.val().get_bit(self.cls.val().index());
            }
            _ => {}
        }

        // Integers to f32: the magnitude at bit 32 of the rounder's window is 2^31 · 2^0.
        if (self.op.val() == ValuOp::CvtF32I32)
            | (self.op.val() == ValuOp::CvtF32U32)
            | (self.op.val() == ValuOp::CvtF32Ubyte0)
            | (self.op.val() == ValuOp::CvtF32Ubyte1)
            | (self.op.val() == ValuOp::CvtF32Ubyte2)
            | (self.op.val() == ValuOp::CvtF32Ubyte3)
        {
            self.tmag.next = self.x.val();
            if (self.op.val() == ValuOp::CvtF32I32) & self.x.val().get_bit(31) {
                self.rnd.sign.next = true;
                self.tmag.next = self.ones.val() - self.x.val() + 1;
            }
            if self.op.val() == ValuOp::CvtF32Ubyte0 {
                self.tmag.next = self.x.val() & 0xFF_u64;
            }
            if self.op.val() == ValuOp::CvtF32Ubyte1 {
                self.tmag.next = (self.x.val() >> 8) & 0xFF_u64;
            }
            if self.op.val() == ValuOp::CvtF32Ubyte2 {
                self.tmag.next = (self.x.val() >> 16) & 0xFF_u64;
            }
            if self.op.val() == ValuOp::CvtF32Ubyte3 {
                self.tmag.next = self.x.val() >> 24;
            }
            self.rnd.sig.next = bit_cast::<64, 32>(self.tmag.val()) << 32;
            self.rnd.exp.next = self.exp_offset.val() + 158;
            self.r.next = self.rnd.result.val();
            self.fres.next = true;
        }

        // Rounding to an integral value: with exponent e in 127..149 the low 150 - e bits
        // are the fraction; below, |x| < 1; above (and inf, NaN), x is integral.
        if (self.op.val() == ValuOp::FloorF)
            | (self.op.val() == ValuOp::CeilF)
            | (self.op.val() == ValuOp::TruncF)
            | (self.op.val() == ValuOp::RndneF)
            | (self.op.val() == ValuOp::FractF)
            | (self.op.val() == ValuOp::CvtFlrI32F32)
            | (self.op.val() == ValuOp::CvtRpiI32F32)
        {
            if self.te.val() >= 150 {
                self.trunc.next = self.fx.val();
                self.flr.next = self.fx.val();
                self.cel.next = self.fx.val();
                self.rne.next = self.fx.val();
                self.rhu.next = self.fx.val();
            } else if self.te.val() >= 127 {
                self.fmask.next = self.ones.val() >> (self.te.val() - 118);
                self.frac.next = self.fx.val() & self.fmask.val();
                self.trunc.next = self.fx.val() & !self.fmask.val();
                // One unit up in magnitude; a carry into the exponent is still exact.
                self.bump.next = self.trunc.val() + self.fmask.val() + 1;
                self.flr.next = self.trunc.val();
                self.cel.next = self.trunc.val();
                self.rne.next = self.trunc.val();
                self.rhu.next = self.trunc.val();
                if self.frac.val().any() {
                    if self.fx.val().get_bit(31) {
                        self.flr.next = self.bump.val();
                    } else {
                        self.cel.next = self.bump.val();
                    }
                }
                // Half a unit is fmask / 2 + 1; ties go to the even integer (bit 150 - e).
                if (self.frac.val() > (self.fmask.val() >> 1) + 1)
                    | ((self.frac.val() == (self.fmask.val() >> 1) + 1)
                        & (self.fx.val() & (self.fmask.val() + 1)).any())
                {
                    self.rne.next = self.bump.val();
                }
                // floor(x + 0.5): ties go up, which is away from zero only when positive.
                if (self.frac.val() > (self.fmask.val() >> 1) + 1)
                    | ((self.frac.val() == (self.fmask.val() >> 1) + 1)
                        & !self.fx.val().get_bit(31))
                {
                    self.rhu.next = self.bump.val();
                }
            } else {
                self.trunc.next = self.fx.val() & self.neg_zero.val();
                self.flr.next = self.trunc.val();
                self.cel.next = self.trunc.val();
                self.rne.next = self.trunc.val();
                if self.ax.val().any() {
                    if self.fx.val().get_bit(31) {
                        self.flr.next = 0xBF80_0000_u64.into();
                    } else {
                        self.cel.next = self.one.val();
                    }
                }
                if (self.te.val() == 126) & (self.ax.val() & 0x7F_FFFF_u64).any() {
                    self.rne.next = self.trunc.val() | self.one.val();
                }
                if self.te.val() == 126 {
                    if !self.fx.val().get_bit(31) {
                        self.rhu.next = self.one.val();
                    } else if (self.ax.val() & 0x7F_FFFF_u64).any() {
                        self.rhu.next = 0xBF80_0000_u64.into();
                    }
                }
            }
            self.fres.next = true;
            if self.op.val() == ValuOp::FloorF {
                self.r.next = self.flr.val();
            }
            if self.op.val() == ValuOp::CeilF {
                self.r.next = self.cel.val();
            }
            if self.op.val() == ValuOp::TruncF {
                self.r.next = self.trunc.val();
            }
            if self.op.val() == ValuOp::RndneF {
                self.r.next = self.rne.val();
            }
            if self.op.val() == ValuOp::FractF {
                // x - floor(x), kept below 1.0 (it rounds to 1.0 for tiny negative x).
                self.fma0.a.next = self.fx.val();
                self.fma0.b.next = self.one.val();
                self.fma0.c.next = self.flr.val() ^ self.neg_zero.val();
                self.r.next = self.fma0.result.val();
                if self.fma0.result.val() > 0x3F7F_FFFF_u64 {
                    self.r.next = 0x3F7F_FFFF_u64.into();
                }
                if self.ax.val() == 0x7F80_0000_u64 {
                    self.r.next = 0x7FC0_0000_u64.into();
                }
            }
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            }
        }

        // f32 to integers: truncate toward zero, saturate, NaN -> 0.
        if (self.op.val() == ValuOp::CvtI32F32)
            | (self.op.val() == ValuOp::CvtU32F32)
            | (self.op.val() == ValuOp::CvtFlrI32F32)
            | (self.op.val() == ValuOp::CvtRpiI32F32)
        {
            self.fres.next = false;
            self.t.next = self.fx.val();
            if self.op.val() == ValuOp::CvtFlrI32F32 {
                self.t.next = self.flr.val();
            }
            if self.op.val() == ValuOp::CvtRpiI32F32 {
                self.t.next = self.rhu.val();
            }
            self.te.next = (self.t.val() & 0x7FFF_FFFF_u64) >> 23;
            self.tsig.next = (self.t.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
            if self.te.val() >= 150 {
                self.tmag.next = self.tsig.val() << (self.te.val() - 150);
            } else if self.te.val() >= 127 {
                self.tmag.next = self.tsig.val() >> (self.ones.val() - self.te.val() + 151);
            }
            if self.op.val() == ValuOp::CvtU32F32 {
                self.r.next = self.tmag.val();
                if self.te.val() >= 159 {
                    self.r.next = self.ones.val();
                }
                if self.t.val().get_bit(31) {
                    self.r.next = 0.into();
                }
            } else {
                self.r.next = self.tmag.val();
                if self.t.val().get_bit(31) {
                    self.r.next = self.ones.val() - self.tmag.val() + 1;
                }
                if self.te.val() >= 158 {
                    self.r.next = 0x7FFF_FFFF_u64.into();
                    if self.t.val().get_bit(31) {
                        self.r.next = self.neg_zero.val();
                    }
                }
            }
            if (self.t.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
                self.r.next = 0.into();
            }
        }

        // v_div_scale_f32 (b = denominator d, c = numerator n): the first rule that matches
        // sets the flag and/or scales a by 2^±64 (docs/float.md); n / d is tiny when
        // |n| · 2^126 < |d|, compared exactly on (exponent, fraction), and both are finite; d
        // is huge when finite and above 2^126 (an integer inline constant such as -9 is a NaN
        // here, which neither rule may take).
        if self.op.val() == ValuOp::DivScaleF {
            self.fres.next = true;
            self.r.next = self.fx.val();
            self.k0.next = self.az.val() >> 23;
            self.k1.next = self.ay.val() >> 23;
            self.tiny.next = ((((self.k0.val() + 126) << 23) | (self.az.val() & 0x7F_FFFF_u64))
                < self.ay.val())
                & (self.ay.val() < 0x7F80_0000_u64)
                & (self.az.val() < 0x7F80_0000_u64);
            self.huge.next = (self.ay.val() > 0x7E80_0000_u64) & (self.ay.val() < 0x7F80_0000_u64);
            if !self.ay.val().any() | !self.az.val().any() {
                self.r.next = 0x7FC0_0000_u64.into();
            } else if self.k0.val() >= self.k1.val() + 96 {
                self.flag.next = true;
                if self.fx.val() == self.fy.val() {
                    self.scl.next = true;
                    self.lde.next = 64.into();
                }
            } else if self.huge.val() & self.tiny.val() {
                self.flag.next = true;
                if self.fx.val() == self.fy.val() {
                    self.scl.next = true;
                    self.lde.next = self.ones.val() - 63;
                }
            } else if self.huge.val() {
                self.scl.next = true;
                self.lde.next = self.ones.val() - 63;
            } else if self.tiny.val() {
                self.flag.next = true;
                if self.fx.val() == self.fz.val() {
                    self.scl.next = true;
                    self.lde.next = 64.into();
                }
            } else if self.k0.val() <= 48 {
                self.scl.next = true;
                self.lde.next = 64.into();
            }
        }
        if self.op.val() == ValuOp::LdexpF {
            self.fres.next = true;
            self.r.next = self.fx.val();
            self.scl.next = true;
            // Exponents beyond ±600 overflow or flush whatever the rest.
            self.lde.next = self.y.val();
            if self.y.val().get_bit(31) {
                if self.y.val() < 0xFFFF_FDA8_u64 {
                    self.lde.next = 0xFFFF_FDA8_u64.into();
                }
            } else if self.y.val() > 600 {
                self.lde.next = 600.into();
            }
        }
        if self.scl.val() {
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            } else if self.ax.val().any() & (self.ax.val() != 0x7F80_0000_u64) {
                self.rnd.sign.next = self.fx.val().get_bit(31);
                self.rnd.sig.next =
                    bit_cast::<64, 32>((self.ax.val() & 0x7F_FFFF_u64) | 0x80_0000_u64) << 39;
                self.rnd.exp.next =
                    bit_cast::<12, 32>(self.te.val() + self.lde.val() + 1) + self.exp_offset.val();
                self.r.next = self.rnd.result.val();
            } else {
                self.r.next = self.fx.val();
            }
        }

        // v_div_fmas_f32: the fused multiply-add, its exact result scaled by 2^64 (|c| >= 2)
        // or 2^-64 before the rounding in lanes whose VCC bit is set.
        if self.op.val() == ValuOp::DivFmasF {
            self.fma0.a.next = self.fx.val();
            self.fma0.b.next = self.fy.val();
            self.fma0.c.next = self.fz.val();
            if self.m.val() {
                self.fma0.scale.next = 2.into();
                if (self.az.val() >> 23) > 127 {
                    self.fma0.scale.next = 1.into();
                }
            }
            self.r.next = self.fma0.result.val();
            self.fres.next = true;
        }

        // v_div_fixup_f32 (a = quotient q, b = denominator d, c = numerator n): a selection
        // of the special quotients, else q's magnitude with the quotient's sign.
        if self.op.val() == ValuOp::DivFixupF {
            self.fres.next = true;
            self.l0.next = (self.fy.val() ^ self.fz.val()) & self.neg_zero.val();
            if self.az.val() > 0x7F80_0000_u64 {
                self.r.next = self.fz.val() | 0x0040_0000_u64;
            } else if self.ay.val() > 0x7F80_0000_u64 {
                self.r.next = self.fy.val() | 0x0040_0000_u64;
            } else if (!self.ay.val().any() & !self.az.val().any())
                | ((self.ay.val() == 0x7F80_0000_u64) & (self.az.val() == 0x7F80_0000_u64))
            {
                self.r.next = 0xFFC0_0000_u64.into();
            } else if !self.ay.val().any() | (self.az.val() == 0x7F80_0000_u64) {
                self.r.next = self.l0.val() | 0x7F80_0000_u64;
            } else if (self.ay.val() == 0x7F80_0000_u64) | !self.az.val().any() {
                self.r.next = self.l0.val();
            } else if (self.az.val() >> 23) + 150 < (self.ay.val() >> 23) {
                self.r.next = self.l0.val();
            } else if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.l0.val() | 0x7F80_0000_u64;
            } else {
                self.r.next = self.l0.val() | self.ax.val();
            }
        }

        if self.op.val() == ValuOp::FrexpMantF {
            self.fres.next = true;
            self.r.next = self.fx.val();
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            } else if self.ax.val().any() & (self.ax.val() != 0x7F80_0000_u64) {
                self.r.next = (self.fx.val() & 0x807F_FFFF_u64) | 0x3F00_0000_u64;
            }
        }
        if self.op.val() == ValuOp::FrexpExpF {
            if self.ax.val().any() & (self.ax.val() < 0x7F80_0000_u64) {
                self.r.next = self.te.val() - 126;
            }
        }

        // Square root: a 25-bit root (hidden bit, 23 fraction bits, guard) from two radicand
        // bits per step; the exponent is halved, an odd unbiased one moving a bit into the
        // radicand.
        if (self.op.val() == ValuOp::SqrtF) | (self.op.val() == ValuOp::RsqF) {
            self.fres.next = true;
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            } else if !self.ax.val().any() {
                self.r.next = self.fx.val();
                if self.op.val() == ValuOp::RsqF {
                    self.r.next = self.fx.val() | 0x7F80_0000_u64;
                }
            } else if self.fx.val().get_bit(31) {
                self.r.next = 0x7FC0_0000_u64.into();
            } else if self.ax.val() == 0x7F80_0000_u64 {
                self.r.next = self.fx.val();
                if self.op.val() == ValuOp::RsqF {
                    self.r.next = 0.into();
                }
            } else {
                self.tsig.next = (self.ax.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
                self.rad.next = self.tsig.val() << 8;
                if self.te.val().get_bit(0) {
                    self.rad.next = self.tsig.val() << 7;
                }
                for _step in 0..25 {
                    self.srem.next = (self.srem.val() << 2) | (self.rad.val() >> 30);
                    self.rad.next = self.rad.val() << 2;
                    self.dv.next = (self.root.val() << 2) | 1;
                    self.root.next = self.root.val() << 1;
                    if self.srem.val() >= self.dv.val() {
                        self.srem.next = self.srem.val() - self.dv.val();
                        self.root.next = self.root.val() | 1;
                    }
                }
                self.sq.next = (((self.te.val() + 126 + (self.te.val() & 1)) >> 1) << 23)
                    + ((self.root.val() >> 1) & 0x7F_FFFF_u64)
                    + (self.root.val().get_bit(0)
                        & (self.srem.val().any() | self.root.val().get_bit(1)));
                self.r.next = self.sq.val();
                if self.op.val() == ValuOp::RsqF {
                    self.dv.next = self.sq.val();
                }
            }
        }
        if self.op.val() == ValuOp::RcpF {
            self.fres.next = true;
            if self.ax.val() > 0x7F80_0000_u64 {
                self.r.next = self.fx.val() | 0x0040_0000_u64;
            } else if !self.ax.val().any() {
                self.r.next = self.fx.val() | 0x7F80_0000_u64;
            } else if self.ax.val() == 0x7F80_0000_u64 {
                self.r.next = self.fx.val() & self.neg_zero.val();
            } else {
                self.dv.next = self.fx.val();
            }
        }
        // Reciprocal of dv (a normal number): 27 quotient bits of 2^23 / significand by
        // restoring division, the remainder as sticky bit.
        if self.dv.val().any() & ((self.op.val() == ValuOp::RcpF) | (self.op.val() == ValuOp::RsqF))
        {
            self.tsig.next = (self.dv.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
            self.drem.next = 0x80_0000_u64.into();
            for _step in 0..27 {
                self.quo.next = self.quo.val() << 1;
                if self.drem.val() >= self.tsig.val() {
                    self.drem.next = self.drem.val() - self.tsig.val();
                    self.quo.next = self.quo.val() | 1;
                }
                self.drem.next = self.drem.val() << 1;
            }
            self.wide.next = bit_cast::<64, 32>(self.quo.val()) << 37;
            if self.drem.val().any() {
                self.wide.next = self.wide.val() | 1;
            }
            self.rnd.sign.next = self.dv.val().get_bit(31);
            self.rnd.sig.next = self.wide.val();
            self.rnd.exp.next =
                self.exp_rcp.val() - bit_cast::<12, 32>((self.dv.val() >> 23) & 0xFF_u64);
            self.r.next = self.rnd.result.val();
        }

        // The transcendentals: a special operand's result from its block, any other through
        // the rounder.
        if (self.op.val() == ValuOp::ExpF) | (self.op.val() == ValuOp::LogF) {
            self.xl.a.next = self.fx.val();
            self.fres.next = true;
            self.r.next = self.xl.result.val();
            if self.xl.mag.val().any() {
                self.rnd.sign.next = self.xl.sign.val();
                self.rnd.exp.next = self.xl.exp.val();
                self.rnd.sig.next = self.xl.mag.val();
                self.r.next = self.rnd.result.val();
            }
        }
        if (self.op.val() == ValuOp::SinF) | (self.op.val() == ValuOp::CosF) {
            self.sc.a.next = self.fx.val();
            self.fres.next = true;
            self.r.next = self.sc.result.val();
            if self.sc.mag.val().any() {
                self.rnd.sign.next = self.sc.sign.val();
                self.rnd.exp.next = self.sc.exp.val();
                self.rnd.sig.next = self.sc.mag.val();
                self.r.next = self.rnd.result.val();
            }
        }

        // Output modifiers of f32 results: omod scales finite non-zero values exactly, except
        // for overflow and for /2 into the subnormal range (flushed, or rounded up to 2^-126
        // from 0x00FFFFFF); then clamp.
        self.result.next = self.r.val();
        if self.fres.val() {
            self.oe.next = (self.r.val() >> 23) & 0xFF_u64;
            if self.oe.val().any() & (self.oe.val() != 0xFF_u64) {
                if self.fmod.val().get_bits::<2>(6) == 1 {
                    self.result.next = self.r.val() + 0x80_0000_u64;
                    if self.oe.val() >= 254 {
                        self.result.next = (self.r.val() & self.neg_zero.val()) | 0x7F80_0000_u64;
                    }
                }
                if self.fmod.val().get_bits::<2>(6) == 2 {
                    self.result.next = self.r.val() + 0x100_0000_u64;
                    if self.oe.val() >= 253 {
                        self.result.next = (self.r.val() & self.neg_zero.val()) | 0x7F80_0000_u64;
                    }
                }
                if self.fmod.val().get_bits::<2>(6) == 3 {
                    self.result.next = self.r.val() - 0x80_0000_u64;
                    if self.oe.val() == 1 {
                        self.result.next = self.r.val() & self.neg_zero.val();
                        if (self.r.val() & 0x7F_FFFF_u64) == 0x7F_FFFF_u64 {
                            self.result.next = self.result.val() | 0x80_0000_u64;
                        }
                    }
                }
            }
            if self.fmod.val().get_bit(8) {
                if ((self.result.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64)
                    | self.result.val().get_bit(31)
                {
                    self.result.next = 0.into();
                } else if self.result.val() > 0x3F80_0000_u64 {
                    self.result.next = self.one.val();
                }
            }
        }
    }
}

/// The lane's f32 unit behind the operand registers of one pass: the unit `pws export` lints,
/// synthesises and co-simulates on its own (the vector unit's Verilog holds one per lane).
/// Operands presented in one cycle are registered at its rising edge; the result follows
/// combinationally in the next cycle, as a lane's result does in the pass cycle.
#[derive(LogicBlock, Default)]
pub struct FpuStage {
    pub clock: Signal<In, Clock>,
    pub op_i: Signal<In, ValuOp>,
    pub a_i: Signal<In, Bits<32>>,
    pub b_i: Signal<In, Bits<32>>,
    pub c_i: Signal<In, Bits<32>>,
    pub m_i: Signal<In, Bit>,
    pub fmod_i: Signal<In, Bits<FMOD_BITS>>,
    pub result_o: Signal<Out, Bits<32>>,
    pub flag_o: Signal<Out, Bit>,
    /// Sources a and b after the input modifiers: what the lane's `v_cndmask_b32` selects.
    pub x_o: Signal<Out, Bits<32>>,
    pub y_o: Signal<Out, Bits<32>>,
    pub fpu: LaneFpu,
    op: DFF<ValuOp>,
    a: DFF<Bits<32>>,
    b: DFF<Bits<32>>,
    c: DFF<Bits<32>>,
    m: DFF<Bit>,
    fmod: DFF<Bits<FMOD_BITS>>,
}

impl Logic for FpuStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, op, a, b, c, m, fmod);
        self.op.d.next = self.op_i.val();
        self.a.d.next = self.a_i.val();
        self.b.d.next = self.b_i.val();
        self.c.d.next = self.c_i.val();
        self.m.d.next = self.m_i.val();
        self.fmod.d.next = self.fmod_i.val();
        self.fpu.op.next = self.op.q.val();
        self.fpu.a.next = self.a.q.val();
        self.fpu.b.next = self.b.q.val();
        self.fpu.c.next = self.c.q.val();
        self.fpu.m.next = self.m.q.val();
        self.fpu.fmod.next = self.fmod.q.val();
        self.result_o.next = self.fpu.result.val();
        self.flag_o.next = self.fpu.flag.val();
        self.x_o.next = self.fpu.x.val();
        self.y_o.next = self.fpu.y.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;

    fn eval(op: ValuOp, a: u32, b: u32, c: u32, fmod: u64) -> (u32, bool) {
        let mut u = LaneFpu::default();
        u.connect_all();
        u.op.next = op;
        u.a.next = (a as u64).to_bits();
        u.b.next = (b as u64).to_bits();
        u.c.next = (c as u64).to_bits();
        u.fmod.next = fmod.to_bits();
        settle(&mut u);
        (u.result.val().to_u64() as u32, u.flag.val())
    }

    /// Values worked out by hand (not by the host's arithmetic the integration tests use).
    #[test]
    fn hand_computed_results() {
        let cases: [(ValuOp, u32, u32, u32, u64, u32); 12] = [
            (ValuOp::AddF, 0x3F80_0000, 0x4000_0000, 0, 0, 0x4040_0000),
            (ValuOp::MulF, 0x4040_0000, 0x3F00_0000, 0, 0, 0x3FC0_0000),
            (ValuOp::RcpF, 0x4040_0000, 0, 0, 0, 0x3EAA_AAAB),
            (ValuOp::SqrtF, 0x4000_0000, 0, 0, 0, 0x3FB5_04F3),
            (ValuOp::RsqF, 0x4080_0000, 0, 0, 0, 0x3F00_0000),
            // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: even wins.
            (ValuOp::CvtF32I32, 0x0100_0001, 0, 0, 0, 0x4B80_0000),
            (ValuOp::CvtI32F32, 0xC020_0000, 0, 0, 0, 0xFFFF_FFFE),
            // A denormal operand is zero: 2^-127 · 2 = +0, not 2^-126.
            (ValuOp::MulF, 0x0040_0000, 0x4000_0000, 0, 0, 0),
            // 0.75 + 0.75 clamped to 1.0; 1.5 · 2 by omod.
            (
                ValuOp::AddF,
                0x3F40_0000,
                0x3F40_0000,
                0,
                fmod_word(0, 0, 0, true),
                0x3F80_0000,
            ),
            (
                ValuOp::AddF,
                0x3F40_0000,
                0x3F40_0000,
                0,
                fmod_word(0, 0, 1, false),
                0x4040_0000,
            ),
            // -(|-2|) + 1 = -1 through abs and neg of source 0.
            (
                ValuOp::AddF,
                0xC000_0000,
                0x3F80_0000,
                0,
                fmod_word(1, 1, 0, false),
                0xBF80_0000,
            ),
            (
                ValuOp::DivFixupF,
                0x3F80_0000,
                0,
                0x8000_0000,
                0,
                0xFFC0_0000,
            ),
        ];
        for (op, a, b, c, fmod, want) in cases {
            assert_eq!(
                eval(op, a, b, c, fmod).0,
                want,
                "{op:?} {a:#x} {b:#x} {c:#x}"
            );
        }
        // The class of the unflushed denormal 2^-149 is +denormal (bit 7), not +0.
        assert!(eval(ValuOp::CmpClassF, 1, 1 << 7, 0, 0).1);
        assert!(!eval(ValuOp::CmpClassF, 1, 1 << 6, 0, 0).1);
    }
}
