//! llvm-mc text syntax for instructions: the disassembler's output and `Display` for
//! [`Instruction`](crate::Instruction). Printing then assembling gives the same instruction back.

use std::fmt::{self, Write};

use crate::inst::{Instruction, Omod, Operand};
use crate::opcode::{Format, ImmKind, Width};

/// `s_waitcnt` counter fields of gfx8: vmcnt bits 3:0, expcnt 6:4, lgkmcnt 11:8.
pub(crate) const VMCNT_MAX: u32 = 0xf;
pub(crate) const EXPCNT_MAX: u32 = 0x7;
pub(crate) const LGKMCNT_MAX: u32 = 0xf;
pub(crate) const WAITCNT_MASK: u32 = VMCNT_MAX | EXPCNT_MAX << 4 | LGKMCNT_MAX << 8;

/// gfx8's hardware registers by id, as `hwreg(...)` names them; id 0 and ids past 7 print as
/// numbers.
pub(crate) const HWREG_NAMES: [&str; 8] = [
    "",
    "HW_REG_MODE",
    "HW_REG_STATUS",
    "HW_REG_TRAPSTS",
    "HW_REG_HW_ID",
    "HW_REG_GPR_ALLOC",
    "HW_REG_LDS_ALLOC",
    "HW_REG_IB_STS",
];

/// `hwreg(REG, offset, size)`, or `hwreg(REG)` for the whole register, as llvm-mc prints it.
fn hwreg_text(imm: u32) -> String {
    let (id, offset, size) = (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1);
    let name = match HWREG_NAMES.get(id as usize) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => id.to_string(),
    };
    if offset == 0 && size == 32 {
        format!("hwreg({name})")
    } else {
        format!("hwreg({name}, {offset}, {size})")
    }
}

/// `buffer_store_dword v1, v2, s[0:3], s4 offen offset:8 glc slc`: VDATA, VADDR (`off`
/// without OFFEN), SRSRC and SOFFSET, then the modifiers in llvm-mc's order.
fn write_mubuf(f: &mut fmt::Formatter<'_>, inst: &Instruction) -> fmt::Result {
    let sig = inst.opcode.signature();
    let data = match (inst.dst, sig.dst) {
        (Some(d), Some(w)) => d.display(w).to_string(),
        _ => inst
            .src(3)
            .zip(sig.srcs.get(3))
            .map_or_else(String::new, |(d, w)| d.display(*w).to_string()),
    };
    let vaddr = inst
        .src(0)
        .map_or_else(|| "off".to_string(), |v| v.display(Width::B32).to_string());
    let operand = |i: usize, w: Width| {
        inst.src(i)
            .map_or_else(String::new, |o| o.display(w).to_string())
    };
    write!(
        f,
        " {data}, {vaddr}, {}, {}",
        operand(1, Width::B128),
        operand(2, Width::B32)
    )?;
    if inst.src(0).is_some() {
        f.write_str(" offen")?;
    }
    if inst.imm != 0 {
        write!(f, " offset:{}", inst.imm)?;
    }
    if inst.mods.glc {
        f.write_str(" glc")?;
    }
    if inst.mods.slc {
        f.write_str(" slc")?;
    }
    Ok(())
}

/// Writes `inst` in llvm-mc syntax; a branch prints `target_label` instead of its offset when
/// given.
pub(crate) fn write_instruction(
    f: &mut fmt::Formatter<'_>,
    inst: &Instruction,
    target_label: Option<&str>,
) -> fmt::Result {
    let op = inst.opcode;
    let sig = op.signature();
    f.write_str(op.mnemonic())?;
    // llvm-mc prints an SDWA compare without a suffix: its select modifiers mark it.
    if inst.sdwa.is_some() {
        if op.format() != Format::Vopc {
            f.write_str("_sdwa")?;
        }
    } else if op.has_vop3_form() {
        f.write_str(if inst.vop3 { "_e64" } else { "_e32" })?;
    }
    if op.format() == Format::Mubuf {
        return write_mubuf(f, inst);
    }
    let mut operands: Vec<String> = Vec::new();
    if let (Some(d), Some(w)) = (inst.dst, sig.dst) {
        operands.push(d.display(w).to_string());
    }
    if let (Some(d), Some(w)) = (inst.sdst, sig.sdst) {
        operands.push(d.display(w).to_string());
    }
    // `s_setreg_imm32_b32 hwreg(...), value`: llvm-mc prints the value in decimal where it
    // would be an inline integer, else in hex; `s_setreg_b32 hwreg(...), sN`.
    if sig.imm == ImmKind::Hwreg {
        operands.push(hwreg_text(inst.imm));
        match inst.srcs[0] {
            Some(Operand::Literal(v)) => operands.push(match v as i32 {
                k @ -16..=64 => k.to_string(),
                _ => format!("0x{v:x}"),
            }),
            Some(r) => operands.push(r.display(Width::B32).to_string()),
            None => {}
        }
        return write!(f, " {}", operands.join(", "));
    }
    for (i, (w, src)) in sig.srcs.iter().zip(inst.srcs.iter()).enumerate() {
        if let Some(s) = src_with_mods(inst, i, *src, *w) {
            operands.push(s);
        }
    }
    match sig.imm {
        ImmKind::None => {}
        ImmKind::Simm16 | ImmKind::Uimm16 => operands.push(format!("0x{:x}", inst.imm & 0xffff)),
        ImmKind::Nop => operands.push(small_dec_or_hex(inst.imm)),
        ImmKind::Hwreg => {}
        ImmKind::Branch => operands.push(match target_label {
            Some(l) => l.to_string(),
            None => inst.simm16().to_string(),
        }),
        ImmKind::Waitcnt => operands.push(waitcnt_text(inst.imm)),
        ImmKind::SmemOffset => operands.push(match inst.src(1) {
            Some(reg) => reg.display(Width::B32).to_string(),
            None => format!("0x{:x}", inst.imm),
        }),
        // DS offsets print as modifiers after the operands (below); MUBUF has its own writer.
        ImmKind::DsOffset | ImmKind::DsOffset2 | ImmKind::MubufOffset => {}
    }
    if !operands.is_empty() {
        write!(f, " {}", operands.join(", "))?;
    }
    match sig.imm {
        ImmKind::DsOffset if inst.imm != 0 => write!(f, " offset:{}", inst.imm)?,
        ImmKind::DsOffset2 => {
            if inst.imm & 0xff != 0 {
                write!(f, " offset0:{}", inst.imm & 0xff)?;
            }
            if inst.imm >> 8 != 0 {
                write!(f, " offset1:{}", inst.imm >> 8)?;
            }
        }
        _ => {}
    }
    let m = &inst.mods;
    if m.gds {
        f.write_str(" gds")?;
    }
    if m.glc {
        f.write_str(" glc")?;
    }
    if m.slc {
        f.write_str(" slc")?;
    }
    if m.clamp {
        f.write_str(" clamp")?;
    }
    match m.omod {
        Omod::None => {}
        Omod::Mul2 => f.write_str(" mul:2")?,
        Omod::Mul4 => f.write_str(" mul:4")?,
        Omod::Div2 => f.write_str(" div:2")?,
    }
    if let Some(sdwa) = inst.sdwa {
        if op.format() != Format::Vopc {
            write!(
                f,
                " dst_sel:{} dst_unused:{}",
                sdwa.dst_sel.name(),
                sdwa.dst_unused.name()
            )?;
        }
        write!(f, " src0_sel:{}", sdwa.src0_sel.name())?;
        if op.format() != Format::Vop1 {
            write!(f, " src1_sel:{}", sdwa.src1_sel.name())?;
        }
    }
    Ok(())
}

