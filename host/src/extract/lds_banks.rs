//! The LDS bank conflicts each DS instruction of a launch can meet, so that the bound charges
//! what its addresses allow instead of the contract's 16-way worst case (docs/timing.md).
//!
//! The LDS serves one dword per bank and cycle, 32 banks of dwords; an access of a 16-lane pass
//! takes as many cycles as the most distinct dwords (for an atomic: lanes) its lanes ask of one
//! bank (`pws_hdl::cu::lds`). Which banks a pass meets depends on its lanes' addresses
//! relative to each other, and clang computes those from the work-item ids by shifts, products
//! and sums: `tile[ly][lx]` is `ly * 64 + lx * 4`. So a value is followed as an [`IdAffine`],
//! `base + a·x + b·y + c·z` of the lane's work-item ids with constant coefficients and a base
//! the same in every lane of the wavefront (from SGPRs: a loop's offset, the workgroup's id)
//! that may be known or not. At a DS instruction the launch's workgroups say which ids the
//! lanes of each pass hold, so each pass's addresses are known up to the base, and the conflict
//! is the worst over the passes and over the bases that remain possible ([`access_cycles`]).
//! The id x may also enter as `x ^ j` for a `j` of every lane (a butterfly's partner, bitonic
//! sort's `s[l ^ j]`): then a `j` not known is any that permutes the ids x takes, and any base.
//!
//! A vector write changes only the lanes EXEC enables, so each VGPR has two facts: one for the
//! lanes active at the point and one for every lane. A write sets the first; it sets the
//! second only while EXEC is the dispatcher's (every lane that ever runs, which
//! [`super::exit_mask::exec_within_dispatch`] must show EXEC never exceeds; [`ExecSets`]
//! follows EXEC through `if`, `else` and their joins), and otherwise keeps it only where old
//! and new value agree. Narrowing EXEC (an `if`, an `else`'s flip, a loop's exits) keeps the
//! active lanes' facts; anything else that changes EXEC (a join) falls back to the facts for
//! every lane. `split` and `merge` change nothing: a split context runs each of its lanes as
//! the masked execution does ([`super::exec_sets`]), so the facts of the program read without
//! them hold for the lanes it enables, and a DS instruction's conflicts among fewer lanes are
//! no more. SGPRs hold one value for every lane; [`ScalarValues`]
//! says where the launch fixes it.
//!
//! A DS instruction whose address is not so followed is charged the worst case, and the
//! analysis gives up (every instruction charged the worst case) on a program it would follow
//! with too much state.

use std::collections::HashMap;

use pws_isa::{Format, Instruction, Opcode, Operand, Program};

use super::exec_sets::{Change, ExecSets, Lanes};
use super::fold;
use super::lane_ranges::{plain, vgprs_written};
use super::launch_values::{LaunchValues, ScalarValues};
use crate::flow::Flow;
use crate::scalar::{effects, registers};

/// Banks of the LDS: dword `d` lives in bank `d mod 32`.
const BANKS: u32 = 32;

/// The period of the banks in bytes: a base that differs by it meets the same banks.
const BANK_PERIOD: u32 = 4 * BANKS;

/// Tracked VGPRs times blocks above which the analysis is not run.
const MAX_STATE: usize = 1 << 20;

/// Lanes of a launch's workgroups listed at most (64 workgroup extents of 1024 work-items).
const MAX_LISTED_LANES: u64 = 1 << 16;

/// SGPR reads [`ScalarValues`] may follow for the whole program.
const SCALAR_BUDGET: u64 = 1 << 20;

/// A value of every lane: `base + ids · (x, y, z)` of the lane's work-item ids, wrapping, with
/// one base for all the wavefront's lanes, between the two ends of `base` where it is known (a
/// least and a most value, no wrapping between them). Where `x_xor` is `Some(j)`, x enters as
/// `x ^ j` for one `j` of every lane (`None`: not known), as a butterfly's partner
/// `tid ^ j` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdAffine {
    pub ids: [u32; 3],
    pub base: Option<(u32, u32)>,
    pub x_xor: Option<Option<u32>>,
}

impl IdAffine {
    fn uniform(base: Option<u32>) -> IdAffine {
        IdAffine {
            ids: [0; 3],
            base: base.map(|b| (b, b)),
            x_xor: None,
        }
    }

    /// Work-item id `d`.
    pub fn id(d: usize) -> IdAffine {
        let mut ids = [0; 3];
        ids[d] = 1;
        IdAffine {
            ids,
            base: Some((0, 0)),
            x_xor: None,
        }
    }

    /// `ids` and `base` with the x term's xor kept only while it has one.
    fn with(ids: [u32; 3], base: Option<(u32, u32)>, x_xor: Option<Option<u32>>) -> IdAffine {
        IdAffine {
            ids,
            base,
            x_xor: x_xor.filter(|_| ids[0] != 0),
        }
    }

    /// `x ^ j` for a `j` every lane holds, where this is the id x itself.
    fn xor(self, j: IdAffine) -> Option<IdAffine> {
        let plain_x = self == IdAffine::id(0);
        (plain_x && j.is_uniform()).then_some(IdAffine {
            x_xor: Some(j.exact()),
            ..self
        })
    }

    fn is_uniform(self) -> bool {
        self.ids == [0; 3]
    }

    fn exact(self) -> Option<u32> {
        match self.base {
            Some((lo, hi)) if lo == hi && self.is_uniform() => Some(lo),
            _ => None,
        }
    }

    /// The least and the most value any lane holds as an integer before it wraps to 32 bits,
    /// where the ids are at most `id_max` (each coefficient read as a signed number).
    fn range(self, id_max: [u32; 3]) -> Option<(i64, i64)> {
        if self.x_xor.is_some() {
            return None;
        }
        let (lo, hi) = self.base?;
        let mut range = (i64::from(lo), i64::from(hi));
        for (&k, m) in self.ids.iter().zip(id_max) {
            let most = i64::from(k as i32) * i64::from(m);
            range = (range.0 + most.min(0), range.1 + most.max(0));
        }
        Some(range)
    }

    /// The same where every lane's value lies in `lo..hi` as an integer: then the 32-bit
    /// value is that integer, and any reading of fewer bits that holds it is too.
    fn within(self, id_max: [u32; 3], lo: i64, hi: i64) -> Option<IdAffine> {
        let (least, most) = self.range(id_max)?;
        (least >= lo && most < hi).then_some(self)
    }
}

/// What is known of a VGPR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fact {
    Linear(IdAffine),
    Any,
}

