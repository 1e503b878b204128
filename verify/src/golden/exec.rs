//! Semantics of one instruction for one context, written from the GCN3 ISA manual (scalar
//! ALU with SCC, vector ALU under EXEC & SpM with VCC/carry-out, compares, saveexec, branches,
//! scalar and flat memory, flat atomics, the LDS and its atomics). Control flow and PWS effects are returned as a [`Flow`] for the
//! scheduler; everything else is applied here. SDWA instructions read their sources through
//! [`sdwa_select`] and write their destination through [`sdwa_write`] around the same
//! operation as their VOP1/VOP2/VOPC forms.

use pws_isa::manifest::layout;
use pws_isa::{DstUnused, Format, Instruction, Omod, Opcode, Operand, SdwaSel, Width};

use super::f32::{self as fp, Cmp};
use super::lds::Lds;
use super::machine::{Context, LANES};
use super::memory::{GlobalMemory, MemFault};

/// What the scheduler does after the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Continue with the next instruction.
    Next,
    /// Continue at this byte address.
    Jump(u32),
    Endpgm,
    Barrier,
    /// `split` with mask M = sB:sA.
    Split(u64),
    Merge,
}

/// Why an instruction could not execute (the scheduler adds where).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    NotExecutable(String),
    Memory {
        lane: Option<usize>,
        fault: MemFault,
    },
}

fn not_executable<T>(why: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::NotExecutable(why.into()))
}

/// Executes `inst` at `pc` for context `c`; `vgprs` is the wavefront's shared vector file.
pub(crate) fn execute(
    inst: &Instruction,
    pc: u32,
    c: &mut Context,
    vgprs: &mut [[u32; LANES]],
    mem: &mut GlobalMemory,
    lds: &mut Lds,
) -> Result<Flow, Fault> {
    match inst.opcode.format() {
        Format::Sop1 => sop1(inst, pc, c),
        Format::Sop2 => sop2(inst, c),
        Format::Sopc => sopc(inst, c),
        Format::Sopk => sopk(inst, c),
        Format::Sopp => sopp(inst, pc, c),
        Format::Smem => smem(inst, c, mem),
        Format::Vop1 | Format::Vop2 | Format::Vop3 => valu(inst, c, vgprs),
        Format::Vopc => vopc(inst, c, vgprs),
        Format::Flat if inst.opcode.is_flat_atomic() => flat_atomic(inst, c, vgprs, mem),
        Format::Flat => flat(inst, c, vgprs, mem),
        Format::Mubuf => mubuf(inst, c, vgprs, mem),
        Format::Ds => ds(inst, c, vgprs, lds),
    }
}

fn src(inst: &Instruction, i: usize) -> Result<Operand, Fault> {
    inst.src(i)
        .ok_or_else(|| Fault::NotExecutable(format!("source {i} is missing")))
}

fn dst(inst: &Instruction) -> Result<Operand, Fault> {
    inst.dst
        .ok_or_else(|| Fault::NotExecutable("destination is missing".into()))
}

/// Reads a 32-bit scalar source. `src_execz` sees EXEC & SpM, like the execz branches.
fn read_s32(c: &Context, op: Operand) -> Result<u32, Fault> {
    match op {
        Operand::Vccz => Ok((c.scalar.vcc() == 0) as u32),
        Operand::Execz => Ok((c.active() == 0) as u32),
        Operand::Scc => Ok(c.scalar.scc as u32),
        Operand::Vgpr(n) => not_executable(format!("v{n} is not a scalar source")),
        _ => match op.constant_value32() {
            Some(v) => Ok(v),
            None => register(c, op.code()),
        },
    }
}

fn register(c: &Context, code: u16) -> Result<u32, Fault> {
    c.scalar.get(code).ok_or_else(|| {
        Fault::NotExecutable(format!(
            "scalar register code {code} is past the register file"
        ))
    })
}

/// Reads a 64-bit scalar source of `opcode`: a register pair, or a constant read as 64 bits
/// (a literal sign- or zero-extended as the operand's type says).
fn read_s64(c: &Context, opcode: Opcode, op: Operand) -> Result<u64, Fault> {
    match op {
        Operand::Vccz | Operand::Execz | Operand::Scc => read_s32(c, op).map(u64::from),
        Operand::Vgpr(n) => not_executable(format!("v{n} is not a scalar source")),
        _ => match op.constant_value64(opcode.sign_extends_literal64()) {
            Some(v) => Ok(v),
            None => {
                let lo = register(c, op.code())?;
                let hi = register(c, op.code() + 1)?;
                Ok(lo as u64 | (hi as u64) << 32)
            }
        },
    }
}

fn write_s(c: &mut Context, op: Operand, dwords: &[u32]) -> Result<(), Fault> {
    // FLAT_SCRATCH only configures the FLAT private aperture, which pws's FLAT does not
    // address (`pws_isa::subset`): the write is discarded.
    if matches!(op, Operand::FlatScratchLo | Operand::FlatScratchHi) {
        return Ok(());
    }
    if !op.is_scalar_register() {
        return not_executable(format!("{op:?} is not a writable scalar register"));
    }
    for (i, &v) in dwords.iter().enumerate() {
        if !c.scalar.set(op.code() + i as u16, v) {
            return not_executable(format!(
                "scalar register code {} is past the register file",
                op.code() + i as u16
            ));
        }
    }
    Ok(())
}

fn write_s32(c: &mut Context, op: Operand, v: u32) -> Result<(), Fault> {
    write_s(c, op, &[v])
}

fn write_s64(c: &mut Context, op: Operand, v: u64) -> Result<(), Fault> {
    write_s(c, op, &[v as u32, (v >> 32) as u32])
}

fn sop1(inst: &Instruction, pc: u32, c: &mut Context) -> Result<Flow, Fault> {
    use Opcode::*;
    let d = dst(inst)?;
    if inst.opcode == SGetpcB64 {
        // The address of the next instruction, in the code object's place in memory.
        write_s64(c, d, layout::CODE_BASE + u64::from(pc) + 4)?;
        return Ok(Flow::Next);
    }
    let s0 = src(inst, 0)?;
    match inst.opcode {
        SMovB32 => {
            let v = read_s32(c, s0)?;
            write_s32(c, d, v)?;
        }
        SMovB64 => {
            let v = read_s64(c, inst.opcode, s0)?;
            write_s64(c, d, v)?;
        }
        SNotB32 => {
            let v = !read_s32(c, s0)?;
            c.scalar.scc = v != 0;
            write_s32(c, d, v)?;
        }
        SNotB64 => {
            let v = !read_s64(c, inst.opcode, s0)?;
            c.scalar.scc = v != 0;
            write_s64(c, d, v)?;
        }
        SBrevB32 => {
            let v = read_s32(c, s0)?.reverse_bits();
            write_s32(c, d, v)?;
        }
        SBrevB64 => {
            let v = read_s64(c, inst.opcode, s0)?.reverse_bits();
            write_s64(c, d, v)?;
        }
        SBcnt0I32B32 | SBcnt1I32B32 | SBcnt0I32B64 | SBcnt1I32B64 => {
            let v = match inst.opcode {
                SBcnt0I32B32 => read_s32(c, s0)?.count_zeros(),
                SBcnt1I32B32 => read_s32(c, s0)?.count_ones(),
                SBcnt0I32B64 => read_s64(c, inst.opcode, s0)?.count_zeros(),
                _ => read_s64(c, inst.opcode, s0)?.count_ones(),
            };
            c.scalar.scc = v != 0;
            write_s32(c, d, v)?;
        }
        // Bit positions, or -1 when there is none (GCN3 manual).
        SFf0I32B32 => {
            let v = first_set(u64::from(!read_s32(c, s0)?));
            write_s32(c, d, v)?;
        }
        SFf1I32B32 => {
            let v = first_set(u64::from(read_s32(c, s0)?));
            write_s32(c, d, v)?;
        }
        SFf0I32B64 => {
            let v = first_set(!read_s64(c, inst.opcode, s0)?);
            write_s32(c, d, v)?;
        }
        SFf1I32B64 => {
            let v = first_set(read_s64(c, inst.opcode, s0)?);
            write_s32(c, d, v)?;
        }
        SFlbitI32B32 => {
            let v = leading_zeros_or_none(u64::from(read_s32(c, s0)?) << 32);
            write_s32(c, d, v)?;
        }
        SFlbitI32B64 => {
            let v = leading_zeros_or_none(read_s64(c, inst.opcode, s0)?);
            write_s32(c, d, v)?;
        }
        SFlbitI32 => {
            let v = leading_sign_bits32(read_s32(c, s0)? as i32);
            write_s32(c, d, v)?;
        }
        SFlbitI32I64 => {
            let v = leading_sign_bits(read_s64(c, inst.opcode, s0)? as i64);
            write_s32(c, d, v)?;
        }
        SSextI32I8 => {
            let v = read_s32(c, s0)? as u8 as i8 as i32 as u32;
            write_s32(c, d, v)?;
        }
        SSextI32I16 => {
            let v = read_s32(c, s0)? as u16 as i16 as i32 as u32;
            write_s32(c, d, v)?;
        }
        SBitset0B32 | SBitset1B32 => {
            let bit = 1u32 << (read_s32(c, s0)? & 31);
            let v = read_s32(c, d)?;
            let v = if inst.opcode == SBitset0B32 {
                v & !bit
            } else {
                v | bit
            };
            write_s32(c, d, v)?;
        }
        SAbsI32 => {
            let v = (read_s32(c, s0)? as i32).wrapping_abs() as u32;
            c.scalar.scc = v != 0;
            write_s32(c, d, v)?;
        }
        SAndSaveexecB64 | SOrSaveexecB64 | SXorSaveexecB64 | SAndn2SaveexecB64
        | SOrn2SaveexecB64 | SNandSaveexecB64 | SNorSaveexecB64 | SXnorSaveexecB64 => {
            // The source is read before the saved EXEC lands in the destination.
            let s = read_s64(c, inst.opcode, s0)?;
            let old = c.scalar.exec();
            write_s64(c, d, old)?;
            let exec = match inst.opcode {
                SAndSaveexecB64 => s & old,
                SOrSaveexecB64 => s | old,
                SXorSaveexecB64 => s ^ old,
                SAndn2SaveexecB64 => s & !old,
                SOrn2SaveexecB64 => s | !old,
                SNandSaveexecB64 => !(s & old),
                SNorSaveexecB64 => !(s | old),
                _ => !(s ^ old),
            };
            c.scalar.set_exec(exec);
            c.scalar.scc = exec != 0;
        }
        op => return not_executable(format!("{} is not a SOP1 operation", op.mnemonic())),
    }
    Ok(Flow::Next)
}

