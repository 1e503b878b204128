//! The split/merge datapath of one wavefront slot (\[P\] §4.1, Fig 5b; design.md decisions 3, 4).
//!
//! [`SplitMergeUnit`] holds the slot's S + 1 [`Context`]s (number 0 = the WF context on the
//! SIMD, k = the SWF context on SpSIMD k) and executes one request at a time, presented on
//! `req_*` and held until `done`:
//!
//! * **launch** (context 0, mask = EXEC, pc): the WF context starts running with SpM = all lanes
//!   of the configured width and an empty child stack;
//! * **split** (requesting context C, mask M = `req_mask_hi:req_mask_lo`, pc = the PC the new
//!   SWF starts at, n = `req_sgpr_count` SGPRs to copy): C keeps SpM & M, a free SWF context F
//!   gets SpM & !M, C's EXEC, the pc, a copy of C's SGPRs 0..n, parent C and an empty stack; C
//!   pushes F. F's SGPRs n.. keep whatever they held (the wavefront was not allocated them, so
//!   it never reads them). n is the wavefront's SGPR allocation (GCN: the kernel descriptor's
//!   `.amdhsa_next_free_sgpr`); 0 or more than N_SGPR means all N_SGPR (see [`sgprs_copied`]).
//!   If either side is empty, or no SWF context is free, nothing is allocated and C pushes the
//!   no-op marker (statuses `SplitNoop`, `NoFreeContext`; the latter is also counted in
//!   `no_free_count`). A split on a full child stack changes nothing and reports
//!   `StackOverflow`. The lowest-numbered free
//!   SWF context is taken, so \[P\] Fig 5's SWF2/SWF3 land on SpSIMDs 1 and 2 in order.
//! * **merge** (requesting context X): a no-op marker on top of X's stack is popped
//!   (`MergeNoop`). A child c on top: if c is already waiting at its merge with an empty stack,
//!   X.SpM |= c.SpM, X.EXEC |= c.EXEC, X pops, c is freed (`Merged`); otherwise X waits
//!   (`MergeWait`). An empty stack: X pairs with its parent P; if P waits with X on top, the
//!   same merge happens into P, P runs again and X is freed (`Merged`); otherwise X waits. The
//!   WF context with an empty stack has no partner: `NoPartner`, nothing changes.
//! * **end** (context 0, running, empty child stack, so every SWF has merged back): the WF
//!   context is freed for the next wavefront (`Ok`); anything else is `BadContext`.
//! * a request from a context number above S, from a free or waiting context, or a launch on
//!   a busy WF context: `BadContext`, nothing changes.
//!
//! Every request ends with `done` high for one cycle and a `status`; no request corrupts state.
//!
//! # Cycle costs (the e_s and e_m of the WCET analysis)
//!
//! Counting rising edges from the first one that samples the request to the one after which
//! `done` is high:
//!
//! * **e_s = ceil(n / W) + 2** for a split that allocates and copies n SGPRs (n after
//!   [`sgprs_copied`]), W = `srf_copy_width`: one edge decides, then ceil(n / W) edges read one
//!   row of W SGPRs each through the SRF banks' registered read ports and one more edge writes
//!   the last row (each row is written one edge after it is read);
//! * **1** for every other request: merge (whether it merges, waits or pops), no-op split,
//!   split without a free context, launch and errors. So **e_m = 1**; the time a context spends
//!   waiting for its partner is not part of e_m (the WCET analysis covers it through the
//!   partner's path).
//!
//! [`split_cycles`] and [`MERGE_CYCLES`] give these numbers; the tests assert them on every
//! request. The copy moves W SGPRs per cycle over a W·32-bit bus (256 bits for GCN3's W = 8;
//! see [`crate::context::SrfLane`]): a one-cycle bulk copy would need a 32·N_SGPR-bit path
//! between every pair of (Sp)SIMDs, while one SGPR per cycle makes a split cost more than the
//! short divergent paths it parallelises.
//!
//! # Ports shared with the compute unit
//!
//! The SRF port (`srf_*`, one access per cycle, context chosen by `srf_ctx`) and the PC/EXEC
//! write port (`wr_*`) are ignored for the context the datapath writes in the same cycle (the
//! datapath wins; the CU stalls a context while it splits or merges). SRF writes are ignored
//! while `busy`, and reads of the splitting context then return copy data. `rd_*` is a
//! combinational read-out of context `rd_ctx`.
//!
//! # Ports for the compute unit (`cx_*`, one per context)
//!
//! In a compute unit the contexts of one slot issue in parallel (one issue unit per (Sp)SIMD,
//! `hdl::cu`), so each context k also has its own ports, indexed by k:
//!
//! * SRF pair port: while `cx_srf_rd[k]`, SGPRs `cx_srf_raddr[k]` and the next one are read
//!   (`cx_srf_rdata_lo/hi[k]` as of the last edge); `cx_srf_we_lo/hi[k]` write
//!   `cx_srf_wdata_lo/hi[k]` into SGPRs `cx_srf_waddr[k]` and the next one. The two SGPRs of a
//!   pair lie in different banks when W >= 2, so a 64-bit scalar operand takes one cycle (the
//!   compute unit requires W >= 2). The copy wins over these ports for the banks it uses.
//! * PC/EXEC write port `cx_wr_pc_en/cx_wr_pc`, `cx_wr_exec_en/cx_wr_exec_lo/hi` (the
//!   datapath's own writes win) and the read-out `cx_state`, `cx_pc`, `cx_exec_lo/hi`,
//!   `cx_spm_lo/hi`.
//! * `overflow_noop` (held for the run) turns on the golden model's nesting rule: a split on a
//!   full child stack, instead of `StackOverflow`, pushes its no-op marker into a per-context
//!   16-bit counter above the stack (`SplitNoop` or `NoFreeContext` as for any other
//!   non-allocating split), and a merge pops that counter first (`MergeNoop`). Only a counter
//!   that would wrap reports `StackOverflow`. With S = 0 ([`SplitMergeUnit::for_cu`]) every
//!   split takes this path, so a slot without SpSIMDs still pairs its merges.
//! * `free_all` frees every context, empties every stack and counter (the CU ends a wavefront
//!   with it once all its contexts have executed `s_endpgm`, even if SWFs ended unmerged);
//!   `new_ctx` is the context the last allocating split created (valid with `done`).

