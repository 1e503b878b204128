//! OpenCL C input end to end: a manifest naming a `.cl` file is compiled by clang-14 and runs;
//! compiler errors, a missing compiler, a wrong `entry` and misplaced flags are clear errors;
//! `PWS_SPLIT()` splits, and PWS without any split says so.

mod common;

use common::{buffer, command, json, pws_err, pws_ok, pws_stderr_ok};

const TWO_KERNELS: &str = r#"
__kernel void first(__global const int *in, __global int *out) {
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
    let data: Vec<i64> = (0..64).map(|v| v * 37 % 101).collect();
    launch_with(dir, kernel, extra, "i32", &data)
}

/// `k.cl` launched on 64 work-items with `in`, a buffer of `ty` holding `data`, and `out`, 64
/// `i32`s.
fn launch_with(dir: &std::path::Path, kernel: &str, extra: &str, ty: &str, data: &[i64]) -> String {
    std::fs::write(dir.join("k.cl"), kernel).unwrap();
    let m = format!(
        "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\"]\n{extra}\n\
         [[buffer]]\nname = \"in\"\ntype = \"{ty}\"\ndata = [{}]\n\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 64\n",
        data.iter()
            .map(i64::to_string)
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
    let m = launch(dir.path(), TWO_KERNELS, "entry = \"second\"");
    let golden = json(&["golden", &m, "--mode", "pws", "--json"]);
    assert_eq!(buffer(&golden, "out"), expected());
    assert!(
        golden["stats"]["splits"].as_u64().unwrap() >= 1,
        "{}",
        golden["stats"]
    );
    let run = json(&["run", &m, "--mode", "pws", "--S", "1", "--json"]);
    assert!(run["splits"].as_u64().unwrap() >= 1);
    assert_eq!(run["warnings"].as_array().unwrap().len(), 0);
    // clang-14 at -O2 drops the else's skip branch (nine instructions); the pass puts it back,
    // so the two sides run side by side and PWS beats the GPU without it.
    let nosplit = json(&["run", &m, "--mode", "nosplit", "--json"]);
    assert_eq!(buffer(&run, "out"), expected());
    assert!(
        run["cycles"].as_u64().unwrap() < nosplit["cycles"].as_u64().unwrap(),
        "pws {} cycles, no-split {}",
        run["cycles"],
        nosplit["cycles"]
    );
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

/// `PWS_LOOP_BOUND` takes any integer constant expression (its marker carried the text,
/// `loop_bound 19 + 1`, which the analysis could not read), of any size (clang prints one
/// above 64 in hexadecimal), and a value that is not constant is clang's error at the macro's
/// line.
#[test]
fn a_loop_bound_is_a_constant_expression() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = |bound: &str| {
        format!(
            "#define MAXC 19\n\
             __kernel void k(__global const int *in, __global int *out) {{\n\
               int i = get_global_id(0), s = 0;\n\
               unsigned x = in[i] + 1;\n\
               while (x > 1) {{\n\
                 PWS_LOOP_BOUND({bound});\n\
                 x = x & 1 ? 3 * x + 1 : x / 2;\n\
                 s++;\n\
               }}\n\
               out[i] = s;\n\
             }}\n"
        )
    };
    let bound = |text: &str| {
        let m = launch(dir.path(), &kernel(text), "");
        let wcet = json(&["wcet", &m, "--mode", "nosplit", "--json"]);
        wcet["modes"][0]["bound"].as_u64().unwrap()
    };
    assert_eq!(bound("MAXC + 1"), bound("20"));
    // The bound is linear in N; above 64 clang prints N in hexadecimal (`loop_bound 0x6f`).
    let (b10, b20, b111) = (bound("10"), bound("20"), bound("111"));
    assert!(b10 < b20);
    assert_eq!((b111 - b20) * 10, (b20 - b10) * 91);
    assert_eq!(bound("100000") - b20, (b20 - b10) * 9_998);
    let m = launch(dir.path(), &kernel("in[0]"), "");
    let e = pws_err(&["wcet", &m]);
    assert!(e.contains("k.cl:6:"), "{e}");
    assert!(e.contains("constraint 'i'"), "{e}");
}

/// Loops SDK kernels are full of need no annotation for a launch: the remainder loop clang
/// adds when it unrolls `for (k = 0; k < w; k++)`, which a launch with w a multiple of the
/// unrolling never enters (AMD's DCT), a kernel's second workgroup-stride loop, entered
/// after the first one's exit restored EXEC (a histogram's clearing and merging of its
/// bins), and a stride loop up to a power of two. The bounds cover the RTL's runs.
#[test]
fn unrolled_remainders_and_second_stride_loops_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let dct = "__constant float c8[8] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f};\n\
               __kernel void k(__global const float *in, __global float *out, uint w) {\n\
                 __local float inter[64];\n\
                 uint i = get_local_id(0);\n\
                 inter[i] = in[i];\n\
                 barrier(CLK_LOCAL_MEM_FENCE);\n\
                 float acc = 0.0f;\n\
                 for (uint k = 0; k < w; k++)\n\
                   acc += inter[(i * w + k) & 63] * c8[(k + i) & 7];\n\
                 out[get_global_id(0)] = acc;\n\
               }\n";
    let bins = "__kernel void k(__global const float *in, __global float *out, uint w) {\n\
                  for (uint i = get_local_id(0); i < 100; i += get_local_size(0))\n\
                    out[i] = in[i & 63];\n\
                  for (uint i = get_local_id(0); i < 100; i += get_local_size(0))\n\
                    out[i] += w;\n\
                }\n";
    // A limit of 256, which clang tests by clearing the low 8 bits.
    let bins256 = bins.replace("i < 100", "i < 256");
    // The unrolled loop steps by 8, so w = 8 never enters the remainder and w = 7 never
    // enters the unrolled loop.
    for (kernel, w, note) in [
        (dct, 8, "the loop is never entered"),
        (dct, 7, "the loop is never entered"),
        (bins, 1, "each lane's v0 counts from its start"),
        (&bins256, 1, "each lane's v0 counts from its start"),
    ] {
        std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
        let m = dir.path().join("k.toml");
        std::fs::write(
            &m,
            format!(
                "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\", {w}]\n\
                 [[buffer]]\nname = \"in\"\ntype = \"f32\"\ndata = [1.5, 2.0, -3.0]\nlen = 64\n\
                 [[buffer]]\nname = \"out\"\ntype = \"f32\"\nlen = 256\n"
            ),
        )
        .unwrap();
        let m = m.to_str().unwrap();
        let notes = pws_ok(&["wcet", m]);
        assert!(notes.contains(note), "{kernel}\n{notes}");
        let rows = json(&["compare", m, "--mode", "nosplit", "--json"]);
        let row = &rows.as_array().unwrap()[0];
        assert!(
            row["cycles"].as_u64().unwrap() <= row["bound"].as_u64().unwrap(),
            "{kernel}\n{row}"
        );
    }
}

/// Tree reductions over the workgroup's size, as the AMD and NVIDIA samples write them, need
/// no `PWS_LOOP_BOUND`: clang halves the 64-bit `get_local_size(0)` in a VGPR
/// (`v_alignbit_b32`) when the size also takes part in an index, or in an SGPR otherwise, and
/// either counter is read; the interleaved form doubles its stride in an SGPR that the `if`
/// borrows for an address. The bounds cover the RTL's runs in every mode, which sum right.
#[test]
fn tree_reductions_over_the_workgroup_size_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let two_loads = "__kernel void k(__global const float *in, __global float *out) {\n\
                       __local float s[128];\n\
                       uint tid = get_local_id(0);\n\
                       uint i = get_group_id(0) * (get_local_size(0) * 2) + tid;\n\
                       s[tid] = in[i] + in[i + get_local_size(0)];\n\
                       barrier(CLK_LOCAL_MEM_FENCE);\n\
                       for (uint k = get_local_size(0) / 2; k > 0; k >>= 1) {\n\
                         if (tid < k) s[tid] += s[tid + k];\n\
                         barrier(CLK_LOCAL_MEM_FENCE);\n\
                       }\n\
                       if (tid == 0) out[get_group_id(0)] = s[0];\n\
                     }\n";
    // The loop stops above one wavefront's lanes, whose steps the kernel then unrolls.
    let above_a_wavefront = two_loads.replace("k > 0;", "k > 32;").replace(
        "if (tid == 0)",
        "if (tid < 32) { s[tid] += s[tid + 32]; s[tid] += s[tid + 16]; }\n if (tid == 0)",
    );
    let signed = "__kernel void k(__global const float *in, __global float *out) {\n\
                    __local float s[128];\n\
                    int tid = get_local_id(0);\n\
                    s[tid] = in[get_global_id(0)] + in[get_global_id(0) + 256];\n\
                    barrier(CLK_LOCAL_MEM_FENCE);\n\
                    for (int k = get_local_size(0) >> 1; k > 0; k >>= 1) {\n\
                      if (tid < k) s[tid] += s[tid + k];\n\
                      barrier(CLK_LOCAL_MEM_FENCE);\n\
                    }\n\
                    if (tid == 0) out[get_group_id(0)] = s[0];\n\
                  }\n";
    // NVIDIA's interleaved addressing, doubling the stride up to the size.
    let interleaved = signed.replace(
        "for (int k = get_local_size(0) >> 1; k > 0; k >>= 1) {\n\
                      if (tid < k)",
        "for (uint k = 1; k < get_local_size(0); k *= 2) {\n\
                      if (tid % (2 * k) == 0)",
    );
    assert_ne!(interleaved, signed);
    for (kernel, note) in [
        (two_loads, "each lane's v"),
        (&above_a_wavefront, "shifted right by 1"),
        (signed, "shifted right by 1"),
        (&interleaved, "shifted left by 1"),
    ] {
        std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
        let m = dir.path().join("k.toml");
        // Two workgroups of 128 sum 256 ones each.
        let expect = if kernel == above_a_wavefront {
            ""
        } else {
            "expect = [256.0, 256.0]\n"
        };
        std::fs::write(
            &m,
            format!(
                "kernel = \"k.cl\"\ngrid = 256\nworkgroup = 128\nargs = [\"in\", \"out\"]\n\
                 [[buffer]]\nname = \"in\"\ntype = \"f32\"\ndata = [{}]\n\
                 [[buffer]]\nname = \"out\"\ntype = \"f32\"\nlen = 2\n{expect}",
                vec!["1.0"; 512].join(", ")
            ),
        )
        .unwrap();
        let m = m.to_str().unwrap();
        let notes = pws_ok(&["wcet", m]);
        assert!(
            notes.contains("loop bound") && notes.contains(note),
            "{kernel}\n{notes}"
        );
        for mode in ["nosplit", "dws", "pws"] {
            let rows = json(&["compare", m, "--mode", mode, "--S", "3", "--json"]);
            for row in rows.as_array().unwrap() {
                assert!(
                    row["cycles"].as_u64().unwrap() <= row["bound"].as_u64().unwrap(),
                    "{kernel}\n{row}"
                );
                assert_eq!(row["golden_equal"], true, "{kernel}\n{row}");
                assert_ne!(row["expect_equal"], false, "{kernel}\n{row}");
            }
        }
    }
}

