//! The test bench around the compute-unit RTL (`pws_hdl::cu::ComputeUnit`): it loads the
//! program into the instruction memory, dispatches the launch's workgroups as slots free up
//! ([`dispatch`]), answers the data-memory port from the launch's memory image ([`memory`]),
//! watches the issue and retire outputs ([`monitor`]) and stops on completion, an RTL error, a
//! memory fault, the cycle cap or a deadlock. [`run`] is what `pws run` and the equivalence
//! suites call. docs/sim.md describes the report, the VCD and the watchdog.
//!
//! Cycle convention (the same as the RTL's own tests): in cycle `c` the bench drives the
//! inputs, settles the design, reads its outputs, then the rising edge ends cycle `c`. A
//! memory request seen in cycle `c` is accepted by that edge and its response is driven in
//! cycle `c + mem_latency`. Reported cycles count from the first dispatch cycle (the program
//! load before it is not part of the run).

pub mod dispatch;
pub mod memory;
pub mod monitor;
pub mod ports;
pub mod progress;

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pws_hdl::config::HwConfig;
use pws_hdl::context::ContextState;
use pws_hdl::cu::{ComputeUnit, CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;
use pws_isa::abi::{registers_used, LaunchAbi};
use pws_isa::manifest::{Manifest, WAVEFRONT_SIZE};
use pws_isa::Program;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::driver::DeltaPasses;
use dispatch::{DispatchAction, DispatchError, Dispatcher, SlotMap};
use memory::{AccessSize, BufferWords, DataMemory, MemFault, MemoryPort, Request, PORT_LANES};
use monitor::{BlockStat, Ctx, InstStat, Monitor, MonitorError, StuckContext};
use ports::{CuPorts, Engine, EngineError, Input, Output, RustHdlCu, Shape};
use progress::{Progress, Stall};

crate::impl_clocked!(ComputeUnit);

/// How to run a launch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub hw: HwConfig,
    pub mode: CuMode,
    pub compaction: SwizzleMode,
    /// Stop with [`RunError::CycleCap`] after this many cycles.
    pub max_cycles: u64,
    /// Stream a VCD of the whole design here while simulating.
    pub vcd: Option<PathBuf>,
    /// Show a progress bar on stderr once the run has taken a second.
    pub progress: bool,
    /// Cycles without any retire (while a wavefront is resident) after which the run stops
    /// as deadlocked; `None`: [`default_watchdog`].
    pub watchdog: Option<u64>,
    /// Stop a context that has looped for this many cycles without a memory request, split,
    /// merge or barrier ([`progress`], check 2); `None` or 0: only the exact check.
    pub no_progress: Option<u64>,
    /// Stop a wavefront that has retired this many instructions (a runaway).
    pub max_instructions: u64,
    /// How each settle evaluates the RTL: only what changed (the default), or every block in
    /// every delta pass as rust-hdl does (the reference; same cycles and VCD, slower).
    pub passes: DeltaPasses,
    /// Set from outside (a Ctrl-C handler) to stop the run with its partial report
    /// ([`RunError::Interrupted`]).
    pub stop: Option<&'static AtomicBool>,
}

impl RunOptions {
    /// Options for `hw` in `mode` without compaction, a 10M-cycle cap, 10M instructions per
    /// wavefront, no VCD, no progress bar.
    pub fn new(hw: HwConfig, mode: CuMode) -> RunOptions {
        RunOptions {
            hw,
            mode,
            compaction: SwizzleMode::None,
            max_cycles: 10_000_000,
            vcd: None,
            progress: false,
            watchdog: None,
            no_progress: None,
            max_instructions: 10_000_000,
            stop: None,
            passes: DeltaPasses::Activity,
        }
    }
}

/// Active lane-operations / lane slots: `active_lane_ops` over `valu_passes` passes of the
/// SIMD's 16 lanes (0 without a pass). [`RunReport::lane_utilisation`], and that of several
/// runs from their summed counts.
pub fn lane_utilisation(active_lane_ops: u64, valu_passes: u64) -> f64 {
    if valu_passes == 0 {
        0.0
    } else {
        active_lane_ops as f64 / (valu_passes * PORT_LANES as u64) as f64
    }
}

/// The watchdog window for `hw`: far above the longest any one instruction can take (a memory
/// access behind every other context's accesses, plus the latency; an LDS access with bank
/// conflicts holds the sequencer up to 16 cycles).
pub fn default_watchdog(hw: &HwConfig) -> u64 {
    let contexts = (hw.simds_per_cu * hw.wf_contexts_per_simd * (hw.spsimds_per_simd + 1)) as u64;
    let per_access = (hw.mem_latency + hw.passes() * 2) as u64;
    let lds = pws_hdl::cu::timing::mem_worst(hw);
    (contexts * per_access * 8).max(contexts * lds).max(2_000)
}

