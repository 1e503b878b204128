//! The opcode table: every supported mnemonic with its microcode format, its opcode number in
//! that format (GCN3 / gfx8 numbering, checked against `llvm-mc -mcpu=fiji`) and its operand
//! signature. Assembler, encoder, decoder and the documentation are all driven by this one table,
//! so adding an instruction is one line here (plus its semantics in the golden model).

use std::fmt;

/// A microcode format: the layout of an instruction's first dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Scalar ALU, one source: `SSRC0:8 OP:8 SDST:7 0x17D:9`.
    Sop1,
    /// Scalar ALU, two sources: `SSRC0:8 SSRC1:8 SDST:7 OP:7 0b10:2`.
    Sop2,
    /// Scalar ALU with a 16-bit inline constant: `SIMM16:16 SDST:7 OP:5 0b1011:4`.
    Sopk,
    /// Scalar compare (writes SCC); also `split`/`merge`: `SSRC0:8 SSRC1:8 OP:7 0x17E:9`.
    Sopc,
    /// Scalar program control: `SIMM16:16 OP:7 0x17F:9`.
    Sopp,
    /// Scalar memory (64 bits): `SBASE:6 SDATA:7 .. GLC@16 IMM@17 OP:8 0x30:6`, `OFFSET:20`.
    Smem,
    /// Vector ALU, one source: `SRC0:9 OP:8 VDST:8 0x3F:7`.
    Vop1,
    /// Vector ALU, two sources: `SRC0:9 VSRC1:8 VDST:8 OP:6 0:1`.
    Vop2,
    /// Vector compare, result in VCC: `SRC0:9 VSRC1:8 OP:8 0x3E:7`.
    Vopc,
    /// Vector ALU, 64-bit encoding (three sources, modifiers): first dword `.. OP:10 0x34:6`.
    Vop3,
    /// Flat memory (64 bits): `.. GLC@16 SLC@17 OP:7 0x37:6`, `ADDR:8 DATA:8 .. VDST:8`.
    Flat,
    /// Untyped buffer memory (64 bits): `OFFSET:12 OFFEN@12 IDXEN@13 GLC@14 LDS@16 SLC@17 OP:7
    /// 0x38:6`, `VADDR:8 VDATA:8 SRSRC:5 .. TFE@23 SOFFSET:8`. clang emits it for private
    /// (scratch) memory only.
    Mubuf,
    /// Local data share (64 bits): `OFFSET0:8 OFFSET1:8 GDS@16 OP:8 0x36:6`,
    /// `ADDR:8 DATA0:8 DATA1:8 VDST:8`.
    Ds,
}

impl Format {
    /// The format's name as the GCN3 manual writes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Sop1 => "SOP1",
            Format::Sop2 => "SOP2",
            Format::Sopk => "SOPK",
            Format::Sopc => "SOPC",
            Format::Sopp => "SOPP",
            Format::Smem => "SMEM",
            Format::Vop1 => "VOP1",
            Format::Vop2 => "VOP2",
            Format::Vopc => "VOPC",
            Format::Vop3 => "VOP3",
            Format::Flat => "FLAT",
            Format::Mubuf => "MUBUF",
            Format::Ds => "DS",
        }
    }

    /// True for the vector ALU formats that also have a VOP3 (`_e64`) encoding.
    pub fn has_vop3_form(self) -> bool {
        matches!(self, Format::Vop1 | Format::Vop2 | Format::Vopc)
    }

    /// The offset of this format's opcodes inside the 10-bit VOP3 opcode space.
    pub fn vop3_base(self) -> Option<u16> {
        match self {
            Format::Vopc => Some(0x000),
            Format::Vop2 => Some(0x100),
            Format::Vop1 => Some(0x140),
            Format::Vop3 => Some(0),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Width of one operand, in dwords: a 64-bit operand names its first register (`s[2:3]` is
/// SGPR 2 read as B64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    B32,
    B64,
    /// Three dwords (`flat_load_dwordx3`).
    B96,
    B128,
    /// Eight and sixteen dwords (`s_load_dwordx8`, `s_load_dwordx16`).
    B256,
    B512,
}

impl Width {
    /// Number of consecutive 32-bit registers the operand covers.
    pub fn dwords(self) -> u8 {
        match self {
            Width::B32 => 1,
            Width::B64 => 2,
            Width::B96 => 3,
            Width::B128 => 4,
            Width::B256 => 8,
            Width::B512 => 16,
        }
    }
}

/// What the instruction's immediate field (`Instruction::imm`) means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmKind {
    /// No immediate.
    None,
    /// SOPK 16-bit field of a signed operation: -32768..=0xffff, printed as hex
    /// (`s_movk_i32 s0, 0x1234`).
    Simm16,
    /// SOPK 16-bit field of an unsigned compare: 0..=0xffff, printed as hex.
    Uimm16,
    /// SOPP `s_nop`: the number of wait states minus one, printed in decimal when small.
    Nop,
    /// `s_setreg_b32`'s and `s_setreg_imm32_b32`'s hardware-register field: register id
    /// (bits 5:0), the field's offset (10:6) and size - 1 (15:11), written
    /// `hwreg(HW_REG_MODE, 4, 2)` before the operand (the value: an SGPR in the SDST field, or
    /// a literal dword for the `imm32` form, [`Opcode::setreg_from_literal`]).
    Hwreg,
    /// SOPP branch: signed dword offset from the next instruction.
    Branch,
    /// `s_waitcnt`: vmcnt (bits 3:0), expcnt (6:4), lgkmcnt (11:8).
    Waitcnt,
    /// SMEM unsigned 20-bit byte offset (or an SGPR offset in `srcs[1]`).
    SmemOffset,
    /// DS 16-bit unsigned byte offset, written `offset:N` after the operands.
    DsOffset,
    /// DS two 8-bit offsets in elements of the access (`ds_read2_*`, `ds_write2_*`), written
    /// `offset0:A offset1:B`; the immediate holds `B << 8 | A`, as the encoding does.
    DsOffset2,
    /// MUBUF 12-bit unsigned byte offset, written `offset:N` after the operands.
    MubufOffset,
}

/// The operands an opcode takes: widths of the vector/scalar destination, of the second
/// (carry-out or compare) destination, and of each source, in assembler order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Main destination (VGPR for vector ops, SGPR-class for scalar ops and SMEM).
    pub dst: Option<Width>,
    /// Scalar mask destination: VOP2 carry-out (VCC in e32, any SGPR pair in e64) or the VOPC
    /// result.
    pub sdst: Option<Width>,
    /// Source widths in assembler order (for SOPK compares the compared register is `srcs[0]`).
    pub srcs: &'static [Width],
    /// Meaning of the immediate field.
    pub imm: ImmKind,
}

use Width::{B128, B256, B32, B512, B64, B96};

const fn sig(
    dst: Option<Width>,
    sdst: Option<Width>,
    srcs: &'static [Width],
    imm: ImmKind,
) -> Signature {
    Signature {
        dst,
        sdst,
        srcs,
        imm,
    }
}

const S1_32: Signature = sig(Some(B32), None, &[B32], ImmKind::None);
const S1_64: Signature = sig(Some(B64), None, &[B64], ImmKind::None);
const S1_32_64: Signature = sig(Some(B32), None, &[B64], ImmKind::None);
/// `s_getpc_b64`: a 64-bit destination and no source (the SSRC0 field is 0).
const S1_D64: Signature = sig(Some(B64), None, &[], ImmKind::None);
const S2_32: Signature = sig(Some(B32), None, &[B32, B32], ImmKind::None);
const S2_64: Signature = sig(Some(B64), None, &[B64, B64], ImmKind::None);
const S2_SH64: Signature = sig(Some(B64), None, &[B64, B32], ImmKind::None);
const S2_BFM64: Signature = sig(Some(B64), None, &[B32, B32], ImmKind::None);
const SC_32: Signature = sig(None, None, &[B32, B32], ImmKind::None);
const SC_64: Signature = sig(None, None, &[B64, B64], ImmKind::None);
const SC_BIT64: Signature = sig(None, None, &[B64, B32], ImmKind::None);
const SC_NONE: Signature = sig(None, None, &[], ImmKind::None);
const SK_DST: Signature = sig(Some(B32), None, &[], ImmKind::Simm16);
const SK_CMP: Signature = sig(None, None, &[B32], ImmKind::Simm16);
const SK_CMPU: Signature = sig(None, None, &[B32], ImmKind::Uimm16);
/// The [`ImmKind::Hwreg`] field naming bits `offset..offset + size` (size 1..=32) of
/// hardware register `id`.
pub const fn hwreg_field(id: u32, offset: u32, size: u32) -> u32 {
    id | offset << 6 | (size - 1) << 11
}

