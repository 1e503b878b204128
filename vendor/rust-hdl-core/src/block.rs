use crate::logic::Logic;
use crate::probe::Probe;

/// The [Block] trait is required for all circuitry that
/// can be simulated by RustHDL.  If you want to be able
/// to simulate a circuit, the corresponding struct must
/// impl [Block].  Normally, this is done via the `#[derive(LogicBlock)]`
/// construct, and you will rarely, if ever, need to
/// impl the [Block] trait yourself.
pub trait Block: Logic {
    /// Connects the internal signals of the circuit - used to initialize the circuit
    fn connect_all(&mut self);
    /// Propogate changes from inputs to outputs within the circuit
    fn update_all(&mut self);
    /// Returns `true` if anything in the circuit has changed (outputs or internal state)
    fn has_changed(&self) -> bool;
    /// The visitor pattern - allows a circuit to be probed by a [Probe] struct.
    fn accept(&self, name: &str, probe: &mut dyn Probe);
    /// One delta pass like [Block::update_all] that skips quiet subtrees and `update`s whose
    /// inputs did not change (see [Activity]); returns whether any signal changed, which
    /// [Block::has_changed] would report after it (pws patch, PATCH.md).
    fn update_all_tracked(&mut self, _activity: &mut Activity) -> bool {
        self.update_all();
        self.has_changed()
    }
    /// A signal whose `next` differs from its value: it will change when committed.
    fn signal_pending(&self) -> bool {
        false
    }
    /// A signal that changed in the last delta pass that committed it.
    fn signal_changed(&self) -> bool {
        false
    }
    /// Whether a signal this block exposes to its parent changed: for a signal, itself; for a
    /// block, any of its own signals (its ports, which the parent's `update` reads).
    fn ports_changed(&self) -> bool {
        self.signal_changed()
    }
    /// Drives every clock signal of the design to one edge at once, for a design with one
    /// clock domain whose logic reacts to rising edges only (pws patch, PATCH.md). A rising
    /// edge is left pending, to be committed by the next delta pass, so that every flip-flop
    /// sees it in the same pass and samples what its inputs held before it. A falling edge is
    /// committed as settled: nothing reads it, so no logic runs for it. Required, so that a
    /// block implemented by hand cannot leave its clocks behind.
    fn drive_clocks(&mut self, edge: ClockEdge);
    /// A clock signal that changed in the last delta pass that committed it; clocks are not
    /// [Block::signal_changed] (pws patch, PATCH.md).
    fn clock_changed(&self) -> bool {
        false
    }
    /// An output that changed in the last delta pass that committed it: what a parent reads
    /// of its child (pws patch, PATCH.md).
    fn output_changed(&self) -> bool {
        false
    }
    /// Commits a clock signal high; returns whether it rose. A no-op on blocks.
    fn raise_clock(&mut self) -> bool {
        false
    }
    /// The delta pass of a rising edge (pws patch, PATCH.md): every clock of the design rises,
    /// the `update`s that read a clock run, and every signal commits, which is what
    /// [Block::drive_clocks] and the two [Block::update_all_tracked] passes after it do, in
    /// one walk of the design instead of two; returns whether anything changed.
    fn rising_edge_tracked(&mut self, activity: &mut Activity) -> bool {
        self.drive_clocks(ClockEdge::Rising);
        self.update_all_tracked(activity)
    }
}

/// The edge [Block::drive_clocks] drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockEdge {
    Rising,
    Falling,
}

impl<B: Block> Block for Vec<B> {
    fn update_all_tracked(&mut self, activity: &mut Activity) -> bool {
        let mut changed = false;
        for x in self {
            changed |= x.update_all_tracked(activity);
        }
        changed
    }

    fn signal_pending(&self) -> bool {
        self.iter().any(|x| x.signal_pending())
    }

    fn signal_changed(&self) -> bool {
        self.iter().any(|x| x.signal_changed())
    }

    fn ports_changed(&self) -> bool {
        self.iter().any(|x| x.ports_changed())
    }

    fn drive_clocks(&mut self, edge: ClockEdge) {
        for x in self {
            x.drive_clocks(edge);
        }
    }

    fn clock_changed(&self) -> bool {
        self.iter().any(|x| x.clock_changed())
    }

    fn output_changed(&self) -> bool {
        self.iter().any(|x| x.output_changed())
    }

    fn raise_clock(&mut self) -> bool {
        let mut rose = false;
        for x in self {
            rose |= x.raise_clock();
        }
        rose
    }

    fn rising_edge_tracked(&mut self, activity: &mut Activity) -> bool {
        let mut changed = false;
        for x in self {
            changed |= x.rising_edge_tracked(activity);
        }
        changed
    }

