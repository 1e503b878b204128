//! Properties of Select/Prune/IPET and the kernel bounds on random CFGs (`pws_host::gen`),
//! structured ones and irregular ones (loops with several latches and exits, early returns,
//! uniform branches, any layout): the structural IPET optimum equals the ILP optimum of an
//! independent solver (microlp) and passes its exact certificate, pruning never increases the
//! bound, and no bound decreases when a block gets slower.

use proptest::prelude::*;
use pws_host::analysis::{analyse, Params};
use pws_host::cfg::BsbCfg;
use pws_host::gen::{random_cfg, GenOptions};
use pws_host::ipet::{certify, IpetMethod, IpetSystem, Solver};
use pws_host::kernel::{GpuConfig, Launch};
use pws_host::prune::prune;
use pws_host::select::select;
use pws_isa::testing::proptest_cases;

fn graph(seed: u64, nodes: usize, loops: bool, irregular: bool) -> BsbCfg {
    let opts = GenOptions {
        nodes,
        loops,
        irregular,
        ..GenOptions::default()
    };
    BsbCfg::new(random_cfg(seed, &opts)).expect("generated CFGs are reducible and bounded")
}

fn marked(g: &BsbCfg) -> Vec<bool> {
    (0..g.len()).map(|v| g.block(v).split).collect()
}

fn params(s: u64, e_sm: u64) -> Params {
    Params::new(
        GpuConfig {
            s,
            e_s: e_sm,
            e_m: e_sm,
            ..GpuConfig::default()
        },
        Launch {
            groups: 100,
            wg_size: 128,
        },
        None,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(64)))]

    #[test]
    fn structural_ipet_equals_the_ilp_and_is_certified(seed: u64, nodes in 3usize..45, loops: bool, irregular: bool, s in 0u64..4) {
        let g = graph(seed, nodes, loops, irregular);
        let sel = select(&g, &marked(&g), s);
        let pr = prune(&g, &sel.mask(g.len())).unwrap();
        let sol = certify(&g, &pr.solution, Solver::Structural).unwrap();
        prop_assert_eq!(sol.method, IpetMethod::Structural, "{:?}", sol.notes);
        prop_assert_eq!(sol.wcet, pr.wcet);
        // The worst-case flow is a path of the pruned CFG: the entry runs once, no removed edge.
        prop_assert_eq!(sol.block_counts[g.entry()], 1 + g.loop_at(g.entry()).map_or(0, |l| l.bound as u128 - 1));
        prop_assert!(sol.edge_counts.iter().all(|(e, c)| *c == 0 || !pr.removed.contains(e)));
        // An independent solver on the same rows finds the same optimum.
        let sys = IpetSystem::new(&g, &pr.removed).unwrap();
        let values = sys.solve_ilp().map_err(TestCaseError::fail)?;
        prop_assert_eq!(sys.check_primal(&values), Ok(pr.wcet as i128));
    }

    #[test]
    fn pws_never_exceeds_no_split_or_dws_without_split_costs(seed: u64, nodes in 3usize..60, loops: bool, irregular: bool, s in 0u64..4) {
        let g = graph(seed, nodes, loops, irregular);
        let r = analyse(&g, &marked(&g), &params(s, 0)).unwrap().report;
        prop_assert!(r.ipet.pws <= r.ipet.nosplit);
        prop_assert!(r.pws <= r.nosplit, "PWS {} > no-split {}", r.pws, r.nosplit);
        prop_assert!(r.pws <= r.dws, "PWS {} > DWS {}", r.pws, r.dws);
    }

    #[test]
    fn bounds_grow_with_block_wcets(seed: u64, nodes in 3usize..40, loops: bool, irregular: bool, s in 0u64..4, pick: usize, delta in 1u64..50) {
        let opts = GenOptions { nodes, loops, irregular, ..GenOptions::default() };
        let base = random_cfg(seed, &opts);
        let mut slower = base.clone();
        let v = pick % slower.blocks.len();
        slower.blocks[v].wcet += delta;
        let (g0, g1) = (BsbCfg::new(base).unwrap(), BsbCfg::new(slower).unwrap());
        let p = params(s, 1);
        let r0 = analyse(&g0, &marked(&g0), &p).unwrap().report;
        let r1 = analyse(&g1, &marked(&g1), &p).unwrap().report;
        prop_assert!(r1.nosplit >= r0.nosplit);
        prop_assert!(r1.dws >= r0.dws);
        prop_assert!(r1.pws >= r0.pws);
        prop_assert!(r1.e_wf.pws >= r0.e_wf.pws);
    }

    #[test]
    fn large_cfgs_are_certified(seed: u64, nodes in 200usize..3000, loops: bool, irregular: bool, s in 0u64..5) {
        let g = graph(seed, nodes, loops, irregular);
        let sel = select(&g, &marked(&g), s);
        prop_assert!(sel.count <= s);
        let pr = prune(&g, &sel.mask(g.len())).unwrap();
        let sol = certify(&g, &pr.solution, Solver::Structural).unwrap();
        prop_assert_eq!(sol.method, IpetMethod::Structural, "{:?}", sol.notes);
        let unpruned = prune(&g, &vec![false; g.len()]).unwrap();
        prop_assert!(pr.wcet <= unpruned.wcet);
    }
}
