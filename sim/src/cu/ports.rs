//! The compute unit as the test bench sees it: inputs to drive, outputs to read, a settle and a
//! clock edge. [`CuPorts`] is that view; the bench ([`super::run_on`]) drives the compute unit
//! through it only, so any engine that implements it runs a launch with the same dispatcher,
//! memory, monitor and watchdog: [`RustHdlCu`] (rust-hdl's model, stepped by [`Driver`]),
//! pws-export's Verilator model of the exported `pws_compute_unit`, and [`Lockstep`], which
//! drives two engines with the same inputs and stops at the first output they disagree on.
//!
//! Every port is named once, in the table of [`cu_ports!`]: its variant, its field of
//! `ComputeUnit` and its Verilog name (rust-hdl writes element `i` of a vector port `name` as
//! `name$i`). Enumerated ports carry their variant's index in declaration order, the
//! encoding rust-hdl's Verilog gives them.

use std::io::Write;

use pws_hdl::context::ContextState;
use pws_hdl::cu::{ComputeUnit, CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;
use rust_hdl::core::prelude::*;

use crate::driver::{DeltaPasses, Driver, DriverError};

/// Which simulator runs the compute unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// rust-hdl's model in this process (activity-driven delta passes).
    #[default]
    RustHdl,
    /// The exported Verilog, compiled by Verilator.
    Verilator,
    /// Both, in lockstep, every output compared after every settle and edge.
    Lockstep,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::RustHdl => "rust-hdl",
            Engine::Verilator => "verilator",
            Engine::Lockstep => "lockstep",
        }
    }
}

/// How many of each indexed port a compute unit has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Lanes of the data-memory and VGPR-initialisation ports.
    pub lanes: usize,
    pub slots: usize,
    pub issue_units: usize,
    pub contexts: usize,
}

impl Shape {
    pub fn of(cu: &ComputeUnit) -> Shape {
        Shape {
            lanes: cu.mem_rdata_i.len(),
            slots: cu.slots(),
            issue_units: cu.issue_units(),
            contexts: cu.contexts(),
        }
    }
}

/// Why an engine could not go on.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Driver(#[from] DriverError),
    /// The configuration is not one a compute unit can be built for (the message says why).
    #[error("{0}")]
    Config(String),
    /// The engine could not be built or loaded (the message says why).
    #[error("{0}")]
    Model(String),
    #[error("co-simulation: {port} is {a:#x} in {a_engine} but {b:#x} in {b_engine} at cycle {cycle}{} (the first difference)", if *after_edge { ", after the clock edge" } else { "" })]
    CoSim {
        port: String,
        a: u64,
        b: u64,
        a_engine: &'static str,
        b_engine: &'static str,
        cycle: u64,
        after_edge: bool,
    },
}

/// The compute unit's ports: what the bench drives and reads, whatever simulates it.
///
/// In cycle `c` the bench [`set`](Self::set)s inputs, [`settle`](Self::settle)s and
/// [`get`](Self::get)s outputs; [`tick`](Self::tick) is the rising edge that ends the cycle
/// (outputs read after it show the new state with the inputs unchanged).
pub trait CuPorts {
    fn engine(&self) -> Engine;
    fn shape(&self) -> Shape;
    /// Drives `port` from now on (bits above its width are dropped).
    fn set(&mut self, port: Input, value: u64);
    /// `port` as of the last settle or edge.
    fn get(&self, port: Output) -> u64;
    fn settle(&mut self) -> Result<(), EngineError>;
    fn tick(&mut self) -> Result<(), EngineError>;
    /// Rising edges so far.
    fn cycle(&self) -> u64;
}

/// A port value as the engines exchange it: bits, or an enumeration's variant index.
pub trait PortCode: Sized {
    fn to_code(&self) -> u64;
    fn from_code(code: u64) -> Self;
}

impl<const N: usize> PortCode for Bits<N> {
    fn to_code(&self) -> u64 {
        self.to_u64()
    }
    fn from_code(code: u64) -> Self {
        code.into()
    }
}

impl PortCode for bool {
    fn to_code(&self) -> u64 {
        u64::from(*self)
    }
    fn from_code(code: u64) -> Self {
        code & 1 == 1
    }
}

