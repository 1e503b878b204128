//! The WCET analysis's timing contract (pws-host) against the RTL's documented cycle costs
//! (pws-hdl): the two crates do not depend on each other, so this test is what keeps them equal.

use pws_hdl::config::HwConfig;
use pws_hdl::simd::valu_cycles;
use pws_hdl::split_merge::{split_cycles, MERGE_CYCLES};
use pws_host::timing::TimingTable;
use pws_host::GpuConfig;

fn gcn3() -> HwConfig {
    HwConfig::preset("gcn3").expect("gcn3 preset")
}

#[test]
fn split_cost_matches_the_split_merge_datapath_for_every_sgpr_count() {
    let cfg = gcn3();
    let table = TimingTable::PLACEHOLDER;
    assert_eq!(table.srf_copy_width as usize, cfg.srf_copy_width);
    for n in 1..=cfg.sgprs_per_context {
        assert_eq!(
            table.split_cycles(n as u32),
            split_cycles(&cfg, n),
            "e_s for {n} SGPRs"
        );
    }
    assert_eq!(table.merge, MERGE_CYCLES);
}

#[test]
fn default_gpu_configuration_charges_a_full_srf_copy() {
    let cfg = gcn3();
    let gpu = GpuConfig::default();
    assert_eq!(gpu.e_s, split_cycles(&cfg, cfg.sgprs_per_context));
    assert_eq!(gpu.e_m, MERGE_CYCLES);
    assert_eq!(gpu.s as usize, cfg.spsimds_per_simd);
    assert_eq!(gpu.n_wiwf as usize, cfg.wavefront_width);
    assert_eq!(gpu.n_wfc as usize, cfg.wf_contexts_per_simd);
    assert_eq!(gpu.n_simd as usize, cfg.simds_per_cu);
}

#[test]
fn vector_alu_cost_matches_the_simd_latency() {
    assert_eq!(TimingTable::PLACEHOLDER.valu, valu_cycles(&gcn3()));
}
