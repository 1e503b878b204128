//! Proven bounded (issue 5): for every launch in kernels/ and for generated kernels, in every mode
//! and compaction, the RTL's cycles never exceed `pws wcet`'s launch bound, and no block the RTL
//! executes takes longer than the timing contract gives it (blocks ending in a merge or holding
//! an `s_barrier` are checked through the bound only: they include a partner's path). Prints
//! the tightness table, bound / observed per kernel and mode.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::compile::SplitPolicy;
use pws_host::launch::{analyse_launch, check_blocks, tightness_table, KernelSource, Tightness};
use pws_host::timing::Mode;
use pws_isa::manifest::Manifest;
use pws_isa::testing::{proptest_cases, shipped_launches};
use pws_sim::cu::{run, RunOptions};
use pws_verify::bound::machine;
use pws_verify::gen::{kernel_spec, GenOptions};

fn cu_mode(mode: Mode) -> CuMode {
    match mode {
        Mode::NoSplit => CuMode::NoSplit,
        Mode::Dws => CuMode::Dws,
        Mode::Pws => CuMode::Pws,
    }
}

/// The `cu` preset (2 slots) and variations of what the bound depends on: S, the memory
/// latency, two SIMDs (4 slots: room for workgroups of 256).
fn configurations() -> Vec<HwConfig> {
    let cu = HwConfig::cu();
    vec![
        cu,
        HwConfig {
            spsimds_per_simd: 1,
            mem_latency: 20,
            ..cu
        },
        HwConfig {
            simds_per_cu: 2,
            spsimds_per_simd: 2,
            ..cu
        },
    ]
}

const COMPACTIONS: [SwizzleMode; 3] = [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc];

/// Runs `kernel` in `modes` and every compaction and checks the bound and every measured block
/// against its timing-contract WCET; one tightness row per mode (the slowest compaction).
fn check(
    name: &str,
    manifest: &Manifest,
    source: &KernelSource,
    cfg: &HwConfig,
    modes: &[Mode],
    compactions: &[SwizzleMode],
) -> Result<Vec<Tightness>, String> {
    let bound = analyse_launch(manifest, source, &machine(cfg), modes, SplitPolicy::Marked)
        .map_err(|e| format!("{name}: wcet: {e}"))?;
    let mut rows = Vec::new();
    for b in &bound.modes {
        let mut observed = 0;
        for &compaction in compactions {
            let opts = RunOptions {
                compaction,
                ..RunOptions::new(*cfg, cu_mode(b.mode))
            };
            let r = run(&b.kernel.program, manifest, &opts)
                .map_err(|e| format!("{name} {} {compaction:?}: run: {e}", b.mode))?;
            if r.cycles > b.bound {
                return Err(format!(
                    "{name} {} {compaction:?}: the RTL took {} cycles, above the bound {}",
                    b.mode, r.cycles, b.bound
                ));
            }
            let measured: Vec<(u32, u64)> = r.blocks.iter().map(|s| (s.pc, s.max_cycles)).collect();
            let excess = check_blocks(b, &measured);
            if !excess.is_empty() {
                return Err(format!(
                    "{name} {} {compaction:?}: blocks above their timing-contract WCET: {excess:?}",
                    b.mode
                ));
            }
            observed = observed.max(r.cycles);
        }
        rows.push(Tightness {
            kernel: name.to_string(),
            mode: b.mode,
            bound: b.bound,
            observed,
        });
    }
    Ok(rows)
}