/// One wavefront's residency.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WavefrontRecord {
    pub workgroup: u32,
    /// Index within the workgroup.
    pub wavefront: u32,
    pub slot: usize,
    /// Cycle of its launch.
    pub start: u64,
    /// First cycle its slot reads free again.
    pub end: u64,
}

/// Final buffers in manifest order; JSON writes them as `name -> [values]`, typed as the
/// manifest declares them (as `pws golden` does).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Buffers(pub Vec<BufferWords>);

impl Buffers {
    /// The raw words of buffer `name`.
    pub fn get(&self, name: &str) -> Option<&[u32]> {
        self.0
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.words.as_slice())
    }
}

impl Serialize for Buffers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for b in &self.0 {
            map.serialize_entry(&b.name, &b.ty.values(&b.words, b.len))?;
        }
        map.end()
    }
}

/// Everything a run reports.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub kernel: String,
    /// The simulator that ran the compute unit.
    pub engine: Engine,
    pub mode: &'static str,
    pub compaction: &'static str,
    #[serde(rename = "S")]
    pub s: usize,
    /// Cycles from the first dispatch cycle to the cycle the compute unit reads idle.
    pub cycles: u64,
    pub buffers: Buffers,
    pub wavefronts: Vec<WavefrontRecord>,
    pub blocks: Vec<BlockStat>,
    pub instructions: Vec<InstStat>,
    /// Active lane-operations / (VALU passes issued * 16).
    pub lane_utilisation: f64,
    pub valu_passes: u64,
    pub passes_skipped: u64,
    pub active_lane_ops: u64,
    pub splits: u64,
    pub split_fallbacks: u64,
    pub merges: u64,
    pub retired: u64,
    pub memory_reads: u64,
    pub memory_writes: u64,
    /// Wall-clock simulation speed.
    pub cycles_per_second: f64,
    /// What the user should know about the program that ran (set by the caller that made it:
    /// a PWS run without any split, branches DWS left serialized, ...).
    pub warnings: Vec<String>,
}

