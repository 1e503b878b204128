//! Machine words -> instructions. Every decoded instruction passes the operand rules and
//! re-encodes to exactly the words it came from; words that are no instruction of the subset,
//! or that set bits the canonical encoding leaves zero, are a [`DecodeError`].

use crate::check::check_decoded;
use crate::encode::encode_decoded;
use crate::error::DecodeError;
use crate::inst::{
    DstUnused, Instruction, Modifiers, Omod, Operand, Sdwa, SdwaSel, LITERAL_CODE, SDWA_CODE,
};
use crate::opcode::{Format, Opcode};

/// Decodes a whole program image: `(byte pc, instruction)` for each instruction in order.
pub fn decode(words: &[u32]) -> Result<Vec<(u32, Instruction)>, DecodeError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (inst, len) = decode_one(&words[i..], 4 * i as u32)?;
        out.push((4 * i as u32, inst));
        i += len;
    }
    Ok(out)
}

/// Decodes the instruction at the start of `words` (`pc` is its byte address, used in errors);
/// returns it with its length in dwords.
pub fn decode_one(words: &[u32], pc: u32) -> Result<(Instruction, usize), DecodeError> {
    let w0 = *words.first().ok_or_else(|| DecodeError {
        offset: pc,
        word: 0,
        message: "no instruction word".into(),
    })?;
    let fail = |message: String| DecodeError {
        offset: pc,
        word: w0,
        message,
    };
    let format = format_of(w0).ok_or_else(|| fail("unknown encoding".into()))?;
    let sdwa = matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc)
        && w0 & 0x1ff == SDWA_CODE as u32;
    let wide = sdwa
        || matches!(
            format,
            Format::Smem | Format::Vop3 | Format::Flat | Format::Mubuf | Format::Ds
        );
    let w1 = if wide {
        Some(*words.get(1).ok_or_else(|| {
            fail(format!(
                "{format} instruction needs a second dword past the end"
            ))
        })?)
    } else {
        None
    };
    let base_len = if wide { 2 } else { 1 };
    // The literal, if the instruction uses one, is the dword after the instruction.
    let literal = words.get(base_len).copied();
    let mut inst = fields(format, w0, w1.unwrap_or(0), literal).map_err(&fail)?;
    if sdwa {
        sdwa_fields(&mut inst, w1.unwrap_or(0)).map_err(&fail)?;
    }
    check_decoded(&inst).map_err(|e| fail(e.message))?;
    let len = inst.size_dwords() as usize;
    if len > words.len() {
        return Err(fail("the literal dword is past the end".into()));
    }
    let canonical = encode_decoded(&inst).map_err(|e| fail(e.message))?;
    if canonical[..] != words[..len] {
        return Err(fail(format!(
            "non-canonical encoding of {inst} (fields outside the instruction are set)"
        )));
    }
    Ok((inst, len))
}

/// The microcode format selected by the top bits of the first dword.
fn format_of(w0: u32) -> Option<Format> {
    Some(match w0 >> 23 {
        0x17D => Format::Sop1,
        0x17E => Format::Sopc,
        0x17F => Format::Sopp,
        p if p >> 5 == 0b1011 => Format::Sopk,
        p if p >> 7 == 0b10 => Format::Sop2,
        _ => match w0 >> 26 {
            0x30 => Format::Smem,
            0x34 => Format::Vop3,
            0x36 => Format::Ds,
            0x37 => Format::Flat,
            0x38 => Format::Mubuf,
            _ => match w0 >> 25 {
                0x3F => Format::Vop1,
                0x3E => Format::Vopc,
                p if p >> 6 == 0 => Format::Vop2,
                _ => return None,
            },
        },
    })
}

fn operand(code: u32, literal: Option<u32>) -> Result<Operand, String> {
    Operand::from_code(code as u16, literal).ok_or_else(|| match code as u16 {
        LITERAL_CODE => "literal dword past the end".to_string(),
        c => format!("operand code {c} is not supported"),
    })
}

