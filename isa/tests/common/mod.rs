//! Random valid instructions for the property tests: every opcode, both encoding forms, every
//! operand kind its slots accept, and the modifiers it allows. Candidates are drawn from
//! class-aware pools and then filtered through `pws_isa::check`, so the generator never has to
//! re-implement the operand rules it is testing.

#![allow(dead_code)]

use proptest::prelude::*;
use pws_isa::{
    check, DstUnused, Format, ImmKind, InlineFloat, Instruction, Modifiers, Omod, Opcode, Operand,
    Sdwa, SdwaSel, Width, MOD_CLAMP, MOD_INPUT, MOD_OMOD, OPCODES,
};

fn aligned(max_first: u16, dwords: u8) -> impl Strategy<Value = u8> {
    let step = dwords.min(4) as u16;
    (0..=max_first / step).prop_map(move |i| (i * step) as u8)
}

/// Scalar registers that can hold a value of `w` (SDST-class), plus now and then a
/// misaligned or out-of-range one for the checker to reject.
pub fn scalar_reg(w: Width) -> BoxedStrategy<Operand> {
    let n = w.dwords() as u16;
    let sgpr = prop_oneof![
        12 => aligned(102 - n, n as u8).prop_map(Operand::Sgpr),
        1 => (0u8..=110).prop_map(Operand::Sgpr),
        1 => (0u8..=13).prop_map(Operand::Ttmp),
    ];
    let ttmp = aligned(12u16.saturating_sub(n), n as u8).prop_map(Operand::Ttmp);
    match w {
        Width::B32 => prop_oneof![
            4 => sgpr,
            1 => ttmp,
            1 => prop_oneof![
                Just(Operand::VccLo),
                Just(Operand::VccHi),
                Just(Operand::ExecLo),
                Just(Operand::ExecHi),
                Just(Operand::M0),
                Just(Operand::FlatScratchLo),
                Just(Operand::FlatScratchHi),
            ],
        ]
        .boxed(),
        Width::B64 => prop_oneof![
            4 => sgpr,
            1 => ttmp,
            1 => prop_oneof![
                Just(Operand::VccLo),
                Just(Operand::ExecLo),
                Just(Operand::FlatScratchLo)
            ],
        ]
        .boxed(),
        _ => prop_oneof![4 => sgpr, 1 => ttmp].boxed(),
    }
}

/// Inline constants and canonical literals for a `w` operand.
pub fn constant(w: Width) -> BoxedStrategy<Operand> {
    prop_oneof![
        (-16i8..=64).prop_map(Operand::Int),
        proptest::sample::select(InlineFloat::ALL.to_vec()).prop_map(Operand::Float),
        any::<u32>()
            .prop_map(move |v| { Operand::constant(v as i64, w).unwrap_or(Operand::Literal(v)) }),
    ]
    .boxed()
}

pub fn condition_bit() -> BoxedStrategy<Operand> {
    prop_oneof![
        Just(Operand::Vccz),
        Just(Operand::Execz),
        Just(Operand::Scc)
    ]
    .boxed()
}

/// VGPRs for a `w` operand; now and then a tuple running past v255.
pub fn vgpr(w: Width) -> BoxedStrategy<Operand> {
    prop_oneof![
        20 => (0..=(256 - w.dwords() as u16)).prop_map(|n| Operand::Vgpr(n as u8)),
        1 => (250u8..=255).prop_map(Operand::Vgpr),
    ]
    .boxed()
}

/// Any operand a source of width `w` might take (the checker weeds out what the slot
/// forbids).
pub fn any_source(w: Width) -> BoxedStrategy<Operand> {
    prop_oneof![
        3 => vgpr(w),
        3 => scalar_reg(w),
        3 => constant(w),
        1 => condition_bit(),
    ]
    .boxed()
}

fn mask() -> BoxedStrategy<Operand> {
    prop_oneof![Just(Operand::VccLo), scalar_reg(Width::B64)].boxed()
}

