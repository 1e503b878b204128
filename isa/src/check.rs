//! Operand rules: what llvm-mc (gfx8) accepts for each operand slot, register ranges and
//! alignment, immediate ranges, literal and constant-bus limits, and modifiers. The assembler,
//! the encoder and the decoder all go through [`check`], so no invalid instruction can be
//! encoded, and a decoded one always prints as text llvm-mc accepts.

use crate::error::{ErrorKind, OperandError, Slot};
use crate::inst::{DstUnused, Instruction, Operand, SdwaSel, NUM_SGPRS, NUM_TTMPS, NUM_VGPRS};
use crate::opcode::{Format, ImmKind, Opcode, Width, MOD_CLAMP, MOD_INPUT, MOD_OMOD};

/// The kinds of operand an encoding field can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// SDST of SOP1/SOP2/SOPK and the compared register of `s_cmpk_*`.
    ScalarReg,
    /// SSRC of SOP1/SOP2/SOPC: scalar registers, `src_*`, inline constants, a literal.
    ScalarSrc,
    SmemData,
    /// SMEM base address: any 64-bit scalar register.
    SmemBase,
    /// SMEM register offset: any 32-bit scalar register.
    SmemOffset,
    Vgpr,
    /// SRC0 of e32, or any source of e64 (`literal` says whether a literal is encodable).
    VectorSrc {
        literal: bool,
    },
    /// A 64-bit lane mask in an e64 encoding (carry-out, carry-in, compare result, select).
    ScalarMask,
    /// The implicit VCC of an e32 encoding.
    Vcc,
    /// The constant K of `v_madmk_f32`/`v_madak_f32`: a literal dword.
    LiteralK,
    /// A source of an SDWA instruction: gfx8 (VI) reads only VGPRs there.
    SdwaSrc,
    /// MUBUF SRSRC: a buffer resource in four aligned scalar registers.
    BufferResource,
    /// MUBUF SOFFSET: a 32-bit scalar register or an inline constant (no literal dword).
    BufferOffset,
    /// The lane number and `v_writelane_b32`'s value: a 32-bit scalar register or an inline
    /// constant (no literal dword on gfx8, no VGPR).
    LaneScalar,
}

fn bad(slot: Slot, message: impl Into<String>) -> OperandError {
    OperandError::new(slot, ErrorKind::BadOperand, message)
}

fn width_name(w: Width) -> &'static str {
    match w {
        Width::B32 => "32-bit",
        Width::B64 => "64-bit",
        Width::B96 => "96-bit",
        Width::B128 => "128-bit",
        Width::B256 => "256-bit",
        Width::B512 => "512-bit",
    }
}

/// Checks a register tuple `first..first+dwords` in a file of `size` registers; scalar tuples
/// must be aligned to their size (pairs even, quads to 4), as llvm-mc requires.
fn check_tuple(
    slot: Slot,
    prefix: &str,
    first: u8,
    size: u16,
    w: Width,
    aligned: bool,
) -> Result<(), OperandError> {
    let n = w.dwords() as u16;
    let last = first as u16 + n - 1;
    if last >= size {
        return Err(OperandError::new(
            slot,
            ErrorKind::RegisterOutOfRange,
            format!(
                "register {prefix}{last} out of range ({prefix}0..{prefix}{})",
                size - 1
            ),
        ));
    }
    if aligned && first as u16 % n.min(4) != 0 {
        return Err(bad(slot, "invalid register alignment"));
    }
    Ok(())
}

fn check_scalar_reg(slot: Slot, op: Operand, w: Width) -> Result<(), OperandError> {
    match op {
        Operand::Sgpr(n) => check_tuple(slot, "s", n, NUM_SGPRS, w, true),
        Operand::Ttmp(n) => check_tuple(slot, "ttmp", n, NUM_TTMPS, w, true),
        Operand::VccLo | Operand::ExecLo | Operand::FlatScratchLo
            if matches!(w, Width::B32 | Width::B64) =>
        {
            Ok(())
        }
        Operand::VccHi | Operand::ExecHi | Operand::FlatScratchHi | Operand::M0
            if w == Width::B32 =>
        {
            Ok(())
        }
        _ => Err(bad(
            slot,
            format!("expected a {} scalar register", width_name(w)),
        )),
    }
}

