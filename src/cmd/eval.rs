//! `pws eval SWEEP.toml`: runs a sweep of RTL runs (kernels x sizes x modes x S x compaction
//! x configurations) and writes results.csv/json, tables.md, table3.md and SVG figures into
//! `--out` (`crate::eval`, docs/evaluation.md). `--point K` runs one point (a cluster job),
//! `--emit-jobs` writes the job array and `--merge` joins the shards. Every file is written
//! before a failed point makes the command exit non-zero.

use std::path::PathBuf;

use crate::eval::{self, jobs, results, run, sweep::Sweep};

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// The sweep file (TOML; see docs/evaluation.md).
    #[arg(required_unless_present = "merge")]
    sweep: Option<PathBuf>,
    /// Directory for the results, the cache and the figures.
    #[arg(long, default_value = "out/eval")]
    out: PathBuf,
    /// Points to run at once (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress bar and no tables on stdout.
    #[arg(long)]
    quiet: bool,
    /// Ignore (and empty) the results cache of `--out`.
    #[arg(long)]
    fresh: bool,
    /// Run only point K of the sweep (0-based, as `--emit-jobs` numbers them).
    #[arg(long, value_name = "K", conflicts_with = "emit_jobs")]
    point: Option<usize>,
    /// Write one `pws eval SWEEP --point K --out OUT/shard_K` line per point to FILE, and a
    /// Slurm array script to FILE.sbatch, instead of running.
    #[arg(long, value_name = "FILE")]
    emit_jobs: Option<PathBuf>,
    /// Join the results of these shard directories into `--out` and redraw the tables and
    /// figures.
    #[arg(long, num_args = 1.., value_name = "DIR", conflicts_with_all = ["sweep", "point", "emit_jobs", "fresh"])]
    merge: Vec<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let create = |dir: &PathBuf| {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", pws_isa::diag::path(dir)))
    };
    if !args.merge.is_empty() {
        let (info, records, notes) = jobs::merge(&args.merge)?;
        create(&args.out)?;
        let missing = !notes.is_empty();
        let markdown = eval::report(&args.out, &info, &records, notes)?;
        return finish(
            &args,
            &records,
            &markdown,
            missing.then_some("points are missing"),
        );
    }
    let sweep_path = args
        .sweep
        .clone()
        .expect("clap requires the sweep without --merge");
    let sweep = Sweep::load(&sweep_path)?;
    let all = sweep.points();
    if let Some(list) = &args.emit_jobs {
        let (commands, script) = jobs::emit(&sweep_path, all.len(), &args.out, list)?;
        let mut sbatch = list.clone().into_os_string();
        sbatch.push(".sbatch");
        results::write_file(list, &commands)?;
        results::write_file(&PathBuf::from(&sbatch), &script)?;
        println!(
            "wrote {} ({} commands) and {}; after they ran: pws eval --merge {}/shard_* --out {}",
            list.display(),
            all.len(),
            PathBuf::from(&sbatch).display(),
            args.out.display(),
            args.out.display()
        );
        return Ok(());
    }
    let points = match args.point {
        None => all.clone(),
        Some(k) => vec![all.get(k).cloned().ok_or_else(|| {
            format!(
                "--point {k}: the sweep has {} points (0..={})",
                all.len(),
                all.len().saturating_sub(1)
            )
        })?],
    };
    create(&args.out)?;
    let cache = results::Cache::open(&args.out, args.fresh)?;
    let jobs = match args.jobs {
        Some(0) => return Err("--jobs must be at least 1".into()),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let start = std::time::Instant::now();
    let outcome = run::run(
        &sweep,
        &points,
        &cache,
        &run::Options {
            jobs,
            quiet: args.quiet,
        },
    )?;
    // The summary goes to stderr with the progress bar: stdout carries the tables only.
    if !args.quiet {
        eprintln!(
            "eval: {} point(s): {} from the cache, {} run in {:.1} s on {jobs} thread(s)",
            points.len(),
            outcome.cached,
            outcome.ran,
            start.elapsed().as_secs_f64()
        );
    }
    let info = results::SweepInfo {
        sweep: sweep_path.to_string_lossy().into_owned(),
        points: all.len(),
    };
    let markdown = eval::report(&args.out, &info, &outcome.records, Vec::new())?;
    finish(&args, &outcome.records, &markdown, None)
}

/// Prints the tables and fails when a point failed (or `also` says what else is wrong).
fn finish(
    args: &Args,
    records: &[results::Record],
    markdown: &str,
    also: Option<&str>,
) -> CmdResult {
    if !args.quiet {
        print!("{markdown}");
        eprintln!(
            "eval: wrote {}/results.csv, results.json, tables.md, table3.md and the figures",
            args.out.display()
        );
    }
    let failed: Vec<&results::Record> = records.iter().filter(|r| r.failed()).collect();
    if failed.is_empty() && also.is_none() {
        return Ok(());
    }
    let mut why = format!("{} of {} point(s) failed", failed.len(), records.len());
    for r in failed.iter().take(5) {
        why.push_str(&format!(
            "\n  point {} ({} {} S={} {}): {}",
            r.point, r.benchmark, r.mode, r.s, r.compaction, r.reason
        ));
    }
    if let Some(also) = also {
        why.push_str(&format!("; {also} (see tables.md)"));
    }
    Err(why.into())
}
