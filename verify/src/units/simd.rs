//! Golden model of the vector unit (SIMD / SpSIMD lane arrays over one wavefront's VRF),
//! written from the GCN3 integer VALU semantics independently of `pws_hdl::simd` (lanes run
//! and write only where EXEC & SpM enables them; compare and carry masks are 0 for lanes that
//! did not run), and [`rtl`], which drives the RTL unit through the cycle driver.
//!
//! The model is per instruction: each (Sp)SIMD runs its instructions in issue order, and the
//! SWFs of one wavefront own disjoint lanes, so the final VRF does not depend on how the
//! (Sp)SIMDs' instructions interleave. Passes follow the compaction mode (the swizzle unit's
//! model in [`super::swizzle`] gives the counts), and so do the latency and the statistics.

use super::swizzle::{base_cycles, bcc_cycles, scc_cycles, Geometry, Mode};

/// Lanes of one (Sp)SIMD.
pub const LANES: usize = 16;

/// VALU operation (the GCN3 instruction in the comments; `*rev` forms with their operands
/// swapped back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    /// v_mov_b32
    Mov,
    /// v_not_b32
    Not,
    /// v_add_u32 (carry-out)
    Add,
    /// v_addc_u32
    Addc,
    /// v_sub_u32 (borrow-out)
    Sub,
    /// v_subb_u32
    Subb,
    /// v_add_u32 with `clamp`: saturated to 0xFFFFFFFF
    AddSatU,
    /// v_sub_u32 with `clamp`: saturated to 0
    SubSatU,
    /// v_mul_lo_u32
    MulLo,
    /// v_mul_hi_u32
    MulHiU,
    /// v_mul_hi_i32
    MulHiI,
    /// v_mul_u32_u24
    MulU24,
    /// v_mul_i32_i24
    MulI24,
    /// v_mad_u32_u24
    MadU24,
    /// v_mad_i32_i24
    MadI24,
    /// v_and_b32
    And,
    /// v_or_b32
    Or,
    /// v_xor_b32
    Xor,
    /// v_lshlrev_b32
    Shl,
    /// v_lshrrev_b32
    Shr,
    /// v_ashrrev_i32
    Ashr,
    /// v_lshlrev_b64
    Shl64,
    /// v_lshrrev_b64
    Shr64,
    /// v_ashrrev_i64
    Ashr64,
    /// v_min_i32
    MinI,
    /// v_max_i32
    MaxI,
    /// v_min_u32
    MinU,
    /// v_max_u32
    MaxU,
    /// v_bfe_u32
    BfeU,
    /// v_bfe_i32
    BfeI,
    /// v_cndmask_b32
    Cndmask,
    /// v_cmp_eq_{i,u}32
    CmpEq,
    /// v_cmp_ne_{i,u}32
    CmpNe,
    /// v_cmp_lt_u32
    CmpLtU,
    /// v_cmp_le_u32
    CmpLeU,
    /// v_cmp_gt_u32
    CmpGtU,
    /// v_cmp_ge_u32
    CmpGeU,
    /// v_cmp_lt_i32
    CmpLtI,
    /// v_cmp_le_i32
    CmpLeI,
    /// v_cmp_gt_i32
    CmpGtI,
    /// v_cmp_ge_i32
    CmpGeI,
}

/// What one lane of an op produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneResult {
    /// A VGPR value, with the carry/borrow-out for the carry ops (false otherwise).
    Value(u32, bool),
    /// A 64-bit value for the VGPR pair d, d + 1.
    Wide(u64),
    /// A compare outcome (no VGPR write).
    Compare(bool),
}

