//! The golden model's single-precision arithmetic: pws's f32 contract (docs/float.md) on raw
//! bit patterns, as a soft-float of its own. Operands are unpacked to integer significands,
//! results computed exactly in wide integers (or with a sticky bit below 60+ extra bits of
//! precision) and rounded once to nearest-even; f32 denormals are flushed on input and on output
//! (`.amdhsa_float_denorm_mode_32 0`). No host floating point is used for any result, and no
//! code is shared with the RTL's datapath: the two meet only in the written contract.
//!
//! Every function takes and returns bit patterns (`u32`) *after* the VOP3 input modifiers,
//! which are bit operations the executor applies; the output modifiers (omod, clamp) are
//! [`omod`] and [`clamp`].

/// The canonical quiet NaN an invalid operation creates.
pub const QNAN: u32 = 0x7FC0_0000;
/// The NaN `v_div_fixup_f32` returns for 0/0 and inf/inf (the GCN3 manual's value).
pub const DIV_QNAN: u32 = 0xFFC0_0000;
const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7F80_0000;
const ONE: u32 = 0x3F80_0000;

fn exp_field(x: u32) -> u32 {
    x >> 23 & 0xFF
}

pub fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > INF
}

fn is_inf(x: u32) -> bool {
    x & 0x7FFF_FFFF == INF
}

fn is_zero(x: u32) -> bool {
    x & 0x7FFF_FFFF == 0
}

fn quiet(x: u32) -> u32 {
    x | 0x0040_0000
}

/// Input flush: a denormal becomes zero of its sign.
pub fn flush(x: u32) -> u32 {
    if exp_field(x) == 0 {
        x & SIGN
    } else {
        x
    }
}

/// A finite nonzero flushed value as (significand with the hidden bit, exponent of its lsb).
fn unpack(x: u32) -> (u128, i32) {
    (
        u128::from(x & 0x7F_FFFF | 0x80_0000),
        exp_field(x) as i32 - 150,
    )
}

