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
    /// wavefront.
    pub fn vgpr_at_end(&mut self, b: usize, v: u8, budget: &mut u64) -> Option<Range> {
        self.reaching(b, self.flow.blocks[b].end, Reg::Vgpr(v), budget, 0)
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
        let x = self.evaluate(d, r, budget, depth);
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
            VMinU32 => Some((a.0.min(b.0), a.1.min(b.1))),
            VMaxU32 => Some((a.0.max(b.0), a.1.max(b.1))),
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
        let mask: Vec<ScalarReg> = registers(op, 2).collect();
        for i in (self.flow.blocks[self.flow.block_of(d)].start..d).rev() {
            let inst = &self.program.instructions[i].item;
            let defs = effects(inst).defs;
            if mask.iter().any(|&m| defs.contains(m)) {
                let written: Vec<ScalarReg> = inst
                    .sdst
                    .map(|w| registers(w, 2).collect())
                    .unwrap_or_default();
                if written != mask || !plain(inst) {
                    return None;
                }
                let [a, b, _] = self.sources(i, 2, budget, depth)?;
                if a.0 != a.1 || b.0 != b.1 {
                    return None;
                }
                return fold::compare(inst.opcode, a.0, b.0);
            }
            if writes_exec_or_split_mask(inst) {
                return None;
            }
        }
        None
    }
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
}
