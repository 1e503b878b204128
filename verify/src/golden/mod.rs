//! ISA-level golden model: an untimed interpreter of the GCN3 subset plus `split`/`merge`,
//! written from the GCN3 manual and the PWS paper, independently of the RTL (it shares only
//! `pws-isa`'s instruction model). It runs a launch (manifest + program) workgroup by
//! workgroup; inside a workgroup it schedules the ready contexts of all its wavefronts
//! round-robin, one instruction each per round. Race-free kernels give the same memory in
//! every mode and under any schedule. See docs/golden.md for the semantic decisions.
//!
//! Entry points: [`run`] (an assembled program and a parsed manifest) and [`run_launch`]
//! (a manifest file: loads, assembles, runs).

mod error;
mod exec;
pub mod f32;
mod lds;
mod machine;
mod memory;
mod pws;
mod report;
mod watch;

use std::path::Path;

use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::Manifest;
use pws_isa::{Instruction, Operand, Program};
use serde::Serialize;

pub use error::{GoldenError, HotPc, Site, Stuck};
pub use memory::MemFault;
pub use pws::{ContextId, EventKind};
pub use report::{BufferValues, Buffers, Mask, PwsEvent, Report, Stats, WavefrontState};

use exec::{Fault, Flow};
use lds::Lds;
use machine::{Status, Wavefront, LANES};
use memory::GlobalMemory;
use pws::StackEntry;
use watch::Violation;

/// How `split` and `merge` behave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `split` and `merge` are no-ops; one context serialises both paths.
    NoSplit,
    /// `split` and `merge` as in design.md decisions 3 and 4, with S SwfContexts per wavefront.
    Pws,
}

/// Largest S: SpSIMDIDs must fit the thesis's range (S in 0..=63).
pub const MAX_S: usize = 63;

/// Run parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub mode: Mode,
    /// SpSIMDs per SIMD (PWS mode); each holds one SwfContext of every wavefront.
    pub s: usize,
    /// The launch stops with an error when one wavefront has executed this many instructions
    /// (summed over its contexts): a runaway loop, however many wavefronts the grid has.
    pub max_instructions: u64,
    /// Keep every wavefront's final registers for [`Report::wavefronts`]. Without them a
    /// launch holds no per-wavefront state (a grid of 2^24 work-items in workgroups of one
    /// keeps 2^24 register sets otherwise).
    pub final_registers: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Pws,
            s: 2,
            max_instructions: 10_000_000,
            final_registers: true,
        }
    }
}

/// Split/merge events the trace keeps; later ones are counted in [`Stats::trace_omitted`].
pub const MAX_TRACE_EVENTS: usize = 1 << 20;

/// Loads the manifest at `path`, assembles its kernel and runs it.
pub fn run_launch(path: impl AsRef<Path>, config: &Config) -> Result<Report, GoldenError> {
    let manifest = Manifest::load(path)?;
    let source = manifest.kernel_source()?;
    let program = pws_isa::assemble(&source, &manifest.kernel.display().to_string())
        .map_err(GoldenError::Assemble)?;
    run(&program, &manifest, config)
}

