//! `pws eval` end to end on Figure 2's launch (one wavefront of 4 work-items, so each point
//! is about a second): the CSV/JSON rows, resuming from the cache, the job array and its
//! merge reproducing the single run, failing points and bad sweep files.

mod common;

use std::path::{Path, PathBuf};

use common::{command, pws};

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .to_string_lossy()
        .into_owned()
}

/// A sweep file in `dir` with `body` after the kernel list.
fn sweep(dir: &Path, name: &str, kernels: &[String], body: &str) -> PathBuf {
    let list: Vec<String> = kernels.iter().map(|k| format!("{k:?}")).collect();
    let path = dir.join(name);
    std::fs::write(&path, format!("kernels = [{}]\n{body}", list.join(", "))).unwrap();
    path
}

fn eval(args: &[&str]) -> std::process::Output {
    let mut full = vec!["eval"];
    full.extend_from_slice(args);
    pws(&full)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn records(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.json")).unwrap();
    serde_json::from_str::<serde_json::Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The four points of Figure 2: no-split and PWS S = 1, each without compaction and with SCC.
const FIGURE2: &str = "modes = [\"nosplit\", \"pws\"]\nS = [1]\ncompaction = [\"none\", \"scc\"]\n";

#[test]
fn a_sweep_writes_its_rows_resumes_and_merges_from_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let s = sweep(
        tmp.path(),
        "s.toml",
        &[repo("kernels/figure2.toml")],
        FIGURE2,
    );
    let out = tmp.path().join("out");
    let (s_arg, out_arg) = (s.to_str().unwrap(), out.to_str().unwrap());

    let first = eval(&[s_arg, "--out", out_arg, "--jobs", "2"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("4 point(s): 0 from the cache, 4 run"),
        "{}",
        text(&first.stderr)
    );
    let rows = records(&out);
    assert_eq!(rows.len(), 4);
    let got: Vec<(String, u64, String)> = rows
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "ok", "{r}");
            assert!(r["cycles"].as_u64().unwrap() <= r["bound"].as_u64().unwrap());
            (
                r["mode"].as_str().unwrap().into(),
                r["S"].as_u64().unwrap(),
                r["compaction"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("nosplit", 0, "none"),
        ("nosplit", 0, "scc"),
        ("pws", 1, "none"),
        ("pws", 1, "scc"),
    ];
    assert_eq!(got, want.map(|(m, s, c)| (m.to_string(), s, c.to_string())));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(csv.starts_with("point,benchmark,size,manifest,config,mode,S,compaction,cycles,bound"));
    for f in [
        "speedup.svg",
        "observed_vs_bound.svg",
        "compaction.svg",
        "lane_utilisation.svg",
    ] {
        assert!(
            std::fs::read_to_string(out.join(f))
                .unwrap()
                .starts_with("<svg"),
            "{f}"
        );
    }
    // One S: the PWS-vs-DWS figure lacks DWS, so it is left out with a note.
    assert!(!out.join("wcet_reduction.svg").exists());
    let tables = std::fs::read_to_string(out.join("tables.md")).unwrap();
    assert!(tables.contains("wcet_reduction.svg not drawn"), "{tables}");
    assert!(std::fs::read_to_string(out.join("table3.md"))
        .unwrap()
        .contains("| figure2 | 1 | 319 |"));

    // Again: every point from the cache, the same rows.
    let again = eval(&[s_arg, "--out", out_arg]);
    assert!(again.status.success());
    assert!(
        text(&again.stderr).contains("4 from the cache, 0 run"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(records(&out), rows);
    assert_eq!(
        std::fs::read_to_string(out.join("cache.jsonl"))
            .unwrap()
            .lines()
            .count(),
        4
    );

    // As a job array: one command per point, each run as a cluster would, then merged.
    let list = tmp.path().join("jobs.txt");
    let shards = tmp.path().join("shards");
    let emit = eval(&[
        s_arg,
        "--emit-jobs",
        list.to_str().unwrap(),
        "--out",
        shards.to_str().unwrap(),
    ]);
    assert!(emit.status.success(), "{}", text(&emit.stderr));
    let commands = std::fs::read_to_string(&list).unwrap();
    assert_eq!(commands.lines().count(), 4);
    let script = std::fs::read_to_string(tmp.path().join("jobs.txt.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3"), "{script}");
    for line in commands.lines() {
        let ran = std::process::Command::new("sh")
            .arg("-c")
            .arg(line)
            .output()
            .unwrap();
        assert!(ran.status.success(), "{line}: {}", text(&ran.stderr));
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["--merge".to_string()];
    args.extend((0..4).map(|k| {
        shards
            .join(format!("shard_{k}"))
            .to_string_lossy()
            .into_owned()
    }));
    args.extend(["--out".into(), merged.to_string_lossy().into_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let m = eval(&args);
    assert!(m.status.success(), "{}", text(&m.stderr));
    assert_eq!(records(&merged), rows);
    assert_eq!(
        std::fs::read_to_string(merged.join("table3.md")).unwrap(),
        std::fs::read_to_string(out.join("table3.md")).unwrap()
    );

    // A shard missing from the merge: the rest is written, the exit says what is missing.
    let partial = eval(&[
        "--merge",
        shards.join("shard_0").to_str().unwrap(),
        "--out",
        tmp.path().join("partial").to_str().unwrap(),
    ]);
    assert!(!partial.status.success());
    assert!(
        text(&partial.stderr).contains("points are missing"),
        "{}",
        text(&partial.stderr)
    );
    let notes = std::fs::read_to_string(tmp.path().join("partial/tables.md")).unwrap();
    assert!(
        notes.contains("3 of 4 point(s) missing from the shards: 1, 2, 3"),
        "{notes}"
    );
}

/// Table 3 compares PWS with DWS bounded both ways: the serialized bound every run is checked
/// against, and [P]'s Lemma 5.7 as `pws wcet --dws-bound lemma-5.7` computes it.
#[test]
fn table3_puts_the_papers_dws_bound_beside_the_serialized_one() {
    let tmp = tempfile::tempdir().unwrap();
    let s = sweep(
        tmp.path(),
        "s.toml",
        &[repo("kernels/figure2.toml")],
        "modes = [\"dws\", \"pws\"]\nS = [1]\ncompaction = [\"none\"]\n",
    );
    let out = tmp.path().join("out");
    let run = eval(&[s.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));

    let wcet = pws(&[
        "wcet",
        &repo("kernels/figure2.toml"),
        "--S",
        "1",
        "--mode",
        "dws",
        "--dws-bound",
        "lemma-5.7",
        "--json",
    ]);
    assert!(wcet.status.success(), "{}", text(&wcet.stderr));
    let wcet: serde_json::Value = serde_json::from_slice(&wcet.stdout).unwrap();
    let lemma = wcet["modes"][0]["bound"].as_u64().unwrap();

    let rows = records(&out);
    let row = |mode: &str| rows.iter().find(|r| r["mode"] == mode).unwrap().clone();
    let (dws, pws_row) = (row("dws"), row("pws"));
    assert_eq!(dws["dws_lemma57"].as_u64(), Some(lemma), "{dws}");
    assert!(lemma > dws["bound"].as_u64().unwrap(), "{dws}");
    assert!(pws_row["dws_lemma57"].is_null(), "{pws_row}");

    let below = |base: u64| {
        let p = pws_row["bound"].as_u64().unwrap() as f64;
        format!("{:.1}%", 100.0 * (1.0 - p / base as f64))
    };
    let table3 = std::fs::read_to_string(out.join("table3.md")).unwrap();
    let line = table3
        .lines()
        .find(|l| l.starts_with("| figure2 | 1 |"))
        .unwrap();
    assert!(
        line.ends_with(&format!(
            "| {} | {} |",
            below(dws["bound"].as_u64().unwrap()),
            below(lemma)
        )),
        "{table3}"
    );
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(
        csv.lines().any(|l| l.contains(&format!(",{lemma},"))),
        "{csv}"
    );
}

#[test]
fn failing_points_are_recorded_and_make_the_exit_non_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let wrong = common::figure2_expecting_wrong(tmp.path());
    let s = sweep(
        tmp.path(),
        "s.toml",
        &[wrong.to_string_lossy().into_owned()],
        "modes = [\"nosplit\"]\n",
    );
    let out = tmp.path().join("out");
    let run = eval(&[
        s.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("1 of 1 point(s) failed"),
        "{}",
        text(&run.stderr)
    );
    let r = &records(&out)[0];
    assert_eq!(r["status"], "fail");
    assert_eq!(r["expect_equal"], false);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("expected values; out[3] is 1204, the manifest expects 0"),
        "{r}"
    );

    // A cycle cap far below the run: a run error, recorded with its message.
    let s = sweep(
        tmp.path(),
        "cap.toml",
        &[repo("kernels/figure2.toml")],
        "modes = [\"nosplit\"]\nmax_cycles = 5\n",
    );
    let out = tmp.path().join("cap");
    let run = eval(&[
        s.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(!run.status.success());
    let r = &records(&out)[0];
    assert_eq!(r["status"], "fail");
    assert!(r["reason"].as_str().unwrap().contains("cycle cap"), "{r}");
    assert!(std::fs::read_to_string(out.join("results.csv"))
        .unwrap()
        .contains(",fail,"));
}

#[test]
fn bad_sweep_files_say_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let k = repo("kernels/figure2.toml");
    let cases = [
        (
            "modes = [\"pws\", \"simt\"]\n",
            "s.toml:2:",
            "`modes`: unknown mode 'simt'",
        ),
        ("S = [1, 8]\n", "s.toml:2:", "`S`: 8 is out of range 0..=7"),
        (
            "compaction = [\"tcc\"]\n",
            "s.toml:2:",
            "`compaction`: unknown compaction 'tcc'",
        ),
        (
            "configs = [\"huge\"]\n",
            "s.toml:2:",
            "`configs`: 'huge' is neither a preset",
        ),
        ("kernel = 3\n", "s.toml:2:", "unknown field `kernel`"),
        ("S = [1\n", "s.toml:", ""),
        ("S = []\n", "s.toml:2:", "`S`: the list is empty"),
        (
            "max_cycles = -1\n",
            "s.toml:2:",
            "`max_cycles`: expected a positive integer",
        ),
    ];
    for (body, place, what) in cases {
        let s = sweep(tmp.path(), "s.toml", &[k.clone()], body);
        let out = eval(&[
            s.to_str().unwrap(),
            "--out",
            tmp.path().join("o").to_str().unwrap(),
        ]);
        let err = text(&out.stderr);
        assert!(
            !out.status.success() && err.contains(place) && err.contains(what),
            "{body}: {err}"
        );
    }
    let s = sweep(tmp.path(), "s.toml", &[repo("kernels/nothing/*.toml")], "");
    let err = text(&eval(&[s.to_str().unwrap()]).stderr);
    assert!(
        err.contains("s.toml:1:") && err.contains("`kernels`") && err.contains("names no file"),
        "{err}"
    );
    let s = sweep(tmp.path(), "s.toml", &[k], "");
    let err = text(&eval(&[s.to_str().unwrap(), "--point", "9"]).stderr);
    assert!(err.contains("--point 9: the sweep has 3 points"), "{err}");
    let missing = command()
        .args(["eval", "no-such-sweep.toml"])
        .output()
        .unwrap();
    assert!(!missing.status.success() && text(&missing.stderr).contains("no-such-sweep.toml"));
}

/// Figure 10 from a `[synthetic]` table: two shares of divergent instructions at the smallest
/// knobs (two nested levels, two instructions per work-item), no-split and PWS.
#[test]
fn a_synthetic_table_gives_figure_10() {
    let tmp = tempfile::tempdir().unwrap();
    let s = tmp.path().join("f10.toml");
    std::fs::write(
        &s,
        "modes = [\"nosplit\", \"pws\"]\nS = [1]\ncompaction = [\"none\"]\n\n[synthetic]\ndivergent = [50, 100]\ndepth = 2\ninstructions = 2\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = command()
        .args([
            "eval",
            s.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .env("PWS_CACHE_DIR", tmp.path().join("cache"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let rows = records(&out);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    let tables = std::fs::read_to_string(out.join("tables.md")).unwrap();
    assert!(tables.contains("(Figure 10)"), "{tables}");
    assert!(tables.contains("| 50% | 0% | 1 | 1 |") && tables.contains("| 100% | 0% | 1 | 1 |"));
    let svg = std::fs::read_to_string(out.join("wcet_vs_divergence.svg")).unwrap();
    assert!(svg.contains("memory 0% L=1 S=1"), "{svg}");
    // One memory share only: nothing to draw against it, and tables.md says so.
    assert!(!out.join("wcet_vs_memory.svg").exists());
    assert!(tables.contains("wcet_vs_memory.svg not drawn"));
}

#[test]
fn reprovision_runs_each_pws_point_again_on_the_reprovisioned_unit() {
    let tmp = tempfile::tempdir().unwrap();
    // Figure 2's three splits keep at most two split contexts alive (c = 2): at S = 7 the
    // unit's five idle SpSIMDs give one more SIMD with two SpSIMDs (Eq 2: 1 + 1 x 5 / 3 = 2
    // SIMDs; the two left over stay idle).
    let s = sweep(
        tmp.path(),
        "s.toml",
        &[repo("kernels/figure2.toml")],
        "modes = [\"pws\"]\nS = [7]\nreprovision = true\n",
    );
    let out = tmp.path().join("out");
    let run = eval(&[s.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let rows = records(&out);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["reprovisioned"], serde_json::Value::Null);
    assert_eq!(rows[1]["reprovisioned"], "2 SIMDs x S = 2", "{}", rows[1]);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["golden_equal"], true, "{r}");
    }
    let tables = std::fs::read_to_string(out.join("tables.md")).unwrap();
    assert!(
        tables.contains("## SpSIMD re-provisioning (Figure 12)"),
        "{tables}"
    );
    assert!(
        tables.contains("| figure2 | 7 | none | 2 SIMDs x S = 2 |"),
        "{tables}"
    );
    assert!(out.join("reprovision.svg").is_file());
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(
        csv.lines().nth(2).unwrap().contains("2 SIMDs x S = 2"),
        "{csv}"
    );
}
