//! Exact results of ALU instructions whose sources each hold one known value: what a value the
//! launch fixes becomes in clang's code. `get_num_groups(0)` is the grid's size divided by the
//! workgroup's, rounded up, and GCN3 has no divide instruction: clang expands it into
//! `v_cvt_f32_u32`, `v_rcp_iflag_f32`, a scaling `v_mul_f32`, `v_cvt_u32_f32`, products and
//! corrections selected by compares (`v_cndmask_b32`, `v_addc_u32`), in VGPRs although every
//! lane holds the same value. [`super::lane_ranges`] folds such a chain to its one value, so a
//! loop stepped by it (`for (b = get_group_id(0); b < n; b += get_num_groups(0))`) is counted.
//!
//! The results are the ISA's as docs/float.md fixes them: integer operations wrap around as
//! the ALUs do; the float ones are IEEE binary32 with round-to-nearest-even, `v_rcp_f32`
//! correctly rounded, and f32 denormals flushed. A float operation is folded only where no
//! operand and no result is a NaN, an infinity or a denormal, so that the host's own
//! arithmetic (which keeps denormals and NaN payloads its own way) cannot differ from the
//! contract: anything else is left unknown. `verify/tests/fold_golden.rs` checks every folded
//! result against the golden model's.

use pws_isa::Opcode;

/// How many value sources [`alu`] reads for `op` (a mask source comes after them), or `None`
/// for an operation not folded here.
pub fn arity(op: Opcode) -> Option<usize> {
    use Opcode::*;
    Some(match op {
        SMovB32 | SNotB32 | VMovB32 | VNotB32 => 1,
        VCvtF32U32 | VCvtF32I32 | VCvtU32F32 | VCvtI32F32 | VRcpF32 | VRcpIflagF32 => 1,
        SAddU32 | SAddI32 | SSubU32 | SSubI32 | SMulI32 | SLshlB32 | SLshrB32 | SAndB32 => 2,
        VAddU32 | VSubU32 | VSubrevU32 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VMulU32U24 => 2,
        VLshlrevB32 | VLshrrevB32 | VAshrrevI32 | VAndB32 | VOrB32 | VXorB32 => 2,
        VMinU32 | VMaxU32 | VMinI32 | VMaxI32 => 2,
        SMinU32 | SMaxU32 | SMinI32 | SMaxI32 => 2,
        VCndmaskB32 | VAddcU32 | VSubbU32 | VSubbrevU32 => 2,
        VMulF32 | VAddF32 | VSubF32 | VSubrevF32 => 2,
        VMadU32U24 | VBfeU32 | VAlignbitB32 => 3,
        _ => return None,
    })
}

/// Whether `op` reads a lane mask as its third source: the select of `v_cndmask_b32`, the
/// carry into `v_addc_u32` and the borrow into `v_subb_u32`/`v_subbrev_u32`.
pub fn reads_mask(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, VCndmaskB32 | VAddcU32 | VSubbU32 | VSubbrevU32)
}

