//! The dual-path (DPE) reconvergence stack of Rhu & Erez (HPCA'13; digest §2.2).
//!
//! Each entry holds two paths, L and R, each a `{PC, mask, valid}` slot, and one shared RPC:
//! both sides of a branch reconverge at its IPDOM. Both valid paths of the top entry are
//! schedulable, so the issue stage can interleave them; `path_i` names the path an operation
//! comes from (0 = L, 1 = R). On a divergent branch of path X with IPDOM `r`:
//!
//! * X is parked at `r` with its full mask (`X.PC := r`); it is invalidated instead if `r` is
//!   the entry's own RPC, since X then reconverges with its sibling when the entry pops;
//! * one entry is pushed: L = the taken group, R = the not-taken group, `RPC = r`, a slot
//!   being valid only if its PC is not already `r` (a non-interleavable branch leaves one
//!   path, and DPE behaves as SPE);
//! * if `r` is the entry's RPC and X's sibling is invalid, the entry has no path left to
//!   resume, so the new entry replaces it instead of being pushed above it (this is the SPE
//!   stack's same-IPDOM replacement, and it guarantees that a pop never uncovers an entry with
//!   no valid path, so pops never cascade).
//!
//! A path whose next PC is the entry's RPC is invalidated; when both are invalid the entry
//! pops and the parked path below resumes at `r`.

use rust_hdl::prelude::*;

use super::{check_depth, registers, StackDepthError, StackOp, StackStatus};

/// Dual-path reconvergence stack of `depth` entries.
#[derive(LogicBlock)]
pub struct DualPathStack {
    pub clock: Signal<In, Clock>,
    pub op_i: Signal<In, StackOp>,
    /// The path the operation comes from: 0 = L, 1 = R (ignored by Init).
    pub path_i: Signal<In, Bit>,
    /// Init: first PC. Advance: next PC. Branch: taken target.
    pub pc_i: Signal<In, Bits<32>>,
    /// Branch: not-taken target.
    pub alt_pc_i: Signal<In, Bits<32>>,
    /// Init: the kernel's end. Branch: the branch's IPDOM.
    pub rpc_i: Signal<In, Bits<32>>,
    /// Init: the wavefront's lanes. Branch: the lanes whose condition is true.
    pub mask_i: Signal<In, Bits<64>>,
    /// Entry to show on the `peek_*` outputs (0 = bottom).
    pub peek_i: Signal<In, Bits<6>>,
    pub tos_l_pc_o: Signal<Out, Bits<32>>,
    pub tos_l_mask_o: Signal<Out, Bits<64>>,
    pub tos_l_valid_o: Signal<Out, Bit>,
    pub tos_r_pc_o: Signal<Out, Bits<32>>,
    pub tos_r_mask_o: Signal<Out, Bits<64>>,
    pub tos_r_valid_o: Signal<Out, Bit>,
    pub tos_rpc_o: Signal<Out, Bits<32>>,
    pub depth_o: Signal<Out, Bits<6>>,
    pub empty_o: Signal<Out, Bit>,
    /// Outcome of the previous cycle's operation.
    pub status_o: Signal<Out, StackStatus>,
    pub peek_l_pc_o: Signal<Out, Bits<32>>,
    pub peek_l_mask_o: Signal<Out, Bits<64>>,
    pub peek_l_valid_o: Signal<Out, Bit>,
    pub peek_r_pc_o: Signal<Out, Bits<32>>,
    pub peek_r_mask_o: Signal<Out, Bits<64>>,
    pub peek_r_valid_o: Signal<Out, Bit>,
    pub peek_rpc_o: Signal<Out, Bits<32>>,
    l_pc: Vec<DFF<Bits<32>>>,
    l_mask: Vec<DFF<Bits<64>>>,
    l_valid: Vec<DFF<Bit>>,
    r_pc: Vec<DFF<Bits<32>>>,
    r_mask: Vec<DFF<Bits<64>>>,
    r_valid: Vec<DFF<Bit>>,
    rpc: Vec<DFF<Bits<32>>>,
    sp: DFF<Bits<6>>,
    status: DFF<StackStatus>,
    /// The issuing path X of the top entry, and whether its sibling is valid.
    x_mask: Signal<Local, Bits<64>>,
    x_valid: Signal<Local, Bit>,
    sibling_valid: Signal<Local, Bit>,
    taken: Signal<Local, Bits<64>>,
    not_taken: Signal<Local, Bits<64>>,
    uniform: Signal<Local, Bit>,
    next_pc: Signal<Local, Bits<32>>,
    /// Rewrite of X's slot in the top entry.
    x_we: Signal<Local, Bit>,
    x_pc_new: Signal<Local, Bits<32>>,
    x_valid_new: Signal<Local, Bit>,
    /// Write of the branch's new entry at the top (replace) or above it (push).
    replace_we: Signal<Local, Bit>,
    push_we: Signal<Local, Bit>,
    entry_index: Vec<Constant<Bits<6>>>,
    entry_above: Vec<Constant<Bits<6>>>,
    capacity: Constant<Bits<6>>,
    _depth: usize,
}

