//! The WCET analysis's timing contract (pws-host) against the compute unit's (pws-hdl,
//! `pws_hdl::cu::timing`, docs/timing.md): the two crates do not depend on each other, so this
//! test is what keeps them equal, for several configurations, modes and competitions.

use pws_hdl::config::HwConfig;
use pws_hdl::cu::timing as rtl;
use pws_hdl::split_merge::{split_cycles, MERGE_CYCLES};
use pws_host::timing::{
    split_datapath_cycles, Competition, CuTiming, DispatchCost, Mode, TimingTable,
};
use pws_host::GpuConfig;
use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::Manifest;
use pws_sim::cu::dispatch::{DispatchAction, Dispatcher, SlotMap};
use pws_verify::bound::cu_timing;

/// The configurations the contract is compared on: the presets the CU is built for, and
/// variations of every parameter the contract depends on.
fn configurations() -> Vec<HwConfig> {
    let cu = HwConfig::cu();
    vec![
        HwConfig::gcn3(),
        cu,
        HwConfig::small(),
        HwConfig {
            mem_latency: 2,
            ..cu
        },
        HwConfig {
            mem_latency: 127,
            spsimds_per_simd: 7,
            ..cu
        },
        HwConfig {
            srf_copy_width: 2,
            spsimds_per_simd: 1,
            ..cu
        },
        HwConfig {
            wavefront_width: 32,
            ..cu
        },
        HwConfig {
            wavefront_width: 16,
            spsimds_per_simd: 0,
            ..cu
        },
    ]
}

fn table(cfg: &HwConfig, mode: Mode, comp: &Competition, sgprs: u32) -> TimingTable {
    TimingTable::contract(&cu_timing(cfg), mode, comp, sgprs)
}

#[test]
fn instruction_costs_equal_the_rtl_contract() {
    for cfg in configurations() {
        cfg.validate().unwrap();
        let sgprs = cfg.sgprs_per_context.min(18);
        for mode in Mode::ALL {
            let t = table(&cfg, mode, &Competition::default(), sgprs as u32);
            let at = format!("{mode} on {cfg:?}");
            assert_eq!(t.salu, rtl::salu_cycles(0), "{at}");
            assert_eq!(
                t.salu + rtl::SALU_MAX_READS * t.per_sgpr_read,
                rtl::salu_worst(),
                "{at}"
            );
            assert_eq!(t.branch, rtl::branch_cycles(), "{at}");
            assert_eq!(t.nop, rtl::nop_cycles(), "{at}");
            assert_eq!(t.barrier, rtl::barrier_cycles(), "{at}");
            for reads in 0..=rtl::VALU_MAX_READS {
                assert_eq!(
                    t.valu + reads * t.per_sgpr_read,
                    rtl::valu_cycles(reads, cfg.passes() as u64),
                    "{at}"
                );
            }
            assert_eq!(t.valu + 4 * t.per_sgpr_read, rtl::valu_worst(&cfg), "{at}");
            assert_eq!(t.flat_load, rtl::flat_cycles(&cfg, false, 1), "{at}");
            assert_eq!(t.flat_load_x2, rtl::flat_cycles(&cfg, false, 2), "{at}");
            assert_eq!(t.flat_store, rtl::flat_cycles(&cfg, true, 1), "{at}");
            assert_eq!(t.flat_store_x2, rtl::flat_cycles(&cfg, true, 2), "{at}");
            assert_eq!(t.flat_load_x3, rtl::flat_cycles(&cfg, false, 3), "{at}");
            assert_eq!(t.flat_load_x4, rtl::flat_cycles(&cfg, false, 4), "{at}");
            assert_eq!(t.flat_store_x3, rtl::flat_cycles(&cfg, true, 3), "{at}");
            assert_eq!(t.flat_store_x4, rtl::flat_cycles(&cfg, true, 4), "{at}");
            assert_eq!(t.flat_atomic, rtl::flat_atomic_cycles(&cfg, 1), "{at}");
            assert_eq!(
                t.flat_atomic_cmpswap,
                rtl::flat_atomic_cycles(&cfg, 2),
                "{at}"
            );
            for reads in 0..=rtl::SMEM_MAX_READS {
                let r = reads * t.per_sgpr_read;
                assert_eq!(t.smem + r, rtl::smem_cycles(&cfg, reads, 1), "{at}");
                assert_eq!(t.smem + r, rtl::smem_cycles(&cfg, reads, 2), "{at}");
                assert_eq!(t.smem_x4 + r, rtl::smem_cycles(&cfg, reads, 4), "{at}");
                assert_eq!(t.smem_x8 + r, rtl::smem_cycles(&cfg, reads, 8), "{at}");
                assert_eq!(t.smem_x16 + r, rtl::smem_cycles(&cfg, reads, 16), "{at}");
            }
            if mode == Mode::NoSplit {
                // Split and merge are no-ops.
                assert_eq!(
                    (t.split, t.merge, t.e_s, t.e_m),
                    (t.nop, t.nop, 0, 0),
                    "{at}"
                );
            } else {
                let reads_max = rtl::SPLIT_MAX_READS;
                for reads in 0..=reads_max {
                    assert_eq!(
                        t.split + reads * t.per_sgpr_read + t.e_s,
                        rtl::split_cycles_cu(&cfg, reads, sgprs),
                        "{at}"
                    );
                }
                // A split that allocates nothing takes no longer than one that copies.
                assert!(rtl::split_noop_cycles_cu(reads_max) <= t.split + reads_max + t.e_s);
                assert_eq!(t.merge + t.e_m, rtl::merge_cycles_cu(), "{at}");
                assert_eq!(t.e_m, MERGE_CYCLES);
            }
        }
    }
}

