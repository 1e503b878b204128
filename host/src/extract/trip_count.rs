//! Loop bounds the assembly proves: a counted loop, as clang emits `for (int j = 0; j < 64;
//! j++)` when it does not unroll it, needs no `PWS_LOOP_BOUND`, whether every lane runs it to
//! the end or some leave early (`if (x[j] == key) break;`).
//!
//! The shape recognised (and nothing else; any doubt leaves the loop unbounded, and the
//! analysis asks for an annotation as before):
//! - an exit test: in a block T of the loop itself (not of a loop inside it), an
//!   `s_cmp_*_{i,u}32` / `s_cmpk_*` of one SGPR with a known value (a constant, or an SGPR the
//!   loop does not write whose value on entry [`ScalarValues`] knows: a kernel argument, the
//!   workgroup size), one of whose results ends the loop whatever the lanes' data, and such
//!   that an iteration that does not run it does not go on either
//!   ([`exit_mask::leaves_when`] shows that no state reaches the header again: through SCC
//!   itself, or through the lane masks of a divergent loop);
//! - a counter s with exactly one definition in the loop (nested loops included), in a block U
//!   of the loop itself that dominates every latch or is T itself (so it runs once in every
//!   iteration that goes on, before or after the test): `s_add_{u,i}32 s, s, C`,
//!   `s_sub_{u,i}32 s, s, C`, `s_addk_i32 s, C`, a shift by a constant (`s_lshl_b32`,
//!   `s_lshr_b32`, `s_ashr_i32`) or a product with one (`s_mul_i32`, `s_mulk_i32`), C a
//!   constant or a known SGPR the loop does not write (`i += step`, a kernel argument); or
//!   `s_mov_b32 s, t` where t = s op C is the write of t it reads; or s = t op C where t = s
//!   is. The compare reads s, or a value u = s op K computed from it in the iteration (K a
//!   constant or a known SGPR the loop does not write);
//! - on every entry into the loop s holds the same known value.
//!
//! The compared value may also be a second such counter (`for (i = 0, j = n; i < j; i++,
//! j--)`): then both run from their values on entry.
//!
//! A loop nested in counted loops whose counters it starts at or compares with is run once
//! for each combination of values those counters take at their headers
//! ([`ScalarValues::assuming`]), and bounded by the most trips.
//!
//! The count is then found by running the counter (32-bit wrap-around arithmetic, the compare
//! as the scalar ALU does it) until the test leaves the loop, up to [`MAX_TRIPS`] iterations
//! and within a kernel's [`Budget`] (so that a hostile kernel of many loops that never leave
//! costs milliseconds, not minutes): the header's bound is the number of iterations that
//! start, the same thing `loop_bound` means. Other exits (a `break`, lanes whose data ends
//! the loop) only end it sooner.

use std::collections::HashMap;

use pws_isa::{Instruction, Opcode, Operand, Program};

use super::amortize;
use super::exit_mask;
use super::lane_count::{lane_counted_loop, LaneCounter};
use super::lane_ranges::{dispatch_prefix, number_as, sgpr_range, uniform_sgpr};
use super::launch_values::{LaunchValues, ScalarValues};
use super::never_entered::never_entered;
use crate::flow::Flow;
use crate::scalar::effects;

/// The longest loop simulated; a loop that runs longer keeps asking for an annotation.
pub const MAX_TRIPS: u64 = 1 << 20;

/// Counter steps left for one kernel's loops (16 of the longest loops).
#[derive(Debug, Clone, Copy)]
pub struct Budget(pub u64);

impl Default for Budget {
    fn default() -> Self {
        Budget(16 * MAX_TRIPS)
    }
}

/// How the counter is found and stepped, for the note that reports an inferred bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// The SGPR number.
    pub sgpr: u8,
    pub init: u32,
    pub step: StepOp,
    /// Header executions per entry into the loop.
    pub trips: u64,
    /// The enclosing loop's counter whose values it starts at or counts to: `trips` is the
    /// most over those values.
    pub over: Option<u8>,
    /// Header executions per entry on average over the entries one run of the directly
    /// enclosing loop makes ([`amortize`]), at most `trips`: what the IPET's loop row,
    /// Σ executions ≤ bound · Σ entries, needs. `trips` where the loop does not follow that
    /// loop's counter.
    pub average: u64,
}

impl Counter {
    /// The values the counter holds at the header, one per trip.
    fn header_values(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(self.init), |&v| Some(self.step.apply(v)))
            .take(usize::try_from(self.trips).unwrap_or(usize::MAX))
    }
}

/// What bounds a loop: a scalar counter, each lane's own ([`super::lane_count`]), or a guard
/// that keeps the launch out of it ([`super::never_entered`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopCount {
    Scalar(Counter),
    Lane(LaneCounter),
    /// `guard` is the branch instruction that goes around the loop.
    NeverEntered {
        guard: usize,
    },
}

impl LoopCount {
    /// Header executions per entry into the loop.
    pub fn trips(&self) -> u64 {
        match self {
            LoopCount::Scalar(c) => c.trips,
            LoopCount::Lane(c) => c.trips,
            LoopCount::NeverEntered { .. } => 1,
        }
    }

    /// The loop's bound in the IPET: header executions per entry, on average over the
    /// entries ([`Counter::average`]).
    pub fn bound(&self) -> u64 {
        match self {
            LoopCount::Scalar(c) => c.average,
            LoopCount::Lane(c) => c.trips,
            LoopCount::NeverEntered { .. } => 1,
        }
    }
}

/// The counted loop `l` of `flow`, if it has the shape of the module documentation. Of several
/// exit tests that prove a bound, the tightest.
pub fn counted_loop(
    program: &Program,
    flow: &Flow,
    l: usize,
    launch: &LaunchValues,
    budget: &mut Budget,
) -> Option<Counter> {
    Counters::new(program, flow, launch).of(l, budget)
}

/// [`counted_loop`] for many loops of one kernel: what it learns of SGPR values and of
/// enclosing loops' counters serves them all.
pub struct Counters<'a> {
    program: &'a Program,
    flow: &'a Flow,
    values: ScalarValues<'a>,
    found: HashMap<usize, Option<Counter>>,
    /// [`exit_mask::exec_nonzero`] of every block.
    exec_nonzero: Vec<bool>,
    /// [`dispatch_prefix`], once a loop needs it.
    whole: Option<usize>,
    /// The budget of [`lane_counted_loop`] for all of the kernel's loops, apart from the
    /// scalar counters' so that it never leaves one of those unproved.
    lane_budget: Budget,
}

impl<'a> Counters<'a> {
    pub fn new(program: &'a Program, flow: &'a Flow, launch: &'a LaunchValues) -> Self {
        Counters {
            program,
            flow,
            values: ScalarValues::new(program, flow, launch),
            found: HashMap::new(),
            exec_nonzero: exit_mask::exec_nonzero(program, flow),
            whole: None,
            lane_budget: Budget::default(),
        }
    }

    /// What bounds loop `l`: its scalar counter ([`Counters::of`], within `budget`), or else
    /// its lanes' own ([`lane_counted_loop`], within a budget of its own), or else a guard
    /// around it that the launch always takes ([`never_entered`]).
    pub fn count(&mut self, l: usize, budget: &mut Budget) -> Option<LoopCount> {
        if let Some(c) = self.of(l, budget) {
            return Some(LoopCount::Scalar(c));
        }
        let (program, flow) = (self.program, self.flow);
        let whole = *self
            .whole
            .get_or_insert_with(|| dispatch_prefix(program, flow));
        lane_counted_loop(
            program,
            flow,
            l,
            &mut self.values,
            &self.exec_nonzero,
            whole,
            &mut self.lane_budget.0,
        )
        .map(LoopCount::Lane)
        .or_else(|| {
            never_entered(
                program,
                flow,
                l,
                &mut self.values,
                &self.exec_nonzero,
                &mut budget.0,
            )
            .map(|guard| LoopCount::NeverEntered { guard })
        })
    }

    /// [`counted_loop`] of loop `l`.
    pub fn of(&mut self, l: usize, budget: &mut Budget) -> Option<Counter> {
        if let Some(c) = self.found.get(&l) {
            return c.clone();
        }
        let c = self.find(l, budget);
        self.found.insert(l, c.clone());
        c
    }

    fn find(&mut self, l: usize, budget: &mut Budget) -> Option<Counter> {
        let (program, flow) = (self.program, self.flow);
        let scan = LoopScan::new(program, flow, l, &self.exec_nonzero, budget)?;
        if let Some(c) = counted_with(&scan, &mut self.values, budget) {
            return Some(c);
        }
        // A loop nested in counted loops may start at, count to or compare with their
        // counters (`for (c = 0; c < r; c++)` inside `for (r = 0; r < n; r++)`): it is bounded
        // by its most trips over the values those counters take at their headers, the
        // outermost first, each inner one's values under the outer ones'.
        let mut enclosing = Vec::new();
        let mut outer = flow.loops[l].parent;
        while let Some(o) = outer {
            enclosing.push(o);
            outer = flow.loops[o].parent;
        }
        enclosing.reverse();
        let mut runs = MAX_OUTER_TRIPS;
        self.worst_over(&scan, &enclosing, &mut Vec::new(), &mut runs, budget)
    }

