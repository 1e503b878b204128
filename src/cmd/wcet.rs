//! `pws wcet`: WCET bounds of a kernel for no-split, DWS and PWS (pws_host; docs/wcet.md). A
//! `.dot` CFG or a `.s` kernel gets the paper's kernel-level lemmas over a GPU configuration; a
//! launch manifest gets the bound of the whole launch on the compute unit `pws run` simulates.

use std::path::{Path, PathBuf};

use pws_hdl::config::{HwConfig, MAX_SPSIMDS};
use pws_host::analysis::{analyse, Params};
use pws_host::compile::SplitPolicy;
use pws_host::ipet::{IpetSystem, Solver};
use pws_host::kernel::{DwsBound, GpuConfig, Launch};
use pws_host::launch::{
    analyse_launch_with, check_blocks, tightness_table, BlockExcess, KernelSource, LaunchOptions,
    LaunchReport, Tightness,
};
use pws_host::select::all_branches;
use pws_host::timing::{split_datapath_cycles, CuTiming, Mode, TimingTable};
use pws_host::{report, BsbCfg};
use pws_isa::input::{read_text, Kind};
use pws_isa::output;
use pws_isa::sequence::LaunchSequence;
use pws_verify::bound::machine;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// A DOT CFG (.dot), a GCN3 kernel (.s), an OpenCL C kernel (.cl, compiled by clang-14
    /// first) or a launch manifest (.toml).
    input: PathBuf,
    #[command(flatten)]
    cl: super::ClArgs,
    /// For a .dot or .s input: GPU configuration (TOML with N_CU, N_SIMD, N_WFC, N_WIWF, S,
    /// e_s, e_m, d; default: the values of kernels/gpu.toml). For a launch: the compute unit, a
    /// preset name (gcn3, small, figure5, cu) or a TOML file of hardware parameters (default
    /// cu).
    #[arg(long)]
    config: Option<String>,
    /// SpSIMDs per SIMD (overrides the configuration).
    #[arg(long = "S")]
    s: Option<u64>,
    /// For a launch: the modes to bound (default: all three).
    #[arg(long, value_parser = ["nosplit", "dws", "pws"])]
    mode: Option<String>,
    /// Initialization delay d in cycles.
    #[arg(long)]
    d: Option<u64>,
    /// Split cost e_s in cycles (default: the configuration's; for a kernel without --config,
    /// the timing contract's cost of copying the SGPRs it holds).
    #[arg(long)]
    es: Option<u64>,
    /// Merge cost e_m in cycles.
    #[arg(long)]
    em: Option<u64>,
    /// Dispatch steps DS (instead of computing it from the launch).
    #[arg(long)]
    ds: Option<u64>,
    /// Number of workgroups G (default 1).
    #[arg(long)]
    groups: Option<u64>,
    /// Work-items per workgroup N_WIWG (default N_WIWF).
    #[arg(long)]
    wg_size: Option<u64>,
    #[command(flatten)]
    split: super::SplitArgs,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write the CFG for Graphviz: pruned edges dashed, the worst-case path in red.
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Write the PWS IPET problem (the pruned CFG) in CPLEX LP format.
    #[arg(long)]
    write_lp: Option<PathBuf>,
    /// How IPET is solved: `structural` (linear time, every answer checked exactly against
    /// the ILP's rows and its LP dual) or `ilp` (also solve the ILP with microlp and check that
    /// it agrees; any trouble there leaves the certified bound and a note).
    #[arg(long, value_parser = ["structural", "ilp"], default_value = "structural")]
    ipet: String,
    /// The DWS bound: `lemma-5.7` ([P]'s (S + 1)·E_WF; the default for a .dot or .s input) or
    /// `serialized` (the split wavefronts share one SIMD, so their work is charged once; the
    /// default for a launch). docs/wcet.md derives both.
    #[arg(long, value_parser = ["lemma-5.7", "serialized"])]
    dws_bound: Option<String>,
    /// For a launch: `pws run --json` reports of this launch to compare with the bound (the
    /// tightness bound / observed, and every measured block against its WCET); a run above its
    /// bound is an error. Repeatable.
    #[arg(long)]
    observed: Vec<PathBuf>,
}

