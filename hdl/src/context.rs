//! Wavefront (WF) and split-wavefront (SWF) contexts: the per-context state PWS adds to a SIMD
//! slot (\[P\] §4.1, Fig 4), and the slot's banked scalar register files.
//!
//! A wavefront slot owns one context on its SIMD (the WF context, number 0) and one on each of
//! the S SpSIMDs (SWF contexts, numbers 1..=S; \[P\]'s SpSIMDID is the number plus one). WF and
//! SWF contexts hold the same registers, so one block, [`Context`], models both; the WF
//! context's parent register is simply never written, and only the WF context has a VRF (which
//! lives in the banks of [`crate::simd::VectorUnit`], shared by the whole slot).
//!
//! A context holds: its [`ContextState`] (an SWF context is free exactly when its parent
//! register is unset, \[P\] §4.1; here "parent set" is `state != Free`), PC, EXEC (two 32-bit
//! halves, lanes 0..31 and 32..63), split mask SpM (same halves), parent and a [`ChildStack`] of
//! depth S. Every field is written only through the `set_*`/`push`/`pop` inputs, which the
//! split/merge datapath ([`crate::split_merge::SplitMergeUnit`]) drives.
//!
//! Each context also has a scalar register file (SRF). A split copies the creator's SRF into the
//! new context `srf_copy_width` (W) registers per cycle, so every SRF is banked W ways (SGPR r
//! lives in bank r mod W, row r / W) and bank b of all S + 1 contexts forms one [`SrfLane`]:
//! the 32-bit slice b of the W·32-bit copy bus that runs between the SIMD's and the SpSIMDs'
//! SRFs. The lanes are separate blocks (not fields of [`Context`]) because the copy moves one
//! row of every bank between two contexts at once.

use rust_hdl::prelude::*;

use crate::config::{HwConfig, CONTEXT_ID_BITS, SGPR_ADDR_BITS};

/// Child-stack entry that marks a split which allocated no context (\[P\] Fig 5 SWF2; design.md
/// decision 3). Context 0 is the WF context, which is never anyone's child, so 0 is free to
/// serve as the marker.
pub const NOOP_MARKER: u64 = 0;

/// Width of a child-stack depth counter (depth 0..=7).
pub const DEPTH_BITS: usize = 4;

/// What a context is doing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ContextState {
    /// No wavefront (WF context) or no parent (SWF context): available to `split`.
    Free,
    /// Executing.
    Running,
    /// Stalled at `merge` until its partner reaches `merge` too.
    Waiting,
}

/// A context's child stack: the SpSIMD contexts its live splits created, innermost on top, with
/// [`NOOP_MARKER`] for splits that created none, so merges pair with splits by nesting.
///
/// `push` and `pop` in the same cycle are not used by the datapath; `pop` wins. `push` on a
/// full stack and `pop` on an empty one leave it unchanged (the datapath reports them as
/// errors before they reach the stack).
#[derive(LogicBlock)]
pub struct ChildStack {
    pub clock: Signal<In, Clock>,
    pub push: Signal<In, Bit>,
    pub push_value: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub pop: Signal<In, Bit>,
    /// Empties the stack (a new SWF starts with no children).
    pub clear: Signal<In, Bit>,
    /// Top entry; [`NOOP_MARKER`] when the stack is empty.
    pub top: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub depth: Signal<Out, Bits<DEPTH_BITS>>,
    pub full: Signal<Out, Bit>,
    /// Entry k is the (k+1)-th push still live.
    pub entries: Vec<DFF<Bits<CONTEXT_ID_BITS>>>,
    sp: DFF<Bits<DEPTH_BITS>>,
    capacity: Constant<Bits<DEPTH_BITS>>,
}

impl ChildStack {
    /// A stack of `depth` entries (1..=7).
    pub fn new(depth: usize) -> Self {
        ChildStack {
            clock: Default::default(),
            push: Default::default(),
            push_value: Default::default(),
            pop: Default::default(),
            clear: Default::default(),
            top: Default::default(),
            depth: Default::default(),
            full: Default::default(),
            entries: (0..depth).map(|_| DFF::default()).collect(),
            sp: Default::default(),
            capacity: Constant::new(depth.to_bits()),
        }
    }

    /// The live entries, bottom first (simulation-side peek for tests and the CLI).
    pub fn peek(&self) -> Vec<u64> {
        let depth = self.sp.q.val().index();
        self.entries[..depth]
            .iter()
            .map(|e| e.q.val().to_u64())
            .collect()
    }
}

