//! The reconvergence stacks' RTL on the digest's worked traces (§2.8), against the golden
//! models over random operation sequences (valid and invalid), their VCD traces and Verilog.

use proptest::prelude::*;
use pws_hdl::reconvergence::{DualPathStack, PdomStack};
use pws_isa::testing::proptest_cases;
use pws_sim::Driver;
use pws_sim::TraceBuffer;
use pws_verify::units::reconvergence::{
    rtl, DpeEntry, DualPathModel, Op, PdomModel, Side, SpeEntry, Status,
};
use rust_hdl::core::prelude::Block;

// The CFG of S2 Fig. 1 / Fig. 6: A branches to B and C (IPDOM G); C branches to D and E
// (IPDOM F); F flows to G. One PC per instruction.
const A0: u32 = 0;
const A1: u32 = 1;
const A2: u32 = 2;
const B0: u32 = 3;
const B1: u32 = 4;
const B2: u32 = 5;
const C0: u32 = 6;
const C1: u32 = 7;
const C2: u32 = 8;
const D0: u32 = 9;
const D1: u32 = 10;
const D2: u32 = 11;
const E0: u32 = 12;
const E1: u32 = 13;
const E2: u32 = 14;
const F0: u32 = 15;
const G0: u32 = 16;
const G1: u32 = 17;
const G2: u32 = 18;
const END: u32 = 19;

const NAMES: [&str; 20] = [
    "A0", "A1", "A2", "B0", "B1", "B2", "C0", "C1", "C2", "D0", "D1", "D2", "E0", "E1", "E2", "F0",
    "G0", "G1", "G2", "END",
];

fn name(pc: u32) -> String {
    NAMES
        .get(pc as usize)
        .map_or_else(|| pc.to_string(), |n| n.to_string())
}

fn spe_text(entries: &[SpeEntry]) -> String {
    let e: Vec<String> = entries
        .iter()
        .map(|e| format!("{}/{}/{:04b}", name(e.pc), name(e.rpc), e.mask))
        .collect();
    format!("[{}]", e.join(", "))
}

/// Valid slots as `PC/mask`, invalid ones as `-`.
fn dpe_text(entries: &[DpeEntry]) -> String {
    let slot = |s: &pws_verify::units::reconvergence::PathSlot| {
        if s.valid {
            format!("{}/{:04b}", name(s.pc), s.mask)
        } else {
            "-".to_string()
        }
    };
    let e: Vec<String> = entries
        .iter()
        .map(|e| format!("{{L:{} R:{} @{}}}", slot(&e.l), slot(&e.r), name(e.rpc)))
        .collect();
    format!("[{}]", e.join(", "))
}

fn branch(target: u32, fall_through: u32, taken: u64, ipdom: u32) -> Op {
    Op::Branch {
        target,
        fall_through,
        taken,
        ipdom,
    }
}

fn adv(pc: u32) -> Op {
    Op::Advance { pc }
}

/// Runs `steps` on the RTL and the golden model. Each step is (the PC issued, its effect on
/// the stack, the expected stack afterwards or "" to skip). The issued PC must be the top
/// entry's PC. Returns the issued (PC, mask) sequence and the maximum depth.
fn run_spe(init: Op, steps: &[(u32, Op, &str)]) -> (Vec<(u32, u64)>, usize) {
    let mut d = Driver::new(PdomStack::new(8).unwrap()).unwrap();
    let mut model = PdomModel::new(8);
    assert_eq!(rtl::apply_pdom(&mut d, init).unwrap(), Status::Ok);
    model.apply(init);
    let mut issued = Vec::new();
    let mut max_depth = 1;
    for (i, &(pc, op, expected)) in steps.iter().enumerate() {
        let top = *model.entries.last().expect("a path to issue from");
        assert_eq!(top.pc, pc, "step {i}: the top entry issues {}", name(pc));
        assert_eq!(
            d.uut().tos_pc_o.val().index() as u32,
            pc,
            "step {i}: RTL top PC"
        );
        issued.push((pc, top.mask));
        assert_eq!(rtl::apply_pdom(&mut d, op).unwrap(), Status::Ok, "step {i}");
        assert_eq!(model.apply(op), Status::Ok, "step {i}: golden");
        let entries = rtl::pdom_entries(&mut d).unwrap();
        assert_eq!(entries, model.entries, "step {i}: RTL == golden");
        if !expected.is_empty() {
            assert_eq!(spe_text(&entries), expected, "step {i} ({})", name(pc));
        }
        max_depth = max_depth.max(entries.len());
    }
    (issued, max_depth)
}