impl AluOp {
    pub const ALL: [AluOp; 41] = [
        AluOp::Mov,
        AluOp::Not,
        AluOp::Add,
        AluOp::Addc,
        AluOp::Sub,
        AluOp::Subb,
        AluOp::AddSatU,
        AluOp::SubSatU,
        AluOp::MulLo,
        AluOp::MulHiU,
        AluOp::MulHiI,
        AluOp::MulU24,
        AluOp::MulI24,
        AluOp::MadU24,
        AluOp::MadI24,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Shl,
        AluOp::Shr,
        AluOp::Ashr,
        AluOp::Shl64,
        AluOp::Shr64,
        AluOp::Ashr64,
        AluOp::MinI,
        AluOp::MaxI,
        AluOp::MinU,
        AluOp::MaxU,
        AluOp::BfeU,
        AluOp::BfeI,
        AluOp::Cndmask,
        AluOp::CmpEq,
        AluOp::CmpNe,
        AluOp::CmpLtU,
        AluOp::CmpLeU,
        AluOp::CmpGtU,
        AluOp::CmpGeU,
        AluOp::CmpLtI,
        AluOp::CmpLeI,
        AluOp::CmpGtI,
        AluOp::CmpGeI,
    ];

    /// The 64-bit shifts take a 64-bit operand a and write two VGPRs.
    pub fn is_wide(self) -> bool {
        matches!(self, AluOp::Shl64 | AluOp::Shr64 | AluOp::Ashr64)
    }

    /// One lane: operands a (64-bit for the wide ops), b, c and the lane's mask input bit.
    pub fn eval(self, a: u64, b: u32, c: u32, m: bool) -> LaneResult {
        use AluOp::*;
        use LaneResult::{Compare, Value, Wide};
        let x = a as u32;
        let (xi, yi) = (x as i32, b as i32);
        let cin = m as u64;
        let u24 = |v: u32| (v & 0xff_ffff) as u64;
        let i24 = |v: u32| ((v << 8) as i32 >> 8) as i64;
        let v = |r: u64| Value(r as u32, false);
        match self {
            Mov => v(x as u64),
            Not => v(!x as u64),
            Add => {
                let s = x as u64 + b as u64;
                Value(s as u32, s >> 32 != 0)
            }
            Addc => {
                let s = x as u64 + b as u64 + cin;
                Value(s as u32, s >> 32 != 0)
            }
            Sub => Value(x.wrapping_sub(b), (b as u64) > x as u64),
            Subb => Value(
                (x as u64).wrapping_sub(b as u64 + cin) as u32,
                b as u64 + cin > x as u64,
            ),
            AddSatU => match x.checked_add(b) {
                Some(s) => Value(s, false),
                None => Value(u32::MAX, true),
            },
            SubSatU => match x.checked_sub(b) {
                Some(d) => Value(d, false),
                None => Value(0, true),
            },
            MulLo => v(x as u64 * b as u64),
            MulHiU => v((x as u64 * b as u64) >> 32),
            MulHiI => v(((xi as i64 * yi as i64) >> 32) as u64),
            MulU24 => v(u24(x) * u24(b)),
            MulI24 => v((i24(x) * i24(b)) as u64),
            MadU24 => v(u24(x) * u24(b) + c as u64),
            MadI24 => v((i24(x) * i24(b) + c as i64) as u64),
            And => v((x & b) as u64),
            Or => v((x | b) as u64),
            Xor => v((x ^ b) as u64),
            Shl => v((x << (b % 32)) as u64),
            Shr => v((x >> (b % 32)) as u64),
            Ashr => v((xi >> (b % 32)) as u32 as u64),
            Shl64 => Wide(a << (b % 64)),
            Shr64 => Wide(a >> (b % 64)),
            Ashr64 => Wide(((a as i64) >> (b % 64)) as u64),
            MinI => v(xi.min(yi) as u32 as u64),
            MaxI => v(xi.max(yi) as u32 as u64),
            MinU => v(x.min(b) as u64),
            MaxU => v(x.max(b) as u64),
            BfeU | BfeI => {
                let (offset, width) = (b % 32, c % 32);
                let field = (x as u64 >> offset) & ((1u64 << width) - 1);
                if self == BfeI && width > 0 && field >> (width - 1) & 1 == 1 {
                    v(field | (u32::MAX as u64) << width)
                } else {
                    v(field)
                }
            }
            Cndmask => v(if m { b } else { x } as u64),
            CmpEq => Compare(x == b),
            CmpNe => Compare(x != b),
            CmpLtU => Compare(x < b),
            CmpLeU => Compare(x <= b),
            CmpGtU => Compare(x > b),
            CmpGeU => Compare(x >= b),
            CmpLtI => Compare(xi < yi),
            CmpLeI => Compare(xi <= yi),
            CmpGtI => Compare(xi > yi),
            CmpGeI => Compare(xi >= yi),
        }
    }
}

