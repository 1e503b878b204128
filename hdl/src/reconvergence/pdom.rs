//! The single-path (SPE) PDOM stack with GPGPU-Sim's update rules (digest §2.1).
//!
//! Entries are `{PC, RPC, mask}`; only the top entry issues. A divergent branch with IPDOM `r`
//! turns the top entry into the reconvergence entry (`PC := r`, full mask kept) and pushes the
//! not-taken group, then the taken group, so the taken path runs first; a group already at `r`
//! is not pushed. Two refinements keep the stack shallow, as in GPGPU-Sim: a group whose
//! target is the top entry's own RPC has reached the enclosing reconvergence point and waits
//! in the entry below (the top entry continues with the other group alone), and a branch whose
//! IPDOM equals the top entry's RPC replaces the top entry by its not-taken group instead of
//! adding a reconvergence entry (loops after the first iteration, nested branches sharing an
//! IPDOM). A path whose next PC is its entry's RPC pops.

use rust_hdl::prelude::*;

use super::{check_depth, registers, StackDepthError, StackOp, StackStatus};

/// Single-path PDOM reconvergence stack of `depth` entries.
#[derive(LogicBlock)]
pub struct PdomStack {
    pub clock: Signal<In, Clock>,
    pub op_i: Signal<In, StackOp>,
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
    pub tos_pc_o: Signal<Out, Bits<32>>,
    pub tos_rpc_o: Signal<Out, Bits<32>>,
    pub tos_mask_o: Signal<Out, Bits<64>>,
    pub depth_o: Signal<Out, Bits<6>>,
    pub empty_o: Signal<Out, Bit>,
    /// Outcome of the previous cycle's operation.
    pub status_o: Signal<Out, StackStatus>,
    pub peek_pc_o: Signal<Out, Bits<32>>,
    pub peek_rpc_o: Signal<Out, Bits<32>>,
    pub peek_mask_o: Signal<Out, Bits<64>>,
    pc: Vec<DFF<Bits<32>>>,
    rpc: Vec<DFF<Bits<32>>>,
    mask: Vec<DFF<Bits<64>>>,
    sp: DFF<Bits<6>>,
    status: DFF<StackStatus>,
    tos_pc: Signal<Local, Bits<32>>,
    tos_rpc: Signal<Local, Bits<32>>,
    tos_mask: Signal<Local, Bits<64>>,
    taken: Signal<Local, Bits<64>>,
    not_taken: Signal<Local, Bits<64>>,
    /// All active lanes continue at `next_pc`.
    uniform: Signal<Local, Bit>,
    next_pc: Signal<Local, Bits<32>>,
    /// Rewrite of the top entry's PC and mask.
    tos_we: Signal<Local, Bit>,
    tos_pc_new: Signal<Local, Bits<32>>,
    tos_mask_new: Signal<Local, Bits<64>>,
    /// Up to two pushes, at entries `sp` and `sp + 1`, sharing one RPC.
    push_rpc: Signal<Local, Bits<32>>,
    push0_we: Signal<Local, Bit>,
    push0_pc: Signal<Local, Bits<32>>,
    push0_mask: Signal<Local, Bits<64>>,
    push1_we: Signal<Local, Bit>,
    push1_pc: Signal<Local, Bits<32>>,
    push1_mask: Signal<Local, Bits<64>>,
    entry_index: Vec<Constant<Bits<6>>>,
    entry_above: Vec<Constant<Bits<6>>>,
    capacity: Constant<Bits<6>>,
    capacity_less_one: Constant<Bits<6>>,
    _depth: usize,
}