const SK_SETREG: Signature = sig(None, None, &[B32], ImmKind::Hwreg);
const SP_NONE: Signature = sig(None, None, &[], ImmKind::None);
const SP_NOP: Signature = sig(None, None, &[], ImmKind::Nop);
const SP_BR: Signature = sig(None, None, &[], ImmKind::Branch);
const SP_WAIT: Signature = sig(None, None, &[], ImmKind::Waitcnt);
const SM_1: Signature = sig(Some(B32), None, &[B64], ImmKind::SmemOffset);
const SM_2: Signature = sig(Some(B64), None, &[B64], ImmKind::SmemOffset);
const SM_4: Signature = sig(Some(B128), None, &[B64], ImmKind::SmemOffset);
const SM_8: Signature = sig(Some(B256), None, &[B64], ImmKind::SmemOffset);
const SM_16: Signature = sig(Some(B512), None, &[B64], ImmKind::SmemOffset);
const V1: Signature = sig(Some(B32), None, &[B32], ImmKind::None);
const V2: Signature = sig(Some(B32), None, &[B32, B32], ImmKind::None);
const V2_CO: Signature = sig(Some(B32), Some(B64), &[B32, B32], ImmKind::None);
const V2_CIO: Signature = sig(Some(B32), Some(B64), &[B32, B32, B64], ImmKind::None);
const V2_K: Signature = sig(Some(B32), None, &[B32, B32, B32], ImmKind::None);
const V2_CND: Signature = sig(Some(B32), None, &[B32, B32, B64], ImmKind::None);
const V3_2: Signature = sig(Some(B32), None, &[B32, B32], ImmKind::None);
const V3_3: Signature = sig(Some(B32), None, &[B32, B32, B32], ImmKind::None);
const V3_SH64: Signature = sig(Some(B64), None, &[B32, B64], ImmKind::None);
const V3_SCALE: Signature = sig(Some(B32), Some(B64), &[B32, B32, B32], ImmKind::None);
const V3_MAD64: Signature = sig(Some(B64), Some(B64), &[B32, B32, B64], ImmKind::None);
const VC: Signature = sig(None, Some(B64), &[B32, B32], ImmKind::None);
// Lane access: the scalar destination takes the VDST field (`Opcode::is_lane_access`).
/// `v_readfirstlane_b32 sD, vS`.
const V1_RFL: Signature = sig(None, Some(B32), &[B32], ImmKind::None);
/// `v_readlane_b32 sD, vS, lane`.
const V3_RL: Signature = sig(None, Some(B32), &[B32, B32], ImmKind::None);
/// `v_writelane_b32 vD, value, lane`.
const V3_WL: Signature = sig(Some(B32), None, &[B32, B32], ImmKind::None);
const VC64: Signature = sig(None, Some(B64), &[B64, B64], ImmKind::None);
const FL_LD1: Signature = sig(Some(B32), None, &[B64], ImmKind::None);
const FL_LD2: Signature = sig(Some(B64), None, &[B64], ImmKind::None);
const FL_LD3: Signature = sig(Some(B96), None, &[B64], ImmKind::None);
const FL_LD4: Signature = sig(Some(B128), None, &[B64], ImmKind::None);
const FL_ST1: Signature = sig(None, None, &[B64, B32], ImmKind::None);
const FL_ST2: Signature = sig(None, None, &[B64, B64], ImmKind::None);
const FL_ST3: Signature = sig(None, None, &[B64, B96], ImmKind::None);
const FL_ST4: Signature = sig(None, None, &[B64, B128], ImmKind::None);
/// FLAT atomics: the destination (the pre-op value) is present exactly when `glc` is set.
const FL_AT: Signature = sig(Some(B32), None, &[B64, B32], ImmKind::None);
/// `flat_atomic_cmpswap`: data is `v[n:n+1]` = (new value, compare value).
const FL_ATC: Signature = sig(Some(B32), None, &[B64, B64], ImmKind::None);
// MUBUF: `srcs = [VADDR (absent for `off`), SRSRC, SOFFSET, VDATA of a store]`, `dst` the
// loaded VDATA.
const MB_LD1: Signature = sig(Some(B32), None, &[B32, B128, B32], ImmKind::MubufOffset);
const MB_LD2: Signature = sig(Some(B64), None, &[B32, B128, B32], ImmKind::MubufOffset);
const MB_LD3: Signature = sig(Some(B96), None, &[B32, B128, B32], ImmKind::MubufOffset);
const MB_LD4: Signature = sig(Some(B128), None, &[B32, B128, B32], ImmKind::MubufOffset);
const MB_ST1: Signature = sig(None, None, &[B32, B128, B32, B32], ImmKind::MubufOffset);
const MB_ST2: Signature = sig(None, None, &[B32, B128, B32, B64], ImmKind::MubufOffset);
const MB_ST3: Signature = sig(None, None, &[B32, B128, B32, B96], ImmKind::MubufOffset);
const MB_ST4: Signature = sig(None, None, &[B32, B128, B32, B128], ImmKind::MubufOffset);
// DS: `srcs[0]` is the address VGPR, `srcs[1]`/`srcs[2]` DATA0/DATA1, `dst` VDST.
const DS_RD1: Signature = sig(Some(B32), None, &[B32], ImmKind::DsOffset);
const DS_RD2: Signature = sig(Some(B64), None, &[B32], ImmKind::DsOffset);
const DS_RD3: Signature = sig(Some(B96), None, &[B32], ImmKind::DsOffset);
const DS_RD4: Signature = sig(Some(B128), None, &[B32], ImmKind::DsOffset);
const DS_RD2X1: Signature = sig(Some(B64), None, &[B32], ImmKind::DsOffset2);
const DS_RD2X2: Signature = sig(Some(B128), None, &[B32], ImmKind::DsOffset2);
const DS_WR1: Signature = sig(None, None, &[B32, B32], ImmKind::DsOffset);
const DS_WR2: Signature = sig(None, None, &[B32, B64], ImmKind::DsOffset);
const DS_WR3: Signature = sig(None, None, &[B32, B96], ImmKind::DsOffset);
const DS_WR4: Signature = sig(None, None, &[B32, B128], ImmKind::DsOffset);
const DS_WR2X1: Signature = sig(None, None, &[B32, B32, B32], ImmKind::DsOffset2);
const DS_WR2X2: Signature = sig(None, None, &[B32, B64, B64], ImmKind::DsOffset2);
const DS_AT3: Signature = sig(None, None, &[B32, B32, B32], ImmKind::DsOffset);
const DS_RTN: Signature = sig(Some(B32), None, &[B32, B32], ImmKind::DsOffset);
const DS_RTN3: Signature = sig(Some(B32), None, &[B32, B32, B32], ImmKind::DsOffset);

/// One row of the opcode table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub opcode: Opcode,
    /// Mnemonic without an encoding suffix (`v_add_u32`, not `v_add_u32_e32`).
    pub mnemonic: &'static str,
    /// Native format; `Format::Vop3` for the VOP3-only instructions.
    pub format: Format,
    /// Opcode number within `format` (the 10-bit VOP3 number for VOP3-only instructions).
    pub code: u16,
    pub signature: Signature,
    /// VOP3 modifiers the instruction accepts (`MOD_*` bits), as llvm-mc's gfx8 tables allow.
    pub mods: u8,
}

/// Accepts the input modifiers `-x`, `|x|` (`neg`/`abs`) on its value sources (not on the
/// lane-mask source of `v_cndmask_b32`).
pub const MOD_INPUT: u8 = 1;
/// Accepts `clamp`.
pub const MOD_CLAMP: u8 = 2;
/// Accepts the output modifiers `mul:2`, `mul:4`, `div:2`.
pub const MOD_OMOD: u8 = 4;
/// f32 arithmetic and conversions from f32: all three.
const FP: u8 = MOD_INPUT | MOD_CLAMP | MOD_OMOD;
/// f32 to integer conversions other than `v_cvt_{i32,u32}_f32` (llvm-mc takes no omod there),
/// and the f32 compares (whose result is a mask).
const FP_INT: u8 = MOD_INPUT | MOD_CLAMP;
/// Conversions from integers to f32: clamp and omod only.
const CVT: u8 = MOD_CLAMP | MOD_OMOD;
/// `v_cndmask_b32` selects floats too: input modifiers only.
const SEL: u8 = MOD_INPUT;
/// Carry-producing integer adds (VOP3b), the 24-bit multiplies and multiply-adds and
/// `v_mad_u64_u32`: clamp only.
const CLAMP: u8 = MOD_CLAMP;

macro_rules! opcodes {
    ($($variant:ident = $mn:literal, $fmt:ident, $code:literal, $sig:ident $(, $mods:ident)?;)*) => {
        /// Every supported instruction, one variant per mnemonic.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(#[doc = concat!("`", $mn, "` (", stringify!($fmt), " ", stringify!($code), ")")] $variant,)*
        }

        /// The opcode table, in `Opcode` order.
        pub static OPCODES: &[OpInfo] = &[
            $(OpInfo {
                opcode: Opcode::$variant,
                mnemonic: $mn,
                format: Format::$fmt,
                code: $code,
                signature: $sig,
                mods: opcodes!(@mods $($mods)?),
            },)*
        ];
    };
    (@mods) => { 0 };
    (@mods $m:ident) => { $m };
}

