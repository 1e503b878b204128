//! OpenCL C kernels generated at random (pws_verify::gen_cl), compiled by clang-14 at -O1..-O3,
//! through every stage of pws: the golden model with the split/merge pass (marked branches, or
//! every branch that can split) equals the golden model on clang's program as it is (what pws
//! runs differs from it by the split pass and by skip branches into a loop taken out), the RTL
//! equals it in no-split, DWS and PWS (S = 1..3, every compaction), and the WCET bound of the
//! launch holds on the RTL's cycles; loops with a `break` and no annotation are bounded by what
//! the analysis infers from their counters. A failing case prints the C source and the manifest. The kernels
//! use the instruction families (floats, the LDS, atomics) the RTL runs
//! ([`rtl_cl_families`]); every family runs on the golden model alone in
//! `clang_kernels_with_every_family_run_deterministically_on_the_golden_model`.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::compile::SplitPolicy;
use pws_host::launch::{analyse_launch, KernelSource, LaunchKernel};
use pws_host::timing::Mode as HostMode;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_sim::cu::{run, RunOptions};
use pws_verify::gen::Family;
use pws_verify::gen_cl::{cl_kernel_with, ClFamilies, ClKernel};
use pws_verify::golden::{self, Config, Mode};

fn memory(b: &golden::Report) -> Vec<(String, Vec<u32>)> {
    b.buffers
        .0
        .iter()
        .map(|(n, v)| (n.clone(), v.words()))
        .collect()
}

/// Why a case could not be checked.
enum Failure {
    /// clang emitted an instruction outside the pws subset: not what this test is about (the
    /// ISA tests are); the case is rejected, and the instruction printed.
    Unsupported(String),
    Wrong(String),
}

fn check(
    k: &ClKernel,
    mode: CuMode,
    s: usize,
    compaction: SwizzleMode,
    split: SplitPolicy,
) -> Result<(), Failure> {
    check_inner(k, mode, s, compaction, split).map_err(|e| {
        // clang may pick an instruction of a family the RTL does not run yet for C the
        // families allow (v_madak_f32 for a float multiply-add, say).
        if outside_the_subset(&e) || e.contains("runs on the golden model only") {
            Failure::Unsupported(e)
        } else {
            Failure::Wrong(e)
        }
    })
}

/// clang emitted what pws does not assemble (SDWA for byte arithmetic) or does not execute
/// (`|x|` on `v_cndmask_b32_e64` for a float select: modifiers on an integer instruction).
fn outside_the_subset(e: &str) -> bool {
    e.contains("unsupported instruction") || e.contains("outside the executable subset")
}

fn check_inner(
    k: &ClKernel,
    mode: CuMode,
    s: usize,
    compaction: SwizzleMode,
    split: SplitPolicy,
) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join("gen.cl"), k.source()).map_err(|e| e.to_string())?;
    let path = dir.path().join("gen.toml");
    std::fs::write(&path, k.manifest("gen.cl")).map_err(|e| e.to_string())?;
    let manifest = Manifest::load(&path).map_err(|e| e.to_string())?;
    let source = KernelSource::load(&manifest).map_err(|e| e.to_string())?;
    let nosplit = |m| Config {
        mode: m,
        s,
        ..Config::default()
    };
    // clang's program as it is: what every mode runs (skip branches into a loop taken out,
    // split and merge inserted) must compute what it does.
    let clang = pws_isa::assemble(&source.text, &source.file).map_err(|e| e.to_string())?;
    let reference = memory(
        &golden::run(&clang, &manifest, &nosplit(Mode::NoSplit)).map_err(|e| e.to_string())?,
    );
    let host_mode = match mode {
        CuMode::NoSplit => HostMode::NoSplit,
        CuMode::Dws => HostMode::Dws,
        CuMode::Pws => HostMode::Pws,
    };
    let kernel = LaunchKernel::new(&source, host_mode, split).map_err(|e| e.to_string())?;
    let split_golden = golden::run(&kernel.program, &manifest, &nosplit(Mode::Pws))
        .map_err(|e| format!("golden with splits: {e}\n{}", kernel.text))?;
    if memory(&split_golden) != reference {
        return Err(format!(
            "the split program's golden memory differs\n{}",
            kernel.text
        ));
    }
    // clang allocates registers freely: room for what it uses at -O3.
    let hw = HwConfig {
        vgprs_per_simd: 128,
        sgprs_per_context: 104,
        ..HwConfig::cu()
    }
    .with_spsimds(s);
    let report = run(
        &kernel.program,
        &manifest,
        &RunOptions {
            compaction,
            max_cycles: 2_000_000,
            ..RunOptions::new(hw, mode)
        },
    )
    .map_err(|e| format!("RTL: {e}\n{}", kernel.text))?;
    let rtl: Vec<(String, Vec<u32>)> = report
        .buffers
        .0
        .iter()
        .map(|b| (b.name.clone(), b.words.clone()))
        .collect();
    if rtl != reference {
        return Err(format!(
            "RTL memory differs from the golden model\n{}",
            kernel.text
        ));
    }
    let bound = analyse_launch(
        &manifest,
        &source,
        &pws_verify::bound::machine(&hw),
        &[host_mode],
        split,
    )
    .map_err(|e| format!("WCET: {e}\n{}", kernel.text))?;
    let bound = bound.mode(host_mode).expect("analysed").bound;
    if report.cycles > bound {
        return Err(format!(
            "{} cycles exceed the bound {bound}\n{}",
            report.cycles, kernel.text
        ));
    }
    Ok(())
}