/// Why a run stopped without completing.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The compute unit cannot run the launch as configured (the message says why).
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Budget(#[from] pws_isa::manifest::BudgetError),
    /// An instruction outside the executable subset, with its line.
    #[error("{0}")]
    Unsupported(#[from] pws_isa::AsmError),
    #[error(transparent)]
    Dispatch(#[from] DispatchError),
    #[error("the compute unit stopped with {code:?} at pc {pc:#06x} ({}) in {ctx}, cycle {cycle}", instruction.as_deref().unwrap_or("no instruction there"))]
    Rtl {
        code: CuError,
        pc: u32,
        instruction: Option<String>,
        ctx: Ctx,
        cycle: u64,
    },
    #[error("memory fault at cycle {cycle}: {ctx} pc {pc:#06x} ({}), lane {lane} of the request: {fault}", instruction.as_deref().unwrap_or("no instruction there"))]
    Memory {
        fault: MemFault,
        lane: usize,
        pc: u32,
        instruction: Option<String>,
        ctx: Ctx,
        cycle: u64,
    },
    #[error("LDS fault at cycle {cycle}: {ctx} pc {pc:#06x} ({}), lane {lane} of the wavefront: {fault}", instruction.as_deref().unwrap_or("no instruction there"))]
    Lds {
        fault: MemFault,
        lane: usize,
        pc: u32,
        instruction: Option<String>,
        ctx: Ctx,
        cycle: u64,
    },
    #[error("cycle cap of {cap} reached; live contexts:{}", list(stuck))]
    CycleCap { cap: u64, stuck: Vec<StuckContext> },
    #[error("deadlock: no instruction retired in the {window} cycles before cycle {cycle}; stuck contexts:{}", list(stuck))]
    Deadlock {
        cycle: u64,
        window: u64,
        stuck: Vec<StuckContext>,
    },
    #[error("no progress: {ctx} {why} (cycle {cycle}); the loop:{}", list_pcs(pcs))]
    NoProgress {
        ctx: Ctx,
        cycle: u64,
        /// What the context did (or failed to do).
        why: String,
        /// The loop's PCs and instructions.
        pcs: Vec<(u32, String)>,
    },
    #[error("runaway: the wavefront in slot {slot} (workgroup {workgroup} wave {wave}) retired {limit} instructions, the limit per wavefront (--max-instructions), at cycle {cycle}; most retired:{}", list_hot(hot))]
    Runaway {
        slot: usize,
        workgroup: u32,
        wave: u32,
        limit: u64,
        cycle: u64,
        /// PC, instruction and retire count of its most retired instructions.
        hot: Vec<(u32, String, u64)>,
    },
    #[error("interrupted at cycle {cycle}; the report of the cycles simulated so far is partial")]
    Interrupted { cycle: u64, report: Box<RunReport> },
    #[error("the RTL's outputs contradict the program: {0}")]
    Monitor(#[from] MonitorError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("VCD: {0}")]
    Vcd(#[from] pws_isa::output::OutputError),
}

fn list(stuck: &[StuckContext]) -> String {
    if stuck.is_empty() {
        return " none".into();
    }
    stuck.iter().map(|s| format!("\n  {s}")).collect()
}

fn list_pcs(pcs: &[(u32, String)]) -> String {
    pcs.iter()
        .map(|(pc, inst)| format!("\n  pc {pc:#06x}: {inst}"))
        .collect()
}

fn list_hot(hot: &[(u32, String, u64)]) -> String {
    hot.iter()
        .map(|(pc, inst, n)| format!("\n  pc {pc:#06x} x{n}: {inst}"))
        .collect()
}

fn mode_name(m: CuMode) -> &'static str {
    match m {
        CuMode::NoSplit => "nosplit",
        CuMode::Dws => "dws",
        CuMode::Pws => "pws",
    }
}

fn compaction_name(c: SwizzleMode) -> &'static str {
    match c {
        SwizzleMode::None => "none",
        SwizzleMode::Bcc => "bcc",
        SwizzleMode::Scc => "scc",
    }
}

/// Rejects launches the compute unit cannot run as configured; the SGPRs and VGPRs the
/// program holds ([`registers_used`]) otherwise.
fn check_fit(program: &Program, hw: &HwConfig) -> Result<(u32, u32), RunError> {
    let bad = |m: String| Err(RunError::Config(m));
    if hw.wavefront_width != WAVEFRONT_SIZE as usize || hw.lanes_per_simd != PORT_LANES {
        return bad(format!(
            "kernels run on wave64 with 16-lane SIMDs; the configuration has {}-wide wavefronts on {} lanes",
            hw.wavefront_width, hw.lanes_per_simd
        ));
    }
    let words = program.words().len();
    if words == 0 {
        return bad("the program is empty".into());
    }
    if words > hw.imem_words {
        return bad(format!(
            "the program has {words} words; the instruction memory holds {} (imem_words)",
            hw.imem_words
        ));
    }
    let (sgprs, vgprs) = registers_used(program);
    if sgprs as usize > hw.sgprs_per_context || sgprs > 127 {
        return bad(format!(
            "the kernel uses {sgprs} SGPRs; each context has {} (sgprs_per_context)",
            hw.sgprs_per_context
        ));
    }
    if hw.wavefronts_per_simd(vgprs as usize) == 0 {
        return bad(format!(
            "the kernel uses {vgprs} VGPRs; a SIMD's VRF has {} (vgprs_per_simd)",
            hw.vgprs_per_simd
        ));
    }
    Ok((sgprs, vgprs))
}

/// Checks the run's memory against the launch budget before anything is allocated: the data
/// memory's copy of the buffers and kernarg segment, the private segment, and one residency
/// record per wavefront.
fn check_budget(manifest: &Manifest, abi: &LaunchAbi) -> Result<(), RunError> {
    manifest.check_scratch(abi).map_err(RunError::Config)?;
    let wavefronts: u64 = (0..manifest.workgroups())
        .map(|wg| u64::from(manifest.wavefronts_in(wg)))
        .sum();
    let records = wavefronts * std::mem::size_of::<WavefrontRecord>() as u64;
    let scratch = manifest.scratch_bytes(abi.private_segment_size);
    pws_isa::manifest::check_budget(manifest.memory_bytes() + scratch + records, || {
        format!(
            "buffers and kernarg, private memory, and the residency records of {wavefronts} \
             wavefront(s)"
        )
    })?;
    Ok(())
}

/// Bytes of each lane's LDS access of the DS instruction at `pc`: 1 or 2 for the byte and
/// half forms, else 4 (wider forms move dwords).
fn lds_access_bytes(program: &Program, pc: u32) -> u32 {
    use pws_isa::Opcode::*;
    match program.instruction_at(pc).map(|l| l.item.opcode) {
        Some(DsReadU8 | DsReadI8 | DsWriteB8) => 1,
        Some(DsReadU16 | DsReadI16 | DsWriteB16) => 2,
        _ => 4,
    }
}

/// The bench's state while a run goes on.
struct Bench<'p> {
    cu: Box<dyn CuPorts + 'p>,
    program: &'p Program,
    per_slot: usize,
    port: MemoryPort,
    dispatcher: Dispatcher<'p>,
    monitor: Monitor<'p>,
    progress: Progress<'p>,
    wavefronts: Vec<WavefrontRecord>,
    /// Per slot: index into `wavefronts` of the resident wavefront.
    resident: Vec<Option<usize>>,
    /// Per slot: the LDS bytes its workgroup was given (an LDS fault names it).
    lds_allocation: Vec<u32>,
    start: u64,
}

impl Bench<'_> {
    fn ctx_of_index(&self, c: usize) -> Ctx {
        Ctx {
            slot: c / self.per_slot,
            k: c % self.per_slot,
        }
    }

    /// A context as the RTL's 8-bit id (slot * 8 + k) names it.
    fn ctx_of_id(&self, id: u64) -> Ctx {
        Ctx {
            slot: (id / 8) as usize,
            k: (id % 8) as usize,
        }
    }

    fn instruction(&self, pc: u32) -> Option<String> {
        self.program.instruction_at(pc).map(|l| l.item.to_string())
    }

    /// The error for a stall the progress watch found in `cycle`.
    fn stalled(&self, stall: Stall, cycle: u64) -> RunError {
        let listed = |pcs: Vec<u32>| {
            pcs.into_iter()
                .map(|pc| (pc, self.instruction(pc).unwrap_or_default()))
                .collect()
        };
        let ran = cycle - self.start;
        match stall {
            Stall::Forever { ctx, pcs } => RunError::NoProgress {
                ctx,
                cycle: ran,
                why: "loops forever: an iteration writes only values it does not read \
                      before writing them, and touches no memory and no other context"
                    .into(),
                pcs: listed(pcs),
            },
            Stall::Quiet { ctx, pcs, window } => RunError::NoProgress {
                ctx,
                cycle: ran,
                why: format!(
                    "has looped for {window} cycles without a memory access (--no-progress \
                     {window})"
                ),
                pcs: listed(pcs),
            },
            Stall::Runaway { slot, limit, hot } => {
                let record = self.resident[slot].map(|w| &self.wavefronts[w]);
                RunError::Runaway {
                    slot,
                    workgroup: record.map_or(0, |r| r.workgroup),
                    wave: record.map_or(0, |r| r.wavefront),
                    limit,
                    cycle: ran,
                    hot: hot
                        .into_iter()
                        .map(|(pc, n)| (pc, self.instruction(pc).unwrap_or_default(), n))
                        .collect(),
                }
            }
        }
    }

    /// Every live context of the compute unit, where it is and what it waits for, read through
    /// the compute unit's debug port (one context per settle).
    fn stuck(&mut self, cycle: u64) -> Vec<StuckContext> {
        let mut out = Vec::new();
        for slot in 0..self.resident.len() {
            for k in 0..self.per_slot {
                self.cu.set(Input::DbgSlot, slot as u64);
                self.cu.set(Input::DbgCtx, k as u64);
                if self.cu.settle().is_err() {
                    continue;
                }
                let cu = &self.cu;
                let c = slot * self.per_slot + k;
                let ctx = Ctx { slot, k };
                let state = ports::context_state(cu.get(Output::DbgState));
                if state == ContextState::Free || cu.get(Output::DbgEnded) == 1 {
                    continue;
                }
                let last = cu.get(Output::CtxInstPc(c)) as u32;
                let (pc, waits_for) = if state == ContextState::Waiting {
                    let partner = match cu.get(Output::DbgStackDepth) {
                        0 => format!("its parent, context {}", cu.get(Output::DbgParent)),
                        _ => format!("its child, context {}", cu.get(Output::DbgStackTop)),
                    };
                    (last, format!("waits at merge for {partner}"))
                } else if cu.get(Output::DbgAtBarrier) == 1 {
                    (
                        last,
                        "waits at s_barrier for the rest of its workgroup".to_string(),
                    )
                } else if cu.get(Output::DbgInFlight) == 1 {
                    let since = self
                        .monitor
                        .in_flight_since(ctx)
                        .map_or(String::new(), |at| {
                            format!(", issued {} cycles ago", cycle - at)
                        });
                    (last, format!("has this instruction in flight{since}"))
                } else {
                    let next = cu.get(Output::DbgPc) as u32;
                    (next, "is ready but not scheduled".to_string())
                };
                out.push(StuckContext {
                    ctx,
                    pc,
                    instruction: self
                        .instruction(pc)
                        .unwrap_or_else(|| "no instruction".into()),
                    waits_for,
                });
            }
        }
        out
    }

    fn load_program(&mut self, words: &[u32]) -> Result<(), RunError> {
        for (i, &w) in words.iter().enumerate() {
            self.cu.set(Input::ImemWe, 1);
            self.cu.set(Input::ImemAddr, i as u64);
            self.cu.set(Input::ImemData, u64::from(w));
            self.cu.tick()?;
        }
        self.cu.set(Input::ImemWe, 0);
        self.cu.set(Input::ProgWords, words.len() as u64);
        Ok(())
    }

    /// The slots the compute unit reports free, bit j for slot j.
    fn free_slots(&self) -> u64 {
        (0..self.resident.len()).fold(0, |acc, j| acc | self.cu.get(Output::SlotFree(j)) << j)
    }

    /// Drives this cycle's dispatch action.
    fn drive_dispatch(&mut self, cycle: u64) {
        let free = self.free_slots();
        let hold = self.dispatcher.holds_barrier();
        let action = self.dispatcher.step(free);
        let cu = &mut self.cu;
        cu.set(Input::BarrierHold, u64::from(hold));
        cu.set(Input::InitSgprWe, 0);
        cu.set(Input::InitVgprWe, 0);
        cu.set(Input::Launch, 0);
        cu.set(Input::LdsClear, 0);
        match action {
            DispatchAction::Idle => {}
            DispatchAction::ClearLds { row } => {
                cu.set(Input::LdsClear, 1);
                cu.set(Input::LdsClearRow, u64::from(row));
            }
            DispatchAction::InitSgpr { slot, addr, data } => {
                cu.set(Input::InitSlot, slot as u64);
                cu.set(Input::InitSgprWe, 1);
                cu.set(Input::InitSgprAddr, u64::from(addr));
                cu.set(Input::InitSgprData, u64::from(data));
            }
            DispatchAction::InitVgpr {
                slot,
                vgpr_base,
                addr,
                pass,
                data,
            } => {
                cu.set(Input::InitSlot, slot as u64);
                cu.set(Input::LaunchVgprBase, u64::from(vgpr_base));
                cu.set(Input::InitVgprWe, 1);
                cu.set(Input::InitVgprAddr, u64::from(addr));
                cu.set(Input::InitVgprPass, u64::from(pass));
                for (l, &d) in data.iter().enumerate() {
                    cu.set(Input::InitVgprData(l), u64::from(d));
                }
            }
            DispatchAction::Launch {
                slot,
                vgpr_base,
                pc,
                exec,
                lds_base,
                lds_size,
                wg_tag,
                workgroup,
                wave,
            } => {
                cu.set(Input::InitSlot, slot as u64);
                cu.set(Input::Launch, 1);
                cu.set(Input::LaunchVgprBase, u64::from(vgpr_base));
                cu.set(Input::LaunchPc, u64::from(pc));
                cu.set(Input::LaunchExecLo, exec & 0xFFFF_FFFF);
                cu.set(Input::LaunchExecHi, exec >> 32);
                cu.set(Input::LaunchWg, u64::from(wg_tag));
                cu.set(Input::LaunchLdsBase, u64::from(lds_base));
                cu.set(Input::LaunchLdsSize, u64::from(lds_size));
                self.lds_allocation[slot] = lds_size;
                self.monitor.launch(slot, cycle);
                self.progress.launch(slot, cycle);
                self.resident[slot] = Some(self.wavefronts.len());
                self.wavefronts.push(WavefrontRecord {
                    workgroup,
                    wavefront: wave,
                    slot,
                    start: cycle - self.start,
                    end: 0,
                });
            }
        }
    }

    /// Drives the memory response due in this cycle.
    fn drive_memory(&mut self, cycle: u64) {
        let response = self.port.response(cycle);
        self.cu.set(Input::MemRvalid, u64::from(response.is_some()));
        if let Some(data) = response {
            for (l, &d) in data.iter().enumerate() {
                self.cu.set(Input::MemRdata(l), u64::from(d));
            }
        }
    }

    /// Reads the settled outputs of this cycle: memory requests, issues, retires, frees.
    fn observe(&mut self, cycle: u64) -> Result<(), RunError> {
        let cu = &self.cu;
        let pc_of = |ctx: Ctx| cu.get(Output::CtxInstPc(ctx.slot * self.per_slot + ctx.k)) as u32;
        if cu.get(Output::Error) == 1 {
            let ctx = self.ctx_of_id(cu.get(Output::ErrorCtx));
            let pc = cu.get(Output::ErrorPc) as u32;
            return Err(RunError::Rtl {
                code: ports::cu_error(cu.get(Output::ErrorCode)),
                pc,
                instruction: self.instruction(pc),
                ctx,
                cycle: cycle - self.start,
            });
        }
        if cu.get(Output::LdsFault) == 1 {
            let ctx = self.ctx_of_id(cu.get(Output::LdsFaultCtx));
            let pc = pc_of(ctx);
            let addr = cu.get(Output::LdsFaultAddr) as u32;
            let fault = if cu.get(Output::LdsFaultMisaligned) == 1 {
                MemFault::LdsMisaligned {
                    addr,
                    bytes: lds_access_bytes(self.program, pc),
                }
            } else {
                let m0 = cu.get(Output::LdsFaultM0) as u32;
                let allocation = self.lds_allocation[ctx.slot];
                MemFault::LdsOutOfRange {
                    addr,
                    limit: m0.min(allocation),
                    allocation,
                    m0,
                }
            };
            return Err(RunError::Lds {
                fault,
                lane: cu.get(Output::LdsFaultLane) as usize,
                pc,
                instruction: self.instruction(pc),
                ctx,
                cycle: cycle - self.start,
            });
        }
        if cu.get(Output::MemReq) == 1 {
            let mut req = Request {
                write: cu.get(Output::MemWe) == 1,
                rmw: memory::Rmw::from_code(cu.get(Output::MemRmw)),
                wdata1: [0; PORT_LANES],
                size: AccessSize::from_code(cu.get(Output::MemSize)),
                signed: cu.get(Output::MemSigned) == 1,
                addr: [0; PORT_LANES],
                wdata: [0; PORT_LANES],
                lanes: cu.get(Output::MemLanes) as u16,
            };
            for l in 0..PORT_LANES {
                req.addr[l] = cu.get(Output::MemAddr(l)) as u32;
                req.wdata[l] = cu.get(Output::MemWdata(l)) as u32;
                req.wdata1[l] = cu.get(Output::MemWdata1(l)) as u32;
            }
            let ctx = self.ctx_of_id(cu.get(Output::MemCtx));
            self.progress.memory(ctx, cycle);
            if let Err(e) = self.port.accept(cycle, &req) {
                let pc = pc_of(ctx);
                return Err(RunError::Memory {
                    fault: e.fault,
                    lane: e.lane,
                    pc,
                    instruction: self.instruction(pc),
                    ctx,
                    cycle: cycle - self.start,
                });
            }
        }
        // A context never retires one instruction and issues the next in the same cycle, but
        // an instruction may retire in its issue cycle, and a child created by a split may
        // issue in the cycle its parent's split retires. So: retires of the contexts that did
        // not issue, then the issues (the issue units name the PC; `ctx_inst_pc_o` shows it
        // from the next cycle on), then the retires of those that did.
        let shape = self.cu.shape();
        for c in 0..shape.contexts {
            let waiting = self.cu.get(Output::CtxWaiting(c)) == 1;
            self.monitor.waiting(self.ctx_of_index(c), waiting, cycle);
        }
        let mut issued = vec![false; shape.contexts];
        let mut issues = Vec::new();
        for u in 0..shape.issue_units {
            if self.cu.get(Output::IssueValid(u)) == 1 {
                let ctx = self.ctx_of_id(self.cu.get(Output::IssueCtx(u)));
                let pc = self.cu.get(Output::IssuePc(u)) as u32;
                if let Some(flag) = issued.get_mut(ctx.slot * self.per_slot + ctx.k) {
                    *flag = true;
                }
                issues.push((ctx, pc));
            }
        }
        for after_issue in [false, true] {
            if after_issue {
                for &(ctx, pc) in &issues {
                    self.monitor.issue(ctx, pc, cycle);
                }
            }
            for (c, &did_issue) in issued.iter().enumerate() {
                if did_issue == after_issue && self.cu.get(Output::CtxRetire(c)) == 1 {
                    let pc = self.cu.get(Output::CtxInstPc(c)) as u32;
                    let ctx = self.ctx_of_index(c);
                    self.monitor.retire(ctx, pc, cycle)?;
                    if let Err(stall) = self.progress.retire(ctx, pc, cycle) {
                        return Err(self.stalled(stall, cycle));
                    }
                }
            }
        }
        let free = self.free_slots();
        for slot in 0..self.resident.len() {
            let Some(w) = self.resident[slot] else {
                continue;
            };
            // The slot still reads free in its launch cycle.
            if free >> slot & 1 == 1 && cycle - self.start > self.wavefronts[w].start {
                self.wavefronts[w].end = cycle - self.start;
                self.resident[slot] = None;
            }
        }
        Ok(())
    }
}

