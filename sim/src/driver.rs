//! Direct cycle driver for rust-hdl designs.
//!
//! rust-hdl's thread-based `Simulation` hands the design between a clock thread and testbench
//! threads through rendezvous channels, which caps it at a few thousand cycles per second. The
//! driver instead steps the design in the caller's thread: it flips the clock and settles the
//! combinational logic itself, which runs several hundred times faster. Every unit test,
//! proptest and benchmark in the workspace steps designs through this type, so the cycle
//! semantics are defined in one place:
//!
//! * the caller writes inputs (`signal.next = ...`) and calls [`Driver::settle`] to see
//!   combinational outputs for the current cycle;
//! * [`Driver::tick`] is one rising clock edge followed by the falling one: registers take the
//!   values computed from the inputs as they stand, then outputs settle again.
//!
//! A VCD trace, when requested, is streamed to its writer at every half period through
//! rust-hdl's own probe, so signal names are the design's hierarchy as rust-hdl names it.
//!
//! A settle runs delta passes until no signal changes. By default ([`DeltaPasses::Activity`],
//! the vendored rust-hdl's patch) a pass skips the blocks none of whose inputs changed, and an
//! edge reaches every clock input of the design at once instead of one level of the hierarchy
//! per pass; the falling edge, which no logic reads, takes no pass at all.
//! [`DeltaPasses::EveryBlock`] is rust-hdl's own loop, which passes the clock down like data and
//! evaluates every block in every pass: the reference the other is tested against (the same
//! values after every edge and the same VCD, `verify/tests/delta_passes.rs`) and timed against
//! (`pws bench`).

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use rust_hdl::core::block::{Activity, ClockEdge};
use rust_hdl::core::prelude::*;
use rust_hdl::core::simulate::{simulate, simulate_tracked};
use rust_hdl::core::vcd_probe::{write_vcd_change, write_vcd_dump, write_vcd_header, VCDProbe};

/// Delta iterations allowed for the logic to settle after an edge or an input change.
const MAX_DELTA_ITERATIONS: usize = 200;

/// Simulated clock period in picoseconds (100 MHz); it only labels VCD timestamps.
pub const CLOCK_PERIOD_PS: u64 = 10_000;

/// Why stepping a design failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DriverError {
    #[error("combinational logic did not settle within {MAX_DELTA_ITERATIONS} delta iterations at cycle {cycle} (a logic loop?)")]
    FailedToConverge { cycle: u64 },
    #[error("the design failed rust-hdl's structural checks: {0}")]
    Check(String),
    #[error("writing the VCD trace failed: {0}")]
    Vcd(String),
}

/// How a settle evaluates the design (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeltaPasses {
    /// Skip the blocks whose inputs did not change in the previous pass, and whole subtrees
    /// in which nothing changed; drive every clock input at once: the same values after every
    /// edge, in fewer passes and for less work.
    #[default]
    Activity,
    /// Evaluate every block in every pass, as rust-hdl's `simulate` does, the clock passed
    /// down the hierarchy by each block's `update`.
    EveryBlock,
}

/// Gives the driver access to a design's clock input.
pub trait Clocked: Block {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock>;
}

/// Implements [`Clocked`] for designs whose clock input is a field named `clock`.
#[macro_export]
macro_rules! impl_clocked {
    ($($t:ty),+ $(,)?) => {$(
        impl $crate::driver::Clocked for $t {
            fn clock_mut(&mut self) -> &mut ::rust_hdl::core::prelude::Signal<::rust_hdl::core::prelude::In, ::rust_hdl::core::prelude::Clock> {
                &mut self.clock
            }
        }
    )+};
}

/// Steps a rust-hdl design cycle by cycle in the calling thread.
pub struct Driver<U: Clocked> {
    uut: U,
    cycle: u64,
    vcd: Option<VCDProbe<Box<dyn Write>>>,
    passes: DeltaPasses,
    activity: Activity,
}

impl<U: Clocked> Driver<U> {
    /// Connects the design, runs rust-hdl's structural checks and settles its initial state.
    pub fn new(uut: U) -> Result<Self, DriverError> {
        Self::with_passes(uut, DeltaPasses::default(), None)
    }

    /// Like [`Driver::new`], streaming a VCD trace of every signal to `out`.
    pub fn with_vcd(uut: U, out: impl Write + 'static) -> Result<Self, DriverError> {
        Self::with_passes(uut, DeltaPasses::default(), Some(Box::new(out)))
    }

