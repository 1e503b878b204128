//! The f32 contract (docs/float.md) written from its text with the host's IEEE binary32
//! arithmetic (round to nearest even, gradual underflow) plus the contract's flush, NaN,
//! omod and clamp rules. Independent of the RTL: no rounding, alignment or normalisation of
//! its own; each operation is one host operation (or the host's fused `mul_add`).

use pws_hdl::simd::ValuOp;

pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

pub fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

pub fn quiet(x: u32) -> u32 {
    x | 0x0040_0000
}

/// Denormals (exponent 0, mantissa non-zero) become zero of their sign.
pub fn flush(x: u32) -> u32 {
    if x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// A computed result: invalid operations give the canonical NaN, subnormals flush.
fn out(r: f32) -> u32 {
    if r.is_nan() {
        CANONICAL_NAN
    } else {
        flush(r.to_bits())
    }
}

/// The first NaN among the operands, quieted.
fn first_nan(ops: &[u32]) -> Option<u32> {
    ops.iter().find(|&&x| is_nan(x)).map(|&x| quiet(x))
}

fn min_num(a: u32, b: u32, max: bool) -> u32 {
    match (is_nan(a), is_nan(b)) {
        (true, true) => quiet(a),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let (x, y) = (f(a), f(b));
            // -0 < +0: compare equal values by their sign bits.
            let a_less = x < y || (x == y && a & 0x8000_0000 != 0 && b & 0x8000_0000 == 0);
            let b_less = y < x || (x == y && b & 0x8000_0000 != 0 && a & 0x8000_0000 == 0);
            if max {
                if a_less {
                    b
                } else {
                    a
                }
            } else if b_less {
                b
            } else {
                a
            }
        }
    }
}

fn class(x: u32) -> u32 {
    let neg = x & 0x8000_0000 != 0;
    let m = x & 0x7FFF_FFFF;
    if m > 0x7F80_0000 {
        if m & 0x0040_0000 != 0 {
            1
        } else {
            0
        }
    } else if m == 0x7F80_0000 {
        if neg {
            2
        } else {
            9
        }
    } else if m >= 0x0080_0000 {
        if neg {
            3
        } else {
            8
        }
    } else if m != 0 {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        5
    } else {
        6
    }
}

/// The modifier word of the RTL (`fpu::fmod_word`) as fields.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mods {
    pub abs: u8,
    pub neg: u8,
    pub omod: u8,
    pub clamp: bool,
}