/// Makes the engine that simulates the compute unit of a configuration, writing a VCD of it
/// to the file, if one is given.
pub type EngineFactory<'e> =
    dyn Fn(&HwConfig, Option<File>) -> Result<Box<dyn CuPorts + 'e>, EngineError> + 'e;

/// The factory of rust-hdl's model, settled with `passes`.
pub fn rust_hdl_engine(
    passes: DeltaPasses,
) -> impl Fn(&HwConfig, Option<File>) -> Result<Box<dyn CuPorts + 'static>, EngineError> {
    move |hw, vcd| {
        let cu = ComputeUnit::new(hw).map_err(|e| EngineError::Config(e.to_string()))?;
        let trace = vcd.map(|f| Box::new(BufWriter::new(f)) as Box<dyn std::io::Write>);
        Ok(Box::new(RustHdlCu::new(cu, passes, trace)?))
    }
}

/// Runs `program` on the launch `manifest` describes, on rust-hdl's model of the compute unit
/// of `opts`.
pub fn run(
    program: &Program,
    manifest: &Manifest,
    opts: &RunOptions,
) -> Result<RunReport, RunError> {
    run_on(program, manifest, opts, &rust_hdl_engine(opts.passes))
}

/// Runs `program` on the launch `manifest` describes, on the compute unit of `opts` as the
/// engine `engine` makes simulates it.
pub fn run_on(
    program: &Program,
    manifest: &Manifest,
    opts: &RunOptions,
    engine: &EngineFactory,
) -> Result<RunReport, RunError> {
    let hw = &opts.hw;
    // Refused before running, as the golden model refuses it, and what only the golden model
    // implements (`pws_isa::subset`).
    pws_isa::subset::check_rtl(program, &manifest.kernel.display().to_string())?;
    let (sgprs, vgprs) = check_fit(program, hw)?;
    let abi = LaunchAbi::for_launch(program, manifest);
    check_budget(manifest, &abi)?;
    let per_slot = hw.spsimds_per_simd + 1;
    let dispatcher = Dispatcher::new(
        manifest,
        abi.clone(),
        SlotMap::new(hw, vgprs as usize),
        hw.passes(),
    )?
    .with_lds(hw.lds_bytes as u32)?;
    // The VCD goes to a temporary file that replaces the target when the run stops (also on
    // an error: the trace up to the stop is what one debugs), never onto the launch's files.
    let mut vcd = None;
    let trace = match &opts.vcd {
        Some(path) => {
            let mut staged =
                pws_isa::output::Staged::create(path, &[&manifest.path, &manifest.kernel])?;
            let file = staged.file().try_clone().map_err(|e| staged.io_error(e))?;
            vcd = Some(staged);
            Some(file)
        }
        None => None,
    };
    let mut cu = engine(hw, trace).map_err(|e| match e {
        EngineError::Config(m) => RunError::Config(m),
        e => RunError::Engine(e),
    })?;
    let Shape { slots, .. } = cu.shape();
    cu.set(Input::Mode, ports::mode_code(opts.mode));
    cu.set(Input::Compaction, ports::compaction_code(opts.compaction));
    cu.set(Input::SgprCount, u64::from(sgprs));
    let mut bench = Bench {
        cu,
        program,
        per_slot,
        port: MemoryPort::new(DataMemory::new(manifest, &abi), hw.mem_latency as u64),
        dispatcher,
        monitor: Monitor::new(program, slots, per_slot),
        progress: Progress::new(
            program,
            slots,
            per_slot,
            opts.no_progress,
            opts.max_instructions,
        ),
        wavefronts: Vec::new(),
        resident: vec![None; slots],
        lds_allocation: vec![0; slots],
        start: 0,
    };
    let clock = Instant::now();
    let outcome = simulate(&mut bench, opts);
    let seconds = clock.elapsed().as_secs_f64();
    let report = match outcome {
        Ok(Stop::Done(end)) => Ok(report(bench, manifest, opts, end, seconds)),
        Ok(Stop::Interrupted(cycle)) => {
            let ran = cycle - bench.start;
            Err(RunError::Interrupted {
                cycle: ran,
                report: Box::new(report(bench, manifest, opts, cycle, seconds)),
            })
        }
        Err(e) => {
            // Dropping the bench flushes the VCD.
            drop(bench);
            Err(e)
        }
    };
    if let Some(staged) = vcd {
        staged.commit()?;
    }
    report
}