/// What `--observed` reads from a `pws run --json` report.
#[derive(serde::Deserialize)]
struct Observed {
    mode: String,
    s: Option<u64>,
    compaction: Option<String>,
    cycles: u64,
    #[serde(default)]
    blocks: Vec<ObservedBlock>,
}

#[derive(serde::Deserialize)]
struct ObservedBlock {
    pc: u32,
    max_cycles: u64,
}

/// One `--observed` run beside its bound.
#[derive(serde::Serialize)]
struct Comparison {
    file: String,
    compaction: Option<String>,
    #[serde(flatten)]
    tightness: Tightness,
    ratio: f64,
    /// Measured blocks above their WCET, or without a host block at their PC.
    blocks_over: Vec<BlockExcess>,
}

pub fn run(args: Args) -> CmdResult {
    if args.input.extension().and_then(|e| e.to_str()) == Some("toml") {
        if args.cl.given() {
            return Err("--entry and --cflag apply to an OpenCL C kernel (.cl); a manifest gives them as `entry` and `cflags`".into());
        }
        return run_launch(args);
    }
    if args.mode.is_some() || !args.observed.is_empty() {
        return Err("--mode and --observed apply to a launch manifest (.toml); a .dot or .s input reports all three modes of the paper's formulas".into());
    }
    let mut gpu = match &args.config {
        Some(path) => {
            let text = read_text(Path::new(path), Kind::Config)?;
            GpuConfig::from_toml(&text, path)?
        }
        None => GpuConfig::default(),
    };
    let policy = args.split.policy();
    let launch = Launch {
        groups: args.groups.unwrap_or(1),
        wg_size: args.wg_size.unwrap_or(gpu.n_wiwf),
    };
    let path = args.cl.assembly(&args.input, "wcet")?;
    let input = pws_host::input::load(&path, policy, &launch)?;
    for w in &input.warnings {
        eprintln!("warning: {w}");
    }
    for n in &input.notes {
        eprintln!("note: {n}");
    }
    // A kernel's split cost follows from the registers it holds, unless a configuration file
    // or a flag fixes it.
    if let (None, Some(sgprs)) = (&args.config, input.sgprs) {
        gpu.e_s = split_datapath_cycles(&CuTiming::GCN3, sgprs);
        gpu.e_m = TimingTable::GCN3.e_m;
    }
    if let Some(s) = args.s {
        // The thesis's SpSIMDIDs are 6 bits: S in 0..=63.
        super::spsimds(usize::try_from(s).unwrap_or(usize::MAX), 0..=63)?;
        gpu.s = s;
    }
    gpu.d = args.d.unwrap_or(gpu.d);
    gpu.e_s = args.es.unwrap_or(gpu.e_s);
    gpu.e_m = args.em.unwrap_or(gpu.e_m);

    // Analysed in flow order (fast on large CFGs given in any order), reported in the input's.
    let (flow, old) = input.cfg.in_flow_order();
    let kernel = path.extension().is_some_and(|e| e != "dot");
    let g = BsbCfg::new(flow).map_err(|e| {
        e.in_file(&path.display().to_string()).hint(|_| match kernel {
            true => ", or analyse a launch manifest, whose arguments and workgroup size bound loops that count to them (without one, `pws wcet` knows only the workgroup and grid sizes of --groups and --wg-size)".into(),
            false => String::new(),
        })
    })?;
    let marked = if policy == SplitPolicy::All {
        all_branches(&g)
    } else {
        (0..g.len()).map(|v| g.block(v).split).collect()
    };
    let params = Params {
        ipet: solver(&args.ipet),
        dws: match &args.dws_bound {
            Some(b) => b.parse()?,
            None => DwsBound::Lemma57,
        },
        ..Params::new(gpu, launch, args.ds)
    };
    let a = analyse(&g, &marked, &params)?;

    if let Some(path) = &args.write_lp {
        let lp = IpetSystem::new(&g, &a.removed)?.to_lp(&g);
        output::write(path, lp.as_bytes(), &[&args.input])?;
    }
    if let Some(path) = &args.dot {
        output::write(path, report::dot(&g, &a).as_bytes(), &[&args.input])?;
    }
    if args.json {
        let mut r = a.report.clone();
        r.notes.extend(input.notes.iter().cloned());
        let mut rows: Vec<(usize, _)> = old.iter().copied().zip(r.blocks).collect();
        rows.sort_unstable_by_key(|(i, _)| *i);
        r.blocks = rows.into_iter().map(|(_, row)| row).collect();
        let out = std::io::stdout().lock();
        let mut out = std::io::BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, &r)?;
        use std::io::Write as _;
        writeln!(out)?;
    } else {
        print!("{}", report::text(&g, &a));
    }
    Ok(())
}

