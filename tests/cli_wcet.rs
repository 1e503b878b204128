//! `pws wcet` and `pws compile` end to end: the Figure 8 numbers (design.md decision 7), the
//! JSON contract (decision 9), the Graphviz and LP outputs, and bad input (exit 1, no panic).

use std::path::Path;

mod common;

use common::{json, pws};

/// Runs a failing command and returns its stderr, checking exit status 1 and no panic.
fn fails(args: &[&str]) -> String {
    let out = pws(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const FIG8: &str = "kernels/cfg/figure8.dot";
const UNIT: [&str; 8] = ["--d", "1", "--es", "1", "--em", "1", "--ds", "1"];

#[test]
fn figure8_table2_with_errata_corrected() {
    for (s, pws_wcet, dws) in [("1", 52, 123), ("2", 49, 190), ("3", 51, 261)] {
        let mut args = vec!["wcet", FIG8, "--S", s, "--json"];
        args.extend(UNIT);
        let r = json(&args);
        assert_eq!(r["nosplit"], 60, "S = {s}");
        assert_eq!(r["pws"], pws_wcet, "S = {s}");
        assert_eq!(r["dws"], dws, "S = {s}");
    }
    let mut args = vec!["wcet", FIG8, "--S", "2", "--json"];
    args.extend(UNIT);
    let r = json(&args);
    assert_eq!(
        r["e_wf"],
        serde_json::json!({"nosplit": 59, "dws": 63, "pws": 48})
    );
    assert_eq!(r["selected"], serde_json::json!(["1", "2", "7"]));
    assert_eq!(
        r["removed_edges"],
        serde_json::json!([["2", "3"], ["9", "10"], ["12", "13"]])
    );
}

#[test]
fn configuration_file_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        dir.path(),
        "gpu.toml",
        "N_CU = 4\nN_SIMD = 4\nN_WFC = 10\nN_WIWF = 64\nS = 1\ne_s = 1\ne_m = 1\nd = 1\n",
    );
    let r = json(&["wcet", FIG8, "--config", &cfg, "--ds", "1", "--json"]);
    assert_eq!(
        (r["nosplit"].as_u64(), r["pws"].as_u64(), r["dws"].as_u64()),
        (Some(60), Some(52), Some(123))
    );
    // A flag overrides the file.
    let r = json(&[
        "wcet", FIG8, "--config", &cfg, "--ds", "1", "--S", "2", "--json",
    ]);
    assert_eq!(r["pws"], 49);
    // DS from the launch: 512 workgroups of 256 work-items on 4·4·10·64 lanes is 40 at a time.
    let r = json(&[
        "wcet",
        FIG8,
        "--config",
        &cfg,
        "--groups",
        "512",
        "--wg-size",
        "256",
        "--S",
        "2",
        "--json",
    ]);
    assert_eq!(r["ds"]["nosplit"], 13);
    assert_eq!(r["nosplit"], 13 * 60);
}

#[test]
fn human_report_dot_and_lp_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("out.dot").display().to_string();
    let lp = dir.path().join("out.lp").display().to_string();
    let mut args = vec!["wcet", FIG8, "--S", "2", "--dot", &dot, "--write-lp", &lp];
    args.extend(UNIT);
    let out = pws(&args);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("PWS                 49           48         42"),
        "{text}"
    );
    assert!(
        text.contains("selected split points (SB, peak 2 live): 1, 2, 7"),
        "{text}"
    );
    assert!(
        text.contains("pruned edges (E_r): 2 -> 3, 9 -> 10, 12 -> 13"),
        "{text}"
    );
    let dot = std::fs::read_to_string(&dot).unwrap();
    assert_eq!(dot.matches("style=dashed").count(), 3);
    assert!(dot.contains("2 -> 3 [style=dashed"), "{dot}");
    assert!(dot.contains("4 -> 5 [color=red"), "{dot}");
    let lp = std::fs::read_to_string(&lp).unwrap();
    assert!(
        lp.contains("Maximize")
            && lp.contains("Subject To")
            && lp.contains("General")
            && lp.ends_with("End\n")
    );
    assert!(
        !lp.contains("y1_2 "),
        "the pruned edge 2 -> 3 has no variable"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let malformed = write(d, "m.dot", "digraph {\n  a [wcet=1]\n  a -> \n}\n");
    assert!(fails(&["wcet", &malformed])
        .contains("m.dot:4:1: expected a node id after '->', found '}'"));
    let no_bsb = write(d, "b.dot", "digraph { a [wcet=1 kind=branch]; b [wcet=1]; c [wcet=1]; d [wcet=1]; a -> b; a -> c; b -> d; c -> d }");
    assert!(fails(&["wcet", &no_bsb])
        .contains("branch 'a' must have two successors, exactly one of them its BSB"));
    let unbounded = write(
        d,
        "c.dot",
        "digraph { a [wcet=1]; b [wcet=1]; c [wcet=1]; d [wcet=1]; a -> b -> c -> b; c -> d }",
    );
    assert!(fails(&["wcet", &unbounded])
        .contains("loop with header 'b' (back edge from 'c') has no bound"));
    let cfg = write(d, "g.toml", "N_CU = 4\nN_SIMD = 4\nN_WFC = 10\nN_WIWF = 64\nS = 2\ne_s = 1\ne_m = 1\nd = 1\nspsimds = 3\n");
    assert!(fails(&["wcet", FIG8, "--config", &cfg]).contains("unknown field `spsimds`"));
    assert!(fails(&["wcet", "no/such/file.dot"]).contains("no/such/file.dot"));
    let other = write(d, "x.txt", "");
    assert!(fails(&["wcet", &other]).contains("unknown input type"));
    let bad_asm = write(
        d,
        "k.s",
        "    s_cbranch_execz L\n    s_nop 0\nL:\n    s_endpgm\n",
    );
    assert!(
        fails(&["wcet", &bad_asm]).contains("s_cbranch_execz without its if/else exec-mask idiom")
    );
    let out = d.join("o.s").display().to_string();
    assert!(fails(&["compile", &bad_asm, "-o", &out])
        .contains("s_cbranch_execz without its if/else exec-mask idiom"));
}