/// Counters users write that clang turns into shapes of their own need no `PWS_LOOP_BOUND`:
/// a signed `st /= 2` (a shift with the sign bit added first), a count down to 0 whose
/// compare reads the counter before its step (`i >= 0` as `4 > i` unsigned), one from a
/// kernel argument, a doubling stride against `get_local_size(0)` of a partial last
/// workgroup (OpenCL C 2.0), and NVIDIA's reduce6 loop, counted from the local id and compared
/// with the workgroup's offset added; the last two take their most trips over the
/// workgroups. The bounds cover the RTL's runs, which equal the golden model's.
#[test]
fn signed_halvings_count_downs_and_workgroup_dependent_loops_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let kernels = [
        (
            "__kernel void k(__global const int *in, __global int *out, int n) {\n\
               __local int s[64];\n\
               int lid = get_local_id(0), ls = get_local_size(0);\n\
               s[lid] = in[get_global_id(0)];\n\
               barrier(CLK_LOCAL_MEM_FENCE);\n\
               for (int st = ls / 2; st > 0; st /= 2) {\n\
                 if (lid < st) s[lid] += s[lid + st];\n\
                 barrier(CLK_LOCAL_MEM_FENCE);\n\
               }\n\
               if (lid == 0) out[get_group_id(0)] = s[0];\n\
             }\n",
            "",
            128,
            "divided by 2",
        ),
        (
            "__kernel void k(__global const int *in, __global int *out, int n) {\n\
               int g = get_global_id(0), s = 0;\n\
               for (int i = g; i >= 0; i -= 4) s ^= in[i & 63] + i;\n\
               for (int i = n - 1 - (g & 3); i >= 0; i -= 3) s -= in[i];\n\
               out[g] = s;\n\
             }\n",
            "",
            128,
            "by -3",
        ),
        (
            "__kernel void k(__global const int *in, __global int *out, int n) {\n\
               __local int s[64];\n\
               int lid = get_local_id(0), ls = get_local_size(0);\n\
               s[lid] = in[get_global_id(0)];\n\
               barrier(CLK_LOCAL_MEM_FENCE);\n\
               for (int st = 1; st < ls; st *= 2) {\n\
                 if (lid % (2 * st) == 0 && lid + st < ls) s[lid] += s[lid + st];\n\
                 barrier(CLK_LOCAL_MEM_FENCE);\n\
               }\n\
               if (lid == 0) out[get_group_id(0)] = s[0];\n\
             }\n",
            "cflags = [\"-cl-std=CL2.0\"]\n",
            100,
            "shifted left by 1",
        ),
        (
            "__kernel void k(__global const int *in, __global int *out, int n) {\n\
               uint tid = get_local_id(0), bs = get_local_size(0);\n\
               uint i = get_group_id(0) * (bs * 2) + tid;\n\
               uint grid = bs * 2 * get_num_groups(0);\n\
               int sum = 0;\n\
               while (i < n) {\n\
                 sum += in[i];\n\
                 if (i + bs < n) sum += in[i + bs];\n\
                 i += grid;\n\
               }\n\
               out[get_global_id(0)] = sum;\n\
             }\n",
            "",
            128,
            "each lane's v",
        ),
    ];
    for (kernel, flags, grid, note) in kernels {
        std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
        let m = dir.path().join("k.toml");
        std::fs::write(
            &m,
            format!(
                "kernel = \"k.cl\"\n{flags}grid = {grid}\nworkgroup = 64\nargs = [\"in\", \"out\", 20]\n\
                 [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\
                 [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 128\n",
                (0..128).map(|v| (v * 37 % 101).to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
        .unwrap();
        let m = m.to_str().unwrap();
        let notes = pws_ok(&["wcet", m]);
        assert!(notes.contains(note), "{kernel}\n{notes}");
        for mode in ["nosplit", "pws"] {
            let rows = json(&[
                "compare",
                m,
                "--mode",
                mode,
                "--S",
                "2",
                "--compaction",
                "none",
                "--json",
            ]);
            for row in rows.as_array().unwrap() {
                assert!(
                    row["cycles"].as_u64().unwrap() <= row["bound"].as_u64().unwrap(),
                    "{kernel}\n{row}"
                );
                assert_eq!(row["golden_equal"], true, "{kernel}\n{row}");
            }
        }
    }
}

/// A `PWS_LOOP_BOUND` of a loop clang removed (one trip) lands in the enclosing loop's code:
/// the line table says so, and the enclosing loop, whose counter the analysis cannot read,
/// needs its own bound instead of taking the marker's 1. The enclosing loop is a `for (;;)`
/// left by a `break`, a `while` around a `do ... while (0)`, or a `while` that calls a helper
/// whose loop clang removed, a `while (more(x))` whose test is in a helper, a kernel after
/// another in its file. The error names that loop by its statement in the source.
/// Markers of loops that stay (nested, after an inner loop, in a
/// helper's loop, in a macro's loop, a `for` over several lines, beside loops the preprocessor
/// left out) bound their loops as before.
#[test]
fn a_removed_loops_marker_does_not_bound_the_loop_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let step = "acc += (int)x; x = (x & 1) ? 3 * x + 1 : x / 2;";
    let removed = [
        format!(
            "__kernel void k(__global const int *v, __global int *out) {{\n\
               int acc = 0; uint x = (uint)v[get_global_id(0)] | 2u;\n\
               for (;;) {{\n\
                 for (int c = 0; c < 1; c++) {{ PWS_LOOP_BOUND(1); {step} }}\n\
                 if (x <= 1) break;\n\
               }}\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        ),
        format!(
            "__kernel void k(__global const int *v, __global int *out) {{\n\
               int acc = 0; uint x = (uint)v[get_global_id(0)] | 2u;\n\
               while (x != 1)\n\
                 do {{ PWS_LOOP_BOUND(1); {step} }} while (0);\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        ),
        format!(
            "#define ROUNDS 1\n\
             static uint rounds(uint x, __private int *acc_) {{\n\
               int acc = *acc_;\n\
               for (int c = 0; c < ROUNDS; c++) {{ PWS_LOOP_BOUND(ROUNDS); {step} }}\n\
               *acc_ = acc;\n\
               return x;\n\
             }}\n\
             __kernel void k(__global const int *v, __global int *out) {{\n\
               int acc = 0; uint x = (uint)v[get_global_id(0)] | 2u;\n\
               while (x > 1) x = rounds(x, &acc);\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        ),
    ];
    // The enclosing loop's test in a helper, and a kernel after another in its file (clang
    // writes the line table's files in the first function).
    let unrolled = "for (int j = 0; j < 4; j++) { PWS_LOOP_BOUND(4); acc += v[(x + j) & 63] * j; }";
    let removed = [
        removed[0].clone(),
        removed[1].clone(),
        removed[2].clone(),
        format!(
            "static int more(int x) {{ return x > 3; }}\n\
             __kernel void k(__global const int *v, __global int *out) {{\n\
               int x = v[get_global_id(0)], acc = 0;\n\
               while (more(x)) {{\n\
                 {unrolled}\n\
                 x = v[x & 63];\n\
               }}\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        ),
        format!(
            "__kernel void first(__global int *out) {{ out[0] = 1; }}\n\
             __kernel void k(__global const int *v, __global int *out) {{\n\
               int x = v[get_global_id(0)], acc = 0;\n\
               while (x > 3) {{\n\
                 __attribute__((opencl_unroll_hint)) {unrolled}\n\
                 x = v[x & 63];\n\
               }}\n\
               out[get_global_id(0)] = acc;\n\
             }}\n"
        ),
    ];
    // Where the marker's loop and the loop it lands in start, in each source.
    let at = [
        ((4, 1), (3, 1)),
        ((4, 1), (3, 1)),
        ((4, 1), (10, 1)),
        ((5, 1), (4, 1)),
        ((5, 37), (4, 1)),
    ];
    for (k, (source, (own, around))) in removed.iter().zip(at).enumerate() {
        let path = dir.path().join(format!("removed{k}.cl"));
        std::fs::write(&path, source).unwrap();
        let p = path.to_str().unwrap();
        let e = pws_err(&["wcet", p, "--entry", "k"]);
        let pos = |(l, c): (u32, u32)| format!("{p}:{l}:{c}");
        assert!(
            e.contains(&format!(
                "'pws: loop_bound' belongs to the loop at {}, which clang removed",
                pos(own)
            )) && e.contains(&format!("it sits in the loop at {}", pos(around)))
                && e.contains(&format!(", the loop at {}) (back edge", pos(around)))
                && e.contains("has no bound"),
            "{k}: {e}"
        );
    }
    let stay = [
        "__kernel void k(__global const int *v, __global int *out, int n, int m) {\n\
           int acc = v[get_global_id(0)];\n\
           for (int i = 0; i < n; i++) {\n\
             PWS_LOOP_BOUND(8);\n\
             for (int j = 0; j < m + i; j++) { PWS_LOOP_BOUND(20); acc = acc * 3 + j; }\n\
           }\n\
           out[get_global_id(0)] = acc;\n\
         }\n",
        "__kernel void k(__global const int *v, __global int *out) {\n\
           int acc = v[get_global_id(0)]; uint x = (uint)acc;\n\
           while (x > 1) {\n\
             for (int j = 0; j < (x & 3); j++) { PWS_LOOP_BOUND(3); acc += j * x; }\n\
             PWS_LOOP_BOUND(40);\n\
             x = (x & 1) ? 3 * x + 1 : x / 2;\n\
           }\n\
           out[get_global_id(0)] = acc;\n\
         }\n",
        "static int helper(int x, int n) {\n\
           int s = 0;\n\
           for (int t = 0; t < n; t++) { PWS_LOOP_BOUND(6); s += x * t ^ (s >> 2); }\n\
           return s;\n\
         }\n\
         #define FOR_EACH(i, n) for (int i = 0; i < (n); i++)\n\
         __kernel void k(__global const int *v, __global int *out, int n) {\n\
           int acc = v[get_global_id(0)];\n\
           for (int i = 0;\n\
                i < n;\n\
                i++) {\n\
             PWS_LOOP_BOUND(5);\n\
             acc += helper(acc, v[i] & 7);\n\
           }\n\
           FOR_EACH(i, n) { PWS_LOOP_BOUND(9); if (acc & 1) acc = acc * 3 + i; else acc >>= 1; }\n\
           out[get_global_id(0)] = acc;\n\
         }\n",
        // A loop the preprocessor left out, and the branch of an `#ifdef` it did not compile.
        "__kernel void k(__global const int *v, __global int *out) {\n\
           int x = v[get_global_id(0)], acc = 0;\n\
           while (x > 3) {\n\
         #if 0\n\
             for (int j = 0; j < 2; j++) {\n\
         #endif\n\
               PWS_LOOP_BOUND(64);\n\
               acc += v[x & 63];\n\
         #if 0\n\
             }\n\
         #endif\n\
         #ifdef NEVER\n\
             for (int j = 0; j < 2; j++) {\n\
         #else\n\
             for (int j = 0; j < x; j++) {\n\
         #endif\n\
               PWS_LOOP_BOUND(64);\n\
               acc += j;\n\
             }\n\
             x = v[x & 63];\n\
           }\n\
           out[get_global_id(0)] = acc;\n\
         }\n",
    ];
    for (k, source) in stay.iter().enumerate() {
        let path = dir.path().join(format!("stay{k}.cl"));
        std::fs::write(&path, source).unwrap();
        let out = pws_stderr_ok(&["wcet", path.to_str().unwrap()]);
        assert!(!out.contains("belongs to the loop"), "{k}: {out}");
    }
}

/// A kernel given to a command that runs a launch (`pws run k.cl`, as `pws wcet k.cl` takes
/// it) is named as a kernel, with the way to a manifest, instead of a TOML syntax error.
#[test]
fn a_kernel_where_a_manifest_belongs_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.cl");
    std::fs::write(&k, "__kernel void k(__global int *o) { o[0] = 1; }\n").unwrap();
    let s = dir.path().join("k.s");
    std::fs::write(&s, "\ts_endpgm\n").unwrap();
    for (path, what) in [(&k, "an OpenCL C kernel"), (&s, "a GCN3 kernel")] {
        let p = path.to_str().unwrap();
        for cmd in ["run", "golden", "compare"] {
            let e = pws_err(&[cmd, p]);
            assert!(
                e.contains(&format!("{what}, not a launch manifest")),
                "{cmd}: {e}"
            );
            assert!(e.contains("`pws manifest k."), "{cmd}: {e}");
        }
    }
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

/// Without a device library clang calls what pws.h does not define; the error names the
/// functions (demangled) and the assembly line, not the `s_getpc_b64` that starts the call.
#[test]
fn a_call_names_the_missing_functions() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        "__attribute__((noinline)) int twice(int x) { return 2 * x; }\n\
         __attribute__((overloadable)) float bessel(float x);\n\
         __kernel void k(__global const int *in, __global float *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = bessel((float)in[i]) + twice(in[i]);\n\
         }\n",
        "",
    );
    let e = pws_err(&["golden", &m]);
    assert!(
        e.contains("k.cl: the kernel calls `bessel`, `twice` ("),
        "{e}"
    );
    assert!(e.contains(".s:"), "{e}");
    assert!(e.contains("which pws.h does not define"), "{e}");
    assert!(!e.contains("s_getpc_b64"), "{e}");
}

/// pws.h's integer, conversion, relational, geometric and vector built-ins, and vector loads
/// and stores, compile to instructions (no call) and give, on the golden model and the RTL, the values computed here.
#[test]
fn pws_h_builtins_compute_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int x = in[i], y = in[63 - i];\n\
      float f = (float)x * 0.25f, g = (float)y;\n\
      float4 v = (float4)(f, g, 1.0f, -2.0f);\n\
      float3 c = cross(v.xyz, (float3)(g, 1.0f, f));\n\
      int tmp[4];\n\
      vstore4((int4)(x, y, x ^ y, 7), 0, tmp);\n\
      out[i] = hadd(x, y) ^ rhadd((uint)x, (uint)y) ^ add_sat(x << 24, y << 24)\n\
        ^ sub_sat((uint)x, (uint)y) ^ select(x, y, x < y) ^ convert_int_sat(f * 1e9f)\n\
        ^ convert_int_rtn(f) ^ (isnan(f / g) << 3) ^ (signbit(f - g) << 4)\n\
        ^ as_int(dot(v, v)) ^ as_int(length(v.xy)) ^ as_int(c.x + c.y + c.z)\n\
        ^ as_int(normalize(v).w) ^ as_int(clamp(v, 0.0f, 3.0f).x) ^ as_int(fabs(v).y)\n\
        ^ vload4(i >> 2, in).w ^ convert_int4(convert_float4(vload4(i >> 2, in)) * 0.5f).y\n\
        ^ tmp[2];\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let ins: Vec<i32> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64)
        .map(|i| {
            let (x, y) = (ins[i], ins[63 - i]);
            let (f, g) = (x as f32 * 0.25, y as f32);
            let v = [f, g, 1.0f32, -2.0];
            let w = [g, 1.0f32, f];
            let c = [
                v[1] * w[2] - v[2] * w[1],
                v[2] * w[0] - v[0] * w[2],
                v[0] * w[1] - v[1] * w[0],
            ];
            let dot = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
            let bits = |f: f32| f.to_bits() as i32;
            let sat = |a: i32, b: i32| {
                (i64::from(a) + i64::from(b)).clamp(i32::MIN.into(), i32::MAX.into()) as i32
            };
            let r = ((x >> 1) + (y >> 1) + (x & y & 1))
                ^ (((x as u32 >> 1) + (y as u32 >> 1) + ((x | y) as u32 & 1)) as i32)
                ^ sat(x << 24, y << 24)
                ^ ((x as u32).saturating_sub(y as u32) as i32)
                ^ if x < y { y } else { x }
                ^ ((f * 1e9) as i32) // `as` saturates and takes NaN to 0, as convert_int_sat
                ^ (f.floor() as i32)
                ^ (i32::from((f / g).is_nan()) << 3)
                ^ (i32::from((f - g).is_sign_negative()) << 4)
                ^ bits(dot)
                ^ bits((v[0] * v[0] + v[1] * v[1]).sqrt())
                ^ bits(c[0] + c[1] + c[2])
                ^ bits(v[3] * (1.0 / dot.sqrt()))
                ^ bits(v[0].clamp(0.0, 3.0))
                ^ bits(v[1].abs())
                ^ ins[i / 4 * 4 + 3]
                ^ ((ins[i / 4 * 4 + 1] as f32 * 0.5) as i32)
                ^ (x ^ y);
            i64::from(r)
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// `pws manifest` writes a manifest from the kernel's metadata that runs as it is, for a `.cl`
/// and for clang's `.s`; a hand-written `.s` has no metadata to write one from.
#[test]
fn a_manifest_written_from_the_metadata_runs() {
    let dir = tempfile::tempdir().unwrap();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for k in ["kargs", "elemtypes"] {
        std::fs::copy(
            repo.join(format!("kernels/cl/{k}.cl")),
            dir.path().join(format!("{k}.cl")),
        )
        .unwrap();
        let m = dir.path().join(format!("{k}.toml"));
        let cl = dir.path().join(format!("{k}.cl"));
        pws_ok(&[
            "manifest",
            cl.to_str().unwrap(),
            "--grid",
            "128",
            "-o",
            m.to_str().unwrap(),
        ]);
        let text = std::fs::read_to_string(&m).unwrap();
        assert!(text.contains(&format!("kernel = \"{k}.cl\"")), "{text}");
        pws_ok(&["golden", m.to_str().unwrap()]);
    }
    let text = std::fs::read_to_string(dir.path().join("elemtypes.toml")).unwrap();
    for line in [
        "name = \"px\"  # uchar* px\ntype = \"u8\"\nlen = 128",
        "name = \"h\"  # half* h\ntype = \"f16\"",
        "name = \"big\"  # long* big\ntype = \"i64\"",
        "    0,  # int n",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let asm = std::fs::read_to_string(
        pws_isa::opencl::compile(&dir.path().join("kargs.cl"), &Default::default()).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("clang.s"), asm).unwrap();
    let out = pws_ok(&["manifest", dir.path().join("clang.s").to_str().unwrap()]);
    assert!(out.contains("{ local = 256 },  # int* scratch"), "{out}");
    let e = pws_err(&["manifest", repo.join("kernels/figure2.s").to_str().unwrap()]);
    assert!(e.contains("defines no kernel"), "{e}");
}

/// A 64-bit atomic is refused by clang with pws.h's reason, not as an ambiguous call.
#[test]
fn sixty_four_bit_atomics_say_they_are_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n\
         __kernel void k(__global const int *in, __global long *out) {\n\
           atom_add(out, (long)in[get_global_id(0)]);\n\
         }\n",
        "",
    );
    let e = pws_err(&["golden", &m]);
    assert!(
        e.contains("'atom_add' is unavailable: pws runs 32-bit atomics only"),
        "{e}"
    );
}

/// Arguments are laid out and checked as clang's metadata says: a launch that does not match
/// the kernel's parameters, or a workgroup the code was not compiled for, is refused with the
/// parameter or the limit named; one that matches runs with every value where the kernel
/// loads it (kernels/cl/kargs.cl passes one of each kind on the RTL, in the suite).
#[test]
fn arguments_and_workgroups_follow_the_kernels_metadata() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "__kernel void k(global int *o, char c, long n, float4 v, local float *t) {\n\
           t[get_local_id(0)] = v.w;\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           o[get_global_id(0)] = c + (int)(n >> 32) + (int)t[63 - get_local_id(0)];\n\
         }\n\
         __kernel __attribute__((reqd_work_group_size(16, 4, 1))) void r(global int *o) {\n\
           o[get_global_id(1) * get_global_size(0) + get_global_id(0)] =\n\
               get_local_size(0) * 100 + get_local_size(1);\n\
         }\n",
    )
    .unwrap();
    let manifest = |entry: &str, grid: &str, workgroup: &str, args: &str| {
        let path = dir.path().join("k.toml");
        std::fs::write(
            &path,
            format!(
                "kernel = \"k.cl\"\nentry = \"{entry}\"\ngrid = {grid}\nworkgroup = {workgroup}\n\
                 args = {args}\n[[buffer]]\nname = \"o\"\ntype = \"i32\"\nlen = 256\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    let good = r#"["o", -3, 0x500000000, [1, 2, 3, 40.5], { local = 256 }]"#;
    let report = json(&["golden", &manifest("k", "64", "64", good), "--json"]);
    assert_eq!(buffer(&report, "o")[..64], vec![-3 + 5 + 40; 64][..]);
    for (entry, grid, workgroup, args, message) in [
        ("k", "64", "64", r#"["o", 1, 2, [1, 2, 3, 4]]"#,
         "key `args`: the kernel takes 5 arguments, `k(int* o, char c, long n, float4 v, float* t)`; `args` gives 4"),
        ("k", "64", "64", r#"["o", 1, 2, 1.0, { local = 4 }]"#,
         "key `args[3]`: `float4 v` is a vector: give its 4 elements as a list"),
        ("k", "64", "64", r#"["o", 300, 2, [1, 2, 3, 4], { local = 4 }]"#,
         "key `args[1]`: 300 is out of range for char"),
        ("k", "64", "64", r#"["o", 1, 2.5, [1, 2, 3, 4], { local = 4 }]"#,
         "key `args[2]`: 2.5 is a float, for an integer parameter (long)"),
        ("k", "64", "64", r#"[{ local = 4 }, 1, 2, [1, 2, 3, 4], { local = 4 }]"#,
         "key `args[0]`: `int* o` is a global pointer: give a buffer's name"),
        ("k", "64", "64", r#"["o", 1, 2, [1, 2, 3, 4], 4]"#,
         "key `args[4]`: `float* t` is a __local pointer: give { local = bytes }"),
        ("k", "512", "512", good,
         "key `workgroup`: 512 work-items per workgroup, but the kernel was compiled for at most 256"),
        ("r", "[32, 8]", "[16, 2]", r#"["o"]"#,
         "key `workgroup`: the kernel requires workgroups of 16x4x1 (`reqd_work_group_size`), not 16x2x1"),
        ("r", "[32, 6]", "[16, 4]", r#"["o"]"#,
         "the grid's 6 in dimension 1 must be a multiple of 4"),
    ] {
        let e = pws_err(&["golden", &manifest(entry, grid, workgroup, args)]);
        assert!(e.contains("k.toml:") && e.contains(message), "{e}");
    }
    let report = json(&[
        "golden",
        &manifest("r", "[32, 8]", "[16, 4]", r#"["o"]"#),
        "--json",
    ]);
    assert_eq!(buffer(&report, "o"), vec![1604; 256]);
}

/// Parameters declared through typedefs (PolyBench's `typedef float DATA_TYPE`) take what
/// their resolved types take: `2` for a `DATA_TYPE` is 2.0f, not the integer bits of a
/// one-word struct (a denormal the kernel flushed to 0); a typedef'd vector its elements; and
/// `pws manifest` types a `DATA_TYPE*` buffer `f32`. Messages keep the names as written.
#[test]
fn typedefd_parameters_take_their_resolved_types() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "typedef float DATA_TYPE;\ntypedef DATA_TYPE REAL;\ntypedef int4 IV;\n\
         __kernel void k(__global DATA_TYPE *x, REAL alpha, IV v) {\n\
           int i = get_global_id(0);\n\
           x[i] = alpha * x[i] + v.w;\n\
         }\n",
    )
    .unwrap();
    let manifest = |args: &str| {
        let path = dir.path().join("k.toml");
        std::fs::write(
            &path,
            format!(
                "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = {args}\n\
                 [[buffer]]\nname = \"x\"\ntype = \"f32\"\ndata = [1.5, -2.0, 3.0]\nlen = 64\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    let report = json(&["golden", &manifest(r#"["x", 2, [0, 0, 0, 10]]"#), "--json"]);
    let x: Vec<f64> = report["buffers"]["x"].as_array().unwrap()[..3]
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(x, [13.0, 6.0, 16.0], "{report}");
    // The one-word list pws asked for before it resolved typedefs still means the value.
    let report = json(&[
        "golden",
        &manifest(r#"["x", [2.0], [0, 0, 0, 10]]"#),
        "--json",
    ]);
    assert_eq!(report["buffers"]["x"][0].as_f64(), Some(13.0), "{report}");
    let e = pws_err(&["golden", &manifest(r#"["x", [2.0, 1.0], [0, 0, 0, 10]]"#)]);
    assert!(
        e.contains("key `args[1]`: `REAL alpha` takes one number, not a list"),
        "{e}"
    );
    let e = pws_err(&["golden", &manifest(r#"["x", 2.0, 10]"#)]);
    assert!(
        e.contains("key `args[2]`: `IV v` is a vector: give its 4 elements as a list"),
        "{e}"
    );
    let written = pws_ok(&["manifest", dir.path().join("k.cl").to_str().unwrap()]);
    assert!(
        written.contains("name = \"x\"  # DATA_TYPE* x\ntype = \"f32\""),
        "{written}"
    );
}

/// A buffer whose values are another kind of number than its parameter's (integers for a
/// `float*`, 32-bit words for a `short*`) is run as given, with a warning that names both;
/// a typedef'd `DATA_TYPE*` of `f32` values, a `uint*` of `i32` values and a buffer of the
/// right type are not flagged.
#[test]
fn a_buffer_of_another_kind_than_its_parameter_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "typedef float DATA_TYPE;\n\
         __kernel void k(__global const float *in, __global DATA_TYPE *out,\n\
                         __global const uint *idx, __global short *h) {\n\
           int i = get_global_id(0);\n\
           out[i] = in[i] * 2.0f + (float)idx[i];\n\
           h[i] = (short)i;\n\
         }\n",
    )
    .unwrap();
    let manifest = |in_type: &str, h_type: &str| {
        let path = dir.path().join("k.toml");
        std::fs::write(
            &path,
            format!(
                "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\", \"idx\", \"h\"]\n\
                 [[buffer]]\nname = \"in\"\ntype = \"{in_type}\"\nlen = 64\n\
                 [[buffer]]\nname = \"out\"\ntype = \"f32\"\nlen = 64\n\
                 [[buffer]]\nname = \"idx\"\ntype = \"i32\"\nlen = 64\n\
                 [[buffer]]\nname = \"h\"\ntype = \"{h_type}\"\nlen = 64\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    let wrong = manifest("i32", "i32");
    for command in ["golden", "run"] {
        let e = pws_stderr_ok(&[command, &wrong]);
        assert!(
            e.contains("warning: buffer `in` holds i32 values, but args[0] is the kernel's `float* in`: it reads their bits as float; give the buffer type = \"f32\""),
            "{command}: {e}"
        );
        assert!(
            e.contains(
                "warning: buffer `h` holds i32 values, but args[3] is the kernel's `short* h`"
            ),
            "{command}: {e}"
        );
        assert!(
            !e.contains("`out`") && !e.contains("`idx`"),
            "{command}: {e}"
        );
    }
    let e = pws_stderr_ok(&["compare", &wrong, "--mode", "nosplit"]);
    assert!(e.contains("buffer `in` holds i32 values"), "{e}");
    let e = pws_stderr_ok(&["golden", &manifest("f32", "i16")]);
    assert!(!e.contains("buffer `"), "{e}");
}

/// OpenCL C 1.2 requires the grid to be a multiple of the workgroup, and clang folds
/// `get_local_size()` to the workgroup's size under it (at -O1 and above): a partial last
/// workgroup would read 64 where it has 36. Such a launch is refused; compiled as OpenCL C 2.0
/// the kernel runs it with the partial size.
#[test]
fn a_partial_last_workgroup_needs_opencl_c_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "__kernel void k(global int *o) { o[get_global_id(0)] = get_local_size(0); }\n",
    )
    .unwrap();
    let manifest = |grid: u32, cflags: &str| {
        let path = dir.path().join("k.toml");
        std::fs::write(
            &path,
            format!(
                "kernel = \"k.cl\"\ncflags = [{cflags}]\ngrid = {grid}\nworkgroup = 64\nargs = [\"o\"]\n\
                 [[buffer]]\nname = \"o\"\ntype = \"i32\"\nlen = {grid}\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    for (flags, fix) in [
        ("", "-cl-std=CL2.0"),
        (r#""-O1""#, "-cl-std=CL2.0"),
        (
            r#""-cl-std=CL2.0", "-cl-uniform-work-group-size""#,
            "without that flag",
        ),
    ] {
        let e = pws_err(&["golden", &manifest(100, flags)]);
        assert!(
            e.contains("k.toml:4:13: key `workgroup`: the grid's 100 work-items in dimension 0 are not a multiple of the workgroup's 64")
                && e.contains(fix),
            "{flags}: {e}"
        );
    }
    let report = json(&["golden", &manifest(128, ""), "--json"]);
    assert_eq!(buffer(&report, "o"), vec![64; 128]);
    let report = json(&["golden", &manifest(100, r#""-cl-std=CL2.0""#), "--json"]);
    let mut want = vec![64; 64];
    want.extend([36; 36]);
    assert_eq!(buffer(&report, "o"), want);
}

/// `{ local = bytes }` in `args` is a `__local` pointer argument: LDS after the kernel's own
/// `__local` variables, its offset in the kernarg, as `clSetKernelArg(k, i, bytes, NULL)`.
#[test]
fn local_pointer_arguments_get_their_own_lds() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out, __local int *a,\n\
                                  __local int *b) {\n\
      __local int own[64];\n\
      int l = get_local_id(0);\n\
      own[l] = in[get_global_id(0)];\n\
      a[l] = 2 * own[l];\n\
      b[l] = 3 * own[l];\n\
      barrier(CLK_LOCAL_MEM_FENCE);\n\
      out[get_global_id(0)] = own[63 - l] + a[(l + 1) & 63] + b[(l + 2) & 63];\n\
    }\n";
    std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
    let manifest =
        |args: &str| {
            let text =
                format!(
            "kernel = \"k.cl\"\ngrid = 128\nworkgroup = 64\nargs = [\"in\", \"out\", {args}]\n\
             [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 128\n",
            (0..128).map(|v| (v * 37 % 101).to_string()).collect::<Vec<_>>().join(", ")
        );
            let path = dir.path().join("k.toml");
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_string()
        };
    let m = manifest("{ local = 256 }, { local = 256 }");
    let expect: Vec<i64> = (0..128i64)
        .map(|g| {
            let base = g / 64 * 64;
            let at = |l: i64| (base + l) * 37 % 101;
            let l = g % 64;
            at(63 - l) + 2 * at((l + 1) & 63) + 3 * at((l + 2) & 63)
        })
        .collect();
    assert_eq!(buffer(&json(&["golden", &m, "--json"]), "out"), expect);
    assert_eq!(
        buffer(&json(&["run", &m, "--mode", "pws", "--json"]), "out"),
        expect
    );
    let e = pws_err(&["golden", &manifest("{ local = 0 }, { local = 4 }")]);
    assert!(
        e.contains("args[2]") && e.contains("a __local argument of 0 bytes"),
        "{e}"
    );
    let e = pws_err(&["golden", &manifest("{ locl = 4 }, { local = 4 }")]);
    assert!(e.contains("unknown field `locl`"), "{e}");
    let e = pws_err(&["golden", &manifest("{ local = 65536 }, { local = 4 }")]);
    assert!(e.contains("exceeds the compute unit's"), "{e}");
}

/// The integer vector built-ins (min, max, clamp with vector and scalar bounds, abs, any, all)
/// and mad_sat and bitselect, against values computed here.
#[test]
fn integer_vector_builtins_compute_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int4 v = vload4(i & 15, in) - 50;\n\
      int4 m = max(v, (int4)(0)) + min(v, 3) + clamp(v, -2, 2) + (int)abs(v).x;\n\
      out[i] = m.x + m.y * 3 + m.z * 5 + m.w * 7 + any(v < 0) + 2 * all(v > -40)\n\
        + mad_sat(v.x << 20, v.y << 20, v.z) + bitselect(v.x, v.w, (int)0xf0f0f0f0);\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let ins: Vec<i64> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let v: Vec<i64> = (0..4).map(|j| ins[(i & 15) * 4 + j] - 50).collect();
            let m: Vec<i64> = v
                .iter()
                .map(|&x| x.max(0) + x.min(3) + x.clamp(-2, 2) + v[0].abs())
                .collect();
            let wrap = |x: i64| x as i32 as i64;
            let sat = ((v[0] << 20) * (v[1] << 20) + v[2]).clamp(i32::MIN.into(), i32::MAX.into());
            let bits = (v[0] as i32 & !0xf0f0f0f0u32 as i32) | (v[3] as i32 & 0xf0f0f0f0u32 as i32);
            wrap(
                m[0] + m[1] * 3
                    + m[2] * 5
                    + m[3] * 7
                    + i64::from(v.iter().any(|&x| x < 0))
                    + 2 * i64::from(v.iter().all(|&x| x > -40))
                    + sat
                    + i64::from(bits),
            )
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// `short`, `ushort` and `uchar` vectors compile to 16-bit instructions (`v_add_u16`,
/// `v_ashrrev_i16`, `v_cmp_gt_u16`, `v_max_u16_sdwa`, ...), which both executors run as gfx8
/// does: on the sources' low halves, the result zero-extended.
#[test]
fn short_and_char_vectors_compute_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const uint *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      __global const short4 *a = (__global const short4 *)in;\n\
      __global const ushort2 *u = (__global const ushort2 *)in;\n\
      __global const uchar4 *b = (__global const uchar4 *)in;\n\
      short4 x = a[i & 31], y = a[(i * 5 + 1) & 31];\n\
      short4 p = (x * y) - (x >> (short4)2) + (y << (short4)1);\n\
      ushort2 q = u[i], r = u[(i + 9) & 63];\n\
      ushort2 d = (q > r) ? q - r : (q ^ r);\n\
      ushort sh = (ushort)(q.x << (r.y & 15)) + (ushort)(((short)q.y) >> (r.x & 15));\n\
      uchar4 c = max(b[i], b[(i + 1) & 63]) - min(b[i], b[(i + 3) & 63]);\n\
      out[i] = p.x + 3 * p.y + 5 * p.z + 7 * p.w + d.x * 11 + d.y * 13 + sh\n\
        + (int)(as_uint(c) >> 1);\n\
    }\n";
    let words: Vec<u32> = (0..64u64)
        .map(|v| (v * 2_654_435_761 + 12_345) as u32)
        .collect();
    let data: Vec<i64> = words.iter().map(|&w| i64::from(w)).collect();
    let m = &launch_with(dir.path(), kernel, "", "u32", &data);

    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let half = |k: usize| u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]);
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let x: Vec<i16> = (0..4).map(|j| half(4 * (i & 31) + j) as i16).collect();
            let y: Vec<i16> = (0..4)
                .map(|j| half(4 * ((i * 5 + 1) & 31) + j) as i16)
                .collect();
            let p: Vec<i32> = (0..4)
                .map(|j| {
                    let v = x[j]
                        .wrapping_mul(y[j])
                        .wrapping_sub(x[j] >> 2)
                        .wrapping_add(y[j].wrapping_shl(1));
                    i32::from(v)
                })
                .collect();
            let (q, r) = ([half(2 * i), half(2 * i + 1)], {
                let k = (i + 9) & 63;
                [half(2 * k), half(2 * k + 1)]
            });
            let d: Vec<i32> = (0..2)
                .map(|j| {
                    i32::from(if q[j] > r[j] {
                        q[j].wrapping_sub(r[j])
                    } else {
                        q[j] ^ r[j]
                    })
                })
                .collect();
            let sh = ((i32::from(q[0]) << (r[1] & 15)) as u16)
                .wrapping_add(((i32::from(q[1] as i16)) >> (r[0] & 15)) as u16);
            let byte = |k: usize, j: usize| bytes[4 * (k & 63) + j];
            let c: Vec<u8> = (0..4)
                .map(|j| {
                    byte(i, j)
                        .max(byte(i + 1, j))
                        .wrapping_sub(byte(i, j).min(byte(i + 3, j)))
                })
                .collect();
            let packed = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) >> 1;
            let sum = p[0]
                + 3 * p[1]
                + 5 * p[2]
                + 7 * p[3]
                + d[0] * 11
                + d[1] * 13
                + i32::from(sh)
                + packed as i32;
            i64::from(sum)
        })
        .collect();
    golden_and_rtl_compute(
        m,
        &[
            "v_add_u16",
            "v_ashrrev_i16",
            "v_cmp_gt_u16",
            "v_max_u16_sdwa",
            "v_mul_lo_u16",
        ],
        &expect,
    );
}

/// Runs the launch `m` on the golden model and the RTL, both of which must compute `expect`
/// in `out`, after checking that clang's code for it holds every instruction of `emits` (the
/// test is about them).
fn golden_and_rtl_compute(m: &str, emits: &[&str], expect: &[i64]) {
    let report = json(&["golden", m, "--json"]);
    let asm = match emits {
        [] => String::new(),
        _ => std::fs::read_to_string(report["kernel"].as_str().unwrap()).unwrap(),
    };
    for op in emits {
        assert!(
            asm.contains(op),
            "clang-14 no longer emits {op} here:\n{asm}"
        );
    }
    assert_eq!(buffer(&report, "out"), expect, "golden");
    let rtl = json(&["run", m, "--mode", "nosplit", "--json"]);
    assert_eq!(buffer(&rtl, "out"), expect, "RTL");
}

/// clang merges adjacent byte loads into one wider load at any address (gfx8 runs unaligned
/// under HSA): `in[k] | in[k + 1] << 8` becomes a `flat_load_ushort` at odd addresses, and four
/// bytes a `flat_load_dword` at any byte. Both executors read the bytes.
#[test]
fn unaligned_loads_clang_merges_read_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const uchar *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      out[i] = (in[2 * i + 1] | (in[2 * i + 2] << 8))\n\
        + 3 * (in[3 * i + 2] | (in[3 * i + 3] << 8) | (in[3 * i + 4] << 16) | (in[3 * i + 5] << 24));\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let bytes: Vec<u8> = (0..64i64)
        .flat_map(|v| ((v * 37 % 101) as i32).to_le_bytes())
        .collect();
    let word = |k: usize| u32::from_le_bytes([bytes[k], bytes[k + 1], bytes[k + 2], bytes[k + 3]]);
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let half = u32::from(bytes[2 * i + 1]) | u32::from(bytes[2 * i + 2]) << 8;
            i64::from(half.wrapping_add(word(3 * i + 2).wrapping_mul(3)) as i32)
        })
        .collect();
    golden_and_rtl_compute(&m, &["flat_load_ushort", "flat_load_dword "], &expect);
}

/// The vector forms of the bit built-ins and `select`, and the saturating conversions to the
/// narrow types, against values computed here.
#[test]
fn vector_bit_builtins_and_narrow_saturating_conversions() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      uint4 x = as_uint4(vload4(i & 15, in)) * 2654435761u;\n\
      uint4 r = rotate(x, (uint4)(3, 7, 11, 13)) + popcount(x) + clz(x >> (uint4)(i & 31))\n\
        + mul_hi(x, x) + select(x, ~x, x > (uint4)0x80000000u);\n\
      float f = (float)(in[i] - 50) * 0.37f;\n\
      uchar a = convert_uchar_sat(f * 30.0f);\n\
      uchar b = convert_uchar_sat_rte(f * 7.0f);\n\
      char4 c = convert_char4_sat(as_int4(x) >> (int4)(20, 22, 24, 26));\n\
      out[i] = (int)(r.x ^ r.y ^ r.z ^ r.w) + a * 3 + b * 5 + c.x + c.y * 7 + c.z * 11 + c.w * 13;\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let ins: Vec<i32> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let x: Vec<u32> = (0..4)
                .map(|j| (ins[(i & 15) * 4 + j] as u32).wrapping_mul(2_654_435_761))
                .collect();
            let r: Vec<u32> = (0..4)
                .map(|j| {
                    let clz = (x[j] >> (i & 31)).leading_zeros();
                    let hi = ((u64::from(x[j]) * u64::from(x[j])) >> 32) as u32;
                    let sel = if x[j] > 0x8000_0000 { !x[j] } else { x[j] };
                    x[j].rotate_left([3, 7, 11, 13][j])
                        .wrapping_add(x[j].count_ones())
                        .wrapping_add(clz)
                        .wrapping_add(hi)
                        .wrapping_add(sel)
                })
                .collect();
            let f = (ins[i] - 50) as f32 * 0.37f32;
            let sat = |v: f32| v.clamp(0.0, 255.0) as i32;
            let a = sat((f * 30.0).trunc());
            let b = sat((f * 7.0).round_ties_even());
            let c: Vec<i32> = (0..4)
                .map(|j| ((x[j] as i32) >> [20, 22, 24, 26][j]).clamp(-128, 127))
                .collect();
            let v = ((r[0] ^ r[1] ^ r[2] ^ r[3]) as i32)
                .wrapping_add(a * 3 + b * 5 + c[0] + c[1] * 7 + c[2] * 11 + c[3] * 13);
            i64::from(v)
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// `x > y ? x - y : 0` on `ushort` and `uchar` is a 16-bit subtract with `clamp` (VOP3, and
/// SDWA for the vector's high half): both executors saturate at 16 bits.
#[test]
fn narrow_saturating_differences_compute_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const uint *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      __global const ushort2 *u = (__global const ushort2 *)in;\n\
      __global const uchar *b = (__global const uchar *)in;\n\
      ushort2 x = u[i], y = u[(i + 5) & 63];\n\
      ushort2 d = x > y ? x - y : (ushort2)0;\n\
      uchar p = b[4 * i + 1], q = b[(4 * i + 22) & 255];\n\
      uchar e = p > q ? p - q : 0;\n\
      out[i] = d.x + 3 * d.y + 7 * e;\n\
    }\n";
    let words: Vec<u32> = (0..64)
        .map(|v| (v * 37 % 101) as u32 * 0x0101_0A07)
        .collect();
    let data: Vec<i64> = words.iter().map(|&w| i64::from(w)).collect();
    let m = launch_with(dir.path(), kernel, "", "u32", &data);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let half = |k: usize| u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]);
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let j = (i + 5) & 63;
            let d0 = half(2 * i).saturating_sub(half(2 * j));
            let d1 = half(2 * i + 1).saturating_sub(half(2 * j + 1));
            let e = bytes[4 * i + 1].saturating_sub(bytes[(4 * i + 22) & 255]);
            i64::from(d0) + 3 * i64::from(d1) + 7 * i64::from(e)
        })
        .collect();
    golden_and_rtl_compute(&m, &["v_sub_u16_e64", "v_sub_u16_sdwa", "clamp"], &expect);
}

