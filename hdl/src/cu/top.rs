//! The compute-unit top: wires the issue units, the slots' split/merge datapaths, the SIMDs'
//! vector units, the LSU and the barrier unit together and holds the per-context state that is
//! not in a [`crate::context::Context`]: the in-flight (scoreboard) bit, VCC, M0, SCC, the
//! `s_endpgm` and barrier flags, and the pending split/merge request of each context; per slot
//! the base of its wavefront's VGPR range in the SIMD's VRF, which it adds to every register
//! number the issue units and the LSU hand to the vector unit (docs/cu.md).
//!
//! Context c of the compute unit is slot · (S + 1) + k; slot j belongs to SIMD j / N_WFC.

use rust_hdl::prelude::*;

use super::barrier::BarrierUnit;
use super::decode::DstKind;
use super::imem::{InstructionMemory, IMEM_ADDR_BITS};
use super::issue::IssueUnit;
use super::lds::LDS_ROW_BITS;
use super::lsu::LoadStoreUnit;
use super::{CuError, CuMode, CTX_BITS, MAX_SLOTS, MAX_SLOTS_PER_SIMD, SLOT_BITS};
use crate::config::{ConfigErrors, HwConfig, CONTEXT_ID_BITS, SGPR_ADDR_BITS, VGPR_ADDR_BITS};
use crate::context::{ContextState, DEPTH_BITS};
use crate::simd::{SimdConfigError, ValuOp, VectorUnit, SIMD_LANES, SOURCES};
use crate::split_merge::{SmOp, SmStatus, SplitMergeUnit};
use crate::swizzle::SwizzleMode;

/// Why a [`ComputeUnit`] cannot be built for a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CuConfigError {
    Invalid(ConfigErrors),
    /// The vector unit's geometry limits (16 lanes, at most 4 passes).
    Simd(SimdConfigError),
    /// More than [`MAX_SLOTS`] slots (N_SIMD · N_WFC).
    TooManySlots(usize),
    /// More than [`MAX_SLOTS_PER_SIMD`] slots per SIMD (N_WFC).
    TooManySlotsPerSimd(usize),
    /// A 64-bit scalar operand is read in one cycle from two SRF banks: W must be at least 2.
    SrfCopyWidth(usize),
}

impl std::fmt::Display for CuConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CuConfigError::Invalid(e) => e.fmt(f),
            CuConfigError::Simd(e) => e.fmt(f),
            CuConfigError::TooManySlots(n) => write!(
                f,
                "the compute unit has at most {MAX_SLOTS} wavefront slots (N_SIMD * N_WFC), not {n}"
            ),
            CuConfigError::TooManySlotsPerSimd(n) => write!(
                f,
                "the compute unit has at most {MAX_SLOTS_PER_SIMD} wavefront slots per SIMD (N_WFC), not {n}"
            ),
            CuConfigError::SrfCopyWidth(w) => write!(
                f,
                "the compute unit reads 64-bit scalar operands from two SRF banks: \
                 srf_copy_width must be at least 2, not {w}"
            ),
        }
    }
}

impl std::error::Error for CuConfigError {}