impl DualPathStack {
    /// A stack of `depth` entries.
    pub fn new(depth: usize) -> Result<Self, StackDepthError> {
        check_depth(depth)?;
        let six = |n: usize| Constant::new(Bits::<6>::from(n as u64));
        Ok(DualPathStack {
            clock: Default::default(),
            op_i: Default::default(),
            path_i: Default::default(),
            pc_i: Default::default(),
            alt_pc_i: Default::default(),
            rpc_i: Default::default(),
            mask_i: Default::default(),
            peek_i: Default::default(),
            tos_l_pc_o: Default::default(),
            tos_l_mask_o: Default::default(),
            tos_l_valid_o: Default::default(),
            tos_r_pc_o: Default::default(),
            tos_r_mask_o: Default::default(),
            tos_r_valid_o: Default::default(),
            tos_rpc_o: Default::default(),
            depth_o: Default::default(),
            empty_o: Default::default(),
            status_o: Default::default(),
            peek_l_pc_o: Default::default(),
            peek_l_mask_o: Default::default(),
            peek_l_valid_o: Default::default(),
            peek_r_pc_o: Default::default(),
            peek_r_mask_o: Default::default(),
            peek_r_valid_o: Default::default(),
            peek_rpc_o: Default::default(),
            l_pc: registers(depth),
            l_mask: registers(depth),
            l_valid: registers(depth),
            r_pc: registers(depth),
            r_mask: registers(depth),
            r_valid: registers(depth),
            rpc: registers(depth),
            sp: Default::default(),
            status: Default::default(),
            x_mask: Default::default(),
            x_valid: Default::default(),
            sibling_valid: Default::default(),
            taken: Default::default(),
            not_taken: Default::default(),
            uniform: Default::default(),
            next_pc: Default::default(),
            x_we: Default::default(),
            x_pc_new: Default::default(),
            x_valid_new: Default::default(),
            replace_we: Default::default(),
            push_we: Default::default(),
            entry_index: (0..depth).map(six).collect(),
            entry_above: (0..depth).map(|i| six(i + 1)).collect(),
            capacity: six(depth),
            _depth: depth,
        })
    }

    /// Entries the stack holds.
    pub fn capacity(&self) -> usize {
        self._depth
    }
}