fn solver(name: &str) -> Solver {
    if name == "ilp" {
        Solver::Ilp
    } else {
        Solver::Structural
    }
}

/// The compute unit of `--config`: a preset name or a TOML file whose keys are
/// [`HwConfig`]'s fields (`preset = "NAME"` picks the base). Without it, the `cu` preset, the
/// compute unit `pws run` simulates by default.
pub(crate) fn hw_config(config: Option<&str>) -> Result<HwConfig, String> {
    let Some(spec) = config else {
        return Ok(HwConfig::cu());
    };
    if let Some(cfg) = HwConfig::preset(spec) {
        return Ok(cfg);
    }
    let text = read_text(Path::new(spec), Kind::Config).map_err(|e| {
        format!(
            "{e} (--config takes a preset, one of {}, or a TOML file)",
            pws_hdl::config::PRESETS.join(", ")
        )
    })?;
    let spec_shown = pws_isa::diag::path(Path::new(spec));
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, col) = e
            .span()
            .map_or((1, 1), |s| pws_isa::diag::line_col(&text, s.start));
        format!(
            "{spec_shown}:{line}:{col}: {}",
            pws_isa::diag::message(e.message())
        )
    })?;
    let shown = |v: &dyn std::fmt::Display| pws_isa::diag::value(&v.to_string());
    let mut cfg = match table.get("preset") {
        None => HwConfig::cu(),
        Some(toml::Value::String(p)) => HwConfig::preset(p)
            .ok_or_else(|| format!("{spec_shown}: unknown preset `{}`", shown(p)))?,
        Some(v) => {
            return Err(format!(
                "{spec_shown}: preset must be a string, found {}",
                shown(v)
            ))
        }
    };
    for (key, value) in &table {
        if key == "preset" {
            continue;
        }
        let n = value
            .as_integer()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "{spec_shown}: `{}` must be a non-negative integer",
                    shown(key)
                )
            })?;
        let field = match key.as_str() {
            "wavefront_width" => &mut cfg.wavefront_width,
            "lanes_per_simd" => &mut cfg.lanes_per_simd,
            "spsimds_per_simd" => &mut cfg.spsimds_per_simd,
            "wf_contexts_per_simd" => &mut cfg.wf_contexts_per_simd,
            "simds_per_cu" => &mut cfg.simds_per_cu,
            "sgprs_per_context" => &mut cfg.sgprs_per_context,
            "vgprs_per_simd" => &mut cfg.vgprs_per_simd,
            "srf_copy_width" => &mut cfg.srf_copy_width,
            "mem_latency" => &mut cfg.mem_latency,
            "imem_words" => &mut cfg.imem_words,
            "lds_bytes" => &mut cfg.lds_bytes,
            "vgprs_per_wavefront" => return Err(format!("{spec_shown}: `vgprs_per_wavefront` is now `vgprs_per_simd`: the registers of each SIMD's VRF, which its slots' wavefronts share (each gets its kernel's VGPRs from it at dispatch)")),
            _ => return Err(format!("{spec_shown}: unknown key `{}` (expected preset or a field of the hardware configuration: wavefront_width, lanes_per_simd, spsimds_per_simd, wf_contexts_per_simd, simds_per_cu, sgprs_per_context, vgprs_per_simd, srf_copy_width, mem_latency, imem_words, lds_bytes)", shown(key))),
        };
        *field = n;
    }
    // Every problem at once, before a command builds anything of it.
    cfg.validate().map_err(|e| format!("{spec_shown}: {e}"))?;
    Ok(cfg)
}

