//! The lane's f32 unit (`pws_hdl::simd::LaneFpu`) bit for bit against the f32 contract,
//! written independently in `fpu/reference.rs` with the host's IEEE arithmetic.
//!
//! Every operation gets the enumerated edge cases (zeros, denormals, the normal range's ends,
//! infinities, quiet and signalling NaNs with payloads, halfway roundings, overflow) in all
//! combinations, with and without modifiers, and `proptest_cases(10_000)` random operand sets
//! (`make soak`: 10^5) from a mix of uniform bits, edge values and operands with nearby
//! exponents (cancellation, alignment and rounding boundaries). Failures print the operands,
//! the modifiers and both results in hex.

#[path = "fpu/reference.rs"]
mod reference;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use pws_hdl::simd::fpu::fmod_word;
use pws_hdl::simd::{LaneFpu, ValuOp};
use pws_isa::testing::proptest_cases;
use reference::{reference, Mods};
use rust_hdl::prelude::*;

/// Evaluates the combinational unit: inputs set, then updated until nothing changes.
fn eval(u: &mut LaneFpu, op: ValuOp, a: u32, b: u32, c: u32, m: bool, mods: Mods) -> (u32, bool) {
    u.op.next = op;
    u.m.next = m;
    u.a.next = (a as u64).to_bits();
    u.b.next = (b as u64).to_bits();
    u.c.next = (c as u64).to_bits();
    u.fmod.next = fmod_word(mods.abs, mods.neg, mods.omod, mods.clamp).to_bits();
    for _ in 0..100 {
        u.update_all();
        if !u.has_changed() {
            break;
        }
    }
    (u.result.val().to_u64() as u32, u.flag.val())
}

fn check(u: &mut LaneFpu, op: ValuOp, a: u32, b: u32, c: u32, mods: Mods) -> Result<(), String> {
    // The mask bit (v_div_fmas_f32's VCC) from the operands, so both values are covered.
    let m = (a ^ b ^ c) & 1 != 0;
    let rtl = eval(u, op, a, b, c, m, mods);
    let want = reference(op, a, b, c, m, mods);
    if rtl == want {
        Ok(())
    } else {
        Err(format!(
            "{op:?} a={a:#010x} b={b:#010x} c={c:#010x} m={m} {mods:?}: RTL {:#010x}/{}, contract {:#010x}/{}",
            rtl.0, rtl.1, want.0, want.1
        ))
    }
}

/// Every f32 operation the unit implements.
fn float_ops() -> Vec<ValuOp> {
    ValuOp::ALL
        .iter()
        .copied()
        .filter(|op| op.is_float())
        .collect()
}

/// Operands whose handling differs: signed zeros, denormals, normal extremes, infinities,
/// NaNs (quiet, signalling, payloads), values near 1, halfway points and integer limits.
const EDGES: [u32; 40] = [
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
    0xFFC0_0001,
    0x7F80_0001,
    0xFFA0_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x3F7F_FFFF,
    0x3F80_0001,
    0x3F00_0000,
    0xBF00_0000,
    0x3FC0_0000,
    0xBFC0_0000,
    0x3380_0000,
    0x3440_0000,
    0x4B00_0000,
    0x4B00_0001,
    0xCB7F_FFFF,
    0x4EFF_FFFF,
    0xCF00_0000,
    0x4F00_0000,
    0x4F80_0000,
    0x0000_00FF,
    0x8000_0001,
    0x7FFF_FFFF,
    0x4040_0000,
    0x3EFF_FFFF,
];

/// A smaller set for the three-operand enumeration.
const EDGES3: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x0080_0000,
    0x7F7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFA0_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x3380_0000,
    0x3F7F_FFFF,
    0xCB7F_FFFF,
];

const MODS: [Mods; 6] = [
    Mods {
        abs: 0,
        neg: 0,
        omod: 0,
        clamp: false,
    },
    Mods {
        abs: 0,
        neg: 7,
        omod: 0,
        clamp: false,
    },
    Mods {
        abs: 7,
        neg: 2,
        omod: 1,
        clamp: false,
    },
    Mods {
        abs: 0,
        neg: 1,
        omod: 2,
        clamp: true,
    },
    Mods {
        abs: 2,
        neg: 4,
        omod: 3,
        clamp: false,
    },
    Mods {
        abs: 0,
        neg: 0,
        omod: 0,
        clamp: true,
    },
];

