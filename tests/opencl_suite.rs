//! The OpenCL C suite in kernels/cl, end to end through the commands users run: every kernel
//! is compiled by clang-14 from its manifest, and `pws compare` runs it on the RTL in no-split,
//! DWS and PWS beside its WCET bound, checking the final memory against the golden model (same
//! program and unsplit kernel) and against the expected values kernels/cl/gen.py computed in
//! Python. `pws compile --split-all` and `pws wcet` run on each as well.
//!
//! CI runs each kernel in one mode, S and compaction (rotating over the suite, so that together
//! they cover the three modes, S = 1..3 and none/BCC/SCC); `make soak` (PWS_PROPTEST_SCALE > 1)
//! runs every kernel in every mode, S and compaction.

mod common;

use common::{compare_one_mode_in_rotation, json, pws_ok, soak};
use pws_isa::kernarg::Number;
use pws_isa::manifest::{Buffer, Manifest};

fn suite() -> Vec<String> {
    common::manifests_in("cl")
}

#[test]
fn the_suite_has_the_kernels_users_bring() {
    let names: Vec<String> = suite()
        .iter()
        .map(|p| {
            p.rsplit('/')
                .next()
                .unwrap()
                .trim_end_matches(".toml")
                .to_string()
        })
        .collect();
    for k in [
        "bfs",
        "nw",
        "pathfinder",
        "bitonic",
        "hotspot",
        "mandelbrot",
        "collatz",
        "saxpy",
        "kmeans",
        "nested6",
        "figure2",
        "bytepack",
        "blackscholes",
        "crc32",
        "median5",
        "kargs",
        "elemtypes",
    ] {
        assert!(
            names.iter().any(|n| n == k),
            "kernels/cl has no {k}: {names:?}"
        );
    }
    assert!(names.len() >= 12, "{names:?}");
}

/// In CI each kernel runs in one mode, S and compaction, rotating so that consecutive kernels
/// cover the three modes; `make soak` runs every combination.
#[test]
fn every_kernel_equals_its_expected_output_on_the_rtl_in_every_mode_within_its_bound() {
    for (i, launch) in suite().iter().enumerate() {
        compare_one_mode_in_rotation(launch, i, &[]);
    }
}

/// The final memory words of buffer `b` in a `pws run --json` or `pws golden --json` report:
/// each element read back from the value JSON prints (a number, or `"inf"`, `"-inf"`, `"nan"`,
/// `"nan:0x..."` for a float), packed as the buffer's type lays it out.
fn words(report: &serde_json::Value, b: &Buffer) -> Vec<u32> {
    let elements: Vec<u64> = report["buffers"][&b.name]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {} in {report}", b.name))
        .iter()
        .map(|v| {
            let bits = match (v.as_i64(), v.as_u64(), v.as_f64(), v.as_str()) {
                (Some(i), ..) => b.ty.element(Number::Int(i)),
                (None, Some(u), ..) => b.ty.int_element(i128::from(u)),
                (None, None, Some(f), _) => b.ty.element(Number::Float(f)),
                (.., Some(s)) => b.ty.parse(s.strip_prefix("nan:").unwrap_or(s)),
                _ => None,
            };
            bits.unwrap_or_else(|| panic!("buffer {}: {v} is no {}", b.name, b.ty))
        })
        .collect();
    b.ty.pack(&elements)
}

/// Every kernel with every branch that can split safely split (`--split-all`), on the golden
/// model and (a third of the suite in CI, all of it in `make soak`) the RTL in PWS, equals its
/// expected values; `pws compile --split-all` writes a
/// program that assembles and `pws wcet` bounds every mode.
#[test]
fn split_all_and_wcet_take_every_kernel() {
    let dir = tempfile::tempdir().unwrap();
    for (i, launch) in suite().into_iter().enumerate() {
        let manifest =
            Manifest::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&launch)).unwrap();
        // The RTL run: every third kernel in CI (rotating with the suite), all in `make soak`.
        let on_rtl = soak() || i % 3 == 0;
        let asm = manifest.kernel.to_str().unwrap().to_string();
        let out = dir.path().join("split.s");
        pws_ok(&["compile", &asm, "-o", out.to_str().unwrap(), "--split-all"]);
        pws_isa::assemble(&std::fs::read_to_string(&out).unwrap(), "split.s").unwrap();
        let golden = json(&["golden", &launch, "--split-all", "--json"]);
        let rtl = on_rtl.then(|| {
            json(&[
                "run",
                &launch,
                "--mode",
                "pws",
                "--S",
                "2",
                "--split-all",
                "--json",
            ])
        });
        for b in manifest.buffers.iter().filter(|b| b.expect.is_some()) {
            for (who, report) in [("golden", Some(&golden)), ("RTL", rtl.as_ref())] {
                if let Some(report) = report {
                    let got = words(report, b);
                    let at = b.first_mismatch(&got);
                    assert!(
                        at.is_none(),
                        "{launch}: {who}, {} differs at {at:?}",
                        b.name
                    );
                }
            }
        }
        let r = json(&["wcet", &launch, "--json"]);
        for m in r["modes"].as_array().unwrap() {
            assert!(m["bound"].as_u64().unwrap() > 0, "{launch}: {m}");
        }
    }
}

/// pws compiles with clang's line table (`-gline-tables-only`, for the analysis to tell a
/// loop's own `PWS_LOOP_BOUND` from a removed inner loop's): the instructions are those clang
/// writes without it (`-g0` last), for every kernel of both suites.
#[test]
fn the_line_table_leaves_the_code_unchanged() {
    let instructions = |asm: &str| -> Vec<String> {
        asm.lines()
            .filter(|l| l.starts_with('\t') && l[1..].starts_with(|c: char| c.is_ascii_lowercase()))
            .map(str::to_string)
            .collect()
    };
    let mut manifests = suite();
    manifests.extend(common::manifests_in("rodinia"));
    let include = pws_isa::opencl::cache_dir().join("include");
    let launches = manifests.iter().flat_map(|m| {
        pws_isa::sequence::LaunchSequence::load(m)
            .unwrap_or_else(|e| panic!("{e}"))
            .launches
    });
    for manifest in launches {
        let m = manifest.path.display();
        let Some(source) = &manifest.opencl else {
            continue;
        };
        let ours = std::fs::read_to_string(&manifest.kernel).unwrap();
        assert!(ours.contains("\t.loc\t"), "{m}: no line table");
        let out = std::process::Command::new(pws_isa::opencl::clang())
            .args(pws_isa::opencl::DEFAULT_FLAGS)
            .arg(format!("-I{}", include.display()))
            .args(["-include", "pws.h"])
            .args(&manifest.cflags)
            .args(["-g0", "-S", "-o", "-"])
            .arg(source)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{m}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let plain = pws_isa::opencl::select_kernel(
            &String::from_utf8(out.stdout).unwrap(),
            manifest.entry.as_deref(),
        )
        .unwrap();
        let (a, b) = (instructions(&ours), instructions(&plain));
        assert!(!a.is_empty() && a == b, "{m}: the instructions differ");
    }
}
