//! Loop bounds for loops whose counter is a VGPR: each lane counts from its own start by the
//! same step, and leaves when its own compare says so. clang emits a grid-stride loop (`for
//! (int i = get_global_id(0); i < n; i += get_global_size(0))`) and a workgroup's copy of a
//! tile (`for (i = get_local_id(0); i < n; i += get_local_size(0))`) so:
//!
//! ```text
//! .LBB0_2:                          ; the header
//!   ...
//!   v_add_u32_e32 v0, vcc, s4, v0   ; the step: the grid's size, the same in every lane
//!   v_cmp_le_i32_e32 vcc, s9, v0    ; n <= i: this lane is done
//!   s_or_b64 s[6:7], vcc, s[6:7]    ; the lanes done so far
//!   ...
//!   s_andn2_b64 exec, exec, s[6:7]
//!   s_cbranch_execnz .LBB0_2
//! ```
//!
//! The shape recognised (anything else is left to [`super::trip_count`] or an annotation):
//! - EXEC never gains a lane the dispatcher disabled
//!   ([`exit_mask::exec_within_dispatch`]), and is non-zero whenever the header starts
//!   ([`exit_mask::exec_nonzero`]): every run of the header has a lane still counting. The
//!   loop holds no `split` or `merge` (the kernel may, before or after it);
//! - in one segment of a block of the loop itself (a stretch between writes of EXEC, so with
//!   one EXEC throughout), a counter VGPR v is stepped: every write of v in the loop, nested
//!   loops included, is there, and together they leave v + d, d a constant or an SGPR the loop
//!   does not write whose value the launch fixes. They may go through other registers, as
//!   clang's `v_add_u32 v3, vcc, s12, v4; v_mov_b32 v4, v3` does. The block may be the header
//!   or one only some lanes enter (clang's `if (a[i] < 0) break;` before the step), and the
//!   segment may follow the join of an `if`/`else` in the body (`s_or_b64 exec, exec, s[8:9]`
//!   and then the step): which lanes step is then the walk's to prove;
//! - there too, an integer compare (`v_cmp_{lt,le,gt,ge}_{i,u}32`, or `eq`/`ne` of a counter
//!   stepped by 1 or -1) of v + c (c known,
//!   the step included if the compare comes after it) with a known uniform value, whose result
//!   for a lane, one way, ends that lane's loop ([`exit_mask::lane_leaves_when`]);
//! - v's start over the lanes that enter the loop lies in a known range ([`LaneRanges`]).
//!
//! A lane's trips are then the iterations up to the first whose compare gives the exit
//! result. They only shrink or only grow with the start, so the most over the range is at one
//! of its ends, as long as no lane's counter wraps around before it leaves: the values are
//! followed in exact arithmetic at both ends, and must stay within the compare's type.
//!
//! The same holds the other way round: clang counts `for (k = 0; k < c; k++)` in an SGPR
//! where k is only used uniformly, and each lane compares it with its own c
//! (`v_cmp_eq_u32 vcc, s8, v2`). The counter is then stepped by a constant, or an SGPR the loop
//! does not write whose value the launch fixes, in one segment,
//! from a value [`ScalarValues`] knows on entry, and the lanes' values (a VGPR the loop does
//! not write) lie in a known range, at whose ends the most trips are.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range as Span;

use pws_isa::{Instruction, Opcode, Operand, Program};

use super::exit_mask;
use super::lane_ranges::{
    hull, number_as, plain, sgpr_range, type_range, uniform_sgpr, vgprs_written,
    writes_exec_or_split_mask, LaneRanges, Range,
};
use super::launch_values::ScalarValues;
use super::trip_count::{MAX_SGPR, MAX_TRIPS};
use crate::flow::Flow;
use crate::scalar::{effects, registers};

/// How a lane counter changes from one iteration to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneStep {
    /// Adds a signed value.
    Add(i32),
    /// Shifts right (logically) by 1..=31 bits: clang's `for (s = get_local_size(0) / 2; s > 0;
    /// s >>= 1)`, which it keeps in a VGPR when it halves the 64-bit size there.
    Lshr(u32),
}

impl fmt::Display for LaneStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneStep::Add(d) => write!(f, "by {d}"),
            LaneStep::Lshr(k) => write!(f, "shifted right by {k}"),
        }
    }
}

/// A loop bounded by its lanes' own counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneCounter {
    /// The counter's VGPR at the header.
    pub vgpr: u8,
    /// Its least and most value over the lanes that enter the loop.
    pub start: Range,
    /// What an iteration does to the counter.
    pub step: LaneStep,
    /// Header executions per entry into the loop: the most any lane runs.
    pub trips: u64,
    /// A counter in an SGPR, the same in every lane, compared with each lane's `vgpr` (whose
    /// range is `start`): the SGPR and its value on entry.
    pub scalar: Option<(u8, u32)>,
    /// The counter enters as this VGPR plus a constant, and `start` is that VGPR's range: clang
    /// starts `for (j = get_local_id(0); j < 64; j += 16)` at `lid - 16`, which wraps around
    /// for the first lanes, and steps before its test.
    pub from: Option<(u8, i32)>,
}