/// The compute-unit slice (see the module documentation and CU-SPEC's port list).
#[derive(LogicBlock)]
pub struct ComputeUnit {
    pub clock: Signal<In, Clock>,
    // Configuration, held for the run.
    pub mode_i: Signal<In, CuMode>,
    pub compaction_i: Signal<In, SwizzleMode>,
    /// SGPRs a split copies (the kernel's allocation; 0 = all).
    pub sgpr_count_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    /// Size of the loaded program in words: a PC beyond it stops the CU with `BadPc`.
    pub prog_words_i: Signal<In, Bits<16>>,
    /// Instruction-memory load port (before the run).
    pub imem_we_i: Signal<In, Bit>,
    pub imem_addr_i: Signal<In, Bits<IMEM_ADDR_BITS>>,
    pub imem_data_i: Signal<In, Bits<32>>,
    // Data-memory port.
    pub mem_req_o: Signal<Out, Bit>,
    pub mem_we_o: Signal<Out, Bit>,
    pub mem_addr_o: Vec<Signal<Out, Bits<32>>>,
    pub mem_wdata_o: Vec<Signal<Out, Bits<32>>>,
    pub mem_lanes_o: Signal<Out, Bits<16>>,
    /// Access size of every lane (0 dword, 1 byte, 2 half) and sign extension of sub-dword
    /// loads (`LoadStoreUnit::mem_size_o`).
    pub mem_size_o: Signal<Out, Bits<2>>,
    pub mem_signed_o: Signal<Out, Bit>,
    /// A FLAT atomic's read-modify-write and a `cmpswap`'s compare values
    /// (`LoadStoreUnit::mem_rmw_o`).
    pub mem_rmw_o: Signal<Out, Bits<4>>,
    pub mem_wdata1_o: Vec<Signal<Out, Bits<32>>>,
    pub mem_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    pub mem_rvalid_i: Signal<In, Bit>,
    pub mem_rdata_i: Vec<Signal<In, Bits<32>>>,
    // Dispatch.
    /// Slot j holds no wavefront.
    pub slot_free_o: Vec<Signal<Out, Bit>>,
    pub init_slot_i: Signal<In, Bits<SLOT_BITS>>,
    pub init_sgpr_we_i: Signal<In, Bit>,
    pub init_sgpr_addr_i: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub init_sgpr_data_i: Signal<In, Bits<32>>,
    pub init_vgpr_we_i: Signal<In, Bit>,
    pub init_vgpr_addr_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub init_vgpr_pass_i: Signal<In, Bits<2>>,
    pub init_vgpr_data_i: Vec<Signal<In, Bits<32>>>,
    pub launch_i: Signal<In, Bit>,
    pub launch_pc_i: Signal<In, Bits<32>>,
    pub launch_exec_lo_i: Signal<In, Bits<32>>,
    pub launch_exec_hi_i: Signal<In, Bits<32>>,
    pub launch_wg_i: Signal<In, Bits<8>>,
    /// Base of the wavefront's VGPR range in its SIMD's VRF (the dispatcher allocates it):
    /// held from the wavefront's first `init_vgpr_we_i` to its `launch_i`, which latches it.
    pub launch_vgpr_base_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    /// The LDS region (byte base, a multiple of 128, and size) of the launched wavefront's
    /// workgroup.
    pub launch_lds_base_i: Signal<In, Bits<32>>,
    pub launch_lds_size_i: Signal<In, Bits<32>>,
    /// Zero LDS row `lds_clear_row_i` (128 bytes) at this edge: the dispatcher clears a
    /// workgroup's region before its first wavefront starts.
    pub lds_clear_i: Signal<In, Bit>,
    pub lds_clear_row_i: Signal<In, Bits<LDS_ROW_BITS>>,
    /// A DS access failed its LDS limit or alignment check (`LoadStoreUnit::lds_fault_o`).
    pub lds_fault_o: Signal<Out, Bit>,
    pub lds_fault_lane_o: Signal<Out, Bits<6>>,
    pub lds_fault_addr_o: Signal<Out, Bits<32>>,
    pub lds_fault_misaligned_o: Signal<Out, Bit>,
    pub lds_fault_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    /// The M0 the failed access was checked against.
    pub lds_fault_m0_o: Signal<Out, Bits<32>>,
    /// Keeps barriers closed while the dispatcher launches more wavefronts of a running
    /// workgroup.
    pub barrier_hold_i: Signal<In, Bit>,
    // Status.
    pub idle_o: Signal<Out, Bit>,
    pub error_o: Signal<Out, Bit>,
    pub error_code_o: Signal<Out, CuError>,
    pub error_pc_o: Signal<Out, Bits<32>>,
    pub error_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    pub stat_valu_passes_o: Signal<Out, Bits<32>>,
    pub stat_passes_skipped_o: Signal<Out, Bits<32>>,
    pub stat_active_lane_ops_o: Signal<Out, Bits<32>>,
    pub stat_splits_o: Signal<Out, Bits<32>>,
    pub stat_split_fallbacks_o: Signal<Out, Bits<32>>,
    pub stat_merges_o: Signal<Out, Bits<32>>,
    // Observability per issue unit u = simd · (S + 1) + k.
    pub issue_valid_o: Vec<Signal<Out, Bit>>,
    pub issue_ctx_o: Vec<Signal<Out, Bits<CTX_BITS>>>,
    pub issue_pc_o: Vec<Signal<Out, Bits<32>>>,
    pub retire_valid_o: Vec<Signal<Out, Bit>>,
    pub retire_ctx_o: Vec<Signal<Out, Bits<CTX_BITS>>>,
    pub retire_pc_o: Vec<Signal<Out, Bits<32>>>,
    // Observability per context c.
    pub ctx_issue_o: Vec<Signal<Out, Bit>>,
    pub ctx_retire_o: Vec<Signal<Out, Bit>>,
    /// PC of context c's last issued instruction (the one in flight, if any).
    pub ctx_inst_pc_o: Vec<Signal<Out, Bits<32>>>,
    /// Context c waits for its children to merge (split/merge state `Waiting`).
    pub ctx_waiting_o: Vec<Signal<Out, Bit>>,
    /// Debug read port: the state of context `dbg_ctx_i` of slot `dbg_slot_i`, combinational,
    /// for the test bench's deadlock report (so it needs nothing but ports).
    pub dbg_slot_i: Signal<In, Bits<SLOT_BITS>>,
    pub dbg_ctx_i: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub dbg_state_o: Signal<Out, ContextState>,
    pub dbg_pc_o: Signal<Out, Bits<32>>,
    pub dbg_parent_o: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub dbg_stack_top_o: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub dbg_stack_depth_o: Signal<Out, Bits<DEPTH_BITS>>,
    /// The context has ended, waits at `s_barrier`, has an instruction in flight.
    pub dbg_ended_o: Signal<Out, Bit>,
    pub dbg_at_barrier_o: Signal<Out, Bit>,
    pub dbg_in_flight_o: Signal<Out, Bit>,
    pub imem: InstructionMemory,
    pub ius: Vec<IssueUnit>,
    pub smus: Vec<SplitMergeUnit>,
    pub vus: Vec<VectorUnit>,
    pub lsu: LoadStoreUnit,
    pub barrier: BarrierUnit,
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
    v_wexec: Vec<DFF<Bit>>,
    // Per slot.
    live: Vec<DFF<Bit>>,
    wg: Vec<DFF<Bits<8>>>,
    sm_active: Vec<DFF<Bit>>,
    sm_cur: Vec<DFF<Bits<CONTEXT_ID_BITS>>>,
    sm_rr: Vec<DFF<Bits<CONTEXT_ID_BITS>>>,
    /// Per slot: the base of its wavefront's VGPR range in the SIMD's VRF.
    vbase: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    /// Per vector-unit port (SIMD · (S + 1) + p): the context whose op it runs, as its issue
    /// unit's candidate number (slot of the SIMD · (S + 1) + k).
    vu_owner: Vec<DFF<Bits<8>>>,
    err: DFF<Bit>,
    err_code: DFF<CuError>,
    err_pc: DFF<Bits<32>>,
    err_ctx: DFF<Bits<CTX_BITS>>,
    n_splits: DFF<Bits<32>>,
    n_fallbacks: DFF<Bits<32>>,
    n_merges: DFF<Bits<32>>,
    /// slot · 8 + k of context c.
    c_id: Vec<Constant<Bits<CTX_BITS>>>,
    n_sgprs: Constant<Bits<8>>,
    // Combinational.
    runnable: Vec<Signal<Local, Bit>>,
    retire: Vec<Signal<Local, Bit>>,
    slot_done: Vec<Signal<Local, Bit>>,
    sm_found: Vec<Signal<Local, Bit>>,
    sm_pick: Vec<Signal<Local, Bits<CONTEXT_ID_BITS>>>,
    // A split/merge issued in this cycle, per slot.
    sm_direct: Vec<Signal<Local, Bit>>,
    sm_direct_k: Vec<Signal<Local, Bits<CONTEXT_ID_BITS>>>,
    sm_direct_split: Vec<Signal<Local, Bit>>,
    sm_direct_lo: Vec<Signal<Local, Bits<32>>>,
    sm_direct_hi: Vec<Signal<Local, Bits<32>>>,
    sm_direct_pc: Vec<Signal<Local, Bits<32>>>,
    par_vcc_lo: Vec<Signal<Local, Bits<32>>>,
    par_vcc_hi: Vec<Signal<Local, Bits<32>>>,
    par_m0: Vec<Signal<Local, Bits<32>>>,
    par_scc: Vec<Signal<Local, Bit>>,
    any_live: Signal<Local, Bit>,
    stat_p: Signal<Local, Bits<32>>,
    stat_s: Signal<Local, Bits<32>>,
    stat_a: Signal<Local, Bits<32>>,
    new_err: Signal<Local, Bit>,
    new_code: Signal<Local, CuError>,
    new_pc: Signal<Local, Bits<32>>,
    new_ctx: Signal<Local, Bits<CTX_BITS>>,
    split_done: Vec<Signal<Local, Bit>>,
    merged: Vec<Signal<Local, Bit>>,
    fallback: Vec<Signal<Local, Bit>>,
    prog_bytes: Signal<Local, Bits<32>>,
    acc_splits: Signal<Local, Bits<32>>,
    acc_fallbacks: Signal<Local, Bits<32>>,
    acc_merges: Signal<Local, Bits<32>>,
    _simds: usize,
    _slots_per_simd: usize,
    _per_slot: usize,
    _cand: usize,
}

