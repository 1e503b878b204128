//! Golden models of the reconvergence stacks, written from S2 (Rhu & Erez, HPCA'13) and
//! GPGPU-Sim's rules as the digest restates them (§2.1, §2.2), independently of the RTL in
//! `pws_hdl::reconvergence`.
//!
//! The single-path model follows GPGPU-Sim's formulation: after an instruction, the active
//! lanes are grouped by next PC; groups that reached the top entry's reconvergence PC leave
//! (they wait in the entry below); what remains either updates the top entry, or turns it into
//! a reconvergence entry with one new entry per group. The dual-path model keeps S2's entry of
//! two paths and one RPC. [`rtl`] steps the RTL stacks through the cycle driver.

/// An instruction's effect on the stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Nop,
    /// A new wavefront at `pc` with lanes `mask`, ending at `end`.
    Init {
        pc: u32,
        end: u32,
        mask: u64,
    },
    /// Every active lane continues at `pc`.
    Advance {
        pc: u32,
    },
    /// Lanes in `taken` go to `target`, the others to `fall_through`; `ipdom` is the branch's
    /// immediate post-dominator.
    Branch {
        target: u32,
        fall_through: u32,
        taken: u64,
        ipdom: u32,
    },
}

/// Why an operation was refused (the stack is then unchanged).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Overflow,
    Underflow,
    InvalidPath,
}

/// A single-path stack entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpeEntry {
    pub pc: u32,
    pub rpc: u32,
    pub mask: u64,
}

/// The single-path (PDOM) stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdomModel {
    pub capacity: usize,
    /// Bottom first.
    pub entries: Vec<SpeEntry>,
}

/// Lanes grouped by next PC, taken group first; an empty taken group means the branch falls
/// through for every lane, and equal targets make one group.
fn next_pc_groups(mask: u64, target: u32, fall_through: u32, taken: u64) -> Vec<(u32, u64)> {
    let t = mask & taken;
    let n = mask & !taken;
    if t == 0 {
        vec![(fall_through, mask)]
    } else if n == 0 || target == fall_through {
        vec![(target, mask)]
    } else {
        vec![(target, t), (fall_through, n)]
    }
}

impl PdomModel {
    pub fn new(capacity: usize) -> Self {
        PdomModel {
            capacity,
            entries: Vec::new(),
        }
    }

    pub fn apply(&mut self, op: Op) -> Status {
        let (groups, ipdom) = match op {
            Op::Nop => return Status::Ok,
            Op::Init { pc, end, mask } => {
                self.entries = vec![SpeEntry { pc, rpc: end, mask }];
                return Status::Ok;
            }
            Op::Advance { pc } => match self.entries.last() {
                Some(top) => (vec![(pc, top.mask)], None),
                None => return Status::Underflow,
            },
            Op::Branch {
                target,
                fall_through,
                taken,
                ipdom,
            } => match self.entries.last() {
                Some(top) => (
                    next_pc_groups(top.mask, target, fall_through, taken),
                    Some(ipdom),
                ),
                None => return Status::Underflow,
            },
        };
        let top = *self.entries.last().expect("checked above");
        let live: Vec<(u32, u64)> = groups.iter().copied().filter(|g| g.0 != top.rpc).collect();
        let depth = self.entries.len();
        match (live.as_slice(), ipdom) {
            ([], _) => {
                self.entries.pop();
            }
            ([(pc, mask)], _) => {
                *self.entries.last_mut().unwrap() = SpeEntry {
                    pc: *pc,
                    rpc: top.rpc,
                    mask: *mask,
                };
            }
            ([(t_pc, t_mask), (n_pc, n_mask)], Some(r)) if r == top.rpc => {
                if depth + 1 > self.capacity {
                    return Status::Overflow;
                }
                *self.entries.last_mut().unwrap() = SpeEntry {
                    pc: *n_pc,
                    rpc: r,
                    mask: *n_mask,
                };
                self.entries.push(SpeEntry {
                    pc: *t_pc,
                    rpc: r,
                    mask: *t_mask,
                });
            }
            ([taken, not_taken], Some(r)) => {
                // Not-taken first, so the taken path is on top and runs first.
                let pushes: Vec<SpeEntry> = [not_taken, taken]
                    .iter()
                    .filter(|g| g.0 != r)
                    .map(|g| SpeEntry {
                        pc: g.0,
                        rpc: r,
                        mask: g.1,
                    })
                    .collect();
                if depth + pushes.len() > self.capacity {
                    return Status::Overflow;
                }
                self.entries.last_mut().unwrap().pc = r;
                self.entries.extend(pushes);
            }
            _ => unreachable!("at most two groups, and two only from a branch"),
        }
        Status::Ok
    }
}