/// As [`run_spe`] for the dual-path stack; each step names the issuing path. Also returns
/// S2's ΣNumPath: the valid paths of the top entry at each issue.
fn run_dpe(init: Op, steps: &[(Side, u32, Op, &str)]) -> (Vec<(u32, u64)>, usize, usize) {
    let mut d = Driver::new(DualPathStack::new(8).unwrap()).unwrap();
    let mut model = DualPathModel::new(8);
    assert_eq!(rtl::apply_dpe(&mut d, Side::L, init).unwrap(), Status::Ok);
    model.apply(Side::L, init);
    let mut issued = Vec::new();
    let (mut max_depth, mut num_path) = (1, 0);
    for (i, &(side, pc, op, expected)) in steps.iter().enumerate() {
        let top = *model.entries.last().expect("a path to issue from");
        let slot = if side == Side::L { top.l } else { top.r };
        assert!(
            slot.valid && slot.pc == pc,
            "step {i}: {side:?} issues {}",
            name(pc)
        );
        issued.push((pc, slot.mask));
        num_path += top.paths();
        let rtl_paths = d.uut().tos_l_valid_o.val() as usize + d.uut().tos_r_valid_o.val() as usize;
        assert_eq!(rtl_paths, top.paths(), "step {i}: RTL schedulable paths");
        assert_eq!(
            rtl::apply_dpe(&mut d, side, op).unwrap(),
            Status::Ok,
            "step {i}"
        );
        assert_eq!(model.apply(side, op), Status::Ok, "step {i}: golden");
        let entries = rtl::dpe_entries(&mut d).unwrap();
        assert_eq!(entries, model.entries, "step {i}: RTL == golden");
        if !expected.is_empty() {
            assert_eq!(dpe_text(&entries), expected, "step {i} ({})", name(pc));
        }
        max_depth = max_depth.max(entries.len());
    }
    (issued, max_depth, num_path)
}

const ALL: u64 = 0b1111;
const INIT: Op = Op::Init {
    pc: A0,
    end: END,
    mask: ALL,
};

#[test]
fn spe_worked_trace_of_the_digest() {
    let steps = [
        (A0, adv(A1), "[A1/END/1111]"),
        (A1, adv(A2), ""),
        (
            A2,
            branch(B0, C0, 0b0011, G0),
            "[G0/END/1111, C0/G0/1100, B0/G0/0011]",
        ),
        (B0, adv(B1), ""),
        (B1, adv(B2), ""),
        (B2, adv(G0), "[G0/END/1111, C0/G0/1100]"),
        (C0, adv(C1), ""),
        (C1, adv(C2), ""),
        (
            C2,
            branch(D0, E0, 0b0100, F0),
            "[G0/END/1111, F0/G0/1100, E0/F0/1000, D0/F0/0100]",
        ),
        (D0, adv(D1), ""),
        (D1, adv(D2), ""),
        (D2, adv(F0), "[G0/END/1111, F0/G0/1100, E0/F0/1000]"),
        (E0, adv(E1), ""),
        (E1, adv(E2), ""),
        (E2, adv(F0), "[G0/END/1111, F0/G0/1100]"),
        (F0, adv(G0), "[G0/END/1111]"),
        (G0, adv(G1), ""),
        (G1, adv(G2), ""),
        (G2, adv(END), "[]"),
    ];
    let (issued, max_depth) = run_spe(INIT, &steps);
    assert_eq!(issued.len(), 19, "19 warp instructions");
    assert_eq!(max_depth, 4, "max depth 4");
    let masks: Vec<u64> = issued.iter().map(|i| i.1).collect();
    assert_eq!(masks[3..6], [0b0011; 3], "B runs first with 0011");
    assert_eq!(masks[9..12], [0b0100; 3], "then D with 0100");
    assert_eq!(masks[15], 0b1100, "F with 1100");
}

