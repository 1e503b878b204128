//! Issue 15 end to end: hostile inputs and long runs through the binary. Each test is one item
//! of the issue and failed before it was fixed (bounded reads are in `fuzz_inputs.rs`).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{command, json, pws, pws_err, pws_ok};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs `pws args` and returns whether it succeeded, its output and its peak resident memory
/// in MiB (its own, from wait4: other tests' children run at the same time).
fn pws_measured(args: &[&str]) -> (bool, String, f64) {
    use std::io::Read;
    let mut child = command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: waiting for our own child; wait4 only writes the status and the struct.
    let pid = unsafe {
        libc::wait4(
            child.id() as libc::pid_t,
            &mut status,
            0,
            usage.as_mut_ptr(),
        )
    };
    assert_eq!(pid, child.id() as libc::pid_t);
    // SAFETY: wait4 returned the child, so it filled the struct.
    let peak = unsafe { usage.assume_init() }.ru_maxrss as f64 / 1024.0;
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (ok, out, peak)
}

/// Item 1: the size limit of each kind is a flag away.
#[test]
fn input_size_limits_are_per_kind_and_can_be_raised() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "k.s", &"s_nop 0\n".repeat(300));
    let err = pws_err(&["--input-limit", "asm=1K", "asm", &src]);
    assert!(
        err.contains("k.s: larger than the 1 KiB limit for an assembly source (raise it with --input-limit asm=SIZE)"),
        "{err}"
    );
    pws_ok(&["--input-limit", "asm=4K", "asm", &src]);
    let err = pws_err(&["--input-limit", "assembly=4K", "asm", &src]);
    assert!(err.contains("unknown kind `assembly`"), "{err}");
}

/// Item 2: a launch over the memory budget is refused before anything is allocated, with the
/// figure; the golden model keeps no registers it does not print.
#[test]
fn launch_memory_is_budgeted_before_allocation() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "end.s", "s_endpgm\n");
    let mut text = String::from("kernel = \"end.s\"\ngrid = 1\nworkgroup = 1\n");
    for i in 0..100 {
        text.push_str(&format!(
            "[[buffer]]\nname = \"b{i}\"\ntype = \"u32\"\nlen = 16777216\n"
        ));
    }
    let m = write(dir.path(), "big.toml", &text);
    for cmd in ["golden", "run", "wcet"] {
        let started = Instant::now();
        let err = pws_err(&[cmd, &m]);
        assert!(
            err.contains("the launch needs 6.3 GiB (100 buffer(s) as declared), more than the memory budget of 1 GiB (raise it with --max-memory SIZE)"),
            "{cmd}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{cmd}");
    }
    // 2^22 wavefronts of `s_endpgm`: the text report holds no per-wavefront state; the JSON
    // report, which lists every wavefront's registers, is refused up front with its figure.
    let m = write(
        dir.path(),
        "grid.toml",
        "kernel = \"end.s\"\ngrid = 4194304\nworkgroup = 1\n",
    );
    let (ok, out, peak) = pws_measured(&["golden", &m]);
    assert!(ok && out.contains("4194304 wavefront(s)"), "{out}");
    assert!(peak < 100.0, "{peak} MiB");
    let err = pws_err(&["golden", &m, "--json"]);
    assert!(
        err.contains("the final registers of 4194304 wavefront(s)") && err.contains("GiB"),
        "{err}"
    );
    pws_ok(&["--max-memory", "4G", "golden", &m, "--mode", "nosplit"]);
}

/// Item 2: more kernel arguments than fit below the first buffer move the buffers up; the
/// kernel reads the pointer after 16,000 values and stores through it.
#[test]
fn a_long_kernarg_segment_never_overlaps_a_buffer() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "k.s",
        "s_load_dwordx2 s[8:9], s[4:5], 0xfa00\n s_waitcnt lgkmcnt(0)\n v_mov_b32 v1, s8\n \
         v_mov_b32 v2, s9\n v_mov_b32 v3, 42\n flat_store_dword v[1:2], v3\n s_waitcnt vmcnt(0)\n \
         s_endpgm\n",
    );
    let values = vec!["7"; 16_000].join(", ");
    let m = write(
        dir.path(),
        "k.toml",
        &format!(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [{values}, \"out\"]\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 1\n"
        ),
    );
    let r = json(&["golden", &m, "--json"]);
    assert_eq!(r["buffers"]["out"][0], 42, "{}", r["buffers"]);
    let r = json(&["run", &m, "--json"]);
    assert_eq!(r["buffers"]["out"][0], 42);
}

