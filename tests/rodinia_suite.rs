//! The Rodinia-style suite in kernels/rodinia (float arithmetic, `__local` memory, barriers and
//! atomics), end to end through `pws compare`: every kernel is compiled by clang-14 from its
//! manifest and run on the compute-unit RTL in no-split, DWS and PWS beside its WCET bound; the
//! final memory must equal the golden model's (same program and unsplit kernel) bit for bit and
//! the values kernels/rodinia/gen.py computed in Python (within the manifest's `tolerance_ulp`
//! where a division is involved), and no run may exceed its bound.
//!
//! The kernels that stage data in `__local` memory or use atomics (backprop, bfs, histogram,
//! hotspot, nw, pathfinder, srad, and kernels/lds/lds_reduce) run on the compute unit's LDS and
//! its memory port's atomics like the others; to keep `make test` short, CI runs each of them
//! in one mode, rotating over the three ([`LDS_OR_ATOMICS`]). backprop's workgroups of 256
//! need four wavefront slots (kernels/hw/cu4.toml). pathfinder has no WCET bound yet: the host
//! analysis stops with "IPET: internal inconsistency between Prune's F recursion and the
//! structural IPET" on it (a host issue its RTL run does not depend on), so its runs are
//! checked against the golden model and the expected values only.
//!
//! CI runs each kernel in one S and compaction, rotating over the suite; `make soak`
//! (PWS_PROPTEST_SCALE > 1) runs every S and compaction.

mod common;

use common::{compare_in_rotation, compare_one_mode_in_rotation};

/// The kernels with LDS or atomics: one mode each in CI, every mode in soak.
const LDS_OR_ATOMICS: [&str; 8] = [
    "rodinia/backprop",
    "rodinia/bfs",
    "rodinia/histogram",
    "rodinia/hotspot",
    "rodinia/nw",
    "rodinia/pathfinder",
    "rodinia/srad",
    "lds/lds_reduce",
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
        "gaussian_fan1",
        "gaussian_fan2",
        "hotspot",
        "kmeans",
        "nn",
        "nw",
        "pathfinder",
        "srad",
        "histogram",
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
                let config = ($name == "rodinia/backprop").then_some("kernels/hw/cu4.toml");
                match LDS_OR_ATOMICS.iter().position(|k| *k == $name) {
                    Some(j) => compare_one_mode_in_rotation(
                        &launch,
                        j,
                        config,
                        $name != "rodinia/pathfinder",
                    ),
                    None => compare_in_rotation(&launch, i),
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
}
