//! The golden model's f32 soft-float (`golden::f32`) against the host's IEEE arithmetic: Rust's
//! `f32`/`f64` (round to nearest even, gradual underflow) with the contract's rules around it
//! (input and output flush, NaN payloads, the canonical NaN; docs/float.md). Millions of
//! operands per operation: random bit patterns, edge cases (denormals, NaNs, infinities, ±0,
//! near overflow and underflow), cancelling pairs and halfway cases; the transcendentals
//! against f64 within the contract's measured bounds; clang's correctly rounded division
//! sequence against the host's `/`. Case counts follow the proptest budget
//! (`PWS_PROPTEST_SCALE`, 10x in `make soak`); every failure names its operands.

use pws_isa::testing::proptest_cases;
use pws_verify::golden::f32::{self as fp, Cmp, QNAN};

/// SplitMix64: a fixed seed, so a failure names operands that reproduce it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807F_FFFF,
    0x0040_0000,
    0x0080_0000,
    0x8080_0000,
    0x0080_0001,
    0x00FF_FFFF,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x7F00_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0xFFBF_FFFF,
    0x7FC1_2345,
    0x3F80_0000,
    0xBF80_0000,
    0x3F00_0000,
    0x4000_0000,
    0x3F7F_FFFF,
    0x3F80_0001,
    0x4B00_0000,
    0x4AFF_FFFF,
    0xCB00_0001,
    0x4F00_0000,
    0x4F80_0000,
    0xCF00_0000,
    0x3EFF_FFFF,
    0x3FC0_0000,
    0x4020_0000,
    0x3380_0000,
    0x3400_0000,
    0x3300_0000,
    0x0C00_0000,
    0x1F80_0000,
    0x5F00_0000,
    0x7E80_0000,
    0x7E80_0001,
];

/// An operand: random bits, an edge case, or a random value with an extreme exponent.
fn operand(rng: &mut Rng) -> u32 {
    let r = rng.next();
    match r % 8 {
        0..=2 => (r >> 32) as u32,
        3 => EDGES[rng.below(EDGES.len() as u64) as usize],
        4 => {
            let e = [
                0u32, 1, 2, 3, 23, 24, 25, 48, 49, 125, 126, 127, 128, 129, 150, 151, 252, 253,
                254, 255,
            ];
            let e = e[rng.below(e.len() as u64) as usize];
            (r >> 63) as u32 * 0x8000_0000 | e << 23 | (r >> 8) as u32 & 0x7F_FFFF
        }
        5 => {
            // Small integers and simple fractions, exactly representable.
            let v = (rng.below(2001) as i32 - 1000) as f32
                / [1.0f32, 2.0, 4.0, 8.0, 3.0][rng.below(5) as usize];
            v.to_bits()
        }
        _ => {
            // A value near 1 (cancellation with other near-1 values and halfway cases).
            let base = 0x3F80_0000u32 - 4 + rng.below(8) as u32;
            base ^ ((r >> 40) as u32 & 0x8000_0000)
        }
    }
}

/// A second operand related to the first: equal, a few ulps away, negated, or exactly half an
/// ulp of the first (halfway sums), else independent.
fn partner(rng: &mut Rng, a: u32) -> u32 {
    match rng.below(6) {
        0 => a.wrapping_add(rng.below(5) as u32).wrapping_sub(2),
        1 => a ^ 0x8000_0000,
        2 => {
            // 2^(e(a) - 24): a + b is a tie.
            let e = (a >> 23 & 0xFF).saturating_sub(24);
            (a & 0x8000_0000) ^ (rng.below(2) as u32) << 31 | e << 23 | rng.below(2) as u32
        }
        _ => operand(rng),
    }
}

fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

