//! A wavefront slot of the compute unit: its WF context and S SWF contexts (the slot's
//! [`SplitMergeUnit`]), and per context the state that is not in a
//! [`crate::context::Context`]: the in-flight (scoreboard) bit, VCC, M0, SCC, the `s_endpgm`
//! and barrier flags, the PC of the instruction in flight, the pending split/merge request and
//! where a VALU op's mask result goes. Per slot it holds the wavefront's workgroup tag and the
//! base of its VGPR range in the SIMD's VRF, and it arbitrates the contexts' split and merge
//! requests for the datapath (round-robin), launches a wavefront and ends it.
//!
//! Every issue unit of the slot's SIMD and every port of its vector unit reaches the slot
//! through one port set each; the slot recognises its own contexts by candidate number
//! (`cand_base_i` + k, the issue units' numbering) and dense context index (`ctx_base_i` + k,
//! the LSU's). Both bases are inputs, so every slot is the same module in the Verilog.
//!
//! Issue unit kk serves context kk of each slot in PWS mode and issue unit 0 serves every
//! context otherwise (the eligibility the top gives them), so a context listens to those two.
//! The pairs that never meet are left out by conditions of the loop indices alone, which
//! simulation skips and the Verilog generator resolves (rust-hdl-core patch 7).

use rust_hdl::prelude::*;

use super::decode::DstKind;
use super::{CuConfigError, CuError, CTX_BITS};
use crate::config::{HwConfig, CONTEXT_ID_BITS, SGPR_ADDR_BITS, VGPR_ADDR_BITS};
use crate::context::{ContextState, DEPTH_BITS};
use crate::split_merge::{SmOp, SmStatus, SplitMergeConfigError, SplitMergeUnit};

