//! The kernel generator against the golden model: every generated kernel assembles, runs
//! without error, and gives the same memory without splitting, with its marked splits and with
//! a split at every divergent branch (the host's merge insertion), for S = 1..=3; with every
//! instruction family (f32, LDS, atomics) too, twice each, so that a kernel whose result
//! depended on the golden model's schedule (split contexts interleave differently) shows.
//! The families' opcode lists, which gate what the compute-unit suites enable, are what the
//! generator emits.

use pws_host::compile::SplitPolicy;
use std::collections::BTreeSet;

use proptest::prelude::*;
use pws_isa::testing::proptest_cases;
use pws_isa::Opcode;
use pws_verify::gen::{kernel_spec, Families, Family, GenOptions, KernelSpec};
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
    let again = run(&g.source, spec, Mode::NoSplit, 0).map_err(TestCaseError::fail)?;
    prop_assert_eq!(
        words(&again),
        words(&reference),
        "two runs differ:\n{}",
        g.source
    );
    let program =
        pws_isa::assemble(&g.source, "gen.s").map_err(|e| TestCaseError::fail(e.to_string()))?;
    let host_takes_it = !program
        .instructions
        .iter()
        .any(|l| pws_isa::subset::golden_only(l.item.opcode));
    for policy in SplitPolicy::ALL {
        // The host pass inserts splits where it has a timing class for every instruction; the
        // generator places the marked ones and every one the same way for every kernel (the
        // cost model's choice is the host's alone).
        let mut versions = Vec::new();
        if policy != SplitPolicy::Auto {
            versions.push(spec.render_split(policy == SplitPolicy::All).source);
        }
        if host_takes_it {
            let compiled = pws_host::compile::compile(&g.source, "gen.s", policy)
                .map_err(|e| TestCaseError::fail(format!("host compile: {e}\n{}", g.source)))?;
            versions.push(compiled.text);
        }
        for text in &versions {
            for s in 1..=3 {
                let r = run(text, spec, Mode::Pws, s).map_err(TestCaseError::fail)?;
                prop_assert_eq!(
                    words(&r),
                    words(&reference),
                    "split {} S {}:\n{}",
                    policy.name(),
                    s,
                    text
                );
            }
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

    #[test]
    fn generated_float_lds_and_atomic_kernels_run_and_agree_in_every_mode(
        spec in kernel_spec(GenOptions { families: Families::ALL, ..GenOptions::default() })
    ) {
        check(&spec)?;
    }
}

/// With every family, the generator's own split placement splits, and the kernels pass their
/// barriers (every LDS kernel passes the one after its prologue).
#[test]
fn family_kernels_split_and_pass_barriers() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = kernel_spec(GenOptions {
        families: Families::ALL,
        ..GenOptions::default()
    });
    let (mut splits, n) = (0, 100);
    for _ in 0..n {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let split = spec.render_split(true);
        let r = run(&split.source, &spec, Mode::Pws, 3).unwrap();
        splits += usize::from(r.stats.splits > 0);
        assert!(r.stats.barriers > 0, "{}", split.source);
    }
    assert!(splits >= n / 8, "{splits} of {n} kernels split");
}

/// The opcodes of `n` kernels generated with `families`.
fn emitted(families: Families, n: usize) -> BTreeSet<Opcode> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = kernel_spec(GenOptions {
        families,
        ..GenOptions::default()
    });
    let mut ops = BTreeSet::new();
    for _ in 0..n {
        let g = strategy.new_tree(&mut runner).unwrap().current().render();
        let program = pws_isa::assemble(&g.source, "gen.s").unwrap_or_else(|e| panic!("{e}"));
        ops.extend(program.instructions.iter().map(|l| l.item.opcode));
    }
    ops
}

/// Each family emits every opcode of its list and nothing outside the integer core and the
/// list, so a suite that enables only the families the RTL runs gets only what it runs.
#[test]
fn each_family_emits_exactly_its_opcodes() {
    let core = emitted(Families::default(), 200);
    for family in Family::ALL {
        let mut families = Families {
            floats: family == Family::Floats,
            transcendentals: family == Family::Transcendentals,
            literal_mads: family == Family::LiteralMads,
            lds: family == Family::Lds,
            atomics: family == Family::Atomics,
            sdwa: family == Family::Sdwa,
        };
        // The transcendentals and the literal multiply-adds come with the floats.
        let mut allowed: BTreeSet<Opcode> = family.opcodes().into_iter().collect();
        if matches!(family, Family::Transcendentals | Family::LiteralMads) {
            families.floats = true;
            allowed.extend(Family::Floats.opcodes());
        }
        let ops = emitted(families, 300);
        let stray: Vec<_> = ops
            .iter()
            .filter(|o| !core.contains(o) && !allowed.contains(o))
            .map(|o| o.mnemonic())
            .collect();
        assert!(stray.is_empty(), "{family:?} emits {stray:?}");
        let missing: Vec<_> = family
            .opcodes()
            .into_iter()
            .filter(|o| !ops.contains(o))
            .map(|o| o.mnemonic())
            .collect();
        assert!(missing.is_empty(), "{family:?} never emits {missing:?}");
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
        let compiled = pws_host::compile::compile(&g.source, "gen.s", SplitPolicy::All).unwrap();
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
