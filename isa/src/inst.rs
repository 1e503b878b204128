//! The instruction model shared by the assembler, the encoder/decoder, the golden model and the
//! host compiler: operands, instructions and their control-flow properties.
//!
//! An instruction holds its operands exactly as llvm-mc prints them, implicit ones included
//! (`v_add_u32_e32 v1, vcc, v2, v3` has `sdst = Some(VccLo)`), so an executor never needs to
//! know which encoding form was used; a 64-bit operand is its first register, its width comes
//! from the opcode's [`Signature`](crate::Signature).

use std::fmt;

use crate::opcode::{Format, ImmKind, Opcode, Width};

/// The inline floating-point constants of GCN3 (source codes 240..=248).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InlineFloat {
    Half,
    NegHalf,
    One,
    NegOne,
    Two,
    NegTwo,
    Four,
    NegFour,
    /// 1/(2*pi), an inline constant since gfx8.
    InvTwoPi,
}

impl InlineFloat {
    /// All constants in source-code order.
    pub const ALL: [InlineFloat; 9] = [
        InlineFloat::Half,
        InlineFloat::NegHalf,
        InlineFloat::One,
        InlineFloat::NegOne,
        InlineFloat::Two,
        InlineFloat::NegTwo,
        InlineFloat::Four,
        InlineFloat::NegFour,
        InlineFloat::InvTwoPi,
    ];

    /// Source operand code (240..=248).
    pub fn code(self) -> u16 {
        240 + self as u16
    }

    /// IEEE single-precision bits: the value a 32-bit operand reads.
    pub fn f32_bits(self) -> u32 {
        match self {
            InlineFloat::Half => 0x3f00_0000,
            InlineFloat::NegHalf => 0xbf00_0000,
            InlineFloat::One => 0x3f80_0000,
            InlineFloat::NegOne => 0xbf80_0000,
            InlineFloat::Two => 0x4000_0000,
            InlineFloat::NegTwo => 0xc000_0000,
            InlineFloat::Four => 0x4080_0000,
            InlineFloat::NegFour => 0xc080_0000,
            InlineFloat::InvTwoPi => 0x3e22_f983,
        }
    }

    /// The value as a 16-bit instruction reads it: the f16 bits (GCN3 manual, "16-bit
    /// instructions"), 0x3118 for 1/(2pi).
    pub fn f16_bits(self) -> u16 {
        match self {
            InlineFloat::Half => 0x3800,
            InlineFloat::NegHalf => 0xb800,
            InlineFloat::One => 0x3c00,
            InlineFloat::NegOne => 0xbc00,
            InlineFloat::Two => 0x4000,
            InlineFloat::NegTwo => 0xc000,
            InlineFloat::Four => 0x4400,
            InlineFloat::NegFour => 0xc400,
            InlineFloat::InvTwoPi => 0x3118,
        }
    }

    /// IEEE double-precision bits: the value a 64-bit operand reads.
    pub fn f64_bits(self) -> u64 {
        match self {
            InlineFloat::Half => 0x3fe0_0000_0000_0000,
            InlineFloat::NegHalf => 0xbfe0_0000_0000_0000,
            InlineFloat::One => 0x3ff0_0000_0000_0000,
            InlineFloat::NegOne => 0xbff0_0000_0000_0000,
            InlineFloat::Two => 0x4000_0000_0000_0000,
            InlineFloat::NegTwo => 0xc000_0000_0000_0000,
            InlineFloat::Four => 0x4010_0000_0000_0000,
            InlineFloat::NegFour => 0xc010_0000_0000_0000,
            InlineFloat::InvTwoPi => 0x3fc4_5f30_6dc9_c882,
        }
    }

    /// The text llvm-mc prints for the constant read with `width`: 1/(2*pi) prints with the
    /// precision of the operand (single or double).
    pub fn text(self, width: Width) -> &'static str {
        match self {
            InlineFloat::InvTwoPi if width != Width::B32 => "0.15915494309189532",
            InlineFloat::Half => "0.5",
            InlineFloat::NegHalf => "-0.5",
            InlineFloat::One => "1.0",
            InlineFloat::NegOne => "-1.0",
            InlineFloat::Two => "2.0",
            InlineFloat::NegTwo => "-2.0",
            InlineFloat::Four => "4.0",
            InlineFloat::NegFour => "-4.0",
            InlineFloat::InvTwoPi => "0.15915494",
        }
    }
}

