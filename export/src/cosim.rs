//! Co-simulation: the same random stimulus through a unit's rust-hdl model and through its
//! exported Verilog in Icarus, compared output by output, cycle by cycle.
//!
//! Both sides follow one cycle discipline, the one `pws_sim::Driver` defines: in cycle `k` the
//! inputs take the stimulus values of row `k`, the combinational logic settles, every output
//! is sampled, then the clock rises (registers load) and falls. Outputs of cycle `k` are
//! therefore a function of the state after `k` edges and of the inputs of row `k`; combinational
//! paths from inputs to outputs are compared as well as registered ones. The Icarus test bench
//! applies a row at the start of a 10 ns period, samples after 1 ns, raises the clock at 5 ns
//! and lowers it at 10 ns.
//!
//! Stimulus is reproducible from a seed ([`SplitMix64`]); a divergence is reported with the
//! seed, the first differing cycle, the port and both values.

use std::fmt::Write as _;
use std::path::Path;

use pws_sim::Driver;
use rust_hdl::core::prelude::{Bits, In, Out, Signal, Synth};
use serde::Serialize;

use crate::units::{Design, Harness};
use crate::verilog::{self, Port};
use crate::{tools, ExportError};

/// Name of the clock port in every rust-hdl design (driven by the bench, not by stimulus).
pub const CLOCK_PORT: &str = "clock";

/// A small, fast, seedable generator (SplitMix64), so a stimulus is reproduced from its seed
/// alone with no dependency on a random-number crate's value stability.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniformly random value of `width` bits.
    pub fn bits(&mut self, width: usize) -> u64 {
        self.next_u64() & mask(width)
    }

    /// A value in `0..n` (`n > 0`); the modulo bias is irrelevant for stimulus.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The low `width` bits set.
pub fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Name and width of a port the stimulus drives or the comparison reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortSpec {
    pub name: String,
    pub width: usize,
}

/// A signal value type that travels through stimulus and output files as an integer (ports are
/// at most 64 bits wide; [`cosimulate`] rejects wider ones).
pub trait PortValue: Sized {
    /// The value encoded as `value`, if it encodes one.
    fn from_u64(value: u64) -> Option<Self>;
    fn to_u64(&self) -> u64;
}

impl PortValue for bool {
    fn from_u64(value: u64) -> Option<Self> {
        (value <= 1).then_some(value == 1)
    }
    fn to_u64(&self) -> u64 {
        u64::from(*self)
    }
}

impl<const N: usize> PortValue for Bits<N> {
    fn from_u64(value: u64) -> Option<Self> {
        (value & !mask(N) == 0).then(|| Bits::from(value))
    }
    fn to_u64(&self) -> u64 {
        u64::from(*self)
    }
}

/// A design field that is one or more input ports: a signal, or a `Vec` of them, which
/// rust-hdl exports as the ports `name$0`, `name$1`, ...
pub trait InputGroup {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>);
    /// Takes this group's values from `values`; an error names a value the type cannot hold.
    fn drive(&mut self, name: &str, values: &mut dyn Iterator<Item = u64>) -> Result<(), String>;
}

/// A design field that is one or more output ports (see [`InputGroup`]).
pub trait OutputGroup {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>);
    fn read(&self, out: &mut Vec<u64>);
}

impl<T: Synth + PortValue> InputGroup for Signal<In, T> {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>) {
        out.push(PortSpec {
            name: name.to_string(),
            width: T::BITS,
        });
    }
    fn drive(&mut self, name: &str, values: &mut dyn Iterator<Item = u64>) -> Result<(), String> {
        let value = values
            .next()
            .ok_or_else(|| format!("no value for input {name}"))?;
        self.next = T::from_u64(value)
            .ok_or_else(|| format!("{value:#x} is not a valid value of input {name}"))?;
        Ok(())
    }
}

impl<T: Synth + PortValue> OutputGroup for Signal<Out, T> {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>) {
        out.push(PortSpec {
            name: name.to_string(),
            width: T::BITS,
        });
    }
    fn read(&self, out: &mut Vec<u64>) {
        out.push(self.val().to_u64());
    }
}

impl<G: InputGroup> InputGroup for Vec<G> {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>) {
        for (i, g) in self.iter().enumerate() {
            g.specs(&format!("{name}${i}"), out);
        }
    }
    fn drive(&mut self, name: &str, values: &mut dyn Iterator<Item = u64>) -> Result<(), String> {
        // The element's port name is only built for an error: this runs every cycle.
        for (i, g) in self.iter_mut().enumerate() {
            g.drive(name, values)
                .map_err(|e| format!("{e} (port {name}${i})"))?;
        }
        Ok(())
    }
}

