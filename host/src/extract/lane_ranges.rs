//! The values a register may hold across the lanes of every wavefront of a launch, as the
//! least and the most of them: where a grid-stride loop's counter starts
//! ([`super::lane_count`]).
//!
//! A VGPR differs from lane to lane: the dispatcher writes the work-item ids into v0, v1, v2,
//! and `get_global_id(0)` is computed from them and the workgroup id. A vector instruction
//! writes only the lanes EXEC enables and the others keep what they held, so every definition
//! met on the way back from a point counts, not only the nearest one on each path, and the walk
//! goes on to the kernel's entry, where the dispatcher's values hold. A write is the last for
//! the lanes active at the point asked about where EXEC is only narrowed between them (a
//! counter set before the `if` that guards its loop), and for every lane while
//! EXEC is still the dispatcher's in the kernel's first instructions, where EXEC never gains a
//! lane the dispatcher disabled ([`super::exit_mask::exec_within_dispatch`]): clang computes
//! `get_global_id(0)` there. An SGPR is the same in
//! every lane of a wavefront: its nearest definitions count, and [`ScalarValues`] knows it
//! exactly where the launch fixes it (a size, an argument); the workgroup ids are ranges. The
//! operations followed are those of clang's index arithmetic (moves, adds, subtractions,
//! products, shifts, masks), each answered only where no lane's value can wrap around;
//! anything else is unknown.

use std::collections::{HashMap, HashSet};

use pws_isa::{Instruction, Opcode, Operand, Program};

use super::fold;
use super::launch_values::ScalarValues;
use crate::flow::Flow;
use crate::scalar::{effects, registers, ScalarReg};

/// The least and the most value, least first.
pub type Range = (u32, u32);

/// Every 32-bit value.
const ANY: Range = (0, u32::MAX);

/// Definitions followed from one question, as [`ScalarValues`] follows them.
const MAX_DEPTH: u32 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Reg {
    Sgpr(u8),
    Vgpr(u8),
}

/// The VGPRs `inst` writes.
pub fn vgprs_written(inst: &Instruction) -> impl Iterator<Item = u8> {
    let dwords = inst.opcode.signature().dst.map_or(0, |w| w.dwords());
    let base = match inst.dst {
        Some(Operand::Vgpr(v)) => Some(v),
        _ => None,
    };
    base.into_iter()
        .flat_map(move |v| (0..dwords).filter_map(move |k| v.checked_add(k)))
}

/// The least range holding both.
pub fn hull(a: Range, b: Range) -> Range {
    (a.0.min(b.0), a.1.max(b.1))
}

/// A VALU instruction without modifiers or sub-dword selects: its integer result is the plain
/// operation.
pub fn plain(inst: &Instruction) -> bool {
    inst.sdwa.is_none() && inst.mods == Default::default()
}

/// Register ranges at points of one program, for one launch.
pub struct LaneRanges<'v, 'a> {
    program: &'a Program,
    flow: &'a Flow,
    values: &'v mut ScalarValues<'a>,
    /// The range each (definition, register) writes, once evaluated.
    written: HashMap<(usize, Reg), Option<Range>>,
    /// Definitions being evaluated: one met again depends on itself.
    open: HashSet<(usize, Reg)>,
    /// Instructions `0..whole` run with the dispatcher's EXEC, which holds every lane that
    /// ever runs ([`dispatch_prefix`]).
    whole: usize,
}

/// The kernel's first instructions that every wavefront runs with the dispatcher's EXEC, and
/// with every lane that will ever run: those of the entry block (which nothing branches back
/// to) before its first write of EXEC, when EXEC never gains a lane the dispatcher disabled.
/// None otherwise.
pub fn dispatch_prefix(program: &Program, flow: &Flow) -> usize {
    let Some(&entry) = flow.order().first() else {
        return 0;
    };
    if !flow.pred[entry].is_empty() || !super::exit_mask::exec_within_dispatch(program, flow) {
        return 0;
    }
    let block = flow.blocks[entry].clone();
    // A split leaves the context some of the lanes; a merge brings lanes back.
    block
        .clone()
        .find(|&i| writes_exec_or_split_mask(&program.instructions[i].item))
        .unwrap_or(block.end)
}

