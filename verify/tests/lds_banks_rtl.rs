//! The LDS bank conflicts the host's address analysis (`pws_host::extract::lds_banks`) charges
//! a DS instruction, against the compute unit's: a wavefront of a 2-D workgroup addresses
//! `x * sx + y * sy + base` (clang's `tile[y][x]` arithmetic: a product, a 24-bit
//! multiply-add, a sum) with every DS form, and the cycles the RTL measures for the
//! instruction never exceed the contract's with the analysis' conflicts; where the lanes of
//! every pass are as the analysis sees them (the same base in each), the two are equal. The
//! same with x as a butterfly's `x ^ j`, `j` known to the analysis or not. And
//! addresses written and read across LLVM's `if`/`else` (then-side, else-flip, else-side,
//! after the join, an inner `if`), where a write reaches only the lanes EXEC holds, are never
//! charged less than the RTL takes.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::timing::ds_cycles;
use pws_hdl::cu::CuMode;
use pws_host::compile::{compile, SplitPolicy};
use pws_host::extract::launch_values::LaunchValues;
use pws_host::extract::lds_banks::lds_cycles;
use pws_host::flow::Flow;
use pws_host::timing::{ds_shape, lsu_hold};
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_isa::Opcode;
use pws_sim::cu::{run, RunOptions};
use pws_verify::bound::cu_timing;

/// Bytes of LDS the kernel reserves: every address below stays inside.
const LDS_BYTES: u32 = 32768;

/// One DS instruction on address v3 (data in v6..v9, results into v10..v13) and the byte
/// alignment its addresses need.
const FORMS: [(&str, u32); 12] = [
    ("ds_write_b32 v3, v6 offset:OFF", 4),
    ("ds_read_b32 v10, v3 offset:OFF", 4),
    ("ds_read_b64 v[10:11], v3 offset:OFF", 4),
    ("ds_write_b128 v3, v[6:9] offset:OFF", 4),
    ("ds_read2_b32 v[10:11], v3 offset0:E0 offset1:E1", 4),
    ("ds_write2_b64 v3, v[6:7], v[8:9] offset0:E0 offset1:E1", 4),
    ("ds_read2st64_b32 v[10:11], v3 offset0:E0 offset1:E1", 4),
    ("ds_read_u8 v10, v3 offset:OFF", 1),
    ("ds_write_b16 v3, v6 offset:OFF", 2),
    ("ds_add_u32 v3, v6 offset:OFF", 4),
    ("ds_add_rtn_u32 v10, v3, v6 offset:OFF", 4),
    ("ds_cmpst_b32 v3, v6, v7 offset:OFF", 4),
];

/// How the lanes' x enters the address: as it is, or as `x ^ j` (a butterfly's partner) for a
/// `j` the analysis knows (a constant) or not (read back from the LDS).
#[derive(Debug, Clone, Copy)]
enum XorX {
    Plain,
    Known(u32),
    Unknown(u32),
}

impl XorX {
    fn of(self, x: u32) -> u32 {
        match self {
            XorX::Plain => x,
            XorX::Known(j) | XorX::Unknown(j) => x ^ j,
        }
    }

    /// The instructions that leave the lane's x, or `x ^ j`, in v2.
    fn prologue(self) -> String {
        match self {
            XorX::Plain => "v_mov_b32_e32 v2, v0\n".into(),
            XorX::Known(j) => format!("s_mov_b32 s10, {j}\n    v_xor_b32_e32 v2, s10, v0\n"),
            XorX::Unknown(j) => format!(
                "v_mov_b32_e32 v4, 0\n    v_mov_b32_e32 v5, {j}\n    ds_write_b32 v4, v5\n\
                 s_waitcnt lgkmcnt(0)\n    ds_read_b32 v5, v4\n    s_waitcnt lgkmcnt(0)\n\
                 v_readfirstlane_b32 s10, v5\n    v_xor_b32_e32 v2, s10, v0\n"
            ),
        }
    }
}

fn kernel(form: &str, sx: u32, sy: u32, base: u32, xor: XorX) -> String {
    format!(
        "k:\n    s_mov_b32 m0, -1\n    s_mov_b32 s8, {sx}\n    s_mov_b32 s9, {sy}\n    {}\
         v_mul_lo_u32 v3, v2, s8\n    v_mad_u32_u24 v3, v1, s9, v3\n\
         v_add_u32_e32 v3, vcc, {base}, v3\n    v_mov_b32_e32 v6, v0\n    v_mov_b32_e32 v7, v1\n\
         v_mov_b32_e32 v8, 3\n    v_mov_b32_e32 v9, 4\n    {form}\n    s_waitcnt lgkmcnt(0)\n\
         s_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 16\n.amdhsa_next_free_sgpr 16\n\
         .amdhsa_group_segment_fixed_size {LDS_BYTES}\n.amdhsa_system_vgpr_workitem_id 1\n\
         .end_amdhsa_kernel\n",
        xor.prologue()
    )
}