/// Divisions clang rounds correctly: every one under `-cl-fp32-correctly-rounded-divide-sqrt`,
/// and one that LLVM rewrites without its OpenCL precision metadata (`a == b ? 1.0f : a / b`;
/// the fast `v_rcp_f32` form needs the metadata). clang emits the sequence `v_div_scale_f32` ..
/// `v_div_fixup_f32` with two writes of the f32 denormal mode (`s_setreg_imm32_b32
/// hwreg(HW_REG_MODE, 4, 2)`, or `s_setreg_b32` from an SGPR at -O0), which both executors run:
/// the quotients are the correctly rounded ones (docs/float.md, "Division").
#[test]
fn divisions_clang_rounds_correctly_run() {
    let dir = tempfile::tempdir().unwrap();
    let ins: Vec<i64> = (0..64i64).map(|v| (v * 7919 % 1013) - 300).collect();
    // `in` holds the integers as f32 (exact); `out` the quotients' bits.
    let kernel = "__kernel void k(__global const float *in, __global float *out) {\n\
      int i = get_global_id(0);\n\
      float x = in[i], y = in[63 - i];\n\
      float lo = fmin(x, y), hi = fmax(x, y);\n\
      out[i] = lo == hi ? 1.0f : lo / hi;\n\
    }\n";
    let m = launch_with(dir.path(), kernel, "", "f32", &ins);
    let expect: Vec<i64> = (0..64)
        .map(|i| {
            let (x, y) = (ins[i] as f32, ins[63 - i] as f32);
            let (lo, hi) = (x.min(y), x.max(y));
            i64::from((if lo == hi { 1.0 } else { lo / hi }).to_bits() as i32)
        })
        .collect();
    golden_and_rtl_compute(
        &m,
        &[
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3",
            "v_div_fixup_f32",
        ],
        &expect,
    );

    let m = launch_with(
        dir.path(),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = as_int((float)in[i] / (float)(in[63 - i] | 1));\n\
         }\n",
        "cflags = [\"-cl-fp32-correctly-rounded-divide-sqrt\"]",
        "i32",
        &ins,
    );
    let expect: Vec<i64> = (0..64)
        .map(|i| i64::from((ins[i] as f32 / (ins[63 - i] | 1) as f32).to_bits() as i32))
        .collect();
    golden_and_rtl_compute(&m, &["s_setreg_imm32_b32", "v_div_scale_f32"], &expect);

    // At -O0 every `a / b` is the exact sequence, and clang writes the mode from an SGPR.
    let m = launch_with(
        dir.path(),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           int i = __builtin_amdgcn_workitem_id_x();\n\
           out[i] = as_int((float)in[i] / (float)(in[63 - i] | 1));\n\
         }\n",
        "cflags = [\"-O0\"]",
        "i32",
        &ins,
    );
    golden_and_rtl_compute(
        &m,
        &[
            "s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s",
            "v_div_fixup_f32",
        ],
        &expect,
    );
}

