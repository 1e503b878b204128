//! Whether a loop ends once a compare has given one result, whatever the lanes' data: the
//! uniform half of an exit test, through the lane masks LLVM builds for a divergent loop.
//!
//! clang lowers `for (i = 0; i < 100; i++) { if (x < eps) break; ... }` to a loop whose exit
//! is an EXEC branch, with the counter's test folded into the mask of lanes that leave:
//!
//! ```text
//! s_cmpk_gt_u32 s6, 0x62           ; the counter's test
//! s_cselect_b64 s[8:9], -1, 0      ; ... as a mask of all lanes
//! v_cmp_gt_f32_e32 vcc, s7, v2     ; the data's test
//! s_or_b64 s[8:9], s[8:9], vcc     ; either one ends a lane's loop
//! s_and_b64 s[8:9], exec, s[8:9]
//! s_or_b64 s[4:5], s[8:9], s[4:5]  ; the lanes that have left so far
//! s_andn2_b64 exec, exec, s[4:5]
//! s_cbranch_execnz .LBB0_2
//! ```
//!
//! When the test `break`s before the counter steps, the step and the compare sit in a block
//! only the lanes that go on reach, skipped when none does, and the mask of leaving lanes is
//! built across blocks. [`leaves_when`] follows one iteration from the header through the
//! loop's blocks in flow order, and shows that no state in which the wavefront can be reaches
//! the header again once the compare has given the result: the loop leaves on that iteration
//! or before. Where paths join, their states are kept apart by a variable that says which
//! path came (a uniform choice, taken per lane: more than can happen, so nothing is lost
//! for soundness). A loop nested in it is not followed: past it, whatever it writes may hold
//! anything.
//!
//! The masks are followed for one lane, any lane: each 64-bit mask is that lane's bit, a
//! Boolean function (a decision diagram, [`Bdd`]) of variables that stand for what is not
//! known (the lane's bits at the iteration's start, a vector compare's result, a mask written
//! by an instruction not modelled here). A uniform branch on a mask says something of every
//! lane: taking `s_cbranch_execz` means this lane's EXEC bit is 0, which constrains the
//! variables; going on at `s_cbranch_execnz` needs some lane's bit to be 1, impossible if this
//! lane's is 0 under the constraints, as it then is for every lane. A state is dropped when a
//! branch it takes is impossible so.
//!
//! Where EXEC is non-zero whenever an iteration starts ([`exec_nonzero`]), some lane had its
//! EXEC bit set then, and it obeys the constraints as every lane does: a state whose
//! constraints no lane active at the start can meet is dropped too. That is what ends a
//! uniform loop whose exit test clang keeps as a mask (`s_cselect_b64 s[0:1], -1, 0; s_and_b64
//! vcc, exec, s[0:1]`, then `s_cbranch_vccnz` after an inner loop): with EXEC = 0 it would
//! never leave.

use std::collections::HashMap;

use pws_isa::{Instruction, Opcode, Operand, Program};

use super::lane_ranges::{narrows_exec, writes_exec_or_split_mask};
use crate::flow::{EdgeKind, Flow};
use crate::scalar::{effects, registers, ScalarReg, ScalarSet, EXEC_LO, SCC};

/// Decision-diagram nodes per question.
const MAX_NODES: usize = 1 << 16;

/// A lane's bit of a mask: a node of the [`Bdd`].
type Bit = u32;
const FALSE: Bit = 0;
const TRUE: Bit = 1;

/// Too much to follow: the question is left open.
struct GiveUp;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    And,
    Or,
    Xor,
}

/// The bitwise operations of the scalar ALU's 64-bit logic and saveexec instructions.
#[derive(Clone, Copy)]
enum Logic {
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
    Nand,
    Nor,
    Xnor,
}

impl Logic {
    fn of(op: Opcode) -> Option<Logic> {
        use Opcode::*;
        Some(match op {
            SAndB64 | SAndSaveexecB64 => Logic::And,
            SOrB64 | SOrSaveexecB64 => Logic::Or,
            SXorB64 | SXorSaveexecB64 => Logic::Xor,
            SAndn2B64 | SAndn2SaveexecB64 => Logic::Andn2,
            SOrn2B64 | SOrn2SaveexecB64 => Logic::Orn2,
            SNandB64 | SNandSaveexecB64 => Logic::Nand,
            SNorB64 | SNorSaveexecB64 => Logic::Nor,
            SXnorB64 | SXnorSaveexecB64 => Logic::Xnor,
            _ => return None,
        })
    }
}

/// A reduced ordered binary decision diagram of the lane's bits: node `n` is `if var then hi
/// else lo`, shared and unique, so that a function is zero exactly when it is [`FALSE`].
struct Bdd {
    nodes: Vec<(u32, Bit, Bit)>,
    unique: HashMap<(u32, Bit, Bit), Bit>,
    memo: HashMap<(Op, Bit, Bit), Bit>,
    vars: u32,
    /// Operations computed since the walk last charged its budget for them.
    steps: u64,
}

impl Bdd {
    fn new() -> Bdd {
        Bdd {
            // The terminals, with a variable after every other.
            nodes: vec![(u32::MAX, FALSE, FALSE), (u32::MAX, TRUE, TRUE)],
            unique: HashMap::new(),
            memo: HashMap::new(),
            vars: 0,
            steps: 0,
        }
    }

    fn node(&mut self, var: u32, lo: Bit, hi: Bit) -> Result<Bit, GiveUp> {
        if lo == hi {
            return Ok(lo);
        }
        if let Some(&n) = self.unique.get(&(var, lo, hi)) {
            return Ok(n);
        }
        if self.nodes.len() == MAX_NODES {
            return Err(GiveUp);
        }
        let n = self.nodes.len() as Bit;
        self.nodes.push((var, lo, hi));
        self.unique.insert((var, lo, hi), n);
        Ok(n)
    }

    fn fresh(&mut self) -> Result<Bit, GiveUp> {
        self.vars += 1;
        self.node(self.vars - 1, FALSE, TRUE)
    }

