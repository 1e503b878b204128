//! The load/store unit: one per compute unit, shared by every context. It takes memory
//! instructions from the issue units, sends their requests on the data-memory port one per
//! cycle, and writes load data back into the VRF (through the slot's vector unit) or the SRF.
//!
//! # Arbitration (predictable: round-robin, bounded wait)
//!
//! An issue unit deposits a memory instruction in its context's entry (`disp_*`, one port per
//! issue unit; a context has at most one instruction in flight, so an entry is never
//! overwritten). The port of SIMD m's issue unit kk is u = m·(S + 1) + kk, and it carries only
//! contexts of SIMD m's slots, so an entry listens to the S + 1 ports of its SIMD. When the request sequencer is free (or finishes in this cycle) it takes the
//! pending entry that follows the last one served in context order (round-robin), so an
//! instruction waits for at most one instruction of every other context: its wait is at most
//! the sum of the other contexts' worst-case sequencer occupancies ([`super::timing`]).
//!
//! # Requests (fixed per instruction, so the timing is exact)
//!
//! A vector instruction sends one request per 16-lane pass and dword, for every pass of the
//! wavefront whether or not it has active lanes (BCC/SCC do not apply to memory), the lanes of
//! EXEC & SpM on `mem_lanes_o`. Per pass the sequencer spends one cycle reading the address
//! VGPR through the vector unit's LSU port, then a load one cycle per dword (address + 4·d);
//! a store first reads the data VGPR of dword 0 and then sends one dword per cycle while
//! reading the next dword's data. A byte or 16-bit access (`flat_load_ubyte` ...,
//! `flat_store_short`) is one request per pass with `mem_size_o` saying its size: the memory
//! reads or writes only those bytes and returns a load's value zero- or (`mem_signed_o`)
//! sign-extended. A scalar load (`s_load_dword{,x2,x4,x8,x16}`) is one request of its 1 to 16
//! consecutive dwords (address from the issue unit); its SRF write-back takes one cycle per
//! dword pair, and the sequencer stays busy for as many cycles so that the write-back never
//! meets the next response. Only the low 32 bits of a FLAT address are sent (the memory model
//! bounds-checks them).
//!
//! A FLAT atomic (`flat_atomic_*`) is sequenced as a store of its data dwords: per pass the
//! address, the data (and `cmpswap`'s compare value), then one request with the
//! read-modify-write on `mem_rmw_o` ([`rmw`]) and the second operand on `mem_wdata1_o`; the
//! memory returns the old values, written to VDST with `glc`.
//!
//! # DS instructions (the LDS)
//!
//! A DS instruction is sequenced here too, but its accesses go to the compute unit's LDS
//! ([`super::lds`]) instead of the port: per pass one cycle reads the address VGPR, then each
//! access (a dword of the element; both elements of `read2`/`write2`; one for an atomic) reads
//! its data VGPRs (DATA0, DATA1) and holds the LDS until every lane is served (1 to 16 cycles,
//! the bank conflict). Its last cycle sends a tag like a request; the LDS data goes into a ring
//! indexed by the same cycle and is written back with the tag `mem_latency` cycles later, so
//! LDS and memory responses never meet at the VRF's write port and the timing is the same shape
//! as a FLAT load's. Addresses are relative to the slot's LDS region (set at launch) and
//! limited by `min(M0, size)`.
//!
//! # Responses
//!
//! The memory answers every request exactly `mem_latency` cycles after the edge that accepted
//! it, in order. The sequencer writes each request's tag into a ring indexed by the cycle it
//! was sent in and reads it back one cycle before the response, so no queue is searched. Vector
//! load data is written into the VRF in the response cycle; scalar data through the context's
//! SRF pair port (two dwords per cycle, the further pairs of x4/x8/x16 loads in the following
//! cycles). The
//! instruction retires (`retire_o[c]`) in the cycle its last response is written; stores
//! retire at their last response too.

use rust_hdl::prelude::*;

use super::lds::{Lds, LDS_ROW_BITS};
use super::{CTX_BITS, SLOT_BITS};
use crate::config::{HwConfig, SGPR_ADDR_BITS, VGPR_ADDR_BITS};

/// The read-modify-writes of the FLAT atomics (on `mem_rmw_o`, performed by the memory) and
/// the LDS atomics (performed by the LDS banks): `new = f(old, a, b)` with `a` the lane's first
/// data operand and `b` its second (`mem_wdata_o` / `mem_wdata1_o`).
pub mod rmw {
    /// A plain load or store.
    pub const NONE: u64 = 0;
    pub const ADD: u64 = 1;
    pub const SUB: u64 = 2;
    /// `a - old`.
    pub const RSUB: u64 = 3;
    pub const SMIN: u64 = 4;
    pub const UMIN: u64 = 5;
    pub const SMAX: u64 = 6;
    pub const UMAX: u64 = 7;
    pub const AND: u64 = 8;
    pub const OR: u64 = 9;
    pub const XOR: u64 = 10;
    /// `old >= a ? 0 : old + 1`.
    pub const INC: u64 = 11;
    /// `old == 0 || old > a ? a : old - 1`.
    pub const DEC: u64 = 12;
    /// `a`.
    pub const SWAP: u64 = 13;
    /// `old == b ? a : old` (`flat_atomic_cmpswap`'s data pair is (new, compare)).
    pub const CMPSWAP: u64 = 14;
    /// `(old & !a) | b`.
    pub const MSKOR: u64 = 15;
}

const RING_BITS: usize = 7;

/// What a returning response does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MemKind {
    VectorLoad,
    Store,
    ScalarLoad,
    /// A FLAT atomic: one request per pass carrying the op and its data.
    Atomic,
    /// A DS instruction: accesses of the LDS instead of requests on the port.
    Lds,
}

