//! The swizzle unit's RTL against the digest's test vectors (S1 §1.9) and against the golden
//! model over random masks, its VCD trace, and its Verilog.

use proptest::prelude::*;
use pws_hdl::swizzle::SwizzleUnit;
use pws_isa::testing::proptest_cases;
use pws_sim::Driver;
use pws_sim::TraceBuffer;
use pws_verify::units::swizzle::{
    base_cycles, bcc_cycles, rtl, scc_cycles, schedule, write_back, Geometry, Mode, Pass,
};
use rust_hdl::core::prelude::Block;

const SIMD16_ON_4: Geometry = Geometry {
    width: 16,
    lanes: 4,
};
const WAVE64_ON_16: Geometry = Geometry {
    width: 64,
    lanes: 16,
};

fn rtl_run(g: Geometry, mask: u64, mode: Mode) -> rtl::Run {
    rtl::run(g.width, g.lanes, mask, mode, None).expect("the RTL runs")
}

/// Parses the digest's notation: passes separated by `/`, positions by spaces, `Qq.l` = lane
/// l of quad q, `-` = idle.
fn parse_schedule(text: &str) -> Vec<Pass> {
    text.split('/')
        .map(|pass| {
            pass.split_whitespace()
                .map(|slot| {
                    slot.strip_prefix('Q').map(|ql| {
                        let (q, l) = ql.split_once('.').expect("Qq.l");
                        q.parse::<usize>().unwrap() * 4 + l.parse::<usize>().unwrap()
                    })
                })
                .collect()
        })
        .collect()
}

/// Digest §1.9, SIMD16 on the 4-wide ALU: mask, BCC passes, SCC schedule.
const SIMD16_TABLE: &[(u64, usize, &str)] = &[
    (
        0xFFFF,
        4,
        "Q0.0 Q0.1 Q0.2 Q0.3 / Q1.0 Q1.1 Q1.2 Q1.3 / Q2.0 Q2.1 Q2.2 Q2.3 / Q3.0 Q3.1 Q3.2 Q3.3",
    ),
    (0x00FF, 2, "Q0.0 Q0.1 Q0.2 Q0.3 / Q1.0 Q1.1 Q1.2 Q1.3"),
    (0xFF00, 2, "Q2.0 Q2.1 Q2.2 Q2.3 / Q3.0 Q3.1 Q3.2 Q3.3"),
    (0xF0F0, 2, "Q1.0 Q1.1 Q1.2 Q1.3 / Q3.0 Q3.1 Q3.2 Q3.3"),
    (0x0F0F, 2, "Q0.0 Q0.1 Q0.2 Q0.3 / Q2.0 Q2.1 Q2.2 Q2.3"),
    (0xAAAA, 4, "Q0.1 Q1.1 Q2.1 Q0.3 / Q1.3 Q3.1 Q2.3 Q3.3"),
    (0x5555, 4, "Q0.0 Q1.0 Q0.2 Q2.0 / Q3.0 Q1.2 Q2.2 Q3.2"),
    (0xCCCC, 4, "Q0.2 Q1.2 Q2.2 Q0.3 / Q1.3 Q2.3 Q3.2 Q3.3"),
    (0x1111, 4, "Q0.0 Q1.0 Q2.0 Q3.0"),
    (0x8421, 4, "Q0.0 Q1.1 Q2.2 Q3.3"),
    (0x1248, 4, "Q3.0 Q2.1 Q1.2 Q0.3"),
    (0x0101, 2, "Q0.0 Q2.0 - -"),
    (0x8001, 2, "Q0.0 - - Q3.3"),
    (0x0111, 3, "Q0.0 Q1.0 Q2.0 -"),
    (0x0001, 1, "Q0.0 - - -"),
    (0x0003, 1, "Q0.0 Q0.1 - -"),
    (0x000F, 1, "Q0.0 Q0.1 Q0.2 Q0.3"),
    (0x00F0, 1, "Q1.0 Q1.1 Q1.2 Q1.3"),
    (0x00F1, 2, "Q0.0 - - - / Q1.0 Q1.1 Q1.2 Q1.3"),
    (0x0F01, 2, "Q0.0 - - - / Q2.0 Q2.1 Q2.2 Q2.3"),
    (0x3331, 4, "Q0.0 Q1.1 Q1.0 Q2.0 / Q3.0 Q2.1 Q3.1 -"),
    (0x1357, 4, "Q0.0 Q0.1 Q0.2 Q1.0 / Q2.0 Q2.1 Q1.2 Q3.0"),
    (
        0x7777,
        4,
        "Q0.0 Q0.1 Q0.2 Q1.0 / Q2.0 Q1.1 Q1.2 Q2.1 / Q3.0 Q3.1 Q2.2 Q3.2",
    ),
    (
        0xFFF0,
        3,
        "Q1.0 Q1.1 Q1.2 Q1.3 / Q2.0 Q2.1 Q2.2 Q2.3 / Q3.0 Q3.1 Q3.2 Q3.3",
    ),
    (
        0xFF0F,
        3,
        "Q0.0 Q0.1 Q0.2 Q0.3 / Q2.0 Q2.1 Q2.2 Q2.3 / Q3.0 Q3.1 Q3.2 Q3.3",
    ),
    (
        0xFFFE,
        4,
        "- Q0.1 Q0.2 Q0.3 / Q1.0 Q1.1 Q1.2 Q1.3 / Q2.0 Q2.1 Q2.2 Q2.3 / Q3.0 Q3.1 Q3.2 Q3.3",
    ),
];

