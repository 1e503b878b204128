//! The decode stage against `pws-isa`: random valid instructions of every opcode and form are
//! encoded by `pws_isa::encode`, fed to the RTL `Decoder` as raw words, and every control
//! output is compared with what the instruction model (`pws_isa::Instruction`) says.

#[path = "../../isa/tests/common/mod.rs"]
mod instructions;

use proptest::prelude::*;
use pws_hdl::cu::decode::{micro_op, BranchCond, Decoder, DstKind, InstClass, SrcKind};
use pws_hdl::simd::fpu::fmod_word;
use pws_hdl::simd::sdwa::sdwa_word;
use pws_hdl::simd::ValuOp;
use pws_isa::{
    encode, DstUnused, Format, ImmKind, Instruction, Opcode, Operand, SdwaSel, Width, OPCODES,
};
use rust_hdl::core::prelude::*;
use rust_hdl::core::simulate::simulate;

fn decode_rtl(dec: &mut Decoder, words: &[u32]) {
    dec.word0_i.next = u64::from(words[0]).into();
    dec.word1_i.next = u64::from(words.get(1).copied().unwrap_or(0xDEAD_BEEF)).into();
    assert!(simulate(dec, 100), "decoder did not settle");
}

fn decoder() -> Decoder {
    let mut dec = Decoder::default();
    dec.connect_all();
    dec
}

/// What the decoder should report for a source operand read with `width` (the high word of a
/// constant only for 64-bit operands).
#[derive(Debug, PartialEq, Eq)]
enum Src {
    Sgpr(u64),
    Vgpr(u64),
    Special(SrcKind),
    Const(u64, u64),
}

/// What the decoder gives for source `op` of `opcode` read with `width`.
fn expected_src(op: Operand, width: Width, opcode: Opcode) -> Option<Src> {
    Some(match op {
        Operand::Sgpr(n) => Src::Sgpr(n.into()),
        Operand::Vgpr(n) => Src::Vgpr(n.into()),
        Operand::VccLo => Src::Special(SrcKind::VccLo),
        Operand::VccHi => Src::Special(SrcKind::VccHi),
        Operand::ExecLo => Src::Special(SrcKind::ExecLo),
        Operand::ExecHi => Src::Special(SrcKind::ExecHi),
        Operand::M0 => Src::Special(SrcKind::M0),
        Operand::Scc => Src::Special(SrcKind::Scc),
        Operand::Vccz => Src::Special(SrcKind::Vccz),
        Operand::Execz => Src::Special(SrcKind::Execz),
        Operand::Int(_) | Operand::Float(_) | Operand::Literal(_) => {
            if width == Width::B32 {
                Src::Const(op.constant_value32().unwrap().into(), 0)
            } else {
                let v = op
                    .constant_value64(opcode.sign_extends_literal64())
                    .unwrap();
                Src::Const(v & 0xFFFF_FFFF, v >> 32)
            }
        }
        Operand::Ttmp(_) | Operand::FlatScratchLo | Operand::FlatScratchHi => return None,
    })
}

fn expected_dst(op: Operand) -> Option<(DstKind, u64)> {
    Some(match op {
        Operand::Sgpr(n) => (DstKind::Sgpr, n.into()),
        Operand::VccLo => (DstKind::VccLo, 106),
        Operand::VccHi => (DstKind::VccHi, 107),
        Operand::ExecLo => (DstKind::ExecLo, 126),
        Operand::ExecHi => (DstKind::ExecHi, 127),
        Operand::M0 => (DstKind::M0, 124),
        // Discarded.
        Operand::FlatScratchLo => (DstKind::None, 102),
        Operand::FlatScratchHi => (DstKind::None, 103),
        _ => return None,
    })
}

fn narrow(src: Src, width: Width) -> Src {
    match src {
        Src::Const(lo, _) if width == Width::B32 => Src::Const(lo, 0),
        other => other,
    }
}

