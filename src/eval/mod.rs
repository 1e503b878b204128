//! `pws eval`: the papers' evaluation as a sweep (docs/evaluation.md). A sweep file names
//! kernels, modes, S, compactions and configurations; every point of their cross product is
//! one RTL run measured as `pws compare` measures a row (`cmd::measure`), beside the WCET
//! bound of `pws wcet`. Points run in parallel (rayon), finished points are cached so an
//! interrupted sweep resumes, and the results become CSV/JSON, markdown tables and SVG
//! figures. For clusters, `jobs` writes one command per point and merges the shards.

pub mod jobs;
pub mod plots;
pub mod results;
pub mod run;
pub mod sweep;
pub mod synthetic;
pub mod tables;

use std::path::Path;

use results::{Record, SweepInfo};
use tables::{Data, Series};

/// Writes everything a sweep's records give into `dir`: results.csv/json, sweep.json,
/// tables.md, table3.md and the SVG figures. Returns the markdown of tables.md. `notes` are
/// added to it, with a line per failed point and per figure the sweep lacks data for.
pub fn report(
    dir: &Path,
    info: &SweepInfo,
    records: &[Record],
    mut notes: Vec<String>,
) -> Result<String, String> {
    results::write(dir, info, records)?;
    for r in records.iter().filter(|r| r.failed()) {
        notes.push(format!(
            "point {} ({} {} S={} {} on {}) failed: {}",
            r.point, r.benchmark, r.mode, r.s, r.compaction, r.config, r.reason
        ));
    }
    let d = Data::new(records);
    let mut figure =
        |name: &str, why_not: Option<&str>, draw: &dyn Fn(&Path) -> Result<(), String>| {
            let path = dir.join(name);
            match why_not {
                Some(why) => {
                    // A figure of an earlier sweep in this directory would not belong to this one.
                    let _ = std::fs::remove_file(&path);
                    notes.push(format!("{name} not drawn: {why}"));
                    Ok(())
                }
                None => draw(&path),
            }
        };

    let speed = tables::speedups(&d);
    figure(
        "speedup.svg",
        speed
            .is_empty()
            .then_some("the sweep has no no-split run without compaction beside another run"),
        &|p| plots::speedup(p, &d, &speed),
    )?;

    let bounded: Vec<(String, u64, u64)> = records
        .iter()
        .filter(|r| !r.failed())
        .filter_map(|r| Some((r.mode.clone(), r.cycles?, r.bound?)))
        .collect();
    figure(
        "observed_vs_bound.svg",
        bounded.is_empty().then_some("no run has a WCET bound"),
        &|p| plots::observed_vs_bound(p, &bounded),
    )?;

    let t3 = tables::table3(&d);
    let mut lines: Vec<(String, Vec<(usize, f64)>)> = Vec::new();
    for row in &t3 {
        let against = [
            (row.label.clone(), row.pws_vs_dws()),
            (
                format!("{} (DWS by Lemma 5.7)", row.label),
                row.pws_vs_dws_lemma57(),
            ),
        ];
        for (name, v) in against {
            let Some(v) = v else { continue };
            match lines.iter_mut().find(|l| l.0 == name) {
                Some(l) => l.1.push((row.s, v)),
                None => lines.push((name, vec![(row.s, v)])),
            }
        }
    }
    figure(
        "wcet_reduction.svg",
        lines
            .is_empty()
            .then_some("no benchmark has both a DWS and a PWS bound"),
        &|p| plots::wcet_reduction(p, &lines),
    )?;

    // Figure 10: the PWS bound below no-split's against one knob, a line per setting of the
    // others and S.
    let f10 = tables::figure10(&t3);
    type Axis = (
        &'static str,
        &'static str,
        fn(&synthetic::Knobs) -> (u32, String),
    );
    let axes: [Axis; 2] = [
        (
            "wcet_vs_divergence.svg",
            "divergent instructions (%)",
            |k| {
                (
                    k.divergent,
                    format!("memory {}% L={}", k.memory, k.split_levels),
                )
            },
        ),
        (
            "wcet_vs_memory.svg",
            "memory instructions in the divergent part (%)",
            |k| {
                (
                    k.memory,
                    format!("divergent {}% L={}", k.divergent, k.split_levels),
                )
            },
        ),
    ];
    for (file, x_desc, axis) in axes {
        // A sweep without the synthetic benchmark has no Figure 10 to miss.
        if f10.is_empty() {
            let _ = std::fs::remove_file(dir.join(file));
            continue;
        }
        let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in &f10 {
            let (Some(v), (x, rest)) = (r.pws_vs_nosplit(), axis(&r.knobs)) else {
                continue;
            };
            let name = format!("{rest} S={}", r.s);
            match lines.iter_mut().find(|l| l.0 == name) {
                Some(l) => l.1.push((f64::from(x), 100.0 * v)),
                None => lines.push((name, vec![(f64::from(x), 100.0 * v)])),
            }
        }
        lines.retain(|l| l.1.len() > 1);
        figure(
            file,
            lines.is_empty().then_some(
                "the sweep's [synthetic] table varies no such knob with no-split and PWS bounds",
            ),
            &|p| {
                plots::line_chart(
                    p,
                    "Figure 10: PWS WCET bound below no-split",
                    x_desc,
                    "1 - PWS bound / no-split bound (%)",
                    &lines,
                )
            },
        )?;
    }

    let s_min = d.s.first().copied().unwrap_or(0);
    let comp = tables::compaction(&d);
    let mut comp_series: Vec<Series> = Vec::new();
    for r in comp.iter().filter(|r| r.mode == "nosplit" || r.s == s_min) {
        let name = format!(
            "{}{} +{}",
            r.mode,
            if r.mode == "nosplit" {
                String::new()
            } else {
                format!(" S={}", r.s)
            },
            r.compaction
        );
        let i = d
            .labels
            .iter()
            .position(|l| *l == r.label)
            .expect("a row's label is indexed");
        Series::set(
            &mut comp_series,
            name,
            d.labels.len(),
            i,
            100.0 * r.eu_reduction,
        );
    }
    figure(
        "compaction.svg",
        comp_series
            .is_empty()
            .then_some("the sweep has no compaction beside none"),
        &|p| {
            plots::bars(
                p,
                "BCC/SCC: EU-cycle reduction against no compaction",
                "EU cycles saved (%)",
                &d.labels,
                &comp_series,
                None,
            )
        },
    )?;

    let mut util: Vec<Series> = Vec::new();
    for mode in ["nosplit", "dws", "pws"] {
        for c in &d.compactions {
            let values: Vec<Option<f64>> = d
                .labels
                .iter()
                .map(|l| {
                    d.get(l, mode, s_min, c)?
                        .lane_utilisation
                        .map(|u| 100.0 * u)
                })
                .collect();
            if values.iter().any(Option::is_some) {
                let s = if mode == "nosplit" {
                    String::new()
                } else {
                    format!(" S={s_min}")
                };
                util.push(Series {
                    name: format!("{mode}{s} {c}"),
                    values,
                });
            }
        }
    }
    figure(
        "lane_utilisation.svg",
        util.is_empty().then_some("no run passed"),
        &|p| {
            plots::bars(
                p,
                "Lane utilisation",
                "active lane-operations / lane slots (%)",
                &d.labels,
                &util,
                None,
            )
        },
    )?;

    // Figure 12: only a sweep with `reprovision = true` has one to draw or miss.
    let reprovisioned = tables::reprovision(records);
    if records.iter().any(|r| r.reprovisioned.is_some()) {
        let mut labels: Vec<String> = Vec::new();
        let mut series: Vec<Series> = Vec::new();
        for r in &reprovisioned {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
        for r in &reprovisioned {
            let name = format!(
                "S={}{}",
                r.s,
                if r.compaction == "none" {
                    String::new()
                } else {
                    format!(" +{}", r.compaction)
                }
            );
            let i = labels.iter().position(|l| *l == r.label).expect("indexed");
            Series::set(&mut series, name, labels.len(), i, 100.0 * r.gain());
        }
        figure(
            "reprovision.svg",
            series
                .is_empty()
                .then_some("no re-provisioned run passed beside its run on the configured unit"),
            &|p| {
                plots::bars(
                    p,
                    "Figure 12: SpSIMD re-provisioning",
                    "performance gained (%): idle cycles / re-provisioned cycles - 1",
                    &labels,
                    &series,
                    None,
                )
            },
        )?;
    } else {
        let _ = std::fs::remove_file(dir.join("reprovision.svg"));
    }

    let markdown = tables::markdown(&d, &reprovisioned, &notes);
    results::write_file(&dir.join("tables.md"), &markdown)?;
    results::write_file(
        &dir.join("table3.md"),
        &tables::table3_markdown(&t3, d.plain().unwrap_or("none")),
    )?;
    Ok(markdown)
}
