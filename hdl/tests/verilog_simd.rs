//! The SIMD cluster RTL must be synthesizable: its Verilog passes Yosys' `hierarchy -check;
//! proc` through rust-hdl's `yosys_validate`; unsupported geometries are errors, not panics.

use pws_hdl::config::HwConfig;
use pws_hdl::simd::{SimdCluster, SimdConfigError};
use rust_hdl::prelude::*;

#[test]
fn simd_cluster_generates_valid_verilog() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut uut = SimdCluster::new(&cfg).unwrap();
    uut.connect_all();
    let vlog = generate_verilog(&uut);
    assert!(
        vlog.contains("module top$alus$31"),
        "16 ALU lanes per (Sp)SIMD"
    );
    assert!(vlog.contains("bank_b$63"), "one bank pair per lane");
    if std::process::Command::new("yosys")
        .arg("-V")
        .output()
        .is_ok()
    {
        yosys_validate("pws_simd_cluster", &vlog).unwrap();
    }
}

#[test]
fn simd_cluster_rejects_unsupported_geometry() {
    assert_eq!(
        SimdCluster::new(&HwConfig::figure5()).err(),
        Some(SimdConfigError::Geometry { lanes: 4, width: 4 })
    );
    let narrow = HwConfig {
        lanes_per_simd: 8,
        ..HwConfig::small()
    };
    assert!(matches!(
        SimdCluster::new(&narrow),
        Err(SimdConfigError::Geometry { .. })
    ));
}
