//! `pws wcet` and `pws compile` end to end: the Figure 8 numbers (design.md decision 7), the
//! JSON contract (decision 9), the Graphviz and LP outputs, and bad input (exit 1, no panic).

use std::path::Path;

mod common;

use common::{json, pws, pws_ok, pws_stderr_ok};

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
    let e = fails(&["wcet", &unbounded]);
    assert!(e.contains("loop with header 'b' (back edge from 'c') has no bound"));
    // A CFG has no arguments a launch could give.
    assert!(!e.contains("launch manifest, whose arguments"), "{e}");
    // A launch whose arguments do not bound the loop says so, instead of asking for one.
    let collatz = std::fs::read_to_string("kernels/cl/collatz.cl")
        .unwrap()
        .replace("PWS_LOOP_BOUND(64);", "")
        .replace(" && s < 64", "");
    write(d, "collatz.cl", &collatz);
    let m = write(
        d,
        "collatz.toml",
        "kernel = \"collatz.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\", 64]\n[[buffer]]\nname = \"in\"\ntype = \"u32\"\nlen = 64\n[[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 64\n",
    );
    let e = fails(&["wcet", &m]);
    assert!(
        e.contains("has no bound; annotate the header")
            && e.ends_with("this launch's arguments and workgroup size do not bound it\n"),
        "{e}"
    );
    let e = fails(&["wcet", &d.join("collatz.cl").to_string_lossy()]);
    assert!(
        e.contains("or analyse a launch manifest, whose arguments"),
        "{e}"
    );
    let cfg = write(d, "g.toml", "N_CU = 4\nN_SIMD = 4\nN_WFC = 10\nN_WIWF = 64\nS = 2\ne_s = 1\ne_m = 1\nd = 1\nspsimds = 3\n");
    assert!(fails(&["wcet", FIG8, "--config", &cfg]).contains("unknown field `spsimds`"));
    assert!(fails(&["wcet", "no/such/file.dot"]).contains("no/such/file.dot"));
    let other = write(d, "x.txt", "");
    assert!(fails(&["wcet", &other]).contains("unknown input type"));
    // A cycle entered at two blocks (irreducible) has no loop header to bound or split at:
    // pws copies the code from the second entry to the first, with a warning, and then asks
    // for the loop's bound.
    let bad_asm = write(
        d,
        "k.s",
        "k:\n    s_cmp_eq_u32 s0, 0\n    s_cbranch_scc0 B\nA:\n    s_nop 0\nB:\n    s_nop 0\n    s_cbranch_scc1 A\n    s_endpgm\n",
    );
    let copied = "k.s:7: the loop at this line is also entered at line 5; pws runs a copy of the 1 instruction(s) from there to it, so that the loop has one entry";
    let out = pws(&["wcet", &bad_asm]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(copied) && err.contains("loop with header 'B' (line 7)"),
        "{err}"
    );
    let bounded = write(
        d,
        "b.s",
        &std::fs::read_to_string(&bad_asm)
            .unwrap()
            .replace("A:\n", "; pws: loop_bound 4\nA:\n"),
    );
    let out = d.join("o.s").display().to_string();
    let compiled = pws_stderr_ok(&["compile", &bounded, "-o", &out]);
    assert!(
        compiled.contains(&copied.replace("k.s:7", "b.s:8").replace("line 5", "line 6")),
        "{compiled}"
    );
    assert!(pws_ok(&["wcet", &out]).contains("WCET bounds"));
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
    // An if without else gains nothing from a split: --split-all leaves it and says why.
    let skipped = pws_ok(&["compile", &src, "-o", &out, "--split-all"]);
    assert!(
        skipped.contains(&format!("left serialized: k ({src}:4): an if without else")),
        "{skipped}"
    );
    assert!(!std::fs::read_to_string(&out).unwrap().contains("split"));
    // Marked, it splits: the user asked for it.
    let marked = src.replace(".s", "_marked.s");
    std::fs::write(
        &marked,
        std::fs::read_to_string(&src).unwrap().replace(
            "    s_cbranch_execz END",
            "    ; pws: split\n    s_cbranch_execz END",
        ),
    )
    .unwrap();
    pws_ok(&["compile", &marked, "-o", &out]);
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
    assert_eq!(r["removed_edges"], serde_json::json!([["k.bsb", "k.else"]]));
}