use rust_hdl::prelude::*;

use crate::config::{ConfigErrors, HwConfig, CONTEXT_ID_BITS, SGPR_ADDR_BITS};
use crate::context::{Context, ContextState, SrfLane, DEPTH_BITS};

/// Request on `req_op`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SmOp {
    Idle,
    Launch,
    Split,
    Merge,
    /// The wavefront on context 0 ends (`s_endpgm`) and frees its slot.
    End,
}

/// Result of a request, valid while `done` is high.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SmStatus {
    /// Launch or allocating split completed.
    Ok,
    /// Split with an empty side: no-op marker pushed.
    SplitNoop,
    /// Split found no free SWF context: no-op marker pushed, both halves stay in the requester.
    NoFreeContext,
    /// Split on a full child stack: nothing changed (error).
    StackOverflow,
    /// Merge popped a no-op marker.
    MergeNoop,
    /// The requester now waits at its merge for its partner.
    MergeWait,
    /// The pair merged.
    Merged,
    /// Merge by the WF context with an empty child stack: no partner exists (error).
    NoPartner,
    /// Requester out of range, free or waiting, or launch on a busy WF context (error).
    BadContext,
}

/// Sequencer of the datapath.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SmPhase {
    /// Accepting a request.
    Decide,
    /// Streaming the requester's SRF into the new SWF context.
    Copy,
}

/// SGPRs a split copies when the request asks for `requested`: 0 (no allocation given) and
/// anything above N_SGPR mean all N_SGPR, since a wavefront cannot be allocated more.
pub fn sgprs_copied(cfg: &HwConfig, requested: usize) -> usize {
    if requested == 0 || requested > cfg.sgprs_per_context {
        cfg.sgprs_per_context
    } else {
        requested
    }
}

/// Cycles of a split that allocates a context and is asked to copy `sgprs` SGPRs: e_s =
/// ceil(n / srf_copy_width) + 2 with n = [`sgprs_copied`]`(cfg, sgprs)` (see the module
/// documentation).
pub fn split_cycles(cfg: &HwConfig, sgprs: usize) -> u64 {
    (sgprs_copied(cfg, sgprs).div_ceil(cfg.srf_copy_width) + 2) as u64
}

/// Cycles of a merge request and of every request that does not copy: e_m.
pub const MERGE_CYCLES: u64 = 1;

/// Why a [`SplitMergeUnit`] cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitMergeConfigError {
    Invalid(ConfigErrors),
    /// Without SpSIMDs there is nothing to split onto (`nosplit` mode has no such unit).
    NoSpSimds,
}

impl std::fmt::Display for SplitMergeConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitMergeConfigError::Invalid(e) => e.fmt(f),
            SplitMergeConfigError::NoSpSimds => {
                write!(f, "the split/merge datapath needs S >= 1 SpSIMDs")
            }
        }
    }
}

impl std::error::Error for SplitMergeConfigError {}