/// Item 3: a context that can never leave its loop stops the RTL run in seconds, with the
/// loop's PCs; a register-only runaway stops at the no-progress window, another at the
/// instruction limit.
#[test]
fn the_rtl_stops_loops_that_make_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let launch = |name: &str, src: &str| {
        write(dir.path(), &format!("{name}.s"), src);
        write(
            dir.path(),
            &format!("{name}.toml"),
            &format!("kernel = \"{name}.s\"\ngrid = 64\nworkgroup = 64\n"),
        )
    };
    let m = launch("spin", "s_nop 0\nL:\n  s_branch L\n");
    let started = Instant::now();
    let err = pws_err(&["run", &m]);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.contains("no progress: slot 0 context 0 loops forever")
            && err.contains("pc 0x0004: s_branch -1"),
        "{err}"
    );
    let m = launch(
        "flag",
        "s_mov_b32 s0, 0\nL:\n s_cmp_eq_u32 s0, 0\n s_cbranch_scc1 L\n s_endpgm\n",
    );
    let err = pws_err(&["run", &m]);
    assert!(
        err.contains("loops forever") && err.contains("pc 0x0008"),
        "{err}"
    );
    let m = launch("count", "L:\n  s_add_u32 s0, s0, 1\n  s_branch L\n");
    let err = pws_err(&["run", &m, "--no-progress", "300"]);
    assert!(
        err.contains("has looped for 300 cycles without a memory access (--no-progress 300)")
            && err.contains("pc 0x0000: s_add_u32 s0, s0, 1"),
        "{err}"
    );
    let err = pws_err(&["run", &m, "--no-progress", "0", "--max-instructions", "50"]);
    assert!(
        err.contains(
            "runaway: the wavefront in slot 0 (workgroup 0 wave 0) retired 50 instructions"
        ) && err.contains("pc 0x0000 x"),
        "{err}"
    );
}

/// A kernel that loops forever, for the Ctrl-C tests.
const ENDLESS: &str = "L:\n  s_add_u32 s0, s0, 1\n  s_branch L\n";

/// `pws run MANIFEST --json` without limits, interrupted by SIGINT after `seconds`: checks that
/// it says so and exits 1, and returns the report it printed.
fn interrupted_run(manifest: &str, seconds: u64) -> serde_json::Value {
    let child = command()
        .args(["run", manifest, "--json", "--no-progress", "0"])
        .args([
            "--max-cycles",
            "100000000",
            "--max-instructions",
            "100000000",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(seconds));
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted (Ctrl-C) at cycle"), "{err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Item 3: Ctrl-C ends a run with the report of the cycles simulated so far.
#[test]
fn ctrl_c_prints_the_partial_report() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "count.s", ENDLESS);
    let m = write(
        dir.path(),
        "count.toml",
        "kernel = \"count.s\"\ngrid = 64\nworkgroup = 64\n",
    );
    let report = interrupted_run(&m, 3);
    assert!(report["retired"].as_u64().unwrap() > 0, "{report}");
}

/// Ctrl-C in a launch sequence ends it with the interrupted launch: the launches before it and
/// its partial report are printed.
#[test]
fn ctrl_c_ends_a_sequence_with_the_interrupted_launch() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "done.s", "s_endpgm\n");
    write(dir.path(), "count.s", ENDLESS);
    let m = write(
        dir.path(),
        "seq.toml",
        "grid = 64\nworkgroup = 64\n\n[[launch]]\nkernel = \"done.s\"\n\n\
         [[launch]]\nkernel = \"count.s\"\n",
    );
    let report = interrupted_run(&m, 4);
    let launches = report["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2, "{report}");
    assert_eq!(launches[1]["launch"], 1);
    assert!(
        launches[1]["report"]["retired"].as_u64().unwrap() > 0,
        "{report}"
    );
}

