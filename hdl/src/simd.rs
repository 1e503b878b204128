//! The vector unit of one SIMD: the SIMD and its S SpSIMDs (\[P\] §4.1, Fig 4), shared by
//! the SIMD's wavefront slots as GCN shares a SIMD's lanes among its ten, over the SIMD's
//! vector register file, with BCC/SCC compaction of each op's passes (Vaidya et al., ISCA'13)
//! and the port of the CU's load/store unit.
//!
//! [`VectorUnit`] holds (Sp)SIMD k = 0 (the SIMD, WF contexts) .. S (SpSIMD k, SWF contexts
//! k), each an [`SpSimd`] with 16 lanes of 32-bit integer and f32 ALU ([`LaneAlu`] with its
//! [`LaneFpu`]) and its own [`SwizzleUnit`], and the SIMD's VRF, and wires each (Sp)SIMD to
//! its port set of every bank. A wavefront holds a range of the VRF's
//! registers from its dispatch to its end, and its SWFs share that range (they have no VRF of
//! their own); the compute unit adds the range's base to every register number, so the ops
//! arriving here name registers of the whole VRF. A lane of an op runs, and writes, only if it
//! is enabled by the issuing context's EXEC & SpM.
//!
//! # VRF organisation and why it needs no arbiter
//!
//! The VRF is one [`VrfBank`] per lane (work-item) with a port set per (Sp)SIMD: three read
//! ports for the op's sources a, b, c (a's high word on port c for the 64-bit shifts and
//! compares), a fourth for the high word of a 64-bit b (compares) or c (`v_mad_u64_u32`), and
//! one write port that also writes the high word of a 64-bit result; and a read and a write
//! port for the LSU. (Sp)SIMD k addresses port set k of every bank from the issue cycle to its
//! op's last pass, and writes a lane's bank when the lane's pass executes. So the SIMD and its
//! SpSIMDs run in parallel without ever waiting for a VRF port, whether their ops come from one
//! wavefront (split masks are disjoint, decision 3) or from different ones (different register
//! ranges); the LSU reads and writes the registers of the context whose memory instruction is
//! in flight (it has no VALU op), and the dispatcher writes those of a wavefront not yet
//! launched.
//!
//! Protocol violations and what they do: two (Sp)SIMDs writing one register of one lane in one
//! cycle — the higher-numbered one wins; an LSU write to a register a VALU op writes in the
//! same cycle — the op wins.
//!
//! # Passes and compaction
//!
//! The swizzle unit of (Sp)SIMD k latches the op's enable mask at the accepting edge and emits
//! one pass per cycle: every 16-lane group in mode `None` (W / 16 passes), the non-empty groups
//! under BCC, `ceil(active / 16)` passes under SCC. ALU position p executes lane `src_o[p]`:
//! its operands come from that lane's bank through the crossbar and its result goes back to
//! that lane's bank (the un-swizzle). The crossbar is one [`GroupCrossbar`] per (Sp)SIMD and
//! lane group (S1 Fig. 5(c)). Passes without a swizzle (every active position p runs lane
//! `16·g + p` of one group g, which is every pass of `None` and BCC) bypass it: position p
//! reads and writes bank `16·g + p` directly, so the crossbars stay idle in simulation except
//! in SCC's swizzled passes.
//!
//! # Timing (the VALU row of the timing contract)
//!
//! A (Sp)SIMD accepts an op at a rising edge while `ready_o[k]` is high. Its lanes' banks are
//! addressed in the accepting cycle, so pass 0 executes in the next cycle and every pass
//! writes its lanes at the edge that ends it, one pass per cycle. A lane is read once per op
//! and written once, so reading every lane at the start is the same as reading it in its
//! pass. With P passes (`P = 0` for an empty mask under BCC/SCC) `done_o[k]` and
//! `mask_*_o[k]` are valid for one cycle after edge number max(P, 1) counting from the
//! accepting edge as 0: [`valu_cycles_for`]`(P)` = max(P, 1) + 1 edges from accept to done,
//! inclusive; the worst case is [`valu_cycles`] = W / 16 + 1 (5 for wave64). `ready_o[k]` is
//! high again in the `done_o[k]` cycle, so back-to-back ops on one (Sp)SIMD are
//! [`valu_cycles_for`]`(P)` - 1 cycles apart. The 64-bit shifts cost the same as 32-bit ops
//! (both words are written in one cycle). Different (Sp)SIMDs accept ops in the same cycle.
//!
//! # Fixed geometry
//!
//! rust-hdl evaluates array indices in the Verilog it emits only from loop variables and
//! literals, so the flattened per-lane arrays are indexed with the literal lane count 16 and at
//! most 4 passes: [`VectorUnit::new`] accepts `lanes_per_simd == 16` and wavefront widths 16,
//! 32 and 64 (GCN3 and RDNA-like geometries), and rejects others with an error.

