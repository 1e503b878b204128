//! Generated kernels are accepted by the host: split and merge insertion (marked branches, and
//! every divergent branch as DWS does), CFG extraction with the loop bounds, and the WCET
//! analysis of the launch on the `cu` compute unit in every mode.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_host::launch::{analyse_launch, KernelSource, Machine};
use pws_host::timing::{CuTiming, Mode};
use pws_isa::testing::proptest_cases;
use pws_verify::gen::{kernel_spec, GenOptions};

fn machine(cfg: &HwConfig) -> Machine {
    Machine {
        n_simd: cfg.simds_per_cu as u64,
        n_wfc: cfg.wf_contexts_per_simd as u64,
        cu: CuTiming {
            passes: cfg.passes() as u64,
            mem_latency: cfg.mem_latency as u64,
            srf_copy_width: cfg.srf_copy_width as u64,
            spsimds: cfg.spsimds_per_simd as u64,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(100)))]

    #[test]
    fn generated_kernels_pass_the_wcet_analysis(spec in kernel_spec(GenOptions::default())) {
        let g = spec.render();
        let machine = machine(&HwConfig::cu());
        for split_all in [false, true] {
            let source = KernelSource { text: g.source.clone(), file: "gen.s".into() };
            let report = analyse_launch(&g.manifest, &source, &machine, &Mode::ALL, split_all)
                .map_err(|e| TestCaseError::fail(format!("{e} (split_all {split_all})\n{}", g.source)))?;
            prop_assert_eq!(report.modes.len(), 3);
        }
    }
}