impl Logic for ChildStack {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sp);
        // An empty stack reads as the no-op marker (NOOP_MARKER = 0).
        self.top.next = 0.into();
        for i in 0..self.entries.len() {
            self.entries[i].clock.next = self.clock.val();
            self.entries[i].d.next = self.entries[i].q.val();
            if self.sp.q.val().index() == i + 1 {
                self.top.next = self.entries[i].q.val();
            }
            if self.push.val() & !self.pop.val() & (self.sp.q.val().index() == i) {
                self.entries[i].d.next = self.push_value.val();
            }
        }
        self.depth.next = self.sp.q.val();
        self.full.next = self.sp.q.val() == self.capacity.val();
        if self.clear.val() {
            self.sp.d.next = 0.into();
        } else if self.pop.val() {
            if self.sp.q.val() != 0 {
                self.sp.d.next = self.sp.q.val() - 1;
            }
        } else if self.push.val() & (self.sp.q.val() != self.capacity.val()) {
            self.sp.d.next = self.sp.q.val() + 1;
        }
    }
}

/// The PWS state of one WF or SWF context (see the module documentation).
#[derive(LogicBlock)]
pub struct Context {
    pub clock: Signal<In, Clock>,
    pub set_state: Signal<In, Bit>,
    pub state_in: Signal<In, ContextState>,
    pub set_parent: Signal<In, Bit>,
    pub parent_in: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub set_spm: Signal<In, Bit>,
    pub spm_lo_in: Signal<In, Bits<32>>,
    pub spm_hi_in: Signal<In, Bits<32>>,
    pub set_exec: Signal<In, Bit>,
    pub exec_lo_in: Signal<In, Bits<32>>,
    pub exec_hi_in: Signal<In, Bits<32>>,
    pub set_pc: Signal<In, Bit>,
    pub pc_in: Signal<In, Bits<32>>,
    pub push: Signal<In, Bit>,
    pub push_value: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub pop: Signal<In, Bit>,
    pub clear_stack: Signal<In, Bit>,
    pub state: Signal<Out, ContextState>,
    pub parent: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub spm_lo: Signal<Out, Bits<32>>,
    pub spm_hi: Signal<Out, Bits<32>>,
    pub exec_lo: Signal<Out, Bits<32>>,
    pub exec_hi: Signal<Out, Bits<32>>,
    pub pc: Signal<Out, Bits<32>>,
    pub stack_top: Signal<Out, Bits<CONTEXT_ID_BITS>>,
    pub stack_depth: Signal<Out, Bits<DEPTH_BITS>>,
    pub stack_full: Signal<Out, Bit>,
    pub stack: ChildStack,
    state_reg: DFF<ContextState>,
    parent_reg: DFF<Bits<CONTEXT_ID_BITS>>,
    spm_lo_reg: DFF<Bits<32>>,
    spm_hi_reg: DFF<Bits<32>>,
    exec_lo_reg: DFF<Bits<32>>,
    exec_hi_reg: DFF<Bits<32>>,
    pc_reg: DFF<Bits<32>>,
}

impl Context {
    /// A free context with a child stack of depth S.
    pub fn new(cfg: &HwConfig) -> Self {
        Context {
            clock: Default::default(),
            set_state: Default::default(),
            state_in: Default::default(),
            set_parent: Default::default(),
            parent_in: Default::default(),
            set_spm: Default::default(),
            spm_lo_in: Default::default(),
            spm_hi_in: Default::default(),
            set_exec: Default::default(),
            exec_lo_in: Default::default(),
            exec_hi_in: Default::default(),
            set_pc: Default::default(),
            pc_in: Default::default(),
            push: Default::default(),
            push_value: Default::default(),
            pop: Default::default(),
            clear_stack: Default::default(),
            state: Default::default(),
            parent: Default::default(),
            spm_lo: Default::default(),
            spm_hi: Default::default(),
            exec_lo: Default::default(),
            exec_hi: Default::default(),
            pc: Default::default(),
            stack_top: Default::default(),
            stack_depth: Default::default(),
            stack_full: Default::default(),
            stack: ChildStack::new(cfg.child_stack_depth()),
            state_reg: Default::default(),
            parent_reg: Default::default(),
            spm_lo_reg: Default::default(),
            spm_hi_reg: Default::default(),
            exec_lo_reg: Default::default(),
            exec_hi_reg: Default::default(),
            pc_reg: Default::default(),
        }
    }

