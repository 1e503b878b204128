//! The compute unit runs [P] Figure 2 (kernels/figure2.s) end to end: the program is loaded
//! into the instruction memory, one wavefront is dispatched through the SPI-like ports, a
//! small memory model in this file answers the data-memory port after `mem_latency` cycles,
//! and the output buffer must be [-15, 1025, 1090, 1204] in every mode and compaction.

mod cu_bench;

use cu_bench::Bench;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::{timing, CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;
use pws_isa::{Format, Instruction, Opcode, Program};

const KERNARG: u32 = 0x100;
const A: u32 = 0x1000;
const OUT: u32 = 0x2000;

fn figure2() -> Program {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/figure2.s"))
        .expect("figure2.s");
    pws_isa::asm::assemble(&src, "figure2.s").expect("assembles")
}

/// The timing contract's bound for one instruction of a single-wavefront run (the LSU and the
/// slot's split/merge datapath shared by the wavefront's contexts).
fn bound(cfg: &HwConfig, mode: CuMode, inst: &Instruction) -> u64 {
    let competitors = cfg.spsimds_per_simd as u64;
    let mnemonic = inst.opcode.mnemonic();
    match inst.opcode.format() {
        Format::Sopp => match inst.opcode {
            Opcode::SBarrier => timing::barrier_cycles(),
            _ if mnemonic.starts_with("s_cbranch") || mnemonic == "s_branch" => {
                timing::branch_cycles()
            }
            _ => timing::nop_cycles(),
        },
        Format::Sopc if matches!(inst.opcode, Opcode::Split | Opcode::Merge) => {
            if mode == CuMode::NoSplit {
                timing::nop_cycles()
            } else if inst.opcode == Opcode::Split {
                timing::split_cycles_cu(cfg, timing::SPLIT_MAX_READS, 0)
                    + timing::split_merge_wait(cfg, 0)
            } else {
                timing::merge_cycles_cu() + timing::split_merge_wait(cfg, 0)
            }
        }
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk => timing::salu_worst(),
        Format::Smem => {
            timing::smem_cycles(cfg, timing::SMEM_MAX_READS, 4) + timing::lsu_wait(cfg, competitors)
        }
        Format::Flat => {
            let store = mnemonic.contains("store");
            let dwords = if mnemonic.ends_with("x2") { 2 } else { 1 };
            timing::flat_cycles(cfg, store, dwords) + timing::lsu_wait(cfg, competitors)
        }
        _ => {
            timing::valu_worst(cfg)
                + if mode == CuMode::Dws {
                    timing::dws_valu_wait(cfg)
                } else {
                    0
                }
        }
    }
}

fn run_figure2(cfg: &HwConfig, mode: CuMode, compaction: SwizzleMode) -> (Vec<i32>, u64, Bench) {
    let mut b = Bench::new(cfg, mode, compaction);
    b.load_program(&figure2().words());
    for (i, x) in [17i32, 29, 52, 80].iter().enumerate() {
        b.mem.insert(A + 4 * i as u32, *x as u32);
    }
    b.mem.insert(KERNARG, A);
    b.mem.insert(KERNARG + 4, 0);
    b.mem.insert(KERNARG + 8, OUT);
    b.mem.insert(KERNARG + 12, 0);
    b.launch(0, 0, &[(4, KERNARG), (5, 0)], |l| l as u32, 0xF);
    assert!(!b.cu.slot_free_o[0].val(), "slot 0 holds the wavefront");
    let cycles = b.run(20_000);
    let out = (0..4)
        .map(|i| b.mem.get(&(OUT + 4 * i)).copied().unwrap_or(0xDEAD) as i32)
        .collect();
    (out, cycles, b)
}

#[test]
fn figure2_in_every_mode_and_compaction() {
    let cfg = HwConfig::cu();
    for mode in [CuMode::NoSplit, CuMode::Dws, CuMode::Pws] {
        for compaction in [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc] {
            let start = std::time::Instant::now();
            let (out, cycles, b) = run_figure2(&cfg, mode, compaction);
            let rate = b.cycle as f64 / start.elapsed().as_secs_f64();
            assert_eq!(out, vec![-15, 1025, 1090, 1204], "{mode:?} {compaction:?}");
            let splits = b.cu.stat_splits_o.val().to_u64();
            let merges = b.cu.stat_merges_o.val().to_u64();
            eprintln!(
                "figure2 {mode:?} {compaction:?}: {cycles} cycles, {splits} splits, \
                 {rate:.0} simulated cycles/s (with loading and dispatch)"
            );
            if mode == CuMode::NoSplit {
                assert_eq!((splits, merges), (0, 0));
            } else {
                assert_eq!((splits, merges), (3, 3), "{mode:?}");
            }
            assert_eq!(b.cu.error_code_o.val(), CuError::None);
        }
    }
}

#[test]
fn every_instruction_stays_within_the_timing_contract() {
    let cfg = HwConfig::cu();
    let program = figure2();
    for mode in [CuMode::NoSplit, CuMode::Dws, CuMode::Pws] {
        for compaction in [SwizzleMode::None, SwizzleMode::Scc] {
            let (_, _, b) = run_figure2(&cfg, mode, compaction);
            assert!(
                b.takes.len() > 40,
                "{mode:?}: {} retirements",
                b.takes.len()
            );
            for &(pc, takes) in &b.takes {
                let inst = &program.instruction_at(pc).expect("retired pc").item;
                let limit = bound(&cfg, mode, inst);
                assert!(
                    takes <= limit,
                    "{mode:?} {compaction:?}: `{inst}` at {pc:#x} took {takes} > {limit}"
                );
            }
        }
    }
}

#[test]
fn a_lone_context_takes_exactly_the_contract_cycles() {
    let cfg = HwConfig::cu();
    let program = figure2();
    let (_, _, b) = run_figure2(&cfg, CuMode::NoSplit, SwizzleMode::None);
    let passes = cfg.passes() as u64;
    for &(pc, takes) in &b.takes {
        let inst = &program.instruction_at(pc).expect("retired pc").item;
        let expected = match inst.opcode.format() {
            Format::Sopc if matches!(inst.opcode, Opcode::Split | Opcode::Merge) => {
                timing::nop_cycles()
            }
            Format::Sopp => timing::branch_cycles(),
            Format::Smem => timing::smem_cycles(&cfg, 1, 4),
            Format::Flat => timing::flat_cycles(&cfg, inst.opcode.mnemonic().contains("store"), 1),
            Format::Sop1 | Format::Sop2 | Format::Sopk => {
                let reads = (0..2)
                    .filter_map(|i| inst.src(i))
                    .filter(|op| matches!(op, pws_isa::Operand::Sgpr(_)))
                    .count() as u64;
                timing::salu_cycles(reads)
            }
            Format::Vop1 | Format::Vop2 | Format::Vop3 | Format::Vopc => {
                let reads = (0..3)
                    .filter_map(|i| inst.src(i))
                    .filter(|op| matches!(op, pws_isa::Operand::Sgpr(_)))
                    .count() as u64;
                timing::valu_cycles(reads, passes)
            }
            _ => continue,
        };
        assert_eq!(takes, expected, "`{inst}` at {pc:#x}");
    }
}

#[test]
fn fewer_spsimds_fall_back_and_give_the_same_output() {
    // S = 1: the nested split at BB2 finds no free context; S = 0: no split allocates and
    // every no-op marker lives in the counter above the (empty) child stack.
    for (s, splits, fallbacks) in [(0, 0, 3), (1, 2, 1), (2, 3, 0)] {
        let cfg = HwConfig::cu().with_spsimds(s);
        for mode in [CuMode::Pws, CuMode::Dws] {
            let (out, _, b) = run_figure2(&cfg, mode, SwizzleMode::Bcc);
            assert_eq!(out, vec![-15, 1025, 1090, 1204], "S = {s} {mode:?}");
            assert_eq!(
                (
                    b.cu.stat_splits_o.val().to_u64(),
                    b.cu.stat_split_fallbacks_o.val().to_u64(),
                    b.cu.stat_merges_o.val().to_u64()
                ),
                (splits, fallbacks, splits),
                "S = {s} {mode:?}"
            );
        }
    }
}

#[test]
fn the_first_split_takes_exactly_the_contract_cycles() {
    // BB1's split: the WF context alone, `split s8, s9` (one pair read), all 32 SGPRs copied.
    let cfg = HwConfig::cu();
    let program = figure2();
    let split_pc = program
        .instructions
        .iter()
        .find(|l| l.item.opcode == Opcode::Split)
        .expect("a split")
        .pc;
    for mode in [CuMode::Pws, CuMode::Dws] {
        let (_, _, b) = run_figure2(&cfg, mode, SwizzleMode::None);
        let first = b
            .takes
            .iter()
            .find(|t| t.0 == split_pc)
            .expect("split retired");
        assert_eq!(first.1, timing::split_cycles_cu(&cfg, 1, 0), "{mode:?}");
    }
}

#[test]
fn gcn3_register_files_and_memory_latency() {
    // GCN3's 102 SGPRs, 256 VGPRs and 32-cycle memory, with two slots on one SIMD.
    let cfg = HwConfig {
        simds_per_cu: 1,
        wf_contexts_per_simd: 2,
        ..HwConfig::gcn3()
    };
    let (out, _, b) = run_figure2(&cfg, CuMode::Pws, SwizzleMode::Scc);
    assert_eq!(out, vec![-15, 1025, 1090, 1204]);
    let program = figure2();
    for &(pc, takes) in &b.takes {
        let inst = &program.instruction_at(pc).expect("retired pc").item;
        let limit = bound(&cfg, CuMode::Pws, inst);
        assert!(takes <= limit, "`{inst}` at {pc:#x} took {takes} > {limit}");
    }
}
