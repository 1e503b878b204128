//! The compute unit's Verilator engine: the exported `pws_compute_unit` of a configuration,
//! compiled by Verilator ([`crate::verilated`]) and driven through the test bench's port trait
//! ([`pws_sim::cu::ports::CuPorts`]), so `pws run --engine verilator` runs a launch with the
//! same dispatcher, memory, monitor and watchdog as rust-hdl's model.
//!
//! Models live in `$PWS_CACHE_DIR/verilator` (default `~/.cache/pws/verilator`). Generating the
//! compute unit's Verilog takes seconds to a minute, so `verilator/index/` maps a configuration
//! and the running pws executable (path, size, modification time) to the model built for them:
//! a second run loads the library at once, and a rebuilt pws regenerates the Verilog, hashes it
//! and finds the same model when the RTL did not change.
//!
//! A cycle is two evaluations: the settle, and the rising edge (with inputs changed since the
//! settle, a third before the edge). No flip-flop of the compute unit uses the falling edge,
//! and the next settle evaluates with the clock low, so the falling edge needs no evaluation
//! of its own. A traced model (a VCD) evaluates both edges and dumps
//! at rust-hdl's times (`pws_sim::driver`): the edge at half a period, the falling edge at the
//! cycle's end.

use std::fs::File;
use std::path::{Path, PathBuf};

use pws_hdl::config::HwConfig;
use pws_hdl::cu::ComputeUnit;
use pws_sim::cu::ports::{CuPorts, Engine, EngineError, Input, Output, Shape, MAX_INDEX};
use pws_sim::driver::CLOCK_PERIOD_PS;
use sha2::{Digest, Sha256};

use crate::units::Design;
use crate::verilated::{short_hex, Tracing, VerilatedModel};
use crate::{verilog, ExportError};

/// Not a port of the model (the port table's empty entries).
const ABSENT: u32 = u32::MAX;

/// The exported compute unit compiled by Verilator.
pub struct VerilatedCu {
    model: VerilatedModel,
    shape: Shape,
    /// Shim port number of each [`Input::number`] / [`Output::number`].
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    clock: usize,
    cycle: u64,
    traced: bool,
    /// The settled inputs differ from the last evaluation's.
    dirty: bool,
}

/// Where the compute unit's models are built.
pub fn cache_dir() -> PathBuf {
    pws_isa::opencl::cache_dir().join("verilator")
}

impl VerilatedCu {
    /// The model of the compute unit of `hw`, from the cache or built into it (`building` is
    /// called before a build, with the directory, so the user knows why nothing happens for
    /// minutes); a VCD of every signal goes to `vcd`.
    pub fn new(
        hw: &HwConfig,
        vcd: Option<File>,
        building: &dyn Fn(&Path),
    ) -> Result<VerilatedCu, EngineError> {
        let cu = ComputeUnit::new(hw).map_err(|e| EngineError::Config(e.to_string()))?;
        let shape = Shape::of(&cu);
        let tracing = if vcd.is_some() {
            Tracing::Vcd
        } else {
            Tracing::Off
        };
        let model = model_of(cu, hw, tracing, &cache_dir(), building).map_err(model_error)?;
        let mut engine = Self::over(model, shape)?;
        if let Some(file) = vcd {
            engine.traced = true;
            use std::os::fd::AsRawFd;
            // The caller's staged file, which Verilator opens (again) by name.
            let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
            engine.model.trace_to(&path).map_err(model_error)?;
            engine.model.eval();
            engine.model.dump(0);
        }
        Ok(engine)
    }

    /// The engine over a built model of a compute unit of `shape`: every port of the trait must
    /// be a port of the model and the other way round (but the clock), so a port added to the
    /// RTL and not to the trait is an error, not an output co-simulation skips.
    fn over(model: VerilatedModel, shape: Shape) -> Result<VerilatedCu, EngineError> {
        let mismatch = |what: String| {
            EngineError::Model(format!(
                "the Verilog of the compute unit and the test bench's ports differ: {what}"
            ))
        };
        let clock = model
            .input("clock")
            .ok_or_else(|| mismatch("no clock".into()))?;
        let mut inputs = vec![ABSENT; 64 * MAX_INDEX];
        for port in Input::all(shape) {
            let n = model
                .input(&port.name())
                .ok_or_else(|| mismatch(format!("input {} is not in the Verilog", port.name())))?;
            inputs[port.number()] = n as u32;
        }
        let mut outputs = vec![ABSENT; 64 * MAX_INDEX];
        for port in Output::all(shape) {
            let n = model
                .output(&port.name())
                .ok_or_else(|| mismatch(format!("output {} is not in the Verilog", port.name())))?;
            outputs[port.number()] = n as u32;
        }
        let known = |list: &[u32], n: usize| list.iter().any(|&p| p as usize == n);
        if let Some(p) = (0..model.inputs().len()).find(|&n| n != clock && !known(&inputs, n)) {
            return Err(mismatch(format!(
                "the Verilog's input {} is not a port of the bench",
                model.inputs()[p].name
            )));
        }
        if let Some(p) = (0..model.outputs().len()).find(|&n| !known(&outputs, n)) {
            return Err(mismatch(format!(
                "the Verilog's output {} is not a port of the bench",
                model.outputs()[p].name
            )));
        }
        Ok(VerilatedCu {
            model,
            shape,
            inputs,
            outputs,
            clock,
            cycle: 0,
            traced: false,
            dirty: true,
        })
    }