/// Runs `program` on the launch `manifest` describes.
pub fn run(program: &Program, manifest: &Manifest, config: &Config) -> Result<Report, GoldenError> {
    if config.mode == Mode::Pws && config.s > MAX_S {
        return Err(GoldenError::Config(format!(
            "S = {} is out of range 0..={MAX_S} (SpSIMDs per SIMD)",
            config.s
        )));
    }
    // Refused before running, as the compute unit refuses it (`pws_isa::subset`).
    pws_isa::subset::check(program, &manifest.kernel.display().to_string())
        .map_err(GoldenError::Assemble)?;
    let abi = LaunchAbi::for_launch(program, manifest);
    if abi.group_segment_size > lds::LDS_BYTES {
        return Err(GoldenError::Config(format!(
            "the kernel's group segment ({} bytes of LDS) exceeds the compute unit's {} bytes",
            abi.group_segment_size,
            lds::LDS_BYTES
        )));
    }
    manifest.check_scratch(&abi).map_err(GoldenError::Config)?;
    let used = UsedRegisters::of(program, &abi);
    check_budget(manifest, &abi, config, &used)?;
    let mut engine = Engine::new(program, manifest, &abi, config);
    let mut wavefronts = Vec::new();
    let mut global = 0;
    for wg in 0..manifest.workgroups() {
        let mut waves: Vec<Wavefront> = (0..manifest.wavefronts_in(wg))
            .map(|i| {
                let w = Wavefront::launch(manifest, &abi, wg, i, global + i, engine.s, used.vgprs);
                engine.stats.wavefronts += 1;
                w
            })
            .collect();
        global += waves.len() as u32;
        // Each workgroup gets its own LDS allocation, zeroed.
        engine.lds = Lds::new(abi.group_segment_size);
        engine.run_workgroup(&mut waves)?;
        engine.stats.workgroups += 1;
        for w in &waves {
            engine.stats.peak_wavefront_instructions =
                engine.stats.peak_wavefront_instructions.max(w.executed);
        }
        if config.final_registers {
            wavefronts.extend(waves.iter().map(|w| final_state(w, &used)));
        }
    }
    let buffers = engine
        .memory
        .into_buffers()
        .into_iter()
        .zip(&manifest.buffers)
        .map(|((_, words), b)| (b.name.clone(), BufferValues::new(b.ty, b.len, words)))
        .collect();
    Ok(Report {
        kernel: manifest.kernel.display().to_string(),
        mode: config.mode,
        s: (config.mode == Mode::Pws).then_some(config.s),
        grid: manifest.grid[..manifest.dims as usize].to_vec(),
        workgroup: manifest.workgroup[..manifest.dims as usize].to_vec(),
        buffers: Buffers(buffers),
        wavefronts,
        trace: engine.trace,
        stats: engine.stats,
    })
}

/// Checks the launch's memory against the budget before anything is allocated: the buffers
/// and kernarg segment the model's memory copies, the private segment, the trace at its cap,
/// and, if kept, the final registers of every wavefront.
fn check_budget(
    manifest: &Manifest,
    abi: &LaunchAbi,
    config: &Config,
    used: &UsedRegisters,
) -> Result<(), GoldenError> {
    let wavefronts: u64 = (0..manifest.workgroups())
        .map(|wg| u64::from(manifest.wavefronts_in(wg)))
        .sum();
    let per_wavefront = if config.final_registers {
        (used.sgprs as u64 + used.vgprs as u64 * LANES as u64) * 4
            + std::mem::size_of::<WavefrontState>() as u64
            + 3 * 24
    } else {
        0
    };
    let registers = wavefronts * per_wavefront;
    let trace = (MAX_TRACE_EVENTS * std::mem::size_of::<PwsEvent>()) as u64;
    let scratch = manifest.scratch_bytes(abi.private_segment_size);
    pws_isa::manifest::check_budget(
        manifest.memory_bytes() + scratch + registers + trace,
        || {
            if config.final_registers {
                format!(
                "buffers and kernarg, private memory, the split/merge trace, and the final registers of {wavefronts} wavefront(s) at {per_wavefront} bytes each; `pws golden` without --json keeps no registers"
            )
            } else {
                "buffers and kernarg, private memory, and the split/merge trace".into()
            }
        },
    )?;
    Ok(())
}

/// How many SGPRs and VGPRs the program names (so the report lists only those).
struct UsedRegisters {
    sgprs: usize,
    vgprs: usize,
}