fn sop2(inst: &Instruction, c: &mut Context) -> Result<Flow, Fault> {
    use Opcode::*;
    let d = dst(inst)?;
    let (s0, s1) = (src(inst, 0)?, src(inst, 1)?);
    let scc_in = c.scalar.scc as u64;
    let wide = inst.opcode.signature().dst == Some(Width::B64);
    if inst.opcode == SBfmB64 {
        let (width, offset) = (read_s32(c, s0)? & 63, read_s32(c, s1)? & 63);
        let v = ((1u64 << width).wrapping_sub(1)) << offset;
        write_s64(c, d, v)?;
        return Ok(Flow::Next);
    }
    if wide {
        let a = read_s64(c, inst.opcode, s0)?;
        let (v, scc) = match inst.opcode {
            SCselectB64 => (
                if c.scalar.scc {
                    a
                } else {
                    read_s64(c, inst.opcode, s1)?
                },
                None,
            ),
            SBfeU64 | SBfeI64 => {
                let field = read_s32(c, s1)?;
                let v = scalar_bfe64(a, field & 63, field >> 16 & 0x7f, inst.opcode == SBfeI64);
                (v, Some(v != 0))
            }
            SLshlB64 | SLshrB64 | SAshrI64 => {
                let s = read_s32(c, s1)? & 63;
                let v = match inst.opcode {
                    SLshlB64 => a << s,
                    SLshrB64 => a >> s,
                    _ => ((a as i64) >> s) as u64,
                };
                (v, Some(v != 0))
            }
            op => {
                let b = read_s64(c, inst.opcode, s1)?;
                let v = match op {
                    SAndB64 => a & b,
                    SOrB64 => a | b,
                    SXorB64 => a ^ b,
                    SAndn2B64 => a & !b,
                    SOrn2B64 => a | !b,
                    SNandB64 => !(a & b),
                    SNorB64 => !(a | b),
                    SXnorB64 => !(a ^ b),
                    op => {
                        return not_executable(format!("{} is not a SOP2 operation", op.mnemonic()))
                    }
                };
                (v, Some(v != 0))
            }
        };
        if let Some(scc) = scc {
            c.scalar.scc = scc;
        }
        write_s64(c, d, v)?;
        return Ok(Flow::Next);
    }
    let a = read_s32(c, s0)?;
    let b = read_s32(c, s1)?;
    let (ai, bi) = (a as i32, b as i32);
    let nonzero = |v: u32| (v, Some(v != 0));
    let (v, scc) = match inst.opcode {
        SAddU32 => {
            let (v, carry) = a.overflowing_add(b);
            (v, Some(carry))
        }
        SSubU32 => (a.wrapping_sub(b), Some(b > a)),
        SAddI32 => {
            let (v, overflow) = ai.overflowing_add(bi);
            (v as u32, Some(overflow))
        }
        SSubI32 => {
            let (v, overflow) = ai.overflowing_sub(bi);
            (v as u32, Some(overflow))
        }
        SAddcU32 => {
            let sum = a as u64 + b as u64 + scc_in;
            (sum as u32, Some(sum > u32::MAX as u64))
        }
        SSubbU32 => (
            a.wrapping_sub(b).wrapping_sub(scc_in as u32),
            Some(b as u64 + scc_in > a as u64),
        ),
        // SCC says whether S0 was selected.
        SMinI32 => (if ai < bi { a } else { b }, Some(ai < bi)),
        SMinU32 => (a.min(b), Some(a < b)),
        SMaxI32 => (if ai > bi { a } else { b }, Some(ai > bi)),
        SMaxU32 => (a.max(b), Some(a > b)),
        SCselectB32 => (if c.scalar.scc { a } else { b }, None),
        SAndB32 => nonzero(a & b),
        SOrB32 => nonzero(a | b),
        SXorB32 => nonzero(a ^ b),
        SAndn2B32 => nonzero(a & !b),
        SOrn2B32 => nonzero(a | !b),
        SNandB32 => nonzero(!(a & b)),
        SNorB32 => nonzero(!(a | b)),
        SXnorB32 => nonzero(!(a ^ b)),
        SBfmB32 => ((1u32 << (a & 31)).wrapping_sub(1) << (b & 31), None),
        SBfeU32 | SBfeI32 => nonzero(scalar_bfe32(
            a,
            b & 31,
            b >> 16 & 0x7f,
            inst.opcode == SBfeI32,
        )),
        SAbsdiffI32 => nonzero(ai.wrapping_sub(bi).wrapping_abs() as u32),
        SLshlB32 => nonzero(a << (b & 31)),
        SLshrB32 => nonzero(a >> (b & 31)),
        SAshrI32 => nonzero((ai >> (b & 31)) as u32),
        SMulI32 => (a.wrapping_mul(b), None),
        op => return not_executable(format!("{} is not a SOP2 operation", op.mnemonic())),
    };
    if let Some(scc) = scc {
        c.scalar.scc = scc;
    }
    write_s32(c, d, v)?;
    Ok(Flow::Next)
}

fn sopc(inst: &Instruction, c: &mut Context) -> Result<Flow, Fault> {
    use Opcode::*;
    match inst.opcode {
        Merge => return Ok(Flow::Merge),
        Split => {
            let lo = read_s32(c, src(inst, 0)?)?;
            let hi = read_s32(c, src(inst, 1)?)?;
            return Ok(Flow::Split(lo as u64 | (hi as u64) << 32));
        }
        SCmpEqU64 | SCmpLgU64 => {
            let a = read_s64(c, inst.opcode, src(inst, 0)?)?;
            let b = read_s64(c, inst.opcode, src(inst, 1)?)?;
            c.scalar.scc = (a == b) == (inst.opcode == SCmpEqU64);
            return Ok(Flow::Next);
        }
        SBitcmp0B64 | SBitcmp1B64 => {
            let a = read_s64(c, inst.opcode, src(inst, 0)?)?;
            let bit = a >> (read_s32(c, src(inst, 1)?)? & 63) & 1;
            c.scalar.scc = bit == u64::from(inst.opcode == SBitcmp1B64);
            return Ok(Flow::Next);
        }
        _ => {}
    }
    let a = read_s32(c, src(inst, 0)?)?;
    let b = read_s32(c, src(inst, 1)?)?;
    let (ai, bi) = (a as i32, b as i32);
    c.scalar.scc = match inst.opcode {
        SCmpEqI32 | SCmpEqU32 => a == b,
        SCmpLgI32 | SCmpLgU32 => a != b,
        SCmpGtI32 => ai > bi,
        SCmpGeI32 => ai >= bi,
        SCmpLtI32 => ai < bi,
        SCmpLeI32 => ai <= bi,
        SCmpGtU32 => a > b,
        SCmpGeU32 => a >= b,
        SCmpLtU32 => a < b,
        SCmpLeU32 => a <= b,
        SBitcmp0B32 => a >> (b & 31) & 1 == 0,
        SBitcmp1B32 => a >> (b & 31) & 1 == 1,
        op => return not_executable(format!("{} is not a SOPC operation", op.mnemonic())),
    };
    Ok(Flow::Next)
}

fn sopk(inst: &Instruction, c: &mut Context) -> Result<Flow, Fault> {
    use Opcode::*;
    let simm = inst.simm16() as i32;
    let uimm = inst.imm & 0xffff;
    match inst.opcode {
        // The f32 denormal mode (the only field the subset lets it write) stays flushed.
        SSetregB32 | SSetregImm32B32 => {}
        SMovkI32 => write_s32(c, dst(inst)?, simm as u32)?,
        SAddkI32 => {
            let d = dst(inst)?;
            let (v, overflow) = (read_s32(c, d)? as i32).overflowing_add(simm);
            c.scalar.scc = overflow;
            write_s32(c, d, v as u32)?;
        }
        SMulkI32 => {
            let d = dst(inst)?;
            let v = (read_s32(c, d)? as i32).wrapping_mul(simm);
            write_s32(c, d, v as u32)?;
        }
        op => {
            let a = read_s32(c, src(inst, 0)?)?;
            let ai = a as i32;
            c.scalar.scc = match op {
                SCmpkEqI32 => ai == simm,
                SCmpkLgI32 => ai != simm,
                SCmpkGtI32 => ai > simm,
                SCmpkGeI32 => ai >= simm,
                SCmpkLtI32 => ai < simm,
                SCmpkLeI32 => ai <= simm,
                SCmpkEqU32 => a == uimm,
                SCmpkLgU32 => a != uimm,
                SCmpkGtU32 => a > uimm,
                SCmpkGeU32 => a >= uimm,
                SCmpkLtU32 => a < uimm,
                SCmpkLeU32 => a <= uimm,
                op => return not_executable(format!("{} is not a SOPK operation", op.mnemonic())),
            };
        }
    }
    Ok(Flow::Next)
}

