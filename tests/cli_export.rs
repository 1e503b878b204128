//! `pws export` from the command line: files written, checks and co-simulation run, JSON
//! summary, errors.

mod common;

use common::{command, json, pws};

/// A path as a command-line argument (temporary directories have UTF-8 names).
fn arg(p: &std::path::Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn export_writes_a_checked_file_per_unit_and_reports_json() {
    let dir = tempfile::tempdir().unwrap();
    let summary = json(&[
        "export",
        "--out",
        arg(dir.path()),
        "--unit",
        "split_merge_unit",
        "--cosim",
        "300",
        "--seed",
        "7",
        "--json",
    ]);
    let units = summary["units"].as_array().unwrap();
    assert_eq!(units.len(), 1);
    assert_eq!(units[0]["module"], "pws_split_merge_unit");
    assert!(units[0]["area"].is_null(), "no synthesis without --report");
    assert_eq!(units[0]["cosim"]["cycles"], 300);
    assert_eq!(units[0]["cosim"]["seed"], 7);
    assert!(units[0]["lint"]["waived"]["WIDTH"].as_u64().unwrap() > 0);
    let verilog = std::fs::read_to_string(dir.path().join("pws_split_merge_unit.v")).unwrap();
    assert!(verilog.contains("module pws_split_merge_unit("));
    assert!(dir.path().join("pws_lint.vlt").exists());
}

#[test]
fn an_unknown_unit_is_an_error_listing_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = pws(&["export", "--out", arg(dir.path()), "--unit", "alu"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown unit `alu`"), "{stderr}");
    assert!(stderr.contains("pws_swizzle_unit"), "{stderr}");
}

#[test]
fn a_bad_fmax_target_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = pws(&[
        "export",
        "--report",
        "--freq",
        "0",
        "--out",
        arg(dir.path()),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fmax target"));
}

#[test]
fn a_relative_output_directory_works_with_cosimulation() {
    // `make export` passes `--out out/verilog`: the tools run in their own working directories,
    // so the written file must still be found.
    let dir = tempfile::tempdir().unwrap();
    let out = command()
        .current_dir(dir.path())
        .args([
            "export",
            "--out",
            "out/verilog",
            "--unit",
            "pdom_stack",
            "--cosim",
            "50",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("out/verilog/pws_pdom_stack.v").exists());
}

#[test]
fn a_configuration_builds_the_configured_units_for_it() {
    // The swizzle unit of the paper's Figure 5 machine: 4-lane wavefronts on 4 ALU positions,
    // one lane group, co-simulated in that geometry.
    let dir = tempfile::tempdir().unwrap();
    let out = pws(&[
        "export",
        "--out",
        arg(dir.path()),
        "--unit",
        "swizzle_unit",
        "--config",
        "figure5",
        "--cosim",
        "100",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ports = summary["units"][0]["ports"].as_array().unwrap();
    let active = ports
        .iter()
        .filter(|p| p["name"].as_str().unwrap().starts_with("active_o"))
        .count();
    assert_eq!(active, 4, "one active_o per ALU position of Figure 5");
    assert_eq!(summary["units"][0]["cosim"]["cycles"], 100);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pws_swizzle_unit") && stderr.contains("yosys check"),
        "{stderr}"
    );
}

#[test]
fn a_configuration_a_unit_cannot_be_built_for_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // One GCN3 SIMD with 17 slots: valid for the other units, too many for an issue unit.
    let spec = dir.path().join("wide.toml");
    std::fs::write(
        &spec,
        "preset = \"gcn3\"\nsimds_per_cu = 1\nwf_contexts_per_simd = 17\n",
    )
    .unwrap();
    let out = pws(&[
        "export",
        "--out",
        arg(&dir.path().join("v")),
        "--unit",
        "compute_unit",
        "--config",
        arg(&spec),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pws_compute_unit"), "{stderr}");
    assert!(stderr.contains("16 wavefront slots per SIMD"), "{stderr}");
}

#[test]
fn a_configuration_without_spsimds_has_no_split_merge_unit_to_export() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s0.toml");
    std::fs::write(&spec, "preset = \"cu\"\nspsimds_per_simd = 0\n").unwrap();
    let out = pws(&[
        "export",
        "--out",
        arg(&dir.path().join("v")),
        "--unit",
        "split_merge_unit",
        "--config",
        arg(&spec),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("this configuration has no pws_split_merge_unit: S = 0"),
        "{stderr}"
    );
}

#[test]
fn an_invalid_configuration_file_is_reported_whole_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("bad.toml");
    std::fs::write(&spec, "spsimds_per_simd = 9\nsrf_copy_width = 3\n").unwrap();
    let out = pws(&[
        "export",
        "--out",
        arg(&dir.path().join("v")),
        "--config",
        arg(&spec),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("bad.toml: invalid hardware configuration: S = 9")
            && stderr.contains("SRF copy width 3"),
        "{stderr}"
    );
    assert!(!dir.path().join("v").exists());
}
