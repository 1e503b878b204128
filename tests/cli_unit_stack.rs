//! `pws unit stack`: the digest's S2 Fig. 1 trace on both stacks, and script errors.

mod common;

use common::{json, pws_err};

/// S2 Fig. 1: A0..A2 = 0..2, B = 3..5, C = 6..8, D = 9..11, E = 12..14, F = 15, G = 16..18,
/// end = 19; BR at A2 (B 0011 / C, IPDOM G), BR at C2 (D 0100 / E, IPDOM F).
const SPE: &str = "\
init 0 19 0xf
advance 1
advance 2
branch 3 6 0x3 16   # A2
advance 4
advance 5
advance 16          # B2 -> G: pop
advance 7
advance 8
branch 9 12 0x4 15  # C2
advance 10
advance 11
advance 15
advance 13
advance 14
advance 15
advance 16          # F0 -> G
advance 17
advance 18
advance 19          # exit
";

const DPE: &str = "\
init 0 19 0xf
advance l 1
advance l 2
branch l 3 6 0x3 16
advance l 4
advance r 7
advance r 8
branch r 9 12 0x4 15
advance l 10
advance r 13
advance l 11
advance r 14
advance l 15
advance r 15
advance l 5
advance r 16
advance l 16
advance l 17
advance l 18
advance l 19
";

fn run_json(kind: &str, script: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ops.txt");
    std::fs::write(&path, script).unwrap();
    json(&[
        "unit",
        "stack",
        path.to_str().unwrap(),
        "--kind",
        kind,
        "--json",
    ])
}

#[test]
fn spe_and_dpe_traces() {
    let spe = run_json("pdom", SPE);
    assert_eq!(spe["max_depth"], 4);
    assert_eq!(spe["cycles"], 20);
    let steps = spe["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "ok"));
    assert_eq!(steps[9]["depth"], 4, "after the BR at C2");
    assert_eq!(
        steps[9]["stack"][3],
        serde_json::json!({"pc": 9, "rpc": 15, "mask": "0x4"})
    );
    assert_eq!(steps.last().unwrap()["depth"], 0);

    let dpe = run_json("dual", DPE);
    assert_eq!(dpe["max_depth"], 3);
    let steps = dpe["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "ok"));
    assert_eq!(
        steps[7]["stack"][2],
        serde_json::json!({
            "l": {"pc": 9, "mask": "0x4", "valid": true},
            "r": {"pc": 12, "mask": "0x8", "valid": true},
            "rpc": 15
        })
    );
    assert_eq!(steps.last().unwrap()["depth"], 0);
}

#[test]
fn errors_are_reported_as_statuses_and_bad_scripts_fail() {
    let v = run_json("pdom", "advance 3\ninit 0 9 0xf\nbranch 1 2 0x3 4\n");
    assert_eq!(v["steps"][0]["status"], "underflow");
    assert_eq!(v["steps"][2]["status"], "ok");
    let dir = tempfile::tempdir().unwrap();
    for (kind, script, message) in [
        (
            "dual",
            "advance 3\n",
            "bad.txt:1:9: `advance` on the dual-path stack needs a path",
        ),
        ("pdom", "jump 3\n", "bad.txt:1:1: unknown operation `jump`"),
        (
            "pdom",
            "  branch 1 2\n",
            "bad.txt:1:3: wrong number of operands",
        ),
    ] {
        let path = dir.path().join("bad.txt");
        std::fs::write(&path, script).unwrap();
        let err = pws_err(&["unit", "stack", path.to_str().unwrap(), "--kind", kind]);
        assert!(err.contains(message), "{err}");
    }
    pws_err(&["unit", "stack", "/nonexistent", "--depth", "4"]);
}
