//! The integer VALU operations and one 32-bit ALU lane of a SIMD / SpSIMD.
//!
//! The semantics follow the GCN3 ISA manual for the integer vector ALU (the operation list of
//! the compute-unit interface spec): carries and borrows as 33-bit arithmetic, the high word of
//! the 64-bit product for `MulHi*`, 24-bit multiplies on the low 24 bits (zero- or
//! sign-extended), `Bfe*` with offset and width taken mod 32, 32-bit shifts by `b[4:0]` and
//! 64-bit shifts by `b[5:0]`, bit counts and scans (-1 when there is no such bit), three-input
//! min/max/median, 64-bit compares on operand pairs and the 64-bit multiply-add with its carry
//! (bit 64 of the 65-bit sum). The f32 operations run in the lane's child [`LaneFpu`]
//! (`simd/fpu.rs`). The lane is combinational; the vector unit registers around it.

use rust_hdl::prelude::*;

use super::fpu::{LaneFpu, FMOD_BITS};
use super::perm::BytePermute;

/// Operation of a VALU instruction on operands a, b, c (sources 0, 1, 2 as decoded; the
/// decoder swaps the operands of the `*rev` forms), the lane's mask bit m (carry-in or
/// `v_cndmask` select) and, for the 64-bit operations, the pairs a_hi:a, b_hi:b, c_hi:c.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ValuOp {
    /// d = a (v_mov_b32)
    Mov,
    /// d = a, written to no VGPR: the (Sp)SIMD returns the one enabled lane's d as its
    /// scalar result (`v_readlane_b32`, `v_readfirstlane_b32`; the issue unit enables that
    /// lane alone).
    ReadLane,
    /// d = !a
    Not,
    /// d = a + b, carry-out to the mask result
    Add,
    /// d = a + b + m, carry-out to the mask result
    Addc,
    /// d = a - b, borrow (b > a) to the mask result
    Sub,
    /// d = a - b - m, borrow (b + m > a) to the mask result
    Subb,
    /// d = a + b saturated to 0xFFFFFFFF (`v_add_u32` with the VOP3 `clamp` bit), carry-out
    /// to the mask result
    AddSatU,
    /// d = a - b saturated to 0 (`v_sub_u32`/`v_subrev_u32` with `clamp`), borrow to the mask
    /// result
    SubSatU,
    /// d = a + b saturated to 0xFFFF, a and b halves (`v_add_u16` with `clamp`; the 16-bit
    /// subtracts saturate as `SubSatU` does)
    AddSatU16,
    /// d = low word of a * b
    MulLo,
    /// d = high word of the unsigned 64-bit product
    MulHiU,
    /// d = high word of the signed 64-bit product
    MulHiI,
    /// d = a[23:0] * b[23:0] (low word)
    MulU24,
    /// d = sext(a[23:0]) * sext(b[23:0]) (low word)
    MulI24,
    /// d = a[23:0] * b[23:0] + c
    MadU24,
    /// d = sext(a[23:0]) * sext(b[23:0]) + c
    MadI24,
    And,
    Or,
    Xor,
    /// d = a << `b[4:0]`
    Shl,
    /// d = a >> `b[4:0]` (logical)
    Shr,
    /// d = a >> `b[4:0]` (arithmetic)
    Ashr,
    /// d:d+1 = (a_hi:a) << `b[5:0]`
    Shl64,
    /// d:d+1 = (a_hi:a) >> `b[5:0]` (logical)
    Shr64,
    /// d:d+1 = (a_hi:a) >> `b[5:0]` (arithmetic)
    Ashr64,
    MinI,
    MaxI,
    MinU,
    MaxU,
    /// d = `c[4:0]` bits of a from bit `b[4:0]` (0 for width 0)
    BfeU,
    /// the field of `BfeU`, sign-extended from its top bit
    BfeI,
    /// d = m ? b : a
    Cndmask,
    /// d = high word of sext(a[23:0]) * sext(b[23:0])
    MulHiI24,
    /// d = high word of a[23:0] * b[23:0]
    MulHiU24,
    /// d = a with its bits reversed
    Bfrev,
    /// d = leading zeros of a, or -1 for 0 (`v_ffbh_u32`)
    Ffbh,
    /// d = trailing zeros of a, or -1 for 0 (`v_ffbl_b32`)
    Ffbl,
    /// d = leading bits of a equal to its sign bit, or -1 for 0 and -1 (`v_ffbh_i32`)
    FfbhI,
    /// d = bits set in a, plus b
    Bcnt,
    /// d = ((1 << a[4:0]) - 1) << b[4:0]
    Bfm,
    /// d = (a & b) | (!a & c)
    Bfi,
    /// d = low word of (a:b) >> c[4:0]
    Alignbit,
    /// d = low word of (a:b) >> 8·c[1:0]
    Alignbyte,
    /// d = bytes of the pair a:b (or fills) picked by the bytes of c (`v_perm_b32`)
    Perm,
    Min3I,
    Min3U,
    Max3I,
    Max3U,
    /// the median of a, b, c
    Med3I,
    Med3U,
    /// d:d+1 = a * b + c_hi:c, unsigned; the mask result is bit 64 of the sum
    MadU64,
    /// d:d+1 = sext(a) * sext(b) + c_hi:c; the mask result is bit 64 of the 65-bit sum
    MadI64,
    /// 64-bit compares of a_hi:a with b_hi:b
    CmpEq64,
    CmpNe64,
    CmpLtU64,
    CmpLeU64,
    CmpGtU64,
    CmpGeU64,
    CmpLtI64,
    CmpLeI64,
    CmpGtI64,
    CmpGeI64,
    CmpEq,
    CmpNe,
    CmpLtU,
    CmpLeU,
    CmpGtU,
    CmpGeU,
    CmpLtI,
    CmpLeI,
    CmpGtI,
    CmpGeI,
    /// d = a + b (f32; `v_subrev_f32`'s operands swapped by the decoder)
    AddF,
    /// d = a - b
    SubF,
    /// d = a · b
    MulF,
    /// d = round(round(a · b) + c), unfused (`v_mad/mac/madak/madmk_f32`)
    MadF,
    /// d = a · b + c, one rounding
    FmaF,
    /// IEEE minNum (a NaN operand loses; -0 < +0)
    MinF,
    MaxF,
    /// min(min(a, b), c)
    Min3F,
    Max3F,
    /// the median, or min3 when an operand is NaN
    Med3F,
    /// i32 -> f32 (round to nearest even)
    CvtF32I32,
    CvtF32U32,
    /// f32 -> i32 truncating, saturating, NaN -> 0
    CvtI32F32,
    CvtU32F32,
    /// byte n of a -> f32 (exact)
    CvtF32Ubyte0,
    CvtF32Ubyte1,
    CvtF32Ubyte2,
    CvtF32Ubyte3,
    /// cvt_i32(floor(a + 0.5))
    CvtRpiI32F32,
    /// cvt_i32(floor(a))
    CvtFlrI32F32,
    FloorF,
    CeilF,
    TruncF,
    /// round to nearest integral, ties to even
    RndneF,
    /// min(a - floor(a), 0x3F7FFFFF)
    FractF,
    /// a · 2^b, b a signed i32
    LdexpF,
    /// the mantissa in [0.5, 1) with a's sign
    FrexpMantF,
    /// the i32 exponent e with a = mant · 2^e
    FrexpExpF,
    /// 1 / a, correctly rounded
    RcpF,
    /// sqrt(a), correctly rounded
    SqrtF,
    /// rcp(sqrt(a)), both rounded
    RsqF,
    /// f32 compares (`v_cmp_*_f32`): false, lt, eq, le, gt, lg (ordered, not equal), ge, o (ordered), u (unordered), the negated forms (true on unordered) and true; -0 == +0
    CmpFalseF,
    CmpLtF,
    CmpEqF,
    CmpLeF,
    CmpGtF,
    CmpLgF,
    CmpGeF,
    CmpOF,
    CmpUF,
    CmpNgeF,
    CmpNlgF,
    CmpNgtF,
    CmpNleF,
    CmpNeqF,
    CmpNltF,
    CmpTrueF,
    /// a's class (unflushed) is in the mask b: bit 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf
    CmpClassF,
    /// `v_div_scale_f32` (a = s0, b = denominator, c = numerator): the scaled operand, and
    /// the flag to the mask result
    DivScaleF,
    /// `v_div_fmas_f32`: a · b + c, scaled by 2^±64 before its rounding when m is set
    DivFmasF,
    /// `v_div_fixup_f32` (a = quotient, b = denominator, c = numerator): special cases
    DivFixupF,
    /// 2^a (`v_exp_f32`), log2 a, sin(2πa), cos(2πa): the contract's fixed-point algorithms
    ExpF,
    LogF,
    SinF,
    CosF,
}

