//! The context and split/merge RTL must be synthesizable: rust-hdl's Verilog for them passes
//! Yosys' `hierarchy -check; proc` (rust-hdl's `yosys_validate`), which rejects latches,
//! undriven wires and missing modules.

use pws_hdl::config::HwConfig;
use pws_hdl::split_merge::{SplitMergeConfigError, SplitMergeUnit};
use rust_hdl::prelude::*;

fn yosys_available() -> bool {
    std::process::Command::new("yosys")
        .arg("-V")
        .output()
        .is_ok()
}

#[test]
fn split_merge_unit_generates_valid_verilog() {
    for s in [1, 3] {
        let mut uut = SplitMergeUnit::new(&HwConfig::small().with_spsimds(s)).unwrap();
        uut.connect_all();
        let vlog = generate_verilog(&uut);
        assert!(vlog.contains("module top"), "S = {s}");
        assert!(
            vlog.contains(&format!("contexts${s}")),
            "S = {s}: one module per context"
        );
        if yosys_available() {
            yosys_validate(&format!("pws_split_merge_s{s}"), &vlog).unwrap();
        }
    }
}

#[test]
fn split_merge_unit_rejects_configurations_it_cannot_build() {
    assert!(matches!(
        SplitMergeUnit::new(&HwConfig::small().with_spsimds(0)),
        Err(SplitMergeConfigError::NoSpSimds)
    ));
    assert!(matches!(
        SplitMergeUnit::new(&HwConfig::small().with_spsimds(9)),
        Err(SplitMergeConfigError::Invalid(_))
    ));
}