/// The value SGPR `s` holds before instruction `at` in every wavefront of the launch: what
/// `values` knows, or else the one value its range leaves (pws.h's `get_local_size(0)`,
/// `min(grid - group * size, size)` over the workgroup ids, is `size` in every workgroup of a
/// grid the size divides).
pub fn uniform_sgpr(
    values: &mut ScalarValues<'_>,
    at: usize,
    s: u8,
    budget: &mut u64,
) -> Option<u32> {
    let (lo, hi) = sgpr_range(values, at, s, budget)?;
    (lo == hi).then_some(lo)
}

/// The values SGPR `s` may hold before instruction `at` over the launch's wavefronts: what
/// `values` knows, or else its range over the workgroups (`get_group_id(0) * 3 + 2`);
/// `None` where nothing is known of it.
pub fn sgpr_range(
    values: &mut ScalarValues<'_>,
    at: usize,
    s: u8,
    budget: &mut u64,
) -> Option<Range> {
    if let Some(v) = values.before(at, s, budget) {
        return Some((v, v));
    }
    let (program, flow) = (values.program(), values.flow());
    LaneRanges::new(program, flow, values, 0)
        .before(at, Reg::Sgpr(s), budget, 0)
        .filter(|&r| r != ANY)
}

impl<'v, 'a> LaneRanges<'v, 'a> {
    /// `whole` is [`dispatch_prefix`].
    pub fn new(
        program: &'a Program,
        flow: &'a Flow,
        values: &'v mut ScalarValues<'a>,
        whole: usize,
    ) -> Self {
        LaneRanges {
            program,
            flow,
            values,
            written: HashMap::new(),
            open: HashSet::new(),
            whole,
        }
    }

