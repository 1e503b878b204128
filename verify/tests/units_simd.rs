//! The SIMD / SpSIMD RTL against its golden model: random VALU instructions on random lane
//! partitions (the disjoint split masks of SWFs), random EXEC and operands; the VRF, every
//! (Sp)SIMD's VCC and every instruction's latency are compared. Plus a VCD trace parsed back.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::simd::valu_cycles;
use pws_isa::testing::proptest_cases;
use pws_sim::TraceBuffer;
use pws_verify::units::simd::rtl::SimdClusterRtl;
use pws_verify::units::simd::{latency, AluOp, OperandB, SimdModel, VectorOp};

const VGPRS: usize = 4;

fn config(s: usize) -> HwConfig {
    HwConfig {
        vgprs_per_wavefront: VGPRS,
        ..HwConfig::small().with_spsimds(s)
    }
}

/// An instruction for the (Sp)SIMD `simd`; its SpM is filled in from the lane partition.
fn instruction(simds: usize) -> impl Strategy<Value = VectorOp> {
    let src1 = prop_oneof![
        (0..VGPRS).prop_map(OperandB::Vgpr),
        prop_oneof![Just(0u32), Just(31), Just(u32::MAX), any::<u32>()].prop_map(OperandB::Imm),
    ];
    let exec = prop_oneof![1 => Just(u64::MAX), 3 => any::<u64>()];
    (
        0..simds,
        prop::sample::select(AluOp::ALL.to_vec()),
        0..VGPRS,
        0..VGPRS,
        src1,
        exec,
    )
        .prop_map(|(simd, op, dst, src0, src1, exec)| VectorOp {
            simd,
            op,
            dst,
            src0,
            src1,
            exec,
            spm: 0,
        })
}

fn case() -> impl Strategy<Value = (usize, Vec<usize>, Vec<u32>, Vec<VectorOp>)> {
    (1usize..=3).prop_flat_map(|s| {
        (
            Just(s),
            prop::collection::vec(0..=s, 64),
            prop::collection::vec(any::<u32>(), 64 * VGPRS),
            prop::collection::vec(instruction(s + 1), 1..10),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(1000)))]

    #[test]
    fn rtl_matches_golden_model((s, owner, init, mut ops) in case()) {
        let cfg = config(s);
        let spm = |k: usize| (0..64).filter(|&l| owner[l] == k).fold(0u64, |m, l| m | 1 << l);
        for o in &mut ops {
            o.spm = spm(o.simd);
        }
        let mut rtl = SimdClusterRtl::new(&cfg).unwrap();
        let mut model = SimdModel::new(64, VGPRS, s + 1);
        for (i, &value) in init.iter().enumerate() {
            model.set_vgpr(i / 64, i % 64, value);
        }
        rtl.load_vrf(model.vrf()).unwrap();
        let timing = rtl.run(&ops).unwrap();
        for o in &ops {
            model.execute(o);
        }
        for (i, t) in timing.iter().enumerate() {
            prop_assert_eq!(t.done - t.issued + 1, latency(64), "instruction {}", i);
        }
        for k in 0..=s {
            prop_assert_eq!(rtl.vcc(k), model.vcc(k), "VCC of (Sp)SIMD {}", k);
        }
        prop_assert_eq!(rtl.dump_vrf().unwrap(), model.vrf().to_vec());
    }
}

#[test]
fn simd_and_spsimd_run_in_parallel_with_the_documented_latency() {
    let cfg = config(1);
    assert_eq!(valu_cycles(&cfg), latency(64));
    let mut rtl = SimdClusterRtl::new(&cfg).unwrap();
    let half = 0xFFFF_FFFFu64;
    let op = |simd, spm| VectorOp {
        simd,
        op: AluOp::Add,
        dst: 1,
        src0: 1,
        src1: OperandB::Imm(7),
        exec: u64::MAX,
        spm,
    };
    let timing = rtl.run(&[op(0, half), op(1, !half), op(0, half)]).unwrap();
    assert_eq!(
        timing[1].issued,
        timing[0].issued + 1,
        "the SpSIMD starts while the SIMD runs"
    );
    assert_eq!(
        timing[2].issued,
        timing[0].done + 1,
        "the SIMD takes its next op after done"
    );
    let vrf = rtl.dump_vrf().unwrap();
    assert_eq!((vrf[1][0], vrf[1][63]), (14, 7));
}

#[test]
fn vcd_trace_declares_ports_and_records_the_passes() {
    let buf = TraceBuffer::default();
    let mut rtl = SimdClusterRtl::with_vcd(&config(1), buf.clone()).unwrap();
    rtl.run(&[VectorOp {
        simd: 0,
        op: AluOp::CmpEq,
        dst: 0,
        src0: 0,
        src1: OperandB::Imm(0),
        exec: u64::MAX,
        spm: u64::MAX,
    }])
    .unwrap();
    assert_eq!(rtl.vcc(0), u64::MAX);
    drop(rtl);
    let text = buf.contents();
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    header.find_var(&["uut", "issue"]).expect("issue declared");
    let busy = header
        .find_var(&["uut", "busy"])
        .expect("busy declared")
        .code;
    let changes = parser
        .filter_map(Result::ok)
        .filter(|c| matches!(c, vcd::Command::ChangeVector(id, _) if *id == busy))
        .count();
    assert!(changes >= 2, "busy changed {changes} times");
}