    /// Like [`Driver::new`], settling with `passes`, with a VCD trace if `vcd` is given.
    pub fn with_passes(
        mut uut: U,
        passes: DeltaPasses,
        vcd: Option<Box<dyn Write>>,
    ) -> Result<Self, DriverError> {
        uut.connect_all();
        check_all(&uut).map_err(|e| DriverError::Check(format!("{e:?}")))?;
        let mut driver = Driver {
            uut,
            cycle: 0,
            vcd: None,
            passes,
            activity: Activity::default(),
        };
        driver.uut.clock_mut().next = Clock::from(false);
        driver.settle()?;
        if let Some(out) = vcd {
            let probe = write_vcd_header(out, &driver.uut);
            driver.vcd = Some(write_vcd_dump(probe, &driver.uut));
        }
        Ok(driver)
    }

    /// The design, to read its outputs.
    pub fn uut(&self) -> &U {
        &self.uut
    }

    /// The design, to drive its inputs (`signal.next = ...`) before [`Driver::settle`] or
    /// [`Driver::tick`].
    pub fn uut_mut(&mut self) -> &mut U {
        &mut self.uut
    }

    /// Rising edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Propagates input changes through the combinational logic without a clock edge.
    pub fn settle(&mut self) -> Result<(), DriverError> {
        let settled = match self.passes {
            DeltaPasses::Activity => {
                simulate_tracked(&mut self.uut, &mut self.activity, MAX_DELTA_ITERATIONS)
            }
            DeltaPasses::EveryBlock => simulate(&mut self.uut, MAX_DELTA_ITERATIONS),
        };
        if settled {
            Ok(())
        } else {
            Err(DriverError::FailedToConverge { cycle: self.cycle })
        }
    }

    /// One clock cycle: a rising edge, then the falling edge, each settled and traced (the
    /// activity passes know the falling edge settled as it is).
    pub fn tick(&mut self) -> Result<(), DriverError> {
        self.settle()?;
        self.rise()?;
        self.trace(self.cycle * CLOCK_PERIOD_PS + CLOCK_PERIOD_PS / 2)?;
        self.fall()?;
        self.cycle += 1;
        self.trace(self.cycle * CLOCK_PERIOD_PS)
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) -> Result<(), DriverError> {
        (0..n).try_for_each(|_| self.tick())
    }

    /// Gives the design back, ending the trace.
    pub fn into_inner(self) -> U {
        self.uut
    }

    /// The rising edge, settled. The activity passes start with the edge's own pass
    /// (every clock rises and every register samples, in one walk of the design).
    fn rise(&mut self) -> Result<(), DriverError> {
        match self.passes {
            DeltaPasses::Activity => {
                self.activity.rewind();
                self.uut.rising_edge_tracked(&mut self.activity);
            }
            DeltaPasses::EveryBlock => self.uut.clock_mut().next = Clock::from(true),
        }
        self.settle()
    }

    /// The falling edge, settled: the activity passes know that nothing reads it.
    fn fall(&mut self) -> Result<(), DriverError> {
        match self.passes {
            DeltaPasses::Activity => {
                self.uut.drive_clocks(ClockEdge::Falling);
                Ok(())
            }
            DeltaPasses::EveryBlock => {
                self.uut.clock_mut().next = Clock::from(false);
                self.settle()
            }
        }
    }

    fn trace(&mut self, time_ps: u64) -> Result<(), DriverError> {
        if let Some(probe) = self.vcd.take() {
            let mut probe = probe;
            probe
                .timestamp(time_ps)
                .map_err(|e| DriverError::Vcd(e.to_string()))?;
            self.vcd = Some(write_vcd_change(probe, &self.uut));
        }
        Ok(())
    }
}

/// An in-memory trace sink for [`Driver::with_vcd`] that stays readable after the driver is
/// dropped: clones share one buffer, so a test keeps a clone and reads the VCD text back.
#[derive(Clone, Debug, Default)]
pub struct TraceBuffer(Rc<RefCell<Vec<u8>>>);

impl TraceBuffer {
    /// Everything written so far.
    pub fn contents(&self) -> Vec<u8> {
        self.0.borrow().clone()
    }
}