/// A candidate for `op` (not yet filtered): often breaks an operand rule.
pub fn candidate(op: Opcode) -> BoxedStrategy<Instruction> {
    let info = op.info();
    let sig = info.signature;
    let format = info.format;
    let valu = matches!(
        format,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
    );
    let vop3 = match format {
        Format::Vop3 => Just(true).boxed(),
        Format::Vop1 | Format::Vop2 | Format::Vopc => any::<bool>().boxed(),
        _ => Just(false).boxed(),
    };
    let dst: BoxedStrategy<Option<Operand>> = match sig.dst {
        None => Just(None).boxed(),
        Some(w) if valu || matches!(format, Format::Flat | Format::Mubuf) => {
            vgpr(w).prop_map(Some).boxed()
        }
        // DS takes VGPRs only; now and then another operand for the checker to reject.
        Some(w) if format == Format::Ds => prop_oneof![6 => vgpr(w), 1 => any_source(w)]
            .prop_map(Some)
            .boxed(),
        Some(w) => scalar_reg(w).prop_map(Some).boxed(),
    };
    let sdst: BoxedStrategy<Option<Operand>> = match sig.sdst {
        None => Just(None).boxed(),
        // A read lane access writes one scalar register.
        Some(w) if op.is_lane_access() => scalar_reg(w).prop_map(Some).boxed(),
        Some(_) => mask().prop_map(Some).boxed(),
    };
    let src = |i: usize| -> BoxedStrategy<Option<Operand>> {
        let Some(&w) = sig.srcs.get(i) else {
            return Just(None).boxed();
        };
        match format {
            Format::Flat => vgpr(w).prop_map(Some).boxed(),
            // VADDR is absent for `off`; SOFFSET is a register or an inline constant (a
            // literal now and then, which the checker refuses).
            Format::Mubuf if i == 0 => prop_oneof![Just(None), vgpr(w).prop_map(Some)].boxed(),
            Format::Mubuf if i == 1 => scalar_reg(w).prop_map(Some).boxed(),
            Format::Mubuf if i == 2 => {
                prop_oneof![3 => scalar_reg(w), 2 => constant(w), 1 => any_source(w)]
                    .prop_map(Some)
                    .boxed()
            }
            Format::Mubuf => vgpr(w).prop_map(Some).boxed(),
            Format::Ds => prop_oneof![6 => vgpr(w), 1 => any_source(w)]
                .prop_map(Some)
                .boxed(),
            Format::Smem => scalar_reg(w).prop_map(Some).boxed(),
            // s_setreg_imm32_b32's value is always a literal dword.
            Format::Sopk if op.setreg_from_literal() => {
                any::<u32>().prop_map(|v| Some(Operand::Literal(v))).boxed()
            }
            Format::Sopk => scalar_reg(w).prop_map(Some).boxed(),
            Format::Vop2 if i == 2 => mask().prop_map(Some).boxed(),
            _ if valu && i == 1 => prop_oneof![3 => vgpr(w), 1 => any_source(w)]
                .prop_map(Some)
                .boxed(),
            _ if valu => prop_oneof![2 => vgpr(w), 1 => any_source(w)]
                .prop_map(Some)
                .boxed(),
            _ => any_source(w).prop_map(Some).boxed(),
        }
    };
    let smem_offset: BoxedStrategy<Option<Operand>> = if format == Format::Smem {
        prop_oneof![
            3 => Just(None),
            1 => prop_oneof![scalar_reg(Width::B32), Just(Operand::M0)].prop_map(Some),
        ]
        .boxed()
    } else {
        src(1)
    };
    let imm: BoxedStrategy<u32> = match sig.imm {
        ImmKind::None => Just(0).boxed(),
        ImmKind::SmemOffset => (0u32..=0xf_ffff).boxed(),
        // llvm-mc truncates a larger MUBUF offset silently (STRICTER in tests/llvm_mc.rs).
        ImmKind::MubufOffset => (0u32..=0xfff).boxed(),
        ImmKind::Waitcnt => {
            prop_oneof![3 => (0u32..=0xf7f).prop_map(|v| v & 0xf7f), 1 => 0u32..=0xffff].boxed()
        }
        _ => (0u32..=0xffff).boxed(),
    };
    let allowed = info.mods;
    let mods = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u32..4,
        0u8..8,
        0u8..8,
    )
        .prop_map(move |(glc, slc, clamp, omod, neg, abs)| {
            let vop_mods = |bit: u8| allowed & bit != 0;
            Modifiers {
                glc: glc && matches!(format, Format::Smem | Format::Flat | Format::Mubuf),
                slc: slc && matches!(format, Format::Flat | Format::Mubuf),
                // `gds` rides on the `slc` draw: the two never meet in one format.
                gds: slc && format == Format::Ds,
                clamp: clamp && vop_mods(MOD_CLAMP),
                omod: if vop_mods(MOD_OMOD) {
                    Omod::from_bits(omod)
                } else {
                    Omod::None
                },
                neg: if vop_mods(MOD_INPUT) { neg } else { 0 },
                abs: if vop_mods(MOD_INPUT) { abs } else { 0 },
                sext: 0,
            }
        });
    // One candidate in four of an opcode with an SDWA form is SDWA: selects, dst_unused and
    // the sext bits drawn here; clamp, neg and abs come from the VOP3 draw.
    let sdwa = (0u32..4, 0u32..7, 0u32..3, 0u32..7, 0u32..7, 0u8..4);
    (
        vop3,
        dst,
        sdst,
        src(0),
        smem_offset,
        src(2),
        src(3),
        imm,
        mods,
        sdwa,
    )
        .prop_map(
            move |(vop3, dst, sdst, s0, s1, s2, s3, imm, mut mods, sdwa)| {
                let sdwa = (sdwa.0 == 0 && op.has_sdwa_form()).then(|| {
                    let sel = |b| SdwaSel::from_bits(b).unwrap();
                    let mut f = Sdwa {
                        dst_sel: sel(sdwa.1),
                        dst_unused: DstUnused::from_bits(sdwa.2).unwrap(),
                        src0_sel: sel(sdwa.3),
                        src1_sel: sel(sdwa.4),
                    };
                    if format == Format::Vopc {
                        f.dst_sel = SdwaSel::Dword;
                        f.dst_unused = DstUnused::Preserve;
                    }
                    if format == Format::Vop1 {
                        f.src1_sel = SdwaSel::Dword;
                    }
                    if op == Opcode::VMacF32 {
                        f.dst_sel = SdwaSel::Dword;
                    }
                    let nsrc = sig.srcs.len().min(2);
                    let float: u8 = (0..nsrc)
                        .filter(|&i| op.sdwa_float_src(i))
                        .map(|i| 1 << i)
                        .sum();
                    let int = ((1u8 << nsrc) - 1) & !float;
                    (f, sdwa.5 & int, float)
                });
                let vop3 = vop3 && sdwa.is_none();
                let drawn = mods;
                if !vop3 {
                    mods = Modifiers {
                        glc: mods.glc,
                        slc: mods.slc,
                        gds: mods.gds,
                        ..Modifiers::default()
                    };
                }
                let mut inst = Instruction::new(op);
                inst.vop3 = vop3;
                // A FLAT atomic names a destination only with `glc`: half the candidates break it.
                inst.dst = dst;
                inst.sdst = if vop3 || sdst.is_none() || op.is_lane_access() {
                    sdst
                } else {
                    Some(Operand::VccLo)
                };
                inst.srcs = [s0, s1, s2, s3];
                if let Some(k) = op.literal_k() {
                    // v_madmk/madak_f32: K is a literal dword, the other source a VGPR.
                    inst.vop3 = false;
                    inst.mods = Modifiers::default();
                    inst.srcs[k] = Some(Operand::Literal(imm.wrapping_mul(0x9E37_79B9)));
                    inst.srcs[3 - k] = Some(Operand::Vgpr((imm & 0xff) as u8));
                } else if !vop3 && format == Format::Vop2 && s2.is_some() {
                    inst.srcs[2] = Some(Operand::VccLo);
                }
                inst.imm = if s1.is_some() && format == Format::Smem {
                    0
                } else {
                    imm
                };
                inst.mods = mods;
                if let Some((f, sext, float)) = sdwa {
                    inst.sdwa = Some(f);
                    inst.mods.sext = sext;
                    inst.mods.neg = drawn.neg & float;
                    inst.mods.abs = drawn.abs & float;
                    inst.mods.clamp = drawn.neg & 4 != 0;
                    inst.mods.omod = Omod::None;
                    if inst.sdst.is_some() {
                        inst.sdst = Some(Operand::VccLo);
                    }
                    if format == Format::Vop2 && s2.is_some() {
                        inst.srcs[2] = Some(Operand::VccLo);
                    }
                }
                inst
            },
        )
        .boxed()
}

/// A valid instruction of `op`.
pub fn instruction_of(op: Opcode) -> BoxedStrategy<Instruction> {
    candidate(op)
        .prop_filter("operand rules", |i| check(i).is_ok())
        .boxed()
}

/// A valid instruction of any opcode (uniform over opcodes).
pub fn instruction() -> BoxedStrategy<Instruction> {
    proptest::sample::select(OPCODES.iter().map(|i| i.opcode).collect::<Vec<_>>())
        .prop_flat_map(instruction_of)
        .boxed()
}

/// A candidate instruction of any opcode, valid or not.
pub fn any_candidate() -> BoxedStrategy<Instruction> {
    proptest::sample::select(OPCODES.iter().map(|i| i.opcode).collect::<Vec<_>>())
        .prop_flat_map(candidate)
        .boxed()
}

/// A seeded runner for drawing many values outside `proptest!` (the llvm-mc batch tests): the
/// same values on every run, and no cap on the generator's filter rejects.
pub fn seeded_runner() -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    TestRunner::new_with_rng(
        Config {
            max_local_rejects: u32::MAX,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}