/// The load/store unit (see the module documentation).
#[derive(LogicBlock)]
pub struct LoadStoreUnit {
    pub clock: Signal<In, Clock>,
    /// Dispatch port of issue unit u = m·(S + 1) + kk: a memory instruction of context
    /// `disp_ctx_i[u]`, one of SIMD m's.
    pub disp_valid_i: Vec<Signal<In, Bit>>,
    pub disp_ctx_i: Vec<Signal<In, Bits<CTX_BITS>>>,
    pub disp_store_i: Vec<Signal<In, Bit>>,
    pub disp_scalar_i: Vec<Signal<In, Bit>>,
    pub disp_dwords_i: Vec<Signal<In, Bits<5>>>,
    /// Access size (0 dwords, 1 byte, 2 half) and sign extension of a FLAT instruction.
    pub disp_size_i: Vec<Signal<In, Bits<2>>>,
    pub disp_signed_i: Vec<Signal<In, Bit>>,
    pub disp_addr_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    /// Store and atomic data (DS DATA0), DS DATA1, and the VGPR loaded or returned data goes to.
    pub disp_data_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub disp_data1_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub disp_ret_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    /// Atomic and DS fields: bits 3:0 the read-modify-write ([`rmw`]), 4 data returns to the
    /// VGPR, 5 DS, 6 `read2`/`write2`, 7 `st64`, 15:8 `offset0`, 23:16 `offset1`.
    pub disp_ext_i: Vec<Signal<In, Bits<32>>>,
    /// The context's M0 (a DS instruction's LDS limit).
    pub disp_m0_i: Vec<Signal<In, Bits<32>>>,
    pub disp_sdst_i: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub disp_saddr_i: Vec<Signal<In, Bits<32>>>,
    pub disp_en_lo_i: Vec<Signal<In, Bits<32>>>,
    pub disp_en_hi_i: Vec<Signal<In, Bits<32>>>,
    /// Data-memory port (CU-SPEC).
    pub mem_req_o: Signal<Out, Bit>,
    pub mem_we_o: Signal<Out, Bit>,
    pub mem_addr_o: Vec<Signal<Out, Bits<32>>>,
    pub mem_wdata_o: Vec<Signal<Out, Bits<32>>>,
    pub mem_lanes_o: Signal<Out, Bits<16>>,
    /// Size of each lane's access: 0 a dword, 1 a byte, 2 a 16-bit half (at its address, which
    /// is aligned to it); sub-dword loads come back zero- or (`mem_signed_o`) sign-extended.
    pub mem_size_o: Signal<Out, Bits<2>>,
    pub mem_signed_o: Signal<Out, Bit>,
    /// A FLAT atomic's read-modify-write ([`rmw`], 0 for loads and stores): the memory applies
    /// it to each lane's dword in ascending lane order and returns the old values. Its data:
    /// `mem_wdata_o` and, for `cmpswap`, the compare value on `mem_wdata1_o`.
    pub mem_rmw_o: Signal<Out, Bits<4>>,
    pub mem_wdata1_o: Vec<Signal<Out, Bits<32>>>,
    /// slot · 8 + k of the requesting context.
    pub mem_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    pub mem_rvalid_i: Signal<In, Bit>,
    pub mem_rdata_i: Vec<Signal<In, Bits<32>>>,
    /// Vector-unit LSU port of slot `vu_slot_o` (reads) and `vu_wr_slot_o` (writes).
    pub vu_slot_o: Signal<Out, Bits<SLOT_BITS>>,
    pub vu_rd_o: Signal<Out, Bit>,
    pub vu_rd_addr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub vu_rd_pass_o: Signal<Out, Bits<2>>,
    pub vu_rdata_i: Vec<Signal<In, Bits<32>>>,
    pub vu_wr_slot_o: Signal<Out, Bits<SLOT_BITS>>,
    pub vu_we_o: Signal<Out, Bit>,
    pub vu_wr_addr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub vu_wr_pass_o: Signal<Out, Bits<2>>,
    pub vu_wr_lanes_o: Signal<Out, Bits<16>>,
    /// SRF write-back of a scalar load into context `srf_ctx_o`.
    pub srf_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    pub srf_we_lo_o: Signal<Out, Bit>,
    pub srf_we_hi_o: Signal<Out, Bit>,
    pub srf_addr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub srf_wdata_lo_o: Signal<Out, Bits<32>>,
    pub srf_wdata_hi_o: Signal<Out, Bits<32>>,
    /// Data written back to the VRF with `vu_we_o`: a memory response's or the LDS's.
    pub vu_wdata_o: Vec<Signal<Out, Bits<32>>>,
    /// A wavefront starts in slot `launch_slot_i`: its workgroup's LDS region.
    pub launch_i: Signal<In, Bit>,
    pub launch_slot_i: Signal<In, Bits<SLOT_BITS>>,
    pub launch_lds_base_i: Signal<In, Bits<32>>,
    pub launch_lds_size_i: Signal<In, Bits<32>>,
    /// The dispatcher zeroes LDS row `lds_clear_row_i`.
    pub lds_clear_i: Signal<In, Bit>,
    pub lds_clear_row_i: Signal<In, Bits<LDS_ROW_BITS>>,
    /// A DS access of context `lds_fault_ctx_o` (slot · 8 + k) failed its limit or alignment
    /// check: wavefront lane, LDS address, misaligned (else out of `min(M0, size)`).
    pub lds_fault_o: Signal<Out, Bit>,
    pub lds_fault_lane_o: Signal<Out, Bits<6>>,
    pub lds_fault_addr_o: Signal<Out, Bits<32>>,
    pub lds_fault_misaligned_o: Signal<Out, Bit>,
    pub lds_fault_ctx_o: Signal<Out, Bits<CTX_BITS>>,
    /// The M0 the failed access was checked against (the fault report names it).
    pub lds_fault_m0_o: Signal<Out, Bits<32>>,
    /// Context c's memory instruction completes in this cycle.
    pub retire_o: Vec<Signal<Out, Bit>>,
    /// Instructions pending, in the sequencer, or requests outstanding.
    pub busy_o: Signal<Out, Bit>,
    pend: Vec<DFF<Bit>>,
    e_store: Vec<DFF<Bit>>,
    e_scalar: Vec<DFF<Bit>>,
    e_dwords: Vec<DFF<Bits<5>>>,
    e_size: Vec<DFF<Bits<2>>>,
    e_signed: Vec<DFF<Bit>>,
    e_avgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    e_dvgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    e_bvgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    e_rvgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    e_ext: Vec<DFF<Bits<32>>>,
    e_m0: Vec<DFF<Bits<32>>>,
    e_sdst: Vec<DFF<Bits<SGPR_ADDR_BITS>>>,
    e_saddr: Vec<DFF<Bits<32>>>,
    e_en_lo: Vec<DFF<Bits<32>>>,
    e_en_hi: Vec<DFF<Bits<32>>>,
    /// slot · 8 + k of dense context c; slot of c.
    ctx_id: Vec<Constant<Bits<CTX_BITS>>>,
    ctx_slot: Vec<Constant<Bits<SLOT_BITS>>>,
    active: DFF<Bit>,
    cur: DFF<Bits<CTX_BITS>>,
    rr: DFF<Bits<CTX_BITS>>,
    c_id: DFF<Bits<CTX_BITS>>,
    c_slot: DFF<Bits<SLOT_BITS>>,
    c_store: DFF<Bit>,
    c_scalar: DFF<Bit>,
    c_dwords: DFF<Bits<5>>,
    c_size: DFF<Bits<2>>,
    c_signed: DFF<Bit>,
    c_avgpr: DFF<Bits<VGPR_ADDR_BITS>>,
    c_dvgpr: DFF<Bits<VGPR_ADDR_BITS>>,
    c_bvgpr: DFF<Bits<VGPR_ADDR_BITS>>,
    c_rvgpr: DFF<Bits<VGPR_ADDR_BITS>>,
    c_ext: DFF<Bits<32>>,
    c_m0: DFF<Bits<32>>,
    c_sdst: DFF<Bits<SGPR_ADDR_BITS>>,
    c_saddr: DFF<Bits<32>>,
    c_en_lo: DFF<Bits<32>>,
    c_en_hi: DFF<Bits<32>>,
    pass: DFF<Bits<3>>,
    step: DFF<Bits<3>>,
    addr_q: Vec<DFF<Bits<32>>>,
    /// A `cmpswap`'s first data dword while its second is read; a DS access's operands.
    data_q: Vec<DFF<Bits<32>>>,
    data1_q: Vec<DFF<Bits<32>>>,
    pub lds: Lds,
    /// Each slot's LDS region (base, size in bytes).
    slot_base: Vec<DFF<Bits<32>>>,
    slot_size: Vec<DFF<Bits<32>>>,
    /// LDS data of a DS access, written in its last cycle at `now` and read with its tag.
    lds_ring: Vec<RAM<Bits<32>, RING_BITS>>,
    /// DS: the access of the pass (element and dword) being worked on; which operand the VRF
    /// read of the last cycle fetched (0 none, 1 address, 2 DATA0, 3 DATA1); the next access
    /// cycle starts an access.
    acc: DFF<Bits<3>>,
    rd_prev: DFF<Bits<2>>,
    acc_first: DFF<Bit>,
    now: DFF<Bits<RING_BITS>>,
    outstanding: DFF<Bits<8>>,
    /// Tag ring: word a = valid, last, kind, pass, vgpr, dwords, context; word b = lanes, sgpr.
    tag_a: RAM<Bits<32>, RING_BITS>,
    tag_b: RAM<Bits<32>, RING_BITS>,
    // The further pairs of an x4/x8/x16 scalar load, written one per cycle after the response:
    // pairs left, their context and next SGPR, the pairs themselves (pair 0 goes next).
    s2_left: DFF<Bits<3>>,
    s2_ctx: DFF<Bits<CTX_BITS>>,
    s2_addr: DFF<Bits<SGPR_ADDR_BITS>>,
    s2_lo: Vec<DFF<Bits<32>>>,
    s2_hi: Vec<DFF<Bits<32>>>,
    last_pass: Constant<Bits<3>>,
    lanes_all: Constant<Bits<16>>,
    latency_m1: Constant<Bits<RING_BITS>>,
    // Combinational.
    pick_found: Signal<Local, Bit>,
    pick: Signal<Local, Bits<CTX_BITS>>,
    fin: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    send_last: Signal<Local, Bit>,
    send_dword: Signal<Local, Bits<3>>,
    lanes: Signal<Local, Bits<16>>,
    kind: Signal<Local, MemKind>,
    kind_code: Signal<Local, Bits<2>>,
    c_rmw: Signal<Local, Bits<4>>,
    c_ret: Signal<Local, Bit>,
    tag_w: Signal<Local, Bits<32>>,
    last_step: Signal<Local, Bits<3>>,
    t_valid: Signal<Local, Bit>,
    t_last: Signal<Local, Bit>,
    t_kind: Signal<Local, Bits<2>>,
    t_pass: Signal<Local, Bits<2>>,
    t_vgpr: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    t_dwords: Signal<Local, Bits<5>>,
    t_ctx: Signal<Local, Bits<CTX_BITS>>,
    t_lanes: Signal<Local, Bits<16>>,
    t_sgpr: Signal<Local, Bits<SGPR_ADDR_BITS>>,
    t_slot: Signal<Local, Bits<SLOT_BITS>>,
    w_vgpr: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    resp: Signal<Local, Bit>,
    t_lds: Signal<Local, Bit>,
    addr_v: Vec<Signal<Local, Bits<32>>>,
    a_v: Vec<Signal<Local, Bits<32>>>,
    b_v: Vec<Signal<Local, Bits<32>>>,
    d_two: Signal<Local, Bit>,
    d_needs_a: Signal<Local, Bit>,
    d_needs_b: Signal<Local, Bit>,
    /// MUBUF: the access goes through the private segment's swizzled resource; its OFFSET;
    /// the resource base plus SOFFSET plus the pass's first lane · 4 (pass · 64); each lane's
    /// byte offset (OFFSET, plus its VGPR under OFFEN); the lane's first address; the step
    /// from one dword of a lane to the next (4, or 256 across the swizzle).
    m_on: Signal<Local, Bit>,
    m_offset: Signal<Local, Bits<32>>,
    m_base: Signal<Local, Bits<32>>,
    m_off: Vec<Signal<Local, Bits<32>>>,
    v_first: Vec<Signal<Local, Bits<32>>>,
    a_step: Signal<Local, Bits<32>>,
    d_last_acc: Signal<Local, Bits<3>>,
    d_second: Signal<Local, Bit>,
    d_i: Signal<Local, Bits<3>>,
    d_elem_off: Signal<Local, Bits<32>>,
    d_shift: Signal<Local, Bits<32>>,
    d_off: Signal<Local, Bits<32>>,
    d_avgpr: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    d_done: Signal<Local, Bit>,
    c_base: Signal<Local, Bits<32>>,
    c_lds_size: Signal<Local, Bits<32>>,
    /// SIMDs, contexts per SIMD (entries listening to its ports), ports per SIMD (S + 1).
    _simds: usize,
    _ctx_per_simd: usize,
    _per_slot: usize,
}

