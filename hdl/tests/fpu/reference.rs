//! The f32 contract (docs/float.md) written from its text with the host's IEEE binary32
//! arithmetic (round to nearest even, gradual underflow) plus the contract's flush, NaN,
//! omod and clamp rules. Independent of the RTL: no rounding, alignment or normalisation of
//! its own; each operation is one host operation (or the host's fused `mul_add`), except the
//! transcendentals, whose contract is a fixed-point algorithm: they are that text in 128-bit
//! integers (the RTL's blocks work in 32-bit pieces and signed values as magnitudes).

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
            // |n| < 2^-126 · |d| exactly and |d| > 2^126, both for finite operands only: the
            // manuals' 1/d and n/d are NaN, 0 or inf for a NaN or inf operand, never denormal.
            let finite = |v: u32| v < 0x7F80_0000;
            let tiny = finite(ay) && finite(az) && ((en + 126) << 23 | (az & 0x7F_FFFF)) < ay;
            let big_d = finite(ay) && ay > 0x7E80_0000;
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
        ExpF => exp2(fx),
        LogF => log2(fx),
        SinF => sin_cos(fx, false),
        CosF => sin_cos(fx, true),
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

// The transcendentals: the contract's fixed-point algorithms in 128-bit integers, as its
// text states them, with its `to_f32` (round the top 24 bits, zero below 2^-126).

/// `to_f32(sign, mag, F)`: mag · 2^-F rounded once to binary32 (RNE), the output flush.
fn to_f32(negative: bool, mag: u128, frac: i32) -> u32 {
    if mag == 0 {
        return 0;
    }
    let mut b = 127 - mag.leading_zeros() as i32;
    let mut top = if b > 23 {
        let drop = (b - 23) as u32;
        let kept = mag >> drop;
        let rest = mag & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    } else {
        mag << (23 - b) as u32
    };
    if top == 1 << 24 {
        top >>= 1;
        b += 1;
    }
    let e = b - frac + 127;
    let sign = if negative { 0x8000_0000 } else { 0 };
    if e >= 255 {
        sign | 0x7F80_0000
    } else if e <= 0 {
        sign
    } else {
        sign | (e as u32) << 23 | (top as u32 & 0x7F_FFFF)
    }
}

const EXP_T: [i128; 64] = [
    0x80000000, 0x8164d1f4, 0x82cd8699, 0x843a28c4, 0x85aac368, 0x871f6197, 0x88980e81, 0x8a14d575,
    0x8b95c1e4, 0x8d1adf5b, 0x8ea4398b, 0x9031dc43, 0x91c3d374, 0x935a2b2f, 0x94f4efa9, 0x96942d37,
    0x9837f052, 0x99e04593, 0x9b8d39ba, 0x9d3ed9a7, 0x9ef53261, 0xa0b05110, 0xa2704303, 0xa43515ae,
    0xa5fed6aa, 0xa7cd93b5, 0xa9a15ab5, 0xab7a39b6, 0xad583eea, 0xaf3b78ad, 0xb123f582, 0xb311c413,
    0xb504f334, 0xb6fd91e3, 0xb8fbaf47, 0xbaff5ab2, 0xbd08a39f, 0xbf1799b6, 0xc12c4cca, 0xc346ccda,
    0xc5672a11, 0xc78d74c9, 0xc9b9bd86, 0xcbec14ff, 0xce248c15, 0xd06333db, 0xd2a81d92, 0xd4f35aac,
    0xd744fccb, 0xd99d15c2, 0xdbfbb798, 0xde60f482, 0xe0ccdeec, 0xe33f8973, 0xe5b906e7, 0xe8396a50,
    0xeac0c6e8, 0xed4f301f, 0xefe4b99c, 0xf281773c, 0xf5257d15, 0xf7d0df73, 0xfa83b2db, 0xfd3e0c0d,
];

const LOG_R: [i128; 48] = [
    0x151d07eae,
    0x14afd6a05,
    0x1446f8656,
    0x13e22cbce,
    0x138138138,
    0x1323e34a3,
    0x12c9fb4d8,
    0x127350b88,
    0x121fb7812,
    0x11cf06ada,
    0x118118118,
    0x1135c8113,
    0x10ecf56be,
    0x10a6810a7,
    0x10624dd2f,
    0x100000000,
    0x100000000,
    0xfa232cf2,
    0xf6603d98,
    0xf2b9d648,
    0xef2eb720,
    0xebbdb2a6,
    0xe865ac7b,
    0xe525982b,
    0xe1fc780e,
    0xdee95c4d,
    0xdbeb61ef,
    0xd901b203,
    0xd62b80d6,
    0xd3680d37,
    0xd0b69fcc,
    0xce168a77,
    0xcb8727c0,
    0xc907da4f,
    0xc6980c6a,
    0xc4372f85,
    0xc1e4bbd6,
    0xbfa02fe8,
    0xbd691047,
    0xbb3ee722,
    0xb92143fa,
    0xb70fbb5a,
    0xb509e68b,
    0xb30f6353,
    0xb11fd3b8,
    0xaf3addc7,
    0xad602b58,
    0xab8f69e3,
];