impl UsedRegisters {
    fn of(program: &Program, abi: &LaunchAbi) -> UsedRegisters {
        // The registers the launch ABI initialises are always reported.
        let mut used = UsedRegisters {
            sgprs: abi.sgpr_count() as usize,
            vgprs: usize::from(abi.workitem_vgprs),
        };
        for l in &program.instructions {
            let inst = &l.item;
            let sig = inst.opcode.signature();
            let operands = [(inst.dst, sig.dst), (inst.sdst, sig.sdst)]
                .into_iter()
                .filter_map(|(o, w)| Some((o?, w?)))
                .chain(inst.sources());
            for (op, width) in operands {
                let end = |n: u8| n as usize + width.dwords() as usize;
                match op {
                    Operand::Sgpr(n) => used.sgprs = used.sgprs.max(end(n)),
                    Operand::Vgpr(n) => used.vgprs = used.vgprs.max(end(n)),
                    _ => {}
                }
            }
        }
        used
    }
}

fn final_state(w: &Wavefront, used: &UsedRegisters) -> WavefrontState {
    let wf = w.wf_context();
    WavefrontState {
        workgroup: w.workgroup,
        wave: w.index,
        id: w.global,
        exec: Mask(wf.scalar.exec()),
        vcc: Mask(wf.scalar.vcc()),
        scc: wf.scalar.scc,
        spm: Mask(wf.spm),
        sgprs: (0..used.sgprs as u16)
            .map(|r| wf.scalar.get(r).unwrap_or(0))
            .collect(),
        vgprs: w.vgprs[..used.vgprs].iter().map(|r| r.to_vec()).collect(),
        unmerged: w.contexts.iter().skip(1).flatten().map(|c| c.id).collect(),
    }
}

/// The state of a run shared by all workgroups.
struct Engine<'a> {
    program: &'a Program,
    file: String,
    /// SwfContexts per wavefront: S in PWS mode, none without splitting.
    s: usize,
    split_enabled: bool,
    max_instructions: u64,
    memory: GlobalMemory,
    /// The running workgroup's LDS.
    lds: Lds,
    trace: Vec<PwsEvent>,
    stats: Stats,
    /// Executions per instruction (index into `program.instructions`), for the limit error.
    counts: Vec<u64>,
}