/// The lane-counted loop `l` of `flow`, if it has the shape of the module documentation, with
/// `whole` the [`super::lane_ranges::dispatch_prefix`] of the program (zero: EXEC may gain
/// lanes, and nothing is proved). Of several exit tests that prove a bound, the tightest.
pub fn lane_counted_loop<'a>(
    program: &'a Program,
    flow: &'a Flow,
    l: usize,
    values: &mut ScalarValues<'a>,
    exec_nonzero: &[bool],
    whole: usize,
    budget: &mut u64,
) -> Option<LaneCounter> {
    let lp = &flow.loops[l];
    let header = lp.header;
    if whole == 0 || !exec_nonzero[header] || header == flow.block_of(0) {
        return None;
    }
    let insts = &program.instructions;
    let mut vector_defs: HashMap<u8, Vec<usize>> = HashMap::new();
    let mut scalar_defs: HashMap<u8, Vec<usize>> = HashMap::new();
    for &b in &lp.body {
        *budget = budget.checked_sub(flow.blocks[b].len() as u64)?;
        for i in flow.blocks[b].clone() {
            let inst = &insts[i].item;
            // The walk of an iteration follows one context's EXEC, not a merge's union.
            if matches!(inst.opcode, Opcode::Split | Opcode::Merge) {
                return None;
            }
            for r in effects(inst).defs.iter() {
                scalar_defs.entry(r).or_default().push(i);
            }
            for v in vgprs_written(inst) {
                vector_defs.entry(v).or_default().push(i);
            }
        }
    }
    let entries: Vec<usize> = flow.pred[header]
        .iter()
        .copied()
        .filter(|&p| flow.reachable[p] && !lp.contains(p))
        .collect();
    let whole_lanes = &mut LaneRanges::new(program, flow, values, whole);
    // The SGPRs the loop adds to a VGPR and does not write whose value is one per workgroup,
    // several over the launch (only an add of a start value reads them as such).
    let first = flow.blocks[header].start;
    let mut spreads: HashMap<u8, Range> = HashMap::new();
    for &b in &lp.body {
        for i in flow.blocks[b].clone() {
            let inst = &insts[i].item;
            if inst.opcode != Opcode::VAddU32 {
                continue;
            }
            for op in [inst.src(0), inst.src(1)] {
                let Some(Operand::Sgpr(r)) = op else {
                    continue;
                };
                if r > MAX_SGPR || scalar_defs.contains_key(&r) || spreads.contains_key(&r) {
                    continue;
                }
                if let Some(range) = sgpr_range(whole_lanes.scalar_values(), first, r, budget) {
                    if range.0 != range.1 {
                        spreads.insert(r, range);
                    }
                }
            }
        }
    }
    let mut uniform: HashMap<u8, Option<u32>> = HashMap::new();
    let mut known = |at: usize, op: Option<Operand>, budget: &mut u64| match op? {
        Operand::Sgpr(r) if !scalar_defs.contains_key(&r) => {
            uniform_sgpr(whole_lanes.scalar_values(), at, r, budget)
        }
        // One value in every lane that enters the loop, which does not write it: clang keeps
        // `get_num_groups(0)` in a VGPR, as the division that computes it leaves it.
        Operand::Vgpr(v) if !vector_defs.contains_key(&v) => {
            *uniform.entry(v).or_insert_with(|| {
                let r = entry_range(whole_lanes, &entries, v, budget)?;
                (r.0 == r.1).then_some(r.0)
            })
        }
        Operand::Sgpr(_) | Operand::Vgpr(_) => None,
        op => op.constant_value32(),
    };
    // Each stretch of a block of the loop itself between writes of EXEC, run symbolically.
    let mut segments: Vec<(Span<usize>, Segment)> = Vec::new();
    for b in flow.in_order(&lp.body) {
        if flow.loop_of(b) != Some(l) {
            continue;
        }
        let block = flow.blocks[b].clone();
        let mut start = block.start;
        while start < block.end {
            let end = (start..block.end)
                .find(|&i| writes_exec_or_split_mask(&insts[i].item))
                .unwrap_or(block.end);
            let mut run = Segment {
                spreads: spreads.clone(),
                ..Segment::default()
            };
            for (i, inst) in insts.iter().enumerate().take(end).skip(start) {
                run.step(i, &inst.item, &mut |at, op| known(at, op, budget));
            }
            if !run.compares.is_empty() || !run.against.is_empty() {
                segments.push((start..end, run));
            }
            start = end + 1;
        }
    }
    let mut starts: HashMap<u8, Option<Range>> = HashMap::new();
    let mut best: Option<LaneCounter> = None;
    for (segment, run) in &segments {
        for cmp in &run.against {
            // The counter: every write of it in the loop is in this segment, which steps it.
            let Some(Some((s, step))) = run.scalar.get(&cmp.sgpr) else {
                continue;
            };
            let in_segment = scalar_defs[&cmp.sgpr].iter().all(|d| segment.contains(d));
            if *s != cmp.sgpr || *step == 0 || !in_segment || vector_defs.contains_key(&cmp.vgpr) {
                continue;
            }
            // One value on every entry.
            let values = whole_lanes.scalar_values();
            let mut inits = entries.iter().map(|&p| values.at_end(p, *s, budget));
            let Some(Some(init)) = inits.next() else {
                continue;
            };
            if !inits.all(|x| x == Some(init)) {
                continue;
            }
            let start = *starts
                .entry(cmp.vgpr)
                .or_insert_with(|| entry_range(whole_lanes, &entries, cmp.vgpr, budget));
            let Some(lanes) = start else {
                continue;
            };
            let first = init.wrapping_add(cmp.offset);
            let trips = tightest(
                program,
                flow,
                l,
                cmp.at,
                exec_nonzero[header],
                budget,
                |e, b| cmp.most_trips(e, first, *step as i32, lanes, b),
            );
            if let Some(trips) = trips {
                keep_fewer(
                    &mut best,
                    LaneCounter {
                        vgpr: cmp.vgpr,
                        start: lanes,
                        step: LaneStep::Add(*step as i32),
                        trips,
                        scalar: Some((*s, init)),
                        from: None,
                    },
                );
            }
        }
    }
    for (segment, Segment { sym, compares, .. }) in segments {
        // The counters: every write in the loop is in this segment, which steps them.
        let steps: HashMap<u8, LaneStep> = vector_defs
            .iter()
            .filter(|(_, defs)| defs.iter().all(|d| segment.contains(d)))
            .filter_map(|(&v, _)| match sym.get(&v) {
                Some(Sym::Plus(w, step)) if *w == v && *step != 0 => {
                    Some((v, LaneStep::Add(*step as i32)))
                }
                Some(Sym::Shr(w, k)) if *w == v => Some((v, LaneStep::Lshr(*k))),
                _ => None,
            })
            .collect();
        // The high halves of 64-bit counters: unchanged while their low half's add does not
        // carry, which is while the start value plus a non-negative constant stays below
        // 2^32. The add is the compare's value or the next iteration's
        // ([`LaneCompare::most_trips`] keeps both, and the start values, in range).
        let unchanged = |h: u8, cmp: &LaneCompare, step: u32| match sym.get(&h) {
            None => !vector_defs.contains_key(&h),
            Some(Sym::High(w, (v, o))) => {
                *w == h
                    && *v == cmp.vgpr
                    && (*o == cmp.offset || *o == cmp.offset.wrapping_add(step))
                    && (*o as i32) >= 0
                    && vector_defs[&h].iter().all(|d| segment.contains(d))
            }
            Some(_) => false,
        };
        for cmp in compares {
            let Some(&step) = steps.get(&cmp.vgpr) else {
                continue;
            };
            let step = match step {
                LaneStep::Add(d) if cmp.shift == 0 => d as u32,
                LaneStep::Add(_) => continue,
                LaneStep::Lshr(_) if cmp.spread.is_some() => continue,
                LaneStep::Lshr(k) => {
                    let start = *starts
                        .entry(cmp.vgpr)
                        .or_insert_with(|| entry_range(whole_lanes, &entries, cmp.vgpr, budget));
                    let Some(start) = start else {
                        continue;
                    };
                    let trips = tightest(
                        program,
                        flow,
                        l,
                        cmp.at,
                        exec_nonzero[header],
                        budget,
                        |e, b| cmp.most_trips_shifted(e, start, k, b),
                    );
                    if let Some(trips) = trips {
                        keep_fewer(
                            &mut best,
                            LaneCounter {
                                vgpr: cmp.vgpr,
                                start,
                                step,
                                trips,
                                scalar: None,
                                from: None,
                            },
                        );
                    }
                    continue;
                }
            };
            if let Some(h) = cmp.high {
                // The high half starts at 0 in every lane and stays there.
                let zero = entries
                    .iter()
                    .all(|&p| whole_lanes.vgpr_at_end(p, h, budget) == Some((0, 0)));
                if !zero || !unchanged(h, &cmp, step) {
                    continue;
                }
            }
            let start = *starts
                .entry(cmp.vgpr)
                .or_insert_with(|| entry_range(whole_lanes, &entries, cmp.vgpr, budget));
            // A start whose range wraps around is read as the VGPR it was computed from plus
            // a constant: the compare then reads that VGPR plus the offset and the constant,
            // the same values (a 64-bit counter's high half needs the true start).
            let (start, from, cmp) = match (start, cmp.spread) {
                (Some(start), None) => (start, None, cmp),
                // The lanes of all workgroups together read as a counter whose start is theirs
                // plus the workgroup's value, where that does not wrap around.
                (Some(start), Some(r)) => {
                    let lo = u64::from(start.0) + u64::from(r.0);
                    let hi = u64::from(start.1) + u64::from(r.1);
                    let (Ok(lo), Ok(hi)) = (u32::try_from(lo), u32::try_from(hi)) else {
                        continue;
                    };
                    ((lo, hi), None, cmp)
                }
                (None, None) if cmp.high.is_none() => {
                    let Some((x, k, range)) =
                        shifted_entry(whole_lanes, program, flow, &entries, cmp.vgpr, budget)
                    else {
                        continue;
                    };
                    let offset = cmp.offset.wrapping_add(k);
                    (range, Some((x, k as i32)), LaneCompare { offset, ..cmp })
                }
                (None, _) => continue,
            };
            let trips = tightest(
                program,
                flow,
                l,
                cmp.at,
                exec_nonzero[header],
                budget,
                |e, b| cmp.most_trips(e, start, step as i32, b),
            );
            if let Some(trips) = trips {
                keep_fewer(
                    &mut best,
                    LaneCounter {
                        vgpr: cmp.vgpr,
                        start,
                        step: LaneStep::Add(step as i32),
                        trips,
                        scalar: None,
                        from,
                    },
                );
            }
        }
    }
    best
}

/// Keeps `counter` where it bounds the loop by fewer trips than `best` does.
fn keep_fewer(best: &mut Option<LaneCounter>, counter: LaneCounter) {
    if best.as_ref().is_none_or(|b| counter.trips < b.trips) {
        *best = Some(counter);
    }
}