    fn apply(&mut self, op: Op, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        let (a, b) = (a.min(b), a.max(b));
        let done = match op {
            Op::And if a == FALSE => Some(FALSE),
            Op::And if a == TRUE || a == b => Some(b),
            Op::Or if a == TRUE => Some(TRUE),
            Op::Or if a == FALSE || a == b => Some(b),
            Op::Xor if a == FALSE => Some(b),
            Op::Xor if a == b => Some(FALSE),
            _ => None,
        };
        if let Some(r) = done {
            return Ok(r);
        }
        if let Some(&r) = self.memo.get(&(op, a, b)) {
            return Ok(r);
        }
        self.steps += 1;
        let (va, a0, a1) = self.nodes[a as usize];
        let (vb, b0, b1) = self.nodes[b as usize];
        let v = va.min(vb);
        let (a0, a1) = if va == v { (a0, a1) } else { (a, a) };
        let (b0, b1) = if vb == v { (b0, b1) } else { (b, b) };
        let lo = self.apply(op, a0, b0)?;
        let hi = self.apply(op, a1, b1)?;
        let r = self.node(v, lo, hi)?;
        self.memo.insert((op, a, b), r);
        Ok(r)
    }

    fn and(&mut self, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        self.apply(Op::And, a, b)
    }

    fn or(&mut self, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        self.apply(Op::Or, a, b)
    }

    fn xor(&mut self, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        self.apply(Op::Xor, a, b)
    }

    fn not(&mut self, a: Bit) -> Result<Bit, GiveUp> {
        self.apply(Op::Xor, a, TRUE)
    }

    /// `a op b`, bit by bit.
    fn logic(&mut self, op: Logic, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        let (r, invert) = match op {
            Logic::And => (self.and(a, b)?, false),
            Logic::Or => (self.or(a, b)?, false),
            Logic::Xor => (self.xor(a, b)?, false),
            Logic::Andn2 => {
                let nb = self.not(b)?;
                (self.and(a, nb)?, false)
            }
            Logic::Orn2 => {
                let nb = self.not(b)?;
                (self.or(a, nb)?, false)
            }
            Logic::Nand => (self.and(a, b)?, true),
            Logic::Nor => (self.or(a, b)?, true),
            Logic::Xnor => (self.xor(a, b)?, true),
        };
        if invert {
            self.not(r)
        } else {
            Ok(r)
        }
    }

    /// `if p then a else b`.
    fn ite(&mut self, p: Bit, a: Bit, b: Bit) -> Result<Bit, GiveUp> {
        if a == b {
            return Ok(a);
        }
        let np = self.not(p)?;
        let pa = self.and(p, a)?;
        let nb = self.and(np, b)?;
        self.or(pa, nb)
    }
}

/// One lane's masks and the uniform state along a path.
#[derive(Clone)]
struct Lane {
    /// Keyed by a mask's low 32-bit register; a mask not here holds a variable, made when it
    /// is first read.
    masks: HashMap<ScalarReg, Bit>,
    exec: Bit,
    scc: Option<bool>,
    /// The assignments of the variables the uniform branches taken so far allow.
    possible: Bit,
    /// Some lane's assignment satisfies this and `possible` (TRUE: any lane; the EXEC bit at
    /// the iteration's start when EXEC was non-zero then).
    some_lane: Bit,
    /// For a lane's own exit test ([`lane_leaves_when`]): the lane ran the compare with EXEC
    /// set and it did not end the lane's loop.
    went_on: Bit,
}

impl Lane {
    fn start(bdd: &mut Bdd, exec_nonzero: bool) -> Result<Lane, GiveUp> {
        let exec = bdd.fresh()?;
        Ok(Lane {
            masks: HashMap::new(),
            exec,
            scc: None,
            possible: TRUE,
            some_lane: if exec_nonzero { exec } else { TRUE },
            went_on: FALSE,
        })
    }

    /// Whether some lane can meet the constraints.
    fn feasible(&self, bdd: &mut Bdd) -> Result<bool, GiveUp> {
        Ok(bdd.and(self.possible, self.some_lane)? != FALSE)
    }

    fn read(&mut self, bdd: &mut Bdd, op: Option<Operand>, opcode: Opcode) -> Result<Bit, GiveUp> {
        let Some(op) = op else {
            return bdd.fresh();
        };
        if op == Operand::ExecLo {
            return Ok(self.exec);
        }
        match op.constant_value64(opcode.sign_extends_literal64()) {
            Some(0) => return Ok(FALSE),
            Some(u64::MAX) => return Ok(TRUE),
            // Other constants differ between lanes.
            Some(_) => return bdd.fresh(),
            None => {}
        }
        let Some(r) = registers(op, 2).next() else {
            return bdd.fresh();
        };
        if let Some(&b) = self.masks.get(&r) {
            return Ok(b);
        }
        let b = bdd.fresh()?;
        self.masks.insert(r, b);
        Ok(b)
    }

    fn forget(&mut self, r: ScalarReg) {
        self.masks.remove(&r);
        self.masks.remove(&r.wrapping_sub(1));
    }

    fn write(&mut self, op: Operand, b: Bit) {
        if op == Operand::ExecLo {
            self.exec = b;
            return;
        }
        if let Some(r) = registers(op, 2).next() {
            self.forget(r);
            self.forget(r + 1);
            self.masks.insert(r, b);
        }
    }

    /// The uniform "`b` is non-zero" (SCC of a logic op), where the lanes decide it: zero when
    /// no lane's can be 1, non-zero when the lane [`Lane::some_lane`] promises has it 1.
    fn nonzero(&self, bdd: &mut Bdd, b: Bit) -> Result<Option<bool>, GiveUp> {
        let nb = bdd.not(b)?;
        let promised = bdd.and(self.possible, self.some_lane)?;
        Ok(if bdd.and(b, self.possible)? == FALSE {
            Some(false)
        } else if bdd.and(nb, promised)? == FALSE {
            Some(true)
        } else {
            None
        })
    }

    fn step(&mut self, bdd: &mut Bdd, inst: &Instruction) -> Result<(), GiveUp> {
        use Opcode::*;
        let op = inst.opcode;
        let result = match (op, Logic::of(op)) {
            (SMovB64, _) => Some(self.read(bdd, inst.src(0), op)?),
            (SNotB64, _) => {
                let a = self.read(bdd, inst.src(0), op)?;
                Some(bdd.not(a)?)
            }
            (_, Some(logic)) if op.is_saveexec() => {
                // D = EXEC, then EXEC = S0 op EXEC.
                let s = self.read(bdd, inst.src(0), op)?;
                let e = self.exec;
                let new = bdd.logic(logic, s, e)?;
                if let Some(d) = inst.dst {
                    self.write(d, e);
                }
                self.scc = self.nonzero(bdd, new)?;
                self.exec = new;
                return Ok(());
            }
            (_, Some(logic)) => {
                let a = self.read(bdd, inst.src(0), op)?;
                let b = self.read(bdd, inst.src(1), op)?;
                Some(bdd.logic(logic, a, b)?)
            }
            (SCselectB64, _) => {
                let a = self.read(bdd, inst.src(0), op)?;
                let b = self.read(bdd, inst.src(1), op)?;
                Some(match self.scc {
                    Some(true) => a,
                    Some(false) => b,
                    None => bdd.fresh()?,
                })
            }
            _ => None,
        };
        match (result, inst.dst) {
            (Some(b), Some(d)) => {
                if inst.writes_scc() {
                    self.scc = self.nonzero(bdd, b)?;
                }
                self.write(d, b);
            }
            _ => self.havoc(bdd, effects(inst).defs)?,
        }
        Ok(())
    }