fn sopp(inst: &Instruction, pc: u32, c: &Context) -> Result<Flow, Fault> {
    use Opcode::*;
    let taken = match inst.opcode {
        // Untimed: every result is visible at once, so waits and nops do nothing.
        SNop | SWaitcnt => return Ok(Flow::Next),
        SEndpgm => return Ok(Flow::Endpgm),
        SBarrier => return Ok(Flow::Barrier),
        SBranch => true,
        SCbranchScc0 => !c.scalar.scc,
        SCbranchScc1 => c.scalar.scc,
        SCbranchVccz => c.scalar.vcc() == 0,
        SCbranchVccnz => c.scalar.vcc() != 0,
        // A split context owns only the lanes of its SpM (thesis Table 4.1).
        SCbranchExecz => c.active() == 0,
        SCbranchExecnz => c.active() != 0,
        op => return not_executable(format!("{} is not a SOPP operation", op.mnemonic())),
    };
    if !taken {
        return Ok(Flow::Next);
    }
    match inst.branch_target(pc) {
        Some(target) => Ok(Flow::Jump(target)),
        None => not_executable("branch target is below address 0"),
    }
}

fn smem(inst: &Instruction, c: &mut Context, mem: &GlobalMemory) -> Result<Flow, Fault> {
    let d = dst(inst)?;
    let base = read_s64(c, inst.opcode, src(inst, 0)?)?;
    let offset = match inst.src(1) {
        Some(op) => read_s32(c, op)? as u64,
        None => inst.imm as u64,
    };
    // SMEM ignores the two low address bits (GCN3 manual, scalar memory operations).
    let addr = base.wrapping_add(offset) & !3;
    let dwords = inst.opcode.signature().dst.map_or(1, Width::dwords);
    let mut data = Vec::with_capacity(dwords as usize);
    for i in 0..dwords as u64 {
        let a = addr.wrapping_add(4 * i);
        data.push(
            mem.read(a)
                .map_err(|fault| Fault::Memory { lane: None, fault })?,
        );
    }
    write_s(c, d, &data)?;
    Ok(Flow::Next)
}

/// Bits of `mask`, lowest first.
fn lanes(mask: u64) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |&l| mask >> l & 1 == 1)
}

fn vgpr_index(op: Operand, dwords: u8, vgprs: usize) -> Result<usize, Fault> {
    match op {
        Operand::Vgpr(n) if n as usize + dwords as usize <= vgprs => Ok(n as usize),
        Operand::Vgpr(n) => not_executable(format!("v{n} is past the vector register file")),
        _ => not_executable(format!("{op:?} is not a vector register")),
    }
}

/// A 32-bit vector source for every lane (scalars and constants are broadcast).
fn read_v32(c: &Context, vgprs: &[[u32; LANES]], op: Operand) -> Result<[u32; LANES], Fault> {
    match op {
        Operand::Vgpr(_) => Ok(vgprs[vgpr_index(op, 1, vgprs.len())?]),
        _ => Ok([read_s32(c, op)?; LANES]),
    }
}

/// A 64-bit vector source for every lane.
fn read_v64(
    c: &Context,
    vgprs: &[[u32; LANES]],
    opcode: Opcode,
    op: Operand,
) -> Result<[u64; LANES], Fault> {
    match op {
        Operand::Vgpr(_) => {
            let n = vgpr_index(op, 2, vgprs.len())?;
            Ok(std::array::from_fn(|l| {
                vgprs[n][l] as u64 | (vgprs[n + 1][l] as u64) << 32
            }))
        }
        _ => Ok([read_s64(c, opcode, op)?; LANES]),
    }
}

/// SDWA source select (GCN3 manual, SDWA): the byte or word SRCn_SEL names, moved to bit 0
/// and zero-extended, or sign-extended with `sext`; DWORD reads the whole register.
pub(crate) fn sdwa_select(x: u32, sel: SdwaSel, sext: bool) -> u32 {
    let (offset, bits) = sel.field();
    if bits == 32 {
        return x;
    }
    let field = x >> offset & ((1 << bits) - 1);
    if sext {
        ((field << (32 - bits)) as i32 >> (32 - bits)) as u32
    } else {
        field
    }
}

/// SDWA destination write: the low bits of the result `r` go to the field DST_SEL names; the
/// other bits of the register are zero (UNUSED_PAD), copies of the field's top bit above it
/// and zero below (UNUSED_SEXT), or those of the register's old value `old`
/// (UNUSED_PRESERVE). DWORD writes the whole result.
pub(crate) fn sdwa_write(r: u32, old: u32, sel: SdwaSel, unused: DstUnused) -> u32 {
    let (offset, bits) = sel.field();
    if bits == 32 {
        return r;
    }
    let field_mask = ((1u32 << bits) - 1) << offset;
    let placed = r << offset & field_mask;
    match unused {
        DstUnused::Pad => placed,
        DstUnused::Sext if r >> (bits - 1) & 1 == 1 => {
            placed | u32::MAX.checked_shl(offset + bits).unwrap_or(0)
        }
        DstUnused::Sext => placed,
        DstUnused::Preserve => old & !field_mask | placed,
    }
}

/// Source `i` (0 or 1) of a VOP1/VOP2/VOPC instruction for every lane: through the SDWA
/// select of an SDWA instruction (which reads VGPRs only).
fn read_src32(
    inst: &Instruction,
    c: &Context,
    vgprs: &[[u32; LANES]],
    i: usize,
) -> Result<[u32; LANES], Fault> {
    let v = read_v32(c, vgprs, src(inst, i)?)?;
    Ok(match inst.sdwa {
        Some(sdwa) => {
            let sel = if i == 0 { sdwa.src0_sel } else { sdwa.src1_sel };
            let sext = inst.mods.sext >> i & 1 == 1;
            v.map(|x| sdwa_select(x, sel, sext))
        }
        None => v,
    })
}

/// The value a VOP1/VOP2 instruction writes to its destination register, whose value is
/// `old`: `r`, or `r` through the SDWA destination select.
fn dst_value(inst: &Instruction, r: u32, old: u32) -> u32 {
    match inst.sdwa {
        Some(sdwa) => sdwa_write(r, old, sdwa.dst_sel, sdwa.dst_unused),
        None => r,
    }
}

/// Integer instructions run without VOP3 modifiers, but for two: `v_cndmask_b32` may carry
/// `neg`/`abs`, which act on the sign bit of the selected value, and the unsigned add and
/// subtracts `clamp` (saturation, [`pws_isa::subset::clamp_saturates`]).
fn check_integer_modifiers(inst: &Instruction) -> Result<(), Fault> {
    let m = inst.mods;
    let input_ok = inst.opcode == Opcode::VCndmaskB32;
    if (m.clamp && !pws_isa::subset::clamp_saturates(inst.opcode))
        || m.omod != Omod::None
        || (!input_ok && (m.neg != 0 || m.abs != 0))
    {
        return not_executable("VOP3 clamp/neg/abs/omod on an integer instruction");
    }
    Ok(())
}

/// Applies the `abs` then `neg` input modifiers of source `i` to a 32-bit value's sign bit.
fn input_modifiers(inst: &Instruction, i: usize, v: [u32; LANES]) -> [u32; LANES] {
    let abs = inst.mods.abs >> i & 1 == 1;
    let neg = inst.mods.neg >> i & 1 == 1;
    v.map(|x| {
        let x = if abs { x & 0x7fff_ffff } else { x };
        if neg {
            x ^ 0x8000_0000
        } else {
            x
        }
    })
}

/// The f32 output modifiers (docs/float.md, steps 5 and 6) of a floating-point result.
fn output_modifiers(inst: &Instruction, r: u32) -> u32 {
    let r = match inst.mods.omod {
        Omod::None => r,
        Omod::Mul2 => fp::omod(r, 1),
        Omod::Mul4 => fp::omod(r, 2),
        Omod::Div2 => fp::omod(r, -1),
    };
    if inst.mods.clamp {
        fp::clamp(r)
    } else {
        r
    }
}