/// The families of C the RTL runs: those whose generator counterparts' opcodes are all
/// outside `pws_isa::subset::golden_only`.
fn rtl_cl_families() -> ClFamilies {
    let runs = |f: Family| {
        f.opcodes()
            .into_iter()
            .all(|op| !pws_isa::subset::golden_only(op))
    };
    let floats = runs(Family::Floats);
    ClFamilies {
        floats,
        transcendentals: floats && runs(Family::Transcendentals),
        local: runs(Family::Lds),
        atomics: runs(Family::Atomics),
        private: pws_isa::OPCODES
            .iter()
            .filter(|i| i.format == pws_isa::Format::Mubuf)
            .all(|i| !pws_isa::subset::golden_only(i.opcode)),
    }
}

/// The golden model alone: the kernel runs without fault, twice to the same memory, and,
/// where the host's split pass takes it (it refuses golden-only instructions), the split
/// program in PWS with S SpSIMDs gives that memory too.
fn check_golden(k: &ClKernel, s: usize, split: SplitPolicy) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join("gen.cl"), k.source()).map_err(|e| e.to_string())?;
    let path = dir.path().join("gen.toml");
    std::fs::write(&path, k.manifest("gen.cl")).map_err(|e| e.to_string())?;
    let manifest = Manifest::load(&path).map_err(|e| e.to_string())?;
    let source = KernelSource::load(&manifest).map_err(|e| e.to_string())?;
    let config = |mode| Config {
        mode,
        s,
        ..Config::default()
    };
    let unsplit = LaunchKernel::new(&source, HostMode::NoSplit, SplitPolicy::Marked)
        .map_err(|e| e.to_string())?;
    let run = |program, mode| {
        golden::run(program, &manifest, &config(mode))
            .map(|r| memory(&r))
            .map_err(|e| format!("golden: {e}\n{}", unsplit.text))
    };
    let reference = run(&unsplit.program, Mode::NoSplit)?;
    if run(&unsplit.program, Mode::NoSplit)? != reference {
        return Err(format!("two runs differ\n{}", unsplit.text));
    }
    let clang = pws_isa::assemble(&source.text, &source.file).map_err(|e| e.to_string())?;
    if run(&clang, Mode::NoSplit)? != reference {
        return Err(format!(
            "the program pws runs computes another memory than clang's\n{}",
            unsplit.text
        ));
    }
    let host_takes_it = !unsplit
        .program
        .instructions
        .iter()
        .any(|l| pws_isa::subset::golden_only(l.item.opcode));
    if host_takes_it {
        let split = LaunchKernel::new(&source, HostMode::Pws, split).map_err(|e| e.to_string())?;
        if run(&split.program, Mode::Pws)? != reference {
            return Err(format!(
                "the split program's golden memory differs\n{}",
                split.text
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(12)))]

    #[test]
    fn clang_kernels_with_every_family_run_deterministically_on_the_golden_model(
        k in cl_kernel_with(ClFamilies::ALL),
        s in 1usize..=3,
        split in prop::sample::select(SplitPolicy::ALL.to_vec()),
    ) {
        if let Err(e) = check_golden(&k, s, split) {
            if outside_the_subset(&e) {
                eprintln!("rejected: {}", e.lines().next().unwrap_or(""));
                return Err(TestCaseError::reject("clang emitted an unsupported instruction"));
            }
            return Err(TestCaseError::fail(format!(
                "S={s} split={}: {e}\n--- gen.cl\n{}--- gen.toml\n{}",
                split.name(),
                k.source(),
                k.manifest("gen.cl")
            )));
        }
    }

    #[test]
    fn clang_kernels_agree_in_every_mode(
        k in cl_kernel_with(rtl_cl_families()),
        mode in prop_oneof![Just(CuMode::NoSplit), Just(CuMode::Dws), Just(CuMode::Pws)],
        s in 1usize..=3,
        compaction in prop_oneof![Just(SwizzleMode::None), Just(SwizzleMode::Bcc), Just(SwizzleMode::Scc)],
        split in prop::sample::select(SplitPolicy::ALL.to_vec()),
    ) {
        match check(&k, mode, s, compaction, split) {
            Ok(()) => {}
            Err(Failure::Unsupported(e)) => {
                eprintln!("rejected: {}", e.lines().next().unwrap_or(""));
                return Err(TestCaseError::reject("clang emitted an unsupported instruction"));
            }
            Err(Failure::Wrong(e)) => return Err(TestCaseError::fail(format!(
                "{mode:?} S={s} {compaction:?} split={}: {e}\n--- gen.cl\n{}--- gen.toml\n{}",
                split.name(),
                k.source(),
                k.manifest("gen.cl")
            ))),
        }
    }
}