opcodes! {
    // SOP1
    SMovB32 = "s_mov_b32", Sop1, 0x00, S1_32;
    SMovB64 = "s_mov_b64", Sop1, 0x01, S1_64;
    SNotB32 = "s_not_b32", Sop1, 0x04, S1_32;
    SNotB64 = "s_not_b64", Sop1, 0x05, S1_64;
    SBrevB32 = "s_brev_b32", Sop1, 0x08, S1_32;
    SBrevB64 = "s_brev_b64", Sop1, 0x09, S1_64;
    SBcnt0I32B32 = "s_bcnt0_i32_b32", Sop1, 0x0a, S1_32;
    SBcnt0I32B64 = "s_bcnt0_i32_b64", Sop1, 0x0b, S1_32_64;
    SBcnt1I32B32 = "s_bcnt1_i32_b32", Sop1, 0x0c, S1_32;
    SBcnt1I32B64 = "s_bcnt1_i32_b64", Sop1, 0x0d, S1_32_64;
    SFf0I32B32 = "s_ff0_i32_b32", Sop1, 0x0e, S1_32;
    SFf0I32B64 = "s_ff0_i32_b64", Sop1, 0x0f, S1_32_64;
    SFf1I32B32 = "s_ff1_i32_b32", Sop1, 0x10, S1_32;
    SFf1I32B64 = "s_ff1_i32_b64", Sop1, 0x11, S1_32_64;
    SFlbitI32B32 = "s_flbit_i32_b32", Sop1, 0x12, S1_32;
    SFlbitI32B64 = "s_flbit_i32_b64", Sop1, 0x13, S1_32_64;
    SFlbitI32 = "s_flbit_i32", Sop1, 0x14, S1_32;
    SFlbitI32I64 = "s_flbit_i32_i64", Sop1, 0x15, S1_32_64;
    SSextI32I8 = "s_sext_i32_i8", Sop1, 0x16, S1_32;
    SSextI32I16 = "s_sext_i32_i16", Sop1, 0x17, S1_32;
    SBitset0B32 = "s_bitset0_b32", Sop1, 0x18, S1_32;
    SBitset1B32 = "s_bitset1_b32", Sop1, 0x1a, S1_32;
    SGetpcB64 = "s_getpc_b64", Sop1, 0x1c, S1_D64;
    SAndSaveexecB64 = "s_and_saveexec_b64", Sop1, 0x20, S1_64;
    SOrSaveexecB64 = "s_or_saveexec_b64", Sop1, 0x21, S1_64;
    SXorSaveexecB64 = "s_xor_saveexec_b64", Sop1, 0x22, S1_64;
    SAndn2SaveexecB64 = "s_andn2_saveexec_b64", Sop1, 0x23, S1_64;
    SOrn2SaveexecB64 = "s_orn2_saveexec_b64", Sop1, 0x24, S1_64;
    SNandSaveexecB64 = "s_nand_saveexec_b64", Sop1, 0x25, S1_64;
    SNorSaveexecB64 = "s_nor_saveexec_b64", Sop1, 0x26, S1_64;
    SXnorSaveexecB64 = "s_xnor_saveexec_b64", Sop1, 0x27, S1_64;
    SAbsI32 = "s_abs_i32", Sop1, 0x30, S1_32;
    // SOP2
    SAddU32 = "s_add_u32", Sop2, 0x00, S2_32;
    SSubU32 = "s_sub_u32", Sop2, 0x01, S2_32;
    SAddI32 = "s_add_i32", Sop2, 0x02, S2_32;
    SSubI32 = "s_sub_i32", Sop2, 0x03, S2_32;
    SAddcU32 = "s_addc_u32", Sop2, 0x04, S2_32;
    SSubbU32 = "s_subb_u32", Sop2, 0x05, S2_32;
    SMinI32 = "s_min_i32", Sop2, 0x06, S2_32;
    SMinU32 = "s_min_u32", Sop2, 0x07, S2_32;
    SMaxI32 = "s_max_i32", Sop2, 0x08, S2_32;
    SMaxU32 = "s_max_u32", Sop2, 0x09, S2_32;
    SCselectB32 = "s_cselect_b32", Sop2, 0x0a, S2_32;
    SCselectB64 = "s_cselect_b64", Sop2, 0x0b, S2_64;
    SAndB32 = "s_and_b32", Sop2, 0x0c, S2_32;
    SAndB64 = "s_and_b64", Sop2, 0x0d, S2_64;
    SOrB32 = "s_or_b32", Sop2, 0x0e, S2_32;
    SOrB64 = "s_or_b64", Sop2, 0x0f, S2_64;
    SXorB32 = "s_xor_b32", Sop2, 0x10, S2_32;
    SXorB64 = "s_xor_b64", Sop2, 0x11, S2_64;
    SAndn2B32 = "s_andn2_b32", Sop2, 0x12, S2_32;
    SAndn2B64 = "s_andn2_b64", Sop2, 0x13, S2_64;
    SOrn2B32 = "s_orn2_b32", Sop2, 0x14, S2_32;
    SOrn2B64 = "s_orn2_b64", Sop2, 0x15, S2_64;
    SNandB32 = "s_nand_b32", Sop2, 0x16, S2_32;
    SNandB64 = "s_nand_b64", Sop2, 0x17, S2_64;
    SNorB32 = "s_nor_b32", Sop2, 0x18, S2_32;
    SNorB64 = "s_nor_b64", Sop2, 0x19, S2_64;
    SXnorB32 = "s_xnor_b32", Sop2, 0x1a, S2_32;
    SXnorB64 = "s_xnor_b64", Sop2, 0x1b, S2_64;
    SLshlB32 = "s_lshl_b32", Sop2, 0x1c, S2_32;
    SLshlB64 = "s_lshl_b64", Sop2, 0x1d, S2_SH64;
    SLshrB32 = "s_lshr_b32", Sop2, 0x1e, S2_32;
    SLshrB64 = "s_lshr_b64", Sop2, 0x1f, S2_SH64;
    SAshrI32 = "s_ashr_i32", Sop2, 0x20, S2_32;
    SAshrI64 = "s_ashr_i64", Sop2, 0x21, S2_SH64;
    SBfmB32 = "s_bfm_b32", Sop2, 0x22, S2_32;
    SBfmB64 = "s_bfm_b64", Sop2, 0x23, S2_BFM64;
    SMulI32 = "s_mul_i32", Sop2, 0x24, S2_32;
    SBfeU32 = "s_bfe_u32", Sop2, 0x25, S2_32;
    SBfeI32 = "s_bfe_i32", Sop2, 0x26, S2_32;
    SBfeU64 = "s_bfe_u64", Sop2, 0x27, S2_SH64;
    SBfeI64 = "s_bfe_i64", Sop2, 0x28, S2_SH64;
    SAbsdiffI32 = "s_absdiff_i32", Sop2, 0x2a, S2_32;
    // SOPC
    SCmpEqI32 = "s_cmp_eq_i32", Sopc, 0x00, SC_32;
    SCmpLgI32 = "s_cmp_lg_i32", Sopc, 0x01, SC_32;
    SCmpGtI32 = "s_cmp_gt_i32", Sopc, 0x02, SC_32;
    SCmpGeI32 = "s_cmp_ge_i32", Sopc, 0x03, SC_32;
    SCmpLtI32 = "s_cmp_lt_i32", Sopc, 0x04, SC_32;
    SCmpLeI32 = "s_cmp_le_i32", Sopc, 0x05, SC_32;
    SCmpEqU32 = "s_cmp_eq_u32", Sopc, 0x06, SC_32;
    SCmpLgU32 = "s_cmp_lg_u32", Sopc, 0x07, SC_32;
    SCmpGtU32 = "s_cmp_gt_u32", Sopc, 0x08, SC_32;
    SCmpGeU32 = "s_cmp_ge_u32", Sopc, 0x09, SC_32;
    SCmpLtU32 = "s_cmp_lt_u32", Sopc, 0x0a, SC_32;
    SCmpLeU32 = "s_cmp_le_u32", Sopc, 0x0b, SC_32;
    SBitcmp0B32 = "s_bitcmp0_b32", Sopc, 0x0c, SC_32;
    SBitcmp1B32 = "s_bitcmp1_b32", Sopc, 0x0d, SC_32;
    SBitcmp0B64 = "s_bitcmp0_b64", Sopc, 0x0e, SC_BIT64;
    SBitcmp1B64 = "s_bitcmp1_b64", Sopc, 0x0f, SC_BIT64;
    SCmpEqU64 = "s_cmp_eq_u64", Sopc, 0x12, SC_64;
    SCmpLgU64 = "s_cmp_lg_u64", Sopc, 0x13, SC_64;
    // PWS: the first two SOPC opcodes GCN3 leaves free.
    Split = "split", Sopc, 0x14, SC_32;
    Merge = "merge", Sopc, 0x15, SC_NONE;
    // SOPK
    SMovkI32 = "s_movk_i32", Sopk, 0x00, SK_DST;
    SCmpkEqI32 = "s_cmpk_eq_i32", Sopk, 0x02, SK_CMP;
    SCmpkLgI32 = "s_cmpk_lg_i32", Sopk, 0x03, SK_CMP;
    SCmpkGtI32 = "s_cmpk_gt_i32", Sopk, 0x04, SK_CMP;
    SCmpkGeI32 = "s_cmpk_ge_i32", Sopk, 0x05, SK_CMP;
    SCmpkLtI32 = "s_cmpk_lt_i32", Sopk, 0x06, SK_CMP;
    SCmpkLeI32 = "s_cmpk_le_i32", Sopk, 0x07, SK_CMP;
    SCmpkEqU32 = "s_cmpk_eq_u32", Sopk, 0x08, SK_CMPU;
    SCmpkLgU32 = "s_cmpk_lg_u32", Sopk, 0x09, SK_CMPU;
    SCmpkGtU32 = "s_cmpk_gt_u32", Sopk, 0x0a, SK_CMPU;
    SCmpkGeU32 = "s_cmpk_ge_u32", Sopk, 0x0b, SK_CMPU;
    SCmpkLtU32 = "s_cmpk_lt_u32", Sopk, 0x0c, SK_CMPU;
    SCmpkLeU32 = "s_cmpk_le_u32", Sopk, 0x0d, SK_CMPU;
    SAddkI32 = "s_addk_i32", Sopk, 0x0e, SK_DST;
    SMulkI32 = "s_mulk_i32", Sopk, 0x0f, SK_DST;
    SSetregB32 = "s_setreg_b32", Sopk, 0x12, SK_SETREG;
    SSetregImm32B32 = "s_setreg_imm32_b32", Sopk, 0x14, SK_SETREG;
    // SOPP
    SNop = "s_nop", Sopp, 0x00, SP_NOP;
    SEndpgm = "s_endpgm", Sopp, 0x01, SP_NONE;
    SBranch = "s_branch", Sopp, 0x02, SP_BR;
    SCbranchScc0 = "s_cbranch_scc0", Sopp, 0x04, SP_BR;
    SCbranchScc1 = "s_cbranch_scc1", Sopp, 0x05, SP_BR;
    SCbranchVccz = "s_cbranch_vccz", Sopp, 0x06, SP_BR;
    SCbranchVccnz = "s_cbranch_vccnz", Sopp, 0x07, SP_BR;
    SCbranchExecz = "s_cbranch_execz", Sopp, 0x08, SP_BR;
    SCbranchExecnz = "s_cbranch_execnz", Sopp, 0x09, SP_BR;
    SBarrier = "s_barrier", Sopp, 0x0a, SP_NONE;
    SWaitcnt = "s_waitcnt", Sopp, 0x0c, SP_WAIT;
    // SMEM
    SLoadDword = "s_load_dword", Smem, 0x00, SM_1;
    SLoadDwordx2 = "s_load_dwordx2", Smem, 0x01, SM_2;
    SLoadDwordx4 = "s_load_dwordx4", Smem, 0x02, SM_4;
    SLoadDwordx8 = "s_load_dwordx8", Smem, 0x03, SM_8;
    SLoadDwordx16 = "s_load_dwordx16", Smem, 0x04, SM_16;
    // VOP1
    VMovB32 = "v_mov_b32", Vop1, 0x01, V1;
    // VOP1 only (llvm-mc has no e64 or SDWA form on gfx8).
    VReadfirstlaneB32 = "v_readfirstlane_b32", Vop1, 0x02, V1_RFL;
    VCvtF32I32 = "v_cvt_f32_i32", Vop1, 0x05, V1, CVT;
    VCvtF32U32 = "v_cvt_f32_u32", Vop1, 0x06, V1, CVT;
    VCvtU32F32 = "v_cvt_u32_f32", Vop1, 0x07, V1, FP;
    VCvtI32F32 = "v_cvt_i32_f32", Vop1, 0x08, V1, FP;
    VCvtRpiI32F32 = "v_cvt_rpi_i32_f32", Vop1, 0x0c, V1, FP_INT;
    VCvtFlrI32F32 = "v_cvt_flr_i32_f32", Vop1, 0x0d, V1, FP_INT;
    VCvtF32Ubyte0 = "v_cvt_f32_ubyte0", Vop1, 0x11, V1, CVT;
    VCvtF32Ubyte1 = "v_cvt_f32_ubyte1", Vop1, 0x12, V1, CVT;
    VCvtF32Ubyte2 = "v_cvt_f32_ubyte2", Vop1, 0x13, V1, CVT;
    VCvtF32Ubyte3 = "v_cvt_f32_ubyte3", Vop1, 0x14, V1, CVT;
    VFractF32 = "v_fract_f32", Vop1, 0x1b, V1, FP;
    VTruncF32 = "v_trunc_f32", Vop1, 0x1c, V1, FP;
    VCeilF32 = "v_ceil_f32", Vop1, 0x1d, V1, FP;
    VRndneF32 = "v_rndne_f32", Vop1, 0x1e, V1, FP;
    VFloorF32 = "v_floor_f32", Vop1, 0x1f, V1, FP;
    VExpF32 = "v_exp_f32", Vop1, 0x20, V1, FP;
    VLogF32 = "v_log_f32", Vop1, 0x21, V1, FP;
    VRcpF32 = "v_rcp_f32", Vop1, 0x22, V1, FP;
    VRcpIflagF32 = "v_rcp_iflag_f32", Vop1, 0x23, V1, FP;
    VRsqF32 = "v_rsq_f32", Vop1, 0x24, V1, FP;
    VSqrtF32 = "v_sqrt_f32", Vop1, 0x27, V1, FP;
    VSinF32 = "v_sin_f32", Vop1, 0x29, V1, FP;
    VCosF32 = "v_cos_f32", Vop1, 0x2a, V1, FP;
    VNotB32 = "v_not_b32", Vop1, 0x2b, V1;
    VBfrevB32 = "v_bfrev_b32", Vop1, 0x2c, V1;
    VFfbhU32 = "v_ffbh_u32", Vop1, 0x2d, V1;
    VFfblB32 = "v_ffbl_b32", Vop1, 0x2e, V1;
    VFfbhI32 = "v_ffbh_i32", Vop1, 0x2f, V1;
    VFrexpExpI32F32 = "v_frexp_exp_i32_f32", Vop1, 0x33, V1, FP_INT;
    VFrexpMantF32 = "v_frexp_mant_f32", Vop1, 0x34, V1, FP;
    // VOP2
    VCndmaskB32 = "v_cndmask_b32", Vop2, 0x00, V2_CND, SEL;
    VAddF32 = "v_add_f32", Vop2, 0x01, V2, FP;
    VSubF32 = "v_sub_f32", Vop2, 0x02, V2, FP;
    VSubrevF32 = "v_subrev_f32", Vop2, 0x03, V2, FP;
    VMulF32 = "v_mul_f32", Vop2, 0x05, V2, FP;
    VMulI32I24 = "v_mul_i32_i24", Vop2, 0x06, V2, CLAMP;
    VMulHiI32I24 = "v_mul_hi_i32_i24", Vop2, 0x07, V2;
    VMulU32U24 = "v_mul_u32_u24", Vop2, 0x08, V2;
    VMulHiU32U24 = "v_mul_hi_u32_u24", Vop2, 0x09, V2;
    VMinF32 = "v_min_f32", Vop2, 0x0a, V2, FP;
    VMaxF32 = "v_max_f32", Vop2, 0x0b, V2, FP;
    VMinI32 = "v_min_i32", Vop2, 0x0c, V2;
    VMaxI32 = "v_max_i32", Vop2, 0x0d, V2;
    VMinU32 = "v_min_u32", Vop2, 0x0e, V2;
    VMaxU32 = "v_max_u32", Vop2, 0x0f, V2;
    VLshrrevB32 = "v_lshrrev_b32", Vop2, 0x10, V2;
    VAshrrevI32 = "v_ashrrev_i32", Vop2, 0x11, V2;
    VLshlrevB32 = "v_lshlrev_b32", Vop2, 0x12, V2;
    VAndB32 = "v_and_b32", Vop2, 0x13, V2;
    VOrB32 = "v_or_b32", Vop2, 0x14, V2;
    VXorB32 = "v_xor_b32", Vop2, 0x15, V2;
    // D = S0 * S1 + D: the destination is also the addend.
    VMacF32 = "v_mac_f32", Vop2, 0x16, V2, FP;
    // D = S0 * K + S1 and D = S0 * S1 + K: K is the literal dword, written between or after
    // the sources; VOP2 only (no e64 form).
    VMadmkF32 = "v_madmk_f32", Vop2, 0x17, V2_K;
    VMadakF32 = "v_madak_f32", Vop2, 0x18, V2_K;
    VAddU32 = "v_add_u32", Vop2, 0x19, V2_CO, CLAMP;
    VSubU32 = "v_sub_u32", Vop2, 0x1a, V2_CO, CLAMP;
    VSubrevU32 = "v_subrev_u32", Vop2, 0x1b, V2_CO, CLAMP;
    VAddcU32 = "v_addc_u32", Vop2, 0x1c, V2_CIO, CLAMP;
    VSubbU32 = "v_subb_u32", Vop2, 0x1d, V2_CIO, CLAMP;
    VSubbrevU32 = "v_subbrev_u32", Vop2, 0x1e, V2_CIO, CLAMP;
    // 16-bit integer VOP2: the low halves of the sources; the result's high half is zero on
    // gfx8 (LLVM's `zeroesHigh16BitsOfDest`). The shifts take the amount's low 4 bits.
    VAddU16 = "v_add_u16", Vop2, 0x26, V2, CLAMP;
    VSubU16 = "v_sub_u16", Vop2, 0x27, V2, CLAMP;
    VSubrevU16 = "v_subrev_u16", Vop2, 0x28, V2, CLAMP;
    VMulLoU16 = "v_mul_lo_u16", Vop2, 0x29, V2;
    VLshlrevB16 = "v_lshlrev_b16", Vop2, 0x2a, V2;
    VLshrrevB16 = "v_lshrrev_b16", Vop2, 0x2b, V2;
    VAshrrevI16 = "v_ashrrev_i16", Vop2, 0x2c, V2;
    VMaxU16 = "v_max_u16", Vop2, 0x2f, V2;
    VMaxI16 = "v_max_i16", Vop2, 0x30, V2;
    VMinU16 = "v_min_u16", Vop2, 0x31, V2;
    VMinI16 = "v_min_i16", Vop2, 0x32, V2;
    // VOP3 only
    VMadF32 = "v_mad_f32", Vop3, 0x1c1, V3_3, FP;
    VMadI32I24 = "v_mad_i32_i24", Vop3, 0x1c2, V3_3, CLAMP;
    VMadU32U24 = "v_mad_u32_u24", Vop3, 0x1c3, V3_3, CLAMP;
    VBfeU32 = "v_bfe_u32", Vop3, 0x1c8, V3_3;
    VBfeI32 = "v_bfe_i32", Vop3, 0x1c9, V3_3;
    VBfiB32 = "v_bfi_b32", Vop3, 0x1ca, V3_3;
    VFmaF32 = "v_fma_f32", Vop3, 0x1cb, V3_3, FP;
    VAlignbitB32 = "v_alignbit_b32", Vop3, 0x1ce, V3_3;
    VAlignbyteB32 = "v_alignbyte_b32", Vop3, 0x1cf, V3_3;
    VMin3F32 = "v_min3_f32", Vop3, 0x1d0, V3_3, FP;
    VMin3I32 = "v_min3_i32", Vop3, 0x1d1, V3_3;
    VMin3U32 = "v_min3_u32", Vop3, 0x1d2, V3_3;
    VMax3F32 = "v_max3_f32", Vop3, 0x1d3, V3_3, FP;
    VMax3I32 = "v_max3_i32", Vop3, 0x1d4, V3_3;
    VMax3U32 = "v_max3_u32", Vop3, 0x1d5, V3_3;
    VMed3F32 = "v_med3_f32", Vop3, 0x1d6, V3_3, FP;
    VMed3I32 = "v_med3_i32", Vop3, 0x1d7, V3_3;
    VMed3U32 = "v_med3_u32", Vop3, 0x1d8, V3_3;
    VDivFixupF32 = "v_div_fixup_f32", Vop3, 0x1de, V3_3, FP;
    // VOP3b: the per-lane scale flag goes to an SGPR pair (VCC for clang's sequence).
    VDivScaleF32 = "v_div_scale_f32", Vop3, 0x1e0, V3_SCALE, FP;
    // Reads VCC implicitly (not written in the text, as llvm-mc prints it).
    VDivFmasF32 = "v_div_fmas_f32", Vop3, 0x1e2, V3_3, FP;
    VMadU64U32 = "v_mad_u64_u32", Vop3, 0x1e8, V3_MAD64, CLAMP;
    VMadI64I32 = "v_mad_i64_i32", Vop3, 0x1e9, V3_MAD64, CLAMP;
    VMadU16 = "v_mad_u16", Vop3, 0x1eb, V3_3, CLAMP;
    VPermB32 = "v_perm_b32", Vop3, 0x1ed, V3_3;
    VMadI16 = "v_mad_i16", Vop3, 0x1ec, V3_3, CLAMP;
    VMulLoU32 = "v_mul_lo_u32", Vop3, 0x285, V3_2;
    VMulHiU32 = "v_mul_hi_u32", Vop3, 0x286, V3_2;
    VMulHiI32 = "v_mul_hi_i32", Vop3, 0x287, V3_2;
    VLdexpF32 = "v_ldexp_f32", Vop3, 0x288, V3_2, FP;
    // Lane access: read one lane into a scalar register, write one lane, whatever EXEC is.
    VReadlaneB32 = "v_readlane_b32", Vop3, 0x289, V3_RL;
    VWritelaneB32 = "v_writelane_b32", Vop3, 0x28a, V3_WL;
    VBcntU32B32 = "v_bcnt_u32_b32", Vop3, 0x28b, V3_2;
    VLshlrevB64 = "v_lshlrev_b64", Vop3, 0x28f, V3_SH64;
    VLshrrevB64 = "v_lshrrev_b64", Vop3, 0x290, V3_SH64;
    VAshrrevI64 = "v_ashrrev_i64", Vop3, 0x291, V3_SH64;
    VBfmB32 = "v_bfm_b32", Vop3, 0x293, V3_2;
    // VOPC f32: 0x10 class, 0x40+ the sixteen IEEE predicates; v_cmpx_* also write EXEC.
    VCmpClassF32 = "v_cmp_class_f32", Vopc, 0x10, VC, MOD_INPUT;
    VCmpxClassF32 = "v_cmpx_class_f32", Vopc, 0x11, VC, MOD_INPUT;
    VCmpFF32 = "v_cmp_f_f32", Vopc, 0x40, VC, FP_INT;
    VCmpLtF32 = "v_cmp_lt_f32", Vopc, 0x41, VC, FP_INT;
    VCmpEqF32 = "v_cmp_eq_f32", Vopc, 0x42, VC, FP_INT;
    VCmpLeF32 = "v_cmp_le_f32", Vopc, 0x43, VC, FP_INT;
    VCmpGtF32 = "v_cmp_gt_f32", Vopc, 0x44, VC, FP_INT;
    VCmpLgF32 = "v_cmp_lg_f32", Vopc, 0x45, VC, FP_INT;
    VCmpGeF32 = "v_cmp_ge_f32", Vopc, 0x46, VC, FP_INT;
    VCmpOF32 = "v_cmp_o_f32", Vopc, 0x47, VC, FP_INT;
    VCmpUF32 = "v_cmp_u_f32", Vopc, 0x48, VC, FP_INT;
    VCmpNgeF32 = "v_cmp_nge_f32", Vopc, 0x49, VC, FP_INT;
    VCmpNlgF32 = "v_cmp_nlg_f32", Vopc, 0x4a, VC, FP_INT;
    VCmpNgtF32 = "v_cmp_ngt_f32", Vopc, 0x4b, VC, FP_INT;
    VCmpNleF32 = "v_cmp_nle_f32", Vopc, 0x4c, VC, FP_INT;
    VCmpNeqF32 = "v_cmp_neq_f32", Vopc, 0x4d, VC, FP_INT;
    VCmpNltF32 = "v_cmp_nlt_f32", Vopc, 0x4e, VC, FP_INT;
    VCmpTruF32 = "v_cmp_tru_f32", Vopc, 0x4f, VC, FP_INT;
    VCmpxFF32 = "v_cmpx_f_f32", Vopc, 0x50, VC, FP_INT;
    VCmpxLtF32 = "v_cmpx_lt_f32", Vopc, 0x51, VC, FP_INT;
    VCmpxEqF32 = "v_cmpx_eq_f32", Vopc, 0x52, VC, FP_INT;
    VCmpxLeF32 = "v_cmpx_le_f32", Vopc, 0x53, VC, FP_INT;
    VCmpxGtF32 = "v_cmpx_gt_f32", Vopc, 0x54, VC, FP_INT;
    VCmpxLgF32 = "v_cmpx_lg_f32", Vopc, 0x55, VC, FP_INT;
    VCmpxGeF32 = "v_cmpx_ge_f32", Vopc, 0x56, VC, FP_INT;
    VCmpxOF32 = "v_cmpx_o_f32", Vopc, 0x57, VC, FP_INT;
    VCmpxUF32 = "v_cmpx_u_f32", Vopc, 0x58, VC, FP_INT;
    VCmpxNgeF32 = "v_cmpx_nge_f32", Vopc, 0x59, VC, FP_INT;
    VCmpxNlgF32 = "v_cmpx_nlg_f32", Vopc, 0x5a, VC, FP_INT;
    VCmpxNgtF32 = "v_cmpx_ngt_f32", Vopc, 0x5b, VC, FP_INT;
    VCmpxNleF32 = "v_cmpx_nle_f32", Vopc, 0x5c, VC, FP_INT;
    VCmpxNeqF32 = "v_cmpx_neq_f32", Vopc, 0x5d, VC, FP_INT;
    VCmpxNltF32 = "v_cmpx_nlt_f32", Vopc, 0x5e, VC, FP_INT;
    VCmpxTruF32 = "v_cmpx_tru_f32", Vopc, 0x5f, VC, FP_INT;
    // VOPC: 0xC0+ signed, 0xC8+ unsigned; v_cmpx_* (+0x10) also write EXEC.
    VCmpLtI32 = "v_cmp_lt_i32", Vopc, 0xc1, VC;
    VCmpEqI32 = "v_cmp_eq_i32", Vopc, 0xc2, VC;
    VCmpLeI32 = "v_cmp_le_i32", Vopc, 0xc3, VC;
    VCmpGtI32 = "v_cmp_gt_i32", Vopc, 0xc4, VC;
    VCmpNeI32 = "v_cmp_ne_i32", Vopc, 0xc5, VC;
    VCmpGeI32 = "v_cmp_ge_i32", Vopc, 0xc6, VC;
    VCmpLtU32 = "v_cmp_lt_u32", Vopc, 0xc9, VC;
    VCmpEqU32 = "v_cmp_eq_u32", Vopc, 0xca, VC;
    VCmpLeU32 = "v_cmp_le_u32", Vopc, 0xcb, VC;
    VCmpGtU32 = "v_cmp_gt_u32", Vopc, 0xcc, VC;
    VCmpNeU32 = "v_cmp_ne_u32", Vopc, 0xcd, VC;
    VCmpGeU32 = "v_cmp_ge_u32", Vopc, 0xce, VC;
    VCmpxLtI32 = "v_cmpx_lt_i32", Vopc, 0xd1, VC;
    VCmpxEqI32 = "v_cmpx_eq_i32", Vopc, 0xd2, VC;
    VCmpxLeI32 = "v_cmpx_le_i32", Vopc, 0xd3, VC;
    VCmpxGtI32 = "v_cmpx_gt_i32", Vopc, 0xd4, VC;
    VCmpxNeI32 = "v_cmpx_ne_i32", Vopc, 0xd5, VC;
    VCmpxGeI32 = "v_cmpx_ge_i32", Vopc, 0xd6, VC;
    VCmpxLtU32 = "v_cmpx_lt_u32", Vopc, 0xd9, VC;
    VCmpxEqU32 = "v_cmpx_eq_u32", Vopc, 0xda, VC;
    VCmpxLeU32 = "v_cmpx_le_u32", Vopc, 0xdb, VC;
    VCmpxGtU32 = "v_cmpx_gt_u32", Vopc, 0xdc, VC;
    VCmpxNeU32 = "v_cmpx_ne_u32", Vopc, 0xdd, VC;
    VCmpxGeU32 = "v_cmpx_ge_u32", Vopc, 0xde, VC;
    // VOPC 16-bit: 0xA0+ signed, 0xA8+ unsigned, v_cmpx_* at +0x10; the low halves compared.
    VCmpLtI16 = "v_cmp_lt_i16", Vopc, 0xa1, VC;
    VCmpEqI16 = "v_cmp_eq_i16", Vopc, 0xa2, VC;
    VCmpLeI16 = "v_cmp_le_i16", Vopc, 0xa3, VC;
    VCmpGtI16 = "v_cmp_gt_i16", Vopc, 0xa4, VC;
    VCmpNeI16 = "v_cmp_ne_i16", Vopc, 0xa5, VC;
    VCmpGeI16 = "v_cmp_ge_i16", Vopc, 0xa6, VC;
    VCmpLtU16 = "v_cmp_lt_u16", Vopc, 0xa9, VC;
    VCmpEqU16 = "v_cmp_eq_u16", Vopc, 0xaa, VC;
    VCmpLeU16 = "v_cmp_le_u16", Vopc, 0xab, VC;
    VCmpGtU16 = "v_cmp_gt_u16", Vopc, 0xac, VC;
    VCmpNeU16 = "v_cmp_ne_u16", Vopc, 0xad, VC;
    VCmpGeU16 = "v_cmp_ge_u16", Vopc, 0xae, VC;
    VCmpxLtI16 = "v_cmpx_lt_i16", Vopc, 0xb1, VC;
    VCmpxEqI16 = "v_cmpx_eq_i16", Vopc, 0xb2, VC;
    VCmpxLeI16 = "v_cmpx_le_i16", Vopc, 0xb3, VC;
    VCmpxGtI16 = "v_cmpx_gt_i16", Vopc, 0xb4, VC;
    VCmpxNeI16 = "v_cmpx_ne_i16", Vopc, 0xb5, VC;
    VCmpxGeI16 = "v_cmpx_ge_i16", Vopc, 0xb6, VC;
    VCmpxLtU16 = "v_cmpx_lt_u16", Vopc, 0xb9, VC;
    VCmpxEqU16 = "v_cmpx_eq_u16", Vopc, 0xba, VC;
    VCmpxLeU16 = "v_cmpx_le_u16", Vopc, 0xbb, VC;
    VCmpxGtU16 = "v_cmpx_gt_u16", Vopc, 0xbc, VC;
    VCmpxNeU16 = "v_cmpx_ne_u16", Vopc, 0xbd, VC;
    VCmpxGeU16 = "v_cmpx_ge_u16", Vopc, 0xbe, VC;
    VCmpLtI64 = "v_cmp_lt_i64", Vopc, 0xe1, VC64;
    VCmpEqI64 = "v_cmp_eq_i64", Vopc, 0xe2, VC64;
    VCmpLeI64 = "v_cmp_le_i64", Vopc, 0xe3, VC64;
    VCmpGtI64 = "v_cmp_gt_i64", Vopc, 0xe4, VC64;
    VCmpNeI64 = "v_cmp_ne_i64", Vopc, 0xe5, VC64;
    VCmpGeI64 = "v_cmp_ge_i64", Vopc, 0xe6, VC64;
    VCmpLtU64 = "v_cmp_lt_u64", Vopc, 0xe9, VC64;
    VCmpEqU64 = "v_cmp_eq_u64", Vopc, 0xea, VC64;
    VCmpLeU64 = "v_cmp_le_u64", Vopc, 0xeb, VC64;
    VCmpGtU64 = "v_cmp_gt_u64", Vopc, 0xec, VC64;
    VCmpNeU64 = "v_cmp_ne_u64", Vopc, 0xed, VC64;
    VCmpGeU64 = "v_cmp_ge_u64", Vopc, 0xee, VC64;
    VCmpxLtI64 = "v_cmpx_lt_i64", Vopc, 0xf1, VC64;
    VCmpxEqI64 = "v_cmpx_eq_i64", Vopc, 0xf2, VC64;
    VCmpxLeI64 = "v_cmpx_le_i64", Vopc, 0xf3, VC64;
    VCmpxGtI64 = "v_cmpx_gt_i64", Vopc, 0xf4, VC64;
    VCmpxNeI64 = "v_cmpx_ne_i64", Vopc, 0xf5, VC64;
    VCmpxGeI64 = "v_cmpx_ge_i64", Vopc, 0xf6, VC64;
    VCmpxLtU64 = "v_cmpx_lt_u64", Vopc, 0xf9, VC64;
    VCmpxEqU64 = "v_cmpx_eq_u64", Vopc, 0xfa, VC64;
    VCmpxLeU64 = "v_cmpx_le_u64", Vopc, 0xfb, VC64;
    VCmpxGtU64 = "v_cmpx_gt_u64", Vopc, 0xfc, VC64;
    VCmpxNeU64 = "v_cmpx_ne_u64", Vopc, 0xfd, VC64;
    VCmpxGeU64 = "v_cmpx_ge_u64", Vopc, 0xfe, VC64;
    // FLAT
    FlatLoadUbyte = "flat_load_ubyte", Flat, 0x10, FL_LD1;
    FlatLoadSbyte = "flat_load_sbyte", Flat, 0x11, FL_LD1;
    FlatLoadUshort = "flat_load_ushort", Flat, 0x12, FL_LD1;
    FlatLoadSshort = "flat_load_sshort", Flat, 0x13, FL_LD1;
    FlatLoadDword = "flat_load_dword", Flat, 0x14, FL_LD1;
    FlatLoadDwordx2 = "flat_load_dwordx2", Flat, 0x15, FL_LD2;
    FlatLoadDwordx3 = "flat_load_dwordx3", Flat, 0x16, FL_LD3;
    FlatLoadDwordx4 = "flat_load_dwordx4", Flat, 0x17, FL_LD4;
    FlatStoreByte = "flat_store_byte", Flat, 0x18, FL_ST1;
    FlatStoreShort = "flat_store_short", Flat, 0x1a, FL_ST1;
    FlatStoreDword = "flat_store_dword", Flat, 0x1c, FL_ST1;
    FlatStoreDwordx2 = "flat_store_dwordx2", Flat, 0x1d, FL_ST2;
    FlatStoreDwordx3 = "flat_store_dwordx3", Flat, 0x1e, FL_ST3;
    FlatStoreDwordx4 = "flat_store_dwordx4", Flat, 0x1f, FL_ST4;
    // FLAT atomics (32-bit): with `glc` they return the pre-op value in VDST.
    FlatAtomicSwap = "flat_atomic_swap", Flat, 0x40, FL_AT;
    FlatAtomicCmpswap = "flat_atomic_cmpswap", Flat, 0x41, FL_ATC;
    FlatAtomicAdd = "flat_atomic_add", Flat, 0x42, FL_AT;
    FlatAtomicSub = "flat_atomic_sub", Flat, 0x43, FL_AT;
    FlatAtomicSmin = "flat_atomic_smin", Flat, 0x44, FL_AT;
    FlatAtomicUmin = "flat_atomic_umin", Flat, 0x45, FL_AT;
    FlatAtomicSmax = "flat_atomic_smax", Flat, 0x46, FL_AT;
    FlatAtomicUmax = "flat_atomic_umax", Flat, 0x47, FL_AT;
    FlatAtomicAnd = "flat_atomic_and", Flat, 0x48, FL_AT;
    FlatAtomicOr = "flat_atomic_or", Flat, 0x49, FL_AT;
    FlatAtomicXor = "flat_atomic_xor", Flat, 0x4a, FL_AT;
    FlatAtomicInc = "flat_atomic_inc", Flat, 0x4b, FL_AT;
    FlatAtomicDec = "flat_atomic_dec", Flat, 0x4c, FL_AT;
    // MUBUF (untyped buffer loads and stores: clang's private memory)
    BufferLoadUbyte = "buffer_load_ubyte", Mubuf, 0x10, MB_LD1;
    BufferLoadSbyte = "buffer_load_sbyte", Mubuf, 0x11, MB_LD1;
    BufferLoadUshort = "buffer_load_ushort", Mubuf, 0x12, MB_LD1;
    BufferLoadSshort = "buffer_load_sshort", Mubuf, 0x13, MB_LD1;
    BufferLoadDword = "buffer_load_dword", Mubuf, 0x14, MB_LD1;
    BufferLoadDwordx2 = "buffer_load_dwordx2", Mubuf, 0x15, MB_LD2;
    BufferLoadDwordx3 = "buffer_load_dwordx3", Mubuf, 0x16, MB_LD3;
    BufferLoadDwordx4 = "buffer_load_dwordx4", Mubuf, 0x17, MB_LD4;
    BufferStoreByte = "buffer_store_byte", Mubuf, 0x18, MB_ST1;
    BufferStoreShort = "buffer_store_short", Mubuf, 0x1a, MB_ST1;
    BufferStoreDword = "buffer_store_dword", Mubuf, 0x1c, MB_ST1;
    BufferStoreDwordx2 = "buffer_store_dwordx2", Mubuf, 0x1d, MB_ST2;
    BufferStoreDwordx3 = "buffer_store_dwordx3", Mubuf, 0x1e, MB_ST3;
    BufferStoreDwordx4 = "buffer_store_dwordx4", Mubuf, 0x1f, MB_ST4;
    // DS (LDS): atomics without return
    DsAddU32 = "ds_add_u32", Ds, 0x00, DS_WR1;
    DsSubU32 = "ds_sub_u32", Ds, 0x01, DS_WR1;
    DsRsubU32 = "ds_rsub_u32", Ds, 0x02, DS_WR1;
    DsIncU32 = "ds_inc_u32", Ds, 0x03, DS_WR1;
    DsDecU32 = "ds_dec_u32", Ds, 0x04, DS_WR1;
    DsMinI32 = "ds_min_i32", Ds, 0x05, DS_WR1;
    DsMaxI32 = "ds_max_i32", Ds, 0x06, DS_WR1;
    DsMinU32 = "ds_min_u32", Ds, 0x07, DS_WR1;
    DsMaxU32 = "ds_max_u32", Ds, 0x08, DS_WR1;
    DsAndB32 = "ds_and_b32", Ds, 0x09, DS_WR1;
    DsOrB32 = "ds_or_b32", Ds, 0x0a, DS_WR1;
    DsXorB32 = "ds_xor_b32", Ds, 0x0b, DS_WR1;
    DsMskorB32 = "ds_mskor_b32", Ds, 0x0c, DS_AT3;
    // DS stores
    DsWriteB32 = "ds_write_b32", Ds, 0x0d, DS_WR1;
    DsWrite2B32 = "ds_write2_b32", Ds, 0x0e, DS_WR2X1;
    DsWrite2st64B32 = "ds_write2st64_b32", Ds, 0x0f, DS_WR2X1;
    DsCmpstB32 = "ds_cmpst_b32", Ds, 0x10, DS_AT3;
    DsWriteB8 = "ds_write_b8", Ds, 0x1e, DS_WR1;
    DsWriteB16 = "ds_write_b16", Ds, 0x1f, DS_WR1;
    // DS atomics returning the pre-op value
    DsAddRtnU32 = "ds_add_rtn_u32", Ds, 0x20, DS_RTN;
    DsSubRtnU32 = "ds_sub_rtn_u32", Ds, 0x21, DS_RTN;
    DsRsubRtnU32 = "ds_rsub_rtn_u32", Ds, 0x22, DS_RTN;
    DsIncRtnU32 = "ds_inc_rtn_u32", Ds, 0x23, DS_RTN;
    DsDecRtnU32 = "ds_dec_rtn_u32", Ds, 0x24, DS_RTN;
    DsMinRtnI32 = "ds_min_rtn_i32", Ds, 0x25, DS_RTN;
    DsMaxRtnI32 = "ds_max_rtn_i32", Ds, 0x26, DS_RTN;
    DsMinRtnU32 = "ds_min_rtn_u32", Ds, 0x27, DS_RTN;
    DsMaxRtnU32 = "ds_max_rtn_u32", Ds, 0x28, DS_RTN;
    DsAndRtnB32 = "ds_and_rtn_b32", Ds, 0x29, DS_RTN;
    DsOrRtnB32 = "ds_or_rtn_b32", Ds, 0x2a, DS_RTN;
    DsXorRtnB32 = "ds_xor_rtn_b32", Ds, 0x2b, DS_RTN;
    DsMskorRtnB32 = "ds_mskor_rtn_b32", Ds, 0x2c, DS_RTN3;
    DsWrxchgRtnB32 = "ds_wrxchg_rtn_b32", Ds, 0x2d, DS_RTN;
    DsCmpstRtnB32 = "ds_cmpst_rtn_b32", Ds, 0x30, DS_RTN3;
    // DS loads
    DsReadB32 = "ds_read_b32", Ds, 0x36, DS_RD1;
    DsRead2B32 = "ds_read2_b32", Ds, 0x37, DS_RD2X1;
    DsRead2st64B32 = "ds_read2st64_b32", Ds, 0x38, DS_RD2X1;
    DsReadI8 = "ds_read_i8", Ds, 0x39, DS_RD1;
    DsReadU8 = "ds_read_u8", Ds, 0x3a, DS_RD1;
    DsReadI16 = "ds_read_i16", Ds, 0x3b, DS_RD1;
    DsReadU16 = "ds_read_u16", Ds, 0x3c, DS_RD1;
    // DS 64-bit and wider
    DsWriteB64 = "ds_write_b64", Ds, 0x4d, DS_WR2;
    DsWrite2B64 = "ds_write2_b64", Ds, 0x4e, DS_WR2X2;
    DsWrite2st64B64 = "ds_write2st64_b64", Ds, 0x4f, DS_WR2X2;
    DsReadB64 = "ds_read_b64", Ds, 0x76, DS_RD2;
    DsRead2B64 = "ds_read2_b64", Ds, 0x77, DS_RD2X2;
    DsRead2st64B64 = "ds_read2st64_b64", Ds, 0x78, DS_RD2X2;
    DsWriteB96 = "ds_write_b96", Ds, 0xde, DS_WR3;
    DsWriteB128 = "ds_write_b128", Ds, 0xdf, DS_WR4;
    DsReadB96 = "ds_read_b96", Ds, 0xfe, DS_RD3;
    DsReadB128 = "ds_read_b128", Ds, 0xff, DS_RD4;
}

