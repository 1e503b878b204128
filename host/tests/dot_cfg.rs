//! DOT CFGs: structural checks with their messages, loops, and the default GPU configuration.

use pws_host::analysis::{analyse, Params};
use pws_host::cfg::BsbCfg;
use pws_host::dot::parse_cfg;
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
    let e = check("digraph { a [wcet=1]; h [wcet=1 loop_bound=3]; b [wcet=1]; l [wcet=1]; x [wcet=1]; a -> h -> b -> l -> h; b -> x; l -> x }").unwrap_err();
    assert_eq!(e, "loop with header 'h' must leave only from its latch 'l' (no break out of loops, no divergent latch)");
    // An s_endpgm inside the loop body is an exit too.
    let e = check("digraph { a [wcet=1]; h [wcet=1 loop_bound=3]; b [wcet=1]; l [wcet=1]; x [wcet=1]; y [wcet=1]; a -> h -> b -> l -> h; b -> y; l -> x }").unwrap_err();
    assert_eq!(e, "loop with header 'h' must leave only from its latch 'l' (no break out of loops, no divergent latch)");
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
    assert_eq!(g.multiplicity(g.find("p").unwrap()), 5);
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
        &Params {
            gpu,
            launch: Launch {
                groups: 1,
                wg_size: 64,
            },
            ds: Some(1),
        },
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

#[test]
fn counts_beyond_the_solvers_integer_range_fall_back_to_the_lp_relaxation() {
    let g = check("digraph { e [wcet=1]; h [wcet=1 loop_bound=10000000000]; l [wcet=1]; x [wcet=1]; e -> h -> l -> h; l -> x }").unwrap();
    let params = Params {
        gpu: GpuConfig::default(),
        launch: Launch {
            groups: 1,
            wg_size: 64,
        },
        ds: Some(1),
    };
    let r = analyse(&g, &[false; 4], &params).unwrap().report;
    assert_eq!(r.ipet_method, pws_host::ipet::IpetMethod::LpRelaxation);
    assert_eq!(r.e_wf.nosplit, 2 * 10_000_000_000 + 2);
}
