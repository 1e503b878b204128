//! The compute-unit RTL against the golden model: for generated kernels (pws_verify::gen) and
//! for every launch in kernels/, the RTL's final memory equals the golden model's in every
//! mode (nosplit, dws, pws with S = 1..=3) and compaction (none, bcc, scc). The kernel is
//! prepared as `pws run` prepares it (the host's split/merge pass; DWS marks every divergent
//! branch). A failing case prints its kernel and launch, shrunk to a small tree. The generated
//! kernels use every instruction family the RTL runs ([`rtl_families`]): a family joins by
//! itself once none of its opcodes is `pws_isa::subset::golden_only` any more.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::compile::SplitPolicy;
use pws_host::launch::{KernelSource, LaunchKernel};
use pws_host::timing::Mode as HostMode;
use pws_isa::manifest::Manifest;
use pws_isa::testing::{proptest_cases, shipped_launches};
use pws_sim::cu::{run, RunOptions};
use pws_verify::gen::{kernel_spec, Families, GenOptions, KernelSpec};
use pws_verify::golden::{self, Config, Mode};

const COMPACTIONS: [SwizzleMode; 3] = [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc];
/// Cases of the instruction-family property in `make test`: about 3 s of CPU each.
const FAMILY_CASES: u32 = 16;

/// Final buffers of the golden model, without splitting, as (name, words).
fn golden_memory(source: &str, manifest: &Manifest) -> Result<Vec<(String, Vec<u32>)>, String> {
    let program = pws_isa::assemble(source, "kernel.s").map_err(|e| e.to_string())?;
    let config = Config {
        mode: Mode::NoSplit,
        s: 0,
        max_instructions: 10_000_000,
        ..Config::default()
    };
    let report = golden::run(&program, manifest, &config).map_err(|e| e.to_string())?;
    Ok(report
        .buffers
        .0
        .iter()
        .map(|(n, v)| (n.clone(), v.words()))
        .collect())
}

/// Final buffers of the RTL in `mode` with `s` SpSIMDs and `compaction`, on the `cu` compute
/// unit with at least `slots` wavefront slots.
fn rtl_memory(
    slots: usize,
    source: &str,
    manifest: &Manifest,
    mode: CuMode,
    s: usize,
    compaction: SwizzleMode,
) -> Result<Vec<(String, Vec<u32>)>, String> {
    let host_mode = match mode {
        CuMode::NoSplit => HostMode::NoSplit,
        CuMode::Dws => HostMode::Dws,
        CuMode::Pws => HostMode::Pws,
    };
    let kernel_source = KernelSource {
        text: source.to_string(),
        file: "kernel.s".into(),
    };
    let kernel = LaunchKernel::new(&kernel_source, host_mode, SplitPolicy::Marked)
        .map_err(|e| e.to_string())?;
    let opts = RunOptions {
        compaction,
        max_cycles: 2_000_000,
        ..RunOptions::new(
            HwConfig {
                wf_contexts_per_simd: slots.max(2),
                ..HwConfig::cu().with_spsimds(s)
            },
            mode,
        )
    };
    let report =
        run(&kernel.program, manifest, &opts).map_err(|e| format!("{e}\n{}", kernel.text))?;
    Ok(report
        .buffers
        .0
        .into_iter()
        .map(|b| (b.name, b.words))
        .collect())
}

/// Generated kernels sized so that 80 RTL runs fit the `make test` budget: the compute unit
/// simulates a few hundred cycles per second.
fn small() -> GenOptions {
    GenOptions {
        max_workgroup: 96,
        max_workgroups: 2,
        max_statements: 3,
        ..GenOptions::default()
    }
}

/// The instruction families whose every opcode the compute unit runs (f32 arithmetic today;
/// the LDS, the FLAT atomics, the transcendentals and the literal multiply-adds once the RTL
/// implements them).
fn rtl_families() -> Families {
    Families::where_all(|op| !pws_isa::subset::golden_only(op))
}

/// Smaller kernels with the families: their prologue and epilogue add instructions.
fn small_with_families() -> GenOptions {
    GenOptions {
        max_workgroup: 64,
        max_statements: 3,
        families: rtl_families(),
        ..small()
    }
}

