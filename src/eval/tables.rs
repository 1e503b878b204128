//! The figures and tables of the papers computed from a sweep's records: speedup over
//! no-split (\[P\] Figure 11), observed against analytical WCET per mode and S (\[P\] Table 3),
//! the WCET reduction of PWS against DWS over S and, on the synthetic benchmark, against
//! divergence and memory share (\[P\] Figure 10), and the EU-cycle reduction of BCC/SCC with
//! lane utilisation (the BCC/SCC paper). Each is a list the plots draw and a markdown table; a
//! sweep without the runs a table needs leaves it out and says so.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::results::Record;
use super::synthetic::{knobs, Knobs};

/// Where the runs of one benchmark are: its label (benchmark, size when it has one, config
/// when the sweep has several) in first-seen order.
pub struct Data<'a> {
    pub labels: Vec<String>,
    runs: BTreeMap<(String, String, usize, String), &'a Record>,
    /// The S values of the split modes, ascending.
    pub s: Vec<usize>,
    pub compactions: Vec<String>,
}

/// The benchmark a record belongs to, as tables and plots name it.
fn label(r: &Record, several_configs: bool) -> String {
    let mut l = r.benchmark.clone();
    if r.size != "-" {
        let _ = write!(l, " ({})", r.size);
    }
    if several_configs {
        let _ = write!(l, " @{}", r.config);
    }
    l
}

impl<'a> Data<'a> {
    /// Indexes the records that passed (a failed point has no number to compare).
    pub fn new(records: &'a [Record]) -> Data<'a> {
        let configs: BTreeSet<&str> = records.iter().map(|r| r.config.as_str()).collect();
        let mut labels = Vec::new();
        let mut runs = BTreeMap::new();
        let mut s = BTreeSet::new();
        let mut compactions = Vec::new();
        // A re-provisioned run shares its point's mode and S; only Figure 12 compares it.
        for r in records
            .iter()
            .filter(|r| !r.failed() && r.cycles.is_some() && r.reprovisioned.is_none())
        {
            let l = label(r, configs.len() > 1);
            if !labels.contains(&l) {
                labels.push(l.clone());
            }
            if r.mode != "nosplit" {
                s.insert(r.s);
            }
            if !compactions.contains(&r.compaction) {
                compactions.push(r.compaction.clone());
            }
            runs.insert((l, r.mode.clone(), r.s, r.compaction.clone()), r);
        }
        Data {
            labels,
            runs,
            s: s.into_iter().collect(),
            compactions,
        }
    }

    /// The run of `label` in `mode` with `s` (ignored for no-split) and `compaction`.
    pub fn get(&self, label: &str, mode: &str, s: usize, compaction: &str) -> Option<&'a Record> {
        let s = if mode == "nosplit" { 0 } else { s };
        self.runs
            .get(&(
                label.to_string(),
                mode.to_string(),
                s,
                compaction.to_string(),
            ))
            .copied()
    }

    /// The compaction Table 3 and Figure 11 use: none when the sweep ran it.
    pub fn plain(&self) -> Option<&str> {
        self.compactions
            .iter()
            .find(|c| *c == "none")
            .or(self.compactions.first())
            .map(String::as_str)
    }
}

/// One series of a bar chart: a name and a value per label (None: not run or failed).
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

impl Series {
    /// Sets value `i` of the series `name` in `series`, adding the series (with `labels`
    /// empty values) when it is not there yet.
    pub fn set(series: &mut Vec<Series>, name: String, labels: usize, i: usize, value: f64) {
        let at = match series.iter().position(|s| s.name == name) {
            Some(at) => at,
            None => {
                series.push(Series {
                    name,
                    values: vec![None; labels],
                });
                series.len() - 1
            }
        };
        series[at].values[i] = Some(value);
    }
}