/// Split/merge datapath and contexts of one wavefront slot (see the module documentation).
#[derive(LogicBlock)]
pub struct SplitMergeUnit {
    pub clock: Signal<In, Clock>,
    pub req_op: Signal<In, SmOp>,
    pub req_ctx: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub req_mask_lo: Signal<In, Bits<32>>,
    pub req_mask_hi: Signal<In, Bits<32>>,
    pub req_pc: Signal<In, Bits<32>>,
    /// SGPRs a split copies (0 or above N_SGPR: all of them; see [`sgprs_copied`]).
    pub req_sgpr_count: Signal<In, Bits<SGPR_ADDR_BITS>>,
    /// High for the one cycle after the edge that completed a request.
    pub done: Signal<Out, Bit>,
    pub status: Signal<Out, SmStatus>,
    /// High while a split copies the SRF; requests are not sampled then.
    pub busy: Signal<Out, Bit>,
    /// Splits that found no free SWF context (saturating statistics counter).
    pub no_free_count: Signal<Out, Bits<16>>,
    pub srf_ctx: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub srf_addr: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub srf_we: Signal<In, Bit>,
    pub srf_wdata: Signal<In, Bits<32>>,
    /// SRF register `srf_addr` of context `srf_ctx` as of the last rising edge.
    pub srf_rdata: Signal<Out, Bits<32>>,
    pub wr_ctx: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub wr_pc_en: Signal<In, Bit>,
    pub wr_pc: Signal<In, Bits<32>>,
    pub wr_exec_en: Signal<In, Bit>,
    pub wr_exec_lo: Signal<In, Bits<32>>,
    pub wr_exec_hi: Signal<In, Bits<32>>,
    pub rd_ctx: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub rd_state: Signal<Out, ContextState>,
    pub rd_parent: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub rd_spm_lo: Signal<Out, Bits<32>>,
    pub rd_spm_hi: Signal<Out, Bits<32>>,
    pub rd_exec_lo: Signal<Out, Bits<32>>,
    pub rd_exec_hi: Signal<Out, Bits<32>>,
    pub rd_pc: Signal<Out, Bits<32>>,
    pub rd_stack_top: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub rd_stack_depth: Signal<Out, Bits<DEPTH_BITS>>,
    pub cx_srf_rd: Vec<Signal<In, Bit>>,
    pub cx_srf_raddr: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub cx_srf_rdata_lo: Vec<Signal<Out, Bits<32>>>,
    pub cx_srf_rdata_hi: Vec<Signal<Out, Bits<32>>>,
    pub cx_srf_we_lo: Vec<Signal<In, Bit>>,
    pub cx_srf_we_hi: Vec<Signal<In, Bit>>,
    pub cx_srf_waddr: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub cx_srf_wdata_lo: Vec<Signal<In, Bits<32>>>,
    pub cx_srf_wdata_hi: Vec<Signal<In, Bits<32>>>,
    pub cx_wr_pc_en: Vec<Signal<In, Bit>>,
    pub cx_wr_pc: Vec<Signal<In, Bits<32>>>,
    pub cx_wr_exec_en: Vec<Signal<In, Bit>>,
    pub cx_wr_exec_lo: Vec<Signal<In, Bits<32>>>,
    pub cx_wr_exec_hi: Vec<Signal<In, Bits<32>>>,
    pub cx_state: Vec<Signal<Out, ContextState>>,
    pub cx_pc: Vec<Signal<Out, Bits<32>>>,
    pub cx_exec_lo: Vec<Signal<Out, Bits<32>>>,
    pub cx_exec_hi: Vec<Signal<Out, Bits<32>>>,
    pub cx_spm_lo: Vec<Signal<Out, Bits<32>>>,
    pub cx_spm_hi: Vec<Signal<Out, Bits<32>>>,
    pub overflow_noop: Signal<In, Bit>,
    pub free_all: Signal<In, Bit>,
    pub new_ctx: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    /// Context 0 is the WF context, k the SWF context on SpSIMD k.
    pub contexts: Vec<Context>,
    /// The SRFs of all contexts, lane b holding SGPRs b, b + W, b + 2W, ... of each.
    pub srf: Vec<SrfLane>,
    phase: DFF<SmPhase>,
    /// Row the copy reads this cycle; row `copy_row - 1` is written.
    copy_row: DFF<Bits<8>>,
    op_count: DFF<Bits<8>>,
    op_rows: DFF<Bits<8>>,
    rd_lane: DFF<Bits<SGPR_ADDR_BITS>>,
    op_ctx: DFF<Bits<CONTEXT_ID_BITS>>,
    op_dst: DFF<Bits<CONTEXT_ID_BITS>>,
    op_mask_lo: DFF<Bits<32>>,
    op_mask_hi: DFF<Bits<32>>,
    op_pc: DFF<Bits<32>>,
    done_reg: DFF<Bit>,
    status_reg: DFF<SmStatus>,
    no_free_reg: DFF<Bits<16>>,
    ovf: Vec<DFF<Bits<16>>>,
    cx_rlo_lane: Vec<DFF<Bits<SGPR_ADDR_BITS>>>,
    cx_rhi_lane: Vec<DFF<Bits<SGPR_ADDR_BITS>>>,
    cx_raddr_hi: Vec<Signal<Local, Bits<SGPR_ADDR_BITS>>>,
    cx_waddr_hi: Vec<Signal<Local, Bits<SGPR_ADDR_BITS>>>,
    cur_ovf: Signal<Local, Bits<16>>,
    do_ovf_inc: Signal<Local, Bit>,
    do_ovf_dec: Signal<Local, Bit>,
    n_contexts: Constant<Bits<4>>,
    n_sgprs: Constant<Bits<8>>,
    copy_shift: Constant<Bits<3>>,
    copy_lane_mask: Constant<Bits<SGPR_ADDR_BITS>>,
    copy_round: Constant<Bits<8>>,
    lanes_lo: Constant<Bits<32>>,
    lanes_hi: Constant<Bits<32>>,
    // The requester (`cur`), its top child (`ch`) and its parent (`par`), muxed out of
    // `contexts` once so the decision logic reads them by name.
    cur: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    mask_lo: Signal<Local, Bits<32>>,
    mask_hi: Signal<Local, Bits<32>>,
    cur_valid: Signal<Local, Bit>,
    cur_state: Signal<Local, ContextState>,
    cur_parent: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    cur_spm_lo: Signal<Local, Bits<32>>,
    cur_spm_hi: Signal<Local, Bits<32>>,
    cur_exec_lo: Signal<Local, Bits<32>>,
    cur_exec_hi: Signal<Local, Bits<32>>,
    cur_top: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    cur_depth: Signal<Local, Bits<DEPTH_BITS>>,
    cur_full: Signal<Local, Bit>,
    ch_state: Signal<Local, ContextState>,
    ch_spm_lo: Signal<Local, Bits<32>>,
    ch_spm_hi: Signal<Local, Bits<32>>,
    ch_exec_lo: Signal<Local, Bits<32>>,
    ch_exec_hi: Signal<Local, Bits<32>>,
    ch_depth: Signal<Local, Bits<DEPTH_BITS>>,
    par_state: Signal<Local, ContextState>,
    par_spm_lo: Signal<Local, Bits<32>>,
    par_spm_hi: Signal<Local, Bits<32>>,
    par_exec_lo: Signal<Local, Bits<32>>,
    par_exec_hi: Signal<Local, Bits<32>>,
    par_top: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    par_depth: Signal<Local, Bits<DEPTH_BITS>>,
    keep_lo: Signal<Local, Bits<32>>,
    keep_hi: Signal<Local, Bits<32>>,
    give_lo: Signal<Local, Bits<32>>,
    give_hi: Signal<Local, Bits<32>>,
    free_found: Signal<Local, Bit>,
    free_idx: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    req_count: Signal<Local, Bits<8>>,
    copy_prev: Signal<Local, Bits<8>>,
    copy_remain: Signal<Local, Bits<8>>,
    cu_lane: Signal<Local, Bits<SGPR_ADDR_BITS>>,
    cu_row: Signal<Local, Bits<SGPR_ADDR_BITS>>,
    // One-hot style actions of this cycle, applied to the contexts in one place.
    do_merge_into_cur: Signal<Local, Bit>,
    do_merge_into_par: Signal<Local, Bit>,
    do_push: Signal<Local, Bit>,
    push_value: Signal<Local, Bits<CONTEXT_ID_BITS>>,
    do_pop: Signal<Local, Bit>,
    do_wait: Signal<Local, Bit>,
    do_launch: Signal<Local, Bit>,
    do_end: Signal<Local, Bit>,
    do_finish_split: Signal<Local, Bit>,
}

