//! Anything the assembler accepts, the golden model and the compute-unit RTL either both run
//! or both refuse before the first instruction (`pws_isa::subset`), except the documented gap
//! (`subset::golden_only`: the f32 transcendentals and `v_madmk/madak_f32`, which the RTL
//! refuses and the golden model runs): this walks the opcode table, so an instruction added to the table without a
//! decision in both executors fails here.
//!
//! - Every opcode: the RTL's subset says executable exactly when the RTL's decode ROM has a
//!   micro-op for it (no simulation, every opcode every time).
//! - Every opcode, random operands (the isa crate's generator of valid instructions, with the
//!   registers folded into the `cu` preset's 32 SGPRs and 32 VGPRs): the one-instruction
//!   kernel `inst; s_endpgm` ends the same way on both, never "not executable" on one side
//!   only, and with equal memory when both complete.

#[allow(dead_code)]
#[path = "../../isa/tests/common/mod.rs"]
mod isa_common;

use proptest::strategy::{Strategy, ValueTree};
use pws_hdl::config::HwConfig;
use pws_hdl::cu::decode::micro_op;
use pws_hdl::cu::{CuError, CuMode};
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_isa::{check, subset, Format, Instruction, Operand, OPCODES};
use pws_sim::cu::{run, RunError, RunOptions};
use pws_verify::golden::{self, GoldenError};

/// How a run ended, as far as both executors can say it alike.
#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    /// Completed; the final words of `out`.
    Done(Vec<u32>),
    /// Refused before the first instruction (outside the executable subset).
    Refused,
    MemoryFault,
    /// Control left the program.
    BadPc,
    Deadlock,
    /// Never ends (a branch to itself).
    Endless,
    /// Refused while running: the executors disagree about the subset.
    NotExecutable(String),
    Other(String),
}