/// The variants of an enumerated port in declaration order; a code past the last reads as
/// the first (only a Verilog model with a corrupt value could drive one).
macro_rules! enum_code {
    ($($t:ty: [$($v:ident),+]),+ $(,)?) => {$(
        impl PortCode for $t {
            fn to_code(&self) -> u64 {
                [$(<$t>::$v),+].iter().position(|v| v == self).unwrap_or(0) as u64
            }
            fn from_code(code: u64) -> Self {
                let all = [$(<$t>::$v),+];
                all.get(code as usize).copied().unwrap_or(all[0])
            }
        }
    )+};
}

enum_code!(
    CuMode: [NoSplit, Dws, Pws],
    SwizzleMode: [None, Bcc, Scc],
    CuError: [None, IllegalInstruction, BadPc, SgprOutOfRange, NestingOverflow, MergeProtocol],
    ContextState: [Free, Running, Waiting],
);

/// The one table of ports: `Variant => field` for a single port, `Variant(count) => field` for
/// a vector port with one element per `count` of [`Shape`].
macro_rules! cu_ports {
    (
        inputs { $($iv:ident $(($icount:ident))? => $ifield:ident,)+ }
        outputs { $($ov:ident $(($ocount:ident))? => $ofield:ident,)+ }
    ) => {
        /// An input of the compute unit (an element index for vector ports).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Input { $($iv $((cu_ports!(@index $icount)))?,)+ }

        /// An output of the compute unit (an element index for vector ports).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Output { $($ov $((cu_ports!(@index $ocount)))?,)+ }

        impl Input {
            /// The port's name in the exported Verilog.
            pub fn name(self) -> String {
                match self {
                    $(cu_ports!(@pat Input $iv i $($icount)?) =>
                        cu_ports!(@name $ifield i $($icount)?),)+
                }
            }

            /// Every input of a compute unit of `shape`.
            pub fn all(shape: Shape) -> Vec<Input> {
                let mut all = Vec::new();
                $(cu_ports!(@push all shape Input $iv $($icount)?);)+
                all
            }

            /// A dense number: `ordinal * MAX_INDEX + index`, for engines' port tables.
            pub fn number(self) -> usize {
                let mut ordinal = 0usize;
                $(
                    if let cu_ports!(@pat Input $iv i $($icount)?) = self {
                        return ordinal * MAX_INDEX + cu_ports!(@idx i $($icount)?);
                    }
                    ordinal += 1;
                )+
                unreachable!("{ordinal} ports")
            }

            fn drive(self, cu: &mut ComputeUnit, value: u64) {
                match self {
                    $(cu_ports!(@pat Input $iv i $($icount)?) =>
                        cu_ports!(@field cu $ifield i $($icount)?).next = PortCode::from_code(value),)+
                }
            }
        }

        impl Output {
            /// The port's name in the exported Verilog.
            pub fn name(self) -> String {
                match self {
                    $(cu_ports!(@pat Output $ov i $($ocount)?) =>
                        cu_ports!(@name $ofield i $($ocount)?),)+
                }
            }

            /// Every output of a compute unit of `shape`.
            pub fn all(shape: Shape) -> Vec<Output> {
                let mut all = Vec::new();
                $(cu_ports!(@push all shape Output $ov $($ocount)?);)+
                all
            }

            /// A dense number: `ordinal * MAX_INDEX + index`, for engines' port tables.
            pub fn number(self) -> usize {
                let mut ordinal = 0usize;
                $(
                    if let cu_ports!(@pat Output $ov i $($ocount)?) = self {
                        return ordinal * MAX_INDEX + cu_ports!(@idx i $($ocount)?);
                    }
                    ordinal += 1;
                )+
                unreachable!("{ordinal} ports")
            }

            fn read(self, cu: &ComputeUnit) -> u64 {
                match self {
                    $(cu_ports!(@pat Output $ov i $($ocount)?) =>
                        cu_ports!(@field cu $ofield i $($ocount)?).val().to_code(),)+
                }
            }
        }
    };
    (@index $count:ident) => { usize };
    (@pat $e:ident $v:ident $i:ident) => { $e::$v };
    (@pat $e:ident $v:ident $i:ident $count:ident) => { $e::$v($i) };
    (@name $field:ident $i:ident) => { stringify!($field).to_string() };
    (@name $field:ident $i:ident $count:ident) => { format!("{}${}", stringify!($field), $i) };
    (@idx $i:ident) => { 0 };
    (@idx $i:ident $count:ident) => { $i };
    (@field $cu:ident $field:ident $i:ident) => { $cu.$field };
    (@field $cu:ident $field:ident $i:ident $count:ident) => { $cu.$field[$i] };
    (@push $all:ident $shape:ident $e:ident $v:ident) => { $all.push($e::$v) };
    (@push $all:ident $shape:ident $e:ident $v:ident $count:ident) => {
        $all.extend((0..$shape.$count).map($e::$v))
    };
}