    /// Forgets what `defs` held: it may now hold anything.
    fn havoc(&mut self, bdd: &mut Bdd, defs: ScalarSet) -> Result<(), GiveUp> {
        for r in defs.iter() {
            self.forget(r);
        }
        if defs.contains(SCC) {
            self.scc = None;
        }
        if defs.contains(EXEC_LO) || defs.contains(EXEC_LO + 1) {
            self.exec = bdd.fresh()?;
        }
        Ok(())
    }

    /// A state that covers both `self` and `other`: each of them, as a fresh variable says.
    fn merge(self, other: Lane, bdd: &mut Bdd) -> Result<Lane, GiveUp> {
        if self.masks == other.masks
            && self.exec == other.exec
            && self.scc == other.scc
            && self.went_on == other.went_on
        {
            return Ok(Lane {
                possible: bdd.or(self.possible, other.possible)?,
                ..self
            });
        }
        let p = bdd.fresh()?;
        let mut masks = HashMap::new();
        let keys: std::collections::BTreeSet<ScalarReg> = self
            .masks
            .keys()
            .chain(other.masks.keys())
            .copied()
            .collect();
        for r in keys {
            // A mask one side never touched holds its value from the iteration's start, which
            // that side would have made a variable for: any value.
            let a = match self.masks.get(&r) {
                Some(&a) => a,
                None => bdd.fresh()?,
            };
            let b = match other.masks.get(&r) {
                Some(&b) => b,
                None => bdd.fresh()?,
            };
            masks.insert(r, bdd.ite(p, a, b)?);
        }
        Ok(Lane {
            masks,
            exec: bdd.ite(p, self.exec, other.exec)?,
            scc: if self.scc == other.scc {
                self.scc
            } else {
                None
            },
            possible: bdd.ite(p, self.possible, other.possible)?,
            some_lane: self.some_lane,
            went_on: bdd.ite(p, self.went_on, other.went_on)?,
        })
    }

    /// The lane state after the block's branch goes `taken` (or falls through), or `None` if
    /// no wavefront can go that way.
    fn branch(
        &self,
        bdd: &mut Bdd,
        inst: &Instruction,
        taken: bool,
    ) -> Result<Option<Lane>, GiveUp> {
        use Opcode::*;
        let mut next = self.clone();
        let mask = match inst.opcode {
            SCbranchScc0 | SCbranchScc1 => {
                let want = (inst.opcode == SCbranchScc1) == taken;
                if self.scc.is_some_and(|scc| scc != want) {
                    return Ok(None);
                }
                next.scc = Some(want);
                return Ok(Some(next));
            }
            SCbranchVccz | SCbranchVccnz => {
                let vcc = registers(Operand::VccLo, 2).next();
                match vcc.and_then(|r| self.masks.get(&r)) {
                    Some(&vcc) => vcc,
                    None => return Ok(Some(next)),
                }
            }
            SCbranchExecz | SCbranchExecnz => self.exec,
            _ => return Ok(Some(next)),
        };
        let on_zero = matches!(inst.opcode, SCbranchVccz | SCbranchExecz);
        if on_zero == taken {
            // Every lane's bit is 0.
            let zero = bdd.not(mask)?;
            next.possible = bdd.and(next.possible, zero)?;
            Ok(next.feasible(bdd)?.then_some(next))
        } else {
            // Some lane's bit is 1: not if this lane's cannot be.
            Ok((bdd.and(mask, next.possible)? != FALSE).then_some(next))
        }
    }
}

/// For each block, whether EXEC is non-zero whenever a wavefront enters it. It is at the
/// kernel's entry (a wavefront has at least one lane). A branch on it establishes it
/// (`s_cbranch_execz` not taken, `s_cbranch_execnz` taken), and it follows through the masks
/// an `if` saves and restores: `s_and_saveexec_b64 s[0:1], vcc` saves a non-zero EXEC, and the
/// join's `s_or_b64 exec, exec, s[0:1]` makes EXEC non-zero again, whatever the `if` did to
/// it. Anything else that writes EXEC (`split` and `merge` among them) may leave it zero. LLVM
/// keeps the EXEC-skip branch around a region with a loop in it, so a loop inside a divergent
/// `if` is entered with EXEC non-zero too.
pub fn exec_nonzero(program: &Program, flow: &Flow) -> Vec<bool> {
    let on_entry = masks_on_entry(
        program,
        flow,
        nonzero_after,
        |b, entry, last, taken, mut out| {
            match (last, taken) {
                (Opcode::SCbranchExecz, false) | (Opcode::SCbranchExecnz, true) => {
                    out.insert(EXEC_LO)
                }
                (Opcode::SCbranchExecz, true) | (Opcode::SCbranchExecnz, false) => {
                    // With EXEC non-zero the branch for a zero EXEC is never followed: clang -O3
                    // can leave one in the kernel's first block, whose EXEC is the dispatcher's.
                    if out.contains(EXEC_LO) {
                        return None;
                    }
                    out = out.minus(ScalarSet::EXEC);
                    if let Some(done) = lanes_that_left(program, flow, b, entry) {
                        out.insert(done);
                    }
                }
                _ => {}
            }
            Some(out)
        },
    );
    on_entry
        .iter()
        .map(|s| s.is_none_or(|s| s.contains(EXEC_LO)))
        .collect()
}

