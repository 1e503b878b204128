//! The export flow end to end on the crate's own small designs (tests/common): generation,
//! every tool, co-simulation (including that a wrong Verilog model is caught), and the
//! benchmark. The tools are required: a missing one fails these tests (`make deps`).

mod common;

use std::time::Duration;

use common::{Counter, MacFsm, Pairs};
use pws_export::cosim::{self, CoSimPorts, Stimulus};
use pws_export::units::Design;
use pws_export::{bench, flow, tools, verilog, ExportError};

#[test]
fn generated_verilog_is_named_after_the_unit_and_passes_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut uut = MacFsm::build().unwrap();
    let text = verilog::generate(&mut uut, MacFsm::MODULE).unwrap();
    assert!(text.contains("module pws_test_mac(clock,start,length,data,busy,done,result);"));
    assert!(!text.contains("module top"));
    assert!(text.contains("module pws_test_mac$state("));
    let file = verilog::write(dir.path(), MacFsm::MODULE, &text).unwrap();
    assert_eq!(file, dir.path().join("pws_test_mac.v"));

    let lint = tools::lint(&file, MacFsm::MODULE).unwrap();
    assert!(
        lint.waived.get("WIDTH").copied().unwrap_or(0) > 0,
        "{:?}",
        lint.waived
    );
    tools::iverilog(&[&file], MacFsm::MODULE, &dir.path().join("mac.vvp")).unwrap();
    tools::yosys_check(&file, MacFsm::MODULE).unwrap();
    let generic = tools::yosys_synth(&file, MacFsm::MODULE).unwrap();
    assert!(generic.cells > 0);
    // 2 state bits, 4 counter bits, 32 accumulator bits.
    assert_eq!(generic.count("DFF"), 38, "{:?}", generic.by_type);
    let ice40 = tools::yosys_ice40(&[&file], MacFsm::MODULE, &dir.path().join("mac.json")).unwrap();
    assert_eq!(ice40.ffs, 38);
    assert!(ice40.luts > 0);
}

#[test]
fn two_exported_units_load_together() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<_> = [
        (
            pws_export::units::verilog_of::<Counter>().unwrap(),
            Counter::MODULE,
        ),
        (
            pws_export::units::verilog_of::<MacFsm>().unwrap(),
            MacFsm::MODULE,
        ),
    ]
    .iter()
    .map(|(text, module)| verilog::write(dir.path(), module, text).unwrap())
    .collect();
    let refs: Vec<&std::path::Path> = files.iter().map(|f| f.as_path()).collect();
    tools::iverilog(&refs, Counter::MODULE, &dir.path().join("both.vvp")).unwrap();
}

#[test]
fn a_latch_fails_the_yosys_check() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pws_latch.v");
    let latch = "module pws_latch(input wire e, input wire d, output reg q);\n\
                 always @(*) if (e) q = d;\nendmodule\n";
    std::fs::write(&file, latch).unwrap();
    assert!(matches!(
        tools::yosys_check(&file, "pws_latch"),
        Err(ExportError::ToolFailed { tool: "yosys", .. })
    ));
}

#[test]
fn lint_failure_is_an_error_with_verilators_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pws_bad.v");
    std::fs::write(
        &file,
        "module pws_bad(input wire a, output wire y);\nassign y = b;\nendmodule\n",
    )
    .unwrap();
    match tools::lint(&file, "pws_bad") {
        Err(ExportError::ToolFailed {
            tool: "verilator",
            output,
            ..
        }) => {
            assert!(output.contains('b'), "{output}")
        }
        other => panic!("expected a lint failure, got {other:?}"),
    }
}

#[test]
fn a_warning_outside_the_waivers_fails_the_lint() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pws_unused.v");
    std::fs::write(
        &file,
        "module pws_unused(input wire a, input wire b, output wire y);\nassign y = a;\nendmodule\n",
    )
    .unwrap();
    match tools::lint(&file, "pws_unused") {
        Err(ExportError::ToolFailed {
            tool: "verilator",
            output,
            ..
        }) => assert!(
            output.contains("UNUSEDSIGNAL") && output.contains('b'),
            "{output}"
        ),
        other => panic!("expected a lint failure, got {other:?}"),
    }
}

#[test]
fn counter_and_fsm_cosimulate_cycle_by_cycle() {
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let report = cosim::cosimulate::<Counter>(seed, 300, dir.path()).unwrap();
        assert_eq!(
            (report.cycles, report.inputs.len(), report.outputs.len()),
            (300, 3, 1)
        );
        let dir = tempfile::tempdir().unwrap();
        cosim::cosimulate::<MacFsm>(seed, 300, dir.path()).unwrap();
    }
}