/// A source operand: a VGPR (a pair v, v + 1 for the 64-bit operand a) or a broadcast value
/// (64 bits for the 64-bit operand a, else its low word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Vgpr(usize),
    Value(u64),
}

/// One VALU instruction issued to (Sp)SIMD `simd` with the issuing context's EXEC and SpM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorOp {
    pub simd: usize,
    pub op: AluOp,
    pub dst: usize,
    /// Operands a, b, c.
    pub srcs: [Source; 3],
    /// Carry-in / select, bit i = lane i.
    pub mask_in: u64,
    pub exec: u64,
    pub spm: u64,
}

impl VectorOp {
    /// The lanes the op runs on: EXEC & SpM.
    pub fn enabled(&self) -> u64 {
        self.exec & self.spm
    }
}

/// Passes of an op with enable mask `en` on a `width`-lane wavefront under `mode`.
pub fn passes(width: usize, en: u64, mode: Mode) -> usize {
    let g = Geometry {
        width,
        lanes: LANES,
    };
    match mode {
        Mode::None => base_cycles(g),
        Mode::Bcc => bcc_cycles(en, g),
        Mode::Scc => scc_cycles(en, g),
    }
}

/// Cycles from the accepting edge to the edge after which done is high, both counted: one
/// edge per pass (at least one, for the empty schedule) and the accepting edge.
pub fn latency(passes: usize) -> u64 {
    passes.max(1) as u64 + 1
}

/// The unit's statistics counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub passes: u64,
    pub skipped: u64,
    pub active: u64,
}

/// The VRF of one wavefront and the statistics of the ops run on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimdModel {
    width: usize,
    /// `vrf[v][lane]`
    vrf: Vec<Vec<u32>>,
    stats: Stats,
}

impl SimdModel {
    pub fn new(width: usize, vgprs: usize) -> Self {
        SimdModel {
            width,
            vrf: vec![vec![0; width]; vgprs],
            stats: Stats::default(),
        }
    }

    pub fn vrf(&self) -> &[Vec<u32>] {
        &self.vrf
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    pub fn set_vgpr(&mut self, v: usize, lane: usize, value: u32) {
        self.vrf[v][lane] = value;
    }

    /// A register of a lane; registers past the file read 0 (as the banks do).
    fn reg(&self, v: usize, lane: usize) -> u32 {
        self.vrf.get(v).map_or(0, |r| r[lane])
    }

    /// Registers past the file are not written (as the banks do).
    fn set(&mut self, v: usize, lane: usize, value: u32) {
        if let Some(r) = self.vrf.get_mut(v) {
            r[lane] = value;
        }
    }

    /// Runs `i` under compaction `mode`; returns its mask result and its passes.
    pub fn execute(&mut self, i: &VectorOp, mode: Mode) -> (u64, usize) {
        let lanes = if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        let enabled = i.enabled() & lanes;
        let source = |model: &Self, n: usize, lane: usize| -> u64 {
            match i.srcs[n] {
                Source::Vgpr(v) if n == 0 && i.op.is_wide() => {
                    model.reg(v, lane) as u64 | (model.reg(v + 1, lane) as u64) << 32
                }
                Source::Vgpr(v) => model.reg(v, lane) as u64,
                Source::Value(x) if n == 0 && i.op.is_wide() => x,
                Source::Value(x) => x & 0xFFFF_FFFF,
            }
        };
        let mut mask = 0u64;
        for lane in (0..self.width).filter(|&l| enabled >> l & 1 == 1) {
            let (a, b, c) = (
                source(self, 0, lane),
                source(self, 1, lane) as u32,
                source(self, 2, lane) as u32,
            );
            let bit = match i.op.eval(a, b, c, i.mask_in >> lane & 1 == 1) {
                LaneResult::Value(d, carry) => {
                    self.set(i.dst, lane, d);
                    carry
                }
                LaneResult::Wide(d) => {
                    self.set(i.dst, lane, d as u32);
                    self.set(i.dst + 1, lane, (d >> 32) as u32);
                    false
                }
                LaneResult::Compare(r) => r,
            };
            mask |= (bit as u64) << lane;
        }
        let n = passes(self.width, enabled, mode);
        self.stats.passes += n as u64;
        self.stats.skipped += (self.width / LANES - n) as u64;
        self.stats.active += enabled.count_ones() as u64;
        (mask, n)
    }
}

/// The RTL vector unit behind the same vocabulary as the model.
pub mod rtl {
    use pws_hdl::config::HwConfig;
    use pws_hdl::simd::{SimdConfigError, ValuOp, VectorUnit, SIMD_LANES, SOURCES};
    use pws_sim::{Driver, DriverError};
    use rust_hdl::prelude::*;

