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
    // S = 1 and 3 with the `small` copy width, and the narrowest and widest copy paths.
    let configs = [
        HwConfig::small().with_spsimds(1),
        HwConfig::small().with_spsimds(3),
        HwConfig {
            srf_copy_width: 1,
            ..HwConfig::gcn3()
        },
        HwConfig {
            srf_copy_width: 16,
            ..HwConfig::gcn3()
        },
    ];
    for cfg in configs {
        let (s, w) = (cfg.spsimds_per_simd, cfg.srf_copy_width);
        let mut uut = SplitMergeUnit::new(&cfg).unwrap();
        uut.connect_all();
        let vlog = generate_verilog(&uut);
        assert!(vlog.contains("module top"), "S = {s}");
        assert!(
            vlog.contains(&format!("contexts${s}")),
            "S = {s}: one module per context"
        );
        assert!(
            vlog.contains(&format!("srf${}", w - 1)) && !vlog.contains(&format!("srf${w}")),
            "W = {w}: one SRF lane per copied SGPR"
        );
        if yosys_available() {
            yosys_validate(&format!("pws_split_merge_s{s}_w{w}"), &vlog).unwrap();
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
    assert!(matches!(
        SplitMergeUnit::new(&HwConfig {
            srf_copy_width: 6,
            ..HwConfig::small()
        }),
        Err(SplitMergeConfigError::Invalid(_))
    ));
}