#[test]
fn a_wrong_verilog_model_is_caught_at_the_first_differing_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let mut uut = Counter::build().unwrap();
    let text = verilog::generate(&mut uut, Counter::MODULE).unwrap();
    // Count by two in the Verilog only.
    let broken = text.replace("state$q + 32'h1", "state$q + 32'h2");
    assert_ne!(broken, text);
    let file = verilog::write(dir.path(), Counter::MODULE, &broken).unwrap();
    let (ins, outs) = (uut.input_ports(), uut.output_ports());
    // Enable from cycle 0, no load: the counts differ from the first increment on.
    let stimulus = Stimulus {
        seed: 0,
        rows: vec![vec![1, 0, 0]; 5],
    };
    let rust = cosim::simulate_rust(Counter::build().unwrap(), &stimulus).unwrap();
    let icarus =
        cosim::simulate_icarus(&file, Counter::MODULE, &ins, &outs, &stimulus, dir.path()).unwrap();
    match cosim::compare(Counter::MODULE, 0, &outs, &rust, &icarus) {
        Err(ExportError::Mismatch {
            cycle: 1,
            port,
            rust: 1,
            verilog,
            ..
        }) => {
            assert_eq!((port.as_str(), verilog.as_str()), ("count", "'h00000002"))
        }
        other => panic!("expected a mismatch at cycle 1, got {other:?}"),
    }
}

#[test]
fn invalid_stimulus_is_an_error_not_a_panic() {
    let stimulus = Stimulus {
        seed: 0,
        rows: vec![vec![2, 0, 0]],
    };
    let err = cosim::simulate_rust(Counter::build().unwrap(), &stimulus).unwrap_err();
    assert!(
        err.to_string()
            .contains("not a valid value of input enable"),
        "{err}"
    );
    let short = Stimulus {
        seed: 0,
        rows: vec![vec![1]],
    };
    assert!(cosim::simulate_rust(Counter::build().unwrap(), &short).is_err());
}

#[test]
fn fmax_wrapper_places_and_routes() {
    let dir = tempfile::tempdir().unwrap();
    let text = pws_export::units::verilog_of::<MacFsm>().unwrap();
    let file = verilog::write(dir.path(), MacFsm::MODULE, &text).unwrap();
    let wrapper = dir.path().join("wrap.v");
    std::fs::write(
        &wrapper,
        flow::fmax_wrapper(
            MacFsm::MODULE,
            &verilog::ports(&text, MacFsm::MODULE).unwrap(),
        ),
    )
    .unwrap();
    let json = dir.path().join("wrap.json");
    let name = flow::wrapper_name(MacFsm::MODULE);
    let stat = tools::yosys_ice40(&[&file, &wrapper], &name, &json).unwrap();
    // The unit's 38 flip-flops survive inside the wrapper, beside its 37 input and 34 output
    // registers.
    assert_eq!(stat.ffs, 38 + 37 + 34);
    let fmax = tools::nextpnr_fmax(&json, 12.0).unwrap();
    assert!(fmax > 12.0 && fmax < 1000.0, "{fmax}");
}

#[test]
fn benchmark_agrees_on_outputs_and_reports_both_speeds() {
    let dir = tempfile::tempdir().unwrap();
    let options = bench::BenchOptions {
        budget: Duration::from_millis(200),
        stimulus_cycles: 256,
        seed: 5,
        config: None,
    };
    let row = bench::measure::<MacFsm>(&options, dir.path()).unwrap();
    assert!(row.outputs_agree);
    assert!(row.rust_hdl_cycles >= 256 && row.verilator_cycles >= 256);
    assert!(row.rust_hdl_cycles_per_second > 0.0 && row.verilator_cycles_per_second > 0.0);
}

/// rust-hdl-core patch 7: a condition of the loop indices alone is resolved by the generator,
/// so only the (i, k) pairs that can meet are written, and the Verilog still behaves as the
/// Rust model cycle by cycle.
#[test]
fn conditions_of_loop_indices_alone_are_resolved_in_the_verilog() {
    let v = pws_export::units::verilog_of::<Pairs>().unwrap();
    let module = &v[v.find("module pws_test_pairs(").unwrap()..];
    let block_of = |signal: &str| {
        module
            .split("always @(*) begin")
            .find(|b| b.trim_start().starts_with(&format!("{signal} = ")))
            .unwrap_or_else(|| panic!("no block for {signal} in {v}"))
            .split("\n    end")
            .next()
            .unwrap()
            .to_string()
    };
    // hit[0] hears every en[k]; hit[1] en[1], and en[0] through sel; hit[2] en[2], and en[1]
    // through sel.
    for (i, heard, through_sel) in [(0, "012", ""), (1, "1", "0"), (2, "2", "1")] {
        let block = block_of(&format!("hit${i}"));
        for k in 0..3 {
            let direct = heard.contains(&k.to_string());
            let via_sel = through_sel.contains(&k.to_string());
            assert_eq!(
                block.contains(&format!("if (en${k})")),
                direct,
                "hit${i} and en${k}: {block}"
            );
            assert_eq!(
                block.contains(&format!("~en${k}")),
                via_sel,
                "hit${i} and ~en${k}: {block}"
            );
        }
        assert_eq!(
            block.matches("if (").count(),
            heard.len() + through_sel.len(),
            "{block}"
        );
    }
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        cosim::cosimulate::<Pairs>(seed, 200, dir.path()).unwrap();
    }
}