/// Speedup of every split or compacted run over no-split without compaction (cycles of
/// no-split / cycles of the run), one series per mode, S and compaction.
pub fn speedups(d: &Data) -> Vec<Series> {
    let mut out = Vec::new();
    for mode in ["nosplit", "dws", "pws"] {
        let s_list = if mode == "nosplit" {
            vec![0]
        } else {
            d.s.clone()
        };
        for &s in &s_list {
            for c in &d.compactions {
                if mode == "nosplit" && c == "none" {
                    continue;
                }
                let values: Vec<Option<f64>> = d
                    .labels
                    .iter()
                    .map(|l| {
                        let base = d.get(l, "nosplit", 0, "none")?.cycles?;
                        let run = d.get(l, mode, s, c)?.cycles?;
                        Some(base as f64 / run.max(1) as f64)
                    })
                    .collect();
                if values.iter().any(Option::is_some) {
                    out.push(Series {
                        name: series_name(mode, s, c),
                        values,
                    });
                }
            }
        }
    }
    out
}

fn series_name(mode: &str, s: usize, compaction: &str) -> String {
    let mut n = mode.to_string();
    if mode != "nosplit" {
        let _ = write!(n, " S={s}");
    }
    if compaction != "none" {
        let _ = write!(n, " +{compaction}");
    }
    n
}

/// The geometric mean of the values present.
pub fn geomean(values: &[Option<f64>]) -> Option<f64> {
    let v: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|x| *x > 0.0)
        .collect();
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// The arithmetic mean of the values present.
pub fn mean(values: &[Option<f64>]) -> Option<f64> {
    let v: Vec<f64> = values.iter().flatten().copied().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// One row of Figure 12: a PWS run on its compute unit as configured beside the run on the
/// unit re-provisioned for the kernel.
pub struct ReprovisionRow {
    pub label: String,
    pub s: usize,
    pub compaction: String,
    /// The re-provisioned unit (`N SIMDs x S = c`).
    pub machine: String,
    /// (cycles, bound) with the idle SpSIMDs, and re-provisioned.
    pub idle: (u64, Option<u64>),
    pub reprovisioned: (u64, Option<u64>),
}

impl ReprovisionRow {
    /// Performance gained by re-provisioning: idle cycles / re-provisioned cycles - 1.
    pub fn gain(&self) -> f64 {
        self.idle.0 as f64 / self.reprovisioned.0.max(1) as f64 - 1.0
    }

    /// 1 - re-provisioned bound / idle bound.
    pub fn bound_reduction(&self) -> Option<f64> {
        below(self.reprovisioned.1, self.idle.1)
    }
}

/// Figure 12 ([P]): every passing re-provisioned run beside its point's run on the
/// configured compute unit, in the records' order.
pub fn reprovision(records: &[Record]) -> Vec<ReprovisionRow> {
    let configs: BTreeSet<&str> = records.iter().map(|r| r.config.as_str()).collect();
    let passed = |r: &&Record| !r.failed() && r.cycles.is_some();
    records
        .iter()
        .filter(passed)
        .filter_map(|re| {
            let machine = re.reprovisioned.clone()?;
            let idle = records.iter().filter(passed).find(|r| {
                r.reprovisioned.is_none()
                    && (
                        &r.benchmark,
                        &r.size,
                        &r.config,
                        &r.mode,
                        r.s,
                        &r.compaction,
                    ) == (
                        &re.benchmark,
                        &re.size,
                        &re.config,
                        &re.mode,
                        re.s,
                        &re.compaction,
                    )
            })?;
            Some(ReprovisionRow {
                label: label(re, configs.len() > 1),
                s: re.s,
                compaction: re.compaction.clone(),
                machine,
                idle: (idle.cycles?, idle.bound),
                reprovisioned: (re.cycles?, re.bound),
            })
        })
        .collect()
}

/// Figure 12 as a markdown table.
pub fn reprovision_markdown(rows: &[ReprovisionRow]) -> String {
    let mut out = String::from(
        "PWS on the compute unit as configured (its idle SpSIMDs unused) and with the SpSIMDs no wavefront can use re-provisioned as SIMDs ([P] Eq 2).\n\n| benchmark | S | compaction | re-provisioned unit | cycles idle | cycles re-provisioned | performance gained | bound idle | bound re-provisioned | bound reduction |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.label,
            r.s,
            r.compaction,
            r.machine,
            r.idle.0,
            r.reprovisioned.0,
            pct(Some(r.gain())),
            num(r.idle.1),
            num(r.reprovisioned.1),
            pct(r.bound_reduction())
        );
    }
    out
}