    fn connect_all(&mut self) {
        for x in self {
            x.connect_all();
        }
    }

    fn update_all(&mut self) {
        for x in self {
            x.update_all();
        }
    }

    fn has_changed(&self) -> bool {
        for x in self {
            if x.has_changed() {
                return true;
            }
        }
        false
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        if !probe.wants_names() {
            return self.iter().for_each(|x| x.accept(name, probe));
        }
        for x in self.iter().enumerate() {
            let name = format!("{}${}", name, x.0);
            x.1.accept(&name, probe);
        }
    }
}

impl<B: Block, const P: usize> Block for [B; P] {
    fn update_all_tracked(&mut self, activity: &mut Activity) -> bool {
        let mut changed = false;
        for x in self {
            changed |= x.update_all_tracked(activity);
        }
        changed
    }

    fn signal_pending(&self) -> bool {
        self.iter().any(|x| x.signal_pending())
    }

    fn signal_changed(&self) -> bool {
        self.iter().any(|x| x.signal_changed())
    }

    fn ports_changed(&self) -> bool {
        self.iter().any(|x| x.ports_changed())
    }

    fn drive_clocks(&mut self, edge: ClockEdge) {
        for x in self {
            x.drive_clocks(edge);
        }
    }

    fn clock_changed(&self) -> bool {
        self.iter().any(|x| x.clock_changed())
    }

    fn output_changed(&self) -> bool {
        self.iter().any(|x| x.output_changed())
    }

    fn raise_clock(&mut self) -> bool {
        let mut rose = false;
        for x in self {
            rose |= x.raise_clock();
        }
        rose
    }

    fn rising_edge_tracked(&mut self, activity: &mut Activity) -> bool {
        let mut changed = false;
        for x in self {
            changed |= x.rising_edge_tracked(activity);
        }
        changed
    }

    fn connect_all(&mut self) {
        for x in self {
            x.connect_all();
        }
    }

    fn update_all(&mut self) {
        for x in self {
            x.update_all();
        }
    }

    fn has_changed(&self) -> bool {
        for x in self {
            if x.has_changed() {
                return true;
            }
        }
        false
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        if !probe.wants_names() {
            return self.iter().for_each(|x| x.accept(name, probe));
        }
        for x in self.iter().enumerate() {
            let name = format!("{}${}", name, x.0);
            x.1.accept(&name, probe);
        }
    }
}

/// Where an activity-driven settle ([`crate::simulate::simulate_tracked`]) stands in a design:
/// one entry per block, in the order `update_all_tracked` visits them (pre-order), holding
/// the number of blocks in its subtree and whether anything in that subtree changed the last
/// time it ran. A subtree that did not change and whose own signals have nothing pending is
/// skipped whole; a block whose own signals and its children's ports did not change skips its
/// `update`, which is then known to write what it wrote before (pws patch, PATCH.md).
#[derive(Clone, Debug, Default)]
pub struct Activity {
    entries: Vec<ActivityEntry>,
    cursor: usize,
}

#[derive(Clone, Copy, Debug)]
struct ActivityEntry {
    /// Blocks in the subtree, the block included; 0 until the block has run.
    subtree: usize,
    dirty: bool,
}

impl Activity {
    /// Starts a delta pass at the top of the design.
    pub fn rewind(&mut self) {
        self.cursor = 0;
    }

    /// Enters the next block in visiting order and returns its entry.
    #[inline]
    pub fn enter(&mut self) -> usize {
        let me = self.cursor;
        if me == self.entries.len() {
            self.entries.push(ActivityEntry {
                subtree: 0,
                dirty: true,
            });
        }
        self.cursor += 1;
        me
    }

    /// Whether the block's subtree changed the last time it ran (or never ran).
    #[inline]
    pub fn is_dirty(&self, me: usize) -> bool {
        self.entries[me].dirty
    }

    /// Whether the block's `update` ran at least once.
    #[inline]
    pub fn seen(&self, me: usize) -> bool {
        self.entries[me].subtree != 0
    }

    /// Skips the block's subtree, which is quiet: nothing in it changed when it last ran.
    #[inline]
    pub fn skip(&mut self, me: usize) {
        self.cursor = me + self.entries[me].subtree;
    }

    /// Leaves the block after its subtree ran; `changed` is whether any signal in it changed.
    #[inline]
    pub fn leave(&mut self, me: usize, changed: bool) {
        let entry = &mut self.entries[me];
        entry.subtree = self.cursor - me;
        entry.dirty = changed;
    }
}