/// One wavefront slot (module documentation). Port vectors indexed by `kk` have one entry per
/// issue unit of the SIMD (and vector-unit port: unit kk issues to port kk), those indexed by
/// `k` one per context of the slot; both have S + 1.
#[derive(LogicBlock)]
pub struct WavefrontSlot {
    pub clock: Signal<In, Clock>,
    /// The issue units' candidate number of context 0 (slot within the SIMD · (S + 1)).
    pub cand_base_i: Signal<In, Bits<8>>,
    /// The dense index of context 0 (slot · (S + 1)), as the LSU numbers contexts.
    pub ctx_base_i: Signal<In, Bits<CTX_BITS>>,
    /// SGPRs a split copies.
    pub sgpr_count_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    /// The compute unit stopped at an error: no context is runnable.
    pub stop_i: Signal<In, Bit>,
    /// Launch a wavefront here (ignored while one is live).
    pub launch_i: Signal<In, Bit>,
    pub launch_pc_i: Signal<In, Bits<32>>,
    pub launch_exec_lo_i: Signal<In, Bits<32>>,
    pub launch_exec_hi_i: Signal<In, Bits<32>>,
    pub launch_wg_i: Signal<In, Bits<8>>,
    pub launch_vgpr_base_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    /// The dispatcher's write of an SGPR of the WF context.
    pub init_sgpr_we_i: Signal<In, Bit>,
    pub init_sgpr_addr_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub init_sgpr_data_i: Signal<In, Bits<32>>,
    // Issue unit kk: what it picks and what its current instruction writes.
    pub iu_pick_valid_i: Vec<Signal<In, Bit>>,
    pub iu_pick_i: Vec<Signal<In, Bits<8>>>,
    pub iu_fetch_pc_i: Vec<Signal<In, Bits<32>>>,
    pub iu_active_i: Vec<Signal<In, Bit>>,
    pub iu_cur_i: Vec<Signal<In, Bits<8>>>,
    pub iu_srf_rd_i: Vec<Signal<In, Bit>>,
    pub iu_srf_raddr_i: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub iu_srf_we_lo_i: Vec<Signal<In, Bit>>,
    pub iu_srf_we_hi_i: Vec<Signal<In, Bit>>,
    pub iu_srf_waddr_i: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub iu_srf_wdata_lo_i: Vec<Signal<In, Bits<32>>>,
    pub iu_srf_wdata_hi_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_pc_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_pc_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_exec_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_exec_lo_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_exec_hi_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_vcc_lo_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_vcc_lo_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_vcc_hi_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_vcc_hi_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_m0_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_m0_i: Vec<Signal<In, Bits<32>>>,
    pub iu_wr_scc_en_i: Vec<Signal<In, Bit>>,
    pub iu_wr_scc_i: Vec<Signal<In, Bit>>,
    pub iu_retire_i: Vec<Signal<In, Bit>>,
    pub iu_end_i: Vec<Signal<In, Bit>>,
    pub iu_barrier_i: Vec<Signal<In, Bit>>,
    pub iu_sm_valid_i: Vec<Signal<In, Bit>>,
    pub iu_sm_split_i: Vec<Signal<In, Bit>>,
    pub iu_sm_mask_lo_i: Vec<Signal<In, Bits<32>>>,
    pub iu_sm_mask_hi_i: Vec<Signal<In, Bits<32>>>,
    pub iu_next_pc_i: Vec<Signal<In, Bits<32>>>,
    /// The vector unit accepts the VALU op issue unit kk offers.
    pub iu_valu_go_i: Vec<Signal<In, Bit>>,
    pub iu_valu_mask_dst_i: Vec<Signal<In, DstKind>>,
    pub iu_valu_mask_sgpr_i: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    /// The mask result is one 32-bit SGPR (a read lane access), not a pair.
    pub iu_valu_mask_d32_i: Vec<Signal<In, Bit>>,
    pub iu_valu_writes_exec_i: Vec<Signal<In, Bit>>,
    /// Issue unit kk works on a context of this slot; its SGPR read data.
    pub iu_here_o: Vec<Signal<Out, Bit>>,
    pub iu_srf_rdata_lo_o: Vec<Signal<Out, Bits<32>>>,
    pub iu_srf_rdata_hi_o: Vec<Signal<Out, Bits<32>>>,
    /// Vector-unit port p completed the op of candidate `vu_owner_i[p]`, with this mask result.
    pub vu_done_i: Vec<Signal<In, Bit>>,
    pub vu_owner_i: Vec<Signal<In, Bits<8>>>,
    pub vu_mask_lo_i: Vec<Signal<In, Bits<32>>>,
    pub vu_mask_hi_i: Vec<Signal<In, Bits<32>>>,
    /// The LSU retires context k; its scalar-load write-back (to dense context `lsu_srf_ctx_i`).
    pub lsu_retire_i: Vec<Signal<In, Bit>>,
    pub lsu_srf_ctx_i: Signal<In, Bits<CTX_BITS>>,
    pub lsu_srf_we_lo_i: Signal<In, Bit>,
    pub lsu_srf_we_hi_i: Signal<In, Bit>,
    pub lsu_srf_addr_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub lsu_srf_wdata_lo_i: Signal<In, Bits<32>>,
    pub lsu_srf_wdata_hi_i: Signal<In, Bits<32>>,
    /// The barrier unit releases context k.
    pub bar_release_i: Vec<Signal<In, Bit>>,
    // Per context k: what the issue units read, and the compute unit's context ports.
    pub runnable_o: Vec<Signal<Out, Bit>>,
    pub pc_o: Vec<Signal<Out, Bits<32>>>,
    pub exec_lo_o: Vec<Signal<Out, Bits<32>>>,
    pub exec_hi_o: Vec<Signal<Out, Bits<32>>>,
    pub spm_lo_o: Vec<Signal<Out, Bits<32>>>,
    pub spm_hi_o: Vec<Signal<Out, Bits<32>>>,
    pub vcc_lo_o: Vec<Signal<Out, Bits<32>>>,
    pub vcc_hi_o: Vec<Signal<Out, Bits<32>>>,
    pub m0_o: Vec<Signal<Out, Bits<32>>>,
    pub scc_o: Vec<Signal<Out, Bit>>,
    pub issue_o: Vec<Signal<Out, Bit>>,
    pub retire_o: Vec<Signal<Out, Bit>>,
    /// PC of the instruction context k has in flight (or issued last).
    pub inst_pc_o: Vec<Signal<Out, Bits<32>>>,
    /// Context k waits for its children to merge.
    pub waiting_o: Vec<Signal<Out, Bit>>,
    /// Context k waits at `s_barrier` / does not count for barriers (free or ended).
    pub at_barrier_o: Vec<Signal<Out, Bit>>,
    pub absent_o: Vec<Signal<Out, Bit>>,
    pub live_o: Signal<Out, Bit>,
    pub wg_o: Signal<Out, Bits<8>>,
    pub vbase_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// In this cycle the datapath completed a split / a fallback split / a merge.
    pub split_done_o: Signal<Out, Bit>,
    pub fallback_o: Signal<Out, Bit>,
    pub merged_o: Signal<Out, Bit>,
    /// The datapath rejected a request in this cycle.
    pub error_o: Signal<Out, Bit>,
    pub error_code_o: Signal<Out, CuError>,
    /// Debug read of context `dbg_ctx_i`.
    pub dbg_ctx_i: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub dbg_state_o: Signal<Out, ContextState>,
    pub dbg_pc_o: Signal<Out, Bits<32>>,
    pub dbg_parent_o: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub dbg_stack_top_o: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub dbg_stack_depth_o: Signal<Out, Bits<DEPTH_BITS>>,
    pub dbg_ended_o: Signal<Out, Bit>,
    pub dbg_at_barrier_o: Signal<Out, Bit>,
    pub dbg_in_flight_o: Signal<Out, Bit>,
    pub smu: SplitMergeUnit,
    // Per context.
    busy: Vec<DFF<Bit>>,
    ended: Vec<DFF<Bit>>,
    at_bar: Vec<DFF<Bit>>,
    vcc_lo: Vec<DFF<Bits<32>>>,
    vcc_hi: Vec<DFF<Bits<32>>>,
    m0: Vec<DFF<Bits<32>>>,
    scc: Vec<DFF<Bit>>,
    ipc: Vec<DFF<Bits<32>>>,
    sm_pend: Vec<DFF<Bit>>,
    sm_split: Vec<DFF<Bit>>,
    sm_mask_lo: Vec<DFF<Bits<32>>>,
    sm_mask_hi: Vec<DFF<Bits<32>>>,
    sm_pc: Vec<DFF<Bits<32>>>,
    v_mdst: Vec<DFF<DstKind>>,
    v_msgpr: Vec<DFF<Bits<SGPR_ADDR_BITS>>>,
    v_md32: Vec<DFF<Bit>>,
    v_wexec: Vec<DFF<Bit>>,
    // Per slot.
    live: DFF<Bit>,
    wg: DFF<Bits<8>>,
    vbase: DFF<Bits<VGPR_ADDR_BITS>>,
    sm_active: DFF<Bit>,
    sm_cur: DFF<Bits<CONTEXT_ID_BITS>>,
    sm_rr: DFF<Bits<CONTEXT_ID_BITS>>,
    /// S + 1.
    n_ctx: Constant<Bits<8>>,
    // Combinational.
    retire: Vec<Signal<Local, Bit>>,
    /// Candidate (issue unit's current / picked, vector-unit port's owner) less `cand_base_i`:
    /// context k of this slot when it equals k, another slot's otherwise.
    iu_rel: Vec<Signal<Local, Bits<8>>>,
    pick_rel: Vec<Signal<Local, Bits<8>>>,
    vu_rel: Vec<Signal<Local, Bits<8>>>,
    lsu_rel: Signal<Local, Bits<CTX_BITS>>,
    slot_done: Signal<Local, Bit>,
    sm_found: Signal<Local, Bit>,
    sm_pick: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    // A split/merge issued in this cycle.
    sm_direct: Signal<Local, Bit>,
    sm_direct_k: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    sm_direct_split: Signal<Local, Bit>,
    sm_direct_lo: Signal<Local, Bits<32>>,
    sm_direct_hi: Signal<Local, Bits<32>>,
    sm_direct_pc: Signal<Local, Bits<32>>,
    // The requesting context's VCC, M0 and SCC, which a new SWF context copies.
    par_vcc_lo: Signal<Local, Bits<32>>,
    par_vcc_hi: Signal<Local, Bits<32>>,
    par_m0: Signal<Local, Bits<32>>,
    par_scc: Signal<Local, Bit>,
    split_done: Signal<Local, Bit>,
}