/// Every memory opcode's sequencer occupancy as the host charges it equals the RTL's.
#[test]
fn lsu_occupancy_equals_the_rtl_contract() {
    for cfg in configurations() {
        let cu = cu_timing(&cfg);
        // What the RTL does not run has no row.
        for info in pws_isa::OPCODES
            .iter()
            .filter(|i| !pws_isa::subset::golden_only(i.opcode))
        {
            let inst = pws_isa::Instruction::new(info.opcode);
            let sig = info.signature;
            let rtl_occ = match info.format {
                pws_isa::Format::Ds => {
                    let (a, r) = rtl_ds_shape(info.opcode);
                    rtl::lsu_ds_occupancy(&cfg, a, r, rtl::LDS_MAX_CONFLICT)
                }
                pws_isa::Format::Flat if info.opcode.is_flat_atomic() => {
                    rtl::lsu_vector_occupancy(&cfg, true, sig.srcs[1].dwords().into())
                }
                pws_isa::Format::Flat => {
                    let w = sig.dst.or(sig.srcs.get(1).copied()).unwrap();
                    rtl::lsu_vector_occupancy(&cfg, sig.dst.is_none(), w.dwords().into())
                }
                pws_isa::Format::Mubuf => {
                    let w = sig.dst.or(sig.srcs.get(3).copied()).unwrap();
                    rtl::lsu_vector_occupancy(&cfg, sig.dst.is_none(), w.dwords().into())
                }
                pws_isa::Format::Smem => {
                    rtl::lsu_scalar_occupancy(sig.dst.unwrap().dwords().into())
                }
                _ => 0,
            };
            let mut inst = inst;
            // A store has no destination; the host tells loads from stores by it.
            if matches!(info.format, pws_isa::Format::Flat | pws_isa::Format::Mubuf)
                && sig.dst.is_some()
            {
                inst.dst = Some(pws_isa::Operand::Vgpr(0));
            }
            assert_eq!(
                pws_host::timing::lsu_occupancy(&cu, &inst),
                rtl_occ,
                "{} on {cfg:?}",
                info.mnemonic
            );
            assert!(rtl_occ <= rtl::lsu_max_occupancy(&cfg));
        }
    }
}

