//! The decode stage: GCN3 instruction words in, the control signals of one instruction out.
//!
//! [`Decoder`] is combinational. It sees the word at the PC and the word after it (the fetch
//! stage reads 64 bits, so a 32-bit literal arrives with its instruction) and works in three
//! steps, as a hardware decoder does:
//!
//! 1. **Format** from the fixed high bits of the first word (SOP1/SOPC/SOPP before SOPK before
//!    SOP2, since their prefixes nest), giving a 4-bit format id.
//! 2. **Operation** from a decode ROM addressed by the format id and the opcode field
//!    (`format << 10 | opcode`, VOP1/VOP2/VOPC opcodes also at their VOP3 numbers): the
//!    instruction class, the scalar or vector ALU operation and a word of flags
//!    ([`flags`]). The ROM contents are generated from `pws-isa`'s opcode table through
//!    [`micro_op`], so an opcode the table gains without a decision here fails to build; a
//!    key the ROM lacks decodes as [`InstClass::Illegal`].
//! 3. **Operands** from the format's fields by three [`OperandDecoder`]s (source positions 0, 1
//!    and 2): register class, register number, and for constants the value as the operand's
//!    width reads it (integer inline constants sign-extended, float inline constants as f32 or
//!    f64 bits, a literal sign-extended to 64 bits for a signed 64-bit operand and
//!    zero-extended for any other, as `pws-isa` defines it).
//!
//! The scalar outputs (`ssrc*`) and the vector outputs (`vsrc*`) come from the same three
//! operand decoders; for `*rev` operations and 64-bit shifts the vector outputs are swapped so
//! that the vector ALU always sees its value operand first (`a op b`).
//!
//! The f32 operations (flag [`flags::FLOAT`]) take their VOP3 `abs`, `neg`, `omod` and `clamp`
//! fields to the lanes as one modifier word (`fmod_o`, in ALU operand order).
//!
//! What the RTL does not implement decodes as illegal, so the issue unit stops the wavefront
//! with an error naming the PC instead of computing something else: VOP3 modifiers and
//! `clamp` on integer instructions (but `abs`/`neg` on `v_cndmask_b32`, [`flags::SIGN_MODS`],
//! and `clamp` on the unsigned add and subtracts, [`flags::SAT_CLAMP`]), trap temporaries,
//! `flat_scratch` but as the destination of SOP1/SOP2 (a discarded write, [`DstDecoder`]),
//! `xnack_mask`, LDS-direct operands, and the MUBUF forms beyond clang's private-memory
//! accesses (`idxen`, `lds`, `tfe`).

use std::collections::BTreeMap;

use pws_isa::{Format, Opcode, OPCODES};
use rust_hdl::prelude::*;

use super::lsu::rmw;
use crate::config::{SGPR_ADDR_BITS, VGPR_ADDR_BITS};
use crate::simd::fpu::FMOD_BITS;
use crate::simd::{ValuOp, SDWA_BITS};

/// What the execute stage does with an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum InstClass {
    /// Not an instruction the compute unit implements (the ROM's default).
    Illegal,
    Salu,
    Valu,
    /// `s_load_dword{,x2,x4}`.
    Smem,
    /// FLAT loads, stores and atomics (the atomics read-modify-write at the memory port).
    Flat,
    /// DS: the compute unit's LDS ([`super::lds`]).
    Ds,
    /// `s_branch`, `s_cbranch_*`.
    Branch,
    Split,
    Merge,
    /// `s_waitcnt`: satisfied at issue, since a context has one instruction in flight.
    Waitcnt,
    /// `s_nop`.
    Nop,
    Barrier,
    EndPgm,
}

/// Scalar ALU operations. Results are `f(ssrc0, ssrc1)`; [`flags::S_WIDE`] makes the
/// destination and `ssrc0` 64-bit, [`flags::S1_WIDE`] `ssrc1` too.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SaluOp {
    Mov,
    Not,
    /// `D = EXEC; EXEC = S0 & EXEC; SCC = EXEC != 0`, and the other forms below
    /// (`S0 | EXEC`, `S0 ^ EXEC`, `S0 & !EXEC`, `S0 | !EXEC`, `!(S0 & EXEC)`, ...).
    AndSaveexec,
    OrSaveexec,
    XorSaveexec,
    Andn2Saveexec,
    Orn2Saveexec,
    NandSaveexec,
    NorSaveexec,
    XnorSaveexec,
    /// Bit reverse of the 32- or 64-bit operand.
    Brev,
    /// Number of 0 / 1 bits of the 32- or 64-bit operand (a 32-bit result).
    Bcnt0,
    Bcnt1,
    /// Index of the lowest 0 / 1 bit, or -1.
    Ff0,
    Ff1,
    /// Leading zeros (`s_flbit_i32_b*`), or -1 for 0.
    Flbit,
    /// Leading bits equal to the sign bit (`s_flbit_i32*`), or -1 for 0 and -1.
    FlbitI,
    Sext8,
    Sext16,
    Abs,
    /// `|S0 - S1|` of the signed difference.
    Absdiff,
    Orn2,
    Nand,
    Nor,
    Xnor,
    /// `((1 << S0) - 1) << S1` (5- or 6-bit fields).
    Bfm,
    /// Field of S0 at offset `S1[4:0]` (`[5:0]`) of width `S1[22:16]`, zero- or
    /// sign-extended.
    BfeU,
    BfeI,
    /// SCC = bit `S1` of S0 is 0 / 1.
    Bitcmp0,
    Bitcmp1,
    /// S0 with bit `S1[4:0]` cleared / set (`s_bitset0_b32` / `s_bitset1_b32`: S0 is the
    /// destination register, S1 the SSRC0 field).
    Bitset0,
    Bitset1,
    AddU,
    SubU,
    AddI,
    SubI,
    AddcU,
    SubbU,
    MinI,
    MinU,
    MaxI,
    MaxU,
    Cselect,
    And,
    Or,
    Xor,
    Andn2,
    Lshl,
    Lshr,
    Ashr,
    Mul,
    CmpEq,
    CmpLg,
    CmpGtI,
    CmpGeI,
    CmpLtI,
    CmpLeI,
    CmpGtU,
    CmpGeU,
    CmpLtU,
    CmpLeU,
}

/// Condition of a branch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum BranchCond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    /// EXEC & SpM == 0 (docs/golden.md: split contexts test their own lanes).
    Execz,
    Execnz,
}

/// Where a source operand comes from. For a 64-bit operand `Sgpr` names the first register of
/// the pair and `VccLo`/`ExecLo` the whole VCC/EXEC.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SrcKind {
    Sgpr,
    VccLo,
    VccHi,
    ExecLo,
    ExecHi,
    M0,
    /// `src_scc`: 0 or 1.
    Scc,
    /// `src_vccz`: 1 when VCC is zero.
    Vccz,
    /// `src_execz`: 1 when EXEC is zero.
    Execz,
    /// Inline constant or literal: the value is on the operand's `const` outputs.
    Const,
    Vgpr,
    /// The address of the next instruction in memory (`s_getpc_b64`), 64-bit.
    Pc,
}

/// Where a scalar result goes. For a 64-bit result `Sgpr` names the first register of the
/// pair and `VccLo`/`ExecLo` the whole VCC/EXEC.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum DstKind {
    None,
    Sgpr,
    VccLo,
    VccHi,
    ExecLo,
    ExecHi,
    M0,
}

/// Bits of the decode ROM's flag word.
pub mod flags {
    /// Scalar op: destination and `ssrc0` are 64-bit.
    pub const S_WIDE: u64 = 1 << 0;
    /// Scalar op: `ssrc1` is 64-bit too (not for 64-bit shifts, whose amount is 32-bit).
    pub const S1_WIDE: u64 = 1 << 1;
    /// Vector op: source 1 in assembler order is a 64-bit value (`v_lshlrev_b64` etc.).
    pub const V1_WIDE: u64 = 1 << 2;
    /// Vector op: swap sources 0 and 1 (`*rev` forms, 64-bit shifts).
    pub const SWAP: u64 = 1 << 3;
    /// Vector op writes its VGPR destination.
    pub const VDST: u64 = 1 << 4;
    /// Vector op writes a lane mask: compare result or carry-out (VCC in e32, SGPR pair in e64).
    pub const MASK_DST: u64 = 1 << 5;
    /// `v_cmpx_*`: the mask is written to EXEC too.
    pub const EXEC_DST: u64 = 1 << 6;
    /// Vector op reads a lane mask: carry-in or `v_cndmask_b32`'s select (VCC in e32, source 2
    /// in e64).
    pub const MASK_SRC: u64 = 1 << 7;
    /// Carry-out op: its e64 form is VOP3b (mask destination in bits 14:8).
    pub const CARRY: u64 = 1 << 8;
    /// Memory store.
    pub const STORE: u64 = 1 << 9;
    /// Memory op of two dwords.
    pub const DW2: u64 = 1 << 10;
    /// Memory op of four dwords.
    pub const DW4: u64 = 1 << 11;
    /// SOPK: the 16-bit constant is zero-extended (unsigned compares), not sign-extended.
    pub const K_UNSIGNED: u64 = 1 << 12;
    /// The register in the SDST field is read as `ssrc0`: SOPK `s_cmpk_*`, `s_addk_i32`,
    /// `s_mulk_i32` (otherwise the constant is `ssrc0`, `s_movk_i32`), and SOP1 `s_bitset*`,
    /// whose SSRC0 field is then `ssrc1`.
    pub const K_READS_DST: u64 = 1 << 13;
    /// The op writes no scalar destination (compares).
    pub const NO_SDST: u64 = 1 << 14;
    /// Scalar op with `S_WIDE`: the destination is 32-bit (`s_bcnt1_i32_b64`, ...).
    pub const D32: u64 = 1 << 15;
    /// Scalar op with `S_WIDE`: `ssrc0` is 32-bit (`s_bfm_b64`).
    pub const A32: u64 = 1 << 16;
    /// Vector op: source 0 in assembler order is a 64-bit value (64-bit compares).
    pub const V0_WIDE: u64 = 1 << 17;
    /// Vector op: source 2 is a 64-bit value, not a lane mask (`v_mad_u64_u32`).
    pub const V2_WIDE: u64 = 1 << 18;
    /// Memory op of three, eight or sixteen dwords.
    pub const DW3: u64 = 1 << 19;
    pub const DW8: u64 = 1 << 20;
    pub const DW16: u64 = 1 << 21;
    /// FLAT access of one byte / one 16-bit half per lane; `SIGNED`: loads sign-extend it.
    pub const BYTE: u64 = 1 << 22;
    pub const SHORT: u64 = 1 << 23;
    pub const SIGNED: u64 = 1 << 24;
    /// f32 vector op: the VOP3 `abs`, `neg`, `omod` and `clamp` fields are its modifiers
    /// (`fmod_o`), not fields the RTL refuses.
    pub const FLOAT: u64 = 1 << 25;
    /// `v_mac_f32`: source 2 is the destination VGPR.
    pub const MAC: u64 = 1 << 26;
    /// `v_div_fmas_f32`: reads VCC as its lane mask in the VOP3 encoding too (source 2 is a
    /// value).
    pub const VCC_IN: u64 = 1 << 27;
    /// Bits 31:28: the read-modify-write of a FLAT or DS atomic (`lsu::rmw`, 0 for none).
    pub const RMW_SHIFT: u64 = 28;
    /// `ds_read2*` / `ds_write2*`: two elements at `offset0` and `offset1`.
    pub const DS2: u64 = 1 << 32;
    /// The `st64` forms: the element offsets count 64 elements.
    pub const ST64: u64 = 1 << 33;
    /// `ds_cmpst_b32`: DATA0 is the compare value and DATA1 the new one, the other way round
    /// from `flat_atomic_cmpswap` (whose order the read-modify-write takes).
    pub const DATA_SWAP: u64 = 1 << 34;
    /// `v_madmk_f32`: source 1 is the literal K, source 2 the VSRC1 register.
    pub const K_SRC1: u64 = 1 << 35;
    /// `v_madak_f32`: source 2 is the literal K.
    pub const K_SRC2: u64 = 1 << 36;
    /// `v_cndmask_b32`: takes the VOP3 `abs` and `neg` input modifiers (on the sign bit of the
    /// value it selects, as clang folds `fabs`/`-` into a select); `omod` and `clamp` stay
    /// refused.
    pub const SIGN_MODS: u64 = 1 << 37;
    /// `v_add_u32`, `v_sub_u32`, `v_subrev_u32`: the VOP3 `clamp` bit saturates the result
    /// ([`ValuOp::AddSatU`], [`ValuOp::SubSatU`]), as LLVM selects for `uadd.sat`/`usub.sat`;
    /// with `H16` (`v_add_u16`, ...) at 16 bits ([`ValuOp::AddSatU16`]), in VOP3 and SDWA.
    pub const SAT_CLAMP: u64 = 1 << 38;
    /// 16-bit integer op (`v_add_u16`, `v_cmp_lt_i16`, ...): the lanes run the 32-bit op on
    /// the sources' low halves and write the result's low half zero-extended, through SDWA
    /// selects the decoder supplies (`Decoder`, "16-bit integer ops").
    pub const H16: u64 = 1 << 39;
    /// With `H16`: the halves are signed (sign-extended by the selects).
    pub const H16_SIGNED: u64 = 1 << 40;
    /// With `H16`: ALU operand b is a shift amount, of which the op takes the low 4 bits.
    pub const H16_SHIFT: u64 = 1 << 41;
    /// `s_getpc_b64`: `ssrc0` is the next instruction's address ([`super::SrcKind::Pc`]).
    pub const PC_SRC: u64 = 1 << 42;
    /// A MUBUF access (`buffer_load_*`, `buffer_store_*`): class `Flat`, addressed through
    /// the private segment's swizzled resource ([`super::Decoder`]'s `mubuf_o`).
    pub const MUBUF: u64 = 1 << 43;
    /// A lane access (`v_readlane_b32`, `v_writelane_b32`, `v_readfirstlane_b32`): the op
    /// runs on one lane whatever EXEC is, the lane number in source 1 (a scalar the issue
    /// unit reads) ...
    pub const LANE: u64 = 1 << 44;
    /// ... or, for `v_readfirstlane_b32`, the lowest lane of EXEC & SpM (lane 0 if none).
    pub const LANE_FIRST: u64 = 1 << 45;
    /// The mask destination is one 32-bit SGPR named by the VDST field (the read lane
    /// accesses' scalar result).
    pub const SDST32: u64 = 1 << 46;
    /// A 64-bit source is a signed integer: a literal there is sign-extended, elsewhere
    /// zero-extended ([`pws_isa::Opcode::sign_extends_literal64`]).
    pub const LIT_SEXT: u64 = 1 << 47;
    /// With `H16`: the result is the sources' low halves combined modulo 2^16
    /// ([`pws_isa::Opcode::is_modular16`]), so a sign-extended byte source is taken as it is
    /// (without `clamp`).
    pub const H16_MOD: u64 = 1 << 48;
}