impl<G: OutputGroup> OutputGroup for Vec<G> {
    fn specs(&self, name: &str, out: &mut Vec<PortSpec>) {
        for (i, g) in self.iter().enumerate() {
            g.specs(&format!("{name}${i}"), out);
        }
    }
    fn read(&self, out: &mut Vec<u64>) {
        for g in self {
            g.read(out);
        }
    }
}

/// How a unit's ports are driven and read by a co-simulation. Implement it with
/// [`cosim_ports!`](crate::cosim_ports); override [`CoSimPorts::random_stimulus`] when uniformly
/// random inputs would rarely exercise the unit.
pub trait CoSimPorts {
    /// Driven ports (not the clock), in stimulus order.
    fn input_ports(&self) -> Vec<PortSpec>;
    /// Compared ports, in output order.
    fn output_ports(&self) -> Vec<PortSpec>;
    /// Writes one stimulus row (one value per input port) to the inputs' `next`; an error
    /// names a value an input cannot take (an enum input outside its variants).
    fn set_inputs(&mut self, values: &[u64]) -> Result<(), String>;
    /// Current value of every output port.
    fn read_outputs(&self) -> Vec<u64>;
    /// `cycles` rows of stimulus: by default every input uniformly random in every cycle.
    fn random_stimulus(&self, rng: &mut SplitMix64, cycles: usize) -> Vec<Vec<u64>> {
        let ports = self.input_ports();
        (0..cycles)
            .map(|_| ports.iter().map(|p| rng.bits(p.width)).collect())
            .collect()
    }
}

/// Implements [`PortValue`] for a `LogicState` enum, whose encoding is the declaration order
/// of its variants (list them all, in that order).
#[macro_export]
macro_rules! enum_port_value {
    ($t:ty: $($variant:ident),+ $(,)?) => {
        impl $crate::cosim::PortValue for $t {
            fn from_u64(value: u64) -> Option<Self> {
                let variants = [$(<$t>::$variant),+];
                usize::try_from(value).ok().and_then(|i| variants.get(i).copied())
            }
            fn to_u64(&self) -> u64 {
                let variants = [$(<$t>::$variant),+];
                variants.iter().position(|v| v == self).map_or(u64::MAX, |i| i as u64)
            }
        }
    };
}

/// Implements [`CoSimPorts`] for a design from the names of its input and output fields
/// (signals or `Vec`s of signals). Widths come from the fields' types; `stimulus: f` replaces
/// the uniform random rows with `f(&self, &mut SplitMix64, cycles) -> Vec<Vec<u64>>`.
#[macro_export]
macro_rules! cosim_ports {
    ($t:ty {
        inputs: [$($i:ident),* $(,)?],
        outputs: [$($o:ident),+ $(,)?]
        $(, stimulus: $stim:expr)? $(,)?
    }) => {
        impl $crate::cosim::CoSimPorts for $t {
            #[allow(unused_mut)]
            fn input_ports(&self) -> Vec<$crate::cosim::PortSpec> {
                let mut ports = Vec::new();
                $($crate::cosim::InputGroup::specs(&self.$i, stringify!($i), &mut ports);)*
                ports
            }
            fn output_ports(&self) -> Vec<$crate::cosim::PortSpec> {
                let mut ports = Vec::new();
                $($crate::cosim::OutputGroup::specs(&self.$o, stringify!($o), &mut ports);)+
                ports
            }
            #[allow(unused_variables, unused_mut)]
            fn set_inputs(&mut self, values: &[u64]) -> Result<(), String> {
                let mut values = values.iter().copied();
                $($crate::cosim::InputGroup::drive(&mut self.$i, stringify!($i), &mut values)?;)*
                Ok(())
            }
            fn read_outputs(&self) -> Vec<u64> {
                let mut values = Vec::new();
                $($crate::cosim::OutputGroup::read(&self.$o, &mut values);)+
                values
            }
            $(
            fn random_stimulus(
                &self,
                rng: &mut $crate::cosim::SplitMix64,
                cycles: usize,
            ) -> Vec<Vec<u64>> {
                ($stim)(self, rng, cycles)
            }
            )?
        }
    };
}