/// The result of `op` (no modifiers, no sub-dword selects) on the values `x` of its sources
/// and, for an operation that [`reads_mask`], the lane's bit `bit` of the mask; `None` where it
/// is not folded.
pub fn alu(op: Opcode, x: [u32; 3], bit: bool) -> Option<u32> {
    use Opcode::*;
    let [a, b, c] = x;
    let u24 = |v: u32| v & 0x00ff_ffff;
    let cin = u32::from(bit);
    Some(match op {
        SMovB32 | VMovB32 => a,
        SNotB32 | VNotB32 => !a,
        SAddU32 | SAddI32 | VAddU32 => a.wrapping_add(b),
        SSubU32 | SSubI32 | VSubU32 => a.wrapping_sub(b),
        VSubrevU32 => b.wrapping_sub(a),
        SMulI32 | VMulLoU32 => a.wrapping_mul(b),
        VMulHiU32 => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        VMulHiI32 => ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
        VMulU32U24 => u24(a).wrapping_mul(u24(b)),
        VMadU32U24 => u24(a).wrapping_mul(u24(b)).wrapping_add(c),
        SLshlB32 => a << (b & 31),
        SLshrB32 => a >> (b & 31),
        VLshlrevB32 => b << (a & 31),
        VLshrrevB32 => b >> (a & 31),
        VAshrrevI32 => ((b as i32) >> (a & 31)) as u32,
        SAndB32 | VAndB32 => a & b,
        VOrB32 => a | b,
        VXorB32 => a ^ b,
        SMinU32 | VMinU32 => a.min(b),
        SMaxU32 | VMaxU32 => a.max(b),
        SMinI32 | VMinI32 => (a as i32).min(b as i32) as u32,
        SMaxI32 | VMaxI32 => (a as i32).max(b as i32) as u32,
        VCndmaskB32 => {
            if bit {
                b
            } else {
                a
            }
        }
        VAddcU32 => a.wrapping_add(b).wrapping_add(cin),
        VSubbU32 => a.wrapping_sub(b).wrapping_sub(cin),
        VSubbrevU32 => b.wrapping_sub(a).wrapping_sub(cin),
        VBfeU32 => {
            let (offset, width) = (b & 31, c & 31);
            if width == 0 {
                0
            } else {
                ((u64::from(a) >> offset) & ((1u64 << width) - 1)) as u32
            }
        }
        // The low dword of the 64-bit {a, b} shifted right: clang halves a 64-bit `size_t`
        // (`get_local_size(0) / 2`) so.
        VAlignbitB32 => ((u64::from(a) << 32 | u64::from(b)) >> (c & 31)) as u32,
        VCvtF32U32 => (a as f32).to_bits(),
        VCvtF32I32 => (a as i32 as f32).to_bits(),
        VCvtU32F32 => normal(a)? as u32,
        VCvtI32F32 => normal(a)? as i32 as u32,
        VRcpF32 | VRcpIflagF32 => result(1.0 / normal(a)?)?,
        VMulF32 => result(normal(a)? * normal(b)?)?,
        VAddF32 => result(normal(a)? + normal(b)?)?,
        VSubF32 => result(normal(a)? - normal(b)?)?,
        VSubrevF32 => result(normal(b)? - normal(a)?)?,
        _ => return None,
    })
}

/// The result of an integer vector compare (`v_cmp_*_{i,u}32`, not the `v_cmpx` forms, which
/// also write EXEC) of `a` with `b`; `None` for any other opcode.
pub fn compare(op: Opcode, a: u32, b: u32) -> Option<bool> {
    use Opcode::*;
    let (ai, bi) = (a as i32, b as i32);
    Some(match op {
        VCmpLtI32 => ai < bi,
        VCmpLeI32 => ai <= bi,
        VCmpGtI32 => ai > bi,
        VCmpGeI32 => ai >= bi,
        VCmpEqI32 | VCmpEqU32 => a == b,
        VCmpNeI32 | VCmpNeU32 => a != b,
        VCmpLtU32 => a < b,
        VCmpLeU32 => a <= b,
        VCmpGtU32 => a > b,
        VCmpGeU32 => a >= b,
        _ => return None,
    })
}

/// A float operand that is zero or normal: the same value under the contract's flush and the
/// host's arithmetic.
fn normal(bits: u32) -> Option<f32> {
    let x = f32::from_bits(bits);
    (x == 0.0 || x.is_normal()).then_some(x)
}

