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

/// Runs `pws args`, which must succeed, and returns its warnings (standard error).
pub fn pws_stderr_ok(args: &[&str]) -> String {
    String::from_utf8(succeeded(args).stderr).expect("UTF-8 error output")
}
