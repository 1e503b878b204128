//! `pws export`: write every unit's Verilog and check it with the open tools; with a report,
//! add the area on a generic gate library and on iCE40, and the iCE40 fmax.
//!
//! The checks every file must pass: Verilator lint (`-Wall` minus the documented waivers,
//! exit 0), Icarus compile (`-g2005`) and the Yosys front end (`hierarchy -check; proc;
//! check -assert`, no latches). Full synthesis takes minutes for the largest unit, so it runs
//! with the report only: generic `synth` cells, `synth_ice40` LUTs and flip-flops. For fmax, a unit's ports cannot go to
//! pins (the swizzle unit alone has over 500 port bits; an HX8K in the CT256 package has 206
//! I/Os), so the unit is placed inside a generated wrapper that feeds its inputs from a shift
//! register and folds its outputs into a rotating register: every port stays observable, so
//! nothing is optimised away, and every path is register to register through the unit. The
//! area columns are of the unit alone.

use std::fmt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pws_hdl::config::HwConfig;
use serde::Serialize;

use crate::cosim::CoSimReport;
use crate::tools::{self, Ice40Stat, LintReport};
use crate::units::{self, Unit};
use crate::verilog::{self, Direction, Port};
use crate::ExportError;

/// What `pws export` does.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Directory the `.v` files are written to (created if missing).
    pub out: PathBuf,
    /// Only this unit (see [`units::select`]).
    pub unit: Option<String>,
    /// Also synthesise for iCE40 and place and route for fmax.
    pub report: bool,
    /// Clock target given to nextpnr (it reports the achieved maximum either way).
    pub target_mhz: f64,
    /// Also co-simulate every unit that has an Icarus co-simulation for this many cycles.
    pub cosim_cycles: Option<usize>,
    /// Seed of the co-simulation stimulus.
    pub seed: u64,
    /// The hardware configuration of the units built from one (split/merge, swizzle, vector
    /// and compute units); `None`: each unit's default (docs/verilog.md).
    pub config: Option<HwConfig>,
}

/// The synthesis part of a report.
#[derive(Clone, Debug, Serialize)]
pub struct AreaReport {
    /// Cells after `synth -flatten` on Yosys' generic library.
    pub yosys_cells: u64,
    pub ice40: Ice40Stat,
    /// Maximum clock frequency after place and route of the unit in its wrapper.
    pub fmax_mhz: Option<f64>,
    /// Why there is no fmax (the design does not fit the HX8K, for instance).
    pub fmax_error: Option<String>,
}

/// One exported unit.
#[derive(Clone, Debug, Serialize)]
pub struct UnitExport {
    pub module: String,
    pub rust_type: String,
    pub file: PathBuf,
    pub lines: usize,
    /// Verilog modules in the file (rust-hdl writes one per submodule instance).
    pub modules: usize,
    pub ports: Vec<Port>,
    pub lint: LintReport,
    /// With `--report` only.
    pub area: Option<AreaReport>,
    /// With `--cosim` only.
    pub cosim: Option<CoSimReport>,
    /// `--cosim` was asked for but the unit has no Icarus co-simulation.
    pub cosim_skipped: bool,
}

/// Everything `pws export` did.
#[derive(Clone, Debug, Serialize)]
pub struct ExportSummary {
    pub out: PathBuf,
    pub lint_waivers: Vec<String>,
    pub units: Vec<UnitExport>,
    /// Units the exported configuration does not have.
    pub absent: Vec<AbsentUnit>,
}

/// A unit left out because the configuration has none (the split/merge datapath at S = 0).
#[derive(Clone, Debug, Serialize)]
pub struct AbsentUnit {
    pub module: String,
    pub why: String,
}

/// A step of the export finished: `unit`'s `step` (`verilog`, `verilator lint`, ...) took
/// `elapsed`; `detail` says what came out (line counts, warnings waived).
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub unit: &'a str,
    pub step: &'a str,
    pub detail: String,
    pub elapsed: Duration,
}

/// Writes and checks the selected units.
pub fn export(options: &ExportOptions) -> Result<ExportSummary, ExportError> {
    export_with_progress(options, &|_| {})
}

