//! BCC/SCC swizzle unit: the pass schedule of one vector instruction under intra-wavefront
//! compaction (Vaidya et al., ISCA'13, "SIMD Divergence Optimization through Intra-Warp
//! Compaction"; digest §1.4–1.5).
//!
//! A wavefront of `W` lanes executes on an ALU of `L` positions, one *pass* per cycle. Lane
//! `q·L + l` belongs to lane group `q` (S1's quad) at home position `l`. The unit latches the
//! instruction's final execution mask at `start_i` and then emits one pass per cycle:
//!
//! * **none**: every group, in order, `W / L` passes whatever the mask;
//! * **BCC** (basic cycle compression): only groups with an active lane, in order;
//! * **SCC** (swizzled cycle compression): `ceil(popcount / L)` passes. When that equals the
//!   number of non-empty groups the BCC schedule is used (S1 Fig. 6: no swizzle needed);
//!   otherwise S1's queue algorithm packs lanes: position `n` first drains its own queue (the
//!   groups whose lane `n` is active, lowest group first), and a position whose queue is empty
//!   borrows from the lowest lane that still has *surplus* (more queued groups than passes).
//!
//! The datapath is S1 Fig. 5(c): each group feeds an `L`-input crossbar whose outputs are
//! enabled per position, and the enabled outputs share one `L`-wide bus. Per pass and position
//! the unit drives the group select (`group_o`, the crossbar enable), the crossbar input
//! (`lane_o`), the resulting source lane (`src_o = group·L + lane`) and `active_o`. Write-back
//! applies the inverse permutation: for every wavefront lane `i`, `wb_en_o[i]` says whether its
//! result is produced in this pass and `wb_pos_o[i]` names the ALU position that produces it.
//!
//! The hardware does not replay the sequential queue algorithm position by position; it uses
//! its closed form, which needs only prefix sums (see `update`): a lane with surplus keeps its
//! own position busy in every pass, so position `p` is served from its own queue exactly in the
//! passes `c < a_ln[p]`; the remaining (free) slots, in (pass, position) order, receive the
//! donor lanes in ascending order, each repeated `surplus` times; and the group a dequeue takes
//! is the `j`-th queued group of its lane, `j` counting the earlier dequeues of that lane.
//! The golden model in `pws-verify` runs the queue algorithm literally, so the two are
//! independent.
//!
//! Timing: `start_i` is sampled while `ready_o` is high; the first pass is on the outputs in
//! the next cycle (`pass_valid_o`), one pass per cycle, `last_o` with the final one. `done_o`
//! marks the cycle the unit finishes; with no pass to issue (an all-zero mask under BCC/SCC)
//! that is the cycle after `start_i`, with `pass_valid_o` low: zero ALU passes, one cycle of
//! the unit. A `start_i` while busy is ignored.

use rust_hdl::prelude::*;

use crate::config::HwConfig;

/// Lane groups the datapath has crossbars for (S1: four quads of a SIMD16 operand latch).
pub const MAX_GROUPS: usize = 4;
/// Widest ALU: positions are numbered in 4 bits.
pub const MAX_LANES: usize = 16;
/// Widest wavefront: lane numbers are 6 bits.
pub const MAX_WIDTH: usize = MAX_GROUPS * MAX_LANES;

/// Counter width of the schedule arithmetic; every count (lanes, surplus, free slots) fits.
type Count = Bits<8>;

/// Which compaction the unit applies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SwizzleMode {
    /// Every lane group is issued.
    None,
    /// Basic cycle compression: empty lane groups are skipped.
    Bcc,
    /// Swizzled cycle compression: active lanes are packed into `ceil(active / L)` passes.
    Scc,
}

/// A wavefront/ALU geometry the swizzle unit cannot be built for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SwizzleConfigError {
    Lanes { lanes: usize },
    Width { width: usize, lanes: usize },
}

impl std::fmt::Display for SwizzleConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SwizzleConfigError::Lanes { lanes } => write!(
                f,
                "{lanes} lanes per pass: the swizzle unit supports 1..={MAX_LANES} ALU positions"
            ),
            SwizzleConfigError::Width { width, lanes } => write!(
                f,
                "wavefront width {width} must be a multiple of the {lanes} lanes per pass, \
                 with at most {MAX_GROUPS} lane groups (one crossbar each)"
            ),
        }
    }
}

