//! `pws run LAUNCH.toml`: runs a launch on the compute-unit RTL cycle by cycle (pws_sim::cu)
//! and prints the cycles, the final buffers, the wavefronts' residency, the worst time of every
//! block and the statistics (docs/sim.md). In `pws` mode the kernel goes through the host's
//! split/merge pass first when it has `; pws: split` markers (or with `--split-all`), and in
//! `dws` mode with every divergent branch that can split, exactly as `pws wcet` prepares it, so
//! block PCs match the bound's; `nosplit` runs it as assembled.

use std::fmt::Write;
use std::path::PathBuf;

use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::launch::{KernelSource, LaunchKernel};
use pws_host::timing::Mode;
use pws_isa::manifest::Manifest;
use pws_sim::cu::{RunOptions, RunReport};

use super::CmdResult;

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    /// split and merge are no-ops: one context serialises both paths.
    Nosplit,
    /// a split at every divergent branch; the split wavefronts share their SIMD.
    Dws,
    /// split and merge where the kernel marks them; split wavefronts run on SpSIMDs.
    Pws,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum CompactionArg {
    None,
    Bcc,
    Scc,
}

#[derive(clap::Args)]
pub struct Args {
    /// Launch manifest (TOML; see docs/manifest.md).
    manifest: PathBuf,
    #[arg(long, value_enum, default_value = "pws")]
    mode: ModeArg,
    /// SpSIMDs per SIMD (overrides the configuration's).
    #[arg(long = "S")]
    s: Option<usize>,
    /// Intra-wavefront compaction of the vector ALUs.
    #[arg(long, value_enum, default_value = "none")]
    compaction: CompactionArg,
    /// The compute unit: a preset (cu, small, figure5, gcn3 with at most 16 slots) or a TOML
    /// file of hardware parameters, as `pws wcet` takes it (default: cu).
    #[arg(long)]
    config: Option<String>,
    /// Stream a VCD waveform of the whole compute unit to this file while simulating.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Stop with an error after this many cycles.
    #[arg(long, default_value_t = 10_000_000)]
    max_cycles: u64,
    /// In pws mode, split at every divergent branch that can split safely, not only the
    /// marked ones (DWS always does).
    #[arg(long)]
    split_all: bool,
    /// Stop as deadlocked after this many cycles without any instruction retiring (default:
    /// far above the longest wait the configuration allows; see docs/sim.md).
    #[arg(long)]
    watchdog: Option<u64>,
}

pub fn run(args: Args) -> CmdResult {
    let mut hw = match &args.config {
        Some(spec) => super::wcet::hw_config(Some(spec))?,
        None => HwConfig::cu(),
    };
    if let Some(s) = args.s {
        hw = hw.with_spsimds(s);
    }
    let mode = match args.mode {
        ModeArg::Nosplit => CuMode::NoSplit,
        ModeArg::Dws => CuMode::Dws,
        ModeArg::Pws => CuMode::Pws,
    };
    let manifest = Manifest::load(&args.manifest)?;
    let host_mode = match mode {
        CuMode::NoSplit => Mode::NoSplit,
        CuMode::Dws => Mode::Dws,
        CuMode::Pws => Mode::Pws,
    };
    // DWS splits at every divergent branch: `LaunchKernel` runs the pass with `split_all` itself.
    let kernel = LaunchKernel::new(&KernelSource::load(&manifest)?, host_mode, args.split_all)?;
    for w in &kernel.warnings {
        eprintln!("warning: {w}");
    }
    let opts = RunOptions {
        hw,
        mode,
        compaction: match args.compaction {
            CompactionArg::None => SwizzleMode::None,
            CompactionArg::Bcc => SwizzleMode::Bcc,
            CompactionArg::Scc => SwizzleMode::Scc,
        },
        max_cycles: args.max_cycles,
        vcd: args.vcd.clone(),
        progress: true,
        watchdog: args.watchdog,
    };
    let mut report = pws_sim::cu::run(&kernel.program, &manifest, &opts)?;
    report.warnings = kernel.warnings.clone();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report, &kernel));
        if let Some(path) = &args.vcd {
            println!("\nwaveform: {} (gtkwave {0})", path.display());
        }
    }
    Ok(())
}

/// Values per line, and lines per buffer, of the human report.
const VALUES_PER_LINE: usize = 16;
const MAX_LINES: usize = 8;

/// The human-readable report.
fn text(r: &RunReport, kernel: &LaunchKernel) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel {} ({}, S = {}, compaction {}): {} cycles, {} wavefront(s), {} instructions retired",
        r.kernel,
        r.mode,
        r.s,
        r.compaction,
        r.cycles,
        r.wavefronts.len(),
        r.retired
    );
    out.push_str("\nbuffers\n");
    let width = r.buffers.0.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for b in &r.buffers.0 {
        let signed = b.ty == pws_isa::manifest::ElemType::I32;
        let _ = write!(out, "  {:<width$} {}[{}]:", b.name, b.ty, b.words.len());
        let shown = b.words.len().min(VALUES_PER_LINE * MAX_LINES);
        for (i, &w) in b.words[..shown].iter().enumerate() {
            if i > 0 && i % VALUES_PER_LINE == 0 {
                let _ = write!(out, "\n  {:width$}       ", "");
            }
            if signed {
                let _ = write!(out, " {}", w as i32);
            } else {
                let _ = write!(out, " {w}");
            }
        }
        if shown < b.words.len() {
            let _ = write!(out, " ... ({} more; --json has all)", b.words.len() - shown);
        }
        out.push('\n');
    }
    out.push_str("\nwavefronts\n  wg  wave  slot   start     end\n");
    for w in &r.wavefronts {
        let _ = writeln!(
            out,
            "  {:>2}  {:>4}  {:>4}  {:>6}  {:>6}",
            w.workgroup, w.wavefront, w.slot, w.start, w.end
        );
    }
    out.push_str("\nblocks (worst time, retire to retire)\n      pc  label                 max  runs  first instruction\n");
    for b in &r.blocks {
        let located = kernel.program.instruction_at(b.pc);
        let _ = writeln!(
            out,
            "  {:#06x}  {:<18} {:>6} {:>5}  {}",
            b.pc,
            kernel.program.label_at(b.pc).unwrap_or(""),
            b.max_cycles,
            b.executions,
            located.map(|l| l.item.to_string()).unwrap_or_default()
        );
    }
    let _ = writeln!(
        out,
        "\nstatistics\n  VALU passes {}  skipped {}  lane utilisation {:.3}\n  splits {}  fallbacks {}  merges {}\n  memory requests: {} reads, {} writes\n  simulation: {:.0} cycles/s",
        r.valu_passes,
        r.passes_skipped,
        r.lane_utilisation,
        r.splits,
        r.split_fallbacks,
        r.merges,
        r.memory_reads,
        r.memory_writes,
        r.cycles_per_second
    );
    out
}
