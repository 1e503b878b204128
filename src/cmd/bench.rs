//! `pws bench`: the speed tables of `make bench` in one run: rust-hdl against Verilator on the
//! same exported units, the compute unit running whole kernels (with and without a VCD, and
//! the memory a long run holds), the WCET analysis against CFG size, and the split pass
//! against kernel size.

use std::time::Duration;

use pws_export::bench::{self as rtl_bench, BenchOptions};
use pws_host::bench as host_bench;

use pws_sim::cu::ports::Engine;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Only this part: `rtl` (rust-hdl vs Verilator), `cu` (kernels on the compute unit),
    /// `wcet` (`pws wcet` on CFGs of growing size), `compile` (`pws compile` on kernels of
    /// growing size) or `tightness` (every launch in kernels/ on the RTL in each mode beside
    /// its WCET bound).
    #[arg(long, value_parser = ["rtl", "cu", "wcet", "compile", "tightness"])]
    only: Option<String>,
    /// Only this RTL unit (as `pws export --unit` names it).
    #[arg(long)]
    unit: Option<String>,
    /// Wall-clock seconds each simulator runs per unit.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Print the tables as JSON.
    #[arg(long)]
    json: bool,
    /// CFG sizes (nodes) of the WCET table; each is run without and with loops.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 30_000, 100_000])]
    wcet_sizes: Vec<usize>,
    /// `if`/`else` regions of the split-pass table's kernels, each in clang's -O2 and -O3 shape.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 20_000])]
    compile_regions: Vec<usize>,
    /// Keep the generated CFGs of the WCET table in this directory (g<nodes>.dot without
    /// loops, g<nodes>l.dot with loops) to run `pws wcet` on them by hand.
    #[arg(long)]
    wcet_dir: Option<std::path::PathBuf>,
    /// The compute-unit table's engines (a Verilator model not yet in the cache is built
    /// before the timed runs: minutes for `cu2x4`, about half an hour for `gcn3`).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [super::EngineArg::RustHdl, super::EngineArg::Verilator])]
    engine: Vec<super::EngineArg>,
    /// The compute-unit table's configurations.
    #[arg(long, value_delimiter = ',', value_parser = CU_CONFIGS, default_values_t = CU_CONFIGS.map(String::from))]
    cu_config: Vec<String>,
    /// The compute-unit table's kernels (launch manifests).
    #[arg(long, value_delimiter = ',', default_values_t = CU_KERNELS.map(String::from))]
    cu_kernel: Vec<String>,
}

/// The command the WCET table times: the issue's, as a user types it.
const WCET_ARGS: [&str; 10] = [
    "--S", "3", "--d", "1", "--es", "1", "--em", "1", "--ds", "1",
];

fn wcet_command(file: &str) -> String {
    format!("pws wcet {file} {} --json", WCET_ARGS.join(" "))
}

/// Runs this binary's `pws wcet` on generated CFGs of each size, without and with loops, and
/// times the whole process (best of three runs).
fn wcet_bench(
    sizes: &[usize],
    keep: Option<&std::path::Path>,
) -> Result<Vec<host_bench::CommandRow>, Box<dyn std::error::Error>> {
    use std::process::Command;

    let exe = std::env::current_exe()?;
    let temp = tempfile::tempdir()?;
    let dir = match keep {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            d
        }
        None => temp.path(),
    };
    let mut rows = Vec::new();
    for loops in [false, true] {
        for &nodes in sizes {
            let cfg = host_bench::bench_cfg(nodes, loops)?;
            let file = dir.join(format!("g{nodes}{}.dot", if loops { "l" } else { "" }));
            std::fs::write(&file, &cfg.dot)?;
            let runs = 3;
            let (best, best_cpu) =
                best_of(runs, &wcet_command(&file.display().to_string()), || {
                    let mut c = Command::new(&exe);
                    c.arg("wcet").arg(&file).args(WCET_ARGS).arg("--json");
                    c
                })?;
            rows.push(host_bench::CommandRow {
                nodes: cfg.nodes,
                edges: cfg.edges,
                branches: cfg.branches,
                loops: cfg.loops,
                loop_depth: cfg.loop_depth,
                seconds: best,
                cpu_seconds: best_cpu,
                runs,
            });
        }
    }
    Ok(rows)
}