impl std::error::Error for SwizzleConfigError {}

/// The BCC/SCC swizzle unit for a `width`-lane wavefront on a `lanes`-position ALU.
#[derive(LogicBlock)]
pub struct SwizzleUnit {
    pub clock: Signal<In, Clock>,
    /// Latch `mask_i` and `mode_i` and start issuing (honoured while `ready_o`).
    pub start_i: Signal<In, Bit>,
    pub mode_i: Signal<In, SwizzleMode>,
    /// The execution mask, one word per lane group: bit `l` of word `q` is lane `q·L + l`.
    /// Bits at or above `L`, and words of groups beyond `W / L`, are ignored.
    pub mask_i: Vec<Signal<In, Bits<MAX_LANES>>>,
    /// Idle: a `start_i` now is accepted.
    pub ready_o: Signal<Out, Bit>,
    /// The outputs below describe a pass the ALU executes this cycle.
    pub pass_valid_o: Signal<Out, Bit>,
    /// This is the instruction's last pass.
    pub last_o: Signal<Out, Bit>,
    /// The unit finishes this cycle (with the last pass, or alone when there is none).
    pub done_o: Signal<Out, Bit>,
    /// Index of the current pass.
    pub pass_o: Signal<Out, Bits<3>>,
    /// Passes of the current instruction.
    pub passes_o: Signal<Out, Bits<3>>,
    /// Per ALU position: it executes a lane in this pass.
    pub active_o: Vec<Signal<Out, Bit>>,
    /// Per ALU position: the lane group whose crossbar drives it (the group's output enable).
    pub group_o: Vec<Signal<Out, Bits<2>>>,
    /// Per ALU position: the crossbar input, i.e. the source lane within the group.
    pub lane_o: Vec<Signal<Out, Bits<4>>>,
    /// Per ALU position: the wavefront lane executed there, `group·L + lane`.
    pub src_o: Vec<Signal<Out, Bits<6>>>,
    /// Per wavefront lane: its result is written back in this pass.
    pub wb_en_o: Vec<Signal<Out, Bit>>,
    /// Per wavefront lane: the ALU position holding its result (the un-swizzle select).
    pub wb_pos_o: Vec<Signal<Out, Bits<4>>>,
    mask: Vec<DFF<Bits<MAX_LANES>>>,
    mode: DFF<SwizzleMode>,
    busy: DFF<Bit>,
    pass: DFF<Count>,
    /// Free (pass, position) slots of the passes already issued.
    free_before: DFF<Count>,
    /// rank[p·5 + q]: active lanes at position p in groups below q; rank[p·5 + 4] = a_ln[p].
    rank: Vec<Signal<Local, Count>>,
    /// Running total of active lanes over positions.
    pop_acc: Vec<Signal<Local, Count>>,
    /// Running count of the group thresholds the population exceeds: o_cyc at the end.
    o_acc: Vec<Signal<Local, Count>>,
    surplus: Vec<Signal<Local, Count>>,
    /// Exclusive prefix sums of the surplus: donor m serves the lends [cs[m], cs[m] + s[m]).
    cs: Vec<Signal<Local, Count>>,
    /// Running count of non-empty groups: nz_acc[q] is the BCC pass of group q.
    nz_acc: Vec<Signal<Local, Count>>,
    /// The totals of the chains above: active lanes, lends (Σ surplus), free slots this pass.
    pop: Signal<Local, Count>,
    lends: Signal<Local, Count>,
    free_total: Signal<Local, Count>,
    passes: Signal<Local, Count>,
    /// SCC with fewer passes than non-empty groups: the queue schedule, not the BCC one.
    swizzle: Signal<Local, Bit>,
    /// Position p's own queue is exhausted in this pass (a_ln[p] <= pass).
    free: Vec<Signal<Local, Bit>>,
    /// Free slots before position p in this pass.
    free_acc: Vec<Signal<Local, Count>>,
    /// Global index of the (pass, position) slot among all free slots.
    slot: Vec<Signal<Local, Count>>,
    /// For an own dequeue at position p: the lends its lane made before it.
    lent_before: Vec<Signal<Local, Count>>,
    /// The donor a borrowing position is served by (reused for each position): its lane,
    /// which of its groups are queued, their ranks, and the rank of the entry this slot takes.
    donor_lane: Signal<Local, Bits<4>>,
    donor_mask: Signal<Local, Bits<MAX_GROUPS>>,
    donor_rank: Vec<Signal<Local, Count>>,
    donor_target: Signal<Local, Count>,
    position_id: Vec<Constant<Bits<4>>>,
    position_count: Vec<Constant<Count>>,
    lane_id: Vec<Constant<Bits<6>>>,
    group_id: Vec<Constant<Bits<2>>>,
    group_count: Vec<Constant<Count>>,
    group_base: Vec<Constant<Bits<6>>>,
    /// q·L: the population above which an instruction needs more than q passes.
    group_threshold: Vec<Constant<Count>>,
    group_enabled: Vec<Constant<Bit>>,
    lane_mask: Constant<Bits<MAX_LANES>>,
    groups: Constant<Count>,
    last_position: Constant<Count>,
    zero: Constant<Count>,
    one: Constant<Count>,
    _lanes: usize,
    _width: usize,
    /// W, or 0 for a unit without the write-back outputs.
    _write_back_lanes: usize,
}

