//! pws.h's math library (pow, exp, atan2, erf, fmod, ... : what no GCN3 instruction computes)
//! compiled by clang-14 and run on the golden model: every function's error in ulps against the
//! exact result (glibc's and Rust's double functions) on inputs over its whole domain, within the
//! bound docs/opencl.md gives (and OpenCL's); its special values against C99 Annex F and the
//! OpenCL spec, bit for bit; and a launch of the heaviest on the RTL, equal to the golden model,
//! under its WCET bound (fmod's loop carries a bound).

mod common;

use common::{buffer, json};

extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
    #[link_name = "remainder"]
    fn c_remainder(x: f64, y: f64) -> f64;
    #[link_name = "tgamma"]
    fn c_tgamma(x: f64) -> f64;
    #[link_name = "lgamma"]
    fn c_lgamma(x: f64) -> f64;
}

/// A deterministic stream of inputs (xorshift64*), so a failure names inputs that recur.
struct Inputs(u64);

impl Inputs {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `n` floats log-uniform in [lo, hi], each negated with probability `negative`.
    fn magnitudes(&mut self, n: usize, lo: f64, hi: f64, negative: f64) -> Vec<f32> {
        (0..n)
            .map(|_| {
                let v = (lo.ln() + self.next() * (hi.ln() - lo.ln())).exp() as f32;
                if self.next() < negative {
                    -v
                } else {
                    v
                }
            })
            .collect()
    }
}

