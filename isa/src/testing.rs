//! What every crate's tests share: property-test budgets and the shipped launches.

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
