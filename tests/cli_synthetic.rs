//! `pws synthetic`: the paper's synthetic benchmark written as OpenCL C and a manifest whose
//! expected values the RTL and the golden model reproduce in every mode, within the WCET bound;
//! bad knobs are refused with the knob named.

mod common;

use common::{json, pws_err, pws_ok};

#[test]
fn a_generated_benchmark_runs_equal_to_its_expected_values_within_its_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    pws_ok(&[
        "synthetic",
        "--out",
        out,
        "--depth",
        "2",
        "--instructions",
        "12",
        "--memory",
        "25",
        "--loops",
        "2",
        "--split-levels",
        "2",
    ]);
    let launch = dir.path().join("synthetic.toml");
    let source = std::fs::read_to_string(dir.path().join("synthetic.cl")).unwrap();
    assert_eq!(source.matches("PWS_SPLIT();").count(), 3, "{source}");
    // Every marked if splits: LLVM hoists identical inline asm out of both arms of an if, so
    // pws.h tags each marker, and the markers of nested ifs sit in blocks LLVM enters by
    // falling through (`; %bb.N:`), which open their block like a label.
    let golden = json(&[
        "golden",
        launch.to_str().unwrap(),
        "--mode",
        "pws",
        "--S",
        "3",
        "--json",
    ]);
    assert_eq!(golden["stats"]["splits"], 2 * 3, "{}", golden["stats"]); // 2 trips x 3 ifs
    let rows = json(&[
        "compare",
        launch.to_str().unwrap(),
        "--S",
        "3",
        "--compaction",
        "none",
        "--json",
    ]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in rows {
        assert_eq!(r["expect_equal"], true, "{r}");
        assert!(
            r["bound"].as_u64().unwrap() >= r["cycles"].as_u64().unwrap(),
            "{r}"
        );
    }
}

#[test]
fn out_of_range_knobs_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert!(pws_err(&["synthetic", "--out", out, "--depth", "7"]).contains("depth 7"));
    assert!(pws_err(&["synthetic", "--out", out, "--divergent", "150"]).contains("divergent"));
    assert!(!dir.path().join("synthetic.toml").exists());
}