/// Elements a vector port may have, for [`Input::number`] and [`Output::number`] (contexts
/// are the most numerous: 64 slots of 8).
pub const MAX_INDEX: usize = 512;

cu_ports! {
    inputs {
        Mode => mode_i,
        Compaction => compaction_i,
        SgprCount => sgpr_count_i,
        ProgWords => prog_words_i,
        ImemWe => imem_we_i,
        ImemAddr => imem_addr_i,
        ImemData => imem_data_i,
        MemRvalid => mem_rvalid_i,
        MemRdata(lanes) => mem_rdata_i,
        InitSlot => init_slot_i,
        InitSgprWe => init_sgpr_we_i,
        InitSgprAddr => init_sgpr_addr_i,
        InitSgprData => init_sgpr_data_i,
        InitVgprWe => init_vgpr_we_i,
        InitVgprAddr => init_vgpr_addr_i,
        InitVgprPass => init_vgpr_pass_i,
        InitVgprData(lanes) => init_vgpr_data_i,
        Launch => launch_i,
        LaunchPc => launch_pc_i,
        LaunchExecLo => launch_exec_lo_i,
        LaunchExecHi => launch_exec_hi_i,
        LaunchWg => launch_wg_i,
        LaunchVgprBase => launch_vgpr_base_i,
        LaunchLdsBase => launch_lds_base_i,
        LaunchLdsSize => launch_lds_size_i,
        LdsClear => lds_clear_i,
        LdsClearRow => lds_clear_row_i,
        BarrierHold => barrier_hold_i,
        DbgSlot => dbg_slot_i,
        DbgCtx => dbg_ctx_i,
    }
    outputs {
        MemReq => mem_req_o,
        MemWe => mem_we_o,
        MemAddr(lanes) => mem_addr_o,
        MemWdata(lanes) => mem_wdata_o,
        MemLanes => mem_lanes_o,
        MemSize => mem_size_o,
        MemSigned => mem_signed_o,
        MemRmw => mem_rmw_o,
        MemWdata1(lanes) => mem_wdata1_o,
        MemCtx => mem_ctx_o,
        SlotFree(slots) => slot_free_o,
        LdsFault => lds_fault_o,
        LdsFaultLane => lds_fault_lane_o,
        LdsFaultAddr => lds_fault_addr_o,
        LdsFaultMisaligned => lds_fault_misaligned_o,
        LdsFaultCtx => lds_fault_ctx_o,
        LdsFaultM0 => lds_fault_m0_o,
        Idle => idle_o,
        Error => error_o,
        ErrorCode => error_code_o,
        ErrorPc => error_pc_o,
        ErrorCtx => error_ctx_o,
        StatValuPasses => stat_valu_passes_o,
        StatPassesSkipped => stat_passes_skipped_o,
        StatActiveLaneOps => stat_active_lane_ops_o,
        StatSplits => stat_splits_o,
        StatSplitFallbacks => stat_split_fallbacks_o,
        StatMerges => stat_merges_o,
        IssueValid(issue_units) => issue_valid_o,
        IssueCtx(issue_units) => issue_ctx_o,
        IssuePc(issue_units) => issue_pc_o,
        RetireValid(issue_units) => retire_valid_o,
        RetireCtx(issue_units) => retire_ctx_o,
        RetirePc(issue_units) => retire_pc_o,
        CtxIssue(contexts) => ctx_issue_o,
        CtxRetire(contexts) => ctx_retire_o,
        CtxInstPc(contexts) => ctx_inst_pc_o,
        CtxWaiting(contexts) => ctx_waiting_o,
        DbgState => dbg_state_o,
        DbgPc => dbg_pc_o,
        DbgParent => dbg_parent_o,
        DbgStackTop => dbg_stack_top_o,
        DbgStackDepth => dbg_stack_depth_o,
        DbgEnded => dbg_ended_o,
        DbgAtBarrier => dbg_at_barrier_o,
        DbgInFlight => dbg_in_flight_o,
    }
}