fn run_launch(args: Args) -> CmdResult {
    for (flag, given) in [
        ("--d", args.d.is_some()),
        ("--es", args.es.is_some()),
        ("--em", args.em.is_some()),
        ("--ds", args.ds.is_some()),
        ("--groups", args.groups.is_some()),
        ("--wg-size", args.wg_size.is_some()),
        ("--dot", args.dot.is_some()),
        ("--write-lp", args.write_lp.is_some()),
    ] {
        if given {
            return Err(format!("{flag} does not apply to a launch manifest: the launch and the compute unit's timing contract fix it (analyse the kernel's .s for the paper's formulas)").into());
        }
    }
    let mut cfg = hw_config(args.config.as_deref())?;
    if let Some(s) = args.s {
        cfg.spsimds_per_simd =
            super::spsimds(usize::try_from(s).unwrap_or(usize::MAX), 0..=MAX_SPSIMDS)?;
    }
    cfg.validate()?;
    let width = pws_isa::manifest::WAVEFRONT_SIZE as usize;
    if cfg.wavefront_width != width {
        return Err(format!(
            "a launch runs wavefronts of {width} work-items; the configuration has {}",
            cfg.wavefront_width
        )
        .into());
    }
    let sequence = LaunchSequence::load(Path::new(&args.input))?;
    let modes: Vec<Mode> = match &args.mode {
        Some(m) => vec![m.parse::<Mode>()?],
        None => Mode::ALL.to_vec(),
    };
    let options = LaunchOptions {
        split: args.split.policy(),
        dws: args.dws_bound.as_deref().map(str::parse).transpose()?,
        ipet: solver(&args.ipet),
    };
    let Some(manifest) = sequence.single() else {
        if !args.observed.is_empty() {
            return Err("--observed compares one launch's run with its bound; for a launch sequence `pws compare` checks every run against the sequence's bound".into());
        }
        return sequence_bound(&sequence, &cfg, &modes, &options, args.json);
    };
    let source = KernelSource::load(manifest)?;
    let r = analyse_launch_with(manifest, &source, &machine(&cfg), &modes, &options)?;
    let observed = args
        .observed
        .iter()
        .map(|path| compare(&r, path))
        .collect::<Result<Vec<_>, String>>()?;
    if args.json {
        let mut v = serde_json::to_value(&r)?;
        v["observed"] = serde_json::to_value(&observed)?;
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", pws_host::launch::text(&r, &manifest.kernel_label()));
        if !observed.is_empty() {
            let rows: Vec<Tightness> = observed.iter().map(|c| c.tightness.clone()).collect();
            print!("{}", tightness_table(&rows));
            for c in observed.iter().filter(|c| !c.blocks_over.is_empty()) {
                for b in &c.blocks_over {
                    match b.wcet {
                        Some(w) => println!(
                            "{}: block at pc {:#x} took {} cycles, above its WCET {w}",
                            c.file, b.pc, b.measured
                        ),
                        None => println!(
                            "{}: block at pc {:#x} ({} cycles) is not a block of the analysis",
                            c.file, b.pc, b.measured
                        ),
                    }
                }
            }
        }
    }
    let bad: Vec<String> = observed
        .iter()
        .filter(|c| !c.tightness.safe() || !c.blocks_over.is_empty())
        .map(|c| c.file.clone())
        .collect();
    if !bad.is_empty() {
        return Err(format!(
            "the RTL exceeded the bound or a block's WCET in {}",
            bad.join(", ")
        )
        .into());
    }
    Ok(())
}