/// A DS instruction's accesses per pass and data reads per access as the RTL's sequencer sees
/// them: from its decode-ROM row (dwords, `read2`/`write2`, store, the atomic's operands).
fn rtl_ds_shape(op: pws_isa::Opcode) -> (u64, u64) {
    use pws_hdl::cu::decode::{flags, micro_op};
    let f = micro_op(op).expect("the RTL decodes every DS opcode").flags;
    let dwords = if f & flags::DW4 != 0 {
        4
    } else if f & flags::DW3 != 0 {
        3
    } else if f & flags::DW2 != 0 {
        2
    } else {
        1
    };
    let accesses = if f & flags::DS2 != 0 {
        2 * dwords
    } else {
        dwords
    };
    let rmw = f >> flags::RMW_SHIFT & 0xF;
    let reads = if rmw == pws_hdl::cu::lsu::rmw::CMPSWAP || rmw == pws_hdl::cu::lsu::rmw::MSKOR {
        2
    } else if rmw != 0 || f & flags::STORE != 0 {
        1
    } else {
        0
    };
    (accesses, reads)
}

/// Every DS opcode: the host's cost is the RTL's `ds_cycles` with the worst bank conflict, for
/// the accesses and data reads the RTL's decode gives it.
#[test]
fn ds_costs_equal_the_rtl_contract() {
    for cfg in configurations() {
        for mode in Mode::ALL {
            let t = table(&cfg, mode, &Competition::default(), 16);
            for info in pws_isa::OPCODES
                .iter()
                .filter(|i| i.format == pws_isa::Format::Ds)
            {
                let (a, r) = rtl_ds_shape(info.opcode);
                assert_eq!(
                    pws_host::timing::ds_shape(info.opcode),
                    Some((a, r)),
                    "{}",
                    info.mnemonic
                );
                let inst = pws_isa::Instruction::new(info.opcode);
                assert_eq!(
                    t.cycles(&inst),
                    rtl::ds_cycles(&cfg, a, r, rtl::LDS_MAX_CONFLICT),
                    "{} in {mode} on {cfg:?}",
                    info.mnemonic
                );
                assert!(rtl::ds_cycles(&cfg, a, r, rtl::LDS_MAX_CONFLICT) <= rtl::mem_worst(&cfg));
            }
        }
    }
}

#[test]
fn waits_equal_the_rtl_contract() {
    for cfg in configurations() {
        let s = cfg.spsimds_per_simd as u64;
        let sgprs = cfg.sgprs_per_context.min(18);
        for mode in Mode::ALL {
            let dws = mode == Mode::Dws;
            for n in [0, 1, 2, 5, 39] {
                let at = format!("{mode}, {n} competitors on {cfg:?}");
                let t = table(
                    &cfg,
                    mode,
                    &Competition {
                        issue: n,
                        valu: if dws {
                            s.max(u64::from(n > 0))
                        } else {
                            u64::from(n > 0)
                        },
                        lsu: n,
                        lsu_hold: rtl::lsu_max_occupancy(&cfg),
                        split_merge: if mode.splits() { s } else { 0 },
                    },
                    sgprs as u32,
                );
                assert_eq!(t.schedule_wait, rtl::schedule_wait(&cfg, n, dws), "{at}");
                assert_eq!(t.lsu_wait, rtl::lsu_wait(&cfg, n), "{at}");
                if dws {
                    assert_eq!(
                        t.valu_wait,
                        rtl::dws_valu_wait(&cfg).max(rtl::valu_port_wait(&cfg) * u64::from(n > 0)),
                        "{at}"
                    );
                } else {
                    assert_eq!(
                        t.valu_wait,
                        rtl::valu_port_wait(&cfg) * u64::from(n > 0),
                        "{at}"
                    );
                }
                if mode.splits() {
                    assert_eq!(
                        t.split_merge_wait,
                        rtl::split_merge_wait(&cfg, sgprs),
                        "{at}"
                    );
                }
            }
            // Every other context of the compute unit in the LSU: the RTL's shared worst case.
            let all = table(
                &cfg,
                mode,
                &Competition {
                    lsu: rtl::contexts(&cfg) - 1,
                    lsu_hold: rtl::lsu_max_occupancy(&cfg),
                    ..Competition::default()
                },
                sgprs as u32,
            );
            let ds = all.cycles(&pws_isa::Instruction::new(pws_isa::Opcode::DsWriteB128));
            assert_eq!(
                (all.flat_store_x4.max(all.smem_x16 + 2 * all.per_sgpr_read) + all.lsu_wait)
                    .max(ds),
                rtl::mem_worst_shared(&cfg),
                "{mode} on {cfg:?}"
            );
        }
    }
}

