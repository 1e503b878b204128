//! Small designs of the export crate's own, so the flow (generation, tools, co-simulation,
//! benchmark) is tested independently of the pws units: a loadable counter and a
//! multiply-accumulate FSM with a 32-bit datapath and a combinational output.

use pws_export::units::Design;
use pws_export::ExportError;
use rust_hdl::prelude::*;

/// A 32-bit counter with enable and synchronous load.
#[derive(LogicBlock, Default)]
pub struct Counter {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub load_value: Signal<In, Bits<32>>,
    pub count: Signal<Out, Bits<32>>,
    state: DFF<Bits<32>>,
}

impl Logic for Counter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.count.next = self.state.q.val();
        if self.load.val() {
            self.state.d.next = self.load_value.val();
        } else if self.enable.val() {
            self.state.d.next = self.state.q.val() + 1;
        }
    }
}

/// States of [`MacFsm`].
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum MacState {
    Idle,
    Accumulate,
    Done,
}

/// Accumulates `data` (xor-rotated by the step count) for `length` cycles after `start`, then
/// presents the sum for one cycle. `busy` is combinational on `start` so the co-simulation also
/// samples a path from an input to an output within the cycle.
#[derive(LogicBlock, Default)]
pub struct MacFsm {
    pub clock: Signal<In, Clock>,
    pub start: Signal<In, Bit>,
    pub length: Signal<In, Bits<4>>,
    pub data: Signal<In, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub result: Signal<Out, Bits<32>>,
    state: DFF<MacState>,
    remaining: DFF<Bits<4>>,
    sum: DFF<Bits<32>>,
}

impl Logic for MacFsm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, remaining, sum);
        self.busy.next = self.start.val() | (self.state.q.val() == MacState::Accumulate);
        self.done.next = self.state.q.val() == MacState::Done;
        self.result.next = self.sum.q.val();
        match self.state.q.val() {
            MacState::Idle => {
                if self.start.val() {
                    self.state.d.next = MacState::Accumulate;
                    self.remaining.d.next = self.length.val();
                    self.sum.d.next = 0.into();
                }
            }
            MacState::Accumulate => {
                self.sum.d.next = self.sum.q.val() + (self.data.val() ^ (self.sum.q.val() >> 3));
                self.remaining.d.next = self.remaining.q.val() - 1;
                if self.remaining.q.val() == 0 {
                    self.state.d.next = MacState::Done;
                }
            }
            MacState::Done => {
                self.state.d.next = MacState::Idle;
            }
            _ => {
                self.state.d.next = MacState::Idle;
            }
        }
    }
}

impl Design for Counter {
    const MODULE: &'static str = "pws_test_counter";
    fn build() -> Result<Self, ExportError> {
        Ok(Counter::default())
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

pws_export::cosim_ports!(Counter {
    inputs: [enable, load, load_value],
    outputs: [count],
    stimulus: |_: &Counter, rng: &mut pws_export::cosim::SplitMix64, cycles: usize| {
        (0..cycles)
            .map(|_| {
                vec![
                    u64::from(rng.chance(70)),
                    u64::from(rng.chance(5)),
                    rng.bits(32),
                ]
            })
            .collect()
    },
});

impl Design for MacFsm {
    const MODULE: &'static str = "pws_test_mac";
    fn build() -> Result<Self, ExportError> {
        Ok(MacFsm::default())
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

pws_export::cosim_ports!(MacFsm {
    inputs: [start, length, data],
    outputs: [busy, done, result],
});

/// Issue units and contexts in miniature: output `hit[i]` (their count registered in `last`) listens to
/// `en[k]` for the pairs `k == i || i == 0` only, and through `sel` to `en[k]` for
/// `k + 1 == i`, all chosen by conditions of the loop indices alone, which the generator
/// resolves (vendor/rust-hdl-core/PATCH.md, change 7).
#[derive(LogicBlock)]
pub struct Pairs {
    pub clock: Signal<In, Clock>,
    pub en: Vec<Signal<In, Bit>>,
    pub sel: Signal<In, Bit>,
    pub hit: Vec<Signal<Out, Bit>>,
    pub last: Signal<Out, Bits<3>>,
    held: DFF<Bits<3>>,
    count: Signal<Local, Bits<3>>,
}

impl Logic for Pairs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held);
        self.last.next = self.held.q.val();
        self.count.next = 0.into();
        for i in 0..self.hit.len() {
            self.hit[i].next = false;
            for k in 0..self.en.len() {
                if (k == i) | (i == 0) {
                    if self.en[k].val() {
                        self.hit[i].next = true;
                    }
                } else if self.sel.val() & (k + 1 == i) {
                    self.hit[i].next = !self.en[k].val();
                }
            }
            if self.hit[i].val() {
                self.count.next = self.count.val() + 1;
            }
        }
        self.held.d.next = self.count.val();
    }
}

impl Design for Pairs {
    const MODULE: &'static str = "pws_test_pairs";
    fn build() -> Result<Self, ExportError> {
        Ok(Pairs {
            clock: Default::default(),
            en: (0..3).map(|_| Default::default()).collect(),
            sel: Default::default(),
            hit: (0..3).map(|_| Default::default()).collect(),
            last: Default::default(),
            held: Default::default(),
            count: Default::default(),
        })
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

pws_export::cosim_ports!(Pairs {
    inputs: [en, sel],
    outputs: [hit, last],
});