mod alu;
mod crossbar;
pub mod fpu;
mod perm;
mod schedule;
pub mod sdwa;
mod spsimd;
mod vrf;

pub use alu::{LaneAlu, ValuOp};
pub use crossbar::GroupCrossbar;
pub use fpu::LaneFpu;
pub use perm::BytePermute;
pub use schedule::PassSchedule;
pub use sdwa::{LaneSdwa, SDWA_BITS};
pub use spsimd::SpSimd;
pub use vrf::VrfBank;

use rust_hdl::prelude::*;

use crate::config::{ConfigErrors, HwConfig, VGPR_ADDR_BITS};
use crate::swizzle::SwizzleMode;
use fpu::FMOD_BITS;

/// Lanes of one SIMD / SpSIMD in this RTL.
pub const SIMD_LANES: usize = 16;
/// Most passes per op (64-wide wavefront on 16 lanes).
pub const MAX_PASSES: usize = 4;
/// Source operands per op (a, b, c); vector ports indexed `k * SOURCES + n`.
pub const SOURCES: usize = 3;

/// Cycles of a VALU op with `passes` passes, from the accepting edge to the edge after which
/// `done_o` is high, both counted: max(passes, 1) + 1.
pub fn valu_cycles_for(passes: usize) -> u64 {
    passes.max(1) as u64 + 1
}

/// Worst-case cycles of a VALU op (no compaction: W / 16 passes): W / 16 + 1.
pub fn valu_cycles(cfg: &HwConfig) -> u64 {
    valu_cycles_for(cfg.passes())
}

/// Why a [`VectorUnit`] cannot be built.
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

