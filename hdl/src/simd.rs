//! SIMD and SpSIMD lane arrays sharing one wavefront's vector register file (\[P\] §4.1, Fig 4;
//! GCN3's 16-lane SIMD executing a 64-wide wavefront in 4 passes).
//!
//! [`SimdCluster`] is the vector side of one wavefront slot: the SIMD (number 0) and its S
//! SpSIMDs (numbers 1..=S), each with 16 lanes of 32-bit integer ALU ([`LaneAlu`]), and the
//! wavefront's VRF, which the SWFs share with their wavefront (they have no VRF of their own).
//!
//! # VRF organisation and why it needs no arbiter
//!
//! The VRF has one bank per lane (work-item), each a RAM of `vgprs_per_wavefront` 32-bit words,
//! duplicated so a pass can read two operands (`bank_a`, `bank_b`; every write goes to both).
//! A lane's bank is driven by the (Sp)SIMD for which that lane is enabled (EXEC & SpM) in the
//! pass it is reading or writing. Split masks of the SWFs of one wavefront are disjoint
//! (decision 3), so at most one (Sp)SIMD drives any bank in a cycle and the SIMD and its
//! SpSIMDs run in parallel without ever waiting for a VRF port. Should two (Sp)SIMDs be
//! given overlapping masks anyway (a protocol violation) the higher-numbered one wins the bank.
//!
//! # Timing (the VALU row of the timing contract)
//!
//! An op issued at a rising edge reads pass q's operands at the next edge and computes and
//! writes pass q one edge later, overlapping the read of pass q + 1; so from the edge that
//! accepts the issue to the edge after which `done` is high it takes [`valu_cycles`] =
//! passes + 2 (6 for a 64-wide wavefront on 16 lanes). A (Sp)SIMD accepts its next op in the
//! cycle its `done` is high. The cluster accepts one issue per cycle (`issue_simd` selects the
//! target), like GCN's one VALU issue per cycle per CU, so with 4-pass ops up to four
//! (Sp)SIMDs are kept busy.
//!
//! # Fixed geometry
//!
//! rust-hdl evaluates array indices in the Verilog it emits only from loop variables and
//! literals, so the flattened per-lane arrays are indexed with the literal lane count 16 and at
//! most 4 passes: [`SimdCluster::new`] accepts `lanes_per_simd == 16` and wavefront widths 16,
//! 32 and 64 (GCN3 and RDNA-like geometries), and rejects others with an error.

use rust_hdl::prelude::*;

use crate::config::{ConfigErrors, HwConfig, CONTEXT_ID_BITS, VGPR_ADDR_BITS};

/// Lanes of one SIMD / SpSIMD in this RTL.
pub const SIMD_LANES: usize = 16;
/// Most passes per op (64-wide wavefront on 16 lanes).
pub const MAX_PASSES: usize = 4;

/// Operation of a VALU instruction. Comparisons are unsigned and write the lane mask (VCC)
/// instead of a VGPR; shifts use the low 5 bits of operand b.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ValuOp {
    /// d = b
    Mov,
    Add,
    Sub,
    And,
    Or,
    Xor,
    /// d = a << `b[4:0]`
    Shl,
    /// d = a >> `b[4:0]` (logical)
    Shr,
    MinU,
    MaxU,
    /// d = low 32 bits of a * b
    MulLo,
    CmpEq,
    CmpLtU,
    CmpGtU,
}

impl ValuOp {
    /// Every operation, in encoding order.
    pub const ALL: [ValuOp; 14] = [
        ValuOp::Mov,
        ValuOp::Add,
        ValuOp::Sub,
        ValuOp::And,
        ValuOp::Or,
        ValuOp::Xor,
        ValuOp::Shl,
        ValuOp::Shr,
        ValuOp::MinU,
        ValuOp::MaxU,
        ValuOp::MulLo,
        ValuOp::CmpEq,
        ValuOp::CmpLtU,
        ValuOp::CmpGtU,
    ];

    /// Compares write VCC, not a VGPR.
    pub fn is_compare(self) -> bool {
        matches!(self, ValuOp::CmpEq | ValuOp::CmpLtU | ValuOp::CmpGtU)
    }
}

/// One 32-bit integer ALU lane (combinational).
#[derive(LogicBlock, Default)]
pub struct LaneAlu {
    pub op: Signal<In, ValuOp>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub result: Signal<Out, Bits<32>>,
    /// Outcome of a comparison op (false for the others).
    pub cmp: Signal<Out, Bit>,
    // Partial products of the 32 x 32 multiply from rust-hdl's 16 x 16 multipliers.
    p_ll: Signal<Local, Bits<32>>,
    p_lh: Signal<Local, Bits<32>>,
    p_hl: Signal<Local, Bits<32>>,
}

