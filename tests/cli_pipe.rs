//! `pws ... | head`: a reader that closes the pipe early ends the command quietly, never with
//! a panic message.

use std::io::Read;
use std::process::Stdio;

mod common;

#[test]
fn closed_stdout_is_not_a_panic() {
    // Far more output than a pipe buffers (64 KiB on Linux), so pws is still writing when the
    // reader goes away.
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("long.s");
    std::fs::write(&kernel, "s_nop 0\n".repeat(50_000)).unwrap();
    let mut child = common::command()
        .arg("asm")
        .arg(&kernel)
        .arg("--hex")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pws runs");
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("pws ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