/// What a co-simulation compared.
#[derive(Clone, Debug, Serialize)]
pub struct CoSimReport {
    pub unit: String,
    pub seed: u64,
    pub cycles: usize,
    pub inputs: Vec<PortSpec>,
    pub outputs: Vec<PortSpec>,
}

/// A reproducible stimulus: one row of input values per cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stimulus {
    pub seed: u64,
    pub rows: Vec<Vec<u64>>,
}

impl Stimulus {
    /// `cycles` rows from `uut`'s generator seeded with `seed`.
    pub fn random<U: CoSimPorts>(uut: &U, seed: u64, cycles: usize) -> Self {
        let rows = uut.random_stimulus(&mut SplitMix64::new(seed), cycles);
        Stimulus { seed, rows }
    }
}

/// Runs the rust-hdl model of `U` over `stimulus` and returns its outputs, one row per cycle.
pub fn simulate_rust<U: Design + CoSimPorts>(
    uut: U,
    stimulus: &Stimulus,
) -> Result<Vec<Vec<u64>>, ExportError> {
    let driver_err = |source| ExportError::Driver {
        unit: U::MODULE.to_string(),
        source,
    };
    let n_inputs = uut.input_ports().len();
    let mut driver = Driver::new(Harness(uut)).map_err(driver_err)?;
    let mut outputs = Vec::with_capacity(stimulus.rows.len());
    for (cycle, row) in stimulus.rows.iter().enumerate() {
        let bad = |e: String| {
            ExportError::BadArgument(format!("stimulus of {} at cycle {cycle}: {e}", U::MODULE))
        };
        if row.len() != n_inputs {
            return Err(bad(format!("{} values for {n_inputs} inputs", row.len())));
        }
        driver.uut_mut().0.set_inputs(row).map_err(bad)?;
        driver.settle().map_err(driver_err)?;
        outputs.push(driver.uut().0.read_outputs());
        driver.tick().map_err(driver_err)?;
    }
    Ok(outputs)
}

