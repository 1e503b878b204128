//! `pws compare LAUNCH.toml`: one launch on the compute-unit RTL in every mode, S and
//! compaction asked for, each run set beside the WCET bound `pws wcet` gives for it and
//! checked three ways: against the golden model running the same program (the RTL is right),
//! against the golden model running the unsplit kernel (the split/merge pass kept the kernel's
//! meaning) and against the manifest's `expect` values, computed outside pws (the kernel is
//! right). This is the table `make demo` prints for Figure 2. A bound the analysis cannot give
//! (a loop without a bound, say) is reported and left out; the runs still happen.

use std::fmt::Write as _;
use std::path::PathBuf;

use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::launch::{analyse_launch, KernelSource, LaunchKernel};
use pws_host::timing::Mode;
use pws_isa::manifest::Manifest;
use pws_sim::cu::RunOptions;
use pws_verify::golden;
use serde::Serialize;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Launch manifest (TOML; see docs/manifest.md).
    manifest: PathBuf,
    /// The compute unit: a preset or a TOML file of hardware parameters (default: cu).
    #[arg(long)]
    config: Option<String>,
    /// SpSIMDs per SIMD to run DWS and PWS with (no-split runs once).
    #[arg(long = "S", value_delimiter = ',', default_values_t = [1usize, 2, 3])]
    s: Vec<usize>,
    /// Compactions to run each mode with.
    #[arg(long, value_delimiter = ',', default_values_t = ["none".to_string(), "bcc".to_string(), "scc".to_string()])]
    compaction: Vec<String>,
    /// Print the rows as JSON.
    #[arg(long)]
    json: bool,
    /// Stop a run with an error after this many cycles (default: sized for each run from its
    /// golden-model reference, as `pws run` sizes it).
    #[arg(long)]
    max_cycles: Option<u64>,
}

/// One RTL run beside its bound.
#[derive(Serialize)]
struct Row {
    mode: Mode,
    #[serde(rename = "S")]
    s: usize,
    compaction: String,
    cycles: u64,
    /// `None` when the analysis could not bound the kernel (the reason is printed once).
    bound: Option<u64>,
    /// bound / cycles.
    tightness: Option<f64>,
    lane_utilisation: f64,
    passes_skipped: u64,
    /// The final memory equals the golden model's on the same program.
    golden_equal: bool,
    /// The final memory equals the golden model's on the unsplit kernel.
    unsplit_equal: bool,
    /// The buffers with `expect` values hold them (`None`: the manifest gives none).
    expect_equal: Option<bool>,
}

fn compaction(name: &str) -> Result<SwizzleMode, String> {
    match name {
        "none" => Ok(SwizzleMode::None),
        "bcc" => Ok(SwizzleMode::Bcc),
        "scc" => Ok(SwizzleMode::Scc),
        other => Err(format!(
            "unknown compaction '{other}' (expected none, bcc or scc)"
        )),
    }
}

pub fn run(args: Args) -> CmdResult {
    let base = match &args.config {
        Some(spec) => super::wcet::hw_config(Some(spec))?,
        None => HwConfig::cu(),
    };
    let compactions = args
        .compaction
        .iter()
        .map(|c| compaction(c).map(|m| (c.clone(), m)))
        .collect::<Result<Vec<_>, _>>()?;
    for &s in &args.s {
        super::spsimds(s, 0..=pws_hdl::config::MAX_SPSIMDS)?;
    }
    let manifest = Manifest::load(&args.manifest)?;
    let source = KernelSource::load(&manifest)?;
    let same = |golden: &golden::Report, report: &pws_sim::cu::RunReport| {
        golden
            .buffers
            .0
            .iter()
            .all(|(name, values)| report.buffers.get(name) == Some(values.words().as_slice()))
    };
    // The program of a mode does not depend on S: each is prepared once, with its warnings.
    let kernels = Mode::ALL
        .iter()
        .map(|&m| LaunchKernel::new(&source, m, false).map(|k| (m, k)))
        .collect::<Result<Vec<_>, _>>()?;
    let kernel_of = |mode: Mode| {
        &kernels
            .iter()
            .find(|(m, _)| *m == mode)
            .expect("every mode is prepared")
            .1
    };
    let unsplit_program = &kernel_of(Mode::NoSplit).program;
    let base = super::fit_registers(base, &args.config, unsplit_program);
    let unsplit = golden::run(
        unsplit_program,
        &manifest,
        &golden::Config {
            mode: golden::Mode::NoSplit,
            ..golden::Config::default()
        },
    )?;
    let expected: Vec<(&str, &[u32])> = manifest
        .buffers
        .iter()
        .filter_map(|b| b.expect.as_deref().map(|e| (b.name.as_str(), e)))
        .collect();
    let mut plan = vec![(Mode::NoSplit, base.spsimds_per_simd)];
    for mode in [Mode::Dws, Mode::Pws] {
        plan.extend(args.s.iter().map(|&s| (mode, s)));
    }
    let mut rows = Vec::new();
    let mut notes: Vec<String> = kernels
        .iter()
        .flat_map(|(m, k)| k.warnings.iter().map(move |w| format!("{}: {w}", m.name())))
        .collect();
    for (mode, s) in plan {
        let hw = base.with_spsimds(s);
        let kernel = kernel_of(mode);
        let bound = match analyse_launch(
            &manifest,
            &source,
            &pws_verify::bound::machine(&hw),
            &[mode],
            false,
        ) {
            Ok(b) => Some(b.mode(mode).expect("the analysed mode is reported").bound),
            Err(e) => {
                let w = format!("{}: no WCET bound: {e}", mode.name());
                if !notes.contains(&w) {
                    notes.push(w);
                }
                None
            }
        };
        let program = &kernel.program;
        let reference = golden::run(
            program,
            &manifest,
            &golden::Config {
                mode: if mode == Mode::NoSplit {
                    golden::Mode::NoSplit
                } else {
                    golden::Mode::Pws
                },
                s,
                final_registers: false,
                ..golden::Config::default()
            },
        )?;
        let limits = pws_verify::sizing::from_stats(&reference.stats, &hw);
        for (name, swizzle) in &compactions {
            let report = pws_sim::cu::run(
                program,
                &manifest,
                &RunOptions {
                    compaction: *swizzle,
                    max_cycles: args.max_cycles.unwrap_or(limits.max_cycles),
                    max_instructions: limits.max_instructions,
                    ..RunOptions::new(
                        hw,
                        match mode {
                            Mode::NoSplit => CuMode::NoSplit,
                            Mode::Dws => CuMode::Dws,
                            Mode::Pws => CuMode::Pws,
                        },
                    )
                },
            )?;
            let expect_equal = (!expected.is_empty()).then(|| {
                expected
                    .iter()
                    .all(|(name, e)| report.buffers.get(name) == Some(*e))
            });
            rows.push(Row {
                mode,
                s: if mode == Mode::NoSplit { 0 } else { s },
                compaction: name.clone(),
                cycles: report.cycles,
                bound,
                tightness: bound.map(|b| b as f64 / report.cycles.max(1) as f64),
                lane_utilisation: report.lane_utilisation,
                passes_skipped: report.passes_skipped,
                golden_equal: same(&reference, &report),
                unsplit_equal: same(&unsplit, &report),
                expect_equal,
            });
        }
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", table(&manifest, &rows));
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
