//! `pws unit split-merge` end to end: the Fig 5 script's masks and stacks (text and JSON), the
//! VCD file, and script errors reported as file:line with exit status 1.

use std::path::Path;

mod common;

use common::{json, pws, pws_ok};

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/units")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn figure5_script_prints_masks_and_stacks() {
    let text = pws_ok(&[
        "unit",
        "split-merge",
        &script("figure5.sm"),
        "--config",
        "figure5",
    ]);
    assert!(
        text.contains("e_s = ceil(n / 2) + 2 cycles for n SGPRs (e_s = 4 cycles for all 3)"),
        "{text}"
    );
    let step = text
        .split("line 10: split 0 c 8 -> ok, 4 cycle(s), 3 SGPR(s) copied")
        .nth(1)
        .expect("second split");
    let ctx0 = step.lines().nth(2).unwrap();
    assert!(ctx0.contains("0xc") && ctx0.contains("[1 2]"), "{ctx0}");
}

#[test]
fn json_output_has_every_step_and_the_final_full_mask() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("sm.vcd");
    let v = json(&[
        "unit",
        "split-merge",
        &script("nested-errors.sm"),
        "--S",
        "2",
        "--json",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 14);
    let outcomes: Vec<&str> = steps
        .iter()
        .map(|s| s["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes[1], "no-partner");
    assert_eq!(outcomes[4], "no-free-context");
    assert_eq!(outcomes[6], "stack-overflow");
    assert_eq!(v["no_free_context_splits"], 2);
    let merged = &steps[12]["contexts"][0];
    assert_eq!(merged["spm"], "0xffffffffffffffff");
    assert_eq!(merged["stack"].as_array().unwrap().len(), 0);
    assert_eq!(steps[13]["contexts"][0]["state"], "free");
    let trace = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        trace.contains("$var") && trace.contains("req_op"),
        "VCD declares the ports"
    );
}

/// `launch EXEC SGPRS` sets the count every split of the wavefront copies: on GCN3 (8 SGPRs per
/// cycle) 4 SGPRs take ceil(4 / 8) + 2 = 3 cycles, 0 (the default) and 120 (past the 102 SGPRs)
/// copy all 102 in ceil(102 / 8) + 2 = 15.
#[test]
fn launch_sets_the_sgprs_each_split_copies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("count.sm");
    std::fs::write(
        &path,
        "launch ffffffffffffffff 4\nsplit 0 ffff\nmerge 1\nmerge 0\nend\n\
         launch ffffffffffffffff 120\nsplit 0 ffff\nmerge 0\nmerge 1\nend\n\
         launch\nsplit 0 ffff\n",
    )
    .unwrap();
    let v = json(&[
        "unit",
        "split-merge",
        path.to_str().unwrap(),
        "--config",
        "gcn3",
        "--json",
    ]);
    assert_eq!(
        (v["srf_copy_width"].clone(), v["e_s"].clone()),
        (8.into(), 15.into())
    );
    let steps = v["steps"].as_array().unwrap();
    let splits: Vec<(u64, u64)> = [1, 6, 11]
        .iter()
        .map(|&i| {
            (
                steps[i]["cycles"].as_u64().unwrap(),
                steps[i]["sgprs_copied"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(splits, vec![(3, 4), (15, 102), (15, 102)]);
    assert!(steps[2]["sgprs_copied"].is_null(), "merges copy nothing");
}

#[test]
fn script_errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.sm");
    std::fs::write(&path, "launch\n# fine\nsplit 0 xyz\n").unwrap();
    let out = pws(&["unit", "split-merge", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.sm:3:9: mask `xyz`"), "{err}");
    std::fs::write(&path, "sgpr 0 99 1\n").unwrap();
    let out = pws(&["unit", "split-merge", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.sm:1:8: SGPR 99"));
    std::fs::write(&path, "launch f 128\n").unwrap();
    let out = pws(&["unit", "split-merge", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.sm:1:10: SGPR count 128"), "{err}");
    std::fs::write(&path, "launch\n").unwrap();
    let out = pws(&["unit", "split-merge", path.to_str().unwrap(), "--S", "0"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--S 0 is out of range 1..=7 (SpSIMDs per SIMD)"));
}
