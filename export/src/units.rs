//! The exported units of `pws-hdl`: their Verilog module names, the configuration they are
//! built for, and how a co-simulation drives each one.
//!
//! The configured units are exported as built from `HwConfig::default()` (64-lane wavefronts,
//! 16-lane SIMDs, S = 2, 102 SGPRs); the reconvergence stacks [`STACK_DEPTH`] entries deep;
//! the compute unit as `HwConfig::cu()` builds it (one SIMD, two slots, S = 3: the default's
//! 40 slots are past the compute unit's slot limit).
//! Module names are `pws_` + the unit's name in snake case.
//!
//! The stimulus generators keep enum inputs within their variants (the only constraint a
//! random value can break) and bias the other inputs towards what the unit does interesting
//! work on (masks with empty, full and sparse lane groups; requests held for a few cycles);
//! requests the units reject are part of the stimulus on purpose, since both models must
//! report the same error status.

use std::path::Path;

use pws_hdl::config::{HwConfig, CONTEXT_ID_BITS, VGPR_ADDR_BITS};
use pws_hdl::context::ContextState;
use pws_hdl::cu::ComputeUnit;
use pws_hdl::reconvergence::{DualPathStack, PdomStack, StackOp, StackStatus};
use pws_hdl::simd::fpu::{FpuStage, FMOD_BITS};
use pws_hdl::simd::{sdwa::sdwa_word, ValuOp, VectorUnit};
use pws_hdl::split_merge::{SmOp, SmStatus, SplitMergeUnit};
use pws_hdl::swizzle::{SwizzleMode, SwizzleUnit, MAX_LANES};
use rust_hdl::core::block::{Activity, ClockEdge};
use rust_hdl::core::prelude::{Block, Clock, In, Logic, Probe, Signal};

use crate::bench::{self, BenchOptions, BenchRow};
use crate::cosim::{self, CoSimPorts, CoSimReport, PortValue, SplitMix64};
use crate::{verilog, ExportError};

/// A design that can be exported on its own.
pub trait Design: Block + Sized {
    /// Name of the Verilog module (and file) of the unit.
    const MODULE: &'static str;
    /// The unit as exported by default.
    fn build() -> Result<Self, ExportError>;
    /// The unit for the hardware configuration `cfg` (`pws export --config`); units with
    /// parameters of their own (the stacks, the f32 stage) keep the default, [`Design::build`].
    fn build_for(cfg: &HwConfig) -> Result<Self, ExportError> {
        let _ = cfg;
        Self::build()
    }
    /// Its clock input (the port `clock` in Verilog).
    fn clock_mut(&mut self) -> &mut Signal<In, Clock>;
}

/// A design as `pws_sim::Driver` steps it. `Clocked` is `pws-sim`'s trait and the units are
/// `pws-hdl`'s types, so this crate implements it on a wrapper; the wrapper is transparent to
/// rust-hdl (same hierarchy, same names).
pub struct Harness<D>(pub D);

impl<D: Design> Logic for Harness<D> {
    fn update(&mut self) {}
}

impl<D: Design> Block for Harness<D> {
    fn connect_all(&mut self) {
        self.0.connect_all()
    }
    fn update_all(&mut self) {
        self.0.update_all()
    }
    fn has_changed(&self) -> bool {
        self.0.has_changed()
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        self.0.accept(name, probe)
    }
    fn update_all_tracked(&mut self, activity: &mut Activity) -> bool {
        self.0.update_all_tracked(activity)
    }
    fn drive_clocks(&mut self, edge: ClockEdge) {
        self.0.drive_clocks(edge)
    }
    fn rising_edge_tracked(&mut self, activity: &mut Activity) -> bool {
        self.0.rising_edge_tracked(activity)
    }
}

impl<D: Design> pws_sim::Clocked for Harness<D> {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        self.0.clock_mut()
    }
}

/// Verilog of `D`, with its top module named [`Design::MODULE`].
pub fn verilog_of<D: Design>() -> Result<String, ExportError> {
    verilog_for::<D>(None)
}

