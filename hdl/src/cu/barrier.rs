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
    // Per slot: every context waits or is absent / some context waits / the slot is live and
    // some context neither waits nor is absent / may release.
    all_in: Vec<Signal<Local, Bit>>,
    any_in: Vec<Signal<Local, Bit>>,
    blocked: Vec<Signal<Local, Bit>>,
    open: Vec<Signal<Local, Bit>>,
    _slots: usize,
    _per_slot: usize,
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
            blocked: many(slots),
            open: many(slots),
            _slots: slots,
            _per_slot: per_slot,
        }
    }
}

impl Logic for BarrierUnit {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..self._slots {
            self.all_in[j].next = true;
            self.any_in[j].next = false;
            self.blocked[j].next = false;
            for k in 0..self._per_slot {
                if !self.waiting_i[j * self._per_slot + k].val()
                    & !self.absent_i[j * self._per_slot + k].val()
                {
                    self.all_in[j].next = false;
                }
                if self.waiting_i[j * self._per_slot + k].val() {
                    self.any_in[j].next = true;
                }
            }
            self.blocked[j].next = self.live_i[j].val() & !self.all_in[j].val();
        }
        for j in 0..self._slots {
            self.open[j].next = self.live_i[j].val() & self.any_in[j].val() & !self.hold_i.val();
            for i in 0..self._slots {
                if self.blocked[i].val() & (self.wg_i[i].val() == self.wg_i[j].val()) {
                    self.open[j].next = false;
                }
            }
            for k in 0..self._per_slot {
                self.release_o[j * self._per_slot + k].next =
                    self.open[j].val() & self.waiting_i[j * self._per_slot + k].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;

    fn released(b: &BarrierUnit) -> Vec<usize> {
        (0..b.release_o.len())
            .filter(|&c| b.release_o[c].val())
            .collect()
    }

    /// Three slots of two contexts: slots 0 and 1 run workgroup 7, slot 2 workgroup 9.
    fn unit() -> BarrierUnit {
        let mut b = BarrierUnit::new(3, 2);
        b.connect_all();
        for (j, wg) in [7u64, 7, 9].into_iter().enumerate() {
            b.live_i[j].next = true;
            b.wg_i[j].next = wg.to_bits();
        }
        b
    }

    #[test]
    fn a_workgroup_leaves_when_each_live_context_of_each_of_its_slots_waits() {
        let mut b = unit();
        // Contexts 1 and 3 are free SWF contexts; 0 and 2 wait; workgroup 9 does not wait.
        for c in [1, 3] {
            b.absent_i[c].next = true;
        }
        for c in [0, 2] {
            b.waiting_i[c].next = true;
        }
        settle(&mut b);
        assert_eq!(released(&b), vec![0, 2]);

        // A context of slot 1 that neither waits nor is absent holds slot 0 back too.
        b.absent_i[3].next = false;
        settle(&mut b);
        assert_eq!(released(&b), Vec::<usize>::new());

        // Once it waits, both slots leave; hold keeps every barrier closed.
        b.waiting_i[3].next = true;
        settle(&mut b);
        assert_eq!(released(&b), vec![0, 2, 3]);
        b.hold_i.next = true;
        settle(&mut b);
        assert_eq!(released(&b), Vec::<usize>::new());
    }

    #[test]
    fn workgroups_and_dead_slots_do_not_hold_each_other() {
        let mut b = unit();
        // Workgroup 9 waits alone while workgroup 7 runs; slot 1 then ends (not live).
        b.waiting_i[4].next = true;
        b.absent_i[5].next = true;
        b.waiting_i[0].next = true;
        b.absent_i[1].next = true;
        settle(&mut b);
        assert_eq!(released(&b), vec![4]);
        b.live_i[1].next = false;
        settle(&mut b);
        assert_eq!(released(&b), vec![0, 4]);
    }
}