    /// The launch's scalar values, which the ranges build on.
    pub fn scalar_values(&mut self) -> &mut ScalarValues<'a> {
        self.values
    }

    /// The range of VGPR `v` at the end of block `b`, over the lanes active there in every
    /// wavefront; `None` where nothing is known of it.
    pub fn vgpr_at_end(&mut self, b: usize, v: u8, budget: &mut u64) -> Option<Range> {
        self.reaching(b, self.flow.blocks[b].end, Reg::Vgpr(v), budget, 0)
            .filter(|&x| x != ANY)
    }

    /// The range of VGPR `v` before instruction `at`, over the lanes active there in every
    /// wavefront; `None` where nothing is known of it.
    pub fn vgpr_before(&mut self, at: usize, v: u8, budget: &mut u64) -> Option<Range> {
        self.before(at, Reg::Vgpr(v), budget, 0)
            .filter(|&x| x != ANY)
    }

    fn before(&mut self, at: usize, r: Reg, budget: &mut u64, depth: u32) -> Option<Range> {
        if let Reg::Sgpr(s) = r {
            if let Some(v) = self.values.before(at, s, budget) {
                return Some((v, v));
            }
        }
        self.reaching(self.flow.block_of(at), at, r, budget, depth)
    }

    /// The hull of what every definition of `r` that may reach instruction `end` of block `b`
    /// writes for a lane active there, and of the dispatcher's value where the kernel's entry
    /// reaches it unwritten. A vector definition is that lane's last where nothing but a
    /// narrowing of EXEC ([`narrows_exec`]) comes between it and the point (the lane was
    /// active there), or where it is in the dispatch prefix.
    fn reaching(
        &mut self,
        b: usize,
        end: usize,
        r: Reg,
        budget: &mut u64,
        depth: u32,
    ) -> Option<Range> {
        if depth > MAX_DEPTH {
            return None;
        }
        let flow = self.flow;
        let entry = flow.block_of(0);
        let mut found: Option<Range> = None;
        let mut add = |x: Option<Range>| -> Option<()> {
            let x = x?;
            found = Some(found.map_or(x, |f| hull(f, x)));
            Some(())
        };
        // Blocks entered at their end, with whether every lane active at the point is active
        // there (EXEC was only narrowed since).
        let mut seen: HashSet<(usize, bool)> = HashSet::new();
        let mut work = vec![(b, end, true)];
        while let Some((b, end, mut same_exec)) = work.pop() {
            let start = flow.blocks[b].start;
            *budget = budget.checked_sub((end - start) as u64 + 1)?;
            let mut killed = false;
            for i in (start..end).rev() {
                if self.writes(i, r) {
                    add(self.written(i, r, budget, depth + 1))?;
                    if matches!(r, Reg::Sgpr(_)) || same_exec || i < self.whole {
                        killed = true;
                        break;
                    }
                }
                // Past a guard, the lanes still active are those whose value passed it.
                if let (true, Reg::Vgpr(v)) = (same_exec, r) {
                    if let Some(passed) = self.guard(i, v, budget, depth) {
                        let before = self.reaching(b, i, r, budget, depth + 1)?;
                        if let Some(x) = intersection(before, passed) {
                            add(Some(x))?;
                        }
                        killed = true;
                        break;
                    }
                }
                let inst = &self.program.instructions[i].item;
                // A merge gives a lane the EXEC bit of the other context.
                if inst.writes_exec() && !narrows_exec(inst) || inst.opcode == Opcode::Merge {
                    same_exec = false;
                }
            }
            if killed {
                continue;
            }
            if b == entry {
                let launch = self.values.launch();
                add(match r {
                    Reg::Sgpr(s) => launch.entry_sgpr_range(s),
                    Reg::Vgpr(v) => launch.entry_vgpr_range(v),
                })?;
            }
            for &p in &flow.pred[b] {
                if flow.reachable[p] && seen.insert((p, same_exec)) {
                    work.push((p, flow.blocks[p].end, same_exec));
                }
            }
        }
        found
    }

    /// The values VGPR `v` may hold in a lane still active after instruction `i`, where `i`
    /// narrows EXEC to the lanes for which an integer compare of `v` with a value known exactly
    /// gave one result: `s_and_saveexec_b64 s[0:1], vcc` or `s_and_b64 exec, exec, vcc` keep
    /// the lanes where it held, `s_andn2_b64 exec, exec, vcc` those where it did not (clang's
    /// `if (0 < n)` around a loop that counts n down). The compare is earlier in `i`'s block,
    /// with neither `v`, the mask nor EXEC written between (so a lane inactive at the compare,
    /// whose bit it cleared, is not kept either). `None` where `i` is no such guard, or says
    /// nothing a range can hold.
    fn guard(&mut self, i: usize, v: u8, budget: &mut u64, depth: u32) -> Option<Range> {
        use Opcode::*;
        let inst = &self.program.instructions[i].item;
        let exec = |k: usize| inst.src(k) == Some(Operand::ExecLo);
        let (mask, holds) = match inst.opcode {
            SAndSaveexecB64 => (inst.src(0)?, true),
            SAndB64 if inst.dst == Some(Operand::ExecLo) && exec(0) => (inst.src(1)?, true),
            SAndB64 if inst.dst == Some(Operand::ExecLo) && exec(1) => (inst.src(0)?, true),
            SAndn2B64 if inst.dst == Some(Operand::ExecLo) && exec(0) => (inst.src(1)?, false),
            _ => return None,
        };
        let c = self.mask_source(i, mask, Some(v))?;
        let cmp = &self.program.instructions[c].item;
        // The compare reads v, or v plus a constant (clang tests `(uint)d < 12u` as
        // `d - 1 < 11` before `for (k = 0; k < d; k++)`).
        let (value_first, other, w) = match (cmp.src(0)?, cmp.src(1)?) {
            (Operand::Vgpr(w), other) => (true, other, w),
            (other, Operand::Vgpr(w)) => (false, other, w),
            _ => return None,
        };
        let plus = if w == v {
            0
        } else {
            self.plus_constant(c, w, v)?
        };
        let (k, k1) = self.operand(c, other, budget, depth + 1)?;
        if k != k1 {
            return None;
        }
        let (lo, hi) = passing(cmp.opcode, value_first, holds, k)?;
        let (lo, hi) = (lo.wrapping_sub(plus), hi.wrapping_sub(plus));
        (lo <= hi).then_some((lo, hi))
    }

    /// K where VGPR `w` holds `v + K` in every lane active at instruction `at`: the last write
    /// of `w` before `at` in its block is `v_add_u32 w, v, K` (or `v_sub_u32 w, v, K`), with
    /// no write of `v`, EXEC, `split` or `merge` between.
    fn plus_constant(&self, at: usize, w: u8, v: u8) -> Option<u32> {
        use Opcode::*;
        let insts = &self.program.instructions;
        let start = self.flow.blocks[self.flow.block_of(at)].start;
        let def = (start..at)
            .rev()
            .find(|&i| vgprs_written(&insts[i].item).any(|x| x == w))?;
        let between = |i: usize| {
            let inst = &insts[i].item;
            writes_exec_or_split_mask(inst) || vgprs_written(inst).any(|x| x == v)
        };
        if (def + 1..at).any(between) {
            return None;
        }
        let inst = &insts[def].item;
        if !plain(inst) {
            return None;
        }
        match (inst.opcode, inst.src(0)?, inst.src(1)?) {
            (VAddU32, Operand::Vgpr(x), k) | (VAddU32, k, Operand::Vgpr(x)) if x == v => {
                k.constant_value32()
            }
            (VSubU32, Operand::Vgpr(x), k) if x == v => Some(k.constant_value32()?.wrapping_neg()),
            _ => None,
        }
    }

    /// The instruction before `at` in its block that wrote mask `op` (both halves, as its
    /// `sdst`: a compare), with no write of EXEC, `split` or `merge` between (so the lanes
    /// active at `at` ran it) nor of VGPR `kept` (what it read there is still there). `None`
    /// where another instruction wrote the mask, or none in the block did.
    fn mask_source(&self, at: usize, op: Operand, kept: Option<u8>) -> Option<usize> {
        let mask: Vec<ScalarReg> = registers(op, 2).collect();
        for i in (self.flow.blocks[self.flow.block_of(at)].start..at).rev() {
            let inst = &self.program.instructions[i].item;
            let defs = effects(inst).defs;
            if mask.iter().any(|&m| defs.contains(m)) {
                let written: Vec<ScalarReg> = inst
                    .sdst
                    .map(|w| registers(w, 2).collect())
                    .unwrap_or_default();
                return (written == mask && plain(inst)).then_some(i);
            }
            let rewrites = |v| vgprs_written(inst).any(|w| w == v);
            if writes_exec_or_split_mask(inst) || kept.is_some_and(rewrites) {
                return None;
            }
        }
        None
    }

    fn writes(&self, i: usize, r: Reg) -> bool {
        let inst = &self.program.instructions[i].item;
        match r {
            Reg::Sgpr(s) => effects(inst).defs.contains(s),
            Reg::Vgpr(v) => vgprs_written(inst).any(|w| w == v),
        }
    }

    /// The range definition `d` writes into `r`.
    fn written(&mut self, d: usize, r: Reg, budget: &mut u64, depth: u32) -> Option<Range> {
        if let Some(&x) = self.written.get(&(d, r)) {
            return x;
        }
        if !self.open.insert((d, r)) {
            return None;
        }
        // What is not followed may hold anything: a load, or a value that depends on itself.
        let x = self.evaluate(d, r, budget, depth).or(Some(ANY));
        self.open.remove(&(d, r));
        self.written.insert((d, r), x);
        x
    }

    fn operand(&mut self, at: usize, op: Operand, budget: &mut u64, depth: u32) -> Option<Range> {
        match op {
            Operand::Sgpr(s) => self.before(at, Reg::Sgpr(s), budget, depth),
            Operand::Vgpr(v) => self.before(at, Reg::Vgpr(v), budget, depth),
            _ => op.constant_value32().map(|k| (k, k)),
        }
    }

    fn evaluate(&mut self, d: usize, r: Reg, budget: &mut u64, depth: u32) -> Option<Range> {
        use Opcode::*;
        let inst = &self.program.instructions[d].item;
        let half = match (r, inst.dst?) {
            (Reg::Sgpr(s), Operand::Sgpr(base)) => s.checked_sub(base)?,
            (Reg::Vgpr(v), Operand::Vgpr(base)) => v.checked_sub(base)?,
            _ => return None,
        };
        if !plain(inst) || half != 0 {
            return None;
        }
        if inst.opcode == VMadU64U32 {
            // The low dword of a * b + c (64 bits) is a * b + c's low dword when that fits.
            let [a, b, c] = self.sources(d, 3, budget, depth)?;
            return add(mul(a, b)?, c);
        }
        let arity = fold::arity(inst.opcode)?;
        let s = self.sources(d, arity, budget, depth)?;
        let bit = if fold::reads_mask(inst.opcode) {
            self.mask_bit(d, inst.src(2)?, budget, depth)
        } else {
            Some(false)
        };
        if s[..arity].iter().all(|x| x.0 == x.1) {
            if let Some(k) = bit.and_then(|bit| fold::alu(inst.opcode, s.map(|x| x.0), bit)) {
                return Some((k, k));
            }
        }
        let [a, b, c] = s;
        match inst.opcode {
            SMovB32 | VMovB32 => Some(a),
            SNotB32 | VNotB32 => Some((!a.1, !a.0)),
            SAddU32 | SAddI32 | VAddU32 => add(a, b),
            SSubU32 | SSubI32 | VSubU32 => sub(a, b),
            VSubrevU32 => sub(b, a),
            SMulI32 | VMulLoU32 => mul(a, b),
            VMulU32U24 => mul(u24(a)?, u24(b)?),
            VMadU32U24 => add(mul(u24(a)?, u24(b)?)?, c),
            SLshlB32 => shl(a, b),
            VLshlrevB32 => shl(b, a),
            SLshrB32 => shr(a, b),
            VLshrrevB32 => shr(b, a),
            SAndB32 | VAndB32 => Some((0, a.1.min(b.1))),
            SMinU32 | VMinU32 => Some((a.0.min(b.0), a.1.min(b.1))),
            SMaxU32 | VMaxU32 => Some((a.0.max(b.0), a.1.max(b.1))),
            // Values of one sign order alike signed and unsigned.
            SMinI32 | VMinI32 if same_sign(a, b) => Some((a.0.min(b.0), a.1.min(b.1))),
            SMaxI32 | VMaxI32 if same_sign(a, b) => Some((a.0.max(b.0), a.1.max(b.1))),
            VCndmaskB32 => Some(match bit {
                Some(true) => b,
                Some(false) => a,
                None => hull(a, b),
            }),
            VAddcU32 => add(add(a, b)?, bit.map_or((0, 1), |c| (c.into(), c.into()))),
            _ => None,
        }
    }

    /// The ranges of the first `n` sources of instruction `d`.
    fn sources(&mut self, d: usize, n: usize, budget: &mut u64, depth: u32) -> Option<[Range; 3]> {
        let mut s = [(0, 0); 3];
        for (k, x) in s.iter_mut().enumerate().take(n) {
            let op = self.program.instructions[d].item.src(k)?;
            *x = self.operand(d, op, budget, depth)?;
        }
        Some(s)
    }

    /// The bit of mask `op` that instruction `d` reads for a lane active there, where every
    /// such lane reads the same one: the mask is the result of an integer compare of values
    /// known exactly, earlier in `d`'s block with no write of EXEC between (so the compare ran
    /// for the same lanes, and wrote them that result).
    fn mask_bit(&mut self, d: usize, op: Operand, budget: &mut u64, depth: u32) -> Option<bool> {
        let i = self.mask_source(d, op, None)?;
        let [a, b, _] = self.sources(i, 2, budget, depth)?;
        if a.0 != a.1 || b.0 != b.1 {
            return None;
        }
        fold::compare(self.program.instructions[i].item.opcode, a.0, b.0)
    }
}

