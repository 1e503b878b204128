//! `pws compare`: Figure 2 on the compute-unit RTL in every mode, each run equal to the golden
//! model and inside its WCET bound, and PWS faster than no splitting as in the paper's Figure 2.

mod common;

use serde_json::Value;

fn row<'a>(rows: &'a [Value], mode: &str, s: u64, compaction: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["mode"] == mode && r["S"] == s && r["compaction"] == compaction)
        .unwrap_or_else(|| panic!("no row {mode} S={s} {compaction}"))
}

#[test]
fn figure2_in_every_mode_is_golden_and_bounded() {
    let out = common::json(&[
        "compare",
        "kernels/figure2.toml",
        "--S",
        "2",
        "--compaction",
        "none,bcc",
        "--json",
    ]);
    let rows = out.as_array().expect("rows");
    // no-split once, DWS and PWS for S = 2, each with two compactions.
    assert_eq!(rows.len(), 6);
    for r in rows {
        assert_eq!(r["golden_equal"], true, "{r}");
        let (cycles, bound) = (r["cycles"].as_u64().unwrap(), r["bound"].as_u64().unwrap());
        assert!(cycles > 0 && cycles <= bound, "{r}");
    }
    let nosplit = row(rows, "nosplit", 0, "none")["cycles"].as_u64().unwrap();
    let pws = row(rows, "pws", 2, "none")["cycles"].as_u64().unwrap();
    assert!(pws < nosplit, "PWS {pws} cycles, no-split {nosplit}");
    // BCC skips the empty lane groups of Figure 2's 4-lane wavefront.
    let bcc = row(rows, "nosplit", 0, "bcc");
    assert!(bcc["cycles"].as_u64().unwrap() < nosplit, "{bcc}");
    assert!(bcc["passes_skipped"].as_u64().unwrap() > 0, "{bcc}");
}

#[test]
fn compare_rejects_an_unknown_compaction() {
    let out = common::pws(&["compare", "kernels/figure2.toml", "--compaction", "zip"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown compaction 'zip'"), "{err}");
}
