//! One module per subcommand: argument parsing and output formatting only.

pub mod asm;
pub mod bench;
pub mod compare;
pub mod compile;
pub mod disasm;
pub mod eval;
pub mod export;
pub mod golden;
pub mod manifest;
pub mod measure;
pub mod run;
pub mod synthetic;
pub mod unit;
pub mod wcet;

/// What every subcommand returns; `main` prints the error and exits with status 1.
pub type CmdResult = Result<(), Box<dyn std::error::Error>>;

/// Set by the Ctrl-C handler of [`catch_interrupt`].
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes Ctrl-C (SIGINT) set the returned flag instead of ending the process, so a long
/// simulation can stop at its next check and print what it has; a second Ctrl-C ends the
/// process at once.
pub fn catch_interrupt() -> &'static std::sync::atomic::AtomicBool {
    #[cfg(unix)]
    {
        extern "C" fn on_sigint(_: libc::c_int) {
            INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
            // SAFETY: signal() is async-signal-safe; SIG_DFL is a valid action.
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
            }
        }
        // SAFETY: the handler only stores to an atomic and calls signal(), both
        // async-signal-safe.
        unsafe {
            libc::signal(
                libc::SIGINT,
                on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
    &INTERRUPTED
}

/// The compute unit a kernel runs on: a configuration given with `--config` as it is; without
/// one the `cu` preset (in `hw`) grown to the registers `program` names, as GCN sizes a
/// kernel's registers at dispatch, and to an instruction memory that holds it.
pub fn fit_kernel(
    hw: pws_hdl::config::HwConfig,
    config: &Option<String>,
    program: &pws_isa::Program,
) -> pws_hdl::config::HwConfig {
    if config.is_some() {
        return hw;
    }
    let (sgprs, vgprs) = pws_isa::abi::registers_used(program);
    hw.with_registers_for(sgprs as usize, vgprs as usize)
        .with_imem_for(program.words().len())
}

/// The program of each launch of `sequence` in `mode`, through the split/merge pass as
/// `pws wcet` prepares it; prints each warning once (a sequence's launches of one source
/// share them), the manifests' buffer types first.
pub fn prepare_kernels(
    sequence: &pws_isa::sequence::LaunchSequence,
    mode: pws_host::timing::Mode,
    split: pws_host::compile::SplitPolicy,
) -> Result<Vec<pws_host::launch::LaunchKernel>, Box<dyn std::error::Error>> {
    use pws_host::launch::{KernelSource, LaunchKernel};
    let kernels = sequence
        .launches
        .iter()
        .map(|m| Ok(LaunchKernel::new(&KernelSource::load(m)?, mode, split)?))
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let mut printed: Vec<String> = Vec::new();
    let buffers = sequence
        .launches
        .iter()
        .flat_map(|m| m.buffer_type_warnings());
    for w in buffers.chain(kernels.iter().flat_map(|k| k.warnings.iter().cloned())) {
        if !printed.contains(&w) {
            eprintln!("warning: {w}");
            printed.push(w);
        }
    }
    Ok(kernels)
}

/// A sequence's runs as `--json` lists them: `{pass, launch, report}` per launch, in order.
pub fn steps_json<R: serde::Serialize>(
    steps: &[(pws_isa::sequence::Step, R)],
) -> Vec<serde_json::Value> {
    steps
        .iter()
        .map(|(step, report)| {
            serde_json::json!({ "pass": step.pass, "launch": step.launch, "report": report })
        })
        .collect()
}

/// Which divergent branches PWS splits besides the marked ones: the flags every command that
/// prepares a kernel shares.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct SplitArgs {
    /// In pws mode, split at every divergent branch that can split safely, not only the
    /// marked ones (DWS always does)
    #[arg(long, conflicts_with = "split_auto")]
    pub split_all: bool,
    /// In pws mode, also split the two-sided branches whose shorter path outlasts the split and
    /// merge (the cost model in docs/evaluation.md, "Choosing the split points"); the marked
    /// ones split regardless
    #[arg(long)]
    pub split_auto: bool,
}

impl SplitArgs {
    pub fn policy(self) -> pws_host::compile::SplitPolicy {
        use pws_host::compile::SplitPolicy;
        match (self.split_all, self.split_auto) {
            (true, _) => SplitPolicy::All,
            (false, true) => SplitPolicy::Auto,
            (false, false) => SplitPolicy::Marked,
        }
    }
}

