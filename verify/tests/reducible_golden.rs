//! The repairs that make a kernel's flow reducible (`pws_host::reducible::repair`: code
//! copied so that a cycle with several entries has one, `pws_host::node_split`) change what
//! runs, so they must not change what it computes: random uniform control flow, irreducible
//! more often than not, runs to the same registers on the golden model as written and as
//! repaired.

use std::fmt::Write;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use pws_host::flow::Flow;
use pws_host::reducible::repair;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_verify::golden::{self, Config, Mode};

/// The data registers the blocks compute on, and the fuel register that ends every run.
const DATA: [u8; 6] = [8, 9, 10, 11, 12, 13];
const FUEL: u8 = 14;

/// One block: its ALU ops (opcode index, destination, source, constant) and how it ends.
#[derive(Debug, Clone)]
struct Block {
    ops: Vec<(usize, usize, usize, u32)>,
    end: End,
}

#[derive(Debug, Clone)]
enum End {
    FallThrough,
    Jump(usize),
    /// `s_cmp_lt_u32 a, b; s_cbranch_scc1 t`, falling through otherwise.
    If(usize, usize, usize),
    /// The same with `s_branch f` after the conditional branch.
    IfElse(usize, usize, usize, usize),
}

const OPS: [&str; 6] = [
    "s_add_u32",
    "s_xor_b32",
    "s_mul_i32",
    "s_lshr_b32",
    "s_and_b32",
    "s_sub_u32",
];

fn block(n: usize) -> impl Strategy<Value = Block> {
    let op = (0..OPS.len(), 0..DATA.len(), 0..DATA.len(), 0u32..64);
    let end = prop_oneof![
        Just(End::FallThrough),
        (0..n).prop_map(End::Jump),
        (0..DATA.len(), 0..DATA.len(), 0..n).prop_map(|(a, b, t)| End::If(a, b, t)),
        (0..DATA.len(), 0..DATA.len(), 0..n, 0..n).prop_map(|(a, b, t, f)| End::IfElse(a, b, t, f)),
    ];
    (prop::collection::vec(op, 1..4), end).prop_map(|(ops, end)| Block { ops, end })
}

/// The kernel: data registers set, a branch into any block or on to the first, the blocks,
/// each first spending one unit of fuel (none left: the end).
fn source(init: &[u32], fuel: u32, first: usize, blocks: &[Block]) -> String {
    let mut s = String::from("k:\n");
    for (r, v) in DATA.iter().zip(init) {
        let _ = writeln!(s, "  s_mov_b32 s{r}, {v}");
    }
    // Two ways in: to block `first`, or on to the first block.
    let _ = writeln!(
        s,
        "  s_mov_b32 s{FUEL}, {fuel}\n  s_cmp_lt_u32 s{}, s{}\n  s_cbranch_scc1 .Lb{first}",
        DATA[0], DATA[1]
    );
    for (i, b) in blocks.iter().enumerate() {
        let _ = writeln!(
            s,
            ".Lb{i}:\n  s_sub_u32 s{FUEL}, s{FUEL}, 1\n  s_cmp_eq_u32 s{FUEL}, 0\n  s_cbranch_scc1 .Lend"
        );
        for &(op, d, a, k) in &b.ops {
            let _ = writeln!(s, "  {} s{}, s{}, {k}", OPS[op], DATA[d], DATA[a]);
        }
        match b.end {
            End::FallThrough => {}
            End::Jump(t) => {
                let _ = writeln!(s, "  s_branch .Lb{t}");
            }
            End::If(a, c, t) => {
                let _ = writeln!(
                    s,
                    "  s_cmp_lt_u32 s{}, s{}\n  s_cbranch_scc1 .Lb{t}",
                    DATA[a], DATA[c]
                );
            }
            End::IfElse(a, c, t, f) => {
                let _ = writeln!(
                    s,
                    "  s_cmp_lt_u32 s{}, s{}\n  s_cbranch_scc1 .Lb{t}\n  s_branch .Lb{f}",
                    DATA[a], DATA[c]
                );
            }
        }
    }
    s.push_str(".Lend:\n  s_endpgm\n");
    s
}

/// The final SGPRs and SCC of the one wavefront.
fn run(text: &str) -> Result<(Vec<u32>, bool), String> {
    let program = pws_isa::assemble(text, "k.s").map_err(|e| e.to_string())?;
    let manifest = Manifest::parse("kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\n", "k.toml")
        .map_err(|e| e.to_string())?;
    let config = Config {
        mode: Mode::NoSplit,
        ..Config::default()
    };
    let report = golden::run(&program, &manifest, &config).map_err(|e| e.to_string())?;
    let w = &report.wavefronts[0];
    Ok((w.sgprs.clone(), w.scc))
}

fn kernel() -> impl Strategy<Value = String> {
    (2usize..8).prop_flat_map(|n| {
        (
            prop::collection::vec(0u32..1000, DATA.len()),
            1u32..60,
            0..n,
            prop::collection::vec(block(n), n),
        )
            .prop_map(|(init, fuel, first, blocks)| source(&init, fuel, first, &blocks))
    })
}

proptest! {
    // About two programs in five are irreducible: room for the reducible ones skipped.
    #![proptest_config(ProptestConfig {
        max_global_rejects: u32::MAX,
        ..ProptestConfig::with_cases(proptest_cases(300))
    })]

    #[test]
    fn repaired_flow_computes_what_the_flow_as_written_does(src in kernel()) {
        let repaired = repair(&src, "k.s").map_err(|e| TestCaseError::fail(e.to_string()))?;
        // (Most programs here are irreducible; a reducible one is left as it is.)
        prop_assume!(repaired.text != src);
        let program = pws_isa::assemble(&repaired.text, "k.s").unwrap();
        prop_assert!(Flow::new(&program, "k.s").is_ok(), "{}", repaired.text);
        let as_written = run(&src).map_err(TestCaseError::fail)?;
        let as_repaired = run(&repaired.text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(as_written, as_repaired, "{}", repaired.text);
    }
}

/// The generator's flow is irreducible often enough for the property to test the repair.
#[test]
fn the_generator_writes_irreducible_flow() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = kernel();
    let (mut irreducible, mut repaired) = (0, 0);
    for _ in 0..200 {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        let program = pws_isa::assemble(&src, "k.s").unwrap();
        if Flow::new(&program, "k.s").is_err() {
            irreducible += 1;
            if repair(&src, "k.s").unwrap().text != src {
                repaired += 1;
            }
        }
    }
    assert!(irreducible >= 40, "{irreducible} of 200 irreducible");
    assert!(
        repaired * 10 >= irreducible * 9,
        "{repaired} of {irreducible} repaired"
    );
}
