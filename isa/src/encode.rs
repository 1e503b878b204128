//! Instruction -> machine words, bit-exact with llvm-mc's gfx8 encodings.

use crate::check::{check, check_decoded};
use crate::error::OperandError;
use crate::inst::{Instruction, Operand, SDWA_CODE};
use crate::opcode::Format;

/// Encodes `inst` as 1..=3 little-endian dwords (a literal follows the instruction).
pub fn encode(inst: &Instruction) -> Result<Vec<u32>, OperandError> {
    check(inst)?;
    Ok(encode_checked(inst))
}

/// [`encode`] under [`check_decoded`]'s rules: what a decoded instruction's words must be.
pub(crate) fn encode_decoded(inst: &Instruction) -> Result<Vec<u32>, OperandError> {
    check_decoded(inst)?;
    Ok(encode_checked(inst))
}

fn code(op: Option<Operand>) -> u32 {
    op.map_or(0, |o| o.code() as u32)
}

/// Scalar-field code (SDST, SSRC, SBASE): the 8-bit form of the operand code.
fn scode(op: Option<Operand>) -> u32 {
    code(op) & 0xff
}

/// Vector register number of a VGPR operand (VDST, VSRC1, FLAT fields).
fn vreg(op: Option<Operand>) -> u32 {
    match op {
        Some(Operand::Vgpr(n)) => n as u32,
        _ => 0,
    }
}

