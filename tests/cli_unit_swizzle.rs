//! `pws unit swizzle`: JSON schedules for the digest's SIMD16-on-4-lanes example and a wave64
//! case, the human-readable table, and errors for bad input.

mod common;

use common::{json, pws_err, pws_ok};

#[test]
fn simd16_on_four_lanes_packs_0xaaaa_into_two_passes() {
    let v = json(&[
        "unit", "swizzle", "--mask", "0xAAAA", "--width", "16", "--lanes", "4", "--mode", "scc",
        "--json",
    ]);
    // Digest §1.9: c0: Q0.1 Q1.1 Q2.1 Q0.3 / c1: Q1.3 Q3.1 Q2.3 Q3.3.
    assert_eq!(
        v,
        serde_json::json!({"cycles": 2, "schedule": [[1, 5, 9, 3], [7, 13, 11, 15]]})
    );
    let bcc = json(&[
        "unit", "swizzle", "--mask", "0xAAAA", "--width", "16", "--lanes", "4", "--mode", "bcc",
        "--json",
    ]);
    assert_eq!(bcc["cycles"], 4);
    assert_eq!(bcc["schedule"][0], serde_json::json!([null, 1, null, 3]));
}

#[test]
fn wave64_on_sixteen_lanes() {
    let v = json(&[
        "unit",
        "swizzle",
        "--mask",
        "0x0001_0001_0001_0001",
        "--width",
        "64",
        "--lanes",
        "16",
        "--mode",
        "scc",
        "--json",
    ]);
    assert_eq!(v["cycles"], 1);
    let pass = v["schedule"][0].as_array().unwrap();
    assert_eq!(pass.len(), 16);
    assert_eq!(pass[..4], [0, 16, 32, 48].map(serde_json::Value::from));
    assert!(pass[4..].iter().all(serde_json::Value::is_null));
    let none = json(&["unit", "swizzle", "--mask", "0", "--mode", "none", "--json"]);
    assert_eq!(
        none["cycles"], 4,
        "no compaction: W/L passes even for an empty mask"
    );
    let scc = json(&["unit", "swizzle", "--mask", "0", "--mode", "scc", "--json"]);
    assert_eq!(scc, serde_json::json!({"cycles": 0, "schedule": []}));
}

#[test]
fn table_output_and_vcd() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("swizzle.vcd");
    let text = pws_ok(&[
        "unit",
        "swizzle",
        "--mask",
        "5555",
        "--width",
        "16",
        "--lanes",
        "4",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    assert!(text.contains("pass |  p0  p1  p2  p3"), "{text}");
    assert!(text.contains("   0 |   0  4*   2  8*"), "{text}");
    let trace = std::fs::read_to_string(&vcd).unwrap();
    assert!(trace.contains("pass_valid_o"));
}

#[test]
fn bad_input_is_an_error() {
    for args in [
        &[
            "unit", "swizzle", "--mask", "0x1_0000", "--width", "16", "--lanes", "4",
        ][..],
        &["unit", "swizzle", "--mask", "zz"][..],
        &[
            "unit", "swizzle", "--mask", "1", "--width", "64", "--lanes", "8",
        ][..],
    ] {
        assert!(pws_err(args).starts_with("error: "), "{args:?}");
    }
}