/// Checks that the ports of the generated module are exactly the clock, the inputs and the
/// outputs the co-simulation drives and compares, with the same widths.
pub fn check_ports(
    module: &str,
    verilog_ports: &[Port],
    inputs: &[PortSpec],
    outputs: &[PortSpec],
) -> Result<(), ExportError> {
    let clock = PortSpec {
        name: CLOCK_PORT.to_string(),
        width: 1,
    };
    let mut expected: Vec<(String, verilog::Direction, usize)> = std::iter::once(&clock)
        .chain(inputs)
        .map(|p| (p.name.to_string(), verilog::Direction::Input, p.width))
        .chain(
            outputs
                .iter()
                .map(|p| (p.name.to_string(), verilog::Direction::Output, p.width)),
        )
        .collect();
    let mut actual: Vec<(String, verilog::Direction, usize)> = verilog_ports
        .iter()
        .map(|p| (p.name.clone(), p.direction, p.width))
        .collect();
    expected.sort();
    actual.sort();
    if expected == actual {
        return Ok(());
    }
    let show = |v: &[(String, verilog::Direction, usize)]| {
        v.iter()
            .map(|(n, d, w)| format!("{d:?} {n}[{w}]"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(ExportError::PortMismatch {
        unit: module.to_string(),
        detail: format!(
            "Verilog has {}; the co-simulation drives {}",
            show(&actual),
            show(&expected)
        ),
    })
}

/// The Icarus test bench: reads one `$readmemh` file per input, applies a row per cycle, writes
/// the outputs of each cycle as hex to `outputs.txt`.
pub fn testbench(module: &str, inputs: &[PortSpec], outputs: &[PortSpec], cycles: usize) -> String {
    let range = |w: usize| {
        if w == 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };
    let mut tb = String::new();
    let _ = writeln!(tb, "`timescale 1ns/1ps\nmodule pws_cosim_tb;");
    let _ = writeln!(
        tb,
        "  reg {CLOCK_PORT} = 1'b0;\n  integer cycle;\n  integer fd;"
    );
    for p in inputs {
        let _ = writeln!(tb, "  reg {}in_{};", range(p.width), p.name);
        let _ = writeln!(
            tb,
            "  reg {}stim_{} [0:{}];",
            range(p.width),
            p.name,
            cycles.max(1) - 1
        );
    }
    for p in outputs {
        let _ = writeln!(tb, "  wire {}out_{};", range(p.width), p.name);
    }
    let connections: Vec<String> = std::iter::once(format!(".{CLOCK_PORT}({CLOCK_PORT})"))
        .chain(inputs.iter().map(|p| format!(".{0}(in_{0})", p.name)))
        .chain(outputs.iter().map(|p| format!(".{0}(out_{0})", p.name)))
        .collect();
    let _ = writeln!(
        tb,
        "  {module} dut(\n    {}\n  );",
        connections.join(",\n    ")
    );
    let _ = writeln!(tb, "  initial begin");
    for p in inputs {
        let _ = writeln!(tb, "    $readmemh(\"stim_{0}.hex\", stim_{0});", p.name);
    }
    let _ = writeln!(tb, "    fd = $fopen(\"outputs.txt\", \"w\");");
    let _ = writeln!(
        tb,
        "    for (cycle = 0; cycle < {cycles}; cycle = cycle + 1) begin"
    );
    for p in inputs {
        let _ = writeln!(tb, "      in_{0} = stim_{0}[cycle];", p.name);
    }
    let formats = vec!["%h"; outputs.len()].join(" ");
    let values: Vec<String> = outputs.iter().map(|p| format!("out_{}", p.name)).collect();
    let _ = writeln!(
        tb,
        "      #1 $fdisplay(fd, \"{formats}\", {});",
        values.join(", ")
    );
    let _ = writeln!(
        tb,
        "      #4 {CLOCK_PORT} = 1'b1;\n      #5 {CLOCK_PORT} = 1'b0;\n    end"
    );
    let _ = writeln!(tb, "    $fclose(fd);\n    $finish;\n  end\nendmodule");
    tb
}

/// Runs `stimulus` through the Verilog of `module` (file `verilog_file`) in Icarus, in `dir`,
/// and returns the output rows as the text Icarus printed (hex, possibly with `x`/`z`).
pub fn simulate_icarus(
    verilog_file: &Path,
    module: &str,
    inputs: &[PortSpec],
    outputs: &[PortSpec],
    stimulus: &Stimulus,
    dir: &Path,
) -> Result<Vec<Vec<String>>, ExportError> {
    for (i, p) in inputs.iter().enumerate() {
        let hex: String = stimulus
            .rows
            .iter()
            .map(|r| format!("{:x}\n", r[i]))
            .collect();
        let path = dir.join(format!("stim_{}.hex", p.name));
        std::fs::write(&path, hex).map_err(|e| ExportError::io(&path, e))?;
    }
    let tb_path = dir.join("pws_cosim_tb.v");
    let tb = testbench(module, inputs, outputs, stimulus.rows.len());
    std::fs::write(&tb_path, tb).map_err(|e| ExportError::io(&tb_path, e))?;
    let vvp = dir.join("pws_cosim_tb.vvp");
    tools::iverilog(&[verilog_file, &tb_path], "pws_cosim_tb", &vvp)?;
    tools::run(tools::Tool::Vvp, &["-n", "pws_cosim_tb.vvp"], dir, module)?;
    let out_path = dir.join("outputs.txt");
    let text = std::fs::read_to_string(&out_path).map_err(|e| ExportError::io(&out_path, e))?;
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    if rows.len() != stimulus.rows.len() || rows.iter().any(|r| r.len() != outputs.len()) {
        return Err(ExportError::Parse {
            what: format!(
                "{} rows of {} outputs from the Icarus run of {module}",
                stimulus.rows.len(),
                outputs.len()
            ),
            text: text.lines().take(5).collect::<Vec<_>>().join("\n"),
        });
    }
    Ok(rows)
}

/// Compares the two sides; the first difference (in cycle order, then port order) is the error.
pub fn compare(
    module: &str,
    seed: u64,
    outputs: &[PortSpec],
    rust: &[Vec<u64>],
    icarus: &[Vec<String>],
) -> Result<(), ExportError> {
    for (cycle, (r_row, v_row)) in rust.iter().zip(icarus).enumerate() {
        for ((port, &r), v) in outputs.iter().zip(r_row).zip(v_row) {
            if u64::from_str_radix(v, 16).ok() != Some(r) {
                return Err(ExportError::Mismatch {
                    unit: module.to_string(),
                    seed,
                    cycle,
                    port: port.name.clone(),
                    rust: r,
                    verilog: format!("'h{v}"),
                });
            }
        }
    }
    Ok(())
}

/// Co-simulates `U` for `cycles` cycles of the stimulus seeded with `seed`, working in `dir`
/// (the generated Verilog, test bench, stimulus and Icarus output stay there for inspection).
pub fn cosimulate<U: Design + CoSimPorts>(
    seed: u64,
    cycles: usize,
    dir: &Path,
) -> Result<CoSimReport, ExportError> {
    cosimulate_unit(U::build()?, seed, cycles, dir)
}

/// [`cosimulate`] on a unit already built (for a configuration other than the default).
pub fn cosimulate_unit<U: Design + CoSimPorts>(
    mut uut: U,
    seed: u64,
    cycles: usize,
    dir: &Path,
) -> Result<CoSimReport, ExportError> {
    if cycles == 0 {
        return Err(ExportError::BadArgument(
            "a co-simulation needs at least one cycle".into(),
        ));
    }
    let text = verilog::generate(&mut uut, U::MODULE)?;
    let file = verilog::write(dir, U::MODULE, &text)?;
    let (inputs, outputs) = (uut.input_ports(), uut.output_ports());
    if let Some(wide) = inputs.iter().chain(&outputs).find(|p| p.width > 64) {
        return Err(ExportError::BadArgument(format!(
            "port {} of {} is {} bits wide; co-simulated ports are at most 64 bits",
            wide.name,
            U::MODULE,
            wide.width
        )));
    }
    check_ports(
        U::MODULE,
        &verilog::ports(&text, U::MODULE)?,
        &inputs,
        &outputs,
    )?;
    let stimulus = Stimulus::random(&uut, seed, cycles);
    let rust = simulate_rust(uut, &stimulus)?;
    let icarus = simulate_icarus(&file, U::MODULE, &inputs, &outputs, &stimulus, dir)?;
    compare(U::MODULE, seed, &outputs, &rust, &icarus)?;
    Ok(CoSimReport {
        unit: U::MODULE.to_string(),
        seed,
        cycles,
        inputs,
        outputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, width: usize) -> PortSpec {
        PortSpec {
            name: name.to_string(),
            width,
        }
    }

    #[test]
    fn splitmix_is_reproducible_and_respects_widths() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        let xs: Vec<u64> = (0..8).map(|_| a.bits(5)).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.bits(5)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|&x| x < 32));
        assert!(xs.iter().any(|&x| x != xs[0]));
        assert_eq!(mask(64), u64::MAX);
        assert_eq!(mask(1), 1);
    }

    #[test]
    fn the_first_difference_is_reported_with_cycle_port_and_seed() {
        let outs = [spec("a", 8), spec("b", 8)];
        let rust = vec![vec![1, 2], vec![3, 4], vec![5, 6]];
        let same: Vec<Vec<String>> = rust
            .iter()
            .map(|r| r.iter().map(|v| format!("{v:02x}")).collect())
            .collect();
        compare("m", 9, &outs, &rust, &same).unwrap();
        let mut diff = same.clone();
        diff[1][1] = "0x".into();
        diff[2][0] = "07".into();
        match compare("m", 9, &outs, &rust, &diff) {
            Err(ExportError::Mismatch {
                seed: 9,
                cycle: 1,
                port,
                rust: 4,
                verilog,
                ..
            }) => {
                assert_eq!((port.as_str(), verilog.as_str()), ("b", "'h0x"));
            }
            other => panic!("expected a mismatch at cycle 1, got {other:?}"),
        }
    }

    #[test]
    fn port_check_names_what_differs() {
        let port = |n: &str, d, w| Port {
            name: n.into(),
            direction: d,
            width: w,
        };
        let verilog = [
            port("clock", verilog::Direction::Input, 1),
            port("a", verilog::Direction::Input, 4),
            port("y", verilog::Direction::Output, 32),
        ];
        let ins = [spec("a", 4)];
        check_ports("m", &verilog, &ins, &[spec("y", 32)]).unwrap();
        let err = check_ports("m", &verilog, &ins, &[spec("y", 16)]);
        assert!(matches!(err, Err(ExportError::PortMismatch { .. })));
    }

    #[test]
    fn testbench_drives_every_input_and_prints_every_output() {
        let ins = [spec("go", 1), spec("d", 32)];
        let tb = testbench("pws_x", &ins, &[spec("q", 8)], 100);
        assert!(tb.contains("reg [31:0] stim_d [0:99];"));
        assert!(tb.contains("$readmemh(\"stim_go.hex\", stim_go);"));
        assert!(tb.contains("pws_x dut("));
        assert!(tb.contains(".d(in_d)"));
        assert!(tb.contains("#1 $fdisplay(fd, \"%h\", out_q);"));
    }
}
