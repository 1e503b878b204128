//! The vector unit RTL must be synthesizable: its Verilog (a lane ALU in `make test`, the whole
//! unit in `make soak`) passes Yosys' `hierarchy -check; proc` through rust-hdl's
//! `yosys_validate`; unsupported geometries are errors, not panics.

use pws_hdl::config::HwConfig;
use pws_hdl::simd::{LaneAlu, LaneSdwa, SimdConfigError, VectorUnit};
use rust_hdl::prelude::*;

#[test]
fn vector_unit_generates_valid_verilog() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut uut = VectorUnit::new(&cfg).unwrap();
    uut.connect_all();
    let vlog = generate_verilog(&uut);
    assert!(
        vlog.contains("module top$spsimds$1$alus$15"),
        "16 ALU lanes per (Sp)SIMD"
    );
    assert!(vlog.contains("module top$banks$63"), "one bank per lane");
    assert!(
        vlog.contains("module top$spsimds$1$sdwas$15"),
        "an SDWA stage per ALU lane"
    );
    assert!(
        vlog.contains("module top$spsimds$1$schedule$unit"),
        "one swizzle unit per (Sp)SIMD"
    );
    // rust-hdl writes a module per instance: the vector unit holds 16 copies of the lane ALU per (Sp)SIMD,
    // and Yosys' `proc` on all of them takes minutes. `make test` checks one lane ALU, `make
    // soak` the whole unit.
    let mut alu = LaneAlu::default();
    alu.connect_all();
    yosys_validate("pws_lane_alu", &generate_verilog(&alu)).unwrap();
    let mut sdwa = LaneSdwa::default();
    sdwa.connect_all();
    yosys_validate("pws_lane_sdwa", &generate_verilog(&sdwa)).unwrap();
    if pws_isa::testing::proptest_cases(1) > 1 {
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
