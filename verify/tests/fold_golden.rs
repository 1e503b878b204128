//! The host analysis's folding of uniform values (`pws_host::extract::fold`) against the golden
//! model: each folded instruction is run by the golden model on the same operands, and every
//! result the fold gives must be the golden model's. Integer operations always fold; float ones
//! fold on normal operands and results, and the operands drawn here include denormals, NaNs,
//! infinities and overflowing products, which must be left unknown rather than folded wrong.

use proptest::prelude::*;
use pws_host::extract::fold;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_isa::Opcode::{self, *};
use pws_verify::golden::{self, Config};

/// The operations the fold answers, with their assembly: `{d}` the result VGPR, v1..v3 the
/// operands, VCC the mask; a scalar one writes s12 from s10, s11, and a compare VCC.
const OPS: &[(Opcode, &str)] = &[
    (VMovB32, "v_mov_b32_e32 {d}, v1"),
    (VNotB32, "v_not_b32_e32 {d}, v1"),
    (VAddU32, "v_add_u32_e32 {d}, vcc, v1, v2"),
    (VSubU32, "v_sub_u32_e32 {d}, vcc, v1, v2"),
    (VSubrevU32, "v_subrev_u32_e32 {d}, vcc, v1, v2"),
    (VMulLoU32, "v_mul_lo_u32 {d}, v1, v2"),
    (VMulHiU32, "v_mul_hi_u32 {d}, v1, v2"),
    (VMulHiI32, "v_mul_hi_i32 {d}, v1, v2"),
    (VMulU32U24, "v_mul_u32_u24_e32 {d}, v1, v2"),
    (VMadU32U24, "v_mad_u32_u24 {d}, v1, v2, v3"),
    (VLshlrevB32, "v_lshlrev_b32_e32 {d}, v1, v2"),
    (VLshrrevB32, "v_lshrrev_b32_e32 {d}, v1, v2"),
    (VAshrrevI32, "v_ashrrev_i32_e32 {d}, v1, v2"),
    (VAndB32, "v_and_b32_e32 {d}, v1, v2"),
    (VOrB32, "v_or_b32_e32 {d}, v1, v2"),
    (VXorB32, "v_xor_b32_e32 {d}, v1, v2"),
    (VMinU32, "v_min_u32_e32 {d}, v1, v2"),
    (VMaxU32, "v_max_u32_e32 {d}, v1, v2"),
    (VMinI32, "v_min_i32_e32 {d}, v1, v2"),
    (VMaxI32, "v_max_i32_e32 {d}, v1, v2"),
    (VCndmaskB32, "v_cndmask_b32_e32 {d}, v1, v2, vcc"),
    (VAddcU32, "v_addc_u32_e32 {d}, vcc, v1, v2, vcc"),
    (VSubbU32, "v_subb_u32_e32 {d}, vcc, v1, v2, vcc"),
    (VSubbrevU32, "v_subbrev_u32_e32 {d}, vcc, v1, v2, vcc"),
    (VBfeU32, "v_bfe_u32 {d}, v1, v2, v3"),
    (VAlignbitB32, "v_alignbit_b32 {d}, v1, v2, v3"),
    (VCvtF32U32, "v_cvt_f32_u32_e32 {d}, v1"),
    (VCvtF32I32, "v_cvt_f32_i32_e32 {d}, v1"),
    (VCvtU32F32, "v_cvt_u32_f32_e32 {d}, v1"),
    (VCvtI32F32, "v_cvt_i32_f32_e32 {d}, v1"),
    (VRcpF32, "v_rcp_f32_e32 {d}, v1"),
    (VRcpIflagF32, "v_rcp_iflag_f32_e32 {d}, v1"),
    (VMulF32, "v_mul_f32_e32 {d}, v1, v2"),
    (VAddF32, "v_add_f32_e32 {d}, v1, v2"),
    (VSubF32, "v_sub_f32_e32 {d}, v1, v2"),
    (VSubrevF32, "v_subrev_f32_e32 {d}, v1, v2"),
    (SMovB32, "s_mov_b32 s12, s10\nv_mov_b32_e32 {d}, s12"),
    (SNotB32, "s_not_b32 s12, s10\nv_mov_b32_e32 {d}, s12"),
    (SAddU32, "s_add_u32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SAddI32, "s_add_i32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SSubU32, "s_sub_u32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SSubI32, "s_sub_i32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SMulI32, "s_mul_i32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SLshlB32, "s_lshl_b32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SLshrB32, "s_lshr_b32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
    (SAndB32, "s_and_b32 s12, s10, s11\nv_mov_b32_e32 {d}, s12"),
];

/// The compares the fold answers, written as a select of 0 or 1 by their result.
const COMPARES: &[(Opcode, &str)] = &[
    (VCmpLtI32, "v_cmp_lt_i32_e32 vcc, v1, v2"),
    (VCmpLeI32, "v_cmp_le_i32_e32 vcc, v1, v2"),
    (VCmpGtI32, "v_cmp_gt_i32_e32 vcc, v1, v2"),
    (VCmpGeI32, "v_cmp_ge_i32_e32 vcc, v1, v2"),
    (VCmpEqI32, "v_cmp_eq_i32_e32 vcc, v1, v2"),
    (VCmpNeI32, "v_cmp_ne_i32_e32 vcc, v1, v2"),
    (VCmpEqU32, "v_cmp_eq_u32_e32 vcc, v1, v2"),
    (VCmpNeU32, "v_cmp_ne_u32_e32 vcc, v1, v2"),
    (VCmpLtU32, "v_cmp_lt_u32_e32 vcc, v1, v2"),
    (VCmpLeU32, "v_cmp_le_u32_e32 vcc, v1, v2"),
    (VCmpGtU32, "v_cmp_gt_u32_e32 vcc, v1, v2"),
    (VCmpGeU32, "v_cmp_ge_u32_e32 vcc, v1, v2"),
];

/// Operand values: any bits, small integers (shift amounts, bit fields), and floats of every
/// class (normal, denormal, zero, infinite, NaN, near the ends of the range).
fn value() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        0u32..64,
        (-1000.0f32..1000.0).prop_map(f32::to_bits),
        (1.0f32..4.3e9).prop_map(f32::to_bits),
        prop::sample::select(vec![
            0,
            0x8000_0000,
            1,
            0x807f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x7f00_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0x3f80_0000,
            0x4f7f_fffe,
            0x4f80_0000,
            u32::MAX,
            0x8000_0001,
        ]),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    /// An index into [`OPS`] followed by [`COMPARES`].
    op: usize,
    x: [u32; 3],
    bit: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..OPS.len() + COMPARES.len(),
        [value(), value(), value()],
        any::<bool>(),
    )
        .prop_map(|(op, x, bit)| Case { op, x, bit })
}