impl ComputeUnit {
    /// A compute unit for `cfg` (see [`CuConfigError`] for what it cannot build).
    pub fn new(cfg: &HwConfig) -> Result<Self, CuConfigError> {
        cfg.validate().map_err(CuConfigError::Invalid)?;
        let slots = cfg.simds_per_cu * cfg.wf_contexts_per_simd;
        if slots > MAX_SLOTS {
            return Err(CuConfigError::TooManySlots(slots));
        }
        if cfg.wf_contexts_per_simd > MAX_SLOTS_PER_SIMD {
            return Err(CuConfigError::TooManySlotsPerSimd(cfg.wf_contexts_per_simd));
        }
        if cfg.srf_copy_width < 2 {
            return Err(CuConfigError::SrfCopyWidth(cfg.srf_copy_width));
        }
        let per_slot = cfg.contexts_per_wavefront();
        let n = slots * per_slot;
        let units = cfg.simds_per_cu * per_slot;
        let cand = cfg.wf_contexts_per_simd * per_slot;
        let vus = (0..cfg.simds_per_cu)
            .map(|_| VectorUnit::new(cfg))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CuConfigError::Simd)?;
        let smus = (0..slots)
            .map(|_| SplitMergeUnit::for_cu(cfg))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| match e {
                crate::split_merge::SplitMergeConfigError::Invalid(e) => CuConfigError::Invalid(e),
                crate::split_merge::SplitMergeConfigError::NoSpSimds => unreachable!(),
            })?;
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(ComputeUnit {
            clock: Default::default(),
            mode_i: Default::default(),
            compaction_i: Default::default(),
            sgpr_count_i: Default::default(),
            prog_words_i: Default::default(),
            imem_we_i: Default::default(),
            imem_addr_i: Default::default(),
            imem_data_i: Default::default(),
            mem_req_o: Default::default(),
            mem_we_o: Default::default(),
            mem_addr_o: many(SIMD_LANES),
            mem_wdata_o: many(SIMD_LANES),
            mem_lanes_o: Default::default(),
            mem_size_o: Default::default(),
            mem_signed_o: Default::default(),
            mem_rmw_o: Default::default(),
            mem_wdata1_o: many(SIMD_LANES),
            mem_ctx_o: Default::default(),
            mem_rvalid_i: Default::default(),
            mem_rdata_i: many(SIMD_LANES),
            slot_free_o: many(slots),
            init_slot_i: Default::default(),
            init_sgpr_we_i: Default::default(),
            init_sgpr_addr_i: Default::default(),
            init_sgpr_data_i: Default::default(),
            init_vgpr_we_i: Default::default(),
            init_vgpr_addr_i: Default::default(),
            init_vgpr_pass_i: Default::default(),
            init_vgpr_data_i: many(SIMD_LANES),
            launch_i: Default::default(),
            launch_pc_i: Default::default(),
            launch_exec_lo_i: Default::default(),
            launch_exec_hi_i: Default::default(),
            launch_wg_i: Default::default(),
            launch_vgpr_base_i: Default::default(),
            launch_lds_base_i: Default::default(),
            launch_lds_size_i: Default::default(),
            lds_clear_i: Default::default(),
            lds_clear_row_i: Default::default(),
            lds_fault_o: Default::default(),
            lds_fault_lane_o: Default::default(),
            lds_fault_addr_o: Default::default(),
            lds_fault_misaligned_o: Default::default(),
            lds_fault_ctx_o: Default::default(),
            lds_fault_m0_o: Default::default(),
            barrier_hold_i: Default::default(),
            idle_o: Default::default(),
            error_o: Default::default(),
            error_code_o: Default::default(),
            error_pc_o: Default::default(),
            error_ctx_o: Default::default(),
            stat_valu_passes_o: Default::default(),
            stat_passes_skipped_o: Default::default(),
            stat_active_lane_ops_o: Default::default(),
            stat_splits_o: Default::default(),
            stat_split_fallbacks_o: Default::default(),
            stat_merges_o: Default::default(),
            issue_valid_o: many(units),
            issue_ctx_o: many(units),
            issue_pc_o: many(units),
            retire_valid_o: many(units),
            retire_ctx_o: many(units),
            retire_pc_o: many(units),
            ctx_issue_o: many(n),
            ctx_retire_o: many(n),
            ctx_inst_pc_o: many(n),
            ctx_waiting_o: many(n),
            dbg_slot_i: Default::default(),
            dbg_ctx_i: Default::default(),
            dbg_state_o: Default::default(),
            dbg_pc_o: Default::default(),
            dbg_parent_o: Default::default(),
            dbg_stack_top_o: Default::default(),
            dbg_stack_depth_o: Default::default(),
            dbg_ended_o: Default::default(),
            dbg_at_barrier_o: Default::default(),
            dbg_in_flight_o: Default::default(),
            imem: InstructionMemory::new(units),
            ius: (0..units).map(|_| IssueUnit::new(cand)).collect(),
            smus,
            vus,
            lsu: LoadStoreUnit::new(cfg),
            barrier: BarrierUnit::new(slots, per_slot),
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
            v_wexec: many(n),
            live: many(slots),
            wg: many(slots),
            sm_active: many(slots),
            sm_cur: many(slots),
            sm_rr: many(slots),
            vbase: many(slots),
            vu_owner: many(units),
            err: Default::default(),
            err_code: Default::default(),
            err_pc: Default::default(),
            err_ctx: Default::default(),
            n_splits: Default::default(),
            n_fallbacks: Default::default(),
            n_merges: Default::default(),
            c_id: (0..n)
                .map(|c| Constant::new(((c / per_slot) * 8 + c % per_slot).to_bits()))
                .collect(),
            n_sgprs: Constant::new(cfg.sgprs_per_context.to_bits()),
            runnable: many(n),
            retire: many(n),
            slot_done: many(slots),
            sm_found: many(slots),
            sm_pick: many(slots),
            sm_direct: many(slots),
            sm_direct_k: many(slots),
            sm_direct_split: many(slots),
            sm_direct_lo: many(slots),
            sm_direct_hi: many(slots),
            sm_direct_pc: many(slots),
            par_vcc_lo: many(slots),
            par_vcc_hi: many(slots),
            par_m0: many(slots),
            par_scc: many(slots),
            any_live: Default::default(),
            stat_p: Default::default(),
            stat_s: Default::default(),
            stat_a: Default::default(),
            new_err: Default::default(),
            new_code: Default::default(),
            new_pc: Default::default(),
            new_ctx: Default::default(),
            split_done: many(slots),
            merged: many(slots),
            fallback: many(slots),
            prog_bytes: Default::default(),
            acc_splits: Default::default(),
            acc_fallbacks: Default::default(),
            acc_merges: Default::default(),
            _simds: cfg.simds_per_cu,
            _slots_per_simd: cfg.wf_contexts_per_simd,
            _per_slot: per_slot,
            _cand: cand,
        })
    }

    /// Contexts of the compute unit (slots · (S + 1)).
    pub fn contexts(&self) -> usize {
        self.busy.len()
    }

    /// Wavefront slots.
    pub fn slots(&self) -> usize {
        self.live.len()
    }

    /// Issue units (N_SIMD · (S + 1)).
    pub fn issue_units(&self) -> usize {
        self.ius.len()
    }

    /// VCC of context c as one 64-bit mask (simulation-side peek for tests and monitors).
    pub fn vcc(&self, c: usize) -> u64 {
        self.vcc_lo[c].q.val().to_u64() | self.vcc_hi[c].q.val().to_u64() << 32
    }

    /// SCC of context c.
    pub fn scc(&self, c: usize) -> bool {
        self.scc[c].q.val()
    }

    /// M0 of context c.
    pub fn m0(&self, c: usize) -> u32 {
        self.m0[c].q.val().to_u64() as u32
    }
}