#[test]
fn edge_cases_of_every_operation() {
    let mut u = LaneFpu::default();
    u.connect_all();
    let mut failures = Vec::new();
    for op in float_ops() {
        let three = op.sources() == 3;
        let pairs: Vec<(u32, u32, u32)> = if three {
            let mut v = Vec::new();
            for &a in &EDGES3 {
                for &b in &EDGES3 {
                    for &c in &EDGES3 {
                        v.push((a, b, c));
                    }
                }
            }
            v
        } else {
            let mut v = Vec::new();
            for &a in &EDGES {
                for &b in &EDGES {
                    v.push((a, b, a ^ b));
                }
            }
            // ldexp's exponent operand and the class masks: small integers too.
            for &a in &EDGES {
                for e in [
                    0u32,
                    1,
                    9,
                    0x3FF,
                    0x1A,
                    127,
                    128,
                    253,
                    (-149i32) as u32,
                    (-126i32) as u32,
                    (-127i32) as u32,
                    600,
                    (-600i32) as u32,
                    0x8000_0000,
                    0x7FFF_FFFF,
                ] {
                    v.push((a, e, 0));
                }
            }
            v
        };
        for (i, &(a, b, c)) in pairs.iter().enumerate() {
            let mods = MODS[i % MODS.len()];
            for mods in [Mods::default(), mods] {
                if let Err(e) = check(&mut u, op, a, b, c, mods) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches, first 20:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Halfway cases of the rounding operations: sums and products exactly between two floats.
#[test]
fn halfway_roundings() {
    let mut u = LaneFpu::default();
    u.connect_all();
    let mut failures = Vec::new();
    for m in [
        0x0080_0000u32,
        0x0080_0001,
        0x00FF_FFFF,
        0x00AB_CDEF,
        0x00C0_0000,
    ] {
        for e in [1u32, 2, 24, 25, 100, 127, 200, 253, 254] {
            let a = e << 23 | (m & 0x7F_FFFF);
            // b is half an ulp of a (or 1.5 ulp), below a's exponent by 24 (or 23).
            for (db, bm) in [(24u32, 0u32), (23, 0x40_0000), (25, 0), (24, 0x40_0000)] {
                if e > db {
                    let b = (e - db) << 23 | bm;
                    for op in [ValuOp::AddF, ValuOp::SubF] {
                        for sign in [0, 0x8000_0000] {
                            if let Err(x) = check(&mut u, op, a, b | sign, 0, Mods::default()) {
                                failures.push(x);
                            }
                        }
                    }
                }
            }
            // (1 + 2^-23·k) · 1.5 and similar products with a 25th bit.
            for b in [
                0x3FC0_0000u32,
                0x3F40_0000,
                0x4040_0000,
                0x0040_0000 | (254 - e) << 23,
            ] {
                for op in [ValuOp::MulF, ValuOp::FmaF, ValuOp::MadF] {
                    if let Err(x) = check(&mut u, op, a, b, 0x8000_0000, Mods::default()) {
                        failures.push(x);
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Operands: uniform bits, edge values, or values with exponents near a common one.
fn operand(center: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => any::<u32>(),
        1 => prop::sample::select(EDGES.to_vec()),
        3 => (any::<bool>(), 0u32..6, any::<u32>()).prop_map(move |(s, d, m)| {
            (s as u32) << 31 | (center.saturating_sub(d).clamp(1, 254)) << 23 | (m & 0x7F_FFFF)
        }),
        1 => (0u32..0x100).prop_map(|i| i * 0x0101_0101 >> (i % 24)),
    ]
}

fn mods() -> impl Strategy<Value = Mods> {
    prop_oneof![
        1 => Just(Mods::default()),
        1 => (0u8..8, 0u8..8, 0u8..4, any::<bool>())
            .prop_map(|(abs, neg, omod, clamp)| Mods { abs, neg, omod, clamp }),
    ]
}

fn random_operands(op: ValuOp, cases: u32) {
    let mut unit = LaneFpu::default();
    unit.connect_all();
    let u = std::cell::RefCell::new(unit);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (1u32..255)
        .prop_flat_map(|center| (operand(center), operand(center), operand(center), mods()));
    let result = runner.run(&strategy, |(a, b, c, mods)| {
        check(&mut u.borrow_mut(), op, a, b, c, mods).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{op:?}: {e}");
    }
}

/// The random operand sets of every operation (proptest, seeded per run; a failure prints the
/// shrunk operands in hex).
#[test]
fn random_operands_of_every_operation() {
    let cases = proptest_cases(10_000);
    for op in float_ops() {
        random_operands(op, cases);
    }
}

/// Operands of the transcendentals whose handling differs: signed zeros, denormals,
/// infinities, NaNs, the ends of exp's range (2^x overflows at 128, flushes below -126,
/// saturates from |x| = 256), logs of negatives and of values next to 1, and sin/cos of
/// integers, quarter turns and values whose phase is exactly 0 (exponent 150 and up).
const TRANSCENDENTAL_EDGES: [u32; 44] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFA0_0001,
    0x3F80_0000,
    0xBF80_0000,
    0x3F7F_FFFF,
    0x3F80_0001,
    0x3E80_0000,
    0xBE80_0000,
    0x3F00_0000,
    0xBF00_0000,
    0x4300_0000,
    0x42FF_FFFF,
    0x42FE_0000,
    0xC2FC_0000,
    0xC2FC_0001,
    0xC2FB_FFFF,
    0xC2FE_0000,
    0xC300_0000,
    0xC315_0000,
    0x4380_0000,
    0x437F_FFFF,
    0xC37F_FFFF,
    0xC380_0000,
    0x4B00_0000,
    0x4B00_0001,
    0xCB00_0001,
    0x4B80_0001,
    0x4AFF_FFFF,
    0xCAFF_FFFF,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x2F80_0000,
    0xAF80_0001,
    0x3380_0001,
    0x3F3F_FFFF,
    0x3F40_0000,
];

const TRANSCENDENTALS: [ValuOp; 4] = [ValuOp::ExpF, ValuOp::LogF, ValuOp::SinF, ValuOp::CosF];

/// The transcendentals on their edge operands, with and without the modifiers.
#[test]
fn transcendental_edge_cases() {
    let mut u = LaneFpu::default();
    u.connect_all();
    let mut failures = Vec::new();
    for op in TRANSCENDENTALS {
        for (i, &a) in TRANSCENDENTAL_EDGES.iter().enumerate() {
            for mods in [Mods::default(), MODS[i % MODS.len()]] {
                if let Err(e) = check(&mut u, op, a, 0, 0, mods) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The transcendentals on `proptest_cases(10_000)` operands each (`make soak`: 10^5): uniform
/// bits, and values in the ranges where the results are not special (|x| < 256 for exp,
/// positive normals for log, every exponent below 151 for sin/cos).
#[test]
fn transcendental_random_operands() {
    let mut unit = LaneFpu::default();
    unit.connect_all();
    let u = std::cell::RefCell::new(unit);
    for op in TRANSCENDENTALS {
        let mut runner = TestRunner::new(Config {
            cases: proptest_cases(10_000),
            failure_persistence: None,
            ..Config::default()
        });
        let exponents = match op {
            ValuOp::ExpF => 100u32..136,
            ValuOp::LogF => 1..255,
            _ => 60..152,
        };
        let operand = prop_oneof![
            1 => any::<u32>(),
            3 => (any::<bool>(), exponents, any::<u32>()).prop_map(move |(s, e, m)| {
                (s && op != ValuOp::LogF) as u32 * 0x8000_0000 | e << 23 | (m & 0x7F_FFFF)
            }),
        ];
        let result = runner.run(&operand, |a| {
            check(&mut u.borrow_mut(), op, a, 0, 0, Mods::default()).map_err(TestCaseError::fail)
        });
        if let Err(e) = result {
            panic!("{op:?}: {e}");
        }
    }
}

/// Values worked out by hand: the reference's own checks.
#[test]
fn transcendental_points() {
    let mut u = LaneFpu::default();
    u.connect_all();
    for (op, a, want) in [
        (ValuOp::ExpF, 0x3F80_0000, 0x4000_0000),
        (ValuOp::ExpF, 0xBF80_0000, 0x3F00_0000),
        (ValuOp::ExpF, 0x42FE_0000, 0x7F00_0000),
        (ValuOp::ExpF, 0xC2FC_0000, 0x0080_0000),
        (ValuOp::ExpF, 0x3F00_0000, 0x3FB5_04F3),
        (ValuOp::LogF, 0x4000_0000, 0x3F80_0000),
        (ValuOp::LogF, 0x3F80_0000, 0),
        (ValuOp::LogF, 0x3E80_0000, 0xC000_0000),
        (ValuOp::SinF, 0x3E80_0000, 0x3F80_0000),
        (ValuOp::CosF, 0x3E80_0000, 0),
        (ValuOp::CosF, 0x3F00_0000, 0xBF80_0000),
        (ValuOp::SinF, 0x3F40_0000, 0xBF80_0000),
    ] {
        let got = eval(&mut u, op, a, 0, 0, false, Mods::default()).0;
        assert_eq!(got, want, "{op:?} {a:#010x}: {got:#010x}");
        assert_eq!(reference(op, a, 0, 0, false, Mods::default()).0, want);
    }
}