impl Logic for LaneAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.p_ll.next = 0.into();
        self.p_lh.next = 0.into();
        self.p_hl.next = 0.into();
        self.result.next = 0.into();
        self.cmp.next = false;
        match self.op.val() {
            ValuOp::Mov => self.result.next = self.b.val(),
            ValuOp::Add => self.result.next = self.a.val() + self.b.val(),
            ValuOp::Sub => self.result.next = self.a.val() - self.b.val(),
            ValuOp::And => self.result.next = self.a.val() & self.b.val(),
            ValuOp::Or => self.result.next = self.a.val() | self.b.val(),
            ValuOp::Xor => self.result.next = self.a.val() ^ self.b.val(),
            ValuOp::Shl => self.result.next = self.a.val() << self.b.val().get_bits::<5>(0),
            ValuOp::Shr => self.result.next = self.a.val() >> self.b.val().get_bits::<5>(0),
            ValuOp::MinU => {
                self.result.next = self.b.val();
                if self.a.val() < self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MaxU => {
                self.result.next = self.b.val();
                if self.a.val() > self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MulLo => {
                self.p_ll.next = self.a.val().get_bits::<16>(0) * self.b.val().get_bits::<16>(0);
                self.p_lh.next = self.a.val().get_bits::<16>(0) * self.b.val().get_bits::<16>(16);
                self.p_hl.next = self.a.val().get_bits::<16>(16) * self.b.val().get_bits::<16>(0);
                self.result.next = self.p_ll.val() + ((self.p_lh.val() + self.p_hl.val()) << 16);
            }
            ValuOp::CmpEq => self.cmp.next = self.a.val() == self.b.val(),
            ValuOp::CmpLtU => self.cmp.next = self.a.val() < self.b.val(),
            ValuOp::CmpGtU => self.cmp.next = self.a.val() > self.b.val(),
        }
    }
}

/// Cycles of a VALU op from the accepting edge to `done`: passes + 2.
pub fn valu_cycles(cfg: &HwConfig) -> u64 {
    cfg.passes() as u64 + 2
}

/// Why a [`SimdCluster`] cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimdConfigError {
    Invalid(ConfigErrors),
    /// The RTL has 16 lanes per (Sp)SIMD and at most 4 passes (see the module documentation).
    Geometry {
        lanes: usize,
        width: usize,
    },
}

impl std::fmt::Display for SimdConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimdConfigError::Invalid(e) => e.fmt(f),
            SimdConfigError::Geometry { lanes, width } => write!(
                f,
                "the SIMD RTL has {SIMD_LANES} lanes and at most {MAX_PASSES} passes; \
                 {lanes} lanes with {width}-wide wavefronts are not supported"
            ),
        }
    }
}

impl std::error::Error for SimdConfigError {}

