//! The patched rust-hdl-core (vendor/rust-hdl-core/PATCH.md) shifts `Bits<N>`, N <= 32, with
//! native integer shifts: every width and shift amount, including shifts by N or more, must give
//! what the upstream definition gives, `(x << s) mod 2^N` and `x >> s`, and `get_bits` the field.

use proptest::prelude::*;
use rust_hdl::core::prelude::*;

fn reference_shl(x: u64, s: u64, n: u32) -> u64 {
    if s >= 64 {
        0
    } else {
        (x << s) & ((1u64 << n) - 1)
    }
}

fn check<const N: usize>(x: u32, s: u64) -> Result<(), TestCaseError> {
    let x = u64::from(x) & ((1u64 << N) - 1);
    let b: Bits<N> = bits(x);
    let expected_shr = if s >= 64 { 0 } else { x >> s };
    prop_assert_eq!(
        (b << s).to_u64(),
        reference_shl(x, s, N as u32),
        "{} << {}",
        x,
        s
    );
    prop_assert_eq!((b >> s).to_u64(), expected_shr, "{} >> {}", x, s);
    let amount: Bits<6> = bits(s & 63);
    prop_assert_eq!((b << amount).to_u64(), reference_shl(x, s & 63, N as u32));
    if (s as usize) < N {
        prop_assert_eq!(b.get_bits::<4>(s as usize).to_u64(), (x >> s) & 0xf);
    }
    Ok(())
}

proptest! {
    #[test]
    fn shifts_of_short_bit_vectors_are_exact(x in any::<u32>(), s in prop_oneof![0u64..40, any::<u64>()]) {
        check::<1>(x, s)?;
        check::<5>(x, s)?;
        check::<16>(x, s)?;
        check::<31>(x, s)?;
        check::<32>(x, s)?;
    }
}
