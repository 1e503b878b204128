//! OpenCL C input end to end: a manifest naming a `.cl` file is compiled by clang-14 and runs;
//! compiler errors, a missing compiler, a wrong `entry` and misplaced flags are clear errors;
//! `PWS_SPLIT()` splits, and PWS without any split says so.

mod common;

use common::{command, json, pws_err, pws_ok};

const TWO_KERNELS: &str = r#"
__kernel void first(__global int *out) {
  out[__builtin_amdgcn_workitem_id_x()] = 1;
}
__kernel void second(__global const int *in, __global int *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  int x = in[i], r;
  PWS_SPLIT();
  if (x & 1) {
    r = x * 3 + 1; r ^= r << 3; r += x >> 2; r *= 7; r -= i; r ^= 0x55; r += x * x;
  } else {
    r = x >> 1; r ^= r << 5; r -= x; r *= 9; r += i; r ^= 0xaa; r -= x * x;
  }
  out[i] = r;
}
"#;

fn launch(dir: &std::path::Path, kernel: &str, extra: &str) -> String {
    std::fs::write(dir.join("k.cl"), kernel).unwrap();
    let m = format!(
        "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\"]\n{extra}\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 64\n",
        (0..64)
            .map(|v| (v * 37 % 101).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let path = dir.join("k.toml");
    std::fs::write(&path, m).unwrap();
    path.to_str().unwrap().to_string()
}

fn expected() -> Vec<i64> {
    (0..64i64)
        .map(|i| {
            let x = (i * 37 % 101) as i32;
            let i = i as i32;
            let r = if x & 1 != 0 {
                let mut r = x.wrapping_mul(3) + 1;
                r ^= r << 3;
                r += x >> 2;
                r = r.wrapping_mul(7);
                r -= i;
                r ^= 0x55;
                r.wrapping_add(x * x)
            } else {
                let mut r = x >> 1;
                r ^= r << 5;
                r -= x;
                r = r.wrapping_mul(9);
                r += i;
                r ^= 0xaa;
                r - x * x
            };
            i64::from(r)
        })
        .collect()
}

#[test]
fn a_kernel_picked_by_entry_runs_and_its_marked_if_splits() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        TWO_KERNELS,
        "entry = \"second\"\ncflags = [\"-mllvm\", \"-amdgpu-skip-threshold=0\"]",
    );
    let golden = json(&["golden", &m, "--mode", "pws", "--json"]);
    let out: Vec<i64> = golden["buffers"]["out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(out, expected());
    assert!(
        golden["stats"]["splits"].as_u64().unwrap() >= 1,
        "{}",
        golden["stats"]
    );
    let run = json(&["run", &m, "--mode", "pws", "--S", "1", "--json"]);
    assert!(run["splits"].as_u64().unwrap() >= 1);
    assert_eq!(run["warnings"].as_array().unwrap().len(), 0);
}

#[test]
fn pws_on_a_kernel_without_a_split_warns() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        &TWO_KERNELS.replace("PWS_SPLIT();", ""),
        "entry = \"second\"",
    );
    let out = command()
        .args(["run", &m, "--mode", "pws"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: the program has no `split`, so pws runs it as no-split"),
        "{err}"
    );
    let run = json(&["run", &m, "--mode", "pws", "--json"]);
    assert!(run["warnings"][0].as_str().unwrap().contains("no `split`"));
}

#[test]
fn compiler_errors_name_the_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        "__kernel void k(__global int *out) {\n  out[0] = y;\n}\n",
        "",
    );
    let e = pws_err(&["golden", &m]);
    assert!(e.contains("clang-14 failed on"), "{e}");
    assert!(e.contains("k.cl:2:"), "{e}");
    assert!(e.contains("use of undeclared identifier 'y'"), "{e}");
}

#[test]
fn entry_flags_and_compiler_mistakes_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(dir.path(), TWO_KERNELS, "");
    let e = pws_err(&["golden", &m]);
    assert!(
        e.contains("defines 2 kernels (first, second); say which with `entry`"),
        "{e}"
    );
    let m = launch(dir.path(), TWO_KERNELS, "entry = \"third\"");
    let e = pws_err(&["golden", &m]);
    assert!(
        e.contains("no kernel `third` (the source defines first, second)"),
        "{e}"
    );
    let m = launch(dir.path(), TWO_KERNELS, "entry = \"first\"");
    let out = command()
        .args(["golden", &m])
        .env("PWS_CLANG", "/nonexistent/clang")
        .env("PWS_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(e.contains("/nonexistent/clang not found"), "{e}");
    // Compiler flags belong to OpenCL kernels.
    std::fs::write(dir.path().join("k.s"), "s_endpgm\n").unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\ncflags = [\"-O3\"]\n",
    )
    .unwrap();
    let e = pws_err(&["golden", dir.path().join("s.toml").to_str().unwrap()]);
    assert!(e.contains("key `cflags`"), "{e}");
    pws_ok(&[
        "golden",
        &launch(dir.path(), TWO_KERNELS, "entry = \"first\""),
        "--mode",
        "nosplit",
    ]);
}
