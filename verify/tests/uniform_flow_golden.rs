//! Random uniform control flow (scalar ALU work, kernel-argument loads, branches on data,
//! irreducible in two cases of five) on the golden model checks two things the WCET analysis
//! takes for granted about such code:
//! - the repairs that make a kernel's flow reducible (`pws_host::reducible::repair`: code
//!   copied so that a cycle with several entries has one, `pws_host::node_split`) change what
//!   runs, so they must not change what it computes: the same registers as written and as
//!   repaired;
//! - the SGPR values the loop bound inference takes as known
//!   (`pws_host::extract::launch_values`: constants, kernel arguments, what follows from them
//!   on every path) are the values the program computes.

use std::fmt::Write;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use pws_host::extract::launch_values::{LaunchValues, ScalarValues};
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

/// The ALU ops; [`LOAD`] past them loads a kernel argument.
const OPS: [&str; 6] = [
    "s_add_u32",
    "s_xor_b32",
    "s_mul_i32",
    "s_lshr_b32",
    "s_and_b32",
    "s_sub_u32",
];
const LOAD: usize = OPS.len();

/// The kernel arguments: 32-bit words of the kernarg segment, whose address the legacy ABI
/// puts in s[4:5].
const ARGS: usize = 4;

fn block(n: usize) -> impl Strategy<Value = Block> {
    let op = (0..=LOAD, 0..DATA.len(), 0..DATA.len(), 0u32..64);
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
            if op == LOAD {
                let at = 4 * (k as usize % ARGS);
                let _ = writeln!(
                    s,
                    "  s_load_dword s{}, s[4:5], {at:#x}\n  s_waitcnt lgkmcnt(0)",
                    DATA[d]
                );
            } else {
                let _ = writeln!(s, "  {} s{}, s{}, {k}", OPS[op], DATA[d], DATA[a]);
            }
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

/// One wavefront's launch, with `args`.
fn launch(args: &[u32]) -> Manifest {
    let args: Vec<String> = args.iter().map(u32::to_string).collect();
    let text = format!(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [{}]\n",
        args.join(", ")
    );
    Manifest::parse(&text, "k.toml").expect("generated manifest is valid")
}

/// The final SGPRs and SCC of the one wavefront.
fn run(text: &str, manifest: &Manifest) -> Result<(Vec<u32>, bool), String> {
    let program = pws_isa::assemble(text, "k.s").map_err(|e| e.to_string())?;
    let config = Config {
        mode: Mode::NoSplit,
        ..Config::default()
    };
    let report = golden::run(&program, manifest, &config).map_err(|e| e.to_string())?;
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
    fn repaired_flow_computes_what_the_flow_as_written_does(
        src in kernel(),
        args in prop::collection::vec(0u32..1000, ARGS),
    ) {
        let manifest = launch(&args);
        let repaired = repair(&src, "k.s").map_err(|e| TestCaseError::fail(e.to_string()))?;
        // (Most programs here are irreducible; a reducible one is left as it is.)
        prop_assume!(repaired.text != src);
        let program = pws_isa::assemble(&repaired.text, "k.s").unwrap();
        prop_assert!(Flow::new(&program, "k.s").is_ok(), "{}", repaired.text);
        let as_written = run(&src, &manifest).map_err(TestCaseError::fail)?;
        let as_repaired = run(&repaired.text, &manifest).map_err(TestCaseError::fail)?;
        prop_assert_eq!(as_written, as_repaired, "{}", repaired.text);
    }

    #[test]
    fn the_values_the_analysis_knows_are_the_values_the_program_computes(
        src in kernel(),
        args in prop::collection::vec(0u32..1000, ARGS),
    ) {
        let manifest = launch(&args);
        let (sgprs, _) = run(&src, &manifest).map_err(TestCaseError::fail)?;
        for (s, v) in known_at_the_end(&src, &manifest) {
            prop_assert_eq!(v, sgprs[usize::from(s)], "s{} of\n{}", s, src);
        }
    }
}

/// The data and fuel registers whose value at `s_endpgm` the analysis knows, and the values.
fn known_at_the_end(src: &str, manifest: &Manifest) -> Vec<(u8, u32)> {
    let program = pws_isa::assemble(src, "k.s").unwrap();
    let flow = Flow::unstructured(&program, "k.s").unwrap();
    let launch = LaunchValues::of(&program, manifest);
    let mut values = ScalarValues::new(&program, &flow, &launch);
    let end = program.instructions.len() - 1;
    DATA.iter()
        .chain(&[FUEL])
        .filter_map(|&s| Some((s, values.before(end, s, &mut 1_000_000)?)))
        .collect()
}

/// The generator's flow is irreducible often enough for the properties to test the repair,
/// and its registers known often enough to test the values.
#[test]
fn the_generator_writes_irreducible_flow_and_known_values() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = kernel();
    let manifest = launch(&[3, 5, 7, 11]);
    let (mut irreducible, mut repaired, mut known) = (0, 0, 0);
    for _ in 0..200 {
        let src = strategy.new_tree(&mut runner).unwrap().current();
        known += known_at_the_end(&src, &manifest).len();
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
    assert!(known >= 100, "{known} registers known in 200 programs");
}