/// Width of the decode ROM's flag word.
pub const FLAG_BITS: usize = 49;

/// One row of the decode ROM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MicroOp {
    pub class: InstClass,
    pub salu: SaluOp,
    pub valu: ValuOp,
    pub flags: u64,
}

/// The decode-ROM flags of a DS instruction ([`InstClass::Ds`]): dwords per element (`DW*`),
/// sub-dword size and sign, `STORE` for writes, `VDST` for every form that returns data, the
/// atomic's read-modify-write, and the two-element and `st64` forms; `None` for other opcodes.
fn ds_flags(opcode: Opcode) -> Option<u64> {
    use flags::*;
    use Opcode::*;
    let at = |op: u64| op << RMW_SHIFT;
    Some(match opcode {
        DsReadB32 => VDST,
        DsReadB64 => VDST | DW2,
        DsReadB96 => VDST | DW3,
        DsReadB128 => VDST | DW4,
        DsReadU8 => VDST | BYTE,
        DsReadI8 => VDST | BYTE | SIGNED,
        DsReadU16 => VDST | SHORT,
        DsReadI16 => VDST | SHORT | SIGNED,
        DsWriteB8 => STORE | BYTE,
        DsWriteB16 => STORE | SHORT,
        DsWriteB32 => STORE,
        DsWriteB64 => STORE | DW2,
        DsWriteB96 => STORE | DW3,
        DsWriteB128 => STORE | DW4,
        DsRead2B32 => VDST | DS2,
        DsRead2st64B32 => VDST | DS2 | ST64,
        DsRead2B64 => VDST | DS2 | DW2,
        DsRead2st64B64 => VDST | DS2 | ST64 | DW2,
        DsWrite2B32 => STORE | DS2,
        DsWrite2st64B32 => STORE | DS2 | ST64,
        DsWrite2B64 => STORE | DS2 | DW2,
        DsWrite2st64B64 => STORE | DS2 | ST64 | DW2,
        DsAddU32 => at(rmw::ADD),
        DsSubU32 => at(rmw::SUB),
        DsRsubU32 => at(rmw::RSUB),
        DsIncU32 => at(rmw::INC),
        DsDecU32 => at(rmw::DEC),
        DsMinI32 => at(rmw::SMIN),
        DsMaxI32 => at(rmw::SMAX),
        DsMinU32 => at(rmw::UMIN),
        DsMaxU32 => at(rmw::UMAX),
        DsAndB32 => at(rmw::AND),
        DsOrB32 => at(rmw::OR),
        DsXorB32 => at(rmw::XOR),
        DsMskorB32 => at(rmw::MSKOR),
        DsCmpstB32 => at(rmw::CMPSWAP) | DATA_SWAP,
        DsAddRtnU32 => VDST | at(rmw::ADD),
        DsSubRtnU32 => VDST | at(rmw::SUB),
        DsRsubRtnU32 => VDST | at(rmw::RSUB),
        DsIncRtnU32 => VDST | at(rmw::INC),
        DsDecRtnU32 => VDST | at(rmw::DEC),
        DsMinRtnI32 => VDST | at(rmw::SMIN),
        DsMaxRtnI32 => VDST | at(rmw::SMAX),
        DsMinRtnU32 => VDST | at(rmw::UMIN),
        DsMaxRtnU32 => VDST | at(rmw::UMAX),
        DsAndRtnB32 => VDST | at(rmw::AND),
        DsOrRtnB32 => VDST | at(rmw::OR),
        DsXorRtnB32 => VDST | at(rmw::XOR),
        DsMskorRtnB32 => VDST | at(rmw::MSKOR),
        DsWrxchgRtnB32 => VDST | at(rmw::SWAP),
        DsCmpstRtnB32 => VDST | at(rmw::CMPSWAP) | DATA_SWAP,
        _ => return None,
    })
}