fn fields(format: Format, w0: u32, w1: u32, literal: Option<u32>) -> Result<Instruction, String> {
    let lookup = |code: u32| {
        Opcode::from_code(format, code as u16)
            .ok_or_else(|| format!("{format} opcode {code} is not supported"))
    };
    let sop = |c: u32| operand(c & 0xff, literal);
    let vsrc = |c: u32| operand(c & 0x1ff, literal);
    let vgpr = |c: u32| Operand::Vgpr((c & 0xff) as u8);
    // An SDWA SRC0 lives in the second dword (`sdwa_fields`); a placeholder until then.
    let vsrc0 = |c: u32| {
        if c & 0x1ff == SDWA_CODE as u32 {
            Ok(Operand::Vgpr(0))
        } else {
            vsrc(c)
        }
    };
    let mut inst;
    match format {
        Format::Sop1 => {
            inst = Instruction::new(lookup(w0 >> 8 & 0xff)?);
            inst.dst = Some(sop(w0 >> 16 & 0x7f)?);
            if !inst.opcode.signature().srcs.is_empty() {
                inst.srcs[0] = Some(sop(w0)?);
            }
        }
        Format::Sop2 => {
            inst = Instruction::new(lookup(w0 >> 23 & 0x7f)?);
            inst.dst = Some(sop(w0 >> 16 & 0x7f)?);
            inst.srcs[0] = Some(sop(w0)?);
            inst.srcs[1] = Some(sop(w0 >> 8)?);
        }
        Format::Sopk => {
            inst = Instruction::new(lookup(w0 >> 23 & 0x1f)?);
            let reg = Some(sop(w0 >> 16 & 0x7f)?);
            if inst.opcode.setreg_from_literal() {
                // The SDST field is unused (canonical: 0); the value is the literal dword.
                inst.srcs[0] = Some(Operand::Literal(
                    literal.ok_or("the value's literal dword is past the end")?,
                ));
            } else if inst.opcode.signature().dst.is_some() {
                inst.dst = reg;
            } else {
                inst.srcs[0] = reg;
            }
            inst.imm = w0 & 0xffff;
        }
        Format::Sopc => {
            inst = Instruction::new(lookup(w0 >> 16 & 0x7f)?);
            if !inst.opcode.signature().srcs.is_empty() {
                inst.srcs[0] = Some(sop(w0)?);
                inst.srcs[1] = Some(sop(w0 >> 8)?);
            }
        }
        Format::Sopp => {
            inst = Instruction::new(lookup(w0 >> 16 & 0x7f)?);
            inst.imm = w0 & 0xffff;
        }
        Format::Smem => {
            inst = Instruction::new(lookup(w0 >> 18 & 0xff)?);
            inst.dst = Some(sop(w0 >> 6 & 0x7f)?);
            inst.srcs[0] = Some(sop((w0 & 0x3f) << 1)?);
            inst.mods.glc = w0 >> 16 & 1 != 0;
            if w0 >> 17 & 1 != 0 {
                inst.imm = w1;
            } else {
                inst.srcs[1] = Some(sop(w1)?);
            }
        }
        Format::Vop1 => {
            inst = Instruction::new(lookup(w0 >> 9 & 0xff)?);
            if inst.opcode.is_lane_access() {
                inst.sdst = Some(sop(w0 >> 17 & 0xff)?);
            } else {
                inst.dst = Some(vgpr(w0 >> 17));
            }
            inst.srcs[0] = Some(vsrc0(w0)?);
        }
        Format::Vop2 => {
            inst = Instruction::new(lookup(w0 >> 25 & 0x3f)?);
            inst.dst = Some(vgpr(w0 >> 17));
            inst.srcs[0] = Some(vsrc0(w0)?);
            inst.srcs[1] = Some(vgpr(w0 >> 9));
            if let Some(k) = inst.opcode.literal_k() {
                // The VSRC1 register is madmk's third source; K is the literal dword.
                let v = inst.srcs[1];
                inst.srcs[k] = Some(Operand::Literal(
                    literal.ok_or("the constant K is past the end")?,
                ));
                inst.srcs[3 - k] = v;
            }
            implicit_vcc(&mut inst);
        }
        Format::Vopc => {
            inst = Instruction::new(lookup(w0 >> 17 & 0xff)?);
            inst.srcs[0] = Some(vsrc0(w0)?);
            inst.srcs[1] = Some(vgpr(w0 >> 9));
            inst.sdst = Some(Operand::VccLo);
        }
        Format::Vop3 => {
            inst = Instruction::new(lookup(w0 >> 16 & 0x3ff)?);
            inst.vop3 = true;
            let sig = inst.opcode.signature();
            let native = inst.opcode.format();
            if native == Format::Vopc || (inst.opcode.is_lane_access() && sig.sdst.is_some()) {
                inst.sdst = Some(sop(w0 & 0xff)?);
                inst.mods.abs = (w0 >> 8 & 7) as u8;
            } else {
                inst.dst = Some(vgpr(w0));
                if sig.sdst.is_some() {
                    inst.sdst = Some(sop(w0 >> 8 & 0x7f)?);
                } else {
                    inst.mods.abs = (w0 >> 8 & 7) as u8;
                }
            }
            for i in 0..sig.srcs.len() {
                inst.srcs[i] = Some(vsrc(w1 >> (9 * i))?);
            }
            inst.mods.clamp = w0 >> 15 & 1 != 0;
            inst.mods.omod = Omod::from_bits(w1 >> 27);
            inst.mods.neg = (w1 >> 29) as u8;
        }
        Format::Flat => {
            inst = Instruction::new(lookup(w0 >> 18 & 0x7f)?);
            inst.mods = Modifiers {
                glc: w0 >> 16 & 1 != 0,
                slc: w0 >> 17 & 1 != 0,
                ..Modifiers::default()
            };
            inst.srcs[0] = Some(vgpr(w1));
            let atomic = inst.opcode.is_flat_atomic();
            if inst.opcode.signature().dst.is_some() && (!atomic || inst.mods.glc) {
                inst.dst = Some(vgpr(w1 >> 24));
            }
            if inst.opcode.signature().dst.is_none() || atomic {
                inst.srcs[1] = Some(vgpr(w1 >> 8));
            }
        }
        Format::Mubuf => {
            inst = Instruction::new(lookup(w0 >> 18 & 0x7f)?);
            // IDXEN, LDS and TFE select forms pws does not model; the canonical re-encoding
            // would drop them, so name them.
            for (bit, word, name) in [(13, w0, "idxen"), (16, w0, "lds"), (23, w1, "tfe")] {
                if word >> bit & 1 != 0 {
                    return Err(format!(
                        "MUBUF `{name}` is not supported (pws runs clang's private-memory \
                         accesses: `off` or `offen`)"
                    ));
                }
            }
            inst.mods.glc = w0 >> 14 & 1 != 0;
            inst.mods.slc = w0 >> 17 & 1 != 0;
            inst.imm = w0 & 0xfff;
            if w0 >> 12 & 1 != 0 {
                inst.srcs[0] = Some(vgpr(w1));
            }
            inst.srcs[1] = Some(operand((w1 >> 16 & 0x1f) << 2, None)?);
            inst.srcs[2] = Some(operand(w1 >> 24, None)?);
            if inst.opcode.signature().dst.is_some() {
                inst.dst = Some(vgpr(w1 >> 8));
            } else {
                inst.srcs[3] = Some(vgpr(w1 >> 8));
            }
        }
        Format::Ds => {
            inst = Instruction::new(lookup(w0 >> 17 & 0xff)?);
            inst.mods.gds = w0 >> 16 & 1 != 0;
            inst.imm = w0 & 0xffff;
            let sig = inst.opcode.signature();
            if sig.dst.is_some() {
                inst.dst = Some(vgpr(w1 >> 24));
            }
            for i in 0..sig.srcs.len() {
                inst.srcs[i] = Some(vgpr(w1 >> (8 * i)));
            }
        }
    }
    Ok(inst)
}