impl Write for TraceBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::prelude::*;

    /// A 4-bit counter with an enable: the smallest design with state, input and output.
    #[derive(LogicBlock, Default)]
    struct Counter {
        clock: Signal<In, Clock>,
        enable: Signal<In, Bit>,
        count: Signal<Out, Bits<4>>,
        state: DFF<Bits<4>>,
    }

    impl Logic for Counter {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, state);
            self.count.next = self.state.q.val();
            if self.enable.val() {
                self.state.d.next = self.state.q.val() + 1;
            }
        }
    }

    impl_clocked!(Counter);

    /// Counters behind a combinational chain: lane i counts when bit i of `enables` is set
    /// and the sum (mod 16) of the lanes below it is even, so a lane's update depends on its
    /// neighbours' registers through the parent.
    #[derive(LogicBlock)]
    struct Lanes {
        clock: Signal<In, Clock>,
        enables: Signal<In, Bits<4>>,
        total: Signal<Out, Bits<4>>,
        lanes: Vec<Counter>,
        sums: Vec<Signal<Local, Bits<4>>>,
    }

    impl Default for Lanes {
        fn default() -> Self {
            Lanes {
                clock: Default::default(),
                enables: Default::default(),
                total: Default::default(),
                lanes: (0..4).map(|_| Counter::default()).collect(),
                sums: (0..5).map(|_| Default::default()).collect(),
            }
        }
    }

    impl Logic for Lanes {
        #[hdl_gen]
        fn update(&mut self) {
            self.sums[0].next = 0.into();
            for i in 0..4 {
                self.lanes[i].clock.next = self.clock.val();
                self.lanes[i].enable.next =
                    self.enables.val().get_bit(i) & !self.sums[i].val().get_bit(0);
                self.sums[i + 1].next = self.sums[i].val() + self.lanes[i].count.val();
            }
            self.total.next = self.sums[4].val();
        }
    }

    impl_clocked!(Lanes);

    proptest::proptest! {
        /// The activity-driven passes give every output of every cycle that rust-hdl's
        /// every-block passes give.
        #[test]
        fn activity_passes_equal_every_block_passes(
            enables in proptest::collection::vec(0u64..16, 1..40)
        ) {
            let mut a = Driver::new(Lanes::default()).unwrap();
            let mut e = Driver::with_passes(Lanes::default(), DeltaPasses::EveryBlock, None).unwrap();
            for (cycle, &en) in enables.iter().enumerate() {
                for d in [&mut a, &mut e] {
                    d.uut_mut().enables.next = en.to_bits();
                    d.tick().unwrap();
                }
                let counts = |d: &Driver<Lanes>| {
                    d.uut().lanes.iter().map(|l| l.count.val().index()).collect::<Vec<_>>()
                };
                proptest::prop_assert_eq!(counts(&a), counts(&e), "cycle {}", cycle);
                proptest::prop_assert_eq!(a.uut().total.val(), e.uut().total.val());
            }
        }
    }

    /// A register two blocks down between two at the top: its clock reaches it two levels
    /// after theirs when the clock is passed down by each block's `update`.
    #[derive(LogicBlock, Default)]
    struct Stage {
        clock: Signal<In, Clock>,
        d: Signal<In, Bits<4>>,
        q: Signal<Out, Bits<4>>,
        stored: DFF<Bits<4>>,
    }

    impl Logic for Stage {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, stored);
            self.stored.d.next = self.d.val();
            self.q.next = self.stored.q.val();
        }
    }

    #[derive(LogicBlock, Default)]
    struct Nest {
        clock: Signal<In, Clock>,
        d: Signal<In, Bits<4>>,
        q: Signal<Out, Bits<4>>,
        stage: Stage,
    }

    impl Logic for Nest {
        #[hdl_gen]
        fn update(&mut self) {
            self.stage.clock.next = self.clock.val();
            self.stage.d.next = self.d.val();
            self.q.next = self.stage.q.val();
        }
    }

    #[derive(LogicBlock, Default)]
    struct Pipe {
        clock: Signal<In, Clock>,
        data_i: Signal<In, Bits<4>>,
        data_o: Signal<Out, Bits<4>>,
        head: DFF<Bits<4>>,
        deep: Nest,
        tail: DFF<Bits<4>>,
    }

    impl Logic for Pipe {
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, head, tail);
            self.deep.clock.next = self.clock.val();
            self.head.d.next = self.data_i.val();
            self.deep.d.next = self.head.q.val();
            self.tail.d.next = self.deep.q.val();
            self.data_o.next = self.tail.q.val();
        }
    }

    impl_clocked!(Pipe);

    /// A clock, an input and an output bundled as an interface.
    #[derive(LogicInterface, Default)]
    struct ClockedPort {
        clock: Signal<In, Clock>,
        d: Signal<In, Bits<4>>,
        q: Signal<Out, Bits<4>>,
    }

    /// A register written by hand that takes its clock from an interface: its `update` must
    /// run at the edge of a clock its block does not hold itself.
    #[derive(LogicBlock, Default)]
    struct PortRegister {
        port: ClockedPort,
    }

    impl Logic for PortRegister {
        fn update(&mut self) {
            if self.port.clock.pos_edge() {
                self.port.q.next = self.port.d.val();
            }
        }

        fn connect(&mut self) {
            self.port.q.connect();
        }
    }

    #[derive(LogicBlock, Default)]
    struct ThroughPort {
        clock: Signal<In, Clock>,
        data_i: Signal<In, Bits<4>>,
        data_o: Signal<Out, Bits<4>>,
        register: PortRegister,
    }

    impl Logic for ThroughPort {
        #[hdl_gen]
        fn update(&mut self) {
            self.register.port.clock.next = self.clock.val();
            self.register.port.d.next = self.data_i.val();
            self.data_o.next = self.register.port.q.val();
        }
    }

    impl_clocked!(ThroughPort);

    #[test]
    fn a_clock_in_an_interface_ticks_its_holder() {
        let inputs = [3u64, 9, 0, 15, 7];
        let mut a = Driver::new(ThroughPort::default()).unwrap();
        let mut e =
            Driver::with_passes(ThroughPort::default(), DeltaPasses::EveryBlock, None).unwrap();
        for (cycle, &x) in inputs.iter().enumerate() {
            for d in [&mut a, &mut e] {
                d.uut_mut().data_i.next = x.to_bits();
                d.tick().unwrap();
                assert_eq!(d.uut().data_o.val().index() as u64, x, "cycle {cycle}");
            }
        }
    }

    proptest::proptest! {
        /// Every register samples what its input held before the edge, wherever it sits in
        /// the hierarchy: after each edge, the three-register pipe's output is the input of
        /// two cycles before (sampled three edges ago) in both kinds of passes, and their
        /// traces (falling edges included) are the same bytes.
        #[test]
        fn registers_at_every_depth_sample_before_the_edge(
            inputs in proptest::collection::vec(0u64..16, 4..30)
        ) {
            let (ta, te) = (TraceBuffer::default(), TraceBuffer::default());
            let mut a = Driver::with_passes(Pipe::default(), DeltaPasses::Activity, Some(Box::new(ta.clone()))).unwrap();
            let mut e = Driver::with_passes(Pipe::default(), DeltaPasses::EveryBlock, Some(Box::new(te.clone()))).unwrap();
            for (cycle, &x) in inputs.iter().enumerate() {
                for d in [&mut a, &mut e] {
                    d.uut_mut().data_i.next = x.to_bits();
                    d.tick().unwrap();
                    let want = if cycle >= 2 { inputs[cycle - 2] } else { 0 };
                    proptest::prop_assert_eq!(d.uut().data_o.val().index() as u64, want, "cycle {}", cycle);
                }
            }
            drop((a, e));
            proptest::prop_assert!(ta.contents() == te.contents(), "the traces differ");
        }
    }

    #[test]
    fn registers_update_once_per_tick_and_only_when_enabled() {
        let mut d = Driver::new(Counter::default()).unwrap();
        d.uut_mut().enable.next = true;
        d.run(5).unwrap();
        assert_eq!(d.uut().count.val(), 5);
        d.uut_mut().enable.next = false;
        d.run(3).unwrap();
        assert_eq!(d.uut().count.val(), 5);
        assert_eq!(d.cycle(), 8);
    }

    #[test]
    fn vcd_trace_declares_signals_and_records_changes() {
        let buf = TraceBuffer::default();
        let mut d = Driver::with_vcd(Counter::default(), buf.clone()).unwrap();
        d.uut_mut().enable.next = true;
        d.run(3).unwrap();
        drop(d);
        let text = buf.contents();
        let mut parser = vcd::Parser::new(&text[..]);
        let header = parser.parse_header().unwrap();
        let count = header.find_var(&["uut", "count"]).expect("count declared");
        let changes = parser
            .filter_map(Result::ok)
            .filter(|c| matches!(c, vcd::Command::ChangeVector(id, _) if *id == count.code))
            .count();
        assert!(changes >= 3, "count changed {changes} times");
    }
}