/// VGPR `v` at the ends of the `entries` blocks as x + k, k a constant: in every entry block
/// the last write of `v` is `v_add_u32 v, x, k` (or `v_sub_u32 v, x, k`) with nothing after it
/// writing `v` or EXEC (so every lane active at the end wrote it), and the same x and k in all.
/// (x, k, the hull of x's ranges at those adds).
fn shifted_entry(
    lanes: &mut LaneRanges,
    program: &Program,
    flow: &Flow,
    entries: &[usize],
    v: u8,
    budget: &mut u64,
) -> Option<(u8, u32, Range)> {
    let insts = &program.instructions;
    let mut found: Option<(u8, u32, Range)> = None;
    for &p in entries {
        let block = flow.blocks[p].clone();
        let at = block
            .clone()
            .rev()
            .find(|&i| vgprs_written(&insts[i].item).any(|w| w == v))?;
        let later_exec = (at + 1..block.end).any(|i| writes_exec_or_split_mask(&insts[i].item));
        if later_exec {
            return None;
        }
        let inst = &insts[at].item;
        let (x, k) = match (inst.opcode, inst.src(0), inst.src(1)) {
            (Opcode::VAddU32, Some(Operand::Vgpr(x)), Some(c))
            | (Opcode::VAddU32, Some(c), Some(Operand::Vgpr(x))) => (x, c.constant_value32()?),
            (Opcode::VSubU32, Some(Operand::Vgpr(x)), Some(c)) => {
                (x, c.constant_value32()?.wrapping_neg())
            }
            _ => return None,
        };
        let range = lanes.vgpr_before(at, x, budget)?;
        found = match found {
            None => Some((x, k, range)),
            Some((fx, fk, r)) if fx == x && fk == k => Some((x, k, hull(r, range))),
            Some(_) => return None,
        };
    }
    found
}

/// The hull of VGPR `v`'s ranges at the ends of the `entries` blocks.
fn entry_range(
    lanes: &mut LaneRanges,
    entries: &[usize],
    v: u8,
    budget: &mut u64,
) -> Option<Range> {
    entries
        .iter()
        .map(|&p| lanes.vgpr_at_end(p, v, budget))
        .reduce(|a, b| Some(hull(a?, b?)))
        .flatten()
}

/// The fewer trips `trips` gives of the two ways the compare at `at` can end a lane's loop,
/// among those that do ([`exit_mask::lane_leaves_when`]).
fn tightest(
    program: &Program,
    flow: &Flow,
    l: usize,
    at: usize,
    exec_nonzero: bool,
    budget: &mut u64,
    mut trips: impl FnMut(bool, &mut u64) -> Option<u64>,
) -> Option<u64> {
    [true, false]
        .into_iter()
        .filter_map(|exit_when| {
            exit_mask::lane_leaves_when(program, flow, l, at, exit_when, exec_nonzero, budget)
                .then(|| trips(exit_when, budget))
                .flatten()
        })
        .min()
}

/// A VGPR's value in a segment, in terms of VGPR values at the segment's start (where the
/// counter holds its value from the iteration's start: every write of it is in the segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    /// VGPR v's value at the start plus a known constant.
    Plus(u8, u32),
    /// VGPR h's value at the start plus the carry of (counter, offset)'s add: h itself as long
    /// as that add does not wrap around.
    High(u8, (u8, u32)),
    /// VGPR v's value at the start plus a known constant, with its low k bits cleared: non-zero
    /// exactly where that value is at least 2^k (unsigned). clang tests `i < 256` so, with
    /// `v_and_b32 v1, 0xffffff00, v0` and a compare of the result with 0.
    Cleared(u8, u32, u32),
    /// VGPR v's value at the start shifted right (logically) by 1..=31 bits.
    Shr(u8, u32),
    /// VGPR v's value at the start plus a known constant plus an SGPR the loop does not write
    /// whose value differs between workgroups within a known range (one value in each):
    /// NVIDIA's reduce6 compares `tid + get_group_id(0) * 256` with n.
    Spread(u8, u32, Range),
    /// A known uniform value.
    Known(u32),
    Unknown,
}

/// The symbolic run of a segment: a stretch of a block between writes of EXEC, so with one
/// EXEC throughout.
#[derive(Default)]
struct Segment {
    /// Written VGPRs (the others hold their start value).
    sym: HashMap<u8, Sym>,
    /// The masks holding the carry of an add of a start value and a constant.
    carries: HashMap<u8, (u8, u32)>,
    compares: Vec<LaneCompare>,
    /// SGPRs written in the segment: the start value of an SGPR plus a constant, or unknown.
    scalar: HashMap<u8, Option<(u8, u32)>>,
    /// Compares of such a scalar counter with a lane's VGPR.
    against: Vec<ScalarCompare>,
    /// SGPRs the loop does not write whose values differ between workgroups, and their
    /// ranges over the launch.
    spreads: HashMap<u8, Range>,
}

impl Segment {
    fn read(
        &self,
        op: Option<Operand>,
        known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
        at: usize,
    ) -> Sym {
        match op {
            Some(Operand::Vgpr(v)) => self.sym.get(&v).copied().unwrap_or(Sym::Plus(v, 0)),
            op => known(at, op).map_or(Sym::Unknown, Sym::Known),
        }
    }

    /// `x` as a known value where it is a VGPR's value at the segment's start that the
    /// `known` closure knows (one value in every lane, never written in the loop).
    fn uniform(
        &self,
        x: Sym,
        known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
        at: usize,
    ) -> Sym {
        match x {
            Sym::Plus(v, 0) => known(at, Some(Operand::Vgpr(v))).map_or(x, Sym::Known),
            x => x,
        }
    }

    /// Follows the SGPRs `inst` (at `i`) writes: `s_add`/`s_sub` of a constant, or of an SGPR
    /// whose value `known` gives (the grid's size), to a followed value (clang's `s_add_i32 s8,
    /// s8, 1`), anything else unknown.
    fn step_scalar(
        &mut self,
        i: usize,
        inst: &Instruction,
        known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
    ) {
        use Opcode::*;
        let value = |op: Option<Operand>| match op? {
            Operand::Sgpr(r) => self.scalar.get(&r).copied().unwrap_or(Some((r, 0))),
            _ => None,
        };
        let mut constant = |op: Option<Operand>| known(i, op);
        let (a, b) = (inst.src(0), inst.src(1));
        let followed = match inst.opcode {
            SAddU32 | SAddI32 => match (value(a), constant(b), constant(a), value(b)) {
                (Some((r, o)), Some(k), ..) | (_, _, Some(k), Some((r, o))) => {
                    Some((r, o.wrapping_add(k)))
                }
                _ => None,
            },
            SSubU32 | SSubI32 => match (value(a), constant(b)) {
                (Some((r, o)), Some(k)) => Some((r, o.wrapping_sub(k))),
                _ => None,
            },
            SAddkI32 => match inst.dst {
                Some(Operand::Sgpr(d)) => value(Some(Operand::Sgpr(d)))
                    .map(|(r, o)| (r, o.wrapping_add(inst.imm as u16 as i16 as i32 as u32))),
                _ => None,
            },
            _ => None,
        };
        let defs = effects(inst).defs;
        for r in defs.iter() {
            self.scalar.insert(r, None);
        }
        if let (Some(Operand::Sgpr(d)), Some(x)) = (inst.dst, followed) {
            self.scalar.insert(d, Some(x));
        }
    }

    /// The equality compare at `i` of a [`Sym::Cleared`] value (source `c`) with 0 (source
    /// `x`) as the ordered compare it is: `!= 0` is the counter at least 2^k, `== 0` below it.
    /// A 64-bit compare needs both high halves known to be 0.
    #[allow(clippy::too_many_arguments)]
    fn cleared_compare(
        &self,
        i: usize,
        inst: &Instruction,
        c: usize,
        x: usize,
        order: Order,
        dwords: u8,
        known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
    ) -> Option<LaneCompare> {
        let Sym::Cleared(vgpr, offset, k) = self.read(inst.src(c), known, i) else {
            return None;
        };
        let zero = match dwords {
            1 => known(i, inst.src(x)) == Some(0),
            _ => {
                let Some(Operand::Vgpr(low)) = inst.src(c) else {
                    return None;
                };
                let high = Some(Operand::Vgpr(low.checked_add(1)?));
                let high = self.uniform(self.read(high, known, i), known, i);
                known64(inst.src(x), known, i) == Some(0) && high == Sym::Known(0)
            }
        };
        let order = match order {
            Order::Ne => Order::Ge,
            Order::Eq => Order::Lt,
            _ => return None,
        };
        zero.then_some(LaneCompare {
            at: i,
            vgpr,
            offset,
            bound: 1 << k,
            order: (order, false),
            high: None,
            counter_first: true,
            shift: 0,
            spread: None,
        })
    }

