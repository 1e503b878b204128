//! Properties of the golden model:
//! - random instruction sequences (any opcode of the isa crate, random operands, random
//!   branches, splits and merges) never panic and never hang: every run ends with a report or
//!   an error (the instruction limit bounds runaway loops, deadlocks are detected);
//! - random structured divergent kernels (if/else trees lowered the LLVM way, with `split`
//!   before the branch and `merge` after the join) give the memory of a Rust reference in
//!   nosplit mode and in PWS mode for every S, and always merge back completely.

use std::fmt::Write;

use proptest::prelude::*;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_isa::{
    encode, Format, ImmKind, Instruction, Opcode, Operand, Program, Width, MOD_OMOD, OPCODES,
};
use pws_verify::golden::{self, Config, Mode};

/// A small deterministic generator, so one proptest seed describes a whole program.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn scalar_reg(rng: &mut Rng, w: Width) -> Operand {
    let align = w.dwords() as u64;
    match rng.below(8) {
        0 if w == Width::B64 => Operand::VccLo,
        1 if w == Width::B64 => Operand::ExecLo,
        2 if w == Width::B32 => [
            Operand::ExecLo,
            Operand::ExecHi,
            Operand::VccLo,
            Operand::M0,
        ][rng.below(4) as usize],
        _ => Operand::Sgpr((rng.below(24 / align) * align) as u8),
    }
}

fn scalar_src(rng: &mut Rng, w: Width) -> Operand {
    match rng.below(10) {
        0 => Operand::Int(rng.below(81) as i8 - 16),
        1 => Operand::Literal(rng.next() as u32),
        2 => [Operand::Scc, Operand::Execz, Operand::Vccz][rng.below(3) as usize],
        _ => scalar_reg(rng, w),
    }
}

fn vgpr(rng: &mut Rng, w: Width) -> Operand {
    Operand::Vgpr((rng.below(12) * w.dwords() as u64) as u8)
}

fn vector_src(rng: &mut Rng, w: Width) -> Operand {
    match rng.below(6) {
        0 | 1 => scalar_src(rng, w),
        _ => vgpr(rng, w),
    }
}

/// A random instruction of `opcode`; operand rules are left to the isa crate's checker.
fn random_instruction(rng: &mut Rng, opcode: Opcode) -> Instruction {
    let sig = opcode.signature();
    let format = opcode.format();
    let mut inst = Instruction::new(opcode);
    if opcode.has_vop3_form() {
        inst.vop3 = rng.below(3) == 0;
    }
    let vector = inst.is_vector();
    inst.dst = sig.dst.map(|w| {
        if vector {
            vgpr(rng, w)
        } else {
            scalar_reg(rng, w)
        }
    });
    inst.sdst = sig.sdst.map(|w| {
        if inst.vop3 || format == Format::Vop3 {
            scalar_reg(rng, w)
        } else {
            Operand::VccLo
        }
    });
    for (i, &w) in sig.srcs.iter().enumerate() {
        inst.srcs[i] = Some(match format {
            Format::Flat | Format::Ds => vgpr(rng, w),
            // The legacy ABI's resource in s[0:3]; VADDR (`offen`), SOFFSET and VDATA.
            Format::Mubuf if i == 1 => Operand::Sgpr(0),
            Format::Mubuf if i == 2 => scalar_src(rng, w),
            Format::Mubuf => vgpr(rng, w),
            Format::Smem if i == 0 => Operand::Sgpr(if rng.below(2) == 0 {
                4
            } else {
                (rng.below(12) * 2) as u8
            }),
            _ if !vector => scalar_src(rng, w),
            Format::Vop2 | Format::Vopc if i == 1 && !inst.vop3 => vgpr(rng, w),
            _ if w == Width::B64 && i == 2 => scalar_reg(rng, w),
            _ => vector_src(rng, w),
        });
    }
    inst.imm = match sig.imm {
        ImmKind::None => 0,
        ImmKind::Simm16 | ImmKind::Uimm16 => rng.next() as u32 & 0xffff,
        ImmKind::Nop => rng.below(4) as u32,
        ImmKind::Branch => (rng.below(11) as i16 - 4) as u16 as u32,
        ImmKind::Waitcnt => 0,
        ImmKind::SmemOffset => (rng.below(8) * 4) as u32,
        ImmKind::DsOffset | ImmKind::DsOffset2 | ImmKind::MubufOffset => (rng.below(16) * 4) as u32,
        ImmKind::Hwreg => pws_isa::subset::FP_DENORM_F32,
    };
    if sig.imm == ImmKind::Hwreg {
        inst.srcs[0] = Some(Operand::Literal(rng.below(4) as u32));
    }
    // A FLAT atomic names its destination only with `glc` (it returns the old value).
    inst.mods.glc = inst.opcode.is_flat_atomic();
    inst
}