    /// The most trips of the loop of `scan` over the values the counters of `enclosing`
    /// (outermost first) take, with `assumed` those of the loops outside them; `runs` counts
    /// down the combinations tried.
    fn worst_over(
        &mut self,
        scan: &LoopScan<'_>,
        enclosing: &[usize],
        assumed: &mut Vec<(usize, u8, u32)>,
        runs: &mut u64,
        budget: &mut Budget,
    ) -> Option<Counter> {
        let (program, flow) = (self.program, self.flow);
        let launch = self.values.launch();
        if !assumed.is_empty() {
            let mut values = ScalarValues::assuming(program, flow, launch, assumed);
            if let Some(c) = counted_with(scan, &mut values, budget) {
                *runs = runs.checked_sub(1)?;
                return Some(Counter {
                    over: assumed.last().map(|a| a.1),
                    ..c
                });
            }
        }
        let (&o, inner) = enclosing.split_first()?;
        let counter = if assumed.is_empty() {
            self.of(o, budget)
        } else {
            let outer_scan = LoopScan::new(program, flow, o, &self.exec_nonzero, budget)?;
            let mut values = ScalarValues::assuming(program, flow, launch, assumed);
            counted_with(&outer_scan, &mut values, budget)
        };
        // An enclosing loop without a counter is no help, but one further in may be.
        let Some(c) = counter.filter(|c| c.trips <= MAX_OUTER_TRIPS) else {
            return self.worst_over(scan, inner, assumed, runs, budget);
        };
        let header = flow.loops[o].header;
        // The loop's other induction variables take their values with the counter's (clang
        // keeps `a + 1` beside `a` for an inner loop that counts to it).
        let companions = {
            let outer_scan = LoopScan::new(program, flow, o, &self.exec_nonzero, budget)?;
            let mut values = ScalarValues::assuming(program, flow, launch, assumed);
            outer_scan.induction_variables(&mut values, c.sgpr, budget)
        };
        let mut now: Vec<u32> = companions.iter().map(|&(_, init, _)| init).collect();
        // The loop right inside o, under o's counter alone: its trips averaged over o's
        // iterations ([`amortize`]); further out, the most of those averages.
        let direct = inner.is_empty() && flow.loops[scan.l].parent == Some(o);
        let mut iterations = Vec::new();
        let mut average = 0;
        let mut worst: Option<Counter> = None;
        for v in c.header_values() {
            let outside = assumed.len();
            assumed.extend(
                companions
                    .iter()
                    .zip(&now)
                    .map(|(&(s, ..), &v)| (header, s, v)),
            );
            assumed.push((header, c.sgpr, v));
            let found = self.worst_over(scan, inner, assumed, runs, budget);
            let seen = match (&found, direct) {
                (Some(f), true) => {
                    let mut values = ScalarValues::assuming(program, flow, launch, assumed);
                    amortize::iteration(
                        program,
                        flow,
                        o,
                        scan.l,
                        &self.exec_nonzero,
                        &mut values,
                        &mut budget.0,
                    )
                    .map(|(goes_on, last, may_leave)| amortize::Iteration {
                        trips: f.trips,
                        goes_on,
                        last,
                        may_leave,
                    })
                }
                _ => None,
            };
            assumed.truncate(outside);
            let found = found?;
            match seen {
                Some(it) => iterations.push(it),
                None => average = average.max(found.average),
            }
            if worst.as_ref().is_none_or(|w| found.trips > w.trips) {
                worst = Some(found);
            }
            for (v, &(_, _, step)) in now.iter_mut().zip(&companions) {
                *v = step.apply(*v);
            }
        }
        if direct && iterations.len() as u64 == c.trips {
            average = amortize::average(&iterations);
        } else if direct {
            // An iteration the walk could not follow: no average.
            average = worst.as_ref()?.trips;
        }
        worst.map(|w| Counter {
            average: average.min(w.trips),
            ..w
        })
    }
}

/// What [`Counters`] proves for every loop of `flow`, in the order of their headers' blocks
/// (a nest outermost first), each within a fresh [`Budget`]; `None` where it proves nothing.
pub fn every_loop(program: &Program, flow: &Flow, launch: &LaunchValues) -> Vec<Option<LoopCount>> {
    let mut counters = Counters::new(program, flow, launch);
    let mut by_header: Vec<(usize, Option<LoopCount>)> = (0..flow.loops.len())
        .map(|l| {
            let count = counters.count(l, &mut Budget::default());
            (flow.loops[l].header, count)
        })
        .collect();
    by_header.sort_by_key(|&(h, _)| h);
    by_header.into_iter().map(|(_, c)| c).collect()
}

/// The last general-purpose SGPR (s101; VCC and the rest follow).
pub(super) const MAX_SGPR: u8 = 101;

/// Enclosing loops' iterations tried one by one for a nested loop's bound.
const MAX_OUTER_TRIPS: u64 = 4096;

/// [`counted_loop`] of the loop `scan` covers with the SGPR values `values` knows.
fn counted_with(
    scan: &LoopScan<'_>,
    values: &mut ScalarValues<'_>,
    budget: &mut Budget,
) -> Option<Counter> {
    let (program, flow) = (scan.program, scan.flow);
    let insts = &program.instructions;
    let mut inits: HashMap<u8, Option<u32>> = HashMap::new();
    let mut best: Option<Counter> = None;
    for &test_block in scan.own_blocks() {
        for cmp_at in flow.blocks[test_block].clone() {
            if budget.0 == 0 {
                return best;
            }
            let mut limit = |op: Operand| scan.known(values, cmp_at, op, budget);
            for (sgpr, compare) in Compare::of(&insts[cmp_at].item, &mut limit) {
                let Some((step, ahead, view)) =
                    scan.compared(test_block, cmp_at, sgpr, values, budget)
                else {
                    continue;
                };
                let Some(init) = entry_value(scan, &mut inits, values, step.sgpr, budget) else {
                    continue;
                };
                for exit_when in [true, false] {
                    if !scan.leaves_when(cmp_at, exit_when, budget) {
                        continue;
                    }
                    let test = ExitTest {
                        compare,
                        view,
                        exit_when,
                        init,
                        ahead,
                    };
                    if let Some(c) = test.run(&step, budget) {
                        if best.as_ref().is_none_or(|b| c.trips < b.trips) {
                            best = Some(c);
                        }
                    }
                }
            }
            if let Some(c) = over_a_range(scan, test_block, cmp_at, values, &mut inits, budget) {
                if best.as_ref().is_none_or(|b| c.trips < b.trips) {
                    best = Some(c);
                }
            }
            if let Some(c) = two_counters(scan, test_block, cmp_at, values, &mut inits, budget) {
                if best.as_ref().is_none_or(|b| c.trips < b.trips) {
                    best = Some(c);
                }
            }
        }
    }
    best
}

/// The value SGPR `s` holds on every entry into the loop of `scan` ([`initial_value`]), found
/// once per SGPR of a loop in `inits`.
fn entry_value(
    scan: &LoopScan<'_>,
    inits: &mut HashMap<u8, Option<u32>>,
    values: &mut ScalarValues<'_>,
    s: u8,
    budget: &mut Budget,
) -> Option<u32> {
    *inits
        .entry(s)
        .or_insert_with(|| initial_value(values, scan.flow, scan.l, s, budget))
}

/// The loop's trips where the test at `cmp_at` compares the counter with a value that differs
/// between workgroups within a known range (`for (j = 0; j < get_group_id(0) * 3 + 2; j++)`):
/// the most of the trips at the range's two ends. The exit comes first where the compared
/// reads cross the limit (an ordered compare), or meet it (an equality, stepping by 1), so its
/// trip is monotone in the limit while the reads only grow or only shrink in the compare's
/// type up to the most trips (an add, a shift or a product that does not wrap around:
/// `for (st = 1; st < get_local_size(0); st *= 2)` with a partial last workgroup).
fn over_a_range(
    scan: &LoopScan<'_>,
    test_block: usize,
    cmp_at: usize,
    values: &mut ScalarValues<'_>,
    inits: &mut HashMap<u8, Option<u32>>,
    budget: &mut Budget,
) -> Option<Counter> {
    let program = scan.program;
    let inst = &program.instructions[cmp_at].item;
    let (a, b) = (inst.src(0)?, inst.src(1)?);
    let ends = |op: Operand, values: &mut ScalarValues<'_>, budget: &mut Budget| {
        scan.known_range(values, cmp_at, op, budget)
    };
    let (lo, hi) = match (ends(a, values, budget), ends(b, values, budget)) {
        (Some(r), None) | (None, Some(r)) if r.0 != r.1 => r,
        _ => return None,
    };
    let mut at_end = |k: u32| Compare::of(inst, &mut |op| ends(op, values, budget).map(|_| k));
    let (low, high) = (at_end(lo), at_end(hi));
    let ((sgpr, low), (_, high)) = (low.first().copied()?, high.first().copied()?);
    let (step, ahead, view) = scan.compared(test_block, cmp_at, sgpr, values, budget)?;
    if step.step == StepOp::Add(0) {
        return None;
    }
    let init = entry_value(scan, inits, values, step.sgpr, budget)?;
    let by_one = matches!(step.step, StepOp::Add(1) | StepOp::Add(u32::MAX));
    let mut best: Option<Counter> = None;
    for exit_when in [true, false] {
        let meets = matches!((low.op, exit_when), (Cmp::Eq, true) | (Cmp::Lg, false));
        let ordered = matches!(low.op, Cmp::Gt | Cmp::Ge | Cmp::Lt | Cmp::Le);
        if !(ordered || meets && by_one) || !scan.leaves_when(cmp_at, exit_when, budget) {
            continue;
        }
        let run = |compare: Compare, budget: &mut Budget| {
            ExitTest {
                compare,
                view,
                exit_when,
                init,
                ahead,
            }
            .run(&step, budget)
        };
        let (Some(x), Some(y)) = (run(low, budget), run(high, budget)) else {
            continue;
        };
        // The reads up to the most trips only grow or only shrink as the compare's type reads
        // them (an add, shift or product that wrapped around would turn back).
        let trips = x.trips.max(y.trips);
        let mut v = if ahead { step.step.apply(init) } else { init };
        let read = |v: u32| number_as(view.map_or(v, |w| w.apply(v)), low.signed);
        let (mut up, mut down, mut last) = (true, true, read(v));
        for _ in 1..trips {
            v = step.step.apply(v);
            let next = read(v);
            up &= last <= next;
            down &= last >= next;
            last = next;
        }
        if !(up || down) {
            continue;
        }
        let c = if x.trips >= y.trips { x } else { y };
        if best.as_ref().is_none_or(|b| c.trips < b.trips) {
            best = Some(c);
        }
    }
    best
}

/// The loop's trips where the test at `cmp_at` compares two counters with each other
/// (`for (i = 0, j = n; i < j; i++, j--)`): both run from their values on entry until the
/// compare ends the loop.
fn two_counters(
    scan: &LoopScan<'_>,
    test_block: usize,
    cmp_at: usize,
    values: &mut ScalarValues<'_>,
    inits: &mut HashMap<u8, Option<u32>>,
    budget: &mut Budget,
) -> Option<Counter> {
    let program = scan.program;
    let inst = &program.instructions[cmp_at].item;
    let compare = Compare::of(inst, &mut |_| Some(0)).into_iter().next()?.1;
    let (Some(Operand::Sgpr(a)), Some(Operand::Sgpr(b))) = (inst.src(0), inst.src(1)) else {
        return None;
    };
    if a == b || inst.opcode.format() != pws_isa::Format::Sopc {
        return None;
    }
    let mut side = |r: u8| {
        let (step, ahead, view) = scan.compared(test_block, cmp_at, r, values, budget)?;
        Some(Side {
            now: entry_value(scan, inits, values, step.sgpr, budget)?,
            step,
            ahead,
            view,
        })
    };
    let (first, second) = (side(a)?, side(b)?);
    if first.step.sgpr == second.step.sgpr {
        return None;
    }
    for exit_when in [true, false] {
        if !scan.leaves_when(cmp_at, exit_when, budget) {
            continue;
        }
        let (mut x, mut y) = (first.clone(), second.clone());
        for trips in 1..=MAX_TRIPS {
            budget.0 = budget.0.checked_sub(1)?;
            x.step_if(x.ahead);
            y.step_if(y.ahead);
            if compare.between(x.read(), y.read()) == exit_when {
                return Some(Counter {
                    sgpr: first.step.sgpr,
                    init: first.now,
                    step: first.step.step,
                    trips,
                    over: None,
                    average: trips,
                });
            }
            x.step_if(!x.ahead);
            y.step_if(!y.ahead);
        }
    }
    None
}