/// One program that runs every case into v10, v11, ... and the golden model's lane 0 of each.
fn golden_results(cases: &[Case]) -> Vec<u32> {
    let mut src = String::new();
    for (k, c) in cases.iter().enumerate() {
        let d = format!("v{}", 10 + k);
        let [a, b, x] = c.x;
        src += &format!(
            "v_mov_b32_e32 v1, {a:#x}\nv_mov_b32_e32 v2, {b:#x}\nv_mov_b32_e32 v3, {x:#x}\n\
             s_mov_b32 s10, {a:#x}\ns_mov_b32 s11, {b:#x}\ns_mov_b64 vcc, {}\n",
            if c.bit { -1 } else { 0 }
        );
        src += &match c.op.checked_sub(OPS.len()) {
            None => OPS[c.op].1.replace("{d}", &d),
            Some(k) => format!("{}\nv_cndmask_b32_e64 {d}, 0, 1, vcc", COMPARES[k].1),
        };
        src.push('\n');
    }
    src += "s_endpgm\n";
    let program = pws_isa::assemble(&src, "fold.s").unwrap_or_else(|e| panic!("{e}"));
    let manifest = Manifest::parse(
        "kernel = \"fold.s\"\ngrid = 64\nworkgroup = 64\nargs = []\n",
        "fold.toml",
    )
    .unwrap();
    let report = golden::run(&program, &manifest, &Config::default())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    (0..cases.len())
        .map(|k| report.wavefronts[0].vgprs[10 + k][0])
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    #[test]
    fn folded_values_are_the_golden_models(cases in prop::collection::vec(case(), 1..48)) {
        let golden = golden_results(&cases);
        for (c, &g) in cases.iter().zip(&golden) {
            let folded = match c.op.checked_sub(OPS.len()) {
                None => fold::alu(OPS[c.op].0, c.x, c.bit),
                Some(k) => fold::compare(COMPARES[k].0, c.x[0], c.x[1]).map(u32::from),
            };
            let op = if c.op < OPS.len() { OPS[c.op].0 } else { COMPARES[c.op - OPS.len()].0 };
            if !op.is_f32() && !matches!(op, VCvtF32U32 | VCvtF32I32) {
                prop_assert!(folded.is_some(), "{} on {:#x?} is not folded", op.mnemonic(), c);
            }
            if let Some(f) = folded {
                prop_assert_eq!(f, g, "{} on {:#x?}", op.mnemonic(), c);
            }
        }
    }
}

#[test]
fn normal_floats_fold() {
    let case = |op: Opcode, x: [u32; 3]| Case {
        op: OPS.iter().position(|o| o.0 == op).unwrap(),
        x,
        bit: false,
    };
    // 1 / 3, 1.5 * 2^31 and clang's scaling of a reciprocal: normal in, normal out.
    let cases = [
        case(VRcpF32, [0x4040_0000, 0, 0]),
        case(VMulF32, [0x3fc0_0000, 0x4f00_0000, 0]),
        case(VMulF32, [0x4f7f_fffe, 0x3c80_0000, 0]),
        case(VCvtU32F32, [0x4f7f_fffe, 0, 0]),
    ];
    for (c, g) in cases.iter().zip(golden_results(&cases)) {
        assert_eq!(fold::alu(OPS[c.op].0, c.x, c.bit), Some(g), "{c:#x?}");
    }
}
