//! Golden model of the SIMD / SpSIMD lane arrays and their shared VRF, written from the GCN3
//! VALU semantics (32-bit lanes, a lane writes only when EXEC & SpM enables it, compares write
//! VCC with 0 for disabled lanes) independently of `pws_hdl::simd`; and [`rtl`], which drives
//! the RTL cluster through the cycle driver.
//!
//! The model is per instruction: each (Sp)SIMD runs its instructions in issue order, and the
//! SWFs of one wavefront own disjoint lanes, so the final VRF does not depend on how the
//! (Sp)SIMDs' instructions interleave. Timing is checked separately: every instruction takes
//! [`latency`] cycles from issue to done.

/// VALU operation (GCN3 names in the comments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    /// v_mov_b32
    Mov,
    /// v_add_u32
    Add,
    /// v_sub_u32
    Sub,
    /// v_and_b32
    And,
    /// v_or_b32
    Or,
    /// v_xor_b32
    Xor,
    /// v_lshlrev_b32 with the operands in natural order
    Shl,
    /// v_lshrrev_b32 with the operands in natural order
    Shr,
    /// v_min_u32
    MinU,
    /// v_max_u32
    MaxU,
    /// v_mul_lo_u32
    MulLo,
    /// v_cmp_eq_u32
    CmpEq,
    /// v_cmp_lt_u32
    CmpLtU,
    /// v_cmp_gt_u32
    CmpGtU,
}

impl AluOp {
    pub const ALL: [AluOp; 14] = [
        AluOp::Mov,
        AluOp::Add,
        AluOp::Sub,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Shl,
        AluOp::Shr,
        AluOp::MinU,
        AluOp::MaxU,
        AluOp::MulLo,
        AluOp::CmpEq,
        AluOp::CmpLtU,
        AluOp::CmpGtU,
    ];

    /// The lane result: `Ok(value)` for a VGPR write, `Err(bit)` for a compare.
    pub fn eval(self, a: u32, b: u32) -> Result<u32, bool> {
        match self {
            AluOp::Mov => Ok(b),
            AluOp::Add => Ok(a.wrapping_add(b)),
            AluOp::Sub => Ok(a.wrapping_sub(b)),
            AluOp::And => Ok(a & b),
            AluOp::Or => Ok(a | b),
            AluOp::Xor => Ok(a ^ b),
            AluOp::Shl => Ok(a << (b & 31)),
            AluOp::Shr => Ok(a >> (b & 31)),
            AluOp::MinU => Ok(a.min(b)),
            AluOp::MaxU => Ok(a.max(b)),
            AluOp::MulLo => Ok(a.wrapping_mul(b)),
            AluOp::CmpEq => Err(a == b),
            AluOp::CmpLtU => Err(a < b),
            AluOp::CmpGtU => Err(a > b),
        }
    }
}

/// Operand b.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandB {
    Vgpr(usize),
    Imm(u32),
}

/// One VALU instruction issued to (Sp)SIMD `simd` with the issuing context's EXEC and SpM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorOp {
    pub simd: usize,
    pub op: AluOp,
    pub dst: usize,
    pub src0: usize,
    pub src1: OperandB,
    pub exec: u64,
    pub spm: u64,
}

/// Cycles from issue to done of one VALU instruction: one issue edge, one read edge per pass
/// and the last pass's execute edge.
pub fn latency(wavefront_width: usize) -> u64 {
    (wavefront_width / 16) as u64 + 2
}

/// The VRF of one wavefront and the VCC each (Sp)SIMD produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimdModel {
    width: usize,
    /// `vrf[v][lane]`
    vrf: Vec<Vec<u32>>,
    vcc: Vec<u64>,
}

impl SimdModel {
    pub fn new(width: usize, vgprs: usize, simds: usize) -> Self {
        SimdModel {
            width,
            vrf: vec![vec![0; width]; vgprs],
            vcc: vec![0; simds],
        }
    }

    pub fn vrf(&self) -> &[Vec<u32>] {
        &self.vrf
    }

    pub fn set_vgpr(&mut self, v: usize, lane: usize, value: u32) {
        self.vrf[v][lane] = value;
    }