/// Rounds `sig * 2^exp` (sig may end in a sticky bit: callers keep at least two bits of
/// precision below the rounding point) to binary32 with RNE and gradual underflow, then
/// flushes a subnormal result to zero of the same sign; overflow gives infinity.
fn round_pack(negative: bool, sig: u128, exp: i32) -> u32 {
    let sign = if negative { SIGN } else { 0 };
    if sig == 0 {
        return sign;
    }
    let msb = 127 - sig.leading_zeros() as i32;
    // Bits to drop: keep 24 significant bits, but none below 2^-149.
    let keep_from = (msb + exp - 23).max(-149);
    let shift = keep_from - exp;
    let mut q = if shift <= 0 {
        sig << (-shift) as u32
    } else if shift >= 128 {
        // Everything is below the rounding point and below half of it.
        0
    } else {
        let q = sig >> shift as u32;
        let rem = sig & ((1u128 << shift as u32) - 1);
        let half = 1u128 << (shift - 1) as u32;
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let mut e = keep_from;
    if q >= 1 << 24 {
        q >>= 1;
        e += 1;
    }
    if q < 1 << 23 {
        // Subnormal (or zero) after rounding: output flush.
        return sign;
    }
    let biased = e + 23 + 127;
    if biased >= 255 {
        return sign | INF;
    }
    sign | (biased as u32) << 23 | (q as u32 & 0x7F_FFFF)
}

/// First NaN among `xs` (in operand order), quieted.
fn nan_input(xs: &[u32]) -> Option<u32> {
    xs.iter().find(|&&x| is_nan(x)).map(|&x| quiet(x))
}

/// Exact `(-1)^s1 m1 2^e1 + (-1)^s2 m2 2^e2` (m < 2^50), rounded once. `zero_sign` is the
/// sign of an exact zero sum (IEEE RNE: negative only when both terms are negative zeros,
/// which the callers decide).
fn add_terms(t1: (bool, u128, i32), t2: (bool, u128, i32), zero_sign: bool) -> u32 {
    let (mut d, mut o) = (t1, t2);
    let top = |t: (bool, u128, i32)| {
        if t.1 == 0 {
            i32::MIN
        } else {
            t.2 + 128 - t.1.leading_zeros() as i32
        }
    };
    if top(o) > top(d) {
        std::mem::swap(&mut d, &mut o);
    }
    if d.1 == 0 {
        return if zero_sign { SIGN } else { 0 };
    }
    // The dominant term fills bits up to 110, which leaves 60 bits below any 50-bit one.
    let base = top(d) - 110;
    let dm = d.1 << (d.2 - base) as u32;
    let om = if o.1 == 0 {
        0
    } else if o.2 >= base {
        o.1 << (o.2 - base) as u32
    } else {
        let s = (base - o.2) as u32;
        if s >= 120 {
            1
        } else {
            o.1 >> s | u128::from(o.1 & ((1u128 << s) - 1) != 0)
        }
    };
    if d.0 == o.0 {
        round_pack(d.0, dm + om, base)
    } else if dm >= om {
        if dm == om {
            return if zero_sign { SIGN } else { 0 };
        }
        round_pack(d.0, dm - om, base)
    } else {
        round_pack(o.0, om - dm, base)
    }
}

fn term(x: u32) -> (bool, u128, i32) {
    if is_zero(x) {
        (x & SIGN != 0, 0, 0)
    } else {
        let (m, e) = unpack(x);
        (x & SIGN != 0, m, e)
    }
}

/// `v_add_f32`.
pub fn add(a: u32, b: u32) -> u32 {
    let (a, b) = (flush(a), flush(b));
    if let Some(n) = nan_input(&[a, b]) {
        return n;
    }
    match (is_inf(a), is_inf(b)) {
        (true, true) if (a ^ b) & SIGN != 0 => return QNAN,
        (true, _) => return a,
        (_, true) => return b,
        _ => {}
    }
    add_terms(term(a), term(b), a & b & SIGN != 0)
}

/// `v_sub_f32` (a - b).
pub fn sub(a: u32, b: u32) -> u32 {
    // Negation is a sign-bit operation, also on NaNs: b's NaN payload is kept.
    if is_nan(flush(b)) && !is_nan(flush(a)) {
        return quiet(b);
    }
    add(a, b ^ SIGN)
}

/// `v_fma_f32`: a * b + c with one rounding.
pub fn fma(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (flush(a), flush(b), flush(c));
    if let Some(n) = nan_input(&[a, b, c]) {
        return n;
    }
    let ps = (a ^ b) & SIGN;
    let product_inf = is_inf(a) || is_inf(b);
    if product_inf && (is_zero(a) || is_zero(b)) {
        return QNAN;
    }
    if product_inf {
        if is_inf(c) && c & SIGN != ps {
            return QNAN;
        }
        return ps | INF;
    }
    if is_inf(c) {
        return c;
    }
    let p = if is_zero(a) || is_zero(b) {
        (ps != 0, 0, 0)
    } else {
        let ((ma, ea), (mb, eb)) = (unpack(a), unpack(b));
        (ps != 0, ma * mb, ea + eb)
    };
    add_terms(p, term(c), ps != 0 && c & SIGN != 0)
}

/// `v_mul_f32`.
pub fn mul(a: u32, b: u32) -> u32 {
    let (a, b) = (flush(a), flush(b));
    if let Some(n) = nan_input(&[a, b]) {
        return n;
    }
    let s = (a ^ b) & SIGN;
    if is_inf(a) || is_inf(b) {
        return if is_zero(a) || is_zero(b) {
            QNAN
        } else {
            s | INF
        };
    }
    if is_zero(a) || is_zero(b) {
        return s;
    }
    let ((ma, ea), (mb, eb)) = (unpack(a), unpack(b));
    round_pack(s != 0, ma * mb, ea + eb)
}

/// `v_mad_f32` / `v_mac_f32` (and the madak/madmk forms): unfused, round(round(a*b) + c).
pub fn mad(a: u32, b: u32, c: u32) -> u32 {
    if let Some(n) = nan_input(&[flush(a), flush(b), flush(c)]) {
        return n;
    }
    add(mul(a, b), c)
}

/// The IEEE order of two non-NaN flushed values, -0 below +0.
fn total_less(a: u32, b: u32) -> bool {
    let key = |x: u32| {
        if x & SIGN != 0 {
            -i64::from(x & 0x7FFF_FFFF) - 1
        } else {
            i64::from(x)
        }
    };
    key(a) < key(b)
}

/// `v_min_f32` (IEEE minNum, ieee_mode 1).
pub fn min(a: u32, b: u32) -> u32 {
    let (a, b) = (flush(a), flush(b));
    match (is_nan(a), is_nan(b)) {
        (true, true) => quiet(a),
        (true, false) => b,
        (false, true) => a,
        _ if total_less(b, a) => b,
        _ => a,
    }
}

/// `v_max_f32`.
pub fn max(a: u32, b: u32) -> u32 {
    let (a, b) = (flush(a), flush(b));
    match (is_nan(a), is_nan(b)) {
        (true, true) => quiet(a),
        (true, false) => b,
        (false, true) => a,
        _ if total_less(a, b) => b,
        _ => a,
    }
}

/// `v_med3_f32`: with a NaN operand min3, else the median (-0 < +0).
pub fn med3(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (flush(a), flush(b), flush(c));
    if is_nan(a) || is_nan(b) || is_nan(c) {
        return min(min(a, b), c);
    }
    max(min(a, b), min(max(a, b), c))
}

/// The f32 compare predicates, in VOPC opcode order (0x40 + index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    Tru,
}

impl Cmp {
    /// The predicates in opcode order: `v_cmp_*_f32` is 0x40 + index, `v_cmpx_*` 0x50 + index.
    pub const ALL: [Cmp; 16] = [
        Cmp::F,
        Cmp::Lt,
        Cmp::Eq,
        Cmp::Le,
        Cmp::Gt,
        Cmp::Lg,
        Cmp::Ge,
        Cmp::O,
        Cmp::U,
        Cmp::Nge,
        Cmp::Nlg,
        Cmp::Ngt,
        Cmp::Nle,
        Cmp::Neq,
        Cmp::Nlt,
        Cmp::Tru,
    ];
}