fn manifest() -> Manifest {
    Manifest::parse(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [\"out\"]\n\
         [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 64\n",
        "k.toml",
    )
    .unwrap()
}

fn golden_end(program: &pws_isa::Program, m: &Manifest) -> End {
    let config = golden::Config {
        s: 3,
        max_instructions: 10_000,
        final_registers: false,
        ..golden::Config::default()
    };
    match golden::run(program, m, &config) {
        Ok(r) => End::Done(r.buffers.get("out").unwrap().words()),
        Err(GoldenError::Assemble(_)) => End::Refused,
        Err(GoldenError::Memory { .. }) => End::MemoryFault,
        Err(GoldenError::BadPc { .. }) => End::BadPc,
        Err(GoldenError::Deadlock { .. }) => End::Deadlock,
        Err(GoldenError::InstructionLimit { .. }) => End::Endless,
        Err(e @ GoldenError::NotExecutable { .. }) => End::NotExecutable(e.to_string()),
        Err(e) => End::Other(e.to_string()),
    }
}

fn rtl_end(program: &pws_isa::Program, m: &Manifest) -> End {
    let opts = RunOptions {
        max_cycles: 20_000,
        max_instructions: 10_000,
        no_progress: Some(2_000),
        ..RunOptions::new(HwConfig::cu(), CuMode::Pws)
    };
    match run(program, m, &opts) {
        Ok(r) => End::Done(r.buffers.get("out").unwrap().to_vec()),
        Err(RunError::Unsupported(_)) => End::Refused,
        Err(RunError::Memory { .. } | RunError::Lds { .. }) => End::MemoryFault,
        Err(RunError::Rtl {
            code: CuError::BadPc,
            ..
        }) => End::BadPc,
        Err(RunError::Deadlock { .. }) => End::Deadlock,
        Err(RunError::NoProgress { .. } | RunError::Runaway { .. } | RunError::CycleCap { .. }) => {
            End::Endless
        }
        Err(
            e @ RunError::Rtl {
                code: CuError::IllegalInstruction,
                ..
            },
        ) => End::NotExecutable(e.to_string()),
        Err(e) => End::Other(e.to_string()),
    }
}

/// `op` with its register numbers folded into 0..32 (alignment kept: 28 is a multiple of 4).
fn fold_registers(mut inst: Instruction) -> Instruction {
    let fold = |o: Option<Operand>| match o {
        Some(Operand::Sgpr(n)) => Some(Operand::Sgpr(n % 28)),
        Some(Operand::Vgpr(n)) => Some(Operand::Vgpr(n % 28)),
        o => o,
    };
    inst.dst = fold(inst.dst);
    inst.sdst = fold(inst.sdst);
    inst.srcs = inst.srcs.map(fold);
    inst
}

#[test]
fn the_subset_is_what_the_rtl_decodes() {
    let mut runner = isa_common::seeded_runner();
    for info in OPCODES {
        // A plain instance: no modifiers (nor DS's `gds`, which the subset refuses), no trap
        // temporaries or flat_scratch, no M0 or VCC (which the subset refuses as a scalar
        // load's base, offset or destination, an operand rule, not the opcode's; nor anything but an SGPR
        // as a read lane access's destination), and no SDWA form of a
        // 16-bit op (whose selects have rules of their own, `subset::executable`); an
        // `s_setreg_b32` or `s_setreg_imm32_b32` writes the one field the subset runs (a rule
        // on its operand).
        let plain = (0..10_000)
            .map(|_| {
                let mut i = isa_common::instruction_of(info.opcode)
                    .new_tree(&mut runner)
                    .unwrap()
                    .current();
                if matches!(
                    i.opcode,
                    pws_isa::Opcode::SSetregB32 | pws_isa::Opcode::SSetregImm32B32
                ) {
                    i.imm = subset::FP_DENORM_F32;
                }
                i
            })
            .find(|i| {
                i.mods.clamp == false
                    && !i.mods.gds
                    && !(i.opcode.is_int16() && i.sdwa.is_some())
                    && i.mods.neg == 0
                    && i.mods.abs == 0
                    && i.mods.omod.bits() == 0
                    && !i.operands().any(|(o, _)| {
                        matches!(
                            o,
                            Operand::Ttmp(_)
                                | Operand::FlatScratchLo
                                | Operand::FlatScratchHi
                                | Operand::M0
                        )
                    })
                    && (i.opcode.format() != Format::Smem
                        || i.srcs
                            .iter()
                            .flatten()
                            .chain(&i.dst)
                            .all(|o| matches!(o, Operand::Sgpr(_))))
                    // A read lane access writes an SGPR (an operand rule).
                    && (!i.opcode.is_lane_access()
                        || matches!(i.sdst, None | Some(Operand::Sgpr(_))))
            })
            .unwrap_or_else(|| panic!("no plain instance of {}", info.mnemonic));
        assert_eq!(
            subset::rtl_executable(&plain).is_ok(),
            micro_op(info.opcode).is_some(),
            "{}: the subset and the RTL's decode ROM disagree ({plain})",
            info.mnemonic
        );
    }
}

#[test]
fn every_accepted_instruction_ends_alike_on_both_executors() {
    let mut runner = isa_common::seeded_runner();
    let m = manifest();
    let cases = proptest_cases(1);
    let mut refused = 0;
    let mut ran = 0;
    for info in OPCODES {
        for _ in 0..cases {
            let inst = (0..1_000)
                .map(|_| {
                    fold_registers(
                        isa_common::instruction_of(info.opcode)
                            .new_tree(&mut runner)
                            .unwrap()
                            .current(),
                    )
                })
                .find(|i| check(i).is_ok())
                .unwrap_or_else(|| panic!("no foldable instance of {}", info.mnemonic));
            // What the assembler accepts: the instruction as text, assembled.
            let src = format!("{inst}\ns_endpgm\n");
            let Ok(program) = pws_isa::assemble(&src, "k.s") else {
                continue;
            };
            let (g, r) = (golden_end(&program, &m), rtl_end(&program, &m));
            if subset::golden_only(info.opcode) {
                // The gap: the RTL refuses before running; the golden model runs it (a DS
                // access without M0 set faults: M0 is 0 at launch).
                assert_eq!(r, End::Refused, "{src}");
                assert!(
                    matches!(g, End::Done(_) | End::MemoryFault | End::Refused),
                    "{src}golden: {g:?}"
                );
                continue;
            }
            assert!(
                !matches!(g, End::NotExecutable(_) | End::Other(_))
                    && !matches!(r, End::NotExecutable(_) | End::Other(_)),
                "{src}golden: {g:?}\nRTL: {r:?}"
            );
            assert_eq!(g, r, "{src}");
            if g == End::Refused {
                refused += 1;
            } else {
                ran += 1;
            }
        }
    }
    eprintln!("{ran} instructions ran alike, {refused} were refused by both");
    assert!(ran > 0 && refused > 0);
}