/// Source `i` with its VOP3 input modifiers, the way llvm-mc prints them: `-x`, `|x|`, `-|x|`,
/// and `neg(c)` for a negated constant (where `-c` would read as a different constant).
fn src_with_mods(inst: &Instruction, i: usize, src: Option<Operand>, w: Width) -> Option<String> {
    let s = src?;
    // A 16-bit instruction reads the low half of a literal and an inline float as its f16
    // bits; llvm-mc prints both as that half in hex.
    let text = match s {
        Operand::Float(c) if inst.opcode.is_int16() => format!("0x{:x}", c.f16_bits()),
        Operand::Literal(v) if inst.opcode.is_int16() => format!("0x{:x}", v & 0xffff),
        // A literal holding a value an inline constant would encode (a linker's resolved
        // `sym@rel32@hi`): `lit(..)` keeps it a literal when the text is assembled again.
        Operand::Literal(v) if s.is_forced_literal(w) && Some(i) != inst.opcode.literal_k() => {
            format!("lit(0x{v:x})")
        }
        _ => s.display(w).to_string(),
    };
    let neg = inst.mods.neg >> i & 1 != 0;
    let abs = inst.mods.abs >> i & 1 != 0;
    if inst.mods.sext >> i & 1 != 0 {
        return Some(format!("sext({text})"));
    }
    let mut out = String::new();
    let neg_mnemonic =
        neg && !abs && matches!(s, Operand::Int(_) | Operand::Float(_) | Operand::Literal(_));
    match (neg, abs) {
        (true, false) if neg_mnemonic => write!(out, "neg({text})").ok()?,
        (true, false) => write!(out, "-{text}").ok()?,
        (true, true) => write!(out, "-|{text}|").ok()?,
        (false, true) => write!(out, "|{text}|").ok()?,
        (false, false) => out = text,
    }
    Some(out)
}

/// llvm-mc prints small immediates in decimal and the rest in hex.
fn small_dec_or_hex(v: u32) -> String {
    if v <= 64 {
        v.to_string()
    } else {
        format!("0x{v:x}")
    }
}

/// `vmcnt(a) expcnt(b) lgkmcnt(c)`, omitting counters left at their maximum (no wait), as
/// llvm-mc does; a field with bits outside the three counters prints as a raw number so that
/// the text assembles back to the same word.
pub(crate) fn waitcnt_text(imm: u32) -> String {
    if imm & !WAITCNT_MASK & 0xffff != 0 {
        return format!("0x{imm:x}");
    }
    let vm = imm & VMCNT_MAX;
    let exp = imm >> 4 & EXPCNT_MAX;
    let lgkm = imm >> 8 & LGKMCNT_MAX;
    let all = vm == VMCNT_MAX && exp == EXPCNT_MAX && lgkm == LGKMCNT_MAX;
    let mut parts = Vec::new();
    if vm != VMCNT_MAX || all {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != EXPCNT_MAX || all {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != LGKMCNT_MAX || all {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    parts.join(" ")
}

/// Formats an instruction with a label in place of its branch offset.
pub struct WithLabel<'a> {
    pub(crate) inst: &'a Instruction,
    pub(crate) label: Option<&'a str>,
}

impl fmt::Display for WithLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_instruction(f, self.inst, self.label)
    }
}

impl Instruction {
    /// Displays the instruction with `label` printed as its branch target.
    pub fn display_with_label<'a>(&'a self, label: Option<&'a str>) -> WithLabel<'a> {
        WithLabel { inst: self, label }
    }
}
