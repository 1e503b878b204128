//! The vector unit RTL against its golden model: random VALU instructions (every operation,
//! VGPR and broadcast operands, random carry-in/select masks) on random lane partitions (the
//! disjoint split masks of SWFs) with random EXEC, under each compaction mode; the VRF, every
//! instruction's mask result and latency, and the statistics are compared. Plus directed
//! tests of the timing contract, the LSU port and a VCD trace parsed back.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::simd::{valu_cycles, valu_cycles_for};
use pws_isa::testing::proptest_cases;
use pws_sim::TraceBuffer;
use pws_verify::units::simd::rtl::VectorUnitRtl;
use pws_verify::units::simd::{latency, passes, AluOp, SimdModel, Source, VectorOp};
use pws_verify::units::swizzle::Mode;

const VGPRS: usize = 8;

fn config(s: usize) -> HwConfig {
    HwConfig {
        vgprs_per_simd: VGPRS,
        ..HwConfig::small().with_spsimds(s)
    }
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        3 => (0..VGPRS).prop_map(Source::Vgpr),
        1 => prop_oneof![
            Just(0u64),
            Just(31),
            Just(32),
            Just(63),
            Just(0xFFFF_FFFF),
            Just(0x0080_0000),
            Just(0x8000_0000_0000_0000),
            any::<u64>()
        ]
        .prop_map(Source::Value),
    ]
}

/// Masks with empty, full and sparse lane groups, so every compaction case occurs.
fn lane_mask() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(u64::MAX),
        Just(0),
        any::<u64>(),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a & b),
        (any::<u64>(), 0..4u32).prop_map(|(a, g)| a & 0xFFFF << (16 * g)),
    ]
}

/// An instruction for the (Sp)SIMD `simd`; its SpM is filled in from the lane partition.
fn instruction(simds: usize) -> impl Strategy<Value = VectorOp> {
    (
        0..simds,
        prop::sample::select(AluOp::ALL.to_vec()),
        0..VGPRS,
        [source(), source(), source()],
        any::<u64>(),
        lane_mask(),
    )
        .prop_map(|(simd, op, dst, srcs, mask_in, exec)| VectorOp {
            simd,
            op,
            dst,
            srcs,
            mask_in,
            exec,
            spm: 0,
        })
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![Just(Mode::None), Just(Mode::Bcc), Just(Mode::Scc)]
}

/// Lane owners: one (Sp)SIMD for everything, contiguous halves, or random lanes.
fn partition(s: usize) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        (0..=s).prop_map(|k| vec![k; 64]),
        prop::collection::vec(0..=s, 64),
        (0..=s, 0..=s).prop_map(|(a, b)| (0..64).map(|l| if l < 32 { a } else { b }).collect()),
    ]
}

fn case() -> impl Strategy<Value = (usize, Mode, Vec<usize>, Vec<u32>, Vec<VectorOp>)> {
    (1usize..=3).prop_flat_map(|s| {
        (
            Just(s),
            mode(),
            partition(s),
            prop::collection::vec(any::<u32>(), 64 * VGPRS),
            prop::collection::vec(instruction(s + 1), 1..10),
        )
    })
}

// 300 random op sequences in `make test` (each simulates the vector unit with its 16 lanes'
// f32 units), 3,000 in `make soak`.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(300)))]

    #[test]
    fn rtl_matches_golden_model((s, mode, owner, init, mut ops) in case()) {
        let cfg = config(s);
        let spm = |k: usize| (0..64).filter(|&l| owner[l] == k).fold(0u64, |m, l| m | 1 << l);
        for o in &mut ops {
            o.spm = spm(o.simd);
        }
        let mut rtl = VectorUnitRtl::new(&cfg).unwrap();
        let mut model = SimdModel::new(64, VGPRS);
        for (i, &value) in init.iter().enumerate() {
            model.set_vgpr(i / 64, i % 64, value);
        }
        rtl.load_vrf(model.vrf()).unwrap();
        let results = rtl.run(&ops, mode).unwrap();
        for (i, (o, r)) in ops.iter().zip(&results).enumerate() {
            let (mask, n) = model.execute(o, mode);
            prop_assert_eq!(r.mask, mask, "mask result of instruction {}: {:?}", i, o);
            prop_assert_eq!(r.done - r.issued + 1, latency(n), "latency of instruction {}", i);
            prop_assert_eq!(latency(n), valu_cycles_for(n));
        }
        prop_assert_eq!(rtl.stats(), model.stats());
        prop_assert_eq!(rtl.dump_vrf().unwrap(), model.vrf().to_vec());
    }
}