/// The least wall and CPU seconds of `runs` runs of `command` (the CPU of the child process
/// alone); an error naming `what` with its message if a run fails.
fn best_of(
    runs: usize,
    what: &str,
    command: impl Fn() -> std::process::Command,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    use std::process::Stdio;
    use std::time::Instant;

    let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..runs {
        let cpu = children_cpu_seconds();
        let start = Instant::now();
        let out = command()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()?;
        let seconds = start.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim()).into());
        }
        best = best.min(seconds);
        best_cpu = best_cpu.min(children_cpu_seconds() - cpu);
    }
    Ok((best, best_cpu))
}

/// Runs this binary's `pws compile` on generated kernels of each size and shape, and times the
/// whole process (best of three runs).
fn compile_bench(
    regions: &[usize],
) -> Result<Vec<host_bench::CompileRow>, Box<dyn std::error::Error>> {
    use std::process::Command;

    let exe = std::env::current_exe()?;
    let dir = tempfile::tempdir()?;
    let mut rows = Vec::new();
    for shape in [host_bench::IfShape::O2, host_bench::IfShape::O3] {
        for &n in regions {
            let kernel = host_bench::bench_kernel(n, shape);
            let file = dir.path().join(format!("k{n}{shape:?}.s"));
            std::fs::write(&file, &kernel)?;
            let out_file = dir.path().join("out.s");
            let runs = 3;
            let what = format!("pws compile {}", file.display());
            let (best, best_cpu) = best_of(runs, &what, || {
                let mut c = Command::new(&exe);
                c.arg("compile")
                    .arg(&file)
                    .args(["--split-all", "--input-limit", "asm=1G", "-o"])
                    .arg(&out_file);
                c
            })?;
            rows.push(host_bench::CompileRow {
                shape,
                regions: n,
                lines: kernel.lines().count(),
                seconds: best,
                cpu_seconds: best_cpu,
                runs,
            });
        }
    }
    Ok(rows)
}

