//! Launch sequences end to end (docs/manifest.md, "Launch sequences"): a two-kernel OpenCL
//! program repeated until a flag stays zero, through `pws golden`, `run`, `wcet` and
//! `compare`: the launches chain their memory, the RTL's cycles are the launches' sum, the
//! sequence's bound is `max` times the launches' bounds and holds, and a repetition that
//! does not finish, or a bad launch table, is an error naming the file and the key.

mod common;

use std::path::Path;

use common::{json, pws_err, pws_ok};

/// `grow` raises each a[i] below i by one and sets `over`; `copy` mirrors a into b. From
/// zeros, a pass per step: a = [0, 1, .., 5] after 6 passes (the last leaves `over` zero).
const SOURCE: &str = r#"
__kernel void grow(__global int *a, __global int *over, int n) {
  int i = get_global_id(0);
  if (i < n && a[i] < i) {
    a[i] += 1;
    *over = 1;
  }
}

__kernel void copy(__global const int *a, __global int *b, int n) {
  int i = get_global_id(0);
  if (i < n)
    b[i] = a[i];
}
"#;

fn manifest(max: u32) -> String {
    format!(
        r#"kernel = "seq.cl"
grid = 64
workgroup = 64

[[buffer]]
name = "a"
type = "i32"
len = 6
expect = [0, 1, 2, 3, 4, 5]

[[buffer]]
name = "b"
type = "i32"
len = 6
expect = [0, 1, 2, 3, 4, 5]

[[buffer]]
name = "over"
type = "i32"
len = 1

[[launch]]
entry = "grow"
args = ["a", "over", 6]

[[launch]]
entry = "copy"
args = ["a", "b", 6]

[repeat]
until_zero = "over"
reset = ["over"]
max = {max}
"#
    )
}

fn write(dir: &Path, max: u32) -> String {
    std::fs::write(dir.join("seq.cl"), SOURCE).unwrap();
    let path = dir.join("seq.toml");
    std::fs::write(&path, manifest(max)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_sequence_runs_on_the_golden_model_and_the_rtl_within_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), 8);

    let golden = pws_ok(&["golden", &m, "--mode", "nosplit"]);
    assert!(golden.contains("pass 5 launch 1: seq.cl:copy"), "{golden}");
    assert!(!golden.contains("pass 6"), "{golden}");

    let vcd = dir.path().join("w.vcd");
    let run = json(&[
        "run",
        &m,
        "--mode",
        "nosplit",
        "--vcd",
        vcd.to_str().unwrap(),
        "--json",
    ]);
    let launches = run["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 12, "six passes of two launches");
    let sum: u64 = launches
        .iter()
        .map(|l| l["report"]["cycles"].as_u64().unwrap())
        .sum();
    assert_eq!(run["cycles"].as_u64(), Some(sum));
    let last = &launches[11]["report"]["buffers"];
    assert_eq!(last["b"], serde_json::json!([0, 1, 2, 3, 4, 5]), "{last}");
    for (pass, launch) in [(0, 0), (5, 1)] {
        let f = dir.path().join(format!("w-{pass}-{launch}.vcd"));
        assert!(f.metadata().unwrap().len() > 0, "{}", f.display());
    }

    let wcet = json(&["wcet", &m, "--mode", "nosplit", "--json"]);
    let per_launch: u64 = wcet["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["modes"][0]["bound"].as_u64().unwrap())
        .sum();
    let bound = wcet["bound"]["nosplit"].as_u64().unwrap();
    assert_eq!(bound, 8 * per_launch);
    assert!(bound >= sum, "bound {bound} below the RTL's {sum} cycles");

    let rows = json(&[
        "compare",
        &m,
        "--mode",
        "nosplit",
        "--compaction",
        "none",
        "--json",
    ]);
    let row = &rows[0];
    assert_eq!(row["cycles"].as_u64(), Some(sum), "{row}");
    assert_eq!(row["bound"].as_u64(), Some(bound), "{row}");
    for check in ["golden_equal", "unsplit_equal", "expect_equal"] {
        assert_eq!(row[check], true, "{check}: {row}");
    }
}

#[test]
fn an_unfinished_repetition_and_bad_launch_tables_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(dir.path(), 3);
    for cmd in ["golden", "run"] {
        let e = pws_err(&[cmd, &m, "--mode", "nosplit"]);
        assert!(
            e.contains("did not finish") && e.contains("after 3 passes") && e.contains("`over`"),
            "{cmd}: {e}"
        );
    }
    let path = dir.path().join("seq.toml");
    std::fs::write(
        &path,
        manifest(8).replace("args = [\"a\", \"b\", 6]", "args = [\"c\"]"),
    )
    .unwrap();
    let e = pws_err(&["wcet", path.to_str().unwrap()]);
    assert!(
        e.contains("seq.toml:") && e.contains("launch[1].args[0]"),
        "{e}"
    );
}
