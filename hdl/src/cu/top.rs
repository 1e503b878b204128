//! The compute-unit top: wires the issue units, the wavefront slots ([`WavefrontSlot`]: the
//! contexts, their split/merge datapath and the per-context state beside it), the SIMDs'
//! vector units, the LSU and the barrier unit together (docs/cu.md). Per vector-unit port it
//! records which context's op is in flight, and it adds a slot's VGPR base to every register
//! number the issue units and the LSU hand to the vector unit.
//!
//! Context c of the compute unit is slot · (S + 1) + k; slot j belongs to SIMD j / N_WFC.

use rust_hdl::prelude::*;

use super::barrier::BarrierUnit;
use super::imem::{InstructionMemory, IMEM_ADDR_BITS};
use super::issue::IssueUnit;
use super::lds::LDS_ROW_BITS;
use super::lsu::LoadStoreUnit;
use super::slot::WavefrontSlot;
use super::{CuError, CuMode, CTX_BITS, MAX_SLOTS, MAX_SLOTS_PER_SIMD, SLOT_BITS};
use crate::config::{ConfigErrors, HwConfig, CONTEXT_ID_BITS, SGPR_ADDR_BITS, VGPR_ADDR_BITS};
use crate::context::{ContextState, DEPTH_BITS};
use crate::simd::{SimdConfigError, ValuOp, VectorUnit, SIMD_LANES, SOURCES};
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
    pub vus: Vec<VectorUnit>,
    pub lsu: LoadStoreUnit,
    pub barrier: BarrierUnit,
    pub slots: Vec<WavefrontSlot>,
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
    /// Per slot: its context 0's candidate number at its SIMD's issue units and dense index.
    cand_base: Vec<Constant<Bits<8>>>,
    ctx_base: Vec<Constant<Bits<CTX_BITS>>>,
    n_sgprs: Constant<Bits<8>>,
    // Combinational.
    any_live: Signal<Local, Bit>,
    stat_p: Signal<Local, Bits<32>>,
    stat_s: Signal<Local, Bits<32>>,
    stat_a: Signal<Local, Bits<32>>,
    new_err: Signal<Local, Bit>,
    new_code: Signal<Local, CuError>,
    new_pc: Signal<Local, Bits<32>>,
    new_ctx: Signal<Local, Bits<CTX_BITS>>,
    prog_bytes: Signal<Local, Bits<32>>,
    acc_splits: Signal<Local, Bits<32>>,
    acc_fallbacks: Signal<Local, Bits<32>>,
    acc_merges: Signal<Local, Bits<32>>,
    _simds: usize,
    _slots_per_simd: usize,
    _per_slot: usize,
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
        let slot_blocks = (0..slots)
            .map(|_| WavefrontSlot::new(cfg))
            .collect::<Result<Vec<_>, _>>()?;
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
            slots: slot_blocks,
            vus,
            lsu: LoadStoreUnit::new(cfg),
            barrier: BarrierUnit::new(slots, per_slot),
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
            cand_base: (0..slots)
                .map(|j| Constant::new(((j % cfg.wf_contexts_per_simd) * per_slot).to_bits()))
                .collect(),
            ctx_base: (0..slots)
                .map(|j| Constant::new((j * per_slot).to_bits()))
                .collect(),
            n_sgprs: Constant::new(cfg.sgprs_per_context.to_bits()),
            any_live: Default::default(),
            stat_p: Default::default(),
            stat_s: Default::default(),
            stat_a: Default::default(),
            new_err: Default::default(),
            new_code: Default::default(),
            new_pc: Default::default(),
            new_ctx: Default::default(),
            prog_bytes: Default::default(),
            acc_splits: Default::default(),
            acc_fallbacks: Default::default(),
            acc_merges: Default::default(),
            _simds: cfg.simds_per_cu,
            _slots_per_simd: cfg.wf_contexts_per_simd,
            _per_slot: per_slot,
        })
    }

    /// Contexts of the compute unit (slots · (S + 1)).
    pub fn contexts(&self) -> usize {
        self.ctx_issue_o.len()
    }

    /// Wavefront slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Issue units (N_SIMD · (S + 1)).
    pub fn issue_units(&self) -> usize {
        self.ius.len()
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
        for u in 0..self.vu_owner.len() {
            self.vu_owner[u].clock.next = self.clock.val();
            self.vu_owner[u].d.next = self.vu_owner[u].q.val();
        }
        self.new_err.next = false;
        self.new_code.next = CuError::None;
        self.new_pc.next = 0.into();
        self.new_ctx.next = 0.into();

        // The slots: the dispatcher's launch and SGPR writes, the LSU's write-back, the
        // barrier, and the context ports of the compute unit.
        self.barrier.hold_i.next = self.barrier_hold_i.val();
        for j in 0..self.slots.len() {
            self.slots[j].clock.next = self.clock.val();
            self.slots[j].cand_base_i.next = self.cand_base[j].val();
            self.slots[j].ctx_base_i.next = self.ctx_base[j].val();
            self.slots[j].sgpr_count_i.next = self.sgpr_count_i.val();
            self.slots[j].stop_i.next = self.err.q.val();
            self.slots[j].launch_i.next =
                self.launch_i.val() & (self.init_slot_i.val().index() == j);
            self.slots[j].launch_pc_i.next = self.launch_pc_i.val();
            self.slots[j].launch_exec_lo_i.next = self.launch_exec_lo_i.val();
            self.slots[j].launch_exec_hi_i.next = self.launch_exec_hi_i.val();
            self.slots[j].launch_wg_i.next = self.launch_wg_i.val();
            self.slots[j].launch_vgpr_base_i.next = self.launch_vgpr_base_i.val();
            self.slots[j].init_sgpr_we_i.next =
                self.init_sgpr_we_i.val() & (self.init_slot_i.val().index() == j);
            self.slots[j].init_sgpr_addr_i.next = self.init_sgpr_addr_i.val();
            self.slots[j].init_sgpr_data_i.next = self.init_sgpr_data_i.val();
            self.slots[j].dbg_ctx_i.next = self.dbg_ctx_i.val();
            self.slots[j].lsu_srf_ctx_i.next = self.lsu.srf_ctx_o.val();
            self.slots[j].lsu_srf_we_lo_i.next = self.lsu.srf_we_lo_o.val();
            self.slots[j].lsu_srf_we_hi_i.next = self.lsu.srf_we_hi_o.val();
            self.slots[j].lsu_srf_addr_i.next = self.lsu.srf_addr_o.val();
            self.slots[j].lsu_srf_wdata_lo_i.next = self.lsu.srf_wdata_lo_o.val();
            self.slots[j].lsu_srf_wdata_hi_i.next = self.lsu.srf_wdata_hi_o.val();
            self.barrier.live_i[j].next = self.slots[j].live_o.val();
            self.barrier.wg_i[j].next = self.slots[j].wg_o.val();
            for k in 0..self._per_slot {
                self.slots[j].lsu_retire_i[k].next =
                    self.lsu.retire_o[j * self._per_slot + k].val();
                self.slots[j].bar_release_i[k].next =
                    self.barrier.release_o[j * self._per_slot + k].val();
                self.barrier.waiting_i[j * self._per_slot + k].next =
                    self.slots[j].at_barrier_o[k].val();
                self.barrier.absent_i[j * self._per_slot + k].next =
                    self.slots[j].absent_o[k].val();
                self.ctx_issue_o[j * self._per_slot + k].next = self.slots[j].issue_o[k].val();
                self.ctx_retire_o[j * self._per_slot + k].next = self.slots[j].retire_o[k].val();
                self.ctx_inst_pc_o[j * self._per_slot + k].next = self.slots[j].inst_pc_o[k].val();
                self.ctx_waiting_o[j * self._per_slot + k].next = self.slots[j].waiting_o[k].val();
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
                        + self.slots[m * self._slots_per_simd + js].vbase_o.val();
                    for l in 0..SIMD_LANES {
                        self.lsu.vu_rdata_i[l].next = self.vus[m].lsu_rdata_o[l].val();
                    }
                }
                if self.lsu.vu_wr_slot_o.val().index() == m * self._slots_per_simd + js {
                    self.vus[m].lsu_we_i.next = self.lsu.vu_we_o.val();
                    self.vus[m].lsu_wr_addr_i.next = self.lsu.vu_wr_addr_o.val()
                        + self.slots[m * self._slots_per_simd + js].vbase_o.val();
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
                        // Candidate i = js * (S + 1) + k is context k of the SIMD's slot js.
                        self.ius[m * self._per_slot + kk].eligible_i[js * self._per_slot + k]
                            .next = self.slots[m * self._slots_per_simd + js].runnable_o[k].val()
                            & (((self.mode_i.val() == CuMode::Pws) & (k == kk))
                                | ((self.mode_i.val() != CuMode::Pws) & (kk == 0)));
                        self.ius[m * self._per_slot + kk].pc_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].pc_o[k].val();
                        self.ius[m * self._per_slot + kk].exec_lo_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].exec_lo_o[k].val();
                        self.ius[m * self._per_slot + kk].exec_hi_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].exec_hi_o[k].val();
                        self.ius[m * self._per_slot + kk].spm_lo_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].spm_lo_o[k].val();
                        self.ius[m * self._per_slot + kk].spm_hi_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].spm_hi_o[k].val();
                        self.ius[m * self._per_slot + kk].vcc_lo_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].vcc_lo_o[k].val();
                        self.ius[m * self._per_slot + kk].vcc_hi_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].vcc_hi_o[k].val();
                        self.ius[m * self._per_slot + kk].m0_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].m0_o[k].val();
                        self.ius[m * self._per_slot + kk].scc_i[js * self._per_slot + k].next =
                            self.slots[m * self._slots_per_simd + js].scc_o[k].val();
                    }
                }
            }
        }

        // Every issue unit of a SIMD reaches each of its slots through one port set; the slot
        // its current instruction belongs to answers SGPR reads, and the slot's VGPR base is
        // added to the register numbers it hands to port kk of the SIMD's vector unit.
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                for js in 0..self._slots_per_simd {
                    self.slots[m * self._slots_per_simd + js].iu_pick_valid_i[kk].next =
                        self.ius[m * self._per_slot + kk].pick_valid_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_pick_i[kk].next =
                        self.ius[m * self._per_slot + kk].pick_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_fetch_pc_i[kk].next =
                        self.ius[m * self._per_slot + kk].fetch_pc_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_active_i[kk].next =
                        self.ius[m * self._per_slot + kk].active_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_cur_i[kk].next =
                        self.ius[m * self._per_slot + kk].cur_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_rd_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_rd_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_raddr_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_raddr_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_we_lo_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_we_lo_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_we_hi_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_we_hi_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_waddr_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_waddr_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_wdata_lo_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_wdata_lo_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_srf_wdata_hi_i[kk].next =
                        self.ius[m * self._per_slot + kk].srf_wdata_hi_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_pc_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_pc_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_pc_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_pc_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_exec_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_exec_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_exec_lo_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_exec_lo_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_exec_hi_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_exec_hi_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_vcc_lo_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_vcc_lo_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_vcc_lo_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_vcc_lo_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_vcc_hi_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_vcc_hi_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_vcc_hi_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_vcc_hi_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_m0_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_m0_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_m0_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_m0_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_scc_en_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_scc_en_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_wr_scc_i[kk].next =
                        self.ius[m * self._per_slot + kk].wr_scc_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_retire_i[kk].next =
                        self.ius[m * self._per_slot + kk].retire_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_end_i[kk].next =
                        self.ius[m * self._per_slot + kk].end_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_barrier_i[kk].next =
                        self.ius[m * self._per_slot + kk].barrier_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_sm_valid_i[kk].next =
                        self.ius[m * self._per_slot + kk].sm_valid_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_sm_split_i[kk].next =
                        self.ius[m * self._per_slot + kk].sm_split_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_sm_mask_lo_i[kk].next =
                        self.ius[m * self._per_slot + kk].sm_mask_lo_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_sm_mask_hi_i[kk].next =
                        self.ius[m * self._per_slot + kk].sm_mask_hi_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_next_pc_i[kk].next =
                        self.ius[m * self._per_slot + kk].next_pc_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_valu_mask_dst_i[kk].next =
                        self.ius[m * self._per_slot + kk].valu_mask_dst_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_valu_mask_sgpr_i[kk].next =
                        self.ius[m * self._per_slot + kk].valu_mask_sgpr_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_valu_mask_d32_i[kk].next =
                        self.ius[m * self._per_slot + kk].valu_mask_d32_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_valu_writes_exec_i[kk].next =
                        self.ius[m * self._per_slot + kk].valu_writes_exec_o.val();
                    self.slots[m * self._slots_per_simd + js].iu_valu_go_i[kk].next =
                        self.ius[m * self._per_slot + kk].valu_issue_o.val()
                            & self.vus[m].ready_o[kk].val();
                    if self.slots[m * self._slots_per_simd + js].iu_here_o[kk].val() {
                        self.ius[m * self._per_slot + kk].srf_rdata_lo_i.next =
                            self.slots[m * self._slots_per_simd + js].iu_srf_rdata_lo_o[kk].val();
                        self.ius[m * self._per_slot + kk].srf_rdata_hi_i.next =
                            self.slots[m * self._slots_per_simd + js].iu_srf_rdata_hi_o[kk].val();
                        self.ius[m * self._per_slot + kk].valu_ready_i.next =
                            self.vus[m].ready_o[kk].val();
                        self.vus[m].issue_i[kk].next =
                            self.ius[m * self._per_slot + kk].valu_issue_o.val();
                        self.vus[m].op_i[kk].next =
                            self.ius[m * self._per_slot + kk].valu_op_o.val();
                        self.vus[m].dst_i[kk].next =
                            self.ius[m * self._per_slot + kk].valu_dst_o.val()
                                + self.slots[m * self._slots_per_simd + js].vbase_o.val();
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
                                    + self.slots[m * self._slots_per_simd + js].vbase_o.val();
                            self.vus[m].src_value_i[kk * SOURCES + n].next =
                                self.ius[m * self._per_slot + kk].valu_src_value_o[n].val();
                            self.vus[m].src_value_hi_i[kk * SOURCES + n].next =
                                self.ius[m * self._per_slot + kk].valu_src_value_hi_o[n].val();
                        }
                    }
                }
                if self.ius[m * self._per_slot + kk].active_o.val()
                    & self.ius[m * self._per_slot + kk].valu_issue_o.val()
                    & self.vus[m].ready_o[kk].val()
                {
                    self.vu_owner[m * self._per_slot + kk].d.next =
                        self.ius[m * self._per_slot + kk].cur_o.val();
                }
            }
        }

        // The context an issue unit picked or works on, by name: the compute unit's ports, the
        // LSU's dispatch and the first error. Issue unit (m, kk) serves the contexts its
        // eligibility lets it pick: in PWS mode context kk of each slot (SWF context k runs on
        // SpSIMD k), otherwise issue unit 0 all of them. The pairs that never meet are left
        // out by a condition of the loop indices alone, which simulation skips and the Verilog
        // generator resolves (rust-hdl-core patch 7).
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                for js in 0..self._slots_per_simd {
                    for k in 0..self._per_slot {
                        if (k == kk) | (kk == 0) {
                            if self.ius[m * self._per_slot + kk].pick_valid_o.val()
                                & (self.ius[m * self._per_slot + kk].pick_o.val().index()
                                    == js * self._per_slot + k)
                            {
                                self.issue_ctx_o[m * self._per_slot + kk].next = self.c_id
                                    [(m * self._slots_per_simd + js) * self._per_slot + k]
                                    .val();
                            }
                            if self.ius[m * self._per_slot + kk].active_o.val()
                                & (self.ius[m * self._per_slot + kk].cur_o.val().index()
                                    == js * self._per_slot + k)
                            {
                                self.lsu.disp_ctx_i[m * self._per_slot + kk].next =
                                    ((m * self._slots_per_simd + js) * self._per_slot + k)
                                        .to_bits();
                                if self.ius[m * self._per_slot + kk].error_o.val() {
                                    self.new_err.next = true;
                                    self.new_code.next =
                                        self.ius[m * self._per_slot + kk].error_code_o.val();
                                    self.new_pc.next = self.ius[m * self._per_slot + kk].pc_o.val();
                                    self.new_ctx.next = self.c_id
                                        [(m * self._slots_per_simd + js) * self._per_slot + k]
                                        .val();
                                }
                            }
                        }
                    }
                }
            }
        }

        // Each vector-unit port's completion goes to every slot of its SIMD; the owner's slot
        // takes it.
        for m in 0..self._simds {
            for js in 0..self._slots_per_simd {
                for p in 0..self._per_slot {
                    self.slots[m * self._slots_per_simd + js].vu_done_i[p].next =
                        self.vus[m].done_o[p].val();
                    self.slots[m * self._slots_per_simd + js].vu_owner_i[p].next =
                        self.vu_owner[m * self._per_slot + p].q.val();
                    self.slots[m * self._slots_per_simd + js].vu_mask_lo_i[p].next =
                        self.vus[m].mask_lo_o[p].val();
                    self.slots[m * self._slots_per_simd + js].vu_mask_hi_i[p].next =
                        self.vus[m].mask_hi_o[p].val();
                }
            }
        }

        // The split/merge datapath's errors come after the issue units'.
        for j in 0..self.slots.len() {
            if self.slots[j].error_o.val() {
                self.new_err.next = true;
                self.new_code.next = self.slots[j].error_code_o.val();
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
        for j in 0..self.slots.len() {
            if self.dbg_slot_i.val().index() == j {
                self.dbg_state_o.next = self.slots[j].dbg_state_o.val();
                self.dbg_pc_o.next = self.slots[j].dbg_pc_o.val();
                self.dbg_parent_o.next = self.slots[j].dbg_parent_o.val();
                self.dbg_stack_top_o.next = self.slots[j].dbg_stack_top_o.val();
                self.dbg_stack_depth_o.next = self.slots[j].dbg_stack_depth_o.val();
                self.dbg_ended_o.next = self.slots[j].dbg_ended_o.val();
                self.dbg_at_barrier_o.next = self.slots[j].dbg_at_barrier_o.val();
                self.dbg_in_flight_o.next = self.slots[j].dbg_in_flight_o.val();
            }
        }

        // The retirement ports: per issue unit, the first of its contexts that retires.
        for m in 0..self._simds {
            for kk in 0..self._per_slot {
                self.retire_valid_o[m * self._per_slot + kk].next = false;
                self.retire_ctx_o[m * self._per_slot + kk].next = 0.into();
                self.retire_pc_o[m * self._per_slot + kk].next = 0.into();
                for js in 0..self._slots_per_simd {
                    for k in 0..self._per_slot {
                        if self.slots[m * self._slots_per_simd + js].retire_o[k].val()
                            & !self.retire_valid_o[m * self._per_slot + kk].val()
                            & (((self.mode_i.val() == CuMode::Pws) & (k == kk))
                                | ((self.mode_i.val() != CuMode::Pws) & (kk == 0)))
                        {
                            self.retire_valid_o[m * self._per_slot + kk].next = true;
                            self.retire_ctx_o[m * self._per_slot + kk].next = self.c_id
                                [(m * self._slots_per_simd + js) * self._per_slot + k]
                                .val();
                            self.retire_pc_o[m * self._per_slot + kk].next =
                                self.slots[m * self._slots_per_simd + js].inst_pc_o[k].val();
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
        for j in 0..self.slots.len() {
            self.slot_free_o[j].next = !self.slots[j].live_o.val();
            if self.slots[j].live_o.val() {
                self.any_live.next = true;
            }
            if self.slots[j].split_done_o.val() {
                self.acc_splits.next = self.acc_splits.val() + 1;
            }
            if self.slots[j].fallback_o.val() {
                self.acc_fallbacks.next = self.acc_fallbacks.val() + 1;
            }
            if self.slots[j].merged_o.val() {
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