impl WavefrontSlot {
    /// A slot of a compute unit built for `cfg`.
    pub fn new(cfg: &HwConfig) -> Result<Self, CuConfigError> {
        let smu = SplitMergeUnit::for_cu(cfg).map_err(|e| match e {
            SplitMergeConfigError::Invalid(e) => CuConfigError::Invalid(e),
            SplitMergeConfigError::NoSpSimds => unreachable!("for_cu builds without SpSIMDs"),
        })?;
        let n = cfg.contexts_per_wavefront();
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(WavefrontSlot {
            clock: Default::default(),
            cand_base_i: Default::default(),
            ctx_base_i: Default::default(),
            sgpr_count_i: Default::default(),
            stop_i: Default::default(),
            launch_i: Default::default(),
            launch_pc_i: Default::default(),
            launch_exec_lo_i: Default::default(),
            launch_exec_hi_i: Default::default(),
            launch_wg_i: Default::default(),
            launch_vgpr_base_i: Default::default(),
            init_sgpr_we_i: Default::default(),
            init_sgpr_addr_i: Default::default(),
            init_sgpr_data_i: Default::default(),
            iu_pick_valid_i: many(n),
            iu_pick_i: many(n),
            iu_fetch_pc_i: many(n),
            iu_active_i: many(n),
            iu_cur_i: many(n),
            iu_srf_rd_i: many(n),
            iu_srf_raddr_i: many(n),
            iu_srf_we_lo_i: many(n),
            iu_srf_we_hi_i: many(n),
            iu_srf_waddr_i: many(n),
            iu_srf_wdata_lo_i: many(n),
            iu_srf_wdata_hi_i: many(n),
            iu_wr_pc_en_i: many(n),
            iu_wr_pc_i: many(n),
            iu_wr_exec_en_i: many(n),
            iu_wr_exec_lo_i: many(n),
            iu_wr_exec_hi_i: many(n),
            iu_wr_vcc_lo_en_i: many(n),
            iu_wr_vcc_lo_i: many(n),
            iu_wr_vcc_hi_en_i: many(n),
            iu_wr_vcc_hi_i: many(n),
            iu_wr_m0_en_i: many(n),
            iu_wr_m0_i: many(n),
            iu_wr_scc_en_i: many(n),
            iu_wr_scc_i: many(n),
            iu_retire_i: many(n),
            iu_end_i: many(n),
            iu_barrier_i: many(n),
            iu_sm_valid_i: many(n),
            iu_sm_split_i: many(n),
            iu_sm_mask_lo_i: many(n),
            iu_sm_mask_hi_i: many(n),
            iu_next_pc_i: many(n),
            iu_valu_go_i: many(n),
            iu_valu_mask_dst_i: many(n),
            iu_valu_mask_sgpr_i: many(n),
            iu_valu_mask_d32_i: many(n),
            iu_valu_writes_exec_i: many(n),
            iu_here_o: many(n),
            iu_srf_rdata_lo_o: many(n),
            iu_srf_rdata_hi_o: many(n),
            vu_done_i: many(n),
            vu_owner_i: many(n),
            vu_mask_lo_i: many(n),
            vu_mask_hi_i: many(n),
            lsu_retire_i: many(n),
            lsu_srf_ctx_i: Default::default(),
            lsu_srf_we_lo_i: Default::default(),
            lsu_srf_we_hi_i: Default::default(),
            lsu_srf_addr_i: Default::default(),
            lsu_srf_wdata_lo_i: Default::default(),
            lsu_srf_wdata_hi_i: Default::default(),
            bar_release_i: many(n),
            runnable_o: many(n),
            pc_o: many(n),
            exec_lo_o: many(n),
            exec_hi_o: many(n),
            spm_lo_o: many(n),
            spm_hi_o: many(n),
            vcc_lo_o: many(n),
            vcc_hi_o: many(n),
            m0_o: many(n),
            scc_o: many(n),
            issue_o: many(n),
            retire_o: many(n),
            inst_pc_o: many(n),
            waiting_o: many(n),
            at_barrier_o: many(n),
            absent_o: many(n),
            live_o: Default::default(),
            wg_o: Default::default(),
            vbase_o: Default::default(),
            split_done_o: Default::default(),
            fallback_o: Default::default(),
            merged_o: Default::default(),
            error_o: Default::default(),
            error_code_o: Default::default(),
            dbg_ctx_i: Default::default(),
            dbg_state_o: Default::default(),
            dbg_pc_o: Default::default(),
            dbg_parent_o: Default::default(),
            dbg_stack_top_o: Default::default(),
            dbg_stack_depth_o: Default::default(),
            dbg_ended_o: Default::default(),
            dbg_at_barrier_o: Default::default(),
            dbg_in_flight_o: Default::default(),
            smu,
            busy: many(n),
            ended: many(n),
            at_bar: many(n),
            vcc_lo: many(n),
            vcc_hi: many(n),
            m0: many(n),
            scc: many(n),
            ipc: many(n),
            sm_pend: many(n),
            sm_split: many(n),
            sm_mask_lo: many(n),
            sm_mask_hi: many(n),
            sm_pc: many(n),
            v_mdst: many(n),
            v_msgpr: many(n),
            v_md32: many(n),
            v_wexec: many(n),
            live: Default::default(),
            wg: Default::default(),
            vbase: Default::default(),
            sm_active: Default::default(),
            sm_cur: Default::default(),
            sm_rr: Default::default(),
            n_ctx: Constant::new(n.to_bits()),
            retire: many(n),
            iu_rel: many(n),
            pick_rel: many(n),
            vu_rel: many(n),
            lsu_rel: Default::default(),
            slot_done: Default::default(),
            sm_found: Default::default(),
            sm_pick: Default::default(),
            sm_direct: Default::default(),
            sm_direct_k: Default::default(),
            sm_direct_split: Default::default(),
            sm_direct_lo: Default::default(),
            sm_direct_hi: Default::default(),
            sm_direct_pc: Default::default(),
            par_vcc_lo: Default::default(),
            par_vcc_hi: Default::default(),
            par_m0: Default::default(),
            par_scc: Default::default(),
            split_done: Default::default(),
        })
    }
}