fn encode_checked(inst: &Instruction) -> Vec<u32> {
    let op = inst.opcode.code() as u32;
    let [s0, s1, s2, _] = inst.srcs;
    let m = &inst.mods;
    // SDWA moves SRC0 into its second dword and marks the SRC0 field with 0xF9.
    let src0 = if inst.sdwa.is_some() {
        SDWA_CODE as u32
    } else {
        code(s0)
    };
    let mut words = match inst.encoding_format() {
        Format::Sop1 => vec![0xBE80_0000 | scode(inst.dst) << 16 | op << 8 | scode(s0)],
        Format::Sop2 => {
            vec![0x8000_0000 | op << 23 | scode(inst.dst) << 16 | scode(s1) << 8 | scode(s0)]
        }
        Format::Sopk => {
            // s_cmpk_* and s_setreg_b32 keep their register operand in the SDST field;
            // s_setreg_imm32_b32 has none (its value is the literal).
            let reg = if inst.opcode.setreg_from_literal() {
                None
            } else {
                inst.dst.or(s0)
            };
            vec![0xB000_0000 | op << 23 | scode(reg) << 16 | (inst.imm & 0xffff)]
        }
        Format::Sopc => vec![0xBF00_0000 | op << 16 | scode(s1) << 8 | scode(s0)],
        Format::Sopp => vec![0xBF80_0000 | op << 16 | (inst.imm & 0xffff)],
        Format::Smem => {
            let imm = s1.is_none() as u32;
            let offset = match s1 {
                Some(r) => scode(Some(r)),
                None => inst.imm,
            };
            vec![
                0xC000_0000
                    | op << 18
                    | imm << 17
                    | (m.glc as u32) << 16
                    | scode(inst.dst) << 6
                    | scode(s0) >> 1,
                offset,
            ]
        }
        // v_readfirstlane_b32 writes its scalar destination from the VDST field.
        Format::Vop1 if inst.opcode.is_lane_access() => {
            vec![0x7E00_0000 | scode(inst.sdst) << 17 | op << 9 | src0]
        }
        Format::Vop1 => vec![0x7E00_0000 | vreg(inst.dst) << 17 | op << 9 | src0],
        Format::Vop2 => {
            // v_madmk_f32 keeps its VGPR source in VSRC1 and K in the literal.
            let v1 = if inst.opcode.literal_k() == Some(1) {
                s2
            } else {
                s1
            };
            vec![op << 25 | vreg(inst.dst) << 17 | vreg(v1) << 9 | src0]
        }
        Format::Vopc => vec![0x7C00_0000 | op << 17 | vreg(s1) << 9 | src0],
        Format::Vop3 => {
            let vop3_op = inst.opcode.vop3_code().unwrap_or(0) as u32;
            let native = inst.opcode.format();
            // VOP3b: the carry-out takes the ABS field; VOPC e64 and v_readlane_b32: the
            // scalar destination takes VDST.
            let (vdst, field8) = match (native, inst.sdst) {
                (Format::Vopc, sdst) => (scode(sdst), m.abs as u32 & 7),
                (_, sdst) if inst.opcode.is_lane_access() && sdst.is_some() => {
                    (scode(sdst), m.abs as u32 & 7)
                }
                (_, Some(sdst)) => (vreg(inst.dst), scode(Some(sdst))),
                (_, None) => (vreg(inst.dst), m.abs as u32 & 7),
            };
            // A mask source (carry-in, cndmask selector) sits in SRC2.
            vec![
                0xD000_0000 | vop3_op << 16 | (m.clamp as u32) << 15 | field8 << 8 | vdst,
                (m.neg as u32 & 7) << 29
                    | m.omod.bits() << 27
                    | code(s2) << 18
                    | code(s1) << 9
                    | code(s0),
            ]
        }
        Format::Flat => {
            let atomic = inst.opcode.is_flat_atomic();
            let (addr, data) = (
                s0,
                if inst.dst.is_some() && !atomic {
                    None
                } else {
                    s1
                },
            );
            vec![
                0xDC00_0000 | op << 18 | (m.slc as u32) << 17 | (m.glc as u32) << 16,
                vreg(inst.dst) << 24 | vreg(data) << 8 | vreg(addr),
            ]
        }
        Format::Mubuf => {
            let store = inst.dst.is_none();
            let data = if store { inst.src(3) } else { inst.dst };
            vec![
                0xE000_0000
                    | op << 18
                    | (m.slc as u32) << 17
                    | (m.glc as u32) << 14
                    | (inst.src(0).is_some() as u32) << 12
                    | (inst.imm & 0xfff),
                scode(inst.src(2)) << 24
                    | scode(inst.src(1)) >> 2 << 16
                    | vreg(data) << 8
                    | vreg(inst.src(0)),
            ]
        }
        Format::Ds => vec![
            0xD800_0000 | op << 17 | (m.gds as u32) << 16 | (inst.imm & 0xffff),
            vreg(inst.dst) << 24 | vreg(s2) << 16 | vreg(s1) << 8 | vreg(s0),
        ],
    };
    if let Some(sdwa) = inst.sdwa {
        words.push(sdwa_dword(inst, sdwa));
    }
    if let Some(lit) = inst.srcs.iter().find_map(|s| match s {
        Some(Operand::Literal(v)) => Some(*v),
        _ => None,
    }) {
        words.push(lit);
    }
    words
}

/// The SDWA dword (VI layout): SRC0[7:0], DST_SEL[10:8], DST_UNUSED[12:11], CLAMP[13],
/// SRC0_SEL[18:16], SRC0_SEXT[19], SRC0_NEG[20], SRC0_ABS[21], SRC1_SEL[26:24],
/// SRC1_SEXT[27], SRC1_NEG[28], SRC1_ABS[29]. VOPC leaves the destination fields zero and VOP1
/// the SRC1 fields, as llvm-mc does.
fn sdwa_dword(inst: &Instruction, sdwa: crate::inst::Sdwa) -> u32 {
    let m = &inst.mods;
    let src_mods = |i: u32| {
        (m.sext as u32 >> i & 1) << 3 | (m.neg as u32 >> i & 1) << 4 | (m.abs as u32 >> i & 1) << 5
    };
    let mut w = vreg(inst.srcs[0]) | (m.clamp as u32) << 13;
    w |= (sdwa.src0_sel.bits() | src_mods(0)) << 16;
    if inst.opcode.format() != Format::Vopc {
        w |= sdwa.dst_sel.bits() << 8 | sdwa.dst_unused.bits() << 11;
    }
    if inst.opcode.format() != Format::Vop1 {
        w |= (sdwa.src1_sel.bits() | src_mods(1)) << 24;
    }
    w
}
