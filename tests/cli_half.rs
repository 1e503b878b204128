//! Half-precision storage (`vload_half*`, `vstore_half*` in every rounding mode) as users
//! write it: OpenCL C compiled by clang-14 with pws.h, run on the golden model over every half
//! and a sweep of floats, and on the RTL over a sample. The reference is computed here,
//! independently of pws.h's bit code: a half's value in f64, and the rounding of a float by
//! searching the sorted finite halves.

mod common;

use common::{buffer, json};

/// A launch of `k.cl` on `grid` work-items with `u32` buffers: (name, words or a length).
fn launch(
    dir: &std::path::Path,
    kernel: &str,
    grid: usize,
    buffers: &[(&str, Result<Vec<u32>, usize>)],
) -> String {
    std::fs::write(dir.join("k.cl"), kernel).unwrap();
    let mut m = format!(
        "kernel = \"k.cl\"\ngrid = {grid}\nworkgroup = 64\nargs = [{}]\n",
        buffers
            .iter()
            .map(|(n, _)| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (name, content) in buffers {
        m.push_str(&format!(
            "\n[[buffer]]\nname = \"{name}\"\ntype = \"u32\"\n"
        ));
        match content {
            Ok(words) => m.push_str(&format!(
                "data = [{}]\n",
                words
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Err(len) => m.push_str(&format!("len = {len}\n")),
        }
    }
    let path = dir.join("k.toml");
    std::fs::write(&path, m).unwrap();
    path.to_str().unwrap().to_string()
}

fn words(report: &serde_json::Value, name: &str) -> Vec<u32> {
    buffer(report, name).into_iter().map(|v| v as u32).collect()
}

/// Two halves per word, the even one in the low bits (little-endian memory).
fn pack(halves: &[u16]) -> Vec<u32> {
    halves
        .chunks(2)
        .map(|c| u32::from(c[0]) | u32::from(*c.get(1).unwrap_or(&0)) << 16)
        .collect()
}

fn unpack(words: &[u32]) -> Vec<u16> {
    words
        .iter()
        .flat_map(|w| [*w as u16, (w >> 16) as u16])
        .collect()
}

/// The value of a half, exactly, in f64.
fn half_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from(h >> 10 & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Round {
    Even,
    Zero,
    Up,
    Down,
}

/// The half a float rounds to: the two finite halves around it, chosen by the mode; beyond
/// the largest half (65504) IEEE 754 rounds to infinity exactly where an unbounded exponent
/// would round past it. f32 denormals read as zero, as pws flushes them.
fn round_to_half(x: f32, mode: Round) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00 | (x.to_bits() >> 13 & 0x3ff) as u16;
    }
    let a = f64::from(x.abs());
    if x.is_subnormal() || a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let away_from_zero = |mode| match mode {
        Round::Zero => false,
        Round::Up => sign == 0,
        Round::Down => sign != 0,
        Round::Even => true,
    };
    if a >= 65536.0 {
        // Past the last step of the largest binade only infinity or the largest half remain.
        return sign | if away_from_zero(mode) { 0x7c00 } else { 0x7bff };
    }
    // Magnitudes: 0..=0x7bff are the finite halves in increasing order; 0x7c00 is infinity,
    // reached from 0x7bff by one more step of 32 (the next binade's ulp).
    let value = |h: u16| if h == 0x7c00 { 65536.0 } else { half_value(h) };
    let below = (0..=0x7c00u16).rev().find(|&h| value(h) <= a).unwrap();
    if value(below) == a {
        return sign | below;
    }
    let above = below + 1;
    let away = match mode {
        Round::Even => {
            let mid = (value(below) + value(above)) / 2.0;
            a > mid || (a == mid && below & 1 == 1)
        }
        _ => away_from_zero(mode),
    };
    sign | if away { above } else { below }
}

const LOAD: &str = "__kernel void k(__global const half *in, __global float *out) {\n\
    int i = get_global_id(0);\n\
    out[i] = vload_half(i, in);\n\
}\n";

const STORE: &str = "__kernel void k(__global const float *in, __global half *out) {\n\
    int i = get_global_id(0);\n\
    int n = get_global_size(0);\n\
    vstore_half(in[i], i, out);\n\
    vstore_half_rtz(in[i], n + i, out);\n\
    vstore_half_rtp(in[i], 2 * n + i, out);\n\
    vstore_half_rtn(in[i], 3 * n + i, out);\n\
}\n";

fn check_loads(halves: &[u16], got: &[u32], engine: &str) {
    for (h, w) in halves.iter().zip(got) {
        let want = half_value(*h);
        let got = f32::from_bits(*w);
        if want.is_nan() {
            assert!(got.is_nan(), "{engine}: half {h:#06x} -> {got}");
            assert_eq!(
                got.to_bits() >> 13 & 0x3ff,
                u32::from(h & 0x3ff),
                "{engine}: payload of {h:#06x}"
            );
        } else {
            assert_eq!(f64::from(got), want, "{engine}: half {h:#06x}");
            assert_eq!(
                got.is_sign_negative(),
                h & 0x8000 != 0,
                "{engine}: sign of {h:#06x}"
            );
        }
    }
}

fn check_stores(floats: &[f32], got: &[u16], engine: &str) {
    let n = floats.len();
    for (k, mode) in [Round::Even, Round::Zero, Round::Up, Round::Down]
        .into_iter()
        .enumerate()
    {
        for (i, x) in floats.iter().enumerate() {
            let want = round_to_half(*x, mode);
            let have = got[k * n + i];
            assert_eq!(
                have,
                want,
                "{engine}: {x:e} ({:#010x}) rounded {mode:?}: {have:#06x}, expected {want:#06x}",
                x.to_bits()
            );
        }
    }
}

/// Floats around every kind of boundary: zeros, f32 denormals, the half denormal range and
/// its ties, ties between normal halves, the largest half and the overflow threshold,
/// infinities and NaNs, and a spread of random values of both signs.
fn floats() -> Vec<f32> {
    let mut xs = vec![
        0.0f32,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        2f32.powi(-25),
        2f32.powi(-25) * 1.000_001,
        2f32.powi(-24),
        2f32.powi(-24) * 1.5,
        2f32.powi(-24) * 2.5,
        2f32.powi(-14),
        2f32.powi(-14) * (1.0 - 2f32.powi(-11)),
        1.0,
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        1.0 + 2f32.powi(-11) + 2f32.powi(-20),
        0.1,
        1.0 / 3.0,
        65504.0,
        65519.0,
        65520.0,
        65535.0,
        65536.0,
        1e10,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7fa0_0001),
    ];
    let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negated);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    while xs.len() < 512 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Exponents from 2^-30 to 2^18: the half range and both edges.
        let bits = (state as u32 & 0x807f_ffff) | (97 + (state >> 40) as u32 % 48) << 23;
        xs.push(f32::from_bits(bits));
    }
    xs
}