impl ValuOp {
    /// Every operation, in encoding order (declaration order, as rust-hdl encodes the enum).
    pub const ALL: [ValuOp; 128] = [
        ValuOp::Mov,
        ValuOp::ReadLane,
        ValuOp::Not,
        ValuOp::Add,
        ValuOp::Addc,
        ValuOp::Sub,
        ValuOp::Subb,
        ValuOp::AddSatU,
        ValuOp::SubSatU,
        ValuOp::AddSatU16,
        ValuOp::MulLo,
        ValuOp::MulHiU,
        ValuOp::MulHiI,
        ValuOp::MulU24,
        ValuOp::MulI24,
        ValuOp::MadU24,
        ValuOp::MadI24,
        ValuOp::And,
        ValuOp::Or,
        ValuOp::Xor,
        ValuOp::Shl,
        ValuOp::Shr,
        ValuOp::Ashr,
        ValuOp::Shl64,
        ValuOp::Shr64,
        ValuOp::Ashr64,
        ValuOp::MinI,
        ValuOp::MaxI,
        ValuOp::MinU,
        ValuOp::MaxU,
        ValuOp::BfeU,
        ValuOp::BfeI,
        ValuOp::Cndmask,
        ValuOp::MulHiI24,
        ValuOp::MulHiU24,
        ValuOp::Bfrev,
        ValuOp::Ffbh,
        ValuOp::Ffbl,
        ValuOp::FfbhI,
        ValuOp::Bcnt,
        ValuOp::Bfm,
        ValuOp::Bfi,
        ValuOp::Alignbit,
        ValuOp::Alignbyte,
        ValuOp::Perm,
        ValuOp::Min3I,
        ValuOp::Min3U,
        ValuOp::Max3I,
        ValuOp::Max3U,
        ValuOp::Med3I,
        ValuOp::Med3U,
        ValuOp::MadU64,
        ValuOp::MadI64,
        ValuOp::CmpEq64,
        ValuOp::CmpNe64,
        ValuOp::CmpLtU64,
        ValuOp::CmpLeU64,
        ValuOp::CmpGtU64,
        ValuOp::CmpGeU64,
        ValuOp::CmpLtI64,
        ValuOp::CmpLeI64,
        ValuOp::CmpGtI64,
        ValuOp::CmpGeI64,
        ValuOp::CmpEq,
        ValuOp::CmpNe,
        ValuOp::CmpLtU,
        ValuOp::CmpLeU,
        ValuOp::CmpGtU,
        ValuOp::CmpGeU,
        ValuOp::CmpLtI,
        ValuOp::CmpLeI,
        ValuOp::CmpGtI,
        ValuOp::CmpGeI,
        ValuOp::AddF,
        ValuOp::SubF,
        ValuOp::MulF,
        ValuOp::MadF,
        ValuOp::FmaF,
        ValuOp::MinF,
        ValuOp::MaxF,
        ValuOp::Min3F,
        ValuOp::Max3F,
        ValuOp::Med3F,
        ValuOp::CvtF32I32,
        ValuOp::CvtF32U32,
        ValuOp::CvtI32F32,
        ValuOp::CvtU32F32,
        ValuOp::CvtF32Ubyte0,
        ValuOp::CvtF32Ubyte1,
        ValuOp::CvtF32Ubyte2,
        ValuOp::CvtF32Ubyte3,
        ValuOp::CvtRpiI32F32,
        ValuOp::CvtFlrI32F32,
        ValuOp::FloorF,
        ValuOp::CeilF,
        ValuOp::TruncF,
        ValuOp::RndneF,
        ValuOp::FractF,
        ValuOp::LdexpF,
        ValuOp::FrexpMantF,
        ValuOp::FrexpExpF,
        ValuOp::RcpF,
        ValuOp::SqrtF,
        ValuOp::RsqF,
        ValuOp::CmpFalseF,
        ValuOp::CmpLtF,
        ValuOp::CmpEqF,
        ValuOp::CmpLeF,
        ValuOp::CmpGtF,
        ValuOp::CmpLgF,
        ValuOp::CmpGeF,
        ValuOp::CmpOF,
        ValuOp::CmpUF,
        ValuOp::CmpNgeF,
        ValuOp::CmpNlgF,
        ValuOp::CmpNgtF,
        ValuOp::CmpNleF,
        ValuOp::CmpNeqF,
        ValuOp::CmpNltF,
        ValuOp::CmpTrueF,
        ValuOp::CmpClassF,
        ValuOp::DivScaleF,
        ValuOp::DivFmasF,
        ValuOp::DivFixupF,
        ValuOp::ExpF,
        ValuOp::LogF,
        ValuOp::SinF,
        ValuOp::CosF,
    ];