/// `D` built for `cfg` where it takes a hardware configuration, else as by default.
fn build<D: Design>(cfg: Option<&HwConfig>) -> Result<D, ExportError> {
    cfg.map_or_else(D::build, D::build_for)
}

fn verilog_for<D: Design>(cfg: Option<&HwConfig>) -> Result<String, ExportError> {
    verilog::generate(&mut build::<D>(cfg)?, D::MODULE)
}

fn cosimulate_for<D: Design + CoSimPorts>(
    cfg: Option<&HwConfig>,
    seed: u64,
    cycles: usize,
    dir: &Path,
) -> Result<CoSimReport, ExportError> {
    cosim::cosimulate_unit(build::<D>(cfg)?, seed, cycles, dir)
}

type CoSimFn = fn(Option<&HwConfig>, u64, usize, &Path) -> Result<CoSimReport, ExportError>;
type BenchFn = fn(&BenchOptions, &Path) -> Result<BenchRow, ExportError>;

/// One exported unit and the flows that apply to it.
pub struct Unit {
    /// Verilog module and file name.
    pub module: &'static str,
    /// The rust-hdl type it is generated from.
    pub rust_type: &'static str,
    /// Its Verilog, for a hardware configuration (`None`: the unit's default).
    pub verilog: fn(Option<&HwConfig>) -> Result<String, ExportError>,
    /// Co-simulation against Icarus: `(configuration, seed, cycles, work dir)`; `None` for a
    /// unit whose Verilog Icarus cannot run at a useful speed (its outputs are then compared
    /// with Verilator's by the checksum of [`bench::measure`]).
    pub cosim: Option<CoSimFn>,
    /// rust-hdl against Verilator simulation speed on random port stimulus; `None` for the
    /// compute unit, whose inputs are a test bench's (memory, dispatch), not random values.
    pub bench: Option<BenchFn>,
    /// Why a hardware configuration has no such unit (`None`: it has one).
    pub absent: fn(&HwConfig) -> Option<&'static str>,
}

impl Unit {
    fn of<D: Design + CoSimPorts>(rust_type: &'static str) -> Unit {
        Unit {
            module: D::MODULE,
            rust_type,
            verilog: verilog_for::<D>,
            cosim: Some(cosimulate_for::<D>),
            bench: Some(bench::measure::<D>),
            absent: |_| None,
        }
    }
}

/// A configuration without SpSIMDs (S = 0, a GPU without PWS) has no split/merge datapath.
fn without_spsimds(cfg: &HwConfig) -> Option<&'static str> {
    (cfg.spsimds_per_simd == 0)
        .then_some("S = 0: without SpSIMDs the compute unit has no split/merge datapath")
}

/// Every exported unit, in export order.
pub fn all() -> Vec<Unit> {
    vec![
        Unit {
            absent: without_spsimds,
            ..Unit::of::<SplitMergeUnit>("pws_hdl::split_merge::SplitMergeUnit")
        },
        Unit::of::<SwizzleUnit>("pws_hdl::swizzle::SwizzleUnit"),
        // Icarus runs the vector unit at under a cycle per second (docs/verilog.md).
        Unit {
            cosim: None,
            ..Unit::of::<VectorUnit>("pws_hdl::simd::VectorUnit")
        },
        // Icarus did not finish 60 cycles of the f32 unit in minutes (docs/verilog.md); its
        // outputs are compared with Verilator's by `bench::measure`'s checksum instead.
        Unit {
            cosim: None,
            ..Unit::of::<FpuStage>("pws_hdl::simd::fpu::FpuStage")
        },
        Unit::of::<PdomStack>("pws_hdl::reconvergence::PdomStack"),
        Unit::of::<DualPathStack>("pws_hdl::reconvergence::DualPathStack"),
        // The whole compute unit: its checks here, its co-simulation through `pws run`'s test
        // bench (issue 12) rather than random values on its ports.
        Unit {
            module: ComputeUnit::MODULE,
            rust_type: "pws_hdl::cu::ComputeUnit",
            verilog: verilog_for::<ComputeUnit>,
            cosim: None,
            bench: None,
            absent: |_| None,
        },
    ]
}