fn flush(x: u32) -> u32 {
    if x >> 23 & 0xFF == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn f(x: u32) -> f32 {
    f32::from_bits(flush(x))
}

/// The contract's rules around a host result: NaN inputs give the first one quieted, a NaN
/// created by the operation is the canonical one, a subnormal result is flushed.
fn reference(inputs: &[u32], host: impl FnOnce() -> f32) -> u32 {
    if let Some(&n) = inputs
        .iter()
        .map(|&x| flush(x))
        .collect::<Vec<_>>()
        .iter()
        .find(|&&x| is_nan(x))
    {
        return n | 0x0040_0000;
    }
    let r = host().to_bits();
    if is_nan(r) {
        QNAN
    } else {
        flush(r)
    }
}

fn cases(base: u32) -> u32 {
    proptest_cases(base)
}

fn check_binary(
    name: &str,
    count: u32,
    seed: u64,
    ours: impl Fn(u32, u32) -> u32,
    host: impl Fn(f32, f32) -> f32,
) {
    let mut rng = Rng(seed);
    for i in 0..count {
        let a = operand(&mut rng);
        let b = partner(&mut rng, a);
        let (a, b) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
        let want = reference(&[a, b], || host(f(a), f(b)));
        let got = ours(a, b);
        assert_eq!(
            got, want,
            "{name}(0x{a:08x}, 0x{b:08x}) case {i}: got 0x{got:08x}, want 0x{want:08x}"
        );
    }
}

#[test]
fn add_sub_mul_match_the_host() {
    let n = cases(1_000_000);
    check_binary("add", n, 1, fp::add, |x, y| x + y);
    check_binary("sub", n, 2, fp::sub, |x, y| x - y);
    check_binary("mul", n, 3, fp::mul, |x, y| x * y);
}

#[test]
fn fma_and_mad_match_the_host() {
    let n = cases(1_000_000);
    let mut rng = Rng(4);
    for i in 0..n {
        let a = operand(&mut rng);
        let b = partner(&mut rng, a);
        // The addend near -a*b makes the fused result cancel.
        let c = match rng.below(3) {
            0 => (f(a) * f(b)).to_bits() ^ 0x8000_0000,
            1 => partner(&mut rng, a),
            _ => operand(&mut rng),
        };
        let want = reference(&[a, b, c], || f(a).mul_add(f(b), f(c)));
        let got = fp::fma(a, b, c);
        assert_eq!(
            got, want,
            "fma(0x{a:08x}, 0x{b:08x}, 0x{c:08x}) case {i}: got 0x{got:08x}"
        );
        // mad: round(round(a*b) + c) with the product flushed in between.
        let want = reference(&[a, b, c], || {
            let p = flush(reference(&[], || f(a) * f(b)));
            if is_nan(p) {
                f32::NAN
            } else {
                f32::from_bits(p) + f(c)
            }
        });
        let got = fp::mad(a, b, c);
        assert_eq!(
            got, want,
            "mad(0x{a:08x}, 0x{b:08x}, 0x{c:08x}) case {i}: got 0x{got:08x}"
        );
    }
}

#[test]
fn sqrt_rcp_rsq_match_the_host() {
    let mut rng = Rng(5);
    for i in 0..cases(1_000_000) {
        let a = operand(&mut rng);
        let want = reference(&[a], || f(a).sqrt());
        assert_eq!(fp::sqrt(a), want, "sqrt(0x{a:08x}) case {i}");
        let want = reference(&[a], || 1.0 / f(a));
        assert_eq!(fp::rcp(a), want, "rcp(0x{a:08x}) case {i}");
        let want = reference(&[a], || {
            let s = flush(f(a).sqrt().to_bits());
            1.0 / f32::from_bits(s)
        });
        assert_eq!(fp::rsq(a), want, "rsq(0x{a:08x}) case {i}");
    }
}

#[test]
fn conversions_and_rounding_match_the_host() {
    let mut rng = Rng(6);
    for i in 0..cases(1_000_000) {
        let a = operand(&mut rng);
        let x = f(a);
        for (name, got, want) in [
            ("floor", fp::floor(a), reference(&[a], || x.floor())),
            ("ceil", fp::ceil(a), reference(&[a], || x.ceil())),
            ("trunc", fp::trunc(a), reference(&[a], || x.trunc())),
            (
                "rndne",
                fp::rndne(a),
                reference(&[a], || x.round_ties_even()),
            ),
            (
                "cvt_f32_i32",
                fp::cvt_f32_i32(a),
                flush((a as i32 as f32).to_bits()),
            ),
            ("cvt_f32_u32", fp::cvt_f32_u32(a), (a as f32).to_bits()),
            // Rust's `as` truncates toward zero, saturates and maps NaN to 0, as the contract.
            ("cvt_i32_f32", fp::cvt_i32_f32(a), x as i32 as u32),
            ("cvt_u32_f32", fp::cvt_u32_f32(a), x as u32),
            (
                "cvt_flr_i32_f32",
                fp::cvt_flr_i32(a),
                x.floor() as i32 as u32,
            ),
            (
                "cvt_rpi_i32_f32",
                fp::cvt_rpi_i32(a),
                (f64::from(x) + 0.5).floor() as i32 as u32,
            ),
            (
                "cvt_f32_ubyte1",
                fp::cvt_f32_ubyte(a, 1),
                ((a >> 8 & 0xFF) as f32).to_bits(),
            ),
            (
                "fract",
                fp::fract(a),
                if x.is_infinite() {
                    QNAN
                } else {
                    reference(&[a], || (x - x.floor()).min(f32::from_bits(0x3F7F_FFFF)))
                },
            ),
        ] {
            assert_eq!(
                got, want,
                "{name}(0x{a:08x}) case {i}: got 0x{got:08x}, want 0x{want:08x}"
            );
        }
        // ldexp through f64 (exact) then one rounding to f32.
        let k = rng.below(600) as i32 - 300;
        let want = reference(&[a], || {
            if x == 0.0 || x.is_infinite() {
                x
            } else {
                (f64::from(x) * 2f64.powi(k)) as f32
            }
        });
        assert_eq!(
            fp::ldexp(a, k as u32),
            want,
            "ldexp(0x{a:08x}, {k}) case {i}"
        );
        // frexp: mant * 2^exp == x, |mant| in [0.5, 1).
        if x.is_finite() && x != 0.0 {
            let m = f32::from_bits(fp::frexp_mant(a));
            let e = fp::frexp_exp(a) as i32;
            assert!(
                (0.5..1.0).contains(&m.abs()) && f64::from(m) * 2f64.powi(e) == f64::from(x),
                "frexp(0x{a:08x})"
            );
        }
    }
}

#[test]
fn compares_min_max_and_class_match_the_host() {
    let mut rng = Rng(7);
    for i in 0..cases(1_000_000) {
        let a = operand(&mut rng);
        let b = partner(&mut rng, a);
        let (x, y) = (f(a), f(b));
        let o = x.partial_cmp(&y);
        use std::cmp::Ordering::*;
        let expect = [
            false,
            o == Some(Less),
            o == Some(Equal),
            matches!(o, Some(Less | Equal)),
            o == Some(Greater),
            matches!(o, Some(Less | Greater)),
            matches!(o, Some(Greater | Equal)),
            o.is_some(),
            o.is_none(),
            !matches!(o, Some(Greater | Equal)),
            !matches!(o, Some(Less | Greater)),
            o != Some(Greater),
            !matches!(o, Some(Less | Equal)),
            o != Some(Equal),
            o != Some(Less),
            true,
        ];
        for (p, want) in Cmp::ALL.iter().zip(expect) {
            assert_eq!(
                fp::compare(*p, a, b),
                want,
                "cmp {p:?} 0x{a:08x} 0x{b:08x} case {i}"
            );
        }
        // minNum/maxNum: the host's min/max return the non-NaN operand; zeros of both signs
        // are ordered -0 < +0 by the contract.
        let zero_order = |lo: bool| {
            if x == 0.0 && y == 0.0 {
                let (nx, ny) = (x.is_sign_negative(), y.is_sign_negative());
                let negative = if lo { nx || ny } else { nx && ny };
                Some(if negative { 0x8000_0000 } else { 0 })
            } else {
                None
            }
        };
        let want_min = if is_nan(flush(a)) && is_nan(flush(b)) {
            flush(a) | 0x0040_0000
        } else {
            zero_order(true).unwrap_or_else(|| flush(x.min(y).to_bits()))
        };
        assert_eq!(
            fp::min(a, b),
            want_min,
            "min(0x{a:08x}, 0x{b:08x}) case {i}"
        );
        let want_max = if is_nan(flush(a)) && is_nan(flush(b)) {
            flush(a) | 0x0040_0000
        } else {
            zero_order(false).unwrap_or_else(|| flush(x.max(y).to_bits()))
        };
        assert_eq!(
            fp::max(a, b),
            want_max,
            "max(0x{a:08x}, 0x{b:08x}) case {i}"
        );
        // class on the unflushed value.
        let v = f32::from_bits(a);
        use std::num::FpCategory::*;
        let bit = match (v.classify(), v.is_sign_negative()) {
            (Nan, _) if a & 0x0040_0000 == 0 => 0,
            (Nan, _) => 1,
            (Infinite, true) => 2,
            (Normal, true) => 3,
            (Subnormal, true) => 4,
            (Zero, true) => 5,
            (Zero, false) => 6,
            (Subnormal, false) => 7,
            (Normal, false) => 8,
            (Infinite, false) => 9,
        };
        assert!(
            fp::class(a, 1 << bit) && !fp::class(a, !(1 << bit) & 0x3FF),
            "class(0x{a:08x})"
        );
    }
}

/// ulp of the f32 binade of `r` (normal range).
fn ulp(r: f64) -> f64 {
    let e = r.abs().log2().floor().max(-126.0);
    2f64.powf(e - 23.0)
}

#[test]
fn transcendentals_within_the_contract_bounds() {
    let mut rng = Rng(8);
    let (mut worst_exp, mut worst_log, mut worst_sin) = (0f64, 0f64, 0f64);
    for i in 0..cases(1_000_000) {
        // Uniform bits in the interesting ranges and the general operand mix.
        let a = if i % 2 == 0 {
            operand(&mut rng)
        } else {
            (rng.next() >> 32) as u32 % 0x4300_0000 | (rng.below(2) as u32) << 31
        };
        let x = f64::from(f(a));
        let e = fp::exp2(a);
        let want = x.exp2();
        if x.is_finite() && want >= 2f64.powi(-126) && want < 2f64.powi(128) {
            let err = (f64::from(f32::from_bits(e)) - want).abs() / ulp(want);
            worst_exp = worst_exp.max(err);
            assert!(err <= 0.5194, "exp(0x{a:08x}) = 0x{e:08x}: {err} ulp");
        }
        let l = fp::log2(a);
        if x.is_finite() && x > 0.0 {
            let want = x.log2();
            if want != 0.0 {
                let err = (f64::from(f32::from_bits(l)) - want).abs() / ulp(want);
                worst_log = worst_log.max(err);
                assert!(err <= 0.5074, "log(0x{a:08x}) = 0x{l:08x}: {err} ulp");
            }
        }
        if x.is_finite() {
            let frac = x - x.floor();
            for (cos, want) in [
                (false, (std::f64::consts::TAU * frac).sin()),
                (true, (std::f64::consts::TAU * frac).cos()),
            ] {
                let got = f64::from(f32::from_bits(fp::sin_cos(a, cos)));
                let err = (got - want).abs();
                worst_sin = worst_sin.max(err);
                assert!(
                    err <= 3.13e-8,
                    "sin/cos {cos} (0x{a:08x}) = {got}: abs error {err}"
                );
            }
        }
    }
    eprintln!("worst: exp {worst_exp:.4} ulp, log {worst_log:.4} ulp, sin/cos {worst_sin:.3e} abs");
}

/// The sequence clang-14 emits for a correctly rounded `a / b` on fiji (docs/float.md), with
/// the MODE writes as no-ops.
fn clang_divide(a: u32, b: u32) -> u32 {
    let (d, _) = fp::div_scale(b, b, a);
    let (n, vcc) = fp::div_scale(a, b, a);
    let r = fp::rcp(d);
    let e = fp::fma(d ^ 0x8000_0000, r, 0x3F80_0000);
    let r = fp::fma(e, r, r);
    let q = fp::mul(n, r);
    let t = fp::fma(d ^ 0x8000_0000, q, n);
    let q = fp::fma(t, r, q);
    let t = fp::fma(d ^ 0x8000_0000, q, n);
    let q = fp::div_fmas(t, r, q, vcc);
    fp::div_fixup(q, b, a)
}

#[test]
fn clangs_division_sequence_is_correctly_rounded() {
    let mut rng = Rng(9);
    for i in 0..cases(1_000_000) {
        let a = operand(&mut rng);
        let b = if rng.below(4) == 0 {
            partner(&mut rng, a)
        } else {
            operand(&mut rng)
        };
        let (x, y) = (f(a), f(b));
        let want = if (x == 0.0 && y == 0.0) || (x.is_infinite() && y.is_infinite()) {
            fp::DIV_QNAN
        } else if is_nan(flush(a)) {
            flush(a) | 0x0040_0000
        } else if is_nan(flush(b)) {
            flush(b) | 0x0040_0000
        } else {
            flush((x / y).to_bits())
        };
        let got = clang_divide(a, b);
        assert_eq!(
            got, want,
            "0x{a:08x} / 0x{b:08x} case {i}: got 0x{got:08x}, want 0x{want:08x}"
        );
    }
}