#[test]
fn split_cost_matches_the_split_merge_datapath_for_every_sgpr_count() {
    for cfg in configurations() {
        for n in 1..=cfg.sgprs_per_context {
            assert_eq!(
                split_datapath_cycles(&cu_timing(&cfg), n as u32),
                split_cycles(&cfg, n),
                "e_s for {n} SGPRs on {cfg:?}"
            );
        }
    }
}

/// The ABIs of a kernel without a descriptor and of clang-14's -O0 output (every input: 18
/// SGPRs, 3 work-item id VGPRs).
fn abis() -> Vec<LaunchAbi> {
    let o0 = "k:\ns_endpgm\n.amdhsa_kernel k\n.amdhsa_user_sgpr_count 14\n\
        .amdhsa_user_sgpr_private_segment_buffer 1\n.amdhsa_user_sgpr_dispatch_ptr 1\n\
        .amdhsa_user_sgpr_queue_ptr 1\n.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
        .amdhsa_user_sgpr_dispatch_id 1\n.amdhsa_user_sgpr_flat_scratch_init 1\n\
        .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n\
        .amdhsa_system_sgpr_workgroup_id_y 1\n.amdhsa_system_sgpr_workgroup_id_z 1\n\
        .amdhsa_system_vgpr_workitem_id 2\n.amdhsa_next_free_vgpr 3\n\
        .amdhsa_next_free_sgpr 18\n.end_amdhsa_kernel\n";
    let program = pws_isa::assemble(o0, "o0.s").unwrap();
    vec![LaunchAbi::legacy(), LaunchAbi::of_program(&program)]
}

#[test]
fn dispatch_cost_matches_the_dispatcher() {
    let manifest =
        Manifest::parse("kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\n", "l.toml").unwrap();
    for cfg in configurations() {
        for abi in abis() {
            let d = DispatchCost::contract(&cu_timing(&cfg), &abi);
            let (sgprs, vgprs) = (abi.sgpr_count(), abi.workitem_vgprs);
            assert_eq!(
                d.per_wavefront,
                rtl::dispatch_cycles(&cfg, sgprs.into(), vgprs.into())
            );
            if cfg.lanes_per_simd == 16 {
                // The test bench's dispatcher: one action per cycle until the launch.
                let mut dispatcher =
                    Dispatcher::new(&manifest, abi.clone(), SlotMap::one_simd(1), cfg.passes())
                        .unwrap();
                let cycles = (1..)
                    .find(|_| matches!(dispatcher.step(1), DispatchAction::Launch { .. }))
                    .unwrap();
                assert_eq!(d.per_wavefront, cycles, "{cfg:?}");
            }
        }
    }
}

/// A kernel with a group segment: the dispatcher zeroes its LDS region one 128-byte row per
/// cycle before the first wavefront's writes, the host's per-workgroup dispatch cost.
#[test]
fn lds_clearing_is_the_per_workgroup_dispatch_cost() {
    let manifest =
        Manifest::parse("kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\n", "l.toml").unwrap();
    let src = "k:\ns_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n\
               .amdhsa_next_free_sgpr 8\n.amdhsa_group_segment_fixed_size 300\n\
               .end_amdhsa_kernel\n";
    let abi = LaunchAbi::of_program(&pws_isa::assemble(src, "k.s").unwrap());
    for cfg in configurations()
        .into_iter()
        .filter(|c| c.lanes_per_simd == 16)
    {
        let d = DispatchCost::contract(&cu_timing(&cfg), &abi);
        assert_eq!(d.per_workgroup, 3);
        let mut dispatcher =
            Dispatcher::new(&manifest, abi.clone(), SlotMap::one_simd(1), cfg.passes()).unwrap();
        let cycles = (1..)
            .find(|_| matches!(dispatcher.step(1), DispatchAction::Launch { .. }))
            .unwrap();
        assert_eq!(cycles, d.per_workgroup + d.per_wavefront, "{cfg:?}");
    }
}

