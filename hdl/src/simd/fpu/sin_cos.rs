//! `v_sin_f32` and `v_cos_f32` (sin(2πx), cos(2πx), x in revolutions): the f32 contract's
//! fixed-point algorithm (docs/float.md, "Transcendentals"), step for step, with its sine
//! table as a case statement.
//!
//! The operand arrives modified and flushed. The phase is x's fraction in 32 bits (an
//! integer x has phase 0, however large), so the range reduction is exact. A special operand
//! gets its result here (`mag` 0); any other leaves as `mag · 2^(exp - 1024 - 127 - 63)` with
//! its sign for the lane's [`FpRound`](super::FpRound). The block is combinational; like
//! [`FpExpLog`](super::FpExpLog) it multiplies through one 32 x 32 multiplier used in
//! sequence and computes nothing when the lane's op is neither.

use rust_hdl::prelude::*;

use super::round::EXP_OFFSET;
use crate::simd::ValuOp;

/// sin(2πx) and cos(2πx) of one flushed f32 up to the rounding (combinational).
#[derive(LogicBlock)]
pub struct FpSinCos {
    pub a: Signal<In, Bits<32>>,
    /// The lane's op: `SinF` and `CosF` run here.
    pub op: Signal<In, ValuOp>,
    /// The result when `mag` is 0 (a special operand, or a zero result: +0).
    pub result: Signal<Out, Bits<32>>,
    /// The result's sign, offset biased exponent of `mag` bit 63, and magnitude: the
    /// rounder's input.
    pub sign: Signal<Out, Bit>,
    pub exp: Signal<Out, Bits<12>>,
    pub mag: Signal<Out, Bits<64>>,
    /// The operand's exponent field.
    e: Signal<Local, Bits<32>>,
    /// The significand S with its hidden bit; then the phase F (a quarter turn added for
    /// cos); then the angle folded into the first quadrant, `s`.
    phase: Signal<Local, Bits<32>>,
    /// x's bits below 2^-32 are not all zero.
    sticky: Signal<Local, Bit>,
    /// s's table index; its remainder h in radians (`H`, Q.31); H^2 / 2^31, then H^3 / 2^62.
    idx: Signal<Local, Bits<8>>,
    rad: Signal<Local, Bits<32>>,
    pow: Signal<Local, Bits<32>>,
    /// cos h and sin h (Q.31), and SIN_T[128 - i] (the cosine of the table angle).
    cos_h: Signal<Local, Bits<32>>,
    sin_h: Signal<Local, Bits<32>>,
    cos_t: Signal<Local, Bits<32>>,
    /// The multiplier's operands and product, and the sum of the two terms.
    ma: Signal<Local, Bits<32>>,
    mb: Signal<Local, Bits<32>>,
    prod: Signal<Local, Bits<64>>,
    acc: Signal<Local, Bits<64>>,
    /// 118, the exponent field of 2^-9: S << (e - 118) has 32 fraction bits.
    e118: Constant<Bits<32>>,
    /// A quarter turn (2^30) and 1.0 in Q.31.
    quarter: Constant<Bits<32>>,
    one: Constant<Bits<32>>,
    /// Offset exponent of 2^0 (`mag` bit 63 is the result's 2^0).
    exp_one: Constant<Bits<12>>,
}

impl Default for FpSinCos {
    fn default() -> Self {
        FpSinCos {
            a: Default::default(),
            op: Default::default(),
            result: Default::default(),
            sign: Default::default(),
            exp: Default::default(),
            mag: Default::default(),
            e: Default::default(),
            phase: Default::default(),
            sticky: Default::default(),
            idx: Default::default(),
            rad: Default::default(),
            pow: Default::default(),
            cos_h: Default::default(),
            sin_h: Default::default(),
            cos_t: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            prod: Default::default(),
            acc: Default::default(),
            e118: Constant::new(118u64.to_bits()),
            quarter: Constant::new(0x4000_0000u64.to_bits()),
            one: Constant::new(0x8000_0000u64.to_bits()),
            exp_one: Constant::new((EXP_OFFSET + 127).to_bits()),
        }
    }
}

