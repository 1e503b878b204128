//! The vector unit of one SIMD: the SIMD and its S SpSIMDs (\[P\] §4.1, Fig 4), shared by
//! the SIMD's wavefront slots as GCN shares a SIMD's lanes among its ten, over the SIMD's
//! vector register file, with BCC/SCC compaction of each op's passes (Vaidya et al., ISCA'13)
//! and the port of the CU's load/store unit.
//!
//! [`VectorUnit`] holds (Sp)SIMD k = 0 (the SIMD, WF contexts) .. S (SpSIMD k, SWF contexts
//! k), each with 16 lanes of 32-bit integer and f32 ALU ([`LaneAlu`] with its [`LaneFpu`]) and
//! its own [`SwizzleUnit`], and the SIMD's VRF. A wavefront holds a range of the VRF's
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
mod schedule;
pub mod sdwa;
mod vrf;

pub use alu::{LaneAlu, ValuOp};
pub use crossbar::GroupCrossbar;
pub use fpu::LaneFpu;
pub use schedule::PassSchedule;
pub use sdwa::{LaneSdwa, SDWA_BITS};
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
/// indexed by the (Sp)SIMD number k; source operands at `k * 3 + n`; per-group state of k at
/// `k * 4 + g`; ALU position p of k at `k * 16 + p`; VRF banks by lane.
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
    pub schedule: Vec<PassSchedule>,
    pub alus: Vec<LaneAlu>,
    /// The SDWA stage around each ALU position (operand selects before, merge after).
    pub sdwas: Vec<LaneSdwa>,
    pub banks: Vec<VrfBank>,
    /// The operand crossbar and its inverse, per (Sp)SIMD k and lane group g at
    /// `k * groups + g`.
    pub xbars: Vec<GroupCrossbar>,
    busy: Vec<DFF<Bit>>,
    done: Vec<DFF<Bit>>,
    op: Vec<DFF<ValuOp>>,
    dst: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    fmod: Vec<DFF<Bits<FMOD_BITS>>>,
    sdwa: Vec<DFF<Bits<SDWA_BITS>>>,
    /// Bit n: source n is a VGPR.
    is_vgpr: Vec<DFF<Bits<3>>>,
    vgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    value: Vec<DFF<Bits<32>>>,
    value_hi: Vec<DFF<Bits<32>>>,
    /// Decoded at issue: operand a / b / c is a 64-bit pair, the result is a pair, the op
    /// writes a VGPR.
    wide_a: Vec<DFF<Bit>>,
    wide_b: Vec<DFF<Bit>>,
    wide_c: Vec<DFF<Bit>>,
    pair: Vec<DFF<Bit>>,
    writes: Vec<DFF<Bit>>,
    mask_in: Vec<DFF<Bits<16>>>,
    mask_out: Vec<DFF<Bits<16>>>,
    /// The mask result of the last completed op (packed at retirement: shifts are slow to
    /// simulate, so the output words are not rebuilt every cycle).
    mask_lo: Vec<DFF<Bits<32>>>,
    mask_hi: Vec<DFF<Bits<32>>>,
    lsu_pass: DFF<Bits<2>>,
    stat_passes: DFF<Bits<32>>,
    stat_skipped: DFF<Bits<32>>,
    stat_active: DFF<Bits<32>>,
    // Per (Sp)SIMD, reused in each iteration of its loop: the op is accepted now; the lanes
    // whose banks it addresses and the three read addresses; the pass runs lanes 16·g + p in
    // place; the mask result being assembled.
    accept: Signal<Local, Bit>,
    wide_in: Signal<Local, Bit>,
    wide_b_in: Signal<Local, Bit>,
    wide_c_in: Signal<Local, Bit>,
    is_vgpr_in: Signal<Local, Bits<3>>,
    en_in: Vec<Signal<Local, Bits<16>>>,
    ra0: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    ra1: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    ra2: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    ra3: Signal<Local, Bits<VGPR_ADDR_BITS>>,
    /// Crossbar input of each ALU position in a swizzled pass.
    lane: Vec<Signal<Local, Bits<4>>>,
    group: Vec<Signal<Local, Bits<2>>>,
    /// The pass runs in place (position p executes lane p of the pass's group).
    direct: Signal<Local, Bit>,
    /// Bit p of `take[g]`: position p executes a lane of group g in this swizzled pass.
    take: Vec<Signal<Local, Bits<16>>>,
    /// The ALU positions' flags, and the crossbars' outputs ORed over the groups.
    flags: Signal<Local, Bits<16>>,
    xmask: Signal<Local, Bits<16>>,
    x0: Vec<Signal<Local, Bits<32>>>,
    x1: Vec<Signal<Local, Bits<32>>>,
    x2: Vec<Signal<Local, Bits<32>>>,
    x3: Vec<Signal<Local, Bits<32>>>,
    mo: Vec<Signal<Local, Bits<16>>>,
    mo_lo: Signal<Local, Bits<16>>,
    mo_hi: Signal<Local, Bits<16>>,
    passes: Signal<Local, Bits<3>>,
    // Statistics summed over the (Sp)SIMDs this cycle.
    passes_acc: Signal<Local, Bits<32>>,
    skipped_acc: Signal<Local, Bits<32>>,
    active_acc: Signal<Local, Bits<32>>,
    /// 0xFFFF for the lane groups the wavefront has, 0 for the others.
    group_mask: Vec<Constant<Bits<16>>>,
    groups32: Constant<Bits<32>>,
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
        let schedule = (0..cfg.contexts_per_wavefront())
            .map(|_| PassSchedule::new(cfg.wavefront_width))
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
            schedule,
            alus: many(simds * SIMD_LANES),
            sdwas: many(simds * SIMD_LANES),
            banks: (0..cfg.wavefront_width)
                .map(|_| VrfBank::new(cfg.vgprs_per_simd, simds))
                .collect(),
            xbars: many(simds * groups),
            busy: many(simds),
            done: many(simds),
            op: many(simds),
            dst: many(simds),
            fmod: many(simds),
            sdwa: many(simds),
            is_vgpr: many(simds),
            vgpr: many(simds * SOURCES),
            value: many(simds * SOURCES),
            value_hi: many(simds * SOURCES),
            wide_a: many(simds),
            wide_b: many(simds),
            wide_c: many(simds),
            pair: many(simds),
            writes: many(simds),
            mask_in: many(simds * MAX_PASSES),
            mask_out: many(simds * MAX_PASSES),
            mask_lo: many(simds),
            mask_hi: many(simds),
            lsu_pass: Default::default(),
            stat_passes: Default::default(),
            stat_skipped: Default::default(),
            stat_active: Default::default(),
            accept: Default::default(),
            wide_in: Default::default(),
            wide_b_in: Default::default(),
            wide_c_in: Default::default(),
            is_vgpr_in: Default::default(),
            en_in: many(MAX_PASSES),
            ra0: Default::default(),
            ra1: Default::default(),
            ra2: Default::default(),
            ra3: Default::default(),
            lane: many(SIMD_LANES),
            group: many(SIMD_LANES),
            direct: Default::default(),
            take: many(MAX_PASSES),
            flags: Default::default(),
            xmask: Default::default(),
            x0: many(SIMD_LANES),
            x1: many(SIMD_LANES),
            x2: many(SIMD_LANES),
            x3: many(SIMD_LANES),
            mo: many(MAX_PASSES),
            mo_lo: Default::default(),
            mo_hi: Default::default(),
            passes: Default::default(),
            passes_acc: Default::default(),
            skipped_acc: Default::default(),
            active_acc: Default::default(),
            group_mask: (0..MAX_PASSES)
                .map(|g| Constant::new(if g < groups { 0xFFFFu64 } else { 0 }.to_bits()))
                .collect(),
            groups32: Constant::new((groups as u64).to_bits()),
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
        // Defaults for the retire path's scratch words, so the Verilog infers no latch.
        self.mo_lo.next = 0.into();
        self.mo_hi.next = 0.into();
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

        for k in 0..self._simds {
            self.busy[k].clock.next = self.clock.val();
            self.done[k].clock.next = self.clock.val();
            self.op[k].clock.next = self.clock.val();
            self.dst[k].clock.next = self.clock.val();
            self.fmod[k].clock.next = self.clock.val();
            self.sdwa[k].clock.next = self.clock.val();
            self.is_vgpr[k].clock.next = self.clock.val();
            self.wide_a[k].clock.next = self.clock.val();
            self.wide_b[k].clock.next = self.clock.val();
            self.wide_c[k].clock.next = self.clock.val();
            self.pair[k].clock.next = self.clock.val();
            self.mask_lo[k].clock.next = self.clock.val();
            self.mask_hi[k].clock.next = self.clock.val();
            self.mask_lo[k].d.next = self.mask_lo[k].q.val();
            self.mask_hi[k].d.next = self.mask_hi[k].q.val();
            self.writes[k].clock.next = self.clock.val();
            self.busy[k].d.next = self.busy[k].q.val();
            self.done[k].d.next = false;
            self.op[k].d.next = self.op[k].q.val();
            self.dst[k].d.next = self.dst[k].q.val();
            self.fmod[k].d.next = self.fmod[k].q.val();
            self.sdwa[k].d.next = self.sdwa[k].q.val();
            self.is_vgpr[k].d.next = self.is_vgpr[k].q.val();
            self.wide_a[k].d.next = self.wide_a[k].q.val();
            self.wide_b[k].d.next = self.wide_b[k].q.val();
            self.wide_c[k].d.next = self.wide_c[k].q.val();
            self.pair[k].d.next = self.pair[k].q.val();
            self.writes[k].d.next = self.writes[k].q.val();
            for n in 0..3 {
                self.vgpr[k * 3 + n].clock.next = self.clock.val();
                self.value[k * 3 + n].clock.next = self.clock.val();
                self.value_hi[k * 3 + n].clock.next = self.clock.val();
                self.vgpr[k * 3 + n].d.next = self.vgpr[k * 3 + n].q.val();
                self.value[k * 3 + n].d.next = self.value[k * 3 + n].q.val();
                self.value_hi[k * 3 + n].d.next = self.value_hi[k * 3 + n].q.val();
            }
            for g in 0..4 {
                self.mask_in[k * 4 + g].clock.next = self.clock.val();
                self.mask_out[k * 4 + g].clock.next = self.clock.val();
                self.mask_in[k * 4 + g].d.next = self.mask_in[k * 4 + g].q.val();
                self.mo[g].next = self.mask_out[k * 4 + g].q.val();
            }

            self.wide_in.next = false;
            self.wide_b_in.next = false;
            self.wide_c_in.next = false;
            self.is_vgpr_in.next = 0.into();
            self.passes.next = 0.into();

            // Issue: the swizzle unit latches the enable mask at the same edge.
            self.schedule[k].clock.next = self.clock.val();
            self.schedule[k].mode_i.next = self.compaction_i.val();
            self.ready_o[k].next = !self.busy[k].q.val() & self.schedule[k].ready_o.val();
            self.accept.next = self.issue_i[k].val() & self.ready_o[k].val();
            self.schedule[k].start_i.next = self.accept.val();
            self.done_o[k].next = self.done[k].q.val();
            self.mask_lo_o[k].next = self.mask_lo[k].q.val();
            self.mask_hi_o[k].next = self.mask_hi[k].q.val();

            // Port k of every bank: k's op's read addresses from the issue cycle to the last
            // pass (the banks of lanes the op does not run are read and ignored).
            for g in 0..4 {
                self.en_in[g].next = 0.into();
            }
            self.schedule[k].mask0_i.next = 0.into();
            self.schedule[k].mask1_i.next = 0.into();
            self.schedule[k].mask2_i.next = 0.into();
            self.schedule[k].mask3_i.next = 0.into();
            self.ra0.next = self.vgpr[k * 3].q.val();
            self.ra1.next = self.vgpr[k * 3 + 1].q.val();
            self.ra2.next = self.vgpr[k * 3 + 2].q.val();
            if self.wide_a[k].q.val() {
                self.ra2.next = self.vgpr[k * 3].q.val() + 1;
            }
            self.ra3.next = self.vgpr[k * 3 + 2].q.val() + 1;
            if self.wide_b[k].q.val() {
                self.ra3.next = self.vgpr[k * 3 + 1].q.val() + 1;
            }
            if self.accept.val() {
                self.busy[k].d.next = true;
                self.op[k].d.next = self.op_i[k].val();
                self.dst[k].d.next = self.dst_i[k].val();
                self.fmod[k].d.next = self.fmod_i[k].val();
                self.sdwa[k].d.next = self.sdwa_i[k].val();
                // The 64-bit operand pairs and results (`ValuOp::is_wide` and its siblings).
                self.wide_b_in.next = (self.op_i[k].val() == ValuOp::CmpEq64)
                    | (self.op_i[k].val() == ValuOp::CmpNe64)
                    | (self.op_i[k].val() == ValuOp::CmpLtU64)
                    | (self.op_i[k].val() == ValuOp::CmpLeU64)
                    | (self.op_i[k].val() == ValuOp::CmpGtU64)
                    | (self.op_i[k].val() == ValuOp::CmpGeU64)
                    | (self.op_i[k].val() == ValuOp::CmpLtI64)
                    | (self.op_i[k].val() == ValuOp::CmpLeI64)
                    | (self.op_i[k].val() == ValuOp::CmpGtI64)
                    | (self.op_i[k].val() == ValuOp::CmpGeI64);
                self.wide_c_in.next =
                    (self.op_i[k].val() == ValuOp::MadU64) | (self.op_i[k].val() == ValuOp::MadI64);
                self.wide_in.next = (self.op_i[k].val() == ValuOp::Shl64)
                    | (self.op_i[k].val() == ValuOp::Shr64)
                    | (self.op_i[k].val() == ValuOp::Ashr64)
                    | self.wide_b_in.val();
                self.wide_a[k].d.next = self.wide_in.val();
                self.wide_b[k].d.next = self.wide_b_in.val();
                self.wide_c[k].d.next = self.wide_c_in.val();
                self.pair[k].d.next = (self.op_i[k].val() == ValuOp::Shl64)
                    | (self.op_i[k].val() == ValuOp::Shr64)
                    | (self.op_i[k].val() == ValuOp::Ashr64)
                    | self.wide_c_in.val();
                self.writes[k].d.next = !((self.op_i[k].val() == ValuOp::CmpEq)
                    | (self.op_i[k].val() == ValuOp::CmpNe)
                    | (self.op_i[k].val() == ValuOp::CmpLtU)
                    | (self.op_i[k].val() == ValuOp::CmpLeU)
                    | (self.op_i[k].val() == ValuOp::CmpGtU)
                    | (self.op_i[k].val() == ValuOp::CmpGeU)
                    | (self.op_i[k].val() == ValuOp::CmpLtI)
                    | (self.op_i[k].val() == ValuOp::CmpLeI)
                    | (self.op_i[k].val() == ValuOp::CmpGtI)
                    | (self.op_i[k].val() == ValuOp::CmpGeI)
                    | (self.op_i[k].val() == ValuOp::CmpFalseF)
                    | (self.op_i[k].val() == ValuOp::CmpLtF)
                    | (self.op_i[k].val() == ValuOp::CmpEqF)
                    | (self.op_i[k].val() == ValuOp::CmpLeF)
                    | (self.op_i[k].val() == ValuOp::CmpGtF)
                    | (self.op_i[k].val() == ValuOp::CmpLgF)
                    | (self.op_i[k].val() == ValuOp::CmpGeF)
                    | (self.op_i[k].val() == ValuOp::CmpOF)
                    | (self.op_i[k].val() == ValuOp::CmpUF)
                    | (self.op_i[k].val() == ValuOp::CmpNgeF)
                    | (self.op_i[k].val() == ValuOp::CmpNlgF)
                    | (self.op_i[k].val() == ValuOp::CmpNgtF)
                    | (self.op_i[k].val() == ValuOp::CmpNleF)
                    | (self.op_i[k].val() == ValuOp::CmpNeqF)
                    | (self.op_i[k].val() == ValuOp::CmpNltF)
                    | (self.op_i[k].val() == ValuOp::CmpTrueF)
                    | (self.op_i[k].val() == ValuOp::CmpClassF)
                    | self.wide_b_in.val());
                for n in 0..3 {
                    self.is_vgpr_in.next = self
                        .is_vgpr_in
                        .val()
                        .replace_bit(n, self.src_is_vgpr_i[k * 3 + n].val());
                    self.vgpr[k * 3 + n].d.next = self.src_vgpr_i[k * 3 + n].val();
                    self.value[k * 3 + n].d.next = self.src_value_i[k * 3 + n].val();
                    self.value_hi[k * 3 + n].d.next = self.src_value_hi_i[k * 3 + n].val();
                }
                self.is_vgpr[k].d.next = self.is_vgpr_in.val();
                self.en_in[0].next =
                    self.en_lo_i[k].val().get_bits::<16>(0) & self.group_mask[0].val();
                self.en_in[1].next =
                    self.en_lo_i[k].val().get_bits::<16>(16) & self.group_mask[1].val();
                self.en_in[2].next =
                    self.en_hi_i[k].val().get_bits::<16>(0) & self.group_mask[2].val();
                self.en_in[3].next =
                    self.en_hi_i[k].val().get_bits::<16>(16) & self.group_mask[3].val();
                self.mask_in[k * 4].d.next = self.mask_in_lo_i[k].val().get_bits::<16>(0);
                self.mask_in[k * 4 + 1].d.next = self.mask_in_lo_i[k].val().get_bits::<16>(16);
                self.mask_in[k * 4 + 2].d.next = self.mask_in_hi_i[k].val().get_bits::<16>(0);
                self.mask_in[k * 4 + 3].d.next = self.mask_in_hi_i[k].val().get_bits::<16>(16);
                for g in 0..4 {
                    self.mo[g].next = 0.into();
                }
                self.schedule[k].mask0_i.next = self.en_in[0].val();
                self.schedule[k].mask1_i.next = self.en_in[1].val();
                self.schedule[k].mask2_i.next = self.en_in[2].val();
                self.schedule[k].mask3_i.next = self.en_in[3].val();
                self.ra0.next = self.src_vgpr_i[k * 3].val();
                self.ra1.next = self.src_vgpr_i[k * 3 + 1].val();
                self.ra2.next = self.src_vgpr_i[k * 3 + 2].val();
                if self.wide_in.val() {
                    self.ra2.next = self.src_vgpr_i[k * 3].val() + 1;
                }
                self.ra3.next = self.src_vgpr_i[k * 3 + 2].val() + 1;
                if self.wide_b_in.val() {
                    self.ra3.next = self.src_vgpr_i[k * 3 + 1].val() + 1;
                }
            }
            for g in 0..self._groups {
                for j in 0..16 {
                    self.banks[g * 16 + j].ra0[k].next = self.ra0.val();
                    self.banks[g * 16 + j].ra1[k].next = self.ra1.val();
                    self.banks[g * 16 + j].ra2[k].next = self.ra2.val();
                    self.banks[g * 16 + j].ra3[k].next = self.ra3.val();
                    self.banks[g * 16 + j].we[k].next = false;
                    self.banks[g * 16 + j].wa[k].next = self.dst[k].q.val();
                    self.banks[g * 16 + j].wd[k].next = 0.into();
                    self.banks[g * 16 + j].we_hi[k].next = false;
                    self.banks[g * 16 + j].wd_hi[k].next = 0.into();
                }
            }

            // Execute: ALU position p runs the lane the swizzle unit's pass gives it. A pass in
            // place (every pass of `None` and BCC) connects position p to lane p of the pass's
            // group directly. In a swizzled pass position p takes its lane from group g when
            // `take[g]` has bit p; the group crossbars give 0 to the positions that take
            // nothing from them, so ORing them is the shared bus.
            self.direct.next = false;
            for g in 0..4 {
                self.take[g].next = 0.into();
            }
            for p in 0..16 {
                self.lane[p].next = 0.into();
                self.group[p].next = 0.into();
            }
            if self.busy[k].q.val() & self.schedule[k].pass_valid_o.val() {
                self.passes_acc.next = self.passes_acc.val() + 1;
                for p in 0..16 {
                    if self.schedule[k].active_o.val().get_bit(p) {
                        self.active_acc.next = self.active_acc.val() + 1;
                    }
                }
                if self.schedule[k].in_place_o.val() {
                    self.direct.next = true;
                } else {
                    for p in 0..8 {
                        for b in 0..4 {
                            self.lane[p].next = self.lane[p].val().replace_bit(
                                b,
                                self.schedule[k].lanes_lo_o.val().get_bit(4 * p + b),
                            );
                            self.lane[p + 8].next = self.lane[p + 8].val().replace_bit(
                                b,
                                self.schedule[k].lanes_hi_o.val().get_bit(4 * p + b),
                            );
                        }
                    }
                    for p in 0..16 {
                        for b in 0..2 {
                            self.group[p].next = self.group[p]
                                .val()
                                .replace_bit(b, self.schedule[k].groups_o.val().get_bit(2 * p + b));
                        }
                        for g in 0..self._groups {
                            if self.group[p].val().index() == g {
                                self.take[g].next = self.take[g]
                                    .val()
                                    .replace_bit(p, self.schedule[k].active_o.val().get_bit(p));
                            }
                        }
                    }
                }
            }
            self.flags.next = 0.into();
            for p in 0..16 {
                self.flags.next = self
                    .flags
                    .val()
                    .replace_bit(p, self.alus[k * 16 + p].flag.val());
            }
            for g in 0..self._groups {
                self.xbars[k * self._groups + g].take_i.next = self.take[g].val();
                self.xbars[k * self._groups + g].mask_i.next = self.mask_in[k * 4 + g].q.val();
                self.xbars[k * self._groups + g].flag_i.next = self.flags.val();
                // A group no position takes from this pass sees zeros, so its crossbar stays
                // quiet in simulation while other (Sp)SIMDs use the banks.
                if self.take[g].val().any() {
                    for j in 0..16 {
                        self.xbars[k * self._groups + g].lane_i[j].next = self.lane[j].val();
                        self.xbars[k * self._groups + g].rd0_i[j].next =
                            self.banks[g * 16 + j].rd0[k].val();
                        self.xbars[k * self._groups + g].rd1_i[j].next =
                            self.banks[g * 16 + j].rd1[k].val();
                        self.xbars[k * self._groups + g].rd2_i[j].next =
                            self.banks[g * 16 + j].rd2[k].val();
                        self.xbars[k * self._groups + g].rd3_i[j].next =
                            self.banks[g * 16 + j].rd3[k].val();
                        self.xbars[k * self._groups + g].wd_i[j].next =
                            self.sdwas[k * 16 + j].d_o.val();
                        self.xbars[k * self._groups + g].wd_hi_i[j].next =
                            self.alus[k * 16 + j].result_hi.val();
                    }
                } else {
                    for j in 0..16 {
                        self.xbars[k * self._groups + g].lane_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].rd0_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].rd1_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].rd2_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].rd3_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].wd_i[j].next = 0.into();
                        self.xbars[k * self._groups + g].wd_hi_i[j].next = 0.into();
                    }
                }
            }
            self.xmask.next = 0.into();
            for p in 0..16 {
                self.x0[p].next = 0.into();
                self.x1[p].next = 0.into();
                self.x2[p].next = 0.into();
                self.x3[p].next = 0.into();
            }
            for g in 0..self._groups {
                self.xmask.next = self.xmask.val() | self.xbars[k * self._groups + g].mask_o.val();
            }
            for g in 0..self._groups {
                if self.take[g].val().any() {
                    for p in 0..16 {
                        self.x0[p].next =
                            self.x0[p].val() | self.xbars[k * self._groups + g].rd0_o[p].val();
                        self.x1[p].next =
                            self.x1[p].val() | self.xbars[k * self._groups + g].rd1_o[p].val();
                        self.x2[p].next =
                            self.x2[p].val() | self.xbars[k * self._groups + g].rd2_o[p].val();
                        self.x3[p].next =
                            self.x3[p].val() | self.xbars[k * self._groups + g].rd3_o[p].val();
                    }
                }
            }
            if self.direct.val() {
                for g in 0..self._groups {
                    if self.schedule[k].group_o.val().index() == g {
                        self.xmask.next = self.mask_in[k * 4 + g].q.val();
                        for p in 0..16 {
                            self.x0[p].next = self.banks[g * 16 + p].rd0[k].val();
                            self.x1[p].next = self.banks[g * 16 + p].rd1[k].val();
                            self.x2[p].next = self.banks[g * 16 + p].rd2[k].val();
                            self.x3[p].next = self.banks[g * 16 + p].rd3[k].val();
                        }
                    }
                }
            }
            // Operands: a VGPR through the crossbar (a's high word on read port 2, b's and c's
            // on port 3), or the broadcast value.
            for p in 0..16 {
                self.alus[k * 16 + p].op.next = self.op[k].q.val();
                self.alus[k * 16 + p].fmod.next = self.fmod[k].q.val();
                self.alus[k * 16 + p].m.next = self.xmask.val().get_bit(p);
                self.sdwas[k * 16 + p].a.next = self.value[k * 3].q.val();
                self.alus[k * 16 + p].a_hi.next = self.value_hi[k * 3].q.val();
                self.sdwas[k * 16 + p].b.next = self.value[k * 3 + 1].q.val();
                self.alus[k * 16 + p].b_hi.next = self.value_hi[k * 3 + 1].q.val();
                self.alus[k * 16 + p].c.next = self.value[k * 3 + 2].q.val();
                self.alus[k * 16 + p].c_hi.next = self.value_hi[k * 3 + 2].q.val();
                if self.is_vgpr[k].q.val().get_bit(0) {
                    self.sdwas[k * 16 + p].a.next = self.x0[p].val();
                    self.alus[k * 16 + p].a_hi.next = self.x2[p].val();
                }
                if self.is_vgpr[k].q.val().get_bit(1) {
                    self.sdwas[k * 16 + p].b.next = self.x1[p].val();
                    self.alus[k * 16 + p].b_hi.next = self.x3[p].val();
                }
                if self.is_vgpr[k].q.val().get_bit(2) {
                    self.alus[k * 16 + p].c.next = self.x2[p].val();
                    self.alus[k * 16 + p].c_hi.next = self.x3[p].val();
                }
            }
            // Write-back, directly or through the inverse crossbar: each lane that executed
            // gets its position's flag and, if the op writes a VGPR, its result words.
            if self.direct.val() {
                for g in 0..self._groups {
                    if self.schedule[k].group_o.val().index() == g {
                        self.mo[g].next = (self.mo[g].val() & !self.schedule[k].active_o.val())
                            | (self.flags.val() & self.schedule[k].active_o.val());
                        if self.writes[k].q.val() {
                            for p in 0..16 {
                                if self.schedule[k].active_o.val().get_bit(p) {
                                    self.banks[g * 16 + p].we[k].next = true;
                                    self.banks[g * 16 + p].wd[k].next =
                                        self.sdwas[k * 16 + p].d_o.val();
                                    self.banks[g * 16 + p].we_hi[k].next = self.pair[k].q.val();
                                    self.banks[g * 16 + p].wd_hi[k].next =
                                        self.alus[k * 16 + p].result_hi.val();
                                }
                            }
                        }
                    }
                }
            }
            for g in 0..self._groups {
                self.mo[g].next = (self.mo[g].val() & !self.xbars[k * self._groups + g].we_o.val())
                    | self.xbars[k * self._groups + g].flag_o.val();
                if self.writes[k].q.val() & self.xbars[k * self._groups + g].we_o.val().any() {
                    for j in 0..16 {
                        if self.xbars[k * self._groups + g].we_o.val().get_bit(j) {
                            self.banks[g * 16 + j].we[k].next = true;
                            self.banks[g * 16 + j].wd[k].next =
                                self.xbars[k * self._groups + g].wd_o[j].val();
                            self.banks[g * 16 + j].we_hi[k].next = self.pair[k].q.val();
                            self.banks[g * 16 + j].wd_hi[k].next =
                                self.xbars[k * self._groups + g].wd_hi_o[j].val();
                        }
                    }
                }
            }
            // The SDWA stage between the operands and the ALU, and after it (source 2, the
            // destination's old value for an SDWA op, is what UNUSED_PRESERVE keeps).
            for p in 0..16 {
                self.sdwas[k * 16 + p].ctrl.next = self.sdwa[k].q.val();
                self.sdwas[k * 16 + p].old.next = self.alus[k * 16 + p].c.val();
                self.sdwas[k * 16 + p].result.next = self.alus[k * 16 + p].result.val();
                self.alus[k * 16 + p].a.next = self.sdwas[k * 16 + p].a_o.val();
                self.alus[k * 16 + p].b.next = self.sdwas[k * 16 + p].b_o.val();
            }
            for g in 0..4 {
                self.mask_out[k * 4 + g].d.next = self.mo[g].val();
            }

            // The last pass (or the empty schedule) retires the op.
            if self.busy[k].q.val() & self.schedule[k].done_o.val() {
                self.busy[k].d.next = false;
                self.done[k].d.next = true;
                self.passes.next = self.schedule[k].passes_o.val();
                self.skipped_acc.next = self.skipped_acc.val() + self.groups32.val()
                    - bit_cast::<32, 3>(self.passes.val());
                self.mo_lo.next = self.mo[0].val();
                self.mo_hi.next = self.mo[1].val();
                self.mask_lo[k].d.next = (bit_cast::<32, 16>(self.mo_hi.val()) << 16)
                    | bit_cast::<32, 16>(self.mo_lo.val());
                self.mo_lo.next = self.mo[2].val();
                self.mo_hi.next = self.mo[3].val();
                self.mask_hi[k].d.next = (bit_cast::<32, 16>(self.mo_hi.val()) << 16)
                    | bit_cast::<32, 16>(self.mo_lo.val());
            }
        }
        self.stat_passes.d.next = self.stat_passes.q.val() + self.passes_acc.val();
        self.stat_skipped.d.next = self.stat_skipped.q.val() + self.skipped_acc.val();
        self.stat_active.d.next = self.stat_active.q.val() + self.active_acc.val();
        self.stat_passes_o.next = self.stat_passes.q.val();
        self.stat_skipped_o.next = self.stat_skipped.q.val();
        self.stat_active_o.next = self.stat_active.q.val();
    }
}
