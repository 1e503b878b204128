//! Buffer element types: how a manifest's values (inline or in a data file) become the bytes
//! of a buffer, how final memory reads back as values, and how they compare with expected
//! ones. Memory holds 32-bit words; a buffer of `u8` or `f16` packs its elements into them
//! little-endian, as a `uchar*` or `half*` kernel parameter addresses them, and a buffer of
//! `i64` or `f64` takes two words per element.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::kernarg::Number;

/// Element type of a buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    I8,
    U8,
    I16,
    U16,
    #[default]
    I32,
    U32,
    I64,
    U64,
    /// IEEE binary16, binary32 and binary64: values are printed as floats and compared
    /// bit-exactly unless the buffer gives a `tolerance_ulp`.
    F16,
    F32,
    F64,
}

impl ElemType {
    pub const ALL: [ElemType; 11] = [
        ElemType::I8,
        ElemType::U8,
        ElemType::I16,
        ElemType::U16,
        ElemType::I32,
        ElemType::U32,
        ElemType::I64,
        ElemType::U64,
        ElemType::F16,
        ElemType::F32,
        ElemType::F64,
    ];

    pub fn bytes(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 => 8,
        }
    }

    fn bits(self) -> u32 {
        8 * self.bytes() as u32
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::F32 | ElemType::F64)
    }

    fn is_signed(self) -> bool {
        matches!(
            self,
            ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
        )
    }

    /// Words `len` elements take (the last one padded with zeros).
    pub fn words_for(self, len: usize) -> usize {
        (len * self.bytes()).div_ceil(4)
    }

    /// The element `value` as its bit pattern: two's complement for the integers (in the
    /// type's range), the float rounded to nearest even for the floats, which take integers
    /// only where they are exact and refuse a finite value they cannot hold.
    pub fn element(self, value: Number) -> Option<u64> {
        match value {
            Number::Int(v) => self.int_element(i128::from(v)),
            Number::Float(f) if self.is_float() => self.float_element(f),
            Number::Float(_) => None,
        }
    }

    /// An integer as the type's element (for a float type: exactly).
    pub fn int_element(self, v: i128) -> Option<u64> {
        if self.is_float() {
            let f = v as f64;
            return (f as i128 == v)
                .then(|| self.float_element(f))
                .flatten()
                .filter(|&b| self.to_f64(b) == f);
        }
        let bits = self.bits();
        let (lo, hi) = if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        (lo..=hi)
            .contains(&v)
            .then_some(v as u64 & (u64::MAX >> (64 - bits)))
    }

    fn float_element(self, f: f64) -> Option<u64> {
        let (bits, finite) = match self {
            ElemType::F16 => {
                let h = half::f16::from_f64(f);
                (u64::from(h.to_bits()), h.is_finite())
            }
            ElemType::F32 => {
                let x = f as f32;
                (u64::from(x.to_bits()), x.is_finite())
            }
            _ => (f.to_bits(), f.is_finite()),
        };
        if f.is_nan() {
            return Some(self.quiet_nan());
        }
        // A finite value that overflows the type is out of range, not infinity.
        (finite || !f.is_finite()).then_some(bits)
    }

    fn quiet_nan(self) -> u64 {
        match self {
            ElemType::F16 => 0x7E00,
            ElemType::F32 => 0x7FC0_0000,
            _ => 0x7FF8_0000_0000_0000,
        }
    }

    fn to_f64(self, bits: u64) -> f64 {
        match self {
            ElemType::F16 => half::f16::from_bits(bits as u16).to_f64(),
            ElemType::F32 => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }
    }

    /// A data file's token: an integer (decimal or `0x` hex, optional sign) for the integer
    /// types; for the floats a decimal or exponent float, `inf`, `nan`, or the bits in `0x` hex
    /// (`0x7fc00001` keeps a NaN's payload).
    pub fn parse(self, tok: &str) -> Option<u64> {
        if self.is_float() {
            if let Some(hex) = tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")) {
                return u64::from_str_radix(hex, 16)
                    .ok()
                    .filter(|&b| b >> 1 >> (self.bits() - 1) == 0);
            }
            let lower = tok.to_ascii_lowercase();
            let body = lower.trim_start_matches(['+', '-']);
            let numeric = body
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'-' | b'+'));
            if !numeric && !matches!(body, "inf" | "nan") {
                return None;
            }
            return self.float_element(lower.parse::<f64>().ok()?);
        }
        self.int_element(parse_int(tok)?)
    }

    /// One element as the type reads it: `-3`, `4000000000`, or a float printed so that it
    /// reads back to the same bits (`1.5`, `-0`, `inf`, `nan`; a NaN other than the quiet one
    /// pws writes shows its bits: `nan:0xffc00000`).
    pub fn show(self, bits: u64) -> String {
        if !self.is_float() {
            return if self.is_signed() {
                let shift = 64 - self.bits();
                (((bits << shift) as i64) >> shift).to_string()
            } else {
                bits.to_string()
            };
        }
        let f = self.to_f64(bits);
        if f.is_nan() {
            if bits == self.quiet_nan() {
                "nan".to_string()
            } else {
                format!("nan:{bits:#0w$x}", w = 2 + 2 * self.bytes())
            }
        } else if f.is_infinite() {
            if f < 0.0 { "-inf" } else { "inf" }.to_string()
        } else if self == ElemType::F64 {
            format!("{f:?}")
        } else {
            // The shortest decimal that reads back to the same f32, which every half is.
            format!("{:?}", f as f32)
        }
    }

    /// Elements packed into little-endian 32-bit words.
    pub fn pack(self, elements: &[u64]) -> Vec<u32> {
        let n = self.bytes();
        let mut bytes = Vec::with_capacity(self.words_for(elements.len()) * 4);
        for e in elements {
            bytes.extend_from_slice(&e.to_le_bytes()[..n]);
        }
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }

    /// The first `len` elements of `words` (fewer if the words end first).
    pub fn unpack(self, words: &[u32], len: usize) -> Vec<u64> {
        let n = self.bytes();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes
            .chunks_exact(n)
            .take(len)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect()
    }

    /// Distance in units in the last place between two float elements: both NaN -> 0, +0 and
    /// -0 -> 0, one NaN -> u64::MAX (a NaN never matches a number).
    pub fn ulp_distance(self, a: u64, b: u64) -> u64 {
        let bits = self.bits();
        let sign = 1u64 << (bits - 1);
        let exp_inf = match self {
            ElemType::F16 => 0x7C00,
            ElemType::F32 => 0x7F80_0000,
            _ => 0x7FF0_0000_0000_0000,
        };
        let nan = |w: u64| w & (sign - 1) > exp_inf;
        match (nan(a), nan(b)) {
            (true, true) => return 0,
            (true, false) | (false, true) => return u64::MAX,
            _ => {}
        }
        // Order the bit patterns on one line: -0 and +0 meet at 0.
        let key = |w: u64| {
            if w & sign != 0 {
                -i128::from(w & (sign - 1))
            } else {
                i128::from(w)
            }
        };
        (key(a) - key(b)).unsigned_abs().min(u128::from(u64::MAX)) as u64
    }

    /// The values of `len` elements of `words`, as reports print and serialize them.
    pub fn values(self, words: &[u32], len: usize) -> Vec<Value> {
        self.unpack(words, len)
            .into_iter()
            .map(|bits| Value { ty: self, bits })
            .collect()
    }
}