/// The f32 vector ALU (docs/float.md): sources after the abs/neg modifiers, results through
/// omod and clamp unless they are integers.
fn valu_f32(
    inst: &Instruction,
    c: &mut Context,
    vgprs: &mut [[u32; LANES]],
) -> Result<Flow, Fault> {
    use Opcode::*;
    let op = inst.opcode;
    let mut v = [[0u32; LANES]; 3];
    for (i, slot) in v.iter_mut().enumerate().take(op.signature().srcs.len()) {
        let x = if i < 2 {
            read_src32(inst, c, vgprs, i)?
        } else {
            read_v32(c, vgprs, src(inst, i)?)?
        };
        *slot = input_modifiers(inst, i, x);
    }
    let d = dst(inst)?;
    let n = vgpr_index(d, 1, vgprs.len())?;
    if op == VMacF32 {
        // The destination is the addend.
        v[2] = vgprs[n];
    }
    let vcc = c.scalar.vcc();
    let mut flags = 0u64;
    for l in lanes(c.active()) {
        let (x, y, z) = (v[0][l], v[1][l], v[2][l]);
        let float = |r: u32| output_modifiers(inst, r);
        let r = match op {
            VAddF32 => float(fp::add(x, y)),
            VSubF32 => float(fp::sub(x, y)),
            VSubrevF32 => float(fp::sub(y, x)),
            VMulF32 => float(fp::mul(x, y)),
            // madmk's K is its second source, madak's its third: the operand order is S0 * S1 + S2.
            VMacF32 | VMadF32 | VMadmkF32 | VMadakF32 => float(fp::mad(x, y, z)),
            VFmaF32 => float(fp::fma(x, y, z)),
            VMinF32 => float(fp::min(x, y)),
            VMaxF32 => float(fp::max(x, y)),
            VMin3F32 => float(fp::min(fp::min(x, y), z)),
            VMax3F32 => float(fp::max(fp::max(x, y), z)),
            VMed3F32 => float(fp::med3(x, y, z)),
            VLdexpF32 => float(fp::ldexp(x, y)),
            VCvtF32I32 => float(fp::cvt_f32_i32(x)),
            VCvtF32U32 => float(fp::cvt_f32_u32(x)),
            VCvtF32Ubyte0 => float(fp::cvt_f32_ubyte(x, 0)),
            VCvtF32Ubyte1 => float(fp::cvt_f32_ubyte(x, 1)),
            VCvtF32Ubyte2 => float(fp::cvt_f32_ubyte(x, 2)),
            VCvtF32Ubyte3 => float(fp::cvt_f32_ubyte(x, 3)),
            VCvtI32F32 => fp::cvt_i32_f32(x),
            VCvtU32F32 => fp::cvt_u32_f32(x),
            VCvtRpiI32F32 => fp::cvt_rpi_i32(x),
            VCvtFlrI32F32 => fp::cvt_flr_i32(x),
            VFrexpExpI32F32 => fp::frexp_exp(x),
            VFrexpMantF32 => float(fp::frexp_mant(x)),
            VFractF32 => float(fp::fract(x)),
            VTruncF32 => float(fp::trunc(x)),
            VCeilF32 => float(fp::ceil(x)),
            VRndneF32 => float(fp::rndne(x)),
            VFloorF32 => float(fp::floor(x)),
            VExpF32 => float(fp::exp2(x)),
            VLogF32 => float(fp::log2(x)),
            VRcpF32 | VRcpIflagF32 => float(fp::rcp(x)),
            VRsqF32 => float(fp::rsq(x)),
            VSqrtF32 => float(fp::sqrt(x)),
            VSinF32 => float(fp::sin_cos(x, false)),
            VCosF32 => float(fp::sin_cos(x, true)),
            VDivScaleF32 => {
                let (r, flag) = fp::div_scale(x, y, z);
                flags |= u64::from(flag) << l;
                float(r)
            }
            VDivFmasF32 => float(fp::div_fmas(x, y, z, vcc >> l & 1 == 1)),
            VDivFixupF32 => float(fp::div_fixup(x, y, z)),
            _ => return not_executable(format!("{} is not an f32 ALU operation", op.mnemonic())),
        };
        vgprs[n][l] = dst_value(inst, r, vgprs[n][l]);
    }
    // The scale flags of lanes that did not run are 0, as carry-outs.
    if let Some(sd) = inst.sdst {
        write_s64(c, sd, flags)?;
    }
    Ok(Flow::Next)
}

/// The f32 compares and `v_cmp_class_f32` (class sees the unflushed value).
fn vopc_f32(inst: &Instruction, c: &mut Context, vgprs: &[[u32; LANES]]) -> Result<Flow, Fault> {
    let a = input_modifiers(inst, 0, read_src32(inst, c, vgprs, 0)?);
    let b = input_modifiers(inst, 1, read_src32(inst, c, vgprs, 1)?);
    let code = inst.opcode.code();
    let mut mask = 0u64;
    for l in lanes(c.active()) {
        let r = match code {
            0x10 | 0x11 => fp::class(a[l], b[l]),
            _ => fp::compare(Cmp::ALL[usize::from(code & 0xF)], a[l], b[l]),
        };
        mask |= u64::from(r) << l;
    }
    if let Some(sd) = inst.sdst {
        write_s64(c, sd, mask)?;
    }
    if inst.opcode.is_cmpx() {
        c.scalar.set_exec(mask);
    }
    Ok(Flow::Next)
}

/// `v_readlane_b32 sD, vS, lane`, `v_writelane_b32 vD, value, lane` and
/// `v_readfirstlane_b32 sD, vS`: one lane of a VGPR whatever EXEC is, lane `lane & 63`; the
/// first lane is the lowest of EXEC & SpM, lane 0 when there is none.
fn lane_access(
    inst: &Instruction,
    c: &mut Context,
    vgprs: &mut [[u32; LANES]],
) -> Result<Flow, Fault> {
    let lane = |c: &Context| -> Result<usize, Fault> {
        Ok(match inst.opcode {
            Opcode::VReadfirstlaneB32 => (c.active().trailing_zeros() % 64) as usize,
            _ => (read_s32(c, src(inst, 1)?)? & 63) as usize,
        })
    };
    if !inst.opcode.is_lane_read() {
        let v = read_s32(c, src(inst, 0)?)?;
        let n = vgpr_index(dst(inst)?, 1, vgprs.len())?;
        vgprs[n][lane(c)?] = v;
    } else {
        let n = vgpr_index(src(inst, 0)?, 1, vgprs.len())?;
        let sd = inst
            .sdst
            .ok_or_else(|| Fault::NotExecutable("destination is missing".into()))?;
        let v = vgprs[n][lane(c)?];
        write_s32(c, sd, v)?;
    }
    Ok(Flow::Next)
}

fn valu(inst: &Instruction, c: &mut Context, vgprs: &mut [[u32; LANES]]) -> Result<Flow, Fault> {
    use Opcode::*;
    if inst.opcode.is_f32() {
        return valu_f32(inst, c, vgprs);
    }
    check_integer_modifiers(inst)?;
    if inst.opcode.is_int16() {
        return valu_int16(inst, c, vgprs);
    }
    if inst.opcode.is_lane_access() {
        return lane_access(inst, c, vgprs);
    }
    let active = c.active();
    let d = dst(inst)?;
    if let VLshlrevB64 | VLshrrevB64 | VAshrrevI64 = inst.opcode {
        let shift = read_v32(c, vgprs, src(inst, 0)?)?;
        let value = read_v64(c, vgprs, inst.opcode, src(inst, 1)?)?;
        let n = vgpr_index(d, 2, vgprs.len())?;
        for l in lanes(active) {
            let s = shift[l] & 63;
            let v = match inst.opcode {
                VLshlrevB64 => value[l] << s,
                VLshrrevB64 => value[l] >> s,
                _ => ((value[l] as i64) >> s) as u64,
            };
            vgprs[n][l] = v as u32;
            vgprs[n + 1][l] = (v >> 32) as u32;
        }
        return Ok(Flow::Next);
    }
    if let VMadU64U32 | VMadI64I32 = inst.opcode {
        // {carry, D} = S0 * S1 + S2 as a 65-bit (unsigned or two's complement) sum.
        let x = read_v32(c, vgprs, src(inst, 0)?)?;
        let y = read_v32(c, vgprs, src(inst, 1)?)?;
        let z = read_v64(c, vgprs, inst.opcode, src(inst, 2)?)?;
        let n = vgpr_index(d, 2, vgprs.len())?;
        let mut carry_out = 0u64;
        for l in lanes(active) {
            let sum = if inst.opcode == VMadU64U32 {
                (u128::from(x[l]) * u128::from(y[l]) + u128::from(z[l])) as i128
            } else {
                i128::from(x[l] as i32) * i128::from(y[l] as i32) + i128::from(z[l] as i64)
            };
            vgprs[n][l] = sum as u32;
            vgprs[n + 1][l] = (sum >> 32) as u32;
            carry_out |= ((sum >> 64) as u64 & 1) << l;
        }
        if let Some(sd) = inst.sdst {
            write_s64(c, sd, carry_out)?;
        }
        return Ok(Flow::Next);
    }
    let a = input_modifiers(inst, 0, read_src32(inst, c, vgprs, 0)?);
    let b = match inst.src(1) {
        Some(_) => input_modifiers(inst, 1, read_src32(inst, c, vgprs, 1)?),
        None => [0; LANES],
    };
    let (c32, mask) = match (inst.opcode, inst.src(2)) {
        (VCndmaskB32 | VAddcU32 | VSubbU32 | VSubbrevU32, Some(op)) => {
            ([0; LANES], read_s64(c, inst.opcode, op)?)
        }
        (_, Some(op)) => (read_v32(c, vgprs, op)?, 0),
        (_, None) => ([0; LANES], 0),
    };
    let n = vgpr_index(d, 1, vgprs.len())?;
    let mut carry_out = 0u64;
    for l in lanes(active) {
        let (x, y, z) = (a[l], b[l], c32[l]);
        let cin = (mask >> l & 1) as u32;
        let u24 = |v: u32| v & 0x00ff_ffff;
        let i24 = |v: u32| ((v << 8) as i32 >> 8) as i64;
        let (xi, yi, zi) = (x as i32, y as i32, z as i32);
        let (v, carry) = match inst.opcode {
            VMovB32 => (x, false),
            VNotB32 => (!x, false),
            VBfrevB32 => (x.reverse_bits(), false),
            VFfbhU32 => (leading_zeros_or_none(u64::from(x) << 32), false),
            VFfblB32 => (first_set(u64::from(x)), false),
            VFfbhI32 => (leading_sign_bits32(xi), false),
            VMulI32I24 => ((i24(x) * i24(y)) as u32, false),
            VMulHiI32I24 => (((i24(x) * i24(y)) >> 32) as u32, false),
            VMulHiU32U24 => (
                ((u64::from(u24(x)) * u64::from(u24(y))) >> 32) as u32,
                false,
            ),
            VMadI32I24 => (((i24(x) * i24(y)) as u32).wrapping_add(z), false),
            VBfiB32 => ((x & y) | (!x & z), false),
            VPermB32 => (byte_permute(x, y, z), false),
            VAlignbitB32 => (
                ((u64::from(x) << 32 | u64::from(y)) >> (z & 31)) as u32,
                false,
            ),
            VAlignbyteB32 => (
                ((u64::from(x) << 32 | u64::from(y)) >> (8 * (z & 3))) as u32,
                false,
            ),
            VMin3I32 => (xi.min(yi).min(zi) as u32, false),
            VMin3U32 => (x.min(y).min(z), false),
            VMax3I32 => (xi.max(yi).max(zi) as u32, false),
            VMax3U32 => (x.max(y).max(z), false),
            VMed3I32 => (xi.max(yi).min(xi.min(yi).max(zi)) as u32, false),
            VMed3U32 => (x.max(y).min(x.min(y).max(z)), false),
            VBcntU32B32 => (x.count_ones().wrapping_add(y), false),
            VBfmB32 => ((1u32 << (x & 31)).wrapping_sub(1) << (y & 31), false),
            VSubbrevU32 => (
                y.wrapping_sub(x).wrapping_sub(cin),
                x as u64 + cin as u64 > y as u64,
            ),
            VCndmaskB32 => (if cin == 1 { y } else { x }, false),
            VMulU32U24 => (u24(x).wrapping_mul(u24(y)), false),
            VMinI32 => ((x as i32).min(y as i32) as u32, false),
            VMaxI32 => ((x as i32).max(y as i32) as u32, false),
            VMinU32 => (x.min(y), false),
            VMaxU32 => (x.max(y), false),
            // The *rev shifts take the shift amount first.
            VLshrrevB32 => (y >> (x & 31), false),
            VAshrrevI32 => (((y as i32) >> (x & 31)) as u32, false),
            VLshlrevB32 => (y << (x & 31), false),
            VAndB32 => (x & y, false),
            VOrB32 => (x | y, false),
            VXorB32 => (x ^ y, false),
            VAddU32 => x.overflowing_add(y),
            VSubU32 => (x.wrapping_sub(y), y > x),
            VSubrevU32 => (y.wrapping_sub(x), x > y),
            VAddcU32 => {
                let sum = x as u64 + y as u64 + cin as u64;
                (sum as u32, sum > u32::MAX as u64)
            }
            VSubbU32 => (
                x.wrapping_sub(y).wrapping_sub(cin),
                y as u64 + cin as u64 > x as u64,
            ),
            VMadU32U24 => (u24(x).wrapping_mul(u24(y)).wrapping_add(z), false),
            VBfeU32 => (bfe(x, y, z), false),
            VBfeI32 => (bfe_signed(x, y, z), false),
            VMulLoU32 => (x.wrapping_mul(y), false),
            VMulHiU32 => (((x as u64 * y as u64) >> 32) as u32, false),
            VMulHiI32 => (((x as i32 as i64 * y as i32 as i64) >> 32) as u32, false),
            op => {
                return not_executable(format!("{} is not a vector ALU operation", op.mnemonic()))
            }
        };
        let v = match (inst.mods.clamp && carry, inst.opcode) {
            (true, VAddU32) => u32::MAX,
            (true, _) => 0,
            (false, _) => v,
        };
        vgprs[n][l] = dst_value(inst, v, vgprs[n][l]);
        carry_out |= (carry as u64) << l;
    }
    // Carry-out bits of lanes that did not run are 0, as for compares.
    if let Some(sd) = inst.sdst {
        write_s64(c, sd, carry_out)?;
    }
    Ok(Flow::Next)
}