impl Opcode {
    /// This opcode's row of `OPCODES`.
    pub fn info(self) -> &'static OpInfo {
        &OPCODES[self as usize]
    }

    /// Mnemonic without encoding suffix.
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Native microcode format (`Format::Vop3` for VOP3-only instructions).
    pub fn format(self) -> Format {
        self.info().format
    }

    /// Opcode number in the native format.
    pub fn code(self) -> u16 {
        self.info().code
    }

    /// Opcode number in the VOP3 encoding, for the vector ALU instructions that have one.
    pub fn vop3_code(self) -> Option<u16> {
        let info = self.info();
        if info.format != Format::Vop3 && !self.has_vop3_form() {
            return None;
        }
        info.format.vop3_base().map(|base| base + info.code)
    }

    /// True for the VOP1/VOP2/VOPC instructions that also have a VOP3 (`_e64`) encoding (all
    /// but `v_madmk_f32`, `v_madak_f32` and `v_readfirstlane_b32`, as llvm-mc's gfx8 tables).
    pub fn has_vop3_form(self) -> bool {
        self.format().has_vop3_form() && self.literal_k().is_none() && !self.is_lane_access()
    }

    /// The lane-access instructions (`v_readfirstlane_b32`, `v_readlane_b32`,
    /// `v_writelane_b32`): they address one lane of a VGPR whatever EXEC is, and the read
    /// ones write a 32-bit scalar register from the VDST field.
    pub fn is_lane_access(self) -> bool {
        matches!(
            self,
            Opcode::VReadfirstlaneB32 | Opcode::VReadlaneB32 | Opcode::VWritelaneB32
        )
    }

    /// The lane accesses that read a VGPR lane into a scalar register (`v_readfirstlane_b32`,
    /// `v_readlane_b32`), as opposed to `v_writelane_b32`, which writes one.
    pub fn is_lane_read(self) -> bool {
        matches!(self, Opcode::VReadfirstlaneB32 | Opcode::VReadlaneB32)
    }

    /// The 64-bit source is a signed integer (`i64`): a 32-bit literal there is sign-extended.
    /// Every other 64-bit integer source (`b64`, `u64`) zero-extends it (LLVM's
    /// `OPERAND_REG_IMM_I64`/`_U64` split; on gfx8 only SALU and VOPC e32 sources take a
    /// literal).
    pub fn sign_extends_literal64(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            SAshrI64
                | SBfeI64
                | SFlbitI32I64
                | VAshrrevI64
                | VMadI64I32
                | VCmpLtI64
                | VCmpEqI64
                | VCmpLeI64
                | VCmpGtI64
                | VCmpNeI64
                | VCmpGeI64
                | VCmpxLtI64
                | VCmpxEqI64
                | VCmpxLeI64
                | VCmpxGtI64
                | VCmpxNeI64
                | VCmpxGeI64
        )
    }

    /// The instruction reads its destination register too: `s_addk_i32` and `s_mulk_i32`
    /// (D = D op K), and `s_bitset0_b32` / `s_bitset1_b32` (D with bit S0[4:0] cleared or
    /// set; clang's `fabs` and `-fabs` of a uniform float).
    pub fn reads_dst(self) -> bool {
        matches!(
            self,
            Opcode::SAddkI32 | Opcode::SMulkI32 | Opcode::SBitset0B32 | Opcode::SBitset1B32
        )
    }

    /// `s_setreg_imm32_b32`: the value written to the hardware register is a literal dword
    /// (`s_setreg_b32` takes it from an SGPR).
    pub fn setreg_from_literal(self) -> bool {
        self == Opcode::SSetregImm32B32
    }

    /// The source that is the instruction's constant K, always a literal dword:
    /// `v_madmk_f32 vD, s0, K, v1` (1) and `v_madak_f32 vD, s0, v1, K` (2).
    pub fn literal_k(self) -> Option<usize> {
        match self {
            Opcode::VMadmkF32 => Some(1),
            Opcode::VMadakF32 => Some(2),
            _ => None,
        }
    }

    /// True for the VOP1/VOP2/VOPC instructions with an SDWA (`_sdwa`) encoding on gfx8: those
    /// whose value operands are all 32-bit, except `v_madmk_f32`/`v_madak_f32` (their K
    /// takes the literal slot), as llvm-mc's VI tables have it.
    pub fn has_sdwa_form(self) -> bool {
        let sig = self.signature();
        self.has_vop3_form()
            && sig.dst.map_or(true, |w| w == Width::B32)
            && sig.srcs[..sig.srcs.len().min(2)]
                .iter()
                .all(|w| *w == Width::B32)
    }

    /// True if SDWA source `i` is a float value, which takes the `neg`/`abs` modifiers; the
    /// integer sources take `sext` instead. `v_cndmask_b32` selects bits (it is integer in
    /// SDWA, unlike its VOP3 form), and the class mask of `v_cmp_class_f32` is an integer.
    pub fn sdwa_float_src(self, i: usize) -> bool {
        self.info().mods & MOD_INPUT != 0
            && self != Opcode::VCndmaskB32
            && !(i == 1 && matches!(self, Opcode::VCmpClassF32 | Opcode::VCmpxClassF32))
    }

    /// Operand widths.
    pub fn signature(self) -> Signature {
        self.info().signature
    }

    /// Looks a mnemonic up (without `_e32`/`_e64` suffix).
    pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|i| i.mnemonic == mnemonic)
            .map(|i| i.opcode)
    }

    /// Looks up the opcode with number `code` in `format` (VOP3 numbers for `Format::Vop3`
    /// include the promoted VOP1/VOP2/VOPC opcodes).
    pub fn from_code(format: Format, code: u16) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|i| {
                if format == Format::Vop3 {
                    i.opcode.vop3_code() == Some(code)
                } else {
                    i.format == format && i.code == code
                }
            })
            .map(|i| i.opcode)
    }

    /// True for the single-precision floating-point instructions: GCN names every one of them
    /// with an `f32` type (`v_mul_f32`, `v_cvt_i32_f32`, `v_cmp_lt_f32`, `v_frexp_exp_i32_f32`)
    /// and no integer instruction carries one.
    pub fn is_f32(self) -> bool {
        self.mnemonic().contains("_f32")
    }

    /// True for the 16-bit integer vector instructions (`v_add_u16`, `v_mad_i16`,
    /// `v_cmp_lt_u16`, ...): they read the low halves of their sources and, on gfx8, write a
    /// VGPR result zero-extended (LLVM's `zeroesHigh16BitsOfDest`); the shifts take the
    /// amount's low 4 bits.
    pub fn is_int16(self) -> bool {
        matches!(
            self.format(),
            Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
        ) && ["_u16", "_i16", "_b16"]
            .iter()
            .any(|t| self.mnemonic().ends_with(t))
    }

    /// True for the 16-bit integer instructions that read their sources as signed halves
    /// (`v_max_i16`, `v_ashrrev_i16`, `v_cmp_lt_i16`, ...).
    pub fn is_signed16(self) -> bool {
        self.is_int16() && self.mnemonic().ends_with("_i16")
    }

    /// True for the 16-bit integer instructions whose result is their sources' low halves
    /// combined modulo 2^16 (add, subtracts, multiply, shift left): how a source is extended
    /// above bit 15 does not change it.
    pub fn is_modular16(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            VAddU16 | VSubU16 | VSubrevU16 | VMulLoU16 | VLshlrevB16
        )
    }

    /// True for `v_cmpx_*`, which write EXEC as well as their mask destination.
    pub fn is_cmpx(self) -> bool {
        self.format() == Format::Vopc && self.mnemonic().starts_with("v_cmpx_")
    }

    /// True for the `s_*_saveexec_b64` family (D = EXEC, then EXEC = f(S0, EXEC)).
    pub fn is_saveexec(self) -> bool {
        self.format() == Format::Sop1 && (0x20..=0x27).contains(&self.code())
    }

    /// The number of bytes a FLAT or MUBUF instruction moves per lane (1, 2, 4, 8, 12 or 16).
    pub fn flat_bytes(self) -> Option<u32> {
        use Opcode::*;
        Some(match self {
            FlatLoadUbyte | FlatLoadSbyte | FlatStoreByte => 1,
            FlatLoadUshort | FlatLoadSshort | FlatStoreShort => 2,
            FlatLoadDword | FlatStoreDword => 4,
            FlatLoadDwordx2 | FlatStoreDwordx2 => 8,
            FlatLoadDwordx3 | FlatStoreDwordx3 => 12,
            FlatLoadDwordx4 | FlatStoreDwordx4 => 16,
            BufferLoadUbyte | BufferLoadSbyte | BufferStoreByte => 1,
            BufferLoadUshort | BufferLoadSshort | BufferStoreShort => 2,
            BufferLoadDword | BufferStoreDword => 4,
            BufferLoadDwordx2 | BufferStoreDwordx2 => 8,
            BufferLoadDwordx3 | BufferStoreDwordx3 => 12,
            BufferLoadDwordx4 | BufferStoreDwordx4 => 16,
            _ if self.is_flat_atomic() => 4,
            _ => return None,
        })
    }

    /// True for the FLAT atomics (`flat_atomic_*`): read-modify-write at the memory port,
    /// returning the pre-op value only with `glc`.
    pub fn is_flat_atomic(self) -> bool {
        self.format() == Format::Flat && self.code() >= 0x40
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}