/// The values a lane's `x` may hold where the integer compare `op` of `x` with `k` (`x` its
/// first source if `x_first`) gave `result`, as one range of unsigned values; `None` where
/// they are not one range (a signed order around zero, an inequality with a value inside the
/// unsigned numbers) or the compare is not an integer one.
fn passing(op: Opcode, x_first: bool, result: bool, k: u32) -> Option<Range> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    // The result as a relation of x to k: which orderings of (x, k) pass.
    fold::compare(op, 0, 0)?;
    let passes = |o: std::cmp::Ordering| {
        let (a, b) = match (o, x_first) {
            (Less, true) | (Greater, false) => (0, 1),
            (Equal, _) => (1, 1),
            (Greater, true) | (Less, false) => (1, 0),
        };
        // Two values in that order, in the compare's signedness: only the order matters.
        fold::compare(op, a, b) == Some(result)
    };
    let (lt, eq, gt) = (passes(Less), passes(Equal), passes(Greater));
    let signed = fold::compare(op, u32::MAX, 0) == fold::compare(op, 0, 1);
    // The passing values of x in the compare's own order, as numbers.
    let (lo, hi): (i64, i64) = match (lt, eq, gt) {
        (true, true, true) => return None,
        // Every value but k, in either signedness: one range where k is an end of the unsigned
        // ones (clang's `v_cmp_ne_u32 vcc, 0, v` before a loop that counts v down to 0).
        (true, false, true) => {
            return match k {
                0 => Some((1, u32::MAX)),
                u32::MAX => Some((0, u32::MAX - 1)),
                _ => None,
            }
        }
        (true, eq, false) => (i64::MIN, number_as(k, signed) - i64::from(!eq)),
        (false, eq, true) => (number_as(k, signed) + i64::from(!eq), i64::MAX),
        (false, true, false) => (number_as(k, signed), number_as(k, signed)),
        _ => return None,
    };
    let (min, max) = type_range(signed);
    let (lo, hi) = (lo.max(min), hi.min(max));
    if lo > hi {
        return None;
    }
    // Unsigned values are one range where the signed ones do not cross from -1 to 0.
    if signed && lo < 0 && hi >= 0 {
        return None;
    }
    Some((lo as u32, hi as u32))
}

