//! The vector unit RTL must be synthesizable: its Verilog passes Yosys' `hierarchy -check;
//! proc` through rust-hdl's `yosys_validate`; unsupported geometries are errors, not panics.

use pws_hdl::config::HwConfig;
use pws_hdl::simd::{SimdConfigError, VectorUnit};
use rust_hdl::prelude::*;

#[test]
fn vector_unit_generates_valid_verilog() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut uut = VectorUnit::new(&cfg).unwrap();
    uut.connect_all();
    let vlog = generate_verilog(&uut);
    assert!(
        vlog.contains("module top$alus$31"),
        "16 ALU lanes per (Sp)SIMD"
    );
    assert!(vlog.contains("module top$banks$63"), "one bank per lane");
    assert!(
        vlog.contains("module top$schedule$1$unit"),
        "one swizzle unit per (Sp)SIMD"
    );
    if std::process::Command::new("yosys")
        .arg("-V")
        .output()
        .is_ok()
    {
        yosys_validate("pws_vector_unit", &vlog).unwrap();
    }
}

#[test]
fn vector_unit_rejects_unsupported_geometry() {
    assert_eq!(
        VectorUnit::new(&HwConfig::figure5()).err(),
        Some(SimdConfigError::Geometry { lanes: 4, width: 4 })
    );
    let narrow = HwConfig {
        lanes_per_simd: 8,
        ..HwConfig::small()
    };
    assert!(matches!(
        VectorUnit::new(&narrow),
        Err(SimdConfigError::Geometry { .. })
    ));
}