/// One row of Table 3: a benchmark at one S, observed (RTL) and analytical (WCET bound)
/// cycles per mode.
pub struct Table3Row {
    pub label: String,
    pub s: usize,
    /// (observed, analytical) for no-split, DWS and PWS.
    pub cells: [(Option<u64>, Option<u64>); 3],
    /// DWS analytical by [P]'s Lemma 5.7, the bound the paper's Table 3 compares PWS with.
    pub dws_lemma57: Option<u64>,
}

/// 1 - `bound` / `base`: how far a bound lies below another, as a fraction.
fn below(bound: Option<u64>, base: Option<u64>) -> Option<f64> {
    let (bound, base) = (bound?, base?);
    (base > 0).then(|| 1.0 - bound as f64 / base as f64)
}

impl Table3Row {
    /// 1 - PWS bound / DWS bound: the paper's last column, against the serialized DWS bound.
    pub fn pws_vs_dws(&self) -> Option<f64> {
        below(self.cells[2].1, self.cells[1].1)
    }

    /// 1 - PWS bound / DWS bound of Lemma 5.7: the paper's last column with its DWS analysis.
    pub fn pws_vs_dws_lemma57(&self) -> Option<f64> {
        below(self.cells[2].1, self.dws_lemma57)
    }
}

pub fn table3(d: &Data) -> Vec<Table3Row> {
    let Some(c) = d.plain() else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for l in &d.labels {
        for &s in &d.s {
            let cell = |mode: &str| {
                d.get(l, mode, s, c)
                    .map_or((None, None), |r| (r.cycles, r.bound))
            };
            let row = Table3Row {
                label: l.clone(),
                s,
                cells: [cell("nosplit"), cell("dws"), cell("pws")],
                dws_lemma57: d.get(l, "dws", s, c).and_then(|r| r.dws_lemma57),
            };
            if row.cells[1..].iter().any(|c| c.0.is_some()) {
                rows.push(row);
            }
        }
    }
    rows
}

/// One point of Figure 10: a synthetic benchmark ([`super::synthetic`]) at one S.
pub struct Figure10Row {
    pub knobs: Knobs,
    pub s: usize,
    /// Analytical WCET of no-split, DWS and PWS; PWS's observed cycles.
    pub bounds: [Option<u64>; 3],
    pub pws_observed: Option<u64>,
}

impl Figure10Row {
    /// 1 - PWS bound / no-split bound: the paper's Figure 10 axis.
    pub fn pws_vs_nosplit(&self) -> Option<f64> {
        below(self.bounds[2], self.bounds[0])
    }

    /// 1 - PWS bound / DWS bound.
    pub fn pws_vs_dws(&self) -> Option<f64> {
        below(self.bounds[2], self.bounds[1])
    }
}

/// The synthetic benchmarks of Table 3's rows, with their knobs, sorted by knobs and S.
pub fn figure10(t3: &[Table3Row]) -> Vec<Figure10Row> {
    let mut rows: Vec<Figure10Row> = t3
        .iter()
        .filter_map(|r| {
            // A label is the benchmark, then " (size)" or " @config" when the sweep has them.
            let benchmark = r.label.split_whitespace().next()?;
            Some(Figure10Row {
                knobs: knobs(benchmark)?,
                s: r.s,
                bounds: [r.cells[0].1, r.cells[1].1, r.cells[2].1],
                pws_observed: r.cells[2].0,
            })
        })
        .collect();
    rows.sort_by_key(|r| (r.knobs, r.s));
    rows
}

/// Figure 10 as markdown.
pub fn figure10_markdown(rows: &[Figure10Row]) -> String {
    let mut out = String::from(
        "| divergent | memory (of divergent) | split levels | S | no-split analytical | DWS analytical | PWS analytical | PWS observed | PWS below no-split | PWS below DWS |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {}% | {}% | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.knobs.divergent,
            r.knobs.memory,
            r.knobs.split_levels,
            r.s,
            num(r.bounds[0]),
            num(r.bounds[1]),
            num(r.bounds[2]),
            num(r.pws_observed),
            pct(r.pws_vs_nosplit()),
            pct(r.pws_vs_dws())
        );
    }
    out
}