    /// VCC of (Sp)SIMD `simd`.
    pub fn vcc(&self, simd: usize) -> u64 {
        self.vcc[simd]
    }

    pub fn execute(&mut self, i: &VectorOp) {
        let enabled = i.exec & i.spm;
        let mut vcc = 0u64;
        for lane in 0..self.width {
            let on = enabled >> lane & 1 == 1;
            let a = self.vrf[i.src0][lane];
            let b = match i.src1 {
                OperandB::Vgpr(v) => self.vrf[v][lane],
                OperandB::Imm(x) => x,
            };
            match i.op.eval(a, b) {
                Ok(d) if on => self.vrf[i.dst][lane] = d,
                Ok(_) => {}
                Err(bit) => vcc |= u64::from(on && bit) << lane,
            }
        }
        if i.op.eval(0, 0).is_err() {
            self.vcc[i.simd] = vcc;
        }
    }
}

/// The RTL cluster behind the same vocabulary as the model.
pub mod rtl {
    use pws_hdl::config::HwConfig;
    use pws_hdl::simd::{SimdCluster, SimdConfigError, ValuOp, SIMD_LANES};
    use pws_sim::{Driver, DriverError};
    use rust_hdl::prelude::*;

    use super::{AluOp, OperandB, VectorOp};

    #[derive(Debug, thiserror::Error)]
    pub enum SimdRtlError {
        #[error(transparent)]
        Config(#[from] SimdConfigError),
        #[error(transparent)]
        Driver(#[from] DriverError),
        #[error("(Sp)SIMD {0} does not exist")]
        NoSuchSimd(usize),
        #[error("the cluster did not finish within {0} cycles")]
        Timeout(u64),
    }

    /// Issue and completion cycle of one instruction.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct OpTiming {
        pub issued: u64,
        pub done: u64,
    }

    pub struct SimdClusterRtl {
        driver: Driver<SimdCluster>,
        cfg: HwConfig,
    }

    fn valu(op: AluOp) -> ValuOp {
        match op {
            AluOp::Mov => ValuOp::Mov,
            AluOp::Add => ValuOp::Add,
            AluOp::Sub => ValuOp::Sub,
            AluOp::And => ValuOp::And,
            AluOp::Or => ValuOp::Or,
            AluOp::Xor => ValuOp::Xor,
            AluOp::Shl => ValuOp::Shl,
            AluOp::Shr => ValuOp::Shr,
            AluOp::MinU => ValuOp::MinU,
            AluOp::MaxU => ValuOp::MaxU,
            AluOp::MulLo => ValuOp::MulLo,
            AluOp::CmpEq => ValuOp::CmpEq,
            AluOp::CmpLtU => ValuOp::CmpLtU,
            AluOp::CmpGtU => ValuOp::CmpGtU,
        }
    }

    impl SimdClusterRtl {
        pub fn new(cfg: &HwConfig) -> Result<Self, SimdRtlError> {
            Ok(SimdClusterRtl {
                driver: Driver::new(SimdCluster::new(cfg)?)?,
                cfg: *cfg,
            })
        }

        pub fn with_vcd(
            cfg: &HwConfig,
            out: impl std::io::Write + 'static,
        ) -> Result<Self, SimdRtlError> {
            Ok(SimdClusterRtl {
                driver: Driver::with_vcd(SimdCluster::new(cfg)?, out)?,
                cfg: *cfg,
            })
        }

        pub fn cycles(&self) -> u64 {
            self.driver.cycle()
        }

        /// Loads the whole VRF, `[v][lane]`, through the host port (one cycle per VGPR and
        /// pass).
        pub fn load_vrf(&mut self, vrf: &[Vec<u32>]) -> Result<(), SimdRtlError> {
            for (v, row) in vrf.iter().enumerate() {
                for (q, chunk) in row.chunks(SIMD_LANES).enumerate() {
                    let u = self.driver.uut_mut();
                    u.host_pass.next = (q as u64).to_bits();
                    u.host_addr.next = (v as u64).to_bits();
                    for (j, &word) in chunk.iter().enumerate() {
                        u.host_wdata[j].next = (word as u64).to_bits();
                    }
                    u.host_we.next = true;
                    self.driver.tick()?;
                }
            }
            self.driver.uut_mut().host_we.next = false;
            Ok(())
        }