impl Logic for WavefrontSlot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, wg, vbase, sm_active, sm_cur, sm_rr);
        clock!(self, clock, smu);

        // Registers hold by default.
        for k in 0..self.busy.len() {
            self.busy[k].clock.next = self.clock.val();
            self.ended[k].clock.next = self.clock.val();
            self.at_bar[k].clock.next = self.clock.val();
            self.vcc_lo[k].clock.next = self.clock.val();
            self.vcc_hi[k].clock.next = self.clock.val();
            self.m0[k].clock.next = self.clock.val();
            self.scc[k].clock.next = self.clock.val();
            self.ipc[k].clock.next = self.clock.val();
            self.sm_pend[k].clock.next = self.clock.val();
            self.sm_split[k].clock.next = self.clock.val();
            self.sm_mask_lo[k].clock.next = self.clock.val();
            self.sm_mask_hi[k].clock.next = self.clock.val();
            self.sm_pc[k].clock.next = self.clock.val();
            self.v_mdst[k].clock.next = self.clock.val();
            self.v_msgpr[k].clock.next = self.clock.val();
            self.v_md32[k].clock.next = self.clock.val();
            self.v_wexec[k].clock.next = self.clock.val();
            self.busy[k].d.next = self.busy[k].q.val();
            self.ended[k].d.next = self.ended[k].q.val();
            self.at_bar[k].d.next = self.at_bar[k].q.val();
            self.vcc_lo[k].d.next = self.vcc_lo[k].q.val();
            self.vcc_hi[k].d.next = self.vcc_hi[k].q.val();
            self.m0[k].d.next = self.m0[k].q.val();
            self.scc[k].d.next = self.scc[k].q.val();
            self.ipc[k].d.next = self.ipc[k].q.val();
            self.sm_pend[k].d.next = self.sm_pend[k].q.val();
            self.sm_split[k].d.next = self.sm_split[k].q.val();
            self.sm_mask_lo[k].d.next = self.sm_mask_lo[k].q.val();
            self.sm_mask_hi[k].d.next = self.sm_mask_hi[k].q.val();
            self.sm_pc[k].d.next = self.sm_pc[k].q.val();
            self.v_mdst[k].d.next = self.v_mdst[k].q.val();
            self.v_msgpr[k].d.next = self.v_msgpr[k].q.val();
            self.v_md32[k].d.next = self.v_md32[k].q.val();
            self.v_wexec[k].d.next = self.v_wexec[k].q.val();
            self.retire[k].next = false;
            self.issue_o[k].next = false;
            self.inst_pc_o[k].next = self.ipc[k].q.val();
        }
        self.split_done.next = false;
        self.sm_direct.next = false;
        self.sm_direct_k.next = 0.into();
        self.sm_direct_split.next = false;
        self.sm_direct_lo.next = 0.into();
        self.sm_direct_hi.next = 0.into();
        self.sm_direct_pc.next = 0.into();
        self.merged_o.next = false;
        self.fallback_o.next = false;
        self.error_o.next = false;
        self.error_code_o.next = CuError::None;

        // Default inputs of the split/merge datapath.
        self.smu.req_op.next = SmOp::Idle;
        self.smu.req_ctx.next = 0.into();
        self.smu.req_mask_lo.next = 0.into();
        self.smu.req_mask_hi.next = 0.into();
        self.smu.req_pc.next = 0.into();
        self.smu.req_sgpr_count.next = self.sgpr_count_i.val();
        self.smu.srf_ctx.next = 0.into();
        self.smu.srf_addr.next = 0.into();
        self.smu.srf_we.next = false;
        self.smu.srf_wdata.next = 0.into();
        self.smu.wr_ctx.next = 0.into();
        self.smu.wr_pc_en.next = false;
        self.smu.wr_pc.next = 0.into();
        self.smu.wr_exec_en.next = false;
        self.smu.wr_exec_lo.next = 0.into();
        self.smu.wr_exec_hi.next = 0.into();
        self.smu.rd_ctx.next = self.dbg_ctx_i.val();
        self.smu.overflow_noop.next = true;
        self.smu.free_all.next = false;
        for k in 0..self.busy.len() {
            self.smu.cx_srf_rd[k].next = false;
            self.smu.cx_srf_raddr[k].next = 0.into();
            self.smu.cx_srf_we_lo[k].next = false;
            self.smu.cx_srf_we_hi[k].next = false;
            self.smu.cx_srf_waddr[k].next = 0.into();
            self.smu.cx_srf_wdata_lo[k].next = 0.into();
            self.smu.cx_srf_wdata_hi[k].next = 0.into();
            self.smu.cx_wr_pc_en[k].next = false;
            self.smu.cx_wr_pc[k].next = 0.into();
            self.smu.cx_wr_exec_en[k].next = false;
            self.smu.cx_wr_exec_lo[k].next = 0.into();
            self.smu.cx_wr_exec_hi[k].next = 0.into();
        }
        if self.init_sgpr_we_i.val() {
            self.smu.cx_srf_we_lo[0].next = true;
            self.smu.cx_srf_waddr[0].next = self.init_sgpr_addr_i.val();
            self.smu.cx_srf_wdata_lo[0].next = self.init_sgpr_data_i.val();
        }

        // What the issue units read.
        for k in 0..self.busy.len() {
            self.runnable_o[k].next = self.live.q.val()
                & (self.smu.cx_state[k].val() == ContextState::Running)
                & !self.busy[k].q.val()
                & !self.ended[k].q.val()
                & !self.at_bar[k].q.val()
                & !self.stop_i.val();
            self.pc_o[k].next = self.smu.cx_pc[k].val();
            self.exec_lo_o[k].next = self.smu.cx_exec_lo[k].val();
            self.exec_hi_o[k].next = self.smu.cx_exec_hi[k].val();
            self.spm_lo_o[k].next = self.smu.cx_spm_lo[k].val();
            self.spm_hi_o[k].next = self.smu.cx_spm_hi[k].val();
            self.vcc_lo_o[k].next = self.vcc_lo[k].q.val();
            self.vcc_hi_o[k].next = self.vcc_hi[k].q.val();
            self.m0_o[k].next = self.m0[k].q.val();
            self.scc_o[k].next = self.scc[k].q.val();
        }

        // Issue: the picked context goes in flight; the current instruction reads and writes
        // its context through the context's own ports.
        for kk in 0..self.busy.len() {
            self.iu_rel[kk].next = self.iu_cur_i[kk].val() - self.cand_base_i.val();
            self.pick_rel[kk].next = self.iu_pick_i[kk].val() - self.cand_base_i.val();
            self.iu_here_o[kk].next =
                self.iu_active_i[kk].val() & (self.iu_rel[kk].val() < self.n_ctx.val());
            self.iu_srf_rdata_lo_o[kk].next = 0.into();
            self.iu_srf_rdata_hi_o[kk].next = 0.into();
            for k in 0..self.busy.len() {
                if (k == kk) | (kk == 0) {
                    if self.iu_pick_valid_i[kk].val() & (self.pick_rel[kk].val().index() == k) {
                        self.busy[k].d.next = true;
                        self.ipc[k].d.next = self.iu_fetch_pc_i[kk].val();
                        self.issue_o[k].next = true;
                    }
                    if self.iu_active_i[kk].val() & (self.iu_rel[kk].val().index() == k) {
                        self.iu_srf_rdata_lo_o[kk].next = self.smu.cx_srf_rdata_lo[k].val();
                        self.iu_srf_rdata_hi_o[kk].next = self.smu.cx_srf_rdata_hi[k].val();
                        self.smu.cx_srf_rd[k].next = self.iu_srf_rd_i[kk].val();
                        self.smu.cx_srf_raddr[k].next = self.iu_srf_raddr_i[kk].val();
                        self.smu.cx_srf_we_lo[k].next = self.iu_srf_we_lo_i[kk].val();
                        self.smu.cx_srf_we_hi[k].next = self.iu_srf_we_hi_i[kk].val();
                        self.smu.cx_srf_waddr[k].next = self.iu_srf_waddr_i[kk].val();
                        self.smu.cx_srf_wdata_lo[k].next = self.iu_srf_wdata_lo_i[kk].val();
                        self.smu.cx_srf_wdata_hi[k].next = self.iu_srf_wdata_hi_i[kk].val();
                        self.smu.cx_wr_pc_en[k].next = self.iu_wr_pc_en_i[kk].val();
                        self.smu.cx_wr_pc[k].next = self.iu_wr_pc_i[kk].val();
                        self.smu.cx_wr_exec_en[k].next = self.iu_wr_exec_en_i[kk].val();
                        self.smu.cx_wr_exec_lo[k].next = self.iu_wr_exec_lo_i[kk].val();
                        self.smu.cx_wr_exec_hi[k].next = self.iu_wr_exec_hi_i[kk].val();
                        if self.iu_wr_vcc_lo_en_i[kk].val() {
                            self.vcc_lo[k].d.next = self.iu_wr_vcc_lo_i[kk].val();
                        }
                        if self.iu_wr_vcc_hi_en_i[kk].val() {
                            self.vcc_hi[k].d.next = self.iu_wr_vcc_hi_i[kk].val();
                        }
                        if self.iu_wr_m0_en_i[kk].val() {
                            self.m0[k].d.next = self.iu_wr_m0_i[kk].val();
                        }
                        if self.iu_wr_scc_en_i[kk].val() {
                            self.scc[k].d.next = self.iu_wr_scc_i[kk].val();
                        }
                        if self.iu_retire_i[kk].val() {
                            self.retire[k].next = true;
                        }
                        if self.iu_end_i[kk].val() {
                            self.ended[k].d.next = true;
                        }
                        if self.iu_barrier_i[kk].val() {
                            self.at_bar[k].d.next = true;
                        }
                        if self.iu_sm_valid_i[kk].val() {
                            self.sm_direct.next = true;
                            self.sm_direct_k.next = k.to_bits();
                            self.sm_direct_split.next = self.iu_sm_split_i[kk].val();
                            self.sm_direct_lo.next = self.iu_sm_mask_lo_i[kk].val();
                            self.sm_direct_hi.next = self.iu_sm_mask_hi_i[kk].val();
                            self.sm_direct_pc.next = self.iu_next_pc_i[kk].val();
                            self.sm_pend[k].d.next = true;
                            self.sm_split[k].d.next = self.iu_sm_split_i[kk].val();
                            self.sm_mask_lo[k].d.next = self.iu_sm_mask_lo_i[kk].val();
                            self.sm_mask_hi[k].d.next = self.iu_sm_mask_hi_i[kk].val();
                            self.sm_pc[k].d.next = self.iu_next_pc_i[kk].val();
                        }
                        if self.iu_valu_go_i[kk].val() {
                            self.v_mdst[k].d.next = self.iu_valu_mask_dst_i[kk].val();
                            self.v_msgpr[k].d.next = self.iu_valu_mask_sgpr_i[kk].val();
                            self.v_md32[k].d.next = self.iu_valu_mask_d32_i[kk].val();
                            self.v_wexec[k].d.next = self.iu_valu_writes_exec_i[kk].val();
                        }
                    }
                }
            }
        }

        // VALU completion: the mask result goes to VCC, an SGPR pair or EXEC (a read lane
        // access's value to one SGPR), and the context retires. Port p runs issue unit p's
        // ops, so it owns the same contexts.
        for p in 0..self.busy.len() {
            self.vu_rel[p].next = self.vu_owner_i[p].val() - self.cand_base_i.val();
            for k in 0..self.busy.len() {
                if (k == p) | (p == 0) {
                    if self.vu_done_i[p].val() & (self.vu_rel[p].val().index() == k) {
                        self.retire[k].next = true;
                        match self.v_mdst[k].q.val() {
                            DstKind::VccLo => {
                                self.vcc_lo[k].d.next = self.vu_mask_lo_i[p].val();
                                self.vcc_hi[k].d.next = self.vu_mask_hi_i[p].val();
                            }
                            DstKind::Sgpr => {
                                self.smu.cx_srf_we_lo[k].next = true;
                                self.smu.cx_srf_we_hi[k].next = !self.v_md32[k].q.val();
                                self.smu.cx_srf_waddr[k].next = self.v_msgpr[k].q.val();
                                self.smu.cx_srf_wdata_lo[k].next = self.vu_mask_lo_i[p].val();
                                self.smu.cx_srf_wdata_hi[k].next = self.vu_mask_hi_i[p].val();
                            }
                            _ => {}
                        }
                        // `v_cmpx` writes EXEC as its mask destination or beside it.
                        if (self.v_mdst[k].q.val() == DstKind::ExecLo) | self.v_wexec[k].q.val() {
                            self.smu.cx_wr_exec_en[k].next = true;
                            self.smu.cx_wr_exec_lo[k].next = self.vu_mask_lo_i[p].val();
                            self.smu.cx_wr_exec_hi[k].next = self.vu_mask_hi_i[p].val();
                        }
                    }
                }
            }
        }

        // LSU completion and scalar-load write-back.
        self.lsu_rel.next = self.lsu_srf_ctx_i.val() - self.ctx_base_i.val();
        for k in 0..self.busy.len() {
            if self.lsu_retire_i[k].val() {
                self.retire[k].next = true;
            }
            if (self.lsu_rel.val().index() == k)
                & (self.lsu_srf_we_lo_i.val() | self.lsu_srf_we_hi_i.val())
            {
                self.smu.cx_srf_we_lo[k].next = self.lsu_srf_we_lo_i.val();
                self.smu.cx_srf_we_hi[k].next = self.lsu_srf_we_hi_i.val();
                self.smu.cx_srf_waddr[k].next = self.lsu_srf_addr_i.val();
                self.smu.cx_srf_wdata_lo[k].next = self.lsu_srf_wdata_lo_i.val();
                self.smu.cx_srf_wdata_hi[k].next = self.lsu_srf_wdata_hi_i.val();
            }
        }

        // Split/merge arbiter (round-robin over the contexts), launch and the end of the
        // wavefront.
        self.sm_found.next = false;
        self.sm_pick.next = 0.into();
        self.par_vcc_lo.next = 0.into();
        self.par_vcc_hi.next = 0.into();
        self.par_m0.next = 0.into();
        self.par_scc.next = false;
        self.slot_done.next = self.live.q.val() & self.ended[0].q.val();
        // Round-robin: the first pending request after the last one served (context 0 never
        // is), else the first.
        for k in 1..self.busy.len() {
            if !self.sm_found.val() & self.sm_pend[k].q.val() & (self.sm_rr.q.val().index() < k) {
                self.sm_found.next = true;
                self.sm_pick.next = k.to_bits();
            }
        }
        for k in 0..self.busy.len() {
            if self.sm_cur.q.val().index() == k {
                self.par_vcc_lo.next = self.vcc_lo[k].q.val();
                self.par_vcc_hi.next = self.vcc_hi[k].q.val();
                self.par_m0.next = self.m0[k].q.val();
                self.par_scc.next = self.scc[k].q.val();
            }
            if (self.smu.cx_state[k].val() != ContextState::Free) & !self.ended[k].q.val() {
                self.slot_done.next = false;
            }
        }
        for k in 0..self.busy.len() {
            if !self.sm_found.val() & self.sm_pend[k].q.val() {
                self.sm_found.next = true;
                self.sm_pick.next = k.to_bits();
            }
        }
        if self.launch_i.val() & !self.live.q.val() {
            self.smu.req_op.next = SmOp::Launch;
            self.smu.req_mask_lo.next = self.launch_exec_lo_i.val();
            self.smu.req_mask_hi.next = self.launch_exec_hi_i.val();
            self.smu.req_pc.next = self.launch_pc_i.val();
            self.live.d.next = true;
            self.wg.d.next = self.launch_wg_i.val();
            self.vbase.d.next = self.launch_vgpr_base_i.val();
            for k in 0..self.busy.len() {
                self.vcc_lo[k].d.next = 0.into();
                self.vcc_hi[k].d.next = 0.into();
                self.m0[k].d.next = 0.into();
                self.scc[k].d.next = false;
            }
        } else if self.sm_active.q.val() {
            if !self.smu.done.val() {
                // The request is held until the datapath completes it.
                self.smu.req_op.next = SmOp::Merge;
                self.smu.req_ctx.next = self.sm_cur.q.val();
                for k in 0..self.busy.len() {
                    if self.sm_cur.q.val().index() == k {
                        if self.sm_split[k].q.val() {
                            self.smu.req_op.next = SmOp::Split;
                        }
                        self.smu.req_mask_lo.next = self.sm_mask_lo[k].q.val();
                        self.smu.req_mask_hi.next = self.sm_mask_hi[k].q.val();
                        self.smu.req_pc.next = self.sm_pc[k].q.val();
                    }
                }
            } else {
                self.sm_active.d.next = false;
                for k in 0..self.busy.len() {
                    if self.sm_cur.q.val().index() == k {
                        self.retire[k].next = true;
                        self.sm_pend[k].d.next = false;
                    }
                }
                match self.smu.status.val() {
                    SmStatus::Ok => self.split_done.next = true,
                    SmStatus::NoFreeContext => self.fallback_o.next = true,
                    SmStatus::Merged => self.merged_o.next = true,
                    SmStatus::StackOverflow => {
                        self.error_o.next = true;
                        self.error_code_o.next = CuError::NestingOverflow;
                    }
                    SmStatus::BadContext => {
                        self.error_o.next = true;
                        self.error_code_o.next = CuError::MergeProtocol;
                    }
                    _ => {}
                }
                // A new SWF context also copies VCC, M0 and SCC (its SGPRs and EXEC were
                // copied by the datapath).
                for k in 0..self.busy.len() {
                    if self.split_done.val() & (self.smu.new_ctx.val().index() == k) {
                        self.vcc_lo[k].d.next = self.par_vcc_lo.val();
                        self.vcc_hi[k].d.next = self.par_vcc_hi.val();
                        self.m0[k].d.next = self.par_m0.val();
                        self.scc[k].d.next = self.par_scc.val();
                    }
                }
            }
        } else if !self.sm_found.val() & self.sm_direct.val() {
            // Nothing pending: a request issued in this cycle goes straight to the datapath (it
            // is also recorded as pending, for the cycles it is held).
            self.sm_active.d.next = true;
            self.sm_cur.d.next = self.sm_direct_k.val();
            self.sm_rr.d.next = self.sm_direct_k.val();
            self.smu.req_op.next = SmOp::Merge;
            if self.sm_direct_split.val() {
                self.smu.req_op.next = SmOp::Split;
            }
            self.smu.req_ctx.next = self.sm_direct_k.val();
            self.smu.req_mask_lo.next = self.sm_direct_lo.val();
            self.smu.req_mask_hi.next = self.sm_direct_hi.val();
            self.smu.req_pc.next = self.sm_direct_pc.val();
        } else if self.sm_found.val() {
            self.sm_active.d.next = true;
            self.sm_cur.d.next = self.sm_pick.val();
            self.sm_rr.d.next = self.sm_pick.val();
            self.smu.req_op.next = SmOp::Merge;
            self.smu.req_ctx.next = self.sm_pick.val();
            for k in 0..self.busy.len() {
                if self.sm_pick.val().index() == k {
                    if self.sm_split[k].q.val() {
                        self.smu.req_op.next = SmOp::Split;
                    }
                    self.smu.req_mask_lo.next = self.sm_mask_lo[k].q.val();
                    self.smu.req_mask_hi.next = self.sm_mask_hi[k].q.val();
                    self.smu.req_pc.next = self.sm_pc[k].q.val();
                }
            }
        }
        // The wavefront ends once its WF context and every SWF context ended (or merged).
        if self.slot_done.val() {
            self.smu.free_all.next = true;
            self.live.d.next = false;
            for k in 0..self.busy.len() {
                self.ended[k].d.next = false;
                self.at_bar[k].d.next = false;
                self.busy[k].d.next = false;
            }
        }

        // Barrier.
        for k in 0..self.busy.len() {
            self.waiting_o[k].next = self.smu.cx_state[k].val() == ContextState::Waiting;
            self.at_barrier_o[k].next = self.at_bar[k].q.val();
            self.absent_o[k].next =
                (self.smu.cx_state[k].val() == ContextState::Free) | self.ended[k].q.val();
            if self.bar_release_i[k].val() {
                self.at_bar[k].d.next = false;
                self.retire[k].next = true;
            }
        }

        // Retirement frees the context for its next instruction.
        for k in 0..self.busy.len() {
            self.retire_o[k].next = self.retire[k].val();
            if self.retire[k].val() {
                self.busy[k].d.next = false;
            }
        }

        // Debug read port.
        self.dbg_state_o.next = self.smu.rd_state.val();
        self.dbg_pc_o.next = self.smu.rd_pc.val();
        self.dbg_parent_o.next = self.smu.rd_parent.val();
        self.dbg_stack_top_o.next = self.smu.rd_stack_top.val();
        self.dbg_stack_depth_o.next = self.smu.rd_stack_depth.val();
        self.dbg_ended_o.next = false;
        self.dbg_at_barrier_o.next = false;
        self.dbg_in_flight_o.next = false;
        for k in 0..self.busy.len() {
            if self.dbg_ctx_i.val().index() == k {
                self.dbg_ended_o.next = self.ended[k].q.val();
                self.dbg_at_barrier_o.next = self.at_bar[k].q.val();
                self.dbg_in_flight_o.next = self.busy[k].q.val();
            }
        }

        self.live_o.next = self.live.q.val();
        self.wg_o.next = self.wg.q.val();
        self.vbase_o.next = self.vbase.q.val();
        self.split_done_o.next = self.split_done.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::core::simulate::simulate;

    fn edge(s: &mut WavefrontSlot) {
        s.clock.next = Clock::from(true);
        assert!(simulate(s, 1000));
        s.clock.next = Clock::from(false);
        assert!(simulate(s, 1000));
    }

    /// Slot 1 of its SIMD on the `cu` preset (S = 3): candidates 4..8, dense contexts 4..8,
    /// with a wavefront launched at PC 0x100 on lanes 0..3, workgroup 3, VGPR base 8.
    fn launched() -> WavefrontSlot {
        let mut s = WavefrontSlot::new(&HwConfig::cu()).unwrap();
        s.connect_all();
        s.cand_base_i.next = 4u64.to_bits();
        s.ctx_base_i.next = 4u64.to_bits();
        s.sgpr_count_i.next = 8u64.to_bits();
        s.launch_i.next = true;
        s.launch_pc_i.next = 0x100u64.to_bits();
        s.launch_exec_lo_i.next = 0xFu64.to_bits();
        s.launch_wg_i.next = 3u64.to_bits();
        s.launch_vgpr_base_i.next = 8u64.to_bits();
        assert!(simulate(&mut s, 1000));
        edge(&mut s);
        s.launch_i.next = false;
        assert!(simulate(&mut s, 1000));
        s
    }

    #[test]
    fn a_launched_wavefront_runs_on_context_0() {
        let s = launched();
        assert!(s.live_o.val());
        assert_eq!((s.wg_o.val().to_u64(), s.vbase_o.val().to_u64()), (3, 8));
        assert!(s.runnable_o[0].val());
        assert_eq!(s.pc_o[0].val().to_u64(), 0x100);
        assert_eq!(s.exec_lo_o[0].val().to_u64(), 0xF);
        assert!((1..4).all(|k| !s.runnable_o[k].val() && s.absent_o[k].val()));
    }

    #[test]
    fn an_issued_instruction_is_in_flight_until_it_retires_and_writes_its_context() {
        let mut s = launched();
        // Issue unit 0 picks candidate 4: context 0 of this slot.
        s.iu_pick_valid_i[0].next = true;
        s.iu_pick_i[0].next = 4u64.to_bits();
        s.iu_fetch_pc_i[0].next = 0x100u64.to_bits();
        assert!(simulate(&mut s, 1000));
        assert!(s.issue_o[0].val());
        edge(&mut s);
        s.iu_pick_valid_i[0].next = false;
        assert!(simulate(&mut s, 1000));
        assert!(!s.runnable_o[0].val(), "in flight");
        assert_eq!(s.inst_pc_o[0].val().to_u64(), 0x100);
        // It writes VCC and retires.
        s.iu_active_i[0].next = true;
        s.iu_cur_i[0].next = 4u64.to_bits();
        s.iu_wr_vcc_lo_en_i[0].next = true;
        s.iu_wr_vcc_lo_i[0].next = 0xABCu64.to_bits();
        s.iu_retire_i[0].next = true;
        assert!(simulate(&mut s, 1000));
        assert!(s.iu_here_o[0].val() && s.retire_o[0].val());
        edge(&mut s);
        s.iu_active_i[0].next = false;
        assert!(simulate(&mut s, 1000));
        assert!(s.runnable_o[0].val());
        assert_eq!(s.vcc_lo_o[0].val().to_u64(), 0xABC);
    }

    /// Candidates of other slots, and issue units that never serve a context, leave the
    /// slot's contexts alone.
    #[test]
    fn other_slots_candidates_and_other_issue_units_change_nothing() {
        let mut s = launched();
        // Candidate 3 is context 3 of slot 0; issue unit 1 serves only contexts 1.
        s.iu_active_i[0].next = true;
        s.iu_cur_i[0].next = 3u64.to_bits();
        s.iu_active_i[1].next = true;
        s.iu_cur_i[1].next = 4u64.to_bits();
        for kk in 0..2 {
            s.iu_wr_vcc_lo_en_i[kk].next = true;
            s.iu_wr_vcc_lo_i[kk].next = 0x55u64.to_bits();
            s.iu_end_i[kk].next = true;
        }
        assert!(simulate(&mut s, 1000));
        assert!(!s.iu_here_o[0].val() && !s.retire_o[0].val());
        edge(&mut s);
        assert!(simulate(&mut s, 1000));
        assert!(s.live_o.val() && s.runnable_o[0].val());
        assert_eq!(s.vcc_lo_o[0].val().to_u64(), 0);
    }

    #[test]
    fn a_valu_mask_result_goes_to_its_owner_and_the_wavefront_ends_with_context_0() {
        let mut s = launched();
        // A compare on context 0 through port 0: its mask goes to VCC.
        s.iu_active_i[0].next = true;
        s.iu_cur_i[0].next = 4u64.to_bits();
        s.iu_valu_go_i[0].next = true;
        s.iu_valu_mask_dst_i[0].next = DstKind::VccLo;
        edge(&mut s);
        s.iu_active_i[0].next = false;
        s.iu_valu_go_i[0].next = false;
        s.vu_done_i[0].next = true;
        s.vu_owner_i[0].next = 4u64.to_bits();
        s.vu_mask_lo_i[0].next = 0x9u64.to_bits();
        s.vu_mask_hi_i[0].next = 0x1u64.to_bits();
        assert!(simulate(&mut s, 1000));
        assert!(s.retire_o[0].val());
        edge(&mut s);
        s.vu_done_i[0].next = false;
        assert!(simulate(&mut s, 1000));
        assert_eq!(
            (s.vcc_lo_o[0].val().to_u64(), s.vcc_hi_o[0].val().to_u64()),
            (0x9, 0x1)
        );
        // `s_endpgm` on context 0, the only live one, ends the wavefront.
        s.iu_active_i[0].next = true;
        s.iu_end_i[0].next = true;
        edge(&mut s);
        s.iu_active_i[0].next = false;
        s.iu_end_i[0].next = false;
        assert!(simulate(&mut s, 1000));
        assert!(s.live_o.val(), "the end is seen a cycle later");
        edge(&mut s);
        assert!(simulate(&mut s, 1000));
        assert!(!s.live_o.val() && !s.runnable_o[0].val());
    }
}