fn scalar_src(dec: &Decoder, n: usize) -> Src {
    let (kind, sgpr, lo, hi) = if n == 0 {
        (
            dec.ssrc0_kind_o.val(),
            dec.ssrc0_sgpr_o.val(),
            dec.ssrc0_const_o.val(),
            dec.ssrc0_const_hi_o.val(),
        )
    } else {
        (
            dec.ssrc1_kind_o.val(),
            dec.ssrc1_sgpr_o.val(),
            dec.ssrc1_const_o.val(),
            dec.ssrc1_const_hi_o.val(),
        )
    };
    match kind {
        SrcKind::Sgpr => Src::Sgpr(sgpr.to_u64()),
        SrcKind::Const => Src::Const(lo.to_u64(), hi.to_u64()),
        SrcKind::Vgpr => panic!("scalar source {n} decoded as a VGPR"),
        k => Src::Special(k),
    }
}

fn vector_src(dec: &Decoder, n: usize) -> Src {
    match dec.vsrc_kind_o[n].val() {
        SrcKind::Sgpr => Src::Sgpr(dec.vsrc_sgpr_o[n].val().to_u64()),
        SrcKind::Vgpr => {
            assert!(dec.vsrc_is_vgpr_o[n].val());
            Src::Vgpr(dec.vsrc_vgpr_o[n].val().to_u64())
        }
        SrcKind::Const => Src::Const(
            dec.vsrc_const_o[n].val().to_u64(),
            dec.vsrc_const_hi_o[n].val().to_u64(),
        ),
        k => Src::Special(k),
    }
}

fn has_mods(inst: &Instruction) -> bool {
    let m = inst.mods;
    m.clamp || m.neg != 0 || m.abs != 0 || m.omod != Default::default() || m.gds
}

/// The SDWA word of a 16-bit integer instruction: its halves as selects (a DWORD source is
/// WORD_0, a word extended as the instruction's signedness reads it, a byte as encoded), a
/// DWORD destination written as WORD_0 zero-extended, a shift amount (ALU operand b) as the
/// low 4 bits (select 7); the encoded fields of an SDWA form, DWORD for the others.
fn int16_sdwa_word(inst: &Instruction, swap: bool) -> u64 {
    let f = inst.sdwa.unwrap_or_default();
    let sext = if inst.sdwa.is_some() {
        inst.mods.sext
    } else {
        0
    };
    let src = |i: usize| {
        let sel = match [f.src0_sel, f.src1_sel][i] {
            SdwaSel::Dword => SdwaSel::Word0,
            s => s,
        };
        let ext = if sel.field().1 == 16 {
            inst.opcode.is_signed16()
        } else {
            sext >> i & 1 == 1
        };
        (sel.bits(), ext)
    };
    let (a, mut b) = if swap {
        (src(1), src(0))
    } else {
        (src(0), src(1))
    };
    if matches!(
        inst.opcode,
        Opcode::VLshlrevB16 | Opcode::VLshrrevB16 | Opcode::VAshrrevI16
    ) {
        b = (7, false);
    }
    let (dst, unused) = match (inst.sdwa, inst.opcode.format()) {
        (Some(_), Format::Vopc) => (0, 0),
        (Some(f), _) if f.dst_sel != SdwaSel::Dword => (f.dst_sel.bits(), f.dst_unused.bits()),
        _ => (SdwaSel::Word0.bits(), DstUnused::Pad.bits()),
    };
    sdwa_word(dst, unused, a, b)
}