impl SwizzleUnit {
    /// A unit for `width`-lane wavefronts on `lanes` ALU positions (`width / lanes` groups).
    pub fn new(width: usize, lanes: usize) -> Result<Self, SwizzleConfigError> {
        Self::build(width, lanes, true)
    }

    /// The same unit without `wb_en_o`/`wb_pos_o` (empty vectors): for a datapath whose
    /// crossbars apply the inverse permutation themselves, which then carries no unused W x L
    /// search.
    pub fn without_write_back(width: usize, lanes: usize) -> Result<Self, SwizzleConfigError> {
        Self::build(width, lanes, false)
    }

    fn build(width: usize, lanes: usize, write_back: bool) -> Result<Self, SwizzleConfigError> {
        if !(1..=MAX_LANES).contains(&lanes) {
            return Err(SwizzleConfigError::Lanes { lanes });
        }
        if width == 0 || width % lanes != 0 || width / lanes > MAX_GROUPS {
            return Err(SwizzleConfigError::Width { width, lanes });
        }
        let groups = width / lanes;
        let write_back_lanes = if write_back { width } else { 0 };
        let count = |n: usize| Constant::new(Count::from(n as u64));
        Ok(SwizzleUnit {
            clock: Default::default(),
            start_i: Default::default(),
            mode_i: Default::default(),
            mask_i: (0..MAX_GROUPS).map(|_| Default::default()).collect(),
            ready_o: Default::default(),
            pass_valid_o: Default::default(),
            last_o: Default::default(),
            done_o: Default::default(),
            pass_o: Default::default(),
            passes_o: Default::default(),
            active_o: (0..lanes).map(|_| Default::default()).collect(),
            group_o: (0..lanes).map(|_| Default::default()).collect(),
            lane_o: (0..lanes).map(|_| Default::default()).collect(),
            src_o: (0..lanes).map(|_| Default::default()).collect(),
            wb_en_o: (0..write_back_lanes).map(|_| Default::default()).collect(),
            wb_pos_o: (0..write_back_lanes).map(|_| Default::default()).collect(),
            mask: (0..MAX_GROUPS).map(|_| Default::default()).collect(),
            mode: Default::default(),
            busy: Default::default(),
            pass: Default::default(),
            free_before: Default::default(),
            rank: (0..lanes * (MAX_GROUPS + 1))
                .map(|_| Default::default())
                .collect(),
            pop_acc: (0..=lanes).map(|_| Default::default()).collect(),
            o_acc: (0..=MAX_GROUPS).map(|_| Default::default()).collect(),
            surplus: (0..lanes).map(|_| Default::default()).collect(),
            cs: (0..=lanes).map(|_| Default::default()).collect(),
            nz_acc: (0..=MAX_GROUPS).map(|_| Default::default()).collect(),
            pop: Default::default(),
            lends: Default::default(),
            free_total: Default::default(),
            passes: Default::default(),
            swizzle: Default::default(),
            free: (0..lanes).map(|_| Default::default()).collect(),
            free_acc: (0..=lanes).map(|_| Default::default()).collect(),
            slot: (0..lanes).map(|_| Default::default()).collect(),
            lent_before: (0..lanes).map(|_| Default::default()).collect(),
            donor_lane: Default::default(),
            donor_mask: Default::default(),
            donor_rank: (0..MAX_GROUPS).map(|_| Default::default()).collect(),
            donor_target: Default::default(),
            position_id: (0..lanes)
                .map(|p| Constant::new(Bits::from(p as u64)))
                .collect(),
            position_count: (0..lanes).map(count).collect(),
            lane_id: (0..width)
                .map(|i| Constant::new(Bits::from(i as u64)))
                .collect(),
            group_id: (0..MAX_GROUPS)
                .map(|q| Constant::new(Bits::from(q as u64)))
                .collect(),
            group_count: (0..MAX_GROUPS).map(count).collect(),
            group_base: (0..MAX_GROUPS)
                .map(|q| Constant::new(Bits::from((q * lanes) as u64)))
                .collect(),
            group_threshold: (0..MAX_GROUPS).map(|q| count(q * lanes)).collect(),
            group_enabled: (0..MAX_GROUPS).map(|q| Constant::new(q < groups)).collect(),
            lane_mask: Constant::new(Bits::from((1u64 << lanes) - 1)),
            groups: count(groups),
            last_position: count(lanes - 1),
            zero: count(0),
            one: count(1),
            _lanes: lanes,
            _width: width,
            _write_back_lanes: write_back_lanes,
        })
    }