const LOG_L: [i128; 48] = [
    -0x666c1caa272ae9,
    -0x5ee27c0b0b9d7d,
    -0x577f73c786c858,
    -0x5041805eb922be,
    -0x492734ac38206a,
    -0x422f3836b720a6,
    -0x3b5845a7b16e5f,
    -0x34a1296a833b09,
    -0x2e08c06366d9cd,
    -0x278df6c9e5ccc1,
    -0x212fc719b4f74b,
    -0x1aed391a3a54ef,
    -0x14c560fdd86a8a,
    -0xeb75e903ff83f,
    -0x8c25c723d32e8,
    0x0,
    0x0,
    0x88e68eb02c9c0,
    0xe26fd5c9c6af7,
    0x13aa2fdd3f070a,
    0x1918a16de9de3d,
    0x1e72ec111d8b43,
    0x23b9a32f65e3db,
    0x28ed53f2f9814e,
    0x2e0e85aa11f4df,
    0x331dba0e5e2f73,
    0x381b6d9b64b40c,
    0x3d0817cf471188,
    0x41e42b6f0bc54e,
    0x46b016c96994f2,
    0x4b6c43f0e5a044,
    0x501918ecae6e53,
    0x54b6f7f1eb0509,
    0x59463f90bfc1cc,
    0x5dc74ae90f52d4,
    0x623a71cc32cad7,
    0x66a008e3ae928c,
    0x6af861e613926b,
    0x6f43cba7acae0f,
    0x73829248367d0a,
    0x77b4ff51767e44,
    0x7bdb59ccd77863,
    0x7ff5e669432191,
    0x8404e793063fd4,
    0x88089d8ab55c9b,
    0x8c01467a8863f4,
    0x8fef1e988b1e79,
    0x93d2602b220862,
];

const SIN_T: [i128; 129] = [
    0x0, 0x1921d20, 0x3242abf, 0x4b6195d, 0x647d97c, 0x7d95b9e, 0x96a9049, 0xafb6805, 0xc8bd35e,
    0xe1bc2e4, 0xfab272b, 0x1139f0cf, 0x12c8106f, 0x145576b1, 0x15e21445, 0x176dd9de, 0x18f8b83c,
    0x1a82a026, 0x1c0b826a, 0x1d934fe5, 0x1f19f97b, 0x209f701c, 0x2223a4c5, 0x23a6887f, 0x25280c5e,
    0x26a82186, 0x2826b928, 0x29a3c485, 0x2b1f34eb, 0x2c98fbba, 0x2e110a62, 0x2f875262, 0x30fbc54d,
    0x326e54c7, 0x33def287, 0x354d9057, 0x36ba2014, 0x382493b0, 0x398cdd32, 0x3af2eeb7, 0x3c56ba70,
    0x3db832a6, 0x3f1749b8, 0x4073f21d, 0x41ce1e65, 0x4325c135, 0x447acd50, 0x45cd358f, 0x471cece7,
    0x4869e665, 0x49b41533, 0x4afb6c98, 0x4c3fdff4, 0x4d8162c4, 0x4ebfe8a5, 0x4ffb654d, 0x5133cc94,
    0x5269126e, 0x539b2af0, 0x54ca0a4b, 0x55f5a4d2, 0x571deefa, 0x5842dd54, 0x59646498, 0x5a82799a,
    0x5b9d1154, 0x5cb420e0, 0x5dc79d7c, 0x5ed77c8a, 0x5fe3b38d, 0x60ec3830, 0x61f1003f, 0x62f201ac,
    0x63ef3290, 0x64e88926, 0x65ddfbd3, 0x66cf8120, 0x67bd0fbd, 0x68a69e81, 0x698c246c, 0x6a6d98a4,
    0x6b4af279, 0x6c242960, 0x6cf934fc, 0x6dca0d14, 0x6e96a99d, 0x6f5f02b2, 0x7023109a, 0x70e2cbc6,
    0x719e2cd2, 0x72552c85, 0x7307c3d0, 0x73b5ebd1, 0x745f9dd1, 0x7504d345, 0x75a585cf, 0x7641af3d,
    0x76d94989, 0x776c4edb, 0x77fab989, 0x78848414, 0x7909a92d, 0x798a23b1, 0x7a05eead, 0x7a7d055b,
    0x7aef6323, 0x7b5d039e, 0x7bc5e290, 0x7c29fbee, 0x7c894bde, 0x7ce3ceb2, 0x7d3980ec, 0x7d8a5f40,
    0x7dd6668f, 0x7e1d93ea, 0x7e5fe493, 0x7e9d55fc, 0x7ed5e5c6, 0x7f0991c4, 0x7f3857f6, 0x7f62368f,
    0x7f872bf3, 0x7fa736b4, 0x7fc25596, 0x7fd8878e, 0x7fe9cbc0, 0x7ff62182, 0x7ffd885a, 0x80000000,
];