/// The SIMD, its SpSIMDs and the VRF of one SIMD (see the module documentation). Vectors are
/// indexed by the (Sp)SIMD number k, source operands at `k * 3 + n`, VRF banks by lane.
#[derive(LogicBlock)]
pub struct VectorUnit {
    pub clock: Signal<In, Clock>,
    /// Issue an op to (Sp)SIMD k; accepted at the edge if `ready_o[k]` is high.
    pub issue_i: Vec<Signal<In, Bit>>,
    /// (Sp)SIMD k is idle.
    pub ready_o: Vec<Signal<Out, Bit>>,
    pub op_i: Vec<Signal<In, ValuOp>>,
    /// Destination VGPR (and d + 1 for the 64-bit shifts); unused by compares.
    pub dst_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    /// Source n of k is VGPR `src_vgpr_i[k*3+n]` (v, v + 1 for the 64-bit operand a) ...
    pub src_is_vgpr_i: Vec<Signal<In, Bit>>,
    pub src_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    /// ... or the broadcast value `src_value_i` (high word `src_value_hi_i`, read for the
    /// 64-bit operands only).
    pub src_value_i: Vec<Signal<In, Bits<32>>>,
    pub src_value_hi_i: Vec<Signal<In, Bits<32>>>,
    /// VOP3 modifiers of an f32 op (`fpu::fmod_word`: abs, neg, omod, clamp).
    pub fmod_i: Vec<Signal<In, Bits<FMOD_BITS>>>,
    /// SDWA control word (`sdwa::sdwa_word`; 0 for the other ops). Source 2 is then the
    /// destination register, whose old value UNUSED_PRESERVE keeps.
    pub sdwa_i: Vec<Signal<In, Bits<SDWA_BITS>>>,
    /// Mask input (carry-in, cndmask select), bit i = lane i.
    pub mask_in_lo_i: Vec<Signal<In, Bits<32>>>,
    pub mask_in_hi_i: Vec<Signal<In, Bits<32>>>,
    /// Lanes the op runs on: EXEC & SpM of the issuing context.
    pub en_lo_i: Vec<Signal<In, Bits<32>>>,
    pub en_hi_i: Vec<Signal<In, Bits<32>>>,
    /// High for one cycle after the op's last write.
    pub done_o: Vec<Signal<Out, Bit>>,
    /// Compare result or carry/borrow-out, 0 for lanes that did not run and for the other
    /// ops; valid with `done_o`, held until the next op of k completes.
    pub mask_lo_o: Vec<Signal<Out, Bits<32>>>,
    pub mask_hi_o: Vec<Signal<Out, Bits<32>>>,
    /// Compaction of every op's passes (held for the run).
    pub compaction_i: Signal<In, SwizzleMode>,
    /// LSU read: VGPR `lsu_rd_addr_i` of lanes 16·`lsu_rd_pass_i` + j on `lsu_rdata_o[j]`
    /// in the next cycle.
    pub lsu_rd_i: Signal<In, Bit>,
    pub lsu_rd_addr_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub lsu_rd_pass_i: Signal<In, Bits<2>>,
    /// The pass read by the last `lsu_rd_i`, as of the last edge.
    pub lsu_rdata_o: Vec<Signal<Out, Bits<32>>>,
    /// LSU write: `lsu_wdata_i[j]` to VGPR `lsu_wr_addr_i` of lane 16·`lsu_wr_pass_i` + j
    /// for each set bit j of `lsu_wr_lanes_i`, at the edge.
    pub lsu_we_i: Signal<In, Bit>,
    pub lsu_wr_addr_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub lsu_wr_pass_i: Signal<In, Bits<2>>,
    pub lsu_wr_lanes_i: Signal<In, Bits<16>>,
    pub lsu_wdata_i: Vec<Signal<In, Bits<32>>>,
    /// Dispatcher write: `init_wdata_i[j]` to VGPR `init_addr_i` of lane 16·`init_pass_i` + j
    /// at the edge (a new wavefront's registers, while the SIMD runs the others).
    pub init_we_i: Signal<In, Bit>,
    pub init_addr_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub init_pass_i: Signal<In, Bits<2>>,
    pub init_wdata_i: Vec<Signal<In, Bits<32>>>,
    /// ALU passes executed (including passes with no active lane, as mode `None` issues).
    pub stat_passes_o: Signal<Out, Bits<32>>,
    /// Passes compaction saved: W / 16 minus the passes, per op.
    pub stat_skipped_o: Signal<Out, Bits<32>>,
    /// Lane-ops executed (active ALU positions summed over passes).
    pub stat_active_o: Signal<Out, Bits<32>>,
    /// (Sp)SIMD k: the SIMD at k = 0, SpSIMD k at k = 1..S.
    pub spsimds: Vec<SpSimd>,
    pub banks: Vec<VrfBank>,
    lsu_pass: DFF<Bits<2>>,
    stat_passes: DFF<Bits<32>>,
    stat_skipped: DFF<Bits<32>>,
    stat_active: DFF<Bits<32>>,
    // Statistics summed over the (Sp)SIMDs this cycle.
    passes_acc: Signal<Local, Bits<32>>,
    skipped_acc: Signal<Local, Bits<32>>,
    active_acc: Signal<Local, Bits<32>>,
    // (Sp)SIMD k's counts, named because `bit_cast` takes no indexed path in `hdl_gen`.
    active_k: Signal<Local, Bits<5>>,
    skipped_k: Signal<Local, Bits<3>>,
    _simds: usize,
    _groups: usize,
}