/// One operand. Register operands name the first 32-bit register; the opcode's signature gives
/// how many consecutive registers are read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Scalar register `s0`..`s101`.
    Sgpr(u8),
    /// Vector register `v0`..`v255`.
    Vgpr(u8),
    /// Trap temporaries `ttmp0`..`ttmp11`.
    Ttmp(u8),
    VccLo,
    VccHi,
    ExecLo,
    ExecHi,
    M0,
    FlatScratchLo,
    FlatScratchHi,
    /// `src_vccz`: 1 when VCC is zero (read-only).
    Vccz,
    /// `src_execz`: 1 when EXEC is zero (read-only).
    Execz,
    /// `src_scc`: the scalar condition code (read-only).
    Scc,
    /// Inline integer constant, -16..=64.
    Int(i8),
    /// Inline floating-point constant.
    Float(InlineFloat),
    /// 32-bit literal dword following the instruction (a 64-bit operand reads it sign-extended
    /// when signed, else zero-extended: [`Operand::constant_value64`]).
    Literal(u32),
}

/// Number of scalar registers of gfx8 (`s0`..`s101`).
pub const NUM_SGPRS: u16 = 102;
/// Number of vector registers (`v0`..`v255`).
pub const NUM_VGPRS: u16 = 256;
/// Number of trap temporaries.
pub const NUM_TTMPS: u16 = 12;

/// Source-operand code of a literal dword.
pub const LITERAL_CODE: u16 = 255;

impl Operand {
    /// The 9-bit source operand code (8-bit for scalar fields; VGPRs are 256 + n).
    pub fn code(self) -> u16 {
        match self {
            Operand::Sgpr(n) => n as u16,
            Operand::FlatScratchLo => 102,
            Operand::FlatScratchHi => 103,
            Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::Ttmp(n) => 112 + n as u16,
            Operand::M0 => 124,
            Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::Int(v) if v >= 0 => 128 + v as u16,
            Operand::Int(v) => (192 - v as i16) as u16,
            Operand::Float(f) => f.code(),
            Operand::Vccz => 251,
            Operand::Execz => 252,
            Operand::Scc => 253,
            Operand::Literal(_) => LITERAL_CODE,
            Operand::Vgpr(n) => 256 + n as u16,
        }
    }

    /// Decodes a source operand code; `literal` is the dword after the instruction (if any).
    /// Returns `None` for codes this subset does not model (tba/tma, lds_direct, reserved).
    pub fn from_code(code: u16, literal: Option<u32>) -> Option<Operand> {
        Some(match code {
            0..=101 => Operand::Sgpr(code as u8),
            102 => Operand::FlatScratchLo,
            103 => Operand::FlatScratchHi,
            106 => Operand::VccLo,
            107 => Operand::VccHi,
            112..=123 => Operand::Ttmp((code - 112) as u8),
            124 => Operand::M0,
            126 => Operand::ExecLo,
            127 => Operand::ExecHi,
            128..=192 => Operand::Int((code - 128) as i8),
            193..=208 => Operand::Int((192 - code as i16) as i8),
            240..=248 => Operand::Float(InlineFloat::ALL[(code - 240) as usize]),
            251 => Operand::Vccz,
            252 => Operand::Execz,
            253 => Operand::Scc,
            LITERAL_CODE => Operand::Literal(literal?),
            256..=511 => Operand::Vgpr((code - 256) as u8),
            _ => return None,
        })
    }

    /// The constant a 16-bit integer instruction reads for the half `bits`: an inline integer
    /// when the half is one as a signed value (`0xffff` is -1), otherwise a literal holding
    /// the half, as llvm-mc encodes it.
    pub fn half_constant(bits: u16) -> Operand {
        let v = bits as i16;
        if (-16..=64).contains(&v) {
            Operand::Int(v as i8)
        } else {
            Operand::Literal(u32::from(bits))
        }
    }

