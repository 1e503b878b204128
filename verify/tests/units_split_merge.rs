//! The split/merge RTL against its golden model: [P] Fig 5 step by step, the documented cycle
//! costs e_s / e_m, random request sequences (valid and invalid) compared after every request,
//! and a VCD trace parsed back.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::split_merge::{split_cycles, MERGE_CYCLES};
use pws_isa::testing::proptest_cases;
use pws_sim::TraceBuffer;
use pws_verify::units::split_merge::rtl::SplitMergeRtl;
use pws_verify::units::split_merge::{
    ModelConfig, Outcome, Request, RunState, SplitMergeModel, StackEntry,
};

fn model_config(cfg: &HwConfig) -> ModelConfig {
    ModelConfig {
        spsimds: cfg.spsimds_per_simd,
        sgprs: cfg.sgprs_per_context,
        wavefront_width: cfg.wavefront_width,
        copy_width: cfg.srf_copy_width,
    }
}

/// [P] Fig 5 (digest 2.4): `split s0,s1` (M = 1101), `split s0,s2` (M = 1100) on SWF1, SWF2's
/// own `split s0,s2` (no-op), then the two merges; SpM of the three SWFs after every step.
#[test]
fn figure5_split_mask_table() {
    let cfg = HwConfig::figure5();
    let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
    let spm = |rtl: &mut SplitMergeRtl| -> Vec<Option<u64>> {
        rtl.views()
            .unwrap()
            .into_iter()
            .map(|v| (v.state != RunState::Free).then_some(v.spm))
            .collect()
    };
    assert_eq!(
        rtl.apply(Request::Launch {
            exec: 0b1111,
            pc: 0
        })
        .unwrap()
        .0,
        Outcome::Ok
    );
    for (reg, value) in [(0, 0b11), (1, 0b01), (2, 0b00)] {
        rtl.write_sgpr(0, reg, value).unwrap();
    }
    assert_eq!(spm(&mut rtl), vec![Some(0b1111), None, None]);

    // The kernel is allocated all three SGPRs; the figure5 preset copies two per cycle, so
    // each allocating split takes ceil(3 / 2) + 2 = 4 cycles.
    let split = |ctx, mask| Request::Split {
        ctx,
        mask,
        pc: 8,
        sgprs: 3,
    };
    assert_eq!(rtl.apply(split(0, 0b1101)).unwrap(), (Outcome::Ok, 4));
    assert_eq!(spm(&mut rtl), vec![Some(0b1101), Some(0b0010), None]);
    assert_eq!(rtl.apply(split(0, 0b1100)).unwrap(), (Outcome::Ok, 4));
    assert_eq!(
        rtl.apply(split(1, 0b1100)).unwrap(),
        (Outcome::SplitNoop, MERGE_CYCLES)
    );
    assert_eq!(
        spm(&mut rtl),
        vec![Some(0b1100), Some(0b0010), Some(0b0001)]
    );

    let views = rtl.views().unwrap();
    assert_eq!(
        views[0].stack,
        vec![StackEntry::Child(1), StackEntry::Child(2)]
    );
    assert_eq!(views[2].parent, Some(0));
    assert_eq!(views[1].stack, vec![StackEntry::Noop]);
    assert_eq!(
        rtl.srf(2).unwrap(),
        vec![0b11, 0b01, 0b00],
        "SRF copied to SpSIMD 2"
    );

    // First merge: SWF3 arrives first and waits, SWF1 merges it; SWF2 pops its no-op.
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 2 }).unwrap().0,
        Outcome::MergeWait
    );
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 0 }).unwrap().0,
        Outcome::Merged
    );
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 1 }).unwrap().0,
        Outcome::MergeNoop
    );
    assert_eq!(spm(&mut rtl), vec![Some(0b1101), Some(0b0010), None]);
    // Second merge: SWF1 arrives first this time.
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 0 }).unwrap().0,
        Outcome::MergeWait
    );
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 1 }).unwrap().0,
        Outcome::Merged
    );
    assert_eq!(spm(&mut rtl), vec![Some(0b1111), None, None]);
    let wf = &rtl.views().unwrap()[0];
    assert_eq!((wf.state, wf.stack.len()), (RunState::Running, 0));
}