/// `v_cmp_*_f32`: IEEE meaning; -0 == +0; the n-forms and `u` are true on unordered.
pub fn compare(p: Cmp, a: u32, b: u32) -> bool {
    let (a, b) = (flush(a), flush(b));
    let unordered = is_nan(a) || is_nan(b);
    let (lt, eq, gt) = if unordered {
        (false, false, false)
    } else if is_zero(a) && is_zero(b) {
        (false, true, false)
    } else {
        (total_less(a, b), a == b, total_less(b, a))
    };
    match p {
        Cmp::F => false,
        Cmp::Lt => lt,
        Cmp::Eq => eq,
        Cmp::Le => lt || eq,
        Cmp::Gt => gt,
        Cmp::Lg => lt || gt,
        Cmp::Ge => gt || eq,
        Cmp::O => !unordered,
        Cmp::U => unordered,
        Cmp::Nge => !(gt || eq),
        Cmp::Nlg => !(lt || gt),
        Cmp::Ngt => !gt,
        Cmp::Nle => !(lt || eq),
        Cmp::Neq => !eq,
        Cmp::Nlt => !lt,
        Cmp::Tru => true,
    }
}

/// `v_cmp_class_f32`: tests the unflushed value against the class bits of `mask`.
pub fn class(a: u32, mask: u32) -> bool {
    let neg = a & SIGN != 0;
    let bit = if is_nan(a) {
        if a & 0x0040_0000 != 0 {
            1
        } else {
            0
        }
    } else if is_inf(a) {
        if neg {
            2
        } else {
            9
        }
    } else if exp_field(a) != 0 {
        if neg {
            3
        } else {
            8
        }
    } else if a & 0x7F_FFFF != 0 {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        5
    } else {
        6
    };
    mask >> bit & 1 == 1
}

/// `v_cvt_f32_i32`.
pub fn cvt_f32_i32(x: u32) -> u32 {
    let v = x as i32;
    round_pack(v < 0, u128::from(v.unsigned_abs()), 0)
}

/// `v_cvt_f32_u32`.
pub fn cvt_f32_u32(x: u32) -> u32 {
    round_pack(false, u128::from(x), 0)
}

/// The integer part of a flushed finite value, toward zero, as i64 (saturated to ±2^40).
fn trunc_int(x: u32) -> i64 {
    if is_zero(x) {
        return 0;
    }
    let (m, e) = unpack(x);
    let mag = if e >= 0 {
        if e > 16 {
            1 << 40
        } else {
            (m << e as u32) as i64
        }
    } else if e <= -24 {
        0
    } else {
        (m >> (-e) as u32) as i64
    };
    if x & SIGN != 0 {
        -mag
    } else {
        mag
    }
}

/// `v_cvt_i32_f32`: toward zero, saturating, NaN -> 0.
pub fn cvt_i32_f32(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return 0;
    }
    if is_inf(x) {
        return if x & SIGN != 0 {
            0x8000_0000
        } else {
            0x7FFF_FFFF
        };
    }
    trunc_int(x).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
}

/// `v_cvt_u32_f32`: toward zero, saturating, NaN -> 0.
pub fn cvt_u32_f32(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return 0;
    }
    if is_inf(x) {
        return if x & SIGN != 0 { 0 } else { u32::MAX };
    }
    trunc_int(x).clamp(0, i64::from(u32::MAX)) as u32
}

/// Rounds a flushed value to an integral value: `mode` 0 floor, 1 ceil, 2 trunc, 3 nearest
/// even. Exact; the sign of zero is kept (ceil(-0.5) = -0).
fn round_integral(x: u32, mode: u8) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return quiet(x);
    }
    if is_inf(x) || is_zero(x) {
        return x;
    }
    let (m, e) = unpack(x);
    if e >= 0 {
        return x;
    }
    let neg = x & SIGN != 0;
    let s = (-e) as u32;
    let (int, frac, unit) = if s >= 64 {
        (0u128, m, 1u128 << 63)
    } else {
        (m >> s, m & ((1u128 << s) - 1), 1u128 << s)
    };
    // `frac / unit` is the fraction below 1 (for s >= 64 it is a nonzero value below 1/2).
    let half_cmp = if s >= 64 {
        std::cmp::Ordering::Less
    } else {
        (2 * frac).cmp(&unit)
    };
    let up = frac != 0
        && match mode {
            0 => neg,
            1 => !neg,
            2 => false,
            _ => {
                half_cmp == std::cmp::Ordering::Greater
                    || (half_cmp == std::cmp::Ordering::Equal && int & 1 == 1)
            }
        };
    let mag = int + u128::from(up);
    if mag == 0 {
        return x & SIGN;
    }
    round_pack(neg, mag, 0)
}

pub fn floor(x: u32) -> u32 {
    round_integral(x, 0)
}

pub fn ceil(x: u32) -> u32 {
    round_integral(x, 1)
}

pub fn trunc(x: u32) -> u32 {
    round_integral(x, 2)
}

pub fn rndne(x: u32) -> u32 {
    round_integral(x, 3)
}

/// `v_cvt_flr_i32_f32`.
pub fn cvt_flr_i32(x: u32) -> u32 {
    cvt_i32_f32(floor(x))
}

