//! Verilog export of the pws RTL and the flows that make the export trustworthy.
//!
//! * [`verilog`] writes one Verilog file per unit, with the top module named after the unit;
//! * [`tools`] runs Verilator lint, Icarus, Yosys (`synth`, `synth_ice40`) and nextpnr-ice40;
//! * [`cosim`] drives the same random stimulus through the rust-hdl design (via
//!   `pws_sim::Driver`) and through its exported Verilog in Icarus, comparing every output on
//!   every cycle;
//! * [`bench`] measures simulation speed of rust-hdl against Verilator on the same unit;
//! * [`verilated`] builds a design with Verilator into a library Rust steps through a C ABI;
//! * [`verilated_cu`] is the compute unit's Verilator engine for the test bench;
//! * [`units`] lists the exported units of `pws-hdl` and how each is driven;
//! * [`flow`] ties them together for `pws export`.
//!
//! docs/verilog.md describes the layout, the lint waivers and how to reproduce each step.

pub mod bench;
pub mod cosim;
pub mod flow;
pub mod tools;
pub mod units;
pub mod verilated;
pub mod verilated_cu;
pub mod verilog;

use std::path::Path;

/// Everything that can go wrong while exporting or checking a unit.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("`{0}` is not a plain Verilog identifier")]
    BadModuleName(String),
    #[error("unit {unit} failed rust-hdl's structural checks: {detail}")]
    Check { unit: String, detail: String },
    #[error("unit {unit} cannot be built for the exported configuration: {detail}")]
    Config { unit: String, detail: String },
    #[error("unknown unit `{name}` (known units: {known})")]
    UnknownUnit { name: String, known: String },
    #[error(
        "`{tool}` was not found on PATH: install the Debian package `{package}` (`make deps` does)"
    )]
    ToolMissing {
        tool: &'static str,
        package: &'static str,
    },
    #[error("{tool} failed on {subject} (exit status {status}):\n{output}")]
    ToolFailed {
        tool: &'static str,
        subject: String,
        status: String,
        output: String,
    },
    #[error("could not parse {what} from:\n{text}")]
    Parse { what: String, text: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("port mismatch in unit {unit}: {detail}")]
    PortMismatch { unit: String, detail: String },
    #[error("simulating unit {unit} in rust-hdl failed: {source}")]
    Driver {
        unit: String,
        source: pws_sim::DriverError,
    },
    #[error(
        "co-simulation of {unit} diverged (seed {seed}) at cycle {cycle}, port {port}: \
         rust-hdl {rust:#x}, Verilog {verilog}"
    )]
    Mismatch {
        unit: String,
        seed: u64,
        cycle: usize,
        port: String,
        rust: u64,
        verilog: String,
    },
    #[error("bad argument: {0}")]
    BadArgument(String),
}

impl ExportError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        ExportError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
