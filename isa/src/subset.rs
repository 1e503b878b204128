//! The executable subset: what the executors, the golden model and the compute-unit RTL, run.
//!
//! The assembler and the disassembler take every instruction of the opcode table with every
//! operand llvm-mc accepts, byte for byte (they are ISA tools: `pws asm`, `pws disasm` and the
//! WCET analysis of clang's output need floating-point instructions too). A launch runs only
//! the executable subset, and an executor refuses a program with anything else before its
//! first instruction, naming the instruction's line ([`check`], [`check_rtl`]):
//!
//! - the VOP3 modifiers `clamp`, `omod`, `neg` and `abs` on integer instructions (the f32
//!   instructions take them, docs/float.md; `v_cndmask_b32` takes `abs` and `neg`, and the
//!   unsigned add and subtracts `clamp`, the saturation LLVM selects for `uadd.sat` and
//!   `usub.sat`), and SDWA's `clamp` on them (SDWA's selects, `sext` and `dst_unused` run on
//!   both executors);
//! - two SDWA forms of the 16-bit integer instructions: a sign-extended byte source of an
//!   unsigned one that compares, shifts right or saturates, and a shift amount read from above
//!   bit 0 ([`sdwa_int16`]);
//! - trap temporaries (`ttmp0`..`ttmp11`, `ttmp[..]`), which belong to a trap handler, and
//!   `flat_scratch` but as the destination of a scalar ALU instruction (clang's prologue
//!   sets it for FLAT accesses through the private aperture, which pws's FLAT instructions
//!   do not make: both executors discard the write);
//! - an SMEM base or offset register other than an SGPR (`s_load_dword s0, exec, 0x0`): the
//!   scalar memory unit addresses through s0..s101 only; and an SMEM destination other than
//!   SGPRs (`s_load_dwordx2 vcc, s[4:5], 0x0`): it writes back through the SGPR file only;
//! - a kernel descriptor asking for another floating-point mode than clang-14's gfx803 default
//!   (`.amdhsa_float_denorm_mode_32 0`, `.amdhsa_ieee_mode 1`, `.amdhsa_dx10_clamp 1`), the one
//!   the f32 contract (docs/float.md) defines;
//! - DS instructions with `gds`: pws has no global data share;
//! - `v_readlane_b32` and `v_readfirstlane_b32` into anything but an SGPR (vcc, exec, m0);
//! - `s_setreg_imm32_b32` and `s_setreg_b32` (clang -O0's form, the value in an SGPR) of any
//!   field but `hwreg(HW_REG_MODE, 4, 2)`, the f32 denormal mode that clang switches on and
//!   off around its exact division's core: both executors run that write as a no-op (f32
//!   denormals stay flushed, docs/float.md, "Mode writes");
//! - a branch whose target is no instruction of the program (before its start, past its end,
//!   or inside an instruction with a literal): control could only leave the program there.
//!
//! The two executors run the same subset today. The golden model may run an instruction
//! class before the RTL implements it (the LDS, the FLAT atomics and the transcendentals did):
//! such a class is listed in [`golden_only`], the RTL refuses it before running
//! ([`rtl_executable`]); `verify/tests/executable_subset.rs` walks the opcode table to keep
//! these lists equal to what the RTL's decoder implements and what the golden model executes.

use crate::diag;
use crate::error::{AsmError, ErrorKind};
use crate::inst::{Instruction, Operand, Sdwa, SdwaSel};
use crate::opcode::{hwreg_field, Format, Opcode};
use crate::program::Program;

/// `hwreg(HW_REG_MODE, 4, 2)`: MODE.FP_DENORM's f32 bits, the one field `s_setreg_b32` and
/// `s_setreg_imm32_b32` may write.
pub const FP_DENORM_F32: u32 = hwreg_field(1, 4, 2);