#[test]
fn rtl_reproduces_the_digest_simd16_mask_table() {
    for &(mask, bcc, scc) in SIMD16_TABLE {
        let expected = parse_schedule(scc);
        let run = rtl_run(SIMD16_ON_4, mask, Mode::Scc);
        assert_eq!(run.passes, expected, "SCC schedule of {mask:#06x}");
        assert_eq!(
            rtl_run(SIMD16_ON_4, mask, Mode::Bcc).passes.len(),
            bcc,
            "BCC of {mask:#06x}"
        );
        assert_eq!(
            rtl_run(SIMD16_ON_4, mask, Mode::None).passes.len(),
            4,
            "base of {mask:#06x}"
        );
        assert_eq!(
            schedule(mask, SIMD16_ON_4, Mode::Scc),
            expected,
            "golden of {mask:#06x}"
        );
    }
}

#[test]
fn rtl_reproduces_the_digest_simd8_and_wave64_cycle_counts() {
    let simd8 = Geometry { width: 8, lanes: 4 };
    for &(mask, bcc, scc) in &[
        (0xFF, 2, 2),
        (0x0F, 1, 1),
        (0xF0, 1, 1),
        (0x11, 2, 1),
        (0x81, 2, 1),
        (0xAA, 2, 1),
        (0x01, 1, 1),
        (0x77, 2, 2),
    ] {
        assert_eq!(
            rtl_run(simd8, mask, Mode::Bcc).passes.len(),
            bcc,
            "SIMD8 BCC {mask:#x}"
        );
        assert_eq!(
            rtl_run(simd8, mask, Mode::Scc).passes.len(),
            scc,
            "SIMD8 SCC {mask:#x}"
        );
    }
    for &(mask, bcc, scc) in &[
        (u64::MAX, 4, 4),
        (0x0000_0000_0000_FFFF, 1, 1),
        (0xFFFF_FFFF_FFFF_0000, 3, 3),
        (0x5555_5555_5555_5555, 4, 2),
        (0x00FF_00FF_00FF_00FF, 4, 2),
        (0x0001_0001_0001_0001, 4, 1),
        (0x8000_0000_0000_0001, 2, 1),
        (0x0000_FFFF_0000_FFFF, 2, 2),
        (0xFFFF_0000_0000_FFFF, 2, 2),
        (0x0000_0000_FFFF_FFFF, 2, 2),
        (0x1, 1, 1),
    ] {
        assert_eq!(
            rtl_run(WAVE64_ON_16, mask, Mode::Bcc).passes.len(),
            bcc,
            "wave64 BCC {mask:#x}"
        );
        assert_eq!(
            rtl_run(WAVE64_ON_16, mask, Mode::Scc).passes.len(),
            scc,
            "wave64 SCC {mask:#x}"
        );
        assert_eq!(
            rtl_run(WAVE64_ON_16, mask, Mode::None).passes.len(),
            4,
            "wave64 base {mask:#x}"
        );
    }
}

