//! The RTL's transcendentals (`v_exp/log/sin/cos_f32` in the lane's f32 unit,
//! `pws_hdl::simd::LaneFpu`) bit for bit against the golden model's (`golden::f32`): two
//! implementations of the contract's fixed-point algorithms (docs/float.md) that share no code.
//!
//! Per operation: the edge operands (zeros, denormals, infinities, NaNs, exp's overflow and
//! flush boundaries, logs of negatives, sin/cos of integers and of huge values), a sweep of
//! evenly spaced bit patterns over all of them, and `proptest_cases(10_000)` seeded random
//! operands (`make soak`: 10^5) from uniform bits and from the ranges where the results are
//! not special; a sixth of the operands with random VOP3 modifiers. A failure names the
//! operand, the modifiers and both results in hex.

use pws_hdl::simd::fpu::fmod_word;
use pws_hdl::simd::{LaneFpu, ValuOp};
use pws_isa::testing::proptest_cases;
use pws_verify::golden::f32 as fp;
use rust_hdl::prelude::*;

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
}

/// VOP3 modifiers: abs and neg of source 0, omod (0 none, 1 x2, 2 x4, 3 /2), clamp.
#[derive(Clone, Copy, Debug, Default)]
struct Mods {
    abs: bool,
    neg: bool,
    omod: u8,
    clamp: bool,
}

fn rtl(u: &mut LaneFpu, op: ValuOp, a: u32, m: Mods) -> u32 {
    u.op.next = op;
    u.a.next = (a as u64).to_bits();
    u.fmod.next = fmod_word(m.abs as u8, m.neg as u8, m.omod, m.clamp).to_bits();
    for _ in 0..100 {
        u.update_all();
        if !u.has_changed() {
            break;
        }
    }
    u.result.val().to_u64() as u32
}

fn golden(op: ValuOp, a: u32, m: Mods) -> u32 {
    let x = if m.abs { a & 0x7FFF_FFFF } else { a } ^ if m.neg { 0x8000_0000 } else { 0 };
    let mut r = match op {
        ValuOp::ExpF => fp::exp2(x),
        ValuOp::LogF => fp::log2(x),
        ValuOp::SinF => fp::sin_cos(x, false),
        ValuOp::CosF => fp::sin_cos(x, true),
        _ => unreachable!(),
    };
    r = match m.omod {
        1 => fp::omod(r, 1),
        2 => fp::omod(r, 2),
        3 => fp::omod(r, -1),
        _ => r,
    };
    if m.clamp {
        r = fp::clamp(r);
    }
    r
}

const EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0xFFBF_FFFF,
    0x3F80_0000,
    0xBF80_0000,
    0x3F7F_FFFF,
    0x3F80_0001,
    0x3E80_0000,
    0x3F00_0000,
    0x3F40_0000,
    0x4300_0000,
    0x42FF_FFFF,
    0xC2FC_0000,
    0xC2FC_0001,
    0xC2FB_FFFF,
    0xC300_0000,
    0xC315_0000,
    0x4380_0000,
    0x437F_FFFF,
    0xC37F_FFFF,
    0x4B00_0000,
    0x4B00_0001,
    0xCB00_0001,
    0x4AFF_FFFF,
    0x4B7F_FFFF,
    0x4B80_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x2F80_0000,
    0x3380_0001,
];

const OPS: [ValuOp; 4] = [ValuOp::ExpF, ValuOp::LogF, ValuOp::SinF, ValuOp::CosF];

fn compare(u: &mut LaneFpu, op: ValuOp, a: u32, m: Mods, failures: &mut Vec<String>) {
    let (got, want) = (rtl(u, op, a, m), golden(op, a, m));
    if got != want && failures.len() < 20 {
        failures.push(format!(
            "{op:?} {a:#010x} {m:?}: RTL {got:#010x}, golden {want:#010x}"
        ));
    }
}

#[test]
fn transcendentals_match_the_golden_model() {
    let mut u = LaneFpu::default();
    u.connect_all();
    let mut rng = Rng(0x5EED_F00D);
    let cases = proptest_cases(10_000);
    let mut failures = Vec::new();
    for op in OPS {
        for &a in EDGES {
            for m in [
                Mods::default(),
                Mods {
                    neg: true,
                    omod: 1,
                    ..Mods::default()
                },
                Mods {
                    abs: true,
                    clamp: true,
                    ..Mods::default()
                },
                Mods {
                    omod: 3,
                    ..Mods::default()
                },
            ] {
                compare(&mut u, op, a, m, &mut failures);
            }
        }
        // Every 2^32 / cases-th bit pattern, from a random start.
        let step = (1u64 << 32) / u64::from(cases);
        let start = rng.next() % step;
        for k in 0..u64::from(cases) {
            compare(
                &mut u,
                op,
                (start + k * step) as u32,
                Mods::default(),
                &mut failures,
            );
        }
        for _ in 0..cases {
            let r = rng.next();
            let bits = (r >> 32) as u32;
            let a = if r % 4 == 0 {
                bits
            } else {
                // Exponents where the result is computed, not special.
                let e = match op {
                    ValuOp::ExpF => 100 + (r >> 8) % 36,
                    ValuOp::LogF => 1 + (r >> 8) % 254,
                    _ => 60 + (r >> 8) % 92,
                } as u32;
                bits & 0x807F_FFFF | e << 23
            };
            let m = if r % 6 == 1 {
                Mods {
                    abs: r >> 16 & 1 != 0,
                    neg: r >> 17 & 1 != 0,
                    omod: (r >> 18 & 3) as u8,
                    clamp: r >> 20 & 1 != 0,
                }
            } else {
                Mods::default()
            };
            compare(&mut u, op, a, m, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