#[test]
fn dpe_worked_trace_of_the_digest() {
    use Side::{L, R};
    let steps = [
        (L, A0, adv(A1), "[{L:A1/1111 R:- @END}]"),
        (L, A1, adv(A2), ""),
        (
            L,
            A2,
            branch(B0, C0, 0b0011, G0),
            "[{L:G0/1111 R:- @END}, {L:B0/0011 R:C0/1100 @G0}]",
        ),
        (L, B0, adv(B1), ""),
        (R, C0, adv(C1), ""),
        (R, C1, adv(C2), ""),
        (
            R,
            C2,
            branch(D0, E0, 0b0100, F0),
            "[{L:G0/1111 R:- @END}, {L:B1/0011 R:F0/1100 @G0}, {L:D0/0100 R:E0/1000 @F0}]",
        ),
        (L, D0, adv(D1), ""),
        (R, E0, adv(E1), ""),
        (L, D1, adv(D2), ""),
        (R, E1, adv(E2), ""),
        (
            L,
            D2,
            adv(F0),
            "[{L:G0/1111 R:- @END}, {L:B1/0011 R:F0/1100 @G0}, {L:- R:E2/1000 @F0}]",
        ),
        (
            R,
            E2,
            adv(F0),
            "[{L:G0/1111 R:- @END}, {L:B1/0011 R:F0/1100 @G0}]",
        ),
        (L, B1, adv(B2), ""),
        (
            R,
            F0,
            adv(G0),
            "[{L:G0/1111 R:- @END}, {L:B2/0011 R:- @G0}]",
        ),
        (L, B2, adv(G0), "[{L:G0/1111 R:- @END}]"),
        (L, G0, adv(G1), ""),
        (L, G1, adv(G2), ""),
        (L, G2, adv(END), "[]"),
    ];
    let (issued, max_depth, num_path) = run_dpe(INIT, &steps);
    assert_eq!(issued.len(), 19, "19 warp instructions, as SPE");
    assert_eq!(max_depth, 3, "max depth 3");
    assert_eq!(num_path, 30, "AvgPath = 30/19");
    // DPE executes the same (block, mask) multiset as SPE.
    let spe_issued = {
        let mut v: Vec<(u32, u64)> = vec![
            (A0, ALL),
            (A1, ALL),
            (A2, ALL),
            (B0, 3),
            (B1, 3),
            (B2, 3),
            (C0, 12),
            (C1, 12),
            (C2, 12),
            (D0, 4),
            (D1, 4),
            (D2, 4),
            (E0, 8),
            (E1, 8),
            (E2, 8),
            (F0, 12),
            (G0, ALL),
            (G1, ALL),
            (G2, ALL),
        ];
        v.sort_unstable();
        v
    };
    let mut dpe_issued = issued;
    dpe_issued.sort_unstable();
    assert_eq!(dpe_issued, spe_issued);
}

// If-only: A's branch sends t0, t1 to B and t2, t3 straight to D = IPDOM.
const IF_B: u32 = 1;
const IF_D: u32 = 2;

#[test]
fn if_only_branch_pushes_one_path() {
    let init = Op::Init {
        pc: 0,
        end: 9,
        mask: ALL,
    };
    let (_, depth) = run_spe(
        init,
        &[
            (0, branch(IF_B, IF_D, 0b0011, IF_D), ""),
            (IF_B, adv(IF_D), ""),
        ],
    );
    assert_eq!(depth, 2);
    let mut spe = PdomModel::new(4);
    spe.apply(init);
    spe.apply(branch(IF_B, IF_D, 0b0011, IF_D));
    assert_eq!(
        spe.entries,
        vec![
            SpeEntry {
                pc: IF_D,
                rpc: 9,
                mask: ALL
            },
            SpeEntry {
                pc: IF_B,
                rpc: IF_D,
                mask: 0b0011
            }
        ]
    );
    let (_, _, num_path) = run_dpe(
        init,
        &[
            (Side::L, 0, branch(IF_B, IF_D, 0b0011, IF_D), ""),
            (Side::L, IF_B, adv(IF_D), ""),
        ],
    );
    assert_eq!(
        num_path, 2,
        "one schedulable path at each issue: DPE behaves as SPE"
    );
}

// Do-while loop: body L0, L1, back-branch BRb; X = IPDOM(BRb). Trip counts 1, 2, 2, 3.
const L0: u32 = 0;
const L1: u32 = 1;
const BRB: u32 = 2;
const X: u32 = 3;
const OUTER: u32 = 10;

