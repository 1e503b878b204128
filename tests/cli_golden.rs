//! `pws golden` end to end: the binary on kernels/figure2.toml in both modes, JSON output.

mod common;

const FIGURE2: [&str; 2] = ["golden", "kernels/figure2.toml"];

/// `pws golden kernels/figure2.toml ARGS`.
fn golden(args: &[&str]) -> std::process::Output {
    common::pws(&[&FIGURE2[..], args].concat())
}

/// The same, which must succeed, as JSON.
fn json(args: &[&str]) -> serde_json::Value {
    common::json(&[&FIGURE2[..], args].concat())
}

#[test]
fn figure2_json_in_both_modes() {
    for args in [
        &["--mode", "nosplit", "--json"][..],
        &["--mode", "pws", "--S", "2", "--json"][..],
    ] {
        let report = json(args);
        assert_eq!(
            report["buffers"]["out"],
            serde_json::json!([-15, 1025, 1090, 1204]),
            "{args:?}"
        );
        assert_eq!(report["buffers"]["A"], serde_json::json!([17, 29, 52, 80]));
    }
    let pws = json(&["--mode", "pws", "--json"]);
    assert_eq!(pws["stats"]["splits"], 3);
    assert_eq!(pws["trace"][0]["kind"], "split");
    assert_eq!(pws["trace"][0]["spm"], "0x000000000000000e");
    assert_eq!(pws["wavefronts"][0]["exec"], "0x000000000000000f");
    let nosplit = json(&["--mode", "nosplit", "--json"]);
    assert_eq!(nosplit["trace"], serde_json::json!([]));
    assert_eq!(nosplit["mode"], "nosplit");
}

#[test]
fn human_report_and_errors() {
    let out = golden(&["--mode", "pws"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("out i32[4]: -15 1025 1090 1204"), "{text}");
    assert!(text.contains("0x000000000000000e"), "{text}");
    let out = golden(&["--max-instructions", "10"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "error: runaway: workgroup 0 wave 0 reached the limit of 10 instructions per wavefront"
        ),
        "{err}"
    );
}

/// An f32 buffer prints as floats that read back to its bits, in text and JSON (non-finite
/// values as strings), and `pws compare`'s expected values take `tolerance_ulp`.
#[test]
fn f32_buffers_print_as_floats() {
    let dir = std::env::temp_dir().join(format!("pws-f32-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/figure2.s");
    std::fs::copy(&kernel, dir.join("figure2.s")).unwrap();
    let manifest = dir.join("f.toml");
    std::fs::write(
        &manifest,
        "kernel = \"figure2.s\"\ngrid = 4\nworkgroup = 4\nargs = [\"A\", \"out\"]\n\
         [[buffer]]\nname = \"A\"\ntype = \"i32\"\ndata = [17, 29, 52, 80]\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 4\n\
         [[buffer]]\nname = \"f\"\ntype = \"f32\"\ndata = [1.5, -0.0, inf, nan, 1e-45, -3]\n",
    )
    .unwrap();
    let path = manifest.to_str().unwrap();
    let text = common::pws_ok(&["golden", path]);
    assert!(
        text.contains("f   f32[6]: 1.5 -0.0 inf nan 1e-45 -3.0"),
        "{text}"
    );
    let report = common::json(&["golden", path, "--json"]);
    let f = &report["buffers"]["f"];
    let head: Vec<serde_json::Value> = f.as_array().unwrap()[..4].to_vec();
    assert_eq!(
        head,
        serde_json::json!([1.5, -0.0, "inf", "nan"])
            .as_array()
            .unwrap()[..],
        "{f}"
    );
    // JSON numbers are read as f64: each reads back to its f32 bits.
    assert_eq!((f[4].as_f64().unwrap() as f32).to_bits(), 1, "{f}");
    assert_eq!(f[5], serde_json::json!(-3.0));
    std::fs::remove_dir_all(&dir).unwrap();
}
