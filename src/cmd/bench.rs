//! `pws bench`: the speed tables of `make bench` in one run: rust-hdl against Verilator on the
//! same exported units, and the WCET analysis against CFG size.

use std::time::Duration;

use pws_export::bench::{self as rtl_bench, BenchOptions};
use pws_host::bench as host_bench;
use serde_json::json;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Only this part: `rtl` (rust-hdl vs Verilator) or `wcet` (analysis scaling).
    #[arg(long, value_parser = ["rtl", "wcet"])]
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
