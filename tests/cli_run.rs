//! `pws run`: launches on the compute-unit RTL end to end (report, JSON, VCD, errors).

mod common;

use std::collections::{BTreeMap, HashMap};

use common::{json, pws_err, pws_ok, pws_stderr_ok};

const FIGURE2_OUT: [i64; 4] = [-15, 1025, 1090, 1204];

#[test]
fn figure2_gives_the_papers_output_in_every_mode_with_a_complete_report() {
    for mode in ["nosplit", "dws", "pws"] {
        let r = json(&["run", "kernels/figure2.toml", "--mode", mode, "--json"]);
        assert_eq!(common::buffer(&r, "out"), FIGURE2_OUT, "{mode}");
        let cycles = r["cycles"].as_u64().unwrap();
        let w = &r["wavefronts"][0];
        let (start, end) = (w["start"].as_u64().unwrap(), w["end"].as_u64().unwrap());
        assert!(
            start < end && end <= cycles,
            "{mode}: {w} in {cycles} cycles"
        );
        let blocks = r["blocks"].as_array().unwrap();
        assert!(blocks.len() > 5, "{mode}: {} blocks", blocks.len());
        assert!(
            blocks[0]["pc"].as_u64() == Some(0) && blocks[0]["max_cycles"].as_u64().unwrap() > 0
        );
        let u = r["lane_utilisation"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0, "{mode}: utilisation {u}");
        assert!(r["passes_skipped"].is_u64());
        let splits = r["splits"].as_u64().unwrap();
        assert_eq!(splits == 0, mode == "nosplit", "{mode}: {splits} splits");
    }
}

#[test]
fn compaction_skips_passes_of_the_four_lane_wavefront() {
    let none = json(&[
        "run",
        "kernels/figure2.toml",
        "--compaction",
        "none",
        "--json",
    ]);
    let scc = json(&[
        "run",
        "kernels/figure2.toml",
        "--compaction",
        "scc",
        "--S",
        "1",
        "--json",
    ]);
    assert_eq!(none["passes_skipped"].as_u64(), Some(0));
    assert!(scc["passes_skipped"].as_u64().unwrap() > 0);
    assert_eq!(scc["S"].as_u64(), Some(1));
    assert_eq!(scc["buffers"]["out"], none["buffers"]["out"]);
}

#[test]
fn the_human_report_shows_cycles_buffers_and_blocks() {
    let text = pws_ok(&["run", "kernels/figure2.toml", "--mode", "nosplit"]);
    assert!(
        text.contains("(nosplit, S = 3, compaction none, rust-hdl)"),
        "{text}"
    );
    assert!(text.contains("out i32[4]: -15 1025 1090 1204"), "{text}");
    assert!(
        text.contains("BB1") && text.contains("wavefronts"),
        "{text}"
    );
}

#[test]
fn the_vcd_has_the_hierarchy_of_the_compute_unit() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("f2.vcd");
    pws_ok(&[
        "run",
        "kernels/figure2.toml",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&vcd).unwrap();
    let header = &text[..text.find("$enddefinitions").expect("a VCD header")];
    for needle in [
        "$scope module slots$0 $end",
        "$scope module smu $end",
        "$scope module contexts$1 $end",
        "spm_lo",
        "issue_pc_o$0",
        "mem_req_o",
    ] {
        assert!(header.contains(needle), "no {needle} in the VCD header");
    }
    assert!(text.lines().filter(|l| l.starts_with('#')).count() > 100);
}