/// The SIMD, its SpSIMDs and the shared VRF of one wavefront slot (see the module
/// documentation). Per-(Sp)SIMD state is kept in vectors indexed by the (Sp)SIMD number k;
/// per-pass state of k at index `k * 4 + pass`; ALU lane j of k at `k * 16 + j`; VRF banks by
/// lane.
#[derive(LogicBlock)]
pub struct SimdCluster {
    pub clock: Signal<In, Clock>,
    /// Issue an op to (Sp)SIMD `issue_simd`; accepted when `issue_ready` is high.
    pub issue: Signal<In, Bit>,
    pub issue_simd: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub op: Signal<In, ValuOp>,
    pub dst: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub src0: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub src1: Signal<In, Bits<VGPR_ADDR_BITS>>,
    /// Use `imm` instead of VGPR `src1` as operand b.
    pub src1_is_imm: Signal<In, Bit>,
    pub imm: Signal<In, Bits<32>>,
    pub exec_lo: Signal<In, Bits<32>>,
    pub exec_hi: Signal<In, Bits<32>>,
    pub spm_lo: Signal<In, Bits<32>>,
    pub spm_hi: Signal<In, Bits<32>>,
    /// `issue_simd` exists and is idle.
    pub issue_ready: Signal<Out, Bit>,
    /// Bit k: (Sp)SIMD k has an op in flight.
    pub busy: Signal<Out, Bits<8>>,
    /// Bit k: (Sp)SIMD k finished an op at the last edge.
    pub done: Signal<Out, Bits<8>>,
    /// VCC of (Sp)SIMD k, lanes 16q..16q+15, at index `k * 4 + q`.
    pub vcc: Vec<Signal<Out, Bits<16>>>,
    /// Host port to load and dump the VRF while every (Sp)SIMD is idle, one pass (16 lanes
    /// of one VGPR) per cycle: lane 16 * `host_pass` + j is `host_wdata[j]` / `host_rdata[j]`.
    pub host_we: Signal<In, Bit>,
    pub host_pass: Signal<In, Bits<2>>,
    pub host_addr: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub host_wdata: Vec<Signal<In, Bits<32>>>,
    /// VGPR `host_addr` of the pass's lanes as of the last rising edge.
    pub host_rdata: Vec<Signal<Out, Bits<32>>>,
    pub alus: Vec<LaneAlu>,
    pub bank_a: Vec<RAM<Bits<32>, VGPR_ADDR_BITS>>,
    pub bank_b: Vec<RAM<Bits<32>, VGPR_ADDR_BITS>>,
    busy_q: Vec<DFF<Bit>>,
    done_q: Vec<DFF<Bit>>,
    rvalid: Vec<DFF<Bit>>,
    rpass: Vec<DFF<Bits<3>>>,
    xvalid: Vec<DFF<Bit>>,
    xpass: Vec<DFF<Bits<3>>>,
    op_q: Vec<DFF<ValuOp>>,
    dst_q: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    src0_q: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    src1_q: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    imm_en_q: Vec<DFF<Bit>>,
    imm_q: Vec<DFF<Bits<32>>>,
    en_q: Vec<DFF<Bits<16>>>,
    vcc_q: Vec<DFF<Bits<16>>>,
    last_pass: Constant<Bits<3>>,
    // VCC chunks being assembled lane by lane this cycle.
    vcc_acc: Vec<Signal<Local, Bits<16>>>,
    en_lo: Signal<Local, Bits<32>>,
    en_hi: Signal<Local, Bits<32>>,
    busy_acc: Signal<Local, Bits<8>>,
    done_acc: Signal<Local, Bits<8>>,
}

impl SimdCluster {
    /// The SIMD and S SpSIMDs of one wavefront slot with a VRF of `vgprs_per_wavefront`
    /// registers (the banks are sized for [`crate::config::MAX_VGPRS`]).
    pub fn new(cfg: &HwConfig) -> Result<Self, SimdConfigError> {
        cfg.validate().map_err(SimdConfigError::Invalid)?;
        if cfg.lanes_per_simd != SIMD_LANES || cfg.passes() > MAX_PASSES {
            return Err(SimdConfigError::Geometry {
                lanes: cfg.lanes_per_simd,
                width: cfg.wavefront_width,
            });
        }
        let simds = cfg.contexts_per_wavefront();
        let lanes = cfg.wavefront_width;
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(SimdCluster {
            clock: Default::default(),
            issue: Default::default(),
            issue_simd: Default::default(),
            op: Default::default(),
            dst: Default::default(),
            src0: Default::default(),
            src1: Default::default(),
            src1_is_imm: Default::default(),
            imm: Default::default(),
            exec_lo: Default::default(),
            exec_hi: Default::default(),
            spm_lo: Default::default(),
            spm_hi: Default::default(),
            issue_ready: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            vcc: many(simds * MAX_PASSES),
            host_we: Default::default(),
            host_pass: Default::default(),
            host_addr: Default::default(),
            host_wdata: many(SIMD_LANES),
            host_rdata: many(SIMD_LANES),
            alus: many(simds * SIMD_LANES),
            bank_a: many(lanes),
            bank_b: many(lanes),
            busy_q: many(simds),
            done_q: many(simds),
            rvalid: many(simds),
            rpass: many(simds),
            xvalid: many(simds),
            xpass: many(simds),
            op_q: many(simds),
            dst_q: many(simds),
            src0_q: many(simds),
            src1_q: many(simds),
            imm_en_q: many(simds),
            imm_q: many(simds),
            en_q: many(simds * MAX_PASSES),
            vcc_q: many(simds * MAX_PASSES),
            last_pass: Constant::new((cfg.passes() - 1).to_bits()),
            vcc_acc: many(simds * MAX_PASSES),
            en_lo: Default::default(),
            en_hi: Default::default(),
            busy_acc: Default::default(),
            done_acc: Default::default(),
        })
    }

