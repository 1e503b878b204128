//! The shipped kernels (kernels/*.toml) on the golden model, in nosplit and PWS mode, checked
//! against the paper's numbers (Figure 2 output, Figure 5 split-mask table) and against Rust
//! reference computations over the manifests' own input buffers.

use std::path::PathBuf;

use pws_isa::manifest::{ElemType, Manifest};
use pws_verify::golden::{self, BufferValues, Config, EventKind, Mode, Report};

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../kernels")
        .join(name)
}

fn run(manifest: &str, mode: Mode, s: usize) -> Report {
    let config = Config {
        mode,
        s,
        ..Config::default()
    };
    golden::run_launch(kernel(manifest), &config)
        .unwrap_or_else(|e| panic!("{manifest} ({mode:?}, S = {s}): {e}"))
}

fn words(report: &Report, buffer: &str) -> Vec<u32> {
    report
        .buffers
        .get(buffer)
        .unwrap_or_else(|| panic!("no buffer {buffer}"))
        .words()
}

fn input(manifest: &str, buffer: &str) -> Vec<u32> {
    let m = Manifest::load(kernel(manifest)).unwrap();
    m.buffers
        .into_iter()
        .find(|b| b.name == buffer)
        .unwrap()
        .init
}

/// Every mode and S the kernels must agree in.
const CONFIGS: [(Mode, usize); 5] = [
    (Mode::NoSplit, 0),
    (Mode::Pws, 0),
    (Mode::Pws, 1),
    (Mode::Pws, 2),
    (Mode::Pws, 3),
];

#[test]
fn figure2_output_in_every_mode() {
    for (mode, s) in CONFIGS {
        let r = run("figure2.toml", mode, s);
        assert_eq!(
            r.buffers.get("out"),
            Some(&BufferValues::new(
                ElemType::I32,
                4,
                [-15i32, 1025, 1090, 1204].map(|v| v as u32).to_vec()
            )),
            "{mode:?} S = {s}"
        );
    }
}

#[test]
fn figure2_splits_at_bb1_bb2_bb7_with_two_spsimds() {
    let r = run("figure2.toml", Mode::Pws, 2);
    let splits: Vec<_> = r
        .trace
        .iter()
        .filter(|e| e.kind == EventKind::Split)
        .map(|e| {
            (
                e.context.0,
                e.spm.0 & 0xF,
                e.partner.map(|p| p.0),
                e.partner_spm.map(|m| m.0 & 0xF),
            )
        })
        .collect();
    // BB1: x > 25 keeps WIs 1-3, WI 0 goes to SpSIMD context 2; BB2 (nested): x > 75 keeps
    // WI 3, WIs 1-2 go to context 3; BB7 reuses context 2: x > 50 keeps WIs 2-3.
    assert_eq!(
        splits,
        vec![
            (1, 0b1110, Some(2), Some(0b0001)),
            (1, 0b1000, Some(3), Some(0b0110)),
            (1, 0b1100, Some(2), Some(0b0011)),
        ]
    );
    assert_eq!(
        (r.stats.splits, r.stats.merges, r.stats.fallbacks),
        (3, 3, 0)
    );
    assert_eq!(r.stats.peak_swf_contexts, 2);
    assert_eq!(r.wavefronts[0].spm.0, u64::MAX, "every split merged back");
    assert_eq!(r.wavefronts[0].exec.0, 0xF);
    assert!(r.wavefronts[0].unmerged.is_empty());
}

#[test]
fn figure2_with_one_spsimd_falls_back_for_the_nested_split() {
    let r = run("figure2.toml", Mode::Pws, 1);
    assert_eq!((r.stats.splits, r.stats.fallbacks), (2, 1));
}

/// The paper's string for a mask over its 4 WIs (WI k = lanes 16k..16k+15, WI 0 leftmost).
fn paper(mask: u64) -> String {
    (0..4)
        .map(|k| match (mask >> (16 * k)) & 0xFFFF {
            0 => '0',
            0xFFFF => '1',
            g => panic!("WI {k} is split inside its lane group: {g:#x}"),
        })
        .collect()
}