/// A prologue filling s8..s23 with random values (so split masks and compares see data),
/// `len` random instructions (invalid combinations become `s_nop 0`), then `s_endpgm`.
/// Splits, merges, branches and EXEC writes are drawn more often than their share of the
/// opcode table, and floating-point instructions (which stop the run) less often, so that
/// the PWS paths get exercised.
fn random_program(seed: u64, len: usize) -> Program {
    let mut rng = Rng(seed);
    let mut words = Vec::new();
    for r in 8..24 {
        let mut mov = Instruction::new(Opcode::SMovB32);
        mov.dst = Some(Operand::Sgpr(r));
        mov.srcs[0] = Some(Operand::Literal(
            rng.next() as u32 ^ (rng.next() as u32) << 16,
        ));
        words.extend(encode(&mov).expect("s_mov_b32 sN, literal encodes"));
    }
    let favoured = [
        Opcode::Split,
        Opcode::Merge,
        Opcode::SCbranchExecz,
        Opcode::SCbranchExecnz,
        Opcode::SAndSaveexecB64,
        Opcode::SBarrier,
        Opcode::VCmpLtU32,
    ];
    for _ in 0..len {
        let mut opcode = OPCODES[rng.below(OPCODES.len() as u64) as usize].opcode;
        if rng.below(3) == 0 || (opcode.info().mods & MOD_OMOD != 0 && rng.below(8) != 0) {
            opcode = favoured[rng.below(favoured.len() as u64) as usize];
        }
        let inst = random_instruction(&mut rng, opcode);
        let encoded = encode(&inst).or_else(|_| encode(&Instruction::new(Opcode::SNop)));
        words.extend(encoded.expect("s_nop 0 encodes"));
    }
    words.extend(encode(&Instruction::new(Opcode::SEndpgm)).expect("s_endpgm encodes"));
    Program::from_words(&words).expect("encoded instructions decode")
}