/// The micro-op of a supported instruction; `None` for those the RTL does not execute.
pub fn micro_op(opcode: Opcode) -> Option<MicroOp> {
    use flags::*;
    use Opcode::*;
    let salu = |op: SaluOp, f: u64| MicroOp {
        class: InstClass::Salu,
        salu: op,
        valu: ValuOp::Mov,
        flags: f,
    };
    let valu = |op: ValuOp, f: u64| MicroOp {
        class: InstClass::Valu,
        salu: SaluOp::Mov,
        valu: op,
        flags: f,
    };
    let other = |class: InstClass, f: u64| MicroOp {
        class,
        salu: SaluOp::Mov,
        valu: ValuOp::Mov,
        flags: f,
    };
    const W: u64 = S_WIDE;
    const WW: u64 = S_WIDE | S1_WIDE;
    const CMP: u64 = NO_SDST;
    const CMPK: u64 = NO_SDST | K_READS_DST;
    const CMPKU: u64 = NO_SDST | K_READS_DST | K_UNSIGNED;
    const V: u64 = VDST;
    const VCO: u64 = VDST | MASK_DST | CARRY;
    const VCIO: u64 = VDST | MASK_DST | MASK_SRC | CARRY;
    const VC: u64 = MASK_DST;
    const VCX: u64 = MASK_DST | EXEC_DST;
    const SH64: u64 = VDST | V1_WIDE | SWAP;
    const VC64: u64 = MASK_DST | V0_WIDE | V1_WIDE;
    const VCX64: u64 = VC64 | EXEC_DST;
    const MAD64: u64 = VDST | MASK_DST | CARRY | V2_WIDE;
    const WD32: u64 = S_WIDE | D32;
    const VF: u64 = VDST | FLOAT;
    const VCF: u64 = MASK_DST | FLOAT;
    const VCXF: u64 = MASK_DST | EXEC_DST | FLOAT;
    const V16: u64 = VDST | H16;
    const V16S: u64 = VDST | H16 | H16_SIGNED;
    const SH16: u64 = VDST | SWAP | H16 | H16_SHIFT;
    const VC16: u64 = MASK_DST | H16;
    const VC16S: u64 = MASK_DST | H16 | H16_SIGNED;
    const VCX16: u64 = MASK_DST | EXEC_DST | H16;
    const VCX16S: u64 = MASK_DST | EXEC_DST | H16 | H16_SIGNED;
    let at = |op: u64| op << RMW_SHIFT;
    if let Some(f) = ds_flags(opcode) {
        return Some(other(InstClass::Ds, f));
    }
    let mut op = match opcode {
        SMovB32 => salu(SaluOp::Mov, 0),
        SMovB64 => salu(SaluOp::Mov, W),
        SGetpcB64 => salu(SaluOp::Mov, W | PC_SRC),
        SNotB32 => salu(SaluOp::Not, 0),
        SNotB64 => salu(SaluOp::Not, W),
        SAndSaveexecB64 => salu(SaluOp::AndSaveexec, W),
        SOrSaveexecB64 => salu(SaluOp::OrSaveexec, W),
        SXorSaveexecB64 => salu(SaluOp::XorSaveexec, W),
        SAndn2SaveexecB64 => salu(SaluOp::Andn2Saveexec, W),
        SOrn2SaveexecB64 => salu(SaluOp::Orn2Saveexec, W),
        SNandSaveexecB64 => salu(SaluOp::NandSaveexec, W),
        SNorSaveexecB64 => salu(SaluOp::NorSaveexec, W),
        SXnorSaveexecB64 => salu(SaluOp::XnorSaveexec, W),
        SBrevB32 => salu(SaluOp::Brev, 0),
        SBrevB64 => salu(SaluOp::Brev, W),
        SBcnt0I32B32 => salu(SaluOp::Bcnt0, 0),
        SBcnt0I32B64 => salu(SaluOp::Bcnt0, WD32),
        SBcnt1I32B32 => salu(SaluOp::Bcnt1, 0),
        SBcnt1I32B64 => salu(SaluOp::Bcnt1, WD32),
        SFf0I32B32 => salu(SaluOp::Ff0, 0),
        SFf0I32B64 => salu(SaluOp::Ff0, WD32),
        SFf1I32B32 => salu(SaluOp::Ff1, 0),
        SFf1I32B64 => salu(SaluOp::Ff1, WD32),
        SFlbitI32B32 => salu(SaluOp::Flbit, 0),
        SFlbitI32B64 => salu(SaluOp::Flbit, WD32),
        SFlbitI32 => salu(SaluOp::FlbitI, 0),
        SFlbitI32I64 => salu(SaluOp::FlbitI, WD32),
        SSextI32I8 => salu(SaluOp::Sext8, 0),
        SSextI32I16 => salu(SaluOp::Sext16, 0),
        SAbsI32 => salu(SaluOp::Abs, 0),
        SOrn2B32 => salu(SaluOp::Orn2, 0),
        SOrn2B64 => salu(SaluOp::Orn2, WW),
        SNandB32 => salu(SaluOp::Nand, 0),
        SNandB64 => salu(SaluOp::Nand, WW),
        SNorB32 => salu(SaluOp::Nor, 0),
        SNorB64 => salu(SaluOp::Nor, WW),
        SXnorB32 => salu(SaluOp::Xnor, 0),
        SXnorB64 => salu(SaluOp::Xnor, WW),
        SBfmB32 => salu(SaluOp::Bfm, 0),
        SBfmB64 => salu(SaluOp::Bfm, W | A32),
        SBfeU32 => salu(SaluOp::BfeU, 0),
        SBfeI32 => salu(SaluOp::BfeI, 0),
        SBfeU64 => salu(SaluOp::BfeU, W),
        SBfeI64 => salu(SaluOp::BfeI, W),
        SAbsdiffI32 => salu(SaluOp::Absdiff, 0),
        SBitcmp0B32 => salu(SaluOp::Bitcmp0, CMP),
        SBitcmp1B32 => salu(SaluOp::Bitcmp1, CMP),
        SBitcmp0B64 => salu(SaluOp::Bitcmp0, CMP | W),
        SBitcmp1B64 => salu(SaluOp::Bitcmp1, CMP | W),
        SBitset0B32 => salu(SaluOp::Bitset0, K_READS_DST),
        SBitset1B32 => salu(SaluOp::Bitset1, K_READS_DST),
        SAddU32 => salu(SaluOp::AddU, 0),
        SSubU32 => salu(SaluOp::SubU, 0),
        SAddI32 => salu(SaluOp::AddI, 0),
        SSubI32 => salu(SaluOp::SubI, 0),
        SAddcU32 => salu(SaluOp::AddcU, 0),
        SSubbU32 => salu(SaluOp::SubbU, 0),
        SMinI32 => salu(SaluOp::MinI, 0),
        SMinU32 => salu(SaluOp::MinU, 0),
        SMaxI32 => salu(SaluOp::MaxI, 0),
        SMaxU32 => salu(SaluOp::MaxU, 0),
        SCselectB32 => salu(SaluOp::Cselect, 0),
        SCselectB64 => salu(SaluOp::Cselect, WW),
        SAndB32 => salu(SaluOp::And, 0),
        SAndB64 => salu(SaluOp::And, WW),
        SOrB32 => salu(SaluOp::Or, 0),
        SOrB64 => salu(SaluOp::Or, WW),
        SXorB32 => salu(SaluOp::Xor, 0),
        SXorB64 => salu(SaluOp::Xor, WW),
        SAndn2B32 => salu(SaluOp::Andn2, 0),
        SAndn2B64 => salu(SaluOp::Andn2, WW),
        SLshlB32 => salu(SaluOp::Lshl, 0),
        SLshlB64 => salu(SaluOp::Lshl, W),
        SLshrB32 => salu(SaluOp::Lshr, 0),
        SLshrB64 => salu(SaluOp::Lshr, W),
        SAshrI32 => salu(SaluOp::Ashr, 0),
        SAshrI64 => salu(SaluOp::Ashr, W),
        SMulI32 => salu(SaluOp::Mul, 0),
        SCmpEqI32 | SCmpEqU32 => salu(SaluOp::CmpEq, CMP),
        SCmpLgI32 | SCmpLgU32 => salu(SaluOp::CmpLg, CMP),
        SCmpGtI32 => salu(SaluOp::CmpGtI, CMP),
        SCmpGeI32 => salu(SaluOp::CmpGeI, CMP),
        SCmpLtI32 => salu(SaluOp::CmpLtI, CMP),
        SCmpLeI32 => salu(SaluOp::CmpLeI, CMP),
        SCmpGtU32 => salu(SaluOp::CmpGtU, CMP),
        SCmpGeU32 => salu(SaluOp::CmpGeU, CMP),
        SCmpLtU32 => salu(SaluOp::CmpLtU, CMP),
        SCmpLeU32 => salu(SaluOp::CmpLeU, CMP),
        SCmpEqU64 => salu(SaluOp::CmpEq, CMP | WW),
        SCmpLgU64 => salu(SaluOp::CmpLg, CMP | WW),
        Split => other(InstClass::Split, NO_SDST),
        Merge => other(InstClass::Merge, NO_SDST),
        SMovkI32 => salu(SaluOp::Mov, 0),
        SCmpkEqI32 => salu(SaluOp::CmpEq, CMPK),
        SCmpkLgI32 => salu(SaluOp::CmpLg, CMPK),
        SCmpkGtI32 => salu(SaluOp::CmpGtI, CMPK),
        SCmpkGeI32 => salu(SaluOp::CmpGeI, CMPK),
        SCmpkLtI32 => salu(SaluOp::CmpLtI, CMPK),
        SCmpkLeI32 => salu(SaluOp::CmpLeI, CMPK),
        SCmpkEqU32 => salu(SaluOp::CmpEq, CMPKU),
        SCmpkLgU32 => salu(SaluOp::CmpLg, CMPKU),
        SCmpkGtU32 => salu(SaluOp::CmpGtU, CMPKU),
        SCmpkGeU32 => salu(SaluOp::CmpGeU, CMPKU),
        SCmpkLtU32 => salu(SaluOp::CmpLtU, CMPKU),
        SCmpkLeU32 => salu(SaluOp::CmpLeU, CMPKU),
        SAddkI32 => salu(SaluOp::AddI, K_READS_DST),
        SMulkI32 => salu(SaluOp::Mul, K_READS_DST),
        // Writes the f32 denormal mode, which pws keeps flushed (subset: no other field);
        // s_setreg_b32's value register is decoded like any SOPK register, so that one the
        // RTL lacks (a trap temporary) is illegal.
        SNop | SSetregImm32B32 => other(InstClass::Nop, NO_SDST),
        SSetregB32 => other(InstClass::Nop, NO_SDST | K_READS_DST),
        SEndpgm => other(InstClass::EndPgm, NO_SDST),
        SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => other(InstClass::Branch, NO_SDST),
        SBarrier => other(InstClass::Barrier, NO_SDST),
        SWaitcnt => other(InstClass::Waitcnt, NO_SDST),
        SLoadDword => other(InstClass::Smem, 0),
        SLoadDwordx2 => other(InstClass::Smem, DW2),
        SLoadDwordx4 => other(InstClass::Smem, DW4),
        SLoadDwordx8 => other(InstClass::Smem, DW8),
        SLoadDwordx16 => other(InstClass::Smem, DW16),
        VMovB32 => valu(ValuOp::Mov, V),
        VReadfirstlaneB32 => valu(ValuOp::ReadLane, MASK_DST | SDST32 | LANE | LANE_FIRST),
        VReadlaneB32 => valu(ValuOp::ReadLane, MASK_DST | SDST32 | LANE),
        VWritelaneB32 => valu(ValuOp::Mov, V | LANE),
        VNotB32 => valu(ValuOp::Not, V),
        VBfrevB32 => valu(ValuOp::Bfrev, V),
        VFfbhU32 => valu(ValuOp::Ffbh, V),
        VFfblB32 => valu(ValuOp::Ffbl, V),
        VFfbhI32 => valu(ValuOp::FfbhI, V),
        VMulI32I24 => valu(ValuOp::MulI24, V),
        VMulHiI32I24 => valu(ValuOp::MulHiI24, V),
        VMulHiU32U24 => valu(ValuOp::MulHiU24, V),
        VSubbrevU32 => valu(ValuOp::Subb, VCIO | SWAP),
        VMadI32I24 => valu(ValuOp::MadI24, V),
        VBfiB32 => valu(ValuOp::Bfi, V),
        VAlignbitB32 => valu(ValuOp::Alignbit, V),
        VAlignbyteB32 => valu(ValuOp::Alignbyte, V),
        VMin3I32 => valu(ValuOp::Min3I, V),
        VMin3U32 => valu(ValuOp::Min3U, V),
        VMax3I32 => valu(ValuOp::Max3I, V),
        VMax3U32 => valu(ValuOp::Max3U, V),
        VMed3I32 => valu(ValuOp::Med3I, V),
        VMed3U32 => valu(ValuOp::Med3U, V),
        VMadU64U32 => valu(ValuOp::MadU64, MAD64),
        VMadI64I32 => valu(ValuOp::MadI64, MAD64),
        VBcntU32B32 => valu(ValuOp::Bcnt, V),
        VBfmB32 => valu(ValuOp::Bfm, V),
        VCmpLtI64 => valu(ValuOp::CmpLtI64, VC64),
        VCmpEqI64 | VCmpEqU64 => valu(ValuOp::CmpEq64, VC64),
        VCmpLeI64 => valu(ValuOp::CmpLeI64, VC64),
        VCmpGtI64 => valu(ValuOp::CmpGtI64, VC64),
        VCmpNeI64 | VCmpNeU64 => valu(ValuOp::CmpNe64, VC64),
        VCmpGeI64 => valu(ValuOp::CmpGeI64, VC64),
        VCmpLtU64 => valu(ValuOp::CmpLtU64, VC64),
        VCmpLeU64 => valu(ValuOp::CmpLeU64, VC64),
        VCmpGtU64 => valu(ValuOp::CmpGtU64, VC64),
        VCmpGeU64 => valu(ValuOp::CmpGeU64, VC64),
        VCmpxLtI64 => valu(ValuOp::CmpLtI64, VCX64),
        VCmpxEqI64 | VCmpxEqU64 => valu(ValuOp::CmpEq64, VCX64),
        VCmpxLeI64 => valu(ValuOp::CmpLeI64, VCX64),
        VCmpxGtI64 => valu(ValuOp::CmpGtI64, VCX64),
        VCmpxNeI64 | VCmpxNeU64 => valu(ValuOp::CmpNe64, VCX64),
        VCmpxGeI64 => valu(ValuOp::CmpGeI64, VCX64),
        VCmpxLtU64 => valu(ValuOp::CmpLtU64, VCX64),
        VCmpxLeU64 => valu(ValuOp::CmpLeU64, VCX64),
        VCmpxGtU64 => valu(ValuOp::CmpGtU64, VCX64),
        VCmpxGeU64 => valu(ValuOp::CmpGeU64, VCX64),
        VCndmaskB32 => valu(ValuOp::Cndmask, V | MASK_SRC | SIGN_MODS),
        VMulU32U24 => valu(ValuOp::MulU24, V),
        VMinI32 => valu(ValuOp::MinI, V),
        VMaxI32 => valu(ValuOp::MaxI, V),
        VMinU32 => valu(ValuOp::MinU, V),
        VMaxU32 => valu(ValuOp::MaxU, V),
        VLshrrevB32 => valu(ValuOp::Shr, V | SWAP),
        VAshrrevI32 => valu(ValuOp::Ashr, V | SWAP),
        VLshlrevB32 => valu(ValuOp::Shl, V | SWAP),
        VAndB32 => valu(ValuOp::And, V),
        VOrB32 => valu(ValuOp::Or, V),
        VXorB32 => valu(ValuOp::Xor, V),
        VAddU32 => valu(ValuOp::Add, VCO | SAT_CLAMP),
        VSubU32 => valu(ValuOp::Sub, VCO | SAT_CLAMP),
        VSubrevU32 => valu(ValuOp::Sub, VCO | SWAP | SAT_CLAMP),
        VAddcU32 => valu(ValuOp::Addc, VCIO),
        VSubbU32 => valu(ValuOp::Subb, VCIO),
        VMadU32U24 => valu(ValuOp::MadU24, V),
        VBfeU32 => valu(ValuOp::BfeU, V),
        VBfeI32 => valu(ValuOp::BfeI, V),
        VMulLoU32 => valu(ValuOp::MulLo, V),
        VMulHiU32 => valu(ValuOp::MulHiU, V),
        VMulHiI32 => valu(ValuOp::MulHiI, V),
        VLshlrevB64 => valu(ValuOp::Shl64, SH64),
        VLshrrevB64 => valu(ValuOp::Shr64, SH64),
        VAshrrevI64 => valu(ValuOp::Ashr64, SH64),
        VCmpLtI32 => valu(ValuOp::CmpLtI, VC),
        VCmpEqI32 | VCmpEqU32 => valu(ValuOp::CmpEq, VC),
        VCmpLeI32 => valu(ValuOp::CmpLeI, VC),
        VCmpGtI32 => valu(ValuOp::CmpGtI, VC),
        VCmpNeI32 | VCmpNeU32 => valu(ValuOp::CmpNe, VC),
        VCmpGeI32 => valu(ValuOp::CmpGeI, VC),
        VCmpLtU32 => valu(ValuOp::CmpLtU, VC),
        VCmpLeU32 => valu(ValuOp::CmpLeU, VC),
        VCmpGtU32 => valu(ValuOp::CmpGtU, VC),
        VCmpGeU32 => valu(ValuOp::CmpGeU, VC),
        VCmpxLtI32 => valu(ValuOp::CmpLtI, VCX),
        VCmpxEqI32 | VCmpxEqU32 => valu(ValuOp::CmpEq, VCX),
        VCmpxLeI32 => valu(ValuOp::CmpLeI, VCX),
        VCmpxGtI32 => valu(ValuOp::CmpGtI, VCX),
        VCmpxNeI32 | VCmpxNeU32 => valu(ValuOp::CmpNe, VCX),
        VCmpxGeI32 => valu(ValuOp::CmpGeI, VCX),
        VCmpxLtU32 => valu(ValuOp::CmpLtU, VCX),
        VCmpxLeU32 => valu(ValuOp::CmpLeU, VCX),
        VCmpxGtU32 => valu(ValuOp::CmpGtU, VCX),
        VCmpxGeU32 => valu(ValuOp::CmpGeU, VCX),
        VAddU16 => valu(ValuOp::Add, V16 | SAT_CLAMP),
        VSubU16 => valu(ValuOp::Sub, V16 | SAT_CLAMP),
        VSubrevU16 => valu(ValuOp::Sub, V16 | SWAP | SAT_CLAMP),
        VMulLoU16 => valu(ValuOp::MulLo, V16),
        VLshlrevB16 => valu(ValuOp::Shl, SH16),
        VLshrrevB16 => valu(ValuOp::Shr, SH16),
        VAshrrevI16 => valu(ValuOp::Ashr, SH16 | H16_SIGNED),
        VMaxU16 => valu(ValuOp::MaxU, V16),
        VMinU16 => valu(ValuOp::MinU, V16),
        VMaxI16 => valu(ValuOp::MaxI, V16S),
        VMinI16 => valu(ValuOp::MinI, V16S),
        // The low half of a product and sum is the same for signed and unsigned halves, and
        // a half extended either way has it in its low 24 bits.
        VPermB32 => valu(ValuOp::Perm, V),
        VMadU16 => valu(ValuOp::MadU24, V16),
        VMadI16 => valu(ValuOp::MadU24, V16S),
        VCmpLtI16 => valu(ValuOp::CmpLtI, VC16S),
        VCmpEqI16 => valu(ValuOp::CmpEq, VC16S),
        VCmpEqU16 => valu(ValuOp::CmpEq, VC16),
        VCmpLeI16 => valu(ValuOp::CmpLeI, VC16S),
        VCmpGtI16 => valu(ValuOp::CmpGtI, VC16S),
        VCmpNeI16 => valu(ValuOp::CmpNe, VC16S),
        VCmpNeU16 => valu(ValuOp::CmpNe, VC16),
        VCmpGeI16 => valu(ValuOp::CmpGeI, VC16S),
        VCmpLtU16 => valu(ValuOp::CmpLtU, VC16),
        VCmpLeU16 => valu(ValuOp::CmpLeU, VC16),
        VCmpGtU16 => valu(ValuOp::CmpGtU, VC16),
        VCmpGeU16 => valu(ValuOp::CmpGeU, VC16),
        VCmpxLtI16 => valu(ValuOp::CmpLtI, VCX16S),
        VCmpxEqI16 => valu(ValuOp::CmpEq, VCX16S),
        VCmpxEqU16 => valu(ValuOp::CmpEq, VCX16),
        VCmpxLeI16 => valu(ValuOp::CmpLeI, VCX16S),
        VCmpxGtI16 => valu(ValuOp::CmpGtI, VCX16S),
        VCmpxNeI16 => valu(ValuOp::CmpNe, VCX16S),
        VCmpxNeU16 => valu(ValuOp::CmpNe, VCX16),
        VCmpxGeI16 => valu(ValuOp::CmpGeI, VCX16S),
        VCmpxLtU16 => valu(ValuOp::CmpLtU, VCX16),
        VCmpxLeU16 => valu(ValuOp::CmpLeU, VCX16),
        VCmpxGtU16 => valu(ValuOp::CmpGtU, VCX16),
        VCmpxGeU16 => valu(ValuOp::CmpGeU, VCX16),
        FlatLoadUbyte => other(InstClass::Flat, BYTE),
        FlatLoadSbyte => other(InstClass::Flat, BYTE | SIGNED),
        FlatLoadUshort => other(InstClass::Flat, SHORT),
        FlatLoadSshort => other(InstClass::Flat, SHORT | SIGNED),
        FlatLoadDword => other(InstClass::Flat, 0),
        FlatLoadDwordx2 => other(InstClass::Flat, DW2),
        FlatLoadDwordx3 => other(InstClass::Flat, DW3),
        FlatLoadDwordx4 => other(InstClass::Flat, DW4),
        FlatStoreByte => other(InstClass::Flat, STORE | BYTE),
        FlatStoreShort => other(InstClass::Flat, STORE | SHORT),
        FlatStoreDword => other(InstClass::Flat, STORE),
        FlatStoreDwordx2 => other(InstClass::Flat, STORE | DW2),
        FlatStoreDwordx3 => other(InstClass::Flat, STORE | DW3),
        FlatStoreDwordx4 => other(InstClass::Flat, STORE | DW4),
        FlatAtomicSwap => other(InstClass::Flat, at(rmw::SWAP)),
        FlatAtomicCmpswap => other(InstClass::Flat, at(rmw::CMPSWAP) | DW2),
        FlatAtomicAdd => other(InstClass::Flat, at(rmw::ADD)),
        FlatAtomicSub => other(InstClass::Flat, at(rmw::SUB)),
        FlatAtomicSmin => other(InstClass::Flat, at(rmw::SMIN)),
        FlatAtomicUmin => other(InstClass::Flat, at(rmw::UMIN)),
        FlatAtomicSmax => other(InstClass::Flat, at(rmw::SMAX)),
        FlatAtomicUmax => other(InstClass::Flat, at(rmw::UMAX)),
        FlatAtomicAnd => other(InstClass::Flat, at(rmw::AND)),
        FlatAtomicOr => other(InstClass::Flat, at(rmw::OR)),
        FlatAtomicXor => other(InstClass::Flat, at(rmw::XOR)),
        FlatAtomicInc => other(InstClass::Flat, at(rmw::INC)),
        FlatAtomicDec => other(InstClass::Flat, at(rmw::DEC)),
        BufferLoadUbyte => other(InstClass::Flat, MUBUF | BYTE),
        BufferLoadSbyte => other(InstClass::Flat, MUBUF | BYTE | SIGNED),
        BufferLoadUshort => other(InstClass::Flat, MUBUF | SHORT),
        BufferLoadSshort => other(InstClass::Flat, MUBUF | SHORT | SIGNED),
        BufferLoadDword => other(InstClass::Flat, MUBUF),
        BufferLoadDwordx2 => other(InstClass::Flat, MUBUF | DW2),
        BufferLoadDwordx3 => other(InstClass::Flat, MUBUF | DW3),
        BufferLoadDwordx4 => other(InstClass::Flat, MUBUF | DW4),
        BufferStoreByte => other(InstClass::Flat, MUBUF | STORE | BYTE),
        BufferStoreShort => other(InstClass::Flat, MUBUF | STORE | SHORT),
        BufferStoreDword => other(InstClass::Flat, MUBUF | STORE),
        BufferStoreDwordx2 => other(InstClass::Flat, MUBUF | STORE | DW2),
        BufferStoreDwordx3 => other(InstClass::Flat, MUBUF | STORE | DW3),
        BufferStoreDwordx4 => other(InstClass::Flat, MUBUF | STORE | DW4),
        VCvtF32I32 => valu(ValuOp::CvtF32I32, VF),
        VCvtF32U32 => valu(ValuOp::CvtF32U32, VF),
        VCvtU32F32 => valu(ValuOp::CvtU32F32, VF),
        VCvtI32F32 => valu(ValuOp::CvtI32F32, VF),
        VCvtRpiI32F32 => valu(ValuOp::CvtRpiI32F32, VF),
        VCvtFlrI32F32 => valu(ValuOp::CvtFlrI32F32, VF),
        VCvtF32Ubyte0 => valu(ValuOp::CvtF32Ubyte0, VF),
        VCvtF32Ubyte1 => valu(ValuOp::CvtF32Ubyte1, VF),
        VCvtF32Ubyte2 => valu(ValuOp::CvtF32Ubyte2, VF),
        VCvtF32Ubyte3 => valu(ValuOp::CvtF32Ubyte3, VF),
        VFractF32 => valu(ValuOp::FractF, VF),
        VTruncF32 => valu(ValuOp::TruncF, VF),
        VCeilF32 => valu(ValuOp::CeilF, VF),
        VRndneF32 => valu(ValuOp::RndneF, VF),
        VFloorF32 => valu(ValuOp::FloorF, VF),
        VRcpF32 | VRcpIflagF32 => valu(ValuOp::RcpF, VF),
        VRsqF32 => valu(ValuOp::RsqF, VF),
        VSqrtF32 => valu(ValuOp::SqrtF, VF),
        VFrexpExpI32F32 => valu(ValuOp::FrexpExpF, VF),
        VFrexpMantF32 => valu(ValuOp::FrexpMantF, VF),
        VAddF32 => valu(ValuOp::AddF, VF),
        VSubF32 => valu(ValuOp::SubF, VF),
        VSubrevF32 => valu(ValuOp::SubF, VF | SWAP),
        VMulF32 => valu(ValuOp::MulF, VF),
        VMinF32 => valu(ValuOp::MinF, VF),
        VMaxF32 => valu(ValuOp::MaxF, VF),
        VMacF32 => valu(ValuOp::MadF, VF | MAC),
        VMadF32 => valu(ValuOp::MadF, VF),
        VMadmkF32 => valu(ValuOp::MadF, VF | K_SRC1),
        VMadakF32 => valu(ValuOp::MadF, VF | K_SRC2),
        VFmaF32 => valu(ValuOp::FmaF, VF),
        VMin3F32 => valu(ValuOp::Min3F, VF),
        VMax3F32 => valu(ValuOp::Max3F, VF),
        VMed3F32 => valu(ValuOp::Med3F, VF),
        VLdexpF32 => valu(ValuOp::LdexpF, VF),
        VDivScaleF32 => valu(ValuOp::DivScaleF, VF | MASK_DST | CARRY),
        VDivFmasF32 => valu(ValuOp::DivFmasF, VF | VCC_IN),
        VDivFixupF32 => valu(ValuOp::DivFixupF, VF),
        VCmpClassF32 => valu(ValuOp::CmpClassF, VCF),
        VCmpFF32 => valu(ValuOp::CmpFalseF, VCF),
        VCmpLtF32 => valu(ValuOp::CmpLtF, VCF),
        VCmpEqF32 => valu(ValuOp::CmpEqF, VCF),
        VCmpLeF32 => valu(ValuOp::CmpLeF, VCF),
        VCmpGtF32 => valu(ValuOp::CmpGtF, VCF),
        VCmpLgF32 => valu(ValuOp::CmpLgF, VCF),
        VCmpGeF32 => valu(ValuOp::CmpGeF, VCF),
        VCmpOF32 => valu(ValuOp::CmpOF, VCF),
        VCmpUF32 => valu(ValuOp::CmpUF, VCF),
        VCmpNgeF32 => valu(ValuOp::CmpNgeF, VCF),
        VCmpNlgF32 => valu(ValuOp::CmpNlgF, VCF),
        VCmpNgtF32 => valu(ValuOp::CmpNgtF, VCF),
        VCmpNleF32 => valu(ValuOp::CmpNleF, VCF),
        VCmpNeqF32 => valu(ValuOp::CmpNeqF, VCF),
        VCmpNltF32 => valu(ValuOp::CmpNltF, VCF),
        VCmpTruF32 => valu(ValuOp::CmpTrueF, VCF),
        VCmpxClassF32 => valu(ValuOp::CmpClassF, VCXF),
        VCmpxFF32 => valu(ValuOp::CmpFalseF, VCXF),
        VCmpxLtF32 => valu(ValuOp::CmpLtF, VCXF),
        VCmpxEqF32 => valu(ValuOp::CmpEqF, VCXF),
        VCmpxLeF32 => valu(ValuOp::CmpLeF, VCXF),
        VCmpxGtF32 => valu(ValuOp::CmpGtF, VCXF),
        VCmpxLgF32 => valu(ValuOp::CmpLgF, VCXF),
        VCmpxGeF32 => valu(ValuOp::CmpGeF, VCXF),
        VCmpxOF32 => valu(ValuOp::CmpOF, VCXF),
        VCmpxUF32 => valu(ValuOp::CmpUF, VCXF),
        VCmpxNgeF32 => valu(ValuOp::CmpNgeF, VCXF),
        VCmpxNlgF32 => valu(ValuOp::CmpNlgF, VCXF),
        VCmpxNgtF32 => valu(ValuOp::CmpNgtF, VCXF),
        VCmpxNleF32 => valu(ValuOp::CmpNleF, VCXF),
        VCmpxNeqF32 => valu(ValuOp::CmpNeqF, VCXF),
        VCmpxNltF32 => valu(ValuOp::CmpNltF, VCXF),
        VCmpxTruF32 => valu(ValuOp::CmpTrueF, VCXF),
        VExpF32 => valu(ValuOp::ExpF, VF),
        VLogF32 => valu(ValuOp::LogF, VF),
        VSinF32 => valu(ValuOp::SinF, VF),
        VCosF32 => valu(ValuOp::CosF, VF),
        _ => return None,
    };
    if opcode.sign_extends_literal64() {
        op.flags |= LIT_SEXT;
    }
    if opcode.is_modular16() {
        op.flags |= H16_MOD;
    }
    Some(op)
}

