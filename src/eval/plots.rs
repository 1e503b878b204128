//! The SVG figures of a sweep, drawn with plotters' SVG backend: text is written as SVG
//! `<text>` and laid out with plotters' built-in estimate, so no font file or font library is
//! needed on the machine. Each function draws one figure from the lists of `tables`; a figure
//! whose data the sweep lacks is not written, and the caller notes why.

use std::path::Path;

use plotters::prelude::*;

use super::tables::{self, Data, Series};

type Plot = Result<(), String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

fn color(i: usize) -> RGBColor {
    let (r, g, b) = Palette99::pick(i).rgb();
    RGBColor(r, g, b)
}

/// A grouped bar chart: one group per label, one bar per series, an optional horizontal
/// reference line (1.0 for speedups) and a legend.
pub fn bars(
    path: &Path,
    title: &str,
    y_desc: &str,
    labels: &[String],
    series: &[Series],
    reference: Option<f64>,
) -> Plot {
    let values = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied());
    let (lo, hi) = values
        .chain(reference)
        .fold((0f64, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.12).max(0.05);
    let (lo, hi) = (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad);
    let groups = labels.len();
    let width = (200 + groups * (series.len() * 16 + 40)).clamp(720, 4000) as u32;
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(70)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..groups as f64, lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|_| String::new())
        .y_desc(y_desc)
        .draw()
        .map_err(err)?;
    let w = 0.8 / series.len().max(1) as f64;
    for (j, s) in series.iter().enumerate() {
        let c = color(j);
        chart
            .draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
                let x = i as f64 + 0.1 + j as f64 * w;
                v.map(|v| Rectangle::new([(x, 0.0), (x + w, v)], c.filled()))
            }))
            .map_err(err)?
            .label(s.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    if let Some(r) = reference {
        chart
            .draw_series(LineSeries::new(
                [(0.0, r), (groups as f64, r)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
    }
    // Group names under the axis, staggered over two rows so long names do not overlap.
    for (i, l) in labels.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, lo));
        let style = ("sans-serif", 13).into_font().color(&BLACK).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ),
        );
        root.draw(&Text::new(
            l.clone(),
            (x, y + 8 + 18 * (i as i32 % 2)),
            style,
        ))
        .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Figure 11: speedup over no-split, with geomean bars.
pub fn speedup(path: &Path, d: &Data, series: &[Series]) -> Plot {
    let mut labels = d.labels.clone();
    labels.push("geomean".into());
    let with_mean: Vec<Series> = series
        .iter()
        .map(|s| {
            let mut values = s.values.clone();
            values.push(tables::geomean(&s.values));
            Series {
                name: s.name.clone(),
                values,
            }
        })
        .collect();
    bars(
        path,
        "Speedup over no-split (RTL cycles)",
        "no-split cycles / cycles",
        &labels,
        &with_mean,
        Some(1.0),
    )
}

/// Table 3 as a figure: every run's RTL cycles against its WCET bound, log-log, one colour
/// per mode; the diagonal is bound = observed, and every point must lie on or above it.
pub fn observed_vs_bound(path: &Path, runs: &[(String, u64, u64)]) -> Plot {
    let lo = runs.iter().map(|r| r.1.min(r.2)).min().unwrap_or(1).max(1) as f64 / 1.5;
    let hi = runs.iter().map(|r| r.1.max(r.2)).max().unwrap_or(10) as f64 * 1.5;
    let root = SVGBackend::new(path, (720, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Observed RTL cycles vs analytical WCET bound",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("observed cycles (RTL)")
        .y_desc("WCET bound (cycles)")
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.stroke_width(1)))
        .map_err(err)?
        .label("bound = observed")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 12, y)], BLACK));
    for (j, mode) in ["nosplit", "dws", "pws"].iter().enumerate() {
        let c = color(j);
        let points: Vec<_> = runs.iter().filter(|r| r.0 == *mode).collect();
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(
                points
                    .iter()
                    .map(|r| Circle::new((r.1 as f64, r.2 as f64), 4, c.filled())),
            )
            .map_err(err)?
            .label(*mode)
            .legend(move |(x, y)| Circle::new((x + 6, y), 4, c.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// How far the PWS bound lies below the DWS bound, against S, one line per benchmark
/// (`lines` holds fractions).
pub fn wcet_reduction(path: &Path, lines: &[(String, Vec<(usize, f64)>)]) -> Plot {
    let pct: Vec<(String, Vec<(f64, f64)>)> = lines
        .iter()
        .map(|(n, p)| {
            (
                n.clone(),
                p.iter().map(|&(s, v)| (s as f64, 100.0 * v)).collect(),
            )
        })
        .collect();
    line_chart(
        path,
        "PWS WCET bound below DWS, against S",
        "S (SpSIMDs per SIMD)",
        "1 - PWS bound / DWS bound (%)",
        &pct,
    )
}

/// A line chart from x = 0: one line per named list of (x, y) points, with a legend.
pub fn line_chart(
    path: &Path,
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[(String, Vec<(f64, f64)>)],
) -> Plot {
    let x_max = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.0))
        .fold(1f64, f64::max);
    let ys = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((0f64, 100f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let root = SVGBackend::new(path, (760, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..x_max * 1.05 + 1.0, lo - 5.0..hi + 5.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()
        .map_err(err)?;
    for (j, (name, points)) in lines.iter().enumerate() {
        let c = color(j);
        chart
            .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 12, y)], c.stroke_width(2)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_svg_with_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let labels = vec!["bfs".to_string(), "nw & co".to_string()];
        let series = vec![Series {
            name: "pws S=1".into(),
            values: vec![Some(1.2), None],
        }];
        let p = dir.path().join("bars.svg");
        bars(&p, "t", "y", &labels, &series, Some(1.0)).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("bfs") && svg.contains("pws S=1"),
            "{svg}"
        );
        let p = dir.path().join("scatter.svg");
        observed_vs_bound(&p, &[("pws".into(), 100, 150), ("dws".into(), 120, 300)]).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().contains("<circle"));
        let p = dir.path().join("lines.svg");
        wcet_reduction(&p, &[("a".into(), vec![(1, 0.5), (3, 0.75)])]).unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().contains("<polyline"));
    }
}