/// e32 VOP2 carry and select instructions name VCC implicitly; the model keeps it explicit.
fn implicit_vcc(inst: &mut Instruction) {
    let sig = inst.opcode.signature();
    if sig.sdst.is_some() {
        inst.sdst = Some(Operand::VccLo);
    }
    if sig.srcs.len() == 3 && inst.opcode.literal_k().is_none() {
        inst.srcs[2] = Some(Operand::VccLo);
    }
}

/// Fills SRC0, the select fields and the modifiers of an SDWA instruction from its second
/// dword (layout: `encode::sdwa_dword`); bits the format does not have are left for the
/// canonical re-encoding to refuse.
fn sdwa_fields(inst: &mut Instruction, w1: u32) -> Result<(), String> {
    if !inst.opcode.has_sdwa_form() {
        return Err(format!("{} has no SDWA encoding", inst.opcode));
    }
    let sel = |shift: u32| {
        SdwaSel::from_bits(w1 >> shift & 7).ok_or_else(|| "reserved SDWA select 7".to_string())
    };
    let format = inst.opcode.format();
    let mut sdwa = Sdwa {
        src0_sel: sel(16)?,
        ..Sdwa::default()
    };
    if format != Format::Vopc {
        sdwa.dst_sel = sel(8)?;
        sdwa.dst_unused = DstUnused::from_bits(w1 >> 11 & 3)
            .ok_or_else(|| "reserved SDWA dst_unused 3".to_string())?;
    }
    if format != Format::Vop1 {
        sdwa.src1_sel = sel(24)?;
    }
    inst.srcs[0] = Some(Operand::Vgpr((w1 & 0xff) as u8));
    let bit = |b: u32| (w1 >> b & 1) as u8;
    inst.mods.clamp = bit(13) != 0;
    inst.mods.sext = bit(19) | bit(27) << 1;
    inst.mods.neg = bit(20) | bit(28) << 1;
    inst.mods.abs = bit(21) | bit(29) << 1;
    inst.sdwa = Some(sdwa);
    Ok(())
}