#[test]
fn invalid_requests_report_and_change_nothing() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 0 }).unwrap().0,
        Outcome::BadContext
    );
    rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap();
    assert_eq!(
        rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap().0,
        Outcome::BadContext
    );
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 0 }).unwrap().0,
        Outcome::NoPartner
    );
    assert_eq!(
        rtl.apply(Request::Split {
            ctx: 5,
            sgprs: 0,
            mask: 1,
            pc: 0
        })
        .unwrap()
        .0,
        Outcome::BadContext
    );
    let before = rtl.views().unwrap();
    assert_eq!(
        rtl.apply(Request::Split {
            ctx: 0,
            sgprs: 0,
            mask: 1,
            pc: 0
        })
        .unwrap()
        .0,
        Outcome::Ok
    );
    assert_eq!(
        rtl.apply(Request::Split {
            ctx: 0,
            sgprs: 0,
            mask: 3,
            pc: 0
        })
        .unwrap()
        .0,
        Outcome::StackOverflow
    );
    assert_eq!(
        rtl.apply(Request::Split {
            ctx: 1,
            sgprs: 0,
            mask: 1,
            pc: 0
        })
        .unwrap()
        .0,
        Outcome::SplitNoop
    );
    assert_ne!(before, rtl.views().unwrap());
    assert_eq!(rtl.no_free_count(), 0);
}

#[test]
fn split_without_free_context_pushes_noop_and_counts() {
    let cfg = HwConfig::small().with_spsimds(2);
    let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
    rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap();
    rtl.apply(Request::Split {
        ctx: 0,
        sgprs: 0,
        mask: 0xFF,
        pc: 0,
    })
    .unwrap();
    rtl.apply(Request::Split {
        ctx: 1,
        sgprs: 0,
        mask: 0xFF00,
        pc: 0,
    })
    .unwrap();
    let (outcome, cycles) = rtl
        .apply(Request::Split {
            ctx: 2,
            sgprs: 0,
            mask: 0xFF_0000,
            pc: 0,
        })
        .unwrap();
    assert_eq!((outcome, cycles), (Outcome::NoFreeContext, 1));
    assert_eq!(rtl.no_free_count(), 1);
    assert_eq!(rtl.views().unwrap()[2].stack, vec![StackEntry::Noop]);
}

/// The CU's PC/EXEC port: a child inherits the EXEC its parent has at the split, and a merge
/// ORs the two EXECs back together.
#[test]
fn exec_written_by_the_cu_is_inherited_and_merged() {
    let cfg = HwConfig::small().with_spsimds(1);
    let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
    rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap();
    rtl.write_pc_exec(0, 0x40, 0x00FF_00FF).unwrap();
    rtl.apply(Request::Split {
        ctx: 0,
        sgprs: 0,
        mask: 0xFFFF,
        pc: 0x48,
    })
    .unwrap();
    let views = rtl.views().unwrap();
    assert_eq!((views[0].pc, views[0].exec), (0x40, 0x00FF_00FF));
    assert_eq!((views[1].pc, views[1].exec), (0x48, 0x00FF_00FF));
    rtl.write_pc_exec(1, 0x80, 0x0F00_0000).unwrap();
    rtl.write_pc_exec(0, 0x80, 0x0000_00F0).unwrap();
    rtl.apply(Request::Merge { ctx: 0 }).unwrap();
    assert_eq!(
        rtl.apply(Request::Merge { ctx: 1 }).unwrap().0,
        Outcome::Merged
    );
    let wf = &rtl.views().unwrap()[0];
    assert_eq!((wf.pc, wf.exec, wf.spm), (0x80, 0x0F00_00F0, !0));
}

/// e_s for GCN3's 102 SGPRs, written out by hand: the numbers docs/rtl-units.md quotes.
#[test]
fn gcn3_split_cycles_table() {
    let gcn3 = HwConfig::gcn3();
    let with_width = |w| HwConfig {
        srf_copy_width: w,
        ..gcn3
    };
    // (copy width, SGPRs requested, e_s)
    let table = [
        (8, 16, 4),
        (8, 32, 6),
        (8, 102, 15),
        (8, 0, 15),
        (8, 127, 15),
        (8, 1, 3),
        (1, 102, 104),
        (1, 16, 18),
        (4, 102, 28),
        (16, 102, 9),
        (16, 32, 4),
    ];
    for (w, n, e_s) in table {
        assert_eq!(split_cycles(&with_width(w), n), e_s, "W = {w}, n = {n}");
    }
}

