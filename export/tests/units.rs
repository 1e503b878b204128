//! Every pws unit through the export checks, and the co-simulation of every unit against its
//! exported Verilog in Icarus. The tools are required: a missing one fails (`make deps`).

use std::collections::BTreeSet;

use pws_export::cosim::{self, CoSimPorts, PortValue, Stimulus};
use pws_export::units::{self, Design, Unit};
use pws_export::{tools, verilog};
use pws_hdl::config::HwConfig;
use pws_hdl::reconvergence::{DualPathStack, PdomStack, StackStatus};
use pws_hdl::split_merge::{SmStatus, SplitMergeUnit};
use pws_hdl::swizzle::SwizzleUnit;

fn unit(module: &str) -> Unit {
    units::select(Some(module)).unwrap().remove(0)
}

/// The two largest units each have a test of their own, so the test runner checks them beside
/// the rest.
const LARGE_UNITS: [&str; 2] = ["pws_vector_unit", "pws_compute_unit"];

/// `pws export`'s checks on `u`: Verilator's lint with the waivers, Icarus, Yosys' front end.
fn lints_compiles_and_passes_yosys_checks(u: &Unit) {
    let dir = tempfile::tempdir().unwrap();
    let text = (u.verilog)(None).unwrap();
    let file = verilog::write(dir.path(), u.module, &text).unwrap();
    assert!(text.contains(&format!("module {}(", u.module)));
    assert!(!text.contains("module top"), "{}", u.module);
    tools::lint(&file, u.module).unwrap_or_else(|e| panic!("{e}"));
    tools::iverilog(
        &[&file],
        u.module,
        &dir.path().join(format!("{}.vvp", u.module)),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Full synthesis takes minutes for the largest units; `make synth` runs it.
    tools::yosys_check(&file, u.module).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_unit_lints_compiles_and_passes_yosys_checks() {
    for u in units::all() {
        if !LARGE_UNITS.contains(&u.module) {
            lints_compiles_and_passes_yosys_checks(&u);
        }
    }
}

#[test]
fn vector_unit_lints_compiles_and_passes_yosys_checks() {
    lints_compiles_and_passes_yosys_checks(&unit("pws_vector_unit"));
}

/// The whole compute unit (`HwConfig::cu()`), as `pws export` writes it.
#[test]
fn compute_unit_lints_compiles_and_passes_yosys_checks() {
    lints_compiles_and_passes_yosys_checks(&unit("pws_compute_unit"));
}

/// The f32 datapath's own module through every check, so a lint or synthesis problem in it
/// shows without waiting for the vector unit, whose Verilog holds it once per lane.
#[test]
fn fpu_stage_lints_compiles_and_passes_yosys_checks() {
    let dir = tempfile::tempdir().unwrap();
    let u = unit("pws_fpu_stage");
    let text = (u.verilog)(None).unwrap();
    let file = verilog::write(dir.path(), u.module, &text).unwrap();
    tools::lint(&file, u.module).unwrap_or_else(|e| panic!("{e}"));
    tools::iverilog(&[&file], u.module, &dir.path().join("fpu.vvp"))
        .unwrap_or_else(|e| panic!("{e}"));
    tools::yosys_check(&file, u.module).unwrap_or_else(|e| panic!("{e}"));
}

/// Seeds per unit: 4 in `make test`, scaled by `make soak`.
fn seeds() -> std::ops::Range<u64> {
    1..1 + u64::from(pws_isa::testing::proptest_cases(4))
}

fn cosimulate(module: &str, cycles: usize) {
    let u = unit(module);
    for seed in seeds() {
        let dir = tempfile::tempdir().unwrap();
        let cosim = u.cosim.expect("unit has an Icarus co-simulation");
        let report = cosim(None, seed, cycles, dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.cycles, cycles);
    }
}

#[test]
fn split_merge_unit_matches_its_verilog() {
    cosimulate("pws_split_merge_unit", 2000);
}

#[test]
fn swizzle_unit_matches_its_verilog() {
    cosimulate("pws_swizzle_unit", 600);
}

/// Cycles per seed of the reconvergence stacks: the dual-path stack pushes one entry per
/// branch, so filling it to overflow takes longer than the single-path stack.
const STACK_CYCLES: usize = 4000;

#[test]
fn pdom_stack_matches_its_verilog() {
    cosimulate("pws_pdom_stack", STACK_CYCLES);
}

#[test]
fn dual_path_stack_matches_its_verilog() {
    cosimulate("pws_dual_path_stack", STACK_CYCLES);
}

/// Values an output takes in the cycles where `when` is high (every cycle if `None`), over
/// one seed's stimulus.
fn observed<D: Design + CoSimPorts>(
    cycles: usize,
    when: Option<&str>,
    what: &str,
) -> BTreeSet<u64> {
    let uut = D::build().unwrap();
    let names: Vec<String> = uut.output_ports().into_iter().map(|p| p.name).collect();
    let index = |n: &str| names.iter().position(|m| m == n).unwrap();
    let (when, what) = (when.map(index), index(what));
    let stimulus = Stimulus::random(&uut, 1, cycles);
    let outputs = cosim::simulate_rust(uut, &stimulus).unwrap();
    outputs
        .iter()
        .filter(|row| when.is_none_or(|w| row[w] == 1))
        .map(|row| row[what])
        .collect()
}

#[test]
fn split_merge_stimulus_reaches_every_status() {
    let statuses = observed::<SplitMergeUnit>(2000, Some("done"), "status");
    for s in [
        SmStatus::Ok,
        SmStatus::NoFreeContext,
        SmStatus::Merged,
        SmStatus::MergeWait,
    ] {
        assert!(
            statuses.contains(&s.to_u64()),
            "{s:?} never completed: {statuses:?}"
        );
    }
    assert_eq!(statuses.len(), 9, "{statuses:?}");
}

#[test]
fn swizzle_stimulus_reaches_every_pass_count() {
    assert_eq!(
        observed::<SwizzleUnit>(600, Some("done_o"), "passes_o"),
        BTreeSet::from([1, 2, 3, 4])
    );
}

#[test]
fn stack_stimulus_fills_empties_and_overflows_both_stacks() {
    let every_depth: BTreeSet<u64> = (0..=units::STACK_DEPTH as u64).collect();
    let statuses = |s: &[StackStatus]| s.iter().map(PortValue::to_u64).collect::<BTreeSet<_>>();
    assert_eq!(
        observed::<PdomStack>(STACK_CYCLES, None, "depth_o"),
        every_depth
    );
    assert_eq!(
        observed::<PdomStack>(STACK_CYCLES, None, "status_o"),
        statuses(&[
            StackStatus::Ok,
            StackStatus::Overflow,
            StackStatus::Underflow
        ])
    );
    assert_eq!(
        observed::<DualPathStack>(STACK_CYCLES, None, "depth_o"),
        every_depth
    );
    assert_eq!(
        observed::<DualPathStack>(STACK_CYCLES, None, "status_o"),
        statuses(&[
            StackStatus::Ok,
            StackStatus::Overflow,
            StackStatus::Underflow,
            StackStatus::InvalidPath
        ])
    );
}

/// The vector unit has no Icarus co-simulation (docs/verilog.md): its Verilog runs in
/// Verilator on the same random stimulus as rust-hdl instead, and every output of every
/// cycle goes into the checksum both sides must agree on. With one SpSIMD beside the SIMD
/// (two units still contend for the VRF banks): the default's two make Verilator's build,
/// nearly all of this test's time, half as long again (`pws bench --only rtl` runs the default).
#[test]
fn vector_unit_matches_its_verilog_in_verilator() {
    let options = pws_export::bench::BenchOptions {
        budget: std::time::Duration::from_millis(50),
        stimulus_cycles: 1024,
        seed: 7,
        config: Some(HwConfig {
            spsimds_per_simd: 1,
            ..HwConfig::default()
        }),
    };
    let table = pws_export::bench::run(Some("vector_unit"), &options, None).unwrap();
    let row = &table.rows[0];
    assert_eq!(row.unit, "pws_vector_unit");
    assert!(row.outputs_agree, "rust-hdl and Verilator outputs differ");
}