/// The mask of the lanes that left a loop, where block `b` (entered with the masks `entry`
/// non-zero) removes them from EXEC with its last write of it, `s_andn2_b64 exec, exec, sX`,
/// while EXEC was non-zero, and keeps sX to its end: on the way out, where EXEC is zero, sX
/// holds every lane EXEC held, so it is non-zero too. That is LLVM's loop exit
/// (`s_or_b64 s[2:3], vcc, s[2:3]; s_andn2_b64 exec, exec, s[2:3]; s_cbranch_execnz`), and
/// the `s_or_b64 exec, exec, s[2:3]` after the loop gives a loop that follows it a non-zero
/// EXEC (a kernel's second workgroup-stride loop).
fn lanes_that_left(
    program: &Program,
    flow: &Flow,
    b: usize,
    entry: ScalarSet,
) -> Option<ScalarReg> {
    let block = flow.blocks[b].clone();
    let insts = &program.instructions;
    let at = block
        .clone()
        .rev()
        .find(|&i| effects(&insts[i].item).defs.contains(EXEC_LO))?;
    let inst = &insts[at].item;
    let (Opcode::SAndn2B64, Some(Operand::ExecLo), Some(Operand::ExecLo), Some(Operand::Sgpr(x))) = (
        inst.opcode,
        inst.sdst.or(inst.dst),
        inst.src(0),
        inst.src(1),
    ) else {
        return None;
    };
    let before = insts[block.start..at]
        .iter()
        .fold(entry, |set, i| nonzero_after(&i.item, set));
    let kept = (at + 1..block.end).all(|i| {
        let defs = effects(&insts[i].item).defs;
        !defs.contains(x) && !defs.contains(x + 1)
    });
    (before.contains(EXEC_LO) && kept).then_some(x)
}

/// Whether EXEC never holds a lane the dispatcher did not enable, anywhere in the program:
/// every write of EXEC keeps it within masks that are (a saved EXEC, a vector compare's
/// result, their conjunctions), as LLVM's control flow does when it narrows EXEC for an `if`
/// or a loop and restores it after. Then a lane disabled at dispatch (past the workgroup's
/// work-items) never runs an instruction, and a vector write while EXEC is still the
/// dispatcher's writes every lane that ever will ([`super::lane_ranges`]). A `split` keeps
/// EXEC, and a `merge` joins two EXECs that both are; any EXEC write not modelled answers
/// false.
pub fn exec_within_dispatch(program: &Program, flow: &Flow) -> bool {
    let on_entry = masks_on_entry(program, flow, within_after, |_, _, _, _, set| Some(set));
    on_entry.iter().enumerate().all(|(b, set)| {
        set.is_none_or(|mut set| {
            flow.blocks[b].clone().all(|i| {
                set = within_after(&program.instructions[i].item, set);
                set.contains(EXEC_LO)
            })
        })
    })
}

/// A must-analysis of 64-bit masks (by their low register): the set on entry to each block,
/// EXEC alone at the kernel's entry, `after` through each instruction, `on_edge` along each
/// edge (given the block, its set on entry, its last opcode and whether the edge is its
/// branch taken; `None` for an edge never followed), met by intersection where paths join;
/// `None` for a block no path reaches. A block is looked at
/// again only when its set shrinks.
fn masks_on_entry(
    program: &Program,
    flow: &Flow,
    after: impl Fn(&Instruction, ScalarSet) -> ScalarSet,
    on_edge: impl Fn(usize, ScalarSet, Opcode, bool, ScalarSet) -> Option<ScalarSet>,
) -> Vec<Option<ScalarSet>> {
    let mut on_entry: Vec<Option<ScalarSet>> = vec![None; flow.blocks.len()];
    let Some(&entry) = flow.order().first() else {
        return on_entry;
    };
    let mut start = ScalarSet::EMPTY;
    start.insert(EXEC_LO);
    on_entry[entry] = Some(start);
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        let Some(entry) = on_entry[b] else { continue };
        let mut set = entry;
        for i in flow.blocks[b].clone() {
            set = after(&program.instructions[i].item, set);
        }
        let last = program.instructions[flow.last(b)].item.opcode;
        for e in &flow.succ[b] {
            let Some(out) = on_edge(b, entry, last, e.kind == EdgeKind::Taken, set) else {
                continue;
            };
            let merged = on_entry[e.to].map_or(out, |there| there.intersection(out));
            if on_entry[e.to] != Some(merged) {
                on_entry[e.to] = Some(merged);
                work.push(e.to);
            }
        }
    }
    on_entry
}

/// The 64-bit masks within the dispatcher's EXEC after `inst`, given `set` before it.
fn within_after(inst: &Instruction, set: ScalarSet) -> ScalarSet {
    use Opcode::*;
    let op = inst.opcode;
    if matches!(op, Split | Merge) {
        // A split copies EXEC and the scalar registers into the new context; a merge ORs the
        // child's EXEC into the parent's and keeps the parent's registers. Both contexts
        // reach the merge along paths the analysis follows, so what holds there holds for
        // either, and for their EXECs' union.
        return set;
    }
    let within = |op: Option<Operand>| mask_in(inst, op, set, |v| v == 0);
    let exec = set.contains(EXEC_LO);
    let mut out = forget(set, effects(inst).defs);
    let mut mark = |op: Option<Operand>, holds: bool| {
        if let Some(r) = op.and_then(|d| registers(d, 2).next()).filter(|_| holds) {
            out.insert(r);
        }
    };
    if op.is_saveexec() {
        // D = EXEC; EXEC = S0 op EXEC.
        let s0 = within(inst.src(0));
        let new = match Logic::of(op) {
            Some(Logic::And) => exec || s0,
            Some(Logic::Or | Logic::Xor) => exec && s0,
            Some(Logic::Andn2) => s0,
            _ => false,
        };
        mark(inst.sdst.or(inst.dst), exec);
        mark(Some(Operand::ExecLo), new);
        return out;
    }
    if inst.is_vector() && op.format() == pws_isa::Format::Vopc {
        // A vector compare writes 0 for the lanes EXEC disables (and `v_cmpx` EXEC too).
        mark(inst.sdst, exec);
        mark(Some(Operand::ExecLo), exec);
        return out;
    }
    let (a, b) = (within(inst.src(0)), within(inst.src(1)));
    let holds = match (op, Logic::of(op)) {
        (SMovB64, _) => a,
        (SCselectB64, _) => a && b,
        (_, Some(Logic::And)) => a || b,
        (_, Some(Logic::Andn2)) => a,
        (_, Some(Logic::Or | Logic::Xor)) => a && b,
        _ => false,
    };
    mark(inst.sdst.or(inst.dst), holds);
    out
}