/// The RTL takes exactly the documented cycles for every copy width and a spread of counts
/// (empty, one, partial and full rows, the whole SRF, 0 and too many), copies exactly the
/// first n SGPRs and leaves the new context's others as they were; merges take e_m.
#[test]
fn cycle_costs_are_the_documented_e_s_and_e_m() {
    for (base, sgprs) in [
        (HwConfig::small(), 1),
        (HwConfig::small(), 8),
        (HwConfig::small(), 17),
        (HwConfig::gcn3(), 102),
    ] {
        for width in [1, 2, 4, 8, 16] {
            let cfg = HwConfig {
                sgprs_per_context: sgprs,
                srf_copy_width: width,
                ..base
            };
            let counts = [
                0,
                1,
                width - 1,
                width,
                width + 1,
                sgprs - 1,
                sgprs,
                sgprs + 1,
                127,
            ];
            for requested in counts {
                let n = if requested == 0 || requested > sgprs {
                    sgprs
                } else {
                    requested
                };
                let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
                rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap();
                for reg in 0..sgprs {
                    rtl.write_sgpr(0, reg, 0x1000 + reg as u32).unwrap();
                    rtl.write_sgpr(1, reg, 0xdead_0000 + reg as u32).unwrap();
                }
                let (o, c) = rtl
                    .apply(Request::Split {
                        ctx: 0,
                        mask: 0xF,
                        pc: 4,
                        sgprs: requested,
                    })
                    .unwrap();
                let case = format!("N = {sgprs}, W = {width}, requested {requested}");
                assert_eq!(
                    (o, c),
                    (Outcome::Ok, split_cycles(&cfg, requested)),
                    "{case}"
                );
                assert_eq!(c, n.div_ceil(width) as u64 + 2, "{case}");
                let want: Vec<u32> = (0..sgprs)
                    .map(|r| if r < n { 0x1000 } else { 0xdead_0000 } + r as u32)
                    .collect();
                assert_eq!(rtl.srf(1).unwrap(), want, "{case}");
                let (o, c) = rtl.apply(Request::Merge { ctx: 1 }).unwrap();
                assert_eq!((o, c), (Outcome::MergeWait, MERGE_CYCLES), "{case}");
                let (o, c) = rtl.apply(Request::Merge { ctx: 0 }).unwrap();
                assert_eq!((o, c), (Outcome::Merged, MERGE_CYCLES), "{case}");
            }
        }
    }
}

#[test]
fn sgpr_counts_beyond_the_port_are_rejected_by_the_harness() {
    let mut rtl = SplitMergeRtl::new(&HwConfig::small()).unwrap();
    rtl.apply(Request::Launch { exec: !0, pc: 0 }).unwrap();
    let err = rtl
        .apply(Request::Split {
            ctx: 0,
            mask: 1,
            pc: 0,
            sgprs: 128,
        })
        .unwrap_err();
    assert!(err.to_string().contains("7-bit count port"), "{err}");
}

/// Who issues a request: mostly a context that is running (so nested splits and merges
/// happen often), sometimes any context number 0..=S+1 (free, waiting or out of range).
#[derive(Clone, Copy, Debug)]
enum Issuer {
    Running(usize),
    Raw(usize),
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Launch {
        exec: u64,
        pc: u32,
    },
    Split {
        who: Issuer,
        mask: u64,
        pc: u32,
        sgprs: usize,
    },
    Merge {
        who: Issuer,
    },
    End,
    WriteSgpr {
        who: Issuer,
        reg: usize,
        value: u32,
    },
}

impl Step {
    /// The request this step makes in the model's current state.
    fn resolve(self, model: &SplitMergeModel) -> Request {
        let ctx = |who| match who {
            Issuer::Raw(k) => k,
            Issuer::Running(n) => {
                let running: Vec<usize> = model
                    .views()
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.state == RunState::Running)
                    .map(|(k, _)| k)
                    .collect();
                if running.is_empty() {
                    0
                } else {
                    running[n % running.len()]
                }
            }
        };
        match self {
            Step::Launch { exec, pc } => Request::Launch { exec, pc },
            Step::Split {
                who,
                mask,
                pc,
                sgprs,
            } => Request::Split {
                ctx: ctx(who),
                mask,
                pc,
                sgprs,
            },
            Step::Merge { who } => Request::Merge { ctx: ctx(who) },
            Step::End => Request::End,
            Step::WriteSgpr { who, reg, value } => Request::WriteSgpr {
                ctx: ctx(who),
                reg,
                value,
            },
        }
    }
}

fn step(s: usize, sgprs: usize) -> impl Strategy<Value = Step> {
    let who = prop_oneof![4 => (0..8usize).prop_map(Issuer::Running), 1 => (0..=s + 1).prop_map(Issuer::Raw)];
    let mask = prop_oneof![
        1 => Just(0u64),
        1 => Just(!0u64),
        1 => Just(0xFFFF_FFFFu64),
        6 => any::<u64>(),
    ];
    // SGPRs a split copies: mostly within the SRF, sometimes 0 (all) or too many (all).
    let count = prop_oneof![
        1 => Just(0usize),
        6 => 1..=sgprs,
        1 => sgprs + 1..=(sgprs + 4).min(127),
    ];
    prop_oneof![
        1 => (any::<u64>(), any::<u32>()).prop_map(|(exec, pc)| Step::Launch { exec, pc }),
        5 => (who.clone(), mask, any::<u32>(), count).prop_map(|(who, mask, pc, sgprs)| Step::Split { who, mask, pc, sgprs }),
        5 => who.clone().prop_map(|who| Step::Merge { who }),
        1 => Just(Step::End),
        2 => (who.prop_filter("SGPR writes go to existing contexts", move |w| !matches!(w, Issuer::Raw(k) if *k > s)), 0..sgprs, any::<u32>())
            .prop_map(|(who, reg, value)| Step::WriteSgpr { who, reg, value }),
    ]
}

