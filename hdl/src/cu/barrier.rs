//! The barrier unit: releases `s_barrier` for a workgroup once every live context of every
//! wavefront of that workgroup waits at a barrier (docs/golden.md: contexts that executed
//! `s_endpgm` and free SWF contexts do not count; a context waiting at a merge does, so a
//! barrier inside a split region waits for the other half as the golden model does).
//!
//! Workgroups are told apart by the tag the dispatcher gave each slot at launch. The release
//! is combinational on registered state, so a barrier completes in the cycle after the last
//! context arrives (the compute unit registers the arrival at the edge that ends its execute
//! cycle). `hold_i` keeps every barrier closed while the dispatcher still launches wavefronts
//! of a workgroup that already runs.

use rust_hdl::prelude::*;

/// The barrier unit of a compute unit with `slots` slots of `per_slot` contexts each.
#[derive(LogicBlock)]
pub struct BarrierUnit {
    /// Context c (slot · per_slot + k) waits at `s_barrier`.
    pub waiting_i: Vec<Signal<In, Bit>>,
    /// Context c does not count: free, or ended.
    pub absent_i: Vec<Signal<In, Bit>>,
    /// Slot j holds a wavefront of workgroup `wg_i[j]`.
    pub live_i: Vec<Signal<In, Bit>>,
    pub wg_i: Vec<Signal<In, Bits<8>>>,
    pub hold_i: Signal<In, Bit>,
    /// Context c leaves its barrier at the next edge.
    pub release_o: Vec<Signal<Out, Bit>>,
    // Per slot: every context waits or is absent / some context waits / may release.
    all_in: Vec<Signal<Local, Bit>>,
    any_in: Vec<Signal<Local, Bit>>,
    open: Vec<Signal<Local, Bit>>,
    /// Slot of context c.
    ctx_slot: Vec<Constant<Bits<8>>>,
}

impl BarrierUnit {
    /// A barrier unit for `slots` wavefront slots of `per_slot` contexts.
    pub fn new(slots: usize, per_slot: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        BarrierUnit {
            waiting_i: many(slots * per_slot),
            absent_i: many(slots * per_slot),
            live_i: many(slots),
            wg_i: many(slots),
            hold_i: Default::default(),
            release_o: many(slots * per_slot),
            all_in: many(slots),
            any_in: many(slots),
            open: many(slots),
            ctx_slot: (0..slots * per_slot)
                .map(|c| Constant::new((c / per_slot).to_bits()))
                .collect(),
        }
    }
}

impl Logic for BarrierUnit {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..self.live_i.len() {
            self.all_in[j].next = true;
            self.any_in[j].next = false;
        }
        for c in 0..self.waiting_i.len() {
            for j in 0..self.live_i.len() {
                if self.ctx_slot[c].val().index() == j {
                    if !self.waiting_i[c].val() & !self.absent_i[c].val() {
                        self.all_in[j].next = false;
                    }
                    if self.waiting_i[c].val() {
                        self.any_in[j].next = true;
                    }
                }
            }
        }
        for j in 0..self.live_i.len() {
            self.open[j].next = self.live_i[j].val() & self.any_in[j].val() & !self.hold_i.val();
            for i in 0..self.live_i.len() {
                if self.live_i[i].val()
                    & (self.wg_i[i].val() == self.wg_i[j].val())
                    & !self.all_in[i].val()
                {
                    self.open[j].next = false;
                }
            }
        }
        for c in 0..self.waiting_i.len() {
            self.release_o[c].next = false;
            for j in 0..self.live_i.len() {
                if self.ctx_slot[c].val().index() == j {
                    self.release_o[c].next = self.open[j].val() & self.waiting_i[c].val();
                }
            }
        }
    }
}