/// How a simulation that raised no error stopped.
enum Stop {
    /// The launch completed in this cycle.
    Done(u64),
    /// `RunOptions::stop` was set; the last simulated cycle.
    Interrupted(u64),
}

/// Loads the program and simulates until the launch completes, an error, or a stop request.
fn simulate(bench: &mut Bench, opts: &RunOptions) -> Result<Stop, RunError> {
    bench.load_program(&bench.program.words())?;
    let start = bench.cu.cycle();
    bench.start = start;
    let window = opts.watchdog.unwrap_or_else(|| default_watchdog(&opts.hw));
    let clock = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let stop = loop {
        let cycle = bench.cu.cycle();
        // A wavefront launched in this cycle exists only after its edge.
        let dispatching = !bench.dispatcher.done();
        bench.drive_memory(cycle);
        bench.drive_dispatch(cycle);
        bench.cu.settle()?;
        bench.observe(cycle)?;
        let ran = cycle - start;
        let idle = bench.cu.get(Output::Idle) == 1;
        if !dispatching && idle && bench.port.outstanding() == 0 {
            break Stop::Done(cycle);
        }
        if ran >= opts.max_cycles {
            return Err(RunError::CycleCap {
                cap: opts.max_cycles,
                stuck: bench.stuck(cycle),
            });
        }
        if !idle && cycle.saturating_sub(bench.monitor.last_retire) > window {
            return Err(RunError::Deadlock {
                cycle: ran,
                window,
                stuck: bench.stuck(cycle),
            });
        }
        if ran % 256 == 0 && opts.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            break Stop::Interrupted(cycle);
        }
        if opts.progress && ran % 4096 == 0 {
            update_progress(&mut bar, clock.elapsed(), ran, opts.max_cycles);
        }
        bench.cu.tick()?;
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(stop)
}

