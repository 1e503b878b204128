//! [P] Figure 8 against the per-node F table, SB, E_r and Table 2 as rebuilt in the digest
//! (shared/reference/pws-thesis-digest.md 3.6 and 4.6, with the lost inputs completed as
//! e1 = 4, e2 = 5, e4 = 5, e6 = 3, e7 = 3).

use pws_host::analysis::{analyse, Params};
use pws_host::cfg::BsbCfg;
use pws_host::dot::parse_cfg;
use pws_host::kernel::{GpuConfig, Launch};
use pws_host::prune::prune;
use pws_host::select::select;

fn figure8() -> BsbCfg {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/cfg/figure8.dot");
    let text = std::fs::read_to_string(path).unwrap();
    BsbCfg::new(parse_cfg(&text, "figure8.dot").unwrap()).unwrap()
}

fn node(g: &BsbCfg, n: u32) -> usize {
    g.find(&n.to_string()).unwrap()
}

fn names(g: &BsbCfg, vs: &[usize]) -> Vec<u32> {
    vs.iter().map(|&v| g.name(v).parse().unwrap()).collect()
}

fn marked(g: &BsbCfg) -> Vec<bool> {
    (0..g.len()).map(|v| g.block(v).split).collect()
}

#[test]
fn topological_numbering_is_the_papers() {
    let g = figure8();
    assert_eq!(names(&g, g.order()), (1..=18).collect::<Vec<_>>());
}

#[test]
fn parents_match_the_digest() {
    let g = figure8();
    let parent = |n| g.parent(node(&g, n)).map(|p| g.name(p).to_string());
    assert_eq!(parent(1), None);
    assert_eq!(parent(2).as_deref(), Some("1"));
    assert_eq!(parent(7).as_deref(), Some("1"));
    assert_eq!(parent(13).as_deref(), Some("12"));
    assert_eq!(parent(12).as_deref(), Some("1"));
}

#[test]
fn select_for_s_0_to_3() {
    let g = figure8();
    let p = marked(&g);
    let expect: [(&[u32], u64); 4] = [(&[], 0), (&[1], 1), (&[1, 2, 7], 2), (&[1, 2, 7, 13], 3)];
    for (s, (sb, count)) in expect.iter().enumerate() {
        let sel = select(&g, &p, s as u64);
        assert_eq!(names(&g, &sel.selected), sb.to_vec(), "S = {s}");
        assert_eq!(sel.count, *count, "S = {s}");
    }
}

#[test]
fn prune_f_table_and_removed_edges_for_s_0_to_3() {
    let g = figure8();
    let p = marked(&g);
    // Columns S = 0, 1, 2, 3 of the digest's per-node table, rows u = 1..18.
    let table: [[u128; 4]; 18] = [
        [59, 49, 42, 42],
        [42, 42, 35, 35],
        [36, 36, 32, 31],
        [39, 39, 35, 34],
        [39, 39, 35, 34],
        [33, 33, 29, 28],
        [30, 30, 26, 25],
        [22, 22, 22, 21],
        [21, 21, 21, 20],
        [21, 21, 21, 20],
        [17, 17, 17, 16],
        [14, 14, 14, 13],
        [14, 14, 14, 13],
        [10, 10, 10, 10],
        [11, 11, 11, 11],
        [11, 11, 11, 11],
        [9, 9, 9, 9],
        [4, 4, 4, 4],
    ];
    let removed: [&[(u32, u32)]; 4] = [
        &[],
        &[(12, 13)],
        &[(2, 3), (9, 10), (12, 13)],
        &[(2, 3), (9, 10), (12, 13), (13, 14)],
    ];
    for s in 0..4 {
        let sel = select(&g, &p, s as u64);
        let pr = prune(&g, &sel.mask(g.len())).unwrap();
        for (i, row) in table.iter().enumerate() {
            assert_eq!(
                pr.f[node(&g, i as u32 + 1)],
                row[s],
                "F[{}] at S = {s}",
                i + 1
            );
        }
        let got: Vec<(u32, u32)> = pr
            .removed
            .iter()
            .map(|&(u, v)| (g.name(u).parse().unwrap(), g.name(v).parse().unwrap()))
            .collect();
        assert_eq!(got, removed[s].to_vec(), "E_r at S = {s}");
    }
}

fn table2(s: u64) -> pws_host::WcetReport {
    let g = figure8();
    let gpu = GpuConfig {
        s,
        e_s: 1,
        e_m: 1,
        d: 1,
        ..GpuConfig::default()
    };
    let params = Params::new(
        gpu,
        Launch {
            groups: 1,
            wg_size: 64,
        },
        Some(1),
    );
    analyse(&g, &marked(&g), &params).unwrap().report
}

#[test]
fn table2_with_the_errata_corrected() {
    let expect = [(1, 52, 123), (2, 49, 190), (3, 51, 261)];
    for (s, pws, dws) in expect {
        let r = table2(s);
        assert_eq!((r.nosplit, r.pws, r.dws), (60, pws, dws), "S = {s}");
        assert_eq!(r.e_wf.nosplit, 59);
        assert_eq!(r.e_wf.dws, u128::from(59 + 2 * s));
    }
    let r = table2(2);
    assert_eq!(r.e_wf.pws, 48);
    assert_eq!(r.ipet.pws, 42);
    assert_eq!(r.selected, ["1", "2", "7"]);
    let removed: Vec<[&str; 2]> = r
        .removed_edges
        .iter()
        .map(|[u, v]| [u.as_str(), v.as_str()])
        .collect();
    assert_eq!(removed, [["2", "3"], ["9", "10"], ["12", "13"]]);
}

#[test]
fn worst_case_path_counts_follow_the_pruned_cfg() {
    let r = table2(2);
    let on_path: Vec<&str> = r
        .blocks
        .iter()
        .filter(|b| b.count_pws == 1)
        .map(|b| b.name.as_str())
        .collect();
    // Path 2 of branch 2 (node 5), path 1 of branch 7 (node 8), skip the else of branch 1.
    assert_eq!(
        on_path,
        ["1", "2", "4", "5", "6", "7", "8", "9", "11", "12", "18"]
    );
    assert!(r.blocks.iter().all(|b| b.count_nosplit == 1));
}