#[test]
fn loop_trace_replaces_the_top_entry_after_the_first_iteration() {
    let init = Op::Init {
        pc: L0,
        end: OUTER,
        mask: ALL,
    };
    let e = |pc, rpc, mask| SpeEntry { pc, rpc, mask };
    let mut d = Driver::new(PdomStack::new(2).unwrap()).unwrap();
    let mut model = PdomModel::new(2);
    rtl::apply_pdom(&mut d, init).unwrap();
    model.apply(init);
    let mut body_masks = Vec::new();
    // Back-branch outcomes: lanes that iterate again (t0 leaves after 1, t1 and t2 after 2).
    let iterations = [
        (0b1110, vec![e(X, OUTER, ALL), e(L0, X, 0b1110)]),
        (0b1000, vec![e(X, OUTER, ALL), e(L0, X, 0b1000)]),
        (0b0000, vec![e(X, OUTER, ALL)]),
    ];
    for (again, expected) in iterations {
        body_masks.push(model.entries.last().unwrap().mask);
        for op in [adv(L1), adv(BRB), branch(L0, X, again, X)] {
            assert_eq!(rtl::apply_pdom(&mut d, op).unwrap(), Status::Ok);
            assert_eq!(model.apply(op), Status::Ok);
        }
        assert_eq!(rtl::pdom_entries(&mut d).unwrap(), expected);
        assert_eq!(model.entries, expected);
    }
    assert_eq!(body_masks, vec![0b1111, 0b1110, 0b1000]);
}

// Nested branches sharing the IPDOM J: if (c1) { if (c2) X else Y } else Z; J.
const N_IN: u32 = 1;
const N_X: u32 = 2;
const N_Y: u32 = 3;
const N_Z: u32 = 4;
const N_J: u32 = 5;
const N_END: u32 = 9;

#[test]
fn nested_branches_sharing_an_ipdom() {
    let init = Op::Init {
        pc: 0,
        end: N_END,
        mask: ALL,
    };
    let outer = branch(N_IN, N_Z, 0b0011, N_J);
    let inner = branch(N_X, N_Y, 0b0001, N_J);
    let mut spe = Driver::new(PdomStack::new(4).unwrap()).unwrap();
    for op in [init, outer, inner] {
        assert_eq!(rtl::apply_pdom(&mut spe, op).unwrap(), Status::Ok);
    }
    let e = |pc, rpc, mask| SpeEntry { pc, rpc, mask };
    assert_eq!(
        rtl::pdom_entries(&mut spe).unwrap(),
        vec![
            e(N_J, N_END, ALL),
            e(N_Z, N_J, 0b1100),
            e(N_Y, N_J, 0b0010),
            e(N_X, N_J, 0b0001)
        ],
        "the top entry is replaced, no extra reconvergence entry"
    );

    let mut dpe = Driver::new(DualPathStack::new(4).unwrap()).unwrap();
    let mut model = DualPathModel::new(4);
    let script = [
        (Side::L, init),
        (Side::L, outer),
        (Side::L, inner),
        (Side::L, adv(N_J)),
        (Side::R, adv(N_J)),
    ];
    for (i, &(side, op)) in script.iter().enumerate() {
        assert_eq!(
            rtl::apply_dpe(&mut dpe, side, op).unwrap(),
            Status::Ok,
            "op {i}"
        );
        model.apply(side, op);
        assert_eq!(rtl::dpe_entries(&mut dpe).unwrap(), model.entries, "op {i}");
        if i == 2 {
            assert_eq!(model.entries.len(), 3);
            assert!(
                !model.entries[1].l.valid && model.entries[1].r.valid,
                "In parked invalid, Z suspended"
            );
        }
    }
    // X and Y reached J: the entry popped and Z is schedulable again; Z then reconverges.
    assert_eq!(model.entries.len(), 2);
    assert!(model.entries[1].r.valid && model.entries[1].r.pc == N_Z);
    assert_eq!(
        rtl::apply_dpe(&mut dpe, Side::R, adv(N_J)).unwrap(),
        Status::Ok
    );
    let entries = rtl::dpe_entries(&mut dpe).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].l.pc, entries[0].l.mask, entries[0].l.valid),
        (N_J, ALL, true)
    );
}

