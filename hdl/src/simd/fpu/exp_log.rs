//! `v_exp_f32` (2^x) and `v_log_f32` (log2 x): the f32 contract's fixed-point algorithms
//! (docs/float.md, "Transcendentals"), step for step, with its tables as case statements.
//!
//! The operand arrives modified and flushed. A special operand gets its result here (`mag`
//! 0); any other leaves as `mag · 2^(exp - 1024 - 127 - 63)` with its sign for the lane's
//! [`FpRound`](super::FpRound), whose rounding with gradual underflow and flush is the
//! contract's `to_f32`. The block is combinational.
//!
//! rust-hdl multiplies only 16 x 16 bits, so each product of the algorithm is one 32 x 32
//! multiplier (`ma · mb`, four partial products) used in sequence; a signed product is the
//! product of the magnitudes, its floor division by a power of two done on the sign. When the
//! lane's op is neither, nothing is computed, and the block has few signals: a simulation
//! evaluates it in every lane every cycle.

use rust_hdl::prelude::*;

use super::round::EXP_OFFSET;
use crate::simd::ValuOp;

/// 2^x and log2 x of one flushed f32 up to the rounding (combinational).
#[derive(LogicBlock)]
pub struct FpExpLog {
    pub a: Signal<In, Bits<32>>,
    /// The lane's op: `ExpF` and `LogF` run here.
    pub op: Signal<In, ValuOp>,
    /// The result when `mag` is 0 (a special operand, or log2 1 = +0).
    pub result: Signal<Out, Bits<32>>,
    /// The result's sign, offset biased exponent of `mag` bit 63, and magnitude: the
    /// rounder's input.
    pub sign: Signal<Out, Bit>,
    pub exp: Signal<Out, Bits<12>>,
    pub mag: Signal<Out, Bits<64>>,
    /// The operand's exponent field.
    e: Signal<Local, Bits<32>>,
    /// The significand S with its hidden bit; then exp's fraction `f`, log's `ut` = U >> 24.
    fr: Signal<Local, Bits<32>>,
    /// exp: the fixed-point x (`X`, 32 fraction bits); log: `U` = M·R - 2^56, then `P`.
    wide: Signal<Local, Bits<64>>,
    /// log: the polynomial `Q` (two's complement).
    poly: Signal<Local, Bits<64>>,
    /// Table index; log's `LOG_L[j]` plus E · 2^56.
    idx: Signal<Local, Bits<8>>,
    tab: Signal<Local, Bits<64>>,
    /// The multiplier's operands and product, and the sign of a signed product.
    ma: Signal<Local, Bits<32>>,
    mb: Signal<Local, Bits<32>>,
    prod: Signal<Local, Bits<64>>,
    neg: Signal<Local, Bit>,
    /// Horner step of log's polynomial.
    step: Signal<Local, Bits<3>>,
    /// 118, the exponent field of 2^-9: S << (e - 118) has 32 fraction bits.
    e118: Constant<Bits<32>>,
    /// log's coefficients Q0..Q3 (Q.32, two's complement; Q4 fits in 32 bits).
    q0: Constant<Bits<64>>,
    q1: Constant<Bits<64>>,
    q2: Constant<Bits<64>>,
    q3: Constant<Bits<64>>,
    /// Offset exponents of 2^0 (exp's `mag` bit 63 is 2^I) and 2^7 (log's is 2^7).
    exp_one: Constant<Bits<12>>,
    exp_log: Constant<Bits<12>>,
}

impl Default for FpExpLog {
    fn default() -> Self {
        FpExpLog {
            a: Default::default(),
            op: Default::default(),
            result: Default::default(),
            sign: Default::default(),
            exp: Default::default(),
            mag: Default::default(),
            e: Default::default(),
            fr: Default::default(),
            wide: Default::default(),
            poly: Default::default(),
            idx: Default::default(),
            tab: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            prod: Default::default(),
            neg: Default::default(),
            step: Default::default(),
            e118: Constant::new(118u64.to_bits()),
            q0: Constant::new(0x1_7154_7653u64.to_bits()),
            q1: Constant::new((-0xB8AA_3B29i64 as u64).to_bits()),
            q2: Constant::new(0x7B1C_2771u64.to_bits()),
            q3: Constant::new((-0x5C55_1D95i64 as u64).to_bits()),
            exp_one: Constant::new((EXP_OFFSET + 127).to_bits()),
            exp_log: Constant::new((EXP_OFFSET + 127 + 7).to_bits()),
        }
    }
}

