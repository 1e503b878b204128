//! Test budgets shared by every crate's property tests.

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