/// The code of a compute-unit mode on `mode_i`.
pub fn mode_code(mode: CuMode) -> u64 {
    mode.to_code()
}

/// The code of a compaction on `compaction_i`.
pub fn compaction_code(mode: SwizzleMode) -> u64 {
    mode.to_code()
}

/// The error `error_code_o` reads as.
pub fn cu_error(code: u64) -> CuError {
    CuError::from_code(code)
}

/// The context state `dbg_state_o` reads as.
pub fn context_state(code: u64) -> ContextState {
    ContextState::from_code(code)
}

/// rust-hdl's model of the compute unit, stepped by [`Driver`].
pub struct RustHdlCu {
    driver: Driver<ComputeUnit>,
    shape: Shape,
}

impl RustHdlCu {
    /// The model of `cu`, settled with `passes`, with a VCD of every signal streamed to `vcd`.
    pub fn new(
        cu: ComputeUnit,
        passes: DeltaPasses,
        vcd: Option<Box<dyn Write>>,
    ) -> Result<Self, EngineError> {
        let shape = Shape::of(&cu);
        Ok(RustHdlCu {
            driver: Driver::with_passes(cu, passes, vcd)?,
            shape,
        })
    }
}

impl CuPorts for RustHdlCu {
    fn engine(&self) -> Engine {
        Engine::RustHdl
    }
    fn shape(&self) -> Shape {
        self.shape
    }
    fn set(&mut self, port: Input, value: u64) {
        port.drive(self.driver.uut_mut(), value);
    }
    fn get(&self, port: Output) -> u64 {
        port.read(self.driver.uut())
    }
    fn settle(&mut self) -> Result<(), EngineError> {
        Ok(self.driver.settle()?)
    }
    fn tick(&mut self) -> Result<(), EngineError> {
        Ok(self.driver.tick()?)
    }
    fn cycle(&self) -> u64 {
        self.driver.cycle()
    }
}

/// Two engines driven with the same inputs; after every settle and every edge every output of
/// the one is compared with the other's, and the first difference stops the run
/// ([`EngineError::CoSim`]). Outputs are read from the first.
pub struct Lockstep<'a> {
    a: Box<dyn CuPorts + 'a>,
    b: Box<dyn CuPorts + 'a>,
    outputs: Vec<Output>,
}

impl<'a> Lockstep<'a> {
    /// `a` and `b` must model compute units of one shape.
    pub fn new(a: Box<dyn CuPorts + 'a>, b: Box<dyn CuPorts + 'a>) -> Result<Self, EngineError> {
        if a.shape() != b.shape() {
            return Err(EngineError::Model(format!(
                "co-simulation of two different compute units: {:?} and {:?}",
                a.shape(),
                b.shape()
            )));
        }
        let outputs = Output::all(a.shape());
        Ok(Lockstep { a, b, outputs })
    }

    fn compare(&self, after_edge: bool) -> Result<(), EngineError> {
        for &port in &self.outputs {
            let (a, b) = (self.a.get(port), self.b.get(port));
            if a != b {
                return Err(EngineError::CoSim {
                    port: port.name(),
                    a,
                    b,
                    a_engine: self.a.engine().name(),
                    b_engine: self.b.engine().name(),
                    cycle: self.a.cycle(),
                    after_edge,
                });
            }
        }
        Ok(())
    }
}