impl Logic for ComputeUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            err,
            err_code,
            err_pc,
            err_ctx,
            n_splits,
            n_fallbacks,
            n_merges
        );
        clock!(self, clock, imem, lsu);
        self.prog_bytes.next = bit_cast::<32, 16>(self.prog_words_i.val()) << 2;
        self.imem.load_we_i.next = self.imem_we_i.val();
        self.imem.load_addr_i.next = self.imem_addr_i.val();
        self.imem.load_data_i.next = self.imem_data_i.val();

        // Per-context and per-slot registers hold by default.
        for c in 0..self.busy.len() {
            self.busy[c].clock.next = self.clock.val();
            self.ended[c].clock.next = self.clock.val();
            self.at_bar[c].clock.next = self.clock.val();
            self.vcc_lo[c].clock.next = self.clock.val();
            self.vcc_hi[c].clock.next = self.clock.val();
            self.m0[c].clock.next = self.clock.val();
            self.scc[c].clock.next = self.clock.val();
            self.ipc[c].clock.next = self.clock.val();
            self.sm_pend[c].clock.next = self.clock.val();
            self.sm_split[c].clock.next = self.clock.val();
            self.sm_mask_lo[c].clock.next = self.clock.val();
            self.sm_mask_hi[c].clock.next = self.clock.val();
            self.sm_pc[c].clock.next = self.clock.val();
            self.v_mdst[c].clock.next = self.clock.val();
            self.v_msgpr[c].clock.next = self.clock.val();
            self.v_wexec[c].clock.next = self.clock.val();
            self.busy[c].d.next = self.busy[c].q.val();
            self.ended[c].d.next = self.ended[c].q.val();
            self.at_bar[c].d.next = self.at_bar[c].q.val();
            self.vcc_lo[c].d.next = self.vcc_lo[c].q.val();
            self.vcc_hi[c].d.next = self.vcc_hi[c].q.val();
            self.m0[c].d.next = self.m0[c].q.val();
            self.scc[c].d.next = self.scc[c].q.val();
            self.ipc[c].d.next = self.ipc[c].q.val();
            self.sm_pend[c].d.next = self.sm_pend[c].q.val();
            self.sm_split[c].d.next = self.sm_split[c].q.val();
            self.sm_mask_lo[c].d.next = self.sm_mask_lo[c].q.val();
            self.sm_mask_hi[c].d.next = self.sm_mask_hi[c].q.val();
            self.sm_pc[c].d.next = self.sm_pc[c].q.val();
            self.v_mdst[c].d.next = self.v_mdst[c].q.val();
            self.v_msgpr[c].d.next = self.v_msgpr[c].q.val();
            self.v_wexec[c].d.next = self.v_wexec[c].q.val();
            self.retire[c].next = false;
            self.ctx_issue_o[c].next = false;
            self.ctx_inst_pc_o[c].next = self.ipc[c].q.val();
        }
        for u in 0..self.vu_owner.len() {
            self.vu_owner[u].clock.next = self.clock.val();
            self.vu_owner[u].d.next = self.vu_owner[u].q.val();
        }
        for j in 0..self.live.len() {
            self.live[j].clock.next = self.clock.val();
            self.vbase[j].clock.next = self.clock.val();
            self.vbase[j].d.next = self.vbase[j].q.val();
            self.wg[j].clock.next = self.clock.val();
            self.sm_active[j].clock.next = self.clock.val();
            self.sm_cur[j].clock.next = self.clock.val();
            self.sm_rr[j].clock.next = self.clock.val();
            self.live[j].d.next = self.live[j].q.val();
            self.wg[j].d.next = self.wg[j].q.val();
            self.sm_active[j].d.next = self.sm_active[j].q.val();
            self.sm_cur[j].d.next = self.sm_cur[j].q.val();
            self.sm_rr[j].d.next = self.sm_rr[j].q.val();
            self.split_done[j].next = false;
            self.sm_direct[j].next = false;
            self.sm_direct_k[j].next = 0.into();
            self.sm_direct_split[j].next = false;
            self.sm_direct_lo[j].next = 0.into();
            self.sm_direct_hi[j].next = 0.into();
            self.sm_direct_pc[j].next = 0.into();
            self.merged[j].next = false;
            self.fallback[j].next = false;
        }
        self.new_err.next = false;
        self.new_code.next = CuError::None;
        self.new_pc.next = 0.into();
        self.new_ctx.next = 0.into();

        // Default inputs of the slots' split/merge units.
        for j in 0..self.smus.len() {
            self.smus[j].clock.next = self.clock.val();
            self.smus[j].req_op.next = SmOp::Idle;
            self.smus[j].req_ctx.next = 0.into();
            self.smus[j].req_mask_lo.next = 0.into();
            self.smus[j].req_mask_hi.next = 0.into();
            self.smus[j].req_pc.next = 0.into();
            self.smus[j].req_sgpr_count.next = self.sgpr_count_i.val();
            self.smus[j].srf_ctx.next = 0.into();
            self.smus[j].srf_addr.next = 0.into();
            self.smus[j].srf_we.next = false;
            self.smus[j].srf_wdata.next = 0.into();
            self.smus[j].wr_ctx.next = 0.into();
            self.smus[j].wr_pc_en.next = false;
            self.smus[j].wr_pc.next = 0.into();
            self.smus[j].wr_exec_en.next = false;
            self.smus[j].wr_exec_lo.next = 0.into();
            self.smus[j].wr_exec_hi.next = 0.into();
            self.smus[j].rd_ctx.next = self.dbg_ctx_i.val();
            self.smus[j].overflow_noop.next = true;
            self.smus[j].free_all.next = false;
            for k in 0..self._per_slot {
                self.smus[j].cx_srf_rd[k].next = false;
                self.smus[j].cx_srf_raddr[k].next = 0.into();
                self.smus[j].cx_srf_we_lo[k].next = false;
                self.smus[j].cx_srf_we_hi[k].next = false;
                self.smus[j].cx_srf_waddr[k].next = 0.into();
                self.smus[j].cx_srf_wdata_lo[k].next = 0.into();
                self.smus[j].cx_srf_wdata_hi[k].next = 0.into();
                self.smus[j].cx_wr_pc_en[k].next = false;
                self.smus[j].cx_wr_pc[k].next = 0.into();
                self.smus[j].cx_wr_exec_en[k].next = false;
                self.smus[j].cx_wr_exec_lo[k].next = 0.into();
                self.smus[j].cx_wr_exec_hi[k].next = 0.into();
            }
            if self.init_sgpr_we_i.val() & (self.init_slot_i.val().index() == j) {
                self.smus[j].cx_srf_we_lo[0].next = true;
                self.smus[j].cx_srf_waddr[0].next = self.init_sgpr_addr_i.val();
                self.smus[j].cx_srf_wdata_lo[0].next = self.init_sgpr_data_i.val();
            }
        }
        // Default inputs of the SIMDs' vector units. The LSU reads and writes the VRF range of
        // its current slot; the dispatcher initialises a new wavefront's range through its own
        // write port.
        for m in 0..self.vus.len() {
            self.vus[m].clock.next = self.clock.val();
            self.vus[m].init_we_i.next = false;
            self.vus[m].init_addr_i.next =
                self.init_vgpr_addr_i.val() + self.launch_vgpr_base_i.val();
            self.vus[m].init_pass_i.next = self.init_vgpr_pass_i.val();
            for l in 0..SIMD_LANES {
                self.vus[m].init_wdata_i[l].next = self.init_vgpr_data_i[l].val();
            }
            for k in 0..self._per_slot {
                self.vus[m].issue_i[k].next = false;
                self.vus[m].op_i[k].next = ValuOp::Mov;
                self.vus[m].dst_i[k].next = 0.into();
                self.vus[m].fmod_i[k].next = 0.into();
                self.vus[m].sdwa_i[k].next = 0.into();
                self.vus[m].mask_in_lo_i[k].next = 0.into();
                self.vus[m].mask_in_hi_i[k].next = 0.into();
                self.vus[m].en_lo_i[k].next = 0.into();
                self.vus[m].en_hi_i[k].next = 0.into();
                for n in 0..SOURCES {
                    self.vus[m].src_is_vgpr_i[k * SOURCES + n].next = false;
                    self.vus[m].src_vgpr_i[k * SOURCES + n].next = 0.into();
                    self.vus[m].src_value_i[k * SOURCES + n].next = 0.into();
                    self.vus[m].src_value_hi_i[k * SOURCES + n].next = 0.into();
                }
            }
            self.vus[m].compaction_i.next = self.compaction_i.val();
            self.vus[m].lsu_rd_i.next = false;
            self.vus[m].lsu_rd_addr_i.next = self.lsu.vu_rd_addr_o.val();
            self.vus[m].lsu_rd_pass_i.next = self.lsu.vu_rd_pass_o.val();
            self.vus[m].lsu_we_i.next = false;
            self.vus[m].lsu_wr_addr_i.next = self.lsu.vu_wr_addr_o.val();
            self.vus[m].lsu_wr_pass_i.next = self.lsu.vu_wr_pass_o.val();
            self.vus[m].lsu_wr_lanes_i.next = self.lsu.vu_wr_lanes_o.val();
            for l in 0..SIMD_LANES {
                self.vus[m].lsu_wdata_i[l].next = self.lsu.vu_wdata_o[l].val();
            }
        }
        for l in 0..SIMD_LANES {
            self.lsu.vu_rdata_i[l].next = 0.into();
            self.lsu.mem_rdata_i[l].next = self.mem_rdata_i[l].val();
            self.mem_addr_o[l].next = self.lsu.mem_addr_o[l].val();
            self.mem_wdata_o[l].next = self.lsu.mem_wdata_o[l].val();
            self.mem_wdata1_o[l].next = self.lsu.mem_wdata1_o[l].val();
        }
        for m in 0..self._simds {
            for js in 0..self._slots_per_simd {
                if self.lsu.vu_slot_o.val().index() == m * self._slots_per_simd + js {
                    self.vus[m].lsu_rd_i.next = self.lsu.vu_rd_o.val();
                    self.vus[m].lsu_rd_addr_i.next = self.lsu.vu_rd_addr_o.val()
                        + self.vbase[m * self._slots_per_simd + js].q.val();
                    for l in 0..SIMD_LANES {
                        self.lsu.vu_rdata_i[l].next = self.vus[m].lsu_rdata_o[l].val();
                    }
                }
                if self.lsu.vu_wr_slot_o.val().index() == m * self._slots_per_simd + js {
                    self.vus[m].lsu_we_i.next = self.lsu.vu_we_o.val();
                    self.vus[m].lsu_wr_addr_i.next = self.lsu.vu_wr_addr_o.val()
                        + self.vbase[m * self._slots_per_simd + js].q.val();
                }
                if self.init_slot_i.val().index() == m * self._slots_per_simd + js {
                    self.vus[m].init_we_i.next = self.init_vgpr_we_i.val();
                }
            }
        }
        self.lsu.mem_rvalid_i.next = self.mem_rvalid_i.val();
        self.mem_req_o.next = self.lsu.mem_req_o.val();
        self.mem_we_o.next = self.lsu.mem_we_o.val();
        self.mem_lanes_o.next = self.lsu.mem_lanes_o.val();
        self.mem_size_o.next = self.lsu.mem_size_o.val();
        self.mem_signed_o.next = self.lsu.mem_signed_o.val();
        self.mem_rmw_o.next = self.lsu.mem_rmw_o.val();
        self.lsu.launch_i.next = self.launch_i.val();
        self.lsu.launch_slot_i.next = self.init_slot_i.val();
        self.lsu.launch_lds_base_i.next = self.launch_lds_base_i.val();
        self.lsu.launch_lds_size_i.next = self.launch_lds_size_i.val();
        self.lsu.lds_clear_i.next = self.lds_clear_i.val();
        self.lsu.lds_clear_row_i.next = self.lds_clear_row_i.val();
        self.lds_fault_o.next = self.lsu.lds_fault_o.val();
        self.lds_fault_lane_o.next = self.lsu.lds_fault_lane_o.val();
        self.lds_fault_addr_o.next = self.lsu.lds_fault_addr_o.val();
        self.lds_fault_misaligned_o.next = self.lsu.lds_fault_misaligned_o.val();
        self.lds_fault_ctx_o.next = self.lsu.lds_fault_ctx_o.val();
        self.lds_fault_m0_o.next = self.lsu.lds_fault_m0_o.val();
        self.mem_ctx_o.next = self.lsu.mem_ctx_o.val();

        // Which contexts may issue.
        for j in 0..self.live.len() {
            for k in 0..self._per_slot {
                self.runnable[j * self._per_slot + k].next = self.live[j].q.val()
                    & (self.smus[j].cx_state[k].val() == ContextState::Running)
                    & !self.busy[j * self._per_slot + k].q.val()
                    & !self.ended[j * self._per_slot + k].q.val()
                    & !self.at_bar[j * self._per_slot + k].q.val()
                    & !self.err.q.val();
            }
        }

        // Issue units: candidates, fetch, and what the current instruction writes.
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                self.ius[m * self._per_slot + kk].clock.next = self.clock.val();
                self.ius[m * self._per_slot + kk].nosplit_i.next =
                    self.mode_i.val() == CuMode::NoSplit;
                self.ius[m * self._per_slot + kk].prog_bytes_i.next = self.prog_bytes.val();
                self.ius[m * self._per_slot + kk].n_sgprs_i.next = self.n_sgprs.val();
                self.imem.fetch_pc_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].fetch_pc_o.val();
                self.ius[m * self._per_slot + kk].word0_i.next =
                    self.imem.word0_o[m * self._per_slot + kk].val();
                self.ius[m * self._per_slot + kk].word1_i.next =
                    self.imem.word1_o[m * self._per_slot + kk].val();
                self.ius[m * self._per_slot + kk].srf_rdata_lo_i.next = 0.into();
                self.ius[m * self._per_slot + kk].srf_rdata_hi_i.next = 0.into();
                self.ius[m * self._per_slot + kk].valu_ready_i.next = false;
                self.lsu.disp_valid_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_valid_o.val();
                self.lsu.disp_ctx_i[m * self._per_slot + kk].next = 0.into();
                self.lsu.disp_store_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_store_o.val();
                self.lsu.disp_scalar_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_scalar_o.val();
                self.lsu.disp_dwords_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_dwords_o.val();
                self.lsu.disp_size_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_size_o.val();
                self.lsu.disp_signed_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_signed_o.val();
                self.lsu.disp_addr_vgpr_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_addr_vgpr_o.val();
                self.lsu.disp_data_vgpr_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_data_vgpr_o.val();
                self.lsu.disp_data1_vgpr_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_data1_vgpr_o.val();
                self.lsu.disp_ret_vgpr_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_ret_vgpr_o.val();
                self.lsu.disp_ext_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_ext_o.val();
                self.lsu.disp_m0_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_m0_o.val();
                self.lsu.disp_sdst_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_sdst_o.val();
                self.lsu.disp_saddr_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].mem_saddr_o.val();
                self.lsu.disp_en_lo_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].valu_en_lo_o.val();
                self.lsu.disp_en_hi_i[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].valu_en_hi_o.val();
                self.issue_valid_o[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].pick_valid_o.val();
                self.issue_pc_o[m * self._per_slot + kk].next =
                    self.ius[m * self._per_slot + kk].fetch_pc_o.val();
                self.issue_ctx_o[m * self._per_slot + kk].next = 0.into();
                for js in 0..self._slots_per_simd {
                    for k in 0..self._per_slot {
                        // Candidate i = js * (S + 1) + k is context c of slot j.
                        self.ius[m * self._per_slot + kk].eligible_i[js * self._per_slot + k]
                            .next = self.runnable
                            [(m * self._slots_per_simd + js) * self._per_slot + k]
                            .val()
                            & (((self.mode_i.val() == CuMode::Pws) & (k == kk))
                                | ((self.mode_i.val() != CuMode::Pws) & (kk == 0)));
                        self.ius[m * self._per_slot + kk].pc_i[js * self._per_slot + k].next =
                            self.smus[m * self._slots_per_simd + js].cx_pc[k].val();
                        self.ius[m * self._per_slot + kk].exec_lo_i[js * self._per_slot + k].next =
                            self.smus[m * self._slots_per_simd + js].cx_exec_lo[k].val();
                        self.ius[m * self._per_slot + kk].exec_hi_i[js * self._per_slot + k].next =
                            self.smus[m * self._slots_per_simd + js].cx_exec_hi[k].val();
                        self.ius[m * self._per_slot + kk].spm_lo_i[js * self._per_slot + k].next =
                            self.smus[m * self._slots_per_simd + js].cx_spm_lo[k].val();
                        self.ius[m * self._per_slot + kk].spm_hi_i[js * self._per_slot + k].next =
                            self.smus[m * self._slots_per_simd + js].cx_spm_hi[k].val();
                        self.ius[m * self._per_slot + kk].vcc_lo_i[js * self._per_slot + k].next =
                            self.vcc_lo[(m * self._slots_per_simd + js) * self._per_slot + k]
                                .q
                                .val();
                        self.ius[m * self._per_slot + kk].vcc_hi_i[js * self._per_slot + k].next =
                            self.vcc_hi[(m * self._slots_per_simd + js) * self._per_slot + k]
                                .q
                                .val();
                        self.ius[m * self._per_slot + kk].m0_i[js * self._per_slot + k].next = self
                            .m0[(m * self._slots_per_simd + js) * self._per_slot + k]
                            .q
                            .val();
                        self.ius[m * self._per_slot + kk].scc_i[js * self._per_slot + k].next =
                            self.scc[(m * self._slots_per_simd + js) * self._per_slot + k]
                                .q
                                .val();
                    }
                }
            }
        }
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                for js in 0..self._slots_per_simd {
                    for k in 0..self._per_slot {
                        if self.ius[m * self._per_slot + kk].pick_valid_o.val()
                            & (self.ius[m * self._per_slot + kk].pick_o.val().index()
                                == js * self._per_slot + k)
                        {
                            self.busy[(m * self._slots_per_simd + js) * self._per_slot + k]
                                .d
                                .next = true;
                            self.ipc[(m * self._slots_per_simd + js) * self._per_slot + k]
                                .d
                                .next = self.ius[m * self._per_slot + kk].fetch_pc_o.val();
                            self.ctx_issue_o
                                [(m * self._slots_per_simd + js) * self._per_slot + k]
                                .next = true;
                            self.issue_ctx_o[m * self._per_slot + kk].next = self.c_id
                                [(m * self._slots_per_simd + js) * self._per_slot + k]
                                .val();
                        }
                        if self.ius[m * self._per_slot + kk].active_o.val()
                            & (self.ius[m * self._per_slot + kk].cur_o.val().index()
                                == js * self._per_slot + k)
                        {
                            // Operand read and write-back through the context's own ports.
                            self.ius[m * self._per_slot + kk].srf_rdata_lo_i.next =
                                self.smus[m * self._slots_per_simd + js].cx_srf_rdata_lo[k].val();
                            self.ius[m * self._per_slot + kk].srf_rdata_hi_i.next =
                                self.smus[m * self._slots_per_simd + js].cx_srf_rdata_hi[k].val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_rd[k].next =
                                self.ius[m * self._per_slot + kk].srf_rd_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_raddr[k].next =
                                self.ius[m * self._per_slot + kk].srf_raddr_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_we_lo[k].next =
                                self.ius[m * self._per_slot + kk].srf_we_lo_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_we_hi[k].next =
                                self.ius[m * self._per_slot + kk].srf_we_hi_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_waddr[k].next =
                                self.ius[m * self._per_slot + kk].srf_waddr_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_wdata_lo[k].next =
                                self.ius[m * self._per_slot + kk].srf_wdata_lo_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_srf_wdata_hi[k].next =
                                self.ius[m * self._per_slot + kk].srf_wdata_hi_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_wr_pc_en[k].next =
                                self.ius[m * self._per_slot + kk].wr_pc_en_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_wr_pc[k].next =
                                self.ius[m * self._per_slot + kk].wr_pc_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_wr_exec_en[k].next =
                                self.ius[m * self._per_slot + kk].wr_exec_en_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_wr_exec_lo[k].next =
                                self.ius[m * self._per_slot + kk].wr_exec_lo_o.val();
                            self.smus[m * self._slots_per_simd + js].cx_wr_exec_hi[k].next =
                                self.ius[m * self._per_slot + kk].wr_exec_hi_o.val();
                            if self.ius[m * self._per_slot + kk].wr_vcc_lo_en_o.val() {
                                self.vcc_lo[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].wr_vcc_lo_o.val();
                            }
                            if self.ius[m * self._per_slot + kk].wr_vcc_hi_en_o.val() {
                                self.vcc_hi[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].wr_vcc_hi_o.val();
                            }
                            if self.ius[m * self._per_slot + kk].wr_m0_en_o.val() {
                                self.m0[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].wr_m0_o.val();
                            }
                            if self.ius[m * self._per_slot + kk].wr_scc_en_o.val() {
                                self.scc[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].wr_scc_o.val();
                            }
                            if self.ius[m * self._per_slot + kk].retire_o.val() {
                                self.retire[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .next = true;
                            }
                            if self.ius[m * self._per_slot + kk].end_o.val() {
                                self.ended[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = true;
                            }
                            if self.ius[m * self._per_slot + kk].barrier_o.val() {
                                self.at_bar[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = true;
                            }
                            if self.ius[m * self._per_slot + kk].sm_valid_o.val() {
                                self.sm_direct[m * self._slots_per_simd + js].next = true;
                                self.sm_direct_k[m * self._slots_per_simd + js].next = k.to_bits();
                                self.sm_direct_split[m * self._slots_per_simd + js].next =
                                    self.ius[m * self._per_slot + kk].sm_split_o.val();
                                self.sm_direct_lo[m * self._slots_per_simd + js].next =
                                    self.ius[m * self._per_slot + kk].sm_mask_lo_o.val();
                                self.sm_direct_hi[m * self._slots_per_simd + js].next =
                                    self.ius[m * self._per_slot + kk].sm_mask_hi_o.val();
                                self.sm_direct_pc[m * self._slots_per_simd + js].next =
                                    self.ius[m * self._per_slot + kk].next_pc_o.val();
                                self.sm_pend
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = true;
                                self.sm_split
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].sm_split_o.val();
                                self.sm_mask_lo
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].sm_mask_lo_o.val();
                                self.sm_mask_hi
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].sm_mask_hi_o.val();
                                self.sm_pc[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].next_pc_o.val();
                            }
                            self.lsu.disp_ctx_i[m * self._per_slot + kk].next =
                                ((m * self._slots_per_simd + js) * self._per_slot + k).to_bits();
                            if self.ius[m * self._per_slot + kk].error_o.val() {
                                self.new_err.next = true;
                                self.new_code.next =
                                    self.ius[m * self._per_slot + kk].error_code_o.val();
                                self.new_pc.next = self.ius[m * self._per_slot + kk].pc_o.val();
                                self.new_ctx.next = self.c_id
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .val();
                            }
                            // VALU hand-off to port kk of the SIMD's vector unit, with the
                            // slot's VGPR base added to the register numbers.
                            self.ius[m * self._per_slot + kk].valu_ready_i.next =
                                self.vus[m].ready_o[kk].val();
                            self.vus[m].issue_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_issue_o.val();
                            self.vus[m].op_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_op_o.val();
                            self.vus[m].dst_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_dst_o.val()
                                    + self.vbase[m * self._slots_per_simd + js].q.val();
                            self.vus[m].fmod_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_fmod_o.val();
                            self.vus[m].sdwa_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_sdwa_o.val();
                            self.vus[m].mask_in_lo_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_mask_in_lo_o.val();
                            self.vus[m].mask_in_hi_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_mask_in_hi_o.val();
                            self.vus[m].en_lo_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_en_lo_o.val();
                            self.vus[m].en_hi_i[kk].next =
                                self.ius[m * self._per_slot + kk].valu_en_hi_o.val();
                            for n in 0..SOURCES {
                                self.vus[m].src_is_vgpr_i[kk * SOURCES + n].next =
                                    self.ius[m * self._per_slot + kk].valu_src_is_vgpr_o[n].val();
                                self.vus[m].src_vgpr_i[kk * SOURCES + n].next =
                                    self.ius[m * self._per_slot + kk].valu_src_vgpr_o[n].val()
                                        + self.vbase[m * self._slots_per_simd + js].q.val();
                                self.vus[m].src_value_i[kk * SOURCES + n].next =
                                    self.ius[m * self._per_slot + kk].valu_src_value_o[n].val();
                                self.vus[m].src_value_hi_i[kk * SOURCES + n].next =
                                    self.ius[m * self._per_slot + kk].valu_src_value_hi_o[n].val();
                            }
                            if self.ius[m * self._per_slot + kk].valu_issue_o.val()
                                & self.vus[m].ready_o[kk].val()
                            {
                                self.vu_owner[m * self._per_slot + kk].d.next =
                                    (js * self._per_slot + k).to_bits();
                                self.v_mdst[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next = self.ius[m * self._per_slot + kk].valu_mask_dst_o.val();
                                self.v_msgpr
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next =
                                    self.ius[m * self._per_slot + kk].valu_mask_sgpr_o.val();
                                self.v_wexec
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .d
                                    .next =
                                    self.ius[m * self._per_slot + kk].valu_writes_exec_o.val();
                            }
                        }
                    }
                }
            }
        }

        // VALU completion: the mask result goes to VCC, an SGPR pair or EXEC, and the context
        // retires.
        for m in 0..self._simds {
            for p in 0..self._per_slot {
                if self.vus[m].done_o[p].val() {
                    for js in 0..self._slots_per_simd {
                        for k in 0..self._per_slot {
                            if self.vu_owner[m * self._per_slot + p].q.val().index()
                                == js * self._per_slot + k
                            {
                                self.retire[(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .next = true;
                                match self.v_mdst
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .q
                                    .val()
                                {
                                    DstKind::VccLo => {
                                        self.vcc_lo[(m * self._slots_per_simd + js)
                                            * self._per_slot
                                            + k]
                                            .d
                                            .next = self.vus[m].mask_lo_o[p].val();
                                        self.vcc_hi[(m * self._slots_per_simd + js)
                                            * self._per_slot
                                            + k]
                                            .d
                                            .next = self.vus[m].mask_hi_o[p].val();
                                    }
                                    DstKind::Sgpr => {
                                        self.smus[m * self._slots_per_simd + js].cx_srf_we_lo[k]
                                            .next = true;
                                        self.smus[m * self._slots_per_simd + js].cx_srf_we_hi[k]
                                            .next = true;
                                        self.smus[m * self._slots_per_simd + js].cx_srf_waddr[k]
                                            .next = self.v_msgpr
                                            [(m * self._slots_per_simd + js) * self._per_slot + k]
                                            .q
                                            .val();
                                        self.smus[m * self._slots_per_simd + js].cx_srf_wdata_lo
                                            [k]
                                            .next = self.vus[m].mask_lo_o[p].val();
                                        self.smus[m * self._slots_per_simd + js].cx_srf_wdata_hi
                                            [k]
                                            .next = self.vus[m].mask_hi_o[p].val();
                                    }
                                    _ => {}
                                }
                                // `v_cmpx` writes EXEC as its mask destination or beside it.
                                if (self.v_mdst
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .q
                                    .val()
                                    == DstKind::ExecLo)
                                    | self.v_wexec
                                        [(m * self._slots_per_simd + js) * self._per_slot + k]
                                        .q
                                        .val()
                                {
                                    self.smus[m * self._slots_per_simd + js].cx_wr_exec_en[k]
                                        .next = true;
                                    self.smus[m * self._slots_per_simd + js].cx_wr_exec_lo[k]
                                        .next = self.vus[m].mask_lo_o[p].val();
                                    self.smus[m * self._slots_per_simd + js].cx_wr_exec_hi[k]
                                        .next = self.vus[m].mask_hi_o[p].val();
                                }
                            }
                        }
                    }
                }
            }
        }

        // LSU completion and scalar-load write-back.
        for j in 0..self.smus.len() {
            for k in 0..self._per_slot {
                if self.lsu.retire_o[j * self._per_slot + k].val() {
                    self.retire[j * self._per_slot + k].next = true;
                }
                if (self.lsu.srf_ctx_o.val().index() == j * self._per_slot + k)
                    & (self.lsu.srf_we_lo_o.val() | self.lsu.srf_we_hi_o.val())
                {
                    self.smus[j].cx_srf_we_lo[k].next = self.lsu.srf_we_lo_o.val();
                    self.smus[j].cx_srf_we_hi[k].next = self.lsu.srf_we_hi_o.val();
                    self.smus[j].cx_srf_waddr[k].next = self.lsu.srf_addr_o.val();
                    self.smus[j].cx_srf_wdata_lo[k].next = self.lsu.srf_wdata_lo_o.val();
                    self.smus[j].cx_srf_wdata_hi[k].next = self.lsu.srf_wdata_hi_o.val();
                }
            }
        }

        // Split/merge arbiter of each slot (round-robin over the slot's contexts), launch and
        // the end of a wavefront.
        for j in 0..self.smus.len() {
            self.sm_found[j].next = false;
            self.sm_pick[j].next = 0.into();
            self.par_vcc_lo[j].next = 0.into();
            self.par_vcc_hi[j].next = 0.into();
            self.par_m0[j].next = 0.into();
            self.par_scc[j].next = false;
            self.slot_done[j].next = self.live[j].q.val() & self.ended[j * self._per_slot].q.val();
            // Round-robin: the first pending request after the last one served (context 0
            // never is), else the first.
            for k in 1..self._per_slot {
                if !self.sm_found[j].val()
                    & self.sm_pend[j * self._per_slot + k].q.val()
                    & (self.sm_rr[j].q.val().index() < k)
                {
                    self.sm_found[j].next = true;
                    self.sm_pick[j].next = k.to_bits();
                }
            }
            for k in 0..self._per_slot {
                if self.sm_cur[j].q.val().index() == k {
                    self.par_vcc_lo[j].next = self.vcc_lo[j * self._per_slot + k].q.val();
                    self.par_vcc_hi[j].next = self.vcc_hi[j * self._per_slot + k].q.val();
                    self.par_m0[j].next = self.m0[j * self._per_slot + k].q.val();
                    self.par_scc[j].next = self.scc[j * self._per_slot + k].q.val();
                }
                if (self.smus[j].cx_state[k].val() != ContextState::Free)
                    & !self.ended[j * self._per_slot + k].q.val()
                {
                    self.slot_done[j].next = false;
                }
            }
            for k in 0..self._per_slot {
                if !self.sm_found[j].val() & self.sm_pend[j * self._per_slot + k].q.val() {
                    self.sm_found[j].next = true;
                    self.sm_pick[j].next = k.to_bits();
                }
            }
            if self.launch_i.val() & (self.init_slot_i.val().index() == j) & !self.live[j].q.val() {
                self.smus[j].req_op.next = SmOp::Launch;
                self.smus[j].req_mask_lo.next = self.launch_exec_lo_i.val();
                self.smus[j].req_mask_hi.next = self.launch_exec_hi_i.val();
                self.smus[j].req_pc.next = self.launch_pc_i.val();
                self.live[j].d.next = true;
                self.wg[j].d.next = self.launch_wg_i.val();
                self.vbase[j].d.next = self.launch_vgpr_base_i.val();
                for k in 0..self._per_slot {
                    self.vcc_lo[j * self._per_slot + k].d.next = 0.into();
                    self.vcc_hi[j * self._per_slot + k].d.next = 0.into();
                    self.m0[j * self._per_slot + k].d.next = 0.into();
                    self.scc[j * self._per_slot + k].d.next = false;
                }
            } else if self.sm_active[j].q.val() {
                if !self.smus[j].done.val() {
                    // The request is held until the datapath completes it.
                    self.smus[j].req_op.next = SmOp::Merge;
                    self.smus[j].req_ctx.next = self.sm_cur[j].q.val();
                    for k in 0..self._per_slot {
                        if self.sm_cur[j].q.val().index() == k {
                            if self.sm_split[j * self._per_slot + k].q.val() {
                                self.smus[j].req_op.next = SmOp::Split;
                            }
                            self.smus[j].req_mask_lo.next =
                                self.sm_mask_lo[j * self._per_slot + k].q.val();
                            self.smus[j].req_mask_hi.next =
                                self.sm_mask_hi[j * self._per_slot + k].q.val();
                            self.smus[j].req_pc.next = self.sm_pc[j * self._per_slot + k].q.val();
                        }
                    }
                } else {
                    self.sm_active[j].d.next = false;
                    for k in 0..self._per_slot {
                        if self.sm_cur[j].q.val().index() == k {
                            self.retire[j * self._per_slot + k].next = true;
                            self.sm_pend[j * self._per_slot + k].d.next = false;
                        }
                    }
                    match self.smus[j].status.val() {
                        SmStatus::Ok => self.split_done[j].next = true,
                        SmStatus::NoFreeContext => self.fallback[j].next = true,
                        SmStatus::Merged => self.merged[j].next = true,
                        SmStatus::StackOverflow => {
                            self.new_err.next = true;
                            self.new_code.next = CuError::NestingOverflow;
                        }
                        SmStatus::BadContext => {
                            self.new_err.next = true;
                            self.new_code.next = CuError::MergeProtocol;
                        }
                        _ => {}
                    }
                    // A new SWF context also copies VCC, M0 and SCC (its SGPRs and EXEC were
                    // copied by the datapath).
                    for k in 0..self._per_slot {
                        if self.split_done[j].val() & (self.smus[j].new_ctx.val().index() == k) {
                            self.vcc_lo[j * self._per_slot + k].d.next = self.par_vcc_lo[j].val();
                            self.vcc_hi[j * self._per_slot + k].d.next = self.par_vcc_hi[j].val();
                            self.m0[j * self._per_slot + k].d.next = self.par_m0[j].val();
                            self.scc[j * self._per_slot + k].d.next = self.par_scc[j].val();
                        }
                    }
                }
            } else if !self.sm_found[j].val() & self.sm_direct[j].val() {
                // Nothing pending: a request issued in this cycle goes straight to the
                // datapath (it is also recorded as pending, for the cycles it is held).
                self.sm_active[j].d.next = true;
                self.sm_cur[j].d.next = self.sm_direct_k[j].val();
                self.sm_rr[j].d.next = self.sm_direct_k[j].val();
                self.smus[j].req_op.next = SmOp::Merge;
                if self.sm_direct_split[j].val() {
                    self.smus[j].req_op.next = SmOp::Split;
                }
                self.smus[j].req_ctx.next = self.sm_direct_k[j].val();
                self.smus[j].req_mask_lo.next = self.sm_direct_lo[j].val();
                self.smus[j].req_mask_hi.next = self.sm_direct_hi[j].val();
                self.smus[j].req_pc.next = self.sm_direct_pc[j].val();
            } else if self.sm_found[j].val() {
                self.sm_active[j].d.next = true;
                self.sm_cur[j].d.next = self.sm_pick[j].val();
                self.sm_rr[j].d.next = self.sm_pick[j].val();
                self.smus[j].req_op.next = SmOp::Merge;
                self.smus[j].req_ctx.next = self.sm_pick[j].val();
                for k in 0..self._per_slot {
                    if self.sm_pick[j].val().index() == k {
                        if self.sm_split[j * self._per_slot + k].q.val() {
                            self.smus[j].req_op.next = SmOp::Split;
                        }
                        self.smus[j].req_mask_lo.next =
                            self.sm_mask_lo[j * self._per_slot + k].q.val();
                        self.smus[j].req_mask_hi.next =
                            self.sm_mask_hi[j * self._per_slot + k].q.val();
                        self.smus[j].req_pc.next = self.sm_pc[j * self._per_slot + k].q.val();
                    }
                }
            }
            // The wavefront ends once its WF context and every SWF context ended (or merged).
            if self.slot_done[j].val() {
                self.smus[j].free_all.next = true;
                self.live[j].d.next = false;
                for k in 0..self._per_slot {
                    self.ended[j * self._per_slot + k].d.next = false;
                    self.at_bar[j * self._per_slot + k].d.next = false;
                    self.busy[j * self._per_slot + k].d.next = false;
                }
            }
        }

        // Debug read port.
        self.dbg_state_o.next = ContextState::Free;
        self.dbg_pc_o.next = 0.into();
        self.dbg_parent_o.next = 0.into();
        self.dbg_stack_top_o.next = 0.into();
        self.dbg_stack_depth_o.next = 0.into();
        self.dbg_ended_o.next = false;
        self.dbg_at_barrier_o.next = false;
        self.dbg_in_flight_o.next = false;
        for j in 0..self.smus.len() {
            if self.dbg_slot_i.val().index() == j {
                self.dbg_state_o.next = self.smus[j].rd_state.val();
                self.dbg_pc_o.next = self.smus[j].rd_pc.val();
                self.dbg_parent_o.next = self.smus[j].rd_parent.val();
                self.dbg_stack_top_o.next = self.smus[j].rd_stack_top.val();
                self.dbg_stack_depth_o.next = self.smus[j].rd_stack_depth.val();
                for k in 0..self._per_slot {
                    if self.dbg_ctx_i.val().index() == k {
                        self.dbg_ended_o.next = self.ended[j * self._per_slot + k].q.val();
                        self.dbg_at_barrier_o.next = self.at_bar[j * self._per_slot + k].q.val();
                        self.dbg_in_flight_o.next = self.busy[j * self._per_slot + k].q.val();
                    }
                }
            }
        }

        // Barrier.
        self.barrier.hold_i.next = self.barrier_hold_i.val();
        for j in 0..self.live.len() {
            self.barrier.live_i[j].next = self.live[j].q.val();
            self.barrier.wg_i[j].next = self.wg[j].q.val();
            for k in 0..self._per_slot {
                self.ctx_waiting_o[j * self._per_slot + k].next =
                    self.smus[j].cx_state[k].val() == ContextState::Waiting;
                self.barrier.waiting_i[j * self._per_slot + k].next =
                    self.at_bar[j * self._per_slot + k].q.val();
                self.barrier.absent_i[j * self._per_slot + k].next =
                    (self.smus[j].cx_state[k].val() == ContextState::Free)
                        | self.ended[j * self._per_slot + k].q.val();
                if self.barrier.release_o[j * self._per_slot + k].val() {
                    self.at_bar[j * self._per_slot + k].d.next = false;
                    self.retire[j * self._per_slot + k].next = true;
                }
            }
        }

        // Retirement frees the context for its next instruction.
        for c in 0..self.busy.len() {
            self.ctx_retire_o[c].next = self.retire[c].val();
            if self.retire[c].val() {
                self.busy[c].d.next = false;
            }
        }
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                self.retire_valid_o[m * self._per_slot + kk].next = false;
                self.retire_ctx_o[m * self._per_slot + kk].next = 0.into();
                self.retire_pc_o[m * self._per_slot + kk].next = 0.into();
                for js in 0..self._slots_per_simd {
                    for k in 0..self._per_slot {
                        if self.retire[(m * self._slots_per_simd + js) * self._per_slot + k].val()
                            & !self.retire_valid_o[m * self._per_slot + kk].val()
                            & (((self.mode_i.val() == CuMode::Pws) & (k == kk))
                                | ((self.mode_i.val() != CuMode::Pws) & (kk == 0)))
                        {
                            self.retire_valid_o[m * self._per_slot + kk].next = true;
                            self.retire_ctx_o[m * self._per_slot + kk].next = self.c_id
                                [(m * self._slots_per_simd + js) * self._per_slot + k]
                                .val();
                            self.retire_pc_o[m * self._per_slot + kk].next = self.ipc
                                [(m * self._slots_per_simd + js) * self._per_slot + k]
                                .q
                                .val();
                        }
                    }
                }
            }
        }

        // Errors: the first one is kept and stops all issue.
        if self.new_err.val() & !self.err.q.val() {
            self.err.d.next = true;
            self.err_code.d.next = self.new_code.val();
            self.err_pc.d.next = self.new_pc.val();
            self.err_ctx.d.next = self.new_ctx.val();
        }
        self.error_o.next = self.err.q.val();
        self.error_code_o.next = self.err_code.q.val();
        self.error_pc_o.next = self.err_pc.q.val();
        self.error_ctx_o.next = self.err_ctx.q.val();

        // Statistics and status.
        self.stat_p.next = 0.into();
        self.stat_s.next = 0.into();
        self.stat_a.next = 0.into();
        self.any_live.next = false;
        self.acc_splits.next = self.n_splits.q.val();
        self.acc_fallbacks.next = self.n_fallbacks.q.val();
        self.acc_merges.next = self.n_merges.q.val();
        for m in 0..self.vus.len() {
            self.stat_p.next = self.stat_p.val() + self.vus[m].stat_passes_o.val();
            self.stat_s.next = self.stat_s.val() + self.vus[m].stat_skipped_o.val();
            self.stat_a.next = self.stat_a.val() + self.vus[m].stat_active_o.val();
        }
        for j in 0..self.live.len() {
            self.slot_free_o[j].next = !self.live[j].q.val();
            if self.live[j].q.val() {
                self.any_live.next = true;
            }
            if self.split_done[j].val() {
                self.acc_splits.next = self.acc_splits.val() + 1;
            }
            if self.fallback[j].val() {
                self.acc_fallbacks.next = self.acc_fallbacks.val() + 1;
            }
            if self.merged[j].val() {
                self.acc_merges.next = self.acc_merges.val() + 1;
            }
        }
        self.n_splits.d.next = self.acc_splits.val();
        self.n_fallbacks.d.next = self.acc_fallbacks.val();
        self.n_merges.d.next = self.acc_merges.val();
        self.stat_valu_passes_o.next = self.stat_p.val();
        self.stat_passes_skipped_o.next = self.stat_s.val();
        self.stat_active_lane_ops_o.next = self.stat_a.val();
        self.stat_splits_o.next = self.n_splits.q.val();
        self.stat_split_fallbacks_o.next = self.n_fallbacks.q.val();
        self.stat_merges_o.next = self.n_merges.q.val();
        self.idle_o.next = !self.any_live.val() & !self.lsu.busy_o.val();
    }
}