/// Values a line in a buffer's [`listing`].
const VALUES_PER_LINE: usize = 16;

/// A buffer as text reports list it: `name type[len]:` with the name padded to `width`, then
/// its values, [`VALUES_PER_LINE`] a line and at most `max_lines` lines; the rest are counted
/// (JSON reports carry every value).
pub fn listing(
    name: &str,
    width: usize,
    ty: ElemType,
    values: &[Value],
    max_lines: usize,
) -> String {
    use fmt::Write;
    let mut out = format!("  {name:<width$} {ty}[{}]:", values.len());
    let shown = values.len().min(VALUES_PER_LINE * max_lines);
    for (i, v) in values[..shown].iter().enumerate() {
        if i > 0 && i % VALUES_PER_LINE == 0 {
            let _ = write!(out, "\n  {:width$}       ", "");
        }
        let _ = write!(out, " {v}");
    }
    if shown < values.len() {
        let _ = write!(out, " ... ({} more; --json has all)", values.len() - shown);
    }
    out.push('\n');
    out
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElemType::I8 => "i8",
            ElemType::U8 => "u8",
            ElemType::I16 => "i16",
            ElemType::U16 => "u16",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::I64 => "i64",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        })
    }
}

/// One element of a buffer. JSON writes an integer as a number and a float as a number when
/// finite, else as the string `inf`, `-inf`, `nan` (or `nan:0x...` with a payload), which
/// JSON numbers cannot express.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    pub ty: ElemType,
    pub bits: u64,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ty.show(self.bits))
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let shift = 64 - self.ty.bits();
        match self.ty {
            ElemType::F32 => {
                let f = f32::from_bits(self.bits as u32);
                if f.is_finite() {
                    s.serialize_f32(f)
                } else {
                    s.serialize_str(&self.to_string())
                }
            }
            ElemType::F16 | ElemType::F64 => {
                let f = self.ty.to_f64(self.bits);
                if f.is_finite() {
                    s.serialize_f64(f)
                } else {
                    s.serialize_str(&self.to_string())
                }
            }
            t if t.is_signed() => s.serialize_i64(((self.bits << shift) as i64) >> shift),
            _ => s.serialize_u64(self.bits),
        }
    }
}