pub fn run(args: Args) -> CmdResult {
    let want = |part: &str| args.only.as_deref().is_none_or(|o| o == part);
    let mut report = serde_json::Map::new();

    if want("rtl") {
        let options = BenchOptions {
            budget: Duration::from_secs_f64(args.seconds),
            ..BenchOptions::default()
        };
        let table = rtl_bench::run(args.unit.as_deref(), &options, None)?;
        if !args.json {
            println!(
                "RTL simulation speed: rust-hdl (pws_sim::Driver) against Verilator, same stimulus"
            );
            println!("{table}");
        }
        report.insert("rtl".into(), serde_json::to_value(&table)?);
    }

    if want("cu") {
        if args.engine.contains(&super::EngineArg::Lockstep) {
            return Err("pws bench times engines one at a time: --engine rust-hdl,verilator (lockstep is a check, not a speed)".into());
        }
        let engines: Vec<Engine> = args.engine.iter().map(|&e| e.into()).collect();
        let (rows, left_out) = cu_bench(&engines, &args.cu_config, &args.cu_kernel)?;
        if !args.json {
            println!(
                "Compute unit, whole kernels (pws_sim::cu::run_on; pws, S = 2; `cu2x4`: the cu preset with 2 SIMDs x 4 slots and 64 SGPRs; cu: 1 SIMD x 2 slots; gcn3: 4 SIMDs x 10 slots). cycles/s of the simulation loop; ratio: against the row named"
            );
            print!("{}", cu_table(&rows));
            for line in &left_out {
                println!("left out: {line}");
            }
            println!();
        }
        report.insert("cu".into(), serde_json::to_value(&rows)?);
        report.insert("cu_left_out".into(), serde_json::to_value(&left_out)?);
    }

    if want("wcet") {
        let rows = wcet_bench(&args.wcet_sizes, args.wcet_dir.as_deref())?;
        if !args.json {
            print!("{}", host_bench::format(&wcet_command("G.dot"), &rows));
            println!();
        }
        report.insert("wcet".into(), serde_json::to_value(&rows)?);
    }

    if want("compile") {
        let rows = compile_bench(&args.compile_regions)?;
        if !args.json {
            print!(
                "{}",
                host_bench::format_compile("pws compile K.s --split-all -o OUT.s", &rows)
            );
            println!();
        }
        report.insert("compile".into(), serde_json::to_value(&rows)?);
    }

    if want("tightness") {
        let rows = tightness()?;
        if !args.json {
            println!("WCET bound / RTL cycles (`pws wcet LAUNCH.toml` beside `pws run`, compaction none) for every launch in kernels/");
            print!("{}", tightness_table(&rows));
        }
        report.insert("tightness".into(), serde_json::to_value(&rows)?);
    }

    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

/// One launch in one mode on the RTL beside its bound.
#[derive(serde::Serialize)]
struct TightnessRow {
    launch: String,
    /// The compute unit it ran on.
    configuration: String,
    mode: pws_host::timing::Mode,
    bound: u64,
    cycles: u64,
    ratio: f64,
}

/// Every launch of kernels/ on the `cu` preset (with as many SIMDs as its largest workgroup
/// needs) in every mode, beside the launch bound: the tightness table of docs/wcet.md.
fn tightness() -> Result<Vec<TightnessRow>, Box<dyn std::error::Error>> {
    use pws_hdl::cu::CuMode;
    use pws_host::launch::{analyse_launch, KernelSource};
    use pws_host::timing::Mode;
    use pws_isa::manifest::Manifest;
    use pws_sim::cu::RunOptions;

    let mut rows = Vec::new();
    for path in pws_isa::testing::shipped_launches() {
        let manifest = Manifest::load(&path)?;
        let source = KernelSource::load(&manifest)?;
        let need = (0..manifest.workgroups())
            .map(|g| manifest.wavefronts_in(g) as usize)
            .max()
            .unwrap_or(1);
        let mut hw = pws_hdl::config::HwConfig::cu();
        while hw.simds_per_cu * hw.wf_contexts_per_simd < need {
            hw.simds_per_cu += 1;
        }
        let bound = analyse_launch(
            &manifest,
            &source,
            &pws_verify::bound::machine(&hw),
            &Mode::ALL,
            pws_host::compile::SplitPolicy::Marked,
        )?;
        for b in &bound.modes {
            let mode = match b.mode {
                Mode::NoSplit => CuMode::NoSplit,
                Mode::Dws => CuMode::Dws,
                Mode::Pws => CuMode::Pws,
            };
            let run = pws_sim::cu::run(&b.kernel.program, &manifest, &RunOptions::new(hw, mode))?;
            rows.push(TightnessRow {
                launch: path
                    .file_name()
                    .map_or_else(String::new, |f| f.to_string_lossy().to_string()),
                configuration: format!(
                    "S = {}, {} slots, latency {}",
                    hw.spsimds_per_simd,
                    hw.simds_per_cu * hw.wf_contexts_per_simd,
                    hw.mem_latency
                ),
                mode: b.mode,
                bound: b.bound,
                cycles: run.cycles,
                ratio: b.bound as f64 / run.cycles.max(1) as f64,
            });
        }
    }
    Ok(rows)
}

/// The rows as a Markdown table, one line per launch.
fn tightness_table(rows: &[TightnessRow]) -> String {
    use std::fmt::Write as _;
    let mut out =
        String::from("| launch | configuration | no-split | DWS | PWS |\n|---|---|---|---|---|\n");
    for launch in rows.chunks(3) {
        let cell = |r: &TightnessRow| {
            format!(
                "{} / {} = {:.2}x{}",
                r.bound,
                r.cycles,
                r.ratio,
                if r.bound < r.cycles { " VIOLATED" } else { "" }
            )
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            launch[0].launch,
            launch[0].configuration,
            launch.iter().map(cell).collect::<Vec<_>>().join(" | ")
        );
    }
    out
}

/// One kernel run on the compute unit for the speed table.
#[derive(serde::Serialize)]
struct CuRow {
    kernel: String,
    /// The hardware configuration ([`CU_CONFIGS`]).
    config: String,
    engine: Engine,
    /// How each settle of rust-hdl evaluated the RTL (`pws_sim::DeltaPasses`).
    passes: Option<pws_sim::DeltaPasses>,
    vcd: bool,
    cycles: u64,
    /// Wall-clock seconds of the whole run (the model's load included).
    seconds: f64,
    /// Of the simulation loop.
    cycles_per_second: f64,
    /// The row `ratio` compares with: rust-hdl's every-block passes for its activity passes,
    /// rust-hdl's activity passes for Verilator (both without a trace).
    against: Option<&'static str>,
    ratio: Option<f64>,
    /// VCD bytes written (0 without a trace).
    vcd_bytes: u64,
    /// Peak resident memory of the process after the run, in MiB.
    peak_rss_mib: f64,
}

/// The kernels of the table: Figure 2 (one wavefront), `divergent64` (3 wavefronts, nested
/// divergence), `collatz` (4 workgroups of 256 work-items, 16 wavefronts, a divergent loop) and
/// a BFS step on 4,096 nodes (64 wavefronts, atomics; clang-14's code).
const CU_KERNELS: [&str; 4] = [
    "kernels/figure2.toml",
    "kernels/divergent64.toml",
    "kernels/collatz.toml",
    "kernels/bench/bfs4096.toml",
];

/// Kernels timed only on rust-hdl's activity passes and Verilator: with every block evaluated
/// the BFS step takes minutes, and its trace would be gigabytes.
const LONG_KERNELS: [&str; 1] = ["kernels/bench/bfs4096.toml"];

/// The configurations of the table: the `cu` preset grown to 2 SIMDs of 4 slots, so two of
/// `collatz`'s 4-wavefront workgroups are resident at once, and 64 SGPRs, which every kernel
/// fits (one Verilator model for all); the `cu` preset itself (1 SIMD of 2 slots), which runs
/// the kernels whose workgroups fit it; and the paper's machine (`gcn3`: 4 SIMDs of 10 slots,
/// 102 SGPRs, a 32-cycle memory); all with S = 2. Only the first is also run with rust-hdl's
/// every-block passes and a trace: on `gcn3` those would take many minutes.
const CU_CONFIGS: [&str; 3] = ["cu2x4", "cu", "gcn3"];

fn bench_config(name: &str) -> pws_hdl::config::HwConfig {
    let cfg = match name {
        "gcn3" => pws_hdl::config::HwConfig::gcn3(),
        "cu" => pws_hdl::config::HwConfig::cu(),
        _ => pws_hdl::config::HwConfig {
            simds_per_cu: 2,
            wf_contexts_per_simd: 4,
            sgprs_per_context: 64,
            ..pws_hdl::config::HwConfig::cu()
        },
    };
    cfg.with_spsimds(2)
}

/// The rows of the compute-unit table, and a line for each kernel left out of a configuration
/// whose compute unit cannot hold its workgroups.
fn cu_bench(
    engines: &[Engine],
    configs: &[String],
    kernels: &[String],
) -> Result<(Vec<CuRow>, Vec<String>), Box<dyn std::error::Error>> {
    use pws_hdl::cu::CuMode;
    use pws_hdl::swizzle::SwizzleMode;
    use pws_host::launch::{KernelSource, LaunchKernel};
    use pws_host::timing::Mode;
    use pws_isa::manifest::Manifest;
    use pws_sim::cu::dispatch::DispatchError;
    use pws_sim::cu::{RunError, RunOptions};
    use pws_sim::DeltaPasses;
    use std::time::Instant;

    let dir = tempfile::tempdir()?;
    // Models are built (or loaded) before anything is timed.
    if engines.contains(&Engine::Verilator) {
        let factory = super::engine_factory(Engine::Verilator);
        for config in configs {
            factory(&bench_config(config), None)?;
        }
    }
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for (config, path) in configs
        .iter()
        .flat_map(|c| kernels.iter().map(move |k| (c.as_str(), k.as_str())))
    {
        let manifest = Manifest::load(path)?;
        let kernel = LaunchKernel::new(
            &KernelSource::load(&manifest)?,
            Mode::Pws,
            pws_host::compile::SplitPolicy::Marked,
        )?;
        let first = rows.len();
        let mut runs: Vec<(Engine, Option<DeltaPasses>, bool)> = Vec::new();
        let references = config == CU_CONFIGS[0] && !LONG_KERNELS.contains(&path);
        if engines.contains(&Engine::RustHdl) {
            if references {
                runs.push((Engine::RustHdl, Some(DeltaPasses::EveryBlock), false));
            }
            runs.push((Engine::RustHdl, Some(DeltaPasses::Activity), false));
            if references {
                runs.push((Engine::RustHdl, Some(DeltaPasses::Activity), true));
            }
        }
        if engines.contains(&Engine::Verilator) {
            runs.push((Engine::Verilator, None, false));
        }
        for (engine, passes, vcd) in runs {
            let trace = dir.path().join("bench.vcd");
            let opts = RunOptions {
                compaction: SwizzleMode::None,
                vcd: vcd.then(|| trace.clone()),
                passes: passes.unwrap_or_default(),
                ..RunOptions::new(bench_config(config), CuMode::Pws)
            };
            let factory: Box<pws_sim::cu::EngineFactory> = match passes {
                Some(p) => Box::new(pws_sim::cu::rust_hdl_engine(p)),
                None => super::engine_factory(engine),
            };
            let start = Instant::now();
            let report = match pws_sim::cu::run_on(&kernel.program, &manifest, &opts, &*factory) {
                Err(RunError::Dispatch(e @ DispatchError::WorkgroupTooLarge { .. })) => {
                    left_out.push(format!("{path} on {config}: {e}"));
                    break;
                }
                report => report?,
            };
            let seconds = start.elapsed().as_secs_f64();
            let cycles_per_second = report.cycles_per_second;
            if let Some(other) = rows[first..]
                .iter()
                .find(|r: &&CuRow| r.cycles != report.cycles)
            {
                return Err(format!(
                    "{path} on {config}: {} cycles on {} ({passes:?}), {} on {} ({:?})",
                    report.cycles,
                    engine.name(),
                    other.cycles,
                    other.engine.name(),
                    other.passes
                )
                .into());
            }
            let against = match (engine, passes) {
                (_, _) if vcd => None,
                (Engine::RustHdl, Some(DeltaPasses::Activity)) => {
                    Some((Engine::RustHdl, Some(DeltaPasses::EveryBlock)))
                }
                (Engine::Verilator, _) => Some((Engine::RustHdl, Some(DeltaPasses::Activity))),
                _ => None,
            };
            let reference = against.and_then(|(e, p)| {
                rows[first..]
                    .iter()
                    .find(|r: &&CuRow| r.engine == e && r.passes == p && !r.vcd)
            });
            rows.push(CuRow {
                kernel: manifest.kernel.display().to_string(),
                config: config.to_string(),
                engine,
                passes,
                vcd,
                cycles: report.cycles,
                seconds,
                cycles_per_second,
                against: reference.map(|r| match r.passes {
                    Some(DeltaPasses::EveryBlock) => "rust-hdl every-block",
                    _ => "rust-hdl activity",
                }),
                ratio: reference.map(|r| cycles_per_second / r.cycles_per_second),
                vcd_bytes: if vcd {
                    std::fs::metadata(&trace)?.len()
                } else {
                    0
                },
                peak_rss_mib: peak_rss_mib(),
            });
        }
    }
    Ok((rows, left_out))
}

/// User + system CPU seconds of the finished child processes.
#[cfg(unix)]
fn children_cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage only writes the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) } != 0 {
        return f64::NAN;
    }
    // SAFETY: getrusage returned 0, so it filled the struct.
    let u = unsafe { usage.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(u.ru_utime) + secs(u.ru_stime)
}