/// A scalar register or an inline constant, neither a literal dword (`literal` says why) nor a
/// VGPR (`vgpr` says why).
fn scalar_or_inline(
    slot: Slot,
    op: Operand,
    w: Width,
    literal: &str,
    vgpr: &str,
) -> Result<(), OperandError> {
    match op {
        Operand::Int(_) | Operand::Float(_) => Ok(()),
        Operand::Vccz | Operand::Execz | Operand::Scc => Ok(()),
        Operand::Literal(_) => Err(OperandError::new(slot, ErrorKind::Literal, literal)),
        Operand::Vgpr(_) => Err(bad(slot, vgpr)),
        _ => check_scalar_reg(slot, op, w),
    }
}

fn check_class(slot: Slot, class: Class, op: Operand, w: Width) -> Result<(), OperandError> {
    if let Operand::Int(v) = op {
        if !(-16..=64).contains(&v) {
            return Err(OperandError::new(
                slot,
                ErrorKind::ImmediateOutOfRange,
                format!("inline integer {v} outside -16..=64"),
            ));
        }
    }
    match class {
        Class::ScalarReg => check_scalar_reg(slot, op, w),
        Class::ScalarSrc => match op {
            Operand::Vgpr(_) => Err(bad(slot, "scalar instructions cannot read VGPRs")),
            Operand::Vccz | Operand::Execz | Operand::Scc => Ok(()),
            Operand::Int(_) | Operand::Float(_) | Operand::Literal(_) => Ok(()),
            _ => check_scalar_reg(slot, op, w),
        },
        Class::SmemData => match op {
            Operand::ExecLo | Operand::ExecHi | Operand::M0 => {
                Err(bad(slot, "a scalar load cannot write exec or m0"))
            }
            _ => check_scalar_reg(slot, op, w),
        },
        Class::SmemBase | Class::SmemOffset | Class::ScalarMask => check_scalar_reg(slot, op, w),
        Class::Vgpr => match op {
            Operand::Vgpr(n) => check_tuple(slot, "v", n, NUM_VGPRS, w, false),
            _ => Err(bad(slot, format!("expected a {} VGPR", width_name(w)))),
        },
        Class::VectorSrc { literal } => match op {
            Operand::Vgpr(n) => check_tuple(slot, "v", n, NUM_VGPRS, w, false),
            Operand::Vccz | Operand::Execz | Operand::Scc | Operand::Int(_) | Operand::Float(_) => {
                Ok(())
            }
            Operand::Literal(_) if literal => Ok(()),
            Operand::Literal(_) => Err(OperandError::new(
                slot,
                ErrorKind::Literal,
                "literal operands are not supported in this encoding (VOP3 on gfx8, or e32 \
                 VSRC1)",
            )),
            _ => check_scalar_reg(slot, op, w),
        },
        Class::Vcc => match op {
            Operand::VccLo => Ok(()),
            _ => Err(bad(slot, "the e32 encoding only takes vcc here")),
        },
        Class::LiteralK => match op {
            Operand::Literal(_) => Ok(()),
            _ => Err(bad(
                slot,
                "the constant K (or the value of s_setreg_imm32_b32) is a literal dword",
            )),
        },
        Class::BufferResource => match op {
            Operand::Sgpr(_) | Operand::Ttmp(_) => check_scalar_reg(slot, op, w),
            _ => Err(bad(
                slot,
                "expected a buffer resource: s[4n:4n+3] or ttmp[4n:4n+3]",
            )),
        },
        Class::BufferOffset => scalar_or_inline(
            slot,
            op,
            w,
            "MUBUF has no literal dword: SOFFSET is a scalar register or an inline constant",
            "SOFFSET is a scalar register or an inline constant",
        ),
        Class::LaneScalar => scalar_or_inline(
            slot,
            op,
            w,
            "a lane access takes no literal dword on gfx8: a scalar register or an inline \
             constant",
            "the lane and the value written are scalar: a scalar register or an inline constant",
        ),
        Class::SdwaSrc => match op {
            Operand::Vgpr(n) => check_tuple(slot, "v", n, NUM_VGPRS, w, false),
            _ => Err(bad(
                slot,
                "SDWA sources must be VGPRs on gfx8 (no SGPRs, constants or literals)",
            )),
        },
    }
}

