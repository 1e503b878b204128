//! DOT CFGs: structural checks with their messages, loops, and the default GPU configuration.

use pws_host::analysis::{analyse, Params};
use pws_host::cfg::BsbCfg;
use pws_host::dot::parse_cfg;
use pws_host::ipet::IpetMethod;
use pws_host::kernel::{GpuConfig, Launch};

fn check(text: &str) -> Result<BsbCfg, String> {
    BsbCfg::new(parse_cfg(text, "t.dot").map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

#[test]
fn structural_errors_name_the_node() {
    let e = check("digraph { a [wcet=1 kind=branch]; b [wcet=1]; c [wcet=1]; d [wcet=1]; a -> b; a -> c; b -> d; c -> d }").unwrap_err();
    assert_eq!(e, "branch 'a' must have two successors, exactly one of them its BSB (kind=bsb); it has 2 successor(s), 0 of them BSBs");
    let e = check(
        "digraph { a [wcet=1]; b [wcet=1]; c [wcet=1]; d [wcet=1]; a -> b -> c -> b; c -> d }",
    )
    .unwrap_err();
    assert!(
        e.starts_with("loop with header 'b' (back edge from 'c') has no bound"),
        "{e}"
    );
    let e = check("digraph { a [wcet=1]; b [wcet=1]; c [wcet=1]; d [wcet=1]; a -> b; a -> c; b -> c; c -> b; c -> d }").unwrap_err();
    assert!(
        e.starts_with("irreducible control flow: a cycle through"),
        "{e}"
    );
    let e =
        check("digraph { a [wcet=1]; x [wcet=1 kind=bsb]; d [wcet=1]; a -> x -> d }").unwrap_err();
    assert_eq!(e, "BSB 'x' is not the BSB successor of any branch");
    let e = check("digraph { a [wcet=1]; h [wcet=1 loop_bound=3]; b [wcet=1]; a -> h -> b -> h }")
        .unwrap_err();
    assert_eq!(e, "loop with header 'h' never exits (no edge leaves it and no block in it ends the program), which contradicts its bound");
    let e = check("digraph { a [wcet=1 loop_bound=2]; b [wcet=1]; a -> b }").unwrap_err();
    assert_eq!(e, "node 'a' has a loop bound but is not a loop header");
    let e = check("digraph { a [wcet=1]; b [wcet=1]; c [wcet=1]; a -> b; c -> b; c -> c }")
        .unwrap_err();
    assert!(
        e.contains("several nodes without predecessors (a, c)"),
        "{e}"
    );
}

#[test]
fn loop_around_a_split_point() {
    // entry -> h (x5) -> [branch u: path 1 p (7), BSB b, path 2 q (2), join r] -> l -> exit
    let g = check(
        "digraph { e [wcet=1]; h [wcet=1 loop_bound=5]; u [wcet=1 kind=branch split=true]; p [wcet=7];
          b [wcet=1 kind=bsb]; q [wcet=2]; r [wcet=1]; l [wcet=1]; x [wcet=1];
          e -> h -> u -> p -> b -> q -> r -> l -> h; u -> b; b -> r; l -> x }",
    )
    .unwrap();
    assert_eq!(g.multiplicity(g.find("p").unwrap()), Some(5));
    let gpu = GpuConfig {
        s: 1,
        e_s: 1,
        e_m: 1,
        d: 0,
        ..GpuConfig::default()
    };
    let marked: Vec<bool> = (0..g.len()).map(|v| g.block(v).split).collect();
    let a = analyse(
        &g,
        &marked,
        &Params::new(
            gpu,
            Launch {
                groups: 1,
                wg_size: 64,
            },
            Some(1),
        ),
    )
    .unwrap();
    let per_iter_serial = 1 + 1 + 7 + 1 + 2 + 1 + 1;
    assert_eq!(a.report.e_wf.nosplit, 1 + 5 * per_iter_serial + 1);
    // Split: path 2 (2 cycles) is pruned away each iteration; 5 splits and merges are charged.
    assert_eq!(a.report.ipet.pws, 1 + 5 * (per_iter_serial - 2) + 1);
    assert_eq!(a.report.e_wf.pws, a.report.ipet.pws + 5 * 2);
    assert_eq!(a.report.removed_edges, [["b".to_string(), "q".to_string()]]);
    assert_eq!(a.pws_solution.block_counts[g.find("h").unwrap()], 5);
}

#[test]
fn kernels_gpu_toml_is_the_default_configuration() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/gpu.toml");
    let cfg = GpuConfig::from_toml(&std::fs::read_to_string(path).unwrap(), "gpu.toml").unwrap();
    assert_eq!(cfg, GpuConfig::default());
}

fn params() -> Params {
    Params::new(
        GpuConfig::default(),
        Launch {
            groups: 1,
            wg_size: 64,
        },
        Some(1),
    )
}

#[test]
fn loops_with_breaks_continues_and_returns() {
    // h (x4) -> a -> b -> l -> h; a -> h (continue); b -> x (break); a -> r (return).
    let g = check("digraph { e [wcet=1]; h [wcet=2 loop_bound=4]; a [wcet=3]; b [wcet=5]; l [wcet=7]; x [wcet=11]; r [wcet=20];
        e -> h -> a -> b -> l -> h; a -> h; b -> x; a -> r }")
    .unwrap();
    let r = analyse(&g, &[false; 7], &params()).unwrap().report;
    // Three full iterations (h a b l = 17), then h a and the return (5 + 20), which beats the
    // break (h a b x = 21).
    assert_eq!(r.e_wf.nosplit, 1 + 3 * 17 + 5 + 20);
    assert_eq!(r.ipet_method, IpetMethod::Structural);
    let count = |n: &str| r.blocks[g.find(n).unwrap()].count_nosplit;
    assert_eq!(
        (count("h"), count("l"), count("r"), count("x")),
        (4, 3, 1, 0)
    );
}

#[test]
fn counts_beyond_the_old_solvers_range_are_exact() {
    let g = check("digraph { e [wcet=1]; h [wcet=1 loop_bound=10000000000]; l [wcet=1]; x [wcet=1]; e -> h -> l -> h; l -> x }").unwrap();
    let r = analyse(&g, &[false; 4], &params()).unwrap().report;
    assert_eq!(r.ipet_method, IpetMethod::Structural);
    assert_eq!(r.e_wf.nosplit, 2 * 10_000_000_000 + 2);
    // Beyond 2^53 and 2^64: 40 nested loops of bound 4, header i the latch of loop i - 1.
    let mut dot = String::from("digraph { e [wcet=1];");
    for i in 0..40 {
        dot += &format!(" h{i} [wcet=1 loop_bound=4];");
    }
    dot += " x [wcet=1]; e -> h0;";
    for i in 0..39 {
        dot += &format!(" h{i} -> h{};", i + 1);
    }
    dot += " h39 -> h39;";
    for i in (1..40).rev() {
        dot += &format!(" h{i} -> h{};", i - 1);
    }
    dot += " h0 -> x; }";
    let g = check(&dot).unwrap();
    let r = analyse(&g, &[false; 42], &params()).unwrap().report;
    assert_eq!(r.ipet_method, IpetMethod::Structural, "{:?}", r.notes);
    // Loop i is entered 3^i times (every iteration of loop i - 1 but its last, which leaves),
    // so header i runs 4·3^i times: 2 + Σ 4·3^i = 2·3^40 > 2^64.
    let want: u128 = 2 * 3u128.pow(40);
    assert!(want > 1 << 64);
    assert_eq!(r.e_wf.nosplit, want);
}