impl LoadStoreUnit {
    /// The LSU of a compute unit with a dispatch port per issue unit and every context of `cfg`.
    pub fn new(cfg: &HwConfig) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        let per_slot = cfg.contexts_per_wavefront();
        let slots = cfg.simds_per_cu * cfg.wf_contexts_per_simd;
        let n = slots * per_slot;
        let issue_units = cfg.simds_per_cu * per_slot;
        LoadStoreUnit {
            vu_wdata_o: many(16),
            launch_i: Default::default(),
            launch_slot_i: Default::default(),
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
            data1_q: many(16),
            lds: Lds::new(cfg.lds_bytes),
            slot_base: many(slots),
            slot_size: many(slots),
            lds_ring: many(16),
            acc: Default::default(),
            rd_prev: Default::default(),
            acc_first: Default::default(),
            t_lds: Default::default(),
            addr_v: many(16),
            a_v: many(16),
            b_v: many(16),
            d_two: Default::default(),
            d_needs_a: Default::default(),
            d_needs_b: Default::default(),
            m_on: Default::default(),
            m_offset: Default::default(),
            m_base: Default::default(),
            m_off: many(16),
            v_first: many(16),
            a_step: Default::default(),
            d_last_acc: Default::default(),
            d_second: Default::default(),
            d_i: Default::default(),
            d_elem_off: Default::default(),
            d_shift: Default::default(),
            d_off: Default::default(),
            d_avgpr: Default::default(),
            d_done: Default::default(),
            c_base: Default::default(),
            c_lds_size: Default::default(),
            _simds: cfg.simds_per_cu,
            _ctx_per_simd: cfg.wf_contexts_per_simd * per_slot,
            _per_slot: per_slot,
            clock: Default::default(),
            disp_valid_i: many(issue_units),
            disp_ctx_i: many(issue_units),
            disp_store_i: many(issue_units),
            disp_scalar_i: many(issue_units),
            disp_dwords_i: many(issue_units),
            disp_size_i: many(issue_units),
            disp_signed_i: many(issue_units),
            disp_addr_vgpr_i: many(issue_units),
            disp_data_vgpr_i: many(issue_units),
            disp_data1_vgpr_i: many(issue_units),
            disp_ret_vgpr_i: many(issue_units),
            disp_ext_i: many(issue_units),
            disp_m0_i: many(issue_units),
            disp_sdst_i: many(issue_units),
            disp_saddr_i: many(issue_units),
            disp_en_lo_i: many(issue_units),
            disp_en_hi_i: many(issue_units),
            mem_req_o: Default::default(),
            mem_we_o: Default::default(),
            mem_addr_o: many(16),
            mem_wdata_o: many(16),
            mem_lanes_o: Default::default(),
            mem_size_o: Default::default(),
            mem_signed_o: Default::default(),
            mem_rmw_o: Default::default(),
            mem_wdata1_o: many(16),
            mem_ctx_o: Default::default(),
            mem_rvalid_i: Default::default(),
            mem_rdata_i: many(16),
            vu_slot_o: Default::default(),
            vu_rd_o: Default::default(),
            vu_rd_addr_o: Default::default(),
            vu_rd_pass_o: Default::default(),
            vu_rdata_i: many(16),
            vu_wr_slot_o: Default::default(),
            vu_we_o: Default::default(),
            vu_wr_addr_o: Default::default(),
            vu_wr_pass_o: Default::default(),
            vu_wr_lanes_o: Default::default(),
            srf_ctx_o: Default::default(),
            srf_we_lo_o: Default::default(),
            srf_we_hi_o: Default::default(),
            srf_addr_o: Default::default(),
            srf_wdata_lo_o: Default::default(),
            srf_wdata_hi_o: Default::default(),
            retire_o: many(n),
            busy_o: Default::default(),
            pend: many(n),
            e_store: many(n),
            e_scalar: many(n),
            e_dwords: many(n),
            e_size: many(n),
            e_signed: many(n),
            e_avgpr: many(n),
            e_dvgpr: many(n),
            e_bvgpr: many(n),
            e_rvgpr: many(n),
            e_ext: many(n),
            e_m0: many(n),
            e_sdst: many(n),
            e_saddr: many(n),
            e_en_lo: many(n),
            e_en_hi: many(n),
            ctx_id: (0..n)
                .map(|c| Constant::new(((c / per_slot) * 8 + c % per_slot).to_bits()))
                .collect(),
            ctx_slot: (0..n)
                .map(|c| Constant::new((c / per_slot).to_bits()))
                .collect(),
            active: Default::default(),
            cur: Default::default(),
            rr: Default::default(),
            c_id: Default::default(),
            c_slot: Default::default(),
            c_store: Default::default(),
            c_scalar: Default::default(),
            c_dwords: Default::default(),
            c_size: Default::default(),
            c_signed: Default::default(),
            c_avgpr: Default::default(),
            c_dvgpr: Default::default(),
            c_bvgpr: Default::default(),
            c_rvgpr: Default::default(),
            c_ext: Default::default(),
            c_m0: Default::default(),
            c_sdst: Default::default(),
            c_saddr: Default::default(),
            c_en_lo: Default::default(),
            c_en_hi: Default::default(),
            pass: Default::default(),
            step: Default::default(),
            addr_q: many(16),
            data_q: many(16),
            now: Default::default(),
            outstanding: Default::default(),
            tag_a: Default::default(),
            tag_b: Default::default(),
            s2_left: Default::default(),
            s2_ctx: Default::default(),
            s2_addr: Default::default(),
            s2_lo: many(7),
            s2_hi: many(7),
            last_pass: Constant::new((cfg.passes() - 1).to_bits()),
            lanes_all: Constant::new(0xFFFFu64.to_bits()),
            latency_m1: Constant::new((cfg.mem_latency - 1).to_bits()),
            pick_found: Default::default(),
            pick: Default::default(),
            fin: Default::default(),
            send: Default::default(),
            send_last: Default::default(),
            send_dword: Default::default(),
            lanes: Default::default(),
            kind: Default::default(),
            kind_code: Default::default(),
            c_rmw: Default::default(),
            c_ret: Default::default(),
            tag_w: Default::default(),
            last_step: Default::default(),
            t_valid: Default::default(),
            t_last: Default::default(),
            t_kind: Default::default(),
            t_pass: Default::default(),
            t_vgpr: Default::default(),
            t_dwords: Default::default(),
            t_ctx: Default::default(),
            t_lanes: Default::default(),
            t_sgpr: Default::default(),
            t_slot: Default::default(),
            w_vgpr: Default::default(),
            resp: Default::default(),
        }
    }
}

