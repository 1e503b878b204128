//! What every crate's tests share: property-test budgets, the shipped launches, and the kernel
//! descriptor of hand-written kernels that take clang's ABI.

/// Number of proptest cases for a property: `base` in `make test`, multiplied by the
/// `PWS_PROPTEST_SCALE` environment variable (set by `make soak`).
pub fn proptest_cases(base: u32) -> u32 {
    let scale = std::env::var("PWS_PROPTEST_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1);
    base.saturating_mul(scale)
}

/// The launch manifests shipped in the repository's `kernels/` folder, sorted by path
/// (`gpu.toml` there is the paper-level GPU configuration, not a launch).
pub fn shipped_launches() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels");
    let mut launches: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml") && !p.ends_with("gpu.toml"))
        .collect();
    launches.sort();
    launches
}

/// The kernel descriptor clang-14 writes for a kernel `name` that reads its dispatch packet
/// (s[4:5]), its arguments (s[6:7]) and its workgroup id in x (s8), as `get_global_id(0)` does,
/// with `vgprs` VGPRs and `sgprs` SGPRs: for hand-written test kernels in clang's ABI.
pub fn clang_descriptor(name: &str, vgprs: u32, sgprs: u32) -> String {
    format!(
        ".amdhsa_kernel {name}
.amdhsa_user_sgpr_count 8
.amdhsa_user_sgpr_private_segment_buffer 1
.amdhsa_user_sgpr_dispatch_ptr 1
.amdhsa_user_sgpr_kernarg_segment_ptr 1
.amdhsa_system_sgpr_workgroup_id_x 1
.amdhsa_next_free_vgpr {vgprs}
.amdhsa_next_free_sgpr {sgprs}
.end_amdhsa_kernel
"
    )
}

/// clang-14 -O2's `get_num_groups(0)` for hand-written test kernels: the grid's size (SGPR
/// `grid`) divided by the workgroup's (SGPR `workgroup`), rounded up, into VGPR `out`, as clang
/// expands an unsigned division (a reciprocal, a scaled estimate, two corrections selected by
/// compares, and the carry of `groups * size != grid`). VGPRs `out + 1` and `out + 2`, the SGPR
/// pair `mask` and SGPR `mask + 2` are its temporaries; VCC is written.
pub fn num_groups_asm(out: u8, grid: u8, workgroup: u8, mask: u8) -> String {
    let (q, t, u) = (out, out + 1, out + 2);
    let (m, neg, w, g) = (mask, mask + 2, workgroup, grid);
    format!(
        "v_cvt_f32_u32_e32 v{q}, s{w}
s_sub_i32 s{neg}, 0, s{w}
v_rcp_iflag_f32_e32 v{q}, v{q}
v_mul_f32_e32 v{q}, 0x4f7ffffe, v{q}
v_cvt_u32_f32_e32 v{q}, v{q}
v_mul_lo_u32 v{t}, s{neg}, v{q}
v_mul_hi_u32 v{t}, v{q}, v{t}
v_add_u32_e32 v{q}, vcc, v{t}, v{q}
v_mul_hi_u32 v{q}, s{g}, v{q}
v_mul_lo_u32 v{t}, v{q}, s{w}
v_add_u32_e32 v{u}, vcc, 1, v{q}
v_sub_u32_e32 v{t}, vcc, s{g}, v{t}
v_cmp_le_u32_e64 s[{m}:{}], s{w}, v{t}
v_cndmask_b32_e64 v{q}, v{q}, v{u}, s[{m}:{}]
v_subrev_u32_e32 v{u}, vcc, s{w}, v{t}
v_cndmask_b32_e64 v{t}, v{t}, v{u}, s[{m}:{}]
v_add_u32_e32 v{u}, vcc, 1, v{q}
v_cmp_le_u32_e32 vcc, s{w}, v{t}
v_cndmask_b32_e32 v{q}, v{q}, v{u}, vcc
v_mul_lo_u32 v{t}, v{q}, s{w}
v_cmp_ne_u32_e32 vcc, s{g}, v{t}
v_addc_u32_e32 v{q}, vcc, 0, v{q}, vcc
",
        m + 1,
        m + 1,
        m + 1
    )
}
