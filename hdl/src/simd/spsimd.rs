//! One (Sp)SIMD of a vector unit: the op it runs, its pass schedule, its 16 lanes and its
//! operand crossbars (\[P\] §4.1, Fig 4). The SIMD (k = 0, WF contexts) and each SpSIMD
//! (k = 1..S, SWF contexts) are the same hardware, so the vector unit instantiates this block
//! S + 1 times instead of unrolling a loop over k into its own module.
//!
//! The block owns port set k of every VRF bank: it drives the four read addresses (the same
//! for every bank) from the issue cycle to the op's last pass and, per lane, the write port,
//! and it receives every lane's four read words. Timing, compaction and the crossbar are as
//! the vector unit's documentation describes them.

use rust_hdl::prelude::*;

use super::fpu::FMOD_BITS;
use super::{GroupCrossbar, LaneAlu, LaneSdwa, PassSchedule, ValuOp, SDWA_BITS, SIMD_LANES};
use crate::config::VGPR_ADDR_BITS;
use crate::swizzle::{SwizzleConfigError, SwizzleMode};

/// (Sp)SIMD k: see the module documentation. Per-lane VRF ports are indexed by lane
/// (`16·g + j` for lane j of group g), per-source inputs by the source n = 0, 1, 2 (a, b, c).
#[derive(LogicBlock)]
pub struct SpSimd {
    pub clock: Signal<In, Clock>,
    /// Issue an op; accepted at the edge if `ready_o` is high.
    pub issue_i: Signal<In, Bit>,
    pub ready_o: Signal<Out, Bit>,
    pub op_i: Signal<In, ValuOp>,
    pub dst_i: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub src_is_vgpr_i: Vec<Signal<In, Bit>>,
    pub src_vgpr_i: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub src_value_i: Vec<Signal<In, Bits<32>>>,
    pub src_value_hi_i: Vec<Signal<In, Bits<32>>>,
    pub fmod_i: Signal<In, Bits<FMOD_BITS>>,
    pub sdwa_i: Signal<In, Bits<SDWA_BITS>>,
    pub mask_in_lo_i: Signal<In, Bits<32>>,
    pub mask_in_hi_i: Signal<In, Bits<32>>,
    pub en_lo_i: Signal<In, Bits<32>>,
    pub en_hi_i: Signal<In, Bits<32>>,
    pub compaction_i: Signal<In, SwizzleMode>,
    /// High for one cycle after the op's last write, with the op's mask result.
    pub done_o: Signal<Out, Bit>,
    pub mask_lo_o: Signal<Out, Bits<32>>,
    pub mask_hi_o: Signal<Out, Bits<32>>,
    /// Port set k of every bank: the read addresses (a, b, c, and the high word of a 64-bit
    /// operand) and the write address ...
    pub ra0_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub ra1_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub ra2_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub ra3_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub wa_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// ... each lane's read words ...
    pub rd0_i: Vec<Signal<In, Bits<32>>>,
    pub rd1_i: Vec<Signal<In, Bits<32>>>,
    pub rd2_i: Vec<Signal<In, Bits<32>>>,
    pub rd3_i: Vec<Signal<In, Bits<32>>>,
    /// ... and each lane's write, with the high word of a 64-bit result to `wa_o` + 1.
    pub we_o: Vec<Signal<Out, Bit>>,
    pub wd_o: Vec<Signal<Out, Bits<32>>>,
    pub we_hi_o: Vec<Signal<Out, Bit>>,
    pub wd_hi_o: Vec<Signal<Out, Bits<32>>>,
    /// This cycle: a pass executed; its active ALU positions; at retirement, the passes
    /// compaction saved (W / 16 minus the op's passes).
    pub stat_pass_o: Signal<Out, Bit>,
    pub stat_active_o: Signal<Out, Bits<5>>,
    pub stat_skipped_o: Signal<Out, Bits<3>>,
    pub schedule: PassSchedule,
    pub alus: Vec<LaneAlu>,
    /// The SDWA stage around each ALU position (operand selects before, merge after).
    pub sdwas: Vec<LaneSdwa>,
    /// The operand crossbar and its inverse, per lane group.
    pub xbars: Vec<GroupCrossbar>,
    busy: DFF<Bit>,
    done: DFF<Bit>,
    op: DFF<ValuOp>,
    dst: DFF<Bits<VGPR_ADDR_BITS>>,
    fmod: DFF<Bits<FMOD_BITS>>,
    sdwa: DFF<Bits<SDWA_BITS>>,
    /// Bit n: source n is a VGPR.
    is_vgpr: DFF<Bits<3>>,
    vgpr: Vec<DFF<Bits<VGPR_ADDR_BITS>>>,
    value: Vec<DFF<Bits<32>>>,
    value_hi: Vec<DFF<Bits<32>>>,
    /// Decoded at issue: operand a / b / c is a 64-bit pair, the result is a pair, the op
    /// writes a VGPR.
    wide_a: DFF<Bit>,
    wide_b: DFF<Bit>,
    wide_c: DFF<Bit>,
    pair: DFF<Bit>,
    writes: DFF<Bit>,
    /// Per lane group: the op's mask input, and its mask result being assembled.
    mask_in: Vec<DFF<Bits<16>>>,
    mask_out: Vec<DFF<Bits<16>>>,
    /// The mask result of the last completed op (packed at retirement: shifts are slow to
    /// simulate, so the output words are not rebuilt every cycle).
    mask_lo: DFF<Bits<32>>,
    mask_hi: DFF<Bits<32>>,
    /// `ValuOp::ReadLane`: the value of the one lane it runs, returned as its mask result.
    lane_val: DFF<Bits<32>>,
    lv: Signal<Local, Bits<32>>,
    // The op is accepted now; its 64-bit operands as decoded from `op_i`; the enabled lanes
    // of each group.
    accept: Signal<Local, Bit>,
    wide_in: Signal<Local, Bit>,
    wide_b_in: Signal<Local, Bit>,
    wide_c_in: Signal<Local, Bit>,
    is_vgpr_in: Signal<Local, Bits<3>>,
    en_in: Vec<Signal<Local, Bits<16>>>,
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
    /// 0xFFFF for the lane groups the wavefront has, 0 for the others.
    group_mask: Vec<Constant<Bits<16>>>,
    groups: Constant<Bits<3>>,
    _groups: usize,
}