/// The 64-bit masks known non-zero after `inst`, given `set` before it.
fn nonzero_after(inst: &Instruction, set: ScalarSet) -> ScalarSet {
    use Opcode::*;
    let nonzero = |op: Option<Operand>| mask_in(inst, op, set, |v| v != 0);
    let exec = set.contains(EXEC_LO);
    // What the instruction writes, by the low register of the 64-bit mask, if it is one.
    let (dst, made) = match inst.opcode {
        op if op.is_saveexec() => {
            // D = EXEC; EXEC = S0 op EXEC, non-zero for `or` if either was.
            let or = op == SOrSaveexecB64 && (exec || nonzero(inst.src(0)));
            let mut out = forget(set, effects(inst).defs);
            if or {
                out.insert(EXEC_LO);
            }
            if let Some(d) = inst.sdst.or(inst.dst).and_then(|d| registers(d, 2).next()) {
                if exec {
                    out.insert(d);
                }
            }
            return out;
        }
        SMovB64 => (inst.sdst.or(inst.dst), nonzero(inst.src(0))),
        SOrB64 => (
            inst.sdst.or(inst.dst),
            nonzero(inst.src(0)) || nonzero(inst.src(1)),
        ),
        Split | Merge => return set.minus(ScalarSet::EXEC),
        _ => (None, false),
    };
    let mut out = forget(set, effects(inst).defs);
    if made {
        if let Some(d) = dst.and_then(|d| registers(d, 2).next()) {
            out.insert(d);
        }
    }
    out
}

/// Whether `inst`'s 64-bit source `op` is one of the masks of `set` (by its low register), or
/// a constant that `constant` accepts.
fn mask_in(
    inst: &Instruction,
    op: Option<Operand>,
    set: ScalarSet,
    constant: impl Fn(u64) -> bool,
) -> bool {
    op.is_some_and(
        |op| match op.constant_value64(inst.opcode.sign_extends_literal64()) {
            Some(v) => constant(v),
            None => registers(op, 2).next().is_some_and(|r| set.contains(r)),
        },
    )
}

/// `set` without the masks (by their low register) that overlap a register of `defs`.
fn forget(set: ScalarSet, defs: ScalarSet) -> ScalarSet {
    set.iter()
        .filter(|&r| !defs.contains(r) && !defs.contains(r + 1))
        .fold(ScalarSet::EMPTY, |mut kept, r| {
            kept.insert(r);
            kept
        })
}

/// True when no iteration of loop `l` that runs the compare at `cmp_at` (a block of `l`
/// itself) and sees SCC = `exit_when` after it, and no iteration that does not run it,
/// starts another: no state the wavefront can be in so reaches the header again.
/// `exec_nonzero` says EXEC is non-zero whenever an iteration starts ([`exec_nonzero`] of the
/// header). `budget` counts the instructions and decision-diagram steps followed; running out
/// answers false.
pub fn leaves_when(
    program: &Program,
    flow: &Flow,
    l: usize,
    cmp_at: usize,
    exit_when: bool,
    exec_nonzero: bool,
    budget: &mut u64,
) -> bool {
    Walk::new(program, flow, l, cmp_at, exit_when, exec_nonzero, budget).answer(false)
}

/// True when a lane whose vector compare at `cmp_at` (a VOPC of loop `l`'s own blocks that
/// writes a mask, not EXEC) gives `exit_when` never starts another iteration of `l`, and
/// neither does a lane that skips the compare or runs it with its EXEC bit clear: in every
/// state that reaches the header again, a lane's EXEC bit is set only if the lane was active
/// when the iteration started, ran the compare with its bit set, and the compare said go on.
/// So each lane runs the header at most as often as its own exit test allows (grid-stride
/// loops, whose counter is a VGPR). The compare writes the lane's EXEC bit and its result (0
/// for an inactive lane, as VOPC does).
/// `exec_nonzero` and `budget` as [`leaves_when`] has them.
pub fn lane_leaves_when(
    program: &Program,
    flow: &Flow,
    l: usize,
    cmp_at: usize,
    exit_when: bool,
    exec_nonzero: bool,
    budget: &mut u64,
) -> bool {
    Walk::new(program, flow, l, cmp_at, exit_when, exec_nonzero, budget).answer(true)
}

/// One iteration under the compare's assumption.
struct Walk<'a> {
    program: &'a Program,
    flow: &'a Flow,
    l: usize,
    cmp_at: usize,
    exit_when: bool,
    /// The compare is a lane's own ([`lane_leaves_when`]), not the wavefront's SCC.
    per_lane: bool,
    /// The lane's EXEC bit when the iteration started.
    at_start: Bit,
    exec_nonzero: bool,
    bdd: Bdd,
    budget: &'a mut u64,
}

impl<'a> Walk<'a> {
    fn new(
        program: &'a Program,
        flow: &'a Flow,
        l: usize,
        cmp_at: usize,
        exit_when: bool,
        exec_nonzero: bool,
        budget: &'a mut u64,
    ) -> Self {
        Walk {
            program,
            flow,
            l,
            cmp_at,
            exit_when,
            per_lane: false,
            at_start: FALSE,
            exec_nonzero,
            bdd: Bdd::new(),
            budget,
        }
    }

    /// Whether the loop leaves as asked, for a lane's own compare (`per_lane`) or SCC.
    fn answer(mut self, per_lane: bool) -> bool {
        self.per_lane = per_lane;
        self.iteration().unwrap_or(false)
    }

    /// Takes the decision diagram's work since the last charge from the budget.
    fn charge(&mut self) -> Option<()> {
        let steps = std::mem::take(&mut self.bdd.steps);
        *self.budget = self.budget.checked_sub(steps)?;
        Some(())
    }

    /// Whether no state reaches the header again; `None` when that is not decided here.
    fn iteration(&mut self) -> Option<bool> {
        let flow = self.flow;
        let lp = &flow.loops[self.l];
        // The state on entry to each block (or, for a loop nested in this one, its header) of
        // the iteration, merged over the edges that reach it.
        let mut entry: HashMap<usize, Lane> = HashMap::new();
        let start = Lane::start(&mut self.bdd, self.exec_nonzero).ok()?;
        self.at_start = start.exec;
        entry.insert(lp.header, start);
        // Flow order: every forward edge goes to a later block, so a block's predecessors in
        // the iteration are done before it.
        for b in flow.in_order(&lp.body) {
            let Some(lane) = entry.remove(&b) else {
                continue;
            };
            let out = if flow.loop_of(b) == Some(self.l) {
                self.block(b, lane)?
            } else {
                self.nested(b, lane)?
            };
            for (to, next) in out {
                if !lp.contains(to) {
                    continue;
                }
                if to == lp.header {
                    if !self.per_lane {
                        return Some(false);
                    }
                    // A lane still on must have gone on at the compare.
                    let stopped = self.bdd.not(next.went_on).ok()?;
                    let on = self.bdd.and(next.exec, stopped).ok()?;
                    let on = self.bdd.and(on, next.possible).ok()?;
                    self.charge()?;
                    if on != FALSE {
                        return Some(false);
                    }
                    continue;
                }
                let merged = match entry.remove(&to) {
                    Some(there) => there.merge(next, &mut self.bdd).ok()?,
                    None => next,
                };
                self.charge()?;
                entry.insert(to, merged);
            }
        }
        Some(true)
    }

