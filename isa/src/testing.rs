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
