//! Scheduling and barriers on the compute unit: two wavefronts of one workgroup run a scalar
//! loop and meet at `s_barrier`. The round-robin issue unit must never let a ready context wait
//! longer than the timing contract's schedule wait, and the barrier must release every
//! context of the workgroup in the same cycle, only after the last one arrived.

mod cu_bench;

use cu_bench::Bench;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::{timing, CuMode};
use pws_hdl::swizzle::SwizzleMode;

const PROGRAM: &str = "
    s_mov_b32 s2, 12
loop:
    s_sub_u32 s2, s2, 1
    s_cmp_lg_u32 s2, 0
    s_cbranch_scc1 loop
    s_barrier
    s_add_u32 s3, s2, 7
    s_endpgm
";

fn run(mode: CuMode) -> Bench {
    let cfg = HwConfig::cu();
    let words = pws_isa::asm::assemble(PROGRAM, "loop.s")
        .expect("assembles")
        .words();
    let mut b = Bench::new(&cfg, mode, SwizzleMode::None);
    b.load_program(&words);
    b.cu.barrier_hold_i.next = true;
    b.launch(0, 3, &[], |l| l as u32, u64::MAX);
    // The second wavefront starts five cycles later (its VGPR initialisation), so the first
    // one waits at the barrier.
    b.launch(1, 3, &[], |l| l as u32, u64::MAX);
    b.cu.barrier_hold_i.next = false;
    b.run(5_000);
    b
}

#[test]
fn round_robin_bounds_every_wait() {
    let cfg = HwConfig::cu();
    for mode in [CuMode::Pws, CuMode::Dws] {
        let b = run(mode);
        // Consecutive instructions of one context: wait = issue - previous retire - 1.
        let mut worst = 0;
        for c in 0..b.cu.contexts() {
            let issues: Vec<u64> = b.issues.iter().filter(|i| i.0 == c).map(|i| i.1).collect();
            let retires: Vec<u64> = b.retires.iter().filter(|r| r.0 == c).map(|r| r.1).collect();
            for (r, i) in retires.iter().zip(issues.iter().skip(1)) {
                worst = worst.max(i - r - 1);
            }
        }
        // Context 0 of both slots shares issue unit 0: one competitor.
        let bound = timing::schedule_wait(&cfg, 1, mode == CuMode::Dws);
        assert!(worst > 0, "{mode:?}: the two wavefronts never competed");
        assert!(
            worst <= bound,
            "{mode:?}: a context waited {worst} > {bound} cycles"
        );
    }
}

#[test]
fn barrier_releases_the_workgroup_together_after_the_last_arrival() {
    let b = run(CuMode::Pws);
    let program = pws_isa::asm::assemble(PROGRAM, "loop.s").unwrap();
    let barrier_pc = program
        .instructions
        .iter()
        .find(|l| l.item.opcode == pws_isa::Opcode::SBarrier)
        .unwrap()
        .pc;
    // Context 0 of slot 0 and of slot 1 (context 4).
    let retire_at = |c: usize| {
        let n = b.issues.iter().filter(|i| i.0 == c).count();
        assert!(n > 30, "context {c} issued {n}");
        b.retires
            .iter()
            .zip(b.takes.iter())
            .filter(|(r, t)| r.0 == c && t.0 == barrier_pc)
            .map(|(r, _)| r.1)
            .collect::<Vec<_>>()
    };
    let (r0, r1) = (retire_at(0), retire_at(4));
    assert_eq!(r0.len(), 1);
    assert_eq!(
        r0, r1,
        "both wavefronts leave the barrier in the same cycle"
    );
    assert!(b.cu.idle_o.val());
}

/// Two wavefronts of one SIMD whose VALU ops go to the same (Sp)SIMD: an op may wait for the
/// one its issue unit handed over before (the other wavefront's), never longer than
/// `valu_port_wait`, and the waits behind it stay within the schedule wait.
#[test]
fn a_shared_simd_delays_an_op_by_at_most_the_one_before() {
    const VALU_LOOP: &str = "
    s_mov_b32 s2, 12
loop:
    v_add_u32_e32 v1, vcc, 1, v1
    v_add_u32_e32 v2, vcc, v1, v2
    v_xor_b32_e32 v3, v1, v2
    s_sub_u32 s2, s2, 1
    s_cmp_lg_u32 s2, 0
    s_cbranch_scc1 loop
    s_endpgm
";
    let cfg = HwConfig::cu();
    let program = pws_isa::asm::assemble(VALU_LOOP, "valu.s").expect("assembles");
    let valu_pcs: Vec<u32> = program
        .instructions
        .iter()
        .filter(|l| l.item.is_vector() && !l.item.is_memory())
        .map(|l| l.pc)
        .collect();
    assert_eq!(valu_pcs.len(), 3);
    for mode in [CuMode::Pws, CuMode::NoSplit] {
        let mut b = Bench::new(&cfg, mode, SwizzleMode::None);
        b.load_program(&program.words());
        b.launch(0, 3, &[], |l| l as u32, u64::MAX);
        b.launch(1, 3, &[], |l| l as u32, u64::MAX);
        b.run(5_000);
        assert!(b.cu.idle_o.val() && !b.cu.error_o.val(), "{mode:?}");
        let alone = timing::valu_cycles(0, cfg.passes() as u64);
        let takes: Vec<u64> = b
            .takes
            .iter()
            .filter(|t| valu_pcs.contains(&t.0))
            .map(|t| t.1)
            .collect();
        assert_eq!(takes.len(), 2 * 12 * 3, "{mode:?}");
        let worst = takes.iter().copied().max().unwrap();
        assert!(
            worst > alone,
            "{mode:?}: no op ever waited for the shared SIMD"
        );
        assert!(
            worst <= alone + timing::valu_port_wait(&cfg),
            "{mode:?}: a VALU op took {worst} > {alone} + {}",
            timing::valu_port_wait(&cfg)
        );
        let mut wait = 0;
        for c in [0, cfg.contexts_per_wavefront()] {
            let issues: Vec<u64> = b.issues.iter().filter(|i| i.0 == c).map(|i| i.1).collect();
            let retires: Vec<u64> = b.retires.iter().filter(|r| r.0 == c).map(|r| r.1).collect();
            for (r, i) in retires.iter().zip(issues.iter().skip(1)) {
                wait = wait.max(i - r - 1);
            }
        }
        assert!(
            wait <= timing::schedule_wait(&cfg, 1, false),
            "{mode:?}: waited {wait}"
        );
    }
}
