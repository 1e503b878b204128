//! Generated kernels are accepted by the host: split and merge insertion (marked branches, and
//! every divergent branch as DWS does), CFG extraction with the loop bounds, and the WCET
//! analysis of the launch on the `cu` compute unit in every mode; with every instruction
//! family the timing contract covers too (those without a golden-only opcode); the loop bounds
//! the host infers from the generated loops' counters.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_host::compile::SplitPolicy;
use pws_host::extract::launch_values::LaunchValues;
use pws_host::extract::trip_count::{counted_loop, Budget};
use pws_host::flow::Flow;
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

    /// Every generated loop is a uniform counted loop (`s_mov_b32 sC, 0`, `s_add_u32 sC, sC, 1`
    /// at the top, `s_cmp_lt_u32 sC, T` and `s_cbranch_scc1` at the bottom): the bound
    /// inferred from its counter is exactly its header's runs, max(T, 1), never above the
    /// generator's annotation; and without any annotation the kernel is still bounded.
    #[test]
    fn generated_loops_bounds_are_inferred_from_their_counters(spec in kernel_spec(GenOptions::default())) {
        let g = spec.render();
        let program = pws_isa::assemble(&g.source, "gen.s").unwrap();
        let flow = Flow::new(&program, "gen.s").unwrap();
        for l in 0..flow.loops.len() {
            let latch = flow.loops[l].latches[0];
            let cmp = &program.instructions[flow.last(latch) - 1].item;
            prop_assert_eq!(cmp.opcode, pws_isa::Opcode::SCmpLtU32, "{}", g.source);
            let trips = cmp.src(1).and_then(|k| k.constant_value32()).unwrap().max(1);
            let counter = counted_loop(&program, &flow, l, &LaunchValues::none(), &mut Budget::default())
                .ok_or_else(|| TestCaseError::fail(format!("loop {l} not inferred\n{}", g.source)))?;
            prop_assert_eq!(counter.trips, u64::from(trips), "loop {}\n{}", l, g.source);
            let annotated = flow.blocks[flow.loops[l].header].clone().filter_map(|i| {
                let line = program.instructions[i].line as usize;
                g.source.lines().nth(line.checked_sub(2)?)?.trim().strip_prefix("; pws: loop_bound ")?.parse::<u64>().ok()
            }).next();
            let bound = annotated.ok_or_else(|| TestCaseError::fail(format!("no annotation on loop {l}\n{}", g.source)))?;
            prop_assert!(counter.trips <= bound, "inferred {} above the annotation {}", counter.trips, bound);
        }
        let bare: String = g.source.lines().filter(|l| !l.contains("pws: loop_bound")).map(|l| format!("{l}\n")).collect();
        let source = KernelSource { text: bare, file: "gen.s".into() };
        analyse_launch(&g.manifest, &source, &machine(&HwConfig::cu()), &Mode::ALL, SplitPolicy::Marked)
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