/// Width of a decode-ROM address: a 4-bit format id and a 10-bit opcode.
pub const KEY_BITS: usize = 14;

/// The 4-bit id the format detector gives each format (0: none).
pub fn format_id(format: Format) -> u64 {
    match format {
        Format::Sop1 => 1,
        Format::Sop2 => 2,
        Format::Sopk => 3,
        Format::Sopc => 4,
        Format::Sopp => 5,
        Format::Smem => 6,
        Format::Vop1 => 7,
        Format::Vop2 => 8,
        Format::Vopc => 9,
        Format::Vop3 => 10,
        Format::Flat => 11,
        Format::Ds => 12,
        Format::Mubuf => 13,
    }
}

/// Every (ROM address, micro-op) pair: each supported opcode at its native encoding, and
/// vector ALU opcodes with an `_e64` form also at their VOP3 number.
pub fn rom_contents() -> Vec<(u64, MicroOp)> {
    let mut rows = Vec::new();
    for info in OPCODES {
        let Some(uop) = micro_op(info.opcode) else {
            continue;
        };
        rows.push((format_id(info.format) << 10 | u64::from(info.code), uop));
        if info.opcode.has_vop3_form() {
            let code = info
                .opcode
                .vop3_code()
                .expect("VOP1/VOP2/VOPC have a VOP3 number");
            rows.push((format_id(Format::Vop3) << 10 | u64::from(code), uop));
        }
    }
    rows
}