/// The entry of `mode` in a launch report.
fn mode<'a>(r: &'a serde_json::Value, mode: &str) -> &'a serde_json::Value {
    r["modes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mode"] == mode)
        .unwrap_or_else(|| panic!("no {mode} in {r}"))
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn launch_manifest_is_bounded_on_the_compute_unit() {
    // kernels/figure2.toml: the paper's Figure 2 kernel, one workgroup of 4 work-items, with
    // `split` before BB1, BB2 and BB7 (nested BB1/BB2, BB7 reusing a context).
    let r = json(&["wcet", "kernels/figure2.toml", "--S", "2", "--json"]);
    assert_eq!(r["rounds"]["workgroups"], 1);
    assert_eq!(r["rounds"]["round_wavefronts"], serde_json::json!([1]));
    assert_eq!(r["machine"]["cu"]["spsimds"], 2);
    let modes: Vec<&str> = r["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["nosplit", "dws", "pws"]);
    let d = &r["dispatch_cost"];
    let fixed = u(&d["start"]) + u(&d["drain"]) + u(&d["per_wavefront"]) + u(&d["release"]);
    for m in ["nosplit", "dws", "pws"] {
        let b = mode(&r, m);
        assert_eq!(u(&b["bound"]), fixed + u(&b["per_wavefront"]), "{m}");
        // The RTL's block list: ascending PCs from the entry, tiling the program.
        let blocks = b["blocks"].as_array().unwrap();
        assert_eq!(blocks[0]["pc"], 0);
        assert_eq!(blocks[0]["node"], "BB1");
        for w in blocks.windows(2) {
            assert!(u(&w[0]["last_pc"]) < u(&w[1]["pc"]), "{m}: {w:?}");
        }
        // One wavefront alone: nothing competes in the no-split mode.
        if m == "nosplit" {
            assert_eq!(
                b["competition"],
                serde_json::json!({"issue": 0, "valu": 0, "lsu": 0, "lsu_hold": 0, "split_merge": 0})
            );
        }
    }
    let pws = mode(&r, "pws");
    assert_eq!(pws["selected"], serde_json::json!(["BB1", "BB2", "BB7"]));
    assert_eq!(pws["count"], 2);
    // The kernel names s0..s17: a split copies 18 SGPRs, 8 per cycle, after 2 fixed cycles.
    assert_eq!(pws["e_s"], 2 + 3);
    assert_eq!(pws["e_m"], 1);
    // Lemma 5.1 charges every selected split: E_WF = IPET(C_out) + |SB| (e_s + e_m).
    assert_eq!(u(&pws["e_wf"]), u(&pws["ipet"]) + 3 * (5 + 1));
    assert_eq!(u(&pws["per_wavefront"]), u(&pws["e_wf"]));
    // Between a split and its merge the parent and its two children share the memory port;
    // figure2's loads come before the first split and its store after the last merge.
    assert_eq!(pws["competition"]["lsu"], 0);
    assert_eq!(pws["competition_in_split"]["lsu"], 2);
    assert_eq!(pws["contexts_per_wavefront"], 3);
    // DWS: the split wavefronts share the SIMD, so the wavefront takes at most their work,
    // each instruction once; Lemma 5.7's (S + 1) E_WF^DWS on request.
    let dws = mode(&r, "dws");
    assert_eq!(dws["dws_bound"], "serialized");
    assert_eq!(u(&dws["per_wavefront"]), u(&dws["e_wf"]));
    let lemma = json(&[
        "wcet",
        "kernels/figure2.toml",
        "--S",
        "2",
        "--mode",
        "dws",
        "--dws-bound",
        "lemma-5.7",
        "--json",
    ]);
    let lemma = mode(&lemma, "dws");
    assert_eq!(lemma["dws_bound"], "lemma-5.7");
    assert_eq!(u(&lemma["per_wavefront"]), 3 * u(&lemma["e_wf"]));
    assert!(u(&lemma["bound"]) > u(&dws["bound"]));
    // The first block ends in `split s8, s9`: in PWS it reads its SGPR pair (one cycle) and
    // takes e_s; in no-split it is a no-op. Merge blocks are sync.
    // (With S = 0 nothing competes in either mode.)
    let s0 = json(&["wcet", "kernels/figure2.toml", "--S", "0", "--json"]);
    let split_block = |m: &str| {
        mode(&s0, m)["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["pc"] == 0)
            .map(|b| u(&b["wcet"]))
            .unwrap()
    };
    let (tp, tn) = (&mode(&s0, "pws")["table"], &mode(&s0, "nosplit")["table"]);
    assert_eq!(
        split_block("pws") - split_block("nosplit"),
        u(&tp["split"]) + u(&tp["per_sgpr_read"]) + 5 - u(&tn["nop"])
    );
    assert!(pws["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["sync"] == true));

    let one = json(&[
        "wcet",
        "kernels/figure2.toml",
        "--mode",
        "pws",
        "--S",
        "2",
        "--json",
    ]);
    assert_eq!(one["modes"].as_array().unwrap().len(), 1);
    assert_eq!(mode(&one, "pws")["bound"], pws["bound"]);
    // The kernel alone keeps the paper's formulas; with unit split and merge costs splitting
    // pays off.
    let unit = json(&[
        "wcet",
        "kernels/figure2.s",
        "--S",
        "2",
        "--es",
        "1",
        "--em",
        "1",
        "--json",
    ]);
    assert!(unit["pws"].as_u64() < unit["nosplit"].as_u64());
    let text = pws_ok(&["wcet", "kernels/figure2.toml"]);
    assert!(
        text.contains("selected split points (SB, peak 2 live): BB1, BB2, BB7"),
        "{text}"
    );
}

#[test]
fn launch_rounds_follow_the_slots() {
    // vecadd: 300 work-items in workgroups of 128 = 2 + 2 + 1 wavefronts.
    // The gcn3 preset has 40 slots: all at once.
    let gcn3 = json(&[
        "wcet",
        "kernels/vecadd.toml",
        "--config",
        "gcn3",
        "--mode",
        "nosplit",
        "--json",
    ]);
    assert_eq!(gcn3["rounds"]["round_wavefronts"], serde_json::json!([5]));
    assert_eq!(gcn3["rounds"]["workgroups_per_round"], 20);
    // vecadd names v0..v5: 8 VGPRs of a 256-register VRF, so all 10 slots of a SIMD.
    assert_eq!(gcn3["vgprs"], 6);
    assert_eq!(gcn3["machine"]["n_wfc"], 10);
    // The `cu` preset (the default) has 2 slots: one workgroup at a time.
    let cu = json(&["wcet", "kernels/vecadd.toml", "--mode", "nosplit", "--json"]);
    assert_eq!(
        cu["rounds"]["round_wavefronts"],
        serde_json::json!([2, 2, 1])
    );
    assert_eq!(cu["machine"]["cu"]["mem_latency"], 8);
    let b = mode(&cu, "nosplit");
    let d = &cu["dispatch_cost"];
    // A workgroup fills the 2 slots: each round runs alone, and the last one's single
    // wavefront meets no competitor.
    let rounds: Vec<u64> = b["per_round"].as_array().unwrap().iter().map(u).collect();
    assert_eq!(rounds[0], u(&b["per_wavefront"]));
    assert_eq!(rounds[1], rounds[0]);
    assert!(rounds[2] < rounds[0]);
    assert_eq!(
        u(&b["bound"]),
        u(&d["start"])
            + u(&d["drain"])
            + 5 * u(&d["per_wavefront"])
            + 3 * u(&d["release"])
            + rounds.iter().sum::<u64>()
    );
    // The other wavefront's interference is the smaller of the per-instruction charge and
    // what it holds of the issue unit and the LSU over its run.
    let o = &b["occupancy"];
    assert_eq!(u(&o["overlapping_wavefronts"]), 1);
    assert_eq!(
        u(&b["per_wavefront"]),
        u(&o["base"])
            + u(&o["issue_waits"]).min(u(&o["issue_held"]))
            + u(&o["lsu_waits"]).min(u(&o["lsu_held"]))
    );
    // Two wavefronts of a workgroup compete for the issue unit, its SIMD (at most the op the
    // issue unit handed over before) and the memory port, each holding the LSU at most for the
    // kernel's longest memory instruction.
    assert_eq!(
        b["competition"],
        serde_json::json!({"issue": 1, "valu": 1, "lsu": 1, "lsu_hold": 12, "split_merge": 0})
    );
    // A configuration file overrides the preset it names.
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "cu.toml", "preset = \"cu\"\nmem_latency = 20\n");
    let slow = json(&[
        "wcet",
        "kernels/vecadd.toml",
        "--config",
        &cfg,
        "--mode",
        "nosplit",
        "--json",
    ]);
    assert_eq!(slow["machine"]["cu"]["mem_latency"], 20);
    assert!(u(&mode(&slow, "nosplit")["bound"]) > u(&b["bound"]));
}

#[test]
fn bad_launch_options_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let one_slot = write(
        dir.path(),
        "one.toml",
        "preset = \"cu\"\nwf_contexts_per_simd = 1\n",
    );
    assert!(
        fails(&["wcet", "kernels/divergent64.toml", "--config", &one_slot])
            .contains("needs 2 wavefront slots; the compute unit has 1")
    );
    let typo = write(dir.path(), "typo.toml", "mem_latncy = 3\n");
    assert!(fails(&["wcet", "kernels/figure2.toml", "--config", &typo])
        .contains("unknown key `mem_latncy`"));
    let renamed = write(dir.path(), "old.toml", "vgprs_per_wavefront = 64\n");
    assert!(
        fails(&["wcet", "kernels/figure2.toml", "--config", &renamed])
            .contains("`vgprs_per_wavefront` is now `vgprs_per_simd`")
    );
    assert!(fails(&["wcet", "kernels/figure2.toml", "--config", "nope"])
        .contains("gcn3, small, figure5, cu"));
    assert!(
        fails(&["wcet", "kernels/figure2.toml", "--config", "figure5"])
            .contains("wavefronts of 64 work-items")
    );
    assert!(fails(&["wcet", "kernels/figure2.toml", "--ds", "1"])
        .contains("--ds does not apply to a launch manifest"));
    assert!(fails(&["wcet", FIG8, "--mode", "pws"])
        .contains("--mode and --observed apply to a launch manifest"));
    assert!(fails(&["wcet", "kernels/figure2.toml", "--S", "9"])
        .contains("--S 9 is out of range 0..=7 (SpSIMDs per SIMD)"));
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

#[test]
fn observed_runs_give_the_tightness_and_check_the_blocks() {
    let r = json(&["wcet", "kernels/figure2.toml", "--mode", "pws", "--json"]);
    let b = mode(&r, "pws");
    let bound = u(&b["bound"]);
    let first = &b["blocks"][0];
    let dir = tempfile::tempdir().unwrap();
    // What `pws run --json` prints, reduced to what the comparison reads.
    let run = |name: &str, cycles: u64, block: u64, mode: &str| {
        write(
            dir.path(),
            name,
            &serde_json::json!({
                "mode": mode, "s": 3, "compaction": "none", "cycles": cycles,
                "blocks": [{"pc": first["pc"], "max_cycles": block, "executions": 1}]
            })
            .to_string(),
        )
    };
    let ok = run("ok.json", bound / 2, u(&first["wcet"]), "pws");
    let r = json(&[
        "wcet",
        "kernels/figure2.toml",
        "--mode",
        "pws",
        "--observed",
        &ok,
        "--json",
    ]);
    let o = &r["observed"][0];
    assert_eq!((u(&o["bound"]), u(&o["observed"])), (bound, bound / 2));
    assert!((o["ratio"].as_f64().unwrap() - bound as f64 / (bound / 2) as f64).abs() < 1e-9);
    assert_eq!(o["blocks_over"], serde_json::json!([]));
    let text = pws_ok(&[
        "wcet",
        "kernels/figure2.toml",
        "--mode",
        "pws",
        "--observed",
        &ok,
    ]);
    assert!(text.contains("observed") && text.contains("x\n"), "{text}");
    // A run above its bound, or a block above its WCET, is an error.
    let slow = run("slow.json", bound + 1, 1, "pws");
    assert!(
        fails(&["wcet", "kernels/figure2.toml", "--observed", &slow])
            .contains("exceeded the bound or a block's WCET in")
    );
    let block = run("block.json", 1, u(&first["wcet"]) + 1, "pws");
    let out = pws(&["wcet", "kernels/figure2.toml", "--observed", &block]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("above its WCET"));
    // The run must match the bound's mode and S.
    let dws = run("dws.json", 1, 1, "dws");
    assert!(fails(&[
        "wcet",
        "kernels/figure2.toml",
        "--mode",
        "pws",
        "--observed",
        &dws
    ])
    .contains("a dws run, but the bound was computed for another --mode"));
    assert!(fails(&[
        "wcet",
        "kernels/figure2.toml",
        "--S",
        "2",
        "--observed",
        &ok
    ])
    .contains("the run had S = 3, the bound is for S = 2"));
    let junk = write(dir.path(), "junk.json", "{}");
    assert!(
        fails(&["wcet", "kernels/figure2.toml", "--observed", &junk])
            .contains("not a `pws run --json` report")
    );
}

/// `depth` loops nested inside each other, each with bound `bound`: header h_i and latch l_i
/// cost 1 cycle, the entry and the exit too.
fn nested_loops(depth: usize, bound: u64) -> String {
    let mut s = String::from("digraph {\n  e [wcet=1]; x [wcet=1];\n");
    for i in 0..depth {
        s += &format!("  h{i} [wcet=1 loop_bound={bound}]; l{i} [wcet=1];\n");
    }
    s += "  e -> h0;\n";
    for i in 0..depth - 1 {
        s += &format!("  h{i} -> h{};\n", i + 1);
    }
    s += &format!("  h{} -> l{};\n", depth - 1, depth - 1);
    for i in (1..depth).rev() {
        s += &format!("  l{i} -> h{i}; l{i} -> l{};\n", i - 1);
    }
    s += "  l0 -> h0; l0 -> x;\n}\n";
    s
}

#[test]
fn exact_integers_at_any_depth_and_solver_trouble_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 37 nested loops of bound 2 (microlp: "Singular matrix"): h_i and l_i run 2^(i+1) times,
    // so E_WF = 2 + 4 (2^37 - 1) and E_kernel = d + E_WF = 2^39 - 1.
    let n37 = write(d, "n37.dot", &nested_loops(37, 2));
    let r = json(&["wcet", &n37, "--json"]);
    assert_eq!(r["nosplit"].as_u64(), Some((1 << 39) - 1));
    assert_eq!(r["ipet_method"], "structural");
    assert_eq!(r["notes"], serde_json::json!([]));
    // Asking for the ILP as well: whatever microlp answers, the certified bound stands and the
    // report says what went wrong.
    let r = json(&["wcet", &n37, "--ipet", "ilp", "--json"]);
    assert_eq!(r["nosplit"].as_u64(), Some((1 << 39) - 1));
    if r["ipet_method"] != "ilp" {
        let notes = r["notes"].to_string();
        assert!(notes.contains("microlp"), "{notes}");
    }
    // A bound of 2^34 (microlp: "Unbounded").
    let big = write(d, "b34.dot", &nested_loops(1, 1 << 34));
    let r = json(&["wcet", &big, "--ipet", "ilp", "--json"]);
    assert_eq!(r["nosplit"].as_u64(), Some(1 + 2 + 2 * (1 << 34)));
    // Above 2^53, where floating point loses cycles: k = 2^30 + 7 twice nested gives
    // 2 + 2k + 2k^2 exactly.
    let k: u128 = (1 << 30) + 7;
    let deep = write(d, "b60.dot", &nested_loops(2, k as u64));
    let text = pws_ok(&["wcet", &deep, "--json"]);
    let want = 1 + 2 + 2 * k + 2 * k * k;
    assert!(want > 1 << 53);
    assert!(text.contains(&format!("\"nosplit\": {want},")), "{text}");
    // Beyond 2^64 the JSON still carries every digit: three levels of 2^30.
    let k: u128 = 1 << 30;
    let huge = write(d, "b90.dot", &nested_loops(3, k as u64));
    let text = pws_ok(&["wcet", &huge, "--json"]);
    let want = 1 + 2 + 2 * (k + k * k + k * k * k);
    assert!(want > 1 << 64);
    assert!(text.contains(&format!("\"nosplit\": {want},")), "{text}");
    // 50,000 nested loops (10^5 nodes) of bound 1.
    let wide = write(d, "n50k.dot", &nested_loops(50_000, 1));
    assert_eq!(json(&["wcet", &wide, "--json"])["nosplit"], 100_003);
    // Beyond 2^127 no integer holds the bound: a clear error.
    let over = write(d, "n200.dot", &nested_loops(200, 2));
    assert!(fails(&["wcet", &over]).contains("exceeds 2^127 cycles"));
}

#[test]
fn loops_with_several_latches_and_exits_in_any_layout() {
    let dir = tempfile::tempdir().unwrap();
    // for (h: 5 times) { a; if (..) continue; b; if (..) break; if (..) return; l }
    // written in scrambled order; a -> h is a second back edge, b -> x and b -> r are exits.
    let dot = write(
        dir.path(),
        "multi.dot",
        "digraph { l [wcet=7]; x [wcet=11]; b [wcet=5]; r [wcet=30]; a [wcet=3]; h [wcet=2 loop_bound=5]; e [wcet=1];
           b -> l -> h; a -> b; e -> h -> a; a -> h; b -> x; b -> r }",
    );
    let r = json(&["wcet", &dot, "--d", "0", "--json"]);
    // Four full iterations h a b l (17), the fifth leaves through the return (h a b r = 40).
    assert_eq!(r["e_wf"]["nosplit"], 1 + 4 * 17 + 40);
    let count = |name: &str| {
        r["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap()["count_nosplit"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(
        [count("h"), count("a"), count("l"), count("r"), count("x")],
        [5, 5, 4, 1, 0]
    );
    // Blocks are reported in the file's order.
    assert_eq!(r["blocks"][0]["name"], "l");
    // A missing bound names the header and both back edges.
    let unbounded = write(
        dir.path(),
        "u.dot",
        "digraph { e [wcet=1]; h [wcet=1]; a [wcet=1]; b [wcet=1]; x [wcet=1]; e -> h -> a -> b -> h; a -> h; b -> x }",
    );
    assert!(
        fails(&["wcet", &unbounded])
            .contains("loop with header 'h' (back edges from 'a', 'b') has no bound"),
        "{}",
        fails(&["wcet", &unbounded])
    );
}