    /// The canonical operand for the integer `value` read with `width`, as llvm-mc encodes it:
    /// an inline integer (-16..=64), an inline float whose bit pattern it is, or a literal.
    /// A 32-bit operand sees the value truncated to 32 bits (`0xffffffff` is inline -1); a
    /// 64-bit one compares it whole. `None` if the value needs more than a 32-bit literal.
    pub fn constant(value: i64, width: Width) -> Option<Operand> {
        let fits32 = i32::try_from(value).is_ok() || u32::try_from(value).is_ok();
        let (int, float) = match width {
            Width::B32 => {
                let bits = value as u32;
                (
                    bits as i32 as i64,
                    InlineFloat::ALL.into_iter().find(|f| f.f32_bits() == bits),
                )
            }
            _ => (
                value,
                InlineFloat::ALL
                    .into_iter()
                    .find(|f| f.f64_bits() == value as u64),
            ),
        };
        // A 64-bit inline float may be written as its full bit pattern, beyond 32 bits.
        if !fits32 && (width == Width::B32 || float.is_none()) {
            None
        } else if (-16..=64).contains(&int) {
            Some(Operand::Int(int as i8))
        } else if let Some(f) = float {
            Some(Operand::Float(f))
        } else {
            Some(Operand::Literal(value as u32))
        }
    }

    /// True for a literal dword holding a value that an inline constant read with `width`
    /// encodes: the assembler never writes one from a number (its hex text reads back as the
    /// inline constant), a linker's resolved reference can leave one, and the printer writes it
    /// `lit(..)`.
    pub fn is_forced_literal(self, width: Width) -> bool {
        match self {
            Operand::Literal(v) => Operand::constant(i64::from(v), width) != Some(self),
            _ => false,
        }
    }

    /// True for the registers that can be written by scalar instructions.
    pub fn is_scalar_register(self) -> bool {
        matches!(
            self,
            Operand::Sgpr(_)
                | Operand::Ttmp(_)
                | Operand::VccLo
                | Operand::VccHi
                | Operand::ExecLo
                | Operand::ExecHi
                | Operand::M0
                | Operand::FlatScratchLo
                | Operand::FlatScratchHi
        )
    }

    /// True for inline constants (integers and floats), which cost no extra dword.
    pub fn is_inline_constant(self) -> bool {
        matches!(self, Operand::Int(_) | Operand::Float(_))
    }

    /// True for operands a VALU instruction reads through the scalar constant bus (SGPRs,
    /// special registers, literals; not VGPRs or inline constants).
    pub fn uses_constant_bus(self) -> bool {
        !matches!(self, Operand::Vgpr(_) | Operand::Int(_) | Operand::Float(_))
    }

    /// True if the operand names EXEC (either half) or `src_execz`. Register ranges cannot
    /// reach EXEC: SGPRs end at s101 and ttmps at 123.
    pub fn touches_exec(self) -> bool {
        matches!(self, Operand::ExecLo | Operand::ExecHi | Operand::Execz)
    }

    /// The 32-bit value of an inline constant or literal as a 32-bit operand reads it.
    pub fn constant_value32(self) -> Option<u32> {
        match self {
            Operand::Int(v) => Some(v as i32 as u32),
            Operand::Float(f) => Some(f.f32_bits()),
            Operand::Literal(v) => Some(v),
            _ => None,
        }
    }

    /// The 64-bit value a 64-bit operand reads from an inline constant or literal. Inline
    /// integers are 64-bit values (-16..=64); a 32-bit literal is sign-extended for a signed
    /// operand (`signed_literal`, [`crate::Opcode::sign_extends_literal64`]) and zero-extended
    /// for a `b64` or `u64` one, as the hardware reads it: clang-14 writes
    /// `s_mov_b64 s[0:1], 0xfffffff9` for 4294967289.
    pub fn constant_value64(self, signed_literal: bool) -> Option<u64> {
        match self {
            Operand::Int(v) => Some(v as i64 as u64),
            Operand::Float(f) => Some(f.f64_bits()),
            Operand::Literal(v) if signed_literal => Some(v as i32 as i64 as u64),
            Operand::Literal(v) => Some(u64::from(v)),
            _ => None,
        }
    }

    /// Text of this operand read or written with `width`, as llvm-mc prints it.
    pub fn display(self, width: Width) -> OperandDisplay {
        OperandDisplay {
            operand: self,
            width,
        }
    }
}

