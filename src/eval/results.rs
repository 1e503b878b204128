//! The results of a sweep: one [`Record`] per point, the cache of finished points (one JSON
//! line each, keyed by a hash of everything that decides the result) and the files
//! `results.csv`, `results.json` and `sweep.json` of an output directory.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One point's result, as `results.json` and the cache hold it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// The point's index in the sweep (`--point`).
    pub point: usize,
    /// The cache key: a hash of the program, manifest, configuration, mode, S, compaction,
    /// cycle cap and pws binary (empty when the launch could not be prepared).
    pub key: String,
    pub benchmark: String,
    pub size: String,
    pub manifest: String,
    pub config: String,
    pub mode: String,
    #[serde(rename = "S")]
    pub s: usize,
    pub compaction: String,
    pub cycles: Option<u64>,
    /// The WCET bound of `pws wcet` for this mode, S and configuration.
    pub bound: Option<u64>,
    /// For a DWS point, the DWS bound of [P]'s Lemma 5.7 (`pws wcet --dws-bound lemma-5.7`),
    /// which Table 3 compares PWS with beside `bound`.
    #[serde(default)]
    pub dws_lemma57: Option<u64>,
    /// bound / cycles.
    pub tightness: Option<f64>,
    pub lane_utilisation: Option<f64>,
    /// VALU passes issued (EU cycles).
    pub valu_passes: Option<u64>,
    pub passes_skipped: Option<u64>,
    pub golden_equal: Option<bool>,
    pub unsplit_equal: Option<bool>,
    pub expect_equal: Option<bool>,
    /// "ok" or "fail".
    pub status: String,
    /// Why the point failed; empty when it passed.
    pub reason: String,
    /// Why there is no bound, and the preparation's warnings.
    pub notes: String,
    /// The re-provisioned compute unit the point ran on (`N SIMDs x S = c`); `None` for a
    /// point on its configuration as written.
    #[serde(default)]
    pub reprovisioned: Option<String>,
}

impl Record {
    pub fn failed(&self) -> bool {
        self.status != "ok"
    }
}

/// The columns of `results.csv`, in order.
const CSV_COLUMNS: [&str; 23] = [
    "point",
    "benchmark",
    "size",
    "manifest",
    "config",
    "mode",
    "S",
    "compaction",
    "cycles",
    "bound",
    "dws_lemma57",
    "tightness",
    "lane_utilisation",
    "valu_passes",
    "passes_skipped",
    "golden_equal",
    "unsplit_equal",
    "expect_equal",
    "reprovisioned",
    "status",
    "reason",
    "notes",
    "key",
];

/// A CSV field, quoted when it holds a separator, a quote or a line break (RFC 4180).
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or(String::new(), T::to_string)
}

/// `results.csv`: a header, then one line per record.
pub fn csv(records: &[Record]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for r in records {
        let cells = [
            r.point.to_string(),
            r.benchmark.clone(),
            r.size.clone(),
            r.manifest.clone(),
            r.config.clone(),
            r.mode.clone(),
            r.s.to_string(),
            r.compaction.clone(),
            opt(&r.cycles),
            opt(&r.bound),
            opt(&r.dws_lemma57),
            r.tightness.map_or(String::new(), |t| format!("{t:.4}")),
            r.lane_utilisation
                .map_or(String::new(), |u| format!("{u:.4}")),
            opt(&r.valu_passes),
            opt(&r.passes_skipped),
            opt(&r.golden_equal),
            opt(&r.unsplit_equal),
            opt(&r.expect_equal),
            opt(&r.reprovisioned),
            r.status.clone(),
            r.reason.clone(),
            r.notes.clone(),
            r.key.clone(),
        ];
        let line: Vec<String> = cells.iter().map(|c| field(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// What an output directory's results belong to: the sweep and its number of points, so
/// `--merge` can tell a missing shard from a finished sweep.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepInfo {
    pub sweep: String,
    pub points: usize,
}

/// Writes `results.json`, `results.csv` and `sweep.json` into `dir`, each atomically.
pub fn write(dir: &Path, info: &SweepInfo, records: &[Record]) -> Result<(), String> {
    write_file(
        &dir.join("results.json"),
        &serde_json::to_string_pretty(records).map_err(|e| e.to_string())?,
    )?;
    write_file(&dir.join("results.csv"), &csv(records))?;
    write_file(
        &dir.join("sweep.json"),
        &serde_json::to_string_pretty(info).map_err(|e| e.to_string())?,
    )
}

/// Reads what [`write`] wrote.
pub fn read(dir: &Path) -> Result<(SweepInfo, Vec<Record>), String> {
    let load = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", pws_isa::diag::path(&path)))
    };
    let info: SweepInfo = serde_json::from_str(&load("sweep.json")?)
        .map_err(|e| format!("{}: {e}", pws_isa::diag::path(&dir.join("sweep.json"))))?;
    let records: Vec<Record> = serde_json::from_str(&load("results.json")?)
        .map_err(|e| format!("{}: {e}", pws_isa::diag::path(&dir.join("results.json"))))?;
    Ok((info, records))
}

/// Writes `text` to `path` through a temporary file, so a reader never sees half a file.
pub fn write_file(path: &Path, text: &str) -> Result<(), String> {
    let shown = pws_isa::diag::path(path);
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{shown}: {e}"))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{shown}: {e}"))
}