#[test]
fn errors_leave_the_stack_unchanged() {
    let mut spe = Driver::new(PdomStack::new(2).unwrap()).unwrap();
    assert_eq!(
        rtl::apply_pdom(&mut spe, adv(1)).unwrap(),
        Status::Underflow
    );
    rtl::apply_pdom(
        &mut spe,
        Op::Init {
            pc: 0,
            end: 9,
            mask: ALL,
        },
    )
    .unwrap();
    let before = rtl::pdom_entries(&mut spe).unwrap();
    assert_eq!(
        rtl::apply_pdom(&mut spe, branch(1, 2, 0b0011, 3)).unwrap(),
        Status::Overflow,
        "two pushes on one free entry"
    );
    assert_eq!(rtl::pdom_entries(&mut spe).unwrap(), before);
    assert_eq!(
        rtl::apply_pdom(&mut spe, Op::Nop).unwrap(),
        Status::Ok,
        "status is per operation"
    );
    assert_eq!(
        rtl::apply_pdom(&mut spe, branch(1, 3, 0b0011, 3)).unwrap(),
        Status::Ok,
        "one push fits"
    );
    assert_eq!(
        rtl::apply_pdom(&mut spe, branch(4, 5, 0b0001, 6)).unwrap(),
        Status::Overflow
    );
    assert!(PdomStack::new(0).is_err() && PdomStack::new(64).is_err());

    let mut dpe = Driver::new(DualPathStack::new(1).unwrap()).unwrap();
    assert_eq!(
        rtl::apply_dpe(&mut dpe, Side::L, adv(1)).unwrap(),
        Status::Underflow
    );
    rtl::apply_dpe(
        &mut dpe,
        Side::L,
        Op::Init {
            pc: 0,
            end: 9,
            mask: ALL,
        },
    )
    .unwrap();
    assert_eq!(
        rtl::apply_dpe(&mut dpe, Side::R, adv(1)).unwrap(),
        Status::InvalidPath
    );
    assert_eq!(
        rtl::apply_dpe(&mut dpe, Side::L, branch(1, 2, 0b0011, 3)).unwrap(),
        Status::Overflow
    );
    assert_eq!(rtl::dpe_entries(&mut dpe).unwrap().len(), 1);
    assert!(DualPathStack::new(0).is_err());
}

fn vector_changes(text: &[u8], var: &[&str]) -> usize {
    let mut parser = vcd::Parser::new(text);
    let header = parser.parse_header().unwrap();
    let code = header
        .find_var(var)
        .unwrap_or_else(|| panic!("{var:?} declared"))
        .code;
    parser
        .filter_map(Result::ok)
        .filter(|c| matches!(c, vcd::Command::ChangeVector(id, _) if *id == code))
        .count()
}

#[test]
fn vcd_traces_declare_the_ports_and_record_changes() {
    let buf = TraceBuffer::default();
    let mut d = Driver::with_vcd(PdomStack::new(4).unwrap(), buf.clone()).unwrap();
    rtl::apply_pdom(&mut d, INIT).unwrap();
    rtl::apply_pdom(&mut d, branch(B0, C0, 0b0011, G0)).unwrap();
    rtl::apply_pdom(&mut d, adv(B1)).unwrap();
    drop(d);
    let text = buf.contents();
    assert!(vector_changes(&text, &["uut", "depth_o"]) >= 2);
    assert!(vector_changes(&text, &["uut", "tos_pc_o"]) >= 3);

    let buf = TraceBuffer::default();
    let mut d = Driver::with_vcd(DualPathStack::new(4).unwrap(), buf.clone()).unwrap();
    rtl::apply_dpe(&mut d, Side::L, INIT).unwrap();
    rtl::apply_dpe(&mut d, Side::L, branch(B0, C0, 0b0011, G0)).unwrap();
    rtl::apply_dpe(&mut d, Side::R, adv(C1)).unwrap();
    drop(d);
    let text = buf.contents();
    assert!(vector_changes(&text, &["uut", "tos_r_pc_o"]) >= 2);
    assert!(vector_changes(&text, &["uut", "depth_o"]) >= 2);
}

#[test]
fn verilog_of_both_stacks_passes_yosys() {
    let mut spe = PdomStack::new(8).unwrap();
    spe.connect_all();
    let vlog = rust_hdl::core::prelude::generate_verilog(&spe);
    assert!(vlog.contains("tos_pc_o"));
    rust_hdl::core::prelude::yosys_validate("pdom_stack_8", &vlog)
        .unwrap_or_else(|e| panic!("yosys rejects the PDOM stack: {e:?}"));
    let mut dpe = DualPathStack::new(8).unwrap();
    dpe.connect_all();
    let vlog = rust_hdl::core::prelude::generate_verilog(&dpe);
    assert!(vlog.contains("tos_l_valid_o"));
    rust_hdl::core::prelude::yosys_validate("dual_path_stack_8", &vlog)
        .unwrap_or_else(|e| panic!("yosys rejects the dual-path stack: {e:?}"));
}