    fn step(
        &mut self,
        i: usize,
        inst: &Instruction,
        known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
    ) {
        use Opcode::*;
        if let Some((order, signed, dwords)) = Order::of(inst.opcode).filter(|_| plain(inst)) {
            for counter_first in [true, false] {
                let (c, x) = if counter_first { (0, 1) } else { (1, 0) };
                // A scalar counter against a lane's value the segment has not written.
                if let (Some(Operand::Sgpr(r)), Some(Operand::Vgpr(w)), 1) =
                    (inst.src(c), inst.src(x), dwords)
                {
                    let counter = self.scalar.get(&r).copied().unwrap_or(Some((r, 0)));
                    if let (Some((sgpr, offset)), false) = (counter, self.sym.contains_key(&w)) {
                        self.against.push(ScalarCompare {
                            at: i,
                            sgpr,
                            offset,
                            vgpr: w,
                            order: (order, signed),
                            counter_first,
                        });
                    }
                }
                if let Some(compare) = self.cleared_compare(i, inst, c, x, order, dwords, known) {
                    self.compares.push(compare);
                    continue;
                }
                let (vgpr, offset, shift, spread) = match self.read(inst.src(c), known, i) {
                    Sym::Plus(vgpr, offset) => (vgpr, offset, 0, None),
                    Sym::Shr(vgpr, k) if dwords == 1 => (vgpr, 0, k, None),
                    Sym::Spread(vgpr, offset, r) if dwords == 1 => (vgpr, offset, 0, Some(r)),
                    _ => continue,
                };
                let (bound, high) = if dwords == 1 {
                    let Some(bound) = known(i, inst.src(x)) else {
                        continue;
                    };
                    (bound, None)
                } else {
                    let Some(Operand::Vgpr(low)) = inst.src(c) else {
                        continue;
                    };
                    match (known64(inst.src(x), known, i), low.checked_add(1)) {
                        (Some(bound), Some(high)) if bound >> 32 == 0 => (bound as u32, Some(high)),
                        _ => continue,
                    }
                };
                self.compares.push(LaneCompare {
                    at: i,
                    vgpr,
                    offset,
                    bound,
                    // Both high halves 0: the values compare as their low halves do, unsigned.
                    order: (order, signed && high.is_none()),
                    high,
                    counter_first,
                    shift,
                    spread,
                });
            }
        }
        self.step_scalar(i, inst, known);
        let written: Vec<u8> = vgprs_written(inst).collect();
        let carry_out = registers_of(inst.sdst);
        let value = match (written.as_slice(), plain(inst)) {
            ([_], true) => {
                let a = self.read(inst.src(0), known, i);
                let b = self.read(inst.src(1), known, i);
                let (a, b) = if matches!(inst.opcode, VAddU32 | VSubU32 | VSubrevU32) {
                    (self.uniform(a, known, i), self.uniform(b, known, i))
                } else {
                    (a, b)
                };
                // An add of a start value and an SGPR that is one value per workgroup.
                let spread = |op: Option<Operand>| match op {
                    Some(Operand::Sgpr(r)) => self.spreads.get(&r).copied(),
                    _ => None,
                };
                let spread = match (inst.opcode, a, b) {
                    (VAddU32, Sym::Plus(v, o), _) => {
                        spread(inst.src(1)).map(|r| Sym::Spread(v, o, r))
                    }
                    (VAddU32, _, Sym::Plus(v, o)) => {
                        spread(inst.src(0)).map(|r| Sym::Spread(v, o, r))
                    }
                    _ => None,
                };
                spread.unwrap_or_else(|| match (inst.opcode, a, b) {
                    (VMovB32, a, _) => a,
                    (VAddU32, Sym::Plus(v, o), Sym::Known(k))
                    | (VAddU32, Sym::Known(k), Sym::Plus(v, o)) => Sym::Plus(v, o.wrapping_add(k)),
                    (VSubU32, Sym::Plus(v, o), Sym::Known(k))
                    | (VSubrevU32, Sym::Known(k), Sym::Plus(v, o)) => {
                        Sym::Plus(v, o.wrapping_sub(k))
                    }
                    (VLshrrevB32, Sym::Known(k), Sym::Plus(v, 0)) if (1..32).contains(&k) => {
                        Sym::Shr(v, k)
                    }
                    (VLshrrevB32, Sym::Known(k), Sym::Shr(v, j)) if (1..32 - j).contains(&k) => {
                        Sym::Shr(v, j + k)
                    }
                    (VAndB32, Sym::Plus(v, o), Sym::Known(m))
                    | (VAndB32, Sym::Known(m), Sym::Plus(v, o))
                        if m != 0 && m == u32::MAX << m.trailing_zeros() =>
                    {
                        Sym::Cleared(v, o, m.trailing_zeros())
                    }
                    (VAddcU32, Sym::Plus(h, 0), Sym::Known(0))
                    | (VAddcU32, Sym::Known(0), Sym::Plus(h, 0)) => {
                        match registers_of(inst.src(2)).and_then(|r| self.carries.get(&r)) {
                            Some(&carry) => Sym::High(h, carry),
                            None => Sym::Unknown,
                        }
                    }
                    _ => Sym::Unknown,
                })
            }
            _ => Sym::Unknown,
        };
        for r in effects(inst).defs.iter() {
            self.carries.remove(&r);
        }
        if let (VAddU32, Sym::Plus(v, o), Some(r)) = (inst.opcode, value, carry_out) {
            self.carries.insert(r, (v, o));
        }
        for &v in &written {
            self.sym.insert(v, Sym::Unknown);
        }
        if let [v] = written.as_slice() {
            self.sym.insert(*v, value);
        }
    }
}

/// The low register of a mask operand.
fn registers_of(op: Option<Operand>) -> Option<u8> {
    registers(op?, 2).next()
}

/// A known 64-bit uniform value: a constant, or an SGPR pair both of whose halves are known.
fn known64(
    op: Option<Operand>,
    known: &mut impl FnMut(usize, Option<Operand>) -> Option<u32>,
    at: usize,
) -> Option<u64> {
    match op? {
        Operand::Sgpr(r) => {
            let lo = known(at, Some(Operand::Sgpr(r)))?;
            let hi = known(at, Some(Operand::Sgpr(r.checked_add(1)?)))?;
            Some(u64::from(hi) << 32 | u64::from(lo))
        }
        op => op.constant_value64(false),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Lt,
    Le,
    Gt,
    Ge,
    /// Equality, which ends a loop only for a counter that reaches the bound value exactly:
    /// one stepped by 1 or -1 (clang rewrites `for (j = 0; j <= i; j++)` into a count down
    /// of `i + 1` to 0).
    Eq,
    Ne,
}

impl Order {
    /// The order, signedness and width in dwords of a vector integer compare that only
    /// writes a mask.
    fn of(op: Opcode) -> Option<(Order, bool, u8)> {
        use Opcode::*;
        let wide = match op {
            VCmpLtI64 => (Order::Lt, true),
            VCmpLeI64 => (Order::Le, true),
            VCmpGtI64 => (Order::Gt, true),
            VCmpGeI64 => (Order::Ge, true),
            VCmpLtU64 => (Order::Lt, false),
            VCmpLeU64 => (Order::Le, false),
            VCmpGtU64 => (Order::Gt, false),
            VCmpGeU64 => (Order::Ge, false),
            VCmpEqI64 | VCmpEqU64 => (Order::Eq, false),
            VCmpNeI64 | VCmpNeU64 => (Order::Ne, false),
            _ => {
                let (order, signed) = Order::narrow(op)?;
                return Some((order, signed, 1));
            }
        };
        Some((wide.0, wide.1, 2))
    }

    fn narrow(op: Opcode) -> Option<(Order, bool)> {
        use Opcode::*;
        Some(match op {
            VCmpLtI32 => (Order::Lt, true),
            VCmpLeI32 => (Order::Le, true),
            VCmpGtI32 => (Order::Gt, true),
            VCmpGeI32 => (Order::Ge, true),
            VCmpLtU32 => (Order::Lt, false),
            VCmpLeU32 => (Order::Le, false),
            VCmpGtU32 => (Order::Gt, false),
            VCmpGeU32 => (Order::Ge, false),
            VCmpEqI32 | VCmpEqU32 => (Order::Eq, false),
            VCmpNeI32 | VCmpNeU32 => (Order::Ne, false),
            _ => return None,
        })
    }

    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Order::Lt => a < b,
            Order::Le => a <= b,
            Order::Gt => a > b,
            Order::Ge => a >= b,
            Order::Eq => a == b,
            Order::Ne => a != b,
        }
    }
}

/// A compare in a segment of `sgpr`'s value at the segment's start plus `offset` (a counter the
/// same in every lane) with a lane's `vgpr`, which the loop does not write.
struct ScalarCompare {
    at: usize,
    sgpr: u8,
    offset: u32,
    vgpr: u8,
    order: (Order, bool),
    counter_first: bool,
}

