//! Golden model of the split/merge datapath of one wavefront slot, written from design.md
//! decisions 3 and 4 and \[P\] §4.1 / Fig 5, independently of `pws_hdl::split_merge`; and
//! [`rtl`], which drives the RTL unit through the cycle driver so both answer the same
//! [`Request`]s with the same [`Outcome`]s and [`ContextView`]s.
//!
//! The model works per completed request: [`SplitMergeModel::apply`] returns the outcome and the
//! number of cycles the hardware is specified to take (the documented e_s / e_m), and the
//! equivalence tests compare outcome, cycles and every live context after each request.

use std::fmt;

/// One request to the datapath.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Start a wavefront on the WF context (context 0) with this EXEC and PC.
    Launch { exec: u64, pc: u32 },
    /// Context `ctx` executes `split` with mask M; the new SWF starts at `pc` with a copy of
    /// the first `sgprs` SGPRs (the wavefront's allocation; 0 or more than the SRF holds means
    /// the whole SRF).
    Split {
        ctx: usize,
        mask: u64,
        pc: u32,
        sgprs: usize,
    },
    /// Context `ctx` reaches `merge`.
    Merge { ctx: usize },
    /// The wavefront ends (`s_endpgm` on context 0).
    End,
    /// The scalar unit writes SGPR `reg` of context `ctx` (one cycle, not a datapath request).
    WriteSgpr { ctx: usize, reg: usize, value: u32 },
}

/// What a request did (design.md decisions 3 and 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    SplitNoop,
    NoFreeContext,
    StackOverflow,
    MergeNoop,
    MergeWait,
    Merged,
    NoPartner,
    BadContext,
}

impl Outcome {
    /// Requests that are errors of the program, not normal operation.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            Outcome::StackOverflow | Outcome::NoPartner | Outcome::BadContext
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::SplitNoop => "split-noop",
            Outcome::NoFreeContext => "no-free-context",
            Outcome::StackOverflow => "stack-overflow",
            Outcome::MergeNoop => "merge-noop",
            Outcome::MergeWait => "merge-wait",
            Outcome::Merged => "merged",
            Outcome::NoPartner => "no-partner",
            Outcome::BadContext => "bad-context",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Run state of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    Free,
    Running,
    Waiting,
}

impl RunState {
    pub fn name(self) -> &'static str {
        match self {
            RunState::Free => "free",
            RunState::Running => "running",
            RunState::Waiting => "waiting",
        }
    }
}

/// A child-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackEntry {
    /// A split that allocated no context.
    Noop,
    /// The SWF context a split created.
    Child(usize),
}

impl fmt::Display for StackEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StackEntry::Noop => f.write_str("nop"),
            StackEntry::Child(c) => write!(f, "{c}"),
        }
    }
}

/// The observable state of one context. Fields other than `state` are meaningful only while the
/// context is not free (hardware keeps stale values in a free context); [`ContextView::live`]
/// blanks them so views compare equal exactly when the meaningful state is equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextView {
    pub state: RunState,
    /// Creator of an SWF context; `None` for the WF context.
    pub parent: Option<usize>,
    pub spm: u64,
    pub exec: u64,
    pub pc: u32,
    /// Bottom first.
    pub stack: Vec<StackEntry>,
}

impl ContextView {
    /// The view with the fields of a free context cleared.
    pub fn live(self) -> Self {
        if self.state == RunState::Free {
            ContextView {
                state: RunState::Free,
                parent: None,
                spm: 0,
                exec: 0,
                pc: 0,
                stack: vec![],
            }
        } else {
            self
        }
    }
}

/// Geometry the model needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// S: SWF contexts (context numbers 1..=S), also the child-stack depth.
    pub spsimds: usize,
    pub sgprs: usize,
    pub wavefront_width: usize,
    /// SGPRs the split datapath copies per cycle.
    pub copy_width: usize,
}

#[derive(Clone, Debug)]
struct Ctx {
    state: RunState,
    parent: Option<usize>,
    spm: u64,
    exec: u64,
    pc: u32,
    stack: Vec<StackEntry>,
    srf: Vec<u32>,
}

/// The golden model of one wavefront slot's contexts.
#[derive(Clone, Debug)]
pub struct SplitMergeModel {
    cfg: ModelConfig,
    ctxs: Vec<Ctx>,
    no_free: u64,
}