/// How a command that reads one kernel takes an OpenCL C source (`.cl`): compiled by clang-14
/// as a manifest's `kernel = "k.cl"` is (`pws_isa::opencl`), with the manifest's `entry` and
/// `cflags` as flags.
#[derive(clap::Args, Clone, Default)]
pub struct ClArgs {
    /// For an OpenCL C kernel (.cl): the kernel to take from a source that defines several.
    #[arg(long)]
    pub entry: Option<String>,
    /// For an OpenCL C kernel (.cl): an extra clang flag after the defaults (`-O2` among them),
    /// e.g. `--cflag=-DN=8`. Repeatable.
    #[arg(long = "cflag", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
}

impl ClArgs {
    /// `--entry` or `--cflag` was given.
    pub fn given(&self) -> bool {
        self.entry.is_some() || !self.cflags.is_empty()
    }

    /// The assembly `path` stands for: itself, or for a `.cl` source the `.s` clang-14 makes
    /// of it (in the pws cache, where errors and reports name it by line). `command` words
    /// the refusal of a launch manifest.
    pub fn assembly(
        &self,
        path: &std::path::Path,
        command: &str,
    ) -> Result<std::path::PathBuf, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("cl") => {
                let opts = pws_isa::opencl::ClOptions {
                    flags: self.cflags.clone(),
                    entry: self.entry.clone(),
                };
                pws_isa::opencl::compile(path, &opts).map_err(|e| e.to_string())
            }
            _ if self.given() => Err(format!(
                "{}: --entry and --cflag apply to an OpenCL C kernel (.cl)",
                path.display()
            )),
            Some("toml") => Err(format!(
                "{}: is a launch manifest; `pws {command}` takes a kernel: the manifest's \
                 `kernel` (a .s, or a .cl with its `entry` and `cflags` as --entry and --cflag)",
                path.display()
            )),
            _ => Ok(path.to_path_buf()),
        }
    }
}

/// Checks a `--S` value against the range the command accepts; every command words it alike.
pub fn spsimds(value: usize, range: std::ops::RangeInclusive<usize>) -> Result<usize, String> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "--S {value} is out of range {}..={} (SpSIMDs per SIMD)",
            range.start(),
            range.end()
        ))
    }
}

/// A VCD a command streams while it simulates: a writer into a temporary file that the
/// command renames over `path` once the trace is complete (`pws_isa::output`). `path` may not
/// be one of `inputs`.
pub fn vcd_output(
    path: &std::path::Path,
    inputs: &[&std::path::Path],
) -> Result<
    (pws_isa::output::Staged, std::io::BufWriter<std::fs::File>),
    pws_isa::output::OutputError,
> {
    let mut staged = pws_isa::output::Staged::create(path, inputs)?;
    let file = staged.file().try_clone().map_err(|e| staged.io_error(e))?;
    Ok((staged, std::io::BufWriter::new(file)))
}

/// The simulator of the compute unit, as `--engine` names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// rust-hdl's model, in this process.
    #[default]
    RustHdl,
    /// The exported Verilog compiled by Verilator (built once per configuration, then cached).
    Verilator,
    /// Both, every output compared after every settle and clock edge (co-simulation).
    Lockstep,
}

impl From<EngineArg> for pws_sim::cu::ports::Engine {
    fn from(e: EngineArg) -> Self {
        use pws_sim::cu::ports::Engine;
        match e {
            EngineArg::RustHdl => Engine::RustHdl,
            EngineArg::Verilator => Engine::Verilator,
            EngineArg::Lockstep => Engine::Lockstep,
        }
    }
}

/// The factory of `engine`'s compute units. A Verilator model that is not in the cache yet is
/// built first, which takes minutes: stderr says so, and where.
pub fn engine_factory(
    engine: pws_sim::cu::ports::Engine,
) -> Box<pws_sim::cu::EngineFactory<'static>> {
    use pws_export::verilated_cu::VerilatedCu;
    use pws_sim::cu::ports::{Engine, Lockstep};
    fn building(dir: &std::path::Path) {
        eprintln!(
            "building the Verilator model of this compute unit in {} (once per configuration; \
             minutes)",
            dir.display()
        );
    }
    let rust_hdl = pws_sim::cu::rust_hdl_engine(pws_sim::DeltaPasses::Activity);
    match engine {
        Engine::RustHdl => Box::new(rust_hdl),
        Engine::Verilator => {
            Box::new(|hw, vcd| Ok(Box::new(VerilatedCu::new(hw, vcd, &building)?)))
        }
        Engine::Lockstep => Box::new(move |hw, vcd| {
            let verilated = Box::new(VerilatedCu::new(hw, None, &building)?);
            Ok(Box::new(Lockstep::new(rust_hdl(hw, vcd)?, verilated)?))
        }),
    }
}