/// `v` read as a signed or unsigned 32-bit number.
pub fn number_as(v: u32, signed: bool) -> i64 {
    if signed {
        i64::from(v as i32)
    } else {
        i64::from(v)
    }
}

/// The least and the most signed or unsigned 32-bit number.
pub fn type_range(signed: bool) -> (i64, i64) {
    if signed {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (0, i64::from(u32::MAX))
    }
}

/// Whether every value of both ranges has the same sign bit.
fn same_sign(a: Range, b: Range) -> bool {
    let sign = |x: u32| x >> 31;
    sign(a.0) == sign(a.1) && sign(b.0) == sign(b.1) && sign(a.0) == sign(b.0)
}

/// The values in both ranges, if any.
fn intersection(a: Range, b: Range) -> Option<Range> {
    let x = (a.0.max(b.0), a.1.min(b.1));
    (x.0 <= x.1).then_some(x)
}

/// The 32-bit value of every number in `lo..=hi`, if they all wrap around alike (`n + ~i`,
/// clang's `n - 1 - i`, wraps for every lane).
fn wrapped(lo: i64, hi: i64) -> Option<Range> {
    let wraps = lo.div_euclid(1 << 32);
    (hi.div_euclid(1 << 32) == wraps).then(|| {
        let base = wraps << 32;
        ((lo - base) as u32, (hi - base) as u32)
    })
}