/// The units whose module name is, or ends with, `name` (`swizzle_unit` finds
/// `pws_swizzle_unit`); every unit when `name` is `None`.
pub fn select(name: Option<&str>) -> Result<Vec<Unit>, ExportError> {
    let units = all();
    let Some(name) = name else { return Ok(units) };
    let known = units
        .iter()
        .map(|u| u.module)
        .collect::<Vec<_>>()
        .join(", ");
    let chosen: Vec<Unit> = units
        .into_iter()
        .filter(|u| u.module == name || u.module.strip_prefix("pws_") == Some(name))
        .collect();
    if chosen.is_empty() {
        Err(ExportError::UnknownUnit {
            name: name.to_string(),
            known,
        })
    } else {
        Ok(chosen)
    }
}

fn config_error(unit: &str, e: impl std::fmt::Display) -> ExportError {
    ExportError::Config {
        unit: unit.to_string(),
        detail: e.to_string(),
    }
}

crate::enum_port_value!(SmOp: Idle, Launch, Split, Merge, End);
crate::enum_port_value!(
    SmStatus: Ok,
    SplitNoop,
    NoFreeContext,
    StackOverflow,
    MergeNoop,
    MergeWait,
    Merged,
    NoPartner,
    BadContext
);
crate::enum_port_value!(ContextState: Free, Running, Waiting);
crate::enum_port_value!(SwizzleMode: None, Bcc, Scc);