/// Checks every decoder output for one instruction against the instruction model.
fn check(dec: &mut Decoder, inst: &Instruction) -> Result<(), TestCaseError> {
    let words = encode(inst).map_err(|e| TestCaseError::reject(e.to_string()))?;
    decode_rtl(dec, &words);
    let uop = micro_op(inst.opcode);
    let info = inst.opcode.info();
    let sig = info.signature;
    // A SOP1/SOP2 may write flat_scratch (a discarded write) but not read it (`s_bitset*`
    // reads its destination); nothing else may name it.
    let scratch_write = matches!(info.format, Format::Sop1 | Format::Sop2)
        && matches!(
            inst.dst,
            Some(Operand::FlatScratchLo | Operand::FlatScratchHi)
        );
    let unsupported_operand = inst
        .srcs
        .iter()
        .chain([&inst.dst, &inst.sdst])
        .flatten()
        .any(|op| match op {
            Operand::Ttmp(_) => true,
            Operand::FlatScratchLo | Operand::FlatScratchHi => !scratch_write,
            _ => false,
        })
        || (scratch_write
            && inst
                .reads()
                .any(|(op, _)| matches!(op, Operand::FlatScratchLo | Operand::FlatScratchHi)));
    // The RTL's SMEM base and offset registers must be SGPRs (not VCC or M0).
    let smem_special_offset = info.format == Format::Smem
        && (!matches!(inst.srcs[0], Some(Operand::Sgpr(_)))
            || !matches!(inst.srcs[1], None | Some(Operand::Sgpr(_))));
    // VOP3 modifiers are implemented for the f32 operations, abs/neg for v_cndmask_b32 and
    // clamp (saturation) for the unsigned add and subtracts.
    let has_flag = |f: u64| uop.is_some_and(|u| u.flags & f != 0);
    let float = has_flag(pws_hdl::cu::decode::flags::FLOAT);
    let sign_mods = has_flag(pws_hdl::cu::decode::flags::SIGN_MODS);
    let m = inst.mods;
    let sign_only = !m.clamp && m.omod == Default::default() && !m.gds;
    let saturating = has_flag(pws_hdl::cu::decode::flags::SAT_CLAMP)
        && (inst.sdwa.is_none() || inst.opcode.is_int16())
        && m.clamp
        && m.omod == Default::default()
        && m.neg == 0
        && m.abs == 0;
    let legal = uop.is_some()
        && (float || !has_mods(inst) || (sign_mods && sign_only) || saturating)
        && !(inst.opcode.is_int16() && pws_isa::subset::executable(inst).is_err())
        && !unsupported_operand
        && !smem_special_offset
        // A read lane access writes an SGPR (pws_isa::subset).
        && !(inst.opcode.is_lane_access()
            && inst.sdst.is_some()
            && !matches!(inst.sdst, Some(Operand::Sgpr(_))));
    prop_assert_eq!(dec.legal_o.val(), legal, "legal of {:?} {:x?}", inst, words);
    prop_assert_eq!(
        dec.size_o.val().to_u64(),
        words.len() as u64,
        "size of {:?}",
        inst
    );
    let Some(uop) = uop else {
        prop_assert_eq!(dec.class_o.val(), InstClass::Illegal);
        return Ok(());
    };
    if !legal {
        return Ok(());
    }
    prop_assert_eq!(dec.class_o.val(), uop.class, "{:?}", inst);
    let width = |i: usize| sig.srcs.get(i).copied().unwrap_or(Width::B32);
    match uop.class {
        InstClass::Salu => {
            prop_assert_eq!(dec.salu_op_o.val(), uop.salu);
            let k = |imm: u32| {
                let v = if sig.imm == ImmKind::Uimm16 {
                    imm
                } else {
                    imm as u16 as i16 as i32 as u32
                };
                Src::Const(v.into(), 0)
            };
            match info.format {
                Format::Sopk => match (inst.dst, inst.srcs[0]) {
                    (Some(d), None) if inst.opcode == Opcode::SMovkI32 => {
                        prop_assert_eq!(scalar_src(dec, 0), k(inst.imm));
                        prop_assert_eq!(
                            (dec.sdst_kind_o.val(), dec.sdst_sgpr_o.val().to_u64()),
                            expected_dst(d).unwrap()
                        );
                    }
                    (Some(d), None) => {
                        prop_assert_eq!(
                            Some(narrow(scalar_src(dec, 0), Width::B32)),
                            expected_src(d, Width::B32, inst.opcode)
                        );
                        prop_assert_eq!(scalar_src(dec, 1), k(inst.imm));
                        prop_assert_eq!(
                            (dec.sdst_kind_o.val(), dec.sdst_sgpr_o.val().to_u64()),
                            expected_dst(d).unwrap()
                        );
                    }
                    (None, Some(s)) => {
                        prop_assert_eq!(
                            Some(narrow(scalar_src(dec, 0), Width::B32)),
                            expected_src(s, Width::B32, inst.opcode)
                        );
                        prop_assert_eq!(scalar_src(dec, 1), k(inst.imm));
                        prop_assert_eq!(dec.sdst_kind_o.val(), DstKind::None);
                    }
                    other => panic!("SOPK operands {other:?}"),
                },
                // `s_bitset*`: the destination is ssrc0, the SSRC0 field ssrc1.
                Format::Sop1 if inst.opcode.reads_dst() => {
                    let (d, s) = (inst.dst.unwrap(), inst.srcs[0].unwrap());
                    prop_assert_eq!(
                        Some(narrow(scalar_src(dec, 0), Width::B32)),
                        expected_src(d, Width::B32, inst.opcode),
                        "ssrc0 of {:?}",
                        inst
                    );
                    prop_assert_eq!(
                        Some(narrow(scalar_src(dec, 1), Width::B32)),
                        expected_src(s, Width::B32, inst.opcode),
                        "ssrc1 of {:?}",
                        inst
                    );
                    prop_assert_eq!(
                        (dec.sdst_kind_o.val(), dec.sdst_sgpr_o.val().to_u64()),
                        expected_dst(d).unwrap()
                    );
                }
                _ => {
                    for (i, src) in inst.srcs.iter().enumerate().take(2) {
                        if let Some(src) = src {
                            prop_assert_eq!(
                                Some(narrow(scalar_src(dec, i), width(i))),
                                expected_src(*src, width(i), inst.opcode),
                                "ssrc{} of {:?}",
                                i,
                                inst
                            );
                        }
                    }
                    // `s_getpc_b64` reads the 64-bit address of the next instruction.
                    let getpc = inst.opcode == Opcode::SGetpcB64;
                    if getpc {
                        prop_assert_eq!(dec.ssrc0_kind_o.val(), SrcKind::Pc);
                    }
                    let src0_wide = sig.srcs.first() == Some(&Width::B64) || getpc;
                    let dst_wide = sig.dst == Some(Width::B64);
                    prop_assert_eq!(dec.wide_o.val(), src0_wide || dst_wide);
                    prop_assert_eq!(dec.src0_wide_o.val(), src0_wide);
                    if sig.dst.is_some() {
                        prop_assert_eq!(dec.dst_wide_o.val(), dst_wide);
                    }
                    prop_assert_eq!(dec.wide1_o.val(), sig.srcs.get(1) == Some(&Width::B64));
                    match inst.dst {
                        Some(d) => prop_assert_eq!(
                            (dec.sdst_kind_o.val(), dec.sdst_sgpr_o.val().to_u64()),
                            expected_dst(d).unwrap()
                        ),
                        None => prop_assert_eq!(dec.sdst_kind_o.val(), DstKind::None),
                    }
                }
            }
        }
        InstClass::Valu => {
            let valu = match (saturating, uop.valu) {
                (true, ValuOp::Add) if inst.opcode.is_int16() => ValuOp::AddSatU16,
                (true, ValuOp::Add) => ValuOp::AddSatU,
                (true, _) => ValuOp::SubSatU,
                (false, op) => op,
            };
            prop_assert_eq!(dec.valu_op_o.val(), valu, "{:?}", inst);
            let swap = uop.flags & pws_hdl::cu::decode::flags::SWAP != 0;
            // A 64-bit third source is the lane mask (carry-in, select) unless it is a value.
            let n_value_srcs = if uop.flags & pws_hdl::cu::decode::flags::MASK_SRC != 0 {
                2
            } else {
                sig.srcs.len()
            };
            for i in 0..n_value_srcs {
                let alu = if swap && i < 2 { 1 - i } else { i };
                let src = inst.srcs[i].expect("VALU sources are present");
                prop_assert_eq!(
                    Some(narrow(vector_src(dec, alu), width(i))),
                    expected_src(src, width(i), inst.opcode),
                    "vsrc{} (text {}) of {:?}",
                    alu,
                    i,
                    inst
                );
            }
            for i in 0..3 {
                let alu = if swap && i < 2 { 1 - i } else { i };
                let wide = i < n_value_srcs && width(i) == Width::B64;
                prop_assert_eq!(dec.vsrc_wide_o[alu].val(), wide, "vsrc{} wide", alu);
            }
            // The modifier word in ALU operand order (abs/neg of sources 0 and 1 swapped with
            // the sources); 0 for the integer operations.
            let m = inst.mods;
            let swapped = |bits: u8| {
                if swap {
                    bits & !3 | (bits & 1) << 1 | (bits >> 1 & 1)
                } else {
                    bits
                }
            };
            let fmod = if float || uop.flags & pws_hdl::cu::decode::flags::SIGN_MODS != 0 {
                fmod_word(swapped(m.abs), swapped(m.neg), m.omod as u8, m.clamp)
            } else {
                0
            };
            prop_assert_eq!(dec.fmod_o.val().to_u64(), fmod, "modifiers of {:?}", inst);
            prop_assert_eq!(dec.writes_vgpr_o.val(), sig.dst.is_some());
            // The SDWA control word in ALU operand order: the encoded fields (a compare's
            // destination fields and VOP1's SRC1 fields are encoded as 0).
            let sdwa = if inst.opcode.is_int16() {
                int16_sdwa_word(inst, swap)
            } else {
                inst.sdwa.map_or(0, |f| {
                    let src = |i: usize| {
                        let sel = [f.src0_sel, f.src1_sel][i].bits();
                        match (i, info.format) {
                            (1, Format::Vop1) => (0, false),
                            _ => (sel, m.sext >> i & 1 == 1),
                        }
                    };
                    let (a, b) = if swap {
                        (src(1), src(0))
                    } else {
                        (src(0), src(1))
                    };
                    match info.format {
                        Format::Vopc => sdwa_word(0, 0, a, b),
                        _ => sdwa_word(f.dst_sel.bits(), f.dst_unused.bits(), a, b),
                    }
                })
            };
            prop_assert_eq!(dec.sdwa_o.val().to_u64(), sdwa, "SDWA word of {:?}", inst);
            if let Some(Operand::Vgpr(d)) = inst.dst {
                prop_assert_eq!(dec.vdst_o.val().to_u64(), u64::from(d));
                // v_mac_f32 accumulates into its destination, and an SDWA op merges into it:
                // source 2 is that VGPR.
                if uop.flags & pws_hdl::cu::decode::flags::MAC != 0 || inst.sdwa.is_some() {
                    prop_assert_eq!(vector_src(dec, 2), Src::Vgpr(u64::from(d)));
                }
            }
            match inst.sdst {
                Some(d) => {
                    let (kind, n) = expected_dst(d).unwrap();
                    prop_assert_eq!(dec.mask_dst_kind_o.val(), kind, "mask dst of {:?}", inst);
                    if kind == DstKind::Sgpr {
                        prop_assert_eq!(dec.mask_dst_sgpr_o.val().to_u64(), n);
                    }
                }
                None => prop_assert_eq!(dec.mask_dst_kind_o.val(), DstKind::None),
            }
            prop_assert_eq!(dec.writes_exec_o.val(), info.mnemonic.starts_with("v_cmpx"));
            // A lane access enables one lane: source 1's, or the first active one.
            prop_assert_eq!(dec.lane_o.val(), inst.opcode.is_lane_access());
            prop_assert_eq!(
                dec.lane_first_o.val(),
                inst.opcode == pws_isa::Opcode::VReadfirstlaneB32
            );
            prop_assert_eq!(
                dec.mask_dst32_o.val(),
                inst.opcode.is_lane_access() && inst.sdst.is_some()
            );
            // v_div_fmas_f32 reads VCC besides its three values.
            let vcc_in = uop.flags & pws_hdl::cu::decode::flags::VCC_IN != 0;
            prop_assert_eq!(
                dec.reads_mask_o.val(),
                n_value_srcs < sig.srcs.len() || vcc_in
            );
            if vcc_in {
                prop_assert_eq!(dec.mask_src_kind_o.val(), SrcKind::VccLo);
            }
            if n_value_srcs < sig.srcs.len() {
                match expected_src(inst.srcs[2].unwrap(), Width::B64, inst.opcode).unwrap() {
                    Src::Sgpr(n) => {
                        prop_assert_eq!(dec.mask_src_kind_o.val(), SrcKind::Sgpr);
                        prop_assert_eq!(dec.mask_src_sgpr_o.val().to_u64(), n);
                    }
                    Src::Special(k) => prop_assert_eq!(dec.mask_src_kind_o.val(), k),
                    other => prop_assert_eq!(vector_src(dec, 2), other),
                }
            }
        }
        InstClass::Smem => {
            let Some(Operand::Sgpr(base)) = inst.srcs[0] else {
                panic!("SMEM base {inst:?}")
            };
            prop_assert_eq!(dec.sbase_sgpr_o.val().to_u64(), u64::from(base));
            prop_assert_eq!(
                (dec.sdst_kind_o.val(), dec.sdst_sgpr_o.val().to_u64()),
                expected_dst(inst.dst.unwrap()).unwrap()
            );
            prop_assert_eq!(
                dec.mem_dwords_o.val().to_u64(),
                u64::from(sig.dst.unwrap().dwords())
            );
            match inst.srcs[1] {
                Some(Operand::Sgpr(off)) => {
                    prop_assert!(dec.smem_offset_is_sgpr_o.val());
                    prop_assert_eq!(dec.smem_offset_o.val().to_u64() & 0x7F, u64::from(off));
                }
                _ => {
                    prop_assert!(!dec.smem_offset_is_sgpr_o.val());
                    prop_assert_eq!(dec.smem_offset_o.val().to_u64(), u64::from(inst.imm));
                }
            }
        }
        InstClass::Flat if inst.opcode.is_flat_atomic() => {
            // Address, data (a pair for cmpswap), and the old value to VDST with glc.
            let (Some(Operand::Vgpr(addr)), Some(Operand::Vgpr(data))) =
                (inst.srcs[0], inst.srcs[1])
            else {
                panic!("FLAT atomic operands {inst:?}")
            };
            prop_assert!(!dec.mem_store_o.val());
            prop_assert!(dec.mem_rmw_o.val().any());
            prop_assert_eq!(dec.addr_vgpr_o.val().to_u64(), u64::from(addr));
            prop_assert_eq!(dec.data_vgpr_o.val().to_u64(), u64::from(data));
            prop_assert_eq!(
                dec.mem_dwords_o.val().to_u64(),
                u64::from(sig.srcs[1].dwords())
            );
            prop_assert_eq!(dec.mem_ret_o.val(), inst.mods.glc);
            if let Some(Operand::Vgpr(d)) = inst.dst {
                prop_assert_eq!(dec.vdst_o.val().to_u64(), u64::from(d));
            }
        }
        InstClass::Ds => {
            let vgpr = |o: Option<Operand>| match o {
                Some(Operand::Vgpr(n)) => Some(u64::from(n)),
                _ => None,
            };
            prop_assert_eq!(Some(dec.addr_vgpr_o.val().to_u64()), vgpr(inst.srcs[0]));
            // ds_cmpst's operands reach the read-modify-write as (new, compare).
            let (d0, d1) = if matches!(inst.opcode, Opcode::DsCmpstB32 | Opcode::DsCmpstRtnB32) {
                (vgpr(inst.srcs[2]), vgpr(inst.srcs[1]))
            } else {
                (vgpr(inst.srcs[1]), vgpr(inst.srcs[2]))
            };
            if let Some(d) = d0 {
                prop_assert_eq!(dec.data_vgpr_o.val().to_u64(), d);
            }
            if let Some(d) = d1 {
                prop_assert_eq!(dec.data1_vgpr_o.val().to_u64(), d);
            }
            prop_assert_eq!(dec.mem_ret_o.val(), inst.dst.is_some());
            if let Some(d) = vgpr(inst.dst) {
                prop_assert_eq!(dec.vdst_o.val().to_u64(), d);
            }
            prop_assert_eq!(dec.ds_offset0_o.val().to_u64(), u64::from(inst.imm & 0xFF));
            prop_assert_eq!(
                dec.ds_offset1_o.val().to_u64(),
                u64::from(inst.imm >> 8 & 0xFF)
            );
            let name = inst.opcode.mnemonic();
            prop_assert_eq!(
                dec.ds_two_o.val(),
                name.starts_with("ds_read2") || name.starts_with("ds_write2")
            );
            prop_assert_eq!(dec.ds_st64_o.val(), name.contains("st64"));
        }
        InstClass::Flat if inst.opcode.format() == Format::Mubuf => {
            // VADDR with OFFEN (the first word's bit 12, reaching the LSU in `ds_offset1_o`),
            // VDATA, the resource's first SGPR, SOFFSET as source 2, the 12-bit OFFSET.
            let store = inst.dst.is_none();
            prop_assert!(dec.mubuf_o.val());
            prop_assert_eq!(dec.mem_store_o.val(), store);
            prop_assert_eq!(dec.mem_ret_o.val(), !store);
            let offen = dec.ds_offset1_o.val().get_bit(4);
            match inst.srcs[0] {
                Some(Operand::Vgpr(a)) => {
                    prop_assert!(offen);
                    prop_assert_eq!(dec.addr_vgpr_o.val().to_u64(), u64::from(a));
                }
                _ => prop_assert!(!offen),
            }
            let (data, w, field) = if store {
                (inst.srcs[3], sig.srcs[3], dec.data_vgpr_o.val())
            } else {
                (inst.dst, sig.dst.unwrap(), dec.vdst_o.val())
            };
            let Some(Operand::Vgpr(data)) = data else {
                panic!("MUBUF data {inst:?}")
            };
            prop_assert_eq!(field.to_u64(), u64::from(data));
            prop_assert_eq!(dec.mem_dwords_o.val().to_u64(), u64::from(w.dwords()));
            let Some(Operand::Sgpr(rsrc)) = inst.srcs[1] else {
                panic!("MUBUF resource {inst:?}")
            };
            prop_assert_eq!(dec.sbase_sgpr_o.val().to_u64(), u64::from(rsrc));
            prop_assert_eq!(
                Some(narrow(vector_src(dec, 2), Width::B32)),
                expected_src(inst.srcs[2].unwrap(), Width::B32, inst.opcode)
            );
            prop_assert_eq!(
                (dec.ds_offset1_o.val().to_u64() & 0xF) << 8 | dec.ds_offset0_o.val().to_u64(),
                u64::from(inst.imm)
            );
            check_access_size(dec, inst)?;
        }
        InstClass::Flat => {
            let store = inst.dst.is_none();
            prop_assert!(!dec.mubuf_o.val());
            prop_assert_eq!(dec.mem_store_o.val(), store);
            let Some(Operand::Vgpr(addr)) = inst.srcs[0] else {
                panic!("FLAT address {inst:?}")
            };
            prop_assert_eq!(dec.addr_vgpr_o.val().to_u64(), u64::from(addr));
            let (data, w) = if store {
                (inst.srcs[1], sig.srcs[1])
            } else {
                (inst.dst, sig.dst.unwrap())
            };
            let Some(Operand::Vgpr(data)) = data else {
                panic!("FLAT data {inst:?}")
            };
            let field = if store {
                dec.data_vgpr_o.val()
            } else {
                dec.vdst_o.val()
            };
            prop_assert_eq!(field.to_u64(), u64::from(data));
            prop_assert_eq!(dec.mem_dwords_o.val().to_u64(), u64::from(w.dwords()));
            check_access_size(dec, inst)?;
        }
        InstClass::Branch => {
            let cond = match inst.opcode {
                Opcode::SBranch => BranchCond::Always,
                Opcode::SCbranchScc0 => BranchCond::Scc0,
                Opcode::SCbranchScc1 => BranchCond::Scc1,
                Opcode::SCbranchVccz => BranchCond::Vccz,
                Opcode::SCbranchVccnz => BranchCond::Vccnz,
                Opcode::SCbranchExecz => BranchCond::Execz,
                Opcode::SCbranchExecnz => BranchCond::Execnz,
                other => panic!("{other:?} is not a branch"),
            };
            prop_assert_eq!(dec.branch_o.val(), cond);
            prop_assert_eq!(dec.simm16_o.val().to_u64(), u64::from(inst.imm & 0xFFFF));
        }
        InstClass::Split => {
            for i in 0..2 {
                prop_assert_eq!(
                    Some(narrow(scalar_src(dec, i), Width::B32)),
                    expected_src(inst.srcs[i].unwrap(), Width::B32, inst.opcode)
                );
            }
        }
        _ => prop_assert_eq!(dec.sdst_kind_o.val(), DstKind::None),
    }
    Ok(())
}

