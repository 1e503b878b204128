//! Round trip: a random structured CFG is written as GCN3 assembly in LLVM's exec-mask idiom
//! (if/else, if without else, bounded loops, `split`/`merge` at the split points), extracted
//! again, and must give the same Select/Prune results as the original CFG with the block costs
//! the timing table assigns to the emitted instructions.

use pws_host::compile::SplitPolicy;
use std::fmt::Write as _;

use proptest::prelude::*;
use pws_host::cfg::{BlockKind, BsbCfg, Cfg, Role};
use pws_host::compile::compile;
use pws_host::extract::extract;
use pws_host::gen::{random_cfg, GenOptions};
use pws_host::prune::prune;
use pws_host::select::select;
use pws_host::timing::TimingTable;
use pws_isa::testing::proptest_cases;

/// Assembly for `g` and the CFG the extractor must find (same nodes, costs of the emitted code).
fn emit(g: &BsbCfg) -> (String, Cfg) {
    let t = TimingTable::GCN3;
    let mut cfg = g.cfg().clone();
    let n = g.len();
    // An if whose BSB and path 2 cost nothing is written without an else.
    let no_else = |b: usize| match g.role(b) {
        Role::Bsb { path2, reconv, .. } => {
            g.wcet(b) == 0 && g.wcet(path2) == 0 && g.forward_successors(path2) == [reconv]
        }
        _ => false,
    };
    let mut depth = vec![0usize; n];
    for &v in g.order() {
        let mut d = 0;
        let mut p = g.parent(v);
        while let Some(q) = p {
            if matches!(g.role(q), Role::Branch { .. }) {
                d += 1;
            }
            p = g.parent(q);
        }
        depth[v] = d;
    }
    let reg = |d: usize| format!("s[{}:{}]", 2 * d, 2 * d + 1);
    let mut join_of = vec![None; n];
    for v in 0..n {
        if let Role::Branch { reconv, .. } = g.role(v) {
            join_of[reconv] = Some(v);
        }
    }
    let mut virtual_node = vec![false; n];
    for v in 0..n {
        if let Role::Bsb { path2, .. } = g.role(v) {
            if no_else(v) {
                virtual_node[v] = true;
                virtual_node[path2] = true;
            }
        }
    }
    let mut s = String::new();
    for (v, block) in cfg.blocks.iter_mut().enumerate() {
        if virtual_node[v] {
            // Virtual nodes of an if without else: the extractor recreates them at cost 0.
            continue;
        }
        let mut cost = 0;
        if let Some(lp) = g.loop_at(v) {
            let _ = writeln!(s, "; pws: loop_bound {}", lp.bound);
        }
        let _ = writeln!(s, "n{v}:");
        if let Some(u) = join_of[v] {
            let _ = writeln!(s, "    s_or_b64 exec, exec, {}", reg(depth[u]));
            cost += t.salu + t.per_sgpr_read;
            if g.block(u).split {
                let _ = writeln!(s, "    merge");
                cost += t.merge;
            }
        }
        for _ in 0..=g.wcet(v) {
            let _ = writeln!(s, "    s_nop 0");
            cost += t.nop;
        }
        match g.role(v) {
            Role::Branch { bsb, reconv, .. } => {
                let r = reg(depth[v]);
                let target = if no_else(bsb) { reconv } else { bsb };
                let _ = writeln!(
                    s,
                    "    s_and_saveexec_b64 {r}, vcc\n    s_xor_b64 {r}, exec, {r}"
                );
                cost += 2 * t.salu + t.per_sgpr_read + t.branch;
                if block.split {
                    let _ = writeln!(s, "    split vcc_lo, vcc_hi");
                    cost += t.split;
                }
                let _ = writeln!(s, "    s_cbranch_execz n{target}");
            }
            Role::Bsb { branch, reconv, .. } => {
                let r = reg(depth[branch]);
                let _ = writeln!(s, "    s_or_saveexec_b64 {r}, {r}\n    s_xor_b64 exec, exec, {r}\n    s_cbranch_execz n{reconv}");
                cost += 2 * (t.salu + t.per_sgpr_read) + t.branch;
            }
            Role::Block => {
                if let Some(lp) = g.loops().iter().find(|lp| lp.latches.contains(&v)) {
                    let _ = writeln!(s, "    s_cbranch_scc1 n{}", lp.header);
                    cost += t.branch;
                }
                if g.forward_successors(v).is_empty() {
                    let _ = writeln!(s, "    s_endpgm");
                    cost += t.nop;
                }
            }
        }
        block.wcet = cost;
    }
    for v in (0..n).filter(|&v| virtual_node[v]) {
        cfg.blocks[v].wcet = 0;
    }
    (s, cfg)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(48)))]

    #[test]
    fn extraction_recovers_the_cfg(seed: u64, nodes in 3usize..70, loops: bool) {
        let opts = GenOptions { nodes, loops, max_depth: 5, ..GenOptions::default() };
        let g = BsbCfg::new(random_cfg(seed, &opts)).unwrap();
        let (asm, expected) = emit(&g);
        let k = extract(&asm, "gen.s", &TimingTable::GCN3).map_err(|e| TestCaseError::fail(format!("{e}\n{asm}")))?;
        let got = BsbCfg::new(k.cfg).map_err(|e| TestCaseError::fail(format!("{e}\n{asm}")))?;
        let want = BsbCfg::new(expected).unwrap();
        prop_assert_eq!(got.len(), want.len());
        prop_assert_eq!(got.branches().count(), want.branches().count());
        prop_assert_eq!(got.loops().len(), want.loops().len());
        let kinds = |g: &BsbCfg| g.order().iter().filter(|&&v| g.block(v).kind == BlockKind::Bsb).count();
        prop_assert_eq!(kinds(&got), kinds(&want));
        let marked = |g: &BsbCfg| (0..g.len()).map(|v| g.block(v).split).collect::<Vec<_>>();
        for s in 0..4 {
            let (sg, sw) = (select(&got, &marked(&got), s), select(&want, &marked(&want), s));
            prop_assert_eq!(sg.selected.len(), sw.selected.len());
            prop_assert_eq!(sg.count, sw.count);
            let (pg, pw) = (prune(&got, &sg.mask(got.len())).unwrap(), prune(&want, &sw.mask(want.len())).unwrap());
            prop_assert_eq!(pg.wcet, pw.wcet, "S = {}\n{}", s, asm);
        }
        // The emitted split/merge placement is what the compiler produces: nothing changes.
        let c = compile(&asm, "gen.s", SplitPolicy::Marked).map_err(|e| TestCaseError::fail(format!("{e}\n{asm}")))?;
        prop_assert_eq!(c.text, asm);
    }
}