/// Formats an operand with its width (`s[2:3]`, `vcc`, `exec`, `v[4:7]`, `0x1234`).
pub struct OperandDisplay {
    operand: Operand,
    width: Width,
}

impl fmt::Display for OperandDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.width.dwords() as u16;
        let range = |f: &mut fmt::Formatter<'_>, prefix: &str, first: u8| {
            if n == 1 {
                write!(f, "{prefix}{first}")
            } else {
                write!(f, "{prefix}[{}:{}]", first, first as u16 + n - 1)
            }
        };
        let wide = n > 1;
        match self.operand {
            Operand::Sgpr(r) => range(f, "s", r),
            Operand::Vgpr(r) => range(f, "v", r),
            Operand::Ttmp(r) => range(f, "ttmp", r),
            Operand::VccLo if wide => f.write_str("vcc"),
            Operand::VccLo => f.write_str("vcc_lo"),
            Operand::VccHi => f.write_str("vcc_hi"),
            Operand::ExecLo if wide => f.write_str("exec"),
            Operand::ExecLo => f.write_str("exec_lo"),
            Operand::ExecHi => f.write_str("exec_hi"),
            Operand::M0 => f.write_str("m0"),
            Operand::FlatScratchLo if wide => f.write_str("flat_scratch"),
            Operand::FlatScratchLo => f.write_str("flat_scratch_lo"),
            Operand::FlatScratchHi => f.write_str("flat_scratch_hi"),
            Operand::Vccz => f.write_str("src_vccz"),
            Operand::Execz => f.write_str("src_execz"),
            Operand::Scc => f.write_str("src_scc"),
            Operand::Int(v) => write!(f, "{v}"),
            Operand::Float(c) => f.write_str(c.text(self.width)),
            Operand::Literal(v) => write!(f, "0x{v:x}"),
        }
    }
}

/// VOP3 output modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Omod {
    #[default]
    None,
    Mul2,
    Mul4,
    Div2,
}

impl Omod {
    /// The 2-bit OMOD field.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// Decodes the 2-bit OMOD field.
    pub fn from_bits(bits: u32) -> Omod {
        [Omod::None, Omod::Mul2, Omod::Mul4, Omod::Div2][(bits & 3) as usize]
    }
}

/// Instruction modifiers. Which ones an instruction may carry depends on its format:
/// `glc` on SMEM and FLAT, `slc` on FLAT, `gds` on DS, `clamp` on VOP3, `neg`/`abs`/`omod` on
/// VOP3 floating-point instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Modifiers {
    pub glc: bool,
    pub slc: bool,
    /// DS: the access goes to the global data share instead of the LDS.
    pub gds: bool,
    pub clamp: bool,
    pub omod: Omod,
    /// Bit i negates source i.
    pub neg: u8,
    /// Bit i takes the absolute value of source i.
    pub abs: u8,
    /// SDWA: bit i sign-extends the selected byte or word of source i (`sext(v1)`), for the
    /// integer sources (the float ones take `neg`/`abs`).
    pub sext: u8,
}

/// An SDWA operand select (SRC0_SEL, SRC1_SEL, DST_SEL): which byte or word of a 32-bit
/// register the instruction reads or writes. The discriminant is the 3-bit field value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SdwaSel {
    Byte0,
    Byte1,
    Byte2,
    Byte3,
    Word0,
    Word1,
    #[default]
    Dword,
}

impl SdwaSel {
    /// All selects in field order.
    pub const ALL: [SdwaSel; 7] = [
        SdwaSel::Byte0,
        SdwaSel::Byte1,
        SdwaSel::Byte2,
        SdwaSel::Byte3,
        SdwaSel::Word0,
        SdwaSel::Word1,
        SdwaSel::Dword,
    ];

    /// The 3-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// Decodes the 3-bit field (7 is reserved).
    pub fn from_bits(bits: u32) -> Option<SdwaSel> {
        SdwaSel::ALL.get(bits as usize).copied()
    }