/// One of two counters a compare reads: its value now, how it steps, whether the compare
/// sees it after the iteration's step, and what the compare reads of it.
#[derive(Clone)]
struct Side {
    now: u32,
    step: Step,
    ahead: bool,
    view: Option<StepOp>,
}

impl Side {
    fn step_if(&mut self, now: bool) {
        if now {
            self.now = self.step.step.apply(self.now);
        }
    }

    fn read(&self) -> u32 {
        self.view.map_or(self.now, |op| op.apply(self.now))
    }
}

/// A compare of the counter whose result, when it is `exit_when`, ends the loop.
struct ExitTest {
    compare: Compare,
    /// What the compare reads is this of the counter's value.
    view: Option<StepOp>,
    exit_when: bool,
    init: u32,
    /// The compare sees the counter after this iteration's step.
    ahead: bool,
}

impl ExitTest {
    /// Runs the counter until the test ends the loop.
    fn run(&self, step: &Step, budget: &mut Budget) -> Option<Counter> {
        let mut v = self.init;
        for trips in 1..=MAX_TRIPS {
            budget.0 = budget.0.checked_sub(1)?;
            if self.ahead {
                v = step.step.apply(v);
            }
            let read = self.view.map_or(v, |op| op.apply(v));
            if self.compare.holds(read) == self.exit_when {
                return Some(Counter {
                    sgpr: step.sgpr,
                    init: self.init,
                    step: step.step,
                    trips,
                    over: None,
                    average: trips,
                });
            }
            if !self.ahead {
                v = step.step.apply(v);
            }
        }
        None
    }
}

/// The counter's one change per iteration.
#[derive(Clone)]
struct Step {
    sgpr: u8,
    step: StepOp,
    /// The instruction that writes the counter.
    at: usize,
    /// The writes that use the register for something else between the counter's read and
    /// its copy back at `at`: the counter cannot be read after one of them before `at`.
    lent: Vec<usize>,
}

/// Loop `l` with the SGPR definitions in it, found once (a loop of many compares asks for
/// them many times).
struct LoopScan<'a> {
    program: &'a Program,
    flow: &'a Flow,
    l: usize,
    /// For each SGPR, the instructions of the loop (nested loops included) that write it, in
    /// program order.
    defs: HashMap<u8, Vec<usize>>,
    /// EXEC is non-zero whenever an iteration starts.
    exec_nonzero: bool,
}

impl<'a> LoopScan<'a> {
    fn new(
        program: &'a Program,
        flow: &'a Flow,
        l: usize,
        exec_nonzero: &[bool],
        budget: &mut Budget,
    ) -> Option<Self> {
        let mut defs: HashMap<u8, Vec<usize>> = HashMap::new();
        for &b in &flow.loops[l].body {
            budget.0 = budget.0.checked_sub(flow.blocks[b].len() as u64)?;
            for i in flow.blocks[b].clone() {
                for r in effects(&program.instructions[i].item).defs.iter() {
                    defs.entry(r).or_default().push(i);
                }
            }
        }
        Some(LoopScan {
            program,
            flow,
            l,
            defs,
            exec_nonzero: exec_nonzero[flow.loops[l].header],
        })
    }

