//! Every pws unit through the export checks, and the co-simulation of every unit against its
//! exported Verilog in Icarus. The tools are required: a missing one fails (`make deps`).

use std::collections::BTreeSet;

use pws_export::cosim::{self, CoSimPorts, PortValue, Stimulus};
use pws_export::units::{self, Design, Unit};
use pws_export::{tools, verilog};
use pws_hdl::split_merge::{SmStatus, SplitMergeUnit};
use pws_hdl::swizzle::SwizzleUnit;

fn unit(module: &str) -> Unit {
    units::select(Some(module)).unwrap().remove(0)
}

#[test]
fn every_unit_lints_compiles_and_passes_yosys_checks() {
    let dir = tempfile::tempdir().unwrap();
    for u in units::all() {
        let text = (u.verilog)().unwrap();
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
        // Full synthesis takes minutes for the largest unit; `pws export` (tests/cli_export.rs)
        // runs it.
        tools::yosys_check(&file, u.module).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Seeds per unit: 4 in `make test`, scaled by `make soak`.
fn seeds() -> std::ops::Range<u64> {
    1..1 + u64::from(pws_isa::testing::proptest_cases(4))
}

fn cosimulate(module: &str, cycles: usize) {
    let u = unit(module);
    for seed in seeds() {
        let dir = tempfile::tempdir().unwrap();
        let report = (u.cosim)(seed, cycles, dir.path()).unwrap_or_else(|e| panic!("{e}"));
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

/// Values an output takes in the cycles where `when` is high, over one seed's stimulus.
fn observed<D: Design + CoSimPorts>(cycles: usize, when: &str, what: &str) -> BTreeSet<u64> {
    let uut = D::build().unwrap();
    let names: Vec<String> = uut.output_ports().into_iter().map(|p| p.name).collect();
    let index = |n: &str| names.iter().position(|m| m == n).unwrap();
    let (when, what) = (index(when), index(what));
    let stimulus = Stimulus::random(&uut, 1, cycles);
    let outputs = cosim::simulate_rust(uut, &stimulus).unwrap();
    outputs
        .iter()
        .filter(|row| row[when] == 1)
        .map(|row| row[what])
        .collect()
}

#[test]
fn split_merge_stimulus_reaches_every_status() {
    let statuses = observed::<SplitMergeUnit>(2000, "done", "status");
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
        observed::<SwizzleUnit>(600, "done_o", "passes_o"),
        BTreeSet::from([1, 2, 3, 4])
    );
}
