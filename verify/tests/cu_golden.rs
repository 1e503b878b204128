//! Small directed programs on the compute unit RTL against the golden model: the same program,
//! manifest and memory image, and the final buffers must be equal in every mode. The programs
//! cover the scalar ALU with SCC, 64-bit scalar and vector operands, SGPR-pair lane masks,
//! `v_cmpx`, scalar and two-dword loads and stores, splits inside a loop, and a barrier
//! between two wavefronts (the big random equivalence suite lives in sim/ and verify/).

#[path = "../../hdl/tests/cu_bench/mod.rs"]
mod cu_bench;

use cu_bench::Bench;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::{CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;
use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::Manifest;
use pws_verify::golden::{self, Config, Mode};

/// Scalar and vector ALU coverage, one wavefront; every lane stores 8 results.
const ALU: &str = "
    s_load_dwordx2 s[0:1], s[4:5], 0x0
    s_waitcnt lgkmcnt(0)
    v_lshlrev_b32_e32 v1, 5, v0
    v_mov_b32_e32 v2, s1
    v_add_u32_e32 v1, vcc, s0, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    s_mov_b32 s8, 0x80000001
    s_mov_b32 s9, 7
    s_lshl_b64 s[10:11], s[8:9], 3
    s_ashr_i32 s12, s8, 4
    s_min_i32 s13, s8, 5
    s_addk_i32 s13, 0x7fff
    s_cmp_lt_i32 s13, s12
    s_cselect_b32 s14, s12, s13
    s_mul_i32 s15, s8, s12
    s_add_u32 s16, s8, s8
    s_addc_u32 s17, s9, 0
    s_xor_b64 s[18:19], s[10:11], s[16:17]
    v_mul_lo_u32 v3, v0, s12
    v_xor_b32_e32 v3, s13, v3
    v_lshlrev_b64 v[4:5], v0, s[10:11]
    v_cmp_gt_u32_e64 s[20:21], 10, v0
    v_cndmask_b32_e64 v6, v3, v0, s[20:21]
    v_bfe_i32 v7, v3, 4, 8
    v_mad_u32_u24 v8, v0, 3, s15
    v_sub_u32_e32 v9, vcc, s14, v0
    v_subb_u32_e32 v10, vcc, v0, v9, vcc
    v_mov_b32_e32 v11, s19
    v_add_u32_e32 v11, vcc, s17, v11
    flat_store_dwordx2 v[1:2], v[4:5]
    v_add_u32_e32 v1, vcc, 8, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_store_dwordx2 v[1:2], v[6:7]
    v_add_u32_e32 v1, vcc, 8, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_store_dword v[1:2], v8
    v_add_u32_e32 v1, vcc, 4, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_store_dword v[1:2], v10
    v_add_u32_e32 v1, vcc, 4, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    v_cmpx_lt_u32_e32 vcc, 3, v0
    flat_store_dwordx2 v[1:2], v[10:11]
    s_endpgm
";

const ALU_TOML: &str = r#"
kernel = "alu.s"
grid = 64
workgroup = 64
args = ["out"]
[[buffer]]
name = "out"
type = "u32"
len = 512
"#;

/// Two wavefronts: a loop whose body splits on lane parity, loads through `s_load_dwordx4` and
/// `flat_load_dwordx2`, and a barrier after which each wavefront reads what the other wrote.
const SPLIT_BARRIER: &str = "
    s_load_dwordx4 s[0:3], s[4:5], 0x0
    s_waitcnt lgkmcnt(0)
    v_lshlrev_b32_e32 v1, 3, v0
    v_mov_b32_e32 v2, s1
    v_add_u32_e32 v1, vcc, s0, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_load_dwordx2 v[3:4], v[1:2]
    s_waitcnt vmcnt(0)
    s_mov_b32 s8, 3
loop:
    v_and_b32_e32 v5, 1, v3
    v_cmp_eq_u32_e64 s[10:11], 0, v5
    s_and_saveexec_b64 s[12:13], s[10:11]
    s_xor_b64 s[12:13], exec, s[12:13]
    split s10, s11
    s_cbranch_execz else
    v_add_u32_e32 v4, vcc, v4, v3
else:
    s_or_saveexec_b64 s[12:13], s[12:13]
    s_xor_b64 exec, exec, s[12:13]
    s_cbranch_execz join
    v_sub_u32_e32 v4, vcc, v4, v0
join:
    s_or_b64 exec, exec, s[12:13]
    merge
    v_add_u32_e32 v3, vcc, 1, v3
    s_sub_u32 s8, s8, 1
    s_cmp_lg_u32 s8, 0
    s_cbranch_scc1 loop
    v_lshlrev_b32_e32 v6, 2, v0
    v_mov_b32_e32 v7, s3
    v_add_u32_e32 v6, vcc, s2, v6
    v_addc_u32_e32 v7, vcc, 0, v7, vcc
    flat_store_dword v[6:7], v4
    s_waitcnt vmcnt(0)
    s_barrier
    v_xor_b32_e32 v8, 64, v0
    v_lshlrev_b32_e32 v8, 2, v8
    v_mov_b32_e32 v9, s3
    v_add_u32_e32 v8, vcc, s2, v8
    v_addc_u32_e32 v9, vcc, 0, v9, vcc
    flat_load_dword v10, v[8:9]
    s_waitcnt vmcnt(0)
    v_add_u32_e32 v10, vcc, 0x100, v10
    v_add_u32_e32 v6, vcc, 0x200, v6
    v_addc_u32_e32 v7, vcc, 0, v7, vcc
    flat_store_dword v[6:7], v10
    s_endpgm
";

const SPLIT_BARRIER_TOML: &str = r#"
kernel = "split_barrier.s"
grid = 120
workgroup = 120
args = ["pairs", "out"]
[[buffer]]
name = "pairs"
type = "u32"
data = [3, 10, 4, 20, 5, 30, 6, 40, 7, 50, 8, 60, 9, 70, 10, 80]
len = 256
[[buffer]]
name = "out"
type = "u32"
len = 256
"#;

/// Runs the launch on the compute unit: memory from the manifest's image, every wavefront of
/// the (single) workgroup dispatched with the register ABI, then the buffers read back.
fn run_cu(
    program: &pws_isa::Program,
    manifest: &Manifest,
    mode: CuMode,
    s: usize,
) -> Vec<Vec<u32>> {
    assert_eq!(
        manifest.workgroups(),
        1,
        "the bench dispatches one workgroup"
    );
    let cfg = HwConfig::cu().with_spsimds(s);
    let mut b = Bench::new(&cfg, mode, SwizzleMode::Scc);
    b.load_program(&program.words());
    let abi = LaunchAbi::of_program(program);
    let image = manifest.memory_image(&abi);
    for (i, w) in image.kernarg_words.iter().enumerate() {
        b.mem.insert(image.kernarg.base as u32 + 4 * i as u32, *w);
    }
    for (region, buffer) in image.buffers.iter().zip(&manifest.buffers) {
        for (i, w) in buffer.init.iter().enumerate() {
            b.mem.insert(region.base as u32 + 4 * i as u32, *w);
        }
    }
    b.cu.barrier_hold_i.next = true;
    for wave in 0..manifest.wavefronts_in(0) {
        let sgprs: Vec<(u64, u32)> = abi
            .sgpr_values(manifest, 0, wave)
            .into_iter()
            .enumerate()
            .map(|(r, v)| (r as u64, v))
            .collect();
        b.launch(
            wave as usize,
            0,
            &sgprs,
            |lane| wave * 64 + lane as u32,
            manifest.initial_exec(0, wave),
        );
    }
    b.cu.barrier_hold_i.next = false;
    b.run(50_000);
    assert_eq!(b.cu.error_code_o.val(), CuError::None);
    image
        .buffers
        .iter()
        .map(|r| {
            (0..r.bytes / 4)
                .map(|i| {
                    b.mem
                        .get(&(r.base as u32 + 4 * i as u32))
                        .copied()
                        .unwrap_or(0)
                })
                .collect()
        })
        .collect()
}

fn check(src: &str, toml: &str) {
    let program = pws_isa::asm::assemble(src, "k.s").expect("assembles");
    let manifest = Manifest::parse(toml, "k.toml").expect("manifest");
    for (mode, golden_mode, s) in [
        (CuMode::NoSplit, Mode::NoSplit, 3),
        (CuMode::Dws, Mode::Pws, 3),
        (CuMode::Pws, Mode::Pws, 3),
        (CuMode::Pws, Mode::Pws, 1),
        (CuMode::Pws, Mode::Pws, 0),
    ] {
        let config = Config {
            mode: golden_mode,
            s,
            ..Config::default()
        };
        let report = golden::run(&program, &manifest, &config).expect("golden run");
        let cu = run_cu(&program, &manifest, mode, s);
        for (i, buffer) in manifest.buffers.iter().enumerate() {
            let expected = report.buffers.get(&buffer.name).expect("buffer").words();
            assert!(
                expected.iter().any(|&w| w != 0),
                "{}: nothing written",
                buffer.name
            );
            assert_eq!(cu[i], expected, "{mode:?} S = {s}: buffer {}", buffer.name);
        }
    }
}

#[test]
fn scalar_and_vector_alu_match_the_golden_model() {
    check(ALU, ALU_TOML);
}

#[test]
fn splits_in_a_loop_and_a_barrier_match_the_golden_model() {
    check(SPLIT_BARRIER, SPLIT_BARRIER_TOML);
}

/// Lane l stores four dwords (l << 8 | d) at out[l..l + 4]: neighbouring lanes overlap, so the
/// final words show the order both models apply a multi-dword store in.
const OVERLAP: &str = "
    s_load_dwordx2 s[0:1], s[4:5], 0x0
    s_waitcnt lgkmcnt(0)
    v_lshlrev_b32_e32 v1, 2, v0
    v_mov_b32_e32 v2, s1
    v_add_u32_e32 v1, vcc, s0, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    v_lshlrev_b32_e32 v3, 8, v0
    v_or_b32_e32 v4, 1, v3
    v_or_b32_e32 v5, 2, v3
    v_or_b32_e32 v6, 3, v3
    flat_store_dwordx4 v[1:2], v[3:6]
    s_endpgm
";

const OVERLAP_TOML: &str = r#"
kernel = "overlap.s"
grid = 64
workgroup = 64
args = ["out"]
[[buffer]]
name = "out"
type = "u32"
len = 67
"#;

#[test]
fn overlapping_multi_dword_stores_land_in_the_memory_ports_order() {
    check(OVERLAP, OVERLAP_TOML);
    // The order docs/golden.md states: per 16-lane pass, per dword, lanes ascending.
    let mut want = vec![0u32; 67];
    for pass in 0..4 {
        for d in 0..4 {
            for l in 16 * pass..16 * pass + 16 {
                want[l + d] = (l as u32) << 8 | d as u32;
            }
        }
    }
    let program = pws_isa::asm::assemble(OVERLAP, "k.s").unwrap();
    let manifest = Manifest::parse(OVERLAP_TOML, "k.toml").unwrap();
    let report = golden::run(&program, &manifest, &Config::default()).unwrap();
    assert_eq!(report.buffers.get("out").unwrap().words(), want);
    // Lane by lane, word 5 would hold lane 5's first dword; in the port's order lane 2's last.
    assert_eq!(want[5], 2 << 8 | 3);
}