fn sig_exp(a: u32) -> (i128, i32) {
    (
        i128::from(a & 0x7F_FFFF | 0x80_0000),
        (a >> 23 & 0xFF) as i32,
    )
}

/// x · 2^32 for the exponent field e (1..150): floor and whether bits were dropped.
fn fixed32(s: i128, e: i32) -> (i128, bool) {
    if e >= 118 {
        (s << (e - 118), false)
    } else {
        let k = 118 - e;
        (s >> k, s & ((1 << k) - 1) != 0)
    }
}

pub fn exp2(a: u32) -> u32 {
    let (s, e) = sig_exp(a);
    let neg = a & 0x8000_0000 != 0;
    if is_nan(a) {
        return quiet(a);
    }
    if e == 0 {
        return 0x3F80_0000;
    }
    if e >= 135 {
        return if neg { 0 } else { 0x7F80_0000 };
    }
    let (big, sticky) = fixed32(s, e);
    let x = if neg {
        -(big + i128::from(sticky))
    } else {
        big
    };
    let i = x >> 32;
    let f = x & 0xFFFF_FFFF;
    let (j, r) = (f >> 26, f & 0x3FF_FFFF);
    let mut p = 0x0E35_846C;
    p = 0x3D7F_7BFF + (p * r >> 32);
    p = 0xB172_17F8 + (p * r >> 32);
    p = p * r >> 32;
    let t = EXP_T[j as usize];
    let m = t + (t * p >> 32);
    to_f32(false, m as u128, 31 - i as i32)
}

pub fn log2(a: u32) -> u32 {
    let (s, e) = sig_exp(a);
    if is_nan(a) {
        return quiet(a);
    }
    if e == 0 {
        return 0xFF80_0000;
    }
    if a & 0x8000_0000 != 0 {
        return CANONICAL_NAN;
    }
    if a == 0x7F80_0000 {
        return a;
    }
    let (m, big_e) = if s >= 0xC0_0000 {
        (s, i128::from(e - 126))
    } else {
        (s << 1, i128::from(e - 127))
    };
    let j = ((m >> 18) - 48) as usize;
    let u = m * LOG_R[j] - (1 << 56);
    let ut = u >> 24;
    let mut q = 0x49DD_B144;
    for c in [-0x5C55_1D95, 0x7B1C_2771, -0xB8AA_3B29, 0x1_7154_7653] {
        q = c + (q * ut >> 32);
    }
    let p = ((u >> 18) * (q >> 2)) >> 12;
    let t = big_e * (1 << 56) + LOG_L[j] + p;
    to_f32(t < 0, t.unsigned_abs(), 56)
}

pub fn sin_cos(a: u32, cos: bool) -> u32 {
    let (s, e) = sig_exp(a);
    if is_nan(a) {
        return quiet(a);
    }
    if a & 0x7FFF_FFFF == 0x7F80_0000 {
        return CANONICAL_NAN;
    }
    let (big, sticky) = if e == 0 || e >= 150 {
        (0, false)
    } else {
        let (v, st) = fixed32(s, e);
        (v & 0xFFFF_FFFF, st)
    };
    let mut f = if a & 0x8000_0000 != 0 {
        ((1 << 32) - big - i128::from(sticky)) & 0xFFFF_FFFF
    } else {
        big
    };
    if cos {
        f = (f + (1 << 30)) & 0xFFFF_FFFF;
    }
    let (q, t) = (f >> 30, f & 0x3FFF_FFFF);
    let s = if q & 1 == 1 { (1 << 30) - t } else { t };
    let (i, h) = ((s >> 23) as usize, s & 0x7F_FFFF);
    let hh = h * 0x3_243F_6A89 >> 32;
    let h2 = hh * hh >> 31;
    let ch = (1 << 31) - (h2 >> 1);
    let h3 = h2 * hh >> 31;
    let sh = hh - (h3 * 0x2AAA_AAAB >> 32);
    let r = ((SIN_T[i] * ch + SIN_T[128 - i] * sh) >> 31).min(1 << 31);
    to_f32(q >= 2, r as u128, 31)
}