    /// Number of (Sp)SIMDs (S + 1).
    pub fn simds(&self) -> usize {
        self.busy_q.len()
    }

    /// VCC of (Sp)SIMD `k` as one 64-bit mask (simulation-side peek).
    pub fn vcc_mask(&self, k: usize) -> u64 {
        (0..MAX_PASSES)
            .map(|q| self.vcc[k * MAX_PASSES + q].val().to_u64() << (16 * q))
            .fold(0, |m, chunk| m | chunk)
    }
}

impl Logic for SimdCluster {
    #[hdl_gen]
    fn update(&mut self) {
        self.en_lo.next = self.exec_lo.val() & self.spm_lo.val();
        self.en_hi.next = self.exec_hi.val() & self.spm_hi.val();
        self.issue_ready.next = false;
        self.busy_acc.next = 0.into();
        self.done_acc.next = 0.into();
        for k in 0..self.busy_q.len() {
            self.busy_q[k].clock.next = self.clock.val();
            self.done_q[k].clock.next = self.clock.val();
            self.rvalid[k].clock.next = self.clock.val();
            self.rpass[k].clock.next = self.clock.val();
            self.xvalid[k].clock.next = self.clock.val();
            self.xpass[k].clock.next = self.clock.val();
            self.op_q[k].clock.next = self.clock.val();
            self.dst_q[k].clock.next = self.clock.val();
            self.src0_q[k].clock.next = self.clock.val();
            self.src1_q[k].clock.next = self.clock.val();
            self.imm_en_q[k].clock.next = self.clock.val();
            self.imm_q[k].clock.next = self.clock.val();
            self.busy_q[k].d.next = self.busy_q[k].q.val();
            self.done_q[k].d.next = false;
            self.rvalid[k].d.next = false;
            self.rpass[k].d.next = self.rpass[k].q.val();
            self.xvalid[k].d.next = self.rvalid[k].q.val();
            self.xpass[k].d.next = self.rpass[k].q.val();
            self.op_q[k].d.next = self.op_q[k].q.val();
            self.dst_q[k].d.next = self.dst_q[k].q.val();
            self.src0_q[k].d.next = self.src0_q[k].q.val();
            self.src1_q[k].d.next = self.src1_q[k].q.val();
            self.imm_en_q[k].d.next = self.imm_en_q[k].q.val();
            self.imm_q[k].d.next = self.imm_q[k].q.val();
            for q in 0..4 {
                self.en_q[k * 4 + q].clock.next = self.clock.val();
                self.en_q[k * 4 + q].d.next = self.en_q[k * 4 + q].q.val();
                self.vcc_q[k * 4 + q].clock.next = self.clock.val();
                self.vcc_acc[k * 4 + q].next = self.vcc_q[k * 4 + q].q.val();
                self.vcc[k * 4 + q].next = self.vcc_q[k * 4 + q].q.val();
            }
            // Read stage: pass rpass's operands are addressed now and latched at the edge.
            if self.rvalid[k].q.val() {
                self.rpass[k].d.next = self.rpass[k].q.val() + 1;
                self.rvalid[k].d.next = self.rpass[k].q.val() != self.last_pass.val();
            }
            // Execute stage: the last pass retires the op.
            if self.xvalid[k].q.val() & (self.xpass[k].q.val() == self.last_pass.val()) {
                self.busy_q[k].d.next = false;
                self.done_q[k].d.next = true;
            }
            if (self.issue_simd.val().index() == k) & !self.busy_q[k].q.val() {
                self.issue_ready.next = true;
                if self.issue.val() {
                    self.busy_q[k].d.next = true;
                    self.rvalid[k].d.next = true;
                    self.rpass[k].d.next = 0.into();
                    self.op_q[k].d.next = self.op.val();
                    self.dst_q[k].d.next = self.dst.val();
                    self.src0_q[k].d.next = self.src0.val();
                    self.src1_q[k].d.next = self.src1.val();
                    self.imm_en_q[k].d.next = self.src1_is_imm.val();
                    self.imm_q[k].d.next = self.imm.val();
                    self.en_q[k * 4].d.next = self.en_lo.val().get_bits::<16>(0);
                    self.en_q[k * 4 + 1].d.next = self.en_lo.val().get_bits::<16>(16);
                    self.en_q[k * 4 + 2].d.next = self.en_hi.val().get_bits::<16>(0);
                    self.en_q[k * 4 + 3].d.next = self.en_hi.val().get_bits::<16>(16);
                }
            }
            self.busy_acc.next = self.busy_acc.val().replace_bit(k, self.busy_q[k].q.val());
            self.done_acc.next = self.done_acc.val().replace_bit(k, self.done_q[k].q.val());
        }
        self.busy.next = self.busy_acc.val();
        self.done.next = self.done_acc.val();

        // VRF banks: the host port by default, the lane's owner when it reads or writes it.
        for j in 0..16 {
            self.host_rdata[j].next = 0.into();
        }
        for q in 0..(self.last_pass.val().index() + 1) {
            for j in 0..16 {
                self.bank_a[q * 16 + j].read_clock.next = self.clock.val();
                self.bank_a[q * 16 + j].write_clock.next = self.clock.val();
                self.bank_b[q * 16 + j].read_clock.next = self.clock.val();
                self.bank_b[q * 16 + j].write_clock.next = self.clock.val();
                self.bank_a[q * 16 + j].read_address.next = self.host_addr.val();
                self.bank_b[q * 16 + j].read_address.next = self.host_addr.val();
                self.bank_a[q * 16 + j].write_address.next = self.host_addr.val();
                self.bank_b[q * 16 + j].write_address.next = self.host_addr.val();
                self.bank_a[q * 16 + j].write_data.next = self.host_wdata[j].val();
                self.bank_b[q * 16 + j].write_data.next = self.host_wdata[j].val();
                self.bank_a[q * 16 + j].write_enable.next =
                    self.host_we.val() & (self.host_pass.val().index() == q);
                self.bank_b[q * 16 + j].write_enable.next =
                    self.host_we.val() & (self.host_pass.val().index() == q);
                if self.host_pass.val().index() == q {
                    self.host_rdata[j].next = self.bank_a[q * 16 + j].read_data.val();
                }
            }
        }
        for k in 0..self.busy_q.len() {
            for j in 0..16 {
                self.alus[k * 16 + j].op.next = self.op_q[k].q.val();
                self.alus[k * 16 + j].a.next = 0.into();
                self.alus[k * 16 + j].b.next = self.imm_q[k].q.val();
            }
            // The pass conditions sit outside the lane loops so the simulation skips the
            // passes a (Sp)SIMD is not in; the hardware is the same.
            for q in 0..(self.last_pass.val().index() + 1) {
                if self.rvalid[k].q.val() & (self.rpass[k].q.val().index() == q) {
                    for j in 0..16 {
                        if self.en_q[k * 4 + q].q.val().get_bit(j) {
                            self.bank_a[q * 16 + j].read_address.next = self.src0_q[k].q.val();
                            self.bank_b[q * 16 + j].read_address.next = self.src1_q[k].q.val();
                        }
                    }
                }
                if self.xvalid[k].q.val() & (self.xpass[k].q.val().index() == q) {
                    for j in 0..16 {
                        self.alus[k * 16 + j].a.next = self.bank_a[q * 16 + j].read_data.val();
                        if !self.imm_en_q[k].q.val() {
                            self.alus[k * 16 + j].b.next = self.bank_b[q * 16 + j].read_data.val();
                        }
                        if (self.op_q[k].q.val() == ValuOp::CmpEq)
                            | (self.op_q[k].q.val() == ValuOp::CmpLtU)
                            | (self.op_q[k].q.val() == ValuOp::CmpGtU)
                        {
                            self.vcc_acc[k * 4 + q].next =
                                self.vcc_acc[k * 4 + q].val().replace_bit(
                                    j,
                                    self.en_q[k * 4 + q].q.val().get_bit(j)
                                        & self.alus[k * 16 + j].cmp.val(),
                                );
                        } else if self.en_q[k * 4 + q].q.val().get_bit(j) {
                            self.bank_a[q * 16 + j].write_enable.next = true;
                            self.bank_b[q * 16 + j].write_enable.next = true;
                            self.bank_a[q * 16 + j].write_address.next = self.dst_q[k].q.val();
                            self.bank_b[q * 16 + j].write_address.next = self.dst_q[k].q.val();
                            self.bank_a[q * 16 + j].write_data.next =
                                self.alus[k * 16 + j].result.val();
                            self.bank_b[q * 16 + j].write_data.next =
                                self.alus[k * 16 + j].result.val();
                        }
                    }
                }
            }
            for q in 0..4 {
                self.vcc_q[k * 4 + q].d.next = self.vcc_acc[k * 4 + q].val();
            }
        }
    }
}