#[test]
fn default_gpu_configuration_charges_a_full_srf_copy() {
    let cfg = HwConfig::gcn3();
    let gpu = GpuConfig::default();
    assert_eq!(gpu.e_s, split_cycles(&cfg, cfg.sgprs_per_context));
    assert_eq!(gpu.e_m, MERGE_CYCLES);
    assert_eq!(gpu.s as usize, cfg.spsimds_per_simd);
    assert_eq!(gpu.n_wiwf as usize, cfg.wavefront_width);
    assert_eq!(gpu.n_wfc as usize, cfg.wf_contexts_per_simd);
    assert_eq!(gpu.n_simd as usize, cfg.simds_per_cu);
    assert_eq!(TimingTable::GCN3.e_s, gpu.e_s);
    assert_eq!(CuTiming::GCN3, cu_timing(&cfg));
}

#[test]
fn per_instruction_occupancies_equal_the_rtl_contract() {
    // One instruction of each class the occupancies distinguish.
    let program = pws_isa::assemble(
        "k:\n    s_load_dword s8, s[4:5], 0x0\n    s_load_dwordx4 s[8:11], s[4:5], 0x0\n    flat_load_dword v1, v[2:3]\n    flat_load_dwordx2 v[4:5], v[2:3]\n    flat_store_dword v[2:3], v1\n    flat_store_dwordx2 v[2:3], v[4:5]\n    v_cndmask_b32_e64 v1, v2, v3, s[2:3]\n    v_add_u32_e32 v1, vcc, 1, v1\n    s_add_u32 s0, s1, s2\n    s_endpgm\n    flat_store_dwordx4 v[2:3], v[4:7]\n    s_load_dwordx16 s[16:31], s[4:5], 0x0\n",
        "k.s",
    )
    .unwrap();
    let inst = |i: usize| &program.instructions[i].item;
    for cfg in configurations() {
        let cu = cu_timing(&cfg);
        let lsu = |i| pws_host::timing::lsu_occupancy(&cu, inst(i));
        assert_eq!(lsu(0), rtl::lsu_scalar_occupancy(1));
        assert_eq!(lsu(1), rtl::lsu_scalar_occupancy(4));
        assert_eq!(lsu(2), rtl::lsu_vector_occupancy(&cfg, false, 1));
        assert_eq!(lsu(3), rtl::lsu_vector_occupancy(&cfg, false, 2));
        assert_eq!(lsu(4), rtl::lsu_vector_occupancy(&cfg, true, 1));
        assert_eq!(lsu(5), rtl::lsu_vector_occupancy(&cfg, true, 2));
        assert_eq!(lsu(10), rtl::lsu_vector_occupancy(&cfg, true, 4));
        assert_eq!(lsu(11), rtl::lsu_scalar_occupancy(16));
        let ds = pws_host::timing::lsu_occupancy(
            &cu,
            &pws_isa::Instruction::new(pws_isa::Opcode::DsWriteB128),
        );
        assert_eq!(lsu(10).max(lsu(11)).max(ds), rtl::lsu_max_occupancy(&cfg));
        assert_eq!(lsu(8), 0);
        for mode in Mode::ALL {
            let dws = mode == Mode::Dws;
            let front = |i| TimingTable::frontend_cycles(&cu, mode, inst(i));
            // A VALU op holds the front end for the contract's longest occupancy less the
            // SGPR reads it does not have; a scalar op for its cycles less the pick.
            let reads = TimingTable::sgpr_reads(inst(6), mode);
            assert_eq!(
                front(6) + rtl::VALU_MAX_READS - reads,
                rtl::frontend_worst(&cfg, dws),
                "{mode} on {cfg:?}"
            );
            assert_eq!(front(8), rtl::salu_cycles(2) - 1);
            assert!(
                (0..program.instructions.len()).all(|i| front(i) <= rtl::frontend_worst(&cfg, dws))
            );
            assert_eq!(front(9), 2);
        }
    }
}