impl SplitMergeModel {
    pub fn new(cfg: ModelConfig) -> Self {
        let ctx = Ctx {
            state: RunState::Free,
            parent: None,
            spm: 0,
            exec: 0,
            pc: 0,
            stack: Vec::new(),
            srf: vec![0; cfg.sgprs],
        };
        SplitMergeModel {
            cfg,
            ctxs: vec![ctx; cfg.spsimds + 1],
            no_free: 0,
        }
    }

    fn all_lanes(&self) -> u64 {
        match self.cfg.wavefront_width {
            64 => u64::MAX,
            w => (1u64 << w) - 1,
        }
    }

    /// Splits that found no free SWF context so far.
    pub fn no_free_count(&self) -> u64 {
        self.no_free
    }

    /// SGPRs a split asked to copy `requested` copies: a request for none or for more than
    /// the SRF holds copies all of it.
    pub fn copied(&self, requested: usize) -> usize {
        if requested == 0 || requested > self.cfg.sgprs {
            self.cfg.sgprs
        } else {
            requested
        }
    }

    /// Cycles the hardware takes for an allocating split copying `requested` SGPRs: e_s.
    pub fn split_cost(&self, requested: usize) -> u64 {
        // Decide, then one read per row of `copy_width` SGPRs plus the write of the last row.
        let rows = self.copied(requested).div_ceil(self.cfg.copy_width);
        1 + rows as u64 + 1
    }

    /// The view of every context, context 0 first.
    pub fn views(&self) -> Vec<ContextView> {
        self.ctxs
            .iter()
            .map(|c| {
                ContextView {
                    state: c.state,
                    parent: c.parent,
                    spm: c.spm,
                    exec: c.exec,
                    pc: c.pc,
                    stack: c.stack.clone(),
                }
                .live()
            })
            .collect()
    }

    /// The SRF of a context.
    pub fn srf(&self, ctx: usize) -> &[u32] {
        &self.ctxs[ctx].srf
    }

    fn runnable(&self, ctx: usize) -> bool {
        ctx < self.ctxs.len() && self.ctxs[ctx].state == RunState::Running
    }

    /// Applies one request; returns its outcome and its cycle count.
    pub fn apply(&mut self, req: Request) -> (Outcome, u64) {
        match req {
            Request::Launch { exec, pc } => (self.launch(exec, pc), 1),
            Request::Split {
                ctx,
                mask,
                pc,
                sgprs,
            } => self.split(ctx, mask, pc, sgprs),
            Request::Merge { ctx } => (self.merge(ctx), 1),
            Request::End => (self.end(), 1),
            Request::WriteSgpr { ctx, reg, value } => {
                if let Some(r) = self.ctxs.get_mut(ctx).and_then(|c| c.srf.get_mut(reg)) {
                    *r = value;
                }
                (Outcome::Ok, 1)
            }
        }
    }

    fn launch(&mut self, exec: u64, pc: u32) -> Outcome {
        if self.ctxs[0].state != RunState::Free {
            return Outcome::BadContext;
        }
        let lanes = self.all_lanes();
        let wf = &mut self.ctxs[0];
        wf.state = RunState::Running;
        wf.spm = lanes;
        wf.exec = exec & lanes;
        wf.pc = pc;
        wf.stack.clear();
        Outcome::Ok
    }

    /// Only an unsplit, running wavefront may end: every SWF must have merged back first.
    fn end(&mut self) -> Outcome {
        let wf = &mut self.ctxs[0];
        if wf.state != RunState::Running || !wf.stack.is_empty() {
            return Outcome::BadContext;
        }
        wf.state = RunState::Free;
        Outcome::Ok
    }

