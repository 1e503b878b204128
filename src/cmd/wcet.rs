//! `pws wcet`: WCET bounds of a kernel for no-split, DWS and PWS (pws_host; docs/wcet.md).

use std::path::PathBuf;

use pws_host::analysis::{analyse, Params};
use pws_host::ipet::IpetSystem;
use pws_host::kernel::{GpuConfig, Launch};
use pws_host::select::all_branches;
use pws_host::timing::TimingTable;
use pws_host::{report, BsbCfg};

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// A DOT CFG (.dot), a GCN3 kernel (.s) or a launch manifest (.toml).
    input: PathBuf,
    /// GPU configuration (TOML with N_CU, N_SIMD, N_WFC, N_WIWF, S, e_s, e_m, d); default: the
    /// values of kernels/gpu.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// SpSIMDs per SIMD (overrides the configuration).
    #[arg(long = "S")]
    s: Option<u64>,
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
    /// Number of workgroups G (a manifest gives it; default 1).
    #[arg(long)]
    groups: Option<u64>,
    /// Work-items per workgroup N_WIWG (a manifest gives it; default N_WIWF).
    #[arg(long)]
    wg_size: Option<u64>,
    /// Treat every divergent branch as a split point.
    #[arg(long)]
    split_all: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write the CFG for Graphviz: pruned edges dashed, the worst-case path in red.
    #[arg(long)]
    dot: Option<PathBuf>,
    /// Write the PWS IPET problem (the pruned CFG) in CPLEX LP format.
    #[arg(long)]
    write_lp: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let mut gpu = match &args.config {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            GpuConfig::from_toml(&text, &path.display().to_string())?
        }
        None => GpuConfig::default(),
    };
    let input = pws_host::input::load(&args.input)?;
    // A kernel's split cost follows from the registers it holds, unless a configuration file
    // or a flag fixes it.
    if let (None, Some(sgprs)) = (&args.config, input.sgprs) {
        gpu.e_s = TimingTable::PLACEHOLDER.split_cycles(sgprs);
        gpu.e_m = TimingTable::PLACEHOLDER.merge;
    }
    gpu.s = args.s.unwrap_or(gpu.s);
    gpu.d = args.d.unwrap_or(gpu.d);
    gpu.e_s = args.es.unwrap_or(gpu.e_s);
    gpu.e_m = args.em.unwrap_or(gpu.e_m);

    let from_manifest = input.launch;
    let g = BsbCfg::new(input.cfg)?;
    let marked = if args.split_all {
        all_branches(&g)
    } else {
        (0..g.len()).map(|v| g.block(v).split).collect()
    };
    let launch = Launch {
        groups: args.groups.or(from_manifest.map(|l| l.groups)).unwrap_or(1),
        wg_size: args
            .wg_size
            .or(from_manifest.map(|l| l.wg_size))
            .unwrap_or(gpu.n_wiwf),
    };
    let a = analyse(
        &g,
        &marked,
        &Params {
            gpu,
            launch,
            ds: args.ds,
        },
    )?;

    if let Some(path) = &args.write_lp {
        let lp = IpetSystem::new(&g, &a.removed)?.to_lp(&g);
        std::fs::write(path, lp).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.dot {
        std::fs::write(path, report::dot(&g, &a))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&a.report)?);
    } else {
        print!("{}", report::text(&g, &a));
    }
    Ok(())
}