/// The report of a run that ended (or was stopped) in cycle `end`.
fn report(
    bench: Bench,
    manifest: &Manifest,
    opts: &RunOptions,
    end: u64,
    seconds: f64,
) -> RunReport {
    let start = bench.start;
    let stat = |port| bench.cu.get(port);
    let valu_passes = stat(Output::StatValuPasses);
    let active_lane_ops = stat(Output::StatActiveLaneOps);
    let (passes_skipped, splits) = (stat(Output::StatPassesSkipped), stat(Output::StatSplits));
    let (split_fallbacks, merges) = (stat(Output::StatSplitFallbacks), stat(Output::StatMerges));
    let engine = bench.cu.engine();
    let simulated = end - start + 1;
    let (blocks, instructions) = (bench.monitor.block_stats(), bench.monitor.inst_stats());
    let retired = bench.monitor.retired;
    // Dropping the engine flushes the VCD.
    let Bench {
        port, wavefronts, ..
    } = bench;
    RunReport {
        kernel: manifest.kernel.display().to_string(),
        engine,
        mode: mode_name(opts.mode),
        compaction: compaction_name(opts.compaction),
        s: opts.hw.spsimds_per_simd,
        cycles: end - start,
        wavefronts,
        blocks,
        instructions,
        lane_utilisation: lane_utilisation(active_lane_ops, valu_passes),
        valu_passes,
        passes_skipped,
        active_lane_ops,
        splits,
        split_fallbacks,
        merges,
        retired,
        memory_reads: port.reads,
        memory_writes: port.writes,
        buffers: Buffers(port.memory.into_buffers()),
        cycles_per_second: if seconds > 0.0 {
            simulated as f64 / seconds
        } else {
            0.0
        },
        warnings: Vec::new(),
    }
}