#[test]
fn compile_then_wcet_on_a_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "k.s",
        "k:\n    v_cmp_gt_i32_e32 vcc, 26, v3\n    s_and_saveexec_b64 s[0:1], vcc\n    s_cbranch_execz END\n    v_mul_lo_u32 v2, v3, 3\nEND:\n    s_or_b64 exec, exec, s[0:1]\n    s_endpgm\n",
    );
    let out = dir.path().join("out.s").display().to_string();
    let r = pws(&["compile", &src, "-o", &out, "--split-all"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("    split vcc_lo, vcc_hi\n    s_cbranch_execz END\n"),
        "{text}"
    );
    assert!(
        text.contains("    s_or_b64 exec, exec, s[0:1]\n    merge\n"),
        "{text}"
    );
    let r = json(&["wcet", &out, "--S", "1", "--json"]);
    assert_eq!(r["selected"], serde_json::json!(["k"]));
    // Path 2 of an if without else is empty: the split wavefront's worst case is path 1.
    assert_eq!(
        r["removed_edges"],
        serde_json::json!([["END.bsb", "END.else"]])
    );
}

#[test]
fn launch_manifest_gives_the_kernel_and_the_launch() {
    // kernels/figure2.toml: the paper's Figure 2 kernel, one workgroup of 4 work-items, with
    // `split` before BB1, BB2 and BB7 (nested BB1/BB2, BB7 reusing a context).
    let r = json(&["wcet", "kernels/figure2.toml", "--S", "2", "--json"]);
    assert_eq!(r["selected"], serde_json::json!(["BB1", "BB2", "BB7"]));
    assert_eq!(r["count"], 2);
    assert_eq!(r["ds"]["pws"], 1);
    // The kernel names s0..s17: a split copies 18 SGPRs, 8 per cycle, after 2 fixed cycles.
    assert_eq!(r["e_s"], 2 + 3);
    assert_eq!(r["e_m"], 1);
    // Lemma 5.1 charges every selected split: E_WF = IPET(C_out) + |SB| (e_s + e_m).
    let ipet = r["ipet"]["pws"].as_u64().unwrap();
    assert_eq!(r["e_wf"]["pws"].as_u64().unwrap(), ipet + 3 * (5 + 1));
    assert!(ipet < r["ipet"]["nosplit"].as_u64().unwrap());
    // With the paper's unit split and merge costs splitting pays off on this kernel.
    let unit = json(&[
        "wcet",
        "kernels/figure2.toml",
        "--S",
        "2",
        "--es",
        "1",
        "--em",
        "1",
        "--json",
    ]);
    assert!(unit["pws"].as_u64() < unit["nosplit"].as_u64());
}

#[test]
fn figure2_serialized_20_split_13() {
    let r = json(&[
        "wcet",
        "kernels/cfg/figure2.dot",
        "--S",
        "2",
        "--es",
        "0",
        "--em",
        "0",
        "--json",
    ]);
    assert_eq!(r["e_wf"]["nosplit"], 20);
    assert_eq!(r["e_wf"]["pws"], 13);
    assert_eq!(r["selected"], serde_json::json!(["BB1", "BB2", "BB7"]));
    assert_eq!(r["count"], 2);
}
