//! Generated kernels are accepted by the host: split and merge insertion (marked branches, and
//! every divergent branch as DWS does), CFG extraction with the loop bounds, and the WCET
//! analysis of the launch on the `cu` compute unit in every mode; with every instruction
//! family the timing contract covers too (those without a golden-only opcode).

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_host::compile::SplitPolicy;
use pws_host::launch::{analyse_launch, KernelSource};
use pws_host::timing::Mode;
use pws_isa::testing::proptest_cases;
use pws_verify::bound::machine;
use pws_verify::gen::{kernel_spec, Families, GenOptions};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(100)))]

    #[test]
    fn generated_kernels_with_the_timed_families_pass_the_wcet_analysis(
        spec in kernel_spec(GenOptions {
            families: Families::where_all(|op| !pws_isa::subset::golden_only(op)),
            ..GenOptions::default()
        })
    ) {
        let g = spec.render();
        let source = KernelSource { text: g.source.clone(), file: "gen.s".into() };
        analyse_launch(&g.manifest, &source, &machine(&HwConfig::cu()), &Mode::ALL, SplitPolicy::All)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{}", g.source)))?;
    }

    #[test]
    fn generated_kernels_pass_the_wcet_analysis(spec in kernel_spec(GenOptions::default())) {
        let g = spec.render();
        let machine = machine(&HwConfig::cu());
        for split in SplitPolicy::ALL {
            let source = KernelSource { text: g.source.clone(), file: "gen.s".into() };
            let report = analyse_launch(&g.manifest, &source, &machine, &Mode::ALL, split)
                .map_err(|e| TestCaseError::fail(format!("{e} (split {})\n{}", split.name(), g.source)))?;
            prop_assert_eq!(report.modes.len(), 3);
        }
    }
}