fn add(simd: usize, spm: u64) -> VectorOp {
    VectorOp {
        simd,
        op: AluOp::Add,
        dst: 1,
        srcs: [Source::Vgpr(1), Source::Value(7), Source::Value(0)],
        mask_in: 0,
        exec: u64::MAX,
        spm,
    }
}

#[test]
fn simd_and_spsimd_issue_together_and_meet_the_timing_contract() {
    let cfg = config(1);
    assert_eq!(
        valu_cycles(&cfg),
        5,
        "4 passes of a wave64 plus the accepting edge"
    );
    let mut rtl = VectorUnitRtl::new(&cfg).unwrap();
    let half = 0xFFFF_FFFFu64;
    let r = rtl
        .run(&[add(0, half), add(1, !half), add(0, half)], Mode::None)
        .unwrap();
    assert_eq!(r[1].issued, r[0].issued, "the SpSIMD starts with the SIMD");
    assert_eq!(r[0].done - r[0].issued + 1, valu_cycles(&cfg));
    assert_eq!(
        r[2].issued,
        r[0].done + 1,
        "the SIMD takes its next op in the done cycle"
    );
    let vrf = rtl.dump_vrf().unwrap();
    assert_eq!((vrf[1][0], vrf[1][63]), (14, 7));
}

#[test]
fn compaction_sets_the_pass_count_and_the_statistics() {
    // Lanes 0 and 17: two non-empty groups, two lanes.
    let en = 1u64 | 1 << 17;
    for (mode, n) in [(Mode::None, 4), (Mode::Bcc, 2), (Mode::Scc, 1)] {
        assert_eq!(passes(64, en, mode), n);
        let mut rtl = VectorUnitRtl::new(&config(0)).unwrap();
        let r = rtl.run(&[add(0, en)], mode).unwrap();
        assert_eq!(r[0].done - r[0].issued + 1, valu_cycles_for(n), "{mode:?}");
        let stats = rtl.stats();
        assert_eq!(
            (stats.passes, stats.skipped, stats.active),
            (n as u64, 4 - n as u64, 2)
        );
        let vrf = rtl.dump_vrf().unwrap();
        assert_eq!((vrf[1][0], vrf[1][17], vrf[1][1]), (7, 7, 0), "{mode:?}");
    }
    let mut rtl = VectorUnitRtl::new(&config(0)).unwrap();
    let r = rtl.run(&[add(0, 0)], Mode::Scc).unwrap();
    assert_eq!(
        r[0].done - r[0].issued + 1,
        valu_cycles_for(0),
        "an empty schedule"
    );
}

#[test]
fn lsu_port_writes_only_the_enabled_lanes_and_reads_a_pass() {
    let mut rtl = VectorUnitRtl::new(&config(1)).unwrap();
    let data: Vec<u32> = (100..116).collect();
    rtl.lsu_write(3, 2, 0x8001, &data).unwrap();
    let pass = rtl.lsu_read(3, 2).unwrap();
    assert_eq!((pass[0], pass[1], pass[15]), (100, 0, 115));
    assert_eq!(rtl.lsu_read(3, 1).unwrap(), vec![0; 16]);
    assert_eq!(
        rtl.lsu_read(200, 2).unwrap(),
        vec![0; 16],
        "registers past the file read 0"
    );
}

#[test]
fn vcd_trace_declares_ports_and_records_the_passes() {
    let buf = TraceBuffer::default();
    let mut rtl = VectorUnitRtl::with_vcd(&config(1), buf.clone()).unwrap();
    let r = rtl
        .run(
            &[VectorOp {
                op: AluOp::CmpEq,
                srcs: [Source::Vgpr(0), Source::Value(0), Source::Value(0)],
                ..add(0, u64::MAX)
            }],
            Mode::None,
        )
        .unwrap();
    assert_eq!(r[0].mask, u64::MAX);
    drop(rtl);
    let text = buf.contents();
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    header
        .find_var(&["uut", "issue_i$0"])
        .or_else(|| header.find_var(&["uut", "issue_i", "0"]))
        .expect("issue_i declared");
    let passes = header
        .find_var(&["uut", "stat_passes_o"])
        .expect("stat_passes_o declared")
        .code;
    let changes = parser
        .filter_map(Result::ok)
        .filter(|c| matches!(c, vcd::Command::ChangeVector(id, _) if *id == passes))
        .count();
    assert!(changes >= 4, "stat_passes_o changed {changes} times");
}