/// Integer built-ins as OpenCL defines them, on both executors:
/// - `mad_sat(uint)`: clang-14 compares the 64-bit product with `s_mov_b64 s[0:1],
///   0xfffffff9`, a literal the hardware zero-extends for a `b64` operand (it was read
///   sign-extended, and every product saturated to nothing);
/// - on `uchar`, `char`, `short`: in their own width (they went through the int versions:
///   `clz((uchar)1)` gave 31, `add_sat` did not saturate, `upsample(ushort, ushort)` kept the
///   low half).
#[test]
fn integer_built_ins_compute_in_their_operands_width() {
    let dir = tempfile::tempdir().unwrap();
    let ins: Vec<i64> = (0..64i64)
        .map(|v| (v * 2_654_435_761 + 12_345) % (1 << 32))
        .collect();
    let kernel = "__kernel void k(__global const uint *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      uint x = in[i], y = in[63 - i];\n\
      out[i] = mad_sat(x, y, 7u) ^ mad_sat(x & 0xffffu, y & 0xffffu, 7u);\n\
    }\n";
    let m = launch_with(dir.path(), kernel, "", "u32", &ins);
    let mad_sat = |a: u64, b: u64| (a * b + 7).min(u64::from(u32::MAX));
    let expect: Vec<i64> = (0..64)
        .map(|i| {
            let (x, y) = (ins[i] as u64, ins[63 - i] as u64);
            i64::from((mad_sat(x, y) ^ mad_sat(x & 0xffff, y & 0xffff)) as u32 as i32)
        })
        .collect();
    golden_and_rtl_compute(&m, &["0xfffffff9"], &expect);

    let kernel = "__kernel void k(__global const uint *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      uint x = in[i], y = in[63 - i];\n\
      uchar a = x, b = y; char c = x, d = y; short g = x, h = y;\n\
      out[i] = clz(a) ^ popcount(c) << 4 ^ (uchar)add_sat(a, b) << 8 ^ (uchar)sub_sat(c, d) << 16\n\
        ^ (uchar)rotate(a, b) << 24 ^ (ushort)mul_hi(g, h) ^ upsample((ushort)x, (ushort)y);\n\
    }\n";
    let m = launch_with(dir.path(), kernel, "", "u32", &ins);
    let expect: Vec<i64> = (0..64)
        .map(|i| {
            let (x, y) = (ins[i] as u32, ins[63 - i] as u32);
            let (a, b, c, d) = (x as u8, y as u8, x as i8, y as i8);
            let (g, h) = (x as i16, y as i16);
            let v = a.leading_zeros()
                ^ c.count_ones() << 4
                ^ u32::from(a.saturating_add(b)) << 8
                ^ u32::from(c.saturating_sub(d) as u8) << 16
                ^ u32::from(a.rotate_left(u32::from(b) % 8)) << 24
                ^ u32::from(((i32::from(g) * i32::from(h)) >> 16) as u16)
                ^ (x << 16 | y & 0xffff);
            i64::from(v as i32)
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// Program-scope `__constant` tables indexed at run time: clang places them in `.rodata` and
/// addresses them from `s_getpc_b64` with `sym@rel32` literals; the loader puts the segment
/// after the code at `layout::CODE_BASE`, and both executors read it there (per lane through
/// FLAT, and uniform through SMEM), in every mode.
#[test]
fn constant_tables_run_from_rodata() {
    let dir = tempfile::tempdir().unwrap();
    let sbox = [12i32, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2];
    let bytes = [200i32, 1, 2, 3, 250, 5, 6];
    let wide = [-30000i32, 7, 30000];
    let w = [0.5f32, -1.25, 3.0, 1e-3];
    let m = launch(
        dir.path(),
        "__constant int sbox[16] = {12, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2};\n\
         __constant uchar bytes[7] = {200, 1, 2, 3, 250, 5, 6};\n\
         __constant short wide[3] = {-30000, 7, 30000};\n\
         __constant float w[4] = {0.5f, -1.25f, 3.0f, 1e-3f};\n\
         __kernel void k(__global const int *in, __global int *out) {\n\
           int i = get_global_id(0);\n\
           int x = in[i];\n\
           out[i] = sbox[x & 15] + bytes[x % 7] + wide[i % 3] + (int)(w[x & 3] * 1000.0f)\n\
             + 100 * sbox[in[0] & 15];\n\
         }\n",
        "",
    );
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let x = i * 37 % 101;
            i64::from(
                sbox[x & 15]
                    + bytes[x % 7]
                    + wide[i % 3]
                    + (w[x & 3] * 1000.0) as i32
                    + 100 * sbox[0],
            )
        })
        .collect();
    golden_and_rtl_compute(
        &m,
        &["s_getpc_b64", "@rel32@lo+4", ".section\t.rodata"],
        &expect,
    );
    let cl = dir.path().join("k.cl");
    let bin = dir.path().join("k.bin");
    let out = pws_ok(&["asm", cl.to_str().unwrap(), "-o", bin.to_str().unwrap()]);
    assert!(
        out.contains("its .rodata (") && out.contains("sbox +0x"),
        "{out}"
    );
    let pws = json(&["run", &m, "--mode", "pws", "--json"]);
    assert_eq!(buffer(&pws, "out"), expect, "RTL, pws");
    // The bound covers the run.
    let rows = json(&["compare", &m, "--mode", "pws", "--S", "1", "--json"]);
    let row = &rows.as_array().unwrap()[0];
    assert!(
        row["cycles"].as_u64().unwrap() <= row["bound"].as_u64().unwrap(),
        "{row}"
    );
}

/// `async_work_group_copy` and its strided form between global and local memory, with
/// `wait_group_events` and `prefetch`, as SDK kernels stage their tiles; the copies' loops
/// (pws.h's) need no annotation, and their bound covers the RTL's run.
#[test]
fn async_work_group_copies_stage_tiles() {
    let dir = tempfile::tempdir().unwrap();
    let m = launch(
        dir.path(),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           __local int tile[64];\n\
           prefetch(in, 64);\n\
           event_t e = async_work_group_copy(tile, in, 64, 0);\n\
           wait_group_events(1, &e);\n\
           int l = get_local_id(0);\n\
           int v = tile[63 - l] * 2;\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           tile[l] = v;\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           e = async_work_group_strided_copy(out, tile, 32, 2, 0);\n\
           wait_group_events(1, &e);\n\
         }\n",
        "",
    );
    let data: Vec<i64> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64)
        .map(|k| if k % 2 == 0 { 2 * data[63 - k / 2] } else { 0 })
        .collect();
    golden_and_rtl_compute(&m, &["ds_write_b32", "s_barrier"], &expect);
    let rows = json(&["compare", &m, "--mode", "nosplit", "--json"]);
    let row = &rows.as_array().unwrap()[0];
    assert!(
        row["cycles"].as_u64().unwrap() <= row["bound"].as_u64().unwrap(),
        "{row}"
    );
}

/// The vector forms of the common, relational, native, pointer-result and integer built-ins
/// (`degrees(float4)`, `isgreater(float4, float4)`, `fract(float4, float4 *)`,
/// `mad24(int4, ...)`, ...) equal their scalar forms per component, the relational ones as -1
/// or 0; `degrees`, `radians` and `smoothstep` compute what OpenCL specifies.
#[test]
fn vector_builtins_equal_their_scalar_forms() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = r#"
static int eqf(float4 a, float4 b) { return any(as_int4(a) != as_int4(b)); }
static int eqi(int4 a, int4 b) { return any(a != b); }
#define S1(f, v) ((float4)(f(v.x), f(v.y), f(v.z), f(v.w)))
#define S2(f, a, b) ((float4)(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w)))
#define R2(f, a, b) ((int4)(-f(a.x, b.x), -f(a.y, b.y), -f(a.z, b.z), -f(a.w, b.w)))
#define R1(f, a) ((int4)(-f(a.x), -f(a.y), -f(a.z), -f(a.w)))
#define I2(f, a, b) ((int4)(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w)))
#define I3(f, a, b, c) ((int4)(f(a.x, b.x, c.x), f(a.y, b.y, c.y), f(a.z, b.z, c.z), f(a.w, b.w, c.w)))
#define PTRF(f, bit) { float4 p, q; float4 r = f(x, &p); float c0, c1, c2, c3; \
    float4 t = (float4)(f(x.x, &c0), f(x.y, &c1), f(x.z, &c2), f(x.w, &c3)); \
    bad |= (eqf(r, t) | eqf(p, (float4)(c0, c1, c2, c3))) << bit; }
#define PTRI(f, bit) { int4 p; float4 r = f(x, &p); int c0, c1, c2, c3; \
    float4 t = (float4)(f(x.x, &c0), f(x.y, &c1), f(x.z, &c2), f(x.w, &c3)); \
    bad |= (eqf(r, t) | eqi(p, (int4)(c0, c1, c2, c3))) << bit; }
__kernel void k(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  int4 n = (int4)(in[i], in[(i + 1) & 63], -in[(i + 2) & 63], in[(i + 3) & 63]);
  float4 x = convert_float4(n) * 0.0625f - 2.0f;
  float4 y = x.wzyx * 1.5f + 0.25f;
  y.y = i == 5 ? sqrt(-1.0f) : y.y;
  int bad = 0;
  bad |= eqf(degrees(x), S1(degrees, x)) << 0;
  bad |= eqf(radians(x), S1(radians, x)) << 1;
  bad |= eqf(smoothstep(y, y + 3.0f, x), (float4)(smoothstep(y.x, y.x + 3.0f, x.x), smoothstep(y.y, y.y + 3.0f, x.y), smoothstep(y.z, y.z + 3.0f, x.z), smoothstep(y.w, y.w + 3.0f, x.w))) << 2;
  bad |= eqf(smoothstep(-1.0f, 2.0f, x), (float4)(smoothstep(-1.0f, 2.0f, x.x), smoothstep(-1.0f, 2.0f, x.y), smoothstep(-1.0f, 2.0f, x.z), smoothstep(-1.0f, 2.0f, x.w))) << 3;
  bad |= eqf(step(0.5f, x), (float4)(step(0.5f, x.x), step(0.5f, x.y), step(0.5f, x.z), step(0.5f, x.w))) << 4;
  int4 g = isgreater(x, y), l = isless(x, y), e = isequal(x, x), u = isunordered(x, y);
  int4 nn = isnan(y), sb = signbit(x), fi = isfinite(y);
  bad |= (eqi(g, R2(isgreater, x, y)) | eqi(l, R2(isless, x, y)) | eqi(e, (int4)(-1)) | eqi(u, R2(isunordered, x, y))
          | eqi(nn, R1(isnan, y)) | eqi(sb, R1(signbit, x)) | eqi(fi, R1(isfinite, y))
          | any((g != 0) & (g != -1)) | (i == 5 && nn.y != -1)) << 5;
  PTRF(fract, 6) PTRF(modf, 7) PTRF(sincos, 8) PTRI(frexp, 9) PTRI(lgamma_r, 11)
  { int4 p; float4 r = remquo(x, y, &p); int c0, c1, c2, c3;
    float4 t = (float4)(remquo(x.x, y.x, &c0), remquo(x.y, y.y, &c1), remquo(x.z, y.z, &c2), remquo(x.w, y.w, &c3));
    bad |= (eqf(r, t) | eqi(p, (int4)(c0, c1, c2, c3))) << 10; }
  bad |= eqf(native_divide(x, y), S2(native_divide, x, y)) << 12;
  bad |= eqf(native_recip(x), S1(native_recip, x)) << 13;
  bad |= eqf(half_exp(x), S1(half_exp, x)) << 14;
  bad |= eqf(native_sqrt(y), S1(native_sqrt, y)) << 15;
  int4 k = n & 7;
  bad |= eqf(ldexp(x, k), (float4)(ldexp(x.x, k.x), ldexp(x.y, k.y), ldexp(x.z, k.z), ldexp(x.w, k.w))) << 16;
  bad |= eqf(ldexp(x, 3), (float4)(ldexp(x.x, 3), ldexp(x.y, 3), ldexp(x.z, 3), ldexp(x.w, 3))) << 17;
  bad |= eqi(ilogb(x), (int4)(ilogb(x.x), ilogb(x.y), ilogb(x.z), ilogb(x.w))) << 18;
  bad |= eqf(nan(as_uint4(k)), (float4)(nan((uint)k.x), nan((uint)k.y), nan((uint)k.z), nan((uint)k.w))) << 19;
  int4 a = n * 0x01234567, b = n.yzwx * -77777, c = n.zwxy << 20;
  bad |= eqi(mad24(a, b, c), I3(mad24, a, b, c)) << 20;
  bad |= eqi(mul24(a, b), I2(mul24, a, b)) << 21;
  bad |= eqi(hadd(a, b), I2(hadd, a, b)) << 22;
  bad |= eqi(rhadd(a, b), I2(rhadd, a, b)) << 23;
  bad |= eqi(add_sat(a, c), I2(add_sat, a, c)) << 24;
  bad |= eqi(sub_sat(a, c), I2(sub_sat, a, c)) << 25;
  bad |= eqi(mad_sat(a, b, c), I3(mad_sat, a, b, c)) << 26;
  bad |= eqi(mad_hi(a, b, c), I3(mad_hi, a, b, c)) << 27;
  bad |= (as_uint(mad_hi(a.x, b.x, c.x)) != (uint)(((long)a.x * b.x) >> 32) + (uint)c.x) << 28;
  out[i] = bad;
}
"#;
    let m = launch(dir.path(), kernel, "");
    golden_and_rtl_compute(&m, &[], &[0; 64]);

    let m = launch(
        dir.path(),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           int i = get_global_id(0);\n\
           float x = (float)in[i] * 0.125f - 6.0f;\n\
           int k = i % 3;\n\
           out[i] = as_int(k == 0 ? degrees(x) : k == 1 ? radians(x) : smoothstep(-2.0f, 5.0f, x));\n\
         }\n",
        "",
    );
    // degrees and radians are one rounded product; smoothstep's division and its polynomial
    // (which clang may contract into fused multiply-adds) are within a few ulp of the exact
    // value, computed here in f64.
    for engine in ["golden", "run"] {
        let out = buffer(&json(&[engine, &m, "--json"]), "out");
        for (i, got) in out.iter().enumerate() {
            let got = f32::from_bits(*got as u32);
            let x = (i * 37 % 101) as f32 * 0.125 - 6.0;
            match i % 3 {
                0 => assert_eq!(got, x * 57.295_78, "{engine}: degrees({x})"),
                1 => assert_eq!(got, x * 0.017_453_292, "{engine}: radians({x})"),
                _ => {
                    let t = ((f64::from(x) + 2.0) / 7.0).clamp(0.0, 1.0);
                    let want = t * t * (3.0 - 2.0 * t);
                    let ulp =
                        f64::from(f32::EPSILON) * want.abs().max(f64::from(f32::MIN_POSITIVE));
                    assert!(
                        (f64::from(got) - want).abs() <= 4.0 * ulp,
                        "{engine}: smoothstep(-2, 5, {x}) = {got}, exactly {want}"
                    );
                }
            }
        }
    }
}