impl Fact {
    /// Either of two values of a wavefront that came one of two ways (all its lanes the same
    /// way): a base that differs between them becomes unknown (which also ends a loop's
    /// iteration: a counter's base grows at most once).
    fn either(self, other: Fact) -> Fact {
        match (self, other) {
            (Fact::Linear(a), Fact::Linear(b))
                if a.ids == b.ids && a.x_xor.is_some() == b.x_xor.is_some() =>
            {
                Fact::Linear(IdAffine {
                    ids: a.ids,
                    base: if a.base == b.base { a.base } else { None },
                    x_xor: a.x_xor.map(|j| j.filter(|_| a.x_xor == b.x_xor)),
                })
            }
            (a, b) if a == b => a,
            _ => Fact::Any,
        }
    }

    /// The value of every lane after a write of `new` to some of them: the old one where both
    /// are the same known value.
    fn partly(self, new: Fact) -> Fact {
        match (self, new) {
            (Fact::Linear(a), Fact::Linear(b))
                if a == b && a.base.is_some_and(|(l, h)| l == h) && a.x_xor != Some(None) =>
            {
                self
            }
            _ => Fact::Any,
        }
    }
}

/// The facts at a block's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    exec: ExecSets,
    /// Per tracked VGPR: for the lanes active here, and for every lane.
    active: Vec<Fact>,
    every: Vec<Fact>,
    /// Per open `if`: the lanes its `else` will run.
    rests: Vec<Rest>,
}

/// What holds for the lanes an `if` (its `s_and_saveexec_b64` at `at`) took out of `outer`:
/// what held for them there, for as long as EXEC stays within the then-lanes (`within`), and
/// what a write to all of `outer` (the else-flip's) gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rest {
    at: usize,
    outer: Lanes,
    within: bool,
    facts: Vec<Fact>,
}

impl State {
    fn join(&mut self, o: &State) -> bool {
        let before = self.clone();
        self.exec.join(&o.exec);
        self.rests.retain_mut(|r| {
            let Some(q) = o.rests.iter().find(|q| (q.at, q.outer) == (r.at, r.outer)) else {
                return false;
            };
            r.within &= q.within;
            for (a, b) in r.facts.iter_mut().zip(&q.facts) {
                *a = a.either(*b);
            }
            true
        });
        for (a, b) in self.active.iter_mut().zip(&o.active) {
            *a = a.either(*b);
        }
        for (a, b) in self.every.iter_mut().zip(&o.every) {
            *a = a.either(*b);
        }
        *self != before
    }
}

/// What one pass of a DS instruction costs in the banks at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankCost {
    /// LDS cycles over all its accesses (each access's worst conflict).
    pub cycles: u64,
    /// The worst conflict of one access (1: none).
    pub ways: u64,
}

/// Why no DS instruction of a program is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfollowed {
    /// EXEC may gain lanes the dispatcher disabled, whose values nothing describes.
    ExecBeyondDispatch,
    /// More tracked VGPRs times blocks than [`MAX_STATE`].
    TooLarge { vgprs: usize, blocks: usize },
    /// The facts did not settle within their bound of steps.
    Unsettled,
}

impl std::fmt::Display for Unfollowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfollowed::ExecBeyondDispatch => write!(
                f,
                "EXEC may gain lanes the dispatcher disabled (an EXEC write of a shape LLVM does not emit)"
            ),
            Unfollowed::TooLarge { vgprs, blocks } => write!(
                f,
                "too large to follow ({vgprs} address VGPRs in {blocks} blocks)"
            ),
            Unfollowed::Unsettled => write!(f, "the addresses did not settle"),
        }
    }
}

/// Per instruction of `program`, the LDS cycles one pass of a DS instruction spends in the
/// banks at most (the sum over its accesses of each one's worst conflict), for the lanes of
/// `lanes`-wide passes of `launch`'s wavefronts; `None` for any other instruction and where
/// the addresses are not known well enough.
pub fn lds_cycles(
    program: &Program,
    flow: &Flow,
    launch: &LaunchValues,
    lanes: u32,
) -> Vec<Option<u64>> {
    pass_cycles(
        &bank_costs(program, flow, launch, lanes),
        program.instructions.len(),
    )
}

/// The LDS cycles per pass of [`bank_costs`]' answer for a program of `instructions`.
pub fn pass_cycles(
    costs: &Result<Vec<Option<BankCost>>, Unfollowed>,
    instructions: usize,
) -> Vec<Option<u64>> {
    match costs {
        Ok(costs) => costs.iter().map(|c| c.map(|c| c.cycles)).collect(),
        Err(_) => vec![None; instructions],
    }
}

/// [`lds_cycles`] with each instruction's worst access, or why none is bounded.
pub fn bank_costs(
    program: &Program,
    flow: &Flow,
    launch: &LaunchValues,
    lanes: u32,
) -> Result<Vec<Option<BankCost>>, Unfollowed> {
    let n = program.instructions.len();
    let mut out: Vec<Option<BankCost>> = vec![None; n];
    let lanes = lanes.clamp(1, 64);
    let is_ds = |i: usize| program.instructions[i].item.opcode.format() == Format::Ds;
    if !(0..n).any(is_ds) {
        return Ok(out);
    }
    if !super::exit_mask::exec_within_dispatch(program, flow) {
        return Err(Unfollowed::ExecBeyondDispatch);
    }
    let tracked = address_slice(program);
    let blocks = flow.blocks.len().max(1);
    if tracked.len().saturating_mul(blocks) > MAX_STATE {
        return Err(Unfollowed::TooLarge {
            vgprs: tracked.len(),
            blocks,
        });
    }
    let (extents, _) = launch.workgroup_extents();
    let passes = pass_ids(extents, lanes).unwrap_or_default();
    let id_max = [0u8, 1, 2].map(|d| launch.entry_vgpr_range(d).map_or(u32::MAX, |r| r.1));
    let mut walk = Walk {
        program,
        flow,
        slot: tracked.iter().enumerate().map(|(k, &v)| (v, k)).collect(),
        values: ScalarValues::new(program, flow, launch),
        budget: SCALAR_BUDGET,
        scalars: HashMap::new(),
        id_max,
    };
    let entry_state = walk.entry(&tracked, launch);
    let states = walk.fixpoint(entry_state).ok_or(Unfollowed::Unsettled)?;
    // Instructions of one form on one address cost alike: each is worked out once (an
    // unknown `j` of `x ^ j` tries every value the ids allow).
    let mut costs: HashMap<(IdAffine, Opcode, u32), Option<BankCost>> = HashMap::new();
    for (b, state) in states.iter().enumerate() {
        let Some(mut state) = state.clone() else {
            continue;
        };
        for i in flow.blocks[b].clone() {
            if is_ds(i) {
                let inst = &program.instructions[i].item;
                out[i] = match inst.src(0) {
                    Some(Operand::Vgpr(v)) => match walk.slot.get(&v).map(|&k| state.active[k]) {
                        Some(Fact::Linear(f)) => *costs
                            .entry((f, inst.opcode, inst.imm))
                            .or_insert_with(|| ds_cycles(inst, f, &passes, lanes)),
                        _ => None,
                    },
                    _ => None,
                };
            }
            walk.step(i, &mut state);
        }
    }
    Ok(out)
}