impl Logic for FpExpLog {
    #[hdl_gen]
    fn update(&mut self) {
        self.result.next = 0.into();
        self.sign.next = false;
        self.exp.next = 0.into();
        self.mag.next = 0.into();
        self.e.next = 0.into();
        self.fr.next = 0.into();
        self.wide.next = 0.into();
        self.poly.next = 0.into();
        self.idx.next = 0.into();
        self.tab.next = 0.into();
        self.ma.next = 0.into();
        self.mb.next = 0.into();
        self.prod.next = 0.into();
        self.neg.next = false;
        self.step.next = 0.into();
        if (self.op.val() == ValuOp::ExpF) | (self.op.val() == ValuOp::LogF) {
            self.e.next = (self.a.val() >> 23) & 0xFF_u64;
            self.fr.next = (self.a.val() & 0x7F_FFFF_u64) | 0x80_0000_u64;
        }

        if self.op.val() == ValuOp::ExpF {
            if (self.a.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
                self.result.next = self.a.val() | 0x0040_0000_u64;
            } else if !self.e.val().any() {
                self.result.next = 0x3F80_0000_u64.into();
            } else if self.e.val() >= 135 {
                // |x| >= 256 (infinities too): 2^x overflows or flushes.
                if !self.a.val().get_bit(31) {
                    self.result.next = 0x7F80_0000_u64.into();
                }
            } else {
                // X = floor(x · 2^32): S aligned to 32 fraction bits; when x is negative,
                // bits shifted out make the magnitude one unit larger before the negation.
                if self.e.val() >= 118 {
                    self.wide.next =
                        bit_cast::<64, 32>(self.fr.val()) << (self.e.val() - self.e118.val());
                } else if self.e.val() > 86 {
                    self.wide.next =
                        bit_cast::<64, 32>(self.fr.val() >> (self.e118.val() - self.e.val()));
                }
                if self.a.val().get_bit(31) {
                    if (self.e.val() <= 86)
                        | ((self.e.val() < 118) & (self.fr.val() << (self.e.val() - 86)).any())
                    {
                        self.wide.next = self.wide.val() + 1;
                    }
                    self.wide.next = !self.wide.val() + 1;
                }
                // 2^f = EXP_T[f >> 26] · (1 + p(r)), r the low 26 bits of f; p by Horner.
                self.fr.next = bit_cast::<32, 64>(self.wide.val());
                self.idx.next = bit_cast::<8, 32>(self.fr.val() >> 26);
                self.mb.next = self.fr.val() & 0x3FF_FFFF_u64;
                self.ma.next = 0x0E35_846C_u64.into();
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
                self.ma.next = self.prod.val().get_bits::<32>(32) + 0x3D7F_7BFF_u64;
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
                self.ma.next = self.prod.val().get_bits::<32>(32) + 0xB172_17F8_u64;
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
                self.mb.next = self.prod.val().get_bits::<32>(32);
                match self.idx.val().index() {
                    0 => self.ma.next = 0x8000_0000_u64.into(),
                    1 => self.ma.next = 0x8164_D1F4_u64.into(),
                    2 => self.ma.next = 0x82CD_8699_u64.into(),
                    3 => self.ma.next = 0x843A_28C4_u64.into(),
                    4 => self.ma.next = 0x85AA_C368_u64.into(),
                    5 => self.ma.next = 0x871F_6197_u64.into(),
                    6 => self.ma.next = 0x8898_0E81_u64.into(),
                    7 => self.ma.next = 0x8A14_D575_u64.into(),
                    8 => self.ma.next = 0x8B95_C1E4_u64.into(),
                    9 => self.ma.next = 0x8D1A_DF5B_u64.into(),
                    10 => self.ma.next = 0x8EA4_398B_u64.into(),
                    11 => self.ma.next = 0x9031_DC43_u64.into(),
                    12 => self.ma.next = 0x91C3_D374_u64.into(),
                    13 => self.ma.next = 0x935A_2B2F_u64.into(),
                    14 => self.ma.next = 0x94F4_EFA9_u64.into(),
                    15 => self.ma.next = 0x9694_2D37_u64.into(),
                    16 => self.ma.next = 0x9837_F052_u64.into(),
                    17 => self.ma.next = 0x99E0_4593_u64.into(),
                    18 => self.ma.next = 0x9B8D_39BA_u64.into(),
                    19 => self.ma.next = 0x9D3E_D9A7_u64.into(),
                    20 => self.ma.next = 0x9EF5_3261_u64.into(),
                    21 => self.ma.next = 0xA0B0_5110_u64.into(),
                    22 => self.ma.next = 0xA270_4303_u64.into(),
                    23 => self.ma.next = 0xA435_15AE_u64.into(),
                    24 => self.ma.next = 0xA5FE_D6AA_u64.into(),
                    25 => self.ma.next = 0xA7CD_93B5_u64.into(),
                    26 => self.ma.next = 0xA9A1_5AB5_u64.into(),
                    27 => self.ma.next = 0xAB7A_39B6_u64.into(),
                    28 => self.ma.next = 0xAD58_3EEA_u64.into(),
                    29 => self.ma.next = 0xAF3B_78AD_u64.into(),
                    30 => self.ma.next = 0xB123_F582_u64.into(),
                    31 => self.ma.next = 0xB311_C413_u64.into(),
                    32 => self.ma.next = 0xB504_F334_u64.into(),
                    33 => self.ma.next = 0xB6FD_91E3_u64.into(),
                    34 => self.ma.next = 0xB8FB_AF47_u64.into(),
                    35 => self.ma.next = 0xBAFF_5AB2_u64.into(),
                    36 => self.ma.next = 0xBD08_A39F_u64.into(),
                    37 => self.ma.next = 0xBF17_99B6_u64.into(),
                    38 => self.ma.next = 0xC12C_4CCA_u64.into(),
                    39 => self.ma.next = 0xC346_CCDA_u64.into(),
                    40 => self.ma.next = 0xC567_2A11_u64.into(),
                    41 => self.ma.next = 0xC78D_74C9_u64.into(),
                    42 => self.ma.next = 0xC9B9_BD86_u64.into(),
                    43 => self.ma.next = 0xCBEC_14FF_u64.into(),
                    44 => self.ma.next = 0xCE24_8C15_u64.into(),
                    45 => self.ma.next = 0xD063_33DB_u64.into(),
                    46 => self.ma.next = 0xD2A8_1D92_u64.into(),
                    47 => self.ma.next = 0xD4F3_5AAC_u64.into(),
                    48 => self.ma.next = 0xD744_FCCB_u64.into(),
                    49 => self.ma.next = 0xD99D_15C2_u64.into(),
                    50 => self.ma.next = 0xDBFB_B798_u64.into(),
                    51 => self.ma.next = 0xDE60_F482_u64.into(),
                    52 => self.ma.next = 0xE0CC_DEEC_u64.into(),
                    53 => self.ma.next = 0xE33F_8973_u64.into(),
                    54 => self.ma.next = 0xE5B9_06E7_u64.into(),
                    55 => self.ma.next = 0xE839_6A50_u64.into(),
                    56 => self.ma.next = 0xEAC0_C6E8_u64.into(),
                    57 => self.ma.next = 0xED4F_301F_u64.into(),
                    58 => self.ma.next = 0xEFE4_B99C_u64.into(),
                    59 => self.ma.next = 0xF281_773C_u64.into(),
                    60 => self.ma.next = 0xF525_7D15_u64.into(),
                    61 => self.ma.next = 0xF7D0_DF73_u64.into(),
                    62 => self.ma.next = 0xFA83_B2DB_u64.into(),
                    63 => self.ma.next = 0xFD3E_0C0D_u64.into(),
                    _ => {}
                }
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
                // M = T + T·p / 2^32 is 2^f in Q1.31, and x's integer part I its exponent.
                self.mag.next =
                    bit_cast::<64, 32>(self.ma.val() + self.prod.val().get_bits::<32>(32)) << 32;
                self.exp.next =
                    bit_cast::<12, 32>(self.wide.val().get_bits::<32>(32)) + self.exp_one.val();
            }
        }

        if self.op.val() == ValuOp::LogF {
            if (self.a.val() & 0x7FFF_FFFF_u64) > 0x7F80_0000_u64 {
                self.result.next = self.a.val() | 0x0040_0000_u64;
            } else if !self.e.val().any() {
                self.result.next = 0xFF80_0000_u64.into();
            } else if self.a.val().get_bit(31) {
                self.result.next = 0x7FC0_0000_u64.into();
            } else if self.a.val() == 0x7F80_0000_u64 {
                self.result.next = self.a.val();
            } else {
                // x = m · 2^E with m = M / 2^24 in [0.75, 1.5): M in ma.
                self.ma.next = self.fr.val() << 1;
                if self.fr.val() >= 0xC0_0000_u64 {
                    self.ma.next = self.fr.val();
                }
                // U = M · LOG_R[j] - 2^56; the table's bit 32 is set in entries 0 to 16.
                self.idx.next = bit_cast::<8, 32>((self.ma.val() >> 18) - 48);
                match self.idx.val().index() {
                    0 => {
                        self.mb.next = 0x51D0_7EAE_u64.into();
                        self.tab.next = 0xFF99_93E3_55D8_D517_u64.into();
                    }
                    1 => {
                        self.mb.next = 0x4AFD_6A05_u64.into();
                        self.tab.next = 0xFFA1_1D83_F4F4_6283_u64.into();
                    }
                    2 => {
                        self.mb.next = 0x446F_8656_u64.into();
                        self.tab.next = 0xFFA8_808C_3879_37A8_u64.into();
                    }
                    3 => {
                        self.mb.next = 0x3E22_CBCE_u64.into();
                        self.tab.next = 0xFFAF_BE7F_A146_DD42_u64.into();
                    }
                    4 => {
                        self.mb.next = 0x3813_8138_u64.into();
                        self.tab.next = 0xFFB6_D8CB_53C7_DF96_u64.into();
                    }
                    5 => {
                        self.mb.next = 0x323E_34A3_u64.into();
                        self.tab.next = 0xFFBD_D0C7_C948_DF5A_u64.into();
                    }
                    6 => {
                        self.mb.next = 0x2C9F_B4D8_u64.into();
                        self.tab.next = 0xFFC4_A7BA_584E_91A1_u64.into();
                    }
                    7 => {
                        self.mb.next = 0x2735_0B88_u64.into();
                        self.tab.next = 0xFFCB_5ED6_957C_C4F7_u64.into();
                    }
                    8 => {
                        self.mb.next = 0x21FB_7812_u64.into();
                        self.tab.next = 0xFFD1_F73F_9C99_2633_u64.into();
                    }
                    9 => {
                        self.mb.next = 0x1CF0_6ADA_u64.into();
                        self.tab.next = 0xFFD8_7209_361A_333F_u64.into();
                    }
                    10 => {
                        self.mb.next = 0x1811_8118_u64.into();
                        self.tab.next = 0xFFDE_D038_E64B_08B5_u64.into();
                    }
                    11 => {
                        self.mb.next = 0x135C_8113_u64.into();
                        self.tab.next = 0xFFE5_12C6_E5C5_AB11_u64.into();
                    }
                    12 => {
                        self.mb.next = 0x0ECF_56BE_u64.into();
                        self.tab.next = 0xFFEB_3A9F_0227_9576_u64.into();
                    }
                    13 => {
                        self.mb.next = 0x0A68_10A7_u64.into();
                        self.tab.next = 0xFFF1_48A1_6FC0_07C1_u64.into();
                    }
                    14 => {
                        self.mb.next = 0x0624_DD2F_u64.into();
                        self.tab.next = 0xFFF7_3DA3_8DC2_CD18_u64.into();
                    }
                    15 => {
                        self.mb.next = 0x0000_0000_u64.into();
                        self.tab.next = 0x0000_0000_0000_0000_u64.into();
                    }
                    16 => {
                        self.mb.next = 0x0000_0000_u64.into();
                        self.tab.next = 0x0000_0000_0000_0000_u64.into();
                    }
                    17 => {
                        self.mb.next = 0xFA23_2CF2_u64.into();
                        self.tab.next = 0x0008_8E68_EB02_C9C0_u64.into();
                    }
                    18 => {
                        self.mb.next = 0xF660_3D98_u64.into();
                        self.tab.next = 0x000E_26FD_5C9C_6AF7_u64.into();
                    }
                    19 => {
                        self.mb.next = 0xF2B9_D648_u64.into();
                        self.tab.next = 0x0013_AA2F_DD3F_070A_u64.into();
                    }
                    20 => {
                        self.mb.next = 0xEF2E_B720_u64.into();
                        self.tab.next = 0x0019_18A1_6DE9_DE3D_u64.into();
                    }
                    21 => {
                        self.mb.next = 0xEBBD_B2A6_u64.into();
                        self.tab.next = 0x001E_72EC_111D_8B43_u64.into();
                    }
                    22 => {
                        self.mb.next = 0xE865_AC7B_u64.into();
                        self.tab.next = 0x0023_B9A3_2F65_E3DB_u64.into();
                    }
                    23 => {
                        self.mb.next = 0xE525_982B_u64.into();
                        self.tab.next = 0x0028_ED53_F2F9_814E_u64.into();
                    }
                    24 => {
                        self.mb.next = 0xE1FC_780E_u64.into();
                        self.tab.next = 0x002E_0E85_AA11_F4DF_u64.into();
                    }
                    25 => {
                        self.mb.next = 0xDEE9_5C4D_u64.into();
                        self.tab.next = 0x0033_1DBA_0E5E_2F73_u64.into();
                    }
                    26 => {
                        self.mb.next = 0xDBEB_61EF_u64.into();
                        self.tab.next = 0x0038_1B6D_9B64_B40C_u64.into();
                    }
                    27 => {
                        self.mb.next = 0xD901_B203_u64.into();
                        self.tab.next = 0x003D_0817_CF47_1188_u64.into();
                    }
                    28 => {
                        self.mb.next = 0xD62B_80D6_u64.into();
                        self.tab.next = 0x0041_E42B_6F0B_C54E_u64.into();
                    }
                    29 => {
                        self.mb.next = 0xD368_0D37_u64.into();
                        self.tab.next = 0x0046_B016_C969_94F2_u64.into();
                    }
                    30 => {
                        self.mb.next = 0xD0B6_9FCC_u64.into();
                        self.tab.next = 0x004B_6C43_F0E5_A044_u64.into();
                    }
                    31 => {
                        self.mb.next = 0xCE16_8A77_u64.into();
                        self.tab.next = 0x0050_1918_ECAE_6E53_u64.into();
                    }
                    32 => {
                        self.mb.next = 0xCB87_27C0_u64.into();
                        self.tab.next = 0x0054_B6F7_F1EB_0509_u64.into();
                    }
                    33 => {
                        self.mb.next = 0xC907_DA4F_u64.into();
                        self.tab.next = 0x0059_463F_90BF_C1CC_u64.into();
                    }
                    34 => {
                        self.mb.next = 0xC698_0C6A_u64.into();
                        self.tab.next = 0x005D_C74A_E90F_52D4_u64.into();
                    }
                    35 => {
                        self.mb.next = 0xC437_2F85_u64.into();
                        self.tab.next = 0x0062_3A71_CC32_CAD7_u64.into();
                    }
                    36 => {
                        self.mb.next = 0xC1E4_BBD6_u64.into();
                        self.tab.next = 0x0066_A008_E3AE_928C_u64.into();
                    }
                    37 => {
                        self.mb.next = 0xBFA0_2FE8_u64.into();
                        self.tab.next = 0x006A_F861_E613_926B_u64.into();
                    }
                    38 => {
                        self.mb.next = 0xBD69_1047_u64.into();
                        self.tab.next = 0x006F_43CB_A7AC_AE0F_u64.into();
                    }
                    39 => {
                        self.mb.next = 0xBB3E_E722_u64.into();
                        self.tab.next = 0x0073_8292_4836_7D0A_u64.into();
                    }
                    40 => {
                        self.mb.next = 0xB921_43FA_u64.into();
                        self.tab.next = 0x0077_B4FF_5176_7E44_u64.into();
                    }
                    41 => {
                        self.mb.next = 0xB70F_BB5A_u64.into();
                        self.tab.next = 0x007B_DB59_CCD7_7863_u64.into();
                    }
                    42 => {
                        self.mb.next = 0xB509_E68B_u64.into();
                        self.tab.next = 0x007F_F5E6_6943_2191_u64.into();
                    }
                    43 => {
                        self.mb.next = 0xB30F_6353_u64.into();
                        self.tab.next = 0x0084_04E7_9306_3FD4_u64.into();
                    }
                    44 => {
                        self.mb.next = 0xB11F_D3B8_u64.into();
                        self.tab.next = 0x0088_089D_8AB5_5C9B_u64.into();
                    }
                    45 => {
                        self.mb.next = 0xAF3A_DDC7_u64.into();
                        self.tab.next = 0x008C_0146_7A88_63F4_u64.into();
                    }
                    46 => {
                        self.mb.next = 0xAD60_2B58_u64.into();
                        self.tab.next = 0x008F_EF1E_988B_1E79_u64.into();
                    }
                    47 => {
                        self.mb.next = 0xAB8F_69E3_u64.into();
                        self.tab.next = 0x0093_D260_2B22_0862_u64.into();
                    }
                    _ => {}
                }
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
                self.wide.next = self.prod.val() - 0x0100_0000_0000_0000_u64;
                if self.idx.val() <= 16 {
                    self.wide.next = self.wide.val() + (bit_cast::<64, 32>(self.ma.val()) << 32);
                }
                // E · 2^56 joins LOG_L[j]: E = e - 126 for m < 1, e - 127 for m >= 1.
                self.tab.next =
                    self.tab.val() + (bit_cast::<64, 32>(self.e.val() + 0xFFFF_FF81_u64) << 56);
                if self.fr.val() >= 0xC0_0000_u64 {
                    self.tab.next = self.tab.val() + 0x0100_0000_0000_0000_u64;
                }
                // Q by Horner on ut = U >> 24: Q4, then Qk + floor(Q · ut / 2^32), k = 3..0.
                self.fr.next = bit_cast::<32, 64>(self.wide.val() >> 24);
                self.poly.next = 0x49DD_B144_u64.into();
                for _step in 0..4 {
                    self.neg.next = self.poly.val().get_bit(63) ^ self.fr.val().get_bit(31);
                    self.ma.next = bit_cast::<32, 64>(self.poly.val());
                    if self.poly.val().get_bit(63) {
                        self.ma.next = bit_cast::<32, 64>(!self.poly.val() + 1);
                    }
                    self.mb.next = self.fr.val();
                    if self.fr.val().get_bit(31) {
                        self.mb.next = !self.fr.val() + 1;
                    }
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
                    self.poly.next = self.prod.val() >> 32;
                    if self.neg.val() & self.prod.val().any() {
                        self.poly.next = !((self.prod.val() - 1) >> 32);
                    }
                    if self.step.val() == 0 {
                        self.poly.next = self.poly.val() + self.q3.val();
                    }
                    if self.step.val() == 1 {
                        self.poly.next = self.poly.val() + self.q2.val();
                    }
                    if self.step.val() == 2 {
                        self.poly.next = self.poly.val() + self.q1.val();
                    }
                    if self.step.val() == 3 {
                        self.poly.next = self.poly.val() + self.q0.val();
                    }
                    self.step.next = self.step.val() + 1;
                }
                // P = floor(floor(U / 2^18) · (Q >> 2) / 2^12); |U >> 18| reaches 2^32, so
                // its bit 32 adds (Q >> 2) · 2^32.
                self.neg.next = self.wide.val().get_bit(63);
                self.wide.next = self.wide.val() >> 18;
                if self.neg.val() {
                    self.wide.next = !(self.wide.val() | 0xFFFF_C000_0000_0000_u64) + 1;
                }
                self.ma.next = bit_cast::<32, 64>(self.wide.val());
                self.mb.next = bit_cast::<32, 64>(self.poly.val() >> 2);
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
                if self.wide.val().get_bit(32) {
                    self.prod.next = self.prod.val() + (bit_cast::<64, 32>(self.mb.val()) << 32);
                }
                self.wide.next = self.prod.val() >> 12;
                if self.neg.val() & self.prod.val().any() {
                    self.wide.next = !((self.prod.val() - 1) >> 12);
                }
                // T = E · 2^56 + LOG_L[j] + P (Q.56), |T| < 2^63; T = 0 (x = 1) gives +0.
                self.wide.next = self.tab.val() + self.wide.val();
                self.sign.next = self.wide.val().get_bit(63);
                self.mag.next = self.wide.val();
                if self.wide.val().get_bit(63) {
                    self.mag.next = !self.wide.val() + 1;
                }
                self.exp.next = self.exp_log.val();
            }
        }
    }
}