    /// The blocks of the loop itself, not of a loop inside it.
    fn own_blocks(&self) -> impl Iterator<Item = &usize> + '_ {
        self.flow.loops[self.l]
            .body
            .iter()
            .filter(|&&b| self.flow.loop_of(b) == Some(self.l))
    }

    /// Whether the compare at `cmp_at` giving `exit_when` ends the loop
    /// ([`exit_mask::leaves_when`]).
    fn leaves_when(&self, cmp_at: usize, exit_when: bool, budget: &mut Budget) -> bool {
        exit_mask::leaves_when(
            self.program,
            self.flow,
            self.l,
            cmp_at,
            exit_when,
            self.exec_nonzero,
            &mut budget.0,
        )
    }

    fn defs_of(&self, s: u8) -> &[usize] {
        self.defs.get(&s).map_or(&[], Vec::as_slice)
    }

    /// The SGPRs besides `counter` that step once per iteration from one known value on every
    /// entry: (SGPR, value on entry, step).
    fn induction_variables(
        &self,
        values: &mut ScalarValues<'_>,
        counter: u8,
        budget: &mut Budget,
    ) -> Vec<(u8, u32, StepOp)> {
        let header = self.flow.loops[self.l].header;
        let mut sgprs: Vec<u8> = self
            .defs
            .keys()
            .copied()
            .filter(|&s| s != counter && s <= MAX_SGPR)
            .collect();
        sgprs.sort_unstable();
        sgprs
            .into_iter()
            .filter_map(|s| {
                let step = self.step(s, header, values, budget)?;
                let init = initial_value(values, self.flow, self.l, s, budget)?;
                Some((s, init, step.step))
            })
            .collect()
    }

    /// The last write of `s` in block `b` before instruction `end`.
    fn last_def_in(&self, s: u8, b: usize, end: usize) -> Option<usize> {
        let defs = self.defs_of(s);
        let before = defs[..defs.partition_point(|&i| i < end)].last().copied()?;
        (before >= self.flow.blocks[b].start).then_some(before)
    }

    /// The counter the compare at `cmp_at` (in `test_block`) reads: its step, whether the
    /// value read is one step ahead of the counter's value at the iteration's start, and the
    /// operation between that value and the compared one, when the compare reads `u = s op C`
    /// rather than the counter s itself.
    fn compared(
        &self,
        test_block: usize,
        cmp_at: usize,
        sgpr: u8,
        values: &mut ScalarValues<'_>,
        budget: &mut Budget,
    ) -> Option<(Step, bool, Option<StepOp>)> {
        if let Some((step, ahead)) = self.counter_at(test_block, cmp_at, sgpr, values, budget) {
            return Some((step, ahead, None));
        }
        // clang's `t = s + C` that is copied back to s, or another value derived from s
        // (`for (k = n - 1; k >= 0; k--)` compares k + 1 with 2, unsigned; `for (c = r + 1;
        // c < n; c++)` compares r + c with n, r a known SGPR the loop does not write): s as it
        // is where u is computed, then the operation.
        let def = self.def_read_at(sgpr, cmp_at, test_block, budget)?;
        let inst = &self.program.instructions[def].item;
        // A copy of the counter (clang -O3 keeps the value before the step for the test:
        // `s_mov_b32 s7, s6; s_ashr_i32 s6, s6, 1` ... `s_cmp_lt_i32 s7, 4`).
        if let (Opcode::SMovB32, Some(Operand::Sgpr(s))) = (inst.opcode, inst.src(0)) {
            if s != sgpr {
                let (step, ahead) = self.counter_at(test_block, def, s, values, budget)?;
                return Some((step, ahead, None));
            }
        }
        (0..2).find_map(|k| {
            let Some(Operand::Sgpr(s)) = inst.src(k) else {
                return None;
            };
            let mut operand = |op: Operand| self.known(values, def, op, budget);
            let view = step_with(inst, sgpr, s, &mut operand).filter(|_| s != sgpr)?;
            let (step, ahead) = self.counter_at(test_block, def, s, values, budget)?;
            Some((step, ahead, Some(view)))
        })
    }

    /// The value operand `op` of instruction `at` reads, when it is known in every iteration:
    /// a constant, or an SGPR the loop does not write whose value `values` knows.
    fn known(
        &self,
        values: &mut ScalarValues<'_>,
        at: usize,
        op: Operand,
        budget: &mut Budget,
    ) -> Option<u32> {
        match op {
            Operand::Sgpr(r) if self.defs_of(r).is_empty() => {
                uniform_sgpr(values, at, r, &mut budget.0)
            }
            _ => op.constant_value32(),
        }
    }

    /// [`Self::known`], or the range of values over the launch's workgroups of an SGPR the
    /// loop does not write (a limit from `get_group_id`).
    fn known_range(
        &self,
        values: &mut ScalarValues<'_>,
        at: usize,
        op: Operand,
        budget: &mut Budget,
    ) -> Option<(u32, u32)> {
        match op {
            Operand::Sgpr(r) if self.defs_of(r).is_empty() => {
                sgpr_range(values, at, r, &mut budget.0)
            }
            _ => op.constant_value32().map(|v| (v, v)),
        }
    }

    /// The counter `sgpr` that instruction `at` (in `test_block`) reads, and whether the value
    /// read is one step ahead of the counter's value at the iteration's start.
    fn counter_at(
        &self,
        test_block: usize,
        at: usize,
        sgpr: u8,
        values: &mut ScalarValues<'_>,
        budget: &mut Budget,
    ) -> Option<(Step, bool)> {
        let flow = self.flow;
        let step = self.step(sgpr, test_block, values, budget)?;
        let (b, ab) = (flow.block_of(step.at), flow.block_of(at));
        // A read after a lending write sees the other value, unless the copy back comes first.
        let stepped = if b == ab {
            step.at < at
        } else {
            flow.dominates(b, ab)
        };
        for &c in &step.lent {
            if !stepped && self.may_precede(c, at, budget)? {
                return None;
            }
        }
        let ahead = if b == ab {
            step.at < at
        } else if flow.dominates(b, ab) {
            true
        } else if !self.reaches(b, ab, budget)? {
            false
        } else {
            return None;
        };
        Some((step, ahead))
    }

    /// SGPR `s`'s last definition in the loop, after any that lend it in the same block:
    /// `s += C`; `s = t` where `t = s + C` is the write of t it reads ([`LoopScan::def_read_at`];
    /// clang keeps the old value for the loop's exit that way); or `s = t + C` where `t = s`
    /// is. In a block every iteration runs once, or in the test's block (every iteration that
    /// goes on runs that: [`exit_mask::leaves_when`]).
    fn step(
        &self,
        s: u8,
        test_block: usize,
        values: &mut ScalarValues<'_>,
        budget: &mut Budget,
    ) -> Option<Step> {
        let flow = self.flow;
        let lp = &flow.loops[self.l];
        let insts = &self.program.instructions;
        // The last write of an iteration counts; the others only lend the register (clang's
        // `s_cselect_b64 s[18:19], -1, 0` over a counter in s18, copied back right after, or
        // a temporary in the body of an `if` of a loop whose latch comes before its header).
        let defs = self.defs_of(s);
        let mut last = None;
        for &d in defs {
            let mut followed = false;
            for &c in defs {
                followed |= c != d && self.may_precede(d, c, budget)?;
            }
            if !followed && last.replace(d).is_some() {
                return None;
            }
        }
        let at = last?;
        let lent: Vec<usize> = defs.iter().copied().filter(|&d| d != at).collect();
        let lent = lent.as_slice();
        let block = flow.block_of(at);
        let once = block == test_block || lp.latches.iter().all(|&t| flow.dominates(block, t));
        if flow.loop_of(block) != Some(self.l) || !once {
            return None;
        }
        let inst = &insts[at].item;
        if let Some(step) = self.step_at(at, s, s, values, budget) {
            return lent.is_empty().then_some(Step {
                sgpr: s,
                step,
                at,
                lent: Vec::new(),
            });
        }
        // `s = t op C` where t is a copy of s made on its one path from the header (clang -O3's
        // `s_mov_b32 s7, s6` then `s_add_i32 s6, s7, 1`).
        let t = (0..2).find_map(|k| match inst.src(k) {
            Some(Operand::Sgpr(t)) if t != s => {
                let step = self.step_at(at, s, t, values, budget)?;
                Some((t, step))
            }
            _ => None,
        });
        if let Some((t, step)) = t {
            let copy = self.def_read_at(t, at, test_block, budget)?;
            let c = &insts[copy].item;
            let copies_s = c.opcode == Opcode::SMovB32 && c.src(0) == Some(Operand::Sgpr(s));
            return (copies_s && lent.is_empty()).then_some(Step {
                sgpr: s,
                step,
                at,
                lent: Vec::new(),
            });
        }
        let (Opcode::SMovB32, Some(Operand::Sgpr(t))) = (inst.opcode, inst.src(0)) else {
            return None;
        };
        let add = self.def_read_at(t, at, test_block, budget)?;
        // Between the add that reads the counter and the copy back, the register may hold
        // something else (clang's `s_mov_b32 s[18:19]` mask in its block, or a value loaded
        // into it in another block at -O1): no lending write may come before the add or after
        // the copy in an iteration.
        for &c in lent {
            if self.may_precede(c, add, budget)? || self.may_precede(at, c, budget)? {
                return None;
            }
        }
        let step = self
            .step_at(add, t, s, values, budget)
            .or_else(|| self.signed_division(add, t, s))?;
        Some(Step {
            sgpr: s,
            step,
            at,
            lent: lent.to_vec(),
        })
    }

    /// `t = s / 2^k` for a signed `s`, if instruction `at` ends clang's expansion of it in
    /// its block: the division rounds toward zero, so a negative `s` gets 2^k - 1 added
    /// before the arithmetic shift (`s_lshr_b32 t, s, 31` for k = 1, `s_ashr_i32 t, s, 31;
    /// s_lshr_b32 t, t, 32 - k` above), `s_add_i32 t, s, t`, `s_ashr_i32 t, t, k`; `s` is not
    /// written in between.
    fn signed_division(&self, at: usize, t: u8, s: u8) -> Option<StepOp> {
        use Opcode::*;
        let insts = &self.program.instructions;
        let block = self.flow.blocks[self.flow.block_of(at)].clone();
        let sgpr = |r: u8| Some(Operand::Sgpr(r));
        let constant = |op: Option<Operand>| op.and_then(|o| o.constant_value32());
        // The write of `t` before instruction `i` in the block, with no write of `s` between.
        let before = |i: usize| -> Option<(usize, &Instruction)> {
            let d = (block.start..i)
                .rev()
                .find(|&d| effects(&insts[d].item).defs.contains(t))?;
            let clobbered = (d..i).any(|j| effects(&insts[j].item).defs.contains(s));
            (!clobbered).then(|| (d, &insts[d].item))
        };
        let shift = &insts[at].item;
        let k = constant(shift.src(1))?;
        if shift.opcode != SAshrI32 || shift.dst != sgpr(t) || shift.src(0) != sgpr(t) {
            return None;
        }
        if !(1..31).contains(&k) {
            return None;
        }
        let (d, add) = before(at)?;
        let adds_s = add.src(0) == sgpr(s) && add.src(1) == sgpr(t)
            || add.src(0) == sgpr(t) && add.src(1) == sgpr(s);
        if !matches!(add.opcode, SAddI32 | SAddU32) || add.dst != sgpr(t) || !adds_s {
            return None;
        }
        let (d, bias) = before(d)?;
        let is = |inst: &Instruction, op: Opcode, src: u8, by: u32| {
            inst.opcode == op
                && inst.dst == sgpr(t)
                && inst.src(0) == sgpr(src)
                && constant(inst.src(1)) == Some(by)
        };
        let sign_bias = if k == 1 {
            is(bias, SLshrB32, s, 31)
        } else {
            is(bias, SLshrB32, t, 32 - k) && before(d).is_some_and(|(_, i)| is(i, SAshrI32, s, 31))
        };
        sign_bias.then_some(StepOp::Div(k))
    }

    /// The step of instruction `at` if it is `dst = src op K`, K a constant or an SGPR the
    /// loop does not write whose value is known (`for (i = 0; i < n; i += step)`, `step` a
    /// kernel argument).
    fn step_at(
        &self,
        at: usize,
        dst: u8,
        src: u8,
        values: &mut ScalarValues<'_>,
        budget: &mut Budget,
    ) -> Option<StepOp> {
        let inst = &self.program.instructions[at].item;
        step_with(inst, dst, src, &mut |op| self.known(values, at, op, budget))
    }

    /// Whether instruction `a` may run before instruction `b` in one iteration.
    fn may_precede(&self, a: usize, b: usize, budget: &mut Budget) -> Option<bool> {
        let flow = self.flow;
        let (ab, bb) = (flow.block_of(a), flow.block_of(b));
        if ab == bb {
            Some(a < b)
        } else {
            self.reaches(ab, bb, budget)
        }
    }

    /// The write of `t` that instruction `at` reads in every iteration: the last on its one
    /// path from the header, or t's one write in the loop where every iteration runs it before
    /// `at`: earlier in `at`'s block, in a block that dominates `at`'s, or in the test's block,
    /// which every iteration that goes on runs (clang's unrolled loops step there).
    fn def_read_at(
        &self,
        t: u8,
        at: usize,
        test_block: usize,
        budget: &mut Budget,
    ) -> Option<usize> {
        if let Some(d) = self.reaching_def(t, at, budget) {
            return Some(d);
        }
        let flow = self.flow;
        let [d] = *self.defs_of(t) else {
            return None;
        };
        let (db, ab) = (flow.block_of(d), flow.block_of(at));
        let dominates = if db == ab {
            d < at
        } else {
            flow.dominates(db, ab)
        };
        let before = dominates || db == test_block && !self.reaches(ab, test_block, budget)?;
        before.then_some(d)
    }

    /// The write of `s` that reaches instruction `at` on every path from the loop's header:
    /// before it in its block, or in the block before that if it has no other predecessor,
    /// and so on up to the header.
    fn reaching_def(&self, s: u8, at: usize, budget: &mut Budget) -> Option<usize> {
        let flow = self.flow;
        let header = flow.loops[self.l].header;
        let mut b = flow.block_of(at);
        let mut end = at;
        loop {
            budget.0 = budget.0.checked_sub(1)?;
            if let Some(d) = self.last_def_in(s, b, end) {
                return Some(d);
            }
            let [p] = flow.pred[b][..] else {
                return None;
            };
            if b == header {
                return None;
            }
            b = p;
            end = flow.blocks[b].end;
        }
    }

    /// Whether block `to` follows block `from` on some path through one iteration.
    fn reaches(&self, from: usize, to: usize, budget: &mut Budget) -> Option<bool> {
        let flow = self.flow;
        let lp = &flow.loops[self.l];
        let mut seen = vec![false; flow.blocks.len()];
        let mut work = vec![from];
        while let Some(b) = work.pop() {
            if b == to {
                return Some(true);
            }
            if std::mem::replace(&mut seen[b], true) {
                continue;
            }
            budget.0 = budget.0.checked_sub(1)?;
            work.extend(
                flow.forward_succ(b)
                    .filter(|&n| lp.contains(n) && n != lp.header),
            );
        }
        Some(false)
    }
}

/// `s_cmp_*` of the counter against a constant, as SCC = `holds(counter)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Compare {
    op: Cmp,
    signed: bool,
    k: u32,
    /// The constant is the first operand (`s_cmp_lt_i32 64, s3`).
    swapped: bool,
}

#[derive(Debug, Clone, Copy)]
enum Cmp {
    Eq,
    Lg,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Compare {
    /// The compares `inst` makes of an SGPR with a value `limit` knows: one for each SGPR
    /// operand that may be the counter.
    pub(super) fn of(
        inst: &Instruction,
        limit: &mut impl FnMut(Operand) -> Option<u32>,
    ) -> Vec<(u8, Compare)> {
        use Opcode::*;
        let (op, signed, k_form) = match inst.opcode {
            SCmpEqI32 => (Cmp::Eq, true, false),
            SCmpLgI32 => (Cmp::Lg, true, false),
            SCmpGtI32 => (Cmp::Gt, true, false),
            SCmpGeI32 => (Cmp::Ge, true, false),
            SCmpLtI32 => (Cmp::Lt, true, false),
            SCmpLeI32 => (Cmp::Le, true, false),
            SCmpEqU32 => (Cmp::Eq, false, false),
            SCmpLgU32 => (Cmp::Lg, false, false),
            SCmpGtU32 => (Cmp::Gt, false, false),
            SCmpGeU32 => (Cmp::Ge, false, false),
            SCmpLtU32 => (Cmp::Lt, false, false),
            SCmpLeU32 => (Cmp::Le, false, false),
            SCmpkEqI32 => (Cmp::Eq, true, true),
            SCmpkLgI32 => (Cmp::Lg, true, true),
            SCmpkGtI32 => (Cmp::Gt, true, true),
            SCmpkGeI32 => (Cmp::Ge, true, true),
            SCmpkLtI32 => (Cmp::Lt, true, true),
            SCmpkLeI32 => (Cmp::Le, true, true),
            SCmpkEqU32 => (Cmp::Eq, false, true),
            SCmpkLgU32 => (Cmp::Lg, false, true),
            SCmpkGtU32 => (Cmp::Gt, false, true),
            SCmpkGeU32 => (Cmp::Ge, false, true),
            SCmpkLtU32 => (Cmp::Lt, false, true),
            SCmpkLeU32 => (Cmp::Le, false, true),
            _ => return Vec::new(),
        };
        let compare = |k, swapped| Compare {
            op,
            signed,
            k,
            swapped,
        };
        if k_form {
            // SOPK: the 16-bit constant, sign-extended for the signed compares.
            let Some(Operand::Sgpr(s)) = inst.src(0) else {
                return Vec::new();
            };
            let k = if signed {
                inst.simm16() as i32 as u32
            } else {
                inst.imm & 0xffff
            };
            return vec![(s, compare(k, false))];
        }
        let (Some(a), Some(b)) = (inst.src(0), inst.src(1)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (counter, other, swapped) in [(a, b, false), (b, a, true)] {
            if let Operand::Sgpr(s) = counter {
                if let Some(k) = limit(other) {
                    out.push((s, compare(k, swapped)));
                }
            }
        }
        out
    }

    /// SCC for the counter's value `v`.
    pub(super) fn holds(self, v: u32) -> bool {
        match self.swapped {
            true => self.between(self.k, v),
            false => self.between(v, self.k),
        }
    }

    /// SCC for the values `a` and `b` of the first and the second operand.
    fn between(self, a: u32, b: u32) -> bool {
        let ord = if self.signed {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        };
        match self.op {
            Cmp::Eq => ord.is_eq(),
            Cmp::Lg => ord.is_ne(),
            Cmp::Gt => ord.is_gt(),
            Cmp::Ge => ord.is_ge(),
            Cmp::Lt => ord.is_lt(),
            Cmp::Le => ord.is_le(),
        }
    }
}

/// How a counter changes each iteration: `s = s + C` (a subtraction adds the negated
/// constant), a shift by a constant, or a product with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOp {
    Add(u32),
    Shl(u32),
    Lshr(u32),
    Ashr(u32),
    Mul(u32),
    /// C's signed division by 2^k, k in 1..=30 (rounded toward zero): clang's `s_lshr_b32 t,
    /// s, 31; s_add_i32 t, s, t; s_ashr_i32 t, t, 1` for `st /= 2`.
    Div(u32),
}

impl StepOp {
    /// The counter's next value, as the scalar ALU computes it.
    fn apply(self, v: u32) -> u32 {
        match self {
            StepOp::Add(c) => v.wrapping_add(c),
            StepOp::Shl(n) => v << (n & 31),
            StepOp::Lshr(n) => v >> (n & 31),
            StepOp::Ashr(n) => ((v as i32) >> (n & 31)) as u32,
            StepOp::Mul(c) => v.wrapping_mul(c),
            StepOp::Div(k) => ((v as i32) / (1 << k)) as u32,
        }
    }
}

impl std::fmt::Display for StepOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            StepOp::Add(c) => write!(f, "by {}", c as i32),
            StepOp::Shl(n) => write!(f, "shifted left by {}", n & 31),
            StepOp::Lshr(n) => write!(f, "shifted right by {}", n & 31),
            StepOp::Ashr(n) => write!(f, "shifted right (arithmetic) by {}", n & 31),
            StepOp::Mul(c) => write!(f, "times {}", c as i32),
            StepOp::Div(k) => write!(f, "divided by {}", 1u32 << k),
        }
    }
}