fn check(
    spec: &KernelSpec,
    mode: CuMode,
    s: usize,
    compaction: SwizzleMode,
) -> Result<(), TestCaseError> {
    let g = spec.render();
    let expected = golden_memory(&g.source, &g.manifest).map_err(TestCaseError::fail)?;
    let got = rtl_memory(2, &g.source, &g.manifest, mode, s, compaction).map_err(|e| {
        TestCaseError::fail(format!(
            "{mode:?} S={s} {compaction:?}: {e}\n{}",
            g.manifest_toml("gen.s")
        ))
    })?;
    prop_assert!(
        got == expected,
        "{:?} S={} {:?}: memory differs\nRTL:    {:?}\ngolden: {:?}\n{}\n{}",
        mode,
        s,
        compaction,
        got,
        expected,
        g.source,
        g.manifest_toml("gen.s")
    );
    Ok(())
}

// 2 x 40 kernels (x 10 in `make soak`): the two properties run on the two cores of `make test`
// in parallel. Each case draws its compaction (and S) with the kernel; shrinking keeps them and
// simplifies the kernel.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(40)))]

    #[test]
    fn rtl_memory_equals_golden_memory_without_split_and_in_dws(
        spec in kernel_spec(small()),
        mode in proptest::sample::select(&[CuMode::NoSplit, CuMode::Dws][..]),
        s in 1usize..=3,
        compaction in proptest::sample::select(&COMPACTIONS[..]),
    ) {
        check(&spec, mode, s, compaction)?;
    }

    #[test]
    fn rtl_memory_equals_golden_memory_in_pws(
        spec in kernel_spec(small()),
        s in 1usize..=3,
        compaction in proptest::sample::select(&COMPACTIONS[..]),
    ) {
        check(&spec, CuMode::Pws, s, compaction)?;
    }
}

// The instruction families on the RTL, every mode in each case (mode, S and compaction drawn
// with the kernel); the family-free properties above keep their budget for the control flow.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(FAMILY_CASES)))]

    #[test]
    fn rtl_memory_equals_golden_memory_with_the_instruction_families(
        spec in kernel_spec(small_with_families()),
        mode in proptest::sample::select(&[CuMode::NoSplit, CuMode::Dws, CuMode::Pws][..]),
        s in 1usize..=3,
        compaction in proptest::sample::select(&COMPACTIONS[..]),
    ) {
        check(&spec, mode, s, compaction)?;
    }
}

/// The floats stay on: an f32 opcode the generator gains and the RTL lacks would turn the
/// whole family off without a word.
#[test]
fn the_generated_kernels_on_the_rtl_use_floats() {
    assert!(rtl_families().floats, "{:?}", rtl_families());
}

/// Every shipped launch, in every mode. `make soak` runs PWS with S = 1..=3 and every
/// compaction in PWS with S = 2; `make test` runs PWS once per launch, rotating over those five
/// variants with the launch's index. Only each launch's first workgroup runs (the others run
/// the same code on other data), on as many slots as it has wavefronts, which keeps the larger
/// launches within the budget.
#[test]
fn every_shipped_kernel_matches_the_golden_model_in_every_mode() {
    let manifests = shipped_launches();
    assert!(manifests.len() >= 3, "{manifests:?}");
    let soak = proptest_cases(1) > 1;
    let mut runs = 0;
    for (i, path) in manifests.iter().enumerate() {
        let mut manifest = Manifest::load(path).unwrap();
        manifest.grid = [0, 1, 2].map(|d| manifest.grid[d].min(manifest.workgroup[d]));
        let slots = manifest.wavefronts_in(0) as usize;
        let source = manifest.kernel_source().unwrap();
        let expected = golden_memory(&source, &manifest).unwrap();
        let mut combos = vec![
            (CuMode::NoSplit, 2, SwizzleMode::None),
            (CuMode::Dws, 2, SwizzleMode::None),
        ];
        let mut pws: Vec<_> = (1..=3)
            .map(|s| (CuMode::Pws, s, SwizzleMode::None))
            .collect();
        pws.extend([SwizzleMode::Bcc, SwizzleMode::Scc].map(|c| (CuMode::Pws, 2, c)));
        if soak {
            combos.extend(pws);
        } else {
            combos.push(pws[i % pws.len()]);
        }
        for (mode, s, compaction) in combos {
            let got =
                rtl_memory(slots, &source, &manifest, mode, s, compaction).unwrap_or_else(|e| {
                    panic!("{}: {mode:?} S={s} {compaction:?}: {e}", path.display())
                });
            assert_eq!(
                got,
                expected,
                "{}: {mode:?} S={s} {compaction:?}",
                path.display()
            );
            runs += 1;
        }
    }
    assert_eq!(runs, manifests.len() * if soak { 7 } else { 3 });
}