    fn split(&mut self, c: usize, m: u64, pc: u32, sgprs: usize) -> (Outcome, u64) {
        if !self.runnable(c) {
            return (Outcome::BadContext, 1);
        }
        if self.ctxs[c].stack.len() == self.cfg.spsimds {
            return (Outcome::StackOverflow, 1);
        }
        let old = self.ctxs[c].spm;
        let (keep, give) = (old & m, old & !m);
        if keep == 0 || give == 0 {
            self.ctxs[c].stack.push(StackEntry::Noop);
            return (Outcome::SplitNoop, 1);
        }
        let Some(f) = (1..self.ctxs.len()).find(|&k| self.ctxs[k].state == RunState::Free) else {
            self.ctxs[c].stack.push(StackEntry::Noop);
            self.no_free = (self.no_free + 1).min(u64::from(u16::MAX));
            return (Outcome::NoFreeContext, 1);
        };
        // Only the allocated SGPRs move; the new context's others keep their old values.
        let n = self.copied(sgprs);
        let (copied, exec) = (self.ctxs[c].srf[..n].to_vec(), self.ctxs[c].exec);
        let child = &mut self.ctxs[f];
        child.state = RunState::Running;
        child.parent = Some(c);
        child.spm = give;
        child.exec = exec;
        child.pc = pc;
        child.stack.clear();
        child.srf[..n].copy_from_slice(&copied);
        self.ctxs[c].spm = keep;
        self.ctxs[c].stack.push(StackEntry::Child(f));
        (Outcome::Ok, self.split_cost(sgprs))
    }

    fn merge(&mut self, x: usize) -> Outcome {
        if !self.runnable(x) {
            return Outcome::BadContext;
        }
        match self.ctxs[x].stack.last().copied() {
            Some(StackEntry::Noop) => {
                self.ctxs[x].stack.pop();
                Outcome::MergeNoop
            }
            Some(StackEntry::Child(c)) => {
                let child = &self.ctxs[c];
                if child.state == RunState::Waiting && child.stack.is_empty() {
                    self.join(x, c);
                    Outcome::Merged
                } else {
                    self.ctxs[x].state = RunState::Waiting;
                    Outcome::MergeWait
                }
            }
            None => match self.ctxs[x].parent {
                None => Outcome::NoPartner,
                Some(p) => {
                    let parent = &self.ctxs[p];
                    if parent.state == RunState::Waiting
                        && parent.stack.last() == Some(&StackEntry::Child(x))
                    {
                        self.join(p, x);
                        self.ctxs[p].state = RunState::Running;
                        Outcome::Merged
                    } else {
                        self.ctxs[x].state = RunState::Waiting;
                        Outcome::MergeWait
                    }
                }
            },
        }
    }

    /// Parent `p` absorbs child `c` (decision 4): masks OR, the child's SRF is dropped, the
    /// stack pops and the child context is freed.
    fn join(&mut self, p: usize, c: usize) {
        let (spm, exec) = (self.ctxs[c].spm, self.ctxs[c].exec);
        let parent = &mut self.ctxs[p];
        parent.spm |= spm;
        parent.exec |= exec;
        parent.stack.pop();
        let child = &mut self.ctxs[c];
        child.state = RunState::Free;
        child.parent = None;
    }
}

/// The RTL unit behind the same interface as the model.
pub mod rtl {
    use std::io::Write;

    use pws_hdl::config::{HwConfig, SGPR_ADDR_BITS};
    use pws_hdl::context::{ContextState, NOOP_MARKER};
    use pws_hdl::split_merge::{SmOp, SmStatus, SplitMergeUnit};
    use pws_sim::{Driver, DriverError};
    use rust_hdl::prelude::*;

    use super::{ContextView, Outcome, Request, RunState, StackEntry};