impl PdomStack {
    /// A stack of `depth` entries.
    pub fn new(depth: usize) -> Result<Self, StackDepthError> {
        check_depth(depth)?;
        let six = |n: usize| Constant::new(Bits::<6>::from(n as u64));
        Ok(PdomStack {
            clock: Default::default(),
            op_i: Default::default(),
            pc_i: Default::default(),
            alt_pc_i: Default::default(),
            rpc_i: Default::default(),
            mask_i: Default::default(),
            peek_i: Default::default(),
            tos_pc_o: Default::default(),
            tos_rpc_o: Default::default(),
            tos_mask_o: Default::default(),
            depth_o: Default::default(),
            empty_o: Default::default(),
            status_o: Default::default(),
            peek_pc_o: Default::default(),
            peek_rpc_o: Default::default(),
            peek_mask_o: Default::default(),
            pc: registers(depth),
            rpc: registers(depth),
            mask: registers(depth),
            sp: Default::default(),
            status: Default::default(),
            tos_pc: Default::default(),
            tos_rpc: Default::default(),
            tos_mask: Default::default(),
            taken: Default::default(),
            not_taken: Default::default(),
            uniform: Default::default(),
            next_pc: Default::default(),
            tos_we: Default::default(),
            tos_pc_new: Default::default(),
            tos_mask_new: Default::default(),
            push_rpc: Default::default(),
            push0_we: Default::default(),
            push0_pc: Default::default(),
            push0_mask: Default::default(),
            push1_we: Default::default(),
            push1_pc: Default::default(),
            push1_mask: Default::default(),
            entry_index: (0..depth).map(six).collect(),
            entry_above: (0..depth).map(|i| six(i + 1)).collect(),
            capacity: six(depth),
            capacity_less_one: six(depth - 1),
            _depth: depth,
        })
    }

    /// Entries the stack holds.
    pub fn capacity(&self) -> usize {
        self._depth
    }
}