impl SpSimd {
    /// A (Sp)SIMD for wavefronts of `width` lanes (16, 32 or 64) on 16 ALU positions.
    pub fn new(width: usize) -> Result<Self, SwizzleConfigError> {
        let groups = width / SIMD_LANES;
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        Ok(SpSimd {
            clock: Default::default(),
            issue_i: Default::default(),
            ready_o: Default::default(),
            op_i: Default::default(),
            dst_i: Default::default(),
            src_is_vgpr_i: many(3),
            src_vgpr_i: many(3),
            src_value_i: many(3),
            src_value_hi_i: many(3),
            fmod_i: Default::default(),
            sdwa_i: Default::default(),
            mask_in_lo_i: Default::default(),
            mask_in_hi_i: Default::default(),
            en_lo_i: Default::default(),
            en_hi_i: Default::default(),
            compaction_i: Default::default(),
            done_o: Default::default(),
            mask_lo_o: Default::default(),
            mask_hi_o: Default::default(),
            ra0_o: Default::default(),
            ra1_o: Default::default(),
            ra2_o: Default::default(),
            ra3_o: Default::default(),
            wa_o: Default::default(),
            rd0_i: many(width),
            rd1_i: many(width),
            rd2_i: many(width),
            rd3_i: many(width),
            we_o: many(width),
            wd_o: many(width),
            we_hi_o: many(width),
            wd_hi_o: many(width),
            stat_pass_o: Default::default(),
            stat_active_o: Default::default(),
            stat_skipped_o: Default::default(),
            schedule: PassSchedule::new(width)?,
            alus: many(SIMD_LANES),
            sdwas: many(SIMD_LANES),
            xbars: many(groups),
            busy: Default::default(),
            done: Default::default(),
            op: Default::default(),
            dst: Default::default(),
            fmod: Default::default(),
            sdwa: Default::default(),
            is_vgpr: Default::default(),
            vgpr: many(3),
            value: many(3),
            value_hi: many(3),
            wide_a: Default::default(),
            wide_b: Default::default(),
            wide_c: Default::default(),
            pair: Default::default(),
            writes: Default::default(),
            mask_in: many(4),
            mask_out: many(4),
            mask_lo: Default::default(),
            lane_val: Default::default(),
            lv: Default::default(),
            mask_hi: Default::default(),
            accept: Default::default(),
            wide_in: Default::default(),
            wide_b_in: Default::default(),
            wide_c_in: Default::default(),
            is_vgpr_in: Default::default(),
            en_in: many(4),
            lane: many(SIMD_LANES),
            group: many(SIMD_LANES),
            direct: Default::default(),
            take: many(4),
            flags: Default::default(),
            xmask: Default::default(),
            x0: many(SIMD_LANES),
            x1: many(SIMD_LANES),
            x2: many(SIMD_LANES),
            x3: many(SIMD_LANES),
            mo: many(4),
            mo_lo: Default::default(),
            mo_hi: Default::default(),
            group_mask: (0..4)
                .map(|g| Constant::new(if g < groups { 0xFFFFu64 } else { 0 }.to_bits()))
                .collect(),
            groups: Constant::new((groups as u64).to_bits()),
            _groups: groups,
        })
    }
}