fn rom<D: Synth>(field: impl Fn(&MicroOp) -> D) -> ROM<D, KEY_BITS> {
    let values: BTreeMap<Bits<KEY_BITS>, D> = rom_contents()
        .iter()
        .map(|(key, uop)| (Bits::<KEY_BITS>::from(*key), field(uop)))
        .collect();
    ROM::new(values)
}

/// One source operand field: register class and number, or the constant's value as an operand
/// of the given width reads it.
#[derive(LogicBlock, Default)]
pub struct OperandDecoder {
    /// The 9-bit source code (SGPR-class codes below 256, VGPRs at 256 + n).
    pub code_i: Signal<In, Bits<9>>,
    /// The operand is read as 64 bits.
    pub wide_i: Signal<In, Bit>,
    /// A 64-bit operand is a signed integer: a literal is sign-extended (else zero-extended).
    pub sext_literal_i: Signal<In, Bit>,
    /// The operand is a half of a 16-bit integer op: an inline float constant is its f16
    /// value (0.5 is 0x3800), as gfx8 reads it for 16-bit instructions.
    pub half_i: Signal<In, Bit>,
    /// The literal dword after the instruction.
    pub literal_i: Signal<In, Bits<32>>,
    pub kind_o: Signal<Out, SrcKind>,
    pub sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub const_o: Signal<Out, Bits<32>>,
    pub const_hi_o: Signal<Out, Bits<32>>,
    /// The code names an operand the compute unit implements.
    pub legal_o: Signal<Out, Bit>,
    /// The code is a literal: the instruction is two words long.
    pub literal_o: Signal<Out, Bit>,
}

impl Logic for OperandDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.kind_o.next = SrcKind::Const;
        self.sgpr_o.next = self.code_i.val().get_bits::<SGPR_ADDR_BITS>(0);
        self.vgpr_o.next = self.code_i.val().get_bits::<VGPR_ADDR_BITS>(0);
        self.const_o.next = 0.into();
        self.const_hi_o.next = 0.into();
        self.legal_o.next = true;
        self.literal_o.next = false;
        if self.code_i.val() >= 256 {
            self.kind_o.next = SrcKind::Vgpr;
        } else if self.code_i.val() <= 101 {
            self.kind_o.next = SrcKind::Sgpr;
        } else if (self.code_i.val() >= 129) & (self.code_i.val() <= 192) {
            self.const_o.next = bit_cast::<32, 9>(self.code_i.val() - 128);
        } else if (self.code_i.val() >= 193) & (self.code_i.val() <= 208) {
            // -(code - 192) = !(code - 193) in two's complement.
            self.const_o.next = !bit_cast::<32, 9>(self.code_i.val() - 193);
            self.const_hi_o.next = 0xFFFF_FFFF_u64.into();
        } else {
            match self.code_i.val().index() {
                106 => self.kind_o.next = SrcKind::VccLo,
                107 => self.kind_o.next = SrcKind::VccHi,
                124 => self.kind_o.next = SrcKind::M0,
                126 => self.kind_o.next = SrcKind::ExecLo,
                127 => self.kind_o.next = SrcKind::ExecHi,
                128 => {}
                240 => {
                    self.const_o.next = 0x3F00_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0x3FE0_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0x3800_u64.into();
                    }
                }
                241 => {
                    self.const_o.next = 0xBF00_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0xBFE0_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0xB800_u64.into();
                    }
                }
                242 => {
                    self.const_o.next = 0x3F80_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0x3FF0_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0x3C00_u64.into();
                    }
                }
                243 => {
                    self.const_o.next = 0xBF80_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0xBFF0_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0xBC00_u64.into();
                    }
                }
                244 => {
                    self.const_o.next = 0x4000_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0x4000_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0x4000_u64.into();
                    }
                }
                245 => {
                    self.const_o.next = 0xC000_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0xC000_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0xC000_u64.into();
                    }
                }
                246 => {
                    self.const_o.next = 0x4080_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0x4010_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0x4400_u64.into();
                    }
                }
                247 => {
                    self.const_o.next = 0xC080_0000_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0.into();
                        self.const_hi_o.next = 0xC010_0000_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0xC400_u64.into();
                    }
                }
                248 => {
                    self.const_o.next = 0x3E22_F983_u64.into();
                    if self.wide_i.val() {
                        self.const_o.next = 0x6DC9_C882_u64.into();
                        self.const_hi_o.next = 0x3FC4_5F30_u64.into();
                    }
                    if self.half_i.val() {
                        self.const_o.next = 0x3118_u64.into();
                    }
                }
                251 => self.kind_o.next = SrcKind::Vccz,
                252 => self.kind_o.next = SrcKind::Execz,
                253 => self.kind_o.next = SrcKind::Scc,
                255 => {
                    self.literal_o.next = true;
                    self.const_o.next = self.literal_i.val();
                    if self.sext_literal_i.val() & self.literal_i.val().get_bit(31) {
                        self.const_hi_o.next = 0xFFFF_FFFF_u64.into();
                    }
                }
                _ => self.legal_o.next = false,
            }
        }
    }
}

/// A 7-bit scalar destination code: SGPR number or special register.
#[derive(LogicBlock, Default)]
pub struct DstDecoder {
    pub code_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub kind_o: Signal<Out, DstKind>,
    pub sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub legal_o: Signal<Out, Bit>,
    /// `flat_scratch_lo`/`_hi` (kind `None`: the write is discarded). FLAT_SCRATCH configures
    /// FLAT's private aperture, which pws's FLAT instructions do not address; clang's
    /// prologue writes it in every kernel with private memory.
    pub flat_scratch_o: Signal<Out, Bit>,
}

impl Logic for DstDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.sgpr_o.next = self.code_i.val();
        self.kind_o.next = DstKind::None;
        self.legal_o.next = true;
        self.flat_scratch_o.next = false;
        if self.code_i.val() <= 101 {
            self.kind_o.next = DstKind::Sgpr;
        } else {
            match self.code_i.val().index() {
                102 => self.flat_scratch_o.next = true,
                103 => self.flat_scratch_o.next = true,
                106 => self.kind_o.next = DstKind::VccLo,
                107 => self.kind_o.next = DstKind::VccHi,
                124 => self.kind_o.next = DstKind::M0,
                126 => self.kind_o.next = DstKind::ExecLo,
                127 => self.kind_o.next = DstKind::ExecHi,
                _ => self.legal_o.next = false,
            }
        }
    }
}