    /// Compares write only the mask result, no VGPR.
    pub fn is_compare(self) -> bool {
        use ValuOp::*;
        matches!(
            self,
            CmpEq
                | CmpNe
                | CmpLtU
                | CmpLeU
                | CmpGtU
                | CmpGeU
                | CmpLtI
                | CmpLeI
                | CmpGtI
                | CmpGeI
                | CmpEq64
                | CmpNe64
                | CmpLtU64
                | CmpLeU64
                | CmpGtU64
                | CmpGeU64
                | CmpLtI64
                | CmpLeI64
                | CmpGtI64
                | CmpGeI64
        ) || self.is_float_compare()
    }

    /// The f32 compares and `v_cmp_class_f32`.
    pub fn is_float_compare(self) -> bool {
        use ValuOp::*;
        matches!(
            self,
            CmpFalseF
                | CmpLtF
                | CmpEqF
                | CmpLeF
                | CmpGtF
                | CmpLgF
                | CmpGeF
                | CmpOF
                | CmpUF
                | CmpNgeF
                | CmpNlgF
                | CmpNgtF
                | CmpNleF
                | CmpNeqF
                | CmpNltF
                | CmpTrueF
                | CmpClassF
        )
    }

    /// The op runs on the lane's f32 unit ([`LaneFpu`]) and reads the modifier word.
    pub fn is_float(self) -> bool {
        // The f32 operations are declared last, from `AddF` on.
        self as usize >= ValuOp::AddF as usize
    }

    /// Carry ops write the VGPR and the carry/borrow mask.
    pub fn is_carry(self) -> bool {
        use ValuOp::*;
        matches!(
            self,
            Add | Addc | Sub | Subb | AddSatU | SubSatU | MadU64 | MadI64 | DivScaleF
        )
    }

    /// The op's mask result is meaningful (compare or carry-out); it is 0 for the others.
    pub fn writes_mask(self) -> bool {
        self.is_compare() || self.is_carry()
    }

    /// The op reads the mask input (carry-in or select).
    pub fn reads_mask(self) -> bool {
        matches!(
            self,
            ValuOp::Addc | ValuOp::Subb | ValuOp::Cndmask | ValuOp::DivFmasF
        )
    }

    /// Operand a is the pair a_hi:a (64-bit shifts and compares).
    pub fn is_wide(self) -> bool {
        use ValuOp::*;
        matches!(self, Shl64 | Shr64 | Ashr64) || self.is_wide_b()
    }

    /// Operand b is the pair b_hi:b (64-bit compares).
    pub fn is_wide_b(self) -> bool {
        use ValuOp::*;
        matches!(
            self,
            CmpEq64
                | CmpNe64
                | CmpLtU64
                | CmpLeU64
                | CmpGtU64
                | CmpGeU64
                | CmpLtI64
                | CmpLeI64
                | CmpGtI64
                | CmpGeI64
        )
    }

    /// Operand c is the pair c_hi:c (64-bit multiply-add).
    pub fn is_wide_c(self) -> bool {
        matches!(self, ValuOp::MadU64 | ValuOp::MadI64)
    }

    /// The result is the pair d, d+1 (64-bit shifts and multiply-add).
    pub fn writes_pair(self) -> bool {
        use ValuOp::*;
        matches!(self, Shl64 | Shr64 | Ashr64 | MadU64 | MadI64)
    }