/// How far `got` lies from the exact `want`, in units of the last place of `want` as an f32.
/// An exact value beyond the largest float must give the infinity, and one below the normal
/// floats may give zero (pws flushes f32 denormals, docs/float.md).
fn ulps(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let a = want.abs();
    if a >= 2f64.powi(128) * (1.0 - 2f64.powi(-25)) {
        let inf = if want > 0.0 {
            f32::INFINITY
        } else {
            f32::NEG_INFINITY
        };
        return if got == inf { 0.0 } else { f64::INFINITY };
    }
    if !got.is_finite() {
        return f64::INFINITY;
    }
    if a < f64::from(f32::MIN_POSITIVE) {
        return if got.abs() <= f32::MIN_POSITIVE {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let e = (a.to_bits() >> 52) as i32 - 1023;
    (f64::from(got) - want).abs() / 2f64.powi(e - 23)
}

/// Runs `body` (OpenCL C setting `uint o` from `float x`, `float y` and `int n`, the bits of
/// the two inputs) over the inputs on the golden model, returning `o` per input.
fn golden(dir: &std::path::Path, body: &str, x: &[u32], y: &[u32]) -> Vec<u32> {
    let n = x.len().div_ceil(64) * 64;
    let pad = |v: &[u32]| {
        let mut v = v.to_vec();
        v.resize(n, 0);
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    };
    std::fs::write(
        dir.join("k.cl"),
        format!(
            "__kernel void k(__global const uint *X, __global const uint *Y, __global uint *out) {{\n\
               int i = get_global_id(0);\n\
               float x = as_float(X[i]), y = as_float(Y[i]);\n\
               int n = as_int(Y[i]);\n\
               uint o;\n\
               {body}\n\
               out[i] = o;\n\
             }}\n"
        ),
    )
    .unwrap();
    let m = dir.join("k.toml");
    std::fs::write(
        &m,
        format!(
            "kernel = \"k.cl\"\ngrid = {n}\nworkgroup = 64\nargs = [\"X\", \"Y\", \"out\"]\n\
             [[buffer]]\nname = \"X\"\ntype = \"u32\"\ndata = [{}]\n\
             [[buffer]]\nname = \"Y\"\ntype = \"u32\"\ndata = [{}]\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = {n}\n",
            pad(x),
            pad(y)
        ),
    )
    .unwrap();
    let report = json(&["golden", m.to_str().unwrap(), "--json"]);
    buffer(&report, "out")[..x.len()]
        .iter()
        .map(|&v| v as u32)
        .collect()
}

/// One function under test: its call, its inputs, the exact result and the bound in ulps.
struct Function {
    call: &'static str,
    x: fn(&mut Inputs) -> Vec<f32>,
    y: fn(&mut Inputs) -> Vec<f32>,
    exact: fn(f64, f64) -> f64,
    bound: f64,
}

const N: usize = 4096;

/// sin(pi x), exactly zero at the integers: x reduced by its nearest even integer and then
/// into [0, 1/2] (both exact for an f32 in an f64), so that pi times it rounds only once.
fn sin_pi(x: f64) -> f64 {
    let r = x - 2.0 * (x / 2.0).round();
    let a = r.abs().min(1.0 - r.abs());
    (std::f64::consts::PI * a).sin().copysign(r)
}

/// cos(pi x), exactly zero at the half-integers, by the same reduction.
fn cos_pi(x: f64) -> f64 {
    let a = (x - 2.0 * (x / 2.0).round()).abs();
    if a == 0.5 {
        0.0
    } else if a > 0.5 {
        -(std::f64::consts::PI * (1.0 - a)).cos()
    } else {
        (std::f64::consts::PI * a).cos()
    }
}

fn none(_: &mut Inputs) -> Vec<f32> {
    vec![0.0; N]
}

fn functions() -> Vec<Function> {
    fn f(
        call: &'static str,
        x: fn(&mut Inputs) -> Vec<f32>,
        y: fn(&mut Inputs) -> Vec<f32>,
        exact: fn(f64, f64) -> f64,
        bound: f64,
    ) -> Function {
        Function {
            call,
            x,
            y,
            exact,
            bound,
        }
    }
    vec![
        f(
            "exp(x)",
            |r| r.magnitudes(N, 1e-8, 110.0, 0.5),
            none,
            |x, _| x.exp(),
            1.0,
        ),
        f(
            "exp10(x)",
            |r| r.magnitudes(N, 1e-8, 46.0, 0.5),
            none,
            |x, _| 10f64.powf(x),
            1.0,
        ),
        f(
            "expm1(x)",
            |r| r.magnitudes(N, 1e-8, 90.0, 0.5),
            none,
            |x, _| x.exp_m1(),
            1.5,
        ),
        f(
            "log1p(x)",
            |r| {
                let mut v = r.magnitudes(N / 2, 1e-8, 1e38, 0.0);
                v.extend(r.magnitudes(N / 2, 1e-8, 0.999_999, 1.0));
                v
            },
            none,
            |x, _| x.ln_1p(),
            1.0,
        ),
        f(
            "cbrt(x)",
            |r| r.magnitudes(N, 1e-37, 3e38, 0.5),
            none,
            |x, _| x.cbrt(),
            1.0,
        ),
        f(
            "sinh(x)",
            |r| r.magnitudes(N, 1e-8, 90.0, 0.5),
            none,
            |x, _| x.sinh(),
            2.5,
        ),
        f(
            "cosh(x)",
            |r| r.magnitudes(N, 1e-8, 90.0, 0.5),
            none,
            |x, _| x.cosh(),
            2.5,
        ),
        f(
            "tanh(x)",
            |r| r.magnitudes(N, 1e-8, 12.0, 0.5),
            none,
            |x, _| x.tanh(),
            2.0,
        ),
        f(
            "asinh(x)",
            |r| r.magnitudes(N, 1e-8, 1e38, 0.5),
            none,
            |x, _| x.asinh(),
            1.5,
        ),
        f(
            "acosh(x)",
            |r| {
                r.magnitudes(N, 1e-7, 1e38, 0.0)
                    .into_iter()
                    .map(|v| 1.0 + v)
                    .collect()
            },
            none,
            |x, _| x.acosh(),
            2.5,
        ),
        f(
            "atanh(x)",
            |r| r.magnitudes(N, 1e-8, 0.999_999, 0.5),
            none,
            |x, _| x.atanh(),
            2.0,
        ),
        f(
            "asin(x)",
            |r| r.magnitudes(N, 1e-8, 1.0, 0.5),
            none,
            |x, _| x.asin(),
            2.0,
        ),
        f(
            "acos(x)",
            |r| r.magnitudes(N, 1e-8, 1.0, 0.5),
            none,
            |x, _| x.acos(),
            1.5,
        ),
        f(
            "atan(x)",
            |r| r.magnitudes(N, 1e-8, 1e30, 0.5),
            none,
            |x, _| x.atan(),
            2.0,
        ),
        f(
            "atan2(x, y)",
            |r| r.magnitudes(N, 1e-30, 1e30, 0.5),
            |r| r.magnitudes(N, 1e-30, 1e30, 0.5),
            f64::atan2,
            1.5,
        ),
        f(
            "asinpi(x)",
            |r| r.magnitudes(N, 1e-8, 1.0, 0.5),
            none,
            |x, _| x.asin() / std::f64::consts::PI,
            2.5,
        ),
        f(
            "acospi(x)",
            |r| r.magnitudes(N, 1e-8, 1.0, 0.5),
            none,
            |x, _| x.acos() / std::f64::consts::PI,
            3.0,
        ),
        f(
            "atanpi(x)",
            |r| r.magnitudes(N, 1e-8, 1e30, 0.5),
            none,
            |x, _| x.atan() / std::f64::consts::PI,
            2.5,
        ),
        f(
            "atan2pi(x, y)",
            |r| r.magnitudes(N, 1e-30, 1e30, 0.5),
            |r| r.magnitudes(N, 1e-30, 1e30, 0.5),
            |x, y| x.atan2(y) / std::f64::consts::PI,
            2.5,
        ),
        f(
            "sinpi(x)",
            |r| r.magnitudes(N, 1e-8, 1e8, 0.5),
            none,
            |x, _| sin_pi(x),
            1.5,
        ),
        f(
            "cospi(x)",
            |r| r.magnitudes(N, 1e-8, 1e8, 0.5),
            none,
            |x, _| cos_pi(x),
            1.5,
        ),
        f(
            "tanpi(x)",
            |r| r.magnitudes(N, 1e-8, 1e8, 0.5),
            none,
            |x, _| sin_pi(x) / cos_pi(x),
            2.0,
        ),
        f(
            "erf(x)",
            |r| r.magnitudes(N, 1e-8, 5.0, 0.5),
            none,
            |x, _| unsafe { c_erf(x) },
            1.5,
        ),
        f(
            "erfc(x)",
            |r| r.magnitudes(N, 1e-8, 10.5, 0.5),
            none,
            |x, _| unsafe { c_erfc(x) },
            3.0,
        ),
        f(
            "tgamma(x)",
            |r| r.magnitudes(N, 1e-30, 36.0, 0.5),
            none,
            |x, _| unsafe { c_tgamma(x) },
            2.0,
        ),
        f(
            "tgamma(x)",
            |r| (0..N).map(|_| (0.5 + 7.5 * r.next()) as f32).collect(),
            none,
            |x, _| unsafe { c_tgamma(x) },
            2.0,
        ),
        f(
            "lgamma(x)",
            |r| r.magnitudes(N, 1e-37, 3e38, 0.0),
            none,
            |x, _| unsafe { c_lgamma(x) },
            3.0,
        ),
        f(
            "lgamma(x)",
            |r| (0..N).map(|_| (0.5 + 2.5 * r.next()) as f32).collect(),
            none,
            |x, _| unsafe { c_lgamma(x) },
            3.0,
        ),
        f(
            "pow(x, y)",
            |r| r.magnitudes(N, 1e-6, 1e6, 0.0),
            |r| r.magnitudes(N, 1e-3, 6.0, 0.5),
            f64::powf,
            1.0,
        ),
        f(
            "pow(x, y)",
            |r| (0..N).map(|_| (0.9 + 0.2 * r.next()) as f32).collect(),
            |r| r.magnitudes(N, 1.0, 1000.0, 0.5),
            f64::powf,
            1.0,
        ),
        f(
            "powr(x, y)",
            |r| r.magnitudes(N, 1e-30, 1e30, 0.0),
            |r| r.magnitudes(N, 1e-3, 4.0, 0.5),
            f64::powf,
            1.0,
        ),
        f(
            "fmod(x, y)",
            |r| r.magnitudes(N, 1e-37, 3e38, 0.5),
            |r| r.magnitudes(N, 1e-37, 3e38, 0.5),
            |x, y| x % y,
            0.0,
        ),
        f(
            "remainder(x, y)",
            |r| r.magnitudes(N, 1e-37, 3e38, 0.5),
            |r| r.magnitudes(N, 1e-37, 3e38, 0.5),
            |x, y| unsafe { c_remainder(x, y) },
            0.0,
        ),
    ]
}

#[test]
fn every_function_is_within_its_bound_of_the_exact_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Inputs(0x9e37_79b9_7f4a_7c15);
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for f in functions() {
        let (x, y) = ((f.x)(&mut rng), (f.y)(&mut rng));
        let bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let body = format!("o = as_uint({});", f.call);
        let got = golden(dir.path(), &body, &bits(&x), &bits(&y));
        let mut worst = (0.0, 0.0f32, 0.0f32, 0.0f32, 0.0);
        for ((&x, &y), &g) in x.iter().zip(&y).zip(&got) {
            let want = (f.exact)(f64::from(x), f64::from(y));
            let e = ulps(f32::from_bits(g), want);
            if e > worst.0 {
                worst = (e, x, y, f32::from_bits(g), want);
            }
        }
        report.push(format!("{:16} {:.3} ulp", f.call, worst.0));
        if worst.0 > f.bound {
            failures.push(format!(
                "{}: {:.3} ulp > {} at x = {:e}, y = {:e}: {:e}, exactly {:e}",
                f.call, worst.0, f.bound, worst.1, worst.2, worst.3, worst.4
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// pown and rootn, whose second operand is an int: x^n for |n| up to 100 and 2^31 - 1, and
/// x^(1/n), against the double results.
#[test]
fn integer_powers_and_roots_are_within_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Inputs(0x5eed);
    let mut x = rng.magnitudes(N, 0.5, 2.0, 0.5);
    let mut n: Vec<i32> = (0..N).map(|_| (rng.next() * 201.0) as i32 - 100).collect();
    x.extend([1.0 + f32::EPSILON, 1.0 - f32::EPSILON / 2.0]);
    n.extend([i32::MAX, i32::MAX]);
    let bits: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    let nbits: Vec<u32> = n.iter().map(|&v| v as u32).collect();
    let got = golden(dir.path(), "o = as_uint(pown(x, n));", &bits, &nbits);
    for k in 0..x.len() {
        let want = f64::from(x[k]).powf(f64::from(n[k]));
        let e = ulps(f32::from_bits(got[k]), want);
        assert!(e <= 1.5, "pown({:e}, {}): {e:.3} ulp", x[k], n[k]);
    }

    let x = rng.magnitudes(N, 1e-37, 3e38, 0.5);
    let n: Vec<i32> = (0..N)
        .map(|_| ((rng.next() * 40.0) as i32 - 20) | 1)
        .collect();
    let bits: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    let nbits: Vec<u32> = n.iter().map(|&v| v as u32).collect();
    let got = golden(dir.path(), "o = as_uint(rootn(x, n));", &bits, &nbits);
    for k in 0..x.len() {
        let a = f64::from(x[k]).abs().powf(1.0 / f64::from(n[k]));
        let want = if x[k] < 0.0 { -a } else { a };
        let e = ulps(f32::from_bits(got[k]), want);
        assert!(e <= 1.0, "rootn({:e}, {}): {e:.3} ulp", x[k], n[k]);
    }
}

/// A NaN's expected bits: any NaN matches.
const NAN: u32 = 0x7fc0_0000;

fn fl(v: f32) -> u32 {
    v.to_bits()
}

/// The special values of C99 Annex F (F.9) and of the OpenCL spec (7.5, "Edge Case
/// Behavior"): `(call, x, y or n as bits, the result's bits)`.
fn special_values() -> Vec<(&'static str, f32, u32, u32)> {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let (pi, pi2, pi4) = (
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::FRAC_PI_4,
    );
    let n = |v: i32| v as u32;
    let y = fl;
    let mut v = vec![
        ("pow(x, y)", nan, y(0.0), fl(1.0)),
        ("pow(x, y)", 3.0, y(-0.0), fl(1.0)),
        ("pow(x, y)", 1.0, y(nan), fl(1.0)),
        ("pow(x, y)", nan, y(1.0), NAN),
        ("pow(x, y)", 2.0, y(nan), NAN),
        ("pow(x, y)", -0.0, y(-3.0), fl(-inf)),
        ("pow(x, y)", 0.0, y(-3.0), fl(inf)),
        ("pow(x, y)", -0.0, y(-2.0), fl(inf)),
        ("pow(x, y)", -0.0, y(-0.5), fl(inf)),
        ("pow(x, y)", -0.0, y(3.0), fl(-0.0)),
        ("pow(x, y)", -0.0, y(2.0), fl(0.0)),
        ("pow(x, y)", -0.0, y(inf), fl(0.0)),
        ("pow(x, y)", -1.0, y(inf), fl(1.0)),
        ("pow(x, y)", -1.0, y(-inf), fl(1.0)),
        ("pow(x, y)", 0.5, y(-inf), fl(inf)),
        ("pow(x, y)", -2.0, y(-inf), fl(0.0)),
        ("pow(x, y)", -0.5, y(inf), fl(0.0)),
        ("pow(x, y)", 2.0, y(inf), fl(inf)),
        ("pow(x, y)", -inf, y(-3.0), fl(-0.0)),
        ("pow(x, y)", -inf, y(-2.5), fl(0.0)),
        ("pow(x, y)", -inf, y(3.0), fl(-inf)),
        ("pow(x, y)", -inf, y(2.0), fl(inf)),
        ("pow(x, y)", inf, y(-1.0), fl(0.0)),
        ("pow(x, y)", inf, y(0.5), fl(inf)),
        ("pow(x, y)", -2.0, y(0.5), NAN),
        ("pow(x, y)", -2.0, y(3.0), fl(-8.0)),
        ("pow(x, y)", -2.0, y(2.0), fl(4.0)),
        ("pow(x, y)", -1.0, y(16777216.0), fl(1.0)),
        ("pow(x, y)", -1.0, y(16777215.0), fl(-1.0)),
        ("pow(x, y)", 4.0, y(0.5), fl(2.0)),
        ("pow(x, y)", 10.0, y(2.0), fl(100.0)),
        ("pow(x, y)", 2.0, y(-1.0), fl(0.5)),
        ("pow(x, y)", 2.0, y(128.0), fl(inf)),
        ("pow(x, y)", 2.0, y(-126.0), fl(f32::MIN_POSITIVE)),
        ("pow(x, y)", 2.0, y(-150.0), fl(0.0)),
        ("pow(x, y)", 2.0, y(127.0), fl(2f32.powi(127))),
        ("pown(x, n)", nan, n(0), fl(1.0)),
        ("pown(x, n)", -0.0, n(-3), fl(-inf)),
        ("pown(x, n)", 0.0, n(-2), fl(inf)),
        ("pown(x, n)", -0.0, n(3), fl(-0.0)),
        ("pown(x, n)", -0.0, n(2), fl(0.0)),
        ("pown(x, n)", -2.0, n(3), fl(-8.0)),
        ("pown(x, n)", 2.0, n(-2), fl(0.25)),
        ("pown(x, n)", 3.0, n(5), fl(243.0)),
        ("pown(x, n)", -inf, n(3), fl(-inf)),
        ("pown(x, n)", -inf, n(-3), fl(-0.0)),
        ("pown(x, n)", -1.0, n(i32::MAX), fl(-1.0)),
        ("pown(x, n)", -1.0, n(i32::MIN), fl(1.0)),
        ("rootn(x, n)", 8.0, n(3), fl(2.0)),
        ("rootn(x, n)", -8.0, n(3), fl(-2.0)),
        ("rootn(x, n)", 16.0, n(4), fl(2.0)),
        ("rootn(x, n)", -8.0, n(2), NAN),
        ("rootn(x, n)", 8.0, n(0), NAN),
        ("rootn(x, n)", -0.0, n(3), fl(-0.0)),
        ("rootn(x, n)", 0.0, n(-2), fl(inf)),
        ("rootn(x, n)", -0.0, n(-3), fl(-inf)),
        ("rootn(x, n)", -inf, n(3), fl(-inf)),
        ("rootn(x, n)", inf, n(-2), fl(0.0)),
        ("powr(x, y)", -1.0, y(2.0), NAN),
        ("powr(x, y)", 0.0, y(0.0), NAN),
        ("powr(x, y)", inf, y(0.0), NAN),
        ("powr(x, y)", 1.0, y(inf), NAN),
        ("powr(x, y)", nan, y(0.0), NAN),
        ("powr(x, y)", 0.0, y(-1.0), fl(inf)),
        ("powr(x, y)", -0.0, y(-inf), fl(inf)),
        ("powr(x, y)", 0.0, y(1.0), fl(0.0)),
        ("powr(x, y)", 2.0, y(0.0), fl(1.0)),
        ("powr(x, y)", 1.0, y(5.0), fl(1.0)),
        ("powr(x, y)", 4.0, y(0.5), fl(2.0)),
        ("powr(x, y)", 0.5, y(inf), fl(0.0)),
        ("exp(x)", 0.0, 0, fl(1.0)),
        ("exp(x)", -0.0, 0, fl(1.0)),
        ("exp(x)", inf, 0, fl(inf)),
        ("exp(x)", -inf, 0, fl(0.0)),
        ("exp(x)", nan, 0, NAN),
        ("exp(x)", 89.0, 0, fl(inf)),
        ("exp(x)", -104.0, 0, fl(0.0)),
        ("exp10(x)", -inf, 0, fl(0.0)),
        ("exp10(x)", 39.0, 0, fl(inf)),
        ("expm1(x)", -0.0, 0, fl(-0.0)),
        ("expm1(x)", inf, 0, fl(inf)),
        ("expm1(x)", -inf, 0, fl(-1.0)),
        ("expm1(x)", nan, 0, NAN),
        ("log1p(x)", -0.0, 0, fl(-0.0)),
        ("log1p(x)", -1.0, 0, fl(-inf)),
        ("log1p(x)", -2.0, 0, NAN),
        ("log1p(x)", inf, 0, fl(inf)),
        ("log1p(x)", -inf, 0, NAN),
        ("cbrt(x)", -0.0, 0, fl(-0.0)),
        ("cbrt(x)", -inf, 0, fl(-inf)),
        ("cbrt(x)", 27.0, 0, fl(3.0)),
        ("cbrt(x)", -8.0, 0, fl(-2.0)),
        ("cbrt(x)", 0.125, 0, fl(0.5)),
        ("cbrt(x)", 2f32.powi(-120), 0, fl(2f32.powi(-40))),
        ("cbrt(x)", 2f32.powi(126), 0, fl(2f32.powi(42))),
        ("sinh(x)", -0.0, 0, fl(-0.0)),
        ("sinh(x)", -inf, 0, fl(-inf)),
        ("sinh(x)", 100.0, 0, fl(inf)),
        ("cosh(x)", -0.0, 0, fl(1.0)),
        ("cosh(x)", -inf, 0, fl(inf)),
        ("tanh(x)", -0.0, 0, fl(-0.0)),
        ("tanh(x)", inf, 0, fl(1.0)),
        ("tanh(x)", -inf, 0, fl(-1.0)),
        ("tanh(x)", -20.0, 0, fl(-1.0)),
        ("tanh(x)", nan, 0, NAN),
        ("asinh(x)", -0.0, 0, fl(-0.0)),
        ("asinh(x)", -inf, 0, fl(-inf)),
        ("acosh(x)", 1.0, 0, fl(0.0)),
        ("acosh(x)", 0.5, 0, NAN),
        ("acosh(x)", inf, 0, fl(inf)),
        ("atanh(x)", -0.0, 0, fl(-0.0)),
        ("atanh(x)", 1.0, 0, fl(inf)),
        ("atanh(x)", -1.0, 0, fl(-inf)),
        ("atanh(x)", 2.0, 0, NAN),
        ("asin(x)", -0.0, 0, fl(-0.0)),
        ("asin(x)", 1.0, 0, fl(pi2)),
        ("asin(x)", -1.0, 0, fl(-pi2)),
        ("asin(x)", 2.0, 0, NAN),
        ("acos(x)", 1.0, 0, fl(0.0)),
        ("acos(x)", -1.0, 0, fl(pi)),
        ("acos(x)", 0.0, 0, fl(pi2)),
        ("acos(x)", -1.5, 0, NAN),
        ("atan(x)", -0.0, 0, fl(-0.0)),
        ("atan(x)", inf, 0, fl(pi2)),
        ("atan(x)", -inf, 0, fl(-pi2)),
        ("atan(x)", 1.0, 0, fl(pi4)),
        ("atan2(x, y)", 0.0, y(0.0), fl(0.0)),
        ("atan2(x, y)", -0.0, y(0.0), fl(-0.0)),
        ("atan2(x, y)", 0.0, y(-0.0), fl(pi)),
        ("atan2(x, y)", -0.0, y(-0.0), fl(-pi)),
        ("atan2(x, y)", -0.0, y(-1.0), fl(-pi)),
        ("atan2(x, y)", 0.0, y(1.0), fl(0.0)),
        ("atan2(x, y)", -1.0, y(0.0), fl(-pi2)),
        ("atan2(x, y)", 1.0, y(-0.0), fl(pi2)),
        ("atan2(x, y)", 1.0, y(-inf), fl(pi)),
        ("atan2(x, y)", -1.0, y(-inf), fl(-pi)),
        ("atan2(x, y)", -1.0, y(inf), fl(-0.0)),
        ("atan2(x, y)", inf, y(5.0), fl(pi2)),
        ("atan2(x, y)", inf, y(-inf), fl(3.0 * pi4)),
        ("atan2(x, y)", -inf, y(inf), fl(-pi4)),
        ("atan2(x, y)", 1.0, y(nan), NAN),
        ("atan2pi(x, y)", 0.0, y(-0.0), fl(1.0)),
        ("atan2pi(x, y)", -1.0, y(0.0), fl(-0.5)),
        ("atan2pi(x, y)", inf, y(-inf), fl(0.75)),
        ("atan2pi(x, y)", inf, y(inf), fl(0.25)),
        ("asinpi(x)", 1.0, 0, fl(0.5)),
        ("acospi(x)", -1.0, 0, fl(1.0)),
        ("atanpi(x)", -inf, 0, fl(-0.5)),
        ("sinpi(x)", -0.0, 0, fl(-0.0)),
        ("sinpi(x)", 1.0, 0, fl(0.0)),
        ("sinpi(x)", -2.0, 0, fl(-0.0)),
        ("sinpi(x)", 0.5, 0, fl(1.0)),
        ("sinpi(x)", -1.5, 0, fl(1.0)),
        ("sinpi(x)", 3e9, 0, fl(0.0)),
        ("sinpi(x)", inf, 0, NAN),
        ("cospi(x)", 0.5, 0, fl(0.0)),
        ("cospi(x)", -1.5, 0, fl(0.0)),
        ("cospi(x)", 1.0, 0, fl(-1.0)),
        ("cospi(x)", -0.0, 0, fl(1.0)),
        ("cospi(x)", nan, 0, NAN),
        ("tanpi(x)", -0.0, 0, fl(-0.0)),
        ("tanpi(x)", 2.0, 0, fl(0.0)),
        ("tanpi(x)", 1.0, 0, fl(-0.0)),
        ("tanpi(x)", -1.0, 0, fl(0.0)),
        ("tanpi(x)", 0.5, 0, fl(inf)),
        ("tanpi(x)", 1.5, 0, fl(-inf)),
        ("erf(x)", -0.0, 0, fl(-0.0)),
        ("erf(x)", inf, 0, fl(1.0)),
        ("erf(x)", -inf, 0, fl(-1.0)),
        ("erf(x)", 10.0, 0, fl(1.0)),
        ("erf(x)", nan, 0, NAN),
        ("erfc(x)", 0.0, 0, fl(1.0)),
        ("erfc(x)", inf, 0, fl(0.0)),
        ("erfc(x)", -inf, 0, fl(2.0)),
        ("erfc(x)", 20.0, 0, fl(0.0)),
        ("erfc(x)", nan, 0, NAN),
        ("fmod(x, y)", 1.0, y(0.0), NAN),
        ("fmod(x, y)", inf, y(1.0), NAN),
        ("fmod(x, y)", nan, y(1.0), NAN),
        ("fmod(x, y)", 1.0, y(nan), NAN),
        ("fmod(x, y)", -0.0, y(1.0), fl(-0.0)),
        ("fmod(x, y)", 5.0, y(inf), fl(5.0)),
        ("fmod(x, y)", 5.5, y(2.0), fl(1.5)),
        ("fmod(x, y)", -5.5, y(2.0), fl(-1.5)),
        ("fmod(x, y)", 5.5, y(-2.0), fl(1.5)),
        ("fmod(x, y)", -6.0, y(3.0), fl(-0.0)),
        ("fmod(x, y)", f32::MAX, y(f32::MIN_POSITIVE), fl(0.0)),
        ("remainder(x, y)", 5.0, y(2.0), fl(1.0)),
        ("remainder(x, y)", 7.0, y(2.0), fl(-1.0)),
        ("remainder(x, y)", -7.0, y(2.0), fl(1.0)),
        ("remainder(x, y)", 3.0, y(2.0), fl(-1.0)),
        ("remainder(x, y)", 1.0, y(2.0), fl(1.0)),
        ("remainder(x, y)", -6.0, y(3.0), fl(-0.0)),
        ("remainder(x, y)", 1.0, y(inf), fl(1.0)),
        ("remainder(x, y)", 1.0, y(0.0), NAN),
        ("remainder(x, y)", inf, y(1.0), NAN),
        ("maxmag(x, y)", -3.0, y(2.0), fl(-3.0)),
        ("maxmag(x, y)", 2.0, y(-2.0), fl(2.0)),
        ("maxmag(x, y)", nan, y(1.0), fl(1.0)),
        ("minmag(x, y)", -3.0, y(2.0), fl(2.0)),
        ("minmag(x, y)", -2.0, y(2.0), fl(-2.0)),
        ("nextafter(x, y)", 1.0, y(2.0), 0x3f80_0001),
        ("nextafter(x, y)", 1.0, y(0.0), 0x3f7f_ffff),
        ("nextafter(x, y)", -1.0, y(-2.0), 0xbf80_0001),
        ("nextafter(x, y)", -1.0, y(0.0), 0xbf7f_ffff),
        ("nextafter(x, y)", 0.0, y(1.0), 1),
        ("nextafter(x, y)", 0.0, y(-1.0), 0x8000_0001),
        ("nextafter(x, y)", 1.0, y(1.0), fl(1.0)),
        ("nextafter(x, y)", inf, y(0.0), fl(f32::MAX)),
        ("nextafter(x, y)", f32::MAX, y(inf), fl(inf)),
        ("nextafter(x, y)", nan, y(1.0), NAN),
        ("logb(x)", 0.0, 0, fl(-inf)),
        ("logb(x)", -inf, 0, fl(inf)),
        ("logb(x)", 1024.0, 0, fl(10.0)),
        ("logb(x)", -0.3, 0, fl(-2.0)),
        ("logb(x)", nan, 0, NAN),
    ];
    for (x, e) in [
        (1.0, 0),
        (0.5, -1),
        (3.0, 1),
        (-8.0, 3),
        (f32::MAX, 127),
        (f32::MIN_POSITIVE, -126),
        (0.0, i32::MIN),
        (inf, i32::MAX),
        (nan, i32::MAX),
    ] {
        v.push(("ilogb(x)", x, 0, e as u32));
    }
    // Γ: poles at zero (signed) and the negative integers, where lgamma is +inf; Γ(1) = Γ(2)
    // = 1 and ln Γ there +0; Γ(1/2) = √π; overflow past 35.0401.
    let root_pi = std::f64::consts::PI.sqrt();
    for (x, t, l) in [
        (0.0f32, inf, inf),
        (-0.0, -inf, inf),
        (-1.0, nan, inf),
        (-7.0, nan, inf),
        (-1e20, nan, inf),
        (inf, inf, inf),
        (-inf, nan, inf),
        (nan, nan, nan),
        (1.0, 1.0, 0.0),
        (2.0, 1.0, 0.0),
        (3.0, 2.0, 2f64.ln() as f32),
        (0.5, root_pi as f32, root_pi.ln() as f32),
    ] {
        let bits = |v: f32| if v.is_nan() { NAN } else { fl(v) };
        v.push(("tgamma(x)", x, 0, bits(t)));
        v.push(("lgamma(x)", x, 0, bits(l)));
    }
    v.push(("tgamma(x)", 35.05, 0, fl(inf)));
    // round keeps the operand's sign on a zero result (F.9.6.6).
    for (x, r) in [
        (-0.3, -0.0),
        (-0.0, -0.0),
        (0.3, 0.0),
        (-2.5, -3.0),
        (2.5, 3.0),
    ] {
        v.push(("round(x)", x, 0, fl(r)));
    }
    // OpenCL 6.12.4: sign(NaN) is 0; a denormal, flushed, is a zero of its sign.
    for (x, r) in [
        (nan, 0.0),
        (-0.0, -0.0),
        (1e-40, 0.0),
        (-1e-40, -0.0),
        (-2.0, -1.0),
    ] {
        v.push(("sign(x)", x, 0, fl(r)));
    }
    for (x, y, r) in [
        (nan, 1.0, NAN),
        (1.0, nan, NAN),
        (3.0, 1.0, fl(2.0)),
        (1.0, 3.0, 0),
    ] {
        v.push(("fdim(x, y)", x, fl(y), r));
    }
    // hypot without undue overflow or underflow (exact here: 3-4-5 scaled by 2^±100), and
    // inf beside a NaN (F.9.4.3).
    let p100 = 2f32.powi(100);
    for (x, y, r) in [
        (3.0 * p100, 4.0 * p100, 5.0 * p100),
        (3.0 / p100, 4.0 / p100, 5.0 / p100),
        (-3.0, 4.0, 5.0),
        (0.0, -0.0, 0.0),
        (nan, inf, inf),
        (-inf, nan, inf),
    ] {
        v.push(("hypot(x, y)", x, fl(y), fl(r)));
    }
    v.push(("hypot(x, y)", nan, fl(1.0), NAN));
    v
}

#[test]
fn special_values_are_c99s_and_opencls() {
    let dir = tempfile::tempdir().unwrap();
    let cases = special_values();
    let mut failures = Vec::new();
    let mut calls: Vec<&str> = cases.iter().map(|c| c.0).collect();
    calls.dedup();
    for call in calls {
        let of: Vec<_> = cases.iter().filter(|c| c.0 == call).collect();
        let x: Vec<u32> = of.iter().map(|c| c.1.to_bits()).collect();
        let y: Vec<u32> = of.iter().map(|c| c.2).collect();
        let body = if call == "ilogb(x)" {
            format!("o = (uint){call};")
        } else {
            format!("o = as_uint({call});")
        };
        for (c, got) in of.iter().zip(golden(dir.path(), &body, &x, &y)) {
            let nan = |b: u32| f32::from_bits(b).is_nan();
            let ok = if c.3 == NAN { nan(got) } else { got == c.3 };
            if !ok {
                failures.push(format!(
                    "{call} at x = {:?}, y = {:#x}: {:#010x} ({:?}), want {:#010x} ({:?})",
                    c.1,
                    c.2,
                    got,
                    f32::from_bits(got),
                    c.3,
                    f32::from_bits(c.3)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// remquo's quotient (its sign and 7 low bits), and the functions with a pointer result.
#[test]
fn pointer_results_hold_what_opencl_specifies() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = [
        (7.0f32, 2.0f32, 4i32, -1.0f32),
        (-7.0, 2.0, -4, 1.0),
        (5.0, 2.0, 2, 1.0),
        (5.0, -2.0, -2, 1.0),
        (1000.0, 1.0, 1000 & 127, 0.0),
        (-1000.0, 3.0, -(333 & 127), -1.0),
        (1.0, 0.0, 0, f32::NAN),
    ];
    let x: Vec<u32> = pairs.iter().map(|p| p.0.to_bits()).collect();
    let y: Vec<u32> = pairs.iter().map(|p| p.1.to_bits()).collect();
    let quo = golden(dir.path(), "int q; remquo(x, y, &q); o = (uint)q;", &x, &y);
    let rem = golden(dir.path(), "int q; o = as_uint(remquo(x, y, &q));", &x, &y);
    for (p, (q, r)) in pairs.iter().zip(quo.iter().zip(&rem)) {
        assert_eq!(*q as i32, p.2, "remquo({}, {})'s quotient", p.0, p.1);
        let r = f32::from_bits(*r);
        assert!(
            r.to_bits() == p.3.to_bits() || (r.is_nan() && p.3.is_nan()),
            "remquo({}, {}) = {r}, want {}",
            p.0,
            p.1,
            p.3
        );
    }

    // `f(x, &ip)` and what it leaves in `ip`, for each input: (x, result, ip), bit for bit
    // (any NaN for a NaN).
    let both = |f: &str, cases: &[(f32, f32, f32)]| {
        let x: Vec<u32> = cases.iter().map(|c| c.0.to_bits()).collect();
        let result = golden(
            dir.path(),
            &format!("float ip; o = as_uint({f}(x, &ip));"),
            &x,
            &x,
        );
        let ip = golden(
            dir.path(),
            &format!("float ip; {f}(x, &ip); o = as_uint(ip);"),
            &x,
            &x,
        );
        let same = |got: u32, want: f32| {
            got == want.to_bits() || (want.is_nan() && f32::from_bits(got).is_nan())
        };
        for (k, &(x, r, i)) in cases.iter().enumerate() {
            assert!(
                same(result[k], r) && same(ip[k], i),
                "{f}({x:?}) = {:?}, ip {:?}; want {r:?}, {i:?}",
                f32::from_bits(result[k]),
                f32::from_bits(ip[k])
            );
        }
    };
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    both(
        "modf",
        &[
            (3.75, 0.75, 3.0),
            (-3.75, -0.75, -3.0),
            (inf, 0.0, inf),
            (-inf, -0.0, -inf),
            (-5.0, -0.0, -5.0),
            (0.3, 0.3, 0.0),
        ],
    );
    // fract (OpenCL 1.2 7.5.1): ±0 for ±0 and ±inf, the NaN for a NaN; floor in the pointer.
    both(
        "fract",
        &[
            (-0.0, -0.0, -0.0),
            (0.0, 0.0, 0.0),
            (inf, 0.0, inf),
            (-inf, -0.0, -inf),
            (nan, nan, nan),
            (-0.25, 0.75, -1.0),
            (2.5, 0.5, 2.0),
        ],
    );
    let same = golden(
        dir.path(),
        "__local float c[64]; float p; float s = sincos(x, &p);\n\
         float g = sincos(y, &c[get_local_id(0)]);\n\
         o = (as_uint(s) == as_uint(sin(x)) && as_uint(p) == as_uint(cos(x))\n\
              && as_uint(g) == as_uint(sin(y)) && as_uint(c[get_local_id(0)]) == as_uint(cos(y)));",
        &x,
        &x,
    );
    assert_eq!(same, vec![1; x.len()], "sincos is sin and cos");
}

/// lgamma below zero, where the reflection's terms cancel at the zeros of ln |Γ| (OpenCL sets
/// no bound on lgamma): within 3 ulp, or 2^-23 absolute near a zero (sinpi's error, carried
/// into ln |sin(pi x)|); and lgamma_r's sign,
/// Γ's, which is -1 on (-1, 0), (-3, -2), ... and at -0.
#[test]
fn lgamma_below_zero_and_its_sign() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Inputs(11);
    let mut x = rng.magnitudes(N, 1e-30, 1e7, 1.0);
    // The zeros of ln |Γ| between -6 and -2, and steps of 2^-20 around each.
    for z in [
        -2.457_024_7,
        -2.747_682_6,
        -3.143_547_3,
        -3.955_243_7,
        -4.039_013_7,
        -4.999_822,
    ] {
        x.extend((-32..=32).map(|k| z + k as f32 * 2f32.powi(-20)));
    }
    let bits: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    let got = golden(dir.path(), "o = as_uint(lgamma(x));", &bits, &bits);
    let mut worst = (0.0, 0.0f32);
    for (&x, &g) in x.iter().zip(&got) {
        let want = unsafe { c_lgamma(f64::from(x)) };
        let g = f32::from_bits(g);
        let e = ulps(g, want);
        if e > 3.0 {
            let abs = (f64::from(g) - want).abs();
            assert!(
                abs <= 2f64.powi(-23),
                "lgamma({x:e}) = {g:e}, exactly {want:e}: {e:.1} ulp, {abs:e} off"
            );
        }
        if e > worst.0 && e <= 3.0 {
            worst = (e, x);
        }
    }
    println!(
        "lgamma below zero: {:.3} ulp at {:e} away from the zeros",
        worst.0, worst.1
    );
    let signs = [
        (0.5f32, 1i32),
        (-0.5, -1),
        (-1.5, 1),
        (-2.5, -1),
        (-3.25, 1),
        (0.0, 1),
        (-0.0, -1),
        (-41.5, 1),
        (-42.5, -1),
    ];
    let x: Vec<u32> = signs.iter().map(|s| s.0.to_bits()).collect();
    let got = golden(
        dir.path(),
        "__local int s[64]; int p; float a = lgamma_r(x, &p), b = lgamma_r(x, &s[get_local_id(0)]);\n\
         o = as_uint(a) == as_uint(lgamma(x)) && as_uint(b) == as_uint(a) && p == s[get_local_id(0)] ? (uint)p : 7u;",
        &x,
        &x,
    );
    for (s, g) in signs.iter().zip(got) {
        assert_eq!(g as i32, s.1, "lgamma_r({:?})'s sign", s.0);
    }
}

/// Every vector form is its scalar function on each component.
#[test]
fn vector_forms_apply_the_scalar_function_per_component() {
    let dir = tempfile::tempdir().unwrap();
    let unary = [
        "exp", "exp10", "expm1", "log1p", "cbrt", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh", "asin", "acos", "atan", "asinpi", "acospi", "atanpi", "erf", "erfc", "logb",
        "tan", "tanpi", "sinpi", "cospi", "log10", "lgamma", "tgamma",
    ];
    let binary = [
        "pow",
        "powr",
        "fmod",
        "remainder",
        "atan2",
        "atan2pi",
        "maxmag",
        "minmag",
        "nextafter",
    ];
    let mut body = String::from(
        "float4 v = (float4)(x, y, x * 0.5f, -y), w = (float4)(y, x, 3.0f, x);\n\
         int4 k = (int4)(3, -2, 5, 1);\n o = 0u;\n",
    );
    for f in unary {
        body += &format!(
            " o |= as_uint({f}(v).z) ^ as_uint({f}(v.z)); o |= as_uint({f}(v.xy).y) ^ as_uint({f}(v.y));\n"
        );
    }
    for f in binary {
        body += &format!(" o |= as_uint({f}(v, w).w) ^ as_uint({f}(v.w, w.w));\n");
    }
    for f in ["pown", "rootn"] {
        body += &format!(" o |= as_uint({f}(v.xyz, k.xyz).z) ^ as_uint({f}(v.z, k.z));\n");
    }
    let x: Vec<u32> = [0.5f32, 1.5, -0.25, 3.0]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let y: Vec<u32> = [0.75f32, -2.0, 0.125, 7.0]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(golden(dir.path(), &body, &x, &y), vec![0; 4]);
}

/// The heaviest functions on the RTL: the same bits as the golden model, within the WCET
/// bound (fmod's loop carries its own bound, so the analysis needs none from the manifest).
#[test]
fn the_rtl_computes_the_golden_models_bits_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Inputs(7);
    let x: Vec<u32> = rng
        .magnitudes(64, 1e-3, 1e3, 0.5)
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let y: Vec<u32> = rng
        .magnitudes(64, 1e-3, 1e3, 0.5)
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let body =
        "o = as_uint(pow(fabs(x), y * 0.01f)) ^ as_uint(fmod(x, y)) ^ as_uint(atan2(y, x))\n\
                ^ as_uint(erfc(x * 0.01f)) ^ as_uint(expm1(y * 0.1f)) ^ as_uint(asin(x * 1e-3f))\n\
                ^ as_uint(tgamma(y * 0.03f)) ^ as_uint(lgamma(x));";
    // About 4,300 words: `pws run` grows the `cu` preset's instruction memory of 4,096 to hold
    // them, and the analysis bounds the same program.
    let want = golden(dir.path(), body, &x, &y);
    let m = dir.path().join("k.toml");
    let m = m.to_str().unwrap();
    let rtl = json(&["run", m, "--mode", "nosplit", "--json"]);
    let got: Vec<u32> = buffer(&rtl, "out").iter().map(|&v| v as u32).collect();
    assert_eq!(got, want, "RTL against the golden model");
    let cycles = rtl["cycles"].as_u64().unwrap();
    let wcet = json(&["wcet", m, "--mode", "nosplit", "--json"]);
    let bound = wcet["modes"][0]["bound"]
        .as_u64()
        .unwrap_or_else(|| panic!("{wcet}"));
    assert!(
        bound >= cycles,
        "bound {bound} below the RTL's {cycles} cycles"
    );
}
