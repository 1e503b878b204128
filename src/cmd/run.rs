//! `pws run LAUNCH.toml`: runs a launch on the compute-unit RTL cycle by cycle (pws_sim::cu)
//! and prints the cycles, the final buffers, the wavefronts' residency, the worst time of every
//! block and the statistics (docs/sim.md). In `pws` mode the kernel goes through the host's
//! split/merge pass first when it has `; pws: split` markers (or with `--split-all`), and in
//! `dws` mode with every divergent branch that can split, exactly as `pws wcet` prepares it, so
//! block PCs match the bound's; `nosplit` runs it as assembled. A launch sequence runs launch
//! by launch, each on the memory the last left (pws_isa::sequence).

use std::fmt::Write;
use std::path::PathBuf;

use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::launch::LaunchKernel;
use pws_host::timing::Mode;
use pws_isa::elem::listing;
use pws_isa::manifest::Manifest;
use pws_isa::sequence::LaunchSequence;
use pws_sim::cu::{RunError, RunOptions, RunReport};
use pws_verify::golden::GoldenError;
use pws_verify::sizing;

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
    /// The compute unit: a preset (cu, small, figure5, gcn3) or a TOML
    /// file of hardware parameters, as `pws wcet` takes it (default: cu).
    #[arg(long)]
    config: Option<String>,
    /// Stream a VCD waveform of the whole compute unit to this file while simulating.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// The simulator: rust-hdl's model, the exported Verilog in Verilator, or both in lockstep
    /// (co-simulation: every output compared every cycle).
    #[arg(long, value_enum, default_value = "rust-hdl")]
    engine: super::EngineArg,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Stop with an error after this many cycles (default: sized for the launch from a
    /// golden-model run, see docs/sim.md; 10,000,000 when that run fails).
    #[arg(long)]
    max_cycles: Option<u64>,
    /// Stop a wavefront that has retired this many instructions, a runaway (default: sized
    /// from the golden-model run).
    #[arg(long)]
    max_instructions: Option<u64>,
    /// Stop a context that has looped this many cycles without a memory access, split, merge
    /// or barrier; 0: never (default: off when the golden model runs the launch to its end,
    /// else 100000). A loop that provably repeats forever is stopped at once regardless.
    #[arg(long, value_name = "N")]
    no_progress: Option<u64>,
    #[command(flatten)]
    split: super::SplitArgs,
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
        hw = hw.with_spsimds(super::spsimds(s, 0..=pws_hdl::config::MAX_SPSIMDS)?);
    }
    let mode = match args.mode {
        ModeArg::Nosplit => CuMode::NoSplit,
        ModeArg::Dws => CuMode::Dws,
        ModeArg::Pws => CuMode::Pws,
    };
    let sequence = LaunchSequence::load(&args.manifest)?;
    let host_mode = match mode {
        CuMode::NoSplit => Mode::NoSplit,
        CuMode::Dws => Mode::Dws,
        CuMode::Pws => Mode::Pws,
    };
    // DWS splits at every divergent branch: `LaunchKernel` runs the pass with `split_all` itself.
    let kernels = super::prepare_kernels(&sequence, host_mode, args.split.policy())?;
    // One compute unit for every launch: grown to the registers and code of the largest.
    let hw = kernels
        .iter()
        .fold(hw, |hw, k| super::fit_kernel(hw, &args.config, &k.program));
    let Some(manifest) = sequence.single() else {
        return run_sequence(&args, hw, mode, &sequence, &kernels);
    };
    let kernel = &kernels[0];
    let (mut report, interrupted) =
        run_launch(&args, hw, mode, manifest, kernel, args.vcd.clone())?;
    report.warnings = kernel.warnings.clone();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report, kernel, &manifest.kernel_label()));
        if let Some(path) = &args.vcd {
            println!("\nwaveform: {} (gtkwave {0})", path.display());
        }
    }
    interrupted_at(interrupted)
}

/// The error a run stopped by Ctrl-C ends with, after its report.
fn interrupted_at(cycle: Option<u64>) -> CmdResult {
    match cycle {
        Some(cycle) => Err(format!(
            "interrupted (Ctrl-C) at cycle {cycle}: the report above covers the cycles simulated so far"
        )
        .into()),
        None => Ok(()),
    }
}