/// EU-cycle (VALU pass) and cycle reduction of a compaction against none, same benchmark,
/// mode and S.
pub struct CompactionRow {
    pub label: String,
    pub mode: String,
    pub s: usize,
    pub compaction: String,
    pub eu_reduction: f64,
    pub cycle_reduction: f64,
    /// Lane utilisation without and with the compaction.
    pub utilisation: (f64, f64),
}

pub fn compaction(d: &Data) -> Vec<CompactionRow> {
    let mut rows = Vec::new();
    for l in &d.labels {
        for mode in ["nosplit", "dws", "pws"] {
            let s_list = if mode == "nosplit" {
                vec![0]
            } else {
                d.s.clone()
            };
            for s in s_list {
                let Some(none) = d.get(l, mode, s, "none") else {
                    continue;
                };
                for c in d.compactions.iter().filter(|c| *c != "none") {
                    let Some(r) = d.get(l, mode, s, c) else {
                        continue;
                    };
                    let reduction = |a: Option<u64>, b: Option<u64>| match (a, b) {
                        (Some(a), Some(b)) if a > 0 => 1.0 - b as f64 / a as f64,
                        _ => 0.0,
                    };
                    rows.push(CompactionRow {
                        label: l.clone(),
                        mode: mode.into(),
                        s,
                        compaction: c.clone(),
                        eu_reduction: reduction(none.valu_passes, r.valu_passes),
                        cycle_reduction: reduction(none.cycles, r.cycles),
                        utilisation: (
                            none.lane_utilisation.unwrap_or(0.0),
                            r.lane_utilisation.unwrap_or(0.0),
                        ),
                    });
                }
            }
        }
    }
    rows
}

fn num(v: Option<u64>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
}

/// Table 3 as markdown.
pub fn table3_markdown(rows: &[Table3Row], compaction: &str) -> String {
    let mut out = format!(
        "RTL cycles observed beside the analytical WCET bound (`pws wcet`), compaction {compaction}. \
         DWS analytical is the serialized bound (each split wavefront's work charged once, the one \
         the runs are checked against); Lemma 5.7 is [P]'s DWS bound (every step charged S + 1 \
         times, `pws wcet --dws-bound lemma-5.7`), the analysis the paper's Table 3 compares PWS with.\n\n\
         | benchmark | S | no-split observed | no-split analytical | DWS observed | DWS analytical | DWS Lemma 5.7 | PWS observed | PWS analytical | PWS analytical below DWS | below DWS Lemma 5.7 |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        let [n, d, p] = r.cells;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.label,
            r.s,
            num(n.0),
            num(n.1),
            num(d.0),
            num(d.1),
            num(r.dws_lemma57),
            num(p.0),
            num(p.1),
            pct(r.pws_vs_dws()),
            pct(r.pws_vs_dws_lemma57())
        );
    }
    out
}