/// Operations over a small PC space, so targets often equal RPCs and IPDOMs; masks mostly on
/// four lanes (often splitting them), sometimes on 64; Init and Nop mixed in.
fn op() -> impl Strategy<Value = Op> {
    let pc = 0u32..6;
    let mask = prop_oneof![4 => 0u64..16, 1 => any::<u64>()];
    prop_oneof![
        1 => Just(Op::Nop),
        1 => (pc.clone(), pc.clone(), mask.clone()).prop_map(|(pc, end, mask)| Op::Init { pc, end, mask }),
        4 => pc.clone().prop_map(|pc| Op::Advance { pc }),
        6 => (pc.clone(), pc.clone(), mask, pc).prop_map(|(target, fall_through, taken, ipdom)| {
            Op::Branch { target, fall_through, taken, ipdom }
        }),
    ]
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::L), Just(Side::R)]
}

/// Most sequences start with Init; the rest exercise the empty stack.
fn program() -> impl Strategy<Value = (bool, Vec<(Side, Op)>)> {
    (
        prop::bool::weighted(0.9),
        prop::collection::vec((side(), op()), 1..40),
    )
}

fn init_op() -> Op {
    Op::Init {
        pc: 0,
        end: 5,
        mask: 0b1111,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(1000)))]

    #[test]
    fn pdom_rtl_equals_the_golden_model(depth in 1usize..=6, (init, ops) in program()) {
        let mut d = Driver::new(PdomStack::new(depth).unwrap()).unwrap();
        let mut model = PdomModel::new(depth);
        let ops: Vec<Op> = init.then(init_op).into_iter().chain(ops.into_iter().map(|o| o.1)).collect();
        for (i, op) in ops.into_iter().enumerate() {
            let status = rtl::apply_pdom(&mut d, op).unwrap();
            prop_assert_eq!(status, model.apply(op), "op {} {:?}", i, op);
            prop_assert_eq!(rtl::pdom_entries(&mut d).unwrap(), model.entries.clone(), "op {} {:?}", i, op);
            let u = d.uut();
            prop_assert_eq!(u.empty_o.val(), model.entries.is_empty());
            if let Some(top) = model.entries.last() {
                prop_assert_eq!(u.tos_pc_o.val().index() as u32, top.pc);
                prop_assert_eq!(u.tos_rpc_o.val().index() as u32, top.rpc);
                prop_assert_eq!(u.tos_mask_o.val().to_u64(), top.mask);
            }
        }
    }

    #[test]
    fn dual_path_rtl_equals_the_golden_model(depth in 1usize..=6, (init, ops) in program()) {
        let mut d = Driver::new(DualPathStack::new(depth).unwrap()).unwrap();
        let mut model = DualPathModel::new(depth);
        let ops: Vec<(Side, Op)> = init.then(|| (Side::L, init_op())).into_iter().chain(ops).collect();
        for (i, (side, op)) in ops.into_iter().enumerate() {
            let status = rtl::apply_dpe(&mut d, side, op).unwrap();
            prop_assert_eq!(status, model.apply(side, op), "op {} {:?} {:?}", i, side, op);
            prop_assert_eq!(rtl::dpe_entries(&mut d).unwrap(), model.entries.clone(), "op {} {:?} {:?}", i, side, op);
            let u = d.uut();
            prop_assert_eq!(u.empty_o.val(), model.entries.is_empty());
            if let Some(top) = model.entries.last() {
                prop_assert_eq!(u.tos_l_valid_o.val(), top.l.valid);
                prop_assert_eq!(u.tos_r_valid_o.val(), top.r.valid);
                prop_assert_eq!(u.tos_rpc_o.val().index() as u32, top.rpc);
            }
            // Invariant of the replacement rule: an entry below the top always has a path to
            // resume, so pops never cascade.
            for e in model.entries.iter().rev().skip(1) {
                prop_assert!(e.l.valid || e.r.valid, "dead entry below the top: {:?}", model.entries);
            }
        }
    }
}