/// The step, if `inst` is `dst = src op K` where `known` gives K's value.
fn step_with(
    inst: &Instruction,
    dst: u8,
    src: u8,
    known: &mut dyn FnMut(Operand) -> Option<u32>,
) -> Option<StepOp> {
    use Opcode::*;
    if inst.dst != Some(Operand::Sgpr(dst)) {
        return None;
    }
    let me = Some(Operand::Sgpr(src));
    // `src op K` or, for a commutative op, `K op src`.
    let mut constant = |commutes: bool| match (inst.src(0), inst.src(1)) {
        (a, Some(k)) if a == me => known(k),
        (Some(k), b) if commutes && b == me => known(k),
        _ => None,
    };
    match inst.opcode {
        SAddkI32 if dst == src => Some(StepOp::Add(inst.simm16() as i32 as u32)),
        SMulkI32 if dst == src => Some(StepOp::Mul(inst.simm16() as i32 as u32)),
        SAddU32 | SAddI32 => constant(true).map(StepOp::Add),
        SSubU32 | SSubI32 => constant(false).map(|k| StepOp::Add(k.wrapping_neg())),
        SMulI32 => constant(true).map(StepOp::Mul),
        SLshlB32 => constant(false).map(StepOp::Shl),
        SLshrB32 => constant(false).map(StepOp::Lshr),
        SAshrI32 => constant(false).map(StepOp::Ashr),
        _ => None,
    }
}