    /// The name llvm-mc prints and accepts (upper case only).
    pub fn name(self) -> &'static str {
        [
            "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
        ][self as usize]
    }

    /// The select named `name`.
    pub fn from_name(name: &str) -> Option<SdwaSel> {
        SdwaSel::ALL.into_iter().find(|s| s.name() == name)
    }

    /// `(bit offset, width in bits)` of the selected field.
    pub fn field(self) -> (u32, u32) {
        match self {
            SdwaSel::Byte0 => (0, 8),
            SdwaSel::Byte1 => (8, 8),
            SdwaSel::Byte2 => (16, 8),
            SdwaSel::Byte3 => (24, 8),
            SdwaSel::Word0 => (0, 16),
            SdwaSel::Word1 => (16, 16),
            SdwaSel::Dword => (0, 32),
        }
    }
}

/// SDWA DST_UNUSED: what the destination bits outside DST_SEL become.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DstUnused {
    /// Zero.
    Pad,
    /// The bits above the field copy its top bit; the bits below are zero.
    Sext,
    /// The old value of the destination register is kept (llvm-mc's default).
    #[default]
    Preserve,
}

impl DstUnused {
    /// All values in field order.
    pub const ALL: [DstUnused; 3] = [DstUnused::Pad, DstUnused::Sext, DstUnused::Preserve];

    /// The 2-bit field.
    pub fn bits(self) -> u32 {
        self as u32
    }

    /// Decodes the 2-bit field (3 is reserved).
    pub fn from_bits(bits: u32) -> Option<DstUnused> {
        DstUnused::ALL.get(bits as usize).copied()
    }

    /// The name llvm-mc prints and accepts.
    pub fn name(self) -> &'static str {
        ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"][self as usize]
    }

    /// The value named `name`.
    pub fn from_name(name: &str) -> Option<DstUnused> {
        DstUnused::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The SDWA (sub-dword addressing) fields of a VOP1, VOP2 or VOPC instruction encoded with
/// SRC0 = 0xF9 and a second dword (GCN3 manual, SDWA). The input modifiers (`sext`, `neg`,
/// `abs`) and `clamp` live in [`Modifiers`]. VOPC has no destination fields (its result is
/// a lane mask in VCC) and VOP1 no SRC1_SEL: they stay at their defaults there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Sdwa {
    pub dst_sel: SdwaSel,
    pub dst_unused: DstUnused,
    pub src0_sel: SdwaSel,
    pub src1_sel: SdwaSel,
}

/// The SRC0 code that marks an SDWA encoding of VOP1/VOP2/VOPC.
pub const SDWA_CODE: u16 = 0xF9;

/// One decoded/assembled instruction.
///
/// Field use per format:
/// - SOP1/SOP2: `dst`, `srcs[0..]`. SOPC: `srcs[0..2]` (`split sA, sB`: `srcs = [sA, sB]`).
/// - SOPK: `dst` (s_movk/addk/mulk) or `srcs[0]` (s_cmpk_*), `imm` = the 16-bit field.
/// - SOPP: `imm` = SIMM16 (branch: signed dword offset from the next instruction).
/// - SMEM: `dst` = data, `srcs[0]` = base pair, `imm` = byte offset or `srcs[1]` = SGPR offset.
/// - VOP1/VOP2/VOP3: `dst` = VGPR, `sdst` = carry-out (VCC in e32), `srcs` in text order
///   (carry-in / cndmask mask as `srcs[2]`, VCC in e32). VOPC: `sdst` = mask (VCC in e32).
/// - FLAT: load `dst` = data, `srcs[0]` = address; store `srcs = [address, data]`; atomic
///   `srcs = [address, data]` and `dst` = the returned pre-op value when `glc` is set.
/// - DS: `srcs = [address, data0, data1]` as the signature has them, `dst` = VDST, `imm` = the
///   16-bit offset field (`offset1 << 8 | offset0` for the two-address forms).
/// - MUBUF: `srcs = [VADDR, SRSRC, SOFFSET]` and a store's VDATA as `srcs[3]`, a load's as
///   `dst`; VADDR is `None` for `off` (OFFEN clear) and the VGPR offset with `offen`; `imm` =
///   the 12-bit byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub opcode: Opcode,
    /// Encoded as VOP3 (`_e64`). Always true for VOP3-only opcodes, false for non-VALU ones.
    pub vop3: bool,
    pub dst: Option<Operand>,
    pub sdst: Option<Operand>,
    pub srcs: [Option<Operand>; 4],
    /// The immediate field: SOPK/SOPP 16 bits (raw, zero-extended), SMEM 20-bit byte offset.
    pub imm: u32,
    pub mods: Modifiers,
    /// Encoded as SDWA (`_sdwa`): the select fields; `None` for every other encoding.
    pub sdwa: Option<Sdwa>,
}