    /// Source operands the op reads (a, b, c in that order).
    pub fn sources(self) -> usize {
        use ValuOp::*;
        match self {
            Mov | ReadLane | Not | Bfrev | Ffbh | Ffbl | FfbhI | CvtF32I32 | CvtF32U32
            | CvtI32F32 | CvtU32F32 | CvtF32Ubyte0 | CvtF32Ubyte1 | CvtF32Ubyte2 | CvtF32Ubyte3
            | CvtRpiI32F32 | CvtFlrI32F32 | FloorF | CeilF | TruncF | RndneF | FractF
            | FrexpMantF | FrexpExpF | RcpF | SqrtF | RsqF | ExpF | LogF | SinF | CosF => 1,
            MadU24 | MadI24 | BfeU | BfeI | Bfi | Alignbit | Alignbyte | Perm | Min3I | Min3U
            | Max3I | Max3U | Med3I | Med3U | MadU64 | MadI64 | MadF | FmaF | Min3F | Max3F
            | Med3F | DivScaleF | DivFmasF | DivFixupF => 3,
            _ => 2,
        }
    }
}

/// One 32-bit integer ALU lane (combinational).
#[derive(LogicBlock)]
pub struct LaneAlu {
    pub op: Signal<In, ValuOp>,
    pub a: Signal<In, Bits<32>>,
    /// High words of the 64-bit operands: a (64-bit shifts and compares), b (compares), c
    /// (multiply-add).
    pub a_hi: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub b_hi: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    pub c_hi: Signal<In, Bits<32>>,
    /// The lane's bit of the mask input: carry-in of `Addc`/`Subb`, select of `Cndmask`.
    pub m: Signal<In, Bit>,
    /// VOP3 modifiers of the f32 ops (`fpu::fmod_word`).
    pub fmod: Signal<In, Bits<FMOD_BITS>>,
    pub result: Signal<Out, Bits<32>>,
    /// High word of a 64-bit result (shifts, multiply-add).
    pub result_hi: Signal<Out, Bits<32>>,
    /// Compare outcome or carry/borrow-out (false for the other ops).
    pub flag: Signal<Out, Bit>,
    /// The f32 operations.
    pub fpu: LaneFpu,
    /// `v_perm_b32`.
    pub perm: BytePermute,
    // Multiplier operands (24-bit forms extended) and the 64-bit product from four of
    // rust-hdl's 16 x 16 multipliers, computed only for the multiply ops.
    ma: Signal<Local, Bits<32>>,
    mb: Signal<Local, Bits<32>>,
    p_ll: Signal<Local, Bits<32>>,
    p_lh: Signal<Local, Bits<32>>,
    p_hl: Signal<Local, Bits<32>>,
    p_hh: Signal<Local, Bits<32>>,
    mid: Signal<Local, Bits<32>>,
    prod_lo: Signal<Local, Bits<32>>,
    prod_hi: Signal<Local, Bits<32>>,
    /// High word of the signed product of ma and mb.
    prod_hi_s: Signal<Local, Bits<32>>,
    /// The 64-bit multiply-add: high word of the product, low and high sums, carries.
    mad_hi: Signal<Local, Bits<32>>,
    sum_lo: Signal<Local, Bits<32>>,
    sum_hi0: Signal<Local, Bits<32>>,
    sum_hi: Signal<Local, Bits<32>>,
    carry64: Signal<Local, Bit>,
    /// Bit scans and counts: the scanned word, the word being narrowed, the zeros or ones
    /// counted, the result (-1 when there is no such bit).
    scan: Signal<Local, Bits<32>>,
    bits: Signal<Local, Bits<32>>,
    count: Signal<Local, Bits<32>>,
    pos: Signal<Local, Bits<32>>,
    /// Three-input min/max/median on order-preserving (sign-flipped when signed) values.
    flip: Signal<Local, Bits<32>>,
    ua: Signal<Local, Bits<32>>,
    ub: Signal<Local, Bits<32>>,
    uc: Signal<Local, Bits<32>>,
    mn: Signal<Local, Bits<32>>,
    mx: Signal<Local, Bits<32>>,
    med: Signal<Local, Bits<32>>,
    /// 64-bit compares: the high words (sign-flipped for the signed ones) and their order.
    ha: Signal<Local, Bits<32>>,
    hb: Signal<Local, Bits<32>>,
    lt64: Signal<Local, Bit>,
    eq64: Signal<Local, Bit>,
    /// Funnel shift amount of `Alignbit`/`Alignbyte` and its complement.
    fs: Signal<Local, Bits<5>>,
    fsc: Signal<Local, Bits<5>>,
    /// a + b, and a, b with the sign bit flipped (signed order as unsigned order).
    sum: Signal<Local, Bits<32>>,
    sa: Signal<Local, Bits<32>>,
    sb: Signal<Local, Bits<32>>,
    /// Shift amount mod 32 and (32 - amount) mod 32 for the bits crossing between words
    /// (rust-hdl simulates shifts through big integers, so the lane shifts only for the ops
    /// that need it; truncations are `bit_cast`s).
    sh: Signal<Local, Bits<5>>,
    shc: Signal<Local, Bits<5>>,
    /// Sign fill of the arithmetic shifts (all ones for a negative value).
    fill: Signal<Local, Bits<32>>,
    /// Bit field of the `Bfe` ops and its width.
    field: Signal<Local, Bits<32>>,
    width: Signal<Local, Bits<5>>,
    ones: Constant<Bits<32>>,
    sign: Constant<Bits<32>>,
    low24: Constant<Bits<32>>,
    high8: Constant<Bits<32>>,
    bit16: Constant<Bits<32>>,
    zero5: Constant<Bits<5>>,
}