#[cfg(not(unix))]
fn children_cpu_seconds() -> f64 {
    f64::NAN
}

/// Peak resident set size of this process (Linux reports `ru_maxrss` in KiB).
#[cfg(unix)]
fn peak_rss_mib() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage only writes the struct it is given.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    if ok {
        // SAFETY: getrusage returned 0, so it filled the struct.
        unsafe { usage.assume_init() }.ru_maxrss as f64 / 1024.0
    } else {
        f64::NAN
    }
}

#[cfg(not(unix))]
fn peak_rss_mib() -> f64 {
    f64::NAN
}

fn cu_table(rows: &[CuRow]) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{:<26} {:<7} {:<22} {:>4} {:>9} {:>8} {:>10} {:>28} {:>9} {:>13}\n",
        "kernel",
        "config",
        "engine",
        "vcd",
        "cycles",
        "seconds",
        "cycles/s",
        "ratio",
        "VCD MiB",
        "peak RSS MiB"
    );
    for r in rows {
        let engine = match r.passes {
            Some(pws_sim::DeltaPasses::Activity) => "rust-hdl activity",
            Some(pws_sim::DeltaPasses::EveryBlock) => "rust-hdl every-block",
            None => r.engine.name(),
        };
        let _ = writeln!(
            out,
            "{:<26} {:<7} {:<22} {:>4} {:>9} {:>8.2} {:>10.0} {:>28} {:>9.1} {:>13.1}",
            r.kernel,
            r.config,
            engine,
            if r.vcd { "yes" } else { "no" },
            r.cycles,
            r.seconds,
            r.cycles_per_second,
            r.ratio.zip(r.against).map_or_else(
                || "-".to_string(),
                |(x, against)| format!("{x:.2}x {against}")
            ),
            r.vcd_bytes as f64 / (1024.0 * 1024.0),
            r.peak_rss_mib
        );
    }
    out
}