/// One path of a dual-path entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PathSlot {
    pub pc: u32,
    pub mask: u64,
    pub valid: bool,
}

/// A dual-path stack entry: paths L and R sharing one reconvergence PC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DpeEntry {
    pub l: PathSlot,
    pub r: PathSlot,
    pub rpc: u32,
}

/// Which path of the top entry an operation comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    L,
    R,
}

/// The dual-path (DPE) stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DualPathModel {
    pub capacity: usize,
    /// Bottom first.
    pub entries: Vec<DpeEntry>,
}

impl DpeEntry {
    fn slot(&mut self, side: Side) -> &mut PathSlot {
        match side {
            Side::L => &mut self.l,
            Side::R => &mut self.r,
        }
    }

    fn other(&self, side: Side) -> PathSlot {
        match side {
            Side::L => self.r,
            Side::R => self.l,
        }
    }

    /// Schedulable paths (S2's NumPath when this entry is on top).
    pub fn paths(&self) -> usize {
        self.l.valid as usize + self.r.valid as usize
    }
}

impl DualPathModel {
    pub fn new(capacity: usize) -> Self {
        DualPathModel {
            capacity,
            entries: Vec::new(),
        }
    }

    pub fn apply(&mut self, side: Side, op: Op) -> Status {
        if let Op::Init { pc, end, mask } = op {
            let idle = PathSlot {
                pc: 0,
                mask: 0,
                valid: false,
            };
            self.entries = vec![DpeEntry {
                l: PathSlot {
                    pc,
                    mask,
                    valid: true,
                },
                r: idle,
                rpc: end,
            }];
            return Status::Ok;
        }
        if op == Op::Nop {
            return Status::Ok;
        }
        let depth = self.entries.len();
        let Some(top) = self.entries.last_mut() else {
            return Status::Underflow;
        };
        let x = *top.slot(side);
        if !x.valid {
            return Status::InvalidPath;
        }
        let sibling = top.other(side);
        let rpc = top.rpc;
        let groups = match op {
            Op::Advance { pc } => vec![(pc, x.mask)],
            Op::Branch {
                target,
                fall_through,
                taken,
                ..
            } => next_pc_groups(x.mask, target, fall_through, taken),
            Op::Nop | Op::Init { .. } => unreachable!("handled above"),
        };
        if let [(pc, _)] = groups[..] {
            // The path moves on; at the entry's RPC it is done, and with both done the
            // entry pops.
            let slot = top.slot(side);
            slot.pc = pc;
            slot.valid = pc != rpc;
            if !slot.valid && !sibling.valid {
                self.entries.pop();
            }
            return Status::Ok;
        }
        let Op::Branch { ipdom: r, .. } = op else {
            unreachable!("two groups come from a branch")
        };
        let new = DpeEntry {
            l: PathSlot {
                pc: groups[0].0,
                mask: groups[0].1,
                valid: groups[0].0 != r,
            },
            r: PathSlot {
                pc: groups[1].0,
                mask: groups[1].1,
                valid: groups[1].0 != r,
            },
            rpc: r,
        };
        if r == rpc && !sibling.valid {
            *top = new;
            return Status::Ok;
        }
        if depth == self.capacity {
            return Status::Overflow;
        }
        let slot = top.slot(side);
        slot.pc = r;
        slot.valid = r != rpc;
        self.entries.push(new);
        Status::Ok
    }
}

/// Driving the RTL stacks op by op and reading them back in the models' terms.
pub mod rtl {
    use pws_hdl::reconvergence::{DualPathStack, PdomStack, StackOp, StackStatus};
    use pws_sim::{Driver, DriverError};
    use rust_hdl::core::prelude::Bits;

    use super::{DpeEntry, Op, PathSlot, Side, SpeEntry, Status};