/// Whether `tok` is written as an integer (whatever its range).
pub fn is_integer(tok: &str) -> bool {
    let digits = tok.strip_prefix(['-', '+']).unwrap_or(tok);
    match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// An integer token: decimal or `0x` hexadecimal, optional sign.
fn parse_int(tok: &str) -> Option<i128> {
    let (neg, digits) = match tok.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, tok.strip_prefix('+').unwrap_or(tok)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) if !hex.is_empty() && hex.len() <= 16 => i128::from_str_radix(hex, 16).ok()?,
        Some(_) => return None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<u64>().ok()?.into()
        }
        None => return None,
    };
    Some(if neg { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_take_their_range_in_either_signedness_only_where_declared() {
        assert_eq!(ElemType::U8.element(Number::Int(255)), Some(255));
        assert_eq!(ElemType::U8.element(Number::Int(-1)), None);
        assert_eq!(ElemType::I8.element(Number::Int(-128)), Some(0x80));
        assert_eq!(ElemType::I8.element(Number::Int(128)), None);
        assert_eq!(ElemType::I16.element(Number::Int(-2)), Some(0xFFFE));
        assert_eq!(ElemType::I32.element(Number::Int(-1)), Some(0xFFFF_FFFF));
        assert_eq!(ElemType::U32.element(Number::Int(1 << 32)), None);
        assert_eq!(ElemType::I64.element(Number::Int(i64::MIN)), Some(1 << 63));
        assert_eq!(ElemType::U64.parse("0xffffffffffffffff"), Some(u64::MAX));
        assert_eq!(ElemType::U64.parse("18446744073709551615"), Some(u64::MAX));
        assert_eq!(ElemType::U64.parse("18446744073709551616"), None);
        assert_eq!(ElemType::I64.parse("-9223372036854775808"), Some(1 << 63));
        assert_eq!(ElemType::U8.element(Number::Float(1.0)), None);
    }

    #[test]
    fn floats_round_to_nearest_and_take_exact_integers() {
        assert_eq!(ElemType::F16.element(Number::Float(1.5)), Some(0x3E00));
        assert_eq!(ElemType::F16.element(Number::Int(2049)), None);
        assert_eq!(ElemType::F16.element(Number::Int(2048)), Some(0x6800));
        assert_eq!(ElemType::F16.element(Number::Float(70000.0)), None);
        assert_eq!(
            ElemType::F16.element(Number::Float(f64::INFINITY)),
            Some(0x7C00)
        );
        assert_eq!(ElemType::F32.element(Number::Int(16_777_217)), None);
        assert_eq!(
            ElemType::F64.element(Number::Int(16_777_217)),
            Some(16_777_217f64.to_bits())
        );
        assert_eq!(ElemType::F64.parse("0.1"), Some(0.1f64.to_bits()));
        assert_eq!(ElemType::F32.parse("0x7fc00001"), Some(0x7FC0_0001));
        assert_eq!(ElemType::F16.parse("0x10000"), None);
        assert_eq!(ElemType::F16.parse("nan"), Some(0x7E00));
    }

    #[test]
    fn show_reads_back_to_the_same_bits() {
        for ty in ElemType::ALL {
            for bits in [
                0u64,
                1,
                0x3C00,
                0x7E00,
                0x7C01,
                0x8000,
                0x7FC0_0000,
                0xFFC0_0001,
                0x3FB9_9999_9999_999A,
                0xFFF0_0000_0000_0000,
                u64::MAX,
            ] {
                let bits = bits & (u64::MAX >> (64 - ty.bits()));
                let shown = ty.show(bits);
                let back = match shown.strip_prefix("nan:") {
                    Some(hex) => ty.parse(hex),
                    None => ty.parse(&shown),
                };
                assert_eq!(back, Some(bits), "{ty} {bits:#x} shown as {shown}");
            }
        }
    }

    #[test]
    fn elements_pack_little_endian_into_words() {
        let w = ElemType::U8.pack(&[1, 2, 3, 4, 5]);
        assert_eq!(w, vec![0x0403_0201, 5]);
        assert_eq!(ElemType::U8.unpack(&w, 5), vec![1, 2, 3, 4, 5]);
        assert_eq!(ElemType::I16.pack(&[0xFFFE, 7, 9]), vec![0x0007_FFFE, 9]);
        let w = ElemType::U64.pack(&[0x1122_3344_5566_7788]);
        assert_eq!(w, vec![0x5566_7788, 0x1122_3344]);
        assert_eq!(ElemType::U64.unpack(&w, 3), vec![0x1122_3344_5566_7788]);
        assert_eq!(ElemType::U16.words_for(3), 2);
    }

    #[test]
    fn ulp_distance_counts_across_zero_and_matches_nans() {
        let f32d = |a: u32, b: u32| ElemType::F32.ulp_distance(a.into(), b.into());
        assert_eq!(f32d(0x8000_0000, 0), 0);
        assert_eq!(f32d(0x7FC0_0000, 0xFF80_0001), 0);
        assert_eq!(f32d(0x7FC0_0000, 0), u64::MAX);
        assert_eq!(f32d(0x8000_0001, 1), 2);
        assert_eq!(ElemType::F16.ulp_distance(0x3C00, 0x3C02), 2);
        assert_eq!(ElemType::F64.ulp_distance(1, 1 << 63 | 1), 2);
    }

    #[test]
    fn values_serialize_as_numbers_or_named_non_finites() {
        let json = |ty: ElemType, bits: u64| serde_json::to_string(&Value { ty, bits }).unwrap();
        assert_eq!(json(ElemType::I8, 0xFF), "-1");
        assert_eq!(json(ElemType::U64, u64::MAX), "18446744073709551615");
        assert_eq!(json(ElemType::F16, 0x3E00), "1.5");
        assert_eq!(json(ElemType::F32, 0x7F80_0000), "\"inf\"");
        assert_eq!(json(ElemType::F64, 0.1f64.to_bits()), "0.1");
    }
}