/// The value SGPR `s` holds whenever loop `l` is entered, if there is one.
fn initial_value(
    values: &mut ScalarValues<'_>,
    flow: &Flow,
    l: usize,
    s: u8,
    budget: &mut Budget,
) -> Option<u32> {
    let lp = &flow.loops[l];
    let mut found: Option<u32> = None;
    for &p in flow.pred[lp.header].iter().filter(|&&p| !lp.contains(p)) {
        let v = values.at_end(p, s, &mut budget.0)?;
        if found.is_some_and(|f| f != v) {
            return None;
        }
        found = Some(v);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(src: &str) -> Option<Counter> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        assert_eq!(flow.loops.len(), 1, "one loop in\n{src}");
        counter_in(src, &LaunchValues::none())
    }

    fn counter_in(src: &str, launch: &LaunchValues) -> Option<Counter> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        counted_loop(&program, &flow, 0, launch, &mut Budget::default())
    }

    /// The trips of every loop of `src`, in the order of their headers, as the analysis of a
    /// kernel finds them (one [`Counters`]).
    fn trips_of_every_loop(src: &str, launch: &LaunchValues) -> Vec<Option<u64>> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let counts = every_loop(&program, &flow, launch);
        counts
            .iter()
            .map(|c| c.as_ref().map(LoopCount::trips))
            .collect()
    }

    /// The tree reduction's `for (s = get_local_size(0) / 2; s > 0; s >>= 1)` starts from the
    /// dispatch packet's workgroup size, and `for (c = 0; c < cols; c++)` compares with a
    /// kernel argument: a launch fixes both.
    #[test]
    fn counters_start_at_or_run_to_what_the_launch_fixes() {
        let launch = super::super::launch_values::tests::launch();
        let reduce = "\
s_load_dword s11, s[4:5], 0x4
s_waitcnt lgkmcnt(0)
s_and_b32 s10, s11, 0xffff
s_lshr_b32 s5, s10, 1
.L4:
s_lshr_b32 s0, s5, 1
s_cmp_lt_u32 s5, 2
s_mov_b32 s5, s0
s_cbranch_scc0 .L4
s_endpgm
";
        let c = counter_in(reduce, &launch).unwrap();
        assert_eq!((c.init, c.trips), (32, 6));
        assert_eq!(counter_in(reduce, &LaunchValues::none()), None);
        let cols = "\
s_load_dwordx4 s[0:3], s[6:7], 0x8
s_mov_b32 s3, 0
.L1:
s_add_i32 s3, s3, 1
s_cmp_eq_u32 s3, s1
s_cbranch_scc0 .L1
s_endpgm
";
        let c = counter_in(cols, &launch).unwrap();
        assert_eq!((c.sgpr, c.init, c.trips), (3, 0, 5));
        // A limit the loop writes, or one that differs between workgroups (s8), is no limit.
        let moving = cols.replace(
            "s_add_i32 s3, s3, 1\n",
            "s_add_i32 s3, s3, 1\ns_add_i32 s1, s1, 1\n",
        );
        assert_eq!(counter_in(&moving, &launch), None);
        let per_group = cols.replace("s_cmp_eq_u32 s3, s1", "s_cmp_eq_u32 s3, s8");
        assert_eq!(counter_in(&per_group, &launch), None);
    }

    /// `for (i = 0; i < n; i += step)`, both kernel arguments: the step is the launch's.
    #[test]
    fn a_counter_may_step_by_what_the_launch_fixes() {
        let launch = super::super::launch_values::tests::launch();
        let stepped = "\
s_load_dwordx4 s[0:3], s[6:7], 0x8
s_waitcnt lgkmcnt(0)
s_mov_b32 s12, 0
.L2:
s_add_i32 s12, s12, s2
s_cmp_ge_i32 s12, s0
s_cbranch_scc0 .L2
s_endpgm
";
        let c = counter_in(stepped, &launch).unwrap();
        assert_eq!((c.sgpr, c.step, c.trips), (12, StepOp::Add(3), 3));
        assert_eq!(counter_in(stepped, &LaunchValues::none()), None);
        // A step the loop changes is none.
        let moving = stepped.replace("s_cmp_ge_i32", "s_add_i32 s2, s2, 1\ns_cmp_ge_i32");
        assert_eq!(counter_in(&moving, &launch), None);
    }

    /// `for (i = 0; i < get_local_size(0); i++)` as pws.h computes the size, `min(grid - id *
    /// size, size)`: one value in every workgroup of a grid of whole workgroups.
    #[test]
    fn a_limit_the_same_in_every_workgroup_bounds_the_loop() {
        let src = format!(
            "k:
s_load_dword s2, s[4:5], 0x4
s_load_dword s3, s[4:5], 0xc
s_waitcnt lgkmcnt(0)
s_and_b32 s2, s2, 0xffff
s_mul_i32 s9, s8, s2
s_sub_i32 s3, s3, s9
s_min_u32 s2, s3, s2
s_mov_b32 s4, 0
.L2:
s_add_i32 s4, s4, 1
s_cmp_eq_u32 s2, s4
s_cbranch_scc0 .L2
s_endpgm
{}",
            pws_isa::testing::clang_descriptor("k", 4, 16)
        );
        let program = pws_isa::assemble(&src, "t.s").unwrap();
        let trips = |launch: &LaunchValues| trips_of_every_loop(&src, launch);
        assert_eq!(trips(&LaunchValues::geometry(&program, 4, 64)), [Some(64)]);
        assert_eq!(trips(&LaunchValues::none()), [None]);
    }

    /// `for (j = 0; j < get_group_id(0) * 3 + 2; j++)`: a limit that differs between
    /// workgroups is bounded by the most trips at its range's ends (11 in workgroup 3 of 4),
    /// where the exit is monotone in it; a counter stepping by 2 to an equality may step over.
    #[test]
    fn a_limit_from_the_workgroup_id_bounds_the_loop_by_its_most_trips() {
        let src = |step: u32, test: &str| {
            format!(
                "k:
s_mul_i32 s2, s8, 3
s_add_i32 s2, s2, 2
s_mov_b32 s4, 0
.L2:
s_add_i32 s4, s4, {step}
{test}
s_cbranch_scc0 .L2
s_endpgm
{}",
                pws_isa::testing::clang_descriptor("k", 4, 16)
            )
        };
        let trips = |src: &str, groups: u32| {
            let program = pws_isa::assemble(src, "t.s").unwrap();
            trips_of_every_loop(src, &LaunchValues::geometry(&program, groups, 64))
        };
        assert_eq!(trips(&src(1, "s_cmp_eq_u32 s2, s4"), 4), [Some(11)]);
        assert_eq!(trips(&src(1, "s_cmp_ge_i32 s4, s2"), 4), [Some(11)]);
        assert_eq!(trips(&src(2, "s_cmp_ge_i32 s4, s2"), 4), [Some(6)]);
        assert_eq!(trips(&src(1, "s_cmp_eq_u32 s2, s4"), 1), [Some(2)]);
        assert_eq!(trips(&src(2, "s_cmp_eq_u32 s2, s4"), 4), [None]);
        assert_eq!(trips(&src(1, "s_cmp_eq_u32 s2, s4"), 0), [None]);
        // Doubled from 1 (`st *= 2`): 2, 4, 8, 16 against 11; and the compare may read a value
        // derived from the counter (4 * st: 8, 16).
        let doubled = src(1, "s_cmp_ge_i32 s4, s2")
            .replace("s_mov_b32 s4, 0", "s_mov_b32 s4, 1")
            .replace("s_add_i32 s4, s4, 1", "s_lshl_b32 s4, s4, 1");
        assert_eq!(trips(&doubled, 4), [Some(4)]);
        let derived = doubled.replace(
            "s_cmp_ge_i32 s4, s2",
            "s_lshl_b32 s6, s4, 2\ns_cmp_ge_i32 s6, s2",
        );
        assert_eq!(trips(&derived, 4), [Some(2)]);
    }

    /// clang -O2's `for (i = 0, j = n; i < j; i++, j--)`: i + 1 kept in s6 and copied back,
    /// j in s3, compared with each other; n = 7.
    #[test]
    fn two_counters_may_run_to_each_other() {
        let launch = super::super::launch_values::tests::launch();
        let src = "\
s_load_dword s3, s[6:7], 0x8
s_mov_b32 s6, 1
s_waitcnt lgkmcnt(0)
s_cmp_lt_i32 s3, 1
s_cbranch_scc1 .L2
.L1:
s_add_i32 s3, s3, -1
s_add_i32 s7, s6, 1
s_cmp_ge_i32 s6, s3
s_mov_b32 s6, s7
s_cbranch_scc0 .L1
.L2:
s_endpgm
";
        // (i + 1, j - 1): (1, 6), (2, 5), (3, 4), (4, 3) leaves: four runs of the header.
        assert_eq!(trips_of_every_loop(src, &launch), [Some(4)]);
        // Both counting up, they never meet.
        let apart = src.replace("s_add_i32 s3, s3, -1", "s_add_i32 s3, s3, 1");
        assert_eq!(trips_of_every_loop(&apart, &launch), [None]);
        // One written twice in an iteration is no counter.
        let twice = src.replace(
            "s_add_i32 s3, s3, -1",
            "s_add_i32 s3, s3, -1\ns_add_i32 s3, s3, 1",
        );
        assert_eq!(trips_of_every_loop(&twice, &launch), [None]);
    }

    /// clang's `for (int k = n - 1; k >= 0; k--)`: the counter starts at an argument less one,
    /// and the test reads k + 1, another value than the one copied back.
    #[test]
    fn the_test_may_read_a_value_derived_from_the_counter() {
        let launch = super::super::launch_values::tests::launch();
        let down = "\
s_load_dword s4, s[6:7], 0xc
s_waitcnt lgkmcnt(0)
s_add_i32 s4, s4, -1
.L2:
s_add_i32 s5, s4, -1
s_add_i32 s6, s4, 1
s_cmp_lt_u32 s6, 2
s_mov_b32 s4, s5
s_cbranch_scc0 .L2
s_endpgm
";
        let c = counter_in(down, &launch).unwrap();
        assert_eq!(
            (c.sgpr, c.init, c.step, c.trips),
            (4, 4, StepOp::Add(u32::MAX), 5)
        );
        // Copied first, then stepped from the copy (clang -O3's outer loop after a peeled
        // test): `s_mov_b32 s7, s6; s_add_i32 s6, s7, 1`.
        let mirrored = "\
s_mov_b32 s6, 1
.L4:
s_cmp_lg_u32 s6, 9
s_cbranch_scc0 .L6
s_mov_b32 s7, s6
s_add_i32 s6, s7, 1
s_branch .L4
.L6:
s_endpgm
";
        let c = counter_in(mirrored, &LaunchValues::none()).unwrap();
        assert_eq!((c.sgpr, c.trips), (6, 9));
        let stale = mirrored.replace("s_mov_b32 s7, s6\n", "s_mov_b32 s7, s8\n");
        assert_eq!(counter_in(&stale, &LaunchValues::none()), None);
        // The same value derived after the copy back is one step ahead: one trip fewer.
        let after = down.replace(
            "s_add_i32 s6, s4, 1\ns_cmp_lt_u32 s6, 2\ns_mov_b32 s4, s5\n",
            "s_mov_b32 s4, s5\ns_add_i32 s6, s4, 1\ns_cmp_lt_u32 s6, 2\n",
        );
        assert_eq!(counter_in(&after, &launch).unwrap().trips, 4);
    }

    /// `for (r = 0; r < n; r++) for (c = r + 1; c < n; c++)` at clang-14 -O2: the inner
    /// loop compares r + c with n. Bounded by its most trips over r's values (n - 1), and so
    /// is the triangle `c < r`.
    #[test]
    fn a_nested_loop_may_count_to_or_from_the_enclosing_counter() {
        let launch = super::super::launch_values::tests::launch();
        let gauss = "\
s_load_dword s4, s[6:7], 0xc
s_waitcnt lgkmcnt(0)
s_mov_b32 s7, 0
.LBB10_2:
s_add_i32 s6, s7, 1
s_cmp_ge_i32 s6, s4
s_cbranch_scc1 .LBB10_5
s_mov_b32 s8, 1
.LBB10_4:
v_add_u32_e32 v3, vcc, s8, v0
s_add_i32 s8, s8, 1
s_add_i32 s9, s7, s8
s_cmp_ge_i32 s9, s4
s_cbranch_scc0 .LBB10_4
.LBB10_5:
s_cmp_lg_u32 s6, s4
s_cbranch_scc0 .LBB10_7
s_mov_b32 s7, s6
s_branch .LBB10_2
.LBB10_7:
s_endpgm
";
        assert_eq!(trips_of_every_loop(gauss, &launch), [Some(5), Some(4)]);
    }

    /// Three deep: `for (a = 0; a < n; a++) for (b = 0; b <= a; b++) for (c = b; c < a;
    /// c++)`. The innermost loop starts at the middle counter and compares with the outer
    /// one: it is run for every (a, b) the two take together.
    #[test]
    fn a_loop_may_depend_on_two_enclosing_counters() {
        let launch = super::super::launch_values::tests::launch();
        let tri3 = "\
s_load_dword s4, s[6:7], 0xc
s_waitcnt lgkmcnt(0)
s_mov_b32 s6, 0
.La:
s_mov_b32 s7, 0
.Lb:
s_mov_b32 s9, s7
s_cmp_ge_u32 s9, s6
s_cbranch_scc1 .Lbl
.Lc:
s_add_i32 s9, s9, 1
s_cmp_ge_u32 s9, s6
s_cbranch_scc0 .Lc
.Lbl:
s_add_i32 s7, s7, 1
s_cmp_gt_u32 s7, s6
s_cbranch_scc0 .Lb
s_add_i32 s6, s6, 1
s_cmp_eq_u32 s6, s4
s_cbranch_scc0 .La
s_endpgm
";
        // a in 0..5; b in 0..=a: 5 at most; c from b + 1 while below a: 4 at most (and 1
        // for the bottom test where the guard skips the loop).
        assert_eq!(
            trips_of_every_loop(tri3, &launch),
            [Some(5), Some(5), Some(4)]
        );
    }

    /// clang -O2's `for (a = 0; a < n; a++) for (b = a + 1; b < n; b++) for (c = b + 1; c <
    /// n; c++)`: the middle loop's test is kept as a mask in VCC across the inner loop and
    /// leaves at `s_cbranch_vccnz` in its latch. With EXEC zero that branch would never be
    /// taken; EXEC is non-zero on entry (nothing writes it here), so the loop leaves.
    #[test]
    fn a_test_kept_in_vcc_across_an_inner_loop_ends_the_loop() {
        let launch = super::super::launch_values::tests::launch();
        let body = "\
s_load_dword s9, s[6:7], 0x8
s_waitcnt lgkmcnt(0)
s_cmp_lt_i32 s9, 1
s_cbranch_scc1 .LBB0_7
s_mov_b32 s5, 0
v_mov_b32_e32 v1, 0
s_branch .LBB0_3
.LBB0_2:
s_cmp_lg_u32 s5, s9
v_add_u32_e32 v2, vcc, 11, v2
s_cbranch_scc0 .LBB0_8
.LBB0_3:
s_add_i32 s5, s5, 1
s_cmp_ge_i32 s5, s9
v_mov_b32_e32 v3, v2
s_mov_b32 s6, s5
s_cbranch_scc0 .LBB0_5
s_branch .LBB0_2
.LBB0_4:
v_add_u32_e64 v3, s[0:1], 4, v3
s_mov_b64 vcc, vcc
s_cbranch_vccnz .LBB0_2
.LBB0_5:
s_add_i32 s6, s6, 1
s_cmp_ge_i32 s6, s9
s_cselect_b64 s[0:1], -1, 0
s_and_b64 vcc, exec, s[0:1]
v_mov_b32_e32 v4, v3
s_mov_b32 s7, s6
s_cbranch_vccnz .LBB0_4
.LBB0_6:
v_and_b32_e32 v5, 5, v4
s_add_i32 s7, s7, 1
v_add_u32_e64 v4, s[0:1], 1, v4
s_cmp_ge_i32 s7, s9
v_add_u32_e64 v1, s[0:1], v5, v1
s_cbranch_scc0 .LBB0_6
s_branch .LBB0_4
.LBB0_7:
v_mov_b32_e32 v1, 0
.LBB0_8:
s_endpgm
";
        // n = 7: a runs 7 times, b at most 6 (a = 0), c at most 5.
        assert_eq!(
            trips_of_every_loop(body, &launch),
            [Some(7), Some(6), Some(5)]
        );
        // The same with EXEC possibly zero on entry: the middle loop may never leave.
        let zeroed = format!("s_mov_b64 exec, s[10:11]\n{body}");
        assert_eq!(trips_of_every_loop(&zeroed, &launch), [Some(7), None, None]);
    }

    /// clang -O2's `for (a = 0; a < n; a++) for (b = 0; b <= a; b++) for (c = b; c < a; c++)`
    /// keeps a second induction variable, s3 = a + 1, beside a's counter s5, and the middle
    /// loop counts to it: s3's values go with s5's.
    #[test]
    fn an_inner_loop_may_count_to_a_second_induction_variable() {
        let launch = super::super::launch_values::tests::launch();
        let src = "\
s_load_dword s2, s[6:7], 0x8
s_waitcnt lgkmcnt(0)
s_cmp_lt_i32 s2, 1
s_mov_b32 s3, 1
s_cbranch_scc1 .LBB0_7
s_mov_b32 s4, 0
s_mov_b32 s5, 0
s_branch .LBB0_3
.LBB0_2:
s_add_i32 s5, s5, 1
s_add_i32 s3, s3, 1
s_add_i32 s4, s4, 5
s_cmp_eq_u32 s5, s2
s_cbranch_scc1 .LBB0_7
.LBB0_3:
v_mov_b32_e32 v3, s4
s_mov_b32 s6, 0
s_branch .LBB0_5
.LBB0_4:
s_add_i32 s6, s6, 1
s_cmp_eq_u32 s6, s3
s_cbranch_scc1 .LBB0_2
.LBB0_5:
s_cmp_ge_u32 s6, s5
s_mov_b32 s7, s6
s_cbranch_scc1 .LBB0_4
.LBB0_6:
s_add_i32 s7, s7, 1
s_cmp_ge_u32 s7, s5
s_cbranch_scc0 .LBB0_6
s_branch .LBB0_4
.LBB0_7:
s_endpgm
";
        // n = 7: a in 0..7, b in 0..=a (7 at most), c in b..a (6 at most).
        assert_eq!(
            trips_of_every_loop(src, &launch),
            [Some(7), Some(7), Some(6)]
        );
        // Written twice in an iteration, s3 is no induction variable.
        let twice = src.replace(".LBB0_3:\n", ".LBB0_3:\ns_lshl_b32 s3, s3, 1\n");
        assert_eq!(trips_of_every_loop(&twice, &launch)[1], None);
    }

    /// clang -O3's bitonic sort: `for (k = 2; k <= n; k <<= 1) for (j = k >> 1; j > 0; j >>=
    /// 1)` tests a copy of j taken before the shift (`s_mov_b32 s7, s6; s_ashr_i32 s6, s6, 1`
    /// ... `s_cmp_lt_i32 s7, 4`), and j starts from k.
    #[test]
    fn the_test_may_read_a_copy_of_the_counter() {
        let src = "\
s_mov_b32 s4, 16
s_mov_b32 s5, 2
s_branch .LBB0_3
.LBB0_2:
s_lshl_b32 s5, s5, 1
s_cmp_gt_i32 s5, s4
s_cbranch_scc1 .LBB0_1
.LBB0_3:
s_cmp_lt_i32 s5, 2
s_cbranch_scc1 .LBB0_2
s_mov_b32 s6, s5
s_branch .LBB0_6
.LBB0_5:
s_cmp_lt_i32 s7, 4
s_cbranch_scc1 .LBB0_2
.LBB0_6:
s_mov_b32 s7, s6
s_ashr_i32 s6, s6, 1
v_xor_b32_e32 v4, s6, v0
s_branch .LBB0_5
.LBB0_1:
s_endpgm
";
        // k = 2, 4, 8, 16; j from k / 2 down to 1: 4 at most (k = 16).
        assert_eq!(
            trips_of_every_loop(src, &LaunchValues::none()),
            [Some(4), Some(4)]
        );
    }

    /// clang -O1's `for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)` over `a[i]`: i + 1
    /// goes into s11 at the header, i's register s4 then holds `a[i]` (`s_load_dword s4`),
    /// and the latch copies s11 back into it.
    #[test]
    fn the_counter_register_may_hold_another_value_until_the_copy_back() {
        let launch = super::super::launch_values::tests::launch();
        let src = "\
s_load_dword s10, s[6:7], 0x8
s_waitcnt lgkmcnt(0)
s_cmp_lt_i32 s10, 1
s_cbranch_scc1 .LBB0_7
s_mov_b32 s5, 0
s_mov_b32 s4, s5
.LBB0_2:
s_add_i32 s11, s4, 1
s_cmp_ge_i32 s11, s10
s_cbranch_scc1 .LBB0_5
s_lshl_b64 s[8:9], s[4:5], 2
s_load_dword s4, s[8:9], 0x0
s_mov_b32 s12, s11
.LBB0_4:
s_add_i32 s12, s12, 1
s_waitcnt lgkmcnt(0)
s_sub_i32 s13, s4, s12
s_cmp_ge_i32 s12, s10
s_cbranch_scc0 .LBB0_4
.LBB0_5:
s_cmp_lg_u32 s11, s10
s_cbranch_scc0 .LBB0_7
s_mov_b32 s4, s11
s_branch .LBB0_2
.LBB0_7:
s_endpgm
";
        // n = 7: i in 0..7; j from i + 1: 6 at most.
        assert_eq!(trips_of_every_loop(src, &launch), [Some(7), Some(6)]);
        // Lent before the counter is read, the register is no counter.
        let early = src.replace(".LBB0_2:\n", ".LBB0_2:\ns_mov_b32 s4, 0\n");
        assert_eq!(trips_of_every_loop(&early, &launch)[0], None);
    }

    #[test]
    fn the_budget_ends_the_search() {
        let src = "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_u32 s4, 100\ns_cbranch_scc1 .L1\ns_endpgm\n";
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        // Following the iteration's paths costs an instruction each, running the counter a
        // step each.
        let mut budget = Budget(1000);
        assert_eq!(
            counted_loop(&program, &flow, 0, &LaunchValues::none(), &mut budget)
                .unwrap()
                .trips,
            100
        );
        let used = 1000 - budget.0;
        assert!(used >= 100, "{used}");
        assert_eq!(
            counted_loop(
                &program,
                &flow,
                0,
                &LaunchValues::none(),
                &mut Budget(used - 1)
            ),
            None
        );
    }

    /// clang's `for (int j = 0; j < 64; j++)` over a 16-byte stride: a 64-bit pointer
    /// increment whose low word is the counter, tested at the bottom.
    #[test]
    fn a_bottom_tested_pointer_walk_runs_its_trip_count() {
        let c = counter(
            "s_mov_b64 s[20:21], 0\n\
             .LBB0_1:\n\
             s_add_u32 s20, s20, 16\n\
             s_addc_u32 s21, s21, 0\n\
             s_cmpk_eq_i32 s20, 0x400\n\
             v_add_u32_e32 v1, vcc, v1, v2\n\
             s_cbranch_scc0 .LBB0_1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(
            (c.sgpr, c.init, c.step, c.trips),
            (20, 0, StepOp::Add(16), 64)
        );
    }

    #[test]
    fn a_top_tested_loop_counts_its_header_once_more() {
        let c = counter(
            "s_mov_b32 s4, 0\n\
             .LBB0_1:\n\
             s_cmp_ge_i32 s4, 10\n\
             s_cbranch_scc1 .LBB0_3\n\
             v_add_u32_e32 v1, vcc, 1, v1\n\
             s_add_i32 s4, s4, 1\n\
             s_branch .LBB0_1\n\
             .LBB0_3:\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(c.trips, 11, "ten iterations and the test that leaves");
    }

    #[test]
    fn counting_down_with_a_constant_first_compares_as_written() {
        let c = counter(
            "s_movk_i32 s7, 0x20\n\
             .LBB0_1:\n\
             s_sub_u32 s7, s7, 4\n\
             s_cmp_lt_u32 0, s7\n\
             s_cbranch_scc1 .LBB0_1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(c.trips, 8);
    }

    /// clang-14 -O2 on `for (i = 0; i < 100; i++) { if (x < eps) break; x = ...; }`: the
    /// counter's test ORed into the mask of lanes that leave, the old value kept in s6.
    #[test]
    fn a_loop_lanes_leave_by_break_is_bounded_by_its_counter() {
        let c = counter(
            "s_mov_b32 s6, 0\n\
             s_mov_b64 s[4:5], 0\n\
             .LBB0_2:\n\
             v_mov_b32_e32 v4, v2\n\
             s_add_i32 s10, s6, 1\n\
             s_cmpk_gt_u32 s6, 0x62\n\
             s_cselect_b64 s[8:9], -1, 0\n\
             v_mac_f32_e32 v2, 0.5, v4\n\
             v_cmp_gt_f32_e32 vcc, s7, v2\n\
             s_or_b64 s[8:9], s[8:9], vcc\n\
             s_and_b64 s[8:9], exec, s[8:9]\n\
             v_mov_b32_e32 v3, s10\n\
             s_or_b64 s[4:5], s[8:9], s[4:5]\n\
             s_mov_b32 s6, s10\n\
             s_andn2_b64 exec, exec, s[4:5]\n\
             s_cbranch_execnz .LBB0_2\n\
             s_or_b64 exec, exec, s[4:5]\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!(
            (c.sgpr, c.init, c.step, c.trips),
            (6, 0, StepOp::Add(1), 100)
        );
    }

    /// `while (x != 1 && steps < 200)`: the test in the latch, leaving on an empty EXEC, the
    /// header a divergent if/else.
    #[test]
    fn a_latch_that_leaves_on_an_empty_exec() {
        let c = counter(
            "s_mov_b32 s8, 0\n\
             s_mov_b64 s[4:5], 0\n\
             s_branch .LBB1_3\n\
             .LBB1_2:\n\
             s_or_b64 exec, exec, s[6:7]\n\
             s_add_i32 s9, s8, 1\n\
             s_cmpk_gt_u32 s8, 0xc6\n\
             v_cmp_eq_u32_e32 vcc, 1, v2\n\
             s_cselect_b64 s[6:7], -1, 0\n\
             s_or_b64 s[6:7], vcc, s[6:7]\n\
             s_and_b64 s[6:7], exec, s[6:7]\n\
             s_or_b64 s[4:5], s[6:7], s[4:5]\n\
             v_mov_b32_e32 v3, s9\n\
             s_mov_b32 s8, s9\n\
             s_andn2_b64 exec, exec, s[4:5]\n\
             s_cbranch_execz .LBB1_7\n\
             .LBB1_3:\n\
             v_and_b32_e32 v3, 1, v2\n\
             v_cmp_eq_u32_e32 vcc, 1, v3\n\
             s_and_saveexec_b64 s[6:7], vcc\n\
             s_xor_b64 s[6:7], exec, s[6:7]\n\
             v_mul_lo_u32 v2, v2, 3\n\
             s_or_saveexec_b64 s[6:7], s[6:7]\n\
             s_xor_b64 exec, exec, s[6:7]\n\
             s_cbranch_execz .LBB1_2\n\
             v_lshrrev_b32_e32 v2, 1, v2\n\
             s_branch .LBB1_2\n\
             .LBB1_7:\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.sgpr, c.trips), (8, 200));
    }

    /// `while (lo < hi && it < 11)` with uniform `lo`/`hi` kept in VGPRs: the counter's test
    /// ANDed into VCC.
    #[test]
    fn a_uniform_loop_leaving_on_vcc() {
        let c = counter(
            "s_mov_b32 s7, 0\n\
             .LBB1_1:\n\
             v_add_u32_e32 v3, vcc, v2, v1\n\
             s_load_dword s9, s[10:11], 0x0\n\
             s_waitcnt lgkmcnt(0)\n\
             s_add_i32 s9, s7, 1\n\
             s_cmp_lt_u32 s7, 10\n\
             v_cmp_lt_i32_e32 vcc, v1, v2\n\
             s_cselect_b64 s[10:11], -1, 0\n\
             s_and_b64 s[10:11], vcc, s[10:11]\n\
             s_mov_b32 s7, s9\n\
             s_and_b64 vcc, exec, s[10:11]\n\
             s_cbranch_vccnz .LBB1_1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.sgpr, c.trips), (7, 11));
    }

    /// The compare reads the incremented copy before it is moved back.
    #[test]
    fn the_compare_may_read_the_incremented_copy() {
        let c = counter(
            "s_mov_b32 s6, 0\n\
             .L1:\n\
             s_add_i32 s10, s6, 4\n\
             s_cmp_lt_u32 s10, 40\n\
             s_mov_b32 s6, s10\n\
             s_cbranch_scc1 .L1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.sgpr, c.step, c.trips), (6, StepOp::Add(4), 10));
    }

    /// The copy back in the latch, after the test's block that adds: t (s2) also takes a
    /// vector carry in the loop, but not between the add and the copy.
    #[test]
    fn the_copy_back_reads_the_add_on_its_one_path() {
        let c = counter(
            "s_mov_b32 s14, 0\n\
             .L3:\n\
             v_add_u32_e64 v7, s[2:3], v7, v8\n\
             s_add_i32 s2, s14, 1\n\
             s_cmp_gt_u32 s14, 11\n\
             s_cbranch_scc1 .L12\n\
             s_mov_b32 s14, s2\n\
             s_branch .L3\n\
             .L12:\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.sgpr, c.trips), (14, 13));
    }

    /// `for (m = 1; m < 4096; m <<= 1)` around a divergent if/else, and a tree reduction's
    /// `for (s = 32; s > 0; s >>= 1)`.
    #[test]
    fn shifted_counters_run_their_shifts() {
        let c = counter(
            "s_mov_b32 s4, 1\n\
             s_branch .L2\n\
             .L1:\n\
             s_or_b64 exec, exec, s[0:1]\n\
             s_lshl_b32 s4, s4, 1\n\
             s_cmpk_gt_i32 s4, 0xfff\n\
             s_cbranch_scc1 .L6\n\
             .L2:\n\
             v_and_b32_e32 v1, s4, v0\n\
             v_cmp_ne_u32_e32 vcc, 0, v1\n\
             s_and_saveexec_b64 s[0:1], vcc\n\
             v_add_u32_e32 v0, vcc, s4, v0\n\
             s_branch .L1\n\
             .L6:\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.step, c.trips), (StepOp::Shl(1), 12));
        let c = counter(
            "s_movk_i32 s5, 0x20\n\
             .L1:\n\
             v_add_u32_e32 v1, vcc, s5, v1\n\
             s_lshr_b32 s5, s5, 1\n\
             s_cmp_lg_u32 s5, 0\n\
             s_cbranch_scc1 .L1\n\
             s_endpgm\n",
        )
        .expect("a counted loop");
        assert_eq!((c.step, c.trips), (StepOp::Lshr(1), 6));
        assert_eq!(c.step.to_string(), "shifted right by 1");
    }

    /// clang reuses the counter's register for the mask of its test, and copies the counter
    /// back after.
    #[test]
    fn a_counter_register_lent_to_its_own_test_mask() {
        let src = "s_mov_b32 s18, 0\n\
             s_mov_b64 s[16:17], 0\n\
             .L4:\n\
             s_add_i32 s20, s18, 1\n\
             s_cmp_gt_u32 s18, 11\n\
             s_cselect_b64 s[18:19], -1, 0\n\
             v_cmp_gt_u32_e64 s[4:5], v7, v0\n\
             s_or_b64 s[4:5], s[18:19], s[4:5]\n\
             s_and_b64 s[4:5], exec, s[4:5]\n\
             s_or_b64 s[16:17], s[4:5], s[16:17]\n\
             s_mov_b32 s18, s20\n\
             s_andn2_b64 exec, exec, s[16:17]\n\
             s_cbranch_execnz .L4\n\
             s_endpgm\n";
        let c = counter(src).expect("a counted loop");
        assert_eq!((c.sgpr, c.trips), (18, 13));
        // A second test, of the register while it is lent: it reads the mask, not the
        // counter, so it bounds nothing (taken for the counter it would give 5).
        let late = src.replace(
            "v_cmp_gt_u32_e64 s[4:5], v7, v0\n",
            "s_cmp_gt_u32 s18, 3\ns_cselect_b64 s[22:23], -1, 0\nv_cmp_gt_u32_e64 s[4:5], v7, v0\ns_or_b64 s[4:5], s[22:23], s[4:5]\n",
        );
        assert_eq!(counter(&late).map(|c| c.trips), Some(13));
    }

    /// clang-14 -O2's `for (uint k = 1; k < get_local_size(0); k *= 2) { if (tid % (2 * k) ==
    /// 0) s[tid] += s[tid + k]; ... }` (NVIDIA's interleaved reduction): the loop's latch comes
    /// before its header, so the copy back of the doubled counter is its first write in
    /// program order, and the `if` lends the counter's register to an address.
    #[test]
    fn a_counter_register_lent_inside_an_if_of_a_rotated_loop() {
        let src = "s_mov_b32 s6, 1\n\
             s_branch .L3\n\
             .L2:\n\
             s_or_b64 exec, exec, s[0:1]\n\
             s_cmpk_ge_u32 s5, 0x80\n\
             s_mov_b32 s6, s5\n\
             s_cbranch_scc1 .L5\n\
             .L3:\n\
             s_lshl_b32 s5, s6, 1\n\
             v_and_b32_e32 v1, s6, v0\n\
             v_cmp_eq_u32_e32 vcc, 0, v1\n\
             s_and_saveexec_b64 s[0:1], vcc\n\
             s_cbranch_execz .L2\n\
             s_lshl_b32 s6, s6, 2\n\
             v_add_u32_e32 v2, vcc, s6, v0\n\
             s_branch .L2\n\
             .L5:\n\
             s_endpgm\n";
        let c = counter(src).expect("a counted loop");
        assert_eq!((c.sgpr, c.init, c.trips), (6, 1, 7));
        // A write after the copy back is the counter's own, not a loan: no bound.
        let after = src.replace(
            "s_mov_b32 s6, s5\n",
            "s_mov_b32 s6, s5\ns_lshl_b32 s6, s6, 2\n",
        );
        assert_eq!(counter(&after), None);
    }

    /// clang-14 -O2's `for (int st = 32; st > 0; st /= 2)` around an `if`: the signed
    /// division rounds toward zero, so clang adds the sign bit before the arithmetic shift.
    #[test]
    fn a_signed_division_by_a_power_of_two_steps_the_counter() {
        let src = "s_mov_b32 s2, 32\n\
             s_branch .L7\n\
             .L6:\n\
             s_or_b64 exec, exec, s[0:1]\n\
             s_lshr_b32 s0, s2, 31\n\
             s_add_i32 s0, s2, s0\n\
             s_ashr_i32 s0, s0, 1\n\
             s_cmp_lt_i32 s2, 2\n\
             s_mov_b32 s2, s0\n\
             s_cbranch_scc1 .L9\n\
             .L7:\n\
             v_cmp_gt_i32_e32 vcc, s2, v0\n\
             s_and_saveexec_b64 s[0:1], vcc\n\
             s_cbranch_execz .L6\n\
             s_lshl_b32 s3, s2, 2\n\
             s_branch .L6\n\
             .L9:\n\
             s_endpgm\n";
        let c = counter(src).expect("a counted loop");
        assert_eq!((c.sgpr, c.step, c.trips), (2, StepOp::Div(1), 6));
        assert_eq!(c.step.to_string(), "divided by 2");
        // By 4 (the bias is the sign spread, then its top two bits): 32, 8, 2.
        let by_four = src
            .replace(
                "s_lshr_b32 s0, s2, 31\n",
                "s_ashr_i32 s0, s2, 31\ns_lshr_b32 s0, s0, 30\n",
            )
            .replace("s_ashr_i32 s0, s0, 1", "s_ashr_i32 s0, s0, 2")
            .replace("s_cmp_lt_i32 s2, 2", "s_cmp_lt_i32 s2, 4");
        let c = counter(&by_four).expect("a counted loop");
        assert_eq!((c.step, c.trips), (StepOp::Div(2), 3));
        // A bias of another width, or the counter written between: not a division.
        for (from, to) in [
            ("s_lshr_b32 s0, s2, 31", "s_lshr_b32 s0, s2, 30"),
            (
                "s_add_i32 s0, s2, s0\n",
                "s_add_i32 s0, s2, s0\ns_add_i32 s2, s2, 1\n",
            ),
        ] {
            assert_eq!(counter(&src.replace(from, to)), None, "{to}");
        }
    }

    #[test]
    fn anything_else_is_not_inferred() {
        let cases = [
            // The counter starts from a kernel argument.
            "s_load_dword s4, s[0:1], 0x0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // Two steps in the loop.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_add_i32 s4, s4, 2\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // The step is conditional (skipped when SCC is set).
            "s_mov_b32 s4, 0\n.L1:\ns_cmp_eq_u32 s5, 0\ns_cbranch_scc1 .L2\ns_add_i32 s4, s4, 1\n.L2:\ns_cmp_lt_i32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // Compared with another register.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\ns_cmp_lt_i32 s4, s5\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // A divergent loop: its exit is an EXEC branch.
            "s_mov_b32 s4, 0\n.L1:\ns_add_i32 s4, s4, 1\nv_cmp_gt_i32_e32 vcc, 5, v0\ns_and_b64 exec, exec, vcc\ns_cbranch_execnz .L1\ns_endpgm\n",
            // The counter's test ANDed with the data's: lanes may stay.
            "s_mov_b32 s6, 0\ns_mov_b64 s[4:5], 0\n.L1:\ns_add_i32 s6, s6, 1\ns_cmp_gt_u32 s6, 10\ns_cselect_b64 s[8:9], -1, 0\ns_and_b64 s[8:9], s[8:9], vcc\ns_and_b64 s[8:9], exec, s[8:9]\ns_or_b64 s[4:5], s[8:9], s[4:5]\ns_andn2_b64 exec, exec, s[4:5]\ns_cbranch_execnz .L1\ns_endpgm\n",
            // The copy back is not of the add (another value reaches the move).
            "s_mov_b32 s6, 0\n.L1:\ns_add_i32 s10, s6, 1\ns_mov_b32 s10, s11\ns_cmp_lt_u32 s6, 40\ns_mov_b32 s6, s10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // The compared copy is stepped from another register than the counter.
            "s_mov_b32 s6, 0\n.L1:\ns_add_i32 s10, s7, 1\ns_cmp_lt_u32 s10, 40\ns_mov_b32 s6, s10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            // Never leaves within MAX_TRIPS (the step skips the exit value).
            "s_mov_b32 s4, 1\n.L1:\ns_add_i32 s4, s4, 2\ns_cmp_lg_u32 s4, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
        ];
        for src in cases {
            assert_eq!(counter(src), None, "{src}");
        }
    }
}