/// `v_cvt_rpi_i32_f32`: cvt_i32(floor(x + 0.5)) with x + 0.5 exact.
pub fn cvt_rpi_i32(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) || is_inf(x) {
        return cvt_i32_f32(x);
    }
    if is_zero(x) {
        return 0;
    }
    // floor(x + 1/2) on the exact value: in units of 2^-150 it is an integer sum.
    let (m, e) = unpack(x);
    let v: i128 = if x & SIGN != 0 {
        -(m as i128)
    } else {
        m as i128
    };
    if e >= 0 {
        return cvt_i32_f32(x);
    }
    let s = (-e) as u32;
    if s >= 100 {
        return 0;
    }
    let sum = v + (1i128 << (s - 1));
    let fl = sum >> s;
    fl.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32 as u32
}

/// `v_fract_f32`: min(x - floor(x), 0x3F7FFFFF); infinities give the canonical NaN.
pub fn fract(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return quiet(x);
    }
    if is_inf(x) {
        return QNAN;
    }
    min(sub(x, floor(x)), 0x3F7F_FFFF)
}

/// `v_cvt_f32_ubyteN`.
pub fn cvt_f32_ubyte(x: u32, n: u32) -> u32 {
    cvt_f32_u32(x >> (8 * n) & 0xFF)
}

/// `v_ldexp_f32`: a * 2^n, one rounding.
pub fn ldexp(a: u32, n: u32) -> u32 {
    let a = flush(a);
    if is_nan(a) {
        return quiet(a);
    }
    if is_inf(a) || is_zero(a) {
        return a;
    }
    let (m, e) = unpack(a);
    let k = (n as i32).clamp(-400, 400);
    round_pack(a & SIGN != 0, m, e + k)
}

/// `v_frexp_mant_f32`: the significand in [0.5, 1) with a's sign.
pub fn frexp_mant(a: u32) -> u32 {
    let a = flush(a);
    if is_nan(a) {
        return quiet(a);
    }
    if is_inf(a) || is_zero(a) {
        return a;
    }
    a & 0x807F_FFFF | 126 << 23
}

/// `v_frexp_exp_i32_f32`: e with a = mant * 2^e; 0 for zeros, infinities and NaN.
pub fn frexp_exp(a: u32) -> u32 {
    let a = flush(a);
    if is_nan(a) || is_inf(a) || is_zero(a) {
        return 0;
    }
    (exp_field(a) as i32 - 126) as u32
}

/// `v_rcp_f32` and `v_rcp_iflag_f32`: correctly rounded 1/x. The iflag form differs only in
/// the exception it would signal (integer divide by zero), which GCN3 programs cannot observe.
pub fn rcp(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return quiet(x);
    }
    if is_inf(x) {
        return x & SIGN;
    }
    if is_zero(x) {
        return x & SIGN | INF;
    }
    let (m, e) = unpack(x);
    // 2^90 / m has at least 66 significant bits; the remainder is the sticky bit.
    let q = (1u128 << 90) / m;
    let r = (1u128 << 90) % m;
    round_pack(x & SIGN != 0, q << 1 | u128::from(r != 0), -90 - e - 1)
}

/// `v_sqrt_f32`: correctly rounded.
pub fn sqrt(x: u32) -> u32 {
    let x = flush(x);
    if is_nan(x) {
        return quiet(x);
    }
    if is_zero(x) {
        return x;
    }
    if x & SIGN != 0 {
        return QNAN;
    }
    if is_inf(x) {
        return x;
    }
    let (m, e) = unpack(x);
    // Make the exponent even and the radicand wide: sqrt(m 2^e) = sqrt(m 2^(e-k)) 2^(k/2).
    let k = if e.rem_euclid(2) == 0 { 100 } else { 101 };
    let n = m << k as u32;
    let r = isqrt(n);
    let sticky = u128::from(r * r != n);
    round_pack(false, r << 1 | sticky, (e - k) / 2 - 1)
}