fn write_launch(dir: &std::path::Path, kernel: &str, grid: u32) -> String {
    std::fs::write(dir.join("k.s"), kernel).unwrap();
    let manifest = format!(
        "kernel = \"k.s\"\ngrid = {grid}\nworkgroup = {grid}\nargs = [\"out\"]\n\
         [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 4\n"
    );
    let path = dir.join("k.toml");
    std::fs::write(&path, manifest).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn an_out_of_bounds_store_stops_with_its_address_and_pc() {
    let dir = tempfile::tempdir().unwrap();
    let launch = write_launch(
        dir.path(),
        "k:\n  v_mov_b32_e32 v1, 0x40\n  v_mov_b32_e32 v2, 0\n  flat_store_dword v[1:2], v0\n  s_endpgm\n",
        4,
    );
    let e = pws_err(&["run", &launch]);
    assert!(
        e.lines().any(|l| l.starts_with("error: memory fault")),
        "{e}"
    );
    assert!(
        e.contains("0x40") && e.contains("pc 0x0008") && e.contains("flat_store_dword"),
        "{e}"
    );
}

/// A divergent branch whose then-path holds `s_barrier`: `split` goes on line 4, right before the
/// branch, and `merge` right after the EXEC restore.
fn barrier_on_the_then_path(split: &str, merge: &str) -> String {
    format!(
        "k:\n  v_cmp_gt_u32_e64 s[8:9], 2, v0\n  s_and_saveexec_b64 s[10:11], s[8:9]\n  {split}\n  \
         s_cbranch_execz JOIN\n  s_barrier\nJOIN:\n  s_or_b64 exec, exec, s[10:11]\n  {merge}\n  \
         s_endpgm\n"
    )
}

#[test]
fn a_split_marked_around_a_barrier_runs_serialized_and_compile_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = barrier_on_the_then_path("; pws: split", "");
    let launch = write_launch(dir.path(), &kernel, 4);
    // Running needs no split: the marked branch stays serialized and the run says why.
    let e = pws_stderr_ok(&["run", &launch, "--mode", "pws"]);
    assert!(
        e.contains("warning: the marked split at k (line 5) is left serialized: its divergent region holds `s_barrier` (line 6)"),
        "{e}"
    );
    assert!(!e.contains("has no `split`"), "one warning says it: {e}");
    // `pws compile` is asked for the split itself, so it refuses with both lines.
    let out = dir.path().join("out.s");
    let e = pws_err(&[
        "compile",
        dir.path().join("k.s").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        e.contains("k.s:5: the marked split at k changes what the kernel computes: its divergent region holds `s_barrier` (line 6)"),
        "{e}"
    );
    // DWS splits every divergent branch it can: this one runs serialized, to the end.
    pws_ok(&["run", &launch, "--mode", "dws"]);
}

#[test]
fn a_context_that_can_never_continue_is_a_deadlock_with_the_stuck_pcs() {
    let dir = tempfile::tempdir().unwrap();
    // The creator takes the then-path and waits at s_barrier; its split context skips it
    // and waits at the merge for its parent. (`pws compile` refuses to split around a barrier,
    // so the kernel carries its own split and merge, which `pws run` takes as written.)
    let kernel = barrier_on_the_then_path("split s8, s9", "merge");
    let launch = write_launch(dir.path(), &kernel, 4);
    let e = pws_err(&["run", &launch, "--watchdog", "300"]);
    assert!(e.lines().any(|l| l.starts_with("error: deadlock")), "{e}");
    assert!(
        e.contains("slot 0 context 0 at pc 0x0014 (`s_barrier`)"),
        "{e}"
    );
    assert!(
        e.contains("waits at merge for its parent, context 0"),
        "{e}"
    );
}

#[test]
fn the_cycle_cap_stops_the_run() {
    let e = pws_err(&["run", "kernels/figure2.toml", "--max-cycles", "40"]);
    assert!(
        e.contains("cycle cap of 40 reached") && e.contains("slot 0 context 0"),
        "{e}"
    );
}

#[test]
fn bad_inputs_are_clear_errors() {
    let e = pws_err(&["run", "kernels/nope.toml"]);
    assert!(e.starts_with("error:") && e.contains("nope.toml"), "{e}");
    let e = pws_err(&["run", "kernels/figure2.toml", "--config", "nope"]);
    assert!(e.contains("nope") && e.contains("preset"), "{e}");
    let e = pws_err(&["run", "kernels/collatz.toml"]);
    assert!(e.contains("4 wavefronts") && e.contains("only 2"), "{e}");
}

/// The rust-hdl and Verilator engines report the same run: cycles, buffers, statistics,
/// residency, block and instruction times (everything but the engine and the speed), on the
/// co-simulation tests' configuration (one Verilator model, tests/cu_cosim.rs).
#[test]
fn both_engines_give_the_same_report() {
    let report = |engine: &str| {
        let mut r = json(&[
            "run",
            "kernels/divergent64.toml",
            "--config",
            "kernels/hw/cosim.toml",
            "--compaction",
            "scc",
            "--engine",
            engine,
            "--json",
        ]);
        assert_eq!(r["engine"], engine);
        let fields = r.as_object_mut().unwrap();
        fields.remove("engine");
        fields.remove("cycles_per_second");
        r
    };
    let rust_hdl = report("rust-hdl");
    assert!(rust_hdl["splits"].as_u64().unwrap() > 0, "{rust_hdl}");
    assert_eq!(report("verilator"), rust_hdl);
}

/// Each variable directly in scope `path` of the VCD at `file`: its values (as integers) at the
/// times they changed.
fn changes(file: &std::path::Path, path: &[&str]) -> BTreeMap<String, Vec<(u64, u64)>> {
    let text = std::fs::read(file).unwrap();
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    let scope = header
        .find_scope(path)
        .unwrap_or_else(|| panic!("no scope {path:?}"));
    let mut names = HashMap::new();
    for item in &scope.items {
        if let vcd::ScopeItem::Var(v) = item {
            names.insert(v.code, v.reference.clone());
        }
    }
    let value = |bits: &mut dyn Iterator<Item = vcd::Value>| {
        bits.fold(0u64, |acc, b| acc << 1 | u64::from(b == vcd::Value::V1))
    };
    let mut out: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let mut time = 0;
    for command in parser {
        let (code, v) = match command.unwrap() {
            vcd::Command::Timestamp(t) => {
                time = t;
                continue;
            }
            vcd::Command::ChangeScalar(code, v) => (code, value(&mut std::iter::once(v))),
            vcd::Command::ChangeVector(code, v) => (code, value(&mut v.iter())),
            _ => continue,
        };
        if let Some(name) = names.get(&code) {
            let timeline = out.entry(name.clone()).or_default();
            if timeline.last().is_none_or(|&(_, last)| last != v) {
                timeline.push((time, v));
            }
        }
    }
    out
}

/// The Verilator engine's waveform has every port of the compute unit with the values rust-hdl's
/// has, changing at the same times (internal signals keep each simulator's own names; the
/// enumerated ports are left out: rust-hdl writes them as names). On `kernels/hw/vcd.toml`, the
/// smallest unit that splits Figure 2: a traced model is a Verilator build of its own.
#[test]
fn the_verilator_engines_vcd_has_rust_hdls_port_values_at_rust_hdls_times() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = |engine: &str| {
        let path = dir.path().join(format!("{engine}.vcd"));
        pws_ok(&[
            "run",
            "kernels/figure2.toml",
            "--config",
            "kernels/hw/vcd.toml",
            "--engine",
            engine,
            "--vcd",
            path.to_str().unwrap(),
        ]);
        path
    };
    let verilator = changes(&vcd("verilator"), &["TOP"]);
    let rust_hdl = changes(&vcd("rust-hdl"), &["uut"]);
    let enums = ["mode_i", "compaction_i", "error_code_o", "dbg_state_o"];
    let mut compared = 0;
    for (port, timeline) in &verilator {
        if enums.contains(&port.as_str()) {
            continue;
        }
        let theirs = rust_hdl
            .get(port)
            .unwrap_or_else(|| panic!("rust-hdl's VCD has no {port}"));
        assert_eq!(timeline, theirs, "{port}");
        compared += 1;
    }
    assert!(compared > 150, "{compared} ports compared");
    assert!(
        verilator["mem_req_o"].len() > 4,
        "{:?}",
        verilator["mem_req_o"]
    );
}