    /// Runs block `b` of the loop itself; the states on its edges the wavefront can take.
    fn block(&mut self, b: usize, mut lane: Lane) -> Option<Vec<(usize, Lane)>> {
        let flow = self.flow;
        let last = flow.last(b);
        let branch = &self.program.instructions[last].item;
        for i in flow.blocks[b].clone() {
            *self.budget = self.budget.checked_sub(1)?;
            let inst = &self.program.instructions[i].item;
            if i == last && inst.is_branch() {
                break;
            }
            lane.step(&mut self.bdd, inst).ok()?;
            if i == self.cmp_at {
                if self.per_lane {
                    self.lane_compare(&mut lane, inst).ok()?;
                } else {
                    lane.scc = Some(self.exit_when);
                }
            }
            self.charge()?;
        }
        let mut out = Vec::new();
        for e in &flow.succ[b] {
            let next = if branch.is_branch() {
                let next = lane
                    .branch(&mut self.bdd, branch, e.kind == EdgeKind::Taken)
                    .ok()?;
                self.charge()?;
                match next {
                    Some(next) => next,
                    None => continue,
                }
            } else {
                lane.clone()
            };
            out.push((e.to, next));
        }
        Some(out)
    }

    /// The lane's result of the vector compare `inst`: its own variable, where the lane's
    /// EXEC bit is set.
    fn lane_compare(&mut self, lane: &mut Lane, inst: &Instruction) -> Result<(), GiveUp> {
        let result = self.bdd.fresh()?;
        let written = self.bdd.and(lane.exec, result)?;
        let go_on = if self.exit_when {
            self.bdd.not(result)?
        } else {
            result
        };
        // A lane EXEC gained since the iteration started holds a counter no one stepped.
        let counted = self.bdd.and(lane.exec, self.at_start)?;
        lane.went_on = self.bdd.and(counted, go_on)?;
        match inst.sdst {
            Some(mask) => lane.write(mask, written),
            None => return Err(GiveUp),
        }
        Ok(())
    }