/// The 16-bit integer instructions (GCN3 manual, VOP2 and VOP3 opcodes 0x26-0x32, 0x1EB,
/// 0x1EC): the low halves of the sources (after an SDWA select), a 16-bit result that gfx8
/// writes zero-extended (then through an SDWA destination select); shifts take the amount's
/// low 4 bits.
fn valu_int16(
    inst: &Instruction,
    c: &mut Context,
    vgprs: &mut [[u32; LANES]],
) -> Result<Flow, Fault> {
    use Opcode::*;
    let a = read_src32(inst, c, vgprs, 0)?;
    let b = read_src32(inst, c, vgprs, 1)?;
    let z = match inst.src(2) {
        Some(op) => read_v32(c, vgprs, op)?,
        None => [0; LANES],
    };
    let n = vgpr_index(dst(inst)?, 1, vgprs.len())?;
    for l in lanes(c.active()) {
        let (x, y) = (a[l] as u16, b[l] as u16);
        let (xi, yi) = (x as i16, y as i16);
        // `clamp` saturates the unsigned add and subtracts (`subset::clamp_saturates`).
        let sat = inst.mods.clamp;
        let v: u16 = match inst.opcode {
            VAddU16 if sat => x.saturating_add(y),
            VSubU16 if sat => x.saturating_sub(y),
            VSubrevU16 if sat => y.saturating_sub(x),
            VAddU16 => x.wrapping_add(y),
            VSubU16 => x.wrapping_sub(y),
            VSubrevU16 => y.wrapping_sub(x),
            VMulLoU16 => x.wrapping_mul(y),
            VLshlrevB16 => y << (x & 15),
            VLshrrevB16 => y >> (x & 15),
            VAshrrevI16 => (yi >> (x & 15)) as u16,
            VMaxU16 => x.max(y),
            VMinU16 => x.min(y),
            VMaxI16 => xi.max(yi) as u16,
            VMinI16 => xi.min(yi) as u16,
            VMadU16 => x.wrapping_mul(y).wrapping_add(z[l] as u16),
            VMadI16 => xi.wrapping_mul(yi).wrapping_add(z[l] as i16) as u16,
            op => {
                return not_executable(format!(
                    "{} is not a 16-bit vector operation",
                    op.mnemonic()
                ))
            }
        };
        vgprs[n][l] = dst_value(inst, u32::from(v), vgprs[n][l]);
    }
    Ok(Flow::Next)
}

/// `s_bfe_*_32`: `width` (0..=127) bits of `x` from bit `offset`, sign-extended from the
/// field's top bit for `signed`; a field reaching past bit 31 is `x` shifted right (arithmetic
/// when signed).
fn scalar_bfe32(x: u32, offset: u32, width: u32, signed: bool) -> u32 {
    let shifted = if signed {
        ((x as i32) >> offset) as u32
    } else {
        x >> offset
    };
    match width {
        0 => 0,
        32.. => shifted,
        w if signed => (((shifted << (32 - w)) as i32) >> (32 - w)) as u32,
        w => shifted & ((1 << w) - 1),
    }
}

/// `s_bfe_*_64`: [`scalar_bfe32`] on 64 bits.
fn scalar_bfe64(x: u64, offset: u32, width: u32, signed: bool) -> u64 {
    let shifted = if signed {
        ((x as i64) >> offset) as u64
    } else {
        x >> offset
    };
    match width {
        0 => 0,
        64.. => shifted,
        w if signed => (((shifted << (64 - w)) as i64) >> (64 - w)) as u64,
        w => shifted & ((1 << w) - 1),
    }
}

/// The index of the lowest set bit, or -1 (`s_ff1_*`, `v_ffbl_b32`).
fn first_set(x: u64) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}

/// Leading zeros of `x`, or -1 when it is 0 (`s_flbit_i32_b*`, `v_ffbh_u32`; 32-bit values
/// come in the high half).
fn leading_zeros_or_none(x: u64) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}

/// The position, counted from the top, of the first bit that differs from the sign bit, or -1
/// for 0 and -1 (`s_flbit_i32_i64`).
fn leading_sign_bits(x: i64) -> u32 {
    let x = if x < 0 { !x } else { x };
    leading_zeros_or_none(x as u64)
}

/// [`leading_sign_bits`] of a 32-bit value (`s_flbit_i32`, `v_ffbh_i32`).
fn leading_sign_bits32(x: i32) -> u32 {
    let x = if x < 0 { !x } else { x };
    leading_zeros_or_none(u64::from(x as u32) << 32)
}

/// `v_bfe_u32`: `width` bits of `x` from bit `offset` (both taken mod 32).
fn bfe(x: u32, offset: u32, width: u32) -> u32 {
    let (o, w) = (offset & 31, width & 31);
    if w == 0 {
        0
    } else {
        (x >> o) & ((1u32 << w) - 1)
    }
}

/// `v_bfe_i32`: the field of [`bfe`], sign-extended from its top bit.
fn bfe_signed(x: u32, offset: u32, width: u32) -> u32 {
    let w = width & 31;
    if w == 0 {
        return 0;
    }
    let shift = 32 - w;
    (((bfe(x, offset, width) << shift) as i32) >> shift) as u32
}

