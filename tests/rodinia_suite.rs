//! The Rodinia-style suite in kernels/rodinia (float arithmetic, `__local` memory, barriers and
//! atomics), end to end through `pws compare`: every kernel is compiled by clang-14 from its
//! manifest and run on the compute-unit RTL in no-split, DWS and PWS beside its WCET bound (PWS
//! with `--split-all`: the kernels carry no split markers, so PWS splits, and Select selects
//! among, every divergent branch that can split: hotspot's and srad's boundary cases,
//! hybridsort's merge or copy of a run); the final memory must equal the golden model's (same
//! program and unsplit kernel) bit for bit and the values kernels/rodinia/gen.py computed in
//! Python (within the manifest's `tolerance_ulp` where a division is involved), and no run may
//! exceed its bound.
//!
//! The kernels that stage data in `__local` memory or use atomics (backprop, bfs, histogram,
//! hotspot, hybridsort, nw, particlefilter, pathfinder, srad, and kernels/lds/lds_reduce) run
//! on the compute unit's LDS and its memory port's atomics like the others; to keep `make
//! test` short, CI runs each of them in one mode, rotating over the three
//! ([`LDS_OR_ATOMICS`]). backprop's workgroups of 256 need four wavefront slots
//! (kernels/hw/cu4.toml). pathfinder's loop is rotated by LLVM (the `break` test sits mid-body
//! and the latch only jumps back), the shape `pws_host::gen` now draws for the host's property
//! tests.
//!
//! `bfs_full` is Rodinia's whole BFS, a launch sequence (docs/manifest.md): its two kernels
//! repeated until a pass changes nothing, checked against the costs Python's BFS gives.
//! `hybridsort` is Rodinia's hybridsort as one sequence (the bucket sort's three kernels with
//! the pivot search and `__local` atomics, then the float4 merge sort's passes and pack),
//! checked against the sorted list; `particlefilter` is the resampling of Rodinia's particle
//! filter (sum, normalise and CDF, then every particle's search of the CDF), a sequence too.
//!
//! CI runs each kernel in one S and compaction, rotating over the suite; `make soak`
//! (PWS_PROPTEST_SCALE > 1) runs every S and compaction.

mod common;

use common::{compare_in_rotation, compare_one_mode_in_rotation};

/// The kernels with LDS or atomics: one mode each in CI, every mode in soak. The mode is the
/// position's remainder mod 3 (no-split, DWS, PWS): hotspot and srad, the two with branches
/// PWS splits, sit where CI runs them in PWS; hybridsort, whose merge pass splits into its
/// merge and its copy, where CI runs it in DWS, which splits it too.
const LDS_OR_ATOMICS: [&str; 11] = [
    "rodinia/backprop",
    "rodinia/bfs",
    "rodinia/hotspot",
    "rodinia/histogram",
    "rodinia/nw",
    "rodinia/srad",
    "rodinia/pathfinder",
    "lds/lds_reduce",
    "rodinia/bfs_full",
    "rodinia/particlefilter",
    "rodinia/hybridsort",
];

fn suite() -> Vec<String> {
    let mut suite = common::manifests_in("rodinia");
    suite.extend(common::manifests_in("lds"));
    suite
}

#[test]
fn the_suite_has_the_rodinia_kernels() {
    let names: Vec<String> = suite()
        .iter()
        .map(|p| {
            p.rsplit('/')
                .next()
                .unwrap()
                .trim_end_matches(".toml")
                .to_string()
        })
        .collect();
    for k in [
        "backprop",
        "bfs",
        "bfs_full",
        "btree",
        "gaussian_fan1",
        "gaussian_fan2",
        "hotspot",
        "kmeans",
        "nn",
        "nw",
        "pathfinder",
        "srad",
        "histogram",
        "hybridsort",
        "particlefilter",
    ] {
        assert!(
            names.iter().any(|n| n == k),
            "kernels/rodinia has no {k}: {names:?}"
        );
    }
}

macro_rules! kernels {
    ($($test:ident = $name:literal;)*) => {
        $(
            #[test]
            fn $test() {
                let suite = suite();
                let launch = format!("kernels/{}.toml", $name);
                let i = suite.iter().position(|k| *k == launch).expect("in the suite");
                let mut extra = vec!["--split-all"];
                if $name == "rodinia/backprop" {
                    extra.extend(["--config", "kernels/hw/cu4.toml"]);
                }
                match LDS_OR_ATOMICS.iter().position(|k| *k == $name) {
                    Some(j) => compare_one_mode_in_rotation(&launch, j, &extra),
                    None => compare_in_rotation(&launch, i, &extra),
                }
            }
        )*
    };
}

kernels! {
    backprop_layer_forward = "rodinia/backprop";
    bfs_with_atomics = "rodinia/bfs";
    gaussian_fan1 = "rodinia/gaussian_fan1";
    gaussian_fan2 = "rodinia/gaussian_fan2";
    histogram_with_local_and_global_atomics = "rodinia/histogram";
    hotspot = "rodinia/hotspot";
    kmeans = "rodinia/kmeans";
    nn = "rodinia/nn";
    nw = "rodinia/nw";
    pathfinder = "rodinia/pathfinder";
    srad = "rodinia/srad";
    lds_reduce = "lds/lds_reduce";
    bfs_two_kernels_until_no_change = "rodinia/bfs_full";
    btree_find_k = "rodinia/btree";
    hybridsort_bucket_then_merge_sort = "rodinia/hybridsort";
    particlefilter_resampling = "rodinia/particlefilter";
}