    /// A loop inside this one, entered at its header `b`: its iterations are not followed, so
    /// on each of its exits the lane may hold anything in what the loop writes. (Other blocks
    /// of it are never entered: its header dominates them.)
    fn nested(&mut self, b: usize, mut lane: Lane) -> Option<Vec<(usize, Lane)>> {
        let flow = self.flow;
        let mut m = flow.loop_of(b)?;
        while flow.loops[m].parent != Some(self.l) {
            m = flow.loops[m].parent?;
        }
        let nested = &flow.loops[m];
        let mut defs = ScalarSet::EMPTY;
        let mut narrows = true;
        for &nb in &nested.body {
            *self.budget = self.budget.checked_sub(flow.blocks[nb].len() as u64)?;
            for i in flow.blocks[nb].clone() {
                let inst = &self.program.instructions[i].item;
                defs = defs.union(effects(inst).defs);
                narrows &= !writes_exec_or_split_mask(inst) || narrows_exec(inst);
            }
        }
        let before = lane.exec;
        lane.havoc(&mut self.bdd, defs).ok()?;
        if narrows {
            // Every write of EXEC in the loop narrows it (a divergent loop's mask of lanes
            // done): on its exits EXEC is within what it was on entry.
            lane.exec = self.bdd.and(before, lane.exec).ok()?;
        }
        self.charge()?;
        Some(
            nested
                .exits
                .iter()
                .map(|&(_, to)| (to, lane.clone()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the outermost loop of `src` leaves once the compare at line `cmp_line`
    /// (1-based) gives `exit_when`.
    fn leaves(src: &str, cmp_line: u32, exit_when: bool) -> bool {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let outer = (0..flow.loops.len())
            .find(|&l| flow.loops[l].parent.is_none())
            .unwrap();
        let cmp_at = program
            .instructions
            .iter()
            .position(|i| i.line == cmp_line)
            .unwrap();
        let opcode = program.instructions[cmp_at].item.opcode;
        assert!(
            opcode.mnemonic().starts_with("s_cmp"),
            "line {cmp_line}: {opcode:?}"
        );
        let exec_nonzero = exec_nonzero(&program, &flow)[flow.loops[outer].header];
        leaves_when(
            &program,
            &flow,
            outer,
            cmp_at,
            exit_when,
            exec_nonzero,
            &mut 1_000_000,
        )
    }

    /// EXEC on entry to each block of `src`, by the block's first line.
    fn nonzero_by_line(src: &str) -> Vec<(u32, bool)> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let nonzero = exec_nonzero(&program, &flow);
        let mut by_line: Vec<(u32, bool)> = (0..flow.blocks.len())
            .filter(|&b| flow.reachable[b])
            .map(|b| (program.instructions[flow.blocks[b].start].line, nonzero[b]))
            .collect();
        by_line.sort_unstable();
        by_line
    }

    #[test]
    fn exec_is_non_zero_at_the_entry_after_a_skip_and_after_a_join() {
        let src = "\
s_mov_b32 s2, 0
s_and_saveexec_b64 s[0:1], vcc
s_cbranch_execz .Ljoin
v_mov_b32_e32 v1, 0
.Ljoin:
s_or_b64 exec, exec, s[0:1]
s_branch .Lafter
.Lafter:
s_mov_b64 exec, s[4:5]
s_branch .Lset
.Lset:
s_and_saveexec_b64 s[6:7], vcc
s_cbranch_execnz .Lset2
.Lzero:
s_or_b64 exec, exec, s[6:7]
s_endpgm
.Lset2:
s_mov_b32 s7, 0
s_or_b64 exec, exec, s[6:7]
s_endpgm
";
        // Blocks by their first instruction's line (labels have lines of their own): 1 the
        // entry, 4 the `if` body (skip not taken), 6 the join (EXEC may be zero there: the
        // skip was taken), 9 after the join (the saved mask restored), 12 after an unknown
        // mask, 15 where `s_cbranch_execnz` is not taken and 18 where it is.
        assert_eq!(
            nonzero_by_line(src),
            [
                (1, true),
                (4, true),
                (6, false),
                (9, true),
                (12, false),
                (15, false),
                (18, true)
            ]
        );
    }

    #[test]
    fn a_skip_of_a_non_zero_exec_is_never_taken() {
        // clang -O3's first block may end in `s_cbranch_execz` on the dispatcher's EXEC: the
        // block it names is reached with EXEC non-zero by its other path only. Where EXEC may
        // be zero before the skip (an unknown mask), the skip counts.
        let src = "\
s_cmp_lt_u32 s8, s10
s_cbranch_scc1 .Lthen
s_cbranch_execz .Ljoin
s_branch .Lout
.Lthen:
s_mov_b32 s2, 0
.Ljoin:
v_mov_b32_e32 v1, 0
.Lout:
s_endpgm
";
        assert_eq!(
            nonzero_by_line(src),
            [
                (1, true),
                (3, true),
                (4, true),
                (6, true),
                (8, true),
                (10, true)
            ]
        );
        let unknown = src.replace("s_cbranch_execz", "s_mov_b64 exec, s[4:5]\ns_cbranch_execz");
        assert_eq!(
            nonzero_by_line(&unknown),
            [
                (1, true),
                (3, true),
                (5, true),
                (7, true),
                (9, false),
                (11, false)
            ]
        );
    }

    #[test]
    fn exec_stays_within_the_dispatchers_lanes_under_llvms_control_flow() {
        let within = |src: &str| {
            let program = pws_isa::assemble(src, "t.s").unwrap();
            let flow = Flow::new(&program, "t.s").unwrap();
            exec_within_dispatch(&program, &flow)
        };
        // An if, a divergent loop's mask of lanes done, and the restores after both.
        let clang = "\
v_cmp_gt_u32_e32 vcc, 40, v0
s_and_saveexec_b64 s[0:1], vcc
s_cbranch_execz .Lj
s_mov_b64 s[2:3], 0
.Lh:
v_add_u32_e32 v1, vcc, 1, v1
v_cmp_le_u32_e32 vcc, 9, v1
s_or_b64 s[2:3], vcc, s[2:3]
s_andn2_b64 exec, exec, s[2:3]
s_cbranch_execnz .Lh
s_or_b64 exec, exec, s[2:3]
.Lj:
s_or_b64 exec, exec, s[0:1]
s_endpgm
";
        assert!(within(clang));
        assert!(!within(
            &clang.replace("s_mov_b64 s[2:3], 0", "s_mov_b64 exec, -1")
        ));
        // A restore from a mask the kernel loaded may enable any lane.
        assert!(!within(&clang.replace(
            "s_or_b64 exec, exec, s[0:1]",
            "s_load_dwordx2 s[0:1], s[4:5], 0x0\ns_or_b64 exec, exec, s[0:1]"
        )));
        // A split keeps EXEC, a merge joins two EXECs that are within: the if split.
        let split = clang
            .replace(
                "s_cbranch_execz .Lj",
                "split vcc_lo, vcc_hi\ns_cbranch_execz .Lj",
            )
            .replace(
                ".Lj:\ns_or_b64 exec, exec, s[0:1]",
                ".Lj:\ns_or_b64 exec, exec, s[0:1]\nmerge",
            );
        assert!(within(&split));
        assert!(!within(
            &split.replace("merge", "merge\ns_mov_b64 exec, s[6:7]")
        ));
    }

    /// The join's `s_or_b64` restores a mask saved while EXEC was non-zero: not one saved
    /// after it may have been zero, nor one half overwritten since.
    #[test]
    fn only_masks_saved_from_a_non_zero_exec_restore_it() {
        let src = "\
s_mov_b64 exec, s[4:5]
s_and_saveexec_b64 s[0:1], vcc
s_or_b64 exec, exec, s[0:1]
s_branch .L1
.L1:
s_mov_b64 s[2:3], exec
s_mov_b32 s3, 0
s_or_b64 exec, exec, s[2:3]
s_branch .L2
.L2:
s_endpgm
";
        assert_eq!(nonzero_by_line(src), [(1, true), (6, false), (11, false)]);
    }

    /// Two workgroup-stride loops in a row, as clang writes them: the first one's exit leaves
    /// every lane it ran in s[2:3], which restores a non-zero EXEC for the second. An
    /// accumulator written after the exit's `s_andn2_b64`, or an EXEC that may have been zero
    /// at it, proves nothing.
    #[test]
    fn the_lanes_that_left_a_loop_restore_exec_for_the_next() {
        // A loop at `label` stepping v, with `between` after its exit's `s_andn2_b64`.
        let stride = |label: &str, v: &str, between: &str| {
            format!(
                "s_mov_b64 s[2:3], 0\n\
                 {label}:\n\
                 v_add_u32_e32 {v}, vcc, s8, {v}\n\
                 v_cmp_lt_u32_e32 vcc, s9, {v}\n\
                 s_or_b64 s[2:3], vcc, s[2:3]\n\
                 s_andn2_b64 exec, exec, s[2:3]\n\
                 {between}\
                 s_cbranch_execnz {label}\n"
            )
        };
        let two_loops = |between: &str, first_exec: &str| {
            format!(
                "{first_exec}{}s_or_b64 exec, exec, s[2:3]\n{}s_endpgm\n",
                stride(".L2", "v6", between),
                stride(".L4", "v0", "")
            )
        };
        // The second loop's header: the block that starts at the first instruction after
        // `.L4:`.
        let second = |src: String| {
            let header = src.lines().position(|l| l == ".L4:").unwrap() as u32 + 2;
            nonzero_by_line(&src)
                .into_iter()
                .find(|&(line, _)| line == header)
                .map(|(_, nonzero)| nonzero)
        };
        assert_eq!(second(two_loops("", "")), Some(true));
        assert_eq!(second(two_loops("s_mov_b32 s3, 0\n", "")), Some(false));
        assert_eq!(
            second(two_loops("", "s_mov_b64 exec, s[4:5]\n")),
            Some(false)
        );
    }

    const BREAK_IN_ONE_BLOCK: &str = "s_mov_b64 s[4:5], 0\n\
         .L2:\n\
         s_cmpk_gt_u32 s6, 0x62\n\
         s_cselect_b64 s[8:9], -1, 0\n\
         v_cmp_gt_f32_e32 vcc, s7, v2\n\
         s_or_b64 s[8:9], s[8:9], vcc\n\
         s_and_b64 s[8:9], exec, s[8:9]\n\
         s_or_b64 s[4:5], s[8:9], s[4:5]\n\
         s_andn2_b64 exec, exec, s[4:5]\n\
         s_cbranch_execnz .L2\n\
         s_endpgm\n";

    #[test]
    fn a_counter_folded_into_the_mask_of_leaving_lanes_empties_exec() {
        assert!(leaves(BREAK_IN_ONE_BLOCK, 3, true));
        assert!(!leaves(BREAK_IN_ONE_BLOCK, 3, false));
        // ANDed with the data's test instead, lanes may stay.
        let and = BREAK_IN_ONE_BLOCK.replace(
            "s_or_b64 s[8:9], s[8:9], vcc",
            "s_and_b64 s[8:9], s[8:9], vcc",
        );
        assert!(!leaves(&and, 3, true));
    }

    /// `for (j = 0; j < 48; j++) if (f(in[j])) { pos = j; break; }`: the lanes that found it
    /// leave; the others step the counter in a block skipped when none is left.
    #[test]
    fn a_break_before_the_step_is_followed_across_blocks() {
        let src = "s_mov_b64 s[4:5], 0\n\
             s_branch .L2\n\
             .L1:\n\
             s_or_b64 exec, exec, s[8:9]\n\
             s_and_b64 s[8:9], exec, s[6:7]\n\
             s_or_b64 s[4:5], s[8:9], s[4:5]\n\
             s_andn2_b64 exec, exec, s[4:5]\n\
             s_cbranch_execz .L4\n\
             .L2:\n\
             s_or_b64 s[6:7], s[6:7], exec\n\
             v_cmp_ne_u32_e32 vcc, 3, v2\n\
             s_and_saveexec_b64 s[8:9], vcc\n\
             s_cbranch_execz .L1\n\
             s_add_i32 s10, s10, 1\n\
             s_cmp_eq_u32 s10, 48\n\
             s_cselect_b64 s[12:13], -1, 0\n\
             s_andn2_b64 s[6:7], s[6:7], exec\n\
             s_and_b64 s[12:13], s[12:13], exec\n\
             s_or_b64 s[6:7], s[6:7], s[12:13]\n\
             s_branch .L1\n\
             .L4:\n\
             s_endpgm\n";
        assert!(leaves(src, 15, true));
        assert!(!leaves(src, 15, false));
        // Without the header's `s_or_b64 s[6:7], s[6:7], exec` the lanes that found it do
        // not leave.
        let kept = src.replace("s_or_b64 s[6:7], s[6:7], exec\n", "s_nop 0\n");
        assert!(!leaves(&kept, 15, true));
    }

    /// A uniform loop nested in the body: past it, only what it writes is unknown.
    #[test]
    fn a_nested_loop_forgets_only_what_it_writes() {
        let src = "s_mov_b64 s[16:17], 0\n\
             s_xor_b64 s[18:19], vcc, -1\n\
             .L7:\n\
             s_mov_b32 s4, 13\n\
             .L8:\n\
             s_add_i32 s4, s4, -1\n\
             s_cmp_lg_u32 s4, 0\n\
             s_cbranch_scc1 .L8\n\
             s_add_i32 s22, s21, 1\n\
             s_cmp_gt_u32 s21, 22\n\
             s_cselect_b64 s[4:5], -1, 0\n\
             s_or_b64 s[4:5], s[4:5], s[18:19]\n\
             s_and_b64 s[4:5], exec, s[4:5]\n\
             s_or_b64 s[16:17], s[4:5], s[16:17]\n\
             s_mov_b32 s21, s22\n\
             s_andn2_b64 exec, exec, s[16:17]\n\
             s_cbranch_execnz .L7\n\
             s_endpgm\n";
        assert!(leaves(src, 10, true));
        // Compared before the nested loop, whose own compare overwrites SCC.
        let src = src
            .replace("s_cmp_gt_u32 s21, 22\n", "")
            .replace(".L7:\n", ".L7:\ns_cmp_gt_u32 s21, 22\n");
        assert!(!leaves(&src, 4, true));
    }

    #[test]
    fn a_counter_anded_into_vcc_clears_it() {
        let src = ".L1:\n\
             s_cmp_lt_u32 s7, 10\n\
             v_cmp_lt_i32_e32 vcc, v1, v2\n\
             s_cselect_b64 s[10:11], -1, 0\n\
             s_and_b64 s[10:11], vcc, s[10:11]\n\
             s_and_b64 vcc, exec, s[10:11]\n\
             s_cbranch_vccnz .L1\n\
             s_endpgm\n";
        assert!(leaves(src, 2, false));
        assert!(!leaves(src, 2, true));
    }

    #[test]
    fn an_scc_branch_reads_the_compare_unless_overwritten() {
        assert!(leaves(
            ".L1:\ns_cmp_lt_u32 s7, 10\ns_cbranch_scc1 .L1\ns_endpgm\n",
            2,
            false
        ));
        assert!(!leaves(
            ".L1:\ns_cmp_lt_u32 s7, 10\ns_add_u32 s0, s0, s1\ns_cbranch_scc1 .L1\ns_endpgm\n",
            2,
            false
        ));
    }

    #[test]
    fn what_is_not_modelled_decides_nothing() {
        let cases = [
            // The leaving mask is overwritten by a compare before EXEC reads it.
            ".L1:\ns_cmp_gt_u32 s6, 9\ns_cselect_b64 s[8:9], -1, 0\ns_and_b64 s[8:9], exec, s[8:9]\nv_cmp_eq_u32_e64 s[8:9], v0, v1\ns_andn2_b64 exec, exec, s[8:9]\ns_cbranch_execnz .L1\ns_endpgm\n",
            // Half of the mask is overwritten.
            ".L1:\ns_cmp_gt_u32 s6, 9\ns_cselect_b64 s[8:9], -1, 0\ns_mov_b32 s9, 0\ns_andn2_b64 exec, exec, s[8:9]\ns_cbranch_execnz .L1\ns_endpgm\n",
            // EXEC is replaced between: the lanes that left are those of another EXEC.
            ".L1:\ns_cmp_gt_u32 s6, 9\ns_cselect_b64 s[8:9], -1, 0\ns_and_b64 s[8:9], exec, s[8:9]\ns_mov_b64 exec, s[2:3]\ns_andn2_b64 exec, exec, s[8:9]\ns_cbranch_execnz .L1\ns_endpgm\n",
            // The branch does not read what the masks decide.
            ".L1:\ns_cmp_gt_u32 s6, 9\ns_cselect_b64 s[8:9], -1, 0\ns_andn2_b64 s[2:3], exec, s[8:9]\ns_cbranch_execnz .L1\ns_endpgm\n",
        ];
        for src in cases {
            assert!(!leaves(src, 2, true), "{src}");
        }
    }

    #[test]
    fn narrowing_exec_keeps_the_leaving_lanes() {
        let src = ".L1:\n\
             s_cmp_gt_u32 s6, 9\n\
             s_cselect_b64 s[8:9], -1, 0\n\
             s_and_b64 s[8:9], exec, s[8:9]\n\
             s_and_saveexec_b64 s[2:3], vcc\n\
             s_andn2_b64 exec, exec, s[8:9]\n\
             s_cbranch_execnz .L1\n\
             s_endpgm\n";
        assert!(leaves(src, 2, true));
    }
}