    use super::super::swizzle::{rtl::hw_mode, Mode};
    use super::{AluOp, Source, Stats, VectorOp};

    #[derive(Debug, thiserror::Error)]
    pub enum SimdRtlError {
        #[error(transparent)]
        Config(#[from] SimdConfigError),
        #[error(transparent)]
        Driver(#[from] DriverError),
        #[error("(Sp)SIMD {0} does not exist")]
        NoSuchSimd(usize),
        #[error("the vector unit did not finish within {0} cycles")]
        Timeout(u64),
    }

    /// Accepting edge, done edge and mask result of one instruction.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct OpResult {
        pub issued: u64,
        pub done: u64,
        pub mask: u64,
    }

    pub struct VectorUnitRtl {
        driver: Driver<VectorUnit>,
        cfg: HwConfig,
    }

    /// The RTL operation of a model operation.
    pub fn valu(op: AluOp) -> ValuOp {
        match op {
            AluOp::Mov => ValuOp::Mov,
            AluOp::Not => ValuOp::Not,
            AluOp::Add => ValuOp::Add,
            AluOp::Addc => ValuOp::Addc,
            AluOp::Sub => ValuOp::Sub,
            AluOp::Subb => ValuOp::Subb,
            AluOp::AddSatU => ValuOp::AddSatU,
            AluOp::SubSatU => ValuOp::SubSatU,
            AluOp::MulLo => ValuOp::MulLo,
            AluOp::MulHiU => ValuOp::MulHiU,
            AluOp::MulHiI => ValuOp::MulHiI,
            AluOp::MulU24 => ValuOp::MulU24,
            AluOp::MulI24 => ValuOp::MulI24,
            AluOp::MadU24 => ValuOp::MadU24,
            AluOp::MadI24 => ValuOp::MadI24,
            AluOp::And => ValuOp::And,
            AluOp::Or => ValuOp::Or,
            AluOp::Xor => ValuOp::Xor,
            AluOp::Shl => ValuOp::Shl,
            AluOp::Shr => ValuOp::Shr,
            AluOp::Ashr => ValuOp::Ashr,
            AluOp::Shl64 => ValuOp::Shl64,
            AluOp::Shr64 => ValuOp::Shr64,
            AluOp::Ashr64 => ValuOp::Ashr64,
            AluOp::MinI => ValuOp::MinI,
            AluOp::MaxI => ValuOp::MaxI,
            AluOp::MinU => ValuOp::MinU,
            AluOp::MaxU => ValuOp::MaxU,
            AluOp::BfeU => ValuOp::BfeU,
            AluOp::BfeI => ValuOp::BfeI,
            AluOp::Cndmask => ValuOp::Cndmask,
            AluOp::CmpEq => ValuOp::CmpEq,
            AluOp::CmpNe => ValuOp::CmpNe,
            AluOp::CmpLtU => ValuOp::CmpLtU,
            AluOp::CmpLeU => ValuOp::CmpLeU,
            AluOp::CmpGtU => ValuOp::CmpGtU,
            AluOp::CmpGeU => ValuOp::CmpGeU,
            AluOp::CmpLtI => ValuOp::CmpLtI,
            AluOp::CmpLeI => ValuOp::CmpLeI,
            AluOp::CmpGtI => ValuOp::CmpGtI,
            AluOp::CmpGeI => ValuOp::CmpGeI,
        }
    }

