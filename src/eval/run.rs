//! Running the points of a sweep: each launch (manifest x configuration) is prepared once,
//! every point gets its cache key, finished points come from the cache, and the rest run in
//! parallel on a rayon pool with a progress bar. A point that fails (a run error, memory
//! unlike a reference, cycles above the bound, a panic) becomes a record with the reason.

use std::collections::HashMap;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::results::{key, Cache, Record};
use super::sweep::{Point, Sweep};
use crate::cmd::measure::{compaction, Launch};
use pws_host::timing::Mode;

/// How to run a sweep.
pub struct Options {
    pub jobs: usize,
    pub quiet: bool,
}

/// What a run did, for the summary line and the tests.
pub struct Outcome {
    pub records: Vec<Record>,
    pub cached: usize,
    pub ran: usize,
}

/// The pws that produces a result: its version and a hash of this executable, so a rebuilt
/// binary (another RTL, another analysis) never reuses an older binary's results.
fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let exe = std::env::current_exe()
            .and_then(std::fs::read)
            .unwrap_or_default();
        format!("{} {}", env!("CARGO_PKG_VERSION"), key(&[&exe]))
    })
}

/// The cache key of a point on the compute unit `hw` ([`point_hw`]): everything its result
/// depends on, none of its names or paths.
fn point_key(launch: &Launch, p: &Point, hw: &PointHw, max_cycles: Option<u64>) -> String {
    let mut parts: Vec<Vec<u8>> = vec![version().as_bytes().to_vec()];
    for (manifest, prepared) in launch.sequence.launches.iter().zip(&launch.launches) {
        let mut manifest = manifest.clone();
        manifest.path = PathBuf::new();
        manifest.kernel = PathBuf::new();
        manifest.opencl = None;
        parts.push(prepared.source.text.clone().into_bytes());
        parts.push(prepared.kernel(p.mode).text.clone().into_bytes());
        parts.push(format!("{manifest:?}").into_bytes());
    }
    // A plain manifest's key is what it was before sequences existed: it has no repeat.
    if let Some(repeat) = &launch.sequence.repeat {
        parts.push(format!("{repeat:?}").into_bytes());
    }
    let unprovisioned;
    let hw = match hw {
        Ok(hw) => hw,
        Err(_) => {
            unprovisioned = launch.hw(p.mode, p.s);
            &unprovisioned
        }
    };
    parts.push(format!("{hw:?} {}", p.reprovisioned).into_bytes());
    parts.push(p.mode.name().as_bytes().to_vec());
    parts.push(p.s.to_le_bytes().to_vec());
    parts.push(p.compaction.as_bytes().to_vec());
    parts.push(format!("{max_cycles:?}").into_bytes());
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    key(&parts)
}

/// The compute unit a point runs on, or why it cannot be re-provisioned.
type PointHw = Result<pws_hdl::config::HwConfig, String>;

/// The compute unit point `p` runs on: its configuration with the mode's S, or the one
/// re-provisioned for the launch (an analysis of each launch: computed once per point).
fn point_hw(launch: &Launch, p: &Point) -> PointHw {
    if p.reprovisioned {
        launch.reprovisioned(p.s)
    } else {
        Ok(launch.hw(p.mode, p.s))
    }
}

/// A record of `p` without measurements.
fn blank(p: &Point, key: String) -> Record {
    Record {
        point: p.index,
        key,
        benchmark: p.kernel.benchmark.clone(),
        size: p.kernel.size.clone(),
        manifest: p.kernel.manifest.to_string_lossy().into_owned(),
        config: p.config.name.clone(),
        mode: p.mode.name().into(),
        s: p.s,
        compaction: p.compaction.clone(),
        cycles: None,
        bound: None,
        dws_lemma57: None,
        tightness: None,
        lane_utilisation: None,
        valu_passes: None,
        passes_skipped: None,
        golden_equal: None,
        unsplit_equal: None,
        expect_equal: None,
        status: "fail".into(),
        reason: String::new(),
        notes: String::new(),
        reprovisioned: None,
    }
}