/// The decode stage (see the module documentation). Outputs follow CU-SPEC's decoder
/// section; fields that an instruction's format does not have read as 0 / `None`.
#[derive(LogicBlock)]
pub struct Decoder {
    /// The dword at the PC.
    pub word0_i: Signal<In, Bits<32>>,
    /// The dword after it (a literal, or the second half of a 64-bit encoding).
    pub word1_i: Signal<In, Bits<32>>,
    pub legal_o: Signal<Out, Bit>,
    /// Instruction length in dwords (1 or 2).
    pub size_o: Signal<Out, Bits<2>>,
    pub class_o: Signal<Out, InstClass>,
    pub salu_op_o: Signal<Out, SaluOp>,
    pub valu_op_o: Signal<Out, ValuOp>,
    /// Vector operands the op reads (1 to 3, `ValuOp::sources`), from the decode ROM so that
    /// no list of operations can fall behind the ALU's.
    pub nsrc_o: Signal<Out, Bits<2>>,
    pub branch_o: Signal<Out, BranchCond>,
    /// SOPP/SOPK 16-bit field (branch offset in dwords from the next instruction).
    pub simm16_o: Signal<Out, Bits<16>>,
    /// 64-bit scalar operation (`S_WIDE`): the scalar ALU works on 64 bits.
    pub wide_o: Signal<Out, Bit>,
    /// `ssrc0` is read as 64 bits (`S_WIDE` without `A32`).
    pub src0_wide_o: Signal<Out, Bit>,
    /// The scalar destination is 64 bits (`S_WIDE` without `D32`).
    pub dst_wide_o: Signal<Out, Bit>,
    /// `ssrc1` is 64-bit too.
    pub wide1_o: Signal<Out, Bit>,
    pub ssrc0_kind_o: Signal<Out, SrcKind>,
    pub ssrc0_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub ssrc0_const_o: Signal<Out, Bits<32>>,
    pub ssrc0_const_hi_o: Signal<Out, Bits<32>>,
    pub ssrc1_kind_o: Signal<Out, SrcKind>,
    pub ssrc1_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub ssrc1_const_o: Signal<Out, Bits<32>>,
    pub ssrc1_const_hi_o: Signal<Out, Bits<32>>,
    pub sdst_kind_o: Signal<Out, DstKind>,
    pub sdst_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    /// Vector sources in ALU order (`*rev` and 64-bit shifts already swapped).
    pub vsrc_is_vgpr_o: Vec<Signal<Out, Bit>>,
    pub vsrc_vgpr_o: Vec<Signal<Out, Bits<VGPR_ADDR_BITS>>>,
    pub vsrc_kind_o: Vec<Signal<Out, SrcKind>>,
    pub vsrc_sgpr_o: Vec<Signal<Out, Bits<SGPR_ADDR_BITS>>>,
    pub vsrc_const_o: Vec<Signal<Out, Bits<32>>>,
    pub vsrc_const_hi_o: Vec<Signal<Out, Bits<32>>>,
    /// Vector source n (after the swap) is a 64-bit value.
    pub vsrc_wide_o: Vec<Signal<Out, Bit>>,
    pub vdst_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub writes_vgpr_o: Signal<Out, Bit>,
    pub mask_dst_kind_o: Signal<Out, DstKind>,
    pub mask_dst_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    /// The mask destination is one 32-bit SGPR (a read lane access's result).
    pub mask_dst32_o: Signal<Out, Bit>,
    /// A lane access (`flags::LANE`): enable one lane, source 1's or (`lane_first_o`) the
    /// lowest active one.
    pub lane_o: Signal<Out, Bit>,
    pub lane_first_o: Signal<Out, Bit>,
    pub writes_exec_o: Signal<Out, Bit>,
    /// Carry-in / select mask: `None`-like `Const` when the op reads none.
    pub reads_mask_o: Signal<Out, Bit>,
    pub mask_src_kind_o: Signal<Out, SrcKind>,
    pub mask_src_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub mem_store_o: Signal<Out, Bit>,
    /// Dwords per lane (FLAT) or in all (SMEM): 1, 2, 3, 4, 8 or 16.
    pub mem_dwords_o: Signal<Out, Bits<5>>,
    /// FLAT access size: 0 dwords, 1 a byte, 2 a 16-bit half per lane.
    pub mem_size_o: Signal<Out, Bits<2>>,
    /// A byte or half load sign-extends.
    pub mem_signed_o: Signal<Out, Bit>,
    /// SMEM byte offset (when `smem_offset_is_sgpr_o` is low).
    pub smem_offset_o: Signal<Out, Bits<32>>,
    /// SMEM offset comes from SGPR `smem_offset_o[6:0]`.
    pub smem_offset_is_sgpr_o: Signal<Out, Bit>,
    pub sbase_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    /// FLAT address VGPR pair (first register), DS address VGPR.
    pub addr_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// FLAT store or atomic data VGPR (first register); DS DATA0 (DATA1 for `ds_cmpst`).
    pub data_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// DS DATA1 (DATA0 for `ds_cmpst`): the second operand of `write2` and two-operand atomics.
    pub data1_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// The atomic's read-modify-write (`lsu::rmw`; 0: a plain load or store).
    pub mem_rmw_o: Signal<Out, Bits<4>>,
    /// The memory instruction writes data back to `vdst_o`: loads, DS reads, FLAT atomics with
    /// `glc`, the DS `_rtn` atomics.
    pub mem_ret_o: Signal<Out, Bit>,
    /// DS `offset0` and `offset1` (one 16-bit offset `offset1:offset0` for single-address forms).
    pub ds_offset0_o: Signal<Out, Bits<8>>,
    pub ds_offset1_o: Signal<Out, Bits<8>>,
    /// A MUBUF access: SRSRC's base pair is `sbase_sgpr_o` (read as the SMEM base), SOFFSET
    /// source 2 (`vsrc*_o[2]`), VADDR `addr_vgpr_o`; its OFFSET and OFFEN are the low bits
    /// of `ds_offset0_o`/`ds_offset1_o` (the first word's bits 12:0, where DS has its offsets).
    pub mubuf_o: Signal<Out, Bit>,
    /// `ds_read2*` / `ds_write2*`, and their `st64` forms.
    pub ds_two_o: Signal<Out, Bit>,
    pub ds_st64_o: Signal<Out, Bit>,
    /// VOP3 modifiers of an f32 op in ALU operand order (`simd::fpu::fmod_word`); 0 for
    /// every other instruction.
    pub fmod_o: Signal<Out, Bits<FMOD_BITS>>,
    /// The SDWA control word in ALU operand order (`simd::sdwa::sdwa_word`); 0 for every
    /// instruction not encoded as SDWA.
    pub sdwa_o: Signal<Out, Bits<SDWA_BITS>>,
    class_rom: ROM<InstClass, KEY_BITS>,
    salu_rom: ROM<SaluOp, KEY_BITS>,
    valu_rom: ROM<ValuOp, KEY_BITS>,
    nsrc_rom: ROM<Bits<2>, KEY_BITS>,
    flags_rom: ROM<Bits<FLAG_BITS>, KEY_BITS>,
    src: Vec<OperandDecoder>,
    sdst: DstDecoder,
    mask_dst: DstDecoder,
    fmt: Signal<Local, Bits<4>>,
    /// Decode-ROM address `format_id << 10 | opcode`, built by addition in each format's branch.
    key: Signal<Local, Bits<KEY_BITS>>,
    fl: Signal<Local, Bits<FLAG_BITS>>,
    simm: Signal<Local, Bits<32>>,
    swap: Signal<Local, Bit>,
    ops_legal: Signal<Local, Bit>,
    has_literal: Signal<Local, Bit>,
    /// Modifiers or register fields the RTL does not implement.
    bad_fields: Signal<Local, Bit>,
    has_sdst: Signal<Local, Bit>,
    /// The modifier word in assembler operand order.
    fm: Signal<Local, Bits<FMOD_BITS>>,
    /// VOP1/VOP2/VOPC with SRC0 = 0xF9: SDWA, its fields in the second dword.
    sdwa_on: Signal<Local, Bit>,
    /// The instruction's `clamp` saturates (`flags::SAT_CLAMP`).
    sat: Signal<Local, Bit>,
    /// The SDWA fields in ALU operand order (`sdwa_o`'s parts): DST_SEL, DST_UNUSED, and the
    /// select with its sign extension (bit 3) of operands a and b.
    sd_dst: Signal<Local, Bits<3>>,
    sd_unused: Signal<Local, Bits<2>>,
    sd_a: Signal<Local, Bits<4>>,
    sd_b: Signal<Local, Bits<4>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            word0_i: Default::default(),
            word1_i: Default::default(),
            legal_o: Default::default(),
            size_o: Default::default(),
            class_o: Default::default(),
            salu_op_o: Default::default(),
            valu_op_o: Default::default(),
            nsrc_o: Default::default(),
            branch_o: Default::default(),
            simm16_o: Default::default(),
            wide_o: Default::default(),
            src0_wide_o: Default::default(),
            dst_wide_o: Default::default(),
            wide1_o: Default::default(),
            ssrc0_kind_o: Default::default(),
            ssrc0_sgpr_o: Default::default(),
            ssrc0_const_o: Default::default(),
            ssrc0_const_hi_o: Default::default(),
            ssrc1_kind_o: Default::default(),
            ssrc1_sgpr_o: Default::default(),
            ssrc1_const_o: Default::default(),
            ssrc1_const_hi_o: Default::default(),
            sdst_kind_o: Default::default(),
            sdst_sgpr_o: Default::default(),
            vsrc_is_vgpr_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_vgpr_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_kind_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_sgpr_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_const_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_const_hi_o: (0..3).map(|_| Default::default()).collect(),
            vsrc_wide_o: (0..3).map(|_| Default::default()).collect(),
            vdst_o: Default::default(),
            writes_vgpr_o: Default::default(),
            mask_dst_kind_o: Default::default(),
            mask_dst_sgpr_o: Default::default(),
            mask_dst32_o: Default::default(),
            lane_o: Default::default(),
            lane_first_o: Default::default(),
            writes_exec_o: Default::default(),
            reads_mask_o: Default::default(),
            mask_src_kind_o: Default::default(),
            mask_src_sgpr_o: Default::default(),
            mem_store_o: Default::default(),
            mem_dwords_o: Default::default(),
            mem_size_o: Default::default(),
            mem_signed_o: Default::default(),
            smem_offset_o: Default::default(),
            smem_offset_is_sgpr_o: Default::default(),
            sbase_sgpr_o: Default::default(),
            addr_vgpr_o: Default::default(),
            data_vgpr_o: Default::default(),
            data1_vgpr_o: Default::default(),
            mem_rmw_o: Default::default(),
            mem_ret_o: Default::default(),
            ds_offset0_o: Default::default(),
            ds_offset1_o: Default::default(),
            mubuf_o: Default::default(),
            ds_two_o: Default::default(),
            ds_st64_o: Default::default(),
            fmod_o: Default::default(),
            sdwa_o: Default::default(),
            class_rom: rom(|u| u.class),
            salu_rom: rom(|u| u.salu),
            valu_rom: rom(|u| u.valu),
            nsrc_rom: rom(|u| Bits::<2>::from(u.valu.sources() as u64)),
            flags_rom: rom(|u| Bits::<FLAG_BITS>::from(u.flags)),
            src: (0..3).map(|_| OperandDecoder::default()).collect(),
            sdst: Default::default(),
            mask_dst: Default::default(),
            fmt: Default::default(),
            key: Default::default(),
            fl: Default::default(),
            simm: Default::default(),
            swap: Default::default(),
            ops_legal: Default::default(),
            has_literal: Default::default(),
            bad_fields: Default::default(),
            has_sdst: Default::default(),
            fm: Default::default(),
            sdwa_on: Default::default(),
            sat: Default::default(),
            sd_dst: Default::default(),
            sd_unused: Default::default(),
            sd_a: Default::default(),
            sd_b: Default::default(),
        }
    }
}