/// Conversions from float to the narrow types in every rounding mode, saturated or not, and
/// the saturated ones to int and uint in the directed modes, scalar and vector.
#[test]
fn narrow_conversions_round_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      float f = (float)in[i] * 0.37f - 9.5f;\n\
      float4 v = (float4)(f, f * 11.0f, -f * 23.0f, f * 2000.0f);\n\
      char4 a = convert_char4_sat_rtp(v);\n\
      uchar4 b = convert_uchar4_sat_rtn(v);\n\
      short4 c = convert_short4_rte(v);\n\
      int d = convert_char_rtz(f) + convert_uchar_rtp(f) + convert_ushort_rtn(f);\n\
      out[i] = as_int(a) ^ as_int(b) * 3 ^ (c.x + c.y * 5 + c.w * 7) ^ d << 20\n\
        ^ convert_int_sat_rtp(f * 1e9f) ^ (int)convert_uint_sat_rtn(f * 1e9f);\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let input: Vec<i32> = (0..64).map(|v| v * 37 % 101).collect();
    // Rust's `as` from f32 saturates and takes NaN to 0, as the _sat conversions do.
    let expect: Vec<i64> = input
        .iter()
        .map(|&x| {
            let f = x as f32 * 0.37 - 9.5;
            let v = [f, f * 11.0, -f * 23.0, f * 2000.0];
            let pack = |b: [u8; 4]| i32::from_le_bytes(b);
            let a = pack(v.map(|x| x.ceil() as i8 as u8));
            let b = pack(v.map(|x| x.floor() as u8));
            let c = v.map(|x| x.round_ties_even() as i32 as i16 as i32);
            let d = f.trunc() as i32 as i8 as i32
                + f.ceil() as i32 as u8 as i32
                + f.floor() as i32 as u16 as i32;
            let r = a
                ^ b.wrapping_mul(3)
                ^ (c[0] + c[1] * 5 + c[3] * 7)
                ^ d << 20
                ^ (f * 1e9).ceil() as i32
                ^ (f * 1e9).floor() as u32 as i32;
            i64::from(r)
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// `shuffle`/`shuffle2` pick components by a mask (mod N, mod 2N), and the vector conversions
/// round in the mode they name, `convert_float4_rtz` .. from integers as well.
#[test]
fn shuffles_and_vector_rounding_conversions() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = r#"
static int pick4(int4 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }
static float pickf(float4 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }
__kernel void k(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  int4 a = (int4)(in[i], in[(i + 1) & 63], in[(i + 2) & 63], in[(i + 3) & 63]);
  int4 b = a * 3 + 1;
  uint4 m = (uint4)(i, i * 3, i * 5 + 1, i * 7 + 2);
  int c = (i >> 3) & 3;
  int8 t = shuffle2(a, b, (uint8)(m, m.wzyx + 1u));
  float4 f = convert_float4(a) * 0.37f - 9.5f;
  int4 big = a * 16777259 - 1000000007;
  int r;
  switch (i & 7) {
  case 0: r = pick4(shuffle(a, m), c); break;
  case 1: r = pick4(c < 2 ? t.lo : t.hi, c); break;
  case 2: r = pick4(convert_int4_rtn(f), c) * 1000 + pick4(convert_int4_rtp(f), c) * 100 + pick4(convert_int4_rte(f), c) * 10 + pick4(convert_int4_rtz(f), c); break;
  case 3: r = as_int(pickf(convert_float4_rtz(big), c)); break;
  case 4: r = as_int(pickf(convert_float4_rtp(big), c)); break;
  case 5: r = as_int(pickf(convert_float4_rtn(as_uint4(big)), c)); break;
  case 6: r = pick4(convert_int4_sat_rte(f * 1e9f), c); break;
  default: r = as_int(pickf(shuffle(f, m), c)); break;
  }
  out[i] = r;
}
"#;
    let m = launch(dir.path(), kernel, "");
    let input: Vec<i32> = (0..64).map(|v| v * 37 % 101).collect();
    // f32 results of one rounding mode from the exact value (i64 fits every case here).
    let round = |v: i64, mode: i32| -> f32 {
        let near = v as f32;
        let back = near as i64;
        let step = |f: f32, up: bool| {
            let b = f.to_bits();
            f32::from_bits(if (f > 0.0) == up { b + 1 } else { b - 1 })
        };
        match mode {
            // Towards zero is one step down in magnitude, whatever the sign.
            0 if back.abs() > v.abs() => f32::from_bits(near.to_bits() - 1),
            1 if back < v => step(near, true),
            2 if back > v => step(near, false),
            _ => near,
        }
    };
    let expect: Vec<i64> = (0..64usize)
        .map(|i| {
            let a: Vec<i32> = (0..4).map(|k| input[(i + k) & 63]).collect();
            let b: Vec<i32> = a.iter().map(|x| x * 3 + 1).collect();
            let m = [i, i * 3, i * 5 + 1, i * 7 + 2];
            let c = (i >> 3) & 3;
            let mask8 = [
                m[0],
                m[1],
                m[2],
                m[3],
                m[3] + 1,
                m[2] + 1,
                m[1] + 1,
                m[0] + 1,
            ];
            let ab = |j: usize| if j < 4 { a[j] } else { b[j - 4] };
            let f: Vec<f32> = a.iter().map(|&x| x as f32 * 0.37 - 9.5).collect();
            let big: Vec<i32> = a
                .iter()
                .map(|&x| x.wrapping_mul(16_777_259).wrapping_sub(1_000_000_007))
                .collect();
            i64::from(match i & 7 {
                0 => a[m[c] % 4],
                1 => ab(mask8[if c < 2 { c } else { c + 4 }] % 8),
                2 => {
                    let x = f[c];
                    x.floor() as i32 * 1000
                        + x.ceil() as i32 * 100
                        + x.round_ties_even() as i32 * 10
                        + x.trunc() as i32
                }
                3 => round(i64::from(big[c]), 0).to_bits() as i32,
                4 => round(i64::from(big[c]), 1).to_bits() as i32,
                5 => round(i64::from(big[c] as u32), 2).to_bits() as i32,
                6 => {
                    let x = (f[c] * 1e9).round_ties_even();
                    if x >= 2147483648.0 {
                        i32::MAX
                    } else if x < -2147483648.0 {
                        i32::MIN
                    } else {
                        x as i32
                    }
                }
                _ => f[m[c] % 4].to_bits() as i32,
            })
        })
        .collect();
    golden_and_rtl_compute(&m, &[], &expect);
}

/// The `.rodata` segment is read-only: a kernel that stores into it stops with the address.
#[test]
fn a_store_into_rodata_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.s"),
        "k:\n\
         \ts_getpc_b64 s[0:1]\n\
         \ts_add_u32 s0, s0, t@rel32@lo+4\n\
         \ts_addc_u32 s1, s1, t@rel32@hi+12\n\
         \tv_mov_b32 v1, s0\n\
         \tv_mov_b32 v2, s1\n\
         \tv_mov_b32 v3, 7\n\
         \tflat_store_dword v[1:2], v3\n\
         \ts_endpgm\n\
         \t.section .rodata\n\
         t:\n\
         \t.long 5\n",
    )
    .unwrap();
    let m = dir.path().join("k.toml");
    std::fs::write(&m, "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\n").unwrap();
    let m = m.to_str().unwrap();
    for command in ["golden", "run"] {
        let e = pws_err(&[command, m]);
        assert!(e.contains("0xf0000100"), "{command}: {e}");
    }
}

/// The commands that take one kernel take OpenCL C as a manifest does (`--entry`, `--cflag`),
/// and refuse a manifest with a way out.
#[test]
fn kernel_commands_take_opencl_sources() {
    let dir = tempfile::tempdir().unwrap();
    let cl = dir.path().join("two.cl");
    std::fs::write(&cl, TWO_KERNELS).unwrap();
    let cl = cl.to_str().unwrap();
    let e = pws_err(&["asm", cl]);
    assert!(e.contains("defines 2 kernels (first, second)"), "{e}");
    let bin = dir.path().join("k.bin").display().to_string();
    let out = pws_ok(&["asm", cl, "--entry", "second", "-o", &bin]);
    assert!(out.starts_with("wrote "), "{out}");
    // The marked split of `second` survives compilation and the pass keeps it.
    let s = dir.path().join("k.s").display().to_string();
    let out = pws_ok(&["compile", cl, "--entry", "second", "-o", &s]);
    assert!(out.contains("1 split point(s)"), "{out}");
    assert!(std::fs::read_to_string(&s).unwrap().contains("split "));
    let r = json(&["wcet", cl, "--entry", "second", "--json"]);
    assert_eq!(r["selected"].as_array().unwrap().len(), 1, "{r}");
    // `--cflag` reaches clang: a macro the source needs.
    std::fs::write(
        dir.path().join("n.cl"),
        "__kernel void k(__global int *o) { o[get_global_id(0)] = N; }\n",
    )
    .unwrap();
    let n = dir.path().join("n.cl").display().to_string();
    let e = pws_err(&["asm", &n]);
    assert!(e.contains("use of undeclared identifier 'N'"), "{e}");
    pws_ok(&["asm", &n, "--cflag=-DN=3", "-o", &bin]);
    // Flags of OpenCL on assembly, and a manifest where a kernel belongs, are refused.
    let e = pws_err(&["wcet", "kernels/figure2.s", "--entry", "k"]);
    assert!(
        e.contains("--entry and --cflag apply to an OpenCL C kernel (.cl)"),
        "{e}"
    );
    let e = pws_err(&["compile", "kernels/figure2.toml", "-o", &s]);
    assert!(
        e.contains("is a launch manifest; `pws compile` takes a kernel"),
        "{e}"
    );
}

/// An OpenCL source or a header it includes that is not a regular file is refused before clang
/// or pws reads it: a FIFO would hang both, `/dev/zero` would fill memory.
#[test]
fn sources_that_are_not_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("k.cl");
    common::mkfifo(&fifo);
    let e = pws_err(&["asm", fifo.to_str().unwrap()]);
    assert!(
        e.contains("k.cl: is a FIFO (named pipe), not a regular file"),
        "{e}"
    );
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.h")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let m = launch(
        dir.path().join("sub").as_path(),
        "#include \"../zero.h\"\n__kernel void k(__global int *in, __global int *out) {}\n",
        "",
    );
    let e = pws_err(&["golden", &m]);
    assert!(
        e.contains("zero.h: is a character device, not a regular file"),
        "{e}"
    );
    let big = dir.path().join("big.cl");
    std::fs::write(&big, "// padding\n".repeat(2000)).unwrap();
    let e = pws_err(&["--input-limit", "cl=1K", "asm", big.to_str().unwrap()]);
    assert!(
        e.contains("larger than the 1 KiB limit for an OpenCL source"),
        "{e}"
    );
}

/// Private arrays indexed at run time (a histogram, bytes, shorts) live in private memory:
/// MUBUF dword, byte and short loads and stores through the dispatcher's scratch resource, on
/// two workgroups of 96 work-items (a partial wavefront in each), so that every wavefront's
/// offset into the private segment counts. Golden model and RTL compute what C says
/// (`kernels/cl/median5` checks a private-memory kernel against its WCET bound).
#[test]
fn private_arrays_indexed_at_run_time_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           int i = get_global_id(0);\n\
           int h[16];\n\
           uchar c[40];\n\
           short s[20];\n\
           for (int k = 0; k < 16; k++) h[k] = 0;\n\
           for (int k = 0; k < 40; k++) c[k] = k;\n\
           for (int k = 0; k < 20; k++) s[k] = -k;\n\
           int x = in[i];\n\
           for (int k = 0; k < 6; k++) {\n\
             int j = (x >> (3 * k)) & 15;\n\
             h[j] += k + 1;\n\
             c[(x + k) % 40] ^= (uchar)j;\n\
             s[(x ^ k) % 20] += (short)(j * 1000);\n\
           }\n\
           int r = 0;\n\
           for (int k = 0; k < 16; k++) r = r * 31 + h[k];\n\
           for (int k = 0; k < 40; k++) r = r * 7 + c[k];\n\
           for (int k = 0; k < 20; k++) r = r * 3 + s[k];\n\
           out[i] = r;\n\
         }\n",
    )
    .unwrap();
    let xs: Vec<i32> = (0..192u32)
        .map(|i| (i.wrapping_mul(0x9E37_79B9) >> 2) as i32)
        .collect();
    let expect: Vec<i64> = xs
        .iter()
        .map(|&x| {
            let (mut h, mut s) = ([0i32; 16], [0i16; 20]);
            let mut c: Vec<u8> = (0..40).collect();
            for k in 0..6 {
                let j = (x >> (3 * k)) & 15;
                h[j as usize] += k + 1;
                c[((x + k) % 40) as usize] ^= j as u8;
                let e = &mut s[((x ^ k) % 20) as usize];
                *e = e.wrapping_add((j * 1000) as i16);
            }
            for (k, e) in s.iter_mut().enumerate() {
                *e = e.wrapping_sub(k as i16);
            }
            let r = h
                .iter()
                .fold(0i32, |r, &v| r.wrapping_mul(31).wrapping_add(v));
            let r = c
                .iter()
                .fold(r, |r, &v| r.wrapping_mul(7).wrapping_add(v.into()));
            i64::from(
                s.iter()
                    .fold(r, |r, &v| r.wrapping_mul(3).wrapping_add(v.into())),
            )
        })
        .collect();
    let m = dir.path().join("k.toml");
    std::fs::write(
        &m,
        format!(
            "kernel = \"k.cl\"\ngrid = 192\nworkgroup = 96\nargs = [\"in\", \"out\"]\n\
             [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = {xs:?}\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 192\n"
        ),
    )
    .unwrap();
    let m = m.to_str().unwrap();
    golden_and_rtl_compute(
        m,
        &[
            "buffer_store_dword",
            "buffer_load_dword",
            "buffer_store_byte",
            "buffer_load_ubyte",
            "buffer_store_short",
            "buffer_load_ushort",
            "s_mov_b32 flat_scratch_lo",
        ],
        &expect,
    );
}

/// A private segment that would reach the code object is refused before the run, naming the
/// sizes.
#[test]
fn private_memory_past_the_address_space_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cl"),
        "__kernel void k(__global const int *in, __global int *out) {\n\
           int big[16384];\n\
           int i = get_global_id(0);\n\
           for (int k = 0; k < 16384; k++) big[k] = k ^ i;\n\
           out[i] = big[in[i] & 16383];\n\
         }\n",
    )
    .unwrap();
    let m = dir.path().join("k.toml");
    std::fs::write(
        &m,
        "kernel = \"k.cl\"\ngrid = 65536\nworkgroup = 64\nargs = [\"in\", \"out\"]\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\nlen = 65536\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 65536\n",
    )
    .unwrap();
    let m = m.to_str().unwrap();
    for cmd in ["golden", "run"] {
        let e = pws_err(&[cmd, m]);
        assert!(e.contains("the kernel's private memory (655"), "{cmd}: {e}");
        assert!(
            e.contains("bytes per work-item, 4.0 GiB for the launch"),
            "{cmd}: {e}"
        );
        assert!(e.contains("past the code object"), "{cmd}: {e}");
    }
}