/// What the contract says one lane computes: (result, compare flag).
pub fn reference(op: ValuOp, a: u32, b: u32, c: u32, m_bit: bool, mods: Mods) -> (u32, bool) {
    use ValuOp::*;
    let m = |x: u32, n: u8| {
        let x = if mods.abs >> n & 1 != 0 {
            x & 0x7FFF_FFFF
        } else {
            x
        };
        if mods.neg >> n & 1 != 0 {
            x ^ 0x8000_0000
        } else {
            x
        }
    };
    let (x, y, z) = (m(a, 0), m(b, 1), m(c, 2));
    let (fx, fy, fz) = (flush(x), flush(y), flush(z));
    let cmp = |flag: bool| (0, flag);
    let ord = || !is_nan(fx) && !is_nan(fy);
    let (p, q) = (f(fx), f(fy));
    let nan_or = |ops: &[u32], r: &dyn Fn() -> u32| first_nan(ops).unwrap_or_else(r);
    let to_i32 = |v: f64| if v.is_nan() { 0 } else { v as i32 as u32 };
    let result: u32 = match op {
        AddF => nan_or(&[fx, fy], &|| out(p + q)),
        SubF => nan_or(&[fx, fy], &|| out(p - q)),
        MulF => nan_or(&[fx, fy], &|| out(p * q)),
        FmaF => nan_or(&[fx, fy, fz], &|| out(p.mul_add(q, f(fz)))),
        MadF => nan_or(&[fx, fy, fz], &|| {
            let prod = out(p * q);
            if is_nan(prod) {
                CANONICAL_NAN
            } else {
                out(f(prod) + f(fz))
            }
        }),
        MinF => min_num(fx, fy, false),
        MaxF => min_num(fx, fy, true),
        Min3F => min_num(min_num(fx, fy, false), fz, false),
        Max3F => min_num(min_num(fx, fy, true), fz, true),
        Med3F => {
            if is_nan(fx) || is_nan(fy) || is_nan(fz) {
                min_num(min_num(fx, fy, false), fz, false)
            } else {
                let lo = min_num(fx, fy, false);
                let hi = min_num(fx, fy, true);
                min_num(lo, min_num(hi, fz, false), true)
            }
        }
        CmpFalseF => return cmp(false),
        CmpLtF => return cmp(ord() && p < q),
        CmpEqF => return cmp(ord() && p == q),
        CmpLeF => return cmp(ord() && p <= q),
        CmpGtF => return cmp(ord() && p > q),
        CmpLgF => return cmp(ord() && p != q),
        CmpGeF => return cmp(ord() && p >= q),
        CmpOF => return cmp(ord()),
        CmpUF => return cmp(!ord()),
        CmpNgeF => return cmp(!(ord() && p >= q)),
        CmpNlgF => return cmp(!(ord() && p != q)),
        CmpNgtF => return cmp(!(ord() && p > q)),
        CmpNleF => return cmp(!(ord() && p <= q)),
        CmpNeqF => return cmp(!(ord() && p == q)),
        CmpNltF => return cmp(!(ord() && p < q)),
        CmpTrueF => return cmp(true),
        CmpClassF => return cmp(y >> class(x) & 1 != 0),
        CvtF32I32 => out(x as i32 as f32),
        CvtF32U32 => out(x as f32),
        CvtF32Ubyte0 => out((x & 0xFF) as f32),
        CvtF32Ubyte1 => out((x >> 8 & 0xFF) as f32),
        CvtF32Ubyte2 => out((x >> 16 & 0xFF) as f32),
        CvtF32Ubyte3 => out((x >> 24) as f32),
        // Integer results: omod and clamp do not apply.
        CvtI32F32 => return (to_i32(p as f64), false),
        CvtU32F32 => return (if p.is_nan() { 0 } else { p as u32 }, false),
        CvtRpiI32F32 => return (to_i32((p as f64 + 0.5).floor()), false),
        CvtFlrI32F32 => return (to_i32((p as f64).floor()), false),
        FrexpExpF => {
            let e = if fx & 0x7FFF_FFFF == 0 || fx & 0x7F80_0000 == 0x7F80_0000 {
                0
            } else {
                ((fx >> 23 & 0xFF) as i32 - 126) as u32
            };
            return (e, false);
        }
        FloorF => nan_or(&[fx], &|| p.floor().to_bits()),
        CeilF => nan_or(&[fx], &|| p.ceil().to_bits()),
        TruncF => nan_or(&[fx], &|| p.trunc().to_bits()),
        RndneF => nan_or(&[fx], &|| p.round_ties_even().to_bits()),
        FractF => nan_or(&[fx], &|| {
            if p.is_infinite() {
                CANONICAL_NAN
            } else {
                out(p - p.floor()).min(0x3F7F_FFFF)
            }
        }),
        LdexpF => ldexp(fx, (y as i32).clamp(-400, 400)),
        FrexpMantF => nan_or(&[fx], &|| {
            if fx & 0x7FFF_FFFF == 0 || fx & 0x7FFF_FFFF == 0x7F80_0000 {
                fx
            } else {
                fx & 0x807F_FFFF | 0x3F00_0000
            }
        }),
        RcpF => nan_or(&[fx], &|| out(1.0 / p)),
        SqrtF => nan_or(&[fx], &|| out(p.sqrt())),
        RsqF => nan_or(&[fx], &|| {
            let s = out(p.sqrt());
            if is_nan(s) {
                CANONICAL_NAN
            } else {
                out(1.0 / f(s))
            }
        }),
        DivScaleF => {
            let (en, ed) = (fz >> 23 & 0xFF, fy >> 23 & 0xFF);
            let (az, ay) = (fz & 0x7FFF_FFFF, fy & 0x7FFF_FFFF);
            // |n| < 2^-126 · |d| exactly, NaN and inf on their exponent field.
            let tiny = ((en + 126) << 23 | (az & 0x7F_FFFF)) < ay;
            let big_d = ay > 0x7E80_0000;
            let (d, flag) = if ay == 0 || az == 0 {
                (CANONICAL_NAN, false)
            } else if en >= ed + 96 {
                (if fx == fy { ldexp(fx, 64) } else { fx }, true)
            } else if big_d && tiny {
                (if fx == fy { ldexp(fx, -64) } else { fx }, true)
            } else if big_d {
                (ldexp(fx, -64), false)
            } else if tiny {
                (if fx == fz { ldexp(fx, 64) } else { fx }, true)
            } else if en <= 48 {
                (ldexp(fx, 64), false)
            } else {
                (fx, false)
            };
            return (output_modifiers(d, mods), flag);
        }
        DivFmasF => {
            let special = [fx, fy, fz].iter().any(|&v| v & 0x7F80_0000 == 0x7F80_0000);
            let fma = nan_or(&[fx, fy, fz], &|| out(p.mul_add(q, f(fz))));
            if !m_bit || special || exact_zero(p, q, f(fz)) {
                fma
            } else {
                let k = if fz >> 23 & 0xFF > 127 { 64 } else { -64 };
                scaled_fma(p, q, f(fz), k)
            }
        }
        DivFixupF => {
            let (az, ay) = (fz & 0x7FFF_FFFF, fy & 0x7FFF_FFFF);
            let so = (fy ^ fz) & 0x8000_0000;
            if is_nan(fz) {
                quiet(fz)
            } else if is_nan(fy) {
                quiet(fy)
            } else if (ay == 0 && az == 0) || (ay == 0x7F80_0000 && az == 0x7F80_0000) {
                0xFFC0_0000
            } else if ay == 0 || az == 0x7F80_0000 {
                so | 0x7F80_0000
            } else if ay == 0x7F80_0000 || az == 0 {
                so
            } else if ((az >> 23) as i32) - ((ay >> 23) as i32) < -150 {
                so
            } else if is_nan(fx) {
                so | 0x7F80_0000
            } else {
                so | (fx & 0x7FFF_FFFF)
            }
        }
        other => panic!("{other:?} is not an f32 operation of the reference"),
    };
    (output_modifiers(result, mods), false)
}