/// Every table as one markdown page: speedup, Table 3, Figure 10, re-provisioning,
/// compaction, and `notes` (what could not be drawn or computed, failures).
pub fn markdown(d: &Data, reprovisioned: &[ReprovisionRow], notes: &[String]) -> String {
    let mut out = String::from("# pws eval: tables\n\n");
    let speed = speedups(d);
    out.push_str("## Speedup over no-split without compaction (Figure 11)\n\n");
    if speed.is_empty() {
        out.push_str("(the sweep has no no-split run without compaction beside another run)\n\n");
    } else {
        out.push_str("Cycles of no-split / cycles of the run; > 1 is faster.\n\n| benchmark |");
        for s in &speed {
            let _ = write!(out, " {} |", s.name);
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(speed.len()));
        out.push('\n');
        let x = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.3}"));
        for (i, l) in d.labels.iter().enumerate() {
            let _ = write!(out, "| {l} |");
            for s in &speed {
                let _ = write!(out, " {} |", x(s.values[i]));
            }
            out.push('\n');
        }
        for (name, f) in [
            ("geomean", geomean as fn(&[Option<f64>]) -> Option<f64>),
            ("mean", mean),
        ] {
            let _ = write!(out, "| **{name}** |");
            for s in &speed {
                let _ = write!(out, " **{}** |", x(f(&s.values)));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str("## Observed and analytical WCET (Table 3)\n\n");
    let t3 = table3(d);
    if t3.is_empty() {
        out.push_str("(the sweep has no DWS or PWS run)\n\n");
    } else {
        out.push_str(&table3_markdown(&t3, d.plain().unwrap_or("none")));
        out.push('\n');
    }
    let f10 = figure10(&t3);
    if !f10.is_empty() {
        out.push_str("## WCET against divergence and memory share (Figure 10)\n\n");
        out.push_str(&figure10_markdown(&f10));
        out.push('\n');
    }
    if !reprovisioned.is_empty() {
        out.push_str("## SpSIMD re-provisioning (Figure 12)\n\n");
        out.push_str(&reprovision_markdown(reprovisioned));
        out.push('\n');
    }
    out.push_str("## BCC/SCC: EU-cycle reduction against no compaction\n\n");
    let comp = compaction(d);
    if comp.is_empty() {
        out.push_str("(the sweep has no compaction beside none)\n\n");
    } else {
        out.push_str("EU cycles are VALU passes issued.\n\n| benchmark | mode | S | compaction | EU-cycle reduction | cycle reduction | lane utilisation (none -> compaction) |\n|---|---|---|---|---|---|---|\n");
        for r in &comp {
            let s = if r.mode == "nosplit" {
                "-".into()
            } else {
                r.s.to_string()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {s} | {} | {} | {} | {:.1}% -> {:.1}% |",
                r.label,
                r.mode,
                r.compaction,
                pct(Some(r.eu_reduction)),
                pct(Some(r.cycle_reduction)),
                100.0 * r.utilisation.0,
                100.0 * r.utilisation.1
            );
        }
        let mut groups: BTreeMap<(String, usize, String), Vec<Option<f64>>> = BTreeMap::new();
        for r in &comp {
            groups
                .entry((r.mode.clone(), r.s, r.compaction.clone()))
                .or_default()
                .push(Some(r.eu_reduction));
        }
        out.push_str(
            "\n| mode | S | compaction | mean EU-cycle reduction | max |\n|---|---|---|---|---|\n",
        );
        for ((mode, s, c), v) in &groups {
            let max = v
                .iter()
                .flatten()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            let s = if mode == "nosplit" {
                "-".into()
            } else {
                s.to_string()
            };
            let _ = writeln!(
                out,
                "| {mode} | {s} | {c} | {} | {} |",
                pct(mean(v)),
                pct(Some(max))
            );
        }
        out.push('\n');
    }
    if !notes.is_empty() {
        out.push_str("## Notes\n\n");
        for n in notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(
        benchmark: &str,
        mode: &str,
        s: usize,
        compaction: &str,
        cycles: u64,
        bound: u64,
    ) -> Record {
        Record {
            point: 0,
            key: String::new(),
            benchmark: benchmark.into(),
            size: "-".into(),
            manifest: String::new(),
            config: "cu".into(),
            mode: mode.into(),
            s,
            compaction: compaction.into(),
            cycles: Some(cycles),
            bound: Some(bound),
            dws_lemma57: (mode == "dws").then_some(2 * bound),
            tightness: None,
            lane_utilisation: Some(0.5),
            valu_passes: Some(cycles / 2),
            passes_skipped: Some(0),
            golden_equal: Some(true),
            unsplit_equal: Some(true),
            expect_equal: None,
            status: "ok".into(),
            reason: String::new(),
            notes: String::new(),
            reprovisioned: None,
        }
    }

    #[test]
    fn speedup_table3_and_compaction_from_records() {
        let records = vec![
            rec("a", "nosplit", 0, "none", 200, 300),
            rec("a", "dws", 1, "none", 210, 400),
            rec("a", "pws", 1, "none", 100, 200),
            rec("a", "pws", 1, "scc", 80, 200),
            rec("b", "nosplit", 0, "none", 100, 100),
            rec("b", "pws", 1, "none", 100, 150),
        ];
        let d = Data::new(&records);
        let sp = speedups(&d);
        let pws = sp.iter().find(|s| s.name == "pws S=1").unwrap();
        assert_eq!(pws.values, [Some(2.0), Some(1.0)]);
        assert!((geomean(&pws.values).unwrap() - 2f64.sqrt()).abs() < 1e-12);
        let t3 = table3(&d);
        assert_eq!(t3[0].cells[2], (Some(100), Some(200)));
        assert_eq!(t3[0].pws_vs_dws(), Some(0.5));
        assert_eq!(t3[0].dws_lemma57, Some(800));
        assert_eq!(t3[0].pws_vs_dws_lemma57(), Some(0.75));
        let c = compaction(&d);
        assert_eq!(c.len(), 1);
        assert!((c[0].eu_reduction - 0.2).abs() < 1e-12);
        let md = markdown(&d, &[], &[]);
        assert!(
            md.contains("| a | 1 | 200 | 300 | 210 | 400 | 800 | 100 | 200 | 50.0% | 75.0% |"),
            "{md}"
        );
    }

    #[test]
    fn figure10_reads_the_knobs_of_the_synthetic_benchmarks() {
        let records = vec![
            rec("syn-d100-m0-L1", "nosplit", 0, "none", 390, 400),
            rec("syn-d100-m0-L1", "dws", 1, "none", 300, 500),
            rec("syn-d100-m0-L1", "pws", 1, "none", 190, 200),
            rec("syn-d25-m50-L1", "nosplit", 0, "none", 390, 400),
            rec("syn-d25-m50-L1", "pws", 1, "none", 290, 300),
            rec("bfs", "pws", 1, "none", 100, 200),
        ];
        let d = Data::new(&records);
        let f = figure10(&table3(&d));
        assert_eq!(f.len(), 2);
        // Sorted by knobs: 25% divergent first.
        assert_eq!(f[0].knobs.divergent, 25);
        assert_eq!(f[0].pws_vs_nosplit(), Some(0.25));
        assert_eq!(f[0].pws_vs_dws(), None);
        assert_eq!(f[1].pws_vs_nosplit(), Some(0.5));
        assert_eq!(f[1].pws_vs_dws(), Some(0.6));
        let md = markdown(&d, &[], &[]);
        assert!(
            md.contains("| 100% | 0% | 1 | 1 | 400 | 500 | 200 | 190 | 50.0% | 60.0% |"),
            "{md}"
        );
    }

    #[test]
    fn figure12_pairs_each_reprovisioned_run_with_its_idle_twin() {
        let mut twin = rec("syn", "pws", 3, "none", 50, 120);
        twin.reprovisioned = Some("8 SIMDs x S = 0".into());
        let mut failed = rec("other", "pws", 3, "none", 10, 10);
        failed.reprovisioned = Some("4 SIMDs x S = 1".into());
        failed.status = "fail".into();
        let records = vec![
            rec("syn", "pws", 3, "none", 100, 200),
            twin,
            rec("other", "pws", 3, "none", 40, 80),
            failed,
        ];
        // The twin shares its point's mode and S, so the other tables must not see it.
        let d = Data::new(&records);
        assert_eq!(d.get("syn", "pws", 3, "none").unwrap().cycles, Some(100));
        let rows = reprovision(&records);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].idle, rows[0].reprovisioned),
            ((100, Some(200)), (50, Some(120)))
        );
        assert!((rows[0].gain() - 1.0).abs() < 1e-12);
        assert_eq!(rows[0].bound_reduction(), Some(0.4));
        let md = markdown(&d, &rows, &[]);
        assert!(
            md.contains(
                "| syn | 3 | none | 8 SIMDs x S = 0 | 100 | 50 | 100.0% | 200 | 120 | 40.0% |"
            ),
            "{md}"
        );
    }

    #[test]
    fn a_sweep_without_nosplit_has_no_speedup() {
        let records = vec![rec("a", "pws", 1, "none", 100, 200)];
        let d = Data::new(&records);
        assert!(speedups(&d).is_empty());
        assert!(markdown(&d, &[], &[]).contains("has no no-split run"));
    }
}