impl Logic for FpSinCos {
    #[hdl_gen]
    fn update(&mut self) {
        self.result.next = 0.into();
        self.sign.next = false;
        self.exp.next = 0.into();
        self.mag.next = 0.into();
        self.e.next = 0.into();
        self.phase.next = 0.into();
        self.sticky.next = false;
        self.idx.next = 0.into();
        self.rad.next = 0.into();
        self.pow.next = 0.into();
        self.cos_h.next = 0.into();
        self.sin_h.next = 0.into();
        self.cos_t.next = 0.into();
        self.ma.next = 0.into();
        self.mb.next = 0.into();
        self.prod.next = 0.into();
        self.acc.next = 0.into();
        if (self.op.val() == ValuOp::SinF) | (self.op.val() == ValuOp::CosF) {
            self.e.next = (self.a.val() >> 23) & 0xFF_u64;
            self.phase.next = (self.a.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
            if (self.a.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
                self.result.next = self.a.val() | 0x0040_0000_u64;
            } else if (self.a.val() & 0x7FFF_FFFF_u64) == 0x7F80_0000_u64 {
                self.result.next = 0x7FC0_0000_u64.into();
            } else {
                // F = floor(x · 2^32) mod 2^32: the bits of S from 2^-1 to 2^-32; when x is
                // negative, bits shifted out make the magnitude one unit larger before the
                // negation.
                self.sticky.next = (self.e.val().any() & (self.e.val() <= 86))
                    | ((self.e.val() > 86)
                        & (self.e.val() < 118)
                        & (self.phase.val() << (self.e.val() - 86)).any());
                if (self.e.val() >= 118) & (self.e.val() < 150) {
                    self.phase.next = self.phase.val() << (self.e.val() - self.e118.val());
                } else if (self.e.val() > 86) & (self.e.val() < 118) {
                    self.phase.next = self.phase.val() >> (self.e118.val() - self.e.val());
                } else {
                    self.phase.next = 0.into();
                }
                if self.a.val().get_bit(31) {
                    self.phase.next = !(self.phase.val() + self.sticky.val()) + 1;
                }
                // cos(2πx) = sin(2π(x + 1/4)).
                if self.op.val() == ValuOp::CosF {
                    self.phase.next = self.phase.val() + self.quarter.val();
                }
                // Quadrant q = F >> 30: q >= 2 negates, odd quadrants run backwards.
                self.sign.next = self.phase.val().get_bit(31);
                if self.phase.val().get_bit(30) {
                    self.phase.next = self.quarter.val() - (self.phase.val() & 0x3FFF_FFFF_u64);
                } else {
                    self.phase.next = self.phase.val() & 0x3FFF_FFFF_u64;
                }
                self.idx.next = bit_cast::<8, 32>(self.phase.val() >> 23);
                // H = h · π · 2^32 / 2^32 = 3h + h · 0x243F6A89 / 2^32 (h the low 23 bits).
                self.ma.next = self.phase.val() & 0x7F_FFFF_u64;
                self.mb.next = 0x243F_6A89_u64.into();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.rad.next = self.prod.val().get_bits::<32>(32)
                    + self.ma.val()
                    + self.ma.val()
                    + self.ma.val();
                // cos h = 1 - H^2 / 2, sin h = H - H^3 / 6 (Q.31).
                self.ma.next = self.rad.val();
                self.mb.next = self.rad.val();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.pow.next = bit_cast::<32, 64>(self.prod.val() >> 31);
                self.cos_h.next = self.one.val() - (self.pow.val() >> 1);
                self.ma.next = self.pow.val();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.pow.next = bit_cast::<32, 64>(self.prod.val() >> 31);
                self.ma.next = self.pow.val();
                self.mb.next = 0x2AAA_AAAB_u64.into();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.sin_h.next = self.rad.val() - self.prod.val().get_bits::<32>(32);
                // sin(a + h) = sin a · cos h + cos a · sin h, at most 1.0.
                match self.idx.val().index() {
                    0 => {
                        self.ma.next = 0x0000_0000_u64.into();
                        self.cos_t.next = 0x8000_0000_u64.into();
                    }
                    1 => {
                        self.ma.next = 0x0192_1D20_u64.into();
                        self.cos_t.next = 0x7FFD_885A_u64.into();
                    }
                    2 => {
                        self.ma.next = 0x0324_2ABF_u64.into();
                        self.cos_t.next = 0x7FF6_2182_u64.into();
                    }
                    3 => {
                        self.ma.next = 0x04B6_195D_u64.into();
                        self.cos_t.next = 0x7FE9_CBC0_u64.into();
                    }
                    4 => {
                        self.ma.next = 0x0647_D97C_u64.into();
                        self.cos_t.next = 0x7FD8_878E_u64.into();
                    }
                    5 => {
                        self.ma.next = 0x07D9_5B9E_u64.into();
                        self.cos_t.next = 0x7FC2_5596_u64.into();
                    }
                    6 => {
                        self.ma.next = 0x096A_9049_u64.into();
                        self.cos_t.next = 0x7FA7_36B4_u64.into();
                    }
                    7 => {
                        self.ma.next = 0x0AFB_6805_u64.into();
                        self.cos_t.next = 0x7F87_2BF3_u64.into();
                    }
                    8 => {
                        self.ma.next = 0x0C8B_D35E_u64.into();
                        self.cos_t.next = 0x7F62_368F_u64.into();
                    }
                    9 => {
                        self.ma.next = 0x0E1B_C2E4_u64.into();
                        self.cos_t.next = 0x7F38_57F6_u64.into();
                    }
                    10 => {
                        self.ma.next = 0x0FAB_272B_u64.into();
                        self.cos_t.next = 0x7F09_91C4_u64.into();
                    }
                    11 => {
                        self.ma.next = 0x1139_F0CF_u64.into();
                        self.cos_t.next = 0x7ED5_E5C6_u64.into();
                    }
                    12 => {
                        self.ma.next = 0x12C8_106F_u64.into();
                        self.cos_t.next = 0x7E9D_55FC_u64.into();
                    }
                    13 => {
                        self.ma.next = 0x1455_76B1_u64.into();
                        self.cos_t.next = 0x7E5F_E493_u64.into();
                    }
                    14 => {
                        self.ma.next = 0x15E2_1445_u64.into();
                        self.cos_t.next = 0x7E1D_93EA_u64.into();
                    }
                    15 => {
                        self.ma.next = 0x176D_D9DE_u64.into();
                        self.cos_t.next = 0x7DD6_668F_u64.into();
                    }
                    16 => {
                        self.ma.next = 0x18F8_B83C_u64.into();
                        self.cos_t.next = 0x7D8A_5F40_u64.into();
                    }
                    17 => {
                        self.ma.next = 0x1A82_A026_u64.into();
                        self.cos_t.next = 0x7D39_80EC_u64.into();
                    }
                    18 => {
                        self.ma.next = 0x1C0B_826A_u64.into();
                        self.cos_t.next = 0x7CE3_CEB2_u64.into();
                    }
                    19 => {
                        self.ma.next = 0x1D93_4FE5_u64.into();
                        self.cos_t.next = 0x7C89_4BDE_u64.into();
                    }
                    20 => {
                        self.ma.next = 0x1F19_F97B_u64.into();
                        self.cos_t.next = 0x7C29_FBEE_u64.into();
                    }
                    21 => {
                        self.ma.next = 0x209F_701C_u64.into();
                        self.cos_t.next = 0x7BC5_E290_u64.into();
                    }
                    22 => {
                        self.ma.next = 0x2223_A4C5_u64.into();
                        self.cos_t.next = 0x7B5D_039E_u64.into();
                    }
                    23 => {
                        self.ma.next = 0x23A6_887F_u64.into();
                        self.cos_t.next = 0x7AEF_6323_u64.into();
                    }
                    24 => {
                        self.ma.next = 0x2528_0C5E_u64.into();
                        self.cos_t.next = 0x7A7D_055B_u64.into();
                    }
                    25 => {
                        self.ma.next = 0x26A8_2186_u64.into();
                        self.cos_t.next = 0x7A05_EEAD_u64.into();
                    }
                    26 => {
                        self.ma.next = 0x2826_B928_u64.into();
                        self.cos_t.next = 0x798A_23B1_u64.into();
                    }
                    27 => {
                        self.ma.next = 0x29A3_C485_u64.into();
                        self.cos_t.next = 0x7909_A92D_u64.into();
                    }
                    28 => {
                        self.ma.next = 0x2B1F_34EB_u64.into();
                        self.cos_t.next = 0x7884_8414_u64.into();
                    }
                    29 => {
                        self.ma.next = 0x2C98_FBBA_u64.into();
                        self.cos_t.next = 0x77FA_B989_u64.into();
                    }
                    30 => {
                        self.ma.next = 0x2E11_0A62_u64.into();
                        self.cos_t.next = 0x776C_4EDB_u64.into();
                    }
                    31 => {
                        self.ma.next = 0x2F87_5262_u64.into();
                        self.cos_t.next = 0x76D9_4989_u64.into();
                    }
                    32 => {
                        self.ma.next = 0x30FB_C54D_u64.into();
                        self.cos_t.next = 0x7641_AF3D_u64.into();
                    }
                    33 => {
                        self.ma.next = 0x326E_54C7_u64.into();
                        self.cos_t.next = 0x75A5_85CF_u64.into();
                    }
                    34 => {
                        self.ma.next = 0x33DE_F287_u64.into();
                        self.cos_t.next = 0x7504_D345_u64.into();
                    }
                    35 => {
                        self.ma.next = 0x354D_9057_u64.into();
                        self.cos_t.next = 0x745F_9DD1_u64.into();
                    }
                    36 => {
                        self.ma.next = 0x36BA_2014_u64.into();
                        self.cos_t.next = 0x73B5_EBD1_u64.into();
                    }
                    37 => {
                        self.ma.next = 0x3824_93B0_u64.into();
                        self.cos_t.next = 0x7307_C3D0_u64.into();
                    }
                    38 => {
                        self.ma.next = 0x398C_DD32_u64.into();
                        self.cos_t.next = 0x7255_2C85_u64.into();
                    }
                    39 => {
                        self.ma.next = 0x3AF2_EEB7_u64.into();
                        self.cos_t.next = 0x719E_2CD2_u64.into();
                    }
                    40 => {
                        self.ma.next = 0x3C56_BA70_u64.into();
                        self.cos_t.next = 0x70E2_CBC6_u64.into();
                    }
                    41 => {
                        self.ma.next = 0x3DB8_32A6_u64.into();
                        self.cos_t.next = 0x7023_109A_u64.into();
                    }
                    42 => {
                        self.ma.next = 0x3F17_49B8_u64.into();
                        self.cos_t.next = 0x6F5F_02B2_u64.into();
                    }
                    43 => {
                        self.ma.next = 0x4073_F21D_u64.into();
                        self.cos_t.next = 0x6E96_A99D_u64.into();
                    }
                    44 => {
                        self.ma.next = 0x41CE_1E65_u64.into();
                        self.cos_t.next = 0x6DCA_0D14_u64.into();
                    }
                    45 => {
                        self.ma.next = 0x4325_C135_u64.into();
                        self.cos_t.next = 0x6CF9_34FC_u64.into();
                    }
                    46 => {
                        self.ma.next = 0x447A_CD50_u64.into();
                        self.cos_t.next = 0x6C24_2960_u64.into();
                    }
                    47 => {
                        self.ma.next = 0x45CD_358F_u64.into();
                        self.cos_t.next = 0x6B4A_F279_u64.into();
                    }
                    48 => {
                        self.ma.next = 0x471C_ECE7_u64.into();
                        self.cos_t.next = 0x6A6D_98A4_u64.into();
                    }
                    49 => {
                        self.ma.next = 0x4869_E665_u64.into();
                        self.cos_t.next = 0x698C_246C_u64.into();
                    }
                    50 => {
                        self.ma.next = 0x49B4_1533_u64.into();
                        self.cos_t.next = 0x68A6_9E81_u64.into();
                    }
                    51 => {
                        self.ma.next = 0x4AFB_6C98_u64.into();
                        self.cos_t.next = 0x67BD_0FBD_u64.into();
                    }
                    52 => {
                        self.ma.next = 0x4C3F_DFF4_u64.into();
                        self.cos_t.next = 0x66CF_8120_u64.into();
                    }
                    53 => {
                        self.ma.next = 0x4D81_62C4_u64.into();
                        self.cos_t.next = 0x65DD_FBD3_u64.into();
                    }
                    54 => {
                        self.ma.next = 0x4EBF_E8A5_u64.into();
                        self.cos_t.next = 0x64E8_8926_u64.into();
                    }
                    55 => {
                        self.ma.next = 0x4FFB_654D_u64.into();
                        self.cos_t.next = 0x63EF_3290_u64.into();
                    }
                    56 => {
                        self.ma.next = 0x5133_CC94_u64.into();
                        self.cos_t.next = 0x62F2_01AC_u64.into();
                    }
                    57 => {
                        self.ma.next = 0x5269_126E_u64.into();
                        self.cos_t.next = 0x61F1_003F_u64.into();
                    }
                    58 => {
                        self.ma.next = 0x539B_2AF0_u64.into();
                        self.cos_t.next = 0x60EC_3830_u64.into();
                    }
                    59 => {
                        self.ma.next = 0x54CA_0A4B_u64.into();
                        self.cos_t.next = 0x5FE3_B38D_u64.into();
                    }
                    60 => {
                        self.ma.next = 0x55F5_A4D2_u64.into();
                        self.cos_t.next = 0x5ED7_7C8A_u64.into();
                    }
                    61 => {
                        self.ma.next = 0x571D_EEFA_u64.into();
                        self.cos_t.next = 0x5DC7_9D7C_u64.into();
                    }
                    62 => {
                        self.ma.next = 0x5842_DD54_u64.into();
                        self.cos_t.next = 0x5CB4_20E0_u64.into();
                    }
                    63 => {
                        self.ma.next = 0x5964_6498_u64.into();
                        self.cos_t.next = 0x5B9D_1154_u64.into();
                    }
                    64 => {
                        self.ma.next = 0x5A82_799A_u64.into();
                        self.cos_t.next = 0x5A82_799A_u64.into();
                    }
                    65 => {
                        self.ma.next = 0x5B9D_1154_u64.into();
                        self.cos_t.next = 0x5964_6498_u64.into();
                    }
                    66 => {
                        self.ma.next = 0x5CB4_20E0_u64.into();
                        self.cos_t.next = 0x5842_DD54_u64.into();
                    }
                    67 => {
                        self.ma.next = 0x5DC7_9D7C_u64.into();
                        self.cos_t.next = 0x571D_EEFA_u64.into();
                    }
                    68 => {
                        self.ma.next = 0x5ED7_7C8A_u64.into();
                        self.cos_t.next = 0x55F5_A4D2_u64.into();
                    }
                    69 => {
                        self.ma.next = 0x5FE3_B38D_u64.into();
                        self.cos_t.next = 0x54CA_0A4B_u64.into();
                    }
                    70 => {
                        self.ma.next = 0x60EC_3830_u64.into();
                        self.cos_t.next = 0x539B_2AF0_u64.into();
                    }
                    71 => {
                        self.ma.next = 0x61F1_003F_u64.into();
                        self.cos_t.next = 0x5269_126E_u64.into();
                    }
                    72 => {
                        self.ma.next = 0x62F2_01AC_u64.into();
                        self.cos_t.next = 0x5133_CC94_u64.into();
                    }
                    73 => {
                        self.ma.next = 0x63EF_3290_u64.into();
                        self.cos_t.next = 0x4FFB_654D_u64.into();
                    }
                    74 => {
                        self.ma.next = 0x64E8_8926_u64.into();
                        self.cos_t.next = 0x4EBF_E8A5_u64.into();
                    }
                    75 => {
                        self.ma.next = 0x65DD_FBD3_u64.into();
                        self.cos_t.next = 0x4D81_62C4_u64.into();
                    }
                    76 => {
                        self.ma.next = 0x66CF_8120_u64.into();
                        self.cos_t.next = 0x4C3F_DFF4_u64.into();
                    }
                    77 => {
                        self.ma.next = 0x67BD_0FBD_u64.into();
                        self.cos_t.next = 0x4AFB_6C98_u64.into();
                    }
                    78 => {
                        self.ma.next = 0x68A6_9E81_u64.into();
                        self.cos_t.next = 0x49B4_1533_u64.into();
                    }
                    79 => {
                        self.ma.next = 0x698C_246C_u64.into();
                        self.cos_t.next = 0x4869_E665_u64.into();
                    }
                    80 => {
                        self.ma.next = 0x6A6D_98A4_u64.into();
                        self.cos_t.next = 0x471C_ECE7_u64.into();
                    }
                    81 => {
                        self.ma.next = 0x6B4A_F279_u64.into();
                        self.cos_t.next = 0x45CD_358F_u64.into();
                    }
                    82 => {
                        self.ma.next = 0x6C24_2960_u64.into();
                        self.cos_t.next = 0x447A_CD50_u64.into();
                    }
                    83 => {
                        self.ma.next = 0x6CF9_34FC_u64.into();
                        self.cos_t.next = 0x4325_C135_u64.into();
                    }
                    84 => {
                        self.ma.next = 0x6DCA_0D14_u64.into();
                        self.cos_t.next = 0x41CE_1E65_u64.into();
                    }
                    85 => {
                        self.ma.next = 0x6E96_A99D_u64.into();
                        self.cos_t.next = 0x4073_F21D_u64.into();
                    }
                    86 => {
                        self.ma.next = 0x6F5F_02B2_u64.into();
                        self.cos_t.next = 0x3F17_49B8_u64.into();
                    }
                    87 => {
                        self.ma.next = 0x7023_109A_u64.into();
                        self.cos_t.next = 0x3DB8_32A6_u64.into();
                    }
                    88 => {
                        self.ma.next = 0x70E2_CBC6_u64.into();
                        self.cos_t.next = 0x3C56_BA70_u64.into();
                    }
                    89 => {
                        self.ma.next = 0x719E_2CD2_u64.into();
                        self.cos_t.next = 0x3AF2_EEB7_u64.into();
                    }
                    90 => {
                        self.ma.next = 0x7255_2C85_u64.into();
                        self.cos_t.next = 0x398C_DD32_u64.into();
                    }
                    91 => {
                        self.ma.next = 0x7307_C3D0_u64.into();
                        self.cos_t.next = 0x3824_93B0_u64.into();
                    }
                    92 => {
                        self.ma.next = 0x73B5_EBD1_u64.into();
                        self.cos_t.next = 0x36BA_2014_u64.into();
                    }
                    93 => {
                        self.ma.next = 0x745F_9DD1_u64.into();
                        self.cos_t.next = 0x354D_9057_u64.into();
                    }
                    94 => {
                        self.ma.next = 0x7504_D345_u64.into();
                        self.cos_t.next = 0x33DE_F287_u64.into();
                    }
                    95 => {
                        self.ma.next = 0x75A5_85CF_u64.into();
                        self.cos_t.next = 0x326E_54C7_u64.into();
                    }
                    96 => {
                        self.ma.next = 0x7641_AF3D_u64.into();
                        self.cos_t.next = 0x30FB_C54D_u64.into();
                    }
                    97 => {
                        self.ma.next = 0x76D9_4989_u64.into();
                        self.cos_t.next = 0x2F87_5262_u64.into();
                    }
                    98 => {
                        self.ma.next = 0x776C_4EDB_u64.into();
                        self.cos_t.next = 0x2E11_0A62_u64.into();
                    }
                    99 => {
                        self.ma.next = 0x77FA_B989_u64.into();
                        self.cos_t.next = 0x2C98_FBBA_u64.into();
                    }
                    100 => {
                        self.ma.next = 0x7884_8414_u64.into();
                        self.cos_t.next = 0x2B1F_34EB_u64.into();
                    }
                    101 => {
                        self.ma.next = 0x7909_A92D_u64.into();
                        self.cos_t.next = 0x29A3_C485_u64.into();
                    }
                    102 => {
                        self.ma.next = 0x798A_23B1_u64.into();
                        self.cos_t.next = 0x2826_B928_u64.into();
                    }
                    103 => {
                        self.ma.next = 0x7A05_EEAD_u64.into();
                        self.cos_t.next = 0x26A8_2186_u64.into();
                    }
                    104 => {
                        self.ma.next = 0x7A7D_055B_u64.into();
                        self.cos_t.next = 0x2528_0C5E_u64.into();
                    }
                    105 => {
                        self.ma.next = 0x7AEF_6323_u64.into();
                        self.cos_t.next = 0x23A6_887F_u64.into();
                    }
                    106 => {
                        self.ma.next = 0x7B5D_039E_u64.into();
                        self.cos_t.next = 0x2223_A4C5_u64.into();
                    }
                    107 => {
                        self.ma.next = 0x7BC5_E290_u64.into();
                        self.cos_t.next = 0x209F_701C_u64.into();
                    }
                    108 => {
                        self.ma.next = 0x7C29_FBEE_u64.into();
                        self.cos_t.next = 0x1F19_F97B_u64.into();
                    }
                    109 => {
                        self.ma.next = 0x7C89_4BDE_u64.into();
                        self.cos_t.next = 0x1D93_4FE5_u64.into();
                    }
                    110 => {
                        self.ma.next = 0x7CE3_CEB2_u64.into();
                        self.cos_t.next = 0x1C0B_826A_u64.into();
                    }
                    111 => {
                        self.ma.next = 0x7D39_80EC_u64.into();
                        self.cos_t.next = 0x1A82_A026_u64.into();
                    }
                    112 => {
                        self.ma.next = 0x7D8A_5F40_u64.into();
                        self.cos_t.next = 0x18F8_B83C_u64.into();
                    }
                    113 => {
                        self.ma.next = 0x7DD6_668F_u64.into();
                        self.cos_t.next = 0x176D_D9DE_u64.into();
                    }
                    114 => {
                        self.ma.next = 0x7E1D_93EA_u64.into();
                        self.cos_t.next = 0x15E2_1445_u64.into();
                    }
                    115 => {
                        self.ma.next = 0x7E5F_E493_u64.into();
                        self.cos_t.next = 0x1455_76B1_u64.into();
                    }
                    116 => {
                        self.ma.next = 0x7E9D_55FC_u64.into();
                        self.cos_t.next = 0x12C8_106F_u64.into();
                    }
                    117 => {
                        self.ma.next = 0x7ED5_E5C6_u64.into();
                        self.cos_t.next = 0x1139_F0CF_u64.into();
                    }
                    118 => {
                        self.ma.next = 0x7F09_91C4_u64.into();
                        self.cos_t.next = 0x0FAB_272B_u64.into();
                    }
                    119 => {
                        self.ma.next = 0x7F38_57F6_u64.into();
                        self.cos_t.next = 0x0E1B_C2E4_u64.into();
                    }
                    120 => {
                        self.ma.next = 0x7F62_368F_u64.into();
                        self.cos_t.next = 0x0C8B_D35E_u64.into();
                    }
                    121 => {
                        self.ma.next = 0x7F87_2BF3_u64.into();
                        self.cos_t.next = 0x0AFB_6805_u64.into();
                    }
                    122 => {
                        self.ma.next = 0x7FA7_36B4_u64.into();
                        self.cos_t.next = 0x096A_9049_u64.into();
                    }
                    123 => {
                        self.ma.next = 0x7FC2_5596_u64.into();
                        self.cos_t.next = 0x07D9_5B9E_u64.into();
                    }
                    124 => {
                        self.ma.next = 0x7FD8_878E_u64.into();
                        self.cos_t.next = 0x0647_D97C_u64.into();
                    }
                    125 => {
                        self.ma.next = 0x7FE9_CBC0_u64.into();
                        self.cos_t.next = 0x04B6_195D_u64.into();
                    }
                    126 => {
                        self.ma.next = 0x7FF6_2182_u64.into();
                        self.cos_t.next = 0x0324_2ABF_u64.into();
                    }
                    127 => {
                        self.ma.next = 0x7FFD_885A_u64.into();
                        self.cos_t.next = 0x0192_1D20_u64.into();
                    }
                    128 => {
                        self.ma.next = 0x8000_0000_u64.into();
                        self.cos_t.next = 0x0000_0000_u64.into();
                    }
                    _ => {}
                }
                self.mb.next = self.cos_h.val();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.acc.next = self.prod.val();
                self.ma.next = self.cos_t.val();
                self.mb.next = self.sin_h.val();
                self.prod.next = (bit_cast::<64, 32>(
                    self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16),
                ) << 32)
                    + (bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16),
                    ) << 16)
                    + (bit_cast::<64, 32>(
                        self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val()),
                    ) << 16)
                    + bit_cast::<64, 32>(
                        bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val()),
                    );
                self.acc.next = (self.acc.val() + self.prod.val()) >> 31;
                if self.acc.val() > 0x8000_0000_u64 {
                    self.acc.next = 0x8000_0000_u64.into();
                }
                // A zero result is +0 in every quadrant (mag 0, result 0).
                self.mag.next = self.acc.val() << 32;
                self.exp.next = self.exp_one.val();
            }
        }
    }
}