/// [`export`], calling `progress` after every step of every unit. The units are generated, and
/// then every check of every unit runs as its own job (the lint, Icarus, Yosys, co-simulation
/// and synthesis of one file are independent), on as many threads as the machine has cores,
/// largest file first: the tools are single-threaded, and the compute unit's checks alone take
/// about as long as all the others. The summary keeps the units' order.
pub fn export_with_progress(
    options: &ExportOptions,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<ExportSummary, ExportError> {
    if !(options.target_mhz > 0.0 && options.target_mhz.is_finite()) {
        return Err(ExportError::BadArgument(format!(
            "the fmax target must be a positive frequency in MHz, not {}",
            options.target_mhz
        )));
    }
    let mut selected = units::select(options.unit.as_deref())?;
    let mut absent = Vec::new();
    if let Some(cfg) = &options.config {
        selected.retain(|u| match (u.absent)(cfg) {
            Some(why) => {
                progress(Progress {
                    unit: u.module,
                    step: "skipped",
                    detail: why.to_string(),
                    elapsed: Duration::ZERO,
                });
                absent.push(AbsentUnit {
                    module: u.module.to_string(),
                    why: why.to_string(),
                });
                false
            }
            None => true,
        });
        if let (Some(name), Some(a)) = (&options.unit, absent.first()) {
            return Err(ExportError::BadArgument(format!(
                "--unit {name}: this configuration has no {}: {}",
                a.module, a.why
            )));
        }
    }
    let written = in_parallel(&(0..selected.len()).collect::<Vec<_>>(), |&i| {
        write_unit(&selected[i], options, progress)
    })?;
    let mut by_size: Vec<usize> = (0..selected.len()).collect();
    by_size.sort_by_key(|&i| std::cmp::Reverse(written[i].text.len()));
    let mut checks = Vec::new();
    for &i in &by_size {
        let unit = &selected[i];
        if options.report {
            checks.push((i, Check::Area));
        }
        checks.extend([(i, Check::Yosys), (i, Check::Lint), (i, Check::Iverilog)]);
        if options.cosim_cycles.is_some() && unit.cosim.is_some() {
            checks.push((i, Check::CoSim));
        }
    }
    let outcomes = in_parallel(&checks, |&(i, check)| {
        run_check(&selected[i], &written[i], check, options, progress)
    })?;
    let mut units: Vec<UnitExport> = selected
        .iter()
        .zip(&written)
        .map(|(unit, w)| UnitExport {
            module: unit.module.to_string(),
            rust_type: unit.rust_type.to_string(),
            file: w.file.clone(),
            lines: w.lines,
            modules: w
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with("module "))
                .count(),
            ports: w.ports.clone(),
            lint: LintReport::default(),
            area: None,
            cosim: None,
            cosim_skipped: options.cosim_cycles.is_some() && unit.cosim.is_none(),
        })
        .collect();
    for ((i, _), outcome) in checks.into_iter().zip(outcomes) {
        match outcome {
            Outcome::Lint(lint) => units[i].lint = lint,
            Outcome::Area(area) => units[i].area = Some(area),
            Outcome::CoSim(report) => units[i].cosim = Some(report),
            Outcome::Passed => {}
        }
    }
    Ok(ExportSummary {
        out: options.out.clone(),
        lint_waivers: tools::LINT_WAIVERS
            .iter()
            .map(|w| match w.file {
                None => w.rule.to_string(),
                Some(file) => format!("{} ({file})", w.rule),
            })
            .collect(),
        units,
        absent,
    })
}

/// `job` on every item of `items`, on up to one thread per core, each thread taking the next
/// item; results in the order of `items`. The first error in that order wins.
fn in_parallel<I: Sync, T: Send>(
    items: &[I],
    job: impl Fn(&I) -> Result<T, ExportError> + Sync,
) -> Result<Vec<T>, ExportError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<T, ExportError>>>> =
        items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(k) else { break };
                let result = job(item);
                *results[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item runs once")
        })
        .collect()
}

/// A unit's Verilog as written to the output directory, its ports, and a scratch directory
/// for the tools' outputs.
struct Written {
    text: String,
    lines: usize,
    file: PathBuf,
    ports: Vec<Port>,
    work: tempfile::TempDir,
}

/// One check of one unit's file.
#[derive(Clone, Copy, Debug)]
enum Check {
    Lint,
    Iverilog,
    Yosys,
    CoSim,
    Area,
}

enum Outcome {
    Passed,
    Lint(LintReport),
    CoSim(CoSimReport),
    Area(AreaReport),
}