/// The integer instructions whose `clamp` bit both executors run: `v_add_u32`, `v_sub_u32`
/// and `v_subrev_u32` saturate under it (a sum that carries gives 0xFFFFFFFF, a difference
/// that borrows 0; the carry and borrow out are written as without it), as LLVM selects them
/// for `uadd.sat` and `usub.sat` on GCN3, and so do `v_add_u16`, `v_sub_u16` and
/// `v_subrev_u16` at 16 bits (0xFFFF, 0), which clang emits for `x > y ? x - y : 0` on
/// `ushort` and `uchar`, in VOP3 and in SDWA ([`sdwa_clamp_saturates`]).
pub fn clamp_saturates(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::VAddU32
            | Opcode::VSubU32
            | Opcode::VSubrevU32
            | Opcode::VAddU16
            | Opcode::VSubU16
            | Opcode::VSubrevU16
    )
}

/// The integer instructions whose SDWA `clamp` both executors run: the 16-bit ones of
/// [`clamp_saturates`] (an SDWA `v_add_u32` has its carry-out in VCC and no such use).
pub fn sdwa_clamp_saturates(opcode: Opcode) -> bool {
    clamp_saturates(opcode) && opcode.is_int16()
}

/// Why `inst` is outside the executable subset, or `Ok`.
pub fn executable(inst: &Instruction) -> Result<(), String> {
    let m = inst.mods;
    // `v_cndmask_b32` takes abs and neg on the sign bit of the value it selects: clang folds
    // `fabs` and negation into a select.
    let sign_mods = inst.opcode == Opcode::VCndmaskB32;
    let saturates = if inst.sdwa.is_some() {
        sdwa_clamp_saturates(inst.opcode)
    } else {
        clamp_saturates(inst.opcode)
    };
    if !inst.opcode.is_f32()
        && ((m.clamp && !saturates)
            || m.omod.bits() != 0
            || (!sign_mods && (m.neg != 0 || m.abs != 0)))
    {
        return Err(
            "the VOP3 modifiers clamp, omod, neg and abs are outside the executable subset on integer instructions (the f32 instructions take them, v_cndmask_b32 abs and neg, v_add/sub/subrev_u32 and _u16 clamp)".into(),
        );
    }
    if let (true, Some(sdwa)) = (inst.opcode.is_int16(), inst.sdwa) {
        sdwa_int16(inst.opcode, sdwa, inst.mods.sext, inst.mods.clamp)?;
    }
    if inst.opcode.format() == Format::Smem
        && inst.srcs[..2]
            .iter()
            .flatten()
            .any(|o| !matches!(o, Operand::Sgpr(_)))
    {
        return Err(
            "the base and offset registers of a scalar load must be SGPRs (s0..s101) in the executable subset".into(),
        );
    }
    if inst.opcode.format() == Format::Smem && !matches!(inst.dst, None | Some(Operand::Sgpr(_))) {
        return Err(
            "a scalar load writes SGPRs (s0..s101) in the executable subset, not vcc, m0 or exec"
                .into(),
        );
    }
    if matches!(inst.opcode, Opcode::SSetregB32 | Opcode::SSetregImm32B32)
        && inst.imm != FP_DENORM_F32
    {
        return Err(format!(
            "{inst} is outside the executable subset: pws has one hardware register field, hwreg(HW_REG_MODE, 4, 2) (the f32 denormal mode, written as a no-op: f32 denormals stay flushed)"
        ));
    }
    // The read lane goes through the vector unit's SGPR-write path, which writes SGPRs.
    if matches!(
        inst.opcode,
        Opcode::VReadlaneB32 | Opcode::VReadfirstlaneB32
    ) && !matches!(inst.sdst, Some(Operand::Sgpr(_)))
    {
        return Err(format!(
            "{} writes an SGPR (s0..s101) in the executable subset, not vcc, exec or m0",
            inst.opcode
        ));
    }
    if inst.mods.gds {
        return Err(
            "gds addresses the global data share, which pws does not have: it is outside the executable subset".into(),
        );
    }
    // clang's prologue sets FLAT_SCRATCH (`s_mov_b32 flat_scratch_lo, s9`) in every kernel with
    // private memory, for FLAT accesses through the private aperture; pws's FLAT instructions
    // address global memory only, so both executors discard the write (but not a read of it:
    // `s_bitset*` reads its destination).
    let scratch_write = matches!(inst.opcode.format(), Format::Sop1 | Format::Sop2)
        && matches!(
            inst.dst,
            Some(Operand::FlatScratchLo | Operand::FlatScratchHi)
        );
    for (op, _) in inst.operands() {
        match op {
            Operand::Ttmp(n) => {
                return Err(format!(
                    "ttmp{n} is a trap temporary, and pws has no trap handler: trap temporaries are outside the executable subset"
                ))
            }
            Operand::FlatScratchLo | Operand::FlatScratchHi
                if !scratch_write || inst.reads().any(|(s, _)| s == op) =>
            {
                return Err(
                    "flat_scratch configures FLAT's private aperture, which pws's FLAT instructions do not address: only a scalar ALU write to it (discarded) is in the executable subset".into(),
                )
            }
            _ => {}
        }
    }
    Ok(())
}