    /// The split mask as one 64-bit value (simulation-side peek).
    pub fn spm(&self) -> u64 {
        join_halves(self.spm_lo.val(), self.spm_hi.val())
    }

    /// EXEC as one 64-bit value (simulation-side peek).
    pub fn exec(&self) -> u64 {
        join_halves(self.exec_lo.val(), self.exec_hi.val())
    }
}

/// Joins the lane 0..31 and lane 32..63 halves of a mask.
pub fn join_halves(lo: Bits<32>, hi: Bits<32>) -> u64 {
    lo.to_u64() | hi.to_u64() << 32
}

impl Logic for Context {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state_reg,
            parent_reg,
            spm_lo_reg,
            spm_hi_reg,
            exec_lo_reg,
            exec_hi_reg,
            pc_reg
        );
        clock!(self, clock, stack);
        self.stack.push.next = self.push.val();
        self.stack.push_value.next = self.push_value.val();
        self.stack.pop.next = self.pop.val();
        self.stack.clear.next = self.clear_stack.val();
        if self.set_state.val() {
            self.state_reg.d.next = self.state_in.val();
        }
        if self.set_parent.val() {
            self.parent_reg.d.next = self.parent_in.val();
        }
        if self.set_spm.val() {
            self.spm_lo_reg.d.next = self.spm_lo_in.val();
            self.spm_hi_reg.d.next = self.spm_hi_in.val();
        }
        if self.set_exec.val() {
            self.exec_lo_reg.d.next = self.exec_lo_in.val();
            self.exec_hi_reg.d.next = self.exec_hi_in.val();
        }
        if self.set_pc.val() {
            self.pc_reg.d.next = self.pc_in.val();
        }
        self.state.next = self.state_reg.q.val();
        self.parent.next = self.parent_reg.q.val();
        self.spm_lo.next = self.spm_lo_reg.q.val();
        self.spm_hi.next = self.spm_hi_reg.q.val();
        self.exec_lo.next = self.exec_lo_reg.q.val();
        self.exec_hi.next = self.exec_hi_reg.q.val();
        self.pc.next = self.pc_reg.q.val();
        self.stack_top.next = self.stack.top.val();
        self.stack_depth.next = self.stack.depth.val();
        self.stack_full.next = self.stack.full.val();
    }
}

/// Bank b of every context's SRF: lane b of the SRF copy bus (see the module documentation).
///
/// Two users share the banks. The CU's port (`cu_*`) reads row `cu_row` of context `cu_ctx`'s
/// bank (`cu_rdata` is it as of the last rising edge) and writes it when `cu_we`. The copy
/// (`copy_*`) reads row `copy_row` of context `copy_src` while `copy_rd`, and while `copy_we`
/// writes what the bank read at the last edge into row `copy_wr_row` of context `copy_dst`, if
/// this lane's register number in that row is below `copy_remain` (the row's first register
/// counts 0), so a partial last row leaves the rest of the destination untouched. The copy wins
/// over the CU port for the banks it uses.
///
/// A lane built for the compute unit ([`SrfLane::with_context_ports`]) also has a port per
/// context (`ctx_*[k]`, bank k's own read and write ports), so the issue units serving
/// different contexts of one slot access their SRFs in the same cycle: while `ctx_rd[k]`, bank
/// k reads row `ctx_row[k]` (`ctx_rdata[k]` as of the last edge), and `ctx_we[k]` writes
/// `ctx_wdata[k]` into row `ctx_wr_row[k]`. They win over the shared `cu_*` port for bank k;
/// the copy wins over both. [`SrfLane::new`] builds the lane without them.
#[derive(LogicBlock)]
pub struct SrfLane {
    pub clock: Signal<In, Clock>,
    pub cu_ctx: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub cu_row: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub cu_we: Signal<In, Bit>,
    pub cu_wdata: Signal<In, Bits<32>>,
    pub cu_rdata: Signal<Out, Bits<32>>,
    pub copy_rd: Signal<In, Bit>,
    pub copy_src: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub copy_row: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub copy_we: Signal<In, Bit>,
    pub copy_dst: Signal<In, Bits<CONTEXT_ID_BITS>>,
    pub copy_wr_row: Signal<In, Bits<SGPR_ADDR_BITS>>,
    pub copy_remain: Signal<In, Bits<8>>,
    pub ctx_rd: Vec<Signal<In, Bit>>,
    pub ctx_row: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub ctx_rdata: Vec<Signal<Out, Bits<32>>>,
    pub ctx_we: Vec<Signal<In, Bit>>,
    pub ctx_wr_row: Vec<Signal<In, Bits<SGPR_ADDR_BITS>>>,
    pub ctx_wdata: Vec<Signal<In, Bits<32>>>,
    /// Bank k is context k's; rows beyond ceil(N_SGPR / W) are never addressed.
    pub banks: Vec<RAM<Bits<32>, SGPR_ADDR_BITS>>,
    rd_ctx: DFF<Bits<CONTEXT_ID_BITS>>,
    lane: Constant<Bits<8>>,
    bus: Signal<Local, Bits<32>>,
    copy_write: Signal<Local, Bit>,
}