/// Item 4: what one executor refuses, the other refuses too, before running, with the line.
#[test]
fn both_executors_refuse_trap_temporaries_at_assembly() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.s", "s_nop 0\ns_mov_b32 ttmp0, 1\ns_endpgm\n");
    let m = write(
        dir.path(),
        "t.toml",
        "kernel = \"t.s\"\ngrid = 64\nworkgroup = 64\n",
    );
    for cmd in ["golden", "run"] {
        let err = pws_err(&[cmd, &m]);
        assert!(
            err.contains("t.s:2:1: `s_mov_b32 ttmp0, 1`: ttmp0 is a trap temporary"),
            "{cmd}: {err}"
        );
    }
}

/// Item 6: outputs never replace an input and are written whole or not at all.
#[test]
fn outputs_are_atomic_and_never_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "s_mov_b32 s0, 1\ns_endpgm\n";
    let src = write(dir.path(), "k.s", kernel);
    for args in [
        vec!["compile", &src, "-o", &src],
        vec!["asm", &src, "-o", &src],
        vec!["asm", &src, "--hex", "-o", &src],
    ] {
        let err = pws_err(&args);
        assert!(
            err.contains("k.s: refusing to write the output onto the input"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&src).unwrap(), kernel);
    }
    // A hard link to the input is the input.
    let link = dir.path().join("link.s");
    std::fs::hard_link(&src, &link).unwrap();
    let err = pws_err(&["compile", &src, "-o", link.to_str().unwrap()]);
    assert!(err.contains("it is the input"), "{err}");
    // A failed compile leaves an existing output as it was, and no temporary file behind.
    let out = write(dir.path(), "out.s", "previous\n");
    let bad = write(dir.path(), "bad.s", "s_bogus\n");
    pws_err(&["compile", &bad, "-o", &out]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous\n");
    pws_ok(&["compile", &src, "-o", &out]);
    assert!(std::fs::read_to_string(&out).unwrap().contains("s_mov_b32"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

/// Item 7: one style: `file:line:col: what`, values escaped and shortened, one wording per
/// flag, no doubled prefix.
#[test]
fn errors_have_one_style() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "k.s",
        &format!("s_nop 0\n  s_mov_b32 s0, {}\n", "A".repeat(1_000_000)),
    );
    let err = pws_err(&["asm", &src]);
    assert!(
        err.starts_with(&format!(
            "error: {src}:2:17: expected an operand, found `AAA"
        )),
        "{err}"
    );
    assert!(err.len() < 300, "{}", &err[..300.min(err.len())]);
    assert!(err.contains("... (1000000 characters)`"), "{err}");
    assert_eq!(err.matches("error").count(), 1, "{err}");
    let src = write(dir.path(), "e.s", "s_nop 0 \x1b[2J\n");
    let err = pws_err(&["asm", &src]);
    assert!(
        err.contains("e.s:1:9: unexpected character `\\x1b`"),
        "{err}"
    );
    let m = write(
        dir.path(),
        "m.toml",
        "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n\x1b[31mcolour = 1\n",
    );
    let err = pws_err(&["golden", &m]);
    assert!(
        err.contains("m.toml:4:1: ") && !err.contains('\x1b'),
        "{err}"
    );
    for (args, wording) in [
        (
            vec!["golden", "kernels/figure2.toml", "--S", "64"],
            "--S 64 is out of range 0..=63 (SpSIMDs per SIMD)",
        ),
        (
            vec!["run", "kernels/figure2.toml", "--S", "8"],
            "--S 8 is out of range 0..=7 (SpSIMDs per SIMD)",
        ),
        (
            vec!["compare", "kernels/figure2.toml", "--S", "8"],
            "--S 8 is out of range 0..=7 (SpSIMDs per SIMD)",
        ),
        (
            vec!["wcet", "kernels/figure2.toml", "--S", "8"],
            "--S 8 is out of range 0..=7 (SpSIMDs per SIMD)",
        ),
        (
            vec![
                "unit",
                "split-merge",
                "kernels/units/figure5.sm",
                "--S",
                "0",
            ],
            "--S 0 is out of range 1..=7 (SpSIMDs per SIMD)",
        ),
    ] {
        let err = pws_err(&args);
        assert_eq!(err.trim_end(), format!("error: {wording}"), "{args:?}");
    }
    let cfg = write(dir.path(), "cu.toml", "spsimds_per_simd = 9\n");
    let out = pws(&["run", "kernels/figure2.toml", "--config", &cfg]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("invalid configuration: invalid hardware configuration"),
        "{err}"
    );
}