impl VectorUnit {
    /// The SIMD and S SpSIMDs of one SIMD with a VRF of `vgprs_per_simd` registers per lane.
    pub fn new(cfg: &HwConfig) -> Result<Self, SimdConfigError> {
        cfg.validate().map_err(SimdConfigError::Invalid)?;
        let geometry = SimdConfigError::Geometry {
            lanes: cfg.lanes_per_simd,
            width: cfg.wavefront_width,
        };
        if cfg.lanes_per_simd != SIMD_LANES || cfg.passes() > MAX_PASSES {
            return Err(geometry);
        }
        let spsimds = (0..cfg.contexts_per_wavefront())
            .map(|_| SpSimd::new(cfg.wavefront_width))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| geometry)?;
        let simds = cfg.contexts_per_wavefront();
        let groups = cfg.passes();
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(VectorUnit {
            clock: Default::default(),
            issue_i: many(simds),
            ready_o: many(simds),
            op_i: many(simds),
            dst_i: many(simds),
            src_is_vgpr_i: many(simds * SOURCES),
            src_vgpr_i: many(simds * SOURCES),
            src_value_i: many(simds * SOURCES),
            src_value_hi_i: many(simds * SOURCES),
            fmod_i: many(simds),
            sdwa_i: many(simds),
            mask_in_lo_i: many(simds),
            mask_in_hi_i: many(simds),
            en_lo_i: many(simds),
            en_hi_i: many(simds),
            done_o: many(simds),
            mask_lo_o: many(simds),
            mask_hi_o: many(simds),
            compaction_i: Default::default(),
            lsu_rd_i: Default::default(),
            lsu_rd_addr_i: Default::default(),
            lsu_rd_pass_i: Default::default(),
            lsu_rdata_o: many(SIMD_LANES),
            lsu_we_i: Default::default(),
            lsu_wr_addr_i: Default::default(),
            lsu_wr_pass_i: Default::default(),
            lsu_wr_lanes_i: Default::default(),
            lsu_wdata_i: many(SIMD_LANES),
            init_we_i: Default::default(),
            init_addr_i: Default::default(),
            init_pass_i: Default::default(),
            init_wdata_i: many(SIMD_LANES),
            stat_passes_o: Default::default(),
            stat_skipped_o: Default::default(),
            stat_active_o: Default::default(),
            spsimds,
            banks: (0..cfg.wavefront_width)
                .map(|_| VrfBank::new(cfg.vgprs_per_simd, simds))
                .collect(),
            lsu_pass: Default::default(),
            stat_passes: Default::default(),
            stat_skipped: Default::default(),
            stat_active: Default::default(),
            passes_acc: Default::default(),
            skipped_acc: Default::default(),
            active_acc: Default::default(),
            active_k: Default::default(),
            skipped_k: Default::default(),
            _simds: simds,
            _groups: groups,
        })
    }

    /// Number of (Sp)SIMDs (S + 1).
    pub fn simds(&self) -> usize {
        self._simds
    }

    /// Wavefront width W.
    pub fn width(&self) -> usize {
        self.banks.len()
    }

    /// The mask result of (Sp)SIMD `k` as one 64-bit mask (simulation-side peek).
    pub fn mask_result(&self, k: usize) -> u64 {
        self.mask_lo_o[k].val().to_u64() | self.mask_hi_o[k].val().to_u64() << 32
    }
}