impl SplitMergeUnit {
    /// The datapath of one wavefront slot with S + 1 contexts.
    pub fn new(cfg: &HwConfig) -> Result<Self, SplitMergeConfigError> {
        if cfg.spsimds_per_simd == 0 {
            cfg.validate().map_err(SplitMergeConfigError::Invalid)?;
            return Err(SplitMergeConfigError::NoSpSimds);
        }
        Self::build(cfg, false)
    }

    /// The datapath of one compute-unit slot, which also exists without SpSIMDs (S = 0: only
    /// the WF context; every split is a no-op or fallback split, which `overflow_noop` makes
    /// pair with its merge).
    pub fn for_cu(cfg: &HwConfig) -> Result<Self, SplitMergeConfigError> {
        Self::build(cfg, true)
    }

    /// `cu_ports`: build the per-context `cx_*` ports (and the SRF lanes' per-context ports);
    /// without them the vectors are empty, so the unit exports to Verilog as before (rust-hdl
    /// cannot emit an index into a sub-block's vector port inside a loop).
    fn build(cfg: &HwConfig, cu_ports: bool) -> Result<Self, SplitMergeConfigError> {
        cfg.validate().map_err(SplitMergeConfigError::Invalid)?;
        let lanes = cfg.lane_mask();
        let contexts = cfg.contexts_per_wavefront();
        let ports = if cu_ports { contexts } else { 0 };
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(SplitMergeUnit {
            clock: Default::default(),
            req_op: Default::default(),
            req_ctx: Default::default(),
            req_mask_lo: Default::default(),
            req_mask_hi: Default::default(),
            req_pc: Default::default(),
            req_sgpr_count: Default::default(),
            done: Default::default(),
            status: Default::default(),
            busy: Default::default(),
            no_free_count: Default::default(),
            srf_ctx: Default::default(),
            srf_addr: Default::default(),
            srf_we: Default::default(),
            srf_wdata: Default::default(),
            srf_rdata: Default::default(),
            wr_ctx: Default::default(),
            wr_pc_en: Default::default(),
            wr_pc: Default::default(),
            wr_exec_en: Default::default(),
            wr_exec_lo: Default::default(),
            wr_exec_hi: Default::default(),
            rd_ctx: Default::default(),
            rd_state: Default::default(),
            rd_parent: Default::default(),
            rd_spm_lo: Default::default(),
            rd_spm_hi: Default::default(),
            rd_exec_lo: Default::default(),
            rd_exec_hi: Default::default(),
            rd_pc: Default::default(),
            rd_stack_top: Default::default(),
            rd_stack_depth: Default::default(),
            cx_srf_rd: many(ports),
            cx_srf_raddr: many(ports),
            cx_srf_rdata_lo: many(ports),
            cx_srf_rdata_hi: many(ports),
            cx_srf_we_lo: many(ports),
            cx_srf_we_hi: many(ports),
            cx_srf_waddr: many(ports),
            cx_srf_wdata_lo: many(ports),
            cx_srf_wdata_hi: many(ports),
            cx_wr_pc_en: many(ports),
            cx_wr_pc: many(ports),
            cx_wr_exec_en: many(ports),
            cx_wr_exec_lo: many(ports),
            cx_wr_exec_hi: many(ports),
            cx_state: many(ports),
            cx_pc: many(ports),
            cx_exec_lo: many(ports),
            cx_exec_hi: many(ports),
            cx_spm_lo: many(ports),
            cx_spm_hi: many(ports),
            overflow_noop: Default::default(),
            free_all: Default::default(),
            new_ctx: Default::default(),
            contexts: (0..cfg.contexts_per_wavefront())
                .map(|_| Context::new(cfg))
                .collect(),
            srf: (0..cfg.srf_copy_width)
                .map(|lane| {
                    if cu_ports {
                        SrfLane::with_context_ports(cfg, lane)
                    } else {
                        SrfLane::new(cfg, lane)
                    }
                })
                .collect(),
            phase: Default::default(),
            copy_row: Default::default(),
            op_count: Default::default(),
            op_rows: Default::default(),
            rd_lane: Default::default(),
            op_ctx: Default::default(),
            op_dst: Default::default(),
            op_mask_lo: Default::default(),
            op_mask_hi: Default::default(),
            op_pc: Default::default(),
            done_reg: Default::default(),
            status_reg: Default::default(),
            no_free_reg: Default::default(),
            ovf: many(contexts),
            cx_rlo_lane: many(ports),
            cx_rhi_lane: many(ports),
            cx_raddr_hi: many(ports),
            cx_waddr_hi: many(ports),
            cur_ovf: Default::default(),
            do_ovf_inc: Default::default(),
            do_ovf_dec: Default::default(),
            n_contexts: Constant::new(cfg.contexts_per_wavefront().to_bits()),
            n_sgprs: Constant::new(cfg.sgprs_per_context.to_bits()),
            copy_shift: Constant::new((cfg.srf_copy_width.trailing_zeros() as usize).to_bits()),
            copy_lane_mask: Constant::new((cfg.srf_copy_width - 1).to_bits()),
            copy_round: Constant::new((cfg.srf_copy_width - 1).to_bits()),
            lanes_lo: Constant::new((lanes & 0xFFFF_FFFF).to_bits()),
            lanes_hi: Constant::new((lanes >> 32).to_bits()),
            cur: Default::default(),
            mask_lo: Default::default(),
            mask_hi: Default::default(),
            cur_valid: Default::default(),
            cur_state: Default::default(),
            cur_parent: Default::default(),
            cur_spm_lo: Default::default(),
            cur_spm_hi: Default::default(),
            cur_exec_lo: Default::default(),
            cur_exec_hi: Default::default(),
            cur_top: Default::default(),
            cur_depth: Default::default(),
            cur_full: Default::default(),
            ch_state: Default::default(),
            ch_spm_lo: Default::default(),
            ch_spm_hi: Default::default(),
            ch_exec_lo: Default::default(),
            ch_exec_hi: Default::default(),
            ch_depth: Default::default(),
            par_state: Default::default(),
            par_spm_lo: Default::default(),
            par_spm_hi: Default::default(),
            par_exec_lo: Default::default(),
            par_exec_hi: Default::default(),
            par_top: Default::default(),
            par_depth: Default::default(),
            keep_lo: Default::default(),
            keep_hi: Default::default(),
            give_lo: Default::default(),
            give_hi: Default::default(),
            free_found: Default::default(),
            free_idx: Default::default(),
            req_count: Default::default(),
            copy_prev: Default::default(),
            copy_remain: Default::default(),
            cu_lane: Default::default(),
            cu_row: Default::default(),
            do_merge_into_cur: Default::default(),
            do_merge_into_par: Default::default(),
            do_push: Default::default(),
            push_value: Default::default(),
            do_pop: Default::default(),
            do_wait: Default::default(),
            do_launch: Default::default(),
            do_end: Default::default(),
            do_finish_split: Default::default(),
        })
    }
}