/// A hex SHA-256 of the parts, each length-prefixed so no two lists hash alike.
pub fn key(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The finished points of earlier runs: `cache.jsonl` in the output directory, one record
/// per line, appended (and flushed) as each point finishes, so an interrupted sweep loses
/// only the points that were running.
pub struct Cache {
    file: std::sync::Mutex<std::fs::File>,
    found: HashMap<String, Record>,
}

impl Cache {
    /// Opens the cache of `dir`; `fresh` starts it empty. A line that does not parse (the
    /// last line of a killed run) is skipped.
    pub fn open(dir: &Path, fresh: bool) -> Result<Cache, String> {
        let path = dir.join("cache.jsonl");
        let shown = pws_isa::diag::path(&path);
        let mut found = HashMap::new();
        let mut torn = false;
        if !fresh {
            if let Ok(text) = std::fs::read_to_string(&path) {
                torn = !text.is_empty() && !text.ends_with('\n');
                for line in text.lines() {
                    if let Ok(r) = serde_json::from_str::<Record>(line) {
                        if !r.key.is_empty() {
                            found.insert(r.key.clone(), r);
                        }
                    }
                }
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(!fresh)
            .write(true)
            .truncate(fresh)
            .open(&path)
            .map_err(|e| format!("{shown}: {e}"))?;
        // The next record starts on a line of its own, not after a killed run's fragment.
        let mut file = file;
        if torn {
            file.write_all(b"\n").map_err(|e| format!("{shown}: {e}"))?;
        }
        Ok(Cache {
            file: std::sync::Mutex::new(file),
            found,
        })
    }

    /// The record an earlier run left for `key`.
    pub fn get(&self, key: &str) -> Option<&Record> {
        self.found.get(key)
    }

    /// Appends a finished point (records without a key are not cached).
    pub fn put(&self, record: &Record) -> Result<(), String> {
        if record.key.is_empty() {
            return Ok(());
        }
        let mut line = serde_json::to_string(record).map_err(|e| e.to_string())?;
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| format!("cache.jsonl: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(point: usize, key: &str) -> Record {
        Record {
            point,
            key: key.into(),
            benchmark: "b".into(),
            size: "-".into(),
            manifest: "k, \"odd\".toml".into(),
            config: "cu".into(),
            mode: "pws".into(),
            s: 1,
            compaction: "none".into(),
            cycles: Some(10),
            bound: Some(12),
            dws_lemma57: None,
            tightness: Some(1.2),
            lane_utilisation: Some(0.5),
            valu_passes: Some(4),
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
    fn csv_quotes_separators() {
        let text = csv(&[record(0, "k")]);
        let line = text.lines().nth(1).unwrap();
        assert!(line.contains("\"k, \"\"odd\"\".toml\""), "{line}");
        assert_eq!(
            text.lines().next().unwrap().split(',').count(),
            CSV_COLUMNS.len()
        );
    }

    #[test]
    fn cache_survives_a_torn_last_line_and_fresh_empties_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path(), false).unwrap();
        cache.put(&record(0, "a")).unwrap();
        cache.put(&record(1, "")).unwrap();
        drop(cache);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("cache.jsonl"))
            .unwrap();
        f.write_all(b"{\"point\": 3, \"ke").unwrap();
        let cache = Cache::open(dir.path(), false).unwrap();
        assert_eq!(cache.get("a"), Some(&record(0, "a")));
        assert_eq!(cache.found.len(), 1);
        cache.put(&record(2, "c")).unwrap();
        drop(cache);
        let cache = Cache::open(dir.path(), false).unwrap();
        assert!(cache.get("a").is_some() && cache.get("c").is_some());
        let cache = Cache::open(dir.path(), true).unwrap();
        assert!(cache.get("a").is_none());
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(key(&[b"x"]).len(), 64);
    }
}