#[test]
fn fig5_trace_is_the_papers_split_mask_table() {
    let r = run("fig5.toml", Mode::Pws, 2);
    // Replay the split/merge events into per-context masks; a row per region entered.
    let mut spm: [Option<u64>; 3] = [Some(u64::MAX), None, None];
    let row = |spm: &[Option<u64>; 3]| -> Vec<String> {
        spm.iter()
            .map(|m| m.map_or("-".to_string(), paper))
            .collect()
    };
    let mut rows = vec![row(&spm)];
    for e in &r.trace {
        let c = e.context.0 as usize - 1;
        match e.kind {
            EventKind::Split => {
                spm[c] = Some(e.spm.0);
                spm[e.partner.unwrap().0 as usize - 1] = Some(e.partner_spm.unwrap().0);
            }
            EventKind::Merge => {
                assert_eq!(e.spm.0, spm[c].unwrap() | e.partner_spm.unwrap().0);
                spm[c] = Some(e.spm.0);
                spm[e.partner.unwrap().0 as usize - 1] = None;
            }
            EventKind::NoopSplit => assert_eq!((e.context.0, paper(e.spm.0).as_str()), (2, "0010")),
            _ => continue,
        }
        if e.kind != EventKind::NoopSplit {
            rows.push(row(&spm));
        }
    }
    let expected: Vec<Vec<&str>> = vec![
        vec!["1111", "-", "-"],       // region (1)
        vec!["1101", "0010", "-"],    // region (2)
        vec!["1100", "0010", "0001"], // region (3)
        vec!["1101", "0010", "-"],    // back in (2)
        vec!["1111", "-", "-"],       // back in (1)
    ];
    assert_eq!(rows, expected);
    assert_eq!(r.stats.noop_splits, 1, "SWF2's split s0,s2 is a no-op");
}

#[test]
fn fig5_memory_is_the_same_in_every_mode() {
    let expected: Vec<u32> = (0..64)
        .map(|i| (((i * 4 + 2) * 4 + 3) * 4 + 2) * 4 + 1)
        .collect();
    for (mode, s) in CONFIGS {
        assert_eq!(
            words(&run("fig5.toml", mode, s), "out"),
            expected,
            "{mode:?} S = {s}"
        );
    }
}

#[test]
fn vecadd_covers_workgroups_and_a_partial_wavefront() {
    let a = input("vecadd.toml", "a");
    let b = input("vecadd.toml", "b");
    let expected: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    for (mode, s) in CONFIGS {
        let r = run("vecadd.toml", mode, s);
        assert_eq!(words(&r, "c"), expected);
        assert_eq!((r.stats.workgroups, r.stats.wavefronts), (3, 5));
        let last = r.wavefronts.last().unwrap();
        assert_eq!((last.workgroup, last.exec.0), (2, (1 << 44) - 1));
    }
}

/// The C of divergent64.s.
fn divergent64_reference(x: u32, gid: u32) -> u32 {
    let lane = gid % 64;
    if x & 1 != 0 {
        let r = x.wrapping_mul(5);
        if lane >= 40 {
            r.wrapping_add(100)
        } else {
            r.wrapping_sub(3)
        }
    } else {
        let r = x ^ 0xff;
        if x & 4 != 0 {
            r.wrapping_mul(2)
        } else {
            r
        }
    }
}

#[test]
fn divergent64_matches_the_reference_in_every_mode() {
    let input = input("divergent64.toml", "in");
    let expected: Vec<u32> = (0..176)
        .map(|gid| divergent64_reference(input[gid as usize], gid))
        .collect();
    for (mode, s) in CONFIGS {
        let r = run("divergent64.toml", mode, s);
        assert_eq!(words(&r, "out"), expected, "{mode:?} S = {s}");
        if mode == Mode::Pws {
            // Three splits per wavefront; those without a free context fall back.
            assert_eq!(r.stats.splits + r.stats.fallbacks + r.stats.noop_splits, 9);
            assert_eq!(r.stats.splits, 3 * s.min(3) as u64, "S = {s}");
        }
    }
}

#[test]
fn divergent64_splits_lanes_on_both_halves() {
    let r = run("divergent64.toml", Mode::Pws, 3);
    let halves = |m: u64| (m as u32 != 0, (m >> 32) as u32 != 0);
    let both = r
        .trace
        .iter()
        .filter(|e| e.kind == EventKind::Split)
        .any(|e| {
            let exec = r.wavefronts[e.wave as usize].exec.0;
            halves(e.spm.0 & exec) == (true, true)
                && halves(e.partner_spm.unwrap().0 & exec) == (true, true)
        });
    assert!(both, "no split has lanes below and above 32 on both sides");
    // Split C runs in a split context (context 2), so SWFs split again.
    assert!(r
        .trace
        .iter()
        .any(|e| e.kind == EventKind::Split && e.context.0 != 1));
}

#[test]
fn nosplit_mode_has_no_trace() {
    let r = run("divergent64.toml", Mode::NoSplit, 2);
    assert!(r.trace.is_empty());
    assert_eq!(r.s, None);
    assert_eq!(r.stats.split_instructions, 9);
}

#[test]
fn decoded_images_run_like_assembled_programs() {
    let manifest = Manifest::load(kernel("figure2.toml")).unwrap();
    let assembled = pws_isa::assemble(&manifest.kernel_source().unwrap(), "figure2.s").unwrap();
    let decoded = pws_isa::Program::from_bytes(&assembled.bytes()).unwrap();
    let config = Config::default();
    let a = golden::run(&assembled, &manifest, &config).unwrap();
    let d = golden::run(&decoded, &manifest, &config).unwrap();
    assert_eq!((a.buffers, a.trace), (d.buffers, d.trace));
}