impl CuPorts for Lockstep<'_> {
    fn engine(&self) -> Engine {
        Engine::Lockstep
    }
    fn shape(&self) -> Shape {
        self.a.shape()
    }
    fn set(&mut self, port: Input, value: u64) {
        self.a.set(port, value);
        self.b.set(port, value);
    }
    fn get(&self, port: Output) -> u64 {
        self.a.get(port)
    }
    fn settle(&mut self) -> Result<(), EngineError> {
        self.a.settle()?;
        self.b.settle()?;
        self.compare(false)
    }
    fn tick(&mut self) -> Result<(), EngineError> {
        self.a.tick()?;
        self.b.tick()?;
        self.compare(true)
    }
    fn cycle(&self) -> u64 {
        self.a.cycle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pws_hdl::config::HwConfig;

    fn rust_hdl() -> RustHdlCu {
        RustHdlCu::new(
            ComputeUnit::new(&HwConfig::cu()).unwrap(),
            DeltaPasses::Activity,
            None,
        )
        .unwrap()
    }

    #[test]
    fn enum_codes_round_trip_in_declaration_order() {
        for (i, m) in [CuMode::NoSplit, CuMode::Dws, CuMode::Pws]
            .into_iter()
            .enumerate()
        {
            assert_eq!((mode_code(m), CuMode::from_code(i as u64)), (i as u64, m));
        }
        for (i, m) in [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc]
            .into_iter()
            .enumerate()
        {
            assert_eq!(
                (compaction_code(m), SwizzleMode::from_code(i as u64)),
                (i as u64, m)
            );
        }
        let errors = [
            CuError::None,
            CuError::IllegalInstruction,
            CuError::BadPc,
            CuError::SgprOutOfRange,
            CuError::NestingOverflow,
            CuError::MergeProtocol,
        ];
        for (i, e) in errors.into_iter().enumerate() {
            assert_eq!((e.to_code(), cu_error(i as u64)), (i as u64, e));
        }
        for (i, s) in [
            ContextState::Free,
            ContextState::Running,
            ContextState::Waiting,
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!((s.to_code(), context_state(i as u64)), (i as u64, s));
        }
    }

    #[test]
    fn port_names_and_numbers_are_distinct() {
        let shape = rust_hdl().shape();
        let inputs = Input::all(shape);
        let outputs = Output::all(shape);
        let mut names: Vec<String> = inputs.iter().map(|p| p.name()).collect();
        names.extend(outputs.iter().map(|p| p.name()));
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count);
        assert!(names.contains(&"mem_rdata_i$15".to_string()), "{names:?}");
        let mut numbers: Vec<usize> = inputs.iter().map(|p| p.number()).collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers.len(), inputs.len());
        let mut numbers: Vec<usize> = outputs.iter().map(|p| p.number()).collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers.len(), outputs.len());
    }

    #[test]
    fn set_and_get_reach_the_fields() {
        let mut cu = rust_hdl();
        cu.set(Input::Mode, mode_code(CuMode::Dws));
        cu.set(Input::MemRdata(3), 0xdead_beef);
        cu.settle().unwrap();
        assert_eq!(cu.driver.uut().mode_i.val(), CuMode::Dws);
        assert_eq!(cu.driver.uut().mem_rdata_i[3].val().to_u64(), 0xdead_beef);
        assert_eq!(cu.get(Output::Idle), 1);
        assert_eq!(cu.get(Output::SlotFree(1)), 1);
    }

    /// An engine that is rust-hdl but reads one output wrong from a given cycle on.
    struct Faulty {
        inner: RustHdlCu,
        from_cycle: u64,
    }

    impl CuPorts for Faulty {
        fn engine(&self) -> Engine {
            Engine::Verilator
        }
        fn shape(&self) -> Shape {
            self.inner.shape()
        }
        fn set(&mut self, port: Input, value: u64) {
            self.inner.set(port, value);
        }
        fn get(&self, port: Output) -> u64 {
            let v = self.inner.get(port);
            if port == Output::StatMerges && self.inner.cycle() >= self.from_cycle {
                v ^ 4
            } else {
                v
            }
        }
        fn settle(&mut self) -> Result<(), EngineError> {
            self.inner.settle()
        }
        fn tick(&mut self) -> Result<(), EngineError> {
            self.inner.tick()
        }
        fn cycle(&self) -> u64 {
            self.inner.cycle()
        }
    }

    #[test]
    fn lockstep_names_the_first_differing_port() {
        let faulty = Faulty {
            inner: rust_hdl(),
            from_cycle: 3,
        };
        let mut both = Lockstep::new(Box::new(rust_hdl()), Box::new(faulty)).unwrap();
        for _ in 0..2 {
            both.settle().unwrap();
            both.tick().unwrap();
        }
        both.settle().unwrap();
        let err = both.tick().unwrap_err().to_string();
        assert_eq!(
            err,
            "co-simulation: stat_merges_o is 0x0 in rust-hdl but 0x4 in verilator at cycle 3, \
             after the clock edge (the first difference)"
        );
    }
}