    fn status(s: StackStatus) -> Status {
        match s {
            StackStatus::Ok => Status::Ok,
            StackStatus::Overflow => Status::Overflow,
            StackStatus::Underflow => Status::Underflow,
            StackStatus::InvalidPath => Status::InvalidPath,
        }
    }

    /// The port values of an operation: (op, pc, alt_pc, rpc, mask).
    fn encode(op: Op) -> (StackOp, u32, u32, u32, u64) {
        match op {
            Op::Nop => (StackOp::Nop, 0, 0, 0, 0),
            Op::Init { pc, end, mask } => (StackOp::Init, pc, 0, end, mask),
            Op::Advance { pc } => (StackOp::Advance, pc, 0, 0, 0),
            Op::Branch {
                target,
                fall_through,
                taken,
                ipdom,
            } => (StackOp::Branch, target, fall_through, ipdom, taken),
        }
    }

    fn u32_of(b: Bits<32>) -> u32 {
        b.index() as u32
    }

    fn u64_of(b: Bits<64>) -> u64 {
        b.to_u64()
    }

    /// Applies `op` in one clock cycle and returns the status it reports.
    pub fn apply_pdom(d: &mut Driver<PdomStack>, op: Op) -> Result<Status, DriverError> {
        let (code, pc, alt, rpc, mask) = encode(op);
        let u = d.uut_mut();
        u.op_i.next = code;
        u.pc_i.next = u64::from(pc).into();
        u.alt_pc_i.next = u64::from(alt).into();
        u.rpc_i.next = u64::from(rpc).into();
        u.mask_i.next = mask.into();
        d.tick()?;
        d.uut_mut().op_i.next = StackOp::Nop;
        d.settle()?;
        Ok(status(d.uut().status_o.val()))
    }

    /// Every entry, bottom first, read through the peek port.
    pub fn pdom_entries(d: &mut Driver<PdomStack>) -> Result<Vec<SpeEntry>, DriverError> {
        d.settle()?;
        let depth = d.uut().depth_o.val().index();
        let mut out = Vec::with_capacity(depth);
        for i in 0..depth {
            d.uut_mut().peek_i.next = (i as u64).into();
            d.settle()?;
            let u = d.uut();
            out.push(SpeEntry {
                pc: u32_of(u.peek_pc_o.val()),
                rpc: u32_of(u.peek_rpc_o.val()),
                mask: u64_of(u.peek_mask_o.val()),
            });
        }
        Ok(out)
    }

    /// Applies `op` from path `side` in one clock cycle and returns the status it reports.
    pub fn apply_dpe(
        d: &mut Driver<DualPathStack>,
        side: Side,
        op: Op,
    ) -> Result<Status, DriverError> {
        let (code, pc, alt, rpc, mask) = encode(op);
        let u = d.uut_mut();
        u.op_i.next = code;
        u.path_i.next = side == Side::R;
        u.pc_i.next = u64::from(pc).into();
        u.alt_pc_i.next = u64::from(alt).into();
        u.rpc_i.next = u64::from(rpc).into();
        u.mask_i.next = mask.into();
        d.tick()?;
        d.uut_mut().op_i.next = StackOp::Nop;
        d.settle()?;
        Ok(status(d.uut().status_o.val()))
    }

    /// Every entry, bottom first, read through the peek port.
    pub fn dpe_entries(d: &mut Driver<DualPathStack>) -> Result<Vec<DpeEntry>, DriverError> {
        d.settle()?;
        let depth = d.uut().depth_o.val().index();
        let mut out = Vec::with_capacity(depth);
        for i in 0..depth {
            d.uut_mut().peek_i.next = (i as u64).into();
            d.settle()?;
            let u = d.uut();
            out.push(DpeEntry {
                l: PathSlot {
                    pc: u32_of(u.peek_l_pc_o.val()),
                    mask: u64_of(u.peek_l_mask_o.val()),
                    valid: u.peek_l_valid_o.val(),
                },
                r: PathSlot {
                    pc: u32_of(u.peek_r_pc_o.val()),
                    mask: u64_of(u.peek_r_mask_o.val()),
                    valid: u.peek_r_valid_o.val(),
                },
                rpc: u32_of(u.peek_rpc_o.val()),
            });
        }
        Ok(out)
    }
}
