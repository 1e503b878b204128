//! Simulation speed of a unit in rust-hdl (stepped by `pws_sim::Driver`) against Verilator on
//! the unit's exported Verilog, with the same stimulus.
//!
//! Both sides apply a row of the unit's co-simulation stimulus per cycle (the rows repeat
//! when the run is longer than the stimulus), clock the design once and fold every output into
//! a checksum over the first pass through the stimulus, sampled after the falling edge. Each
//! side runs until its time budget is spent; equal checksums show the two simulated the same
//! thing, so the speeds are comparable. The Verilator model is built with
//! `verilator --cc --exe --build -O3` and a generated C++ harness that embeds the stimulus.

use std::fmt;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use pws_hdl::config::HwConfig;
use pws_sim::Driver;
use serde::Serialize;

use crate::cosim::{CoSimPorts, PortSpec, Stimulus};
use crate::tools::{self, Tool};
use crate::units::{self, Design, Harness};
use crate::{verilog, ExportError};

/// How long and on what each side runs.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Wall-clock time each simulator runs for (at least one pass through the stimulus).
    pub budget: Duration,
    /// Rows of stimulus (cycles before it repeats, and cycles the checksum covers).
    pub stimulus_cycles: usize,
    pub seed: u64,
    /// The hardware configuration of the units that take one (as `pws export --config`);
    /// `None`: each unit's default.
    pub config: Option<HwConfig>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            budget: Duration::from_secs(1),
            stimulus_cycles: 1024,
            seed: 1,
            config: None,
        }
    }
}

/// One unit's measurement.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub unit: String,
    pub rust_hdl_cycles: u64,
    pub rust_hdl_seconds: f64,
    pub rust_hdl_cycles_per_second: f64,
    pub verilator_cycles: u64,
    pub verilator_seconds: f64,
    pub verilator_cycles_per_second: f64,
    /// How many times faster Verilator simulates.
    pub speedup: f64,
    /// Seconds spent verilating and compiling the model (not part of the speed).
    pub verilator_build_seconds: f64,
    /// Both sides produced the same outputs over the first pass through the stimulus.
    pub outputs_agree: bool,
}

/// The benchmark of several units, printable as a table.
#[derive(Clone, Debug, Serialize)]
pub struct BenchTable {
    pub rows: Vec<BenchRow>,
}

impl fmt::Display for BenchTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<24} {:>16} {:>16} {:>9} {:>9}",
            "unit", "rust-hdl cyc/s", "Verilator cyc/s", "speedup", "outputs"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<24} {:>16.0} {:>16.0} {:>8.1}x {:>9}",
                r.unit,
                r.rust_hdl_cycles_per_second,
                r.verilator_cycles_per_second,
                r.speedup,
                if r.outputs_agree { "agree" } else { "DIFFER" }
            )?;
        }
        Ok(())
    }
}

/// Benchmarks the units selected by `unit` that have a port-level bench (see [`units::select`];
/// all when `None`), building the Verilator models under `dir` (a temporary directory when
/// `None`).
pub fn run(
    unit: Option<&str>,
    options: &BenchOptions,
    dir: Option<&Path>,
) -> Result<BenchTable, ExportError> {
    let temp;
    let dir = match dir {
        Some(d) => d,
        None => {
            temp = tempfile::tempdir().map_err(|e| ExportError::io(Path::new("tempdir"), e))?;
            temp.path()
        }
    };
    let rows = units::select(unit)?
        .iter()
        .filter_map(|u| u.bench.map(|bench| bench(options, &dir.join(u.module))))
        .collect::<Result<_, _>>()?;
    Ok(BenchTable { rows })
}

/// Folds one output value into the checksum (the C++ harness computes the same function).
fn fold(hash: u64, value: u64) -> u64 {
    (hash.rotate_left(5) ^ value).wrapping_mul(0x0000_0100_0000_01B3)
}

const HASH_SEED: u64 = 0xCBF2_9CE4_8422_2325;