fn write_unit(
    unit: &Unit,
    options: &ExportOptions,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Written, ExportError> {
    let start = Instant::now();
    let text = (unit.verilog)(options.config.as_ref())?;
    let file = verilog::write(&options.out, unit.module, &text)?;
    let ports = verilog::ports(&text, unit.module)?;
    let work = tempfile::tempdir().map_err(|e| ExportError::io(Path::new("tempdir"), e))?;
    let lines = text.lines().count();
    progress(Progress {
        unit: unit.module,
        step: "verilog",
        detail: format!("{lines} lines"),
        elapsed: start.elapsed(),
    });
    Ok(Written {
        text,
        lines,
        file,
        ports,
        work,
    })
}

fn run_check(
    unit: &Unit,
    written: &Written,
    check: Check,
    options: &ExportOptions,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Outcome, ExportError> {
    let start = Instant::now();
    let (step, detail, outcome) = match check {
        Check::Lint => {
            let lint = tools::lint(&written.file, unit.module)?;
            let waived = lint.waived.values().sum::<usize>();
            (
                "verilator lint",
                format!("ok, {waived} warnings waived"),
                Outcome::Lint(lint),
            )
        }
        Check::Iverilog => {
            let vvp = written.work.path().join(format!("{}.vvp", unit.module));
            tools::iverilog(&[&written.file], unit.module, &vvp)?;
            ("iverilog", "ok".to_string(), Outcome::Passed)
        }
        Check::Yosys => {
            tools::yosys_check(&written.file, unit.module)?;
            ("yosys check", "ok".to_string(), Outcome::Passed)
        }
        Check::CoSim => {
            let (Some(cycles), Some(cosimulate)) = (options.cosim_cycles, unit.cosim) else {
                return Ok(Outcome::Passed);
            };
            let dir = written.work.path().join("cosim");
            let report = cosimulate(options.config.as_ref(), options.seed, cycles, &dir)?;
            (
                "co-simulation",
                format!("{cycles} cycles agree"),
                Outcome::CoSim(report),
            )
        }
        Check::Area => {
            let dir = written.work.path().join("area");
            std::fs::create_dir_all(&dir).map_err(|e| ExportError::io(&dir, e))?;
            let area = area_report(unit.module, &written.file, &written.ports, &dir, options)?;
            let detail = format!("{} iCE40 LUTs", area.ice40.luts);
            ("synthesis", detail, Outcome::Area(area))
        }
    };
    progress(Progress {
        unit: unit.module,
        step,
        detail,
        elapsed: start.elapsed(),
    });
    Ok(outcome)
}

fn area_report(
    module: &str,
    file: &Path,
    ports: &[Port],
    work: &Path,
    options: &ExportOptions,
) -> Result<AreaReport, ExportError> {
    let yosys_cells = tools::yosys_synth(file, module)?.cells;
    let ice40 = tools::yosys_ice40(&[file], module, &work.join(format!("{module}.json")))?;
    let wrapper = wrapper_name(module);
    let wrapper_path = work.join(format!("{wrapper}.v"));
    std::fs::write(&wrapper_path, fmax_wrapper(module, ports))
        .map_err(|e| ExportError::io(&wrapper_path, e))?;
    let json = work.join(format!("{wrapper}.json"));
    tools::yosys_ice40(&[file, &wrapper_path], &wrapper, &json)?;
    let (fmax_mhz, fmax_error) = match tools::nextpnr_fmax(&json, options.target_mhz) {
        Ok(f) => (Some(f), None),
        Err(ExportError::ToolFailed { output, .. }) => (None, Some(nextpnr_reason(&output))),
        Err(e) => return Err(e),
    };
    Ok(AreaReport {
        yosys_cells,
        ice40,
        fmax_mhz,
        fmax_error,
    })
}

/// The first error line of a failed nextpnr run.
fn nextpnr_reason(log: &str) -> String {
    log.lines()
        .find(|l| l.starts_with("ERROR"))
        .unwrap_or("nextpnr-ice40 failed")
        .to_string()
}

/// Module name of the fmax wrapper of `module`.
pub fn wrapper_name(module: &str) -> String {
    format!("{module}_fmax")
}

/// A wrapper with three pins (`clock`, `si`, `so`) around `module`: a shift register from `si`
/// drives all inputs, and all outputs are xored into a register that rotates by one bit per
/// cycle, whose top bit is `so`.
pub fn fmax_wrapper(module: &str, ports: &[Port]) -> String {
    let inputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.direction == Direction::Input && p.name != crate::cosim::CLOCK_PORT)
        .collect();
    let outputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.direction == Direction::Output)
        .collect();
    let n_in: usize = inputs.iter().map(|p| p.width).sum::<usize>().max(1);
    let n_out: usize = outputs.iter().map(|p| p.width).sum::<usize>().max(1);
    let name = wrapper_name(module);
    let mut v = String::new();
    let _ = writeln!(v, "module {name}(clock, si, so);");
    let _ = writeln!(
        v,
        "  input wire clock;\n  input wire si;\n  output wire so;"
    );
    let _ = writeln!(
        v,
        "  reg [{}:0] sh = 0;\n  reg [{}:0] oq = 0;",
        n_in - 1,
        n_out - 1
    );
    let mut connections = vec![format!(".{0}({0})", crate::cosim::CLOCK_PORT)];
    let mut low = 0;
    for p in &inputs {
        connections.push(format!(".{}(sh[{}:{}])", p.name, low + p.width - 1, low));
        low += p.width;
    }
    for (i, p) in outputs.iter().enumerate() {
        let _ = writeln!(v, "  wire [{}:0] o{i};", p.width - 1);
        connections.push(format!(".{}(o{i})", p.name));
    }
    let _ = writeln!(
        v,
        "  {module} dut(\n    {}\n  );",
        connections.join(",\n    ")
    );
    let shifted = if n_in == 1 {
        "si".to_string()
    } else {
        format!("{{sh[{}:0], si}}", n_in - 2)
    };
    let rotated = if n_out == 1 {
        "oq".to_string()
    } else {
        format!("{{oq[{}:0], oq[{}]}}", n_out - 2, n_out - 1)
    };
    let all_outputs: Vec<String> = (0..outputs.len()).rev().map(|i| format!("o{i}")).collect();
    let all_outputs = if all_outputs.is_empty() {
        "1'b0".to_string()
    } else {
        all_outputs.join(", ")
    };
    let _ = writeln!(v, "  always @(posedge clock) begin\n    sh <= {shifted};");
    let _ = writeln!(v, "    oq <= {{{all_outputs}}} ^ {rotated};\n  end");
    let _ = writeln!(v, "  assign so = oq[{}];\nendmodule", n_out - 1);
    v
}