impl Design for SplitMergeUnit {
    const MODULE: &'static str = "pws_split_merge_unit";
    fn build() -> Result<Self, ExportError> {
        Self::build_for(&HwConfig::default())
    }
    fn build_for(cfg: &HwConfig) -> Result<Self, ExportError> {
        SplitMergeUnit::new(cfg).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(SplitMergeUnit {
    inputs: [
        req_op,
        req_ctx,
        req_mask_lo,
        req_mask_hi,
        req_pc,
        req_sgpr_count,
        srf_ctx,
        srf_addr,
        srf_we,
        srf_wdata,
        wr_ctx,
        wr_pc_en,
        wr_pc,
        wr_exec_en,
        wr_exec_lo,
        wr_exec_hi,
        rd_ctx,
        free_all,
        overflow_noop,
    ],
    outputs: [
        done,
        status,
        busy,
        no_free_count,
        new_ctx,
        srf_rdata,
        rd_state,
        rd_parent,
        rd_spm_lo,
        rd_spm_hi,
        rd_exec_lo,
        rd_exec_hi,
        rd_pc,
        rd_stack_top,
        rd_stack_depth,
    ],
    stimulus: split_merge_stimulus,
});

/// A launch first, then requests held for 1 to 8 cycles (an allocating split copies for
/// ceil(n / srf_copy_width) + 2 cycles while `busy`, and requests seen then are ignored by
/// design, so holding longer only repeats them): mostly splits and merges, from context 0 or an
/// SWF context, with some out of range, and now and then an end of the wavefront and a new
/// launch; split masks empty, full or random per half; the shared SRF and PC/EXEC ports used at
/// random; now and then the whole slot freed, and stack overflow as no-op half of the time.
fn split_merge_stimulus(
    _uut: &SplitMergeUnit,
    rng: &mut SplitMix64,
    cycles: usize,
) -> Vec<Vec<u64>> {
    let swf_contexts = HwConfig::default().spsimds_per_simd as u64;
    let context = |rng: &mut SplitMix64| match rng.below(10) {
        0..=3 => 0,
        4..=8 => 1 + rng.below(swf_contexts),
        _ => rng.bits(CONTEXT_ID_BITS),
    };
    // SGPRs a split copies: mostly an allocation within the SRF, sometimes 0 or past its end
    // (both mean all of it).
    let sgprs = HwConfig::default().sgprs_per_context as u64;
    let count = |rng: &mut SplitMix64| match rng.below(8) {
        0 => 0,
        1 => rng.bits(7),
        _ => 1 + rng.below(sgprs),
    };
    let half = |rng: &mut SplitMix64| match rng.below(4) {
        0 => 0,
        1 => u64::from(u32::MAX),
        _ => rng.bits(32),
    };
    let op = |rng: &mut SplitMix64| {
        let op = match rng.below(40) {
            0 | 1 => SmOp::Idle,
            2 | 3 => SmOp::Launch,
            4 => SmOp::End,
            5..=22 => SmOp::Split,
            _ => SmOp::Merge,
        };
        cosim::PortValue::to_u64(&op)
    };
    let mut rows = Vec::with_capacity(cycles);
    let launch = cosim::PortValue::to_u64(&SmOp::Launch);
    let mut request = vec![launch, 0, half(rng), half(rng), rng.bits(32), count(rng)];
    let mut hold = 2;
    while rows.len() < cycles {
        if hold == 0 {
            request = vec![
                op(rng),
                context(rng),
                half(rng),
                half(rng),
                rng.bits(32),
                count(rng),
            ];
            hold = 1 + rng.below(8);
        }
        hold -= 1;
        let mut row = request.clone();
        row.extend([
            context(rng),
            rng.bits(7),
            u64::from(rng.chance(20)),
            rng.bits(32),
            context(rng),
            u64::from(rng.chance(10)),
            rng.bits(32),
            u64::from(rng.chance(10)),
            half(rng),
            half(rng),
            context(rng),
            // The compute unit's ports: freeing the whole slot, and splits on a full child
            // stack counted as no-op markers (the golden model's overflow counter).
            u64::from(rng.chance(1)),
            u64::from(rng.chance(50)),
        ]);
        rows.push(row);
    }
    rows
}

impl Design for SwizzleUnit {
    const MODULE: &'static str = "pws_swizzle_unit";
    fn build() -> Result<Self, ExportError> {
        Self::build_for(&HwConfig::default())
    }
    fn build_for(cfg: &HwConfig) -> Result<Self, ExportError> {
        SwizzleUnit::from_config(cfg).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(SwizzleUnit {
    inputs: [start_i, mode_i, mask_i],
    outputs: [
        ready_o,
        pass_valid_o,
        last_o,
        done_o,
        pass_o,
        passes_o,
        active_o,
        group_o,
        lane_o,
        src_o,
        wb_en_o,
        wb_pos_o,
    ],
    stimulus: swizzle_stimulus,
});

/// `start_i` in a third of the cycles, every mode, and per lane group a word that is empty,
/// full, one lane, sparse or dense, so BCC skips groups and SCC both swizzles and falls back to
/// the BCC schedule.
fn swizzle_stimulus(uut: &SwizzleUnit, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
    let groups = uut.mask_i.len();
    let full = cosim::mask(MAX_LANES);
    (0..cycles)
        .map(|_| {
            let mut row = vec![u64::from(rng.chance(33)), rng.below(3)];
            row.extend((0..groups).map(|_| match rng.below(5) {
                0 => 0,
                1 => full,
                2 => 1 << rng.below(MAX_LANES as u64),
                3 => rng.bits(MAX_LANES) & rng.bits(MAX_LANES),
                _ => rng.bits(MAX_LANES) | rng.bits(MAX_LANES),
            }));
            row
        })
        .collect()
}

impl PortValue for ValuOp {
    fn from_u64(value: u64) -> Option<Self> {
        usize::try_from(value)
            .ok()
            .and_then(|i| ValuOp::ALL.get(i).copied())
    }
    fn to_u64(&self) -> u64 {
        ValuOp::ALL
            .iter()
            .position(|op| op == self)
            .map_or(u64::MAX, |i| i as u64)
    }
}
crate::enum_port_value!(StackOp: Nop, Init, Advance, Branch);
crate::enum_port_value!(StackStatus: Ok, Overflow, Underflow, InvalidPath);

impl Design for ComputeUnit {
    const MODULE: &'static str = "pws_compute_unit";
    fn build() -> Result<Self, ExportError> {
        Self::build_for(&HwConfig::cu())
    }
    fn build_for(cfg: &HwConfig) -> Result<Self, ExportError> {
        ComputeUnit::new(cfg).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl Design for VectorUnit {
    const MODULE: &'static str = "pws_vector_unit";
    fn build() -> Result<Self, ExportError> {
        Self::build_for(&HwConfig::default())
    }
    fn build_for(cfg: &HwConfig) -> Result<Self, ExportError> {
        VectorUnit::new(cfg).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(VectorUnit {
    inputs: [
        issue_i,
        op_i,
        dst_i,
        fmod_i,
        sdwa_i,
        src_is_vgpr_i,
        src_vgpr_i,
        src_value_i,
        src_value_hi_i,
        mask_in_lo_i,
        mask_in_hi_i,
        en_lo_i,
        en_hi_i,
        compaction_i,
        lsu_rd_i,
        lsu_rd_addr_i,
        lsu_rd_pass_i,
        lsu_we_i,
        lsu_wr_addr_i,
        lsu_wr_pass_i,
        lsu_wr_lanes_i,
        lsu_wdata_i,
    ],
    outputs: [
        ready_o,
        done_o,
        mask_lo_o,
        mask_hi_o,
        lsu_rdata_o,
        stat_passes_o,
        stat_skipped_o,
        stat_active_o,
    ],
    stimulus: vector_unit_stimulus,
});

/// The LSU port first writes VGPRs 0 to 7 of every lane (one pass per cycle), then every
/// (Sp)SIMD is offered an op in half of the cycles: every operation, sources that are VGPRs
/// within those eight (so ops read earlier results) or anywhere in the VRF, or broadcast
/// values (small shift amounts and field widths among them), random carry-in masks, SDWA
/// selects on a fifth of the ops. EXEC is empty, full or random per half; the enable mask of
/// (Sp)SIMD k is EXEC & its share of a random partition of the lanes that changes, with the
/// compaction mode, every 64 to 256 cycles (split masks of one wavefront are disjoint), and in
/// one issue in twenty a random mask instead, so two (Sp)SIMDs may claim one VRF bank and the
/// priority between them is compared as well. The LSU port reads at random throughout and
/// writes in a few cycles.
fn vector_unit_stimulus(uut: &VectorUnit, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
    const LOADED_VGPRS: u64 = 8;
    let simds = uut.simds();
    let lanes = uut.width();
    let passes = (lanes / pws_hdl::simd::SIMD_LANES) as u64;
    let half = |rng: &mut SplitMix64| match rng.below(4) {
        0 => 0,
        1 => u64::from(u32::MAX),
        _ => rng.bits(32),
    };
    let vgpr = |rng: &mut SplitMix64| {
        if rng.chance(90) {
            rng.below(LOADED_VGPRS)
        } else {
            rng.bits(VGPR_ADDR_BITS)
        }
    };
    let value = |rng: &mut SplitMix64| match rng.below(3) {
        0 => rng.bits(6),
        _ => rng.bits(32),
    };
    let mut owner: Vec<usize> = Vec::new();
    let mut mode = 0;
    let mut epoch = 0;
    let mut rows = Vec::with_capacity(cycles);
    let mut load = (0..passes).flat_map(|pass| (0..LOADED_VGPRS).map(move |addr| (pass, addr)));
    while rows.len() < cycles {
        if epoch == 0 {
            owner = (0..lanes)
                .map(|_| rng.below(simds as u64) as usize)
                .collect();
            mode = rng.below(3);
            epoch = 64 + rng.below(193);
        }
        epoch -= 1;
        let loading = load.next();
        let mut issue = Vec::with_capacity(simds);
        let mut op = Vec::with_capacity(simds);
        let mut dst = Vec::with_capacity(simds);
        let mut fmod = Vec::with_capacity(simds);
        let mut sdwa = Vec::with_capacity(simds);
        let (mut is_vgpr, mut src_vgpr, mut src_value, mut src_value_hi) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut mask_lo, mut mask_hi, mut en_lo, mut en_hi) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for k in 0..simds {
            issue.push(u64::from(loading.is_none() && rng.chance(50)));
            op.push(rng.below(ValuOp::ALL.len() as u64));
            dst.push(vgpr(rng));
            fmod.push(if rng.chance(50) {
                0
            } else {
                rng.bits(FMOD_BITS)
            });
            // Byte and word selects (0..=6) and UNUSED modes (0..=2) of the ISA, in a fifth of
            // the ops.
            sdwa.push(if rng.chance(20) {
                let sel = |rng: &mut SplitMix64| (rng.below(7) as u32, rng.chance(50));
                sdwa_word(rng.below(7) as u32, rng.below(3) as u32, sel(rng), sel(rng))
            } else {
                0
            });
            for _ in 0..pws_hdl::simd::SOURCES {
                is_vgpr.push(u64::from(rng.chance(70)));
                src_vgpr.push(vgpr(rng));
                src_value.push(value(rng));
                src_value_hi.push(rng.bits(32));
            }
            mask_lo.push(half(rng));
            mask_hi.push(half(rng));
            let spm = if rng.chance(5) {
                rng.next_u64()
            } else {
                (0..lanes)
                    .filter(|&j| owner[j] == k)
                    .fold(0, |m, j| m | 1 << j)
            };
            en_lo.push(half(rng) & spm & u64::from(u32::MAX));
            en_hi.push(half(rng) & spm >> 32);
        }
        let mut row = Vec::new();
        for group in [
            issue,
            op,
            dst,
            fmod,
            sdwa,
            is_vgpr,
            src_vgpr,
            src_value,
            src_value_hi,
            mask_lo,
            mask_hi,
            en_lo,
            en_hi,
        ] {
            row.extend(group);
        }
        row.push(mode);
        row.extend([u64::from(rng.chance(50)), vgpr(rng), rng.below(passes)]);
        let (we, pass, addr, wlanes) = match loading {
            Some((pass, addr)) => (true, pass, addr, cosim::mask(16)),
            None => (rng.chance(3), rng.below(passes), vgpr(rng), rng.bits(16)),
        };
        row.extend([u64::from(we), addr, pass, wlanes]);
        row.extend((0..uut.lsu_wdata_i.len()).map(|_| rng.bits(32)));
        rows.push(row);
    }
    rows
}

impl Design for FpuStage {
    const MODULE: &'static str = "pws_fpu_stage";
    fn build() -> Result<Self, ExportError> {
        Ok(FpuStage::default())
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(FpuStage {
    inputs: [op_i, a_i, b_i, c_i, m_i, fmod_i],
    outputs: [result_o, flag_o, x_o, y_o],
    stimulus: fpu_stage_stimulus,
});

/// One f32 operation per cycle (any operation, the integer ones giving 0), operands from
/// uniform bits, the contract's special values (signed zeros, denormals, infinities, NaNs,
/// 1.0, the normal range's ends) and values with nearby exponents, modifiers in half of them.
fn fpu_stage_stimulus(_uut: &FpuStage, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
    const SPECIAL: [u64; 12] = [
        0,
        0x8000_0000,
        1,
        0x0080_0000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7FA0_0001,
        0x3F80_0000,
        0xBF00_0000,
        0x00FF_FFFF,
    ];
    let float_ops: Vec<u64> = (0..ValuOp::ALL.len() as u64)
        .filter(|&i| ValuOp::ALL[i as usize].is_float())
        .collect();
    (0..cycles)
        .map(|_| {
            let center = 100 + rng.below(60);
            let operand = |rng: &mut SplitMix64| match rng.below(4) {
                0 => SPECIAL[rng.below(SPECIAL.len() as u64) as usize],
                1 => (center + rng.below(4)) << 23 | rng.bits(23) | rng.bits(1) << 31,
                _ => rng.bits(32),
            };
            let op = if rng.chance(90) {
                float_ops[rng.below(float_ops.len() as u64) as usize]
            } else {
                rng.below(ValuOp::ALL.len() as u64)
            };
            let (a, b, c) = (operand(rng), operand(rng), operand(rng));
            let fmod = if rng.chance(50) {
                0
            } else {
                rng.bits(FMOD_BITS)
            };
            vec![op, a, b, c, rng.bits(1), fmod]
        })
        .collect()
}

/// Depth of the exported reconvergence stacks: enough for three nested divergent branches of
/// the single-path stack (two entries each), so random branches overflow it within a few
/// dozen cycles and every depth is reached.
pub const STACK_DEPTH: usize = 8;

impl Design for PdomStack {
    const MODULE: &'static str = "pws_pdom_stack";
    fn build() -> Result<Self, ExportError> {
        PdomStack::new(STACK_DEPTH).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(PdomStack {
    inputs: [op_i, pc_i, alt_pc_i, rpc_i, mask_i, peek_i],
    outputs: [
        tos_pc_o,
        tos_rpc_o,
        tos_mask_o,
        depth_o,
        empty_o,
        status_o,
        peek_pc_o,
        peek_rpc_o,
        peek_mask_o,
    ],
    stimulus: pdom_stimulus,
});

/// PCs the stack stimulus draws from: so few that targets, IPDOMs and the entries' RPCs
/// coincide often, which is what makes the stacks pop, skip pushes and replace entries.
const STACK_PCS: [u64; 8] = [0x100, 0x104, 0x108, 0x10c, 0x110, 0x114, 0x118, 0x11c];

/// Stack operations in phases of 4 to 63 cycles that mostly branch (the stack fills up to
/// overflow) or mostly advance (paths reach their RPC and pop, down to underflow), with an
/// `Init` now and then and as the first operation. PCs come from [`STACK_PCS`] and rarely
/// anywhere; branch masks are random per half, now and then empty or full (mostly random so
/// the thinning masks of nested entries still diverge); `peek_i` reads an entry, an unused
/// slot or a number past the stack. `path` adds the dual-path stack's `path_i`.
fn stack_stimulus(rng: &mut SplitMix64, cycles: usize, path: bool) -> Vec<Vec<u64>> {
    let pc = |rng: &mut SplitMix64| {
        if rng.chance(95) {
            STACK_PCS[rng.below(STACK_PCS.len() as u64) as usize]
        } else {
            rng.bits(32)
        }
    };
    let half = |rng: &mut SplitMix64| match rng.below(8) {
        0 => 0,
        1 => u64::from(u32::MAX),
        _ => rng.bits(32),
    };
    let code = |op: StackOp| cosim::PortValue::to_u64(&op);
    let (mut phase, mut branchy) = (0, true);
    let mut rows = Vec::with_capacity(cycles);
    while rows.len() < cycles {
        if phase == 0 {
            phase = 4 + rng.below(60);
            branchy = rng.chance(50);
        }
        phase -= 1;
        let branch_share = if branchy { 92 } else { 10 };
        let op = match rng.below(100) {
            _ if rows.is_empty() => StackOp::Init,
            0..=2 => StackOp::Init,
            3..=7 => StackOp::Nop,
            n if n < 8 + branch_share => StackOp::Branch,
            _ => StackOp::Advance,
        };
        let mut row = vec![code(op)];
        if path {
            row.push(rng.bits(1));
        }
        let mask = half(rng) | half(rng) << 32;
        let peek = if rng.chance(90) {
            rng.below(STACK_DEPTH as u64 + 1)
        } else {
            rng.bits(6)
        };
        row.extend([pc(rng), pc(rng), pc(rng), mask, peek]);
        rows.push(row);
    }
    rows
}

fn pdom_stimulus(_uut: &PdomStack, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
    stack_stimulus(rng, cycles, false)
}

fn dual_path_stimulus(_uut: &DualPathStack, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
    stack_stimulus(rng, cycles, true)
}

impl Design for DualPathStack {
    const MODULE: &'static str = "pws_dual_path_stack";
    fn build() -> Result<Self, ExportError> {
        DualPathStack::new(STACK_DEPTH).map_err(|e| config_error(Self::MODULE, e))
    }
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

crate::cosim_ports!(DualPathStack {
    inputs: [op_i, path_i, pc_i, alt_pc_i, rpc_i, mask_i, peek_i],
    outputs: [
        tos_l_pc_o,
        tos_l_mask_o,
        tos_l_valid_o,
        tos_r_pc_o,
        tos_r_mask_o,
        tos_r_valid_o,
        tos_rpc_o,
        depth_o,
        empty_o,
        status_o,
        peek_l_pc_o,
        peek_l_mask_o,
        peek_l_valid_o,
        peek_r_pc_o,
        peek_r_mask_o,
        peek_r_valid_o,
        peek_rpc_o,
    ],
    stimulus: dual_path_stimulus,
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cosim::PortValue;

    #[test]
    fn selection_accepts_module_names_with_or_without_prefix() {
        assert_eq!(
            select(Some("swizzle_unit")).unwrap()[0].module,
            "pws_swizzle_unit"
        );
        assert_eq!(select(Some("pws_split_merge_unit")).unwrap().len(), 1);
        assert_eq!(
            select(Some("pdom_stack")).unwrap()[0].module,
            "pws_pdom_stack"
        );
        assert_eq!(select(None).unwrap().len(), all().len());
        assert!(matches!(
            select(Some("alu")),
            Err(ExportError::UnknownUnit { .. })
        ));
    }

    #[test]
    fn enum_encodings_round_trip_and_reject_unused_codes() {
        for v in 0..3 {
            assert_eq!(SwizzleMode::from_u64(v).unwrap().to_u64(), v);
        }
        assert_eq!(SwizzleMode::from_u64(3), None);
        assert_eq!(SmStatus::from_u64(8), Some(SmStatus::BadContext));
        for (code, op) in ValuOp::ALL.iter().enumerate() {
            assert_eq!(op.to_u64(), code as u64);
        }
        assert_eq!(StackStatus::from_u64(3), Some(StackStatus::InvalidPath));
    }

    /// Codes `from_u64` accepts for `T` (every enum here has fewer than 256 variants).
    fn codes<T: PortValue>() -> usize {
        (0..256).filter(|&v| T::from_u64(v).is_some()).count()
    }

    #[test]
    fn enum_tables_list_every_variant_rust_hdl_exports() {
        let verilog = [
            verilog_of::<SplitMergeUnit>(),
            verilog_of::<SwizzleUnit>(),
            verilog_of::<VectorUnit>(),
            verilog_of::<PdomStack>(),
            verilog_of::<DualPathStack>(),
        ]
        .into_iter()
        .map(Result::unwrap)
        .collect::<String>();
        let exported = |ty: &str| {
            let prefix = format!("localparam {ty}$");
            let names: std::collections::BTreeSet<&str> = verilog
                .lines()
                .filter_map(|l| l.trim().strip_prefix(prefix.as_str()))
                .filter_map(|l| l.split_whitespace().next())
                .collect();
            names.len()
        };
        assert_eq!(codes::<SmOp>(), exported("SmOp"));
        assert_eq!(codes::<SmStatus>(), exported("SmStatus"));
        assert_eq!(codes::<ContextState>(), exported("ContextState"));
        assert_eq!(codes::<SwizzleMode>(), exported("SwizzleMode"));
        assert_eq!(codes::<ValuOp>(), exported("ValuOp"));
        assert_eq!(codes::<ValuOp>(), ValuOp::ALL.len());
        // `ValuOp::ALL[code]` is the variant rust-hdl encodes as `code`.
        for l in verilog.lines() {
            if let Some(rest) = l.trim().strip_prefix("localparam ValuOp$") {
                let (name, code) = rest.split_once('=').unwrap();
                let code: usize = code.trim().trim_end_matches(';').trim().parse().unwrap();
                assert_eq!(format!("{:?}", ValuOp::ALL[code]), name.trim(), "{l}");
            }
        }
        assert_eq!(codes::<StackOp>(), exported("StackOp"));
        assert_eq!(codes::<StackStatus>(), exported("StackStatus"));
    }

    #[test]
    fn generated_stimulus_is_valid_for_the_ports() {
        fn check<D: Design + CoSimPorts>() {
            let mut uut = D::build().unwrap();
            let stimulus = cosim::Stimulus::random(&uut, 1, 200);
            assert_eq!(stimulus.rows.len(), 200);
            for row in &stimulus.rows {
                assert_eq!(row.len(), uut.input_ports().len());
                uut.set_inputs(row).unwrap();
            }
        }
        check::<SplitMergeUnit>();
        check::<SwizzleUnit>();
        check::<VectorUnit>();
        check::<PdomStack>();
        check::<DualPathStack>();
    }
}