/// A configuration: a preset (GCN3's 102 SGPRs now and then; `small` with 1..=20 SGPRs
/// otherwise; `figure5`), S = 1..=3 and any copy width.
fn config() -> impl Strategy<Value = HwConfig> {
    let base = prop_oneof![
        1 => Just(HwConfig::gcn3()),
        6 => (1usize..=20).prop_map(|sgprs| HwConfig { sgprs_per_context: sgprs, ..HwConfig::small() }),
        1 => Just(HwConfig::figure5()),
    ];
    (base, 1usize..=3, 0u32..=4).prop_map(|(base, s, log_width)| HwConfig {
        srf_copy_width: 1 << log_width,
        ..base.with_spsimds(s)
    })
}

fn scenario() -> impl Strategy<Value = (HwConfig, Vec<Step>)> {
    config().prop_flat_map(|cfg| {
        let launch = (any::<u64>(), any::<u32>()).prop_map(|(exec, pc)| Step::Launch { exec, pc });
        let steps = (
            launch,
            prop::collection::vec(step(cfg.spsimds_per_simd, cfg.sgprs_per_context), 1..40),
        )
            .prop_map(|(l, mut v)| {
                v.insert(0, l);
                v
            });
        (Just(cfg), steps)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(1000)))]

    /// Compared after every request: outcome, cycles (so every split's e_s), every context's
    /// live state and the no-free-context counter; at the end, the whole SRF of every context
    /// (the copied SGPRs and the ones a split left alone).
    #[test]
    fn rtl_matches_golden_model((cfg, steps) in scenario()) {
        let mut rtl = SplitMergeRtl::new(&cfg).unwrap();
        let mut model = SplitMergeModel::new(model_config(&cfg));
        for (i, step) in steps.iter().enumerate() {
            let req = step.resolve(&model);
            let got = rtl.apply(req).unwrap();
            let want = model.apply(req);
            prop_assert_eq!(got, want, "request {} {:?}", i, req);
            if let (Request::Split { sgprs, .. }, (Outcome::Ok, cycles)) = (req, got) {
                prop_assert_eq!(cycles, split_cycles(&cfg, sgprs));
            }
            prop_assert_eq!(rtl.views().unwrap(), model.views(), "after request {} {:?}", i, req);
            prop_assert_eq!(rtl.no_free_count(), model.no_free_count());
        }
        for k in 0..cfg.contexts_per_wavefront() {
            prop_assert_eq!(rtl.srf(k).unwrap(), model.srf(k).to_vec(), "SRF of context {}", k);
        }
    }
}

#[test]
fn vcd_trace_declares_the_ports_and_records_the_masks() {
    let buf = TraceBuffer::default();
    let cfg = HwConfig::figure5();
    let mut rtl = SplitMergeRtl::with_vcd(&cfg, buf.clone()).unwrap();
    rtl.apply(Request::Launch {
        exec: 0b1111,
        pc: 0,
    })
    .unwrap();
    rtl.apply(Request::Split {
        ctx: 0,
        sgprs: 0,
        mask: 0b1101,
        pc: 4,
    })
    .unwrap();
    rtl.apply(Request::Merge { ctx: 1 }).unwrap();
    rtl.apply(Request::Merge { ctx: 0 }).unwrap();
    drop(rtl);
    let text = buf.contents();
    let mut parser = vcd::Parser::new(&text[..]);
    let header = parser.parse_header().unwrap();
    let done = header
        .find_var(&["uut", "done"])
        .expect("done declared")
        .code;
    let spm = header
        .find_var(&["uut", "contexts$1", "spm_lo"])
        .expect("SWF SpM declared")
        .code;
    header
        .find_var(&["uut", "req_op"])
        .expect("req_op declared");
    let mut done_changes = 0;
    let mut spm_values = Vec::new();
    for cmd in parser.filter_map(Result::ok) {
        match cmd {
            vcd::Command::ChangeScalar(id, _) | vcd::Command::ChangeVector(id, _) if id == done => {
                done_changes += 1
            }
            vcd::Command::ChangeVector(id, v) if id == spm => {
                let bits: String = v
                    .iter()
                    .map(|b| if b == vcd::Value::V1 { '1' } else { '0' })
                    .collect();
                spm_values.push(u64::from_str_radix(&bits, 2).unwrap());
            }
            _ => {}
        }
    }
    assert!(done_changes >= 2, "done toggled {done_changes} times");
    assert!(
        spm_values.contains(&0b0010),
        "SWF SpM values {spm_values:?}"
    );
}