/// `-O0` code keeps every scalar in a vector lane (`v_writelane_b32`, `v_readlane_b32`) and
/// every variable in private memory: both executors run it, and `--split-all` leaves the
/// divergent regions holding lane accesses serialized (a split half could write the other
/// half's lanes) and still computes the same.
#[test]
fn kernels_compiled_at_o0_run() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int x = in[i];\n\
      int acc = 0;\n\
      if (x & 1) {\n\
        for (int k = 0; k < (x & 7); k++) {\n\
          PWS_LOOP_BOUND(7);\n\
          acc += k * x;\n\
        }\n\
      } else {\n\
        acc = x / 3 - i;\n\
      }\n\
      out[i] = acc;\n\
    }\n";
    let m = launch(dir.path(), kernel, "cflags = [\"-O0\"]");
    let expect: Vec<i64> = (0..64i64)
        .map(|i| {
            let x = i * 37 % 101;
            if x & 1 == 1 {
                (0..(x & 7)).map(|k| k * x).sum()
            } else {
                x / 3 - i
            }
        })
        .collect();
    golden_and_rtl_compute(&m, &["v_writelane_b32", "v_readlane_b32"], &expect);
    let pws = json(&["run", &m, "--mode", "pws", "--split-all", "--json"]);
    assert_eq!(buffer(&pws, "out"), expect, "RTL, pws --split-all");
    // A helper function stays a call at -O0; the error says why.
    let m = launch(
        dir.path(),
        "int twice(int x) { return 2 * x; }
         __kernel void k(__global const int *in, __global int *out) {
           out[get_global_id(0)] = twice(in[get_global_id(0)]);
         }
",
        "cflags = [\"-O0\"]",
    );
    let e = pws_err(&["golden", &m]);
    assert!(e.contains("the kernel calls `twice`"), "{e}");
    assert!(e.contains("clang inlines no function at -O0"), "{e}");
}

/// A kernel with more live uniform values than SGPRs: clang-14 spills scalars into vector
/// lanes at -O2 too (`v_writelane_b32`, `v_readlane_b32`), and both executors compute it.
#[test]
fn scalar_register_spills_at_o2_run() {
    const N: usize = 110;
    let dir = tempfile::tempdir().unwrap();
    let params: Vec<String> = (0..N).map(|i| format!("int a{i}")).collect();
    let terms: Vec<String> = (0..N)
        .map(|i| format!("    acc += (x & {}) ? a{i} * x : a{i};\n", 1 << (i % 16)))
        .collect();
    std::fs::write(
        dir.path().join("k.cl"),
        format!(
            "__kernel void k(__global const int *in, __global int *out, {}) {{\n\
               int x = in[get_global_id(0)];\n\
               int acc = 0;\n\
               for (int t = 0; t < (x & 1); t++) {{\n\
                 PWS_LOOP_BOUND(1);\n{}\
                 x = x * 3 + 2;\n\
               }}\n\
               out[get_global_id(0)] = acc;\n\
             }}\n",
            params.join(", "),
            terms.concat()
        ),
    )
    .unwrap();
    let a: Vec<i32> = (0..N as i32).map(|i| i * 37 % 101 - 50).collect();
    let xs: Vec<i32> = (0..64).map(|i| i * 7919 % 1000).collect();
    let expect: Vec<i64> = xs
        .iter()
        .map(|&x| {
            if x & 1 == 0 {
                return 0;
            }
            let acc = a.iter().enumerate().fold(0i32, |acc, (i, &ai)| {
                acc.wrapping_add(if x & 1 << (i % 16) != 0 {
                    ai.wrapping_mul(x)
                } else {
                    ai
                })
            });
            i64::from(acc)
        })
        .collect();
    let m = dir.path().join("k.toml");
    std::fs::write(
        &m,
        format!(
            "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\", {}]\n\
             [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = {xs:?}\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 64\n",
            a.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
        ),
    )
    .unwrap();
    golden_and_rtl_compute(
        m.to_str().unwrap(),
        &["v_writelane_b32", "v_readlane_b32"],
        &expect,
    );
}

/// 64 `long`s for the 64-bit built-ins: the edges of every integer type, then a mixing
/// sequence.
fn longs() -> Vec<i64> {
    let edges = [
        0,
        1,
        -1,
        i64::MIN,
        i64::MAX,
        i64::from(i32::MIN),
        i64::from(i32::MAX),
        i64::from(u32::MAX),
        1 << 32,
        (1 << 24) + 1,
        (1 << 53) + 1,
        -(1 << 40) - 3,
        i64::MAX - 511,
        i64::MIN + 1,
        255,
        -129,
    ];
    let mut v = edges.to_vec();
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    while v.len() < 64 {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.push((s ^ s >> 29) as i64 >> (s % 40));
    }
    v
}

/// `F(r)`, which [`launch_longs`] defines for its kernels: a 64-bit result folded into the 32
/// bits they write, as [`fold`] does.
const FOLD_C: &str = "#define F(r) ((int)((ulong)(r) ^ (ulong)(r) >> 32))\n";

/// `k.cl` on 64 work-items: `in` holds [`longs`], `out` `width` `i32`s per work-item; the
/// kernel can use `F` ([`FOLD_C`]).
fn launch_longs(dir: &std::path::Path, kernel: &str, width: usize) -> String {
    std::fs::write(dir.join("k.cl"), format!("{FOLD_C}{kernel}")).unwrap();
    let data = longs()
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let m = format!(
        "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"in\", \"out\"]\n\n\
         [[buffer]]\nname = \"in\"\ntype = \"i64\"\ndata = [{data}]\n\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {}\n",
        64 * width
    );
    let path = dir.join("k.toml");
    std::fs::write(&path, m).unwrap();
    path.to_str().unwrap().to_string()
}

/// A 64-bit result folded into the 32 bits a kernel writes: `(int)(r ^ r >> 32)`, `F`.
fn fold(r: u64) -> i64 {
    i64::from((r ^ r >> 32) as u32 as i32)
}

/// The integer built-ins on `long` and `ulong` (they were ambiguous calls: pws.h had only the
/// 32-bit and narrower ones), `rotate` on `int` (it called itself: its `uint` overload was
/// declared after it, and LLVM deleted the infinite recursion and every path to it),
/// `abs_diff` on every width, and `min`/`max`/`clamp` on the narrow scalars (ambiguous once
/// their vector forms with a scalar bound existed): golden model and RTL against Rust's
/// 128-bit arithmetic.
#[test]
fn long_integer_built_ins_compute_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = r#"
__kernel void k(__global const long *in, __global int *out) {
  int i = get_global_id(0);
  long x = in[i], y = in[63 - i], z = in[(i + 7) & 63];
  ulong ux = x, uy = y, uz = z;
  __global int *o = out + 16 * i;
  o[0] = F(mul_hi(x, y)); o[1] = F(mul_hi(ux, uy));
  o[2] = F(mad_hi(x, y, z)); o[3] = F(mad_sat(x, y, z)); o[4] = F(mad_sat(ux, uy, uz));
  o[5] = F(add_sat(x, y)); o[6] = F(sub_sat(x, y)); o[7] = F(add_sat(ux, uy));
  o[8] = F(sub_sat(ux, uy)); o[9] = F(hadd(x, y) ^ rhadd(ux, uy) << 1);
  o[10] = F(clz(x) | ctz(uy) << 8 | popcount(z) << 16);
  o[11] = F(rotate(x, y) ^ rotate(ux, (ulong)i)) ^ rotate((int)z, (int)y) ^ rotate((int2)((int)x), (int2)(i)).y;
  o[12] = F(abs_diff(x, y) ^ abs_diff(ux, uz) << 3);
  o[13] = abs_diff((char)x, (char)y) | abs_diff((ushort)x, (ushort)y) << 8;
  o[14] = (uchar)min((char)x, (char)y) | (uchar)max((uchar)x, (uchar)y) << 8
        | (ushort)clamp((short)x, (short)-300, (short)300) << 16;
  o[15] = F(abs(x) ^ abs(ux) << 1) ^ (abs((char)y) | abs((short)z) << 8);
}
"#;
    let m = launch_longs(dir.path(), kernel, 16);
    let v = longs();
    let mut expect = Vec::new();
    for i in 0..64 {
        let (x, y, z) = (v[i], v[63 - i], v[(i + 7) & 63]);
        let (ux, uy, uz) = (x as u64, y as u64, z as u64);
        let wide = |a: i64, b: i64| i128::from(a) * i128::from(b);
        let uwide = |a: u64, b: u64| u128::from(a) * u128::from(b);
        let sat = |r: i128| r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as u64;
        let usat = |r: u128| r.min(u128::from(u64::MAX)) as u64;
        let hadd = (i128::from(x) + i128::from(y)) >> 1;
        let rhadd = (u128::from(ux) + u128::from(uy) + 1) >> 1;
        let rot = |a: u64, n: u64| a.rotate_left((n % 64) as u32);
        let clz = u64::from(x.leading_zeros()) | u64::from(uy.trailing_zeros()) << 8;
        let r = [
            (wide(x, y) >> 64) as u64,
            (uwide(ux, uy) >> 64) as u64,
            ((wide(x, y) >> 64) as u64).wrapping_add(uz),
            sat(wide(x, y) + i128::from(z)),
            usat(uwide(ux, uy) + u128::from(uz)),
            sat(i128::from(x) + i128::from(y)),
            sat(i128::from(x) - i128::from(y)),
            ux.saturating_add(uy),
            ux.saturating_sub(uy),
            hadd as u64 ^ (rhadd as u64) << 1,
            clz | u64::from(z.count_ones()) << 16,
            rot(ux, uy) ^ rot(ux, i as u64),
            x.abs_diff(y) ^ ux.abs_diff(uz) << 3,
        ];
        expect.extend(r.iter().map(|&r| fold(r)));
        let rot32 = (z as u32).rotate_left(y as u32 % 32) ^ (x as u32).rotate_left(i as u32);
        expect[16 * i + 11] ^= i64::from(rot32 as i32);
        let (cx, cy) = (x as i8, y as i8);
        let (sx, sy) = (x as u16, y as u16);
        expect.push(i64::from(
            u32::from(cx.abs_diff(cy)) | u32::from(sx.abs_diff(sy)) << 8,
        ));
        expect.push(i64::from(
            (u32::from(cx.min(cy) as u8)
                | u32::from((x as u8).max(y as u8)) << 8
                | u32::from((x as i16).clamp(-300, 300) as u16) << 16) as i32,
        ));
        let abs = x.unsigned_abs() ^ ux << 1;
        let narrow =
            u32::from((y as i8).unsigned_abs()) | u32::from((z as i16).unsigned_abs()) << 8;
        expect.push(fold(abs) ^ i64::from(narrow as i32));
    }
    golden_and_rtl_compute(&m, &[], &expect);
}

/// The float a work-item of [`conversions_from_every_type_round_and_saturate`] converts: x's
/// sign and mantissa bits with an exponent from 2^-27 to 2^68 (no denormals, which pws
/// flushes), or a special value.
fn float_of(x: i64, i: usize) -> f32 {
    match i {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 9.223_372e18,   // 2^63
        5 => 1.844_674_4e19, // 2^64
        6 => -9.223_372e18,
        7 => 2.5,
        8 => -3.5,
        _ => {
            let e = 100 + ((x >> 40) & 0x5f) as u32;
            f32::from_bits(x as u32 & 0x807f_ffff | e << 23)
        }
    }
}

/// Integer to float in a directed mode: `(float)x` stepped one float towards the mode when
/// it went past x (compared exactly in i128).
fn to_float_mode(x: i128, mode: u8) -> u32 {
    let f = if x.unsigned_abs() < 1 << 24 {
        x as f32
    } else {
        nearest_even_f32(x)
    };
    let fx = f as i128;
    let above = f.is_infinite() || fx > x;
    let below = !f.is_infinite() && fx < x;
    let step = |up: bool| {
        f32::from_bits(if (f > 0.0) == up {
            f.to_bits() + 1
        } else {
            f.to_bits() - 1
        })
    };
    let r = match mode {
        b'z' if (f > 0.0 && above) || (f < 0.0 && below) => step(f < 0.0),
        b'p' if below => step(true),
        b'n' if above => step(false),
        _ => f,
    };
    r.to_bits()
}

/// x (at least 2^24 in magnitude) rounded to the nearest f32, ties to even, from its bits.
fn nearest_even_f32(x: i128) -> f32 {
    let m = x.unsigned_abs();
    let shift = 128 - m.leading_zeros() as i32 - 24;
    let (mut q, rem) = (m >> shift, m & ((1u128 << shift) - 1));
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    let f = q as f32 * 2f32.powi(shift);
    if x < 0 {
        -f
    } else {
        f
    }
}

/// Conversions from every integer type, in every rounding mode and saturated (before, every
/// integer source but `int`/`uint` to float went through the float overload or did not
/// compile: `convert_int_sat(16777217u)` gave 16777216, `convert_int_rte(int)` lost the low
/// bits above 2^24, `convert_long_sat(float)` was an undefined call), and float to `long` and
/// `ulong` saturated in every mode. Golden model and RTL against Rust.
#[test]
fn conversions_from_every_type_round_and_saturate() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = r#"
__kernel void k(__global const long *in, __global int *out) {
  int i = get_global_id(0);
  long x = in[i];
  ulong ux = x;
  int xi = (int)x;
  uint e = 100 + ((x >> 40) & 0x5f);
  float f = i == 0 ? as_float(0x7fc00000u) : i == 1 ? INFINITY : i == 2 ? -INFINITY : i == 3 ? -0.0f
          : i == 4 ? 0x1p63f : i == 5 ? 0x1p64f : i == 6 ? -0x1p63f : i == 7 ? 2.5f : i == 8 ? -3.5f
          : as_float(((uint)x & 0x807fffffu) | e << 23);
  __global int *o = out + 12 * i;
  o[0] = convert_int_rte(xi) ^ convert_int_sat_rtn((uint)x);
  o[1] = convert_int_sat(x) ^ (int)convert_uint_sat(x) * 3 ^ (int)convert_uint_sat_rtz(xi) * 5;
  o[2] = convert_char_sat(x) & 0xff | convert_ushort_sat(ux) << 8 | convert_uchar_sat_rtp(x) << 24;
  o[3] = F(convert_long_sat(ux)) ^ F(convert_ulong_sat(x)) * 3 ^ F(convert_long_rte(ux)) * 5;
  o[4] = as_int(convert_float_rtz(x)) ^ as_int(convert_float_rtp(x)) * 3 ^ as_int(convert_float_rtn(x)) * 5;
  o[5] = as_int(convert_float_rtz(ux)) ^ as_int(convert_float_rtp(ux)) * 3 ^ as_int(convert_float_rtn(ux)) * 5;
  o[6] = as_int(convert_float_rte(x)) ^ as_int(convert_float_rte(ux)) * 3 ^ as_int(convert_float_rtp(xi)) * 5;
  o[7] = F(convert_long_sat(f)) ^ F(convert_long_sat_rte(f)) * 3;
  o[8] = F(convert_long_sat_rtp(f)) ^ F(convert_long_sat_rtn(f)) * 3;
  o[9] = F(convert_ulong_sat(f)) ^ F(convert_ulong_sat_rte(f)) * 3 ^ F(convert_ulong_sat_rtn(f)) * 5;
  long2 v = (long2)(x, ~x);
  int2 s = convert_int2_sat(v);
  float2 g = convert_float2_rtp(v);
  o[10] = s.x ^ s.y * 3 ^ as_int(g.x) * 5 ^ as_int(g.y) * 7;
  o[11] = as_int(convert_float_rtz(f)) ^ convert_short_sat((short)x) ^ convert_int_sat_rte((ushort)x) << 3;
}
"#;
    let m = launch_longs(dir.path(), kernel, 12);
    let v = longs();
    let sat = |r: i128, lo: i128, hi: i128| r.clamp(lo, hi);
    let (i32r, u32r) = (
        (i128::from(i32::MIN), i128::from(i32::MAX)),
        (0, i128::from(u32::MAX)),
    );
    let mut expect = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        let ux = x as u64;
        let (xw, uxw) = (i128::from(x), i128::from(ux));
        let xi = x as i32;
        let f = float_of(x, i);
        let w = |r: i128| r as i32 as i64;
        let tf = |x: i128, m: u8| to_float_mode(x, m) as i32;
        let l = |r: f32| r as i64 as u64; // Rust's float-to-int casts saturate, NaN to 0
        let ul = |r: f32| r as u64;
        expect.push(i64::from(
            xi ^ sat(uxw & 0xffff_ffff, i32r.0, i32r.1) as i32,
        ));
        expect.push(w(sat(xw, i32r.0, i32r.1)
            ^ (sat(xw, u32r.0, u32r.1) as i32).wrapping_mul(3) as i128
            ^ (sat(i128::from(xi), u32r.0, u32r.1) as i32).wrapping_mul(5)
                as i128));
        expect.push(i64::from(
            (sat(xw, -128, 127) as i32 & 0xff)
                | (sat(uxw, 0, 0xffff) as i32) << 8
                | (sat(xw, 0, 255) as i32) << 24,
        ));
        let lsat = sat(uxw, 0, i128::from(i64::MAX)) as u64;
        let ulsat = sat(xw, 0, i128::from(u64::MAX)) as u64;
        expect.push(i64::from(
            fold(lsat) as i32
                ^ (fold(ulsat) as i32).wrapping_mul(3)
                ^ (fold(ux) as i32).wrapping_mul(5),
        ));
        for src in [xw, uxw] {
            expect.push(i64::from(
                tf(src, b'z') ^ tf(src, b'p').wrapping_mul(3) ^ tf(src, b'n').wrapping_mul(5),
            ));
        }
        expect.push(i64::from(
            tf(xw, b'e') ^ tf(uxw, b'e').wrapping_mul(3) ^ tf(i128::from(xi), b'p').wrapping_mul(5),
        ));
        expect.push(fold(l(f)) ^ i64::from((fold(l(f.round_ties_even())) as i32).wrapping_mul(3)));
        expect.push(i64::from(
            fold(l(f.ceil())) as i32 ^ (fold(l(f.floor())) as i32).wrapping_mul(3),
        ));
        expect.push(i64::from(
            fold(ul(f)) as i32
                ^ (fold(ul(f.round_ties_even())) as i32).wrapping_mul(3)
                ^ (fold(ul(f.floor())) as i32).wrapping_mul(5),
        ));
        let (s0, s1) = (
            sat(xw, i32r.0, i32r.1) as i32,
            sat(!xw, i32r.0, i32r.1) as i32,
        );
        expect.push(i64::from(
            s0 ^ s1.wrapping_mul(3) ^ tf(xw, b'p').wrapping_mul(5) ^ tf(!xw, b'p').wrapping_mul(7),
        ));
        expect.push(i64::from(
            f.to_bits() as i32 ^ i32::from(x as i16) ^ i32::from(x as u16) << 3,
        ));
    }
    golden_and_rtl_compute(&m, &[], &expect);
}