    fn bits32(x: u64) -> Bits<32> {
        (x & 0xFFFF_FFFF).to_bits()
    }

    impl VectorUnitRtl {
        pub fn new(cfg: &HwConfig) -> Result<Self, SimdRtlError> {
            Ok(VectorUnitRtl {
                driver: Driver::new(VectorUnit::new(cfg)?)?,
                cfg: *cfg,
            })
        }

        pub fn with_vcd(
            cfg: &HwConfig,
            out: impl std::io::Write + 'static,
        ) -> Result<Self, SimdRtlError> {
            Ok(VectorUnitRtl {
                driver: Driver::with_vcd(VectorUnit::new(cfg)?, out)?,
                cfg: *cfg,
            })
        }

        pub fn cycles(&self) -> u64 {
            self.driver.cycle()
        }

        /// Writes 16 lanes of one VGPR through the LSU port (one cycle).
        pub fn lsu_write(
            &mut self,
            vgpr: usize,
            pass: usize,
            lanes: u16,
            data: &[u32],
        ) -> Result<(), SimdRtlError> {
            let u = self.driver.uut_mut();
            u.lsu_we_i.next = true;
            u.lsu_wr_addr_i.next = (vgpr as u64).to_bits();
            u.lsu_wr_pass_i.next = (pass as u64).to_bits();
            u.lsu_wr_lanes_i.next = (lanes as u64).to_bits();
            for (j, &word) in data.iter().enumerate().take(SIMD_LANES) {
                u.lsu_wdata_i[j].next = (word as u64).to_bits();
            }
            self.driver.tick()?;
            self.driver.uut_mut().lsu_we_i.next = false;
            Ok(())
        }

        /// Reads 16 lanes of one VGPR through the LSU port (one cycle).
        pub fn lsu_read(&mut self, vgpr: usize, pass: usize) -> Result<Vec<u32>, SimdRtlError> {
            let u = self.driver.uut_mut();
            u.lsu_rd_i.next = true;
            u.lsu_rd_addr_i.next = (vgpr as u64).to_bits();
            u.lsu_rd_pass_i.next = (pass as u64).to_bits();
            self.driver.tick()?;
            self.driver.uut_mut().lsu_rd_i.next = false;
            self.driver.settle()?;
            Ok(self
                .driver
                .uut()
                .lsu_rdata_o
                .iter()
                .map(|d| d.val().to_u64() as u32)
                .collect())
        }

        /// Loads the whole VRF, `[v][lane]`, through the LSU port.
        pub fn load_vrf(&mut self, vrf: &[Vec<u32>]) -> Result<(), SimdRtlError> {
            for (v, row) in vrf.iter().enumerate() {
                for (q, chunk) in row.chunks(SIMD_LANES).enumerate() {
                    self.lsu_write(v, q, u16::MAX, chunk)?;
                }
            }
            Ok(())
        }

        /// The whole VRF, `[v][lane]`, through the LSU port.
        pub fn dump_vrf(&mut self) -> Result<Vec<Vec<u32>>, SimdRtlError> {
            let (vgprs, width) = (self.cfg.vgprs_per_simd, self.cfg.wavefront_width);
            let mut vrf = Vec::with_capacity(vgprs);
            for v in 0..vgprs {
                let mut row = Vec::with_capacity(width);
                for q in 0..width / SIMD_LANES {
                    row.extend(self.lsu_read(v, q)?);
                }
                vrf.push(row);
            }
            Ok(vrf)
        }