impl Logic for PdomStack {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sp, status);
        for i in 0..self._depth {
            self.pc[i].clock.next = self.clock.val();
            self.rpc[i].clock.next = self.clock.val();
            self.mask[i].clock.next = self.clock.val();
            self.pc[i].d.next = self.pc[i].q.val();
            self.rpc[i].d.next = self.rpc[i].q.val();
            self.mask[i].d.next = self.mask[i].q.val();
        }

        // Read ports: the top entry and the peeked one.
        self.tos_pc.next = 0.into();
        self.tos_rpc.next = 0.into();
        self.tos_mask.next = 0.into();
        self.peek_pc_o.next = 0.into();
        self.peek_rpc_o.next = 0.into();
        self.peek_mask_o.next = 0.into();
        for i in 0..self._depth {
            if self.sp.q.val() == self.entry_above[i].val() {
                self.tos_pc.next = self.pc[i].q.val();
                self.tos_rpc.next = self.rpc[i].q.val();
                self.tos_mask.next = self.mask[i].q.val();
            }
            if self.peek_i.val() == self.entry_index[i].val() {
                self.peek_pc_o.next = self.pc[i].q.val();
                self.peek_rpc_o.next = self.rpc[i].q.val();
                self.peek_mask_o.next = self.mask[i].q.val();
            }
        }

        // Decode the operation against the top entry.
        self.taken.next = self.tos_mask.val() & self.mask_i.val();
        self.not_taken.next = self.tos_mask.val() & !self.mask_i.val();
        self.uniform.next = (self.op_i.val() == StackOp::Advance)
            | !self.taken.val().any()
            | !self.not_taken.val().any()
            | (self.pc_i.val() == self.alt_pc_i.val());
        self.next_pc.next = self.pc_i.val();
        if (self.op_i.val() == StackOp::Branch) & !self.taken.val().any() {
            self.next_pc.next = self.alt_pc_i.val();
        }

        self.status.d.next = StackStatus::Ok;
        self.tos_we.next = false;
        self.tos_pc_new.next = self.next_pc.val();
        self.tos_mask_new.next = self.tos_mask.val();
        self.push_rpc.next = self.tos_rpc.val();
        self.push0_we.next = false;
        self.push0_pc.next = self.pc_i.val();
        self.push0_mask.next = self.taken.val();
        self.push1_we.next = false;
        self.push1_pc.next = self.pc_i.val();
        self.push1_mask.next = self.taken.val();
        if (self.op_i.val() == StackOp::Advance) | (self.op_i.val() == StackOp::Branch) {
            if !self.sp.q.val().any() {
                self.status.d.next = StackStatus::Underflow;
            } else if self.uniform.val() {
                if self.next_pc.val() == self.tos_rpc.val() {
                    self.sp.d.next = self.sp.q.val() - 1;
                } else {
                    self.tos_we.next = true;
                }
            } else if self.pc_i.val() == self.tos_rpc.val() {
                // The taken lanes wait below at the enclosing reconvergence point.
                self.tos_we.next = true;
                self.tos_pc_new.next = self.alt_pc_i.val();
                self.tos_mask_new.next = self.not_taken.val();
            } else if self.alt_pc_i.val() == self.tos_rpc.val() {
                self.tos_we.next = true;
                self.tos_pc_new.next = self.pc_i.val();
                self.tos_mask_new.next = self.taken.val();
            } else if self.rpc_i.val() == self.tos_rpc.val() {
                // Same IPDOM as the top entry: it becomes the not-taken path.
                if self.sp.q.val() == self.capacity.val() {
                    self.status.d.next = StackStatus::Overflow;
                } else {
                    self.tos_we.next = true;
                    self.tos_pc_new.next = self.alt_pc_i.val();
                    self.tos_mask_new.next = self.not_taken.val();
                    self.push0_we.next = true;
                    self.sp.d.next = self.sp.q.val() + 1;
                }
            } else if (self.alt_pc_i.val() == self.rpc_i.val())
                | (self.pc_i.val() == self.rpc_i.val())
            {
                // One group is already at the IPDOM: push only the other.
                if self.sp.q.val() == self.capacity.val() {
                    self.status.d.next = StackStatus::Overflow;
                } else {
                    self.tos_we.next = true;
                    self.tos_pc_new.next = self.rpc_i.val();
                    self.push_rpc.next = self.rpc_i.val();
                    self.push0_we.next = true;
                    if self.pc_i.val() == self.rpc_i.val() {
                        self.push0_pc.next = self.alt_pc_i.val();
                        self.push0_mask.next = self.not_taken.val();
                    }
                    self.sp.d.next = self.sp.q.val() + 1;
                }
            } else if self.sp.q.val() >= self.capacity_less_one.val() {
                self.status.d.next = StackStatus::Overflow;
            } else {
                self.tos_we.next = true;
                self.tos_pc_new.next = self.rpc_i.val();
                self.push_rpc.next = self.rpc_i.val();
                self.push0_we.next = true;
                self.push0_pc.next = self.alt_pc_i.val();
                self.push0_mask.next = self.not_taken.val();
                self.push1_we.next = true;
                self.sp.d.next = self.sp.q.val() + 2;
            }
        }
        if self.op_i.val() == StackOp::Init {
            self.sp.d.next = 1.into();
        }

        // Write ports.
        for i in 0..self._depth {
            if (self.op_i.val() == StackOp::Init) & !self.entry_index[i].val().any() {
                self.pc[i].d.next = self.pc_i.val();
                self.rpc[i].d.next = self.rpc_i.val();
                self.mask[i].d.next = self.mask_i.val();
            }
            if self.tos_we.val() & (self.sp.q.val() == self.entry_above[i].val()) {
                self.pc[i].d.next = self.tos_pc_new.val();
                self.mask[i].d.next = self.tos_mask_new.val();
            }
            if self.push0_we.val() & (self.sp.q.val() == self.entry_index[i].val()) {
                self.pc[i].d.next = self.push0_pc.val();
                self.rpc[i].d.next = self.push_rpc.val();
                self.mask[i].d.next = self.push0_mask.val();
            }
            if self.push1_we.val() & (self.sp.q.val() + 1 == self.entry_index[i].val()) {
                self.pc[i].d.next = self.push1_pc.val();
                self.rpc[i].d.next = self.push_rpc.val();
                self.mask[i].d.next = self.push1_mask.val();
            }
        }

        self.tos_pc_o.next = self.tos_pc.val();
        self.tos_rpc_o.next = self.tos_rpc.val();
        self.tos_mask_o.next = self.tos_mask.val();
        self.depth_o.next = self.sp.q.val();
        self.empty_o.next = !self.sp.q.val().any();
        self.status_o.next = self.status.q.val();
    }
}