/// Runs a launch sequence launch by launch, each on the memory the last left, and prints a
/// line per launch, the last launch's report and the total cycles. With `--vcd F`, launch K
/// of pass P streams to `F` with `-P-K` before its extension.
fn run_sequence(
    args: &Args,
    hw: HwConfig,
    mode: CuMode,
    sequence: &LaunchSequence,
    kernels: &[LaunchKernel],
) -> CmdResult {
    let mut vcds = Vec::new();
    let ran = sequence.run_until(
        |step, manifest| {
            let vcd = args.vcd.as_ref().map(|path| {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                let name = match path.extension() {
                    Some(ext) => format!(
                        "{stem}-{}-{}.{}",
                        step.pass,
                        step.launch,
                        ext.to_string_lossy()
                    ),
                    None => format!("{stem}-{}-{}", step.pass, step.launch),
                };
                path.with_file_name(name)
            });
            vcds.extend(vcd.clone());
            let kernel = &kernels[step.launch];
            let (report, interrupted) = run_launch(args, hw, mode, manifest, kernel, vcd)
                .map_err(|e| format!("{}{e}", sequence.at(step)))?;
            let contents = sequence.contents(|name| report.buffers.get(name).map(<[u32]>::to_vec));
            Ok::<_, Box<dyn std::error::Error>>(((report, interrupted), contents))
        },
        // Ctrl-C ends the sequence with the interrupted launch, whose report is the last one
        // printed, as it ends a single launch.
        |(_, interrupted)| interrupted.is_some(),
    )?;
    let stopped = ran.last().1;
    let steps: Vec<_> = ran
        .steps
        .into_iter()
        .map(|(step, (report, _))| (step, report))
        .collect();
    let total: u64 = steps.iter().map(|(_, r)| r.cycles).sum();
    if args.json {
        let out = serde_json::json!({ "cycles": total, "launches": super::steps_json(&steps) });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for (step, r) in &steps {
            println!(
                "pass {} launch {}: {}: {} cycles, {} wavefront(s), {} instructions retired",
                step.pass,
                step.launch,
                sequence.launches[step.launch].kernel_label(),
                r.cycles,
                r.wavefronts.len(),
                r.retired
            );
        }
        let (last, report) = steps.last().expect("a sequence runs at least one launch");
        println!(
            "\n{} launches in {} pass(es): {total} cycles\n\nthe last launch's report:",
            steps.len(),
            last.pass + 1
        );
        print!(
            "{}",
            text(
                report,
                &kernels[last.launch],
                &sequence.launches[last.launch].kernel_label()
            )
        );
        if let Some(first) = vcds.first() {
            println!(
                "\nwaveforms: {} files, {} to {} (gtkwave FILE)",
                vcds.len(),
                first.display(),
                vcds.last().unwrap_or(first).display()
            );
        }
    }
    interrupted_at(stopped)
}

/// One launch on the RTL with the limits the user did not set sized from a golden-model run of
/// the same program; returns the report and the cycle Ctrl-C stopped it at, if it did.
fn run_launch(
    args: &Args,
    hw: HwConfig,
    mode: CuMode,
    manifest: &Manifest,
    kernel: &LaunchKernel,
    vcd: Option<PathBuf>,
) -> Result<(RunReport, Option<u64>), Box<dyn std::error::Error>> {
    // Limits the user did not set are sized from a golden-model run of the same program.
    let sized = (args.max_cycles.is_none()
        || args.max_instructions.is_none()
        || args.no_progress.is_none())
    .then(|| sizing::size(&kernel.program, manifest, &hw, mode));
    // A launch the golden model refuses before running is refused by the RTL run too, with
    // the same message; only what happened while it ran is news.
    let ran = |e: &&GoldenError| {
        !matches!(
            e,
            GoldenError::Assemble(_) | GoldenError::Budget(_) | GoldenError::Config(_)
        )
    };
    if let Some(e) = sized
        .as_ref()
        .and_then(|s| s.unsized_because.as_ref())
        .filter(ran)
    {
        let why = match e {
            GoldenError::InstructionLimit {
                limit,
                workgroup,
                wave,
                ..
            } => format!("workgroup {workgroup} wave {wave} runs past {limit} instructions"),
            e => e.to_string().lines().next().unwrap_or_default().to_string(),
        };
        eprintln!("note: limits not sized for this launch: on the golden model {why}");
    }
    let limit = |given: Option<u64>, pick: fn(&sizing::RunLimits) -> u64| {
        given.unwrap_or_else(|| sized.as_ref().map_or(sizing::UNSIZED_LIMIT, pick))
    };
    let opts = RunOptions {
        hw,
        mode,
        compaction: match args.compaction {
            CompactionArg::None => SwizzleMode::None,
            CompactionArg::Bcc => SwizzleMode::Bcc,
            CompactionArg::Scc => SwizzleMode::Scc,
        },
        max_cycles: limit(args.max_cycles, |s| s.max_cycles),
        vcd,
        progress: true,
        watchdog: args.watchdog,
        max_instructions: limit(args.max_instructions, |s| s.max_instructions),
        no_progress: match args.no_progress {
            Some(n) => Some(n),
            None => sized.as_ref().and_then(|s| s.no_progress),
        },
        stop: Some(super::catch_interrupt()),
        passes: pws_sim::DeltaPasses::Activity,
    };
    let engine = super::engine_factory(args.engine.into());
    match pws_sim::cu::run_on(&kernel.program, manifest, &opts, &*engine) {
        Ok(report) => Ok((report, None)),
        Err(RunError::Interrupted { cycle, report }) => Ok((*report, Some(cycle))),
        Err(e) => Err(e.into()),
    }
}

/// Lines of values per buffer in the human report.
const MAX_LINES: usize = 8;

/// The human-readable report of the kernel the manifest names `label` (its `.cl` source when
/// it has one; the report's `kernel` is the assembly that ran, named below the header then).
fn text(r: &RunReport, kernel: &LaunchKernel, label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel {label} ({}, S = {}, compaction {}, {}): {} cycles, {} wavefront(s), {} instructions retired",
        r.mode,
        r.s,
        r.compaction,
        r.engine.name(),
        r.cycles,
        r.wavefronts.len(),
        r.retired
    );
    if !r.kernel.ends_with(label) {
        let _ = writeln!(out, "assembly {}", r.kernel);
    }
    out.push_str("\nbuffers\n");
    let width = r.buffers.0.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for b in &r.buffers.0 {
        let values = b.ty.values(&b.words, b.len);
        out.push_str(&listing(&b.name, width, b.ty, &values, MAX_LINES));
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