/// `v_ldexp_f32` of a flushed value: NaN quieted, ±0 and ±inf unchanged, one rounding (the
/// product is exact in f64) and the flush.
fn ldexp(x: u32, e: i32) -> u32 {
    if is_nan(x) {
        quiet(x)
    } else {
        out((f(x) as f64 * 2f64.powi(e)) as f32)
    }
}

/// a · b + c is exactly zero (the f64 product of two f32 is exact; TwoSum's error then too).
fn exact_zero(a: f32, b: f32, c: f32) -> bool {
    let p = a as f64 * b as f64;
    p + c as f64 == 0.0 && two_sum_error(p, c as f64) == 0.0
}

fn two_sum_error(x: f64, y: f64) -> f64 {
    let s = x + y;
    let yy = s - x;
    (x - (s - yy)) + (y - yy)
}

/// round(2^k · (a · b + c)) to f32, once: the product is exact in f64 and s + e (TwoSum) is the
/// exact sum. Rounding s alone is right unless s is exactly halfway between two f32 values
/// (at the result's precision, subnormal included), where the sign of e decides.
fn scaled_fma(a: f32, b: f32, c: f32, k: i32) -> u32 {
    let p = a as f64 * b as f64;
    let s = p + c as f64;
    let e = two_sum_error(p, c as f64);
    let scale = 2f64.powi(k);
    let v = s * scale;
    let r = v as f32;
    if e != 0.0 && r.is_finite() {
        // Neighbour of r on v's other side: if v is their midpoint, move v by e's sign.
        let other = if (r as f64) < v {
            f32::from_bits(if r.is_sign_negative() {
                r.to_bits() - 1
            } else {
                r.to_bits() + 1
            })
        } else {
            f32::from_bits(if r.is_sign_negative() {
                r.to_bits() + 1
            } else {
                r.to_bits() - 1
            })
        };
        if ((r as f64) + (other as f64)) / 2.0 == v {
            let nudged = if e > 0.0 { next_up(v) } else { next_down(v) };
            return out(nudged as f32);
        }
    }
    out(r)
}

fn next_up(v: f64) -> f64 {
    if v >= 0.0 {
        f64::from_bits(v.to_bits() + 1)
    } else {
        f64::from_bits(v.to_bits() - 1)
    }
}

fn next_down(v: f64) -> f64 {
    -next_up(-v)
}

/// omod (r · k rounded and flushed; a NaN stays the same NaN), then clamp.
fn output_modifiers(r: u32, mods: Mods) -> u32 {
    let r = if is_nan(r) {
        r
    } else {
        match mods.omod {
            1 => out(f(r) * 2.0),
            2 => out(f(r) * 4.0),
            3 => out(f(r) * 0.5),
            _ => r,
        }
    };
    if !mods.clamp {
        r
    } else if is_nan(r) || r & 0x8000_0000 != 0 {
        0
    } else if f(r) > 1.0 {
        0x3F80_0000
    } else {
        r
    }
}