#[test]
fn an_all_zero_mask_issues_no_pass_under_compaction_and_every_pass_without() {
    for g in [SIMD16_ON_4, WAVE64_ON_16] {
        for mode in [Mode::Bcc, Mode::Scc] {
            let run = rtl_run(g, 0, mode);
            assert!(run.passes.is_empty(), "{g:?} {mode:?}");
            assert_eq!(run.busy_cycles, 1, "the decision cycle, {g:?} {mode:?}");
        }
        let run = rtl_run(g, 0, Mode::None);
        assert_eq!(run.passes.len(), base_cycles(g));
        assert!(run.passes.iter().flatten().all(Option::is_none));
    }
}

#[test]
fn start_while_busy_is_ignored_and_back_to_back_instructions_work() {
    let mut d = Driver::new(SwizzleUnit::new(16, 4).unwrap()).unwrap();
    d.uut_mut().set_mask(0xFFFF);
    d.uut_mut().mode_i.next = rtl::hw_mode(Mode::None);
    d.uut_mut().start_i.next = true;
    d.tick().unwrap();
    // start_i stays high through the busy cycles: the unit must not restart.
    d.uut_mut().set_mask(0x0001);
    let mut passes = 0;
    for _ in 0..4 {
        d.settle().unwrap();
        assert!(!d.uut().ready_o.val());
        passes += d.uut().pass_valid_o.val() as usize;
        d.tick().unwrap();
    }
    assert_eq!(passes, 4);
    d.uut_mut().start_i.next = false;
    let next = rtl::issue(&mut d, 0xAAAA, Mode::Scc).unwrap();
    assert_eq!(
        next.passes,
        parse_schedule("Q0.1 Q1.1 Q2.1 Q0.3 / Q1.3 Q3.1 Q2.3 Q3.3")
    );
}

#[test]
fn bad_geometries_are_rejected() {
    assert!(
        SwizzleUnit::new(64, 8).is_err(),
        "8 groups: more than the 4 crossbars"
    );
    assert!(SwizzleUnit::new(24, 16).is_err());
    assert!(SwizzleUnit::new(64, 32).is_err());
    assert!(SwizzleUnit::new(0, 4).is_err());
    assert!(SwizzleUnit::new(12, 4).is_ok(), "3 groups of 4");
}

#[test]
fn vcd_trace_declares_the_ports_and_records_the_passes() {
    let buf = TraceBuffer::default();
    let run = rtl::run(16, 4, 0xAAAA, Mode::Scc, Some(Box::new(buf.clone()))).unwrap();
    assert_eq!(run.passes.len(), 2);
    let text = buf.contents();
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    let pass_valid = header
        .find_var(&["uut", "pass_valid_o"])
        .expect("pass_valid_o declared");
    let src = header
        .find_var(&["uut", "src_o$1"])
        .expect("src_o$1 declared");
    assert!(
        header.find_var(&["uut", "wb_pos_o$15"]).is_some(),
        "wb_pos_o$15 declared"
    );
    let mut valid_changes = 0;
    let mut src_values = Vec::new();
    for cmd in parser {
        match cmd.unwrap() {
            vcd::Command::ChangeScalar(id, _) if id == pass_valid.code => valid_changes += 1,
            vcd::Command::ChangeVector(id, v) if id == src.code => src_values.push(v),
            _ => {}
        }
    }
    assert!(
        valid_changes >= 2,
        "pass_valid_o rises and falls: {valid_changes}"
    );
    assert!(
        src_values.len() >= 2,
        "position 1's source lane changes: {src_values:?}"
    );
}

#[test]
fn verilog_of_both_geometries_passes_yosys() {
    for (w, l) in [(16, 4), (64, 16)] {
        let mut unit = SwizzleUnit::new(w, l).unwrap();
        unit.connect_all();
        let vlog = rust_hdl::core::prelude::generate_verilog(&unit);
        assert!(vlog.contains("module top"));
        assert!(vlog.contains("pass_valid_o"));
        rust_hdl::core::prelude::yosys_validate(&format!("swizzle_{w}x{l}"), &vlog)
            .unwrap_or_else(|e| panic!("yosys rejects the {w}x{l} swizzle unit: {e:?}"));
    }
}