fn vopc(inst: &Instruction, c: &mut Context, vgprs: &[[u32; LANES]]) -> Result<Flow, Fault> {
    use Opcode::*;
    if inst.opcode.is_f32() {
        return vopc_f32(inst, c, vgprs);
    }
    check_integer_modifiers(inst)?;
    let wide = inst.opcode.signature().srcs[0] == Width::B64;
    let (a, b) = if wide {
        (
            read_v64(c, vgprs, inst.opcode, src(inst, 0)?)?,
            read_v64(c, vgprs, inst.opcode, src(inst, 1)?)?,
        )
    } else {
        (
            read_src32(inst, c, vgprs, 0)?.map(u64::from),
            read_src32(inst, c, vgprs, 1)?.map(u64::from),
        )
    };
    let mut mask = 0u64;
    for l in lanes(c.active()) {
        let (x, y) = (a[l], b[l]);
        if inst.opcode.is_int16() {
            mask |= (compare16(inst.opcode, x as u16, y as u16)? as u64) << l;
            continue;
        }
        // Signed order of 32-bit values from their sign-extended 64-bit forms.
        let (xi, yi) = if wide {
            (x as i64, y as i64)
        } else {
            (x as u32 as i32 as i64, y as u32 as i32 as i64)
        };
        let r = match inst.opcode {
            VCmpLtI32 | VCmpxLtI32 | VCmpLtI64 | VCmpxLtI64 => xi < yi,
            VCmpEqI32 | VCmpxEqI32 | VCmpEqU32 | VCmpxEqU32 | VCmpEqI64 | VCmpxEqI64
            | VCmpEqU64 | VCmpxEqU64 => x == y,
            VCmpLeI32 | VCmpxLeI32 | VCmpLeI64 | VCmpxLeI64 => xi <= yi,
            VCmpGtI32 | VCmpxGtI32 | VCmpGtI64 | VCmpxGtI64 => xi > yi,
            VCmpNeI32 | VCmpxNeI32 | VCmpNeU32 | VCmpxNeU32 | VCmpNeI64 | VCmpxNeI64
            | VCmpNeU64 | VCmpxNeU64 => x != y,
            VCmpGeI32 | VCmpxGeI32 | VCmpGeI64 | VCmpxGeI64 => xi >= yi,
            VCmpLtU32 | VCmpxLtU32 | VCmpLtU64 | VCmpxLtU64 => x < y,
            VCmpLeU32 | VCmpxLeU32 | VCmpLeU64 | VCmpxLeU64 => x <= y,
            VCmpGtU32 | VCmpxGtU32 | VCmpGtU64 | VCmpxGtU64 => x > y,
            VCmpGeU32 | VCmpxGeU32 | VCmpGeU64 | VCmpxGeU64 => x >= y,
            op => return not_executable(format!("{} is not a vector compare", op.mnemonic())),
        };
        mask |= (r as u64) << l;
    }
    // Lanes that did not run write 0 (GCN3 manual, VOPC).
    if let Some(sd) = inst.sdst {
        write_s64(c, sd, mask)?;
    }
    if inst.opcode.is_cmpx() {
        c.scalar.set_exec(mask);
    }
    Ok(Flow::Next)
}

/// `v_perm_b32` (GCN3 manual, `V_PERM_B32`): byte j of the result by byte j of `sel` from the
/// eight bytes of {hi, lo}: 0..7 a byte (0 the low byte of `lo`), 8..11 the sign of byte 1, 3,
/// 5 or 7 spread over the byte, 12 zero, 13 and above 0xFF.
fn byte_permute(hi: u32, lo: u32, sel: u32) -> u32 {
    let pair = u64::from(hi) << 32 | u64::from(lo);
    let byte = |k: u32| (pair >> (8 * k)) as u8;
    let fill = |k: u32| if byte(k) & 0x80 != 0 { 0xff } else { 0 };
    (0..4).fold(0, |d, j| {
        let v = match (sel >> (8 * j)) as u8 {
            s @ 0..=7 => byte(u32::from(s)),
            8 => fill(1),
            9 => fill(3),
            10 => fill(5),
            11 => fill(7),
            12 => 0,
            _ => 0xff,
        };
        d | u32::from(v) << (8 * j)
    })
}

/// A 16-bit integer compare of the low halves: as signed halves for `_i16`.
fn compare16(op: Opcode, x: u16, y: u16) -> Result<bool, Fault> {
    use Opcode::*;
    let (xi, yi) = (x as i16, y as i16);
    Ok(match op {
        VCmpLtI16 | VCmpxLtI16 => xi < yi,
        VCmpLeI16 | VCmpxLeI16 => xi <= yi,
        VCmpGtI16 | VCmpxGtI16 => xi > yi,
        VCmpGeI16 | VCmpxGeI16 => xi >= yi,
        VCmpEqI16 | VCmpxEqI16 | VCmpEqU16 | VCmpxEqU16 => x == y,
        VCmpNeI16 | VCmpxNeI16 | VCmpNeU16 | VCmpxNeU16 => x != y,
        VCmpLtU16 | VCmpxLtU16 => x < y,
        VCmpLeU16 | VCmpxLeU16 => x <= y,
        VCmpGtU16 | VCmpxGtU16 => x > y,
        VCmpGeU16 | VCmpxGeU16 => x >= y,
        op => return not_executable(format!("{} is not a 16-bit compare", op.mnemonic())),
    })
}

fn flat(
    inst: &Instruction,
    c: &Context,
    vgprs: &mut [[u32; LANES]],
    mem: &mut GlobalMemory,
) -> Result<Flow, Fault> {
    let addr = read_v64(c, vgprs, inst.opcode, src(inst, 0)?)?;
    lane_accesses(inst, c, vgprs, mem, inst.src(1), |l, i| {
        addr[l].wrapping_add(4 * u64::from(i))
    })
}

/// A MUBUF load or store through the buffer resource (V#) in its SRSRC registers. The compute
/// unit addresses every resource as the private segment's the dispatcher writes
/// (`pws_isa::abi::scratch_resource`): swizzled with 4-byte elements and an index stride of
/// 64, ADD_TID, no range check, so only the base counts. By the GCN3 manual's "Buffer
/// addressing" lane `l` (the record index, ADD_TID) reaches byte `o` (OFFSET, plus its VGPR
/// under `offen`) at `base + SOFFSET + (o / 4 · 4) · 64 + l · 4 + o % 4`, computed on 32 bits
/// as the memory port carries them (every region of the layout lies below 4 GiB).
fn mubuf(
    inst: &Instruction,
    c: &Context,
    vgprs: &mut [[u32; LANES]],
    mem: &mut GlobalMemory,
) -> Result<Flow, Fault> {
    const ELEMENT: u32 = 4;
    const INDEX_STRIDE: u32 = 64;
    let base = register(c, src(inst, 1)?.code())?;
    let soffset = read_s32(c, src(inst, 2)?)?;
    let voffset = match inst.src(0) {
        Some(v) => read_v32(c, vgprs, v)?,
        None => [0; LANES],
    };
    lane_accesses(inst, c, vgprs, mem, inst.src(3), |l, i| {
        let o = inst.imm.wrapping_add(voffset[l]).wrapping_add(4 * i);
        let swizzled = (o / ELEMENT * ELEMENT)
            .wrapping_mul(INDEX_STRIDE)
            .wrapping_add(l as u32 * ELEMENT + o % ELEMENT);
        u64::from(base.wrapping_add(soffset).wrapping_add(swizzled))
    })
}

/// The active lanes' accesses of a FLAT or MUBUF load or store, in the port's order: dword `i`
/// of lane `l` (or its one byte or half) at `address(l, i)`; a load into the destination,
/// `_sbyte`/`_sshort` sign-extended, a store from `data`.
fn lane_accesses(
    inst: &Instruction,
    c: &Context,
    vgprs: &mut [[u32; LANES]],
    mem: &mut GlobalMemory,
    data: Option<Operand>,
    address: impl Fn(usize, u32) -> u64,
) -> Result<Flow, Fault> {
    use Opcode::*;
    let Some(bytes) = inst.opcode.flat_bytes() else {
        return not_executable(format!("{} is not a memory access", inst.opcode.mnemonic()));
    };
    let fault = |lane, fault| Fault::Memory {
        lane: Some(lane),
        fault,
    };
    // Sub-dword accesses move one value of `size` bytes; wider ones whole dwords.
    let size = bytes.min(4);
    let dwords = bytes.div_ceil(4) as u8;
    match inst.dst {
        Some(d) => {
            let n = vgpr_index(d, dwords, vgprs.len())?;
            for (i, l) in port_order(c.active(), u32::from(dwords)) {
                let v = mem
                    .read_sized(address(l, i), size)
                    .map_err(|f| fault(l, f))?;
                vgprs[n + i as usize][l] = match inst.opcode {
                    FlatLoadSbyte | BufferLoadSbyte => v as u8 as i8 as i32 as u32,
                    FlatLoadSshort | BufferLoadSshort => v as u16 as i16 as i32 as u32,
                    _ => v,
                };
            }
        }
        None => {
            let Some(data) = data else {
                return not_executable("the store's data is missing");
            };
            let n = vgpr_index(data, dwords, vgprs.len())?;
            for (i, l) in port_order(c.active(), u32::from(dwords)) {
                mem.write_sized(address(l, i), size, vgprs[n + i as usize][l])
                    .map_err(|f| fault(l, f))?;
            }
        }
    }
    Ok(Flow::Next)
}

/// The order in which the memory port and the LDS serve a vector memory instruction's
/// `accesses` per lane (dwords, or DS elements): per 16-lane pass, per access, the `active`
/// lanes ascending, as (access, lane). It decides which lane's store lands last where two
/// lanes' multi-dword accesses overlap, and which fault is reported first.
fn port_order(active: u64, accesses: u32) -> impl Iterator<Item = (u32, usize)> {
    (0..LANES / 16).flat_map(move |pass| {
        (0..accesses).flat_map(move |j| {
            (16 * pass..16 * pass + 16)
                .filter(move |&l| active >> l & 1 == 1)
                .map(move |l| (j, l))
        })
    })
}