/// Every half, widened on the golden model; 64 of them on the RTL.
#[test]
fn vload_half_widens_every_half_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let halves: Vec<u16> = (0..=u16::MAX).collect();
    let m = launch(
        dir.path(),
        LOAD,
        halves.len(),
        &[("in", Ok(pack(&halves))), ("out", Err(halves.len()))],
    );
    check_loads(
        &halves,
        &words(&json(&["golden", &m, "--json"]), "out"),
        "golden",
    );

    let sample: Vec<u16> = [
        0u16, 1, 0x3ff, 0x400, 0x3c00, 0x7bff, 0x7c00, 0x7e01, 0x8001, 0xfc00,
    ]
    .into_iter()
    .chain((0..54u16).map(|k| k.wrapping_mul(0x4f1b) ^ 0x1234))
    .collect();
    let m = launch(
        dir.path(),
        LOAD,
        64,
        &[("in", Ok(pack(&sample))), ("out", Err(64))],
    );
    check_loads(
        &sample,
        &words(&json(&["run", &m, "--mode", "nosplit", "--json"]), "out"),
        "RTL",
    );
}

/// vstore_half in its four rounding modes, on the golden model over the sweep and on the RTL
/// over its first 64 floats.
#[test]
fn vstore_half_rounds_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    let xs = floats();
    let bits: Vec<u32> = xs.iter().map(|x| x.to_bits()).collect();
    let m = launch(
        dir.path(),
        STORE,
        xs.len(),
        &[("in", Ok(bits.clone())), ("out", Err(2 * xs.len()))],
    );
    check_stores(
        &xs,
        &unpack(&words(&json(&["golden", &m, "--json"]), "out")),
        "golden",
    );

    let m = launch(
        dir.path(),
        STORE,
        64,
        &[("in", Ok(bits[..64].to_vec())), ("out", Err(128))],
    );
    let rtl = unpack(&words(
        &json(&["run", &m, "--mode", "nosplit", "--json"]),
        "out",
    ));
    check_stores(&xs[..64], &rtl, "RTL");
}

/// The vector and aligned forms move the same halves: vload_half4 / vstore_half4 and
/// vloada_half3 / vstorea_half3_rtz (which stride by four halves).
#[test]
fn vector_and_aligned_forms() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "__kernel void k(__global const half *in, __global half *out) {\n\
        int i = get_global_id(0);\n\
        vstore_half4(vload_half4(i, in) * 2.0f, i, out);\n\
        vstorea_half3_rtz(vloada_half3(i, in) + 1.0f, i, out + 256);\n\
    }\n";
    let halves: Vec<u16> = (0..256u16).map(|k| 0x3000 + k * 37).collect();
    let m = launch(
        dir.path(),
        kernel,
        64,
        &[("in", Ok(pack(&halves))), ("out", Err(256))],
    );
    for engine in ["golden", "run"] {
        let out = unpack(&words(&json(&[engine, &m, "--json"]), "out"));
        for i in 0..256 {
            let want = round_to_half((half_value(halves[i]) * 2.0) as f32, Round::Even);
            assert_eq!(out[i], want, "{engine}: vstore_half4 element {i}");
        }
        for i in 0..64 {
            for c in 0..4 {
                let k = 256 + 4 * i + c;
                let want = if c < 3 {
                    round_to_half((half_value(halves[4 * i + c]) as f32) + 1.0, Round::Zero)
                } else {
                    0
                };
                assert_eq!(out[k], want, "{engine}: vstorea_half3_rtz at {k}");
            }
        }
    }
}
