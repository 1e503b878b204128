use pws_hdl::config::HwConfig;
use pws_hdl::simd::VectorUnit;
use rust_hdl::prelude::*;
#[test]
fn dump() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut uut = VectorUnit::new(&cfg).unwrap();
    uut.connect_all();
    let vlog = generate_verilog(&uut);
    std::fs::write("/tmp/abi/vlog/new.v", &vlog).unwrap();
}