/// Runs one point on the RTL beside its bound.
fn measure(
    launch: &Launch,
    p: &Point,
    hw: PointHw,
    key: String,
    max_cycles: Option<u64>,
) -> Record {
    let mut rec = blank(p, key);
    // The preparation's warnings about this point's mode only.
    let prefix = format!("{}: ", p.mode.name());
    let mut notes: Vec<String> = launch
        .notes
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .cloned()
        .collect();
    let hw = match hw {
        Ok(hw) => hw,
        Err(e) => {
            rec.reason = format!("cannot re-provision the compute unit: {e}");
            return rec;
        }
    };
    if p.reprovisioned {
        rec.reprovisioned = Some(format!(
            "{} SIMDs x S = {}",
            hw.simds_per_cu, hw.spsimds_per_simd
        ));
    }
    let bound = match launch.bound(p.mode, &hw) {
        Ok(b) => Some(b),
        Err(e) => {
            notes.push(format!("no WCET bound: {e}"));
            None
        }
    };
    if p.mode == Mode::Dws && bound.is_some() {
        rec.dws_lemma57 = launch.dws_lemma57_bound(&hw).ok();
    }
    rec.notes = notes.join("; ");
    let swizzle = compaction(&p.compaction).expect("the sweep checked its compactions");
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        launch
            .measure_on(
                hw,
                p.mode,
                &[(p.compaction.clone(), swizzle)],
                bound,
                max_cycles,
            )
            .map_err(|e| e.to_string())
    }))
    .unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("panic: {what}"))
    });
    match run {
        Ok(rows) => {
            let row = &rows[0];
            rec.cycles = Some(row.cycles);
            rec.bound = row.bound;
            rec.tightness = row.tightness;
            rec.lane_utilisation = Some(row.lane_utilisation);
            rec.valu_passes = Some(row.valu_passes);
            rec.passes_skipped = Some(row.passes_skipped);
            rec.golden_equal = Some(row.golden_equal);
            rec.unsplit_equal = Some(row.unsplit_equal);
            rec.expect_equal = row.expect_equal;
            match row.failure() {
                Some(why) => rec.reason = why,
                None => rec.status = "ok".into(),
            }
        }
        Err(e) => rec.reason = e,
    }
    rec
}

/// Runs `points` of `sweep` (all of them, or the one `--point` names), taking finished points
/// from `cache`.
pub fn run(
    sweep: &Sweep,
    points: &[Point],
    cache: &Cache,
    opts: &Options,
) -> Result<Outcome, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| {
        // Each launch once: the programs and the golden model's unsplit run serve every point.
        let mut wanted: Vec<(PathBuf, String)> = points
            .iter()
            .map(|p| (p.kernel.manifest.clone(), p.config.spec.clone()))
            .collect();
        wanted.sort();
        wanted.dedup();
        let launches: HashMap<(PathBuf, String), Result<Launch, String>> = wanted
            .into_par_iter()
            .map(|(manifest, config)| {
                // The default compute unit grows to the kernel's registers, as in `pws run`
                // without `--config`; any other configuration is taken as it is.
                let given = (config != "cu").then(|| config.clone());
                let launch = Launch::prepare(&manifest, &given, sweep.split)
                    .map_err(|e| format!("cannot prepare the launch: {e}"));
                ((manifest, config), launch)
            })
            .collect();
        let launch_of = |p: &Point| &launches[&(p.kernel.manifest.clone(), p.config.spec.clone())];

        let mut records: Vec<Option<Record>> = vec![None; points.len()];
        let mut todo = Vec::new();
        for (i, p) in points.iter().enumerate() {
            match launch_of(p) {
                Err(e) => {
                    let mut rec = blank(p, String::new());
                    rec.reason = e.clone();
                    records[i] = Some(rec);
                }
                Ok(launch) => {
                    let hw = point_hw(launch, p);
                    let k = point_key(launch, p, &hw, sweep.max_cycles);
                    match cache.get(&k) {
                        // Names and positions come from this sweep; the numbers from the cache.
                        Some(old) => {
                            let fresh = blank(p, k);
                            records[i] = Some(Record {
                                point: fresh.point,
                                benchmark: fresh.benchmark,
                                size: fresh.size,
                                manifest: fresh.manifest,
                                config: fresh.config,
                                ..old.clone()
                            });
                        }
                        None => todo.push((i, hw, k)),
                    }
                }
            }
        }
        let cached = points.len()
            - todo.len()
            - records
                .iter()
                .filter(|r| r.as_ref().is_some_and(|r| r.key.is_empty()))
                .count();
        let bar = if opts.quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::with_draw_target(
                Some(todo.len() as u64),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} points ({eta} left) {msg}",
                )
                .expect("the template is valid")
                .progress_chars("=> "),
            );
            bar
        };
        let done: Vec<(usize, Record)> = todo
            .into_par_iter()
            .map(|(i, hw, k)| {
                let p = &points[i];
                let launch = launch_of(p)
                    .as_ref()
                    .expect("only prepared launches are run");
                let rec = measure(launch, p, hw, k, sweep.max_cycles);
                bar.set_message(format!(
                    "{} {} S={} {}",
                    p.kernel.benchmark,
                    p.mode.name(),
                    p.s,
                    p.compaction
                ));
                bar.inc(1);
                cache.put(&rec).map(|()| (i, rec))
            })
            .collect::<Result<_, String>>()?;
        bar.finish_and_clear();
        let ran = done.len();
        for (i, rec) in done {
            records[i] = Some(rec);
        }
        Ok(Outcome {
            records: records
                .into_iter()
                .map(|r| r.expect("every point has a record"))
                .collect(),
            cached,
            ran,
        })
    })
}