/// Measures `D` in rust-hdl and in Verilator, working in `dir`.
pub fn measure<D: Design + CoSimPorts>(
    options: &BenchOptions,
    dir: &Path,
) -> Result<BenchRow, ExportError> {
    if options.stimulus_cycles == 0 {
        return Err(ExportError::BadArgument(
            "the benchmark needs at least one stimulus row".into(),
        ));
    }
    let mut uut = match &options.config {
        Some(cfg) => D::build_for(cfg)?,
        None => D::build()?,
    };
    let text = verilog::generate(&mut uut, D::MODULE)?;
    let file = verilog::write(dir, D::MODULE, &text)?;
    let (inputs, outputs) = (uut.input_ports(), uut.output_ports());
    if let Some(wide) = inputs.iter().chain(&outputs).find(|p| p.width > 64) {
        return Err(ExportError::BadArgument(format!(
            "port {} of {} is wider than 64 bits",
            wide.name,
            D::MODULE
        )));
    }
    let stimulus = Stimulus::random(&uut, options.seed, options.stimulus_cycles);

    let driver_err = |source| ExportError::Driver {
        unit: D::MODULE.to_string(),
        source,
    };
    let mut driver = Driver::new(Harness(uut)).map_err(driver_err)?;
    let mut hash = HASH_SEED;
    let start = Instant::now();
    let mut cycles = 0u64;
    loop {
        let row = &stimulus.rows[cycles as usize % stimulus.rows.len()];
        driver
            .uut_mut()
            .0
            .set_inputs(row)
            .map_err(ExportError::BadArgument)?;
        driver.tick().map_err(driver_err)?;
        if (cycles as usize) < stimulus.rows.len() {
            hash = driver.uut().0.read_outputs().into_iter().fold(hash, fold);
        }
        cycles += 1;
        if cycles % 64 == 0
            && cycles as usize >= stimulus.rows.len()
            && start.elapsed() >= options.budget
        {
            break;
        }
    }
    let rust_seconds = start.elapsed().as_secs_f64();

    let harness = harness(D::MODULE, &inputs, &outputs, &stimulus);
    let harness_path = dir.join("bench_main.cpp");
    std::fs::write(&harness_path, harness).map_err(|e| ExportError::io(&harness_path, e))?;
    let build_start = Instant::now();
    let mut args: Vec<String> = [
        "--cc",
        "--exe",
        "--build",
        "-O3",
        "-j",
        "2",
        "--x-assign",
        "fast",
    ]
    .map(String::from)
    .to_vec();
    tools::write_lint_config(dir)?;
    args.extend(
        [
            "-Wno-fatal",
            "-MAKEFLAGS",
            "OPT_FAST=-O2",
            "--top-module",
            D::MODULE,
        ]
        .map(String::from),
    );
    args.extend([
        "-Mdir".into(),
        "obj_bench".into(),
        "-o".into(),
        "bench_sim".into(),
    ]);
    args.extend([
        tools::LINT_CONFIG.to_string(),
        file_name(&file),
        file_name(&harness_path),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tools::run(Tool::Verilator, &args, dir, D::MODULE)?;
    let build_seconds = build_start.elapsed().as_secs_f64();
    let binary = dir.join("obj_bench").join("bench_sim");
    let out = std::process::Command::new(&binary)
        .arg(options.budget.as_secs_f64().to_string())
        .output()
        .map_err(|e| ExportError::io(&binary, e))?;
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    let fields: Vec<&str> = report.split_whitespace().collect();
    let parse_err = || ExportError::Parse {
        what: "the Verilator harness report".into(),
        text: report.clone(),
    };
    let (v_cycles, v_seconds, v_hash) = match fields.as_slice() {
        [c, s, h] => (
            c.parse::<u64>().map_err(|_| parse_err())?,
            s.parse::<f64>().map_err(|_| parse_err())?,
            u64::from_str_radix(h, 16).map_err(|_| parse_err())?,
        ),
        _ => return Err(parse_err()),
    };
    let rust_rate = cycles as f64 / rust_seconds;
    let verilator_rate = v_cycles as f64 / v_seconds.max(f64::MIN_POSITIVE);
    Ok(BenchRow {
        unit: D::MODULE.to_string(),
        rust_hdl_cycles: cycles,
        rust_hdl_seconds: rust_seconds,
        rust_hdl_cycles_per_second: rust_rate,
        verilator_cycles: v_cycles,
        verilator_seconds: v_seconds,
        verilator_cycles_per_second: verilator_rate,
        speedup: verilator_rate / rust_rate,
        verilator_build_seconds: build_seconds,
        outputs_agree: v_hash == hash,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Verilator's C++ name of a port: characters other than letters, digits and `_` become
/// `__0` and their two hex digits (`mask_i$0` is `mask_i__0240`).
pub fn verilator_name(port: &str) -> String {
    port.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_string()
            } else {
                format!("__0{:02x}", c as u32)
            }
        })
        .collect()
}

/// The C++ harness: embedded stimulus, the same cycle loop and checksum as the Rust side,
/// prints `cycles seconds checksum`.
pub fn harness(
    module: &str,
    inputs: &[PortSpec],
    outputs: &[PortSpec],
    stimulus: &Stimulus,
) -> String {
    let class = format!("V{module}");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "// Generated by pws-export: rust-hdl vs Verilator benchmark of {module}."
    );
    let _ = writeln!(c, "#include \"{class}.h\"\n#include \"verilated.h\"");
    let _ = writeln!(
        c,
        "#include <chrono>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
    );
    let rows = stimulus.rows.len();
    let width = inputs.len().max(1);
    let _ = writeln!(c, "static const uint64_t STIM[{rows}][{width}] = {{");
    for row in &stimulus.rows {
        let values: Vec<String> = row.iter().map(|v| format!("0x{v:x}ULL")).collect();
        let values = if values.is_empty() {
            "0".to_string()
        } else {
            values.join(",")
        };
        let _ = writeln!(c, "  {{{values}}},");
    }
    let _ = writeln!(c, "}};\n");
    let _ = writeln!(
        c,
        "static inline uint64_t fold(uint64_t h, uint64_t v) {{\n  \
         return (((h << 5) | (h >> 59)) ^ v) * 0x00000100000001B3ULL;\n}}\n"
    );
    let _ = writeln!(c, "int main(int argc, char** argv) {{");
    let _ = writeln!(c, "  double budget = argc > 1 ? atof(argv[1]) : 1.0;");
    let _ = writeln!(c, "  VerilatedContext* ctx = new VerilatedContext;");
    let _ = writeln!(c, "  {class}* top = new {class}{{ctx}};");
    let _ = writeln!(c, "  top->clock = 0;\n  top->eval();");
    let _ = writeln!(
        c,
        "  uint64_t h = 0x{HASH_SEED:X}ULL, k = 0;\n  double elapsed = 0;"
    );
    let _ = writeln!(c, "  auto t0 = std::chrono::steady_clock::now();");
    let _ = writeln!(
        c,
        "  for (;;) {{\n    const uint64_t* row = STIM[k % {rows}];"
    );
    for (i, p) in inputs.iter().enumerate() {
        let _ = writeln!(c, "    top->{} = row[{i}];", verilator_name(&p.name));
    }
    let _ = writeln!(
        c,
        "    top->clock = 1;\n    top->eval();\n    top->clock = 0;\n    top->eval();"
    );
    let _ = writeln!(c, "    if (k < {rows}) {{");
    for p in outputs {
        let _ = writeln!(
            c,
            "      h = fold(h, (uint64_t)top->{});",
            verilator_name(&p.name)
        );
    }
    let _ = writeln!(c, "    }}\n    ++k;");
    let _ = writeln!(
        c,
        "    if (k % 64 == 0 && k >= {rows}) {{\n      \
         elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();\n      \
         if (elapsed >= budget) break;\n    }}\n  }}"
    );
    let _ = writeln!(c, "  printf(\"%llu %.9f %016llx\\n\", (unsigned long long)k, elapsed, (unsigned long long)h);");
    let _ = writeln!(
        c,
        "  top->final();\n  delete top;\n  delete ctx;\n  return 0;\n}}"
    );
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verilator_mangles_dollar_signs() {
        assert_eq!(verilator_name("mask_i$0"), "mask_i__0240");
        assert_eq!(verilator_name("start_i"), "start_i");
    }

    #[test]
    fn checksum_depends_on_order_and_value() {
        let a = [1u64, 2].into_iter().fold(HASH_SEED, fold);
        let b = [2u64, 1].into_iter().fold(HASH_SEED, fold);
        assert_ne!(a, b);
        assert_eq!(a, [1u64, 2].into_iter().fold(HASH_SEED, fold));
    }
}