impl ScalarCompare {
    /// The most header runs of a lane whose `vgpr` lies in `lanes`, the counter compared with
    /// `first` in the first iteration and `step` more in each one after. A lane's trips only
    /// grow or only shrink with its value (each iteration's test passes a half-line of values,
    /// the same way round in every iteration; an equality passes one value, which a counter
    /// stepped by 1 or -1 meets on its way), so the most is at an end of the range: both are
    /// followed in exact arithmetic, within the compare's type.
    fn most_trips(
        &self,
        exit_when: bool,
        first: u32,
        step: i32,
        lanes: Range,
        budget: &mut u64,
    ) -> Option<u64> {
        let (order, signed) = self.order;
        if matches!(order, Order::Eq | Order::Ne)
            && (step.unsigned_abs() != 1 || (order == Order::Eq) != exit_when)
        {
            return None;
        }
        let number = |x: u32| number_as(x, signed);
        let (min, max) = type_range(signed);
        // The lanes' values as numbers of the compare's type: one range (not across the sign).
        let (lo, hi) = (number(lanes.0), number(lanes.1));
        if lo > hi {
            return None;
        }
        let mut most = 0;
        for b in [lo, hi] {
            let mut trips = 1u64;
            loop {
                let c = number(first) + (trips as i64 - 1) * i64::from(step);
                if !(min..=max).contains(&c) {
                    return None;
                }
                let (x, y) = if self.counter_first { (c, b) } else { (b, c) };
                if order.holds(x, y) == exit_when {
                    break;
                }
                *budget = budget.checked_sub(1)?;
                trips += 1;
                if trips > MAX_TRIPS {
                    return None;
                }
            }
            most = most.max(trips);
        }
        Some(most)
    }
}

/// A compare in a segment of `vgpr`'s value at the segment's start plus `offset` with the
/// uniform `bound`.
#[derive(Clone, Copy)]
struct LaneCompare {
    at: usize,
    vgpr: u8,
    offset: u32,
    bound: u32,
    /// The order and signedness, as the compare sees the values.
    order: (Order, bool),
    /// A 64-bit compare's high half of the counter (`size_t i`): it must be 0 and stay so,
    /// and the bound's is; the compare is then an unsigned one of the low halves.
    high: Option<u8>,
    /// The counter is the compare's first source.
    counter_first: bool,
    /// The compare reads the counter shifted right by this many bits (then `offset` is 0): a
    /// halving counter's next value, or a value derived from it.
    shift: u32,
    /// The compare reads the counter plus a value that is one per workgroup, in this range:
    /// over the launch it reads as a counter whose start range is widened by it.
    spread: Option<Range>,
}

impl LaneCompare {
    /// The most header runs of a lane whose counter starts in `start` and steps by `step`,
    /// where the compare giving `exit_when` ends the lane's loop; `None` if a lane's counter
    /// could wrap around in the compare's type before it leaves, or runs past [`MAX_TRIPS`].
    fn most_trips(
        &self,
        exit_when: bool,
        start: Range,
        step: i32,
        budget: &mut u64,
    ) -> Option<u64> {
        let (order, signed) = self.order;
        if !matches!(order, Order::Eq | Order::Ne) {
            return self.most_trips_as(signed, exit_when, start, step, budget);
        }
        // Only a lane that leaves when its counter meets the bound: its trips are the
        // distance to it, which grows with the start (one that goes on only while equal
        // runs longest from a start in the middle). A counter that steps over the bound would
        // run until it wrapped around; one that steps by 1 meets it, and the lanes whose start
        // lies on the far side of the bound (which never would) form an end of the start
        // range, where the count finds them. Equality reads the same either way: the values
        // may stay within either type (a 64-bit counter's low half must not carry, so only
        // unsigned).
        if step.unsigned_abs() != 1 || (order == Order::Eq) != exit_when {
            return None;
        }
        let signs: &[bool] = if self.high.is_some() {
            &[false]
        } else {
            &[false, true]
        };
        signs
            .iter()
            .copied()
            .filter_map(|signed| self.most_trips_as(signed, exit_when, start, step, budget))
            .min()
    }

    /// The most header runs of a lane whose counter starts in `start` and is shifted right by
    /// `k` each iteration, where the compare (of the counter shifted right by [`Self::shift`])
    /// giving `exit_when` ends the lane's loop; `None` if
    /// some lane's counter reaches 0 without leaving, or runs past [`MAX_TRIPS`]. A shift keeps
    /// the order of values (unsigned, and signed among non-negative ones), and each test passes
    /// a half-line of them, so a lane's trips only grow or only shrink with its start: the most
    /// is at an end of the range. Equality ends a halving counter only at 0, which every
    /// counter meets: `== 0` is `< 1` and `!= 0` is `>= 1`.
    fn most_trips_shifted(
        &self,
        exit_when: bool,
        start: Range,
        k: u32,
        budget: &mut u64,
    ) -> Option<u64> {
        if self.offset != 0 || self.high.is_some() {
            return None;
        }
        let (order, signed) = self.order;
        let (order, signed, bound, counter_first) = match order {
            Order::Eq | Order::Ne if self.bound != 0 => return None,
            Order::Eq => (Order::Lt, false, 1, true),
            Order::Ne => (Order::Ge, false, 1, true),
            _ => (order, signed, self.bound, self.counter_first),
        };
        if start.0 > start.1 || signed && start.1 > i32::MAX as u32 {
            return None;
        }
        let bound = number_as(bound, signed);
        let exits = |w: u32| {
            let w = number_as(w, signed);
            let (a, b) = if counter_first {
                (w, bound)
            } else {
                (bound, w)
            };
            order.holds(a, b) == exit_when
        };
        let mut most = 0;
        for s in [start.0, start.1] {
            let (mut v, mut trips) = (s, 1u64);
            while !exits(v >> self.shift) {
                if v == 0 {
                    return None;
                }
                *budget = budget.checked_sub(1)?;
                v >>= k;
                trips += 1;
                if trips > MAX_TRIPS {
                    return None;
                }
            }
            most = most.max(trips);
        }
        Some(most)
    }