/// A FLAT or MUBUF access's size code (0 dwords, 1 a byte, 2 a half) and sign extension
/// (`_sbyte`, `_sshort` loads).
fn check_access_size(dec: &Decoder, inst: &Instruction) -> Result<(), TestCaseError> {
    let size = match inst.opcode.flat_bytes().unwrap() {
        1 => 1,
        2 => 2,
        _ => 0,
    };
    prop_assert_eq!(dec.mem_size_o.val().to_u64(), size);
    let name = inst.opcode.mnemonic();
    prop_assert_eq!(
        dec.mem_signed_o.val(),
        name.ends_with("_sbyte") || name.ends_with("_sshort")
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(pws_isa::testing::proptest_cases(3000)))]

    #[test]
    fn decoder_agrees_with_the_instruction_model(inst in instructions::instruction()) {
        let mut dec = decoder();
        check(&mut dec, &inst)?;
    }
}

#[test]
fn every_opcode_in_every_form_decodes() {
    let mut dec = decoder();
    let mut runner = instructions::seeded_runner();
    for info in OPCODES {
        let strategy = instructions::instruction_of(info.opcode);
        for _ in 0..20 {
            let inst = strategy.new_tree(&mut runner).unwrap().current();
            check(&mut dec, &inst).unwrap_or_else(|e| panic!("{}: {e}", info.mnemonic));
        }
    }
}

#[test]
fn garbage_words_never_claim_an_unsupported_format() {
    // A word with no GCN3 format prefix (e.g. the MUBUF/MIMG prefixes) decodes as illegal, and
    // so does an opcode number of a known format that has no instruction (FLAT 0).
    let mut dec = decoder();
    for word in [0xE000_0000u32, 0xF000_0000, 0xC800_0000, 0xDC00_0000] {
        decode_rtl(&mut dec, &[word, 0]);
        assert!(!dec.legal_o.val(), "{word:#x}");
        assert_eq!(dec.class_o.val(), InstClass::Illegal);
    }
}