impl Logic for SplitMergeUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            copy_row,
            op_count,
            op_rows,
            rd_lane,
            op_ctx,
            op_dst,
            op_mask_lo,
            op_mask_hi,
            op_pc,
            done_reg,
            status_reg,
            no_free_reg
        );
        for i in 0..self.contexts.len() {
            self.contexts[i].clock.next = self.clock.val();
            self.ovf[i].clock.next = self.clock.val();
            self.ovf[i].d.next = self.ovf[i].q.val();
        }
        for k in 0..self.cx_rlo_lane.len() {
            self.cx_rlo_lane[k].clock.next = self.clock.val();
            self.cx_rhi_lane[k].clock.next = self.clock.val();
        }
        self.new_ctx.next = self.op_dst.q.val();
        self.done_reg.d.next = false;
        self.done.next = self.done_reg.q.val();
        self.status.next = self.status_reg.q.val();
        self.busy.next = self.phase.q.val() == SmPhase::Copy;
        self.no_free_count.next = self.no_free_reg.q.val();

        // The requester: sampled from the request in Decide, latched during Copy.
        self.cur.next = self.req_ctx.val();
        self.mask_lo.next = self.req_mask_lo.val();
        self.mask_hi.next = self.req_mask_hi.val();
        if self.phase.q.val() == SmPhase::Copy {
            self.cur.next = self.op_ctx.q.val();
            self.mask_lo.next = self.op_mask_lo.q.val();
            self.mask_hi.next = self.op_mask_hi.q.val();
        }
        self.op_mask_lo.d.next = self.mask_lo.val();
        self.op_mask_hi.d.next = self.mask_hi.val();
        self.cur_valid.next =
            bit_cast::<4, CONTEXT_ID_BITS>(self.cur.val()) < self.n_contexts.val();
        self.cur_state.next = ContextState::Free;
        self.cur_parent.next = 0.into();
        self.cur_spm_lo.next = 0.into();
        self.cur_spm_hi.next = 0.into();
        self.cur_exec_lo.next = 0.into();
        self.cur_exec_hi.next = 0.into();
        self.cur_top.next = 0.into();
        self.cur_depth.next = 0.into();
        self.cur_full.next = false;
        self.cur_ovf.next = 0.into();
        for i in 0..self.contexts.len() {
            if self.cur.val().index() == i {
                self.cur_ovf.next = self.ovf[i].q.val();
                self.cur_state.next = self.contexts[i].state.val();
                self.cur_parent.next = self.contexts[i].parent.val();
                self.cur_spm_lo.next = self.contexts[i].spm_lo.val();
                self.cur_spm_hi.next = self.contexts[i].spm_hi.val();
                self.cur_exec_lo.next = self.contexts[i].exec_lo.val();
                self.cur_exec_hi.next = self.contexts[i].exec_hi.val();
                self.cur_top.next = self.contexts[i].stack_top.val();
                self.cur_depth.next = self.contexts[i].stack_depth.val();
                self.cur_full.next = self.contexts[i].stack_full.val();
            }
        }
        self.ch_state.next = ContextState::Free;
        self.ch_spm_lo.next = 0.into();
        self.ch_spm_hi.next = 0.into();
        self.ch_exec_lo.next = 0.into();
        self.ch_exec_hi.next = 0.into();
        self.ch_depth.next = 0.into();
        self.par_state.next = ContextState::Free;
        self.par_spm_lo.next = 0.into();
        self.par_spm_hi.next = 0.into();
        self.par_exec_lo.next = 0.into();
        self.par_exec_hi.next = 0.into();
        self.par_top.next = 0.into();
        self.par_depth.next = 0.into();
        self.free_found.next = false;
        self.free_idx.next = 0.into();
        for i in 0..self.contexts.len() {
            if self.cur_top.val().index() == i {
                self.ch_state.next = self.contexts[i].state.val();
                self.ch_spm_lo.next = self.contexts[i].spm_lo.val();
                self.ch_spm_hi.next = self.contexts[i].spm_hi.val();
                self.ch_exec_lo.next = self.contexts[i].exec_lo.val();
                self.ch_exec_hi.next = self.contexts[i].exec_hi.val();
                self.ch_depth.next = self.contexts[i].stack_depth.val();
            }
            if self.cur_parent.val().index() == i {
                self.par_state.next = self.contexts[i].state.val();
                self.par_spm_lo.next = self.contexts[i].spm_lo.val();
                self.par_spm_hi.next = self.contexts[i].spm_hi.val();
                self.par_exec_lo.next = self.contexts[i].exec_lo.val();
                self.par_exec_hi.next = self.contexts[i].exec_hi.val();
                self.par_top.next = self.contexts[i].stack_top.val();
                self.par_depth.next = self.contexts[i].stack_depth.val();
            }
            // Context 0 is the WF context, never a split target.
            if (i != 0)
                & !self.free_found.val()
                & (self.contexts[i].state.val() == ContextState::Free)
            {
                self.free_found.next = true;
                self.free_idx.next = i.to_bits();
            }
        }
        self.keep_lo.next = self.cur_spm_lo.val() & self.mask_lo.val();
        self.keep_hi.next = self.cur_spm_hi.val() & self.mask_hi.val();
        self.give_lo.next = self.cur_spm_lo.val() & !self.mask_lo.val();
        self.give_hi.next = self.cur_spm_hi.val() & !self.mask_hi.val();

        // Decide this cycle's action.
        self.do_merge_into_cur.next = false;
        self.do_merge_into_par.next = false;
        self.do_push.next = false;
        self.push_value.next = 0.into();
        self.do_pop.next = false;
        self.do_wait.next = false;
        self.do_launch.next = false;
        self.do_end.next = false;
        self.do_finish_split.next = false;
        self.do_ovf_inc.next = false;
        self.do_ovf_dec.next = false;
        self.copy_prev.next = self.copy_row.q.val() - 1;
        self.copy_remain.next =
            self.op_count.q.val() - (self.copy_prev.val() << self.copy_shift.val());
        self.req_count.next = bit_cast::<8, SGPR_ADDR_BITS>(self.req_sgpr_count.val());
        if (self.req_sgpr_count.val() == 0)
            | (bit_cast::<8, SGPR_ADDR_BITS>(self.req_sgpr_count.val()) > self.n_sgprs.val())
        {
            self.req_count.next = self.n_sgprs.val();
        }
        if self.phase.q.val() == SmPhase::Decide {
            if self.req_op.val() != SmOp::Idle {
                self.done_reg.d.next = true;
                self.status_reg.d.next = SmStatus::BadContext;
            }
            match self.req_op.val() {
                SmOp::Idle => {}
                SmOp::Launch => {
                    if (self.cur.val() == 0) & (self.cur_state.val() == ContextState::Free) {
                        self.do_launch.next = true;
                        self.status_reg.d.next = SmStatus::Ok;
                    }
                }
                SmOp::End => {
                    if (self.cur.val() == 0)
                        & (self.cur_state.val() == ContextState::Running)
                        & (self.cur_depth.val() == 0)
                    {
                        self.do_end.next = true;
                        self.status_reg.d.next = SmStatus::Ok;
                    }
                }
                SmOp::Split => {
                    if self.cur_valid.val() & (self.cur_state.val() == ContextState::Running) {
                        if self.cur_full.val()
                            & (!self.overflow_noop.val() | (self.cur_ovf.val() == 0xFFFF))
                        {
                            self.status_reg.d.next = SmStatus::StackOverflow;
                        } else if ((self.keep_lo.val() | self.keep_hi.val()) == 0)
                            | ((self.give_lo.val() | self.give_hi.val()) == 0)
                        {
                            self.do_push.next = !self.cur_full.val();
                            self.do_ovf_inc.next = self.cur_full.val();
                            self.status_reg.d.next = SmStatus::SplitNoop;
                        } else if !self.free_found.val() | self.cur_full.val() {
                            self.do_push.next = !self.cur_full.val();
                            self.do_ovf_inc.next = self.cur_full.val();
                            self.status_reg.d.next = SmStatus::NoFreeContext;
                            if self.no_free_reg.q.val() != 0xFFFF {
                                self.no_free_reg.d.next = self.no_free_reg.q.val() + 1;
                            }
                        } else {
                            self.done_reg.d.next = false;
                            self.phase.d.next = SmPhase::Copy;
                            self.copy_row.d.next = 0.into();
                            self.op_count.d.next = self.req_count.val();
                            self.op_rows.d.next = (self.req_count.val() + self.copy_round.val())
                                >> self.copy_shift.val();
                            self.op_ctx.d.next = self.cur.val();
                            self.op_dst.d.next = self.free_idx.val();
                            self.op_pc.d.next = self.req_pc.val();
                        }
                    }
                }
                SmOp::Merge => {
                    if self.cur_valid.val() & (self.cur_state.val() == ContextState::Running) {
                        if self.cur_ovf.val() != 0 {
                            self.do_ovf_dec.next = true;
                            self.status_reg.d.next = SmStatus::MergeNoop;
                        } else if self.cur_depth.val() != 0 {
                            if self.cur_top.val() == 0 {
                                self.do_pop.next = true;
                                self.status_reg.d.next = SmStatus::MergeNoop;
                            } else if (self.ch_state.val() == ContextState::Waiting)
                                & (self.ch_depth.val() == 0)
                            {
                                self.do_merge_into_cur.next = true;
                                self.status_reg.d.next = SmStatus::Merged;
                            } else {
                                self.do_wait.next = true;
                                self.status_reg.d.next = SmStatus::MergeWait;
                            }
                        } else if self.cur.val() == 0 {
                            self.status_reg.d.next = SmStatus::NoPartner;
                        } else if (self.par_state.val() == ContextState::Waiting)
                            & (self.par_depth.val() != 0)
                            & (self.par_top.val() == self.cur.val())
                        {
                            self.do_merge_into_par.next = true;
                            self.status_reg.d.next = SmStatus::Merged;
                        } else {
                            self.do_wait.next = true;
                            self.status_reg.d.next = SmStatus::MergeWait;
                        }
                    }
                }
            }
        } else {
            // Copy: read row copy_row of the requester's banks, write row copy_row - 1 of the
            // new context's from the banks' registered read ports.
            if self.copy_row.q.val() == self.op_rows.q.val() {
                self.do_finish_split.next = true;
                self.do_push.next = true;
                self.push_value.next = self.op_dst.q.val();
                self.phase.d.next = SmPhase::Decide;
                self.done_reg.d.next = true;
                self.status_reg.d.next = SmStatus::Ok;
            } else {
                self.copy_row.d.next = self.copy_row.q.val() + 1;
            }
        }

        // Apply the action to the contexts; the CU's ports come first so the datapath wins.
        for i in 0..self.contexts.len() {
            self.contexts[i].set_state.next = false;
            self.contexts[i].state_in.next = ContextState::Free;
            self.contexts[i].set_parent.next = false;
            self.contexts[i].parent_in.next = self.cur.val();
            self.contexts[i].set_spm.next = false;
            self.contexts[i].spm_lo_in.next = 0.into();
            self.contexts[i].spm_hi_in.next = 0.into();
            self.contexts[i].set_exec.next = false;
            self.contexts[i].exec_lo_in.next = self.wr_exec_lo.val();
            self.contexts[i].exec_hi_in.next = self.wr_exec_hi.val();
            self.contexts[i].set_pc.next = false;
            self.contexts[i].pc_in.next = self.wr_pc.val();
            self.contexts[i].push.next = false;
            self.contexts[i].push_value.next = self.push_value.val();
            self.contexts[i].pop.next = false;
            self.contexts[i].clear_stack.next = false;
            if self.wr_ctx.val().index() == i {
                self.contexts[i].set_pc.next = self.wr_pc_en.val();
                self.contexts[i].set_exec.next = self.wr_exec_en.val();
            }
        }
        // The compute unit's per-context writes, before the datapath's (which win).
        for i in 0..self.cx_wr_pc_en.len() {
            if self.cx_wr_pc_en[i].val() {
                self.contexts[i].set_pc.next = true;
                self.contexts[i].pc_in.next = self.cx_wr_pc[i].val();
            }
            if self.cx_wr_exec_en[i].val() {
                self.contexts[i].set_exec.next = true;
                self.contexts[i].exec_lo_in.next = self.cx_wr_exec_lo[i].val();
                self.contexts[i].exec_hi_in.next = self.cx_wr_exec_hi[i].val();
            }
        }
        for i in 0..self.contexts.len() {
            if self.cur.val().index() == i {
                if self.do_launch.val() {
                    self.contexts[i].set_state.next = true;
                    self.contexts[i].state_in.next = ContextState::Running;
                    self.contexts[i].set_spm.next = true;
                    self.contexts[i].spm_lo_in.next = self.lanes_lo.val();
                    self.contexts[i].spm_hi_in.next = self.lanes_hi.val();
                    self.contexts[i].set_exec.next = true;
                    self.contexts[i].exec_lo_in.next = self.req_mask_lo.val() & self.lanes_lo.val();
                    self.contexts[i].exec_hi_in.next = self.req_mask_hi.val() & self.lanes_hi.val();
                    self.contexts[i].set_pc.next = true;
                    self.contexts[i].pc_in.next = self.req_pc.val();
                    self.contexts[i].clear_stack.next = true;
                }
                self.contexts[i].push.next = self.do_push.val();
                self.contexts[i].pop.next = self.do_pop.val() | self.do_merge_into_cur.val();
                if self.do_wait.val() {
                    self.contexts[i].set_state.next = true;
                    self.contexts[i].state_in.next = ContextState::Waiting;
                }
                if self.do_finish_split.val() {
                    self.contexts[i].set_spm.next = true;
                    self.contexts[i].spm_lo_in.next = self.keep_lo.val();
                    self.contexts[i].spm_hi_in.next = self.keep_hi.val();
                }
                if self.do_merge_into_cur.val() {
                    self.contexts[i].set_spm.next = true;
                    self.contexts[i].spm_lo_in.next = self.cur_spm_lo.val() | self.ch_spm_lo.val();
                    self.contexts[i].spm_hi_in.next = self.cur_spm_hi.val() | self.ch_spm_hi.val();
                    self.contexts[i].set_exec.next = true;
                    self.contexts[i].exec_lo_in.next =
                        self.cur_exec_lo.val() | self.ch_exec_lo.val();
                    self.contexts[i].exec_hi_in.next =
                        self.cur_exec_hi.val() | self.ch_exec_hi.val();
                }
                if self.do_merge_into_par.val() | self.do_end.val() {
                    self.contexts[i].set_state.next = true;
                    self.contexts[i].state_in.next = ContextState::Free;
                }
                if self.do_ovf_inc.val() {
                    self.ovf[i].d.next = self.ovf[i].q.val() + 1;
                }
                if self.do_ovf_dec.val() {
                    self.ovf[i].d.next = self.ovf[i].q.val() - 1;
                }
            }
            if (self.cur_top.val().index() == i) & self.do_merge_into_cur.val() {
                self.contexts[i].set_state.next = true;
                self.contexts[i].state_in.next = ContextState::Free;
            }
            if (self.cur_parent.val().index() == i) & self.do_merge_into_par.val() {
                self.contexts[i].set_state.next = true;
                self.contexts[i].state_in.next = ContextState::Running;
                self.contexts[i].pop.next = true;
                self.contexts[i].set_spm.next = true;
                self.contexts[i].spm_lo_in.next = self.par_spm_lo.val() | self.cur_spm_lo.val();
                self.contexts[i].spm_hi_in.next = self.par_spm_hi.val() | self.cur_spm_hi.val();
                self.contexts[i].set_exec.next = true;
                self.contexts[i].exec_lo_in.next = self.par_exec_lo.val() | self.cur_exec_lo.val();
                self.contexts[i].exec_hi_in.next = self.par_exec_hi.val() | self.cur_exec_hi.val();
            }
            if (self.op_dst.q.val().index() == i) & self.do_finish_split.val() {
                self.contexts[i].set_state.next = true;
                self.contexts[i].state_in.next = ContextState::Running;
                self.contexts[i].set_parent.next = true;
                self.contexts[i].set_spm.next = true;
                self.contexts[i].spm_lo_in.next = self.give_lo.val();
                self.contexts[i].spm_hi_in.next = self.give_hi.val();
                self.contexts[i].set_exec.next = true;
                self.contexts[i].exec_lo_in.next = self.cur_exec_lo.val();
                self.contexts[i].exec_hi_in.next = self.cur_exec_hi.val();
                self.contexts[i].set_pc.next = true;
                self.contexts[i].pc_in.next = self.op_pc.q.val();
                self.contexts[i].clear_stack.next = true;
            }
            if self.free_all.val() {
                self.contexts[i].set_state.next = true;
                self.contexts[i].state_in.next = ContextState::Free;
                self.contexts[i].clear_stack.next = true;
                self.ovf[i].d.next = 0.into();
            }
        }

        // The SRF lanes: the CU's port addresses lane `addr mod W`, row `addr / W`; the copy
        // moves one row of all lanes per cycle.
        self.cu_lane.next = self.srf_addr.val() & self.copy_lane_mask.val();
        self.cu_row.next = self.srf_addr.val() >> self.copy_shift.val();
        self.rd_lane.d.next = self.cu_lane.val();
        for i in 0..self.srf.len() {
            self.srf[i].clock.next = self.clock.val();
            self.srf[i].cu_ctx.next = self.srf_ctx.val();
            self.srf[i].cu_row.next = self.cu_row.val();
            self.srf[i].cu_we.next = self.srf_we.val()
                & (self.phase.q.val() == SmPhase::Decide)
                & (self.cu_lane.val().index() == i);
            self.srf[i].cu_wdata.next = self.srf_wdata.val();
            self.srf[i].copy_rd.next = self.phase.q.val() == SmPhase::Copy;
            self.srf[i].copy_src.next = self.op_ctx.q.val();
            self.srf[i].copy_row.next = self.copy_row.q.val().get_bits::<SGPR_ADDR_BITS>(0);
            self.srf[i].copy_we.next =
                (self.phase.q.val() == SmPhase::Copy) & (self.copy_row.q.val() != 0);
            self.srf[i].copy_dst.next = self.op_dst.q.val();
            self.srf[i].copy_wr_row.next = self.copy_prev.val().get_bits::<SGPR_ADDR_BITS>(0);
            self.srf[i].copy_remain.next = self.copy_remain.val();
        }

        // Per-context SRF pair ports: SGPR a in lane a mod W, a + 1 in the next lane.
        for k in 0..self.cx_srf_rd.len() {
            self.cx_raddr_hi[k].next = self.cx_srf_raddr[k].val() + 1;
            self.cx_waddr_hi[k].next = self.cx_srf_waddr[k].val() + 1;
            self.cx_rlo_lane[k].d.next = self.cx_srf_raddr[k].val() & self.copy_lane_mask.val();
            self.cx_rhi_lane[k].d.next = self.cx_raddr_hi[k].val() & self.copy_lane_mask.val();
        }
        for i in 0..self.srf.len() {
            for k in 0..self.cx_srf_rd.len() {
                self.srf[i].ctx_rd[k].next = self.cx_srf_rd[k].val();
                self.srf[i].ctx_row[k].next = self.cx_raddr_hi[k].val() >> self.copy_shift.val();
                if (self.cx_srf_raddr[k].val() & self.copy_lane_mask.val()).index() == i {
                    self.srf[i].ctx_row[k].next =
                        self.cx_srf_raddr[k].val() >> self.copy_shift.val();
                }
                self.srf[i].ctx_we[k].next = false;
                self.srf[i].ctx_wr_row[k].next = self.cx_waddr_hi[k].val() >> self.copy_shift.val();
                self.srf[i].ctx_wdata[k].next = self.cx_srf_wdata_hi[k].val();
                if (self.cx_waddr_hi[k].val() & self.copy_lane_mask.val()).index() == i {
                    self.srf[i].ctx_we[k].next = self.cx_srf_we_hi[k].val();
                }
                if (self.cx_srf_waddr[k].val() & self.copy_lane_mask.val()).index() == i {
                    self.srf[i].ctx_we[k].next = self.cx_srf_we_lo[k].val();
                    self.srf[i].ctx_wr_row[k].next =
                        self.cx_srf_waddr[k].val() >> self.copy_shift.val();
                    self.srf[i].ctx_wdata[k].next = self.cx_srf_wdata_lo[k].val();
                }
            }
        }
        for k in 0..self.cx_srf_rd.len() {
            self.cx_srf_rdata_lo[k].next = 0.into();
            self.cx_srf_rdata_hi[k].next = 0.into();
            for i in 0..self.srf.len() {
                if self.cx_rlo_lane[k].q.val().index() == i {
                    self.cx_srf_rdata_lo[k].next = self.srf[i].ctx_rdata[k].val();
                }
                if self.cx_rhi_lane[k].q.val().index() == i {
                    self.cx_srf_rdata_hi[k].next = self.srf[i].ctx_rdata[k].val();
                }
            }
            self.cx_state[k].next = self.contexts[k].state.val();
            self.cx_pc[k].next = self.contexts[k].pc.val();
            self.cx_exec_lo[k].next = self.contexts[k].exec_lo.val();
            self.cx_exec_hi[k].next = self.contexts[k].exec_hi.val();
            self.cx_spm_lo[k].next = self.contexts[k].spm_lo.val();
            self.cx_spm_hi[k].next = self.contexts[k].spm_hi.val();
        }

        // Read-out port and SRF read data.
        self.rd_state.next = ContextState::Free;
        self.rd_parent.next = 0.into();
        self.rd_spm_lo.next = 0.into();
        self.rd_spm_hi.next = 0.into();
        self.rd_exec_lo.next = 0.into();
        self.rd_exec_hi.next = 0.into();
        self.rd_pc.next = 0.into();
        self.rd_stack_top.next = 0.into();
        self.rd_stack_depth.next = 0.into();
        self.srf_rdata.next = 0.into();
        for i in 0..self.contexts.len() {
            if self.rd_ctx.val().index() == i {
                self.rd_state.next = self.contexts[i].state.val();
                self.rd_parent.next = self.contexts[i].parent.val();
                self.rd_spm_lo.next = self.contexts[i].spm_lo.val();
                self.rd_spm_hi.next = self.contexts[i].spm_hi.val();
                self.rd_exec_lo.next = self.contexts[i].exec_lo.val();
                self.rd_exec_hi.next = self.contexts[i].exec_hi.val();
                self.rd_pc.next = self.contexts[i].pc.val();
                self.rd_stack_top.next = self.contexts[i].stack_top.val();
                self.rd_stack_depth.next = self.contexts[i].stack_depth.val();
            }
        }
        for i in 0..self.srf.len() {
            if self.rd_lane.q.val().index() == i {
                self.srf_rdata.next = self.srf[i].cu_rdata.val();
            }
        }
    }
}