/// `inst` changes which lanes the context runs: it writes EXEC, or it is a `split` or `merge`.
pub fn writes_exec_or_split_mask(inst: &Instruction) -> bool {
    inst.writes_exec() || matches!(inst.opcode, Opcode::Split | Opcode::Merge)
}

/// `inst` leaves in EXEC only lanes that were in it: `s_and_saveexec_b64`, `s_and_b64 exec,
/// exec, m`, `s_andn2_b64 exec, exec, m` (an `if`'s and a loop's narrowing), `v_cmpx_*`.
pub fn narrows_exec(inst: &Instruction) -> bool {
    use Opcode::*;
    let exec_first = inst.src(0) == Some(Operand::ExecLo);
    let exec_either = exec_first || inst.src(1) == Some(Operand::ExecLo);
    match inst.opcode {
        SAndSaveexecB64 => true,
        SAndB64 => inst.dst == Some(Operand::ExecLo) && exec_either,
        SAndn2B64 => inst.dst == Some(Operand::ExecLo) && exec_first,
        op => op.format() == pws_isa::Format::Vopc && op.mnemonic().starts_with("v_cmpx_"),
    }
}

fn add(a: Range, b: Range) -> Option<Range> {
    let (a, b) = (
        (i64::from(a.0), i64::from(a.1)),
        (i64::from(b.0), i64::from(b.1)),
    );
    wrapped(a.0 + b.0, a.1 + b.1)
}

fn sub(a: Range, b: Range) -> Option<Range> {
    let (a, b) = (
        (i64::from(a.0), i64::from(a.1)),
        (i64::from(b.0), i64::from(b.1)),
    );
    wrapped(a.0 - b.1, a.1 - b.0)
}

fn mul(a: Range, b: Range) -> Option<Range> {
    Some((a.0 * b.0, a.1.checked_mul(b.1)?))
}

fn u24(a: Range) -> Option<Range> {
    (a.1 < 1 << 24).then_some(a)
}

/// `a` shifted left by the known `k`.
fn shl(a: Range, k: Range) -> Option<Range> {
    if k.0 != k.1 || k.0 >= 32 {
        return None;
    }
    (a.1.leading_zeros() >= k.0).then(|| (a.0 << k.0, a.1 << k.0))
}

