//! Co-simulation of the whole compute unit: rust-hdl's model and its exported Verilog compiled
//! by Verilator, driven by one test bench with the same inputs (`pws run --engine lockstep`),
//! every output compared after every settle and every clock edge; the first difference fails
//! the run with the port and the cycle. On the shipped assembly launches in every mode, on the
//! OpenCL launches that fit the compute unit, and on generated kernels (`pws_verify::gen`).
//!
//! Every run uses `kernels/hw/cosim.toml`, so one Verilator model serves them all: the first
//! test to need it builds it (minutes, once per machine: it is cached), the others wait for it
//! on the cache's lock. `make soak` runs every mode of the OpenCL launches and 10x the
//! generated kernels.

mod common;

use common::{manifests_in, soak};
use proptest::prelude::*;
use pws_isa::testing::proptest_cases;
use pws_verify::gen::{kernel_spec, GenOptions};

const CONFIG: &str = "kernels/hw/cosim.toml";
const MODES: [&str; 3] = ["nosplit", "dws", "pws"];
const COMPACTIONS: [&str; 3] = ["none", "bcc", "scc"];

/// `pws run LAUNCH --engine lockstep --json` in `mode` with `compaction`.
fn lockstep_run(launch: &str, mode: &str, compaction: &str) -> std::process::Output {
    common::pws(&[
        "run",
        launch,
        "--engine",
        "lockstep",
        "--config",
        CONFIG,
        "--mode",
        mode,
        "--compaction",
        compaction,
        "--json",
    ])
}

/// [`lockstep_run`], which must succeed (a co-simulation difference is an error); its report.
fn lockstep(launch: &str, mode: &str, compaction: &str) -> serde_json::Value {
    let out = lockstep_run(launch, mode, compaction);
    assert!(
        out.status.success(),
        "{launch} {mode} {compaction}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["engine"], "lockstep", "{launch}");
    assert!(r["cycles"].as_u64().unwrap() > 0, "{launch}");
    r
}

/// The launches in `kernels/<dir>` whose workgroups fit the two slots of the `cu` preset (a
/// larger one cannot run there: its wavefronts must be resident together). Launch sequences
/// are left out: `pws run` drives each of their launches through the same engine as a single
/// launch (tests/cli_sequence.rs runs them), and bfs_full's 14 launches would cost CI a
/// minute here for no output of the compute unit that the single launches do not show.
fn fitting(dir: &str) -> Vec<String> {
    manifests_in(dir)
        .into_iter()
        .filter(|l| !l.ends_with("gpu.toml"))
        .filter(|l| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(l);
            let sequence = pws_isa::sequence::LaunchSequence::load(path).unwrap();
            sequence.single().is_some_and(|m| m.wavefronts_in(0) <= 2)
        })
        .collect()
}

#[test]
fn the_shipped_launches_run_identically_in_every_mode() {
    let launches = fitting("");
    assert!(launches.len() >= 4, "{launches:?}");
    for (i, launch) in launches.iter().enumerate() {
        for (m, mode) in MODES.iter().enumerate() {
            lockstep(launch, mode, COMPACTIONS[(i + m) % 3]);
        }
    }
}

/// The OpenCL launches (LDS, Rodinia-style) that fit the `cu` preset: one mode each, rotating,
/// in `make test`; every mode under `make soak`.
#[test]
fn the_opencl_launches_that_fit_run_identically() {
    let mut launches = fitting("lds");
    launches.extend(fitting("rodinia"));
    assert!(
        launches.len() >= 8,
        "only {launches:?} fit the compute unit"
    );
    for (i, launch) in launches.iter().enumerate() {
        let modes: Vec<&str> = if soak() {
            MODES.to_vec()
        } else {
            vec![MODES[i % 3]]
        };
        for mode in modes {
            lockstep(launch, mode, COMPACTIONS[i % 3]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(6)))]

    /// Generated kernels (nested divergent branches with split marks, loops, loads, stores,
    /// barriers) in a drawn mode and compaction.
    #[test]
    fn generated_kernels_run_identically(
        spec in kernel_spec(GenOptions {
            max_workgroup: 96,
            max_workgroups: 2,
            max_statements: 3,
            ..GenOptions::default()
        }),
        mode in proptest::sample::select(&MODES[..]),
        compaction in proptest::sample::select(&COMPACTIONS[..]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let g = spec.render();
        std::fs::write(dir.path().join("gen.s"), &g.source).unwrap();
        let manifest = dir.path().join("gen.toml");
        std::fs::write(&manifest, g.manifest_toml("gen.s")).unwrap();
        let out = lockstep_run(manifest.to_str().unwrap(), mode, compaction);
        prop_assert!(
            out.status.success(),
            "{mode} {compaction}: {}\n{}\n{}",
            String::from_utf8_lossy(&out.stderr),
            g.source,
            g.manifest_toml("gen.s")
        );
    }
}