impl Default for LaneAlu {
    fn default() -> Self {
        LaneAlu {
            op: Default::default(),
            a: Default::default(),
            a_hi: Default::default(),
            b: Default::default(),
            b_hi: Default::default(),
            c: Default::default(),
            c_hi: Default::default(),
            m: Default::default(),
            fmod: Default::default(),
            result: Default::default(),
            result_hi: Default::default(),
            flag: Default::default(),
            fpu: Default::default(),
            perm: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            p_ll: Default::default(),
            p_lh: Default::default(),
            p_hl: Default::default(),
            p_hh: Default::default(),
            mid: Default::default(),
            prod_lo: Default::default(),
            prod_hi: Default::default(),
            prod_hi_s: Default::default(),
            mad_hi: Default::default(),
            sum_lo: Default::default(),
            sum_hi0: Default::default(),
            sum_hi: Default::default(),
            carry64: Default::default(),
            scan: Default::default(),
            bits: Default::default(),
            count: Default::default(),
            pos: Default::default(),
            flip: Default::default(),
            ua: Default::default(),
            ub: Default::default(),
            uc: Default::default(),
            mn: Default::default(),
            mx: Default::default(),
            med: Default::default(),
            ha: Default::default(),
            hb: Default::default(),
            lt64: Default::default(),
            eq64: Default::default(),
            fs: Default::default(),
            fsc: Default::default(),
            sum: Default::default(),
            sa: Default::default(),
            sb: Default::default(),
            sh: Default::default(),
            shc: Default::default(),
            fill: Default::default(),
            field: Default::default(),
            width: Default::default(),
            ones: Constant::new(0xFFFF_FFFFu64.to_bits()),
            sign: Constant::new(0x8000_0000u64.to_bits()),
            low24: Constant::new(0x00FF_FFFFu64.to_bits()),
            high8: Constant::new(0xFF00_0000u64.to_bits()),
            bit16: Constant::new(0x0001_0000u64.to_bits()),
            zero5: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for LaneAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.result.next = 0.into();
        self.result_hi.next = 0.into();
        self.flag.next = false;
        // The permute sees its operands only when it runs (simulation cost, as the fpu's
        // blocks).
        self.perm.a.next = 0.into();
        self.perm.b.next = 0.into();
        self.perm.c.next = 0.into();
        if self.op.val() == ValuOp::Perm {
            self.perm.a.next = self.a.val();
            self.perm.b.next = self.b.val();
            self.perm.c.next = self.c.val();
        }
        self.fpu.op.next = self.op.val();
        self.fpu.a.next = self.a.val();
        self.fpu.b.next = self.b.val();
        self.fpu.c.next = self.c.val();
        self.fpu.fmod.next = self.fmod.val();
        self.fpu.m.next = self.m.val();
        self.ma.next = self.a.val();
        self.mb.next = self.b.val();
        self.p_ll.next = 0.into();
        self.p_lh.next = 0.into();
        self.p_hl.next = 0.into();
        self.p_hh.next = 0.into();
        self.mid.next = 0.into();
        self.prod_lo.next = 0.into();
        self.prod_hi.next = 0.into();
        self.prod_hi_s.next = 0.into();
        self.mad_hi.next = 0.into();
        self.sum_lo.next = 0.into();
        self.sum_hi0.next = 0.into();
        self.sum_hi.next = 0.into();
        self.carry64.next = false;
        self.scan.next = self.a.val();
        self.bits.next = 0.into();
        self.count.next = 0.into();
        self.pos.next = self.ones.val();
        self.flip.next = 0.into();
        self.ua.next = 0.into();
        self.ub.next = 0.into();
        self.uc.next = 0.into();
        self.mn.next = 0.into();
        self.mx.next = 0.into();
        self.med.next = 0.into();
        self.ha.next = self.a_hi.val();
        self.hb.next = self.b_hi.val();
        self.lt64.next = false;
        self.eq64.next = false;
        self.fs.next = bit_cast::<5, 32>(self.c.val());
        self.fsc.next = 0.into();
        self.sum.next = self.a.val() + self.b.val();
        self.sa.next = self.a.val() ^ self.sign.val();
        self.sb.next = self.b.val() ^ self.sign.val();
        self.sh.next = bit_cast::<5, 32>(self.b.val());
        self.shc.next = self.zero5.val() - bit_cast::<5, 32>(self.b.val());
        self.fill.next = 0.into();
        self.field.next = 0.into();
        self.width.next = bit_cast::<5, 32>(self.c.val());

        // The 24-bit multiplies use the low 24 bits, zero- or sign-extended.
        if (self.op.val() == ValuOp::MulU24)
            | (self.op.val() == ValuOp::MadU24)
            | (self.op.val() == ValuOp::MulHiU24)
        {
            self.ma.next = self.a.val() & self.low24.val();
            self.mb.next = self.b.val() & self.low24.val();
        }
        if (self.op.val() == ValuOp::MulI24)
            | (self.op.val() == ValuOp::MadI24)
            | (self.op.val() == ValuOp::MulHiI24)
        {
            self.ma.next = self.a.val() & self.low24.val();
            if self.a.val().get_bit(23) {
                self.ma.next = self.a.val() | self.high8.val();
            }
            self.mb.next = self.b.val() & self.low24.val();
            if self.b.val().get_bit(23) {
                self.mb.next = self.b.val() | self.high8.val();
            }
        }
        // The full product, only for the multiplies (the partial products are the expensive
        // part of a lane in simulation).
        if (self.op.val() == ValuOp::MulLo)
            | (self.op.val() == ValuOp::MulHiU)
            | (self.op.val() == ValuOp::MulHiI)
            | (self.op.val() == ValuOp::MulU24)
            | (self.op.val() == ValuOp::MulI24)
            | (self.op.val() == ValuOp::MadU24)
            | (self.op.val() == ValuOp::MadI24)
            | (self.op.val() == ValuOp::MulHiU24)
            | (self.op.val() == ValuOp::MulHiI24)
            | (self.op.val() == ValuOp::MadU64)
            | (self.op.val() == ValuOp::MadI64)
        {
            self.p_ll.next = bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val());
            self.p_lh.next = bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16);
            self.p_hl.next = self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val());
            self.p_hh.next = self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16);
            self.mid.next = self.p_lh.val() + self.p_hl.val();
            self.prod_lo.next = self.p_ll.val() + (self.mid.val() << 16);
            self.prod_hi.next =
                self.p_hh.val() + (self.mid.val() >> 16) + (self.prod_lo.val() < self.p_ll.val());
            // The middle sum's own carry is worth 2^48: bit 16 of the high word.
            if self.mid.val() < self.p_lh.val() {
                self.prod_hi.next = self.p_hh.val()
                    + (self.mid.val() >> 16)
                    + (self.prod_lo.val() < self.p_ll.val())
                    + self.bit16.val();
            }
            // Signed high word = unsigned high word - (ma < 0 ? mb : 0) - (mb < 0 ? ma : 0).
            self.prod_hi_s.next = self.prod_hi.val();
            if self.ma.val().get_bit(31) {
                self.prod_hi_s.next = self.prod_hi_s.val() - self.mb.val();
            }
            if self.mb.val().get_bit(31) {
                self.prod_hi_s.next = self.prod_hi_s.val() - self.ma.val();
            }
        }
        // 64-bit multiply-add: {carry, sum} = product + c_hi:c.
        if (self.op.val() == ValuOp::MadU64) | (self.op.val() == ValuOp::MadI64) {
            self.mad_hi.next = self.prod_hi.val();
            if self.op.val() == ValuOp::MadI64 {
                self.mad_hi.next = self.prod_hi_s.val();
            }
            self.sum_lo.next = self.prod_lo.val() + self.c.val();
            self.sum_hi0.next = self.mad_hi.val() + self.c_hi.val();
            self.sum_hi.next = self.sum_hi0.val();
            if self.sum_lo.val() < self.prod_lo.val() {
                self.sum_hi.next = self.sum_hi0.val() + 1;
            }
            self.carry64.next =
                (self.sum_hi0.val() < self.mad_hi.val()) | (self.sum_hi.val() < self.sum_hi0.val());
            // The 65-bit two's complement sum's top bit: the signs and the carry into it.
            if self.op.val() == ValuOp::MadI64 {
                self.carry64.next = self.carry64.val()
                    ^ self.mad_hi.val().get_bit(31)
                    ^ self.c_hi.val().get_bit(31);
            }
        }
        // Bit scans and counts in log depth: leading zeros of `scan` by halving (Ffbh, FfbhI),
        // trailing zeros likewise (Ffbl), each -1 when `scan` is 0; the population count by
        // pairwise sums (Bcnt); the bit reverse by swapping halves, quarters, ... (Bfrev).
        if (self.op.val() == ValuOp::Ffbh) | (self.op.val() == ValuOp::FfbhI) {
            if (self.op.val() == ValuOp::FfbhI) & self.a.val().get_bit(31) {
                self.scan.next = !self.a.val();
            }
            self.bits.next = self.scan.val();
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
            if self.scan.val().any() {
                self.pos.next = self.count.val();
            }
        }
        if self.op.val() == ValuOp::Ffbl {
            self.bits.next = self.scan.val();
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
            if self.scan.val().any() {
                self.pos.next = self.count.val();
            }
        }
        if self.op.val() == ValuOp::Bcnt {
            self.bits.next = self.a.val() - ((self.a.val() >> 1) & 0x5555_5555_u64);
            self.bits.next =
                (self.bits.val() & 0x3333_3333_u64) + ((self.bits.val() >> 2) & 0x3333_3333_u64);
            self.bits.next = (self.bits.val() + (self.bits.val() >> 4)) & 0x0F0F_0F0F_u64;
            self.bits.next = self.bits.val() + (self.bits.val() >> 8);
            self.count.next = (self.bits.val() + (self.bits.val() >> 16)) & 0x3F_u64;
        }
        if self.op.val() == ValuOp::Bfrev {
            self.bits.next =
                ((self.a.val() >> 1) & 0x5555_5555_u64) | ((self.a.val() & 0x5555_5555_u64) << 1);
            self.bits.next = ((self.bits.val() >> 2) & 0x3333_3333_u64)
                | ((self.bits.val() & 0x3333_3333_u64) << 2);
            self.bits.next = ((self.bits.val() >> 4) & 0x0F0F_0F0F_u64)
                | ((self.bits.val() & 0x0F0F_0F0F_u64) << 4);
            self.bits.next = ((self.bits.val() >> 8) & 0x00FF_00FF_u64)
                | ((self.bits.val() & 0x00FF_00FF_u64) << 8);
            self.bits.next = (self.bits.val() >> 16) | (self.bits.val() << 16);
        }
        // Three-input min/max/median: signed values compare as unsigned once their sign bits
        // are flipped.
        if (self.op.val() == ValuOp::Min3I)
            | (self.op.val() == ValuOp::Max3I)
            | (self.op.val() == ValuOp::Med3I)
        {
            self.flip.next = self.sign.val();
        }
        if (self.op.val() == ValuOp::Min3I)
            | (self.op.val() == ValuOp::Max3I)
            | (self.op.val() == ValuOp::Med3I)
            | (self.op.val() == ValuOp::Min3U)
            | (self.op.val() == ValuOp::Max3U)
            | (self.op.val() == ValuOp::Med3U)
        {
            self.ua.next = self.a.val() ^ self.flip.val();
            self.ub.next = self.b.val() ^ self.flip.val();
            self.uc.next = self.c.val() ^ self.flip.val();
            self.mn.next = self.ub.val();
            self.mx.next = self.ua.val();
            if self.ua.val() < self.ub.val() {
                self.mn.next = self.ua.val();
                self.mx.next = self.ub.val();
            }
            // min(max(a, b), c), then the median is max(min(a, b), that).
            self.med.next = self.mx.val();
            if self.uc.val() < self.mx.val() {
                self.med.next = self.uc.val();
            }
        }
        // 64-bit compares: the high words decide unless equal.
        if (self.op.val() == ValuOp::CmpLtI64)
            | (self.op.val() == ValuOp::CmpLeI64)
            | (self.op.val() == ValuOp::CmpGtI64)
            | (self.op.val() == ValuOp::CmpGeI64)
        {
            self.ha.next = self.a_hi.val() ^ self.sign.val();
            self.hb.next = self.b_hi.val() ^ self.sign.val();
        }
        self.eq64.next = (self.a_hi.val() == self.b_hi.val()) & (self.a.val() == self.b.val());
        self.lt64.next = (self.ha.val() < self.hb.val())
            | ((self.ha.val() == self.hb.val()) & (self.a.val() < self.b.val()));
        // Funnel shifts of a:b by c[4:0] (Alignbit) or 8·c[1:0] (Alignbyte).
        if self.op.val() == ValuOp::Alignbyte {
            self.fs.next = bit_cast::<5, 32>(self.c.val() << 3);
        }
        self.fsc.next = self.zero5.val() - self.fs.val();
        // Arithmetic shifts fill with the sign of the (high) word.
        if ((self.op.val() == ValuOp::Ashr) & self.a.val().get_bit(31))
            | ((self.op.val() == ValuOp::Ashr64) & self.a_hi.val().get_bit(31))
        {
            self.fill.next = self.ones.val();
        }
        if (self.op.val() == ValuOp::BfeU) | (self.op.val() == ValuOp::BfeI) {
            self.field.next =
                (self.a.val() >> self.sh.val()) & !(self.ones.val() << self.width.val());
        }

        match self.op.val() {
            ValuOp::Mov => self.result.next = self.a.val(),
            ValuOp::ReadLane => self.result.next = self.a.val(),
            ValuOp::Not => self.result.next = !self.a.val(),
            ValuOp::Add => {
                self.result.next = self.sum.val();
                self.flag.next = self.sum.val() < self.a.val();
            }
            ValuOp::Addc => {
                // At most one of the two additions carries.
                self.result.next = self.sum.val() + self.m.val();
                self.flag.next = (self.sum.val() < self.a.val())
                    | (self.m.val() & (self.sum.val() == self.ones.val()));
            }
            ValuOp::Sub => {
                self.result.next = self.a.val() - self.b.val();
                self.flag.next = self.b.val() > self.a.val();
            }
            ValuOp::Subb => {
                self.result.next = self.a.val() - (self.b.val() + self.m.val());
                self.flag.next =
                    (self.b.val() > self.a.val()) | (self.m.val() & (self.b.val() == self.a.val()));
            }
            ValuOp::AddSatU => {
                self.result.next = self.sum.val();
                self.flag.next = self.sum.val() < self.a.val();
                if self.sum.val() < self.a.val() {
                    self.result.next = self.ones.val();
                }
            }
            ValuOp::AddSatU16 => {
                self.result.next = self.sum.val();
                if self.sum.val().get_bit(16) {
                    self.result.next = 0xFFFF.into();
                }
            }
            ValuOp::SubSatU => {
                self.result.next = self.a.val() - self.b.val();
                self.flag.next = self.b.val() > self.a.val();
                if self.b.val() > self.a.val() {
                    self.result.next = 0.into();
                }
            }
            ValuOp::MulLo => self.result.next = self.prod_lo.val(),
            ValuOp::MulHiU => self.result.next = self.prod_hi.val(),
            ValuOp::MulHiI => self.result.next = self.prod_hi_s.val(),
            ValuOp::MulU24 => self.result.next = self.prod_lo.val(),
            ValuOp::MulI24 => self.result.next = self.prod_lo.val(),
            ValuOp::MadU24 => self.result.next = self.prod_lo.val() + self.c.val(),
            ValuOp::MadI24 => self.result.next = self.prod_lo.val() + self.c.val(),
            ValuOp::And => self.result.next = self.a.val() & self.b.val(),
            ValuOp::Or => self.result.next = self.a.val() | self.b.val(),
            ValuOp::Xor => self.result.next = self.a.val() ^ self.b.val(),
            ValuOp::Shl => self.result.next = self.a.val() << self.sh.val(),
            ValuOp::Shr => self.result.next = self.a.val() >> self.sh.val(),
            ValuOp::Ashr => {
                self.result.next = (self.a.val() >> self.sh.val())
                    | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
            }
            ValuOp::Shl64 => {
                if self.b.val().get_bit(5) {
                    self.result_hi.next = self.a.val() << self.sh.val();
                } else if self.sh.val().any() {
                    self.result.next = self.a.val() << self.sh.val();
                    self.result_hi.next =
                        (self.a_hi.val() << self.sh.val()) | (self.a.val() >> self.shc.val());
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::Shr64 => {
                if self.b.val().get_bit(5) {
                    self.result.next = self.a_hi.val() >> self.sh.val();
                } else if self.sh.val().any() {
                    self.result.next =
                        (self.a.val() >> self.sh.val()) | (self.a_hi.val() << self.shc.val());
                    self.result_hi.next = self.a_hi.val() >> self.sh.val();
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::Ashr64 => {
                if self.b.val().get_bit(5) {
                    self.result.next = (self.a_hi.val() >> self.sh.val())
                        | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
                    self.result_hi.next = self.fill.val();
                } else if self.sh.val().any() {
                    self.result.next =
                        (self.a.val() >> self.sh.val()) | (self.a_hi.val() << self.shc.val());
                    self.result_hi.next = (self.a_hi.val() >> self.sh.val())
                        | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::MinI => {
                self.result.next = self.b.val();
                if self.sa.val() < self.sb.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MaxI => {
                self.result.next = self.b.val();
                if self.sa.val() > self.sb.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MinU => {
                self.result.next = self.b.val();
                if self.a.val() < self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MaxU => {
                self.result.next = self.b.val();
                if self.a.val() > self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::BfeU => self.result.next = self.field.val(),
            ValuOp::BfeI => {
                self.result.next = self.field.val();
                if self.width.val().any() & self.field.val().get_bit((self.width.val() - 1).index())
                {
                    self.result.next = self.field.val() | (self.ones.val() << self.width.val());
                }
            }
            ValuOp::Cndmask => {
                // The sources after their VOP3 abs/neg (the f32 unit's input stage).
                self.result.next = self.fpu.x.val();
                if self.m.val() {
                    self.result.next = self.fpu.y.val();
                }
            }
            ValuOp::MulHiI24 => self.result.next = self.prod_hi_s.val(),
            ValuOp::MulHiU24 => self.result.next = self.prod_hi.val(),
            ValuOp::Bfrev => self.result.next = self.bits.val(),
            ValuOp::Ffbh => self.result.next = self.pos.val(),
            ValuOp::Ffbl => self.result.next = self.pos.val(),
            ValuOp::FfbhI => self.result.next = self.pos.val(),
            ValuOp::Bcnt => self.result.next = self.count.val() + self.b.val(),
            ValuOp::Bfm => {
                self.result.next =
                    (!(self.ones.val() << bit_cast::<5, 32>(self.a.val()))) << self.sh.val();
            }
            ValuOp::Bfi => {
                self.result.next = (self.a.val() & self.b.val()) | (!self.a.val() & self.c.val());
            }
            ValuOp::Alignbit => {
                self.result.next = self.b.val();
                if self.fs.val().any() {
                    self.result.next =
                        (self.b.val() >> self.fs.val()) | (self.a.val() << self.fsc.val());
                }
            }
            ValuOp::Perm => self.result.next = self.perm.y.val(),
            ValuOp::Alignbyte => {
                self.result.next = self.b.val();
                if self.fs.val().any() {
                    self.result.next =
                        (self.b.val() >> self.fs.val()) | (self.a.val() << self.fsc.val());
                }
            }
            ValuOp::Min3I => {
                self.result.next = self.mn.val() ^ self.flip.val();
                if self.uc.val() < self.mn.val() {
                    self.result.next = self.uc.val() ^ self.flip.val();
                }
            }
            ValuOp::Min3U => {
                self.result.next = self.mn.val();
                if self.uc.val() < self.mn.val() {
                    self.result.next = self.uc.val();
                }
            }
            ValuOp::Max3I => {
                self.result.next = self.mx.val() ^ self.flip.val();
                if self.uc.val() > self.mx.val() {
                    self.result.next = self.uc.val() ^ self.flip.val();
                }
            }
            ValuOp::Max3U => {
                self.result.next = self.mx.val();
                if self.uc.val() > self.mx.val() {
                    self.result.next = self.uc.val();
                }
            }
            ValuOp::Med3I => {
                self.result.next = self.med.val() ^ self.flip.val();
                if self.mn.val() > self.med.val() {
                    self.result.next = self.mn.val() ^ self.flip.val();
                }
            }
            ValuOp::Med3U => {
                self.result.next = self.med.val();
                if self.mn.val() > self.med.val() {
                    self.result.next = self.mn.val();
                }
            }
            ValuOp::MadU64 => {
                self.result.next = self.sum_lo.val();
                self.result_hi.next = self.sum_hi.val();
                self.flag.next = self.carry64.val();
            }
            ValuOp::MadI64 => {
                self.result.next = self.sum_lo.val();
                self.result_hi.next = self.sum_hi.val();
                self.flag.next = self.carry64.val();
            }
            ValuOp::CmpEq64 => self.flag.next = self.eq64.val(),
            ValuOp::CmpNe64 => self.flag.next = !self.eq64.val(),
            ValuOp::CmpLtU64 => self.flag.next = self.lt64.val(),
            ValuOp::CmpLeU64 => self.flag.next = self.lt64.val() | self.eq64.val(),
            ValuOp::CmpGtU64 => self.flag.next = !(self.lt64.val() | self.eq64.val()),
            ValuOp::CmpGeU64 => self.flag.next = !self.lt64.val(),
            ValuOp::CmpLtI64 => self.flag.next = self.lt64.val(),
            ValuOp::CmpLeI64 => self.flag.next = self.lt64.val() | self.eq64.val(),
            ValuOp::CmpGtI64 => self.flag.next = !(self.lt64.val() | self.eq64.val()),
            ValuOp::CmpGeI64 => self.flag.next = !self.lt64.val(),
            ValuOp::CmpEq => self.flag.next = self.a.val() == self.b.val(),
            ValuOp::CmpNe => self.flag.next = self.a.val() != self.b.val(),
            ValuOp::CmpLtU => self.flag.next = self.a.val() < self.b.val(),
            ValuOp::CmpLeU => self.flag.next = self.a.val() <= self.b.val(),
            ValuOp::CmpGtU => self.flag.next = self.a.val() > self.b.val(),
            ValuOp::CmpGeU => self.flag.next = self.a.val() >= self.b.val(),
            ValuOp::CmpLtI => self.flag.next = self.sa.val() < self.sb.val(),
            ValuOp::CmpLeI => self.flag.next = self.sa.val() <= self.sb.val(),
            ValuOp::CmpGtI => self.flag.next = self.sa.val() > self.sb.val(),
            ValuOp::CmpGeI => self.flag.next = self.sa.val() >= self.sb.val(),
            _ => {
                self.result.next = self.fpu.result.val();
                self.flag.next = self.fpu.flag.val();
            }
        }
    }
}