/// The forms pws.h lacked on the other vector types: `any`/`all` on `char`, `short` and
/// `long` vectors (`any(long)` went through `any(int)`, the low word), `select` and
/// `bitselect` on every integer type, `abs`, `abs_diff` and `upsample` vectors, and the math,
/// relational and pointer-result functions on `float8` and `float16`: each against its
/// scalar form per component (0 where all agree, a bit per function otherwise).
#[test]
fn vector_forms_of_every_type_equal_their_scalar_forms() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = r#"
__kernel void k(__global const long *in, __global int *out) {
  int i = get_global_id(0);
  long x = in[i], y = in[63 - i], z = in[(i + 7) & 63];
  long4 l = (long4)(x, y, z, x ^ y);
  char4 c = as_char4((int)x), d = as_char4((int)y);
  short2 s = as_short2((int)z);
  int bad = 0;
  bad |= (any(l) != (x < 0 || y < 0 || z < 0 || (x ^ y) < 0)) << 0;
  bad |= (all(l) != (x < 0 && y < 0 && z < 0 && (x ^ y) < 0)) << 1;
  bad |= (any(c) != (c.x < 0 || c.y < 0 || c.z < 0 || c.w < 0) | all(s) != (s.x < 0 && s.y < 0)) << 2;
  bad |= (any(x) != (x < 0) | all((char)y) != ((char)y < 0)) << 3;
  long4 m = select(l, l.wzyx, as_long4(l.yzwx));
  bad |= (select(x, y, z) != (z ? y : x) | select((uchar)x, (uchar)y, (char)z) != ((char)z ? (uchar)y : (uchar)x)) << 4;
  bad |= any(m != (long4)(l.y < 0 ? l.w : l.x, l.z < 0 ? l.z : l.y, l.w < 0 ? l.y : l.z, l.x < 0 ? l.x : l.w)) << 5;
  char4 sc = select(c, d, c);
  bad |= any(sc != (char4)(c.x < 0 ? d.x : c.x, c.y < 0 ? d.y : c.y, c.z < 0 ? d.z : c.z, c.w < 0 ? d.w : c.w)) << 6;
  bad |= (bitselect(x, y, z) != ((x & ~z) | (y & z))) << 7;
  bad |= any(bitselect(c, d, c.wzyx) != ((c & ~c.wzyx) | (d & c.wzyx))) << 8;
  uchar4 ad = abs_diff(c, d);
  bad |= any(ad != (uchar4)(abs_diff(c.x, d.x), abs_diff(c.y, d.y), abs_diff(c.z, d.z), abs_diff(c.w, d.w))) << 9;
  bad |= (abs_diff(c.x, d.x) != (uchar)(c.x < d.x ? d.x - c.x : c.x - d.x)) << 10;
  ulong2 al = abs(l.xy);
  bad |= any(al != (ulong2)(abs(l.x), abs(l.y))) << 11;
  long2 up = upsample(as_int2(l.x), as_uint2(l.y));
  bad |= any(up != (long2)(upsample(as_int2(l.x).x, as_uint2(l.y).x), upsample(as_int2(l.x).y, as_uint2(l.y).y))) << 12;
  short4 us = upsample(c, as_uchar4(d));
  bad |= any(us != (short4)(upsample(c.x, (uchar)d.x), upsample(c.y, (uchar)d.y), upsample(c.z, (uchar)d.z), upsample(c.w, (uchar)d.w))) << 13;
  bad |= (upsample(c.x, (uchar)d.x) != (short)(((uchar)c.x << 8) | (uchar)d.x)) << 14;
  float8 f = convert_float8(as_char8(x)) * 0.375f + convert_float8(as_char8(y)) * 0.0625f;
  float8 g = f.s70615243 * -1.5f + 0.25f;
  float8 r = sqrt(fabs(f)) + fma(f, g, 1.0f) * fmax(f, g) - exp(g * 0.01f);
  float8 t;
  for (int k = 0; k < 8; k++)
    t[k] = sqrt(fabs(f[k])) + fma(f[k], g[k], 1.0f) * fmax(f[k], g[k]) - exp(g[k] * 0.01f);
  bad |= any(as_int8(r) != as_int8(t)) << 15;
  int8 gt = isgreater(f, g);
  int8 gts;
  for (int k = 0; k < 8; k++) gts[k] = -isgreater(f[k], g[k]);
  bad |= any(gt != gts) << 16;
  float8 ip, fr = fract(f, &ip);
  for (int k = 0; k < 8; k++) { float p; float q = fract(f[k], &p); bad |= (as_int(q) != as_int(fr[k]) || as_int(p) != as_int(ip[k])) << 17; }
  float16 h = (float16)(f, g);
  float16 hr = clamp(sin(h), -0.5f, 0.5f);
  for (int k = 0; k < 16; k++) bad |= (as_int(hr[k]) != as_int(clamp(sin(h[k]), -0.5f, 0.5f))) << 18;
  int16 il = ilogb(h);
  for (int k = 0; k < 16; k++) bad |= (il[k] != ilogb(h[k])) << 19;
  long2 mh = mul_hi(l.xy, l.zw);
  bad |= any(mh != (long2)(mul_hi(l.x, l.z), mul_hi(l.y, l.w))) << 20;
  out[i] = bad;
}
"#;
    let m = launch_longs(dir.path(), kernel, 1);
    golden_and_rtl_compute(&m, &[], &[0; 64]);
}

/// `fabs` and `-fabs` of a uniform float that is stored as it is: clang clears or sets the
/// sign bit in its SGPR with `s_bitset0_b32` / `s_bitset1_b32` (which read the destination
/// register and were not in the ISA: "unsupported instruction"). Both executors.
#[test]
fn fabs_of_a_uniform_float_runs_as_s_bitset() {
    let dir = tempfile::tempdir().unwrap();
    for (body, op, expect) in [
        ("out[0] = fabs(a);", "s_bitset0_b32", [1.5f32, 0.0]),
        ("out[1] = -fabs(b);", "s_bitset1_b32", [0.0, -2.25]),
    ] {
        std::fs::write(
            dir.path().join("k.cl"),
            format!("__kernel void k(__global float *out, float a, float b) {{ {body} }}\n"),
        )
        .unwrap();
        let m = dir.path().join("k.toml");
        std::fs::write(
            &m,
            "kernel = \"k.cl\"\ngrid = 64\nworkgroup = 64\nargs = [\"out\", -1.5, 2.25]\n\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 2\n",
        )
        .unwrap();
        let want: Vec<i64> = expect
            .iter()
            .map(|f| i64::from(f.to_bits() as i32))
            .collect();
        golden_and_rtl_compute(m.to_str().unwrap(), &[op], &want);
    }
}

/// A loop clang leaves counted by a uniform SGPR (`for (int j = 0; j < 24; j++)`, not
/// unrolled) needs no `PWS_LOOP_BOUND`: the host infers its 24 iterations from the counter
/// (`host::extract::trip_count`), and the bound holds, tightly, on the RTL in every mode.
#[test]
fn a_counted_loop_is_bounded_without_an_annotation() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int acc = 0;\n\
      #pragma clang loop unroll(disable)\n\
      for (int j = 0; j < 24; j++)\n\
        acc += in[j] * (i + j);\n\
      out[i] = acc;\n\
    }\n";
    let m = launch(dir.path(), kernel, "");
    let rows = json(&[
        "compare", &m, "--mode", "nosplit", "--mode", "pws", "--json",
    ]);
    for row in rows.as_array().unwrap() {
        let cycles = row["cycles"].as_u64().unwrap();
        let bound = row["bound"]
            .as_u64()
            .unwrap_or_else(|| panic!("no bound: {row}"));
        assert!(cycles <= bound && bound <= cycles + cycles / 50, "{row}");
        assert_eq!(row["golden_equal"], true, "{row}");
    }
    let data: Vec<i64> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64)
        .map(|i| (0..24).map(|j| data[j as usize] * (i + j)).sum())
        .collect();
    golden_and_rtl_compute(&m, &["s_cbranch_scc0"], &expect);
}

/// Counted loops that some lanes leave early are bounded without `PWS_LOOP_BOUND` too: clang
/// folds the counter's test into the mask of lanes that leave (`s_cselect_b64`, ORed with the
/// data's test) and the loop ends on an empty EXEC, which the host follows
/// (`host::extract::exit_mask`). The bound holds on the RTL with every compaction, and the
/// results are Collatz's and a search's.
#[test]
fn counted_loops_with_a_break_are_bounded_without_an_annotation() {
    let data: Vec<i64> = (0..64).map(|v| v * 37 % 101).collect();
    let collatz = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      uint x = in[i] + 1;\n\
      int steps = 0;\n\
      while (x != 1 && steps < 40) { x = (x & 1) ? 3 * x + 1 : x >> 1; steps++; }\n\
      out[i] = steps * 1000 + (int)(x % 1000);\n\
    }\n";
    let collatz_expect: Vec<i64> = data
        .iter()
        .map(|&v| {
            let (mut x, mut steps) = (v as u32 + 1, 0);
            while x != 1 && steps < 40 {
                x = if x & 1 != 0 { 3 * x + 1 } else { x >> 1 };
                steps += 1;
            }
            steps * 1000 + i64::from(x % 1000)
        })
        .collect();
    let search = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int pos = -1;\n\
      #pragma clang loop unroll(disable)\n\
      for (int j = 0; j < 48; j++) {\n\
        if (in[(i + j) & 63] % 7 == 3) { pos = j; break; }\n\
      }\n\
      out[i] = pos;\n\
    }\n";
    let search_expect: Vec<i64> = (0..64)
        .map(|i| {
            (0..48)
                .find(|&j| data[(i + j) & 63] % 7 == 3)
                .map_or(-1, |j| j as i64)
        })
        .collect();
    for (kernel, expect) in [(collatz, collatz_expect), (search, search_expect)] {
        let dir = tempfile::tempdir().unwrap();
        let m = launch(dir.path(), kernel, "");
        // Without a split DWS and PWS run the kernel as no-split: the compactions differ.
        bounded_in_no_split(&m);
        golden_and_rtl_compute(&m, &["s_cselect_b64", "s_cbranch_exec"], &expect);
    }
}