fn isqrt(n: u128) -> u128 {
    // Newton's method from above on integers.
    let mut x = 1u128 << ((128 - n.leading_zeros()) / 2 + 1);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// `v_rsq_f32`: rcp(sqrt(x)), both rounded.
pub fn rsq(x: u32) -> u32 {
    let x = flush(x);
    if is_zero(x) {
        return x & SIGN | INF;
    }
    rcp(sqrt(x))
}

/// The value `mag * 2^-frac` rounded to f32 (the transcendentals' last step, `to_f32`).
fn to_f32(negative: bool, mag: u128, frac: i32) -> u32 {
    if mag == 0 {
        return 0;
    }
    round_pack(negative, mag, -frac)
}

const EXP_T: [u64; 64] = [
    0x80000000, 0x8164d1f4, 0x82cd8699, 0x843a28c4, 0x85aac368, 0x871f6197, 0x88980e81, 0x8a14d575,
    0x8b95c1e4, 0x8d1adf5b, 0x8ea4398b, 0x9031dc43, 0x91c3d374, 0x935a2b2f, 0x94f4efa9, 0x96942d37,
    0x9837f052, 0x99e04593, 0x9b8d39ba, 0x9d3ed9a7, 0x9ef53261, 0xa0b05110, 0xa2704303, 0xa43515ae,
    0xa5fed6aa, 0xa7cd93b5, 0xa9a15ab5, 0xab7a39b6, 0xad583eea, 0xaf3b78ad, 0xb123f582, 0xb311c413,
    0xb504f334, 0xb6fd91e3, 0xb8fbaf47, 0xbaff5ab2, 0xbd08a39f, 0xbf1799b6, 0xc12c4cca, 0xc346ccda,
    0xc5672a11, 0xc78d74c9, 0xc9b9bd86, 0xcbec14ff, 0xce248c15, 0xd06333db, 0xd2a81d92, 0xd4f35aac,
    0xd744fccb, 0xd99d15c2, 0xdbfbb798, 0xde60f482, 0xe0ccdeec, 0xe33f8973, 0xe5b906e7, 0xe8396a50,
    0xeac0c6e8, 0xed4f301f, 0xefe4b99c, 0xf281773c, 0xf5257d15, 0xf7d0df73, 0xfa83b2db, 0xfd3e0c0d,
];

/// `v_exp_f32` (2^x), the contract's fixed-point algorithm.
pub fn exp2(a: u32) -> u32 {
    let a = flush(a);
    if is_nan(a) {
        return quiet(a);
    }
    let neg = a & SIGN != 0;
    let e = exp_field(a) as i32;
    if e == 0 {
        return ONE;
    }
    if e >= 135 {
        return if neg { 0 } else { INF };
    }
    let s = u64::from(a & 0x7F_FFFF | 0x80_0000);
    let (big, sticky) = if e >= 118 {
        (s << (e - 118), false)
    } else {
        let sh = (118 - e) as u32;
        if sh >= 64 {
            (0, true)
        } else {
            (s >> sh, s & ((1u64 << sh) - 1) != 0)
        }
    };
    let x: i64 = if neg {
        -(big as i64 + i64::from(sticky))
    } else {
        big as i64
    };
    let i = x >> 32;
    let f = (x & 0xFFFF_FFFF) as u64;
    let j = (f >> 26) as usize;
    let r = f & 0x3FF_FFFF;
    let mut p: u64 = 0x0E35_846C;
    p = 0x3D7F_7BFF + (p * r >> 32);
    p = 0xB172_17F8 + (p * r >> 32);
    p = p * r >> 32;
    let t = EXP_T[j];
    let m = t + (t * p >> 32);
    to_f32(false, u128::from(m), 31 - i as i32)
}

const LOG_R: [u64; 48] = [
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
    0x0fa232cf2,
    0x0f6603d98,
    0x0f2b9d648,
    0x0ef2eb720,
    0x0ebbdb2a6,
    0x0e865ac7b,
    0x0e525982b,
    0x0e1fc780e,
    0x0dee95c4d,
    0x0dbeb61ef,
    0x0d901b203,
    0x0d62b80d6,
    0x0d3680d37,
    0x0d0b69fcc,
    0x0ce168a77,
    0x0cb8727c0,
    0x0c907da4f,
    0x0c6980c6a,
    0x0c4372f85,
    0x0c1e4bbd6,
    0x0bfa02fe8,
    0x0bd691047,
    0x0bb3ee722,
    0x0b92143fa,
    0x0b70fbb5a,
    0x0b509e68b,
    0x0b30f6353,
    0x0b11fd3b8,
    0x0af3addc7,
    0x0ad602b58,
    0x0ab8f69e3,
];

const LOG_L: [i64; 48] = [
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
    -0x0eb75e903ff83f,
    -0x08c25c723d32e8,
    0,
    0,
    0x0088e68eb02c9c0,
    0x00e26fd5c9c6af7,
    0x013aa2fdd3f070a,
    0x01918a16de9de3d,
    0x01e72ec111d8b43,
    0x023b9a32f65e3db,
    0x028ed53f2f9814e,
    0x02e0e85aa11f4df,
    0x0331dba0e5e2f73,
    0x0381b6d9b64b40c,
    0x03d0817cf471188,
    0x041e42b6f0bc54e,
    0x046b016c96994f2,
    0x04b6c43f0e5a044,
    0x0501918ecae6e53,
    0x054b6f7f1eb0509,
    0x059463f90bfc1cc,
    0x05dc74ae90f52d4,
    0x0623a71cc32cad7,
    0x066a008e3ae928c,
    0x06af861e613926b,
    0x06f43cba7acae0f,
    0x073829248367d0a,
    0x077b4ff51767e44,
    0x07bdb59ccd77863,
    0x07ff5e669432191,
    0x08404e793063fd4,
    0x088089d8ab55c9b,
    0x08c01467a8863f4,
    0x08fef1e988b1e79,
    0x093d2602b220862,
];

const LOG_Q: [i64; 5] = [
    0x1_7154_7653,
    -0xB8AA_3B29,
    0x7B1C_2771,
    -0x5C55_1D95,
    0x49DD_B144,
];

/// `v_log_f32` (log2 x), the contract's fixed-point algorithm.
pub fn log2(a: u32) -> u32 {
    let a = flush(a);
    if is_nan(a) {
        return quiet(a);
    }
    if is_zero(a) {
        return SIGN | INF;
    }
    if a & SIGN != 0 {
        return QNAN;
    }
    if is_inf(a) {
        return INF;
    }
    let s = u64::from(a & 0x7F_FFFF | 0x80_0000);
    let e = exp_field(a) as i64;
    let (m, big_e) = if s >= 0xC0_0000 {
        (s, e - 126)
    } else {
        (s << 1, e - 127)
    };
    let j = ((m >> 18) - 48) as usize;
    let u = (m * LOG_R[j]) as i64 - (1i64 << 56);
    let ut = u >> 24;
    let mut q = LOG_Q[4];
    for &c in LOG_Q[..4].iter().rev() {
        q = c + (q * ut >> 32);
    }
    let p = ((u >> 18) * (q >> 2)) >> 12;
    let t = i128::from(big_e) * (1i128 << 56) + i128::from(LOG_L[j]) + i128::from(p);
    if t == 0 {
        return 0;
    }
    to_f32(t < 0, t.unsigned_abs(), 56)
}

const SIN_T: [u64; 129] = [
    0x00000000, 0x01921d20, 0x03242abf, 0x04b6195d, 0x0647d97c, 0x07d95b9e, 0x096a9049, 0x0afb6805,
    0x0c8bd35e, 0x0e1bc2e4, 0x0fab272b, 0x1139f0cf, 0x12c8106f, 0x145576b1, 0x15e21445, 0x176dd9de,
    0x18f8b83c, 0x1a82a026, 0x1c0b826a, 0x1d934fe5, 0x1f19f97b, 0x209f701c, 0x2223a4c5, 0x23a6887f,
    0x25280c5e, 0x26a82186, 0x2826b928, 0x29a3c485, 0x2b1f34eb, 0x2c98fbba, 0x2e110a62, 0x2f875262,
    0x30fbc54d, 0x326e54c7, 0x33def287, 0x354d9057, 0x36ba2014, 0x382493b0, 0x398cdd32, 0x3af2eeb7,
    0x3c56ba70, 0x3db832a6, 0x3f1749b8, 0x4073f21d, 0x41ce1e65, 0x4325c135, 0x447acd50, 0x45cd358f,
    0x471cece7, 0x4869e665, 0x49b41533, 0x4afb6c98, 0x4c3fdff4, 0x4d8162c4, 0x4ebfe8a5, 0x4ffb654d,
    0x5133cc94, 0x5269126e, 0x539b2af0, 0x54ca0a4b, 0x55f5a4d2, 0x571deefa, 0x5842dd54, 0x59646498,
    0x5a82799a, 0x5b9d1154, 0x5cb420e0, 0x5dc79d7c, 0x5ed77c8a, 0x5fe3b38d, 0x60ec3830, 0x61f1003f,
    0x62f201ac, 0x63ef3290, 0x64e88926, 0x65ddfbd3, 0x66cf8120, 0x67bd0fbd, 0x68a69e81, 0x698c246c,
    0x6a6d98a4, 0x6b4af279, 0x6c242960, 0x6cf934fc, 0x6dca0d14, 0x6e96a99d, 0x6f5f02b2, 0x7023109a,
    0x70e2cbc6, 0x719e2cd2, 0x72552c85, 0x7307c3d0, 0x73b5ebd1, 0x745f9dd1, 0x7504d345, 0x75a585cf,
    0x7641af3d, 0x76d94989, 0x776c4edb, 0x77fab989, 0x78848414, 0x7909a92d, 0x798a23b1, 0x7a05eead,
    0x7a7d055b, 0x7aef6323, 0x7b5d039e, 0x7bc5e290, 0x7c29fbee, 0x7c894bde, 0x7ce3ceb2, 0x7d3980ec,
    0x7d8a5f40, 0x7dd6668f, 0x7e1d93ea, 0x7e5fe493, 0x7e9d55fc, 0x7ed5e5c6, 0x7f0991c4, 0x7f3857f6,
    0x7f62368f, 0x7f872bf3, 0x7fa736b4, 0x7fc25596, 0x7fd8878e, 0x7fe9cbc0, 0x7ff62182, 0x7ffd885a,
    0x80000000,
];

/// `v_sin_f32` (`cos` false) and `v_cos_f32` (`cos` true), argument in revolutions.
pub fn sin_cos(a: u32, cos: bool) -> u32 {
    let a = flush(a);
    if is_nan(a) {
        return quiet(a);
    }
    if is_inf(a) {
        return QNAN;
    }
    let e = exp_field(a) as i32;
    let s = u64::from(a & 0x7F_FFFF | 0x80_0000);
    let sh = e - 118;
    let (big, sticky) = if e == 0 || sh >= 32 {
        (0, false)
    } else if sh >= 0 {
        ((s << sh) & 0xFFFF_FFFF, false)
    } else if sh <= -32 {
        (0, true)
    } else {
        let k = (-sh) as u32;
        (s >> k, s & ((1u64 << k) - 1) != 0)
    };
    let mut f = if a & SIGN != 0 {
        (1u64 << 32).wrapping_sub(big + u64::from(sticky)) & 0xFFFF_FFFF
    } else {
        big
    };
    if cos {
        f = (f + (1 << 30)) & 0xFFFF_FFFF;
    }
    let q = f >> 30;
    let t = f & 0x3FFF_FFFF;
    let s = if q & 1 == 1 { (1 << 30) - t } else { t };
    let i = (s >> 23) as usize;
    let h = s & 0x7F_FFFF;
    let hh = h * 0x3_243F_6A89 >> 32;
    let h2 = hh * hh >> 31;
    let ch = (1u64 << 31) - (h2 >> 1);
    let h3 = h2 * hh >> 31;
    let sh_ = hh - (h3 * 0x2AAA_AAAB >> 32);
    let r = ((SIN_T[i] * ch + SIN_T[128 - i] * sh_) >> 31).min(1 << 31);
    if r == 0 {
        return 0;
    }
    to_f32(q >= 2, u128::from(r), 31)
}

/// `v_div_scale_f32 s0, s1 (denominator), s2 (numerator)`: (result, flag).
pub fn div_scale(s0: u32, d: u32, n: u32) -> (u32, bool) {
    let (s0, d, n) = (flush(s0), flush(d), flush(n));
    if is_zero(n) || is_zero(d) {
        return (QNAN, false);
    }
    let finite = |x: u32| !is_nan(x) && !is_inf(x);
    // |x| > 2^126 exactly, and |n / d| < 2^-126 exactly (both finite, normal).
    let d_huge = finite(d) && d & 0x7FFF_FFFF > 0x7E80_0000;
    let tiny_quotient = finite(d) && finite(n) && {
        // Both significands have 24 bits: compare exponents, then significands.
        let (mn, en) = unpack(n);
        let (md, ed) = unpack(d);
        (en + 126, mn) < (ed, md)
    };
    let (en, ed) = (exp_field(n) as i32, exp_field(d) as i32);
    if en - ed >= 96 {
        (if s0 == d { ldexp(s0, 64) } else { s0 }, true)
    } else if d_huge && tiny_quotient {
        (
            if s0 == d {
                ldexp(s0, (-64i32) as u32)
            } else {
                s0
            },
            true,
        )
    } else if d_huge {
        (ldexp(s0, (-64i32) as u32), false)
    } else if tiny_quotient {
        (if s0 == n { ldexp(s0, 64) } else { s0 }, true)
    } else if en <= 48 {
        (ldexp(s0, 64), false)
    } else {
        (s0, false)
    }
}

/// `v_div_fmas_f32`: fma, and with the lane's VCC bit set, scaled by 2^±64 before its one
/// rounding (up when |s2| >= 2).
pub fn div_fmas(a: u32, b: u32, c: u32, vcc: bool) -> u32 {
    let r = fma(a, b, c);
    let (a, b, c) = (flush(a), flush(b), flush(c));
    // Special operands give v_fma_f32's result; finite ones are scaled exactly before the one
    // rounding, so a sum that would overflow (or underflow) unscaled does not.
    let special = |x: u32| is_nan(x) || is_inf(x);
    if !vcc || special(a) || special(b) || special(c) {
        return r;
    }
    let k = if exp_field(c) > 127 { 64 } else { -64 };
    let ps = (a ^ b) & SIGN;
    let p = if is_zero(a) || is_zero(b) {
        (ps != 0, 0, 0)
    } else {
        let ((ma, ea), (mb, eb)) = (unpack(a), unpack(b));
        (ps != 0, ma * mb, ea + eb + k)
    };
    let ct = term(c);
    add_terms(p, (ct.0, ct.1, ct.2 + k), ps != 0 && c & SIGN != 0)
}

/// `v_div_fixup_f32 q, d, n`.
pub fn div_fixup(q: u32, d: u32, n: u32) -> u32 {
    let (q, d, n) = (flush(q), flush(d), flush(n));
    let so = (d ^ n) & SIGN;
    if is_nan(n) {
        return quiet(n);
    }
    if is_nan(d) {
        return quiet(d);
    }
    if (is_zero(d) && is_zero(n)) || (is_inf(d) && is_inf(n)) {
        return DIV_QNAN;
    }
    if is_zero(d) || is_inf(n) {
        return so | INF;
    }
    if is_inf(d) || is_zero(n) {
        return so;
    }
    if (exp_field(n) as i32) - (exp_field(d) as i32) < -150 {
        return so;
    }
    if is_nan(q) {
        return so | INF;
    }
    so | q & 0x7FFF_FFFF
}

/// The VOP3 output modifier: multiply by 2, 4 or 1/2 (`k` = 1, 2, -1), rounded and flushed;
/// a NaN stays the same NaN.
pub fn omod(r: u32, k: i32) -> u32 {
    if is_nan(r) {
        return r;
    }
    ldexp(r, k as u32)
}

/// The VOP3 `clamp` of an f32 result (dx10_clamp): NaN -> +0, below +0 (or -0) -> +0,
/// above 1.0 -> 1.0.
pub fn clamp(r: u32) -> u32 {
    if is_nan(r) || r & SIGN != 0 {
        0
    } else if r > ONE {
        ONE
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_flush() {
        assert_eq!(add(ONE, ONE), 0x4000_0000);
        // 1 + 2^-24 is a tie: even (1.0); 1 + 3*2^-24 rounds up.
        assert_eq!(add(ONE, 0x3380_0000), ONE);
        assert_eq!(add(0x3F80_0001, 0x3380_0000), 0x3F80_0002);
        // A denormal input is zero; a denormal result is zero of its sign.
        assert_eq!(add(0x0000_0001, 0x8000_0000), 0);
        assert_eq!(mul(0x0080_0000, 0x3F00_0000), 0);
        assert_eq!(mul(0x8080_0000, 0x3F00_0000), SIGN);
        // Just below 2^-126 rounding up to it is kept (rounding first, then the flush).
        assert_eq!(mul(0x3F7F_FFFF, 0x0080_0001), 0x0080_0000);
        assert_eq!(add(0x7F7F_FFFF, 0x7F7F_FFFF), INF);
        assert_eq!(add(INF, 0xFF80_0000), QNAN);
        assert_eq!(sub(0x8000_0000, 0x8000_0000), 0, "-0 - -0 = +0");
        assert_eq!(add(0x8000_0000, 0x8000_0000), SIGN);
        assert_eq!(fma(0, 0x3F80_0000, 0x8000_0000), 0);
    }

    #[test]
    fn nans_keep_the_first_payload_quieted() {
        assert_eq!(add(0x7F80_0001, 0xFFC0_0002), 0x7FC0_0001);
        assert_eq!(fma(ONE, 0xFF80_1234, 0x7FC0_0000), 0xFFC0_1234);
        assert_eq!(mul(0, INF), QNAN);
        assert_eq!(min(0x7FC0_0000, ONE), ONE);
        assert_eq!(max(0x7F80_0001, 0x7FC0_0002), 0x7FC0_0001);
        assert_eq!(min(SIGN, 0), SIGN);
        assert_eq!(max(SIGN, 0), 0);
    }

    #[test]
    fn integral_rounding_and_conversions() {
        assert_eq!(ceil(0xBF00_0000), SIGN, "ceil(-0.5) = -0");
        assert_eq!(floor(0xBF00_0000), 0xBF80_0000);
        assert_eq!(rndne(0x3FC0_0000), 0x4000_0000, "1.5 -> 2");
        assert_eq!(rndne(0x4020_0000), 0x4000_0000, "2.5 -> 2");
        assert_eq!(trunc(0xC0490FDB), 0xC040_0000);
        assert_eq!(cvt_i32_f32(0x4F00_0000), 0x7FFF_FFFF);
        assert_eq!(cvt_i32_f32(0xCF00_0000), 0x8000_0000);
        assert_eq!(cvt_u32_f32(0xBF80_0000), 0);
        assert_eq!(cvt_i32_f32(QNAN), 0);
        assert_eq!(cvt_rpi_i32(0x3EFF_FFFF), 0, "exact 0.49999997 + 0.5 < 1");
        assert_eq!(cvt_rpi_i32(0xBF00_0000), 0, "floor(-0.5 + 0.5) = 0");
        assert_eq!(cvt_flr_i32(0xBF00_0000), u32::MAX);
        assert_eq!(
            fract(0xB2D7_2E3F),
            0x3F7F_FFFF,
            "fract(-2.5e-8) rounds to 1: clamped"
        );
        assert_eq!(fract(INF), QNAN);
        assert_eq!(frexp_mant(0x4120_0000), 0x3F20_0000, "10 = 0.625 * 2^4");
        assert_eq!(frexp_exp(0x4120_0000), 4);
        assert_eq!(cvt_f32_ubyte(0x1234_5678, 2), 0x4250_0000, "0x34 = 52");
    }

    #[test]
    fn transcendental_points() {
        assert_eq!(exp2(ONE), 0x4000_0000);
        assert_eq!(exp2(0xBF80_0000), 0x3F00_0000);
        assert_eq!(exp2(0x42FE_0000), 0x7F00_0000, "2^127");
        assert_eq!(exp2(0xC2FC_0000), 0x0080_0000, "2^-126");
        assert_eq!(exp2(0x3F00_0000), 0x3FB5_04F3, "sqrt 2");
        assert_eq!(log2(0x4000_0000), ONE);
        assert_eq!(log2(ONE), 0);
        assert_eq!(log2(0x3E80_0000), 0xC000_0000);
        assert_eq!(log2(SIGN), SIGN | INF);
        assert_eq!(log2(0xBF80_0000), QNAN);
        assert_eq!(sin_cos(0x3E80_0000, false), ONE, "sin(pi/2)");
        assert_eq!(sin_cos(0x3E80_0000, true), 0, "cos(pi/2)");
        assert_eq!(sin_cos(0x3F00_0000, true), 0xBF80_0000, "cos(pi)");
        assert_eq!(sin_cos(INF, false), QNAN);
    }

    #[test]
    fn output_modifiers() {
        assert_eq!(omod(ONE, 1), 0x4000_0000);
        assert_eq!(omod(ONE, -1), 0x3F00_0000);
        assert_eq!(omod(0x0080_0000, -1), 0, "a subnormal result is flushed");
        assert_eq!(clamp(0x4000_0000), ONE);
        assert_eq!(clamp(SIGN), 0);
        assert_eq!(clamp(QNAN), 0);
    }
}
