//! f32 instructions through the whole compute unit: decode (VOP1/VOP2/VOP3 forms, inline float
//! constants, abs/neg/omod/clamp modifiers, and abs/neg on `v_cndmask_b32`), the lanes' f32 units, write-back and FLAT stores;
//! each lane's result against the host's f32 arithmetic (the transcendentals where they are
//! exact), `v_madmk/madak_f32` with their literal K, and every f32 instruction's cycles
//! against the timing contract's VALU row (the f32 unit works within the pass cycle).

mod cu_bench;

use cu_bench::Bench;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::{timing, CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;

const OUT: u32 = 0x2000;

const KERNEL: &str = "
    v_cvt_f32_i32 v1, v0
    v_mul_f32 v2, v1, v1
    v_add_f32 v3, 0.5, v2
    v_mad_f32 v4, -v1, |v2|, v3
    v_cvt_i32_f32 v5, v4
    v_mul_f32_e64 v6, v1, 0.5 div:2
    v_mul_f32_e64 v7, v1, 0.5 clamp
    v_sub_f32 v8, v2, v1
    v_mov_b32 v9, 1.0
    v_mac_f32 v9, v1, v1
    v_subrev_f32 v9, 2.0, v9
    v_cmp_gt_f32 vcc, 0x41000000, v1
    v_cndmask_b32 v9, 0, v9, vcc
    v_sqrt_f32 v12, v2
    v_cmpx_class_f32 s[0:1], v12, 0x40
    v_mov_b32 v12, -1
    s_mov_b64 exec, -1
    v_exp_f32 v13, v1
    v_log_f32 v14, v13
    v_mul_f32 v15, 0.25, v1
    v_sin_f32 v16, v15
    v_cos_f32 v17, v15
    v_madmk_f32 v18, v1, 0x40400000, v2
    v_madak_f32 v19, v1, v1, 0x3f000000
    v_sub_f32 v20, 4.0, v1
    v_cmp_lt_f32 vcc, 0x40a00000, v1
    s_mov_b64 s[4:5], vcc
    v_cndmask_b32_e64 v20, -|v20|, |v20|, s[4:5]
    v_cndmask_b32_e64 v21, v1, -v1, vcc
    v_lshlrev_b32 v10, 2, v0
    v_add_u32 v10, vcc, 0x2000, v10
    v_mov_b32 v11, 0
    flat_store_dword v[10:11], v4
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v5
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v6
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v7
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v8
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v9
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v12
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v13
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v14
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v16
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v17
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v18
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v19
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v20
    v_add_u32 v10, vcc, 0x100, v10
    flat_store_dword v[10:11], v21
    s_endpgm
";

#[test]
fn float_kernel_gives_the_host_results_in_the_valu_cycles() {
    let cfg = HwConfig::cu();
    let program = pws_isa::asm::assemble(KERNEL, "float.s").expect("assembles");
    let mut b = Bench::new(&cfg, CuMode::NoSplit, SwizzleMode::None);
    b.load_program(&program.words());
    b.launch(1, 0, &[], |l| l as u32, u64::MAX);
    b.run(20_000);
    assert_eq!(b.cu.error_code_o.val(), CuError::None);
    for lane in 0..64u32 {
        let x = lane as f32;
        let v2 = x * x;
        let v3 = 0.5 + v2;
        let v4 = -x * v2.abs() + v3;
        let want = [
            v4.to_bits(),
            v4 as i32 as u32,
            (x * 0.5 * 0.5).to_bits(),
            (x * 0.5).min(1.0).to_bits(),
            (v2 - x).to_bits(),
            // mac: 1 + x·x, minus 2 (subrev), kept where x < 8.
            if x < 8.0 {
                (1.0 + x * x - 2.0).to_bits()
            } else {
                0
            },
            // sqrt(x²) = x; lanes where it is +0 (class bit 6) got -1.
            if lane == 0 { u32::MAX } else { x.to_bits() },
            // 2^x and log2 2^x are exact for integers; sin and cos of quarter turns too (a
            // zero result is +0).
            2f32.powi(lane as i32).to_bits(),
            x.to_bits(),
            [0.0f32, 1.0, 0.0, -1.0][lane as usize % 4].to_bits(),
            [1.0f32, 0.0, -1.0, 0.0][lane as usize % 4].to_bits(),
            // madmk: x · 3 + x², madak: x · x + 0.5 (exact).
            (x * 3.0 + v2).to_bits(),
            (v2 + 0.5).to_bits(),
            // v_cndmask_b32 with abs/neg (clang's select of fabs): where x > 5, |4 − x|, else
            // −|4 − x|; then −x where x > 5, else x.
            if x > 5.0 {
                (4.0 - x).abs().to_bits()
            } else {
                (-(4.0 - x).abs()).to_bits()
            },
            if x > 5.0 { (-x).to_bits() } else { x.to_bits() },
        ];
        for (k, w) in want.iter().enumerate() {
            let addr = OUT + 4 * lane + 0x100 * k as u32;
            assert_eq!(b.mem.get(&addr), Some(w), "lane {lane}, store {k}");
        }
    }
    let passes = cfg.passes() as u64;
    let mut timed = 0;
    for &(pc, takes) in &b.takes {
        let inst = &program.instruction_at(pc).expect("retired pc").item;
        if inst.opcode.mnemonic().ends_with("_f32") {
            assert_eq!(takes, timing::valu_cycles(0, passes), "`{inst}` at {pc:#x}");
            timed += 1;
        }
    }
    assert_eq!(timed, 21);
}
