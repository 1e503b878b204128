//! Instruction semantics and error handling of the golden model on small hand-written
//! programs: scalar ALU with SCC and carries, vector ALU under EXEC with VCC/carry-out,
//! compares and saveexec, branches, memory bounds, barriers, deadlocks and runaway loops.

use pws_isa::manifest::{layout, Manifest};
use pws_verify::golden::{self, Config, GoldenError, MemFault, Mode, Report};

/// A manifest with one 64-element u32 buffer `out` passed as the only argument.
fn manifest(grid: u32, workgroup: u32) -> Manifest {
    Manifest::parse(
        &format!(
            "kernel = \"t.s\"\ngrid = {grid}\nworkgroup = {workgroup}\nargs = [\"out\"]\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 64\n"
        ),
        "t.toml",
    )
    .unwrap()
}

fn run_with(src: &str, grid: u32, workgroup: u32, config: Config) -> Result<Report, GoldenError> {
    let program = pws_isa::assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"));
    golden::run(&program, &manifest(grid, workgroup), &config)
}

fn run(src: &str) -> Report {
    run_with(src, 64, 64, Config::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn sgprs(src: &str) -> (Vec<u32>, bool) {
    let r = run(src);
    (r.wavefronts[0].sgprs.clone(), r.wavefronts[0].scc)
}

#[test]
fn scalar_carries_and_scc() {
    let (s, _) = sgprs(
        "s_mov_b32 s10, -1\n s_add_u32 s11, s10, 2\n s_cselect_b32 s12, 7, 8\n\
         s_addc_u32 s13, 0, 0\n s_sub_u32 s14, 1, 2\n s_subb_u32 s15, 5, 1\n\
         s_add_i32 s16, 0x7fffffff, 1\n s_cselect_b32 s17, 1, 0\n\
         s_min_i32 s18, -3, 2\n s_cselect_b32 s19, 1, 0\n s_max_u32 s20, -3, 2\n\
         s_endpgm",
    );
    assert_eq!(s[11], 1, "0xffffffff + 2");
    assert_eq!(s[12], 7, "the add carried");
    assert_eq!(s[13], 1, "0 + 0 + carry");
    assert_eq!(s[14], u32::MAX, "1 - 2");
    assert_eq!(s[15], 3, "5 - 1 - borrow");
    assert_eq!((s[16], s[17]), (0x8000_0000, 1), "signed overflow sets SCC");
    assert_eq!((s[18], s[19]), ((-3i32) as u32, 1), "SCC: S0 selected");
    assert_eq!(s[20], (-3i32) as u32);
}

#[test]
fn scalar_64_bit_shifts_logic_and_sopk() {
    let (s, scc) = sgprs(
        "s_mov_b64 s[10:11], 1\n s_lshl_b64 s[12:13], s[10:11], 40\n\
         s_mov_b32 s14, 0x80000000\n s_mov_b32 s15, 0x80000000\n s_ashr_i64 s[16:17], s[14:15], 36\n\
         s_lshr_b64 s[18:19], s[14:15], 63\n s_andn2_b64 s[20:21], -1, s[12:13]\n\
         s_movk_i32 s22, 0x8000\n s_addk_i32 s22, 0x10\n s_mulk_i32 s22, 2\n\
         s_cmpk_lt_u32 s22, 0x8000\n s_endpgm",
    );
    assert_eq!((s[12], s[13]), (0, 1 << 8));
    assert_eq!((s[16], s[17]), (0xF800_0000, u32::MAX));
    assert_eq!((s[18], s[19]), (1, 0));
    assert_eq!((s[20], s[21]), (u32::MAX, !(1 << 8)));
    assert_eq!(s[22], (-0x7ff0i32 * 2) as u32, "s_movk sign-extends");
    assert!(
        !scc,
        "s_cmpk_*_u32 zero-extends: 0xffff001.. is not < 0x8000"
    );
}

/// A 32-bit literal read as 64 bits is sign-extended for a signed operand and zero-extended
/// for a `b64`/`u64` one: clang-14 writes `s_mov_b64 s[0:1], 0xfffffff9` for 4294967289 (the
/// bound of `mad_sat(uint)`) and compares with it as u64. Inline constants are 64-bit values.
#[test]
fn literals_read_as_64_bits_extend_by_the_operands_sign() {
    let (s, scc) = sgprs(
        "s_mov_b64 s[10:11], 0xfffffff9\n s_ashr_i64 s[12:13], 0xfffffff9, 0\n\
         s_or_b64 s[14:15], 0x80000000, 0\n s_mov_b64 s[16:17], -7\n\
         s_mov_b32 s20, 0x280000\n s_bfe_i64 s[18:19], 0xfffffff9, s20\n\
         s_cmp_lg_u64 s[10:11], s[12:13]\n s_endpgm",
    );
    assert_eq!((s[10], s[11]), (0xFFFF_FFF9, 0), "b64: zero-extended");
    assert_eq!(
        (s[12], s[13]),
        (0xFFFF_FFF9, u32::MAX),
        "i64: sign-extended"
    );
    assert_eq!((s[14], s[15]), (0x8000_0000, 0));
    assert_eq!(
        (s[16], s[17]),
        (0xFFFF_FFF9, u32::MAX),
        "an inline -7 is 64-bit"
    );
    assert_eq!(
        (s[18], s[19]),
        (0xFFFF_FFF9, u32::MAX),
        "i64: 40 bits, sign-extended"
    );
    assert!(scc);
}

#[test]
fn saveexec_family() {
    let (s, _) = sgprs(
        "s_mov_b64 exec, 0xff\n s_mov_b64 s[10:11], 0xf0f\n\
         s_and_saveexec_b64 s[12:13], s[10:11]\n s_mov_b64 s[14:15], exec\n\
         s_or_saveexec_b64 s[16:17], 0x30\n s_mov_b64 s[18:19], exec\n\
         s_xor_saveexec_b64 s[20:21], 0xf\n s_mov_b64 s[22:23], exec\n\
         s_andn2_saveexec_b64 s[24:25], 0xff\n s_mov_b64 s[26:27], exec\n\
         s_cselect_b32 s28, 1, 0\n s_endpgm",
    );
    assert_eq!((s[12], s[14]), (0xff, 0x0f));
    assert_eq!((s[16], s[18]), (0x0f, 0x3f));
    assert_eq!((s[20], s[22]), (0x3f, 0x30));
    assert_eq!((s[24], s[26]), (0x30, 0xcf));
    assert_eq!(s[28], 1, "SCC = EXEC != 0");
}

#[test]
fn vector_alu_respects_exec_and_writes_carries() {
    let r = run(
        "s_mov_b64 exec, 0xf\n v_mov_b32_e32 v1, -1\n v_add_u32_e32 v2, vcc, v0, v1\n\
         s_mov_b64 s[10:11], vcc\n v_addc_u32_e32 v3, vcc, 0, v0, vcc\n\
         v_sub_u32_e32 v4, vcc, 1, v0\n s_mov_b64 s[12:13], vcc\n\
         v_cndmask_b32_e64 v5, 10, 20, s[12:13]\n\
         v_lshlrev_b64 v[6:7], 31, v[0:1]\n v_ashrrev_i64 v[8:9], 4, v[6:7]\n\
         v_bfe_i32 v10, v1, 4, 8\n v_mul_hi_i32 v11, v1, 5\n v_mad_u32_u24 v12, v1, 2, v0\n\
         s_endpgm",
    );
    let w = &r.wavefronts[0];
    let v = |r: usize, l: usize| w.vgprs[r][l];
    // v2 = lane - 1 with a carry for every lane but 0.
    assert_eq!((v(2, 0), v(2, 3)), (u32::MAX, 2));
    assert_eq!(
        (w.sgprs[10], w.sgprs[11]),
        (0b1110, 0),
        "lanes 4.. did not run"
    );
    assert_eq!((v(3, 0), v(3, 1)), (0, 2), "v_addc adds the carry");
    assert_eq!(w.sgprs[12], 0b1100, "borrow where 1 < lane");
    assert_eq!((v(5, 0), v(5, 2)), (10, 20));
    assert_eq!(v(1, 4), 0, "lane 4 is outside EXEC");
    // v[6:7] = (0xffffffff:lane) << 31; arithmetic shift right by 4 keeps the sign.
    let wide = |lo: usize, l: usize| v(lo, l) as u64 | (v(lo + 1, l) as u64) << 32;
    assert_eq!(wide(6, 3), (0xffff_ffff_0000_0003u64) << 31);
    assert_eq!(
        wide(8, 3),
        ((0xffff_ffff_0000_0003u64 << 31) as i64 >> 4) as u64
    );
    assert_eq!(v(10, 0), u32::MAX, "sign-extended 8-bit field of -1");
    assert_eq!(v(11, 0), u32::MAX, "high half of -5");
    assert_eq!(v(12, 3), 0x00ff_ffff * 2 + 3, "24-bit operands");
}

#[test]
fn compares_clear_inactive_lanes_and_cmpx_writes_exec() {
    let r = run(
        "s_mov_b64 exec, 0xff\n v_cmp_lt_u32_e32 vcc, 2, v0\n s_mov_b64 s[10:11], vcc\n\
         v_cmpx_gt_u32_e64 s[12:13], 6, v0\n s_mov_b64 s[14:15], exec\n s_endpgm",
    );
    let s = &r.wavefronts[0].sgprs;
    assert_eq!(
        (s[10], s[11]),
        (0xf8, 0),
        "lanes 8.. are inactive and read 0"
    );
    assert_eq!((s[12], s[14]), (0x3f, 0x3f));
}

#[test]
fn partial_wavefront_starts_with_its_lanes_in_exec() {
    let r = run_with("v_mov_b32_e32 v1, 7\n s_endpgm", 40, 64, Config::default()).unwrap();
    let w = &r.wavefronts[0];
    assert_eq!(w.exec.0, (1 << 40) - 1);
    assert_eq!((w.vgprs[1][39], w.vgprs[1][40]), (7, 0));
    assert_eq!(w.sgprs[4..7], [layout::KERNARG_BASE as u32, 0, 0]);
}

#[test]
fn branches_and_a_scalar_loop() {
    let (s, _) = sgprs(
        "s_mov_b32 s10, 0\n s_mov_b32 s11, 0\n\
         LOOP:\n s_add_u32 s10, s10, 3\n s_add_u32 s11, s11, 1\n s_cmp_lt_u32 s11, 5\n\
         s_cbranch_scc1 LOOP\n\
         s_mov_b64 vcc, 0\n s_cbranch_vccnz BAD\n s_cbranch_vccz NEXT\n\
         BAD:\n s_mov_b32 s12, 1\n s_endpgm\n\
         NEXT:\n s_mov_b64 exec, 0\n s_cbranch_execnz BAD\n s_cbranch_execz DONE\n s_branch BAD\n\
         DONE:\n s_mov_b32 s13, 1\n s_endpgm",
    );
    assert_eq!((s[10], s[11], s[12], s[13]), (15, 5, 0, 1));
}

#[test]
fn loads_and_stores() {
    let r = run(
        "s_load_dwordx2 s[10:11], s[4:5], 0x0\n s_waitcnt lgkmcnt(0)\n\
         v_lshlrev_b32_e32 v1, 2, v0\n v_mov_b32_e32 v2, s11\n\
         v_add_u32_e32 v1, vcc, s10, v1\n v_addc_u32_e32 v2, vcc, 0, v2, vcc\n\
         v_mad_u32_u24 v3, v0, 3, 1\n flat_store_dword v[1:2], v3\n\
         s_mov_b32 exec_hi, 0x7fffffff\n flat_load_dwordx2 v[4:5], v[1:2]\n s_endpgm",
    );
    let out = r.buffers.get("out").unwrap().words();
    assert_eq!(out[5], 16);
    assert_eq!(r.wavefronts[0].vgprs[4][62], 62 * 3 + 1);
    assert_eq!(
        r.wavefronts[0].vgprs[5][62],
        63 * 3 + 1,
        "x2 reads the next dword"
    );
    assert_eq!(
        r.wavefronts[0].vgprs[4][63], 0,
        "lane 63 would read past the buffer"
    );
}

#[test]
fn out_of_bounds_accesses_name_instruction_pc_lane_and_address() {
    let store = "s_load_dwordx2 s[10:11], s[4:5], 0x0\n s_waitcnt lgkmcnt(0)\n\
         v_lshlrev_b32_e32 v1, 3, v0\n v_mov_b32_e32 v2, s11\n\
         v_add_u32_e32 v1, vcc, s10, v1\n v_addc_u32_e32 v2, vcc, 0, v2, vcc\n\
         flat_store_dword v[1:2], v0\n s_endpgm";
    let e = run_with(store, 64, 64, Config::default()).unwrap_err();
    let GoldenError::Memory { site, lane, fault } = &e else {
        panic!("{e}")
    };
    assert_eq!(*lane, Some(32), "lane 32 writes past the 64-dword buffer");
    assert_eq!(
        *fault,
        MemFault::Unmapped {
            addr: layout::BUFFER_BASE + 256
        }
    );
    assert_eq!(site.source.as_deref(), Some("t.s:7"));
    let text = e.to_string();
    assert!(
        text.contains("flat_store_dword") && text.contains("0x10100"),
        "{text}"
    );

    let e = run_with(
        "s_load_dword s10, s[4:5], 0x8\n s_endpgm",
        1,
        1,
        Config::default(),
    );
    assert!(matches!(e, Err(GoldenError::Memory { lane: None, .. })));
    let e = run_with(
        "v_mov_b32_e32 v1, 0x1000\n v_mov_b32_e32 v2, 0\n flat_store_dword v[1:2], v0\n s_endpgm",
        1,
        1,
        Config::default(),
    );
    assert!(
        matches!(
            e,
            Err(GoldenError::Memory {
                fault: MemFault::ReadOnly { .. },
                ..
            })
        ),
        "the kernarg segment is read-only"
    );
    let e = run_with(
        "v_mov_b32_e32 v1, 0x10002\n v_mov_b32_e32 v2, 0\n flat_atomic_add v3, v[1:2], v4 glc\n s_endpgm",
        1,
        1,
        Config::default(),
    );
    assert!(
        matches!(
            e,
            Err(GoldenError::Memory {
                fault: MemFault::Misaligned { .. },
                ..
            })
        ),
        "an atomic needs an aligned dword (loads and stores run unaligned)"
    );
}

#[test]
fn f32_executes_under_the_contract() {
    // v0 holds the lane id: its bits are a denormal, which the contract flushes to zero.
    let r = run("v_add_f32_e32 v1, 1.0, v0\n v_mul_f32_e64 v2, -v1, 0.5 clamp\n s_endpgm");
    let v = &r.wavefronts[0].vgprs;
    assert!(v[1].iter().all(|&x| x == 1.0f32.to_bits()), "{:x?}", v[1]);
    assert!(
        v[2].iter().all(|&x| x == 0),
        "-0.5 clamps to +0: {:x?}",
        v[2]
    );
}

#[test]
fn outside_the_subset_is_reported_not_executable() {
    let e = run_with(
        "s_nop 0\n s_mov_b32 s0, ttmp0\n s_endpgm",
        1,
        1,
        Config::default(),
    )
    .unwrap_err();
    let text = e.to_string();
    // Refused before the first instruction, with its line, as the compute unit refuses it.
    assert!(
        matches!(e, GoldenError::Assemble(_))
            && text.starts_with("t.s:2:1: `s_mov_b32 s0, ttmp0`: ttmp0 is a trap temporary"),
        "{text}"
    );
}

#[test]
fn running_off_the_program_is_an_error() {
    let e = run_with("s_nop 0", 1, 1, Config::default()).unwrap_err();
    assert!(matches!(e, GoldenError::BadPc { pc: 4, .. }), "{e}");
}

#[test]
fn runaway_loop_hits_the_instruction_limit() {
    let config = Config {
        max_instructions: 1000,
        ..Config::default()
    };
    let e = run_with(
        "s_nop 0\nL:\n s_add_u32 s10, s10, 1\n s_branch L\n s_endpgm",
        1,
        1,
        config,
    )
    .unwrap_err();
    let GoldenError::InstructionLimit {
        limit,
        running,
        hot,
        ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(*limit, 1000);
    assert_eq!(running.len(), 1);
    assert!(running[0].pc == 4 || running[0].pc == 8);
    assert_eq!(hot.iter().map(|h| h.pc).collect::<Vec<_>>(), vec![4, 8, 0]);
    assert!(e.to_string().contains("s_branch"), "{e}");
}

/// Two wavefronts: wave 0 stores out[0] after a delay loop; wave 1 reads it after the barrier.
#[test]
fn barrier_orders_the_wavefronts_of_a_workgroup() {
    let src = "s_load_dwordx2 s[10:11], s[4:5], 0x0\n s_waitcnt lgkmcnt(0)\n\
         v_mov_b32_e32 v1, s10\n v_mov_b32_e32 v2, s11\n\
         v_cmp_eq_u32_e32 vcc, 0, v0\n s_and_saveexec_b64 s[12:13], vcc\n\
         s_cbranch_execz SKIP\n s_mov_b32 s14, 50\n\
         DELAY:\n s_sub_u32 s14, s14, 1\n s_cmp_lg_u32 s14, 0\n s_cbranch_scc1 DELAY\n\
         v_mov_b32_e32 v3, 42\n flat_store_dword v[1:2], v3\n\
         SKIP:\n s_or_b64 exec, exec, s[12:13]\n s_barrier\n\
         flat_load_dword v4, v[1:2]\n s_endpgm";
    for mode in [Mode::NoSplit, Mode::Pws] {
        let config = Config {
            mode,
            ..Config::default()
        };
        let r = run_with(src, 128, 128, config).unwrap();
        assert_eq!(r.wavefronts[1].vgprs[4][0], 42, "{mode:?}");
        assert_eq!(r.stats.barriers, 1);
    }
}

#[test]
fn merge_with_an_ended_partner_is_a_deadlock() {
    // The split context (lanes 32..63, outside EXEC) skips to s_endpgm; its creator then
    // waits at the merge for a partner that has ended.
    let src = "s_mov_b32 s10, -1\n s_mov_b32 s11, 0\n split s10, s11\n\
         s_cbranch_execz UPPER\n merge\n s_endpgm\n\
         UPPER:\n s_endpgm";
    let manifest_exec_half = "s_mov_b32 exec_hi, 0\n";
    let e = run_with(
        &format!("{manifest_exec_half}{src}"),
        64,
        64,
        Config::default(),
    )
    .unwrap_err();
    let GoldenError::Deadlock { stuck } = &e else {
        panic!("{e}")
    };
    assert_eq!(stuck.len(), 1);
    assert_eq!(stuck[0].site.context.0, 1);
    assert!(
        stuck[0].waits_for.contains("child context 2, which ended"),
        "{e}"
    );
    // Without splitting the same program is fine.
    let config = Config {
        mode: Mode::NoSplit,
        ..Config::default()
    };
    assert!(run_with(&format!("{manifest_exec_half}{src}"), 64, 64, config).is_ok());
}

#[test]
fn merge_and_barrier_cycle_is_a_deadlock_listing_both_contexts() {
    // The creator waits at the barrier, its split context at the merge: neither can go on.
    let src = "s_mov_b32 exec_hi, 0\n s_mov_b32 s10, -1\n s_mov_b32 s11, 0\n\
         split s10, s11\n s_cbranch_execz UPPER\n s_barrier\n merge\n s_endpgm\n\
         UPPER:\n merge\n s_barrier\n s_endpgm";
    let e = run_with(src, 64, 64, Config::default()).unwrap_err();
    let GoldenError::Deadlock { stuck } = &e else {
        panic!("{e}")
    };
    let what: Vec<_> = stuck
        .iter()
        .map(|s| (s.site.context.0, s.site.instruction.clone().unwrap()))
        .collect();
    assert_eq!(
        what,
        vec![(1, "s_barrier".to_string()), (2, "merge".to_string())],
        "{e}"
    );
    assert!(stuck[1]
        .waits_for
        .contains("parent context 1, which waits at s_barrier"));
}

#[test]
fn merge_without_split_is_a_no_op_and_s_is_bounded() {
    let r = run("merge\n s_mov_b32 s10, 1\n s_endpgm");
    assert_eq!(r.wavefronts[0].sgprs[10], 1);
    assert_eq!(r.trace.len(), 1);
    let config = Config {
        s: 64,
        ..Config::default()
    };
    assert!(matches!(
        run_with("s_endpgm", 1, 1, config),
        Err(GoldenError::Config(_))
    ));
}