/// An atomic read-modify-write (GCN3 manual, DS and FLAT atomics): the new memory value from
/// the old one and the lane's data.
#[derive(Clone, Copy, Debug)]
enum Rmw {
    Add,
    Sub,
    /// `data - old`.
    Rsub,
    /// `old >= data ? 0 : old + 1`.
    Inc,
    /// `old == 0 || old > data ? data : old - 1`.
    Dec,
    MinI,
    MaxI,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    /// `(old & ~data) | data1`.
    Mskor,
    Swap,
    /// `old == cmp ? new : old`.
    CmpSwap,
}

impl Rmw {
    fn apply(self, old: u32, data: u32, data1: u32) -> u32 {
        match self {
            Rmw::Add => old.wrapping_add(data),
            Rmw::Sub => old.wrapping_sub(data),
            Rmw::Rsub => data.wrapping_sub(old),
            Rmw::Inc if old >= data => 0,
            Rmw::Inc => old + 1,
            Rmw::Dec if old == 0 || old > data => data,
            Rmw::Dec => old - 1,
            Rmw::MinI => (old as i32).min(data as i32) as u32,
            Rmw::MaxI => (old as i32).max(data as i32) as u32,
            Rmw::MinU => old.min(data),
            Rmw::MaxU => old.max(data),
            Rmw::And => old & data,
            Rmw::Or => old | data,
            Rmw::Xor => old ^ data,
            Rmw::Mskor => (old & !data) | data1,
            Rmw::Swap => data,
            // `data` is the compare value, `data1` the value stored on a match.
            Rmw::CmpSwap if old == data => data1,
            Rmw::CmpSwap => old,
        }
    }
}

/// `flat_atomic_*`: one read-modify-write per active lane, lanes in ascending order (the order
/// the memory port applies them in), the pre-op value to VDST with `glc`.
fn flat_atomic(
    inst: &Instruction,
    c: &Context,
    vgprs: &mut [[u32; LANES]],
    mem: &mut GlobalMemory,
) -> Result<Flow, Fault> {
    use Opcode::*;
    let rmw = match inst.opcode {
        FlatAtomicSwap => Rmw::Swap,
        FlatAtomicCmpswap => Rmw::CmpSwap,
        FlatAtomicAdd => Rmw::Add,
        FlatAtomicSub => Rmw::Sub,
        FlatAtomicSmin => Rmw::MinI,
        FlatAtomicUmin => Rmw::MinU,
        FlatAtomicSmax => Rmw::MaxI,
        FlatAtomicUmax => Rmw::MaxU,
        FlatAtomicAnd => Rmw::And,
        FlatAtomicOr => Rmw::Or,
        FlatAtomicXor => Rmw::Xor,
        FlatAtomicInc => Rmw::Inc,
        FlatAtomicDec => Rmw::Dec,
        op => return not_executable(format!("{} is not a flat atomic", op.mnemonic())),
    };
    let addr = read_v64(c, vgprs, inst.opcode, src(inst, 0)?)?;
    let data_width = inst.opcode.signature().srcs[1].dwords();
    let d = vgpr_index(src(inst, 1)?, data_width, vgprs.len())?;
    // cmpswap's data is (new value, compare value); `Rmw::CmpSwap` takes (compare, new).
    let (data, data1) = if data_width == 2 {
        (vgprs[d + 1], vgprs[d])
    } else {
        (vgprs[d], [0; LANES])
    };
    let ret = match inst.dst {
        Some(r) => Some(vgpr_index(r, 1, vgprs.len())?),
        None => None,
    };
    for l in lanes(c.active()) {
        let old = mem
            .atomic(addr[l], |old| rmw.apply(old, data[l], data1[l]))
            .map_err(|fault| Fault::Memory {
                lane: Some(l),
                fault,
            })?;
        if let Some(r) = ret {
            vgprs[r][l] = old;
        }
    }
    Ok(Flow::Next)
}

/// What a DS instruction does with each address it computes.
#[derive(Clone, Copy, Debug)]
enum DsKind {
    /// `dwords` consecutive values of `bytes` bytes (sub-dword values extended by `signed`).
    Read {
        bytes: u32,
        dwords: u8,
        signed: bool,
    },
    Write {
        bytes: u32,
        dwords: u8,
    },
    /// `ds_read2*`/`ds_write2*`: two elements of `dwords` dwords at `offset0` and `offset1`
    /// elements (64 elements per unit for the st64 forms).
    Read2 {
        dwords: u8,
        stride: u32,
    },
    Write2 {
        dwords: u8,
        stride: u32,
    },
    Atomic {
        rmw: Rmw,
    },
}

fn ds_kind(op: Opcode) -> Option<DsKind> {
    use DsKind::*;
    use Opcode::*;
    let rd = |bytes, dwords, signed| Read {
        bytes,
        dwords,
        signed,
    };
    let at = |rmw| Atomic { rmw };
    Some(match op {
        DsReadB32 => rd(4, 1, false),
        DsReadB64 => rd(4, 2, false),
        DsReadB96 => rd(4, 3, false),
        DsReadB128 => rd(4, 4, false),
        DsReadU8 => rd(1, 1, false),
        DsReadI8 => rd(1, 1, true),
        DsReadU16 => rd(2, 1, false),
        DsReadI16 => rd(2, 1, true),
        DsWriteB8 => Write {
            bytes: 1,
            dwords: 1,
        },
        DsWriteB16 => Write {
            bytes: 2,
            dwords: 1,
        },
        DsWriteB32 => Write {
            bytes: 4,
            dwords: 1,
        },
        DsWriteB64 => Write {
            bytes: 4,
            dwords: 2,
        },
        DsWriteB96 => Write {
            bytes: 4,
            dwords: 3,
        },
        DsWriteB128 => Write {
            bytes: 4,
            dwords: 4,
        },
        DsRead2B32 => Read2 {
            dwords: 1,
            stride: 1,
        },
        DsRead2st64B32 => Read2 {
            dwords: 1,
            stride: 64,
        },
        DsRead2B64 => Read2 {
            dwords: 2,
            stride: 1,
        },
        DsRead2st64B64 => Read2 {
            dwords: 2,
            stride: 64,
        },
        DsWrite2B32 => Write2 {
            dwords: 1,
            stride: 1,
        },
        DsWrite2st64B32 => Write2 {
            dwords: 1,
            stride: 64,
        },
        DsWrite2B64 => Write2 {
            dwords: 2,
            stride: 1,
        },
        DsWrite2st64B64 => Write2 {
            dwords: 2,
            stride: 64,
        },
        DsAddU32 | DsAddRtnU32 => at(Rmw::Add),
        DsSubU32 | DsSubRtnU32 => at(Rmw::Sub),
        DsRsubU32 | DsRsubRtnU32 => at(Rmw::Rsub),
        DsIncU32 | DsIncRtnU32 => at(Rmw::Inc),
        DsDecU32 | DsDecRtnU32 => at(Rmw::Dec),
        DsMinI32 | DsMinRtnI32 => at(Rmw::MinI),
        DsMaxI32 | DsMaxRtnI32 => at(Rmw::MaxI),
        DsMinU32 | DsMinRtnU32 => at(Rmw::MinU),
        DsMaxU32 | DsMaxRtnU32 => at(Rmw::MaxU),
        DsAndB32 | DsAndRtnB32 => at(Rmw::And),
        DsOrB32 | DsOrRtnB32 => at(Rmw::Or),
        DsXorB32 | DsXorRtnB32 => at(Rmw::Xor),
        DsMskorB32 | DsMskorRtnB32 => at(Rmw::Mskor),
        DsWrxchgRtnB32 => at(Rmw::Swap),
        DsCmpstB32 | DsCmpstRtnB32 => at(Rmw::CmpSwap),
        _ => return None,
    })
}