/// Shows (after the first second) and advances the progress bar.
fn update_progress(
    bar: &mut Option<indicatif::ProgressBar>,
    elapsed: Duration,
    cycles: u64,
    cap: u64,
) {
    if bar.is_none() && elapsed >= Duration::from_secs(1) {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(cap),
            indicatif::ProgressDrawTarget::stderr(),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} simulating: {pos} cycles ({per_sec}) [cap {len}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        *bar = Some(b);
    }
    if let Some(b) = bar {
        b.set_position(cycles);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(name: &str) -> (Program, Manifest) {
        let path = format!("{}/../kernels/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let manifest = Manifest::load(&path).unwrap();
        let source = manifest.kernel_source().unwrap();
        (pws_isa::assemble(&source, name).unwrap(), manifest)
    }

    #[test]
    fn the_watchdog_lists_every_live_context() {
        let (program, manifest) = launch("figure2");
        let opts = RunOptions {
            watchdog: Some(4),
            ..RunOptions::new(HwConfig::cu(), CuMode::Pws)
        };
        // A window shorter than a memory access: the first s_load trips it.
        let Err(RunError::Deadlock { stuck, window, .. }) = run(&program, &manifest, &opts) else {
            panic!("no deadlock reported");
        };
        assert_eq!(window, 4);
        assert_eq!(stuck.len(), 1, "{stuck:?}");
        assert_eq!((stuck[0].ctx, stuck[0].pc), (Ctx { slot: 0, k: 0 }, 0));
        assert!(stuck[0].waits_for.contains("in flight"), "{}", stuck[0]);
        assert!(stuck[0].instruction.starts_with("s_load_dwordx4"));
    }

    #[test]
    fn figure2_gives_the_papers_output_in_every_mode() {
        let (program, manifest) = launch("figure2");
        for mode in [CuMode::NoSplit, CuMode::Dws, CuMode::Pws] {
            let report = run(&program, &manifest, &RunOptions::new(HwConfig::cu(), mode)).unwrap();
            eprintln!(
                "{mode:?}: {} cycles, {:.0} cycles/s",
                report.cycles, report.cycles_per_second
            );
            let out: Vec<i32> = report
                .buffers
                .get("out")
                .unwrap()
                .iter()
                .map(|&w| w as i32)
                .collect();
            assert_eq!(out, [-15, 1025, 1090, 1204], "{mode:?}");
            assert_eq!(report.wavefronts.len(), 1);
            let w = &report.wavefronts[0];
            assert!(w.start < w.end && w.end <= report.cycles, "{w:?}");
            assert!(!report.blocks.is_empty() && report.blocks.iter().all(|b| b.max_cycles > 0));
            assert_eq!(report.splits, if mode == CuMode::NoSplit { 0 } else { 3 });
        }
    }
}