    /// The unit for the configuration's wavefront width and SIMD lanes.
    pub fn from_config(cfg: &HwConfig) -> Result<Self, SwizzleConfigError> {
        Self::new(cfg.wavefront_width, cfg.lanes_per_simd)
    }

    /// ALU positions `L`.
    pub fn lanes(&self) -> usize {
        self._lanes
    }

    /// Wavefront width `W`.
    pub fn width(&self) -> usize {
        self._width
    }

    /// Drives `mask_i` from a mask with bit i = lane i.
    pub fn set_mask(&mut self, mask: u64) {
        let lanes = self._lanes;
        for (q, word) in self.mask_i.iter_mut().enumerate() {
            word.next = Bits::from((mask >> (q * lanes)) & ((1u64 << lanes) - 1));
        }
    }

    /// The pass on the outputs: for each ALU position, the wavefront lane it executes.
    pub fn current_pass(&self) -> Vec<Option<usize>> {
        (0..self._lanes)
            .map(|p| self.active_o[p].val().then(|| self.src_o[p].val().index()))
            .collect()
    }

    /// The write-back of the pass on the outputs: for each wavefront lane, the ALU position
    /// whose result it receives (empty for a unit built [`Self::without_write_back`]).
    pub fn current_write_back(&self) -> Vec<Option<usize>> {
        (0..self._write_back_lanes)
            .map(|i| {
                self.wb_en_o[i]
                    .val()
                    .then(|| self.wb_pos_o[i].val().index())
            })
            .collect()
    }
}