/// DS instructions on the workgroup's LDS, in the order the GCN3 LDS serves a wavefront: pass
/// by pass (lanes 0-15, 16-31, ...), within a pass access by access (dword by dword; read2 and
/// write2: offset0's element, then offset1's), within an access lane by lane in ascending
/// order. So two lanes writing one address leave the higher lane's value and atomics on one
/// address apply in lane order. The first access out of `min(M0, allocation)` or misaligned
/// stops the instruction with a fault naming the lane and the address (the accesses before it
/// have run, as in a sequential machine).
fn ds(
    inst: &Instruction,
    c: &Context,
    vgprs: &mut [[u32; LANES]],
    lds: &mut Lds,
) -> Result<Flow, Fault> {
    if inst.mods.gds {
        return not_executable("gds: pws has no global data share");
    }
    let Some(kind) = ds_kind(inst.opcode) else {
        return not_executable(format!("{} is not a DS operation", inst.opcode.mnemonic()));
    };
    let m0 = register(c, Operand::M0.code())?;
    let base = read_v32(c, vgprs, src(inst, 0)?)?;
    let sig = inst.opcode.signature();
    let data = |i: usize| -> Result<Option<Vec<[u32; LANES]>>, Fault> {
        match (inst.src(i), sig.srcs.get(i)) {
            (Some(op), Some(w)) => {
                let n = vgpr_index(op, w.dwords(), vgprs.len())?;
                Ok(Some(vgprs[n..n + w.dwords() as usize].to_vec()))
            }
            _ => Ok(None),
        }
    };
    let (data0, data1) = (data(1)?, data(2)?);
    let dst = match (inst.dst, sig.dst) {
        (Some(d), Some(w)) => Some(vgpr_index(d, w.dwords(), vgprs.len())?),
        _ => None,
    };
    let fault = |lane: usize| {
        move |fault| Fault::Memory {
            lane: Some(lane),
            fault,
        }
    };
    let missing = || Fault::NotExecutable("a DS data operand is missing".into());
    let offset = inst.imm & 0xffff;
    let (offset0, offset1) = (inst.imm & 0xff, inst.imm >> 8 & 0xff);
    // Accesses per lane and pass: dwords, or two elements of `dwords` for read2/write2.
    let accesses = match kind {
        DsKind::Read { dwords, .. } | DsKind::Write { dwords, .. } => u32::from(dwords),
        DsKind::Read2 { dwords, .. } | DsKind::Write2 { dwords, .. } => 2 * u32::from(dwords),
        DsKind::Atomic { .. } => 1,
    };
    for (j, l) in port_order(c.active(), accesses) {
        let at = |element_offset: u32| base[l].wrapping_add(element_offset);
        match kind {
            DsKind::Read {
                bytes,
                dwords: _,
                signed,
            } => {
                let d = dst.ok_or_else(missing)?;
                let v = lds.read(at(offset + 4 * j), bytes, m0).map_err(fault(l))?;
                vgprs[d + j as usize][l] = match (signed, bytes) {
                    (true, 1) => v as u8 as i8 as i32 as u32,
                    (true, 2) => v as u16 as i16 as i32 as u32,
                    _ => v,
                };
            }
            DsKind::Write { bytes, dwords: _ } => {
                let v = data0.as_ref().ok_or_else(missing)?;
                lds.write(at(offset + 4 * j), bytes, v[j as usize][l], m0)
                    .map_err(fault(l))?;
            }
            DsKind::Read2 { dwords, stride } => {
                let d = dst.ok_or_else(missing)?;
                let (k, i) = (j / u32::from(dwords), j % u32::from(dwords));
                let element = 4 * u32::from(dwords) * stride;
                let off = [offset0, offset1][k as usize];
                let v = lds
                    .read(at(off * element + 4 * i), 4, m0)
                    .map_err(fault(l))?;
                vgprs[d + j as usize][l] = v;
            }
            DsKind::Write2 { dwords, stride } => {
                let (k, i) = (j / u32::from(dwords), j % u32::from(dwords));
                let element = 4 * u32::from(dwords) * stride;
                let off = [offset0, offset1][k as usize];
                let values = [
                    data0.as_ref().ok_or_else(missing)?,
                    data1.as_ref().ok_or_else(missing)?,
                ];
                let v = values[k as usize][i as usize][l];
                lds.write(at(off * element + 4 * i), 4, v, m0)
                    .map_err(fault(l))?;
            }
            DsKind::Atomic { rmw } => {
                let a = at(offset);
                let v0 = data0.as_ref().ok_or_else(missing)?[0][l];
                let v1 = data1.as_ref().map_or(0, |d| d[0][l]);
                let old = lds.read(a, 4, m0).map_err(fault(l))?;
                lds.write(a, 4, rmw.apply(old, v0, v1), m0)
                    .map_err(fault(l))?;
                if let Some(d) = dst {
                    vgprs[d][l] = old;
                }
            }
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::machine::{ScalarFile, Status};
    use crate::golden::pws::{ChildStack, ContextId};
    use pws_isa::manifest::Manifest;
    use pws_isa::OPCODES;

    /// Every opcode of the isa table has semantics here: a new opcode in the table must come
    /// with its semantics.
    #[test]
    fn every_opcode_executes() {
        let manifest = Manifest::parse("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n", "k.toml")
            .expect("valid manifest");
        for info in OPCODES {
            let op = info.opcode;
            let vector = Instruction::new(op).is_vector();
            let reg = |_: Width| {
                if vector {
                    Operand::Vgpr(0)
                } else {
                    Operand::Sgpr(0)
                }
            };
            let mut inst = Instruction::new(op);
            let sig = op.signature();
            inst.dst = sig.dst.map(reg);
            inst.sdst = sig.sdst.map(|_| Operand::VccLo);
            for (i, &w) in sig.srcs.iter().enumerate() {
                inst.srcs[i] = Some(match (op.format(), w) {
                    (Format::Smem, _) => Operand::Sgpr(0),
                    // MUBUF's resource and SOFFSET are scalar.
                    (Format::Mubuf, _) if i == 1 || i == 2 => Operand::Sgpr(0),
                    // A lane number and a value written to a lane are scalar.
                    _ if op.is_lane_access() && (i == 1 || !op.is_lane_read()) => Operand::Sgpr(0),
                    // A 64-bit third source is a lane mask, except DS's DATA1.
                    (f, Width::B64) if i == 2 && f != Format::Ds => Operand::VccLo,
                    _ => reg(w),
                });
            }
            let mut c = Context {
                id: ContextId::WF,
                scalar: ScalarFile::default(),
                pc: 0,
                spm: u64::MAX,
                parent: None,
                stack: ChildStack::new(0),
                status: Status::Ready,
                wait_pc: 0,
                watch: Default::default(),
            };
            let mut vgprs = vec![[0; LANES]; 4];
            let mut mem = GlobalMemory::new(&manifest, &pws_isa::abi::LaunchAbi::legacy());
            let mut lds = Lds::new(64);
            let result = execute(&inst, 0, &mut c, &mut vgprs, &mut mem, &mut lds);
            assert!(
                !matches!(result, Err(Fault::NotExecutable(_))),
                "{}: {result:?}",
                info.mnemonic
            );
        }
    }

    /// The lane accesses address their lane whatever EXEC and SpM are, the lane number taken
    /// mod 64; `v_readfirstlane_b32` reads the lowest lane of EXEC & SpM, lane 0 if none.
    #[test]
    fn lane_accesses_address_one_lane_whatever_exec_is() {
        let line = |text: &str| pws_isa::assemble(text, "l.s").unwrap().instructions[0].item;
        let mut c = Context {
            id: ContextId::WF,
            scalar: ScalarFile::default(),
            pc: 0,
            spm: 0xFF00,
            parent: None,
            stack: ChildStack::new(0),
            status: Status::Ready,
            wait_pc: 0,
            watch: Default::default(),
        };
        c.scalar.set_exec(0x0FF0);
        let mut vgprs = vec![[0; LANES]; 2];
        for (l, v) in vgprs[1].iter_mut().enumerate() {
            *v = 100 + l as u32;
        }
        let mut run = |text: &str, c: &mut Context| {
            lane_access(&line(text), c, &mut vgprs).unwrap();
        };
        run("v_writelane_b32 v1, 7, 64", &mut c);
        run("v_readlane_b32 s4, v1, 0", &mut c);
        run("v_readlane_b32 s5, v1, -1", &mut c);
        run("v_readfirstlane_b32 s6, v1", &mut c);
        c.scalar.set_exec(0);
        run("v_readfirstlane_b32 s7, v1", &mut c);
        let s = |n| c.scalar.get(n).unwrap();
        assert_eq!([s(4), s(5), s(6), s(7)], [7, 163, 108, 7]);
    }

    #[test]
    fn bit_field_extract() {
        assert_eq!(bfe(0xABCD_1234, 8, 8), 0x12);
        assert_eq!(bfe(0xABCD_1234, 40, 8), 0x12, "offset is taken mod 32");
        assert_eq!(bfe(0xFFFF_FFFF, 0, 0), 0);
        assert_eq!(bfe_signed(0x0000_0F00, 8, 4), u32::MAX);
        assert_eq!(bfe_signed(0x0000_0700, 8, 4), 7);
    }

    /// The SDWA selects on values worked by hand (GCN3 manual, SDWA).
    #[test]
    fn sdwa_selects_by_hand() {
        use SdwaSel::*;
        let x = 0x89AB_CDEF;
        let sel = |s, sext| sdwa_select(x, s, sext);
        assert_eq!(
            [Byte0, Byte1, Byte2, Byte3, Word0, Word1, Dword].map(|s| sel(s, false)),
            [0xEF, 0xCD, 0xAB, 0x89, 0xCDEF, 0x89AB, 0x89AB_CDEF]
        );
        assert_eq!(
            [Byte0, Byte1, Byte2, Byte3, Word0, Word1, Dword].map(|s| sel(s, true)),
            [
                0xFFFF_FFEF,
                0xFFFF_FFCD,
                0xFFFF_FFAB,
                0xFFFF_FF89,
                0xFFFF_CDEF,
                0xFFFF_89AB,
                0x89AB_CDEF
            ]
        );
        assert_eq!(sdwa_select(0x1234_5678, Byte2, true), 0x34);
        let (old, r) = (0x1122_3344, 0x0000_80F0);
        let w = |s, u| sdwa_write(r, old, s, u);
        use DstUnused::*;
        assert_eq!(w(Byte0, Pad), 0xF0);
        assert_eq!(w(Byte0, Sext), 0xFFFF_FFF0);
        assert_eq!(w(Byte0, Preserve), 0x1122_33F0);
        assert_eq!(w(Byte1, Pad), 0xF000);
        assert_eq!(w(Byte1, Sext), 0xFFFF_F000);
        assert_eq!(w(Byte1, Preserve), 0x1122_F044);
        assert_eq!(w(Byte3, Sext), 0xF000_0000);
        assert_eq!(w(Byte3, Preserve), 0xF022_3344);
        assert_eq!(w(Word0, Sext), 0xFFFF_80F0);
        assert_eq!(w(Word1, Pad), 0x80F0_0000);
        assert_eq!(w(Word1, Preserve), 0x80F0_3344);
        assert_eq!(w(Dword, Preserve), 0x80F0);
        assert_eq!(sdwa_write(0x70, old, Byte2, Sext), 0x0070_0000);
    }
}