/// The loops users bound by a kernel argument (`for (c = 0; c < cols; c++)`, clang counting
/// `cols` down or comparing with it) or by the workgroup's size (the tree reduction's `s =
/// get_local_size(0) / 2; s > 0; s >>= 1`) have one trip count in a launch: `pws wcet` and
/// `pws compare` of a manifest bound them from its arguments and its dispatch packet, with a
/// note, where a kernel alone (`pws wcet k.cl`) still asks for a bound.
#[test]
fn loops_bounded_by_arguments_and_the_workgroup_size_need_no_annotation() {
    let kernels =
        "__kernel void reduce(__global const int *in, __global int *out, __local int *t) {\n\
      int l = get_local_id(0);\n\
      t[l] = in[get_global_id(0)];\n\
      barrier(CLK_LOCAL_MEM_FENCE);\n\
      for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {\n\
        if (l < s) t[l] += t[l + s];\n\
        barrier(CLK_LOCAL_MEM_FENCE);\n\
      }\n\
      if (l == 0) out[get_group_id(0)] = t[0];\n\
    }\n\
    __kernel void rows(__global const int *in, __global int *out, int nrows, int cols) {\n\
      int i = get_global_id(0);\n\
      int best = 0;\n\
      for (int r = 0; r < nrows; r++) {\n\
        int s = 0;\n\
        for (int c = 0; c < cols; c++) s += in[(i + r * cols + c) & 127];\n\
        best = max(best, s);\n\
      }\n\
      out[i] = best;\n\
    }\n";
    let data: Vec<i64> = (0..128).map(|v| (v * 37 % 101) - 50).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), kernels).unwrap();
    let manifest = |entry: &str, workgroup: u32, args: &str| {
        grid_of_128(
            dir.path(),
            &format!("{entry}{workgroup}{}", args.len()),
            &format!(
                "entry = \"{entry}\"\nworkgroup = {workgroup}\nargs = [\"in\", \"out\", {args}]"
            ),
            &data,
        )
    };
    let header_runs = |m: &str| -> String {
        let out = pws_ok(&["wcet", m, "--mode", "nosplit"]);
        out.lines()
            .filter(|l| l.contains("inferred for this launch"))
            .map(|l| {
                l.split(": loop bound ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (workgroup, runs) in [(64, "6"), (32, "5"), (128, "7")] {
        let m = manifest("reduce", workgroup, "{ local = 512 }");
        assert_eq!(header_runs(&m), runs, "workgroup {workgroup}");
        let mut expect = vec![0i64; 128];
        for (g, chunk) in data.chunks(workgroup as usize).enumerate() {
            expect[g] = chunk.iter().sum();
        }
        bounded_in_no_split(&m);
        golden_and_rtl_compute(&m, &["s_lshr_b32"], &expect);
    }
    let row = |i: usize, nrows: usize, cols: usize| -> i64 {
        (0..nrows)
            .map(|r| {
                (0..cols)
                    .map(|c| data[(i + r * cols + c) & 127])
                    .sum::<i64>()
            })
            .fold(0, i64::max)
    };
    for (nrows, cols, runs) in [(3, 5, "3 5"), (4, 2, "4 2")] {
        let m = manifest("rows", 64, &format!("{nrows}, {cols}"));
        assert_eq!(header_runs(&m), runs, "{nrows} x {cols}");
        let expect: Vec<i64> = (0..128).map(|i| row(i, nrows, cols)).collect();
        bounded_in_no_split(&m);
        golden_and_rtl_compute(&m, &[], &expect);
    }
    let alone = pws_err(&[
        "wcet",
        dir.path().join("k.cl").to_str().unwrap(),
        "--entry",
        "rows",
    ]);
    assert!(
        alone.contains("no bound") && alone.contains("analyse a launch manifest"),
        "{alone}"
    );
    // Without a manifest the workgroup size is still the one `pws wcet` bounds (`--wg-size`,
    // one wavefront by default), which bounds the reduction; the arguments stay unknown.
    let k = dir.path().join("k.cl");
    let bound_at = |wg: &str| {
        let out = common::pws(&[
            "wcet",
            k.to_str().unwrap(),
            "--entry",
            "reduce",
            "--wg-size",
            wg,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let note = String::from_utf8(out.stderr).unwrap();
        (v["e_wf"]["nosplit"].as_u64().unwrap(), note)
    };
    let (at64, note) = bound_at("64");
    assert!(
        note.contains("loop bound 6 inferred for 1 workgroup of 64 work-items"),
        "{note}"
    );
    let (at128, note) = bound_at("128");
    assert!(
        note.contains("loop bound 7 inferred for 1 workgroup of 128 work-items"),
        "{note}"
    );
    assert!(at128 > at64, "{at64} {at128}");
}

/// Grid-stride loops and a workgroup's copy of a tile count in a VGPR, each lane from its own
/// id: their bounds are the slowest lane's trips (`host::extract::lane_count`), with no
/// `PWS_LOOP_BOUND`, for `int`, `uint` and `size_t` counters, counting up or down, left early
/// by a `break`, stepped by `get_num_groups(0)` (a division clang computes in VGPRs), counting
/// down a value from memory capped by `min` behind clang's `if (0 < c)` (or counting up to it
/// in an SGPR), and for a
/// triangle's rows (`j <= gid`, which clang counts down to an equality
/// test), at -O1 to -O3; the kernels compute what the C says on the golden model and the RTL,
/// within the bound.
#[test]
fn grid_stride_loops_need_no_annotation() {
    let kernels = "\
    __kernel void sum(__global const int *in, __global int *out, int n) {\n\
      int s = 0;\n\
      for (int i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];\n\
      out[get_global_id(0)] = s;\n\
    }\n\
    __kernel void wide(__global const int *in, __global int *out, ulong n) {\n\
      int s = 0;\n\
      for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];\n\
      out[get_global_id(0)] = s;\n\
    }\n\
    __kernel void down(__global const int *in, __global int *out, int n) {\n\
      int s = 0;\n\
      for (int i = n - 1 - (int)get_global_id(0); i >= 0; i -= get_global_size(0)) s = s * 3 + in[i];\n\
      out[get_global_id(0)] = s;\n\
    }\n\
    __kernel void find(__global const int *in, __global int *out, int n) {\n\
      int i;\n\
      for (i = get_global_id(0); i < n; i += get_global_size(0)) if (in[i] > 45) break;\n\
      out[get_global_id(0)] = i;\n\
    }\n\
    __kernel void tile(__global const int *in, __global int *out, uint n) {\n\
      __local int t[64];\n\
      for (uint i = get_local_id(0); i < n; i += get_local_size(0)) t[i & 63] = in[i] + (int)i;\n\
      barrier(CLK_LOCAL_MEM_FENCE);\n\
      out[get_global_id(0)] = t[get_local_id(0)];\n\
    }\n\
    __kernel void tri(__global const int *in, __global int *out, int n) {\n\
      int s = 0;\n\
      for (int j = 0; j <= (int)get_global_id(0); j++) s += in[j];\n\
      out[get_global_id(0)] = s;\n\
    }\n\
    __kernel void blocks(__global const int *in, __global int *out, int n) {\n\
      int s = 0;\n\
      for (int b = get_group_id(0); b < n; b += get_num_groups(0)) s += in[b] * (int)get_local_id(0);\n\
      out[get_global_id(0)] = s;\n\
    }\n\
    __kernel void capped(__global const int *in, __global int *out, int n) {\n\
      int i = get_global_id(0), c = min(in[i], 16), s = 0;\n\
      for (int k = 0; k < c; k++) s += in[k] * (k + i);\n\
      out[i] = s;\n\
    }\n\
    __kernel void capped_k(__global const int *in, __global int *out, int n) {\n\
      int i = get_global_id(0), c = min(in[i], 16), s = 0;\n\
      for (int k = 0; k < c; k++) s += in[k] * k;\n\
      out[i] = s;\n\
    }\n";
    let n = 700usize;
    let data: Vec<i64> = (0..n as i64).map(|v| (v * 37 % 101) - 50).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), kernels).unwrap();
    let manifest = |entry: &str, opt: &str| {
        grid_of_128(
            dir.path(),
            &format!("{entry}{opt}"),
            &format!("entry = \"{entry}\"\ncflags = [\"{opt}\"]\nworkgroup = 64\nargs = [\"in\", \"out\", {n}]"),
            &data,
        )
    };
    let wrap = |x: i64| i64::from(x as i32);
    let sum: Vec<i64> = (0..128)
        .map(|g| (g..n).step_by(128).map(|i| data[i]).sum())
        .collect();
    let down: Vec<i64> = (0..128)
        .map(|g| {
            (0..=n - 1 - g)
                .rev()
                .step_by(128)
                .fold(0, |s, i| wrap(s * 3 + data[i]))
        })
        .collect();
    let find: Vec<i64> = (0..128)
        .map(|g| {
            let mut i = g;
            while i < n && data[i] <= 45 {
                i += 128;
            }
            i as i64
        })
        .collect();
    let tile: Vec<i64> = (0..128)
        .map(|g| {
            let l = g % 64;
            // The last write of t[l] in program order is the lane's last i with i & 63 == l.
            let last = (l..n).step_by(64).next_back().unwrap();
            data[last] + last as i64
        })
        .collect();
    let tri: Vec<i64> = (0..128).map(|g| data[..=g].iter().sum()).collect();
    let blocks: Vec<i64> = (0..128)
        .map(|g| {
            (g / 64..n)
                .step_by(2)
                .fold(0, |s, b| wrap(s + data[b] * (g % 64) as i64))
        })
        .collect();
    // 700 elements over 128 work-items: the first lanes run 6 iterations; 64 per workgroup
    // for the tile: 11; the triangle's last lane 128 (clang counts g + 1 down to 0); each of
    // the two workgroups 350; the cap 16.
    let capped: Vec<i64> = (0..128)
        .map(|g| {
            (0..data[g].clamp(0, 16) as usize).fold(0, |s, k| wrap(s + data[k] * (k + g) as i64))
        })
        .collect();
    let capped_k: Vec<i64> = (0..128)
        .map(|g| (0..data[g].clamp(0, 16) as usize).fold(0, |s, k| wrap(s + data[k] * k as i64)))
        .collect();
    for (entry, expect, trips) in [
        ("sum", &sum, "6"),
        ("wide", &sum, "6"),
        ("down", &down, "6"),
        ("find", &find, "6"),
        ("tile", &tile, "11"),
        ("tri", &tri, "128"),
        ("blocks", &blocks, "350"),
        ("capped", &capped, "16"),
        ("capped_k", &capped_k, "16"),
    ] {
        for opt in ["-O1", "-O2", "-O3"] {
            let m = manifest(entry, opt);
            let out = pws_ok(&["wcet", &m, "--mode", "nosplit"]);
            // The cap bounds its loop whatever the launch; clang counts k in an SGPR where
            // nothing else uses it per lane.
            let (launch, counter) = match entry {
                "capped" => ("", "each lane's v"),
                "capped_k" => ("", "s"),
                _ => (" for this launch", "each lane's v"),
            };
            assert!(
                out.contains(&format!("loop bound {trips} inferred{launch}: {counter}"))
                    && out.contains("(the most trips of any lane)"),
                "{entry} {opt}: {out}"
            );
            let report = json(&["golden", &m, "--json"]);
            assert_eq!(&buffer(&report, "out"), expect, "{entry} {opt}");
            // The RTL within the bound, its memory equal to the golden model's.
            if opt == "-O2" {
                bounded_in_no_split(&m);
            }
        }
    }
}

/// The two sides of the `if`/`else` the PWS kernels below split: long enough that clang keeps
/// EXEC masking instead of selects, and the split pays.
const ODD_SIDE: &str =
    "v = v * 3 + 1; v = v * 5 - 2; v ^= v >> 3; v += 11; v = v * 7 + 3; v ^= v << 2;";
const EVEN_SIDE: &str =
    "v = v / 2; v = v * 9 - 4; v ^= v >> 5; v -= 13; v = v * 11 + 1; v ^= v << 1;";

/// [`ODD_SIDE`] (`odd`) or [`EVEN_SIDE`] on `v`, as OpenCL C computes them.
fn odd_or_even_side(mut v: i32, odd: bool) -> i32 {
    if odd {
        v = v
            .wrapping_mul(3)
            .wrapping_add(1)
            .wrapping_mul(5)
            .wrapping_sub(2);
        v ^= v >> 3;
        v = v.wrapping_add(11).wrapping_mul(7).wrapping_add(3);
        v ^ (v << 2)
    } else {
        v = (v / 2).wrapping_mul(9).wrapping_sub(4);
        v ^= v >> 5;
        v = v.wrapping_sub(13).wrapping_mul(11).wrapping_add(1);
        v ^ (v << 1)
    }
}

/// Grid-stride loops as PWS kernels have them: around an `if`/`else` (clang steps the counter
/// after the join restores EXEC), and after a split `if`/`else` (the kernel has a `split` and
/// a `merge`, which keep EXEC within the dispatcher's lanes). Both are bounded without
/// `PWS_LOOP_BOUND` in every mode, and the split one overlaps its two sides: clang schedules a
/// kernel argument's load inside the else's EXEC flip, and the split pass puts the else's skip
/// branch back there too (`host::extract::skips`).
#[test]
fn grid_stride_loops_around_and_after_a_split_if_else() {
    let kernels = format!(
        "\
    int mix(int v) {{\n\
      if (v & 1) {{ {ODD_SIDE} }} else {{ {EVEN_SIDE} }}\n\
      return v;\n\
    }}\n\
    __kernel void around(__global const int *in, __global int *out, int n) {{\n\
      for (int i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = mix(in[i]);\n\
    }}\n\
    __kernel void after(__global const int *in, __global int *out, int n) {{\n\
      int g = get_global_id(0), v = in[g];\n\
      PWS_SPLIT();\n\
      if (v & 1) {{ {ODD_SIDE} }} else {{ {EVEN_SIDE} }}\n\
      for (int i = g; i < n; i += get_global_size(0)) out[i] = v + i;\n\
    }}\n"
    );
    let n = 700usize;
    let data: Vec<i64> = (0..n as i64).map(|v| (v * 7919 % 2003) - 1000).collect();
    let mix = |v: i64| i64::from(odd_or_even_side(v as i32, v & 1 != 0));
    let around: Vec<i64> = data.iter().map(|&v| mix(v)).collect();
    let after: Vec<i64> = (0..n)
        .map(|i| i64::from((mix(data[i % 128]) + i as i64) as i32))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), kernels).unwrap();
    for (entry, expect) in [("around", &around), ("after", &after)] {
        let m = dir.path().join(format!("{entry}.toml"));
        std::fs::write(
            &m,
            format!(
                "kernel = \"k.cl\"\nentry = \"{entry}\"\ngrid = 128\nworkgroup = 64\n\
                 args = [\"in\", \"out\", {n}]\n\
                 [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\
                 [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {n}\n",
                data.iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .unwrap();
        let m = m.to_str().unwrap();
        let out = pws_ok(&["wcet", m, "--mode", "pws", "--S", "1"]);
        assert!(
            out.contains("loop bound 6 inferred for this launch: each lane's v"),
            "{entry}: {out}"
        );
        let cycles = bounded_in(m, "nosplit,dws,pws");
        let report = json(&["golden", m, "--mode", "pws", "--S", "1", "--json"]);
        assert_eq!(&buffer(&report, "out"), expect, "{entry}");
        if entry == "after" {
            // The two sides run side by side: PWS takes fewer cycles than no splitting.
            assert!(cycles["pws"] < cycles["nosplit"], "{cycles:?}");
        }
    }
}

/// A 2-D grid-stride loop: rows in the outer loop, columns in the inner one, each counting in
/// its lanes' own VGPR. The inner loop only narrows EXEC, so the outer one's lanes are those
/// that started its iteration, and both are bounded by their slowest lane.
#[test]
fn two_dimensional_grid_stride_loops_need_no_annotation() {
    let kernel = "\
    __kernel void k(__global const int *in, __global int *out, int W, int H) {\n\
      for (int y = get_global_id(1); y < H; y += get_global_size(1))\n\
        for (int x = get_global_id(0); x < W; x += get_global_size(0))\n\
          out[y * W + x] = in[y * W + x] * 2 + y;\n\
    }\n";
    let (w, h) = (40usize, 30usize);
    let data: Vec<i64> = (0..(w * h) as i64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..w * h).map(|i| data[i] * 2 + (i / w) as i64).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
    let m = dir.path().join("k.toml");
    std::fs::write(
        &m,
        format!(
            "kernel = \"k.cl\"\ngrid = [16, 8]\nworkgroup = [8, 8]\nargs = [\"in\", \"out\", {w}, {h}]\n\
             [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\
             [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {}\n",
            data.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
            w * h
        ),
    )
    .unwrap();
    let m = m.to_str().unwrap();
    let out = pws_ok(&["wcet", m, "--mode", "nosplit"]);
    // 30 rows over 8 work-items, 40 columns over 16.
    for note in [
        "loop bound 4 inferred for this launch: each lane's v",
        "loop bound 3 inferred for this launch: each lane's v",
    ] {
        assert!(out.contains(note), "{note}: {out}");
    }
    let report = json(&["golden", m, "--json"]);
    assert_eq!(buffer(&report, "out"), expect);
    bounded_in_no_split(m);
}

/// A split `if`/`else` in a uniform loop: at -O3 LLVM copies the else's EXEC flip into the
/// end of the then-side (tail duplication), so the `if` has no single join; the split pass
/// branches to the flip instead of running the copy (`host::extract::skips`), and PWS splits
/// there as at -O2, faster than no splitting, within its bound, computing what the C says.
#[test]
fn a_split_in_a_loop_splits_at_every_optimisation_level() {
    let kernel = format!(
        "\
    __kernel void k(__global const int *in, __global int *out, int iters) {{\n\
      int g = get_global_id(0), v = in[g];\n\
      for (int t = 0; t < iters; t++) {{\n\
        PWS_SPLIT();\n\
        if ((v + t) & 1) {{ {ODD_SIDE} }} else {{ {EVEN_SIDE} }}\n\
      }}\n\
      out[g] = v;\n\
    }}\n"
    );
    let data: Vec<i64> = (0..128).map(|v| (v * 7919 % 2003) - 1000).collect();
    let expect: Vec<i64> = data
        .iter()
        .map(|&v| {
            let v = (0..5).fold(v as i32, |v, t| {
                odd_or_even_side(v, v.wrapping_add(t) & 1 != 0)
            });
            i64::from(v)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cl"), kernel).unwrap();
    for opt in ["-O2", "-O3"] {
        let m = grid_of_128(
            dir.path(),
            &format!("k{opt}"),
            &format!("cflags = [\"{opt}\"]\nworkgroup = 64\nargs = [\"in\", \"out\", 5]"),
            &data,
        );
        let cycles = bounded_in(&m, "nosplit,pws");
        assert!(cycles["pws"] < cycles["nosplit"], "{opt}: {cycles:?}");
        let report = json(&["golden", &m, "--mode", "pws", "--S", "1", "--json"]);
        assert_eq!(buffer(&report, "out"), expect, "{opt}");
    }
}

/// clang-14 -O2 rotates a loop whose body starts with a divergent inner loop (after
/// unswitching its loop-invariant `break`) and keeps the guard before it, which skips into the
/// loop past its header: the flow was "irreducible" and every command refused the kernel.
/// pws takes that branch out (`host::reducible`, with a warning), and the kernel computes what
/// the C says on the golden model and the RTL, within its bound.
#[test]
fn a_skip_branch_into_a_rotated_loop_is_taken_out() {
    let kernel = "__kernel void k(__global const int *in, __global int *out) {\n\
      int i = get_global_id(0);\n\
      int a = in[i], c = i, s = 0;\n\
      for (int t = 0; t < 13; t++) {\n\
        if (a > 50) break;\n\
        for (int j = 0; j < (a & 7); j++) { PWS_LOOP_BOUND(7); s = s * 3 + j; }\n\
        for (int j = 0; j < (c & 7); j++) { PWS_LOOP_BOUND(7); s ^= in[(i + j) & 63]; }\n\
        s += t;\n\
      }\n\
      out[i] = s;\n\
    }\n";
    let data: Vec<i32> = (0..64).map(|v| v * 37 % 101).collect();
    let expect: Vec<i64> = (0..64)
        .map(|i| {
            let (a, c) = (data[i], i as i32);
            let mut s = 0i32;
            for t in 0..13 {
                if a > 50 {
                    break;
                }
                for j in 0..(a & 7) {
                    s = s.wrapping_mul(3).wrapping_add(j);
                }
                for j in 0..(c & 7) {
                    s ^= data[(i + j as usize) & 63];
                }
                s = s.wrapping_add(t);
            }
            i64::from(s)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let m = launch(dir.path(), kernel, "");
    let out = command().args(["run", &m]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("took out this s_cbranch_execz: it skips into a loop past its header"),
        "clang-14 no longer skips into the loop here: {err}"
    );
    bounded_in_no_split(&m);
    golden_and_rtl_compute(&m, &[], &expect);
}

/// `m` in no-split with every compaction: a bound, not below the RTL's cycles, and memory
/// equal to the golden model's.
/// `dir/name.toml`: a launch of `k.cl` (in `dir`) on a grid of 128 with `keys` (the entry,
/// workgroup, arguments, flags), an `i32` buffer `in` holding `data` and an `i32` buffer `out`
/// of 128.
fn grid_of_128(dir: &std::path::Path, name: &str, keys: &str, data: &[i64]) -> String {
    let m = format!(
        "kernel = \"k.cl\"\ngrid = 128\n{keys}\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = 128\n",
        data.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, m).unwrap();
    path.to_str().unwrap().to_string()
}

fn bounded_in_no_split(m: &str) {
    bounded_in(m, "nosplit");
}

/// Runs `m` on the RTL in `modes` (at S = 1): every run within its bound and equal to the
/// golden model. The cycles by mode.
fn bounded_in(m: &str, modes: &str) -> std::collections::HashMap<String, u64> {
    let rows = json(&["compare", m, "--mode", modes, "--S", "1", "--json"]);
    let mut cycles = std::collections::HashMap::new();
    for row in rows.as_array().unwrap() {
        let c = row["cycles"].as_u64().unwrap();
        let bound = row["bound"]
            .as_u64()
            .unwrap_or_else(|| panic!("{m}: no bound: {row}"));
        assert!(c <= bound, "{m}: {row}");
        assert_eq!(row["golden_equal"], true, "{m}: {row}");
        cycles.insert(row["mode"].as_str().unwrap().to_string(), c);
    }
    cycles
}