/// `a` shifted right by the known `k`.
fn shr(a: Range, k: Range) -> Option<Range> {
    (k.0 == k.1 && k.0 < 32).then(|| (a.0 >> k.0, a.1 >> k.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::launch_values::LaunchValues;

    fn abi() -> String {
        pws_isa::testing::clang_descriptor("k", 8, 16)
    }

    /// The range of VGPR `v` at the end of the block ending in `s_endpgm`, for a launch of
    /// `groups` workgroups of `workgroup` work-items.
    fn vgpr_at_endpgm(src: &str, v: u8, groups: u32, workgroup: u32) -> Option<Range> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let end = program
            .instructions
            .iter()
            .position(|l| l.item.opcode == Opcode::SEndpgm)
            .unwrap();
        let launch = LaunchValues::geometry(&program, groups, workgroup);
        let mut values = ScalarValues::new(&program, &flow, &launch);
        let whole = dispatch_prefix(&program, &flow);
        LaneRanges::new(&program, &flow, &mut values, whole).vgpr_at_end(
            flow.block_of(end),
            v,
            &mut 1_000_000,
        )
    }

    #[test]
    fn the_global_id_ranges_over_the_grid() {
        // clang-14 -O2's get_global_id(0): s8 is the workgroup id, v0 the local id.
        let src = format!(
            "k:
s_load_dword s0, s[4:5], 0x4
v_mov_b32_e32 v1, 0
v_mov_b32_e32 v2, s8
s_waitcnt lgkmcnt(0)
s_and_b32 s0, s0, 0xffff
v_mad_u64_u32 v[0:1], s[0:1], s0, v2, v[0:1]
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 0, 4, 64), Some((0, 255)));
        // The second wavefront's lanes past the 100th hold ids that wrap at the workgroup's size.
        assert_eq!(vgpr_at_endpgm(&src, 0, 1, 100), Some((0, 99)));
        assert_eq!(vgpr_at_endpgm(&src, 0, 3, 100), Some((0, 299)));
        assert_eq!(vgpr_at_endpgm(&src, 2, 4, 64), Some((0, 3)));
        assert_eq!(vgpr_at_endpgm(&src, 5, 4, 64), None, "never written");
    }

    #[test]
    fn a_masked_write_keeps_what_other_lanes_held() {
        let src = format!(
            "k:
v_lshlrev_b32_e32 v3, 2, v0
v_cmp_gt_u32_e32 vcc, 8, v0
s_and_saveexec_b64 s[0:1], vcc
v_add_u32_e32 v3, vcc, 0x1000, v3
s_or_b64 exec, exec, s[0:1]
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 3, 1, 64), Some((0, 4096 + 252)));
    }

    #[test]
    fn a_merge_gives_back_lanes_a_context_had_disabled() {
        // The parent (lanes 0..7) drops lanes 0..3 from EXEC; the child (8..63) drops none,
        // and its EXEC still holds lanes 0..3, so the merge's union enables them again with
        // the values they held before the add.
        let src = format!(
            "k:
v_lshlrev_b32_e32 v3, 2, v0
v_cmp_gt_u32_e32 vcc, 8, v0
split vcc_lo, vcc_hi
v_cmp_gt_u32_e32 vcc, 4, v0
s_andn2_b64 exec, exec, vcc
v_add_u32_e32 v3, vcc, 0x1000, v3
merge
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 3, 1, 64), Some((0, 4096 + 252)));
        // Without the merge the add is the last write of every lane still enabled.
        let alone = src.replace("merge\n", "");
        assert_eq!(vgpr_at_endpgm(&alone, 3, 1, 64), Some((4096, 4096 + 252)));
    }

    #[test]
    fn wrap_around_and_self_dependence_are_unknown() {
        let src = format!(
            "k:
s_mov_b32 s9, 0x8000000
v_mul_lo_u32 v1, v0, s9
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 1, 1, 64), None);
        // n - 1 - i as clang writes it, n + ~i, wraps around for every lane alike; 60 + ~i
        // does not for i = 0..63.
        let src = format!(
            "k:
v_not_b32_e32 v1, v0
v_add_u32_e32 v2, vcc, 1000, v1
v_add_u32_e32 v3, vcc, 60, v1
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 2, 1, 64), Some((936, 999)));
        assert_eq!(vgpr_at_endpgm(&src, 3, 1, 64), None);
        let src = format!(
            "k:
v_mov_b32_e32 v1, 0
.Ll:
v_add_u32_e32 v1, vcc, 1, v1
s_cbranch_scc1 .Ll
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 1, 1, 64), None);
    }

    #[test]
    fn a_guard_bounds_the_lanes_that_pass_it() {
        // A value no operation here follows (a scrambling product), then clang's `if (0 < x)`
        // and `min(x, 16)`: 1..=16 inside; after the join, the other lanes' v2 was never
        // written.
        let src = format!(
            "k:
s_mov_b32 s9, 0x9e3779b9
v_mul_lo_u32 v1, v0, s9
v_mov_b32_e32 v3, v1
v_cmp_lt_i32_e32 vcc, 0, v1
s_and_saveexec_b64 s[0:1], vcc
v_min_u32_e32 v2, 16, v1
s_endpgm
{}",
            abi()
        );
        assert_eq!(vgpr_at_endpgm(&src, 1, 1, 64), Some((1, 0x7fff_ffff)));
        assert_eq!(vgpr_at_endpgm(&src, 2, 1, 64), Some((1, 16)));
        assert_eq!(vgpr_at_endpgm(&src, 3, 1, 64), None, "another register");
        // clang -O1 writes the same with signed min and max.
        let signed = src.replace(
            "v_min_u32_e32 v2, 16, v1",
            "v_min_i32_e32 v2, 16, v1\nv_max_i32_e32 v2, 3, v2",
        );
        assert_eq!(vgpr_at_endpgm(&signed, 2, 1, 64), Some((3, 16)));
        let any_sign = signed.replace("vcc, 0, v1", "vcc, -5, v1");
        assert_eq!(vgpr_at_endpgm(&any_sign, 2, 1, 64), None);
        let joined = src.replace("s_endpgm", "s_or_b64 exec, exec, s[0:1]\ns_endpgm");
        assert_eq!(vgpr_at_endpgm(&joined, 2, 1, 64), None);
        // The lanes where it failed: 0 and the negative values, not one range.
        let failed = src.replace(
            "s_and_saveexec_b64 s[0:1], vcc",
            "s_mov_b64 s[0:1], exec\ns_andn2_b64 exec, exec, vcc",
        );
        assert_eq!(vgpr_at_endpgm(&failed, 1, 1, 64), None);
        // Written between the compare and the narrowing: the compare says nothing of it.
        let rewritten = src.replace(
            "s_and_saveexec_b64",
            "v_add_u32_e32 v1, vcc, 5, v1\ns_and_saveexec_b64",
        );
        assert_eq!(vgpr_at_endpgm(&rewritten, 2, 1, 64), Some((0, 16)));
    }

    #[test]
    fn compares_pass_one_range_of_values() {
        use Opcode::*;
        assert_eq!(
            passing(VCmpLtI32, false, true, 0),
            Some((1, 0x7fff_ffff)),
            "0 < x"
        );
        assert_eq!(
            passing(VCmpLtU32, true, true, 100),
            Some((0, 99)),
            "x < 100"
        );
        assert_eq!(passing(VCmpLtU32, true, false, 100), Some((100, u32::MAX)));
        assert_eq!(
            passing(VCmpGeU32, false, true, 100),
            Some((0, 100)),
            "100 >= x"
        );
        assert_eq!(
            passing(VCmpLtI32, true, true, 5),
            None,
            "negative and 0..=4"
        );
        assert_eq!(
            passing(VCmpLeI32, true, true, -3i32 as u32),
            Some((0x8000_0000, -3i32 as u32))
        );
        assert_eq!(
            passing(VCmpGtI32, true, true, -1i32 as u32),
            Some((0, 0x7fff_ffff))
        );
        assert_eq!(passing(VCmpEqI32, true, true, 7), Some((7, 7)));
        assert_eq!(passing(VCmpNeU32, true, true, 7), None);
        assert_eq!(passing(VCmpEqU32, true, false, 7), None);
        assert_eq!(
            passing(VCmpNeU32, false, true, 0),
            Some((1, u32::MAX)),
            "0 != x"
        );
        assert_eq!(passing(VCmpNeI32, true, true, 0), Some((1, u32::MAX)));
        assert_eq!(
            passing(VCmpEqI32, true, false, u32::MAX),
            Some((0, u32::MAX - 1))
        );
        assert_eq!(
            passing(VCmpGtU32, true, true, u32::MAX),
            None,
            "nothing passes"
        );
        assert_eq!(passing(VAddU32, true, true, 7), None);
    }
}
