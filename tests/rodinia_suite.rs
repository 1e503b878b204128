//! The Rodinia-style suite in kernels/rodinia (float arithmetic, `__local` memory, barriers and
//! atomics), end to end through `pws compare`: every kernel is compiled by clang-14 from its
//! manifest and run on the compute-unit RTL in no-split, DWS and PWS beside its WCET bound; the
//! final memory must equal the golden model's (same program and unsplit kernel) bit for bit and
//! the values kernels/rodinia/gen.py computed in Python (within the manifest's `tolerance_ulp`
//! where a division is involved), and no run may exceed its bound.
//!
//! The compute-unit RTL does not implement the LDS and the FLAT atomics yet
//! (`pws_isa::subset::golden_only`): the kernels that use them ([`NEEDS_LDS_OR_ATOMICS`]) run
//! on the golden model only, without and with splitting, against the same expected values, and
//! the test checks that the RTL refuses them with a clear error rather than running them wrong.
//!
//! CI runs each kernel in one S and compaction, rotating over the suite; `make soak`
//! (PWS_PROPTEST_SCALE > 1) runs every S and compaction.

mod common;

use common::{compare_in_rotation, pws_err, pws_stderr_ok};

/// The kernels that stage data in `__local` memory or use atomics.
const NEEDS_LDS_OR_ATOMICS: [&str; 7] = [
    "backprop",
    "bfs",
    "histogram",
    "hotspot",
    "nw",
    "pathfinder",
    "srad",
];

fn suite() -> Vec<String> {
    common::manifests_in("rodinia")
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

fn check(launch: &str, i: usize) {
    let name = launch.rsplit('/').next().unwrap().trim_end_matches(".toml");
    if NEEDS_LDS_OR_ATOMICS.contains(&name) {
        for mode in [["--mode", "nosplit"], ["--mode", "pws"]] {
            let args = [&["golden", launch][..], &mode[..], &["--split-all"][..]].concat();
            let out = pws_stderr_ok(&args);
            assert!(out.contains("expected values:"), "{launch}: {out}");
        }
        let e = pws_err(&["run", launch]);
        assert!(e.contains("runs on the golden model only"), "{launch}: {e}");
        return;
    }
    compare_in_rotation(launch, i);
}

macro_rules! kernels {
    ($($test:ident = $name:literal;)*) => {
        $(
            #[test]
            fn $test() {
                let suite = suite();
                let launch = format!("kernels/rodinia/{}.toml", $name);
                let i = suite.iter().position(|k| *k == launch).expect("in the suite");
                check(&launch, i);
            }
        )*
    };
}

kernels! {
    backprop_layer_forward = "backprop";
    bfs_with_atomics = "bfs";
    gaussian_fan1 = "gaussian_fan1";
    gaussian_fan2 = "gaussian_fan2";
    histogram_with_local_and_global_atomics = "histogram";
    hotspot = "hotspot";
    kmeans = "kmeans";
    nn = "nn";
    nw = "nw";
    pathfinder = "pathfinder";
    srad = "srad";
}
