//! The activity-driven delta passes of the vendored rust-hdl (`vendor/rust-hdl-macros/PATCH.md`;
//! clock edges driven at once, core's PATCH.md change 8) against rust-hdl's own passes, which
//! pass the clock down and evaluate every block in every pass: the compute unit
//! runs the same launch with both, and the VCD traces (every signal of the design at every half
//! clock period) must be byte-for-byte equal, as must the reports. The kernels are generated
//! with every instruction family the RTL runs (floats, the LDS, atomics), in a random mode,
//! S and compaction, plus Figure 2's launch.

use std::path::Path;

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::compile::SplitPolicy;
use pws_host::launch::{KernelSource, LaunchKernel};
use pws_host::timing::Mode as HostMode;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_sim::cu::{run, RunOptions, RunReport};
use pws_sim::DeltaPasses;
use pws_verify::gen::{kernel_spec, Families, GenOptions};

/// Runs the launch with `passes`, tracing to `vcd`; the report as JSON (cycles, buffers,
/// statistics, block times; not the simulation speed), or the error's message.
fn run_traced(
    kernel: &LaunchKernel,
    manifest: &Manifest,
    opts: &RunOptions,
    passes: DeltaPasses,
    vcd: &Path,
) -> String {
    let opts = RunOptions {
        passes,
        vcd: Some(vcd.to_path_buf()),
        ..opts.clone()
    };
    match run(&kernel.program, manifest, &opts) {
        Ok(report) => serde_json::to_string(&RunReport {
            cycles_per_second: 0.0,
            ..report
        })
        .expect("a report serialises"),
        Err(e) => format!("error: {e}"),
    }
}

/// Both ways of settling give the same report and the same trace.
fn check(
    source: &KernelSource,
    manifest: &Manifest,
    mode: CuMode,
    s: usize,
    compaction: SwizzleMode,
) -> Result<(), TestCaseError> {
    let host_mode = match mode {
        CuMode::NoSplit => HostMode::NoSplit,
        CuMode::Dws => HostMode::Dws,
        CuMode::Pws => HostMode::Pws,
    };
    let kernel = LaunchKernel::new(source, host_mode, SplitPolicy::Marked)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let slots = (0..manifest.workgroups())
        .map(|g| manifest.wavefronts_in(g) as usize)
        .max()
        .unwrap_or(1);
    let opts = RunOptions {
        compaction,
        max_cycles: 200_000,
        ..RunOptions::new(
            HwConfig {
                wf_contexts_per_simd: slots.max(2),
                ..HwConfig::cu().with_spsimds(s)
            },
            mode,
        )
    };
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let (every_vcd, activity_vcd) = (dir.path().join("every.vcd"), dir.path().join("act.vcd"));
    let every = run_traced(
        &kernel,
        manifest,
        &opts,
        DeltaPasses::EveryBlock,
        &every_vcd,
    );
    let activity = run_traced(
        &kernel,
        manifest,
        &opts,
        DeltaPasses::Activity,
        &activity_vcd,
    );
    let what = format!("{mode:?} S={s} {compaction:?}\n{}", kernel.text);
    prop_assert_eq!(&activity, &every, "reports differ: {}", what);
    let (a, e) = (
        std::fs::read(&activity_vcd).map_err(|e| TestCaseError::fail(e.to_string()))?,
        std::fs::read(&every_vcd).map_err(|e| TestCaseError::fail(e.to_string()))?,
    );
    if a != e {
        let line = a
            .split(|&b| b == b'\n')
            .zip(e.split(|&b| b == b'\n'))
            .position(|(x, y)| x != y)
            .map_or(0, |l| l + 1);
        return Err(TestCaseError::fail(format!(
            "the VCD traces differ from line {line}: {what}"
        )));
    }
    Ok(())
}

const COMPACTIONS: [SwizzleMode; 3] = [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc];

fn generated() -> GenOptions {
    GenOptions {
        max_workgroup: 64,
        max_workgroups: 2,
        max_statements: 3,
        families: Families::where_all(|op| !pws_isa::subset::golden_only(op)),
        ..GenOptions::default()
    }
}

proptest! {
    // About 25 s of CPU a case (rust-hdl's every-block passes, both traces).
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(3)))]

    #[test]
    fn activity_passes_trace_what_every_block_passes_trace(
        spec in kernel_spec(generated()),
        mode in proptest::sample::select(&[CuMode::NoSplit, CuMode::Dws, CuMode::Pws][..]),
        s in 1usize..=3,
        compaction in proptest::sample::select(&COMPACTIONS[..]),
    ) {
        let g = spec.render();
        let source = KernelSource { text: g.source.clone(), file: "gen.s".into() };
        check(&source, &g.manifest, mode, s, compaction)?;
    }
}

#[test]
fn shipped_launches_trace_the_same_with_both_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (launch, mode, compaction) in [
        ("kernels/figure2.toml", CuMode::Pws, SwizzleMode::Scc),
        ("kernels/figure2.toml", CuMode::Dws, SwizzleMode::Bcc),
    ] {
        let manifest = Manifest::load(root.join(launch)).expect("shipped launch loads");
        let source = KernelSource::load(&manifest).expect("its kernel loads");
        check(&source, &manifest, mode, 2, compaction).unwrap_or_else(|e| panic!("{launch}: {e}"));
    }
}