impl SrfLane {
    /// Lane `lane` of the copy bus, with one bank per context of a wavefront slot.
    pub fn new(cfg: &HwConfig, lane: usize) -> Self {
        Self::build(cfg, lane, 0)
    }

    /// The same lane with a read and a write port per context (`ctx_*`).
    pub fn with_context_ports(cfg: &HwConfig, lane: usize) -> Self {
        Self::build(cfg, lane, cfg.contexts_per_wavefront())
    }

    fn build(cfg: &HwConfig, lane: usize, ports: usize) -> Self {
        let contexts = cfg.contexts_per_wavefront();
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        SrfLane {
            clock: Default::default(),
            cu_ctx: Default::default(),
            cu_row: Default::default(),
            cu_we: Default::default(),
            cu_wdata: Default::default(),
            cu_rdata: Default::default(),
            copy_rd: Default::default(),
            copy_src: Default::default(),
            copy_row: Default::default(),
            copy_we: Default::default(),
            copy_dst: Default::default(),
            copy_wr_row: Default::default(),
            copy_remain: Default::default(),
            ctx_rd: many(ports),
            ctx_row: many(ports),
            ctx_rdata: many(ports),
            ctx_we: many(ports),
            ctx_wr_row: many(ports),
            ctx_wdata: many(ports),
            banks: many(contexts),
            rd_ctx: Default::default(),
            lane: Constant::new(lane.to_bits()),
            bus: Default::default(),
            copy_write: Default::default(),
        }
    }
}

impl Logic for SrfLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_ctx);
        self.rd_ctx.d.next = self.cu_ctx.val();
        self.copy_write.next = self.copy_we.val() & (self.lane.val() < self.copy_remain.val());
        self.bus.next = 0.into();
        self.cu_rdata.next = 0.into();
        for i in 0..self.banks.len() {
            if self.copy_src.val().index() == i {
                self.bus.next = self.banks[i].read_data.val();
            }
            if self.rd_ctx.q.val().index() == i {
                self.cu_rdata.next = self.banks[i].read_data.val();
            }
        }
        for i in 0..self.banks.len() {
            self.banks[i].read_clock.next = self.clock.val();
            self.banks[i].write_clock.next = self.clock.val();
            self.banks[i].read_address.next = self.cu_row.val();
            if self.copy_rd.val() & (self.copy_src.val().index() == i) {
                self.banks[i].read_address.next = self.copy_row.val();
            }
            self.banks[i].write_enable.next = self.cu_we.val() & (self.cu_ctx.val().index() == i);
            self.banks[i].write_address.next = self.cu_row.val();
            self.banks[i].write_data.next = self.cu_wdata.val();
            if self.copy_write.val() & (self.copy_dst.val().index() == i) {
                self.banks[i].write_enable.next = true;
                self.banks[i].write_address.next = self.copy_wr_row.val();
                self.banks[i].write_data.next = self.bus.val();
            }
        }
        // Per-context ports (compute-unit lanes only); the copy keeps its banks.
        for i in 0..self.ctx_rd.len() {
            self.ctx_rdata[i].next = self.banks[i].read_data.val();
            if self.ctx_rd[i].val() & !(self.copy_rd.val() & (self.copy_src.val().index() == i)) {
                self.banks[i].read_address.next = self.ctx_row[i].val();
            }
            if self.ctx_we[i].val() & !(self.copy_write.val() & (self.copy_dst.val().index() == i))
            {
                self.banks[i].write_enable.next = true;
                self.banks[i].write_address.next = self.ctx_wr_row[i].val();
                self.banks[i].write_data.next = self.ctx_wdata[i].val();
            }
        }
    }
}
