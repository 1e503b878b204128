//! The kernel generator against the golden model: every generated kernel assembles, runs
//! without error, and gives the same memory without splitting, with its marked splits and with
//! a split at every divergent branch (the host's merge insertion), for S = 1..=3.

use proptest::prelude::*;
use pws_isa::testing::proptest_cases;
use pws_verify::gen::{kernel_spec, GenOptions, KernelSpec};
use pws_verify::golden::{self, Config, Mode};

fn words(report: &golden::Report) -> Vec<(String, Vec<u32>)> {
    report
        .buffers
        .0
        .iter()
        .map(|(n, v)| (n.clone(), v.words()))
        .collect()
}

fn run(source: &str, spec: &KernelSpec, mode: Mode, s: usize) -> Result<golden::Report, String> {
    let g = spec.render();
    let program = pws_isa::assemble(source, "gen.s").map_err(|e| format!("{e}\n{source}"))?;
    golden::run(
        &program,
        &g.manifest,
        &Config {
            mode,
            s,
            max_instructions: 5_000_000,
            ..Config::default()
        },
    )
    .map_err(|e| format!("{e}\n{source}"))
}

fn check(spec: &KernelSpec) -> Result<(), TestCaseError> {
    let g = spec.render();
    let reference = run(&g.source, spec, Mode::NoSplit, 0).map_err(TestCaseError::fail)?;
    for split_all in [false, true] {
        let compiled = pws_host::compile::compile(&g.source, "gen.s", split_all)
            .map_err(|e| TestCaseError::fail(format!("host compile: {e}\n{}", g.source)))?;
        for s in 1..=3 {
            let r = run(&compiled.text, spec, Mode::Pws, s).map_err(TestCaseError::fail)?;
            prop_assert_eq!(
                words(&r),
                words(&reference),
                "split_all {} S {}:\n{}",
                split_all,
                s,
                compiled.text
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(300)))]

    #[test]
    fn generated_kernels_run_and_agree_in_every_mode(spec in kernel_spec(GenOptions::default())) {
        check(&spec)?;
    }
}

/// The generator really produces what the suites rely on: splits that allocate contexts,
/// loops, barriers and partial wavefronts, in a good share of the cases.
#[test]
fn generated_kernels_exercise_splits_loops_and_barriers() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = kernel_spec(GenOptions::default());
    let (mut splits, mut loops, mut barriers, mut partial) = (0, 0, 0, 0);
    let n = 100;
    for _ in 0..n {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let g = spec.render();
        let compiled = pws_host::compile::compile(&g.source, "gen.s", true).unwrap();
        let r = run(&compiled.text, &spec, Mode::Pws, 3).unwrap();
        splits += usize::from(r.stats.splits > 0);
        loops += usize::from(g.source.contains("s_cbranch_scc1 LOOP"));
        barriers += usize::from(r.stats.barriers > 0);
        partial += usize::from(spec.grid % 64 != 0);
    }
    assert!(splits >= n / 4, "{splits} of {n} kernels split");
    assert!(loops >= n / 10, "{loops} of {n} kernels loop");
    assert!(
        barriers >= n / 10,
        "{barriers} of {n} kernels pass a barrier"
    );
    assert!(
        partial >= n / 4,
        "{partial} of {n} kernels have a partial wavefront"
    );
}