/// The constants of a 16-bit integer instruction: a literal is the half it reads (the
/// assembler writes no high bits) and not an inline integer, as llvm-mc encodes them. An
/// inline float constant, which such an instruction reads as its f16 bits, has no text:
/// llvm-mc's syntax reads `0x3c00` as a literal and prints the inline 1.0 as `0x3c00`, so the
/// instruction would not assemble back to itself (in VOP3, not at all).
fn check_half_constants(inst: &Instruction) -> Result<(), OperandError> {
    for (i, src) in inst.srcs.iter().enumerate() {
        let why = match src {
            Some(Operand::Float(_)) => {
                "an inline float constant of a 16-bit instruction has no assembly text (llvm-mc reads its f16 bits back as a literal)"
            }
            Some(Operand::Literal(v)) if *v > 0xffff => {
                "a 16-bit instruction reads a 16-bit literal (-32768..=65535)"
            }
            Some(Operand::Literal(v)) if Operand::half_constant(*v as u16) != Operand::Literal(*v) => {
                "a literal that is an inline integer constant"
            }
            _ => continue,
        };
        return Err(OperandError::new(
            Slot::Src(i),
            ErrorKind::ImmediateOutOfRange,
            why.to_string(),
        ));
    }
    Ok(())
}

/// Checks every operand rule for `inst`.
pub fn check(inst: &Instruction) -> Result<(), OperandError> {
    check_with(inst, true)
}

/// [`check`] for an instruction decoded from a binary: a literal dword may hold a value an
/// inline constant could (a linker's resolved `sym@rel32` leaves one), which the hardware
/// reads as written; the assembler never writes one from text.
pub(crate) fn check_decoded(inst: &Instruction) -> Result<(), OperandError> {
    check_with(inst, false)
}