// hdl_gen has no match guards, so SOPK's register read stays an `if` inside its arm.
#[allow(clippy::collapsible_match)]
impl Logic for Decoder {
    #[hdl_gen]
    fn update(&mut self) {
        // 1. Format and ROM key (format ids: see `format_id`). SOP1/SOPC/SOPP share SOPK's
        // 0b1011 prefix and VOP1/VOPC share VOP2's leading 0, so the longer prefixes are tested
        // first.
        self.fmt.next = 0.into();
        self.key.next = 0.into();
        if self.word0_i.val().get_bits::<9>(23) == 0x17D {
            self.fmt.next = 1.into();
            self.key.next = bit_cast::<KEY_BITS, 8>(self.word0_i.val().get_bits::<8>(8)) + 1024;
        } else if self.word0_i.val().get_bits::<9>(23) == 0x17E {
            self.fmt.next = 4.into();
            self.key.next = bit_cast::<KEY_BITS, 7>(self.word0_i.val().get_bits::<7>(16)) + 4096;
        } else if self.word0_i.val().get_bits::<9>(23) == 0x17F {
            self.fmt.next = 5.into();
            self.key.next = bit_cast::<KEY_BITS, 7>(self.word0_i.val().get_bits::<7>(16)) + 5120;
        } else if self.word0_i.val().get_bits::<4>(28) == 0xB {
            self.fmt.next = 3.into();
            self.key.next = bit_cast::<KEY_BITS, 5>(self.word0_i.val().get_bits::<5>(23)) + 3072;
        } else if self.word0_i.val().get_bits::<2>(30) == 2 {
            self.fmt.next = 2.into();
            self.key.next = bit_cast::<KEY_BITS, 7>(self.word0_i.val().get_bits::<7>(23)) + 2048;
        } else if self.word0_i.val().get_bits::<6>(26) == 0x30 {
            self.fmt.next = 6.into();
            self.key.next = bit_cast::<KEY_BITS, 8>(self.word0_i.val().get_bits::<8>(18)) + 6144;
        } else if self.word0_i.val().get_bits::<7>(25) == 0x3F {
            self.fmt.next = 7.into();
            self.key.next = bit_cast::<KEY_BITS, 8>(self.word0_i.val().get_bits::<8>(9)) + 7168;
        } else if self.word0_i.val().get_bits::<7>(25) == 0x3E {
            self.fmt.next = 9.into();
            self.key.next = bit_cast::<KEY_BITS, 8>(self.word0_i.val().get_bits::<8>(17)) + 9216;
        } else if self.word0_i.val().get_bits::<6>(26) == 0x34 {
            self.fmt.next = 10.into();
            self.key.next = bit_cast::<KEY_BITS, 10>(self.word0_i.val().get_bits::<10>(16)) + 10240;
        } else if self.word0_i.val().get_bits::<6>(26) == 0x36 {
            self.fmt.next = 12.into();
            self.key.next = bit_cast::<KEY_BITS, 8>(self.word0_i.val().get_bits::<8>(17)) + 12288;
        } else if self.word0_i.val().get_bits::<6>(26) == 0x37 {
            self.fmt.next = 11.into();
            self.key.next = bit_cast::<KEY_BITS, 7>(self.word0_i.val().get_bits::<7>(18)) + 11264;
        } else if self.word0_i.val().get_bits::<6>(26) == 0x38 {
            self.fmt.next = 13.into();
            self.key.next = bit_cast::<KEY_BITS, 7>(self.word0_i.val().get_bits::<7>(18)) + 13312;
        } else if !self.word0_i.val().get_bit(31) {
            self.fmt.next = 8.into();
            self.key.next = bit_cast::<KEY_BITS, 6>(self.word0_i.val().get_bits::<6>(25)) + 8192;
        }

        // 2. The decode ROM.
        self.class_rom.address.next = self.key.val();
        self.salu_rom.address.next = self.key.val();
        self.valu_rom.address.next = self.key.val();
        self.nsrc_rom.address.next = self.key.val();
        self.flags_rom.address.next = self.key.val();
        self.fl.next = self.flags_rom.data.val();
        self.class_o.next = self.class_rom.data.val();
        self.salu_op_o.next = self.salu_rom.data.val();
        self.valu_op_o.next = self.valu_rom.data.val();
        self.nsrc_o.next = self.nsrc_rom.data.val();
        self.wide_o.next = self.fl.val().get_bit(0);
        self.src0_wide_o.next = self.fl.val().get_bit(0) & !self.fl.val().get_bit(16);
        self.dst_wide_o.next = self.fl.val().get_bit(0) & !self.fl.val().get_bit(15);
        self.wide1_o.next = self.fl.val().get_bit(1);
        self.swap.next = self.fl.val().get_bit(3);
        self.writes_vgpr_o.next = self.fl.val().get_bit(4);
        self.writes_exec_o.next = self.fl.val().get_bit(6);
        self.reads_mask_o.next = self.fl.val().get_bit(7) | self.fl.val().get_bit(27);
        self.mem_store_o.next = self.fl.val().get_bit(9);
        self.mem_dwords_o.next = 1.into();
        if self.fl.val().get_bit(10) {
            self.mem_dwords_o.next = 2.into();
        }
        if self.fl.val().get_bit(19) {
            self.mem_dwords_o.next = 3.into();
        }
        if self.fl.val().get_bit(11) {
            self.mem_dwords_o.next = 4.into();
        }
        if self.fl.val().get_bit(20) {
            self.mem_dwords_o.next = 8.into();
        }
        if self.fl.val().get_bit(21) {
            self.mem_dwords_o.next = 16.into();
        }
        self.mem_size_o.next = 0.into();
        if self.fl.val().get_bit(22) {
            self.mem_size_o.next = 1.into();
        }
        if self.fl.val().get_bit(23) {
            self.mem_size_o.next = 2.into();
        }
        self.mem_signed_o.next = self.fl.val().get_bit(24);
        self.mem_rmw_o.next = self.fl.val().get_bits::<4>(28);
        self.mubuf_o.next = self.fl.val().get_bit(43);
        self.lane_o.next = self.fl.val().get_bit(44);
        self.lane_first_o.next = self.fl.val().get_bit(45);
        self.mask_dst32_o.next = self.fl.val().get_bit(46);
        self.ds_two_o.next = self.fl.val().get_bit(32);
        self.ds_st64_o.next = self.fl.val().get_bit(33);
        self.ds_offset0_o.next = self.word0_i.val().get_bits::<8>(0);
        self.ds_offset1_o.next = self.word0_i.val().get_bits::<8>(8);
        // A FLAT atomic returns the old value only with `glc` (bit 16); loads always return.
        self.mem_ret_o.next = self.fl.val().get_bit(4);
        if (self.fmt.val() == 11) | (self.fmt.val() == 13) {
            self.mem_ret_o.next = !self.fl.val().get_bit(9);
            if self.fl.val().get_bits::<4>(28).any() {
                self.mem_ret_o.next = self.word0_i.val().get_bit(16);
            }
        }

        // 3. Operand fields by format.
        self.simm16_o.next = self.word0_i.val().get_bits::<16>(0);
        self.simm.next = bit_cast::<32, 16>(self.word0_i.val().get_bits::<16>(0));
        if self.word0_i.val().get_bit(15) & !self.fl.val().get_bit(12) {
            self.simm.next =
                bit_cast::<32, 16>(self.word0_i.val().get_bits::<16>(0)) | 0xFFFF_0000_u64;
        }
        for n in 0..3 {
            self.src[n].literal_i.next = self.word1_i.val();
            self.src[n].code_i.next = 0.into();
            self.src[n].wide_i.next = false;
            self.src[n].half_i.next = self.fl.val().get_bit(39);
            self.src[n].sext_literal_i.next = self.fl.val().get_bit(47);
        }
        self.src[0].wide_i.next =
            (self.fl.val().get_bit(0) & !self.fl.val().get_bit(16)) | self.fl.val().get_bit(17);
        self.src[1].wide_i.next = self.fl.val().get_bit(1) | self.fl.val().get_bit(2);
        self.src[2].wide_i.next = self.fl.val().get_bit(7) | self.fl.val().get_bit(18);
        self.sdst.code_i.next = self.word0_i.val().get_bits::<7>(16);
        self.mask_dst.code_i.next = 106.into();
        self.vdst_o.next = self.word0_i.val().get_bits::<8>(17);
        self.addr_vgpr_o.next = self.word1_i.val().get_bits::<8>(0);
        self.data_vgpr_o.next = self.word1_i.val().get_bits::<8>(8);
        self.data1_vgpr_o.next = self.word1_i.val().get_bits::<8>(16);
        if self.fl.val().get_bit(34) {
            self.data_vgpr_o.next = self.word1_i.val().get_bits::<8>(16);
            self.data1_vgpr_o.next = self.word1_i.val().get_bits::<8>(8);
        }
        // The SBASE field counts SGPR pairs (x + x: rust-hdl simulates shifts through BigUint).
        self.sbase_sgpr_o.next = bit_cast::<SGPR_ADDR_BITS, 6>(self.word0_i.val().get_bits::<6>(0))
            + bit_cast::<SGPR_ADDR_BITS, 6>(self.word0_i.val().get_bits::<6>(0));
        self.smem_offset_o.next = bit_cast::<32, 20>(self.word1_i.val().get_bits::<20>(0));
        self.smem_offset_is_sgpr_o.next = !self.word0_i.val().get_bit(17);
        self.bad_fields.next = false;
        self.sat.next = false;
        self.fm.next = 0.into();
        self.has_literal.next = false;
        self.ops_legal.next =
            self.src[0].legal_o.val() & self.src[1].legal_o.val() & self.src[2].legal_o.val();
        match self.fmt.val().index() {
            1 => {
                self.src[0].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(0));
                self.has_literal.next = self.src[0].literal_o.val();
                // s_bitset*: the destination register is read too, as ssrc0.
                if self.fl.val().get_bit(13) {
                    self.src[0].code_i.next =
                        bit_cast::<9, 7>(self.word0_i.val().get_bits::<7>(16));
                    self.src[1].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(0));
                    self.has_literal.next = self.src[1].literal_o.val();
                }
            }
            2 => {
                self.src[0].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(0));
                self.src[1].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(8));
                self.has_literal.next = self.src[0].literal_o.val() | self.src[1].literal_o.val();
            }
            4 => {
                self.src[0].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(0));
                self.src[1].code_i.next = bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(8));
                self.has_literal.next = self.src[0].literal_o.val() | self.src[1].literal_o.val();
            }
            3 => {
                if self.fl.val().get_bit(13) {
                    self.src[0].code_i.next =
                        bit_cast::<9, 7>(self.word0_i.val().get_bits::<7>(16));
                }
                // s_setreg_imm32_b32 (SOPK 0x14): its value is a literal dword.
                self.has_literal.next = self.word0_i.val().get_bits::<5>(23) == 0x14;
            }
            6 => {
                self.sdst.code_i.next = self.word0_i.val().get_bits::<7>(6);
                // The base pair and an offset register must be SGPRs (not ttmp/flat_scratch).
                self.bad_fields.next = (self.word0_i.val().get_bits::<6>(0) > 50)
                    | (!self.word0_i.val().get_bit(17)
                        & (self.word1_i.val().get_bits::<8>(0) > 101));
            }
            7 => {
                self.src[0].code_i.next = self.word0_i.val().get_bits::<9>(0);
                self.has_literal.next = self.src[0].literal_o.val();
                // v_readfirstlane_b32: the scalar destination is in VDST (bits 24:17).
                if self.fl.val().get_bit(46) {
                    self.mask_dst.code_i.next = self.word0_i.val().get_bits::<7>(17);
                    self.bad_fields.next = self.word0_i.val().get_bit(24);
                }
            }
            8 => {
                self.src[0].code_i.next = self.word0_i.val().get_bits::<9>(0);
                self.src[1].code_i.next =
                    bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(9)) | 0x100;
                if self.fl.val().get_bit(26) {
                    self.src[2].code_i.next =
                        bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(17)) | 0x100;
                }
                // v_madmk_f32 / v_madak_f32: the constant K is the literal dword after them
                // (code 255), whatever src0 is.
                if self.fl.val().get_bit(35) {
                    self.src[1].code_i.next = 255.into();
                    self.src[2].code_i.next =
                        bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(9)) | 0x100;
                }
                if self.fl.val().get_bit(36) {
                    self.src[2].code_i.next = 255.into();
                }
                self.has_literal.next = self.src[0].literal_o.val()
                    | self.src[1].literal_o.val()
                    | self.src[2].literal_o.val();
            }
            9 => {
                self.src[0].code_i.next = self.word0_i.val().get_bits::<9>(0);
                self.src[1].code_i.next =
                    bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(9)) | 0x100;
                self.has_literal.next = self.src[0].literal_o.val();
            }
            10 => {
                self.src[0].code_i.next = self.word1_i.val().get_bits::<9>(0);
                self.src[1].code_i.next = self.word1_i.val().get_bits::<9>(9);
                self.src[2].code_i.next = self.word1_i.val().get_bits::<9>(18);
                self.vdst_o.next = self.word0_i.val().get_bits::<8>(0);
                // VOP3b (carry ops) keeps its mask destination where VOP3a has abs. The
                // modifiers are implemented for the f32 ops, and abs/neg for `v_cndmask_b32`.
                self.bad_fields.next = !self.fl.val().get_bit(25)
                    & !self.fl.val().get_bit(37)
                    & ((self.word0_i.val().get_bit(15) & !self.fl.val().get_bit(38))
                        | (self.word1_i.val().get_bits::<5>(27) != 0)
                        | (!self.fl.val().get_bit(8) & (self.word0_i.val().get_bits::<3>(8) != 0)));
                if self.fl.val().get_bit(38) & self.word0_i.val().get_bit(15) {
                    self.sat.next = true;
                }
                if self.fl.val().get_bit(37)
                    & (self.word0_i.val().get_bit(15) | (self.word1_i.val().get_bits::<2>(27) != 0))
                {
                    self.bad_fields.next = true;
                }
                if self.fl.val().get_bit(25) | self.fl.val().get_bit(37) {
                    // VOP3b (`v_div_scale_f32`) has no abs field: its bits are the sdst.
                    self.fm.next = (bit_cast::<FMOD_BITS, 3>(self.word1_i.val().get_bits::<3>(29))
                        << 3)
                        | (bit_cast::<FMOD_BITS, 2>(self.word1_i.val().get_bits::<2>(27)) << 6);
                    if !self.fl.val().get_bit(8) {
                        self.fm.next = self.fm.val()
                            | bit_cast::<FMOD_BITS, 3>(self.word0_i.val().get_bits::<3>(8));
                    }
                    if self.word0_i.val().get_bit(15) {
                        self.fm.next = self.fm.val() | 0x100_u64;
                    }
                }
                if self.fl.val().get_bit(26) {
                    self.src[2].code_i.next =
                        bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(0)) | 0x100;
                }
                if self.fl.val().get_bit(8) {
                    self.mask_dst.code_i.next = self.word0_i.val().get_bits::<7>(8);
                } else {
                    self.mask_dst.code_i.next = self.word0_i.val().get_bits::<7>(0);
                    if self.word0_i.val().get_bit(7) & self.fl.val().get_bit(5) {
                        self.bad_fields.next = true;
                    }
                }
            }
            11 => {
                self.vdst_o.next = self.word1_i.val().get_bits::<8>(24);
            }
            12 => {
                self.vdst_o.next = self.word1_i.val().get_bits::<8>(24);
                // `gds` (bit 16) addresses the global data share, which pws does not have.
                self.bad_fields.next = self.word0_i.val().get_bit(16);
            }
            13 => {
                // VDATA is the load's destination or the store's data; SRSRC counts SGPR
                // quads (x + x + x + x: shifts simulate through BigUint); SOFFSET is an 8-bit
                // scalar source without a literal.
                self.vdst_o.next = self.word1_i.val().get_bits::<8>(8);
                self.sbase_sgpr_o.next =
                    bit_cast::<SGPR_ADDR_BITS, 5>(self.word1_i.val().get_bits::<5>(16))
                        + bit_cast::<SGPR_ADDR_BITS, 5>(self.word1_i.val().get_bits::<5>(16))
                        + bit_cast::<SGPR_ADDR_BITS, 5>(self.word1_i.val().get_bits::<5>(16))
                        + bit_cast::<SGPR_ADDR_BITS, 5>(self.word1_i.val().get_bits::<5>(16));
                self.src[2].code_i.next = bit_cast::<9, 8>(self.word1_i.val().get_bits::<8>(24));
                // IDXEN, LDS and TFE; a resource past s[96:99] (ttmp, or no registers); a
                // literal SOFFSET.
                self.bad_fields.next = self.word0_i.val().get_bit(13)
                    | self.word0_i.val().get_bit(16)
                    | self.word1_i.val().get_bit(23)
                    | (self.word1_i.val().get_bits::<5>(16) > 24)
                    | self.src[2].literal_o.val();
            }
            _ => {}
        }

        // SDWA (VOP1/VOP2/VOPC with SRC0 = 0xF9): SRC0 is the VGPR in the second dword, and
        // a VOP1/VOP2 reads its destination as source 2 for UNUSED_PRESERVE (`simd::sdwa`).
        // The input modifiers are neg/abs of the f32 ops (as `fmod_o`) and sext of the integer
        // ones (in `sdwa_o`); clamp is implemented for the f32 ops only.
        self.sdwa_on.next = ((self.fmt.val() == 7) | (self.fmt.val() == 8) | (self.fmt.val() == 9))
            & (self.word0_i.val().get_bits::<9>(0) == 0xF9);
        self.sdwa_o.next = 0.into();
        if self.sdwa_on.val() {
            self.src[0].code_i.next = bit_cast::<9, 8>(self.word1_i.val().get_bits::<8>(0)) | 0x100;
            if self.fmt.val() != 9 {
                self.src[2].code_i.next =
                    bit_cast::<9, 8>(self.word0_i.val().get_bits::<8>(17)) | 0x100;
            }
            self.has_literal.next = false;
            self.bad_fields.next = self.fl.val().get_bit(35)
                | self.fl.val().get_bit(36)
                | (!self.fl.val().get_bit(25)
                    & ((self.word1_i.val().get_bit(13)
                        & !(self.fl.val().get_bit(38) & self.fl.val().get_bit(39)))
                        | self.word1_i.val().get_bit(20)
                        | self.word1_i.val().get_bit(21)
                        | self.word1_i.val().get_bit(28)
                        | self.word1_i.val().get_bit(29)));
            self.fm.next = 0.into();
            if self.fl.val().get_bit(25) {
                self.fm.next = bit_cast::<FMOD_BITS, 1>(self.word1_i.val().get_bits::<1>(21))
                    | (bit_cast::<FMOD_BITS, 1>(self.word1_i.val().get_bits::<1>(29)) << 1)
                    | (bit_cast::<FMOD_BITS, 1>(self.word1_i.val().get_bits::<1>(20)) << 3)
                    | (bit_cast::<FMOD_BITS, 1>(self.word1_i.val().get_bits::<1>(28)) << 4)
                    | (bit_cast::<FMOD_BITS, 1>(self.word1_i.val().get_bits::<1>(13)) << 8);
            }
            // A select of 7 is reserved.
            if (self.word1_i.val().get_bits::<3>(8) == 7)
                | (self.word1_i.val().get_bits::<3>(16) == 7)
                | (self.word1_i.val().get_bits::<3>(24) == 7)
            {
                self.bad_fields.next = true;
            }
        }

        // The SDWA fields in ALU operand order (the sources swapped for `*rev`): DST_SEL,
        // DST_UNUSED, then SRCn_SEL with SRCn_SEXT as bit 3; DWORD everywhere when the
        // instruction is not SDWA.
        self.sd_dst.next = 6.into();
        self.sd_unused.next = 0.into();
        self.sd_a.next = 6.into();
        self.sd_b.next = 6.into();
        if self.sdwa_on.val() {
            self.sd_dst.next = self.word1_i.val().get_bits::<3>(8);
            self.sd_unused.next = self.word1_i.val().get_bits::<2>(11);
            self.sd_a.next = self.word1_i.val().get_bits::<4>(16);
            self.sd_b.next = self.word1_i.val().get_bits::<4>(24);
            if self.swap.val() {
                self.sd_a.next = self.word1_i.val().get_bits::<4>(24);
                self.sd_b.next = self.word1_i.val().get_bits::<4>(16);
            }
        }
        // 16-bit integer ops: the 32-bit op on halves. A DWORD source is read as WORD_0, and
        // a word is zero- or (signed ops) sign-extended, so that the 32-bit op orders and
        // combines the halves as the 16-bit op does; a byte keeps its extension (a sign-
        // extended byte of an unsigned op is refused below, having no such form, but where
        // the op is modulo 2^16 and does not saturate, `H16_MOD`). A DWORD
        // destination is written WORD_0 zero-extended (gfx8 zeroes the high half). A shift
        // amount goes through select 7, the low 4 bits, which no encoding can name.
        if self.fl.val().get_bit(39) {
            if self.sd_dst.val() == 6 {
                self.sd_dst.next = 4.into();
                self.sd_unused.next = 0.into();
            }
            if self.sd_a.val().get_bits::<3>(0) == 6 {
                self.sd_a.next = 4.into();
            }
            if self.sd_b.val().get_bits::<3>(0) == 6 {
                self.sd_b.next = 4.into();
            }
            if self.sd_a.val().get_bit(2) {
                self.sd_a.next = self.sd_a.val().replace_bit(3, self.fl.val().get_bit(40));
            }
            if self.sd_b.val().get_bit(2) {
                self.sd_b.next = self.sd_b.val().replace_bit(3, self.fl.val().get_bit(40));
            }
            if !self.fl.val().get_bit(40)
                & !(self.fl.val().get_bit(48) & !self.word1_i.val().get_bit(13))
                & ((!self.sd_a.val().get_bit(2) & self.sd_a.val().get_bit(3))
                    | (!self.sd_b.val().get_bit(2)
                        & self.sd_b.val().get_bit(3)
                        & !self.fl.val().get_bit(41)))
            {
                self.bad_fields.next = true;
            }
            if self.fl.val().get_bit(41) {
                // The amount's select must start at bit 0: BYTE_0 or WORD_0 (DWORD is WORD_0
                // by now).
                if (self.sd_b.val().get_bits::<3>(0) != 0) & (self.sd_b.val().get_bits::<3>(0) != 4)
                {
                    self.bad_fields.next = true;
                }
                self.sd_b.next = 7.into();
            }
        }
        if self.sdwa_on.val()
            & self.fl.val().get_bit(38)
            & self.fl.val().get_bit(39)
            & self.word1_i.val().get_bit(13)
        {
            self.sat.next = true;
        }
        // A saturating clamp (VOP3 or, for the 16-bit ops, SDWA) selects the saturating op.
        if self.sat.val() {
            self.valu_op_o.next = ValuOp::SubSatU;
            if self.valu_rom.data.val() == ValuOp::Add {
                self.valu_op_o.next = ValuOp::AddSatU;
                if self.fl.val().get_bit(39) {
                    self.valu_op_o.next = ValuOp::AddSatU16;
                }
            }
        }
        self.sdwa_o.next = 0.into();
        if self.sdwa_on.val() | self.fl.val().get_bit(39) {
            self.sdwa_o.next = bit_cast::<SDWA_BITS, 3>(self.sd_dst.val()) << 1
                | (bit_cast::<SDWA_BITS, 2>(self.sd_unused.val()) << 4)
                | (bit_cast::<SDWA_BITS, 4>(self.sd_a.val()) << 6)
                | (bit_cast::<SDWA_BITS, 4>(self.sd_b.val()) << 10)
                | 1_u64;
        }

        // Scalar outputs: SOPK replaces a source by its 16-bit constant.
        self.ssrc0_kind_o.next = self.src[0].kind_o.val();
        self.ssrc0_sgpr_o.next = self.src[0].sgpr_o.val();
        self.ssrc0_const_o.next = self.src[0].const_o.val();
        self.ssrc0_const_hi_o.next = self.src[0].const_hi_o.val();
        self.ssrc1_kind_o.next = self.src[1].kind_o.val();
        self.ssrc1_sgpr_o.next = self.src[1].sgpr_o.val();
        self.ssrc1_const_o.next = self.src[1].const_o.val();
        self.ssrc1_const_hi_o.next = self.src[1].const_hi_o.val();
        if self.fl.val().get_bit(42) {
            self.ssrc0_kind_o.next = SrcKind::Pc;
        }
        if self.fmt.val() == 3 {
            if self.fl.val().get_bit(13) {
                self.ssrc1_kind_o.next = SrcKind::Const;
                self.ssrc1_const_o.next = self.simm.val();
                self.ssrc1_const_hi_o.next = 0.into();
            } else {
                self.ssrc0_kind_o.next = SrcKind::Const;
                self.ssrc0_const_o.next = self.simm.val();
                self.ssrc0_const_hi_o.next = 0.into();
            }
        }
        self.has_sdst.next =
            !(self.fl.val().get_bit(14) | (self.fmt.val() >= 7) | (self.fmt.val() == 0));
        self.sdst_kind_o.next = DstKind::None;
        self.sdst_sgpr_o.next = self.sdst.sgpr_o.val();
        if self.has_sdst.val() {
            self.sdst_kind_o.next = self.sdst.kind_o.val();
        }

        // Vector outputs, swapped for `*rev` and 64-bit shifts.
        for n in 0..3 {
            self.vsrc_is_vgpr_o[n].next = self.src[n].kind_o.val() == SrcKind::Vgpr;
            self.vsrc_vgpr_o[n].next = self.src[n].vgpr_o.val();
            self.vsrc_kind_o[n].next = self.src[n].kind_o.val();
            self.vsrc_sgpr_o[n].next = self.src[n].sgpr_o.val();
            self.vsrc_const_o[n].next = self.src[n].const_o.val();
            self.vsrc_const_hi_o[n].next = self.src[n].const_hi_o.val();
        }
        self.vsrc_wide_o[0].next = self.fl.val().get_bit(17);
        self.vsrc_wide_o[1].next = self.fl.val().get_bit(2);
        self.vsrc_wide_o[2].next = self.fl.val().get_bit(18);
        if self.swap.val() {
            self.vsrc_wide_o[0].next = self.fl.val().get_bit(2);
            self.vsrc_wide_o[1].next = self.fl.val().get_bit(17);
            self.vsrc_is_vgpr_o[0].next = self.src[1].kind_o.val() == SrcKind::Vgpr;
            self.vsrc_vgpr_o[0].next = self.src[1].vgpr_o.val();
            self.vsrc_kind_o[0].next = self.src[1].kind_o.val();
            self.vsrc_sgpr_o[0].next = self.src[1].sgpr_o.val();
            self.vsrc_const_o[0].next = self.src[1].const_o.val();
            self.vsrc_const_hi_o[0].next = self.src[1].const_hi_o.val();
            self.vsrc_is_vgpr_o[1].next = self.src[0].kind_o.val() == SrcKind::Vgpr;
            self.vsrc_vgpr_o[1].next = self.src[0].vgpr_o.val();
            self.vsrc_kind_o[1].next = self.src[0].kind_o.val();
            self.vsrc_sgpr_o[1].next = self.src[0].sgpr_o.val();
            self.vsrc_const_o[1].next = self.src[0].const_o.val();
            self.vsrc_const_hi_o[1].next = self.src[0].const_hi_o.val();
        }

        // The modifiers follow their sources through the swap (abs bits 0/1, neg bits 3/4).
        self.fmod_o.next = self.fm.val();
        if self.swap.val() {
            self.fmod_o.next = self.fmod_o.val().replace_bit(0, self.fm.val().get_bit(1));
            self.fmod_o.next = self.fmod_o.val().replace_bit(1, self.fm.val().get_bit(0));
            self.fmod_o.next = self.fmod_o.val().replace_bit(3, self.fm.val().get_bit(4));
            self.fmod_o.next = self.fmod_o.val().replace_bit(4, self.fm.val().get_bit(3));
        }

        // Lane masks: VCC in the 32-bit encodings, explicit SGPR pairs in VOP3.
        self.mask_dst_kind_o.next = DstKind::None;
        self.mask_dst_sgpr_o.next = self.mask_dst.sgpr_o.val();
        if self.fl.val().get_bit(5) {
            self.mask_dst_kind_o.next = self.mask_dst.kind_o.val();
        }
        self.mask_src_kind_o.next = SrcKind::VccLo;
        self.mask_src_sgpr_o.next = 0.into();
        if (self.fmt.val() == 10) & !self.fl.val().get_bit(27) {
            self.mask_src_kind_o.next = self.src[2].kind_o.val();
            self.mask_src_sgpr_o.next = self.src[2].sgpr_o.val();
        }

        self.branch_o.next = BranchCond::Always;
        match self.word0_i.val().get_bits::<7>(16).index() {
            4 => self.branch_o.next = BranchCond::Scc0,
            5 => self.branch_o.next = BranchCond::Scc1,
            6 => self.branch_o.next = BranchCond::Vccz,
            7 => self.branch_o.next = BranchCond::Vccnz,
            8 => self.branch_o.next = BranchCond::Execz,
            9 => self.branch_o.next = BranchCond::Execnz,
            _ => {}
        }

        self.size_o.next = 1.into();
        if self.has_literal.val()
            | self.sdwa_on.val()
            | (self.fmt.val() == 6)
            | (self.fmt.val() >= 10)
        {
            self.size_o.next = 2.into();
        }
        self.legal_o.next = (self.class_rom.data.val() != InstClass::Illegal)
            & self.ops_legal.val()
            & !self.bad_fields.val()
            & ((self.sdst.legal_o.val()
                & !(self.sdst.flat_scratch_o.val()
                    & (self.fmt.val() != 1)
                    & (self.fmt.val() != 2)))
                | !self.has_sdst.val())
            & ((self.mask_dst.legal_o.val() & !self.mask_dst.flat_scratch_o.val())
                | !self.fl.val().get_bit(5))
            // A read lane access writes an SGPR (`pws_isa::subset`).
            & ((self.mask_dst.kind_o.val() == DstKind::Sgpr) | !self.fl.val().get_bit(46));
    }
}