        pub fn stats(&self) -> Stats {
            let u = self.driver.uut();
            Stats {
                passes: u.stat_passes_o.val().to_u64(),
                skipped: u.stat_skipped_o.val().to_u64(),
                active: u.stat_active_o.val().to_u64(),
            }
        }

        fn drive(&mut self, o: &VectorOp) {
            let k = o.simd;
            let u = self.driver.uut_mut();
            u.op_i[k].next = valu(o.op);
            u.dst_i[k].next = (o.dst as u64).to_bits();
            for (n, src) in o.srcs.iter().enumerate() {
                let i = k * SOURCES + n;
                match *src {
                    Source::Vgpr(v) => {
                        u.src_is_vgpr_i[i].next = true;
                        u.src_vgpr_i[i].next = (v as u64).to_bits();
                    }
                    Source::Value(x) => {
                        u.src_is_vgpr_i[i].next = false;
                        u.src_value_i[i].next = bits32(x);
                        u.src_value_hi_i[i].next = bits32(x >> 32);
                    }
                }
            }
            u.mask_in_lo_i[k].next = bits32(o.mask_in);
            u.mask_in_hi_i[k].next = bits32(o.mask_in >> 32);
            let en = o.enabled();
            u.en_lo_i[k].next = bits32(en);
            u.en_hi_i[k].next = bits32(en >> 32);
            u.issue_i[k].next = true;
        }

        /// Runs the instructions under compaction `mode`: each (Sp)SIMD takes its own
        /// instructions in order, each as soon as it is ready, and the (Sp)SIMDs issue in
        /// parallel. Returns, per instruction, its edges and mask result.
        pub fn run(&mut self, ops: &[VectorOp], mode: Mode) -> Result<Vec<OpResult>, SimdRtlError> {
            let simds = self.cfg.contexts_per_wavefront();
            if let Some(bad) = ops.iter().find(|o| o.simd >= simds) {
                return Err(SimdRtlError::NoSuchSimd(bad.simd));
            }
            self.driver.uut_mut().compaction_i.next = hw_mode(mode);
            let mut results = vec![
                OpResult {
                    issued: 0,
                    done: 0,
                    mask: 0
                };
                ops.len()
            ];
            // Per (Sp)SIMD: its instructions in order, the next one to issue, the one in flight.
            let queues: Vec<Vec<usize>> = (0..simds)
                .map(|k| (0..ops.len()).filter(|&i| ops[i].simd == k).collect())
                .collect();
            let mut next = vec![0; simds];
            let mut in_flight: Vec<Option<usize>> = vec![None; simds];
            let limit = self.driver.cycle()
                + (ops.len() as u64 + 2) * (super::latency(self.cfg.passes()) + 2);
            while (0..simds).any(|k| next[k] < queues[k].len() || in_flight[k].is_some()) {
                if self.driver.cycle() > limit {
                    return Err(SimdRtlError::Timeout(limit));
                }
                let mut issuing = vec![None; simds];
                for k in 0..simds {
                    if let Some(&i) = queues[k].get(next[k]) {
                        self.drive(&ops[i]);
                        issuing[k] = Some(i);
                    }
                }
                self.driver.settle()?;
                for (k, slot) in issuing.iter_mut().enumerate() {
                    if !self.driver.uut().ready_o[k].val() {
                        *slot = None;
                    }
                }
                let edge = self.driver.cycle() + 1;
                self.driver.tick()?;
                for k in 0..simds {
                    self.driver.uut_mut().issue_i[k].next = false;
                }
                self.driver.settle()?;
                for (k, slot) in in_flight.iter_mut().enumerate() {
                    if self.driver.uut().done_o[k].val() {
                        if let Some(i) = slot.take() {
                            results[i].done = edge;
                            results[i].mask = self.driver.uut().mask_result(k);
                        }
                    }
                }
                for (k, slot) in issuing.iter().enumerate() {
                    if let Some(i) = *slot {
                        in_flight[k] = Some(i);
                        results[i].issued = edge;
                        next[k] += 1;
                    }
                }
            }
            Ok(results)
        }
    }
}
