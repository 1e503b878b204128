//! `pws compare LAUNCH.toml`: one launch on the compute-unit RTL in every mode, S and
//! compaction asked for, each run set beside the WCET bound `pws wcet` gives for it and
//! checked three ways: against the golden model running the same program (the RTL is right),
//! against the golden model running the unsplit kernel (the split/merge pass kept the kernel's
//! meaning) and against the manifest's `expect` values, computed outside pws (the kernel is
//! right). This is the table `make demo` prints for Figure 2; the runs and checks are
//! `cmd::measure`'s, which `pws eval` shares. A bound the analysis cannot give
//! (a loop without a bound, say) is reported and left out; the runs still happen.

use std::fmt::Write as _;
use std::path::PathBuf;

use pws_host::timing::Mode;
use pws_isa::manifest::Manifest;

use super::measure::{compaction, Launch, Row};
use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Launch manifest (TOML; see docs/manifest.md).
    manifest: PathBuf,
    /// The compute unit: a preset or a TOML file of hardware parameters (default: cu).
    #[arg(long)]
    config: Option<String>,
    /// Modes to run, comma-separated or repeated (`--mode nosplit,pws`).
    #[arg(long, value_delimiter = ',', default_values_t = ["nosplit".to_string(), "dws".to_string(), "pws".to_string()])]
    mode: Vec<String>,
    /// SpSIMDs per SIMD to run DWS and PWS with, comma-separated (no-split runs once).
    #[arg(long = "S", value_delimiter = ',', default_values_t = [1usize, 2, 3])]
    s: Vec<usize>,
    /// Compactions to run each mode with, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = ["none".to_string(), "bcc".to_string(), "scc".to_string()])]
    compaction: Vec<String>,
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
    /// Stop a run with an error after this many cycles (default: sized for each run from its
    /// golden-model reference, as `pws run` sizes it).
    #[arg(long)]
    max_cycles: Option<u64>,
    #[command(flatten)]
    split: super::SplitArgs,
    /// The simulator of every run (as `pws run --engine`).
    #[arg(long, value_enum, default_value = "rust-hdl")]
    engine: super::EngineArg,
}

pub fn run(args: Args) -> CmdResult {
    let compactions = args
        .compaction
        .iter()
        .map(|c| compaction(c).map(|m| (c.clone(), m)))
        .collect::<Result<Vec<_>, _>>()?;
    for &s in &args.s {
        super::spsimds(s, 0..=pws_hdl::config::MAX_SPSIMDS)?;
    }
    let modes = args
        .mode
        .iter()
        .map(|m| m.parse::<Mode>())
        .collect::<Result<Vec<_>, _>>()?;
    let mut launch = Launch::prepare(&args.manifest, &args.config, args.split.policy())
        .map_err(|e| e as Box<dyn std::error::Error>)?;
    launch.engine = args.engine.into();
    let mut plan = vec![(Mode::NoSplit, launch.base.spsimds_per_simd)];
    for mode in [Mode::Dws, Mode::Pws] {
        plan.extend(args.s.iter().map(|&s| (mode, s)));
    }
    plan.retain(|(mode, _)| modes.contains(mode));
    let mut rows = Vec::new();
    let mut notes = launch.notes.clone();
    for (mode, s) in plan {
        let bound = match launch.bound_and_notes(mode, &launch.hw(mode, s)) {
            Ok((b, loops)) => {
                for n in loops {
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
                Some(b)
            }
            Err(e) => {
                let w = format!("{}: no WCET bound: {e}", mode.name());
                if !notes.contains(&w) {
                    notes.push(w);
                }
                None
            }
        };
        rows.extend(
            launch
                .measure(mode, s, &compactions, bound, args.max_cycles)
                .map_err(|e| e as Box<dyn std::error::Error>)?,
        );
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", table(&launch.sequence.launches[0], &rows));
        for r in rows.iter().filter(|r| !r.differences.is_empty()) {
            let run = match r.mode {
                Mode::NoSplit => format!("{}, {}", r.mode.name(), r.compaction),
                _ => format!("{} S = {}, {}", r.mode.name(), r.s, r.compaction),
            };
            for d in &r.differences {
                println!("{run}: {d}");
            }
        }
    }
    let unequal = rows.iter().filter(|r| !r.golden_equal).count();
    let changed = rows.iter().filter(|r| !r.unsplit_equal).count();
    let wrong = rows
        .iter()
        .filter(|r| r.expect_equal == Some(false))
        .count();
    let unsafe_rows = rows
        .iter()
        .filter(|r| r.bound.is_some_and(|b| r.cycles > b))
        .count();
    if unequal + changed + wrong + unsafe_rows > 0 {
        return Err(format!(
            "{unequal} run(s) differ from the golden model, {changed} from the unsplit kernel, {wrong} from the expected values; {unsafe_rows} run(s) exceed their WCET bound"
        )
        .into());
    }
    Ok(())
}

fn table(manifest: &Manifest, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: RTL cycles beside the WCET bound (tightness = bound / cycles); final memory against the golden model on the same program, on the unsplit kernel, and the manifest's expected values\n",
        manifest.opencl.as_ref().unwrap_or(&manifest.kernel).display()
    );
    let _ = writeln!(
        out,
        "{:<8} {:>2} {:<10} {:>8} {:>8} {:>9} {:>10} {:>8} {:>7} {:>7} {:>7}",
        "mode",
        "S",
        "compaction",
        "cycles",
        "bound",
        "tightness",
        "lane util",
        "skipped",
        "golden",
        "unsplit",
        "expect"
    );
    let verdict = |ok: bool| if ok { "equal" } else { "DIFFERS" };
    for r in rows {
        let s = if r.mode == Mode::NoSplit {
            "-".to_string()
        } else {
            r.s.to_string()
        };
        let _ = writeln!(
            out,
            "{:<8} {:>2} {:<10} {:>8} {:>8} {:>9} {:>9.1}% {:>8} {:>7} {:>7} {:>7}",
            r.mode.name(),
            s,
            r.compaction,
            r.cycles,
            r.bound.map_or("-".to_string(), |b| b.to_string()),
            r.tightness.map_or("-".to_string(), |t| format!("{t:.2}x")),
            100.0 * r.lane_utilisation,
            r.passes_skipped,
            verdict(r.golden_equal),
            verdict(r.unsplit_equal),
            r.expect_equal.map_or("-", verdict)
        );
    }
    out
}