    /// The shared library the model runs from.
    pub fn library(&self) -> &Path {
        self.model.library()
    }
}

fn model_error(e: ExportError) -> EngineError {
    EngineError::Model(format!("the compute unit's Verilator model: {e}"))
}

/// The model of `cu` (the compute unit of `hw`): through the index when this executable built
/// or found it before, else by generating the Verilog and building (or finding) its model.
fn model_of(
    mut cu: ComputeUnit,
    hw: &HwConfig,
    tracing: Tracing,
    cache: &Path,
    building: &dyn Fn(&Path),
) -> Result<VerilatedModel, ExportError> {
    let top = ComputeUnit::MODULE;
    let index = index_entry(hw, tracing, cache);
    if let Some(entry) = &index {
        if let Some(model) = std::fs::read_to_string(entry)
            .ok()
            .and_then(|dir| VerilatedModel::load_built(Path::new(dir.trim()), top, tracing))
        {
            return Ok(model);
        }
    }
    let text = verilog::generate(&mut cu, top)?;
    let model = VerilatedModel::build_with(&text, top, cache, tracing, building)?;
    if let (Some(entry), Some(dir)) = (index, model.library().parent().and_then(Path::parent)) {
        // Only a shortcut: without it the next run regenerates the Verilog.
        let _ = std::fs::create_dir_all(cache.join("index"))
            .and_then(|()| std::fs::write(entry, dir.display().to_string()));
    }
    Ok(model)
}

/// `cache/index/<hash>`: the configuration, the tracing and the running executable; `None`
/// when the executable cannot be identified.
fn index_entry(hw: &HwConfig, tracing: Tracing, cache: &Path) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let mut hash = Sha256::new();
    hash.update(format!(
        "{hw:?} {tracing:?} {} {} {mtime:?}",
        exe.display(),
        meta.len()
    ));
    Some(cache.join("index").join(short_hex(&hash.finalize())))
}

impl CuPorts for VerilatedCu {
    fn engine(&self) -> Engine {
        Engine::Verilator
    }

    fn shape(&self) -> Shape {
        self.shape
    }

    fn set(&mut self, port: Input, value: u64) {
        let n = self.inputs[port.number()];
        debug_assert_ne!(n, ABSENT, "{port:?}");
        self.model.set(n as usize, value);
        self.dirty = true;
    }

    fn get(&self, port: Output) -> u64 {
        let n = self.outputs[port.number()];
        debug_assert_ne!(n, ABSENT, "{port:?}");
        self.model.get(n as usize)
    }

    fn settle(&mut self) -> Result<(), EngineError> {
        if self.dirty {
            self.model.eval();
            self.dirty = false;
        }
        Ok(())
    }

    fn tick(&mut self) -> Result<(), EngineError> {
        // Inputs settle before the edge, as in rust-hdl's driver: the generated Verilog drives
        // every flip-flop's clock from its parent's combinational block, so an edge evaluated
        // together with new inputs lets some flip-flops sample values not yet settled.
        self.settle()?;
        self.model.set(self.clock, 1);
        self.model.eval();
        if self.traced {
            self.model
                .dump(self.cycle * CLOCK_PERIOD_PS + CLOCK_PERIOD_PS / 2);
        }
        self.model.set(self.clock, 0);
        self.cycle += 1;
        if self.traced {
            self.model.eval();
            self.model.dump(self.cycle * CLOCK_PERIOD_PS);
            self.dirty = false;
        } else {
            // The falling edge is evaluated with the next settle's inputs.
            self.dirty = true;
        }
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }
}