impl Logic for LoadStoreUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            cur,
            rr,
            c_id,
            c_slot,
            c_store,
            c_scalar,
            c_dwords,
            c_size,
            c_signed,
            c_avgpr,
            c_dvgpr,
            c_bvgpr,
            c_rvgpr,
            c_ext,
            c_m0,
            c_sdst,
            c_saddr,
            c_en_lo,
            c_en_hi,
            pass,
            step,
            now,
            outstanding,
            s2_left,
            s2_ctx,
            s2_addr,
            acc,
            rd_prev,
            acc_first
        );
        self.lds.clock.next = self.clock.val();
        self.now.d.next = self.now.q.val() + 1;
        for j in 0..7 {
            self.s2_lo[j].clock.next = self.clock.val();
            self.s2_hi[j].clock.next = self.clock.val();
            self.s2_lo[j].d.next = self.s2_lo[j].q.val();
            self.s2_hi[j].d.next = self.s2_hi[j].q.val();
        }

        // Request sequencer: what the current step does.
        self.c_rmw.next = self.c_ext.q.val().get_bits::<4>(0);
        self.c_ret.next = self.c_ext.q.val().get_bit(4);
        self.kind.next = MemKind::VectorLoad;
        if self.c_scalar.q.val() {
            self.kind.next = MemKind::ScalarLoad;
        } else if self.c_ext.q.val().get_bit(5) {
            self.kind.next = MemKind::Lds;
        } else if self.c_rmw.val().any() {
            self.kind.next = MemKind::Atomic;
        } else if self.c_store.q.val() {
            self.kind.next = MemKind::Store;
        }
        self.last_step.next = bit_cast::<3, 5>(self.c_dwords.q.val());
        // A store or an atomic reads its (first) data after the address: one more step.
        if self.c_store.q.val() | self.c_rmw.val().any() {
            self.last_step.next = bit_cast::<3, 5>(self.c_dwords.q.val()) + 1;
        }
        // A scalar load holds the sequencer one cycle per dword pair it writes back.
        if self.c_scalar.q.val() {
            self.last_step.next = 0.into();
            if self.c_dwords.q.val() >= 4 {
                self.last_step.next = bit_cast::<3, 5>(self.c_dwords.q.val() >> 1) - 1;
            }
        }
        self.lanes.next = self.c_en_lo.q.val().get_bits::<16>(0);
        if self.pass.q.val() == 1 {
            self.lanes.next = self.c_en_lo.q.val().get_bits::<16>(16);
        }
        if self.pass.q.val() == 2 {
            self.lanes.next = self.c_en_hi.q.val().get_bits::<16>(0);
        }
        if self.pass.q.val() == 3 {
            self.lanes.next = self.c_en_hi.q.val().get_bits::<16>(16);
        }
        self.send.next = false;
        self.send_dword.next = 0.into();
        self.vu_rd_o.next = false;
        self.vu_rd_addr_o.next = self.c_avgpr.q.val();
        self.vu_rd_pass_o.next = self.pass.q.val().get_bits::<2>(0);
        self.vu_slot_o.next = self.c_slot.q.val();
        self.mem_we_o.next = false;
        self.mem_rmw_o.next = 0.into();
        self.mem_lanes_o.next = self.lanes.val();
        self.mem_size_o.next = self.c_size.q.val();
        self.mem_signed_o.next = self.c_signed.q.val();
        self.mem_ctx_o.next = self.c_id.q.val();
        for j in 0..16 {
            self.addr_q[j].clock.next = self.clock.val();
            self.addr_q[j].d.next = self.addr_q[j].q.val();
            self.data_q[j].clock.next = self.clock.val();
            self.data_q[j].d.next = self.data_q[j].q.val();
            self.mem_addr_o[j].next = self.addr_q[j].q.val();
            self.mem_wdata_o[j].next = self.vu_rdata_i[j].val();
            self.mem_wdata1_o[j].next = self.vu_rdata_i[j].val();
        }
        // DS: the operand the VRF delivers this cycle (read in the last one) is used now and
        // kept for the access's further cycles.
        self.rd_prev.d.next = 0.into();
        for j in 0..16 {
            self.data1_q[j].clock.next = self.clock.val();
            self.data1_q[j].d.next = self.data1_q[j].q.val();
            self.addr_v[j].next = self.addr_q[j].q.val();
            self.a_v[j].next = self.data_q[j].q.val();
            self.b_v[j].next = self.data1_q[j].q.val();
            if self.rd_prev.q.val() == 1 {
                self.addr_v[j].next = self.vu_rdata_i[j].val();
                self.addr_q[j].d.next = self.vu_rdata_i[j].val();
            }
            if self.rd_prev.q.val() == 2 {
                self.a_v[j].next = self.vu_rdata_i[j].val();
                self.data_q[j].d.next = self.vu_rdata_i[j].val();
            }
            if self.rd_prev.q.val() == 3 {
                self.b_v[j].next = self.vu_rdata_i[j].val();
                self.data1_q[j].d.next = self.vu_rdata_i[j].val();
            }
        }
        // A lane's first address: the address VGPR (FLAT), or (MUBUF) the resource base plus
        // SOFFSET (`c_saddr`) and the swizzle of the lane's byte offset o: dword o / 4 of
        // every lane lies 256 bytes after the one before, the lanes' dwords side by side
        // (`pws_isa::abi::scratch_resource`).
        self.m_on.next = self.c_ext.q.val().get_bit(24);
        self.a_step.next = 4.into();
        if self.m_on.val() {
            self.a_step.next = 256.into();
        }
        self.m_offset.next = bit_cast::<32, 12>(self.c_ext.q.val().get_bits::<12>(8));
        self.m_base.next = self.c_saddr.q.val() + (bit_cast::<32, 3>(self.pass.q.val()) << 6);
        for j in 0..16 {
            self.m_off[j].next = self.m_offset.val();
            if self.c_ext.q.val().get_bit(20) {
                self.m_off[j].next = self.vu_rdata_i[j].val() + self.m_offset.val();
            }
            self.v_first[j].next = self.vu_rdata_i[j].val();
            if self.m_on.val() {
                self.v_first[j].next = self.m_base.val()
                    + ((self.m_off[j].val() & 0xFFFF_FFFC_u64) << 6)
                    + (4 * j).to_bits()
                    + (self.m_off[j].val() & 3_u64);
            }
        }
        // DS access `acc` of a pass: dword `acc` of the single address, or of `read2`/`write2`
        // dword d_i of element 0 or (d_second) 1, whose data is DATA1.
        self.d_two.next = self.c_ext.q.val().get_bit(6);
        self.d_needs_a.next = self.c_store.q.val() | self.c_rmw.val().any();
        self.d_needs_b.next = (self.c_rmw.val() == 14) | (self.c_rmw.val() == 15);
        self.d_last_acc.next = bit_cast::<3, 5>(self.c_dwords.q.val()) - 1;
        if self.d_two.val() {
            self.d_last_acc.next = (bit_cast::<3, 5>(self.c_dwords.q.val()) << 1) - 1;
        }
        self.d_second.next =
            self.d_two.val() & (bit_cast::<5, 3>(self.acc.q.val()) >= self.c_dwords.q.val());
        self.d_i.next = self.acc.q.val();
        self.d_elem_off.next = bit_cast::<32, 8>(self.c_ext.q.val().get_bits::<8>(8));
        if self.d_second.val() {
            self.d_i.next = self.acc.q.val() - bit_cast::<3, 5>(self.c_dwords.q.val());
            self.d_elem_off.next = bit_cast::<32, 8>(self.c_ext.q.val().get_bits::<8>(16));
        }
        // An element is 4 · dwords bytes, 64 times that for st64.
        self.d_shift.next = 2.into();
        if self.c_dwords.q.val() == 2 {
            self.d_shift.next = 3.into();
        }
        if self.c_ext.q.val().get_bit(7) {
            self.d_shift.next = self.d_shift.val() + 6;
        }
        self.d_off.next = bit_cast::<32, 16>(self.c_ext.q.val().get_bits::<16>(8))
            + (bit_cast::<32, 3>(self.acc.q.val()) << 2);
        if self.d_two.val() {
            self.d_off.next = (self.d_elem_off.val() << self.d_shift.val())
                + (bit_cast::<32, 3>(self.d_i.val()) << 2);
        }
        self.d_avgpr.next = self.c_dvgpr.q.val() + bit_cast::<VGPR_ADDR_BITS, 3>(self.acc.q.val());
        if self.d_second.val() {
            self.d_avgpr.next =
                self.c_bvgpr.q.val() + bit_cast::<VGPR_ADDR_BITS, 3>(self.d_i.val());
        }
        self.c_base.next = 0.into();
        self.c_lds_size.next = 0.into();
        for s in 0..self.slot_base.len() {
            self.slot_base[s].clock.next = self.clock.val();
            self.slot_size[s].clock.next = self.clock.val();
            self.slot_base[s].d.next = self.slot_base[s].q.val();
            self.slot_size[s].d.next = self.slot_size[s].q.val();
            if self.launch_i.val() & (self.launch_slot_i.val().index() == s) {
                self.slot_base[s].d.next = self.launch_lds_base_i.val();
                self.slot_size[s].d.next = self.launch_lds_size_i.val();
            }
            if self.c_slot.q.val().index() == s {
                self.c_base.next = self.slot_base[s].q.val();
                self.c_lds_size.next = self.slot_size[s].q.val();
            }
        }
        self.lds.active_i.next = false;
        self.lds.start_i.next = false;
        self.lds.lanes_i.next = self.lanes.val();
        self.lds.base_i.next = self.c_base.val();
        self.lds.limit_i.next = self.c_lds_size.val();
        if self.c_m0.q.val() < self.c_lds_size.val() {
            self.lds.limit_i.next = self.c_m0.q.val();
        }
        self.lds.we_i.next = self.c_store.q.val();
        self.lds.rmw_i.next = self.c_rmw.val();
        self.lds.size_i.next = self.c_size.q.val();
        self.lds.signed_i.next = self.c_signed.q.val();
        self.lds.clear_i.next = self.lds_clear_i.val();
        self.lds.clear_row_i.next = self.lds_clear_row_i.val();
        // The LDS sees the operands of DS instructions only, so its 32 banks stay quiet in
        // simulation while FLAT and scalar instructions use the sequencer.
        for j in 0..16 {
            self.lds.addr_i[j].next = 0.into();
            self.lds.a_i[j].next = 0.into();
            self.lds.b_i[j].next = 0.into();
        }
        if self.kind.val() == MemKind::Lds {
            for j in 0..16 {
                self.lds.addr_i[j].next = self.addr_v[j].val() + self.d_off.val();
                self.lds.a_i[j].next = self.a_v[j].val();
                self.lds.b_i[j].next = self.b_v[j].val();
            }
        }
        self.d_done.next = false;
        if self.active.q.val() {
            match self.kind.val() {
                MemKind::ScalarLoad => {
                    if self.step.q.val() == 0 {
                        self.send.next = true;
                        // Lanes 0 .. dwords - 1, one dword each.
                        self.mem_lanes_o.next =
                            !(self.lanes_all.val() << bit_cast::<16, 5>(self.c_dwords.q.val()));
                        for j in 0..16 {
                            self.mem_addr_o[j].next = self.c_saddr.q.val() + (4 * j).to_bits();
                        }
                    }
                }
                MemKind::VectorLoad => {
                    if self.step.q.val() == 0 {
                        self.vu_rd_o.next = true;
                    } else {
                        self.send.next = true;
                        self.send_dword.next = self.step.q.val() - 1;
                        // Dword d goes to address + 4·d (MUBUF: + 256·d): the address register
                        // steps.
                        if self.step.q.val() == 1 {
                            for j in 0..16 {
                                self.addr_q[j].d.next = self.v_first[j].val() + self.a_step.val();
                                self.mem_addr_o[j].next = self.v_first[j].val();
                            }
                        } else {
                            for j in 0..16 {
                                self.addr_q[j].d.next = self.addr_q[j].q.val() + self.a_step.val();
                            }
                        }
                    }
                }
                MemKind::Store => {
                    if self.step.q.val() == 0 {
                        self.vu_rd_o.next = true;
                    } else if self.step.q.val() == 1 {
                        self.vu_rd_o.next = true;
                        self.vu_rd_addr_o.next = self.c_dvgpr.q.val();
                        for j in 0..16 {
                            self.addr_q[j].d.next = self.v_first[j].val();
                        }
                    } else {
                        self.send.next = true;
                        self.mem_we_o.next = true;
                        self.send_dword.next = self.step.q.val() - 2;
                        for j in 0..16 {
                            self.addr_q[j].d.next = self.addr_q[j].q.val() + self.a_step.val();
                        }
                        // Read the next dword's data while this one is sent.
                        if self.step.q.val() != self.last_step.val() {
                            self.vu_rd_o.next = true;
                            self.vu_rd_addr_o.next = self.c_dvgpr.q.val()
                                + bit_cast::<VGPR_ADDR_BITS, 3>(self.step.q.val() - 1);
                        }
                    }
                }
                MemKind::Atomic => {
                    // Address, data (and a cmpswap's compare value), then one request.
                    if self.step.q.val() == 0 {
                        self.vu_rd_o.next = true;
                    } else if self.step.q.val() == 1 {
                        self.vu_rd_o.next = true;
                        self.vu_rd_addr_o.next = self.c_dvgpr.q.val();
                        for j in 0..16 {
                            self.addr_q[j].d.next = self.vu_rdata_i[j].val();
                        }
                    } else if self.step.q.val() != self.last_step.val() {
                        self.vu_rd_o.next = true;
                        self.vu_rd_addr_o.next = self.c_dvgpr.q.val() + 1;
                        for j in 0..16 {
                            self.data_q[j].d.next = self.vu_rdata_i[j].val();
                        }
                    } else {
                        self.send.next = true;
                        self.mem_rmw_o.next = self.c_rmw.val();
                        if self.c_dwords.q.val() == 2 {
                            for j in 0..16 {
                                self.mem_wdata_o[j].next = self.data_q[j].q.val();
                            }
                        }
                    }
                }
                MemKind::Lds => {
                    // Per pass: the address, then per access its data (DATA0, DATA1) and the
                    // LDS cycles until every lane is served; the last one sends its tag.
                    if self.step.q.val() == 0 {
                        self.vu_rd_o.next = true;
                        self.rd_prev.d.next = 1.into();
                    } else if self.step.q.val() == 1 {
                        self.vu_rd_o.next = true;
                        self.vu_rd_addr_o.next = self.d_avgpr.val();
                        self.rd_prev.d.next = 2.into();
                    } else if self.step.q.val() == 2 {
                        self.vu_rd_o.next = true;
                        self.vu_rd_addr_o.next = self.c_bvgpr.q.val();
                        self.rd_prev.d.next = 3.into();
                    } else {
                        self.lds.active_i.next = true;
                        self.lds.start_i.next = self.acc_first.q.val();
                        self.d_done.next = self.lds.done_o.val();
                        self.send.next = self.lds.done_o.val();
                        self.send_dword.next = self.acc.q.val();
                    }
                }
            }
        }
        self.mem_req_o.next = self.send.val() & (self.kind.val() != MemKind::Lds);
        self.send_last.next = (self.step.q.val() == self.last_step.val())
            & (self.c_scalar.q.val() | (self.pass.q.val() == self.last_pass.val()));
        if self.c_scalar.q.val() {
            self.send_last.next = true;
        }
        self.fin.next = self.active.q.val()
            & (self.step.q.val() == self.last_step.val())
            & (self.c_scalar.q.val() | (self.pass.q.val() == self.last_pass.val()));
        if self.active.q.val() {
            if self.step.q.val() == self.last_step.val() {
                self.step.d.next = 0.into();
                self.pass.d.next = self.pass.q.val() + 1;
            } else {
                self.step.d.next = self.step.q.val() + 1;
            }
        }
        // A DS pass has as many steps as its accesses' data reads and LDS cycles.
        self.acc_first.d.next = (self.step.q.val() != 3) | self.d_done.val();
        if self.kind.val() == MemKind::Lds {
            self.send_last.next = self.d_done.val()
                & (self.acc.q.val() == self.d_last_acc.val())
                & (self.pass.q.val() == self.last_pass.val());
            self.fin.next = self.active.q.val() & self.send_last.val();
            if self.active.q.val() {
                self.pass.d.next = self.pass.q.val();
                if self.step.q.val() == 0 {
                    self.acc.d.next = 0.into();
                    self.step.d.next = 3.into();
                    if self.d_needs_a.val() {
                        self.step.d.next = 1.into();
                    }
                } else if self.step.q.val() == 1 {
                    self.step.d.next = 3.into();
                    if self.d_needs_b.val() {
                        self.step.d.next = 2.into();
                    }
                } else if self.step.q.val() == 2 {
                    self.step.d.next = 3.into();
                } else if self.d_done.val() {
                    if self.acc.q.val() == self.d_last_acc.val() {
                        self.step.d.next = 0.into();
                        self.pass.d.next = self.pass.q.val() + 1;
                    } else {
                        self.acc.d.next = self.acc.q.val() + 1;
                        self.step.d.next = 3.into();
                        if self.d_needs_a.val() {
                            self.step.d.next = 1.into();
                        }
                    }
                } else {
                    self.step.d.next = 3.into();
                }
            }
        }
        if self.active.q.val() & self.fin.val() {
            self.active.d.next = false;
        }
        self.lds_fault_o.next = self.lds.fault_o.val();
        self.lds_fault_lane_o.next = (bit_cast::<6, 3>(self.pass.q.val()) << 4)
            | bit_cast::<6, 4>(self.lds.fault_lane_o.val());
        self.lds_fault_addr_o.next = self.lds.fault_addr_o.val();
        self.lds_fault_misaligned_o.next = self.lds.fault_misaligned_o.val();
        self.lds_fault_ctx_o.next = self.c_id.q.val();
        self.lds_fault_m0_o.next = self.c_m0.q.val();

        // Round-robin pick among pending entries: the first after `rr` (entry 0 never is, and
        // an unrolled `rr < 0` is a constant Verilator flags), else the first.
        self.pick_found.next = false;
        self.pick.next = 0.into();
        for c in 1..self.pend.len() {
            if !self.pick_found.val() & self.pend[c].q.val() & (self.rr.q.val().index() < c) {
                self.pick_found.next = true;
                self.pick.next = c.to_bits();
            }
        }
        for c in 0..self.pend.len() {
            if !self.pick_found.val() & self.pend[c].q.val() {
                self.pick_found.next = true;
                self.pick.next = c.to_bits();
            }
        }
        if self.pick_found.val() & (!self.active.q.val() | self.fin.val()) {
            self.active.d.next = true;
            self.cur.d.next = self.pick.val();
            self.rr.d.next = self.pick.val();
            self.pass.d.next = 0.into();
            self.step.d.next = 0.into();
        }

        // Entries: dispatch fills, the pick empties.
        for c in 0..self.pend.len() {
            self.pend[c].clock.next = self.clock.val();
            self.e_store[c].clock.next = self.clock.val();
            self.e_scalar[c].clock.next = self.clock.val();
            self.e_dwords[c].clock.next = self.clock.val();
            self.e_size[c].clock.next = self.clock.val();
            self.e_signed[c].clock.next = self.clock.val();
            self.e_avgpr[c].clock.next = self.clock.val();
            self.e_dvgpr[c].clock.next = self.clock.val();
            self.e_bvgpr[c].clock.next = self.clock.val();
            self.e_rvgpr[c].clock.next = self.clock.val();
            self.e_ext[c].clock.next = self.clock.val();
            self.e_m0[c].clock.next = self.clock.val();
            self.e_sdst[c].clock.next = self.clock.val();
            self.e_saddr[c].clock.next = self.clock.val();
            self.e_en_lo[c].clock.next = self.clock.val();
            self.e_en_hi[c].clock.next = self.clock.val();
            self.pend[c].d.next = self.pend[c].q.val();
            self.e_store[c].d.next = self.e_store[c].q.val();
            self.e_scalar[c].d.next = self.e_scalar[c].q.val();
            self.e_dwords[c].d.next = self.e_dwords[c].q.val();
            self.e_size[c].d.next = self.e_size[c].q.val();
            self.e_signed[c].d.next = self.e_signed[c].q.val();
            self.e_avgpr[c].d.next = self.e_avgpr[c].q.val();
            self.e_dvgpr[c].d.next = self.e_dvgpr[c].q.val();
            self.e_bvgpr[c].d.next = self.e_bvgpr[c].q.val();
            self.e_rvgpr[c].d.next = self.e_rvgpr[c].q.val();
            self.e_ext[c].d.next = self.e_ext[c].q.val();
            self.e_m0[c].d.next = self.e_m0[c].q.val();
            self.e_sdst[c].d.next = self.e_sdst[c].q.val();
            self.e_saddr[c].d.next = self.e_saddr[c].q.val();
            self.e_en_lo[c].d.next = self.e_en_lo[c].q.val();
            self.e_en_hi[c].d.next = self.e_en_hi[c].q.val();
            if self.pick_found.val()
                & (!self.active.q.val() | self.fin.val())
                & (self.pick.val().index() == c)
            {
                self.pend[c].d.next = false;
                self.c_id.d.next = self.ctx_id[c].val();
                self.c_slot.d.next = self.ctx_slot[c].val();
                self.c_store.d.next = self.e_store[c].q.val();
                self.c_scalar.d.next = self.e_scalar[c].q.val();
                self.c_dwords.d.next = self.e_dwords[c].q.val();
                self.c_size.d.next = self.e_size[c].q.val();
                self.c_signed.d.next = self.e_signed[c].q.val();
                self.c_avgpr.d.next = self.e_avgpr[c].q.val();
                self.c_dvgpr.d.next = self.e_dvgpr[c].q.val();
                self.c_bvgpr.d.next = self.e_bvgpr[c].q.val();
                self.c_rvgpr.d.next = self.e_rvgpr[c].q.val();
                self.c_ext.d.next = self.e_ext[c].q.val();
                self.c_m0.d.next = self.e_m0[c].q.val();
                self.c_sdst.d.next = self.e_sdst[c].q.val();
                self.c_saddr.d.next = self.e_saddr[c].q.val();
                self.c_en_lo.d.next = self.e_en_lo[c].q.val();
                self.c_en_hi.d.next = self.e_en_hi[c].q.val();
            }
        }
        // Dispatch fills an entry (never one being picked: a context with a pending entry
        // issues nothing).
        for m in 0..self._simds {
            for e in 0..self._ctx_per_simd {
                for kk in 0..self._per_slot {
                    if self.disp_valid_i[m * self._per_slot + kk].val()
                        & (self.disp_ctx_i[m * self._per_slot + kk].val().index()
                            == m * self._ctx_per_simd + e)
                    {
                        self.pend[m * self._ctx_per_simd + e].d.next = true;
                        self.e_store[m * self._ctx_per_simd + e].d.next =
                            self.disp_store_i[m * self._per_slot + kk].val();
                        self.e_scalar[m * self._ctx_per_simd + e].d.next =
                            self.disp_scalar_i[m * self._per_slot + kk].val();
                        self.e_dwords[m * self._ctx_per_simd + e].d.next =
                            self.disp_dwords_i[m * self._per_slot + kk].val();
                        self.e_size[m * self._ctx_per_simd + e].d.next =
                            self.disp_size_i[m * self._per_slot + kk].val();
                        self.e_signed[m * self._ctx_per_simd + e].d.next =
                            self.disp_signed_i[m * self._per_slot + kk].val();
                        self.e_avgpr[m * self._ctx_per_simd + e].d.next =
                            self.disp_addr_vgpr_i[m * self._per_slot + kk].val();
                        self.e_dvgpr[m * self._ctx_per_simd + e].d.next =
                            self.disp_data_vgpr_i[m * self._per_slot + kk].val();
                        self.e_bvgpr[m * self._ctx_per_simd + e].d.next =
                            self.disp_data1_vgpr_i[m * self._per_slot + kk].val();
                        self.e_rvgpr[m * self._ctx_per_simd + e].d.next =
                            self.disp_ret_vgpr_i[m * self._per_slot + kk].val();
                        self.e_ext[m * self._ctx_per_simd + e].d.next =
                            self.disp_ext_i[m * self._per_slot + kk].val();
                        self.e_m0[m * self._ctx_per_simd + e].d.next =
                            self.disp_m0_i[m * self._per_slot + kk].val();
                        self.e_sdst[m * self._ctx_per_simd + e].d.next =
                            self.disp_sdst_i[m * self._per_slot + kk].val();
                        self.e_saddr[m * self._ctx_per_simd + e].d.next =
                            self.disp_saddr_i[m * self._per_slot + kk].val();
                        self.e_en_lo[m * self._ctx_per_simd + e].d.next =
                            self.disp_en_lo_i[m * self._per_slot + kk].val();
                        self.e_en_hi[m * self._ctx_per_simd + e].d.next =
                            self.disp_en_hi_i[m * self._per_slot + kk].val();
                    }
                }
            }
        }

        // Tag ring: written every cycle at `now` (valid = a request left), read one cycle
        // before its response is due.
        self.tag_a.read_clock.next = self.clock.val();
        self.tag_a.write_clock.next = self.clock.val();
        self.tag_b.read_clock.next = self.clock.val();
        self.tag_b.write_clock.next = self.clock.val();
        self.tag_a.write_enable.next = true;
        self.tag_b.write_enable.next = true;
        self.tag_a.write_address.next = self.now.q.val();
        self.tag_b.write_address.next = self.now.q.val();
        self.tag_a.read_address.next = self.now.q.val() - self.latency_m1.val();
        self.tag_b.read_address.next = self.now.q.val() - self.latency_m1.val();
        self.w_vgpr.next =
            self.c_rvgpr.q.val() + bit_cast::<VGPR_ADDR_BITS, 3>(self.send_dword.val());
        self.kind_code.next = 0.into();
        if (self.kind.val() == MemKind::Store)
            | (((self.kind.val() == MemKind::Atomic) | (self.kind.val() == MemKind::Lds))
                & !self.c_ret.val())
        {
            self.kind_code.next = 1.into();
        }
        if self.kind.val() == MemKind::ScalarLoad {
            self.kind_code.next = 2.into();
        }
        self.tag_w.next = 0.into();
        if self.send.val() {
            self.tag_w.next = (bit_cast::<32, 2>(self.kind_code.val()) << 2)
                | (bit_cast::<32, 2>(self.pass.q.val().get_bits::<2>(0)) << 4)
                | (bit_cast::<32, VGPR_ADDR_BITS>(self.w_vgpr.val()) << 6)
                | (bit_cast::<32, 5>(self.c_dwords.q.val()) << 14)
                | (bit_cast::<32, CTX_BITS>(self.cur.q.val()) << 19)
                | 1;
            if self.send_last.val() {
                self.tag_w.next = self.tag_w.val() | 2;
            }
            // Bit 31: the LSU answers itself from the LDS ring; the memory sends nothing.
            if self.kind.val() == MemKind::Lds {
                self.tag_w.next = self.tag_w.val() | 0x8000_0000_u64;
            }
        }
        for j in 0..16 {
            self.lds_ring[j].read_clock.next = self.clock.val();
            self.lds_ring[j].write_clock.next = self.clock.val();
            self.lds_ring[j].write_enable.next =
                self.send.val() & (self.kind.val() == MemKind::Lds);
            self.lds_ring[j].write_address.next = self.now.q.val();
            self.lds_ring[j].read_address.next = self.now.q.val() - self.latency_m1.val();
            self.lds_ring[j].write_data.next = self.lds.rdata_o[j].val();
        }
        self.tag_a.write_data.next = self.tag_w.val();
        self.tag_b.write_data.next = bit_cast::<32, 16>(self.mem_lanes_o.val())
            | (bit_cast::<32, SGPR_ADDR_BITS>(self.c_sdst.q.val()) << 16)
            | (bit_cast::<32, SLOT_BITS>(self.c_slot.q.val()) << 24);
        self.t_valid.next = self.tag_a.read_data.val().get_bit(0);
        self.t_last.next = self.tag_a.read_data.val().get_bit(1);
        self.t_kind.next = self.tag_a.read_data.val().get_bits::<2>(2);
        self.t_pass.next = self.tag_a.read_data.val().get_bits::<2>(4);
        self.t_vgpr.next = self.tag_a.read_data.val().get_bits::<VGPR_ADDR_BITS>(6);
        self.t_dwords.next = self.tag_a.read_data.val().get_bits::<5>(14);
        self.t_ctx.next = self.tag_a.read_data.val().get_bits::<CTX_BITS>(19);
        self.t_slot.next = self.tag_b.read_data.val().get_bits::<SLOT_BITS>(24);
        self.t_lanes.next = self.tag_b.read_data.val().get_bits::<16>(0);
        self.t_sgpr.next = self.tag_b.read_data.val().get_bits::<SGPR_ADDR_BITS>(16);
        self.t_lds.next = self.tag_a.read_data.val().get_bit(31);
        self.resp.next = self.t_valid.val() & (self.mem_rvalid_i.val() | self.t_lds.val());

        self.outstanding.d.next = self.outstanding.q.val();
        if self.send.val() & !self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.send.val() & self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }

        // Write-back.
        self.vu_wr_slot_o.next = self.t_slot.val();
        self.vu_we_o.next = self.resp.val() & (self.t_kind.val() == 0);
        self.vu_wr_addr_o.next = self.t_vgpr.val();
        self.vu_wr_pass_o.next = self.t_pass.val();
        self.vu_wr_lanes_o.next = self.t_lanes.val();
        for j in 0..16 {
            self.vu_wdata_o[j].next = self.mem_rdata_i[j].val();
            if self.t_lds.val() {
                self.vu_wdata_o[j].next = self.lds_ring[j].read_data.val();
            }
        }
        self.srf_ctx_o.next = self.t_ctx.val();
        self.srf_addr_o.next = self.t_sgpr.val();
        self.srf_wdata_lo_o.next = self.mem_rdata_i[0].val();
        self.srf_wdata_hi_o.next = self.mem_rdata_i[1].val();
        self.srf_we_lo_o.next = self.resp.val() & (self.t_kind.val() == 2);
        self.srf_we_hi_o.next =
            self.resp.val() & (self.t_kind.val() == 2) & (self.t_dwords.val() != 1);
        // Pairs after the first wait in s2 and go out one per cycle, pair 0 first.
        self.s2_left.d.next = self.s2_left.q.val();
        if self.s2_left.q.val().any() {
            self.srf_ctx_o.next = self.s2_ctx.q.val();
            self.srf_addr_o.next = self.s2_addr.q.val();
            self.srf_wdata_lo_o.next = self.s2_lo[0].q.val();
            self.srf_wdata_hi_o.next = self.s2_hi[0].q.val();
            self.srf_we_lo_o.next = true;
            self.srf_we_hi_o.next = true;
            self.s2_left.d.next = self.s2_left.q.val() - 1;
            self.s2_addr.d.next = self.s2_addr.q.val() + 2;
            for j in 0..6 {
                self.s2_lo[j].d.next = self.s2_lo[j + 1].q.val();
                self.s2_hi[j].d.next = self.s2_hi[j + 1].q.val();
            }
        }
        if self.resp.val() & (self.t_kind.val() == 2) & (self.t_dwords.val() >= 4) {
            self.s2_left.d.next = bit_cast::<3, 5>(self.t_dwords.val() >> 1) - 1;
            self.s2_ctx.d.next = self.t_ctx.val();
            self.s2_addr.d.next = self.t_sgpr.val() + 2;
            for j in 0..7 {
                self.s2_lo[j].d.next = self.mem_rdata_i[2 * j + 2].val();
                self.s2_hi[j].d.next = self.mem_rdata_i[2 * j + 3].val();
            }
        }
        for c in 0..self.retire_o.len() {
            self.retire_o[c].next = false;
            if self.resp.val()
                & self.t_last.val()
                & (self.t_ctx.val().index() == c)
                & !((self.t_kind.val() == 2) & (self.t_dwords.val() >= 4))
            {
                self.retire_o[c].next = true;
            }
            if (self.s2_left.q.val() == 1) & (self.s2_ctx.q.val().index() == c) {
                self.retire_o[c].next = true;
            }
        }
        self.busy_o.next =
            self.active.q.val() | (self.outstanding.q.val() != 0) | self.s2_left.q.val().any();
        for c in 0..self.pend.len() {
            if self.pend[c].q.val() {
                self.busy_o.next = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::core::simulate::simulate;

    fn tick(lsu: &mut LoadStoreUnit) {
        assert!(simulate(lsu, 1000));
        lsu.clock.next = Clock::from(true);
        assert!(simulate(lsu, 1000));
        lsu.clock.next = Clock::from(false);
        assert!(simulate(lsu, 1000));
        for u in 0..lsu.disp_valid_i.len() {
            lsu.disp_valid_i[u].next = false;
        }
    }

    fn scalar_load(lsu: &mut LoadStoreUnit, port: usize, ctx: usize, addr: u64) {
        lsu.disp_valid_i[port].next = true;
        lsu.disp_ctx_i[port].next = (ctx as u64).into();
        lsu.disp_scalar_i[port].next = true;
        lsu.disp_store_i[port].next = false;
        lsu.disp_dwords_i[port].next = 1.into();
        lsu.disp_saddr_i[port].next = addr.into();
        lsu.disp_sdst_i[port].next = 3.into();
    }

    fn unit() -> (HwConfig, LoadStoreUnit) {
        let cfg = HwConfig::cu();
        let mut lsu = LoadStoreUnit::new(&cfg);
        lsu.connect_all();
        assert!(simulate(&mut lsu, 1000));
        (cfg, lsu)
    }

    /// Runs until idle; per cycle the request's context (slot * 8 + k) if one left.
    fn requests(lsu: &mut LoadStoreUnit, cycles: usize) -> Vec<Option<u64>> {
        (0..cycles)
            .map(|_| {
                assert!(simulate(lsu, 1000));
                let req = lsu.mem_req_o.val().then(|| lsu.mem_ctx_o.val().to_u64());
                tick(lsu);
                req
            })
            .collect()
    }

    #[test]
    fn round_robin_serves_each_context_once_in_order() {
        let (_, mut lsu) = unit();
        // Contexts 5, 1, 6, 2 (slot 1 k 1, slot 0 k 1, slot 1 k 2, slot 0 k 2) at once.
        for (port, ctx) in [(0, 5), (1, 1), (2, 6), (3, 2)] {
            scalar_load(&mut lsu, port, ctx, 0x40);
        }
        tick(&mut lsu);
        let order: Vec<u64> = requests(&mut lsu, 6).into_iter().flatten().collect();
        assert_eq!(
            order,
            vec![1, 2, 9, 10],
            "context order after the last served (none)"
        );
        // The pointer is now at context 6: 0 and 7 pending -> 7 first, then 0.
        scalar_load(&mut lsu, 0, 0, 0x40);
        scalar_load(&mut lsu, 1, 7, 0x40);
        tick(&mut lsu);
        let order: Vec<u64> = requests(&mut lsu, 4).into_iter().flatten().collect();
        assert_eq!(order, vec![11, 0]);
    }

    #[test]
    fn vector_load_sends_every_pass_and_retires_after_the_last_response() {
        let (cfg, mut lsu) = unit();
        lsu.disp_valid_i[0].next = true;
        lsu.disp_ctx_i[0].next = 4.into();
        lsu.disp_scalar_i[0].next = false;
        lsu.disp_store_i[0].next = false;
        lsu.disp_dwords_i[0].next = 1.into();
        lsu.disp_addr_vgpr_i[0].next = 2.into();
        lsu.disp_ret_vgpr_i[0].next = 5.into();
        lsu.disp_en_lo_i[0].next = 0x0001_8000.into();
        lsu.disp_en_hi_i[0].next = 0.into();
        tick(&mut lsu);
        let mut sent = Vec::new();
        let mut retired = None;
        for cycle in 0..40u64 {
            for j in 0..16 {
                lsu.vu_rdata_i[j].next = (0x1000 + 4 * j as u64).into();
            }
            let due = sent
                .iter()
                .any(|&(c, _)| c + cfg.mem_latency as u64 == cycle);
            lsu.mem_rvalid_i.next = due;
            assert!(simulate(&mut lsu, 1000));
            if lsu.mem_req_o.val() {
                sent.push((cycle, lsu.mem_lanes_o.val().to_u64()));
            }
            if lsu.retire_o[4].val() {
                retired = Some(cycle);
            }
            if due {
                assert!(lsu.vu_we_o.val());
                assert_eq!(lsu.vu_wr_addr_o.val().to_u64(), 5);
                assert_eq!(lsu.vu_wr_slot_o.val().to_u64(), 1);
            }
            tick(&mut lsu);
        }
        let passes = cfg.passes();
        assert_eq!(
            sent.iter().map(|s| s.1).collect::<Vec<_>>(),
            vec![0x8000, 0x0001, 0, 0],
            "one request per pass, lanes of EXEC & SpM"
        );
        // One address read, then one request per pass: requests 2 cycles apart.
        let first = sent[0].0;
        assert!(sent
            .iter()
            .enumerate()
            .all(|(q, s)| s.0 == first + 2 * q as u64));
        assert_eq!(retired, Some(sent[passes - 1].0 + cfg.mem_latency as u64));
    }
}