fn check_with(inst: &Instruction, canonical_literals: bool) -> Result<(), OperandError> {
    let op = inst.opcode;
    let info = op.info();
    let sig = info.signature;
    let format = op.format();
    let valu = matches!(
        format,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
    );
    if inst.vop3 && !op.has_vop3_form() && format != Format::Vop3 && valu {
        return Err(OperandError::new(
            Slot::Instruction,
            ErrorKind::BadOperand,
            format!("{op} has no VOP3 encoding"),
        ));
    }
    if inst.vop3 && !valu {
        return Err(bad(Slot::Instruction, format!("{op} has no e64 encoding")));
    }
    if !inst.vop3 && format == Format::Vop3 {
        return Err(bad(Slot::Instruction, format!("{op} exists only as VOP3")));
    }
    if let Some(sdwa) = inst.sdwa {
        if inst.vop3 || !op.has_sdwa_form() {
            return Err(bad(
                Slot::Instruction,
                format!("{op} has no SDWA encoding on gfx8"),
            ));
        }
        let fixed = |what: &str| {
            Err(OperandError::new(
                Slot::Modifiers,
                ErrorKind::Modifier,
                format!("{op} does not accept {what}"),
            ))
        };
        if format == Format::Vopc
            && (sdwa.dst_sel != SdwaSel::Dword || sdwa.dst_unused != DstUnused::Preserve)
        {
            return fixed("dst_sel or dst_unused (an SDWA compare writes a lane mask to vcc)");
        }
        // The accumulator of v_mac_f32 is its destination: llvm-mc takes only a whole one.
        if op == Opcode::VMacF32 && sdwa.dst_sel != SdwaSel::Dword {
            return fixed("a dst_sel other than DWORD (its destination is the accumulator)");
        }
        if format == Format::Vop1 && sdwa.src1_sel != SdwaSel::Dword {
            return fixed("src1_sel (it has one source)");
        }
    }

    // A FLAT atomic returns the pre-op value (has a destination) exactly when `glc` is set.
    let returns = !op.is_flat_atomic() || inst.mods.glc;
    check_presence(Slot::Dst, inst.dst, sig.dst.is_some() && returns)?;
    check_presence(Slot::Sdst, inst.sdst, sig.sdst.is_some())?;
    for i in 0..inst.srcs.len() {
        // SMEM's offset may be an immediate instead; MUBUF's VADDR is absent for `off`.
        let optional = (format == Format::Smem && i == 1) || (format == Format::Mubuf && i == 0);
        if !optional {
            check_presence(Slot::Src(i), inst.srcs[i], i < sig.srcs.len())?;
        }
    }
    check_imm(inst)?;
    check_modifiers(inst)?;
    if op.is_int16() {
        check_half_constants(inst)?;
    }

    let dst_class = match format {
        Format::Sop1 | Format::Sop2 | Format::Sopk => Class::ScalarReg,
        Format::Smem => Class::SmemData,
        _ => Class::Vgpr,
    };
    if let (Some(d), Some(w)) = (inst.dst, sig.dst) {
        check_class(Slot::Dst, dst_class, d, w)?;
    }
    if let (Some(d), Some(w)) = (inst.sdst, sig.sdst) {
        let class = if op.is_lane_access() {
            Class::ScalarReg
        } else if inst.vop3 {
            Class::ScalarMask
        } else {
            Class::Vcc
        };
        check_class(Slot::Sdst, class, d, w)?;
    }
    for (i, (src, &w)) in inst.srcs.iter().zip(sig.srcs.iter()).enumerate() {
        let Some(src) = *src else { continue };
        let class = match format {
            Format::Sop1 | Format::Sop2 => Class::ScalarSrc,
            Format::Sopc if op == Opcode::Split => Class::ScalarReg,
            Format::Sopc => Class::ScalarSrc,
            Format::Sopk if op.setreg_from_literal() => Class::LiteralK,
            Format::Sopk => Class::ScalarReg,
            Format::Smem => Class::SmemBase,
            Format::Flat | Format::Ds => Class::Vgpr,
            Format::Mubuf => match i {
                1 => Class::BufferResource,
                2 => Class::BufferOffset,
                _ => Class::Vgpr,
            },
            // The lane is read from a VGPR; the lane number and a written value are scalar.
            _ if op.is_lane_read() && i == 0 => Class::Vgpr,
            _ if op.is_lane_access() => Class::LaneScalar,
            _ if Some(i) == op.literal_k() => Class::LiteralK,
            _ if op.literal_k().is_some() && i > 0 => Class::Vgpr,
            _ if i == 2 && format == Format::Vop2 => {
                if inst.vop3 {
                    Class::ScalarMask
                } else {
                    Class::Vcc
                }
            }
            _ if inst.sdwa.is_some() => Class::SdwaSrc,
            _ if i == 1 && !inst.vop3 => Class::Vgpr,
            _ => Class::VectorSrc {
                literal: !inst.vop3 && i == 0,
            },
        };
        check_class(Slot::Src(i), class, src, w)?;
    }
    if let Some(off) = inst.srcs[1].filter(|_| format == Format::Smem) {
        check_class(Slot::Imm, Class::SmemOffset, off, Width::B32)?;
    }

    let mut literal = None;
    for (i, src) in inst.srcs.iter().enumerate() {
        if let (Some(Operand::Literal(v)), Some(&w)) = (src, sig.srcs.get(i)) {
            // Literals print as unsigned hex; reading that text back must give the literal.
            let always_literal =
                Some(i) == inst.opcode.literal_k() || inst.opcode.setreg_from_literal();
            if canonical_literals && Operand::Literal(*v).is_forced_literal(w) && !always_literal {
                return Err(OperandError::new(
                    Slot::Src(i),
                    ErrorKind::Literal,
                    format!("literal 0x{v:x} must be encoded as an inline constant"),
                ));
            }
            match literal {
                Some(prev) if prev != *v => {
                    return Err(OperandError::new(
                        Slot::Src(i),
                        ErrorKind::Literal,
                        "only one literal operand is allowed",
                    ))
                }
                _ => literal = Some(*v),
            }
        }
    }
    if valu {
        // llvm-mc counts distinct (register, size) reads: `vcc_lo` and `vcc` are two.
        let mut bus: Vec<(Operand, Width)> = Vec::new();
        // v_div_fmas_f32 reads VCC without naming it.
        if inst.opcode == Opcode::VDivFmasF32 {
            bus.push((Operand::VccLo, Width::B64));
        }
        for (i, (src, &w)) in inst.srcs.iter().zip(sig.srcs.iter()).enumerate() {
            let Some(s) = *src else { continue };
            // Literals and condition bits are one value whatever width reads them.
            let w = match s {
                Operand::Literal(_) | Operand::Vccz | Operand::Execz | Operand::Scc => Width::B32,
                _ => w,
            };
            if s.uses_constant_bus() && !bus.contains(&(s, w)) {
                bus.push((s, w));
                if bus.len() > 1 {
                    return Err(OperandError::new(
                        Slot::Src(i),
                        ErrorKind::ConstantBus,
                        "invalid operand (violates constant bus restrictions: at most one SGPR, \
                         special register or literal per VALU instruction)",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_presence(slot: Slot, op: Option<Operand>, expected: bool) -> Result<(), OperandError> {
    match (op.is_some(), expected) {
        (true, false) => Err(bad(slot, "unexpected operand")),
        (false, true) => Err(bad(slot, "missing operand")),
        _ => Ok(()),
    }
}

fn check_imm(inst: &Instruction) -> Result<(), OperandError> {
    let kind = inst.opcode.signature().imm;
    let max = match kind {
        ImmKind::None => 0,
        ImmKind::SmemOffset if inst.srcs[1].is_some() => 0,
        ImmKind::SmemOffset => 0xf_ffff,
        ImmKind::MubufOffset => 0xfff,
        _ => 0xffff,
    };
    if inst.imm > max {
        let what = match kind {
            ImmKind::None => "this instruction takes no immediate".to_string(),
            ImmKind::SmemOffset if inst.srcs[1].is_some() => {
                "an SGPR offset leaves no room for an immediate".to_string()
            }
            ImmKind::SmemOffset => "expected a 20-bit unsigned offset".to_string(),
            ImmKind::MubufOffset => "expected a 12-bit unsigned offset (0..=4095)".to_string(),
            _ => "expected a 16-bit immediate".to_string(),
        };
        return Err(OperandError::new(
            Slot::Imm,
            ErrorKind::ImmediateOutOfRange,
            what,
        ));
    }
    Ok(())
}

fn check_modifiers(inst: &Instruction) -> Result<(), OperandError> {
    let m = &inst.mods;
    let format = inst.opcode.format();
    let in_vop3 = inst.opcode.info().mods;
    let allowed = if inst.vop3 { in_vop3 } else { 0 };
    let fail = |name: &str| {
        let hint = if !inst.vop3 && in_vop3 != 0 {
            " in the e32 encoding (use _e64)"
        } else {
            ""
        };
        Err(OperandError::new(
            Slot::Modifiers,
            ErrorKind::Modifier,
            format!("{} does not accept {name}{hint}", inst.opcode),
        ))
    };
    if m.glc && !matches!(format, Format::Smem | Format::Flat | Format::Mubuf) {
        return fail("glc");
    }
    if inst.sdwa.is_some() {
        return check_sdwa_modifiers(inst);
    }
    if m.sext != 0 {
        return fail("sext (an SDWA modifier: use the _sdwa form)");
    }
    if m.slc && !matches!(format, Format::Flat | Format::Mubuf) {
        return fail("slc");
    }
    if m.gds && format != Format::Ds {
        return fail("gds");
    }
    if m.clamp && allowed & MOD_CLAMP == 0 {
        return fail("clamp");
    }
    if m.omod != crate::inst::Omod::None && allowed & MOD_OMOD == 0 {
        return fail("an output modifier");
    }
    if (m.neg | m.abs) != 0 {
        let srcs = inst.opcode.signature().srcs.len();
        // The select mask of v_cndmask_b32 (its third source) takes no modifiers.
        let nsrc = if format == Format::Vop2 {
            srcs.min(2)
        } else {
            srcs
        };
        // The second source of v_ldexp_f32 and v_cmp_class_f32 is an integer.
        let nsrc = if matches!(
            inst.opcode,
            Opcode::VLdexpF32 | Opcode::VCmpClassF32 | Opcode::VCmpxClassF32
        ) {
            1
        } else {
            nsrc
        };
        let valid_bits = (1u8 << nsrc) - 1;
        if allowed & MOD_INPUT == 0 || (m.neg | m.abs) & !valid_bits != 0 {
            return fail("input modifiers (neg/abs) on this operand");
        }
        // VOP3b (v_div_scale_f32) keeps its SGPR-pair destination where VOP3a has ABS.
        if m.abs != 0 && format == Format::Vop3 && inst.opcode.signature().sdst.is_some() {
            return fail("abs (VOP3b has no ABS field)");
        }
    }
    Ok(())
}

/// The modifiers of an SDWA instruction: `clamp` on any, no output modifier, `neg`/`abs` on
/// its float sources and `sext` on its integer ones (`Opcode::sdwa_float_src`), as llvm-mc's
/// VI tables allow.
fn check_sdwa_modifiers(inst: &Instruction) -> Result<(), OperandError> {
    let m = &inst.mods;
    let op = inst.opcode;
    let fail = |what: String| {
        Err(OperandError::new(
            Slot::Modifiers,
            ErrorKind::Modifier,
            format!("{op} does not accept {what} in the SDWA encoding"),
        ))
    };
    if m.omod != crate::inst::Omod::None || m.slc || m.gds {
        return fail("an output modifier, slc or gds".into());
    }
    let nsrc = op.signature().srcs.len().min(2);
    for i in 0..3 {
        let bit = 1u8 << i;
        let (float_mods, sext) = ((m.neg | m.abs) & bit != 0, m.sext & bit != 0);
        if !float_mods && !sext {
            continue;
        }
        if i >= nsrc {
            return fail(format!("input modifiers on source {i}"));
        }
        let float = op.sdwa_float_src(i);
        if float_mods && !float {
            return fail(format!("neg/abs on source {i}, an integer (it takes sext)"));
        }
        if sext && float {
            return fail(format!("sext on source {i}, a float (it takes neg/abs)"));
        }
    }
    Ok(())
}
