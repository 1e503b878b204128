//! `pws bench`: the speed tables of `make bench` in one run: rust-hdl against Verilator on the
//! same exported units, the compute unit running whole kernels (with and without a VCD, and
//! the memory a long run holds), and the WCET analysis against CFG size.

use std::time::Duration;

use pws_export::bench::{self as rtl_bench, BenchOptions};
use pws_host::bench as host_bench;
use serde_json::json;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Only this part: `rtl` (rust-hdl vs Verilator), `cu` (kernels on the compute unit) or
    /// `wcet` (analysis scaling).
    #[arg(long, value_parser = ["rtl", "cu", "wcet"])]
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
        let rows = cu_bench()?;
        if !args.json {
            println!(
                "Compute unit (rust-hdl, pws_sim::cu::run; `cu` preset with 2 SIMDs x 4 slots, pws S = 2): whole kernels"
            );
            print!("{}", cu_table(&rows));
            println!();
        }
        report.insert("cu".into(), serde_json::to_value(&rows)?);
    }

    if want("wcet") {
        let scaling = host_bench::scaling(&[1_000, 10_000, 100_000])?;
        let ilp = host_bench::ilp(&[100, 1_000])?;
        if args.json {
            report.insert(
                "wcet_scaling".into(),
                scaling
                    .iter()
                    .map(|r| {
                        json!({
                            "nodes": r.nodes,
                            "branches": r.branches,
                            "structure_ms": r.structure.as_secs_f64() * 1e3,
                            "select_prune_wcet_us": r.select_prune_wcet.as_secs_f64() * 1e6,
                        })
                    })
                    .collect(),
            );
            report.insert(
                "ipet_ilp".into(),
                ilp.iter()
                    .map(|r| {
                        json!({
                            "nodes": r.nodes,
                            "loops": r.loops,
                            "variables": r.variables,
                            "constraints": r.constraints,
                            "solve_ms": r.solve.as_secs_f64() * 1e3,
                        })
                    })
                    .collect(),
            );
        } else {
            print!("{}", host_bench::format(&scaling, &ilp));
        }
    }

    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

/// One kernel run on the compute unit for the speed table.
#[derive(serde::Serialize)]
struct CuRow {
    kernel: String,
    vcd: bool,
    cycles: u64,
    seconds: f64,
    cycles_per_second: f64,
    /// VCD bytes written (0 without a trace).
    vcd_bytes: u64,
    /// Peak resident memory of the process after the run, in MiB.
    peak_rss_mib: f64,
}

/// The kernels of the table: Figure 2 (one wavefront) and `collatz` (4 workgroups of 256
/// work-items, 16 wavefronts, a divergent loop).
const CU_KERNELS: [&str; 2] = ["kernels/figure2.toml", "kernels/collatz.toml"];

/// The `cu` preset grown to 2 SIMDs of 4 slots, so two of `collatz`'s 4-wavefront workgroups
/// are resident at once.
fn bench_config() -> pws_hdl::config::HwConfig {
    pws_hdl::config::HwConfig {
        simds_per_cu: 2,
        wf_contexts_per_simd: 4,
        ..pws_hdl::config::HwConfig::cu()
    }
    .with_spsimds(2)
}

fn cu_bench() -> Result<Vec<CuRow>, Box<dyn std::error::Error>> {
    use pws_hdl::cu::CuMode;
    use pws_hdl::swizzle::SwizzleMode;
    use pws_host::launch::{KernelSource, LaunchKernel};
    use pws_host::timing::Mode;
    use pws_isa::manifest::Manifest;
    use pws_sim::cu::RunOptions;
    use std::time::Instant;

    let dir = tempfile::tempdir()?;
    let mut rows = Vec::new();
    for path in CU_KERNELS {
        let manifest = Manifest::load(path)?;
        let kernel = LaunchKernel::new(&KernelSource::load(&manifest)?, Mode::Pws, false)?;
        for vcd in [false, true] {
            let trace = dir.path().join("bench.vcd");
            let opts = RunOptions {
                compaction: SwizzleMode::None,
                vcd: vcd.then(|| trace.clone()),
                ..RunOptions::new(bench_config(), CuMode::Pws)
            };
            let start = Instant::now();
            let report = pws_sim::cu::run(&kernel.program, &manifest, &opts)?;
            let seconds = start.elapsed().as_secs_f64();
            rows.push(CuRow {
                kernel: manifest.kernel.display().to_string(),
                vcd,
                cycles: report.cycles,
                seconds,
                cycles_per_second: report.cycles as f64 / seconds,
                vcd_bytes: if vcd {
                    std::fs::metadata(&trace)?.len()
                } else {
                    0
                },
                peak_rss_mib: peak_rss_mib(),
            });
        }
    }
    Ok(rows)
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
        "{:<22} {:>4} {:>9} {:>8} {:>12} {:>11} {:>13}\n",
        "kernel", "vcd", "cycles", "seconds", "cycles/s", "VCD MiB", "peak RSS MiB"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<22} {:>4} {:>9} {:>8.2} {:>12.0} {:>11.1} {:>13.1}",
            r.kernel,
            if r.vcd { "yes" } else { "no" },
            r.cycles,
            r.seconds,
            r.cycles_per_second,
            r.vcd_bytes as f64 / (1024.0 * 1024.0),
            r.peak_rss_mib
        );
    }
    out
}