/// The lanes' addresses of a pass, for each access of `form`'s instruction: the conflict an
/// access of those lanes meets (distinct dwords per bank; lanes per bank for an atomic).
fn conflict(addresses: &[u32], atomic: bool) -> u64 {
    let mut dwords: Vec<u32> = addresses.iter().map(|a| a >> 2).collect();
    if !atomic {
        dwords.sort_unstable();
        dwords.dedup();
    }
    (0..32)
        .map(|b| dwords.iter().filter(|&&d| d % 32 == b).count() as u64)
        .max()
        .unwrap_or(1)
        .max(1)
}

#[derive(Debug, Clone)]
struct Case {
    form: usize,
    wx: u32,
    sx: u32,
    sy: u32,
    base: u32,
    offset: u32,
    elements: (u32, u32),
    xor: XorX,
}

fn case() -> impl Strategy<Value = Case> {
    let j = prop_oneof![0u32..64, 64u32..256];
    let xor = prop_oneof![
        2 => Just(XorX::Plain),
        1 => j.clone().prop_map(XorX::Known),
        1 => j.prop_map(XorX::Unknown),
    ];
    let strides = prop::sample::select(vec![0u32, 1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64]);
    (
        0..FORMS.len(),
        // Widths that do not divide a pass leave a partial wavefront (60 and 48 work-items).
        prop::sample::select(vec![1u32, 2, 4, 8, 12, 16, 24, 32, 64]),
        strides.clone(),
        strides,
        0u32..64,
        0u32..64,
        (0u32..8, 0u32..8),
        xor,
    )
        .prop_map(|(form, wx, sx, sy, base, offset, elements, xor)| {
            let align = FORMS[form].1;
            Case {
                form,
                wx,
                sx: sx * align,
                sy: sy * align,
                base: base * align,
                offset: offset * align,
                elements,
                xor,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    #[test]
    fn the_analysis_bounds_the_rtl_bank_conflicts(c in case()) {
        let wy = 64 / c.wx;
        let form = FORMS[c.form]
            .0
            .replace("OFF", &c.offset.to_string())
            .replace("E0", &c.elements.0.to_string())
            .replace("E1", &c.elements.1.to_string());
        let source = kernel(&form, c.sx, c.sy, c.base, c.xor);
        let program = pws_isa::assemble(&source, "k.s").unwrap_or_else(|e| panic!("{e}\n{source}"));
        let manifest = Manifest::parse(
            &format!("kernel = \"k.s\"\ngrid = [{0}, {wy}]\nworkgroup = [{0}, {wy}]\n", c.wx),
            "k.toml",
        )
        .unwrap();
        let i = program
            .instructions
            .iter()
            .rposition(|l| l.item.opcode.format() == pws_isa::Format::Ds)
            .unwrap();
        let inst = &program.instructions[i].item;
        let (accesses, reads) = ds_shape(inst.opcode).unwrap();
        // Each access's byte offset from the lane's address, as the LSU forms it.
        let name = inst.opcode.mnemonic();
        let dwords = (accesses / if name.contains("2") { 2 } else { 1 }) as u32;
        let offsets: Vec<u32> = if name.starts_with("ds_read2") || name.starts_with("ds_write2") {
            let shift = if dwords == 2 { 3 } else { 2 } + if name.contains("st64") { 6 } else { 0 };
            [c.elements.0, c.elements.1]
                .iter()
                .flat_map(|e| (0..dwords).map(move |a| (e << shift) + 4 * a))
                .collect()
        } else {
            (0..accesses as u32).map(|a| c.offset + 4 * a).collect()
        };
        let address = |lane: u32| c.xor.of(lane % c.wx) * c.sx + (lane / c.wx) * c.sy + c.base;
        prop_assume!((0..64).all(|l| address(l) + offsets.iter().max().unwrap() + 16 <= LDS_BYTES));
        let atomic = !(name.starts_with("ds_read") || name.starts_with("ds_write"));
        let cfg = HwConfig::cu().with_spsimds(0);
        let lanes = 64 / cfg.passes() as u32;
        // What the RTL takes, pass by pass, and the same for every pass as the analysis sees.
        let per_pass: Vec<u64> = (0..64 / lanes)
            .map(|p| {
                offsets
                    .iter()
                    .map(|o| {
                        let a: Vec<u32> = (0..lanes)
                            .map(|j| p * lanes + j)
                            .filter(|&l| l < c.wx * wy)
                            .map(|l| address(l) + o)
                            .collect();
                        conflict(&a, atomic)
                    })
                    .sum()
            })
            .collect();
        let fixed = ds_cycles(&cfg, accesses, reads, 0);
        let expected = fixed + per_pass.iter().sum::<u64>();
        let report = run(&program, &manifest, &RunOptions::new(cfg, CuMode::NoSplit))
            .unwrap_or_else(|e| panic!("RTL: {e}\n{source}"));
        let measured = report
            .instructions
            .iter()
            .find(|s| s.pc == program.instructions[i].pc)
            .unwrap()
            .max_cycles;
        prop_assert_eq!(measured, expected, "the RTL's conflicts\n{}", source);

        let flow = Flow::new(&program, "k.s").unwrap();
        let launch = LaunchValues::of(&program, &manifest);
        let analysed = lds_cycles(&program, &flow, &launch, lanes)[i];
        let worst = per_pass.iter().copied().max().unwrap();
        if let Some(k) = analysed {
            prop_assert!(k >= worst, "the analysis' {} LDS cycles below a pass's {}\n{}", k, worst, source);
            prop_assert!(measured <= fixed + cfg.passes() as u64 * k);
        }
        // A lane's address is linear in its place in the pass where the workgroup's rows are
        // whole passes (or it has one column), so it is followed; where every pass also starts
        // at the same address, the analysis sees exactly the pass's conflict (with a `j` it
        // does not know, the worst over every `j`).
        prop_assert!(analysed.is_some() || (c.wx < lanes && c.wx > 1), "{}", source);
        if c.wx == lanes && c.sy == 0 && !matches!(c.xor, XorX::Unknown(_)) {
            prop_assert_eq!(analysed, Some(worst), "{}", source);
        }
    }
}

/// One step of a generated `if`/`else` region: a write of address VGPR `reg` (2 or 3) with a
/// stride of `2^shift` bytes, or a `ds_read_b32` from it.
#[derive(Debug, Clone, Copy)]
enum Step {
    Write { reg: u8, shift: u32 },
    Read { reg: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (2u8..4, 2u32..8).prop_map(|(reg, shift)| Step::Write { reg, shift }),
        (2u8..4).prop_map(|reg| Step::Read { reg }),
    ]
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 0..4)
}

fn lines(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match *s {
            Step::Write { reg, shift } => format!("    v_lshlrev_b32_e32 v{reg}, {shift}, v0\n"),
            Step::Read { reg } => {
                format!("    ds_read_b32 v10, v{reg}\n    s_waitcnt lgkmcnt(0)\n")
            }
        })
        .collect()
}

/// A generated `if`/`else` region in LLVM's lowering: address writes and reads before it, on
/// its then-side (with an optional inner `if` whose limit is the first of `inner`), at the
/// else-flip, on the else-side and after the join, with or without the skip branches LLVM
/// leaves out over short sides.
#[derive(Debug, Clone)]
struct Region {
    before: Vec<Step>,
    then: Vec<Step>,
    inner: Option<(u32, Vec<Step>)>,
    flip: Vec<Step>,
    other: Vec<Step>,
    after: Vec<Step>,
    limits: (u32, u32),
    skips: (bool, bool),
}

fn region() -> impl Strategy<Value = Region> {
    (
        (steps(), steps(), prop::option::of((0u32..65, steps()))),
        (steps(), steps(), steps()),
        (0u32..65, 0u32..65),
        (any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |((before, then, inner), (flip, other, after), limits, skips)| Region {
                before,
                then,
                inner,
                flip,
                other,
                after,
                limits,
                skips,
            },
        )
}

impl Region {
    fn source(&self) -> String {
        let skip = |on: bool, to: &str| match on {
            true => format!("    s_cbranch_execz {to}\n"),
            false => String::new(),
        };
        let inner = self.inner.as_ref().map_or(String::new(), |(limit, body)| {
            format!(
                "    v_cmp_gt_u32_e32 vcc, {limit}, v0\n    s_and_saveexec_b64 s[2:3], vcc\n\
                 s_cbranch_execz BB0_1\n{}BB0_1:\n    s_or_b64 exec, exec, s[2:3]\n",
                lines(body)
            )
        });
        format!(
            "k:\n    s_mov_b32 m0, -1\n    v_lshlrev_b32_e32 v2, 2, v0\n    v_lshlrev_b32_e32 v3, 7, v0\n\
             {}    v_cmp_gt_u32_e32 vcc, {}, v0\n    s_and_saveexec_b64 s[0:1], vcc\n\
             s_xor_b64 s[0:1], exec, s[0:1]\n{}{}{}BB0_2:\n\
             s_or_saveexec_b64 s[0:1], s[0:1]\n{}    s_xor_b64 exec, exec, s[0:1]\n\
             {}{}BB0_3:\n    s_or_b64 exec, exec, s[0:1]\n\
             v_cmp_gt_u32_e32 vcc, {}, v0\n    s_and_saveexec_b64 s[4:5], vcc\n{}\
             s_or_b64 exec, exec, s[4:5]\n    s_endpgm\n.amdhsa_kernel k\n\
             .amdhsa_next_free_vgpr 16\n.amdhsa_next_free_sgpr 16\n\
             .amdhsa_group_segment_fixed_size {LDS_BYTES}\n.end_amdhsa_kernel\n",
            lines(&self.before),
            self.limits.0,
            skip(self.skips.0, "BB0_2"),
            lines(&self.then),
            inner,
            lines(&self.flip),
            skip(self.skips.1, "BB0_3"),
            lines(&self.other),
            self.limits.1,
            lines(&self.after),
        )
    }
}

/// Runs `source` on the RTL in `mode` with S SpSIMDs and checks every DS instruction's worst
/// time against the analysis' conflicts: the contract's cycles for them, and between a
/// `split` and its `merge` (the one wavefront's only contexts that can meet at the LSU) the
/// wait the contract adds for the other contexts, each holding the sequencer at most the
/// longest time any DS instruction of the kernel is charged.
fn check_against_rtl(source: &str, mode: CuMode, s: usize) -> Result<(), TestCaseError> {
    let program = pws_isa::assemble(source, "k.s").unwrap_or_else(|e| panic!("{e}\n{source}"));
    let manifest =
        Manifest::parse("kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\n", "k.toml").unwrap();
    let cfg = HwConfig::cu().with_spsimds(s);
    let report = run(&program, &manifest, &RunOptions::new(cfg, mode))
        .unwrap_or_else(|e| panic!("RTL: {e}\n{source}"));
    let flow = Flow::new(&program, "k.s").unwrap();
    let launch = LaunchValues::of(&program, &manifest);
    let analysed = lds_cycles(&program, &flow, &launch, 64 / cfg.passes() as u32);
    let fixed = ds_cycles(&cfg, 1, 0, 0);
    let per_pass = cfg.passes() as u64;
    let hold = lsu_hold(&cu_timing(&cfg), &program, &analysed);
    let at = |op: Opcode| {
        program
            .instructions
            .iter()
            .position(|l| l.item.opcode == op)
    };
    let split = at(Opcode::Split).zip(at(Opcode::Merge));
    for t in &report.instructions {
        let i = program
            .instructions
            .iter()
            .position(|l| l.pc == t.pc)
            .unwrap();
        let shared = split.is_some_and(|(a, b)| (a..b).contains(&i));
        let wait = if shared { s as u64 * hold } else { 0 };
        if let Some(k) = analysed[i] {
            prop_assert!(
                t.max_cycles <= fixed + per_pass * k + wait,
                "line {}: {} cycles measured, the analysis allows {} per pass (+ {} waiting)\n{}",
                program.instructions[i].line,
                t.max_cycles,
                k,
                wait,
                source
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    #[test]
    fn addresses_across_an_if_else_are_never_charged_less_than_the_rtl_takes(r in region()) {
        check_against_rtl(&r.source(), CuMode::NoSplit, 0)?;
    }

    /// The same regions split at every `if` with an `else` (the host's pass, as DWS places
    /// them) and run in PWS, each context enabling only its share of EXEC's lanes: the
    /// analysis of the split program, which reads `split` and `merge` as the masked execution,
    /// still charges no DS instruction less than either context takes.
    #[test]
    fn split_contexts_are_never_charged_less_than_the_rtl_takes(mut r in region(), s in 1usize..3) {
        // LLVM keeps the branch over a side with a branch in it.
        r.skips.0 |= r.inner.is_some();
        let source = r.source();
        let split = compile(&source, "k.s", SplitPolicy::All)
            .unwrap_or_else(|e| panic!("{e}\n{source}"))
            .text;
        prop_assume!(split.contains("split"));
        check_against_rtl(&split, CuMode::Pws, s)?;
    }
}