#[test]
fn every_launch_in_kernels_is_bounded() {
    let launches: Vec<_> = shipped_launches()
        .into_iter()
        .map(|p| {
            let m = Manifest::load(&p).unwrap_or_else(|e| panic!("{e}"));
            (p, m)
        })
        .collect();
    assert!(launches.len() >= 5, "{launches:?}");
    let mut rows = Vec::new();
    let soak = proptest_cases(1) > 1;
    for (k, (path, manifest)) in launches.iter().enumerate() {
        let source = KernelSource::load(manifest).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // A single workgroup runs on every configuration, with one compaction per configuration
        // in `make test` (rotating, so that each configuration meets all three across the
        // kernels) and all of them in `make soak`; a longer launch (up to thousands of RTL
        // cycles per wavefront) on the first configuration it fits, without compaction.
        let single = manifest.workgroups() == 1;
        let fitting = configurations().into_iter().filter(|cfg| {
            let slots = cfg.simds_per_cu * cfg.wf_contexts_per_simd;
            (0..manifest.workgroups()).all(|g| manifest.wavefronts_in(g) as usize <= slots)
        });
        let mut checked = false;
        for (j, cfg) in fitting
            .take(if single { usize::MAX } else { 1 })
            .enumerate()
        {
            let tag = format!(
                "{name} (S = {}, {} slots, latency {})",
                cfg.spsimds_per_simd,
                cfg.simds_per_cu * cfg.wf_contexts_per_simd,
                cfg.mem_latency
            );
            let rotated = (k + j) % COMPACTIONS.len();
            let compactions = match (single, soak) {
                (true, true) => &COMPACTIONS[..],
                (true, false) => &COMPACTIONS[rotated..=rotated],
                (false, _) => &COMPACTIONS[..1],
            };
            rows.extend(
                check(&tag, manifest, &source, &cfg, &Mode::ALL, compactions)
                    .unwrap_or_else(|e| panic!("{e}")),
            );
            checked = true;
        }
        assert!(checked, "{name} fits none of the configurations");
    }
    println!("{}", tightness_table(&rows));
    assert!(rows.iter().all(Tightness::safe));
}

/// A kernel of two-wavefront workgroups with an LDS stage between barriers, an 8-way bank
/// conflict, LDS and FLAT atomics (with and without `glc`): bounded in every configuration and
/// mode, and its DS instructions within their contract rows (the 16-way worst case).
const LDS_KERNEL: &str = "k:
    s_load_dwordx4 s[4:7], s[0:1], 0x0
    s_mov_b32 m0, -1
    v_lshlrev_b32_e32 v1, 2, v0
    ds_write_b32 v1, v0
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_xor_b32_e32 v2, 4, v1
    ds_read_b32 v3, v2
    v_and_b32_e32 v4, 7, v0
    v_lshlrev_b32_e32 v4, 7, v4
    ds_add_rtn_u32 v5, v4, v0
    ds_read2_b32 v[13:14], v1 offset1:64
    ds_write_b64 v1, v[13:14] offset:512
    s_waitcnt lgkmcnt(0)
    s_lshl_b32 s8, s2, 7
    v_add_u32_e32 v6, vcc, s8, v0
    v_lshlrev_b32_e32 v6, 2, v6
    v_mov_b32_e32 v7, s5
    v_add_u32_e32 v6, vcc, s4, v6
    v_addc_u32_e32 v7, vcc, 0, v7, vcc
    v_add_u32_e32 v8, vcc, v3, v5
    flat_store_dword v[6:7], v8
    v_mov_b32_e32 v9, s6
    v_mov_b32_e32 v10, s7
    v_mov_b32_e32 v11, 1
    flat_atomic_add v12, v[9:10], v11 glc
    flat_atomic_cmpswap v[9:10], v[11:12]
    s_endpgm
.amdhsa_kernel k
.amdhsa_next_free_vgpr 16
.amdhsa_next_free_sgpr 16
.amdhsa_group_segment_fixed_size 1536
.amdhsa_user_sgpr_kernarg_segment_ptr 1
.amdhsa_system_sgpr_workgroup_id_x 1
.end_amdhsa_kernel
";