/// The bound of a launch sequence: every launch bounded as one, and per mode the sum over the
/// launches times the most passes `[repeat]` allows (the launches of a pass run one after
/// another; a kernel's bound does not depend on the memory it starts on).
fn sequence_bound(
    sequence: &LaunchSequence,
    cfg: &HwConfig,
    modes: &[Mode],
    options: &LaunchOptions,
    json: bool,
) -> CmdResult {
    let reports = sequence
        .launches
        .iter()
        .map(|m| {
            let source = KernelSource::load(m)?;
            Ok(analyse_launch_with(
                m,
                &source,
                &machine(cfg),
                modes,
                options,
            )?)
        })
        .collect::<Result<Vec<LaunchReport>, Box<dyn std::error::Error>>>()?;
    let passes = u64::from(sequence.max_passes());
    let bounds = |mode: Mode| {
        reports
            .iter()
            .map(move |r| r.mode(mode).expect("the analysed mode is reported").bound)
    };
    let totals: Vec<(Mode, u64)> = modes
        .iter()
        .map(|&mode| (mode, sequence.bound(bounds(mode))))
        .collect();
    if json {
        let bound: serde_json::Map<String, serde_json::Value> = totals
            .iter()
            .map(|(m, b)| (m.name().to_string(), (*b).into()))
            .collect();
        let out = serde_json::json!({ "launches": reports, "passes": passes, "bound": bound });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    for (k, r) in reports.iter().enumerate() {
        println!("launch {k}: {}", sequence.launches[k].kernel_label());
        print!(
            "{}",
            pws_host::launch::text(r, &sequence.launches[k].kernel_label())
        );
        println!();
    }
    println!(
        "sequence: {} launch(es) per pass, at most {passes} pass(es)",
        reports.len()
    );
    for (mode, total) in totals {
        let terms: Vec<String> = bounds(mode).map(|b| b.to_string()).collect();
        println!(
            "  {:<8} bound {total} = {passes} x ({})",
            mode.name(),
            terms.join(" + ")
        );
    }
    Ok(())
}

/// Compares the `pws run --json` report in `path` with the bound of its mode.
fn compare(r: &LaunchReport, path: &Path) -> Result<Comparison, String> {
    let file = pws_isa::diag::path(path);
    let text = read_text(path, Kind::Report).map_err(|e| e.to_string())?;
    let run: Observed = serde_json::from_str(&text).map_err(|e| {
        let (line, column) = (e.line(), e.column());
        let text = e.to_string();
        let what = text
            .strip_suffix(&format!(" at line {line} column {column}"))
            .unwrap_or(&text);
        format!(
            "{file}:{line}:{column}: not a `pws run --json` report: {}",
            pws_isa::diag::message(what)
        )
    })?;
    let mode: Mode = run.mode.parse().map_err(|e| format!("{file}: {e}"))?;
    let bound = r.mode(mode).ok_or_else(|| {
        format!("{file}: a {mode} run, but the bound was computed for another --mode")
    })?;
    if let Some(s) = run.s.filter(|&s| s != r.machine.cu.spsimds) {
        return Err(format!(
            "{file}: the run had S = {s}, the bound is for S = {} (pass --S {s})",
            r.machine.cu.spsimds
        ));
    }
    let measured: Vec<(u32, u64)> = run.blocks.iter().map(|b| (b.pc, b.max_cycles)).collect();
    let tightness = Tightness {
        kernel: r.kernel.clone(),
        mode,
        bound: bound.bound,
        observed: run.cycles,
    };
    Ok(Comparison {
        file,
        compaction: run.compaction,
        ratio: tightness.ratio(),
        tightness,
        blocks_over: check_blocks(bound, &measured),
    })
}