impl fmt::Display for ExportSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self.units.iter().any(|u| u.area.is_some());
        write!(
            f,
            "{:<24} {:>6} {:>7} {:>8} {:>10}",
            "unit", "ports", "lines", "modules", "lint"
        )?;
        if report {
            write!(
                f,
                " {:>11} {:>9} {:>8} {:>6} {:>9}",
                "yosys cells", "ice40 LUT", "ice40 FF", "carry", "fmax MHz"
            )?;
        }
        writeln!(f)?;
        for u in &self.units {
            let waived: usize = u.lint.waived.values().sum();
            let lint = format!("ok ({waived}w)");
            write!(
                f,
                "{:<24} {:>6} {:>7} {:>8} {:>10}",
                u.module,
                u.ports.len(),
                u.lines,
                u.modules,
                lint
            )?;
            if let Some(a) = &u.area {
                let fmax = a.fmax_mhz.map_or("n/a".to_string(), |m| format!("{m:.1}"));
                write!(
                    f,
                    " {:>11} {:>9} {:>8} {:>6} {:>9}",
                    a.yosys_cells, a.ice40.luts, a.ice40.ffs, a.ice40.carries, fmax
                )?;
            }
            writeln!(f)?;
        }
        for a in &self.absent {
            writeln!(f, "{:<24} not in this configuration: {}", a.module, a.why)?;
        }
        for u in &self.units {
            if let Some(reason) = u.area.as_ref().and_then(|a| a.fmax_error.as_ref()) {
                writeln!(f, "{}: no fmax: {reason}", u.module)?;
            }
        }
        writeln!(
            f,
            "written to {}; every file passed verilator --lint-only -Wall (waivers in {}: {}; \
             (Nw) = N waived warnings), iverilog -g2005 and the yosys front-end check",
            self.out.display(),
            tools::LINT_CONFIG,
            self.lint_waivers.join(", ")
        )?;
        if report {
            writeln!(
                f,
                "fmax: nextpnr-ice40 --hx8k --package ct256, unit between I/O registers"
            )?;
        }
        for c in self.units.iter().filter_map(|u| u.cosim.as_ref()) {
            writeln!(
                f,
                "{}: co-simulation against Icarus passed: {} cycles, seed {}, {} outputs compared \
                 every cycle",
                c.unit,
                c.cycles,
                c.seed,
                c.outputs.len()
            )?;
        }
        for u in self.units.iter().filter(|u| u.cosim_skipped) {
            writeln!(
                f,
                "{}: not co-simulated against Icarus (too slow on its Verilog); `pws bench` \
                 compares its outputs with Verilator's",
                u.module
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_feeds_every_input_bit_and_observes_every_output() {
        let port = |n: &str, d, w| Port {
            name: n.into(),
            direction: d,
            width: w,
        };
        let ports = [
            port("clock", Direction::Input, 1),
            port("a", Direction::Input, 3),
            port("m$0", Direction::Input, 16),
            port("y", Direction::Output, 1),
            port("z$1", Direction::Output, 8),
        ];
        let v = fmax_wrapper("pws_x", &ports);
        assert!(v.contains("module pws_x_fmax(clock, si, so);"));
        assert!(v.contains(".a(sh[2:0])"));
        assert!(v.contains(".m$0(sh[18:3])"));
        assert!(v.contains("reg [18:0] sh = 0;"));
        assert!(v.contains("reg [8:0] oq = 0;"));
        assert!(v.contains("oq <= {o1, o0} ^ {oq[7:0], oq[8]};"));
    }

    #[test]
    fn nextpnr_reason_is_its_first_error() {
        let log = "Info: x\nERROR: Unable to place cell 'a'\nERROR: more\n";
        assert_eq!(nextpnr_reason(log), "ERROR: Unable to place cell 'a'");
    }
}