impl Logic for VectorUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lsu_pass,
            stat_passes,
            stat_skipped,
            stat_active
        );
        self.passes_acc.next = 0.into();
        self.skipped_acc.next = 0.into();
        self.active_acc.next = 0.into();

        // The VRF banks' LSU and dispatcher ports; each (Sp)SIMD drives its own port set below.
        for g in 0..self._groups {
            for j in 0..16 {
                self.banks[g * 16 + j].clock.next = self.clock.val();
                self.banks[g * 16 + j].lsu_ra.next = self.lsu_rd_addr_i.val();
                self.banks[g * 16 + j].lsu_we.next = self.lsu_we_i.val()
                    & (self.lsu_wr_pass_i.val().index() == g)
                    & self.lsu_wr_lanes_i.val().get_bit(j);
                self.banks[g * 16 + j].lsu_wa.next = self.lsu_wr_addr_i.val();
                self.banks[g * 16 + j].lsu_wd.next = self.lsu_wdata_i[j].val();
                self.banks[g * 16 + j].init_we.next =
                    self.init_we_i.val() & (self.init_pass_i.val().index() == g);
                self.banks[g * 16 + j].init_wa.next = self.init_addr_i.val();
                self.banks[g * 16 + j].init_wd.next = self.init_wdata_i[j].val();
            }
        }
        if self.lsu_rd_i.val() {
            self.lsu_pass.d.next = self.lsu_rd_pass_i.val();
        }
        for j in 0..16 {
            self.lsu_rdata_o[j].next = 0.into();
        }
        for g in 0..self._groups {
            if self.lsu_pass.q.val().index() == g {
                for j in 0..16 {
                    self.lsu_rdata_o[j].next = self.banks[g * 16 + j].lsu_rd.val();
                }
            }
        }

        // Each (Sp)SIMD's ports, and its port set k of every bank.
        for k in 0..self._simds {
            self.spsimds[k].clock.next = self.clock.val();
            self.spsimds[k].issue_i.next = self.issue_i[k].val();
            self.ready_o[k].next = self.spsimds[k].ready_o.val();
            self.spsimds[k].op_i.next = self.op_i[k].val();
            self.spsimds[k].dst_i.next = self.dst_i[k].val();
            for n in 0..3 {
                self.spsimds[k].src_is_vgpr_i[n].next = self.src_is_vgpr_i[k * 3 + n].val();
                self.spsimds[k].src_vgpr_i[n].next = self.src_vgpr_i[k * 3 + n].val();
                self.spsimds[k].src_value_i[n].next = self.src_value_i[k * 3 + n].val();
                self.spsimds[k].src_value_hi_i[n].next = self.src_value_hi_i[k * 3 + n].val();
            }
            self.spsimds[k].fmod_i.next = self.fmod_i[k].val();
            self.spsimds[k].sdwa_i.next = self.sdwa_i[k].val();
            self.spsimds[k].mask_in_lo_i.next = self.mask_in_lo_i[k].val();
            self.spsimds[k].mask_in_hi_i.next = self.mask_in_hi_i[k].val();
            self.spsimds[k].en_lo_i.next = self.en_lo_i[k].val();
            self.spsimds[k].en_hi_i.next = self.en_hi_i[k].val();
            self.spsimds[k].compaction_i.next = self.compaction_i.val();
            self.done_o[k].next = self.spsimds[k].done_o.val();
            self.mask_lo_o[k].next = self.spsimds[k].mask_lo_o.val();
            self.mask_hi_o[k].next = self.spsimds[k].mask_hi_o.val();
            for l in 0..self.banks.len() {
                self.banks[l].ra0[k].next = self.spsimds[k].ra0_o.val();
                self.banks[l].ra1[k].next = self.spsimds[k].ra1_o.val();
                self.banks[l].ra2[k].next = self.spsimds[k].ra2_o.val();
                self.banks[l].ra3[k].next = self.spsimds[k].ra3_o.val();
                self.banks[l].wa[k].next = self.spsimds[k].wa_o.val();
                self.banks[l].we[k].next = self.spsimds[k].we_o[l].val();
                self.banks[l].wd[k].next = self.spsimds[k].wd_o[l].val();
                self.banks[l].we_hi[k].next = self.spsimds[k].we_hi_o[l].val();
                self.banks[l].wd_hi[k].next = self.spsimds[k].wd_hi_o[l].val();
                self.spsimds[k].rd0_i[l].next = self.banks[l].rd0[k].val();
                self.spsimds[k].rd1_i[l].next = self.banks[l].rd1[k].val();
                self.spsimds[k].rd2_i[l].next = self.banks[l].rd2[k].val();
                self.spsimds[k].rd3_i[l].next = self.banks[l].rd3[k].val();
            }
            if self.spsimds[k].stat_pass_o.val() {
                self.passes_acc.next = self.passes_acc.val() + 1;
            }
            self.active_k.next = self.spsimds[k].stat_active_o.val();
            self.skipped_k.next = self.spsimds[k].stat_skipped_o.val();
            self.active_acc.next = self.active_acc.val() + bit_cast::<32, 5>(self.active_k.val());
            self.skipped_acc.next =
                self.skipped_acc.val() + bit_cast::<32, 3>(self.skipped_k.val());
        }
        self.stat_passes.d.next = self.stat_passes.q.val() + self.passes_acc.val();
        self.stat_skipped.d.next = self.stat_skipped.q.val() + self.skipped_acc.val();
        self.stat_active.d.next = self.stat_active.q.val() + self.active_acc.val();
        self.stat_passes_o.next = self.stat_passes.q.val();
        self.stat_skipped_o.next = self.stat_skipped.q.val();
        self.stat_active_o.next = self.stat_active.q.val();
    }
}