impl Instruction {
    /// An instruction with no operands, in its native encoding (VOP3 for VOP3-only opcodes).
    pub fn new(opcode: Opcode) -> Instruction {
        Instruction {
            opcode,
            vop3: opcode.format() == Format::Vop3,
            dst: None,
            sdst: None,
            srcs: [None; 4],
            imm: 0,
            mods: Modifiers::default(),
            sdwa: None,
        }
    }

    /// The format the instruction is encoded in (VOP3 for promoted VOP1/VOP2/VOPC).
    pub fn encoding_format(&self) -> Format {
        if self.vop3 {
            Format::Vop3
        } else {
            self.opcode.format()
        }
    }

    /// Source `i` (`None` past the signature's sources).
    pub fn src(&self, i: usize) -> Option<Operand> {
        self.srcs.get(i).copied().flatten()
    }

    /// The present sources with their widths, in text order.
    pub fn sources(&self) -> impl Iterator<Item = (Operand, Width)> + '_ {
        let sig = self.opcode.signature();
        // An SMEM offset in an SGPR sits in `srcs[1]`, beside the signature's base pair.
        let soffset = self.srcs[1]
            .filter(|_| sig.imm == ImmKind::SmemOffset)
            .map(|s| (s, Width::B32));
        sig.srcs
            .iter()
            .zip(self.srcs.iter())
            .filter_map(|(w, s)| s.map(|s| (s, *w)))
            .chain(soffset)
    }

    /// What the instruction reads, with its width: its sources, and its destination for the
    /// opcodes that also read it ([`Opcode::reads_dst`]: `s_addk_i32`, `s_bitset0_b32`, ...).
    pub fn reads(&self) -> impl Iterator<Item = (Operand, Width)> + '_ {
        let dst = self
            .dst
            .zip(self.opcode.signature().dst)
            .filter(|_| self.opcode.reads_dst());
        self.sources().chain(dst)
    }

    /// Every present operand, destinations first, with its width.
    pub fn operands(&self) -> impl Iterator<Item = (Operand, Width)> + '_ {
        let sig = self.opcode.signature();
        let dst = self.dst.zip(sig.dst);
        let sdst = self.sdst.zip(sig.sdst);
        dst.into_iter().chain(sdst).chain(self.sources())
    }

    /// SIMM16 as a signed value (SOPK, SOPP).
    pub fn simm16(&self) -> i16 {
        self.imm as u16 as i16
    }

    /// True for `s_branch` and the `s_cbranch_*` family.
    pub fn is_branch(&self) -> bool {
        self.opcode.signature().imm == ImmKind::Branch
    }

    /// True for conditional branches (`s_cbranch_*`).
    pub fn is_conditional_branch(&self) -> bool {
        self.is_branch() && self.opcode != Opcode::SBranch
    }

    /// Byte address a branch at `pc` jumps to: `pc + 4 + 4 * simm16`. `None` for other
    /// instructions or a target below address 0.
    pub fn branch_target(&self, pc: u32) -> Option<u32> {
        if !self.is_branch() {
            return None;
        }
        let target = pc as i64 + 4 + 4 * self.simm16() as i64;
        u32::try_from(target).ok()
    }

    /// True when control never falls through to the next instruction (`s_endpgm`, `s_branch`).
    pub fn is_terminator(&self) -> bool {
        matches!(self.opcode, Opcode::SEndpgm | Opcode::SBranch)
    }

    /// True for vector ALU, FLAT, MUBUF and DS instructions, which run under EXEC.
    pub fn is_vector(&self) -> bool {
        matches!(
            self.opcode.format(),
            Format::Vop1
                | Format::Vop2
                | Format::Vopc
                | Format::Vop3
                | Format::Flat
                | Format::Mubuf
                | Format::Ds
        )
    }

    /// True for memory instructions (SMEM, FLAT, MUBUF, DS).
    pub fn is_memory(&self) -> bool {
        matches!(
            self.opcode.format(),
            Format::Smem | Format::Flat | Format::Mubuf | Format::Ds
        )
    }

    /// True if the instruction's result depends on EXEC: vector instructions (masked by it),
    /// `s_cbranch_exec*`, `*_saveexec_b64` and explicit `exec`/`src_execz` sources.
    pub fn reads_exec(&self) -> bool {
        self.is_vector()
            || matches!(self.opcode, Opcode::SCbranchExecz | Opcode::SCbranchExecnz)
            || self.opcode.is_saveexec()
            || self.sources().any(|(s, _)| s.touches_exec())
    }

    /// True if the instruction changes EXEC: `*_saveexec_b64`, `v_cmpx_*`, or a destination
    /// that is `exec`, `exec_lo` or `exec_hi`.
    pub fn writes_exec(&self) -> bool {
        self.opcode.is_saveexec()
            || self.opcode.is_cmpx()
            || matches!(self.dst, Some(Operand::ExecLo | Operand::ExecHi))
            || matches!(self.sdst, Some(Operand::ExecLo | Operand::ExecHi))
    }

    /// True if the instruction writes SCC (GCN3 manual, per opcode).
    pub fn writes_scc(&self) -> bool {
        use Opcode::*;
        match self.opcode.format() {
            Format::Sop1 => !matches!(
                self.opcode,
                SMovB32
                    | SMovB64
                    | SBrevB32
                    | SBrevB64
                    | SFf0I32B32
                    | SFf0I32B64
                    | SFf1I32B32
                    | SFf1I32B64
                    | SFlbitI32B32
                    | SFlbitI32B64
                    | SFlbitI32
                    | SFlbitI32I64
                    | SSextI32I8
                    | SSextI32I16
                    | SBitset0B32
                    | SBitset1B32
            ),
            Format::Sop2 => !matches!(
                self.opcode,
                SCselectB32 | SCselectB64 | SMulI32 | SBfmB32 | SBfmB64
            ),
            Format::Sopc => !matches!(self.opcode, Split | Merge),
            Format::Sopk => !matches!(
                self.opcode,
                SMovkI32 | SMulkI32 | SSetregB32 | SSetregImm32B32
            ),
            _ => false,
        }
    }

    /// True if the instruction reads SCC (`s_addc_u32`, `s_subb_u32`, `s_cselect_*`,
    /// `s_cbranch_scc*`, or a `src_scc` source).
    pub fn reads_scc(&self) -> bool {
        use Opcode::*;
        matches!(
            self.opcode,
            SAddcU32 | SSubbU32 | SCselectB32 | SCselectB64 | SCbranchScc0 | SCbranchScc1
        ) || self.sources().any(|(s, _)| s == Operand::Scc)
    }

    /// True if the instruction reads M0 implicitly: every DS instruction, for which M0 is the
    /// LDS address limit (GCN3 manual, DS).
    pub fn reads_m0_implicitly(&self) -> bool {
        self.opcode.format() == Format::Ds
    }

    /// The number of dwords the instruction occupies (a literal adds one, and so does the
    /// SDWA dword).
    pub fn size_dwords(&self) -> u32 {
        let base = match self.encoding_format() {
            Format::Smem | Format::Vop3 | Format::Flat | Format::Mubuf | Format::Ds => 2,
            _ if self.sdwa.is_some() => 2,
            _ => 1,
        };
        let literal = self
            .srcs
            .iter()
            .any(|s| matches!(s, Some(Operand::Literal(_))));
        base + literal as u32
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::print::write_instruction(f, self, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_smem_offset_in_an_sgpr_is_a_source() {
        let p = crate::assemble(
            "k:\ns_load_dword s9, s[0:1], s7\ns_load_dword s9, s[0:1], 0x4\n",
            "t.s",
        )
        .unwrap();
        let sources = |i: usize| -> Vec<Operand> {
            p.instructions[i].item.sources().map(|(op, _)| op).collect()
        };
        assert_eq!(sources(0), [Operand::Sgpr(0), Operand::Sgpr(7)]);
        assert_eq!(sources(1), [Operand::Sgpr(0)]);
    }
}