fn launch(grid: u32, workgroup: u32, inputs: &[u32]) -> Manifest {
    let data: Vec<String> = inputs.iter().map(u32::to_string).collect();
    Manifest::parse(
        &format!(
            "kernel = \"random.s\"\ngrid = {grid}\nworkgroup = {workgroup}\nargs = [\"in\", \"out\"]\n\
             [[buffer]]\nname = \"in\"\ntype = \"u32\"\ndata = [{}]\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = {grid}\n",
            data.join(", ")
        ),
        "random.toml",
    )
    .expect("generated manifest is valid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(400)))]

    #[test]
    fn random_programs_end_in_a_report_or_an_error(
        seed in any::<u64>(),
        len in 1usize..40,
        split in any::<bool>(),
        s in 0usize..4,
        waves in 1u32..3,
    ) {
        let program = random_program(seed, len);
        let manifest = launch(64 * waves, 64 * waves, &[1, 2, 3, 4]);
        let config = Config {
            mode: if split { Mode::Pws } else { Mode::NoSplit },
            s,
            max_instructions: 3000,
            ..Config::default()
        };
        match golden::run(&program, &manifest, &config) {
            // The limit is per wavefront.
            Ok(report) => prop_assert!(report.stats.instructions <= 3000 * u64::from(waves)),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// A lane condition: bit `bit` of the lane's input (`data`) or of its lane id.
#[derive(Clone, Debug)]
struct Cond {
    data: bool,
    bit: u8,
}

#[derive(Clone, Debug)]
enum Node {
    /// r = r * 3 + k
    Step(u32),
    If {
        cond: Cond,
        then: Vec<Node>,
        otherwise: Option<Vec<Node>>,
        split: bool,
    },
}

fn tree(depth: u32) -> BoxedStrategy<Vec<Node>> {
    let step = (0u32..1000).prop_map(Node::Step).boxed();
    let node = if depth == 0 {
        step
    } else {
        let cond = (any::<bool>(), 0u8..6).prop_map(|(data, bit)| Cond { data, bit });
        let branch = (
            cond,
            tree(depth - 1),
            proptest::option::of(tree(depth - 1)),
            any::<bool>(),
        )
            .prop_map(|(cond, then, otherwise, split)| Node::If {
                cond,
                then,
                otherwise,
                split,
            });
        prop_oneof![1 => step, 1 => branch].boxed()
    };
    proptest::collection::vec(node, 1..4).boxed()
}

/// The tree's result for one work-item.
fn reference(nodes: &[Node], x: u32, lane: u32, r: u32) -> u32 {
    nodes.iter().fold(r, |r, n| match n {
        Node::Step(k) => r.wrapping_mul(3).wrapping_add(*k),
        Node::If {
            cond,
            then,
            otherwise,
            ..
        } => {
            let v = if cond.data { x } else { lane };
            if v >> cond.bit & 1 == 1 {
                reference(then, x, lane, r)
            } else if let Some(o) = otherwise {
                reference(o, x, lane, r)
            } else {
                r
            }
        }
    })
}

/// Lowers the tree like LLVM's AMDGPU backend (see kernels/figure2.s), with a split before
/// each marked branch and a merge after its join. Depth d uses s[20+4d : 23+4d].
fn lower(nodes: &[Node], depth: usize, labels: &mut usize, out: &mut String) {
    for n in nodes {
        match n {
            Node::Step(k) => {
                let _ = writeln!(
                    out,
                    "    v_mul_lo_u32 v9, v9, 3\n    v_add_u32_e32 v9, vcc, {k}, v9"
                );
            }
            Node::If {
                cond,
                then,
                otherwise,
                split,
            } => {
                let (c, s) = (20 + 4 * depth, 22 + 4 * depth);
                let id = *labels;
                *labels += 1;
                let src = if cond.data { "v7" } else { "v2" };
                let _ = writeln!(out, "    v_lshrrev_b32_e32 v8, {}, {src}", cond.bit);
                let _ = writeln!(out, "    v_and_b32_e32 v8, 1, v8");
                let _ = writeln!(out, "    v_cmp_ne_u32_e64 s[{c}:{}], 0, v8", c + 1);
                let _ = writeln!(
                    out,
                    "    s_and_saveexec_b64 s[{s}:{}], s[{c}:{}]",
                    s + 1,
                    c + 1
                );
                if otherwise.is_some() {
                    let _ = writeln!(
                        out,
                        "    s_xor_b64 s[{s}:{}], exec, s[{s}:{}]",
                        s + 1,
                        s + 1
                    );
                }
                if *split {
                    let _ = writeln!(out, "    split s{c}, s{}", c + 1);
                }
                let skip = if otherwise.is_some() { "ELSE" } else { "JOIN" };
                let _ = writeln!(out, "    s_cbranch_execz {skip}_{id}");
                lower(then, depth + 1, labels, out);
                if let Some(o) = otherwise {
                    let _ = writeln!(out, "ELSE_{id}:");
                    let _ = writeln!(
                        out,
                        "    s_or_saveexec_b64 s[{s}:{}], s[{s}:{}]",
                        s + 1,
                        s + 1
                    );
                    let _ = writeln!(out, "    s_xor_b64 exec, exec, s[{s}:{}]", s + 1);
                    let _ = writeln!(out, "    s_cbranch_execz JOIN_{id}");
                    lower(o, depth + 1, labels, out);
                }
                let _ = writeln!(out, "JOIN_{id}:");
                let _ = writeln!(out, "    s_or_b64 exec, exec, s[{s}:{}]", s + 1);
                if *split {
                    let _ = writeln!(out, "    merge");
                }
            }
        }
    }
}

/// The kernel around the tree: r = x = in[gid], lane = gid % 64, out[gid] = r.
fn kernel(nodes: &[Node], workgroup: u32) -> String {
    let mut body = String::new();
    lower(nodes, 0, &mut 0, &mut body);
    format!(
        "    s_load_dwordx4 s[0:3], s[4:5], 0x0\n\
         \x20   s_mul_i32 s8, s6, {workgroup}\n\
         \x20   v_add_u32_e32 v1, vcc, s8, v0\n\
         \x20   v_and_b32_e32 v2, 63, v1\n\
         \x20   v_lshlrev_b32_e32 v4, 2, v1\n\
         \x20   s_waitcnt lgkmcnt(0)\n\
         \x20   v_mov_b32_e32 v6, s1\n\
         \x20   v_add_u32_e32 v5, vcc, s0, v4\n\
         \x20   v_addc_u32_e32 v6, vcc, 0, v6, vcc\n\
         \x20   flat_load_dword v7, v[5:6]\n\
         \x20   s_waitcnt vmcnt(0)\n\
         \x20   v_mov_b32_e32 v9, v7\n\
         {body}\
         \x20   v_mov_b32_e32 v6, s3\n\
         \x20   v_add_u32_e32 v5, vcc, s2, v4\n\
         \x20   v_addc_u32_e32 v6, vcc, 0, v6, vcc\n\
         \x20   flat_store_dword v[5:6], v9\n\
         \x20   s_endpgm\n"
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(64)))]

    #[test]
    fn structured_divergence_gives_the_reference_memory_in_every_mode(
        nodes in tree(3),
        grid in 1u32..200,
        workgroup in prop::sample::select(vec![32u32, 64, 100, 128, 256]),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let inputs: Vec<u32> = (0..grid).map(|_| rng.next() as u32).collect();
        let source = kernel(&nodes, workgroup);
        let program = pws_isa::assemble(&source, "random.s")
            .map_err(|e| TestCaseError::fail(format!("{e}\n{source}")))?;
        let manifest = launch(grid, workgroup, &inputs);
        let expected: Vec<u32> = (0..grid)
            .map(|gid| reference(&nodes, inputs[gid as usize], gid % 64, inputs[gid as usize]))
            .collect();
        let configs = [(Mode::NoSplit, 0), (Mode::Pws, 0), (Mode::Pws, 1), (Mode::Pws, 2), (Mode::Pws, 4)];
        for (mode, s) in configs {
            let config = Config { mode, s, ..Config::default() };
            let report = golden::run(&program, &manifest, &config)
                .map_err(|e| TestCaseError::fail(format!("{mode:?} S = {s}: {e}\n{source}")))?;
            prop_assert_eq!(report.buffers.get("out").unwrap().words(), expected.clone(),
                "{:?} S = {}\n{}", mode, s, source);
            for w in &report.wavefronts {
                prop_assert!(w.unmerged.is_empty());
                prop_assert_eq!(w.spm.0, u64::MAX);
            }
            prop_assert_eq!(report.stats.splits, report.stats.merges);
        }
    }
}