/// The VGPRs a DS address is computed from: the addresses, and every VGPR read by an
/// instruction that writes one of them.
fn address_slice(program: &Program) -> Vec<u8> {
    let mut tracked = [false; 256];
    for l in &program.instructions {
        if l.item.opcode.format() == Format::Ds {
            if let Some(Operand::Vgpr(v)) = l.item.src(0) {
                tracked[usize::from(v)] = true;
            }
        }
    }
    loop {
        let mut grew = false;
        for l in &program.instructions {
            if vgprs_written(&l.item).any(|v| tracked[usize::from(v)]) {
                for (op, _) in l.item.sources() {
                    if let Operand::Vgpr(v) = op {
                        grew |= !std::mem::replace(&mut tracked[usize::from(v)], true);
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    (0..=255u8).filter(|&v| tracked[usize::from(v)]).collect()
}

struct Walk<'a> {
    program: &'a Program,
    flow: &'a Flow,
    /// Tracked VGPR to its index in a state.
    slot: HashMap<u8, usize>,
    values: ScalarValues<'a>,
    budget: u64,
    /// SGPR values before an instruction, once asked.
    scalars: HashMap<(usize, u8), Option<u32>>,
    /// The largest work-item id of each dimension.
    id_max: [u32; 3],
}

impl Walk<'_> {
    /// The kernel's first instruction: the work-item ids in the VGPRs the dispatcher writes,
    /// nothing known of the others.
    fn entry(&self, tracked: &[u8], launch: &LaunchValues) -> State {
        let (_, ids) = launch.workgroup_extents();
        let facts: Vec<Fact> = tracked
            .iter()
            .map(|&v| match v < ids.min(3) {
                true => Fact::Linear(IdAffine::id(usize::from(v))),
                false => Fact::Any,
            })
            .collect();
        State {
            exec: ExecSets::dispatch(),
            active: facts.clone(),
            every: facts,
            rests: Vec::new(),
        }
    }

    /// The state at every reachable block's entry, or `None` where it does not settle.
    fn fixpoint(&mut self, entry_state: State) -> Option<Vec<Option<State>>> {
        let flow = self.flow;
        let order = flow.order();
        let mut rank = vec![usize::MAX; flow.blocks.len()];
        for (k, &b) in order.iter().enumerate() {
            rank[b] = k;
        }
        let mut states: Vec<Option<State>> = vec![None; flow.blocks.len()];
        let entry = *order.first()?;
        states[entry] = Some(entry_state);
        let mut queue = std::collections::BTreeSet::from([(rank[entry], entry)]);
        // Every fact can only rise, at most three steps per tracked VGPR and block.
        let mut steps = 4 * (self.slot.len() + 2) * flow.blocks.len() + 16;
        while let Some((_, b)) = queue.pop_first() {
            steps = steps.checked_sub(1)?;
            let mut state = states[b].clone()?;
            for i in flow.blocks[b].clone() {
                self.step(i, &mut state);
            }
            for e in &flow.succ[b] {
                let changed = match &mut states[e.to] {
                    Some(s) => s.join(&state),
                    s @ None => {
                        *s = Some(state.clone());
                        true
                    }
                };
                if changed && rank[e.to] != usize::MAX {
                    queue.insert((rank[e.to], e.to));
                }
            }
        }
        Some(states)
    }

    /// The state after instruction `i`.
    fn step(&mut self, i: usize, state: &mut State) {
        let inst = &self.program.instructions[i].item;
        let first = vgprs_written(inst).next();
        let lanes = state.exec.lanes();
        for v in vgprs_written(inst) {
            let Some(&k) = self.slot.get(&v) else {
                continue;
            };
            let new = match (Some(v) == first).then(|| self.value(i, state)).flatten() {
                Some(x) => Fact::Linear(x),
                None => Fact::Any,
            };
            state.active[k] = new;
            state.every[k] = match lanes {
                Some(Lanes::Whole) => new,
                _ => state.every[k].partly(new),
            };
            for r in &mut state.rests {
                // Written in all of the outer set, in the then-lanes only, or in some lanes.
                if lanes.is_some_and(|l| l == r.outer || l == Lanes::Whole) {
                    r.facts[k] = new;
                } else if !r.within {
                    r.facts[k] = r.facts[k].partly(new);
                }
            }
        }
        let change = state.exec.step(i, inst);
        let now = state.exec.lanes();
        match (inst.opcode, now) {
            (Opcode::SAndSaveexecB64, Some(Lanes::After(at))) if at == i => {
                state.rests.retain(|r| r.at != i);
                if let Some(outer) = lanes {
                    state.rests.push(Rest {
                        at: i,
                        outer,
                        within: true,
                        facts: state.active.clone(),
                    });
                }
            }
            // The else-flip leaves the lanes the `if` took out.
            (_, Some(Lanes::Rest(outer, at))) if change == Change::Narrowed => {
                let rest = state
                    .rests
                    .iter()
                    .position(|r| r.at == at && r.outer == Lanes::from(outer));
                match rest {
                    Some(r) => state.active = state.rests.remove(r).facts,
                    None => state.active.clone_from(&state.every),
                }
            }
            _ => {}
        }
        for r in &mut state.rests {
            r.within &= change == Change::Kept
                || change == Change::Narrowed && r.within
                || now == Some(Lanes::After(r.at));
        }
        if change == Change::Other {
            // Lanes may have joined: only what holds for every lane holds.
            state.active.clone_from(&state.every);
        }
    }

    /// What the vector instruction `i` writes into its first destination VGPR, for the lanes
    /// it writes, where that is an [`IdAffine`] of its sources: clang's address arithmetic.
    fn value(&mut self, i: usize, state: &State) -> Option<IdAffine> {
        use Opcode::*;
        let inst = &self.program.instructions[i].item;
        if !plain(inst) {
            return None;
        }
        if inst.opcode == VMadU64U32 {
            // The low dword of a · b + c, where c's low dword is its first VGPR.
            let [a, b, c] = self.sources(i, 3, state)?;
            return add(mul(a, b)?, c);
        }
        // The signed 24-bit products clang uses for a negative step, besides what fold knows.
        let arity = match inst.opcode {
            VMulI32I24 => 2,
            VMadI32I24 => 3,
            op => fold::arity(op)?,
        };
        let bit = match fold::reads_mask(inst.opcode) {
            true => self.mask_bit(i, inst.src(2)?)?,
            false => false,
        };
        let s = self.sources(i, arity, state)?;
        if s[..arity].iter().all(|x| x.is_uniform()) {
            // A function of values the same in every lane of the pass.
            let mut exact = [0; 3];
            for (e, x) in exact.iter_mut().zip(&s[..arity]) {
                match x.exact() {
                    Some(k) => *e = k,
                    None => return Some(IdAffine::uniform(None)),
                }
            }
            return Some(IdAffine::uniform(fold::alu(inst.opcode, exact, bit)));
        }
        let most = self.id_max;
        let [a, b, c] = s;
        match inst.opcode {
            VMovB32 => Some(a),
            VAddU32 => add(a, b),
            VSubU32 => sub(a, b),
            VSubrevU32 => sub(b, a),
            VMulLoU32 => mul(a, b),
            VMulU32U24 | VMulI32I24 | VMadU32U24 | VMadI32I24 => {
                let signed = matches!(inst.opcode, VMulI32I24 | VMadI32I24);
                let product = mul(bits24(a, most, signed)?, bits24(b, most, signed)?)?;
                match inst.opcode {
                    VMadU32U24 | VMadI32I24 => add(product, c),
                    _ => Some(product),
                }
            }
            VLshlrevB32 => shl(b, a.exact()?),
            VOrB32 => or(a, b, most).or_else(|| or(b, a, most)),
            VXorB32 => a.xor(b).or_else(|| b.xor(a)),
            VAddcU32 => add(add(a, b)?, IdAffine::uniform(Some(bit.into()))),
            VSubbU32 => sub(sub(a, b)?, IdAffine::uniform(Some(bit.into()))),
            VSubbrevU32 => sub(sub(b, a)?, IdAffine::uniform(Some(bit.into()))),
            VCndmaskB32 => Some(if bit { b } else { a }),
            _ => None,
        }
    }

    /// The bit of mask `op` that instruction `i` reads in every lane active there, where all
    /// read the same: the mask is the carry of an add or subtraction, or the result of a
    /// compare, of values every lane knows, earlier in `i`'s block with no change of EXEC
    /// between (clang's `v_sub_u32 v1, vcc, 0, 0` before a `v_subb_u32` that reads its
    /// borrow).
    fn mask_bit(&mut self, i: usize, op: Operand) -> Option<bool> {
        use Opcode::*;
        let mask: Vec<_> = registers(op, 2).collect();
        let block = self.flow.blocks[self.flow.block_of(i)].clone();
        for w in (block.start..i).rev() {
            let inst = &self.program.instructions[w].item;
            if !mask.iter().any(|&m| effects(inst).defs.contains(m)) {
                if inst.writes_exec() || matches!(inst.opcode, Split | Merge) {
                    return None;
                }
                continue;
            }
            if inst.sdst != Some(op) || !plain(inst) {
                return None;
            }
            let mut x = [0u32; 2];
            for (k, v) in x.iter_mut().enumerate() {
                *v = match inst.src(k)? {
                    Operand::Vgpr(_) => return None,
                    Operand::Sgpr(s) => {
                        let (values, budget) = (&mut self.values, &mut self.budget);
                        (*self
                            .scalars
                            .entry((w, s))
                            .or_insert_with(|| values.before(w, s, budget)))?
                    }
                    other => other.constant_value32()?,
                };
            }
            let [a, b] = x;
            return match inst.opcode {
                VAddU32 => Some(a.checked_add(b).is_none()),
                VSubU32 => Some(b > a),
                VSubrevU32 => Some(a > b),
                op => fold::compare(op, a, b),
            };
        }
        None
    }

    /// The first `n` sources of instruction `i`.
    fn sources(&mut self, i: usize, n: usize, state: &State) -> Option<[IdAffine; 3]> {
        let mut s = [IdAffine::uniform(None); 3];
        for (k, x) in s.iter_mut().enumerate().take(n) {
            let op = self.program.instructions[i].item.src(k)?;
            *x = match op {
                Operand::Vgpr(v) => match state.active[*self.slot.get(&v)?] {
                    Fact::Linear(f) => f,
                    Fact::Any => return None,
                },
                Operand::Sgpr(s) => {
                    let (values, budget) = (&mut self.values, &mut self.budget);
                    let known = *self
                        .scalars
                        .entry((i, s))
                        .or_insert_with(|| values.before(i, s, budget));
                    IdAffine::uniform(known)
                }
                // VCC, M0, EXEC: one value for every lane.
                op => IdAffine::uniform(op.constant_value32()),
            };
        }
        Some(s)
    }
}

/// The xor of the x term of a sum or difference of `a` and `b`: x and `x ^ j` do not combine,
/// nor do two xors whose `j` may differ.
fn x_xor_of(a: IdAffine, b: IdAffine) -> Option<Option<Option<u32>>> {
    match (a.x_xor, b.x_xor) {
        (None, None) => Some(None),
        (Some(j), None) if b.ids[0] == 0 => Some(Some(j)),
        (None, Some(j)) if a.ids[0] == 0 => Some(Some(j)),
        _ => None,
    }
}

fn add(a: IdAffine, b: IdAffine) -> Option<IdAffine> {
    Some(IdAffine::with(
        [0, 1, 2].map(|d| a.ids[d].wrapping_add(b.ids[d])),
        a.base
            .zip(b.base)
            .and_then(|((l1, h1), (l2, h2))| Some((l1.checked_add(l2)?, h1.checked_add(h2)?))),
        x_xor_of(a, b)?,
    ))
}

fn sub(a: IdAffine, b: IdAffine) -> Option<IdAffine> {
    Some(IdAffine::with(
        [0, 1, 2].map(|d| a.ids[d].wrapping_sub(b.ids[d])),
        a.base
            .zip(b.base)
            .and_then(|((l1, h1), (l2, h2))| Some((l1.checked_sub(h2)?, h1.checked_sub(l2)?))),
        x_xor_of(a, b)?,
    ))
}

/// A product with a factor every lane knows.
fn mul(a: IdAffine, b: IdAffine) -> Option<IdAffine> {
    let (x, k) = match (a.exact(), b.exact()) {
        (_, Some(k)) => (a, k),
        (Some(k), None) => (b, k),
        (None, None) => return None,
    };
    Some(IdAffine::with(
        x.ids.map(|c| c.wrapping_mul(k)),
        x.base
            .and_then(|(l, h)| Some((l.checked_mul(k)?, h.checked_mul(k)?))),
        x.x_xor,
    ))
}

fn shl(a: IdAffine, k: u32) -> Option<IdAffine> {
    mul(a, IdAffine::uniform(Some(1 << (k & 31))))
}

/// `a | k` for a constant `k` that has no bit in common with any lane's `a`: a sum.
fn or(a: IdAffine, k: IdAffine, id_max: [u32; 3]) -> Option<IdAffine> {
    let bits = k.exact()?;
    if bits == 0 {
        return Some(a);
    }
    let below = 1i64 << bits.trailing_zeros();
    add(a.within(id_max, 0, below)?, k)
}

/// A source of a 24-bit multiply (`signed`: of `v_mul_i32_i24`, `v_mad_i32_i24`): the same
/// value where every lane's fits in 24 bits (an unknown value the same in every lane stays
/// one).
fn bits24(a: IdAffine, id_max: [u32; 3], signed: bool) -> Option<IdAffine> {
    if a.is_uniform() && a.base.is_none() {
        return Some(a);
    }
    match signed {
        true => a.within(id_max, -(1 << 23), 1 << 23),
        false => a.within(id_max, 0, 1 << 24),
    }
}

/// The work-item ids of the lanes of every `lanes`-wide pass of every wavefront of workgroups
/// of `extents`: the dispatcher numbers a workgroup's work-items x first, and a wavefront's
/// lanes past its workgroup get the ids their index would have
/// (`pws_isa::abi::LaunchAbi::vgpr_values`). `None` for a launch too large to list.
fn pass_ids(extents: &[[u32; 3]], lanes: u32) -> Option<Vec<Vec<[u32; 3]>>> {
    let wave = u64::from(pws_isa::manifest::WAVEFRONT_SIZE);
    let lanes = u64::from(lanes.clamp(1, 64));
    let mut passes = Vec::new();
    let mut listed = 0u64;
    for &[sx, sy, sz] in extents {
        let (sx, sy) = (u64::from(sx.max(1)), u64::from(sy.max(1)));
        let slots = (sx * sy * u64::from(sz.max(1))).div_ceil(wave) * wave;
        listed += slots;
        if listed > MAX_LISTED_LANES {
            return None;
        }
        let id = |flat: u64| [flat % sx, flat / sx % sy, flat / (sx * sy)].map(|v| v as u32);
        for first in (0..slots).step_by(lanes as usize) {
            passes.push((first..first + lanes).map(id).collect());
        }
    }
    Some(passes)
}

/// The LDS cycles of one pass of DS instruction `inst` whose address is `addr`, for lanes
/// holding the work-item ids of one of `passes` (of `lanes` lanes): per access, the most
/// distinct dwords (an atomic: lanes) a pass asks of one bank.
fn ds_cycles(
    inst: &Instruction,
    addr: IdAffine,
    passes: &[Vec<[u32; 3]>],
    lanes: u32,
) -> Option<BankCost> {
    let name = inst.opcode.mnemonic();
    let sig = inst.opcode.signature();
    let two = name.starts_with("ds_read2") || name.starts_with("ds_write2");
    let read = name.starts_with("ds_read");
    let write = name.starts_with("ds_write");
    let offset = inst.imm & 0xffff;
    let mut offsets = Vec::new();
    if read || write {
        let dwords = if read {
            sig.dst.map_or(1, |w| w.dwords()) / if two { 2 } else { 1 }
        } else {
            sig.srcs.get(1).map_or(1, |w| w.dwords())
        };
        let dwords = u32::from(dwords.max(1));
        if two {
            // Element offsets count elements of 4 or 8 bytes, 64 of them for `st64`.
            let shift = if dwords == 2 { 3 } else { 2 } + if name.contains("st64") { 6 } else { 0 };
            for element in [offset & 0xff, offset >> 8] {
                offsets.extend((0..dwords).map(|a| (element << shift) + 4 * a));
            }
        } else {
            offsets.extend((0..dwords).map(|a| offset + 4 * a));
        }
    } else {
        offsets.push(offset);
    }
    let atomic = !(read || write);
    // `x ^ j`: a j not known is any of the values that permute the ids x takes; its bits above
    // them add the same to every lane, so the base is then any.
    let (xors, base): (Vec<u32>, _) = match addr.x_xor {
        None => (vec![0], addr.base),
        Some(Some(j)) => (vec![j], addr.base),
        Some(None) => {
            let span = id_max_x(passes)
                .checked_add(1)?
                .checked_next_power_of_two()?;
            ((0..span).collect(), None)
        }
    };
    // Each pass's lanes relative to the base, moved by whole rows of banks to start in the
    // first and sorted (which changes no conflict), and each shape once.
    let patterns: std::collections::BTreeSet<Vec<u32>> = if addr.is_uniform() {
        [vec![0; lanes as usize]].into()
    } else if passes.is_empty() {
        return None;
    } else {
        let mut patterns = std::collections::BTreeSet::new();
        for ids in passes {
            for &j in &xors {
                let at = |id: &[u32; 3]| {
                    let x = if addr.x_xor.is_some() {
                        id[0] ^ j
                    } else {
                        id[0]
                    };
                    [x, id[1], id[2]]
                        .iter()
                        .zip(addr.ids)
                        .fold(0u32, |sum, (&v, k)| sum.wrapping_add(k.wrapping_mul(v)))
                };
                let row = at(&ids[0]) & !(BANK_PERIOD - 1);
                let mut p: Vec<u32> = ids.iter().map(|id| at(id).wrapping_sub(row)).collect();
                p.sort_unstable();
                patterns.insert(p);
            }
        }
        patterns
    };
    let ways: Vec<u64> = offsets
        .iter()
        .map(|&o| {
            patterns
                .iter()
                .map(|p| access_cycles(p, base, o, atomic))
                .max()
                .unwrap_or(1)
        })
        .collect();
    Some(BankCost {
        cycles: ways.iter().sum(),
        ways: ways.iter().copied().max().unwrap_or(1),
    })
}

/// The largest id x any pass holds.
fn id_max_x(passes: &[Vec<[u32; 3]>]) -> u32 {
    passes.iter().flatten().map(|id| id[0]).max().unwrap_or(0)
}

/// What the bound charges `program`'s DS instructions for bank conflicts, in one note at the
/// first of them: how many their addresses bound and how tightly, and which keep the
/// contract's worst case. `None` without DS instructions.
pub fn note(
    program: &Program,
    costs: &Result<Vec<Option<BankCost>>, Unfollowed>,
    for_launch: &str,
) -> Option<(u32, String)> {
    let ds: Vec<usize> = (0..program.instructions.len())
        .filter(|&i| program.instructions[i].item.opcode.format() == Format::Ds)
        .collect();
    let first = program.instructions[*ds.first()?].line;
    let costs = match costs {
        Ok(costs) => costs,
        Err(why) => {
            return Some((
                first,
                format!(
                    "LDS bank conflicts{for_launch}: every DS instruction charged the {}-way worst case: {why}",
                    crate::timing::LDS_MAX_CONFLICT
                ),
            ))
        }
    };
    let line_list = |lines: Vec<u32>| {
        let shown: Vec<String> = lines.iter().take(8).map(u32::to_string).collect();
        let more = lines.len().saturating_sub(8);
        format!(
            "{}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    let mut by_ways: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
    let mut worst = Vec::new();
    for &i in &ds {
        let line = program.instructions[i].line;
        match costs.get(i).copied().flatten() {
            Some(c) => by_ways.entry(c.ways).or_default().push(line),
            None => worst.push(line),
        }
    }
    let bounded = ds.len() - worst.len();
    let mut message = format!(
        "LDS bank conflicts{for_launch}: {bounded} of {} DS instructions bounded by their lanes' addresses",
        ds.len()
    );
    let parts: Vec<String> = by_ways
        .into_iter()
        .map(|(k, lines)| match k {
            1 => format!("{} conflict-free", lines.len()),
            k => format!("{} at most {k}-way, line {}", lines.len(), line_list(lines)),
        })
        .collect();
    if !parts.is_empty() {
        message += &format!(" ({})", parts.join("; "));
    }
    if !worst.is_empty() {
        message += &format!(
            "; charged the {}-way worst case: line {} (an address that is not a sum of multiples of the work-item ids)",
            crate::timing::LDS_MAX_CONFLICT,
            line_list(worst)
        );
    }
    Some((first, message))
}

/// The most cycles one access of a pass takes whose lanes address `base + offset +
/// lanes[j]`: the most distinct dwords (for an atomic, lanes) of one bank, over every base
/// `base` allows. A base that differs by a multiple of [`BANK_PERIOD`] moves every lane by
/// the same whole rows, so the residues of the base are all there is to try.
pub fn access_cycles(lanes: &[u32], base: Option<(u32, u32)>, offset: u32, atomic: bool) -> u64 {
    let bases = match base {
        Some((lo, hi)) if hi - lo < BANK_PERIOD => lo..=hi,
        _ => 0..=BANK_PERIOD - 1,
    };
    let mut worst = 1;
    let mut dwords: Vec<u32> = Vec::with_capacity(lanes.len());
    for base in bases {
        dwords.clear();
        dwords.extend(
            lanes
                .iter()
                .map(|&a| base.wrapping_add(offset).wrapping_add(a) >> 2),
        );
        if !atomic {
            // Lanes on one dword are served together.
            dwords.sort_unstable();
            dwords.dedup();
        }
        let mut per_bank = [0u64; BANKS as usize];
        for &d in &dwords {
            per_bank[(d % BANKS) as usize] += 1;
        }
        worst = worst.max(per_bank.into_iter().max().unwrap_or(1));
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use pws_isa::manifest::Manifest;

    /// The bank cost of every DS instruction of `body` (a kernel whose v0, v1 are the work-item
    /// ids x, y) in 16-lane passes of one workgroup of `wg`.
    fn costs(body: &str, wg: [u32; 2]) -> Vec<Option<BankCost>> {
        let src = format!(
            "k:\ns_mov_b32 m0, -1\n{body}s_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 16\n\
             .amdhsa_next_free_sgpr 16\n.amdhsa_group_segment_fixed_size 32768\n\
             .amdhsa_system_vgpr_workitem_id 1\n.end_amdhsa_kernel\n"
        );
        let program = pws_isa::assemble(&src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let [x, y] = wg;
        let manifest = Manifest::parse(
            &format!("kernel = \"t.s\"\ngrid = [{x}, {y}]\nworkgroup = [{x}, {y}]\n"),
            "t.toml",
        )
        .unwrap();
        let launch = LaunchValues::of(&program, &manifest);
        let all = bank_costs(&program, &flow, &launch, 16).unwrap();
        (0..program.instructions.len())
            .filter(|&i| program.instructions[i].item.opcode.format() == Format::Ds)
            .map(|i| all[i])
            .collect()
    }

    fn ways(body: &str, wg: [u32; 2]) -> Vec<Option<u64>> {
        costs(body, wg).iter().map(|c| c.map(|c| c.ways)).collect()
    }

    #[test]
    fn an_access_costs_the_most_dwords_of_one_bank() {
        let lanes = |stride: u32| (0..16).map(|j| j * stride).collect::<Vec<u32>>();
        let any = None;
        // One bank per lane, a broadcast, and bytes or halves of shared dwords: no conflict.
        for stride in [0, 1, 2, 4, 8, 12, 68] {
            assert_eq!(access_cycles(&lanes(stride), any, 0, false), 1, "{stride}");
        }
        assert_eq!(access_cycles(&lanes(16), any, 0, false), 2);
        assert_eq!(access_cycles(&lanes(64), any, 0, false), 8);
        assert_eq!(access_cycles(&lanes(128), any, 0, false), 16);
        // An atomic serialises the lanes of one dword.
        assert_eq!(access_cycles(&lanes(0), any, 0, true), 16);
        // A byte stride of 3 meets one dword twice and, for some bases, a bank across rows.
        assert_eq!(access_cycles(&lanes(3), Some((0, 0)), 0, false), 1);
        // Two lanes 126 bytes apart share a bank only where the base puts the first at the
        // end of a dword: a known base rules that out, an unknown one does not.
        assert_eq!(access_cycles(&[0, 126], Some((0, 1)), 0, false), 1);
        assert_eq!(access_cycles(&[0, 126], Some((2, 2)), 0, false), 2);
        assert_eq!(access_cycles(&[0, 126], None, 0, false), 2);
    }

    #[test]
    fn tiles_indexed_by_row_and_by_column() {
        // clang's tile[ly][lx] (16-wide rows of floats), tile[lx][ly], and tile[lx][ly] in a
        // padded 17-wide tile, in 16 x 16 workgroups: each pass is one row of lx.
        let body = "v_lshlrev_b32_e32 v2, 2, v0\nv_lshlrev_b32_e32 v3, 6, v1\n\
            v_add_u32_e32 v4, vcc, v3, v2\nds_write_b32 v4, v0\n\
            v_lshlrev_b32_e32 v2, 2, v1\nv_lshlrev_b32_e32 v3, 6, v0\n\
            v_add_u32_e32 v4, vcc, v3, v2\nds_read_b32 v5, v4\n\
            s_movk_i32 s0, 0x44\nv_lshlrev_b32_e32 v2, 2, v1\nv_mad_u32_u24 v4, v0, s0, v2\n\
            ds_read_b32 v5, v4\n";
        assert_eq!(ways(body, [16, 16]), [Some(1), Some(8), Some(1)]);
        // 8 x 8 workgroups: a pass holds two rows, and x * 4 + y * 32 is still one dword each.
        let body = "v_lshlrev_b32_e32 v2, 2, v0\nv_lshlrev_b32_e32 v3, 5, v1\n\
            v_add_u32_e32 v4, vcc, v3, v2\nds_write2st64_b32 v4, v0, v1 offset1:1\n";
        assert_eq!(costs(body, [8, 8]), [Some(BankCost { cycles: 2, ways: 1 })]);
    }

    #[test]
    fn every_form_and_offset_is_charged_per_access() {
        // A 16-byte stride: each of a b128's four accesses meets two lanes per bank.
        let body = "v_lshlrev_b32_e32 v2, 4, v0\nds_read_b128 v[4:7], v2 offset:16\n\
            ds_read2_b64 v[4:7], v2 offset0:1 offset1:3\nds_add_u32 v2, v0\n";
        assert_eq!(
            costs(body, [64, 1]),
            [
                Some(BankCost { cycles: 8, ways: 2 }),
                Some(BankCost { cycles: 8, ways: 2 }),
                Some(BankCost { cycles: 2, ways: 2 }),
            ]
        );
    }

    #[test]
    fn clangs_negative_steps_and_borrows_are_followed() {
        // nw's anti-diagonal: (16 - x) * 68 + x * 4 by a signed multiply-add, and 15 - x by a
        // subtraction with the borrow of 0 - 0.
        let body = "v_sub_u32_e32 v2, vcc, 0, v0\nv_lshlrev_b32_e32 v3, 2, v0\n\
            s_movk_i32 s0, 0x44\nv_mad_i32_i24 v4, v2, s0, v3\nds_read_b32 v5, v4 offset:1088\n\
            v_sub_u32_e64 v6, vcc, 0, 0\nv_subb_u32_e32 v7, vcc, 15, v0, vcc\n\
            v_lshlrev_b32_e32 v7, 2, v7\nds_read_b32 v5, v7\n";
        assert_eq!(ways(body, [16, 1]), [Some(8), Some(1)]);
    }

    #[test]
    fn a_write_under_a_narrowed_exec_holds_only_for_its_lanes() {
        // v4 = x * 4 is written inside the `if`: read there it is known; after the join the
        // lanes that skipped it hold x * 128.
        let body = "v_lshlrev_b32_e32 v4, 7, v0\nv_cmp_gt_u32_e32 vcc, 8, v0\n\
            s_and_saveexec_b64 s[2:3], vcc\ns_cbranch_execz BB0_2\n\
            v_lshlrev_b32_e32 v4, 2, v0\nds_read_b32 v5, v4\nBB0_2:\n\
            s_or_b64 exec, exec, s[2:3]\nds_read_b32 v5, v4\n";
        assert_eq!(ways(body, [64, 1]), [Some(1), None]);
        // Written before the `if`, the address holds in its else-side and after the join.
        let body = "v_lshlrev_b32_e32 v4, 2, v0\nv_cmp_gt_u32_e32 vcc, 8, v0\n\
            s_and_saveexec_b64 s[2:3], vcc\ns_xor_b64 s[2:3], exec, s[2:3]\n\
            s_cbranch_execz BB0_2\nds_read_b32 v5, v4\nBB0_2:\n\
            s_or_saveexec_b64 s[2:3], s[2:3]\ns_xor_b64 exec, exec, s[2:3]\n\
            s_cbranch_execz BB0_4\nds_write_b32 v4, v5\nBB0_4:\n\
            s_or_b64 exec, exec, s[2:3]\nds_read_b32 v5, v4 offset:4\n";
        assert_eq!(ways(body, [64, 1]), [Some(1), Some(1), Some(1)]);
    }

    /// hotspot's v4: computed while the flip has every lane back, read after the join.
    const FLIP_WRITE: &str = "v_lshlrev_b32_e32 v7, 2, v0\nv_cmp_gt_u32_e32 vcc, 8, v0\n\
        s_and_saveexec_b64 s[0:1], vcc\ns_xor_b64 s[0:1], exec, s[0:1]\n\
        s_cbranch_execz BB0_2\nds_read_b32 v5, v7\nBB0_2:\n\
        s_or_saveexec_b64 s[0:1], s[0:1]\nv_add_u32_e32 v4, vcc, 0x100, v7\n\
        s_xor_b64 exec, exec, s[0:1]\ns_cbranch_execz BB0_4\n\
        ds_read_b32 v6, v7 offset:4\nBB0_4:\ns_or_b64 exec, exec, s[0:1]\n\
        ds_read_b32 v4, v4\n";

    /// `body` with v4 written in the then-side alone, before the flip.
    fn then_side_write(body: &str) -> String {
        body.replace(
            "s_or_saveexec_b64 s[0:1], s[0:1]\nv_add_u32_e32 v4, vcc, 0x100, v7",
            "v_add_u32_e32 v4, vcc, 0x100, v7\ns_or_saveexec_b64 s[0:1], s[0:1]",
        )
    }

    #[test]
    fn an_address_written_at_the_else_flip_holds_after_the_join() {
        assert_eq!(ways(FLIP_WRITE, [64, 1]), [Some(1), Some(1), Some(1)]);
        // Written in the then-side alone, it holds nothing for the else-side's lanes.
        let then_only = then_side_write(FLIP_WRITE);
        assert_eq!(ways(&then_only, [64, 1]), [Some(1), Some(1), None]);
    }

    #[test]
    fn split_and_merge_keep_the_masked_executions_facts() {
        // The same split by PWS: `split` before the then-side's skip branch, `merge` after the
        // join's restore. Each context enables its share of the masked execution's lanes, so
        // the address written at the flip still holds after the merge, and what the then-side
        // alone wrote still holds nothing there.
        let split = FLIP_WRITE
            .replace(
                "s_cbranch_execz BB0_2",
                "split vcc_lo, vcc_hi\ns_cbranch_execz BB0_2",
            )
            .replace(
                "s_or_b64 exec, exec, s[0:1]\n",
                "s_or_b64 exec, exec, s[0:1]\nmerge\n",
            );
        assert!(split.contains("split") && split.contains("merge"));
        assert_eq!(ways(&split, [64, 1]), [Some(1), Some(1), Some(1)]);
        let then_only = then_side_write(&split);
        assert_eq!(ways(&then_only, [64, 1]), [Some(1), Some(1), None]);
    }

    #[test]
    fn the_else_side_keeps_what_its_lanes_held_at_the_if() {
        // srad's v6: rewritten by the then-side, read by the else-side, whose lanes the
        // then-side never wrote; after the join the lanes disagree.
        let body = "v_lshlrev_b32_e32 v6, 2, v0\nv_cmp_gt_u32_e32 vcc, 8, v0\n\
            s_and_saveexec_b64 s[0:1], vcc\ns_xor_b64 s[0:1], exec, s[0:1]\n\
            s_cbranch_execz BB0_2\nv_lshlrev_b32_e32 v6, 7, v0\nds_read_b32 v5, v6\nBB0_2:\n\
            s_or_saveexec_b64 s[0:1], s[0:1]\ns_xor_b64 exec, exec, s[0:1]\n\
            s_cbranch_execz BB0_4\nds_read_b32 v5, v6 offset:4\nBB0_4:\n\
            s_or_b64 exec, exec, s[0:1]\nds_read_b32 v5, v6\n";
        assert_eq!(ways(body, [64, 1]), [Some(16), Some(1), None]);
        // Rewritten in an inner `if` of the then-side: unknown there, still known for the
        // else-side.
        let inner = body.replace(
            "v_lshlrev_b32_e32 v6, 7, v0\n",
            "s_and_saveexec_b64 s[2:3], vcc\nv_mov_b32_e32 v6, 0\ns_or_b64 exec, exec, s[2:3]\n",
        );
        assert_eq!(ways(&inner, [64, 1]), [None, Some(1), None]);
        // Rewritten at the flip, for every lane: the else-side and the join see the new value.
        let flip = body.replace(
            "s_xor_b64 exec, exec, s[0:1]",
            "v_lshlrev_b32_e32 v6, 7, v0\ns_xor_b64 exec, exec, s[0:1]",
        );
        assert_eq!(ways(&flip, [64, 1]), [Some(16), Some(16), Some(16)]);
    }

    #[test]
    fn a_butterflys_partner_is_charged_its_worst_j() {
        // bitonic's `s[l ^ j]`: a pass of whole 16-lane rows holds the same ids for every j.
        let body = "s_load_dword s10, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n\
            v_xor_b32_e32 v2, s10, v0\nv_lshlrev_b32_e32 v2, 2, v2\nds_read_b32 v3, v2\n";
        assert_eq!(ways(body, [64, 1]), [Some(1)]);
        // Rows of 12, 17 dwords apart: a pass holds all of one row and part of the next,
        // which j chooses (x ^ 8 puts 8..11 there, two lanes per bank with the other row's).
        let rows = "s_load_dword s10, s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n\
            v_xor_b32_e32 v2, s10, v0\nv_lshlrev_b32_e32 v2, 2, v2\ns_movk_i32 s11, 0x44\n\
            v_mad_u32_u24 v2, v1, s11, v2\nds_read_b32 v3, v2\n";
        assert_eq!(ways(rows, [12, 16]), [Some(2)]);
        for j in [0, 8] {
            let known = rows.replace(
                "s_load_dword s10, s[0:1], 0x0",
                &format!("s_mov_b32 s10, {j}"),
            );
            assert_eq!(ways(&known, [12, 16]), [Some(1 + u64::from(j == 8))]);
        }
        // x ^ j does not add to x.
        let mixed = body.replace(
            "v_lshlrev_b32_e32 v2, 2, v2",
            "v_add_u32_e32 v2, vcc, v2, v0\nv_lshlrev_b32_e32 v2, 2, v2",
        );
        assert_eq!(ways(&mixed, [64, 1]), [None]);
    }

    #[test]
    fn a_loop_step_the_lanes_share_keeps_the_conflict() {
        // s[d] += s[d + step] with step halving in an SGPR: the base changes, the stride not.
        let body = "v_lshlrev_b32_e32 v1, 2, v0\ns_movk_i32 s4, 0x200\nBB0_1:\n\
            v_add_u32_e32 v2, vcc, s4, v1\nds_read_b32 v3, v2\ns_lshr_b32 s4, s4, 1\n\
            s_cmp_lg_u32 s4, 0\ns_cbranch_scc1 BB0_1\n";
        assert_eq!(ways(body, [256, 1]), [Some(1)]);
    }

    #[test]
    fn a_data_dependent_address_keeps_the_worst_case() {
        let body = "v_lshlrev_b32_e32 v1, 2, v0\nds_read_b32 v2, v1\ns_waitcnt lgkmcnt(0)\n\
            v_and_b32_e32 v2, 0xfc, v2\nds_add_u32 v2, v0\n";
        assert_eq!(ways(body, [64, 1]), [Some(1), None]);
    }

    #[test]
    fn the_note_says_how_many_were_bounded_or_why_none_was() {
        let program = |body: &str| {
            let src = format!("k:\n{body}s_endpgm\n");
            pws_isa::assemble(&src, "t.s").unwrap()
        };
        let launch = LaunchValues::none();
        let shared = program("v_mov_b32_e32 v1, 0\nds_read_b32 v2, v1\nds_read_b32 v2, v0\n");
        let flow = Flow::new(&shared, "t.s").unwrap();
        let costs = bank_costs(&shared, &flow, &launch, 16);
        let (line, message) = note(&shared, &costs, "").unwrap();
        assert_eq!(line, 3);
        assert!(
            message.contains("1 of 2 DS instructions bounded"),
            "{message}"
        );
        assert!(message.contains("line 4"), "{message}");
        // EXEC set to every lane, the dispatched ones or not: nothing describes the others.
        let all = program("s_mov_b64 exec, -1\nv_mov_b32_e32 v1, 0\nds_read_b32 v2, v1\n");
        let flow = Flow::new(&all, "t.s").unwrap();
        let costs = bank_costs(&all, &flow, &launch, 16);
        assert_eq!(costs, Err(Unfollowed::ExecBeyondDispatch));
        let (_, message) = note(&all, &costs, "").unwrap();
        assert!(message.contains("EXEC may gain lanes"), "{message}");
        assert_eq!(note(&program("s_nop 0\n"), &Ok(Vec::new()), ""), None);
    }

    #[test]
    fn without_a_launch_only_a_shared_address_is_known() {
        let src = "k:\nv_lshlrev_b32_e32 v1, 2, v0\nds_read_b32 v2, v1\nv_mov_b32_e32 v1, 0\n\
            ds_read_b32 v2, v1\nds_add_u32 v1, v0\ns_endpgm\n";
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let all = bank_costs(&program, &flow, &LaunchValues::none(), 16).unwrap();
        let ways: Vec<Option<u64>> = [1, 3, 4].iter().map(|&i| all[i].map(|c| c.ways)).collect();
        assert_eq!(ways, [None, Some(1), Some(16)]);
    }
}