    /// Why driving the RTL failed.
    #[derive(Debug, thiserror::Error)]
    pub enum RtlError {
        #[error(transparent)]
        Config(#[from] pws_hdl::split_merge::SplitMergeConfigError),
        #[error(transparent)]
        Driver(#[from] DriverError),
        #[error("context {ctx} does not fit the 3-bit context port (0..=7)")]
        ContextRange { ctx: usize },
        #[error("SGPR {reg} is out of range 0..{count}")]
        SgprRange { reg: usize, count: usize },
        #[error("an SGPR count of {0} does not fit the 7-bit count port (0..=127)")]
        SgprCount(usize),
        #[error("the unit did not finish a request within {0} cycles")]
        Timeout(u64),
        #[error("context {ctx}: the read port shows stack top {top} at depth {depth}, the stack holds {stack:?}")]
        ReadPort {
            ctx: usize,
            top: u64,
            depth: usize,
            stack: Vec<u64>,
        },
    }

    /// [`SplitMergeUnit`] under the cycle driver.
    pub struct SplitMergeRtl {
        driver: Driver<SplitMergeUnit>,
        cfg: HwConfig,
    }

    impl SplitMergeRtl {
        pub fn new(cfg: &HwConfig) -> Result<Self, RtlError> {
            Ok(SplitMergeRtl {
                driver: Driver::new(SplitMergeUnit::new(cfg)?)?,
                cfg: *cfg,
            })
        }

        /// Like [`SplitMergeRtl::new`], streaming a VCD trace to `out`.
        pub fn with_vcd(cfg: &HwConfig, out: impl Write + 'static) -> Result<Self, RtlError> {
            let unit = SplitMergeUnit::new(cfg)?;
            Ok(SplitMergeRtl {
                driver: Driver::with_vcd(unit, out)?,
                cfg: *cfg,
            })
        }

        /// Cycles simulated so far.
        pub fn cycles(&self) -> u64 {
            self.driver.cycle()
        }

        fn check_ctx(&self, ctx: usize) -> Result<Bits<3>, RtlError> {
            // Context numbers beyond S still reach the hardware (it must reject them), but
            // only numbers that fit the 3-bit port can be driven.
            if ctx > 7 {
                return Err(RtlError::ContextRange { ctx });
            }
            Ok((ctx as u64).to_bits())
        }

        /// Presents a request and holds it until `done`; returns the status and the cycles
        /// from the first edge that sampled it to the edge after which `done` was high.
        pub fn apply(&mut self, req: Request) -> Result<(Outcome, u64), RtlError> {
            let (op, ctx, mask, pc, sgprs) = match req {
                Request::Launch { exec, pc } => (SmOp::Launch, 0, exec, pc, 0),
                Request::Split {
                    ctx,
                    mask,
                    pc,
                    sgprs,
                } => (SmOp::Split, ctx, mask, pc, sgprs),
                Request::Merge { ctx } => (SmOp::Merge, ctx, 0, 0, 0),
                Request::End => (SmOp::End, 0, 0, 0, 0),
                Request::WriteSgpr { ctx, reg, value } => {
                    self.write_sgpr(ctx, reg, value)?;
                    return Ok((Outcome::Ok, 1));
                }
            };
            let ctx = self.check_ctx(ctx)?;
            if sgprs >= 1 << SGPR_ADDR_BITS {
                return Err(RtlError::SgprCount(sgprs));
            }
            let u = self.driver.uut_mut();
            u.req_op.next = op;
            u.req_sgpr_count.next = (sgprs as u64).to_bits();
            u.req_ctx.next = ctx;
            u.req_mask_lo.next = (mask & 0xFFFF_FFFF).to_bits();
            u.req_mask_hi.next = (mask >> 32).to_bits();
            u.req_pc.next = (pc as u64).to_bits();
            let limit = self.cfg.sgprs_per_context as u64 + 16;
            for cycles in 1..=limit {
                self.driver.tick()?;
                if self.driver.uut().done.val() {
                    self.driver.uut_mut().req_op.next = SmOp::Idle;
                    self.driver.settle()?;
                    return Ok((outcome(self.driver.uut().status.val()), cycles));
                }
            }
            Err(RtlError::Timeout(limit))
        }

        /// Writes one SGPR through the unit's SRF port (one cycle).
        pub fn write_sgpr(&mut self, ctx: usize, reg: usize, value: u32) -> Result<(), RtlError> {
            let sel = self.check_ctx(ctx)?;
            self.check_reg(reg)?;
            let u = self.driver.uut_mut();
            u.srf_ctx.next = sel;
            u.srf_addr.next = (reg as u64).to_bits();
            u.srf_wdata.next = (value as u64).to_bits();
            u.srf_we.next = true;
            self.driver.tick()?;
            self.driver.uut_mut().srf_we.next = false;
            self.driver.settle()?;
            Ok(())
        }

        /// Writes a context's PC and EXEC through the CU's write port (one cycle), as the
        /// instruction pipeline does when a context advances or changes EXEC.
        pub fn write_pc_exec(&mut self, ctx: usize, pc: u32, exec: u64) -> Result<(), RtlError> {
            let sel = self.check_ctx(ctx)?;
            let u = self.driver.uut_mut();
            u.wr_ctx.next = sel;
            u.wr_pc_en.next = true;
            u.wr_pc.next = (pc as u64).to_bits();
            u.wr_exec_en.next = true;
            u.wr_exec_lo.next = (exec & 0xFFFF_FFFF).to_bits();
            u.wr_exec_hi.next = (exec >> 32).to_bits();
            self.driver.tick()?;
            let u = self.driver.uut_mut();
            u.wr_pc_en.next = false;
            u.wr_exec_en.next = false;
            self.driver.settle()?;
            Ok(())
        }

        /// Reads one SGPR through the unit's SRF port (one cycle).
        pub fn read_sgpr(&mut self, ctx: usize, reg: usize) -> Result<u32, RtlError> {
            let sel = self.check_ctx(ctx)?;
            self.check_reg(reg)?;
            let u = self.driver.uut_mut();
            u.srf_ctx.next = sel;
            u.srf_addr.next = (reg as u64).to_bits();
            self.driver.tick()?;
            Ok(self.driver.uut().srf_rdata.val().to_u64() as u32)
        }

        fn check_reg(&self, reg: usize) -> Result<(), RtlError> {
            if reg >= self.cfg.sgprs_per_context {
                return Err(RtlError::SgprRange {
                    reg,
                    count: self.cfg.sgprs_per_context,
                });
            }
            Ok(())
        }

        /// The whole SRF of a context.
        pub fn srf(&mut self, ctx: usize) -> Result<Vec<u32>, RtlError> {
            (0..self.cfg.sgprs_per_context)
                .map(|r| self.read_sgpr(ctx, r))
                .collect()
        }

        /// Splits that found no free context, from the unit's statistics counter.
        pub fn no_free_count(&self) -> u64 {
            self.driver.uut().no_free_count.val().to_u64()
        }

        /// Every context as the hardware holds it, read through the `rd_*` port (the whole
        /// child stack is peeked; the port's top and depth must agree with it).
        pub fn views(&mut self) -> Result<Vec<ContextView>, RtlError> {
            let mut views = Vec::new();
            for k in 0..self.cfg.contexts_per_wavefront() {
                self.driver.uut_mut().rd_ctx.next = (k as u64).to_bits();
                self.driver.settle()?;
                let u = self.driver.uut();
                let state = match u.rd_state.val() {
                    ContextState::Free => RunState::Free,
                    ContextState::Running => RunState::Running,
                    ContextState::Waiting => RunState::Waiting,
                };
                let raw = u.contexts[k].stack.peek();
                let (top, depth) = (
                    u.rd_stack_top.val().to_u64(),
                    u.rd_stack_depth.val().index(),
                );
                if depth != raw.len() || top != raw.last().copied().unwrap_or(NOOP_MARKER) {
                    return Err(RtlError::ReadPort {
                        ctx: k,
                        top,
                        depth,
                        stack: raw,
                    });
                }
                let stack = raw
                    .into_iter()
                    .map(|e| {
                        if e == NOOP_MARKER {
                            StackEntry::Noop
                        } else {
                            StackEntry::Child(e as usize)
                        }
                    })
                    .collect::<Vec<_>>();
                let view = ContextView {
                    state,
                    parent: (k != 0).then(|| u.rd_parent.val().index()),
                    spm: u.rd_spm_lo.val().to_u64() | u.rd_spm_hi.val().to_u64() << 32,
                    exec: u.rd_exec_lo.val().to_u64() | u.rd_exec_hi.val().to_u64() << 32,
                    pc: u.rd_pc.val().to_u64() as u32,
                    stack,
                };
                views.push(view.live());
            }
            Ok(views)
        }
    }

    fn outcome(s: SmStatus) -> Outcome {
        match s {
            SmStatus::Ok => Outcome::Ok,
            SmStatus::SplitNoop => Outcome::SplitNoop,
            SmStatus::NoFreeContext => Outcome::NoFreeContext,
            SmStatus::StackOverflow => Outcome::StackOverflow,
            SmStatus::MergeNoop => Outcome::MergeNoop,
            SmStatus::MergeWait => Outcome::MergeWait,
            SmStatus::Merged => Outcome::Merged,
            SmStatus::NoPartner => Outcome::NoPartner,
            SmStatus::BadContext => Outcome::BadContext,
        }
    }
}
