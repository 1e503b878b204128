//! Designs stepped through the Verilator shim (`pws_export::verilated`) give, cycle by cycle,
//! the outputs rust-hdl gives on the same random stimulus; a wrong Verilog model is caught; and
//! a second model of the same Verilog is loaded from the cache instead of being built.
//! Verilator is required (`make deps`).

mod common;

use std::path::Path;

use common::{Counter, MacFsm};
use pws_export::cosim::{self, CoSimPorts, Stimulus};
use pws_export::units::Design;
use pws_export::verilated::VerilatedModel;
use pws_export::verilog;

/// Steps `D` in rust-hdl and its Verilog (`mutate`d) in Verilator on `cycles` rows of seeded
/// stimulus, with `cosim`'s cycle discipline; the first cycle whose outputs differ.
fn first_difference<D: Design + CoSimPorts>(
    cache: &Path,
    seed: u64,
    cycles: usize,
    mutate: impl Fn(String) -> String,
) -> Option<usize> {
    let mut uut = D::build().unwrap();
    let text = mutate(verilog::generate(&mut uut, D::MODULE).unwrap());
    let mut model = VerilatedModel::build(&text, D::MODULE, cache).unwrap();
    let stimulus = Stimulus::random(&uut, seed, cycles);
    let inputs: Vec<usize> = uut
        .input_ports()
        .iter()
        .map(|p| model.input(&p.name).unwrap())
        .collect();
    let outputs: Vec<usize> = uut
        .output_ports()
        .iter()
        .map(|p| model.output(&p.name).unwrap())
        .collect();
    let clock = model.input("clock").unwrap();
    let expected = cosim::simulate_rust(uut, &stimulus).unwrap();
    for (cycle, (row, want)) in stimulus.rows.iter().zip(&expected).enumerate() {
        for (&port, &value) in inputs.iter().zip(row) {
            model.set(port, value);
        }
        model.eval();
        let got: Vec<u64> = outputs.iter().map(|&o| model.get(o)).collect();
        if &got != want {
            return Some(cycle);
        }
        model.set(clock, 1);
        model.eval();
        model.set(clock, 0);
        model.eval();
    }
    None
}

#[test]
fn verilated_designs_step_like_rust_hdl() {
    let cache = tempfile::tempdir().unwrap();
    for seed in 1..=3 {
        assert_eq!(
            first_difference::<Counter>(cache.path(), seed, 300, |t| t),
            None
        );
        assert_eq!(
            first_difference::<MacFsm>(cache.path(), seed, 300, |t| t),
            None
        );
    }
    // Beside each model directory is its build lock.
    let built = std::fs::read_dir(cache.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(
        built, 2,
        "one build per design; the other runs load it from the cache"
    );
}

#[test]
fn a_wrong_model_is_caught() {
    let cache = tempfile::tempdir().unwrap();
    let doubled = |t: String| {
        let wrong = t.replace("state$q + 32'h1", "state$q + 32'h2");
        assert_ne!(wrong, t, "the mutation applies");
        wrong
    };
    assert!(first_difference::<Counter>(cache.path(), 1, 300, doubled).is_some());
}