impl<'a> Engine<'a> {
    fn new(
        program: &'a Program,
        manifest: &Manifest,
        abi: &LaunchAbi,
        config: &Config,
    ) -> Engine<'a> {
        let split_enabled = config.mode == Mode::Pws;
        Engine {
            program,
            file: manifest.kernel.display().to_string(),
            s: if split_enabled { config.s } else { 0 },
            split_enabled,
            max_instructions: config.max_instructions,
            memory: GlobalMemory::new(manifest, abi),
            lds: Lds::new(abi.group_segment_size),
            trace: Vec::new(),
            stats: Stats::default(),
            counts: vec![0; program.instructions.len()],
        }
    }

    fn site(&self, w: &Wavefront, context: ContextId, pc: u32) -> Site {
        let located = self.program.instruction_at(pc);
        Site {
            workgroup: w.workgroup,
            wave: w.index,
            context,
            pc,
            source: located
                .filter(|l| l.line > 0)
                .map(|l| format!("{}:{}", self.file, l.line)),
            instruction: located.map(|l| l.item.to_string()),
        }
    }

    /// Runs one workgroup to completion: round-robin over the ready contexts of its
    /// wavefronts, then completes merges and barriers; no progress in a round is a deadlock.
    fn run_workgroup(&mut self, waves: &mut [Wavefront]) -> Result<(), GoldenError> {
        loop {
            let mut progressed = false;
            for w in waves.iter_mut() {
                for slot in 0..w.contexts.len() {
                    if matches!(&w.contexts[slot], Some(c) if c.status == Status::Ready) {
                        self.step(w, slot)?;
                        progressed = true;
                    }
                }
                for done in pws::resolve_merges(&mut w.contexts) {
                    self.stats.merges += 1;
                    self.record(PwsEvent {
                        workgroup: w.workgroup,
                        wave: w.index,
                        context: done.parent,
                        pc: done.pc,
                        kind: EventKind::Merge,
                        spm: Mask(done.parent_spm),
                        partner: Some(done.child),
                        partner_spm: Some(Mask(done.child_spm)),
                    });
                    progressed = true;
                }
            }
            progressed |= self.release_barrier(waves);
            if waves.iter().all(|w| w.live().next().is_none()) {
                return Ok(());
            }
            if !progressed {
                return Err(self.deadlock(waves));
            }
        }
    }

    /// Releases the workgroup barrier once every live context of every wavefront waits at it.
    fn release_barrier(&mut self, waves: &mut [Wavefront]) -> bool {
        if !waves
            .iter()
            .flat_map(|w| w.live())
            .all(|c| c.status == Status::AtBarrier)
        {
            return false;
        }
        let mut released = false;
        for c in waves
            .iter_mut()
            .flat_map(|w| w.contexts.iter_mut().flatten())
        {
            if c.status == Status::AtBarrier {
                c.status = Status::Ready;
                c.pc = c.wait_pc + 4;
                released = true;
            }
        }
        self.stats.barriers += released as u64;
        released
    }

    /// Executes the next instruction of the context in `slot` of `w`.
    fn step(&mut self, w: &mut Wavefront, slot: usize) -> Result<(), GoldenError> {
        let Some(c) = w.contexts[slot].as_ref() else {
            return Ok(());
        };
        let (id, pc) = (c.id, c.pc);
        let Some(index) = self.program.index_of(pc) else {
            return Err(GoldenError::BadPc {
                site: self.site(w, id, pc),
                pc,
                size: self.program.size_bytes(),
            });
        };
        if w.executed >= self.max_instructions {
            return Err(self.limit(w));
        }
        w.executed += 1;
        self.stats.instructions += 1;
        self.counts[index] += 1;
        let located = &self.program.instructions[index];
        let inst: &Instruction = &located.item;
        let next = pc + 4 * located.words.len() as u32;
        let (uses, defs) = watch::effects(inst);
        let flow = match w.contexts[slot].as_mut() {
            Some(c) => {
                if let Err(v) = c.watch.before(uses) {
                    return Err(self.violation(w, id, pc, v));
                }
                let flow =
                    exec::execute(inst, pc, c, &mut w.vgprs, &mut self.memory, &mut self.lds);
                c.watch.after(defs);
                flow
            }
            None => return Ok(()),
        };
        let flow = flow.map_err(|fault| {
            let site = self.site(w, id, pc);
            match fault {
                Fault::NotExecutable(message) => GoldenError::NotExecutable { site, message },
                Fault::Memory { lane, fault } => GoldenError::Memory { site, lane, fault },
            }
        })?;
        let event = |kind, spm, partner, partner_spm: Option<u64>| PwsEvent {
            workgroup: w.workgroup,
            wave: w.index,
            context: id,
            pc,
            kind,
            spm: Mask(spm),
            partner,
            partner_spm: partner_spm.map(Mask),
        };
        let contexts = &mut w.contexts;
        let Some(c) = contexts[slot].as_mut() else {
            return Ok(());
        };
        match flow {
            Flow::Next => c.pc = next,
            Flow::Jump(target) => c.pc = target,
            Flow::Endpgm | Flow::Barrier => {
                c.status = if flow == Flow::Endpgm {
                    Status::Ended
                } else {
                    Status::AtBarrier
                };
                c.wait_pc = pc;
            }
            Flow::Split(_) | Flow::Merge if !self.split_enabled => {
                c.pc = next;
                self.count_pws_instruction(flow);
            }
            Flow::Split(m) => {
                self.count_pws_instruction(flow);
                let out = pws::split(contexts, slot, m, next);
                match out.kind {
                    EventKind::Split => self.stats.splits += 1,
                    EventKind::NoopSplit => self.stats.noop_splits += 1,
                    _ => self.stats.fallbacks += 1,
                }
                let live = contexts.iter().skip(1).flatten().count();
                self.stats.peak_swf_contexts = self.stats.peak_swf_contexts.max(live);
                let e = event(out.kind, out.spm, out.child, out.child_spm);
                self.record(e);
            }
            Flow::Merge => {
                self.count_pws_instruction(flow);
                let kind = pws::merge_arrive(c, pc);
                let partner = match (kind, c.stack.top()) {
                    (EventKind::MergeWait, Some(StackEntry::Child(k))) => Some(k),
                    (EventKind::MergeWait, _) => c.parent,
                    _ => None,
                };
                let spm = c.spm;
                let partner_spm = partner
                    .and_then(|p| contexts[p.slot()].as_ref())
                    .map(|p| p.spm);
                let e = event(kind, spm, partner, partner_spm);
                self.record(e);
            }
        }
        Ok(())
    }

    /// The error for a broken split-safety rule (watch.rs) at `pc` of context `id`.
    fn violation(&self, w: &Wavefront, id: ContextId, pc: u32, v: Violation) -> GoldenError {
        GoldenError::DroppedScalar {
            site: self.site(w, id, pc),
            register: v.register,
            merge: self.site(w, id, v.merge_pc),
        }
    }

    /// Appends a split/merge event to the trace, or counts it once the trace is full.
    fn record(&mut self, event: PwsEvent) {
        if self.trace.len() < MAX_TRACE_EVENTS {
            self.trace.push(event);
        } else {
            self.stats.trace_omitted += 1;
        }
    }

    fn count_pws_instruction(&mut self, flow: Flow) {
        match flow {
            Flow::Split(_) => self.stats.split_instructions += 1,
            _ => self.stats.merge_instructions += 1,
        }
    }

    /// The instruction-limit error: where every live context is, and the hottest PCs.
    fn limit(&self, current: &Wavefront) -> GoldenError {
        let running = current
            .live()
            .map(|c| self.site(current, c.id, c.pc))
            .collect();
        let mut hot: Vec<(usize, u64)> = self
            .counts
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, n)| n > 0)
            .collect();
        hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let hot = hot
            .into_iter()
            .take(5)
            .map(|(i, count)| {
                let l = &self.program.instructions[i];
                HotPc {
                    pc: l.pc,
                    count,
                    instruction: l.item.to_string(),
                }
            })
            .collect();
        GoldenError::InstructionLimit {
            limit: self.max_instructions,
            workgroup: current.workgroup,
            wave: current.index,
            running,
            hot,
        }
    }

    /// The deadlock error: every live context with what it waits for.
    fn deadlock(&self, waves: &[Wavefront]) -> GoldenError {
        let mut stuck = Vec::new();
        for w in waves {
            for c in w.live() {
                let waits_for = match c.status {
                    Status::AtBarrier => {
                        "waits at s_barrier; other contexts of the workgroup never arrive".into()
                    }
                    _ => match (c.stack.top(), c.parent) {
                        (Some(StackEntry::Child(k)), _) => {
                            format!(
                                "merge waits for its child context {k}, which {}",
                                whereabouts(w, k)
                            )
                        }
                        (_, Some(p)) => {
                            format!(
                                "merge waits for its parent context {p}, which {}",
                                whereabouts(w, p)
                            )
                        }
                        _ => "waits with nothing to wait for".into(),
                    },
                };
                stuck.push(Stuck {
                    site: self.site(w, c.id, c.wait_pc),
                    waits_for,
                });
            }
        }
        GoldenError::Deadlock { stuck }
    }
}

/// Where context `id` of `w` is, for deadlock messages.
fn whereabouts(w: &Wavefront, id: ContextId) -> String {
    match w.contexts.get(id.slot()).and_then(|c| c.as_ref()) {
        None => "no longer exists".into(),
        Some(c) => match c.status {
            Status::Ended => format!("ended (s_endpgm at pc {:#06x})", c.wait_pc),
            Status::AtBarrier => format!("waits at s_barrier (pc {:#06x})", c.wait_pc),
            Status::AtMerge => match c.stack.top() {
                Some(StackEntry::Child(k)) => format!(
                    "waits at merge (pc {:#06x}) for its own child context {k}",
                    c.wait_pc
                ),
                _ => format!(
                    "waits at merge (pc {:#06x}) for a different partner",
                    c.wait_pc
                ),
            },
            Status::Ready => format!("is at pc {:#06x}", c.pc),
        },
    }
}
