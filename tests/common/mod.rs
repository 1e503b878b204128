//! What the end-to-end tests share: running the `pws` binary from the repository root, so
//! `kernels/...` paths resolve. Each test binary uses a subset of these.
#![allow(dead_code)]

use std::process::{Command, Output};

/// The `pws` binary as a command, in the repository root.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pws"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs `pws args` to completion.
pub fn pws(args: &[&str]) -> Output {
    command().args(args).output().expect("pws runs")
}

/// Runs `pws args`, which must succeed.
fn succeeded(args: &[&str]) -> Output {
    let out = pws(args);
    assert!(
        out.status.success(),
        "pws {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `pws args`, which must succeed, and returns what it printed.
pub fn pws_ok(args: &[&str]) -> String {
    String::from_utf8(succeeded(args).stdout).expect("UTF-8 output")
}

/// Runs `pws args`, which must fail, and returns its error output.
pub fn pws_err(args: &[&str]) -> String {
    let out = pws(args);
    assert!(!out.status.success(), "pws {args:?} succeeded");
    String::from_utf8(out.stderr).expect("UTF-8 error output")
}

/// Runs `pws args`, which must succeed, and parses what it prints as JSON.
pub fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&pws_ok(args)).expect("JSON output")
}

/// The final values of buffer `name` in a `pws run --json` or `pws golden --json` report.
pub fn buffer(report: &serde_json::Value, name: &str) -> Vec<i64> {
    report["buffers"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {name} in {report}"))
        .iter()
        .map(|v| v.as_i64().expect("an integer buffer"))
        .collect()
}

/// Runs `pws args`, which must succeed, and returns its warnings (standard error).
pub fn pws_stderr_ok(args: &[&str]) -> String {
    String::from_utf8(succeeded(args).stderr).expect("UTF-8 error output")
}

/// The launch manifests in `kernels/<dir>`, as paths from the repository root, sorted.
pub fn manifests_in(dir: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels")
        .join(dir);
    let mut v: Vec<String> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| format!("kernels/{dir}/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    v.sort();
    v
}

/// True under `make soak` (PWS_PROPTEST_SCALE > 1): the suites run every S and compaction.
pub fn soak() -> bool {
    std::env::var("PWS_PROPTEST_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .is_some_and(|s| s > 1)
}

/// [`compare_in_rotation`] in one mode: in CI the mode, S and compaction rotate with `i`
/// (three consecutive kernels of a suite cover the three modes); under [`soak`] every mode, S
/// and compaction. `extra` are further arguments of `pws compare` (`--config`, `--split-all`).
pub fn compare_one_mode_in_rotation(launch: &str, i: usize, extra: &[&str]) {
    let (modes, compactions) = (["nosplit", "dws", "pws"], ["none", "bcc", "scc"]);
    let (m, s, c) = if soak() {
        (modes.join(","), "1,2,3".to_string(), compactions.join(","))
    } else {
        (
            modes[i % 3].to_string(),
            (1 + i / 3 % 3).to_string(),
            compactions[(i + i / 3) % 3].to_string(),
        )
    };
    let mut args = vec![
        "compare",
        launch,
        "--mode",
        &m,
        "--S",
        &s,
        "--compaction",
        &c,
    ];
    args.extend(extra);
    let rows = compare_rows(launch, &args);
    assert!(!rows.is_empty(), "{launch}: {rows:?}");
}

/// `pws compare` on the `i`-th kernel of a suite: in CI one S and compaction, rotating with `i`
/// so that a suite covers S = 1..3 and none/BCC/SCC together; under [`soak`] all of them. Fails
/// (with the table) if a run differs from the golden model, the unsplit kernel or the expected
/// values, or exceeds its bound; every row must have a bound and equal the expected values.
pub fn compare_in_rotation(launch: &str, i: usize, extra: &[&str]) {
    let compactions = ["none", "bcc", "scc"];
    let (s, c) = if soak() {
        ("1,2,3".to_string(), compactions.join(","))
    } else {
        ((1 + i % 3).to_string(), compactions[i % 3].to_string())
    };
    let mut args = vec!["compare", launch, "--S", &s, "--compaction", &c];
    args.extend(extra);
    let rows = compare_rows(launch, &args);
    assert!(rows.len() >= 3, "{launch}: {rows:?}");
}

/// The rows of `pws ARGS --json`; every row must equal the expected values and have a WCET
/// bound.
fn compare_rows(launch: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let mut args = args.to_vec();
    args.push("--json");
    let rows = json(&args).as_array().unwrap().clone();
    for r in &rows {
        assert_eq!(r["expect_equal"], true, "{launch}: {r}");
        assert!(r["bound"].as_u64().is_some(), "{launch}: no bound: {r}");
    }
    rows
}

/// Makes a FIFO (named pipe) at `path`: a file that hangs a reader until a writer opens it.
pub fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Figure 2's launch in `dir` with a wrong expected value (out[3] is 1204, the manifest
/// expects 0): the RTL agrees with the golden model, not with it.
pub fn figure2_expecting_wrong(dir: &std::path::Path) -> std::path::PathBuf {
    let manifest = dir.join("wrong.toml");
    std::fs::write(
        &manifest,
        format!(
            "kernel = {:?}\ngrid = 4\nworkgroup = 4\nargs = [\"A\", \"out\"]\n[[buffer]]\nname = \"A\"\ntype = \"i32\"\ndata = [17, 29, 52, 80]\n[[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 4\nexpect = [-15, 1025, 1090, 0]\n",
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/figure2.s")
        ),
    )
    .expect("the manifest is written");
    manifest
}