        /// The whole VRF, `[v][lane]`, through the host port (one cycle per VGPR and pass).
        pub fn dump_vrf(&mut self) -> Result<Vec<Vec<u32>>, SimdRtlError> {
            let (vgprs, width) = (self.cfg.vgprs_per_wavefront, self.cfg.wavefront_width);
            let mut vrf = vec![vec![0; width]; vgprs];
            for (v, row) in vrf.iter_mut().enumerate() {
                for (q, chunk) in row.chunks_mut(SIMD_LANES).enumerate() {
                    let u = self.driver.uut_mut();
                    u.host_pass.next = (q as u64).to_bits();
                    u.host_addr.next = (v as u64).to_bits();
                    self.driver.tick()?;
                    for (j, word) in chunk.iter_mut().enumerate() {
                        *word = self.driver.uut().host_rdata[j].val().to_u64() as u32;
                    }
                }
            }
            Ok(vrf)
        }

        /// VCC of (Sp)SIMD `k`.
        pub fn vcc(&self, k: usize) -> u64 {
            self.driver.uut().vcc_mask(k)
        }

        /// Issues the instructions in order, one per cycle at most, each as soon as its
        /// (Sp)SIMD is idle, and runs until all are done.
        pub fn run(&mut self, ops: &[VectorOp]) -> Result<Vec<OpTiming>, SimdRtlError> {
            let simds = self.cfg.contexts_per_wavefront();
            if let Some(bad) = ops.iter().find(|o| o.simd >= simds) {
                return Err(SimdRtlError::NoSuchSimd(bad.simd));
            }
            let mut timing: Vec<OpTiming> = Vec::with_capacity(ops.len());
            // Per (Sp)SIMD: the index of its instruction in flight.
            let mut in_flight: Vec<Option<usize>> = vec![None; simds];
            let limit = self.driver.cycle()
                + (ops.len() as u64 + 2) * (super::latency(self.cfg.wavefront_width) + 2);
            let mut next = 0;
            while next < ops.len() || in_flight.iter().any(Option::is_some) {
                if self.driver.cycle() > limit {
                    return Err(SimdRtlError::Timeout(limit));
                }
                let mut issuing = None;
                if let Some(o) = ops.get(next) {
                    let u = self.driver.uut_mut();
                    u.issue_simd.next = (o.simd as u64).to_bits();
                    u.op.next = valu(o.op);
                    u.dst.next = (o.dst as u64).to_bits();
                    u.src0.next = (o.src0 as u64).to_bits();
                    match o.src1 {
                        OperandB::Vgpr(v) => {
                            u.src1.next = (v as u64).to_bits();
                            u.src1_is_imm.next = false;
                        }
                        OperandB::Imm(x) => {
                            u.imm.next = (x as u64).to_bits();
                            u.src1_is_imm.next = true;
                        }
                    }
                    u.exec_lo.next = (o.exec & 0xFFFF_FFFF).to_bits();
                    u.exec_hi.next = (o.exec >> 32).to_bits();
                    u.spm_lo.next = (o.spm & 0xFFFF_FFFF).to_bits();
                    u.spm_hi.next = (o.spm >> 32).to_bits();
                    u.issue.next = true;
                    self.driver.settle()?;
                    if self.driver.uut().issue_ready.val() {
                        issuing = Some(o.simd);
                    }
                }
                let edge = self.driver.cycle() + 1;
                self.driver.tick()?;
                self.driver.uut_mut().issue.next = false;
                let done = self.driver.uut().done.val().to_u64();
                for (k, slot) in in_flight.iter_mut().enumerate() {
                    if done >> k & 1 == 1 {
                        if let Some(i) = slot.take() {
                            timing[i].done = edge;
                        }
                    }
                }
                if let Some(k) = issuing {
                    in_flight[k] = Some(next);
                    timing.push(OpTiming {
                        issued: edge,
                        done: 0,
                    });
                    next += 1;
                }
            }
            self.driver.settle()?;
            Ok(timing)
        }
    }
}