    /// [`Self::most_trips`], reading the values as `signed` or unsigned.
    fn most_trips_as(
        &self,
        signed: bool,
        exit_when: bool,
        start: Range,
        step: i32,
        budget: &mut u64,
    ) -> Option<u64> {
        let order = self.order.0;
        let exact = |v: u32| number_as(v, signed);
        let (min, max) = type_range(signed);
        // The start's ends must be its least and most value in the compare's type too.
        if exact(start.0) > exact(start.1) {
            return None;
        }
        let (offset, step, bound) = (
            i64::from(self.offset as i32),
            i64::from(step),
            exact(self.bound),
        );
        let at_start = |s: u32, k: u64| exact(s) + (k as i64 - 1) * step;
        let read = |s: u32, k: u64| at_start(s, k) + offset;
        let exits = |w: i64| {
            let (a, b) = if self.counter_first {
                (w, bound)
            } else {
                (bound, w)
            };
            order.holds(a, b) == exit_when
        };
        let in_range = |w: i64| (min..=max).contains(&w);
        // A 64-bit counter's values must not wrap either: its high half would change.
        let counter_in_range = |s: u32, k: u64| self.high.is_none() || in_range(at_start(s, k));
        let mut most = 0;
        for s in [start.0, start.1] {
            let mut trips = 1u64;
            loop {
                let w = read(s, trips);
                if !in_range(w) || !counter_in_range(s, trips) {
                    return None;
                }
                if exits(w) {
                    break;
                }
                *budget = budget.checked_sub(1)?;
                trips += 1;
                if trips > MAX_TRIPS {
                    return None;
                }
            }
            most = most.max(trips);
        }
        // The ends' reads, up to their own trips, are within the type. A lane between them
        // reads, while it goes on, values on the going-on side of the bound between its first
        // read (between the ends' first reads: they are linear in the start) and the bound,
        // and leaves on a read at most a step past the bound, in the step's direction: within
        // the type when the bound plus a step is. (Checking every lane's reads up to the most
        // trips of any would refuse a count down to 0 whose first lane leaves at once, before
        // the last lane's trips take it below 0.)
        let past = bound + step;
        let in_range_past = in_range(past) && (self.high.is_none() || in_range(past - offset));
        in_range_past.then_some(most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::lane_ranges::dispatch_prefix;
    use crate::extract::launch_values::LaunchValues;

    /// The lane-counted bound of the one loop of `body` (after clang's prologue: v0 the local
    /// id, s10 the workgroup's size, s9 = 1000), for one workgroup of 64.
    fn trips(body: &str) -> Option<u64> {
        trips_in(body, 1)
    }

    /// [`trips`] for `groups` workgroups of 64.
    fn trips_in(body: &str, groups: u32) -> Option<u64> {
        let src = format!(
            "k:
s_load_dword s10, s[4:5], 0x4
s_mov_b32 s9, 1000
s_waitcnt lgkmcnt(0)
s_and_b32 s10, s10, 0xffff
{body}
s_endpgm
{}",
            pws_isa::testing::clang_descriptor("k", 8, 16)
        );
        let program = pws_isa::assemble(&src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        assert_eq!(flow.loops.len(), 1);
        let launch = LaunchValues::geometry(&program, groups, 64);
        let mut values = ScalarValues::new(&program, &flow, &launch);
        let exec_nonzero = exit_mask::exec_nonzero(&program, &flow);
        let whole = dispatch_prefix(&program, &flow);
        lane_counted_loop(
            &program,
            &flow,
            0,
            &mut values,
            &exec_nonzero,
            whole,
            &mut 1_000_000,
        )
        .map(|c| c.trips)
    }

    /// clang-14 -O2's `for (int i = get_local_id(0); i < n; i += get_local_size(0))`: the
    /// counter v4 steps through v3 and back, and the compare reads v3.
    const TILE: &str = "\
v_cmp_gt_i32_e32 vcc, s9, v0
s_and_saveexec_b64 s[6:7], vcc
s_cbranch_execz .Lx
v_mov_b32_e32 v3, v0
v_mov_b32_e32 v4, v0
s_mov_b64 s[12:13], 0
.Lh:
v_add_u32_e32 v3, vcc, s10, v4
v_cmp_le_i32_e32 vcc, s9, v3
v_mov_b32_e32 v5, v4
v_mov_b32_e32 v4, v3
s_or_b64 s[12:13], vcc, s[12:13]
ds_write_b32 v5, v5
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execnz .Lh
s_or_b64 exec, exec, s[12:13]
.Lx:";

    #[test]
    fn a_tile_copy_is_bounded_by_its_first_lane() {
        // Lane 0 reads 0, 64, ..., 960: 16 iterations.
        assert_eq!(trips(TILE), Some(16));
        let steps_by_three = TILE.replace(
            "v_add_u32_e32 v3, vcc, s10, v4",
            "v_add_u32_e32 v3, vcc, 3, v4",
        );
        assert_eq!(trips(&steps_by_three), Some(334));
    }

    /// clang-14 -O2's `for (uint i = get_local_id(0); i < 256; i += get_local_size(0))`: the
    /// test of a power of two clears the low bits and compares what is left with 0.
    const BELOW_A_POWER_OF_TWO: &str = "\
v_mov_b32_e32 v2, 0
s_mov_b64 s[12:13], 0
.Lh:
v_add_u32_e32 v0, vcc, s10, v0
v_and_b32_e32 v1, 0xffffff00, v0
v_cmp_ne_u64_e32 vcc, 0, v[1:2]
s_or_b64 s[12:13], vcc, s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execnz .Lh
.Lx:";

    #[test]
    fn a_limit_tested_by_its_cleared_low_bits_is_bounded() {
        // Lane 0 steps to 64, 128, 192 and leaves at 256.
        assert_eq!(trips(BELOW_A_POWER_OF_TWO), Some(4));
        let narrow = BELOW_A_POWER_OF_TWO.replace(
            "v_cmp_ne_u64_e32 vcc, 0, v[1:2]",
            "v_cmp_ne_u32_e32 vcc, 0, v1",
        );
        assert_eq!(trips(&narrow), Some(4));
        // Not the low bits cleared, a high half that differs between lanes, a compare with a
        // value other than 0: no bound.
        for (from, to) in [
            ("0xffffff00", "0xffff00ff"),
            ("v_mov_b32_e32 v2, 0", "v_mov_b32_e32 v2, v0"),
            ("vcc, 0, v[1:2]", "vcc, 1, v[1:2]"),
        ] {
            assert_eq!(trips(&BELOW_A_POWER_OF_TWO.replace(from, to)), None, "{to}");
        }
    }

    /// clang-14 -O2's tree reduction `for (uint k = get_local_size(0) / 2; k > 0; k >>= 1)
    /// { if (tid < k) ...; barrier(...); }` where it halves the 64-bit size in a VGPR (s11:s10
    /// the size, v_alignbit_b32 its low dword shifted) and leaves by a uniform branch on VCC.
    const TREE: &str = "\
v_mov_b32_e32 v2, s10
s_mov_b32 s11, 0
v_alignbit_b32 v2, s11, v2, 1
v_cmp_eq_u32_e32 vcc, 0, v2
s_and_b64 vcc, exec, vcc
s_cbranch_vccz .Lh
s_branch .Lx
.Ll:
s_or_b64 exec, exec, s[0:1]
v_lshrrev_b32_e32 v3, 1, v2
v_cmp_gt_u32_e32 vcc, 2, v2
s_and_b64 vcc, exec, vcc
v_mov_b32_e32 v2, v3
s_barrier
s_cbranch_vccnz .Lx
.Lh:
v_cmp_gt_u32_e32 vcc, v2, v0
s_and_saveexec_b64 s[0:1], vcc
s_cbranch_execz .Ll
v_lshlrev_b32_e32 v3, 2, v2
ds_write_b32 v3, v0
s_branch .Ll
.Lx:";

    /// NVIDIA's reduce6, `for (i = get_group_id(0) * 64 + tid; i < n; i += 128)`, which clang
    /// counts from tid and compares with the workgroup's offset added: over 4 workgroups the
    /// reads start anywhere in 0..=255, and the lane reading 0 first takes 8 trips to 1000.
    #[test]
    fn a_compare_offset_by_the_workgroup_takes_the_most_trips_over_the_workgroups() {
        let body = "v_mov_b32_e32 v4, v0
s_lshl_b32 s11, s8, 6
s_mov_b64 s[12:13], 0
.Lh:
v_add_u32_e32 v4, vcc, 0x80, v4
v_add_u32_e32 v3, vcc, s11, v4
v_cmp_le_u32_e32 vcc, s9, v3
s_or_b64 s[12:13], vcc, s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execnz .Lh";
        assert_eq!(trips_in(body, 4), Some(8));
        assert_eq!(trips_in(body, 1), Some(8));
        // An offset whose range over the workgroups is not known: no bound.
        let unknown = body.replace("s_lshl_b32 s11, s8, 6", "s_lshl_b32 s11, s8, 31");
        assert_eq!(trips_in(&unknown, 4), None);
    }

    /// clang-14 -O2's `for (int i = get_local_id(0); i >= 0; i -= 4)`: the compare reads the
    /// counter before its step (`4 > i`, unsigned), the step goes through v4, and v0 is
    /// borrowed for a sum in between. Lane 0 leaves at once, lane 63 after 16 trips; the
    /// reads of every lane stay at 0 or above.
    const COUNT_DOWN_BY_FOUR: &str = "\
v_cmp_lt_i32_e32 vcc, -1, v0
s_and_saveexec_b64 s[4:5], vcc
s_cbranch_execz .Lx
s_mov_b64 s[6:7], 0
.Lh:
v_and_b32_e32 v3, 15, v0
v_add_u32_e32 v4, vcc, -4, v0
v_cmp_gt_u32_e32 vcc, 4, v0
s_or_b64 s[6:7], vcc, s[6:7]
v_add_u32_e32 v0, vcc, v0, v3
v_xor_b32_e32 v1, v0, v1
v_mov_b32_e32 v0, v4
s_andn2_b64 exec, exec, s[6:7]
s_cbranch_execnz .Lh
s_or_b64 exec, exec, s[6:7]
.Lx:
s_or_b64 exec, exec, s[4:5]";

    #[test]
    fn a_count_down_whose_first_lane_leaves_at_once_is_bounded() {
        assert_eq!(trips(COUNT_DOWN_BY_FOUR), Some(16));
        // Counting up by 64 past 63 (pws.h's async copy of 64 words, `63 < i` unsigned):
        // every lane leaves after its first step, and none reads below 0 on the way.
        let up = TILE.replace(
            "v_cmp_le_i32_e32 vcc, s9, v3",
            "v_cmp_lt_u32_e32 vcc, 63, v3",
        );
        assert_eq!(trips(&up), Some(1));
        // `i > 1` (`2 > i` leaves): a lane of i = 2 reads 2 - 4 next, below 0 unsigned, where
        // `2 > i` no longer holds: no bound.
        let wraps = COUNT_DOWN_BY_FOUR.replace("vcc, 4, v0", "vcc, 2, v0");
        assert_eq!(trips(&wraps), None);
    }

    #[test]
    fn a_halving_counter_is_bounded() {
        // 32, 16, 8, 4, 2, 1: six trips.
        assert_eq!(trips(TREE), Some(6));
        // Tested after the shift (`k >> 1 == 0`), or by `k > 1`: the same trips.
        let after = TREE.replace("v_cmp_gt_u32_e32 vcc, 2, v2", "v_cmp_eq_u32_e32 vcc, 0, v3");
        assert_eq!(trips(&after), Some(6));
        let signed = TREE.replace("v_cmp_gt_u32_e32 vcc, 2, v2", "v_cmp_lt_i32_e64 vcc, v2, 2");
        assert_eq!(trips(&signed), Some(6));
        // Shifted by 2: 32, 8, 2.
        let by_four = TREE
            .replace("v_lshrrev_b32_e32 v3, 1, v2", "v_lshrrev_b32_e32 v3, 2, v2")
            .replace("vcc, 2, v2", "vcc, 4, v2");
        assert_eq!(trips(&by_four), Some(3));
        // Stepped by 2 bits and tested on k >> 1 == 0: 32, 8, 2 (1 goes on) and 0.
        let mixed = TREE
            .replace("v_mov_b32_e32 v2, v3", "v_lshrrev_b32_e32 v2, 2, v2")
            .replace("v_cmp_gt_u32_e32 vcc, 2, v2", "v_cmp_eq_u32_e32 vcc, 0, v3");
        assert_eq!(trips(&mixed), Some(4));
        // An exit at a value the halving steps over: no bound.
        let over = TREE.replace("v_cmp_gt_u32_e32 vcc, 2, v2", "v_cmp_eq_u32_e32 vcc, 3, v2");
        assert_eq!(trips(&over), None);
        // Halved only by the lanes below k (the step inside the `if`): the others would keep
        // their k and never leave, so nothing is proved.
        let in_the_if = TREE
            .replace(
                "v_lshrrev_b32_e32 v3, 1, v2\nv_cmp_gt_u32_e32 vcc, 2, v2\ns_and_b64 vcc, exec, vcc\nv_mov_b32_e32 v2, v3\n",
                "",
            )
            .replace(
                "ds_write_b32 v3, v0\n",
                "ds_write_b32 v3, v0\nv_lshrrev_b32_e32 v3, 1, v2\nv_cmp_gt_u32_e32 vcc, 2, v2\ns_and_b64 vcc, exec, vcc\nv_mov_b32_e32 v2, v3\n",
            );
        assert_ne!(in_the_if, TREE);
        assert_eq!(trips(&in_the_if), None);
    }

    /// v4 counted down by 1 to 0, each lane leaving when it gets there.
    const COUNT_DOWN: &str = "\
s_mov_b64 s[12:13], 0
.Lh:
v_add_u32_e32 v4, vcc, -1, v4
v_cmp_eq_u32_e32 vcc, 0, v4
s_or_b64 s[12:13], vcc, s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execnz .Lh
.Lx:";

    #[test]
    fn a_count_down_to_an_equal_value_is_bounded() {
        // clang -O2's `for (j = 0; j <= i; j++)`: i + 1 counted down to 0.
        let down = format!("v_add_u32_e32 v4, vcc, 1, v0\n{COUNT_DOWN}");
        assert_eq!(trips(&down), Some(64));
        // By 2 a lane may step over the value; from 0 lane 0 passes it at once.
        assert_eq!(trips(&down.replace("vcc, -1, v4", "vcc, -2, v4")), None);
        assert_eq!(trips(&down.replace("vcc, 1, v0", "vcc, 0, v0")), None);
        // Going on while not equal, counting up to a bound above every start.
        let up = down
            .replace("vcc, -1, v4", "vcc, 1, v4")
            .replace(
                "v_cmp_eq_u32_e32 vcc, 0, v4",
                "v_cmp_ne_u32_e32 vcc, 0x50, v4",
            )
            .replace(
                "s_or_b64 s[12:13], vcc, s[12:13]\ns_andn2_b64 exec, exec, s[12:13]",
                "s_and_b64 exec, exec, vcc",
            );
        assert_eq!(trips(&up), Some(79));
    }

    #[test]
    fn a_count_down_behind_a_guard_against_zero_is_bounded() {
        // clang -O2's `for (i = 0; i < (lid & 7); i++)`: `if (lid & 7)` around a count of
        // lid & 7 down to 0. Without the guard a lane starting at 0 would wrap around.
        let guard = "v_cmp_ne_u32_e32 vcc, 0, v4\n";
        let guarded = format!(
            "v_and_b32_e32 v4, 7, v0\n{guard}s_and_saveexec_b64 s[2:3], vcc\n\
             s_cbranch_execz .Lx\n{COUNT_DOWN}"
        );
        assert_eq!(trips(&guarded), Some(7));
        assert_eq!(trips(&guarded.replace(guard, "")), None);
    }

    #[test]
    fn a_counter_stepped_where_exec_may_differ_is_not_bounded() {
        // The step after the lanes done have left: still correct, but not the shape proved.
        let late = TILE.replace("v_mov_b32_e32 v4, v3\n", "").replace(
            "s_andn2_b64 exec, exec, s[12:13]\n",
            "s_andn2_b64 exec, exec, s[12:13]\nv_mov_b32_e32 v4, v3\n",
        );
        assert_eq!(trips(&late), None);
        // Written twice in the iteration.
        let twice = TILE.replace("ds_write_b32 v5, v5", "v_mov_b32_e32 v4, v0");
        assert_eq!(trips(&twice), None);
        // EXEC narrowed by the compare's complement: lanes leave before they are done.
        let wrong = TILE.replace(
            "s_andn2_b64 exec, exec, s[12:13]",
            "s_and_b64 exec, exec, s[12:13]",
        );
        assert_eq!(trips(&wrong), None);
    }

    /// clang -O2's `for (...) { if (a[i] < 0) break; i += ... }`: the step and the compare in
    /// a block only the lanes that did not break enter, the lanes that leave kept in a mask
    /// across the join.
    const BREAK: &str = "\
v_mov_b32_e32 v4, v0
s_mov_b64 s[12:13], 0
s_branch .Lh
.Ll:
s_or_b64 exec, exec, s[6:7]
s_and_b64 s[6:7], exec, s[2:3]
s_or_b64 s[12:13], s[6:7], s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execz .Lx
.Lh:
ds_read_b32 v1, v4
s_or_b64 s[2:3], s[2:3], exec
s_waitcnt lgkmcnt(0)
v_cmp_lt_i32_e32 vcc, -1, v1
s_and_saveexec_b64 s[6:7], vcc
s_cbranch_execz .Ll
v_add_u32_e32 v4, vcc, s10, v4
v_cmp_le_i32_e32 vcc, s9, v4
s_andn2_b64 s[2:3], s[2:3], exec
s_and_b64 s[14:15], vcc, exec
s_or_b64 s[2:3], s[2:3], s[14:15]
s_branch .Ll
.Lx:
s_or_b64 exec, exec, s[12:13]";

    #[test]
    fn a_step_after_a_break_counts_for_the_lanes_that_go_on() {
        assert_eq!(trips(BREAK), Some(16));
        // Forgetting the lanes that break: they would never leave.
        let kept = BREAK.replace("s_or_b64 s[2:3], s[2:3], exec\n", "");
        assert_eq!(trips(&kept), None);
    }

    /// clang -O2's grid-stride loop around an `if`/`else`: the step follows the join's restore
    /// of EXEC in the latch.
    const JOIN: &str = "\
v_mov_b32_e32 v4, v0
s_mov_b64 s[14:15], exec
s_mov_b64 s[12:13], 0
s_branch .Lh
.Ll:
s_or_b64 exec, exec, s[16:17]
v_add_u32_e32 v4, vcc, s10, v4
v_cmp_le_i32_e32 vcc, s9, v4
s_or_b64 s[12:13], vcc, s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execz .Lx
.Lh:
ds_read_b32 v1, v4
s_waitcnt lgkmcnt(0)
v_and_b32_e32 v3, 1, v1
v_cmp_eq_u32_e32 vcc, 1, v3
s_and_saveexec_b64 s[16:17], vcc
s_xor_b64 s[16:17], exec, s[16:17]
v_mul_lo_u32 v1, v1, 15
s_or_saveexec_b64 s[16:17], s[16:17]
s_xor_b64 exec, exec, s[16:17]
v_add_u32_e32 v1, vcc, 3, v1
s_branch .Ll
.Lx:";

    #[test]
    fn a_step_after_the_join_of_an_if_else_counts_every_lane() {
        assert_eq!(trips(JOIN), Some(16));
        // Restoring the loop's entry mask instead brings back lanes that were done.
        let entry = JOIN.replace(
            "s_or_b64 exec, exec, s[16:17]",
            "s_or_b64 exec, exec, s[14:15]",
        );
        assert_eq!(trips(&entry), None);
        // Stepped in one side only: the other side's lanes go round unstepped.
        let one_side = JOIN
            .replace(
                "v_add_u32_e32 v4, vcc, s10, v4
",
                "",
            )
            .replace(
                "v_mul_lo_u32 v1, v1, 15
",
                "v_mul_lo_u32 v1, v1, 15
v_add_u32_e32 v4, vcc, s10, v4
",
            );
        assert_eq!(trips(&one_side), None);
    }

    #[test]
    fn a_loop_with_a_split_inside_is_not_bounded_by_its_lanes() {
        let split = JOIN
            .replace(
                "s_xor_b64 s[16:17], exec, s[16:17]\n",
                "s_xor_b64 s[16:17], exec, s[16:17]\nsplit vcc_lo, vcc_hi\n",
            )
            .replace(
                "s_or_b64 exec, exec, s[16:17]\n",
                "s_or_b64 exec, exec, s[16:17]\nmerge\n",
            );
        assert_eq!(trips(&split), None);
    }

    #[test]
    fn lanes_exec_gains_in_the_iteration_are_not_counted() {
        // The guard's lanes come back before the step: their counter was never set.
        let widened = "\
v_cmp_gt_i32_e32 vcc, 32, v0
s_and_saveexec_b64 s[6:7], vcc
s_cbranch_execz .Lx
v_mov_b32_e32 v4, v0
s_mov_b64 s[12:13], 0
.Lh:
s_or_b64 exec, exec, s[6:7]
s_branch .Lb
.Lb:
v_add_u32_e32 v4, vcc, s10, v4
v_cmp_le_i32_e32 vcc, s9, v4
s_or_b64 s[12:13], vcc, s[12:13]
s_andn2_b64 exec, exec, s[12:13]
s_cbranch_execnz .Lh
.Lx:";
        assert_eq!(trips(widened), None);
        assert_eq!(
            trips(&widened.replace("s_or_b64 exec, exec, s[6:7]", "s_nop 0")),
            Some(16)
        );
    }

    /// clang-14 -O2's `for (b = get_group_id(0); b < n; b += get_num_groups(0))` (n = s9): the
    /// group count divided out of the grid's size (s4) and the workgroup's (s10) into v4, the
    /// counter v1 starting at the workgroup id (s8), and a uniform exit on VCC.
    fn block_stride() -> String {
        format!(
            "s_load_dword s4, s[4:5], 0xc
s_cmp_ge_i32 s8, s9
s_cbranch_scc1 .Lx
s_waitcnt lgkmcnt(0)
{}v_mov_b32_e32 v3, 0
v_mov_b32_e32 v1, s8
.Lh:
v_mul_lo_u32 v2, v1, 3
v_add_u32_e32 v3, vcc, v3, v0
v_add_u32_e32 v1, vcc, v1, v4
v_cmp_le_i32_e32 vcc, s9, v1
s_and_b64 vcc, exec, vcc
v_add_u32_e64 v3, s[0:1], v3, v2
s_cbranch_vccz .Lh
.Lx:",
            pws_isa::testing::num_groups_asm(4, 4, 10, 0)
        )
    }

    #[test]
    fn a_block_stride_loop_steps_by_the_folded_group_count() {
        // 4 groups: workgroup 0 counts 0, 4, ..., 996 and leaves at 1000; 3 groups: 0, 3, ...
        // up to 999, one more.
        assert_eq!(trips_in(&block_stride(), 4), Some(250));
        assert_eq!(trips_in(&block_stride(), 3), Some(334));
        // The group count plus one instead of its rounding up: 5 a step.
        let plus_one = block_stride().replace(
            "v_addc_u32_e32 v4, vcc, 0, v4, vcc",
            "v_add_u32_e32 v4, vcc, 1, v4",
        );
        assert_eq!(trips_in(&plus_one, 4), Some(200));
        // A step that differs from lane to lane bounds nothing.
        let per_lane = block_stride().replace(
            "v_addc_u32_e32 v4, vcc, 0, v4, vcc",
            "v_addc_u32_e32 v4, vcc, v0, v4, vcc",
        );
        assert_eq!(trips_in(&per_lane, 4), None);
        // Where the compare that selects ran for other lanes, the select is not known.
        let other_lanes = block_stride().replace(
            "v_cmp_ne_u32_e32 vcc, s4, v5\n",
            "v_cmp_ne_u32_e32 vcc, s4, v5\ns_and_b64 exec, exec, -1\n",
        );
        assert_eq!(trips_in(&other_lanes, 4), None);
    }

    /// clang-14 -O2's `int c = min(x, 16); for (int k = 0; k < c; k++) s += in[k];` with x a
    /// value no rule follows: behind `if (0 < x)`, k counts in s8 and each lane leaves when it
    /// equals its cap v2.
    const SCALAR_K: &str = "\
s_mov_b32 s11, 0x9e3779b9
v_mul_lo_u32 v2, v0, s11
v_cmp_lt_i32_e32 vcc, 0, v2
s_and_saveexec_b64 s[4:5], vcc
s_cbranch_execz .Lx
v_min_u32_e32 v2, 16, v2
s_mov_b64 s[6:7], 0
s_mov_b32 s8, 0
.Lh:
s_add_i32 s8, s8, 1
v_cmp_eq_u32_e32 vcc, s8, v2
s_or_b64 s[6:7], vcc, s[6:7]
s_andn2_b64 exec, exec, s[6:7]
s_cbranch_execnz .Lh
s_or_b64 exec, exec, s[6:7]
.Lx:
s_or_b64 exec, exec, s[4:5]";

    #[test]
    fn a_scalar_counter_against_each_lanes_cap_is_bounded_by_the_largest() {
        assert_eq!(trips(SCALAR_K), Some(16));
        // Counting from 5: the lanes whose cap is below it would wrap around before leaving.
        assert_eq!(
            trips(&SCALAR_K.replace("s_mov_b32 s8, 0", "s_mov_b32 s8, 5")),
            None
        );
        // Stepped by 2, an equality may be passed over.
        assert_eq!(
            trips(&SCALAR_K.replace("s_add_i32 s8, s8, 1", "s_add_i32 s8, s8, 2")),
            None
        );
        // An ordered exit may: `k >= c` from 0 by 3 leaves within 6 trips of 16.
        let ordered = SCALAR_K
            .replace("s_add_i32 s8, s8, 1", "s_add_i32 s8, s8, 3")
            .replace(
                "v_cmp_eq_u32_e32 vcc, s8, v2",
                "v_cmp_ge_u32_e64 vcc, s8, v2",
            );
        assert_eq!(trips(&ordered), Some(6));
        // Stepped by the workgroup's size (s10 = 64), an SGPR the launch fixes: one trip.
        let by_size = ordered.replace("s_add_i32 s8, s8, 3", "s_add_u32 s8, s8, s10");
        assert_eq!(trips(&by_size), Some(1));
        // Stepped twice in the loop, or compared with a cap the loop rewrites: not this shape.
        let twice = SCALAR_K.replace(
            "s_or_b64 s[6:7], vcc, s[6:7]",
            "s_or_b64 s[6:7], vcc, s[6:7]\ns_add_i32 s8, s8, 1",
        );
        assert_eq!(trips(&twice), None);
        let rewritten = SCALAR_K.replace(".Lh:\n", ".Lh:\nv_add_u32_e32 v2, vcc, 1, v2\n");
        assert_eq!(trips(&rewritten), None);
        // Without the guard the caps start at 0, which the count never meets.
        let unguarded =
            SCALAR_K.replace("s_and_saveexec_b64 s[4:5], vcc", "s_mov_b64 s[4:5], exec");
        assert_eq!(trips(&unguarded), None);
    }
}