impl Logic for SwizzleUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mode, busy, pass, free_before);
        for q in 0..MAX_GROUPS {
            self.mask[q].clock.next = self.clock.val();
            self.mask[q].d.next = self.mask[q].q.val();
        }

        // Per position p, the queue of groups whose lane p is active: its length a_ln[p] and
        // the rank of each entry.
        for p in 0..self._lanes {
            self.rank[p * 5].next = self.zero.val();
            for q in 0..MAX_GROUPS {
                self.rank[p * 5 + q + 1].next =
                    self.rank[p * 5 + q].val() + self.mask[q].q.val().get_bit(p);
            }
        }
        // Each chain's total is read from its last element inside the loop that builds it: a
        // vector index must be a loop expression, and the Verilog always-block must assign a
        // value before reading it.
        self.pop_acc[0].next = self.zero.val();
        self.pop.next = self.zero.val();
        for p in 0..self._lanes {
            self.pop_acc[p + 1].next = self.pop_acc[p].val() + self.rank[p * 5 + 4].val();
            if self.position_count[p].val() == self.last_position.val() {
                self.pop.next = self.pop_acc[p + 1].val();
            }
        }
        // o_cyc = ceil(pop / L), counted as the number of thresholds q·L that pop exceeds.
        self.o_acc[0].next = self.zero.val();
        for q in 0..MAX_GROUPS {
            self.o_acc[q + 1].next =
                self.o_acc[q].val() + (self.pop.val() > self.group_threshold[q].val());
        }
        self.cs[0].next = self.zero.val();
        self.lends.next = self.zero.val();
        for p in 0..self._lanes {
            self.surplus[p].next = self.zero.val();
            if self.rank[p * 5 + 4].val() > self.o_acc[4].val() {
                self.surplus[p].next = self.rank[p * 5 + 4].val() - self.o_acc[4].val();
            }
            self.cs[p + 1].next = self.cs[p].val() + self.surplus[p].val();
            if self.position_count[p].val() == self.last_position.val() {
                self.lends.next = self.cs[p + 1].val();
            }
        }
        self.nz_acc[0].next = self.zero.val();
        for q in 0..MAX_GROUPS {
            self.nz_acc[q + 1].next = self.nz_acc[q].val() + self.mask[q].q.val().any();
        }
        self.swizzle.next =
            (self.mode.q.val() == SwizzleMode::Scc) & (self.nz_acc[4].val() != self.o_acc[4].val());
        self.passes.next = self.groups.val();
        if self.mode.q.val() == SwizzleMode::Bcc {
            self.passes.next = self.nz_acc[4].val();
        }
        if self.mode.q.val() == SwizzleMode::Scc {
            self.passes.next = self.o_acc[4].val();
        }

        // Free slots of this pass and their global order.
        self.free_acc[0].next = self.zero.val();
        self.free_total.next = self.zero.val();
        for p in 0..self._lanes {
            self.free[p].next = self.rank[p * 5 + 4].val() <= self.pass.q.val();
            self.free_acc[p + 1].next = self.free_acc[p].val() + self.free[p].val();
            if self.position_count[p].val() == self.last_position.val() {
                self.free_total.next = self.free_acc[p + 1].val();
            }
            self.slot[p].next = self.free_before.q.val() + self.free_acc[p].val();
            // An own dequeue follows the lends its lane made in earlier free slots.
            self.lent_before[p].next = self.zero.val();
            if self.slot[p].val() > self.cs[p].val() {
                self.lent_before[p].next = self.slot[p].val() - self.cs[p].val();
                if self.slot[p].val() - self.cs[p].val() > self.surplus[p].val() {
                    self.lent_before[p].next = self.surplus[p].val();
                }
            }
        }

        // Pass control.
        self.ready_o.next = !self.busy.q.val();
        self.pass_valid_o.next = self.busy.q.val() & (self.pass.q.val() < self.passes.val());
        self.last_o.next =
            self.busy.q.val() & (self.pass.q.val() + self.one.val() == self.passes.val());
        self.done_o.next =
            self.busy.q.val() & (self.pass.q.val() + self.one.val() >= self.passes.val());
        self.pass_o.next = bit_cast::<3, 8>(self.pass.q.val());
        self.passes_o.next = bit_cast::<3, 8>(self.passes.val());
        if self.busy.q.val() {
            self.pass.d.next = self.pass.q.val() + self.one.val();
            self.free_before.d.next = self.free_before.q.val() + self.free_total.val();
            if self.pass.q.val() + self.one.val() >= self.passes.val() {
                self.busy.d.next = false;
            }
        } else if self.start_i.val() {
            self.busy.d.next = true;
            self.pass.d.next = self.zero.val();
            self.free_before.d.next = self.zero.val();
            self.mode.d.next = self.mode_i.val();
            for q in 0..MAX_GROUPS {
                self.mask[q].d.next = 0.into();
                if self.group_enabled[q].val() {
                    self.mask[q].d.next = self.mask_i[q].val() & self.lane_mask.val();
                }
            }
        }

        // The schedule of this pass.
        self.donor_lane.next = 0.into();
        self.donor_mask.next = 0.into();
        self.donor_target.next = self.zero.val();
        for q in 0..MAX_GROUPS {
            self.donor_rank[q].next = self.zero.val();
        }
        for p in 0..self._lanes {
            self.active_o[p].next = false;
            self.group_o[p].next = 0.into();
            self.lane_o[p].next = 0.into();
            self.src_o[p].next = 0.into();
        }
        if self.pass_valid_o.val() & self.swizzle.val() {
            for p in 0..self._lanes {
                if !self.free[p].val() {
                    // Own queue: its entry after the pass's own dequeues and earlier lends.
                    for q in 0..MAX_GROUPS {
                        if self.mask[q].q.val().get_bit(p)
                            & (self.rank[p * 5 + q].val()
                                == self.pass.q.val() + self.lent_before[p].val())
                        {
                            self.active_o[p].next = true;
                            self.group_o[p].next = self.group_id[q].val();
                            self.lane_o[p].next = self.position_id[p].val();
                            self.src_o[p].next = self.group_base[q].val() + self.lane_id[p].val();
                        }
                    }
                } else if self.slot[p].val() < self.lends.val() {
                    // Borrow from donor m: the lane whose surplus range holds this slot. Its
                    // queue has seen `pass` own dequeues (one more if m < p, this pass) and
                    // slot - cs[m] earlier lends. The donor is found first and its queue read
                    // out, so the group search is one 4-way compare, not one per lane.
                    self.donor_lane.next = 0.into();
                    self.donor_mask.next = 0.into();
                    self.donor_target.next = self.pass.q.val() + self.slot[p].val();
                    for q in 0..MAX_GROUPS {
                        self.donor_rank[q].next = self.zero.val();
                    }
                    for m in 0..self._lanes {
                        if (self.cs[m].val() <= self.slot[p].val())
                            & (self.slot[p].val() < self.cs[m + 1].val())
                        {
                            self.donor_lane.next = self.position_id[m].val();
                            self.donor_target.next =
                                self.pass.q.val() + self.slot[p].val() - self.cs[m].val();
                            if self.position_count[m].val() < self.position_count[p].val() {
                                self.donor_target.next =
                                    self.pass.q.val() + self.one.val() + self.slot[p].val()
                                        - self.cs[m].val();
                            }
                            for q in 0..MAX_GROUPS {
                                self.donor_rank[q].next = self.rank[m * 5 + q].val();
                                self.donor_mask.next = self
                                    .donor_mask
                                    .val()
                                    .replace_bit(q, self.mask[q].q.val().get_bit(m));
                            }
                        }
                    }
                    for q in 0..MAX_GROUPS {
                        if self.donor_mask.val().get_bit(q)
                            & (self.donor_rank[q].val() == self.donor_target.val())
                        {
                            self.active_o[p].next = true;
                            self.group_o[p].next = self.group_id[q].val();
                            self.lane_o[p].next = self.donor_lane.val();
                            self.src_o[p].next =
                                self.group_base[q].val() + bit_cast::<6, 4>(self.donor_lane.val());
                        }
                    }
                }
            }
        } else if self.pass_valid_o.val() {
            // Whole groups in place: group q is issued in pass q (none) or in pass nz_acc[q]
            // when it has an active lane (BCC, and SCC when no swizzle can save a pass).
            for q in 0..MAX_GROUPS {
                if ((self.mode.q.val() == SwizzleMode::None)
                    & (self.group_count[q].val() == self.pass.q.val()))
                    | ((self.mode.q.val() != SwizzleMode::None)
                        & self.mask[q].q.val().any()
                        & (self.nz_acc[q].val() == self.pass.q.val()))
                {
                    for p in 0..self._lanes {
                        self.active_o[p].next = self.mask[q].q.val().get_bit(p);
                        self.group_o[p].next = self.group_id[q].val();
                        self.lane_o[p].next = self.position_id[p].val();
                        self.src_o[p].next = self.group_base[q].val() + self.lane_id[p].val();
                    }
                }
            }
        }

        // Un-swizzle: each executed lane's result returns to its source lane. No position is
        // active outside a pass, so the lane x position search is skipped then: the same logic,
        // and an idle unit costs the simulator W assignments instead of W x L compares.
        for i in 0..self._write_back_lanes {
            self.wb_en_o[i].next = false;
            self.wb_pos_o[i].next = 0.into();
        }
        if self.pass_valid_o.val() {
            for i in 0..self._write_back_lanes {
                for p in 0..self._lanes {
                    if self.active_o[p].val() & (self.src_o[p].val() == self.lane_id[i].val()) {
                        self.wb_en_o[i].next = true;
                        self.wb_pos_o[i].next = self.position_id[p].val();
                    }
                }
            }
        }
    }
}
