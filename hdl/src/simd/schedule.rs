//! The pass schedule of one (Sp)SIMD: a [`SwizzleUnit`] behind flat ports.
//!
//! The per-position outputs of the swizzle unit are packed into words (position p's group at
//! bits 2p.., its crossbar input at bits 4p.. of `lanes_lo_o` / 4(p - 8).. of `lanes_hi_o`):
//! the schedule was once one of a vector of them, and rust-hdl's Verilog generator resolved
//! only the first index of a path such as `units[k].port[p]`.
//! The wrapper also says whether the pass runs in place (every active position p executes
//! lane 16·g + p of one group g, as in every pass of mode `None` and BCC), so the (Sp)SIMD
//! can bypass the crossbar in simulation.

use rust_hdl::prelude::*;

use crate::swizzle::{SwizzleConfigError, SwizzleMode, SwizzleUnit};

/// A swizzle unit for a wavefront of `width` lanes on 16 ALU positions, with packed ports.
#[derive(LogicBlock)]
pub struct PassSchedule {
    pub clock: Signal<In, Clock>,
    /// Latch the enable mask and the mode (honoured while `ready_o`).
    pub start_i: Signal<In, Bit>,
    pub mode_i: Signal<In, SwizzleMode>,
    /// The enable mask of lane groups 0..3 (sampled with `start_i`).
    pub mask0_i: Signal<In, Bits<16>>,
    pub mask1_i: Signal<In, Bits<16>>,
    pub mask2_i: Signal<In, Bits<16>>,
    pub mask3_i: Signal<In, Bits<16>>,
    pub ready_o: Signal<Out, Bit>,
    /// A pass executes this cycle.
    pub pass_valid_o: Signal<Out, Bit>,
    /// The schedule finishes this cycle (with its last pass, or alone when it has none).
    pub done_o: Signal<Out, Bit>,
    /// Passes of the current op.
    pub passes_o: Signal<Out, Bits<3>>,
    /// Bit p: ALU position p executes a lane in this pass.
    pub active_o: Signal<Out, Bits<16>>,
    /// The pass runs lanes 16·`group_o` + p in place.
    pub in_place_o: Signal<Out, Bit>,
    pub group_o: Signal<Out, Bits<2>>,
    /// Lane group feeding position p, at bits 2p + 1..2p (valid when not in place).
    pub groups_o: Signal<Out, Bits<32>>,
    /// Crossbar input (lane within the group) of positions 0..7 and 8..15, 4 bits each
    /// (valid when not in place).
    pub lanes_lo_o: Signal<Out, Bits<32>>,
    pub lanes_hi_o: Signal<Out, Bits<32>>,
    pub unit: SwizzleUnit,
}

impl PassSchedule {
    pub fn new(width: usize) -> Result<Self, SwizzleConfigError> {
        Ok(PassSchedule {
            clock: Default::default(),
            start_i: Default::default(),
            mode_i: Default::default(),
            mask0_i: Default::default(),
            mask1_i: Default::default(),
            mask2_i: Default::default(),
            mask3_i: Default::default(),
            ready_o: Default::default(),
            pass_valid_o: Default::default(),
            done_o: Default::default(),
            passes_o: Default::default(),
            active_o: Default::default(),
            in_place_o: Default::default(),
            group_o: Default::default(),
            groups_o: Default::default(),
            lanes_lo_o: Default::default(),
            lanes_hi_o: Default::default(),
            unit: SwizzleUnit::without_write_back(width, 16)?,
        })
    }
}

impl Logic for PassSchedule {
    #[hdl_gen]
    fn update(&mut self) {
        self.unit.clock.next = self.clock.val();
        self.unit.start_i.next = self.start_i.val();
        self.unit.mode_i.next = self.mode_i.val();
        self.unit.mask_i[0].next = self.mask0_i.val();
        self.unit.mask_i[1].next = self.mask1_i.val();
        self.unit.mask_i[2].next = self.mask2_i.val();
        self.unit.mask_i[3].next = self.mask3_i.val();
        self.ready_o.next = self.unit.ready_o.val();
        self.pass_valid_o.next = self.unit.pass_valid_o.val();
        self.done_o.next = self.unit.done_o.val();
        self.passes_o.next = self.unit.passes_o.val();
        self.group_o.next = self.unit.group_o[0].val();
        self.active_o.next = 0.into();
        self.in_place_o.next = true;
        for p in 0..16 {
            self.active_o.next = self
                .active_o
                .val()
                .replace_bit(p, self.unit.active_o[p].val());
            if self.unit.active_o[p].val()
                & ((self.unit.lane_o[p].val().index() != p)
                    | (self.unit.group_o[p].val() != self.unit.group_o[0].val()))
            {
                self.in_place_o.next = false;
            }
        }
        self.groups_o.next = 0.into();
        self.lanes_lo_o.next = 0.into();
        self.lanes_hi_o.next = 0.into();
        if !self.in_place_o.val() {
            for p in 0..16 {
                self.groups_o.next = self
                    .groups_o
                    .val()
                    .replace_bit(2 * p, self.unit.group_o[p].val().get_bit(0));
                self.groups_o.next = self
                    .groups_o
                    .val()
                    .replace_bit(2 * p + 1, self.unit.group_o[p].val().get_bit(1));
            }
            for p in 0..8 {
                for b in 0..4 {
                    self.lanes_lo_o.next = self
                        .lanes_lo_o
                        .val()
                        .replace_bit(4 * p + b, self.unit.lane_o[p].val().get_bit(b));
                    self.lanes_hi_o.next = self
                        .lanes_hi_o
                        .val()
                        .replace_bit(4 * p + b, self.unit.lane_o[p + 8].val().get_bit(b));
                }
            }
        }
    }
}