/// The SDWA forms of the 16-bit integer instructions that both executors run: the compute
/// unit runs them as the 32-bit operation on halves extended by the SDWA selects (zero-extended
/// for the unsigned ones, sign-extended for the `_i16` ones), and a shift amount's low 4 bits
/// through a select at bit 0. A sign-extended byte of an unsigned instruction (0xFFxx as a
/// half) has no such form but where the result is taken modulo 2^16
/// ([`Opcode::is_modular16`], without `clamp`); a shift amount in a higher byte or word has
/// none.
fn sdwa_int16(opcode: Opcode, sdwa: Sdwa, sext: u8, clamp: bool) -> Result<(), String> {
    let shift = matches!(
        opcode,
        Opcode::VLshlrevB16 | Opcode::VLshrrevB16 | Opcode::VAshrrevI16
    );
    if shift
        && !matches!(
            sdwa.src0_sel,
            SdwaSel::Byte0 | SdwaSel::Word0 | SdwaSel::Dword
        )
    {
        return Err(format!(
            "the shift amount of an SDWA {opcode} must start at bit 0 (src0_sel BYTE_0, WORD_0 or DWORD) in the executable subset"
        ));
    }
    let byte = |sel: SdwaSel| sel.field().1 == 8;
    let sext_byte =
        (byte(sdwa.src0_sel) && sext & 1 != 0 && !shift) || (byte(sdwa.src1_sel) && sext & 2 != 0);
    // Clang emits `v_sub_u16_sdwa v0, sext(v1), sext(v2)` for the difference of two chars:
    // modulo 2^16 the extension does not matter (but to a saturating `clamp`).
    let taken_as_is = opcode.is_signed16() || (opcode.is_modular16() && !clamp);
    if sext_byte && !taken_as_is {
        return Err(format!(
            "a sign-extended byte source of the unsigned {opcode} is outside the executable subset, but for add, subtract, multiply and shift left without clamp (read it zero-extended, or use the _i16 form)"
        ));
    }
    Ok(())
}

/// True for the instructions the golden model runs and the compute-unit RTL does not
/// implement yet: none today (the LDS, the FLAT atomics, the f32 transcendentals and the
/// literal multiply-adds were the last; `verify/tests/executable_subset.rs` and the
/// generators' family gates read this list).
pub fn golden_only(_op: Opcode) -> bool {
    false
}

/// Why the compute-unit RTL refuses `inst`, or `Ok`: the executable subset without the
/// [`golden_only`] instructions.
pub fn rtl_executable(inst: &Instruction) -> Result<(), String> {
    executable(inst)?;
    if golden_only(inst.opcode) {
        return Err(format!(
            "{} runs on the golden model only: the compute-unit RTL does not implement it yet",
            inst.opcode
        ));
    }
    Ok(())
}

/// Checks that every instruction of `program` is executable by the golden model and every
/// branch lands on one; the error names `file`, the instruction's line (column 1: the image
/// keeps lines only) and the instruction.
pub fn check(program: &Program, file: &str) -> Result<(), AsmError> {
    check_with(program, file, executable)
}