#[test]
fn lds_and_atomic_kernels_are_bounded() {
    let manifest = Manifest::parse(
        "kernel = \"k.s\"\ngrid = 256\nworkgroup = 128\nargs = [\"out\", \"counter\"]\n\
         [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 256\n\
         [[buffer]]\nname = \"counter\"\ntype = \"u32\"\nlen = 1\n",
        "k.toml",
    )
    .unwrap();
    let source = KernelSource {
        text: LDS_KERNEL.into(),
        file: "k.s".into(),
    };
    let mut rows = Vec::new();
    for cfg in configurations() {
        let tag = format!(
            "lds (S = {}, {} slots)",
            cfg.spsimds_per_simd,
            cfg.simds_per_cu * 2
        );
        rows.extend(
            check(
                &tag,
                &manifest,
                &source,
                &cfg,
                &Mode::ALL,
                &COMPACTIONS[..1],
            )
            .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    println!("{}", tightness_table(&rows));
    assert!(rows.iter().all(Tightness::safe));
}

/// A loop of scalar loads whose offset is an SGPR (clang's `a[k & 63]` with k uniform), as
/// clang -O2 writes `for (k = 1; k < n; k *= 3) s += a[k & 63]`: the offset is a read of its
/// own, which the bound charged as none (the RTL took 304 cycles against a bound of 302).
#[test]
fn scalar_loads_with_an_sgpr_offset_are_bounded() {
    let manifest = Manifest::parse(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [\"a\", 20]\n\
         [[buffer]]\nname = \"a\"\ntype = \"u32\"\nlen = 64\n",
        "k.toml",
    )
    .unwrap();
    let source = KernelSource {
        text: "k:
    s_load_dword s3, s[6:7], 0x8
    s_load_dwordx2 s[0:1], s[6:7], 0x0
    s_mov_b32 s2, 0
    s_mov_b32 s6, 1
    s_waitcnt lgkmcnt(0)
.L1:
    s_and_b32 s7, s6, 63
    s_lshl_b32 s7, s7, 2
    s_load_dword s7, s[0:1], s7
    s_mul_i32 s6, s6, 3
    s_waitcnt lgkmcnt(0)
    s_add_i32 s2, s7, s2
    s_cmp_ge_i32 s6, s3
    s_cbranch_scc0 .L1
    s_endpgm
"
        .to_string()
            + &pws_isa::testing::clang_descriptor("k", 4, 16),
        file: "k.s".into(),
    };
    let rows = check(
        "smem soffset",
        &manifest,
        &source,
        &HwConfig::cu(),
        &[Mode::NoSplit],
        &COMPACTIONS[..1],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(rows.iter().all(Tightness::safe));
}

/// Triangular nests as clang-14 -O2 writes them, no annotation: the analysis bounds the inner
/// loop by its trips averaged over the outer iterations that enter it
/// (`pws_host::extract::amortize`). Rising and falling triangles (clang guards the inner loop
/// of `j < i` and `j = i + 1..n`), an inclusive one (no guard), one whose inner body splits
/// (in PWS and DWS), and what it must not average:
/// an inner loop some lanes skip, and one behind `(i & 1) == 0`, which clang branches on as a
/// mask in VCC (`s_bitcmp1_b32`, `s_cselect_b64`, `s_cbranch_vccnz`) that the analysis does not
/// decide. (`verify/tests/exec_loops_golden.rs` has the breaks and the guards it decides.)
#[test]
fn triangular_nests_are_bounded() {
    const SOURCE: &str = r#"
__kernel void rising(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s += v[g + i] * v[g + j];
  out[g] = s;
}
__kernel void falling(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      s += v[g + i] > v[g + j];
  out[g] = s;
}
__kernel void inclusive(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      s ^= v[g + j] << (i & 7);
  out[g] = s;
}
__kernel void even_rows(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++) {
    s += v[g + i];
    if ((i & 1) == 0)
      for (int j = i; j < n; j++)
        s += v[g + j] * 3;
  }
  out[g] = s;
}
__kernel void splitting(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int a = v[g + i], b = v[g + j];
      PWS_SPLIT();
      if ((a * b + g) % 3) {
        s += a * 3 - b;
        s ^= s >> 3;
        s += b * b;
      } else {
        s -= a + b * 5;
        s ^= s << 2;
        s += a * a;
      }
    }
  out[g] = s;
}
__kernel void skipping(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = 0;
  for (int i = 0; i < n; i++)
    if (v[g + i] & 1)
      for (int j = 0; j < i; j++)
        s += v[g + j];
  out[g] = s;
}
"#;
    let mut rows = Vec::new();
    for (entry, averaged) in [
        ("rising", true),
        ("falling", true),
        ("inclusive", true),
        ("even_rows", true),
        ("splitting", true),
        ("skipping", false),
    ] {
        let (notes, checked) = check_cl(SOURCE, entry, 9);
        let noted = notes.iter().any(|n| n.contains("on average"));
        assert_eq!(noted, averaged, "{entry}: {notes:#?}");
        rows.extend(checked);
    }
    println!("{}", tightness_table(&rows));
    assert!(rows.iter().all(Tightness::safe));
}

/// A loop of one trip that clang removes leaves its body, and its `PWS_LOOP_BOUND(1)`, in the
/// enclosing loop (the marker gave the loop a bound of 1: 1,415 RTL cycles against a bound of
/// 312). The line table tells the marker from the loop's own, and the bound proved from the
/// enclosing counter bounds it.
#[test]
fn a_removed_loops_annotation_does_not_bound_its_enclosing_loop() {
    const SOURCE: &str = r#"
__kernel void k(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), acc = v[g];
  for (int t = 0; t < n; t++)
    for (int c = 0; c < 1; c++) {
      PWS_LOOP_BOUND(1);
      acc = acc * 3 + t + (acc >> 5);
    }
  out[g] = acc;
}
"#;
    bounded_with_notes(
        SOURCE,
        24,
        64,
        &[
            "loop bound 24 inferred for this launch",
            "which clang removed or unrolled whole",
        ],
    );
}

/// A removed one-trip loop's marker in an enclosing loop whose counter the analysis cannot
/// read (`while (x > 1)`, Collatz steps): the marker was that loop's only bound, 1 (a user's
/// kernel ran 10,964 RTL cycles against a bound of 328). clang's line table places the loop's
/// compare in the `while`, outside the `for` the marker is in, so the marker bounds nothing
/// and the loop needs its own annotation; with it, the bound holds.
#[test]
fn a_removed_loops_marker_does_not_bound_a_loop_without_a_counter() {
    let source = |own: &str| {
        format!(
            "__kernel void k(__global const int *v, __global int *out, int n) {{\n\
               uint x = (uint)v[get_global_id(0) % 80] | 2u;\n\
               int acc = 0;\n\
               while (x > 1) {{{own}\n\
                 for (int c = 0; c < 1; c++) {{\n\
                   PWS_LOOP_BOUND(1);\n\
                   acc += (int)x;\n\
                   x = (x & 1) ? 3 * x + 1 : x / 2;\n\
                 }}\n\
               }}\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        )
    };
    let (dir, manifest, kernel) = cl_launch(&source(""), "k", 0, 64);
    let err = analyse_launch(
        &manifest,
        &kernel,
        &machine(&HwConfig::cu()),
        &Mode::ALL,
        SplitPolicy::Marked,
    )
    .err()
    .unwrap_or_else(|| panic!("bounded by the removed loop's marker"))
    .to_string();
    let cl = dir.path().join("k.cl");
    let expected = format!(
        "'pws: loop_bound' belongs to the loop at {0}:5:1, which clang removed or unrolled \
         whole: it sits in the loop at {0}:4:1 (whose compare at {0}:4:10 is in this loop)",
        cl.display()
    );
    assert!(
        err.contains("has no bound") && err.contains(&expected),
        "{err}"
    );
    // 7 takes the most steps of the values (v is 0..=9): 16.
    let (_, rows) = check_cl(&source(" PWS_LOOP_BOUND(16);"), "k", 0);
    println!("{}", tightness_table(&rows));
    assert!(rows.iter().all(Tightness::safe));
}

/// A workgroup's strided walk, `for (j = get_local_id(0); j < 64; j += 16)`: clang
/// starts it at `lid - 16`, which wraps around for the first lanes; bounded from the lanes'
/// ids without an annotation.
#[test]
fn a_strided_walk_from_the_local_id_is_bounded() {
    const SOURCE: &str = r#"
__kernel void k(__global const int *v, __global int *out, int n) {
  int s = 0;
  for (int j = get_local_id(0); j < 64; j += 16)
    s = s * 3 + v[j];
  out[get_global_id(0)] = s;
}
"#;
    bounded_with_notes(SOURCE, 16, 64, &["loop bound 4 inferred"]);
}

/// A limit that differs between workgroups, `j < get_group_id(0) * 3 + 2`: bounded by its
/// most trips over the launch's four workgroups (11), without an annotation.
#[test]
fn a_limit_from_the_workgroup_id_is_bounded() {
    const SOURCE: &str = r#"
__kernel void k(__global const int *v, __global int *out, int n) {
  int g = get_global_id(0), s = v[g % 80];
  for (int j = 0; j < (int)get_group_id(0) * 3 + 2; j++)
    s = s * 5 + j + (s >> 7);
  out[g] = s;
}
"#;
    bounded_with_notes(SOURCE, 0, 256, &["loop bound 11 inferred"]);
}

/// Kernel `k` of OpenCL C `source` on `grid` work-items ([`check_cl_on`]): within its bound
/// in every mode, and for each of `each` one of the launch's loop notes says it.
fn bounded_with_notes(source: &str, n: u32, grid: u32, each: &[&str]) {
    let (notes, rows) = check_cl_on(source, "k", n, grid);
    for note in each {
        assert!(notes.iter().any(|x| x.contains(note)), "{note}: {notes:#?}");
    }
    println!("{}", tightness_table(&rows));
    assert!(rows.iter().all(Tightness::safe));
}

/// Writes OpenCL C `source` to a fresh directory, launches `entry` on 64 work-items with
/// arguments (v, out, n), v holding 0..=9, and checks it with [`check`] in every mode on the
/// `cu` preset: the launch's loop notes and the tightness rows.
fn check_cl(source: &str, entry: &str, n: u32) -> (Vec<String>, Vec<Tightness>) {
    check_cl_on(source, entry, n, 64)
}

/// [`check_cl`] on `grid` work-items.
fn check_cl_on(source: &str, entry: &str, n: u32, grid: u32) -> (Vec<String>, Vec<Tightness>) {
    let (_dir, manifest, source) = cl_launch(source, entry, n, grid);
    let cfg = HwConfig::cu();
    let report = analyse_launch(
        &manifest,
        &source,
        &machine(&cfg),
        &Mode::ALL,
        SplitPolicy::Marked,
    )
    .unwrap_or_else(|e| panic!("{entry}: {e}"));
    let rows = check(
        entry,
        &manifest,
        &source,
        &cfg,
        &Mode::ALL,
        &COMPACTIONS[..1],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (report.notes, rows)
}

/// The launch of [`check_cl_on`], in a fresh directory that lives as long as it is held.
fn cl_launch(
    source: &str,
    entry: &str,
    n: u32,
    grid: u32,
) -> (tempfile::TempDir, Manifest, KernelSource) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), source).unwrap();
    let values: Vec<String> = (0..80).map(|k| ((k * 7 + 3) % 10).to_string()).collect();
    std::fs::write(dir.path().join("v.txt"), values.join("\n")).unwrap();
    let path = dir.path().join(format!("{entry}.toml"));
    std::fs::write(
        &path,
        format!(
            "kernel = \"k.cl\"\nentry = \"{entry}\"\ngrid = {grid}\nworkgroup = 64\nargs = [\"v\", \"out\", {n}]\n\
             [[buffer]]\nname = \"v\"\ntype = \"i32\"\nfile = \"v.txt\"\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {grid}\n"
        ),
    )
    .unwrap();
    let manifest = Manifest::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let source = KernelSource::load(&manifest).unwrap();
    (dir, manifest, source)
}

/// `make test`: 8 generated kernels, each in every mode. `make soak` (PWS_PROPTEST_SCALE = 10):
/// 10^4, each in one mode drawn at random (a case is three RTL runs otherwise).
fn generated_cases() -> u32 {
    match proptest_cases(1) {
        1 => 8,
        scale => 1_000 * scale,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        max_shrink_iters: 16,
        ..ProptestConfig::with_cases(generated_cases())
    })]

    #[test]
    fn generated_kernels_are_bounded(spec in kernel_spec(GenOptions::default()), c in 0..COMPACTIONS.len(), m in 0..Mode::ALL.len()) {
        let generated = spec.render();
        let source = KernelSource { text: generated.source.clone(), file: "gen.s".into() };
        let modes = if generated_cases() > 8 { vec![Mode::ALL[m]] } else { Mode::ALL.to_vec() };
        let rows = check("generated", &generated.manifest, &source, &HwConfig::cu(), &modes, &[COMPACTIONS[c]])
            .map_err(|e| TestCaseError::fail(format!("{e}\n{}", generated.source)))?;
        println!("{}", tightness_table(&rows));
    }
}