fn geometry() -> impl Strategy<Value = Geometry> {
    prop_oneof![
        3 => Just(WAVE64_ON_16),
        3 => Just(SIMD16_ON_4),
        2 => (1usize..=16, 1usize..=4).prop_map(|(lanes, groups)| Geometry { width: lanes * groups, lanes }),
    ]
}

/// Masks of every density: uniform, sparse (AND of two), dense (OR of two), and single groups.
fn mask() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a & b),
        (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, c)| a & b & c),
        (any::<u64>(), any::<u64>()).prop_map(|(a, b)| a | b),
        (0u32..64).prop_map(|i| 1u64 << i),
        Just(0u64),
    ]
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![Just(Mode::None), Just(Mode::Bcc), Just(Mode::Scc)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(1000)))]

    /// RTL == golden model: the same passes in the same order, the same write-back, and the
    /// cycle counts of S1's formulas.
    #[test]
    fn rtl_schedule_equals_the_golden_model(g in geometry(), raw_mask in mask(), mode in mode()) {
        // The RTL sees the raw mask: lanes beyond the wavefront must be ignored.
        let mask = g.clip(raw_mask);
        let run = rtl_run(g, raw_mask, mode);
        let golden = schedule(mask, g, mode);
        prop_assert_eq!(&run.passes, &golden);
        let expected_wb: Vec<_> = golden.iter().map(|p| write_back(p, g)).collect();
        prop_assert_eq!(&run.write_back, &expected_wb);
        let cycles = match mode {
            Mode::None => base_cycles(g),
            Mode::Bcc => bcc_cycles(mask, g),
            Mode::Scc => scc_cycles(mask, g),
        };
        prop_assert_eq!(run.passes.len(), cycles);
        prop_assert_eq!(run.busy_cycles as usize, cycles.max(1));
        // Every active lane executes exactly once, each result returns to its own lane.
        let mut executed: Vec<usize> = run.passes.iter().flatten().flatten().copied().collect();
        executed.sort_unstable();
        let active: Vec<usize> = (0..g.width).filter(|i| mask >> i & 1 == 1).collect();
        prop_assert_eq!(executed, active);
        for (pass, wb) in run.passes.iter().zip(&run.write_back) {
            for (lane, pos) in wb.iter().enumerate() {
                if let Some(p) = pos {
                    prop_assert_eq!(pass[*p], Some(lane));
                }
            }
        }
        prop_assert!(scc_cycles(mask, g) <= bcc_cycles(mask, g));
        prop_assert!(bcc_cycles(mask, g) <= base_cycles(g));
    }

    /// Instructions back to back on one unit, with `start_i` (and a different mask) held
    /// during some of their passes: the unit must ignore the early starts and issue each
    /// instruction as the golden model does.
    #[test]
    fn back_to_back_instructions_ignore_early_starts(
        g in geometry(),
        program in prop::collection::vec((mask(), mode(), any::<bool>(), mask()), 1..6),
    ) {
        let mut d = Driver::new(SwizzleUnit::new(g.width, g.lanes).unwrap()).unwrap();
        for (mask, mode, early_start, garbage) in program {
            d.settle().unwrap();
            prop_assert!(d.uut().ready_o.val());
            d.uut_mut().set_mask(mask);
            d.uut_mut().mode_i.next = rtl::hw_mode(mode);
            d.uut_mut().start_i.next = true;
            d.tick().unwrap();
            d.uut_mut().start_i.next = early_start;
            d.uut_mut().set_mask(garbage);
            let mut passes = Vec::new();
            for _ in 0..=base_cycles(g) {
                d.settle().unwrap();
                if d.uut().pass_valid_o.val() {
                    passes.push(d.uut().current_pass());
                }
                let done = d.uut().done_o.val();
                d.tick().unwrap();
                if done {
                    break;
                }
            }
            d.uut_mut().start_i.next = false;
            prop_assert_eq!(passes, schedule(mask, g, mode));
        }
    }
}