/// [`check`] for the compute-unit RTL ([`rtl_executable`]).
pub fn check_rtl(program: &Program, file: &str) -> Result<(), AsmError> {
    check_with(program, file, rtl_executable)
}

fn check_with(
    program: &Program,
    file: &str,
    executable: fn(&Instruction) -> Result<(), String>,
) -> Result<(), AsmError> {
    if let Some(d) = &program.descriptor {
        d.check_float_mode().map_err(|why| AsmError {
            file: file.to_string(),
            line: d.line,
            column: 1,
            kind: ErrorKind::Unsupported,
            message: why,
        })?;
    }
    for l in &program.instructions {
        let target = |t: Option<u32>| match t {
            Some(t) if program.index_of(t).is_some() => Ok(()),
            Some(t) => Err(format!(
                "the branch target {t:#x} is no instruction of the program ({:#x} bytes)",
                program.size_bytes()
            )),
            None => Err("the branch target lies before the program's start".into()),
        };
        let verdict = executable(&l.item).and_then(|()| {
            if l.item.is_branch() {
                target(l.item.branch_target(l.pc))
            } else {
                Ok(())
            }
        });
        if let Err(why) = verdict {
            return Err(AsmError {
                file: file.to_string(),
                line: l.line,
                column: 1,
                kind: ErrorKind::Unsupported,
                message: format!("`{}`: {why}", diag::value(&l.item.to_string())),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(src: &str) -> Option<String> {
        let p = crate::assemble(src, "k.s").unwrap();
        check(&p, "k.s").err().map(|e| e.to_string())
    }

    #[test]
    fn integer_code_is_executable() {
        assert_eq!(
            why(
                "s_mov_b32 s0, 1\nv_add_u32 v1, vcc, s0, v0\nflat_store_dword v[2:3], v1\ns_endpgm"
            ),
            None
        );
    }

    #[test]
    fn the_rest_is_refused_with_its_line() {
        let e = why("s_nop 0\ns_mov_b32 ttmp0, 1\n").unwrap();
        assert!(
            e.starts_with("k.s:2:1: `s_mov_b32 ttmp0, 1`: ttmp0 is a trap temporary"),
            "{e}"
        );
        assert_eq!(why("v_add_f32_e64 v0, -v1, |v2| clamp"), None);
        assert_eq!(why("v_add_u32_e64 v0, s[0:1], v1, v2 clamp"), None);
        assert_eq!(why("v_subrev_u32_e64 v0, s[0:1], v1, v2 clamp"), None);
        let e = why("v_addc_u32_e64 v0, s[0:1], v1, v2, vcc clamp").unwrap();
        assert!(e.contains("clamp"), "{e}");
        let e = why("v_add_u32_sdwa v0, vcc, v1, v2 clamp").unwrap();
        assert!(e.contains("clamp"), "{e}");
        // clang folds fabs and negation into selects: v_cndmask_b32 takes abs and neg.
        assert_eq!(why("v_cndmask_b32_e64 v0, -v1, |v2|, s[0:1]"), None);
        let e = why("v_or_b32_sdwa v0, v1, v2 clamp").unwrap();
        assert!(e.contains("clamp"), "{e}");
        assert_eq!(
            why("v_or_b32_sdwa v0, sext(v1), v2 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT"),
            None
        );
        assert_eq!(
            why("v_add_f32_sdwa v0, -v1, |v2| clamp src0_sel:WORD_1"),
            None
        );
        assert_eq!(
            why("v_add_u16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1"),
            None
        );
        assert_eq!(why("v_max_i16_sdwa v0, sext(v1), v2 src0_sel:BYTE_1"), None);
        let e = why("v_max_u16_sdwa v0, sext(v1), v2 src0_sel:BYTE_1").unwrap();
        assert!(
            e.contains("sign-extended byte source of the unsigned"),
            "{e}"
        );
        assert_eq!(why("v_lshrrev_b16_sdwa v0, v1, v2 src0_sel:BYTE_0"), None);
        let e = why("v_lshrrev_b16_sdwa v0, v1, v2 src0_sel:BYTE_1").unwrap();
        assert!(e.contains("shift amount"), "{e}");
        assert_eq!(why("v_sub_u16_e64 v0, v1, v2 clamp"), None);
        assert_eq!(
            why("v_sub_u16_sdwa v2, v2, v3 clamp dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1"),
            None
        );
        let e = why("v_max_u16_sdwa v0, v1, v2 clamp").unwrap();
        assert!(e.contains("clamp"), "{e}");
        let e = why("s_mov_b64 s[0:1], flat_scratch").unwrap();
        assert!(e.contains("flat_scratch"), "{e}");
        let e = why("s_nop 0\ns_branch -3").unwrap();
        assert!(
            e.starts_with("k.s:2:1: `s_branch -3`: the branch target lies before"),
            "{e}"
        );
        let e = why("s_cbranch_scc0 1\ns_endpgm").unwrap();
        assert!(
            e.contains("target 0x8 is no instruction of the program (0x8 bytes)"),
            "{e}"
        );
        let e = why("s_branch 1\ns_mov_b32 s0, 0x12345678\ns_endpgm").unwrap();
        assert!(e.contains("target 0x8 is no instruction"), "{e}");
        assert_eq!(why("L:\ns_branch L\ns_cbranch_scc1 L\ns_endpgm"), None);
        let kernel = |modes: &str| {
            format!(
                "k:\ns_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n\
                 .amdhsa_next_free_sgpr 8\n{modes}.end_amdhsa_kernel\n"
            )
        };
        assert_eq!(
            why(&kernel(
                ".amdhsa_float_denorm_mode_32 0\n.amdhsa_ieee_mode 1\n"
            )),
            None
        );
        let e = why(&kernel(
            ".amdhsa_float_denorm_mode_32 3\n.amdhsa_dx10_clamp 0\n",
        ))
        .unwrap();
        assert_eq!(
            e,
            "k.s:3:1: kernel `k` asks for a floating-point mode pws does not execute: \
             .amdhsa_float_denorm_mode_32 3 (pws flushes f32 denormals: mode 0), \
             .amdhsa_dx10_clamp 0 (pws implements the DX10 clamp: 1)"
        );
        let e = why("ds_write_b32 v1, v2 gds").unwrap();
        assert!(e.contains("global data share"), "{e}");
        let e = why("s_load_dword s8, exec, m0").unwrap();
        assert!(e.contains("must be SGPRs"), "{e}");
        assert_eq!(
            why("s_load_dword s8, s[4:5], s9\ns_load_dword s8, s[4:5], 0x4"),
            None
        );
        assert_eq!(
            why("v_sub_u16_sdwa v11, sext(v4), sext(v0) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_0"),
            None
        );
        let e = why("v_sub_u16_sdwa v1, sext(v4), v0 clamp src0_sel:BYTE_0").unwrap();
        assert!(e.contains("without clamp"), "{e}");
        let e = why("s_load_dwordx2 vcc, s[4:5], 0x0").unwrap();
        assert!(e.contains("a scalar load writes SGPRs"), "{e}");
        assert_eq!(why("s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s6"), None);
        let e = why("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s6").unwrap();
        assert!(e.contains("one hardware register field"), "{e}");
    }

    #[test]
    fn the_rtl_runs_what_the_golden_model_runs() {
        let src = "s_mov_b32 m0, -1\nflat_atomic_add v1, v[2:3], v4 glc\nds_read_b32 v1, v0 offset:4\nv_exp_f32 v1, v2\nv_madak_f32 v1, v2, v3, 0x41200000\ns_endpgm";
        let p = crate::assemble(src, "k.s").unwrap();
        assert!(check(&p, "k.s").is_ok());
        assert!(check_rtl(&p, "k.s").is_ok());
        assert!(crate::OPCODES.iter().all(|i| !golden_only(i.opcode)));
    }
}