impl Logic for DualPathStack {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sp, status);
        for i in 0..self._depth {
            self.l_pc[i].clock.next = self.clock.val();
            self.l_mask[i].clock.next = self.clock.val();
            self.l_valid[i].clock.next = self.clock.val();
            self.r_pc[i].clock.next = self.clock.val();
            self.r_mask[i].clock.next = self.clock.val();
            self.r_valid[i].clock.next = self.clock.val();
            self.rpc[i].clock.next = self.clock.val();
            self.l_pc[i].d.next = self.l_pc[i].q.val();
            self.l_mask[i].d.next = self.l_mask[i].q.val();
            self.l_valid[i].d.next = self.l_valid[i].q.val();
            self.r_pc[i].d.next = self.r_pc[i].q.val();
            self.r_mask[i].d.next = self.r_mask[i].q.val();
            self.r_valid[i].d.next = self.r_valid[i].q.val();
            self.rpc[i].d.next = self.rpc[i].q.val();
        }

        // Read ports: the top entry and the peeked one.
        self.tos_l_pc_o.next = 0.into();
        self.tos_l_mask_o.next = 0.into();
        self.tos_l_valid_o.next = false;
        self.tos_r_pc_o.next = 0.into();
        self.tos_r_mask_o.next = 0.into();
        self.tos_r_valid_o.next = false;
        self.tos_rpc_o.next = 0.into();
        self.peek_l_pc_o.next = 0.into();
        self.peek_l_mask_o.next = 0.into();
        self.peek_l_valid_o.next = false;
        self.peek_r_pc_o.next = 0.into();
        self.peek_r_mask_o.next = 0.into();
        self.peek_r_valid_o.next = false;
        self.peek_rpc_o.next = 0.into();
        for i in 0..self._depth {
            if self.sp.q.val() == self.entry_above[i].val() {
                self.tos_l_pc_o.next = self.l_pc[i].q.val();
                self.tos_l_mask_o.next = self.l_mask[i].q.val();
                self.tos_l_valid_o.next = self.l_valid[i].q.val();
                self.tos_r_pc_o.next = self.r_pc[i].q.val();
                self.tos_r_mask_o.next = self.r_mask[i].q.val();
                self.tos_r_valid_o.next = self.r_valid[i].q.val();
                self.tos_rpc_o.next = self.rpc[i].q.val();
            }
            if self.peek_i.val() == self.entry_index[i].val() {
                self.peek_l_pc_o.next = self.l_pc[i].q.val();
                self.peek_l_mask_o.next = self.l_mask[i].q.val();
                self.peek_l_valid_o.next = self.l_valid[i].q.val();
                self.peek_r_pc_o.next = self.r_pc[i].q.val();
                self.peek_r_mask_o.next = self.r_mask[i].q.val();
                self.peek_r_valid_o.next = self.r_valid[i].q.val();
                self.peek_rpc_o.next = self.rpc[i].q.val();
            }
        }
        self.depth_o.next = self.sp.q.val();
        self.empty_o.next = !self.sp.q.val().any();
        self.status_o.next = self.status.q.val();

        // Decode the operation against path X of the top entry.
        self.x_mask.next = self.tos_l_mask_o.val();
        self.x_valid.next = self.tos_l_valid_o.val();
        self.sibling_valid.next = self.tos_r_valid_o.val();
        if self.path_i.val() {
            self.x_mask.next = self.tos_r_mask_o.val();
            self.x_valid.next = self.tos_r_valid_o.val();
            self.sibling_valid.next = self.tos_l_valid_o.val();
        }
        self.taken.next = self.x_mask.val() & self.mask_i.val();
        self.not_taken.next = self.x_mask.val() & !self.mask_i.val();
        self.uniform.next = (self.op_i.val() == StackOp::Advance)
            | !self.taken.val().any()
            | !self.not_taken.val().any()
            | (self.pc_i.val() == self.alt_pc_i.val());
        self.next_pc.next = self.pc_i.val();
        if (self.op_i.val() == StackOp::Branch) & !self.taken.val().any() {
            self.next_pc.next = self.alt_pc_i.val();
        }

        self.status.d.next = StackStatus::Ok;
        self.x_we.next = false;
        self.x_pc_new.next = self.next_pc.val();
        self.x_valid_new.next = true;
        self.replace_we.next = false;
        self.push_we.next = false;
        if (self.op_i.val() == StackOp::Advance) | (self.op_i.val() == StackOp::Branch) {
            if !self.sp.q.val().any() {
                self.status.d.next = StackStatus::Underflow;
            } else if !self.x_valid.val() {
                self.status.d.next = StackStatus::InvalidPath;
            } else if self.uniform.val() {
                if (self.next_pc.val() == self.tos_rpc_o.val()) & !self.sibling_valid.val() {
                    self.sp.d.next = self.sp.q.val() - 1;
                } else {
                    self.x_we.next = true;
                    self.x_valid_new.next = self.next_pc.val() != self.tos_rpc_o.val();
                }
            } else if (self.rpc_i.val() == self.tos_rpc_o.val()) & !self.sibling_valid.val() {
                self.replace_we.next = true;
            } else if self.sp.q.val() == self.capacity.val() {
                self.status.d.next = StackStatus::Overflow;
            } else {
                self.x_we.next = true;
                self.x_pc_new.next = self.rpc_i.val();
                self.x_valid_new.next = self.rpc_i.val() != self.tos_rpc_o.val();
                self.push_we.next = true;
                self.sp.d.next = self.sp.q.val() + 1;
            }
        }
        if self.op_i.val() == StackOp::Init {
            self.sp.d.next = 1.into();
        }

        // Write ports.
        for i in 0..self._depth {
            if (self.op_i.val() == StackOp::Init) & !self.entry_index[i].val().any() {
                self.l_pc[i].d.next = self.pc_i.val();
                self.l_mask[i].d.next = self.mask_i.val();
                self.l_valid[i].d.next = true;
                self.r_pc[i].d.next = 0.into();
                self.r_mask[i].d.next = 0.into();
                self.r_valid[i].d.next = false;
                self.rpc[i].d.next = self.rpc_i.val();
            }
            if self.x_we.val() & (self.sp.q.val() == self.entry_above[i].val()) {
                if self.path_i.val() {
                    self.r_pc[i].d.next = self.x_pc_new.val();
                    self.r_valid[i].d.next = self.x_valid_new.val();
                } else {
                    self.l_pc[i].d.next = self.x_pc_new.val();
                    self.l_valid[i].d.next = self.x_valid_new.val();
                }
            }
            if (self.replace_we.val() & (self.sp.q.val() == self.entry_above[i].val()))
                | (self.push_we.val() & (self.sp.q.val() == self.entry_index[i].val()))
            {
                self.l_pc[i].d.next = self.pc_i.val();
                self.l_mask[i].d.next = self.taken.val();
                self.l_valid[i].d.next = self.pc_i.val() != self.rpc_i.val();
                self.r_pc[i].d.next = self.alt_pc_i.val();
                self.r_mask[i].d.next = self.not_taken.val();
                self.r_valid[i].d.next = self.alt_pc_i.val() != self.rpc_i.val();
                self.rpc[i].d.next = self.rpc_i.val();
            }
        }
    }
}