impl Logic for SpSimd {
    #[hdl_gen]
    fn update(&mut self) {
        // Defaults for the retire path's scratch words, so the Verilog infers no latch.
        self.mo_lo.next = 0.into();
        self.mo_hi.next = 0.into();
        dff_setup!(
            self, clock, busy, done, op, dst, fmod, sdwa, is_vgpr, wide_a, wide_b, wide_c, pair,
            writes, mask_lo, mask_hi, lane_val
        );
        self.done.d.next = false;
        for n in 0..3 {
            self.vgpr[n].clock.next = self.clock.val();
            self.value[n].clock.next = self.clock.val();
            self.value_hi[n].clock.next = self.clock.val();
            self.vgpr[n].d.next = self.vgpr[n].q.val();
            self.value[n].d.next = self.value[n].q.val();
            self.value_hi[n].d.next = self.value_hi[n].q.val();
        }
        for g in 0..4 {
            self.mask_in[g].clock.next = self.clock.val();
            self.mask_out[g].clock.next = self.clock.val();
            self.mask_in[g].d.next = self.mask_in[g].q.val();
            self.mo[g].next = self.mask_out[g].q.val();
        }

        self.wide_in.next = false;
        self.wide_b_in.next = false;
        self.wide_c_in.next = false;
        self.is_vgpr_in.next = 0.into();
        self.stat_pass_o.next = false;
        self.stat_active_o.next = 0.into();
        self.stat_skipped_o.next = 0.into();

        // Issue: the swizzle unit latches the enable mask at the same edge.
        self.schedule.clock.next = self.clock.val();
        self.schedule.mode_i.next = self.compaction_i.val();
        self.ready_o.next = !self.busy.q.val() & self.schedule.ready_o.val();
        self.accept.next = self.issue_i.val() & self.ready_o.val();
        self.schedule.start_i.next = self.accept.val();
        self.done_o.next = self.done.q.val();
        self.mask_lo_o.next = self.mask_lo.q.val();
        self.mask_hi_o.next = self.mask_hi.q.val();

        // The banks' read addresses, from the issue cycle to the last pass (the banks of lanes
        // the op does not run are read and ignored).
        for g in 0..4 {
            self.en_in[g].next = 0.into();
        }
        self.schedule.mask0_i.next = 0.into();
        self.schedule.mask1_i.next = 0.into();
        self.schedule.mask2_i.next = 0.into();
        self.schedule.mask3_i.next = 0.into();
        self.ra0_o.next = self.vgpr[0].q.val();
        self.ra1_o.next = self.vgpr[1].q.val();
        self.ra2_o.next = self.vgpr[2].q.val();
        if self.wide_a.q.val() {
            self.ra2_o.next = self.vgpr[0].q.val() + 1;
        }
        self.ra3_o.next = self.vgpr[2].q.val() + 1;
        if self.wide_b.q.val() {
            self.ra3_o.next = self.vgpr[1].q.val() + 1;
        }
        if self.accept.val() {
            self.busy.d.next = true;
            self.op.d.next = self.op_i.val();
            self.dst.d.next = self.dst_i.val();
            self.fmod.d.next = self.fmod_i.val();
            self.sdwa.d.next = self.sdwa_i.val();
            // The 64-bit operand pairs and results (`ValuOp::is_wide` and its siblings).
            self.wide_b_in.next = (self.op_i.val() == ValuOp::CmpEq64)
                | (self.op_i.val() == ValuOp::CmpNe64)
                | (self.op_i.val() == ValuOp::CmpLtU64)
                | (self.op_i.val() == ValuOp::CmpLeU64)
                | (self.op_i.val() == ValuOp::CmpGtU64)
                | (self.op_i.val() == ValuOp::CmpGeU64)
                | (self.op_i.val() == ValuOp::CmpLtI64)
                | (self.op_i.val() == ValuOp::CmpLeI64)
                | (self.op_i.val() == ValuOp::CmpGtI64)
                | (self.op_i.val() == ValuOp::CmpGeI64);
            self.wide_c_in.next =
                (self.op_i.val() == ValuOp::MadU64) | (self.op_i.val() == ValuOp::MadI64);
            self.wide_in.next = (self.op_i.val() == ValuOp::Shl64)
                | (self.op_i.val() == ValuOp::Shr64)
                | (self.op_i.val() == ValuOp::Ashr64)
                | self.wide_b_in.val();
            self.wide_a.d.next = self.wide_in.val();
            self.wide_b.d.next = self.wide_b_in.val();
            self.wide_c.d.next = self.wide_c_in.val();
            self.pair.d.next = (self.op_i.val() == ValuOp::Shl64)
                | (self.op_i.val() == ValuOp::Shr64)
                | (self.op_i.val() == ValuOp::Ashr64)
                | self.wide_c_in.val();
            self.writes.d.next = !((self.op_i.val() == ValuOp::CmpEq)
                | (self.op_i.val() == ValuOp::CmpNe)
                | (self.op_i.val() == ValuOp::CmpLtU)
                | (self.op_i.val() == ValuOp::CmpLeU)
                | (self.op_i.val() == ValuOp::CmpGtU)
                | (self.op_i.val() == ValuOp::CmpGeU)
                | (self.op_i.val() == ValuOp::CmpLtI)
                | (self.op_i.val() == ValuOp::CmpLeI)
                | (self.op_i.val() == ValuOp::CmpGtI)
                | (self.op_i.val() == ValuOp::CmpGeI)
                | (self.op_i.val() == ValuOp::CmpFalseF)
                | (self.op_i.val() == ValuOp::CmpLtF)
                | (self.op_i.val() == ValuOp::CmpEqF)
                | (self.op_i.val() == ValuOp::CmpLeF)
                | (self.op_i.val() == ValuOp::CmpGtF)
                | (self.op_i.val() == ValuOp::CmpLgF)
                | (self.op_i.val() == ValuOp::CmpGeF)
                | (self.op_i.val() == ValuOp::CmpOF)
                | (self.op_i.val() == ValuOp::CmpUF)
                | (self.op_i.val() == ValuOp::CmpNgeF)
                | (self.op_i.val() == ValuOp::CmpNlgF)
                | (self.op_i.val() == ValuOp::CmpNgtF)
                | (self.op_i.val() == ValuOp::CmpNleF)
                | (self.op_i.val() == ValuOp::CmpNeqF)
                | (self.op_i.val() == ValuOp::CmpNltF)
                | (self.op_i.val() == ValuOp::CmpTrueF)
                | (self.op_i.val() == ValuOp::CmpClassF)
                | (self.op_i.val() == ValuOp::ReadLane)
                | self.wide_b_in.val());
            for n in 0..3 {
                self.is_vgpr_in.next = self
                    .is_vgpr_in
                    .val()
                    .replace_bit(n, self.src_is_vgpr_i[n].val());
                self.vgpr[n].d.next = self.src_vgpr_i[n].val();
                self.value[n].d.next = self.src_value_i[n].val();
                self.value_hi[n].d.next = self.src_value_hi_i[n].val();
            }
            self.is_vgpr.d.next = self.is_vgpr_in.val();
            self.en_in[0].next = self.en_lo_i.val().get_bits::<16>(0) & self.group_mask[0].val();
            self.en_in[1].next = self.en_lo_i.val().get_bits::<16>(16) & self.group_mask[1].val();
            self.en_in[2].next = self.en_hi_i.val().get_bits::<16>(0) & self.group_mask[2].val();
            self.en_in[3].next = self.en_hi_i.val().get_bits::<16>(16) & self.group_mask[3].val();
            self.mask_in[0].d.next = self.mask_in_lo_i.val().get_bits::<16>(0);
            self.mask_in[1].d.next = self.mask_in_lo_i.val().get_bits::<16>(16);
            self.mask_in[2].d.next = self.mask_in_hi_i.val().get_bits::<16>(0);
            self.mask_in[3].d.next = self.mask_in_hi_i.val().get_bits::<16>(16);
            for g in 0..4 {
                self.mo[g].next = 0.into();
            }
            self.schedule.mask0_i.next = self.en_in[0].val();
            self.schedule.mask1_i.next = self.en_in[1].val();
            self.schedule.mask2_i.next = self.en_in[2].val();
            self.schedule.mask3_i.next = self.en_in[3].val();
            self.ra0_o.next = self.src_vgpr_i[0].val();
            self.ra1_o.next = self.src_vgpr_i[1].val();
            self.ra2_o.next = self.src_vgpr_i[2].val();
            if self.wide_in.val() {
                self.ra2_o.next = self.src_vgpr_i[0].val() + 1;
            }
            self.ra3_o.next = self.src_vgpr_i[2].val() + 1;
            if self.wide_b_in.val() {
                self.ra3_o.next = self.src_vgpr_i[1].val() + 1;
            }
        }
        self.wa_o.next = self.dst.q.val();
        for g in 0..self._groups {
            for j in 0..16 {
                self.we_o[g * 16 + j].next = false;
                self.wd_o[g * 16 + j].next = 0.into();
                self.we_hi_o[g * 16 + j].next = false;
                self.wd_hi_o[g * 16 + j].next = 0.into();
            }
        }

        // Execute: ALU position p runs the lane the swizzle unit's pass gives it. A pass in
        // place (every pass of `None` and BCC) connects position p to lane p of the pass's
        // group directly. In a swizzled pass position p takes its lane from group g when
        // `take[g]` has bit p; the group crossbars give 0 to the positions that take nothing
        // from them, so ORing them is the shared bus.
        self.direct.next = false;
        for g in 0..4 {
            self.take[g].next = 0.into();
        }
        for p in 0..16 {
            self.lane[p].next = 0.into();
            self.group[p].next = 0.into();
        }
        if self.busy.q.val() & self.schedule.pass_valid_o.val() {
            self.stat_pass_o.next = true;
            for p in 0..16 {
                if self.schedule.active_o.val().get_bit(p) {
                    self.stat_active_o.next = self.stat_active_o.val() + 1;
                }
            }
            if self.schedule.in_place_o.val() {
                self.direct.next = true;
            } else {
                for p in 0..8 {
                    for b in 0..4 {
                        self.lane[p].next = self.lane[p]
                            .val()
                            .replace_bit(b, self.schedule.lanes_lo_o.val().get_bit(4 * p + b));
                        self.lane[p + 8].next = self.lane[p + 8]
                            .val()
                            .replace_bit(b, self.schedule.lanes_hi_o.val().get_bit(4 * p + b));
                    }
                }
                for p in 0..16 {
                    for b in 0..2 {
                        self.group[p].next = self.group[p]
                            .val()
                            .replace_bit(b, self.schedule.groups_o.val().get_bit(2 * p + b));
                    }
                    for g in 0..self._groups {
                        if self.group[p].val().index() == g {
                            self.take[g].next = self.take[g]
                                .val()
                                .replace_bit(p, self.schedule.active_o.val().get_bit(p));
                        }
                    }
                }
            }
        }
        self.flags.next = 0.into();
        for p in 0..16 {
            self.flags.next = self.flags.val().replace_bit(p, self.alus[p].flag.val());
        }
        for g in 0..self._groups {
            self.xbars[g].take_i.next = self.take[g].val();
            self.xbars[g].mask_i.next = self.mask_in[g].q.val();
            self.xbars[g].flag_i.next = self.flags.val();
            // A group no position takes from this pass sees zeros, so its crossbar stays
            // quiet in simulation while other (Sp)SIMDs use the banks.
            if self.take[g].val().any() {
                for j in 0..16 {
                    self.xbars[g].lane_i[j].next = self.lane[j].val();
                    self.xbars[g].rd0_i[j].next = self.rd0_i[g * 16 + j].val();
                    self.xbars[g].rd1_i[j].next = self.rd1_i[g * 16 + j].val();
                    self.xbars[g].rd2_i[j].next = self.rd2_i[g * 16 + j].val();
                    self.xbars[g].rd3_i[j].next = self.rd3_i[g * 16 + j].val();
                    self.xbars[g].wd_i[j].next = self.sdwas[j].d_o.val();
                    self.xbars[g].wd_hi_i[j].next = self.alus[j].result_hi.val();
                }
            } else {
                for j in 0..16 {
                    self.xbars[g].lane_i[j].next = 0.into();
                    self.xbars[g].rd0_i[j].next = 0.into();
                    self.xbars[g].rd1_i[j].next = 0.into();
                    self.xbars[g].rd2_i[j].next = 0.into();
                    self.xbars[g].rd3_i[j].next = 0.into();
                    self.xbars[g].wd_i[j].next = 0.into();
                    self.xbars[g].wd_hi_i[j].next = 0.into();
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
            self.xmask.next = self.xmask.val() | self.xbars[g].mask_o.val();
        }
        for g in 0..self._groups {
            if self.take[g].val().any() {
                for p in 0..16 {
                    self.x0[p].next = self.x0[p].val() | self.xbars[g].rd0_o[p].val();
                    self.x1[p].next = self.x1[p].val() | self.xbars[g].rd1_o[p].val();
                    self.x2[p].next = self.x2[p].val() | self.xbars[g].rd2_o[p].val();
                    self.x3[p].next = self.x3[p].val() | self.xbars[g].rd3_o[p].val();
                }
            }
        }
        if self.direct.val() {
            for g in 0..self._groups {
                if self.schedule.group_o.val().index() == g {
                    self.xmask.next = self.mask_in[g].q.val();
                    for p in 0..16 {
                        self.x0[p].next = self.rd0_i[g * 16 + p].val();
                        self.x1[p].next = self.rd1_i[g * 16 + p].val();
                        self.x2[p].next = self.rd2_i[g * 16 + p].val();
                        self.x3[p].next = self.rd3_i[g * 16 + p].val();
                    }
                }
            }
        }
        // Operands: a VGPR through the crossbar (a's high word on read port 2, b's and c's on
        // port 3), or the broadcast value.
        for p in 0..16 {
            self.alus[p].op.next = self.op.q.val();
            self.alus[p].fmod.next = self.fmod.q.val();
            self.alus[p].m.next = self.xmask.val().get_bit(p);
            self.sdwas[p].a.next = self.value[0].q.val();
            self.alus[p].a_hi.next = self.value_hi[0].q.val();
            self.sdwas[p].b.next = self.value[1].q.val();
            self.alus[p].b_hi.next = self.value_hi[1].q.val();
            self.alus[p].c.next = self.value[2].q.val();
            self.alus[p].c_hi.next = self.value_hi[2].q.val();
            if self.is_vgpr.q.val().get_bit(0) {
                self.sdwas[p].a.next = self.x0[p].val();
                self.alus[p].a_hi.next = self.x2[p].val();
            }
            if self.is_vgpr.q.val().get_bit(1) {
                self.sdwas[p].b.next = self.x1[p].val();
                self.alus[p].b_hi.next = self.x3[p].val();
            }
            if self.is_vgpr.q.val().get_bit(2) {
                self.alus[p].c.next = self.x2[p].val();
                self.alus[p].c_hi.next = self.x3[p].val();
            }
        }
        // Write-back, directly or through the inverse crossbar: each lane that executed gets
        // its position's flag and, if the op writes a VGPR, its result words.
        self.lv.next = self.lane_val.q.val();
        if self.accept.val() {
            self.lv.next = 0.into();
        }
        if self.direct.val() {
            for g in 0..self._groups {
                if self.schedule.group_o.val().index() == g {
                    if self.op.q.val() == ValuOp::ReadLane {
                        for p in 0..16 {
                            if self.schedule.active_o.val().get_bit(p) {
                                self.lv.next = self.sdwas[p].d_o.val();
                            }
                        }
                    }
                    self.mo[g].next = (self.mo[g].val() & !self.schedule.active_o.val())
                        | (self.flags.val() & self.schedule.active_o.val());
                    if self.writes.q.val() {
                        for p in 0..16 {
                            if self.schedule.active_o.val().get_bit(p) {
                                self.we_o[g * 16 + p].next = true;
                                self.wd_o[g * 16 + p].next = self.sdwas[p].d_o.val();
                                self.we_hi_o[g * 16 + p].next = self.pair.q.val();
                                self.wd_hi_o[g * 16 + p].next = self.alus[p].result_hi.val();
                            }
                        }
                    }
                }
            }
        }
        for g in 0..self._groups {
            self.mo[g].next =
                (self.mo[g].val() & !self.xbars[g].we_o.val()) | self.xbars[g].flag_o.val();
            if (self.op.q.val() == ValuOp::ReadLane) & self.xbars[g].we_o.val().any() {
                for j in 0..16 {
                    if self.xbars[g].we_o.val().get_bit(j) {
                        self.lv.next = self.xbars[g].wd_o[j].val();
                    }
                }
            }
            if self.writes.q.val() & self.xbars[g].we_o.val().any() {
                for j in 0..16 {
                    if self.xbars[g].we_o.val().get_bit(j) {
                        self.we_o[g * 16 + j].next = true;
                        self.wd_o[g * 16 + j].next = self.xbars[g].wd_o[j].val();
                        self.we_hi_o[g * 16 + j].next = self.pair.q.val();
                        self.wd_hi_o[g * 16 + j].next = self.xbars[g].wd_hi_o[j].val();
                    }
                }
            }
        }
        // The SDWA stage between the operands and the ALU, and after it (source 2, the
        // destination's old value for an SDWA op, is what UNUSED_PRESERVE keeps).
        for p in 0..16 {
            self.sdwas[p].ctrl.next = self.sdwa.q.val();
            self.sdwas[p].old.next = self.alus[p].c.val();
            self.sdwas[p].result.next = self.alus[p].result.val();
            self.alus[p].a.next = self.sdwas[p].a_o.val();
            self.alus[p].b.next = self.sdwas[p].b_o.val();
        }
        for g in 0..4 {
            self.mask_out[g].d.next = self.mo[g].val();
        }
        self.lane_val.d.next = self.lv.val();

        // The last pass (or the empty schedule) retires the op.
        if self.busy.q.val() & self.schedule.done_o.val() {
            self.busy.d.next = false;
            self.done.d.next = true;
            self.stat_skipped_o.next = self.groups.val() - self.schedule.passes_o.val();
            self.mo_lo.next = self.mo[0].val();
            self.mo_hi.next = self.mo[1].val();
            self.mask_lo.d.next =
                (bit_cast::<32, 16>(self.mo_hi.val()) << 16) | bit_cast::<32, 16>(self.mo_lo.val());
            self.mo_lo.next = self.mo[2].val();
            self.mo_hi.next = self.mo[3].val();
            self.mask_hi.d.next =
                (bit_cast::<32, 16>(self.mo_hi.val()) << 16) | bit_cast::<32, 16>(self.mo_lo.val());
            if self.op.q.val() == ValuOp::ReadLane {
                self.mask_lo.d.next = self.lv.val();
                self.mask_hi.d.next = 0.into();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::valu_cycles_for;
    use rust_hdl::core::simulate::simulate;
    use std::collections::BTreeMap;

    fn edge(u: &mut SpSimd) {
        u.clock.next = Clock::from(true);
        assert!(simulate(u, 1000));
        u.clock.next = Clock::from(false);
        assert!(simulate(u, 1000));
    }

    /// What one op did: the value written to each lane, the edges from the accepting edge to
    /// the one after which `done_o` is high (both counted, as `valu_cycles_for` counts), the
    /// passes executed and the passes compaction saved.
    struct Run {
        writes: BTreeMap<usize, u64>,
        edges: u64,
        passes: u64,
        skipped: u64,
    }

    /// A wave64 (Sp)SIMD offered `op` on source a = v5 and the lanes of `en` (the test plays
    /// the banks: lane l's v5 is 100 + l).
    fn offered(mode: SwizzleMode, op: ValuOp, en: u64) -> SpSimd {
        let mut u = SpSimd::new(64).unwrap();
        u.connect_all();
        u.compaction_i.next = mode;
        for l in 0..64 {
            u.rd0_i[l].next = (100 + l as u64).to_bits();
        }
        u.op_i.next = op;
        u.src_is_vgpr_i[0].next = true;
        u.src_vgpr_i[0].next = 5u64.to_bits();
        u.en_lo_i.next = (en & 0xFFFF_FFFF).to_bits();
        u.en_hi_i.next = (en >> 32).to_bits();
        u.issue_i.next = true;
        u
    }

    /// Issues `v_add_u32 v7, v5, 1000` on the lanes of `en` and records every write.
    fn add(mode: SwizzleMode, en: u64) -> Run {
        let mut u = offered(mode, ValuOp::Add, en);
        u.dst_i.next = 7u64.to_bits();
        u.src_value_i[1].next = 1000u64.to_bits();
        assert!(simulate(&mut u, 1000));
        assert!(u.ready_o.val());
        assert_eq!(
            u.ra0_o.val().to_u64(),
            5,
            "the banks are addressed in the issue cycle"
        );
        edge(&mut u);
        u.issue_i.next = false;
        let mut run = Run {
            writes: BTreeMap::new(),
            edges: 0,
            passes: 0,
            skipped: 0,
        };
        for edges in 1..8 {
            assert!(simulate(&mut u, 1000));
            assert!(!u.ready_o.val() || u.done_o.val());
            for l in 0..64 {
                if u.we_o[l].val() {
                    assert_eq!(u.wa_o.val().to_u64(), 7);
                    assert!(!u.we_hi_o[l].val(), "a 32-bit result");
                    let old = run.writes.insert(l, u.wd_o[l].val().to_u64());
                    assert!(old.is_none(), "lane {l} written twice");
                }
            }
            run.passes += u.stat_pass_o.val() as u64;
            run.skipped += u.stat_skipped_o.val().to_u64();
            if u.done_o.val() {
                run.edges = edges;
                return run;
            }
            edge(&mut u);
        }
        panic!("no done_o within 7 cycles");
    }

    fn expected(en: u64) -> BTreeMap<usize, u64> {
        (0..64)
            .filter(|l| en >> l & 1 == 1)
            .map(|l| (l, 1100 + l as u64))
            .collect()
    }

    #[test]
    fn every_group_is_a_pass_without_compaction() {
        let en = 0xF0F0_0000_0000_0001;
        let run = add(SwizzleMode::None, en);
        assert_eq!(run.writes, expected(en));
        assert_eq!((run.passes, run.skipped), (4, 0));
        assert_eq!(run.edges, valu_cycles_for(4));
    }

    #[test]
    fn bcc_skips_empty_groups_and_scc_packs_the_active_lanes() {
        // Lanes 3, 20, 37 and 50: one per group, so BCC runs four passes and SCC one.
        let en = 1 << 3 | 1 << 20 | 1 << 37 | 1 << 50;
        let bcc = add(SwizzleMode::Bcc, en);
        assert_eq!(bcc.writes, expected(en));
        assert_eq!((bcc.passes, bcc.skipped), (4, 0));
        let scc = add(SwizzleMode::Scc, en);
        assert_eq!(
            scc.writes,
            expected(en),
            "the un-swizzle returns each result"
        );
        assert_eq!((scc.passes, scc.skipped), (1, 3));
        assert_eq!(scc.edges, valu_cycles_for(1));
        // Two empty groups under BCC.
        let en = 0xFFFF_0000_0000_FFFF;
        let bcc = add(SwizzleMode::Bcc, en);
        assert_eq!(bcc.writes, expected(en));
        assert_eq!((bcc.passes, bcc.skipped), (2, 2));
    }

    /// `ReadLane` on one enabled lane: no VGPR write, the lane's value as the mask result, in
    /// place and through SCC's crossbar alike.
    #[test]
    fn read_lane_returns_its_one_lane_and_writes_nothing() {
        for mode in [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc] {
            for lane in [0usize, 21, 37, 63] {
                let mut u = offered(mode, ValuOp::ReadLane, 1 << lane);
                assert!(simulate(&mut u, 1000));
                edge(&mut u);
                u.issue_i.next = false;
                let mut done = false;
                for _ in 0..8 {
                    assert!(simulate(&mut u, 1000));
                    assert!((0..64).all(|l| !u.we_o[l].val()), "{mode:?}: a VGPR write");
                    if u.done_o.val() {
                        done = true;
                        break;
                    }
                    edge(&mut u);
                }
                assert!(done, "{mode:?} lane {lane}: no done_o");
                assert_eq!(u.mask_lo_o.val().to_u64(), 100 + lane as u64, "{mode:?}");
                assert_eq!(u.mask_hi_o.val().to_u64(), 0, "{mode:?}");
            }
        }
    }

    #[test]
    fn an_empty_mask_retires_without_a_write() {
        let run = add(SwizzleMode::Scc, 0);
        assert!(run.writes.is_empty());
        assert_eq!((run.passes, run.skipped), (0, 4));
        assert_eq!(run.edges, valu_cycles_for(0));
    }
}