#[test]
fn f32_instructions_cost_the_rtl_valu_cycles() {
    // The lanes' f32 unit works within the pass cycle (docs/timing.md, "f32 operations"), so
    // f32 instructions, with modifiers and scalar or constant operands, are VALU instructions
    // of the contract and cost what the RTL measures for them (hdl/tests/cu_float.rs).
    let program = pws_isa::assemble(
        "k:\n    v_add_f32 v0, v1, v2\n    v_mul_f32_e64 v0, -v1, |v2| clamp div:2\n    v_mad_f32 v0, v1, s2, v3\n    v_cvt_f32_i32 v0, s1\n    v_cvt_i32_f32 v0, v1\n    v_sub_f32 v0, s1, v1\n    v_exp_f32 v0, s1\n    v_sin_f32_e64 v0, -v1 clamp\n    v_madmk_f32 v0, v1, 0x40400000, v2\n    v_madak_f32 v0, v1, v2, 0x3f000000\n    s_endpgm\n",
        "k.s",
    )
    .unwrap();
    for cfg in configurations() {
        let sgprs = cfg.sgprs_per_context.min(18) as u32;
        for mode in Mode::ALL {
            let t = table(&cfg, mode, &Competition::default(), sgprs);
            for located in &program.instructions[..10] {
                let inst = &located.item;
                assert_eq!(
                    TimingTable::class(inst, mode),
                    pws_host::timing::InstClass::Valu,
                    "{inst}"
                );
                let reads = TimingTable::sgpr_reads(inst, mode);
                assert_eq!(
                    t.cycles(inst),
                    rtl::valu_cycles(reads, cfg.passes() as u64) + t.valu_wait,
                    "`{inst}` in {mode} on {cfg:?}"
                );
            }
        }
    }
}

#[test]
fn sdwa_instructions_cost_the_rtl_valu_cycles() {
    // The SDWA selects and the destination merge work within the lane's pass cycle
    // (docs/timing.md), so an SDWA instruction costs its VOP form's VALU cycles; it reads no
    // SGPR (gfx8 SDWA sources are VGPRs). verify/tests/cu_instructions.rs measures the RTL.
    let program = pws_isa::assemble(
        "k:\n    v_or_b32_sdwa v3, v5, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD\n    v_add_u32_sdwa v1, vcc, sext(v2), v3 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE\n    v_mov_b32_sdwa v1, v2 src0_sel:BYTE_3\n    v_add_f32_sdwa v1, -v2, |v3| clamp dst_sel:WORD_1\n    v_cmpx_lt_u32 vcc, v1, v2 src0_sel:BYTE_0 src1_sel:WORD_0\n    s_endpgm\n",
        "k.s",
    )
    .unwrap();
    for cfg in configurations() {
        for mode in Mode::ALL {
            let t = table(&cfg, mode, &Competition::default(), 8);
            for located in &program.instructions[..5] {
                let inst = &located.item;
                assert_eq!(
                    TimingTable::class(inst, mode),
                    pws_host::timing::InstClass::Valu,
                    "{inst}"
                );
                assert_eq!(TimingTable::sgpr_reads(inst, mode), 0, "{inst}");
                assert_eq!(
                    t.cycles(inst),
                    rtl::valu_cycles(0, cfg.passes() as u64) + t.valu_wait,
                    "`{inst}` in {mode} on {cfg:?}"
                );
            }
        }
    }
}