/// A result that is zero or normal, as the contract rounds it.
fn result(x: f32) -> Option<u32> {
    (x == 0.0 || x.is_normal()).then_some(x.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clang-14 -O2's `get_num_groups(0)`: the grid's size `g` divided by the workgroup's `w`,
    /// plus one where the product falls short (the expansion of `g / w` for unsigned values,
    /// then `n + (n * w != g)`), folded instruction by instruction.
    fn num_groups(g: u32, w: u32) -> Option<u32> {
        use Opcode::*;
        let f = |op, a, b| alu(op, [a, b, 0], false);
        let r = f(VCvtF32U32, w, 0)?;
        let r = f(VRcpIflagF32, r, 0)?;
        let r = f(VMulF32, 0x4f7f_fffe, r)?;
        let r = f(VCvtU32F32, r, 0)?;
        let t = f(VMulLoU32, 0u32.wrapping_sub(w), r)?;
        let t = f(VMulHiU32, r, t)?;
        let r = f(VAddU32, t, r)?;
        let q = f(VMulHiU32, g, r)?;
        let p = f(VMulLoU32, q, w)?;
        let q1 = f(VAddU32, 1, q)?;
        let rem = f(VSubU32, g, p)?;
        let ge = compare(VCmpLeU32, w, rem)?;
        let q = alu(VCndmaskB32, [q, q1, 0], ge)?;
        let rem2 = f(VSubrevU32, w, rem)?;
        let rem = alu(VCndmaskB32, [rem, rem2, 0], ge)?;
        let q1 = f(VAddU32, 1, q)?;
        let q = alu(VCndmaskB32, [q, q1, 0], compare(VCmpLeU32, w, rem)?)?;
        let p = f(VMulLoU32, q, w)?;
        let short = compare(VCmpNeU32, g, p)?;
        alu(VAddcU32, [0, q, 0], short)
    }

    #[test]
    fn clangs_division_folds_to_the_quotient() {
        for (g, w) in [
            (256, 64),
            (1000, 64),
            (1, 1),
            (100, 7),
            (u32::MAX, 1024),
            (96, 5),
        ] {
            assert_eq!(num_groups(g, w), Some(g.div_ceil(w)), "{g} / {w}");
        }
    }

    proptest::proptest! {
        #[test]
        fn clangs_division_folds_to_the_quotient_everywhere(
            g in 1u32..=1 << 24, w in 1u32..=1024,
        ) {
            proptest::prop_assert_eq!(num_groups(g, w), Some(g.div_ceil(w)));
        }
    }

    #[test]
    fn floats_outside_the_normal_range_are_not_folded() {
        use Opcode::*;
        let denormal = 1;
        assert_eq!(alu(VMulF32, [denormal, 0x3f80_0000, 0], false), None);
        assert_eq!(alu(VRcpF32, [0, 0, 0], false), None, "1 / 0 is infinite");
        assert_eq!(
            alu(VMulF32, [0x7f00_0000, 0x7f00_0000, 0], false),
            None,
            "overflow"
        );
        assert_eq!(
            alu(VMulF32, [0x0080_0000, 0x3f00_0000, 0], false),
            None,
            "underflow"
        );
        assert_eq!(alu(VCvtU32F32, [0x7fc0_0000, 0, 0], false), None, "NaN");
        assert_eq!(
            alu(VCvtU32F32, [0xc000_0000, 0, 0], false),
            Some(0),
            "-2 saturates"
        );
        assert_eq!(
            alu(VRcpF32, [0x4040_0000, 0, 0], false),
            Some((1.0f32 / 3.0).to_bits())
        );
    }

    #[test]
    fn masks_select_and_carry() {
        use Opcode::*;
        assert_eq!(alu(VCndmaskB32, [5, 9, 0], true), Some(9));
        assert_eq!(alu(VCndmaskB32, [5, 9, 0], false), Some(5));
        assert_eq!(alu(VAddcU32, [u32::MAX, 0, 0], true), Some(0));
        assert_eq!(alu(VSubbU32, [0, 0, 0], true), Some(u32::MAX));
        assert_eq!(compare(VCmpLtI32, u32::MAX, 0), Some(true));
        assert_eq!(compare(VCmpLtU32, u32::MAX, 0), Some(false));
        assert_eq!(compare(VCmpxLtU32, 0, 1), None, "writes EXEC");
    }
}
